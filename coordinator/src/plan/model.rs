//! The layer model of a plan: a whole pass's profile from its first complete rows.
//!
//! Layers grow row by row until the frontier has forgotten the board's top edge, then stay. The
//! model's constants are fitted on knight sweeps of widths 5 to 8 (the measured growths, and how
//! close the predictions come: docs/PERFORMANCE.md, "The layer model's constants"): the growth
//! of a row's total states, as a logarithm, keeps 0.8 of the row before's up to row `2h` (`h`:
//! the rows a move spans, 2 for the knight), 0.4 at row `2h + 1`, 0.15 at `2h + 2`, and nothing
//! after: the layers are saturated. So:
//!
//! 1. `G`, the growth of the last complete measured row's total over the row before's;
//! 2. each row after: `ln G` times that row's factor; each of its cells the same column a row up
//!    times the row's `G`;
//! 3. a saturated row's states are spread more evenly than the rows before predict (its largest
//!    layer holds a smaller share of the row than a growing row's does): from row `2h + 1` on, a
//!    predicted row keeps its total and shares it in proportion to the square roots of its
//!    cells;
//! 4. the board's last rows are cut by the problem's multipliers ([`ProfileHint`]).
//!
//! (Row 3 keeps what the problem says of it, where it knows better: see the end.)
//!
//! Worked example: width 2, `h = 1`, rows measured 1 + 3, then 10 + 30 (growth 10, `ln G` =
//! 2.30). Row 3 (= `2h + 1`): `ln G` = 2.30 * 0.4 = 0.92, G = 2.51: 25.1 and 75.4, which share
//! their 100.5 as sqrt 25.1 : sqrt 75.4 = 5.0 : 8.7, so 36.8 and 63.7. Row 4 (`2h + 2`): G =
//! 2.51^0.15 = 1.15, and so on; row 5 grows no more.
//!
//! The boards it was fitted on, with the probe stopped anywhere after two complete rows, and
//! how far its peak and states read fell from the truth there: docs/PERFORMANCE.md, "The layer
//! model's constants".
//!
//! Open tours: their ends in the first row inflate the second row's growth, and row 3 keeps 0.6
//! of it, not 0.8 (the problem says so in its [`ProfileHint`]; fitted on open knight's tours,
//! the same section).

//!
//! A probe cut short (within a second, before a count: wide boards do not reach two rows) is
//! completed to two rows first ([`complete_rows`]): the rest of row 1 grows as its last measured
//! step did; row 2 grows from row 1 by `G2 = 12 * T1^0.55`, `T1` the states read over row 1,
//! fitted on the closed knight's tours of widths 8 to 10 (their columns from the edges inwards)
//! to what two-row probes measured (the same section; at width 6, which a probe never cuts
//! short, the rule does not hold). A cell of row 2 past the measured ones takes the larger of
//! that and the last measured cell times the last measured growth within row 2 (later rows as
//! the model predicts from two rows). Open tours' row 2 grows less (their ends already fill row
//! 1): the rule overestimates it, and the peak it leads to far more (the same section).
//!
//! Worked example: width 4, states read 1, 2, 8 (row 1 cut short). Row 1 ends 8 * 4 = 32; `T1`
//! = 43, `G2` = 12 * 43^0.55 = 95.0, so row 2 is 95.0, 189.9, 759.8, 3039.1.

use leaper_core::engine::ProfileHint;

/// Row 2's growth over row 1 from row 1's states read `T1`: `G2 = 12 * T1^0.55` (module docs;
/// fitted: docs/PERFORMANCE.md, "The layer model's constants").
const SECOND_ROW_FACTOR: f64 = 12.0;
const SECOND_ROW_POWER: f64 = 0.55;

