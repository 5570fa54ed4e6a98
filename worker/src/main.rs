//! `leaper-worker`: serves one machine's share of leaper jobs. Wiring only; see the library.

use clap::Parser;
use leaper_worker::{serve, WorkerConfig};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = WorkerConfig::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("interrupted, shutting down");
    };
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.listen))?;
    serve(&config, listener, shutdown).await
}
