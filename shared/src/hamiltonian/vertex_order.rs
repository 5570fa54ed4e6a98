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
use crate::hamiltonian::frontier::{dense_worst_case_bits, worst_case_bits, MAX_WINDOW};
use crate::hamiltonian::transfer::TourKind;
use crate::input::{cut, quote};

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
    /// The free ends a state may hold (the tours counted): what the key's width depends on.
    max_free: usize,
}

impl VertexOrder {
    /// `vertices` (a permutation of the graph's vertices) measured for `kind` tours of the
    /// graph whose neighbours are `adjacency`.
    ///
    /// Linear in the graph, with two allocations besides the order: [`choose`] measures a
    /// couple of hundred orders, and neighbour lists made per order (a list per vertex) took
    /// most of the time a graph of 100,000 vertices spent before counting.
    pub fn measured(adjacency: &[Vec<usize>], vertices: Vec<usize>, how: String, kind: TourKind) -> VertexOrder {
        let position = positions(&vertices);
        // One pass over the edges, each from its earlier end: the longest (1 without edges, as
        // [`reach`](crate::hamiltonian::order::reach) measures it), and while none is longer
        // than the frontier holds, the live positions
        // ([`live_positions`](crate::hamiltonian::frontier::live_positions): every edge is within
        // the window, so each marks every cell after its earlier end up to its later one).
        let mut window = 1;
        let mut live = vec![0u64; vertices.len() + 1];
        for (first, &v) in vertices.iter().enumerate() {
            for &u in &adjacency[v] {
                let last = position[u];
                if last <= first {
                    continue;
                }
                window = window.max(last - first);
                if window <= MAX_WINDOW {
                    for (at, mask) in live[first + 1..=last].iter_mut().enumerate() {
                        *mask |= 1 << (last - first - 1 - at);
                    }
                }
            }
        }
        let (width, key_bits, cost) = if window > MAX_WINDOW {
            (window, u32::MAX, f64::INFINITY)
        } else {
            let width = live.iter().map(|mask| mask.count_ones() as usize).max().unwrap_or(0);
            let powers: [f64; 65] = std::array::from_fn(|live| 3f64.powi(live as i32));
            let cost = live.iter().map(|mask| powers[mask.count_ones() as usize]).sum();
            (width, dense_worst_case_bits(&live, kind.max_free()), cost)
        };
        VertexOrder { vertices, how, window, width, key_bits, cost, max_free: kind.max_free() }
    }

    /// Whether the transfer matrix can count in this order: a window it holds, a key of at most
    /// 128 bits.
    pub fn fits(&self) -> bool {
        self.window <= MAX_WINDOW && self.key_bits <= u128::BITS
    }

    /// The widest frontier the 128-bit keys hold: the most live positions whose worst-case key
    /// fits, within the window the codec holds.
    pub fn key_holds(&self) -> usize {
        (1..=MAX_WINDOW).rev().find(|&width| worst_case_bits(width, self.max_free) <= u128::BITS).unwrap_or(0)
    }

    /// Refuses an order the transfer matrix cannot count in (see [`fits`](Self::fits)): `subject`
    /// (`graph g.txt`, `knight 8x8 without a1`) `is too wide: frontier N, the keys hold M`, and
    /// why: two neighbours too far apart for the window, or more live positions than the key's
    /// bits hold.
    pub fn check_fits(&self, subject: &str) -> Result<()> {
        if self.fits() {
            return Ok(());
        }
        let (frontier, holds, why) = if self.window > MAX_WINDOW {
            (
                self.window,
                MAX_WINDOW,
                format!(
                    "it puts two neighbours {} places apart, and the window holds at most {MAX_WINDOW}",
                    self.window
                ),
            )
        } else {
            (
                self.width,
                self.key_holds(),
                format!("its states need keys of up to {} bits, more than the 128 bits a key has", self.key_bits),
            )
        };
        Err(Error::InvalidRequest(format!(
            "{subject} is too wide: frontier {frontier}, the keys hold {holds} (in the vertex order {}, {why})",
            self.how
        )))
    }

