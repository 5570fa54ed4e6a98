//! Near the board's end, whether the cells left can still all get their edges: the moves
//! forced on them, followed until they contradict, for all of them at once.
//!
//! The neighbourhood test ([`super`]) looks at the cells whose neighbourhood just shrank, inside
//! the window. Near the board's last rows that lets through most states that no tour completes:
//! on the 6 x 8 board, 92.6% of the 780 thousand states of its largest layer (cell 29, row 5
//! of 8) have no completion. Cells past the window are never looked at, and a cell with exactly the
//! edges it needs takes them from its neighbours, who may not have room for them. Where few
//! cells are left (at most [`MAX_REGION`], one machine word), the whole rest of the board is
//! checked with the rules of [`crate::hamiltonian::forced`]:
//!
//! 1. every cell from the window's start on lacks `2 - degree` edges (a cell past the window
//!    lacks two), to be taken among its neighbours that are neither processed nor FULL: a cell
//!    with fewer such edges open than it lacks has no tour;
//! 2. a cell with exactly as many open edges as it lacks takes them all (they are forced);
//! 3. a cell with more forced edges than it lacks has no tour;
//! 4. a cell whose forced edges are all it lacks loses its other open edges (they are struck),
//!    which may leave its neighbours with fewer: back to rule 1, until nothing changes;
//! 5. the forced edges make chains ([`super::chains`]): a cycle of forced edges that leaves a
//!    cell out has no tour, and the chains between path ends come with the verdict, for the
//!    state's paths to be compared with.
//!
//! Each rule only removes states with no completion, so counts do not depend on it: the suite's
//! counts are unchanged, and the tests of [`super`] check on small boards that no state with a
//! completion is rejected and that most without one are. The rules read only
//! which cells are FULL and which are path ends, not which ends are paired, so the masks of one
//! machine word hold everything: bit `q` stands for cell `base + q`, one mask per offset holds
//! the cells whose edge to the cell that far on is open (in row-major order an offset is a
//! move; in the orders of [`order`](crate::hamiltonian::order) a move has an offset per
//! pair of columns), and shifting a mask by its offset moves each cell onto its neighbour.
//! Counting "at least one, two, three" edges per cell is three bit operations per offset, for
//! every cell at once.
//!
//! Worked example, the knight on a board 4 wide and 5 long. Processing cell 3 gives it the
//! edge 3-10, and cell 10 (row 2, column 2), which had the edge 1-10, becomes FULL. The corner
//! 19 (row 4, column 3) has two moves, to cells 10 and 13; with 10 FULL it has one edge open
//! and lacks two: no tour (rule 1). `settle` cannot see it yet: the window after cell 3 is
//! cells 4 to 12, and the corner is looked at only once it is in reach of the cell processed,
//! from cell 10 on: the state and its successors fill seven layers for nothing.
//!
//! Open tours before both tour ends are placed get a weaker test
//! ([`MoveMasks::ends_allow`]): a cell may still become a tour end and do with one edge fewer,
//! so no edge is forced, but a tour end excuses one missing edge of one cell only. Every cell
//! needs at least one edge (an EMPTY cell with none open has no tour), and the cells one edge
//! short are at most the tour ends still to place.
//!
//! Successors share their FULL cells and path ends far more often than their keys, so each
//! thread keeps the verdicts it gave lately, by a hash of what they read
//! ([`MoveMasks::degrees_chains`] runs once per distinct question).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use super::chains::ForcedChains;
use crate::hamiltonian::board::Geometry;
use crate::hamiltonian::order::RowOrder;

/// The most cells from the window's start on the check looks at: one machine word.
pub const MAX_REGION: usize = 64;

/// The most offsets between neighbours the check holds: the knight has 8 in row-major order
/// and 18 to 24 in the orders of [`order`](crate::hamiltonian::order), two leapers 16 in
/// row-major order.
const MOST_MOVES: usize = 24;

