//! Moves every closed tour must make, followed until they contradict: a square with only two
//! moves uses both.
//!
//! Worked example: the zebra (2,3) on 5x6. The corner a1 has two moves, to c4 and d3, so every
//! closed tour makes both. A square whose two tour moves are known can make no other, so its
//! other moves are struck from the board; that leaves more squares with only two, whose moves
//! are forced in turn, and so on. On 5x6 this ends with a square left with fewer than two moves
//! it can still make: no closed tour, although the board is connected and its colours are equal.
//!
//! The rules, each sound for a Hamiltonian cycle of a board of `n` squares:
//!
//! 1. A square with fewer than two usable moves: no tour.
//! 2. A square with exactly two usable moves: both are forced.
//! 3. A square with two forced moves: its other moves are struck.
//! 4. A forced move into a square that already has two: no tour.
//! 5. Forced moves form paths; a forced move joining the two ends of one path closes a cycle,
//!    which is no tour unless it holds all `n` squares. So a move joining the two ends of a path
//!    of fewer than `n` squares is struck as soon as the path forms.
//!
//! Each move is forced or struck at most once and each square is looked at again only when
//! something about it changed, so one board costs a few visits per square and move.
//!
//! Open tours: an open tour between squares `s` and `t` is a closed tour of the board plus one
//! virtual square joined to `s` and `t` only (Knuth's device, as in [`super::transfer`]'s
//! `ends.rs`). If the rules contradict for every pair `s, t`, the board has no open tour: the
//! zebra's 5x6 board again, whose 435 pairs of ends all fail. That is a pass per pair, so it is
//! kept to small boards (see [`super::obstruction`]).

use std::ops::ControlFlow::{self, Break, Continue};

use super::board::{Geometry, MoveSet};

/// How following the forced moves ends when it rules out a closed tour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contradiction {
    /// A square is left with fewer than two moves it can make.
    Starved,
    /// Forced moves close a cycle of `squares` squares, short of the board's `of`.
    ShortCycle { squares: usize, of: usize },
    /// A square would have to make three moves.
    Overfull,
}

/// Whether following the forced moves of the `width x rows` board rules out a closed tour.
pub fn forced_contradiction(width: usize, rows: usize, moves: &MoveSet) -> Option<Contradiction> {
    match ForcedMoves::new(&Geometry::new(width, rows, moves.clone()), None).follow() {
        Break(contradiction) => Some(contradiction),
        Continue(()) => None,
    }
}

/// Whether following the forced moves rules out an open tour of the `width x rows` board for
/// every pair of squares its ends could be (a board of one square has its one-square tour).
pub fn every_pair_of_ends_contradicts(width: usize, rows: usize, moves: &MoveSet) -> bool {
    let geometry = Geometry::new(width, rows, moves.clone());
    let squares = geometry.cells();
    squares >= 2
        && (0..squares).all(|s| (s + 1..squares).all(|t| ForcedMoves::new(&geometry, Some((s, t))).follow().is_break()))
}

/// Pairs of squares an open tour of `squares` squares could end on.
pub fn pairs_of_ends(squares: usize) -> usize {
    squares * squares.saturating_sub(1) / 2
}

/// The board's moves still usable, and the forced ones as paths.
struct ForcedMoves {
    squares: usize,
    /// Per square: the squares it can still move to (forced moves included).
    usable: Vec<Vec<usize>>,
    /// Per square: its forced moves.
    forced: Vec<Vec<usize>>,
    /// At an end of a path of forced moves: its other end (a square alone is its own).
    other_end: Vec<usize>,
    /// At an end of a path: the squares on the path.
    path_squares: Vec<usize>,
    /// Squares to look at again.
    pending: Vec<usize>,
}

impl ForcedMoves {
    /// The board's moves; with `ends`, also a virtual square joined to those two squares.
    fn new(geometry: &Geometry, ends: Option<(usize, usize)>) -> Self {
        let mut usable: Vec<Vec<usize>> = (0..geometry.cells()).map(|s| geometry.neighbours(s).collect()).collect();
        if let Some((s, t)) = ends {
            let virtual_square = usable.len();
            usable.push(vec![s, t]);
            usable[s].push(virtual_square);
            usable[t].push(virtual_square);
        }
        let squares = usable.len();
        ForcedMoves {
            squares,
            usable,
            forced: vec![Vec::new(); squares],
            other_end: (0..squares).collect(),
            path_squares: vec![1; squares],
            pending: (0..squares).rev().collect(),
        }
    }

