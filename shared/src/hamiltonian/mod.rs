//! The Hamiltonian frontier: Hamiltonian cycles and paths counted by a transfer matrix over a
//! frontier that moves cell by cell, on any geometry (a leaper's board, a graph given as
//! edges). A library, not a problem: the tours of leapers, their symmetry classes, holed boards
//! and `leaper graph` stand on it (`problems/tours`, `problems/graph`), and the tour files use
//! its boards, symmetries and obstructions (`problems/tour_files`); it names none of them.
//!
//! Worked example: the closed knight's tours of the 6 x 6 board. [`board`] makes its
//! [`Geometry`](board::Geometry) (36 cells, each with its knight's moves); [`order`] chooses the
//! order of a row's cells; [`transfer::tours`] builds the matrix, whose states are [`frontier`]
//! keys (the window of cells partial tours still cross, each cell empty, full or a path's end
//! with its partner); the engine steps it cell by cell, adding the counts of states that meet
//! in one key, and the cycles that close on the whole board give 9862. A board with no tour
//! ([`obstruction`]: the knight on 5 x 5, 13 squares of one colour and 12 of the other, has no
//! closed tour) is known before any step.
//!
//! * [`board`]: board sizes, move sets (leapers and their unions), board geometry.
//! * [`symmetry`]: the board's symmetries (four of a rectangle, eight of a square), acting on
//!   cells: the symmetry classes of the tours and the tour files' canonical forms use them.
//! * [`frontier`]: the frontier state of the transfer matrix and its canonical key.
//! * [`order`]: the order of a row's cells (from the edges inwards), and how far an edge reaches.
//! * [`transfer`]: the transition (the engine's [`Transition`](crate::engine::Transition)), for
//!   closed tours, open tours or both: a folder of one job a file (tour kinds, construction, the
//!   step, the tour ends of open tours, pruning, the mirror symmetry, the profile facts).
//! * [`bound`]: upper bounds on the counts, which decide how many moduli make them exact.
//! * [`vertex_order`]: the order of a graph's vertices the matrix walks (the narrowest of several
//!   tried, or the user's); [`graph_reasons`]: why a graph has no cycle or path, before counting.
//! * [`obstruction`]: why a board has no tour, known before counting (a disconnected graph, too
//!   few moves, unequal colours, forced moves that contradict); [`forced`]: the moves a tour
//!   must make, followed until they contradict.

pub mod board;
pub mod bound;
pub mod forced;
pub mod frontier;
pub mod graph_reasons;
pub mod obstruction;
pub mod order;
pub mod symmetry;
pub mod transfer;
pub mod vertex_order;
