//! Convex figures from polygon pieces: P. Läuchli's tangram programs (Elemente der Mathematik
//! 22, 1967), as `leaper tangram`.
//!
//! ```text
//! lattice.rs   figures as sets of quarter cells; the eight symmetries of the square
//! outline.rs   the convex outlines of an area (the paper's equation), one per class
//! pieces.rs    piece files, checks, kinds of identical pieces, symmetry types, orientations
//! solve.rs     Program 3: pieces placed into one outline, the lexicographic symmetry test
//! shards.rs    the jobs as subtree jobs (per area; per outline and first placement)
//! brute.rs     an independent count for small piece sets (laid side by side)
//! svg.rs       drawing the dissections, grouped by outline
//! command.rs   `leaper tangram outlines | solve | fit`
//! ```
//!
//! Worked example, the classic seven pieces (16 elementary triangles): there are 20 convex
//! outlines of area 16 (`outline.rs`); for each, every placement of each piece inside it is
//! listed and numbered, and the pieces are placed largest first, identical pieces in
//! increasing number, each kept only if no symmetry of the outline makes the figure so far
//! sort earlier (`solve.rs`). The square of side 2√2 has one dissection, the right trapezoid
//! with sides 3, 2, 5, 2√2 has 36; 13 outlines have at least one, 142 in all, as the paper found.

pub mod brute;
pub mod command;
pub mod lattice;
pub mod outline;
pub mod pieces;
pub mod shards;
pub mod solve;
pub mod svg;

pub use command::TangramProblem;
