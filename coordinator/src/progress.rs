//! Progress, as a person or a log collector sees it: every finished step (or shard) updates the
//! live display on a terminal; on a pipe, a person is told where the run is at most every 30 s
//! (the same words as the display's, on one line: [`console::progress`]), a collector of JSON
//! lines gets every step as an event (`step done`, inside the `job` span and the sweep's `step`
//! span), and so does `-v` in text; a finished run ends with one summary line. A sweep's ETA
//! comes from [`EtaModel`]; counts that became final go to the
//! [`ResultStream`] at once.
//!
//! ```text
//! knight 7x10 --sweep  ━━━━━━━━━━━━━━━━╸━━━━━━━━━━━━━ 37/70 steps · pass 1/1 · row 6, column 2
//!   3,988,114 states · 2.1M states/s · 24s elapsed · ETA 31s · 92 MiB on disk · 410 MiB memory
//! ```
//!
//! An exact pass that residue passes follow if a count outgrows its lane reads
//! `pass 1/1 (2 if a count outgrows 64 bits)` (`knight 8x10 --sweep`; `128 bits` for the
//! exact 128-bit lane of `knight 8x12 --sweep`).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use leaper_core::engine::subtree::local::ShardDone;
use leaper_core::engine::sweep::{StepReport, SweepPlan, SweepProgress, SweepReport};
use leaper_core::engine::SweepJob;

use crate::console;
use crate::eta::{Eta, EtaModel, Shape, Work};
use crate::fit::{self, Field};
use crate::numbers::{bytes, compact, counted, format_duration, grouped};
use crate::results::ResultStream;
use crate::straggler::Named;

/// How many times longer than its last look took the watch waits before it looks again at the
/// ETA and the peak memory: the model reads every step's time and layer, and the peak is read
/// from `/proc`, so a sweep of many quick steps (a graph's 100,000 vertices, steps of
/// microseconds) would spend its time looking; this keeps the looks under a twentieth of the
/// run. Where steps take longer than a look (every board), each step is looked at afresh.
const LOOK_SPACING: u32 = 20;

/// Watches a sweep's steps: display or log lines, ETA, results as they become final.
pub struct SweepWatch<'r, 'a> {
    model: EtaModel,
    /// The last look: the estimate and the peak memory, when and how long it took.
    looked: Option<Look>,
    clock: Instant,
    display: Option<Display>,
    /// Without a display, when a progress line is next due on a pipe.
    spacing: Option<Spacing>,
    label: String,
    results: &'r mut ResultStream<'a>,
    /// Counts a resumed job's checkpoint holds as final: printed once a step shows the job
    /// directory sound (a damaged one is refused with nothing printed).
    earlier: Vec<(usize, String)>,
    steps: usize,
    passes: usize,
    /// The passes the plan may need: more than `passes` while an exact pass runs alone and a
    /// count may still outgrow its lane (then its residue passes follow).
    passes_possible: usize,
    /// Bits of the exact pass's lane, where the plan has one.
    exact_bits: u32,
    /// States read and seconds spent in this run's steps, for the rate.
    states: u64,
    seconds: f64,
    out_of_core: bool,
    /// A cluster sweep's straggler, as its host names it.
    straggler: Option<Named>,
}

impl<'r, 'a> SweepWatch<'r, 'a> {
    /// Watches `job`, `passes` passes of it (of those `plan` may need), from `start` (a new
    /// sweep's default, or a checkpoint).
    pub fn new(
        job: &dyn SweepJob,
        (passes, plan): (usize, &SweepPlan),
        start: &SweepProgress,
        label: &str,
        results: &'r mut ResultStream<'a>,
        out_of_core: bool,
    ) -> SweepWatch<'r, 'a> {
        let model = EtaModel::new(Shape::of(job, passes), start);
        let total = (job.steps() * passes) as u64;
        let done = (start.pass * job.steps() + start.next_cell) as u64;
        // The bar shows the model's share of the work; a sweep the model cannot price before
        // its end (a sweep without rows and without frontier widths) shows its steps instead.
        let display = Display::new(label, "steps", (done, total), !model.will_estimate());
        SweepWatch {
            model,
            looked: None,
            clock: Instant::now(),
            display,
            spacing: Spacing::new(),
            label: label.to_string(),
            results,
            earlier: start.settled.clone(),
            steps: job.steps(),
            passes,
            passes_possible: plan.passes.len(),
            exact_bits: plan.exact_lane().map_or(64, |lane| lane.bits()),
            states: 0,
            seconds: 0.0,
            out_of_core,
            straggler: None,
        }
    }

