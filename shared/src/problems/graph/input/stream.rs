//! A stream of graphs: a graph6 or sparse6 file of several lines, one graph a line, as nauty's
//! tools write them (`geng 4 | leaper graph -`). Each line is read on its own, as it comes, so
//! that a stream may be far longer than a graph file may be ([`MAX_GRAPH_BYTES`]): only each
//! line is bounded.
//!
//! ```text
//! GraphInput::open("-", None)   stdin: "C^\nC~\n"  (graph6 of two lines: a stream)
//!     ─► Stream: line 1 C^ ─► the 4-cycle with a chord, "stdin line 1"
//!                line 2 C~ ─► K4, "stdin line 2"
//! GraphInput::open("k4.g6", None)  "C~\n"          (one graph: read as before)
//!     ─► One("C~\n")
//! ```
//!
//! Which it is, is decided as [`Format::detect`] decides a format, on the whole text when it is
//! within [`MAX_GRAPH_BYTES`]: a text read as graph6 or sparse6 (recognised, or `--from`) with
//! two graph lines or more is a stream. A longer text is a stream if it begins as graph6 or
//! sparse6, and too large a graph file otherwise. Each line of a stream is graph6 unless it
//! starts with `:` (sparse6; `;`, incremental sparse6, is refused), or the format `--from` gave.

use std::io::{BufRead, BufReader, Cursor, Read};

use super::graph::{invalid, Graph, MAX_GRAPH_BYTES};
use super::{graph6, Format};
use crate::error::{file_error, Error, Result};
use crate::input::{BoundedLines, Line, Source};

/// What a graph file holds, as `leaper graph` reads it.
pub enum GraphInput {
    /// The text of one graph, in any format: [`Graph::read`] reads it.
    One(String),
    /// Several graphs, one a line.
    Stream(GraphStream),
}

impl GraphInput {
    /// The graph file `source` (stdin for `-`), read as `format` or the format recognised: one
    /// graph, or a stream of them.
    pub fn open(source: &Source, format: Option<Format>) -> Result<GraphInput> {
        let name = source.name().display().to_string();
        let action = "read the graph file";
        let reader = source.open().map_err(|e| file_error(source.name(), action, e))?;
        let mut reader = BufReader::new(reader);
        let mut head = Vec::new();
        (&mut reader).take(MAX_GRAPH_BYTES).read_to_end(&mut head).map_err(|e| file_error(source.name(), action, e))?;
        let whole = reader.fill_buf().map_err(|e| file_error(source.name(), action, e))?.is_empty();
        let format_of = |text: &str| format.unwrap_or_else(|| Format::detect(text));
        let in_lines = |format| matches!(format, Format::Graph6 | Format::Sparse6);
        if whole {
            let text = String::from_utf8(head).map_err(|_| Error::File {
                path: source.name().into(),
                message: "the graph file is not text (UTF-8)".into(),
            })?;
            if !in_lines(format_of(&text)) || graph_lines(&text) < 2 {
                return Ok(GraphInput::One(text));
            }
            let lines: Box<dyn BufRead + Send> = Box::new(Cursor::new(text.into_bytes()));
            return Ok(GraphInput::Stream(GraphStream::new(lines, name, format)));
        }
        if !in_lines(format_of(&String::from_utf8_lossy(&head))) {
            return Err(Error::File {
                path: source.name().into(),
                message: format!(
                    "the graph file is larger than {}, more than such a file holds: is it the right file? (a graph6 \
                     or sparse6 stream, one graph a line, may be longer)",
                    crate::input::size(MAX_GRAPH_BYTES)
                ),
            });
        }
        let lines: Box<dyn BufRead + Send> = Box::new(BufReader::new(Cursor::new(head).chain(reader)));
        Ok(GraphInput::Stream(GraphStream::new(lines, name, format)))
    }
}

/// The lines of a graph6 or sparse6 text that hold a graph (not blank, not a header alone).
fn graph_lines(text: &str) -> usize {
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    let first = lines.next().map(strip_header).filter(|line| !line.is_empty());
    usize::from(first.is_some()) + lines.count()
}

/// `line` without the header `>>graph6<<` or `>>sparse6<<` it may begin with.
fn strip_header(line: &str) -> &str {
    [graph6::GRAPH6_HEADER, graph6::SPARSE6_HEADER]
        .iter()
        .find_map(|header| line.strip_prefix(header))
        .unwrap_or(line)
        .trim_start()
}

