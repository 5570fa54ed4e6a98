//! `leaper`: exact counts of knight's tours and other combinatorial objects.
//!
//! The binary is wiring: parse the command line, set up logging, run, and turn errors into a
//! message and a non-zero exit code.

use std::process::ExitCode;

use leaper_coordinator::{cli, console, interrupt, run};

fn main() -> ExitCode {
    if let Err(message) = leaper_core::cpu::check() {
        eprintln!("error: {message}");
        return ExitCode::FAILURE;
    }
    leaper_core::heap::return_large_frees();
    let invocation = match cli::parse() {
        Ok(invocation) => invocation,
        Err(error) => {
            eprintln!("error: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    console::init(invocation.console);
    interrupt::install();
    match run(invocation.action) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            console::hide();
            // A reader of standard output that went away (`| head`) took what it wanted.
            if leaper_coordinator::output::closed_stdout(&error) {
                return ExitCode::SUCCESS;
            }
            // A question answered no (`tangram fit`) said so on stdout: status 1, as grep's.
            if leaper_coordinator::output::answered_no(&error) {
                return ExitCode::from(1);
            }
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