    /// The watch of a cluster sweep, whose display names the straggler its host names.
    pub fn with_straggler(mut self, named: Named) -> Self {
        self.straggler = Some(named);
        self
    }

    /// The watch of a resumed sweep, told the size of the committed layer its next step reads.
    pub fn with_layer(mut self, states: Option<u64>) -> Self {
        if let Some(states) = states {
            self.model = self.model.with_next_states(states);
        }
        self
    }

    /// Sees a finished step.
    pub fn step(&mut self, step: &StepReport) {
        if !self.earlier.is_empty() {
            self.results.settled(&std::mem::take(&mut self.earlier));
        }
        if step.passes != self.passes {
            self.passes = step.passes;
            self.model.set_passes(step.passes);
            if let Some(display) = &self.display {
                display.update(|shown| shown.total = (self.steps * step.passes) as u64);
            }
        }
        let seconds = step.elapsed.as_secs_f64();
        (self.states, self.seconds) = (self.states + step.states_in, self.seconds + seconds);
        self.model.step(step.pass, step.step, step.states_in, step.layer.states, step.share.as_secs_f64());
        let Look { eta: estimated, work, rss, at, .. } = self.look();
        // The estimate as made, counted down since (the display counts it down itself).
        let eta = estimated.after(at.elapsed());
        let rate = self.states as f64 / self.seconds.max(1e-9);
        log_step(step, rate, eta, rss);
        let line_due = self.spacing.as_mut().is_some_and(Spacing::due);
        if self.display.is_none() && !line_due {
            return self.results.settled(&step.settled);
        }
        let position = step.pass * self.steps + step.step + 1;
        let done = if step.layer.states == 0 { (step.pass + 1) * self.steps } else { position };
        // An exact pass that may be followed by residue passes says so, not `pass 1/1`.
        let maybe_more = if step.passes < self.passes_possible {
            format!(" ({} if a count outgrows {} bits)", self.passes_possible, self.exact_bits)
        } else {
            String::new()
        };
        let straggler =
            self.straggler.as_ref().and_then(|named| named.lock().unwrap_or_else(|e| e.into_inner()).clone());
        let place = Place {
            pass: format!("pass {}/{}", step.pass + 1, step.passes),
            pass_note: maybe_more,
            position: format!("row {}, column {}", step.position.row + 1, step.position.col + 1),
            straggler: straggler.unwrap_or_default(),
        };
        let figures = Figures {
            size: format!("{} states", grouped(step.layer.states)),
            rate: format!("{}/s", compact(rate)),
            disk: if self.out_of_core { format!("{} on disk", bytes(step.layer.bytes)) } else { String::new() },
            memory: format!("{} memory", bytes(rss)),
        };
        match &self.display {
            Some(display) => display.update(|shown| {
                shown.done = done as u64;
                shown.work = work.map(|work| (work, at));
                shown.place = place;
                shown.figures = figures;
                (shown.eta, shown.at) = (estimated, at);
            }),
            None => {
                let Place { pass, pass_note, position, straggler } = place;
                let straggler = if straggler.is_empty() { straggler } else { format!(" · {straggler}") };
                let disk = if figures.disk.is_empty() { String::new() } else { format!(" · {}", figures.disk) };
                console::progress(&format!(
                    "{}: {done}/{} steps · {pass}{pass_note} · {position}{straggler} · {} · {} · {} elapsed · ETA {}{disk} · {}",
                    self.label,
                    self.steps * step.passes,
                    figures.size,
                    figures.rate,
                    format_duration(self.clock.elapsed()),
                    eta.text(),
                    figures.memory,
                ))
            }
        }
        self.results.settled(&step.settled);
    }

