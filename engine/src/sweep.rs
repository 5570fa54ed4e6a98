//! Driving a transition over a whole board: one step per cell, all cores, any store, any host.
//!
//! [`run_sweep`] sequences the passes (one per group of moduli) and the steps of each pass, keeps
//! the running totals and reconstructs the exact counts at the end. Where the steps run is the
//! host's business ([`SweepHost`]): in this process on a store ([`LocalSteps`]), or on a cluster.
//!
//! A local step is the job's [`SweepJob::expand_layer`] over every bucket of the store, then
//! the store's merge: what each thread does with its buckets is the kernel's
//! ([`crate::kernel`]), which the driver reaches only through that method.

use std::time::{Duration, Instant};

use rug::Integer;
use serde::{Deserialize, Serialize};

use crate::arith::{exact_count, ExactLane, Moduli};
use crate::key::RecordLayout;
use crate::store::{bucket_of_words, memory_store, LayerSummary, StateStore};
// What one step did, as the hosts' `step` returns it: defined with the seam, whose
// `SweepJob::expand_layer` returns it too.
use crate::error::{Error, Result};
pub use crate::transition::StepOutcome;
use crate::transition::{StepPosition, SweepJob};

/// How to count: the engine's options, whatever the problem.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepOptions {
    /// Extra moduli that cross-check the reconstruction (`--verify` uses 1).
    pub spare_moduli: usize,
    /// Moduli per pass; fewer per pass means less memory per state and more passes.
    pub moduli_per_pass: Option<usize>,
    pub counts: CountRoute,
}

/// How a sweep carries its counts (see [`crate::arith`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CountRoute {
    /// The exact lane the bound calls for ([`CountRoute::resolved`]), then residues only if a
    /// count reaches its cap.
    #[default]
    Automatic,
    /// One pass of exact 64-bit counts (8 bytes a state), then residues only if a count reaches
    /// `2^64 - 1`.
    Exact64,
    /// One pass of exact 128-bit counts (16 bytes a state), then residues only if a count
    /// reaches `2^128 - 1`.
    Exact128,
    /// Residues modulo the moduli the bound asks for, from the start.
    Residues,
}

/// The bound, in bits, from which the automatic route takes the 128-bit lane. Why there: the
/// counts leaper knows grow with their bounds along one line, `log2(count) = 0.69 bound - 16.9`
/// within half a bit for the knight's closed tours from 6 x 6 (bound 43.0 bits, count 13.3) to
/// 8 x 12 (bound 140.2, count 79.9), through 8 x 8 (87.7, 43.6), 9 x 8 (100.8, 52.7), 7 x 12
/// (119.4, 65.1), 8 x 11 (127.0, 70.9) and 9 x 10 (130.9, 74.0); open tours lie below it (8 x 8:
/// path bound 105.8, count 53.1). The line crosses 64 bits at a bound of 117: from 115 on, the
/// 64-bit lane would risk a whole wasted pass (a count that saturates falls back to residues
/// from the first step), below it every known count has at least 2 bits to spare
/// (docs/PERFORMANCE-LOG.md, "Exact 128-bit counts").
pub const EXACT_128_FROM_BOUND_BITS: f64 = 115.0;

impl CountRoute {
    /// The route a sweep whose counts are bounded by `2^bound_bits` takes: the automatic route
    /// resolved, any other as it is. Automatic: residues alone where one modulus covers the
    /// bound (the residue modulo `2^64` is then the count), the 128-bit lane from
    /// [`EXACT_128_FROM_BOUND_BITS`], the 64-bit lane between.
    pub fn resolved(self, bound_bits: f64) -> CountRoute {
        if self != CountRoute::Automatic {
            return self;
        }
        // One modulus covers the bound exactly when `Moduli::covering` would take one.
        if bound_bits.max(0.0).ceil() < 64.0 {
            CountRoute::Residues
        } else if bound_bits < EXACT_128_FROM_BOUND_BITS {
            CountRoute::Exact64
        } else {
            CountRoute::Exact128
        }
    }

