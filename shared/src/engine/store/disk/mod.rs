//! The out-of-core store: layers live in bucket files under a directory, and memory stays
//! within a budget however large a layer grows.
//!
//! A step streams each bucket file of layer `h` (memory-mapped, block by block) through the
//! engine; successors are merged in a table per bucket of layer `h + 1` (the tables share three
//! quarters of the budget, and keep their allocations from step to step), and a table that
//! fills up is written out sorted, as a spill run of its bucket (see [`spill`]): the copies of a
//! key that meet in a table reach the disk once.
//! In `finish_step` a bucket whose table never filled goes straight to its file (no spill at
//! all); the others merge their runs and their table's last entries k ways. The result is a
//! sorted, compressed, checksummed [`bucket file`](bucket_file), fsynced before the files of
//! layer `h` are deleted.

mod bucket_file;
mod spill;

pub use bucket_file::{BucketFile, BucketInfo, BucketWriter, BUCKET_FORMAT};

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::engine::jobdir::durable::remove_folder;
use crate::engine::jobdir::{file_error, sync_dir, JobFile};
use crate::engine::key::{RecordLayout, StateKey};
use crate::engine::store::{
    check_layout, unsupported_key, AggregationTable, DurableLayer, LayerFile, LayerSummary, StateStore, StateVisitor,
};
use crate::engine::Moduli;
use crate::error::{Error, Result};
use spill::SpillRuns;

/// Lane `j` of a state's counts as the disk stores it: the first lane as it is, every other
/// one XOR the first. While a count is below every modulus its residues are all equal to it,
/// so the other lanes store as 0: one LEB128 byte, next to nothing through zstd. Example: residues (300, 300, 300) are stored as 300, 0, 0; (5, 9) as 5, 12.
#[inline(always)]
fn stored_lane(lanes: &[u64], j: usize) -> u64 {
    if j == 0 {
        lanes[0]
    } else {
        lanes[j] ^ lanes[0]
    }
}

/// Undoes [`stored_lane`] on the lanes of one state, decoded in order.
#[inline(always)]
fn restore_lanes(lanes: &mut [u64]) {
    if let Some((first, rest)) = lanes.split_first_mut() {
        rest.iter_mut().for_each(|lane| *lane ^= *first);
    }
}

/// An out-of-core store for states of `layout` under `root` (a job or data directory), for
/// pass `pass`: empty, or holding `resume` (a layer a checkpoint recorded). See [`DiskStore`].
pub fn disk_store(
    layout: RecordLayout,
    root: &Path,
    pass: usize,
    buckets: usize,
    moduli: Moduli,
    mem_limit: u64,
    resume: Option<&DurableLayer>,
) -> Result<Box<dyn StateStore>> {
    check_layout(layout, &moduli)?;
    crate::with_key_type!(
        layout.key_words,
        K => Ok(match resume {
            Some(layer) => Box::new(DiskStore::<K>::resume(root, pass, buckets, moduli, mem_limit, layer)?),
            None => Box::new(DiskStore::<K>::create(root, pass, buckets, moduli, mem_limit)?),
        }),
        Err(unsupported_key(layout))
    )
}

/// Layers of states with keys of type `K` in bucket files under `root/pass-P`.
pub struct DiskStore<K: StateKey> {
    root: PathBuf,
    pass: usize,
    moduli: Moduli,
    /// Bytes a thread may hold to read the current layer during a step, and to merge a
    /// bucket's spill runs after it.
    aggregation_budget: usize,
    layer: u64,
    /// Bucket files of the current layer (`None`: the bucket is empty).
    current: Vec<Option<(PathBuf, BucketInfo)>>,
    /// The next layer's successors on their way to the bucket files.
    pending: Vec<Mutex<Pending<K>>>,
}

/// A bucket of the new layer: its file (none when empty) and the bytes its spill took.
type MergedBucket = (Option<(PathBuf, BucketInfo)>, u64);

/// The successors of one bucket of the next layer not yet on disk, merged, and its spill runs.
struct Pending<K: StateKey> {
    table: AggregationTable<K>,
    spill: SpillRuns<K>,
}

impl<K: StateKey> Pending<K> {
    fn new(width: usize, table_bytes: usize) -> Self {
        Pending { table: AggregationTable::bounded(width, table_bytes), spill: SpillRuns::new() }
    }
}

