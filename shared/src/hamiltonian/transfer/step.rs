//! The step of one cell ([`TransferMatrix::expand`]): the cell's forward edges chosen (for open
//! tours also the cell as a tour end, [`super::ends`]), the paths each edge starts, extends or
//! joins ([`join`]), and each branch either emitted ([`settle`](TransferMatrix::settle): pruned
//! by [`super::pruning`], then keyed, one key for a state and its mirror image at a mirror point,
//! [`super::mirror`]) or, where it closed a cycle or the path between the tour ends, counted if
//! it covers a whole board ([`close_whole`](TransferMatrix::close_whole)).

use super::build::TransferMatrix;
use super::kinds::{SlotTour, TourKind};
use crate::engine::StateKey;
use crate::hamiltonian::frontier::{FrontierState, EMPTY, FREE, FULL};

/// What adding one edge did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Joined {
    /// Paths were started, extended or joined; none is complete.
    Partial,
    /// The two ends of one path met: a cycle.
    Cycle,
    /// Two paths that each end at a tour end were joined: one path between the two tour ends.
    EndToEnd,
}

impl<K: StateKey> TransferMatrix<K> {
    /// All successors of `key` (the state before `cell`): `emit` receives the key of each state
    /// before `cell + 1`, `close` the slot of each tour a branch completes.
    #[inline]
    pub fn expand(&self, cell: usize, key: K, emit: &mut impl FnMut(K), close: &mut impl FnMut(usize)) {
        if self.codec.first_is_full(key, cell) && !self.mirrors_after(cell) {
            // A FULL first cell takes no edge: the key moves on without being decoded (a fifth
            // of the states of the 7 x 8 sweep). Mirror points decode it, for the mirror image.
            // Where the check of the cells left asked this state the same question when it was
            // emitted, it is not asked again.
            if self.asked_when_emitted(cell) || {
                let (full, ends) = self.codec.kinds(key, cell);
                self.survives(cell, full, full | ends, self.codec.ends_used(key), 0, None)
            } {
                emit(self.codec.moved_past_full(key, cell));
            }
            return;
        }
        let state = self.codec.decode(key, cell);
        let forward = &self.forward[cell];
        match state.mate[0] {
            FULL => self.settle(cell, &state, 0, emit),
            EMPTY => {
                for (i, &a) in forward.iter().enumerate() {
                    if state.mate[a as usize] == FULL {
                        continue;
                    }
                    for &b in &forward[i + 1..] {
                        if state.mate[b as usize] == FULL {
                            continue;
                        }
                        let mut next = state;
                        let mut newly_full = 0;
                        let first = join(&mut next, 0, a as usize, &mut newly_full);
                        debug_assert_eq!(first, Joined::Partial);
                        let joined = join(&mut next, 0, b as usize, &mut newly_full);
                        self.after_join(cell, &next, newly_full, joined, emit, close);
                    }
                }
            }
            _ => {
                for &a in forward {
                    if state.mate[a as usize] == FULL {
                        continue;
                    }
                    let mut next = state;
                    let mut newly_full = 0;
                    let joined = join(&mut next, 0, a as usize, &mut newly_full);
                    self.after_join(cell, &next, newly_full, joined, emit, close);
                }
            }
        }
        if self.kind.has_ends() && state.ends_used < 2 && state.mate[0] != FULL {
            self.expand_tour_end(cell, &state, emit, close);
        }
    }

    /// Goes on from a branch whose edges are chosen: emits it, or counts the tour it closed.
    #[inline]
    pub(super) fn after_join(
        &self,
        cell: usize,
        next: &FrontierState,
        newly_full: u64,
        joined: Joined,
        emit: &mut impl FnMut(K),
        close: &mut impl FnMut(usize),
    ) {
        match joined {
            Joined::Partial => self.settle(cell, next, newly_full, emit),
            // A cycle is a closed tour only before any cell became a tour end.
            Joined::Cycle if self.kind != TourKind::Open && next.ends_used == 0 => {
                self.close_whole(cell, next, false, close)
            }
            Joined::Cycle => {}
            Joined::EndToEnd => self.close_whole(cell, next, true, close),
        }
    }

    /// Prunes, then emits the window moved on by one cell. Cell 0 is FULL here.
    #[inline]
    pub(crate) fn settle(&self, cell: usize, next: &FrontierState, newly_full: u64, emit: &mut impl FnMut(K)) {
        if !self.survives(cell, next.full, next.used, next.ends_used, newly_full, Some(&next.mate)) {
            return;
        }
        if self.mirrors_after(cell) {
            // The cells processed are symmetric: a state and its mirror image have the same
            // completions, so one key stands for both.
            emit(self.shared_key(cell, next));
        } else {
            emit(self.codec.encode(next, 1, cell + 1));
        }
    }

    /// A cycle (`open == false`) or a path between the two tour ends (`open`) completed at
    /// `cell`: counts it if it covers a whole board of some length.
    #[cold]
    pub(super) fn close_whole(&self, cell: usize, next: &FrontierState, open: bool, close: &mut impl FnMut(usize)) {
        let window = self.reach;
        if (1..=window).any(|p| next.mate[p] != EMPTY && next.mate[p] != FULL) {
            return; // another path is still open
        }
        let first_not_full = (!(next.full >> 1)).trailing_zeros() as usize + 1;
        if first_not_full <= window && next.full >> first_not_full != 0 {
            return; // a FULL cell after an EMPTY one: the tour skipped a cell
        }
        let end = cell + first_not_full;
        let width = self.walked.width();
        if end.is_multiple_of(width) {
            close(SlotTour { open, rows: end / width }.slot(self.kind));
        }
    }
}

/// Adds the edge `x - y` (neither FULL) to `state`.
#[inline]
pub(crate) fn join(state: &mut FrontierState, x: usize, y: usize, newly_full: &mut u64) -> Joined {
    let (mx, my) = (state.mate[x], state.mate[y]);
    match (mx, my) {
        (EMPTY, EMPTY) => {
            state.set_end(x, y as u8);
            state.set_end(y, x as u8);
        }
        (EMPTY, _) => {
            state.set_end(x, my);
            if my != FREE {
                state.mate[my as usize] = x as u8;
            }
            state.set_full(y);
            *newly_full |= 1 << y;
        }
        (_, EMPTY) => {
            state.set_end(y, mx);
            if mx != FREE {
                state.mate[mx as usize] = y as u8;
            }
            state.set_full(x);
            *newly_full |= 1 << x;
        }
        _ => {
            state.set_full(x);
            state.set_full(y);
            if mx as usize == y {
                return Joined::Cycle;
            }
            if mx == FREE && my == FREE {
                return Joined::EndToEnd;
            }
            if mx != FREE {
                state.mate[mx as usize] = my;
            }
            if my != FREE {
                state.mate[my as usize] = mx;
            }
            *newly_full |= (1 << x) | (1 << y);
        }
    }
    Joined::Partial
}
