//! Reaching a job's workers: one network runtime, a client per worker, and the checks made
//! before any work (each answers, speaks this format, belongs to no other job, and is listed
//! once, by address and by the worker id kept in its data directory).

use std::time::Duration;

use anyhow::{bail, Context, Result};
use leaper_proto::client::{client, Client, Credentials};
use leaper_proto::v1::{EndPassRequest, InfoRequest};
use leaper_proto::FORMAT_VERSION;
use tokio::runtime::Runtime;

/// What a worker says of itself before any work.
pub struct Identity {
    /// Its expansion threads.
    pub threads: u64,
    /// The id kept in its data directory, whatever address reaches it.
    pub id: String,
}

/// Connects to `addresses` and checks, before any work, that none is listed twice, each
/// answers, speaks this format, and does not belong to another job; returns the runtime the
/// clients live on, the clients, and what each worker said of itself.
pub fn connect_workers(
    addresses: &[String],
    credentials: &Credentials,
    job_id: &str,
) -> Result<(Runtime, Vec<Client>, Vec<Identity>)> {
    let mut seen = std::collections::HashSet::new();
    if let Some(duplicate) = addresses.iter().find(|a| !seen.insert(a.as_str())) {
        bail!("worker {duplicate} is listed twice in --workers: each worker owns its own buckets");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the network runtime")?;
    // Lazy channels attach to the runtime they are made in.
    let clients = {
        let _runtime = runtime.enter();
        addresses.iter().map(|a| client(a, credentials)).collect::<leaper_core::Result<Vec<_>>>()?
    };
    let workers = runtime.block_on(async {
        let mut workers = Vec::new();
        let mut identities: std::collections::HashMap<String, (&String, String)> = Default::default();
        for (address, client) in addresses.iter().zip(&clients) {
            let info = tokio::time::timeout(Duration::from_secs(10), client.clone().info(InfoRequest {}))
                .await
                .map_err(|_| anyhow::anyhow!("worker {address} did not answer within 10 s"))?
                .map_err(|e| unreachable(address, &e, credentials))?
                .into_inner();
            if info.format_version != FORMAT_VERSION {
                bail!(
                    "worker {address} speaks format {}, this coordinator format {FORMAT_VERSION}: run the same \
                     leaper release everywhere",
                    info.format_version
                );
            }
            if !info.job_id.is_empty() && info.job_id != job_id {
                bail!(
                    "worker {address}'s data directory belongs to job {}; give job {job_id} workers with fresh \
                     data directories",
                    info.job_id
                );
            }
            if let Some((first, data_dir)) = identities.get(&info.worker_id) {
                bail!(
                    "workers {first} and {address} are the same worker (id {}, data directory {data_dir}): list each \
                     worker once in --workers",
                    info.worker_id
                );
            }
            identities.insert(info.worker_id.clone(), (address, info.data_dir.clone()));
            workers.push(Identity { threads: u64::from(info.threads.max(1)), id: info.worker_id });
        }
        Ok(workers)
    })?;
    Ok((runtime, clients, workers))
}

/// Says why a worker's first call failed, and what TLS had to do with it.
fn unreachable(address: &str, status: &tonic::Status, credentials: &Credentials) -> anyhow::Error {
    // A worker that refused the token was reached: the token is what to fix, not the address.
    if status.code() == tonic::Code::Unauthenticated {
        return anyhow::anyhow!(
            "worker {address} refused the token of --token-file ({}): give the file the worker was started with",
            status.message()
        );
    }
    match &credentials.tls_ca {
        Some(ca) => anyhow::anyhow!(
            "cannot reach worker {address} over TLS (trusting CA {}): {}",
            ca.file.display(),
            status.message()
        ),
        // Refused or unroutable connections are not about TLS; a garbled answer may be.
        None if status.message().contains("connect") => {
            anyhow::anyhow!("cannot reach worker {address}: {}", status.message())
        }
        None => anyhow::anyhow!(
            "cannot reach worker {address}: {} (a worker that serves TLS needs --tls-ca)",
            status.message()
        ),
    }
}

/// Tells every worker that job `job_id` is over, so that their data directories are free again.
/// Best effort: a worker that cannot be reached is logged, not waited for.
pub fn release_all(runtime: &Runtime, clients: &[Client], addresses: &[String], job_id: &str) {
    runtime.block_on(async {
        for (address, client) in addresses.iter().zip(clients) {
            let request = EndPassRequest { job_id: job_id.to_string(), job_finished: true };
            if let Err(error) = client.clone().end_pass(request).await {
                tracing::warn!(worker = %address, error = %error.message(), "could not release a worker");
            }
        }
    });
}
