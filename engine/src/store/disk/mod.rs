//! The out-of-core store: layers live in bucket sections of segment files under a directory,
//! and memory stays within a budget however large a layer grows.
//!
//! A step streams each bucket section of layer `h` (memory-mapped, block by block) through the
//! engine. Successors merged before they come (a neighbourhood's group, see
//! [`crate::kernel::grouped`]: no other record of the step has their keys) are
//! appended to their bucket's array as they are; any others go to the bucket's table, which
//! adds up equal keys. A bucket whose array and table together outgrow its share of the budget
//! (the shares are three quarters of it) sorts what it holds and writes it out as a spill run
//! (see [`spill`]). The tables keep their allocations from step to step; each array is a
//! mapping of its own, counted by the pages it has touched and freed (or kept as the next
//! step's copy) when its bucket is written, so that what the accounts free leaves the process
//! (docs/PERFORMANCE-LOG.md, "The memory limit held: arrays of their own").
//! In `finish_step` each bucket sorts its array ([`records`]) and writes it, merged with its
//! table and with its runs where it spilled, as one sorted, compressed, checksummed section of
//! a segment file ([`segment`]: one file per writing thread); the segments are fsynced before
//! the checkpoint names them, and the files of layer `h` are deleted only after it.
//!
//! Example, one step of `knight 7x10 --sweep --job-dir D` at its peak on two threads: its
//! successors appended to 503 arrays (no table: every bucket fits the reading budget, so every
//! successor comes merged), each array sorted and written as a section: two segment files, two
//! fsyncs (the step's figures: docs/PERFORMANCE-LOG.md, "One out-of-core step").

mod records;
mod resident;
mod section;
mod segment;
mod spare;
mod spill;

pub use section::{map_file, Section, SectionReader, SectionWriter, BUCKET_FORMAT};
pub use segment::{SegmentWriter, Segments};

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use memmap2::Mmap;
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::files::durable::{file_error, remove_folder, sync_dir};
use crate::files::JobFile;
use crate::key::{RecordLayout, StateKey};
use crate::store::{
    check_layout, unsupported_key, AggregationTable, BucketSection, DurableLayer, LayerSummary, StateStore,
    StateVisitor,
};
use crate::Moduli;
use records::{fold_equal_keys, sort_records};
use resident::Resident;
use spill::SpillRuns;

/// A bucket of the next layer once written: its section, the bytes it spilled on the way, and
/// its records where they stay in memory for the next step.
type WrittenBucket = (Option<BucketSection>, u64, Option<Vec<u64>>);

/// Lets the pages of a section just read leave the process: they stay in the page cache, but a
/// mapped page read counts in the resident size until unmapped, and the layer's files stay
/// mapped for the whole step (on a large sweep, gigabytes beside the store's own:
/// docs/PERFORMANCE-LOG.md, "Mapped pages released once read"). A page shared with a neighbouring
/// section is read again from the cache.
///
/// Released from the 2 MiB boundary before the section to the one after it: a fault maps
/// more than the page it asks for (the kernel maps pages around it, and a whole folio of the
/// page cache, up to 2 MiB), so reading one small section mapped its neighbours' pages again
/// after they were released (the 7 x 10 sweep at 64 MiB in 64 buckets: file pages resident at
/// most 16.6 MiB, the program's code among them, and 12.5 MiB with the windows;
/// docs/PERFORMANCE-LOG.md, "The memory limit held: arrays of their own").
fn release_pages(map: &Mmap, offset: u64, bytes: u64) {
    #[cfg(unix)]
    // SAFETY: the mapping is of a file nobody writes while it is mapped (see `map_file`), so a
    // page dropped reads back the same bytes wherever a slice still points into it (another
    // thread reading a section in the same window reads it again from the cache).
    unsafe {
        const WINDOW: u64 = 2 << 20;
        let start = offset / WINDOW * WINDOW;
        let end = (offset + bytes).next_multiple_of(WINDOW).min(map.len() as u64);
        let _ = map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start as usize, (end - start) as usize);
    }
    #[cfg(not(unix))]
    let _ = (map, offset, bytes);
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

