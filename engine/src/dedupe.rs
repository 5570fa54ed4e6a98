//! Deduplication out of core: fixed-width records `key ++ payload`, hash-partitioned into
//! bucket files by key, then each bucket sorted on its own and the first record of every key
//! kept. Memory holds one bucket per thread at a time, never the whole input, and the work is
//! a sort: O(N log N) in all, where comparing every new record with every kept one would be
//! O(N^2).
//!
//! ```text
//! add(key, payload)         ──► DIR/bucket-BBBB.rec   (bucket = hash(key) mod B; buffered appends)
//! dedupe(mem_limit)             per bucket, on rayon threads:
//!     a bucket over its share of the memory limit is split again (DIR/bucket-BBBB-D-S.rec)
//!     sort the records; keep the least record of each key (so with an ordinal first in the
//!     payload, the earliest) and count its copies
//!                           ──► DIR/kept-BBBB.rec     (payload ++ copies, sorted by payload)
//! survivors()               ──► every kept payload, in payload order (a merge of the kept files)
//! ```
//!
//! On a cluster a [`BucketDeduper`] sends each bucket to a worker, which sorts it with
//! [`dedupe_records`], the same function the local path uses, and sends the survivors back.
//!
//! The scratch directory is made for the purpose and holds only these files (and the side files
//! a caller asks for, [`Partitioner::side_file`]); each is removed when it has been read, and
//! the directory when the survivors have been read. A run killed meanwhile leaves it; the
//! default one (`BASE.dedupe-PID`, [`default_scratch`]) is removed by the next run beside the same
//! base once process PID no longer runs ([`remove_stale_scratch`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::files::durable::{create_file, file_error, left_by_dead_process};

/// Bytes of write buffer per bucket while partitioning.
const WRITE_BUFFER: usize = 1 << 16;
/// Buckets a split makes of one bucket too big for memory.
const SPLIT: usize = 16;
/// Buckets smaller than this are never split: the files would cost more than the memory.
const MIN_SHARE: u64 = 1 << 12;
/// Splits deep enough that only keys with one hash remain: more would not help.
const MAX_SPLIT_DEPTH: u32 = 8;

/// A 64-bit FNV-1a hash of `key`, salted so that a bucket split again spreads its keys anew.
fn hash(key: &[u8], salt: u32) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ u64::from(salt).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for &byte in key {
        h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ h >> 29
}

/// Deduplicates whole buckets somewhere else (a cluster worker), as [`dedupe_records`] would.
pub trait BucketDeduper: Sync {
    /// The survivors of `records` (whole records of `shape`): payload ++ copies (big-endian u64),
    /// one per key, in any order.
    fn dedupe(&self, bucket: &str, shape: Shape, records: Vec<u8>) -> Result<Vec<Vec<u8>>>;

    /// How many buckets it can work on at once.
    fn concurrency(&self) -> usize;
}

/// The first record of every key of `records` (whole records of `shape`, in any order): its
/// payload followed by the number of records with that key (big-endian u64). The least record
/// of a key is the first: with an ordinal leading the payload, the earliest.
pub fn dedupe_records(shape: Shape, records: &[u8]) -> Result<Vec<Vec<u8>>> {
    let record_len = shape.record_len();
    if record_len == 0 || !records.len().is_multiple_of(record_len) {
        return Err(Error::InvalidRequest(format!(
            "{} bytes are not a whole number of {record_len}-byte records",
            records.len()
        )));
    }
    let mut sorted: Vec<&[u8]> = records.chunks_exact(record_len).collect();
    sorted.sort_unstable();
    let key_len = shape.key_len;
    Ok(sorted
        .chunk_by(|a, b| a[..key_len] == b[..key_len])
        .map(|group| {
            let mut survivor = group[0][key_len..].to_vec();
            survivor.extend_from_slice(&(group.len() as u64).to_be_bytes());
            survivor
        })
        .collect())
}

/// The shape of the records: `key_len` bytes of key, then `payload_len` bytes of payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub key_len: usize,
    pub payload_len: usize,
}

impl Shape {
    pub fn record_len(&self) -> usize {
        self.key_len + self.payload_len
    }

    /// What a bucket of `bytes` costs in memory while it is sorted (the records and one slice
    /// per record).
    fn sort_cost(&self, bytes: u64) -> u64 {
        bytes + bytes / self.record_len() as u64 * 16
    }
}

