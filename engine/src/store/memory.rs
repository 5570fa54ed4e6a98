//! The in-memory store: each bucket of the next layer takes states two ways. Successors merged
//! before they come (a neighbourhood's group, [`crate::kernel::grouped`]: no other record
//! of the step has their keys) are appended to the bucket's chunks as they are, 16 bytes a state
//! with exact counts and no table; any other state goes to an [`AggregationTable`] behind the
//! bucket's lock, which adds up equal keys. A bucket of the current layer is its chunks and its
//! drained table, as [`StateBatch`]es.
//!
//! A large step emits more successors than it reads or leaves states (the 8 x 8 count's steps:
//! docs/PERFORMANCE-LOG.md, "`leaper knight 8x8` finishes in memory: a frugal store near the
//! limit"). Every successor into a table of the layer's size is a cache miss, and tables sit
//! 40-80% full; merged in their groups first, the layer is written once, in order, and its
//! chunks hold 16 bytes a state.
//!
//! While the layers are small next to the memory limit, the store keeps its memory from step to
//! step: batches read are reused (chunks for appends, others for drained tables) and tables keep
//! their slots, which spares the kernel zeroing fresh pages and the tables growing again every
//! step. Once a layer's records and tables reach a quarter of the limit (a layer may grow
//! threefold in a step), the store turns frugal for good: a bucket of the current layer is freed
//! once it has been read, and a table once it has been drained, so that the peak is about the
//! larger of the two layers rather than their sum; and its tables take staggered sizes (see
//! [`AggregationTable`]), so that they do not all double at once. Frugality costs time where
//! tables do the merging (the same section of docs/PERFORMANCE-LOG.md), hence only near the limit.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::key::{RecordLayout, StateKey};
use crate::store::{
    check_layout, unsupported_key, AggregationTable, LayerSummary, StateBatch, StateStore, StateVisitor,
};
use crate::Moduli;

/// States in a chunk of appended records: its 64-bit keys take 1 MiB, a mapping of their own
/// (see [`crate::heap`]) whose pages become resident only as they are written, so a bucket's
/// last chunk, part full, costs no more than its records; and freed, the chunk goes back to the
/// OS. (Chunks that double from a few KiB came from the allocator's heap, which kept the freed
/// ones resident: docs/PERFORMANCE-LOG.md, "The in-memory store appends merged successors".)
const CHUNK_STATES: usize = 128 * 1024;

/// Whether `batch` is a chunk of appended records of `K` and `width` residues.
fn is_chunk<K: StateKey>(batch: &StateBatch, width: usize) -> bool {
    batch.keys.capacity() == CHUNK_STATES * K::WORDS && batch.residues.capacity() == CHUNK_STATES * width
}

/// The bytes a batch holds: a chunk its records (see [`CHUNK_STATES`]; a spare chunk the records
/// it had when read, the pages it touched), any other batch its allocation.
fn held_bytes<K: StateKey>(batch: &StateBatch, width: usize) -> u64 {
    if is_chunk::<K>(batch, width) {
        batch.bytes() as u64
    } else {
        batch.capacity_bytes()
    }
}

pub struct MemoryStore<K: StateKey> {
    moduli: Moduli,
    /// The current layer: per bucket, its batches.
    current: Vec<Mutex<Vec<StateBatch>>>,
    /// The next layer's merged states, per bucket: chunks appended in the order they came.
    appended: Vec<Mutex<Vec<StateBatch>>>,
    /// The next layer's other states, per bucket, merged where keys meet.
    next: Vec<Mutex<AggregationTable<K>>>,
    /// Bytes held by the tables of the next layer.
    table_bytes: AtomicU64,
    /// Batches already read this step, kept for reuse unless the store is frugal.
    spare: Mutex<Vec<StateBatch>>,
    /// Bytes held by batches ([`held_bytes`]): the current layer's, the spares and the records
    /// appended.
    batch_bytes: AtomicU64,
    /// Frees batches once read and tables once drained (see the module's comment).
    frugal: bool,
    mem_limit: u64,
    /// Bytes resident when the store was made: what the process held before any layer.
    resident_before: u64,
    /// The last reading of the resident size: when, what the process had gained, and what
    /// reading took (see [`MemoryStore::resident_gain`]).
    resident_read: Mutex<Option<(Instant, u64, Duration)>>,
    /// Per bucket: whether this step emitted into it (and `touched` lists it).
    emitted_into: Vec<AtomicBool>,
    /// The buckets this step emitted into, each once. With `filled`, they are the only buckets
    /// whose slots `finish_step` changes: a step of a few states (a graph's thin stretches,
    /// step after step) costs a few buckets, not every one.
    touched: Mutex<Vec<usize>>,
    /// The buckets of the current layer that hold states, ascending.
    filled: Vec<usize>,
}

