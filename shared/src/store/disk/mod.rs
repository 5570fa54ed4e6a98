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

pub use bucket_file::{write_bucket_file, BucketFile, BucketInfo, BucketWriter, BUCKET_FORMAT};

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::arith::Moduli;
use crate::error::{Error, Result};
use crate::store::{DurableLayer, LayerFile, LayerSummary, StateStore, StateVisitor};
use spill::{aggregate_spill, SpillWriter, SPILL_BUFFER_BYTES};

/// Layers of states in bucket files under `dir`.
pub struct DiskStore {
    dir: PathBuf,
    moduli: Moduli,
    /// Bytes one bucket aggregation may use (the budget shared by the threads).
    aggregation_budget: usize,
    layer: u64,
    /// Bucket files of the current layer (`None`: the bucket is empty).
    current: Vec<Option<(PathBuf, BucketInfo)>>,
    spills: Vec<Mutex<Option<SpillWriter>>>,
}

impl DiskStore {
    /// An empty store in `dir` (created if missing; it must not hold another job's layers) with
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

    /// A store whose current layer is `layer`, as a checkpoint recorded it. Every file is opened
    /// and verified (size, checksum, state count) before the store is returned.
    pub fn resume(dir: &Path, buckets: usize, moduli: Moduli, mem_limit: u64, layer: &DurableLayer) -> Result<Self> {
        let mut store = DiskStore::create(dir, buckets, moduli, mem_limit)?;
        // Set first: dropping the store removes the layer after its current one.
        store.layer = layer.number;
        let width = store.moduli.len();
        layer.files.par_iter().try_for_each(|file| -> Result<()> {
            if file.bucket >= buckets {
                return Err(Error::File {
                    path: file.path.clone(),
                    message: format!("the checkpoint names bucket {} of a job with {buckets} buckets", file.bucket),
                });
            }
            if !file.path.exists() {
                return Err(Error::File {
                    path: file.path.clone(),
                    message: "missing: the last checkpoint names this bucket file; restore it, or start the job \
                              again in a new directory"
                        .into(),
                });
            }
            let found = BucketFile::open(&file.path, width)?.info();
            if found != file.info {
                return Err(Error::File {
                    path: file.path.clone(),
                    message: format!(
                        "holds {} states in {} bytes (checksum {:08x}) but the checkpoint recorded {} states in \
                         {} bytes (checksum {:08x}); the file was replaced or damaged: restore it, or start \
                         the job again in a new directory",
                        found.states, found.bytes, found.crc32, file.info.states, file.info.bytes, file.info.crc32
                    ),
                });
            }
            Ok(())
        })?;
        for file in &layer.files {
            store.current[file.bucket] = Some((file.path.clone(), file.info));
        }
        Ok(store)
    }

    fn layer_dir(&self, layer: u64) -> PathBuf {
        self.dir.join(format!("layer-{layer:06}"))
    }

    fn spill_path(&self, bucket: usize) -> PathBuf {
        self.layer_dir(self.layer + 1).join(format!("spill-{bucket:04}.raw"))
    }

    fn remove_layer(&self, layer: u64) -> Result<()> {
        let dir = self.layer_dir(layer);
        match fs::remove_dir_all(&dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(file_error(&dir, "remove", e)),
            _ => Ok(()),
        }
    }
}

/// An I/O failure on `path`, saying what was being done (and, for a full disk, what to do).
pub(crate) fn file_error(path: &Path, action: &str, error: std::io::Error) -> Error {
    let advice = if error.kind() == std::io::ErrorKind::StorageFull {
        "; the disk is full: free space (or move the job directory elsewhere), then continue with \
         `leaper resume --job-dir DIR`; the last committed checkpoint is intact"
    } else {
        ""
    };
    Error::File { path: path.to_path_buf(), message: format!("cannot {action}: {error}{advice}") }
}

impl StateStore for DiskStore {
    fn buckets(&self) -> usize {
        self.current.len()
    }

    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> Result<()> {
        match &self.current[bucket] {
            Some((path, _)) => BucketFile::open(path, self.moduli.len())?.visit(visit),
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
        let spilled_bytes = spills.iter().flatten().map(|path| fs::metadata(path).map_or(0, |m| m.len())).sum();
        let moduli = &self.moduli;
        let budget = self.aggregation_budget;
        let written: Vec<Option<(PathBuf, BucketInfo)>> = spills
            .into_par_iter()
            .enumerate()
            .map(|(bucket, spill)| -> Result<Option<(PathBuf, BucketInfo)>> {
                let Some(spill) = spill else { return Ok(None) };
                let out = next_dir.join(format!("b{bucket:04}.lpb"));
                let info = aggregate_spill(&spill, &out, moduli, budget)?;
                fs::remove_file(&spill).map_err(|e| file_error(&spill, "remove", e))?;
                crate::fault::point("bucket").map_err(|e| file_error(&out, "write", e))?;
                Ok(Some((out, info)))
            })
            .collect::<Result<_>>()?;
        sync_dir(&next_dir)?;
        sync_dir(&self.dir)?;
        crate::fault::point("layer").map_err(|e| file_error(&next_dir, "write", e))?;
        self.current = written;
        self.layer += 1;
        Ok(self.summary(spilled_bytes))
    }

    fn durable_layer(&self) -> Option<DurableLayer> {
        let files = self
            .current
            .iter()
            .enumerate()
            .filter_map(|(bucket, file)| {
                file.as_ref().map(|(path, info)| LayerFile { bucket, path: path.clone(), info: *info })
            })
            .collect();
        Some(DurableLayer { number: self.layer, files })
    }

    fn release_older_layers(&mut self) -> Result<()> {
        // Layers before `layer - 1` went at earlier steps, or were swept away on resume.
        if self.layer > 0 {
            self.remove_layer(self.layer - 1)?;
        }
        crate::fault::point("release").map_err(|e| file_error(&self.dir, "write", e))
    }

    fn discard(&mut self) -> Result<()> {
        self.remove_layer(self.layer)?;
        self.current.iter_mut().for_each(|file| *file = None);
        Ok(())
    }
}

impl DiskStore {
    fn summary(&self, spilled_bytes: u64) -> LayerSummary {
        let mut summary = LayerSummary { spilled_bytes, ..LayerSummary::default() };
        for (_, info) in self.current.iter().flatten() {
            summary.states += info.states;
            summary.bytes += info.bytes;
        }
        summary
    }
}

impl Drop for DiskStore {
    fn drop(&mut self) {
        // A half-written next layer is scratch; the current layer may be named by a checkpoint
        // and is deleted only through `discard`.
        let _ = fs::remove_dir_all(self.layer_dir(self.layer + 1));
    }
}

/// Makes the directory's entries (new, renamed or removed files) durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| file_error(dir, "fsync the directory", e))
}
