//! The time a sweep has left: one estimate, shown by the live display, written in the step log
//! lines and printed by `leaper status`.
//!
//! A step's time is about a fixed share (its commit, the display) plus a cost per state it
//! reads, and the states a step reads are the layer the step before produced. So the estimate is
//! the rest of the layer profile, predicted by the layer model `leaper plan` uses
//! ([`crate::plan::model`]: growth from row to row dying out as the frontier saturates, the
//! board's end cutting the last rows), priced at the cost measured so far (recent steps weighing
//! more, as a layer's cost per state drifts as it grows):
//!
//! ```text
//! knight 7x10 --sweep after 28 of its 63 steps (rows 1-4: 241, 57,096, 1,018,658, 9,776,580)
//!   profile    row 5 grows by (9,776,580 / 1,018,658)^(2.5/7) = 2.24, row 6 by 2.24^0.15, then
//!              no more; rows 6 to 10 cut by the board's end         ─► the layers of steps 29-63
//!   cost       a step: a fixed share (what the small steps took) + the rest, ~ states^power
//!              fitted to the larger steps
//!   time left  each predicted layer priced by the cost, summed
//! ```
//!
//! A graph's sweep, one long row, is guessed from its frontier's widths instead, once the first
//! pass has measured as many steps as its widest frontier and two more, as its plan guesses it
//! ([`crate::plan::widths`]).
//!
//! Until three rows of the first pass are measured the model has nothing to go on and the
//! estimate says so ("estimating"); beyond a day it says that, and points to `leaper plan`,
//! rather than print a figure no one should trust. Later passes read the first pass's layers
//! again, so their profile is known exactly. The cost is learnt from each step's share of the
//! wall clock ([`StepReport::share`]), which a checkpoint keeps (`step_timings`): `leaper status`
//! and a resumed run start from what the running display knew.
//!
//! [`StepReport::share`]: leaper_core::engine::sweep::StepReport::share

use std::time::Duration;

use leaper_core::engine::sweep::{SweepProgress, STEP_TIMINGS_KEPT};
use leaper_core::engine::{ProfileHint, SweepJob};

use crate::plan::{model, widths};

/// Weight of a step in the cost relative to the step after it.
const COST_MEMORY: f64 = 0.9;
/// Rows of the first pass measured before the model is trusted: the second row's growth still
/// carries the start's, the third's is the first that foretells the rest.
const MEASURED_ROWS: usize = 3;
/// Beyond this, the estimate says "more than a day" and points to `leaper plan`.
const A_DAY: Duration = Duration::from_secs(24 * 3600);

/// What the display and `leaper status` say of the time left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Eta {
    /// Not enough measured yet: three rows of the first pass and one timed step.
    Estimating,
    /// The time left.
    Left(Duration),
}

impl Eta {
    /// The time left `since` after the estimate was made (a display counts down), or as it was.
    pub fn after(self, since: Duration) -> Eta {
        match self {
            Eta::Left(left) => Eta::Left(left.saturating_sub(since)),
            Eta::Estimating => Eta::Estimating,
        }
    }

    /// Seconds left, for machines (JSON logs and status); `None` while estimating.
    pub fn seconds(self) -> Option<f64> {
        match self {
            Eta::Left(left) => Some(left.as_secs_f64()),
            Eta::Estimating => None,
        }
    }

    /// `31s`, `2h05m10s`, `estimating`, `over a day, see `leaper plan``.
    pub fn text(self) -> String {
        match self {
            Eta::Estimating => "estimating".to_string(),
            Eta::Left(left) if left > A_DAY => "over a day, see `leaper plan`".to_string(),
            Eta::Left(left) => crate::numbers::format_duration(left),
        }
    }
}

/// The shape of a sweep: steps per pass, passes, and what the problem knows of its layer
/// profile (row length, the board end's cut: [`ProfileHint`]).
#[derive(Clone, Debug)]
pub struct Shape {
    pub steps: usize,
    pub passes: usize,
    pub hint: ProfileHint,
}

impl Shape {
    /// `job` swept in `passes` passes.
    pub fn of(job: &dyn SweepJob, passes: usize) -> Shape {
        Shape { steps: job.steps(), passes, hint: job.profile_hint() }
    }
}

/// The time of a step by the states it reads: `fixed` plus the rest, `exp(y + power * (ln
/// states - x))` through the point `at = (x, y)`.
#[derive(Clone, Copy, Debug)]
struct StepCost {
    fixed: f64,
    at: (f64, f64),
    power: f64,
}

