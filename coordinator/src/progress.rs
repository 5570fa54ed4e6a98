//! Progress logs: one tracing event per step, inside the `job` span (job) and the sweep's `step`
//! span (pass, step, row, col), with states in and out, bytes, rate and an ETA.

use std::time::Duration;

use leaper_core::engine::sweep::StepReport;

/// Turns step reports into log events.
#[derive(Default)]
pub struct Progress {
    states: u64,
    seconds: f64,
}

impl Progress {
    pub fn step(&mut self, step: &StepReport) {
        self.states += step.states_in;
        self.seconds += step.elapsed.as_secs_f64();
        let rate = self.states as f64 / self.seconds.max(1e-9);
        let remaining = remaining_steps(step.pass, step.passes, step.step, step.steps, step.layer.states);
        let eta = eta(remaining, step.layer.states, rate);
        tracing::info!(
            states_in = step.states_in,
            states_out = step.layer.states,
            bytes = step.layer.bytes,
            spilled = step.layer.spilled_bytes,
            seconds = format!("{:.2}", step.elapsed.as_secs_f64()),
            rate = rate as u64,
            eta = %eta.map_or("-".to_string(), format_duration),
            peak_rss = crate::memory::peak_rss_bytes().unwrap_or(0),
            "step done"
        );
    }
}

/// Steps left after `cell` of `pass` (none once the layer has emptied: the pass is over).
pub fn remaining_steps(pass: usize, passes: usize, cell: usize, cells: usize, states: u64) -> u64 {
    let in_pass = if states == 0 { 0 } else { cells.saturating_sub(cell + 1) };
    (in_pass + passes.saturating_sub(pass + 1) * cells) as u64
}

/// Time for `steps` more steps if layers stay at `states` states and the rate holds: an
/// estimate, since layers grow and shrink along the board.
pub fn eta(steps: u64, states: u64, rate: f64) -> Option<Duration> {
    (rate > 0.0).then(|| Duration::from_secs_f64(steps as f64 * states.max(1) as f64 / rate))
}

/// `1h02m03s`, `4m05s`, `6s`.
pub fn format_duration(duration: Duration) -> String {
    let s = duration.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, min, sec) => format!("{min}m{sec:02}s"),
        (h, min, sec) => format!("{h}h{min:02}m{sec:02}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etas_count_the_steps_left_in_every_pass() {
        assert_eq!(remaining_steps(0, 1, 9, 10, 5), 0);
        assert_eq!(remaining_steps(0, 2, 4, 10, 5), 15);
        assert_eq!(remaining_steps(0, 2, 4, 10, 0), 10);
        assert_eq!(eta(10, 100, 50.0), Some(Duration::from_secs(20)));
        assert_eq!(eta(10, 100, 0.0), None);
        assert_eq!(format_duration(Duration::from_secs(3723)), "1h02m03s");
        assert_eq!(format_duration(Duration::from_secs(245)), "4m05s");
        assert_eq!(format_duration(Duration::from_secs(6)), "6s");
    }
}
