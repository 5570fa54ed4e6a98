//! The graph every reader builds: simple and undirected, its vertices numbered 0.. and named.
//! Readers collect edges as the file gives them into a [`Builder`]; [`Builder::finish`] merges
//! repeated edges and drops loops, and says so in notes:
//!
//! ```text
//! names a b c, edges read  a b (line 1)  b a (line 2)  c c (line 3)  b c (line 4)
//!     ─► Graph { names [a, b, c], neighbours [[1], [0, 2], [1]] }
//!        notes "g.txt: 1 repeated edge merged (line 2: b a)",
//!              "g.txt: 1 loop dropped: a loop is never part of a Hamiltonian cycle or path (line 3: c c)"
//! ```

use std::collections::HashSet;
use std::fmt::Display;

use crate::error::{Error, Result};
use crate::input::cut;

/// The most vertices a graph read may have: far more than any graph whose Hamiltonian cycles
/// can be counted, and few enough that a few bytes claiming more (sparse6 `:~~...` says up to
/// 2^36 vertices in 8 bytes, DIMACS `p edge 4000000000 0`) are refused before anything is
/// allocated for them.
pub const MAX_VERTICES: usize = 1 << 20;

/// The most bytes a graph file (or stdin) may hold; past it the input is refused after reading
/// one byte more, never read whole (`/dev/zero`). The transfer matrix takes a step per vertex
/// and keeps every edge within a window of 31 vertices, so a graph it can count has fewer than
/// 31 edges per vertex; the graphs it counts in a day have thousands of vertices, not millions.
/// 64 MiB holds far more: an edge list of [`MAX_VERTICES`] vertices and four million edges
/// (numbers of up to seven digits: 16 bytes an edge), sparse6 of as many vertices and ten
/// million edges or more (21 to 42 bits an edge), or graph6 (n²/12 bytes) of 28,000 vertices.
pub const MAX_GRAPH_BYTES: u64 = 64 << 20;

/// A simple undirected graph: no loops, no repeated edges. Vertex `v` (numbered from 0) has a
/// name ([`Graph::name`]: the file's own, or its number) and its neighbours, sorted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    names: Vec<String>,
    neighbours: Vec<Vec<usize>>,
}

impl Graph {
    /// The graph on vertices named `names` (vertex `v` is `names[v]`) with `edges`; repeated
    /// edges merge, loops are dropped.
    ///
    /// # Panics
    /// When an edge names a vertex past `names`, when two vertices share a name, or when a name
    /// is no edge-list token (empty, or holding whitespace or `#`): a caller's bug, since every
    /// reader names its vertices apart and as tokens.
    pub fn from_edges(names: Vec<String>, edges: impl IntoIterator<Item = (usize, usize)>) -> Graph {
        let mut seen = HashSet::new();
        for name in &names {
            assert!(is_token(name), "vertex name {name:?} is no edge-list token");
            assert!(seen.insert(name.as_str()), "two vertices are named {name:?}");
        }
        let n = names.len();
        let mut builder = Builder::new(names);
        for (u, v) in edges {
            assert!(u < n && v < n, "edge {u} {v} names a vertex past the {n} vertices");
            builder.edge(u, v, 0);
        }
        builder.merged().0
    }

    /// The number of vertices; they are numbered `0..vertices()`.
    pub fn vertices(&self) -> usize {
        self.names.len()
    }

    /// Every edge once, as `(u, v)` with `u < v`, in increasing order.
    pub fn edges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.neighbours
            .iter()
            .enumerate()
            .flat_map(|(u, near)| near.iter().filter(move |&&v| v > u).map(move |&v| (u, v)))
    }

    pub fn edge_count(&self) -> usize {
        self.neighbours.iter().map(Vec::len).sum::<usize>() / 2
    }

    /// Vertex `v`'s name: the file's token (edge list), its number from 0 (graph6, sparse6) or
    /// from 1 (DIMACS).
    pub fn name(&self, v: usize) -> &str {
        &self.names[v]
    }

    /// Vertex `v`'s neighbours, increasing.
    pub fn neighbours(&self, v: usize) -> &[usize] {
        &self.neighbours[v]
    }

    /// The same graph with its vertices numbered anew: vertex `v` becomes `permutation[v]`,
    /// keeping its name and its edges.
    ///
    /// # Panics
    /// When `permutation` is not a permutation of `0..vertices()`.
    pub fn relabelled(&self, permutation: &[usize]) -> Graph {
        let n = self.vertices();
        assert_eq!(permutation.len(), n, "a permutation of {n} vertices");
        let mut names = vec![None; n];
        for (v, &to) in permutation.iter().enumerate() {
            assert!(to < n && names[to].is_none(), "{permutation:?} is no permutation");
            names[to] = Some(self.names[v].clone());
        }
        let mut builder = Builder::new(names.into_iter().flatten().collect());
        for (u, v) in self.edges() {
            builder.edge(permutation[u], permutation[v], 0);
        }
        builder.merged().0
    }

    /// The same graph, vertex `v` named `names[v]`.
    ///
    /// # Panics
    /// As [`Graph::from_edges`], when the names are too few or many, shared or no tokens.
    pub fn renamed(&self, names: Vec<String>) -> Graph {
        assert_eq!(names.len(), self.vertices(), "one name a vertex");
        Graph::from_edges(names, self.edges())
    }
}

