//! The exact 64-bit pass against the residue route: the same counts, below `2^64` from one pass,
//! past `2^128` from the residue passes it falls back to.

use leaper_core::engine::arith::SATURATING;
use leaper_core::engine::store::memory_store;
use leaper_core::engine::sweep::{
    sweep_in_process, CountRoute, StoreFactory, SweepOptions, SweepProgress, SweepReport,
};
use leaper_core::engine::{Moduli, RecordLayout};
use leaper_core::problems::tours::board::{Geometry, MoveSet};
use leaper_core::problems::tours::transfer::closed_tours;
use rug::Integer;

fn sweep(width: usize, rows: usize, moves: &MoveSet, options: SweepOptions) -> SweepReport {
    let job = closed_tours(Geometry::new(width, rows, moves.clone()), 1).expect("a valid board");
    let mut new_store = |layout: RecordLayout, m: &Moduli| memory_store(layout, 31, m.clone(), u64::MAX);
    sweep_in_process(job.as_ref(), &options, &mut StoreFactory(&mut new_store), SweepProgress::default())
        .expect("sweep")
}

fn exact(width: usize, rows: usize, moves: &MoveSet) -> SweepReport {
    sweep(width, rows, moves, SweepOptions { counts: CountRoute::ExactFirst, ..SweepOptions::default() })
}

/// The residue route, checked with a spare modulus.
fn residues(width: usize, rows: usize, moves: &MoveSet) -> SweepReport {
    let options = SweepOptions { spare_moduli: 1, counts: CountRoute::Residues, ..SweepOptions::default() };
    sweep(width, rows, moves, options)
}

#[test]
fn counts_below_2_64_take_one_exact_pass_and_agree_with_residues() {
    // The bound of 6 x 14 asks for two moduli; every count fits in 64 bits.
    let knight = MoveSet::knight();
    let fast = exact(6, 14, &knight);
    assert_eq!(fast.moduli, Moduli::saturating(), "one exact pass, no residues");
    let slow = residues(6, 14, &knight);
    assert!(slow.moduli.len() >= 3, "{:?}", slow.moduli);
    assert_eq!(fast.counts, slow.counts);
    assert_eq!(fast.counts[13].1.to_string(), "4005716717182224826");
}

#[test]
fn counts_past_2_128_fall_back_to_residues_and_agree_with_them() {
    // King tours of 3 x n grow about sixfold a column: 3 x 60 has about 2^158.
    let king = MoveSet::leapers(&[(1, 0), (1, 1)]).unwrap();
    let fast = exact(3, 60, &king);
    assert_eq!(fast.moduli.values()[0], SATURATING, "the exact pass ran first");
    assert!(fast.moduli.len() > 1, "and the residue passes after it");
    let slow = residues(3, 60, &king);
    assert_eq!(fast.counts, slow.counts);
    let past = |bits: u32| fast.counts.iter().filter(|(_, c)| *c > (Integer::from(1) << bits)).count();
    assert!(past(128) > 0 && past(64) > past(128) && past(64) < fast.counts.len(), "{:?}", fast.counts);
}
