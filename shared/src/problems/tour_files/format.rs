//! The three ways a tour is written, one tour per line.
//!
//! ```text
//! compact   Phadke's compact file: two spaces, the row of every square in visiting order
//!           (1 is the top row), two spaces, the column of every square (1 is the left
//!           column). On 8x8: 2 + 64 + 2 + 64 = 132 characters, 134 bytes with CR LF.
//! moves     the squares in algebraic notation (a1 is the bottom left), separated by spaces;
//!           a closed tour ends with its first square again.
//! edges     Phadke's connectivity form: each connection as the coordinates of its two ends,
//!           lower first (1123 joins (1,1) and (2,3)), sorted; an open tour's fictitious
//!           closing connection, from its first square to its last, is marked with a `*`.
//! ```
//!
//! Boards with a side over 9 write every coordinate with two digits (`01` to `26`), so that
//! lines keep a fixed width (a 10x10 compact line is 2 + 200 + 2 + 200 characters).
//!
//! A compact line does not say whether its tour is closed; a move list or a connection list
//! does. [`Closure`] settles it: `--closed` claims every tour closed (an open one is an error),
//! `--open` claims every tour open, and by default a compact tour is closed when its ends are a
//! knight's move apart.

use serde::{Deserialize, Serialize};

use super::board::{Square, TourBoard, MAX_FILE_SIDE};
use super::tour::Tour;
use crate::hamiltonian::board::BoardSize;
use crate::input::quote;

/// The longest line read (by the reader, and by the board inference looking ahead). The longest
/// tour line of the largest board a file may have (26x26, [`MAX_FILE_SIDE`]) is an open tour's
/// connection list: 675 connections of eight digits, the closing one starred, and their
/// spaces, 6,084 bytes (its compact line is 2,708, its move list 2,707). Twice that and more
/// leaves room for looser spacing; a longer line is no tour.
pub const MAX_TOUR_LINE: usize = 16 << 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Phadke's compact file: rows, then columns, one digit each on 8x8 (134 bytes with CR LF).
    Compact,
    /// Algebraic squares in visiting order; a closed tour repeats its first square at the end.
    Moves,
    /// Phadke's connectivity numbers, sorted; an open tour's closing connection marked `*`.
    Edges,
}

impl Format {
    /// The name `--to` takes: `compact`, `moves`, `edges`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Compact => "compact",
            Format::Moves => "moves",
            Format::Edges => "edges",
        }
    }
}

/// Whether the tours read are closed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Closure {
    /// As the line says; a compact line is closed when its ends are a knight's move apart.
    #[default]
    Auto,
    /// Every tour is closed: one that does not close is invalid.
    Closed,
    /// Every tour is open.
    Open,
}

/// `a 6x6`, but `an 8x8`, `an 11x3`, `an 18x18`: the article of the board's spoken name.
fn article(board: &TourBoard) -> &'static str {
    match board.cols() {
        8 | 11 | 18 => "an",
        _ => "a",
    }
}

/// Digits per coordinate on `board`.
fn digits(board: &TourBoard) -> usize {
    if board.rows().max(board.cols()) > 9 {
        2
    } else {
        1
    }
}

/// The format a line is in, from its look: compact lines start with two spaces and a digit,
/// move lists with a letter, connection lists with a digit.
pub fn detect(line: &str) -> Option<Format> {
    let bytes = line.as_bytes();
    match bytes.first()? {
        b' ' if bytes.get(1) == Some(&b' ') && bytes.get(2).is_some_and(u8::is_ascii_digit) => Some(Format::Compact),
        b if b.is_ascii_alphabetic() => Some(Format::Moves),
        b if b.is_ascii_digit() => Some(Format::Edges),
        _ => None,
    }
}

/// Writes `tour` as one line in `format`, with its line ending (CR LF for compact files, as
/// Phadke's; LF otherwise).
pub fn write(board: &TourBoard, tour: &Tour, format: Format) -> String {
    match format {
        Format::Compact => compact(board, tour),
        Format::Moves => {
            let back = tour.closed.then(|| tour.squares[0]);
            let names: Vec<String> = tour.squares.iter().copied().chain(back).map(|s| board.name(s)).collect();
            format!("{}\n", names.join(" "))
        }
        Format::Edges => {
            let mut numbers: Vec<String> = tour.moves().map(|(a, b)| connection(board, a, b)).collect();
            if let Some((a, b)) = tour.ends() {
                numbers.push(format!("{}*", connection(board, a, b)));
            }
            numbers.sort_unstable();
            format!("{}\n", numbers.join(" "))
        }
    }
}

fn compact(board: &TourBoard, tour: &Tour) -> String {
    let width = digits(board);
    let mut line = String::with_capacity(4 + 2 * width * tour.squares.len() + 2);
    line.push_str("  ");
    for &square in &tour.squares {
        line.push_str(&format!("{:0width$}", board.coordinates(square).0 + 1));
    }
    line.push_str("  ");
    for &square in &tour.squares {
        line.push_str(&format!("{:0width$}", board.coordinates(square).1 + 1));
    }
    line.push_str("\r\n");
    line
}