    /// The exact lane of the route's first pass (`None`: residues from the start, or not
    /// resolved yet).
    pub fn exact_lane(self) -> Option<ExactLane> {
        match self {
            CountRoute::Exact64 => Some(ExactLane::Bits64),
            CountRoute::Exact128 => Some(ExactLane::Bits128),
            CountRoute::Automatic | CountRoute::Residues => None,
        }
    }
}

/// The passes of a sweep: their lanes, and the exact lane of the first pass where it has one,
/// which makes the others unnecessary unless one of its counts saturates.
#[derive(Clone, Debug)]
pub struct SweepPlan {
    /// Every pass's lanes, in order.
    pub passes: Vec<Moduli>,
    exact: Option<ExactLane>,
    /// Why no residue passes follow the exact pass, where the bound needs more moduli than
    /// leaper carries: a count that saturates cannot be counted, and the sweep says this.
    beyond_residues: Option<String>,
    /// The spare moduli of every pass (`--verify`), which check a count and rebuild nothing.
    spare_moduli: usize,
}

impl SweepPlan {
    /// How many passes the sweep runs, as far as `progress` shows: the exact pass alone until
    /// one of its reported counts saturates, then every pass.
    pub fn passes_to_run(&self, job: &dyn SweepJob, progress: &SweepProgress) -> usize {
        if self.exact.is_some() && !self.exact_pass_saturated(job, progress) {
            1
        } else {
            self.passes.len()
        }
    }

    /// Whether one of the exact pass's reported counts reached its lane's cap, as far as
    /// `progress` shows.
    fn exact_pass_saturated(&self, job: &dyn SweepJob, progress: &SweepProgress) -> bool {
        let Some(lane) = self.exact else { return false };
        let saturated = |lanes: &Vec<Vec<u64>>| {
            job.reported().any(|slot| {
                lanes.get(slot).is_some_and(|values| values.len() >= lane.words() && lane.is_saturated(values))
            })
        };
        if progress.pass == 0 {
            progress.next_cell > 0 && saturated(&progress.totals)
        } else {
            saturated(&progress.finished)
        }
    }

    /// Refuses a count that saturated in the exact pass where no residue pass can count it
    /// ([`SweepPlan::beyond_residues`]).
    fn check_saturation(&self, job: &dyn SweepJob, progress: &SweepProgress) -> Result<()> {
        match &self.beyond_residues {
            Some(why) if self.exact_pass_saturated(job, progress) => {
                let bits = self.exact.map_or(64, ExactLane::bits);
                Err(Error::InvalidRequest(format!(
                    "a count reached 2^{bits} - 1 in the exact {bits}-bit pass, and cannot be counted again modulo \
                     primes: {why}"
                )))
            }
            _ => Ok(()),
        }
    }

    /// The lanes of the first `passes` passes, in the order their counts are kept.
    pub fn lanes(&self, passes: usize) -> Moduli {
        Moduli::concatenated(&self.passes[..passes])
    }

    /// The exact lane of the first pass, where it has one.
    pub fn exact_lane(&self) -> Option<ExactLane> {
        self.exact
    }

    /// Whether pass `pass` is the exact pass.
    fn is_exact_pass(&self, pass: usize) -> bool {
        self.exact.is_some() && pass == 0
    }
}

/// Progress of one step, for logs and benchmarks.
#[derive(Clone, Debug)]
pub struct StepReport {
    pub pass: usize,
    pub passes: usize,
    pub step: usize,
    pub steps: usize,
    pub position: StepPosition,
    pub states_in: u64,
    pub states_emitted: u64,
    pub layer: LayerSummary,
    pub elapsed: Duration,
    /// The step's share of the wall clock: from the start of the commit before it to the start
    /// of its own (what the ETA learns from; [`SweepProgress::step_timings`]).
    pub share: Duration,
    /// `(slot, decimal)` of the reported slots whose counts became final at this step.
    pub settled: Vec<(usize, String)>,
}