    /// The model's estimate and the peak memory, afresh unless the last look is too recent for
    /// what it cost ([`LOOK_SPACING`]); then the last (its estimate as made, at its time).
    fn look(&mut self) -> Look {
        if let Some(last) = self.looked {
            let since = last.at.elapsed();
            if since < last.took * LOOK_SPACING {
                return last;
            }
        }
        let at = Instant::now();
        let work = self.model.work();
        let eta = work.map_or(Eta::Estimating, |work| Eta::Left(Duration::from_secs_f64(work.left)));
        let rss = leaper_core::heap::peak_resident_bytes().unwrap_or(0);
        let look = Look { eta, work, rss, at, took: at.elapsed() };
        self.looked = Some(look);
        look
    }

    /// The summary line of a finished sweep; in JSON logs, with its figures as fields.
    pub fn finish(self, report: &SweepReport) {
        let rss = leaper_core::heap::peak_resident_bytes().unwrap_or(0);
        let place = if self.out_of_core {
            format!("{} peak layer on disk", bytes(report.peak_bytes))
        } else {
            "in memory".to_string()
        };
        let summary = format!(
            "finished in {}: {} states processed, peak layer {} states ({place}), {} peak memory",
            format_duration(self.clock.elapsed()),
            grouped(report.states_processed),
            grouped(report.peak_states),
            bytes(rss)
        );
        if !console::json_logs() {
            return console::summary(&summary);
        }
        // Collectors get the figures as numbers.
        tracing::info!(
            step_seconds = report.step_seconds,
            peak_states = report.peak_states,
            peak_layer_bytes = report.peak_bytes,
            states_processed = report.states_processed,
            moduli = report.moduli.len(),
            lanes = %report.moduli,
            peak_rss_bytes = rss,
            "{summary}"
        );
    }
}

/// What the watch last saw of the ETA, the work and the peak memory, when, and what seeing
/// took.
#[derive(Clone, Copy)]
struct Look {
    eta: Eta,
    work: Option<Work>,
    rss: u64,
    at: Instant,
    took: Duration,
}

/// A step as a tracing line: human units in text, numbers as numbers in JSON.
fn log_step(step: &StepReport, rate: f64, eta: Eta, rss: u64) {
    let seconds = step.elapsed.as_secs_f64();
    if console::json_logs() {
        tracing::info!(
            states_in = step.states_in,
            states_emitted = step.states_emitted,
            states_out = step.layer.states,
            layer_bytes = step.layer.bytes,
            spilled_bytes = step.layer.spilled_bytes,
            seconds,
            rate = rate.round() as u64,
            eta_seconds = eta.seconds(),
            peak_rss_bytes = rss,
            "step done"
        );
    } else {
        tracing::info!(
            states_in = step.states_in,
            states_emitted = step.states_emitted,
            states_out = step.layer.states,
            layer = %bytes(step.layer.bytes),
            spilled = %bytes(step.layer.spilled_bytes),
            seconds = %format!("{seconds:.2}"),
            rate = rate.round() as u64,
            eta = %eta.text(),
            peak_rss = %bytes(rss),
            "step done"
        );
    }
}

/// When the next progress line on a pipe is due: [`console::spaced_progress`] after the last
/// (or after the watch began: a run that ends sooner writes none).
struct Spacing {
    every: Duration,
    last: Instant,
}

impl Spacing {
    /// `None` unless stderr is a pipe a person reads.
    fn new() -> Option<Spacing> {
        console::spaced_progress().map(|every| Spacing { every, last: Instant::now() })
    }

    /// Whether a line is due now; if so, the next is due a spacing from now.
    fn due(&mut self) -> bool {
        let now = Instant::now();
        let due = now.duration_since(self.last) >= self.every;
        if due {
            self.last = now;
        }
        due
    }
}

