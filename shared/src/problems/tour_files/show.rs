//! One tour drawn for a person: as a text diagram of move numbers, or as Phadke's "pictorial
//! representation", an SVG picture of the knight's path from square centre to square centre,
//! each square numbered, with a legend saying where the tour starts and ends.
//!
//! Both are oriented as a chess diagram: row 0 of the [`TourBoard`] (the highest rank) at the
//! top, rank 1 at the bottom, file `a` at the left. The text of the 5x5 tour from a5 through c4,
//! e5, d3, ... to c3:
//!
//! ```text
//! 5  1 14  9 20  3
//! 4 24 19  2 15 10
//! 3 13  8 25  4 21
//! 2 18 23  6 11 16
//! 1  7 12 17 22  5
//!    a  b  c  d  e
//! open tour from a5 to c3
//! ```

use std::fmt::Write;

use super::board::{Square, TourBoard};
use super::tour::Tour;

/// Pixels per square.
const SQUARE: usize = 40;
/// The margin around the board, where the file letters and rank numbers go.
const MARGIN: usize = 20;
/// The colours of the light and dark squares (a1 is dark, as on a chess board).
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
/// Move numbers: a white disc under each, so that it reads over the lines through the centre.
/// Three digits (676 squares on 26x26) at about 0.56 em each take 20 px of the disc's 24.
const NUMBER_FONT: usize = SQUARE * 3 / 10;
const DISC: usize = SQUARE * 3 / 10;
/// The rings around the first square (green) and an open tour's last (red), outside the disc.
const RING: usize = SQUARE * 2 / 5;
const START: &str = "#2e7d32";
const END: &str = "#c62828";
/// The legend under the board: its font size, line height, and a generous width of one
/// character, so that the picture is made wide enough for the longest line.
const LEGEND_FONT: usize = 12;
const LEGEND_LINE: usize = 16;
const LEGEND_CHAR: usize = 7;

/// The tour as text: the board with each square's move number (1-based, right-aligned in a
/// column width fitting the largest number), rank 1 at the bottom as a chess diagram would be
/// printed, rows top to bottom as in [`TourBoard`] (row 0 is the top = highest rank), with file
/// letters under the board and rank numbers at the left. Then a line saying "closed tour" or
/// "open tour from a1 to h8". A square the tour misses shows as `.`, so that a broken tour can
/// still be looked at.
pub fn text(board: &TourBoard, tour: &Tour) -> String {
    let numbers = move_numbers(board, tour);
    let width = digits(tour.squares.len().max(1));
    let rank_width = digits(board.rows());
    let mut out = String::new();
    for row in 0..board.rows() {
        let _ = write!(out, "{:>rank_width$}", board.rows() - row);
        for col in 0..board.cols() {
            let cell = numbers[board.at(row, col) as usize].map_or_else(|| ".".to_string(), |n| n.to_string());
            let _ = write!(out, " {cell:>width$}");
        }
        out.push('\n');
    }
    out.push_str(&" ".repeat(rank_width));
    for col in 0..board.cols() {
        let _ = write!(out, " {:>width$}", file_letter(col));
    }
    out.push('\n');
    out.push_str(&summary(board, tour));
    out.push('\n');
    out
}

/// The tour as an SVG picture: a checkered board, a line from the centre of each square to the
/// next (and back to the start for a closed tour), Phadke's "pictorial representation", with
/// each square's move number at its centre. For an open tour the fictitious closing connection
/// is drawn dashed, so that the picture shows the same connections as Phadke's connectivity
/// form; a legend under the board says so, and where the numbering starts and ends (the first
/// square ringed green, an open tour's last red). Squares of 40 px; a title naming the board.
pub fn svg(board: &TourBoard, tour: &Tour) -> String {
    let legend = legend(board, tour);
    let longest = legend.iter().map(String::len).max().unwrap_or(0);
    let width = (2 * MARGIN + board.cols() * SQUARE).max(MARGIN + longest * LEGEND_CHAR);
    let below = 2 * MARGIN + board.rows() * SQUARE;
    let height = below + legend.len() * LEGEND_LINE + MARGIN / 2;
    let mut body = String::new();
    squares(board, &mut body);
    labels(board, &mut body);
    path(board, tour, &mut body);
    rings(board, tour, &mut body);
    numbers(board, tour, &mut body);
    legend_text(&legend, below, &mut body);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} \
         {height}\">\n<title>Knight's {} of the {} board</title>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{body}</svg>\n",
        summary(board, tour),
        board.size()
    )
}