/// Records being partitioned into bucket files.
pub struct Partitioner {
    dir: PathBuf,
    shape: Shape,
    writers: Vec<BufWriter<File>>,
    records: u64,
}

/// What the partitioning and the deduplication measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DedupeStats {
    pub records: u64,
    pub distinct: u64,
    /// Bytes of bucket files written (splits included).
    pub bytes_on_disk: u64,
    pub buckets: usize,
    /// Buckets split again because they did not fit their share of memory.
    pub splits: u64,
}

fn bucket_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("bucket-{name}.rec"))
}

fn kept_path(dir: &Path, bucket: usize) -> PathBuf {
    dir.join(format!("kept-{bucket:04}.rec"))
}

fn create(path: &Path) -> Result<BufWriter<File>> {
    let file = create_file(path).map_err(|e| file_error(path, "create", e))?;
    Ok(BufWriter::with_capacity(WRITE_BUFFER, file))
}

impl Partitioner {
    /// Starts partitioning into `buckets` files in `dir`, which must not exist yet (it is made,
    /// and everything in it is leaper's to remove).
    pub fn create(dir: &Path, shape: Shape, buckets: usize) -> Result<Partitioner> {
        if dir.exists() {
            return Err(Error::File {
                path: dir.to_path_buf(),
                message: "the scratch directory for deduplication already exists; remove it or choose another \
                          with --scratch"
                    .into(),
            });
        }
        fs::create_dir(dir).map_err(|e| file_error(dir, "create the scratch directory", e))?;
        let buckets = buckets.max(1);
        let writers = (0..buckets).map(|b| create(&bucket_path(dir, &format!("{b:04}")))).collect::<Result<_>>();
        let writers = match writers {
            Ok(writers) => writers,
            Err(error) => {
                remove_scratch(dir);
                return Err(error);
            }
        };
        Ok(Partitioner { dir: dir.to_path_buf(), shape, writers, records: 0 })
    }

    pub fn add(&mut self, key: &[u8], payload: &[u8]) -> Result<()> {
        debug_assert_eq!((key.len(), payload.len()), (self.shape.key_len, self.shape.payload_len));
        let bucket = (hash(key, 0) % self.writers.len() as u64) as usize;
        let writer = &mut self.writers[bucket];
        let path = || bucket_path(&self.dir, &format!("{bucket:04}"));
        writer.write_all(key).and_then(|()| writer.write_all(payload)).map_err(|e| file_error(&path(), "write", e))?;
        self.records += 1;
        Ok(())
    }

    /// A file of the caller's own in the scratch directory (`side-NAME.rec`), removed with it.
    pub fn side_file(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{SIDE_PREFIX}{name}.rec"))
    }

    /// Flushes the bucket files.
    pub fn finish(self) -> Result<Partitioned> {
        let buckets = self.writers.len();
        for (bucket, mut writer) in self.writers.into_iter().enumerate() {
            if let Err(e) = writer.flush() {
                remove_scratch(&self.dir);
                return Err(file_error(&bucket_path(&self.dir, &format!("{bucket:04}")), "write", e));
            }
        }
        Ok(Partitioned { dir: self.dir, shape: self.shape, buckets, records: self.records })
    }

    /// Gives up: removes the scratch directory and its files.
    pub fn abandon(self) {
        let dir = self.dir.clone();
        drop(self.writers);
        remove_scratch(&dir);
    }
}

