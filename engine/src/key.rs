//! State keys and the layout of a state record.
//!
//! A problem chooses how wide its keys are: 64 bits where the worst case of its encoding fits
//! (the knight's closed tours up to width 9), 128 bits where it does not (width 10 and up, open
//! tours at width 9, long leapers). Everything that holds states (the stores, the segment files,
//! the spill files, the wire batches) is written once, generic over [`StateKey`], and
//! monomorphised for each width: a 64-bit key costs exactly what it cost before keys could be
//! wider.
//!
//! Outside the typed hot loops a state travels as a *record* of 64-bit words: the key's words
//! (least significant first), then the words of its count (the pass's lanes, `engine::arith`:
//! one residue per modulus, or an exact lane of one or two words). [`RecordLayout`] says how
//! many of each; the typed loops that know their key type compute the same stride as
//! `K::WORDS + width` (the kernel, the aggregation tables, the stores, the bucket sections).
//!
//! ```text
//! u64 key, 2 moduli:           | key       | r0 | r1 |           stride 3
//! u128 key, 2 moduli:          | key lo | key hi | r0 | r1 |     stride 4
//! u64 key, exact 128-bit lane: | key       | count lo | count hi | stride 3
//! ```

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitOr, Not, Shl, Shr};

/// A state key: 64 or 128 bits, compared and sorted as an unsigned integer.
///
/// A transition never produces the key with every bit set: that value ([`StateKey::VACANT`])
/// marks an empty slot in the aggregation tables.
pub trait StateKey:
    Copy
    + Ord
    + Eq
    + Hash
    + Debug
    + Default
    + Send
    + Sync
    + 'static
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + BitOr<Output = Self>
    + BitAnd<Output = Self>
    + Not<Output = Self>
{
    /// 64-bit words per key.
    const WORDS: usize;
    /// Bits per key.
    const BITS: u32;
    /// Every bit set: never a valid key.
    const VACANT: Self;

    fn from_u64(value: u64) -> Self;
    /// The low 64 bits.
    fn low_u64(self) -> u64;
    /// The key stored in `words[..WORDS]`, least significant word first.
    fn from_words(words: &[u64]) -> Self;
    /// Appends the key's words, least significant first.
    fn push_words(self, out: &mut Vec<u64>);
    /// Writes the key's words to `out[..WORDS]`.
    fn write_words(self, out: &mut [u64]);
    /// 64 bits that depend on every bit of the key: bucket and table hashes start from them.
    /// For 64-bit keys it is the key itself, so bucket assignment is what it always was.
    fn fold(self) -> u64;
    fn checked_add(self, other: Self) -> Option<Self>;
    fn wrapping_sub(self, other: Self) -> Self;
    /// Appends the LEB128 encoding of the key.
    fn write_varint(self, out: &mut Vec<u8>);
    /// Reads a LEB128 value and the bytes it took; `None` when truncated or too long.
    fn read_varint(bytes: &[u8]) -> Option<(Self, usize)>;
}

macro_rules! varint_impl {
    ($t:ty, $max_bytes:expr) => {
        fn write_varint(self, out: &mut Vec<u8>) {
            let mut value = self;
            while value >= 0x80 {
                out.push((value as u8) | 0x80);
                value >>= 7;
            }
            out.push(value as u8);
        }

        fn read_varint(bytes: &[u8]) -> Option<(Self, usize)> {
            let mut value: $t = 0;
            for (i, &byte) in bytes.iter().enumerate().take($max_bytes) {
                value |= ((byte & 0x7F) as $t) << (7 * i);
                if byte < 0x80 {
                    return Some((value, i + 1));
                }
            }
            None
        }

        fn checked_add(self, other: Self) -> Option<Self> {
            <$t>::checked_add(self, other)
        }

        fn wrapping_sub(self, other: Self) -> Self {
            <$t>::wrapping_sub(self, other)
        }
    };
}

impl StateKey for u64 {
    const WORDS: usize = 1;
    const BITS: u32 = 64;
    const VACANT: Self = u64::MAX;

    #[inline(always)]
    fn from_u64(value: u64) -> Self {
        value
    }

    #[inline(always)]
    fn low_u64(self) -> u64 {
        self
    }

    #[inline(always)]
    fn from_words(words: &[u64]) -> Self {
        words[0]
    }

    #[inline(always)]
    fn push_words(self, out: &mut Vec<u64>) {
        out.push(self);
    }

    #[inline(always)]
    fn write_words(self, out: &mut [u64]) {
        out[0] = self;
    }

    #[inline(always)]
    fn fold(self) -> u64 {
        self
    }

    varint_impl!(u64, 10);
}

impl StateKey for u128 {
    const WORDS: usize = 2;
    const BITS: u32 = 128;
    const VACANT: Self = u128::MAX;

    #[inline(always)]
    fn from_u64(value: u64) -> Self {
        value as u128
    }

    #[inline(always)]
    fn low_u64(self) -> u64 {
        self as u64
    }

    #[inline(always)]
    fn from_words(words: &[u64]) -> Self {
        words[0] as u128 | (words[1] as u128) << 64
    }