/// The buckets of the next layer, `filled`, sorted and merged, each with its records, where
/// they can be held in memory alone (every one came merged, none spilled, and together they
/// take a bucket's share at most); else `filled` back, untouched, to be written.
#[allow(clippy::type_complexity)]
fn held_alone<'a, K: StateKey>(
    mut filled: Vec<(usize, &'a mut Mutex<Pending<K>>)>,
    layout: RecordLayout,
    moduli: &Moduli,
    share_words: usize,
) -> std::result::Result<Vec<(usize, Vec<u64>)>, Vec<(usize, &'a mut Mutex<Pending<K>>)>> {
    let mut words = 0;
    for (_, slot) in &mut filled {
        let pending = slot.get_mut().expect("pending lock");
        if !pending.spill.is_empty() || !pending.table.is_empty() {
            return Err(filled);
        }
        words += pending.appended.len();
    }
    if words > share_words {
        return Err(filled);
    }
    Ok(filled
        .into_iter()
        .map(|(bucket, slot)| {
            let appended = &mut slot.get_mut().expect("pending lock").appended;
            sort_records::<K>(appended, layout);
            fold_equal_keys::<K>(appended, layout, moduli);
            // A copy of its size: the array, reserved for a bucket's whole share, stays for the
            // next step (taken, it would be reserved afresh at every step: a large allocation
            // and its page faults for a layer of a few states).
            let records = appended.to_vec();
            appended.clear();
            (bucket, records)
        })
        .collect())
}

/// How a store splits its memory limit among the threads of the pool it runs on (see the
/// comments below): refused, naming the figures, when the limit is too small for it.
struct Sizing {
    /// Bytes a thread may hold to read the current layer and merge spill runs.
    budget: usize,
    /// Bytes a bucket of the next layer may hold in memory.
    share_bytes: usize,
    /// Bytes of a bucket's table.
    table_bytes: usize,
}

impl Sizing {
    fn of<K: StateKey>(mem_limit: u64, buckets: usize, width: usize) -> Result<Sizing> {
        let threads = rayon::current_num_threads().max(1);
        let record_bytes = RecordLayout::of::<K>(width).record_bytes();
        // The staging buffers of the threads (merged records, and records the store must
        // merge), and the process itself (code, allocator, stacks, the pages of the mapped
        // files, each thread's block buffers kept by `spare`: what it holds before anything is
        // counted, docs/PERFORMANCE-LOG.md, "The memory limit with buckets too large to read
        // whole"), so that the resident size stays within the limit, not only the store's own
        // accounts (a quarter of limits too small for that, which only tests set, to force
        // spills).
        let process = (mem_limit as usize / 16).clamp(16 << 20, 32 << 20).min(mem_limit as usize / 4);
        let stage_records = crate::kernel::stage::STAGE + crate::kernel::stage::LOOSE_STAGE;
        let fixed = threads * buckets * stage_records * record_bytes + process;
        let shared = (mem_limit as usize).saturating_sub(fixed);
        // The next layer's buckets share three quarters of the budget: the more they hold, the
        // fewer runs reach the disk. Beside them each thread may hold one bucket's worth more,
        // for a moment: a table that grows (the old array beside the new one), or a full table
        // sorted (a key and a slot number per entry) and written a block at a time (the block,
        // its encoding and zstd's output: three blocks, of at most the share's records). The
        // last quarter is the reading side's during a step (a bucket read whole, see
        // `grouped::ReadingPlan`), the threads' merges of spill runs (a decoded block per run)
        // after it.
        let budget = shared / 4 / threads;
        let shares = shared / 4 * 3;
        let beside = record_bytes.max(std::mem::size_of::<(K, u32)>());
        let block_bytes = section::BLOCK_STATES * record_bytes;
        let entries = |shares: usize, beside: usize| shares / (buckets.max(1) * record_bytes + threads * beside);
        let share_bytes = match entries(shares, beside + 3 * record_bytes) * record_bytes {
            // Shares smaller than a block: the blocks are the size of a share.
            small if small <= block_bytes => small,
            _ => entries(shares.saturating_sub(threads * 3 * block_bytes), beside) * record_bytes,
        };
        let minimum = 1 << 18;
        // A share takes a whole stage of records at once, twice over (the array and the table).
        let table_minimum = crate::kernel::stage::STAGE * 5 / 4 * record_bytes;
        if budget < minimum || share_bytes < 2 * table_minimum {
            return Err(Error::InvalidRequest(format!(
                "a memory limit of {mem_limit} bytes leaves {budget} bytes per thread for merging and {share_bytes} \
                 bytes per bucket after the staging buffers of {buckets} buckets (at least {minimum} and {} are \
                 needed); raise --mem-limit or lower --buckets",
                2 * table_minimum
            )));
        }
        // The table takes what successors come unmerged (a bucket too large to read whole, a
        // group split for its size): a quarter of the share, and the array the rest.
        let table_bytes = (share_bytes / 4).max(table_minimum);
        Ok(Sizing { budget, share_bytes, table_bytes })
    }
}