/// The result of a sweep.
#[derive(Clone, Debug)]
pub struct SweepReport {
    /// `(slot, count)` for each reported slot.
    pub counts: Vec<(usize, Integer)>,
    pub moduli: Moduli,
    pub peak_states: u64,
    pub peak_bytes: u64,
    pub states_processed: u64,
    /// Seconds spent in steps, over every run of a resumed job.
    pub step_seconds: f64,
    /// States read by each step of the first pass (the layer profile; none past
    /// [`PROFILE_KEPT`] steps).
    pub profile: Vec<u64>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Where a sweep stands between two steps. Together with the store's current layer it is all a
/// sweep needs to go on after a crash; checkpoints record it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SweepProgress {
    pub pass: usize,
    /// The next step (cell) of this pass; `steps` once the pass is over.
    pub next_cell: usize,
    /// Per slot (for tours: per board length), the residues of the finished passes, in moduli
    /// order.
    pub finished: Vec<Vec<u64>>,
    /// Per slot, the residues this pass has counted so far.
    pub totals: Vec<Vec<u64>>,
    pub states_processed: u64,
    pub peak_states: u64,
    pub peak_bytes: u64,
    /// Passes the sweep runs, as far as known ([`SweepPlan::passes_to_run`]); 0 in checkpoints
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub passes: usize,
    /// Microseconds spent in steps, over every run (an integer: checkpoints hold no floats, so
    /// their checksums survive a round trip).
    pub step_micros: u64,
    /// `(slot, decimal)` of the reported slots already final: in the last pass a slot is final
    /// once its last step ([`SweepJob::last_step_of`]) is done, long before the sweep ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settled: Vec<(usize, String)>,
    /// States read by each step of the first pass so far: the layer profile an ETA models.
    /// None past [`PROFILE_KEPT`] steps (nor from a checkpoint of an older build that kept
    /// none): a checkpoint after every step must not grow with the sweep's length.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profile: Vec<u64>,
    /// The last committed steps' shares of the wall clock in microseconds
    /// ([`StepReport::share`]), at most [`STEP_TIMINGS_KEPT`], oldest first: what the ETA learns
    /// from, so that `leaper status` and a resumed display estimate as the running display did
    /// (checkpoints of older builds hold none, or every step's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_timings: Vec<u64>,
}

/// The most steps of a first pass whose layers a checkpoint keeps ([`SweepProgress::profile`]):
/// every sweep of a board leaper counts (a few hundred steps), not a graph of 100,000 vertices,
/// whose every checkpoint would otherwise hold 100,000 numbers.
pub const PROFILE_KEPT: usize = 4096;

/// The most step timings a checkpoint keeps ([`SweepProgress::step_timings`]), the latest: the
/// ETA weighs a step 0.9 times the one after it, so a step this far back weighs 2e-12 of the
/// last.
pub const STEP_TIMINGS_KEPT: usize = 256;

/// Where the steps of a sweep run: in this process on a store ([`LocalSteps`]), or on a
/// cluster. The driver ([`run_sweep`]) only sequences them and keeps the totals.
pub trait SweepHost {
    /// Gets pass `progress.pass` ready: an empty layer when `progress.next_cell == 0`, otherwise
    /// the layer committed together with `progress`.
    fn begin_pass(&mut self, moduli: &Moduli, progress: &SweepProgress) -> Result<()>;

    /// Makes the start state (a record: key words, then residues) the current layer.
    fn seed(&mut self, record: &[u64]) -> Result<()>;

    /// Expands the current layer at `step` and merges the next one.
    fn step(&mut self, step: usize, moduli: &Moduli) -> Result<StepOutcome>;

    /// Makes `progress` durable together with the current layer (a host that paces its
    /// checkpoints may let a step within a pass go uncommitted); older layers may go after.
    fn commit(&mut self, progress: &SweepProgress) -> Result<()>;

    /// The pass is over and committed: its last layer may go; `last`, no pass follows.
    fn end_pass(&mut self, last: bool) -> Result<()>;

    /// Sees every finished step.
    fn observe(&mut self, _step: &StepReport) {}
}

/// What a host wrapped in [`Watched`] adds to its inner host's steps: a look at each step's
/// outcome (which may stop the sweep) and at each finished step. Both default to nothing.
pub trait StepWatch {
    /// The outcome of step `step`, before the driver sees it; an error stops the sweep.
    fn stepped(&mut self, _step: usize, _outcome: &StepOutcome) -> Result<()> {
        Ok(())
    }

