//! Where the states of a layer live between two transfer-matrix steps.
//!
//! A layer is split into buckets by a hash of the key ([`bucket_of`]), or of the key's
//! neighbourhood where the problem names one ([`crate::kernel::grouped`]), so that each
//! bucket can be aggregated on its own: all copies of a key land in the same bucket. A step reads
//! every bucket of the current layer, expands its states and [`emits`](StateStore::emit) the
//! successors to the buckets of the next layer; [`finish_step`](StateStore::finish_step) merges
//! equal keys and makes the next layer current.
//!
//! [`MemoryStore`] keeps everything in RAM; [`DiskStore`] keeps layers in segment files and
//! memory within a budget. A cluster worker's shuffle (`ShuffleStore`, in the worker crate) is a
//! store too, so the step engine is the same everywhere.

mod aggregate;
pub(crate) mod disk;
mod memory;

pub use aggregate::AggregationTable;
pub use disk::{
    check_disk_memory, disk_store, map_file, DiskStore, Section, SectionReader, SectionWriter, SegmentWriter,
    BUCKET_FORMAT,
};
pub use memory::{memory_store, MemoryStore};

use crate::error::{Error, Result};
use crate::key::{append_words, fold_words, RecordLayout, StateKey};
use crate::Moduli;

/// Keys (as words, `layout.key_words` per state) with their residue vectors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateBatch {
    pub keys: Vec<u64>,
    pub residues: Vec<u64>,
    pub layout: RecordLayout,
}

impl StateBatch {
    pub fn with_capacity(layout: RecordLayout, states: usize) -> Self {
        StateBatch {
            keys: Vec::with_capacity(states * layout.key_words),
            residues: Vec::with_capacity(states * layout.residues),
            layout,
        }
    }

    #[inline]
    pub fn push<K: StateKey>(&mut self, key: K, residues: &[u64]) {
        debug_assert_eq!(K::WORDS, self.layout.key_words);
        key.push_words(&mut self.keys);
        append_words(&mut self.residues, residues);
    }

    pub fn len(&self) -> usize {
        self.keys.len() / self.layout.key_words
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn clear(&mut self) {
        self.keys.clear();
        self.residues.clear();
    }

    pub fn key<K: StateKey>(&self, i: usize) -> K {
        K::from_words(&self.keys[i * K::WORDS..])
    }

    pub fn residues_of(&self, i: usize) -> &[u64] {
        let width = self.layout.residues;
        &self.residues[i * width..(i + 1) * width]
    }

    /// Bytes of payload (keys and residues).
    pub fn bytes(&self) -> usize {
        8 * (self.keys.len() + self.residues.len())
    }

    /// Bytes allocated (payload and spare capacity).
    pub fn capacity_bytes(&self) -> u64 {
        8 * (self.keys.capacity() + self.residues.capacity()) as u64
    }
}

/// What a finished step left behind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayerSummary {
    /// Distinct states in the new layer.
    pub states: u64,
    /// Bytes the layer occupies (RAM for the memory store, disk for the file store).
    pub bytes: u64,
    /// Scratch bytes the step wrote before merging (spill files of the disk store).
    pub spilled_bytes: u64,
}

/// The files of a layer, as a checkpoint records them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DurableLayer {
    /// The store's sequence number of the layer (it names the layer's directory).
    pub number: u64,
    pub files: Vec<BucketSection>,
}

/// One bucket of a durable layer: its section of a segment file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketSection {
    pub bucket: usize,
    pub path: std::path::PathBuf,
    /// Where the bucket's section starts in the file.
    pub offset: u64,
    pub info: BucketInfo,
}

/// What a finished bucket section holds, as a checkpoint records it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BucketInfo {
    pub states: u64,
    pub bytes: u64,
    pub crc32: u32,
}

/// Receives the states of a bucket, a chunk at a time: keys (as words, see [`RecordLayout`])
/// and their residue vectors.
pub type StateVisitor<'a> = dyn FnMut(&[u64], &[u64]) -> Result<()> + 'a;

/// A layered state store. Reads and emits may come from many threads at once. The interface
/// speaks records of words so that it is the same for every key width; each store is generic
/// over the key type inside and monomorphised per width.
pub trait StateStore: Send + Sync {
    /// How a record is laid out: key words and residues.
    fn layout(&self) -> RecordLayout;

    /// Number of buckets a layer is split into.
    fn buckets(&self) -> usize;

    /// Passes the states of `bucket` of the current layer to `visit`, in one or more chunks. Each
    /// bucket is read once per step; the store may release it afterwards.
    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> Result<()>;

