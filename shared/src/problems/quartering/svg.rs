//! Drawing every dissection of a board (as the 1973 magazine cover drew the 37 of the 6x6
//! board): one small board per dissection, its grid in grey and its cuts in black, the
//! rotational class first, then the halved one, on white (as the tour's and the tangram's
//! drawings are), under a title that counts the classes drawn.
//!
//! A traced path (border point to centre, see [`enumerate`](super::enumerate)) becomes the
//! whole cut: for class (a) the path and its three quarter turns; for class (b) the path and its
//! half turn in the upper rectangle (with the centre edge between them when `n` is odd), the
//! centre line, and the same cut again in the lower rectangle.

use std::fmt::Write;

use super::enumerate::{Point, Rule};
use super::shards::Enumeration;
use super::Class;
use crate::{Error, Result};

/// The most dissections one drawing holds (the 8x8 board has 766).
pub const MAX_DRAWN: u64 = 1000;

/// A cut segment between two lattice points.
type Segment = (Point, Point);

/// Every dissection of the `2n x 2n` board in `classes`, as its cut segments.
pub fn dissections(n: usize, classes: &[Class]) -> Result<Vec<(Class, Vec<Segment>)>> {
    let job = Enumeration::new(n, classes, Rule::Accepted)?;
    let n = n as i32;
    let mut all = Vec::new();
    job.for_each_path(&mut |start, points| {
        let arm: Vec<Segment> = points.windows(2).map(|w| (w[0], w[1])).collect();
        let mut cut = Vec::new();
        match start.class {
            Class::Rotational => {
                for turn in 0..4 {
                    let rotate = |(x, y): Point| {
                        let (mut dx, mut dy) = (x - n, y - n);
                        for _ in 0..turn {
                            (dx, dy) = (-dy, dx);
                        }
                        (n + dx, n + dy)
                    };
                    cut.extend(arm.iter().map(|&(a, b)| (rotate(a), rotate(b))));
                }
            }
            Class::Halved => {
                let half_turn = |(x, y): Point| (2 * n - x, n - y);
                let mut upper: Vec<Segment> = arm.clone();
                upper.extend(arm.iter().map(|&(a, b)| (half_turn(a), half_turn(b))));
                if n % 2 == 1 {
                    upper.push(((n, (n - 1) / 2), (n, (n + 1) / 2)));
                }
                let lower = upper.iter().map(|&((ax, ay), (bx, by))| ((ax, ay + n), (bx, by + n)));
                cut.extend(lower.collect::<Vec<_>>());
                cut.extend(upper);
                cut.extend((0..2 * n).map(|x| ((x, n), (x + 1, n))));
            }
        }
        all.push((start.class, cut));
    });
    Ok(all)
}

/// The drawing's title: `8x8: 766 dissections (596 rotational, 170 halved)`, or with one class
/// drawn (`--class halved`), `8x8: 170 halved dissections`.
fn title(side: usize, classes: &[Class], dissections: &[(Class, Vec<Segment>)]) -> String {
    let noun = |count: usize| if count == 1 { "dissection" } else { "dissections" };
    let of = |class: Class| dissections.iter().filter(|(c, _)| *c == class).count();
    match classes {
        [class] => format!("{side}x{side}: {} {} {}", of(*class), class.name(), noun(of(*class))),
        _ => {
            let parts: Vec<String> = classes.iter().map(|&class| format!("{} {}", of(class), class.name())).collect();
            format!("{side}x{side}: {} {} ({})", dissections.len(), noun(dissections.len()), parts.join(", "))
        }
    }
}

