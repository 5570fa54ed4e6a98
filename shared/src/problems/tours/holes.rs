//! Boards with squares removed (`leaper knight 8x8 --remove a1,h8`, or `--remove-mask FILE`):
//! a single board's graph without those squares, counted as any graph is
//! ([`crate::problems::graph`]: the transfer matrix over the squares left, in the narrowest
//! order found), with the board's own reason where its colours forbid a tour. Here: the
//! squares' names, the mask file and the graph; the count task's job and reasons for such a
//! board are in [`super::holed_count`].
//!
//! Squares are named as chess names them: a file letter (`a` for the first column, then `b`,
//! ..., `z`, `aa`, `ab`, ... past 26 columns) and a rank number from 1 (the first row), on the
//! board as the user wrote it (`8x6`: files a-h, ranks 1-6). A mask file draws the board, one
//! line per rank with the last rank first (as a chess diagram): `x` (or `X`, `#`) removes a
//! square, `.` (or `o`, `-`) keeps it. The 4 x 3 board without a1 and d3:
//!
//! ```text
//! ...x     rank 3: d3 removed
//! ....     rank 2
//! x...     rank 1: a1 removed
//! ```
//!
//! A mask file is read within a bound its board sets ([`mask_bytes`]): `/dev/zero`, or a file of
//! a gigabyte for a 6 x 6 board, is refused after a few kilobytes (by its size, unread, where it
//! is a regular file). `--remove` names each square once: `a1,a1` and an empty name (`--remove
//! ""`, `a1,,b2`) are refused, as slips that would otherwise count a board other than the one
//! meant.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::hamiltonian::board::{BoardSize, Geometry};
use crate::input::{quote, read_text, Source};

/// The most bytes a mask file of `board` may hold: a square a character with room for a space
/// or two around it (8 bytes a square), a line ending a rank (8 bytes), and 4 KiB for blank lines
/// and trailing space. A picture of the board takes 1 or 2 bytes a square: 4,432 bytes are
/// allowed for 6 x 6, 8 MiB for a board of a million squares.
pub fn mask_bytes(board: BoardSize) -> u64 {
    let (cells, ranks) = (board.width as u64 * board.length as u64, board.length as u64);
    8 * (cells + ranks) + 4096
}

/// The name of the square in column `file` and row `rank` (both from 0): `a1`.
pub fn square_name(file: usize, rank: usize) -> String {
    let mut letters = Vec::new();
    let mut f = file + 1;
    while f > 0 {
        letters.push(b'a' + ((f - 1) % 26) as u8);
        f = (f - 1) / 26;
    }
    letters.reverse();
    format!("{}{}", String::from_utf8(letters).expect("ASCII"), rank + 1)
}

/// The square `name` names on `board`: (file, rank) from 0.
fn parse_square(name: &str, board: BoardSize) -> Result<(usize, usize)> {
    let name = name.trim().to_ascii_lowercase();
    let invalid = |reason: String| Error::InvalidRequest(format!("--remove: square {}: {reason}", quote(&name)));
    let split = name.find(|c: char| !c.is_ascii_lowercase()).unwrap_or(name.len());
    let (letters, digits) = name.split_at(split);
    if letters.is_empty() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid("expected a file letter and a rank number, as in a1 or h8".into()));
    }
    let file = letters.bytes().fold(0usize, |f, b| f.saturating_mul(26).saturating_add((b - b'a' + 1) as usize)) - 1;
    let rank = digits.parse::<usize>().map_err(|_| invalid("the rank is not a number".into()))?;
    if rank == 0 || file >= board.width || rank > board.length {
        return Err(invalid(format!(
            "not on the {board} board (files a-{}, ranks 1-{})",
            square_name(board.width - 1, 0).trim_end_matches('1'),
            board.length
        )));
    }
    Ok((file, rank - 1))
}

/// The squares `names` (each a comma-separated list, as `--remove` was given) name on `board`,
/// sorted by rank then file, by name. A square named twice, or an empty name, is refused.
pub fn squares(names: &[String], board: BoardSize) -> Result<Vec<String>> {
    let mut squares = BTreeSet::new();
    for given in names {
        for name in given.split(',') {
            if name.trim().is_empty() {
                return Err(Error::InvalidRequest(format!(
                    "--remove {}: an empty square name; give the squares by name, each once, as in a1,h8",
                    quote(given)
                )));
            }
            let (file, rank) = parse_square(name, board)?;
            if !squares.insert((rank, file)) {
                return Err(Error::InvalidRequest(format!(
                    "--remove: square {} is named twice; give each square once",
                    square_name(file, rank)
                )));
            }
        }
    }
    finish(squares, board)
}