    /// Applies the rules until nothing changes, or a contradiction.
    fn follow(&mut self) -> ControlFlow<Contradiction> {
        while let Some(square) = self.pending.pop() {
            if self.usable[square].len() < 2 {
                return Break(Contradiction::Starved);
            }
            if self.forced[square].len() == 2 {
                let struck: Vec<usize> =
                    self.usable[square].iter().copied().filter(|s| !self.forced[square].contains(s)).collect();
                for other in struck {
                    self.strike(square, other);
                }
            } else if self.usable[square].len() == 2 {
                for other in self.usable[square].clone() {
                    if !self.forced[square].contains(&other) {
                        self.force(square, other)?;
                    }
                }
            }
        }
        Continue(())
    }

    fn force(&mut self, a: usize, b: usize) -> ControlFlow<Contradiction> {
        if self.forced[a].len() == 2 || self.forced[b].len() == 2 {
            return Break(Contradiction::Overfull);
        }
        if self.other_end[a] == b {
            let squares = self.path_squares[a];
            // A cycle of every square is a tour, not a contradiction (the board's only one).
            return if squares == self.squares {
                Continue(())
            } else {
                Break(Contradiction::ShortCycle { squares, of: self.squares })
            };
        }
        self.forced[a].push(b);
        self.forced[b].push(a);
        let (end_a, end_b) = (self.other_end[a], self.other_end[b]);
        let squares = self.path_squares[a] + self.path_squares[b];
        self.other_end[end_a] = end_b;
        self.other_end[end_b] = end_a;
        self.path_squares[end_a] = squares;
        self.path_squares[end_b] = squares;
        self.pending.extend([a, b]);
        // The move joining the new path's ends would close it short of the board (unless the
        // path is that move: two squares).
        if squares < self.squares && squares > 2 && self.usable[end_a].contains(&end_b) {
            self.strike(end_a, end_b);
        }
        Continue(())
    }

    fn strike(&mut self, a: usize, b: usize) {
        self.usable[a].retain(|&s| s != b);
        self.usable[b].retain(|&s| s != a);
        self.pending.extend([a, b]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_moves_rule_out_the_zebra_on_five_wide_boards() {
        let zebra = MoveSet::leaper(2, 3).unwrap();
        for rows in 6..=12 {
            assert!(forced_contradiction(5, rows, &zebra).is_some(), "zebra 5x{rows}");
        }
    }

    #[test]
    fn boards_with_tours_raise_no_contradiction() {
        let knight = MoveSet::knight();
        for (width, rows) in [(5, 6), (6, 6), (3, 10), (3, 12), (8, 8)] {
            assert_eq!(forced_contradiction(width, rows, &knight), None, "knight {width}x{rows}");
        }
        // The 2x2 grid is one forced cycle of all four squares: the tour itself.
        assert_eq!(forced_contradiction(2, 2, &MoveSet::leaper(0, 1).unwrap()), None);
        // The 2x3 grid: its corners force the outer cycle of all six squares.
        assert_eq!(forced_contradiction(2, 3, &MoveSet::leaper(0, 1).unwrap()), None);
    }

    #[test]
    fn open_tours_contradict_for_every_pair_of_ends_only_where_there_is_none() {
        let zebra = MoveSet::leaper(2, 3).unwrap();
        for rows in 5..=8 {
            assert!(every_pair_of_ends_contradicts(5, rows, &zebra), "zebra 5x{rows}");
        }
        let knight = MoveSet::knight();
        // 3x5 and 3x6 have no open knight's tour; 3x4 has 8, 5x5 864.
        assert!(every_pair_of_ends_contradicts(3, 5, &knight));
        assert!(every_pair_of_ends_contradicts(3, 6, &knight));
        assert!(!every_pair_of_ends_contradicts(3, 4, &knight));
        assert!(!every_pair_of_ends_contradicts(5, 5, &knight));
        // One square is its own open tour; two squares a move apart make one.
        assert!(!every_pair_of_ends_contradicts(1, 1, &knight));
        assert!(!every_pair_of_ends_contradicts(1, 2, &MoveSet::leaper(0, 1).unwrap()));
        assert_eq!(pairs_of_ends(30), 435);
    }

    #[test]
    fn each_contradiction_on_a_small_board() {
        let grid = MoveSet::leaper(0, 1).unwrap();
        // 1x3: the middle square's two moves are forced, its ends have one each.
        assert_eq!(forced_contradiction(1, 3, &grid), Some(Contradiction::Starved));
        // The knight on 4x4: each corner's two moves make, with the opposite corner's, a cycle
        // of four squares.
        assert_eq!(
            forced_contradiction(4, 4, &MoveSet::knight()),
            Some(Contradiction::ShortCycle { squares: 4, of: 16 })
        );
        // The camel on 4x5 (whose graph falls apart anyway).
        assert_eq!(forced_contradiction(4, 5, &MoveSet::leaper(1, 3).unwrap()), Some(Contradiction::Overfull));
    }
}
