//! The one estimate of a sweep on one machine, and the three places that say it: `leaper plan`
//! prints it, the warning before a count quotes it, and a count with a job directory keeps it
//! there (`plan.json`) for `leaper status` to show beside the run's own figures.
//!
//! ```text
//! $ leaper plan knight 9x10
//! peak      3.50e9 states, read by step 45 (row 5, column 6)
//! memory    ... to count in memory (no --job-dir, one machine)
//!         1          14.2 GiB      yes   ...   9.3 h
//! $ leaper knight 9x10 --job-dir J
//! warning: knight 9x10 needs about 3.50e9 states at its peak (14.2 GiB on disk, ...) and about 9.3 h ...
//! $ leaper status --job-dir J
//! plan      peak 3.50e9 states (step 45), 5.93e10 states read a pass, 14.2 GiB on disk at --mem-limit ...
//! ```
//!
//! All three run the same probe ([`PROBE_STATES`]: two rows, then on while layers hold at most
//! that many states, out of core in the temporary directory) and the same model, so their
//! states, bytes on disk and in memory agree to the digit; the time rests on the states a second
//! each probe measured, which a machine's load moves (the same machine, seconds apart: close).
//! Before, the warning probed within half a second and said 6.14e9 states at 9 x 10's peak where
//! the plan said 3.50e9 (the run: 3.29e9).

use std::path::Path;

use anyhow::{bail, Context, Result};
use leaper_core::engine::jobdir::{replace_durably, JobFile};
use leaper_core::engine::sweep::SweepOptions;
use leaper_core::engine::{Moduli, SweepJob, Task};
use serde::{Deserialize, Serialize};

use super::bytes::{self as disk_bytes, Lanes};
use super::estimate::{cost, in_memory_bytes, in_memory_held, Profile, Rates};
use super::estimate::{RATE_FLOOR, WIRE_BYTES_PER_WORD};
use super::ladder::{self, Climb, Ladder};
use super::model;
use super::probe::{Bounds, Probe};
use super::widths;
use crate::numbers::{approx, bytes, duration};
use crate::request::JobRequest;
use crate::settings::SweepSettings;

/// The probe's default: after two rows, on while a step reads at most this many states
/// (`leaper plan --probe-states`).
pub const PROBE_STATES: u64 = 4_000_000;

/// What a sweep needs on one machine: the figures every estimate of it quotes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Forecast {
    /// The largest layer, and the step (from 1) that reads it.
    pub peak_states: u64,
    pub peak_step: usize,
    /// States read over one pass.
    pub states_read: u64,
    /// Passes that run for certain (the exact pass alone, or every residue pass).
    pub runs: usize,
    /// Bytes a count in memory needs at its peak (what must fit its limit), and what it holds
    /// there under the limit it would have (more, where the store has room to keep its tables).
    pub memory: u64,
    pub memory_held: u64,
    /// Out of core on one machine with a memory budget of `mem_limit`: bytes on disk at the
    /// heaviest step.
    pub disk: u64,
    pub mem_limit: u64,
    /// Seconds of the whole count (every pass that runs) on this machine, out of core, at the
    /// probe's rate.
    pub seconds: f64,
    /// Steps the probe ran, and whether they were the whole sweep (the figures are then exact).
    pub probe_steps: usize,
    pub probe_finished: bool,
    /// Where a sweep without rows priced from its smaller instances has its figures from
    /// (`extrapolated from quarter 2 to quarter 20, counted in full`: [`super::ladder`]); its
    /// own probe then ran no step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extrapolated: Option<String>,
    /// `log2` of the largest count, where the smaller instances' counts foretell it
    /// ([`Ladder::count_bits`]); past the exact pass's lane, the residue passes run for certain
    /// and `runs` counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_bits: Option<f64>,
}

/// A priced sweep: the probe and what the model made of it, and the forecast they give.
pub struct Priced {
    pub probe: Probe,
    pub profile: Profile,
    pub rates: Rates,
    pub forecast: Forecast,
    /// The smaller instances it was priced from, where it has no rows and was too big to probe
    /// whole (`probe` is then the largest one's, counted in memory).
    pub ladder: Option<Ladder>,
}

