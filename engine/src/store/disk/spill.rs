//! Spill runs: what a bucket holds in memory (its appended records and its table), written out
//! sorted whenever it outgrows its share during a step, and the merge of a bucket's runs into
//! its section at the end of the step.
//!
//! ```text
//! during the step   share full ──► sort ──► a run, appended to spill-BBBB.runs: blocks
//!                                           as in the bucket sections (zstd over LEB128
//!                                           key deltas and lanes of counts)
//! finish_step       run 0, run 1, ..., and what is left in memory (sorted)
//!                     ──► k-way merge, residues of equal keys added ──► the bucket's section
//! ```
//!
//! Example: a bucket's table holds 3 entries and receives keys 7, 2, 9, 2, 5, 7, 8 (count 1
//! each). After 7, 2, 9 it is full: run 0 = [2:1, 7:1, 9:1]. Then 2, 5, 7 fill it again: run 1
//! = [2:1, 5:1, 7:1]. The step ends with [8:1] in the table; the merge reads 2 from both runs
//! (2:2), then 5:1, 7:2, 8:1, 9:1.
//!
//! Why sorted runs and not raw records: a run costs about what a bucket section costs per state
//! (the keys of a sorted run are close together, and most counts are small), where a raw record
//! costs 16 bytes, so a step spills about the size of a layer or two rather than the size of its
//! successors; and the merge reads each run once, in order, with no hash table. A run's blocks
//! are the sections' blocks (`section::encode_block`: LEB128 keys and lanes, through
//! zstd): fewer bytes than bare LEB128 for little more time (docs/PERFORMANCE-LOG.md, "Counts lane by
//! lane on disk"). The runs of a bucket share one file (a file per run would cost the file system
//! more than the writing: thousands of small files a step), and where each run's blocks lie is kept
//! in memory: the file is scratch, read back at the end of the step and deleted, and a crash reruns
//! the step. The merge holds one decoded block per run; when a bucket has more runs than its share
//! of the memory budget has blocks for, runs are merged in groups into longer runs (appended to the
//! same file) first.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::{self, File};
use std::io::Write;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::error::{Error, Result};
use crate::files::durable::{file_error, no_follow};
use crate::key::{RecordLayout, StateKey};
use crate::store::disk::section::{decode_block, encode_block, SectionWriter, BLOCK_STATES, BUCKET_FORMAT};
use crate::store::disk::spare;
use crate::store::{AggregationTable, StateBatch};
use crate::Moduli;

/// Where one block of a run lies in the spill file: offset, bytes, states.
#[derive(Clone, Copy, Debug)]
struct Block {
    offset: usize,
    length: usize,
    states: usize,
}

/// The spill runs of one bucket of the layer being made, in one file.
pub struct SpillRuns<K: StateKey> {
    /// The file, made by the first run.
    file: Option<SpillFile>,
    /// Bytes written to the file.
    written: usize,
    /// The blocks of each run not yet merged away, oldest run first.
    runs: Vec<Vec<Block>>,
    key: PhantomData<K>,
}

struct SpillFile {
    path: PathBuf,
    /// Written a whole encoded block at a time: no write buffer (one per spilling bucket, 32 MiB
    /// for 503 buckets, which the memory limit would have to count).
    out: File,
}

