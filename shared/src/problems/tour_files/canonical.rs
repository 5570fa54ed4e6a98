//! The canonical form of a tour: the smallest image of its connections under the board's
//! symmetries, as a compact byte string. Two tours are the same tour up to symmetry (and
//! direction, and starting square) exactly when their canonical forms are equal.
//!
//! Phadke writes a closed tour's connections as sorted four-digit numbers (`1123` joins the
//! squares (1,1) and (2,3)) and compares a candidate's eight images with every master. Here the
//! connections are a bit set over the board's knight's moves (168 on 8x8, so 21 bytes), an
//! open tour adds its two ends (his fictitious closing connection), and the canonical form is
//! the least of the eight images' byte strings. Equal forms are then found by sorting, not by
//! comparing every candidate with every master.
//!
//! Worked example, 8x8: a closed tour has 64 connections; under the clockwise turn the
//! connection a8-b6 (squares 0 and 17) becomes h8-f7 (7 and 13); each image is 1 kind byte,
//! 21 bytes of moves and 4 bytes of ends (unused, 0xff, for a closed tour), 26 bytes in all;
//! the tour's form is the least of its 8 images and the number of images equal to the tour
//! itself is the order of its symmetry group (1 for most tours).
//!
//! An open tour keeps its fictitious connection apart from its knight's moves, even when its
//! ends happen to be a knight's move apart: Phadke's 64 numbers would make the 64 open tours cut
//! from one closed tour look alike; here each is its own class.
//!
//! The symmetries are the tours' ([`Symmetry`]), on the board's squares as cells. Phadke's table
//! names them, with rows `i` from the top and columns `j` from the left, both from 1, on an
//! `n x n` board (a rectangle keeps the first two and the half turn, with `rows + 1` for `i` and
//! `cols + 1` for `j`):
//!
//! ```text
//! image in vertical mirror         I = i          J = n+1 - j     ColumnMirror
//! image in horizontal mirror       I = n+1 - i    J = j           RowMirror
//! image in TL-BR diagonal mirror   I = j          J = i           Diagonal
//! image in TR-BL diagonal mirror   I = n+1 - j    J = n+1 - i     AntiDiagonal
//! clockwise rotation through 90    I = j          J = n+1 - i     QuarterTurn
//! anticlockwise rotation           I = n+1 - j    J = i           ThreeQuarterTurn
//! rotation through 180             I = n+1 - i    J = n+1 - j     HalfTurn
//! ```
//!
//! A form is the least image over the whole group, so neither the order in which the group
//! lists its symmetries nor their names reach a form: only the squares' and the moves' numbers
//! do ([`TourBoard::neighbours`] fixes the latter).

use super::board::{Square, TourBoard};
use super::tour::Tour;
use crate::hamiltonian::symmetry::Symmetry;

/// The board's knight's moves numbered, and where each symmetry sends each of them.
pub struct Canonicalizer {
    board: TourBoard,
    /// `move_ids[square]`: the number of the move to each of the square's neighbours, in the
    /// order of [`TourBoard::neighbours`].
    move_ids: Vec<Vec<u32>>,
    moves: usize,
    /// Per symmetry: the image of every move, and of every square.
    move_maps: Vec<Vec<u32>>,
    square_maps: Vec<Vec<Square>>,
    symmetries: Vec<Symmetry>,
}

/// A tour's canonical form and the order of its symmetry group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canonical {
    pub form: Vec<u8>,
    /// How many of the board's symmetries map the tour to itself (1, 2, 4 or 8).
    pub stabiliser: u8,
}

const CLOSED: u8 = 0;
const OPEN: u8 = 1;

