//! The symmetries that shrink the count, and the shards they leave.
//!
//! *Values.* Whether a line is a draw depends only on each bit being both 0 and 1 somewhere in it,
//! so XOR with a constant (2^bits ways) and a permutation of the bits (bits! ways) map draws to
//! draws. Together they act freely on arrangements (only the identity fixes one), and each orbit
//! has exactly one member with 0 in cell 0 and the units 1, 2, 4, ... in ascending cell order: the
//! XOR is fixed by the value in cell 0, then the bit permutation by the order of the units. So the
//! number of draws is `2^bits * bits!` times the number of such *normal* draws.
//!
//! *Cells.* A permutation of the cells that fixes cell 0 and maps the set of lines onto itself
//! maps normal draws with units on the cells `P` one-to-one onto normal draws with units on its
//! image of `P` (re-sorting the units is a bit permutation). So a *placement* (the set of unit
//! cells) counts the same as every placement in its orbit: one representative per orbit is counted
//! and weighted by the orbit's size. The candidates are the row permutations, column permutations
//! and (on a square board) the transpose; for Quarto's lines this finds the document's flip about
//! the 0 diagonal and exchange of the middle rows and columns.

/// A permutation of the cells: `image[c]` is where cell `c` goes.
pub type CellMap = Vec<usize>;

/// The cell maps of the candidate family that fix cell 0 and map `lines` onto itself.
pub fn line_preserving_maps(rows: usize, cols: usize, lines: &[u16]) -> Vec<CellMap> {
    let mut sorted = lines.to_vec();
    sorted.sort_unstable();
    let mut maps = Vec::new();
    let transposes: &[bool] = if rows == cols { &[false, true] } else { &[false] };
    for row_perm in permutations(rows) {
        for col_perm in permutations(cols) {
            for &transpose in transposes {
                let image: CellMap = (0..rows * cols)
                    .map(|cell| {
                        let (r, c) = (row_perm[cell / cols], col_perm[cell % cols]);
                        if transpose {
                            c * cols + r
                        } else {
                            r * cols + c
                        }
                    })
                    .collect();
                if image[0] != 0 {
                    continue;
                }
                let mut mapped: Vec<u16> = lines.iter().map(|&line| map_mask(&image, line)).collect();
                mapped.sort_unstable();
                if mapped == sorted {
                    maps.push(image);
                }
            }
        }
    }
    maps
}

pub fn map_mask(image: &[usize], mask: u16) -> u16 {
    (0..image.len()).filter(|&c| mask & (1 << c) != 0).map(|c| 1u16 << image[c]).sum()
}

/// One representative placement per orbit, with the orbit's size, in ascending mask order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub units: u16,
    pub weight: u64,
}

/// The placements of `bits` unit cells among cells `1..cells`, one per orbit of `maps`.
pub fn placements(cells: usize, bits: u32, maps: &[CellMap]) -> Vec<Placement> {
    let mut orbits: std::collections::BTreeMap<u16, u64> = std::collections::BTreeMap::new();
    for units in 0u32..(1 << cells) {
        let units = units as u16;
        if units & 1 != 0 || units.count_ones() != bits {
            continue;
        }
        let representative = maps.iter().map(|map| map_mask(map, units)).min().unwrap_or(units);
        *orbits.entry(representative).or_default() += 1;
    }
    orbits.into_iter().map(|(units, weight)| Placement { units, weight }).collect()
}

/// The cell restrictions of the normal draws with units on `units`: 0 in cell 0, unit `2^i` on
/// the `i`-th unit cell in ascending order, every other cell any value but those.
pub fn normal_allowed(cells: usize, units: u16) -> Vec<u16> {
    let fixed: u16 =
        1 | (0..cells).filter(|&c| units & (1 << c) != 0).enumerate().map(|(i, _)| 1u16 << (1 << i)).sum::<u16>();
    let mut allowed = vec![((1u32 << cells) - 1) as u16 & !fixed; cells];
    allowed[0] = 1;
    for (i, cell) in (0..cells).filter(|&c| units & (1 << c) != 0).enumerate() {
        allowed[cell] = 1 << (1 << i);
    }
    allowed
}

/// The size of the value group, `2^bits * bits!`.
pub fn value_group_order(bits: u32) -> u64 {
    (1u64 << bits) * (1..=u64::from(bits)).product::<u64>()
}

/// Every ordering of `0..n`.
pub fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for rest in permutations(n - 1) {
        for position in 0..n {
            let mut perm = rest.clone();
            perm.insert(position, n - 1);
            all.push(perm);
        }
    }
    all
}
