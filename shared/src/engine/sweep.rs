//! Driving a transition over a whole board: one step per cell, all cores, any store, any host.
//!
//! [`run_sweep`] sequences the passes (one per group of moduli) and the steps of each pass, keeps
//! the running totals and reconstructs the exact counts at the end. Where the steps run is the
//! host's business ([`SweepHost`]): in this process on a store ([`LocalSteps`]), or on a cluster.
//!
//! A local step ([`expand_layer`]) reads the buckets of the current layer in parallel (rayon).
//! Each thread expands its states, stages successors per target bucket and hands full stages to
//! the store; closed counts are summed per slot in thread-local accumulators. Where the
//! transition names neighbourhoods and the store takes it, a bucket is expanded group by group
//! and its successors merged before they are staged ([`crate::engine::grouped`]).

use std::any::Any;
use std::cell::RefCell;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rug::Integer;
use serde::{Deserialize, Serialize};

use crate::engine::arith::{exact_count, Moduli, SATURATING};
use crate::engine::grouped::{expand_bucket_grouped, GroupBuffers, ReadingPlan, TABLE_ENTRIES};
use crate::engine::key::{append_words, RecordLayout, StateKey};
use crate::engine::store::{bucket_of, bucket_of_words, LayerSummary, StateStore};
use crate::engine::transition::{StepPosition, SweepJob, Transition};
use crate::error::{Error, Result};

/// Successors staged per target bucket before they are handed to the store: each hand-over
/// takes the bucket's lock and runs the store's insert loop, so longer stages amortise both
/// (the 7x8 sweep: 64 35.6 s, 256 31.5 s, 1024 29.3 s; see docs/PERFORMANCE.md). A stage costs
/// `STAGE` records per bucket per thread, which the disk store counts against its budget.
pub(crate) const STAGE: usize = 1024;

/// Records per bucket per thread staged as records the store must merge (a group split for its
/// size, a bucket streamed: see [`crate::engine::grouped`]): a quarter of a stage, since most
/// steps stage none, and the disk store counts them against its budget too.
pub(crate) const LOOSE_STAGE: usize = STAGE / 4;

/// How to count: the engine's options, whatever the problem.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepOptions {
    /// Extra moduli that cross-check the reconstruction (`--verify` uses 1).
    pub spare_moduli: usize,
    /// Moduli per pass; fewer per pass means less memory per state and more passes.
    pub moduli_per_pass: Option<usize>,
    pub counts: CountRoute,
}

/// How a sweep carries its counts (see [`crate::engine::arith`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CountRoute {
    /// One pass of exact 64-bit counts (8 bytes per state) where the bound asks for more than
    /// one modulus; the residue passes follow only if a count reaches `2^64 - 1`.
    #[default]
    ExactFirst,
    /// Residues modulo the moduli the bound asks for, from the start: for counts known to be
    /// past `2^64`, where an exact pass would be wasted.
    Residues,
}

/// The passes of a sweep: their lanes, and whether the first is the exact 64-bit pass that
/// makes the others unnecessary unless one of its counts saturates.
#[derive(Clone, Debug)]
pub struct SweepPlan {
    /// Every pass's lanes, in order.
    pub passes: Vec<Moduli>,
    exact_first: bool,
}

impl SweepPlan {
    /// How many passes the sweep runs, as far as `progress` shows: the exact pass alone until
    /// one of its reported counts saturates, then every pass.
    pub fn passes_to_run(&self, job: &dyn SweepJob, progress: &SweepProgress) -> usize {
        let saturated = |lanes: &Vec<Vec<u64>>| {
            job.reported().any(|slot| lanes.get(slot).and_then(|lane| lane.first()) == Some(&SATURATING))
        };
        let exact_pass_saturated = if progress.pass == 0 {
            progress.next_cell > 0 && saturated(&progress.totals)
        } else {
            saturated(&progress.finished)
        };
        if self.exact_first && !exact_pass_saturated {
            1
        } else {
            self.passes.len()
        }
    }

    /// The lanes of the first `passes` passes, in the order their counts are kept.
    pub fn lanes(&self, passes: usize) -> Moduli {
        Moduli::from_values(self.passes[..passes].iter().flat_map(|pass| pass.values().iter().copied()).collect())
    }