impl Canonicalizer {
    pub fn new(board: &TourBoard) -> Canonicalizer {
        let squares = board.squares() as Square;
        let mut move_ids: Vec<Vec<u32>> = (0..squares).map(|s| vec![0; board.neighbours(s).len()]).collect();
        let mut pairs = Vec::new();
        for a in 0..squares {
            for (k, &b) in board.neighbours(a).iter().enumerate() {
                if a < b {
                    move_ids[a as usize][k] = pairs.len() as u32;
                    let back = board.neighbours(b).iter().position(|&x| x == a).expect("moves are symmetric");
                    move_ids[b as usize][back] = pairs.len() as u32;
                    pairs.push((a, b));
                }
            }
        }
        let symmetries = Symmetry::group(board.cols(), board.rows());
        let square_maps: Vec<Vec<Square>> = symmetries.iter().map(|&s| square_map(board, s)).collect();
        let mut canon = Canonicalizer {
            board: board.clone(),
            move_ids,
            moves: pairs.len(),
            move_maps: Vec::new(),
            square_maps,
            symmetries,
        };
        canon.move_maps = canon
            .square_maps
            .iter()
            .map(|map| pairs.iter().map(|&(a, b)| canon.move_id(map[a as usize], map[b as usize])).collect())
            .collect();
        canon
    }

    /// The board's symmetries, in the order of the images (the identity first).
    pub fn symmetries(&self) -> &[Symmetry] {
        &self.symmetries
    }

    /// How many bytes every form takes on this board.
    pub fn form_len(&self) -> usize {
        1 + self.moves.div_ceil(8) + 4
    }

    /// The number of the knight's move between `a` and `b` (which must be one).
    fn move_id(&self, a: Square, b: Square) -> u32 {
        let k = self.board.neighbours(a).iter().position(|&x| x == b).expect("a knight's move");
        self.move_ids[a as usize][k]
    }

    /// The form of the tour as it stands (the identity's image).
    pub fn form(&self, tour: &Tour) -> Vec<u8> {
        let ids: Vec<u32> = tour.moves().map(|(a, b)| self.move_id(a, b)).collect();
        self.image(&ids, tour.ends(), None)
    }

    /// The image under symmetry number `index` (of [`Canonicalizer::symmetries`]).
    pub fn image_of(&self, tour: &Tour, index: usize) -> Vec<u8> {
        let ids: Vec<u32> = tour.moves().map(|(a, b)| self.move_id(a, b)).collect();
        self.image(&ids, tour.ends(), Some(index))
    }

    fn image(&self, ids: &[u32], ends: Option<(Square, Square)>, symmetry: Option<usize>) -> Vec<u8> {
        let mut form = vec![0u8; self.form_len()];
        form[0] = if ends.is_some() { OPEN } else { CLOSED };
        for &id in ids {
            let id = symmetry.map_or(id, |s| self.move_maps[s][id as usize]) as usize;
            form[1 + id / 8] |= 0x80 >> (id % 8);
        }
        let (low, high) = match ends {
            Some((a, b)) => {
                let (a, b) = match symmetry {
                    Some(s) => (self.square_maps[s][a as usize], self.square_maps[s][b as usize]),
                    None => (a, b),
                };
                (a.min(b), a.max(b))
            }
            None => (Square::MAX, Square::MAX),
        };
        let tail = form.len() - 4;
        form[tail..tail + 2].copy_from_slice(&low.to_be_bytes());
        form[tail + 2..].copy_from_slice(&high.to_be_bytes());
        form
    }

    /// The least image of `tour` (a valid tour of the board) and how many images equal the tour.
    pub fn canonical(&self, tour: &Tour) -> Canonical {
        let ids: Vec<u32> = tour.moves().map(|(a, b)| self.move_id(a, b)).collect();
        let itself = self.image(&ids, tour.ends(), None);
        let mut least = itself.clone();
        let mut stabiliser = 1;
        for index in 1..self.symmetries.len() {
            let image = self.image(&ids, tour.ends(), Some(index));
            if image == itself {
                stabiliser += 1;
            }
            if image < least {
                least = image;
            }
        }
        Canonical { form: least, stabiliser }
    }

