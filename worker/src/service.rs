//! The Worker gRPC service: prepare a pass, expand and shuffle, receive, merge, release.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};

use leaper_core::engine::dedupe::{dedupe_records, Shape};
use leaper_core::engine::jobdir::{remove_unnamed, DataDir, Foreign, JobFile};
use leaper_core::engine::problem::Params;
use leaper_core::engine::store::disk_store;
use leaper_core::engine::subtree::SubtreeProblem;
use leaper_core::engine::{Job, Moduli};
use leaper_core::{problems, Error};
use leaper_proto::client::{client, Credentials};
use leaper_proto::convert::{
    decode_batch, decode_record_chunk, encode_record_chunks, files_to_wire, layer_from_wire, to_status,
};
use leaper_proto::metrics::Scrape;
use leaper_proto::v1::worker_server::Worker;
use leaper_proto::v1::*;
use leaper_proto::FORMAT_VERSION;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

use crate::job::{ActiveJob, ShuffleStore};
use crate::metrics::{self, Tally};

/// A subtree problem by its name and parameters, with its shard plan and the plan's fingerprint
/// (computed once: it formats every shard's label).
type LeasedProblem = (String, String, Arc<dyn SubtreeProblem>, u32);

pub struct WorkerService {
    /// The data directory, locked for the life of the service.
    data: Arc<DataDir>,
    threads: usize,
    /// How this worker reaches its peers (token, TLS).
    peers: Credentials,
    active: Arc<Mutex<Option<Arc<ActiveJob>>>>,
    /// What the worker has done, for `/metrics`.
    tally: Arc<Tally>,
    /// The subtree problem of the last lease, `(problem, params)` with its shard plan: built
    /// once per job, not per shard.
    problem: Mutex<Option<LeasedProblem>>,
}

/// The problem `name` with the parameters `params` (a TOML table, as the job spec records it).
fn rebuild(name: &str, params: &str) -> Result<Job, Status> {
    let table: Params = toml::from_str(params)
        .map_err(|e| Status::invalid_argument(format!("the parameters of the {name} job do not read: {e}")))?;
    problems::find(name).and_then(|problem| problem.task(&table)?.job()).map_err(to_status)
}

fn refuse_format(format_version: u32) -> Result<(), Status> {
    if format_version != FORMAT_VERSION {
        return Err(Status::failed_precondition(format!(
            "job format {format_version}, this worker speaks format {FORMAT_VERSION}: run the same leaper release \
             everywhere"
        )));
    }
    Ok(())
}

/// Claims the data directory for `job_id` (atomic, and idempotent for the same job); another
/// job's directory is refused as a permission, as every call of another job is.
fn claim_for(data: &DataDir, job_id: &str) -> Result<(), Status> {
    data.claim(job_id).map_err(|error| {
        let refused = matches!(error, Error::Refused { .. });
        let status = to_status(error);
        if refused {
            Status::with_metadata(tonic::Code::PermissionDenied, status.message(), status.metadata().clone())
        } else {
            status
        }
    })
}

impl WorkerService {
    pub fn new(data: DataDir, threads: usize, peers: Credentials) -> Self {
        WorkerService {
            data: Arc::new(data),
            threads,
            peers,
            active: Arc::default(),
            tally: Arc::default(),
            problem: Mutex::new(None),
        }
    }

    /// Computes `/metrics` for this worker (on any thread, while the service runs).
    pub fn scrape(&self) -> Scrape {
        let (active, tally, data) = (self.active.clone(), self.tally.clone(), self.data.clone());
        Arc::new(move || {
            let job = active.lock().expect("job lock").clone();
            Ok(metrics::render(&tally, job.as_deref(), data.path()))
        })
    }

    /// The prepared job, if `job_id` is the one this worker was given, after `layers_merged` merges.
    fn active(&self, job_id: &str, layers_merged: Option<u64>) -> Result<Arc<ActiveJob>, Status> {
        let active = self.active.lock().expect("job lock").clone();
        // A worker that restarted has no job until it is prepared again: the step is rerun.
        let job = active.ok_or_else(|| Status::aborted("no job prepared on this worker (it restarted)"))?;
        if job.job_id != job_id {
            return Err(Status::permission_denied(format!("this worker runs job {}, not job {job_id}", job.job_id)));
        }
        if let Some(asked) = layers_merged {
            let current = job.layers_merged.load(Ordering::SeqCst);
            if asked != current {
                // A stale attempt: the coordinator prepares every worker again and reruns the step.
                return Err(Status::aborted(format!(
                    "request after {asked} merged layers, the worker has merged {current}"
                )));
            }
        }
        Ok(job)
    }