/// `known` (states read by the first steps, as measured) completed to two full rows of `width`
/// (or to `steps`, if fewer), as the module docs say; as it is if it already holds them.
pub fn complete_rows(known: &[u64], width: usize, steps: usize) -> Vec<u64> {
    let width = width.max(1);
    let want = (2 * width).min(steps);
    let mut states: Vec<f64> = known.iter().map(|&s| s as f64).collect();
    if states.len() >= want || states.is_empty() {
        return known.to_vec();
    }
    // The growth of the last measured step, if it and the step before are in row `row` (0, 1).
    let n = states.len();
    let measured_growth =
        |row: usize| (n >= row * width + 2).then(|| (states[n - 1] / states[n - 2].max(1.0)).max(1.0));
    let (first_growth, second_growth) = (measured_growth(0).unwrap_or(1.0), measured_growth(1));
    while states.len() < want.min(width) {
        states.push(states[states.len() - 1] * first_growth);
    }
    let row_one: f64 = states[..width.min(states.len())].iter().sum();
    let second = (SECOND_ROW_FACTOR * row_one.max(1.0).powf(SECOND_ROW_POWER)).max(1.0);
    while states.len() < want {
        let cell = states.len();
        let by_rule = states[cell - width] * second;
        let by_row = second_growth.map_or(0.0, |growth| states[cell - 1] * growth);
        states.push(by_rule.max(by_row));
    }
    states.iter().map(|s| s.round() as u64).collect()
}

/// How much of the second row's growth the third keeps, as a logarithm, where the problem's
/// facts say it differs from the usual 0.8 (`None`). Tour ends in the first row inflate the
/// second row's growth: the third keeps 0.6 of it (0.61-0.62 measured on
/// `knight 5x16 --open --sweep` and `knight 6x10 --open`). A row processed from its edges
/// inwards holds far fewer states in its first row (its cells merge with their mirror images
/// pair by pair), which inflates the second row's growth on wide boards: the third row keeps
/// 0.53 of it on `knight 7x10`, 0.48 on `knight 8x6 --sweep` (0.79 and 0.98 on 6 x 10 and
/// 5 x 12, the usual 0.8 there), open tours 0.40 on `knight 7x10 --open` and 0.53 on
/// `knight 6x8 --open` (0.45 here).
fn third_row_growth(hint: &ProfileHint) -> Option<f64> {
    match (hint.ends, hint.reordered) {
        (false, true) if hint.row >= 7 => Some(0.5),
        (false, _) => None,
        (true, false) => Some(0.6),
        (true, true) => Some(0.45),
    }
}

/// The factor of `ln G` for row `row` (from 1) of a board whose moves span `h` rows; row 3's is
/// `third` where the problem's facts say otherwise ([`third_row_growth`]).
fn decay(row: usize, h: usize, third: Option<f64>) -> f64 {
    let saturation = 2 * h + 1;
    match row {
        3 if third.is_some() && saturation > 3 => third.unwrap_or_default(),
        r if r < saturation => 0.8,
        r if r == saturation => 0.4,
        r if r == saturation + 1 => 0.15,
        _ => 0.0,
    }
}

/// The states read by every step of a pass of `steps` steps, from `known`: the states read by
/// its first steps (at least two complete rows, else they are returned as they are). `hint`
/// gives the row's length, the last rows' multipliers and row 3's growth; `h` is the rows a
/// move spans.
pub fn extend(known: &[u64], steps: usize, hint: &ProfileHint, h: usize) -> Vec<f64> {
    extend_rows(known, steps, hint.row, &hint.tail, third_row_growth(hint), h)
}

