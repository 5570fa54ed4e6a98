//! `leaper status --job-dir DIR`: where a job stands, read from its spec and its manifest (a
//! sweep) or ledger (a subtree job) only, so it works while the job runs, after it finished,
//! and after it died. The job's kind, in `job.toml`, says which; the problem names the boards or
//! variants. `leaper status --coordinator ADDR` asks a running coordinator's service (see
//! `serve`), which reads its job directory the same way.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Result};
use leaper_core::engine::jobdir::{lock_taken_unix, running_pid, unix_now, JobKind, JobSpec, Manifest};
use leaper_core::engine::subtree::ledger::{Ledger, LedgerHeader, LEDGER_FILE};
use leaper_core::engine::subtree::Totals;
use leaper_core::engine::{Job, OutputFormat, SweepJob};
use serde::{Deserialize, Serialize};

use crate::eta::{Eta, EtaModel, Shape};
use crate::numbers::{bytes, counted, format_duration, grouped};
use crate::plan::forecast::Forecast;
use crate::request::JobRequest;
use crate::straggler::Straggler;

/// The status of a sweep, as `--format json` prints it.
/// Fields a peer of another release lacks read as their defaults.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepStatus {
    pub job: String,
    pub command: String,
    /// `running`, `stopped` or `finished`.
    pub state: String,
    pub pid: Option<u32>,
    /// The pass under way (or the last one run), counted from 1 as the text says `pass 1/2`;
    /// 0 before the job's first checkpoint.
    pub pass: usize,
    pub passes: usize,
    /// Steps committed in this pass (the next cell to process).
    pub cells_done: usize,
    pub cells: usize,
    /// Row and column (from 1) of the last committed step.
    pub row: Option<usize>,
    pub col: Option<usize>,
    /// States and bytes of the committed layer.
    pub states: u64,
    pub bytes: u64,
    pub step_seconds: f64,
    pub states_processed: u64,
    /// States per second over all steps so far.
    pub rate: f64,
    pub eta_seconds: Option<f64>,
    pub committed_unix: Option<u64>,
    /// `(slot, count)` once finished.
    pub counts: Option<Vec<(usize, String)>>,
    /// The name of each count's board (or slot), in the same order.
    pub labels: Vec<String>,
    /// `(board, count)` of the counts already final while the sweep runs (a sweep's short
    /// boards are final long before its end).
    pub settled: Vec<(String, String)>,
    /// On a cluster, the worker much slower than the others over the last committed steps (its
    /// address; see `straggler.rs`), and how much slower, in words.
    pub straggler: Option<String>,
    pub straggler_slowness: Option<String>,
    /// On a cluster, the job's workers by address, in the order that fixes bucket ownership
    /// (empty for a job run in one process).
    pub workers: Vec<String>,
    /// What the count was forecast to need when it started, as `leaper plan` prices it (none
    /// for a job too small to price, or started before forecasts were kept).
    pub plan: Option<Forecast>,
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

/// The status of either kind of job.
#[derive(Debug)]
pub enum Status {
    /// Boxed: a sweep's status is far larger than a subtree job's.
    Sweep(Box<SweepStatus>),
    Subtree(SubtreeStatus),
}

const STEPS: &str = "steps";
const SHARDS: &str = "shards";

fn state(finished: bool, pid: Option<u32>) -> &'static str {
    match (finished, pid) {
        (true, _) => "finished",
        (false, Some(_)) => "running",
        (false, None) => "stopped",
    }
}

impl Status {
    /// Reads a job directory, changing nothing.
    pub fn read(dir: &Path) -> Result<Status> {
        let spec = JobSpec::load(dir)?;
        let request = JobRequest::from_spec(&spec, dir)?;
        let pid = running_pid(dir);
        let job = request.task.job()?;
        Ok(match (spec.header.kind, job) {
            (JobKind::Sweep, Job::Sweep(sweep)) => {
                let label = |slot| request.task.slot_label(slot);
                Status::Sweep(Box::new(SweepStatus::read(dir, &spec, sweep.as_ref(), pid, &label)?))
            }
            (JobKind::Subtree, Job::Subtree(search)) => {
                let (header, done) = match Ledger::read(dir) {
                    Ok(read) => read,
                    Err(_) if !dir.join(LEDGER_FILE).exists() => {
                        (LedgerHeader::new(&spec.header.id, "", 0, 0), Default::default())
                    }
                    Err(error) => return Err(error.into()),
                };
                let mut totals = Totals::new(search.slots().len());
                for (&index, result) in &done {
                    totals.add(index, result)?;
                }
                let finished = header.shards > 0 && done.len() == header.shards;
                Status::Subtree(SubtreeStatus {
                    job: spec.header.id.clone(),
                    command: spec.header.command.clone(),
                    state: state(finished, pid).to_string(),
                    pid: pid.filter(|_| !finished),
                    shards_done: done.len(),
                    shards: header.shards,
                    counts: search.slots().into_iter().zip(totals.counts.iter().map(u128::to_string)).collect(),
                })
            }
            (kind, _) => bail!("{}: a {} job of a problem that runs otherwise", dir.display(), kind.name()),
        })
    }