    fn prepare_job(data: &DataDir, peers: Credentials, request: PrepareRequest) -> Result<(ActiveJob, usize), Status> {
        refuse_format(request.format_version)?;
        let workers = request.workers.len();
        let index = request.index as usize;
        if index >= workers || request.buckets == 0 || request.moduli.is_empty() {
            return Err(Status::invalid_argument("bad job: worker index, buckets or moduli"));
        }
        let Job::Sweep(sweep) = rebuild(&request.problem, &request.params)? else {
            return Err(Status::invalid_argument(format!("{} is not a sweep", request.problem)));
        };
        if sweep.key_words() != request.key_words as usize {
            return Err(Status::failed_precondition(format!(
                "the coordinator's states have {}-bit keys, this worker's {}: run the same leaper release everywhere",
                64 * request.key_words,
                64 * sweep.key_words()
            )));
        }
        // The key format first: another number is another leaper, whatever the layouts say.
        // (A coordinator of before key formats were sent sends none: the layout decides.)
        if let Some(format) = request.key_format.filter(|&format| format != sweep.key_format()) {
            return Err(Status::failed_precondition(format!(
                "the coordinator's {problem} keys are of key format {format}, this worker's of key format {ours}: \
                 another version of leaper; run the same leaper on the workers as on the coordinator",
                problem = request.problem,
                ours = sweep.key_format()
            )));
        }
        if sweep.key_layout() != request.key_layout {
            return Err(Status::failed_precondition(format!(
                "the coordinator's keys mean \"{}\", this worker's \"{}\": run the same leaper release everywhere",
                request.key_layout,
                sweep.key_layout()
            )));
        }
        claim_for(data, &request.job_id)?;

        // Lanes this worker does not know (a marker out of place) are refused, never added as residues.
        let moduli = Moduli::from_values(request.moduli.clone()).map_err(to_status)?;
        let layout = sweep.layout(moduli.len());
        let buckets = request.buckets as usize;
        let data_dir = data.path();
        let layer = layer_from_wire(data_dir, request.layer_number, &request.files)?;
        let named: HashSet<PathBuf> = request.files.iter().map(|f| PathBuf::from(&f.file)).collect();
        let kept = [JobFile::JobId, JobFile::WorkerId];
        let removed = remove_unnamed(data_dir, &named, &kept, Foreign::Refuse).map_err(to_status)?;
        let resume = (request.layers_merged > 0).then_some(&layer);
        let store =
            disk_store(layout, data_dir, request.pass as usize, buckets, moduli.clone(), request.mem_limit, resume)
                .map_err(to_status)?;
        let peers = request
            .workers
            .iter()
            .enumerate()
            .map(|(i, address)| (i != index).then(|| client(address, &peers)).transpose())
            .collect::<leaper_core::Result<Vec<_>>>()
            .map_err(to_status)?;
        let job = ActiveJob {
            job_id: request.job_id,
            generation: request.generation,
            cancelled: false.into(),
            index,
            pass: request.pass as u64,
            workers: request.workers,
            sweep,
            moduli,
            layout,
            buckets,
            owned: (0..buckets).filter(|b| b % workers == index).collect(),
            store: RwLock::new(Some(store)),
            layers_merged: request.layers_merged.into(),
            received: 0.into(),
            read: 0.into(),
            peers,
        };
        Ok((job, removed))
    }
}

impl WorkerService {
    /// Claims the data directory for a subtree job (refusing another job's) and returns the
    /// lease's problem, checked against the lease's shard plan.
    fn leased_problem(&self, lease: &ShardLease) -> Result<Arc<dyn SubtreeProblem>, Status> {
        refuse_format(lease.format_version)?;
        // One atomic claim: leases of one job arrive on many threads at once.
        claim_for(&self.data, &lease.job_id)?;
        let mut cached = self.problem.lock().expect("problem lock");
        let (problem, fingerprint) = match cached.as_ref() {
            Some((name, params, problem, fingerprint)) if *name == lease.problem && *params == lease.params => {
                (problem.clone(), *fingerprint)
            }
            _ => {
                let Job::Subtree(problem) = rebuild(&lease.problem, &lease.params)? else {
                    return Err(Status::invalid_argument(format!("{} is not a subtree job", lease.problem)));
                };
                let fingerprint = problem.fingerprint();
                *cached = Some((lease.problem.clone(), lease.params.clone(), problem.clone(), fingerprint));
                (problem, fingerprint)
            }
        };
        if fingerprint != lease.fingerprint {
            return Err(Status::failed_precondition(format!(
                "the shard plan of {} differs from the coordinator's (plan {:08x}, coordinator {:08x}): run the same \
                 leaper release everywhere",
                problem.describe(),
                fingerprint,
                lease.fingerprint
            )));
        }
        Ok(problem)
    }
}