/// Verdicts a thread remembers: a direct-mapped table of 96 KiB, which stays in the core's L2
/// cache beside a group's table. A table of 1 MiB answered more questions from memory but took
/// the cache from the rest, and sweeps ran slower (docs/PERFORMANCE-LOG.md, "The check of the
/// cells left alone near the end").
const CACHE_SLOTS: usize = 1 << 12;

/// One remembered verdict: the FULL cells and path ends asked about, a tag holding the cells
/// the question spanned, the verdict and a bit saying the slot is used, and the chains of
/// forced edges found where the verdict allows ([`ForcedChains`]).
type Remembered = (u64, u64, ForcedChains);

thread_local! {
    /// The verdicts of the board whose id is first; a board asking for its own clears them.
    static VERDICTS: RefCell<(u64, Vec<Remembered>)> = const { RefCell::new((0, Vec::new())) };
}

/// Ids of boards, so that two boards never share a thread's verdicts.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The board's moves as shifts of a mask of cells.
#[derive(Debug)]
pub struct MoveMasks {
    /// Per offset between neighbours: the offset, and the cells (bit `v` of a bit set over the
    /// board, with a word of padding) that have a neighbour at that offset.
    moves: Vec<(i64, Vec<u64>)>,
    /// The offsets alone, in the same order.
    offsets: Vec<i64>,
    /// Tells this board's verdicts from another's in a thread's table.
    id: u64,
}

impl MoveMasks {
    /// The masks of `geometry`'s board in row-major order, or `None` when its moves have more
    /// offsets than the check holds.
    pub fn new(geometry: &Geometry) -> Option<Self> {
        Self::from_edges(&RowOrder::row_major(geometry.width).edges(geometry))
    }

    /// The masks of a graph on the cells `0..edges.len()` (`edges[v]`: the neighbours of `v`),
    /// one per offset between neighbours (a move of the board in row-major order; in another
    /// order a move has an offset per pair of columns, [`order`](crate::hamiltonian::order)),
    /// or `None` when there are more than [`MOST_MOVES`].
    pub fn from_edges(edges: &[Vec<usize>]) -> Option<Self> {
        let offset = |v: usize, u: usize| u as i64 - v as i64;
        let mut offsets: Vec<i64> =
            edges.iter().enumerate().flat_map(|(v, adjacent)| adjacent.iter().map(move |&u| offset(v, u))).collect();
        offsets.sort_unstable();
        offsets.dedup();
        if offsets.len() > MOST_MOVES {
            return None;
        }
        let moves: Vec<(i64, Vec<u64>)> = offsets
            .iter()
            .copied()
            .map(|d| {
                let mut words = vec![0u64; edges.len() / 64 + 2];
                for (v, adjacent) in edges.iter().enumerate() {
                    if adjacent.iter().any(|&u| offset(v, u) == d) {
                        words[v / 64] |= 1 << (v % 64);
                    }
                }
                (d, words)
            })
            .collect();
        Some(MoveMasks { moves, offsets, id: NEXT_ID.fetch_add(1, Ordering::Relaxed) })
    }

    /// Whether the cells `base..end` may all get their edges with `spare_ends` tour ends still to
    /// place: [`degrees_chains`](Self::degrees_chains) when none is, with the chains of forced
    /// edges, else [`ends_allow`](Self::ends_allow), with none (no edge is forced then); `None`
    /// where they may not.
    pub fn cells_left_chains(
        &self,
        base: usize,
        end: usize,
        full: u64,
        ends: u64,
        spare_ends: u32,
    ) -> Option<ForcedChains> {
        match spare_ends {
            0 => self.degrees_chains(base, end, full, ends),
            spare => self.ends_allow(base, end, full, ends, spare).then_some(ForcedChains::NONE),
        }
    }

