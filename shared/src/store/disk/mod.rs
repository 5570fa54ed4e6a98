//! The out-of-core store: layers live in bucket files under a directory, and memory stays
//! within a budget however large a layer grows.
//!
//! A step streams each bucket file of layer `h` (memory-mapped, block by block) through the
//! engine; successors are merged in one hash table per bucket of layer `h + 1` while the tables
//! fit half the budget. When they outgrow it, the table being filled is appended, unsorted, to
//! its bucket's spill file and starts afresh. `finish_step` then writes each bucket: straight
//! from its table when it never spilled, otherwise by aggregating the spill (plus what the table
//! still holds) in one table when it fits its share of the budget, or in sorted runs merged k
//! ways.
//! The result is a sorted, compressed, checksummed [`bucket file`](bucket_file), fsynced before
//! the files of layer `h` are deleted.

mod bucket_file;
mod spill;

pub use bucket_file::{write_bucket_file, BucketFile, BucketWriter, BUCKET_FORMAT};

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::arith::Moduli;
use crate::error::{Error, Result};
use crate::store::{AggregationTable, LayerSummary, StateStore, StateVisitor};
use spill::{aggregate_spill, SpillWriter, SPILL_BUFFER_BYTES};

/// Layers of states in bucket files under `dir`.
pub struct DiskStore {
    dir: PathBuf,
    moduli: Moduli,
    /// Bytes one bucket aggregation may use (the budget shared by the threads).
    aggregation_budget: usize,
    layer: u64,
    /// Bucket files of the current layer (`None`: the bucket is empty).
    current: Vec<Option<PathBuf>>,
    /// The next layer, per bucket.
    pending: Vec<Mutex<Pending>>,
    /// Bytes held by all pending tables, and how many they may hold.
    table_bytes: AtomicU64,
    table_budget: u64,
}

/// One bucket of the next layer: states merged in memory, and the spill file they went to when
/// the tables outgrew their budget.
struct Pending {
    table: AggregationTable,
    spill: Option<SpillWriter>,
}

impl DiskStore {
    /// A store in `dir` (created if missing; it must not hold another job's layers) with
    /// `buckets` buckets per layer, keeping memory near `mem_limit` bytes.
    pub fn create(dir: &Path, buckets: usize, moduli: Moduli, mem_limit: u64) -> Result<Self> {
        fs::create_dir_all(dir).map_err(|e| file_error(dir, "create the directory", e))?;
        let threads = rayon::current_num_threads().max(1);
        let fixed = buckets * SPILL_BUFFER_BYTES + threads * buckets * 256 * 8 * (1 + moduli.len());
        // Half the rest for the tables that collect a step's successors, half for aggregating
        // spilled buckets, one bucket per thread.
        let rest = (mem_limit as usize).saturating_sub(fixed);
        let budget = rest / 2 / threads;
        let minimum = 1 << 20;
        if budget < minimum {
            return Err(Error::InvalidOption(format!(
                "a memory limit of {mem_limit} bytes leaves {budget} bytes per thread for aggregation after \
                 the spill buffers of {buckets} buckets; raise --mem-limit or lower --buckets"
            )));
        }
        Ok(DiskStore {
            dir: dir.to_path_buf(),
            aggregation_budget: budget,
            layer: 0,
            current: vec![None; buckets],
            pending: (0..buckets)
                .map(|_| Mutex::new(Pending { table: AggregationTable::new(moduli.len()), spill: None }))
                .collect(),
            table_bytes: AtomicU64::new(0),
            table_budget: (rest / 2) as u64,
            moduli,
        })
    }

    fn layer_dir(&self, layer: u64) -> PathBuf {
        self.dir.join(format!("layer-{layer:06}"))
    }

    fn spill_path(&self, bucket: usize) -> PathBuf {
        self.layer_dir(self.layer + 1).join(format!("spill-{bucket:04}.raw"))
    }
}

fn file_error(path: &Path, action: &str, error: std::io::Error) -> Error {
    Error::File { path: path.to_path_buf(), message: format!("cannot {action}: {error}") }
}

