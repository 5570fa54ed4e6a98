//! A sweep without rows priced from its smaller instances (issue 58).
//!
//! The plan's model extends a probe row by row ([`super::model`]); a sweep without rows (the
//! quartering's diamonds and columns) is known only as far as its probe ran, and a large one's
//! probe reaches the layers that matter only after minutes (`quarter 40`: 93 of its 752 steps
//! in a minute). So where the problem names a smaller instance of the same count
//! ([`leaper_core::engine::Task::smaller`]), those are counted in full instead, smallest first,
//! in memory, while the states they read in all stay within a budget (the plan's
//! `--probe-states`), and the sweep is priced by their growth: from one size to the next the
//! peak and the states read grow by about a constant factor each, taken from the two largest
//! counted.
//!
//! ```text
//! leaper plan quarter 40                      (a budget of 4,000,000 states read)
//!   quarter 2, 4, ..., 20   counted in full, 3.60 M states read in all (about a second)
//!   quarter 22              would read about 11.8 M more (20's 2.76 M times 4.26): past the budget
//!   growth                  quarter 18 to 20: peak 40,541 to 157,865 (3.89 times),
//!                           states read 648,236 to 2,762,418 (4.26 times)
//!   quarter 40              10 sizes on: peak 157,865 * 3.894^10 = 1.27e11 states,
//!                           states read 2,762,418 * 4.261^10 = 5.46e12
//! ```
//!
//! Taking the last growth on is cautious where it slows (the quartering's states read: 4.50,
//! 4.33, 4.26, 4.19, 4.16, 4.13 times a size from 16 to 28; its peak 3.90 throughout), so the
//! forecast errs high, the side a warning should err on. The costs read the layers step by step
//! ([`super::estimate`]: the heaviest step's disk, the shuffle), so the plan lends the sweep the
//! largest counted instance's shape ([`Ladder::profile`]), stretched to its steps and raised to
//! the power that gives it the extrapolated peak and states read.

use std::sync::Arc;

use anyhow::{bail, Result};
use leaper_core::engine::arith::exact_count;
use leaper_core::engine::sweep::{plan_moduli, SweepOptions};
use leaper_core::engine::{Job, Moduli, SweepJob, Task};
use serde::Serialize;

use super::estimate::Profile;
use super::probe::{probe, Bounds, Probe};
use crate::numbers::grouped;

/// Sizes down a ladder goes at most (the quartering's 44 x 44 board has 21 below it).
const MOST_RUNGS: usize = 64;

/// A smaller instance counted in full, in memory.
pub struct Rung {
    /// Its command line (`quarter 20`).
    pub name: String,
    /// Its first pass, step by step.
    pub probe: Probe,
    /// `log2` of its largest count, where its first pass was an exact one that held it.
    pub count_bits: Option<f64>,
}

impl Rung {
    fn peak(&self) -> u64 {
        self.probe.profile.iter().copied().max().unwrap_or(0)
    }

    fn states_read(&self) -> u64 {
        self.probe.profile.iter().sum()
    }
}

/// Smaller instances counted in full, and how many sizes on the sweep priced is.
pub struct Ladder {
    /// Smallest first; at least two.
    pub rungs: Vec<Rung>,
    /// Sizes from the largest rung to the sweep priced (1: the next size).
    pub sizes_on: usize,
}

/// What climbing a ladder found.
pub enum Climb {
    /// The sweep itself fits the budget: its probe runs it whole.
    Fits,
    /// It does not: its price, from its smaller instances.
    Extrapolated(Ladder),
}

