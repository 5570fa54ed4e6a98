//! Running a transfer-matrix sweep, wherever it runs: in memory (no job directory), out of core
//! in this process (a job directory), or on workers (`--workers`, see [`cluster`]). All three
//! are the same driver (`leaper_core::engine::sweep::run_sweep`) over a different host.

pub mod cluster;
pub mod shuffle;

use anyhow::{Context, Result};
use leaper_core::engine::jobdir::checkpoints::SweepCheckpoints;
use leaper_core::engine::store::{memory_store, StateStore};
use leaper_core::engine::sweep::{
    run_sweep, LocalSteps, StepReport, StepWatch, StoreSource, SweepProgress, SweepReport, Watched,
};
use leaper_core::engine::{Moduli, RecordLayout, SweepJob};

use crate::progress::SweepWatch;
use crate::request::JobRequest;
use crate::results::ResultStream;
use crate::settings::SweepSettings;
use cluster::{ClusterHost, ClusterPlan};

/// How long a cluster job waits for a failed worker to come back before it stops.
const WORKER_PATIENCE: std::time::Duration = std::time::Duration::from_secs(600);

/// Where a sweep keeps its layers.
pub enum Layers<'a> {
    /// In memory, gone with the process.
    InMemory,
    /// In the job directory (or, on a cluster, the workers' data directories), with a
    /// checkpoint after every step.
    OutOfCore(&'a mut SweepCheckpoints),
}

/// Runs the sweep of `job` as `request` asks, with its `settings`, and returns the exact
/// counts, `(slot, decimal)`; counts that become final on the way go to `results` at once. A
/// job that had already finished returns the counts it recorded.
pub fn run(
    job: &dyn SweepJob,
    request: &JobRequest,
    settings: &SweepSettings,
    layers: Layers,
    results: &mut ResultStream,
) -> Result<Vec<(usize, String)>> {
    let args = request.sweep.as_ref().context("a sweep request carries the store's options")?;
    let (plan, threads) = (&settings.plan, settings.threads);
    let label = request.task.command_line();
    let (report, watch) = match layers {
        Layers::InMemory => {
            let mut stores = InMemory { buckets: settings.buckets, mem_limit: settings.in_memory_limit };
            let start = SweepProgress::default();
            let mut watch =
                SweepWatch::new(job, (plan.passes_to_run(job, &start), plan), &start, &label, results, false);
            let report = crate::machine::with_threads(threads, || {
                let mut host = LocalSteps::new(job, &mut stores);
                run_sweep(job, plan, &mut Watched { inner: &mut host, watch: &mut watch }, start)
            })??;
            (report, watch)
        }
        Layers::OutOfCore(checkpoints) => {
            checkpoints.check_keys(job.key_format(), &job.key_layout())?;
            if let Some(counts) = checkpoints.finished(&args.counted())? {
                tracing::info!(job = %checkpoints.job().id(), "the job had finished; printing its counts");
                return Ok(counts);
            }
            let start = checkpoints.start();
            // Other lanes than the layers' are refused by name, before anything else is read.
            checkpoints.check_lanes(&plan.passes, &start)?;
            let passes = plan.passes_to_run(job, &start);
            checkpoints.plan(passes, job.steps())?;
            let mut watch = SweepWatch::new(job, (passes, plan), &start, &label, results, true)
                .with_layer(checkpoints.manifest().map(|m| m.layer_size().0));
            let report = if request.run.cluster.workers.is_empty() {
                crate::machine::with_threads(threads, || {
                    let mut host = LocalSteps::new(job, &mut *checkpoints);
                    run_sweep(job, plan, &mut Watched { inner: &mut host, watch: &mut watch }, start)
                })??
            } else {
                let credentials = request.run.cluster.credentials()?;
                let cluster = cluster_plan(request, settings, job)?;
                let workers = &request.run.cluster.workers;
                let finished_before = start.pass >= passes;
                let straggler = crate::straggler::Named::default();
                watch = watch.with_straggler(straggler.clone());
                let mut host =
                    ClusterHost::connect(workers, &credentials, checkpoints, (cluster, straggler), WORKER_PATIENCE)?;
                let counted = run_sweep(job, plan, &mut Watched { inner: &mut host, watch: &mut watch }, start);
                if counted.is_err() {
                    // A start that committed nothing must not leave the workers claimed.
                    host.release_if_uncommitted();
                } else if finished_before {
                    // Every pass had ended before this run: the last one's release may have
                    // failed, so it is made again.
                    host.release_workers();
                }
                counted?
            };
            checkpoints.finish(&decimal(&report), args.counted())?;
            (report, watch)
        }
    };
    watch.finish(&report);
    Ok(decimal(&report))
}

/// What the workers of a cluster sweep are told, besides each step.
fn cluster_plan(request: &JobRequest, settings: &SweepSettings, job: &dyn SweepJob) -> Result<ClusterPlan> {
    Ok(ClusterPlan {
        problem: request.problem.name().to_string(),
        params: toml::to_string(&request.params).context("cannot send the job's parameters")?,
        key_words: job.key_words(),
        key_layout: job.key_layout(),
        key_format: job.key_format(),
        slots: job.slots(),
        buckets: settings.buckets,
        mem_limit: settings.out_of_core_limit,
    })
}

/// The in-memory stores: a fresh one per pass, within the memory limit.
struct InMemory {
    buckets: usize,
    mem_limit: u64,
}

impl StoreSource for InMemory {
    fn store(
        &mut self,
        layout: RecordLayout,
        moduli: &Moduli,
        _: &SweepProgress,
    ) -> leaper_core::Result<Box<dyn StateStore>> {
        memory_store(layout, self.buckets, moduli.clone(), self.mem_limit)
    }
}

/// The display, the logs and the results as they become final watch a sweep's steps.
impl StepWatch for &mut SweepWatch<'_, '_> {
    fn observe(&mut self, step: &StepReport) {
        self.step(step);
    }
}

/// The buckets of a small count's in-memory store (a graph of a stream): few, since its layers
/// are small and each bucket costs a table.
const SMALL_COUNT_BUCKETS: usize = 7;

/// Counts `job` in memory on the calling thread's pool with its `settings` (its lanes, its
/// spare modulus), with no display and no log of its steps: one small count of many counted
/// together (a graph of a stream). Returns the exact counts, `(slot, decimal)`.
pub fn count_quietly(job: &dyn SweepJob, settings: &SweepSettings) -> Result<Vec<(usize, String)>> {
    let buckets = settings.buckets.min(SMALL_COUNT_BUCKETS);
    let mut stores = InMemory { buckets, mem_limit: settings.in_memory_limit };
    let report = run_sweep(job, &settings.plan, &mut LocalSteps::new(job, &mut stores), SweepProgress::default())?;
    Ok(decimal(&report))
}

fn decimal(report: &SweepReport) -> Vec<(usize, String)> {
    report.counts.iter().map(|(slot, count)| (*slot, count.to_string())).collect()
}
