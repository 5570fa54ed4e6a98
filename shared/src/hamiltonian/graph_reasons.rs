//! Why a graph has no Hamiltonian cycle or path, where that is plain before counting: the
//! theorems below, each cheap (linear in the graph). A reason is a promise: the count it
//! explains must be 0, and printing checks that it is.
//!
//! A Hamiltonian cycle passes through every vertex on two edges, so it needs 3 vertices or more,
//! every vertex of degree 2 or more, a connected graph, and no cut vertex (the cycle without
//! any one vertex is a path, still connected); it alternates between the sides of a bipartite
//! graph, so the sides are equal. A Hamiltonian path needs a connected graph, at most two
//! vertices of degree 1 (its ends), no vertex whose removal leaves three components or more
//! (the path without one vertex is at most two pieces), and sides of a bipartite graph that
//! differ by at most one.
//!
//! Example: the 8 x 8 knight graph without the corners a1 and h8 (both dark squares) is
//! bipartite (a knight's move changes a square's colour) with 30 dark and 32 light squares: no
//! closed tour.

use std::borrow::Cow;

use crate::input::cut;

/// Why the graph `adjacency` (names for the messages, cut to 80 characters) has no Hamiltonian path (`open`) or
/// cycle, if a plain reason says so.
pub fn why_none(adjacency: &[Vec<usize>], names: &[String], open: bool) -> Option<String> {
    let n = adjacency.len();
    let named = |vertices: &[usize]| {
        let shown: Vec<Cow<str>> = vertices.iter().take(3).map(|&v| cut(&names[v])).collect();
        format!("{}{}", shown.join(", "), if vertices.len() > 3 { ", ..." } else { "" })
    };
    if open && n <= 1 {
        return None;
    }
    if !open && n < 3 {
        // The names say what was read: a file of one token is one vertex of that name.
        let vertices: Vec<usize> = (0..n).collect();
        return Some(format!(
            "a Hamiltonian cycle needs 3 vertices or more, and the graph has {n}{}",
            if n == 0 { String::new() } else { format!(" ({})", named(&vertices)) }
        ));
    }
    let least = if open { 1 } else { 2 };
    let short: Vec<usize> = (0..n).filter(|&v| adjacency[v].len() < least).collect();
    if !short.is_empty() {
        let (count, what) = plural(short.len(), "vertex has", "vertices have");
        return Some(if open {
            format!(
                "{count} {what} no neighbour ({}), and a Hamiltonian path passes through every vertex",
                named(&short)
            )
        } else {
            format!(
                "{count} {what} fewer than two neighbours ({}), and a Hamiltonian cycle passes through every \
                 vertex on two edges",
                named(&short)
            )
        });
    }
    let pieces = Pieces::of(adjacency);
    if pieces.components > 1 {
        return Some(format!("the graph is disconnected ({} components)", pieces.components));
    }
    if open {
        let ends: Vec<usize> = (0..n).filter(|&v| adjacency[v].len() == 1).collect();
        if ends.len() > 2 {
            return Some(format!(
                "{} vertices have one neighbour ({}), and only the two ends of a Hamiltonian path may",
                ends.len(),
                named(&ends)
            ));
        }
        if let Some((v, left)) = (0..n).map(|v| (v, pieces.without[v])).find(|&(_, left)| left >= 3) {
            return Some(format!(
                "removing vertex {} leaves {left} components, and a Hamiltonian path without one vertex is \
                 at most two pieces",
                cut(&names[v])
            ));
        }
    } else if let Some(v) = (0..n).find(|&v| pieces.without[v] >= 2) {
        return Some(format!(
            "vertex {} is a cut vertex (removing it leaves {} components), and a Hamiltonian cycle without \
             one vertex is still connected",
            cut(&names[v]),
            pieces.without[v]
        ));
    }
    if let Some((a, b)) = sides(adjacency).map(|(a, b)| (a.min(b), a.max(b))) {
        let allowed = usize::from(open);
        if a.abs_diff(b) > allowed {
            return Some(format!(
                "the graph is bipartite with sides of {a} and {b} vertices, and a Hamiltonian {} alternates \
                 between the sides",
                if open { "path" } else { "cycle" }
            ));
        }
    }
    None
}