impl<K: StateKey> MemoryStore<K> {
    /// A store of `buckets` buckets that refuses to grow past `mem_limit` bytes of layers.
    pub fn new(buckets: usize, moduli: Moduli, mem_limit: u64) -> Self {
        let width = moduli.len();
        let tables: Vec<_> = (0..buckets).map(|_| Mutex::new(AggregationTable::new(width))).collect();
        let table_bytes = tables.iter().map(|t| t.lock().expect("bucket lock").bytes() as u64).sum();
        MemoryStore {
            current: (0..buckets).map(|_| Mutex::new(Vec::new())).collect(),
            appended: (0..buckets).map(|_| Mutex::new(Vec::new())).collect(),
            next: tables,
            table_bytes: AtomicU64::new(table_bytes),
            spare: Mutex::new(Vec::new()),
            batch_bytes: AtomicU64::new(0),
            frugal: false,
            mem_limit,
            resident_before: crate::heap::resident_bytes().unwrap_or(0),
            resident_read: Mutex::new(None),
            emitted_into: (0..buckets).map(|_| AtomicBool::new(false)).collect(),
            touched: Mutex::new(Vec::new()),
            filled: Vec::new(),
            moduli,
        }
    }

    /// Notes that this step emits into `bucket`.
    fn touch(&self, bucket: usize) {
        // A load first: once the flag is set its cache line stays shared between the threads.
        let flag = &self.emitted_into[bucket];
        if !flag.load(Ordering::Relaxed) && !flag.swap(true, Ordering::Relaxed) {
            self.touched.lock().expect("touched lock").push(bucket);
        }
    }

    /// What the layers hold by their own accounting, or what the process gained in resident
    /// memory since the store was made if that is more (freed memory the allocator kept).
    fn check_limit(&self, table_bytes: u64) -> Result<()> {
        let gained = self.resident_gain();
        let held = (table_bytes + self.batch_bytes.load(Ordering::Relaxed)).max(gained);
        if held > self.mem_limit {
            return Err(Error::MemoryLimit { held, limit: self.mem_limit });
        }
        Ok(())
    }

    /// What the process gained in resident memory since the store was made, read afresh unless
    /// the last reading is younger than twenty times what it took: each step asks, and a sweep
    /// of many steps of a few states (a graph's 100,000 vertices) spent a sixth of its time
    /// reading `/proc`. Between two readings a few hundred microseconds apart the process can
    /// gain little; the layers' own bytes are always counted afresh.
    fn resident_gain(&self) -> u64 {
        let mut read = self.resident_read.lock().expect("resident lock");
        if let Some((at, gained, took)) = *read {
            if at.elapsed() < took * 20 {
                return gained;
            }
        }
        let started = Instant::now();
        let gained = crate::heap::resident_bytes().map_or(0, |now| now.saturating_sub(self.resident_before));
        *read = Some((started, gained, started.elapsed()));
        gained
    }

    /// A new last chunk for a bucket's appended records: a spare chunk where there is one.
    fn add_chunk(&self, chunks: &mut Vec<StateBatch>) -> Result<()> {
        let width = self.moduli.len();
        let reused = {
            let mut spare = self.spare.lock().expect("spare lock");
            let at = spare.iter().rposition(|batch| is_chunk::<K>(batch, width));
            at.map(|at| spare.swap_remove(at))
        };
        match reused {
            Some(mut chunk) => {
                self.batch_bytes.fetch_sub(held_bytes::<K>(&chunk, width), Ordering::Relaxed);
                chunk.clear();
                chunks.push(chunk);
            }
            None => chunks.push(StateBatch::with_capacity(self.layout(), CHUNK_STATES)),
        }
        self.check_limit(self.table_bytes.load(Ordering::Relaxed))
    }
}

impl<K: StateKey> StateStore for MemoryStore<K> {
    fn layout(&self) -> RecordLayout {
        RecordLayout::of::<K>(self.moduli.len())
    }