    /// A finished step, after the inner host saw it.
    fn observe(&mut self, _step: &StepReport) {}
}

/// A host that runs its steps on `inner` and shows them to `watch` (the display and the logs;
/// a cap on the layers): every other call passes through, so a wrapper writes only what it adds.
pub struct Watched<'h, W> {
    pub inner: &'h mut dyn SweepHost,
    pub watch: W,
}

impl<W: StepWatch> SweepHost for Watched<'_, W> {
    fn begin_pass(&mut self, moduli: &Moduli, progress: &SweepProgress) -> Result<()> {
        self.inner.begin_pass(moduli, progress)
    }

    fn seed(&mut self, record: &[u64]) -> Result<()> {
        self.inner.seed(record)
    }

    fn step(&mut self, step: usize, moduli: &Moduli) -> Result<StepOutcome> {
        let outcome = self.inner.step(step, moduli)?;
        self.watch.stepped(step, &outcome)?;
        Ok(outcome)
    }

    fn commit(&mut self, progress: &SweepProgress) -> Result<()> {
        self.inner.commit(progress)
    }

    fn end_pass(&mut self, last: bool) -> Result<()> {
        self.inner.end_pass(last)
    }

    fn observe(&mut self, step: &StepReport) {
        self.inner.observe(step);
        self.watch.observe(step);
    }
}

/// Supplies the stores of an in-process sweep and makes its progress durable.
pub trait StoreSource {
    /// The store for pass `progress.pass`, for records of `layout`: empty when
    /// `progress.next_cell == 0`, otherwise holding the layer committed together with `progress`.
    fn store(&mut self, layout: RecordLayout, moduli: &Moduli, progress: &SweepProgress)
        -> Result<Box<dyn StateStore>>;

    /// Makes `progress` durable together with the store's current layer, or lets this step go
    /// uncommitted (a sweep of many small steps commits about once a second): says whether it
    /// committed. The store keeps the layer the last commit named until a later one is.
    fn commit(&mut self, _progress: &SweepProgress, _store: &mut dyn StateStore) -> Result<bool> {
        Ok(true)
    }

    /// Sees every finished step.
    fn observe(&mut self, _step: &StepReport) {}
}

/// A host without checkpoints: a fresh store per pass from a closure.
pub struct StoreFactory<F>(pub F);

impl<F: FnMut(RecordLayout, &Moduli) -> Result<Box<dyn StateStore>>> StoreSource for StoreFactory<F> {
    fn store(&mut self, layout: RecordLayout, moduli: &Moduli, _: &SweepProgress) -> Result<Box<dyn StateStore>> {
        (self.0)(layout, moduli)
    }
}

/// Steps in this process, on all cores, over the stores a [`StoreSource`] supplies.
pub struct LocalSteps<'a> {
    job: &'a dyn SweepJob,
    host: &'a mut dyn StoreSource,
    store: Option<Box<dyn StateStore>>,
}

impl<'a> LocalSteps<'a> {
    pub fn new(job: &'a dyn SweepJob, host: &'a mut dyn StoreSource) -> Self {
        LocalSteps { job, host, store: None }
    }

    fn store(&mut self) -> &mut dyn StateStore {
        self.store.as_deref_mut().expect("a pass has begun")
    }
}

impl SweepHost for LocalSteps<'_> {
    fn begin_pass(&mut self, moduli: &Moduli, progress: &SweepProgress) -> Result<()> {
        self.store = Some(self.host.store(self.job.layout(moduli.len()), moduli, progress)?);
        Ok(())
    }

    fn seed(&mut self, record: &[u64]) -> Result<()> {
        let key_words = self.job.key_words();
        let store = self.store();
        store.emit(bucket_of_words(&record[..key_words], store.buckets()), record)?;
        store.finish_step()?;
        Ok(())
    }

    fn step(&mut self, step: usize, moduli: &Moduli) -> Result<StepOutcome> {
        let job = self.job;
        let store = self.store();
        // Only the buckets that hold states, where the store knows: a layer of a few states
        // (a graph's long thin stretches) would otherwise cost a task per bucket, hundreds of
        // them, at every step.
        let buckets = store
            .filled_buckets()
            .unwrap_or_else(|| (0..store.buckets()).filter(|&bucket| store.bucket_states(bucket) != Some(0)).collect());
        let mut outcome = job.expand_layer(step, moduli, store, &buckets)?;
        outcome.layer = store.finish_step()?;
        Ok(outcome)
    }

    fn commit(&mut self, progress: &SweepProgress) -> Result<()> {
        let store = self.store.as_deref_mut().expect("a pass has begun");
        if self.host.commit(progress, store)? {
            store.release_older_layers()?;
        }
        Ok(())
    }

    fn end_pass(&mut self, _last: bool) -> Result<()> {
        if let Some(mut store) = self.store.take() {
            store.discard()?;
        }
        Ok(())
    }

    fn observe(&mut self, step: &StepReport) {
        self.host.observe(step);
    }
}

