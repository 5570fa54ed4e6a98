//! What a cluster step's shuffle moved and what it cost, from the workers' Expand replies: one
//! `shuffle` line a step (info in `--log-format json`, for collectors and `scripts/bench-shuffle`;
//! debug in text).
//!
//! Worked example: three workers, each of whose expansion took 2.0 s on the coordinator's
//! clock. Worker 1 sent 300 of its records to the others in 1,200 compressed bytes and waited
//! 0.5 s and 0.25 s on its two peers' streams; worker 2 sent 100 records in 400 bytes and waited
//! 0.1 s; worker 3 none. The step moved 1,600 bytes, 400 records over the network at 4.00 bytes a
//! record, and the shuffle held the slowest worker up for 0.75 s of the step's 2.0 s.

use leaper_proto::v1::ExpandReply;

/// One step's shuffle, summed over the workers.
#[derive(Clone, Debug, PartialEq)]
pub struct StepShuffle {
    /// Compressed bytes sent from worker to worker (a worker's records to itself stay home).
    pub bytes: u64,
    /// Records sent from worker to worker.
    pub remote_records: u64,
    /// Wall seconds of the Expand calls, the shuffle included, on the coordinator's clock.
    pub expand_seconds: f64,
    /// The most wall seconds any worker's expansion was held up by its peers' streams (a full
    /// stream, and the wait after its expansion until they took the last batch: the link's
    /// share of the step, or a slow receiver's).
    pub wait_seconds: f64,
    /// Thread time spent compressing and sending, as a share of all expansion thread time.
    pub thread_share: f64,
}

impl StepShuffle {
    /// The figures of `replies` (by worker, each worker's expansion threads in `threads`) of a
    /// step whose Expand calls took `expand_seconds`.
    pub fn of(replies: &[ExpandReply], threads: &[u64], expand_seconds: f64) -> StepShuffle {
        let bytes = replies.iter().map(|r| r.sent_bytes).sum();
        let remote_records =
            replies.iter().enumerate().map(|(w, r)| r.handed - r.sent.get(w).copied().unwrap_or(0)).sum();
        let waited = replies.iter().map(|r| r.wait_micros.iter().sum::<u64>()).max().unwrap_or(0);
        let shuffle_micros: u64 = replies.iter().map(|r| r.shuffle_micros).sum();
        let thread_micros: u64 = replies.iter().zip(threads).map(|(r, t)| r.expand_micros * t).sum();
        StepShuffle {
            bytes,
            remote_records,
            expand_seconds,
            wait_seconds: waited as f64 / 1e6,
            thread_share: shuffle_micros as f64 / thread_micros.max(1) as f64,
        }
    }

    /// Compressed bytes a record sent took on the wire.
    pub fn bytes_per_record(&self) -> f64 {
        self.bytes as f64 / self.remote_records.max(1) as f64
    }

    /// The step's `shuffle` line: numbers as numbers in JSON logs, at info; at debug in text.
    pub fn log(&self, step: u64) {
        let bytes_per_record = (self.bytes_per_record() * 100.0).round() / 100.0;
        let thread_share = (self.thread_share * 1000.0).round() / 1000.0;
        if crate::console::json_logs() {
            tracing::info!(
                step,
                shuffle_bytes = self.bytes,
                remote_records = self.remote_records,
                bytes_per_record,
                expand_seconds = self.expand_seconds,
                shuffle_wait_seconds = self.wait_seconds,
                shuffle_share = thread_share,
                "shuffle"
            );
        } else {
            tracing::debug!(
                step,
                shuffle_bytes = self.bytes,
                remote_records = self.remote_records,
                bytes_per_record,
                expand_seconds = %format!("{:.2}", self.expand_seconds),
                shuffle_wait_seconds = %format!("{:.2}", self.wait_seconds),
                shuffle_share = thread_share,
                "shuffle"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(sent: [u64; 3], sent_bytes: u64, wait_micros: [u64; 3]) -> ExpandReply {
        ExpandReply {
            sent: sent.to_vec(),
            handed: sent.iter().sum(),
            sent_bytes,
            shuffle_micros: 100_000,
            expand_micros: 2_000_000,
            wait_micros: wait_micros.to_vec(),
            ..ExpandReply::default()
        }
    }

    #[test]
    fn the_worked_example_of_the_module_docs() {
        let replies = [
            reply([50, 200, 100], 1_200, [0, 500_000, 250_000]),
            reply([60, 70, 40], 400, [100_000, 0, 0]),
            reply([0, 0, 5], 0, [0, 0, 0]),
        ];
        let step = StepShuffle::of(&replies, &[2, 2, 2], 2.0);
        assert_eq!((step.bytes, step.remote_records), (1_600, 400));
        assert_eq!(step.bytes_per_record(), 4.0);
        assert_eq!((step.expand_seconds, step.wait_seconds), (2.0, 0.75));
        // 0.3 s of sending against 3 workers * 2 threads * 2 s.
        assert!((step.thread_share - 0.025).abs() < 1e-12, "{step:?}");
    }

    #[test]
    fn a_step_that_sends_nothing_says_so() {
        let step = StepShuffle::of(&[reply([3, 0, 0], 0, [0, 0, 0])], &[2], 0.1);
        assert_eq!((step.bytes, step.remote_records, step.bytes_per_record(), step.wait_seconds), (0, 0, 0.0, 0.0));
    }
}
