//! The order a graph's vertices are processed in. The transfer matrix keeps a window of the
//! vertices after the one it processes, as long as the longest edge in the order (at most
//! [`MAX_WINDOW`]); of those it stores only the live ones, which have a neighbour already
//! processed ([`live_positions`]). The key, and the number of states, grow with the live
//! positions: the order should keep few of them at every step (a narrow path decomposition,
//! whose bags are the processed vertices with neighbours still to come) and the longest edge
//! short.
//!
//! Finding the narrowest order is NP-hard; the heuristic tries several and keeps the best:
//!
//! * the order of the file;
//! * from each of several start vertices, a greedy growth: next, the vertex touching the
//!   processed ones that adds the fewest vertices to the frontier (ties: the one whose earliest
//!   processed neighbour came first, which keeps edges short);
//! * from the same starts, Cuthill-McKee (breadth first, neighbours by increasing degree), and
//!   each order reversed.
//!
//! Example: the 3 x 3 grid numbered row by row (0 1 2 / 3 4 5 / 6 7 8). In that order the
//! longest edge is 3 (0-3) and at most 3 vertices are live (before vertex 4: 1, 2 and 3 have
//! neighbours processed: positions 0..=3, three of them live). The greedy growth from a corner
//! finds an order as narrow; from the centre it cannot do better than 4.
//!
//! Orders that fit (a key of at most 128 bits, a window of at most [`MAX_WINDOW`]) are compared
//! by the sum over steps of `3^live` (the states a step may hold grow about so), then by the
//! key's width and the window.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::input::{cut, quote};
use crate::problems::tours::frontier::{dense_worst_case_bits, live_positions, MAX_WINDOW};
use crate::problems::tours::order::reach;
use crate::problems::tours::transfer::TourKind;

/// Start vertices tried by each heuristic: every vertex on graphs this small, else this many,
/// spread over the vertex numbers.
const STARTS: usize = 48;

/// A vertex order and what it costs.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexOrder {
    /// Per position: the vertex processed there.
    pub vertices: Vec<usize>,
    /// How the order was found (`greedy from vertex 3`, `as given`).
    pub how: String,
    /// The longest edge in the order: the window the frontier keeps.
    pub window: usize,
    /// The most positions of the window live at one step: the frontier's width.
    pub width: usize,
    /// The key's worst case, in bits.
    pub key_bits: u32,
    /// The sum over steps of `3^live`, a measure of the states the sweep may hold.
    cost: f64,
}

impl VertexOrder {
    /// `vertices` (a permutation of the graph's vertices) measured for `kind` tours of the
    /// graph whose neighbours are `adjacency`.
    pub fn measured(adjacency: &[Vec<usize>], vertices: Vec<usize>, how: String, kind: TourKind) -> VertexOrder {
        let edges = in_order(adjacency, &vertices);
        let window = reach(&edges);
        let (width, key_bits, cost) = if window > MAX_WINDOW {
            (window, u32::MAX, f64::INFINITY)
        } else {
            let live = live_positions(&edges, window);
            let width = live.iter().map(|mask| mask.count_ones() as usize).max().unwrap_or(0);
            let cost = live.iter().map(|mask| 3f64.powi(mask.count_ones() as i32)).sum();
            (width, dense_worst_case_bits(&live, kind.max_free()), cost)
        };
        VertexOrder { vertices, how, window, width, key_bits, cost }
    }

    /// Whether the transfer matrix can count in this order: a window it holds, a key of at most
    /// 128 bits.
    pub fn fits(&self) -> bool {
        self.window <= MAX_WINDOW && self.key_bits <= u128::BITS
    }

    /// Refuses an order the transfer matrix cannot count in (see [`fits`](Self::fits)), naming
    /// what does not fit, its window or its key, and the limit; `subject` names the graph
    /// (`graph g.txt`, `knight 8x8 without a1`).
    pub fn check_fits(&self, subject: &str) -> Result<()> {
        if self.fits() {
            return Ok(());
        }
        let why = if self.window > MAX_WINDOW {
            format!("puts two neighbours {} places apart, and the frontier holds at most {MAX_WINDOW}", self.window)
        } else {
            format!(
                "keeps up to {} vertices on the frontier, whose states need up to {} bits, more than the 128-bit \
                 key holds",
                self.width, self.key_bits
            )
        };
        Err(Error::InvalidInput {
            input: subject.to_string(),
            reason: format!(
                "the vertex order ({}) {why}; the graph is too wide for leaper in it (give an order with --order \
                 FILE if you know a narrower one)",
                self.how
            ),
        })
    }

