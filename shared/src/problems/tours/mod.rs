//! Tours of leapers: the number of undirected Hamiltonian cycles (closed tours) or paths (open
//! tours) of a leaper's graph on a `width x length` board, for one board or every length of a
//! sweep.
//!
//! They stand on the Hamiltonian frontier, [`crate::hamiltonian`]: its boards, move sets,
//! symmetries, bounds, obstructions and transfer matrix. Here:
//!
//! * [`brute`]: an independent brute-force counter for small boards, of cycles and of paths.
//! * [`distinct`]: tours up to the board's symmetries (`--distinct`).
//! * [`holes`]: boards with squares removed (`--remove a1,h8`), counted as graphs;
//!   `holed_count.rs`: the count task's job and reasons for them.
//! * [`command`]: the problem's face to the command line.
//!
//! Tour files (`leaper tours enumerate | generate | dedupe | convert | show`) have their own
//! folder, [`crate::problems::tour_files`].

pub mod brute;
pub(crate) mod command;
pub mod distinct;
mod holed_count;
pub mod holes;

pub use command::{BoardSweep, CountLine, CountTask, TourParams, Tours};