/// The passes a sweep of `job` counts with: where the route has an exact lane
/// ([`CountRoute::resolved`]), its pass first (with the spare moduli's residues beside the lane,
/// `--verify`), then the residue passes, which run only if one of its counts saturates.
pub fn plan_moduli(job: &dyn SweepJob, options: &SweepOptions) -> Result<SweepPlan> {
    let exact = options.counts.resolved(job.bound_bits()).exact_lane();
    let moduli = match Moduli::covering(job.bound_bits(), options.spare_moduli) {
        // A bound beyond what residues carry may still be far above the count (a long thin
        // graph's: a ladder of 100,000 vertices is bounded by 86,000 bits and has one cycle):
        // the exact pass alone, refused only if a count saturates. A board's is refused now.
        Err(Error::InvalidRequest(why)) if job.counts_may_be_far_below_bound() => match exact {
            Some(lane) => {
                let passes = vec![Moduli::exact(lane, options.spare_moduli)?];
                let spare_moduli = options.spare_moduli;
                return Ok(SweepPlan { passes, exact, beyond_residues: Some(why), spare_moduli });
            }
            None => return Err(Error::InvalidRequest(why)),
        },
        moduli => moduli?,
    };
    let residue_passes = moduli.passes(options.moduli_per_pass.unwrap_or(moduli.len()));
    let passes = match exact {
        Some(lane) => std::iter::once(Moduli::exact(lane, options.spare_moduli)?).chain(residue_passes).collect(),
        None => residue_passes,
    };
    Ok(SweepPlan { passes, exact, beyond_residues: None, spare_moduli: options.spare_moduli })
}

/// Runs the sweep of `job` in this process on the stores `host` supplies, starting from `start`
/// (`SweepProgress::default()` for a new count, a checkpoint's progress to resume).
pub fn sweep_in_process(
    job: &dyn SweepJob,
    options: &SweepOptions,
    host: &mut dyn StoreSource,
    start: SweepProgress,
) -> Result<SweepReport> {
    run_sweep(job, &plan_moduli(job, options)?, &mut LocalSteps::new(job, host), start)
}

/// Counts `job` from its start in this process, every layer in memory in `buckets` partitions
/// within `mem_limit` bytes (`u64::MAX`: none): the shortest way from a job to its counts, for
/// a count on the side of another and for the tests.
pub fn sweep_in_memory(
    job: &dyn SweepJob,
    options: &SweepOptions,
    buckets: usize,
    mem_limit: u64,
) -> Result<SweepReport> {
    let mut stores = StoreFactory(|layout, moduli: &Moduli| memory_store(layout, buckets, moduli.clone(), mem_limit));
    sweep_in_process(job, options, &mut stores, SweepProgress::default())
}

