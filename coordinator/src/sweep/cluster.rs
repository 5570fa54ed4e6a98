//! Running a sweep's steps on workers: the coordinator side of the protocol in `leaper.proto`.
//!
//! A step: Expand on every worker (each streams successors to the owners of their buckets),
//! check that every record sent was received, Merge on every worker, then the driver commits
//! the manifest with each worker's part of the layer and the workers Release older layers.
//! A failed call aborts the step: the coordinator waits for every worker to answer again (a
//! restarted worker keeps its id: its place in `--workers` and its data directory), saying which
//! it waits for, prepares them all again from the last committed layer and reruns the step. A
//! worker restarted on another address comes back through `leaper resume --workers`: each place
//! must be held by the worker whose id the checkpoint records there. Each Expand reply's waits
//! go to the straggler rule (`crate::straggler`).

use std::time::{Duration, Instant};

use leaper_core::engine::jobdir::checkpoints::SweepCheckpoints;
use leaper_core::engine::jobdir::has_commits;
use leaper_core::engine::jobdir::manifest::{LayerRecord, WorkerLayer};
use leaper_core::engine::store::{bucket_of_words, LayerSummary};
use leaper_core::engine::sweep::{StepOutcome, SweepHost, SweepProgress};
use leaper_core::engine::{Moduli, RecordLayout};
use leaper_core::{Error, Result};
use leaper_proto::client::{Client, Credentials};
use leaper_proto::convert::{encode_batch, from_status, layer_from_merge, record_to_wire, BatchSection};
use leaper_proto::v1::*;
use leaper_proto::FORMAT_VERSION;
use tokio::runtime::Runtime;

use super::shuffle::StepShuffle;
use crate::straggler::{self, ShareWindow, StepTimes, Straggler};
use crate::workers::{connect_workers, release_all};

/// How many times a step is tried before the job stops.
const ATTEMPTS: usize = 4;
/// Workers are polled this often during every call; three missed answers abort the step.
const HEARTBEAT: Duration = Duration::from_secs(5);
const MISSED_HEARTBEATS: usize = 3;
/// While it waits for workers to answer again, the coordinator says whom it waits for when that
/// changes, and again this often.
const WAITING_NOTICE: Duration = Duration::from_secs(30);

/// What the workers are asked to count (the job's sweep).
#[derive(Clone, Debug)]
pub struct ClusterPlan {
    /// The problem and its parameters (TOML), from which each worker rebuilds the transition.
    pub problem: String,
    pub params: String,
    /// Words per key, what the keys mean in which of the problem's key formats, and result
    /// slots: the workers' transition must agree.
    pub key_words: usize,
    pub key_layout: String,
    pub key_format: u32,
    pub slots: usize,
    pub buckets: usize,
    pub mem_limit: u64,
}

pub struct ClusterHost<'a> {
    runtime: Runtime,
    addresses: Vec<String>,
    clients: Vec<Client>,
    job: &'a mut SweepCheckpoints,
    plan: ClusterPlan,
    /// How long to wait for a failed worker to come back.
    patience: Duration,
    pass: usize,
    moduli: Moduli,
    /// Layers merged in this pass (the seed's included), and each worker's part of the current
    /// layer.
    layers_merged: u64,
    layers: Vec<Option<LayerRecord>>,
    /// The same, as last committed: where an aborted step restarts.
    committed_merged: u64,
    committed_layers: Vec<Option<LayerRecord>>,
    seed: Vec<u64>,
    /// The attempt the workers were last prepared for.
    generation: u64,
    /// Expansion threads of each worker (from Info), for the shuffle's share of the time.
    threads: Vec<u64>,
    /// Each worker's id (from Info), recorded with its part of the layer.
    ids: Vec<String>,
    /// The workers' shares of the last steps, and the straggler they name (its index), shown
    /// by the display through `named`.
    shares: ShareWindow,
    straggler: Option<usize>,
    named: straggler::Named,
}

/// A worker that failed in a way the protocol cannot name: transient, the step is rerun.
fn worker_error(peer: &str, message: impl std::fmt::Display) -> Error {
    Error::Unavailable { peer: peer.to_string(), message: message.to_string() }
}

/// A worker whose answer makes no sense: a different release or a bug; rerunning cannot help.
fn malformed(peer: &str, what: &str) -> Error {
    Error::Refused { peer: peer.to_string(), message: format!("{what}: run the same leaper release everywhere") }
}