impl StepCost {
    fn seconds(&self, states: u64) -> f64 {
        if states == 0 {
            return 0.0;
        }
        let (x, y) = self.at;
        self.fixed + (y + self.power * ((states as f64).ln() - x)).exp()
    }
}

/// What the estimate knows of a sweep so far.
#[derive(Clone, Debug)]
pub struct EtaModel {
    shape: Shape,
    /// States read by each step of the first pass, as far as it is known.
    profile: Vec<u64>,
    /// Where the sweep stands: the next step, of which pass, and the states it will read (where
    /// known: a resumed run learns it from its first step).
    pass: usize,
    next_cell: usize,
    next_states: Option<u64>,
    /// `(states read, seconds)` of timed steps, oldest first.
    timed: Vec<(u64, f64)>,
}

impl EtaModel {
    /// A model of a sweep of `shape` from `start`: a new sweep's default, or a checkpoint's
    /// progress with its profile and the shares of its last steps.
    pub fn new(shape: Shape, start: &SweepProgress) -> EtaModel {
        let mut model = EtaModel {
            shape,
            profile: start.profile.clone(),
            pass: start.pass,
            next_cell: start.next_cell,
            next_states: None,
            timed: Vec::new(),
        };
        if start.pass > 0 && !model.profile.is_empty() {
            // The first pass is over: later passes end where it ended.
            model.shape.steps = model.shape.steps.min(model.profile.len());
            model.next_states = model.profile.get(start.next_cell).copied();
        } else if start.next_cell == 0 {
            model.next_states = Some(1);
        }
        model.timed = model
            .committed_states()
            .into_iter()
            .rev()
            .zip(start.step_timings.iter().rev())
            .map(|(states, &micros)| (states, micros as f64 / 1e6))
            .collect();
        model.timed.reverse();
        if model.timed.is_empty() && start.states_processed > 0 {
            // A checkpoint of an older build: one step as long as all of them.
            model.timed.push((start.states_processed, start.step_micros as f64 / 1e6));
        }
        model
    }

    /// The states read by every step committed so far, oldest first.
    fn committed_states(&self) -> Vec<u64> {
        let done_in_pass = &self.profile[..self.next_cell.min(self.profile.len())];
        let whole: usize = self.pass;
        let mut states = Vec::with_capacity(whole * self.profile.len() + done_in_pass.len());
        for _ in 0..whole {
            states.extend_from_slice(&self.profile);
        }
        states.extend_from_slice(done_in_pass);
        states
    }

    /// The same model, told the exact size of the next step's layer (a checkpoint's).
    pub fn with_next_states(mut self, states: u64) -> EtaModel {
        self.next_states = Some(states);
        self
    }

    /// The sweep turned out to run `passes` passes (the exact pass saturated: residue passes
    /// follow it).
    pub fn set_passes(&mut self, passes: usize) {
        self.shape.passes = passes;
    }

    /// Learns a finished step: `cell` of `pass` read `states_in` states, left a layer of
    /// `states_out`, and took `seconds` of the wall clock (its share).
    pub fn step(&mut self, pass: usize, cell: usize, states_in: u64, states_out: u64, seconds: f64) {
        if pass == 0 && cell == self.profile.len() {
            self.profile.push(states_in);
        }
        self.timed.push((states_in, seconds));
        // As many as a checkpoint keeps: `leaper status` and a resumed run learn from the same.
        let timed = self.timed.len();
        self.timed.drain(..timed.saturating_sub(STEP_TIMINGS_KEPT));
        let pass_over = states_out == 0 || cell + 1 >= self.shape.steps;
        (self.pass, self.next_cell) = if pass_over { (pass + 1, 0) } else { (pass, cell + 1) };
        self.next_states = Some(if pass_over { self.profile.first().copied().unwrap_or(1) } else { states_out });
        if pass_over && pass == 0 {
            // The first pass ended early (the layer emptied): later passes end there too.
            self.shape.steps = cell + 1;
        }
    }

    /// The states every step still to run will read, predicted; `None` while the first pass
    /// has less than three complete rows measured.
    pub fn remaining_states(&self) -> Option<Vec<u64>> {
        if self.pass >= self.shape.passes {
            return Some(Vec::new());
        }
        let mut states = Vec::new();
        if self.pass == 0 {
            let first = self.first_pass()?;
            // A pass whose layer emptied before its last cell is over at the checkpoint of that
            // step (`next_cell` is its steps, past the profile): nothing is left of it.
            states.extend_from_slice(first.get(self.next_cell..).unwrap_or(&[]));
            for _ in 1..self.shape.passes {
                states.extend_from_slice(&first);
            }
        } else {
            // Every pass reads the same layers (other moduli, the same keys), as far as they are
            // known: a checkpoint keeps no profile of a long first pass (`PROFILE_KEPT`).
            if self.profile.len() < self.shape.steps {
                return None;
            }
            states.extend_from_slice(self.profile.get(self.next_cell..).unwrap_or(&[]));
            for _ in self.pass + 1..self.shape.passes {
                states.extend_from_slice(&self.profile);
            }
        }
        Some(states)
    }

