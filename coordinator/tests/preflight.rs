//! The preflight of a request (issue 45): a count that will not fit this machine says so before its first
//! step and goes on; `tours enumerate` and `tours generate` refuse what cannot finish or has
//! nothing to find, with the reason, a failing exit and no file written.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

mod common;

use common::{leaper, path, scratch_dir, text};

const LEAPER: &str = env!("CARGO_BIN_EXE_leaper");

/// Starts `leaper ARGS` with plain lines on stderr (not a terminal: every step is logged, so a
/// step before the warning would show) and stops it at its warning: the warning, and whether the
/// count was still going on after it.
fn warning_before_the_first_step(args: &[&str]) -> (String, bool) {
    let mut child = Command::new(LEAPER)
        .args(args)
        .env("RUST_LOG", "info")
        .env_remove("LEAPER_FAULT")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("leaper runs");
    let mut before = Vec::new();
    let mut warning = None;
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if line.starts_with("warning: ") {
            warning = Some(line);
            break;
        }
        before.push(line);
    }
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    let warning = warning.unwrap_or_else(|| panic!("{args:?}: no warning; stderr: {before:#?}"));
    assert!(!before.iter().any(|line| line.contains("step done")), "a step before the warning: {before:#?}");
    (warning, running)
}

#[test]
fn knight_12x12_warns_in_one_line_before_its_first_step_and_goes_on() {
    let (warning, running) = warning_before_the_first_step(&["knight", "12x12"]);
    assert!(warning.starts_with("warning: knight 12x12 needs about "), "{warning}");
    for says in [" states at its peak (", " in memory, where a count may hold ", " on this machine; "] {
        assert!(warning.contains(says), "{warning} lacks {says:?}");
    }
    assert!(warning.ends_with("see `leaper plan knight 12x12`"), "{warning}");
    assert!(running, "the count stopped after the warning");
}

/// Issue 58: a graph's sweep (here a board with squares removed, counted as its graph) has no
/// rows and started without a word; it is priced from its frontier's widths, and the warning
/// says how far to trust the guess.
#[test]
fn a_wide_graph_warns_before_its_first_step_and_says_its_guess_is_likely_low() {
    let (warning, running) = warning_before_the_first_step(&["knight", "10x10", "--remove", "a1,b1"]);
    assert!(warning.starts_with("warning: knight 10x10 --remove a1,b1 needs about "), "{warning}");
    assert!(
        warning.contains(
            " (steps 14-98 guessed from the frontier's widths, as a graph has no rows, likely low: its frontier of 21 \
             vertices is wider than any the guess was measured on (16)); see `leaper plan knight 10x10 --remove a1,b1`"
        ),
        "{warning}"
    );
    assert!(running, "the count stopped after the warning");
}

#[test]
fn counts_that_fit_say_nothing() {
    // 6x6 is never probed; 7x6 is (a frontier of 14 cells), and fits; so does quarter 20,
    // priced from its smaller boards (2.76 M states read, 158 K at the peak).
    for args in [&["knight", "6x6"][..], &["knight", "7x6", "--sweep"], &["quarter", "20"]] {
        let output = leaper(args, None);
        assert!(output.status.success(), "{args:?}: {}", text(&output.stderr));
        assert!(!text(&output.stderr).contains("warning:"), "{args:?}: {}", text(&output.stderr));
    }
}

#[test]
fn enumerating_the_tours_of_8x8_is_refused_and_writes_nothing() {
    let dir = scratch_dir("enumerate-8x8");
    let file = dir.join("F");
    let output = leaper(&["tours", "enumerate", "8x8", "--out", path(&file)], None);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.lines().last().unwrap(),
        "error: tours enumerate 8x8 --closed: 8x8 has too many closed tours to list one by one: the layers of \
         their count pass 1,500,000 states, which on a board of at most 64 squares means more than 1,000,000,000 \
         tours; `leaper knight 8x8` counts them"
    );
    assert!(output.stdout.is_empty());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "a file was left in {}", dir.display());
}

#[test]
fn enumerations_with_too_many_tours_or_none_are_refused_by_name() {
    for (args, says) in [
        (
            &["tours", "enumerate", "6x10"][..],
            "error: tours enumerate 6x10 --closed: 6x10 has 239,187,240,144 closed tours, more than the \
             1,000,000,000 leaper lists one by one (",
        ),
        (
            &["tours", "enumerate", "7x7"],
            "error: tours enumerate 7x7 --closed: 7x7 has no closed knight's tour (every knight move changes the \
             square's colour",
        ),
        (
            &["tours", "enumerate", "4x4", "--open"],
            "error: tours enumerate 4x4 --open: 4x4 has no open knight's tour (`leaper knight 4x4 --open` counts \
             0): there is nothing to list",
        ),
    ] {
        let output = leaper(args, None);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.starts_with(says), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn generating_a_tour_of_a_board_without_one_is_refused_and_writes_nothing() {
    let dir = scratch_dir("generate");
    let file = dir.join("F");
    for (args, says) in [
        (
            &["tours", "generate", "3x3", "--count", "1"][..],
            "error: tours generate 3x3: 3x3 has no knight's tour, open or closed (the board's graph is \
             disconnected (2 components; 1 square has no move)): there is nothing to generate\n",
        ),
        (
            &["tours", "generate", "4x4", "--count", "1"],
            "error: tours generate 4x4: 4x4 has no knight's tour, open or closed (`leaper knight 4x4 --open` \
             counts 0): there is nothing to generate\n",
        ),
        (
            &["tours", "generate", "5x5", "--closed", "--count", "1"],
            "error: tours generate 5x5: 5x5 has no closed knight's tour (every knight move changes the square's \
             colour and the board has 13 squares of one colour and 12 of the other, but a closed tour alternates \
             colours, so it needs as many of each): there is nothing to generate\n",
        ),
    ] {
        let output = leaper(&[args, &["--out", path(&file)]].concat(), None);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(text(&output.stderr), says, "{args:?}");
        assert!(!file.exists(), "{args:?} wrote {}", file.display());
    }
    // A board with tours is not held up.
    let output = leaper(&["-q", "tours", "generate", "3x4", "--count", "1", "--out", path(&file)], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(file.exists());
}