/// Whether `name` can stand for a vertex in an edge list: a token, holding no comment.
pub(super) fn is_token(name: &str) -> bool {
    !name.is_empty() && !name.contains(|c: char| c.is_whitespace() || c == '#')
}

/// An edge as a file gave it: its ends in the file's order, and its line (0 where the format
/// has no lines an edge could be pinned to).
#[derive(Clone, Copy)]
struct Edge {
    u: usize,
    v: usize,
    line: usize,
}

/// A graph being read: its vertices' names so far, and its edges as read.
pub(super) struct Builder {
    pub(super) names: Vec<String>,
    edges: Vec<Edge>,
}

impl Builder {
    pub(super) fn new(names: Vec<String>) -> Builder {
        Builder { names, edges: Vec::new() }
    }

    /// Edge `u v`, read on `line` (0: none).
    pub(super) fn edge(&mut self, u: usize, v: usize, line: usize) {
        self.edges.push(Edge { u, v, line });
    }

    /// The graph read from `source` and what was done to make it simple, one note each; an
    /// error when it has no vertices.
    pub(super) fn finish(self, source: &str) -> Result<(Graph, Vec<String>)> {
        if self.names.is_empty() {
            return Err(invalid(source, None, "the graph has no vertices; give at least one"));
        }
        let (graph, merged) = self.merged();
        let mut notes = Vec::new();
        let at = |edge: Edge, count: usize| {
            let names = format!("{} {}", cut(graph.name(edge.u)), cut(graph.name(edge.v)));
            match (count > 1, edge.line) {
                (false, 0) => format!("({names})"),
                (false, line) => format!("(line {line}: {names})"),
                (true, 0) => format!("(the first: {names})"),
                (true, line) => format!("(the first on line {line}: {names})"),
            }
        };
        if let Some(edge) = merged.first_repeat {
            let s = plural(merged.repeats);
            notes.push(format!("{source}: {} repeated edge{s} merged {}", merged.repeats, at(edge, merged.repeats)));
        }
        if let Some(edge) = merged.first_loop {
            let s = plural(merged.loops);
            notes.push(format!(
                "{source}: {} loop{s} dropped: a loop is never part of a Hamiltonian cycle or path {}",
                merged.loops,
                at(edge, merged.loops)
            ));
        }
        Ok((graph, notes))
    }

    /// The simple graph of the edges read, and what merging it took.
    fn merged(self) -> (Graph, Merged) {
        let mut merged = Merged { repeats: 0, first_repeat: None, loops: 0, first_loop: None };
        // (lower end, higher end, index read), sorted: each edge's copies follow its first.
        let mut ends = Vec::with_capacity(self.edges.len());
        for (index, &edge) in self.edges.iter().enumerate() {
            if edge.u == edge.v {
                merged.loops += 1;
                merged.first_loop.get_or_insert(edge);
            } else {
                ends.push((edge.u.min(edge.v), edge.u.max(edge.v), index));
            }
        }
        ends.sort_unstable();
        let mut neighbours = vec![Vec::new(); self.names.len()];
        let mut first_repeat: Option<usize> = None;
        for (i, &(u, v, index)) in ends.iter().enumerate() {
            if i > 0 && (ends[i - 1].0, ends[i - 1].1) == (u, v) {
                merged.repeats += 1;
                first_repeat = Some(first_repeat.map_or(index, |first| first.min(index)));
            } else {
                neighbours[u].push(v);
                neighbours[v].push(u);
            }
        }
        // Sorted already: w gets its lower neighbours u from the runs of edges (u, _) with
        // u < w, in increasing order, before its own run (w, v) gives the higher ones, increasing.
        debug_assert!(neighbours.iter().all(|near| near.windows(2).all(|w| w[0] < w[1])));
        merged.first_repeat = first_repeat.map(|index| self.edges[index]);
        (Graph { names: self.names, neighbours }, merged)
    }
}

