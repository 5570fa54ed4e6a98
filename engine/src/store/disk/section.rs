//! Bucket sections: one bucket of one layer, written once (into a segment file, see
//! [`super::segment`]), then only read through a memory map.
//!
//! ```text
//! header  "LEAPBKT1"  format u32  residues u32  key words u32  0 u32               (24 bytes)
//! blocks  zstd( count u32 | coding u8 per lane | keys: first absolute, then deltas, LEB128 |
//!               lane 0 of every state, lane 1 of every state (XOR lane 0, or as it is), ...:
//!               u64 LE (coding bit 0 clear) or LEB128 (set); XOR lane 0 (bit 1 clear) or as
//!               it is (set, format 4); shifted right by coding bits 2-7 (format 5) )
//! index   per block: offset u64  compressed length u32  states u32  first key (8 x key words)
//! footer  states u64  blocks u32  index offset u64  crc32 u32  "LEAPEND1"         (32 bytes)
//! ```
//!
//! Offsets count from the section's first byte, so a section reads the same wherever its
//! segment holds it (a file of its own, as releases before segments wrote, is a section at
//! offset 0). Format 2 added the key width (format 1 files all had 64-bit keys): a section whose
//! key width or residue count differs from the job's is refused by name. Format 3 stores the
//! counts lane by lane, each lane in LEB128 where that is shorter than u64: most counts are small
//! numbers (docs/PERFORMANCE-LOG.md, "Counts lane by lane on disk"), and so are their residues while a
//! count is below every modulus: the lanes of a state are then equal, and every lane but the first
//! is stored XOR the first, as 0. A lane whose counts have passed the modulus is 64 random bits a
//! state and stays u64. Format 4 lets a block store a lane as it is, not XOR the first, where
//! that is shorter: the high word of an exact 128-bit count (`engine::arith`). Below `2^64` it
//! is 0, and either way costs next to nothing (XOR the low word it repeats the first lane, which
//! zstd finds); past `2^64` the low word is 64 random bits, the high word a few bits as it is but
//! as random as the low word XOR it (the spare residue modulo `2^64 - 59` stays close to the low
//! word, so XOR the first suits it). Format 5 stores each lane of a block shifted right by the
//! trailing zero bits its words share (the shift in the lane's coding byte), and gathers four
//! times as many states a block (64 Ki): the counts of a layer of closed tours are nearly all
//! even, and larger blocks give zstd more to find (the 9 x 8 sweep with an exact 128-bit lane
//! and a spare residue: its peak layer, 1.83e9 states, takes 1.92 bytes a state against 2.13
//! in format 4; docs/PERFORMANCE-LOG.md, "Issue 56 item 1's pair on the 9 x 8 sweep"). The
//! buffers of such a block pass 1 MiB, so each thread keeps a few ([`super::spare`]). Formats
//! 2 (counts state by state, u64), 3 (every lane but the first XOR the first) and 4 are still
//! read.
//!
//! The CRC covers every byte of the section before it. Counts live in the footer so the section
//! is written in one streaming pass.
//!
//! Keys are sorted, so their deltas are small and compress well; counts compress too while most of
//! them are small numbers (the same section of docs/PERFORMANCE-LOG.md). Every read checks the magic
//! numbers, the format version and the CRC before any state is used: a damaged section is an error
//! naming its file, never a wrong count.
//!
//! (The writer and the reader of a section share one file: they must agree byte for byte.)

use std::fs::File;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;

use super::segment::SegmentWriter;
use super::spare;
use crate::error::{Error, Result};
use crate::files::durable::file_error;
use crate::key::{RecordLayout, StateKey};
use crate::store::{BucketInfo, StateBatch, StateVisitor};

/// Version of the bucket section layout; sections of another version are refused.
pub const BUCKET_FORMAT: u32 = 5;
/// The oldest bucket format this leaper still reads.
const OLDEST_READ_FORMAT: u32 = 2;

const HEADER_MAGIC: &[u8; 8] = b"LEAPBKT1";
const FOOTER_MAGIC: &[u8; 8] = b"LEAPEND1";
const HEADER_BYTES: usize = 24;
const FOOTER_BYTES: usize = 32;

/// Bytes of one block index entry for keys of `key_words` words.
const fn index_entry_bytes(key_words: usize) -> usize {
    16 + 8 * key_words
}
/// States per compressed block: large enough to compress well (zstd at level 1 finds more in
/// 64 Ki states than in 16 Ki, format 5 above), small enough that a decoded block per spill run
/// being merged stays a few MiB.
pub(super) const BLOCK_STATES: usize = 64 * 1024;
const ZSTD_LEVEL: i32 = 1;

/// Lane `j` of a state's counts as the disk stores it where it goes XOR the first (the first
/// lane as it is). While a count is below every modulus its residues are all equal to it, so
/// the other lanes store as 0: one LEB128 byte, next to nothing through zstd. Example: residues
/// (300, 300, 300) are stored as 300, 0, 0; (5, 9) as 5, 12. A lane stored as it is (coding
/// [`LANE_AS_IS`]) is the word itself: the exact 128-bit lane (300, 0) stores as 300, 0, where
/// XOR the first would store 300, 300.
#[inline(always)]
fn stored_lane(lanes: &[u64], j: usize, as_is: bool) -> u64 {
    if j == 0 || as_is {
        lanes[j]
    } else {
        lanes[j] ^ lanes[0]
    }
}

/// Where a section lies, for messages: the file alone when the section is the whole file.
fn describe(path: &Path, offset: u64) -> PathBuf {
    if offset == 0 {
        path.to_path_buf()
    } else {
        PathBuf::from(format!("{} (the bucket at byte {offset})", path.display()))
    }
}

fn damaged(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::File {
        path: path.to_path_buf(),
        message: format!("damaged bucket section: {what}; restore it or rerun the job from its last good checkpoint"),
    }
}

/// Where a finished section lies in its segment, and what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    pub offset: u64,
    pub info: BucketInfo,
}

/// Compresses one block of records (a key's words, then its residues, each; keys ascending).
type BlockEncoder = fn(&[u64], usize) -> std::io::Result<Vec<u8>>;

