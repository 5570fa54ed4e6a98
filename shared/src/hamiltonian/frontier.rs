//! The frontier: what the transfer matrix remembers between two cells, and its key.
//!
//! Cells are processed one at a time, row by row (within a row in the order of
//! [`super::order`]; row-major below, for the example). Processing cell `c` chooses its forward
//! edges (to cells after `c`), so before `c` every cell `< c` already has its final degree 2 and
//! only the next `L` cells can carry edges, where `L` is the reach of the move set (`2w + 1` for
//! the knight on a board `w` wide). That window is the frontier. For each window cell we keep:
//!
//! * `EMPTY`: no edge yet;
//! * `FULL`: degree 2, finished;
//! * an endpoint: degree 1, the end of a partial path, with the window position of the path's
//!   other end (its *mate*). Every path end lies in the window, so mates always pair up inside it;
//! * `FREE` (open tours, see `transfer/ends.rs`): degree 1, and the other end of the path is a
//!   tour end.
//!
//! A worked example: the knight on a board 3 wide (`L = 7`), after cells 0, 1 and 2 have chosen
//! their forward edges 0-5, 0-7, 1-6, 1-8, 2-3 and 2-7. The partial paths are 3-2-7-0-5 and 6-1-8.
//!
//! ```text
//!    0  1  2      position  0      1      2      3      4      5      6
//!    3  4  5      cell      3      4      5      6      7      8      9
//!    6  7  8      state     mate 2 EMPTY  mate 0 mate 5 FULL   mate 3 EMPTY
//!    9 10 11      code      10     00     11     10     01     11     00
//! ```
//!
//! Cell 3 has degree 1 and forward neighbours 8 and 10. Edge 3-8 joins the two paths into
//! 5-...-3-8-...-6 (cells 3 and 8 become FULL, 5 and 6 become mates); edge 3-10 extends the first
//! path to 10, which enters the window at position 7 (position 6 after the window moves on).
//! Joining the two ends of one path closes a cycle, allowed only when that cycle is the whole
//! board (see [`super::transfer`]). During a transition the window is read at positions `0..=L`;
//! the key of the next state is the encoding of positions `1..=L`.
//!
//! # Key encoding
//!
//! The key must be canonical (equal states, equal keys) and small. It is a bit string, least
//! significant bits first:
//!
//! * 2 bits: tour ends already used (always 0 for closed tours);
//! * `2L` bits, 2 per window cell in order: `00` EMPTY, `01` FULL, `10` an endpoint whose mate
//!   comes later (an *opening*, or a FREE end), `11` an endpoint whose mate came earlier (a
//!   *closing*);
//! * for each closing in order, the rank of its mate among the openings still unmatched at that
//!   point, in `ceil(log2(u))` bits where `u` is their number (0 bits when `u = 1`).
//!
//! Openings left unmatched at the end are FREE ends. The ranks are determined by the structure
//! alone, so no relabelling pass is needed, and the fixed-width part is built from bit masks
//! (FULL cells, endpoints, closings) without a loop over cells: only the closings are visited.
//!
//! The worst case puts all openings first: with `P` pairs (and `f` free ends) it costs
//! `2 + 2L + sum over u = 1..P of ceil(log2(u + f))` bits. The key is a `u64` when that fits
//! and a `u128` otherwise ([`FrontierCodec::new`] refuses a window whose worst case exceeds
//! the key it is given).
//!
//! # Dense keys
//!
//! A window position can hold an edge only if its cell has a neighbour among the cells already
//! processed; every other position is EMPTY, and the key need not say so. A key before cell
//! `at` stores the codes of those positions only ([`live_positions`]: a mask per cell, since
//! which they are depends on where the cell lies in its row and on the board's edges), packed
//! with PEXT and unpacked with PDEP ([`crate::bits::BitOps`]); the ranks follow them. In the
//! example above, before cell 3, cells 4 (neighbours 9 and 11) and 9 (neighbours 4, 8, 14
//! and 16) have no neighbour before 3, so positions 1 and 6 are not stored: the codes take
//! `10 11 10 01 11`, 10 bits rather than 14.
//!
//! It matters where the window is long and sparse: processed from the edges inwards
//! ([`super::order`]), a knight's window on a board 9 wide spans 23 positions (77 bits in the
//! plain layout) but at most 19 of them can hold an edge (61 bits), so the order that reads the
//! fewest states keeps 64-bit keys at width 9; in row-major order nearly every position can,
//! and the layouts agree to a few bits. For the knight's closed tours 64 bits admit widths up
//! to 9; width 10 needs 75 bits in that order (69 in row-major order: either way 128), and 128
//! bits hold every window up to [`MAX_WINDOW`] cells.
//! The same state has different keys in the two layouts, so a layer kept on disk is read only
//! by the layout that wrote it (the job's key layout, recorded in its manifest).
//!
//! (One file for both layouts: they are one codec, encoded and decoded by the same tables.)