/// Counts `task`'s smaller instances in full, smallest first, in memory on `threads`, while the
/// states they read in all stay within `budget`, each with the lanes `options` give it; `None`
/// where the task names no smaller instance.
pub fn climb(task: &dyn Task, budget: u64, options: &SweepOptions, threads: Option<usize>) -> Result<Option<Climb>> {
    let mut smaller: Vec<Arc<dyn Task>> = Vec::new();
    let mut next = task.smaller();
    while let Some(rung) = next.filter(|_| smaller.len() < MOST_RUNGS) {
        next = rung.smaller();
        smaller.push(rung);
    }
    if smaller.is_empty() {
        return Ok(None);
    }
    smaller.reverse();
    let rungs = crate::machine::with_threads(threads, || count_rungs(&smaller, budget, options))??;
    let spent: u64 = rungs.iter().map(Rung::states_read).sum();
    let next_read = growth(&rungs).map(|(_, read)| rungs[rungs.len() - 1].states_read() as f64 * read);
    if rungs.len() == smaller.len() && next_read.is_none_or(|read| spent as f64 + read <= budget as f64) {
        return Ok(Some(Climb::Fits));
    }
    if rungs.len() < 2 {
        bail!(
            "{}: priced from its smaller instances counted in full, but fewer than two of them fit a budget of {} \
             states read (`leaper plan ... --probe-states N` raises it)",
            task.command_line(),
            grouped(budget)
        );
    }
    let sizes_on = smaller.len() + 1 - rungs.len();
    Ok(Some(Climb::Extrapolated(Ladder { rungs, sizes_on })))
}

/// Counts `smaller` (smallest first) while the next one's states read, as the growth of the two
/// before foretells it, keep the total within `budget`; a count that would pass it stops.
fn count_rungs(smaller: &[Arc<dyn Task>], budget: u64, options: &SweepOptions) -> Result<Vec<Rung>> {
    let mut rungs: Vec<Rung> = Vec::new();
    let mut spent = 0u64;
    for task in smaller {
        let foretold = growth(&rungs).map(|(_, read)| rungs[rungs.len() - 1].states_read() as f64 * read);
        if foretold.is_some_and(|read| spent as f64 + read > budget as f64) {
            break;
        }
        let Job::Sweep(job) = task.job()? else {
            bail!("{}: a smaller instance of a sweep is a search", task.command_line());
        };
        let lanes = plan_moduli(job.as_ref(), options)?;
        let probe = probe(job.as_ref(), &lanes.passes[0], Bounds::whole(budget - spent), None)?;
        if !probe.finished(job.steps()) {
            break;
        }
        let name = task.command_line();
        let count_bits = lanes.exact_lane().and_then(|_| {
            largest_count_bits(job.as_ref(), &lanes.passes[0], &probe.closed, options.spare_moduli, &name)
        });
        let rung = Rung { name, probe, count_bits };
        spent += rung.states_read();
        tracing::debug!(
            rung = %rung.name,
            peak = rung.peak(),
            states_read = rung.states_read(),
            count_bits = rung.count_bits,
            "counted to price"
        );
        rungs.push(rung);
    }
    Ok(rungs)
}

/// `log2` of the largest reported count `closed` holds (a whole exact pass's totals, in
/// `moduli`), unless one reached the exact lane's cap.
fn largest_count_bits(
    job: &dyn SweepJob,
    moduli: &Moduli,
    closed: &[Vec<u64>],
    spare: usize,
    name: &str,
) -> Option<f64> {
    let mut largest = 0.0f64;
    for slot in job.reported() {
        let values = closed.get(slot)?;
        if moduli.is_saturated(values) {
            return None;
        }
        let count = exact_count(moduli, values, spare, name).ok()?;
        if count > 0 {
            largest = largest.max(count.to_f64().log2());
        }
    }
    Some(largest)
}

/// How much the peak and the states read grew from the second largest rung to the largest.
fn growth(rungs: &[Rung]) -> Option<(f64, f64)> {
    let [.., before, last] = rungs else { return None };
    let ratio = |last: u64, before: u64| last as f64 / before.max(1) as f64;
    Some((ratio(last.peak(), before.peak()), ratio(last.states_read(), before.states_read())))
}

impl Ladder {
    fn top(&self) -> &Rung {
        &self.rungs[self.rungs.len() - 1]
    }

    /// The largest counted instance's first pass, step by step.
    pub fn top_probe(&self) -> &Probe {
        &self.top().probe
    }

    /// The peak and states read each size multiplies.
    fn growth(&self) -> (f64, f64) {
        growth(&self.rungs).expect("a ladder has two rungs")
    }

    /// The peak of the sweep priced, in states.
    pub fn peak(&self) -> f64 {
        self.top().peak() as f64 * self.growth().0.powi(self.sizes_on as i32)
    }

    /// The states the sweep priced reads in a pass.
    pub fn states_read(&self) -> f64 {
        self.top().states_read() as f64 * self.growth().1.powi(self.sizes_on as i32)
    }

