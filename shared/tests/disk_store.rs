//! The out-of-core store gives exactly the counts of the in-memory store, also when buckets
//! overflow their memory budget and are aggregated in sorted runs.

mod common;

use std::path::Path;

use common::{checked_residues, in_memory, known, on_disk, scratch};
use leaper_core::engine::store::disk_store;
use leaper_core::engine::sweep::SweepReport;
use leaper_core::engine::{Moduli, RecordLayout};
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::closed_tours;

/// The closed tours of `width` x 1 to 10, counted in memory in `buckets` partitions and out of
/// core in `dir` within `mem_limit`, each verified with a spare modulus.
fn memory_and_disk(width: usize, buckets: usize, dir: &Path, mem_limit: u64) -> (SweepReport, SweepReport) {
    let job = closed_tours(Geometry::new(width, 10, MoveSet::knight()), 1).unwrap();
    let memory = in_memory(job.as_ref(), &checked_residues(), buckets);
    (memory, on_disk(job.as_ref(), &checked_residues(), dir, buckets, mem_limit))
}

#[test]
fn disk_equals_memory() {
    let dir = scratch("equal");
    let (memory, disk) = memory_and_disk(6, 31, &dir, 1 << 30);
    assert_eq!(memory.counts, disk.counts);
    assert_eq!(memory.peak_states, disk.peak_states);
    assert_eq!(disk.counts[9].1.to_string(), known("knight 6x10"));
    assert!(disk.peak_bytes > 0);
}

#[test]
fn tiny_memory_limit_forces_sorted_runs() {
    let dir = scratch("tiny");
    let (memory, disk) = memory_and_disk(6, 7, &dir, 4 << 20);
    assert_eq!(memory.counts, disk.counts);
}

#[test]
fn an_impossible_memory_limit_is_refused() {
    let dir = scratch("refused");
    let layout = RecordLayout::new(1, 2);
    let error =
        disk_store(layout, &dir, 0, 503, Moduli::first(2).unwrap(), 1 << 20, None).err().expect("refused").to_string();
    assert!(error.contains("--mem-limit"), "{error}");
    // Enough to merge, too little for shares of 503 buckets that each take a whole stage twice.
    let error =
        disk_store(layout, &dir, 0, 503, Moduli::first(2).unwrap(), 34 << 20, None).err().expect("refused").to_string();
    assert!(error.contains("bytes per bucket") && error.contains("lower --buckets"), "{error}");
    // With 31 buckets the same limit is enough.
    assert!(disk_store(layout, &dir, 0, 31, Moduli::first(2).unwrap(), 34 << 20, None).is_ok());
}

/// Emits every key of `keys` with count 1, `copies` times over (each chunk of 256 keys again
/// right after itself, as the successors of nearby states often are), into a fresh store of
/// one bucket; returns what the step spilled and the layer it left, as `(key, count)`.
fn emit_copies(
    dir: &std::path::Path,
    mem_limit: u64,
    keys: std::ops::Range<u64>,
    copies: u64,
) -> (u64, Vec<(u64, u64)>) {
    let mut store = disk_store(RecordLayout::new(1, 1), dir, 0, 1, Moduli::first(1).unwrap(), mem_limit, None).unwrap();
    for chunk in keys.collect::<Vec<_>>().chunks(256) {
        let records: Vec<u64> = chunk.iter().flat_map(|&key| [key, 1]).collect();
        for _ in 0..copies {
            store.emit(0, &records).unwrap();
        }
    }
    let summary = store.finish_step().unwrap();
    let mut layer = Vec::new();
    store
        .read_bucket(0, &mut |keys, residues| {
            layer.extend(keys.iter().copied().zip(residues.iter().copied()));
            Ok(())
        })
        .unwrap();
    assert_eq!(summary.states, layer.len() as u64);
    (summary.spilled_bytes, layer)
}

#[test]
fn a_layer_kept_in_memory_reads_as_its_sections_also_once_dropped_for_room() {
    // Step 1 writes two buckets from their arrays, which the store keeps; step 2 reads bucket 0
    // from memory, then fills the next layer past the store's shares, so the copy of bucket 1
    // goes and bucket 1 is read from its section: the same states either way.
    let dir = scratch("resident");
    let layout = RecordLayout::new(1, 1);
    let mut store = disk_store(layout, &dir, 0, 2, Moduli::first(1).unwrap(), 8 << 20, None).unwrap();
    let records = |keys: std::ops::Range<u64>, count: u64| -> Vec<u64> { keys.flat_map(|k| [k * 7, count]).collect() };
    for (bucket, keys) in [(0, 1..3001), (1, 5000..9001)] {
        for chunk in records(keys, 2).chunks(2 * 1000) {
            store.emit_merged(bucket, chunk).unwrap();
        }
    }
    store.finish_step().unwrap();
    let read = |store: &dyn leaper_core::engine::store::StateStore, bucket: usize| {
        let mut layer = Vec::new();
        store
            .read_bucket(bucket, &mut |keys, residues| {
                layer.extend(keys.iter().copied().zip(residues.iter().copied()));
                Ok(())
            })
            .unwrap();
        layer
    };
    assert_eq!(read(store.as_ref(), 0), (1..3001).map(|k| (k * 7, 2)).collect::<Vec<_>>());
    for chunk in records(10_000..1_000_000, 1).chunks(2 * 1000) {
        store.emit_merged(0, chunk).unwrap();
    }
    assert_eq!(read(store.as_ref(), 1), (5000..9001).map(|k| (k * 7, 2)).collect::<Vec<_>>());
    let summary = store.finish_step().unwrap();
    assert_eq!(summary.states, 990_000);
    assert!(summary.spilled_bytes > 0, "the next layer passed the shares");
}

#[test]
fn successors_are_merged_before_they_reach_the_disk() {
    // Room for every key: three copies of 1000 keys are merged in memory and go straight to
    // the bucket section, without a spill.
    let dir = scratch("premerged");
    let (spilled, layer) = emit_copies(&dir, 64 << 20, 1..1001, 3);
    assert_eq!(spilled, 0);
    assert_eq!(layer, (1..1001).map(|key| (key, 3)).collect::<Vec<_>>());
    std::fs::remove_dir_all(&dir).unwrap();

    // Room for a fraction of them: the table is written to the spill when full, as a sorted,
    // compressed run (consecutive keys cost next to nothing, where a raw record cost 16 bytes),
    // and what reaches the disk in several pieces is merged all the same.
    let dir = scratch("premerged-small");
    let (spilled, layer) = emit_copies(&dir, 5 << 20, 1..200_001, 2);
    assert!((1..2 * 200_000).contains(&spilled), "{spilled} bytes spilled");
    assert_eq!(layer, (1..200_001).map(|key| (key, 2)).collect::<Vec<_>>());
}
