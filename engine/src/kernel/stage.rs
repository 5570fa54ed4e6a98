//! A thread's side of a step: its [`Expander`], which stages successors per target bucket and
//! hands a stage to the store when it is full, and sums what closed.
//!
//! Every route of the kernel ([`super::expand_layer`]: state by state, or group by group in
//! [`super::grouped`]) stages through it, so it knows none of them: the buffers of the grouped
//! route ride along as a type parameter, which the kernel fills in.
//!
//! ```text
//!   plain route, successor C (bucket 5)        stages[5] ── STAGE records ──────► store.emit(5, ..)
//!   grouped route, merged record D (bucket 9)  stages[9] ── STAGE records ──────► store.emit_merged(9, ..)
//!   grouped route, a split group's record E    loose[9] ─── LOOSE_STAGE records ► store.emit(9, ..)
//!   the thread's buckets done                  every stage flushed as its route says; closed,
//!                                              emitted and read summed into the step's outcome
//! ```

use crate::error::Result;
use crate::key::append_words;
use crate::store::StateStore;

/// Successors staged per target bucket before they are handed to the store: each hand-over takes
/// the bucket's lock and runs the store's insert loop, so longer stages amortise both
/// (docs/PERFORMANCE-LOG.md, "Longer stages per bucket"). A stage costs `STAGE` records per bucket per
/// thread, which the disk store counts against its budget.
pub(crate) const STAGE: usize = 1024;

/// Records per bucket per thread staged as records the store must merge (a group split for its
/// size, a bucket streamed: see [`super::grouped`]): a quarter of a stage, since most
/// steps stage none, and the disk store counts them against its budget too.
pub(crate) const LOOSE_STAGE: usize = STAGE / 4;

/// Per-thread state of a step: staged successors and closed sums. `G` is what the grouped route
/// keeps from bucket to bucket (the kernel's `GroupBuffers`), held here for the thread and never
/// looked into.
pub(crate) struct Expander<G> {
    /// Per target bucket, records (key words, then residues) waiting to be handed to the store:
    /// merged ones where the bucket is expanded group by group, else as emitted.
    pub(super) stages: Vec<Vec<u64>>,
    /// Per target bucket, records of a group too large to merge whole (grouped expansion only),
    /// which the store must merge; made on first use.
    pub(super) loose: Vec<Vec<u64>>,
    /// Residues of what closed, `slots * width`, indexed by slot.
    pub(crate) closed: Vec<u64>,
    /// Successors the transition emitted.
    pub(crate) emitted: u64,
    /// Records handed to the store (staged).
    pub(super) handed: u64,
    /// States read from the current layer.
    pub(crate) read: u64,
    /// Buffers of the grouped expansion (transitions with neighbourhoods), made on first use.
    pub(crate) groups: Option<G>,
    /// Entries a group's table may hold before it is handed on, split
    /// ([`super::grouped::TABLE_ENTRIES`], or fewer within a store's reading budget).
    pub(crate) group_table_entries: usize,
    /// Words a record: key words, then residues.
    pub(super) stride: usize,
}

impl<G> Expander<G> {
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
    pub(super) fn flush(&mut self, store: &dyn StateStore, merged: bool) -> Result<()> {
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
    if stage.capacity() == 0 {
        // Reserved on first use, whole: an array that doubled would copy itself.
        stage.reserve_exact(records * record.len());
    }
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