impl<K: StateKey> SpillRuns<K> {
    pub fn new() -> Self {
        SpillRuns { file: None, written: 0, runs: Vec::new(), key: PhantomData }
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Writes what the bucket holds in memory as a sorted run: `sorted` (whole records, keys
    /// ascending, each once) and the entries of `table`, equal keys added; empties the table.
    /// The first run makes the file at `path()` (its folder must exist).
    pub fn append(
        &mut self,
        sorted: &[u64],
        table: &mut AggregationTable<K>,
        moduli: &Moduli,
        path: impl FnOnce() -> PathBuf,
    ) -> Result<()> {
        if self.file.is_none() {
            let path = path();
            // Read too: the merge maps it.
            let file = no_follow()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .map_err(|e| file_error(&path, "create", e))?;
            self.file = Some(SpillFile { path, out: file });
        }
        crate::fault::point("spill").map_err(|e| file_error(self.path(), "write", e))?;
        let mut run = RunWriter::new(table.layout());
        if table.is_empty() {
            run.push_records(sorted, self)?;
        } else {
            table.drain_sorted_with(sorted, moduli, |key, residues| run.push(key, residues, self))?;
        }
        run.finish(self)
    }

    fn path(&self) -> &Path {
        &self.file.as_ref().expect("a spill with runs has a file").path
    }

    /// Appends `records` (whole records: a block's worth at most), encoded, to the file.
    fn write_block(&mut self, records: &[u64], layout: RecordLayout) -> Result<Block> {
        let file = self.file.as_mut().expect("a spill with runs has a file");
        let encoded =
            encode_block::<K>(records, layout.residues).map_err(|e| file_error(&file.path, "compress a block", e))?;
        file.out.write_all(&encoded).map_err(|e| file_error(&file.path, "write", e))?;
        let placed = Block { offset: self.written, length: encoded.len(), states: records.len() / layout.stride() };
        self.written += encoded.len();
        Ok(placed)
    }

    /// The file as written so far, mapped for reading.
    fn map(&mut self) -> Result<Mmap> {
        let file = self.file.as_mut().expect("a spill with runs has a file");
        // SAFETY: the spill file is this store's scratch; nothing truncates it while mapped, and
        // what is appended later lies past the mapped length.
        unsafe { Mmap::map(&file.out) }.map_err(|e| file_error(&file.path, "memory-map", e))
    }

    /// Merges the runs and what the bucket holds in memory at the end of the step (`sorted`,
    /// whole records with keys ascending, each once, and `last`, its table, emptied) into the
    /// bucket's section in `out`, using about `budget` bytes for decoded blocks, and removes the
    /// spill file. Returns the section and the bytes the spill took (merged runs included).
    pub fn merge_into(
        mut self,
        sorted: &[u64],
        last: &mut AggregationTable<K>,
        out: &mut SectionWriter<'_, K>,
        moduli: &Moduli,
        budget: usize,
    ) -> Result<u64> {
        let layout = RecordLayout::of::<K>(moduli.len());
        // A decoded block and its encoded bytes, per run being read: the largest encoded block
        // of the spill, where twice the decoded block was counted before format 5 (whose blocks
        // of 64 Ki states a tenth as large compressed made a merge's fan-in a quarter: the 9 x 6
        // sweep at a limit of 512 MiB spilled 7% more than in format 4, runs merged again).
        let encoded = self.runs.iter().flatten().map(|block| block.length).max().unwrap_or(0);
        let block_bytes = BLOCK_STATES * layout.record_bytes() + encoded;
        let fan_in = (budget / block_bytes).max(2);
        // One place of the last merge is the memory's: merge the oldest runs until the rest fit.
        let path = self.path().to_path_buf();
        while self.runs.len() >= fan_in {
            let group: Vec<Vec<Block>> = self.runs.drain(..fan_in).collect();
            let map = self.map()?;
            let cursors: Vec<Cursor<K>> =
                group.iter().map(|blocks| Cursor::of_run(&map, blocks, &path, moduli.len())).collect::<Result<_>>()?;
            let mut run = RunWriter::new(layout);
            merge(cursors, moduli, |key, residues| run.push(key, residues, &mut self))?;
            // The merged run goes last, so each round merges runs of one generation first.
            run.finish(&mut self)?;
        }
        let map = self.map()?;
        let mut cursors: Vec<Cursor<K>> =
            self.runs.iter().map(|blocks| Cursor::of_run(&map, blocks, &path, moduli.len())).collect::<Result<_>>()?;
        let mut tail = StateBatch::with_capacity(layout, last.len() + sorted.len() / layout.stride());
        last.drain_sorted_with(sorted, moduli, |key, residues| {
            tail.push(key, residues);
            Ok::<(), Error>(())
        })?;
        cursors.push(Cursor::of_batch(tail));
        merge(cursors, moduli, |key, residues| out.push(key, residues))?;
        drop(map);
        drop(self.file.take());
        fs::remove_file(&path).map_err(|e| file_error(&path, "remove", e))?;
        Ok(self.written as u64)
    }
}

/// A run being written: records gathered into blocks.
struct RunWriter {
    /// Whole records of the block being gathered.
    block: Vec<u64>,
    layout: RecordLayout,
    blocks: Vec<Block>,
}

impl RunWriter {
    fn new(layout: RecordLayout) -> Self {
        RunWriter { block: spare::words(BLOCK_STATES * layout.stride()), layout, blocks: Vec::new() }
    }

    fn push<K: StateKey>(&mut self, key: K, residues: &[u64], spill: &mut SpillRuns<K>) -> Result<()> {
        key.push_words(&mut self.block);
        crate::key::append_words(&mut self.block, residues);
        if self.block.len() == BLOCK_STATES * self.layout.stride() {
            self.blocks.push(spill.write_block(&self.block, self.layout)?);
            self.block.clear();
        }
        Ok(())
    }

    /// Whole records, keys ascending and above every key pushed before, a block at a time.
    fn push_records<K: StateKey>(&mut self, records: &[u64], spill: &mut SpillRuns<K>) -> Result<()> {
        debug_assert!(self.block.is_empty());
        for block in records.chunks(BLOCK_STATES * self.layout.stride()) {
            self.blocks.push(spill.write_block(block, self.layout)?);
        }
        Ok(())
    }

    fn finish<K: StateKey>(mut self, spill: &mut SpillRuns<K>) -> Result<()> {
        if !self.block.is_empty() {
            self.blocks.push(spill.write_block(&self.block, self.layout)?);
        }
        spill.runs.push(self.blocks);
        spare::give_back(self.block);
        Ok(())
    }
}

/// Sorted states being merged: a run read one block at a time, or a batch in memory.
struct Cursor<'a, K: StateKey> {
    map: &'a [u8],
    blocks: &'a [Block],
    path: &'a Path,
    /// The next block to decode.
    next_block: usize,
    batch: StateBatch,
    at: usize,
    key: PhantomData<K>,
}

impl<'a, K: StateKey> Cursor<'a, K> {
    fn of_run(map: &'a Mmap, blocks: &'a [Block], path: &'a Path, width: usize) -> Result<Self> {
        let batch = spare::batch(RecordLayout::of::<K>(width), BLOCK_STATES);
        let mut cursor = Cursor { map, blocks, path, next_block: 0, batch, at: 0, key: PhantomData };
        cursor.load()?;
        Ok(cursor)
    }

