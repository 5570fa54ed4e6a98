//! An out-of-core sweep keeps the process's resident size within its memory limit, however
//! large its buckets. Its own test binary: the resident size is the whole process's, which
//! other tests running beside it would inflate.

mod common;

use common::{known, on_disk, scratch};
use leaper_core::engine::sweep::{CountRoute, SweepOptions};
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::closed_tours;

#[test]
fn an_out_of_core_sweep_stays_within_its_memory_limit() {
    // The 6 x 12 sweep with residues from the start (three moduli: 32-byte records) in 4
    // buckets: its layers reach 1.03 M states, buckets of 0.3 M and more. Grouped expansion
    // read each bucket whole, twice, with no regard to the limit: `leaper knight 6x12 --sweep
    // --counts residues --mem-limit 48MiB --buckets 4` held 78 MiB. Buckets too large for a
    // thread's share are now streamed, and the tables leave room for one growing or sorted
    // table per thread: 36 MiB.
    leaper_core::heap::return_large_frees();
    let limit: u64 = 48 << 20;
    let dir = scratch("disk-limit");
    let job = closed_tours(Geometry::new(6, 12, MoveSet::knight()), 1).expect("a valid board");
    let options = SweepOptions { counts: CountRoute::Residues, ..SweepOptions::default() };
    let report = on_disk(job.as_ref(), &options, &dir, 4, limit);
    let peak = leaper_core::heap::peak_resident_bytes().expect("Linux reports the peak resident size");
    assert_eq!(report.counts[11].1.to_string(), known("knight 6x12"));
    assert_eq!(report.counts[9].1.to_string(), known("knight 6x10"));
    assert!(peak <= limit, "peak resident {peak} bytes over the limit of {limit}");
}