fn plural(count: usize, one: &'static str, many: &'static str) -> (usize, &'static str) {
    (count, if count == 1 { one } else { many })
}

/// The graph's components, and per vertex the components its own component falls into
/// without it (0 for an isolated vertex, 1 for a vertex that cuts nothing).
struct Pieces {
    components: usize,
    without: Vec<usize>,
}

impl Pieces {
    /// By depth-first search with low points (Hopcroft-Tarjan), without recursion: a root falls
    /// into as many pieces as it has children in the search tree; any other vertex `v` into one
    /// plus the children `c` whose subtree reaches nothing above `v` (`low[c] >= order[v]`).
    fn of(adjacency: &[Vec<usize>]) -> Pieces {
        let n = adjacency.len();
        const UNSEEN: usize = usize::MAX;
        let mut order = vec![UNSEEN; n];
        let mut low = vec![0; n];
        let mut without = vec![0; n];
        let mut is_root = vec![false; n];
        let mut components = 0;
        let mut counter = 0;
        for root in 0..n {
            if order[root] != UNSEEN {
                continue;
            }
            components += 1;
            is_root[root] = true;
            order[root] = counter;
            low[root] = counter;
            counter += 1;
            // (vertex, its parent, the next neighbour to look at)
            let mut stack: Vec<(usize, usize, usize)> = vec![(root, UNSEEN, 0)];
            while let Some(&mut (v, parent, ref mut next)) = stack.last_mut() {
                if let Some(&u) = adjacency[v].get(*next) {
                    *next += 1;
                    if order[u] == UNSEEN {
                        order[u] = counter;
                        low[u] = counter;
                        counter += 1;
                        stack.push((u, v, 0));
                    } else if u != parent {
                        low[v] = low[v].min(order[u]);
                    }
                    continue;
                }
                stack.pop();
                if parent != UNSEEN {
                    low[parent] = low[parent].min(low[v]);
                    if parent == root || low[v] >= order[parent] {
                        without[parent] += 1;
                    }
                }
            }
        }
        // Every vertex but a search's root also keeps the piece that holds its parent.
        for v in 0..n {
            if !is_root[v] {
                without[v] += 1;
            }
        }
        Pieces { components, without }
    }
}

/// The sizes of the two sides, if the graph is bipartite.
fn sides(adjacency: &[Vec<usize>]) -> Option<(usize, usize)> {
    let mut side = vec![u8::MAX; adjacency.len()];
    let mut counts = [0usize; 2];
    for root in 0..adjacency.len() {
        if side[root] != u8::MAX {
            continue;
        }
        side[root] = 0;
        counts[0] += 1;
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            for &u in &adjacency[v] {
                if side[u] == u8::MAX {
                    side[u] = 1 - side[v];
                    counts[side[u] as usize] += 1;
                    stack.push(u);
                } else if side[u] == side[v] {
                    return None;
                }
            }
        }
    }
    Some((counts[0], counts[1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_in_reasons() {
        // A bowtie whose middle vertex has a name of 10^5 characters: a cut vertex, named by
        // its first 80.
        let long = "m".repeat(100_000);
        let names: Vec<String> = ["a", "b", &long, "d", "e"].iter().map(|s| s.to_string()).collect();
        let adjacency = vec![vec![1, 2], vec![0, 2], vec![0, 1, 3, 4], vec![2, 4], vec![2, 3]];
        let why = why_none(&adjacency, &names, false).unwrap();
        assert_eq!(
            why,
            format!(
                "vertex {}… (100000 bytes) is a cut vertex (removing it leaves 2 components), and a Hamiltonian \
                 cycle without one vertex is still connected",
                "m".repeat(80)
            )
        );
        let lonely: Vec<String> = vec![long.clone(), "b".into(), "c".into()];
        let why = why_none(&[vec![], vec![2], vec![1]], &lonely, true).unwrap();
        assert!(why.starts_with(&format!("1 vertex has no neighbour ({}… (100000 bytes))", "m".repeat(80))), "{why}");
    }
}