impl<'a> ClusterHost<'a> {
    /// Connects to `addresses` and checks, before any work, that each answers, speaks this
    /// format, and does not belong to another job.
    /// The display learns the straggler through `named`.
    pub fn connect(
        addresses: &[String],
        credentials: &Credentials,
        job: &'a mut SweepCheckpoints,
        (plan, named): (ClusterPlan, straggler::Named),
        patience: Duration,
    ) -> anyhow::Result<Self> {
        let (runtime, clients, identities) = connect_workers(addresses, credentials, job.job().id())?;
        let workers = addresses.len();
        Ok(ClusterHost {
            runtime,
            addresses: addresses.to_vec(),
            clients,
            job,
            plan,
            patience,
            pass: 0,
            moduli: Moduli::saturating(),
            layers_merged: 0,
            layers: vec![None; workers],
            committed_merged: 0,
            committed_layers: vec![None; workers],
            seed: Vec::new(),
            generation: 0,
            threads: identities.iter().map(|worker| worker.threads).collect(),
            ids: identities.into_iter().map(|worker| worker.id).collect(),
            shares: ShareWindow::default(),
            straggler: None,
            named,
        })
    }

    fn job_id(&self) -> String {
        self.job.job().id().to_string()
    }

    fn layout(&self) -> RecordLayout {
        RecordLayout::new(self.plan.key_words, self.moduli.len())
    }

    /// Prepares every worker at the committed step.
    fn prepare_all(&mut self) -> Result<()> {
        // Unique across attempts and coordinator restarts.
        self.generation = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(self.generation + 1, |d| d.as_nanos() as u64)
            .max(self.generation + 1);
        let requests: Vec<PrepareRequest> = (0..self.addresses.len())
            .map(|index| {
                let layer = self.committed_layers[index].as_ref();
                PrepareRequest {
                    job_id: self.job_id(),
                    format_version: FORMAT_VERSION,
                    problem: self.plan.problem.clone(),
                    params: self.plan.params.clone(),
                    key_words: self.plan.key_words as u32,
                    key_layout: self.plan.key_layout.clone(),
                    key_format: Some(self.plan.key_format),
                    buckets: self.plan.buckets as u32,
                    workers: self.addresses.clone(),
                    index: index as u32,
                    pass: self.pass as u32,
                    moduli: self.moduli.values().to_vec(),
                    mem_limit: self.plan.mem_limit,
                    layers_merged: self.committed_merged,
                    layer_number: layer.map_or(0, |l| l.number),
                    files: layer.map_or(Vec::new(), |l| l.files.iter().map(record_to_wire).collect()),
                    generation: self.generation,
                }
            })
            .collect();
        self.call_all(requests, |mut client, request| async move { client.prepare(request).await })?;
        self.layers_merged = self.committed_merged;
        self.layers = self.committed_layers.clone();
        if self.layers_merged == 0 && !self.seed.is_empty() {
            self.push_seed()?;
        }
        Ok(())
    }

    /// Sends the start state to the owner of its bucket and merges it on every worker.
    fn push_seed(&mut self) -> Result<()> {
        let workers = self.addresses.len();
        let bucket = bucket_of_words(&self.seed[..self.plan.key_words], self.plan.buckets);
        let owner = bucket % workers;
        let batch = encode_batch(
            &self.job_id(),
            self.generation,
            0,
            &[BatchSection { bucket, records: self.seed.clone(), merged: false }],
            self.layout(),
        );
        let mut client = self.clients[owner].clone();
        let address = self.addresses[owner].clone();
        self.runtime
            .block_on(async move { client.push(tokio_stream::iter(vec![batch])).await })
            .map_err(|e| from_status(&address, &e))?;
        let expected: Vec<u64> = (0..workers).map(|w| u64::from(w == owner)).collect();
        self.merge_all(&expected)?;
        Ok(())
    }

    /// Calls every worker at once with its request; fails with the first worker that fails.
    fn call_all<Q, R, F, Fut>(&self, requests: Vec<Q>, call: F) -> Result<Vec<R>>
    where
        Q: Send + 'static,
        R: Send + 'static,
        F: Fn(Client, Q) -> Fut,
        Fut: std::future::Future<Output = std::result::Result<tonic::Response<R>, tonic::Status>> + Send + 'static,
    {
        let calls: Vec<_> = self
            .clients
            .iter()
            .zip(requests)
            .map(|(client, request)| self.runtime.spawn(call(client.clone(), request)))
            .collect();
        let watch = watch_heartbeats(self.clients.clone(), self.addresses.clone(), self.job_id());
        self.runtime.block_on(async {
            let replies = async {
                let mut replies = Vec::with_capacity(calls.len());
                for (address, call) in self.addresses.iter().zip(calls) {
                    let reply = call.await.map_err(|e| worker_error(address, e))?;
                    replies.push(reply.map_err(|e| from_status(address, &e))?.into_inner());
                }
                Ok(replies)
            };
            tokio::select! {
                replies = replies => replies,
                failure = watch => Err(failure),
            }
        })
    }

