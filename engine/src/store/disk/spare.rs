//! Buffers of a block's size, kept per thread for the next block to use.
//!
//! A block of 64 Ki states (`section::BLOCK_STATES`) takes a few MiB of words, and a few MiB of
//! bytes laid out before zstd, past the 1 MiB from which the allocator gives an allocation a
//! mapping of its own (`crate::heap`): a buffer made afresh for every block, every section read,
//! every spill run written and every run merged is a new mapping, a page fault for each page it
//! fills and an unmapping when freed. So the disk store takes such buffers from here, of two
//! kinds:
//!
//! * words ([`words`], [`batch`]): a block's records, held by a reader or writer while it lives
//!   and given back when done ([`give_back`]);
//! * bytes ([`with_scratch`]): a block's bytes before zstd and after it, lent for the one call
//!   that encodes or decodes a block.
//!
//! Example: the first 40 s of `knight 9x6 --sweep --counts exact128 --verify --mem-limit 512MiB`
//! made 18,901 mappings and took 1.59 M page faults with the word buffers made afresh, against
//! 13,442 and 1.15 M with blocks of 16 Ki states (below the 1 MiB); with spares, 13,473 and
//! 1.23 M (docs/PERFORMANCE-LOG.md, "Issue 56 item 1's pair", 2026-11-30). The byte buffers made
//! afresh a block slowed the 9 x 8 sweep's steps by about a tenth (the same day).

use std::cell::RefCell;

use crate::key::RecordLayout;
use crate::store::StateBatch;

/// Spare buffers a thread keeps: a block being read, one being written and one more (a merge's
/// runs take more, and make the rest afresh).
const KEPT: usize = 4;

/// The largest buffer kept, in words (4 MiB: a block of 64 Ki records of 8 words), so that a
/// thread keeps 16 MiB at most, and never a layer's array.
const LARGEST_WORDS: usize = 1 << 19;

thread_local! {
    static SPARE: RefCell<Vec<Vec<u64>>> = const { RefCell::new(Vec::new()) };
    static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch { raw: Vec::new(), compressed: Vec::new() }) };
}

/// This thread's bytes for a block: its bytes before zstd (being laid out, or just
/// decompressed) and zstd's output.
pub(super) struct Scratch {
    pub(super) raw: Vec<u8>,
    pub(super) compressed: Vec<u8>,
}

/// Runs `work` on this thread's [`Scratch`]; `work` must not encode or decode a block itself
/// (the scratch is lent once at a time).
pub(super) fn with_scratch<T>(work: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|scratch| work(&mut scratch.borrow_mut()))
}

/// An empty buffer with room for at least `words` words: one of this thread's spares where it
/// has one.
pub(super) fn words(words: usize) -> Vec<u64> {
    let mut buffer = SPARE.with(|spare| spare.borrow_mut().pop()).unwrap_or_default();
    buffer.reserve(words);
    buffer
}

/// Keeps `buffer` for this thread's next block, unless the thread keeps [`KEPT`] already or it
/// is not a block's size (smaller ones come from the allocator's heaps, as cheap as a spare).
pub(super) fn give_back(mut buffer: Vec<u64>) {
    let bytes = buffer.capacity() * 8;
    if bytes < crate::heap::OWN_MAPPING_BYTES || buffer.capacity() > LARGEST_WORDS {
        return;
    }
    buffer.clear();
    SPARE.with(|spare| {
        let mut spare = spare.borrow_mut();
        if spare.len() < KEPT {
            spare.push(buffer);
        }
    });
}

/// An empty batch of room for `states` records of `layout`, made of spares.
pub(super) fn batch(layout: RecordLayout, states: usize) -> StateBatch {
    StateBatch { keys: words(states * layout.key_words), residues: words(states * layout.residues), layout }
}

/// Gives back the buffers of `batch`.
pub(super) fn give_back_batch(batch: StateBatch) {
    give_back(batch.keys);
    give_back(batch.residues);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_buffer_given_back_is_the_next_one_taken_and_a_layer_is_not_kept() {
        let block = words(1 << 18);
        let address = block.as_ptr();
        give_back(block);
        let again = words(1 << 17);
        assert_eq!(again.as_ptr(), address);
        assert!(again.is_empty() && again.capacity() >= 1 << 18);
        // A layer's array given back is freed, not kept: the next buffer is made afresh.
        drop(again);
        give_back(Vec::with_capacity(LARGEST_WORDS + 1));
        assert!(words(1).capacity() < 1 << 10);
        // A small buffer is the heap's.
        give_back(Vec::with_capacity(1 << 10));
        assert!(words(1).capacity() < 1 << 10);
        // No more than KEPT are kept.
        for _ in 0..KEPT + 2 {
            give_back(Vec::with_capacity(1 << 18));
        }
        let taken: Vec<Vec<u64>> = (0..KEPT + 2).map(|_| words(1)).collect();
        assert_eq!(taken.iter().filter(|buffer| buffer.capacity() >= 1 << 18).count(), KEPT);
    }
}