/// The connectivity number of the connection between `a` and `b`.
fn connection(board: &TourBoard, a: Square, b: Square) -> String {
    let width = digits(board);
    let (low, high) = (a.min(b), a.max(b));
    let ((r1, c1), (r2, c2)) = (board.coordinates(low), board.coordinates(high));
    format!("{:0width$}{:0width$}{:0width$}{:0width$}", r1 + 1, c1 + 1, r2 + 1, c2 + 1)
}

/// Reads one line (without its line ending) in `format` as a tour of `board`, closed or open as
/// `closure` says, and checks it. The error names the defect.
pub fn parse(board: &TourBoard, format: Format, closure: Closure, line: &str) -> Result<Tour, String> {
    let (squares, claim) = match format {
        Format::Compact => (parse_compact(board, line)?, None),
        Format::Moves => parse_moves(board, line)?,
        Format::Edges => {
            let tour = parse_edges(board, line)?;
            let closed = tour.closed;
            (tour.squares, Some(closed))
        }
    };
    let mut tour = Tour { squares, closed: false };
    tour.closed = match (closure, claim) {
        (Closure::Closed, Some(false)) => return Err("an open tour where every tour was claimed closed".into()),
        (Closure::Open, Some(true)) => return Err("a closed tour where every tour was claimed open".into()),
        (Closure::Closed, _) => true,
        (Closure::Open, _) => false,
        (Closure::Auto, Some(closed)) => closed,
        (Closure::Auto, None) => tour.squares.len() == board.squares() && tour.closes(board),
    };
    tour.check(board)?;
    Ok(tour)
}

fn parse_compact(board: &TourBoard, line: &str) -> Result<Vec<Square>, String> {
    let (n, width) = (board.squares(), digits(board));
    let expected = 4 + 2 * n * width;
    let bytes = line.as_bytes();
    if bytes.len() != expected {
        // The boards this length fits are likely the file's.
        let fitting = boards_of_compact_length(bytes.len());
        let hint = if fitting.is_empty() {
            String::new()
        } else {
            format!("; {} bytes are a compact tour of {}", bytes.len(), either(&fitting))
        };
        return Err(format!(
            "a line of {} bytes; {} {} tour in the compact format takes {expected} ({} with CR LF){hint}",
            bytes.len(),
            article(board),
            board.size(),
            expected + 2
        ));
    }
    let middle = 2 + n * width;
    if &bytes[..2] != b"  " || &bytes[middle..middle + 2] != b"  " {
        return Err("a compact line is two spaces, the rows, two spaces, the columns".into());
    }
    let read = |start: usize, limit: usize, what: &str| -> Result<Vec<usize>, String> {
        bytes[start..start + n * width]
            .chunks(width)
            .enumerate()
            .map(|(index, digits)| {
                let text = std::str::from_utf8(digits).unwrap_or("?");
                match text.parse::<usize>() {
                    Ok(value) if (1..=limit).contains(&value) && digits.iter().all(u8::is_ascii_digit) => Ok(value - 1),
                    _ => Err(format!("square {}: {what} {text:?} is not between 1 and {limit}", index + 1)),
                }
            })
            .collect()
    };
    let rows = read(2, board.rows(), "row")?;
    let cols = read(middle + 2, board.cols(), "column")?;
    Ok(rows.into_iter().zip(cols).map(|(r, c)| board.at(r, c)).collect())
}

fn parse_moves(board: &TourBoard, line: &str) -> Result<(Vec<Square>, Option<bool>), String> {
    let mut squares = Vec::with_capacity(board.squares() + 1);
    for name in line.split([' ', '\t', ',', '-']).filter(|t| !t.is_empty()) {
        let square = board
            .parse_name(name)
            .ok_or_else(|| format!("{} is not a square of the {} board", quote(name), board.size()))?;
        squares.push(square);
    }
    // A closed tour written as a circuit comes back to its first square.
    if squares.len() == board.squares() + 1 && squares.first() == squares.last() {
        squares.pop();
        return Ok((squares, Some(true)));
    }
    Ok((squares, None))
}

fn parse_edges(board: &TourBoard, line: &str) -> Result<Tour, String> {
    let width = digits(board);
    let mut connections = Vec::with_capacity(board.squares());
    let mut ends = None;
    for token in line.split_whitespace() {
        let (number, fictitious) = match token.strip_suffix('*') {
            Some(number) => (number, true),
            None => (token, false),
        };
        let bad = || format!("{} is not a connection of the {} board", quote(token), board.size());
        if number.len() != 4 * width || !number.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let coordinate = |k: usize| number[k * width..(k + 1) * width].parse::<usize>().expect("digits");
        let square = |r: usize, c: usize| {
            (1..=board.rows())
                .contains(&r)
                .then_some(())
                .and((1..=board.cols()).contains(&c).then(|| board.at(r - 1, c - 1)))
        };
        let (a, b) = match (square(coordinate(0), coordinate(1)), square(coordinate(2), coordinate(3))) {
            (Some(a), Some(b)) if a != b => (a, b),
            _ => return Err(bad()),
        };
        if fictitious {
            if ends.is_some() {
                return Err("two connections marked * (an open tour has one closing connection)".into());
            }
            ends = Some((a.min(b), a.max(b)));
        } else {
            connections.push((a, b));
        }
    }
    let wanted = board.squares() - usize::from(ends.is_some());
    if connections.len() != wanted {
        return Err(format!(
            "{} connections; a{} tour of the {} board has {wanted}",
            connections.len(),
            if ends.is_some() { "n open" } else { " closed" },
            board.size()
        ));
    }
    Tour::from_connections(board, &connections, ends)
}

