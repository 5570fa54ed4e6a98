//! The in-memory store: each bucket of the next layer is an [`AggregationTable`] behind its own
//! lock, filled by whichever thread produces states for it; each bucket of the current layer is
//! a sorted [`StateBatch`], dropped as soon as it has been read.

use std::sync::Mutex;

use rayon::prelude::*;

use crate::arith::Moduli;
use crate::error::Result;
use crate::frontier::StateKey;
use crate::store::{AggregationTable, LayerSummary, StateBatch, StateStore, StateVisitor};

pub struct MemoryStore {
    moduli: Moduli,
    current: Vec<Mutex<Option<StateBatch>>>,
    next: Vec<Mutex<AggregationTable>>,
    /// Batches already read this step, kept for the next drain: reusing their memory spares
    /// the kernel from zeroing fresh pages every step.
    spare: Mutex<Vec<StateBatch>>,
}

impl MemoryStore {
    pub fn new(buckets: usize, moduli: Moduli) -> Self {
        let width = moduli.len();
        MemoryStore {
            current: (0..buckets).map(|_| Mutex::new(None)).collect(),
            next: (0..buckets).map(|_| Mutex::new(AggregationTable::new(width))).collect(),
            spare: Mutex::new(Vec::new()),
            moduli,
        }
    }
}

impl StateStore for MemoryStore {
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

    fn emit(&self, bucket: usize, keys: &[StateKey], residues: &[u64]) -> Result<()> {
        self.next[bucket].lock().expect("bucket lock").add_all(keys, residues, &self.moduli);
        Ok(())
    }

    fn finish_step(&mut self) -> Result<LayerSummary> {
        let batches: Vec<StateBatch> =
            self.next.par_iter_mut().map(|slot| slot.get_mut().expect("bucket lock").drain()).collect();
        let mut summary = LayerSummary::default();
        for (slot, batch) in self.current.iter_mut().zip(batches) {
            summary.states += batch.len() as u64;
            summary.bytes += batch.bytes() as u64;
            *slot.get_mut().expect("bucket lock") = Some(batch);
        }
        Ok(summary)
    }
}