/// Refuses a memory limit too small for an out-of-core store of `layout` records with
/// `buckets` buckets on the current thread pool, as creating one would, without creating it.
pub fn check_disk_memory(layout: RecordLayout, buckets: usize, mem_limit: u64) -> Result<()> {
    crate::with_key_type!(
        layout.key_words,
        K => Sizing::of::<K>(mem_limit, buckets, layout.residues).map(|_| ()),
        Err(unsupported_key(layout))
    )
}

/// Layers of states with keys of type `K` in segment files under `root/pass-P`.
pub struct DiskStore<K: StateKey> {
    root: PathBuf,
    pass: usize,
    moduli: Moduli,
    /// Bytes a thread may hold to read the current layer during a step, and to merge a
    /// bucket's spill runs after it.
    aggregation_budget: usize,
    /// Words a bucket of the next layer may hold in memory: its array and its table together.
    share_words: usize,
    layer: u64,
    /// Bucket sections of the current layer (`None`: the bucket is empty).
    current: Vec<Option<BucketSection>>,
    /// The current layer's files, mapped once each.
    maps: HashMap<PathBuf, Arc<Mmap>>,
    /// The next layer's successors on their way to the segment files.
    pending: Vec<Mutex<Pending<K>>>,
    /// Words of the next layer's arrays whose pages are resident, over every bucket.
    touched_words: AtomicUsize,
    /// The current layer's buckets still in memory, where they were written from their arrays.
    resident: Resident,
    /// Checkpoints name only some layers ([`StateStore::pace_checkpoints`]): a layer is fsynced
    /// when one is to name it, and a layer none names goes once read.
    paced: bool,
    /// With paced checkpoints: the layer the last checkpoint named (kept until a later one is
    /// named), and whether the current layer's files are durable.
    named: Option<u64>,
    durable: bool,
    /// With paced checkpoints, a small layer is held in memory alone (its buckets' copies in
    /// `resident`), written only when a checkpoint is to name it: a step of a few states would
    /// otherwise make a folder and a file and remove another's, which took milliseconds on a
    /// busy disk. Whether the current layer is so held; per bucket its states (0: none, or on
    /// disk), and the buckets that hold some.
    held: bool,
    unwritten_states: Vec<u64>,
    unwritten: Vec<usize>,
}

