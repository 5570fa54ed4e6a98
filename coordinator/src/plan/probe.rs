//! The probe: the sweep itself, run for its first steps, on the out-of-core store in a scratch
//! directory (or, before a count in memory, on the in-memory store), until the next layer would
//! pass a number of states. Everything a plan knows for certain comes from here: the exact
//! layers of those steps, bytes per state in the store's own format, and the rate of this
//! machine.
//!
//! `leaper plan` probes two rows and on while layers stay under `--probe-states`; the warning
//! before a count ([`crate::preflight`]) probes the same way within a second ([`Bounds::quick`]),
//! and the model completes what the probe could not reach ([`super::model::complete_rows`]).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use leaper_core::engine::jobdir::checkpoints::PACED_FROM_STEPS;
use leaper_core::engine::store::{disk_store, memory_store};
use leaper_core::engine::sweep::{LocalSteps, StoreFactory, SweepHost, SweepProgress};
use leaper_core::engine::{Moduli, SweepJob};

/// Buckets of the probe's store: enough for the probe's layers, few files per layer.
const PROBE_BUCKETS: usize = 61;
/// The probe's memory budget: its layers (a few million states) merge without spilling.
const PROBE_MEM_LIMIT: u64 = 1 << 30;

/// Where a probe stops: before a step, once any bound says so.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Steps run whatever the layers (unless `most_states` or `budget` stop them first).
    pub at_least: usize,
    /// After `at_least`, no step reads more states than this.
    pub states: u64,
    /// No step at all reads more states than this.
    pub most_states: u64,
    /// Nor does any step take the states read in all past this (a smaller instance counted in
    /// full to price a larger one: [`super::ladder`]).
    pub states_read: u64,
    /// No step starts after this much time.
    pub budget: Option<Duration>,
    /// Its steps logged at debug level only (before a count: the count's own steps are the ones
    /// to see), not as `leaper plan`'s `probe step` lines.
    pub quiet: bool,
}

/// The states a step of a quick probe may read: sized so that such a step takes about half a second
/// on the project's machine, and a quick probe about a second at most (docs/PERFORMANCE-LOG.md, "The
/// quick probe before a count").
pub const QUICK_STATES: u64 = 300_000;
/// No step of a plan's probe reads more than this (unless `--probe-states` asks for more): two
/// rows of width 9 stay below it (3.97 M states at most), width 10's second row passes it at its
/// eighth cell (18.7 M, 22 s here; 60 M at its tenth), width 12's sooner.
const PLAN_MOST_STATES: u64 = 8_000_000;
/// No step of a quick probe starts after this.
const QUICK_BUDGET: Duration = Duration::from_millis(500);

impl Bounds {
    /// `leaper plan`'s: the first `at_least` steps, then on while layers hold at most `states`;
    /// no step reading more than twice `states` or [`PLAN_MOST_STATES`], whichever is more (a
    /// wide board's second row, whose steps take seconds to minutes each past that: the model
    /// completes the row).
    pub fn plan(at_least: usize, states: u64) -> Bounds {
        Bounds {
            at_least,
            states,
            most_states: states.saturating_mul(2).max(PLAN_MOST_STATES),
            states_read: u64::MAX,
            budget: None,
            quiet: false,
        }
    }

    /// The same bounds, the steps logged at debug level only.
    pub fn quietly(self) -> Bounds {
        Bounds { quiet: true, ..self }
    }

    /// Before a count: as `leaper plan` would, but within about a second in all.
    pub fn quick(at_least: usize) -> Bounds {
        Bounds {
            at_least,
            states: QUICK_STATES,
            most_states: QUICK_STATES,
            states_read: u64::MAX,
            budget: Some(QUICK_BUDGET),
            quiet: true,
        }
    }

    /// The whole sweep, quietly, unless it would read more than `states_read` states in all.
    pub fn whole(states_read: u64) -> Bounds {
        Bounds { at_least: usize::MAX, states: u64::MAX, most_states: u64::MAX, states_read, budget: None, quiet: true }
    }

    /// Whether a probe `elapsed` into its run, having read `read` states, stops before `step`,
    /// which would read `states`.
    fn stop_before(&self, step: usize, states: u64, read: u64, elapsed: Duration) -> bool {
        states > self.most_states
            || read.saturating_add(states) > self.states_read
            || (states > self.states && step >= self.at_least)
            || self.budget.is_some_and(|budget| elapsed >= budget)
    }
}

/// What the first steps of a sweep measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Probe {
    /// States read by each measured step, from step 0.
    pub profile: Vec<u64>,
    /// Records each measured step handed to the store (what crosses between workers).
    pub handed: Vec<u64>,
    /// Seconds each measured step took.
    pub seconds: Vec<f64>,
    /// The layer the last measured step left, the next step's input (0: the sweep ended).
    pub next_states: u64,
    /// The largest layer a measured step left, and its bytes in the out-of-core store's
    /// format: bytes per state are taken there (the last layer of a finished sweep is empty).
    pub largest_states: u64,
    pub largest_bytes: u64,
    /// Whether the probe ran on the out-of-core store (its bytes are disk bytes), or in memory.
    pub on_disk: bool,
    /// What the measured steps closed, per slot, in the probe's lanes: a probe that ran the whole
    /// sweep holds its counts (a smaller instance's, for the growth of the counts: [`super::ladder`]).
    pub closed: Vec<Vec<u64>>,
}

