//! The time a sweep has left, from a model of the whole run rather than of the last step.
//!
//! A step's time is about proportional to the states it reads, and the states a step reads are
//! the layer the step before produced. Layers do not keep their size: along a row they rise and
//! fall with the column (the frontier turns the corner at each end of the row), and from row to
//! row they grow fast at first, then slower, until every frontier of the width has appeared.
//! So the model predicts the rest of the layer profile column by column, from the same column
//! one row up and the last growth measured from row to row (the column's, or the latest
//! anywhere if smaller), damped: its square root for the next row, a fifth of that exponent
//! for every row after; and the last rows, which the board's end cuts down (no path may leave
//! it), by the multipliers the problem knows (`ProfileHint`; for knights, a fifth and then a
//! two-hundredth of what growth promised, then nothing):
//!
//! ```text
//! width 3, layers read so far    row 0: 1  4  9     row 1: 20  50  70     row 2: 100 ?   ?
//! latest growth                 100 / 20 = 5 (column 0, row 1 to row 2)
//! column 1                       min(50 / 4, 5) = 5 ─► damped: 5^0.5 = 2.24 ─► row 2: 50 * 2.24 = 112
//! column 2                       min(70 / 9, 5) = 5                        ─► row 2: 70 * 2.24 = 157
//! row 3 (damped again)           column 0: 100 * 5^0.1 = 117, times the end's multiplier
//! ```
//!
//! The first pass's profile is recorded in the checkpoint, so later passes (and `leaper status`)
//! know their profile exactly. Seconds per state come from the steps so far (recent steps
//! weighing more), and the ETA shown is
//! smoothed: each new estimate of the finish time moves the shown one seven tenths of the way.

use std::time::Duration;

/// How much of the measured log growth from row to row the next row keeps...
const FIRST_ROW_DAMPING: f64 = 0.5;
/// ...and how much of that each row after it keeps (fitted to knight sweeps of widths 6 to 8).
const GROWTH_DAMPING: f64 = 0.2;
/// Weight of a step in the cost per state relative to the step after it.
const COST_MEMORY: f64 = 0.9;
/// How far each new estimate of the finish moves the shown one (most of the way: a late run
/// of overestimates would otherwise linger).
const SMOOTHING: f64 = 0.7;

/// The shape of a sweep: steps per pass, passes, steps per row, and what the board's end
/// does to the last rows' layers (the problem's `ProfileHint`).
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    pub steps: usize,
    pub passes: usize,
    pub row: usize,
    /// Multipliers of the last rows' layers, the last row last.
    pub tail: Vec<f64>,
}

impl Shape {
    /// What the board's end leaves of row `row`'s layers.
    fn tail_multiplier(&self, row: usize) -> f64 {
        let rows = self.steps.div_ceil(self.row.max(1));
        let first_cut = rows.saturating_sub(self.tail.len());
        row.checked_sub(first_cut).and_then(|j| self.tail.get(j)).copied().unwrap_or(1.0)
    }
}

/// What the model knows of a sweep so far.
#[derive(Clone, Debug)]
pub struct EtaModel {
    shape: Shape,
    /// States read by each step of the first pass, as far as it is known.
    profile: Vec<u64>,
    /// Where the sweep stands: the next step, of which pass, and the states it will read.
    pass: usize,
    next_cell: usize,
    next_states: u64,
    /// `(states read, seconds)` of the steps timed in this run, oldest first.
    timed: Vec<(u64, f64)>,
    /// The finish, in seconds from the model's clock origin, as last shown.
    shown_finish: Option<f64>,
}

impl EtaModel {
    /// A model of a sweep of `shape` that stands at `next_cell` of `pass`, with the first
    /// pass's `profile` recorded so far (a checkpoint's, or empty).
    pub fn new(shape: Shape, pass: usize, next_cell: usize, profile: Vec<u64>) -> EtaModel {
        let next_states = profile.get(next_cell).copied().unwrap_or(1);
        EtaModel { shape, profile, pass, next_cell, next_states, timed: Vec::new(), shown_finish: None }
    }