/// The successors of one bucket of the next layer not yet on disk, and its spill runs.
struct Pending<K: StateKey> {
    /// Successors merged before they came, as they came (whole records).
    appended: Vec<u64>,
    /// Words of `appended` whose pages are resident: the most it has held since it was
    /// allocated (a spill empties it, but its pages stay, for the records to come). Counting
    /// its length instead let the copies of the current layer stay beside arrays emptied by
    /// spills: a sweep held twice its shares.
    touched: usize,
    /// Every other successor, equal keys added.
    table: AggregationTable<K>,
    spill: SpillRuns<K>,
}

impl<K: StateKey> Pending<K> {
    fn new(width: usize, table_bytes: usize) -> Self {
        let table = AggregationTable::bounded(width, table_bytes);
        Pending { appended: Vec::new(), touched: 0, table, spill: SpillRuns::new() }
    }

    fn is_empty(&self) -> bool {
        self.appended.is_empty() && self.table.is_empty() && self.spill.is_empty()
    }

    /// Words held in memory.
    fn words(&self) -> usize {
        self.appended.len() + self.table.bytes() / 8
    }
}

impl<K: StateKey> DiskStore<K> {
    /// An empty store for pass `pass` under `root` (its directory created if missing; it must
    /// not hold another job's layers) with `buckets` buckets per layer, keeping memory near
    /// `mem_limit` bytes.
    pub fn create(root: &Path, pass: usize, buckets: usize, moduli: Moduli, mem_limit: u64) -> Result<Self> {
        let dir = root.join(JobFile::Pass { pass }.path());
        fs::create_dir_all(&dir).map_err(|e| file_error(&dir, "create the directory", e))?;
        let Sizing { budget, share_bytes, table_bytes } = Sizing::of::<K>(mem_limit, buckets, moduli.len())?;
        let width = moduli.len();
        Ok(DiskStore {
            root: root.to_path_buf(),
            pass,
            moduli,
            aggregation_budget: budget,
            share_words: share_bytes / 8,
            layer: 0,
            current: vec![None; buckets],
            maps: HashMap::new(),
            pending: (0..buckets).map(|_| Mutex::new(Pending::new(width, table_bytes))).collect(),
            touched_words: AtomicUsize::new(0),
            resident: Resident::new(buckets),
            paced: false,
            named: None,
            durable: true,
            held: false,
            unwritten_states: vec![0; buckets],
            unwritten: Vec::new(),
        })
    }

    /// A store whose current layer is `layer`, as a checkpoint recorded it. Every section is
    /// mapped and verified (bounds, checksum, state count) before anything else is done: a
    /// refused resume changes nothing on disk.
    pub fn resume(
        root: &Path,
        pass: usize,
        buckets: usize,
        moduli: Moduli,
        mem_limit: u64,
        layer: &DurableLayer,
    ) -> Result<Self> {
        let maps = Self::verify(layer, buckets, moduli.len())?;
        let mut store = DiskStore::create(root, pass, buckets, moduli, mem_limit)?;
        store.layer = layer.number;
        store.maps = maps;
        for file in &layer.files {
            store.current[file.bucket] = Some(file.clone());
        }
        Ok(store)
    }