    /// Adds states to `bucket` of the next layer. `records` holds, per state, its key's words
    /// followed by its residues; duplicate keys are allowed (they are merged).
    fn emit(&self, bucket: usize, records: &[u64]) -> Result<()>;

    /// Adds states to `bucket` of the next layer whose keys no other record of this step carries:
    /// every copy of each key was merged before it came (a group of one neighbourhood, see
    /// [`crate::kernel::grouped`]). A store may append them without looking them up; one
    /// that merges anyway need not tell the two apart. Were a key to come twice after all, its two
    /// records would still count right: a layer's counts are linear in its records.
    fn emit_merged(&self, bucket: usize, records: &[u64]) -> Result<()> {
        self.emit(bucket, records)
    }

    /// Merges the next layer and makes it current.
    fn finish_step(&mut self) -> Result<LayerSummary>;

    /// Whether this store should be handed successors merged group by group, where the problem
    /// names neighbourhoods (see [`crate::kernel::grouped`]): worth it where every record
    /// taken costs (spills, segment files, the network); the store's buckets then hold states of
    /// alike neighbourhoods, whose sorted keys also compress better.
    fn takes_grouped(&self) -> bool {
        true
    }

    /// Bytes a reading thread may hold during a step, where the store keeps within a memory
    /// limit (`None`: no bound of its own; the in-memory store holds whole layers anyway).
    /// Grouped expansion reads a bucket whole; a bucket too large for this is streamed instead
    /// (see [`crate::kernel::grouped::ReadingPlan`]).
    fn reading_budget(&self) -> Option<usize> {
        None
    }

    /// States in `bucket` of the current layer, where the store knows before reading it.
    fn bucket_states(&self, _bucket: usize) -> Option<u64> {
        None
    }

    /// The buckets of the current layer that hold states, ascending, where the store keeps
    /// a list (`None`: ask [`bucket_states`](Self::bucket_states) of each). A step reads only
    /// these: a layer of a few states costs a few buckets, not every one.
    fn filled_buckets(&self) -> Option<Vec<usize>> {
        None
    }

    /// The files holding the current layer, for a checkpoint; `None` if the store keeps nothing
    /// that outlives the process.
    fn durable_layer(&self) -> Option<DurableLayer> {
        None
    }

    /// A committed checkpoint names the current layer: older layers may go. Until this call
    /// the store keeps the previous layer, which the last checkpoint may still name.
    fn release_older_layers(&mut self) -> Result<()> {
        Ok(())
    }

    /// From now on checkpoints name only some layers (a sweep of many small steps commits at
    /// most about once a second, `jobdir::checkpoints`): the store fsyncs a layer only when
    /// [`make_durable`](Self::make_durable) asks, and removes a layer no checkpoint names once
    /// the step after it has read it. A store that keeps nothing on disk ignores it.
    fn pace_checkpoints(&mut self) {}

    /// A checkpoint is about to name the current layer: its files must be durable first (a
    /// store with paced checkpoints fsyncs them now; any other already has).
    fn make_durable(&mut self) -> Result<()> {
        Ok(())
    }

    /// The pass is over and committed: the current layer may go too.
    fn discard(&mut self) -> Result<()> {
        Ok(())
    }
}

/// The bucket of a key among `buckets`, where the transition names no neighbourhoods (with them,
/// [`crate::kernel::grouped::bucket_for`]). Counts need only that all copies of a key in
/// one step go to one bucket, so a stored layer stays good whichever way its buckets were chosen (a
/// job resumes across a change of them; merges may be fewer for one step).
#[inline]
pub fn bucket_of<K: StateKey>(key: K, buckets: usize) -> usize {
    let folded = key.fold();
    let mixed = (folded ^ (folded >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let mixed = (mixed ^ (mixed >> 32)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((mixed as u128 * buckets as u128) >> 64) as usize
}

/// The bucket of the record that starts with the key words `key` (one or two words).
pub fn bucket_of_words(key: &[u64], buckets: usize) -> usize {
    bucket_of(fold_words(key), buckets)
}

pub(crate) fn check_layout(layout: RecordLayout, moduli: &Moduli) -> Result<()> {
    if layout.residues != moduli.len() {
        return Err(Error::Bug(format!(
            "a store of {} residues per state was given {} moduli",
            layout.residues,
            moduli.len()
        )));
    }
    Ok(())
}

pub(crate) fn unsupported_key(layout: RecordLayout) -> Error {
    Error::Bug(format!("keys of {} words are not supported (1 or 2)", layout.key_words))
}
