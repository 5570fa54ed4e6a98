//! A count of tours of a board with squares removed ([`super::holes`]): its job (the board
//! left as a graph, in the narrowest order found) and why it has no tour, where its colours or
//! its graph say so before counting.

use super::command::CountTask;
use super::holes::{holed_graph, HoledBoard};
use crate::engine::problem::Job;
use crate::error::Result;
use crate::hamiltonian::board::Geometry;
use crate::hamiltonian::obstruction::{describe, Colouring, Obstruction};
use crate::hamiltonian::transfer::{self, SlotTour};
use crate::hamiltonian::{graph_reasons, vertex_order};

/// A count of tours of a board with squares removed: its job and its reasons.
impl CountTask {
    /// The board without the squares removed, as a graph.
    fn holed(&self) -> HoledBoard {
        let geometry = Geometry::new(self.plan.width, self.plan.rows, self.moves.clone());
        holed_graph(&geometry, self.plan.transposed, &self.params.removed)
    }

    /// The count of a board with squares removed: its graph, in the narrowest order found.
    pub(super) fn holed_job(&self) -> Result<Job> {
        let adjacency = self.holed().adjacency;
        let order = vertex_order::choose(&adjacency, self.params.tours);
        order.check_fits(&format!("{} {}", self.mover(), self.board_label(self.plan.rows)))?;
        let name = format!("{} {}", self.problem(), self.board_label(self.plan.rows));
        Ok(Job::Sweep(transfer::graph_tours(name, &order.edges(&adjacency), self.params.tours)?))
    }

    /// The note on a board with squares removed, as a graph's: its squares and the order they are
    /// counted in, by name (`knight 6x6 without a1,b1: 34 squares; vertex order greedy from
    /// vertex 0: ...; the order begins c1 a2 ...`).
    pub(super) fn holed_notes(&self) -> Vec<String> {
        let HoledBoard { names, adjacency, .. } = self.holed();
        let order = vertex_order::choose(&adjacency, self.params.tours);
        vec![format!(
            "{} {}: {} squares; {}",
            self.mover(),
            self.board_label(self.plan.rows),
            names.len(),
            order.described(&names)
        )]
    }

    /// Why a board with squares removed has no tour of a kind: its colours, or what any graph
    /// shows ([`graph_reasons`]).
    pub(super) fn holed_reasons(&self, kinds: &[bool]) -> Vec<(usize, String)> {
        let HoledBoard { names, adjacency, colours: (smaller, larger) } = self.holed();
        let colouring = Colouring::of(&self.moves);
        let label = self.board_label(self.plan.rows);
        kinds
            .iter()
            .filter_map(|&open| {
                let slot = SlotTour { open, rows: 1 }.slot(self.params.tours);
                let unbalanced = if open { larger > smaller + 1 } else { larger != smaller };
                if colouring == Colouring::Changes && unbalanced {
                    let obstruction = Obstruction::Unbalanced { larger, smaller };
                    return Some((slot, describe(&self.mover(), &label, open, obstruction, colouring)));
                }
                let why = graph_reasons::why_none(&adjacency, &names, open)?;
                Some((
                    slot,
                    format!("{} {label}: no {} tour: {why}", self.mover(), SlotTour { open, rows: 1 }.kind_name()),
                ))
            })
            .collect()
    }
}
