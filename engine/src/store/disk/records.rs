//! Records side by side in one array of words (a key's words, then its residues: see
//! [`RecordLayout`]), sorted by key in place, and equal keys folded into one.
//!
//! The out-of-core store appends the successors merged group by group (no other record of the
//! step has their keys) to its bucket's array as they come, with no table, and sorts the array
//! once, when the bucket is written or spilled: one pass of a sort over records in cache-sized
//! buckets, where a table costs a probe (and mostly a cache miss) per record. Example, one
//! residue a state: `[9, 1, 4, 2, 9, 5]` (keys 9, 4, 9) sorts to `[4, 2, 9, 1, 9, 5]` and folds
//! to `[4, 2, 9, 6]`: a key given twice after all costs room, never a digit.

use crate::key::{RecordLayout, StateKey};
use crate::Moduli;

/// Sorts the records of `words` (each `layout.stride()` words, a key of type `K` first) by key.
pub fn sort_records<K: StateKey>(words: &mut [u64], layout: RecordLayout) {
    debug_assert_eq!(layout.key_words, K::WORDS);
    match layout.stride() {
        2 => sort_fixed::<K, 2>(words),
        3 => sort_fixed::<K, 3>(words),
        4 => sort_fixed::<K, 4>(words),
        5 => sort_fixed::<K, 5>(words),
        6 => sort_fixed::<K, 6>(words),
        7 => sort_fixed::<K, 7>(words),
        8 => sort_fixed::<K, 8>(words),
        stride => sort_by_index::<K>(words, stride),
    }
}

/// Records of `N` words as arrays, so that the sort moves them whole: a radix sort, a digit of
/// the key at a time from the lowest (a pass only for the digits where keys differ), or a
/// comparison sort where there are few records. The radix sort reads every record once to count,
/// then moves each once per digit, which beats the comparison sort on the buckets of a sweep
/// (docs/PERFORMANCE-LOG.md, "Radix sort of a bucket's records"). Digits are 11 bits in arrays long
/// enough to pay for their larger tables (a 61-bit key in six passes, not eight).
fn sort_fixed<K: StateKey, const N: usize>(words: &mut [u64]) {
    let (records, rest) = words.as_chunks_mut::<N>();
    debug_assert!(rest.is_empty());
    if records.len() < RADIX_FROM {
        records.sort_unstable_by_key(|record| K::from_words(record));
        return;
    }
    let digit_bits = if records.len() >= WIDE_DIGITS_FROM { 11 } else { 8 };
    let radix = 1usize << digit_bits;
    let digits = K::BITS.div_ceil(digit_bits) as usize;
    let digit = |record: &[u64; N], d: usize| {
        ((K::from_words(record) >> (digit_bits * d as u32)).low_u64() as usize) & (radix - 1)
    };
    let mut counts = vec![0usize; digits * radix];
    for record in records.iter() {
        for d in 0..digits {
            counts[d * radix + digit(record, d)] += 1;
        }
    }
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        // Kept from sort to sort, so that its pages are not faulted in and zeroed every time.
        if scratch.len() < records.len() * N {
            *scratch = vec![0; records.len() * N];
        }
        let (scratch, _) = scratch[..records.len() * N].as_chunks_mut::<N>();
        let (mut from, mut to): (&mut [[u64; N]], &mut [[u64; N]]) = (records, scratch);
        let mut in_scratch = false;
        let mut next = vec![0usize; radix];
        for (d, count) in counts.chunks_exact(radix).enumerate() {
            if count.contains(&from.len()) {
                continue; // every key has the same digit here
            }
            let mut at = 0;
            for (slot, &c) in next.iter_mut().zip(count) {
                *slot = at;
                at += c;
            }
            for record in from.iter() {
                let slot = &mut next[digit(record, d)];
                to[*slot] = *record;
                *slot += 1;
            }
            std::mem::swap(&mut from, &mut to);
            in_scratch = !in_scratch;
        }
        if in_scratch {
            // `from` is the scratch now, `to` the records.
            to.copy_from_slice(from);
        }
    });
}

