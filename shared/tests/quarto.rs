//! Quarto draws: the engine against the document's partial figures, brute force on small cases,
//! and each symmetry reduction against the same count made without it.

use leaper_core::engine::subtree::local::run_local;
use leaper_core::engine::subtree::SubtreeProblem;
use leaper_core::engine::Job;
use leaper_core::problems;
use leaper_core::problems::quarto::lines::{Family, Rules};
use leaper_core::problems::quarto::search::Layout;
use leaper_core::problems::quarto::symmetry::{
    line_preserving_maps, normal_allowed, permutations, placements, value_group_order,
};
use leaper_core::problems::quarto::{Quarto, Variant};
use rayon::prelude::*;

fn is_draw(values: &[u8], full: u8) -> bool {
    values.iter().fold(0, |or, &v| or | v) == full && values.iter().fold(full, |and, &v| and & v) == 0
}

fn main_variant() -> Variant {
    Variant::new(Rules::parse("rows,cols,maindiags").unwrap())
}

/// Cell mask of (row, col) pairs on the 4 x 4 board.
fn cells(pairs: &[(usize, usize)]) -> u16 {
    pairs.iter().map(|&(r, c)| 1u16 << (r * 4 + c)).sum()
}

#[test]
fn ians_rows_1284_valid_rows_and_778339_disjoint_quadruples() {
    let rows: Vec<u16> = (0u32..1 << 16)
        .filter(|set| set.count_ones() == 4)
        .filter(|&set| is_draw(&(0..16).filter(|v| set & (1 << v) != 0).collect::<Vec<u8>>(), 15))
        .map(|set| set as u16)
        .collect();
    assert_eq!(rows.len(), 1284);
    // Sets of four pairwise disjoint valid rows, counted once each (indices ascending).
    let mut quadruples = 0u64;
    for (a, &ra) in rows.iter().enumerate() {
        for (b, &rb) in rows.iter().enumerate().skip(a + 1).filter(|(_, &r)| r & ra == 0) {
            for (c, &rc) in rows.iter().enumerate().skip(b + 1).filter(|(_, &r)| r & (ra | rb) == 0) {
                quadruples += rows[c + 1..].iter().filter(|&&rd| rd & (ra | rb | rc) == 0).count() as u64;
            }
        }
    }
    assert_eq!(quadruples, 778339);
    // The engine's rows-only count is Ian's 778339 * 24^5: four rows in any order, each row's
    // values in any order.
    let job = Quarto::lines("rows").unwrap();
    let totals = run_local(&job, None, None, &mut |_| {}).unwrap();
    assert_eq!(totals.counts, vec![778339 * 24u128.pow(5)]);
}

#[test]
fn the_documents_symmetric_placements_and_an_orbit_of_four() {
    let variant = main_variant();
    // The five placements fixed by the flip and the middle exchange, as drawn in the document.
    let fixed = [
        (cells(&[(0, 1), (0, 2), (1, 0), (2, 0)]), 201599),
        (cells(&[(0, 3), (1, 1), (2, 2), (3, 0)]), 347496),
        (cells(&[(0, 3), (1, 2), (2, 1), (3, 0)]), 2344528),
        (cells(&[(1, 1), (1, 2), (2, 1), (2, 2)]), 935024),
        (cells(&[(1, 3), (2, 3), (3, 1), (3, 2)]), 2686796),
    ];
    for (units, draws) in fixed {
        assert_eq!(variant.normal_draws(units), draws, "placement {units:#06x}");
        let orbit = variant.placements.iter().find(|p| p.units == units).expect("a representative");
        assert_eq!(orbit.weight, 1);
    }
    // Four equivalent placements, each with 169560 draws: the cell reduction's claim.
    for units in [
        cells(&[(0, 1), (0, 2), (1, 0), (1, 1)]),
        cells(&[(0, 1), (1, 0), (1, 1), (2, 0)]),
        cells(&[(0, 1), (0, 2), (2, 0), (2, 2)]),
        cells(&[(0, 2), (1, 0), (2, 0), (2, 2)]),
    ] {
        assert_eq!(variant.normal_draws(units), 169560, "placement {units:#06x}");
    }
    // 366 orbits: 355 with draws, 11 empty (four pairs and seven quadruples of placements).
    assert_eq!(variant.placements.len(), 366);
    let empty: Vec<u64> =
        variant.placements.iter().filter(|p| variant.normal_draws(p.units) == 0).map(|p| p.weight).collect();
    assert_eq!((empty.iter().filter(|&&w| w == 2).count(), empty.iter().filter(|&&w| w == 4).count()), (4, 7));
}

