//! Boards and move sets.
//!
//! A *leaper* is a piece that jumps by a fixed vector `(a, b)` in any of its eight orientations:
//! the knight is the (1,2) leaper, the camel (1,3), the zebra (2,3). A [`MoveSet`] is a union of
//! leapers (the king is (1,0) + (1,1)), so a move set is data and the engine never needs to know
//! which piece it is counting.
//!
//! A [`Geometry`] fixes the board the transfer matrix walks: `width` cells per row (the narrow
//! side, which sets the frontier size) and `rows` rows (the sweep direction). Cells are numbered
//! row-major, `cell = row * width + col`.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// The board `text` refused, for `reason`: `invalid board "8x": ...`.
pub fn invalid_board(text: &str, reason: &str) -> Error {
    Error::InvalidInput { input: format!("board {text:?}"), reason: reason.to_string() }
}

/// The move set `text` refused, for `reason`: `invalid move set "1,": ...`.
pub fn invalid_moves(text: &str, reason: &str) -> Error {
    Error::InvalidInput { input: format!("move set {text:?}"), reason: reason.to_string() }
}

/// The sides of a board as the user wrote them: `8x6` is 8 wide and 6 long.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardSize {
    pub width: usize,
    pub length: usize,
}

/// Largest side accepted on input; far beyond anything the engine could finish, it only keeps
/// arithmetic on cell indices safely inside `usize`.
pub const MAX_SIDE: usize = 1 << 16;

impl BoardSize {
    pub fn new(width: usize, length: usize) -> Result<Self> {
        let size = BoardSize { width, length };
        if width == 0 || length == 0 {
            return Err(invalid_board(&size.to_string(), "both sides must be at least 1"));
        }
        if width > MAX_SIDE || length > MAX_SIDE {
            return Err(invalid_board(&size.to_string(), &format!("sides are limited to {MAX_SIDE}")));
        }
        Ok(size)
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.length)
    }
}

impl FromStr for BoardSize {
    type Err = Error;

    /// Parses `WxL` (also `W*L` or `W,L`), for example `8x6`.
    fn from_str(text: &str) -> Result<Self> {
        let invalid = |reason: &str| invalid_board(text, reason);
        let lower = text.trim().to_ascii_lowercase();
        let (w, l) =
            lower.split_once(['x', '*', ',']).ok_or_else(|| invalid("expected WIDTHxLENGTH, for example 8x6"))?;
        let side = |s: &str| -> Result<usize> {
            let s = s.trim();
            if s.starts_with('-') {
                return Err(invalid("sides must be positive"));
            }
            s.parse::<usize>().map_err(|_| invalid("sides must be whole numbers, for example 8x6"))
        };
        let (width, length) = (side(w)?, side(l)?);
        BoardSize::new(width, length).map_err(|_| invalid("both sides must be between 1 and 65536"))
    }
}

/// One move vector `(dx, dy)`: `dx` along a row, `dy` down the rows.
pub type Move = (i32, i32);

/// A union of leapers, closed under the eight symmetries of the square.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveSet {
    leapers: Vec<(u32, u32)>,
    vectors: Vec<Move>,
}

impl MoveSet {
    /// The union of the given leapers; `(a, b)` and `(b, a)` are the same leaper.
    pub fn leapers(pairs: &[(u32, u32)]) -> Result<Self> {
        if pairs.is_empty() {
            return Err(invalid_moves("", "no leaper given"));
        }
        let mut leapers: Vec<(u32, u32)> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
        leapers.sort_unstable();
        leapers.dedup();
        let mut vectors = Vec::new();
        for &(a, b) in &leapers {
            if b == 0 {
                return Err(invalid_moves(&format!("{a},{b}"), "a leaper must move: (0,0) is not a move"));
            }
            if b > 64 {
                return Err(invalid_moves(&format!("{a},{b}"), "leaps are limited to 64"));
            }
            let (a, b) = (a as i32, b as i32);
            for (x, y) in [(a, b), (b, a)] {
                for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                    vectors.push((sx * x, sy * y));
                }
            }
        }
        vectors.sort_unstable();
        vectors.dedup();
        Ok(MoveSet { leapers, vectors })
    }

    pub fn leaper(a: u32, b: u32) -> Result<Self> {
        Self::leapers(&[(a, b)])
    }

    pub fn knight() -> Self {
        Self::leaper(1, 2).expect("the knight is a valid leaper")
    }

    /// All move vectors, both directions.
    pub fn vectors(&self) -> &[Move] {
        &self.vectors
    }

    /// Vectors that go forward in row-major order: down a row, or right within the row.
    pub fn forward_vectors(&self) -> impl Iterator<Item = Move> + '_ {
        self.vectors.iter().copied().filter(|&(dx, dy)| dy > 0 || (dy == 0 && dx > 0))
    }
}

impl fmt::Display for MoveSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.leapers.iter().map(|(a, b)| format!("{a},{b}")).collect();
        write!(f, "{}", parts.join("+"))
    }
}

impl FromStr for MoveSet {
    type Err = Error;