/// Prices `request`'s sweep `job` as `leaper plan` does: its first pass probed (two rows, then
/// while a step reads at most `probe_states`) out of core in a scratch directory under
/// `scratch`, the rest predicted, the disk priced at a memory budget of `mem_limit`; its steps
/// logged at debug level only if `quiet` (before a count). A sweep without rows is probed
/// whole, or priced from its smaller instances counted in full while they read at most
/// `probe_states` states in all, where it names them and is too big to count within that
/// ([`ladder`]); a graph's is probed as far as its widest frontier and two steps more, then on
/// while a step reads at most `probe_states`, the rest guessed from its widths ([`widths`]).
pub fn price(
    job: &dyn SweepJob,
    request: &JobRequest,
    settings: &SweepSettings,
    probe_states: u64,
    scratch: &Path,
    mem_limit: u64,
    quiet: bool,
) -> Result<Priced> {
    let (options, passes) = (&settings.options, &settings.plan);
    // The exact pass alone runs for certain; residue passes follow only if a count saturates.
    let runs = if passes.exact_lane().is_some() { 1 } else { passes.passes.len() };
    let first: &Moduli = &passes.passes[0];
    let bounds = Bounds::plan(probe_at_least(job), probe_states);
    let bounds = if quiet { bounds.quietly() } else { bounds };
    // The model extends a profile row by row: a sweep without rows (the quartering's diagonals,
    // a graph's vertices) is known as far as its probe ran, and no further, unless its smaller
    // instances say how it grows, or its frontier's widths let one guess it (a graph's).
    let has_rows = has_rows(job);
    let threads = settings.threads;
    let extrapolated = match has_rows {
        true => None,
        false => extrapolate(job, request.task.as_ref(), first, probe_states, options, threads)?,
    };
    let (probe, profile, rates, ladder) = match extrapolated {
        Some(Extrapolated { ladder, profile, rates }) => (ladder.top_probe().clone(), profile, rates, Some(ladder)),
        None => {
            let (probe, profile, rates) = estimate(job, first, bounds, threads, Some(scratch))?;
            (probe, profile, rates, None)
        }
    };
    if !has_rows && !by_widths(job) && ladder.is_none() && !probe.finished(job.steps()) {
        bail!(
            "{}: its probe ran {} of its {} steps in {:.0} s and stopped before a layer of more than {} states; the \
             plan predicts the rest of a sweep row by row, and this one has no rows, so its cost past the probe is \
             not known (`leaper plan ... --probe-states N` probes on while layers hold at most 2N)",
            request.task.command_line(),
            probe.profile.len(),
            job.steps(),
            probe.seconds.iter().sum::<f64>(),
            crate::numbers::grouped(bounds.most_states),
        );
    }
    let limits = (mem_limit, settings.in_memory_limit);
    // Smaller instances' counts may foretell that this one passes the exact lane: its residue
    // passes then run for certain (the quartering from 28 x 28 on).
    let count_bits = ladder.as_ref().and_then(Ladder::count_bits);
    let saturates = passes.exact_lane().zip(count_bits).is_some_and(|(lane, bits)| bits >= f64::from(lane.bits()));
    let runs = if saturates { passes.passes.len() } else { runs };
    let mut forecast = Forecast::of(job, (&probe, ladder.as_ref()), &profile, &rates, runs, limits);
    forecast.count_bits = count_bits;
    Ok(Priced { probe, profile, rates, forecast, ladder })
}

/// Whether the model can extend `job`'s probe row by row: it has rows, more than one.
pub fn has_rows(job: &dyn SweepJob) -> bool {
    let row = job.profile_hint().row;
    row > 0 && row < job.steps()
}

/// Whether `job`'s probe is extended by its frontier's widths ([`widths`]): a graph's.
pub fn by_widths(job: &dyn SweepJob) -> bool {
    widths::applies(&job.profile_hint(), job.steps())
}

