//! The straggler: a worker of a cluster sweep much slower than the others (a slow link, a slow
//! or busy machine), named in the live display, the logs and `leaper status`.
//!
//! Every step, each worker's Expand reply says how long its expansion took and, per peer, how
//! long it waited for that peer to take the states sent to it (`ExpandReply.wait_micros`).
//! A worker's share of the step is its own work, the expansion less its waits, plus the time
//! its link held the shuffle up: the least, over its peers, of the waits between it and that
//! peer both ways. A slow link makes every stream through it wait; a worker whose link is fast
//! has at least one peer it exchanged states with at once. For example, three workers, the
//! third's link at 1 Mbit/s (seconds of one step):
//!
//! ```text
//!           expand   waits on w0  w1   w2    own work   link                      share
//!   w0        4.1             -   0.0  3.9   0.2        min(0.0+0.0, 3.9+1.9) 0   0.2
//!   w1        4.0           0.0   -    3.8   0.2        min(0.0+0.0, 3.8+2.0) 0   0.2
//!   w2        4.3           1.9   2.0  -     0.4        min(5.8, 5.8)         5.8 6.2
//! ```
//!
//! Every worker's expansion took four seconds, but the third is the one that made it so. Shares
//! are summed over the last [`WINDOW`] steps, so that one step's noise names no one; a worker
//! is a straggler when its sum is at least [`FACTOR`] times the median of the others' and
//! [`FLOOR`] more. With two workers a slow link is both workers' (each waits on the other):
//! only a slow machine is named.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Steps whose shares are summed.
pub const WINDOW: usize = 8;
/// How many times the others' time a straggler takes.
pub const FACTOR: u64 = 3;
/// How much more than the others' time a straggler takes, over the window.
pub const FLOOR: Duration = Duration::from_secs(1);

/// What one worker said of one step: its expansion's time and its waits on each worker (by
/// index; empty from a worker of a release that did not send them).
pub struct StepTimes<'a> {
    pub expand_micros: u64,
    pub wait_micros: &'a [u64],
}

/// Each worker's share of a step, in microseconds (see the module's example).
pub fn step_shares(times: &[StepTimes]) -> Vec<u64> {
    let wait = |from: usize, to: usize| times[from].wait_micros.get(to).copied().unwrap_or(0);
    (0..times.len())
        .map(|worker| {
            let waited: u64 = (0..times.len()).filter(|&peer| peer != worker).map(|peer| wait(worker, peer)).sum();
            let own = times[worker].expand_micros.saturating_sub(waited);
            let link = (0..times.len())
                .filter(|&peer| peer != worker)
                .map(|peer| wait(worker, peer) + wait(peer, worker))
                .min()
                .unwrap_or(0);
            own + link
        })
        .collect()
}

/// The shares of the last [`WINDOW`] steps, summed per worker.
#[derive(Default)]
pub struct ShareWindow {
    steps: VecDeque<Vec<u64>>,
}

impl ShareWindow {
    pub fn observe(&mut self, shares: Vec<u64>) {
        if self.steps.len() == WINDOW {
            self.steps.pop_front();
        }
        self.steps.push_back(shares);
    }

    /// Per worker, its shares summed over the window (empty before the first step).
    pub fn totals(&self) -> Vec<u64> {
        let workers = self.steps.iter().map(Vec::len).max().unwrap_or(0);
        (0..workers).map(|w| self.steps.iter().map(|step| step.get(w).copied().unwrap_or(0)).sum()).collect()
    }
}

/// A worker much slower than the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Straggler {
    /// Its place in `--workers`.
    pub index: usize,
    /// Its share of the window's steps, and the median of the others', in microseconds.
    pub micros: u64,
    pub others_micros: u64,
}

impl Straggler {
    /// The worker among `totals` (each worker's share of the same steps) much slower than the
    /// others, if one is: at least [`FACTOR`] times the median of the others and [`FLOOR`] more.
    pub fn among(totals: &[u64]) -> Option<Straggler> {
        if totals.len() < 2 {
            return None;
        }
        let (index, &micros) = totals.iter().enumerate().max_by_key(|&(_, micros)| micros)?;
        let mut others: Vec<u64> = totals.iter().enumerate().filter(|&(w, _)| w != index).map(|(_, &m)| m).collect();
        others.sort_unstable();
        // The lower median: of two others, the faster.
        let others_micros = others[(others.len() - 1) / 2];
        let slow = micros >= FACTOR * others_micros && micros >= others_micros + FLOOR.as_micros() as u64;
        slow.then_some(Straggler { index, micros, others_micros })
    }