/// Watches a subtree job's shards: display; on a pipe a person reads, a line at most every
/// [`console::spaced_progress`]; in JSON or with `-v`, a log line at most every two seconds.
pub struct ShardWatch {
    label: String,
    total: usize,
    clock: Instant,
    done_before: usize,
    last_line: Option<Instant>,
    display: Option<Display>,
    spacing: Option<Spacing>,
}

impl ShardWatch {
    pub fn new(label: &str, total: usize, done_before: usize) -> ShardWatch {
        let display = Display::new(label, "shards", (done_before as u64, total as u64), true);
        ShardWatch {
            label: label.to_string(),
            total,
            clock: Instant::now(),
            done_before,
            last_line: None,
            display,
            spacing: Spacing::new(),
        }
    }

    pub fn shard(&mut self, done: &ShardDone) {
        tracing::debug!(shard = done.index, label = done.label, "shard done");
        let this_run = done.done.saturating_sub(self.done_before);
        let rate = this_run as f64 / self.clock.elapsed().as_secs_f64().max(1e-9);
        let left = self.total.saturating_sub(done.done) as f64;
        let eta = if rate > 0.0 { Eta::Left(Duration::from_secs_f64(left / rate)) } else { Eta::Estimating };
        if let Some(display) = &self.display {
            return display.update(|shown| {
                shown.done = done.done as u64;
                shown.place = Place { position: format!("shard {}", done.label), ..Place::default() };
                shown.figures = Figures { rate: format!("{rate:.1} shards/s"), ..Figures::default() };
                (shown.eta, shown.at) = (eta, Instant::now());
            });
        }
        if let Some(spacing) = &mut self.spacing {
            if spacing.due() {
                console::progress(&format!(
                    "{}: {}/{} shards · shard {} · {rate:.1} shards/s · {} elapsed · ETA {}",
                    self.label,
                    done.done,
                    self.total,
                    done.label,
                    format_duration(self.clock.elapsed()),
                    eta.text()
                ));
            }
            return;
        }
        let now = Instant::now();
        if self.last_line.is_some_and(|last| now - last < Duration::from_secs(2)) && done.done < done.total {
            return;
        }
        self.last_line = Some(now);
        if console::json_logs() {
            tracing::info!(done = done.done, shards = self.total, rate, eta_seconds = eta.seconds(), "shards done");
        } else {
            tracing::info!(
                done = done.done,
                shards = self.total,
                rate = %format!("{rate:.1}/s"),
                eta = %eta.text(),
                "shards done"
            );
        }
    }

    /// The summary line of a finished subtree job.
    pub fn finish(self, shards: usize) {
        let memory = bytes(leaper_core::heap::peak_resident_bytes().unwrap_or(0));
        console::summary(&format!(
            "finished in {}: {}, {memory} peak memory",
            format_duration(self.clock.elapsed()),
            counted(shards, "shard", "shards")
        ));
    }
}

/// The live display: the label, a bar of the work done, the steps (or shards) and where the run
/// is on the first line; the layer, rate, time and footprint on the second, the ETA counting
/// down between steps. Drawn afresh every second, each line fitted to the terminal's width
/// ([`fit`]): the first line gives way in the order pass's note, straggler, bar to 12 columns,
/// row and column, pass, bar; the second memory, disk, elapsed, rate, states; the ETA stays.
///
/// ```text
/// knight 7x10 --sweep  ━━━━━━━━━━━━━━━━╸━━━━━━━━━━━━━ 37/70 steps · pass 1/1 · row 6, column 2
///   3,988,114 states · 2.1M states/s · 24s elapsed · ETA 31s · 92 MiB on disk · 410 MiB memory
/// ```
struct Display {
    bar: ProgressBar,
    shown: Arc<Mutex<Shown>>,
}

/// What the display shows.
struct Shown {
    label: String,
    unit: &'static str,
    done: u64,
    total: u64,
    /// The model's work and when it was priced: the bar's share done.
    work: Option<(Work, Instant)>,
    /// Whether the bar shows the units done (a sweep the model cannot price, shards) rather
    /// than the work, which is empty until the model prices it.
    by_units: bool,
    place: Place,
    figures: Figures,
    /// The estimate and when it was made: shown counting down.
    eta: Eta,
    at: Instant,
    started: Instant,
}