use std::marker::PhantomData;

use crate::bits::BitOps;
use crate::engine::StateKey;
use crate::error::{Error, Result};

/// Version of the key layout this module writes, the tours' key format
/// ([`key_format`](crate::engine::Transition::key_format), also named in their
/// [`key_layout`](crate::engine::Transition::key_layout)): a layer of keys made by another version
/// is never read. It covers every tours transition, the folds of `--distinct` included: raise it
/// when any of them lays the same states out otherwise. Version 2: the dense layout where the
/// plain one does not fit the key.
pub const FRONTIER_FORMAT: u32 = 2;

/// Longest window the working representation holds.
pub const MAX_WINDOW: usize = 31;

/// Cell states other than "endpoint with mate at position p".
pub const EMPTY: u8 = 0xFF;
pub const FULL: u8 = 0xFE;
pub const FREE: u8 = 0xFD;

/// The decoded frontier: `mate[p]` for window positions `0..len`, `EMPTY` beyond.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrontierState {
    pub mate: [u8; MAX_WINDOW + 1],
    /// Bit `p` set when `mate[p] == FULL` (kept in step with `mate` by the transition code).
    pub full: u64,
    /// Bit `p` set when `mate[p] != EMPTY`.
    pub used: u64,
    /// Tour ends already fixed (open tours; 0 for closed tours).
    pub ends_used: u8,
}

impl FrontierState {
    pub fn empty() -> Self {
        FrontierState { mate: [EMPTY; MAX_WINDOW + 1], full: 0, used: 0, ends_used: 0 }
    }

    #[inline]
    pub fn set_full(&mut self, p: usize) {
        self.mate[p] = FULL;
        self.full |= 1 << p;
        self.used |= 1 << p;
    }

    /// Makes `p` a path end whose other end is `mate` (a position or FREE).
    #[inline]
    pub fn set_end(&mut self, p: usize, mate: u8) {
        self.mate[p] = mate;
        self.used |= 1 << p;
    }
}

/// Encodes and decodes frontier states of one window length, into keys of type `K`, each in the
/// frame of the cell it comes before (see "Dense keys" in the module's comment).
#[derive(Clone, Debug)]
pub struct FrontierCodec<K> {
    len: usize,
    /// PDEP and PEXT or shifts: the same keys either way.
    bits: BitOps,
    /// Whether keys store only the positions of their frame (else every position: the plain
    /// layout, and no PDEP or PEXT to pay where it fits the key anyway).
    dense: bool,
    /// Per cell: the frame of the states before it (the last one also serves every cell after:
    /// a plain codec has one frame, of every position).
    frames: Box<[Frame]>,
    key: PhantomData<K>,
}

/// Which window positions a key before one cell stores, and where its ranks begin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Frame {
    /// The two code bits of each position stored (every other position is EMPTY).
    codes: u64,
    /// Bits before the ranks: the tour ends' two, then two per position stored.
    ranks_at: u32,
}

impl Frame {
    /// The frame that stores the positions of the mask `live`.
    fn of(live: u64) -> Frame {
        Frame { codes: BitOps::portable().spread_even(live) * 0b11, ranks_at: 2 + 2 * live.count_ones() }
    }
}

