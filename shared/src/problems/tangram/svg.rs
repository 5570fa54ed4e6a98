//! Drawing the dissections as the paper's plotter did (its Figure 8): grouped by outline, one
//! small figure per dissection, the pieces' edges in thin lines and the outline doubled; on
//! white, each piece in a colour of its own (the same in every figure), as the tour's drawing
//! colours its squares.

use std::fmt::Write;

use super::lattice::Point;
use super::outline::Outline;
use super::pieces::PieceSet;
use super::solve::OutlineSearch;
use crate::{Error, Result};

/// The most dissections one drawing holds (the tangram has 142).
pub const MAX_DRAWN: u128 = 5000;
/// Pixels per lattice unit.
const SCALE: i32 = 14;
/// Space around and between figures, in pixels.
const GAP: i32 = 16;
/// Figures per row.
const PER_ROW: usize = 8;
/// Height of a group's caption.
const CAPTION: i32 = 22;
/// The pieces' fills, one a piece in the piece set's order (light, so that the black edges
/// show; a set of more pieces takes them again).
const PIECE_FILLS: [&str; 10] =
    ["#a6cee3", "#fdbf6f", "#b2df8a", "#fb9a99", "#cab2d6", "#ffff99", "#8dd3c7", "#d9d9d9", "#f4a6d7", "#c7e9c0"];

/// One outline's dissections, each as its pieces' boundaries (outline coordinates).
pub struct Group {
    pub outline: Outline,
    pub dissections: Vec<Vec<Vec<Point>>>,
}

/// Refuses a drawing of more than [`MAX_DRAWN`] dissections, with the count.
pub fn check_drawable(total: u128) -> Result<()> {
    if total > MAX_DRAWN {
        return Err(Error::InvalidRequest(format!(
            "{total} dissections, more than the {MAX_DRAWN} one drawing holds: the counts above are complete, \
             the drawing was not made"
        )));
    }
    Ok(())
}

/// Every dissection of every outline that has one, as boundaries.
pub fn groups(pieces: &PieceSet, outlines: &[Outline]) -> Result<Vec<Group>> {
    let mut groups = Vec::new();
    for &outline in outlines {
        let search = OutlineSearch::new(pieces, outline)?;
        let mut dissections = Vec::new();
        search.search(None, &mut |numbers| {
            let boundaries = numbers
                .iter()
                .zip(search.kinds())
                .map(|(&number, &kind)| {
                    let placement = search.placement(kind, number);
                    let (dx, dy) = placement.offset;
                    pieces.kinds[kind].orientations[placement.orientation]
                        .polygon
                        .iter()
                        .map(|&(x, y)| (x + dx, y + dy))
                        .collect()
                })
                .collect();
            dissections.push(boundaries);
        });
        if !dissections.is_empty() {
            groups.push(Group { outline, dissections });
        }
    }
    Ok(groups)
}

/// The SVG text of `groups`.
pub fn render(groups: &[Group]) -> String {
    let cell_width = groups.iter().map(|g| g.outline.s2).max().unwrap_or(1) * SCALE + GAP;
    let width = GAP + PER_ROW as i32 * cell_width;
    let mut body = String::new();
    let mut top = GAP;
    for group in groups {
        let count = group.dissections.len();
        let caption = format!(
            "{} sides {}: {count} dissection{}",
            group.outline.label(),
            group.outline.sides(),
            if count == 1 { "" } else { "s" }
        );
        let _ = writeln!(body, r#"<text x="{GAP}" y="{}" font-size="13">{caption}</text>"#, top + 14);
        top += CAPTION;
        let height = group.outline.s4 * SCALE;
        for (index, pieces) in group.dissections.iter().enumerate() {
            let left = GAP + (index % PER_ROW) as i32 * cell_width;
            let row_top = top + (index / PER_ROW) as i32 * (height + GAP);
            // SVG's y axis points down: the figure is flipped into place.
            let at = |(x, y): Point| format!("{},{}", left + x * SCALE, row_top + height - y * SCALE);
            let path = |points: &[Point]| points.iter().map(|&p| at(p)).collect::<Vec<_>>().join(" ");
            let outline = path(&group.outline.polygon());
            let _ = writeln!(body, r#"<polygon points="{outline}" fill="none" stroke="black" stroke-width="4"/>"#);
            let _ = writeln!(body, r#"<polygon points="{outline}" fill="white" stroke="white" stroke-width="1.5"/>"#);
            // A dissection lists its pieces in the set's order, copies of a kind together.
            for (number, piece) in pieces.iter().enumerate() {
                let _ = writeln!(
                    body,
                    r#"<polygon points="{}" fill="{}" stroke="black" stroke-width="1"/>"#,
                    path(piece),
                    PIECE_FILLS[number % PIECE_FILLS.len()]
                );
            }
        }
        let rows = count.div_ceil(PER_ROW) as i32;
        top += rows * (height + GAP);
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{top}\" viewBox=\"0 0 {width} {top}\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{body}</svg>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::super::outline::outlines;
    use super::*;

    #[test]
    fn every_dissection_is_drawn_once_with_its_pieces() {
        let pieces = PieceSet::classic();
        let groups = groups(&pieces, &outlines(16).unwrap()).unwrap();
        assert_eq!(groups.len(), 13);
        assert_eq!(groups.iter().map(|g| g.dissections.len()).sum::<usize>(), 142);
        let svg = render(&groups);
        // Two polygons per outline drawing (the double line), seven pieces each.
        assert_eq!(svg.matches("<polygon").count(), 142 * (2 + 7));
        assert_eq!(svg.matches("<text").count(), 13);
        assert!(svg.contains("(5,2,2,0,0,0) sides 3, 2, 5, 2\u{221a}2: 36 dissections"), "{svg}");
        // Each of the seven pieces in a fill of its own, in every figure.
        for fill in &PIECE_FILLS[..7] {
            assert_eq!(svg.matches(&format!(r#"fill="{fill}""#)).count(), 142, "{fill}");
        }
        assert!(check_drawable(MAX_DRAWN + 1).is_err());
    }
}