/// Removes the scratch directory's own files, then the directory (never anything else; a link
/// in its place is left, and nothing it points to is touched).
pub fn remove_scratch(dir: &Path) {
    if !fs::symlink_metadata(dir).is_ok_and(|meta| meta.is_dir()) {
        return;
    }
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let own = (name.starts_with("bucket-") || name.starts_with("kept-") || name.starts_with(SIDE_PREFIX))
                && name.ends_with(".rec");
            if own && entry.file_type().is_ok_and(|kind| kind.is_file()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    let _ = fs::remove_dir(dir);
}

/// The names of side files in a scratch directory: `side-NAME.rec`.
const SIDE_PREFIX: &str = "side-";
/// What a default scratch directory's name adds to its base: `BASE.dedupe-PID`.
const SCRATCH_INFIX: &str = ".dedupe-";

/// The scratch directory this process makes beside `base` when none is given: `BASE.dedupe-PID`
/// (`distinct.txt.dedupe-4242`).
pub fn default_scratch(base: &Path) -> PathBuf {
    let mut name = base.as_os_str().to_owned();
    name.push(format!("{SCRATCH_INFIX}{}", std::process::id()));
    name.into()
}

/// Removes the default scratch directories beside `base` that dedupes no longer running left
/// (`BASE.dedupe-PID` of a run killed while it worked), each as [`remove_scratch`] removes one:
/// its own files, then the directory if nothing else is in it. Returns those removed.
pub fn remove_stale_scratch(base: &Path) -> Vec<PathBuf> {
    let Some(name) = base.file_name().and_then(|name| name.to_str()) else { return Vec::new() };
    let parent = base.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Ok(entries) = fs::read_dir(parent) else { return Vec::new() };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if is_dir && left_by_dead_process(&entry.file_name(), &format!("{name}{SCRATCH_INFIX}"), "") {
            let dir = entry.path();
            remove_scratch(&dir);
            if !dir.exists() {
                removed.push(dir);
            }
        }
    }
    removed
}

/// One deduplication's settings and measurements, shared by its buckets.
struct Pass<'a> {
    /// Bytes one bucket may take in memory while it is sorted.
    share: u64,
    remote: Option<&'a dyn BucketDeduper>,
    bytes_on_disk: AtomicU64,
    splits: AtomicU64,
}

/// Bucket files ready to be deduplicated.
pub struct Partitioned {
    dir: PathBuf,
    shape: Shape,
    buckets: usize,
    records: u64,
}

impl Partitioned {
    /// Deduplicates every bucket, here or with `remote`, at most `mem_limit` bytes of records in
    /// memory across the buckets in progress, and writes the kept records. Returns the statistics.
    pub fn dedupe(&self, mem_limit: u64, remote: Option<&dyn BucketDeduper>) -> Result<DedupeStats> {
        let Some(remote) = remote else {
            return self.dedupe_on(mem_limit, rayon::current_num_threads(), None);
        };
        // As many buckets in flight as the workers take at once, each on a thread of its own.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(remote.concurrency().max(1))
            .build()
            .map_err(|e| Error::Bug(format!("cannot start the threads that send buckets: {e}")))?;
        pool.install(|| self.dedupe_on(mem_limit, remote.concurrency(), Some(remote)))
    }

    fn dedupe_on(&self, mem_limit: u64, threads: usize, remote: Option<&dyn BucketDeduper>) -> Result<DedupeStats> {
        let threads = threads.min(self.buckets).max(1) as u64;
        let share = (mem_limit / threads).max(MIN_SHARE);
        let pass = Pass { share, remote, bytes_on_disk: AtomicU64::new(0), splits: AtomicU64::new(0) };
        let distinct = (0..self.buckets)
            .into_par_iter()
            .map(|bucket| {
                let mut kept = Vec::new();
                let name = format!("{bucket:04}");
                self.bucket(&name, 0, &pass, &mut kept)?;
                // Payloads sorted: the survivors come out in payload order.
                kept.sort_unstable();
                let path = kept_path(&self.dir, bucket);
                let mut writer = create(&path)?;
                for record in &kept {
                    writer.write_all(record).map_err(|e| file_error(&path, "write", e))?;
                }
                writer.flush().map_err(|e| file_error(&path, "write", e))?;
                Ok(kept.len() as u64)
            })
            .collect::<Result<Vec<u64>>>()?
            .into_iter()
            .sum();
        Ok(DedupeStats {
            records: self.records,
            distinct,
            bytes_on_disk: pass.bytes_on_disk.into_inner(),
            buckets: self.buckets,
            splits: pass.splits.into_inner(),
        })
    }