    /// Checks that every section of `layer` is there and is what the checkpoint recorded;
    /// returns its files, mapped.
    fn verify(layer: &DurableLayer, buckets: usize, width: usize) -> Result<HashMap<PathBuf, Arc<Mmap>>> {
        let mut maps = HashMap::new();
        for file in &layer.files {
            if file.bucket >= buckets {
                return Err(Error::File {
                    path: file.path.clone(),
                    message: format!("the checkpoint names bucket {} of a job with {buckets} buckets", file.bucket),
                });
            }
            if maps.contains_key(&file.path) {
                continue;
            }
            if !file.path.exists() {
                return Err(Error::File {
                    path: file.path.clone(),
                    message: "missing: the last checkpoint names this file; restore it, or start the job again in \
                              a new directory"
                        .into(),
                });
            }
            maps.insert(file.path.clone(), map_file(&file.path)?);
        }
        layer.files.par_iter().try_for_each(|file| -> Result<()> {
            let map = maps[&file.path].clone();
            let found =
                SectionReader::<K>::section(map.clone(), &file.path, file.offset, file.info.bytes, width)?.info();
            // Checked, its pages leave: a resumed layer would otherwise be resident whole.
            release_pages(&map, file.offset, file.info.bytes);
            if found != file.info {
                return Err(Error::File {
                    path: file.path.clone(),
                    message: format!(
                        "holds {} states in {} bytes (checksum {:08x}) at byte {} but the checkpoint recorded {} \
                         states in {} bytes (checksum {:08x}); the file was replaced or damaged: restore it, or \
                         start the job again in a new directory",
                        found.states,
                        found.bytes,
                        found.crc32,
                        file.offset,
                        file.info.states,
                        file.info.bytes,
                        file.info.crc32
                    ),
                });
            }
            Ok(())
        })?;
        Ok(maps)
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
        self.make_layer_dir(self.layer + 1)
    }

    /// Makes the folder of `layer`.
    fn make_layer_dir(&self, layer: u64) -> Result<PathBuf> {
        let dir = self.layer_dir(layer);
        fs::create_dir_all(&dir).map_err(|e| file_error(&dir, "create the directory", e))?;
        Ok(dir)
    }

    /// Removes a layer's folder: its segments, spills and runs (never a file leaper did not
    /// write).
    fn remove_layer(&self, layer: u64) -> Result<()> {
        remove_folder(&self.root, &self.layer_dir(layer)).map(|_| ())
    }

    /// Writes what `bucket` holds in memory as a spill run, and empties it.
    fn spill(&self, bucket: usize, pending: &mut Pending<K>) -> Result<()> {
        if pending.spill.is_empty() {
            self.make_next_dir()?;
        }
        let layout = self.layout();
        sort_records::<K>(&mut pending.appended, layout);
        fold_equal_keys::<K>(&mut pending.appended, layout, &self.moduli);
        let Pending { appended, table, spill, .. } = pending;
        spill.append(appended, table, &self.moduli, || self.spill_path(bucket))?;
        appended.clear();
        Ok(())
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
        Some(self.current[bucket].as_ref().map_or(self.unwritten_states[bucket], |file| file.info.states))
    }

    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> Result<()> {
        if self.resident.visit(bucket, self.layout(), resident::CHUNK_STATES, visit)? {
            return Ok(());
        }
        if self.current[bucket].is_none() && self.unwritten_states[bucket] > 0 {
            return Err(Error::Bug(format!("bucket {bucket} of a layer held in memory alone was read twice")));
        }
        match &self.current[bucket] {
            Some(file) => {
                let map = self
                    .maps
                    .get(&file.path)
                    .cloned()
                    .ok_or_else(|| Error::Bug(format!("{} is not mapped", file.path.display())))?;
                let section = SectionReader::<K>::section(
                    Arc::clone(&map),
                    &file.path,
                    file.offset,
                    file.info.bytes,
                    self.moduli.len(),
                )?;
                let visited = section.visit(visit);
                release_pages(&map, file.offset, file.info.bytes);
                visited
            }
            None => Ok(()),
        }
    }

    fn emit(&self, bucket: usize, records: &[u64]) -> Result<()> {
        let mut pending = self.pending[bucket].lock().expect("pending lock");
        let incoming = records.len() / self.layout().stride();
        if incoming > pending.table.room() && !pending.table.is_empty() {
            self.spill(bucket, &mut pending)?;
        }
        pending.table.add_records(records, &self.moduli);
        Ok(())
    }

