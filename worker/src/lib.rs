//! The worker: a gRPC service over its own data directory. It says who it is (`Info`), expands,
//! shuffles and merges its buckets of transfer-matrix layers, and runs leased shards of subtree
//! jobs. Every call needs the shared token; with `--tls-cert/--tls-key` it serves TLS only. The
//! same port answers `GET /metrics` (`metrics.rs`), with the same token. The
//! network layer (token, TLS, clients, wire conversions) is `leaper-proto`'s; the problems and
//! their transitions come from `leaper-core`'s registry, by name.

pub mod job;
pub mod metrics;
pub mod service;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;
use leaper_core::engine::jobdir::DataDir;
use leaper_proto::auth::TokenCheck;
use leaper_proto::client::Credentials;
use leaper_proto::convert::MAX_MESSAGE_BYTES;
use leaper_proto::metrics::MetricsLayer;
use leaper_proto::tls;
use leaper_proto::v1::worker_server::WorkerServer;
use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;

use crate::service::WorkerService;

#[derive(Debug, Clone, Parser)]
#[command(
    name = "leaper-worker",
    version,
    about = "A leaper worker: one per machine, driven by a coordinator",
    after_help = "Examples:
  leaper-worker --listen 0.0.0.0:7101 --data-dir /data/w1 --token-file secret
  leaper-worker --listen 10.0.0.5:7101 --data-dir /data/w1 --token-file secret \\
      --tls-cert w1.pem --tls-key w1.key --tls-ca ca.pem        # over TLS"
)]
pub struct WorkerConfig {
    /// Address to serve gRPC on, for example 127.0.0.1:7101.
    #[arg(long)]
    pub listen: SocketAddr,

    /// The worker's own data directory (created if missing), locked while the worker runs: one
    /// worker per data directory.
    #[arg(long)]
    pub data_dir: PathBuf,

    /// File holding the shared token every call must carry.
    #[arg(long)]
    pub token_file: PathBuf,

    /// Threads for expansion (default: all cores; at most 1024).
    #[arg(long, value_parser = leaper_core::engine::limits::parse_threads)]
    pub threads: Option<usize>,

    /// Serve TLS with this certificate chain (PEM). Needs --tls-key and --tls-ca.
    #[arg(long, value_name = "FILE", requires_all = ["tls_key", "tls_ca"])]
    pub tls_cert: Option<PathBuf>,

    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// The CA certificate (PEM) that signed every worker's certificate: this worker checks its
    /// peers against it when it sends them states.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_ca: Option<PathBuf>,
}

/// Listens on `config.listen` and serves until SIGINT or SIGTERM.
pub async fn run(config: WorkerConfig) -> Result<()> {
    let listener =
        TcpListener::bind(config.listen).await.with_context(|| format!("cannot listen on {}", config.listen))?;
    let shutdown = async {
        let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("a SIGTERM handler can be installed");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
        tracing::info!("stopping");
    };
    serve(&config, listener, shutdown).await
}

/// Serves on `listener` until `shutdown` completes.
pub async fn serve(config: &WorkerConfig, listener: TcpListener, shutdown: impl Future<Output = ()>) -> Result<()> {
    let peers = Credentials::load(&config.token_file, config.tls_ca.as_deref())?;
    let server = tls::server(config.tls_cert.as_deref(), config.tls_key.as_deref())?;
    let data = DataDir::open(&config.data_dir)?;
    let threads = config.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if let Some(threads) = config.threads {
        // Expansion runs on rayon's global pool; a second build (tests) keeps the first.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(threads).build_global();
    }
    let token = peers.token.clone();
    let service = WorkerService::new(data, threads, peers);
    // `/metrics` beside the gRPC service, for the same token (leaper_proto::metrics).
    let metrics = MetricsLayer::new(&token, service.scrape());
    tracing::info!(
        listen = %listener.local_addr()?,
        data_dir = %config.data_dir.display(),
        tls = config.tls_cert.is_some(),
        "worker ready"
    );
    server
        .accept_http1(true)
        .layer(metrics)
        .add_service(tonic::service::interceptor::InterceptedService::new(
            WorkerServer::new(service)
                .max_decoding_message_size(MAX_MESSAGE_BYTES)
                .max_encoding_message_size(MAX_MESSAGE_BYTES),
            TokenCheck::new(token),
        ))
        // Replies are small and awaited (every step waits for Expand and Merge to answer):
        // without TCP_NODELAY each waits on Nagle's algorithm and the peer's delayed ACK, far
        // longer than a small step's work (docs/PERFORMANCE-LOG.md, "Workers' replies without
        // Nagle's delay").
        .serve_with_incoming_shutdown(TcpIncoming::from(listener).with_nodelay(Some(true)), shutdown)
        .await
        .context("gRPC server failed")
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_help_has_examples() {
        let help = super::WorkerConfig::command().render_help().to_string();
        assert!(help.contains("\nExamples:\n  leaper-worker --listen"), "{help}");
    }
}