/// Per cell `at` of a graph on cells `0..edges.len()` processed in order (`0..=cells`: the
/// states before each cell, and after the last), the window positions `p < window` whose cell
/// `at + p` has a neighbour before `at`: only those can hold an edge when the window starts at
/// `at`, every other one is EMPTY.
pub fn live_positions(edges: &[Vec<usize>], window: usize) -> Vec<u64> {
    let mut live = vec![0u64; edges.len() + 1];
    for (u, adjacent) in edges.iter().enumerate() {
        for &v in adjacent {
            // The later end of the edge, seen from every cell after the earlier one up to it.
            let (first, last) = (u.min(v), u.max(v));
            for (at, mask) in live.iter_mut().enumerate().take(last + 1).skip(first + 1) {
                if last - at < window {
                    *mask |= 1 << (last - at);
                }
            }
        }
    }
    live
}

/// The worst-case key size of windows whose positions that can hold an edge are `live` (one
/// mask per cell, [`live_positions`]), with up to `max_free` free ends: the worst case of the
/// most live positions, since a key's worst case grows with its positions.
pub fn dense_worst_case_bits(live: &[u64], max_free: usize) -> u32 {
    live.iter().map(|mask| mask.count_ones() as usize).max().map_or(2, |most| worst_case_bits(most, max_free))
}

/// Bits needed to store a rank below `u`.
#[inline]
fn rank_bits(u: u32) -> u32 {
    debug_assert!(u >= 1);
    32 - (u - 1).leading_zeros()
}

/// The worst-case key size of a window of `len` cells with up to `max_free` free ends.
pub fn worst_case_bits(len: usize, max_free: usize) -> u32 {
    FrontierCodec::<u64>::worst_case_bits(len, max_free)
}

impl<K: StateKey> FrontierCodec<K> {
    /// The worst-case key size of a window of `len` cells with up to `max_free` free ends.
    pub fn worst_case_bits(len: usize, max_free: usize) -> u32 {
        (0..=max_free.min(len))
            .map(|free| {
                let pairs = (len - free) / 2;
                let ranks: u32 = (1..=pairs).map(|u| rank_bits((u + free) as u32)).sum();
                2 + 2 * len as u32 + ranks
            })
            .max()
            .unwrap_or(0)
    }

    /// A codec for windows of `len` cells, with room for `max_free` free ends (0 for closed tours),
    /// that stores every position before every cell (the plain layout).
    /// Fails when the worst case does not fit a `K`; `describe` names the board in the error.
    pub fn new(len: usize, max_free: usize, describe: impl FnOnce(u32) -> Error) -> Result<Self> {
        let every = if len >= 64 { u64::MAX } else { (1u64 << len) - 1 };
        Self::with_frames(len, max_free, &[every], false, describe)
    }

    /// A codec for windows of `len` cells that stores, before cell `at`, only the positions of
    /// `live[at]` ([`live_positions`]; the last mask serves every later cell too).
    pub fn with_live(len: usize, max_free: usize, live: &[u64], describe: impl FnOnce(u32) -> Error) -> Result<Self> {
        Self::with_frames(len, max_free, live, true, describe)
    }

    /// The plain layout where its worst case fits a `K`, else the dense one of `live`
    /// ([`with_live`](Self::with_live)): the same states either way, and the plain keys are
    /// cheaper to make (docs/PERFORMANCE-LOG.md, "Width 9 in the order that reads the fewest
    /// states").
    /// `live` is asked for only where the dense layout is needed.
    pub fn fitting(
        len: usize,
        max_free: usize,
        live: impl FnOnce() -> Vec<u64>,
        describe: impl FnOnce(u32) -> Error,
    ) -> Result<Self> {
        if len > MAX_WINDOW {
            return Err(describe(worst_case_bits(len, max_free)));
        }
        if worst_case_bits(len, max_free) <= K::BITS {
            Self::new(len, max_free, describe)
        } else {
            Self::with_live(len, max_free, &live(), describe)
        }
    }

