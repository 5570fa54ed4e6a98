//! An independent check for the smallest boards: every partition of the board into four
//! congruent connected pieces, found by brute force, then sorted into the two classes by their
//! definitions alone (no paths, no folding, no start points).
//!
//! The piece holding the corner cell is any connected set of `n^2` cells that holds it; the
//! other three are images of it (any of the 8 orientations, any position) laid on the first
//! empty cell in turn. A partition is of class (a) if the quarter turn maps its pieces onto its
//! pieces; of class (b) if a centre line cuts no piece and, in each half, the half turn swaps
//! the half's two pieces. Class (a) counts partitions up to the board's 8 symmetries; class (b)
//! counts the cuts of one `2n x n` half up to the half's 4 symmetries (the other half may lie
//! either way round), without the straight cut that makes the four squares (class (a) has it).
//!
//! Cells are bits of a `u64`, row by row, so boards up to 8x8 fit; 6x6 takes a moment.

use std::collections::{BTreeSet, HashSet};

/// `(rotational, halved)` dissections of the `2n x 2n` board, `n <= 3` in reasonable time.
pub fn dissections(n: usize) -> (usize, usize) {
    let side = 2 * n;
    assert!(side * side <= 64, "brute force is for boards up to 8x8");
    let board = Board { side };
    let mut rotational = HashSet::new();
    let mut halves = HashSet::new();
    for piece in connected_sets_with_corner(&board, n * n) {
        let orientations = board.orientations(piece);
        let mut pieces = vec![piece];
        board.tile(piece, &orientations, &mut pieces, &mut |partition| {
            if board.is_rotational(partition) {
                rotational.insert(board.canonical(partition));
            }
            for transposed in [false, true] {
                let partition: Vec<u64> =
                    partition.iter().map(|&p| if transposed { board.transpose(p) } else { p }).collect();
                if let Some(half) = board.halved(&partition) {
                    halves.insert(half);
                }
            }
        });
    }
    let cross = board.half_key(board.left_of_centre());
    (rotational.len(), halves.len() - usize::from(halves.contains(&cross)))
}

struct Board {
    side: usize,
}

/// A symmetry of the board: `(side - 1, x, y)` to the image of cell `(x, y)`.
type Symmetry = fn(usize, usize, usize) -> (usize, usize);

impl Board {
    fn bit(&self, x: usize, y: usize) -> u64 {
        1 << (y * self.side + x)
    }