    /// The graph's neighbours on positions: per position, the positions of its neighbours.
    pub fn edges(&self, adjacency: &[Vec<usize>]) -> Vec<Vec<usize>> {
        in_order(adjacency, &self.vertices)
    }

    fn rank(&self) -> (bool, f64, u32, usize) {
        (!self.fits(), self.cost, self.key_bits, self.window)
    }

    fn better_than(&self, other: &VertexOrder) -> bool {
        self.rank().partial_cmp(&other.rank()) == Some(std::cmp::Ordering::Less)
    }
}

/// The neighbours of `adjacency` on positions, for the order `vertices`.
fn in_order(adjacency: &[Vec<usize>], vertices: &[usize]) -> Vec<Vec<usize>> {
    let mut position = vec![0; vertices.len()];
    for (p, &v) in vertices.iter().enumerate() {
        position[v] = p;
    }
    vertices.iter().map(|&v| adjacency[v].iter().map(|&u| position[u]).collect()).collect()
}

/// The narrowest order the heuristics find for `kind` tours of the graph `adjacency`
/// (`adjacency[v]`: the neighbours of `v`), the file's own order among them.
pub fn choose(adjacency: &[Vec<usize>], kind: TourKind) -> VertexOrder {
    let n = adjacency.len();
    let mut best = VertexOrder::measured(adjacency, (0..n).collect(), "as in the file".into(), kind);
    let starts: Vec<usize> = if n <= STARTS { (0..n).collect() } else { (0..STARTS).map(|i| i * n / STARTS).collect() };
    for start in starts {
        for (vertices, how) in [
            (greedy(adjacency, start), format!("greedy from vertex {start}")),
            (cuthill_mckee(adjacency, start), format!("Cuthill-McKee from vertex {start}")),
        ] {
            let reversed: Vec<usize> = vertices.iter().rev().copied().collect();
            for (vertices, how) in [(vertices, how.clone()), (reversed, format!("{how}, reversed"))] {
                let candidate = VertexOrder::measured(adjacency, vertices, how, kind);
                if candidate.better_than(&best) {
                    best = candidate;
                }
            }
        }
    }
    best
}

/// The order `names` gives (one vertex name per token, every vertex once), for the graph whose
/// vertices are named `vertex_names`; `source` names the order's file in errors.
pub fn given(vertex_names: &[String], names: &str, source: &str) -> Result<Vec<usize>> {
    let index: std::collections::HashMap<&str, usize> =
        vertex_names.iter().enumerate().map(|(v, name)| (name.as_str(), v)).collect();
    let mut seen = vec![false; vertex_names.len()];
    let mut vertices = Vec::with_capacity(vertex_names.len());
    for token in names.lines().map(|line| line.split('#').next().unwrap_or("")).flat_map(str::split_whitespace) {
        let &v = index
            .get(token)
            .ok_or_else(|| Error::InvalidRequest(format!("{source}: the graph has no vertex {}", quote(token))))?;
        if std::mem::replace(&mut seen[v], true) {
            return Err(Error::InvalidRequest(format!("{source}: vertex {} is listed twice", quote(token))));
        }
        vertices.push(v);
    }
    let missing: Vec<&str> = (0..vertex_names.len()).filter(|&v| !seen[v]).map(|v| vertex_names[v].as_str()).collect();
    if !missing.is_empty() {
        let shown: Vec<Cow<str>> = missing.iter().take(5).map(|name| cut(name)).collect();
        return Err(Error::InvalidRequest(format!(
            "{source}: the order leaves out {} vertices ({}{}); it must list every vertex once",
            missing.len(),
            shown.join(", "),
            if missing.len() > 5 { ", ..." } else { "" }
        )));
    }
    Ok(vertices)
}

/// Greedy growth from `start`: each next vertex, among those touching the processed ones (any,
/// when none does: a new component), adds the fewest vertices to the frontier; ties go to the
/// vertex whose earliest processed neighbour came first, then to the lower degree.
fn greedy(adjacency: &[Vec<usize>], start: usize) -> Vec<usize> {
    let n = adjacency.len();
    let mut position = vec![usize::MAX; n];
    // Per vertex: neighbours not yet processed.
    let mut waiting: Vec<usize> = adjacency.iter().map(Vec::len).collect();
    let mut touching: Vec<usize> = Vec::new();
    let mut order = Vec::with_capacity(n);
    let mut next = Some(start);
    while order.len() < n {
        let v = next.unwrap_or_else(|| (0..n).find(|&v| position[v] == usize::MAX).expect("a vertex is left"));
        position[v] = order.len();
        order.push(v);
        touching.retain(|&u| u != v);
        for &u in &adjacency[v] {
            waiting[u] -= 1;
            if position[u] == usize::MAX && !touching.contains(&u) {
                touching.push(u);
            }
        }
        // What processing `u` next does to the frontier: +1 if `u` still waits for neighbours
        // after it, -1 for each processed neighbour whose last neighbour it is.
        let score = |u: usize| {
            let stays = usize::from(waiting[u] > 0);
            let finished = adjacency[u].iter().filter(|&&w| position[w] != usize::MAX && waiting[w] == 1).count();
            let earliest = adjacency[u].iter().map(|&w| position[w]).min().unwrap_or(usize::MAX);
            (stays as i64 - finished as i64, earliest, adjacency[u].len())
        };
        next = touching.iter().copied().min_by_key(|&u| score(u));
    }
    order
}

