//! Pieces: read from a piece file (or the classic seven), checked, grouped into kinds of
//! identical pieces, each kind with its symmetry type and its distinct orientations.
//!
//! A piece file holds one piece per line: a name, then the piece's boundary as a closed path of
//! lattice points, each consecutive pair (and the last with the first) one edge, in the
//! paper's input form of edges with integer coordinates:
//!
//! ```text
//! # the classic tangram, largest pieces first (they are placed in this order)
//! large-triangle   0,0 2,0 0,2
//! large-triangle   0,0 2,0 0,2
//! medium-triangle  0,0 2,0 1,1
//! square           0,0 1,0 1,1 0,1
//! parallelogram    0,0 1,0 2,1 1,1
//! small-triangle   0,0 1,0 0,1
//! small-triangle   0,0 1,0 0,1
//! ```
//!
//! Pieces need not be convex. Every edge must run along the grid or at 45 degrees between
//! lattice points, and the boundary must not cross or touch itself: then the piece is a union
//! of elementary triangles on the lattice. Identical pieces (equal up to rotation, reflection
//! and translation) form one kind, whatever their names, and are placed one after another.

use serde::Serialize;

use super::lattice::{double_area, Frame, Point, Region, Symmetry};
use crate::input::quote;
use crate::{Error, Result};

/// The seven tangram pieces, in a piece file's form.
pub const CLASSIC: &str = "\
# the classic tangram, largest pieces first (they are placed in this order)
large-triangle   0,0 2,0 0,2
large-triangle   0,0 2,0 0,2
medium-triangle  0,0 2,0 1,1
square           0,0 1,0 1,1 0,1
parallelogram    0,0 1,0 2,1 1,1
small-triangle   0,0 1,0 0,1
small-triangle   0,0 1,0 0,1
";

/// The largest piece file read: sixteen pieces of 256 corners take some 50 KiB, so a file
/// past this is the wrong file.
pub const MAX_PIECE_FILE: u64 = 1 << 20;
/// The longest piece name: names are printed with every result.
const MAX_NAME_CHARS: usize = 64;
/// The most pieces a set may hold.
pub const MAX_PIECES: usize = 16;
/// The most corners one piece may have (the self-crossing test compares every pair of edges).
const MAX_CORNERS: usize = 256;
/// The most cells a piece's bounding box may span (in any orientation).
const MAX_PIECE_CELLS: i64 = 256;

/// The size of a polygon's bounding box, in cells.
fn bounding_box(polygon: &[Point]) -> (i64, i64) {
    let span = |f: fn(&Point) -> i32| {
        let values = polygon.iter().map(f);
        i64::from(values.clone().max().unwrap_or(0)) - i64::from(values.min().unwrap_or(0))
    };
    (span(|p| p.0), span(|p| p.1))
}

/// One piece as read: its name and boundary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub name: String,
    pub polygon: Vec<Point>,
}

/// One orientation of a kind: its region and boundary in its own frame (corner at the origin).
#[derive(Clone, Debug)]
pub struct Orientation {
    pub frame: Frame,
    pub region: Region,
    pub polygon: Vec<Point>,
}

/// Identical pieces: how many, their area, their symmetry, their orientations.
#[derive(Clone, Debug)]
pub struct Kind {
    pub name: String,
    pub copies: usize,
    /// In elementary triangles.
    pub area: i32,
    /// The symmetries that map the piece onto itself, as given.
    pub symmetry: Vec<Symmetry>,
    pub orientations: Vec<Orientation>,
}

/// A checked piece set, grouped into kinds in the order of their first piece.
#[derive(Clone, Debug)]
pub struct PieceSet {
    pub kinds: Vec<Kind>,
}

/// A piece line's error, with the file and line named.
fn line_error(source: &str, line: usize, message: String) -> Error {
    Error::InvalidRequest(format!("{source}:{line}: {message}"))
}

