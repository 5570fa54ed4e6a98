//! What the tours each of the board's symmetries fixes take to count.
//!
//! The symmetries are the board's ([`Symmetry`], in `hamiltonian/symmetry.rs`), acting on the cells in
//! the sweep's frame: `rows` rows of `width` cells, row-major. A rectangle has four, a square
//! eight. For each one [`route`] says how its fixed tours are counted:
//! the sweep itself (the identity), a fold (see [`super::fold`]), the orbit walk (see
//! [`super::walk`]), or nothing at all, with the argument that no tour can be fixed:
//!
//! * A symmetry of a tour is an automorphism of a cycle (a rotation or a reflection of it) or of
//!   a path (the identity or its reversal). A reflection of a cycle fixes at most two vertices
//!   and the reversal of a path at most one, so a symmetry that fixes three cells of the board
//!   fixes no closed tour, and one that fixes two fixes no open tour (the mirror through a
//!   middle row or column, the diagonals).
//! * A path has no automorphism of order 4: the quarter turns fix no open tour.
//! * A symmetry that fixes no cell and never maps a cell to a neighbour cannot reflect a cycle
//!   (that needs two fixed vertices or two flipped edges) nor reverse a path (that flips the
//!   middle edge): on a fixed cycle it is a rotation by a k-th of the cycle (k its order), and it
//!   fixes no open tour. When every move changes the colour of the square (the knight), such a
//!   rotation by `N / k` cells keeps colours when `N / k` is even and swaps them when it is odd;
//!   a symmetry that does the other fixes no closed tour. For the knight on `rows x width` with
//!   both even this rules out both mirrors (they swap colours, yet `N / 2` is even); a mirror
//!   survives only where its side is `2 mod 4` and the other side odd (4 of the 8 closed tours of
//!   5x6), and the quarter turn only on `n x n` boards with `n = 2 mod 4` (10 of 6x6's 9862).

use crate::hamiltonian::board::Geometry;
use crate::hamiltonian::symmetry::Symmetry;

/// How the tours one symmetry fixes are counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// Every tour: the sweep's own count.
    Sweep,
    /// A sweep of the folded board (`super::fold`).
    Fold,
    /// A walk over the orbits of cells (`super::walk`): the quarter turns, and the mirrors of
    /// boards with a side of one or two cells.
    Walk,
    /// None: the argument why.
    None(&'static str),
}

/// How the tours of `geometry` (closed, or `open`) that `symmetry` fixes are counted.
pub fn route(geometry: &Geometry, symmetry: Symmetry, open: bool) -> Route {
    let (width, rows) = (geometry.width, geometry.rows);
    let cells = geometry.cells();
    let image = |cell| symmetry.apply(width, rows, cell);
    if symmetry == Symmetry::Identity {
        return Route::Sweep;
    }
    let fixed = (0..cells).filter(|&cell| image(cell) == cell).count();
    if fixed >= 3 || (open && fixed >= 2) {
        return Route::None("it fixes more cells than a tour's symmetry can (two on a cycle, one on a path)");
    }
    if open && symmetry.order() == 4 {
        return Route::None("a path has no symmetry of order 4");
    }
    // Only an involution can reflect a cycle or reverse a path, by flipping a move {u, g(u)}.
    let flips_a_move =
        symmetry.order() == 2 && (0..cells).any(|cell| geometry.neighbours(cell).any(|v| v == image(cell)));
    if fixed == 0 && !flips_a_move {
        if open {
            return Route::None("reversing a fixed path would map its middle move to itself, and no move is");
        }
        if changes_colour(geometry) && cells.is_multiple_of(symmetry.order()) {
            let swaps = (0..cells).any(|cell| colour(width, cell) != colour(width, image(cell)));
            let shift_odd = (cells / symmetry.order()) % 2 == 1;
            if swaps != shift_odd {
                return Route::None(
                    "on a fixed cycle it would be a rotation, which keeps or swaps colours the other way",
                );
            }
        }
    }
    match symmetry {
        Symmetry::HalfTurn => Route::Fold,
        Symmetry::RowMirror if rows % 2 == 0 => Route::Fold,
        Symmetry::ColumnMirror if width % 2 == 0 => Route::Fold,
        Symmetry::QuarterTurn | Symmetry::ThreeQuarterTurn if fixed == 0 => Route::Walk,
        Symmetry::QuarterTurn | Symmetry::ThreeQuarterTurn => {
            Route::None("on a fixed cycle a turn of order 4 is a rotation, which fixes no cell; it fixes the centre")
        }
        // A mirror through a line of one or two cells: boards a side of which is that short.
        _ => Route::Walk,
    }
}

/// The colour of a cell, as on a chessboard.
fn colour(width: usize, cell: usize) -> usize {
    (cell / width + cell % width) % 2
}

/// Whether every move changes the colour of the square (each leap `(a, b)` has `a + b` odd).
fn changes_colour(geometry: &Geometry) -> bool {
    geometry.moves.vectors().iter().all(|&(dx, dy)| (dx + dy).rem_euclid(2) == 1)
}
