//! Grouped expansion hands every key of a layer to the store exactly once, and the counts are
//! those of the plain route.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use leaper_core::engine::store::{memory_store, LayerSummary, StateStore, StateVisitor};
use leaper_core::engine::sweep::{sweep_in_process, StoreFactory, SweepOptions, SweepProgress, SweepReport};
use leaper_core::engine::{Moduli, RecordLayout};
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::{tours, TourKind};

use common::known;

/// Records handed to the stores, and states in the layers they made.
#[derive(Default)]
struct Tally {
    records: AtomicU64,
    states: AtomicU64,
}

/// A memory store that counts what it is given and asks for grouped successors or not, within
/// a reading budget or not.
struct Counting {
    inner: Box<dyn StateStore>,
    grouped: bool,
    reading_budget: Option<usize>,
    tally: Arc<Tally>,
}

impl StateStore for Counting {
    fn layout(&self) -> RecordLayout {
        self.inner.layout()
    }
    fn buckets(&self) -> usize {
        self.inner.buckets()
    }
    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> leaper_core::Result<()> {
        self.inner.read_bucket(bucket, visit)
    }
    fn emit(&self, bucket: usize, records: &[u64]) -> leaper_core::Result<()> {
        self.tally.records.fetch_add((records.len() / self.layout().stride()) as u64, Ordering::Relaxed);
        self.inner.emit(bucket, records)
    }
    fn emit_merged(&self, bucket: usize, records: &[u64]) -> leaper_core::Result<()> {
        self.tally.records.fetch_add((records.len() / self.layout().stride()) as u64, Ordering::Relaxed);
        self.inner.emit_merged(bucket, records)
    }
    fn finish_step(&mut self) -> leaper_core::Result<LayerSummary> {
        let summary = self.inner.finish_step()?;
        self.tally.states.fetch_add(summary.states, Ordering::Relaxed);
        Ok(summary)
    }
    fn takes_grouped(&self) -> bool {
        self.grouped
    }
    fn reading_budget(&self) -> Option<usize> {
        self.reading_budget
    }
    fn bucket_states(&self, bucket: usize) -> Option<u64> {
        self.inner.bucket_states(bucket)
    }
}

fn sweep(width: usize, rows: usize, kind: TourKind, grouped: bool) -> (SweepReport, Arc<Tally>) {
    sweep_within(width, rows, kind, grouped, None)
}

fn sweep_within(
    width: usize,
    rows: usize,
    kind: TourKind,
    grouped: bool,
    reading_budget: Option<usize>,
) -> (SweepReport, Arc<Tally>) {
    let job = tours(Geometry::new(width, rows, MoveSet::knight()), 1, kind).unwrap();
    let tally = Arc::new(Tally::default());
    let mut new_store = |layout: RecordLayout, moduli: &Moduli| -> leaper_core::Result<Box<dyn StateStore>> {
        let inner = memory_store(layout, 31, moduli.clone(), u64::MAX)?;
        Ok(Box::new(Counting { inner, grouped, reading_budget, tally: tally.clone() }))
    };
    let options = SweepOptions::default();
    let report =
        sweep_in_process(job.as_ref(), &options, &mut StoreFactory(&mut new_store), SweepProgress::default()).unwrap();
    (report, tally)
}

#[test]
fn grouped_successors_reach_the_store_once_each() {
    for (width, rows, kind, last) in
        [(6, 8, TourKind::Closed, known("knight 6x8")), (5, 6, TourKind::Open, "18784"), (5, 5, TourKind::Both, "864")]
    {
        let (grouped, tally) = sweep(width, rows, kind, true);
        let (plain, plain_tally) = sweep(width, rows, kind, false);
        assert_eq!(grouped.counts, plain.counts, "{width}x{rows} {kind:?}");
        assert_eq!(grouped.peak_states, plain.peak_states);
        assert!(grouped.counts.iter().any(|(_, count)| count.to_string() == last), "{:?}", grouped.counts);
        // Grouped: one record per state of every layer (the start state's is the seed).
        let (records, states) = (tally.records.load(Ordering::Relaxed), tally.states.load(Ordering::Relaxed));
        assert_eq!(records, states, "{width}x{rows} {kind:?}");
        // Plain: every copy of a state travels, so the check above can fail.
        let plain_records = plain_tally.records.load(Ordering::Relaxed);
        assert!(
            plain_records > states + states / 10,
            "{width}x{rows} {kind:?}: {plain_records} copies of {states} states"
        );
    }
}

#[test]
fn buckets_too_large_for_the_reading_budget_are_streamed_and_count_the_same() {
    // 6 x 8: layers of up to 0.7 M states in 31 buckets. 400 KB a thread reads buckets of up to
    // about 8 K states whole (16-byte records): the small layers are grouped, the large ones
    // streamed, their successors merged by the store. No budget at all: every bucket streamed.
    let (grouped, tally) = sweep(6, 8, TourKind::Closed, true);
    let (plain, plain_tally) = sweep(6, 8, TourKind::Closed, false);
    let states = tally.states.load(Ordering::Relaxed);
    for budget in [400_000, 0] {
        let (within, within_tally) = sweep_within(6, 8, TourKind::Closed, true, Some(budget));
        assert_eq!(within.counts, grouped.counts, "budget {budget}");
        assert_eq!(within.peak_states, grouped.peak_states);
        assert_eq!(within_tally.states.load(Ordering::Relaxed), states);
        let records = within_tally.records.load(Ordering::Relaxed);
        let plain_records = plain_tally.records.load(Ordering::Relaxed);
        assert!(records > states + states / 10, "budget {budget}: {records} records for {states} states");
        if budget > 0 {
            assert!(records < plain_records, "budget {budget}: {records} records, {plain_records} plain");
        } else {
            assert_eq!(records, plain_records, "every bucket streamed: every copy travels");
        }
    }
    assert!(grouped.counts.iter().any(|(_, count)| count.to_string() == known("knight 6x8")));
    assert_eq!(plain.counts, grouped.counts);
}