    fn of_batch(batch: StateBatch) -> Self {
        Cursor { map: &[], blocks: &[], path: Path::new(""), next_block: 0, batch, at: 0, key: PhantomData }
    }

    /// Decodes the next block, if any (an empty batch: the run has ended).
    fn load(&mut self) -> Result<()> {
        self.at = 0;
        self.batch.clear();
        if let Some(block) = self.blocks.get(self.next_block) {
            let bytes = &self.map[block.offset..block.offset + block.length];
            let width = self.batch.layout.residues;
            decode_block::<K>(bytes, block.states, width, BUCKET_FORMAT, &mut self.batch).map_err(|what| {
                Error::File {
                    path: self.path.to_path_buf(),
                    message: format!("spill block {}: {what}", self.next_block),
                }
            })?;
            self.next_block += 1;
        }
        Ok(())
    }

    fn key(&self) -> Option<K> {
        (self.at < self.batch.len()).then(|| self.batch.key(self.at))
    }

    fn residues(&self) -> &[u64] {
        self.batch.residues_of(self.at)
    }

    fn advance(&mut self) -> Result<()> {
        self.at += 1;
        if self.at == self.batch.len() {
            self.load()?;
        }
        Ok(())
    }
}

impl<K: StateKey> Drop for Cursor<'_, K> {
    fn drop(&mut self) {
        let layout = self.batch.layout;
        spare::give_back_batch(std::mem::replace(&mut self.batch, StateBatch::with_capacity(layout, 0)));
    }
}

