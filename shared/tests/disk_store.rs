//! The out-of-core store gives exactly the counts of the in-memory store, also when buckets
//! overflow their memory budget and are aggregated in sorted runs.

use leaper_core::arith::Moduli;
use leaper_core::board::{Geometry, MoveSet};
use leaper_core::store::{DiskStore, MemoryStore, StateStore};
use leaper_core::tmx::{count_closed_tours, StoreFactory, SweepConfig, SweepProgress, SweepReport};

fn sweep(
    width: usize,
    rows: usize,
    new_store: &mut dyn FnMut(&Moduli) -> leaper_core::Result<Box<dyn StateStore>>,
) -> SweepReport {
    let config = SweepConfig {
        geometry: Geometry::new(width, rows, MoveSet::knight()),
        min_rows: 1,
        spare_moduli: 1,
        moduli_per_pass: None,
    };
    count_closed_tours(&config, &mut StoreFactory(new_store), SweepProgress::default()).expect("sweep")
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("leaper-disk-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn disk_equals_memory() {
    let memory = sweep(6, 10, &mut |m| Ok(Box::new(MemoryStore::new(31, m.clone(), u64::MAX))));
    let dir = scratch("equal");
    let disk = sweep(6, 10, &mut |m| Ok(Box::new(DiskStore::create(&dir, 31, m.clone(), 1 << 30)?)));
    assert_eq!(memory.counts, disk.counts);
    assert_eq!(memory.peak_states, disk.peak_states);
    assert_eq!(disk.counts[9].1.to_string(), "239187240144");
    assert!(disk.peak_bytes > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tiny_memory_limit_forces_sorted_runs() {
    let memory = sweep(6, 10, &mut |m| Ok(Box::new(MemoryStore::new(7, m.clone(), u64::MAX))));
    let dir = scratch("tiny");
    let disk = sweep(6, 10, &mut |m| Ok(Box::new(DiskStore::create(&dir, 7, m.clone(), 4 << 20)?)));
    assert_eq!(memory.counts, disk.counts);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_impossible_memory_limit_is_refused() {
    let dir = scratch("refused");
    let error = DiskStore::create(&dir, 503, Moduli::first(2).unwrap(), 1 << 20).err().expect("refused").to_string();
    assert!(error.contains("--mem-limit"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}