    /// The tour a form describes, starting as [`Tour::from_connections`] starts.
    pub fn tour_of(&self, form: &[u8]) -> Result<Tour, String> {
        if form.len() != self.form_len() {
            return Err(format!("a form of {} bytes; this board's take {}", form.len(), self.form_len()));
        }
        let mut connections = Vec::new();
        for a in 0..self.board.squares() as Square {
            for (k, &b) in self.board.neighbours(a).iter().enumerate() {
                let id = self.move_ids[a as usize][k] as usize;
                if a < b && form[1 + id / 8] & (0x80 >> (id % 8)) != 0 {
                    connections.push((a, b));
                }
            }
        }
        let tail = form.len() - 4;
        let ends = (form[0] == OPEN).then(|| {
            (
                Square::from_be_bytes([form[tail], form[tail + 1]]),
                Square::from_be_bytes([form[tail + 2], form[tail + 3]]),
            )
        });
        Tour::from_connections(&self.board, &connections, ends)
    }
}

/// Where `symmetry` sends every square of `board`: `map[square]` is its image.
fn square_map(board: &TourBoard, symmetry: Symmetry) -> Vec<Square> {
    let (width, rows) = (board.cols(), board.rows());
    (0..board.squares()).map(|square| symmetry.apply(width, rows, square) as Square).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;
    use crate::problems::tour_files::enumerate::Enumeration;

    fn all_tours(size: &str, closed: bool) -> (TourBoard, Vec<Tour>) {
        let board = TourBoard::new(size.parse().unwrap()).unwrap();
        let enumeration = Enumeration::new(board.clone(), closed).unwrap();
        let mut tours = Vec::new();
        for shard in 0..enumeration.shard_count() {
            enumeration
                .run_shard(shard, &mut |tour| {
                    tours.push(tour.clone());
                    Ok(())
                })
                .unwrap();
        }
        (board, tours)
    }

    /// Every image of every 6x6 closed tour is itself one of the 9862 tours, with the same
    /// canonical form; the forms fall into the 1245 published classes.
    fn check_complete_list(size: &str, closed: bool, tours_wanted: usize, classes_wanted: usize) {
        let (board, tours) = all_tours(size, closed);
        assert_eq!(tours.len(), tours_wanted);
        let canon = Canonicalizer::new(&board);
        let canonical: HashMap<Vec<u8>, Vec<u8>> =
            tours.iter().map(|t| (canon.form(t), canon.canonical(t).form)).collect();
        assert_eq!(canonical.len(), tours_wanted, "no two tours have the same connections");
        for tour in &tours {
            let own = &canonical[&canon.form(tour)];
            for index in 0..canon.symmetries().len() {
                let image = canon.image_of(tour, index);
                assert_eq!(canonical.get(&image), Some(own), "an image of a tour is a tour of the same class");
            }
        }
        let classes: HashSet<&Vec<u8>> = canonical.values().collect();
        assert_eq!(classes.len(), classes_wanted);
        // And a form reads back as its tour.
        for tour in tours.iter().take(50) {
            let form = canon.form(tour);
            assert_eq!(canon.form(&canon.tour_of(&form).unwrap()), form);
        }
    }

    #[test]
    fn every_image_of_every_tour_has_the_same_form_and_classes_differ() {
        check_complete_list("6x6", true, 9862, 1245);
        // Open 5x5 tours (a square board, eight symmetries) and a rectangle (four): the class
        // counts are whatever the lists give, but the orbit-counting identity must hold.
        for (size, closed, tours_wanted) in [("5x5", false, 864), ("3x10", true, 16), ("4x5", false, 82)] {
            let (board, tours) = all_tours(size, closed);
            let canon = Canonicalizer::new(&board);
            let group = canon.symmetries().len() as u64;
            let mut classes: HashMap<Vec<u8>, u8> = HashMap::new();
            for tour in &tours {
                let canonical = canon.canonical(tour);
                classes.insert(canonical.form, canonical.stabiliser);
            }
            let images: u64 = classes.values().map(|&order| group / u64::from(order)).sum();
            assert_eq!(images, tours_wanted as u64, "{size}: the sum of |G| / |stabiliser| is every tour");
            check_complete_list(size, closed, tours_wanted, classes.len());
        }
    }

    #[test]
    fn phadkes_transformations_map_a_tour_to_a_tour_of_its_class() {
        let (board, tours) = all_tours("6x6", true);
        let canon = Canonicalizer::new(&board);
        for tour in tours.iter().step_by(97) {
            let class = canon.canonical(tour).form;
            for symmetry in Symmetry::group(6, 6) {
                let map = square_map(&board, symmetry);
                let image = Tour { squares: tour.squares.iter().map(|&s| map[s as usize]).collect(), closed: true };
                assert_eq!(image.check(&board), Ok(()), "{symmetry:?}");
                assert_eq!(canon.canonical(&image).form, class, "{symmetry:?}");
                // Reversed and started elsewhere, still the same tour.
                let mut turned = image.squares.clone();
                turned.reverse();
                turned.rotate_left(7);
                assert_eq!(canon.canonical(&Tour { squares: turned, closed: true }).form, class);
            }
        }
    }

    /// Phadke's table, as written above, is the board's group: each of his relationships moves
    /// every square as the symmetry beside it does, on his 8x8 and on a rectangle.
    #[test]
    fn phadkes_table_is_the_group_of_the_board() {
        type Relationship = fn(usize, usize, (usize, usize)) -> (usize, usize);
        let table: [(&str, Relationship, Symmetry); 7] = [
            ("vertical mirror", |_, cols, (i, j)| (i, cols + 1 - j), Symmetry::ColumnMirror),
            ("horizontal mirror", |rows, _, (i, j)| (rows + 1 - i, j), Symmetry::RowMirror),
            ("rotation through 180", |rows, cols, (i, j)| (rows + 1 - i, cols + 1 - j), Symmetry::HalfTurn),
            ("TL-BR diagonal mirror", |_, _, (i, j)| (j, i), Symmetry::Diagonal),
            ("TR-BL diagonal mirror", |n, _, (i, j)| (n + 1 - j, n + 1 - i), Symmetry::AntiDiagonal),
            ("clockwise rotation through 90", |n, _, (i, j)| (j, n + 1 - i), Symmetry::QuarterTurn),
            ("anticlockwise rotation", |n, _, (i, j)| (n + 1 - j, i), Symmetry::ThreeQuarterTurn),
        ];
        for size in ["8x8", "6x5"] {
            let board = TourBoard::new(size.parse().unwrap()).unwrap();
            let group = Symmetry::group(board.cols(), board.rows());
            let kept: Vec<_> = table.iter().filter(|(_, _, s)| group.contains(s)).collect();
            assert_eq!(kept.len(), group.len() - 1, "{size}: every symmetry but the identity");
            assert_eq!(group.len(), if board.rows() == board.cols() { 8 } else { 4 });
            for &&(name, relationship, symmetry) in &kept {
                let map = square_map(&board, symmetry);
                for (square, &image) in map.iter().enumerate() {
                    let (row, col) = board.coordinates(square as Square);
                    let (i, j) = relationship(board.rows(), board.cols(), (row + 1, col + 1));
                    assert_eq!(image, board.at(i - 1, j - 1), "{size}: {name}");
                }
            }
        }
        // His figures: the clockwise turn takes the corner (1,1) to the top right, the
        // anticlockwise one to the bottom left, and (1,2) to (2,8).
        let board = TourBoard::new("8x8".parse().unwrap()).unwrap();
        assert_eq!(square_map(&board, Symmetry::QuarterTurn)[board.at(0, 0) as usize], board.at(0, 7));
        assert_eq!(square_map(&board, Symmetry::ThreeQuarterTurn)[board.at(0, 0) as usize], board.at(7, 0));
        assert_eq!(square_map(&board, Symmetry::QuarterTurn)[board.at(0, 1) as usize], board.at(1, 7));
    }
}
