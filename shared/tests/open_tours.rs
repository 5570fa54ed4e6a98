//! Open tour counts (Hamiltonian paths): the transfer matrix against published values, against
//! brute force, against its own closed counts, and across the two sides of a board.

use std::time::Instant;

mod common;

use common::{checked_residues, in_memory, known, on_disk, scratch};
use leaper_core::engine::SweepJob;
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::{tours, TourKind};
use leaper_core::problems::tours::brute;
use rug::Integer;

/// The reported counts `(slot, count)` of `kind` tours, lengths `min_rows..=rows` at width
/// `width`, verified with a spare modulus.
fn run(width: usize, rows: usize, min_rows: usize, moves: &MoveSet, kind: TourKind) -> Vec<(usize, Integer)> {
    let job = tours(Geometry::new(width, rows, moves.clone()), min_rows, kind).expect("a valid board");
    run_job(job.as_ref())
}

fn run_job(job: &dyn SweepJob) -> Vec<(usize, Integer)> {
    in_memory(job, &checked_residues(), 31).counts
}

/// Open tours of every length `1..=rows` at width `width`: entry `n - 1` is `width x n`.
fn open_sweep(width: usize, rows: usize, moves: &MoveSet) -> Vec<Integer> {
    run(width, rows, 1, moves, TourKind::Open).into_iter().map(|(_, count)| count).collect()
}

/// Open tours of one board, swept along its longer side with full pruning, as the CLI does.
fn open(width: usize, length: usize) -> Integer {
    let (w, l) = if width <= length { (width, length) } else { (length, width) };
    run(w, l, l, &MoveSet::knight(), TourKind::Open).pop().unwrap().1
}

#[test]
fn published_open_tour_counts() {
    // Undirected open knight's tours (OEIS A165134 counts the square boards directed).
    for (board, want) in [
        ((1, 1), "1"),
        ((3, 4), "8"),
        ((4, 5), "82"),
        ((5, 5), "864"),
        ((6, 6), known("knight 6x6 open")),
        ((3, 10), "3048"),
        ((4, 10), "1213112"),
        ((5, 8), "18061054"),
        ((5, 12), "3611823644006"),
        ((6, 7), "389969466"),
    ] {
        assert_eq!(open(board.0, board.1).to_string(), want, "{}x{}", board.0, board.1);
    }
}

/// Open tours of one board `width` wide, out of core (as the CLI's `--job-dir` counts them).
fn open_out_of_core(width: usize, rows: usize, buckets: usize, budget: u64) -> Integer {
    let dir = scratch(&format!("open-{width}x{rows}"));
    let job = tours(Geometry::new(width, rows, MoveSet::knight()), rows, TourKind::Open).unwrap();
    let report = on_disk(job.as_ref(), &checked_residues(), &dir, buckets, budget);
    report.counts[0].1.clone()
}

#[test]
#[ignore = "about fifteen minutes out of core: run with --ignored"]
fn seven_by_seven_open() {
    // 264 million states at the peak.
    assert_eq!(open_out_of_core(7, 7, 503, 8 << 30).to_string(), "82787609160");
}

#[test]
#[ignore = "not yet run: tens of billions of states at the peak, days and terabytes of spills on one machine"]
fn eight_by_eight_open() {
    // The directed count, 19591828170979904, took a distributed project until 2014.
    assert_eq!(open_out_of_core(8, 8, 4093, 16 << 30).to_string(), "9795914085489952");
}

/// The knight's open tours of `width x 1 ..= width x longest`: one sweep against brute force.
fn agrees_with_brute_force(width: usize, longest: usize) {
    let knight = MoveSet::knight();
    let swept = open_sweep(width, longest, &knight);
    for length in 1..=longest {
        let started = Instant::now();
        let brute = brute::count_paths(width, length, &knight).paths;
        assert_eq!(swept[length - 1], brute, "{width}x{length}");
        eprintln!("{width}x{length}: {brute} open tours, brute force {:.2?}", started.elapsed());
    }
}

#[test]
fn transfer_matrix_matches_brute_force_on_every_board_up_to_six_by_six() {
    for width in 1..=6 {
        agrees_with_brute_force(width, 6);
    }
}

#[test]
fn transfer_matrix_matches_brute_force_on_thin_boards() {
    agrees_with_brute_force(3, 10);
    agrees_with_brute_force(4, 10);
}

