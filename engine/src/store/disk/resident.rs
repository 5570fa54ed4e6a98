//! The layer just written, kept in memory for the step that reads it, while memory allows.
//!
//! A bucket written straight from its sorted array (no spill, no table) leaves that array
//! holding exactly what its section holds. Kept, the next step reads the bucket from it rather
//! than decompressing and decoding the section (a small share of an out-of-core sweep's time;
//! measured side by side, it gains less than the machine's noise: docs/PERFORMANCE-LOG.md, "Out of
//! core near the kernel's speed"). The section is on disk all the same, so the copy in memory
//! is a cache and nothing more: when the next layer's arrays and the copies together would pass
//! the store's shares of its budget, every copy not yet read is dropped, and those buckets are
//! read from their sections.
//!
//! Example: 503 buckets, shares of 3 GB. Step 30 writes a layer of 0.7 GB from its arrays and
//! keeps them; step 31 reads each bucket from its array (then freed) while its successors fill
//! the next arrays. Were those to pass 2.3 GB with copies still unread, the copies would go, and
//! step 31 would read the rest from disk.
//!
//! What the copies hold is what they cost: each is cut to its length when kept, and freed when
//! read (arrays of a MiB and more are their own mappings, see [`crate::heap`]: freed, their
//! pages go back at once). Handing read arrays on to the next layer's buckets instead left
//! arrays nobody took, uncounted, and a large sweep passed its memory limit (docs/PERFORMANCE-LOG.md,
//! "Copies of a layer freed when read").

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::Result;
use crate::key::RecordLayout;
use crate::store::{StateBatch, StateVisitor};

/// Records a visit of a bucket held in memory copies at a time: a chunk's batch stays below the
/// 1 MiB from which the allocator maps memory afresh (`crate::heap`), so the batch of every
/// bucket visited comes from the heap, not from fresh pages (a chunk as large as a section's
/// block, 64 Ki states, cost the 9 x 6 sweep 10% more page faults on 2026-11-30).
pub const CHUNK_STATES: usize = 16 * 1024;

/// Per bucket of the current layer, its records if still in memory.
pub struct Resident {
    buckets: Vec<Mutex<Option<Vec<u64>>>>,
    /// Words held by the copies not yet read.
    held: AtomicUsize,
}

impl Resident {
    pub fn new(buckets: usize) -> Self {
        Resident { buckets: (0..buckets).map(|_| Mutex::new(None)).collect(), held: AtomicUsize::new(0) }
    }

    /// Keeps `records` (whole records, as bucket `bucket`'s section holds them).
    pub fn keep(&mut self, bucket: usize, mut records: Vec<u64>) {
        records.shrink_to_fit();
        *self.held.get_mut() += records.len();
        let old = self.buckets[bucket].get_mut().expect("resident lock").replace(records);
        debug_assert!(old.is_none(), "a bucket kept twice");
    }

    /// The records of `bucket`, if in memory.
    pub fn records(&mut self, bucket: usize) -> Option<&Vec<u64>> {
        self.buckets[bucket].get_mut().expect("resident lock").as_ref()
    }

    /// Words held by the copies not yet read.
    pub fn held_words(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Passes `bucket`'s records to `visit` if they are in memory, in chunks of `chunk` records
    /// (keys and residues apart, as a section's blocks come), then frees them; `false` when they
    /// are not (the caller reads the section).
    pub fn visit(&self, bucket: usize, layout: RecordLayout, chunk: usize, visit: &mut StateVisitor) -> Result<bool> {
        let Some(records) = self.buckets[bucket].lock().expect("resident lock").take() else {
            return Ok(false);
        };
        self.held.fetch_sub(records.len(), Ordering::Relaxed);
        let stride = layout.stride();
        let mut batch = StateBatch::with_capacity(layout, chunk);
        let mut visited = Ok(());
        for part in records.chunks(chunk * stride) {
            batch.clear();
            for record in part.chunks_exact(stride) {
                batch.keys.extend_from_slice(&record[..layout.key_words]);
                batch.residues.extend_from_slice(&record[layout.key_words..]);
            }
            visited = visit(&batch.keys, &batch.residues);
            if visited.is_err() {
                break;
            }
        }
        drop(records);
        visited.map(|()| true)
    }

    /// Drops every copy not yet read: those buckets are read from their sections.
    pub fn evict(&self) {
        for slot in &self.buckets {
            if let Some(records) = slot.lock().expect("resident lock").take() {
                self.held.fetch_sub(records.len(), Ordering::Relaxed);
            }
        }
    }

    /// Drops every copy (between steps, or with the layer).
    pub fn clear(&mut self) {
        for slot in &mut self.buckets {
            *slot.get_mut().expect("resident lock") = None;
        }
        *self.held.get_mut() = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_bucket_is_read_once_from_memory_then_from_disk() {
        let layout = RecordLayout::new(1, 1);
        let mut resident = Resident::new(3);
        resident.keep(1, vec![4, 2, 9, 6, 11, 1]);
        assert_eq!(resident.held_words(), 6);
        let mut seen = Vec::new();
        let mut visit = |keys: &[u64], residues: &[u64]| {
            seen.push((keys.to_vec(), residues.to_vec()));
            Ok(())
        };
        assert!(!resident.visit(0, layout, 2, &mut visit).unwrap(), "bucket 0 is not in memory");
        assert!(resident.visit(1, layout, 2, &mut visit).unwrap());
        assert!(!resident.visit(1, layout, 2, &mut visit).unwrap(), "read once");
        assert_eq!(seen, [(vec![4, 9], vec![2, 6]), (vec![11], vec![1])]);
        assert_eq!(resident.held_words(), 0);
        resident.keep(2, vec![1, 1]);
        resident.evict();
        assert_eq!(resident.held_words(), 0);
        assert!(!resident.visit(2, layout, 2, &mut |_, _| Ok(())).unwrap(), "evicted");
    }
}