    /// The sweep turned out to run `passes` passes (the exact pass saturated: residue passes
    /// follow it).
    pub fn set_passes(&mut self, passes: usize) {
        self.shape.passes = passes;
    }

    /// Learns a finished step: `cell` of `pass` read `states_in` states in `seconds` and left a
    /// layer of `states_out`.
    pub fn step(&mut self, pass: usize, cell: usize, states_in: u64, states_out: u64, seconds: f64) {
        if pass == 0 && cell == self.profile.len() {
            self.profile.push(states_in);
        }
        self.timed.push((states_in, seconds));
        let pass_over = states_out == 0 || cell + 1 >= self.shape.steps;
        (self.pass, self.next_cell) = if pass_over { (pass + 1, 0) } else { (pass, cell + 1) };
        self.next_states = if pass_over { self.profile.first().copied().unwrap_or(1) } else { states_out };
        if pass_over && pass == 0 {
            // The first pass ended early (the layer emptied): later passes end there too.
            self.shape.steps = self.profile.len();
        }
    }

    /// The states every step still to run will read, predicted.
    pub fn remaining_states(&self) -> Vec<u64> {
        if self.pass >= self.shape.passes {
            return Vec::new();
        }
        let mut states = Vec::new();
        if self.pass == 0 {
            let known = self.known_first_pass();
            states.extend_from_slice(&known[self.next_cell..]);
            for _ in 1..self.shape.passes {
                states.extend_from_slice(&known);
            }
        } else {
            states.push(self.next_states);
            states.extend_from_slice(self.profile.get(self.next_cell + 1..).unwrap_or(&[]));
            for _ in self.pass + 1..self.shape.passes {
                states.extend_from_slice(&self.profile);
            }
        }
        states
    }

    /// The first pass's profile: what is known, the next step's exactly, the rest predicted.
    /// Predictions work on the profile the board's end does not cut: a tail row's layers are
    /// divided by its known multiplier before they are measured and multiplied after.
    fn known_first_pass(&self) -> Vec<u64> {
        let row = self.shape.row.max(1);
        let multiplier = |cell: usize| self.shape.tail_multiplier(cell / row);
        let mut known: Vec<f64> = self.profile.iter().map(|&s| s as f64).collect();
        known.truncate(self.next_cell);
        known.push(self.next_states as f64);
        let mut uncut: Vec<f64> =
            known.iter().enumerate().map(|(cell, &s)| s / multiplier(cell).max(f64::MIN_POSITIVE)).collect();
        let measured = uncut.len();
        for cell in measured..self.shape.steps {
            let predicted = match cell.checked_sub(row) {
                None => uncut[cell - 1],
                Some(above) => uncut[above] * growth(&uncut[..measured], cell, row),
            };
            uncut.push(predicted);
            known.push(predicted * multiplier(cell));
        }
        known.iter().map(|&s| s.round() as u64).collect()
    }

    /// Seconds per state, over the timed steps with recent ones weighing more (a layer's cost
    /// per state drifts as it grows: hash tables, caches); `None` before any step was timed.
    fn seconds_per_state(&self) -> Option<f64> {
        let (mut states, mut seconds, mut weight) = (0.0, 0.0, 1.0);
        for &(read, took) in self.timed.iter().rev() {
            (states, seconds) = (states + weight * read as f64, seconds + weight * took);
            weight *= COST_MEMORY;
        }
        (!self.timed.is_empty()).then(|| seconds / f64::max(states, 1.0))
    }

    /// The same model, told the exact size of the next step's layer (a checkpoint's).
    pub fn with_next_states(mut self, states: u64) -> EtaModel {
        self.next_states = states;
        self
    }

