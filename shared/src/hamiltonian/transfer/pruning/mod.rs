//! Pruning: every rule by which the step drops a branch that no tour completes, in one place.
//! [`survives`](TransferMatrix::survives) is asked of every branch before it is emitted
//! (`settle`, and `expand`'s shortcut for a FULL first cell). Each rule only removes states
//! with no completion, so counts do not depend on it; it keeps the layers small.
//!
//! 1. The neighbourhood test ([`neighbours_allow`](TransferMatrix::neighbours_allow)), until
//!    the board has at most [`MAX_REGION`] cells left: a branch is pruned if some cell whose
//!    neighbourhood just shrank (a forward neighbour of the cell processed, or a neighbour of a
//!    cell that became FULL) can no longer reach degree 2: its neighbours that are still
//!    unprocessed and not FULL are fewer than the edges it lacks. A path end always lacks one
//!    edge; an EMPTY cell lacks two only if every board the state can still complete contains
//!    it (its row is at most the last row touched so far, or below the shortest length asked
//!    for): in a sweep, an EMPTY cell past the end of a shorter board may stay EMPTY. Each tour
//!    end still to place excuses one missing edge. The test is bit arithmetic: `neighbours[v]`
//!    holds bit `o + R` for each neighbour of cell `v` at offset `o` (`|o| <= R`, the reach),
//!    and the blocked positions of the window shifted into the same frame are masked out.
//! 2. The check of the cells left ([`residual`], asked by
//!    [`may_complete`](TransferMatrix::may_complete)) from there on: closed tours (and open
//!    ones once both tour ends are placed) have every cell left checked at once, with the moves
//!    forced on cells that have exactly the edges they need; open tours with tour ends still to
//!    place, by the cells left short of edges, at most one per tour end. That check implies the
//!    neighbourhood test, which there is left out.
//! 3. With it, the chains of the forced edges ([`chains`]): where they and the state's paths
//!    close a cycle that leaves a cell out, no tour. The chains come with the check's verdict;
//!    the paths are the state's (its mates), so a branch whose mates are not at hand (the
//!    shortcut past a FULL first cell, whose state was asked the same when it was emitted)
//!    skips this rule.
//!
//! Not pruning, and elsewhere: the step takes no edge to a FULL cell, and counts or drops every
//! cycle it closes ([`super::step`]); before counting, a board with no tour at all is told by
//! [`obstruction`](crate::hamiltonian::obstruction), whose forced moves
//! ([`forced`](crate::hamiltonian::forced)) apply the rules of [`residual`] to the whole
//! board, and follow the paths they make.

pub(super) mod chains;
pub(super) mod residual;

use super::build::TransferMatrix;
use crate::engine::StateKey;
use crate::hamiltonian::frontier::MAX_WINDOW;
use residual::{MoveMasks, MAX_REGION};

impl<K: StateKey> TransferMatrix<K> {
    /// Whether a branch whose window (before it moves on) has the FULL cells `full` and the
    /// cells with an edge `used` (cell 0 among both), with `ends_used` tour ends placed, survives
    /// the prune: from [`residual_from`](Self::residual_from) on by the check of the cells left
    /// ([`may_complete`](Self::may_complete)), before it by the neighbourhood test
    /// ([`neighbours_allow`](Self::neighbours_allow)). `newly_full` are the cells this branch
    /// filled.
    ///
    /// The check of the cells left implies the neighbourhood test: it asks every cell the test
    /// asks about, of each board length the test admits, with no more edges open (rule 1 of
    /// [`residual`]), so where it runs the test is left out: the 7 x 8 sweep read the same
    /// 47,490,756 states either way (before the key shared at mirror points was chosen by its
    /// first cells: now 40,277,096), in 6% less time without the test
    /// (`the_check_of_the_cells_left_implies_the_neighbourhood_test`).
    ///
    /// `mate`, where given, is the branch's window (before it moves on), for the chains of
    /// rule 3.
    #[inline]
    pub(super) fn survives(
        &self,
        cell: usize,
        full: u64,
        used: u64,
        ends_used: u8,
        newly_full: u64,
        mate: Option<&[u8; MAX_WINDOW + 1]>,
    ) -> bool {
        // An EMPTY cell must be covered only if every board still possible contains it: boards
        // reach at least the last row anything touches, and at least `min_rows`.
        let last_used = 63 - used.leading_zeros() as usize;
        let covered_end = self.row_end[cell + last_used].max(self.required_end);
        if cell < self.residual_from {
            return self.neighbours_allow(cell, full, used, ends_used, newly_full, covered_end);
        }
        if self.neighbours_everywhere() && !self.neighbours_allow(cell, full, used, ends_used, newly_full, covered_end)
        {
            return false;
        }
        self.may_complete(cell, full, used, ends_used, covered_end, mate)
    }