/// One graph of a stream: the line it was on, the graph, and what reading it noticed.
#[derive(Debug)]
pub struct StreamGraph {
    pub line: usize,
    pub graph: Graph,
    pub notes: Vec<String>,
}

/// The graphs of a stream, line by line, in order; the first line that is no graph ends it with
/// an error naming the line.
pub struct GraphStream {
    lines: BoundedLines<Box<dyn BufRead + Send>>,
    source: String,
    format: Option<Format>,
    /// Whether a line that is not blank has been read (only the first may hold a header).
    begun: bool,
    /// Whether an error ended the stream.
    failed: bool,
}

impl GraphStream {
    fn new(lines: Box<dyn BufRead + Send>, source: String, format: Option<Format>) -> GraphStream {
        let limit = usize::try_from(MAX_GRAPH_BYTES).unwrap_or(usize::MAX);
        GraphStream { lines: BoundedLines::new(lines, limit), source, format, begun: false, failed: false }
    }

    /// The name of the stream's source (`stdin`, a file name).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The next graph, `None` at the end.
    fn next_graph(&mut self) -> Result<Option<StreamGraph>> {
        loop {
            let Some((number, line)) = self
                .lines
                .next_line()
                .map_err(|e| file_error(std::path::Path::new(&self.source), "read the graph file", e))?
            else {
                return Ok(None);
            };
            let Line::Text(bytes) = line else {
                return Err(invalid(
                    &self.source,
                    Some(number),
                    format!("the line is longer than {} bytes", self.lines.limit()),
                ));
            };
            let text = std::str::from_utf8(bytes)
                .map_err(|_| invalid(&self.source, Some(number), "the line is not text (UTF-8)"))?
                .trim();
            if text.is_empty() {
                continue;
            }
            let text = if std::mem::replace(&mut self.begun, true) { text } else { strip_header(text) };
            if text.is_empty() {
                continue;
            }
            let format =
                self.format.unwrap_or(if text.starts_with([':', ';']) { Format::Sparse6 } else { Format::Graph6 });
            let builder = match format {
                Format::Sparse6 => graph6::sparse6_line(text, number, &self.source)?,
                _ => graph6::graph6_line(text, number, &self.source)?,
            };
            let (graph, notes) = builder.finish(&format!("{} line {number}", self.source))?;
            return Ok(Some(StreamGraph { line: number, graph, notes }));
        }
    }
}

impl Iterator for GraphStream {
    type Item = Result<StreamGraph>;

    fn next(&mut self) -> Option<Result<StreamGraph>> {
        if self.failed {
            return None;
        }
        let next = self.next_graph().transpose();
        self.failed = matches!(next, Some(Err(_)));
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(text: &str, format: Option<Format>) -> Vec<Result<StreamGraph>> {
        let lines: Box<dyn BufRead + Send> = Box::new(Cursor::new(text.as_bytes().to_vec()));
        GraphStream::new(lines, "g".into(), format).collect()
    }

    #[test]
    fn the_module_example_and_headers_blank_lines_and_sparse6() {
        let read = stream(">>graph6<<C^\n\nC~\r\n:Fa@x^\n", None);
        let graphs: Vec<(usize, usize, usize)> = read
            .iter()
            .map(|g| g.as_ref().unwrap())
            .map(|g| (g.line, g.graph.vertices(), g.graph.edge_count()))
            .collect();
        assert_eq!(graphs, [(1, 4, 5), (3, 4, 6), (4, 7, 4)]);
        assert_eq!(graph_lines(">>graph6<<\nC~\n\n"), 1);
        assert_eq!(graph_lines(">>graph6<<C~\nC^\n"), 2);
    }

    #[test]
    fn a_bad_line_ends_the_stream_naming_its_line() {
        let read = stream("C~\nC~~\nC~\n", None);
        assert_eq!(read.len(), 2);
        let error = read[1].as_ref().unwrap_err().to_string();
        assert!(error.starts_with("g line 2: \"C~~\" is no whole graph6 graph"), "{error}");
        // An edge list read with --from graph6: what the graph6 reader finds wrong in line 1.
        let read = stream("0 1\n1 2\n", Some(Format::Graph6));
        let error = read[0].as_ref().unwrap_err().to_string();
        assert_eq!(
            error,
            "g line 1: '0' (character 1) is no graph6 character: they run from '?' to '~' (bytes 63 to 126)"
        );
    }
}
