//! The command-line tests' kit: run `leaper`, read its output, scratch directories removed when a
//! test ends, the known counts, loopback addresses for servers. Each test file uses some of them.
#![allow(dead_code)]

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Runs `leaper ARGS`, with `LEAPER_FAULT` set to `fault` (and otherwise cleared).
pub fn leaper(args: &[&str], fault: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_leaper"));
    command.args(args).env_remove("LEAPER_FAULT").env_remove("LEAPER_PROGRESS_EVERY");
    if let Some(fault) = fault {
        command.env("LEAPER_FAULT", fault);
    }
    command.output().expect("leaper runs")
}

/// Runs `leaper ARGS` (no fault), asserts that it succeeded and returns what it printed.
pub fn run(args: &[&str]) -> String {
    let output = leaper(args, None);
    assert!(output.status.success(), "leaper {args:?}: {}", text(&output.stderr));
    text(&output.stdout)
}

/// The `n a(n)` lines of a b-file, without its `#` header.
pub fn bfile_rows(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().filter(|line| !line.starts_with('#')).map(|line| format!("{line}\n")).collect()
}

/// A path as a command-line argument (the tests' paths are UTF-8).
pub fn path(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[allow(unused_imports)] // each test file takes what it needs
pub use leaper_test_kit::{
    free_address, known, known_line, known_lines, scratch, scratch_dir, wait_until_listening, Scratch,
};

/// Waits (up to 120 s) until the sweep in `job_dir` has committed `cells` steps of its pass.
pub fn wait_for_cells(job_dir: &std::path::Path, cells: u64) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let output = leaper(&["status", "--job-dir", job_dir.to_str().unwrap(), "--format", "json"], None);
        if let Ok(status) = serde_json::from_slice::<serde_json::Value>(&output.stdout) {
            if status["cells_done"].as_u64().unwrap_or(0) >= cells {
                return;
            }
        }
        assert!(Instant::now() < deadline, "the job did not reach {cells} steps");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// `text` as one line, its words separated by single spaces: help as clap wraps it to the
/// terminal (100 columns on a pipe) reads so whatever the width.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` without its ANSI escape sequences (colours, cursor moves).
pub fn without_escapes(text: &str) -> String {
    let mut plain = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // ESC [ parameters, then one letter ends the sequence.
            chars.by_ref().skip(1).find(|c| c.is_ascii_alphabetic());
        } else {
            plain.push(c);
        }
    }
    plain
}

/// The `w` x `h` grid graph in DIMACS, vertices 1-based.
pub fn grid_dimacs(w: usize, h: usize) -> String {
    let edges = leaper_core::problems::graph::grid_edges(w, h);
    let mut text = format!("c the {w} x {h} grid\np edge {} {}\n", w * h, edges.len());
    for (u, v) in edges {
        text.push_str(&format!("e {} {}\n", u + 1, v + 1));
    }
    text
}
