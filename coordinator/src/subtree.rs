//! Subtree jobs from the command line: a problem's shards run on local threads or are leased to
//! cluster workers; with `--job-dir` every finished shard goes into the ledger
//! (`DIR/ledger.jsonl`, see `leaper_core::search::ledger`) and `leaper resume` runs only the rest.
//!
//! ```text
//! DIR/job.toml       the spec: problem, parameters, output, workers (written once)
//! DIR/lock           held (flock) by the process running the job
//! DIR/ledger.jsonl   one line per finished shard, synced as it finishes
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use leaper_core::search::ledger::{Ledger, LedgerHeader};
use leaper_core::search::local::{pending_shards, recorded_totals, run_local, ShardDone};
use leaper_core::search::{SubtreeProblem, Totals};
use serde::{Deserialize, Serialize};

use crate::cli::{ClusterArgs, OutputFormat, ResumeArgs};
use crate::job::{claim_empty, load_spec, take_lock, unix_now, write_spec, JOB_FORMAT};
use crate::leases::{LeaseTerms, ShardLeaser};
use crate::progress::{eta, format_duration};

/// How long a cluster job waits for any shard to finish before it stops.
const WORKER_PATIENCE: Duration = Duration::from_secs(600);

/// What a subtree job counts and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubtreeSpec {
    pub format: u32,
    pub id: String,
    pub leaper_version: String,
    pub created_unix: u64,
    /// The problem (`quarto`) and its parameters (`rows,cols,maindiags`, `table`).
    pub problem: String,
    pub params: String,
    /// `text` or `json`.
    pub output: String,
    #[serde(flatten)]
    pub cluster: ClusterArgs,
}

impl SubtreeSpec {
    pub fn load(dir: &Path) -> Result<SubtreeSpec> {
        load_spec(dir)
    }

    pub fn command(&self) -> String {
        format!("{} {}", self.problem, self.params)
    }

    pub fn output(&self) -> OutputFormat {
        if self.output == "json" {
            OutputFormat::Json
        } else {
            OutputFormat::Text
        }
    }
}

/// Where and how a subtree job runs.
#[derive(Clone, Debug, Default)]
pub struct Placement {
    pub threads: Option<usize>,
    pub job_dir: Option<PathBuf>,
    pub cluster: ClusterArgs,
}

/// A new job: runs every shard of `problem` (named `name` with `params` in the job spec).
pub fn run(
    problem: Arc<dyn SubtreeProblem>,
    name: &str,
    params: &str,
    output: OutputFormat,
    placement: &Placement,
) -> Result<Totals> {
    placement.cluster.check(placement.job_dir.as_deref(), "the ledger of finished shards")?;
    let Some(dir) = &placement.job_dir else {
        return run_shards(problem.as_ref(), None, placement, None, &Terms { job_id: "", name, params });
    };
    let listener = crate::serve::bind(&placement.cluster)?;
    let _lock = claim_empty(dir)?;
    let created_unix = unix_now();
    let spec = SubtreeSpec {
        format: JOB_FORMAT,
        id: format!("{name}-{created_unix:x}-{:x}", std::process::id()),
        leaper_version: env!("CARGO_PKG_VERSION").to_string(),
        created_unix,
        problem: name.to_string(),
        params: params.to_string(),
        output: if output == OutputFormat::Json { "json" } else { "text" }.to_string(),
        cluster: placement.cluster.recorded(),
    };
    write_spec(dir, &spec)?;
    let mut ledger = open_ledger(dir, &spec, problem.as_ref())?;
    let terms = Terms { job_id: &spec.id, name, params };
    run_shards(problem.as_ref(), Some(&mut ledger), placement, listener, &terms)
}

/// `leaper resume` of a subtree job: the problem, rebuilt from the spec, and its totals.
pub fn resume(args: &ResumeArgs) -> Result<(SubtreeSpec, Arc<dyn SubtreeProblem>, Totals)> {
    let dir = &args.job_dir;
    let mut spec = SubtreeSpec::load(dir)?;
    spec.cluster.listen_instead(args)?;
    let listener = crate::serve::bind(&spec.cluster)?;
    let _lock = take_lock(dir)?;
    let problem = leaper_core::problems::build(&spec.problem, &spec.params)
        .with_context(|| format!("{}: cannot rebuild the job's problem", dir.join(crate::job::JOB_FILE).display()))?;
    let mut ledger = open_ledger(dir, &spec, problem.as_ref())?;
    let placement = Placement { threads: args.threads, job_dir: Some(dir.clone()), cluster: spec.cluster.clone() };
    let done = ledger.done().len();
    tracing::info!(job = %spec.id, done, shards = problem.shard_count(), "resuming: finished shards are skipped");
    let terms = Terms { job_id: &spec.id, name: &spec.problem, params: &spec.params };
    let totals = run_shards(problem.as_ref(), Some(&mut ledger), &placement, listener, &terms)?;
    Ok((spec, problem, totals))
}

fn open_ledger(dir: &Path, spec: &SubtreeSpec, problem: &dyn SubtreeProblem) -> Result<Ledger> {
    let header = LedgerHeader::new(&spec.id, &problem.describe(), problem.shard_count(), problem.fingerprint());
    Ok(Ledger::open(dir, &header)?)
}

/// The job a run belongs to (`job_id` empty without a job directory), and its problem's name.
struct Terms<'a> {
    job_id: &'a str,
    name: &'a str,
    params: &'a str,
}