fn join_error(error: tokio::task::JoinError) -> Status {
    Status::internal(format!("worker task failed: {error}"))
}

#[tonic::async_trait]
impl Worker for WorkerService {
    async fn info(&self, _request: Request<InfoRequest>) -> Result<Response<InfoReply>, Status> {
        Ok(Response::new(InfoReply {
            worker_version: env!("CARGO_PKG_VERSION").to_string(),
            format_version: FORMAT_VERSION,
            threads: self.threads as u32,
            job_id: self.data.owner().map_err(to_status)?.unwrap_or_default(),
            worker_id: self.data.worker_id().to_string(),
            data_dir: self.data.path().display().to_string(),
        }))
    }

    async fn prepare(&self, request: Request<PrepareRequest>) -> Result<Response<PrepareReply>, Status> {
        let request = request.into_inner();
        // The old attempt (if any) goes first: stop its expansion and wait until nothing holds
        // its store, so that it cannot write while files are swept or reopened.
        let old = self.active.lock().expect("job lock").take();
        if let Some(old) = old {
            old.cancelled.store(true, Ordering::SeqCst);
            tokio::task::spawn_blocking(move || old.store.write().expect("store lock").take())
                .await
                .map_err(join_error)?;
        }
        let (data, peers) = (self.data.clone(), self.peers.clone());
        let (job, removed) = tokio::task::spawn_blocking(move || WorkerService::prepare_job(&data, peers, request))
            .await
            .map_err(join_error)??;
        tracing::info!(job = %job.job_id, layers_merged = job.layers_merged.load(Ordering::SeqCst), removed, "pass prepared");
        *self.active.lock().expect("job lock") = Some(Arc::new(job));
        Ok(Response::new(PrepareReply { removed_files: removed as u64 }))
    }

    async fn expand(&self, request: Request<ExpandRequest>) -> Result<Response<ExpandReply>, Status> {
        let request = request.into_inner();
        let job = self.active(&request.job_id, Some(request.layers_merged))?;
        let mut senders = Vec::new();
        let mut pushes = Vec::new();
        for peer in &job.peers {
            match peer {
                Some(client) => {
                    let (sender, receiver) = mpsc::channel::<StateBatch>(4);
                    let mut client = client.clone();
                    // When the peer took the last batch: the tail of the wait on it.
                    pushes.push(Some(tokio::spawn(async move {
                        let taken = client.push(ReceiverStream::new(receiver)).await;
                        (taken, std::time::Instant::now())
                    })));
                    senders.push(Some(sender));
                }
                None => {
                    pushes.push(None);
                    senders.push(None);
                }
            }
        }
        let cell = request.cell as usize;
        let expanding = job.clone();
        let started = std::time::Instant::now();
        job.read.store(0, Ordering::SeqCst);
        let (outcome, shipped) = tokio::task::spawn_blocking(move || -> leaper_core::Result<_> {
            let job = &expanding;
            let guard = job.store.read().expect("store lock");
            let local = guard.as_deref().ok_or_else(|| Error::Aborted("the pass has ended".into()))?;
            let shuffle = ShuffleStore::new(job, local, senders);
            let outcome = job.sweep.expand_layer(cell, &job.moduli, &shuffle, &job.owned)?;
            Ok((outcome, shuffle.finish()?))
        })
        .await
        .map_err(join_error)?
        .map_err(to_status)?;
        let expanded = std::time::Instant::now();
        let threads = self.threads.max(1) as u64;
        let mut wait_micros: Vec<u64> = shipped.blocked.iter().map(|blocked| blocked / threads).collect();
        for (peer, push) in pushes.into_iter().enumerate() {
            let Some(push) = push else { continue };
            let (accepted, taken) = push.await.map_err(join_error)?;
            let accepted = accepted.map_err(|e| {
                Status::unavailable(format!("worker {} did not take its states: {}", job.workers[peer], e.message()))
            })?;
            if accepted.into_inner().records != shipped.records[peer] {
                return Err(Status::data_loss(format!(
                    "worker {} took fewer records than were sent",
                    job.workers[peer]
                )));
            }
            wait_micros[peer] += taken.saturating_duration_since(expanded).as_micros() as u64;
        }
        self.tally.shuffle_sent_bytes.fetch_add(shipped.bytes, Ordering::SeqCst);
        Ok(Response::new(ExpandReply {
            closed: outcome.closed,
            read: outcome.read,
            emitted: outcome.emitted,
            handed: outcome.handed,
            sent: shipped.records,
            sent_bytes: shipped.bytes,
            shuffle_micros: shipped.micros,
            expand_micros: started.elapsed().as_micros() as u64,
            wait_micros,
        }))
    }

