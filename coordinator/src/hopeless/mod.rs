//! Requests that cannot finish here, said before anything starts (issue 45).
//!
//! ```text
//! $ leaper knight 12x12                                      (one line, then the count goes on)
//! warning: knight 12x12 needs about 7.35e14 states at its peak (16.5 PiB in memory, where a count
//!   may hold 18.8 GiB here) and about 140 years on this machine; see `leaper plan knight 12x12`
//! $ leaper tours enumerate 8x8 --out tours.txt
//! error: tours enumerate 8x8 --closed: 8x8 has too many closed tours to list one by one: ...
//! $ leaper tours generate 3x3 --count 1 --out tours.txt
//! error: tours generate 3x3: 3x3 has no knight's tour, open or closed (the board's graph is ...
//! ```
//!
//! A sweep that could plausibly be big (a frontier of 14 cells or more, the knight from width 7
//! on; or 400 steps or more) is priced first by `leaper plan`'s own probe and model
//! ([`crate::plan::estimate`]), bounded to about a second ([`Bounds::quick`]; what it takes:
//! docs/PERFORMANCE.md, "The quick probe before a count"): in memory for a count in memory,
//! out of core in the temporary directory for one with `--job-dir` (its disk figures). If it
//! needs more memory than a count in memory may hold here, more disk than is free in the job
//! directory, or more than an hour, one `warning:` line says so with the figures, and the count
//! goes on. Smaller sweeps, searches and cluster jobs (whose machines are the workers') pay
//! nothing. The warning is printed as every `warning:` is, `-q` or not: it is what a person
//! must know before leaving a count to run (a JSON log gets it as an event).
//!
//! `tours enumerate` and `tours generate` refuse what cannot finish or has nothing to find:
//! [`tours`].

mod tours;

use std::time::Instant;

use anyhow::Result;
use leaper_core::engine::sweep::plan_moduli;
use leaper_core::engine::{Job, SweepJob, Tool};
use leaper_core::units::bytes;

use crate::console;
use crate::plan::estimate::{cost, in_memory_bytes, Profile, Rates};
use crate::plan::probe::Bounds;
use crate::plan::{approx, duration};
use crate::request::{JobRequest, OUT_OF_CORE_MEM_LIMIT};

/// A frontier of this many cells (a row times the rows a move reaches) may hold more states
/// than a machine: the knight from width 7 on, whose counts grow from seconds to minutes as the
/// board grows (docs/PERFORMANCE.md, "The quick probe before a count").
const WIDE_FRONTIER: usize = 14;
/// So many steps may take long even on a narrow frontier: once its layers saturate, every step
/// reads a saturated layer (docs/PERFORMANCE.md, "The quick probe before a count").
const LONG_SWEEP: usize = 400;
/// Longer than this is worth a word before starting.
const AN_HOUR: f64 = 3600.0;

/// Before a new count of `job`: warns if its sweep will not fit this machine, refuses a tour
/// enumeration that cannot finish. Called once, before anything is written.
pub fn check(job: &Job, request: &JobRequest) -> Result<()> {
    match job {
        Job::Sweep(sweep) => {
            warn_if_big(sweep.as_ref(), request);
            Ok(())
        }
        Job::Subtree(_) => tours::check_enumerate(request),
    }
}

/// Before a tool runs: refuses `tours generate` on a board with no tour of the kind asked for.
pub fn check_tool(tool: &dyn Tool, matches: &clap::ArgMatches) -> Result<()> {
    tours::check_generate(tool, matches)
}

/// Prints the warning line if `job`'s sweep needs more than this machine has. A probe that
/// fails (a scratch directory that cannot be made) only skips the warning.
fn warn_if_big(job: &dyn SweepJob, request: &JobRequest) {
    if !request.run.cluster.workers.is_empty() || !plausibly_big(job) {
        return;
    }
    let started = Instant::now();
    let estimated = needs(job, request).map(|needs| needs.warning(&request.task.command_line()));
    tracing::debug!(seconds = started.elapsed().as_secs_f64(), "estimated before counting");
    match estimated {
        Ok(Some(line)) => console::warn(&line),
        Ok(None) => {}
        Err(error) => tracing::debug!(error = %format!("{error:#}"), "no estimate before counting"),
    }
}

/// Whether `job` could need more than a machine: a wide frontier or a long sweep. Problems
/// without rows (their hint's row is the whole sweep) have nothing the model can extend.
fn plausibly_big(job: &dyn SweepJob) -> bool {
    let hint = job.profile_hint();
    let has_rows = hint.row > 0 && hint.row < job.steps();
    has_rows && (hint.row * hint.rows_reached.max(1) >= WIDE_FRONTIER || job.steps() >= LONG_SWEEP)
}

/// What a count needs, and what this machine has for it.
#[derive(Clone, Debug, PartialEq)]
struct Needs {
    peak_states: u64,
    /// Bytes in memory at the peak, and what a count in memory may hold (`None`: out of core).
    memory: u64,
    memory_limit: Option<u64>,
    /// Bytes on disk at the peak, out of core on this machine (`None`: a count in memory,
    /// probed in memory), and what is free in the job directory (`None`: not known).
    disk: Option<u64>,
    disk_free: Option<u64>,
    /// Seconds, every pass that runs, at the probe's rate.
    seconds: f64,
}

