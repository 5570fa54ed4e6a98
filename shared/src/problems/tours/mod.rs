//! Tours of leapers: the number of undirected Hamiltonian cycles (closed tours) or paths (open
//! tours) of a leaper's graph on a `width x length` board, for one board or every length of a
//! sweep.
//!
//! * [`board`]: board sizes, move sets (leapers and their unions), board geometry.
//! * [`symmetry`]: the board's symmetries (four of a rectangle, eight of a square), acting on
//!   cells; [`distinct`] counts tours up to them, and the tour files' canonical forms use them.
//! * [`frontier`]: the frontier state of the transfer matrix and its canonical key.
//! * [`transfer`]: the transition (the engine's [`Transition`](crate::engine::Transition)), for
//!   closed tours, open tours or both: a folder of one job a file (tour kinds, construction, the
//!   step, the tour ends of open tours, pruning, the mirror symmetry, the profile facts).
//! * [`bound`]: upper bounds on the counts, which decide how many moduli make them exact.
//! * [`brute`]: an independent brute-force counter for small boards, of cycles and of paths.
//! * [`obstruction`]: why a board has no tour, known before counting (a disconnected graph, too
//!   few moves, unequal colours, forced moves that contradict); [`forced`]: the moves a tour
//!   must make, followed until they contradict.
//! * [`holes`]: boards with squares removed (`--remove a1,h8`), counted as graphs;
//!   `holed_count.rs`: the count task's job and reasons for them.
//! * [`command`]: the problem's face to the command line.
//!
//! Tour files (`leaper tours enumerate | generate | dedupe | convert | show`) have their own
//! folder, [`crate::problems::tour_files`].

pub mod board;
pub mod bound;
pub mod brute;
pub(crate) mod command;
pub mod distinct;
pub mod forced;
pub mod frontier;
mod holed_count;
pub mod holes;
pub mod obstruction;
pub mod order;
pub mod symmetry;
pub mod transfer;

pub use command::{BoardSweep, CountLine, CountTask, TourParams, Tours};
