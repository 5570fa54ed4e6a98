//! The worker's `/metrics` (on its `--listen` port, with its token; see `leaper_proto::metrics`):
//! the pass and layer it is at, read from its prepared job, and what it has done since it
//! started, counted where the work is done ([`Tally`]).
//!
//! For example, a worker of three at step 17 of a sweep:
//!
//! ```text
//! leaper_worker_prepared 1                   leaper_worker_states_read_total 411522
//! leaper_worker_pass 1                       leaper_worker_states_written_total 398211
//! leaper_worker_merged_layers 18            leaper_worker_spill_bytes_total 0
//! leaper_worker_layer_states 13440           leaper_worker_shuffle_sent_bytes_total 1048576
//! leaper_worker_layer_bytes 53760            leaper_worker_shuffle_received_bytes_total 1032192
//! leaper_worker_disk_bytes 61440             leaper_worker_resident_bytes 41943040
//! ```
//!
//! The sums over the workers of `layer_states` and `layer_bytes` are the committed layer that
//! `leaper status` shows once the coordinator commits the step the workers merged; the sum of
//! `states_read_total` is its states processed, where no step was run twice.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use leaper_proto::metrics::{Exposition, Unit};

use crate::job::ActiveJob;

/// What the worker has done since it started: counted at each Merge (states read by the step
/// merged, states and bytes of the layer written, bytes spilled) and as batches of states go
/// out and come in.
#[derive(Default)]
pub struct Tally {
    pub states_read: AtomicU64,
    pub states_written: AtomicU64,
    pub spilled_bytes: AtomicU64,
    pub shuffle_sent_bytes: AtomicU64,
    pub shuffle_received_bytes: AtomicU64,
    /// The worker's part of the layer it merged last.
    pub layer_states: AtomicU64,
    pub layer_bytes: AtomicU64,
}

/// The text of one scrape.
pub fn render(tally: &Tally, job: Option<&ActiveJob>, data_dir: &Path) -> String {
    let mut out = Exposition::default();
    let load = |counter: &AtomicU64| counter.load(Ordering::SeqCst);
    out.gauge(
        "leaper_worker_prepared",
        "1 while a pass of a sweep is prepared on this worker",
        None,
        job.is_some() as u64,
    );
    if let Some(job) = job {
        out.gauge("leaper_worker_pass", "The pass prepared, from 1", None, job.pass + 1);
        // The coordinator merges the seed as a layer of its own before the first step: once a
        // step is committed, this is the coordinator's `leaper_step` + 1.
        let merged = job.layers_merged.load(Ordering::SeqCst);
        out.gauge("leaper_worker_merged_layers", "Layers merged in this pass, the seed's included", None, merged);
    }
    out.gauge(
        "leaper_worker_layer_states",
        "States of this worker's part of the layer it merged last",
        None,
        load(&tally.layer_states),
    );
    out.gauge(
        "leaper_worker_layer",
        "Bytes on disk of this worker's part of the layer it merged last",
        Some(Unit::Bytes),
        load(&tally.layer_bytes),
    );
    out.counter(
        "leaper_worker_states_read",
        "States read by the steps this worker merged",
        None,
        load(&tally.states_read),
    );
    out.counter(
        "leaper_worker_states_written",
        "States of the layers this worker merged",
        None,
        load(&tally.states_written),
    );
    out.counter(
        "leaper_worker_spill",
        "Bytes of sorted runs spilled while merging",
        Some(Unit::Bytes),
        load(&tally.spilled_bytes),
    );
    out.counter(
        "leaper_worker_shuffle_sent",
        "Compressed bytes of states sent to other workers",
        Some(Unit::Bytes),
        load(&tally.shuffle_sent_bytes),
    );
    out.counter(
        "leaper_worker_shuffle_received",
        "Compressed bytes of states received from other workers",
        Some(Unit::Bytes),
        load(&tally.shuffle_received_bytes),
    );
    out.gauge(
        "leaper_worker_disk",
        "Bytes of the files in the data directory",
        Some(Unit::Bytes),
        bytes_under(data_dir),
    );
    if let Some(resident) = leaper_core::heap::resident_bytes() {
        out.gauge("leaper_worker_resident", "The worker's resident memory", Some(Unit::Bytes), resident);
    }
    out.encode()
}

/// Bytes of the files under `dir`, links not followed (a file that goes while it is read, a
/// layer released, counts as gone).
fn bytes_under(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .filter_map(|entry| entry.ok())
        .map(|entry| match entry.path().symlink_metadata() {
            Ok(meta) if meta.is_dir() => bytes_under(&entry.path()),
            Ok(meta) if meta.is_file() => meta.len(),
            _ => 0,
        })
        .sum()
}
