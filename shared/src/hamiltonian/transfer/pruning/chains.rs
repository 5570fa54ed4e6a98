//! Rule 5 of [`crate::hamiltonian::forced`] near the board's end: the edges the check of
//! the cells left forces ([`super::residual`]) make chains, and a chain that joins the two ends
//! of one path closes a cycle in every completion. A cycle that leaves a cell out is no tour.
//!
//! Worked example, the knight on a board 4 wide (the module [`super::residual`]'s): the corner
//! 19 has two moves, to 10 and 13. Say 10 and 13 are the two ends of one path and 19 is EMPTY:
//! 19 lacks two edges and has exactly two open, so both are forced, and 10-19-13 closes the
//! path into a cycle. Rules 1 to 4 see nothing wrong (every cell has the edges it lacks open),
//! but if any other cell still lacks an edge, that cell is left out of the cycle: no tour. The
//! same holds for a chain through several EMPTY cells, and for chains that close a cycle with
//! several paths (10 to 13 forced, 13's path to 20, 20 to 25 forced, 25's path back to 10).
//!
//! Which chains there are depends only on what the check reads (the FULL cells and the path
//! ends), so each verdict remembers them ([`ForcedChains`], a word); which path ends are paired
//! is the state's own (its mates), so the cycle is looked for per state
//! ([`ForcedChains::close_a_short_cycle`]), a few instructions where there is a chain at all.
//!
//! It removes only states with no completion, as the other rules do (the tests of
//! [`super`] compare every layer of small sweeps against a backward pass), and it removes many:
//! the 8 x 8 board read 9% fewer states, the 9 x 6 sweep 32% fewer, the 6 x 6 board 46% fewer
//! (docs/PERFORMANCE-LOG.md, "Chains of forced edges").

/// The most chains a verdict remembers: a word holds four. Chains past them are not looked
/// at, which prunes less, never wrongly.
const CHAINS: u64 = 4;

/// The chains of forced edges between two path ends that the check of the cells left found
/// (see the module's comment), packed in a word: chain `i` in bits `14 i..14 i + 14` (its two
/// ends, bits `q` of the region's cells, in 5 bits each, then how many cells it holds, both
/// ends included, in 4), and in bits 56 to 62 how many cells of the region lack edges. A chain
/// is never empty (its ends differ), so the chains kept are the nonzero ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ForcedChains(u64);

impl ForcedChains {
    /// No chain.
    pub const NONE: ForcedChains = ForcedChains(0);

    /// The chains of `forced` (per move, the cells whose edge of that move is forced; `offsets`,
    /// each move's offset; `one` and `two`, the cells with at least one and two forced edges)
    /// between the path ends `ends`, through EMPTY cells of two forced edges each, among the
    /// `lacking` cells (the path ends and the EMPTY cells). `None` where forced EMPTY cells
    /// close a cycle of their own that leaves a lacking cell out: no tour.
    pub(super) fn of(
        (forced, offsets): (&[u64], &[i64]),
        (one, two): (u64, u64),
        ends: u64,
        empty: u64,
        lacking: u64,
    ) -> Option<ForcedChains> {
        // EMPTY cells with two forced edges: the inside of a chain.
        let inside = empty & two;
        // The forced neighbour of `x` other than `not`.
        let next = |x: u32, not: i64| -> Option<u32> {
            forced.iter().zip(offsets).find_map(|(mask, &offset)| {
                let y = x as i64 + offset;
                (mask >> x & 1 != 0 && y != not && (0..64).contains(&y)).then_some(y as u32)
            })
        };
        let mut chains = ForcedChains((lacking.count_ones() as u64) << 56);
        let mut walked = 0u64;
        let mut starts = ends & one;
        while starts != 0 {
            let a = starts.trailing_zeros();
            starts &= starts - 1;
            let Some(first) = next(a, -1) else {
                continue;
            };
            let (mut before, mut at) = (a as i64, first);
            let mut cells = 1;
            while inside >> at & 1 != 0 && walked >> at & 1 == 0 {
                walked |= 1 << at;
                cells += 1;
                match next(at, before) {
                    Some(after) => (before, at) = (at as i64, after),
                    None => break,
                }
            }
            if ends >> at & 1 != 0 {
                // The chain's other end: not a start of its own.
                starts &= !(1u64 << at);
                chains.push(a, at, cells + 1);
            }
        }
        // What is left inside chains and not walked from a path end: chains with an EMPTY end,
        // and cycles of EMPTY cells alone, which close short of a tour unless they hold every
        // lacking cell.
        let mut rest = inside & !walked;
        while rest != 0 {
            let first = rest.trailing_zeros();
            let (mut before, mut at) = (-1i64, first);
            let mut cells = 1u64 << first;
            walked |= cells;
            while let Some(after) = next(at, before) {
                if after == first {
                    if lacking & !cells != 0 {
                        return None;
                    }
                    break;
                }
                if inside >> after & 1 == 0 || walked >> after & 1 != 0 {
                    break;
                }
                walked |= 1 << after;
                cells |= 1 << after;
                (before, at) = (at as i64, after);
            }
            rest &= !walked;
        }
        Some(chains)
    }

