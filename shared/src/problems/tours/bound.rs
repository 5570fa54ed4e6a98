//! An upper bound on the number of closed tours, so that residues suffice to count them exactly.
//!
//! The residues determine a count `H` exactly when the product `M` of the moduli exceeds `H`.
//! We bound `H` before counting:
//!
//! **Bound.** Let `G` be a graph on `N >= 3` vertices with degrees `d_v` and adjacency matrix
//! `A`. Then the number of Hamiltonian cycles satisfies `H <= (1/2) prod_v (d_v!)^(1/d_v)`.
//!
//! *Proof.* Orient a Hamiltonian cycle in one of its two directions and map each vertex to its
//! successor: this is a permutation `s` with `A[v][s(v)] = 1` for all `v`, and different oriented
//! cycles give different permutations (for `N >= 3` the two orientations differ). Such
//! permutations are counted by the permanent, so `2H <= perm(A)`. Brégman's theorem (Minc's
//! conjecture) bounds the permanent of a 0-1 matrix with row sums `r_v` by
//! `prod_v (r_v!)^(1/r_v)`, and `r_v = d_v`. A vertex of degree 0 or 1 forces `H = 0`. ∎
//!
//! [`hamiltonian_cycle_bound_bits`] evaluates `log2` of the bound in `f64` and adds one bit,
//! which exceeds the rounding error of the sum (below `1e-9` bits for any board leaper could
//! process) by many orders of magnitude. [`Moduli::covering`](crate::engine::Moduli::covering)
//! then takes the fewest moduli whose exact product exceeds `2^bits`. For the knight on 8 x 8 the bound is about 2^88 (two moduli);
//! the true count is 13267364410532, about 2^43.

use crate::problems::tours::board::Geometry;

/// `log2` of an upper bound on the number of Hamiltonian cycles of `geometry` (see the module
/// docs), with one bit of margin. Returns 0 when the graph has no Hamiltonian cycle for a
/// trivial reason (fewer than 3 cells, or a cell of degree below 2).
pub fn hamiltonian_cycle_bound_bits(geometry: &Geometry) -> f64 {
    if geometry.cells() < 3 || (0..geometry.cells()).any(|cell| geometry.degree(cell) < 2) {
        return 0.0;
    }
    bound_bits_of_every_length(geometry)
}

/// `log2` of a bound that holds for every board `geometry.width` wide and at most
/// `geometry.rows` long, with one bit of margin: the bound's sum for the longest board, without
/// the shortcut for boards with no cycle. A shorter board's cells are a subset of the longer
/// one's, each with at most the same degree, and `log2(d!)/d` grows with `d` and is 0 for
/// `d <= 1`, so the longest board's sum is at least every shorter board's. One pass over the
/// cells, however many lengths a sweep reports.
pub fn bound_bits_of_every_length(geometry: &Geometry) -> f64 {
    let mut bits = 0.0f64;
    for cell in 0..geometry.cells() {
        let d = geometry.degree(cell);
        let log_factorial: f64 = (2..=d).map(|k| (k as f64).log2()).sum();
        bits += log_factorial / d.max(1) as f64;
    }
    // Halve for the two orientations, add one bit of margin for rounding.
    (bits - 1.0 + 1.0).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Moduli;
    use crate::problems::tours::board::MoveSet;

    #[test]
    fn bound_covers_known_counts() {
        let knight = MoveSet::knight();
        let b88 = hamiltonian_cycle_bound_bits(&Geometry::new(8, 8, knight.clone()));
        assert!(b88 > (13267364410532f64).log2() && b88 < 100.0, "{b88}");
        assert_eq!(Moduli::covering(b88, 0).unwrap().len(), 2);
        assert_eq!(hamiltonian_cycle_bound_bits(&Geometry::new(2, 5, knight.clone())), 0.0);
        // The bound of a sweep covers every length it reports.
        let sweep = bound_bits_of_every_length(&Geometry::new(6, 12, knight.clone()));
        for rows in 1..=12 {
            assert!(hamiltonian_cycle_bound_bits(&Geometry::new(6, rows, knight.clone())) <= sweep, "6x{rows}");
        }
    }
}
