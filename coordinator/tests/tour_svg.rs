//! `leaper tours show --svg`: every square carries its move number at its centre, checked against
//! the tour's move list; an open tour's legend names its ends and the dashed closing connection,
//! which joins them and nothing else; a closed tour's legend says where it starts and that it
//! returns there; the picture is well-formed and holds everything it draws, up to 26x26.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

mod common;

use common::{path, run, scratch_dir};

/// The drawing's geometry: squares of 40 px inside a 20 px margin.
const SQUARE: i64 = 40;
const MARGIN: i64 = 20;

/// One element of the picture: its name, attributes, text, and the class of the nearest
/// enclosing element that has one.
#[derive(Debug)]
struct Element {
    name: String,
    attributes: BTreeMap<String, String>,
    text: String,
    inside: Option<String>,
}

impl Element {
    fn get(&self, attribute: &str) -> Option<&str> {
        self.attributes.get(attribute).map(String::as_str)
    }

    fn number(&self, attribute: &str) -> i64 {
        let value = self.get(attribute).unwrap_or_else(|| panic!("{attribute} of {self:?}"));
        value.parse().unwrap_or_else(|_| panic!("{attribute}={value:?} of {self:?}"))
    }

    fn class(&self) -> Option<&str> {
        self.get("class")
    }
}

/// The attributes of a tag's inside after its name: `key="value"` pairs, each key once.
fn attributes(mut rest: &str, tag: &str) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return found;
        }
        let (key, after) = rest.split_once("=\"").unwrap_or_else(|| panic!("not key=\"value\" in <{tag}>"));
        let (value, after) = after.split_once('"').unwrap_or_else(|| panic!("an open quote in <{tag}>"));
        assert!(!key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b':'));
        assert!(!value.contains(['<', '&']), "{key}={value:?} in <{tag}>");
        assert!(found.insert(key.to_string(), value.to_string()).is_none(), "{key} twice in <{tag}>");
        assert!(after.is_empty() || after.starts_with(char::is_whitespace), "no space after {key} in <{tag}>");
        rest = after;
    }
}

/// The picture's elements in document order, checking on the way that it is well-formed: one
/// `svg` root, every tag closed in order, attributes quoted, no stray `<`, `>` or `&` in text.
fn elements(svg: &str) -> Vec<Element> {
    assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"), "{svg}");
    let mut all: Vec<Element> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find('<') {
        let text = &rest[..at];
        assert!(!text.contains(['>', '&']), "unescaped text {text:?}");
        match open.last() {
            Some(&index) => all[index].text.push_str(text),
            None => assert!(text.trim().is_empty(), "text outside the root: {text:?}"),
        }
        let end = at + rest[at..].find('>').expect("a tag is closed");
        let tag = &rest[at + 1..end];
        assert!(!tag.contains('<'), "a tag inside a tag: {tag:?}");
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let index = open.pop().unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(all[index].name, name, "</{name}> closes <{}>", all[index].name);
            continue;
        }
        assert!(open.is_empty() == all.is_empty(), "a second root: <{tag}>");
        let (inner, closes) = tag.strip_suffix('/').map_or((tag, false), |inner| (inner, true));
        let (name, after) = inner.split_once(' ').unwrap_or((inner, ""));
        assert!(!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphabetic()), "<{tag}>");
        let inside = open.iter().rev().find_map(|&i| all[i].class().map(str::to_string));
        all.push(Element { name: name.to_string(), attributes: attributes(after, tag), text: String::new(), inside });
        if !closes {
            open.push(all.len() - 1);
        }
    }
    assert!(open.is_empty() && rest.trim().is_empty(), "unclosed: {open:?}, then {rest:?}");
    all
}

#[test]
fn the_balance_check_catches_broken_markup() {
    for broken in [
        "<svg ><g></svg></g>\n</svg>\n",
        "<svg ><g>\n</svg>\n",
        "<svg ><line x=\"1/>\n</svg>\n",
        "<svg >a & b</svg>\n",
        "<svg ></svg><svg ></svg>\n",
        "<svg ><text x=\"1\"y=\"2\">1</text></svg>\n",
    ] {
        assert!(std::panic::catch_unwind(|| elements(broken)).is_err(), "{broken}");
    }
    assert_eq!(elements("<svg a=\"1\"><g><line/></g></svg>\n").len(), 3);
}

