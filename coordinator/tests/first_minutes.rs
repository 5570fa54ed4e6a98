//! What a newcomer meets in the first minutes (issue 45): `--out -` is standard output, a reader
//! that goes away (`| head`) ends leaper quietly, a memory limit too small is refused before
//! anything is counted and names the least that works, and the help and status say what is so.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;

use common::{free_address, known_lines, leaper, path, run, scratch_dir, text, wait_until_listening};

const LEAPER: &str = env!("CARGO_BIN_EXE_leaper");

/// Runs `leaper ARGS` in `dir`.
fn leaper_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(LEAPER).args(args).current_dir(dir).env_remove("LEAPER_FAULT").output().expect("leaper runs")
}

/// Runs `leaper ARGS` in `dir`, which must succeed; its standard output and error.
fn ok_in(dir: &Path, args: &[&str]) -> (Vec<u8>, String) {
    let output = leaper_in(dir, args);
    assert!(output.status.success(), "leaper {args:?}: {}", text(&output.stderr));
    (output.stdout, text(&output.stderr))
}

/// Asserts that `got` is `expected`, saying briefly what differs (outputs run to kilobytes).
fn same(got: &[u8], expected: &[u8], what: &str) {
    let start = |bytes: &[u8]| text(&bytes[..bytes.len().min(60)]);
    assert!(
        got == expected,
        "{what}: {} bytes starting {:?}, not {} bytes starting {:?}",
        got.len(),
        start(got),
        expected.len(),
        start(expected)
    );
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn out_dash_writes_the_tours_to_standard_output_and_the_summary_to_standard_error() {
    let dir = scratch_dir("out-dash");
    // enumerate: the tours the file would hold, and the count on standard error.
    let (_, _) = ok_in(&dir, &["-q", "tours", "enumerate", "5x5", "--open", "--out", "open5.txt"]);
    let (tours, summary) = ok_in(&dir, &["-q", "tours", "enumerate", "5x5", "--open", "--out", "-"]);
    same(&tours, &std::fs::read(dir.join("open5.txt")).unwrap(), "enumerate --out -");
    assert_eq!(summary, "864\n");
    // generate: the same seed, the same tours; the summary names standard output.
    let generate = ["-q", "tours", "generate", "6x6", "--count", "3", "--seed", "5"];
    let (_, _) = ok_in(&dir, &[&generate[..], &["--out", "g.txt"]].concat());
    let (file_summary, _) = ok_in(&dir, &[&generate[..], &["--out", "g2.txt"]].concat());
    let (tours, summary) = ok_in(&dir, &[&generate[..], &["--out", "-"]].concat());
    same(&tours, &std::fs::read(dir.join("g.txt")).unwrap(), "generate --out -");
    assert_eq!(tours.len(), 3 * 78);
    assert_eq!(summary, text(&file_summary).replace("written to g2.txt", "written to standard output"));
    // dedupe: the distinct tours on standard output, the totals on standard error.
    let (totals, _) = ok_in(&dir, &["-q", "tours", "dedupe", "open5.txt", "--out", "distinct.txt"]);
    let (tours, summary) = ok_in(&dir, &["-q", "tours", "dedupe", "open5.txt", "--out", "-"]);
    same(&tours, &std::fs::read(dir.join("distinct.txt")).unwrap(), "dedupe --out -");
    assert_eq!(summary, text(&totals));
    // convert: as without --out.
    let (tours, summary) = ok_in(&dir, &["-q", "tours", "convert", "open5.txt", "--to", "moves", "--out", "-"]);
    same(&tours, &ok_in(&dir, &["-q", "tours", "convert", "open5.txt", "--to", "moves"]).0, "convert --out -");
    assert_eq!(summary, "");
    // No file named `-` anywhere.
    assert_eq!(entries(&dir), ["distinct.txt", "g.txt", "g2.txt", "open5.txt"]);
}

#[test]
fn a_reader_that_goes_away_ends_leaper_quietly_and_successfully() {
    let dir = scratch_dir("pipe");
    let tours = dir.join("tours6.txt");
    run(&["-q", "tours", "enumerate", "6x6", "--out", path(&tours)]);
    // `leaper tours convert F --to moves | head -1`: a megabyte of moves, one line read.
    let mut child = Command::new(LEAPER)
        .args(["tours", "convert", path(&tours), "--board", "6x6", "--to", "moves"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.starts_with("a6 "), "{line}");
    let output = child.wait_with_output().unwrap();
    assert_eq!((output.status.code(), text(&output.stderr)), (Some(0), String::new()));
    // `leaper status ... | head` whose reader is gone before the first line, and a count's.
    let job = dir.join("job");
    run(&["-q", "knight", "5x6", "--sweep", "--job-dir", path(&job)]);
    for args in [&["status", "--job-dir", path(&job)][..], &["-q", "knight", "6x6", "--sweep"]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = Command::new(LEAPER).args(args).stdout(writer).stderr(Stdio::piped()).output().unwrap();
        assert_eq!((output.status.code(), text(&output.stderr)), (Some(0), String::new()), "{args:?}");
    }
}

#[test]
fn a_memory_limit_too_small_to_count_out_of_core_is_refused_before_counting() {
    let dir = scratch_dir("mem-limit");
    // In memory, 7x10 would count until its layers pass 32 MiB, start again out of core and
    // only then be refused; now nothing is counted, and no job directory is made.
    let output = leaper_in(&dir, &["knight", "7x10", "--sweep", "--mem-limit", "32MiB", "--threads", "2"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        "error: --mem-limit 32.0 MiB is too small to count out of core (where an in-memory count that outgrows \
         its limit goes on): the store's buffers for 503 buckets on 2 threads need more; raise --mem-limit to at \
         least 62.0 MiB, or lower --buckets\n"
    );
    assert!(entries(&dir).is_empty(), "{:?}", entries(&dir));
    // The least limit named works (a board of the same keys and counts), a MiB less does not.
    let job = dir.join("job");
    let args = ["-q", "knight", "6x6", "--sweep", "--threads", "2", "--job-dir", path(&job), "--mem-limit"];
    let (counts, _) = ok_in(&dir, &[&args[..], &["62MiB"]].concat());
    assert!(text(&counts).ends_with(&known_lines("knight", 6, 6..=6)), "{}", text(&counts));
    std::fs::remove_dir_all(&job).unwrap();
    let output = leaper_in(&dir, &[&args[..], &["61MiB"]].concat());
    assert_eq!(
        text(&output.stderr),
        "error: --mem-limit 61.0 MiB is too small to count out of core: the store's buffers for 503 buckets on 2 \
         threads need more; raise --mem-limit to at least 62.0 MiB, or lower --buckets\n"
    );
    assert!(!job.exists());
    // The tours' dedupe refuses its limit the same way, before it reads the tours.
    run(&["-q", "tours", "enumerate", "5x5", "--open", "--out", path(&dir.join("open5.txt"))]);
    let dedupe = ["tours", "dedupe", "open5.txt", "--threads", "2", "--mem-limit"];
    let output = leaper_in(&dir, &[&dedupe[..], &["1B"]].concat());
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "error: --mem-limit 1 B is too small: it leaves 0 B to each of the 2 threads that sort buckets, which need \
         256.0 KiB each; raise --mem-limit to at least 512.0 KiB\n"
    );
    assert!(ok_in(&dir, &[&dedupe[..], &["512KiB"]].concat()).0.starts_with(b"tours read      864\n"));
    // A size that is none is refused alike by both.
    let knight = leaper(&["knight", "6x6", "--sweep", "--mem-limit", "lots"], None);
    let tours = leaper_in(&dir, &[&dedupe[..], &["lots"]].concat());
    let said = |output: &Output| text(&output.stderr).lines().next().unwrap().to_string();
    assert_eq!(said(&knight), said(&tours));
    assert_eq!(
        said(&knight),
        "error: invalid value 'lots' for '--mem-limit <SIZE>': \"lots\" is not a size such as 2GiB or 512MiB"
    );
}

#[test]
fn help_and_status_say_what_leaper_does() {
    // --mem-limit: an in-memory count over its limit goes on out of core.
    // Clap wraps the help to the terminal: read it as one line.
    let help = common::one_line(&run(&["knight", "--help"]));
    assert!(help.contains("a count that needs more starts again out of core, with the same budget"), "{help}");
    assert!(!help.contains("stops with advice"), "{help}");
    assert!(help.contains("`knight 5x20 --sweep --bfile F --stride 2`"), "{help}");
    // --stride, told with a quartering.
    let help = common::one_line(&run(&["quarter", "--help"]));
    assert!(help.contains("n half the side: `quarter 8 --bfile F --stride 2` writes `2 766`"), "{help}");
    assert!(!help.contains("knight"), "{help}");
    // The JSON status counts passes from 1, as the text does.
    let dir = scratch_dir("status");
    let job = dir.join("job");
    run(&["-q", "knight", "5x6", "--sweep", "--job-dir", path(&job)]);
    let status: serde_json::Value =
        serde_json::from_str(&run(&["status", "--job-dir", path(&job), "--format", "json"])).unwrap();
    assert_eq!((status["pass"].as_u64(), status["passes"].as_u64()), (Some(1), Some(1)));
    assert!(run(&["status", "--job-dir", path(&job)]).contains("step      all 30 steps of 1 pass done\n"));
}

#[test]
fn a_plan_for_one_worker_speaks_of_one_worker() {
    let dir = scratch_dir("plan");
    let plan = run(&[
        "plan",
        "knight",
        "6x6",
        "--counts",
        "residues",
        "--workers",
        "1",
        "--disk-per-worker",
        "1GiB",
        "--scratch",
        path(&dir),
    ]);
    assert!(plan.starts_with("plan      knight 6x6: 36 steps, 64-bit keys, 1 residue a state, 1 pass\n"), "{plan}");
    assert!(plan.contains("verdict   1 worker with 1.0 GiB of disk each: fits; 1 such worker holds it\n"), "{plan}");
}

#[test]
fn a_worker_that_refuses_the_token_is_not_called_unreachable() {
    let dir = scratch_dir("token");
    let (right, wrong) = (dir.join("token"), dir.join("wrong"));
    std::fs::write(&right, "the workers' secret\n").unwrap();
    std::fs::write(&wrong, "a guess\n").unwrap();
    let address = free_address();
    let mut worker = Command::new(LEAPER)
        .args(["worker", "--listen", &address, "--data-dir", path(&dir.join("data"))])
        .args(["--token-file", path(&right), "--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("worker starts");
    wait_until_listening(&address, "a worker");
    let job = dir.join("job");
    let output =
        leaper(&["knight", "6x6", "--workers", &address, "--token-file", path(&wrong), "--job-dir", path(&job)], None);
    let _ = worker.kill();
    let _ = worker.wait();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr).lines().last().unwrap(),
        format!(
            "error: worker {address} refused the token of --token-file (wrong token): give the file the worker was \
             started with"
        )
    );
}
