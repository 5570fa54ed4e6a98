//! The transfer matrix for tours: one cell at a time, frontier state to frontier states.
//!
//! [`TransferMatrix::expand`] takes the state before cell `c` (see [`super::frontier`]) and
//! produces every state before cell `c + 1`:
//!
//! 1. Cell `c` needs `2 - degree` more edges, all forward (its backward edges were chosen by
//!    earlier cells). Each choice of that many forward neighbours that are not FULL is one branch.
//! 2. Each edge joins partial paths: EMPTY-EMPTY starts a path, EMPTY-end extends one, end-end
//!    joins two paths, and joining the two ends of *one* path closes a cycle.
//! 3. A cycle is allowed only if it is the whole board of some length `K`: nothing else in the
//!    window is a path end, the FULL cells form a prefix that ends on a row boundary `K * width`,
//!    and everything after is EMPTY. The branch then adds its count to the total for `K` rows.
//!    This is how one sweep over `n` rows yields the counts for every length `1..=n`.
//! 4. Otherwise the window moves on by one cell. Before emitting, the branch is pruned if it can
//!    no longer complete a board of a length the sweep counts: some cell whose neighbourhood
//!    just shrank has fewer neighbours left than edges it lacks, or, where the board has at most
//!    64 cells left, the cells left cannot all get their edges ([`pruning`] holds every rule).
//!    Pruning only removes states with no completion, so counts do not depend on it; it keeps
//!    the layers small.
//!
//! 5. Where the cells processed are symmetric left to right (the mirror points: at row starts,
//!    and within a row after each pair of columns when a row is processed from its edges
//!    inwards: see [`super::order`]), a state and its mirror image have the same number of
//!    completions for every length. One key stands for both, which halves those layers: the one
//!    whose FULL cells come first, read from the window's first cell (see [`mirror`]: which of
//!    the two stands for both decides how the states meet).
//!
//! "Cell" here is a *position*: the board's cells numbered in the order they are processed,
//! row by row, within a row in the order [`super::order`] chooses (plain boards), or row-major
//! (the folded boards of `--distinct`).
//!
//! Open tours (Hamiltonian paths) add one more choice per cell, described in [`ends`]: a cell
//! may be one of the tour's two ends, with one edge fewer. [`TourKind`] says which tours a
//! sweep counts; counting both costs one sweep, since the closed tours are the cycles among the
//! states that have no tour end yet.
//!
//! The files:
//!
//! * [`kinds`]: which tours a sweep counts ([`TourKind`], and [`KindArgs`], the options that ask
//!   for them), and the slot of each ([`SlotTour`]).
//! * [`build`]: the matrix of one geometry ([`tours`]: the order of a row's cells, the key's
//!   width), the tables every step reads, and what a key means (`key_layout`).
//! * [`step`]: the step of one cell (1 to 3 above, and emitting); [`ends`]: a cell as a tour end.
//! * [`pruning`]: every rule that drops a state with no completion (4 above);
//!   [`pruning::residual`]: the check of the cells left near the board's end.
//! * [`mirror`]: the mirror points and the key a state shares with its image (5 above);
//!   [`mirror::images`]: the images of the window's positions, by table.
//! * [`neighbourhood`]: what every parent of a key shares, by which the engine groups states.
//! * [`profile`]: the layers' shape the ETA models, with its measured figures.
//! * [`transition`]: the engine's [`Transition`](crate::engine::Transition) for the matrix.
//! * [`walked`]: what the matrix walks, a board or a graph's vertices as one row ([`Walked`]).

mod build;
mod ends;
mod kinds;
mod mirror;
mod neighbourhood;
mod profile;
mod pruning;
mod step;
#[cfg(test)]
mod testing;
mod transition;
mod walked;

pub use build::{closed_tours, graph_tours, plain_key_bits, tours, TransferMatrix};
pub use kinds::{once_per_direction, KindArgs, SlotTour, TourKind};
pub(crate) use step::{join, Joined};
pub use walked::Walked;