    /// [`cells_left_chains`](Self::cells_left_chains), asked once per distinct question on
    /// each thread.
    #[inline]
    pub fn cells_left_cached(
        &self,
        base: usize,
        end: usize,
        full: u64,
        ends: u64,
        spare_ends: u32,
    ) -> Option<ForcedChains> {
        let answer = |masks: &Self| masks.cells_left_chains(base, end, full, ends, spare_ends);
        // The tag holds `base` and `end` in 20 bits each and the spare ends in 2; windows hold
        // at most 32 cells.
        if end >= 1 << 20 || spare_ends > 3 || full >> 32 != 0 || ends >> 32 != 0 {
            return answer(self);
        }
        let asked = full | ends << 32;
        let tag = 1 | (base as u64) << 22 | (end as u64) << 2 | (spare_ends as u64) << 42;
        let slot = ((asked ^ tag.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            >> (64 - CACHE_SLOTS.trailing_zeros())) as usize;
        VERDICTS.with(|verdicts| {
            let mut verdicts = verdicts.borrow_mut();
            let (owner, table) = &mut *verdicts;
            if *owner != self.id {
                table.clear();
                table.resize(CACHE_SLOTS, (0, 0, ForcedChains::NONE));
                *owner = self.id;
            }
            let (seen, seen_tag, chains) = table[slot];
            if seen == asked && seen_tag | 2 == tag | 2 {
                return (seen_tag & 2 != 0).then_some(chains);
            }
            let verdict = answer(self);
            table[slot] = (asked, tag | (verdict.is_some() as u64) << 1, verdict.unwrap_or(ForcedChains::NONE));
            verdict
        })
    }

    /// The cells `base..end` (at most [`MAX_REGION`]) that lack edges, of which `full` are FULL
    /// and `ends` are path ends (bit `q` for cell `base + q`; all others EMPTY): the path ends
    /// and the EMPTY cells among them, and per move the cells whose edge of that move is open
    /// (both cells lack edges).
    #[inline]
    fn open_edges(&self, base: usize, end: usize, full: u64, ends: u64) -> (u64, u64, [u64; MOST_MOVES]) {
        let cells = end - base;
        debug_assert!(cells <= MAX_REGION);
        let region = if cells >= 64 { u64::MAX } else { (1u64 << cells) - 1 };
        let lacking = region & !full;
        let mut open = [0u64; MOST_MOVES];
        for (open, (offset, lands)) in open.iter_mut().zip(&self.moves) {
            *open = bits_at(lands, base) & lacking & shift(lacking, *offset);
        }
        (ends & lacking, lacking & !ends, open)
    }

    /// Whether the cells `base..end`, of which `full` are FULL and `ends` are path ends (see
    /// [`open_edges`](Self::open_edges)), may all get the edges they lack from each other, by
    /// the module's rules: `false` proves they cannot.
    #[cfg(test)]
    pub fn degrees_allow(&self, base: usize, end: usize, full: u64, ends: u64) -> bool {
        self.degrees_chains(base, end, full, ends).is_some()
    }

    /// [`degrees_allow`](Self::degrees_allow), and where it allows, the chains the forced
    /// edges make ([`super::chains`]); `None` also where forced EMPTY cells close a cycle of
    /// their own that leaves a cell out.
    pub fn degrees_chains(&self, base: usize, end: usize, full: u64, ends: u64) -> Option<ForcedChains> {
        let (ends, empty, mut open) = self.open_edges(base, end, full, ends);
        let moves = self.moves.len();
        // Per move: the cells whose edge of that move is forced (`open` holds those forced or
        // not yet decided).
        let mut forced = [0u64; MOST_MOVES];
        // Each round strikes an edge or ends: at most as many rounds as edges.
        loop {
            let (one, two, three) = at_least(&open[..moves]);
            if ends & !one != 0 || empty & !two != 0 {
                return None;
            }
            let tight = (ends & !two) | (empty & !three);
            for ((forced, open), (offset, _)) in forced.iter_mut().zip(&open).zip(&self.moves) {
                *forced |= open & (tight | shift(tight, *offset));
            }
            let (one, two, three) = at_least(&forced[..moves]);
            if ends & two != 0 || empty & three != 0 {
                return None;
            }
            let done = (ends & one) | (empty & two);
            let mut struck = false;
            for ((open, forced), (offset, _)) in open.iter_mut().zip(&forced).zip(&self.moves) {
                let kept = *open & (forced | !(done | shift(done, *offset)));
                struck |= kept != *open;
                *open = kept;
            }
            if !struck {
                return ForcedChains::of((&forced[..moves], &self.offsets), (one, two), ends, empty, ends | empty);
            }
        }
    }

    /// Whether the cells `base..end` may all get their edges when `spare_ends` tour ends are
    /// still to place (open tours), by rule 1 summed over the cells: an EMPTY cell needs at
    /// least one open edge even as a tour end, and each cell one edge short of what it lacks
    /// takes a tour end of its own. `false` proves there is no tour. No edge is forced here:
    /// any cell may yet become a tour end.
    ///
    /// Example: the module's knight on a board 4 wide and 5 long, asked from cell 4 on with cell
    /// 10 FULL and no path end: the corner 19 (moves to 10 and 13) and cell 4 (row 1, column 0:
    /// moves to 2, 10 and 13) each have one edge open and lack two. Closed tours fail there; an
    /// open tour with both ends still to place may end at those two cells, and passes; with
    /// one end left it fails.
    pub fn ends_allow(&self, base: usize, end: usize, full: u64, ends: u64, spare_ends: u32) -> bool {
        let (ends, empty, open) = self.open_edges(base, end, full, ends);
        let (one, two, _) = at_least(&open[..self.moves.len()]);
        if empty & !one != 0 {
            return false;
        }
        let short = (ends & !one) | (empty & !two);
        short.count_ones() <= spare_ends
    }
}

/// Per cell, whether at least one, two and three of `masks` have its bit.
#[inline]
fn at_least(masks: &[u64]) -> (u64, u64, u64) {
    let (mut one, mut two, mut three) = (0u64, 0u64, 0u64);
    for &mask in masks {
        three |= two & mask;
        two |= one & mask;
        one |= mask;
    }
    (one, two, three)
}

/// Bit `q` set where cell `q + offset` is in `mask`.
#[inline]
fn shift(mask: u64, offset: i64) -> u64 {
    if offset >= 0 {
        mask.checked_shr(offset as u32).unwrap_or(0)
    } else {
        mask.checked_shl(offset.unsigned_abs() as u32).unwrap_or(0)
    }
}

/// The 64 bits of the bit set `words` from bit `base` on.
#[inline]
fn bits_at(words: &[u64], base: usize) -> u64 {
    let (word, bit) = (base / 64, base % 64);
    let low = words[word] >> bit;
    if bit == 0 {
        low
    } else {
        low | words[word + 1] << (64 - bit)
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::knight;
    use super::MoveMasks;

    #[test]
    fn the_corner_of_the_residual_example() {
        // `residual`'s example: the knight on 4 x 5 after cell 3, cell 10 FULL; the corner 19
        // has one move left and lacks two. Without cell 10 FULL every cell has the edges it
        // lacks open (rules 1 to 4 pass), but the corners 4 and 19 have exactly two each, both
        // to 10 and 13: the forced edges close the cycle 4-10-19-13, which leaves the other
        // cells out (`chains`). A board with tours passes: the whole 6 x 6 board.
        let masks = MoveMasks::new(&knight(4, 5)).unwrap();
        assert!(!masks.degrees_allow(4, 20, 1 << (10 - 4), 0));
        assert!(!masks.degrees_allow(4, 20, 0, 0));
        assert!(MoveMasks::new(&knight(6, 6)).unwrap().degrees_allow(0, 36, 0, 0));
        // `ends_allow`'s example: cells 4 and 19 one edge short each, so an open tour with both
        // ends to place passes and one with a single end left fails; a cell with no edge open
        // fails whatever is left (cell 19 with 13 FULL too).
        assert!(masks.ends_allow(4, 20, 1 << (10 - 4), 0, 2));
        assert!(!masks.ends_allow(4, 20, 1 << (10 - 4), 0, 1));
        assert!(!masks.ends_allow(4, 20, 1 << (10 - 4) | 1 << (13 - 4), 0, 2));
        assert!(masks.cells_left_cached(4, 20, 1 << (10 - 4), 0, 2).is_some());
        assert!(masks.cells_left_cached(4, 20, 1 << (10 - 4), 0, 0).is_none());
    }
}