thread_local! {
    /// The radix sort's second array, per thread.
    static SCRATCH: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Records from which the radix sort pays (fewer are sorted by comparison).
const RADIX_FROM: usize = 256;
/// Records from which 11-bit digits pay.
const WIDE_DIGITS_FROM: usize = 1 << 13;

/// Longer records (many residues): the keys sorted with their places, then the records moved.
fn sort_by_index<K: StateKey>(words: &mut [u64], stride: usize) {
    let mut order: Vec<(K, u32)> =
        words.chunks_exact(stride).enumerate().map(|(i, record)| (K::from_words(record), i as u32)).collect();
    order.sort_unstable_by_key(|&(key, _)| key);
    let sorted: Vec<u64> = order
        .iter()
        .flat_map(|&(_, i)| words[i as usize * stride..(i as usize + 1) * stride].iter().copied())
        .collect();
    words.copy_from_slice(&sorted);
}

/// Folds the runs of equal keys of the sorted records of `words` into one record each (their
/// residues added) and shortens `words` to the records left.
pub fn fold_equal_keys<K: StateKey>(words: &mut Vec<u64>, layout: RecordLayout, moduli: &Moduli) {
    let stride = layout.stride();
    let records = words.len() / stride;
    let Some(first_equal) =
        (1..records).find(|&i| K::from_words(&words[(i - 1) * stride..]) == K::from_words(&words[i * stride..]))
    else {
        return; // the usual case: every key once
    };
    let mut kept = first_equal - 1;
    for i in first_equal..records {
        if K::from_words(&words[kept * stride..]) == K::from_words(&words[i * stride..]) {
            let (head, tail) = words.split_at_mut(i * stride);
            moduli.add_assign(&mut head[kept * stride + K::WORDS..(kept + 1) * stride], &tail[K::WORDS..stride]);
        } else {
            kept += 1;
            words.copy_within(i * stride..(i + 1) * stride, kept * stride);
        }
    }
    words.truncate((kept + 1) * stride);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_of_the_module() {
        let layout = RecordLayout::of::<u64>(1);
        let moduli = Moduli::saturating();
        let mut words = vec![9, 1, 4, 2, 9, 5];
        sort_records::<u64>(&mut words, layout);
        assert_eq!(words, [4, 2, 9, 1, 9, 5]);
        fold_equal_keys::<u64>(&mut words, layout, &moduli);
        assert_eq!(words, [4, 2, 9, 6]);
    }

    #[test]
    fn every_stride_sorts_and_folds_like_a_map() {
        use std::collections::BTreeMap;
        let all = Moduli::first(9).unwrap();
        // Both digit widths of the radix sort (and the comparison sort for few records).
        for (width, records) in (1..=9).flat_map(|width| [(width, 100), (width, 600), (width, 10_000)]) {
            let moduli = Moduli::from_values(all.values()[..width].to_vec()).unwrap();
            for wide in [false, true] {
                let key_words = if wide { 2 } else { 1 };
                let layout = RecordLayout::new(key_words, width);
                let mut words = Vec::new();
                let mut expected: BTreeMap<Vec<u64>, Vec<u64>> = BTreeMap::new();
                let mut x = 12345u64;
                for _ in 0..records {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    // Few keys, so that many come more than once; the high word decides first.
                    // Odd widths: keys of every bit, so that every byte takes a radix pass.
                    let key: Vec<u64> = match (wide, width % 2 == 1) {
                        (true, false) => vec![x >> 60, (x >> 40) % 5],
                        (true, true) => vec![x, x.rotate_left(17) % 3],
                        (false, false) => vec![(x >> 40) % 97],
                        (false, true) => vec![x >> 1],
                    };
                    let residues: Vec<u64> = (0..width as u64).map(|j| (x >> j) % 1000).collect();
                    let sum = expected.entry(key.iter().rev().copied().collect()).or_insert(vec![0; width]);
                    moduli.add_assign(sum, &residues);
                    words.extend(&key);
                    words.extend(&residues);
                }
                if wide {
                    sort_records::<u128>(&mut words, layout);
                    fold_equal_keys::<u128>(&mut words, layout, &moduli);
                } else {
                    sort_records::<u64>(&mut words, layout);
                    fold_equal_keys::<u64>(&mut words, layout, &moduli);
                }
                let got: Vec<(Vec<u64>, Vec<u64>)> = words
                    .chunks_exact(layout.stride())
                    .map(|r| (r[..key_words].iter().rev().copied().collect(), r[key_words..].to_vec()))
                    .collect();
                let want: Vec<(Vec<u64>, Vec<u64>)> = expected.into_iter().collect();
                assert_eq!(got, want, "width {width}, wide {wide}");
            }
        }
    }
}
