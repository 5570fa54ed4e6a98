//! `leaper quarto`: the published counts from the command line, and resumable subtree jobs.

use std::fs;
use std::path::Path;
use std::process::Output;

mod common;

use common::{free_address, leaper, scratch, text, wait_until_listening};

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
    // -v: the line that says so is for whoever asks for more than the summary.
    let output = leaper(&["-v", "resume", "--job-dir", dir.to_str().unwrap()], None);
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

#[test]
fn a_running_job_serves_its_status_to_callers_with_the_token() {
    let dir = scratch("serve");
    fs::create_dir_all(&dir).unwrap();
    let token = dir.join("token");
    fs::write(&token, "status-secret\n").unwrap();
    let wrong = dir.join("wrong");
    fs::write(&wrong, "guess\n").unwrap();
    let job = dir.join("job");
    let job_args = ["quarto", "--lines", "rows,cols,alldiags", "--threads", "1", "--job-dir", job.to_str().unwrap()];

    // A busy address stops the command before it writes anything.
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = busy.local_addr().unwrap().to_string();
    let mut args = job_args.to_vec();
    args.extend(["--listen", &address, "--listen-token-file", token.to_str().unwrap()]);
    let refused = leaper(&args, None);
    assert!(text(&refused.stderr).contains(&format!("cannot listen on {address}")), "{}", text(&refused.stderr));
    assert!(!job.exists(), "a refused command wrote its job directory");
    drop(busy);
    let coordinator = std::process::Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(job_args)
        .args(["--listen", &address, "--listen-token-file", token.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_until_listening(&address, "the status service");
    let ask = |token: &Path, more: &[&str]| {
        let mut args = vec!["status", "--coordinator", &address, "--token-file", token.to_str().unwrap()];
        args.extend(more);
        leaper(&args, None)
    };
    let refused = ask(&wrong, &[]);
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("wrong token"), "{}", text(&refused.stderr));

    let now = ask(&token, &["--format", "json"]);
    assert!(now.status.success(), "{}", text(&now.stderr));
    let now: serde_json::Value = serde_json::from_slice(&now.stdout).unwrap();
    assert_eq!(now["command"], "quarto rows,cols,alldiags");
    assert_eq!(now["state"], "running");

    // Follows the job to its end: one status per change, the last one finished and exact.
    let followed = ask(&token, &["--follow", "--format", "json"]);
    assert!(followed.status.success(), "{}", text(&followed.stderr));
    let lines: Vec<serde_json::Value> =
        text(&followed.stdout).lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let done: Vec<u64> = lines.iter().map(|line| line["shards_done"].as_u64().unwrap()).collect();
    assert!(done.windows(2).all(|w| w[0] < w[1]), "{done:?}");
    let last = lines.last().unwrap();
    assert_eq!(last["state"], "finished");
    assert_eq!(last["counts"][0][1], "85842854016");
    assert_eq!(last["shards_done"], last["shards"]);

    let output = coordinator.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(text(&output.stdout), "85842854016\n");
    // The job has finished and its service is gone: a clear error, not a hang.
    let gone = ask(&token, &[]);
    assert!(!gone.status.success());
    assert!(text(&gone.stderr).contains(&format!("coordinator {address}")), "{}", text(&gone.stderr));
}

#[test]
fn a_resumed_job_serves_its_status_where_resume_says() {
    let dir = scratch("resume-listen");
    fs::create_dir_all(&dir).unwrap();
    let token = dir.join("watchers");
    fs::write(&token, "watch-only\n").unwrap();
    let job = dir.join("job");
    let crashed = leaper(
        &["quarto", "--lines", "rows,cols,alldiags", "--job-dir", job.to_str().unwrap()],
        Some("crash@ledger:40"),
    );
    assert!(!crashed.status.success());
    let address = free_address();
    let resumed = std::process::Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["resume", "--job-dir", job.to_str().unwrap(), "--threads", "1"])
        .args(["--listen", &address, "--listen-token-file", token.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_until_listening(&address, "the resumed job's status service");
    let followed = leaper(
        &["status", "--coordinator", &address, "--token-file", token.to_str().unwrap(), "--follow", "--format", "json"],
        None,
    );
    assert!(followed.status.success(), "{}", text(&followed.stderr));
    let last: serde_json::Value = serde_json::from_str(text(&followed.stdout).lines().last().unwrap()).unwrap();
    assert_eq!((last["state"].as_str(), last["counts"][0][1].as_str()), (Some("finished"), Some("85842854016")));
    let output = resumed.wait_with_output().unwrap();
    assert_eq!(text(&output.stdout), "85842854016\n");
    // The override was for that run: the job's spec does not serve.
    assert!(!fs::read_to_string(job.join("job.toml")).unwrap().contains("listen"));
}
