//! graph6 and sparse6, Brendan McKay's formats for nauty (its `formats.txt`): a graph on one
//! line of the 64 characters `?` (63) to `~` (126), each carrying six bits (its byte less 63).
//! Vertices are numbered from 0 and named by their numbers.
//!
//! The vertex count n is N(n): one character for n ≤ 62, `~` and three characters (18 bits)
//! up to 258047, `~~` and six characters (36 bits) past that.
//!
//! graph6 (`.g6`) follows N(n) by the upper triangle of the adjacency matrix, column by column:
//! bits (0,1) (0,2) (1,2) (0,3) (1,3) (2,3) ..., padded with 0s to a multiple of six.
//!
//! ```text
//! C~    C = 67 - 63: n = 4;  ~ = 126 - 63 = 111111: (0,1) (0,2) (1,2) (0,3) (1,3) (2,3), K4
//! ```
//!
//! sparse6 (`.s6`) is `:` and N(n), then pairs (b, x) of one bit and k bits, k the bits of
//! n - 1, read with a current vertex v = 0: b = 1 moves v on by one; then x > v makes x the
//! current vertex, and x ≤ v is the edge x-v. An incomplete pair at the end is padding, and so
//! is anything once v ≥ n.
//!
//! ```text
//! :Fa@x^   F: n = 7, k = 3;  a@x^ = 100010 000001 111001 011111
//!          = 1 000 | 1 000 | 0 001 | 1 110 | 0 101 | 1 111
//!          v=1, 0-1 | v=2, 0-2 | 1-2 | v=3, then v=6 | 5-6 | v=7 ≥ n: padding
//! ```
//!
//! The padding is 1s, except where they would read as a loop: when n = 2^k, the last edge
//! ends at n - 2 and a whole pair fits in the padding, 1s would read v = n - 1, x = n - 1, the
//! loop at n - 1; the padding is then a 0 and 1s (v stays, x = n - 1 > v moves v to n - 1).
//!
//! A file may begin with the header `>>graph6<<` or `>>sparse6<<` and holds one graph a line;
//! [`Graph::read`] reads a file of one graph and refuses one of several, saying how many:
//! those are streams ([`super::stream`]), each line read on its own. A sparse6
//! line may hold loops and repeated edges: they are dropped and merged, with a note. An
//! incremental sparse6 line (`;`, edges changed from the line before) has no graph before it
//! here, and digraph6 (`&`) is directed: both are refused.

use super::graph::{check_vertices, invalid, Builder, Graph};
use crate::error::Result;
use crate::input::quote;

pub(super) const GRAPH6_HEADER: &str = ">>graph6<<";
pub(super) const SPARSE6_HEADER: &str = ">>sparse6<<";

/// The byte of six bits 0.
const BIAS: u8 = 63;
/// The first byte of a four- or eight-byte N(n).
const LONG: u8 = 126;

/// Whether `line` is made of graph6's characters alone, `?` to `~`: graph6 or a damaged graph6
/// line, whose length the reader checks.
pub(super) fn in_graph6_alphabet(line: &str) -> bool {
    !line.is_empty() && line.bytes().all(|b| (BIAS..=LONG).contains(&b))
}

/// Whether `line` is a sparse6 graph, incremental or not: `:` or `;`, then characters `?` to
/// `~` only (at least N(n)'s).
pub(super) fn looks_like_sparse6(line: &str) -> bool {
    line.strip_prefix([':', ';'])
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| (BIAS..=LONG).contains(&b)))
}

/// The bytes of graph6 after N(n): n(n-1)/2 bits, six a byte.
fn graph6_bytes(n: u64) -> u128 {
    let n = u128::from(n);
    (n * n.saturating_sub(1) / 2).div_ceil(6)
}

/// N(n) at the start of `bytes` (each 63 to 126): n and the bytes it takes, or `None` when it
/// is cut short.
fn size(bytes: &[u8]) -> Option<(u64, usize)> {
    let (start, digits) = match bytes {
        [LONG, LONG, ..] => (2, 6),
        [LONG, ..] => (1, 3),
        [first, ..] => return Some((u64::from(first - BIAS), 1)),
        [] => return None,
    };
    let digits = bytes.get(start..start + digits)?;
    Some((digits.iter().fold(0, |n, &b| n << 6 | u64::from(b - BIAS)), start + digits.len()))
}

