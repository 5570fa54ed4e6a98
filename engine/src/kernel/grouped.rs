//! Successors merged where they meet: a bucket expanded group by group.
//!
//! A state of a layer is reached by several parents on average (docs/PERFORMANCE-LOG.md, "Successors
//! merged by neighbourhood before the store"), and without help every copy travels to the store,
//! whose tables (as large as the layer) take each one at the price of a cache miss. But a problem
//! often knows where copies can come from: every parent of a key has the key's *neighbourhood*
//! ([`Transition::neighbourhood`]), a value that the step cannot change (for tours: the kinds of
//! the cells the step does not touch). So:
//!
//! 1. a successor goes to the bucket of the neighbourhood it will have at the step that reads
//!    it ([`bucket_for`]), so that all parents of any key sit in one bucket;
//! 2. a bucket is read whole and its states sorted into groups by neighbourhood (a counting
//!    sort on a hash of it), each group a few thousand states;
//! 3. a group's successors are merged in a table of the group's size, which stays in the core's
//!    cache, and each key leaves it once, complete, for the store. (A neighbourhood is never
//!    split, and a few are shared by hundreds of thousands of states: their groups are that
//!    large, and past [`TABLE_ENTRIES`] a table is handed on early: its group's records go to
//!    the store as [`emit`](StateStore::emit), which merges them, the others as
//!    [`emit_merged`](StateStore::emit_merged), which needs not.)
//!
//! A bucket read whole is held twice (as read, and in group order): where a store keeps within
//! a memory limit, a bucket too large for a thread's share of it is streamed block by block
//! instead, its successors sent to the same buckets unmerged, for the store to merge
//! ([`ReadingPlan`]).
//!
//! Where it pays: in every store. Spills, segment files and the cluster's shuffle carry each key
//! once, and the buckets hold states of alike neighbourhoods, whose sorted keys compress better
//! on disk; the in-memory store appends the merged records with no table at all, in less time
//! and less memory (docs/PERFORMANCE-LOG.md, "The in-memory store appends merged successors").
//!
//! ```text
//!   bucket 7 of the layer before step s        group 2's table        the store
//!   A (nbhd x, count 3)  ──► emits C, D        C  3 + 2               C  5   (bucket of C at s+1)
//!   B (nbhd x, count 2)  ──► emits C           D  3                   D  3   (bucket of D at s+1)
//! ```
//!
//! Every store still adds up equal keys, so counts never depend on the neighbourhoods being
//! right: a wrong neighbourhood would cost merges, not digits (the tours' test checks the claim
//! itself on whole sweeps).

use super::stage::Expander;
use crate::error::Result;
use crate::key::{append_words, copy_words, StateKey};
use crate::store::{AggregationTable, StateStore};
use crate::transition::Transition;
use crate::Moduli;

/// States per group, about: their successors' table (at most 16 Ki slots of 16 to 24 bytes)
/// then stays in the core's 1 MiB L2 cache beside the stages; the fastest of the sizes measured
/// (docs/PERFORMANCE-LOG.md, "Successors merged by neighbourhood before the store").
const GROUP_STATES: usize = 4 * 1024;

/// Successors buffered before they are merged into their group's table.
const CHILDREN: usize = 32 * 1024;

/// Entries a group's table holds at most: the rare group that holds a large share of a layer
/// (all its states of one neighbourhood) hands its table on when it is this full, and the store
/// merges the rest. It bounds a thread's memory (up to 64 MiB of table for 16-byte records;
/// within a store's reading budget, tables are smaller: [`ReadingPlan`]).
pub const TABLE_ENTRIES: usize = 2 * 1024 * 1024;