    /// The profile of the sweep priced, of `steps` steps: the largest rung's, stretched to
    /// `steps`, each layer `s` made `peak * (s / its peak)^power`, the power the one that
    /// gives the extrapolated states read (a longer sweep's layers are fewer near its peak than
    /// a stretch makes them: the power thins them).
    ///
    /// Worked example: the largest rung's layers 1, 4, 2 stretched to 4 steps (1, 1, 4, 2), for
    /// a peak of 8 and 12 states read: at power 1 the layers are 2, 2, 8, 4 (16), at power 2
    /// they are 0.5, 0.5, 8, 2 (11), and at about 1.69 they make 12.
    pub fn profile(&self, steps: usize) -> Profile {
        let top = &self.top().probe.profile;
        let shape: Vec<f64> = (0..steps).map(|step| top[step * top.len() / steps.max(1)] as f64).collect();
        let (peak, read) = (self.peak(), self.states_read());
        let highest = shape.iter().copied().fold(1.0, f64::max);
        let power = power_for(&shape, highest, read / peak);
        let layer = |s: f64| if s == 0.0 { 0 } else { ((peak * (s / highest).powf(power)).round() as u64).max(1) };
        Profile { states: shape.iter().map(|&s| layer(s)).collect(), measured: 0 }
    }

    /// `log2` of the sweep's largest count, as the counts of the three largest rungs foretell it:
    /// their logarithms' growth from size to size, itself growing as it last did (the
    /// quartering's counts: 42.5, 54.7 and 68.5 bits at 16, 18 and 20, growing by 12.2 then
    /// 13.8 a size, foretell 161.5 bits at 30, where the count has 161.5). `None` where fewer
    /// than two rungs held their counts.
    ///
    /// Worked example: rungs of 10, 14 and 20 bits, 2 sizes on: the growth 6 grows by 2 a size,
    /// so 20 + 8 + 10 = 38 bits.
    pub fn count_bits(&self) -> Option<f64> {
        let bits: Vec<f64> = self.rungs.iter().rev().map_while(|rung| rung.count_bits).take(3).collect();
        let (last, growth) = match bits[..] {
            [last, before, ..] => (last, last - before),
            _ => return None,
        };
        let speeding = match bits[..] {
            [_, before, earliest] => (growth - (before - earliest)).max(0.0),
            _ => 0.0,
        };
        let k = self.sizes_on as f64;
        Some(last + k * growth + speeding * k * (k + 1.0) / 2.0)
    }

    /// Where the price comes from, as the plan and the warning say it: `extrapolated from
    /// quarter 2 to quarter 20, counted in full`.
    pub fn source(&self) -> String {
        format!("extrapolated from {} to {}, counted in full", self.rungs[0].name, self.top().name)
    }

    /// What the plan says of it.
    pub fn report(&self) -> LadderReport {
        let (peak_growth, read_growth) = self.growth();
        LadderReport {
            source: self.source(),
            rungs: self
                .rungs
                .iter()
                .map(|rung| RungReport {
                    name: rung.name.clone(),
                    peak_states: rung.peak(),
                    states_read: rung.states_read(),
                    seconds: rung.probe.seconds.iter().sum(),
                })
                .collect(),
            sizes_on: self.sizes_on,
            peak_growth,
            read_growth,
        }
    }
}

/// The power `p` at which the layers `shape` (the largest `highest`), each made
/// `(s / highest)^p`, add up to `ratio`: between 0 (every layer the peak) and the power that
/// leaves the peak's steps alone.
fn power_for(shape: &[f64], highest: f64, ratio: f64) -> f64 {
    let total = |power: f64| shape.iter().filter(|&&s| s > 0.0).map(|&s| (s / highest).powf(power)).sum::<f64>();
    if total(0.0) <= ratio {
        return 0.0;
    }
    // `total` falls as the power rises: find where it reaches `ratio`.
    let mut high = 1.0;
    while total(high) > ratio && high < 1024.0 {
        high *= 2.0;
    }
    let mut low = 0.0;
    for _ in 0..64 {
        let middle = (low + high) / 2.0;
        if total(middle) > ratio {
            low = middle;
        } else {
            high = middle;
        }
    }
    (low + high) / 2.0
}

