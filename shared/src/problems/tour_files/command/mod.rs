//! `leaper tours enumerate | generate | dedupe | convert | show`: the tour files' face to the
//! command line, one file per subcommand.
//!
//! `enumerate` is a job (a subtree search: `--job-dir`, `resume`, `status` and `--workers` work
//! for it); the others are tools that read and write files in one run. What the tools share
//! (how they read tour files, their threads) is in `shared_args.rs`.

mod convert;
mod dedupe;
pub mod enumerate;
mod generate;
mod shared_args;
mod show;

use crate::engine::problem::Tool;
pub use convert::ConvertTool;
pub use dedupe::DedupeTool;
pub use enumerate::{EnumerateArgs, EnumerateParams, EnumerateTask, ENUMERATE};
pub use generate::GenerateTool;
pub use show::ShowTool;

/// The tools, as `leaper tours` lists them.
pub static TOOLS: [&dyn Tool; 4] = [&GenerateTool, &DedupeTool, &ConvertTool, &ShowTool];