/// The steps a probe of `job` runs whatever its layers: what its model extends from, two rows
/// (a sweep without rows: all of it), or a graph's widest frontier and two steps more.
pub fn probe_at_least(job: &dyn SweepJob) -> usize {
    let hint = job.profile_hint();
    match widths::applies(&hint, job.steps()) {
        true => widths::measured_first(&hint.widths),
        false => 2 * hint.row,
    }
}

/// A sweep priced from its smaller instances: they, and its profile and rates as theirs foretell
/// them.
pub struct Extrapolated {
    pub ladder: Ladder,
    pub profile: Profile,
    pub rates: Rates,
}

/// Prices `job` (of `task`, lanes `first`) from its smaller instances ([`ladder`]), counted in
/// memory on `threads` while they read at most `budget` states in all; `None` where the task
/// names none, or where `job` itself fits the budget (its probe then runs it whole). The rate
/// and the records handed on are the largest instance's, in memory; bytes on disk those of a
/// large run of the same lanes ([`disk_bytes`]).
pub fn extrapolate(
    job: &dyn SweepJob,
    task: &dyn Task,
    first: &Moduli,
    budget: u64,
    options: &SweepOptions,
    threads: Option<usize>,
) -> Result<Option<Extrapolated>> {
    let Some(Climb::Extrapolated(ladder)) = ladder::climb(task, budget, options, threads)? else {
        return Ok(None);
    };
    let profile = ladder.profile(job.steps());
    let probe = ladder.top_probe();
    let rates = Rates {
        disk_bytes_per_state: disk_bytes_per_state(job, first, probe, &profile),
        record_bytes: 8.0 * (job.key_words() + first.len()) as f64,
        states_per_second: probe.rate(RATE_FLOOR),
        handed_per_left: probe.handed_per_left(),
        wire_bytes_per_record: WIRE_BYTES_PER_WORD * (job.key_words() + first.len()) as f64,
    };
    Ok(Some(Extrapolated { ladder, profile, rates }))
}

impl Forecast {
    /// The figures of `profile` and `rates` (from `probe`, or from `ladder` where the sweep was
    /// priced from its smaller instances), `runs` passes, out of core at `mem_limit`, in memory
    /// under `in_memory_limit`.
    pub fn of(
        job: &dyn SweepJob,
        (probe, ladder): (&Probe, Option<&Ladder>),
        profile: &Profile,
        rates: &Rates,
        runs: usize,
        (mem_limit, in_memory_limit): (u64, u64),
    ) -> Self {
        let one = cost(profile, rates, 1, mem_limit);
        let (peak_index, peak_states) = profile.peak();
        let hint = job.profile_hint();
        Forecast {
            peak_states,
            peak_step: peak_index + 1,
            states_read: u64::try_from(profile.expansions()).unwrap_or(u64::MAX),
            runs,
            memory: in_memory_bytes(profile, rates),
            memory_held: in_memory_held(profile, rates, in_memory_limit),
            disk: one.disk_per_worker,
            mem_limit,
            seconds: one.seconds_per_pass * runs as f64,
            probe_steps: if ladder.is_some() { 0 } else { probe.profile.len() },
            probe_finished: ladder.is_none() && probe.finished(job.steps()),
            count_bits: None,
            extrapolated: match ladder {
                Some(ladder) => Some(ladder.source()),
                None if widths::applies(&hint, job.steps()) && !probe.finished(job.steps()) => {
                    Some(widths::source(probe.profile.len(), job.steps(), &hint.widths))
                }
                None => None,
            },
        }
    }

