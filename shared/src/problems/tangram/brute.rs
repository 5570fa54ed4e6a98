//! An independent check for small piece sets (the paper's advice: test with two or three
//! pieces): every way to lay the pieces side by side in a window, kept when the union is a
//! convex figure, merged up to rotation, reflection, translation and the order of identical
//! pieces by a canonical form. It knows nothing of outlines, placement numbers or the
//! symmetry test of [`solve`](super::solve).
//!
//! Convexity is read off the union itself: its support in the eight directions (the extreme
//! values of `x`, `y`, `x + y`, `x - y` over the quarters' corners) gives the smallest convex
//! octagon around it, and the union is convex when it fills that octagon.

use std::collections::{BTreeMap, HashSet};

use super::lattice::{centroid_of, Point, Symmetry, EAST, NORTH, SOUTH, WEST};
use super::outline::Outline;
use super::pieces::PieceSet;

/// A quarter in the plane: its cell and which quarter.
type Quarter = (i32, i32, usize);
/// Pieces laid so far: each one's kind and quarters.
type Laid = [(usize, Vec<Quarter>)];

/// A piece's quarters, one list per orientation.
fn orientations(pieces: &PieceSet, kind: usize) -> Vec<Vec<Quarter>> {
    pieces.kinds[kind].orientations.iter().map(|o| o.region.bits().map(|bit| o.frame.quarter(bit)).collect()).collect()
}

/// The corners of a quarter, in coordinates doubled (so the cell's centre is a lattice point).
fn corners((x, y, q): Quarter) -> [Point; 3] {
    let (x, y) = (2 * x, 2 * y);
    let centre = (x + 1, y + 1);
    match q {
        SOUTH => [(x, y), (x + 2, y), centre],
        EAST => [(x + 2, y), (x + 2, y + 2), centre],
        NORTH => [(x + 2, y + 2), (x, y + 2), centre],
        WEST => [(x, y + 2), (x, y), centre],
        _ => unreachable!("four quarters"),
    }
}

/// The outline of `union` if it is convex.
fn convex_outline(union: &[Quarter]) -> Option<Outline> {
    let points: Vec<Point> = union.iter().flat_map(|&q| corners(q)).collect();
    let extreme = |f: &dyn Fn(Point) -> i32| {
        let values = points.iter().map(|&p| f(p));
        (values.clone().min().expect("points"), values.max().expect("points"))
    };
    let (x0, x1) = extreme(&|p| p.0);
    let (y0, y1) = extreme(&|p| p.1);
    let (sum0, sum1) = extreme(&|p| p.0 + p.1);
    let (diff0, diff1) = extreme(&|p| p.0 - p.1);
    let doubled = [x1 - x0, y1 - y0, sum0 - (x0 + y0), (x1 - y0) - diff1, (x1 + y1) - sum1, diff0 - (x0 - y1)];
    if doubled.iter().any(|d| d % 2 != 0) {
        return None;
    }
    let outline = Outline::new(doubled.map(|d| d / 2));
    (2 * outline.area() == union.len() as i32).then_some(outline)
}

/// The canonical form of a figure: each piece's quarters (by kind), under the symmetry and
/// translation that give the smallest sorted list.
fn canonical(figure: &Laid) -> Vec<(usize, Vec<Point>)> {
    let mut best: Option<Vec<(usize, Vec<Point>)>> = None;
    for symmetry in Symmetry::ALL {
        let mut moved: Vec<(usize, Vec<Point>)> = figure
            .iter()
            .map(|(kind, quarters)| {
                let points = quarters.iter().map(|&quarter| symmetry.apply(centroid_of(quarter))).collect();
                (*kind, points)
            })
            .collect();
        let all = moved.iter().flat_map(|(_, points)| points.iter());
        let min_x = all.clone().map(|p| p.0.div_euclid(6)).min().expect("quarters");
        let min_y = all.map(|p| p.1.div_euclid(6)).min().expect("quarters");
        for (_, points) in &mut moved {
            for point in points.iter_mut() {
                *point = (point.0 - 6 * min_x, point.1 - 6 * min_y);
            }
            points.sort_unstable();
        }
        moved.sort();
        if best.as_ref().is_none_or(|b| moved < *b) {
            best = Some(moved);
        }
    }
    best.expect("eight symmetries")
}