#[test]
fn the_value_reductions_match_counts_made_without_them() {
    let variant = main_variant();
    let layout = &variant.layout;
    let units = cells(&[(0, 1), (1, 2), (2, 3), (3, 3)]);
    let unit_cells: Vec<usize> = (0..16).filter(|c| units & (1 << c) != 0).collect();
    let normal = variant.normal_draws(units);
    assert!(normal > 0);
    // Bit permutations: the units on these cells in any of the 24 orders, each counted.
    let mut any_order = 0;
    for order in permutations(4) {
        let mut allowed = vec![!0x0117u16; 16]; // any value but 0, 1, 2, 4, 8
        allowed[0] = 1;
        for (i, &cell) in unit_cells.iter().enumerate() {
            allowed[cell] = 1 << (1 << order[i]);
        }
        any_order += layout.count(&allowed);
    }
    assert_eq!(any_order, 24 * normal);
    // XOR with a constant: c in the corner, c ^ 2^i on the unit cells.
    for c in [5u16, 10, 15] {
        let fixed: Vec<u16> = (0..4).map(|i| c ^ (1 << i)).collect();
        let taken = (1 << c) | fixed.iter().map(|&v| 1u16 << v).sum::<u16>();
        let mut allowed = vec![!taken; 16];
        allowed[0] = 1 << c;
        for (i, &cell) in unit_cells.iter().enumerate() {
            allowed[cell] = 1 << fixed[i];
        }
        assert_eq!(layout.count(&allowed), normal, "xor {c}");
    }
    // Steve Zook's figure: draws with 0 in the top-left corner = all draws / 16.
    let job = Quarto::lines("rows,cols,maindiags").unwrap();
    let normal_total: u128 = job.variants()[0]
        .placements
        .par_iter()
        .map(|p| u128::from(p.weight) * u128::from(job.variants()[0].normal_draws(p.units)))
        .sum();
    assert_eq!(normal_total * 24, 25893633816);
    assert_eq!(normal_total * u128::from(value_group_order(4)), 414298141056);
}

#[test]
fn the_cell_reduction_matches_a_count_over_every_placement() {
    for text in ["rows,cols,allsqrs,alldiags", "rows,cols,mainsqrs,alldiags"] {
        let variant = Variant::new(Rules::parse(text).unwrap());
        assert!(variant.symmetries > 1, "{text} has cell symmetries to test");
        let reduced: u64 = variant.placements.iter().map(|p| p.weight * variant.normal_draws(p.units)).sum();
        let every = placements(16, 4, &[]);
        assert_eq!(every.len(), 1365);
        let unreduced: u64 = every.iter().map(|p| variant.normal_draws(p.units)).sum();
        assert_eq!(reduced, unreduced, "{text}");
    }
}

#[test]
fn brute_force_on_a_2x4_board_of_eight_values() {
    // Rows of four and columns of two over three bits: every arrangement checked directly.
    let rows = [0b0000_1111u16, 0b1111_0000];
    let cols: Vec<u16> = (0..4).map(|c| (1u16 << c) | (1 << (c + 4))).collect();
    for lines in [rows.to_vec(), [rows.to_vec(), cols.clone()].concat()] {
        let mut brute = 0u64;
        for perm in permutations(8) {
            let values: Vec<u8> = perm.iter().map(|&v| v as u8).collect();
            let ok = lines.iter().all(|&line| {
                let held: Vec<u8> = (0..8).filter(|c| line & (1 << c) != 0).map(|c| values[c]).collect();
                is_draw(&held, 7)
            });
            brute += u64::from(ok);
        }
        let layout = Layout::new(8, 3, lines.clone());
        let maps = line_preserving_maps(2, 4, &lines);
        let reduced: u64 =
            placements(8, 3, &maps).iter().map(|p| p.weight * layout.count(&normal_allowed(8, p.units))).sum::<u64>()
                * value_group_order(3);
        assert_eq!(reduced, brute, "lines {lines:?}");
        assert_eq!(layout.count(&layout.unrestricted()), brute);
        assert!(brute > 0);
    }
}

#[test]
fn brute_force_below_the_documents_example_top_half() {
    // The document's example draw; its top two rows fixed, the bottom eight cells brute-forced.
    let example = [1u8, 0, 13, 3, 7, 2, 9, 10, 11, 5, 4, 14, 12, 15, 6, 8];
    let variant = main_variant();
    let rest: Vec<u8> = example[8..].to_vec();
    let mut brute = 0u64;
    for perm in permutations(8) {
        let mut board = example;
        for (i, &p) in perm.iter().enumerate() {
            board[8 + i] = rest[p];
        }
        brute +=
            u64::from(variant.rules.lines.iter().all(|&line| {
                is_draw(&(0..16).filter(|c| line & (1 << c) != 0).map(|c| board[c]).collect::<Vec<_>>(), 15)
            }));
    }
    let mut allowed = vec![rest.iter().map(|&v| 1u16 << v).sum::<u16>(); 16];
    for cell in 0..8 {
        allowed[cell] = 1 << example[cell];
    }
    assert!(brute >= 1, "the example itself is a draw");
    assert_eq!(variant.layout.count(&allowed), brute);
}

#[test]
fn line_families_parse_and_refuse() {
    assert_eq!(Family::MainSqrs.lines().len(), 14);
    assert_eq!(Family::AllSqrs.lines().len(), 20);
    assert_eq!(Family::AllDiags.lines().len(), 5);
    assert_eq!(Rules::parse("cols,rows").unwrap(), Rules::parse("rows+cols").unwrap());
    let error = Rules::parse("rows,diagonals").unwrap_err().to_string();
    assert!(error.contains("unknown Quarto line family \"diagonals\""), "{error}");
    assert!(Rules::parse("").is_err());
    let table = Quarto::table();
    assert_eq!(table.slots().len(), 9);
    // Rebuilt from the parameters a job spec records, the table has the same shard plan.
    let params = toml::toml! { lines = "rows,cols,maindiags"
    table = true };
    let Job::Subtree(rebuilt) = problems::find("quarto").unwrap().task(&params).unwrap().job().unwrap() else {
        panic!("a subtree job")
    };
    assert_eq!(rebuilt.fingerprint(), table.fingerprint());
}
