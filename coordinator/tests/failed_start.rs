//! A start that fails leaves no trace: an unreachable worker, a missing token, an address in
//! use. The job directory is gone again (or, if the user made it beforehand, left empty), and
//! the same command fails the same way a second time instead of finding a half-made job.

mod common;

use std::path::Path;

use common::{leaper, scratch, text};

/// Runs `args` twice in `dir` (given as `--job-dir`); both runs must fail with `message` and
/// leave `dir` as it was: absent, or empty if it existed.
fn fails_without_trace(dir: &Path, args: &[&str], message: &str) {
    let existed = dir.exists();
    for attempt in 1..=2 {
        let mut full = args.to_vec();
        full.extend(["--job-dir", dir.to_str().unwrap()]);
        let output = leaper(&full, None);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "attempt {attempt} of {args:?}: {stderr}");
        assert!(stderr.contains(message), "attempt {attempt} of {args:?}: {stderr}");
        assert!(output.stdout.is_empty());
        match existed {
            true => assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0, "{args:?} left files in {dir:?}"),
            false => assert!(!dir.exists(), "{args:?} left {dir:?} behind"),
        }
    }
}

#[test]
fn failed_starts_leave_nothing_behind() {
    let root = scratch("all");
    std::fs::create_dir_all(&root).unwrap();
    let token = root.join("token");
    std::fs::write(&token, "a shared secret").unwrap();
    let token = token.to_str().unwrap();
    let unreachable = "cannot reach worker 127.0.0.1:1";

    // No worker answers: a sweep and a subtree job, in a new directory and in one made before.
    let sweep = ["knight", "6x6", "--workers", "127.0.0.1:1", "--token-file", token];
    fails_without_trace(&root.join("sweep"), &sweep, unreachable);
    let search = ["quarto", "--workers", "127.0.0.1:1", "--token-file", token];
    fails_without_trace(&root.join("search"), &search, unreachable);
    std::fs::create_dir(root.join("made-before")).unwrap();
    fails_without_trace(&root.join("made-before"), &sweep, unreachable);

    // The token file is missing.
    let missing = root.join("no-such-token");
    let args = ["knight", "6x6", "--workers", "127.0.0.1:1", "--token-file", missing.to_str().unwrap()];
    fails_without_trace(&root.join("no-token"), &args, "cannot read the token file");

    // The status address is taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let args = ["knight", "6x6", "--listen", &address, "--token-file", token];
    fails_without_trace(&root.join("listen"), &args, &address);
    drop(taken);
}
