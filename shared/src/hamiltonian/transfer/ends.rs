//! Open tours: the two ends of a Hamiltonian path, as free ends of the frontier.
//!
//! Knuth's device (2025) turns paths into cycles: join a virtual vertex `v` to every cell, and
//! the Hamiltonian paths of the board are exactly the Hamiltonian cycles through `v` (cut `v` out
//! of the cycle and its two neighbours are the path's ends). A frontier for those cycles would
//! keep `v` in every window, with its degree and the partner of each path that ends at it.
//! leaper keeps the same information without the extra cell: the state's `ends_used` is the
//! degree of `v` (0, 1 or 2: tour ends already placed), and a path end whose mate is
//! [`FREE`] is a path whose other end is joined to `v`, that is, a tour end. Two free ends in
//! the window are the two ends of the one path through `v`.
//!
//! Each cell gets one more kind of branch, taken while a tour end is left:
//!
//! ```text
//!   cell 0 is            as an interior cell (step.rs)          as a tour end (here)
//!   EMPTY                two forward edges                      one forward edge; its path
//!                                                               ends FREE here
//!   a path end, mate m   one forward edge                       no edge: m's mate becomes FREE
//!   a path end, FREE     one forward edge                       no edge: the path is complete
//! ```
//!
//! Joining two free ends completes a path between the tour ends, as joining a path's own ends
//! completes a cycle; either counts only if it covers a whole board (`close_whole`). A cell
//! alone may take both ends and no edge: the one tour of the 1x1 board. Pruning lets each tour
//! end still to place excuse one missing edge ([`super::pruning`]), and the mirror symmetry at a
//! mirror point carries free ends to free ends.
//!
//! Keys: a free end is coded as an opening never matched, so the key grows only by the ranks
//! the free ends add (see [`crate::hamiltonian::frontier`]): at width 9 the knight's window of 19 cells
//! needs 65 bits with one free end, so open tours take 128-bit keys from width 9 (closed tours
//! from width 10).

use super::build::TransferMatrix;
use super::step::join;
use crate::engine::StateKey;
use crate::hamiltonian::frontier::{FrontierState, EMPTY, FREE, FULL};

impl<K: StateKey> TransferMatrix<K> {
    /// The branches in which `cell` (window position 0, not FULL) is one of the tour's ends;
    /// `state` has a tour end left.
    #[inline]
    pub(super) fn expand_tour_end(
        &self,
        cell: usize,
        state: &FrontierState,
        emit: &mut impl FnMut(K),
        close: &mut impl FnMut(usize),
    ) {
        debug_assert!(state.ends_used < 2 && state.mate[0] != FULL);
        match state.mate[0] {
            EMPTY => {
                // A tour end with one edge: a path starts here, free at this end.
                for &a in &self.forward[cell] {
                    if state.mate[a as usize] == FULL {
                        continue;
                    }
                    let mut next = *state;
                    next.ends_used += 1;
                    next.set_end(0, FREE);
                    let mut newly_full = 0;
                    let joined = join(&mut next, 0, a as usize, &mut newly_full);
                    self.after_join(cell, &next, newly_full, joined, emit, close);
                }
                // Both ends and no edge: complete only as the whole of a 1x1 board.
                if state.ends_used == 0 {
                    let mut next = *state;
                    next.ends_used = 2;
                    next.set_full(0);
                    self.close_whole(cell, &next, true, close);
                }
            }
            mate => {
                // A path end that stops here.
                let mut next = *state;
                next.ends_used += 1;
                next.set_full(0);
                if mate == FREE {
                    // Its other end was the other tour end: the path is complete.
                    self.close_whole(cell, &next, true, close);
                } else {
                    next.mate[mate as usize] = FREE;
                    self.settle(cell, &next, 0, emit);
                }
            }
        }
    }
}
