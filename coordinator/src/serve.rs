//! The Coordinator gRPC service: a running job's status for `leaper status --coordinator ADDR`,
//! served on `--listen` and read from the job directory exactly as `leaper status --job-dir`
//! reads it. Calls need the token; `--tls-cert/--tls-key` serve it over TLS. The same port
//! answers `GET /metrics` (`metrics.rs`), with the same token.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use leaper_core::engine::OutputFormat;
use leaper_proto::auth::{read_token, TokenCheck};
use leaper_proto::client::{channel, AddToken, Credentials};
use leaper_proto::metrics::MetricsLayer;
use leaper_proto::v1::coordinator_client::CoordinatorClient;
use leaper_proto::v1::coordinator_server::{Coordinator, CoordinatorServer};
use leaper_proto::v1::{JobProgress, StatusRequest};
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response};

use crate::cli::StatusArgs;
use crate::request::ClusterArgs;
use crate::status::Status;

/// How often a watch looks at the job directory for a new checkpoint or ledger line.
const POLL: Duration = Duration::from_secs(1);

/// The service, running on its own thread while the job runs; stopped when dropped (watchers
/// then get the final status and their streams end).
pub struct StatusServer {
    stop: watch::Sender<bool>,
    stopped: std::sync::mpsc::Receiver<()>,
}

/// The status service's address, bound, with its token and TLS identity loaded: made before a
/// job directory is created or opened, so that a busy address or a bad key stops the command
/// before anything is written.
pub struct StatusListener {
    listener: std::net::TcpListener,
    server: tonic::transport::Server,
    token: String,
    tls: bool,
}

/// Binds the status service's address if `cluster` asks for one (`--listen`).
pub fn bind(cluster: &ClusterArgs) -> Result<Option<StatusListener>> {
    let Some(address) = cluster.listen else { return Ok(None) };
    let token_file = cluster.status_token_file().context("--listen needs --token-file or --listen-token-file")?;
    let token = read_token(token_file)?;
    let server = leaper_proto::tls::server(cluster.tls_cert.as_deref(), cluster.tls_key.as_deref())?;
    let listener = std::net::TcpListener::bind(address).with_context(|| format!("cannot listen on {address}"))?;
    listener.set_nonblocking(true)?;
    Ok(Some(StatusListener { listener, server, token, tls: cluster.tls_cert.is_some() }))
}

impl StatusListener {
    /// Serves `job_dir`'s status on a thread of its own until the returned server is dropped.
    pub fn serve(self, job_dir: &Path) -> Result<StatusServer> {
        let (stop, stopping) = watch::channel(false);
        let (done, stopped) = std::sync::mpsc::channel();
        let service = CoordinatorService { dir: job_dir.to_path_buf(), stopping: stopping.clone() };
        let address = self.listener.local_addr()?;
        let tls = self.tls;
        std::thread::Builder::new().name("status-service".into()).spawn(move || {
            let served = serve(self.server, self.listener, service, self.token, stopping);
            if let Err(error) = served {
                tracing::warn!("the status service stopped: {error:#}");
            }
            let _ = done.send(());
        })?;
        tracing::info!(listen = %address, tls, "serving the job's status");
        Ok(StatusServer { stop, stopped })
    }
}

/// Serves the status of `job_dir` if a listener was bound.
pub fn start(listener: Option<StatusListener>, job_dir: &Path) -> Result<Option<StatusServer>> {
    listener.map(|listener| listener.serve(job_dir)).transpose()
}

fn serve(
    server: tonic::transport::Server,
    listener: std::net::TcpListener,
    service: CoordinatorService,
    token: String,
    mut stopping: watch::Receiver<bool>,
) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
        let shutdown = async move {
            let _ = stopping.wait_for(|stop| *stop).await;
        };
        // `/metrics` beside the status service, for the same token (leaper_proto::metrics).
        let dir = service.dir.clone();
        let scrape = move || crate::metrics::render(&dir).map_err(|error| format!("{error:#}"));
        server
            .accept_http1(true)
            .layer(MetricsLayer::new(&token, std::sync::Arc::new(scrape)))
            .add_service(tonic::service::interceptor::InterceptedService::new(
                CoordinatorServer::new(service),
                TokenCheck::new(token),
            ))
            .serve_with_incoming_shutdown(incoming, shutdown)
            .await
            .context("the status service failed")
    })
}

impl Drop for StatusServer {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        // Long enough for watchers to get the final status; a stuck client does not hold the job.
        let _ = self.stopped.recv_timeout(Duration::from_secs(5));
    }
}

struct CoordinatorService {
    dir: PathBuf,
    stopping: watch::Receiver<bool>,
}

/// What a watcher is sent the status again for: the job's state and its work done (a step
/// committed, a shard finished). Not the whole status: its ETA counts down between commits, and
/// a status a second that says only that buries the ones that say something.
fn what_moved(progress: &JobProgress) -> (&str, &str, u64, u64) {
    (&progress.job_id, &progress.state, progress.done, progress.total)
}