/// N(n) as characters.
fn write_size(n: u64, text: &mut String) {
    let (prefix, digits) = match n {
        0..=62 => {
            text.push(char::from(n as u8 + BIAS));
            return;
        }
        63..=258_047 => (1, 3),
        _ => (2, 6),
    };
    assert!(n < 1 << 36, "graph6 and sparse6 hold at most 2^36 - 1 vertices, not {n}");
    for _ in 0..prefix {
        text.push(char::from(LONG));
    }
    for digit in (0..digits).rev() {
        text.push(char::from((n >> (6 * digit) & 63) as u8 + BIAS));
    }
}

/// The line holding the graph in a graph6 or sparse6 file, with its number, the header (if
/// any) taken off: refused unless it is the only one.
fn the_line<'a>(text: &'a str, header: &str, source: &str) -> Result<(usize, &'a str)> {
    let mut first = true;
    let mut graphs = text.lines().enumerate().filter_map(|(i, line)| {
        let mut line = line.trim();
        if first && !line.is_empty() {
            first = false;
            line = line.strip_prefix(header).unwrap_or(line).trim_start();
        }
        (!line.is_empty()).then_some((i + 1, line))
    });
    let graph = graphs.next().ok_or_else(|| invalid(source, None, "no graph: the file holds no more than a header"))?;
    match graphs.count() {
        0 => Ok(graph),
        more => Err(invalid(
            source,
            None,
            format!(
                "the file holds {} graphs, one a line; leaper reads one graph a file: put the graph to count in a \
                 file of its own",
                1 + more
            ),
        )),
    }
}

/// `line`'s bytes less 63, refused at the first character outside `?` to `~`.
fn six_bits(line: &str, skip: usize, format: &str, number: usize, source: &str) -> Result<Vec<u8>> {
    if let Some((column, c)) = line.chars().enumerate().skip(skip).find(|&(_, c)| !('?'..='~').contains(&c)) {
        return Err(invalid(
            source,
            Some(number),
            format!(
                "{c:?} (character {}) is no {format} character: they run from '?' to '~' (bytes 63 to 126)",
                column + 1
            ),
        ));
    }
    Ok(line.bytes().skip(skip).map(|b| b - BIAS).collect())
}

/// A refusal of what is no graph6 or sparse6 graph but looks like another of the family.
fn other_family(line: &str, format: &str, number: usize, source: &str) -> Result<()> {
    let other = match line.as_bytes().first() {
        Some(b'&') => "digraph6 (it starts with '&'), a directed graph: leaper reads undirected graphs",
        Some(b':') if format == "graph6" => "sparse6 (it starts with ':'), not graph6: read it with --from sparse6",
        Some(b';') => {
            "incremental sparse6 (it starts with ';'): it gives the edges that change from the graph of the line \
             before, and a file here holds one graph"
        }
        Some(_) if format == "sparse6" && !line.starts_with(':') => {
            "not sparse6: a sparse6 line starts with ':' (is it graph6? read it with --from graph6)"
        }
        _ => return Ok(()),
    };
    Err(invalid(source, Some(number), format!("{} is {other}", quote(line))))
}

/// The graph of the graph6 file `text`.
pub(super) fn read_graph6(text: &str, source: &str) -> Result<Builder> {
    let (number, line) = the_line(text, GRAPH6_HEADER, source)?;
    graph6_line(line, number, source)
}

/// The graph of `line`, line `number` of `source` in graph6 (its header taken off).
pub(super) fn graph6_line(line: &str, number: usize, source: &str) -> Result<Builder> {
    other_family(line, "graph6", number, source)?;
    let bytes = six_bits(line, 0, "graph6", number, source)?;
    let with_bias: Vec<u8> = bytes.iter().map(|b| b + BIAS).collect();
    let (n, used) = size(&with_bias)
        .ok_or_else(|| invalid(source, Some(number), format!("{} is cut short in its vertex count", quote(line))))?;
    let (expected, found) = (graph6_bytes(n), (bytes.len() - used) as u128);
    if expected != found {
        return Err(invalid(
            source,
            Some(number),
            format!(
                "{} is no whole graph6 graph: graph6 of {n} vertices has {} after the vertex count (n(n-1)/2 \
                 bits, six a character), this line {found}",
                quote(line),
                if expected == 1 { "1 character".to_string() } else { format!("{expected} characters") }
            ),
        ));
    }
    let n = check_vertices(n, source, number)?;
    let mut builder = Builder::new((0..n).map(|v| v.to_string()).collect());
    let mut bits = Bits::new(&bytes[used..]);
    for v in 1..n {
        for u in 0..v {
            if bits.take(1) == 1 {
                builder.edge(u, v, 0);
            }
        }
    }
    Ok(builder)
}

