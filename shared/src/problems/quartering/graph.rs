//! The two graphs a quartering cut is a path in, and the order the frontier sweep takes them.
//!
//! A cut of class (a) is four arms from the centre to the border, each the next one turned by 90
//! degrees. Fold the board by that rotation: every lattice point but the centre has exactly one
//! image with `x >= 1, y >= 0` (centre at the origin), and the four arms fold onto one simple path
//! from the centre (the *source*) to the border. Conversely a simple path on the folded board
//! unfolds into four arms that never meet, so cuts and folded paths correspond one to one. For
//! the 4x4 board (`n = 2`) the folded board is two points besides the centre:
//!
//! ```text
//!   board, centre C, border B          folded: C - (1,0) = (1,1)    two edges (1,0)-(1,1):
//!   B B B B B                                       |       |       the straight one and the
//!   B . . . B                                       B       B B     one across the fold
//!   B . C . B                          paths: C-(1,0)-B, C-(1,0)-(1,1)-B (x2 edges, x2 ends)
//!   B . . . B                          = 1 + 2*2 = 5 cuts, up to reflection (5 + 1) / 2 = 3
//!   B B B B B
//! ```
//!
//! A cut of class (b) halves each `2n x n` rectangle by a path through its centre that the
//! 180-degree turn maps onto itself. Folding the rectangle by that turn leaves a path from the
//! centre to the border again. For odd `n` the centre is the middle of a vertical edge: every
//! such cut runs along it, and the path starts at its lower end (the upper is its image).
//!
//! The sweep takes the folded points in an order that keeps few of them open at once (the
//! frontier): the rotational board by diamonds around the centre (`|x| + |y| = 1, 2, ...`, on
//! which the fold's seam joins the end of one diamond to the start of the next), the rectangle
//! column by column from its centre line outwards. Either frontier is at most `n` points wide.

use super::Class;
use crate::{Error, Result};

/// A lattice point of the board, `(x, y)` from the corner, `0..=2n` (rectangle: `y` in `0..=n`).
pub type Point = (u16, u16);

/// A folded board: its points in sweep order, the first one the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathGraph {
    /// One representative point per fold orbit, in sweep order.
    pub points: Vec<Point>,
    /// Per point, its edges to points earlier in the order (one entry per edge).
    pub earlier: Vec<Vec<usize>>,
    /// Per point, how many edges it has to points later in the order.
    pub later: Vec<usize>,
    /// Per point, how many of its edges end on the border (each a different end of the cut).
    pub terminals: Vec<u8>,
}

impl PathGraph {
    /// Builds the graph from each point's neighbours: `Some(index)` for a folded point,
    /// `None` for the border. An edge listed from both ends is kept once.
    fn from_neighbours(points: Vec<Point>, neighbours: impl Fn(usize) -> Vec<Option<usize>>) -> PathGraph {
        let count = points.len();
        let mut earlier = vec![Vec::new(); count];
        let mut later = vec![0; count];
        let mut terminals = vec![0u8; count];
        for (v, earlier_of_v) in earlier.iter_mut().enumerate() {
            for neighbour in neighbours(v) {
                match neighbour {
                    None => terminals[v] += 1,
                    Some(u) if u < v => earlier_of_v.push(u),
                    Some(u) if u > v => later[v] += 1,
                    Some(_) => {}
                }
            }
        }
        PathGraph { points, earlier, later, terminals }
    }