    /// Yes: merged states are appended without a table (see the module's comment).
    fn takes_grouped(&self) -> bool {
        true
    }

    fn buckets(&self) -> usize {
        self.current.len()
    }

    fn bucket_states(&self, bucket: usize) -> Option<u64> {
        Some(self.current[bucket].lock().expect("bucket lock").iter().map(|batch| batch.len() as u64).sum())
    }

    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> Result<()> {
        let batches = std::mem::take(&mut *self.current[bucket].lock().expect("bucket lock"));
        let mut visited = Ok(());
        for batch in batches {
            if visited.is_ok() {
                visited = visit(&batch.keys, &batch.residues);
            }
            if self.frugal {
                self.batch_bytes.fetch_sub(held_bytes::<K>(&batch, self.moduli.len()), Ordering::Relaxed);
            } else {
                self.spare.lock().expect("spare lock").push(batch);
            }
        }
        visited
    }

    fn emit(&self, bucket: usize, records: &[u64]) -> Result<()> {
        self.touch(bucket);
        let mut table = self.next[bucket].lock().expect("bucket lock");
        let before = table.bytes() as u64;
        table.add_records(records, &self.moduli);
        let grown = table.bytes() as u64 - before;
        if grown > 0 {
            let total = self.table_bytes.fetch_add(grown, Ordering::Relaxed) + grown;
            self.check_limit(total)?;
        }
        Ok(())
    }