/// The graph of the sparse6 file `text`.
pub(super) fn read_sparse6(text: &str, source: &str) -> Result<Builder> {
    let (number, line) = the_line(text, SPARSE6_HEADER, source)?;
    sparse6_line(line, number, source)
}

/// The graph of `line`, line `number` of `source` in sparse6 (its header taken off).
pub(super) fn sparse6_line(line: &str, number: usize, source: &str) -> Result<Builder> {
    other_family(line, "sparse6", number, source)?;
    let bytes = six_bits(line, 1, "sparse6", number, source)?;
    let with_bias: Vec<u8> = bytes.iter().map(|b| b + BIAS).collect();
    let (n, used) = size(&with_bias)
        .ok_or_else(|| invalid(source, Some(number), format!("{} is cut short in its vertex count", quote(line))))?;
    let n = check_vertices(n, source, number)? as u64;
    let k = width(n);
    let mut builder = Builder::new((0..n).map(|v| v.to_string()).collect());
    let mut bits = Bits::new(&bytes[used..]);
    let mut v = 0;
    // The decoding of formats.txt, as nauty's own reader does it.
    // A pair is one bit and k; fewer bits left are padding.
    while bits.left() > k {
        v += bits.take(1);
        let x = bits.take(k);
        if x > v {
            v = x;
        } else if v < n {
            builder.edge(x as usize, v as usize, 0);
        }
    }
    Ok(builder)
}

/// The bits of n - 1: k, the width of a sparse6 vertex (0 for n ≤ 1).
fn width(n: u64) -> usize {
    (u64::BITS - n.saturating_sub(1).leading_zeros()) as usize
}

/// Six-bit values read as one bit string, big-endian.
struct Bits<'a> {
    values: &'a [u8],
    at: usize,
}

impl<'a> Bits<'a> {
    fn new(values: &'a [u8]) -> Self {
        Bits { values, at: 0 }
    }

    fn left(&self) -> usize {
        6 * self.values.len() - self.at
    }

    /// The next `k` bits (at most 64, at most [`Bits::left`]) as a number.
    fn take(&mut self, k: usize) -> u64 {
        let mut value = 0;
        for _ in 0..k {
            let bit = self.values[self.at / 6] >> (5 - self.at % 6) & 1;
            value = value << 1 | u64::from(bit);
            self.at += 1;
        }
        value
    }
}

/// A bit string written six bits a character.
struct BitWriter {
    text: String,
    /// Bits of the character being filled, and how many.
    current: u8,
    filled: usize,
}

impl BitWriter {
    fn put(&mut self, value: u64, k: usize) {
        for i in (0..k).rev() {
            self.current = self.current << 1 | (value >> i & 1) as u8;
            self.filled += 1;
            if self.filled == 6 {
                self.text.push(char::from(self.current + BIAS));
                (self.current, self.filled) = (0, 0);
            }
        }
    }

    /// The bits left to the end of the character being filled (0 when none is begun).
    fn to_fill(&self) -> usize {
        (6 - self.filled) % 6
    }
}

impl Graph {
    /// The graph in graph6, one line (no header). Names are not kept: vertex `v` is `v`.
    pub fn to_graph6(&self) -> String {
        let mut text = String::new();
        write_size(self.vertices() as u64, &mut text);
        let mut bits = BitWriter { text, current: 0, filled: 0 };
        for v in 1..self.vertices() {
            let near = self.neighbours(v);
            for u in 0..v {
                bits.put(u64::from(near.binary_search(&u).is_ok()), 1);
            }
        }
        let pad = bits.to_fill();
        bits.put(0, pad);
        bits.text + "\n"
    }

