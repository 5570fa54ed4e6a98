//! The engine tests' kit: sweeps run in this process (in memory, or out of core in a scratch
//! directory), the options a checked count takes, the known counts and scratch directories of
//! `leaper-test-kit`. Each test file uses some of them.
#![allow(dead_code)]

use std::path::Path;

use leaper_core::engine::store::disk_store;
use leaper_core::engine::sweep::{sweep_in_memory, sweep_in_process, CountRoute, StoreFactory, SweepOptions};
use leaper_core::engine::sweep::{SweepProgress, SweepReport};
use leaper_core::engine::{Moduli, SweepJob};

#[allow(unused_imports)] // each test file takes what it needs
pub use leaper_test_kit::{known, known_lines, scratch, scratch_dir, Scratch};

/// Residues checked by a spare modulus, in one pass: the route of a count that may pass 64
/// bits, and of every count the tests cross-check.
pub fn checked_residues() -> SweepOptions {
    SweepOptions { spare_moduli: 1, moduli_per_pass: None, counts: CountRoute::Residues }
}

/// `job` counted in memory in `buckets` partitions, with no memory limit.
pub fn in_memory(job: &dyn SweepJob, options: &SweepOptions, buckets: usize) -> SweepReport {
    sweep_in_memory(job, options, buckets, u64::MAX).expect("the sweep runs")
}

/// `job` counted out of core in `dir`, in `buckets` partitions within `mem_limit` bytes.
pub fn on_disk(job: &dyn SweepJob, options: &SweepOptions, dir: &Path, buckets: usize, mem_limit: u64) -> SweepReport {
    let mut stores =
        StoreFactory(|layout, moduli: &Moduli| disk_store(layout, dir, 0, buckets, moduli.clone(), mem_limit, None));
    sweep_in_process(job, options, &mut stores, SweepProgress::default()).expect("the sweep runs")
}