    /// Deduplicates the bucket file `name` into `kept` (payload ++ copies), splitting it first if
    /// sorting it would take more than its share of memory.
    fn bucket(&self, name: &str, depth: u32, pass: &Pass, kept: &mut Vec<Vec<u8>>) -> Result<()> {
        let path = bucket_path(&self.dir, name);
        let size = fs::metadata(&path).map_err(|e| file_error(&path, "read", e))?.len();
        pass.bytes_on_disk.fetch_add(size, Ordering::Relaxed);
        let record_len = self.shape.record_len();
        if size % record_len as u64 != 0 {
            return Err(Error::File { path, message: format!("{size} bytes, not a whole number of records") });
        }
        if self.shape.sort_cost(size) > pass.share && depth < MAX_SPLIT_DEPTH {
            pass.splits.fetch_add(1, Ordering::Relaxed);
            let parts: Vec<String> = (0..SPLIT).map(|s| format!("{name}-{s:x}")).collect();
            let mut writers: Vec<BufWriter<File>> =
                parts.iter().map(|part| create(&bucket_path(&self.dir, part))).collect::<Result<_>>()?;
            let mut reader =
                BufReader::with_capacity(WRITE_BUFFER, File::open(&path).map_err(|e| file_error(&path, "read", e))?);
            let mut record = vec![0u8; record_len];
            for _ in 0..size / record_len as u64 {
                reader.read_exact(&mut record).map_err(|e| file_error(&path, "read", e))?;
                let part = (hash(&record[..self.shape.key_len], depth + 1) % SPLIT as u64) as usize;
                writers[part].write_all(&record).map_err(|e| file_error(&path, "split", e))?;
            }
            for writer in &mut writers {
                writer.flush().map_err(|e| file_error(&path, "split", e))?;
            }
            drop(writers);
            fs::remove_file(&path).map_err(|e| file_error(&path, "remove", e))?;
            for part in parts {
                self.bucket(&part, depth + 1, pass, kept)?;
            }
            return Ok(());
        }
        let bytes = fs::read(&path).map_err(|e| file_error(&path, "read", e))?;
        let survivors = match pass.remote {
            Some(remote) => remote.dedupe(name, self.shape, bytes)?,
            None => dedupe_records(self.shape, &bytes)?,
        };
        let width = self.shape.payload_len + 8;
        if let Some(bad) = survivors.iter().find(|s| s.len() != width) {
            return Err(Error::Bug(format!("a survivor of bucket {name} has {} bytes, not {width}", bad.len())));
        }
        kept.extend(survivors);
        fs::remove_file(&path).map_err(|e| file_error(&path, "remove", e))?;
        Ok(())
    }

    /// Every kept record, `(payload, copies)`, in payload order; the scratch directory is
    /// removed once all have been read.
    pub fn survivors(mut self) -> Result<Survivors> {
        let width = self.shape.payload_len + 8;
        let mut readers = Vec::with_capacity(self.buckets);
        let mut heap = BinaryHeap::new();
        for bucket in 0..self.buckets {
            let path = kept_path(&self.dir, bucket);
            let file = File::open(&path).map_err(|e| file_error(&path, "read", e))?;
            let mut reader = BufReader::with_capacity(WRITE_BUFFER, file);
            if let Some(record) = next_record(&mut reader, width, &path)? {
                heap.push(Reverse((record, bucket)));
            }
            readers.push((reader, path));
        }
        // From here the survivors own the scratch directory (and remove it when dropped).
        let dir = std::mem::take(&mut self.dir);
        Ok(Survivors { dir, payload_len: self.shape.payload_len, readers, heap })
    }
}

/// A deduplication that stops before its survivors are read (an error, a refusal) removes its
/// scratch directory.
impl Drop for Partitioned {
    fn drop(&mut self) {
        if !self.dir.as_os_str().is_empty() {
            remove_scratch(&self.dir);
        }
    }
}

fn next_record(reader: &mut BufReader<File>, width: usize, path: &Path) -> Result<Option<Vec<u8>>> {
    let mut record = vec![0u8; width];
    match reader.read_exact(&mut record) {
        Ok(()) => Ok(Some(record)),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(file_error(path, "read", e)),
    }
}

/// The kept records, merged from every bucket in payload order.
pub struct Survivors {
    dir: PathBuf,
    payload_len: usize,
    readers: Vec<(BufReader<File>, PathBuf)>,
    heap: BinaryHeap<Reverse<(Vec<u8>, usize)>>,
}

impl Iterator for Survivors {
    /// The payload and how many records had its key.
    type Item = Result<(Vec<u8>, u64)>;

