//! The half-square lattice: figures as sets of quarter cells, the eight symmetries of the
//! square, and polygons turned into quarter sets.
//!
//! Läuchli's theorem (section 3 of the paper): a convex polygon cut into congruent isosceles
//! right triangles (the *elementary triangles*, legs 1) can be laid on the unit square grid so
//! that every triangle's corners are grid points. Every such triangle is then half a unit cell,
//! cut along one of the cell's diagonals. The two diagonals cut a cell into four *quarters*
//! (south, east, north, west); an elementary triangle is two of them, and a figure is a set of
//! quarters. Two pieces overlap exactly when their quarter sets meet, which is one AND of bits.
//!
//! ```text
//!   cell (0,0), both diagonals:     the elementary triangle below the diagonal from
//!   +-------+                       (0,0) to (1,1) is the south and east quarters:
//!   |\  N  /|                        +-------+
//!   | \   / |                        |      /|
//!   |W  X  E|                        |    /  |     bits S and E of cell (0,0)
//!   | /   \ |                        |  /    |
//!   |/  S  \|                        |/______|
//!   +-------+
//! ```
//!
//! A quarter is found from its centroid, which never lies on a grid line or a 45-degree line
//! through grid points, so "is this quarter inside the polygon" is an exact even-odd test in
//! integer coordinates scaled by 6.

use std::fmt;

/// Words of a [`Region`]: 1024 quarters, 256 cells. The bounding box of a convex outline grows
/// with its area, though slowly for all but thin strips: 72 cells at most for the tangram's 16.
const WORDS: usize = 16;
/// The most quarters a region holds.
pub const MAX_QUARTERS: usize = 64 * WORDS;

/// The quarters of a cell, in bit order.
pub const SOUTH: usize = 0;
pub const EAST: usize = 1;
pub const NORTH: usize = 2;
pub const WEST: usize = 3;

/// A lattice point.
pub type Point = (i32, i32);

/// A set of quarters in a frame of `width x height` cells: bit `4 * (y * width + x) + quarter`.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Region([u64; WORDS]);

impl Region {
    pub fn insert(&mut self, bit: usize) {
        self.0[bit / 64] |= 1 << (bit % 64);
    }

    pub fn contains(&self, bit: usize) -> bool {
        self.0[bit / 64] >> (bit % 64) & 1 == 1
    }

    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    pub fn is_disjoint(&self, other: &Region) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & b == 0)
    }

    pub fn is_subset(&self, other: &Region) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }

    pub fn union(&self, other: &Region) -> Region {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
        out
    }

    /// The set bits, lowest first.
    pub fn bits(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(index, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    64 * index + bit
                })
            })
        })
    }
}

impl fmt::Debug for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Region{:?}", self.bits().collect::<Vec<_>>())
    }
}

/// One of the eight symmetries of the square: swap the axes, then mirror x, then mirror y.
/// Numbered 0..8 with 0 the identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symmetry(pub u8);

impl Symmetry {
    pub const ALL: [Symmetry; 8] =
        [Symmetry(0), Symmetry(1), Symmetry(2), Symmetry(3), Symmetry(4), Symmetry(5), Symmetry(6), Symmetry(7)];
    pub const IDENTITY: Symmetry = Symmetry(0);

    fn swaps(self) -> bool {
        self.0 & 4 != 0
    }

    /// The image of `(x, y)` about the origin.
    pub fn apply(self, (x, y): Point) -> Point {
        let (x, y) = if self.swaps() { (y, x) } else { (x, y) };
        (if self.0 & 1 != 0 { -x } else { x }, if self.0 & 2 != 0 { -y } else { y })
    }

    /// The frame `width x height` becomes.
    pub fn frame(self, width: usize, height: usize) -> (usize, usize) {
        if self.swaps() {
            (height, width)
        } else {
            (width, height)
        }
    }