    /// How many points the sweep takes (its steps).
    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

/// The folded board whose paths are the cuts of `class`.
pub fn folded(class: Class, n: usize) -> Result<PathGraph> {
    match class {
        Class::Rotational => rotational(n),
        Class::Halved => halved(n),
    }
}

/// The rotational fold of the `2n x 2n` board.
pub fn rotational(n: usize) -> Result<PathGraph> {
    check_half_side(n)?;
    let n = n as i32;
    // Centred coordinates; the representative of an orbit has x >= 1, y >= 0.
    let representative = |(mut x, mut y): (i32, i32)| {
        for _ in 0..4 {
            if x >= 1 && y >= 0 {
                return (x, y);
            }
            (x, y) = (-y, x);
        }
        (0, 0)
    };
    let mut centred = vec![(0, 0)];
    for diamond in 1..=(2 * n - 2) {
        for x in 1..=diamond {
            let y = diamond - x;
            if x < n && y < n {
                centred.push((x, y));
            }
        }
    }
    let index = |p: (i32, i32)| centred.iter().position(|&q| q == p);
    let neighbours = |v: usize| -> Vec<Option<usize>> {
        let (x, y) = centred[v];
        // The centre's four edges are one orbit: one edge of the folded board.
        let around: Vec<(i32, i32)> =
            if v == 0 { vec![(1, 0)] } else { vec![(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)] };
        around
            .into_iter()
            .map(|(a, b)| if a.abs() == n || b.abs() == n { None } else { index(representative((a, b))) })
            .collect()
    };
    let points = centred.iter().map(|&(x, y)| ((x + n) as u16, (y + n) as u16)).collect();
    Ok(PathGraph::from_neighbours(points, neighbours))
}

/// The 180-degree fold of a `2n x n` rectangle (one half of the `2n x 2n` board).
pub fn halved(n: usize) -> Result<PathGraph> {
    check_half_side(n)?;
    let (width, height) = (2 * n as i32, n as i32);
    let turn = |(x, y): (i32, i32)| (width - x, height - y);
    let representative = |p: (i32, i32)| p.min(turn(p));
    let on_border = |(x, y): (i32, i32)| x == 0 || x == width || y == 0 || y == height;
    // The centre, or for odd n the lower end of the centre edge.
    let source = (n as i32, (n as i32 - 1 + (n as i32 + 1) % 2) / 2);
    if on_border(source) {
        // The 2x1 rectangle: the centre edge joins two border points, one cut and nothing to fold.
        return Ok(PathGraph {
            points: vec![point(source)],
            earlier: vec![vec![]],
            later: vec![0],
            terminals: vec![1],
        });
    }
    let mut points: Vec<(i32, i32)> =
        (1..width).flat_map(|x| (1..height).map(move |y| (x, y))).filter(|&p| representative(p) == p).collect();
    // From the centre line outwards; in a column, from the middle outwards.
    points.sort_by_key(|&(x, y)| (n as i32 - x, (2 * y - height).abs(), y));
    debug_assert_eq!(points[0], source);
    let index = |p: (i32, i32)| points.iter().position(|&q| q == p);
    let neighbours = |v: usize| -> Vec<Option<usize>> {
        let (x, y) = points[v];
        let mut around: Vec<Option<usize>> = Vec::new();
        for p in [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)] {
            let folded = if on_border(p) { None } else { index(representative(p)) };
            // The centre edge of an odd rectangle folds onto itself: every cut has it.
            if folded != Some(v) {
                around.push(folded);
            }
        }
        if v == 0 && n.is_multiple_of(2) {
            // The centre's four edges are two orbits (across and along): keep one of each.
            around.sort();
            around.dedup_by(|a, b| a == b && a.is_some());
            let borders = around.iter().filter(|e| e.is_none()).count();
            around.retain(|e| e.is_some());
            around.extend(std::iter::repeat_n(None, borders / 2));
        }
        around
    };
    let graph = PathGraph::from_neighbours(points.iter().map(|&p| point(p)).collect(), neighbours);
    Ok(graph)
}

fn point((x, y): (i32, i32)) -> Point {
    (x as u16, y as u16)
}

/// The largest half side the frontier sweep takes: its frontier, `n` points, must fit a 128-bit
/// key (see `paths::capacity`).
pub const MAX_HALF_SIDE: usize = 22;

fn check_half_side(n: usize) -> Result<()> {
    if n == 0 || n > MAX_HALF_SIDE {
        return Err(Error::InvalidInput {
            input: format!("board \"{side}x{side}\"", side = 2 * n),
            reason: format!("the board's side must be even, from 2 to {}", 2 * MAX_HALF_SIDE),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folded_4x4_board_is_the_centre_and_two_points_with_a_double_edge() {
        let graph = rotational(2).unwrap();
        assert_eq!(graph.points, vec![(2, 2), (3, 2), (3, 3)]);
        assert_eq!(graph.earlier, vec![vec![], vec![0], vec![1, 1]]);
        assert_eq!(graph.terminals, vec![0, 1, 2]);
    }

    #[test]
    fn the_folded_4x2_rectangle_is_its_centre_and_one_point() {
        let graph = halved(2).unwrap();
        assert_eq!(graph.points, vec![(2, 1), (1, 1)]);
        assert_eq!(graph.earlier, vec![vec![], vec![0]]);
        assert_eq!(graph.terminals, vec![1, 3]);
    }

    #[test]
    fn every_interior_point_is_folded_once() {
        for n in 1..=7 {
            assert_eq!(rotational(n).unwrap().len(), n * (n - 1) + 1, "n = {n}");
            let interior = (2 * n - 1) * (n - 1);
            let orbits = if n == 1 {
                1
            } else if n % 2 == 0 {
                interior.div_ceil(2)
            } else {
                interior / 2
            };
            assert_eq!(halved(n).unwrap().len(), orbits, "n = {n}");
        }
    }

    #[test]
    fn boards_out_of_range_are_refused() {
        assert!(rotational(0).is_err());
        assert!(halved(MAX_HALF_SIDE + 1).is_err());
    }
}
