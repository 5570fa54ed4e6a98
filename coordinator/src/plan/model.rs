//! The layer model of a plan: a whole pass's profile from its first complete rows.
//!
//! Layers grow row by row until the frontier has forgotten the board's top edge, then stay; the
//! board's end cuts the last rows down. Three things are predicted: each row's total, how the
//! total spreads along the row, and what the board's end leaves of each cell. The constants are
//! fitted on knight sweeps of widths 5 to 9 (the measured figures, and how close the
//! predictions come: docs/PERFORMANCE-LOG.md, "The layer model's constants").
//!
//! 1. **Totals.** `G`, the growth of the last complete measured row's total over the row
//!    before's. The logarithm of each later row's growth keeps a share of the row before's:
//!    0.8 up to row `2h` (`h`: the rows a move spans, 2 for the knight), `2.5 / width` at row
//!    `2h + 1` (the saturating row: 0.50, 0.42, 0.36 and 0.28 measured at widths 5, 6, 7 and
//!    9), 0.15 at `2h + 2`, and nothing after: the layers are saturated. (Row 3 keeps what the
//!    problem's facts say of it, where they say otherwise: [`third_row_growth`].)
//! 2. **Along a row.** A growing row's layers rise steeply along it, a saturated row's hardly:
//!    a predicted row spreads its total as row 2's layers at the same positions, raised to a
//!    power: 0.57 for the growing rows, 0.17 for row `2h + 1`, 0.13 after (relative to the last
//!    complete measured row's own power, where more than two rows were measured).
//! 3. **The board's end.** The problem says what each of the last rows keeps of the states its
//!    growth promised ([`ProfileHint::tail`]). Within a row the cut falls on its later cells:
//!    the first half of a row keeps what the row before ended with, the second half falls,
//!    geometrically, to the row's last cell, so that a row whose layers are even keeps the
//!    problem's figure. A growing row, which holds most of its states in its last cells, keeps
//!    less (the first cut row of 7 x 8 kept 0.70 of 7 x 12's; that of 7 x 10, a saturated
//!    row, 0.84): [`BoardEnd`].
//!
//! Worked example: width 4, `h = 1`, rows measured 1, 1, 2, 4 and 4, 8, 16, 52 (totals 8 and
//! 80: `G = 10`). Row 3 (= `2h + 1`) grows by `10^(2.5 / 4)` = 4.22, to 337.4, spread as
//! `4^0.17 : 8^0.17 : 16^0.17 : 52^0.17` = 1.27 : 1.42 : 1.60 : 1.96, so 68.3, 76.9, 86.5 and
//! 105.7. Row 4 grows by `4.22^0.15` = 1.24 (418.6, spread by the power 0.13: 89.3, 97.7,
//! 106.9, 124.7); row 5 grows no more.
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
/// fitted: docs/PERFORMANCE-LOG.md, "The layer model's constants").
const SECOND_ROW_FACTOR: f64 = 12.0;
const SECOND_ROW_POWER: f64 = 0.55;

/// The share of the row before's growth, as a logarithm, that a growing row keeps (rows 3 to
/// `2h`): 0.80 and 0.79 measured at widths 6 and 7, 0.78 at width 9.
const GROWING: f64 = 0.8;
/// The saturating row (`2h + 1`) keeps `SATURATION_WIDTH / width` of it (module docs).
const SATURATION_WIDTH: f64 = 2.5;
/// The row after it keeps this much; later rows grow no more.
const SETTLING: f64 = 0.15;

/// The power of row 2's layers that spreads a predicted row's total along it: a growing row's
/// (rows 3 to `2h`), the saturating row's, and a saturated row's. Measured: 0.55-0.58 in rows
/// 3 and 4, 0.16-0.24 in row 5 and 0.12-0.15 after on knight sweeps of widths 5 to 7, closed
/// and open; 0.56 in row 4 and 0.14 in row 5 of 9 x 10.
const SHAPE_GROWING: f64 = 0.57;
const SHAPE_SATURATING: f64 = 0.17;
const SHAPE_SATURATED: f64 = 0.13;

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
/// 0.53 of it on `knight 7x10` and `7x12 --sweep`, 0.585 on `knight 8x8`, 0.54 on `knight 9x10`
/// (0.53 here, with the 0.8 of row 4, which keeps 0.78 there), 0.79 and 0.98 on 6 x 10 and
/// 5 x 12 (the usual 0.8 there); open tours 0.40 on `knight 7x10 --open` and 0.53 on
/// `knight 6x8 --open` (0.45 here).
fn third_row_growth(hint: &ProfileHint) -> Option<f64> {
    match (hint.ends, hint.reordered) {
        (false, true) if hint.row == 8 => Some(0.58),
        (false, true) if hint.row >= 7 => Some(0.53),
        (false, _) => None,
        (true, false) => Some(0.6),
        (true, true) => Some(0.45),
    }
}