/// The essentially different convex figures the pieces form, counted per outline class.
pub fn convex_figures(pieces: &PieceSet) -> BTreeMap<Outline, u128> {
    let kinds: Vec<usize> =
        pieces.kinds.iter().enumerate().flat_map(|(k, kind)| std::iter::repeat_n(k, kind.copies)).collect();
    let shapes: Vec<Vec<Vec<Quarter>>> = (0..pieces.kinds.len()).map(|k| orientations(pieces, k)).collect();
    // Every later piece is tried at every offset that can still touch the pieces before it.
    let reach: i32 = pieces
        .kinds
        .iter()
        .map(|k| {
            k.copies as i32 * k.orientations.iter().map(|o| o.frame.width.max(o.frame.height) as i32).max().unwrap_or(0)
        })
        .sum();
    let mut seen: HashSet<Vec<(usize, Vec<Point>)>> = HashSet::new();
    let mut figures = BTreeMap::new();
    let mut placed: Vec<(usize, Vec<Quarter>)> = Vec::new();
    let mut taken: HashSet<Quarter> = HashSet::new();
    lay(0, &kinds, &shapes, reach, &mut placed, &mut taken, &mut |placed| {
        let union: Vec<Quarter> = placed.iter().flat_map(|(_, q)| q.iter().copied()).collect();
        if let Some(outline) = convex_outline(&union) {
            if seen.insert(canonical(placed)) {
                *figures.entry(outline.canonical()).or_insert(0) += 1;
            }
        }
    });
    figures
}

/// Lays piece `depth` in every orientation and offset (the first piece at the origin).
fn lay(
    depth: usize,
    kinds: &[usize],
    shapes: &[Vec<Vec<Quarter>>],
    reach: i32,
    placed: &mut Vec<(usize, Vec<Quarter>)>,
    taken: &mut HashSet<Quarter>,
    visit: &mut dyn FnMut(&Laid),
) {
    if depth == kinds.len() {
        visit(placed);
        return;
    }
    let kind = kinds[depth];
    let offsets: Vec<Point> = if depth == 0 {
        vec![(0, 0)]
    } else {
        (-reach..=reach).flat_map(|dx| (-reach..=reach).map(move |dy| (dx, dy))).collect()
    };
    for shape in &shapes[kind] {
        for &(dx, dy) in &offsets {
            let quarters: Vec<Quarter> = shape.iter().map(|&(x, y, q)| (x + dx, y + dy, q)).collect();
            if quarters.iter().any(|q| taken.contains(q)) {
                continue;
            }
            taken.extend(quarters.iter().copied());
            placed.push((kind, quarters));
            lay(depth + 1, kinds, shapes, reach, placed, taken, visit);
            let (_, quarters) = placed.pop().expect("just pushed");
            for q in &quarters {
                taken.remove(q);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::outline::outlines;
    use super::super::solve::OutlineSearch;
    use super::*;

    /// Every outline of the pieces' area, solved by Program 3, against the brute force.
    fn agree(text: &str) -> u128 {
        let pieces = PieceSet::parse("test", text).unwrap();
        let brute = convex_figures(&pieces);
        let mut solved = BTreeMap::new();
        for outline in outlines(pieces.area()).unwrap() {
            let search = OutlineSearch::new(&pieces, outline).unwrap();
            let (count, _) = search.count(None);
            assert_eq!(search.count_without_pruning(), count, "{text}: {outline:?} without the symmetry test");
            if count > 0 {
                solved.insert(outline, count);
            }
        }
        assert_eq!(solved, brute, "{text}");
        solved.values().sum()
    }

    #[test]
    fn two_and_three_pieces_agree_with_laying_them_side_by_side() {
        // Two small triangles: the square, the triangle of hypotenuse 2, the parallelogram.
        assert_eq!(agree("t 0,0 1,0 0,1\nt 0,0 1,0 0,1\n"), 3);
        agree("t 0,0 1,0 0,1\ns 0,0 1,0 1,1 0,1\n");
        agree("m 0,0 2,0 1,1\nt 0,0 1,0 0,1\nt 0,0 1,0 0,1\n");
        agree("p 0,0 1,0 2,1 1,1\nt 0,0 1,0 0,1\ns 0,0 1,0 1,1 0,1\n");
        // Non-convex pieces: an L of three cells and a small triangle, twice.
        agree("l 0,0 2,0 2,1 1,1 1,2 0,2\nt 0,0 1,0 0,1\nt 0,0 1,0 0,1\n");
    }
}
