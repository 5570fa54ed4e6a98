//! The board of tour files given without `--board`, read from their first tour.
//!
//! A tour visits every square, so its first line names the board exactly: the largest row and
//! column of a compact line or a connection list, the last file letter and rank of a move list,
//! and as many squares as their product. The line's length alone would not do: a compact line
//! of 76 bytes is a tour of 36 squares, 6x6, 4x9 or 9x4 alike. A line that names no board (a
//! title, a damaged tour) is passed over for the next; if none of the first lines names one, the
//! first is refused, with the boards its length fits, and `--board WxH` to say which.
//!
//! Input that cannot be read ahead (stdin, a pipe) keeps the 8x8 default, and every error about its
//! lines says so ([`BoardSource`]).

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use super::board::{TourBoard, MAX_FILE_SIDE};
use super::format::{boards_of_compact_length, detect, either, fits, Format, MAX_TOUR_LINE};
use crate::error::{Error, Result};
use crate::hamiltonian::board::BoardSize;
use crate::input::{quote, BoundedLines, Line, Source};

/// The board of a file when nothing says otherwise: Phadke's 8x8.
pub const DEFAULT_BOARD: BoardSize = BoardSize { width: 8, length: 8 };

/// Where the board of a reading came from, as every error about a line says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardSource {
    /// `--board`.
    Given,
    /// The first tour of a file: `path`, line `line`.
    Read { path: PathBuf, line: usize },
    /// 8x8, because `path` is no regular file (a pipe), which cannot be read twice.
    Default { path: PathBuf },
}

impl BoardSource {
    /// What an error about a line of `board` adds: where the board came from, and how to give
    /// another.
    pub fn note(&self, board: &TourBoard) -> String {
        let size = board.size();
        let whence = match self {
            BoardSource::Given => format!("read as {size}, the board of --board"),
            BoardSource::Read { path, line } => {
                format!("read as {size}, the board of line {line} of {}", path.display())
            }
            BoardSource::Default { path } => format!(
                "read as {size}, the default: {} is not a regular file, so its board was not read ahead",
                path.display()
            ),
        };
        format!("{whence}; tours of another board need --board WxH")
    }
}

/// The board of `paths`: that of the first tour of the first file holding one (in `from`, or
/// the format the line looks like), or 8x8 if no file holds a tour or the first file is not a
/// regular file.
pub fn read_board(paths: &[PathBuf], from: Option<Format>) -> Result<(BoardSize, BoardSource)> {
    for path in paths {
        let source = Source::new(path);
        if source == Source::Stdin {
            return Ok((DEFAULT_BOARD, BoardSource::Default { path: source.name().to_path_buf() }));
        }
        let file = File::open(path).map_err(|e| crate::engine::jobdir::file_error(path, "read the tours", e))?;
        let regular = file.metadata().is_ok_and(|meta| meta.is_file());
        if !regular {
            return Ok((DEFAULT_BOARD, BoardSource::Default { path: path.clone() }));
        }
        if let Some((line, size)) = first_board(path, file, from)? {
            return Ok((size, BoardSource::Read { path: path.clone(), line }));
        }
    }
    Ok((DEFAULT_BOARD, BoardSource::Default { path: paths.first().cloned().unwrap_or_default() }))
}

/// Lines read for a board at most: a line that names none (a title, a damaged tour) is passed
/// over, and the reader reports it later on the board found, or skips it with --skip-invalid.
const LOOKAHEAD: usize = 100;

