//! The problems, one folder each, and the registry that names them.
//!
//! Adding a problem: write its folder (its computation behind an engine seam, [`Transition`] for
//! a sweep or [`SubtreeProblem`] for a subtree search; its [`Problem`] face, commands and
//! parameters; and the [`Task`] its parameters read into: the job, its names, its results), then
//! add one line to [`REGISTRY`]. The command line, `job.toml`, `leaper resume`, `leaper status`
//! and the workers all find it there (ARCHITECTURE.md, "Adding a problem").
//!
//! [`Task`]: crate::engine::Task
//! [`Transition`]: crate::engine::Transition
//! [`SubtreeProblem`]: crate::engine::subtree::SubtreeProblem

/// Any graph the user gives: Hamiltonian cycles and paths by the tours' transfer matrix.
pub mod graph;
pub mod quartering;
pub mod quarto;
pub mod tangram;
/// Knight's tour files, tour by tour: a problem folder of its own whose commands hang under
/// `leaper tours` (the tours' face lists them), on the tours' boards.
pub mod tour_files;
pub mod tours;

use crate::engine::Problem;
use crate::{Error, Result};

/// Every problem leaper counts.
pub static REGISTRY: &[&dyn Problem] = &[
    &tours::Tours,
    &quarto::QuartoProblem,
    &quartering::QuarterProblem,
    &tangram::TangramProblem,
    &graph::GraphProblem,
];

/// The problem a job spec, lease or preparation names.
pub fn find(name: &str) -> Result<&'static dyn Problem> {
    REGISTRY.iter().copied().find(|problem| problem.name() == name).ok_or_else(|| {
        let known: Vec<&str> = REGISTRY.iter().map(|p| p.name()).collect();
        Error::InvalidRequest(format!("unknown problem {name:?}; this leaper knows {}", known.join(", ")))
    })
}

/// The problem that owns the subcommand `command`.
pub fn owning(command: &str) -> Option<&'static dyn Problem> {
    REGISTRY.iter().copied().find(|problem| problem.commands().iter().any(|c| c.get_name() == command))
}