impl<K: StateKey> DiskStore<K> {
    /// An empty store for pass `pass` under `root` (its directory created if missing; it must
    /// not hold another job's layers) with `buckets` buckets per layer, keeping memory near
    /// `mem_limit` bytes.
    pub fn create(root: &Path, pass: usize, buckets: usize, moduli: Moduli, mem_limit: u64) -> Result<Self> {
        let dir = root.join(JobFile::Pass { pass }.path());
        fs::create_dir_all(&dir).map_err(|e| file_error(&dir, "create the directory", e))?;
        let threads = rayon::current_num_threads().max(1);
        let record_bytes = RecordLayout::of::<K>(moduli.len()).record_bytes();
        // The staging buffers of the threads (merged records, and records the store must
        // merge), and the process itself (code, allocator, stacks, the pages of the mapped
        // files: 11 to 13 MiB before anything is counted), so that the resident size stays
        // within the limit, not only the store's own accounts (a quarter of limits too small
        // for that, which only tests set, to force spills).
        let process = (mem_limit as usize / 16).clamp(16 << 20, 32 << 20).min(mem_limit as usize / 4);
        let stage_records = crate::engine::sweep::STAGE + crate::engine::sweep::LOOSE_STAGE;
        let fixed = threads * buckets * stage_records * record_bytes + process;
        let width = moduli.len();
        let shared = (mem_limit as usize).saturating_sub(fixed);
        // The tables of the next layer's buckets share three quarters of the budget: the more
        // they hold, the fewer copies of a key reach the disk. Beside them each thread may hold
        // one table's worth more, for a moment: a table that grows (the old array beside the
        // new one), or a full table sorted (a key and a slot number per entry) and written a
        // block at a time (the block, its encoding and zstd's output: three blocks, of at most
        // the table's entries). The last quarter is the reading side's during a step (a bucket
        // read whole, see `grouped::ReadingPlan`), the threads' merges of spill runs (a decoded
        // block per run) after it.
        let budget = shared / 4 / threads;
        let tables = shared / 4 * 3;
        let beside = record_bytes.max(std::mem::size_of::<(K, u32)>());
        let block_bytes = bucket_file::BLOCK_STATES * record_bytes;
        let entries = |tables: usize, beside: usize| tables / (buckets.max(1) * record_bytes + threads * beside);
        let table_bytes = match entries(tables, beside + 3 * record_bytes) * record_bytes {
            // Tables smaller than a block: the blocks are the size of a table.
            small if small <= block_bytes => small,
            _ => entries(tables.saturating_sub(threads * 3 * block_bytes), beside) * record_bytes,
        };
        let minimum = 1 << 18;
        // A table takes a whole stage of records at once (more would regrow it past its bytes).
        let table_minimum = crate::engine::sweep::STAGE * 5 / 4 * record_bytes;
        if budget < minimum || table_bytes < table_minimum {
            return Err(Error::InvalidRequest(format!(
                "a memory limit of {mem_limit} bytes leaves {budget} bytes per thread for merging and {table_bytes} \
                 bytes per bucket table after the staging buffers of {buckets} buckets (at least {minimum} and \
                 {table_minimum} are needed); raise --mem-limit or lower --buckets"
            )));
        }
        Ok(DiskStore {
            root: root.to_path_buf(),
            pass,
            moduli,
            aggregation_budget: budget,
            layer: 0,
            current: vec![None; buckets],
            pending: (0..buckets).map(|_| Mutex::new(Pending::new(width, table_bytes))).collect(),
        })
    }

    /// A store whose current layer is `layer`, as a checkpoint recorded it. Every file is opened
    /// and verified (size, checksum, state count) before anything else is done: a refused
    /// resume changes nothing on disk.
    pub fn resume(
        root: &Path,
        pass: usize,
        buckets: usize,
        moduli: Moduli,
        mem_limit: u64,
        layer: &DurableLayer,
    ) -> Result<Self> {
        Self::verify(layer, buckets, moduli.len())?;
        let mut store = DiskStore::create(root, pass, buckets, moduli, mem_limit)?;
        store.layer = layer.number;
        for file in &layer.files {
            store.current[file.bucket] = Some((file.path.clone(), file.info));
        }
        Ok(store)
    }

    /// Checks that every file of `layer` is there and is what the checkpoint recorded.
    fn verify(layer: &DurableLayer, buckets: usize, width: usize) -> Result<()> {
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
            let found = BucketFile::<K>::open(&file.path, width)?.info();
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
        })
    }

    fn path(&self, file: JobFile) -> PathBuf {
        self.root.join(file.path())
    }

    fn layer_dir(&self, layer: u64) -> PathBuf {
        self.path(JobFile::Layer { pass: self.pass, layer })
    }

    /// The spill file of `bucket` of the next layer.
    fn spill_path(&self, bucket: usize) -> PathBuf {
        self.path(JobFile::Spill { pass: self.pass, layer: self.layer + 1, bucket })
    }

    /// Makes the next layer's folder.
    fn make_next_dir(&self) -> Result<PathBuf> {
        let next_dir = self.layer_dir(self.layer + 1);
        fs::create_dir_all(&next_dir).map_err(|e| file_error(&next_dir, "create the directory", e))?;
        Ok(next_dir)
    }

    /// Removes a layer's folder: its bucket files, spills and runs (never a file leaper did not
    /// write).
    fn remove_layer(&self, layer: u64) -> Result<()> {
        remove_folder(&self.root, &self.layer_dir(layer)).map(|_| ())
    }
}