    /// The first pass's profile: what is measured, the next step's layer where known, the rest
    /// as the layer model predicts it. The model measures growth on the profile the board's end
    /// has not cut yet: a measured layer of a cut row is divided by its cell's multiplier first.
    fn first_pass(&self) -> Option<Vec<u64>> {
        let (steps, hint) = (self.shape.steps, &self.shape.hint);
        let measured = self.next_cell.min(self.profile.len());
        let next = self.next_states.filter(|_| measured < steps);
        let known_len = measured + usize::from(next.is_some());
        if known_len < steps && known_len < self.steps_before_estimating() {
            // Checked before the profile is copied: every step of a long first row asks.
            return None;
        }
        let mut known: Vec<u64> = self.profile[..measured].to_vec();
        known.extend(next);
        if known.len() >= steps {
            return Some(known);
        }
        if widths::applies(hint, steps) {
            // A graph's: guessed from its frontier's widths, as the plan guesses it.
            let guessed = widths::extend(&known, &hint.widths, steps);
            return Some(guessed.iter().map(|&s| s.round() as u64).collect());
        }
        let row = hint.row.max(1);
        let end = model::BoardEnd::new(&hint.tail, row, steps);
        let uncut: Vec<u64> = known
            .iter()
            .enumerate()
            .map(|(cell, &s)| match end.multiplier(cell) {
                m if m > 0.0 => (s as f64 / m).round() as u64,
                _ => s,
            })
            .collect();
        let predicted = model::extend(&uncut, steps, hint, hint.rows_reached.max(1));
        let mut first: Vec<u64> = known.clone();
        first.extend(predicted[known.len()..].iter().map(|&s| s.round() as u64));
        // The pass ends where its layer empties: nothing after a zero is read.
        if let Some(end) = first.iter().skip(known.len()).position(|&s| s == 0) {
            first.truncate(known.len() + end);
        }
        Some(first)
    }

    /// What a step of `states` states will take: `fixed + scale * states^power`, fitted to the
    /// timed steps. The fixed share (its commit, the display, the workers' round trips) is what
    /// the smallest steps took (those that read at most a hundredth of the largest: the middle
    /// one of them), or the quickest step where there are too few. The rest of a step's time
    /// grows with its states a little slower than they do while a step does not yet fill the
    /// machine (threads, buckets, workers half idle), in proportion once it does: `power` is
    /// the slope of the rest against the states on a log-log scale, fitted to the larger steps,
    /// recent ones weighing most, and kept between 0.6 and 1.2. `None` before any step.
    fn cost(&self) -> Option<StepCost> {
        let largest = self.timed.iter().map(|&(states, _)| states).max()?;
        let mut small: Vec<f64> =
            self.timed.iter().filter(|&&(states, _)| states <= largest / 100).map(|&(_, seconds)| seconds).collect();
        small.sort_by(f64::total_cmp);
        let fixed = match (self.timed.len(), small.len()) {
            // An older checkpoint's one figure for all its steps tells no fixed share.
            (1, _) => 0.0,
            (_, 3..) => small[small.len() / 2],
            _ => self.timed.iter().map(|&(_, seconds)| seconds).fold(f64::INFINITY, f64::min),
        }
        .max(0.0);
        // Weighted means and moments of (ln states, ln rest) over the larger steps.
        let (mut sw, mut sx, mut sy, mut sxx, mut sxy, mut weight) = (0.0, 0.0, 0.0, 0.0, 0.0, 1.0);
        for &(states, seconds) in self.timed.iter().rev() {
            let rest = seconds - fixed;
            if states > largest / 100 && states > 0 && rest > 0.0 {
                let (x, y) = ((states as f64).ln(), rest.ln());
                (sw, sx, sy, sxx, sxy) =
                    (sw + weight, sx + weight * x, sy + weight * y, sxx + weight * x * x, sxy + weight * x * y);
            }
            weight *= COST_MEMORY;
        }
        if sw == 0.0 {
            let per_state = self.timed.iter().map(|&(_, t)| t).sum::<f64>()
                / self.timed.iter().map(|&(s, _)| s as f64).sum::<f64>().max(1.0);
            return Some(StepCost { fixed: 0.0, at: (0.0, per_state.max(f64::MIN_POSITIVE).ln()), power: 1.0 });
        }
        let (x, y) = (sx / sw, sy / sw);
        let variance = sxx / sw - x * x;
        let power = if variance > 0.01 { ((sxy / sw - x * y) / variance).clamp(0.6, 1.2) } else { 1.0 };
        Some(StepCost { fixed, at: (x, y), power })
    }