    /// Records a chain between the path ends at bits `a` and `b` holding `cells` cells, where
    /// there is room and it fits (windows hold at most 31 positions); whether it was recorded.
    fn push(&mut self, a: u32, b: u32, cells: u64) -> bool {
        let Some(free) = (0..CHAINS).find(|&i| self.chain(i).is_none()) else {
            return false;
        };
        if a >= 32 || b >= 32 || cells >= 16 {
            return false;
        }
        self.0 |= (a as u64 | (b as u64) << 5 | cells << 10) << (14 * free);
        true
    }

    /// Chain `i`: its two ends and its cells, if there is one.
    #[inline]
    fn chain(self, i: u64) -> Option<(usize, usize, u64)> {
        let bits = self.0 >> (14 * i) & 0x3FFF;
        (bits != 0).then_some(((bits & 31) as usize, (bits >> 5 & 31) as usize, bits >> 10))
    }

    /// Whether the chains, with the paths of a state whose mates are `mate` (bit `q` of the
    /// region is position `q + first` of `mate`), close a cycle that leaves a lacking cell out.
    /// Asked of every branch whose verdict has chains: the chains are unpacked once, and each
    /// path end has one mate and at most one chain, so from a chain's end the mates and the
    /// chains lead back to where they started (a cycle) or stop, within as many turns as
    /// there are chains.
    #[inline]
    pub fn close_a_short_cycle(self, mate: &[u8], first: usize) -> bool {
        if self.0 & ((1 << 56) - 1) == 0 {
            return false;
        }
        let lacking = self.0 >> 56 & 127;
        // Chain `i`'s ends as positions of `mate`, and its cells.
        let (mut a, mut b, mut cells) =
            ([usize::MAX; CHAINS as usize], [usize::MAX; CHAINS as usize], [0; CHAINS as usize]);
        let mut count = 0;
        while let Some((from, to, held)) = (count < CHAINS as usize).then(|| self.chain(count as u64)).flatten() {
            (a[count], b[count], cells[count]) = (from + first, to + first, held);
            count += 1;
        }
        let mate_of = |p: usize| mate.get(p).map_or(usize::MAX, |&m| m as usize);
        (0..count).any(|start| {
            let (from, mut to, mut held) = (a[start], b[start], cells[start]);
            for _ in 0..count {
                let m = mate_of(to);
                if m == from {
                    return lacking > held;
                }
                match (0..count).find(|&j| a[j] == m || b[j] == m) {
                    Some(j) => {
                        to = if a[j] == m { b[j] } else { a[j] };
                        held += cells[j];
                    }
                    None => return false,
                }
            }
            false
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mates of a window where positions `a` and `b` are paired, for each pair given.
    fn paired(pairs: &[(usize, usize)]) -> [u8; 32] {
        let mut mate = [0xFF; 32];
        for &(a, b) in pairs {
            mate[a] = b as u8;
            mate[b] = a as u8;
        }
        mate
    }

    /// Chains between the given pairs of ends, of `cells` cells each, among `lacking` cells.
    fn chains(pairs: &[(u32, u32)], cells: u64, lacking: u64) -> ForcedChains {
        let mut chains = ForcedChains(lacking << 56);
        for &(a, b) in pairs {
            assert!(chains.push(a, b, cells));
        }
        chains
    }

    #[test]
    fn a_chain_between_the_ends_of_one_path_closes_a_short_cycle() {
        // The module's example in the region's bits: path ends 0 and 3, a chain 0-9-3 (three
        // cells) among 10 lacking cells.
        let one = chains(&[(0, 3)], 3, 10);
        assert!(one.close_a_short_cycle(&paired(&[(0, 3)]), 0));
        // Seen from a window one position on (the step's frame): the same.
        assert!(one.close_a_short_cycle(&paired(&[(1, 4)]), 1));
        // Ends of two different paths: no cycle yet.
        assert!(!one.close_a_short_cycle(&paired(&[(0, 5), (3, 7)]), 0));
        // The cycle holds every lacking cell: the tour itself.
        assert!(!chains(&[(0, 3)], 3, 3).close_a_short_cycle(&paired(&[(0, 3)]), 0));
    }

    #[test]
    fn chains_and_paths_in_turn_close_a_cycle() {
        // Chains 0-3 and 5-7; paths 3~5 and 7~0: a cycle through both paths, of 4 lacking cells.
        let two = chains(&[(0, 3), (5, 7)], 2, 20);
        assert!(two.close_a_short_cycle(&paired(&[(3, 5), (7, 0)]), 0));
        assert!(!chains(&[(0, 3), (5, 7)], 2, 4).close_a_short_cycle(&paired(&[(3, 5), (7, 0)]), 0));
        // Path 7 goes elsewhere: the walk stops.
        assert!(!two.close_a_short_cycle(&paired(&[(3, 5), (7, 9), (0, 11)]), 0));
        // A free end (no mate position) stops the walk too.
        let mut mate = paired(&[(3, 5)]);
        mate[7] = 0xFD;
        assert!(!two.close_a_short_cycle(&mate, 0));
    }

    #[test]
    fn at_most_four_chains_are_kept() {
        let mut kept = ForcedChains::NONE;
        for i in 0..6 {
            assert_eq!(kept.push(2 * i, 2 * i + 1, 2), i < 4);
        }
        assert_eq!(kept.chain(3), Some((6, 7, 2)));
        // Ends past the window's 31 positions, or chains of 16 cells or more, are not kept.
        let mut none = ForcedChains::NONE;
        assert!(!none.push(3, 40, 2));
        assert!(!none.push(3, 4, 16));
        assert_eq!(none, ForcedChains::NONE);
    }
}
