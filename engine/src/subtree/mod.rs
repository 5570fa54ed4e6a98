//! Subtree jobs: a search split into shards at a fixed depth, each shard run to a result, the
//! results summed.
//!
//! A problem lists its shards in a fixed order (shard `i` of one run is shard `i` of every run of
//! the same problem and release; the [fingerprint](SubtreeProblem::fingerprint) checks that), and
//! runs any one of them on its own. That is all the framework needs to run the shards on local
//! threads or lease them to cluster workers, record each finished shard in a [`ledger`] so a
//! resumed job skips it, and add the results up. Nothing here knows what is being counted.

pub mod ledger;
pub mod local;

use crate::{Error, Result};

/// What one shard found: one count per slot of the problem (a problem counting several variants
/// at once has several slots).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShardResult {
    pub counts: Vec<u128>,
}

/// A search that splits into independent shards.
pub trait SubtreeProblem: Send + Sync {
    /// The problem and its parameters, as `leaper` would be told them (`quarto rows+cols`).
    fn describe(&self) -> String;

    /// The names of the counts each shard adds to, in order.
    fn slots(&self) -> Vec<String>;

    /// How many shards the search splits into.
    fn shard_count(&self) -> usize;

    /// A short human-readable name of shard `index`, for logs and the ledger.
    fn shard_label(&self, index: usize) -> String;

    /// Runs shard `index` to its result.
    fn run_shard(&self, index: usize) -> Result<ShardResult>;

    /// Identifies the shard plan: a ledger or a worker with another plan is refused.
    fn fingerprint(&self) -> u32 {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(self.describe().as_bytes());
        for index in 0..self.shard_count() {
            hasher.update(self.shard_label(index).as_bytes());
            hasher.update(&[0]);
        }
        hasher.finalize()
    }
}

/// The running sum of shard results, one exact count per slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Totals {
    pub counts: Vec<u128>,
    pub shards_done: usize,
}

impl Totals {
    pub fn new(slots: usize) -> Totals {
        Totals { counts: vec![0; slots], shards_done: 0 }
    }

    pub fn add(&mut self, index: usize, result: &ShardResult) -> Result<()> {
        if result.counts.len() != self.counts.len() {
            return Err(Error::Bug(format!(
                "shard {index} gave {} counts, the problem has {} slots",
                result.counts.len(),
                self.counts.len()
            )));
        }
        for (total, &count) in self.counts.iter_mut().zip(&result.counts) {
            *total = total
                .checked_add(count)
                .ok_or_else(|| Error::Bug(format!("the count overflowed 128 bits at shard {index}")))?;
        }
        self.shards_done += 1;
        Ok(())
    }
}
