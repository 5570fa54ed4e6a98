//! The out-of-core store: layers live in bucket files under a directory, and memory stays
//! within a budget however large a layer grows.
//!
//! A step streams each bucket file of layer `h` (memory-mapped, block by block) through the
//! engine; successors are appended, unsorted, to one spill file per bucket of layer `h + 1`.
//! `finish_step` then aggregates each spill: in one hash table when the bucket fits its share of
//! the budget, otherwise in sorted runs (each aggregated in a table that fits) merged k ways.
//! The result is a sorted, compressed, checksummed [`bucket file`](bucket_file), fsynced before
//! the files of layer `h` are deleted.

mod bucket_file;
mod spill;

pub use bucket_file::{write_bucket_file, BucketFile, BucketWriter, BUCKET_FORMAT};

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::arith::Moduli;
use crate::error::{Error, Result};
use crate::store::{LayerSummary, StateStore, StateVisitor};
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
    spills: Vec<Mutex<Option<SpillWriter>>>,
}

impl DiskStore {
    /// A store in `dir` (created if missing; it must not hold another job's layers) with
    /// `buckets` buckets per layer, keeping memory near `mem_limit` bytes.
    pub fn create(dir: &Path, buckets: usize, moduli: Moduli, mem_limit: u64) -> Result<Self> {
        fs::create_dir_all(dir).map_err(|e| file_error(dir, "create the directory", e))?;
        let threads = rayon::current_num_threads().max(1);
        let fixed = buckets * SPILL_BUFFER_BYTES + threads * buckets * 256 * 8 * (1 + moduli.len());
        let budget = (mem_limit as usize).saturating_sub(fixed) / threads;
        let minimum = 1 << 20;
        if budget < minimum {
            return Err(Error::InvalidOption(format!(
                "a memory limit of {mem_limit} bytes leaves {budget} bytes per thread for aggregation after \
                 the spill buffers of {buckets} buckets; raise --mem-limit or lower --buckets"
            )));
        }
        Ok(DiskStore {
            dir: dir.to_path_buf(),
            moduli,
            aggregation_budget: budget,
            layer: 0,
            current: vec![None; buckets],
            spills: (0..buckets).map(|_| Mutex::new(None)).collect(),
        })
    }

    fn layer_dir(&self, layer: u64) -> PathBuf {
        self.dir.join(format!("layer-{layer:06}"))
    }

    fn spill_path(&self, bucket: usize) -> PathBuf {
        self.layer_dir(self.layer + 1).join(format!("spill-{bucket:04}.raw"))
    }
}

/// An I/O failure on `path`, saying what was being done.
pub(crate) fn file_error(path: &Path, action: &str, error: std::io::Error) -> Error {
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
        let mut slot = self.spills[bucket].lock().expect("spill lock");
        if slot.is_none() {
            let path = self.spill_path(bucket);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|e| file_error(parent, "create the directory", e))?;
            }
            *slot = Some(SpillWriter::create(&path, self.moduli.len())?);
        }
        slot.as_mut().expect("just created").append(records)
    }

    fn finish_step(&mut self) -> Result<LayerSummary> {
        let next_dir = self.layer_dir(self.layer + 1);
        fs::create_dir_all(&next_dir).map_err(|e| file_error(&next_dir, "create the directory", e))?;
        let spills: Vec<Option<PathBuf>> = self
            .spills
            .iter_mut()
            .map(|slot| slot.get_mut().expect("spill lock").take().map(SpillWriter::finish).transpose())
            .collect::<Result<_>>()?;
        let moduli = &self.moduli;
        let budget = self.aggregation_budget;
        let written: Vec<Option<(PathBuf, LayerSummary)>> = spills
            .into_par_iter()
            .enumerate()
            .map(|(bucket, spill)| -> Result<Option<(PathBuf, LayerSummary)>> {
                let Some(spill) = spill else { return Ok(None) };
                let out = next_dir.join(format!("b{bucket:04}.lpb"));
                let summary = aggregate_spill(&spill, &out, moduli, budget)?;
                fs::remove_file(&spill).map_err(|e| file_error(&spill, "remove", e))?;
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
