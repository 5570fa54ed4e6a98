//! Closed tour counts: the transfer matrix against published tables and against brute force.

mod common;

use common::{checked_residues, in_memory, known, on_disk, scratch};
use leaper_core::engine::sweep::SweepOptions;
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::closed_tours;
use leaper_core::problems::tours::brute;
use rug::ops::Pow;
use rug::Integer;

/// Counts for lengths `1..=rows` at width `width`, verified with a spare modulus.
fn sweep(width: usize, rows: usize, moves: &MoveSet) -> Vec<Integer> {
    sweep_with(width, rows, moves, None)
}

fn sweep_with(width: usize, rows: usize, moves: &MoveSet, per_pass: Option<usize>) -> Vec<Integer> {
    run(width, rows, 1, moves, per_pass)
}

fn run(width: usize, rows: usize, min_rows: usize, moves: &MoveSet, per_pass: Option<usize>) -> Vec<Integer> {
    let job = closed_tours(Geometry::new(width, rows, moves.clone()), min_rows).expect("a valid board");
    let options = SweepOptions { moduli_per_pass: per_pass, ..checked_residues() };
    let report = in_memory(job.as_ref(), &options, 31);
    let lengths: Vec<usize> = report.counts.iter().map(|(rows, _)| *rows).collect();
    assert_eq!(lengths, (min_rows..=rows).collect::<Vec<_>>());
    report.counts.into_iter().map(|(_, count)| count).collect()
}

/// One board, swept along its longer side with full pruning, as the CLI does.
fn count(width: usize, length: usize) -> Integer {
    let (w, l) = if width <= length { (width, length) } else { (length, width) };
    run(w, l, l, &MoveSet::knight(), None).pop().unwrap()
}

#[test]
fn five_by_even() {
    let counts = sweep(5, 10, &MoveSet::knight());
    assert_eq!(counts[5].to_string(), "8");
    assert_eq!(counts[7].to_string(), "44202");
    assert_eq!(counts[9].to_string(), "13311268");
    for odd in [1, 3, 5, 7, 9] {
        assert_eq!(counts[odd - 1], 0, "5x{odd} has an odd number of cells");
    }
}

#[test]
fn six_by_n() {
    let counts = sweep(6, 10, &MoveSet::knight());
    for n in 1..=10 {
        assert_eq!(counts[n - 1].to_string(), known(&format!("knight 6x{n}")), "6x{n}");
    }
}

#[test]
fn seven_by_even() {
    let counts = sweep(7, 8, &MoveSet::knight());
    for n in 1..=8 {
        assert_eq!(counts[n - 1].to_string(), known(&format!("knight 7x{n}")), "7x{n}");
    }
}

#[test]
#[ignore = "about three minutes on two cores: run with --ignored"]
fn seven_by_ten_and_twelve() {
    let counts = sweep(7, 12, &MoveSet::knight());
    assert_eq!(counts[9].to_string(), known("knight 7x10"));
    // Beyond 2^64: the article's 7 x 2n table is reliable (only its 8 x n table overflowed).
    assert_eq!(counts[11].to_string(), "38350427205194670084");
}

#[test]
fn eight_by_n_small() {
    // Swept along the narrow side; a frontier 8 wide needs the out-of-core store for long
    // boards (hundreds of millions of states by row 4).
    assert_eq!(count(8, 5).to_string(), "44202");
    assert_eq!(count(8, 6).to_string(), known("knight 6x8"));
}

#[test]
#[ignore = "half a minute: run with --ignored (7x8 is in seven_by_even)"]
fn eight_by_seven() {
    assert_eq!(count(8, 7).to_string(), known("knight 7x8"));
}

#[test]
#[ignore = "tens of minutes out of core: run with --ignored"]
fn eight_by_eight() {
    // In memory the peak layers need more than 24 GiB: count out of core.
    let dir = scratch("8x8");
    let job = closed_tours(Geometry::new(8, 8, MoveSet::knight()), 8).unwrap();
    let report = on_disk(job.as_ref(), &checked_residues(), &dir, 503, 8 << 30);
    assert_eq!(report.counts[0].1.to_string(), known("knight 8x8"));
}

#[test]
fn nine_by_six_both_orientations() {
    assert_eq!(count(9, 6).to_string(), known("knight 9x6"));
    assert_eq!(count(6, 9).to_string(), known("knight 6x9"));
}