/// Where a run is, on the first line.
#[derive(Default)]
struct Place {
    pass: String,
    /// ` (2 if a count outgrows 64 bits)`, where a residue pass may follow.
    pass_note: String,
    position: String,
    straggler: String,
}

/// The run's figures, on the second line (empty ones are not shown).
#[derive(Default)]
struct Figures {
    size: String,
    rate: String,
    disk: String,
    memory: String,
}

/// The fields of the first line, and the order in which they give way.
const TOP_ORDER: [usize; 6] = [3, 5, 1, 4, 3, 1];
/// The fields of the second line (states, rate, elapsed, ETA, disk, memory), and the order in
/// which they give way.
const BOTTOM_ORDER: [usize; 5] = [5, 4, 2, 1, 0];

impl Shown {
    /// The share of the bar filled now.
    fn share_done(&self) -> f64 {
        match self.work {
            Some((work, at)) if !self.by_units => work.share_done(at.elapsed()),
            _ if self.by_units => self.done as f64 / self.total.max(1) as f64,
            _ => 0.0,
        }
    }

    fn top(&self, width: usize) -> String {
        let share = self.share_done();
        let place = &self.place;
        let fields = [
            Field::kept("", terminal::style(&self.label).bold().for_stderr().to_string()),
            Field::forms("  ", vec![fit::bar(share, 30), fit::bar(share, 12), String::new()]),
            Field::kept(" ", format!("{}/{} {}", self.done, self.total, self.unit)),
            Field::forms(" · ", vec![format!("{}{}", place.pass, place.pass_note), place.pass.clone(), String::new()]),
            Field::or_none(" · ", place.position.clone()),
            Field::or_none(" · ", place.straggler.clone()),
        ];
        fit::fit(&fields, &TOP_ORDER, width)
    }

    fn bottom(&self, width: usize) -> String {
        let figures = &self.figures;
        let fields = [
            Field::or_none("", figures.size.clone()),
            Field::or_none(" · ", figures.rate.clone()),
            Field::or_none(" · ", format!("{} elapsed", format_duration(self.started.elapsed()))),
            Field::kept(" · ", format!("ETA {}", self.eta.after(self.at.elapsed()).text())),
            Field::or_none(" · ", figures.disk.clone()),
            Field::or_none(" · ", figures.memory.clone()),
        ];
        format!("  {}", fit::fit(&fields, &BOTTOM_ORDER, width.saturating_sub(2)))
    }
}

impl Display {
    /// A display of `(done, total)` units of work; `None` unless stderr is a terminal shown to
    /// a person.
    fn new(label: &str, unit: &'static str, (done, total): (u64, u64), by_units: bool) -> Option<Display> {
        if console::mode() != console::Mode::Display {
            return None;
        }
        let now = Instant::now();
        let shown = Arc::new(Mutex::new(Shown {
            label: label.to_string(),
            unit,
            done,
            total,
            work: None,
            by_units,
            place: Place { position: "starting".into(), ..Place::default() },
            figures: Figures::default(),
            eta: Eta::Estimating,
            at: now,
            started: now,
        }));
        let (top, bottom) = (Arc::clone(&shown), Arc::clone(&shown));
        let style = ProgressStyle::with_template("{top}\n{bottom}")
            .expect("a valid template")
            .with_key("top", move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                let _ = out.write_str(&top.lock().unwrap_or_else(|e| e.into_inner()).top(fit::stderr_width()));
            })
            .with_key("bottom", move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                let _ = out.write_str(&bottom.lock().unwrap_or_else(|e| e.into_inner()).bottom(fit::stderr_width()));
            });
        let bar = ProgressBar::new(total).with_style(style).with_position(done);
        console::show(bar).map(|bar| Display { bar, shown })
    }

    /// Changes what is shown, and draws it.
    fn update(&self, change: impl FnOnce(&mut Shown)) {
        change(&mut self.shown.lock().unwrap_or_else(|e| e.into_inner()));
        self.bar.tick();
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        console::hide();
    }
}
