//! Boards whose frontier needs more than 64 bits run on 128-bit keys, through the same engine:
//! the transfer matrix against brute force and against the same board swept along its other
//! side (64-bit keys), in memory and out of core.

mod common;

use common::{checked_residues, on_disk, scratch};
use leaper_core::engine::sweep::SweepReport;
use leaper_core::engine::SweepJob;
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::closed_tours;
use leaper_core::problems::tours::brute;
use rug::Integer;

fn job(width: usize, rows: usize, min_rows: usize, moves: &MoveSet) -> Box<dyn SweepJob> {
    closed_tours(Geometry::new(width, rows, moves.clone()), min_rows).expect("a board the engine accepts")
}

/// Counts of lengths `min_rows..=rows`.
fn counts(report: SweepReport) -> Vec<Integer> {
    report.counts.into_iter().map(|(_, count)| count).collect()
}

/// Counts of lengths `min_rows..=rows`, in memory, verified with a spare modulus.
fn in_memory(job: &dyn SweepJob) -> Vec<Integer> {
    counts(common::in_memory(job, &checked_residues(), 31))
}

#[test]
fn the_knight_at_width_10_needs_128_bit_keys_and_matches_brute_force() {
    let knight = MoveSet::knight();
    let wide = job(10, 4, 1, &knight);
    assert_eq!(wide.key_words(), 2, "width 10 needs 75 bits");
    assert_eq!(job(9, 4, 1, &knight).key_words(), 1, "width 9 fits 64 bits");
    let swept = in_memory(wide.as_ref());
    for length in 1..=4 {
        let brute = brute::count_cycles(10, length, &knight);
        assert_eq!(swept[length - 1], brute, "10x{length}");
    }
    assert_eq!(swept[2], 16, "3x10 has 16 closed tours");
}

#[test]
#[ignore = "minutes on two cores: run with --ignored"]
fn ten_by_five_on_128_bit_keys_equals_five_by_ten_on_64_bit_keys() {
    let knight = MoveSet::knight();
    let across = in_memory(job(10, 5, 5, &knight).as_ref());
    let along = in_memory(job(5, 10, 10, &knight).as_ref());
    assert_eq!(across, along);
    assert_eq!(along[0].to_string(), "13311268");
}

#[test]
fn out_of_core_128_bit_layers_count_what_memory_counts() {
    let dir = scratch("wide-disk");
    let wide = job(10, 4, 1, &MoveSet::knight());
    // A small budget: some buckets are aggregated in sorted runs and merged.
    let disk = counts(on_disk(wide.as_ref(), &checked_residues(), &dir, 7, 4 << 20));
    assert_eq!(disk, in_memory(wide.as_ref()));
}

#[test]
fn long_leapers_past_the_64_bit_limit_match_brute_force() {
    // (moves, width, longest side brute force finishes quickly): every frontier here needs more
    // than 64 bits (the zebra at width 6: 67; the camel at width 7: 75; the threeleaper: 69).
    let pieces =
        [("2,3", 6, 6), ("1,3", 7, 5), ("2,3+1,1", 6, 4), ("2,3+0,1", 6, 3), ("1,3+0,1", 7, 3), ("0,1+0,3", 7, 2)];
    let mut nonzero = 0;
    for (moves, width, longest) in pieces {
        let moves: MoveSet = moves.parse().unwrap();
        let wide = job(width, longest, 1, &moves);
        assert_eq!(wide.key_words(), 2, "{moves} at width {width}");
        let swept = in_memory(wide.as_ref());
        for length in 1..=longest {
            let brute = brute::count_cycles(width, length, &moves);
            assert_eq!(swept[length - 1], brute, "{moves} on {width}x{length}");
            nonzero += usize::from(brute > 0);
        }
    }
    // Keeps the comparison honest: the zebra and the camel alone have no tours on these boards,
    // their unions with short steps have (2586 on 6x4 with the king's diagonal, 7352 on 7x3 ...).
    assert!(nonzero >= 5, "only {nonzero} boards with tours");
}