    /// The neighbourhood test of [`survives`](Self::survives): no cell whose neighbourhood just
    /// shrank (a forward neighbour of `cell`, or a neighbour of a cell in `newly_full`) is short
    /// of edges beyond the tour ends still to place. EMPTY cells count from `covered_end` on
    /// only.
    #[inline]
    fn neighbours_allow(
        &self,
        cell: usize,
        full: u64,
        used: u64,
        ends_used: u8,
        newly_full: u64,
        covered_end: usize,
    ) -> bool {
        let reach = self.reach;
        // Blocked window positions in the frame of `neighbours`: everything up to and including
        // cell 0 (processed) and every FULL cell.
        let blocked = ((full | 1) << reach) | ((1u64 << reach) - 1);
        let mut check = self.forward_mask[cell];
        let mut grown = newly_full;
        while grown != 0 {
            let x = grown.trailing_zeros() as usize;
            grown &= grown - 1;
            check |= (self.neighbours[cell + x] << x) >> reach;
        }
        // Cells past the window are untouched and checked when they enter it.
        check &= !(full | 1) & ((2u64 << reach) - 1);
        // Edges the cells checked lack beyond what they can still get: each tour end still to
        // place excuses one (none for closed tours).
        let mut spare_ends = self.kind.ends_to_place(ends_used);
        while check != 0 {
            let p = check.trailing_zeros() as usize;
            check &= check - 1;
            let lacking = if used >> p & 1 != 0 {
                1
            } else if cell + p < covered_end {
                2
            } else {
                continue;
            };
            let available = (self.neighbours[cell + p] & !(blocked >> p)).count_ones();
            if available < lacking {
                let short = lacking - available;
                if short > spare_ends {
                    return false;
                }
                spare_ends -= short;
            }
        }
        true
    }

    /// Whether a state before `cell` whose first cell is FULL passed the check of the cells
    /// left, as it is now, when it was emitted: where the check ran then (the step before
    /// `cell` is at least [`residual_from`](Self::residual_from)), it asked of the cells
    /// from `cell` on what it would ask now of the cells from `cell + 1` on, with `cell`
    /// FULL: the same cells lack the same edges, for the same board lengths and tour ends
    /// still to place, and the chains (rule 3) were asked too. (A state emitted at a mirror
    /// point may be the image of the one asked; the cells left are symmetric there, so the
    /// verdict is the image's too.) So expanding it asks nothing again: a fifth of the states
    /// read, a lookup each (`full_first_states_are_not_asked_twice`).
    #[inline]
    pub(super) fn asked_when_emitted(&self, cell: usize) -> bool {
        #[cfg(test)]
        if self.recheck_full_first {
            return false;
        }
        cell > self.residual_from
    }

    /// Whether the neighbourhood test runs where the check of the cells left does too (tests).
    #[inline]
    fn neighbours_everywhere(&self) -> bool {
        #[cfg(test)]
        {
            self.neighbours_everywhere
        }
        #[cfg(not(test))]
        {
            false
        }
    }

    /// Sets the masks of the check of the cells left (`None`: no check), and the first cell
    /// after which it runs: where the longest board has at most [`MAX_REGION`] cells left.
    pub(super) fn set_move_masks(&mut self, masks: Option<MoveMasks>) {
        let cells = self.cells;
        self.residual_from = match masks {
            Some(_) => cells.saturating_sub(MAX_REGION + 1),
            None => usize::MAX,
        };
        self.move_masks = masks;
    }