#[test]
fn transfer_matrix_matches_brute_force_for_other_leapers() {
    // (moves, widest frontier, longest side brute force finishes quickly)
    let pieces: [(&str, usize, usize); 4] = [("2,3", 5, 5), ("0,1", 5, 5), ("0,1+1,1", 4, 4), ("1,2+0,2", 4, 5)];
    let mut nonzero = 0;
    for (moves, widest, longest) in pieces {
        let moves: MoveSet = moves.parse().unwrap();
        for width in 1..=widest {
            let swept = open_sweep(width, longest, &moves);
            for length in 1..=longest {
                let brute = brute::count_paths(width, length, &moves).paths;
                assert_eq!(swept[length - 1], brute, "{moves} on {width}x{length}");
                nonzero += usize::from(brute > 0);
            }
        }
    }
    assert!(nonzero >= 40, "only {nonzero} boards with open tours");
}

#[test]
fn open_tours_with_adjacent_ends_are_the_closed_tours_opened_at_every_edge() {
    // Deleting one of the N edges of a closed tour leaves an open tour whose ends are a move
    // apart, and such an open tour closes in one way: N * closed = open tours with adjacent ends.
    let mut nonzero = 0;
    let boards = [("1,2", 5, 6), ("1,2", 3, 10), ("1,2", 4, 7), ("0,1", 4, 6), ("2,3", 5, 5), ("0,1+1,1", 3, 4)];
    for (moves, width, longest) in boards {
        let moves: MoveSet = moves.parse().unwrap();
        let closed: Vec<Integer> =
            run(width, longest, 1, &moves, TourKind::Closed).into_iter().map(|(_, count)| count).collect();
        for length in 1..=longest {
            let paths = brute::count_paths(width, length, &moves);
            let cells = (width * length) as u128;
            let expected = if cells < 3 { Integer::ZERO } else { closed[length - 1].clone() * cells };
            assert_eq!(Integer::from(paths.adjacent_ends), expected, "{moves} on {width}x{length}");
            nonzero += usize::from(paths.adjacent_ends > 0);
        }
    }
    assert!(nonzero >= 10, "only {nonzero} boards with closed tours");
}

#[test]
fn both_kinds_from_one_sweep_equal_two_sweeps() {
    let knight = MoveSet::knight();
    for (width, rows, min_rows) in [(5, 8, 1), (6, 6, 6), (3, 10, 1)] {
        let both = run(width, rows, min_rows, &knight, TourKind::Both);
        let closed = run(width, rows, min_rows, &knight, TourKind::Closed);
        let open = run(width, rows, min_rows, &knight, TourKind::Open);
        assert_eq!(both.len(), 2 * closed.len());
        for (i, rows) in (min_rows..=rows).enumerate() {
            assert_eq!(both[2 * i], (2 * rows, closed[i].1.clone()), "{width}x{rows} closed");
            assert_eq!(both[2 * i + 1], (2 * rows + 1, open[i].1.clone()), "{width}x{rows} open");
        }
    }
    let six = run(6, 6, 6, &knight, TourKind::Both);
    assert_eq!(
        (six[0].1.to_string(), six[1].1.to_string()),
        (known("knight 6x6").into(), known("knight 6x6 open").into())
    );
}

#[test]
fn width_nine_open_tours_take_128_bit_keys() {
    let knight = MoveSet::knight();
    let wide = tours(Geometry::new(9, 3, knight.clone()), 1, TourKind::Open).unwrap();
    assert_eq!(wide.key_words(), 2, "an open frontier at width 9 needs 65 bits");
    let closed = tours(Geometry::new(9, 3, knight.clone()), 1, TourKind::Closed).unwrap();
    assert_eq!(closed.key_words(), 1, "a closed one fits 64");
    let across: Vec<Integer> = run_job(wide.as_ref()).into_iter().map(|(_, count)| count).collect();
    for length in 1..=3 {
        assert_eq!(across[length - 1], open(length, 9), "9x{length} against {length}x9");
    }
    assert_eq!(across[2], 560);
}

#[test]
#[ignore = "about a minute on two cores: run with --ignored"]
fn nine_by_four_open_sweep_equals_four_by_nine() {
    let counts = open_sweep(9, 4, &MoveSet::knight());
    assert_eq!(counts[3].to_string(), "189688");
    assert_eq!(open(4, 9).to_string(), "189688");
}
