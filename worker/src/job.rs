//! The pass of a job a worker is running: its buckets, its store, its peers, and the store
//! wrapper that routes successors to their owners during a step.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::Instant;

use leaper_core::engine::store::{LayerSummary, StateStore, StateVisitor};
use leaper_core::engine::{Moduli, RecordLayout, SweepJob};
use leaper_core::{Error, Result};
use leaper_proto::client::Client;
use leaper_proto::convert::{encode_batch, BatchSection, BATCH_BYTES};
use leaper_proto::v1::StateBatch;
use tokio::sync::mpsc;

/// A prepared pass of a job.
pub struct ActiveJob {
    pub job_id: String,
    /// The coordinator's attempt: batches of another generation are refused.
    pub generation: u64,
    /// Set when a new Prepare replaces this job: its expansion stops at the next chunk.
    pub cancelled: std::sync::atomic::AtomicBool,
    pub index: usize,
    /// The pass, from 0.
    pub pass: u64,
    pub workers: Vec<String>,
    /// The problem's transition, rebuilt from the job's parameters.
    pub sweep: Box<dyn SweepJob>,
    pub moduli: Moduli,
    /// How the pass's records are laid out (key words, residues).
    pub layout: RecordLayout,
    pub buckets: usize,
    /// The buckets this worker owns: `b` with `b % workers == index`.
    pub owned: Vec<usize>,
    /// `None` once the pass has ended.
    pub store: RwLock<Option<Box<dyn StateStore>>>,
    /// Layers merged in this pass (the seed's included); batches and requests must carry it.
    pub layers_merged: AtomicU64,
    /// Records received for the next layer in this step (from peers and from itself).
    pub received: AtomicU64,
    /// States read in the current expansion (for heartbeats).
    pub read: AtomicU64,
    /// A client per peer (`None` for this worker).
    pub peers: Vec<Option<Client>>,
}

impl ActiveJob {
    pub fn owner(&self, bucket: usize) -> usize {
        bucket % self.workers.len()
    }
}

/// Records waiting to be sent to one peer.
#[derive(Default)]
struct Outbox {
    sections: Vec<BatchSection>,
    bytes: usize,
}

/// The store a worker's expansion sees: reads come from its own layer, successors go to their
/// owners (its own store, or a peer's stream).
pub struct ShuffleStore<'a> {
    job: &'a ActiveJob,
    local: &'a dyn StateStore,
    outboxes: Vec<Mutex<Outbox>>,
    senders: Vec<Option<mpsc::Sender<StateBatch>>>,
    sent: Vec<AtomicU64>,
    sent_bytes: AtomicU64,
    shuffle_micros: AtomicU64,
    /// Per peer: microseconds the expansion's threads spent blocked on its full stream.
    blocked: Vec<AtomicU64>,
}

/// What a worker's expansion sent.
pub struct Shipped {
    /// Records per worker (its own share included).
    pub records: Vec<u64>,
    /// Compressed bytes to other workers, and microseconds spent compressing and sending.
    pub bytes: u64,
    pub micros: u64,
    /// Per worker: microseconds threads spent blocked on its stream, summed over threads.
    pub blocked: Vec<u64>,
}