    /// Parses `A,B` or a union `A,B+C,D`, for example `1,2` (knight) or `1,0+1,1` (king).
    fn from_str(text: &str) -> Result<Self> {
        let invalid = |reason: &str| invalid_moves(text, reason);
        let mut pairs = Vec::new();
        for part in text.split('+') {
            let part = part.trim();
            let numbers: Vec<&str> = part.split(',').map(str::trim).collect();
            let [a, b] = numbers[..] else {
                let why = match numbers.len() {
                    1 if part.is_empty() => "an empty leap: expected A,B or A,B+C,D".to_string(),
                    1 => format!("the leap {part:?} has one number where two are needed (A,B)"),
                    n => format!("the leap {part:?} has {n} numbers where two are needed (A,B)"),
                };
                return Err(invalid(&why));
            };
            let num = |s: &str| {
                s.parse::<u32>()
                    .map_err(|_| invalid(&format!("{s:?} in the leap {part:?} is not a non-negative whole number")))
            };
            pairs.push((num(a)?, num(b)?));
        }
        MoveSet::leapers(&pairs).map_err(|e| match e {
            Error::InvalidInput { reason, .. } => invalid(&reason),
            other => other,
        })
    }
}

/// A board of `width x rows` cells together with a move set: the graph whose Hamiltonian cycles
/// are counted.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub width: usize,
    pub rows: usize,
    pub moves: MoveSet,
}

impl Geometry {
    pub fn new(width: usize, rows: usize, moves: MoveSet) -> Self {
        Geometry { width, rows, moves }
    }

    pub fn cells(&self) -> usize {
        self.width * self.rows
    }

    /// The cell reached from `cell` by `(dx, dy)`, if it is on the board.
    pub fn step(&self, cell: usize, (dx, dy): Move) -> Option<usize> {
        let (col, row) = ((cell % self.width) as i64, (cell / self.width) as i64);
        let (c, r) = (col + dx as i64, row + dy as i64);
        (c >= 0 && r >= 0 && (c as usize) < self.width && (r as usize) < self.rows)
            .then(|| r as usize * self.width + c as usize)
    }

    /// All neighbours of `cell`, in no particular order.
    pub fn neighbours(&self, cell: usize) -> impl Iterator<Item = usize> + '_ {
        self.moves.vectors().iter().filter_map(move |&m| self.step(cell, m))
    }

    pub fn degree(&self, cell: usize) -> usize {
        self.neighbours(cell).count()
    }

    /// The largest row-major distance of a forward move: the frontier must hold this many cells.
    pub fn reach(&self) -> usize {
        self.moves
            .forward_vectors()
            .map(|(dx, dy)| (dy as i64 * self.width as i64 + dx as i64).max(0) as usize)
            .max()
            .unwrap_or(1)
            .max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_boards() {
        assert_eq!("8x6".parse::<BoardSize>().unwrap(), BoardSize { width: 8, length: 6 });
        assert_eq!(" 10X3 ".parse::<BoardSize>().unwrap(), BoardSize { width: 10, length: 3 });
        for bad in ["", "8", "8x", "x6", "0x5", "5x0", "-3x4", "ax4", "8x6x2", "99999999x2"] {
            assert!(bad.parse::<BoardSize>().is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn malformed_move_sets_are_named_exactly() {
        let reason = |text: &str| match text.parse::<MoveSet>() {
            Err(Error::InvalidInput { reason, .. }) => reason,
            other => panic!("{text:?} gave {other:?}"),
        };
        assert_eq!(reason("1,0+1,1,2"), "the leap \"1,1,2\" has 3 numbers where two are needed (A,B)");
        assert_eq!(reason("1"), "the leap \"1\" has one number where two are needed (A,B)");
        assert_eq!(reason("1,2+"), "an empty leap: expected A,B or A,B+C,D");
        assert_eq!(reason("1,0+-1,1"), "\"-1\" in the leap \"-1,1\" is not a non-negative whole number");
        assert_eq!(reason("1,x"), "\"x\" in the leap \"1,x\" is not a non-negative whole number");
        assert_eq!(" 1 , 2 + 0,1 ".parse::<MoveSet>().unwrap().to_string(), "0,1+1,2", "spaces are allowed");
    }

    #[test]
    fn knight_has_eight_vectors_four_forward() {
        let k = MoveSet::knight();
        assert_eq!(k.vectors().len(), 8);
        assert_eq!(k.forward_vectors().count(), 4);
        let king: MoveSet = "1,0+1,1".parse().unwrap();
        assert_eq!(king.vectors().len(), 8);
        assert_eq!(king.forward_vectors().count(), 4);
        assert!("0,0".parse::<MoveSet>().is_err());
        assert!("1".parse::<MoveSet>().is_err());
    }

    #[test]
    fn knight_degrees_on_8x8() {
        let g = Geometry::new(8, 8, MoveSet::knight());
        let total: usize = (0..64).map(|c| g.degree(c)).sum();
        assert_eq!(total, 2 * 168, "an 8x8 board has 168 knight edges");
        assert_eq!(g.reach(), 17);
    }
}
