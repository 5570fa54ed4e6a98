//! The edge list: one edge a line, its two vertices separated by whitespace.
//!
//! ```text
//! # a square with a tail        a comment: from # to the end of the line, on any line
//! a b                           an edge; vertices numbered as they first appear: a 0, b 1
//! b c
//! c d   # the third side        a comment after an edge
//! d a
//!                               blank lines are skipped
//! e                             one token: vertex e (4), on no edge so far
//!     ─► 5 vertices a b c d e, edges a-b b-c c-d a-d; e isolated (so no Hamiltonian cycle)
//! ```
//!
//! A vertex's name is its token verbatim: any characters but whitespace and `#`, so `1` and
//! `01` are two vertices, and so are `a` and `A`. A line with three tokens or more is an error.

use std::collections::HashMap;
use std::fmt::Write;

use super::graph::{invalid, plural, Builder, Graph};
use crate::error::Result;
use crate::input::quote;

/// The vertices and edges of the edge list `text`, read from `source`.
pub(super) fn read<'a>(text: &'a str, source: &str) -> Result<Builder> {
    let mut builder = Builder::new(Vec::new());
    let mut numbers: HashMap<&'a str, usize> = HashMap::new();
    for (index, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or_default();
        let tokens: Vec<&str> = content.split_whitespace().collect();
        let mut vertex = |name: &'a str| {
            *numbers.entry(name).or_insert_with(|| {
                builder.names.push(name.to_string());
                builder.names.len() - 1
            })
        };
        match tokens[..] {
            [] => {}
            [alone] => {
                vertex(alone);
            }
            [u, v] => {
                let (u, v) = (vertex(u), vertex(v));
                builder.edge(u, v, index + 1);
            }
            _ => {
                return Err(invalid(
                    source,
                    Some(index + 1),
                    format!(
                        "expected two vertices \"u v\" (or one, alone), found {} tokens: {}",
                        tokens.len(),
                        quote(content.trim())
                    ),
                ))
            }
        }
    }
    Ok(builder)
}

impl Graph {
    /// The graph as an edge list that reads back as the same graph, numbering and names alike:
    /// vertex by vertex, its edges to lower vertices, or the vertex alone where it has none (so
    /// that it first appears in its turn).
    ///
    /// ```text
    /// the path 0-1-2 and the edge 0-3:   # 4 vertices, 3 edges
    ///                                    0
    ///                                    0 1
    ///                                    1 2
    ///                                    0 3
    /// ```
    pub fn to_edge_list(&self) -> String {
        let (n, m) = (self.vertices(), self.edge_count());
        let mut text = format!("# {n} vert{}, {m} edge{}\n", if n == 1 { "ex" } else { "ices" }, plural(m));
        for v in 0..self.vertices() {
            let lower: Vec<usize> = self.neighbours(v).iter().copied().filter(|&u| u < v).collect();
            if lower.is_empty() {
                writeln!(text, "{}", self.name(v)).expect("writing to a String");
            }
            for u in lower {
                writeln!(text, "{} {}", self.name(u), self.name(v)).expect("writing to a String");
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::testing::{random_graphs, Random};
    use super::*;

    fn read_graph(text: &str) -> Result<(Graph, Vec<String>)> {
        read(text, "graph.txt")?.finish("graph.txt")
    }

    fn named_edges(graph: &Graph) -> Vec<(&str, &str)> {
        graph.edges().map(|(u, v)| (graph.name(u), graph.name(v))).collect()
    }

    #[test]
    fn the_module_example_reads() {
        let text = "# a square with a tail\na b\nb c\nc d   # the third side\nd a\n\ne\n";
        let (graph, notes) = read_graph(text).unwrap();
        assert!(notes.is_empty());
        assert_eq!((0..5).map(|v| graph.name(v)).collect::<Vec<_>>(), ["a", "b", "c", "d", "e"]);
        assert_eq!(named_edges(&graph), [("a", "b"), ("a", "d"), ("b", "c"), ("c", "d")]);
        assert!(graph.neighbours(4).is_empty());
    }

    #[test]
    fn names_are_tokens_verbatim() {
        let (graph, _) = read_graph("1 01\n01 A\na 1\r\n\t x\ty  \n").unwrap();
        assert_eq!((0..6).map(|v| graph.name(v)).collect::<Vec<_>>(), ["1", "01", "A", "a", "x", "y"]);
        assert_eq!(graph.edge_count(), 4);
    }

    #[test]
    fn repeated_edges_and_loops_are_noted() {
        let (graph, notes) = read_graph("a b\nb a\nb c\nc c\na b\n").unwrap();
        assert_eq!(named_edges(&graph), [("a", "b"), ("b", "c")]);
        assert_eq!(
            notes,
            [
                "graph.txt: 2 repeated edges merged (the first on line 2: b a)",
                "graph.txt: 1 loop dropped: a loop is never part of a Hamiltonian cycle or path (line 4: c c)"
            ]
        );
    }

    #[test]
    fn errors_name_the_source_line_and_what_was_expected() {
        let error = read_graph("a b\n\nc d e\n").unwrap_err().to_string();
        assert_eq!(error, "graph.txt line 3: expected two vertices \"u v\" (or one, alone), found 3 tokens: \"c d e\"");
        let error = read_graph("a b c d # four\n").unwrap_err().to_string();
        assert_eq!(
            error,
            "graph.txt line 1: expected two vertices \"u v\" (or one, alone), found 4 tokens: \"a b c d\""
        );
        for empty in ["", "\n\n", "# nothing but a comment\n   \n"] {
            let error = read_graph(empty).unwrap_err().to_string();
            assert_eq!(error, "graph.txt: the graph has no vertices; give at least one");
        }
    }

    #[test]
    fn writing_and_reading_back_gives_the_same_graph() {
        let mut random = Random::new(3);
        for graph in random_graphs() {
            assert_eq!(read_graph(&graph.to_edge_list()).unwrap(), (graph.clone(), vec![]));
            // Names are kept, whatever the numbering.
            let shuffled = graph.relabelled(&random.permutation(graph.vertices()));
            assert_eq!(read_graph(&shuffled.to_edge_list()).unwrap().0, shuffled);
        }
        let path = Graph::from_edges(["0", "1", "2", "3"].map(String::from).to_vec(), [(0, 1), (1, 2), (0, 3)]);
        assert_eq!(path.to_edge_list(), "# 4 vertices, 3 edges\n0\n0 1\n1 2\n0 3\n");
    }
}
