//! What a person sees: the live display on a terminal (stderr on a pseudo-terminal), through a
//! pipe the summary and a progress line at most every 30 s (every step with -v, or in JSON),
//! nothing but results with --quiet; results on stdout as each
//! becomes final, and in the checkpoint for `leaper status`.

mod common;

use std::io::Read;
use std::process::{Command, Output, Stdio};

use common::{
    free_address, known, known_line, known_lines, leaper, scratch, text, wait_until_listening, without_escapes,
};

/// The sweep the tests watch: one second, ten lengths, 6x8's count final at step 48 of 60.
const SWEEP: [&str; 3] = ["knight", "6x10", "--sweep"];
fn counts() -> String {
    known_lines("knight", 6, 1..=10)
}

/// Runs `leaper ARGS` with stderr on a pseudo-terminal 100 columns wide and stdout on a pipe;
/// returns (stdout, everything the terminal received).
fn on_terminal(args: &[&str]) -> (Output, String) {
    on_terminal_of(100, args)
}

/// [`on_terminal`] on a terminal `columns` wide.
fn on_terminal_of(columns: u16, args: &[&str]) -> (Output, String) {
    let size = nix::pty::Winsize { ws_row: 40, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0 };
    let pty = nix::pty::openpty(Some(&size), None).expect("a pseudo-terminal");
    let child = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(args)
        .env_remove("LEAPER_FAULT")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::from(pty.slave))
        .spawn()
        .expect("leaper runs");
    // The terminal's end reads until the child (the last holder of the other end) is gone.
    let mut master = std::fs::File::from(pty.master);
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buffer = [0u8; 4096];
        while let Ok(n) = master.read(&mut buffer) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buffer[..n]);
        }
        seen
    });
    let output = child.wait_with_output().expect("leaper ends");
    (output, text(&reader.join().unwrap()))
}

/// Runs `leaper ARGS` with stdout and stderr on one pipe, as `2>&1 | cat` does: the order in
/// which results and log lines were written.
fn interleaved(args: &[&str]) -> String {
    let (read, write) = nix::unistd::pipe().expect("a pipe");
    let mut child = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(args)
        .env_remove("LEAPER_FAULT")
        .env_remove("RUST_LOG")
        .stdout(Stdio::from(write.try_clone().unwrap()))
        .stderr(Stdio::from(write))
        .spawn()
        .expect("leaper runs");
    let mut seen = String::new();
    std::fs::File::from(read).read_to_string(&mut seen).unwrap();
    assert!(child.wait().unwrap().success(), "{seen}");
    seen
}

#[test]
fn a_terminal_gets_the_live_display_and_no_step_lines() {
    // Wide enough for every field (80 columns: below).
    let (output, terminal) = on_terminal_of(140, &SWEEP);
    assert!(output.status.success(), "{terminal}");
    assert_eq!(text(&output.stdout), counts(), "stdout carries the results only");
    for shown in ["knight 6x10 --sweep", "/60 steps", "row ", "states", "elapsed", "ETA", "memory"] {
        assert!(terminal.contains(shown), "the display lacks {shown:?}: {terminal}");
    }
    assert!(terminal.contains("finished in") && terminal.contains("peak layer"), "no summary: {terminal}");
    // Its bound passes 2^64: the exact pass says a residue pass follows if a count outgrows it.
    assert!(terminal.contains("pass 1/1 (2 if a count outgrows 64 bits)"), "{terminal}");
    assert!(!terminal.contains("step done") && !terminal.contains("INFO"), "step lines under the display: {terminal}");

    // -v brings the step lines back, above the display.
    let (output, terminal) = on_terminal(&["-v", "knight", "6x8"]);
    assert_eq!(text(&output.stdout), known_line("knight 6x8"));
    let plain = without_escapes(&terminal);
    assert!(plain.contains("step done") && plain.contains("step{pass=1 step=7 row=2 col=1}"), "{plain}");
}

