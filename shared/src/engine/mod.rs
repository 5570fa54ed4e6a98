//! The engine as the problems see it: the `leaper-engine` crate, whole, and beside it the seam
//! between a problem and the command line ([`problem`]: [`Problem`], the typed [`Task`] its
//! parameters read into, [`Tool`]), which speaks clap and so lives here with the problems, not
//! in the engine.

pub use leaper_engine::*;

pub mod problem;

pub use problem::{EngineOption, Job, OutputFormat, Printing, Problem, Requested, Task, Tool, ToolContext};