    fn cells(&self, set: u64) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.side * self.side).filter(move |&c| set >> c & 1 == 1).map(|c| (c % self.side, c / self.side))
    }

    fn map(&self, set: u64, f: impl Fn(usize, usize) -> (usize, usize)) -> u64 {
        self.cells(set).map(|(x, y)| f(x, y)).fold(0, |m, (x, y)| m | self.bit(x, y))
    }

    fn transpose(&self, set: u64) -> u64 {
        self.map(set, |x, y| (y, x))
    }

    /// The 8 symmetries of the square board.
    fn symmetries(&self, set: u64) -> Vec<u64> {
        let s = self.side - 1;
        let maps: [Symmetry; 8] = [
            |_, x, y| (x, y),
            |s, x, y| (s - y, x),
            |s, x, y| (s - x, s - y),
            |s, x, y| (y, s - x),
            |s, x, y| (s - x, y),
            |s, x, y| (x, s - y),
            |_, x, y| (y, x),
            |s, x, y| (s - y, s - x),
        ];
        maps.iter().map(|f| self.map(set, |x, y| f(s, x, y))).collect()
    }

    /// The piece's distinct orientations, each as cell offsets from its first cell (row by row).
    fn orientations(&self, piece: u64) -> Vec<Vec<(isize, isize)>> {
        let mut shapes = BTreeSet::new();
        for image in self.symmetries(piece) {
            let cells: Vec<(isize, isize)> = self.cells(image).map(|(x, y)| (x as isize, y as isize)).collect();
            let (fx, fy) = cells.iter().map(|&(x, y)| (y, x)).min().map(|(y, x)| (x, y)).expect("a piece has cells");
            let mut offsets: Vec<(isize, isize)> = cells.iter().map(|&(x, y)| (x - fx, y - fy)).collect();
            offsets.sort();
            shapes.insert(offsets);
        }
        shapes.into_iter().collect()
    }

    /// Lays images of the piece on the first empty cell until four pieces fill the board.
    fn tile(
        &self,
        used: u64,
        orientations: &[Vec<(isize, isize)>],
        pieces: &mut Vec<u64>,
        found: &mut dyn FnMut(&[u64]),
    ) {
        if pieces.len() == 4 {
            found(pieces);
            return;
        }
        let first = (!used).trailing_zeros() as usize;
        let (fx, fy) = ((first % self.side) as isize, (first / self.side) as isize);
        for shape in orientations {
            let mut placed = 0u64;
            let fits = shape.iter().all(|&(dx, dy)| {
                let (x, y) = (fx + dx, fy + dy);
                let inside = (0..self.side as isize).contains(&x) && (0..self.side as isize).contains(&y);
                if inside {
                    placed |= self.bit(x as usize, y as usize);
                }
                inside && used & self.bit(x as usize, y as usize) == 0
            });
            if fits {
                pieces.push(placed);
                self.tile(used | placed, orientations, pieces, found);
                pieces.pop();
            }
        }
    }

    fn sorted(mut pieces: Vec<u64>) -> Vec<u64> {
        pieces.sort();
        pieces
    }

    fn is_rotational(&self, partition: &[u64]) -> bool {
        let turned = partition.iter().map(|&p| self.symmetries(p)[1]).collect();
        Board::sorted(turned) == Board::sorted(partition.to_vec())
    }

    /// The least of the partition's 8 images, as sorted pieces.
    fn canonical(&self, partition: &[u64]) -> Vec<u64> {
        (0..8)
            .map(|k| Board::sorted(partition.iter().map(|&p| self.symmetries(p)[k]).collect()))
            .min()
            .expect("eight images")
    }

    /// If the horizontal centre line cuts no piece and each half's two pieces swap under the
    /// half turn: the upper half's cut, up to the half's symmetries.
    fn halved(&self, partition: &[u64]) -> Option<u64> {
        let n = self.side / 2;
        let upper_half: u64 =
            (0..n).flat_map(|y| (0..self.side).map(move |x| (x, y))).fold(0, |m, (x, y)| m | self.bit(x, y));
        let (upper, lower): (Vec<u64>, Vec<u64>) = partition.iter().partition(|&&p| p & upper_half == p);
        if upper.len() != 2 || lower.iter().any(|&p| p & upper_half != 0) {
            return None;
        }
        let s = self.side - 1;
        let upper_turn = |p: u64| self.map(p, |x, y| (s - x, n - 1 - y));
        let lower_turn = |p: u64| self.map(p, |x, y| (s - x, 3 * n - 1 - y));
        if upper_turn(upper[0]) != upper[1] || lower_turn(lower[0]) != lower[1] {
            return None;
        }
        Some(self.half_key(upper[0]))
    }

    /// A cut of the upper half (one of its two pieces), up to the half's four symmetries.
    fn half_key(&self, piece: u64) -> u64 {
        let (s, n) = (self.side - 1, self.side / 2);
        let rest = |p: u64| {
            let all: u64 =
                (0..n).flat_map(|y| (0..self.side).map(move |x| (x, y))).fold(0, |m, (x, y)| m | self.bit(x, y));
            all & !p
        };
        let images = [
            piece,
            self.map(piece, |x, y| (s - x, y)),
            self.map(piece, |x, y| (x, n - 1 - y)),
            self.map(piece, |x, y| (s - x, n - 1 - y)),
        ];
        images.iter().flat_map(|&p| [p, rest(p)]).min().expect("images")
    }

    /// The upper half's left square: the straight cut down the middle (the cross).
    fn left_of_centre(&self) -> u64 {
        let n = self.side / 2;
        (0..n).flat_map(|y| (0..n).map(move |x| (x, y))).fold(0, |m, (x, y)| m | self.bit(x, y))
    }

    fn neighbours(&self, cell: usize) -> impl Iterator<Item = usize> + '_ {
        let (x, y) = (cell % self.side, cell / self.side);
        let side = self.side;
        [
            (x + 1 < side).then(|| cell + 1),
            (x > 0).then(|| cell - 1),
            (y + 1 < side).then(|| cell + side),
            (y > 0).then(|| cell - side),
        ]
        .into_iter()
        .flatten()
    }
}

/// Every connected set of `size` cells that holds the corner cell.
fn connected_sets_with_corner(board: &Board, size: usize) -> Vec<u64> {
    let mut level: HashSet<u64> = HashSet::from([1]);
    for _ in 1..size {
        let mut next = HashSet::new();
        for &set in &level {
            for cell in (0..board.side * board.side).filter(|&c| set >> c & 1 == 1) {
                for neighbour in board.neighbours(cell) {
                    if set >> neighbour & 1 == 0 {
                        next.insert(set | 1 << neighbour);
                    }
                }
            }
        }
        level = next;
    }
    level.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brute_force_finds_the_small_boards_dissections() {
        assert_eq!(dissections(1), (1, 0));
        assert_eq!(dissections(2), (3, 2));
        assert_eq!(dissections(3), (26, 11));
    }
}
