//! The worker binary's refusals are plain `error:` lines, whatever RUST_BACKTRACE says, and name
//! what was wrong: a data directory in use, a token file past its bound.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use leaper_test_kit::{free_address, wait_until_listening, Scratch};

const WORKER: &str = env!("CARGO_BIN_EXE_leaper-worker");

/// A scratch directory holding a worker's token.
fn scratch(name: &str) -> Scratch {
    let dir = leaper_test_kit::scratch_dir(name);
    std::fs::write(dir.join("token"), "s3cret\n").unwrap();
    dir
}

fn worker(address: &str, data_dir: &Path, token: &Path) -> Command {
    let mut command = Command::new(WORKER);
    command.args(["--listen", address, "--data-dir", data_dir.to_str().unwrap()]);
    command.args(["--token-file", token.to_str().unwrap(), "--threads", "1"]);
    command.env("RUST_BACKTRACE", "1").env("RUST_LOG", "warn");
    command
}

/// A worker that must stop at once: what it printed. One still running after a while was not
/// refused: it is killed and the test fails.
fn refused(mut command: Command) -> Output {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the worker runs");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the worker was not refused: {:?}", child.wait_with_output().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    assert!(!output.status.success());
    output
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn assert_plain(output: &Output, expected: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("error: ") && stderr.contains(expected), "{stderr}");
    assert!(!stderr.to_lowercase().contains("stack backtrace"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_data_directory_in_use_is_refused_in_one_line_even_with_backtraces_asked_for() {
    let dir = scratch("in-use");
    let (data, token) = (dir.join("data"), dir.join("token"));
    let address = free_address();
    let first = Running(worker(&address, &data, &token).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap());
    wait_until_listening(&address, "the first worker");
    let second = refused(worker(&free_address(), &data, &token));
    assert_plain(&second, "the data directory is in use by another leaper process");
    drop(first);
}

#[test]
fn a_token_file_past_its_bound_is_refused() {
    // A finite file (`/dev/zero` is the coordinator's test, watched for its memory): the worker
    // of a build without the bound starts, and is stopped by `refused`.
    let dir = scratch("token");
    let token = dir.join("token");
    std::fs::write(&token, "s3cret".repeat(2000)).unwrap();
    let output = refused(worker(&free_address(), &dir.join("data"), &token));
    assert_plain(&output, "the token file is larger than 4 KiB");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("s3cret"), "the token is never echoed");
}
