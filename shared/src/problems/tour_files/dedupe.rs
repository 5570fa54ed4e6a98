//! One tour per class: duplicate elimination at any scale.
//!
//! Phadke compares each candidate's eight images with every master found so far, so each new
//! tour costs more than the last. Here every tour is reduced to its
//! [canonical form](super::canonical) as it is read; the forms, each with the tour's ordinal,
//! go to hash-partitioned bucket files (the engine's [`dedupe`](crate::engine::dedupe)), each
//! bucket is sorted on its own within the memory limit, and the first tour of every class
//! survives. A second reading of the input writes the survivors, in input order: the file
//! Phadke calls the independent solutions.
//!
//! ```text
//! FILES ──read, check, canonical form (all threads)──► partition: form ++ ordinal ++ |stabiliser| ++ kind
//!       ──► per bucket: sort, keep the least ordinal of each form ──► merge by ordinal
//!       ──► totals (classes by the order of their symmetry group) and, with --out, FILES read
//!           again and the tours of the kept ordinals written
//! ```
//!
//! Input that cannot be read twice (stdin, a pipe) is spooled, with `--out`, as it is read the
//! first time: its valid tours as move lists in the scratch directory, read in its stead.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use super::board::TourBoard;
use super::canonical::Canonicalizer;
use super::format::{write, Closure, Format};
use super::infer::BoardSource;
use super::output::Output;
use super::reader::{read_tours, ReadOptions};
use super::tour::Tour;
use crate::engine::dedupe::{BucketDeduper, DedupeStats, Partitioner, Shape};
use crate::engine::jobdir::{create_file, file_error};
use crate::error::{Error, Result};
use crate::input::Source;
use crate::units::bytes as size;

/// Buckets at most: enough for a terabyte of forms in a gigabyte of memory.
const MAX_BUCKETS: usize = 4096;
/// The least memory a thread that sorts buckets is given: what an out-of-core count asks of each
/// thread that merges (`engine/store/disk`), which refuses `leaper knight --mem-limit 1B`.
const MIN_THREAD_MEMORY: u64 = 1 << 18;

/// What to deduplicate and where.
pub struct DedupeOptions {
    pub read: ReadOptions,
    /// Where to write one tour per class, and in which format.
    pub out: Option<(Output, Format)>,
    /// The scratch directory for the bucket files (made, then removed).
    pub scratch: PathBuf,
    pub mem_limit: u64,
}

/// The totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DedupeReport {
    pub tours: u64,
    pub invalid: u64,
    pub classes: u64,
    pub closed_classes: u64,
    pub open_classes: u64,
    /// Classes by the order of their symmetry group (how many symmetries fix the tour).
    pub by_symmetry: BTreeMap<u8, u64>,
    /// The tours the classes hold, |G| / |stabiliser| each: all the images of the kept tours.
    pub images: u64,
    pub distinct: DedupeStats,
    pub bytes_read: u64,
}

/// The payload after the form: ordinal (big-endian, so that bytes sort as numbers), the order
/// of the symmetry group, closed (1) or open (0).
const PAYLOAD: usize = 8 + 1 + 1;

/// Deduplicates the tours of `paths`, sorting the buckets here or, given `remote`, on workers;
/// `stdout` takes the distinct tours of `--out -`.
pub fn dedupe(
    paths: &[PathBuf],
    options: &DedupeOptions,
    remote: Option<&dyn BucketDeduper>,
    stdout: &mut dyn Write,
) -> Result<DedupeReport> {
    check_mem_limit(options.mem_limit, remote)?;
    let canon = Canonicalizer::new(&options.read.board);
    let shape = Shape { key_len: canon.form_len(), payload_len: PAYLOAD };
    let buckets = bucket_count(paths, &options.read, shape, options.mem_limit);
    let mut partitioner = Partitioner::create(&options.scratch, shape, buckets)?;
    // Input that cannot be read twice is kept for the second reading, in the scratch directory.
    let rereadable = paths.iter().all(|path| Source::new(path).rereadable());
    let mut spool = None;
    if options.out.is_some() && !rereadable {
        match Spool::create(partitioner.side_file("tours")) {
            Ok(created) => spool = Some(created),
            Err(error) => {
                partitioner.abandon();
                return Err(error);
            }
        }
    }
    let board = &options.read.board;
    let compute = |tour: &Tour| canon.canonical(tour);
    let read = read_tours(paths, &options.read, &compute, &mut |ordinal, tour, canonical| {
        if let Some(spool) = &mut spool {
            spool.add(board, tour)?;
        }
        let mut payload = [0u8; PAYLOAD];
        payload[..8].copy_from_slice(&ordinal.to_be_bytes());
        payload[8] = canonical.stabiliser;
        payload[9] = u8::from(tour.closed);
        partitioner.add(&canonical.form, &payload)
    });
    let spooled = read.and_then(|read| Ok((read, spool.map(Spool::finish).transpose()?)));
    let (read, spooled) = match spooled {
        Ok(read) => read,
        Err(error) => {
            partitioner.abandon();
            return Err(error);
        }
    };
    let partitioned = partitioner.finish()?;
    let distinct = partitioned.dedupe(options.mem_limit, remote)?;
    let group = canon.symmetries().len() as u64;
    let mut report = DedupeReport {
        tours: read.tours,
        invalid: read.invalid,
        distinct,
        bytes_read: read.bytes,
        ..Default::default()
    };
    let mut kept = Vec::new();
    // The survivors own the scratch directory: it goes (the spool with it) when they do.
    let mut survivors = partitioned.survivors()?;
    for survivor in &mut survivors {
        let (payload, _copies) = survivor?;
        let ordinal = u64::from_be_bytes(payload[..8].try_into().expect("eight bytes"));
        let stabiliser = payload[8];
        report.classes += 1;
        *report.by_symmetry.entry(stabiliser).or_default() += 1;
        report.images += group / u64::from(stabiliser);
        if payload[9] == 1 {
            report.closed_classes += 1;
        } else {
            report.open_classes += 1;
        }
        if options.out.is_some() {
            kept.push(ordinal);
        }
    }
    if let Some((target, format)) = &options.out {
        match spooled {
            Some(spool) => write_kept(&[spool], &Spool::read_options(board), &kept, target, *format, stdout)?,
            None => write_kept(paths, &options.read, &kept, target, *format, stdout)?,
        }
    }
    drop(survivors);
    Ok(report)
}

