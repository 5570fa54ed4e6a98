//! Ctrl-C and SIGTERM: a run stops between commits, says what is kept and the command that
//! goes on, and exits 130 (SIGINT) or 143 (SIGTERM); `resume` then finishes the job with the
//! output of a run never stopped. The signal is sent while the run pauses at a named point
//! (`LEAPER_FAULT=pause@POINT:N` says so on stderr and waits two seconds), so each test
//! stops the run at the same place every time.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{known_lines, leaper, scratch, text};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// One second of work, ten lengths (the same sweep as the console tests).
const SWEEP: [&str; 3] = ["knight", "6x10", "--sweep"];
fn counts() -> String {
    known_lines("knight", 6, 1..=10)
}

/// Where the run's stderr goes.
enum Stderr {
    Terminal,
    Pipe,
}

/// Runs `leaper ARGS` with `LEAPER_FAULT=fault`, sends `signal` once stderr shows `cue`, and
/// returns the exit code, stdout and everything on stderr.
fn interrupted(
    args: &[&str],
    fault: Option<&str>,
    cue: &str,
    signal: Signal,
    stderr: Stderr,
) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_leaper"));
    command.args(args).env_remove("LEAPER_FAULT").env_remove("RUST_LOG").stdout(Stdio::piped());
    if let Some(fault) = fault {
        command.env("LEAPER_FAULT", fault);
    }
    let reader: Box<dyn Read + Send> = match stderr {
        Stderr::Terminal => {
            let size = nix::pty::Winsize { ws_row: 40, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0 };
            let pty = nix::pty::openpty(Some(&size), None).expect("a pseudo-terminal");
            command.stderr(Stdio::from(pty.slave));
            Box::new(std::fs::File::from(pty.master))
        }
        Stderr::Pipe => {
            let (read, write) = nix::unistd::pipe().expect("a pipe");
            command.stderr(Stdio::from(write));
            Box::new(std::fs::File::from(read))
        }
    };
    let child = command.spawn().expect("leaper runs");
    // The command's own copy of the write end must go, or the reader never sees the end.
    drop(command);
    let pid = Pid::from_raw(child.id() as i32);
    let (cue, wanted) = (cue.to_string(), cue.to_string());
    let watcher = std::thread::spawn(move || {
        let (mut reader, mut seen, mut sent) = (reader, Vec::new(), false);
        let mut buffer = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buffer) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buffer[..n]);
            if !sent && text(&seen).contains(&cue) {
                kill(pid, signal).expect("the signal is sent");
                sent = true;
            }
        }
        (text(&seen), sent)
    });
    let output = child.wait_with_output().expect("leaper ends");
    let (stderr, sent) = watcher.join().unwrap();
    assert!(sent, "the run ended before {wanted:?} appeared: {stderr}");
    (output.status.code(), text(&output.stdout), stderr)
}

fn with_job_dir(dir: &Path) -> Vec<&str> {
    let mut args = SWEEP.to_vec();
    args.extend(["--job-dir", dir.to_str().unwrap(), "--mem-limit", "64MiB"]);
    args
}

/// `resume` finishes the job with every count, and the job directory goes with the test.
fn resume_finishes(dir: &Path) {
    let resumed = leaper(&["resume", "--job-dir", dir.to_str().unwrap()], None);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(text(&resumed.stdout), counts());
}

#[test]
fn ctrl_c_on_a_terminal_stops_an_out_of_core_sweep_where_resume_goes_on() {
    let dir = scratch("sigint");
    let shown = dir.display();
    // The 13th manifest is the checkpoint of step 12 (the first is that of step 0).
    let (code, stdout, terminal) = interrupted(
        &with_job_dir(&dir),
        Some("pause@manifest:13"),
        "pausing at manifest #13",
        Signal::SIGINT,
        Stderr::Terminal,
    );
    assert_eq!(code, Some(130), "{terminal}");
    let said = format!(
        "interrupted: 12 of 60 steps are committed in {shown}; continue with `leaper resume --job-dir {shown}`"
    );
    assert!(terminal.contains(&said), "{terminal}");
    // What was printed is the start of a whole run's output: at most the lengths final by
    // step 12, two rows of six cells (whether the second reached stdout before the process
    // ended is a race the resume settles: it prints every final length first).
    assert!(["6x1 0\n", "6x1 0\n6x2 0\n"].contains(&stdout.as_str()), "{stdout:?}");

    let status = text(&leaper(&["status", "--job-dir", dir.to_str().unwrap()], None).stdout);
    assert!(status.contains("stopped"), "{status}");
    assert!(status.contains(&format!("continue with `leaper resume --job-dir {shown}`")), "{status}");
    resume_finishes(&dir);
}

#[test]
fn sigterm_stops_a_sweep_between_commits_and_names_the_resume_command() {
    let dir = scratch("sigterm");
    let shown = dir.display();
    let (code, _, stderr) = interrupted(
        &with_job_dir(&dir),
        Some("pause@manifest:6"),
        "pausing at manifest #6",
        Signal::SIGTERM,
        Stderr::Pipe,
    );
    assert_eq!(code, Some(143), "{stderr}");
    let said =
        format!("interrupted: 5 of 60 steps are committed in {shown}; continue with `leaper resume --job-dir {shown}`");
    assert!(stderr.contains(&said), "{stderr}");
    resume_finishes(&dir);
}

#[test]
fn an_interrupt_before_the_first_commit_leaves_nothing() {
    let dir = scratch("before-commit");
    // Paused right after job.toml is written, before any step.
    let (code, stdout, stderr) =
        interrupted(&with_job_dir(&dir), Some("pause@job:1"), "pausing at job #1", Signal::SIGINT, Stderr::Pipe);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "interrupted: nothing was committed yet, so nothing is kept ({} is removed)",
            dir.display()
        )),
        "{stderr}"
    );
    assert_eq!(stdout, "");
    assert!(!dir.exists(), "{} is left", dir.display());
}

#[test]
fn an_interrupted_count_in_memory_is_lost_and_says_how_to_make_it_resumable() {
    // Twelve seconds of work in memory: the signal comes after its first step (-v: a line for
    // every step on a pipe).
    let (code, _, stderr) =
        interrupted(&["-v", "knight", "7x10", "--sweep"], None, "step done", Signal::SIGINT, Stderr::Pipe);
    assert_eq!(code, Some(130), "{stderr}");
    let said = "interrupted: the count was held in memory and is lost; to be able to stop and go on, give it a \
                job directory: `leaper -v knight 7x10 --sweep --job-dir DIR`";
    assert!(stderr.contains(said), "{stderr}");
}