/// The line number and board of the file's first tour, if it holds one; if none of its first
/// [`LOOKAHEAD`] lines names a board, the error says why the first does not.
fn first_board(path: &Path, file: File, from: Option<Format>) -> Result<Option<(usize, BoardSize)>> {
    let mut lines = BoundedLines::new(BufReader::new(file), MAX_TOUR_LINE);
    let mut first_failure: Option<(usize, String)> = None;
    let mut tried = 0;
    while tried < LOOKAHEAD {
        let next = lines.next_line().map_err(|e| crate::engine::jobdir::file_error(path, "read the tours", e))?;
        let Some((number, line)) = next else { break };
        let board = match line {
            Line::Text(text) if text.iter().all(u8::is_ascii_whitespace) || text.first() == Some(&b'#') => continue,
            Line::Text(text) => match std::str::from_utf8(text) {
                Ok(text) => match from.or_else(|| detect(text)) {
                    Some(format) => board_of_line(text, format),
                    None => Err("it is a tour in no format leaper knows (give --from if it is one)".into()),
                },
                Err(_) => Err("it is not text (UTF-8)".into()),
            },
            Line::TooLong => Err("it is longer than any tour".into()),
        };
        match board {
            Ok(size) => return Ok(Some((number, size))),
            Err(reason) => {
                first_failure.get_or_insert((number, reason));
            }
        }
        tried += 1;
    }
    match first_failure {
        None => Ok(None),
        Some((number, reason)) => Err(Error::File {
            path: path.to_path_buf(),
            message: format!("line {number}: cannot tell the board from this line: {reason}; give it with --board WxH"),
        }),
    }
}

/// The board whose tour `line` (without its line ending) is, in `format`; or why it names none.
pub fn board_of_line(line: &str, format: Format) -> std::result::Result<BoardSize, String> {
    match format {
        Format::Compact => compact(line),
        Format::Moves => moves(line),
        Format::Edges => edges(line),
    }
}

fn compact(line: &str) -> std::result::Result<BoardSize, String> {
    let bytes = line.as_bytes();
    let found: Vec<BoardSize> = [1, 2].into_iter().filter_map(|width| compact_with(bytes, width)).collect();
    match found[..] {
        [size] => Ok(size),
        [] => {
            let lengths = boards_of_compact_length(bytes.len());
            Err(if lengths.is_empty() {
                format!("no board's compact tour takes a line of {} bytes", bytes.len())
            } else {
                format!(
                    "a line of {} bytes is a compact tour of {}, but its rows and columns cover none of them",
                    bytes.len(),
                    either(&lengths)
                )
            })
        }
        _ => Err(format!("the line reads as a compact tour of {} alike", either(&found))),
    }
}

/// The board of a compact line with `width` digits per coordinate, if it covers one.
fn compact_with(bytes: &[u8], width: usize) -> Option<BoardSize> {
    let len = bytes.len();
    if len <= 4 || !(len - 4).is_multiple_of(2 * width) {
        return None;
    }
    let squares = (len - 4) / (2 * width);
    let middle = 2 + squares * width;
    if &bytes[..2] != b"  " || &bytes[middle..middle + 2] != b"  " {
        return None;
    }
    let largest = |start: usize| -> Option<usize> {
        let values: Option<Vec<usize>> = bytes[start..start + squares * width]
            .chunks(width)
            .map(|digits| std::str::from_utf8(digits).ok()?.parse::<usize>().ok().filter(|&v| v >= 1))
            .collect();
        values?.into_iter().max()
    };
    fits(largest(2)?, largest(middle + 2)?, squares, width)
}

fn moves(line: &str) -> std::result::Result<BoardSize, String> {
    let mut squares = Vec::new();
    for name in line.split([' ', '\t', ',', '-']).filter(|t| !t.is_empty()) {
        let bad = || format!("{} is not a square such as a1", quote(name));
        let file = name.chars().next().filter(char::is_ascii_alphabetic).ok_or_else(bad)?.to_ascii_lowercase();
        let rank =
            name[1..].parse::<usize>().ok().filter(|&r| r >= 1 && !name[1..].starts_with('+')).ok_or_else(bad)?;
        squares.push((file as usize - 'a' as usize, rank));
    }
    let cols = squares.iter().map(|&(file, _)| file + 1).max().unwrap_or(0);
    let rows = squares.iter().map(|&(_, rank)| rank).max().unwrap_or(0);
    // A closed tour written as a circuit names its first square again at the end.
    let circuit = squares.len() > 1 && squares.first() == squares.last();
    let visited = squares.len() - usize::from(circuit && squares.len() == rows * cols + 1);
    let size = BoardSize { width: cols, length: rows };
    (rows <= MAX_FILE_SIDE && cols <= MAX_FILE_SIDE && visited == rows * cols).then_some(size).ok_or_else(|| {
        format!(
            "its {} squares reach file {} and rank {rows}, but the {size} board has {} squares",
            visited,
            (b'a' + (cols.max(1) - 1).min(25) as u8) as char,
            rows * cols
        )
    })
}