/// The tours of input that cannot be read twice (stdin, a pipe), kept as they are read for
/// `--out`'s second reading: every valid tour, in order, as a move list (which says whether the
/// tour closes, as a compact line would not), so that the second reading numbers them alike.
struct Spool {
    path: PathBuf,
    writer: BufWriter<File>,
}

impl Spool {
    fn create(path: PathBuf) -> Result<Spool> {
        let file = create_file(&path).map_err(|e| file_error(&path, "create", e))?;
        Ok(Spool { path, writer: BufWriter::with_capacity(1 << 20, file) })
    }

    fn add(&mut self, board: &TourBoard, tour: &Tour) -> Result<()> {
        self.writer
            .write_all(write(board, tour, Format::Moves).as_bytes())
            .map_err(|e| file_error(&self.path, "write", e))
    }

    /// Its path, once written.
    fn finish(mut self) -> Result<PathBuf> {
        self.writer.flush().map_err(|e| file_error(&self.path, "write", e))?;
        Ok(self.path)
    }

    /// How it is read back: move lists of `board`, each closed where it says so.
    fn read_options(board: &TourBoard) -> ReadOptions {
        ReadOptions {
            board: board.clone(),
            source: BoardSource::Given,
            from: Some(Format::Moves),
            closure: Closure::Auto,
            skip_invalid: false,
        }
    }
}

/// Refuses a memory limit that leaves a thread sorting buckets (here, or on the workers) less
/// than [`MIN_THREAD_MEMORY`], before anything is read, naming the least limit that works (the
/// message has the shape of `leaper knight`'s for a limit too small to count out of core).
fn check_mem_limit(mem_limit: u64, remote: Option<&dyn BucketDeduper>) -> Result<()> {
    let threads = remote.map_or_else(rayon::current_num_threads, |r| r.concurrency()).max(1) as u64;
    let share = mem_limit / threads;
    if share < MIN_THREAD_MEMORY {
        return Err(Error::InvalidRequest(format!(
            "--mem-limit {} is too small: it leaves {} to each of the {threads} threads that sort buckets, which \
             need {} each; raise --mem-limit to at least {}",
            size(mem_limit),
            size(share),
            size(MIN_THREAD_MEMORY),
            size(MIN_THREAD_MEMORY * threads)
        )));
    }
    Ok(())
}

/// Enough buckets that one bucket per thread fits the memory limit, from the input's size and
/// the shortest line a tour can take.
fn bucket_count(paths: &[PathBuf], read: &ReadOptions, shape: Shape, mem_limit: u64) -> usize {
    let bytes: u64 = paths.iter().filter_map(|path| Source::new(path).regular_size()).sum();
    let shortest_line = 2 * read.board.squares() as u64 + 4;
    let records = bytes / shortest_line + 1;
    let in_memory = records * (shape.record_len() as u64 + 16);
    let threads = rayon::current_num_threads() as u64;
    let share = (mem_limit / threads / 2).max(1);
    (in_memory.div_ceil(share) as usize).clamp(threads as usize, MAX_BUCKETS)
}

/// Reads the input (`paths`, or the spool of input read once) again and writes the tours whose
/// ordinals are `kept` (ascending), each in `format`, to `target` (a file through a temporary file renamed into place, or `stdout`).
fn write_kept(
    paths: &[PathBuf],
    read: &ReadOptions,
    kept: &[u64],
    target: &Output,
    format: Format,
    stdout: &mut dyn Write,
) -> Result<()> {
    let board = &read.board;
    let path = target.path();
    target.write("the distinct tours", stdout, &mut |out| {
        let mut next = kept.iter().copied().peekable();
        read_tours(paths, read, &|_| (), &mut |ordinal, tour, ()| {
            if next.peek() == Some(&ordinal) {
                next.next();
                out.write_all(write(board, tour, format).as_bytes())
                    .map_err(|e| file_error(path, "write the distinct tours", e))?;
            }
            Ok(())
        })?;
        if next.peek().is_some() {
            return Err(Error::File {
                path: paths[0].clone(),
                message: "the input changed while it was being deduplicated".into(),
            });
        }
        Ok(())
    })
}
