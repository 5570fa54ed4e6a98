//! The in-memory store: each bucket of the next layer is an [`AggregationTable`] behind its own
//! lock, filled by whichever thread produces states for it; each bucket of the current layer is
//! a [`StateBatch`] whose memory is reused for the next layer once it has been read.

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
    /// Batches already read this step, kept for the next drain: reusing their memory spares
    /// the kernel from zeroing fresh pages every step.
    spare: Mutex<Vec<StateBatch>>,
    /// Bytes held by the tables of the next layer.
    table_bytes: AtomicU64,
    /// Bytes held by the batches of the current layer (and their spares).
    batch_bytes: u64,
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
            spare: Mutex::new(Vec::new()),
            table_bytes: AtomicU64::new(table_bytes),
            batch_bytes: 0,
            mem_limit,
            resident_before: crate::heap::resident_bytes().unwrap_or(0),
            moduli,
        }
    }

    /// What the layers hold by their own accounting, or what the process gained in resident
    /// memory since the store was made if that is more (freed memory the allocator kept).
    fn check_limit(&self, table_bytes: u64) -> Result<()> {
        let gained = crate::heap::resident_bytes().map_or(0, |now| now.saturating_sub(self.resident_before));
        let held = (table_bytes + self.batch_bytes).max(gained);
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

    fn buckets(&self) -> usize {
        self.current.len()
    }

    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> Result<()> {
        let batch = self.current[bucket].lock().expect("bucket lock").take();
        let Some(batch) = batch else { return Ok(()) };
        let visited = visit(&batch.keys, &batch.residues);
        self.spare.lock().expect("spare lock").push(batch);
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
        let mut summary = LayerSummary::default();
        let mut held = 0u64;
        for (slot, batch) in self.current.iter_mut().zip(batches) {
            summary.states += batch.len() as u64;
            summary.bytes += batch.bytes() as u64;
            held += 8 * (batch.keys.capacity() + batch.residues.capacity()) as u64;
            *slot.get_mut().expect("bucket lock") = Some(batch);
        }
        self.batch_bytes = held;
        let tables = self.next.iter_mut().map(|t| t.get_mut().expect("bucket lock").bytes() as u64).sum();
        *self.table_bytes.get_mut() = tables;
        self.check_limit(tables)?;
        Ok(summary)
    }
}
