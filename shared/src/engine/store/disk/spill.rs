//! Spill files: the raw, unsorted successors of one bucket, and their aggregation into a
//! bucket file within a memory budget.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::engine::jobdir::file_error;
use crate::engine::key::{RecordLayout, StateKey};
use crate::engine::store::disk::bucket_file::{BucketInfo, BucketWriter};
use crate::engine::store::{AggregationTable, StateBatch};
use crate::engine::Moduli;
use crate::error::{Error, Result};

/// Write buffer per spill file.
pub const SPILL_BUFFER_BYTES: usize = 64 * 1024;

/// Appends records (key words, then residues; little-endian u64s) to a spill file.
pub struct SpillWriter {
    path: PathBuf,
    out: BufWriter<File>,
}

impl SpillWriter {
    pub fn create(path: &Path) -> Result<Self> {
        let file = File::create(path).map_err(|e| file_error(path, "create", e))?;
        Ok(SpillWriter { path: path.to_path_buf(), out: BufWriter::with_capacity(SPILL_BUFFER_BYTES, file) })
    }

    /// Runs `write` on the buffered file behind one "spill" fault point, naming the file in
    /// any error.
    fn write_with(&mut self, write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>) -> Result<()> {
        let out = &mut self.out;
        crate::engine::fault::point("spill").and_then(|()| write(out)).map_err(|e| file_error(&self.path, "write", e))
    }

    /// Appends the entries of `table` and empties it.
    pub fn append_table<K: StateKey>(&mut self, table: &mut AggregationTable<K>) -> Result<()> {
        self.write_with(|out| table.drain_each(|record| put_words(out, record)))
    }

    /// Appends a batch, interleaving keys and residues into records.
    pub fn append_batch(&mut self, batch: &StateBatch) -> Result<()> {
        let words = batch.layout.key_words;
        self.write_with(|out| {
            (0..batch.len()).try_for_each(|i| {
                put_words(out, &batch.keys[i * words..(i + 1) * words])?;
                put_words(out, batch.residues_of(i))
            })
        })
    }

    /// Flushes and closes; spills are scratch (rebuilt by rerunning the step), so no fsync.
    pub fn finish(self) -> Result<PathBuf> {
        self.out.into_inner().map_err(|e| file_error(&self.path, "write", e.into_error()))?;
        Ok(self.path)
    }
}

/// Writes `words` as little-endian u64s.
fn put_words(out: &mut impl Write, words: &[u64]) -> std::io::Result<()> {
    words.iter().try_for_each(|word| out.write_all(&word.to_le_bytes()))
}

/// Reads records back in chunks of at most `limit` states.
struct RecordReader {
    path: PathBuf,
    input: BufReader<File>,
    layout: RecordLayout,
    bytes: Vec<u8>,
}

impl RecordReader {
    fn open(path: &Path, layout: RecordLayout) -> Result<(Self, u64)> {
        let file = File::open(path).map_err(|e| file_error(path, "open", e))?;
        let length = file.metadata().map_err(|e| file_error(path, "stat", e))?.len();
        let record = layout.record_bytes() as u64;
        if length % record != 0 {
            return Err(Error::File {
                path: path.to_path_buf(),
                message: format!("spill file of {length} bytes is not whole records; rerun the step"),
            });
        }
        let reader = RecordReader {
            path: path.to_path_buf(),
            input: BufReader::with_capacity(1 << 20, file),
            layout,
            bytes: Vec::new(),
        };
        Ok((reader, length / record))
    }

    /// Fills `records` with the next `count` records.
    fn read(&mut self, count: usize, records: &mut Vec<u64>) -> Result<()> {
        self.bytes.resize(count * self.layout.record_bytes(), 0);
        self.input.read_exact(&mut self.bytes).map_err(|e| file_error(&self.path, "read", e))?;
        records.clear();
        records.extend(self.bytes.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())));
        Ok(())
    }
}