/// The legend's lines: what kind of tour, that the numbers are the visiting order, where it
/// starts and ends (a closed tour: that it returns to 1), and what the dashed line is.
fn legend(board: &TourBoard, tour: &Tour) -> Vec<String> {
    let (Some(&first), Some(&last)) = (tour.squares.first(), tour.squares.last()) else {
        return vec!["Empty tour.".to_string()];
    };
    let count = tour.squares.len();
    let start = format!("Starts at 1 on {} (green ring).", name(board, first));
    if tour.closed {
        return vec![
            "Closed tour: squares numbered in visiting order.".to_string(),
            start,
            format!("After {count} the knight moves back to 1."),
        ];
    }
    let mut lines = vec!["Open tour: squares numbered in visiting order.".to_string(), start];
    if first != last {
        lines.push(format!("Ends at {count} on {} (red ring).", name(board, last)));
        lines.push("Dashed line: end back to start, not a move.".to_string());
    }
    lines
}

/// "closed tour", or "open tour from a1 to h8": what kind of tour, and where an open one runs.
fn summary(board: &TourBoard, tour: &Tour) -> String {
    match (tour.closed, tour.squares.first(), tour.squares.last()) {
        (true, _, _) => "closed tour".to_string(),
        (false, Some(&first), Some(&last)) => {
            format!("open tour from {} to {}", name(board, first), name(board, last))
        }
        (false, _, _) => "empty tour".to_string(),
    }
}

/// Each square's move number, 1-based, if the tour visits it. Squares off the board are
/// skipped: a drawing is no place to reject a tour.
fn move_numbers(board: &TourBoard, tour: &Tour) -> Vec<Option<usize>> {
    let mut numbers = vec![None; board.squares()];
    for (index, &square) in tour.squares.iter().enumerate() {
        if let Some(number) = numbers.get_mut(square as usize) {
            *number = Some(index + 1);
        }
    }
    numbers
}

/// A square's algebraic name, or its number if it is off the board.
fn name(board: &TourBoard, square: Square) -> String {
    if (square as usize) < board.squares() {
        board.name(square)
    } else {
        format!("#{square}")
    }
}

fn digits(n: usize) -> usize {
    n.to_string().len()
}

fn file_letter(col: usize) -> char {
    (b'a' + col as u8) as char
}

/// The pixel centre of a square.
fn centre(board: &TourBoard, square: Square) -> (usize, usize) {
    let (row, col) = board.coordinates(square);
    (MARGIN + col * SQUARE + SQUARE / 2, MARGIN + row * SQUARE + SQUARE / 2)
}