/// The factor of `ln G` for row `row` (from 1) of a board `width` cells wide whose moves span
/// `h` rows; row 3's is `third` where the problem's facts say otherwise ([`third_row_growth`]).
fn decay(row: usize, h: usize, width: usize, third: Option<f64>) -> f64 {
    let saturation = 2 * h + 1;
    match row {
        3 if third.is_some() && saturation > 3 => third.unwrap_or_default(),
        r if r < saturation => GROWING,
        r if r == saturation => (SATURATION_WIDTH / width.max(1) as f64).min(GROWING),
        r if r == saturation + 1 => SETTLING,
        _ => 0.0,
    }
}

/// The power of row 2's layers that spreads row `row`'s total along it (module docs).
fn shape_power(row: usize, h: usize) -> f64 {
    let saturation = 2 * h + 1;
    match row {
        r if r <= 2 => 1.0,
        r if r < saturation => SHAPE_GROWING,
        r if r == saturation => SHAPE_SATURATING,
        _ => SHAPE_SATURATED,
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
        log_growth *= decay(row, h, width, third);
        *g = log_growth.exp();
    }
    // 1. The totals: each cell the same column a row up times its row's growth.
    let row_end = (known.len().div_ceil(width) * width).min(steps);
    for cell in known.len()..steps {
        states.push(states[cell - width] * growth[cell / width + 1]);
        if cell + 1 == row_end {
            keep_row_total(&mut states, known.len(), width, growth[cell / width + 1]);
        }
    }
    // 2. Along each row: the predicted cells of a row share their total as the last complete
    // measured row's layers, raised to the power that takes that row's shape to this one's.
    let measured_row = &known[(full_rows - 1) * width..full_rows * width];
    for row in full_rows + 1..=rows {
        let cells = ((row - 1) * width).max(known.len())..(row * width).min(steps);
        if cells.is_empty() {
            continue;
        }
        let power = shape_power(row, h) / shape_power(full_rows, h);
        let shares: Vec<f64> =
            cells.clone().map(|cell| (measured_row[cell % width] as f64).max(1.0).powf(power)).collect();
        let (total, sum): (f64, f64) = (states[cells.clone()].iter().sum(), shares.iter().sum());
        for (cell, share) in cells.zip(shares) {
            states[cell] = total * share / sum;
        }
    }
    // 3. The board's end.
    let end = BoardEnd::new(tail, width, steps);
    for (cell, s) in states.iter_mut().enumerate().skip(known.len()) {
        *s *= end.multiplier(cell);
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

/// What the board's end leaves of each cell's layer: the problem's multiplier of each of the
/// last rows ([`ProfileHint::tail`], what a row whose layers are even keeps), spread along the
/// row as the module docs say. Position `p` (from 0) of a row `w` wide falls by the fraction
/// `(p + 1 - w/2) / (w/2)` (none in the row's first half) of the row's whole fall, in
/// logarithms, from what the row before ended with; the fall is the one whose row keeps the
/// multiplier on average (or, where even the deepest fall keeps more, the multiplier is kept
/// evenly).
///
/// Worked example: width 4 (fractions 0, 0, 1/2, 1), multipliers 0.7 then 0. Row 1 keeps 1, 1,
/// `sqrt r`, `r` with `(2 + sqrt r + r) / 4 = 0.7`: `r` = 0.275, so 1, 1, 0.525, 0.275. A
/// growing row of 1, 2, 4, 8 keeps 7.3 of its 15 states (0.49), an even row 0.7. Row 2 keeps
/// nothing.
///
/// Measured: the per-position share each of the last rows of knight boards keeps of a longer
/// board's (7 x 8 and 7 x 10 against 7 x 12, 6 x 8, 6 x 10 and 6 x 12 against 6 x 14, 5 x 10
/// against 5 x 16): the same along the row whether the row is still growing or saturated,
/// about 1 over the first half, then falling (7 wide: 1.00, 1.00, 1.00, 0.88-0.91, 0.68,
/// 0.65-0.66, 0.56-0.57, and the next row on from there).
#[derive(Clone, Debug, PartialEq)]
pub struct BoardEnd {
    width: usize,
    /// The row (from 0) the first multiplier cuts.
    first_cut: usize,
    /// Per cut row, the multiplier of each position.
    rows: Vec<Vec<f64>>,
}

impl BoardEnd {
    /// The cut of a pass of `steps` steps in rows of `width`, its last rows keeping `tail` (the
    /// last row last).
    pub fn new(tail: &[f64], width: usize, steps: usize) -> BoardEnd {
        let width = width.max(1);
        let rows = steps.div_ceil(width);
        let fractions: Vec<f64> = (0..width)
            .map(|p| {
                let half = width as f64 / 2.0;
                ((p as f64 + 1.0 - half) / half).clamp(0.0, 1.0)
            })
            .collect();
        let mut before = 1.0;
        let mut cut_rows = Vec::with_capacity(tail.len());
        for &keeps in tail {
            let row = row_cut(before, keeps, &fractions);
            before = row.last().copied().unwrap_or(0.0);
            cut_rows.push(row);
        }
        BoardEnd { width, first_cut: rows.saturating_sub(tail.len()), rows: cut_rows }
    }

    /// What the board's end leaves of cell `cell`'s layer (1 before the cut rows).
    pub fn multiplier(&self, cell: usize) -> f64 {
        (cell / self.width)
            .checked_sub(self.first_cut)
            .and_then(|j| self.rows.get(j))
            .map_or(1.0, |row| row[cell % self.width])
    }
}

/// One cut row's multipliers by position ([`BoardEnd`]): from `before` (what the row before
/// ended with) falling by `fractions` of the fall whose row keeps `keeps` on average.
fn row_cut(before: f64, keeps: f64, fractions: &[f64]) -> Vec<f64> {
    // How deep a fall may go, as a logarithm: far past anything a board's end cuts.
    const DEEPEST: f64 = -60.0;
    let width = fractions.len().max(1) as f64;
    let mean = |fall: f64| fractions.iter().map(|f| before * (fall * f).exp()).sum::<f64>() / width;
    if keeps <= 0.0 || before <= 0.0 {
        return vec![0.0; fractions.len()];
    }
    if keeps >= before || mean(DEEPEST) > keeps {
        return vec![keeps; fractions.len()];
    }
    // The mean falls as the fall deepens: halve the interval that holds `keeps`.
    let (mut deep, mut shallow) = (DEEPEST, 0.0);
    for _ in 0..100 {
        let middle = (deep + shallow) / 2.0;
        if mean(middle) > keeps {
            shallow = middle;
        } else {
            deep = middle;
        }
    }
    fractions.iter().map(|f| before * (deep * f).exp()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(row: usize, tail: &[f64]) -> ProfileHint {
        ProfileHint { row, tail: tail.to_vec(), rows_reached: 1, ..ProfileHint::default() }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn the_worked_example_of_the_module_docs() {
        let states = extend(&[1, 1, 2, 4, 4, 8, 16, 52], 20, &hint(4, &[]), 1);
        let g3 = (10f64.ln() * 2.5 / 4.0).exp();
        let row3: f64 = states[8..12].iter().sum();
        assert!(close(row3, 80.0 * g3), "{states:?}");
        let rounded = |cells: &[f64]| cells.iter().map(|s| (s * 10.0).round() / 10.0).collect::<Vec<_>>();
        assert_eq!(rounded(&states[8..12]), [68.3, 76.9, 86.5, 105.7]);
        let g4 = (10f64.ln() * 2.5 / 4.0 * 0.15).exp();
        assert!(close(states[12..16].iter().sum(), 80.0 * g3 * g4), "{states:?}");
        assert_eq!(rounded(&states[12..16]), [89.3, 97.7, 106.9, 124.7]);
        // Row 5 grows no more, and keeps row 4's shape.
        for cell in 16..20 {
            assert!(close(states[cell], states[cell - 4]), "{states:?}");
        }
    }

    #[test]
    fn a_saturated_row_is_flatter_than_a_growing_one() {
        // h = 2: rows 3 and 4 grow, row 5 saturates. Row 2 rises 64 times along the row.
        let states = extend(&[1, 1, 1, 1, 1, 4, 16, 64], 24, &hint(4, &[]), 2);
        let rise = |row: usize| states[row * 4 + 3] / states[row * 4];
        assert!(close(rise(2), 64f64.powf(0.57)) && close(rise(3), 64f64.powf(0.57)), "{states:?}");
        assert!(close(rise(4), 64f64.powf(0.17)) && close(rise(5), 64f64.powf(0.13)), "{states:?}");
    }

    #[test]
    fn the_board_s_end_falls_along_its_rows_as_the_docs_say() {
        let end = BoardEnd::new(&[0.7, 0.0], 4, 12);
        let row: Vec<f64> = (4..8).map(|cell| end.multiplier(cell)).collect();
        assert!(row[..2].iter().all(|&m| m == 1.0) && (row.iter().sum::<f64>() / 4.0 - 0.7).abs() < 1e-12, "{row:?}");
        assert!((row[3] - 0.2753).abs() < 1e-4 && (row[2] - row[3].sqrt()).abs() < 1e-12, "{row:?}");
        let growing = [1.0, 2.0, 4.0, 8.0];
        let kept: f64 = growing.iter().zip(&row).map(|(s, m)| s * m).sum();
        assert!((kept - 7.3).abs() < 0.01, "{kept}");
        assert_eq!(
            (0..4).chain(8..12).map(|cell| end.multiplier(cell)).collect::<Vec<_>>(),
            [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
        );
        // A multiplier the deepest fall cannot reach on average is kept evenly.
        let even = BoardEnd::new(&[0.3, 0.01], 4, 8);
        assert!((4..8).all(|cell| even.multiplier(cell) == 0.01), "{even:?}");
    }

    #[test]
    fn the_tail_cuts_only_what_was_predicted_and_short_probes_stay_as_they_are() {
        let cut = extend(&[1, 3, 10, 30], 8, &hint(2, &[0.5, 0.0]), 1);
        let uncut = extend(&[1, 3, 10, 30], 8, &hint(2, &[]), 1);
        let end = BoardEnd::new(&[0.5, 0.0], 2, 8);
        assert_eq!(&cut[..4], &[1.0, 3.0, 10.0, 30.0]);
        assert!(close(cut[4], end.multiplier(4) * uncut[4]) && close(cut[5], end.multiplier(5) * uncut[5]));
        assert!(cut[6] == 0.0 && cut[7] == 0.0);
        assert_eq!(extend(&[1, 3, 10], 8, &hint(2, &[]), 1), vec![1.0, 3.0, 10.0]);
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
        let third = |row, ends, reordered| third_row_growth(&ProfileHint { row, ends, reordered, ..hint(2, &[]) });
        assert_eq!(third(7, false, true), Some(0.53), "closed, from the edges inwards, wide");
        assert_eq!(third(9, false, true), Some(0.53), "closed, from the edges inwards, 9 wide");
        assert_eq!(third(8, false, true), Some(0.58), "closed, from the edges inwards, 8 wide");
        assert_eq!(third(6, false, true), None, "closed, from the edges inwards, narrow");
        assert_eq!(third(9, false, false), None, "closed, row-major");
        assert_eq!(third(6, true, false), Some(0.6), "open, row-major");
        assert_eq!(third(6, true, true), Some(0.45), "open, from the edges inwards");
    }

    #[test]
    fn a_problem_may_say_what_row_three_keeps_and_width_what_row_five_does() {
        // h = 2: rows 3 and 4 keep 0.8 each, unless row 3 is told otherwise; row 5 2.5 / width.
        let usual = extend(&[1, 1, 100, 100], 10, &hint(2, &[]), 2);
        let told = extend_rows(&[1, 1, 100, 100], 10, 2, &[], Some(0.5), 2);
        let total = |states: &[f64], row: usize| states[2 * row] + states[2 * row + 1];
        assert!(close(total(&usual, 2) / 200.0, (100f64.ln() * 0.8).exp()), "{usual:?}");
        assert!(close(total(&told, 2) / 200.0, (100f64.ln() * 0.5).exp()), "{told:?}");
        assert!(close(total(&told, 3) / total(&told, 2), (100f64.ln() * 0.5 * 0.8).exp()), "{told:?}");
        // Width 2: 2.5 / 2 is more than a growing row keeps, so row 5 keeps 0.8 too.
        let row5 = total(&told, 4) / total(&told, 3);
        assert!(close(row5, (100f64.ln() * 0.5 * 0.8 * 0.8).exp()), "{told:?}");
        assert!(close(decay(5, 2, 9, None), 2.5 / 9.0) && decay(6, 2, 9, None) == 0.15 && decay(7, 2, 9, None) == 0.0);
    }
}