/// Merges equal keys of the spill at `spill` into the sorted bucket file `out`, using at most
/// about `budget` bytes.
pub fn aggregate_spill<K: StateKey>(spill: &Path, out: &Path, moduli: &Moduli, budget: usize) -> Result<BucketInfo> {
    let layout = RecordLayout::of::<K>(moduli.len());
    let (mut reader, records) = RecordReader::open(spill, layout)?;
    // A table entry, its sorted copy and the read buffer, per state.
    let per_state = AggregationTable::<K>::bytes_for(layout.residues, 1 << 20) / (1 << 20) + 3 * layout.record_bytes();
    let chunk = (budget / per_state).max(1024);
    let mut buffer = Vec::new();
    if records as usize <= chunk {
        let sorted = read_aggregated::<K>(&mut reader, records as usize, &mut buffer, moduli)?;
        drop(buffer);
        return super::write_bucket_file::<K>(out, &sorted);
    }

    // Too big for one table: aggregated, sorted runs, then a k-way merge.
    let mut runs = Vec::new();
    let mut remaining = records as usize;
    while remaining > 0 {
        let take = remaining.min(chunk);
        let sorted = read_aggregated::<K>(&mut reader, take, &mut buffer, moduli)?;
        remaining -= take;
        let run = spill.with_extension(format!("run{}", runs.len()));
        let mut writer = SpillWriter::create(&run)?;
        writer.append_batch(&sorted)?;
        runs.push(writer.finish()?);
    }
    let summary = merge_runs::<K>(&runs, out, moduli)?;
    for run in &runs {
        std::fs::remove_file(run).map_err(|e| file_error(run, "remove", e))?;
    }
    Ok(summary)
}

/// The next `count` records of `reader`, equal keys merged, sorted by key.
fn read_aggregated<K: StateKey>(
    reader: &mut RecordReader,
    count: usize,
    buffer: &mut Vec<u64>,
    moduli: &Moduli,
) -> Result<StateBatch> {
    reader.read(count, buffer)?;
    let mut table = AggregationTable::<K>::with_capacity(moduli.len(), count);
    table.add_records(buffer, moduli);
    Ok(table.into_sorted_batch())
}

fn merge_runs<K: StateKey>(runs: &[PathBuf], out: &Path, moduli: &Moduli) -> Result<BucketInfo> {
    const READ_AHEAD: usize = 4096;
    let layout = RecordLayout::of::<K>(moduli.len());
    let stride = layout.stride();
    /// One run being merged: a window of its records and how many remain on disk.
    struct Cursor {
        reader: RecordReader,
        left: usize,
        records: Vec<u64>,
        at: usize,
    }
    impl Cursor {
        fn record(&self, stride: usize) -> &[u64] {
            &self.records[self.at * stride..(self.at + 1) * stride]
        }

        fn refill(&mut self, stride: usize) -> Result<bool> {
            if self.at * stride < self.records.len() {
                return Ok(true);
            }
            if self.left == 0 {
                return Ok(false);
            }
            let take = self.left.min(READ_AHEAD);
            self.reader.read(take, &mut self.records)?;
            self.left -= take;
            self.at = 0;
            Ok(true)
        }
    }
    let mut cursors = Vec::with_capacity(runs.len());
    let mut heap = BinaryHeap::new();
    for (i, run) in runs.iter().enumerate() {
        let (reader, left) = RecordReader::open(run, layout)?;
        let mut cursor = Cursor { reader, left: left as usize, records: Vec::new(), at: 0 };
        if cursor.refill(stride)? {
            heap.push(Reverse((K::from_words(cursor.record(stride)), i)));
        }
        cursors.push(cursor);
    }
    let mut writer = BucketWriter::<K>::create(out, layout.residues)?;
    let mut states = 0u64;
    let mut pending: Option<(K, Vec<u64>)> = None;
    while let Some(Reverse((key, i))) = heap.pop() {
        let cursor = &mut cursors[i];
        let residues = &cursor.record(stride)[K::WORDS..];
        match &mut pending {
            Some((pending_key, sum)) if *pending_key == key => moduli.add_assign(sum, residues),
            _ => {
                if let Some((done_key, sum)) = pending.replace((key, residues.to_vec())) {
                    writer.push(done_key, &sum)?;
                    states += 1;
                }
            }
        }
        cursor.at += 1;
        if cursor.refill(stride)? {
            heap.push(Reverse((K::from_words(cursor.record(stride)), i)));
        }
    }
    if let Some((key, sum)) = pending {
        writer.push(key, &sum)?;
        states += 1;
    }
    let info = writer.finish()?;
    debug_assert_eq!(info.states, states);
    Ok(info)
}