    /// The estimate of the time left, as the steps so far tell it.
    pub fn estimate(&self) -> Eta {
        match self.work() {
            Some(work) => Eta::Left(Duration::from_secs_f64(work.left)),
            None => Eta::Estimating,
        }
    }

    /// The work of the whole sweep as the model prices it: the steps committed and the steps
    /// left, each at the cost fitted so far (so that the share done, which the display's bar
    /// shows, moves with the time the estimate counts down rather than with the step number:
    /// the last rows of a 7 x 10 sweep are most of its time). `None` while estimating.
    pub fn work(&self) -> Option<Work> {
        // The states first: while they are unknown (before three rows, or before a graph's
        // widest frontier), the cost's fit over every timed step is not worth making.
        let states = self.remaining_states()?;
        let cost = self.cost()?;
        let left: f64 = states.iter().map(|&s| cost.seconds(s)).sum();
        let done: f64 = self.committed_states().iter().map(|&s| cost.seconds(s)).sum();
        Some(Work { done: done.clamp(0.0, 1e12), left: left.clamp(0.0, 1e12) })
    }

    /// Whether the model will estimate before the sweep's end (it needs three rows measured; a
    /// graph's sweep, one long row, its widest frontier and two steps more).
    pub fn will_estimate(&self) -> bool {
        self.steps_before_estimating() < self.shape.steps
    }

    /// The steps the first pass measures before the model extends it: three rows, or a graph's
    /// widest frontier and two steps more (as its plan's probe: [`widths`]).
    fn steps_before_estimating(&self) -> usize {
        let hint = &self.shape.hint;
        match widths::applies(hint, self.shape.steps) {
            true => widths::measured_first(&hint.widths),
            false => MEASURED_ROWS * hint.row.max(1),
        }
    }
}

/// A sweep's work in seconds at the cost fitted so far: what its committed steps took (as
/// priced, not as timed: one model for both) and what is left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    pub done: f64,
    pub left: f64,
}