/// The drawing of `dissections` (of `classes`) of the `side x side` board, as an SVG document.
pub fn render(side: usize, classes: &[Class], dissections: &[(Class, Vec<Segment>)]) -> String {
    const UNIT: usize = 10;
    const GAP: usize = 14;
    let board = side * UNIT;
    let columns = (dissections.len() as f64).sqrt().ceil().max(1.0) as usize;
    let rows = dissections.len().div_ceil(columns).max(1);
    let (width, height) = (columns * (board + GAP) + GAP, rows * (board + GAP) + GAP + 20);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    );
    // Without a background, a viewer's dark theme shows black cuts on black.
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{GAP}" y="16" font-family="sans-serif" font-size="12">{}</text>"#,
        title(side, classes, dissections)
    );
    for (i, (class, cut)) in dissections.iter().enumerate() {
        let (x0, y0) = (GAP + (i % columns) * (board + GAP), 20 + GAP + (i / columns) * (board + GAP));
        let _ = writeln!(svg, r#"<g transform="translate({x0},{y0})" class="{}">"#, class.name());
        for k in 1..side {
            let at = k * UNIT;
            let _ = writeln!(svg, r##"<path d="M{at} 0V{board}M0 {at}H{board}" stroke="#ccc" stroke-width="0.5"/>"##);
        }
        let _ =
            writeln!(svg, r#"<rect width="{board}" height="{board}" fill="none" stroke="black" stroke-width="2"/>"#);
        let mut d = String::new();
        for &((ax, ay), (bx, by)) in cut {
            let _ = write!(
                d,
                "M{} {}L{} {}",
                ax as usize * UNIT,
                ay as usize * UNIT,
                bx as usize * UNIT,
                by as usize * UNIT
            );
        }
        let _ = writeln!(svg, r#"<path d="{d}" stroke="black" stroke-width="2" stroke-linecap="round"/>"#);
        let _ = writeln!(svg, "</g>");
    }
    svg.push_str("</svg>\n");
    svg
}

/// Refuses a drawing of more than [`MAX_DRAWN`] dissections, naming the count.
pub fn check_drawable(side: usize, count: &rug::Integer) -> Result<()> {
    if *count > MAX_DRAWN {
        return Err(Error::InvalidRequest(format!(
            "the {side}x{side} board has {count} dissections, more than the {MAX_DRAWN} one drawing holds; \
             draw a smaller board"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_drawn_cut_splits_the_board_into_four_pieces_of_n_squared_cells() {
        for (n, count) in [(2usize, 5usize), (3, 37), (4, 766)] {
            let all = dissections(n, &Class::BOTH).unwrap();
            assert_eq!(all.len(), count);
            for (class, cut) in &all {
                assert_eq!(pieces(2 * n as i32, cut), vec![n * n; 4], "{class:?} {cut:?}");
            }
        }
        let all = dissections(3, &Class::BOTH).unwrap();
        let svg = render(6, &Class::BOTH, &all);
        assert_eq!(svg.matches("<g ").count(), 37);
        assert!(
            svg.contains(">6x6: 37 dissections (")
                && svg.contains(r#"<rect width="100%" height="100%" fill="white"/>"#)
        );
        let halved = dissections(3, &[Class::Halved]).unwrap();
        let title = format!(">6x6: {} halved dissections<", halved.len());
        assert!(render(6, &[Class::Halved], &halved).contains(&title), "{title}");
    }

    /// The sizes of the regions the cut leaves, by flood fill across uncut edges.
    fn pieces(side: i32, cut: &[Segment]) -> Vec<usize> {
        let cut: std::collections::HashSet<Segment> = cut.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        let mut seen = vec![false; (side * side) as usize];
        let mut sizes = Vec::new();
        for first in 0..side * side {
            if seen[first as usize] {
                continue;
            }
            let (mut stack, mut size) = (vec![first], 0);
            seen[first as usize] = true;
            while let Some(cell) = stack.pop() {
                size += 1;
                let (x, y) = (cell % side, cell / side);
                // The edge between a cell and its neighbour, as lattice points.
                let moves = [
                    ((1, 0), ((x + 1, y), (x + 1, y + 1))),
                    ((-1, 0), ((x, y), (x, y + 1))),
                    ((0, 1), ((x, y + 1), (x + 1, y + 1))),
                    ((0, -1), ((x, y), (x + 1, y))),
                ];
                for ((dx, dy), edge) in moves {
                    let (nx, ny) = (x + dx, y + dy);
                    if (0..side).contains(&nx) && (0..side).contains(&ny) && !cut.contains(&edge) {
                        let next = ny * side + nx;
                        if !seen[next as usize] {
                            seen[next as usize] = true;
                            stack.push(next);
                        }
                    }
                }
            }
            sizes.push(size);
        }
        sizes.sort();
        sizes
    }
}
