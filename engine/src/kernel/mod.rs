//! The kernel of a step: what every thread does with the buckets it reads.
//!
//! [`expand_layer`] reads the buckets of the current layer in parallel (rayon). Each thread
//! expands its states ([`Transition::expand`]), stages their successors per target bucket and
//! hands full stages to the store (`stage.rs`), and sums the closed counts per slot; the sums of
//! every thread make the step's [`StepOutcome`]. Where the transition names neighbourhoods and
//! the store takes it, a bucket is expanded group by group and its successors merged before
//! they are staged ([`grouped`]).
//!
//! ```text
//!   expand_layer(step s, buckets 0..31) on two threads
//!   thread 1, bucket 0   A (count 3) ─► emit C, emit D, close(4)
//!                          C 3 to the stage of C's bucket, D 3 to D's; closed[4] += 3
//!   thread 2, bucket 1   B (count 2) ─► emit C
//!                          C 2 to the stage of C's bucket
//!   each thread, its buckets done: its stages flushed to the store, its sums to the outcome
//!   (C's two records meet in the store, which adds them up in finish_step: C 5)
//! ```
//!
//! The kernel is also where a [`Transition`] becomes a [`SweepJob`] (the blanket impl below):
//! the driver (`engine::sweep`), the coordinator and the worker hold a `dyn SweepJob` and call
//! [`SweepJob::expand_layer`], which is [`expand_layer`] monomorphised for the transition and
//! its key type. So the seam (`engine::transition`) needs nothing of the kernel, and the kernel
//! nothing of the driver. Within the kernel, imports go one way: this file ─► [`grouped`] ─►
//! `stage.rs`.

pub mod grouped;
pub(crate) mod stage;

use std::any::Any;
use std::cell::RefCell;
use std::ops::RangeInclusive;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::key::{append_words, RecordLayout, StateKey};
use crate::store::{bucket_of, LayerSummary, StateStore};
use crate::transition::{ProfileHint, StepOutcome, StepPosition, SweepJob, Transition};
use crate::Moduli;
use grouped::{expand_bucket_grouped, GroupBuffers, ReadingPlan, TABLE_ENTRIES};
use stage::{Expander, STAGE};

/// Every transition is a [`SweepJob`]: here, beside the loop it runs, so that the seam
/// (`engine::transition`) needs nothing of the kernel.
impl<T: Transition> SweepJob for T {
    fn steps(&self) -> usize {
        Transition::steps(self)
    }

    fn slots(&self) -> usize {
        Transition::slots(self)
    }

    fn reported(&self) -> RangeInclusive<usize> {
        Transition::reported(self)
    }

    fn bound_bits(&self) -> f64 {
        Transition::bound_bits(self)
    }

    fn counts_may_be_far_below_bound(&self) -> bool {
        Transition::counts_may_be_far_below_bound(self)
    }

    fn position(&self, step: usize) -> StepPosition {
        Transition::position(self, step)
    }

    fn slot_name(&self, slot: usize) -> String {
        Transition::slot_name(self, slot)
    }

    fn last_step_of(&self, slot: usize) -> usize {
        Transition::last_step_of(self, slot)
    }

    fn profile_hint(&self) -> ProfileHint {
        Transition::profile_hint(self)
    }

    fn key_words(&self) -> usize {
        T::Key::WORDS
    }

    fn key_layout(&self) -> String {
        Transition::key_layout(self)
    }

    fn key_format(&self) -> u32 {
        Transition::key_format(self)
    }

    fn start_record(&self, moduli: &Moduli) -> Vec<u64> {
        let mut record = Vec::with_capacity(T::Key::WORDS + moduli.len());
        self.start().push_words(&mut record);
        record.extend(moduli.one());
        record
    }

    fn expand_layer(
        &self,
        step: usize,
        moduli: &Moduli,
        store: &dyn StateStore,
        buckets: &[usize],
    ) -> Result<StepOutcome> {
        expand_layer(self, step, moduli, store, buckets)
    }
}

thread_local! {
    /// A thread's expander from its last step, buffers and all (see [`expand_layer`]).
    static SPARE_EXPANDER: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

/// Whether this thread keeps an expander from an earlier step (for the tests of a transition,
/// which live with the problems, outside this crate).
#[doc(hidden)]
pub fn thread_keeps_an_expander() -> bool {
    SPARE_EXPANDER.with(|spare| spare.borrow().is_some())
}

/// Expands the states of `buckets` of the store's current layer at `cell`, on all cores, and
/// emits the successors to the store (any bucket). Returns the closed residues and counts; the
/// layer is not merged (`finish_step`). A cluster worker calls it with the buckets it owns.
/// A transition with neighbourhoods has its buckets expanded group by group
/// ([`grouped`]) where the store takes it. Where the store reads without a
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
#[doc(hidden)]
pub fn expand_layer_splitting_at<T: Transition>(
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
    // made afresh, its stages and group buffers are new pages for the operating system to
    // fault in and zero at every step, a large share of a sweep's page faults
    // (docs/PERFORMANCE-LOG.md, "Row starts chosen by their first cells").
    // Within a budget they are freed, since the budget counts them only while a step runs.
    let keep = store.reading_budget().is_none();
    let new_expander = || {
        let spare = SPARE_EXPANDER.with(|spare| spare.borrow_mut().take());
        let reused = spare
            .filter(|_| keep)
            .and_then(|spare| spare.downcast::<Expander<GroupBuffers<T::Key>>>().ok())
            .filter(|spare| spare.stages.len() == buckets && spare.stride == layout.stride());
        // A kept expander lends its buffers; the counts always start from zero.
        let (stages, loose, groups) = match reused {
            Some(spare) => {
                let Expander { stages, loose, groups, .. } = *spare;
                (stages, loose, groups)
            }
            // Stages are reserved when first used (`expand_chunk`, `stage_into`): a step of a few
            // states touches a few buckets, not all of them.
            None => (vec![Vec::new(); buckets], Vec::new(), None),
        };
        Expander::<GroupBuffers<T::Key>> {
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
        .try_fold(new_expander, |mut expander, &bucket| -> Result<Expander<GroupBuffers<T::Key>>> {
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
    expander: &mut Expander<GroupBuffers<T::Key>>,
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
                if stage.capacity() == 0 {
                    stage.reserve_exact(STAGE * stride);
                }
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