/// Runs the shards the ledger lacks, locally or on the workers, logging progress.
fn run_shards(
    problem: &dyn SubtreeProblem,
    mut ledger: Option<&mut Ledger>,
    placement: &Placement,
    listener: Option<crate::serve::StatusListener>,
    terms: &Terms,
) -> Result<Totals> {
    let job = if terms.job_id.is_empty() { problem.describe() } else { terms.job_id.to_string() };
    let _job = tracing::info_span!("job", job = %job).entered();
    let _status = match &placement.job_dir {
        Some(dir) => crate::serve::start(listener, dir)?,
        None => None,
    };
    let started = Instant::now();
    let mut progress = ShardProgress::new(problem.shard_count(), ledger.as_deref().map_or(0, |l| l.done().len()));
    let nothing_left = pending_shards(problem, ledger.as_deref()).is_empty();
    let totals = if placement.cluster.workers.is_empty() || nothing_left {
        run_local(problem, ledger, placement.threads, &mut |done| progress.shard(done))?
    } else {
        let credentials = placement.cluster.credentials()?;
        let lease = LeaseTerms {
            job_id: terms.job_id.to_string(),
            problem: terms.name.to_string(),
            params: terms.params.to_string(),
            fingerprint: problem.fingerprint(),
        };
        let leaser = ShardLeaser::connect(&placement.cluster.workers, &credentials, lease, WORKER_PATIENCE)?;
        let mut totals = recorded_totals(problem, ledger.as_deref())?;
        let total = problem.shard_count();
        leaser.run(pending_shards(problem, ledger.as_deref()), &mut |index, result| {
            let label = problem.shard_label(index);
            if let Some(ledger) = ledger.as_deref_mut() {
                ledger.record(index, &label, &result)?;
            }
            totals.add(index, &result)?;
            progress.shard(&ShardDone { index, label: &label, result: &result, done: totals.shards_done, total });
            Ok(())
        })?;
        leaser.release_workers();
        totals
    };
    tracing::info!(
        shards = totals.shards_done,
        seconds = format!("{:.2}", started.elapsed().as_secs_f64()),
        "all shards done"
    );
    Ok(totals)
}

/// Logs finished shards: each at debug, and at most one info line every two seconds.
struct ShardProgress {
    total: usize,
    started: Instant,
    done_before: usize,
    last_line: Option<Instant>,
}

impl ShardProgress {
    fn new(total: usize, done_before: usize) -> ShardProgress {
        ShardProgress { total, started: Instant::now(), done_before, last_line: None }
    }

    fn shard(&mut self, done: &ShardDone) {
        tracing::debug!(shard = done.index, label = done.label, "shard done");
        let now = Instant::now();
        let quiet = self.last_line.is_some_and(|last| now - last < Duration::from_secs(2));
        if quiet && done.done < done.total {
            return;
        }
        self.last_line = Some(now);
        let this_run = done.done.saturating_sub(self.done_before);
        let rate = this_run as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
        let left = self.total.saturating_sub(done.done) as u64;
        tracing::info!(
            done = done.done,
            shards = self.total,
            rate = format!("{rate:.1}/s"),
            eta = %eta(left, 1, rate).map_or("-".to_string(), format_duration),
            "shards done"
        );
    }
}

/// Where a subtree job stands, as `leaper status --format json` prints it.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SubtreeStatus {
    pub job: String,
    pub command: String,
    /// `running`, `stopped` or `finished`.
    pub state: String,
    pub pid: Option<u32>,
    pub shards_done: usize,
    pub shards: usize,
    /// Per slot: the exact count once finished, the partial sum before.
    pub counts: Vec<(String, String)>,
}

impl SubtreeStatus {
    /// Reads the spec and the ledger, changing nothing.
    pub fn read(dir: &Path) -> Result<SubtreeStatus> {
        let spec = SubtreeSpec::load(dir)?;
        let pid = crate::job::running_pid(dir);
        let (header, done) = match Ledger::read(dir) {
            Ok(read) => read,
            Err(_) if !dir.join(leaper_core::search::ledger::LEDGER_FILE).exists() => {
                (LedgerHeader::new(&spec.id, &spec.command(), 0, 0), Default::default())
            }
            Err(error) => return Err(error.into()),
        };
        let problem = leaper_core::problems::build(&spec.problem, &spec.params)?;
        let mut totals = Totals::new(problem.slots().len());
        for (&index, result) in &done {
            totals.add(index, result)?;
        }
        let finished = header.shards > 0 && done.len() == header.shards;
        Ok(SubtreeStatus {
            job: spec.id.clone(),
            command: spec.command(),
            state: match (finished, pid) {
                (true, _) => "finished",
                (false, Some(_)) => "running",
                (false, None) => "stopped",
            }
            .to_string(),
            pid: pid.filter(|_| !finished),
            shards_done: done.len(),
            shards: header.shards,
            counts: problem.slots().into_iter().zip(totals.counts.iter().map(u128::to_string)).collect(),
        })
    }

    pub fn print(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let pid = self.pid.map_or(String::new(), |pid| format!(" (pid {pid})"));
        writeln!(out, "job       {} ({})", self.job, self.command)?;
        writeln!(out, "state     {}{pid}", self.state)?;
        writeln!(out, "shards    {}/{} done", self.shards_done, self.shards)?;
        let what = if self.state == "finished" { "count" } else { "so far" };
        for (slot, count) in &self.counts {
            writeln!(out, "{what:<9} {slot} {count}")?;
        }
        Ok(())
    }
}
