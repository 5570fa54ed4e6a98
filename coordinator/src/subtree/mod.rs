//! Subtree jobs: a problem's shards run on local threads or are leased to cluster workers; with
//! a job directory every finished shard goes into the ledger (`DIR/ledger.jsonl`, see
//! `leaper_core::engine::subtree::ledger`) and `leaper resume` runs only the rest.
//!
//! ```text
//! DIR/job.toml       the spec: problem, parameters, output, workers (written once)
//! DIR/lock           held (flock) by the process running the job
//! DIR/ledger.jsonl   one line per finished shard, synced as it finishes
//! ```

pub mod leases;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use leaper_core::engine::jobdir::{has_commits, JobDir};
use leaper_core::engine::subtree::ledger::{Ledger, LedgerHeader};
use leaper_core::engine::subtree::local::{pending_shards, recorded_totals, run_local, ShardDone};
use leaper_core::engine::subtree::SubtreeProblem;

use crate::progress::ShardWatch;
use crate::request::JobRequest;
use leases::{LeaseTerms, ShardLeaser};

/// How long a cluster job waits for any shard to finish before it stops.
const WORKER_PATIENCE: Duration = Duration::from_secs(600);

/// Runs the shards of `problem` that the job's ledger (if it has a job directory) does not
/// hold yet, locally or on the workers, and returns the exact count of every slot.
pub fn run(
    problem: Arc<dyn SubtreeProblem>,
    request: &JobRequest,
    job: Option<&JobDir>,
) -> Result<Vec<(usize, String)>> {
    let problem = problem.as_ref();
    let mut ledger = match job {
        Some(job) => {
            let header = LedgerHeader::new(job.id(), &problem.describe(), problem.shard_count(), problem.fingerprint())
                .with_spec_format(job.spec().header.format);
            Some(Ledger::open(job.path(), &header)?)
        }
        None => None,
    };
    let done_before = ledger.as_ref().map_or(0, |l| l.done().len());
    if done_before > 0 {
        tracing::info!(done = done_before, shards = problem.shard_count(), "resuming: finished shards are skipped");
    }
    let started = Instant::now();
    let label = request.task.command_line();
    let mut progress = ShardWatch::new(&label, problem.shard_count(), done_before);
    let cluster = &request.run.cluster;
    let nothing_left = pending_shards(problem, ledger.as_ref()).is_empty();
    let totals = if cluster.workers.is_empty() || nothing_left {
        run_local(problem, ledger.as_mut(), request.run.threads, &mut |done| progress.shard(done))?
    } else {
        let job = job.context("a cluster job has a job directory")?;
        let credentials = cluster.credentials()?;
        let lease = LeaseTerms {
            job_id: job.id().to_string(),
            problem: request.problem.name().to_string(),
            params: toml::to_string(&request.params).context("cannot send the job's parameters")?,
            fingerprint: problem.fingerprint(),
        };
        let leaser = ShardLeaser::connect(&cluster.workers, &credentials, lease, WORKER_PATIENCE)?;
        let mut totals = recorded_totals(problem, ledger.as_ref())?;
        let total = problem.shard_count();
        let ran = leaser.run(pending_shards(problem, ledger.as_ref()), &mut |index, result| {
            let label = problem.shard_label(index);
            if let Some(ledger) = ledger.as_mut() {
                ledger.record(index, &label, &result)?;
            }
            totals.add(index, &result)?;
            progress.shard(&ShardDone { index, label: &label, result: &result, done: totals.shards_done, total });
            Ok(())
        });
        // Done, or a start that recorded nothing: either way the workers are free again.
        if ran.is_ok() || !has_commits(job.path()) {
            leaser.release_workers();
        }
        ran?;
        totals
    };
    tracing::debug!(shards = totals.shards_done, seconds = started.elapsed().as_secs_f64(), "all shards done");
    progress.finish(totals.shards_done);
    Ok(totals.counts.iter().enumerate().map(|(slot, count)| (slot, count.to_string())).collect())
}