impl PieceSet {
    /// Reads a piece file's text; `source` names it in errors.
    pub fn parse(source: &str, text: &str) -> Result<PieceSet> {
        let mut pieces = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line_no = index + 1;
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let piece = parse_piece(line).map_err(|message| line_error(source, line_no, message))?;
            check_piece(&piece).map_err(|message| line_error(source, line_no, message))?;
            pieces.push((line_no, piece));
        }
        if pieces.is_empty() {
            return Err(Error::InvalidRequest(format!("{source}: no pieces (one piece per line: NAME x,y x,y ...)")));
        }
        if pieces.len() > MAX_PIECES {
            return Err(Error::InvalidRequest(format!(
                "{source}: {} pieces, more than the {MAX_PIECES} this program places",
                pieces.len()
            )));
        }
        let mut kinds: Vec<Kind> = Vec::new();
        for (line_no, piece) in pieces {
            let kind = Kind::of(&piece).map_err(|message| line_error(source, line_no, message))?;
            let first = &kind.orientations[0];
            match kinds
                .iter_mut()
                .find(|k| k.orientations.iter().any(|o| (o.frame, o.region) == (first.frame, first.region)))
            {
                Some(same) => same.copies += 1,
                None => kinds.push(kind),
            }
        }
        let set = PieceSet { kinds };
        if set.area() > super::outline::MAX_AREA {
            return Err(Error::InvalidRequest(format!(
                "{source}: the pieces cover {} elementary triangles; convex figures are found up to {}",
                set.area(),
                super::outline::MAX_AREA
            )));
        }
        Ok(set)
    }

    pub fn classic() -> PieceSet {
        PieceSet::parse("the classic tangram", CLASSIC).expect("the classic pieces are valid")
    }

    /// Total area in elementary triangles.
    pub fn area(&self) -> i32 {
        self.kinds.iter().map(|k| k.area * k.copies as i32).sum()
    }

    pub fn piece_count(&self) -> usize {
        self.kinds.iter().map(|k| k.copies).sum()
    }
}

/// `NAME x,y x,y ...`.
fn parse_piece(line: &str) -> std::result::Result<Piece, String> {
    let mut words = line.split_whitespace();
    let name = words.next().expect("a non-empty line").to_string();
    if name.contains(',') {
        return Err(format!("a piece line starts with its name, then its corners: {}", quote(line)));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!("a piece name has at most {MAX_NAME_CHARS} characters: {}", quote(&name)));
    }
    let mut polygon = Vec::new();
    for word in words {
        let (x, y) = word.split_once(',').ok_or_else(|| format!("{} is not a point x,y", quote(word)))?;
        let coordinate = |text: &str| -> std::result::Result<i32, String> {
            match text.parse::<i32>() {
                Ok(v) if v.abs() <= 1000 => Ok(v),
                Ok(_) => Err(format!("{}: coordinates are kept within -1000..1000", quote(word))),
                Err(_) if text.parse::<f64>().is_ok_and(|v| v.is_finite() && v.fract() != 0.0) => Err(format!(
                    "{} is off the lattice: corners must have whole-number coordinates (the unit is the short \
                     side of the elementary triangle)",
                    quote(word)
                )),
                Err(_) => Err(format!("{} is not a point x,y of whole numbers", quote(word))),
            }
        };
        polygon.push((coordinate(x)?, coordinate(y)?));
    }
    // A closing point equal to the first is allowed and dropped; so are repeats and straight-on corners.
    polygon.dedup();
    if polygon.len() > 1 && polygon.first() == polygon.last() {
        polygon.pop();
    }
    if polygon.len() > MAX_CORNERS {
        return Err(format!("piece {name}: {} corners, more than the {MAX_CORNERS} a piece may have", polygon.len()));
    }
    let given = polygon.len();
    let polygon = drop_straight_corners(polygon);
    if polygon.len() < 3 {
        return Err(if given < 3 {
            format!("piece {name}: a polygon needs at least three corners")
        } else {
            format!("piece {name}: its corners lie on one line, so it has no area")
        });
    }
    let (width, height) = bounding_box(&polygon);
    if width * height > MAX_PIECE_CELLS {
        return Err(format!(
            "piece {name}: its bounding box of {width} x {height} cells is larger than the {MAX_PIECE_CELLS} cells a \
             piece may span"
        ));
    }
    Ok(Piece { name, polygon })
}