/// How a thread reads the buckets of a layer within a store's reading budget
/// ([`StateStore::reading_budget`]). A bucket read whole costs, per state, its record twice
/// (as read and in group order) and a group number; a group's table gets a quarter of the
/// budget, and a bucket larger than the rest allows is streamed ([`expand_streamed`]).
///
/// Example: `--mem-limit 2GiB`, 503 buckets, two threads, three residues (32-byte records):
/// 247 MiB a thread; group tables of at most 219 Ki entries (a table of `n` entries is at
/// most 80% full, rounded up to a base times a power of two, and holds a buffer of successors
/// beside it: up to 9 records of room an entry while it grows), and buckets of up to 2.8 M
/// states read whole. Buckets chosen by neighbourhood are uneven, and the largest of a large
/// sweep's peak hold more than that: they are streamed. Without this plan a residue pass went
/// past its memory limit in the steps that read such layers (docs/PERFORMANCE-LOG.md, "The memory
/// limit with buckets too large to read whole").
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReadingPlan {
    /// Entries a group's table holds before it is handed on, split.
    pub(crate) table_entries: usize,
    /// The most states a bucket read whole may hold (`None`: any).
    whole_states: Option<u64>,
}

/// Records' worth of memory a group's table takes per entry it may hold before it is handed
/// on: it may reach twice its entries (a buffer of successors lands after the check), so 5
/// records of slots, 7.5 while it grows into them (the old array beside the new one); and one
/// for the buffer.
const TABLE_RECORDS_PER_ENTRY: usize = 9;

impl ReadingPlan {
    /// The plan for records of `stride` words within `budget` bytes a thread (`None`: no
    /// bound), group tables of at most `table_entries` entries.
    pub(crate) fn new(budget: Option<usize>, stride: usize, table_entries: usize) -> Self {
        let Some(budget) = budget else {
            return ReadingPlan { table_entries, whole_states: None };
        };
        let record_bytes = 8 * stride;
        let table_share = budget / 4;
        let table_entries = (table_share / (TABLE_RECORDS_PER_ENTRY * record_bytes)).clamp(1, table_entries);
        // Two copies of each record, a group number (4 bytes) and a byte for the group starts.
        let per_state = 2 * record_bytes + 5;
        ReadingPlan { table_entries, whole_states: Some(((budget - table_share) / per_state) as u64) }
    }

    /// Whether a bucket of `states` states (`None`: not known) is read whole.
    pub(crate) fn reads_whole(&self, states: Option<u64>) -> bool {
        match (self.whole_states, states) {
            (None, _) => true,
            (Some(most), Some(states)) => states <= most,
            (Some(_), None) => false,
        }
    }
}

/// The bucket, among `buckets`, of a state whose neighbourhood at the step that reads it is
/// `neighbourhood`.
#[inline]
pub fn bucket_for(neighbourhood: u64, buckets: usize) -> usize {
    ((mix(neighbourhood) as u128 * buckets as u128) >> 64) as usize
}

/// The group, among `groups`, of a state of neighbourhood `neighbourhood` within its bucket:
/// other bits of the hash than [`bucket_for`]'s.
#[inline]
fn group_for(neighbourhood: u64, groups: usize) -> usize {
    ((mix(neighbourhood).wrapping_mul(0x9e37_79b9_7f4a_7c15) as u128 * groups as u128) >> 64) as usize
}

#[inline]
fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 29)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 32)
}

/// A thread's buffers for grouped expansion, kept from bucket to bucket.
pub(crate) struct GroupBuffers<K: StateKey> {
    /// The bucket's records as read (key words, then residues).
    records: Vec<u64>,
    /// Each record's group.
    group: Vec<u32>,
    /// The records in group order.
    grouped: Vec<u64>,
    /// Where each group starts in `grouped`, in records; one more entry than groups.
    starts: Vec<usize>,
    /// A group's successors as emitted (records), then merged in `table`.
    children: Vec<u64>,
    table: AggregationTable<K>,
}

impl<K: StateKey> GroupBuffers<K> {
    pub(crate) fn new(width: usize) -> Self {
        GroupBuffers {
            records: Vec::new(),
            group: Vec::new(),
            grouped: Vec::new(),
            starts: Vec::new(),
            children: Vec::new(),
            table: AggregationTable::salted(width),
        }
    }

