//! The coordinator's `/metrics` (served with the status service on `--listen`; see
//! `leaper_proto::metrics`): every figure is `leaper status --job-dir`'s, read the same way at
//! each scrape ([`Status::read`]), so that the two never disagree; the process's memory and the
//! workers it waits for (`waiting`) are the only figures status does not show.
//!
//! A sweep on three workers, the second slower than the others, scraped at its 17th step:
//!
//! ```text
//! leaper_pass 1                         leaper_states_read_total 1234567
//! leaper_passes 1                       leaper_step_seconds_total 12.5
//! leaper_step 17                        leaper_states_read_per_second 98765.4
//! leaper_steps 48                       leaper_eta_seconds 31.0
//! leaper_layer_states 40321             leaper_resident_bytes 52428800
//! leaper_layer_bytes 161284
//! leaper_cluster_worker_state{worker="10.0.0.2:7101",state="up"} 1.0
//! leaper_cluster_worker_state{worker="10.0.0.3:7101",state="straggling"} 1.0
//! ...
//! ```
//!
//! Each worker has one series per state (`up`, `waiting`, `straggling`), 1 for the one it is
//! in: waiting (the job waits for it to answer again after a failed step) before straggling
//! (much slower than the others over the last steps), straggling before up.

use std::path::Path;

use anyhow::Result;
use leaper_proto::metrics::{Exposition, Labels, Unit};

use crate::status::{Status, SubtreeStatus, SweepStatus};

/// The states a worker of a cluster job is shown in.
const WORKER_STATES: [&str; 3] = ["up", "waiting", "straggling"];

/// The text of one scrape of the job in `dir`.
pub fn render(dir: &Path) -> Result<String> {
    let status = Status::read(dir)?;
    let mut out = Exposition::default();
    let state = status.state();
    let job = vec![("job".to_string(), status.job().to_string()), ("state".to_string(), state.to_string())];
    out.labelled_gauge(
        "leaper_job",
        "The job served, by id, and its state (running, stopped, finished)",
        &[(job, 1.0)],
    );
    match &status {
        Status::Sweep(sweep) => sweep_figures(sweep, &crate::waiting::now(), &mut out),
        Status::Subtree(subtree) => subtree_figures(subtree, &mut out),
    }
    if let Some(resident) = leaper_core::heap::resident_bytes() {
        out.gauge("leaper_resident", "The coordinator's resident memory", Some(Unit::Bytes), resident);
    }
    Ok(out.encode())
}

fn sweep_figures(status: &SweepStatus, waiting: &[String], out: &mut Exposition) {
    out.gauge("leaper_pass", "The pass under way, from 1 (0 before the first checkpoint)", None, status.pass as u64);
    out.gauge("leaper_passes", "Passes the sweep runs, as far as known", None, status.passes as u64);
    out.gauge("leaper_step", "Steps committed in this pass", None, status.cells_done as u64);
    out.gauge("leaper_steps", "Steps of a pass", None, status.cells as u64);
    out.gauge("leaper_layer_states", "States of the committed layer, on every worker", None, status.states);
    out.gauge("leaper_layer", "Bytes on disk of the committed layer, on every worker", Some(Unit::Bytes), status.bytes);
    out.counter(
        "leaper_states_read",
        "States read by the committed steps, over every pass",
        None,
        status.states_processed,
    );
    out.counter(
        "leaper_step",
        "Time spent in committed steps, over every run",
        Some(Unit::Seconds),
        status.step_seconds,
    );
    out.gauge("leaper_states_read_per_second", "States read per second of steps, over the job", None, status.rate);
    if let Some(eta) = status.eta_seconds {
        out.gauge(
            "leaper_eta",
            "Seconds left, as the live display and leaper status estimate",
            Some(Unit::Seconds),
            eta,
        );
    }
    if !status.workers.is_empty() {
        out.labelled_gauge(
            "leaper_cluster_worker_state",
            "Each worker of the job: 1 for the state it is in (up, waiting: the job waits for it to answer \
             again, straggling: much slower than the others), 0 for the others",
            &worker_states(status, waiting),
        );
    }
}

/// One series per worker and state (see the module's docs).
fn worker_states(status: &SweepStatus, waiting: &[String]) -> Vec<(Labels, f64)> {
    let mut series = Vec::new();
    for address in &status.workers {
        let now = if waiting.contains(address) {
            "waiting"
        } else if status.straggler.as_ref() == Some(address) {
            "straggling"
        } else {
            "up"
        };
        for state in WORKER_STATES {
            let labels = vec![("worker".to_string(), address.clone()), ("state".to_string(), state.to_string())];
            series.push((labels, if state == now { 1.0 } else { 0.0 }));
        }
    }
    series
}

fn subtree_figures(status: &SubtreeStatus, out: &mut Exposition) {
    out.gauge("leaper_shards_done", "Shards finished", None, status.shards_done as u64);
    out.gauge("leaper_shards", "Shards of the job", None, status.shards as u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_waited_for_is_waiting_even_when_it_straggles() {
        let status = SweepStatus {
            workers: vec!["a:1".into(), "b:1".into(), "c:1".into()],
            straggler: Some("b:1".into()),
            ..SweepStatus::default()
        };
        let states = |waiting: &[String]| -> Vec<(String, String)> {
            worker_states(&status, waiting)
                .into_iter()
                .filter(|(_, value)| *value == 1.0)
                .map(|(labels, _)| (labels[0].1.clone(), labels[1].1.clone()))
                .collect()
        };
        let pairs =
            |list: &[(&str, &str)]| list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        assert_eq!(states(&[]), pairs(&[("a:1", "up"), ("b:1", "straggling"), ("c:1", "up")]));
        assert_eq!(
            states(&["b:1".into(), "c:1".into()]),
            pairs(&[("a:1", "up"), ("b:1", "waiting"), ("c:1", "waiting")])
        );
        assert_eq!(worker_states(&status, &[]).len(), 9, "every worker has a series per state");
    }
}