    /// What a note says of the order, its vertices named by `names`: how it was found, how wide
    /// it is, and the order itself, whole up to [`ORDER_SHOWN`] vertices, else its start (each
    /// name cut to its start, as every message quotes one).
    pub fn described(&self, names: &[String]) -> String {
        // A note quotes a name by its start (issue 55: names may be megabytes long).
        let cut: Vec<_> = self.vertices.iter().take(ORDER_SHOWN).map(|&v| crate::input::cut(&names[v])).collect();
        let shown = cut.join(" ");
        let order = if self.vertices.len() <= ORDER_SHOWN {
            format!("the order: {shown}")
        } else {
            format!("the order begins {shown} ...")
        };
        format!(
            "vertex order {}: frontier {} vertices wide, window {}, keys of up to {} bits; {order}",
            self.how, self.width, self.window, self.key_bits
        )
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

/// The most vertices of an order a note names.
pub const ORDER_SHOWN: usize = 24;

/// The first `most` vertices of the order `vertices` by their `names`, separated by spaces: what
/// [`given`] reads back, when they are all.
pub fn by_name(vertices: &[usize], names: &[String], most: usize) -> String {
    let named: Vec<&str> = vertices.iter().take(most).map(|&v| names[v].as_str()).collect();
    named.join(" ")
}

/// Per vertex, its position in the order `vertices`.
fn positions(vertices: &[usize]) -> Vec<usize> {
    let mut position = vec![0; vertices.len()];
    for (p, &v) in vertices.iter().enumerate() {
        position[v] = p;
    }
    position
}

/// The neighbours of `adjacency` on positions, for the order `vertices`.
fn in_order(adjacency: &[Vec<usize>], vertices: &[usize]) -> Vec<Vec<usize>> {
    let position = positions(vertices);
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
    // Vertices below it are all processed: a new component starts at the first one left, found
    // without scanning the graph again for each component (a graph of many would take time
    // quadratic in its size).
    let mut unprocessed = 0;
    while order.len() < n {
        let v = next.unwrap_or_else(|| {
            while position[unprocessed] != usize::MAX {
                unprocessed += 1;
            }
            unprocessed
        });
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
    fn an_order_measures_as_its_neighbour_lists_do() {
        // The measure from positions against the one from the neighbour lists on positions
        // (`in_order`, `reach`, `live_positions`), for orders good and bad: a grid in rows, in
        // a shuffle, and the orders the heuristics find; a graph of two components.
        use crate::hamiltonian::frontier::live_positions;
        use crate::hamiltonian::order::reach;
        let mut two = grid(3, 4);
        let offset = two.len();
        two.extend(grid(4, 3).into_iter().map(|near| near.into_iter().map(|u| u + offset).collect()));
        for adjacency in [grid(5, 5), grid(2, 9), two] {
            let n = adjacency.len();
            let mut orders: Vec<Vec<usize>> =
                vec![(0..n).collect(), (0..n).map(|v| (v * 7 + 3) % n).collect(), (0..n).rev().collect()];
            orders.extend([greedy(&adjacency, n / 2), cuthill_mckee(&adjacency, 1)]);
            for vertices in orders {
                for kind in [TourKind::Closed, TourKind::Open] {
                    let order = VertexOrder::measured(&adjacency, vertices.clone(), String::new(), kind);
                    let edges = in_order(&adjacency, &vertices);
                    assert_eq!(order.window, reach(&edges), "{vertices:?}");
                    if order.window > MAX_WINDOW {
                        continue;
                    }
                    let live = live_positions(&edges, order.window);
                    let width = live.iter().map(|mask| mask.count_ones() as usize).max().unwrap();
                    let cost: f64 = live.iter().map(|mask| 3f64.powi(mask.count_ones() as i32)).sum();
                    assert_eq!((order.width, order.cost), (width, cost), "{vertices:?}");
                    assert_eq!(order.key_bits, dense_worst_case_bits(&live, kind.max_free()), "{vertices:?}");
                }
            }
        }
    }

    #[test]
    fn many_components_are_ordered_in_linear_time() {
        // 50,000 separate edges: each greedy growth starts a component 50,000 times. Scanning
        // for the next one from vertex 0 each time took minutes over the starts `choose` tries
        // (`leaper graph` chooses before it says the graph is disconnected); now a second.
        let n = 100_000;
        let adjacency: Vec<Vec<usize>> = (0..n).map(|v| vec![v ^ 1]).collect();
        let started = std::time::Instant::now();
        let order = choose(&adjacency, TourKind::Closed);
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
        assert_eq!((order.window, order.width), (1, 1), "{}", order.how);
        let mut sorted = order.vertices;
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