// The boards a line's length fits: the formats' own arithmetic, which this file's errors and the
// board inference (`infer.rs`, which reads lines in these formats) share.

/// Digits per coordinate on a board of these sides (as [`write`] writes them).
fn width_of(size: BoardSize) -> usize {
    if size.width.max(size.length) > 9 {
        2
    } else {
        1
    }
}

/// A board of `rows x cols` that a tour of `squares` squares written with `width` digits per
/// coordinate can be of.
pub(super) fn fits(rows: usize, cols: usize, squares: usize, width: usize) -> Option<BoardSize> {
    let size = BoardSize { width: cols, length: rows };
    let sides = (1..=MAX_FILE_SIDE).contains(&rows) && (1..=MAX_FILE_SIDE).contains(&cols);
    (sides && rows * cols == squares && width_of(size) == width).then_some(size)
}

/// The boards whose compact tour line takes `len` bytes (without its line ending): both sides
/// at least 3, as a knight's tour needs; the squarest first, then the wider.
pub fn boards_of_compact_length(len: usize) -> Vec<BoardSize> {
    let mut boards = Vec::new();
    for width in [1, 2] {
        if len < 4 || !(len - 4).is_multiple_of(2 * width) {
            continue;
        }
        let squares = (len - 4) / (2 * width);
        for rows in 3..=MAX_FILE_SIDE {
            if squares.is_multiple_of(rows) {
                boards.extend(fits(rows, squares / rows, squares, width).filter(|size| size.width >= 3));
            }
        }
    }
    boards.sort_by_key(|size| (size.width.abs_diff(size.length), std::cmp::Reverse(size.width)));
    boards
}

/// `6x6`, `6x6 or 4x9`, `6x6, 4x9 or 9x4`.
pub fn either(boards: &[BoardSize]) -> String {
    let names: Vec<String> = boards.iter().map(BoardSize::to_string).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::warnsdorff::{TieBreak, Warnsdorff};
    use super::*;

    fn board(size: &str) -> TourBoard {
        TourBoard::new(size.parse().unwrap()).unwrap()
    }

    /// The first closed tour of the 6x6 enumeration.
    fn closed_6x6() -> Tour {
        let enumeration = super::super::enumerate::Enumeration::new(board("6x6"), true).unwrap();
        let mut first = None;
        for shard in 0..enumeration.shard_count() {
            enumeration
                .run_shard(shard, &mut |tour| {
                    first.get_or_insert_with(|| tour.clone());
                    Ok(())
                })
                .unwrap();
            if first.is_some() {
                break;
            }
        }
        first.unwrap()
    }

    #[test]
    fn a_tour_reads_back_from_every_format() {
        let board = board("6x6");
        let tour = closed_6x6();
        assert!(tour.closed);
        for format in [Format::Compact, Format::Moves, Format::Edges] {
            let line = write(&board, &tour, format);
            let text = line.trim_end_matches(['\r', '\n']);
            let back = parse(&board, format, Closure::Auto, text).unwrap();
            assert_eq!(back.closed, tour.closed);
            assert_eq!(back.moves().collect::<std::collections::BTreeSet<_>>(), tour.moves().collect());
        }
        let line = write(&board, &tour, Format::Compact);
        assert_eq!(line.len(), 2 + 36 + 2 + 36 + 2, "two spaces, rows, two spaces, columns, CR LF");
        assert!(line.ends_with("\r\n") && line.starts_with("  "));
    }

    #[test]
    fn the_line_bound_holds_every_tour_of_the_largest_board_twice_over() {
        let board = TourBoard::new(format!("{MAX_FILE_SIDE}x{MAX_FILE_SIDE}").parse().unwrap()).unwrap();
        let rule = Warnsdorff { board: &board, tie_break: TieBreak::Pohl, closed: false, start: None, seed: 1 };
        let tour = (0..1000).find_map(|attempt| rule.attempt(attempt).filter(|t| !t.closed)).expect("an open tour");
        let longest = [Format::Compact, Format::Moves, Format::Edges].map(|f| write(&board, &tour, f).len());
        assert_eq!(longest, [2 + 676 * 2 + 2 + 676 * 2 + 2, longest[1], 675 * 8 + 9 + 675 + 1]);
        assert!(longest.iter().all(|&len| 2 * len <= MAX_TOUR_LINE), "{longest:?}");
    }
}
