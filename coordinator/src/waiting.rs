//! The workers a cluster sweep waits for (a failed step, until every worker answers again), by
//! address: set by the cluster host while it waits, read by each scrape of `/metrics`
//! (`leaper_cluster_worker_state{state="waiting"}`). Nowhere else records it: a checkpoint holds
//! committed work, not the wait between. One process runs one job, hence one list.

use std::sync::Mutex;

static WAITING: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The job now waits for `addresses` (none: it waits for no one).
pub fn set(addresses: Vec<String>) {
    *WAITING.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = addresses;
}

/// The addresses the job waits for now.
pub fn now() -> Vec<String> {
    WAITING.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
}
