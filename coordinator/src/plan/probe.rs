//! The probe: the sweep itself, run for its first steps, on the out-of-core store in a scratch
//! directory, until the next layer would pass a number of states. Everything a plan knows for
//! certain comes from here: the exact layers of those steps, bytes per state in the store's own
//! format, and the rate of this machine.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use leaper_core::engine::store::disk_store;
use leaper_core::engine::sweep::{LocalSteps, StoreFactory, SweepHost, SweepProgress};
use leaper_core::engine::{Moduli, SweepJob};

/// Buckets of the probe's store: enough for the probe's layers, few files per layer.
const PROBE_BUCKETS: usize = 61;
/// The probe's memory budget: its layers (a few million states) merge without spilling.
const PROBE_MEM_LIMIT: u64 = 1 << 30;

/// What the first steps of a sweep measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Probe {
    /// States read by each measured step, from step 0.
    pub profile: Vec<u64>,
    /// Seconds each measured step took.
    pub seconds: Vec<f64>,
    /// The layer the last measured step left, the next step's input (0: the sweep ended).
    pub next_states: u64,
    /// Its bytes in the out-of-core store's format.
    pub next_bytes: u64,
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

    /// Bytes a state of the last measured layer takes in the store.
    pub fn bytes_per_state(&self) -> f64 {
        self.next_bytes as f64 / self.next_states.max(1) as f64
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

/// Runs the first `at_least` steps of `job`'s first pass (lanes `moduli`), and the steps after
/// while the layer a step would read holds at most `cap` states, in a new directory under
/// `scratch_parent` removed afterwards.
pub fn probe(job: &dyn SweepJob, moduli: &Moduli, cap: u64, at_least: usize, scratch_parent: &Path) -> Result<Probe> {
    let dir = scratch_parent.join(format!("leaper-plan-probe-{}", std::process::id()));
    std::fs::create_dir(&dir)
        .with_context(|| format!("{}: cannot make the probe's scratch directory", dir.display()))?;
    let scratch = Scratch(dir);
    let root = scratch.0.clone();
    let mut stores = StoreFactory(move |layout, moduli: &Moduli| {
        disk_store(layout, &root, 0, PROBE_BUCKETS, moduli.clone(), PROBE_MEM_LIMIT, None)
    });
    let mut host = LocalSteps::new(job, &mut stores);
    host.begin_pass(moduli, &SweepProgress::default())?;
    host.seed(&job.start_record(moduli))?;
    let mut probe = Probe { next_states: 1, ..Probe::default() };
    for step in 0..job.steps() {
        if probe.next_states == 0 || (probe.next_states > cap && step >= at_least) {
            break;
        }
        let started = Instant::now();
        let outcome = host.step(step, moduli)?;
        probe.seconds.push(started.elapsed().as_secs_f64());
        probe.profile.push(outcome.read);
        probe.next_states = outcome.layer.states;
        probe.next_bytes = outcome.layer.bytes;
        let position = job.position(step);
        tracing::info!(
            step = step + 1,
            row = position.row + 1,
            col = position.col + 1,
            states_in = outcome.read,
            states_out = outcome.layer.states,
            seconds = format!("{:.1}", started.elapsed().as_secs_f64()),
            "probe step"
        );
        host.commit(&SweepProgress::default())?;
    }
    host.end_pass(true)?;
    drop(host);
    drop(scratch);
    Ok(probe)
}