    /// Whether pass `pass` is the exact 64-bit pass.
    fn is_exact_pass(&self, pass: usize) -> bool {
        self.exact_first && pass == 0
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
    /// States read by each step of the first pass (the layer profile).
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profile: Vec<u64>,
    /// Each committed step's share of the wall clock in microseconds ([`StepReport::share`]),
    /// every pass, oldest first: what the ETA learns from, so that `leaper status` and a resumed
    /// display estimate as the running display did (checkpoints of older builds hold none, or
    /// only their later steps).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_timings: Vec<u64>,
}

/// What one step did, wherever it ran.
#[derive(Clone, Debug, Default)]
pub struct StepOutcome {
    /// Residues of what the step closed, `slots * moduli` (index: slot).
    pub closed: Vec<u64>,
    /// States read from the current layer and successors emitted.
    pub read: u64,
    pub emitted: u64,
    /// Records handed to the store: `emitted`, or fewer where successors were merged first
    /// ([`crate::engine::grouped`]).
    pub handed: u64,
    /// The merged next layer.
    pub layer: LayerSummary,
}

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

    /// Makes `progress` durable together with the current layer; older layers may go after.
    fn commit(&mut self, progress: &SweepProgress) -> Result<()>;

    /// The pass is over and committed: its last layer may go; `last`, no pass follows.
    fn end_pass(&mut self, last: bool) -> Result<()>;

    /// Sees every finished step.
    fn observe(&mut self, _step: &StepReport) {}
}

/// Supplies the stores of an in-process sweep and makes its progress durable.
pub trait StoreHost {
    /// The store for pass `progress.pass`, for records of `layout`: empty when
    /// `progress.next_cell == 0`, otherwise holding the layer committed together with `progress`.
    fn store(&mut self, layout: RecordLayout, moduli: &Moduli, progress: &SweepProgress)
        -> Result<Box<dyn StateStore>>;

    /// Makes `progress` durable together with the store's current layer. The store keeps the
    /// previous layer until this returns.
    fn commit(&mut self, _progress: &SweepProgress, _store: &dyn StateStore) -> Result<()> {
        Ok(())
    }

    /// Sees every finished step.
    fn observe(&mut self, _step: &StepReport) {}
}

/// A host without checkpoints: a fresh store per pass from a closure.
pub struct StoreFactory<F>(pub F);

impl<F: FnMut(RecordLayout, &Moduli) -> Result<Box<dyn StateStore>>> StoreHost for StoreFactory<F> {
    fn store(&mut self, layout: RecordLayout, moduli: &Moduli, _: &SweepProgress) -> Result<Box<dyn StateStore>> {
        (self.0)(layout, moduli)
    }
}

/// Steps in this process, on all cores, over the stores a [`StoreHost`] supplies.
pub struct LocalSteps<'a> {
    job: &'a dyn SweepJob,
    host: &'a mut dyn StoreHost,
    store: Option<Box<dyn StateStore>>,
}

impl<'a> LocalSteps<'a> {
    pub fn new(job: &'a dyn SweepJob, host: &'a mut dyn StoreHost) -> Self {
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
        let buckets: Vec<usize> = (0..store.buckets()).collect();
        let mut outcome = job.expand_layer(step, moduli, store, &buckets)?;
        outcome.layer = store.finish_step()?;
        Ok(outcome)
    }

