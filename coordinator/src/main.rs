//! `leaper`: exact counts of knight's tours and other combinatorial objects.
//!
//! The binary is wiring: parse the command line, set up logging, run, and turn errors into a
//! message and a non-zero exit code.

use std::process::ExitCode;

use leaper_coordinator::{cli, logging, run};

fn main() -> ExitCode {
    let invocation = match cli::parse() {
        Ok(invocation) => invocation,
        Err(error) => {
            eprintln!("error: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    logging::init(invocation.log_format);
    match run(invocation.action) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
