//! Fitting a line of the live display to the terminal's width. A line is fields, each with its
//! forms from the fullest to the shortest (the last often none at all); while the line is wider
//! than the terminal, the next field in the line's stated order steps down to its next form:
//!
//! ```text
//! fields   label | bar (30, 12, none) | 37/70 steps | pass (with its note, bare, none) | row, column (or none)
//! order    pass's note, bar to 12, row and column, pass, bar
//! 120      knight 8x10 --sweep  ━━━━━━━━━━━━━━━╸━━━━━━━━━━━━━━ 37/70 steps · pass 1/1 (2 if a count outgrows 64 bits) · row 5, column 2
//!  80      knight 8x10 --sweep  ━━━━━━━━━━━━━━━╸━━━━━━━━━━━━━━ 37/70 steps · pass 1/1 · row 5, column 2
//!  50      knight 8x10 --sweep  ━━━━━━╸━━━━━ 37/70 steps
//! ```
//!
//! What no order makes fit (a label wider than the terminal) is cut, with `…` at its end: a
//! display line never wraps, so the display redraws in place.

/// One field of a line: what separates it from the fields before it, and its forms, fullest
/// first.
pub struct Field {
    before: &'static str,
    forms: Vec<String>,
}

impl Field {
    /// A field shown whole or not at all.
    pub fn or_none(before: &'static str, text: String) -> Field {
        Field { before, forms: vec![text, String::new()] }
    }

    /// A field with `forms`, fullest first.
    pub fn forms(before: &'static str, forms: Vec<String>) -> Field {
        Field { before, forms }
    }

    /// A field always shown as it is.
    pub fn kept(before: &'static str, text: String) -> Field {
        Field { before, forms: vec![text] }
    }
}

/// The line of `fields` that fits `width` columns: fields step down to their next form in
/// `order` (indices into `fields`; one may come more than once) until it fits, then what is
/// still too wide is cut.
pub fn fit(fields: &[Field], order: &[usize], width: usize) -> String {
    let mut form = vec![0; fields.len()];
    let mut line = render(fields, &form);
    for &field in order {
        if terminal::measure_text_width(&line) <= width {
            return line;
        }
        if form[field] + 1 < fields[field].forms.len() {
            form[field] += 1;
            line = render(fields, &form);
        }
    }
    if terminal::measure_text_width(&line) <= width {
        return line;
    }
    terminal::truncate_str(&line, width, "…").into_owned()
}

/// The fields in their chosen forms, each separated from what is shown before it.
fn render(fields: &[Field], form: &[usize]) -> String {
    let mut line = String::new();
    for (field, &chosen) in fields.iter().zip(form) {
        let text = &field.forms[chosen];
        if text.is_empty() {
            continue;
        }
        if !line.is_empty() {
            line.push_str(field.before);
        }
        line.push_str(text);
    }
    line
}

/// The columns of the terminal on stderr (80 where it does not say): the display fits one
/// column less, so that no line reaches the last column (some terminals wrap there).
pub fn stderr_width() -> usize {
    let columns = terminal::Term::stderr().size_checked().map_or(80, |(_, columns)| usize::from(columns));
    columns.saturating_sub(1).max(20)
}

/// A bar `width` columns wide, filled to `fraction` (0 to 1): `━━━━╸━━━━`, done in cyan, the
/// rest in blue, as indicatif draws its bars (colours only where stderr shows them).
pub fn bar(fraction: f64, width: usize) -> String {
    let fraction = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
    let eighths = (fraction * width as f64 * 2.0).round() as usize;
    let (full, half) = (eighths / 2, eighths % 2 == 1);
    let done = "━".repeat(full) + if half { "╸" } else { "" };
    let rest = "━".repeat(width - full - usize::from(half));
    format!("{}{}", terminal::style(done).cyan().for_stderr(), terminal::style(rest).blue().for_stderr())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(width: usize) -> String {
        let fields = [
            Field::kept("", "knight 8x10 --sweep".into()),
            Field::forms("  ", vec!["#".repeat(30), "#".repeat(12), String::new()]),
            Field::kept(" ", "37/70 steps".into()),
            Field::forms(
                " · ",
                vec!["pass 1/1 (2 if a count outgrows 64 bits)".into(), "pass 1/1".into(), String::new()],
            ),
            Field::or_none(" · ", "row 5, column 2".into()),
        ];
        fit(&fields, &[3, 1, 4, 3, 1], width)
    }

    #[test]
    fn fields_give_way_in_the_stated_order() {
        let hashes = |n: usize| "#".repeat(n);
        let full = format!(
            "knight 8x10 --sweep  {} 37/70 steps · pass 1/1 (2 if a count outgrows 64 bits) · row 5, column 2",
            hashes(30)
        );
        assert_eq!(line(200), full);
        assert_eq!(line(full.chars().count()), full);
        let bare = format!("knight 8x10 --sweep  {} 37/70 steps · pass 1/1 · row 5, column 2", hashes(30));
        assert_eq!(line(bare.chars().count()), bare);
        assert_eq!(line(80), format!("knight 8x10 --sweep  {} 37/70 steps · pass 1/1 · row 5, column 2", hashes(12)));
        assert_eq!(line(50), format!("knight 8x10 --sweep  {} 37/70 steps", hashes(12)));
        assert_eq!(line(40), "knight 8x10 --sweep 37/70 steps");
        // Past every order: cut.
        assert_eq!(line(12), "knight 8x10…");
        for width in 12..200 {
            assert!(line(width).chars().count() <= width, "{width}: {}", line(width));
        }
    }

    #[test]
    fn a_bar_fills_by_halves_and_is_as_wide_as_asked() {
        let plain = |fraction: f64| terminal::strip_ansi_codes(&bar(fraction, 10)).into_owned();
        assert_eq!(plain(0.0), "━━━━━━━━━━");
        assert_eq!(plain(0.25), "━━╸━━━━━━━");
        for fraction in [0.0, 0.04, 0.5, 0.99, 1.0, 2.0, f64::NAN] {
            assert_eq!(terminal::measure_text_width(&bar(fraction, 10)), 10, "{fraction}");
        }
    }
}
