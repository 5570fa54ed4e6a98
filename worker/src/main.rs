//! `leaper-worker`: serves one machine's share of leaper jobs. Wiring only; see the library.

use clap::Parser;
use leaper_worker::WorkerConfig;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    leaper_core::cpu::check().map_err(anyhow::Error::msg)?;
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
    leaper_worker::run(config).await
}
