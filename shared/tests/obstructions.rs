//! Reasons a tour count is 0, found before counting (`Task::reasons`): wherever the tours give
//! one, the transfer matrix counts 0, and so does brute force on small boards.

use std::collections::HashMap;
use std::time::Instant;

use leaper_core::engine::problem::{table, Params};
mod common;

use leaper_core::engine::sweep::SweepOptions;
use leaper_core::engine::Problem;
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::{tours, SlotTour, TourKind};
use leaper_core::problems::tours::{brute, TourParams, Tours};
use rug::Integer;

/// The parameters of `leaper tours --moves MOVES WxL [--sweep] --tours KIND`.
fn params(moves: &str, board: &str, sweep: bool, kind: TourKind) -> Params {
    let tour = TourParams {
        piece: "tours".into(),
        moves: moves.into(),
        board: board.into(),
        sweep,
        tours: kind,
        directed: false,
        distinct: false,
        removed: Vec::new(),
    };
    table(&tour).unwrap()
}

/// The same for a piece's own command (`leaper camel 5x12 --sweep`).
fn piece_params(piece: &str, moves: &str, board: &str, kind: TourKind) -> Params {
    let mut params = params(moves, board, true, kind);
    params.insert("piece".into(), piece.into());
    params
}

/// The counts of `kind` tours of every length `1..=rows` at width `width`, by slot.
fn counts(width: usize, rows: usize, moves: &MoveSet, kind: TourKind) -> HashMap<usize, Integer> {
    let job = tours(Geometry::new(width, rows, moves.clone()), 1, kind).expect("a board the keys hold");
    let options = SweepOptions { spare_moduli: 0, moduli_per_pass: None, ..SweepOptions::default() };
    let report = common::in_memory(job.as_ref(), &options, 7);
    report.counts.into_iter().collect()
}

/// Boards brute force checks too: a reason makes it quick only sometimes.
const BRUTE_FORCE_SQUARES: usize = 16;

#[test]
fn every_reason_is_a_zero_count_for_every_leaper_up_to_four_on_boards_up_to_six_by_six() {
    let started = Instant::now();
    let (mut zeros, mut explained, mut brute_checked) = (0, 0, 0);
    let mut unexplained = Vec::new();
    for b in 1..=4u32 {
        for a in 0..=b {
            let moves = MoveSet::leaper(a, b).unwrap();
            for width in 1..=6 {
                for kind in [TourKind::Closed, TourKind::Open] {
                    // Open tours of 6x6 take seconds to count (the knight's are 3318960); 6x5 is
                    // the widest open board here, in both orientations.
                    let longest = if kind == TourKind::Open && width == 6 { 5 } else { 6 };
                    let counted = counts(width, longest, &moves, kind);
                    let board = format!("{width}x{longest}");
                    let reasons: HashMap<usize, String> = Tours
                        .task(&params(&moves.to_string(), &board, true, kind))
                        .unwrap()
                        .reasons()
                        .into_iter()
                        .collect();
                    let open = kind == TourKind::Open;
                    for (&rows, reason) in &reasons {
                        assert_eq!(counted[&rows], 0, "{reason}");
                        if width * rows <= BRUTE_FORCE_SQUARES {
                            let brute = if open {
                                brute::count_paths(width, rows, &moves).paths
                            } else {
                                brute::count_cycles(width, rows, &moves)
                            };
                            assert_eq!(brute, 0, "brute force: {reason}");
                            brute_checked += 1;
                        }
                    }
                    for (rows, count) in &counted {
                        if *count == 0 {
                            zeros += 1;
                            match reasons.contains_key(rows) {
                                true => explained += 1,
                                false => unexplained.push(format!("({a},{b}) {width}x{rows} {}", kind.name())),
                            }
                        }
                    }
                }
            }
        }
    }
    unexplained.sort();
    eprintln!(
        "{zeros} zero counts, {explained} with a reason ({brute_checked} checked by brute force too), {} without \
         ({:.1?}): {}",
        unexplained.len(),
        started.elapsed(),
        unexplained.join(", ")
    );
    // Every zero the transfer matrix counts here (with or without a reason).
    assert_eq!(zeros, 913);
}

#[test]
fn the_camel_and_the_zebra_are_explained_on_every_length() {
    for (piece, moves) in [("camel", "1,3"), ("zebra", "2,3")] {
        let reasons = Tours.task(&piece_params(piece, moves, "5x12", TourKind::Closed)).unwrap().reasons();
        let slots: Vec<usize> = reasons.iter().map(|(slot, _)| *slot).collect();
        assert_eq!(slots, (1..=12).collect::<Vec<_>>(), "{piece} 5x12 closed: {reasons:?}");
    }
    let reasons = Tours.task(&piece_params("camel", "1,3", "5x12", TourKind::Open)).unwrap().reasons();
    assert_eq!(reasons.len(), 12, "every open camel tour too");
    // The transfer matrix agrees: no tour of either on 5x1 ... 5x12.
    for moves in ["1,3", "2,3"] {
        let counted = counts(5, 12, &moves.parse().unwrap(), TourKind::Both);
        assert!((2..=25).all(|slot| counted[&slot] == 0), "{moves}");
    }
}

