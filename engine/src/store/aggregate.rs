//! Hash aggregation of states: equal keys are merged by adding their residue vectors.
//!
//! An open-addressing table with linear probing, keys and residues in two flat arrays (no
//! per-entry allocation, no pointer chasing). It is the merge step of every store: the in-memory
//! store keeps one per bucket for the whole step; the out-of-core store keeps one per bucket
//! within its budget and writes it out, sorted, each time it fills.

use std::marker::PhantomData;

use crate::key::{copy_words, RecordLayout, StateKey};
use crate::store::StateBatch;
use crate::Moduli;

/// Slot index from a key; independent of the bits that chose the bucket.
#[inline]
fn slot_hash<K: StateKey>(key: K, salt: u64) -> u64 {
    let mut x = key.fold() ^ 0x5851_f42d_4c95_7f2d ^ salt;
    x = (x ^ (x >> 31)).wrapping_mul(0x7fb5_d329_728e_a185);
    x = (x ^ (x >> 27)).wrapping_mul(0x81da_def4_bc2d_d44d);
    x ^ (x >> 33)
}

/// Keys and residue vectors interleaved, one record per slot (see [`RecordLayout`]), so that one
/// probe touches one cache line. An unused slot holds [`StateKey::VACANT`].
///
/// A table's capacity is `base << k` slots, `base` one of [`BASES`] fixed per table, and a key's
/// home slot is its hash scaled to the capacity (a multiply, not a mask). Why: the buckets of a
/// layer are equal in size, so tables of power-of-two sizes all double at the same moment and
/// the whole layer swings between 40% and 80% load together (16 bytes a record become 20 to 40
/// bytes a state). Tables of staggered bases double at different moments: example, with bases
/// 16 and 24 and 110 entries per table, the first holds 256 slots (43% full) while the second
/// holds 192 (57% full); over [`BASES`] the layer stays over half full, whatever its size
/// (test below), where power-of-two tables fall to 40%.
pub struct AggregationTable<K: StateKey> {
    slots: Vec<u64>,
    width: usize,
    len: usize,
    /// Slots: a base in `BASES` times a power of two (or `max_capacity`).
    capacity: usize,
    /// The most slots the table may grow to ([`bounded`](Self::bounded) tables).
    max_capacity: usize,
    /// Mixed into the hash: a table drained into another one must not share its slot order
    /// (see [`salted`](Self::salted)).
    salt: u64,
    key: PhantomData<K>,
}

/// The capacity bases a table may take; [`AggregationTable::staggered`] spreads them over the
/// buckets. 16 to 31 slots: capacities a sixteenth of an octave apart.
const BASES: std::ops::Range<usize> = 16..32;

/// How far ahead a batch insert prefetches: enough to overlap several cache misses.
const PREFETCH_AHEAD: usize = 16;

impl<K: StateKey> AggregationTable<K> {
    /// Words per slot: the key's, then `width` residues.
    const fn stride(width: usize) -> usize {
        K::WORDS + width
    }

    pub fn new(width: usize) -> Self {
        Self::with_capacity(width, 0)
    }

    /// A table whose capacities are those of the `index`-th base: tables made for the buckets
    /// `0, 1, 2, ...` of a layer grow at different moments (see the type's comment).
    pub fn staggered(width: usize, index: usize) -> Self {
        let base = BASES.start + index % BASES.len();
        Self::sized(width, base)
    }

    /// A table that holds `states` entries without growing.
    pub fn with_capacity(width: usize, states: usize) -> Self {
        Self::sized(width, Self::slots_for(BASES.start, states))
    }

    fn sized(width: usize, capacity: usize) -> Self {
        AggregationTable {
            slots: Self::vacant(capacity, width),
            width,
            len: 0,
            capacity,
            max_capacity: usize::MAX,
            salt: 0,
            key: PhantomData,
        }
    }

    /// A table whose slot order is unrelated to that of the other tables. Why: a table drained
    /// in slot order into a table of the same hash hands it keys in the order of their homes
    /// there, and linear probing then builds long runs, which slowed grouped expansion out of
    /// core down (docs/PERFORMANCE-LOG.md, "Successors merged by neighbourhood before the store").
    pub(crate) fn salted(width: usize) -> Self {
        let mut table = Self::new(width);
        table.salt = 0x2545_f491_4f6c_dd1d;
        table
    }