    pub fn job(&self) -> &str {
        match self {
            Status::Sweep(s) => &s.job,
            Status::Subtree(s) => &s.job,
        }
    }

    pub fn state(&self) -> &str {
        match self {
            Status::Sweep(s) => &s.state,
            Status::Subtree(s) => &s.state,
        }
    }

    /// Work done and in all, and its unit: committed steps over all passes, or shards.
    pub fn done(&self) -> (u64, u64, &'static str) {
        match self {
            Status::Sweep(s) if s.counts.is_some() => ((s.cells * s.passes) as u64, (s.cells * s.passes) as u64, STEPS),
            Status::Sweep(s) => {
                ((s.pass.saturating_sub(1) * s.cells + s.cells_done) as u64, (s.cells * s.passes) as u64, STEPS)
            }
            Status::Subtree(s) => (s.shards_done as u64, s.shards as u64, SHARDS),
        }
    }

    pub fn to_json(&self) -> Result<String> {
        Ok(match self {
            Status::Sweep(s) => serde_json::to_string(s)?,
            Status::Subtree(s) => serde_json::to_string(s)?,
        })
    }

    /// The status a coordinator sent as `json`, of a job whose work is counted in `unit`.
    pub fn from_json(json: &str, unit: &str) -> Result<Status> {
        Ok(match unit {
            STEPS => Status::Sweep(Box::new(serde_json::from_str(json)?)),
            SHARDS => Status::Subtree(serde_json::from_str(json)?),
            other => bail!("the coordinator counts its work in {other:?}, which this leaper does not know"),
        })
    }

    pub fn print(&self, format: OutputFormat, out: &mut dyn Write) -> Result<()> {
        match (format, self) {
            (OutputFormat::Json, _) => writeln!(out, "{}", self.to_json()?)?,
            (OutputFormat::Text, Status::Subtree(status)) => status.print(out)?,
            (OutputFormat::Text, Status::Sweep(status)) => status.print(out)?,
        }
        Ok(())
    }
}

impl SweepStatus {
    fn read(
        dir: &Path,
        spec: &JobSpec,
        sweep: &dyn SweepJob,
        pid: Option<u32>,
        label: &dyn Fn(usize) -> leaper_core::Result<String>,
    ) -> Result<SweepStatus> {
        let (job, command) = (spec.header.id.clone(), spec.header.command.clone());
        // A plan that cannot be read hides only itself.
        let plan = Forecast::load(dir).unwrap_or_else(|error| {
            tracing::warn!(error = %format!("{error:#}"), "the job's plan is not shown");
            None
        });
        let Some(m) = Manifest::load(dir)? else {
            return Ok(SweepStatus {
                job,
                command,
                state: state(false, pid).to_string(),
                pid,
                plan,
                ..SweepStatus::default()
            });
        };
        let p = &m.progress;
        let (states, bytes) = m.layer_size();
        let step_seconds = p.step_micros as f64 / 1e6;
        let rate = p.states_processed as f64 / step_seconds.max(1e-9);
        let last = p.next_cell.checked_sub(1).filter(|_| p.pass < m.passes);
        // The display's estimate at the last commit, less the time a running job has spent
        // since: since the commit, or since it was resumed if that came later (counted from the
        // commit, a job resumed a day after it would have that day counted as work done).
        let model = EtaModel::new(Shape::of(sweep, m.passes), p).with_next_states(states);
        let working_since = m.committed_unix.max(lock_taken_unix(dir).unwrap_or(0));
        let since = Duration::from_secs(unix_now().saturating_sub(working_since));
        let eta = match (&m.result, pid) {
            (Some(_), _) => Eta::Left(Duration::ZERO),
            (None, Some(_)) => model.estimate().after(since),
            (None, None) => model.estimate(),
        };
        let labels = m.result.iter().flatten().map(|(slot, _)| label(*slot)).collect::<leaper_core::Result<_>>()?;
        let position = last.map(|cell| sweep.position(cell));
        let settled = p
            .settled
            .iter()
            .map(|(slot, count)| Ok((label(*slot)?, count.clone())))
            .collect::<leaper_core::Result<_>>()?;
        let shares: Option<Vec<u64>> = m.workers.iter().map(|worker| worker.share_micros).collect();
        let straggler = shares.and_then(|shares| Straggler::among(&shares)).filter(|_| m.result.is_none());
        Ok(SweepStatus {
            job,
            command,
            state: state(m.result.is_some(), pid).to_string(),
            pid: pid.filter(|_| m.result.is_none()),
            pass: (p.pass + 1).min(m.passes),
            passes: m.passes,
            cells_done: if p.pass >= m.passes { m.cells } else { p.next_cell },
            cells: m.cells,
            row: position.map(|at| at.row + 1),
            col: position.map(|at| at.col + 1),
            states,
            bytes,
            step_seconds,
            states_processed: p.states_processed,
            rate,
            eta_seconds: eta.seconds(),
            committed_unix: Some(m.committed_unix),
            counts: m.result.clone(),
            labels,
            settled,
            straggler: straggler.map(|s| m.workers[s.index].address.clone()),
            straggler_slowness: straggler.map(|s| s.slowness()),
            workers: m.workers.iter().map(|worker| worker.address.clone()).collect(),
            plan,
        })
    }