#[test]
fn the_display_and_the_notes_fit_a_terminal_of_80_columns() {
    // The first line was 126 columns (`· pass 1/1 (2 if a count outgrows 64 bits) ·`) and
    // wrapped; now each line gives way, in its stated order, to fit.
    let (output, terminal) = on_terminal_of(80, &SWEEP);
    assert!(output.status.success(), "{terminal}");
    assert_eq!(text(&output.stdout), counts());
    let frames = frames(&terminal, "knight 6x10 --sweep");
    assert!(frames.len() >= 2, "{terminal:?}");
    for frame in &frames {
        // Two rows: indicatif fills each line to the terminal's width, so a line wider than
        // 80 columns takes two rows and a frame three.
        assert!(frame.chars().count() <= 2 * 80, "a line wider than the terminal: {frame:?}");
    }
    // Once a step is done (the first frame may be drawn before: `0/60 steps · starting`), the
    // fields that fit 80 columns are all there.
    let stepped: Vec<&String> = frames.iter().filter(|frame| !frame.contains("· starting")).collect();
    assert!(!stepped.is_empty(), "{terminal:?}");
    for frame in stepped {
        for shown in ["/60 steps", "pass 1/1", "ETA", "states"] {
            assert!(frame.contains(shown), "{shown:?} given way at 80 columns: {frame:?}");
        }
    }
    // At 140 columns the first line has room for the note on the pass (tested above); at 80
    // it gives way first.
    assert!(!terminal.contains("if a count outgrows"), "{terminal}");

    // Twelve reasons, each two or three rows at 80 columns, are three lines, one for each kind.
    let (output, terminal) = on_terminal_of(80, &["knight", "5x20", "--sweep", "--distinct"]);
    assert!(output.status.success(), "{terminal}");
    let plain = without_escapes(&terminal);
    let notes: Vec<&str> = plain.split("\r\n").filter(|line| line.starts_with("note: ")).collect();
    assert_eq!(
        notes,
        [
            "note: knight 5x1, 5x2: no closed tour: the board's graph is disconnected",
            "note: knight 5x3, 5x5, 5x7, 5x9, … (9 boards): no closed tour: unequal colours",
            "note: knight 5x4: no closed tour: forced moves contradict",
        ],
        "{plain}"
    );
    // Through a pipe, the same lines name every board.
    let output = piped(&["knight", "5x20", "--sweep", "--distinct"], None);
    let stderr = text(&output.stderr);
    let colours = "note: knight 5x3, 5x5, 5x7, 5x9, 5x11, 5x13, 5x15, 5x17, 5x19: no closed tour: unequal colours\n";
    assert!(stderr.contains(colours), "{stderr}");
    assert_eq!(stderr.lines().filter(|line| line.starts_with("note: ")).count(), 3, "{stderr}");
    // -v says each reason whole.
    let output = piped(&["-v", "knight", "5x20", "--sweep", "--distinct"], None);
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().filter(|line| line.starts_with("note: knight 5x")).count(), 12, "{stderr}");
    assert!(stderr.contains("8 squares of one colour and 7 of the other"), "{stderr}");
}

/// The frames of the display in what a terminal received, as text: what is drawn between two
/// moves of the cursor up (indicatif clears the last frame's rows, then draws the next).
fn frames(terminal: &str, label: &str) -> Vec<String> {
    terminal
        .split("\x1b[1A")
        .map(|chunk| without_escapes(chunk).replace('\r', ""))
        .flat_map(|chunk| chunk.split('\n').map(str::to_string).collect::<Vec<_>>())
        .filter(|line| line.starts_with(label))
        .collect()
}

/// Runs `leaper ARGS` with stdout and stderr on pipes and a progress line due every `seconds`
/// (`LEAPER_PROGRESS_EVERY`; `None`: the default, 30 s).
fn piped(args: &[&str], seconds: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_leaper"));
    command.args(args).env_remove("LEAPER_FAULT").env_remove("RUST_LOG").env_remove("LEAPER_PROGRESS_EVERY");
    if let Some(seconds) = seconds {
        command.env("LEAPER_PROGRESS_EVERY", seconds);
    }
    command.output().expect("leaper runs")
}

/// What no text line on stderr may carry: a module path, a level, a colour.
fn assert_plain(stderr: &str) {
    assert!(!stderr.contains("leaper_") && !stderr.contains("INFO") && !stderr.contains('\x1b'), "{stderr}");
}

/// A progress line: `2026-11-29T07:12:40Z  ` then the run's words.
fn progress_words(line: &str) -> Option<&str> {
    let (time, words) = line.split_once("Z  ")?;
    let shape = time.len() == 19 && time.as_bytes()[10] == b'T' && time[..4].chars().all(|c| c.is_ascii_digit());
    shape.then_some(words)
}

