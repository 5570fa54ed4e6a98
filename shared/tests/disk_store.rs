//! The out-of-core store gives exactly the counts of the in-memory store, also when buckets
//! overflow their memory budget and are aggregated in sorted runs.

use leaper_core::engine::store::{disk_store, memory_store, StateStore};
use leaper_core::engine::sweep::{sweep_in_process, StoreFactory, SweepOptions, SweepProgress, SweepReport};
use leaper_core::engine::{Moduli, RecordLayout};
use leaper_core::problems::tours::board::{Geometry, MoveSet};
use leaper_core::problems::tours::transfer::closed_tours;

/// Makes the store of each pass.
type NewStore<'a> = dyn FnMut(RecordLayout, &Moduli) -> leaper_core::Result<Box<dyn StateStore>> + 'a;

fn sweep(width: usize, rows: usize, new_store: &mut NewStore) -> SweepReport {
    let job = closed_tours(Geometry::new(width, rows, MoveSet::knight()), 1).unwrap();
    let options = SweepOptions { spare_moduli: 1, moduli_per_pass: None };
    sweep_in_process(job.as_ref(), &options, &mut StoreFactory(new_store), SweepProgress::default()).expect("sweep")
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("leaper-disk-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn disk_equals_memory() {
    let memory = sweep(6, 10, &mut |layout, m| memory_store(layout, 31, m.clone(), u64::MAX));
    let dir = scratch("equal");
    let disk = sweep(6, 10, &mut |layout, m| disk_store(layout, &dir, 0, 31, m.clone(), 1 << 30, None));
    assert_eq!(memory.counts, disk.counts);
    assert_eq!(memory.peak_states, disk.peak_states);
    assert_eq!(disk.counts[9].1.to_string(), "239187240144");
    assert!(disk.peak_bytes > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tiny_memory_limit_forces_sorted_runs() {
    let memory = sweep(6, 10, &mut |layout, m| memory_store(layout, 7, m.clone(), u64::MAX));
    let dir = scratch("tiny");
    let disk = sweep(6, 10, &mut |layout, m| disk_store(layout, &dir, 0, 7, m.clone(), 4 << 20, None));
    assert_eq!(memory.counts, disk.counts);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_impossible_memory_limit_is_refused() {
    let dir = scratch("refused");
    let layout = RecordLayout::new(1, 2);
    let error =
        disk_store(layout, &dir, 0, 503, Moduli::first(2).unwrap(), 1 << 20, None).err().expect("refused").to_string();
    assert!(error.contains("--mem-limit"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}
