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

use std::collections::HashSet;

use super::lattice::{length, quarters_inside, transform_quarter, Point, Quarter, Symmetry};
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
        if values.iter().any(|&v| v > MAX_SIDE) {
            return Err(bad(format!("the numbers are kept to {MAX_SIDE} at most")));
        }
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

    /// Every quarter inside the outline, in its bounding box, in row order.
    pub fn quarters(&self) -> Vec<Quarter> {
        quarters_inside(&self.polygon(), self.s2, self.s4)
    }

    /// The symmetries that map the outline onto itself, the identity first.
    pub fn symmetries(&self) -> Vec<Symmetry> {
        self.symmetries_of(&self.quarters())
    }

    /// [`Outline::symmetries`], given the outline's [`quarters`](Outline::quarters).
    pub fn symmetries_of(&self, quarters: &[Quarter]) -> Vec<Symmetry> {
        let set: HashSet<Quarter> = quarters.iter().copied().collect();
        let (width, height) = (self.s2 as usize, self.s4 as usize);
        Symmetry::ALL
            .into_iter()
            .filter(|&s| {
                s.frame(width, height) == (width, height)
                    && quarters.iter().all(|&q| set.contains(&transform_quarter(q, s, width, height)))
            })
            .collect()
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
pub const MAX_AREA: i32 = 256;
/// The largest parameter an outline is given with (so its area is computed without overflow).
const MAX_SIDE: i32 = 10_000;

/// Every convex outline of area `area`, one per congruence class, in increasing order.
///
/// Every class has a member with `s2 >= s4 = h`. The box is bounded by the area: the corner
/// cuts remove at most `2 h^2` (`s1 + s7 <= s4` and `s3 + s5 <= s4`), so `F >= 2 h (s2 - h)`;
/// a square box of side `h` leaves at least `2h - 1` (one cut of `h` forbids its neighbours, and
/// cuts below `h` leave more). The last cut follows from the equation.
pub fn outlines(area: i32) -> Result<Vec<Outline>> {
    check_area(area)?;
    let mut found = std::collections::BTreeSet::new();
    for s4 in 1..=(area + 1) / 2 {
        for s2 in s4.. {
            if s2 > s4 && 2 * s4 * (s2 - s4) > area {
                break;
            }
            let rest = 2 * s2 * s4 - area;
            if rest < 0 || rest > 2 * s4 * s4 {
                continue;
            }
            for s1 in 0..=s4 {
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

/// Refuses an area outside `1..=MAX_AREA`.
pub fn check_area(area: i32) -> Result<()> {
    if !(1..=MAX_AREA).contains(&area) {
        return Err(Error::InvalidRequest(format!(
            "area {area}: outlines are listed for areas 1 to {MAX_AREA} (in elementary triangles)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tuple with `s2, s4 <= F + 1` and every cut, without the bounds `outlines` uses.
    fn slowly(area: i32) -> Vec<Outline> {
        let mut found = std::collections::BTreeSet::new();
        for s2 in 1..=area + 1 {
            for s4 in 1..=area + 1 {
                let most = s2.min(s4);
                for [s1, s3, s5, s7] in (0..(most + 1).pow(4)).map(|i| {
                    let d = most + 1;
                    [i % d, i / d % d, i / d / d % d, i / d / d / d]
                }) {
                    let outline = Outline { s2, s4, s1, s3, s5, s7 };
                    if outline.fits() && outline.area() == area {
                        found.insert(outline.canonical());
                    }
                }
            }
        }
        found.into_iter().collect()
    }

    #[test]
    fn the_bounds_of_the_search_lose_no_outline() {
        for area in 1..=24 {
            assert_eq!(outlines(area).unwrap(), slowly(area), "F = {area}");
        }
    }

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
                let quarters = outline.quarters();
                assert_eq!(quarters.len() as i32, 2 * area, "{outline:?}");
                // Each image of the tuple is the image of the drawn outline under a symmetry.
                let (width, height) = (outline.s2 as usize, outline.s4 as usize);
                for image in outline.images() {
                    let mut drawn = image.quarters();
                    drawn.sort_unstable();
                    let matched = Symmetry::ALL.iter().any(|&s| {
                        let mut moved: Vec<Quarter> =
                            quarters.iter().map(|&q| transform_quarter(q, s, width, height)).collect();
                        moved.sort_unstable();
                        moved == drawn
                    });
                    assert!(matched, "{outline:?} -> {image:?}");
                }
            }
        }
        let square = Outline::new([4, 4, 2, 2, 2, 2]);
        assert_eq!(square.symmetries().len(), 8);
        assert_eq!(square.sides(), "2\u{221a}2, 2\u{221a}2, 2\u{221a}2, 2\u{221a}2");
        let trapezoid = Outline::new([5, 2, 2, 0, 0, 0]);
        assert_eq!(trapezoid.sides(), "3, 2, 5, 2\u{221a}2");
        assert_eq!(trapezoid.symmetries(), [Symmetry::IDENTITY]);
        // A thin strip far larger than a region's box still has its quarters and symmetries.
        let strip = Outline::new([17, 16, 16, 0, 16, 0]);
        assert_eq!(strip.quarters().len(), 2 * strip.area() as usize);
        assert_eq!(strip.symmetries().len(), 2);
    }

    #[test]
    fn outlines_are_checked() {
        assert!(Outline::parse("5,2,2,0,0,0").is_ok());
        for bad in [
            "5,2,2,0,0",
            "5,2,3,3,0,0",
            "0,2,0,0,0,0",
            "a,b,c,d,e,f",
            "1,1,1,0,1,0",
            "-1,2,0,0,0,0",
            "268435457,8,0,0,0,0",
        ] {
            assert!(Outline::parse(bad).is_err(), "{bad}");
        }
    }
}
