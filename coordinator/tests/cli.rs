//! The `leaper` binary as a user runs it: output formats, b-files, errors and exit codes.

use leaper_test_kit::{known_lines, scratch, scratch_dir};
use std::process::{Command, Output};

fn leaper(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_leaper")).args(args).env("RUST_LOG", "warn").output().expect("leaper runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn counts_one_board_in_either_orientation() {
    for board in ["8x6", "6x8"] {
        let output = leaper(&["knight", board]);
        assert!(output.status.success(), "{}", stderr(&output));
        assert_eq!(stdout(&output), "55488142\n");
    }
}

#[test]
fn json_lines_follow_the_output_contract() {
    let output = leaper(&["knight", "8x6", "--format", "json", "--verify"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "{\"problem\":\"knight\",\"board\":\"8x6\",\"tours\":\"closed\",\"count\":\"55488142\",\"verified\":true}\n"
    );
}

#[test]
fn sweep_prints_every_length_and_writes_a_bfile() {
    let dir = scratch_dir("sweep");
    let bfile = dir.join("b175881.txt");
    let output = leaper(&["knight", "6x8", "--sweep", "--bfile", bfile.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let table = known_lines("knight", 6, 1..=8);
    assert_eq!(stdout(&output), table);
    // The b-file's rows are `n a(n)`: the table's lines without the `6x`.
    let bfile_text = table.replace("6x", "");
    let written = std::fs::read_to_string(&bfile).unwrap();
    // After the `#` header (coordinator/tests/results.rs reads it).
    let rows: String = written.lines().filter(|line| !line.starts_with('#')).map(|line| format!("{line}\n")).collect();
    assert_eq!(rows, bfile_text);
}

#[test]
fn other_pieces_run_from_the_cli() {
    let output = leaper(&["tours", "--moves", "0,1", "4x4", "--format", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("\"problem\":\"leaper:0,1\""));
    assert!(stdout(&output).contains("\"count\":\"6\""));
    let output = leaper(&["camel", "6x6"]);
    assert_eq!(stdout(&output), "0\n", "the camel never changes colour");
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let cases: [(&[&str], &str); 6] = [
        (&["knight", "16x20"], "widest board this encoding supports for these moves is 15"),
        (&["knight", "0x5"], "both sides must be"),
        (&["knight", "-3x4"], "invalid board"),
        (&["knight", "banana"], "expected WIDTHxLENGTH"),
        (&["tours", "--moves", "0,0", "4x4"], "not a move"),
        (&["rook", "4x4"], "unrecognized subcommand"),
    ];
    for (args, message) in cases {
        let output = leaper(args);
        assert!(!output.status.success(), "{args:?} should fail");
        assert!(stderr(&output).contains(message), "{args:?}: {}", stderr(&output));
        assert!(stdout(&output).is_empty(), "{args:?} printed a count");
    }
}

#[test]
fn an_unwritable_bfile_fails_before_counting() {
    let output = leaper(&["knight", "8x6", "--bfile", "/nonexistent-dir/b.txt"]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("does not exist"), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
}

#[test]
fn out_of_core_runs_match_and_refuse_bad_settings() {
    let dir = scratch("out-of-core");
    let job = dir.join("job");
    let output = leaper(&["knight", "6x8", "--sweep", "--job-dir", job.to_str().unwrap(), "--mem-limit", "64MiB"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).ends_with("6x7 1067638\n6x8 55488142\n"), "{}", stdout(&output));

    let output = leaper(&["knight", "6x8", "--job-dir", job.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("already holds job"), "{}", stderr(&output));

    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("precious"), "keep me").unwrap();
    let output = leaper(&["knight", "6x8", "--job-dir", other.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("is not empty"), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(other.join("precious")).unwrap(), "keep me");

    for (limit, message) in [("lots", "not a size"), ("1MiB", "raise --mem-limit")] {
        let fresh = dir.join(limit);
        let output = leaper(&["knight", "6x8", "--job-dir", fresh.to_str().unwrap(), "--mem-limit", limit]);
        assert!(!output.status.success(), "{limit}");
        assert!(stderr(&output).contains(message), "{limit}: {}", stderr(&output));
    }
}

fn leaper_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(args)
        .current_dir(dir)
        .env("RUST_LOG", "warn")
        .output()
        .expect("leaper runs")
}

fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn an_in_memory_count_over_its_limit_goes_on_out_of_core_and_cleans_up() {
    // A fresh, empty working directory for a run that may make job directories of its own.
    let dir = scratch_dir("fallback");
    // A directory of the name the fallback would take is someone else's: it is left alone.
    std::fs::create_dir(dir.join("leaper-knight-6x8-sweep")).unwrap();
    std::fs::write(dir.join("leaper-knight-6x8-sweep/keep"), "mine").unwrap();
    // 4 MiB: the two layers a step holds pass it alone (the peak layer, 246,196 states, takes
    // 3.9 MB), whatever the resident memory gains (with 8 MiB that decided it: flaky).
    let args = ["knight", "6x8", "--sweep", "--mem-limit", "4MiB", "--buckets", "16"];
    let output = leaper_in(&dir, &args);
    let (out, err) = (stdout(&output), stderr(&output));
    assert!(output.status.success(), "{err}");
    // Every length once, although the in-memory attempt had printed the short ones already.
    assert_eq!(out, known_lines("knight", 6, 1..=8));
    assert!(err.contains("over the memory limit of 4.0 MiB"), "{err}");
    assert!(err.contains("counting again out of core in the job directory leaper-knight-6x8-sweep-2"), "{err}");
    assert!(err.contains("leaper resume --job-dir leaper-knight-6x8-sweep-2"), "{err}");
    // The finished count removed its own directory and nothing else.
    assert_eq!(entries(&dir), ["leaper-knight-6x8-sweep"]);
    assert_eq!(std::fs::read_to_string(dir.join("leaper-knight-6x8-sweep/keep")).unwrap(), "mine");

    // A budget too small even out of core: a clear error, and no directory left behind.
    std::fs::remove_dir_all(dir.join("leaper-knight-6x8-sweep")).unwrap();
    let output = leaper_in(&dir, &["knight", "6x8", "--mem-limit", "1MiB"]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("raise --mem-limit"), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    assert!(entries(&dir).is_empty(), "{:?}", entries(&dir));
}