    /// The image of `(x, y)` in a frame of `width x height` (scaled by `scale`), moved back into
    /// the frame it becomes.
    pub fn apply_in_frame(self, point: Point, width: usize, height: usize, scale: i32) -> Point {
        let (w, h) = self.frame(width, height);
        let (x, y) = self.apply(point);
        (if self.0 & 1 != 0 { x + scale * w as i32 } else { x }, if self.0 & 2 != 0 { y + scale * h as i32 } else { y })
    }
}

/// The frame of a region: its size in cells, and the bit of each quarter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    pub width: usize,
    pub height: usize,
}

/// A quarter's centroid relative to its cell's corner, scaled by 6.
const CENTROID: [Point; 4] = [(3, 1), (5, 3), (3, 5), (1, 3)];

impl Frame {
    pub fn new(width: usize, height: usize) -> Option<Frame> {
        (width * height * 4 <= MAX_QUARTERS && width > 0 && height > 0).then_some(Frame { width, height })
    }

    /// The bit of a quarter of this frame.
    pub fn bit(&self, (x, y, quarter): Quarter) -> usize {
        4 * (y as usize * self.width + x as usize) + quarter
    }

    /// The quarter of bit `bit`.
    pub fn quarter(&self, bit: usize) -> Quarter {
        let cell = bit / 4;
        ((cell % self.width) as i32, (cell / self.width) as i32, bit % 4)
    }

    /// Every quarter of the frame whose centroid lies inside `polygon` (lattice points, in this
    /// frame's coordinates, either orientation).
    pub fn rasterize(&self, polygon: &[Point]) -> Region {
        let mut region = Region::default();
        for quarter in quarters_inside(polygon, self.width as i32, self.height as i32) {
            region.insert(self.bit(quarter));
        }
        region
    }

    /// `region` under `symmetry`, in the frame this frame becomes.
    pub fn transform(&self, region: &Region, symmetry: Symmetry) -> (Frame, Region) {
        let (width, height) = symmetry.frame(self.width, self.height);
        let frame = Frame { width, height };
        let mut image = Region::default();
        for bit in region.bits() {
            image.insert(frame.bit(transform_quarter(self.quarter(bit), symmetry, self.width, self.height)));
        }
        (frame, image)
    }

    /// Whether every cell of `region` holds nothing, a whole cell or half of it cut along a
    /// diagonal: what a union of elementary triangles on the lattice looks like.
    pub fn is_union_of_half_cells(&self, region: &Region) -> bool {
        (0..self.width * self.height).all(|cell| {
            let mask: usize = (0..4).filter(|q| region.contains(4 * cell + q)).map(|q| 1 << q).sum();
            // None, all, or two neighbouring quarters (S+E, E+N, N+W, W+S).
            matches!(mask, 0 | 0b1111 | 0b0011 | 0b0110 | 0b1100 | 0b1001)
        })
    }
}

/// A quarter anywhere in the plane: its cell and which quarter.
pub type Quarter = (i32, i32, usize);

/// A quarter's centroid, scaled by 6: never on a grid line or a 45-degree line through grid
/// points, and the same point for the quarter's image under any symmetry.
pub fn centroid_of((x, y, q): Quarter) -> Point {
    (6 * x + CENTROID[q].0, 6 * y + CENTROID[q].1)
}

/// The quarter whose centroid (scaled by 6) is `point`.
fn quarter_at((px, py): Point) -> Quarter {
    let offset = (px.rem_euclid(6), py.rem_euclid(6));
    let quarter = CENTROID.iter().position(|&c| c == offset).expect("a quarter's centroid");
    (px.div_euclid(6), py.div_euclid(6), quarter)
}

/// Every quarter of the box `[0, width] x [0, height]` inside `polygon`, in row order: for
/// outlines, whose boxes can be far larger than a [`Region`] (a thin diagonal strip).
pub fn quarters_inside(polygon: &[Point], width: i32, height: i32) -> Vec<Quarter> {
    let scaled: Vec<Point> = polygon.iter().map(|&(x, y)| (6 * x, 6 * y)).collect();
    let mut inside_quarters = Vec::new();
    for y in 0..height {
        for x in 0..width {
            for q in 0..4 {
                if inside(&scaled, centroid_of((x, y, q))) {
                    inside_quarters.push((x, y, q));
                }
            }
        }
    }
    inside_quarters
}

