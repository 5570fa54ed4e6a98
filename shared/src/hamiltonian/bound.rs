//! Upper bounds on the number of tours, so that residues suffice to count them exactly.
//!
//! The residues determine a count `H` exactly when the product `M` of the moduli exceeds `H`.
//! We bound `H` before counting.
//!
//! **Cycles.** Let `G` be a graph on `N >= 3` vertices with degrees `d_v` and adjacency matrix
//! `A`. Then the number of Hamiltonian cycles satisfies `H <= (1/2) prod_v (d_v!)^(1/d_v)`.
//!
//! *Proof.* Orient a Hamiltonian cycle in one of its two directions and map each vertex to its
//! successor: this is a permutation `s` with `A[v][s(v)] = 1` for all `v`, and different oriented
//! cycles give different permutations (for `N >= 3` the two orientations differ). Such
//! permutations are counted by the permanent, so `2H <= perm(A)`. Brégman's theorem (Minc's
//! conjecture) bounds the permanent of a 0-1 matrix with row sums `r_v` by
//! `prod_v (r_v!)^(1/r_v)`, and `r_v = d_v`. A vertex of degree 0 or 1 forces `H = 0`. ∎
//!
//! **Paths.** The number of undirected Hamiltonian paths of `G` (`N >= 2` vertices) satisfies
//! `P <= (1/2) (N!)^(1/N) prod_v ((d_v + 1)!)^(1/(d_v + 1))`.
//!
//! *Proof.* Add a vertex `x` joined to every vertex of `G`. A Hamiltonian path `a ... b` of `G`
//! and the cycle `x a ... b x` determine each other, so `P` is the number of Hamiltonian cycles
//! of `G + x`, a graph on `N + 1 >= 3` vertices whose degrees are `d_v + 1` and `N` (for `x`);
//! the cycle bound gives the claim. A 1x1 board has `P = 1`, below any modulus. ∎
//!
//! The functions evaluate `log2` of a bound in `f64` and add one bit, which exceeds the rounding
//! error of the sum (below `1e-9` bits for any board leaper could process) by many orders of
//! magnitude. [`Moduli::covering`](crate::engine::Moduli::covering) then takes the fewest moduli
//! whose exact product exceeds `2^bits`. For the knight on 8 x 8 the cycle bound is about 2^88
//! (the count, 13267364410532, is about 2^43) and the path bound about 2^118 (the count,
//! 9795914085489952, about 2^53): two moduli each.
//!
//! **Graphs with vertices of degree 2.** Brégman counts `2^(1/2)` for each of them, so a
//! long thin graph (a cycle of 100,000 vertices: one cycle) gets a bound of 50,000 bits, and its
//! paths, through the added vertex, `log2(3!)/3 = 0.86` bits a vertex: 86,000 bits, more moduli
//! than leaper carries. Any graph (`leaper graph`) is bounded more closely:
//!
//! * cycles: `H <= 2^(1/2) prod_(v: d_v >= 3) (d_v!)^(1/d_v)`. *Proof.* A vertex `v` of degree 2
//!   with neighbours `a`, `b` (`N >= 4`): every Hamiltonian cycle passes `a v b`; replacing that
//!   by the edge `a b` maps the cycles of `G` one to one into those of `G - v + ab` (simple: were
//!   `ab` an edge of `G` already, no Hamiltonian cycle of `G` uses it, since it would close the
//!   triangle `a v b`), whose degrees are at most `G`'s. Repeated until no vertex has degree 2 or
//!   3 vertices are left, the graph `G*` keeps at most 3 vertices of degree 2 and its others'
//!   degrees at most their degrees in `G`; Brégman on `G*`, with `(d!)^(1/d)` growing with `d`,
//!   gives `2H <= 2^(3/2) prod_(d_v >= 3) (d_v!)^(1/d_v)`. ∎
//! * paths: `P <= C(N, 2) max_(s, t) H(G + st)`, since the paths from `s` to `t` are the cycles of
//!   `G + st` through `st`; in `G + st` two degrees grow by one at most, so
//!   `log2 P <= log2 C(N, 2) + 1/2 + sum_(d_v >= 3) log2(d_v!)/d_v + 2 max_v g(d_v)`, `g(d)` what
//!   one more edge adds to the vertex's term (0.86 bits from degree 2 to 3). ∎
//!
//! The cycle of 100,000 vertices: 1.5 bits for its cycles, 35.4 for its paths, the margin
//! included (one modulus each).
//!
//! **Sweeps.** One bound covers every board `width` wide and at most `rows` long: the bound's sum
//! for the longest board. A shorter board's cells are a subset of the longer one's, each with at
//! most the same degree; `log2(d!)/d` grows with `d` and is 0 for `d <= 1`, and `log2(N!)/N`
//! grows with `N`, so the longest board's sum is at least every shorter board's.