    fn emit_merged(&self, bucket: usize, records: &[u64]) -> Result<()> {
        let mut pending = self.pending[bucket].lock().expect("pending lock");
        if pending.words() + records.len() > self.share_words && pending.words() > 0 {
            self.spill(bucket, &mut pending)?;
        }
        if pending.appended.capacity() == 0 {
            // Once, for the whole share (its pages taken only as it fills): an array that
            // doubled would copy itself. At least the allocator's threshold for a mapping of its
            // own, whose pages leave the process when it is freed: a smaller one came from the
            // allocator's heaps, where freed pages stay, and the heaps grew step by step to
            // twice the shares (the 7 x 10 sweep at 256 MiB: 473 MiB resident).
            let room = self.share_words.saturating_sub(pending.table.bytes() / 8).max(records.len());
            pending.appended.reserve_exact(room.max(crate::heap::OWN_MAPPING_BYTES / 8));
        }
        pending.appended.extend_from_slice(records);
        let grown = pending.appended.len().saturating_sub(pending.touched);
        pending.touched += grown;
        drop(pending);
        let touched = self.touched_words.fetch_add(grown, Ordering::Relaxed) + grown;
        let held = self.resident.held_words();
        // A layer held in memory alone is small (a share at most) and has no other copy.
        if held > 0 && touched + held > self.share_words * self.pending.len() && !self.held {
            // The next layer needs the room: the copies not yet read go, read from disk instead.
            self.resident.evict();
        }
        Ok(())
    }

    fn finish_step(&mut self) -> Result<LayerSummary> {
        // Copies of the current layer that no expansion read (a worker reads only its own
        // buckets) go before the next layer is kept.
        self.resident.clear();
        self.forget_held();
        *self.touched_words.get_mut() = 0;
        let next_dir = self.layer_dir(self.layer + 1);
        let layout = self.layout();
        let width = self.moduli.len();
        let moduli = &self.moduli;
        let budget = self.aggregation_budget;
        let segments = Segments::new(&self.root, self.pass, self.layer + 1);
        // In parallel over the buckets that hold states only: a layer of a few states would
        // otherwise wake every thread for hundreds of empty buckets, step after step (a graph's
        // thin stretches), and wait for each on a busy machine.
        let mut filled: Vec<(usize, &mut Mutex<Pending<K>>)> = self
            .pending
            .iter_mut()
            .enumerate()
            .filter_map(|(bucket, slot)| (!slot.get_mut().expect("pending lock").is_empty()).then_some((bucket, slot)))
            .collect();
        if self.paced {
            match held_alone::<K>(filled, layout, moduli, self.share_words) {
                Ok(buckets) => return self.hold_alone(buckets),
                Err(to_write) => filled = to_write,
            }
        }
        fs::create_dir_all(&next_dir).map_err(|e| file_error(&next_dir, "create the directory", e))?;
        // The tables stay, emptied, for the next step: allocated once, not regrown every step
        // (regrowing would copy them). The arrays go (those written whole as the next step's
        // copies), their pages with them: the next step counts its arrays from nothing.
        let merged: Result<Vec<(usize, WrittenBucket)>> = filled
            .into_par_iter()
            .map(|(bucket, slot)| -> Result<(usize, WrittenBucket)> {
                let pending = slot.get_mut().expect("pending lock");
                let spill = std::mem::replace(&mut pending.spill, SpillRuns::new());
                // Written straight from its array, the array is the section: kept as the next
                // step's copy in memory.
                let whole = spill.is_empty() && pending.table.is_empty();
                sort_records::<K>(&mut pending.appended, layout);
                fold_equal_keys::<K>(&mut pending.appended, layout, moduli);
                let Pending { appended, table, .. } = pending;
                let written = segments.with_writer(|out| {
                    let path = out.path().to_path_buf();
                    let mut writer = SectionWriter::<K>::begin(out, width)?;
                    let spilled = if !spill.is_empty() {
                        spill.merge_into(appended, table, &mut writer, moduli, budget)?
                    } else if table.is_empty() {
                        writer.push_records(appended)?;
                        0
                    } else {
                        table.drain_sorted_with(appended, moduli, |key, residues| writer.push(key, residues))?;
                        0
                    };
                    let section = writer.finish()?;
                    crate::fault::point("bucket").map_err(|e| file_error(&path, "write", e))?;
                    Ok((Some(BucketSection { bucket, path, offset: section.offset, info: section.info }), spilled))
                });
                pending.touched = 0;
                let copy = match written {
                    Ok(_) if whole => Some(std::mem::take(appended)),
                    _ => {
                        *appended = Vec::new();
                        None
                    }
                };
                written.map(|(file, spilled)| (bucket, (file, spilled, copy)))
            })
            .collect();
        let merged = merged.inspect_err(|_| {
            // Whatever a failed merge left is not part of any layer.
            for slot in &mut self.pending {
                let pending = slot.get_mut().expect("pending lock");
                pending.table.clear();
                pending.appended = Vec::new();
                pending.touched = 0;
                pending.spill = SpillRuns::new();
            }
        })?;
        // With paced checkpoints the fsyncs wait until a checkpoint is to name the layer.
        let files = segments.finish(!self.paced)?;
        let mut maps = HashMap::new();
        for path in files {
            let map = map_file(&path)?;
            maps.insert(path, map);
        }
        let spilled_bytes = merged.iter().map(|(_, (_, spilled, _))| spilled).sum();
        let mut written: Vec<Option<BucketSection>> = vec![None; self.pending.len()];
        let mut copies: Vec<(usize, Vec<u64>)> = Vec::new();
        for (bucket, (file, _, copy)) in merged {
            written[bucket] = file;
            copies.extend(copy.map(|copy| (bucket, copy)));
        }
        if !self.paced {
            self.sync_layer_dirs(self.layer + 1)?;
        }
        self.current = written;
        self.maps = maps;
        self.next_is_current()?;
        // Only now, with the layer the current one: a step that failed keeps no copy of it.
        for (bucket, copy) in copies {
            self.resident.keep(bucket, copy);
        }
        Ok(self.summary(spilled_bytes))
    }