    /// The graph in sparse6, one line (no header), as nauty writes it: edges by their higher
    /// end, then their lower. Names are not kept: vertex `v` is `v`.
    pub fn to_sparse6(&self) -> String {
        let n = self.vertices() as u64;
        let mut text = String::from(":");
        write_size(n, &mut text);
        let k = width(n);
        let mut bits = BitWriter { text, current: 0, filled: 0 };
        // The current vertex of the decoding.
        let mut last = 0;
        for v in 0..self.vertices() {
            for &u in self.neighbours(v).iter().take_while(|&&u| u < v) {
                if v == last {
                    bits.put(0, 1);
                } else if v == last + 1 {
                    bits.put(1, 1);
                } else {
                    // Move on by one, then jump to v (x = v is above the current vertex).
                    bits.put(1, 1);
                    bits.put(v as u64, k);
                    bits.put(0, 1);
                }
                last = v;
                bits.put(u as u64, k);
            }
        }
        let pad = bits.to_fill();
        if pad > k && n == 1 << k && last as u64 == n - 2 {
            bits.put(0, 1);
            bits.put(u64::MAX, pad - 1);
        } else {
            bits.put(u64::MAX, pad);
        }
        bits.text + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::testing::{numbered, random_graphs};
    use super::*;

    fn read_g6(text: &str) -> Result<(Graph, Vec<String>)> {
        read_graph6(text, "g.g6")?.finish("g.g6")
    }

    fn read_s6(text: &str) -> Result<(Graph, Vec<String>)> {
        read_sparse6(text, "g.s6")?.finish("g.s6")
    }

    #[test]
    fn vertex_counts_follow_the_spec_examples() {
        let encoded = |n| {
            let mut text = String::new();
            write_size(n, &mut text);
            text.into_bytes()
        };
        assert_eq!(encoded(30), [93]);
        assert_eq!(encoded(12345), [126, 66, 63, 120]);
        assert_eq!(encoded(460175067), [126, 126, 63, 90, 90, 90, 90, 90]);
        for n in [0, 1, 62, 63, 64, 12345, 258047, 258048, 460175067, (1 << 36) - 1] {
            let bytes = encoded(n);
            assert_eq!(size(&bytes), Some((n, bytes.len())), "{n}");
            assert_eq!(size(&bytes[..bytes.len() - 1]), None, "{n}");
        }
        assert_eq!(graph6_bytes(0), 0);
        assert_eq!(graph6_bytes(1), 0);
        assert_eq!(graph6_bytes(5), 2);
        assert_eq!((width(1), width(2), width(7), width(8), width(9)), (0, 1, 3, 3, 4));
    }

    #[test]
    fn k4_and_the_spec_graph6_example() {
        let (k4, notes) = read_g6("C~\n").unwrap();
        assert!(notes.is_empty());
        assert_eq!(k4.edges().collect::<Vec<_>>(), [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
        assert_eq!(k4.to_graph6(), "C~\n");
        // The header may stand on a line of its own.
        assert_eq!(read_g6(">>graph6<<\nC~\n").unwrap().0, k4);
        // formats.txt: n = 5, edges 0-2 0-4 1-3 3-4 is "DQc".
        let (graph, _) = read_g6(">>graph6<<DQc").unwrap();
        assert_eq!(graph.edges().collect::<Vec<_>>(), [(0, 2), (0, 4), (1, 3), (3, 4)]);
        assert_eq!(graph.to_graph6(), "DQc\n");
    }

    #[test]
    fn the_petersen_graph() {
        let (petersen, _) = read_g6("IheA@GUAo\n").unwrap();
        assert_eq!(petersen.vertices(), 10);
        // The usual labelling: the outer cycle 0-1-2-3-4, spokes v-(v+5), the inner pentagram
        // 5-7-9-6-8.
        let mut expected = Vec::new();
        for v in 0..5 {
            expected.push((v, (v + 1) % 5));
            expected.push((v, v + 5));
            expected.push((5 + v, 5 + (v + 2) % 5));
        }
        let mut expected: Vec<(usize, usize)> = expected.into_iter().map(|(u, v)| (u.min(v), u.max(v))).collect();
        expected.sort_unstable();
        assert_eq!(petersen.edges().collect::<Vec<_>>(), expected);
        assert_eq!(petersen.edge_count(), 15);
        assert!((0..10).all(|v| petersen.neighbours(v).len() == 3));
        // Girth 5: no triangle, no 4-cycle (two vertices share at most one neighbour, and
        // adjacent ones none), and the outer cycle.
        for u in 0..10 {
            for v in u + 1..10 {
                let shared = petersen.neighbours(u).iter().filter(|w| petersen.neighbours(v).contains(w)).count();
                let adjacent = petersen.neighbours(u).contains(&v);
                assert!(shared <= if adjacent { 0 } else { 1 }, "{u} {v}");
            }
        }
        assert_eq!(petersen.to_graph6(), "IheA@GUAo\n");
    }

    #[test]
    fn the_spec_sparse6_example() {
        let (graph, notes) = read_s6(":Fa@x^\n").unwrap();
        assert!(notes.is_empty());
        assert_eq!(graph.vertices(), 7);
        assert_eq!(graph.edges().collect::<Vec<_>>(), [(0, 1), (0, 2), (1, 2), (5, 6)]);
        assert_eq!(graph.to_sparse6(), ":Fa@x^\n");
        assert_eq!(read_s6(">>sparse6<<:Fa@x^").unwrap().0, graph);
    }

    #[test]
    fn sparse6_padding_never_reads_as_a_loop() {
        // n = 8 = 2^3, one edge 0-6: 1 110 | 0 000 leaves four bits, room for a pair. Padding
        // 1111 would read v = 7, x = 7: a loop at 7. The writer pads 0111 (x = 7 > v = 6).
        let graph = Graph::from_edges(numbered(8, 0), [(0, 6)]);
        assert_eq!(graph.to_sparse6(), ":GwF\n");
        assert_eq!(read_s6(":GwF").unwrap(), (graph.clone(), vec![]));
        // 1111 is the loop formats.txt's rule avoids; read, it is dropped with a note.
        let (read, notes) = read_s6(":GwN").unwrap();
        assert_eq!(read, graph);
        assert_eq!(notes, ["g.s6: 1 loop dropped: a loop is never part of a Hamiltonian cycle or path (7 7)"]);
        // The same at n = 4 (k = 2), edges 0-2 1-2: 1 10 0 00 0 01, padded 0 11, not 1 11.
        assert_eq!(Graph::from_edges(numbered(4, 0), [(0, 2), (1, 2)]).to_sparse6(), ":CoJ\n");
        // Where no whole pair fits, the padding is 1s: n = 16 (k = 4), edge 0-14 is 1 1110 0 0000,
        // two bits to pad, 11.
        let graph = Graph::from_edges(numbered(16, 0), [(0, 14)]);
        assert_eq!(graph.to_sparse6(), ":O{B\n");
        assert_eq!(read_s6(":O{B").unwrap(), (graph, vec![]));
    }

    #[test]
    fn sparse6_loops_and_repeats_are_noted() {
        // n = 4, k = 2: 0 00 (loop 0-0)  1 00 (v=1, 0-1)  0 00 (0-1 again)  0 01 (loop 1-1),
        // 12 bits: 000100 000001 (networkx reads the same multigraph).
        let (graph, notes) = read_s6(":CC@").unwrap();
        assert_eq!(graph.edges().collect::<Vec<_>>(), [(0, 1)]);
        assert_eq!(
            notes,
            [
                "g.s6: 1 repeated edge merged (0 1)",
                "g.s6: 2 loops dropped: a loop is never part of a Hamiltonian cycle or path (the first: 0 0)"
            ]
        );
    }

    #[test]
    fn writing_and_reading_back_gives_the_same_graph() {
        for graph in random_graphs() {
            assert_eq!(read_g6(&graph.to_graph6()).unwrap(), (graph.clone(), vec![]));
            assert_eq!(read_s6(&graph.to_sparse6()).unwrap(), (graph.clone(), vec![]));
        }
        // Every power-of-two order, where the padding rule applies, with the last edge at n-2.
        for k in 1..=6 {
            let n = 1 << k;
            for u in 0..n - 2 {
                let graph = Graph::from_edges(numbered(n, 0), [(u, n - 2)]);
                assert_eq!(read_s6(&graph.to_sparse6()).unwrap(), (graph.clone(), vec![]), "{n} {u}");
            }
        }
        // Past 258047 vertices N(n) takes eight bytes and a vertex 19 bits.
        let n = 300_000;
        let graph = Graph::from_edges(numbered(n, 0), [(0, n - 1), (5, 258_048), (258_047, 258_048)]);
        let text = graph.to_sparse6();
        assert!(text.starts_with(":~~"));
        assert_eq!(read_s6(&text).unwrap(), (graph, vec![]));
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let error =
            |text: &str, sparse: bool| if sparse { read_s6(text) } else { read_g6(text) }.unwrap_err().to_string();
        // Blanks around the line are no part of it.
        assert_eq!(read_g6("\n  C~ \r\n\n").unwrap().0.edge_count(), 6);
        assert_eq!(
            error("C~x!", false),
            "g.g6 line 1: '!' (character 4) is no graph6 character: they run from '?' to '~' (bytes 63 to 126)"
        );
        assert_eq!(
            error("Cé", false),
            "g.g6 line 1: 'é' (character 2) is no graph6 character: they run from '?' to '~' (bytes 63 to 126)"
        );
        assert_eq!(
            error("C~~", false),
            "g.g6 line 1: \"C~~\" is no whole graph6 graph: graph6 of 4 vertices has 1 character after the vertex \
             count (n(n-1)/2 bits, six a character), this line 2"
        );
        assert_eq!(
            error("IheA@GUA", false),
            "g.g6 line 1: \"IheA@GUA\" is no whole graph6 graph: graph6 of 10 vertices has 8 characters after the \
             vertex count (n(n-1)/2 bits, six a character), this line 7"
        );
        assert_eq!(error("~??", false), "g.g6 line 1: \"~??\" is cut short in its vertex count");
        assert_eq!(error("C~\n\nC~\nDQc\n", false), "g.g6: the file holds 3 graphs, one a line; leaper reads one graph a file: put the graph to count in a file of its own");
        assert_eq!(error(">>graph6<<\n", false), "g.g6: no graph: the file holds no more than a header");
        assert_eq!(error("", false), "g.g6: no graph: the file holds no more than a header");
        assert_eq!(error("?", false), "g.g6: the graph has no vertices; give at least one");
        assert_eq!(
            error("&C?", false),
            "g.g6 line 1: \"&C?\" is digraph6 (it starts with '&'), a directed graph: leaper reads undirected graphs"
        );
        assert_eq!(
            error(":Fa@x^", false),
            "g.g6 line 1: \":Fa@x^\" is sparse6 (it starts with ':'), not graph6: read it with --from sparse6"
        );
        assert_eq!(
            error("C~", true),
            "g.s6 line 1: \"C~\" is not sparse6: a sparse6 line starts with ':' (is it graph6? read it with --from \
             graph6)"
        );
        assert!(error(":Fa@x^\n;Fa", true).starts_with("g.s6: the file holds 2 graphs"));
        assert!(error(";Fa", true).starts_with("g.s6 line 1: \";Fa\" is incremental sparse6 (it starts with ';')"));
        assert_eq!(
            error(":Fa x", true),
            "g.s6 line 1: ' ' (character 4) is no sparse6 character: they run from '?' to '~' (bytes 63 to 126)"
        );
        assert_eq!(error(":", true), "g.s6 line 1: \":\" is cut short in its vertex count");
        // 2^36 - 1 vertices in eight bytes: refused before anything is allocated.
        assert_eq!(
            error(":~~~~~~~~", true),
            format!(
                "g.s6 line 1: the graph has 68719476735 vertices, more than the {} leaper reads",
                super::super::graph::MAX_VERTICES
            )
        );
    }

    #[test]
    fn the_first_line_is_recognised() {
        let graph6 = in_graph6_alphabet;
        // Damaged lines (`C~~`, `IheA`) are graph6 too: the reader says what is wrong with them.
        assert!(graph6("C~") && graph6("IheA@GUAo") && graph6("@") && graph6("C~~") && graph6("IheA"));
        assert!(!graph6("a b") && !graph6("") && !graph6(":Fa@x^") && !graph6("a1") && !graph6("#C~"));
        assert!(looks_like_sparse6(":Fa@x^") && looks_like_sparse6(";Fa"));
        assert!(!looks_like_sparse6(":") && !looks_like_sparse6(":a :b") && !looks_like_sparse6("Fa@x^"));
    }
}
