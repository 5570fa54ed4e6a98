//! The profile facts the transition reports ([`ProfileHint`]): the steps of a row, how the
//! board's end cuts the last rows' layers, how many rows a move reaches, whether cells may be
//! tour ends and whether a row is processed from its edges inwards. The ETA and `leaper plan`
//! model a sweep's layers with them (coordinator/src/plan/model.rs).

use super::build::TransferMatrix;
use super::kinds::TourKind;
use super::walked::Walked;
use crate::engine::{ProfileHint, StateKey};
use crate::hamiltonian::order::RowOrder;

impl<K: StateKey> TransferMatrix<K> {
    /// Layers rise and fall along each row, and the rows within a move of the board's end lose
    /// most of their states (no path may leave the board), the last row all. The tail says what
    /// each of the last rows keeps of what the rows before promised: the two rows before those
    /// within a move `before` (where the check of the cells left,
    /// [`residual`](super::pruning::residual), cuts them), then the row a move's height before
    /// the end `first`, each row after it `fall` of the one before, all of them times
    /// `within_a_move`. The figures were measured on knight boards and depend on the kind of
    /// tour, the check and the order of a row's cells (docs/PERFORMANCE-LOG.md, "The board's end
    /// in the tours' profile"). They are what a row whose layers are even keeps; the layer model
    /// spreads each along its row (coordinator/src/plan/model.rs, `BoardEnd`). A graph is one row
    /// and says instead how many live positions its frontier holds before each step
    /// (coordinator/src/plan/widths.rs guesses its layers from them).
    pub(super) fn profile_hint(&self) -> ProfileHint {
        let width = self.walked.width();
        let rows_reached = self.walked.rows_reached();
        let reordered = self.order != RowOrder::row_major(width);
        let (first, fall) = if self.kind.has_ends() { (0.5, 0.12) } else { (0.2, 0.025) };
        let (before, within_a_move): (&[f64], f64) = match (self.move_masks.is_some(), self.kind) {
            (true, TourKind::Closed) if reordered => (&[0.85, 0.4], 0.55),
            (true, TourKind::Closed) => (&[0.7, 0.25], 0.25),
            (true, TourKind::Open) => (&[0.7, 0.42], 0.33),
            _ => (&[], 1.0),
        };
        let mut tail = before.to_vec();
        tail.extend((0..rows_reached as i32).map(|j| first * f64::powi(fall, j) * within_a_move));
        tail.push(0.0);
        let widths = match &self.walked {
            Walked::Graph { widths, .. } => widths.clone(),
            Walked::Board(_) => Vec::new(),
        };
        ProfileHint { row: width, tail, rows_reached, ends: self.kind.has_ends(), reordered, widths }
    }
}
