//! The layer model of a sweep without rows whose frontier's width is known step by step (a
//! graph's, and a board's with squares removed, counted as its graph): a guess past the probe,
//! where the row model ([`super::model`]) has no rows to extend.
//!
//! A layer's states grow about exponentially in the frontier's live positions `L` (the vertices
//! still to come that have a neighbour already processed: [`ProfileHint::widths`]), and, at a width
//! that holds, they keep growing while the processed part behind the frontier fills in. So the
//! model follows `r = ln(states) / L`, the logarithm of the states a live position: measured on
//! full sweeps, `r` rises over the first steps, then levels off (at 0.97 to 1.14 on knight boards
//! with squares removed, 0.83 on square grids), and falls only at the very end, where the states
//! are few anyway. Past the probe, `r` goes on rising at the pace it rose over the probe's last `W`
//! steps (`W` the widest frontier), a pace that keeps `1 - 3 / W` of itself from step to step, and
//! each layer is `exp(r * L)` at that step's width.
//!
//! Measured (docs/PERFORMANCE-LOG.md, "The layer model of a graph"): from 30 probes stopped
//! past layers of 2 * 10^4 to 4 * 10^6 states (and the widest frontier), on knight boards of
//! 42 to 63 squares with squares removed and square grids of 14 and 16, the peak came within 6.7
//! times of the sweep's either way, 9 in 10 within 3.3 times; the states read within 5.5 times.
//! Probes stopped before the frontier was at its widest guessed low, up to 17 times; and no
//! graph measured was wider than 16, while on wider ones `r` may well rise over many more
//! steps than the pace allows: a guess past either is likely low ([`Trust`]). A guess, and
//! said to be one: the plan, the warning and `leaper status` name its source and its trust.
//!
//! Worked example: widths 0, 2, 4, 4, 4, 4, 4, 2, 0 (8 steps, `W = 4`), the probe's layers
//! (states read by steps 1 to 4) 1, 4, 20, 40. `r` at steps 2 to 4: ln 4 / 2 = 0.693, ln 20 / 4
//! = 0.749, ln 40 / 4 = 0.922; it rose by 0.229 over the last 2 steps (the first step's, a
//! single start state, is no measure), 0.115 a step, which keeps `1 - 3/4` of itself: `r` =
//! 0.951, 0.958, 0.960, 0.960 at steps 5 to 8, so the layers are `exp(0.951 * 4)` = 44.9, 46.2,
//! 46.5, then `exp(0.960 * 2)` = 6.8.

use leaper_core::engine::ProfileHint;

/// The share of its pace `r` keeps from step to step is `1 - PACE_KEPT_OVER / W`: with 3 the
/// model came closest on the graphs measured (with 1 and 2 it overshot by up to 2 * 10^4 and 50
/// times, as `r` hardly levels off within a probe; with 4, up to 14 times short; module docs).
const PACE_KEPT_OVER: f64 = 3.0;

/// `known` (states read by the first steps, as measured; the first the start's one state) and
/// the rest of `steps` as the model guesses them, from `widths` ([`ProfileHint::widths`]: the
/// live positions before each step). As it is where it already holds every step.
pub fn extend(known: &[u64], widths: &[usize], steps: usize) -> Vec<f64> {
    let mut states: Vec<f64> = known.iter().map(|&s| s as f64).collect();
    let Some(last) = known.len().checked_sub(1) else { return states };
    let live = |step: usize| widths.get(step).copied().unwrap_or(0).max(1) as f64;
    let r = |step: usize| states[step].max(1.0).ln() / live(step);
    let widest = widths.iter().copied().max().unwrap_or(1).max(1);
    // The pace over the last `widest` steps, not reaching back to the start's single state.
    let back = widest.min(last.saturating_sub(1));
    let mut pace = if back == 0 { 0.0 } else { ((r(last) - r(last - back)) / back as f64).max(0.0) };
    let kept = (1.0 - PACE_KEPT_OVER / widest as f64).max(0.0);
    let mut ratio = r(last);
    for step in states.len()..steps {
        pace *= kept;
        ratio += pace;
        let width = widths.get(step).copied().unwrap_or(0);
        states.push((ratio * width as f64).exp());
    }
    states
}

/// The steps a probe, or a running count's estimate, measures before the model guesses the
/// rest: the widest frontier and two more, so that the pace is taken where the frontier is at
/// its widest (short of it, guesses run low: module docs).
pub fn measured_first(widths: &[usize]) -> usize {
    widths.iter().copied().max().unwrap_or(0) + 2
}

/// Whether a sweep of `steps` steps with hint `hint` is modelled by its widths: it has no rows
/// (its row is the whole sweep) and says its frontier's width before every step.
pub fn applies(hint: &ProfileHint, steps: usize) -> bool {
    hint.row >= steps && hint.widths.len() > steps
}