/// Streams states (keys strictly ascending) into a bucket section of a segment, one compressed
/// block at a time.
pub struct SectionWriter<'a, K: StateKey> {
    out: &'a mut SegmentWriter,
    /// Where the section starts in the segment.
    start: u64,
    crc: crc32fast::Hasher,
    /// Bytes of the section written so far.
    written: u64,
    states: u64,
    index: Vec<u8>,
    /// Records of the block being gathered, side by side (key words, then residues).
    block: Vec<u64>,
    width: usize,
    last_key: Option<K>,
    /// How a block is written: [`encode_block`]; an older format's only in tests of its reading.
    encode: BlockEncoder,
}

impl<'a, K: StateKey> SectionWriter<'a, K> {
    /// A writer of states with `width` residues each, into a section that starts where `out`
    /// stands.
    pub fn begin(out: &'a mut SegmentWriter, width: usize) -> Result<Self> {
        Self::begin_format(out, width, BUCKET_FORMAT, encode_block::<K>)
    }

    fn begin_format(out: &'a mut SegmentWriter, width: usize, format: u32, encode: BlockEncoder) -> Result<Self> {
        let start = out.position();
        let mut writer = SectionWriter {
            out,
            start,
            crc: crc32fast::Hasher::new(),
            written: 0,
            states: 0,
            index: Vec::new(),
            // A spare (`spare`): whole blocks pushed at once are encoded where they lie, and the
            // rest gathered here.
            block: spare::words(0),
            width,
            last_key: None,
            encode,
        };
        let mut header = Vec::with_capacity(HEADER_BYTES);
        header.extend_from_slice(HEADER_MAGIC);
        header.extend_from_slice(&format.to_le_bytes());
        header.extend_from_slice(&(width as u32).to_le_bytes());
        header.extend_from_slice(&(K::WORDS as u32).to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        writer.write(&header)?;
        Ok(writer)
    }

    fn stride(&self) -> usize {
        K::WORDS + self.width
    }

    pub fn push(&mut self, key: K, residues: &[u64]) -> Result<()> {
        debug_assert!(self.last_key.is_none_or(|last| last < key), "bucket keys must ascend");
        self.last_key = Some(key);
        key.push_words(&mut self.block);
        crate::key::append_words(&mut self.block, residues);
        self.states += 1;
        if self.block.len() == BLOCK_STATES * self.stride() {
            self.flush_block()?;
        }
        Ok(())
    }

    /// Pushes whole records (key words, then residues, each), keys strictly ascending and above
    /// every key pushed before: full blocks are encoded straight from `records`.
    pub fn push_records(&mut self, mut records: &[u64]) -> Result<()> {
        let stride = self.stride();
        debug_assert!(records.chunks_exact(stride).map(K::from_words).is_sorted_by(|a, b| a < b));
        if let Some(first) = records.get(..K::WORDS) {
            debug_assert!(self.last_key.is_none_or(|last| last < K::from_words(first)));
            self.last_key = Some(K::from_words(&records[records.len() - stride..]));
        }
        self.states += (records.len() / stride) as u64;
        let block_words = BLOCK_STATES * stride;
        while !records.is_empty() {
            if self.block.is_empty() && records.len() >= block_words {
                let (block, rest) = records.split_at(block_words);
                self.write_block(block)?;
                records = rest;
                continue;
            }
            let take = (block_words - self.block.len()).min(records.len());
            self.block.extend_from_slice(&records[..take]);
            records = &records[take..];
            if self.block.len() == block_words {
                self.flush_block()?;
            }
        }
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write(bytes)?;
        self.crc.update(bytes);
        self.written += bytes.len() as u64;
        Ok(())
    }

    fn flush_block(&mut self) -> Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let block = std::mem::take(&mut self.block);
        let written = self.write_block(&block);
        self.block = block;
        self.block.clear();
        written
    }

    /// Encodes and writes one block of whole records, and indexes it.
    fn write_block(&mut self, records: &[u64]) -> Result<()> {
        let states = records.len() / self.stride();
        let compressed =
            (self.encode)(records, self.width).map_err(|e| file_error(self.out.path(), "compress a block", e))?;
        self.index.extend_from_slice(&self.written.to_le_bytes());
        self.index.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
        self.index.extend_from_slice(&(states as u32).to_le_bytes());
        for word in &records[..K::WORDS] {
            self.index.extend_from_slice(&word.to_le_bytes());
        }
        self.write(&compressed)
    }

    /// Writes the index and footer; the segment is fsynced with the others of its layer.
    pub fn finish(mut self) -> Result<Section> {
        self.flush_block()?;
        let blocks = (self.index.len() / index_entry_bytes(K::WORDS)) as u32;
        let index_offset = self.written;
        let index = std::mem::take(&mut self.index);
        self.write(&index)?;
        self.write(&self.states.to_le_bytes())?;
        self.write(&blocks.to_le_bytes())?;
        self.write(&index_offset.to_le_bytes())?;
        spare::give_back(std::mem::take(&mut self.block));
        let crc32 = self.crc.clone().finalize();
        let mut tail = crc32.to_le_bytes().to_vec();
        tail.extend_from_slice(FOOTER_MAGIC);
        self.out.write(&tail)?;
        Ok(Section {
            offset: self.start,
            info: BucketInfo { states: self.states, bytes: self.written + tail.len() as u64, crc32 },
        })
    }
}

/// A finished bucket section of states with keys of type `K`, memory-mapped and checked.
pub struct SectionReader<K: StateKey> {
    /// The file and the section's offset, for messages.
    path: PathBuf,
    map: Arc<Mmap>,
    /// The section: `map[start..end]`.
    start: usize,
    end: usize,
    width: usize,
    format: u32,
    states: u64,
    /// (offset, compressed length, states) per block, from the section's start.
    blocks: Vec<(usize, usize, usize)>,
    key: PhantomData<K>,
}

/// Maps `path` for reading.
pub fn map_file(path: &Path) -> Result<Arc<Mmap>> {
    let file = File::open(path).map_err(|e| file_error(path, "open", e))?;
    // SAFETY: segment files are written and flushed before their layer is read (and
    // fsynced before a checkpoint names it), and nothing writes them again while they are
    // mapped.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| file_error(path, "memory-map", e))?;
    Ok(Arc::new(map))
}

impl<K: StateKey> SectionReader<K> {
    /// Opens and verifies the whole file `path` as one section; `width` is the residue count
    /// the job expects.
    pub fn open(path: &Path, width: usize) -> Result<Self> {
        let map = map_file(path)?;
        let bytes = map.len() as u64;
        Self::section(map, path, 0, bytes, width)
    }