    async fn push(&self, request: Request<Streaming<StateBatch>>) -> Result<Response<PushReply>, Status> {
        let mut stream = request.into_inner();
        let mut total = 0u64;
        while let Some(batch) = stream.message().await? {
            let job = self.active(&batch.job_id, Some(batch.layers_merged))?;
            if batch.generation != job.generation {
                return Err(Status::aborted(format!(
                    "a batch of attempt {}, the worker is at attempt {}",
                    batch.generation, job.generation
                )));
            }
            self.tally.shuffle_received_bytes.fetch_add(batch.records.len() as u64, Ordering::SeqCst);
            let sections = decode_batch(&batch, job.layout)?;
            if let Some(section) = sections.iter().find(|section| job.owner(section.bucket) != job.index) {
                return Err(Status::permission_denied(format!(
                    "a batch for bucket {}, which worker {} owns, not this one ({})",
                    section.bucket,
                    job.owner(section.bucket),
                    job.index
                )));
            }
            let records: u64 =
                sections.iter().map(|section| (section.records.len() / job.layout.stride()) as u64).sum();
            let storing = job.clone();
            tokio::task::spawn_blocking(move || -> leaper_core::Result<()> {
                let guard = storing.store.read().expect("store lock");
                let store = guard.as_ref().ok_or_else(|| Error::Aborted("the pass has ended".into()))?;
                sections.iter().try_for_each(|section| match section.merged {
                    true => store.emit_merged(section.bucket, &section.records),
                    false => store.emit(section.bucket, &section.records),
                })
            })
            .await
            .map_err(join_error)?
            .map_err(to_status)?;
            job.received.fetch_add(records, Ordering::SeqCst);
            total += records;
        }
        Ok(Response::new(PushReply { records: total }))
    }

    async fn merge(&self, request: Request<MergeRequest>) -> Result<Response<MergeReply>, Status> {
        let request = request.into_inner();
        let job = self.active(&request.job_id, Some(request.layers_merged))?;
        let received = job.received.load(Ordering::SeqCst);
        if received != request.expected_records {
            return Err(Status::data_loss(format!(
                "received {received} records in step {}, the peers sent {}",
                request.layers_merged, request.expected_records
            )));
        }
        let data = self.data.clone();
        let merging = job.clone();
        let reply = tokio::task::spawn_blocking(move || -> Result<MergeReply, Status> {
            let mut guard = merging.store.write().expect("store lock");
            let store = guard.as_mut().ok_or_else(|| Status::failed_precondition("the pass has ended"))?;
            let summary = store.finish_step().map_err(to_status)?;
            let layer =
                store.durable_layer().ok_or_else(|| to_status(Error::Bug("a worker's store is not durable".into())))?;
            let data_dir = data.path();
            Ok(MergeReply {
                states: summary.states,
                bytes: summary.bytes,
                spilled_bytes: summary.spilled_bytes,
                layer_number: layer.number,
                files: files_to_wire(data_dir, &layer)?,
            })
        })
        .await
        .map_err(join_error)??;
        let tally = &self.tally;
        tally.states_read.fetch_add(job.read.load(Ordering::SeqCst), Ordering::SeqCst);
        tally.states_written.fetch_add(reply.states, Ordering::SeqCst);
        tally.spilled_bytes.fetch_add(reply.spilled_bytes, Ordering::SeqCst);
        tally.layer_states.store(reply.states, Ordering::SeqCst);
        tally.layer_bytes.store(reply.bytes, Ordering::SeqCst);
        job.received.store(0, Ordering::SeqCst);
        job.layers_merged.fetch_add(1, Ordering::SeqCst);
        Ok(Response::new(reply))
    }

    async fn release(&self, request: Request<ReleaseRequest>) -> Result<Response<ReleaseReply>, Status> {
        let request = request.into_inner();
        let job = self.active(&request.job_id, Some(request.layers_merged))?;
        tokio::task::spawn_blocking(move || -> Result<(), Status> {
            let mut guard = job.store.write().expect("store lock");
            match guard.as_mut() {
                Some(store) => store.release_older_layers().map_err(to_status),
                None => Ok(()),
            }
        })
        .await
        .map_err(join_error)??;
        Ok(Response::new(ReleaseReply {}))
    }