/// What [`Builder::merged`] did: repeated edges merged, loops dropped, and the first of each in
/// reading order.
struct Merged {
    repeats: usize,
    first_repeat: Option<Edge>,
    loops: usize,
    first_loop: Option<Edge>,
}

pub(super) fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// The error of input that does not read as a graph: `SOURCE line N: MESSAGE`, or
/// `SOURCE: MESSAGE` where no line is at fault. Every reader's error is made here.
pub(super) fn invalid(source: &str, line: Option<usize>, message: impl Display) -> Error {
    match line {
        Some(line) => Error::InvalidRequest(format!("{source} line {line}: {message}")),
        None => Error::InvalidRequest(format!("{source}: {message}")),
    }
}

/// `n` vertices, refused past [`MAX_VERTICES`] before anything is allocated for them.
pub(super) fn check_vertices(n: u64, source: &str, line: usize) -> Result<usize> {
    match usize::try_from(n) {
        Ok(n) if n <= MAX_VERTICES => Ok(n),
        _ => Err(invalid(
            source,
            Some(line),
            format!("the graph has {n} vertices, more than the {MAX_VERTICES} leaper reads"),
        )),
    }
}

#[cfg(test)]
pub(super) mod testing {
    use super::Graph;

    /// splitmix64: a reproducible stream of random numbers for the tests.
    pub struct Random(u64);

    impl Random {
        pub fn new(seed: u64) -> Random {
            Random(seed)
        }

        pub fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        pub fn below(&mut self, bound: usize) -> usize {
            (self.next() % bound as u64) as usize
        }