    /// How many times the others' time it takes.
    pub fn times(&self) -> f64 {
        self.micros as f64 / self.others_micros.max(1) as f64
    }

    /// What the logs say of it, `address` being its own.
    pub fn describe(&self, address: &str) -> String {
        format!("worker {address} is the straggler: {}", self.slowness())
    }

    /// How much slower it is, in words (`leaper status` prints it after the address).
    pub fn slowness(&self) -> String {
        format!("{} the others' time over the last steps", self.ratio())
    }

    /// What the live display says of it: short, the line is a terminal's width.
    pub fn label(&self, address: &str) -> String {
        match self.others_micros {
            0 => format!("straggler {address}"),
            _ => format!("straggler {address} ({:.0}x)", self.times()),
        }
    }

    fn ratio(&self) -> String {
        if self.others_micros == 0 {
            "far more than".to_string()
        } else {
            format!("{:.0}x", self.times())
        }
    }
}

/// The straggler a cluster sweep names, shared between the host that measures it and the
/// display that shows it: the display's label, or `None`.
pub type Named = Arc<Mutex<Option<String>>>;

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: u64 = 1_000_000;

    fn times<'a>(expand: &[u64], waits: &'a [Vec<u64>]) -> Vec<StepTimes<'a>> {
        expand.iter().zip(waits).map(|(&expand_micros, w)| StepTimes { expand_micros, wait_micros: w }).collect()
    }

    #[test]
    fn a_slow_link_is_its_workers_not_the_workers_that_waited_on_it() {
        // The module's example, in tenths of a second.
        let tenth = SECOND / 10;
        let waits = [vec![0, 0, 39 * tenth], vec![0, 0, 38 * tenth], vec![19 * tenth, 20 * tenth, 0]];
        let shares = step_shares(&times(&[41 * tenth, 40 * tenth, 43 * tenth], &waits));
        assert_eq!(shares, [2 * tenth, 2 * tenth, 62 * tenth]);
        let named = Straggler::among(&shares).unwrap();
        assert_eq!((named.index, named.micros, named.others_micros), (2, 62 * tenth, 2 * tenth));
        assert_eq!(
            named.describe("h3:7101"),
            "worker h3:7101 is the straggler: 31x the others' time over the last steps"
        );
        assert_eq!(named.label("h3:7101"), "straggler h3:7101 (31x)");
    }

    #[test]
    fn a_slow_machine_is_named_and_an_even_cluster_is_not() {
        // No waits (or a worker of an older release that sends none): the expansions alone.
        let none: Vec<Vec<u64>> = vec![vec![], vec![], vec![]];
        let slow_machine = step_shares(&times(&[SECOND, 5 * SECOND, SECOND], &none));
        assert_eq!(Straggler::among(&slow_machine).map(|s| s.index), Some(1));
        let even = step_shares(&times(&[SECOND, 2 * SECOND, SECOND], &none));
        assert_eq!(Straggler::among(&even), None, "2x the others is not much slower");
        // Three times slower, but by less than the floor: steps of milliseconds name no one.
        assert_eq!(Straggler::among(&[1_000, 9_000, 1_000]), None);
        assert_eq!(Straggler::among(&[SECOND / 2, 4 * SECOND, SECOND / 2]).map(|s| s.index), Some(1));
        // One worker has no one to be slower than.
        assert_eq!(Straggler::among(&[9 * SECOND]), None);
    }

    #[test]
    fn two_workers_share_a_slow_link_and_neither_is_named() {
        // Each waited on the other for the whole step: the link is both workers'.
        let waits = [vec![0, 3 * SECOND], vec![3 * SECOND, 0]];
        let shares = step_shares(&times(&[4 * SECOND, 4 * SECOND], &waits));
        assert_eq!(shares[0], shares[1]);
        assert_eq!(Straggler::among(&shares), None);
    }

    #[test]
    fn the_window_forgets_old_steps() {
        let mut window = ShareWindow::default();
        assert!(window.totals().is_empty());
        window.observe(vec![10 * SECOND, 0, 0]);
        assert_eq!(Straggler::among(&window.totals()).map(|s| s.index), Some(0));
        for _ in 0..WINDOW {
            window.observe(vec![SECOND, SECOND, 5 * SECOND]);
        }
        assert_eq!(window.totals(), [8 * SECOND, 8 * SECOND, 40 * SECOND]);
        assert_eq!(Straggler::among(&window.totals()).map(|s| s.index), Some(2));
    }
}