/// Drops corners where the boundary goes straight on.
fn drop_straight_corners(mut polygon: Vec<Point>) -> Vec<Point> {
    loop {
        let n = polygon.len();
        if n < 3 {
            return polygon;
        }
        let straight = (0..n).find(|&i| {
            let (a, b, c) = (polygon[(i + n - 1) % n], polygon[i], polygon[(i + 1) % n]);
            let cross = i64::from(b.0 - a.0) * i64::from(c.1 - b.1) - i64::from(b.1 - a.1) * i64::from(c.0 - b.0);
            let dot = i64::from(b.0 - a.0) * i64::from(c.0 - b.0) + i64::from(b.1 - a.1) * i64::from(c.1 - b.1);
            cross == 0 && dot > 0
        });
        match straight {
            Some(i) => {
                polygon.remove(i);
            }
            None => return polygon,
        }
    }
}

/// Edges along the grid or at 45 degrees, a boundary that neither crosses nor touches itself.
fn check_piece(piece: &Piece) -> std::result::Result<(), String> {
    let polygon = &piece.polygon;
    let n = polygon.len();
    let edge = |i: usize| (polygon[i], polygon[(i + 1) % n]);
    for i in 0..n {
        let (a, b) = edge(i);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        if dx != 0 && dy != 0 && dx.abs() != dy.abs() {
            return Err(format!(
                "piece {}: the edge from {},{} to {},{} runs neither along the grid nor at 45 degrees, so the piece \
                 is not made of elementary triangles on the lattice",
                piece.name, a.0, a.1, b.0, b.1
            ));
        }
    }
    for i in 0..n {
        for j in i + 1..n {
            let neighbours = j == i + 1 || (i == 0 && j == n - 1);
            let ((a, b), (c, d)) = (edge(i), edge(j));
            let meet = if neighbours {
                // Neighbouring edges share one corner; they must not fold back over each other.
                let shared = if b == c { b } else { a };
                let (p, q) = if b == c { (a, d) } else { (b, c) };
                on_segment(shared, p, q) || on_segment(shared, q, p)
            } else {
                segments_meet(a, b, c, d)
            };
            if meet {
                return Err(format!(
                    "piece {}: its boundary crosses or touches itself (edges {},{}-{},{} and {},{}-{},{}); give a \
                     simple polygon",
                    piece.name, a.0, a.1, b.0, b.1, c.0, c.1, d.0, d.1
                ));
            }
        }
    }
    if double_area(polygon) == 0 {
        return Err(format!("piece {}: it has no area", piece.name));
    }
    Ok(())
}

fn orient(a: Point, b: Point, c: Point) -> i64 {
    let value = i64::from(b.0 - a.0) * i64::from(c.1 - a.1) - i64::from(b.1 - a.1) * i64::from(c.0 - a.0);
    value.signum()
}

/// Whether `p` lies on the segment from `a` to `b` (closed), `p` collinear with it or not.
fn on_segment_closed(a: Point, b: Point, p: Point) -> bool {
    orient(a, b, p) == 0 && p.0 >= a.0.min(b.0) && p.0 <= a.0.max(b.0) && p.1 >= a.1.min(b.1) && p.1 <= a.1.max(b.1)
}

/// Whether the segment from `shared` to `far` passes over `other` beyond `shared` (a fold back).
fn on_segment(shared: Point, far: Point, other: Point) -> bool {
    other != shared && on_segment_closed(shared, far, other)
}