    fn durable_layer(&self) -> Option<DurableLayer> {
        let files = self.current.iter().flatten().cloned().collect();
        Some(DurableLayer { number: self.layer, files })
    }

    fn release_older_layers(&mut self) -> Result<()> {
        if self.paced {
            // The layers between the one named before and this one went as they were read.
            if let Some(named) = self.named.filter(|&named| named != self.layer) {
                self.remove_layer(named)?;
            }
            self.named = Some(self.layer);
        } else if self.layer > 0 {
            // Layers before `layer - 1` went at earlier steps, or were swept away on resume.
            self.remove_layer(self.layer - 1)?;
        }
        crate::fault::point("release").map_err(|e| file_error(&self.root, "write", e))
    }

    fn pace_checkpoints(&mut self) {
        self.paced = true;
        // A resumed store's layer is the one the last checkpoint named.
        self.named = (self.layer > 0).then_some(self.layer);
    }

    fn make_durable(&mut self) -> Result<()> {
        if self.durable {
            return Ok(());
        }
        if self.held {
            self.write_held()?;
        }
        for path in self.maps.keys() {
            fs::File::open(path).and_then(|file| file.sync_all()).map_err(|e| file_error(path, "fsync", e))?;
        }
        self.sync_layer_dirs(self.layer)?;
        self.durable = true;
        Ok(())
    }

    fn discard(&mut self) -> Result<()> {
        self.resident.clear();
        self.forget_held();
        self.maps.clear();
        if let Some(named) = self.named.filter(|&named| named != self.layer) {
            self.remove_layer(named)?;
        }
        self.remove_layer(self.layer)?;
        self.current.iter_mut().for_each(|file| *file = None);
        Ok(())
    }
}