    /// Seconds of work left at `seconds_per_state` (when only totals are known, as in a
    /// checkpoint).
    pub fn remaining_seconds_at(&self, seconds_per_state: f64) -> f64 {
        self.remaining_states().iter().map(|&s| s as f64 * seconds_per_state).sum()
    }

    /// Seconds of work left, unsmoothed; `None` before any step was timed.
    pub fn remaining_seconds(&self) -> Option<f64> {
        Some(self.remaining_seconds_at(self.seconds_per_state()?))
    }

    /// The ETA to show at `now` (seconds on the caller's clock) just after a step: the new
    /// estimate of the finish moves the shown one most of the way.
    pub fn update_shown(&mut self, now: f64) -> Option<Duration> {
        let finish = now + self.remaining_seconds()?;
        let shown = match self.shown_finish {
            Some(previous) if self.pass < self.shape.passes => previous + SMOOTHING * (finish - previous),
            _ => finish,
        };
        self.shown_finish = Some(shown);
        self.shown(now)
    }

    /// The ETA shown at `now`: counts down between steps.
    pub fn shown(&self, now: f64) -> Option<Duration> {
        self.shown_finish.map(|finish| Duration::from_secs_f64((finish - now).max(0.0)))
    }
}

/// The growth from one row to the next predicted at `cell`: the smaller of its column's last
/// measured growth and the latest growth measured anywhere (growth slows along a row as the
/// frontier fills up, so the latest is the freshest), its square root for the first row after
/// the measure and a fifth of the exponent again for every row further on.
fn growth(measured: &[f64], cell: usize, row: usize) -> f64 {
    let Some(latest) = measured.len().checked_sub(1).filter(|&c| c >= row) else { return 1.0 };
    let column = (row..measured.len()).rev().find(|&c| c % row == cell % row).unwrap_or(latest);
    let growth_at = |c: usize| (measured[c] / measured[c - row].max(1.0)).max(f64::MIN_POSITIVE);
    let growth = growth_at(column).min(growth_at(latest));
    let rows_on = ((cell - column) / row).max(1) as i32;
    (growth.ln() * FIRST_ROW_DAMPING * GROWTH_DAMPING.powi(rows_on - 1)).exp()
}

#[cfg(test)]
mod tests {
    use leaper_core::engine::store::memory_store;
    use leaper_core::engine::sweep::{sweep_in_process, StoreFactory, SweepOptions, SweepProgress};
    use leaper_core::engine::{Moduli, SweepJob};
    use leaper_core::problems::tours::board::{Geometry, MoveSet};
    use leaper_core::problems::tours::transfer::{tours, TourKind};

    use super::*;

    /// The layers of `job`'s sweep, step by step, as `(states read, states left)`.
    fn layers(job: &dyn SweepJob) -> Vec<(u64, u64)> {
        let mut stores = StoreFactory(|layout, moduli: &Moduli| memory_store(layout, 61, moduli.clone(), 8 << 30));
        let report = sweep_in_process(job, &SweepOptions::default(), &mut stores, SweepProgress::default()).unwrap();
        let left = report.profile.iter().skip(1).copied().chain([0]);
        report.profile.iter().copied().zip(left).collect()
    }

    /// The ETA's error at 25%, 50% and 75% of a run whose steps cost `1 ms + 0.1 µs per state`
    /// (so that only the predicted profile can be wrong): `(shown - true) / true` of the time left.
    fn errors(job: &dyn SweepJob, passes: usize) -> [f64; 3] {
        let steps = layers(job);
        let seconds = |states: u64| 1e-3 + 1e-7 * states as f64;
        let hint = job.profile_hint();
        let shape = Shape { steps: job.steps(), passes, row: hint.row, tail: hint.tail };
        let run: Vec<(usize, usize, u64, u64)> = (0..passes)
            .flat_map(|pass| steps.iter().enumerate().map(move |(cell, &(read, left))| (pass, cell, read, left)))
            .collect();
        let total: f64 = run.iter().map(|&(_, _, read, _)| seconds(read)).sum();
        let mut model = EtaModel::new(shape, 0, 0, Vec::new());
        let (mut now, mut marks) = (0.0, Vec::new());
        for (pass, cell, read, left) in run {
            now += seconds(read);
            model.step(pass, cell, read, left, seconds(read));
            let shown = model.update_shown(now).unwrap().as_secs_f64();
            let fraction = [0.25, 0.5, 0.75].get(marks.len());
            if fraction.is_some_and(|f| now >= f * total) {
                marks.push((shown - (total - now)) / (total - now));
            }
        }
        [marks[0], marks[1], marks[2]]
    }