/// The squares the mask file `path` (`-`: stdin) removes from `board`, read within
/// [`mask_bytes`] of the board.
pub fn read_mask(path: &str, board: BoardSize) -> Result<Vec<String>> {
    let source = Source::new(path);
    let text = read_text(&source, mask_bytes(board), &format!("mask file of the {board} board"))?;
    mask(&text, &source.name().display().to_string(), board)
}

/// The squares a mask file (`source` names it in errors) removes from `board`.
pub fn mask(text: &str, source: &str, board: BoardSize) -> Result<Vec<String>> {
    let lines: Vec<&str> = text.lines().map(str::trim_end).filter(|line| !line.trim().is_empty()).collect();
    if lines.len() != board.length {
        return Err(Error::InvalidRequest(format!(
            "{source}: the mask has {} lines, and the {board} board has {} ranks (one line each, the last rank first)",
            lines.len(),
            board.length
        )));
    }
    let mut squares = BTreeSet::new();
    for (i, line) in lines.iter().enumerate() {
        let rank = board.length - 1 - i;
        let cells: Vec<char> = line.trim().chars().filter(|c| !c.is_whitespace()).collect();
        if cells.len() != board.width {
            return Err(Error::InvalidRequest(format!(
                "{source} line {}: {} squares, and the {board} board has {} files",
                i + 1,
                cells.len(),
                board.width
            )));
        }
        for (file, c) in cells.into_iter().enumerate() {
            match c {
                'x' | 'X' | '#' => {
                    squares.insert((rank, file));
                }
                '.' | 'o' | 'O' | '-' => {}
                other => {
                    return Err(Error::InvalidRequest(format!(
                        "{source} line {}: {other:?} is neither x (removed) nor . (kept)",
                        i + 1
                    )))
                }
            }
        }
    }
    finish(squares, board)
}

fn finish(squares: BTreeSet<(usize, usize)>, board: BoardSize) -> Result<Vec<String>> {
    if squares.len() == board.width * board.length {
        return Err(Error::InvalidRequest(format!("--remove: every square of the {board} board is removed")));
    }
    Ok(squares.into_iter().map(|(rank, file)| square_name(file, rank)).collect())
}

/// A board without some squares, as a graph: the squares left, in the geometry's row-major
/// order, by name; their neighbours among them; and how many of them are of each colour.
pub struct HoledBoard {
    pub names: Vec<String>,
    pub adjacency: Vec<Vec<usize>>,
    /// Squares of each colour left (a1's colour and the other), the smaller first.
    pub colours: (usize, usize),
}