/// Cuthill-McKee from `start`: breadth first, each vertex's neighbours by increasing degree;
/// the next component from its lowest vertex.
fn cuthill_mckee(adjacency: &[Vec<usize>], start: usize) -> Vec<usize> {
    let n = adjacency.len();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for root in std::iter::once(start).chain(0..n) {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut queue = std::collections::VecDeque::from([root]);
        while let Some(v) = queue.pop_front() {
            order.push(v);
            let mut next: Vec<usize> = adjacency[v].iter().copied().filter(|&u| !seen[u]).collect();
            next.sort_by_key(|&u| (adjacency[u].len(), u));
            for u in next {
                seen[u] = true;
                queue.push_back(u);
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `w` x `h` grid graph, row by row.
    pub(crate) fn grid(w: usize, h: usize) -> Vec<Vec<usize>> {
        (0..w * h)
            .map(|v| {
                let (x, y) = (v % w, v / w);
                let mut near = Vec::new();
                if x > 0 {
                    near.push(v - 1);
                }
                if x + 1 < w {
                    near.push(v + 1);
                }
                if y > 0 {
                    near.push(v - w);
                }
                if y + 1 < h {
                    near.push(v + w);
                }
                near
            })
            .collect()
    }

    #[test]
    fn the_grid_in_rows_has_the_example_s_widths() {
        let order = VertexOrder::measured(&grid(3, 3), (0..9).collect(), "rows".into(), TourKind::Closed);
        assert_eq!((order.window, order.width), (3, 3));
    }

    #[test]
    fn a_shuffled_grid_is_ordered_as_narrow_as_its_rows() {
        // The 8 x 8 grid with its vertices shuffled: the heuristics find an order as narrow as
        // the rows' (8 live positions), where the shuffled order is far wider.
        let (w, h) = (8, 8);
        let n = w * h;
        let shuffle: Vec<usize> = (0..n).map(|v| (v * 37 + 11) % n).collect();
        let mut adjacency = vec![Vec::new(); n];
        for (v, near) in grid(w, h).iter().enumerate() {
            adjacency[shuffle[v]] = near.iter().map(|&u| shuffle[u]).collect();
        }
        let file = VertexOrder::measured(&adjacency, (0..n).collect(), String::new(), TourKind::Closed);
        assert!(!file.fits(), "{file:?}");
        let chosen = choose(&adjacency, TourKind::Closed);
        assert!(chosen.fits() && chosen.width <= w, "{chosen:?}");
        let mut sorted = chosen.vertices.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n).collect::<Vec<_>>());
    }

    #[test]
    fn a_given_order_must_name_every_vertex_once() {
        let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(given(&names, "c a\n# comment\nb", "o.txt").unwrap(), vec![2, 0, 1]);
        let error = |text: &str| given(&names, text, "o.txt").unwrap_err().to_string();
        assert_eq!(error("a b c d"), "o.txt: the graph has no vertex \"d\"");
        assert_eq!(error("a b a"), "o.txt: vertex \"a\" is listed twice");
        assert_eq!(error("a"), "o.txt: the order leaves out 2 vertices (b, c); it must list every vertex once");
        // Long names are cut to 80 characters, wherever a message shows them.
        let long = "v".repeat(10_000);
        let expected = format!("o.txt: the graph has no vertex \"{}\"… (10000 bytes)", "v".repeat(80));
        assert_eq!(error(&format!("a b c {long}")), expected);
        let names = vec![long.clone(), "b".to_string()];
        let error = given(&names, "b", "o.txt").unwrap_err().to_string();
        let expected = format!(
            "o.txt: the order leaves out 1 vertices ({}… (10000 bytes)); it must list every vertex once",
            "v".repeat(80)
        );
        assert_eq!(error, expected);
    }
}