/// Whether two closed segments have a point in common.
fn segments_meet(a: Point, b: Point, c: Point, d: Point) -> bool {
    let (o1, o2, o3, o4) = (orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b));
    if o1 != o2 && o3 != o4 && o1 != 0 && o2 != 0 && o3 != 0 && o4 != 0 {
        return true;
    }
    on_segment_closed(a, b, c) || on_segment_closed(a, b, d) || on_segment_closed(c, d, a) || on_segment_closed(c, d, b)
}

/// A polygon moved so its bounding box starts at the origin, and that box.
fn normalized(polygon: &[Point]) -> std::result::Result<(Frame, Vec<Point>), String> {
    let min_x = polygon.iter().map(|p| p.0).min().expect("corners");
    let min_y = polygon.iter().map(|p| p.1).min().expect("corners");
    let moved: Vec<Point> = polygon.iter().map(|&(x, y)| (x - min_x, y - min_y)).collect();
    let width = moved.iter().map(|p| p.0).max().expect("corners") as usize;
    let height = moved.iter().map(|p| p.1).max().expect("corners") as usize;
    let frame = Frame::new(width.max(1), height.max(1))
        .ok_or_else(|| format!("a bounding box of {width} x {height} cells is larger than this program handles"))?;
    Ok((frame, moved))
}

impl Kind {
    /// The kind of one checked piece: its orientations under the eight symmetries.
    fn of(piece: &Piece) -> std::result::Result<Kind, String> {
        let mut orientations: Vec<Orientation> = Vec::new();
        let mut symmetry = Vec::new();
        let mut first = None;
        for s in Symmetry::ALL {
            let image: Vec<Point> = piece.polygon.iter().map(|&p| s.apply(p)).collect();
            let (frame, polygon) = normalized(&image).map_err(|e| format!("piece {}: {e}", piece.name))?;
            let region = frame.rasterize(&polygon);
            if s == Symmetry::IDENTITY {
                let area = double_area(&polygon).abs();
                if i64::from(region.len()) != 2 * area || !frame.is_union_of_half_cells(&region) {
                    return Err(format!("piece {}: not a union of elementary triangles on the lattice", piece.name));
                }
                first = Some((frame, region));
            }
            if Some((frame, region)) == first {
                symmetry.push(s);
            }
            if !orientations.iter().any(|o| o.frame == frame && o.region == region) {
                orientations.push(Orientation { frame, region, polygon });
            }
        }
        let area = orientations[0].region.len() as i32 / 2;
        Ok(Kind { name: piece.name.clone(), copies: 1, area, symmetry, orientations })
    }

    /// The symmetry type, named as the subgroup of the square's group it is (with the piece as given).
    pub fn symmetry_type(&self) -> &'static str {
        symmetry_type(&self.symmetry)
    }
}

/// Names the subgroup `group` of the square's symmetries (one of ten).
pub fn symmetry_type(group: &[Symmetry]) -> &'static str {
    let has = |s: u8| group.contains(&Symmetry(s));
    // 1: mirror x (in a vertical line), 2: mirror y, 3: half turn, 4: mirror in y = x,
    // 7: mirror in y = -x, 5 and 6: quarter turns.
    match group.len() {
        8 => "all eight symmetries of the square",
        4 if has(5) => "quarter turns",
        4 if has(1) => "mirror lines along both axes",
        4 => "mirror lines along both diagonals",
        2 if has(3) => "half turn",
        2 if has(1) => "mirror line, vertical",
        2 if has(2) => "mirror line, horizontal",
        2 if has(4) => "mirror line, diagonal y = x",
        2 => "mirror line, diagonal y = -x",
        _ => "none",
    }
}

/// One kind as `leaper tangram pieces` reports it.
#[derive(Clone, Debug, Serialize)]
pub struct KindLine {
    pub name: String,
    pub copies: usize,
    pub area: i32,
    pub symmetry: &'static str,
    pub orientations: usize,
}