    async fn heartbeat(&self, request: Request<HeartbeatRequest>) -> Result<Response<HeartbeatReply>, Status> {
        let job = self.active(&request.into_inner().job_id, None)?;
        Ok(Response::new(HeartbeatReply {
            layers_merged: job.layers_merged.load(Ordering::SeqCst),
            states_read: job.read.load(Ordering::Relaxed),
            records_received: job.received.load(Ordering::Relaxed),
        }))
    }

    async fn end_pass(&self, request: Request<EndPassRequest>) -> Result<Response<EndPassReply>, Status> {
        let request = request.into_inner();
        match self.active(&request.job_id, None) {
            Ok(job) => tokio::task::spawn_blocking(move || -> Result<(), Status> {
                match job.store.write().expect("store lock").take() {
                    Some(mut store) => store.discard().map_err(to_status),
                    None => Ok(()),
                }
            })
            .await
            .map_err(join_error)??,
            // A subtree job prepares nothing: it only owns the data directory.
            Err(_)
                if request.job_finished
                    && self.data.owner().map_err(to_status)?.as_deref() == Some(&request.job_id) => {}
            Err(refusal) => return Err(refusal),
        }
        if request.job_finished {
            self.active.lock().expect("job lock").take();
            let removed = self.data.release().map_err(to_status)?;
            tracing::info!(job = %request.job_id, removed, "job finished; the data directory is free");
        }
        Ok(Response::new(EndPassReply {}))
    }

    type DistinctBucketStream = ReceiverStream<Result<RecordChunk, Status>>;

    /// Receives one bucket, sorts it with the engine's own [`dedupe_records`] on a blocking
    /// thread, and streams the survivors back.
    async fn distinct_bucket(
        &self,
        request: Request<Streaming<RecordChunk>>,
    ) -> Result<Response<Self::DistinctBucketStream>, Status> {
        let mut chunks = request.into_inner();
        let mut records = Vec::new();
        let mut shape: Option<(Shape, String)> = None;
        while let Some(chunk) = chunks.message().await? {
            let this = Shape { key_len: chunk.key_len as usize, payload_len: chunk.payload_len as usize };
            match &shape {
                Some((known, _)) if *known != this => {
                    return Err(Status::invalid_argument("the chunks of one bucket differ in record shape"))
                }
                Some(_) => {}
                None => shape = Some((this, chunk.bucket.clone())),
            }
            records.extend_from_slice(&decode_record_chunk(&chunk)?);
        }
        let Some((shape, bucket)) = shape else {
            return Err(Status::invalid_argument("a bucket of no chunks"));
        };
        let started = std::time::Instant::now();
        let survivors = tokio::task::spawn_blocking(move || dedupe_records(shape, &records))
            .await
            .map_err(join_error)?
            .map_err(to_status)?;
        tracing::debug!(bucket = %bucket, survivors = survivors.len(), seconds = started.elapsed().as_secs_f64(), "bucket deduplicated");
        let width = shape.payload_len + 8;
        let flat: Vec<u8> = survivors.concat();
        let answer = encode_record_chunks(&bucket, 0, shape.payload_len, width, &flat);
        let (send, receive) = mpsc::channel(answer.len().max(1));
        for chunk in answer {
            send.send(Ok(chunk)).await.map_err(|_| Status::cancelled("the caller left"))?;
        }
        Ok(Response::new(ReceiverStream::new(receive)))
    }

    async fn run_shard(&self, request: Request<ShardLease>) -> Result<Response<ShardReport>, Status> {
        let lease = request.into_inner();
        let problem = self.leased_problem(&lease)?;
        let started = std::time::Instant::now();
        let shard = usize::try_from(lease.shard).map_err(|_| Status::invalid_argument("shard index out of range"))?;
        if shard >= problem.shard_count() {
            return Err(Status::invalid_argument(format!("shard {shard} of {} shards", problem.shard_count())));
        }
        let result = tokio::task::spawn_blocking(move || problem.run_shard(shard))
            .await
            .map_err(join_error)?
            .map_err(to_status)?;
        tracing::debug!(job = %lease.job_id, shard, seconds = started.elapsed().as_secs_f64(), "shard done");
        Ok(Response::new(ShardReport {
            shard: lease.shard,
            counts: result.counts.iter().map(u128::to_string).collect(),
            seconds: started.elapsed().as_secs_f64(),
        }))
    }
}