#[test]
fn a_pipe_gets_the_summary_alone_for_a_count_of_less_than_30_seconds() {
    // `leaper knight 6x6 2>&1 | cat` wrote 32 lines with module paths for a count of 0.07 s.
    let output = piped(&["knight", "6x6"], None);
    assert!(output.status.success());
    assert_eq!(text(&output.stdout), known_line("knight 6x6"));
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("finished in ") && stderr.contains("peak layer 1,663 states"), "{stderr}");

    // A sweep: its notes (why a length has no tour) and the summary, no step.
    let output = piped(&SWEEP, None);
    assert_eq!(text(&output.stdout), counts());
    let stderr = text(&output.stderr);
    assert_plain(&stderr);
    let told: Vec<&str> = stderr.lines().filter(|line| !line.starts_with("note: ")).collect();
    assert_eq!(told.len(), 1, "{stderr}");
    assert!(told[0].starts_with("finished in") && told[0].contains("peak layer 253,668 states"), "{stderr}");

    // A search: no shard lines either.
    let output = piped(&["tours", "enumerate", "5x6"], None);
    assert_eq!(text(&output.stdout), "8\n");
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with("finished in") && stderr.contains("384 shards") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn a_pipe_gets_a_progress_line_at_most_every_interval() {
    // Every step is due at once: a line for each of the 54 steps the sweep runs (after 6x10's
    // last tour closes, the layers are empty and the remaining steps are skipped).
    let output = piped(&SWEEP, Some("0"));
    assert!(output.status.success());
    assert_eq!(text(&output.stdout), counts());
    let stderr = text(&output.stderr);
    assert_plain(&stderr);
    let lines: Vec<&str> = stderr.lines().filter_map(progress_words).collect();
    assert_eq!(lines.len(), 54, "{stderr}");
    assert!(lines.iter().all(|line| line.starts_with("knight 6x10 --sweep: ")), "{stderr}");
    // Counted from 1, as `leaper status` counts: the last step of 6x1 is row 1, column 5 (a
    // row's columns are taken from the edges inwards: 1, 6, 3, 4, 2, 5).
    let sixth = lines[5];
    assert!(sixth.starts_with("knight 6x10 --sweep: 6/60 steps · pass 1/1"), "{sixth}");
    for words in ["row 1, column 5", " states · ", "elapsed · ETA ", "memory"] {
        assert!(sixth.contains(words), "{words:?} missing: {sixth}");
    }
    assert!(stderr.lines().last().unwrap().starts_with("finished in"), "{stderr}");

    // Shards alike.
    let output = piped(&["tours", "enumerate", "5x6"], Some("0"));
    let stderr = text(&output.stderr);
    let lines: Vec<&str> = stderr.lines().filter_map(progress_words).collect();
    assert_eq!(lines.len(), 384, "{stderr}");
    assert!(lines[383].starts_with("tours enumerate 5x6 --closed: 384/384 shards · shard "), "{stderr}");

    // A spacing longer than the run: none.
    let output = piped(&SWEEP, Some("3600"));
    assert_eq!(text(&output.stderr).lines().filter_map(progress_words).count(), 0);

    // A spacing that is no number is refused before any work.
    let output = piped(&["knight", "6x6"], Some("soon"));
    assert!(!output.status.success() && output.stdout.is_empty());
    let stderr = text(&output.stderr);
    assert!(stderr.starts_with("error: LEAPER_PROGRESS_EVERY=\"soon\""), "{stderr}");
}

#[test]
fn verbose_on_a_pipe_gives_every_step_and_results_as_they_become_final() {
    let output = piped(&["-v", "knight", "6x10", "--sweep"], None);
    assert!(output.status.success());
    assert_eq!(text(&output.stdout), counts());
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().filter(|line| line.contains("step done")).count(), 54, "{stderr}");
    assert!(!stderr.contains('\x1b'), "colour codes in a pipe: {stderr}");
    assert!(!stderr.contains("leaper_"), "module paths in text: {stderr}");
    assert!(stderr.contains("step{pass=1 step=6 row=1 col=5}"), "{stderr}");
    let summary = stderr.lines().last().unwrap();
    assert!(summary.contains("finished in") && summary.contains("peak layer 253,668 states"), "{summary}");

    // 6x8 is final after step 48 (its last cell), long before the sweep ends.
    let seen = interleaved(&["-v", "knight", "6x10", "--sweep"]);
    let printed = seen.find(known_lines("knight", 6, 8..=8).trim_end()).expect("6x8 printed");
    let step_49 = seen.find("step=49 ").expect("step 49 logged");
    assert!(printed < step_49, "6x8 waited for the end: {seen}");
}

#[test]
fn quiet_prints_results_only() {
    for args in [vec!["--quiet", "knight", "6x10", "--sweep"], vec!["knight", "6x10", "--sweep", "-q"]] {
        let output = leaper(&args, None);
        assert!(output.status.success());
        assert_eq!(text(&output.stdout), counts());
        assert_eq!(text(&output.stderr), "", "{args:?}");
    }
    let (output, terminal) = on_terminal(&["-q", "quarto", "--lines", "rows,cols"]);
    assert!(output.status.success());
    assert!(!text(&output.stdout).is_empty());
    assert_eq!(terminal, "", "a quiet subtree job draws nothing");
    // Errors still show.
    let output = leaper(&["-q", "knight", "0x5"], None);
    assert!(!output.status.success() && text(&output.stderr).starts_with("error:"));
}

