//! Running a subtree job's shards on cluster workers. Each worker holds as many leases at a time
//! as it has threads. A lease whose call fails (the worker died, restarted, or stopped answering:
//! the channel's keep-alive notices within seconds) goes back to the queue and is leased again,
//! to whichever worker asks next; a refusal (wrong token, job, format or shard plan) stops the job.
//! Which is which follows from the error's kind (`leaper_proto::convert::from_status`).

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use leaper_core::engine::subtree::ShardResult;
use leaper_core::{Error, Result};
use leaper_proto::client::{Client, Credentials};
use leaper_proto::convert::from_status;
use leaper_proto::v1::ShardLease;
use leaper_proto::FORMAT_VERSION;
use tokio::runtime::Runtime;
use tokio::sync::mpsc;

use crate::workers::{connect_workers, release_all};

/// How long a failed worker rests before it is offered another lease.
const RETRY_PAUSE: Duration = Duration::from_secs(2);

/// What every lease of the job says, but the shard.
#[derive(Clone, Debug)]
pub struct LeaseTerms {
    pub job_id: String,
    pub problem: String,
    pub params: String,
    pub fingerprint: u32,
}

pub struct ShardLeaser {
    runtime: Runtime,
    addresses: Vec<String>,
    clients: Vec<Client>,
    threads: Vec<u64>,
    terms: LeaseTerms,
    /// How long the job waits for any shard to finish before it gives up on the cluster.
    patience: Duration,
}

type Outcome = std::result::Result<(usize, ShardResult), Error>;

impl ShardLeaser {
    /// Connects to the workers, with the same checks as a sweep job.
    pub fn connect(
        addresses: &[String],
        credentials: &Credentials,
        terms: LeaseTerms,
        patience: Duration,
    ) -> anyhow::Result<Self> {
        let (runtime, clients, workers) = connect_workers(addresses, credentials, &terms.job_id)?;
        let threads: Vec<u64> = workers.iter().map(|worker| worker.threads).collect();
        Ok(ShardLeaser { runtime, addresses: addresses.to_vec(), clients, threads, terms, patience })
    }

    /// Runs the `pending` shards; `record` sees each result once, in the order they finish.
    pub fn run(&self, pending: Vec<usize>, record: &mut dyn FnMut(usize, ShardResult) -> Result<()>) -> Result<()> {
        self.runtime.block_on(async {
            let mut remaining: HashSet<usize> = pending.iter().copied().collect();
            let queue = Arc::new(Mutex::new(VecDeque::from(pending)));
            let finished = Arc::new(AtomicBool::new(false));
            let (send, mut receive) = mpsc::unbounded_channel::<Outcome>();
            let mut tasks = tokio::task::JoinSet::new();
            for ((address, client), &threads) in self.addresses.iter().zip(&self.clients).zip(&self.threads) {
                for _ in 0..threads {
                    let lessee = Lessee {
                        address: address.clone(),
                        client: client.clone(),
                        terms: self.terms.clone(),
                        queue: queue.clone(),
                        finished: finished.clone(),
                        send: send.clone(),
                    };
                    tasks.spawn(lessee.work());
                }
            }
            drop(send);
            let outcome = async {
                while !remaining.is_empty() {
                    let outcome =
                        tokio::time::timeout(self.patience, receive.recv()).await.map_err(|_| Error::Unavailable {
                            peer: "(cluster)".into(),
                            message: format!(
                                "no worker finished a shard in {} s; check that the workers run, then continue with \
                                 `leaper resume` (finished shards are kept)",
                                self.patience.as_secs()
                            ),
                        })?;
                    let (index, result) = outcome.expect("lease tasks run until the job finishes")?;
                    if remaining.remove(&index) {
                        record(index, result)?;
                    }
                }
                Ok(())
            }
            .await;
            finished.store(true, Ordering::SeqCst);
            tasks.abort_all();
            outcome
        })
    }

    /// Tells every worker the job is over, so their data directories are free again.
    pub fn release_workers(&self) {
        release_all(&self.runtime, &self.clients, &self.addresses, &self.terms.job_id);
    }
}

/// One lease slot on one worker: takes shards from the queue until the job is over.
struct Lessee {
    address: String,
    client: Client,
    terms: LeaseTerms,
    queue: Arc<Mutex<VecDeque<usize>>>,
    finished: Arc<AtomicBool>,
    send: mpsc::UnboundedSender<Outcome>,
}

impl Lessee {
    async fn work(mut self) {
        while !self.finished.load(Ordering::SeqCst) {
            let next = self.queue.lock().expect("queue lock").pop_front();
            let Some(shard) = next else {
                // Leases in flight elsewhere may still come back.
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            let lease = ShardLease {
                job_id: self.terms.job_id.clone(),
                format_version: FORMAT_VERSION,
                problem: self.terms.problem.clone(),
                params: self.terms.params.clone(),
                fingerprint: self.terms.fingerprint,
                shard: shard as u64,
            };
            match self.client.run_shard(lease).await.map_err(|status| from_status(&self.address, &status)) {
                Ok(report) => {
                    let outcome = parse_report(shard, report.into_inner().counts)
                        .map_err(|message| Error::Refused { peer: self.address.clone(), message: message.to_string() });
                    let _ = self.send.send(outcome);
                }
                Err(error) if error.is_retryable() => {
                    self.queue.lock().expect("queue lock").push_back(shard);
                    tracing::warn!(worker = %self.address, shard, %error, "a lease failed; the shard is leased again");
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                Err(refusal) => {
                    let _ = self.send.send(Err(refusal));
                    return;
                }
            }
        }
    }
}

fn parse_report(shard: usize, counts: Vec<String>) -> std::result::Result<(usize, ShardResult), String> {
    let counts = counts
        .iter()
        .map(|c| c.parse::<u128>().map_err(|e| format!("shard {shard}: bad count {c:?}: {e}")))
        .collect::<std::result::Result<_, _>>()?;
    Ok((shard, ShardResult { counts }))
}