    fn with_frames(
        len: usize,
        max_free: usize,
        live: &[u64],
        dense: bool,
        describe: impl FnOnce(u32) -> Error,
    ) -> Result<Self> {
        let bits = dense_worst_case_bits(live, max_free);
        let outside = live.iter().any(|&mask| len < 64 && mask >> len != 0);
        if len > MAX_WINDOW || bits > K::BITS || live.is_empty() || outside {
            return Err(describe(bits));
        }
        let frames = live.iter().map(|&mask| Frame::of(mask)).collect();
        Ok(FrontierCodec { len, bits: BitOps::detect(), dense, frames, key: PhantomData })
    }

    /// Whether keys store only the positions that can hold an edge (see the module's comment).
    pub fn is_dense(&self) -> bool {
        self.dense
    }

    /// The frame of the states before cell `at`.
    #[inline(always)]
    fn frame(&self, at: usize) -> Frame {
        self.frames[at.min(self.frames.len() - 1)]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The same codec on the portable bit operations (the keys are the same: tests check it).
    #[cfg(test)]
    fn portable(&self) -> Self {
        FrontierCodec { bits: BitOps::portable(), ..self.clone() }
    }

    /// The codes of a key before cell `at`, two bits a window position, position 0 lowest
    /// (positions the key does not store are EMPTY, `00`).
    #[inline]
    fn codes(&self, key: K, at: usize) -> u64 {
        if !self.dense {
            return (key >> 2).low_u64() & ((1u64 << (2 * self.len)) - 1);
        }
        let frame = self.frame(at);
        let stored = (key >> 2).low_u64() & ((1u64 << (frame.ranks_at - 2)) - 1);
        self.bits.deposit(stored, frame.codes)
    }

    /// Where the ranks of a key before cell `at` begin.
    #[inline(always)]
    fn ranks_at(&self, at: usize) -> u32 {
        if self.dense {
            self.frame(at).ranks_at
        } else {
            2 + 2 * self.len as u32
        }
    }

    /// The key of the window `state.mate[start..start + len]` (positions past the array are
    /// EMPTY) as the state before cell `at`. `start = 1` encodes the window after its first cell
    /// has been processed, without copying.
    #[inline]
    pub fn encode(&self, state: &FrontierState, start: usize, at: usize) -> K {
        let window = ((1u64 << self.len) - 1) << start;
        let full = state.full & window;
        let ends = state.used & !state.full & window;
        let closings = closing_mask(&state.mate) & ends;
        let low = self.bits.spread_even((full | closings) >> start);
        let high = self.bits.spread_even(ends >> start);
        let codes = low | high << 1;
        let stored = if self.dense {
            let frame = self.frame(at);
            debug_assert_eq!(codes & !frame.codes, 0, "an edge at a position no neighbour reaches");
            self.bits.extract(codes, frame.codes)
        } else {
            codes
        };
        // 2 + 2L <= 64 bits: the fixed part always fits a u64.
        let mut key = K::from_u64(state.ends_used as u64 | stored << 2);
        let mut shift = self.ranks_at(at);
        let openings = ends & !closings;
        let mut matched = 0u64;
        let mut pending = closings;
        while pending != 0 {
            let p = pending.trailing_zeros();
            pending &= pending - 1;
            let unmatched = openings & ((1u64 << p) - 1) & !matched;
            let mate = state.mate[p as usize] as u32;
            let rank = (unmatched & ((1u64 << mate) - 1)).count_ones() as u64;
            // A rank of width 0 is 0 and may sit at the very end of the key: clamp its shift.
            key = key | K::from_u64(rank) << shift.min(K::BITS - 1);
            shift += rank_bits(unmatched.count_ones());
            matched |= 1 << mate;
        }
        key
    }

    /// The window's FULL cells and its path ends (openings, closings and FREE ends), as bit
    /// masks of positions `0..len`, read from the fixed part of the key before cell `at` without
    /// decoding it.
    #[inline]
    pub fn kinds(&self, key: K, at: usize) -> (u64, u64) {
        let codes = self.codes(key, at);
        let low = self.bits.gather_even(codes);
        let high = self.bits.gather_even(codes >> 1);
        (low & !high, high)
    }

    /// Whether the first cell of the window is FULL (code `01`), read from the key before cell
    /// `at`: where position 0 is stored, its code is the key's first.
    #[inline]
    pub fn first_is_full(&self, key: K, at: usize) -> bool {
        (!self.dense || self.frame(at).codes & 0b11 != 0) && key.low_u64() >> 2 & 0b11 == 0b01
    }

    /// The tour ends already used, read from the key.
    #[inline]
    pub fn ends_used(&self, key: K) -> u8 {
        (key.low_u64() & 3) as u8
    }

    /// The key before cell `at + 1` of a state before `at` whose first cell is FULL, the window
    /// moved on by one cell (what [`encode`](Self::encode) with `start = 1` gives for the decoded
    /// state), without decoding: a FULL cell is neither an opening nor a closing, so the ranks
    /// stay as they are; the codes move by one cell, the cell entering the window is EMPTY
    /// (`00`), and both are stored in the next cell's frame.
    #[inline]
    pub fn moved_past_full(&self, key: K, at: usize) -> K {
        debug_assert!(self.first_is_full(key, at));
        let (from, to) = (self.ranks_at(at), self.ranks_at(at + 1));
        let moved = self.codes(key, at) >> 2;
        let stored = if self.dense { self.bits.extract(moved, self.frame(at + 1).codes) } else { moved };
        let ranks = (key >> from) << to;
        ranks | K::from_u64(self.ends_used(key) as u64 | stored << 2)
    }

    /// The state of a key produced by [`encode`](Self::encode) before cell `at`, positions
    /// `0..len`.
    #[inline]
    pub fn decode(&self, key: K, at: usize) -> FrontierState {
        let codes = self.codes(key, at);
        let low = self.bits.gather_even(codes);
        let high = self.bits.gather_even(codes >> 1);
        let full = low & !high;
        let closings = low & high;
        let openings = high & !low;
        let mut state =
            FrontierState { mate: full_or_empty(full), full, used: high | full, ends_used: self.ends_used(key) };
        let mut bits = key >> self.ranks_at(at);
        let mut matched = 0u64;
        let mut pending = closings;
        let mut closed = 0;
        while pending != 0 {
            let p = pending.trailing_zeros();
            pending &= pending - 1;
            // Every closing before `p` matched an opening before it: the unmatched openings
            // are counted without `matched`, so that the rank's width and value do not wait for
            // the mate found before (the loop's only chain is then select, then `matched`).
            let before = openings & ((1u64 << p) - 1);
            let width = rank_bits(before.count_ones() - closed);
            closed += 1;
            let rank = (bits.low_u64() & ((1u64 << width) - 1)) as u32;
            bits = bits >> width;
            let mate = self.bits.select(before & !matched, rank);
            matched |= 1 << mate;
            state.mate[p as usize] = mate as u8;
            state.mate[mate] = p as u8;
        }
        // Openings never closed are free ends.
        let mut free = openings & !matched;
        while free != 0 {
            state.mate[free.trailing_zeros() as usize] = FREE;
            free &= free - 1;
        }
        state
    }
}

/// Bit `p` set where `mate[p] < p`: endpoints whose mate comes earlier (EMPTY, FULL and FREE
/// are above every position, so they never count).
#[inline]
fn closing_mask(mate: &[u8; MAX_WINDOW + 1]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86_64 baseline; the loads read exactly the 32 bytes of
        // `mate`.
        unsafe {
            let positions_lo = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            let positions_hi = _mm_add_epi8(positions_lo, _mm_set1_epi8(16));
            let lo = _mm_loadu_si128(mate.as_ptr() as *const __m128i);
            let hi = _mm_loadu_si128(mate.as_ptr().add(16) as *const __m128i);
            // mate < p (unsigned) <=> max(mate, p) != mate; values are below 0x80 or at least
            // 0xFD, so the unsigned max is exact.
            let ge_lo = _mm_cmpeq_epi8(_mm_max_epu8(lo, positions_lo), lo);
            let ge_hi = _mm_cmpeq_epi8(_mm_max_epu8(hi, positions_hi), hi);
            let ge = (_mm_movemask_epi8(ge_lo) as u32 as u64) | ((_mm_movemask_epi8(ge_hi) as u32 as u64) << 16);
            !ge & 0xFFFF_FFFF
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        mate.iter().enumerate().fold(0u64, |mask, (p, &m)| mask | (((m as usize) < p) as u64) << p)
    }
}

/// For each 8-bit mask, eight mate bytes: FULL where the bit is set, EMPTY elsewhere.
const FULL_OR_EMPTY_BYTES: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut bytes = 0u64;
        let mut j = 0;
        while j < 8 {
            let byte = if mask & (1 << j) != 0 { FULL } else { EMPTY };
            bytes |= (byte as u64) << (8 * j);
            j += 1;
        }
        table[mask] = bytes;
        mask += 1;
    }
    table
};