    fn next(&mut self) -> Option<Self::Item> {
        let Reverse((mut record, bucket)) = self.heap.pop()?;
        let (reader, path) = &mut self.readers[bucket];
        match next_record(reader, record.len(), path) {
            Ok(Some(next)) => self.heap.push(Reverse((next, bucket))),
            Ok(None) => {}
            Err(error) => return Some(Err(error)),
        }
        let copies = u64::from_be_bytes(record[self.payload_len..].try_into().expect("eight bytes"));
        record.truncate(self.payload_len);
        Some(Ok((record, copies)))
    }
}

impl Drop for Survivors {
    fn drop(&mut self) {
        self.readers.clear();
        remove_scratch(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys with many copies, payloads numbered: the survivors are the first of each key, in
    /// order, with their copies, whatever the memory limit.
    #[test]
    fn keeps_the_first_record_of_every_key_within_any_memory_limit() {
        let root = leaper_test_kit::scratch("distinct");
        let shape = Shape { key_len: 3, payload_len: 8 };
        let mut expected: std::collections::BTreeMap<[u8; 3], (u64, u64)> = Default::default();
        let keys: Vec<[u8; 3]> =
            (0..5000u64).map(|i| [(i * 7 % 251) as u8, (i * 13 % 17) as u8, (i % 3) as u8]).collect();
        for (ordinal, key) in keys.iter().enumerate() {
            let entry = expected.entry(*key).or_insert((ordinal as u64, 0));
            entry.1 += 1;
        }
        let mut want: Vec<(u64, u64)> = expected.values().copied().collect();
        want.sort_unstable();
        for (limit, buckets) in [(1 << 30, 1), (1 << 30, 7), (2_000, 3), (1, 2)] {
            let dir = root.join(format!("scratch-{limit}-{buckets}"));
            fs::create_dir_all(&root).unwrap();
            let mut partitioner = Partitioner::create(&dir, shape, buckets).unwrap();
            for (ordinal, key) in keys.iter().enumerate() {
                partitioner.add(key, &(ordinal as u64).to_be_bytes()).unwrap();
            }
            let partitioned = partitioner.finish().unwrap();
            let stats = partitioned.dedupe(limit, None).unwrap();
            assert_eq!(stats.records, 5000);
            assert_eq!(stats.distinct, want.len() as u64);
            assert_eq!(stats.splits > 0, limit < 100_000, "limit {limit}");
            let got: Vec<(u64, u64)> = partitioned
                .survivors()
                .unwrap()
                .map(|r| r.map(|(payload, copies)| (u64::from_be_bytes(payload.try_into().unwrap()), copies)))
                .collect::<Result<_>>()
                .unwrap();
            assert_eq!(got, want, "limit {limit}, buckets {buckets}");
            assert!(!dir.exists(), "the scratch directory is removed");
        }
    }

    /// A killed dedupe's scratch directory is removed by the next run beside the same base,
    /// its own files only; a running process's, another base's and a link are left.
    #[test]
    fn scratch_directories_of_dead_processes_are_removed() {
        let root = leaper_test_kit::scratch_dir("stale-scratch");
        let base = root.join("distinct.txt");
        // No process has the id 2^32 - 1 (Linux pids stay below 2^22).
        let dead = root.join("distinct.txt.dedupe-4294967295");
        let stranger = root.join("distinct.txt.dedupe-4294967294");
        let running = default_scratch(&base);
        let other_base = root.join("other.txt.dedupe-4294967295");
        for dir in [&dead, &stranger, &running, &other_base] {
            fs::create_dir(dir).unwrap();
            fs::write(dir.join("bucket-0000.rec"), b"records").unwrap();
        }
        fs::write(dead.join("side-tours.rec"), b"a1 b3\n").unwrap();
        fs::write(stranger.join("notes.txt"), b"mine").unwrap();
        std::os::unix::fs::symlink(&stranger, root.join("distinct.txt.dedupe-4294967293")).unwrap();
        assert_eq!(remove_stale_scratch(&base), std::slice::from_ref(&dead));
        assert!(!dead.exists());
        // Its own files are gone, the stranger's stay, and so does its directory.
        assert!(!stranger.join("bucket-0000.rec").exists() && stranger.join("notes.txt").exists());
        assert!(running.join("bucket-0000.rec").exists() && other_base.join("bucket-0000.rec").exists());
        assert!(root.join("distinct.txt.dedupe-4294967293").symlink_metadata().is_ok());
    }
}