fn edges(line: &str) -> std::result::Result<BoardSize, String> {
    let tokens: Vec<&str> = line.split_whitespace().map(|t| t.strip_suffix('*').unwrap_or(t)).collect();
    let len = tokens.first().map_or(0, |t| t.len());
    let width = len / 4;
    let readable = (width == 1 || width == 2)
        && len == 4 * width
        && tokens.iter().all(|t| t.len() == len && t.bytes().all(|b| b.is_ascii_digit()));
    if !readable {
        return Err("its connections are not all numbers of four or eight digits".into());
    }
    let coordinate = |token: &str, k: usize| token[k * width..(k + 1) * width].parse::<usize>().expect("digits");
    let largest = |ks: [usize; 2]| tokens.iter().flat_map(|t| ks.map(|k| coordinate(t, k))).max().unwrap_or(0);
    let (rows, cols) = (largest([0, 2]), largest([1, 3]));
    // A closed tour has a connection per square; an open one a connection fewer, and its
    // starred closing connection.
    fits(rows, cols, tokens.len(), width).ok_or_else(|| {
        format!(
            "its {} connections reach row {rows} and column {cols}, but a tour of the {} board has {} connections",
            tokens.len(),
            BoardSize { width: cols, length: rows },
            rows * cols
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::format::write;
    use super::super::warnsdorff::{TieBreak, Warnsdorff};
    use super::*;

    fn size(text: &str) -> BoardSize {
        text.parse().unwrap()
    }

    #[test]
    fn a_tour_in_any_format_names_its_board() {
        for name in ["5x5", "6x6", "4x9", "9x4", "8x8", "10x3", "3x10", "12x12", "5x6", "10x6"] {
            let board = TourBoard::new(size(name)).unwrap();
            // Random ties: Pohl's rule finds no 4x9 tour.
            let rule = Warnsdorff { board: &board, tie_break: TieBreak::Random, closed: false, start: None, seed: 3 };
            let tour = (0..100_000).find_map(|attempt| rule.attempt(attempt)).expect("a tour");
            for format in [Format::Compact, Format::Moves, Format::Edges] {
                let line = write(&board, &tour, format);
                let text = line.trim_end_matches(['\r', '\n']);
                assert_eq!(board_of_line(text, format), Ok(size(name)), "{name} {format:?}: {text}");
            }
        }
    }

    #[test]
    fn a_line_that_is_no_whole_tour_names_the_boards_its_length_fits() {
        assert_eq!(boards_of_compact_length(76), [size("6x6"), size("9x4"), size("4x9")]);
        assert_eq!(either(&boards_of_compact_length(76)), "6x6, 9x4 or 4x9");
        assert_eq!(either(&boards_of_compact_length(132)), "8x8");
        // Rows that run only to 5 on a line of 36 squares.
        let line = format!("  {}  {}", "12345".repeat(7) + "1", "123456".repeat(6));
        assert_eq!(
            board_of_line(&line, Format::Compact),
            Err("a line of 76 bytes is a compact tour of 6x6, 9x4 or 4x9, but its rows and columns cover none of them"
                .into())
        );
        assert_eq!(
            board_of_line("  1234  1234", Format::Compact),
            Err("no board's compact tour takes a line of 12 bytes".into())
        );
        assert_eq!(
            board_of_line("a1 b3 c5", Format::Moves),
            Err("its 3 squares reach file c and rank 5, but the 3x5 board has 15 squares".into())
        );
        assert_eq!(board_of_line("a1 b3 x", Format::Moves), Err("\"x\" is not a square such as a1".into()));
    }
}