/// The board's rows and the pixel centre of an algebraic square on it (a1 at the bottom left).
fn centre(rows: i64, name: &str) -> (i64, i64) {
    let col = i64::from(name.as_bytes()[0] - b'a');
    let rank: i64 = name[1..].parse().unwrap();
    (MARGIN + col * SQUARE + SQUARE / 2, MARGIN + (rows - rank) * SQUARE + SQUARE / 2)
}

/// Tour `number` of `file` drawn, read with `read` (such as `--open`), and its move list: its
/// squares in visiting order, a closed tour's first square again at the end.
fn drawn(file: &Path, number: usize, read: &[&str], dir: &Path) -> (Vec<Element>, Vec<String>) {
    let svg = dir.join(format!("tour{number}.svg"));
    let shown = number.to_string();
    run(&[&["tours", "show", path(file), "--number", &shown, "--svg", path(&svg)][..], read].concat());
    let moves = run(&[&["tours", "convert", path(file), "--to", "moves"][..], read].concat());
    let squares = moves.lines().nth(number - 1).unwrap().split(' ').map(String::from).collect();
    (elements(&fs::read_to_string(&svg).unwrap()), squares)
}

/// Checks what every drawing of a tour of `rows` ranks shows: its board (a1's square at the bottom
/// left), one number per square at that square's centre, 1 to the last in visiting order, one
/// solid line per move between consecutive squares (and back to 1 when `closed`), every
/// coordinate inside the picture. Returns the legend's lines.
fn check_numbers_and_moves(elements: &[Element], rows: i64, squares: &[String], closed: bool) -> Vec<String> {
    let board: BTreeSet<(i64, i64)> = elements
        .iter()
        .filter(|e| e.name == "rect" && e.get("width") == Some("40"))
        .map(|e| (e.number("x") + SQUARE / 2, e.number("y") + SQUARE / 2))
        .collect();
    let visited: BTreeSet<(i64, i64)> = squares.iter().map(|name| centre(rows, name)).collect();
    assert_eq!(board, visited, "the board's squares are where the tour's are");
    let labels: Vec<&Element> = elements.iter().filter(|e| e.class() == Some("number")).collect();
    assert_eq!(labels.len(), squares.len(), "one number per square");
    let mut seen = BTreeSet::new();
    for label in &labels {
        assert_eq!(label.name, "text");
        let number: usize = label.text.parse().unwrap_or_else(|_| panic!("{label:?}"));
        assert!((1..=squares.len()).contains(&number) && seen.insert(number), "{label:?}");
        let at = (label.number("x"), label.number("y"));
        assert_eq!(at, centre(rows, &squares[number - 1]), "{number} on {}", squares[number - 1]);
    }
    let mut expected: BTreeSet<[(i64, i64); 2]> = BTreeSet::new();
    let back = closed.then(|| [squares.last().unwrap().clone(), squares[0].clone()]);
    for pair in squares.windows(2).map(|p| [p[0].clone(), p[1].clone()]).chain(back) {
        assert!(expected.insert([centre(rows, &pair[0]), centre(rows, &pair[1])]));
    }
    let lines: BTreeSet<[(i64, i64); 2]> = elements
        .iter()
        .filter(|e| e.class() == Some("move"))
        .map(|e| {
            assert!(e.name == "line" && e.get("stroke-dasharray").is_none(), "{e:?}");
            segment(e)
        })
        .collect();
    assert_eq!(lines, expected, "the moves, in order");
    assert_eq!(elements.iter().filter(|e| e.class() == Some("move")).count(), expected.len());
    let root = &elements[0];
    let (width, height) = (root.number("width"), root.number("height"));
    assert_eq!(root.get("viewBox"), Some(format!("0 0 {width} {height}").as_str()));
    for element in elements {
        let limits = [("x", width), ("cx", width), ("x1", width), ("x2", width)];
        for (key, limit) in limits.into_iter().chain([("y", height), ("cy", height), ("y1", height), ("y2", height)]) {
            if let Some(value) = element.get(key).and_then(|v| v.parse::<i64>().ok()) {
                assert!((0..=limit).contains(&value), "{key} of {element:?} outside {width}x{height}");
            }
        }
    }
    elements.iter().filter(|e| e.inside.as_deref() == Some("legend")).map(|e| e.text.clone()).collect()
}