/// Runs the sweep of `job` in the passes of `plan` (from [`plan_moduli`]), with the steps run by
/// `host`, starting from `start`; returns the exact count of every reported slot.
pub fn run_sweep(
    job: &dyn SweepJob,
    plan: &SweepPlan,
    host: &mut dyn SweepHost,
    start: SweepProgress,
) -> Result<SweepReport> {
    let passes = &plan.passes;
    let (slots, steps) = (job.slots(), job.steps());
    tracing::info!(
        steps,
        key_bits = 64 * job.key_words(),
        lanes = %plan.passes[0],
        passes = passes.len(),
        exact = plan.exact.map(ExactLane::bits),
        "sweep planned"
    );

    let mut progress = start;
    if progress == SweepProgress::default() {
        progress.finished = vec![Vec::new(); slots];
    }
    check_progress(&progress, passes, slots, steps)?;
    if progress.pass > 0 || progress.next_cell > 0 {
        tracing::info!(pass = progress.pass + 1, steps_done = progress.next_cell, "resuming from the checkpoint");
    }
    while progress.pass < plan.passes_to_run(job, &progress) {
        let pass_moduli = &passes[progress.pass];
        if progress.next_cell == 0 {
            progress.totals = vec![vec![0; pass_moduli.len()]; slots];
        }
        host.begin_pass(pass_moduli, &progress)?;
        // Counts are final when their slot is done in the exact pass (if below its cap) or in
        // the last residue pass.
        let settle = (plan.is_exact_pass(progress.pass) || progress.pass + 1 == passes.len()).then(|| Settle {
            moduli: plan.lanes(progress.pass + 1),
            spare: plan.spare_moduli,
            exact_pass: plan.is_exact_pass(progress.pass),
        });
        run_pass(job, plan, settle, host, &mut progress)?;
        for (finished, totals) in progress.finished.iter_mut().zip(std::mem::take(&mut progress.totals)) {
            finished.extend(totals);
        }
        progress.pass += 1;
        progress.next_cell = 0;
        let to_run = plan.passes_to_run(job, &progress);
        if plan.is_exact_pass(progress.pass - 1) && to_run > 1 {
            tracing::warn!(
                passes = to_run - 1,
                "a count reached the cap of the exact pass ({}); counting again modulo primes",
                passes[0]
            );
        }
        progress.passes = to_run;
        host.commit(&progress)?;
        host.end_pass(progress.pass >= to_run)?;
    }
    plan.check_saturation(job, &progress)?;

    let moduli = plan.lanes(progress.pass);
    let counts = job
        .reported()
        .map(|slot| {
            let name = job.slot_name(slot);
            Ok((slot, exact_count(&moduli, &progress.finished[slot], plan.spare_moduli, &name)?))
        })
        .collect::<Result<Vec<_>>>()?;
    // A count reported early must be the count at the end: the slot's last step was wrong if not.
    for (slot, early) in &progress.settled {
        let at_end = counts.iter().find(|(s, _)| s == slot).map(|(_, count)| count.to_string());
        if at_end.as_deref() != Some(early.as_str()) {
            return Err(Error::Bug(format!(
                "{} was reported final as {early} but the sweep ended with {at_end:?}",
                job.slot_name(*slot)
            )));
        }
    }
    Ok(SweepReport {
        counts,
        moduli,
        peak_states: progress.peak_states,
        peak_bytes: progress.peak_bytes,
        states_processed: progress.states_processed,
        step_seconds: progress.step_micros as f64 / 1e6,
        profile: progress.profile,
    })
}

/// A checkpoint's progress must fit the sweep it resumes.
fn check_progress(progress: &SweepProgress, passes: &[Moduli], slots: usize, steps: usize) -> Result<()> {
    let finished_width: usize = passes.iter().take(progress.pass).map(Moduli::len).sum();
    let fits = progress.pass <= passes.len()
        && progress.next_cell <= steps
        && progress.finished.len() == slots
        && progress.finished.iter().all(|r| r.len() == finished_width)
        && (progress.next_cell == 0
            || (progress.totals.len() == slots
                && progress.totals.iter().all(|r| r.len() == passes[progress.pass].len())));
    if fits {
        Ok(())
    } else {
        // What each side counts in, by name: a spec edited to other lanes shows here.
        let held = progress.finished.first().map_or(0, Vec::len);
        let lanes: Vec<String> = passes.iter().map(Moduli::to_string).collect();
        Err(Error::InvalidRequest(format!(
            "the checkpoint (pass {}, step {}, {held} words of counts a slot from the passes before) does not fit \
             this sweep ({} passes: {}; {steps} steps, {slots} slots): the job directory belongs to another sweep \
             (was job.toml edited? restore it, or resume with the leaper release that started the job)",
            progress.pass,
            progress.next_cell,
            passes.len(),
            lanes.join(", then ")
        )))
    }
}

