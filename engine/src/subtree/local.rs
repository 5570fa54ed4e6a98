//! Runs the pending shards of a subtree job on local threads, recording each in the ledger as it
//! finishes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use rayon::prelude::*;

use super::ledger::Ledger;
use super::{ShardResult, SubtreeProblem, Totals};
use crate::{Error, Result};

/// A finished shard, as the caller's progress report sees it.
#[derive(Clone, Debug)]
pub struct ShardDone<'a> {
    pub index: usize,
    pub label: &'a str,
    pub result: &'a ShardResult,
    /// Finished shards so far, this run and earlier ones.
    pub done: usize,
    pub total: usize,
}

/// The totals of the shards the ledger already holds (all zero without a ledger).
pub fn recorded_totals(problem: &dyn SubtreeProblem, ledger: Option<&Ledger>) -> Result<Totals> {
    let mut totals = Totals::new(problem.slots().len());
    for (&index, result) in ledger.iter().flat_map(|l| l.done()) {
        totals.add(index, result)?;
    }
    Ok(totals)
}

/// The shards the ledger does not hold yet, in plan order.
pub fn pending_shards(problem: &dyn SubtreeProblem, ledger: Option<&Ledger>) -> Vec<usize> {
    (0..problem.shard_count()).filter(|index| !ledger.is_some_and(|l| l.done().contains_key(index))).collect()
}

/// Runs every shard the ledger does not hold on `threads` threads (all cores if `None`) and
/// returns the totals over all shards. Results are recorded in the ledger one by one as they
/// arrive; `observe` sees each.
pub fn run_local(
    problem: &dyn SubtreeProblem,
    mut ledger: Option<&mut Ledger>,
    threads: Option<usize>,
    observe: &mut dyn FnMut(&ShardDone),
) -> Result<Totals> {
    let mut totals = recorded_totals(problem, ledger.as_deref())?;
    let pending = pending_shards(problem, ledger.as_deref());
    let total = problem.shard_count();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::InvalidRequest(format!("cannot start the shard threads: {e}")))?;
    let stop = AtomicBool::new(false);
    let (send, receive) = mpsc::channel::<(usize, ShardResult)>();
    std::thread::scope(|scope| {
        let stop = &stop;
        let searchers = scope.spawn(move || {
            pool.install(|| {
                pending.par_iter().with_max_len(1).try_for_each_with(send, |send, &index| {
                    if stop.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    let result = problem.run_shard(index)?;
                    let _ = send.send((index, result));
                    Ok::<(), Error>(())
                })
            })
        });
        let mut record = || -> Result<()> {
            for (index, result) in receive.iter() {
                let label = problem.shard_label(index);
                if let Some(ledger) = ledger.as_deref_mut() {
                    ledger.record(index, &label, &result)?;
                }
                totals.add(index, &result)?;
                observe(&ShardDone { index, label: &label, result: &result, done: totals.shards_done, total });
            }
            Ok(())
        };
        let recorded = record();
        if recorded.is_err() {
            stop.store(true, Ordering::Relaxed);
            drop(receive);
        }
        let searched = searchers.join().expect("shard threads do not panic");
        recorded.and(searched)
    })?;
    Ok(totals)
}