/// A line's two ends, from (x1, y1) to (x2, y2).
fn segment(line: &Element) -> [(i64, i64); 2] {
    [(line.number("x1"), line.number("y1")), (line.number("x2"), line.number("y2"))]
}

/// The ring of `class` (start or end): where it is and its colour.
fn ring(elements: &[Element], class: &str) -> Option<((i64, i64), String)> {
    let mut rings = elements.iter().filter(|e| e.class() == Some(class));
    let found = rings.next().map(|e| ((e.number("cx"), e.number("cy")), e.get("stroke").unwrap().to_string()));
    assert!(rings.next().is_none(), "one {class} ring");
    found
}

#[test]
fn open_5x5_tours_are_numbered_and_their_closing_connection_explained() {
    let dir = scratch_dir("open");
    let file = dir.join("open5.txt");
    assert_eq!(run(&["tours", "enumerate", "5x5", "--open", "--out", path(&file)]), "864\n");
    for number in [1, 500, 864] {
        let (elements, squares) = drawn(&file, number, &[], &dir);
        assert_eq!(squares.len(), 25);
        let legend = check_numbers_and_moves(&elements, 5, &squares, false);
        let (first, last) = (&squares[0], &squares[24]);
        assert_eq!(
            legend,
            [
                "Open tour: squares numbered in visiting order.".to_string(),
                format!("Starts at 1 on {first} (green ring)."),
                format!("Ends at 25 on {last} (red ring)."),
                "Dashed line: end back to start, not a move.".to_string(),
            ]
        );
        assert_eq!(ring(&elements, "start"), Some((centre(5, first), "#2e7d32".to_string())), "green");
        assert_eq!(ring(&elements, "end"), Some((centre(5, last), "#c62828".to_string())), "red");
        // The one dashed line is the closing connection, from the end back to the start.
        let dashed: Vec<&Element> = elements.iter().filter(|e| e.get("stroke-dasharray").is_some()).collect();
        assert_eq!(dashed.len(), 1);
        assert_eq!((dashed[0].name.as_str(), dashed[0].class()), ("line", Some("closing")));
        assert_eq!(segment(dashed[0]), [centre(5, last), centre(5, first)]);
    }
}

#[test]
fn closed_tours_are_numbered_from_their_start_and_return_to_it() {
    let dir = scratch_dir("closed");
    let file = dir.join("closed6.txt");
    run(&["tours", "generate", "6x6", "--warnsdorff", "--closed", "--count", "3", "--seed", "1", "--out", path(&file)]);
    for number in [1, 3] {
        let (elements, mut squares) = drawn(&file, number, &[], &dir);
        assert_eq!((squares.len(), squares.first()), (37, squares.last()), "back to the start");
        squares.pop();
        let legend = check_numbers_and_moves(&elements, 6, &squares, true);
        assert_eq!(
            legend,
            [
                "Closed tour: squares numbered in visiting order.".to_string(),
                format!("Starts at 1 on {} (green ring).", squares[0]),
                "After 36 the knight moves back to 1.".to_string(),
            ]
        );
        assert_eq!(ring(&elements, "start"), Some((centre(6, &squares[0]), "#2e7d32".to_string())));
        assert_eq!(ring(&elements, "end"), None);
        assert!(elements.iter().all(|e| e.get("stroke-dasharray").is_none() && e.class() != Some("closing")));
    }
}

#[test]
fn a_26x26_tour_is_numbered_to_676() {
    let dir = scratch_dir("large");
    let file = dir.join("large.txt");
    run(&["tours", "generate", "26x26", "--warnsdorff", "--count", "1", "--seed", "1", "--out", path(&file)]);
    let (elements, squares) = drawn(&file, 1, &["--open"], &dir);
    assert_eq!(squares.len(), 676);
    let legend = check_numbers_and_moves(&elements, 26, &squares, false);
    assert_eq!(legend[2], format!("Ends at 676 on {} (red ring).", squares[675]));
    // The numbers' font is the same on every board: three digits fit a 40 px square.
    let fonts: Vec<&str> = elements.iter().filter_map(|e| e.get("font-size")).collect();
    assert_eq!(fonts, ["12", "12", "12"], "the coordinates, the numbers, the legend");
}