/// The checkered board. A square is dark when its file number and rank add up to an odd number
/// (a1: file 0, rank 1), as on a chess board.
fn squares(board: &TourBoard, body: &mut String) {
    body.push_str("<g stroke=\"none\">\n");
    for row in 0..board.rows() {
        for col in 0..board.cols() {
            let rank = board.rows() - row;
            let fill = if (col + rank) % 2 == 1 { DARK } else { LIGHT };
            let (x, y) = (MARGIN + col * SQUARE, MARGIN + row * SQUARE);
            let _ = writeln!(body, r#"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{fill}"/>"#);
        }
    }
    body.push_str("</g>\n");
}

/// File letters under the board, rank numbers at its left, as in [`text`].
fn labels(board: &TourBoard, body: &mut String) {
    body.push_str("<g font-family=\"sans-serif\" font-size=\"12\" text-anchor=\"middle\" fill=\"black\">\n");
    let below = MARGIN + board.rows() * SQUARE + 14;
    for col in 0..board.cols() {
        let x = MARGIN + col * SQUARE + SQUARE / 2;
        let _ = writeln!(body, r#"<text x="{x}" y="{below}">{}</text>"#, file_letter(col));
    }
    for row in 0..board.rows() {
        let y = MARGIN + row * SQUARE + SQUARE / 2 + 4;
        let _ = writeln!(body, r#"<text x="{}" y="{y}">{}</text>"#, MARGIN / 2, board.rows() - row);
    }
    body.push_str("</g>\n");
}

/// The squares a drawing can place, in visiting order: those off the board are skipped.
fn on_board(board: &TourBoard, tour: &Tour) -> Vec<Square> {
    tour.squares.iter().copied().filter(|&s| (s as usize) < board.squares()).collect()
}

/// The knight's path: one line per move, the closing one included for a closed tour; for an
/// open tour the dashed fictitious closing connection.
fn path(board: &TourBoard, tour: &Tour, body: &mut String) {
    let on_board = on_board(board, tour);
    let back = tour.closed.then(|| (on_board.last().copied(), on_board.first().copied()));
    let mut moves: Vec<(Square, Square)> = on_board.windows(2).map(|pair| (pair[0], pair[1])).collect();
    if let Some((Some(last), Some(first))) = back {
        moves.push((last, first));
    }
    body.push_str("<g stroke=\"#1a1a1a\" stroke-width=\"2\" stroke-linecap=\"round\">\n");
    for (from, to) in moves {
        line(board, from, to, r#"class="move""#, body);
    }
    if let (false, Some(&first), Some(&last)) = (tour.closed, on_board.first(), on_board.last()) {
        if first != last {
            line(board, last, first, r#"class="closing" stroke-dasharray="5 5""#, body);
        }
    }
    body.push_str("</g>\n");
}

/// A green ring around the first square; for an open tour a red one around the last.
fn rings(board: &TourBoard, tour: &Tour, body: &mut String) {
    let on_board = on_board(board, tour);
    let last = (!tour.closed).then(|| on_board.last()).flatten();
    let marked = [("start", START, on_board.first()), ("end", END, last)];
    body.push_str("<g fill=\"none\" stroke-width=\"3\">\n");
    for (class, colour, square) in marked {
        if let Some(&square) = square {
            let (x, y) = centre(board, square);
            let _ = writeln!(body, r#"<circle class="{class}" cx="{x}" cy="{y}" r="{RING}" stroke="{colour}"/>"#);
        }
    }
    body.push_str("</g>\n");
}

/// Each square's move number (1-based, as in [`text`]) centred on it, over a white disc. The
/// text's `x` and `y` are the square's centre; `dy` lowers the baseline by half a digit.
fn numbers(board: &TourBoard, tour: &Tour, body: &mut String) {
    let _ =
        writeln!(body, r#"<g font-family="sans-serif" font-size="{NUMBER_FONT}" text-anchor="middle" fill="black">"#);
    for (index, &square) in tour.squares.iter().enumerate() {
        if (square as usize) < board.squares() {
            let (x, y) = centre(board, square);
            let _ = writeln!(body, r#"<circle cx="{x}" cy="{y}" r="{DISC}" fill="white" stroke="none"/>"#);
            let _ = writeln!(body, r#"<text class="number" x="{x}" y="{y}" dy="0.35em">{}</text>"#, index + 1);
        }
    }
    body.push_str("</g>\n");
}

/// The legend's lines, left-aligned under the file letters from `top`.
fn legend_text(lines: &[String], top: usize, body: &mut String) {
    let _ = writeln!(body, r#"<g class="legend" font-family="sans-serif" font-size="{LEGEND_FONT}" fill="black">"#);
    for (index, text) in lines.iter().enumerate() {
        let y = top + (index + 1) * LEGEND_LINE;
        let _ = writeln!(body, r#"<text x="{}" y="{y}">{text}</text>"#, MARGIN / 2);
    }
    body.push_str("</g>\n");
}

/// One line between two square centres, with the given attributes first.
fn line(board: &TourBoard, from: Square, to: Square, attributes: &str, body: &mut String) {
    let ((x1, y1), (x2, y2)) = (centre(board, from), centre(board, to));
    let _ = writeln!(body, r#"<line {attributes} x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>"#);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 5x5 open tour of the module's example, by algebraic names in visiting order.
    const TOUR_5X5: [&str; 25] = [
        "a5", "c4", "e5", "d3", "e1", "c2", "a1", "b3", "c5", "e4", "d2", "b1", "a3", "b5", "d4", "e2", "c1", "a2",
        "b4", "d5", "e3", "d1", "b2", "a4", "c3",
    ];

    fn board_of(size: &str) -> TourBoard {
        TourBoard::new(size.parse().unwrap()).unwrap()
    }

    fn open_5x5(board: &TourBoard) -> Tour {
        let squares = TOUR_5X5.iter().map(|name| board.parse_name(name).unwrap()).collect();
        let tour = Tour { squares, closed: false };
        tour.check(board).unwrap();
        tour
    }

    /// A closed 6x6 tour: the first closed tour the rule finds for seed 0.
    fn closed_6x6(board: &TourBoard) -> Tour {
        use super::super::warnsdorff::{TieBreak, Warnsdorff};
        let rule = Warnsdorff { board, tie_break: TieBreak::Random, closed: true, start: None, seed: 0 };
        let tour = (0..100_000).find_map(|index| rule.attempt(index)).unwrap();
        tour.check(board).unwrap();
        tour
    }

    /// Checks that every tag is closed, in order: `<name ...>` opens, `</name>` closes the last
    /// one open, `<name .../>` does both. Returns the elements seen.
    fn balanced(svg: &str) -> Result<usize, String> {
        let mut open: Vec<&str> = Vec::new();
        let mut elements = 0;
        let mut rest = svg;
        while let Some(at) = rest.find('<') {
            let end = rest[at..].find('>').ok_or("a tag is not closed")? + at;
            let tag = &rest[at + 1..end];
            if tag.contains('<') {
                return Err(format!("a tag inside a tag: {tag:?}"));
            }
            let text = &rest[..at];
            if text.contains('>') || text.contains('&') {
                return Err(format!("unescaped text {text:?}"));
            }
            let name = |t: &str| t.split_whitespace().next().unwrap_or("").trim_end_matches('/').to_string();
            if let Some(closing) = tag.strip_prefix('/') {
                match open.pop() {
                    Some(last) if name(last) == closing => {}
                    other => return Err(format!("</{closing}> closes {other:?}")),
                }
            } else if tag.ends_with('/') {
                elements += 1;
            } else {
                open.push(tag);
                elements += 1;
            }
            if !tag.matches('"').count().is_multiple_of(2) {
                return Err(format!("unbalanced quotes in {tag:?}"));
            }
            rest = &rest[end + 1..];
        }
        if !open.is_empty() {
            return Err(format!("unclosed: {open:?}"));
        }
        Ok(elements)
    }

    #[test]
    fn text_of_an_open_5x5_tour() {
        let board = board_of("5x5");
        let expected = "\
5  1 14  9 20  3
4 24 19  2 15 10
3 13  8 25  4 21
2 18 23  6 11 16
1  7 12 17 22  5
   a  b  c  d  e
open tour from a5 to c3
";
        assert_eq!(text(&board, &open_5x5(&board)), expected);
    }

    #[test]
    fn text_of_a_closed_tour_and_wide_boards() {
        let board = board_of("6x6");
        let closed = text(&board, &closed_6x6(&board));
        assert!(closed.ends_with("   a  b  c  d  e  f\nclosed tour\n"), "{closed}");
        assert_eq!(closed.lines().count(), 6 + 2);
        // Two-digit ranks get a two-character column; one-digit move numbers on a 10x1 board.
        let board = board_of("1x10");
        let tour = Tour { squares: vec![0], closed: false };
        let tall = text(&board, &tour);
        assert!(tall.starts_with("10 1\n 9 .\n"), "{tall}");
        assert!(tall.ends_with("\n   a\nopen tour from a10 to a10\n"), "{tall}");
    }

    #[test]
    fn svg_draws_one_line_per_move() {
        let board = board_of("5x5");
        let open = svg(&board, &open_5x5(&board));
        balanced(&open).unwrap();
        assert_eq!(open.matches(r#"<line class="move""#).count(), 24);
        assert_eq!(open.matches("<line").count(), 24 + 1, "and the dashed closing connection");
        assert_eq!(open.matches("stroke-dasharray").count(), 1);
        assert_eq!(open.matches("<circle").count(), 2 + 25, "two rings and a disc under every number");
        assert_eq!(open.matches("<rect").count(), 1 + 25);
        assert_eq!(open.matches("<title>").count(), 1);
        assert!(open.contains("<title>Knight's open tour from a5 to c3 of the 5x5 board</title>"), "{open}");
        // The first move, a5 to c4: from the centre of the top left square down one and right two.
        assert!(open.contains(r#"<line class="move" x1="40" y1="40" x2="120" y2="80"/>"#), "{open}");
        // The closing connection, from c3 (the centre square) back to a5.
        assert!(open.contains(r#"<line class="closing" stroke-dasharray="5 5" x1="120" y1="120" x2="40" y2="40"/>"#));

        let board = board_of("6x6");
        let closed = svg(&board, &closed_6x6(&board));
        balanced(&closed).unwrap();
        assert_eq!(closed.matches(r#"<line class="move""#).count(), 36, "the move back to the start included");
        assert_eq!(closed.matches("<line").count(), 36);
        assert_eq!(closed.matches(r#"<circle class="#).count(), 1, "the start ringed, no end");
        assert!(closed.contains("<title>Knight's closed tour of the 6x6 board</title>"));
    }

    #[test]
    fn svg_numbers_the_moves_and_explains_the_ends() {
        let board = board_of("5x5");
        let open = svg(&board, &open_5x5(&board));
        assert_eq!(open.matches(r#"<text class="number""#).count(), 25);
        // 1 on a5, the top left square; 25 on c3, the centre.
        assert!(open.contains(r#"<text class="number" x="40" y="40" dy="0.35em">1</text>"#), "{open}");
        assert!(open.contains(r#"<text class="number" x="120" y="120" dy="0.35em">25</text>"#), "{open}");
        assert!(open.contains(r##"<circle class="start" cx="40" cy="40" r="16" stroke="#2e7d32"/>"##), "{open}");
        assert!(open.contains(r##"<circle class="end" cx="120" cy="120" r="16" stroke="#c62828"/>"##), "{open}");
        let legend = [
            "Open tour: squares numbered in visiting order.",
            "Starts at 1 on a5 (green ring).",
            "Ends at 25 on c3 (red ring).",
            "Dashed line: end back to start, not a move.",
        ];
        for line in legend {
            assert!(open.contains(&format!(">{line}</text>")), "{line} in {open}");
        }
        // The picture is wide enough for the longest line at 7 px a character.
        assert!(open.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="342" height="314""#), "{open}");

        let board = board_of("6x6");
        let closed = svg(&board, &closed_6x6(&board));
        assert_eq!(closed.matches(r#"<text class="number""#).count(), 36);
        assert!(closed.contains(">Closed tour: squares numbered in visiting order.</text>"), "{closed}");
        assert!(closed.contains(">After 36 the knight moves back to 1.</text>"), "{closed}");
        assert!(!closed.contains("Dashed"), "{closed}");

        // A 26x26 board: three-digit numbers in the same 40 px squares, the same font.
        let board = board_of("26x26");
        let squares = (0..board.squares() as Square).collect();
        let big = svg(&board, &Tour { squares, closed: false });
        balanced(&big).unwrap();
        assert_eq!(big.matches(r#"<text class="number""#).count(), 676);
        assert!(big.contains(r#"<text class="number" x="1040" y="1040" dy="0.35em">676</text>"#));
        assert!(big.contains(r#"<g font-family="sans-serif" font-size="12" text-anchor="middle" fill="black">"#));
    }

    #[test]
    fn the_balance_check_catches_broken_markup() {
        assert!(balanced("<svg><g></svg></g>").is_err());
        assert!(balanced("<svg><g>").is_err());
        assert!(balanced("<svg><line x=\"1/></svg>").is_err());
        assert_eq!(balanced("<svg><g><line/></g></svg>"), Ok(3));
    }
}
