//! `leaper-worker`: serves one machine's share of leaper jobs. Wiring only; see the library.

use std::process::ExitCode;

use clap::Parser;
use leaper_worker::WorkerConfig;

#[tokio::main]
async fn main() -> ExitCode {
    if let Err(message) = leaper_core::cpu::check() {
        eprintln!("error: {message}");
        return ExitCode::FAILURE;
    }
    leaper_core::heap::return_large_frees();
    let config = WorkerConfig::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        // Colour only for a person at a terminal: logs in files and journals stay plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    // A refusal (a data directory in use, a token file that will not do) is a plain line, as
    // `leaper` prints it: an error returned from main would be printed with its stack trace
    // whenever RUST_BACKTRACE is set.
    match leaper_worker::run(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
