//! Why counts are 0, said before counting: each reason whole where there are few (or with
//! `-v`, or in JSON logs), otherwise one line for each kind of reason, its boards named
//! together, and on a terminal each line fitted to its width:
//!
//! ```text
//! note: knight 5x1, 5x2: no closed tour: the board's graph is disconnected
//! note: knight 5x3, 5x5, 5x7, 5x9, 5x11, 5x13, 5x15, 5x17, 5x19: no closed tour: unequal colours
//! note: knight 5x4: no closed tour: forced moves contradict
//! ```
//!
//! (`knight 5x20 --sweep` wrote twelve notes of two or three lines each on an 80-column
//! terminal.) `-v` says each reason whole, and the result lines of `--format json` carry them.

/// More reasons than this are said in brief and grouped.
pub const SAID_WHOLE: usize = 2;

/// One line for each kind of reason in `briefs` (`subject: verdict: gist`, the gist shared by
/// a kind), in the order the kinds first come: the subjects joined, their common first words
/// said once (`knight 5x3, 5x5`).
pub fn grouped(briefs: &[(usize, String)]) -> Vec<String> {
    let mut kinds: Vec<(&str, Vec<&str>)> = Vec::new();
    for (_, brief) in briefs {
        let (subject, why) = brief.split_once(": ").unwrap_or(("", brief));
        match kinds.iter_mut().find(|(kind, _)| *kind == why) {
            Some((_, subjects)) => subjects.push(subject),
            None => kinds.push((why, vec![subject])),
        }
    }
    kinds.into_iter().map(|(why, subjects)| format!("{}: {why}", joined(&subjects))).collect()
}

/// `knight 5x3, 5x5, 5x7`: the words all subjects start with, said once.
fn joined(subjects: &[&str]) -> String {
    let first = subjects[0];
    // The common start, to a word's end: `knight ` of `knight 5x3` and `knight 5x5`.
    let common = subjects[1..].iter().fold(first.len(), |common, subject| {
        let same = first.bytes().zip(subject.bytes()).take_while(|(a, b)| a == b).count();
        common.min(same)
    });
    let cut = first[..common].rfind(' ').map_or(0, |space| space + 1);
    let rest: Vec<&str> = subjects[1..].iter().map(|subject| &subject[cut..]).collect();
    std::iter::once(first).chain(rest).collect::<Vec<_>>().join(", ")
}

/// `line` cut to `width` columns: the subjects listed first give way to `… (N boards)` before
/// the reason is cut.
pub fn fitted(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return line.to_string();
    }
    let Some((subjects, why)) = line.split_once(": ") else { return cut(line, width) };
    let names: Vec<&str> = subjects.split(", ").collect();
    for shown in (1..names.len()).rev() {
        let shorter = format!("{}, … ({} boards): {why}", names[..shown].join(", "), names.len());
        if shorter.chars().count() <= width {
            return shorter;
        }
    }
    let fewest =
        if names.len() > 1 { format!("{}, … ({} boards): {why}", names[0], names.len()) } else { line.to_string() };
    cut(&fewest, width)
}

fn cut(line: &str, width: usize) -> String {
    let kept: String = line.chars().take(width.saturating_sub(1)).collect();
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn briefs() -> Vec<(usize, String)> {
        let colours = "no closed tour: unequal colours";
        vec![
            (0, "knight 5x1: no closed tour: the board's graph is disconnected".into()),
            (1, "knight 5x2: no closed tour: the board's graph is disconnected".into()),
            (2, format!("knight 5x3: {colours}")),
            (3, "knight 5x4: no closed tour: forced moves contradict".into()),
            (4, format!("knight 5x5: {colours}")),
            (6, format!("knight 5x7: {colours}")),
            (18, format!("knight 5x19: {colours}")),
        ]
    }

    #[test]
    fn a_kind_of_reason_is_one_line() {
        assert_eq!(
            grouped(&briefs()),
            [
                "knight 5x1, 5x2: no closed tour: the board's graph is disconnected",
                "knight 5x3, 5x5, 5x7, 5x19: no closed tour: unequal colours",
                "knight 5x4: no closed tour: forced moves contradict",
            ]
        );
        // Subjects that share no first word are named whole.
        let mixed =
            [(0, "graph a.g6: no Hamiltonian cycle: x".to_string()), (1, "graph b.g6: no Hamiltonian cycle: x".into())];
        assert_eq!(grouped(&mixed), ["graph a.g6, b.g6: no Hamiltonian cycle: x"]);
        let apart = [(0, "a 1: no: x".to_string()), (1, "b 2: no: x".into())];
        assert_eq!(grouped(&apart), ["a 1, b 2: no: x"]);
    }

    #[test]
    fn a_line_too_wide_names_fewer_boards_then_is_cut() {
        let line = &grouped(&briefs())[1];
        assert_eq!(line.chars().count(), 59);
        assert_eq!(fitted(line, 59), *line);
        // Naming three of four boards is longer than naming four: one is named.
        assert_eq!(fitted(line, 58), "knight 5x3, … (4 boards): no closed tour: unequal colours");
        assert_eq!(fitted(line, 40), "knight 5x3, … (4 boards): no closed tou…");
        assert_eq!(fitted("knight 5x4: no closed tour: forced moves contradict", 20), "knight 5x4: no clos…");
        assert_eq!(fitted("short: line", 80), "short: line");
    }
}