    /// Reads `bucket` of the store's current layer and sorts its records into groups.
    fn read_grouped<T: Transition<Key = K>>(
        &mut self,
        transition: &T,
        step: usize,
        store: &dyn StateStore,
        bucket: usize,
        width: usize,
    ) -> Result<usize> {
        let stride = K::WORDS + width;
        let GroupBuffers { records, group, grouped, starts, .. } = self;
        // Exact sizes where the store bounds reading: a vector grown by doubling may take twice
        // what the reading plan counted. Unbounded (in memory), exact sizes cost time: each new
        // largest bucket would be a fresh mapping.
        let bounded = store.reading_budget().is_some();
        let expected = if bounded { store.bucket_states(bucket).unwrap_or(0) as usize } else { 0 };
        reserve_exactly(records, expected * stride);
        reserve_exactly(grouped, expected * stride);
        reserve_exactly(group, expected);
        store.read_bucket(bucket, &mut |keys, residues| {
            for (key, counts) in keys.chunks_exact(K::WORDS).zip(residues.chunks_exact(width)) {
                append_words(records, key);
                append_words(records, counts);
            }
            Ok(())
        })?;
        let states = records.len() / stride;
        let groups = states.div_ceil(GROUP_STATES).max(1);
        starts.clear();
        starts.resize(groups + 1, 0);
        for record in records.chunks_exact(stride) {
            let g = group_for(transition.neighbourhood(step, K::from_words(record)), groups);
            group.push(g as u32);
            starts[g + 1] += 1;
        }
        for g in 0..groups {
            starts[g + 1] += starts[g];
        }
        grouped.clear();
        grouped.resize(records.len(), 0);
        let mut next = starts.clone();
        for (record, &g) in records.chunks_exact(stride).zip(group.iter()) {
            let at = next[g as usize] * stride;
            copy_words(&mut grouped[at..at + stride], record);
            next[g as usize] += 1;
        }
        Ok(groups)
    }
}

/// Empties `buffer` and makes room for `len` items in it: exactly, where it has less.
fn reserve_exactly<T>(buffer: &mut Vec<T>, len: usize) {
    buffer.clear();
    if buffer.capacity() < len {
        // Freed first: a reallocation would hold the old and the new allocation at once.
        *buffer = Vec::new();
        buffer.reserve_exact(len);
    }
}

/// Expands `bucket` of the store's current layer by neighbourhood: group by group where
/// `plan` lets the thread read it whole, else streamed.
pub(crate) fn expand_bucket_grouped<T: Transition>(
    transition: &T,
    step: usize,
    moduli: &Moduli,
    store: &dyn StateStore,
    expander: &mut Expander<GroupBuffers<T::Key>>,
    bucket: usize,
    plan: &ReadingPlan,
) -> Result<()> {
    let mut buffers = expander.groups.take().unwrap_or_else(|| GroupBuffers::new(moduli.len()));
    let outcome = if plan.reads_whole(store.bucket_states(bucket)) {
        expand_groups(transition, step, moduli, store, expander, bucket, &mut buffers)
    } else {
        expand_streamed(transition, step, moduli, store, expander, bucket, &mut buffers.children)
    };
    expander.groups = Some(buffers);
    outcome
}