/// The image of a quarter of the box `width x height` under `symmetry`, in the box it becomes.
pub fn transform_quarter(quarter: Quarter, symmetry: Symmetry, width: usize, height: usize) -> Quarter {
    quarter_at(symmetry.apply_in_frame(centroid_of(quarter), width, height, 6))
}

/// Even-odd test of `point` against the closed path `polygon`; `point` is never on an edge.
fn inside(polygon: &[Point], (px, py): Point) -> bool {
    let mut crossings = false;
    for (i, &(ax, ay)) in polygon.iter().enumerate() {
        let (bx, by) = polygon[(i + 1) % polygon.len()];
        if (ay > py) != (by > py) {
            // The edge crosses the horizontal line through the point: is the crossing to its right?
            let (dx, dy) = (i64::from(bx - ax), i64::from(by - ay));
            let lhs = i64::from(px - ax) * dy;
            let rhs = i64::from(py - ay) * dx;
            if (dy > 0 && lhs < rhs) || (dy < 0 && lhs > rhs) {
                crossings = !crossings;
            }
        }
    }
    crossings
}

/// Twice the signed area of `polygon` (the shoelace sum).
pub fn double_area(polygon: &[Point]) -> i64 {
    (0..polygon.len())
        .map(|i| {
            let ((ax, ay), (bx, by)) = (polygon[i], polygon[(i + 1) % polygon.len()]);
            i64::from(ax) * i64::from(by) - i64::from(bx) * i64::from(ay)
        })
        .sum()
}

/// `2 sqrt 2`, `3`: a length `units` along the grid or `units * sqrt 2` along a diagonal.
pub fn length(units: i32, diagonal: bool) -> String {
    match (diagonal, units) {
        (false, _) => units.to_string(),
        (true, 1) => "\u{221a}2".to_string(),
        (true, _) => format!("{units}\u{221a}2"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_elementary_triangle_is_two_quarters_and_a_cell_four() {
        let frame = Frame::new(2, 1).unwrap();
        let triangle = frame.rasterize(&[(0, 0), (1, 0), (1, 1)]);
        assert_eq!(triangle.bits().collect::<Vec<_>>(), [frame.bit((0, 0, SOUTH)), frame.bit((0, 0, EAST))]);
        let square = frame.rasterize(&[(1, 0), (2, 0), (2, 1), (1, 1)]);
        assert_eq!(square.len(), 4);
        assert!(square.is_disjoint(&triangle));
        assert!(frame.is_union_of_half_cells(&square.union(&triangle)));
        // Both diagonals' halves in one cell: a quarter too many for the lattice.
        let mut odd = triangle;
        odd.insert(frame.bit((0, 0, NORTH)));
        assert!(!frame.is_union_of_half_cells(&odd));
    }

    #[test]
    fn the_eight_symmetries_form_the_group_of_the_square() {
        let point = (2, 1);
        let images: std::collections::HashSet<Point> = Symmetry::ALL.iter().map(|s| s.apply(point)).collect();
        assert_eq!(images.len(), 8);
        // A symmetry maps a frame's region into the frame it becomes, area kept.
        let frame = Frame::new(3, 2).unwrap();
        let region = frame.rasterize(&[(0, 0), (3, 0), (1, 2), (0, 2)]);
        for symmetry in Symmetry::ALL {
            let (image_frame, image) = frame.transform(&region, symmetry);
            assert_eq!(image.len(), region.len());
            let (back_frame, back) = image_frame.transform(&image, inverse(symmetry));
            assert_eq!((back_frame, back), (frame, region), "{symmetry:?}");
        }
    }

    fn inverse(symmetry: Symmetry) -> Symmetry {
        *Symmetry::ALL.iter().find(|s| s.apply(symmetry.apply((2, 1))) == (2, 1)).unwrap()
    }

    #[test]
    fn lengths_read_with_square_roots() {
        assert_eq!(length(3, false), "3");
        assert_eq!(length(1, true), "\u{221a}2");
        assert_eq!(length(2, true), "2\u{221a}2");
    }
}
