//! Graphs a user gives: read from an edge list, graph6, sparse6 or DIMACS into a [`Graph`]
//! (simple, undirected, its vertices named), with notes on what reading changed; and written
//! back to each format.
//!
//! ```text
//! Graph::read("a b\nb c\nc a\nb a\n", None, "triangle.txt")
//!     detect: the first line "a b" is no graph6, sparse6 or DIMACS line ─► edge list
//!     ─► vertices a b c (0 1 2), edges 0-1 0-2 1-2
//!        notes ["triangle.txt: 1 repeated edge merged (line 4: b a)"]
//! Graph::read("C~\n", None, "k4.g6")   ─► graph6: K4 on vertices 0 1 2 3, no notes
//! Graph::read("a b c\n", None, "stdin") ─► error "stdin line 1: expected two vertices "u v"
//!                                           (or one, alone), found 3 tokens: "a b c""
//! ```
//!
//! Each format's file says how it is written: [`edge_list`], [`graph6`] (graph6 and sparse6),
//! [`dimacs`]; a graph6 or sparse6 file of several graphs is a [`stream`], read line by line.
//! A graph read has at least one vertex; its repeated edges are merged and its loops
//! dropped, each with a note. Errors name the source and, where one is at fault, the line.

pub mod dimacs;
pub mod edge_list;
mod graph;
pub mod graph6;
pub mod stream;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use graph::{Graph, MAX_GRAPH_BYTES, MAX_VERTICES};
pub use stream::{GraphInput, GraphStream, StreamGraph};

use graph::Builder;

use crate::error::{Error, Result};