/// `log2` of an upper bound on the number of Hamiltonian cycles of a graph whose vertices have
/// `degrees` (a board: its cells' degrees), with one bit of margin; with `single == false`, of
/// every board as wide and at most as long (a sweep; `degrees` then the longest board's). A
/// single graph with no cycle for a trivial reason (fewer than 3 vertices, a vertex of degree
/// below 2) gets 0.
pub fn cycle_bound_bits(degrees: &[usize], single: bool) -> f64 {
    let trivial = degrees.len() < 3 || degrees.iter().any(|&d| d < 2);
    if single && trivial {
        return 0.0;
    }
    let bits: f64 = degrees.iter().map(|&d| log2_factorial_root(d)).sum();
    // Halve for the two orientations, add one bit of margin for rounding.
    (bits - 1.0 + 1.0).max(0.0)
}

/// `log2` of an upper bound on the number of undirected Hamiltonian paths of a graph whose
/// vertices have `degrees`, with one bit of margin; with `single == false`, of every board as
/// wide and at most as long. A single graph of two vertices or more with an isolated vertex
/// gets 0.
pub fn path_bound_bits(degrees: &[usize], single: bool) -> f64 {
    let cells = degrees.len();
    if single && cells >= 2 && degrees.contains(&0) {
        return 0.0;
    }
    let bits: f64 = log2_factorial_root(cells) + degrees.iter().map(|&d| log2_factorial_root(d + 1)).sum::<f64>();
    (bits - 1.0 + 1.0).max(0.0)
}

/// `log2` of an upper bound on the Hamiltonian cycles of any graph whose vertices have
/// `degrees`, closer than [`cycle_bound_bits`] where vertices of degree 2 are many (the module's
/// "Graphs with vertices of degree 2"), with one bit of margin. A graph with no cycle for a
/// trivial reason (fewer than 3 vertices, a vertex of degree below 2) gets 0.
pub fn graph_cycle_bound_bits(degrees: &[usize]) -> f64 {
    if degrees.len() < 3 || degrees.iter().any(|&d| d < 2) {
        return 0.0;
    }
    let bits: f64 = degrees.iter().map(|&d| beyond_two(d)).sum();
    // 2^(3/2) for the degree-2 vertices left, halved for the two orientations; one bit of
    // margin for rounding.
    bits + 0.5 + 1.0
}

/// `log2` of an upper bound on the undirected Hamiltonian paths of any graph whose vertices have
/// `degrees`, closer than [`path_bound_bits`] where vertices of low degree are many (the
/// module's "Graphs with vertices of degree 2"), with one bit of margin; at least the cycle
/// bound [`graph_cycle_bound_bits`]. A graph of two vertices or more with an isolated vertex
/// gets 0.
pub fn graph_path_bound_bits(degrees: &[usize]) -> f64 {
    let n = degrees.len();
    if n <= 2 || degrees.contains(&0) {
        // At most one path; none with an isolated vertex.
        return 0.0;
    }
    let pairs = (n as f64 * (n - 1) as f64 / 2.0).log2();
    let bits: f64 = degrees.iter().map(|&d| beyond_two(d)).sum();
    let one_more = degrees.iter().map(|&d| beyond_two(d + 1) - beyond_two(d)).fold(0.0, f64::max);
    pairs + 0.5 + bits + 2.0 * one_more + 1.0
}

/// A vertex's term in the graph bounds: `log2((d!)^(1/d))` for `d >= 3`, else 0 (growing with
/// `d`).
fn beyond_two(d: usize) -> f64 {
    if d >= 3 {
        log2_factorial_root(d)
    } else {
        0.0
    }
}