        /// A random order of `0..n`.
        pub fn permutation(&mut self, n: usize) -> Vec<usize> {
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, self.below(i + 1));
            }
            order
        }
    }

    /// A random graph on `n` vertices named `0..n`, each edge present with probability
    /// `percent` / 100.
    pub fn random_graph(random: &mut Random, n: usize, percent: usize) -> Graph {
        let mut edges = Vec::new();
        for v in 0..n {
            for u in 0..v {
                if random.below(100) < percent {
                    edges.push((u, v));
                }
            }
        }
        Graph::from_edges(numbered(n, 0), edges)
    }

    /// `n` names: `first`, `first + 1`, ...
    pub fn numbered(n: usize, first: usize) -> Vec<String> {
        (first..first + n).map(|v| v.to_string()).collect()
    }

    /// Random graphs of every size up to 70 (past 62, where graph6's vertex count takes four
    /// bytes) and of every density.
    pub fn random_graphs() -> Vec<Graph> {
        let mut random = Random::new(47);
        let mut graphs = Vec::new();
        for n in 1..=70 {
            for percent in [0, 10, 50, 90, 100] {
                graphs.push(random_graph(&mut random, n, percent));
            }
        }
        graphs
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{numbered, random_graphs, Random};
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_module_example_merges_and_drops_with_notes() {
        let mut builder = Builder::new(names(&["a", "b", "c"]));
        for (u, v, line) in [(0, 1, 1), (1, 0, 2), (2, 2, 3), (1, 2, 4)] {
            builder.edge(u, v, line);
        }
        let (graph, notes) = builder.finish("g.txt").unwrap();
        assert_eq!(graph.neighbours, [vec![1], vec![0, 2], vec![1]]);
        assert_eq!(
            notes,
            [
                "g.txt: 1 repeated edge merged (line 2: b a)",
                "g.txt: 1 loop dropped: a loop is never part of a Hamiltonian cycle or path (line 3: c c)"
            ]
        );
    }

    #[test]
    fn several_repeats_and_loops_name_the_first_read() {
        let mut builder = Builder::new(names(&["a", "b", "c"]));
        // The repeat of b c (line 3) comes before the second repeat of a b (line 4).
        for (u, v, line) in [(0, 1, 1), (1, 2, 2), (2, 1, 3), (0, 1, 4), (1, 0, 5), (2, 2, 6), (0, 0, 7)] {
            builder.edge(u, v, line);
        }
        let (graph, notes) = builder.finish("g.txt").unwrap();
        assert_eq!(graph.edges().collect::<Vec<_>>(), [(0, 1), (1, 2)]);
        assert_eq!(
            notes,
            [
                "g.txt: 3 repeated edges merged (the first on line 3: c b)",
                "g.txt: 2 loops dropped: a loop is never part of a Hamiltonian cycle or path (the first on line 6: c c)"
            ]
        );
        // Without lines (sparse6), the note names the edge alone.
        let mut builder = Builder::new(numbered(3, 0));
        builder.edge(0, 1, 0);
        builder.edge(0, 1, 0);
        assert_eq!(builder.finish("g.s6").unwrap().1, ["g.s6: 1 repeated edge merged (0 1)"]);
        // A long name is cut to 80 characters.
        let mut builder = Builder::new(vec!["a".into(), "b".repeat(1000)]);
        builder.edge(0, 1, 1);
        builder.edge(1, 0, 2);
        let expected = format!("g.txt: 1 repeated edge merged (line 2: {}… (1000 bytes) a)", "b".repeat(80));
        assert_eq!(builder.finish("g.txt").unwrap().1, [expected]);
    }

    #[test]
    fn a_simple_graph_has_no_notes_and_no_vertices_is_an_error() {
        let mut builder = Builder::new(numbered(4, 0));
        builder.edge(3, 0, 1);
        builder.edge(1, 2, 2);
        let (graph, notes) = builder.finish("g").unwrap();
        assert!(notes.is_empty());
        assert_eq!(graph.edges().collect::<Vec<_>>(), [(0, 3), (1, 2)]);
        let error = Builder::new(Vec::new()).finish("stdin").unwrap_err().to_string();
        assert_eq!(error, "stdin: the graph has no vertices; give at least one");
    }

    #[test]
    fn accessors_agree_with_each_other() {
        for graph in random_graphs() {
            let edges: Vec<(usize, usize)> = graph.edges().collect();
            assert_eq!(edges.len(), graph.edge_count());
            assert!(edges.windows(2).all(|w| w[0] < w[1]) && edges.iter().all(|&(u, v)| u < v));
            for v in 0..graph.vertices() {
                let near = graph.neighbours(v);
                assert!(near.windows(2).all(|w| w[0] < w[1]) && !near.contains(&v));
                for &u in near {
                    assert!(edges.contains(&(u.min(v), u.max(v))));
                }
                assert_eq!(graph.name(v), v.to_string());
            }
        }
    }

    #[test]
    fn relabelling_keeps_names_with_their_edges() {
        let mut random = Random::new(7);
        for graph in random_graphs().into_iter().step_by(7) {
            let permutation = random.permutation(graph.vertices());
            let shuffled = graph.relabelled(&permutation);
            assert_eq!(shuffled.edge_count(), graph.edge_count());
            for (u, v) in graph.edges() {
                assert!(shuffled.neighbours(permutation[u]).contains(&permutation[v]));
                assert_eq!(shuffled.name(permutation[u]), graph.name(u));
            }
            let mut inverse = vec![0; permutation.len()];
            for (v, &to) in permutation.iter().enumerate() {
                inverse[to] = v;
            }
            assert_eq!(shuffled.relabelled(&inverse), graph);
        }
        let path = Graph::from_edges(names(&["a", "b", "c"]), [(0, 1), (1, 2)]);
        let renamed = path.renamed(names(&["x", "y", "z"]));
        assert_eq!(renamed.name(1), "y");
        assert_eq!(renamed.edges().collect::<Vec<_>>(), path.edges().collect::<Vec<_>>());
    }

    #[test]
    #[should_panic(expected = "two vertices are named \"a\"")]
    fn names_are_distinct() {
        Graph::from_edges(names(&["a", "a"]), []);
    }

    #[test]
    #[should_panic(expected = "is no edge-list token")]
    fn names_are_tokens() {
        Graph::from_edges(names(&["a b"]), []);
    }

    #[test]
    fn vertex_counts_past_the_bound_are_refused() {
        assert_eq!(check_vertices(MAX_VERTICES as u64, "g", 1).unwrap(), MAX_VERTICES);
        let error = check_vertices(1 << 36, "g", 1).unwrap_err().to_string();
        assert_eq!(
            error,
            format!("g line 1: the graph has 68719476736 vertices, more than the {MAX_VERTICES} leaper reads")
        );
    }
}
