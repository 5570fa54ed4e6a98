//! `leaper`: exact counts of knight's tours and other combinatorial objects.
//!
//! The binary is wiring: parse the command line, set up logging, run, and turn errors into a
//! message and a non-zero exit code.

use std::process::ExitCode;

use clap::Parser;

use leaper_coordinator::cli::Cli;
use leaper_coordinator::{logging, run};

fn main() -> ExitCode {
    let cli = Cli::parse();
    logging::init(cli.log_format);
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