    fn commit(&mut self, progress: &SweepProgress) -> Result<()> {
        let store = self.store.as_deref_mut().expect("a pass has begun");
        self.host.commit(progress, store)?;
        store.release_older_layers()
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

/// The passes a sweep of `job` counts with. The exact 64-bit pass comes first where it can
/// save work: the bound asks for more than one modulus and no spare modulus is to check the
/// residues (`--verify` is the residue route's own check).
pub fn plan_moduli(job: &dyn SweepJob, options: &SweepOptions) -> Result<SweepPlan> {
    let moduli = Moduli::covering(job.bound_bits(), options.spare_moduli)?;
    let residue_passes = moduli.passes(options.moduli_per_pass.unwrap_or(moduli.len()));
    let exact_first = options.counts == CountRoute::ExactFirst && options.spare_moduli == 0 && moduli.len() > 1;
    let passes = if exact_first {
        std::iter::once(Moduli::saturating()).chain(residue_passes).collect()
    } else {
        residue_passes
    };
    Ok(SweepPlan { passes, exact_first })
}

/// Runs the sweep of `job` in this process on the stores `host` supplies, starting from `start`
/// (`SweepProgress::default()` for a new count, a checkpoint's progress to resume).
pub fn sweep_in_process(
    job: &dyn SweepJob,
    options: &SweepOptions,
    host: &mut dyn StoreHost,
    start: SweepProgress,
) -> Result<SweepReport> {
    run_sweep(job, options, &mut LocalSteps::new(job, host), start)
}

/// Runs the sweep of `job`, with the steps run by `host`, starting from `start`; returns the
/// exact count of every reported slot.
pub fn run_sweep(
    job: &dyn SweepJob,
    options: &SweepOptions,
    host: &mut dyn SweepHost,
    start: SweepProgress,
) -> Result<SweepReport> {
    let plan = plan_moduli(job, options)?;
    let passes = &plan.passes;
    let (slots, steps) = (job.slots(), job.steps());
    tracing::info!(
        steps,
        key_bits = 64 * job.key_words(),
        moduli = plan.lanes(passes.len()).len() - usize::from(plan.exact_first),
        passes = passes.len(),
        exact_first = plan.exact_first,
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
        let settle = (plan.is_exact_pass(progress.pass) || progress.pass + 1 == passes.len())
            .then(|| Settle { moduli: plan.lanes(progress.pass + 1), spare: options.spare_moduli });
        run_pass(job, &plan, settle, host, &mut progress)?;
        for (finished, totals) in progress.finished.iter_mut().zip(std::mem::take(&mut progress.totals)) {
            finished.extend(totals);
        }
        progress.pass += 1;
        progress.next_cell = 0;
        let to_run = plan.passes_to_run(job, &progress);
        if plan.is_exact_pass(progress.pass - 1) && to_run > 1 {
            tracing::warn!(
                passes = to_run - 1,
                "a count reached 2^64 - 1 in the exact 64-bit pass; counting again modulo primes"
            );
        }
        progress.passes = to_run;
        host.commit(&progress)?;
        host.end_pass(progress.pass >= to_run)?;
    }

    let moduli = plan.lanes(progress.pass);
    let counts = job
        .reported()
        .map(|slot| {
            let name = job.slot_name(slot);
            Ok((slot, exact_count(&moduli, &progress.finished[slot], options.spare_moduli, &name)?))
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
        Err(Error::InvalidRequest(format!(
            "the checkpoint (pass {}, step {}) does not fit this sweep ({} passes, {steps} steps, {slots} slots): \
             the job directory belongs to another sweep (was job.toml edited? restore it, or resume with the leaper \
             release that started the job)",
            progress.pass,
            progress.next_cell,
            passes.len()
        )))
    }
}

/// In the exact pass and the last pass, what reconstructs a count the moment its slot is final:
/// every lane (the finished passes' and this one's) and how many of them are spare.
struct Settle {
    moduli: Moduli,
    spare: usize,
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
            if self.moduli.is_saturating() && residues[0] == SATURATING {
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
            progress.profile.push(states_in);
        }
        let settled = match &settle {
            Some(settle) => settle.after(job, cell, layer.states == 0, progress)?,
            None => Vec::new(),
        };
        progress.passes = plan.passes_to_run(job, progress);
        let share = share_started.elapsed();
        share_started = Instant::now();
        progress.step_timings.push(share.as_micros() as u64);
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

/// Per-thread state of a step: staged successors and closed sums.
pub(crate) struct Expander<K: StateKey> {
    /// Per target bucket, records (key words, then residues) waiting to be handed to the store:
    /// merged ones where the bucket is expanded group by group, else as emitted.
    stages: Vec<Vec<u64>>,
    /// Per target bucket, records of a group too large to merge whole (grouped expansion only),
    /// which the store must merge; made on first use.
    loose: Vec<Vec<u64>>,
    /// Residues of what closed, `slots * width`, indexed by slot.
    pub(crate) closed: Vec<u64>,
    /// Successors the transition emitted.
    pub(crate) emitted: u64,
    /// Records handed to the store (staged).
    handed: u64,
    /// States read from the current layer.
    pub(crate) read: u64,
    /// Buffers of the grouped expansion (transitions with neighbourhoods), made on first use.
    pub(crate) groups: Option<GroupBuffers<K>>,
    /// Entries a group's table may hold before it is handed on, split
    /// ([`crate::engine::grouped::TABLE_ENTRIES`], or fewer within a store's reading budget).
    pub(crate) group_table_entries: usize,
    /// Words a record: key words, then residues.
    stride: usize,
}

thread_local! {
    /// A thread's expander from its last step, buffers and all (see [`expand_layer`]).
    static SPARE_EXPANDER: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

/// Whether this thread keeps an expander from an earlier step (tests).
#[cfg(test)]
pub(crate) fn thread_keeps_an_expander() -> bool {
    SPARE_EXPANDER.with(|spare| spare.borrow().is_some())
}

impl<K: StateKey> Expander<K> {
    /// Stages the merged `record` for `bucket` (no other record of the step has its key),
    /// handing the stage to the store when it is full.
    #[inline]
    pub(crate) fn stage(&mut self, store: &dyn StateStore, bucket: usize, record: &[u64]) -> Result<()> {
        self.handed += 1;
        stage_into(store, &mut self.stages[bucket], STAGE, bucket, record, true)
    }

    /// Stages `record` for `bucket` where other records may share its key.
    pub(crate) fn stage_loose(&mut self, store: &dyn StateStore, bucket: usize, record: &[u64]) -> Result<()> {
        self.handed += 1;
        if self.loose.is_empty() {
            self.loose = vec![Vec::new(); self.stages.len()];
        }
        stage_into(store, &mut self.loose[bucket], LOOSE_STAGE, bucket, record, false)
    }

    /// Hands every stage to the store: `merged` says whether `stages` holds merged records.
    fn flush(&mut self, store: &dyn StateStore, merged: bool) -> Result<()> {
        let stages = self.stages.iter_mut().map(|stage| (stage, merged));
        let loose = self.loose.iter_mut().map(|stage| (stage, false));
        for (bucket, (stage, merged)) in stages.enumerate().chain(loose.enumerate()) {
            if !stage.is_empty() {
                hand_to(store, bucket, stage, merged)?;
                stage.clear();
            }
        }
        Ok(())
    }
}

/// Appends `record` to `stage`, the stage of `bucket`, handing the stage to the store when it
/// holds `records` records.
#[inline]
fn stage_into(
    store: &dyn StateStore,
    stage: &mut Vec<u64>,
    records: usize,
    bucket: usize,
    record: &[u64],
    merged: bool,
) -> Result<()> {
    append_words(stage, record);
    if stage.len() >= records * record.len() {
        hand_to(store, bucket, stage, merged)?;
        stage.clear();
    }
    Ok(())
}

/// Gives `records` to the store's `bucket`: as merged (see [`StateStore::emit_merged`]) or not.
fn hand_to(store: &dyn StateStore, bucket: usize, records: &[u64], merged: bool) -> Result<()> {
    if merged {
        store.emit_merged(bucket, records)
    } else {
        store.emit(bucket, records)
    }
}

/// Expands the states of `buckets` of the store's current layer at `cell`, on all cores, and
/// emits the successors to the store (any bucket). Returns the closed residues and counts; the
/// layer is not merged (`finish_step`). A cluster worker calls it with the buckets it owns.
/// A transition with neighbourhoods has its buckets expanded group by group
/// ([`crate::engine::grouped`]) where the store takes it. Where the store reads without a
/// budget, each thread keeps its buffers for the next step.
pub fn expand_layer<T: Transition>(
    transition: &T,
    cell: usize,
    moduli: &Moduli,
    store: &dyn StateStore,
    buckets_to_read: &[usize],
) -> Result<StepOutcome> {
    expand_layer_splitting_at(transition, cell, moduli, store, buckets_to_read, TABLE_ENTRIES)
}

/// [`expand_layer`], with groups split when their table holds `group_table_entries` (tests
/// split small groups to reach the path the 8 x 8 layers take).
pub(crate) fn expand_layer_splitting_at<T: Transition>(
    transition: &T,
    cell: usize,
    moduli: &Moduli,
    store: &dyn StateStore,
    buckets_to_read: &[usize],
    group_table_entries: usize,
) -> Result<StepOutcome> {
    let buckets = store.buckets();
    let slots = transition.slots();
    let width = moduli.len();
    let layout = RecordLayout::of::<T::Key>(width);
    if store.layout() != layout {
        return Err(Error::Bug(format!("a store of {:?} was given states of {layout:?}", store.layout())));
    }
    let grouped = T::NEIGHBOURHOODS && store.takes_grouped();
    let plan = ReadingPlan::new(store.reading_budget(), layout.stride(), group_table_entries);
    // Without a reading budget (in memory), each thread keeps its expander from step to step:
    // made afresh, its stages and group buffers were new pages for the kernel to fault in and
    // zero at every step (197 thousand of the 7 x 10 sweep's 684 thousand page faults).
    // Within a budget they are freed, since the budget counts them only while a step runs.
    let keep = store.reading_budget().is_none();
    let new_expander = || {
        let spare = SPARE_EXPANDER.with(|spare| spare.borrow_mut().take());
        let reused = spare
            .filter(|_| keep)
            .and_then(|spare| spare.downcast::<Expander<T::Key>>().ok())
            .filter(|spare| spare.stages.len() == buckets && spare.stride == layout.stride());
        // A kept expander lends its buffers; the counts always start from zero.
        let (stages, loose, groups) = match reused {
            Some(spare) => {
                let Expander { stages, loose, groups, .. } = *spare;
                (stages, loose, groups)
            }
            None => ((0..buckets).map(|_| Vec::with_capacity(STAGE * layout.stride())).collect(), Vec::new(), None),
        };
        Expander::<T::Key> {
            stages,
            loose,
            closed: vec![0; slots * width],
            emitted: 0,
            handed: 0,
            read: 0,
            groups,
            group_table_entries: plan.table_entries,
            stride: layout.stride(),
        }
    };
    buckets_to_read
        .par_iter()
        .try_fold(new_expander, |mut expander, &bucket| -> Result<Expander<T::Key>> {
            if grouped {
                expand_bucket_grouped(transition, cell, moduli, store, &mut expander, bucket, &plan)?;
            } else {
                store.read_bucket(bucket, &mut |keys, residues| {
                    expand_chunk(transition, cell, moduli, store, &mut expander, keys, residues)
                })?;
            }
            Ok(expander)
        })
        .map(|expander| {
            let mut expander = expander?;
            expander.flush(store, grouped)?;
            let outcome = StepOutcome {
                closed: std::mem::take(&mut expander.closed),
                emitted: expander.emitted,
                // The plain route stages every successor it emits.
                handed: if grouped { expander.handed } else { expander.emitted },
                read: expander.read,
                layer: LayerSummary::default(),
            };
            if keep {
                SPARE_EXPANDER.with(|spare| *spare.borrow_mut() = Some(Box::new(expander)));
            }
            Ok(outcome)
        })
        .try_reduce(
            || StepOutcome { closed: vec![0; slots * width], ..StepOutcome::default() },
            |mut a, b| {
                for (x, y) in a.closed.chunks_mut(width).zip(b.closed.chunks(width)) {
                    moduli.add_assign(x, y);
                }
                a.emitted += b.emitted;
                a.handed += b.handed;
                a.read += b.read;
                Ok(a)
            },
        )
}

fn expand_chunk<T: Transition>(
    transition: &T,
    cell: usize,
    moduli: &Moduli,
    store: &dyn StateStore,
    expander: &mut Expander<T::Key>,
    keys: &[u64],
    residues: &[u64],
) -> Result<()> {
    let width = moduli.len();
    let stride = T::Key::WORDS + width;
    let buckets = store.buckets();
    let Expander { stages, closed, emitted, read, .. } = expander;
    *read += (keys.len() / T::Key::WORDS) as u64;
    let mut failure: Option<Error> = None;
    for (i, key) in keys.chunks_exact(T::Key::WORDS).enumerate() {
        let counts = &residues[i * width..(i + 1) * width];
        transition.expand(
            cell,
            T::Key::from_words(key),
            &mut |child| {
                *emitted += 1;
                let bucket = bucket_of(child, buckets);
                let stage = &mut stages[bucket];
                child.push_words(stage);
                append_words(stage, counts);
                if stage.len() >= STAGE * stride {
                    if let Err(e) = store.emit(bucket, stage) {
                        failure.get_or_insert(e);
                    }
                    stage.clear();
                }
            },
            &mut |rows| moduli.add_assign(&mut closed[rows * width..(rows + 1) * width], counts),
        );
        if let Some(e) = failure.take() {
            return Err(e);
        }
    }
    Ok(())
}