    fn merge_all(&mut self, expected: &[u64]) -> Result<LayerSummary> {
        let requests = expected
            .iter()
            .map(|&expected_records| MergeRequest {
                job_id: self.job_id(),
                layers_merged: self.layers_merged,
                expected_records,
            })
            .collect();
        let replies = self.call_all(requests, |mut client, request| async move { client.merge(request).await })?;
        let mut summary = LayerSummary::default();
        for (slot, reply) in self.layers.iter_mut().zip(replies) {
            summary.states += reply.states;
            summary.bytes += reply.bytes;
            summary.spilled_bytes += reply.spilled_bytes;
            *slot = Some(layer_from_merge(&reply));
        }
        self.layers_merged += 1;
        Ok(summary)
    }

    fn try_step(&mut self, cell: usize) -> Result<StepOutcome> {
        let requests = (0..self.addresses.len())
            .map(|_| ExpandRequest { job_id: self.job_id(), layers_merged: self.layers_merged, cell: cell as u32 })
            .collect();
        let expanding = Instant::now();
        let replies = self.call_all(requests, |mut client, request| async move { client.expand(request).await })?;
        let expand_seconds = expanding.elapsed().as_secs_f64();
        let width = self.moduli.len();
        let mut outcome = StepOutcome { closed: vec![0; self.plan.slots * width], ..StepOutcome::default() };
        let mut expected = vec![0u64; self.addresses.len()];
        for (address, reply) in self.addresses.iter().zip(&replies) {
            if reply.closed.len() != outcome.closed.len() || reply.sent.len() != expected.len() {
                return Err(malformed(address, "a malformed expand reply"));
            }
            for (total, closed) in outcome.closed.chunks_mut(width).zip(reply.closed.chunks(width)) {
                self.moduli.add_assign(total, closed);
            }
            outcome.read += reply.read;
            outcome.emitted += reply.emitted;
            outcome.handed += reply.handed;
            for (sum, sent) in expected.iter_mut().zip(&reply.sent) {
                *sum += sent;
            }
            if reply.sent.iter().sum::<u64>() != reply.handed || reply.handed > reply.emitted {
                return Err(malformed(address, "sent a different number of records than it handed on"));
            }
            if !reply.wait_micros.is_empty() && reply.wait_micros.len() != expected.len() {
                return Err(malformed(address, "a malformed expand reply"));
            }
        }
        self.observe_shares(&replies);
        StepShuffle::of(&replies, &self.threads, expand_seconds).log(self.layers_merged);
        outcome.layer = self.merge_all(&expected)?;
        Ok(outcome)
    }

    /// Each worker's share of the step just run, into the window; the straggler named (or no
    /// longer) in the logs and the display when that changes.
    fn observe_shares(&mut self, replies: &[ExpandReply]) {
        let times: Vec<StepTimes> = replies
            .iter()
            .map(|reply| StepTimes { expand_micros: reply.expand_micros, wait_micros: &reply.wait_micros })
            .collect();
        self.shares.observe(straggler::step_shares(&times));
        let now = Straggler::among(&self.shares.totals());
        let index = now.map(|straggler| straggler.index);
        if index != self.straggler {
            match now {
                Some(straggler) => {
                    let address = &self.addresses[straggler.index];
                    tracing::warn!("{} (a slow link or machine)", straggler.describe(address));
                }
                None => tracing::info!("no worker is much slower than the others now"),
            }
            self.straggler = index;
        }
        let label = now.map(|straggler| straggler.label(&self.addresses[straggler.index]));
        *self.named.lock().unwrap_or_else(|e| e.into_inner()) = label;
    }

    /// The workers that do not answer Info within 5 s, by index.
    fn silent_workers(&self) -> Vec<usize> {
        let calls: Vec<_> = self
            .clients
            .iter()
            .map(|client| {
                let mut client = client.clone();
                self.runtime.spawn(async move {
                    matches!(tokio::time::timeout(Duration::from_secs(5), client.info(InfoRequest {})).await, Ok(Ok(_)))
                })
            })
            .collect();
        self.runtime.block_on(async {
            let mut silent = Vec::new();
            for (index, call) in calls.into_iter().enumerate() {
                if !call.await.unwrap_or(false) {
                    silent.push(index);
                }
            }
            silent
        })
    }