/// In the exact pass and the last pass, what reconstructs a count the moment its slot is final:
/// every lane (the finished passes' and this one's) and how many of them are spare.
struct Settle {
    moduli: Moduli,
    spare: usize,
    /// The pass is the exact pass: a saturated count is not known yet (the residue passes follow).
    exact_pass: bool,
}

impl Settle {
    /// The reported slots final after `cell` (every one once the layer is empty) that
    /// `progress` does not hold yet, reconstructed and recorded in it.
    fn after(
        &self,
        job: &dyn SweepJob,
        cell: usize,
        emptied: bool,
        progress: &mut SweepProgress,
    ) -> Result<Vec<(usize, String)>> {
        let mut settled = Vec::new();
        for slot in job.reported() {
            let done = emptied || job.last_step_of(slot) <= cell;
            if !done || progress.settled.iter().any(|(s, _)| *s == slot) {
                continue;
            }
            let residues: Vec<u64> = progress.finished[slot].iter().chain(&progress.totals[slot]).copied().collect();
            if self.exact_pass && self.moduli.is_saturated(&residues) {
                continue; // Unknown until the residue passes.
            }
            let count = exact_count(&self.moduli, &residues, self.spare, &job.slot_name(slot))?;
            settled.push((slot, count.to_string()));
        }
        progress.settled.extend(settled.iter().cloned());
        Ok(settled)
    }
}

/// The rest of one pass over the board with one set of moduli, from `progress.next_cell`.
fn run_pass(
    job: &dyn SweepJob,
    plan: &SweepPlan,
    settle: Option<Settle>,
    host: &mut dyn SweepHost,
    progress: &mut SweepProgress,
) -> Result<()> {
    let moduli = &plan.passes[progress.pass];
    let steps = job.steps();
    if progress.next_cell == 0 {
        host.seed(&job.start_record(moduli))?;
    }
    // A step's share of the wall clock runs from the start of the commit before it: so the
    // commits and the display count, and the shares of a run add up to its time.
    let mut share_started = Instant::now();
    while progress.next_cell < steps {
        let cell = progress.next_cell;
        let position = job.position(cell);
        let (row, col) = (position.row, position.col);
        // Logs count passes, steps, rows and columns from 1, as `leaper status` does.
        let _span =
            tracing::info_span!("step", pass = progress.pass + 1, step = cell + 1, row = row + 1, col = col + 1)
                .entered();
        let step_started = Instant::now();
        let step = host.step(cell, moduli)?;
        let (states_in, layer) = (step.read, step.layer);
        for (total, closed) in progress.totals.iter_mut().zip(step.closed.chunks(moduli.len())) {
            moduli.add_assign(total, closed);
        }
        let elapsed = step_started.elapsed();
        progress.next_cell = if layer.states == 0 { steps } else { cell + 1 };
        progress.states_processed += states_in;
        progress.peak_states = progress.peak_states.max(layer.states);
        progress.peak_bytes = progress.peak_bytes.max(layer.bytes);
        progress.step_micros += elapsed.as_micros() as u64;
        if progress.pass == 0 {
            // In step with the cells while it is kept; else none.
            if progress.profile.len() == cell && cell < PROFILE_KEPT {
                progress.profile.push(states_in);
            } else {
                progress.profile.clear();
            }
        }
        let settled = match &settle {
            Some(settle) => settle.after(job, cell, layer.states == 0, progress)?,
            None => Vec::new(),
        };
        progress.passes = plan.passes_to_run(job, progress);
        let share = share_started.elapsed();
        share_started = Instant::now();
        progress.step_timings.push(share.as_micros() as u64);
        let timings = progress.step_timings.len();
        progress.step_timings.drain(..timings.saturating_sub(STEP_TIMINGS_KEPT));
        host.commit(progress)?;
        host.observe(&StepReport {
            pass: progress.pass,
            passes: progress.passes,
            step: cell,
            steps,
            position,
            states_in,
            states_emitted: step.emitted,
            layer,
            elapsed,
            share,
            settled,
        });
    }
    Ok(())
}