/// Prices `job` with a quick probe, for the store `request` counts in.
fn needs(job: &dyn SweepJob, request: &JobRequest) -> Result<Needs> {
    let (args, options) = request.sweep_options()?;
    let plan = plan_moduli(job, &options)?;
    // The exact pass alone runs for certain; the residue passes only if it saturates (none
    // follow where the bound needs more moduli than leaper carries).
    let runs = if plan.exact_lane().is_some() { 1 } else { plan.passes.len() };
    let passes = plan.passes;
    let bounds = Bounds::quick(2 * job.profile_hint().row);
    let in_memory = request.run.job_dir.is_none();
    // In memory as the count will be (its rate, no fsync a step); out of core for the disk.
    let scratch = (!in_memory).then(std::env::temp_dir);
    let (probe, profile, rates) =
        crate::plan::estimate(job, &passes[0], bounds, request.run.threads, scratch.as_deref())?;
    // Out of core with its own limit; an in-memory count that outgrows its limit goes on out of
    // core with the same limit, in the working directory.
    let memory_limit = args.mem_limit.unwrap_or_else(|| match in_memory {
        true => crate::memory::default_in_memory_limit(),
        false => OUT_OF_CORE_MEM_LIMIT,
    });
    let disk_free = request.run.job_dir.as_deref().and_then(crate::machine::free_disk);
    let needs = Needs::of(&profile, &rates, runs, in_memory.then_some(memory_limit), memory_limit, disk_free);
    Ok(Needs { disk: needs.disk.filter(|_| probe.on_disk), ..needs })
}

impl Needs {
    fn of(
        profile: &Profile,
        rates: &Rates,
        runs: usize,
        memory_limit: Option<u64>,
        out_of_core_limit: u64,
        disk_free: Option<u64>,
    ) -> Needs {
        let one = cost(profile, rates, 1, out_of_core_limit);
        Needs {
            peak_states: profile.peak().1,
            memory: in_memory_bytes(profile, rates),
            memory_limit,
            disk: Some(one.disk_per_worker),
            disk_free,
            seconds: one.seconds_per_pass * runs as f64,
        }
    }

    /// The warning line for the count `name`, if it needs more than this machine has: in
    /// memory, more than a count may hold; out of core, more disk than is free.
    fn warning(&self, name: &str) -> Option<String> {
        let over_memory = self.memory_limit.is_some_and(|limit| self.memory > limit);
        let over_disk = self.disk.zip(self.disk_free).is_some_and(|(disk, free)| disk > free);
        if !(over_memory || over_disk || self.seconds > AN_HOUR) {
            return None;
        }
        let sizes = match (self.memory_limit, self.disk) {
            (Some(limit), _) => {
                format!("{} in memory, where a count may hold {} here", bytes(self.memory), bytes(limit))
            }
            (None, Some(disk)) => match self.disk_free {
                Some(free) => format!("{} on disk, where {} is free", bytes(disk), bytes(free)),
                None => format!("{} on disk", bytes(disk)),
            },
            (None, None) => format!("{} in memory", bytes(self.memory)),
        };
        Some(format!(
            "{name} needs about {} states at its peak ({sizes}) and about {} on this machine; see `leaper plan {name}`",
            approx(self.peak_states as f64),
            duration(self.seconds)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs(memory: u64, memory_limit: Option<u64>, disk: Option<u64>, disk_free: Option<u64>, seconds: f64) -> Needs {
        Needs { peak_states: 3_100_000, memory, memory_limit, disk, disk_free, seconds }
    }

    #[test]
    fn a_count_that_fits_says_nothing() {
        assert_eq!(needs(1 << 30, Some(8 << 30), None, None, 600.0).warning("knight 8x10"), None);
        // Out of core, the memory figure is the store's own budget: only the disk counts.
        assert_eq!(needs(1 << 40, None, Some(1 << 29), Some(1 << 30), 600.0).warning("knight 8x10"), None);
        assert_eq!(needs(1 << 40, None, Some(1 << 40), None, 600.0).warning("knight 8x10"), None);
    }

    #[test]
    fn a_count_past_memory_disk_or_an_hour_says_so_in_one_line_with_its_figures() {
        let line = needs(10 << 30, Some(8 << 30), None, None, 600.0).warning("knight 9x9").unwrap();
        assert_eq!(
            line,
            "knight 9x9 needs about 3.10e6 states at its peak (10.0 GiB in memory, where a count may hold 8.0 GiB \
             here) and about 10 min on this machine; see `leaper plan knight 9x9`"
        );
        let line = needs(1, None, Some(2 << 30), Some(1 << 30), 60.0).warning("knight 9x9").unwrap();
        assert!(line.contains("(2.0 GiB on disk, where 1.0 GiB is free) and about 60 s"), "{line}");
        let line = needs(1, Some(2), None, None, 7300.0).warning("knight 9x9").unwrap();
        assert!(line.contains("(1 B in memory, where a count may hold 2 B here) and about 2.0 h"), "{line}");
        assert!(!line.contains('\n'));
    }
}
