//! `leaper quarto`: the published counts from the command line, and resumable subtree jobs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

use common::{leaper, text};

fn scratch(name: &str) -> PathBuf {
    common::scratch("quarto", name)
}

/// The document's table: variant, count, factorisation of count/384.
const TABLE: [(&str, &str, &str); 9] = [
    ("rows+cols", "1329371360640", "(3^2)(5)(76931213)"),
    ("rows+cols+maindiags", "414298141056", "(3)(359633803)"),
    ("rows+cols+alldiags", "85842854016", "(17)(197)(66751)"),
    ("rows+cols+mainsqrs", "35347120896", "(2)(19)(59)(41057)"),
    ("rows+cols+maindiags+mainsqrs", "18596841216", "(2)(173)(139969)"),
    ("rows+cols+alldiags+mainsqrs", "7376330496", "(2)(29)(227)(1459)"),
    ("rows+cols+allsqrs", "7031789952", "(11)(19)(41)(2137)"),
    ("rows+cols+maindiags+allsqrs", "4031409024", "(3)(499)(7013)"),
    ("rows+cols+alldiags+allsqrs", "2522431872", "(3)(383)(5717)"),
];

#[test]
fn the_table_reproduces_the_nine_published_counts() {
    let output = leaper(&["quarto", "--table", "--format", "json"], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let lines: Vec<serde_json::Value> =
        text(&output.stdout).lines().map(|line| serde_json::from_str(line).expect("JSON lines")).collect();
    assert_eq!(lines.len(), 9);
    for (line, (variant, count, factors)) in lines.iter().zip(TABLE) {
        assert_eq!(line["problem"], "quarto");
        assert_eq!(line["lines"], variant);
        assert_eq!(line["count"], count, "{variant}");
        assert_eq!(line["factorization"], factors, "{variant}");
    }
}

#[test]
fn quarto_prints_414298141056() {
    let output = leaper(&["quarto"], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "414298141056\n");
}

const QUICK: &[&str] = &["quarto", "--lines", "rows,cols,allsqrs,alldiags"];

fn start(dir: &Path, fault: Option<&str>) -> Output {
    let mut args = QUICK.to_vec();
    args.extend(["--job-dir", dir.to_str().unwrap()]);
    leaper(&args, fault)
}

fn resume(dir: &Path) -> Output {
    leaper(&["resume", "--job-dir", dir.to_str().unwrap()], None)
}

#[test]
fn a_job_crashed_mid_ledger_resumes_to_the_exact_count() {
    let dir = scratch("crash");
    let output = start(&dir, Some("crash@ledger:40"));
    assert!(!output.status.success());
    let recorded = fs::read_to_string(dir.join("ledger.jsonl")).unwrap().lines().count();
    assert_eq!(recorded, 40, "header and 39 shards");
    let status = leaper(&["status", "--job-dir", dir.to_str().unwrap(), "--format", "json"], None);
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).expect("status is JSON");
    assert_eq!((status["state"].as_str(), status["shards_done"].as_u64()), (Some("stopped"), Some(39)));
    let output = resume(&dir);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "2522431872\n");
    assert!(text(&output.stderr).contains("done=39"), "resume skips the recorded shards: {}", text(&output.stderr));
    // A finished job only prints its count again.
    let again = resume(&dir);
    assert_eq!(text(&again.stdout), "2522431872\n");
    let status = leaper(&["status", "--job-dir", dir.to_str().unwrap()], None);
    let status = text(&status.stdout);
    assert!(
        status.contains("state     finished") && status.contains("rows+cols+alldiags+allsqrs 2522431872"),
        "{status}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_ledgers_and_bad_options_are_refused() {
    let dir = scratch("damaged");
    assert!(start(&dir, None).status.success());
    let path = dir.join("ledger.jsonl");
    let ledger = fs::read_to_string(&path).unwrap();
    let at = ledger.find(r#""counts":[""#).unwrap() + 11;
    let digit = ledger.as_bytes()[at];
    let mut damaged = ledger.clone().into_bytes();
    damaged[at] = if digit == b'1' { b'2' } else { b'1' };
    fs::write(&path, &damaged).unwrap();
    let output = resume(&dir);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("ledger.jsonl") && stderr.contains("checksum mismatch"), "{stderr}");
    assert_eq!(fs::read(&path).unwrap(), damaged, "the ledger is left as it was");
    // A second job in the same directory.
    let output = start(&dir, None);
    assert!(text(&output.stderr).contains("already holds job quarto-"), "{}", text(&output.stderr));
    fs::remove_dir_all(&dir).unwrap();

    let output = leaper(&["quarto", "--lines", "rows,knights"], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("unknown Quarto line family \"knights\""), "{}", text(&output.stderr));
    let output = leaper(&["quarto", "--workers", "127.0.0.1:1"], None);
    assert!(text(&output.stderr).contains("--workers needs --job-dir"), "{}", text(&output.stderr));
}