/// [`extend`], with row 3's growth `third` given.
fn extend_rows(known: &[u64], steps: usize, row: usize, tail: &[f64], third: Option<f64>, h: usize) -> Vec<f64> {
    let width = row.max(1);
    let full_rows = known.len() / width;
    let mut states: Vec<f64> = known.iter().map(|&s| s as f64).collect();
    if full_rows < 2 || known.len() >= steps {
        return states;
    }
    let row_total = |row: usize| known[row * width..(row + 1) * width].iter().map(|&s| s as f64).sum::<f64>();
    let mut log_growth = (row_total(full_rows - 1) / row_total(full_rows - 2).max(1.0)).max(1.0).ln();
    let rows = steps.div_ceil(width);
    // Growth of every row (from 1) not wholly measured.
    let mut growth = vec![1.0; rows + 1];
    for (row, g) in growth.iter_mut().enumerate().skip(full_rows + 1) {
        log_growth *= decay(row, h, third);
        *g = log_growth.exp();
    }
    let row_end = (known.len().div_ceil(width) * width).min(steps);
    for cell in known.len()..steps {
        states.push(states[cell - width] * growth[cell / width + 1]);
        if cell + 1 == row_end {
            keep_row_total(&mut states, known.len(), width, growth[cell / width + 1]);
        }
    }
    for row in 2 * h + 1..=rows {
        let cells = ((row - 1) * width).max(known.len())..(row * width).min(steps);
        if cells.is_empty() {
            continue;
        }
        let total: f64 = states[cells.clone()].iter().sum();
        let shares: f64 = states[cells.clone()].iter().map(|s| s.sqrt()).sum();
        for cell in cells {
            states[cell] = total * states[cell].sqrt() / shares.max(f64::MIN_POSITIVE);
        }
    }
    let first_cut = rows.saturating_sub(tail.len());
    for (cell, s) in states.iter_mut().enumerate().skip(known.len()) {
        if let Some(multiplier) = (cell / width).checked_sub(first_cut).and_then(|j| tail.get(j)) {
            *s *= multiplier;
        }
    }
    states
}