/// The widest frontier among the graphs the model was measured on (module docs). Wider, `r`
/// rises for longer than the model lets it: `leaper plan knight 10x10 --remove a1,b1` (21
/// wide) guesses a peak of 8.6e8 where the plain board's rows predict more than 10^11.
pub const MEASURED_WIDEST: usize = 16;

/// How far a guess from a probe that measured the layers read by its first `measured` steps
/// may be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// As on the graphs measured: within about 7 times either way.
    Measured,
    /// The probe stopped before the frontier was at its widest, where `r` still rises fast:
    /// likely low (up to 17 times on the graphs measured).
    Short { reached: usize, widest: usize },
    /// The frontier is wider than any measured: likely low.
    Wider { widest: usize },
}

impl Trust {
    /// The trust of a guess from frontiers of `widths`, past a probe of `measured` steps.
    pub fn of(widths: &[usize], measured: usize) -> Trust {
        let widest = widths.iter().copied().max().unwrap_or(0);
        let reached = widths.iter().take(measured + 1).copied().max().unwrap_or(0);
        if reached < widest {
            Trust::Short { reached, widest }
        } else if widest > MEASURED_WIDEST {
            Trust::Wider { widest }
        } else {
            Trust::Measured
        }
    }
}

/// Where a guessed profile comes from, as the plan, the warning and `leaper status` say it: the
/// probe measured the layers read by the first `measured` of `steps` steps, before frontiers of
/// `widths`.
pub fn source(measured: usize, steps: usize, widths: &[usize]) -> String {
    let guessed = format!("steps {}-{steps} guessed from the frontier's widths, as a graph has no rows", measured + 1);
    match Trust::of(widths, measured) {
        Trust::Measured => format!("{guessed}, within about 7 times"),
        Trust::Short { reached, widest } => format!(
            "{guessed}, likely low: the probe stopped at a frontier of {reached} vertices, short of its widest, {widest}"
        ),
        Trust::Wider { widest } => format!(
            "{guessed}, likely low: its frontier of {widest} vertices is wider than any the guess was measured on \
             ({MEASURED_WIDEST})"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len(), "{got:?}");
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= 0.05 * w.max(1.0), "{got:?} against {want:?}");
        }
    }

    #[test]
    fn the_worked_example() {
        let widths = [0, 2, 4, 4, 4, 4, 4, 2, 0];
        close(&extend(&[1, 4, 20, 40], &widths, 8), &[1.0, 4.0, 20.0, 40.0, 44.9, 46.2, 46.5, 6.8]);
    }

    #[test]
    fn a_probe_that_ran_every_step_is_the_profile() {
        let widths = [0, 1, 1, 0];
        assert_eq!(extend(&[1, 2, 3], &widths, 3), [1.0, 2.0, 3.0]);
    }

    #[test]
    fn layers_that_stopped_growing_stay_at_their_states_a_live_position() {
        // r falls over the last steps: the pace is none, r holds, the layers follow the widths.
        let widths = [0, 2, 2, 2, 2, 1, 0];
        let got = extend(&[1, 9, 9, 4], &widths, 6);
        close(&got, &[1.0, 9.0, 9.0, 4.0, 4.0, 2.0]);
    }

    #[test]
    fn a_guess_says_how_far_to_trust_it() {
        let widths = [0, 2, 4, 4, 4, 4, 4, 2, 0];
        assert_eq!(
            source(4, 8, &widths),
            "steps 5-8 guessed from the frontier's widths, as a graph has no rows, within about 7 times"
        );
        assert_eq!(Trust::of(&widths, 2), Trust::Measured);
        assert_eq!(Trust::of(&widths, 1), Trust::Short { reached: 2, widest: 4 });
        assert!(source(1, 8, &widths)
            .ends_with("likely low: the probe stopped at a frontier of 2 vertices, short of its widest, 4"));
        let wide = [0, 17, 17, 0];
        assert_eq!(Trust::of(&wide, 1), Trust::Wider { widest: 17 });
        assert!(source(1, 3, &wide)
            .ends_with("likely low: its frontier of 17 vertices is wider than any the guess was measured on (16)"));
    }

    #[test]
    fn only_a_sweep_without_rows_that_gives_its_widths_is_modelled_so() {
        let graph = ProfileHint { row: 3, rows_reached: 1, widths: vec![0, 1, 1, 0], ..ProfileHint::default() };
        assert!(applies(&graph, 3));
        assert!(!applies(&ProfileHint { widths: Vec::new(), ..graph.clone() }, 3));
        assert!(!applies(&ProfileHint { row: 1, ..graph }, 3));
    }
}