impl<K: StateKey> DiskStore<K> {
    /// Makes the folder of `layer` (its files fsynced), and its place in the pass's folder,
    /// durable: the layer is then whole on disk, for a checkpoint to name.
    fn sync_layer_dirs(&self, layer: u64) -> Result<()> {
        let dir = self.layer_dir(layer);
        sync_dir(&dir)?;
        sync_dir(&self.path(JobFile::Pass { pass: self.pass }))?;
        crate::fault::point("layer").map_err(|e| file_error(&dir, "write", e))
    }

    fn summary(&self, spilled_bytes: u64) -> LayerSummary {
        let mut summary = LayerSummary { spilled_bytes, ..LayerSummary::default() };
        for file in self.current.iter().flatten() {
            summary.states += file.info.states;
            summary.bytes += file.info.bytes;
        }
        // A layer held in memory alone: its records' bytes.
        let record_bytes = self.layout().record_bytes() as u64;
        for &bucket in &self.unwritten {
            summary.states += self.unwritten_states[bucket];
            summary.bytes += self.unwritten_states[bucket] * record_bytes;
        }
        summary
    }

    /// Forgets that the current layer is held in memory alone (it goes).
    fn forget_held(&mut self) {
        self.held = false;
        for bucket in std::mem::take(&mut self.unwritten) {
            self.unwritten_states[bucket] = 0;
        }
    }

    /// The next layer, written or held, is now the current one: with paced checkpoints, not yet
    /// durable, and the layer before it, read and named by no checkpoint, goes.
    fn next_is_current(&mut self) -> Result<()> {
        self.layer += 1;
        self.durable = !self.paced;
        if self.paced && self.named != Some(self.layer - 1) {
            self.remove_layer(self.layer - 1)?;
        }
        Ok(())
    }

    /// Makes `buckets` (each its records, sorted and merged) the current layer, held in memory
    /// alone (see [`DiskStore::unwritten`]).
    fn hold_alone(&mut self, buckets: Vec<(usize, Vec<u64>)>) -> Result<LayerSummary> {
        let stride = self.layout().stride();
        self.current.iter_mut().for_each(|file| *file = None);
        self.maps.clear();
        self.next_is_current()?;
        self.held = true;
        for (bucket, records) in buckets {
            self.unwritten_states[bucket] = (records.len() / stride) as u64;
            self.unwritten.push(bucket);
            self.resident.keep(bucket, records);
            // Its array stays for the next step, its pages still resident: still charged.
            *self.touched_words.get_mut() += self.pending[bucket].get_mut().expect("pending lock").touched;
        }
        Ok(self.summary(0))
    }

    /// Writes the current layer, held in memory alone, to its segment files (not yet fsynced),
    /// as `finish_step` would have; its copies stay for the next step's reads.
    fn write_held(&mut self) -> Result<()> {
        self.held = false;
        self.make_layer_dir(self.layer)?;
        let segments = Segments::new(&self.root, self.pass, self.layer);
        let width = self.moduli.len();
        for bucket in std::mem::take(&mut self.unwritten) {
            self.unwritten_states[bucket] = 0;
            let records = self.resident.records(bucket).ok_or_else(|| {
                Error::Bug(format!("bucket {bucket} of a layer held in memory alone was read before it was written"))
            })?;
            let file = segments.with_writer(|out| {
                let path = out.path().to_path_buf();
                let mut writer = SectionWriter::<K>::begin(out, width)?;
                writer.push_records(records)?;
                let section = writer.finish()?;
                crate::fault::point("bucket").map_err(|e| file_error(&path, "write", e))?;
                Ok(BucketSection { bucket, path, offset: section.offset, info: section.info })
            })?;
            self.current[bucket] = Some(file);
        }
        for path in segments.finish(false)? {
            let map = map_file(&path)?;
            self.maps.insert(path, map);
        }
        Ok(())
    }
}

impl<K: StateKey> Drop for DiskStore<K> {
    fn drop(&mut self) {
        // A half-written next layer is scratch; the current layer may be named by a checkpoint
        // and is deleted only through `discard`.
        let _ = self.remove_layer(self.layer + 1);
    }
}
