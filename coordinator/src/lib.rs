//! The coordinator side of leaper: command line, job planning, the embedded local mode and
//! result output. `main.rs` only wires these together.

pub mod cli;
pub mod cluster;
pub mod job;
pub mod leases;
pub mod logging;
pub mod memory;
pub mod output;
pub mod progress;
pub mod quarto;
pub mod serve;
pub mod status;
pub mod subtree;
pub mod tours;

use anyhow::Result;

use cli::{Cli, Command};

/// Runs one command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Knight(args) => tours::run(tours::Piece::Knight, args),
        Command::Camel(args) => tours::run(tours::Piece::Camel, args),
        Command::Zebra(args) => tours::run(tours::Piece::Zebra, args),
        Command::Tours { moves, args } => tours::run(tours::Piece::Custom(moves), args),
        Command::Quarto(args) => quarto::run(args),
        Command::Resume(args) if job::is_subtree_job(&args.job_dir) => quarto::resume(&args),
        Command::Resume(args) => tours::resume(args),
        Command::Status(args) => status::show(args),
        Command::Worker(config) => tokio::runtime::Runtime::new()?.block_on(leaper_worker::run(config)),
    }
}