    /// Verifies the section of `bytes` bytes at `offset` of the mapped file `path`.
    pub fn section(map: Arc<Mmap>, path: &Path, offset: u64, bytes: u64, width: usize) -> Result<Self> {
        let named = describe(path, offset);
        let path = named.as_path();
        let end = offset.checked_add(bytes).filter(|&end| end <= map.len() as u64).ok_or_else(|| {
            damaged(path, format!("truncated: the section ends at byte {}, the file at {}", offset + bytes, map.len()))
        })?;
        let (start, end) = (offset as usize, end as usize);
        let bytes = &map[start..end];
        if bytes.len() < HEADER_BYTES + FOOTER_BYTES {
            return Err(damaged(path, format!("only {} bytes, truncated", bytes.len())));
        }
        if &bytes[..8] != HEADER_MAGIC {
            return Err(damaged(path, "not a leaper bucket (bad header)"));
        }
        let format = u32_at(bytes, 8);
        if !(OLDEST_READ_FORMAT..=BUCKET_FORMAT).contains(&format) {
            return Err(Error::File {
                path: path.to_path_buf(),
                message: format!(
                    "bucket format {format}, this leaper reads formats {OLDEST_READ_FORMAT} to {BUCKET_FORMAT}; use the \
                     leaper release that wrote it"
                ),
            });
        }
        let footer = bytes.len() - FOOTER_BYTES;
        if &bytes[footer + 24..] != FOOTER_MAGIC {
            return Err(damaged(path, "missing end marker, truncated"));
        }
        let crc = u32_at(bytes, footer + 20);
        if crc32fast::hash(&bytes[..footer + 20]) != crc {
            return Err(damaged(path, "checksum mismatch"));
        }
        let (file_width, key_words) = (u32_at(bytes, 12) as usize, u32_at(bytes, 16) as usize);
        if key_words != K::WORDS {
            return Err(Error::File {
                path: path.to_path_buf(),
                message: format!(
                    "holds states with {}-bit keys, this job's keys have {} bits: the file belongs to another job",
                    64 * key_words,
                    K::BITS
                ),
            });
        }
        if file_width != width {
            return Err(damaged(path, format!("{file_width} residues per state, the job uses {width}")));
        }
        let entry_bytes = index_entry_bytes(K::WORDS);
        let states = u64_at(bytes, footer);
        let block_count = u32_at(bytes, footer + 8) as usize;
        let index_offset = u64_at(bytes, footer + 12) as usize;
        if index_offset.checked_add(block_count.saturating_mul(entry_bytes)) != Some(footer) {
            return Err(damaged(path, "block index does not fit the file"));
        }
        let mut blocks = Vec::with_capacity(block_count);
        let mut total = 0u64;
        for i in 0..block_count {
            let entry = index_offset + i * entry_bytes;
            let (offset, length, count) =
                (u64_at(bytes, entry) as usize, u32_at(bytes, entry + 8) as usize, u32_at(bytes, entry + 12) as usize);
            if offset < HEADER_BYTES || offset + length > index_offset {
                return Err(damaged(path, format!("block {i} lies outside the data area")));
            }
            total += count as u64;
            blocks.push((offset, length, count));
        }
        if total != states {
            return Err(damaged(path, format!("blocks hold {total} states, header says {states}")));
        }
        Ok(SectionReader { path: named, map, start, end, width, format, states, blocks, key: PhantomData })
    }

    fn bytes(&self) -> &[u8] {
        &self.map[self.start..self.end]
    }

    /// What the section holds, as its footer records it (verified when opened).
    pub fn info(&self) -> BucketInfo {
        let bytes = self.bytes();
        let footer = bytes.len() - FOOTER_BYTES;
        BucketInfo { states: self.states, bytes: bytes.len() as u64, crc32: u32_at(bytes, footer + 20) }
    }

    /// Decodes the blocks in order and passes each to `visit`.
    pub fn visit(&self, visit: &mut StateVisitor) -> Result<()> {
        let mut batch = spare::batch(RecordLayout::of::<K>(self.width), BLOCK_STATES);
        for i in 0..self.blocks.len() {
            self.read_block(i, &mut batch)?;
            visit(&batch.keys, &batch.residues)?;
        }
        spare::give_back_batch(batch);
        Ok(())
    }

    /// Decodes block `i` into `batch` (cleared first).
    fn read_block(&self, i: usize, batch: &mut StateBatch) -> Result<()> {
        let (offset, length, count) = self.blocks[i];
        let compressed = &self.bytes()[offset..offset + length];
        match self.format {
            2 => decode_block_v2::<K>(compressed, count, self.width, batch),
            format => decode_block::<K>(compressed, count, self.width, format, batch),
        }
        .map_err(|what| damaged(&self.path, format!("block {i}: {what}")))
    }
}

/// The coding of one lane of counts in a block: bit 0, LEB128 ([`LANE_LEB128`]) or u64 LE
/// ([`LANE_RAW`]); bit 1 ([`LANE_AS_IS`], format 4), the lane as it is rather than XOR the first;
/// bits 2-7 (format 5), the lane's words stored shifted right by that many bits ([`SHIFT_AT`]).
const LANE_RAW: u8 = 0;
const LANE_LEB128: u8 = 1;
const LANE_AS_IS: u8 = 2;
/// Where a coding byte's shift starts: the shift is `coding >> SHIFT_AT`, 0 to 63.
const SHIFT_AT: u32 = 2;

