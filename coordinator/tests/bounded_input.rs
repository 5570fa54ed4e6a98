//! Every file a user names is read within a bound that fits its kind: a token file, a piece file,
//! tour files, a graph (from a file or stdin), its vertex order and a mask of squares that never
//! end (`/dev/zero`) are refused by name and bound, in bounded memory (the child's peak resident
//! size measured); a huge line or name is never echoed whole; and `--skip-invalid` skips lines
//! that are not text or are too long. An out-of-core sweep's peak resident size stays within its
//! `--mem-limit`, 10% and the floor the guide states.

use std::fs;
use std::io::Read;
use std::io::Write;
use std::path::Path;
use std::process::{ChildStdin, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

mod common;

use common::{leaper, path, run, scratch_dir, text};

const LEAPER: &str = env!("CARGO_BIN_EXE_leaper");
/// The peak resident size a refused run may reach: some 10 MB is what leaper takes to start; the
/// runs before the bounds reached gigabytes in seconds.
const PEAK_LIMIT_KB: u64 = 200 << 10;
/// A run past this is stopped (and the test fails): it read too much, or waited on something.
const DEADLINE: Duration = Duration::from_secs(60);

/// A finished run and its peak resident size in KiB.
struct Measured {
    output: Output,
    peak_kb: u64,
}

/// The `VmHWM` (peak resident size, KiB) of a running process.
fn peak_of(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The leaper process itself: the child, or under `/usr/bin/time` the child's child.
fn leaper_pid(child: u32, timed: bool) -> Option<u32> {
    if !timed {
        return Some(child);
    }
    let children = fs::read_to_string(format!("/proc/{child}/task/{child}/children")).ok()?;
    children.split_whitespace().next()?.parse().ok()
}

/// Runs `leaper ARGS` and measures its peak resident size: exactly by `/usr/bin/time -f %M`
/// where that exists, else by sampling `/proc/PID/status` while it runs. Either way the run is
/// watched and killed if it grows far past the limit or outlives the deadline, so that a
/// regression fails the test instead of exhausting the machine.
fn measured(args: &[&str]) -> Measured {
    measured_with(args, None, DEADLINE)
}

/// What writes a run's stdin, on a thread of its own (stdin is empty without one).
type Feed = Box<dyn FnOnce(ChildStdin) + Send>;

/// [`measured`], with `feed` writing the run's stdin.
fn measured_fed(args: &[&str], feed: Option<Feed>) -> Measured {
    measured_with(args, feed, DEADLINE)
}

/// [`measured`], for a run that may take until `deadline`.
fn measured_until(args: &[&str], deadline: Duration) -> Measured {
    measured_with(args, None, deadline)
}

/// [`measured`], with `feed` writing the run's stdin and `deadline` for the run.
fn measured_with(args: &[&str], feed: Option<Feed>, deadline: Duration) -> Measured {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let time = Path::new("/usr/bin/time");
    let timed = time.is_file();
    let report = std::env::temp_dir().join(format!(
        "leaper-bounded-input-{}-{}.time",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let mut command = if timed {
        let mut command = Command::new(time);
        command.args(["-f", "%M", "-o", path(&report), LEAPER]);
        command
    } else {
        Command::new(LEAPER)
    };
    // In the temporary directory: a run killed here leaves nothing in the repository (a
    // dedupe's scratch directory is made in the current one).
    command.args(args).current_dir(std::env::temp_dir()).env_remove("LEAPER_FAULT");
    let stdin = if feed.is_some() { Stdio::piped() } else { Stdio::null() };
    command.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().expect("leaper runs");
    let feeder = feed.map(|feed| {
        let stdin = child.stdin.take().unwrap();
        std::thread::spawn(move || feed(stdin))
    });
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).unwrap();
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let mut sampled = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        let pid = leaper_pid(child.id(), timed);
        sampled = sampled.max(pid.and_then(peak_of).unwrap_or(0));
        if sampled > 4 * PEAK_LIMIT_KB || started.elapsed() > deadline {
            match pid {
                Some(pid) if timed => {
                    let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
                }
                _ => child.kill().unwrap(),
            }
            let _ = child.wait();
            let _ = fs::remove_file(&report);
            panic!("leaper {args:?} reached {sampled} KiB after {:?}: stopped", started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    if let Some(feeder) = feeder {
        feeder.join().unwrap();
    }
    let output = Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() };
    let peak_kb = if timed {
        // `time -o` writes "Command exited with non-zero status N" before the figure.
        let written = fs::read_to_string(&report).unwrap();
        let _ = fs::remove_file(&report);
        written.lines().last().and_then(|line| line.trim().parse().ok()).expect("a peak from /usr/bin/time")
    } else {
        sampled
    };
    Measured { output, peak_kb }
}

/// Runs `leaper ARGS`, which must be refused with every one of `expected` in its message, within
/// the peak limit. Returns the message.
fn refused_in_bounded_memory(args: &[&str], expected: &[&str]) -> String {
    refused_in_bounded_memory_fed(args, None, expected)
}

/// [`refused_in_bounded_memory`], with `feed` writing the run's stdin.
fn refused_in_bounded_memory_fed(args: &[&str], feed: Option<Feed>, expected: &[&str]) -> String {
    let run = measured_fed(args, feed);
    let stderr = text(&run.output.stderr);
    assert!(!run.output.status.success(), "leaper {args:?} should fail");
    for part in expected {
        assert!(stderr.contains(part), "leaper {args:?}: {part:?} missing from {stderr}");
    }
    assert!(run.peak_kb < PEAK_LIMIT_KB, "leaper {args:?} peaked at {} KiB", run.peak_kb);
    eprintln!("leaper {args:?}: peak {} KiB", run.peak_kb);
    stderr
}

#[test]
fn a_token_file_without_end_is_refused_by_its_bound() {
    let dir = scratch_dir("token");
    let job = dir.join("job");
    refused_in_bounded_memory(
        &["knight", "6x6", "--job-dir", path(&job), "--workers", "127.0.0.1:1", "--token-file", "/dev/zero"],
        &["/dev/zero: the token file is larger than 4 KiB"],
    );
    assert!(!job.exists(), "nothing started");
    // The token itself is never echoed, however it is wrong.
    let token = dir.join("token");
    fs::write(&token, "s3cret-".repeat(1000)).unwrap();
    let stderr = refused_in_bounded_memory(
        &["knight", "6x6", "--job-dir", path(&job), "--workers", "127.0.0.1:1", "--token-file", path(&token)],
        &["the token file is larger than 4 KiB"],
    );
    assert!(!stderr.contains("s3cret"), "{stderr}");
}

#[test]
fn a_piece_file_without_end_is_refused_by_its_bound() {
    refused_in_bounded_memory(
        &["tangram", "solve", "--pieces", "/dev/zero"],
        &["/dev/zero: the piece file is larger than 1 MiB"],
    );
}

#[test]
fn a_tour_file_without_end_is_refused_at_its_first_line() {
    let refusal = ["/dev/zero: line 1: the line is longer than 16384 bytes"];
    refused_in_bounded_memory(&["tours", "dedupe", "/dev/zero", "--board", "6x6"], &refusal);
    refused_in_bounded_memory(&["tours", "convert", "/dev/zero", "--board", "6x6", "--to", "moves"], &refusal);
    refused_in_bounded_memory(&["tours", "show", "/dev/zero", "--board", "6x6"], &refusal);
}

#[test]
fn a_huge_line_is_refused_without_being_echoed() {
    let dir = scratch_dir("huge");
    let short = |args: &[&str], expected: &str| {
        let stderr = refused_in_bounded_memory(args, &[expected]);
        assert!(stderr.len() < 1000, "{} bytes: {stderr}", stderr.len());
    };
    // 10 MB lines: past the piece file's bound, past a tour line's.
    let pieces = dir.join("pieces.txt");
    fs::write(&pieces, format!("square {}\n", "0,0 ".repeat(2_500_000))).unwrap();
    short(&["tangram", "solve", "--pieces", path(&pieces)], "the piece file is larger than 1 MiB");
    let tours = dir.join("tours.txt");
    fs::write(&tours, format!("{}\n", "a1 ".repeat(3_500_000))).unwrap();
    short(&["tours", "dedupe", path(&tours), "--board", "6x6"], "line 1: the line is longer than 16384 bytes");
    // Within the bounds, a long word is quoted by its first 80 characters.
    fs::write(&pieces, format!("square 0,0 1,0 1,1 {},1\n", "7".repeat(500_000))).unwrap();
    short(&["tangram", "solve", "--pieces", path(&pieces)], &format!("\"{}\"… (500002 bytes)", "7".repeat(80)));
    fs::write(&pieces, format!("{} 0,0 1,0 1,1 0,1\n", "big-square-".repeat(50_000))).unwrap();
    short(&["tangram", "solve", "--pieces", path(&pieces)], "a piece name has at most 64 characters");
    fs::write(&tours, format!("a1 {}\n", "z".repeat(15_000))).unwrap();
    short(&["tours", "convert", path(&tours), "--board", "6x6", "--to", "edges"], "… (15000 bytes) is not a square");
}

#[test]
fn skip_invalid_skips_lines_that_are_not_text_or_too_long() {
    let dir = scratch_dir("skip");
    let good = dir.join("good.txt");
    run(&["tours", "generate", "6x6", "--count", "5", "--seed", "3", "--out", path(&good)]);
    let lines: Vec<Vec<u8>> = fs::read(&good).unwrap().split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    assert_eq!(lines.len(), 5);
    let mixed = dir.join("mixed.txt");
    let mut bytes = lines[..2].concat();
    bytes.extend_from_slice(b"  \xff\xfe not text\r\n");
    bytes.extend(lines[2..4].concat());
    bytes.extend(format!("  {}\r\n", "1".repeat(20_000)).bytes());
    bytes.extend(&lines[4]);
    fs::write(&mixed, bytes).unwrap();
    for tool in ["convert", "dedupe", "show"] {
        let mut args = vec!["tours", tool, path(&mixed), "--board", "6x6"];
        if tool == "convert" {
            args.extend(["--to", "moves"]);
        }
        let output = leaper(&args, None);
        assert!(!output.status.success(), "{tool}");
        let stderr = text(&output.stderr);
        let expected = format!(
            "{}: line 3: the line is not text (UTF-8) (read as 6x6, the board of --board; tours of another \
                 board need --board WxH; --skip-invalid skips such lines)",
            mixed.display()
        );
        assert!(stderr.contains(&expected), "{tool}: {stderr}");
    }
    let converted = run(&["tours", "convert", path(&mixed), "--board", "6x6", "--to", "moves", "--skip-invalid"]);
    assert_eq!(converted, run(&["tours", "convert", path(&good), "--board", "6x6", "--to", "moves"]));
    let totals = run(&["tours", "dedupe", path(&mixed), "--board", "6x6", "--skip-invalid", "--format", "json"]);
    assert!(totals.contains(r#""tours":5,"invalid":2"#), "{totals}");
    let fifth = run(&["tours", "show", path(&mixed), "--board", "6x6", "--skip-invalid", "--number", "5"]);
    assert_eq!(fifth, run(&["tours", "show", path(&good), "--board", "6x6", "--number", "5"]));
}

/// Issue 55: `leaper graph /dev/zero`, `--order /dev/zero` and `--remove-mask /dev/zero` grew by
/// about 0.9 GB a second and printed nothing. Each is refused at its bound: 64 MiB for a graph
/// and an order, a few kilobytes for the mask of a 6 x 6 board.
#[test]
fn graph_order_and_mask_files_without_end_are_refused_by_their_bounds() {
    let dir = scratch_dir("graph-zero");
    let triangle = dir.join("triangle.txt");
    fs::write(&triangle, "a b\nb c\nc a\n").unwrap();
    let job = dir.join("job");
    refused_in_bounded_memory(
        &["graph", "/dev/zero", "--job-dir", path(&job)],
        &["/dev/zero: the graph file is larger than 64 MiB, more than such a file holds: is it the right file?"],
    );
    refused_in_bounded_memory(
        &["graph", path(&triangle), "--order", "/dev/zero", "--job-dir", path(&job)],
        &["/dev/zero: the vertex order file is larger than 64 MiB"],
    );
    refused_in_bounded_memory(
        &["knight", "6x6", "--remove-mask", "/dev/zero", "--job-dir", path(&job)],
        &["/dev/zero: the mask file of the 6x6 board is larger than 4432 bytes"],
    );
    assert!(!job.exists(), "nothing started");
    // A mask of a gigabyte (sparse: nothing on disk) is refused by its size, unread.
    let big = dir.join("mask.txt");
    fs::File::create(&big).unwrap().set_len(1 << 30).unwrap();
    let started = Instant::now();
    refused_in_bounded_memory(
        &["knight", "6x6", "--remove-mask", path(&big)],
        &["mask.txt: the mask file of the 6x6 board is larger than 4432 bytes"],
    );
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
}

/// A graph piped to stdin is refused at the same bound: leaper reads at most one byte past
/// 64 MiB of the gigabyte offered, and the writer finds the pipe closed.
#[test]
fn a_huge_graph_on_stdin_is_refused_at_the_bound() {
    let offered = 1u64 << 30;
    let feed: Feed = Box::new(move |mut stdin| {
        // An edge list of a ring, 16 bytes an edge, valid all along.
        let block: String = (0..4096u64).map(|i| format!("{:07} {:07}\n", i, i + 1)).collect();
        let mut written = 0;
        while written < offered {
            if stdin.write_all(block.as_bytes()).is_err() {
                return;
            }
            written += block.len() as u64;
        }
    });
    refused_in_bounded_memory_fed(
        &["graph", "-"],
        Some(feed),
        &["stdin: the graph file is larger than 64 MiB, more than such a file holds"],
    );
    // The graph and its order cannot both be stdin.
    let stderr = refused_in_bounded_memory_fed(
        &["graph", "-", "--order", "-"],
        Some(Box::new(|mut stdin| {
            let _ = stdin.write_all(b"a b\nb c\nc a\n");
        })),
        &["the graph and --order are both read from stdin (-)"],
    );
    assert!(stderr.len() < 1000, "{stderr}");
}

/// Issue 55: `--order big` echoed a 2 GB vertex name in its error. Every message about a graph
/// quotes a vertex's name by its first 80 characters: an order's unknown vertex, a reason's cut
/// vertex, a note's repeated edge.
#[test]
fn long_vertex_names_are_cut_in_every_message() {
    let dir = scratch_dir("long-names");
    let long = "v".repeat(2_000_000);
    let shown = format!("{}… (2000000 bytes)", "v".repeat(80));
    let triangle = dir.join("triangle.txt");
    fs::write(&triangle, "a b\nb c\nc a\n").unwrap();
    let order = dir.join("order.txt");
    fs::write(&order, format!("a b {long}\n")).unwrap();
    let stderr = refused_in_bounded_memory(
        &["graph", path(&triangle), "--order", path(&order)],
        &[&format!("order.txt: the graph has no vertex \"{}\"… (2000000 bytes)", "v".repeat(80))],
    );
    assert!(stderr.len() < 1000, "{} bytes", stderr.len());
    // A bowtie whose middle vertex has the long name, its edge to a given twice: the note and
    // the reason both name it, cut.
    let bowtie = dir.join("bowtie.txt");
    fs::write(&bowtie, format!("a b\nb {long}\n{long} a\n{long} d\nd e\ne {long}\na {long}\n")).unwrap();
    let run = measured(&["graph", path(&bowtie), "--format", "json"]);
    let (stdout, stderr) = (text(&run.output.stdout), text(&run.output.stderr));
    assert!(run.output.status.success(), "{stderr}");
    assert!(stdout.contains(&format!("vertex {shown} is a cut vertex")), "{}", &stdout[..stdout.len().min(2000)]);
    assert!(
        stderr.contains(&format!("1 repeated edge merged (line 7: a {shown})")),
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
    assert!(stdout.len() < 2000 && stderr.len() < 4000, "{} and {} bytes", stdout.len(), stderr.len());
}

/// What `--mem-limit` does not bound, on two threads: the program, its threads' stacks and
/// allocator arenas, pages of the layer files being read (docs/GUIDE.md, "Long runs").
const MEM_LIMIT_FLOOR_KB: u64 = 32 << 10;

#[test]
fn an_out_of_core_sweep_stays_within_its_memory_limit() {
    // 128 MiB gives each of the 503 buckets a share of less than 1 MiB: arrays the allocator
    // took from its heaps, whose freed pages it kept, and before they were mappings of their
    // own this sweep peaked at 208,792 and 228,052 KiB (two runs), past the 176,947 allowed.
    let dir = scratch_dir("sweep");
    let job = dir.join("job");
    let limit_kb = 128 << 10;
    let args = ["knight", "7x8", "--sweep", "--job-dir", path(&job), "--mem-limit", "128MiB", "--threads", "2", "-q"];
    let run = measured_until(&args, Duration::from_secs(300));
    assert!(run.output.status.success(), "{}", text(&run.output.stderr));
    // The count, checked against shared/tests/closed_tours.rs (the matrix in memory).
    assert!(text(&run.output.stdout).contains("7x8 34524432316\n"), "{}", text(&run.output.stdout));
    let allowed = limit_kb + limit_kb / 10 + MEM_LIMIT_FLOOR_KB;
    eprintln!("leaper {args:?}: peak {} KiB of {allowed} allowed", run.peak_kb);
    assert!(run.peak_kb <= allowed, "leaper {args:?} peaked at {} KiB, past {allowed}", run.peak_kb);
}