impl StateStore for DiskStore {
    fn buckets(&self) -> usize {
        self.current.len()
    }

    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> Result<()> {
        match &self.current[bucket] {
            Some(path) => BucketFile::open(path, self.moduli.len())?.visit(visit),
            None => Ok(()),
        }
    }

    fn emit(&self, bucket: usize, records: &[u64]) -> Result<()> {
        let mut pending = self.pending[bucket].lock().expect("bucket lock");
        let before = pending.table.bytes() as u64;
        pending.table.add_records(records, &self.moduli);
        let grown = pending.table.bytes() as u64 - before;
        let total = self.table_bytes.fetch_add(grown, Ordering::Relaxed) + grown;
        if total <= self.table_budget {
            return Ok(());
        }
        // Over budget: this bucket's table goes to its spill file.
        if pending.spill.is_none() {
            let path = self.spill_path(bucket);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|e| file_error(parent, "create the directory", e))?;
            }
            pending.spill = Some(SpillWriter::create(&path, self.moduli.len())?);
        }
        let full = std::mem::replace(&mut pending.table, AggregationTable::new(self.moduli.len()));
        self.table_bytes.fetch_sub(full.bytes() as u64 - pending.table.bytes() as u64, Ordering::Relaxed);
        let batch = full.into_batch();
        pending.spill.as_mut().expect("just created").append_batch(&batch)
    }

    fn finish_step(&mut self) -> Result<LayerSummary> {
        let next_dir = self.layer_dir(self.layer + 1);
        fs::create_dir_all(&next_dir).map_err(|e| file_error(&next_dir, "create the directory", e))?;
        let moduli = &self.moduli;
        let budget = self.aggregation_budget;
        let table_bytes = &self.table_bytes;
        let written: Vec<Option<(PathBuf, LayerSummary)>> = self
            .pending
            .par_iter_mut()
            .enumerate()
            .map(|(bucket, slot)| -> Result<Option<(PathBuf, LayerSummary)>> {
                let pending = slot.get_mut().expect("bucket lock");
                let table = std::mem::replace(&mut pending.table, AggregationTable::new(moduli.len()));
                table_bytes.fetch_sub(table.bytes() as u64 - pending.table.bytes() as u64, Ordering::Relaxed);
                let out = next_dir.join(format!("b{bucket:04}.lpb"));
                let summary = match pending.spill.take() {
                    None if table.is_empty() => return Ok(None),
                    None => {
                        let sorted = table.into_sorted_batch();
                        let bytes = write_bucket_file(&out, &sorted)?;
                        LayerSummary { states: sorted.len() as u64, bytes }
                    }
                    Some(mut spill) => {
                        spill.append_batch(&table.into_batch())?;
                        let path = spill.finish()?;
                        let summary = aggregate_spill(&path, &out, moduli, budget)?;
                        fs::remove_file(&path).map_err(|e| file_error(&path, "remove", e))?;
                        summary
                    }
                };
                Ok(Some((out, summary)))
            })
            .collect::<Result<_>>()?;
        sync_dir(&next_dir)?;
        // The new layer is durable: the old one can go.
        let old_dir = self.layer_dir(self.layer);
        if old_dir.exists() {
            fs::remove_dir_all(&old_dir).map_err(|e| file_error(&old_dir, "remove", e))?;
        }
        let mut summary = LayerSummary::default();
        for (slot, file) in self.current.iter_mut().zip(written) {
            *slot = file.map(|(path, bucket)| {
                summary.states += bucket.states;
                summary.bytes += bucket.bytes;
                path
            });
        }
        self.layer += 1;
        Ok(summary)
    }
}

impl Drop for DiskStore {
    fn drop(&mut self) {
        // The layers are scratch space until checkpoints name them.
        let _ = fs::remove_dir_all(self.layer_dir(self.layer));
        let _ = fs::remove_dir_all(self.layer_dir(self.layer + 1));
    }
}

fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| file_error(dir, "fsync the directory", e))
}