/// Bytes of `value` in LEB128.
#[inline(always)]
fn varint_bytes(value: u64) -> usize {
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

/// How lane `j` of a block is stored: as it is or XOR the first, and shifted by the trailing
/// zero bits all its words share.
#[derive(Clone, Copy)]
struct LanePlan {
    as_is: bool,
    shift: u32,
    /// Every word 0 (a byte each in LEB128: the fewest a lane can take).
    zeros: bool,
}

impl LanePlan {
    /// How lane `j` of `records` (each `stride` words, the lanes from word `first`) is stored:
    /// XOR the first, or as it is where `as_is_too` (format 4 on, lanes after the first) and its
    /// words are all 0 or take fewer LEB128 bytes (and fewer than u64 would); shifted where
    /// `shifts` (format 5) allows. One pass over the block for the bits each way's words have,
    /// and a second for their bytes only where both ways have words other than 0: a lane of
    /// zeros one way (the high word of a count below 2^64, a spare residue equal to the first
    /// lane) needs no more.
    fn choose(records: &[u64], stride: usize, first: usize, j: usize, as_is_too: bool, shifts: bool) -> LanePlan {
        let lanes = || records.chunks_exact(stride).map(move |record| &record[first..]);
        let (mut any_xored, mut any_as_is) = (0, 0);
        for lanes in lanes() {
            any_xored |= stored_lane(lanes, j, false);
            any_as_is |= lanes[j];
        }
        // A lane of zeros shares every bit: nothing to shift.
        let plan = |as_is: bool, any: u64| LanePlan {
            as_is,
            shift: if shifts { any.trailing_zeros() % 64 } else { 0 },
            zeros: any == 0,
        };
        let (xored, as_is) = (plan(false, any_xored), plan(true, any_as_is));
        if !as_is_too || xored.zeros {
            return xored;
        }
        if as_is.zeros {
            return as_is;
        }
        let (mut xored_bytes, mut as_is_bytes) = (0, 0);
        for lanes in lanes() {
            xored_bytes += varint_bytes(stored_lane(lanes, j, false) >> xored.shift);
            as_is_bytes += varint_bytes(lanes[j] >> as_is.shift);
        }
        let states = records.len() / stride;
        if as_is_bytes < xored_bytes && as_is_bytes < 8 * states {
            as_is
        } else {
            xored
        }
    }

    /// Appends lane `j` of `records` to `raw` as planned, in LEB128 unless that comes to 8
    /// bytes a word or more (a lane past its modulus), then as u64 LE words unshifted (a shift
    /// saves them nothing); returns its coding.
    fn write(self, records: &[u64], stride: usize, first: usize, j: usize, raw: &mut Vec<u8>) -> u8 {
        let words = || records.chunks_exact(stride).map(move |record| stored_lane(&record[first..], j, self.as_is));
        let (start, states) = (raw.len(), records.len() / stride);
        if self.zeros {
            raw.resize(start + states, 0);
            return self.coding(true);
        }
        let limit = start + 8 * states;
        for word in words() {
            (word >> self.shift).write_varint(raw);
            if raw.len() >= limit {
                raw.truncate(start);
                for word in words() {
                    raw.extend_from_slice(&word.to_le_bytes());
                }
                return LanePlan { shift: 0, ..self }.coding(false);
            }
        }
        self.coding(true)
    }

    fn coding(self, leb128: bool) -> u8 {
        (if leb128 { LANE_LEB128 } else { LANE_RAW })
            | if self.as_is { LANE_AS_IS } else { 0 }
            | (self.shift << SHIFT_AT) as u8
    }
}

/// One compressed block of `records` (each a key's words, then `width` residues; keys
/// ascending): its state count, each lane's coding, the keys (the first absolute, then deltas,
/// LEB128), then the counts lane by lane (every lane after the first XOR the first, or as it is
/// where that is shorter; each shifted right by the trailing zero bits its words share), all
/// through zstd. Bucket files and spill runs both use it.
///
/// Example, two states with keys 5 and 9 and two lanes of residues, (3, 3) and (300, 300):
/// `02 00 00 00` (two states), `01 01` (both lanes in LEB128), `05 04` (the keys), `03 AC 02`
/// (the first lane: 3 and 300), `00 00` (the second, XOR the first). Had the lanes been an exact
/// 128-bit count, (3, 0) and (300, 0), the second lane's coding would be `03` (LEB128, as it
/// is), and its bytes `00 00` again. Had the counts been 4 and 300 (both multiples of 4, as
/// the counts of closed tours mostly are of 2), the first lane's coding would be `09` (LEB128,
/// shifted by 2) and its bytes `01 4B` (1 and 75).
pub(super) fn encode_block<K: StateKey>(records: &[u64], width: usize) -> std::io::Result<Vec<u8>> {
    encode_block_as::<K>(records, width, BUCKET_FORMAT)
}

/// [`encode_block`] as bucket format `format` (3 to 5) lays it out: lanes as they are from
/// format 4, shifted from format 5 (the older formats for the tests of their reading).
fn encode_block_as<K: StateKey>(records: &[u64], width: usize, format: u32) -> std::io::Result<Vec<u8>> {
    spare::with_scratch(|scratch| {
        let raw = &mut scratch.raw;
        raw.clear();
        lay_out_block::<K>(records, width, format, raw);
        compress(raw, &mut scratch.compressed)
    })
}

/// Lays out the block [`encode_block_as`] compresses in `raw` (empty).
fn lay_out_block<K: StateKey>(records: &[u64], width: usize, format: u32, raw: &mut Vec<u8>) {
    let stride = K::WORDS + width;
    let states = records.len() / stride;
    raw.reserve(4 + width + states * (K::WORDS * 10 + 9 * width));
    raw.extend_from_slice(&(states as u32).to_le_bytes());
    // The lanes' codings, filled in once each lane is written.
    raw.resize(4 + width, LANE_LEB128);
    let mut previous = K::from_u64(0);
    for record in records.chunks_exact(stride) {
        let key = K::from_words(record);
        key.wrapping_sub(previous).write_varint(raw);
        previous = key;
    }
    let shifts = format >= 5;
    for j in 0..width {
        let plan = LanePlan::choose(records, stride, K::WORDS, j, j > 0 && format >= 4, shifts);
        raw[4 + j] = plan.write(records, stride, K::WORDS, j, raw);
    }
}

thread_local! {
    /// A compression and a decompression context per thread: made anew for every block, their
    /// tables would be allocated and zeroed every time (docs/PERFORMANCE-LOG.md, "zstd contexts per
    /// thread").
    static CONTEXTS: std::cell::RefCell<Option<(zstd::bulk::Compressor<'static>, zstd::bulk::Decompressor<'static>)>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `work` on this thread's zstd contexts (made the first time).
fn with_contexts<T>(
    work: impl FnOnce(&mut zstd::bulk::Compressor<'static>, &mut zstd::bulk::Decompressor<'static>) -> std::io::Result<T>,
) -> std::io::Result<T> {
    CONTEXTS.with(|contexts| {
        let mut contexts = contexts.borrow_mut();
        if contexts.is_none() {
            *contexts = Some((zstd::bulk::Compressor::new(ZSTD_LEVEL)?, zstd::bulk::Decompressor::new()?));
        }
        let (compressor, decompressor) = contexts.as_mut().expect("made above");
        work(compressor, decompressor)
    })
}

/// `raw` through zstd at [`ZSTD_LEVEL`], by way of `buffer`.
fn compress(raw: &[u8], buffer: &mut Vec<u8>) -> std::io::Result<Vec<u8>> {
    buffer.clear();
    buffer.reserve(zstd::zstd_safe::compress_bound(raw.len()));
    with_contexts(|compressor, _| compressor.compress_to_buffer(raw, buffer))?;
    Ok(buffer.clone())
}

/// Decodes a block [`encode_block`] made of `count` states with `width` residues each into
/// `batch` (cleared first), as bucket format `format` (3 or 4) lays it out; the error says what
/// is wrong with it.
pub(super) fn decode_block<K: StateKey>(
    compressed: &[u8],
    count: usize,
    width: usize,
    format: u32,
    batch: &mut StateBatch,
) -> std::result::Result<(), String> {
    // The most a block can hold: every key delta and count a varint of full length.
    let capacity = 4 + width + count * ((K::BITS as usize).div_ceil(7) + 10 * width);
    spare::with_scratch(|scratch| {
        let raw = decompress_block(compressed, capacity, count, 4 + width, &mut scratch.raw)?;
        read_block_into::<K>(raw, count, width, format, batch)
    })
}

/// Reads the block `raw` (decompressed, its state count checked) of `count` states with
/// `width` residues each into `batch`, as [`decode_block`] says.
fn read_block_into<K: StateKey>(
    raw: &[u8],
    count: usize,
    width: usize,
    format: u32,
    batch: &mut StateBatch,
) -> std::result::Result<(), String> {
    batch.clear();
    let codings = &raw[4..4 + width];
    let mut at = decode_keys::<K>(raw, 4 + width, count, batch)?;
    batch.residues.resize(count * width, 0);
    let known = match format {
        5.. => u8::MAX,
        4 => LANE_LEB128 | LANE_AS_IS,
        _ => LANE_LEB128,
    };
    for (j, &coding) in codings.iter().enumerate() {
        if coding & !known != 0 {
            return Err(format!("unknown count coding {coding}"));
        }
        let shift = u32::from(coding) >> SHIFT_AT;
        for i in 0..count {
            let word = if coding & LANE_LEB128 == LANE_RAW {
                let bytes = raw.get(at..at + 8).ok_or("count data truncated")?;
                at += 8;
                u64::from_le_bytes(bytes.try_into().unwrap())
            } else {
                let (value, used) = u64::read_varint(&raw[at..]).ok_or("count data truncated")?;
                at += used;
                value
            };
            if word.leading_zeros() < shift {
                return Err(format!("a count of lane {j} overflows its shift of {shift} bits"));
            }
            batch.residues[i * width + j] = word << shift;
        }
    }
    if at != raw.len() {
        return Err("count data has the wrong length".into());
    }
    // Every lane stored XOR the first gets the first back.
    for (j, &coding) in codings.iter().enumerate().skip(1) {
        if coding & LANE_AS_IS == 0 {
            for lanes in batch.residues.chunks_exact_mut(width) {
                lanes[j] ^= lanes[0];
            }
        }
    }
    Ok(())
}

/// A block decompressed into `buffer` (at most `capacity` bytes), its first `header` bytes
/// present and its state count `count`, as the index says.
fn decompress_block<'a>(
    compressed: &[u8],
    capacity: usize,
    count: usize,
    header: usize,
    buffer: &'a mut Vec<u8>,
) -> std::result::Result<&'a [u8], String> {
    buffer.clear();
    buffer.reserve(capacity);
    with_contexts(|_, decompressor| decompressor.decompress_to_buffer(compressed, buffer))
        .map_err(|e| format!("does not decompress: {e}"))?;
    // The buffer may be larger than this block's bound (kept from a wider block): hold the bound.
    if buffer.len() > capacity {
        return Err(format!("does not decompress: {} bytes, more than its {capacity} can be", buffer.len()));
    }
    if buffer.len() < header || u32_at(buffer, 0) as usize != count {
        return Err("state count disagrees with the index".into());
    }
    Ok(buffer)
}