/// A ladder as the plan's JSON gives it.
#[derive(Clone, Debug, Serialize)]
pub struct LadderReport {
    pub source: String,
    /// The instances counted in full, smallest first.
    pub rungs: Vec<RungReport>,
    /// Sizes from the largest of them to the sweep priced.
    pub sizes_on: usize,
    /// What a size multiplies the peak and the states read by (the two largest counted).
    pub peak_growth: f64,
    pub read_growth: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RungReport {
    pub name: String,
    pub peak_states: u64,
    pub states_read: u64,
    pub seconds: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rung(name: &str, profile: &[u64]) -> Rung {
        let probe = Probe { profile: profile.to_vec(), seconds: vec![0.0; profile.len()], ..Probe::default() };
        Rung { name: name.into(), probe, count_bits: None }
    }

    #[test]
    fn the_worked_example_of_the_profile() {
        let shape = [1.0, 1.0, 4.0, 2.0];
        let at = |power: f64| shape.iter().map(|&s: &f64| 8.0 * (s / 4.0).powf(power)).sum::<f64>();
        assert_eq!((at(1.0), at(2.0)), (16.0, 11.0));
        let power = power_for(&shape, 4.0, 12.0 / 8.0);
        assert!((at(power) - 12.0).abs() < 1e-9 && (1.68..1.70).contains(&power), "{power}");
    }

    #[test]
    fn a_ladder_foretells_its_count_s_size_from_its_rungs_counts() {
        let counted = |bits: &[Option<f64>], sizes_on| Ladder {
            rungs: bits.iter().map(|&count_bits| Rung { count_bits, ..rung("small", &[1]) }).collect(),
            sizes_on,
        };
        // The worked example; then the quartering's 16, 18 and 20 foretell its 30 x 30 count.
        assert_eq!(counted(&[Some(10.0), Some(14.0), Some(20.0)], 2).count_bits(), Some(38.0));
        let quartering = counted(
            &[
                Some(6_371_333_036_059f64.log2()),
                Some(30_153_126_159_555_641f64.log2()),
                Some(431_453_249_608_567_040_694f64.log2()),
            ],
            5,
        );
        let thirty = 4025077230487214170805368579638283440362876041612f64.log2();
        assert!(
            (quartering.count_bits().unwrap() - thirty).abs() < 0.5,
            "{:?} against {thirty}",
            quartering.count_bits()
        );
        // Two rungs: the last growth, on; fewer than two that held their counts: nothing.
        assert_eq!(counted(&[Some(10.0), Some(14.0)], 3).count_bits(), Some(26.0));
        assert_eq!(counted(&[Some(10.0), None], 3).count_bits(), None);
    }

    #[test]
    fn a_ladder_grows_its_largest_rung_by_the_last_growth() {
        // From peak 2 and 4 states read to 4 and 7: a size on, 8 and 12.25; two sizes on, 16
        // and 21.4.
        let ladder =
            |sizes_on| Ladder { rungs: vec![rung("small 1", &[1, 2, 1]), rung("small 2", &[1, 4, 2])], sizes_on };
        assert_eq!((ladder(1).peak(), ladder(1).states_read()), (8.0, 12.25));
        assert_eq!((ladder(2).peak(), ladder(2).states_read()), (16.0, 7.0 * 1.75 * 1.75));
        assert_eq!(ladder(1).source(), "extrapolated from small 1 to small 2, counted in full");
        // Its profile, over the sweep's 4 steps: the extrapolated peak, and as many states read
        // as whole layers come near.
        let profile = ladder(1).profile(4);
        assert_eq!(profile.states.len(), 4);
        assert_eq!(profile.peak(), (2, 8));
        assert!((profile.expansions() as f64 - 12.25).abs() <= 2.0, "{profile:?}");
    }

    #[test]
    fn a_flat_shape_or_a_lone_peak_takes_the_power_at_its_end() {
        // More states read than every layer at the peak: all of them at the peak.
        assert_eq!(power_for(&[1.0, 2.0, 2.0], 2.0, 5.0), 0.0);
        // Fewer than the peak's own steps: the power that leaves them alone, bounded.
        let power = power_for(&[1.0, 2.0, 2.0], 2.0, 1.0);
        assert!(power > 100.0, "{power}");
    }
}