/// Expands `bucket` group by group (see the module's comment), handing each group's merged
/// successors to the expander's stages.
fn expand_groups<T: Transition>(
    transition: &T,
    step: usize,
    moduli: &Moduli,
    store: &dyn StateStore,
    expander: &mut Expander<GroupBuffers<T::Key>>,
    bucket: usize,
    buffers: &mut GroupBuffers<T::Key>,
) -> Result<()> {
    let width = moduli.len();
    let stride = T::Key::WORDS + width;
    let groups = buffers.read_grouped(transition, step, store, bucket, width)?;
    expander.read += (buffers.records.len() / stride) as u64;
    let GroupBuffers { grouped, starts, table, children, .. } = buffers;
    // Asked once: a call through the store's vtable for every record showed in the profile
    // (docs/PERFORMANCE-LOG.md, "Row starts chosen by their first cells").
    let buckets = store.buckets();
    // A group's table holds every copy of its keys unless the group was split (handed on
    // early): then the store merges that group's records.
    let hand_on = |table: &mut AggregationTable<T::Key>, expander: &mut Expander<GroupBuffers<T::Key>>, split: bool| {
        table.drain_each(|entry| {
            let child = T::Key::from_words(entry);
            let target = bucket_for(transition.neighbourhood(step + 1, child), buckets);
            if split {
                expander.stage_loose(store, target, entry)
            } else {
                expander.stage(store, target, entry)
            }
        })
    };
    let insert_at = CHILDREN.min(expander.group_table_entries) * stride;
    for g in 0..groups {
        let states = starts[g + 1] - starts[g];
        let mut split = false;
        table.fit_empty((2 * states).min(expander.group_table_entries));
        for record in grouped[starts[g] * stride..starts[g + 1] * stride].chunks_exact(stride) {
            let (key, counts) = record.split_at(T::Key::WORDS);
            expand_into(transition, step, moduli, key, counts, children, expander);
            if children.len() >= insert_at {
                // Inserted together, with prefetching: one by one, each waited for its slot.
                table.add_records(children, moduli);
                children.clear();
                if table.len() >= expander.group_table_entries {
                    split = true;
                    hand_on(table, expander, split)?;
                }
            }
        }
        table.add_records(children, moduli);
        children.clear();
        hand_on(table, expander, split)?;
    }
    Ok(())
}

/// Expands `bucket` block by block as it is read, where it is too large to read whole
/// ([`ReadingPlan`]): each successor goes to the bucket of its neighbourhood, as in grouped
/// expansion, but unmerged (the store merges it). `children` is a buffer of successors.
fn expand_streamed<T: Transition>(
    transition: &T,
    step: usize,
    moduli: &Moduli,
    store: &dyn StateStore,
    expander: &mut Expander<GroupBuffers<T::Key>>,
    bucket: usize,
    children: &mut Vec<u64>,
) -> Result<()> {
    let width = moduli.len();
    let stride = T::Key::WORDS + width;
    store.read_bucket(bucket, &mut |keys, residues| {
        for (key, counts) in keys.chunks_exact(T::Key::WORDS).zip(residues.chunks_exact(width)) {
            expander.read += 1;
            expand_into(transition, step, moduli, key, counts, children, expander);
            if children.len() >= CHILDREN * stride {
                stage_streamed(transition, step, store, expander, children, stride)?;
            }
        }
        stage_streamed(transition, step, store, expander, children, stride)
    })
}

/// Expands the state of key words `key` and `counts`: appends its successors to `children`
/// (each with `counts`), and adds `counts` to the slots of the tours it closes.
#[inline]
fn expand_into<T: Transition>(
    transition: &T,
    step: usize,
    moduli: &Moduli,
    key: &[u64],
    counts: &[u64],
    children: &mut Vec<u64>,
    expander: &mut Expander<GroupBuffers<T::Key>>,
) {
    let width = counts.len();
    let (closed, emitted) = (&mut expander.closed, &mut expander.emitted);
    transition.expand(
        step,
        T::Key::from_words(key),
        &mut |child| {
            *emitted += 1;
            child.push_words(children);
            append_words(children, counts);
        },
        &mut |slot| moduli.add_assign(&mut closed[slot * width..(slot + 1) * width], counts),
    );
}

/// Stages `children` (records of `stride` words, states before `step + 1`) for the buckets of
/// their neighbourhoods, as records the store must merge, and empties the buffer.
fn stage_streamed<T: Transition>(
    transition: &T,
    step: usize,
    store: &dyn StateStore,
    expander: &mut Expander<GroupBuffers<T::Key>>,
    children: &mut Vec<u64>,
    stride: usize,
) -> Result<()> {
    let buckets = store.buckets();
    for record in children.chunks_exact(stride) {
        let target = bucket_for(transition.neighbourhood(step + 1, T::Key::from_words(record)), buckets);
        expander.stage_loose(store, target, record)?;
    }
    children.clear();
    Ok(())
}