/// A mate array with FULL where `full` has a bit and EMPTY elsewhere.
#[inline]
fn full_or_empty(full: u64) -> [u8; MAX_WINDOW + 1] {
    let mut mate = [EMPTY; MAX_WINDOW + 1];
    for (i, chunk) in mate.chunks_exact_mut(8).enumerate() {
        let group = ((full >> (8 * i)) & 0xFF) as usize;
        chunk.copy_from_slice(&FULL_OR_EMPTY_BYTES[group].to_le_bytes());
    }
    mate
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn too_wide(bits: u32) -> Error {
        Error::InvalidRequest(format!("{bits} bits"))
    }

    #[test]
    fn the_worst_case_grows_with_the_window_so_the_widest_cell_decides() {
        // `dense_worst_case_bits` takes the worst case of the most live positions only.
        for max_free in 0..=2 {
            for len in 1..=64 {
                assert!(worst_case_bits(len, max_free) >= worst_case_bits(len - 1, max_free), "{len} {max_free}");
            }
            let live: [u64; 4] = [0b1, 0b1011_0110, 0b11, 0];
            let every: u32 = live.iter().map(|m| worst_case_bits(m.count_ones() as usize, max_free)).max().unwrap();
            assert_eq!(dense_worst_case_bits(&live, max_free), every);
        }
        assert_eq!(dense_worst_case_bits(&[], 0), 2);
    }

    #[test]
    fn worst_cases_match_the_module_docs() {
        assert_eq!(worst_case_bits(17, 0), 53);
        assert_eq!(worst_case_bits(19, 0), 61);
        assert_eq!(worst_case_bits(21, 0), 69);
        assert_eq!(worst_case_bits(31, 0), 109);
        assert!(FrontierCodec::<u64>::new(19, 0, too_wide).is_ok());
        assert!(FrontierCodec::<u64>::new(21, 0, too_wide).is_err());
        assert!(FrontierCodec::<u128>::new(21, 0, too_wide).is_ok());
        assert!(FrontierCodec::<u128>::new(31, 2, too_wide).is_ok());
        assert!(FrontierCodec::<u128>::new(32, 0, too_wide).is_err());
    }

    /// A random valid window: each cell EMPTY, FULL, FREE (at most `max_free`) or an endpoint,
    /// endpoints paired at random.
    fn arbitrary_state(len: usize, max_free: usize) -> impl Strategy<Value = FrontierState> {
        (proptest::collection::vec(0u8..4, len), any::<u64>()).prop_map(move |(kinds, seed)| {
            let mut state = FrontierState::empty();
            let mut ends = Vec::new();
            let mut free = 0;
            for (p, kind) in kinds.iter().enumerate() {
                match kind {
                    0 => {}
                    1 => state.set_full(p),
                    2 if free < max_free => {
                        state.set_end(p, FREE);
                        free += 1;
                    }
                    _ => ends.push(p),
                }
            }
            if ends.len() % 2 == 1 {
                ends.pop();
            }
            // Fisher-Yates with a small LCG so the pairing is arbitrary (not nested).
            let mut rng = seed | 1;
            for i in (1..ends.len()).rev() {
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ends.swap(i, (rng >> 33) as usize % (i + 1));
            }
            for pair in ends.chunks(2) {
                state.set_end(pair[0], pair[1] as u8);
                state.set_end(pair[1], pair[0] as u8);
            }
            state
        })
    }

    /// `moved_past_full` of the key of `state` (with `ends` tour ends used) against encoding
    /// the state moved on, where its first cell is FULL.
    fn moves_past_a_full_cell<K: StateKey + std::fmt::Debug>(
        codec: FrontierCodec<K>,
        mut state: FrontierState,
        ends: u8,
    ) -> std::result::Result<(), TestCaseError> {
        state.ends_used = ends;
        let key = codec.encode(&state, 0, 0);
        prop_assert_eq!(codec.first_is_full(key, 0), state.mate[0] == FULL);
        prop_assert_eq!(codec.ends_used(key), ends);
        if state.mate[0] == FULL {
            prop_assert_eq!(codec.moved_past_full(key, 0), codec.encode(&state, 1, 1));
        }
        Ok(())
    }

    #[test]
    fn the_dense_example_of_the_module() {
        // The knight 3 wide, row-major (window 7): before cell 3 positions 1 and 6 (cells 4 and
        // 9) have no neighbour processed.
        let geometry = crate::hamiltonian::board::Geometry::new(3, 4, crate::hamiltonian::board::MoveSet::knight());
        let edges: Vec<Vec<usize>> = (0..geometry.cells()).map(|cell| geometry.neighbours(cell).collect()).collect();
        let live = live_positions(&edges, 7);
        assert_eq!(live[3], 0b011_1101);
        assert_eq!(live[0], 0, "nothing is processed before the first cell");
        let mut state = FrontierState::empty();
        for (p, mate) in [(0, 2), (2, 0), (3, 5), (5, 3)] {
            state.set_end(p, mate);
        }
        state.set_full(4);
        let dense = FrontierCodec::<u64>::with_live(7, 0, &live, too_wide).unwrap();
        let key = dense.encode(&state, 0, 3);
        // Ends 00, codes 10 11 10 01 11 (positions 0, 2, 3, 4, 5), then the ranks of the two
        // closings: 0 of 1 opening (no bits), then 0 of 1 (no bits).
        assert_eq!(key, 0b11_01_10_11_10 << 2);
        assert_eq!(dense.decode(key, 3), state);
        let plain = FrontierCodec::<u64>::new(7, 0, too_wide).unwrap();
        assert_eq!(dense.kinds(key, 3), plain.kinds(plain.encode(&state, 0, 0), 0));
    }

    proptest! {
        /// A dense key holds what the plain key holds: the same state back, the same kinds, the
        /// same move past a FULL first cell, on both bit routes, and no more bits than its
        /// frame's worst case.
        #[test]
        fn dense_keys_hold_what_plain_keys_hold(
            state in arbitrary_state(23, 2),
            ends in 0u8..3,
            extra in any::<u64>(),
            extra_next in any::<u64>(),
        ) {
            let every = (1u64 << 23) - 1;
            let mut state = state;
            state.ends_used = ends;
            // Positions outside a frame are EMPTY: the frames hold the state's used cells.
            let live = (extra & every) | state.used;
            let next = (extra_next & every) | state.used >> 1;
            let dense = FrontierCodec::<u128>::with_live(23, 2, &[live, next], too_wide).unwrap();
            let plain = FrontierCodec::<u128>::new(23, 2, too_wide).unwrap();
            let key = dense.encode(&state, 0, 0);
            prop_assert_eq!(dense.decode(key, 0), state);
            prop_assert_eq!(dense.portable().encode(&state, 0, 0), key);
            prop_assert_eq!(dense.portable().decode(key, 0), state);
            prop_assert_eq!(dense.kinds(key, 0), plain.kinds(plain.encode(&state, 0, 0), 0));
            prop_assert_eq!(dense.first_is_full(key, 0), state.mate[0] == FULL);
            prop_assert_eq!(dense.ends_used(key), ends);
            let bits = dense_worst_case_bits(&[live], 2);
            prop_assert!(bits == 128 || key >> bits == 0, "{} bits, key {:#x}", bits, key);
            if state.mate[0] == FULL {
                prop_assert_eq!(dense.moved_past_full(key, 0), dense.encode(&state, 1, 1));
                prop_assert_eq!(dense.decode(dense.moved_past_full(key, 0), 1), dense.decode(dense.encode(&state, 1, 1), 1));
            }
        }

        #[test]
        fn round_trip(state in arbitrary_state(19, 0)) {
            let codec = FrontierCodec::<u64>::new(19, 0, too_wide).unwrap();
            let key = codec.encode(&state, 0, 0);
            prop_assert_eq!(codec.decode(key, 0), state);
        }

        /// PDEP and PEXT (where this CPU has them fast) and shifts make the same keys.
        #[test]
        fn both_bit_routes_make_the_same_keys(state in arbitrary_state(31, 2), ends in 0u8..3) {
            let codec = FrontierCodec::<u128>::new(31, 2, too_wide).unwrap();
            let portable = codec.portable();
            let mut state = state;
            state.ends_used = ends;
            let key = codec.encode(&state, 0, 0);
            prop_assert_eq!(portable.encode(&state, 0, 0), key);
            prop_assert_eq!(portable.decode(key, 0), state);
            prop_assert_eq!(codec.decode(key, 0), state);
            prop_assert_eq!(portable.kinds(key, 0), codec.kinds(key, 0));
        }

        #[test]
        fn wide_keys_round_trip(state in arbitrary_state(31, 2), ends in 0u8..3) {
            let codec = FrontierCodec::<u128>::new(31, 2, too_wide).unwrap();
            let mut state = state;
            state.ends_used = ends;
            let key = codec.encode(&state, 0, 0);
            prop_assert_ne!(key, u128::MAX);
            prop_assert_eq!(codec.decode(key, 0), state);
        }

        #[test]
        fn a_window_that_fits_64_bits_has_the_same_key_in_128(state in arbitrary_state(17, 2), ends in 0u8..3) {
            let narrow = FrontierCodec::<u64>::new(17, 2, too_wide).unwrap();
            let wide = FrontierCodec::<u128>::new(17, 2, too_wide).unwrap();
            let mut state = state;
            state.ends_used = ends;
            prop_assert_eq!(wide.encode(&state, 0, 0), narrow.encode(&state, 0, 0) as u128);
        }

        #[test]
        fn round_trip_with_free_ends(state in arbitrary_state(17, 2), ends in 0u8..3) {
            let codec = FrontierCodec::<u64>::new(17, 2, too_wide).unwrap();
            let mut state = state;
            state.ends_used = ends;
            let key = codec.encode(&state, 0, 0);
            prop_assert_eq!(codec.decode(key, 0), state);
        }

        /// Moving past a FULL first cell on the key is encoding the state moved on.
        #[test]
        fn moving_past_a_full_cell_on_the_key(state in arbitrary_state(31, 2), ends in 0u8..3) {
            moves_past_a_full_cell(FrontierCodec::<u128>::new(31, 2, too_wide).unwrap(), state, ends)?;
        }

        #[test]
        fn moving_past_a_full_cell_on_a_64_bit_key(state in arbitrary_state(17, 2), ends in 0u8..3) {
            moves_past_a_full_cell(FrontierCodec::<u64>::new(17, 2, too_wide).unwrap(), state, ends)?;
        }

        #[test]
        fn encoding_is_canonical_and_shift_aware(state in arbitrary_state(18, 0)) {
            // Encoding positions 1..=18 of a state equals encoding the same window moved to 0.
            let codec = FrontierCodec::<u64>::new(18, 0, too_wide).unwrap();
            let mut shifted = FrontierState::empty();
            shifted.ends_used = state.ends_used;
            let mut moved = FrontierState::empty();
            for p in 0..18 {
                moved.mate[p + 1] = match state.mate[p] { m if m < FREE => m + 1, m => m };
                if state.mate[p] == FULL { moved.full |= 1 << (p + 1); shifted.full |= 1 << p; }
                if state.mate[p] != EMPTY { moved.used |= 1 << (p + 1); shifted.used |= 1 << p; }
                shifted.mate[p] = state.mate[p];
            }
            prop_assert_eq!(codec.encode(&moved, 1, 0), codec.encode(&shifted, 0, 0));
            let again = codec.decode(codec.encode(&state, 0, 0), 0);
            prop_assert_eq!(codec.encode(&again, 0, 0), codec.encode(&state, 0, 0));
        }
    }
}