    fn knight(width: usize, rows: usize, sweep: bool, kind: TourKind) -> Box<dyn SweepJob> {
        tours(Geometry::new(width, rows, MoveSet::knight()), if sweep { 1 } else { rows }, kind).unwrap()
    }

    #[test]
    fn the_eta_tracks_the_time_left_of_knight_sweeps() {
        // Long sweeps (the layers settle, then fall at the end) are foretold closely; a short
        // board, still growing when the end cuts it, less so. (An odd board has no closed tour:
        // its layers empty early, which no profile foretells, so none is measured here.) The wall-clock figures of real
        // runs are in docs/PERFORMANCE.md.
        let mut all = Vec::new();
        for (job, passes, within) in [
            (knight(6, 12, true, TourKind::Closed), 1, 0.15),
            (knight(6, 12, true, TourKind::Closed), 2, 0.15),
            (knight(5, 12, true, TourKind::Open), 1, 0.5),
            (knight(7, 6, false, TourKind::Closed), 1, 0.5),
            (knight(6, 8, false, TourKind::Closed), 1, 0.5),
        ] {
            let errors = errors(job.as_ref(), passes);
            let name = job.slot_name(*job.reported().end());
            eprintln!("{name}, passes: {passes}, errors at 25/50/75%: {errors:+.2?}");
            assert!(errors.iter().all(|e| e.abs() <= within), "{name}: {errors:?}");
            all.extend(errors);
        }
        let mean = all.iter().map(|e| e.abs()).sum::<f64>() / all.len() as f64;
        assert!(mean <= 0.3, "mean error {mean}");
    }

    #[test]
    fn a_second_pass_knows_its_profile_exactly() {
        let shape = Shape { steps: 4, passes: 2, row: 2, tail: Vec::new() };
        let mut model = EtaModel::new(shape, 0, 0, Vec::new());
        for (cell, (read, left)) in [(1, 5), (5, 9), (9, 4), (4, 1)].into_iter().enumerate() {
            model.step(0, cell, read, left, read as f64);
        }
        assert_eq!(model.remaining_states(), vec![1, 5, 9, 4]);
        model.step(1, 0, 1, 5, 1.0);
        assert_eq!(model.remaining_states(), vec![5, 9, 4]);
        // One second per state was all the steps ever cost.
        assert!((model.remaining_seconds().unwrap() - 18.0).abs() < 1e-6);
    }

    #[test]
    fn predictions_follow_each_column_a_row_up_and_the_known_fall() {
        // Row 0: 1 4 9; row 1: 20 50 70; next: row 2's first layer is 100. Rows 3 and 4 are cut.
        let shape = Shape { steps: 15, passes: 1, row: 3, tail: vec![0.5, 0.0] };
        let mut model = EtaModel::new(shape, 0, 0, Vec::new());
        let layers = [1, 4, 9, 20, 50, 70, 100];
        for (cell, pair) in layers.windows(2).enumerate() {
            model.step(0, cell, pair[0], pair[1], 1.0);
        }
        // Growth 5 (the latest, column 0's), damped to its square root: 50 -> 112, 70 -> 157;
        // row 3 grows by 5^0.1 more and keeps half; row 4 keeps nothing.
        assert_eq!(model.remaining_states(), [100, 112, 157, 112, 66, 92, 0, 0, 0]);
    }
}