/// `log2((d!)^(1/d))`, 0 for `d <= 1`.
fn log2_factorial_root(d: usize) -> f64 {
    let log_factorial: f64 = (2..=d).map(|k| (k as f64).log2()).sum();
    log_factorial / d.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::{graph_cycle_bound_bits, graph_path_bound_bits};
    use crate::engine::Moduli;
    use crate::hamiltonian::board::{Geometry, MoveSet};

    fn cycle_bound_bits(geometry: &Geometry, single: bool) -> f64 {
        super::cycle_bound_bits(&degrees(geometry), single)
    }

    fn path_bound_bits(geometry: &Geometry, single: bool) -> f64 {
        super::path_bound_bits(&degrees(geometry), single)
    }

    fn degrees(geometry: &Geometry) -> Vec<usize> {
        (0..geometry.cells()).map(|cell| geometry.degree(cell)).collect()
    }

    #[test]
    fn bound_covers_known_counts() {
        let knight = MoveSet::knight();
        let b88 = cycle_bound_bits(&Geometry::new(8, 8, knight.clone()), true);
        assert!(b88 > (13267364410532f64).log2() && b88 < 100.0, "{b88}");
        assert_eq!(Moduli::covering(b88, 0).unwrap().len(), 2);
        assert_eq!(cycle_bound_bits(&Geometry::new(2, 5, knight.clone()), true), 0.0);
        // The bound of a sweep covers every length it reports.
        let sweep = cycle_bound_bits(&Geometry::new(6, 12, knight.clone()), false);
        for rows in 1..=12 {
            assert!(cycle_bound_bits(&Geometry::new(6, rows, knight.clone()), true) <= sweep, "6x{rows}");
        }
    }

    #[test]
    fn graph_bounds_cover_known_counts_and_stay_small_on_thin_graphs() {
        let log2_factorial = |n: u32| (2..=n).map(|k| (k as f64).log2()).sum::<f64>();
        // Complete graphs: (n-1)!/2 cycles, n!/2 paths.
        for n in 3..=30u32 {
            let degrees = vec![n as usize - 1; n as usize];
            assert!(graph_cycle_bound_bits(&degrees) >= log2_factorial(n - 1) - 1.0, "K{n}");
            assert!(graph_path_bound_bits(&degrees) >= log2_factorial(n) - 1.0, "K{n}");
        }
        // Cycles: one cycle, n paths; the 100,000-vertex cycle needs one modulus for either.
        for n in [3usize, 4, 10, 1000, 100_000] {
            let degrees = vec![2; n];
            assert_eq!(graph_cycle_bound_bits(&degrees), 1.5);
            let paths = graph_path_bound_bits(&degrees);
            assert!(paths >= (n as f64).log2() && paths < 2.0 * (n as f64).log2() + 4.0, "C{n}: {paths}");
            assert!(paths >= graph_cycle_bound_bits(&degrees));
        }
        assert_eq!(Moduli::covering(graph_path_bound_bits(&vec![2; 100_000]), 0).unwrap().len(), 1);
        // Wheels (a hub joined to a cycle of n): n cycles, hub degree n, rim degree 3.
        for n in 3..=40usize {
            let mut degrees = vec![3; n];
            degrees.push(n);
            assert!(graph_cycle_bound_bits(&degrees) >= (n as f64).log2(), "W{n}");
        }
        // Trivial graphs.
        assert_eq!(graph_cycle_bound_bits(&[2, 2]), 0.0);
        assert_eq!(graph_cycle_bound_bits(&[2, 1, 2]), 0.0);
        assert_eq!(graph_path_bound_bits(&[1, 1]), 0.0);
        assert_eq!(graph_path_bound_bits(&[1, 0, 1]), 0.0);
    }

    #[test]
    fn path_bound_covers_known_counts_and_every_length_of_a_sweep() {
        let knight = MoveSet::knight();
        let eight = path_bound_bits(&Geometry::new(8, 8, knight.clone()), true);
        assert!(eight > (9795914085489952f64).log2() && eight < 125.0, "{eight}");
        assert!(eight > cycle_bound_bits(&Geometry::new(8, 8, knight.clone()), true));
        assert_eq!(Moduli::covering(eight, 0).unwrap().len(), 2);
        // 7x7: 82787609160 open tours; 5x12: 3611823644006.
        assert!(path_bound_bits(&Geometry::new(7, 7, knight.clone()), true) > (82787609160f64).log2());
        assert!(path_bound_bits(&Geometry::new(5, 12, knight.clone()), true) > (3611823644006f64).log2());
        // A board with an isolated cell has no path; 1x1 has one, below every modulus.
        assert_eq!(path_bound_bits(&Geometry::new(3, 3, knight.clone()), true), 0.0);
        assert_eq!(path_bound_bits(&Geometry::new(1, 1, knight.clone()), true), 0.0);
        let sweep = path_bound_bits(&Geometry::new(6, 12, knight.clone()), false);
        for rows in 1..=12 {
            assert!(path_bound_bits(&Geometry::new(6, rows, knight.clone()), true) <= sweep, "6x{rows}");
        }
    }
}
