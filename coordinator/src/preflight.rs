//! The preflight of a request: what cannot finish here, said before anything starts (issue 45).
//!
//! ```text
//! $ leaper knight 12x12                                      (one line, then the count goes on)
//! warning: knight 12x12 needs about 2.06e14 states at its peak (6.2 PiB in memory, where a count
//!   may hold 18.8 GiB here) and about 84.8 years on this machine; see `leaper plan knight 12x12`
//! $ leaper quarter 40
//! warning: quarter 40 needs about 1.27e11 states at its peak (3.9 TiB in memory, where a count may
//!   hold 18.8 GiB here) and about 20.1 days on this machine (extrapolated from quarter 2 to
//!   quarter 20, counted in full); see `leaper plan quarter 40`
//! $ leaper tours enumerate 8x8 --out tours.txt
//! error: tours enumerate 8x8 --closed: 8x8 has too many closed tours to list one by one: ...
//! $ leaper tours generate 3x3 --count 1 --out tours.txt
//! error: tours generate 3x3: 3x3 has no knight's tour, open or closed (the board's graph is ...
//! ```
//!
//! A sweep that could plausibly be big (a frontier of 14 cells or more, the knight from width 7 on;
//! or 400 steps or more; without rows, one whose problem names its smaller instances, the
//! quartering, or a graph whose frontier is as wide, not a long narrow one) is priced first, as
//! `leaper plan` prices it and with the same figures ([`crate::plan::forecast`]; without rows, from
//! its smaller instances counted in full: [`crate::plan::ladder`], or a graph's guessed from its
//! frontier's widths past the probe: [`crate::plan::widths`]): always before a count with
//! `--job-dir` (a long run, whose directory keeps the forecast for `leaper status`), before a count
//! in memory only if a glance of about half a second ([`Bounds::quick`]; docs/PERFORMANCE-LOG.md,
//! "The quick probe before a count"; without rows, the smaller instances within [`QUICK_STATES`]
//! states read) puts it within a factor of 4 of a limit. A sweep without rows that its glance
//! counts whole, smaller instances and all, is small, and not priced even with `--job-dir`; a graph
//! whose glance's guess is likely low (short of its widest frontier, or wider than the guess was
//! measured on) is priced whatever the glance says. If it needs more memory than a count in memory
//! may hold here, more disk than is free in the job directory, or more than an hour, one `warning:`
//! line says so with the plan's figures, and the count goes on. Smaller sweeps, searches and
//! cluster jobs (whose machines are the workers') pay nothing. The warning is printed as every
//! `warning:` is, `-q` or not: it is what a person must know before leaving a count to run (a JSON
//! log gets it as an event).
//!
//! Before either, the problem's own refusals (`Task::preflight`, `Tool::preflight`, with this
//! machine's threads and free disk): `tours enumerate` and `tours generate` refuse what cannot
//! finish or has nothing to find (`shared/src/problems/tour_files/preflight.rs`).

use std::time::Instant;

use anyhow::Result;
use leaper_core::engine::problem::Preflight;
use leaper_core::engine::{Job, SweepJob, Task, Tool};
use leaper_core::units::bytes;

use crate::console;
use crate::numbers::{approx, duration};
use crate::plan::estimate::{cost, in_memory_bytes};
use crate::plan::forecast::{self, Forecast};
use crate::plan::probe::{Bounds, QUICK_STATES};
use crate::plan::widths;
use crate::request::{JobRequest, OUT_OF_CORE_MEM_LIMIT};
use crate::settings::SweepSettings;

/// A frontier of this many cells (a row times the rows a move reaches) may hold more states
/// than a machine: the knight from width 7 on, whose counts grow from seconds to minutes as the
/// board grows (docs/PERFORMANCE-LOG.md, "The quick probe before a count").
const WIDE_FRONTIER: usize = 14;
/// So many steps may take long even on a narrow frontier: once its layers saturate, every step
/// reads a saturated layer (docs/PERFORMANCE-LOG.md, "The quick probe before a count").
const LONG_SWEEP: usize = 400;
/// Longer than this is worth a word before starting.
const AN_HOUR: f64 = 3600.0;

/// Before a new count of `job`: warns if its sweep will not fit this machine, refuses a tour
/// enumeration that cannot finish. Called once, before anything is written; returns the sweep's
/// forecast where it was priced as `leaper plan` prices it, for its job directory to keep.
pub fn check(job: &Job, request: &JobRequest, settings: Option<&SweepSettings>) -> Result<Option<Forecast>> {
    request.task.preflight(&machine(request.run.threads))?;
    match (job, settings) {
        (Job::Sweep(sweep), Some(settings)) => Ok(warn_if_big(sweep.as_ref(), request, settings)),
        _ => Ok(None),
    }
}

/// Before a tool runs: its own refusals (`tours generate` on a board with no tour).
pub fn check_tool(tool: &dyn Tool, matches: &clap::ArgMatches) -> Result<()> {
    Ok(tool.preflight(matches, &machine(None))?)
}