impl From<&Kind> for KindLine {
    fn from(kind: &Kind) -> KindLine {
        KindLine {
            name: kind.name.clone(),
            copies: kind.copies,
            area: kind.area,
            symmetry: kind.symmetry_type(),
            orientations: kind.orientations.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classic_pieces_have_the_papers_orientations() {
        let set = PieceSet::classic();
        assert_eq!(set.area(), 16);
        assert_eq!(set.piece_count(), 7);
        let summary: Vec<(String, usize, i32, usize, &str)> = set
            .kinds
            .iter()
            .map(|k| (k.name.clone(), k.copies, k.area, k.orientations.len(), k.symmetry_type()))
            .collect();
        assert_eq!(
            summary,
            [
                ("large-triangle".into(), 2, 4, 4, "mirror line, diagonal y = x"),
                ("medium-triangle".into(), 1, 2, 4, "mirror line, vertical"),
                ("square".into(), 1, 2, 1, "all eight symmetries of the square"),
                ("parallelogram".into(), 1, 2, 4, "half turn"),
                ("small-triangle".into(), 2, 1, 4, "mirror line, diagonal y = x"),
            ]
        );
    }

    #[test]
    fn identical_pieces_are_found_whatever_their_names_and_positions() {
        let set = PieceSet::parse("t", "a 0,0 1,0 0,1\nb 5,5 5,4 4,5 # turned and moved\nc 0,0 2,0 2,1 0,1\n").unwrap();
        assert_eq!(set.kinds.len(), 2);
        assert_eq!(set.kinds[0].copies, 2);
        let l = PieceSet::parse("t", "l 0,0 2,0 2,1 1,1 1,2 0,2").unwrap();
        assert_eq!(l.kinds[0].area, 6);
        assert_eq!(l.kinds[0].orientations.len(), 4, "an L of three cells: mirror line y = x");
        let s = PieceSet::parse("t", "s 0,0 2,0 2,1 3,1 3,2 1,2 1,1 0,1").unwrap();
        assert_eq!(s.kinds[0].symmetry_type(), "half turn");
        assert_eq!(s.kinds[0].orientations.len(), 4);
    }

    #[test]
    fn bad_pieces_are_refused_with_their_line() {
        let cases = [
            ("a 0,0 1,0 0,1\nb 0,0 2,0 0,2 2,2\n", "t:2: piece b: its boundary crosses or touches itself"),
            ("a 0,0 1,0 0.5,1\n", "t:1: \"0.5,1\" is off the lattice"),
            ("a 0,0 2,0 0,1\n", "t:1: piece a: the edge from 2,0 to 0,1 runs neither along the grid nor at 45"),
            ("a 0,0 1,0\n", "t:1: piece a: a polygon needs at least three corners"),
            ("a 0,0 1,0 2,0 3,0\n", "t:1: piece a: its corners lie on one line"),
            ("a 0,0 1e0,0 1,1\n", "t:1: \"1e0,0\" is not a point x,y of whole numbers"),
            ("a 0,0 300,0 300,1 0,1\n", "t:1: piece a: its bounding box of 300 x 1 cells"),
            ("a 0,0 2,0 1,0 1,1\n", "t:1: piece a: its boundary crosses or touches itself"),
            ("0,0 1,0 1,1\n", "t:1: a piece line starts with its name"),
            ("a 0,0 x,0 1,1\n", "t:1: \"x,0\" is not a point"),
            ("# nothing\n", "t: no pieces"),
            ("a 0,0 2,0 2,2 1,1 0,2 1,1\n", "t:1: piece a: its boundary crosses or touches itself"),
        ];
        for (text, expected) in cases {
            let error = PieceSet::parse("t", text).unwrap_err().to_string();
            assert!(error.starts_with(expected), "{text:?}: {error}");
        }
    }
}