/// Reads `count` keys (the first absolute, then deltas, LEB128) from `raw` at `at` into
/// `batch`; returns where they end.
fn decode_keys<K: StateKey>(
    raw: &[u8],
    mut at: usize,
    count: usize,
    batch: &mut StateBatch,
) -> std::result::Result<usize, String> {
    let mut key = K::from_u64(0);
    batch.keys.reserve(count * K::WORDS);
    for _ in 0..count {
        let rest = raw.get(at..).ok_or("key data truncated")?;
        let (delta, used) = K::read_varint(rest).ok_or("key data truncated")?;
        at += used;
        key = key.checked_add(delta).ok_or("key overflow")?;
        key.push_words(&mut batch.keys);
    }
    Ok(at)
}

/// Decodes a block of format 2: the state count, the keys as in format 3, then the residues
/// state by state, u64 LE.
fn decode_block_v2<K: StateKey>(
    compressed: &[u8],
    count: usize,
    width: usize,
    batch: &mut StateBatch,
) -> std::result::Result<(), String> {
    let capacity = 4 + count * ((K::BITS as usize).div_ceil(7) + 8 * width);
    spare::with_scratch(|scratch| {
        let raw = decompress_block(compressed, capacity, count, 4, &mut scratch.raw)?;
        batch.clear();
        let at = decode_keys::<K>(raw, 4, count, batch)?;
        if raw.len() != at + count * width * 8 {
            return Err("residue data has the wrong length".into());
        }
        batch.residues.extend(raw[at..].chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())));
        Ok(())
    })
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `batch` (keys of type `K`, ascending) to `path` as a file of one section, fsynced.
    fn write_section_file<K: StateKey>(path: &Path, batch: &StateBatch) -> Result<BucketInfo> {
        let mut segment = SegmentWriter::create(path)?;
        let mut writer = SectionWriter::<K>::begin(&mut segment, batch.layout.residues)?;
        for i in 0..batch.len() {
            writer.push(batch.key::<K>(i), batch.residues_of(i))?;
        }
        let section = writer.finish()?;
        segment.finish(true)?;
        Ok(section.info)
    }

    /// `batch`'s records side by side, key words then residues.
    fn records_of<K: StateKey>(batch: &StateBatch) -> Vec<u64> {
        let mut records = Vec::new();
        for i in 0..batch.len() {
            batch.key::<K>(i).push_words(&mut records);
            records.extend_from_slice(batch.residues_of(i));
        }
        records
    }

    /// The block layout of format 3 (every lane but the first XOR the first), to test its reading.
    fn encode_block_v3<K: StateKey>(records: &[u64], width: usize) -> std::io::Result<Vec<u8>> {
        encode_block_as::<K>(records, width, 3)
    }

    /// The block layout of format 4 (lanes as they are where shorter, never shifted).
    fn encode_block_v4<K: StateKey>(records: &[u64], width: usize) -> std::io::Result<Vec<u8>> {
        encode_block_as::<K>(records, width, 4)
    }

    /// The block encoder of bucket format `format`, 2 to [`BUCKET_FORMAT`].
    fn encoder_of(format: u32) -> BlockEncoder {
        match format {
            2 => encode_block_v2::<u64>,
            3 => encode_block_v3::<u64>,
            4 => encode_block_v4::<u64>,
            _ => encode_block::<u64>,
        }
    }

    /// The block layout of format 2 (residues state by state, u64 LE), to test its reading.
    fn encode_block_v2<K: StateKey>(records: &[u64], width: usize) -> std::io::Result<Vec<u8>> {
        let stride = K::WORDS + width;
        let mut raw = ((records.len() / stride) as u32).to_le_bytes().to_vec();
        let mut previous = K::from_u64(0);
        for record in records.chunks_exact(stride) {
            let key = K::from_words(record);
            key.wrapping_sub(previous).write_varint(&mut raw);
            previous = key;
        }
        for record in records.chunks_exact(stride) {
            for residue in &record[K::WORDS..] {
                raw.extend_from_slice(&residue.to_le_bytes());
            }
        }
        zstd::bulk::compress(&raw, ZSTD_LEVEL)
    }

    /// States whose counts are small numbers, equal in every lane (below every modulus), but
    /// for the third lane: 64 random bits (a count past its modulus).
    fn sample(states: usize, width: usize) -> StateBatch {
        let mut batch = StateBatch::with_capacity(RecordLayout::of::<u64>(width), states);
        let mut key = 5u64;
        for i in 0..states as u64 {
            key += 1 + (i * 7919) % 1000;
            let residues: Vec<u64> = (0..width)
                .map(|j| if j == 2 { i.wrapping_mul(0x9E37_79B9_7F4A_7C15) } else { (i * 31) % 300 })
                .collect();
            batch.push(key, &residues);
        }
        batch
    }

    #[test]
    fn a_block_is_laid_out_as_its_worked_example() {
        let mut block = StateBatch::with_capacity(RecordLayout::of::<u64>(2), 2);
        block.push(5u64, &[3, 3]);
        block.push(9u64, &[300, 300]);
        let compressed = encode_block::<u64>(&records_of::<u64>(&block), 2).unwrap();
        let raw = zstd::bulk::decompress(&compressed, 1024).unwrap();
        assert_eq!(raw, [2, 0, 0, 0, 1, 1, 5, 4, 3, 0xAC, 2, 0, 0]);
        let mut back = StateBatch::with_capacity(RecordLayout::of::<u64>(2), 2);
        decode_block::<u64>(&compressed, 2, 2, BUCKET_FORMAT, &mut back).unwrap();
        assert_eq!(back, block);
        // The same counts as exact 128-bit lanes, low word first: the high words as they are.
        let mut wide = StateBatch::with_capacity(RecordLayout::of::<u64>(2), 2);
        wide.push(5u64, &[3, 0]);
        wide.push(9u64, &[300, 0]);
        let compressed = encode_block::<u64>(&records_of::<u64>(&wide), 2).unwrap();
        let raw = zstd::bulk::decompress(&compressed, 1024).unwrap();
        assert_eq!(raw, [2, 0, 0, 0, 1, 3, 5, 4, 3, 0xAC, 2, 0, 0]);
        decode_block::<u64>(&compressed, 2, 2, BUCKET_FORMAT, &mut back).unwrap();
        assert_eq!(back, wide);
        // Format 3 knew no lane as it is: such a block there is damage, not counts.
        let error = decode_block::<u64>(&compressed, 2, 2, 3, &mut back).unwrap_err();
        assert!(error.contains("unknown count coding 3"), "{error}");
        // Counts that are all multiples of 4: the first lane shifted by 2 (format 5).
        let mut even = StateBatch::with_capacity(RecordLayout::of::<u64>(2), 2);
        even.push(5u64, &[4, 4]);
        even.push(9u64, &[300, 300]);
        let compressed = encode_block::<u64>(&records_of::<u64>(&even), 2).unwrap();
        let raw = zstd::bulk::decompress(&compressed, 1024).unwrap();
        assert_eq!(raw, [2, 0, 0, 0, 9, 1, 5, 4, 1, 75, 0, 0]);
        decode_block::<u64>(&compressed, 2, 2, BUCKET_FORMAT, &mut back).unwrap();
        assert_eq!(back, even);
        // Format 4 knew no shift.
        let error = decode_block::<u64>(&compressed, 2, 2, 4, &mut back).unwrap_err();
        assert!(error.contains("unknown count coding 9"), "{error}");
    }

    #[test]
    fn each_lane_takes_the_shortest_of_its_ways_by_their_definition() {
        // Lanes of every kind a layer holds: the low word of counts (even), a high word of
        // zeros, a spare residue equal to the first lane, one past its modulus (random), one
        // small as it is but not XOR the first, and one all zeros but for a state.
        let states = 5000u64;
        let mut records = Vec::new();
        for i in 0..states {
            let count = 4 * ((i * 7919) % 1000 + 1);
            let lanes =
                [count, 0, count, i.wrapping_mul(0x9E37_79B9_7F4A_7C15), i % 5, if i == 77 { 1 << 40 } else { 0 }];
            records.push(10 * i);
            records.extend_from_slice(&lanes);
        }
        let width = 6;
        let mut raw = Vec::new();
        lay_out_block::<u64>(&records, width, BUCKET_FORMAT, &mut raw);
        for j in 0..width {
            // Each way to store the lane, its shift and its LEB128 bytes computed as they are
            // defined, word by word: as it is only after the first lane, where its words are
            // all 0 and those XOR the first are not, or where it takes fewer bytes.
            let way = |as_is: bool| {
                let words: Vec<u64> = records.chunks_exact(1 + width).map(|r| stored_lane(&r[1..], j, as_is)).collect();
                let any = words.iter().fold(0, |all, word| all | word);
                let shift = any.trailing_zeros() % 64;
                let bytes: usize = words.iter().map(|word| varint_bytes(word >> shift)).sum();
                (bytes, LanePlan { as_is, shift, zeros: any == 0 })
            };
            let (xored, as_is) = (way(false), way(true));
            let (bytes, plan) = match j {
                0 => xored,
                _ if !xored.1.zeros && (as_is.1.zeros || as_is.0 < xored.0.min(8 * states as usize)) => as_is,
                _ => xored,
            };
            let expected = if bytes < 8 * states as usize {
                plan.coding(true)
            } else {
                LanePlan { shift: 0, ..plan }.coding(false)
            };
            assert_eq!(raw[4 + j], expected, "lane {j}");
        }
        let compressed = encode_block::<u64>(&records, width).unwrap();
        let mut back = StateBatch::with_capacity(RecordLayout::of::<u64>(width), states as usize);
        decode_block::<u64>(&compressed, states as usize, width, BUCKET_FORMAT, &mut back).unwrap();
        assert_eq!(records_of::<u64>(&back), records);
    }

    #[test]
    fn counts_sharing_trailing_zero_bits_store_shifted_and_read_back_exactly() {
        let dir = leaper_test_kit::scratch_dir("bucket-shift");
        // Even counts (as a layer of closed tours holds), an exact 128-bit lane whose high word
        // is past 2^64 in some states and 0 in others, and a lane of words with their top bit set
        // (a shift must not lose it).
        let mut batch = StateBatch::with_capacity(RecordLayout::of::<u64>(3), 3 * BLOCK_STATES / 2);
        for i in 0..(3 * BLOCK_STATES / 2) as u64 {
            let count = 2 * ((i * 7919) % 100_000 + 1);
            let high = if i % 3 == 0 { (i % 7) << 1 } else { 0 };
            batch.push(3 * i, &[count, high, 1 << 63 | i << 4]);
        }
        let mut sizes = Vec::new();
        for format in [4, 5] {
            let path = dir.join(format!("f{format}.lps"));
            let mut segment = SegmentWriter::create(&path).unwrap();
            let mut writer = SectionWriter::<u64>::begin_format(&mut segment, 3, format, encoder_of(format)).unwrap();
            writer.push_records(&records_of::<u64>(&batch)).unwrap();
            sizes.push(writer.finish().unwrap().info.bytes);
            segment.finish(true).unwrap();
            assert_eq!(read_all(&path, 3).unwrap(), batch, "format {format}");
        }
        assert!(sizes[1] < sizes[0], "{sizes:?}");
        // A shifted word whose bits would pass 64 is damage, named as such.
        let mut raw = vec![1, 0, 0, 0, LANE_LEB128 | 3 << SHIFT_AT, 7];
        u64::MAX.write_varint(&mut raw);
        let compressed = zstd::bulk::compress(&raw, ZSTD_LEVEL).unwrap();
        let mut back = StateBatch::with_capacity(RecordLayout::of::<u64>(1), 1);
        let error = decode_block::<u64>(&compressed, 1, 1, BUCKET_FORMAT, &mut back).unwrap_err();
        assert!(error.contains("overflows its shift of 3 bits"), "{error}");
        // A block longer than its state count allows is refused, whatever this thread's buffer
        // held before (here a whole block of 64 Ki states, decoded above).
        let mut long = vec![1, 0, 0, 0, LANE_LEB128, 7, 1];
        long.resize(100, 0);
        let compressed = zstd::bulk::compress(&long, ZSTD_LEVEL).unwrap();
        let error = decode_block::<u64>(&compressed, 1, 1, BUCKET_FORMAT, &mut back).unwrap_err();
        assert!(error.contains("does not decompress"), "{error}");
    }

    #[test]
    fn the_high_words_of_exact_128_bit_counts_past_2_64_are_stored_as_they_are() {
        let dir = leaper_test_kit::scratch_dir("bucket-wide");
        // Exact 128-bit counts and a spare residue modulo p = 2^64 - 59. Below 2^64 the high word
        // is 0 and XOR the low word it repeats the low words, which zstd stores next to nothing:
        // both formats take about the same. Past 2^64 (9 x 10's last rows) the low word is 64
        // random bits; the high word is small as it is, and as random as the low word XOR it.
        let p = u64::MAX - 58;
        let sizes = |big: bool| -> Vec<u64> {
            let mut batch = StateBatch::with_capacity(RecordLayout::of::<u64>(3), BLOCK_STATES + 100);
            for i in 0..(BLOCK_STATES + 100) as u64 {
                let small = (i * 7919) % 100_000 + 1;
                let count = if big {
                    (small as u128) << 60 | i.wrapping_mul(0x9E37_79B9_7F4A_7C15) as u128
                } else {
                    small as u128
                };
                batch.push(3 * i, &[count as u64, (count >> 64) as u64, (count % p as u128) as u64]);
            }
            [3, 4]
                .into_iter()
                .map(|format| {
                    let path = dir.join(format!("f{format}-{big}.lps"));
                    let mut segment = SegmentWriter::create(&path).unwrap();
                    let mut writer =
                        SectionWriter::<u64>::begin_format(&mut segment, 3, format, encoder_of(format)).unwrap();
                    writer.push_records(&records_of::<u64>(&batch)).unwrap();
                    let bytes = writer.finish().unwrap().info.bytes;
                    segment.finish(true).unwrap();
                    assert_eq!(read_all(&path, 3).unwrap(), batch, "format {format}");
                    bytes
                })
                .collect()
        };
        let below = sizes(false);
        assert!(below[1] * 100 <= below[0] * 101, "{below:?}");
        let past = sizes(true);
        assert!(past[1] * 10 < past[0] * 7, "{past:?}");
    }

    #[test]
    fn small_counts_take_leb128_and_files_of_formats_2_to_4_are_still_read() {
        let dir = leaper_test_kit::scratch_dir("bucket-v2");
        let batch = sample(BLOCK_STATES + 100, 3);
        let mut sizes = Vec::new();
        for format in [2, 3, 4, 5] {
            let path = dir.join(format!("f{format}.lps"));
            let mut segment = SegmentWriter::create(&path).unwrap();
            let mut writer = SectionWriter::<u64>::begin_format(&mut segment, 3, format, encoder_of(format)).unwrap();
            for i in 0..batch.len() {
                writer.push(batch.key::<u64>(i), batch.residues_of(i)).unwrap();
            }
            sizes.push(writer.finish().unwrap().info.bytes);
            segment.finish(true).unwrap();
            assert_eq!(read_all(&path, 3).unwrap(), batch, "format {format}");
        }
        // Small counts in LEB128, the second lane as 0s, the random one raw: smaller than u64;
        // residues gain nothing from format 4 (every lane XOR the first is shortest), nor these
        // counts (odd ones among them) from format 5's shift.
        assert!(sizes[1] < sizes[0] && sizes[2] == sizes[1] && sizes[3] == sizes[2], "{sizes:?}");
        // A lane that cannot be told apart from LEB128 or raw: one value of each length.
        let mut edges = StateBatch::with_capacity(RecordLayout::of::<u64>(2), 130);
        for i in 0..130u64 {
            let value = if i < 65 { (1u64 << i.min(63)).wrapping_sub(1) } else { u64::MAX - i };
            edges.push(i * 3, &[value, i]);
        }
        let path = dir.join("edges.lps");
        write_section_file::<u64>(&path, &edges).unwrap();
        assert_eq!(read_all(&path, 2).unwrap(), edges);
    }

    fn read_all(path: &Path, width: usize) -> Result<StateBatch> {
        read_keys::<u64>(path, width)
    }

    fn read_keys<K: StateKey>(path: &Path, width: usize) -> Result<StateBatch> {
        let file = SectionReader::<K>::open(path, width)?;
        let mut all = StateBatch::with_capacity(RecordLayout::of::<K>(width), file.info().states as usize);
        file.visit(&mut |keys, residues| {
            all.keys.extend_from_slice(keys);
            all.residues.extend_from_slice(residues);
            Ok(())
        })?;
        Ok(all)
    }

    #[test]
    fn round_trips_across_blocks() {
        let dir = leaper_test_kit::scratch_dir("bucket");
        for (states, width) in [(0, 1), (1, 2), (BLOCK_STATES * 2 + 17, 2)] {
            let path = dir.join(format!("b{states}.lps"));
            let batch = sample(states, width);
            write_section_file::<u64>(&path, &batch).unwrap();
            assert_eq!(read_all(&path, width).unwrap(), batch);
        }
        // 128-bit keys whose deltas need more than 64 bits.
        let path = dir.join("wide.lps");
        let mut wide = StateBatch::with_capacity(RecordLayout::of::<u128>(1), 3 * BLOCK_STATES);
        for i in 0..3 * BLOCK_STATES as u128 {
            wide.push((i * i) << 70 | i, &[i as u64]);
        }
        write_section_file::<u128>(&path, &wide).unwrap();
        assert_eq!(read_keys::<u128>(&path, 1).unwrap(), wide);
        let error = read_all(&path, 1).unwrap_err().to_string();
        assert!(error.contains("wide.lps") && error.contains("128-bit keys"), "{error}");
    }

    #[test]
    fn sections_of_a_segment_read_on_their_own_and_whole_records_write_as_pushed_ones() {
        let dir = leaper_test_kit::scratch_dir("bucket-sections");
        let path = dir.join("s000.lps");
        let mut segment = SegmentWriter::create(&path).unwrap();
        let batches = [sample(10, 2), sample(BLOCK_STATES * 2 + 5, 2), sample(0, 2), sample(BLOCK_STATES - 1, 2)];
        let mut sections = Vec::new();
        for (i, batch) in batches.iter().enumerate() {
            let mut writer = SectionWriter::<u64>::begin(&mut segment, 2).unwrap();
            let records = records_of::<u64>(batch);
            if i % 2 == 1 {
                // Whole records, in two calls that split a block.
                let cut = records.len() / 3 / 3 * 3;
                writer.push_records(&records[..cut]).unwrap();
                writer.push_records(&records[cut..]).unwrap();
            } else {
                for record in records.chunks_exact(3) {
                    writer.push(record[0], &record[1..]).unwrap();
                }
            }
            sections.push(writer.finish().unwrap());
        }
        segment.finish(true).unwrap();
        let map = map_file(&path).unwrap();
        for (section, batch) in sections.iter().zip(&batches) {
            assert_eq!(section.info.states, batch.len() as u64);
            let file =
                SectionReader::<u64>::section(map.clone(), &path, section.offset, section.info.bytes, 2).unwrap();
            assert_eq!(file.info(), section.info);
            let mut all = StateBatch::with_capacity(RecordLayout::of::<u64>(2), batch.len());
            file.visit(&mut |keys, residues| {
                all.keys.extend_from_slice(keys);
                all.residues.extend_from_slice(residues);
                Ok(())
            })
            .unwrap();
            assert_eq!(&all, batch);
        }
        // A section past the file's end is named with its offset.
        let last = sections[3];
        let error =
            SectionReader::<u64>::section(map, &path, last.offset, last.info.bytes + 1, 2).err().unwrap().to_string();
        assert!(
            error.contains("s000.lps")
                && error.contains(&format!("byte {}", last.offset))
                && error.contains("truncated"),
            "{error}"
        );
    }

    #[test]
    fn damage_is_reported_by_name() {
        let dir = leaper_test_kit::scratch_dir("bucket-damage");
        let path = dir.join("b.lps");
        let batch = sample(1000, 2);
        write_section_file::<u64>(&path, &batch).unwrap();
        let good = std::fs::read(&path).unwrap();
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("truncated", good[..good.len() / 2].to_vec()),
            ("flipped bit", {
                let mut bad = good.clone();
                bad[HEADER_BYTES + 10] ^= 1;
                bad
            }),
            ("empty", Vec::new()),
            ("other version", {
                let mut bad = good.clone();
                bad[8] = 9;
                bad
            }),
        ];
        for (what, bytes) in cases {
            std::fs::write(&path, bytes).unwrap();
            let error = read_all(&path, 2).expect_err(what).to_string();
            assert!(error.contains("b.lps"), "{what}: {error}");
        }
        std::fs::write(&path, &good).unwrap();
        assert!(read_all(&path, 3).is_err(), "wrong residue width");
    }
}