/// The formats a graph is read from (and written to); the names are `--from`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
pub enum Format {
    /// One edge `u v` a line; any tokens name the vertices; `#` comments.
    #[serde(rename = "edges")]
    #[value(name = "edges")]
    EdgeList,
    /// nauty's graph6 (`.g6`): one line of characters `?` to `~`.
    #[serde(rename = "graph6")]
    #[value(name = "graph6")]
    Graph6,
    /// nauty's sparse6 (`.s6`): a line starting with `:`.
    #[serde(rename = "sparse6")]
    #[value(name = "sparse6")]
    Sparse6,
    /// DIMACS (`.col`, `.clq`): `c` comments, `p edge N M`, `e U V` from 1.
    #[serde(rename = "dimacs")]
    #[value(name = "dimacs")]
    Dimacs,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::EdgeList, Format::Graph6, Format::Sparse6, Format::Dimacs];

    /// The name `--from` takes: `edges`, `graph6`, `sparse6`, `dimacs`.
    pub fn name(self) -> &'static str {
        match self {
            Format::EdgeList => "edges",
            Format::Graph6 => "graph6",
            Format::Sparse6 => "sparse6",
            Format::Dimacs => "dimacs",
        }
    }

    /// The format of `text`, from its first lines; `--from` settles any doubt.
    ///
    /// * sparse6: the first line that is not blank starts with `>>sparse6<<`, or is `:` (or
    ///   `;`, incremental sparse6) followed by characters `?` to `~` only;
    /// * graph6: that line starts with `>>graph6<<` or `&` (digraph6, refused by the reader with
    ///   its reason), or is characters `?` to `~` only (`C~`, `IheA@GUAo`) and no line of the
    ///   text holds two tokens (an edge);
    /// * DIMACS: the first line that is neither blank nor a comment (starting with `c`) is the
    ///   problem line: `p` and two tokens or more (an edge list line has at most two);
    /// * an edge list otherwise.
    ///
    /// A line of graph6's characters is graph6 whatever its length: a damaged or cut-short line
    /// (`E~~`, a cut-short Petersen graph `IheA`) is refused by the graph6 reader, which says
    /// what is wrong, and is never taken for an edge list of one vertex named `E~~`. An edge list
    /// whose first line reads as sparse6 (`:A`), whose first vertex is `p`, or that is nothing
    /// but lone vertices named in graph6's characters (`a`), is read with `--from edges`.
    pub fn detect(text: &str) -> Format {
        let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
        let Some(first) = lines.clone().next() else {
            return Format::EdgeList;
        };
        if first.starts_with(graph6::SPARSE6_HEADER) || graph6::looks_like_sparse6(first) {
            return Format::Sparse6;
        }
        let holds_an_edge = || lines.clone().any(|line| line.split_whitespace().nth(1).is_some());
        if first.starts_with(graph6::GRAPH6_HEADER)
            || first.starts_with('&')
            || (graph6::in_graph6_alphabet(first) && !holds_an_edge())
        {
            return Format::Graph6;
        }
        match lines.find(|line| !line.starts_with('c')) {
            Some(line) if line.split_whitespace().next() == Some("p") && line.split_whitespace().count() >= 3 => {
                Format::Dimacs
            }
            _ => Format::EdgeList,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = crate::error::Error;

    fn from_str(name: &str) -> Result<Format> {
        Format::ALL.into_iter().find(|format| format.name() == name).ok_or_else(|| {
            let known: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            crate::error::Error::InvalidRequest(format!(
                "unknown graph format {name:?}; leaper reads {}",
                known.join(", ")
            ))
        })
    }
}

impl Graph {
    /// The graph `text` holds, read from `source` (a file name, or `stdin`: it begins every
    /// error and note) in `format`, or the format [`Format::detect`] finds; and the notes on
    /// what reading changed (repeated edges merged, loops dropped, a DIMACS edge count that is
    /// not the edges listed).
    ///
    /// A text whose recognised format fails to read is refused, never read again as another
    /// format: the error says which format it was taken for and why, and that `--from` gives
    /// another.
    pub fn read(text: &str, format: Option<Format>, source: &str) -> Result<(Graph, Vec<String>)> {
        let detected = Format::detect(text);
        let read = |format| -> Result<(Builder, Vec<String>)> {
            Ok(match format {
                Format::EdgeList => (edge_list::read(text, source)?, Vec::new()),
                Format::Graph6 => (graph6::read_graph6(text, source)?, Vec::new()),
                Format::Sparse6 => (graph6::read_sparse6(text, source)?, Vec::new()),
                Format::Dimacs => dimacs::read(text, source)?,
            })
        };
        let (builder, mut notes) = match format {
            Some(given) => read(given)?,
            None => read(detected).map_err(|error| recognised_as(error, detected))?,
        };
        let (graph, merged) = builder.finish(source)?;
        notes.extend(merged);
        Ok((graph, notes))
    }

    /// The graph written in `format` (graph6, sparse6 and DIMACS number the vertices and drop
    /// their names; an edge list keeps them).
    pub fn write(&self, format: Format) -> String {
        match format {
            Format::EdgeList => self.to_edge_list(),
            Format::Graph6 => self.to_graph6(),
            Format::Sparse6 => self.to_sparse6(),
            Format::Dimacs => self.to_dimacs(),
        }
    }
}

/// `error`, a reader's refusal of a text recognised as `format`, with how the format was
/// recognised: the text was not read as any other.
fn recognised_as(error: Error, format: Format) -> Error {
    let why = match format {
        Format::Graph6 => "a line of graph6's characters alone",
        Format::Sparse6 => "a first line that begins with ':'",
        Format::Dimacs => "a first line that begins with 'p'",
        Format::EdgeList => return error,
    };
    match error {
        Error::InvalidRequest(message) => Error::InvalidRequest(format!(
            "{message} (recognised as {format}: {why}; --from reads it as another format)"
        )),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::graph::testing::{numbered, random_graphs, Random};
    use super::*;

    #[test]
    fn the_module_example() {
        let (graph, notes) = Graph::read("a b\nb c\nc a\nb a\n", None, "triangle.txt").unwrap();
        assert_eq!(graph.edges().collect::<Vec<_>>(), [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(graph.name(2), "c");
        assert_eq!(notes, ["triangle.txt: 1 repeated edge merged (line 4: b a)"]);
        let (k4, notes) = Graph::read("C~\n", None, "k4.g6").unwrap();
        assert_eq!((k4.vertices(), k4.edge_count(), notes.len()), (4, 6, 0));
        let error = Graph::read("a b c\n", None, "stdin").unwrap_err().to_string();
        assert_eq!(error, "stdin line 1: expected two vertices \"u v\" (or one, alone), found 3 tokens: \"a b c\"");
    }

    #[test]
    fn formats_have_names() {
        for format in Format::ALL {
            assert_eq!(format.name().parse::<Format>().unwrap(), format);
            assert_eq!(format.to_string(), format.name());
            assert_eq!(<Format as clap::ValueEnum>::from_str(format.name(), false).unwrap(), format);
            assert_eq!(serde_json::to_string(&format).unwrap(), format!("\"{}\"", format.name()));
        }
        let error = "g6".parse::<Format>().unwrap_err().to_string();
        assert_eq!(error, "unknown graph format \"g6\"; leaper reads edges, graph6, sparse6, dimacs");
    }

    #[test]
    fn each_format_is_detected() {
        let cases = [
            ("C~\n", Format::Graph6),
            ("\n  IheA@GUAo\r\n", Format::Graph6),
            (">>graph6<<C~\n", Format::Graph6),
            ("C~\nDQc\n", Format::Graph6),
            ("&C?\n", Format::Graph6),
            (":Fa@x^\n", Format::Sparse6),
            (">>sparse6<<:Fa@x^\n", Format::Sparse6),
            (";Fa\n", Format::Sparse6),
            ("p edge 3 2\ne 1 2\ne 2 3\n", Format::Dimacs),
            ("c a comment\nc\n\np col 3 2\ne 1 2\n", Format::Dimacs),
            ("p edge 3\n", Format::Dimacs),
            ("a b\nb c\n", Format::EdgeList),
            ("1 2\n2 3\n", Format::EdgeList),
            ("# comment\nC~\n", Format::EdgeList),
            ("c d\nd e\n", Format::EdgeList),
            ("c d\np q\n", Format::EdgeList),
            ("C~~\n", Format::Graph6),
            ("E~~\nF~~w\n", Format::Graph6),
            ("A_\nA_ b\n", Format::EdgeList),
            (":a :b\n", Format::EdgeList),
            ("a\n", Format::Graph6),
            ("a1\n", Format::EdgeList),
            ("", Format::EdgeList),
        ];
        for (text, format) in cases {
            assert_eq!(Format::detect(text), format, "{text:?}");
        }
    }

    #[test]
    fn every_format_reads_back_what_it_wrote() {
        let mut random = Random::new(11);
        for graph in random_graphs().into_iter().step_by(3) {
            for format in Format::ALL {
                let text = graph.write(format);
                assert_eq!(Format::detect(&text), format, "{text}");
                for given in [Some(format), None] {
                    let (read, notes) = Graph::read(&text, given, "g").unwrap();
                    assert!(notes.is_empty(), "{format} {notes:?}");
                    let expected = match format {
                        Format::Dimacs => graph.renamed(numbered(graph.vertices(), 1)),
                        _ => graph.clone(),
                    };
                    assert_eq!(read, expected, "{format} {given:?}\n{text}");
                }
            }
            // A shuffled edge list keeps its names.
            let shuffled = graph.relabelled(&random.permutation(graph.vertices()));
            assert_eq!(Graph::read(&shuffled.to_edge_list(), None, "g").unwrap().0, shuffled);
        }
    }

    #[test]
    fn an_isolated_vertex_is_kept_and_empty_input_is_an_error() {
        let (graph, _) = Graph::read("a b\nb c\nc a\nd\n", None, "g.txt").unwrap();
        assert_eq!((graph.vertices(), graph.neighbours(3)), (4, &[][..]));
        for (text, format) in [("", None), ("\n# only a comment\n", None), ("?", Some(Format::Graph6)), (":?", None)] {
            let error = Graph::read(text, format, "g").unwrap_err().to_string();
            assert_eq!(error, "g: the graph has no vertices; give at least one", "{text:?}");
        }
    }
}
