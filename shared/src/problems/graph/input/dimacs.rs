//! DIMACS graphs (the format of the DIMACS challenges' `.col` and `.clq` files): comment lines,
//! one problem line giving the vertex and edge counts, then one edge a line, vertices numbered
//! from 1.
//!
//! ```text
//! c the triangle and a pendant    a comment: any line starting with c
//! p edge 4 4                      4 vertices, named 1 to 4; 4 edges (also `p col`, `p edges`)
//! e 1 2
//! e 2 3
//! e 3 1
//! e 3 4
//!     ─► vertices 1 2 3 4 (numbered 0 to 3), edges 1-2 1-3 2-3 3-4
//! ```
//!
//! A vertex past the count is an error; an edge count other than the edges listed is a note
//! (files that list every edge both ways say twice as many, or half).

use std::fmt::Write;

use super::graph::{check_vertices, invalid, Builder, Graph};
use crate::error::Result;
use crate::input::quote;

/// The problem line's format words.
const FORMATS: [&str; 3] = ["edge", "edges", "col"];

/// The graph of the DIMACS file `text`, and a note where the edges listed are not as many as
/// the problem line says.
pub(super) fn read(text: &str, source: &str) -> Result<(Builder, Vec<String>)> {
    // The builder, the problem line's number and its edge count.
    let mut problem: Option<(Builder, usize, u64)> = None;
    let mut listed = 0u64;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let error = |message: String| invalid(source, Some(number), message);
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.first() {
            None => {}
            Some(first) if first.starts_with('c') => {}
            Some(&"p") => {
                if let Some((_, first, _)) = problem {
                    return Err(error(format!("a second problem line (the first is line {first})")));
                }
                let counts = match tokens[..] {
                    [_, format, n, m] if FORMATS.contains(&format) => n.parse::<u64>().ok().zip(m.parse::<u64>().ok()),
                    _ => None,
                };
                let Some((n, m)) = counts else {
                    return Err(error(format!(
                        "expected the problem line \"p edge N M\" (N vertices, M edges), found {}",
                        quote(line.trim())
                    )));
                };
                let n = check_vertices(n, source, number)?;
                problem = Some((Builder::new((1..=n).map(|v| v.to_string()).collect()), number, m));
            }
            Some(&"e") => {
                let Some((builder, _, _)) = &mut problem else {
                    return Err(error("an edge before the problem line \"p edge N M\"".to_string()));
                };
                let n = builder.names.len();
                let vertex = |token: &str| token.parse::<usize>().ok().filter(|v| (1..=n).contains(v));
                let [_, u, v] = tokens[..] else {
                    return Err(error(format!("expected an edge \"e U V\", found {}", quote(line.trim()))));
                };
                for token in [u, v] {
                    if vertex(token).is_none() {
                        return Err(error(format!(
                            "{} is no vertex: the problem line gives vertices 1 to {n}",
                            quote(token)
                        )));
                    }
                }
                let (u, v) = (vertex(u).expect("checked") - 1, vertex(v).expect("checked") - 1);
                builder.edge(u, v, number);
                listed += 1;
            }
            Some(other) => {
                return Err(error(format!(
                    "expected a line starting with c (a comment), p (the problem) or e (an edge), found {}",
                    quote(other)
                )))
            }
        }
    }
    let Some((builder, line, m)) = problem else {
        return Err(invalid(source, None, "no problem line \"p edge N M\": is it a DIMACS graph?"));
    };
    let mut notes = Vec::new();
    if m != listed {
        notes.push(format!("{source}: the problem line (line {line}) says {m} edges; the file lists {listed}"));
    }
    Ok((builder, notes))
}