/// What a problem's check before it runs may ask of this machine.
fn machine(threads: Option<usize>) -> Preflight<'static> {
    Preflight { threads, free_disk: &crate::machine::free_disk }
}

/// Prints the warning line if `job`'s sweep needs more than this machine has, and returns its
/// forecast if it was priced. A probe that fails (a scratch directory that cannot be made) only
/// skips the warning.
fn warn_if_big(job: &dyn SweepJob, request: &JobRequest, settings: &SweepSettings) -> Option<Forecast> {
    if !request.run.cluster.workers.is_empty() || !plausibly_big(job, request.task.as_ref()) {
        return None;
    }
    let started = Instant::now();
    let needs = needs(job, request, settings);
    tracing::debug!(seconds = started.elapsed().as_secs_f64(), "estimated before counting");
    match needs {
        Ok(Some(needs)) => {
            if let Some(line) = needs.warning(&request.task.command_line()) {
                console::warn(&line);
            }
            Some(needs.forecast)
        }
        Ok(None) => None,
        Err(error) => {
            tracing::debug!(error = %format!("{error:#}"), "no estimate before counting");
            None
        }
    }
}

/// Whether `job` (of `task`) could need more than a machine: a wide frontier or a long sweep;
/// without rows (the hint's row is the whole sweep), one priced from its smaller instances, or
/// a graph's whose frontier is as wide (the others have nothing a model can extend). A graph's
/// long sweep on a narrow frontier (a cycle of 100,000 vertices) is not priced: its probe,
/// which goes on while layers are small, would count it whole a second time.
fn plausibly_big(job: &dyn SweepJob, task: &dyn Task) -> bool {
    let hint = job.profile_hint();
    if widths::applies(&hint, job.steps()) {
        return hint.widths.iter().copied().max().unwrap_or(0) >= WIDE_FRONTIER;
    }
    if !forecast::has_rows(job) {
        return task.smaller().is_some();
    }
    hint.row * hint.rows_reached.max(1) >= WIDE_FRONTIER || job.steps() >= LONG_SWEEP
}

/// What this machine has for a count: memory for a count in memory (`None`: out of core) and
/// the disk free in its job directory (`None`: not known, or in memory).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Room {
    memory: Option<u64>,
    disk_free: Option<u64>,
}

/// What a count needs, as `leaper plan` prices it, and what this machine has for it.
#[derive(Clone, Debug, PartialEq)]
struct Needs {
    forecast: Forecast,
    room: Room,
}

/// Prices `job` as `leaper plan` does ([`forecast::price`]): always before a count with a job
/// directory (a long run; `leaper status` shows the figures), before a count in memory only if
/// a glance of about half a second puts it within [`NEAR`] of a limit (`None` otherwise). A
/// sweep without rows that its glance counts whole, smaller instances and all, is not priced
/// even with a job directory: it is small (and its probe, out of core, would be a job's
/// second).
fn needs(job: &dyn SweepJob, request: &JobRequest, settings: &SweepSettings) -> Result<Option<Needs>> {
    let in_memory = request.run.job_dir.is_none();
    let memory_limit = settings.mem_limit;
    let room = Room {
        memory: in_memory.then_some(memory_limit),
        disk_free: request.run.job_dir.as_deref().and_then(crate::machine::free_disk),
    };
    if in_memory || !(forecast::has_rows(job) || forecast::by_widths(job)) {
        match glance(job, request, settings)? {
            None => return Ok(None),
            Some(glance) if in_memory && !glance.near(memory_limit) => return Ok(None),
            Some(_) => {}
        }
    }
    let priced =
        forecast::price(job, request, settings, forecast::PROBE_STATES, &std::env::temp_dir(), memory_limit, true)?;
    Ok(Some(Needs { forecast: priced.forecast, room }))
}

/// A glance's figures are within this factor of a limit: worth pricing as the plan does.
const NEAR: f64 = 4.0;

/// A glance at a count in memory: its memory at the peak and its time, from a probe of about
/// half a second in memory ([`Bounds::quick`]), or without rows from its smaller instances
/// counted in full within as many states read as a step of that probe ([`QUICK_STATES`]).
struct Glance {
    memory: u64,
    seconds: f64,
    /// A graph's glance whose guess is likely low (it stopped short of the widest frontier, or
    /// the frontier is wider than the guess was measured on: [`widths::Trust`]): priced as the
    /// plan does, whatever it says.
    short: bool,
}

impl Glance {
    fn near(&self, memory_limit: u64) -> bool {
        self.short || self.memory as f64 * NEAR > memory_limit as f64 || self.seconds * NEAR > AN_HOUR
    }
}