impl<K: StateKey> StateStore for DiskStore<K> {
    fn layout(&self) -> RecordLayout {
        RecordLayout::of::<K>(self.moduli.len())
    }

    fn buckets(&self) -> usize {
        self.current.len()
    }

    fn reading_budget(&self) -> Option<usize> {
        Some(self.aggregation_budget)
    }

    fn bucket_states(&self, bucket: usize) -> Option<u64> {
        Some(self.current[bucket].as_ref().map_or(0, |(_, info)| info.states))
    }

    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> Result<()> {
        match &self.current[bucket] {
            Some((path, _)) => BucketFile::<K>::open(path, self.moduli.len())?.visit(visit),
            None => Ok(()),
        }
    }

    fn emit(&self, bucket: usize, records: &[u64]) -> Result<()> {
        let mut pending = self.pending[bucket].lock().expect("pending lock");
        let incoming = records.len() / self.layout().stride();
        if incoming > pending.table.room() && !pending.table.is_empty() {
            if pending.spill.is_empty() {
                self.make_next_dir()?;
            }
            let Pending { table, spill } = &mut *pending;
            spill.append(table, || self.spill_path(bucket))?;
        }
        pending.table.add_records(records, &self.moduli);
        Ok(())
    }

    fn finish_step(&mut self) -> Result<LayerSummary> {
        let next_dir = self.make_next_dir()?;
        let width = self.moduli.len();
        let moduli = &self.moduli;
        let budget = self.aggregation_budget;
        let (root, pass, layer) = (&self.root, self.pass, self.layer);
        // The tables stay, emptied, for the next step: allocated once, not regrown every step
        // (regrowing fragments the heap, and the resident size outgrows the budget).
        let merged: Result<Vec<MergedBucket>> = self
            .pending
            .par_iter_mut()
            .enumerate()
            .map(|(bucket, slot)| -> Result<MergedBucket> {
                let pending = slot.get_mut().expect("pending lock");
                let spill = std::mem::replace(&mut pending.spill, SpillRuns::new());
                let out = root.join(JobFile::Bucket { pass, layer: layer + 1, bucket }.path());
                let (info, spilled) = if spill.is_empty() {
                    // The whole bucket stayed in its table: it goes to its file without a spill.
                    if pending.table.is_empty() {
                        return Ok((None, 0));
                    }
                    let mut writer = BucketWriter::<K>::create(&out, width)?;
                    pending.table.drain_sorted(|key, residues| writer.push(key, residues))?;
                    (writer.finish()?, 0)
                } else {
                    spill.merge_into(&mut pending.table, &out, moduli, budget)?
                };
                crate::engine::fault::point("bucket").map_err(|e| file_error(&out, "write", e))?;
                Ok((Some((out, info)), spilled))
            })
            .collect();
        let merged = merged.inspect_err(|_| {
            // Whatever a failed merge left is not part of any layer.
            for slot in &mut self.pending {
                let pending = slot.get_mut().expect("pending lock");
                pending.table.clear();
                pending.spill = SpillRuns::new();
            }
        })?;
        let spilled_bytes = merged.iter().map(|(_, spilled)| spilled).sum();
        let written = merged.into_iter().map(|(file, _)| file).collect();
        sync_dir(&next_dir)?;
        sync_dir(&self.path(JobFile::Pass { pass: self.pass }))?;
        crate::engine::fault::point("layer").map_err(|e| file_error(&next_dir, "write", e))?;
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
        crate::engine::fault::point("release").map_err(|e| file_error(&self.root, "write", e))
    }

    fn discard(&mut self) -> Result<()> {
        self.remove_layer(self.layer)?;
        self.current.iter_mut().for_each(|file| *file = None);
        Ok(())
    }
}

impl<K: StateKey> DiskStore<K> {
    fn summary(&self, spilled_bytes: u64) -> LayerSummary {
        let mut summary = LayerSummary { spilled_bytes, ..LayerSummary::default() };
        for (_, info) in self.current.iter().flatten() {
            summary.states += info.states;
            summary.bytes += info.bytes;
        }
        summary
    }
}

impl<K: StateKey> Drop for DiskStore<K> {
    fn drop(&mut self) {
        // A half-written next layer is scratch; the current layer may be named by a checkpoint
        // and is deleted only through `discard`.
        let _ = self.remove_layer(self.layer + 1);
    }
}