impl<'a> ShuffleStore<'a> {
    /// `senders[p]` streams batches to peer `p` (`None` for this worker).
    pub fn new(job: &'a ActiveJob, local: &'a dyn StateStore, senders: Vec<Option<mpsc::Sender<StateBatch>>>) -> Self {
        let workers = job.workers.len();
        ShuffleStore {
            job,
            local,
            outboxes: (0..workers).map(|_| Mutex::default()).collect(),
            senders,
            sent: (0..workers).map(|_| AtomicU64::new(0)).collect(),
            sent_bytes: AtomicU64::new(0),
            shuffle_micros: AtomicU64::new(0),
            blocked: (0..workers).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Records for `bucket`: into the local store if this worker owns it, else into the
    /// owner's outbox (sent when full).
    fn send_or_keep(&self, bucket: usize, records: &[u64], merged: bool) -> Result<()> {
        let owner = self.job.owner(bucket);
        let count = (records.len() / self.job.layout.stride()) as u64;
        self.sent[owner].fetch_add(count, Ordering::SeqCst);
        if owner == self.job.index {
            self.job.received.fetch_add(count, Ordering::SeqCst);
            return if merged { self.local.emit_merged(bucket, records) } else { self.local.emit(bucket, records) };
        }
        let full = {
            let mut outbox = self.outboxes[owner].lock().expect("outbox lock");
            outbox.sections.push(BatchSection { bucket, records: records.to_vec(), merged });
            outbox.bytes += records.len() * 8;
            if outbox.bytes >= BATCH_BYTES {
                outbox.bytes = 0;
                Some(std::mem::take(&mut outbox.sections))
            } else {
                None
            }
        };
        match full {
            Some(sections) => self.send(owner, sections),
            None => Ok(()),
        }
    }

    fn send(&self, peer: usize, sections: Vec<BatchSection>) -> Result<()> {
        let started = Instant::now();
        let job = self.job;
        let batch =
            encode_batch(&job.job_id, job.generation, job.layers_merged.load(Ordering::SeqCst), &sections, job.layout);
        self.sent_bytes.fetch_add(batch.records.len() as u64, Ordering::Relaxed);
        let sender = self.senders[peer].as_ref().expect("a sender for every peer");
        let sending = Instant::now();
        let sent = sender.blocking_send(batch).map_err(|_| Error::Unavailable {
            peer: self.job.workers[peer].clone(),
            message: "the stream to it closed (the peer failed or refused the batch)".into(),
        });
        // A send returns at once while the stream has room: the time is the peer's (or its
        // link's) back-pressure.
        self.blocked[peer].fetch_add(sending.elapsed().as_micros() as u64, Ordering::Relaxed);
        self.shuffle_micros.fetch_add(started.elapsed().as_micros() as u64, Ordering::Relaxed);
        sent
    }

    /// Sends what is still buffered; says what was sent.
    pub fn finish(self) -> Result<Shipped> {
        for (peer, outbox) in self.outboxes.iter().enumerate() {
            let sections = std::mem::take(&mut outbox.lock().expect("outbox lock").sections);
            if !sections.is_empty() {
                self.send(peer, sections)?;
            }
        }
        Ok(Shipped {
            records: self.sent.iter().map(|n| n.load(Ordering::SeqCst)).collect(),
            bytes: self.sent_bytes.load(Ordering::SeqCst),
            micros: self.shuffle_micros.load(Ordering::SeqCst),
            blocked: self.blocked.iter().map(|n| n.load(Ordering::SeqCst)).collect(),
        })
    }
}

impl StateStore for ShuffleStore<'_> {
    fn layout(&self) -> RecordLayout {
        self.job.layout
    }

    fn buckets(&self) -> usize {
        self.job.buckets
    }

    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> Result<()> {
        self.local.read_bucket(bucket, &mut |keys, residues| {
            if self.job.cancelled.load(Ordering::Relaxed) {
                return Err(Error::Aborted("a new attempt replaced it".into()));
            }
            self.job.read.fetch_add((keys.len() / self.job.layout.key_words) as u64, Ordering::Relaxed);
            visit(keys, residues)
        })
    }

    fn reading_budget(&self) -> Option<usize> {
        self.local.reading_budget()
    }

    fn bucket_states(&self, bucket: usize) -> Option<u64> {
        self.local.bucket_states(bucket)
    }

    fn emit(&self, bucket: usize, records: &[u64]) -> Result<()> {
        self.send_or_keep(bucket, records, false)
    }

    /// Merged records stay merged, kept here or sent (the batch says so, and the owner appends
    /// them as this worker would).
    fn emit_merged(&self, bucket: usize, records: &[u64]) -> Result<()> {
        self.send_or_keep(bucket, records, true)
    }

    fn finish_step(&mut self) -> Result<LayerSummary> {
        Err(Error::Bug("a worker merges its layer through Merge, not through the shuffle store".into()))
    }
}