    fn print(&self, out: &mut dyn Write) -> Result<()> {
        let pid = self.pid.map_or(String::new(), |pid| format!(" (pid {pid})"));
        writeln!(out, "job       {} ({})", self.job, self.command)?;
        writeln!(out, "state     {}{pid}", self.state)?;
        match (self.row, self.col) {
            (Some(row), Some(col)) => writeln!(
                out,
                "step      {}/{} of pass {}/{} committed (row {row}, column {col})",
                self.cells_done,
                self.cells,
                self.pass.max(1),
                self.passes
            )?,
            _ if self.counts.is_some() => writeln!(
                out,
                "step      all {} of {} done",
                counted(self.cells, "step", "steps"),
                counted(self.passes, "pass", "passes")
            )?,
            _ => writeln!(out, "step      none committed yet in pass {}/{}", self.pass.max(1), self.passes.max(1))?,
        }
        let per_state = if self.states > 0 { self.bytes as f64 / self.states as f64 } else { 0.0 };
        writeln!(
            out,
            "layer     {} states, {} on disk ({per_state:.2} bytes/state)",
            grouped(self.states),
            bytes(self.bytes)
        )?;
        writeln!(
            out,
            "elapsed   {} in steps, {} states processed",
            format_duration(Duration::from_secs_f64(self.step_seconds)),
            grouped(self.states_processed)
        )?;
        writeln!(out, "rate      {} states/s", grouped(self.rate.round() as u64))?;
        if self.counts.is_none() && (self.pid.is_some() || self.states_processed > 0) {
            let eta = self.eta_seconds.map_or(Eta::Estimating, |left| Eta::Left(Duration::from_secs_f64(left)));
            let when = if self.pid.is_some() { "the live display's estimate" } else { "of work, once resumed" };
            writeln!(out, "eta       {} ({when})", eta.text())?;
        }
        if let Some(plan) = &self.plan {
            writeln!(out, "plan      {} (forecast at the start, as `leaper plan` prices it)", plan.status_line())?;
        }
        if let (Some(address), Some(slowness)) = (&self.straggler, &self.straggler_slowness) {
            writeln!(out, "straggler {address}: {slowness} (a slow link or machine)")?;
        }
        if let Some(at) = self.committed_unix {
            writeln!(out, "committed {} ago", format_duration(Duration::from_secs(unix_now().saturating_sub(at))))?;
        }
        for ((_, count), label) in self.counts.iter().flatten().zip(&self.labels) {
            writeln!(out, "count     {label} {count}")?;
        }
        if self.counts.is_none() {
            for (label, count) in &self.settled {
                writeln!(out, "final     {label} {count}")?;
            }
        }
        Ok(())
    }
}

impl SubtreeStatus {
    fn print(&self, out: &mut dyn Write) -> std::io::Result<()> {
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