/// A row measured in part (`states[..measured]` measured, the rest of its row just predicted)
/// keeps the total its growth promises: along a row that saturates the first columns grow most,
/// so what the measured cells took beyond the row's growth is taken from the rest of the row
/// (down to no growth at all). Worked example: width 3, row above 1, 2, 7 (10), growth 3 (30);
/// measured 9, predicted 6 and 21: 21 is left for two cells the row above had 9 for, so they
/// become 6 * 21/27 = 4.7 and 21 * 21/27 = 16.3.
fn keep_row_total(states: &mut [f64], measured: usize, width: usize, growth: f64) {
    let start = measured / width * width;
    if measured == start || start < width {
        return;
    }
    let end = states.len();
    let sum = |cells: std::ops::Range<usize>| -> f64 { states[cells].iter().sum() };
    let promised = sum(start - width..end - width) * growth;
    let rest = (promised - sum(start..measured)).max(sum(measured - width..end - width));
    let scale = rest / sum(measured..end).max(f64::MIN_POSITIVE);
    for s in &mut states[measured..end] {
        *s *= scale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(tail: &[f64]) -> ProfileHint {
        ProfileHint { row: 2, tail: tail.to_vec(), rows_reached: 1, ..ProfileHint::default() }
    }

    #[test]
    fn the_worked_example_of_the_module_docs() {
        let states = extend(&[1, 3, 10, 30], 10, &hint(&[]), 1);
        let g3 = (10f64.ln() * 0.4).exp();
        let (a, b) = (10.0 * g3, 30.0 * g3);
        let share = |x: f64| (a + b) * x.sqrt() / (a.sqrt() + b.sqrt());
        assert!((states[4] - share(a)).abs() < 1e-9 && (states[5] - share(b)).abs() < 1e-9);
        assert!((states[4] - 36.8).abs() < 0.1 && (states[5] - 63.7).abs() < 0.1, "{states:?}");
        let g4 = (10f64.ln() * 0.4 * 0.15).exp();
        assert!((states[6] + states[7] - (a + b) * g4).abs() < 1e-9);
        // Row 5 grows no more.
        assert!((states[8] + states[9] - states[6] - states[7]).abs() < 1e-9);
    }

    #[test]
    fn the_tail_cuts_only_what_was_predicted_and_short_probes_stay_as_they_are() {
        let cut = extend(&[1, 3, 10, 30], 8, &hint(&[0.5, 0.0]), 1);
        let uncut = extend(&[1, 3, 10, 30], 8, &hint(&[]), 1);
        assert_eq!(&cut[..4], &[1.0, 3.0, 10.0, 30.0]);
        assert!((cut[4] - 0.5 * uncut[4]).abs() < 1e-9 && cut[6] == 0.0);
        assert_eq!(extend(&[1, 3, 10], 8, &hint(&[]), 1), vec![1.0, 3.0, 10.0]);
    }

    #[test]
    fn a_short_probe_is_completed_to_two_rows_as_the_module_docs_say() {
        assert_eq!(complete_rows(&[1, 2, 8], 4, 40), [1, 2, 8, 32, 95, 190, 760, 3039]);
        // Row 2 measured in part: the larger of the rule (here 12 * 3^0.55 = 22.0 times row 1)
        // and the row's own last measured growth.
        assert_eq!(complete_rows(&[1, 1, 1, 100, 1_000], 3, 40), [1, 1, 1, 100, 1_000, 10_000]);
        assert_eq!(complete_rows(&[1, 1, 1, 100, 101], 3, 40), [1, 1, 1, 100, 101, 102]);
        assert_eq!(complete_rows(&[1, 1, 50, 100, 101], 3, 40), [1, 1, 50, 100, 101, 5_272]);
        // Nothing to complete: two rows measured, or a sweep shorter than two rows.
        assert_eq!(complete_rows(&[1, 2, 3, 4], 2, 40), [1, 2, 3, 4]);
        assert_eq!(complete_rows(&[1, 2], 4, 2), [1, 2]);
    }

    #[test]
    fn a_row_measured_in_part_keeps_the_total_its_growth_promises() {
        let mut states = vec![1.0, 2.0, 7.0, 9.0, 6.0, 21.0];
        keep_row_total(&mut states, 4, 3, 3.0);
        let rounded: Vec<f64> = states.iter().map(|s| (s * 10.0).round() / 10.0).collect();
        assert_eq!(rounded, [1.0, 2.0, 7.0, 9.0, 4.7, 16.3]);
        // The measured cells took more than the whole row's growth: the rest grows no more.
        let mut states = vec![1.0, 2.0, 7.0, 40.0, 6.0, 21.0];
        keep_row_total(&mut states, 4, 3, 3.0);
        assert_eq!(states, [1.0, 2.0, 7.0, 40.0, 2.0, 7.0]);
    }

    #[test]
    fn the_problem_s_facts_decide_what_row_three_keeps() {
        let third = |row, ends, reordered| third_row_growth(&ProfileHint { row, ends, reordered, ..hint(&[]) });
        assert_eq!(third(7, false, true), Some(0.5), "closed, from the edges inwards, wide");
        assert_eq!(third(6, false, true), None, "closed, from the edges inwards, narrow");
        assert_eq!(third(9, false, false), None, "closed, row-major");
        assert_eq!(third(6, true, false), Some(0.6), "open, row-major");
        assert_eq!(third(6, true, true), Some(0.45), "open, from the edges inwards");
    }

    #[test]
    fn a_problem_may_say_what_row_three_keeps() {
        // h = 2: rows 3 and 4 keep 0.8 each, unless row 3 is told otherwise.
        let usual = extend(&[1, 1, 100, 100], 8, &hint(&[]), 2);
        let open = extend_rows(&[1, 1, 100, 100], 8, 2, &[], Some(0.5), 2);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b;
        assert!(close(usual[4] / 100.0, (100f64.ln() * 0.8).exp()), "{usual:?}");
        assert!(close(open[4] / 100.0, (100f64.ln() * 0.5).exp()), "{open:?}");
        assert!(close(open[6] / open[4], (100f64.ln() * 0.5 * 0.8).exp()), "{open:?}");
    }
}
