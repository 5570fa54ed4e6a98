//! Knight's tour files: reading, writing, drawing, generating and deduplicating tours one by one,
//! as P. S. Phadke describes his collection of Warnsdorff tours (`leaper tours enumerate`,
//! `generate`, `dedupe`, `convert`, `show`).
//!
//! ```text
//! board.rs       the board of a file: the tours' knight geometry, square numbers, algebraic names
//! tour.rs        a tour (squares in order, closed or open), its checks, its connections
//! format.rs      compact (Phadke's 134-byte lines), move lists, connectivity numbers
//! infer.rs       the board of a file without --board, from its first tour
//! output.rs      where a tool writes: a file, or standard output for `--out -`
//! canonical.rs   the least image of a tour's connections under the board's symmetries (the
//!                tours' group; Phadke's table of them): one form per class
//! enumerate.rs   every tour of a small board, by sharded depth-first search
//! warnsdorff.rs  tours by Warnsdorff's rule, tie-break variants, deterministic for a seed
//! show.rs        one tour as a text diagram or an SVG picture
//! command/       the subcommands, one file each: enumerate (a job), generate, dedupe, convert,
//!                show (tools)
//! ```
//!
//! The boards here are the tours' [`BoardSize`](crate::hamiltonian::board::BoardSize) and
//! [`Geometry`](crate::hamiltonian::board::Geometry) of the knight, numbered square by square
//! as Phadke's files number them ([`board`]); their symmetries are the tours'
//! ([`crate::hamiltonian::symmetry`]).

pub mod board;
pub mod canonical;
pub mod command;
pub mod dedupe;
pub mod enumerate;
pub mod format;
pub mod infer;
pub mod output;
mod preflight;
pub mod reader;
pub mod show;
pub mod tour;
pub mod warnsdorff;