/// The job's status now, as the wire carries it.
async fn progress(dir: &Path) -> Result<JobProgress, tonic::Status> {
    let dir = dir.to_path_buf();
    let read = tokio::task::spawn_blocking(move || -> Result<JobProgress> {
        let status = Status::read(&dir)?;
        let (done, total, unit) = status.done();
        Ok(JobProgress {
            job_id: status.job().to_string(),
            state: status.state().to_string(),
            done,
            total,
            unit: unit.to_string(),
            status_json: status.to_json()?,
        })
    });
    match read.await {
        Ok(Ok(progress)) => Ok(progress),
        Ok(Err(error)) => Err(tonic::Status::internal(format!("{error:#}"))),
        Err(error) => Err(tonic::Status::internal(error.to_string())),
    }
}

#[tonic::async_trait]
impl Coordinator for CoordinatorService {
    async fn status(&self, _: Request<StatusRequest>) -> Result<Response<JobProgress>, tonic::Status> {
        Ok(Response::new(progress(&self.dir).await?))
    }

    type WatchStream = ReceiverStream<Result<JobProgress, tonic::Status>>;

    async fn watch(&self, _: Request<StatusRequest>) -> Result<Response<Self::WatchStream>, tonic::Status> {
        let (send, receive) = mpsc::channel(4);
        let dir = self.dir.clone();
        let mut stopping = self.stopping.clone();
        tokio::spawn(async move {
            let mut last: Option<JobProgress> = None;
            loop {
                let stopped = *stopping.borrow_and_update();
                let now = progress(&dir).await;
                let end = stopped || now.as_ref().map_or(true, |p| p.state == "finished");
                if now.as_ref().ok().map(what_moved) != last.as_ref().map(what_moved) {
                    last = now.as_ref().ok().cloned();
                    if send.send(now).await.is_err() {
                        return;
                    }
                }
                if end {
                    return;
                }
                tokio::select! {
                    _ = tokio::time::sleep(POLL) => {}
                    _ = stopping.changed() => {}
                    // A watcher that went away stops the polling even while nothing changes.
                    _ = send.closed() => return,
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(receive)))
    }
}

/// `leaper status --coordinator ADDR [--follow]`.
pub fn show_remote(address: &str, args: &StatusArgs, out: &mut dyn Write) -> Result<()> {
    let token_file = args.token_file.as_deref().context("--coordinator needs --token-file")?;
    let credentials = Credentials::load(token_file, args.tls_ca.as_deref())?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let unreachable = |error: tonic::Status| match error.code() {
        tonic::Code::Unavailable => anyhow::anyhow!(
            "cannot reach coordinator {address}: {} (it serves only while its job runs, with --listen)",
            error.message()
        ),
        _ => anyhow::anyhow!("coordinator {address}: {}", error.message()),
    };
    runtime.block_on(async {
        let channel = channel(address, &credentials)?;
        let mut client = CoordinatorClient::with_interceptor(channel, AddToken::new(&credentials.token)?);
        if !args.follow {
            let progress = client.status(StatusRequest {}).await.map_err(unreachable)?.into_inner();
            return print(&progress, args.format, out);
        }
        let mut stream = client.watch(StatusRequest {}).await.map_err(unreachable)?.into_inner();
        // On a terminal each status replaces the one before; elsewhere (a file, a pipe) they
        // follow one another, a blank line apart.
        let redraw = args.format == OutputFormat::Text && std::io::IsTerminal::is_terminal(&std::io::stdout());
        let (mut finished, mut first, mut drawn) = (false, true, 0);
        loop {
            let progress = match stream.message().await {
                Ok(Some(progress)) => progress,
                Ok(None) => break,
                // The coordinator may exit before the stream closes cleanly: the job is done.
                Err(_) if finished => break,
                Err(error) => return Err(unreachable(error)),
            };
            if redraw {
                let mut block = Vec::new();
                print(&progress, args.format, &mut block)?;
                if drawn > 0 {
                    // Up over the last block, then clear to the end of the screen.
                    write!(out, "\x1b[{drawn}A\x1b[J")?;
                }
                drawn = block.iter().filter(|&&byte| byte == b'\n').count();
                out.write_all(&block)?;
            } else {
                if args.format == OutputFormat::Text && !first {
                    writeln!(out)?;
                }
                print(&progress, args.format, out)?;
            }
            first = false;
            finished = progress.state == "finished";
            out.flush()?;
        }
        if !finished {
            anyhow::bail!(
                "the coordinator at {address} stopped before its job finished: see its log; \
                 `leaper resume --job-dir DIR` continues the job"
            );
        }
        Ok(())
    })
}

fn print(progress: &JobProgress, format: OutputFormat, out: &mut dyn Write) -> Result<()> {
    Status::from_json(&progress.status_json, &progress.unit)?.print(format, out)
}
