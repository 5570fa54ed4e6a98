//! The engine's face of the transfer matrix: [`Transition`] for [`TransferMatrix`], its slots
//! (one per board length and kind of tour), bounds and steps; the step itself is
//! [`super::step`], what a key means [`super::build`], the layers' profile [`super::profile`],
//! the neighbourhoods [`super::neighbourhood`].

use std::ops::RangeInclusive;

use super::build::TransferMatrix;
use super::kinds::{SlotTour, TourKind};
use super::walked::Walked;
use crate::engine::{ProfileHint, StateKey, StepPosition, Transition};
use crate::hamiltonian::bound::{cycle_bound_bits, graph_cycle_bound_bits, graph_path_bound_bits, path_bound_bits};
use crate::hamiltonian::frontier::FRONTIER_FORMAT;

impl<K: StateKey> Transition for TransferMatrix<K> {
    type Key = K;

    fn steps(&self) -> usize {
        self.walked.cells()
    }

    /// One slot per board length `0..=rows` and kind of tour counted.
    fn slots(&self) -> usize {
        SlotTour { open: true, rows: self.walked.rows() }.slot(self.kind) + 1
    }

    fn reported(&self) -> RangeInclusive<usize> {
        let first = SlotTour { open: self.kind == TourKind::Open, rows: self.min_rows }.slot(self.kind);
        let last = SlotTour { open: self.kind != TourKind::Closed, rows: self.walked.rows() }.slot(self.kind);
        first..=last
    }

    /// A single board's own bound; for a sweep one bound that covers every length at once. A
    /// graph's bound from its degrees, closer where many are 2 (a long thin graph's Brégman bound
    /// is thousands of bits for a count of one). A path bound exceeds the cycle bound of the same
    /// board or graph, so it covers both kinds.
    fn bound_bits(&self) -> f64 {
        let single = self.min_rows == self.walked.rows();
        match &self.walked {
            // A board's own degrees (a fold of `--distinct` walks the half board's moves).
            Walked::Board(geometry) => {
                let degrees: Vec<usize> = (0..geometry.cells()).map(|cell| geometry.degree(cell)).collect();
                if self.kind.has_ends() {
                    path_bound_bits(&degrees, single)
                } else {
                    cycle_bound_bits(&degrees, single)
                }
            }
            Walked::Graph { .. } => {
                let degrees: Vec<usize> = self.neighbours.iter().map(|mask| mask.count_ones() as usize).collect();
                if self.kind.has_ends() {
                    graph_path_bound_bits(&degrees)
                } else {
                    graph_cycle_bound_bits(&degrees)
                }
            }
        }
    }

    /// A graph's bound counts its vertices of degree 3 and more as a board's cells, but a long
    /// thin graph's cycles are few: a 2 x n ladder has one.
    fn counts_may_be_far_below_bound(&self) -> bool {
        matches!(self.walked, Walked::Graph { .. })
    }

    fn start(&self) -> K {
        self.start_key()
    }

    fn key_layout(&self) -> String {
        TransferMatrix::key_layout(self)
    }

    fn key_format(&self) -> u32 {
        FRONTIER_FORMAT
    }

    fn position(&self, step: usize) -> StepPosition {
        let width = self.walked.width();
        StepPosition { row: step / width, col: self.order.column(step % width) }
    }

    /// A board of `rows` rows closes at the latest at its own last cell (`close_whole`: the
    /// board ends where the window's first EMPTY cell is, past the cell being processed).
    fn last_step_of(&self, slot: usize) -> usize {
        let rows = SlotTour::of(slot, self.kind).rows.max(1);
        (rows * self.walked.width()).min(self.walked.cells()) - 1
    }

    /// How the layers rise and fall, and how the board's end cuts them ([`super::profile`]).
    fn profile_hint(&self) -> ProfileHint {
        TransferMatrix::profile_hint(self)
    }

    fn slot_name(&self, slot: usize) -> String {
        let tour = SlotTour::of(slot, self.kind);
        match self.kind {
            TourKind::Both => {
                format!("{} {}", self.walked.board_name(tour.rows), if tour.open { "open" } else { "closed" })
            }
            _ => self.walked.board_name(tour.rows),
        }
    }

    #[inline]
    fn expand(&self, step: usize, key: K, emit: &mut impl FnMut(K), close: &mut impl FnMut(usize)) {
        TransferMatrix::expand(self, step, key, emit, close)
    }

    const NEIGHBOURHOODS: bool = true;

    #[inline]
    fn neighbourhood(&self, step: usize, key: K) -> u64 {
        self.neighbourhood_of(step, key)
    }
}
