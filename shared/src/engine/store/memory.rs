//! The in-memory store: each bucket of the next layer is an [`AggregationTable`] behind its own
//! lock, filled by whichever thread produces states for it; each bucket of the current layer is
//! a [`StateBatch`].
//!
//! While the layers are small next to the memory limit, the store keeps its memory from step to
//! step: batches read are reused for the next layer and tables keep their slots, which spares
//! the kernel zeroing fresh pages and the tables growing again every step. Once a layer's
//! records and tables reach a quarter of the limit (a layer may grow threefold in a step), the
//! store turns frugal for good: a bucket of the current layer is freed once it has been read,
//! and a table once it has been drained, so that the peak is about the larger of the two layers
//! rather than their sum; and its tables take staggered sizes (see [`AggregationTable`]), so
//! that they do not all double at once. Example: a step from 335 M to 383 M states (8x8, exact
//! counts) holds 5.4 GB of batches beside 8-15 GB of tables when it keeps everything; frugal, the
//! batches are gone by the time the tables are full. Frugality costs time (`leaper knight 7x10
//! --sweep`, whose layers are small, is 18% slower frugal from the start), hence only near the
//! limit.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::engine::key::{RecordLayout, StateKey};
use crate::engine::store::{AggregationTable, LayerSummary, StateBatch, StateStore, StateVisitor};
use crate::engine::Moduli;
use crate::error::{Error, Result};

pub struct MemoryStore<K: StateKey> {
    moduli: Moduli,
    current: Vec<Mutex<Option<StateBatch>>>,
    next: Vec<Mutex<AggregationTable<K>>>,
    /// Bytes held by the tables of the next layer.
    table_bytes: AtomicU64,
    /// Batches already read this step, kept for the next drain unless the store is frugal.
    spare: Mutex<Vec<StateBatch>>,
    /// Bytes held by the batches of the current layer (and their spares).
    batch_bytes: AtomicU64,
    /// Frees batches once read and tables once drained (see the module's comment).
    frugal: bool,
    mem_limit: u64,
    /// Bytes resident when the store was made: what the process held before any layer.
    resident_before: u64,
}

impl<K: StateKey> MemoryStore<K> {
    /// A store of `buckets` buckets that refuses to grow past `mem_limit` bytes of layers.
    pub fn new(buckets: usize, moduli: Moduli, mem_limit: u64) -> Self {
        let width = moduli.len();
        let tables: Vec<_> = (0..buckets).map(|_| Mutex::new(AggregationTable::new(width))).collect();
        let table_bytes = tables.iter().map(|t| t.lock().expect("bucket lock").bytes() as u64).sum();
        MemoryStore {
            current: (0..buckets).map(|_| Mutex::new(None)).collect(),
            next: tables,
            table_bytes: AtomicU64::new(table_bytes),
            spare: Mutex::new(Vec::new()),
            batch_bytes: AtomicU64::new(0),
            frugal: false,
            mem_limit,
            resident_before: crate::heap::resident_bytes().unwrap_or(0),
            moduli,
        }
    }

    /// What the layers hold by their own accounting, or what the process gained in resident
    /// memory since the store was made if that is more (freed memory the allocator kept).
    fn check_limit(&self, table_bytes: u64) -> Result<()> {
        let gained = crate::heap::resident_bytes().map_or(0, |now| now.saturating_sub(self.resident_before));
        let held = (table_bytes + self.batch_bytes.load(Ordering::Relaxed)).max(gained);
        if held > self.mem_limit {
            return Err(Error::MemoryLimit { held, limit: self.mem_limit });
        }
        Ok(())
    }
}

impl<K: StateKey> StateStore for MemoryStore<K> {
    fn layout(&self) -> RecordLayout {
        RecordLayout::of::<K>(self.moduli.len())
    }

    /// No: a record costs this store one insert into a table, and the grouped expansion costs
    /// about as much again (`leaper -q knight 7x10 --sweep`: 45.5 s against 42.1 s, and 1.42 GiB
    /// against 0.98: the tables, kept from step to step, follow buckets whose sizes change with
    /// every step).
    fn takes_grouped(&self) -> bool {
        false
    }

    fn buckets(&self) -> usize {
        self.current.len()
    }

    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> Result<()> {
        let batch = self.current[bucket].lock().expect("bucket lock").take();
        let Some(batch) = batch else { return Ok(()) };
        let visited = visit(&batch.keys, &batch.residues);
        if self.frugal {
            self.batch_bytes.fetch_sub(batch.capacity_bytes(), Ordering::Relaxed);
        } else {
            self.spare.lock().expect("spare lock").push(batch);
        }
        visited
    }

    fn emit(&self, bucket: usize, records: &[u64]) -> Result<()> {
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

    fn finish_step(&mut self) -> Result<LayerSummary> {
        let batches = if self.frugal { self.drain_frugally() } else { self.drain_reusing() };
        let mut summary = LayerSummary::default();
        let mut held = 0u64;
        for (slot, batch) in self.current.iter_mut().zip(batches) {
            summary.states += batch.len() as u64;
            summary.bytes += batch.bytes() as u64;
            held += batch.capacity_bytes();
            *slot.get_mut().expect("bucket lock") = Some(batch);
        }
        *self.batch_bytes.get_mut() = held;
        let tables = self.recount_table_bytes();
        self.check_limit(tables)?;
        if !self.frugal && 4 * (held + tables) > self.mem_limit {
            tracing::debug!(held, tables, limit = self.mem_limit, "the in-memory store turns frugal");
            self.frugal = true;
            let width = self.moduli.len();
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

    /// Each table drained into a batch read last step (or a new one), and kept.
    fn drain_reusing(&mut self) -> Vec<StateBatch> {
        let spare = std::mem::take(self.spare.get_mut().expect("spare lock"));
        let layout = self.layout();
        let mut batches: Vec<StateBatch> = spare
            .into_iter()
            .chain(std::iter::repeat_with(|| StateBatch::with_capacity(layout, 0)))
            .take(self.next.len())
            .collect();
        self.next.par_iter_mut().zip(batches.par_iter_mut()).for_each(|(slot, batch)| {
            slot.get_mut().expect("bucket lock").drain_into(batch);
        });
        batches
    }

    /// Each table turned into a batch of exactly its size and freed (its successor starts small
    /// and grows with the next layer), a bucket at a time per thread.
    fn drain_frugally(&mut self) -> Vec<StateBatch> {
        let width = self.moduli.len();
        self.next
            .par_iter_mut()
            .enumerate()
            .map(|(bucket, slot)| {
                let table = slot.get_mut().expect("bucket lock");
                std::mem::replace(table, AggregationTable::staggered(width, bucket)).into_batch()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::store::bucket_of;

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