/// A glance at `job`; `None` where, without rows, it fits the glance's own budget (nothing to
/// price).
fn glance(job: &dyn SweepJob, request: &JobRequest, settings: &SweepSettings) -> Result<Option<Glance>> {
    let (options, plan) = (&settings.options, &settings.plan);
    let runs = if plan.exact_lane().is_some() { 1 } else { plan.passes.len() };
    let (first, threads) = (&plan.passes[0], settings.threads);
    let hint = job.profile_hint();
    let by_widths = widths::applies(&hint, job.steps());
    let (profile, rates, short) = if forecast::has_rows(job) || by_widths {
        let bounds = Bounds::quick(forecast::probe_at_least(job));
        let (probe, profile, rates) = crate::plan::estimate(job, first, bounds, threads, None)?;
        let short = by_widths
            && !probe.finished(job.steps())
            && widths::Trust::of(&hint.widths, probe.profile.len()) != widths::Trust::Measured;
        (profile, rates, short)
    } else {
        match forecast::extrapolate(job, request.task.as_ref(), first, QUICK_STATES, options, threads)? {
            Some(extrapolated) => (extrapolated.profile, extrapolated.rates, false),
            None => return Ok(None),
        }
    };
    let seconds = cost(&profile, &rates, 1, OUT_OF_CORE_MEM_LIMIT).seconds_per_pass * runs as f64;
    Ok(Some(Glance { memory: in_memory_bytes(&profile, &rates), seconds, short }))
}

impl Needs {
    /// The warning line for the count `name`, if it needs more than this machine has: in
    /// memory, more than a count may hold; out of core, more disk than is free; or more than an
    /// hour. Its figures are the forecast's, as `leaper plan` prints them.
    fn warning(&self, name: &str) -> Option<String> {
        let forecast = &self.forecast;
        let over_memory = self.room.memory.is_some_and(|limit| forecast.memory > limit);
        let over_disk = self.room.memory.is_none() && self.room.disk_free.is_some_and(|free| forecast.disk > free);
        if !(over_memory || over_disk || forecast.seconds > AN_HOUR) {
            return None;
        }
        let sizes = match (self.room.memory, self.room.disk_free) {
            (Some(limit), _) => {
                format!("{} in memory, where a count may hold {} here", bytes(forecast.memory), bytes(limit))
            }
            (None, Some(free)) => format!("{} on disk, where {} is free", bytes(forecast.disk), bytes(free)),
            (None, None) => format!("{} on disk", bytes(forecast.disk)),
        };
        let source = forecast.extrapolated.as_ref().map(|source| format!(" ({source})")).unwrap_or_default();
        Some(format!(
            "{name} needs about {} states at its peak ({sizes}) and about {} on this machine{source}; see `leaper plan \
             {name}`",
            approx(forecast.peak_states as f64),
            duration(forecast.seconds)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs(memory: u64, memory_limit: Option<u64>, disk: u64, disk_free: Option<u64>, seconds: f64) -> Needs {
        let forecast = Forecast {
            peak_states: 3_100_000,
            peak_step: 40,
            states_read: 40_000_000,
            runs: 1,
            memory,
            memory_held: memory,
            disk,
            mem_limit: 4 << 30,
            seconds,
            probe_steps: 18,
            probe_finished: false,
            extrapolated: None,
            count_bits: None,
        };
        Needs { forecast, room: Room { memory: memory_limit, disk_free } }
    }

    #[test]
    fn a_count_that_fits_says_nothing() {
        assert_eq!(needs(1 << 30, Some(8 << 30), 1 << 40, None, 600.0).warning("knight 8x10"), None);
        // Out of core, the memory figure is the store's own budget: only the disk counts.
        assert_eq!(needs(1 << 40, None, 1 << 29, Some(1 << 30), 600.0).warning("knight 8x10"), None);
        assert_eq!(needs(1 << 40, None, 1 << 40, None, 600.0).warning("knight 8x10"), None);
    }

    #[test]
    fn a_count_past_memory_disk_or_an_hour_says_so_in_one_line_with_its_figures() {
        let line = needs(10 << 30, Some(8 << 30), 1 << 40, None, 600.0).warning("knight 9x9").unwrap();
        assert_eq!(
            line,
            "knight 9x9 needs about 3.10e6 states at its peak (10.0 GiB in memory, where a count may hold 8.0 GiB \
             here) and about 10 min on this machine; see `leaper plan knight 9x9`"
        );
        let line = needs(1, None, 2 << 30, Some(1 << 30), 60.0).warning("knight 9x9").unwrap();
        assert!(line.contains("(2.0 GiB on disk, where 1.0 GiB is free) and about 60 s"), "{line}");
        let line = needs(1, Some(2), 1 << 40, None, 7300.0).warning("knight 9x9").unwrap();
        assert!(line.contains("(1 B in memory, where a count may hold 2 B here) and about 2.0 h"), "{line}");
        assert!(!line.contains('\n'));
        // A sweep priced from its smaller instances says so.
        let mut extrapolated = needs(10 << 30, Some(8 << 30), 1 << 40, None, 600.0);
        extrapolated.forecast.extrapolated = Some("extrapolated from quarter 2 to quarter 20, counted in full".into());
        let line = extrapolated.warning("quarter 40").unwrap();
        assert!(
            line.ends_with(
                "and about 10 min on this machine (extrapolated from quarter 2 to quarter 20, counted in full); see \
                 `leaper plan quarter 40`"
            ),
            "{line}"
        );
    }
}