/// Merges the sorted `cursors` (no key twice within one), passing each key once to `write` with
/// the sum of its residues.
fn merge<K: StateKey>(
    mut cursors: Vec<Cursor<'_, K>>,
    moduli: &Moduli,
    mut write: impl FnMut(K, &[u64]) -> Result<()>,
) -> Result<()> {
    let mut heap: BinaryHeap<Reverse<(K, usize)>> =
        cursors.iter().enumerate().filter_map(|(i, cursor)| cursor.key().map(|key| Reverse((key, i)))).collect();
    let mut current: Option<K> = None;
    let mut sum = vec![0u64; moduli.len()];
    while let Some(Reverse((key, i))) = heap.pop() {
        let cursor = &mut cursors[i];
        if current == Some(key) {
            moduli.add_assign(&mut sum, cursor.residues());
        } else {
            if let Some(done) = current {
                write(done, &sum)?;
            }
            current = Some(key);
            sum.copy_from_slice(cursor.residues());
        }
        cursor.advance()?;
        if let Some(next) = cursor.key() {
            heap.push(Reverse((next, i)));
        }
    }
    if let Some(done) = current {
        write(done, &sum)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::disk::section::SectionReader;

    /// The worked example of the module's comment, with a table of room for 3 entries, and
    /// then again with a budget so small that runs are merged in groups of two first; at the
    /// end the bucket also holds appended records (keys 3 and 7), merged with the rest.
    #[test]
    fn runs_and_the_last_table_merge_into_one_sorted_bucket() {
        use crate::store::disk::segment::SegmentWriter;
        let dir = leaper_test_kit::scratch_dir("spill-runs");
        let moduli = Moduli::first(1).unwrap();
        for budget in [1 << 30, 0] {
            let mut runs = SpillRuns::<u64>::new();
            let mut table = AggregationTable::<u64>::new(1);
            for (i, key) in [7u64, 2, 9, 2, 5, 7, 8, 5, 1].into_iter().enumerate() {
                if table.len() == 3 {
                    runs.append(&[], &mut table, &moduli, || dir.join("spill-0000.runs")).unwrap();
                }
                table.add(key, &[1 + i as u64 % 2], &moduli);
            }
            assert_eq!(runs.runs.len(), 2);
            let out = dir.join("s000.lps");
            let mut segment = SegmentWriter::create(&out).unwrap();
            let mut writer = SectionWriter::<u64>::begin(&mut segment, 1).unwrap();
            let spilled = runs.merge_into(&[3, 1, 7, 10], &mut table, &mut writer, &moduli, budget).unwrap();
            let section = writer.finish().unwrap();
            segment.finish(true).unwrap();
            assert!(table.is_empty());
            let mut merged = Vec::new();
            SectionReader::<u64>::open(&out, 1)
                .unwrap()
                .visit(&mut |keys, residues| {
                    merged.extend(keys.iter().copied().zip(residues.iter().copied()));
                    Ok(())
                })
                .unwrap();
            // Counts 1, 2, 1, 2, ... by position: 2 at positions 1 and 3, 7 at 0 and 5, 5 at 4 and 7.
            assert_eq!(merged, [(1, 1), (2, 4), (3, 1), (5, 3), (7, 13), (8, 1), (9, 1)]);
            assert_eq!(section.info.states, 7);
            assert!(spilled > 0);
            let left: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(left, ["s000.lps"], "the spill is removed once merged");
            fs::remove_file(&out).unwrap();
        }
    }
}
