//! The symmetries of the board, as Phadke tabulates them.
//!
//! With rows `i` numbered from the top and columns `j` from the left, both from 1, on an `n x n`
//! board (`n = 8` in his table, where `n + 1 = 9`):
//!
//! ```text
//! image in vertical mirror         I = i          J = n+1 - j
//! image in horizontal mirror       I = n+1 - i    J = j
//! image in TL-BR diagonal mirror   I = j          J = i
//! image in TR-BL diagonal mirror   I = n+1 - j    J = n+1 - i
//! clockwise rotation through 90    I = j          J = n+1 - i
//! anticlockwise rotation           I = n+1 - j    J = i
//! rotation through 180             I = n+1 - i    J = n+1 - j
//! ```
//!
//! With the identity these are the eight symmetries of the square. A board of `rows x cols` with
//! `rows != cols` keeps only the four that do not swap rows and columns (the identity, both
//! mirrors and the half turn), with `rows + 1` for `i` and `cols + 1` for `j`.

use super::board::{Square, TourBoard};

/// One of Phadke's transformations (and the identity).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    Identity,
    VerticalMirror,
    HorizontalMirror,
    DiagonalTlBr,
    DiagonalTrBl,
    Clockwise,
    Anticlockwise,
    HalfTurn,
}

impl Symmetry {
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::VerticalMirror,
        Symmetry::HorizontalMirror,
        Symmetry::DiagonalTlBr,
        Symmetry::DiagonalTrBl,
        Symmetry::Clockwise,
        Symmetry::Anticlockwise,
        Symmetry::HalfTurn,
    ];

    /// Whether it swaps rows and columns (only a square board has these).
    pub fn transposes(self) -> bool {
        matches!(self, Symmetry::DiagonalTlBr | Symmetry::DiagonalTrBl | Symmetry::Clockwise | Symmetry::Anticlockwise)
    }

    /// Phadke's relationship: the new (row, column) of the square at (`i`, `j`), all from 1, on
    /// a board of `rows x cols`.
    pub fn apply(self, rows: usize, cols: usize, (i, j): (usize, usize)) -> (usize, usize) {
        // On a square board rows + 1 = cols + 1 = Phadke's 9.
        let (flip_i, flip_j) = (rows + 1 - i, cols + 1 - j);
        match self {
            Symmetry::Identity => (i, j),
            Symmetry::VerticalMirror => (i, flip_j),
            Symmetry::HorizontalMirror => (flip_i, j),
            Symmetry::DiagonalTlBr => (j, i),
            Symmetry::DiagonalTrBl => (cols + 1 - j, rows + 1 - i),
            Symmetry::Clockwise => (j, rows + 1 - i),
            Symmetry::Anticlockwise => (cols + 1 - j, i),
            Symmetry::HalfTurn => (flip_i, flip_j),
        }
    }

    /// The board's own name for it, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Symmetry::Identity => "identity",
            Symmetry::VerticalMirror => "vertical mirror",
            Symmetry::HorizontalMirror => "horizontal mirror",
            Symmetry::DiagonalTlBr => "TL-BR diagonal mirror",
            Symmetry::DiagonalTrBl => "TR-BL diagonal mirror",
            Symmetry::Clockwise => "clockwise rotation through 90 degrees",
            Symmetry::Anticlockwise => "anticlockwise rotation through 90 degrees",
            Symmetry::HalfTurn => "rotation through 180 degrees",
        }
    }
}

/// The symmetries of `board`: eight for a square board, four for other rectangles.
pub fn symmetries(board: &TourBoard) -> Vec<Symmetry> {
    Symmetry::ALL.into_iter().filter(|s| board.is_square() || !s.transposes()).collect()
}

/// Where `symmetry` sends every square of `board`: `map[square]` is its image.
pub fn square_map(board: &TourBoard, symmetry: Symmetry) -> Vec<Square> {
    (0..board.squares() as Square)
        .map(|square| {
            let (row, col) = board.coordinates(square);
            let (i, j) = symmetry.apply(board.rows, board.cols, (row + 1, col + 1));
            board.at(i - 1, j - 1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(size: &str) -> TourBoard {
        TourBoard::new(size.parse().unwrap()).unwrap()
    }

    #[test]
    fn the_eight_transformations_form_the_group_of_the_square() {
        let board = board("8x8");
        let maps: Vec<Vec<Square>> = Symmetry::ALL.iter().map(|&s| square_map(&board, s)).collect();
        // Each is a permutation of the squares that keeps knight's moves knight's moves.
        for (map, symmetry) in maps.iter().zip(Symmetry::ALL) {
            let mut sorted = map.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..64).collect::<Vec<Square>>(), "{}", symmetry.name());
            for a in 0..64 {
                for &b in board.neighbours(a) {
                    assert!(board.is_knight_move(map[a as usize], map[b as usize]), "{}", symmetry.name());
                }
            }
        }
        // Eight different maps, closed under composition, the identity among them: a group of 8.
        for (x, a) in maps.iter().enumerate() {
            for b in &maps[x + 1..] {
                assert_ne!(a, b);
            }
            for b in &maps {
                let composed: Vec<Square> = (0..64).map(|s| a[b[s] as usize]).collect();
                assert!(maps.contains(&composed), "closed under composition");
            }
        }
        assert_eq!(maps[0], (0..64).collect::<Vec<Square>>());
        // The corner (1,1): the clockwise turn takes it to the top right, the anticlockwise one
        // to the bottom left, as Phadke's figures show.
        assert_eq!(Symmetry::Clockwise.apply(8, 8, (1, 1)), (1, 8));
        assert_eq!(Symmetry::Anticlockwise.apply(8, 8, (1, 1)), (8, 1));
        assert_eq!(Symmetry::Clockwise.apply(8, 8, (1, 2)), (2, 8));
    }

    #[test]
    fn a_rectangle_keeps_four() {
        let board = board("6x5");
        let kept = symmetries(&board);
        assert_eq!(kept.len(), 4);
        for symmetry in kept {
            let map = square_map(&board, symmetry);
            let mut sorted = map.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..30).collect::<Vec<Square>>());
        }
    }
}