#[test]
fn reasons_read_exactly() {
    let reason = |params: Params, slot: usize| -> String {
        let reasons = Tours.task(&params).unwrap().reasons();
        reasons.into_iter().find(|(s, _)| *s == slot).map(|(_, r)| r).unwrap_or_else(|| panic!("no reason in {slot}"))
    };
    assert_eq!(
        reason(piece_params("camel", "1,3", "5x12", TourKind::Closed), 12),
        "camel 5x12: no closed tour: every camel move keeps the square's colour, so the board's graph is \
         disconnected (2 components)"
    );
    assert_eq!(
        reason(piece_params("knight", "1,2", "3x3", TourKind::Open), 3),
        "knight 3x3: no open tour: the board's graph is disconnected (2 components; 1 square has no move)"
    );
    let both = SlotTour { open: false, rows: 5 }.slot(TourKind::Both);
    assert_eq!(
        reason(piece_params("knight", "1,2", "5x5", TourKind::Both), both),
        "knight 5x5: no closed tour: every knight move changes the square's colour and the board has 13 squares of \
         one colour and 12 of the other, but a closed tour alternates colours, so it needs as many of each"
    );
    assert_eq!(
        reason(params("0,1", "1x3", false, TourKind::Closed), 3),
        "(0,1) leaper 1x3: no closed tour: a closed tour enters and leaves every square, but 2 squares have only \
         one move"
    );
    assert_eq!(
        reason(params("1,2", "4x4", false, TourKind::Closed), 4),
        "(1,2) leaper 4x4: no closed tour: a closed tour uses both moves of every square that has only two, and the \
         moves this forces, followed, close a cycle of 4 squares, short of the board's 16"
    );
    assert_eq!(
        reason(piece_params("zebra", "2,3", "5x6", TourKind::Closed), 6),
        "zebra 5x6: no closed tour: a closed tour uses both moves of every square that has only two, and the moves \
         this forces, followed, leave a square with fewer than two moves it can make"
    );
    // A single board is named as written, though swept along its longer side.
    assert_eq!(
        reason(params("1,2", "7x3", false, TourKind::Closed), 7),
        "(1,2) leaper 7x3: no closed tour: every (1,2) leaper move changes the square's colour and the board has 11 \
         squares of one colour and 10 of the other, but a closed tour alternates colours, so it needs as many of each"
    );
    // A 1x1 board has its one open tour, and no closed tour.
    let one = Tours.task(&params("1,2", "1x1", false, TourKind::Both)).unwrap().reasons();
    assert_eq!(one.len(), 1);
    assert_eq!(
        one[0].1,
        "(1,2) leaper 1x1: no closed tour: a closed tour enters and leaves every square, but 1 square has no move"
    );
}

#[test]
fn boards_with_tours_have_no_reason() {
    let knight = "1,2";
    assert_eq!(Tours.task(&params(knight, "6x6", false, TourKind::Both)).unwrap().reasons(), Vec::new());
    assert_eq!(Tours.task(&params(knight, "5x5", false, TourKind::Open)).unwrap().reasons(), Vec::new());
    // The knight on 4xn has no closed tour, but for a subtler reason than any checked here.
    assert_eq!(Tours.task(&params(knight, "4x6", false, TourKind::Closed)).unwrap().reasons(), Vec::new());
}

#[test]
fn a_reason_in_brief_names_the_slots_and_the_verdict_of_the_reason_whole() {
    for (moves, board) in [("1,2", "5x20"), ("1,3", "5x12"), ("1,2", "3x12"), ("1,1", "4x6")] {
        for kind in [TourKind::Closed, TourKind::Open] {
            let task = Tours.task(&params(moves, board, true, kind)).unwrap();
            let (whole, brief) = (task.reasons(), task.reasons_in_brief());
            assert_eq!(whole.len(), brief.len(), "{moves} {board} {kind:?}");
            for ((slot, whole), (brief_slot, brief)) in whole.iter().zip(&brief) {
                assert_eq!(slot, brief_slot);
                // `knight 5x3: no closed tour: ` starts both; the brief is the shorter.
                let verdict = |reason: &str| reason.splitn(3, ": ").take(2).collect::<Vec<_>>().join(": ");
                assert_eq!(verdict(whole), verdict(brief), "{whole} | {brief}");
                assert!(brief.len() <= whole.len(), "{whole} | {brief}");
            }
        }
    }
    let brief = Tours.task(&piece_params("knight", "1,2", "5x20", TourKind::Closed)).unwrap().reasons_in_brief();
    let said: Vec<&str> = brief.iter().map(|(_, reason)| reason.as_str()).collect();
    assert_eq!(
        said[..4],
        [
            "knight 5x1: no closed tour: the board's graph is disconnected",
            "knight 5x2: no closed tour: the board's graph is disconnected",
            "knight 5x3: no closed tour: unequal colours",
            "knight 5x4: no closed tour: forced moves contradict",
        ]
    );
}
