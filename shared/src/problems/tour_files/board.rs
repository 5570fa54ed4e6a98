//! The board of a tour file: its squares, their names and the knight's moves between them (or
//! another leaper's: `tours enumerate --moves 1,3` lists the camel's tours).
//!
//! Squares are numbered row by row from the top left, as Phadke numbers his coordinates: row 1
//! is the top row, column 1 the left column, so the square in row `i`, column `j` (both from 1)
//! is number `(i - 1) * cols + (j - 1)`. Algebraic names count files `a, b, ...` from the left and
//! ranks `1, 2, ...` from the bottom, so on 8x8 the square `(1, 1)` is `a8` and `(8, 8)` is `h1`.
//!
//! The board is the tours' [`Geometry`] of the knight, `cols` cells wide: its row-major cells
//! are these squares, and its symmetries ([`crate::hamiltonian::symmetry`]) act on them.
//! Every tool that reads tour files reads knight's tours; the enumeration takes any move set.

use crate::error::Result;
use crate::hamiltonian::board::{invalid_board, BoardSize, Geometry, MoveSet};

/// One square, numbered as above.
pub type Square = u16;

/// The largest side a tour file may have: algebraic names run out of letters beyond 26 files,
/// and every square number must fit a [`Square`].
pub const MAX_FILE_SIDE: usize = 26;

/// A board of `rows x cols` squares with the knight's moves (or another move set's), each
/// square's listed once.
#[derive(Clone, Debug)]
pub struct TourBoard {
    geometry: Geometry,
    /// The squares the piece reaches from each square, in increasing order: from `c6` on 8x8
    /// (row 2, column 2) the squares 1, 3, 8, 12, 24, 28, 33, 35. The order is part of the
    /// output: Warnsdorff's rule tries equal neighbours in it, the enumeration lists tours in it,
    /// and it numbers the moves of canonical forms. (It is the order of the moves by row step,
    /// then column step, in which earlier releases listed them: two moves from one square that
    /// differ in rows differ by at least a row's width in square number, more than any
    /// difference of their columns.)
    neighbours: Vec<Vec<Square>>,
}

impl TourBoard {
    /// The board `size` with the knight's moves: `8x6` is 8 files wide and 6 ranks long, as for
    /// every leaper command.
    pub fn new(size: BoardSize) -> Result<TourBoard> {
        TourBoard::with_moves(size, MoveSet::knight())
    }

    /// The board `size` with the moves of `moves` (`1,3`: the camel's).
    pub fn with_moves(size: BoardSize, moves: MoveSet) -> Result<TourBoard> {
        if size.width > MAX_FILE_SIDE || size.length > MAX_FILE_SIDE {
            return Err(invalid_board(
                &size.to_string(),
                &format!("tour files are limited to sides of {MAX_FILE_SIDE} (files a to z)"),
            ));
        }
        let geometry = Geometry::new(size.width, size.length, moves);
        let neighbours = (0..geometry.cells())
            .map(|square| {
                let mut list: Vec<Square> = geometry.neighbours(square).map(|n| n as Square).collect();
                list.sort_unstable();
                list
            })
            .collect();
        Ok(TourBoard { geometry, neighbours })
    }

    /// Ranks: rows, row 0 the top one.
    pub fn rows(&self) -> usize {
        self.geometry.rows
    }

    /// Files: columns, column 0 the `a` file.
    pub fn cols(&self) -> usize {
        self.geometry.width
    }

    /// `WxL`, as the user writes it.
    pub fn size(&self) -> BoardSize {
        BoardSize { width: self.cols(), length: self.rows() }
    }

    pub fn squares(&self) -> usize {
        self.geometry.cells()
    }

    /// The square in row `row`, column `col`, both counted from 0.
    pub fn at(&self, row: usize, col: usize) -> Square {
        (row * self.cols() + col) as Square
    }

    /// The (row, column) of a square, both counted from 0.
    pub fn coordinates(&self, square: Square) -> (usize, usize) {
        (square as usize / self.cols(), square as usize % self.cols())
    }

    pub fn neighbours(&self, square: Square) -> &[Square] {
        &self.neighbours[square as usize]
    }

    /// Whether `from` to `to` is one of the board's moves (a knight's, unless made otherwise).
    pub fn is_move(&self, from: Square, to: Square) -> bool {
        self.neighbours[from as usize].contains(&to)
    }

    /// The algebraic name of a square: file letter, then rank from the bottom (`a1`, `h8`).
    pub fn name(&self, square: Square) -> String {
        let (row, col) = self.coordinates(square);
        format!("{}{}", (b'a' + col as u8) as char, self.rows() - row)
    }

    /// The square an algebraic name denotes, if it is on this board.
    pub fn parse_name(&self, name: &str) -> Option<Square> {
        let mut chars = name.chars();
        let file = chars.next()?.to_ascii_lowercase();
        if !file.is_ascii_lowercase() {
            return None;
        }
        let col = (file as u8 - b'a') as usize;
        let rank: usize = chars.as_str().parse().ok()?;
        if col >= self.cols() || rank == 0 || rank > self.rows() || chars.as_str().starts_with('+') {
            return None;
        }
        Some(self.at(self.rows() - rank, col))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_chess_notation() {
        let board = TourBoard::new("8x8".parse().unwrap()).unwrap();
        assert_eq!(board.name(0), "a8");
        assert_eq!(board.name(63), "h1");
        assert_eq!(board.parse_name("a8"), Some(0));
        assert_eq!(board.parse_name("H1"), Some(63));
        for bad in ["i1", "a9", "a0", "a", "", "1a", "a+1", "a-1"] {
            assert_eq!(board.parse_name(bad), None, "{bad:?}");
        }
        let total: usize = (0..64).map(|s| board.neighbours(s).len()).sum();
        assert_eq!(total, 2 * 168, "168 knight edges on 8x8");
        assert_eq!(board.neighbours(board.parse_name("c6").unwrap()), [1, 3, 8, 12, 24, 28, 33, 35]);
        // The order earlier releases listed: by row step, then column step, also on narrow boards.
        for size in ["8x8", "3x7", "4x5", "1x9", "26x2"] {
            let board = TourBoard::new(size.parse().unwrap()).unwrap();
            for square in 0..board.squares() as Square {
                let (row, col) = board.coordinates(square);
                let mut steps: Vec<(i64, i64)> = board
                    .neighbours(square)
                    .iter()
                    .map(|&n| board.coordinates(n))
                    .map(|(r, c)| (r as i64 - row as i64, c as i64 - col as i64))
                    .collect();
                let listed = steps.clone();
                steps.sort_unstable();
                assert_eq!(listed, steps, "{size}, square {square}");
            }
        }
        assert!(TourBoard::new("27x3".parse().unwrap()).is_err());
    }
}
