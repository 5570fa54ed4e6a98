//! The convex outlines: every convex lattice polygon of a given area, one per congruence class.
//!
//! A convex polygon whose angles are multiples of 45 degrees is its bounding box, `s2` wide and
//! `s4` high, with an isosceles right triangle of legs `s1`, `s3`, `s5`, `s7` cut off the
//! bottom-left, bottom-right, top-right and top-left corners. In elementary triangles (half a
//! unit square each) its area is the paper's equation
//!
//! ```text
//!   F = 2 s2 s4 - (s1^2 + s3^2 + s5^2 + s7^2),   s1 + s3 <= s2,  s3 + s5 <= s4,
//!                                                 s5 + s7 <= s2,  s1 + s7 <= s4.
//! ```
//!
//! Worked example, F = 2: the unit square (1,1,0,0,0,0); the triangle of hypotenuse 2,
//! (2,1,1,1,0,0), whose rotations and reflections are (2,1,0,0,1,1), (1,2,1,0,0,1) and
//! (1,2,0,1,1,0); and the parallelogram (2,1,1,0,1,0), with its mirror image (2,1,0,1,0,1) and
//! their quarter turns. Three classes: N(2) = 3.
//!

use serde::Serialize;

use super::lattice::{length, Frame, Point, Region, Symmetry};
use crate::{Error, Result};

/// An outline: `(s2, s4, s1, s3, s5, s7)` in the paper's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Outline {
    pub s2: i32,
    pub s4: i32,
    pub s1: i32,
    pub s3: i32,
    pub s5: i32,
    pub s7: i32,
}

impl Outline {
    pub fn new([s2, s4, s1, s3, s5, s7]: [i32; 6]) -> Outline {
        Outline { s2, s4, s1, s3, s5, s7 }
    }

    pub fn params(&self) -> [i32; 6] {
        [self.s2, self.s4, self.s1, self.s3, self.s5, self.s7]
    }

    /// Parses `s2,s4,s1,s3,s5,s7` and checks the side conditions.
    pub fn parse(text: &str) -> Result<Outline> {
        let bad = |reason: String| Error::InvalidRequest(format!("outline {text:?}: {reason}"));
        let values: Vec<i32> = text
            .split(',')
            .map(|v| v.trim().parse::<i32>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| bad("give six whole numbers s2,s4,s1,s3,s5,s7".into()))?;
        let values: [i32; 6] = values.try_into().map_err(|_| bad("give six numbers s2,s4,s1,s3,s5,s7".into()))?;
        let outline = Outline::new(values);
        if values.iter().any(|&v| v < 0) || outline.s2 == 0 || outline.s4 == 0 {
            return Err(bad("the numbers are lengths: s2 and s4 at least 1, the corner cuts at least 0".into()));
        }
        if !outline.fits() {
            return Err(bad(
                "corner cuts overlap: the paper's conditions are s1+s3 <= s2, s3+s5 <= s4, s5+s7 <= s2, s1+s7 <= s4"
                    .into(),
            ));
        }
        if outline.area() <= 0 {
            return Err(bad("the cuts leave no area".into()));
        }
        Ok(outline)
    }

    /// The paper's four side conditions.
    fn fits(&self) -> bool {
        self.s1 + self.s3 <= self.s2
            && self.s3 + self.s5 <= self.s4
            && self.s5 + self.s7 <= self.s2
            && self.s1 + self.s7 <= self.s4
    }

    /// Area in elementary triangles.
    pub fn area(&self) -> i32 {
        2 * self.s2 * self.s4 - (self.s1 * self.s1 + self.s3 * self.s3 + self.s5 * self.s5 + self.s7 * self.s7)
    }

    /// The outline turned a quarter turn counterclockwise.
    fn rotated(&self) -> Outline {
        Outline { s2: self.s4, s4: self.s2, s1: self.s7, s3: self.s1, s5: self.s3, s7: self.s5 }
    }

    /// The outline mirrored left to right.
    fn mirrored(&self) -> Outline {
        Outline { s1: self.s3, s3: self.s1, s5: self.s7, s7: self.s5, ..*self }
    }

    /// The eight images under the symmetries of the square.
    fn images(&self) -> Vec<Outline> {
        let mut images = Vec::with_capacity(8);
        let mut turned = *self;
        for _ in 0..4 {
            images.push(turned);
            images.push(turned.mirrored());
            turned = turned.rotated();
        }
        images
    }

    /// The representative of the class: the largest image, so the wider side is `s2`.
    pub fn canonical(&self) -> Outline {
        self.images().into_iter().max().expect("eight images")
    }

    /// The corners, counterclockwise from the bottom edge's left end (repeats dropped).
    pub fn polygon(&self) -> Vec<Point> {
        let (w, h) = (self.s2, self.s4);
        let corners = [
            (self.s1, 0),
            (w - self.s3, 0),
            (w, self.s3),
            (w, h - self.s5),
            (w - self.s5, h),
            (self.s7, h),
            (0, h - self.s7),
            (0, self.s1),
        ];
        let mut polygon: Vec<Point> = Vec::new();
        for point in corners {
            if polygon.last() != Some(&point) && polygon.first() != Some(&point) {
                polygon.push(point);
            }
        }
        polygon
    }