#[test]
fn json_logs_carry_every_step_with_its_module() {
    // Machines read them (a run in the background is watched through them): complete.
    let output = leaper(&["--log-format", "json", "knight", "6x10", "--sweep"], None);
    assert!(output.status.success());
    let events: Vec<serde_json::Value> =
        text(&output.stderr).lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect();
    let steps: Vec<&serde_json::Value> = events.iter().filter(|e| e["message"] == "step done").collect();
    assert_eq!(steps.len(), 54);
    assert!(steps.iter().all(|e| e["target"] == "leaper_coordinator::progress"), "{:?}", steps[0]);
    assert!(events.iter().any(|e| e["message"] == "sweep planned"));
}

#[test]
fn json_logs_carry_numbers_and_the_summary() {
    let output = leaper(&["--log-format", "json", "knight", "6x6"], None);
    assert!(output.status.success());
    assert_eq!(text(&output.stdout), known_line("knight 6x6"));
    let events: Vec<serde_json::Value> =
        text(&output.stderr).lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect();
    let step = events.iter().find(|e| e["message"] == "step done").unwrap();
    assert!(step["layer_bytes"].is_u64() && step["seconds"].is_f64(), "{step}");
    assert_eq!(step["span"]["row"], 1, "{step}");
    assert!(events.last().unwrap()["message"].as_str().unwrap().starts_with("finished in"));
}

#[test]
fn a_subtree_job_on_a_terminal_shows_its_shards() {
    let (output, terminal) = on_terminal(&["quarto", "--lines", "rows,cols"]);
    assert!(output.status.success(), "{terminal}");
    assert!(terminal.contains("quarto") && terminal.contains("shards"), "{terminal}");
    assert!(terminal.contains("finished in"), "{terminal}");
}

#[test]
fn status_lists_the_lengths_already_final_and_resume_prints_them_first() {
    let dir = scratch("settled");
    let job_dir = dir.to_str().unwrap();
    // Crash right after the checkpoint of step 50: 6x1 to 6x8 are final by then.
    let mut args = SWEEP.to_vec();
    args.extend(["--job-dir", job_dir]);
    let crashed = leaper(&args, Some("crash@manifest:51"));
    assert!(!crashed.status.success());
    assert_eq!(text(&crashed.stdout), counts().lines().take(8).map(|l| format!("{l}\n")).collect::<String>());

    let status = leaper(&["status", "--job-dir", job_dir, "--format", "json"], None);
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["settled"][7], serde_json::json!(["6x8", known("knight 6x8")]), "{status}");
    assert_eq!(status["settled"].as_array().unwrap().len(), 8, "{status}");
    let text_status = text(&leaper(&["status", "--job-dir", job_dir], None).stdout);
    assert!(text_status.contains(&format!("final     6x8 {}", known("knight 6x8"))), "{text_status}");

    let resumed = leaper(&["resume", "--job-dir", job_dir], None);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(text(&resumed.stdout), counts());
}

/// Issue 58: `status --follow` printed the status every second while a step ran, its ETA alone
/// counting down. It prints again when a step is committed or the state changes, and only
/// then: here a commit held for two seconds (`pause@manifest:30`) once the ETA is known.
#[test]
fn status_follow_prints_a_status_only_when_something_changed() {
    let dir = scratch("follow");
    std::fs::create_dir_all(&dir).unwrap();
    let token = dir.join("token");
    std::fs::write(&token, "follow-secret\n").unwrap();
    let (job, address) = (dir.join("job"), free_address());
    let counting = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(SWEEP)
        .args(["--job-dir", job.to_str().unwrap(), "--listen", &address, "--token-file", token.to_str().unwrap()])
        .env("LEAPER_FAULT", "pause@manifest:30")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("leaper runs");
    wait_until_listening(&address, "the status service");
    let follow = ["status", "--coordinator", &address, "--token-file", token.to_str().unwrap(), "--follow"];
    let followed = leaper(&[&follow[..], &["--format", "json"]].concat(), None);
    assert!(followed.status.success(), "{}", text(&followed.stderr));
    let lines: Vec<serde_json::Value> =
        text(&followed.stdout).lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let moved: Vec<(String, u64)> =
        lines.iter().map(|l| (l["state"].as_str().unwrap().to_string(), l["cells_done"].as_u64().unwrap())).collect();
    assert!(moved.windows(2).all(|w| w[0] != w[1]), "a status again with nothing changed: {moved:?}");
    assert!(moved.iter().any(|(_, done)| *done == 29), "the paused commit was seen: {moved:?}");
    assert_eq!(moved.last().unwrap(), &("finished".to_string(), 60));
    let output = counting.wait_with_output().unwrap();
    assert_eq!(text(&output.stdout), counts());
}
