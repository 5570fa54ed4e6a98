//! Buckets deduplicated on cluster workers, for tools (`leaper tours dedupe --workers`): each
//! bucket goes to the worker that owns it (bucket number modulo the workers), which sorts it and
//! sends back the first record of every key. A call that fails is sent again to the next worker;
//! a refusal stops the tool.

use std::time::Duration;

use anyhow::Result as AnyResult;
use leaper_core::engine::dedupe::{BucketDeduper, Shape};
use leaper_core::{Error, Result};
use leaper_proto::client::{Client, Credentials};
use leaper_proto::convert::{decode_record_chunk, encode_record_chunks, from_status};
use tokio::runtime::Runtime;

use crate::workers::connect_workers;

/// Times a bucket is offered around the workers before the tool gives up.
const ROUNDS: usize = 3;
/// How long a failed worker rests before the bucket goes to the next.
const RETRY_PAUSE: Duration = Duration::from_secs(1);

pub struct RemoteBuckets {
    runtime: Runtime,
    addresses: Vec<String>,
    clients: Vec<Client>,
    threads: usize,
}

impl RemoteBuckets {
    /// Connects to the workers with the checks every job makes (format, not another job's,
    /// listed once); `purpose` names the run in their refusals.
    pub fn connect(addresses: &[String], credentials: &Credentials, purpose: &str) -> AnyResult<RemoteBuckets> {
        let (runtime, clients, workers) = connect_workers(addresses, credentials, purpose)?;
        let threads = workers.iter().map(|worker| worker.threads as usize).sum::<usize>().max(1);
        Ok(RemoteBuckets { runtime, addresses: addresses.to_vec(), clients, threads })
    }

    /// Worker number `which` (of the owner's rota) deduplicates the bucket.
    fn call(&self, which: usize, bucket: &str, shape: Shape, records: &[u8]) -> Result<Vec<Vec<u8>>> {
        let (address, client) = (&self.addresses[which], &self.clients[which]);
        let chunks = encode_record_chunks(bucket, shape.key_len, shape.payload_len, shape.record_len(), records);
        let width = shape.payload_len + 8;
        self.runtime.block_on(async {
            let mut client = client.clone();
            let answer =
                client.distinct_bucket(tokio_stream::iter(chunks)).await.map_err(|s| from_status(address, &s))?;
            let mut stream = answer.into_inner();
            let mut survivors = Vec::new();
            while let Some(chunk) = stream.message().await.map_err(|s| from_status(address, &s))? {
                let raw = decode_record_chunk(&chunk).map_err(|s| from_status(address, &s))?;
                if raw.len() % width != 0 {
                    return Err(Error::Refused {
                        peer: address.clone(),
                        message: format!("survivors of {} bytes, not whole {width}-byte records", raw.len()),
                    });
                }
                survivors.extend(raw.chunks_exact(width).map(<[u8]>::to_vec));
            }
            Ok(survivors)
        })
    }
}

impl BucketDeduper for RemoteBuckets {
    fn dedupe(&self, bucket: &str, shape: Shape, records: Vec<u8>) -> Result<Vec<Vec<u8>>> {
        // The bucket's owner first, then the others in turn.
        let owner =
            bucket.bytes().fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize)) % self.clients.len();
        let mut last = None;
        for attempt in 0..ROUNDS * self.clients.len() {
            let which = (owner + attempt) % self.clients.len();
            match self.call(which, bucket, shape, &records) {
                Ok(survivors) => return Ok(survivors),
                Err(error) if error.is_retryable() => {
                    tracing::warn!(worker = %self.addresses[which], bucket, %error, "a bucket failed; it goes to the next worker");
                    std::thread::sleep(RETRY_PAUSE);
                    last = Some(error);
                }
                Err(refusal) => return Err(refusal),
            }
        }
        Err(last.unwrap_or_else(|| Error::Bug("no worker to send a bucket to".into())))
    }

    fn concurrency(&self) -> usize {
        self.threads
    }
}