impl Work {
    /// The share done `since` after the estimate, the work left counting down as the ETA does.
    pub fn share_done(self, since: Duration) -> f64 {
        let total = self.done + self.left;
        if total <= 0.0 {
            return 1.0;
        }
        (self.done + since.as_secs_f64().min(self.left)) / total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(steps: usize, passes: usize, row: usize) -> Shape {
        Shape { steps, passes, hint: ProfileHint { row, rows_reached: 1, ..ProfileHint::default() } }
    }

    #[test]
    fn a_second_pass_knows_its_profile_exactly() {
        let mut model = EtaModel::new(shape(4, 2, 2), &SweepProgress::default());
        for (cell, (read, left)) in [(1, 5), (5, 9), (9, 4), (4, 1)].into_iter().enumerate() {
            model.step(0, cell, read, left, read as f64);
        }
        assert_eq!(model.remaining_states(), Some(vec![1, 5, 9, 4]));
        model.step(1, 0, 1, 5, 1.0);
        assert_eq!(model.remaining_states(), Some(vec![5, 9, 4]));
    }

    #[test]
    fn nothing_is_estimated_before_three_rows() {
        let mut model = EtaModel::new(shape(12, 1, 2), &SweepProgress::default());
        assert_eq!(model.estimate(), Eta::Estimating);
        for (cell, (read, left)) in [(1, 3), (3, 10), (10, 30), (30, 100)].into_iter().enumerate() {
            model.step(0, cell, read, left, 0.01);
            assert_eq!(model.estimate(), Eta::Estimating, "after step {}", cell + 1);
        }
        // Five layers read, the sixth known: three rows of two.
        model.step(0, 4, 100, 300, 0.01);
        assert!(model.estimate().seconds().is_some());
    }

    #[test]
    fn a_graph_is_estimated_from_its_widths_once_its_frontier_is_at_its_widest() {
        // The widths model's worked example (plan/widths.rs): 8 steps, the frontier 4 wide at
        // step 3; estimated from 6 steps known, as the plan's probe prices.
        let widths = vec![0, 2, 4, 4, 4, 4, 4, 2, 0];
        let hint = ProfileHint { row: 8, rows_reached: 1, widths: widths.clone(), ..ProfileHint::default() };
        let mut model = EtaModel::new(Shape { steps: 8, passes: 1, hint }, &SweepProgress::default());
        assert!(model.will_estimate());
        let layers = [1u64, 4, 20, 40, 45, 46];
        for (cell, pair) in layers.windows(2).enumerate() {
            model.step(0, cell, pair[0], pair[1], 0.01);
            let known = cell + 2;
            assert_eq!(model.remaining_states().is_some(), known >= 6, "after step {}", cell + 1);
        }
        let guessed: Vec<u64> = widths::extend(&layers, &widths, 8).iter().map(|&s| s.round() as u64).collect();
        assert_eq!(model.remaining_states(), Some(guessed[5..].to_vec()));
        assert!(model.estimate().seconds().is_some());
    }

    #[test]
    fn a_step_costs_a_fixed_share_plus_its_states() {
        // Every step took 10 ms plus 1 µs a state; six small ones tell the 10 ms (their middle
        // one's 10.005 ms), the larger ones the rest.
        let seconds = |states: u64| 0.01 + 1e-6 * states as f64;
        let layers = [1u64, 2, 3, 5, 8, 13, 100_000, 200_000, 400_000, 300_000];
        let mut model = EtaModel::new(shape(20, 1, 2), &SweepProgress::default());
        for (cell, pair) in layers.windows(2).enumerate() {
            model.step(0, cell, pair[0], pair[1], seconds(pair[0]));
        }
        let cost = model.cost().unwrap();
        for states in [1, 1_000, 300_000, 10_000_000] {
            let (fitted, truth) = (cost.seconds(states), seconds(states));
            assert!((fitted - truth).abs() <= 1e-5 + 1e-3 * truth, "{states}: {fitted} against {truth}");
        }
        let left: f64 = model.remaining_states().unwrap().iter().map(|&s| seconds(s)).sum();
        let estimate = model.estimate().seconds().unwrap();
        assert!((estimate - left).abs() <= 1e-3 * left, "{estimate} against {left}");
    }

    #[test]
    fn the_share_done_is_the_work_done_not_the_steps() {
        // Two passes of eight steps, 1 ms plus 1 µs a state; the last steps hold most states.
        let seconds = |states: u64| 0.001 + 1e-6 * states as f64;
        let layers = [1u64, 2, 3, 5, 8, 13, 100_000, 400_000, 0];
        let mut model = EtaModel::new(shape(8, 2, 2), &SweepProgress::default());
        for (cell, pair) in layers.windows(2).enumerate() {
            model.step(0, cell, pair[0], pair[1], seconds(pair[0]));
        }
        // Then two steps of the second pass (the same layers): 10 of 16 steps done, and about
        // half of the time.
        for cell in 0..2 {
            model.step(1, cell, layers[cell], layers[cell + 1], seconds(layers[cell]));
        }
        let work = model.work().unwrap();
        let pass: f64 = layers[..8].iter().map(|&s| seconds(s)).sum();
        let done = pass + seconds(1) + seconds(2);
        let truth = done / (2.0 * pass);
        let shown = work.share_done(Duration::ZERO);
        assert!((shown - truth).abs() < 1e-3, "share done {shown}, true {truth}");
        assert!(shown < 0.6, "{shown}: 10 of 16 steps would say 0.62");
        // Between steps it moves with the clock, to the whole once the time left has passed.
        assert!(work.share_done(Duration::from_secs_f64(work.left / 2.0)) > shown);
        assert_eq!(work.share_done(Duration::from_secs(3600)), 1.0);
    }

    #[test]
    fn a_checkpoint_gives_status_the_estimate_the_display_had() {
        let layers = [1u64, 4, 9, 20, 50, 70, 100, 130, 150, 160];
        let mut display = EtaModel::new(shape(16, 2, 3), &SweepProgress::default());
        let mut checkpoint = SweepProgress::default();
        for (cell, pair) in layers.windows(2).enumerate() {
            let share = 0.002 + 1e-4 * pair[0] as f64;
            display.step(0, cell, pair[0], pair[1], share);
            checkpoint.next_cell = cell + 1;
            checkpoint.profile.push(pair[0]);
            checkpoint.step_timings.push((share * 1e6).round() as u64);
        }
        let status = EtaModel::new(shape(16, 2, 3), &checkpoint).with_next_states(layers[layers.len() - 1]);
        let (shown, told) = (display.estimate().seconds().unwrap(), status.estimate().seconds().unwrap());
        assert!((shown - told).abs() < 1e-6 * shown, "display {shown}, status {told}");
    }
}
