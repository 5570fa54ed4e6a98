//! The board of a tour file: its squares, their names and the knight's moves between them.
//!
//! Squares are numbered row by row from the top left, as Phadke numbers his coordinates: row 1
//! is the top row, column 1 the left column, so the square in row `i`, column `j` (both from 1)
//! is number `(i - 1) * cols + (j - 1)`. Algebraic names count files `a, b, ...` from the left and
//! ranks `1, 2, ...` from the bottom, so on 8x8 the square `(1, 1)` is `a8` and `(8, 8)` is `h1`.

use crate::error::Result;
use crate::problems::tours::board::{invalid_board, BoardSize};

/// One square, numbered as above.
pub type Square = u16;

/// The largest side a tour file may have: algebraic names run out of letters beyond 26 files,
/// and every square number must fit a [`Square`].
pub const MAX_FILE_SIDE: usize = 26;

/// The eight knight's moves, as (row, column) steps.
pub const KNIGHT_STEPS: [(i32, i32); 8] = [(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)];

/// A board of `rows x cols` squares with the knight's moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TourBoard {
    pub rows: usize,
    pub cols: usize,
    /// The squares a knight reaches from each square, in the order of [`KNIGHT_STEPS`].
    neighbours: Vec<Vec<Square>>,
}

impl TourBoard {
    /// The board `size`: `8x6` is 8 files wide and 6 ranks long, as for every leaper command.
    pub fn new(size: BoardSize) -> Result<TourBoard> {
        let (cols, rows) = (size.width, size.length);
        if cols > MAX_FILE_SIDE || rows > MAX_FILE_SIDE {
            return Err(invalid_board(
                &size.to_string(),
                &format!("tour files are limited to sides of {MAX_FILE_SIDE} (files a to z)"),
            ));
        }
        let mut neighbours = vec![Vec::new(); rows * cols];
        for (square, list) in neighbours.iter_mut().enumerate() {
            let (row, col) = ((square / cols) as i32, (square % cols) as i32);
            for (dr, dc) in KNIGHT_STEPS {
                let (r, c) = (row + dr, col + dc);
                if r >= 0 && c >= 0 && (r as usize) < rows && (c as usize) < cols {
                    list.push((r as usize * cols + c as usize) as Square);
                }
            }
        }
        Ok(TourBoard { rows, cols, neighbours })
    }

    /// `WxL`, as the user writes it.
    pub fn size(&self) -> BoardSize {
        BoardSize { width: self.cols, length: self.rows }
    }

    pub fn squares(&self) -> usize {
        self.rows * self.cols
    }

    pub fn is_square(&self) -> bool {
        self.rows == self.cols
    }

    /// The square in row `row`, column `col`, both counted from 0.
    pub fn at(&self, row: usize, col: usize) -> Square {
        (row * self.cols + col) as Square
    }

    /// The (row, column) of a square, both counted from 0.
    pub fn coordinates(&self, square: Square) -> (usize, usize) {
        (square as usize / self.cols, square as usize % self.cols)
    }

    pub fn neighbours(&self, square: Square) -> &[Square] {
        &self.neighbours[square as usize]
    }

    pub fn is_knight_move(&self, from: Square, to: Square) -> bool {
        self.neighbours[from as usize].contains(&to)
    }

    /// The algebraic name of a square: file letter, then rank from the bottom (`a1`, `h8`).
    pub fn name(&self, square: Square) -> String {
        let (row, col) = self.coordinates(square);
        format!("{}{}", (b'a' + col as u8) as char, self.rows - row)
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
        if col >= self.cols || rank == 0 || rank > self.rows || chars.as_str().starts_with('+') {
            return None;
        }
        Some(self.at(self.rows - rank, col))
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
        assert!(TourBoard::new("27x3".parse().unwrap()).is_err());
    }
}