    /// `workers` by address, for messages.
    fn named_workers(&self, workers: &[usize]) -> String {
        let addresses: Vec<&str> = workers.iter().map(|&w| self.addresses[w].as_str()).collect();
        format!("{} {}", if addresses.len() == 1 { "worker" } else { "workers" }, addresses.join(", "))
    }

    /// After a failure: wait until every worker answers, saying whom it waits for, then prepare
    /// them all again from the last committed layer.
    fn recover(&mut self, failure: &Error) -> Result<()> {
        tracing::warn!(error = %failure, "step aborted; waiting for every worker to answer, then rerunning it from the last committed layer");
        let started = Instant::now();
        let deadline = started + self.patience;
        // Whom it last said it waits for, and when.
        let mut told: Option<(Vec<usize>, Instant)> = None;
        loop {
            let silent = self.silent_workers();
            crate::waiting::set(silent.iter().map(|&w| self.addresses[w].clone()).collect());
            if silent.is_empty() {
                if told.is_some() {
                    tracing::warn!(
                        "every worker answers again after {} s; rerunning the step from the last committed layer",
                        started.elapsed().as_secs()
                    );
                }
                return self.prepare_all();
            }
            if Instant::now() > deadline {
                crate::waiting::set(Vec::new());
                return Err(Error::Unavailable {
                    peer: self.named_workers(&silent),
                    message: format!(
                        "did not answer within {} s after: {failure}; restart it and run `leaper resume --job-dir \
                         DIR` (add `--workers` with every worker's address, in the job's order, if one now has \
                         another)",
                        self.patience.as_secs()
                    ),
                });
            }
            if told.as_ref().is_none_or(|(whom, at)| *whom != silent || at.elapsed() >= WAITING_NOTICE) {
                tracing::warn!(
                    "waiting for {} to answer ({} s so far; the job waits up to {} s, then stops)",
                    self.named_workers(&silent),
                    started.elapsed().as_secs(),
                    self.patience.as_secs()
                );
                told = Some((silent, Instant::now()));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The workers of a checkpoint are this run's: as many, and each place held by the same
    /// worker (its id, where the checkpoint records it), at the checkpoint's address or, a worker
    /// that moved, at another.
    fn check_same_workers(&self, committed: &[WorkerLayer]) -> Result<()> {
        let listed = || committed.iter().map(|w| w.address.as_str()).collect::<Vec<_>>().join(",");
        if committed.len() != self.addresses.len() {
            return Err(Error::InvalidRequest(format!(
                "the committed layer lies on {} workers, this run names {}: resume with the job's workers, in its \
                 order (the checkpoint's: {})",
                committed.len(),
                self.addresses.len(),
                listed()
            )));
        }
        for (place, (worker, (address, id))) in committed.iter().zip(self.addresses.iter().zip(&self.ids)).enumerate() {
            match &worker.id {
                Some(recorded) if recorded != id => {
                    return Err(Error::InvalidRequest(format!(
                        "worker {address} (id {id}) is not the worker that holds part {} of the committed layer (id \
                         {recorded}, at {} when it committed): give the job's workers in its order (the \
                         checkpoint's: {}), each at its address now",
                        place + 1,
                        worker.address,
                        listed()
                    )));
                }
                None if &worker.address != address => {
                    return Err(Error::InvalidRequest(format!(
                        "the checkpoint's workers differ from this run's --workers, and it does not record who they \
                         are (a checkpoint of an older leaper): resume with the same workers in the same order ({})",
                        listed()
                    )));
                }
                Some(_) if &worker.address != address => {
                    tracing::info!(worker = place + 1, from = %worker.address, to = %address, "a worker of the job moved");
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// After a failure: a job that never committed a step frees its workers (they were claimed
    /// by Prepare), so that a failed start leaves nothing behind on them.
    pub fn release_if_uncommitted(&self) {
        if !has_commits(self.job.job().path()) {
            self.release_workers();
        }
    }

    /// Tells every worker the job is over, so that their data directories are free again.
    pub fn release_workers(&self) {
        release_all(&self.runtime, &self.clients, &self.addresses, &self.job_id());
    }

    /// Runs `operation`, recovering and retrying after a transient failure; a refusal or a bug
    /// stops the job at once.
    fn with_retries<T>(&mut self, mut operation: impl FnMut(&mut Self) -> Result<T>) -> Result<T> {
        let mut attempt = 1;
        loop {
            match operation(self) {
                Ok(value) => return Ok(value),
                Err(error) if error.is_retryable() && attempt < ATTEMPTS => {
                    attempt += 1;
                    self.recover(&error)?;
                }
                Err(error) => return Err(error),
            }
        }
    }
}

impl SweepHost for ClusterHost<'_> {
    fn begin_pass(&mut self, moduli: &Moduli, progress: &SweepProgress) -> Result<()> {
        self.job.check_moduli(moduli, progress)?;
        self.pass = progress.pass;
        self.moduli = moduli.clone();
        self.seed.clear();
        let committed = self.job.manifest().filter(|_| progress.next_cell > 0).map(|m| m.workers.clone());
        match committed {
            Some(workers) => {
                self.check_same_workers(&workers)?;
                self.committed_merged = progress.next_cell as u64 + 1;
                self.committed_layers = workers.into_iter().map(|w| w.layer).collect();
            }
            None => {
                self.committed_merged = 0;
                self.committed_layers = vec![None; self.addresses.len()];
            }
        }
        self.with_retries(|host| host.prepare_all())?;
        // Every worker holds its part of the committed layer: the resume is certain.
        self.job.remove_leftovers()
    }

    fn seed(&mut self, record: &[u64]) -> Result<()> {
        self.seed = record.to_vec();
        self.with_retries(|host| if host.layers_merged == 0 { host.push_seed() } else { Ok(()) })
    }

    fn step(&mut self, cell: usize, _moduli: &Moduli) -> Result<StepOutcome> {
        self.with_retries(|host| host.try_step(cell))
    }

    fn commit(&mut self, progress: &SweepProgress) -> Result<()> {
        let mid_pass = progress.next_cell > 0;
        let shares = self.shares.totals();
        let workers = self
            .addresses
            .iter()
            .zip(&self.layers)
            .enumerate()
            .map(|(index, (address, layer))| WorkerLayer {
                address: address.clone(),
                layer: layer.clone().filter(|_| mid_pass),
                id: Some(self.ids[index].clone()),
                share_micros: shares.get(index).copied(),
            })
            .collect();
        self.job.commit_cluster(progress, workers)?;
        self.committed_merged = self.layers_merged;
        self.committed_layers = self.layers.clone();
        let requests = (0..self.addresses.len())
            .map(|_| ReleaseRequest { job_id: self.job_id(), layers_merged: self.layers_merged })
            .collect();
        // A release that fails leaves an old layer behind, which the next Prepare removes.
        if let Err(error) = self.call_all(requests, |mut client, request| async move { client.release(request).await })
        {
            tracing::warn!(%error, "a worker could not delete an older layer");
        }
        Ok(())
    }

    fn end_pass(&mut self, job_finished: bool) -> Result<()> {
        let requests =
            (0..self.addresses.len()).map(|_| EndPassRequest { job_id: self.job_id(), job_finished }).collect();
        self.call_all(requests, |mut client, request| async move { client.end_pass(request).await })?;
        Ok(())
    }
}

/// Polls every worker until one misses `MISSED_HEARTBEATS` heartbeats in a row; returns that
/// failure. Any answer counts, even a refusal: the worker is alive.
async fn watch_heartbeats(clients: Vec<Client>, addresses: Vec<String>, job_id: String) -> Error {
    let mut missed = vec![0; clients.len()];
    loop {
        tokio::time::sleep(HEARTBEAT).await;
        for ((client, address), missed) in clients.iter().zip(&addresses).zip(missed.iter_mut()) {
            let mut client = client.clone();
            let beat = client.heartbeat(HeartbeatRequest { job_id: job_id.clone() });
            let alive = match tokio::time::timeout(HEARTBEAT, beat).await {
                Ok(Ok(_)) => true,
                Ok(Err(status)) => status.code() != tonic::Code::Unavailable,
                Err(_) => false,
            };
            *missed = if alive { 0 } else { *missed + 1 };
            if *missed >= MISSED_HEARTBEATS {
                return worker_error(
                    address,
                    format!(
                        "missed {MISSED_HEARTBEATS} heartbeats ({} s without an answer)",
                        (HEARTBEAT * 3).as_secs()
                    ),
                );
            }
        }
    }
}