    /// Whether the state may still complete a board of some length the sweep counts (boards end
    /// at `covered_end` or later, on a row boundary), by the check of [`residual`]: asked
    /// from [`residual_from`](Self::residual_from) on, where the longest board has at most
    /// [`MAX_REGION`] cells left. Open tours whose two tour ends
    /// are placed are checked as closed tours are: every cell left needs all its edges. Before
    /// that any cell may still become a tour end and do with one edge fewer, and the weaker
    /// test of [`MoveMasks::ends_allow`] holds (which every state a closed tour may complete
    /// passes too, so `--tours both` asks it of its states without a tour end). Where `mate`
    /// is given, a board length whose forced chains close a short cycle with the state's paths
    /// ([`chains`]) does not count as one the state may complete.
    #[inline]
    fn may_complete(
        &self,
        cell: usize,
        full: u64,
        used: u64,
        ends_used: u8,
        covered_end: usize,
        mate: Option<&[u8; MAX_WINDOW + 1]>,
    ) -> bool {
        let Some(masks) = &self.move_masks else {
            return true;
        };
        let spare_ends = self.kind.ends_to_place(ends_used);
        let cells = self.cells;
        debug_assert!(cell >= self.residual_from && cells - (cell + 1) <= MAX_REGION);
        // Window position `p >= 1` is cell `cell + p`: bit `p - 1` from the next cell on.
        let (full, ends) = (full >> 1, (used & !full) >> 1);
        // Longest board first: a state that completes at all mostly completes there, and one
        // question then settles it (7 x 10 sweep: 11% less CPU time than shortest first).
        // Stepped a row at a time rather than counted by a division: this runs for every
        // successor, and a division was a twentieth of the prune's time.
        let width = self.width;
        debug_assert!(covered_end <= cells && (cells - covered_end).is_multiple_of(width));
        let mut end = cells;
        loop {
            // Bit `q` of the region is window position `q + 1`.
            let chains = masks.cells_left_cached(cell + 1, end, full, ends, spare_ends);
            if chains.is_some_and(|chains| mate.is_none_or(|mate| !chains.close_a_short_cycle(mate, 1))) {
                return true;
            }
            if end < covered_end + width {
                return false;
            }
            end -= width;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{alive_states, knight, layers_with_successors, unchecked};
    use super::super::{TourKind, TransferMatrix};
    use crate::engine::Transition;
    use crate::hamiltonian::board::{Geometry, MoveSet};

    #[test]
    fn the_check_of_the_cells_left_prunes_dead_states_only() {
        // Without the check, on single boards and sweeps: a state is alive when some path from
        // it closes a tour counted. The check rejects no live state, and with it the counts are
        // the same. On knight boards it rejects most dead states; with twelve moves a cell
        // (knight and wazir) few cells have exactly the edges they need, and it rejects few.
        // Open tours before both tour ends are placed get the weaker test (no edge forced), so
        // fewer of the dead are rejected: 58-76% (47-49% when those states were not checked).
        // The chains of forced edges with the state's paths (rule 3, `chains`) reject more of
        // the dead, and no live state either: on the closed knight boards, some states no
        // other rule rejects.
        let knight_and_wazir = MoveSet::leapers(&[(1, 2), (0, 1)]).unwrap();
        for (geometry, min_rows, kind, share) in [
            (knight(6, 6), 6, TourKind::Closed, 0.5),
            (knight(5, 10), 1, TourKind::Closed, 0.5),
            (knight(6, 7), 1, TourKind::Closed, 0.5),
            (Geometry::new(4, 6, knight_and_wazir), 1, TourKind::Closed, 0.0),
            (knight(5, 6), 6, TourKind::Open, 0.55),
            (knight(4, 8), 1, TourKind::Open, 0.55),
            (knight(5, 6), 1, TourKind::Both, 0.55),
        ] {
            let checked = TransferMatrix::<u64>::new(geometry.clone(), min_rows, kind).unwrap();
            let masks = checked.move_masks.as_ref().expect("tours of a plain board are checked");
            let plain = unchecked(TransferMatrix::new(geometry.clone(), min_rows, kind));
            let (layers, successors, tours) = layers_with_successors(&plain);
            let alive_by_cell = alive_states(&layers, &successors);
            let (mut dead, mut rejected, mut by_chains) = (0, 0, 0);
            for (cell, alive) in alive_by_cell.iter().enumerate() {
                let first_end = ((min_rows * geometry.width).max(cell + 1)).div_ceil(geometry.width) * geometry.width;
                for (&key, &alive) in layers[cell].iter().zip(alive) {
                    let state = plain.codec().decode(key, cell);
                    let ends = state.used & !state.full;
                    let spare_ends = kind.ends_to_place(state.ends_used);
                    let lengths = || (first_end..=geometry.cells()).step_by(geometry.width);
                    let chains = |end| masks.cells_left_chains(cell, end, state.full, ends, spare_ends);
                    let by_degrees = lengths().any(|end| chains(end).is_some());
                    // Bit `q` of the region from `cell` on is position `q` of the state.
                    let allowed = lengths()
                        .any(|end| chains(end).is_some_and(|chains| !chains.close_a_short_cycle(&state.mate, 0)));
                    assert!(allowed || !alive, "{geometry:?}: live state {:?} before cell {cell} rejected", state.mate);
                    dead += usize::from(!alive);
                    rejected += usize::from(!allowed);
                    by_chains += usize::from(by_degrees && !allowed);
                }
            }
            // The lengths asked for; a single board may prune away the tours of shorter ones.
            let (_, _, checked_tours) = layers_with_successors(&checked);
            let reported = Transition::reported(&checked);
            assert_eq!(checked_tours[reported.clone()], tours[reported], "{geometry:?}");
            assert!(rejected as f64 > share * dead as f64, "{geometry:?}: {rejected} of {dead} dead states rejected");
            assert!(rejected > 0, "{geometry:?}: no dead state rejected");
            if kind == TourKind::Closed && geometry.moves == MoveSet::knight() {
                assert!(by_chains > 0, "{geometry:?}: the chains rejected no state the degrees let through");
            }
        }
    }

    #[test]
    fn few_dead_states_are_left_to_read() {
        // What pruning could still gain: of the states read with every rule on, the share with
        // no completion (a backward pass, as above). So little is left that no rule, however
        // strong, would read many fewer states: 5.0% on 6 x 6, 4.0% on 6 x 7, 4.4% on 7 x 6,
        // 1.0% on 5 x 10 (and 8.5% on 8 x 6, 8 wide, too slow a board for here), where without
        // the check of the cells left 86% of 6 x 6's would be. Each is held to a little above
        // its figure, so that a rule lost shows.
        for (width, rows, most) in [(6, 6, 0.055), (6, 7, 0.045), (7, 6, 0.05), (5, 10, 0.015)] {
            let matrix = TransferMatrix::<u64>::new(knight(width, rows), rows, TourKind::Closed).unwrap();
            let (layers, successors, _) = layers_with_successors(&matrix);
            let alive = alive_states(&layers, &successors).concat();
            let (read, dead) = (alive.len(), alive.iter().filter(|&&alive| !alive).count());
            let share = dead as f64 / read as f64;
            assert!(dead > 0 && share < most, "{width} x {rows}: {dead} of {read} states read are dead ({share:.3})");
        }
    }

    /// Sweeps and single boards, each kind of tour, and a board longer than the check of the
    /// cells left reaches (5 x 14: its first cells are tested by neighbourhood only).
    fn every_kind_and_a_long_board() -> [(Geometry, usize, TourKind); 6] {
        [
            (knight(6, 6), 6, TourKind::Closed),
            (knight(5, 10), 1, TourKind::Closed),
            (knight(5, 14), 14, TourKind::Closed),
            (knight(5, 6), 6, TourKind::Open),
            (knight(4, 8), 1, TourKind::Open),
            (knight(5, 6), 1, TourKind::Both),
        ]
    }

    /// Every layer and every slot's tours of `plain`'s boards are the same with `change` made
    /// to a second matrix; the layers hold more than `at_least` states where `counted` says.
    fn layers_unchanged_by(
        change: impl Fn(&mut TransferMatrix<u64>),
        counted: impl Fn(&TransferMatrix<u64>, &[Vec<u64>]) -> usize,
        at_least: usize,
    ) {
        for (geometry, min_rows, kind) in every_kind_and_a_long_board() {
            let plain = TransferMatrix::<u64>::new(geometry.clone(), min_rows, kind).unwrap();
            let mut changed = TransferMatrix::<u64>::new(geometry.clone(), min_rows, kind).unwrap();
            change(&mut changed);
            let (layers, _, tours) = layers_with_successors(&plain);
            let (layers_changed, _, tours_changed) = layers_with_successors(&changed);
            let seen = counted(&plain, &layers);
            assert!(seen > at_least, "{geometry:?}: {seen} states");
            assert_eq!(layers, layers_changed, "{geometry:?} {kind:?}");
            assert_eq!(tours, tours_changed, "{geometry:?} {kind:?}");
        }
    }

    #[test]
    fn the_check_of_the_cells_left_implies_the_neighbourhood_test() {
        // Where the check of the cells left runs, the neighbourhood test in front of it rejects
        // nothing more: every layer is the same with it and without it. Sweeps and single
        // boards, each kind of tour, and a board longer than the check reaches (5 x 14: its
        // first cells are tested by neighbourhood only).
        layers_unchanged_by(
            |both| both.neighbours_everywhere = true,
            |_, layers| layers.iter().map(Vec::len).sum(),
            1000,
        );
        assert_eq!(TransferMatrix::<u64>::new(knight(5, 14), 14, TourKind::Closed).unwrap().residual_from, 5);
    }

    #[test]
    fn full_first_states_are_not_asked_twice() {
        // A state whose first cell is FULL passed the check of the cells left when it was
        // emitted; asking it again as it is expanded rejects nothing: every layer is the same.
        // Sweeps and single boards, each kind of tour, a board longer than the check reaches.
        // The states with a FULL first cell, the ones concerned, number more than 100 each.
        let full_first = |matrix: &TransferMatrix<u64>, layers: &[Vec<u64>]| {
            layers
                .iter()
                .enumerate()
                .map(|(cell, layer)| layer.iter().filter(|&&key| matrix.codec().first_is_full(key, cell)).count())
                .sum()
        };
        layers_unchanged_by(|twice| twice.recheck_full_first = true, full_first, 100);
    }
}