    /// A table that starts small and grows to at most `bytes` bytes (its last growth to exactly
    /// what fits, not a power of two): the caller asks [`room`](Self::room) before adding.
    pub fn bounded(width: usize, bytes: usize) -> Self {
        let mut table = Self::new(width);
        table.max_capacity = (bytes / (8 * Self::stride(width))).max(table.capacity);
        table
    }

    /// How many more entries a bounded table takes without growing past its bytes.
    pub fn room(&self) -> usize {
        (self.max_capacity.saturating_mul(4) / 5).saturating_sub(self.len)
    }

    /// The least capacity of base `base` that holds `states` entries at most 80% full.
    fn slots_for(base: usize, states: usize) -> usize {
        let wanted = states * 5 / 4;
        let mut slots = base;
        while slots < wanted {
            slots *= 2;
        }
        slots
    }

    fn vacant(capacity: usize, width: usize) -> Vec<u64> {
        let mut slots = vec![0u64; capacity * Self::stride(width)];
        crate::heap::advise_huge_pages(&mut slots);
        for slot in slots.chunks_exact_mut(Self::stride(width)) {
            slot[..K::WORDS].fill(u64::MAX);
        }
        slots
    }

    #[inline(always)]
    fn key_at(&self, slot: usize) -> K {
        K::from_words(&self.slots[slot * Self::stride(self.width)..])
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

    /// Bytes a table for `states` entries of `width` residues will hold (the first base).
    pub fn bytes_for(width: usize, states: usize) -> usize {
        Self::slots_for(BASES.start, states) * 8 * Self::stride(width)
    }

    /// The layout of the records the table holds.
    pub fn layout(&self) -> RecordLayout {
        RecordLayout::of::<K>(self.width)
    }

    #[inline]
    fn home(&self, key: K) -> usize {
        ((slot_hash(key, self.salt) as u128 * self.capacity as u128) >> 64) as usize
    }

    #[inline(always)]
    fn after(&self, slot: usize) -> usize {
        if slot + 1 == self.capacity {
            0
        } else {
            slot + 1
        }
    }

    /// Adds `residues` to the entry of `key`, creating it at zero if absent.
    #[inline]
    pub fn add(&mut self, key: K, residues: &[u64], moduli: &Moduli) {
        debug_assert_ne!(key, K::VACANT);
        if (self.len + 1) * 5 > self.capacity * 4 {
            self.grow();
        }
        let stride = Self::stride(self.width);
        let mut slot = self.home(key);
        loop {
            let entry = &mut self.slots[slot * stride..(slot + 1) * stride];
            let found = K::from_words(entry);
            if found == key {
                moduli.add_assign(&mut entry[K::WORDS..], residues);
                return;
            }
            if found == K::VACANT {
                key.write_words(entry);
                copy_words(&mut entry[K::WORDS..], residues);
                self.len += 1;
                return;
            }
            slot = self.after(slot);
        }
    }

    /// Adds every state of `records` (key words, then residues, per state), prefetching the
    /// slots of the states a little ahead.
    pub fn add_records(&mut self, records: &[u64], moduli: &Moduli) {
        let stride = Self::stride(self.width);
        for (i, record) in records.chunks_exact(stride).enumerate() {
            if let Some(ahead) = records.get((i + PREFETCH_AHEAD) * stride..(i + PREFETCH_AHEAD + 1) * stride) {
                self.prefetch(K::from_words(ahead));
            }
            self.add(K::from_words(record), &record[K::WORDS..], moduli);
        }
    }

    #[inline]
    fn prefetch(&self, key: K) {
        #[cfg(target_arch = "x86_64")]
        {
            let index = self.home(key) * Self::stride(self.width);
            // SAFETY: prefetching is a hint and never faults; the pointer is in bounds anyway.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch(self.slots.as_ptr().add(index) as *const i8, _MM_HINT_T0);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Doubles the capacity. Homes are hashes scaled to the capacity, so the entries come out
    /// of the old table nearly in the order of their new homes and fill the new one front to back.
    fn grow(&mut self) {
        let stride = Self::stride(self.width);
        // A bounded table stops at its bound; past it (a batch bigger than its room) it doubles.
        let capacity = if self.capacity < self.max_capacity {
            (self.capacity * 2).min(self.max_capacity)
        } else {
            self.capacity * 2
        };
        let old = std::mem::replace(&mut self.slots, Self::vacant(capacity, self.width));
        self.capacity = capacity;
        for entry in old.chunks_exact(stride) {
            let key = K::from_words(entry);
            if key == K::VACANT {
                continue;
            }
            let mut slot = self.home(key);
            while self.key_at(slot) != K::VACANT {
                slot = self.after(slot);
            }
            copy_words(&mut self.slots[slot * stride..(slot + 1) * stride], entry);
        }
    }

    /// Moves the entries into `batch` (cleared first, its allocation reused) in slot order and
    /// empties the table, keeping its allocation unless it is far larger than what it held.
    pub fn drain_into(&mut self, batch: &mut StateBatch) {
        let held = self.len;
        batch.clear();
        batch.layout = self.layout();
        // Exact: `reserve` would double a reused batch that is a little short, and the batches
        // of a layer are a third of the memory at the peak.
        batch.keys.reserve_exact(held * K::WORDS);
        batch.residues.reserve_exact(held * self.width);
        let drained = self.drain_each(|entry| {
            batch.push(K::from_words(entry), &entry[K::WORDS..]);
            Ok::<(), std::convert::Infallible>(())
        });
        let Ok(()) = drained;
        let mut fitted = self.capacity;
        while fitted / 2 >= BASES.start && fitted / 2 >= held * 5 / 4 {
            fitted /= 2;
        }
        if self.capacity > 4 * fitted {
            *self = Self::sized(self.width, fitted);
        }
    }

    /// The entries as a batch of exactly their number, in slot order; the table is freed.
    pub fn into_batch(self) -> StateBatch {
        let mut batch = StateBatch::with_capacity(self.layout(), self.len);
        for entry in self.slots.chunks_exact(Self::stride(self.width)) {
            let key = K::from_words(entry);
            if key != K::VACANT {
                batch.push(key, &entry[K::WORDS..]);
            }
        }
        batch
    }

    /// Passes each entry, as a record (key words, then residues), to `write`, in slot order, and
    /// empties the table, keeping its allocation.
    pub(crate) fn drain_each<E>(&mut self, mut write: impl FnMut(&[u64]) -> Result<(), E>) -> Result<(), E> {
        let stride = Self::stride(self.width);
        for entry in self.slots.chunks_exact_mut(stride) {
            if K::from_words(entry) != K::VACANT {
                write(entry)?;
                entry[..K::WORDS].fill(u64::MAX);
            }
        }
        self.len = 0;
        Ok(())
    }

    /// The slots that hold entries, with their keys, in ascending key order.
    fn sorted_slots(&self) -> Vec<(K, u32)> {
        let stride = Self::stride(self.width);
        let mut order: Vec<(K, u32)> = Vec::with_capacity(self.len);
        for (slot, entry) in self.slots.chunks_exact(stride).enumerate() {
            let key = K::from_words(entry);
            if key != K::VACANT {
                order.push((key, slot as u32));
            }
        }
        order.sort_unstable_by_key(|&(key, _)| key);
        order
    }

    /// The aggregated states, keys in ascending order (what [`drain_sorted`](Self::drain_sorted)
    /// writes, as a batch for the tests).
    #[cfg(test)]
    pub fn into_sorted_batch(self) -> StateBatch {
        let stride = Self::stride(self.width);
        let mut sorted = StateBatch::with_capacity(self.layout(), self.len);
        for (key, slot) in self.sorted_slots() {
            let slot = slot as usize;
            sorted.push(key, &self.slots[slot * stride + K::WORDS..(slot + 1) * stride]);
        }
        sorted
    }

    /// Passes each entry (key, residues) to `write` in ascending key order, then empties the
    /// table, keeping its allocation.
    pub fn drain_sorted<E>(&mut self, mut write: impl FnMut(K, &[u64]) -> Result<(), E>) -> Result<(), E> {
        let stride = Self::stride(self.width);
        for (key, slot) in self.sorted_slots() {
            let slot = slot as usize;
            write(key, &self.slots[slot * stride + K::WORDS..(slot + 1) * stride])?;
        }
        self.clear();
        Ok(())
    }

    /// Makes an empty table for `states` entries: grown to hold them where it is smaller (at
    /// once, rather than doubling as they come), shrunk where it is more than eight times larger
    /// (a drain walks every slot, so a table left large by one large group would make every
    /// later small group pay for its size). Its allocation is kept where it is large enough: a
    /// fresh one is a fresh set of pages for the kernel to fault in and zero, and a thread's
    /// groups alternate between small and large.
    /// Drains the table in key order merged with `sorted` (whole records, key words then
    /// residues, keys ascending, each once), the residues of a key found in both added.
    pub fn drain_sorted_with<E>(
        &mut self,
        sorted: &[u64],
        moduli: &Moduli,
        mut write: impl FnMut(K, &[u64]) -> Result<(), E>,
    ) -> Result<(), E> {
        let stride = Self::stride(self.width);
        let mut others = sorted.chunks_exact(stride).peekable();
        let mut sum = vec![0u64; self.width];
        for (key, slot) in self.sorted_slots() {
            let entry = &self.slots[slot as usize * stride + K::WORDS..(slot as usize + 1) * stride];
            while let Some(other) = others.next_if(|record| K::from_words(record) < key) {
                write(K::from_words(other), &other[K::WORDS..])?;
            }
            match others.next_if(|record| K::from_words(record) == key) {
                Some(other) => {
                    sum.copy_from_slice(entry);
                    moduli.add_assign(&mut sum, &other[K::WORDS..]);
                    write(key, &sum)?;
                }
                None => write(key, entry)?,
            }
        }
        for other in others {
            write(K::from_words(other), &other[K::WORDS..])?;
        }
        self.clear();
        Ok(())
    }

    pub(crate) fn fit_empty(&mut self, states: usize) {
        debug_assert!(self.is_empty());
        let needed = Self::slots_for(BASES.start, states);
        if self.capacity >= needed && self.capacity <= 8 * needed {
            return;
        }
        let words = needed * Self::stride(self.width);
        if self.slots.capacity() >= words {
            // Every key in the table is vacant (it is empty), and the slots added are too.
            self.slots.resize(words, u64::MAX);
        } else {
            // Freed first: a reallocation would hold the old and the new allocation at once.
            self.slots = Vec::new();
            self.slots = Self::vacant(needed, self.width);
        }
        self.capacity = needed;
    }

    /// Empties the table, keeping its allocation.
    pub fn clear(&mut self) {
        // Every word MAX: every key VACANT (residues of vacant slots are never read).
        self.slots.fill(u64::MAX);
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_fitted_to_its_groups_keeps_its_allocation_and_no_stale_entry() {
        let moduli = Moduli::first(1).unwrap();
        // Adds `keys` with count 1 each, then drains: the entries and their counts' sum.
        let fill_and_drain = |table: &mut AggregationTable<u64>, keys: &[u64]| {
            let records: Vec<u64> = keys.iter().flat_map(|&key| [key, 1]).collect();
            table.add_records(&records, &moduli);
            let (mut entries, mut total) = (0, 0);
            table
                .drain_each(|entry| -> Result<(), ()> {
                    entries += 1;
                    total += entry[1];
                    Ok(())
                })
                .unwrap();
            (entries, total)
        };
        let large: Vec<u64> = (0..100_000).collect();
        let mut table = AggregationTable::<u64>::salted(1);
        table.fit_empty(100_000);
        let (capacity, allocation) = (table.capacity, table.slots.as_ptr());
        assert!(capacity * 4 >= 100_000 * 5);
        assert_eq!(fill_and_drain(&mut table, &large), (100_000, 100_000));
        assert_eq!(table.capacity, capacity, "sized at once, not grown");

        // A small group: the table shrinks (a drain walks its slots), its allocation stays.
        table.fit_empty(1_000);
        assert!(table.capacity < capacity / 8 && table.slots.len() == table.capacity * 2);
        assert_eq!(table.slots.as_ptr(), allocation);
        let small: Vec<u64> = (0..1_000).chain(0..1_000).collect();
        assert_eq!(fill_and_drain(&mut table, &small), (1_000, 2_000));

        // A large group again: the same allocation, and no entry left from before.
        table.fit_empty(100_000);
        assert_eq!((table.capacity, table.slots.as_ptr()), (capacity, allocation));
        assert_eq!(fill_and_drain(&mut table, &large), (100_000, 100_000));
        // Between, a group within eight times the table's size leaves it as it is.
        table.fit_empty(20_000);
        assert_eq!(table.capacity, capacity);
    }

    #[test]
    fn a_bounded_table_filled_to_its_room_stays_within_its_bytes() {
        let moduli = Moduli::first(1).unwrap();
        for bytes in [0, 100, 4096, 1 << 20, 3 << 20, 3_000_000] {
            let mut table = AggregationTable::<u64>::bounded(1, bytes);
            let room = table.room();
            for key in 0..room as u64 {
                table.add(key, &[1], &moduli);
            }
            assert_eq!(table.room(), 0);
            // Past its room (a batch bigger than the room), it doubles rather than creep.
            let mut past = AggregationTable::<u64>::bounded(1, bytes);
            for key in 0..=room as u64 {
                past.add(key, &[1], &moduli);
            }
            assert_eq!(past.capacity, 2 * table.capacity, "{bytes}");
            assert!(table.bytes() <= bytes.max(AggregationTable::<u64>::bytes_for(1, 0)), "{bytes}: {}", table.bytes());
            // It uses its bytes: the last growth lands on what fits, not on a power of two.
            assert!(table.bytes() * 9 / 10 <= bytes.max(AggregationTable::<u64>::bytes_for(1, 0)), "{bytes}");
            assert!(table.bytes() * 10 / 9 >= bytes, "{bytes}: {}", table.bytes());
            let counts: u64 = table.into_sorted_batch().residues.iter().sum();
            assert_eq!(counts, room as u64);
        }
    }

    /// Slots per entry over `tables` tables of `entries` entries each.
    fn slots_per_entry(tables: &[AggregationTable<u64>], entries: usize) -> f64 {
        tables.iter().map(|t| t.capacity).sum::<usize>() as f64 / (tables.len() * entries) as f64
    }

    #[test]
    fn staggered_tables_of_equal_size_do_not_double_together() {
        let moduli = Moduli::saturating();
        let mut staggered: Vec<_> = (0..32).map(|b| AggregationTable::<u64>::staggered(1, b)).collect();
        let mut alike: Vec<_> = (0..32).map(|_| AggregationTable::<u64>::new(1)).collect();
        let (mut worst_staggered, mut worst_alike) = (0f64, 0f64);
        for entries in 1..=5000u64 {
            for (b, (s, a)) in staggered.iter_mut().zip(&mut alike).enumerate() {
                let key = entries << 8 | b as u64;
                s.add(key, &[1], &moduli);
                a.add(key, &[1], &moduli);
            }
            if entries >= 100 {
                worst_staggered = worst_staggered.max(slots_per_entry(&staggered, entries as usize));
                worst_alike = worst_alike.max(slots_per_entry(&alike, entries as usize));
            }
        }
        // Power-of-two tables that fill together are all 40% full just after they double.
        assert!(worst_alike > 2.4, "{worst_alike}");
        // Staggered, the layer as a whole stays over half full (52% at worst).
        assert!(worst_staggered < 2.0, "{worst_staggered}");
        for table in staggered {
            let batch = table.into_batch();
            assert_eq!(batch.len(), 5000);
            assert!(batch.residues.iter().all(|&count| count == 1));
        }
    }

    #[test]
    fn merges_equal_keys_and_sorts() {
        let moduli = Moduli::first(2).unwrap();
        let mut table = AggregationTable::<u64>::new(2);
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

    #[test]
    fn wide_keys_merge_on_all_their_bits() {
        let moduli = Moduli::first(1).unwrap();
        let mut table = AggregationTable::<u128>::new(1);
        // Keys equal in their low word, different in their high word, stay apart.
        for round in 0..2u64 {
            for high in 0..500u128 {
                table.add(high << 64 | 5, &[round + 1], &moduli);
            }
        }
        let batch = table.into_sorted_batch();
        assert_eq!(batch.len(), 500);
        for i in 0..500 {
            assert_eq!(batch.key::<u128>(i), (i as u128) << 64 | 5);
            assert_eq!(batch.residues_of(i), &[3]);
        }
    }
}