impl Probe {
    /// Whether the probe ran the whole sweep.
    pub fn finished(&self, steps: usize) -> bool {
        self.next_states == 0 || self.profile.len() >= steps
    }

    /// States per second over the measured steps that read at least `floor` states (the first
    /// steps' few states cost mostly fixed overhead), or over all steps if none did.
    pub fn rate(&self, floor: u64) -> f64 {
        let floor = if self.profile.iter().any(|&s| s >= floor) { floor } else { 0 };
        let (states, seconds) = self
            .profile
            .iter()
            .zip(&self.seconds)
            .filter(|&(&s, _)| s >= floor)
            .fold((0.0, 0.0), |(states, seconds), (&s, &t)| (states + s as f64, seconds + t));
        states / f64::max(seconds, 1e-9)
    }

    /// Bytes a state of the largest measured layer takes in the store.
    pub fn bytes_per_state(&self) -> f64 {
        self.largest_bytes as f64 / self.largest_states.max(1) as f64
    }

    /// Records handed to the store per state of the layers the measured steps left (1 if they
    /// left none). Per state left rather than read: a growing layer hands on more than it reads
    /// (the 9 x 6 sweep's first two rows 1.78 a state read, its whole pass 1.00), but about as
    /// many as it leaves (0.97 and 1.00).
    pub fn handed_per_left(&self) -> f64 {
        let left: u64 = self.profile.iter().skip(1).sum::<u64>() + self.next_states;
        if left == 0 {
            return 1.0;
        }
        self.handed.iter().sum::<u64>() as f64 / left as f64
    }
}

/// A scratch directory removed with everything in it when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(error) = std::fs::remove_dir_all(&self.0) {
            tracing::warn!(dir = %self.0.display(), %error, "could not remove the probe's scratch directory");
        }
    }
}

/// Runs the first steps of `job`'s first pass (lanes `moduli`) until `bounds` stop it: on the
/// out-of-core store in a new directory under `scratch_parent`, removed afterwards, or in
/// memory without one (no disk figures then, and no fsync per step: before a count in memory).
pub fn probe(job: &dyn SweepJob, moduli: &Moduli, bounds: Bounds, scratch_parent: Option<&Path>) -> Result<Probe> {
    let scratch = match scratch_parent {
        Some(parent) => {
            let dir = parent.join(format!("leaper-plan-probe-{}", std::process::id()));
            std::fs::create_dir(&dir)
                .with_context(|| format!("{}: cannot make the probe's scratch directory", dir.display()))?;
            Some(Scratch(dir))
        }
        None => None,
    };
    let root = scratch.as_ref().map(|scratch| scratch.0.clone());
    // Out of core as a job directory would count: a sweep of many steps (a long thin graph's)
    // paces its checkpoints, which spares its small layers a file and an fsync a step.
    let paced = job.steps() > PACED_FROM_STEPS;
    let mut stores = StoreFactory(move |layout, moduli: &Moduli| match &root {
        Some(root) => {
            let mut store = disk_store(layout, root, 0, PROBE_BUCKETS, moduli.clone(), PROBE_MEM_LIMIT, None)?;
            if paced {
                store.pace_checkpoints();
            }
            Ok(store)
        }
        None => memory_store(layout, PROBE_BUCKETS, moduli.clone(), PROBE_MEM_LIMIT),
    });
    let mut host = LocalSteps::new(job, &mut stores);
    host.begin_pass(moduli, &SweepProgress::default())?;
    host.seed(&job.start_record(moduli))?;
    let closed = vec![vec![0; moduli.len()]; job.slots()];
    let mut probe = Probe { next_states: 1, on_disk: scratch.is_some(), closed, ..Probe::default() };
    let begun = Instant::now();
    for step in 0..job.steps() {
        let read = probe.profile.iter().sum();
        if probe.next_states == 0 || bounds.stop_before(step, probe.next_states, read, begun.elapsed()) {
            break;
        }
        let started = Instant::now();
        let outcome = host.step(step, moduli)?;
        probe.seconds.push(started.elapsed().as_secs_f64());
        probe.profile.push(outcome.read);
        probe.handed.push(outcome.handed);
        probe.next_states = outcome.layer.states;
        for (total, closed) in probe.closed.iter_mut().zip(outcome.closed.chunks(moduli.len())) {
            moduli.add_assign(total, closed);
        }
        if outcome.layer.states >= probe.largest_states && outcome.layer.bytes > 0 {
            probe.largest_states = outcome.layer.states;
            probe.largest_bytes = outcome.layer.bytes;
        }
        let position = job.position(step);
        // A probe before a count logs its steps only at debug level: the count's own steps are
        // the ones to see.
        macro_rules! step_event {
            ($level:expr) => {
                tracing::event!(
                    $level,
                    step = step + 1,
                    row = position.row + 1,
                    col = position.col + 1,
                    states_in = outcome.read,
                    states_out = outcome.layer.states,
                    seconds = format!("{:.1}", started.elapsed().as_secs_f64()),
                    "probe step"
                )
            };
        }
        if bounds.quiet {
            step_event!(tracing::Level::DEBUG);
        } else {
            step_event!(tracing::Level::INFO);
        }
        host.commit(&SweepProgress::default())?;
    }
    host.end_pass(true)?;
    drop(host);
    drop(scratch);
    Ok(probe)
}
