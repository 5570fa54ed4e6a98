//! An independent check on the transfer matrix: depth-first search for Hamiltonian cycles and
//! paths.
//!
//! Shares nothing with [`crate::hamiltonian::transfer`] but the move vectors: it builds its own adjacency
//! matrix and walks paths cell by cell. Cycles: every path from cell 0, counting the ones that
//! return, each cycle once per direction. Paths: every path from every cell, each undirected
//! path found once from each end. The only pruning is the obvious necessary condition (an
//! unvisited cell keeps two usable neighbours, or one if it is to be the path's far end), so
//! the code stays easy to trust. Practical up to about 36 cells for cycles and 30 for paths.

use rayon::prelude::*;

use crate::hamiltonian::board::MoveSet;

/// The board as a graph: an adjacency matrix and neighbour lists.
struct Graph {
    n: usize,
    adjacent: Vec<bool>,
    neighbours: Vec<Vec<usize>>,
}

impl Graph {
    fn new(width: usize, length: usize, moves: &MoveSet) -> Graph {
        let n = width * length;
        let mut adjacent = vec![false; n * n];
        let mut neighbours = vec![Vec::new(); n];
        for y in 0..length as i64 {
            for x in 0..width as i64 {
                for &(dx, dy) in moves.vectors() {
                    let (tx, ty) = (x + dx as i64, y + dy as i64);
                    if tx >= 0 && ty >= 0 && tx < width as i64 && ty < length as i64 {
                        let (a, b) = ((y * width as i64 + x) as usize, (ty * width as i64 + tx) as usize);
                        adjacent[a * n + b] = true;
                        neighbours[a].push(b);
                    }
                }
            }
        }
        Graph { n, adjacent, neighbours }
    }

    fn adjacent(&self, a: usize, b: usize) -> bool {
        self.adjacent[a * self.n + b]
    }
}

/// A walk's visited cells, and how many unvisited neighbours each cell has left.
struct Visits {
    visited: Vec<bool>,
    unvisited_degree: Vec<usize>,
    /// Unvisited cells with fewer than two unvisited neighbours.
    thin: usize,
}

impl Visits {
    fn new(graph: &Graph) -> Visits {
        let unvisited_degree: Vec<usize> = graph.neighbours.iter().map(Vec::len).collect();
        let thin = unvisited_degree.iter().filter(|&&d| d < 2).count();
        Visits { visited: vec![false; graph.n], unvisited_degree, thin }
    }

    fn visit(&mut self, graph: &Graph, v: usize) {
        self.visited[v] = true;
        self.thin -= usize::from(self.unvisited_degree[v] < 2);
        for &u in &graph.neighbours[v] {
            self.unvisited_degree[u] -= 1;
            self.thin += usize::from(!self.visited[u] && self.unvisited_degree[u] == 1);
        }
    }

    fn unvisit(&mut self, graph: &Graph, v: usize) {
        for &u in &graph.neighbours[v] {
            self.thin -= usize::from(!self.visited[u] && self.unvisited_degree[u] == 1);
            self.unvisited_degree[u] += 1;
        }
        self.thin += usize::from(self.unvisited_degree[v] < 2);
        self.visited[v] = false;
    }
}

/// What a walk does at each step: when a path may go on, and what a path of every cell counts.
trait Walker {
    /// Whether the walk that just moved from `previous` to `head` may go on.
    fn feasible(&self, graph: &Graph, visits: &Visits, head: usize, previous: usize) -> bool;

    /// A path through every cell, ending at `head`.
    fn complete(&mut self, graph: &Graph, head: usize);
}

/// Walks every extension of the path ending at `head` (of `depth` cells).
fn walk(graph: &Graph, visits: &mut Visits, walker: &mut impl Walker, head: usize, depth: usize) {
    if depth == graph.n {
        walker.complete(graph, head);
        return;
    }
    for &next in &graph.neighbours[head] {
        if visits.visited[next] {
            continue;
        }
        visits.visit(graph, next);
        if walker.feasible(graph, visits, next, head) {
            walk(graph, visits, walker, next, depth + 1);
        }
        visits.unvisit(graph, next);
    }
}

/// The number of Hamiltonian cycles (undirected) of the `width x length` board under `moves`.
pub fn count_cycles(width: usize, length: usize, moves: &MoveSet) -> u128 {
    let graph = Graph::new(width, length, moves);
    if graph.n < 3 || graph.neighbours.iter().any(|list| list.len() < 2) {
        return 0;
    }
    let mut visits = Visits::new(&graph);
    let mut cycles = Cycles { directed: 0 };
    visits.visit(&graph, 0);
    walk(&graph, &mut visits, &mut cycles, 0, 1);
    cycles.directed / 2
}