    /// The outline's bounding box as a frame, if it is small enough to place pieces in.
    pub fn frame(&self) -> Result<Frame> {
        Frame::new(self.s2 as usize, self.s4 as usize).ok_or_else(|| {
            Error::InvalidRequest(format!(
                "outline {}: its bounding box of {} x {} cells is larger than the {} cells this program places \
                 pieces in",
                self.label(),
                self.s2,
                self.s4,
                super::lattice::MAX_QUARTERS / 4
            ))
        })
    }

    pub fn region(&self) -> Result<Region> {
        Ok(self.frame()?.rasterize(&self.polygon()))
    }

    /// The symmetries that map the outline onto itself, the identity first.
    pub fn symmetries(&self) -> Result<Vec<Symmetry>> {
        let (frame, region) = (self.frame()?, self.region()?);
        Ok(Symmetry::ALL.into_iter().filter(|&s| frame.transform(&region, s) == (frame, region)).collect())
    }

    /// The side lengths counterclockwise from the bottom edge: `3, 2, 5, 2√2`.
    pub fn sides(&self) -> String {
        let sides = [
            (self.s2 - self.s1 - self.s3, false),
            (self.s3, true),
            (self.s4 - self.s3 - self.s5, false),
            (self.s5, true),
            (self.s2 - self.s5 - self.s7, false),
            (self.s7, true),
            (self.s4 - self.s7 - self.s1, false),
            (self.s1, true),
        ];
        let named: Vec<String> =
            sides.iter().filter(|(units, _)| *units > 0).map(|&(units, diagonal)| length(units, diagonal)).collect();
        named.join(", ")
    }

    /// `(5,2,2,0,0,0)`.
    pub fn label(&self) -> String {
        let [a, b, c, d, e, f] = self.params();
        format!("({a},{b},{c},{d},{e},{f})")
    }
}

/// The largest area outlines are listed for.
pub const MAX_AREA: i32 = 400;

/// Every convex outline of area `area`, one per congruence class, in increasing order.
///
/// The box is bounded by the area: with `h = min(s2, s4)`, the corner cuts remove at most
/// `2 h^2` (`s1 + s7 <= s4` and `s3 + s5 <= s4`), so `F >= 2 s2 s4 - 2 h^2`, and a square box
/// of side `n` leaves at least `2n - 1`. The last cut follows from the equation.
pub fn outlines(area: i32) -> Result<Vec<Outline>> {
    if !(1..=MAX_AREA).contains(&area) {
        return Err(Error::InvalidRequest(format!(
            "area {area}: outlines are listed for areas 1 to {MAX_AREA} (in elementary triangles)"
        )));
    }
    let mut found = std::collections::BTreeSet::new();
    for s2 in 1..=area + 1 {
        for s4 in 1..=area + 1 {
            let (rest, h) = (2 * s2 * s4 - area, s2.min(s4));
            if rest < 0 || rest > 2 * h * h {
                continue;
            }
            for s1 in 0..=h {
                for s3 in 0..=(s2 - s1).min(s4) {
                    for s5 in 0..=(s4 - s3).min(s2) {
                        let square = rest - s1 * s1 - s3 * s3 - s5 * s5;
                        if square < 0 {
                            break;
                        }
                        let s7 = (square as f64).sqrt().round() as i32;
                        let outline = Outline { s2, s4, s1, s3, s5, s7 };
                        if s7 * s7 == square && outline.fits() {
                            found.insert(outline.canonical());
                        }
                    }
                }
            }
        }
    }
    Ok(found.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_table_of_n_f() {
        let counts: Vec<usize> = (1..=10).map(|f| outlines(f).unwrap().len()).collect();
        assert_eq!(counts, [1, 3, 2, 6, 3, 7, 5, 11, 5, 10]);
        assert_eq!(outlines(16).unwrap().len(), 20);
    }

    #[test]
    fn outlines_have_their_area_and_their_symmetries() {
        for area in 1..=24 {
            for outline in outlines(area).unwrap() {
                let Ok(frame) = outline.frame() else { continue };
                let region = outline.region().unwrap();
                assert_eq!(region.len() as i32, 2 * area, "{outline:?}");
                // The tuple's own symmetries agree with the drawn region's.
                for image in outline.images() {
                    let image_region = image.region().unwrap();
                    let matched = Symmetry::ALL
                        .iter()
                        .any(|&s| frame.transform(&region, s) == (image.frame().unwrap(), image_region));
                    assert!(matched, "{outline:?} -> {image:?}");
                }
            }
        }
        let square = Outline::new([4, 4, 2, 2, 2, 2]);
        assert_eq!(square.symmetries().unwrap().len(), 8);
        assert_eq!(square.sides(), "2\u{221a}2, 2\u{221a}2, 2\u{221a}2, 2\u{221a}2");
        let trapezoid = Outline::new([5, 2, 2, 0, 0, 0]);
        assert_eq!(trapezoid.sides(), "3, 2, 5, 2\u{221a}2");
        assert_eq!(trapezoid.symmetries().unwrap(), [Symmetry::IDENTITY]);
    }

    #[test]
    fn outlines_are_checked() {
        assert!(Outline::parse("5,2,2,0,0,0").is_ok());
        for bad in ["5,2,2,0,0", "5,2,3,3,0,0", "0,2,0,0,0,0", "a,b,c,d,e,f", "1,1,1,0,1,0", "-1,2,0,0,0,0"] {
            assert!(Outline::parse(bad).is_err(), "{bad}");
        }
    }
}
