//! An in-memory sweep whose layers come near its memory limit: the store turns frugal (batches
//! freed once read, tables once drained) and the counts stay those of a store with no limit.
//! Its own test binary: the store's limit also counts the process's resident growth, which other
//! tests running beside it would inflate.

mod common;

use common::known;
use leaper_core::engine::sweep::{sweep_in_memory, SweepOptions, SweepReport};
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::closed_tours;

fn sweep(mem_limit: u64) -> SweepReport {
    let job = closed_tours(Geometry::new(6, 12, MoveSet::knight()), 1).expect("a valid board");
    sweep_in_memory(job.as_ref(), &SweepOptions::default(), 31, mem_limit).expect("sweep")
}

#[test]
fn a_sweep_near_its_memory_limit_counts_the_same() {
    // The 6 x 12 layers reach 1.03 M states (74 MiB resident with no limit): a quarter of
    // 64 MiB is passed midway (at about 21 MB of records) and the store turns
    // frugal; frugal, the whole sweep stays within the 64 MiB.
    // As the binaries do at startup: chunks of 1 MiB are mappings of their own, returned to the
    // OS when freed (else the allocator's heap keeps them resident, which the limit counts).
    leaper_core::heap::return_large_frees();
    let frugal = sweep(64 << 20);
    let unlimited = sweep(u64::MAX);
    assert_eq!(frugal.counts, unlimited.counts);
    assert_eq!(frugal.counts[11].1.to_string(), known("knight 6x12"));
    assert_eq!(frugal.counts[7].1.to_string(), known("knight 6x8"));
}
