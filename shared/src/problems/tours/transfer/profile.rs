//! The profile facts the transition reports ([`ProfileHint`]): the steps of a row, how the
//! board's end cuts the last rows' layers, how many rows a move reaches, whether cells may be
//! //! tour ends and whether a row is processed from its edges inwards. The ETA and `leaper plan`
//! model a sweep's layers with them (coordinator/src/plan/model.rs); the figures are measured,
//! and each says where.

use super::build::TransferMatrix;
use super::kinds::TourKind;
use crate::engine::{ProfileHint, StateKey};
use crate::problems::tours::order::RowOrder;

impl<K: StateKey> TransferMatrix<K> {
    /// Layers rise and fall along each row. The rows within a move of the board's end lose most
    /// of their states (no path may leave the board), the last row all: measured on knight
    /// boards of widths 6 to 8, the row a move's height before the end keeps about a fifth of
    /// what its growth promised (half for open tours, whose ends may stay there), each row after
    /// it a fortieth (an eighth) of that. (Tour ends in the first row inflate the second row's
    /// growth of open tours: the layer model's concern, coordinator/src/plan/model.rs.)
    ///
    /// The check of the cells left ([`residual`](super::pruning::residual)) cuts closed tours'
    /// last rows further: against the same boards without it (knight 6 x 8, 7 x 8, 6 x 10,
    /// 7 x 10 and 6 x 12 single boards, 6 x 10, 7 x 10 and 5 x 16 sweeps), the two rows before
    /// those keep 0.58-0.76 and 0.19-0.29 of their states, the two rows within a move 0.15-0.27
    /// and 0.10-0.21: 0.7, 0.25 and 0.25 here (the last, the rows within a move alike: the
    /// second has few states left). A short board cut while still growing keeps more (7 x 6:
    /// 0.99 and 0.62 for the first two), which its time left, foretold with these,
    /// underestimates by up to 43% (eta.rs). Open tours, checked with all their edges once both
    /// ends are placed and before that by the cells short of edges (knight 6 x 8, 6 x 10 and
    /// 7 x 8 single boards, 5 x 16 and 6 x 12 sweeps, `--open`): 0.64-0.73, 0.41-0.44, then
    /// 0.32-0.37 and 0.13-0.16 within a move: 0.7, 0.42 and 0.33 (the last row within a move
    /// holds few states). `--tours both` keeps the cut without the check (not measured; the
    /// check cuts its last rows too, so its figures are upper ones).
    ///
    /// In the orders of [`order`](crate::problems::tours::order) (from the edges inwards), the
    /// board's end cuts less: the 6 x 14 sweep's last four rows keep 0.83, 0.36, 0.079 and
    /// 0.0023 of the settled rows' states (row-major: 0.75, 0.24, 0.043 and 0.0011); the last
    /// four rows of 7 x 10 keep 0.84, 0.41, 0.14 and 0.005 of 7 x 12's, those of 9 x 10 about
    /// 0.8, 0.41, 0.106 and 0.0015 of its saturated row 5 (docs/FLAGSHIP.md, "The 9 x 10 run"),
    /// so closed tours take 0.85, 0.4 and 0.55 (0.11 and 0.0028 for the rows within a move).
    /// These are what a row whose layers are even keeps; the layer model spreads each along its
    /// row (coordinator/src/plan/model.rs, `BoardEnd`). (What tour ends and those orders do to
    /// the first rows' growth, the layer model draws from the facts `ends` and `reordered`.)
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
        ProfileHint { row: width, tail, rows_reached, ends: self.kind.has_ends(), reordered }
    }
}