/// The board of `geometry` without the squares `removed` (names on the board as the user
/// wrote it, `transposed` when the geometry's rows are its files).
pub fn holed_graph(geometry: &Geometry, transposed: bool, removed: &[String]) -> HoledBoard {
    // Cell (col, row) of the geometry is the user's (file, rank) = (col, row), or (row, col)
    // transposed; either way its colour is the parity of col + row.
    let name = |cell: usize| {
        let (col, row) = (cell % geometry.width, cell / geometry.width);
        if transposed {
            square_name(row, col)
        } else {
            square_name(col, row)
        }
    };
    let names_of_all: Vec<String> = (0..geometry.cells()).map(name).collect();
    let kept: Vec<usize> = (0..geometry.cells()).filter(|&c| !removed.contains(&names_of_all[c])).collect();
    let mut index = vec![usize::MAX; geometry.cells()];
    for (i, &c) in kept.iter().enumerate() {
        index[c] = i;
    }
    let adjacency =
        kept.iter().map(|&c| geometry.neighbours(c).map(|v| index[v]).filter(|&v| v != usize::MAX).collect()).collect();
    let dark = kept.iter().filter(|&&c| (c % geometry.width + c / geometry.width).is_multiple_of(2)).count();
    let light = kept.len() - dark;
    HoledBoard {
        names: kept.iter().map(|&c| names_of_all[c].clone()).collect(),
        adjacency,
        colours: (dark.min(light), dark.max(light)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hamiltonian::board::MoveSet;

    #[test]
    fn squares_are_named_as_chess_names_them() {
        assert_eq!(square_name(0, 0), "a1");
        assert_eq!(square_name(7, 7), "h8");
        assert_eq!(square_name(25, 0), "z1");
        assert_eq!(square_name(26, 1), "aa2");
        let board = BoardSize::new(30, 4).unwrap();
        assert_eq!(parse_square("AB3", board).unwrap(), (27, 2));
        assert_eq!(squares(&["h8,a1".into(), "b1".into()], BoardSize::new(8, 8).unwrap()).unwrap(), ["a1", "b1", "h8"]);
        let error = squares(&["i1".into()], BoardSize::new(8, 8).unwrap()).unwrap_err().to_string();
        assert_eq!(error, "--remove: square \"i1\": not on the 8x8 board (files a-h, ranks 1-8)");
        let error = squares(&["1a".into()], BoardSize::new(8, 8).unwrap()).unwrap_err().to_string();
        assert!(error.contains("expected a file letter and a rank number"), "{error}");
    }

    #[test]
    fn squares_are_named_once_and_never_empty() {
        let board = BoardSize::new(8, 8).unwrap();
        let error = |names: &[&str]| {
            squares(&names.iter().map(|n| n.to_string()).collect::<Vec<_>>(), board).unwrap_err().to_string()
        };
        assert_eq!(error(&["a1,a1"]), "--remove: square a1 is named twice; give each square once");
        assert_eq!(error(&["h8", "A1,H8"]), "--remove: square h8 is named twice; give each square once");
        let empty = "--remove \"\": an empty square name; give the squares by name, each once, as in a1,h8";
        assert_eq!(error(&[""]), empty);
        assert_eq!(error(&["a1", " "]), empty.replace("\"\"", "\" \""));
        assert!(error(&["a1,,b2"]).starts_with("--remove \"a1,,b2\": an empty square name"));
        assert!(error(&["a1,"]).starts_with("--remove \"a1,\": an empty square name"));
        // A long name is quoted by its first 80 characters.
        let long = format!("a{}", "1".repeat(100_000));
        assert!(error(&[&long]).len() < 200, "{}", error(&[&long]));
    }

    #[test]
    fn a_mask_file_is_read_within_its_board_s_bound() {
        let board = BoardSize::new(6, 6).unwrap();
        assert_eq!(mask_bytes(board), 4432);
        let error = read_mask("/dev/zero", board).unwrap_err().to_string();
        assert_eq!(
            error,
            "/dev/zero: the mask file of the 6x6 board is larger than 4432 bytes, more than such a file holds: is it \
             the right file?"
        );
    }

    #[test]
    fn a_mask_draws_the_board_last_rank_first() {
        let board = BoardSize::new(4, 3).unwrap();
        assert_eq!(mask("...x\n....\nx...\n", "m", board).unwrap(), ["a1", "d3"]);
        assert!(mask("...\n....\nx...\n", "m", board).unwrap_err().to_string().contains("m line 1: 3 squares"));
        assert!(mask("....\nx...\n", "m", board).unwrap_err().to_string().contains("the mask has 2 lines"));
        assert!(mask("xxxx\nxxxx\nxxxx\n", "m", board).unwrap_err().to_string().contains("every square"));
    }

    #[test]
    fn the_holed_graph_keeps_the_other_squares_and_their_moves() {
        let geometry = Geometry::new(8, 8, MoveSet::knight());
        let board = holed_graph(&geometry, false, &["a1".into(), "h8".into()]);
        assert_eq!(board.names.len(), 62);
        assert_eq!(board.adjacency.iter().map(Vec::len).sum::<usize>(), 2 * (168 - 4));
        assert_eq!(board.colours, (30, 32));
        // Transposed: the geometry's row 0 is file a.
        let geometry = Geometry::new(3, 4, MoveSet::knight());
        let names = holed_graph(&geometry, true, &["b1".into()]).names;
        assert_eq!(&names[..3], ["a1", "a2", "a3"]);
        assert!(!names.contains(&"b1".to_string()) && names.len() == 11);
    }
}
