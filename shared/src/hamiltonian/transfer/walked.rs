//! What a transfer matrix walks ([`Walked`]): a leaper board, whose rows are the lengths a sweep
//! counts, or any graph the user gives (`leaper graph`), whose vertices are one row in the
//! order chosen for them. The matrix itself only needs the rows' width and number; this says
//! what the cells are, for the key layout, the slot names and the messages.
//!
//! A graph of 10 vertices is one row of 10 cells: its one "board" ends after cell 9, so its
//! cycles are counted in the slot of length 1 (`SlotTour { rows: 1, .. }`).

use crate::hamiltonian::board::Geometry;

/// The cells a transfer matrix walks.
#[derive(Clone, Debug)]
pub enum Walked {
    /// A board of a move set, `rows` rows of `width` cells (the longest length a sweep reaches).
    Board(Geometry),
    /// A graph's vertices as one row, in the order they are processed; `name` says which graph
    /// (its source and size), for messages and slot names; `widths` the frontier's live
    /// positions before each vertex and after the last, for estimates of its layers.
    Graph { vertices: usize, name: String, widths: Vec<usize> },
}

impl Walked {
    /// Cells per row.
    pub fn width(&self) -> usize {
        match self {
            Walked::Board(geometry) => geometry.width,
            Walked::Graph { vertices, .. } => *vertices,
        }
    }

    /// Rows of the longest board counted.
    pub fn rows(&self) -> usize {
        match self {
            Walked::Board(geometry) => geometry.rows,
            Walked::Graph { .. } => 1,
        }
    }

    pub fn cells(&self) -> usize {
        self.width() * self.rows()
    }

    /// What the key layout names: the move set and board (`1,2 on 9x10`), or the graph.
    pub fn subject(&self) -> String {
        match self {
            Walked::Board(geometry) => format!("{} on {}x{}", geometry.moves, geometry.width, geometry.rows),
            Walked::Graph { name, .. } => format!("graph {name}"),
        }
    }

    /// The board a slot of `rows` rows counts (`8x6`), or the graph.
    pub fn board_name(&self, rows: usize) -> String {
        match self {
            Walked::Board(geometry) => format!("{}x{rows}", geometry.width),
            Walked::Graph { name, .. } => name.clone(),
        }
    }

    /// Rows a move reaches (at least 1): a graph's one row.
    pub fn rows_reached(&self) -> usize {
        match self {
            Walked::Board(geometry) => (geometry.reach() / geometry.width).max(1),
            Walked::Graph { .. } => 1,
        }
    }
}