    /// The forecast a job directory keeps, if it keeps one (a job started before forecasts
    /// were kept, or one too small to price, has none).
    pub fn load(dir: &Path) -> Result<Option<Forecast>> {
        let path = dir.join(JobFile::Plan.path());
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error).with_context(|| format!("{}: cannot read the plan", path.display())),
        };
        let forecast = serde_json::from_str(&text).with_context(|| format!("{}: a damaged plan", path.display()))?;
        Ok(Some(forecast))
    }

    /// Keeps the forecast in the job directory `dir`, replacing it durably.
    pub fn save(&self, dir: &Path) -> Result<()> {
        let json = serde_json::to_string_pretty(self)? + "\n";
        Ok(replace_durably(&dir.join(JobFile::Plan.path()), json.as_bytes(), "plan")?)
    }

    /// `leaper status`'s line: `peak 3.50e9 states (step 45), 5.93e10 states read a pass, 14.2
    /// GiB on disk at --mem-limit 4.0 GiB, about 9.3 h here`.
    pub fn status_line(&self) -> String {
        let exact = match &self.extrapolated {
            _ if self.probe_finished => " (exact: the probe ran the whole sweep)".to_string(),
            Some(source) => format!(" ({source})"),
            None => String::new(),
        };
        format!(
            "peak {} states (step {}), {} states read a pass, {} on disk at --mem-limit {}, about {} here{exact}",
            approx(self.peak_states as f64),
            self.peak_step,
            approx(self.states_read as f64),
            bytes(self.disk),
            bytes(self.mem_limit),
            duration(self.seconds)
        )
    }
}

/// Probes `job`'s pass of lanes `first` within `bounds` (on `threads`, out of core in a scratch
/// directory under `scratch`, or in memory without one) and prices the whole pass: the probe,
/// the predicted profile, the rates.
pub fn estimate(
    job: &dyn SweepJob,
    first: &Moduli,
    bounds: Bounds,
    threads: Option<usize>,
    scratch: Option<&Path>,
) -> Result<(Probe, Profile, Rates)> {
    let probe = crate::machine::with_threads(threads, || super::probe::probe(job, first, bounds, scratch))??;
    let profile = predict(job, &probe);
    let rates = Rates {
        disk_bytes_per_state: disk_bytes_per_state(job, first, &probe, &profile),
        record_bytes: 8.0 * (job.key_words() + first.len()) as f64,
        states_per_second: probe.rate(RATE_FLOOR),
        handed_per_left: probe.handed_per_left(),
        wire_bytes_per_record: WIRE_BYTES_PER_WORD * (job.key_words() + first.len()) as f64,
    };
    Ok((probe, profile, rates))
}

/// Bytes a state on disk at the heaviest step of `profile`: what the probe measured, where it
/// ran the whole sweep out of core; else the figure of a large run of the same lanes, reached
/// from the probe's own as layers grow ([`bytes::bytes_per_state`]).
fn disk_bytes_per_state(job: &dyn SweepJob, first: &Moduli, probe: &Probe, profile: &Profile) -> f64 {
    if probe.on_disk && probe.finished(job.steps()) {
        return probe.bytes_per_state();
    }
    let (_, read, left) = profile.heaviest_step();
    let measured = probe.on_disk.then(|| (probe.largest_states as f64, probe.bytes_per_state()));
    disk_bytes::bytes_per_state(Lanes::of(first), read.max(left) as f64, measured)
}

/// The probe's layers, then the rest of the pass as the layer model predicts it (a probe cut
/// short of two rows completed first: [`model::complete_rows`]), or, without rows, as the
/// frontier's widths let one guess it ([`widths`]).
pub fn predict(job: &dyn SweepJob, probe: &Probe) -> Profile {
    let measured = probe.profile.len();
    let hint = job.profile_hint();
    let known: Vec<u64> = probe.profile.iter().copied().chain([probe.next_states]).collect();
    let mut states = if probe.finished(job.steps()) {
        probe.profile.clone()
    } else if widths::applies(&hint, job.steps()) {
        widths::extend(&known, &hint.widths, job.steps()).iter().map(|s| s.round() as u64).collect()
    } else {
        let known = model::complete_rows(&known, hint.row, job.steps());
        model::extend(&known, job.steps(), &hint, hint.rows_reached.max(1)).iter().map(|s| s.round() as u64).collect()
    };
    // The pass ends where its layer empties: nothing after a zero is read.
    if let Some(end) = states.iter().position(|&s| s == 0) {
        states.truncate(end);
    }
    Profile { states, measured }
}
