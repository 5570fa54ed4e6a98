//! `leaper status --job-dir DIR`: where a job stands, read from its spec and manifest only, so
//! it works while the job runs, after it finished, and after it died.

use std::io::Write;
use std::time::Duration;

use anyhow::Result;
use leaper_core::store::checkpoint::Manifest;
use serde::Serialize;

use crate::cli::{OutputFormat, StatusArgs};
use crate::job::{running_pid, unix_now, JobSpec};
use crate::progress::{eta, format_duration, remaining_steps};
use crate::tours::Plan;

/// The status of a job, as `--format json` prints it.
#[derive(Debug, Default, Serialize)]
pub struct JobStatus {
    pub job: String,
    pub command: String,
    /// `running`, `stopped` or `finished`.
    pub state: &'static str,
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
    /// How the job names its boards (for the text form).
    #[serde(skip)]
    pub plan: Option<Plan>,
}

impl JobStatus {
    pub fn read(dir: &std::path::Path) -> Result<Self> {
        let spec = JobSpec::load(dir)?;
        let manifest = Manifest::load(dir)?;
        let pid = running_pid(dir);
        let plan = Plan::new(spec.board.parse()?, spec.sweep);
        let width = plan.width;
        let Some(m) = manifest else {
            return Ok(JobStatus {
                job: spec.id.clone(),
                command: spec.command(),
                state: if pid.is_some() { "running" } else { "stopped" },
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
            state,
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

pub fn show(args: StatusArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if crate::job::is_subtree_job(&args.job_dir) {
        let status = crate::subtree::SubtreeStatus::read(&args.job_dir)?;
        match args.format {
            OutputFormat::Json => writeln!(out, "{}", serde_json::to_string(&status)?)?,
            OutputFormat::Text => status.print(&mut out)?,
        }
        return Ok(());
    }
    let status = JobStatus::read(&args.job_dir)?;
    if args.format == OutputFormat::Json {
        writeln!(out, "{}", serde_json::to_string(&status)?)?;
        return Ok(());
    }
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