    fn emit_merged(&self, bucket: usize, records: &[u64]) -> Result<()> {
        self.touch(bucket);
        let stride = K::WORDS + self.moduli.len();
        let mut chunks = self.appended[bucket].lock().expect("bucket lock");
        let mut rest = records;
        while !rest.is_empty() {
            let room = chunks.last().map_or(0, |last| last.keys.capacity() / K::WORDS - last.len());
            if room == 0 {
                self.add_chunk(&mut chunks)?;
                continue;
            }
            let (now, later) = rest.split_at((room * stride).min(rest.len()));
            let chunk = chunks.last_mut().expect("a chunk with room");
            for record in now.chunks_exact(stride) {
                chunk.push(K::from_words(record), &record[K::WORDS..]);
            }
            rest = later;
        }
        self.batch_bytes.fetch_add(8 * records.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    fn filled_buckets(&self) -> Option<Vec<usize>> {
        Some(self.filled.clone())
    }

    fn finish_step(&mut self) -> Result<LayerSummary> {
        let mut touched = std::mem::take(self.touched.get_mut().expect("touched lock"));
        touched.sort_unstable();
        for &bucket in &touched {
            *self.emitted_into[bucket].get_mut() = false;
        }
        let drained = if self.frugal { self.drain_frugally(&touched) } else { self.drain_reusing(&touched) };
        // What the step did not read of the current layer (a worker reads its own buckets) goes.
        for bucket in std::mem::take(&mut self.filled) {
            self.current[bucket].get_mut().expect("bucket lock").clear();
        }
        let spare = self.spare.get_mut().expect("spare lock");
        if self.frugal {
            spare.clear();
        }
        let width = self.moduli.len();
        let mut held: u64 = spare.iter().map(|batch| held_bytes::<K>(batch, width)).sum();
        let mut summary = LayerSummary::default();
        for (&bucket, table) in touched.iter().zip(drained) {
            let mut batches = std::mem::take(self.appended[bucket].get_mut().expect("bucket lock"));
            batches.extend(table);
            for batch in &batches {
                summary.states += batch.len() as u64;
                summary.bytes += batch.bytes() as u64;
                held += held_bytes::<K>(batch, width);
            }
            if !batches.is_empty() {
                self.filled.push(bucket);
            }
            *self.current[bucket].get_mut().expect("bucket lock") = batches;
        }
        *self.batch_bytes.get_mut() = held;
        let tables = *self.table_bytes.get_mut();
        self.check_limit(tables)?;
        if !self.frugal && 4 * (held + tables) > self.mem_limit {
            tracing::debug!(held, tables, limit = self.mem_limit, "the in-memory store turns frugal");
            self.frugal = true;
            for (bucket, slot) in self.next.iter_mut().enumerate() {
                *slot.get_mut().expect("bucket lock") = AggregationTable::staggered(width, bucket);
            }
            self.recount_table_bytes();
        }
        Ok(summary)
    }
}

impl<K: StateKey> MemoryStore<K> {
    /// The bytes the tables hold, counted afresh (between steps).
    fn recount_table_bytes(&mut self) -> u64 {
        let tables = self.next.iter_mut().map(|t| t.get_mut().expect("bucket lock").bytes() as u64).sum();
        *self.table_bytes.get_mut() = tables;
        tables
    }

    /// Drains the tables of the `touched` buckets that hold states, in parallel: `drain` turns
    /// a bucket's table into a batch, given the bucket's `targets` entry. Returns per touched
    /// bucket its batch (`None`: an empty table), and brings the tables' bytes up to date (a
    /// drained table may shrink, or be replaced).
    fn drain_touched(
        &mut self,
        touched: &[usize],
        targets: Vec<Option<StateBatch>>,
        drain: impl Fn(usize, &mut AggregationTable<K>, Option<StateBatch>) -> StateBatch + Sync,
    ) -> Vec<Option<StateBatch>> {
        let next = &self.next;
        let (drained, change): (Vec<Option<StateBatch>>, Vec<i64>) = touched
            .par_iter()
            .zip(targets)
            .map(|(&bucket, target)| {
                let mut table = next[bucket].lock().expect("bucket lock");
                if table.is_empty() {
                    return (None, 0);
                }
                let before = table.bytes() as i64;
                let batch = drain(bucket, &mut table, target);
                (Some(batch), table.bytes() as i64 - before)
            })
            .unzip();
        let tables = self.table_bytes.get_mut();
        *tables = tables.saturating_add_signed(change.iter().sum());
        drained
    }

    /// Each touched table that holds states drained into a batch read last step (or a new one);
    /// the tables are kept. Chunks stay spare for the appends.
    fn drain_reusing(&mut self, touched: &[usize]) -> Vec<Option<StateBatch>> {
        let (layout, width) = (self.layout(), self.moduli.len());
        let mut spare = std::mem::take(self.spare.get_mut().expect("spare lock"));
        let targets: Vec<Option<StateBatch>> = touched
            .iter()
            .map(|&bucket| {
                (!self.next[bucket].get_mut().expect("bucket lock").is_empty()).then(|| {
                    let small = spare.iter().rposition(|batch| !is_chunk::<K>(batch, width));
                    small.map_or_else(|| StateBatch::with_capacity(layout, 0), |at| spare.swap_remove(at))
                })
            })
            .collect();
        spare.retain(|batch| is_chunk::<K>(batch, width));
        *self.spare.get_mut().expect("spare lock") = spare;
        self.drain_touched(touched, targets, |_, table, target| {
            let mut batch = target.expect("a table that holds states has a batch to drain into");
            table.drain_into(&mut batch);
            batch
        })
    }

    /// Each touched table that holds states turned into a batch of exactly its size and freed
    /// (its successor starts small and grows with the next layer). An untouched table is empty
    /// and left as it is: it was made afresh when it was last drained, or when the store turned
    /// frugal.
    fn drain_frugally(&mut self, touched: &[usize]) -> Vec<Option<StateBatch>> {
        let width = self.moduli.len();
        let targets = touched.iter().map(|_| None).collect();
        self.drain_touched(touched, targets, |bucket, table, _| {
            std::mem::replace(table, AggregationTable::staggered(width, bucket)).into_batch()
        })
    }
}

/// An in-memory store for states of `layout`: see [`MemoryStore`].
pub fn memory_store(
    layout: RecordLayout,
    buckets: usize,
    moduli: Moduli,
    mem_limit: u64,
) -> Result<Box<dyn StateStore>> {
    check_layout(layout, &moduli)?;
    crate::with_key_type!(
        layout.key_words,
        K => Ok(Box::new(MemoryStore::<K>::new(buckets, moduli, mem_limit))),
        Err(unsupported_key(layout))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::bucket_of;

    /// Emits `keys` with count 1 each into `store`'s next layer.
    fn emit_all(store: &MemoryStore<u64>, keys: impl Iterator<Item = u64>) {
        for key in keys {
            store.emit(bucket_of(key, store.buckets()), &[key, 1]).unwrap();
        }
    }

    /// The current layer as sorted (key, count) pairs, read bucket by bucket.
    fn read_all(store: &MemoryStore<u64>) -> Vec<(u64, u64)> {
        let mut states = Vec::new();
        for bucket in 0..store.buckets() {
            store
                .read_bucket(bucket, &mut |keys, counts| {
                    states.extend(keys.iter().copied().zip(counts.iter().copied()));
                    Ok(())
                })
                .unwrap();
        }
        states.sort_unstable();
        states
    }

    #[test]
    fn a_store_near_its_limit_turns_frugal_and_gives_memory_back_as_it_reads() {
        let moduli = Moduli::saturating();
        // 100,000 states of 16 bytes in batches, and their tables: more than a quarter of 8 MiB.
        let mut store = MemoryStore::<u64>::new(7, moduli, 8 << 20);
        // Other tests share this process's resident size: the limit holds the store's own bytes.
        store.resident_before = u64::MAX;
        emit_all(&store, (0..100_000).chain(0..50_000));
        store.finish_step().unwrap();
        assert!(store.frugal);
        // The tables were freed when it turned frugal.
        assert!(store.table_bytes.load(Ordering::Relaxed) < 7 * 1024);
        let held = store.batch_bytes.load(Ordering::Relaxed);
        assert!(held >= 100_000 * 16);

        // A frugal step: counts merged as before, every batch freed once read.
        let layer = read_all(&store);
        assert_eq!(layer.len(), 100_000);
        assert!(layer.iter().all(|&(key, count)| count == if key < 50_000 { 2 } else { 1 }));
        assert_eq!(store.batch_bytes.load(Ordering::Relaxed), 0);
        emit_all(&store, layer.iter().map(|&(key, _)| key / 2));
        let summary = store.finish_step().unwrap();
        assert_eq!(summary.states, 50_000);
        assert!(read_all(&store).iter().all(|&(_, count)| count == 2));
    }

    #[test]
    fn merged_records_are_appended_in_chunks_beside_the_merging_tables() {
        let mut store = MemoryStore::<u64>::new(3, Moduli::saturating(), 1 << 30);
        store.resident_before = u64::MAX;
        // 300,000 merged states fill two chunks and start a third; a key given twice through
        // `emit` is merged in the bucket's table.
        let merged: Vec<u64> = (0..300_000u64).flat_map(|key| [key, 1]).collect();
        store.emit_merged(1, &merged).unwrap();
        store.emit(1, &[1_000_000, 2, 1_000_000, 3]).unwrap();
        assert_eq!(store.finish_step().unwrap().states, 300_001);
        assert_eq!(store.current[1].lock().unwrap().len(), 4, "three chunks and the table's batch");
        // Chunks count the bytes of their records, the table's batch its allocation.
        assert_eq!(store.batch_bytes.load(Ordering::Relaxed), 300_000 * 16 + 16);
        let layer = read_all(&store);
        assert_eq!(layer.len(), 300_001);
        assert_eq!(layer[300_000], (1_000_000, 5));
        assert!(layer[..300_000].iter().enumerate().all(|(i, &state)| state == (i as u64, 1)));

        // Far from the limit the chunks read are spare, and the next appends reuse them.
        assert_eq!(store.spare.lock().unwrap().len(), 4);
        store.emit_merged(2, &merged[..2 * 200_000]).unwrap();
        assert_eq!(store.finish_step().unwrap().states, 200_000);
        assert_eq!(store.spare.lock().unwrap().len(), 1, "two chunks reused, the table's batch dropped");
        let spare_records: u64 = store.spare.lock().unwrap().iter().map(|chunk| chunk.len() as u64).sum();
        assert!(spare_records == 131_072 || spare_records == 300_000 - 2 * 131_072);
        assert_eq!(store.batch_bytes.load(Ordering::Relaxed), (200_000 + spare_records) * 16);
    }

    #[test]
    fn a_store_far_from_its_limit_keeps_its_memory() {
        let mut store = MemoryStore::<u64>::new(7, Moduli::saturating(), 1 << 30);
        store.resident_before = u64::MAX;
        emit_all(&store, 0..10_000);
        store.finish_step().unwrap();
        assert!(!store.frugal);
        let held = store.batch_bytes.load(Ordering::Relaxed);
        let layer = read_all(&store);
        assert_eq!(layer, (0..10_000).map(|key| (key, 1)).collect::<Vec<_>>());
        assert_eq!(store.batch_bytes.load(Ordering::Relaxed), held, "the batches read are kept for reuse");
        assert_eq!(store.spare.lock().unwrap().len(), 7);
    }
}