/// Cycles through cell 0, once per direction.
struct Cycles {
    directed: u128,
}

impl Walker for Cycles {
    /// Can every unvisited cell near `head` or `previous` still get two edges, and can the
    /// path still return to cell 0?
    fn feasible(&self, graph: &Graph, visits: &Visits, head: usize, previous: usize) -> bool {
        let usable =
            |u: usize| visits.unvisited_degree[u] + graph.adjacent(u, head) as usize + graph.adjacent(u, 0) as usize;
        let ok = |u: &usize| visits.visited[*u] || usable(*u) >= 2;
        graph.neighbours[head].iter().all(ok)
            && graph.neighbours[previous].iter().all(ok)
            && (visits.unvisited_degree[0] > 0 || graph.adjacent(head, 0))
    }

    fn complete(&mut self, graph: &Graph, head: usize) {
        if graph.adjacent(head, 0) {
            self.directed += 1;
        }
    }
}

/// Hamiltonian paths of a board, undirected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathCount {
    /// Every Hamiltonian path (the one cell of a 1x1 board is one).
    pub paths: u128,
    /// The paths whose two ends are a move apart: each closes into a cycle in one way.
    pub adjacent_ends: u128,
}

/// The Hamiltonian paths (open tours, undirected) of the `width x length` board under `moves`.
pub fn count_paths(width: usize, length: usize, moves: &MoveSet) -> PathCount {
    let graph = Graph::new(width, length, moves);
    if graph.n == 1 {
        return PathCount { paths: 1, adjacent_ends: 0 };
    }
    if graph.neighbours.iter().any(Vec::is_empty) {
        return PathCount::default();
    }
    let directed = (0..graph.n)
        .into_par_iter()
        .map(|start| {
            let mut visits = Visits::new(&graph);
            let mut paths = Paths { start, found: PathCount::default() };
            visits.visit(&graph, start);
            walk(&graph, &mut visits, &mut paths, start, 1);
            paths.found
        })
        .reduce(PathCount::default, |a, b| PathCount {
            paths: a.paths + b.paths,
            adjacent_ends: a.adjacent_ends + b.adjacent_ends,
        });
    // Each undirected path was found once from each of its two ends.
    PathCount { paths: directed.paths / 2, adjacent_ends: directed.adjacent_ends / 2 }
}

/// Paths from one start cell, once each.
struct Paths {
    start: usize,
    found: PathCount,
}

impl Walker for Paths {
    /// Can every unvisited cell still be entered and left? A cell with at most one usable
    /// neighbour (unvisited, or `head`) must be the far end, and a path has one far end.
    fn feasible(&self, graph: &Graph, visits: &Visits, head: usize, _previous: usize) -> bool {
        // The thin cells, but for those beside `head` with one unvisited neighbour: `head`
        // gives them a second.
        let beside_head =
            graph.neighbours[head].iter().filter(|&&u| !visits.visited[u] && visits.unvisited_degree[u] == 1);
        visits.thin - beside_head.count() <= 1
    }

    fn complete(&mut self, graph: &Graph, head: usize) {
        self.found.paths += 1;
        if graph.adjacent(head, self.start) {
            self.found.adjacent_ends += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_known_counts() {
        let knight = MoveSet::knight();
        assert_eq!(count_cycles(3, 4, &knight), 0);
        assert_eq!(count_cycles(5, 6, &knight), 8);
        let wazir = MoveSet::leaper(0, 1).unwrap();
        assert_eq!(count_cycles(2, 2, &wazir), 1);
        assert_eq!(count_cycles(4, 4, &wazir), 6);
        assert_eq!(count_cycles(3, 3, &wazir), 0);
    }

    #[test]
    fn small_known_path_counts() {
        let knight = MoveSet::knight();
        assert_eq!(count_paths(1, 1, &knight).paths, 1);
        assert_eq!(count_paths(3, 3, &knight).paths, 0, "the centre is isolated");
        assert_eq!(count_paths(3, 4, &knight).paths, 8);
        assert_eq!(count_paths(5, 5, &knight).paths, 864);
        // Hamiltonian paths of grid graphs (OEIS A096969 counts them directed: 8, 40, 552).
        let wazir = MoveSet::leaper(0, 1).unwrap();
        assert_eq!(count_paths(2, 2, &wazir), PathCount { paths: 4, adjacent_ends: 4 });
        assert_eq!(count_paths(3, 3, &wazir).paths, 20);
        assert_eq!(count_paths(4, 4, &wazir).paths, 276);
        // The 4x4 grid's 6 cycles open in 16 places each.
        assert_eq!(count_paths(4, 4, &wazir).adjacent_ends, 6 * 16);
    }
}