    #[inline(always)]
    fn push_words(self, out: &mut Vec<u64>) {
        out.push(self as u64);
        out.push((self >> 64) as u64);
    }

    #[inline(always)]
    fn write_words(self, out: &mut [u64]) {
        out[0] = self as u64;
        out[1] = (self >> 64) as u64;
    }

    #[inline(always)]
    fn fold(self) -> u64 {
        (self as u64) ^ ((self >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    varint_impl!(u128, 19);
}

/// How a state record is laid out in 64-bit words: the key, then the residues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordLayout {
    /// Words of the key (1 for `u64`, 2 for `u128`).
    pub key_words: usize,
    /// Words of counts per state: the pass's lanes ([`crate::Moduli::len`]), one per
    /// residue and one or two for an exact lane.
    pub residues: usize,
}

impl RecordLayout {
    pub fn new(key_words: usize, residues: usize) -> Self {
        RecordLayout { key_words, residues }
    }

    /// The layout of states with keys of type `K`.
    pub fn of<K: StateKey>(residues: usize) -> Self {
        RecordLayout { key_words: K::WORDS, residues }
    }

    /// Words per record.
    #[inline]
    pub fn stride(&self) -> usize {
        self.key_words + self.residues
    }

    /// Bytes per record.
    pub fn record_bytes(&self) -> usize {
        8 * self.stride()
    }
}

/// Appends `words` (a record, or a record's counts) to `out`. Their length is known only at
/// run time, and `extend_from_slice` of a run-time length is a call to `memcpy`, whose call,
/// size dispatch and return showed in the profile for records of two words (a 64-bit key and
/// one count: the exact pass). Up to four words are written as they are, which pays
/// (docs/PERFORMANCE-LOG.md, "Records copied without a `memcpy` call"; three and four: a 64-bit key
/// and the exact 128-bit lane, without and with its spare residue, "Exact 128-bit counts");
/// longer ones take `memcpy`.
#[inline(always)]
pub fn append_words(out: &mut Vec<u64>, words: &[u64]) {
    match *words {
        [a] => out.push(a),
        [a, b] => out.extend_from_slice(&[a, b]),
        [a, b, c] => out.extend_from_slice(&[a, b, c]),
        [a, b, c, d] => out.extend_from_slice(&[a, b, c, d]),
        _ => out.extend_from_slice(words),
    }
}

/// Copies `from` into `to`, of the same length (see [`append_words`] for why short lengths are
/// written out).
#[inline(always)]
pub fn copy_words(to: &mut [u64], from: &[u64]) {
    match (to, from) {
        ([x], &[a]) => *x = a,
        ([x, y], &[a, b]) => (*x, *y) = (a, b),
        ([x, y, z], &[a, b, c]) => (*x, *y, *z) = (a, b, c),
        ([x, y, z, w], &[a, b, c, d]) => (*x, *y, *z, *w) = (a, b, c, d),
        (to, from) => to.copy_from_slice(from),
    }
}

/// Runs `$body` with `$K` bound to the key type of `$words` words (1: `u64`, 2: `u128`); any
/// other width becomes the error `$other` (an expression of the function's error type).
#[macro_export]
macro_rules! with_key_type {
    ($words:expr, $K:ident => $body:expr, $other:expr) => {
        match $words {
            1 => {
                type $K = u64;
                $body
            }
            2 => {
                type $K = u128;
                $body
            }
            _ => $other,
        }
    };
}

/// The key held in `words` (one or two words), folded as [`StateKey::fold`] folds it.
pub fn fold_words(words: &[u64]) -> u64 {
    match words.len() {
        1 => u64::from_words(words).fold(),
        _ => u128::from_words(words).fold(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn words_and_varints_round_trip(lo in any::<u64>(), hi in any::<u64>()) {
            let wide = lo as u128 | (hi as u128) << 64;
            let mut words = Vec::new();
            wide.push_words(&mut words);
            prop_assert_eq!(u128::from_words(&words), wide);
            let mut bytes = Vec::new();
            wide.write_varint(&mut bytes);
            lo.write_varint(&mut bytes);
            let (a, used) = u128::read_varint(&bytes).unwrap();
            let (b, rest) = u64::read_varint(&bytes[used..]).unwrap();
            prop_assert_eq!((a, b, used + rest), (wide, lo, bytes.len()));
        }
    }

    #[test]
    fn words_are_appended_and_copied_whatever_their_length() {
        for len in 0..6u64 {
            let words: Vec<u64> = (1..=len).collect();
            let mut out = vec![99];
            append_words(&mut out, &words);
            assert_eq!(out[1..], words[..]);
            assert_eq!(out[0], 99);
            let mut to = vec![0; len as usize];
            copy_words(&mut to, &words);
            assert_eq!(to, words);
        }
    }

    #[test]
    fn layouts_count_words() {
        assert_eq!(RecordLayout::of::<u64>(3).stride(), 4);
        assert_eq!(RecordLayout::of::<u128>(3).stride(), 5);
        assert_eq!(fold_words(&[77]), 77);
        assert!(u64::read_varint(&[0x80; 11]).is_none(), "an over-long varint is refused");
    }
}
