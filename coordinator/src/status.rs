//! `leaper status --job-dir DIR`: where a job stands, read from its spec and manifest (or ledger)
//! only, so it works while the job runs, after it finished, and after it died.
//! `leaper status --coordinator ADDR` asks a running coordinator's service (see `serve`), which
//! reads its job directory the same way.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use leaper_core::store::checkpoint::Manifest;
use serde::{Deserialize, Serialize};

use crate::cli::{OutputFormat, StatusArgs};
use crate::job::{running_pid, unix_now, JobSpec};
use crate::progress::{eta, format_duration, remaining_steps};
use crate::tours::Plan;

/// The status of a job, as `--format json` prints it.
/// Fields a peer of another release lacks read as their defaults.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct JobStatus {
    pub job: String,
    pub command: String,
    /// `running`, `stopped` or `finished`.
    pub state: String,
    pub pid: Option<u32>,
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
    pub counts: Option<Vec<(usize, String)>>,
    /// How the job names its boards.
    pub plan: Option<Plan>,
}

impl JobStatus {
    pub fn read(dir: &Path) -> Result<Self> {
        let spec = JobSpec::load(dir)?;
        let manifest = Manifest::load(dir)?;
        let pid = running_pid(dir);
        let plan = Plan::new(spec.board.parse()?, spec.sweep);
        let width = plan.width;
        let Some(m) = manifest else {
            return Ok(JobStatus {
                job: spec.id.clone(),
                command: spec.command(),
                state: if pid.is_some() { "running" } else { "stopped" }.to_string(),
                pid,
                plan: Some(plan),
                ..JobStatus::default()
            });
        };
        let p = &m.progress;
        let state = match (&m.result, pid) {
            (Some(_), _) => "finished",
            (None, Some(_)) => "running",
            (None, None) => "stopped",
        };
        // In one process the manifest names the layer; on a cluster each worker holds a part.
        let layers = m.layer.iter().chain(m.workers.iter().filter_map(|w| w.layer.as_ref()));
        let (states, bytes) = layers.fold((0, 0), |(s, b), layer| (s + layer.states, b + layer.bytes));
        let step_seconds = p.step_micros as f64 / 1e6;
        let rate = p.states_processed as f64 / step_seconds.max(1e-9);
        let last = p.next_cell.checked_sub(1).filter(|_| p.pass < m.passes);
        let remaining = match last {
            Some(cell) => remaining_steps(p.pass, m.passes, cell, m.cells, states),
            None => (m.passes.saturating_sub(p.pass) * m.cells) as u64,
        };
        let eta = if m.result.is_some() { Some(Duration::ZERO) } else { eta(remaining, states, rate) };
        Ok(JobStatus {
            job: spec.id.clone(),
            command: spec.command(),
            state: state.to_string(),
            pid: pid.filter(|_| m.result.is_none()),
            pass: p.pass.min(m.passes.saturating_sub(1)),
            passes: m.passes,
            cells_done: if p.pass >= m.passes { m.cells } else { p.next_cell },
            cells: m.cells,
            row: last.map(|cell| cell / width + 1),
            col: last.map(|cell| cell % width + 1),
            states,
            bytes,
            step_seconds,
            states_processed: p.states_processed,
            rate,
            eta_seconds: eta.map(|d| d.as_secs_f64()),
            committed_unix: Some(m.committed_unix),
            counts: m.result.clone(),
            plan: Some(plan),
        })
    }
}

/// The status of either kind of job.
#[derive(Debug)]
pub enum Status {
    Sweep(JobStatus),
    Subtree(crate::subtree::SubtreeStatus),
}

impl Status {
    /// Reads a job directory, changing nothing.
    pub fn read(dir: &Path) -> Result<Status> {
        Ok(if crate::job::is_subtree_job(dir) {
            Status::Subtree(crate::subtree::SubtreeStatus::read(dir)?)
        } else {
            Status::Sweep(JobStatus::read(dir)?)
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
            Status::Sweep(s) => ((s.pass * s.cells + s.cells_done) as u64, (s.cells * s.passes) as u64, STEPS),
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
            STEPS => Status::Sweep(serde_json::from_str(json)?),
            SHARDS => Status::Subtree(serde_json::from_str(json)?),
            other => anyhow::bail!("the coordinator counts its work in {other:?}, which this leaper does not know"),
        })
    }

    pub fn print(&self, format: OutputFormat, out: &mut dyn Write) -> Result<()> {
        match (format, self) {
            (OutputFormat::Json, _) => writeln!(out, "{}", self.to_json()?)?,
            (OutputFormat::Text, Status::Subtree(status)) => status.print(out)?,
            (OutputFormat::Text, Status::Sweep(status)) => print_sweep(status, out)?,
        }
        Ok(())
    }
}

const STEPS: &str = "steps";
const SHARDS: &str = "shards";

pub fn show(args: StatusArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match (&args.job_dir, &args.coordinator) {
        (Some(dir), _) => Status::read(dir)?.print(args.format, &mut out),
        (None, Some(address)) => crate::serve::show_remote(address, &args, &mut out),
        (None, None) => anyhow::bail!("give --job-dir DIR, or --coordinator ADDR for a coordinator serving --listen"),
    }
}

fn print_sweep(status: &JobStatus, out: &mut dyn Write) -> Result<()> {
    let pid = status.pid.map_or(String::new(), |pid| format!(" (pid {pid})"));
    writeln!(out, "job       {} ({})", status.job, status.command)?;
    writeln!(out, "state     {}{pid}", status.state)?;
    match (status.row, status.col) {
        (Some(row), Some(col)) => writeln!(
            out,
            "step      {}/{} of pass {}/{} committed (row {row}, column {col})",
            status.cells_done,
            status.cells,
            status.pass + 1,
            status.passes
        )?,
        _ if status.counts.is_some() => {
            writeln!(out, "step      all {} steps of {} passes done", status.cells, status.passes)?
        }
        _ => writeln!(out, "step      none committed yet in pass {}/{}", status.pass + 1, status.passes.max(1))?,
    }
    let per_state = if status.states > 0 { status.bytes as f64 / status.states as f64 } else { 0.0 };
    writeln!(out, "layer     {} states, {} bytes on disk ({per_state:.2} bytes/state)", status.states, status.bytes)?;
    writeln!(
        out,
        "elapsed   {} in steps, {} states processed",
        format_duration(Duration::from_secs_f64(status.step_seconds)),
        status.states_processed
    )?;
    writeln!(out, "rate      {:.0} states/s", status.rate)?;
    if let Some(eta) = status.eta_seconds.filter(|_| status.counts.is_none()) {
        writeln!(
            out,
            "eta       {} (if layers keep their current size)",
            format_duration(Duration::from_secs_f64(eta))
        )?;
    }
    if let Some(at) = status.committed_unix {
        writeln!(out, "committed {} ago", format_duration(Duration::from_secs(unix_now().saturating_sub(at))))?;
    }
    if let (Some(plan), Some(counts)) = (&status.plan, &status.counts) {
        for (rows, count) in counts {
            writeln!(out, "count     {} {count}", plan.label(*rows))?;
        }
    }
    Ok(())
}
