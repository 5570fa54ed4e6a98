//! The orbit walk: tours fixed by one symmetry, by depth-first search over the orbits of cells.
//!
//! A tour fixed by `g` is determined by a stretch that meets every orbit of `g` once, and `g`
//! carries that stretch onto the rest. A worked example, the half turn of the 5x6 board's
//! cells paired into 15 orbits: a fixed cycle `v0 v1 ... v29` has `v(i + 15) = g(v(i))` (the half
//! turn rotates it by half) or contains two moves `{u, g(u)}` (it reflects it); the walk
//! searches the stretches `v0 .. v14` that meet each orbit once and checks the step that
//! continues into the image.
//!
//! * Closed tours, `g` rotating the cycle by a k-th: stretches from cell 0 of `N / k` cells
//!   whose last cell is a move away from `g(0)` (or `g^-1(0)`, the other way round); each cycle
//!   is found once per direction.
//! * Closed tours, `g` an involution reflecting the cycle: stretches from a cell with a move to
//!   its own image to another such cell; each cycle has four such stretches (either end, either
//!   half).
//! * Open tours, `g` an involution reversing the path: stretches of `N / 2` cells that end at a
//!   cell with a move to its image (`N` even), or `(N - 1) / 2` cells that end a move away from
//!   the fixed cell (`N` odd); each path is found from both of its ends.
//!
//! It shares nothing with the fold or the transfer matrix but the board's moves, so it is the
//! independent route the fold is checked against (on boards up to about 36 cells), and the
//! route for the quarter turns, whose quotient is a quarter of the board (`n = 2 mod 4`; 9
//! orbits on 6x6, 25 on 10x10).

use crate::hamiltonian::board::Geometry;
use crate::hamiltonian::symmetry::Symmetry;

/// The tours of `geometry` that `symmetry` maps onto themselves (closed, or `open`).
pub fn fixed_tours(geometry: &Geometry, symmetry: Symmetry, open: bool) -> u128 {
    let walk = Walk::new(geometry, symmetry);
    let cells = geometry.cells();
    let fixed: Vec<usize> = (0..cells).filter(|&c| walk.image[c] == c).collect();
    let loops: Vec<usize> = (0..cells).filter(|&c| walk.image[c] != c && walk.adjacent(c, walk.image[c])).collect();
    let order = symmetry.order();
    let proved_none = if open { fixed.len() > 1 } else { fixed.len() > 2 };
    if symmetry == Symmetry::Identity || proved_none || (!fixed.is_empty() && order != 2) {
        return 0;
    }
    let orbits = (cells - fixed.len()) / order;
    let mut total = 0u128;
    if open {
        if order != 2 {
            return 0;
        }
        // Stretches from any cell; each fixed path is found from both ends.
        let found: u128 = (0..cells)
            .filter(|c| !fixed.contains(c))
            .map(|start| {
                walk.count(start, orbits, &|last| match fixed.first() {
                    Some(&centre) => walk.adjacent(last, centre),
                    None => loops.contains(&last),
                })
            })
            .sum();
        return found / 2;
    }
    if let [first, second] = fixed[..] {
        // A reflection through two fixed cells: from one to the other either way round.
        return walk.count(first, orbits + 1, &|last| walk.adjacent(last, second)) / 2;
    }
    if let Some(&centre) = fixed.first() {
        // A reflection through the fixed cell and a loop: from the centre either way round.
        return walk.count(centre, orbits + 1, &|last| loops.contains(&last)) / 2;
    }
    // Rotations of the cycle: from cell 0, closing onto g(0) or g^-1(0).
    let generators: Vec<usize> =
        if order == 2 { vec![walk.image[0]] } else { vec![walk.image[0], walk.image[walk.image[walk.image[0]]]] };
    let rotations: u128 =
        generators.iter().map(|&target| walk.count(0, orbits, &|last| walk.adjacent(last, target))).sum();
    total += rotations / 2;
    if order == 2 {
        // Reflections of the cycle: from one loop cell to another, four stretches each.
        let reflections: u128 =
            loops.iter().map(|&start| walk.count(start, orbits, &|last| last != start && loops.contains(&last))).sum();
        total += reflections / 4;
    }
    total
}

/// The board's adjacency and the symmetry's orbits.
struct Walk {
    cells: usize,
    adjacent: Vec<bool>,
    neighbours: Vec<Vec<usize>>,
    image: Vec<usize>,
    /// The orbit of each cell, numbered densely.
    orbit: Vec<usize>,
}

impl Walk {
    fn new(geometry: &Geometry, symmetry: Symmetry) -> Walk {
        let cells = geometry.cells();
        let mut adjacent = vec![false; cells * cells];
        let neighbours: Vec<Vec<usize>> = (0..cells).map(|c| geometry.neighbours(c).collect()).collect();
        for (c, list) in neighbours.iter().enumerate() {
            for &v in list {
                adjacent[c * cells + v] = true;
            }
        }
        let image: Vec<usize> = (0..cells).map(|c| symmetry.apply(geometry.width, geometry.rows, c)).collect();
        let mut orbit = vec![usize::MAX; cells];
        let mut next = 0;
        for start in 0..cells {
            if orbit[start] == usize::MAX {
                let mut c = start;
                while orbit[c] == usize::MAX {
                    orbit[c] = next;
                    c = image[c];
                }
                next += 1;
            }
        }
        Walk { cells, adjacent, neighbours, image, orbit }
    }

    fn adjacent(&self, a: usize, b: usize) -> bool {
        self.adjacent[a * self.cells + b]
    }

    /// Stretches from `start` meeting `orbits` orbits once each whose last cell passes `ends`.
    fn count(&self, start: usize, orbits: usize, ends: &dyn Fn(usize) -> bool) -> u128 {
        let mut seen = vec![false; self.cells];
        // A fixed cell is met only where the stretch says (the centre of an open tour is the
        // step after its end), or is where it starts.
        for cell in (0..self.cells).filter(|&c| self.image[c] == c) {
            seen[self.orbit[cell]] = true;
        }
        seen[self.orbit[start]] = true;
        self.extend(start, 1, orbits, &mut seen, ends)
    }

    fn extend(&self, at: usize, length: usize, orbits: usize, seen: &mut [bool], ends: &dyn Fn(usize) -> bool) -> u128 {
        if length == orbits {
            return u128::from(ends(at));
        }
        let mut found = 0;
        for &next in &self.neighbours[at] {
            let o = self.orbit[next];
            if !seen[o] {
                seen[o] = true;
                found += self.extend(next, length + 1, orbits, seen, ends);
                seen[o] = false;
            }
        }
        found
    }
}
