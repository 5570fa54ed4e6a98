//! Any graph: the Hamiltonian cycles and paths of a graph the user gives (`leaper graph FILE`),
//! counted by the tours' transfer matrix over the graph's vertices in an order chosen to keep
//! the frontier narrow.
//!
//! A worked example: the 4-cycle `a-b-c-d-a` with the chord `a-c`, as an edge list:
//!
//! ```text
//! a b          read:   vertices a b c d (numbered 0 1 2 3 in order of first appearance)
//! b c                  edges 0-1 1-2 2-3 0-3 0-2
//! c d          order:  the narrowest of several (hamiltonian/vertex_order.rs): 0 1 2 3 keeps a window of 3
//! d a                  positions (the longest edge, 0-3) with at most 3 of them live
//! a c          count:  one row of 4 cells in the transfer matrix (hamiltonian/transfer, Walked::Graph):
//!                      the cycle a-b-c-d-a (the chord is in no Hamiltonian cycle): 1
//! ```
//!
//! The files:
//!
//! * [`input`]: the readers and writers of graph files (edge lists, graph6, sparse6, DIMACS).
//! * [`command`]: the problem's face: `leaper graph`, its parameters and its task.
//!
//! The vertex order (`--order FILE`, or a path-decomposition heuristic: several tried, the
//! narrowest kept) and the reasons a graph has no cycle or path before counting are the
//! frontier library's ([`crate::hamiltonian::vertex_order`], [`crate::hamiltonian::graph_reasons`]),
//! which the holed boards share.

pub mod command;
pub mod input;

pub use command::GraphProblem;

/// The edges of the `w` x `h` grid graph, its vertices numbered row by row from 0: the graphs
/// of A003763 (the 6 x 6 grid has 1072 Hamiltonian cycles), which the tests and the benchmarks
/// count.
pub fn grid_edges(w: usize, h: usize) -> Vec<(usize, usize)> {
    let mut edges = Vec::new();
    for v in 0..w * h {
        if v % w + 1 < w {
            edges.push((v, v + 1));
        }
        if v + w < w * h {
            edges.push((v, v + w));
        }
    }
    edges
}