impl Graph {
    /// The graph in DIMACS, vertex `v` numbered `v + 1` (names are not kept).
    pub fn to_dimacs(&self) -> String {
        let mut text = format!("p edge {} {}\n", self.vertices(), self.edge_count());
        for (u, v) in self.edges() {
            writeln!(text, "e {} {}", u + 1, v + 1).expect("writing to a String");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::testing::{numbered, random_graphs};
    use super::*;

    fn read_graph(text: &str) -> Result<(Graph, Vec<String>)> {
        let (builder, mut notes) = read(text, "g.col")?;
        let (graph, more) = builder.finish("g.col")?;
        notes.extend(more);
        Ok((graph, notes))
    }

    #[test]
    fn the_module_example_reads() {
        let text = "c the triangle and a pendant\np edge 4 4\ne 1 2\ne 2 3\ne 3 1\ne 3 4\n";
        let (graph, notes) = read_graph(text).unwrap();
        assert!(notes.is_empty());
        assert_eq!((0..4).map(|v| graph.name(v)).collect::<Vec<_>>(), ["1", "2", "3", "4"]);
        assert_eq!(graph.edges().collect::<Vec<_>>(), [(0, 1), (0, 2), (1, 2), (2, 3)]);
        let (col, _) = read_graph("c\ncomment without a space\np col 4 4\n\ne 1 2\ne 2 3\ne 3 1\ne 3 4\n").unwrap();
        assert_eq!(col, graph);
    }

    #[test]
    fn a_wrong_edge_count_repeats_and_loops_are_notes() {
        let (graph, notes) = read_graph("p edge 3 2\ne 1 2\ne 2 1\ne 2 3\ne 3 2\ne 3 3\n").unwrap();
        assert_eq!(graph.edges().collect::<Vec<_>>(), [(0, 1), (1, 2)]);
        assert_eq!(
            notes,
            [
                "g.col: the problem line (line 1) says 2 edges; the file lists 5",
                "g.col: 2 repeated edges merged (the first on line 3: 2 1)",
                "g.col: 1 loop dropped: a loop is never part of a Hamiltonian cycle or path (line 6: 3 3)"
            ]
        );
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        let error = |text: &str| read_graph(text).unwrap_err().to_string();
        assert_eq!(
            error("p edge 3 1\ne 1 4\n"),
            "g.col line 2: \"4\" is no vertex: the problem line gives vertices 1 to 3"
        );
        assert_eq!(
            error("p edge 3 1\ne 0 1\n"),
            "g.col line 2: \"0\" is no vertex: the problem line gives vertices 1 to 3"
        );
        assert_eq!(
            error("p edge 3 1\ne 1 x\n"),
            "g.col line 2: \"x\" is no vertex: the problem line gives vertices 1 to 3"
        );
        assert_eq!(error("p edge 3 1\ne 1 2 3\n"), "g.col line 2: expected an edge \"e U V\", found \"e 1 2 3\"");
        assert_eq!(error("c\ne 1 2\n"), "g.col line 2: an edge before the problem line \"p edge N M\"");
        assert_eq!(
            error("p edge 3\n"),
            "g.col line 1: expected the problem line \"p edge N M\" (N vertices, M edges), found \"p edge 3\""
        );
        assert_eq!(
            error("p cnf 3 1\n"),
            "g.col line 1: expected the problem line \"p edge N M\" (N vertices, M edges), found \"p cnf 3 1\""
        );
        assert_eq!(error("p edge 3 0\np edge 3 0\n"), "g.col line 2: a second problem line (the first is line 1)");
        assert_eq!(
            error("p edge 3 0\nn 1 5\n"),
            "g.col line 2: expected a line starting with c (a comment), p (the problem) or e (an edge), found \"n\""
        );
        assert_eq!(error("c nothing\n"), "g.col: no problem line \"p edge N M\": is it a DIMACS graph?");
        assert_eq!(error("p edge 0 0\n"), "g.col: the graph has no vertices; give at least one");
        assert!(
            error("p edge 4000000000 0\n").starts_with("g.col line 1: the graph has 4000000000 vertices, more than")
        );
    }

    #[test]
    fn writing_and_reading_back_gives_the_same_graph() {
        for graph in random_graphs() {
            let read = read_graph(&graph.to_dimacs()).unwrap();
            assert_eq!(read, (graph.renamed(numbered(graph.vertices(), 1)), vec![]));
        }
    }
}
