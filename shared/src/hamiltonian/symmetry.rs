//! The symmetries of a board: the four of a rectangle (the identity, the half turn and the two
//! mirrors), and on a square board also the quarter turns and the two diagonal mirrors, acting
//! on cells numbered row-major as a [`Geometry`](super::board::Geometry) numbers them. The counts
//! up to symmetry (`distinct/`) apply them in the sweep's frame; the tour files
//! (`tour_files/canonical.rs`) in the file's, row 0 the top row.
//!
//! Worked example, 8x8: the quarter turn takes (r, c) to (c, 7 - r), so the top left corner
//! (cell 0) goes to the top right (cell 7) and cell 1, (0, 1), to (1, 7), cell 15.

/// A symmetry of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Symmetry {
    Identity,
    HalfTurn,
    /// Reverses the rows: (r, c) to (rows - 1 - r, c).
    RowMirror,
    /// Reverses the columns: (r, c) to (r, width - 1 - c).
    ColumnMirror,
    /// Square boards: (r, c) to (c, n - 1 - r).
    QuarterTurn,
    ThreeQuarterTurn,
    /// Square boards: (r, c) to (c, r).
    Diagonal,
    AntiDiagonal,
}

impl Symmetry {
    /// The symmetries of a board `width` cells wide and `rows` long.
    pub fn group(width: usize, rows: usize) -> Vec<Symmetry> {
        use Symmetry::*;
        let mut group = vec![Identity, HalfTurn, RowMirror, ColumnMirror];
        if width == rows {
            group.extend([QuarterTurn, ThreeQuarterTurn, Diagonal, AntiDiagonal]);
        }
        group
    }

    /// Its name in the output, for a board written `A x B` (the first side is the width as the
    /// user wrote it; `transposed` when the sweep runs along the first side).
    pub fn name(self, transposed: bool) -> &'static str {
        use Symmetry::*;
        let (rows, columns) = if transposed {
            ("mirror left-right", "mirror top-bottom")
        } else {
            ("mirror top-bottom", "mirror left-right")
        };
        match self {
            Identity => "identity",
            HalfTurn => "half turn",
            RowMirror => rows,
            ColumnMirror => columns,
            QuarterTurn => "quarter turn",
            ThreeQuarterTurn => "three-quarter turn",
            Diagonal => "diagonal mirror",
            AntiDiagonal => "antidiagonal mirror",
        }
    }

    /// The image of cell `cell`.
    pub fn apply(self, width: usize, rows: usize, cell: usize) -> usize {
        use Symmetry::*;
        let (r, c) = (cell / width, cell % width);
        let (r2, c2) = match self {
            Identity => (r, c),
            HalfTurn => (rows - 1 - r, width - 1 - c),
            RowMirror => (rows - 1 - r, c),
            ColumnMirror => (r, width - 1 - c),
            QuarterTurn => (c, width - 1 - r),
            ThreeQuarterTurn => (width - 1 - c, r),
            Diagonal => (c, r),
            AntiDiagonal => (width - 1 - c, width - 1 - r),
        };
        r2 * width + c2
    }

    /// Its order: 1, 2 or 4.
    pub fn order(self) -> usize {
        match self {
            Symmetry::Identity => 1,
            Symmetry::QuarterTurn | Symmetry::ThreeQuarterTurn => 4,
            _ => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hamiltonian::board::{Geometry, MoveSet};

    /// Where each symmetry of the group sends every cell.
    fn maps(geometry: &Geometry) -> Vec<Vec<usize>> {
        let (width, rows) = (geometry.width, geometry.rows);
        Symmetry::group(width, rows)
            .into_iter()
            .map(|s| (0..geometry.cells()).map(|cell| s.apply(width, rows, cell)).collect())
            .collect()
    }

    #[test]
    fn the_eight_symmetries_form_the_group_of_the_square() {
        let geometry = Geometry::new(8, 8, MoveSet::knight());
        let maps = maps(&geometry);
        assert_eq!(maps.len(), 8);
        // Each is a permutation of the cells that keeps knight's moves knight's moves.
        for (map, symmetry) in maps.iter().zip(Symmetry::group(8, 8)) {
            let mut sorted = map.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..64).collect::<Vec<usize>>(), "{symmetry:?}");
            for a in 0..64 {
                for b in geometry.neighbours(a) {
                    assert!(geometry.neighbours(map[a]).any(|n| n == map[b]), "{symmetry:?}");
                }
            }
        }
        // Eight different maps, closed under composition, the identity first: a group of 8.
        for (x, a) in maps.iter().enumerate() {
            for b in &maps[x + 1..] {
                assert_ne!(a, b);
            }
            for b in &maps {
                let composed: Vec<usize> = (0..64).map(|s| a[b[s]]).collect();
                assert!(maps.contains(&composed), "closed under composition");
            }
        }
        assert_eq!(maps[0], (0..64).collect::<Vec<usize>>());
        // The worked example above; the three-quarter turn takes the corner to the bottom left.
        assert_eq!(Symmetry::QuarterTurn.apply(8, 8, 0), 7);
        assert_eq!(Symmetry::QuarterTurn.apply(8, 8, 1), 15);
        assert_eq!(Symmetry::ThreeQuarterTurn.apply(8, 8, 0), 56);
    }

    #[test]
    fn a_rectangle_keeps_four() {
        let geometry = Geometry::new(6, 5, MoveSet::knight());
        let maps = maps(&geometry);
        assert_eq!(maps.len(), 4);
        for map in maps {
            let mut sorted = map.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..30).collect::<Vec<usize>>());
        }
    }
}