#[test]
#[ignore = "about three minutes on two cores: run with --ignored"]
fn nine_wide_sweep_to_six_rows() {
    // The flagship's width: a frontier 9 cells wide, swept along 6 rows (9 x 6 also comes from
    // width 6 in `nine_by_six_both_orientations`). Width 9 along 8 rows does not fit one
    // machine (docs/FLAGSHIP.md).
    let counts = sweep(9, 6, &MoveSet::knight());
    assert_eq!(counts[5].to_string(), known("knight 9x6"));
    // Odd cells (9 x 1, 3, 5), a disconnected graph (9 x 2), four rows (Schwenk): no tour.
    for n in 1..=5 {
        assert_eq!(counts[n - 1], 0, "9x{n}");
    }
}

#[test]
fn counts_far_beyond_2_128_are_exact() {
    // 6 x 40 is about 3.8e65: several moduli, reconstructed by CRT and checked against a spare
    // modulus (inside `run`). The short lengths of the same sweep must still match the table.
    let counts = sweep(6, 40, &MoveSet::knight());
    let big = &counts[39];
    // "about 3.8 x 10^65" (the figure); exactness rests on the spare modulus.
    let scale = Integer::from(10).pow(63);
    let leading = Integer::from(big / &scale);
    assert!((375..385).contains(&leading.to_u32().unwrap()), "6x40 = {big}");
    assert_eq!(counts[9].to_string(), known("knight 6x10"));
}

#[test]
fn one_modulus_per_pass_equals_all_at_once() {
    let together = sweep(6, 16, &MoveSet::knight());
    let one_by_one = sweep_with(6, 16, &MoveSet::knight(), Some(1));
    assert_eq!(together, one_by_one);
    assert!(together[15].significant_bits() > 64);
}

#[test]
fn transfer_matrix_matches_brute_force_for_the_knight() {
    let knight = MoveSet::knight();
    for width in 1..=6 {
        let counts = sweep(width, 6, &knight);
        for length in 1..=6 {
            if width * length > 30 {
                continue; // 6x6 is checked on its own below
            }
            let brute = brute::count_cycles(width, length, &knight);
            assert_eq!(counts[length - 1], brute, "{width}x{length}");
        }
    }
}

#[test]
fn six_by_six_knight_brute_force() {
    assert_eq!(brute::count_cycles(6, 6, &MoveSet::knight()), known("knight 6x6").parse::<u128>().unwrap());
    assert_eq!(count(6, 6).to_string(), known("knight 6x6"));
}

#[test]
fn transfer_matrix_matches_brute_force_for_other_leapers() {
    // (moves, widest frontier the 64-bit key admits, longest side brute force finishes quickly)
    let pieces: [(&str, usize, usize); 5] =
        [("2,3", 5, 6), ("1,3", 6, 6), ("0,1", 6, 6), ("0,1+1,1", 4, 5), ("1,2+0,2", 4, 5)];
    let mut nonzero = 0;
    for (moves, widest, longest) in pieces {
        let moves: MoveSet = moves.parse().unwrap();
        for width in 1..=widest {
            let counts = sweep(width, longest, &moves);
            for length in 1..=longest {
                let brute = brute::count_cycles(width, length, &moves);
                assert_eq!(counts[length - 1], brute, "{moves} on {width}x{length}");
                nonzero += usize::from(brute > 0);
            }
        }
    }
    // Keeps the comparison honest: most of these boards do have tours.
    assert!(nonzero >= 30, "only {nonzero} boards with tours");
}

#[test]
fn transposed_boards_agree() {
    // Sweeping across the long side (a wider frontier) is a different computation.
    let knight = MoveSet::knight();
    for (w, l) in [(5, 6), (6, 7), (3, 8), (4, 7)] {
        let along = run(w, l, l, &knight, None).pop().unwrap();
        let across = run(l, w, w, &knight, None).pop().unwrap();
        assert_eq!(along, across, "{w}x{l}");
    }
}

#[test]
fn single_board_equals_sweep_entry() {
    // Full pruning (single board) and partial pruning (sweep) must agree.
    let counts = sweep(6, 9, &MoveSet::knight());
    for length in 5..=9 {
        assert_eq!(run(6, length, length, &MoveSet::knight(), None)[0], counts[length - 1], "6x{length}");
    }
}

#[test]
fn grid_graph_cycles_match_oeis_a003763() {
    // Hamiltonian cycles of the 2n x 2n grid graph: 1, 6, 1072, 4638576.
    let wazir = MoveSet::leaper(0, 1).unwrap();
    let counts = sweep(8, 8, &wazir);
    assert_eq!(counts[1], 1, "the 8x2 grid has one Hamiltonian cycle, its boundary");
    assert_eq!(sweep(2, 2, &wazir)[1], 1);
    assert_eq!(sweep(4, 4, &wazir)[3], 6);
    assert_eq!(sweep(6, 6, &wazir)[5], 1072);
    assert_eq!(counts[7], 4638576);
}
