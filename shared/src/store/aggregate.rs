//! Hash aggregation of states: equal keys are merged by adding their residue vectors.
//!
//! An open-addressing table with linear probing, keys and residues in two flat arrays (no
//! per-entry allocation, no pointer chasing). It is the merge step of every store: the in-memory
//! store keeps one per bucket for the whole step; the out-of-core store fills one per bucket from
//! its spill file when the bucket fits the memory budget.

use crate::arith::Moduli;
use crate::frontier::StateKey;
use crate::store::StateBatch;

/// Marks an unused slot. The low two bits of a frontier key count tour ends used, at most 2, so
/// no valid key has all 64 bits set.
const VACANT: StateKey = u64::MAX;

/// Slot index from a key; independent of the bits that chose the bucket.
#[inline]
fn slot_hash(key: StateKey) -> u64 {
    let mut x = key ^ 0x5851_f42d_4c95_7f2d;
    x = (x ^ (x >> 31)).wrapping_mul(0x7fb5_d329_728e_a185);
    x = (x ^ (x >> 27)).wrapping_mul(0x81da_def4_bc2d_d44d);
    x ^ (x >> 33)
}

/// Keys and residue vectors interleaved, `1 + width` words per slot, so that one probe touches
/// one cache line.
pub struct AggregationTable {
    slots: Vec<u64>,
    width: usize,
    len: usize,
    mask: usize,
}

/// How far ahead a batch insert prefetches: enough to overlap several cache misses.
const PREFETCH_AHEAD: usize = 16;

impl AggregationTable {
    pub fn new(width: usize) -> Self {
        Self::with_capacity(width, 0)
    }

    /// A table that holds `states` entries without growing.
    pub fn with_capacity(width: usize, states: usize) -> Self {
        let capacity = Self::slots_for(states);
        AggregationTable { slots: Self::vacant(capacity, width), width, len: 0, mask: capacity - 1 }
    }

    fn slots_for(states: usize) -> usize {
        (states.max(8) * 5 / 4).next_power_of_two()
    }

    fn vacant(capacity: usize, width: usize) -> Vec<u64> {
        let mut slots = vec![0u64; capacity * (1 + width)];
        for slot in slots.chunks_exact_mut(1 + width) {
            slot[0] = VACANT;
        }
        slots
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held, for memory accounting.
    pub fn bytes(&self) -> usize {
        self.slots.len() * 8
    }

    /// Bytes a table for `states` entries of `width` residues will hold.
    pub fn bytes_for(width: usize, states: usize) -> usize {
        Self::slots_for(states) * 8 * (1 + width)
    }

    #[inline]
    fn home(&self, key: StateKey) -> usize {
        slot_hash(key) as usize & self.mask
    }

    /// Adds `residues` to the entry of `key`, creating it at zero if absent.
    #[inline]
    pub fn add(&mut self, key: StateKey, residues: &[u64], moduli: &Moduli) {
        debug_assert_ne!(key, VACANT);
        if (self.len + 1) * 5 > (self.mask + 1) * 4 {
            self.grow();
        }
        let stride = 1 + self.width;
        let mut slot = self.home(key);
        loop {
            let entry = &mut self.slots[slot * stride..(slot + 1) * stride];
            if entry[0] == key {
                moduli.add_assign(&mut entry[1..], residues);
                return;
            }
            if entry[0] == VACANT {
                entry[0] = key;
                entry[1..].copy_from_slice(residues);
                self.len += 1;
                return;
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// Adds every state of `records` (key, then residues, per state), prefetching the slots of
    /// the states a little ahead.
    pub fn add_records(&mut self, records: &[u64], moduli: &Moduli) {
        let stride = 1 + self.width;
        for (i, record) in records.chunks_exact(stride).enumerate() {
            if let Some(&ahead) = records.get((i + PREFETCH_AHEAD) * stride) {
                self.prefetch(ahead);
            }
            self.add(record[0], &record[1..], moduli);
        }
    }

    #[inline]
    fn prefetch(&self, key: StateKey) {
        #[cfg(target_arch = "x86_64")]
        {
            let index = self.home(key) * (1 + self.width);
            // SAFETY: prefetching is a hint and never faults; the pointer is in bounds anyway.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch(self.slots.as_ptr().add(index) as *const i8, _MM_HINT_T0);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    fn grow(&mut self) {
        let stride = 1 + self.width;
        let capacity = (self.mask + 1) * 2;
        let old = std::mem::replace(&mut self.slots, Self::vacant(capacity, self.width));
        self.mask = capacity - 1;
        for entry in old.chunks_exact(stride) {
            if entry[0] == VACANT {
                continue;
            }
            let mut slot = self.home(entry[0]);
            while self.slots[slot * stride] != VACANT {
                slot = (slot + 1) & self.mask;
            }
            self.slots[slot * stride..(slot + 1) * stride].copy_from_slice(entry);
        }
    }

    /// Moves the entries into `batch` (cleared first, its allocation reused) in slot order and
    /// empties the table, keeping its allocation unless it is far larger than what it held.
    pub fn drain_into(&mut self, batch: &mut StateBatch) {
        let stride = 1 + self.width;
        batch.clear();
        batch.width = self.width;
        batch.keys.reserve(self.len);
        batch.residues.reserve(self.len * self.width);
        for entry in self.slots.chunks_exact_mut(stride) {
            if entry[0] != VACANT {
                batch.push(entry[0], &entry[1..]);
                entry[0] = VACANT;
            }
        }
        if self.mask + 1 > 4 * Self::slots_for(self.len) {
            *self = Self::with_capacity(self.width, self.len);
        }
        self.len = 0;
    }

    /// The aggregated states, keys in ascending order (sorted keys compress well on disk and make
    /// runs reproducible).
    pub fn into_sorted_batch(self) -> StateBatch {
        let stride = 1 + self.width;
        let mut order: Vec<(StateKey, u32)> = Vec::with_capacity(self.len);
        for (slot, entry) in self.slots.chunks_exact(stride).enumerate() {
            if entry[0] != VACANT {
                order.push((entry[0], slot as u32));
            }
        }
        order.sort_unstable_by_key(|&(key, _)| key);
        let mut sorted = StateBatch::with_capacity(self.width, order.len());
        for (key, slot) in order {
            let slot = slot as usize;
            sorted.push(key, &self.slots[slot * stride + 1..(slot + 1) * stride]);
        }
        sorted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_equal_keys_and_sorts() {
        let moduli = Moduli::first(2).unwrap();
        let mut table = AggregationTable::new(2);
        for round in 0..3u64 {
            for key in (0..1000u64).rev() {
                table.add(key * 7919, &[key, round], &moduli);
            }
        }
        assert_eq!(table.len(), 1000);
        let batch = table.into_sorted_batch();
        assert_eq!(batch.len(), 1000);
        for i in 0..1000 {
            assert_eq!(batch.keys[i], i as u64 * 7919);
            assert_eq!(batch.residues_of(i), &[3 * i as u64, 3]);
        }
    }
}
