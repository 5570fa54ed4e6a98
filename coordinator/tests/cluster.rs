//! A cluster of workers on loopback counts exactly what the embedded mode counts, also when a
//! worker or the coordinator is killed mid-job, and refuses what it must refuse.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{free_address, known, known_line, known_lines, text, wait_for_cells, wait_until_listening, Scratch};

const LEAPER: &str = env!("CARGO_BIN_EXE_leaper");

/// A fresh scratch directory holding the cluster's token.
fn scratch(name: &str) -> Scratch {
    let dir = common::scratch_dir(name);
    std::fs::write(dir.join("token"), "cluster-secret\n").unwrap();
    dir
}

/// A worker process on loopback, killed when dropped.
struct Worker {
    address: String,
    data_dir: PathBuf,
    token: PathBuf,
    /// More flags (TLS), kept for restarts.
    extra: Vec<String>,
    child: Child,
}

impl Worker {
    fn start(dir: &Path, name: &str) -> Worker {
        Worker::start_with(dir, name, Vec::new())
    }

    fn start_with(dir: &Path, name: &str, extra: Vec<String>) -> Worker {
        let address = free_address();
        Worker::start_at(address, dir.join(name), dir.join("token"), extra)
    }

    /// A worker with as many threads as the machine has cores, as a user starts one (the
    /// others run one thread, so that several fit a small machine).
    fn start_on_every_core(dir: &Path, name: &str) -> Worker {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).max(2);
        Worker::start_with(dir, name, vec!["--threads".into(), cores.to_string()])
    }

    fn start_at(address: String, data_dir: PathBuf, token: PathBuf, extra: Vec<String>) -> Worker {
        let one_thread = (!extra.iter().any(|flag| flag == "--threads")).then_some(["--threads", "1"]);
        let child = Command::new(LEAPER)
            .args(["worker", "--listen", &address, "--data-dir", data_dir.to_str().unwrap()])
            .args(["--token-file", token.to_str().unwrap()])
            .args(one_thread.iter().flatten())
            .args(&extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("worker starts");
        wait_until_listening(&address, "a worker");
        Worker { address, data_dir, token, extra, child }
    }

    /// The names of the files in the worker's data directory, sorted.
    fn files(&self) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(&self.data_dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }

    /// Kills the worker (SIGKILL) and starts it again with the same address and data directory.
    fn restart(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let again =
            Worker::start_at(self.address.clone(), self.data_dir.clone(), self.token.clone(), self.extra.clone());
        let old = std::mem::replace(self, again);
        std::mem::forget(old);
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn addresses(workers: &[Worker]) -> String {
    workers.iter().map(|w| w.address.as_str()).collect::<Vec<_>>().join(",")
}

fn leaper(args: &[&str]) -> Output {
    Command::new(LEAPER).args(args).output().expect("leaper runs")
}

/// Collects a child's stderr on a thread and tells when a line containing `needle` appears.
struct StderrWatch {
    seen: std::sync::mpsc::Receiver<()>,
    reader: std::thread::JoinHandle<String>,
}

impl StderrWatch {
    fn new(stderr: std::process::ChildStderr, needle: &'static str) -> StderrWatch {
        let (tell, seen) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            use std::io::BufRead;
            let mut all = String::new();
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains(needle) {
                    let _ = tell.send(());
                }
                all.push_str(&line);
                all.push('\n');
            }
            all
        });
        StderrWatch { seen, reader }
    }

    fn wait(&self, limit: Duration) -> bool {
        self.seen.recv_timeout(limit).is_ok()
    }

    /// Everything the child wrote, once it has exited.
    fn finish(self) -> String {
        self.reader.join().unwrap()
    }
}

fn cluster_args<'a>(board: &[&'a str], workers: &'a str, dir: &'a Path, job: &'a str) -> Vec<String> {
    let mut args: Vec<String> = board.iter().map(|s| s.to_string()).collect();
    args.extend(["--workers", workers, "--token-file"].map(String::from));
    args.push(dir.join("token").to_str().unwrap().to_string());
    args.push("--job-dir".into());
    args.push(dir.join(job).to_str().unwrap().to_string());
    args
}

fn run_cluster(board: &[&str], workers: &str, dir: &Path, job: &str) -> Output {
    let args = cluster_args(board, workers, dir, job);
    Command::new(LEAPER).args(&args).output().expect("leaper runs")
}

fn embedded(board: &[&str]) -> String {
    let output = leaper(board);
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stdout)
}

#[test]
fn three_workers_count_what_the_embedded_mode_counts() {
    let dir = scratch("equal");
    let workers: Vec<Worker> = (0..3).map(|i| Worker::start(&dir, &format!("w{i}"))).collect();
    let list = addresses(&workers);
    let boards: [&[&str]; 13] = [
        &["knight", "6x8", "--sweep", "--buckets", "31", "--format", "json"],
        // Open tours, and both kinds from one sweep.
        &["knight", "5x6", "--open", "--sweep", "--buckets", "7", "--format", "json"],
        &["knight", "6x5", "--tours", "both", "--buckets", "7"],
        // The quartering's frontier sweep and its enumeration (a subtree job) on workers.
        &["quarter", "12", "--format", "json", "--buckets", "7"],
        &["quarter", "10", "--by-start"],
        // The tangram's shards: the pieces travel in the job's parameters.
        &["tangram", "solve", "--format", "json"],
        &["knight", "8x5", "--buckets", "7"],
        &["zebra", "5x8", "--sweep", "--buckets", "13"],
        // Two passes of one modulus each, and a spare: the pass boundary runs on the cluster too.
        &["knight", "6x7", "--sweep", "--verify", "--moduli-per-pass", "1", "--buckets", "5"],
        // The exact 64-bit pass, whose counts pass 2^64 from 3x25: the residue pass follows it.
        &["tours", "--moves", "1,0+1,1", "3x30", "--sweep", "--buckets", "7", "--counts", "exact64"],
        // The exact 128-bit pass, checked by a spare residue (the lanes of wire format 5).
        &["knight", "6x14", "--sweep", "--buckets", "7", "--counts", "exact128", "--verify"],
        // Classes up to symmetry: the folds run in the board's sweep, their keys tagged.
        &["knight", "6x7", "--distinct", "--format", "json", "--buckets", "7"],
        &["knight", "5x5", "--open", "--distinct", "--buckets", "7"],
    ];
    for (i, board) in boards.iter().enumerate() {
        let expected = embedded(board);
        let output = run_cluster(board, &list, &dir, &format!("job{i}"));
        assert!(output.status.success(), "{board:?}: {}", text(&output.stderr));
        assert_eq!(text(&output.stdout), expected, "{board:?}");
        // A finished job frees the workers' data directories for the next one: only each
        // worker's id stays.
        for worker in &workers {
            assert_eq!(worker.files(), ["worker-id"], "{board:?}: files left behind");
        }
    }
    assert!(
        embedded(boards[0]).contains(&format!(r#""board":"6x8","tours":"closed","count":"{}""#, known("knight 6x8")))
    );
    assert!(embedded(boards[1]).contains(r#""board":"5x6","tours":"open","count":"18784""#));
    assert_eq!(embedded(boards[2]), "closed 8\nopen 18784\n");
    assert!(embedded(boards[3]).contains(r#""total":"7695805""#));
    assert!(embedded(boards[11]).contains(r#""count":"267183","total":"1067638""#));
    assert!(embedded(boards[12]).starts_with("112 (of 864 tours"));
    let king = embedded(boards[9]);
    assert!(king.contains("\n3x25 14214930709900240312\n3x26 92585818933286506262\n"), "{king}");
    drop(workers);
}

/// `tours enumerate` is leased like any subtree job; `tours dedupe --workers` sends its buckets
/// (split small by the memory limit) to the workers: the totals and the file are those of the
/// embedded run, with two workers or one; a dead worker is refused before any work.
/// `scripts/nine-by-ten` rehearsed on 6x6: priced, started on the workers with the status
/// served, and run again on the finished job (it resumes, and prints the same count).
#[test]
fn the_flagship_script_runs_its_path_on_a_small_board() {
    let dir = scratch("nine-by-ten");
    let workers: Vec<Worker> = (0..2).map(|i| Worker::start(&dir, &format!("w{i}"))).collect();
    let list = addresses(&workers);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/nine-by-ten");
    let bin = Path::new(LEAPER).parent().unwrap();
    let run = || {
        Command::new("bash")
            .arg(&script)
            .args(["--workers", &list, "--token-file", dir.join("token").to_str().unwrap(), "--board", "6x6"])
            .args(["--job-dir", dir.join("job").to_str().unwrap(), "--listen", &free_address()])
            .env("LEAPER_BIN", bin)
            .env("RUST_LOG", "warn")
            .output()
            .expect("the script runs")
    };
    let first = run();
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert_eq!(text(&first.stdout), known_line("knight 6x6"));
    let stderr = text(&first.stderr);
    assert!(stderr.contains("plan      knight 6x6") && stderr.contains("leaper status --coordinator"), "{stderr}");
    let again = run();
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(text(&again.stdout), known_line("knight 6x6"));
    assert!(text(&again.stderr).contains("resuming the job"));
}

#[test]
fn workers_enumerate_tours_and_deduplicate_their_buckets() {
    let dir = scratch("tour-files");
    let mut workers: Vec<Worker> = (0..2).map(|i| Worker::start(&dir, &format!("w{i}"))).collect();
    let list = addresses(&workers);
    let tours = dir.join("tours6.txt");
    let enumerate = ["tours", "enumerate", "6x6", "--closed", "--out", tours.to_str().unwrap()];
    let output = run_cluster(&enumerate, &list, &dir, "enumerate");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), known_line("knight 6x6"));
    let token = dir.join("token");
    let dedupe = |out: &Path, workers: Option<&str>| {
        let mut args = vec!["tours", "dedupe", tours.to_str().unwrap(), tours.to_str().unwrap(), "--board", "6x6"];
        // The least memory two threads may sort in: here on two threads, there on two workers.
        args.extend(["--mem-limit", "512KiB", "--threads", "2", "--format", "json", "--out", out.to_str().unwrap()]);
        if let Some(list) = workers {
            args.extend(["--workers", list, "--token-file", token.to_str().unwrap()]);
        }
        let output = leaper(&args);
        assert!(output.status.success(), "{}", text(&output.stderr));
        (text(&output.stdout), std::fs::read(out).unwrap())
    };
    let here = dedupe(&dir.join("here.txt"), None);
    assert!(here.0.contains(r#""tours":19724,"invalid":0,"classes":1245"#), "{}", here.0);
    assert_eq!(dedupe(&dir.join("there.txt"), Some(&list)), here);
    // One worker gone: its buckets go to the other.
    workers[1].child.kill().unwrap();
    workers[1].child.wait().unwrap();
    let one_left = format!("{},{}", workers[0].address, workers[1].address);
    let survivors = {
        // The dead worker is refused before any work: a tool checks its workers as a job does.
        let output = leaper(&[
            "tours",
            "dedupe",
            tours.to_str().unwrap(),
            "--board",
            "6x6",
            "--workers",
            &one_left,
            "--token-file",
            token.to_str().unwrap(),
        ]);
        assert!(!output.status.success());
        assert!(text(&output.stderr).contains(&workers[1].address), "{}", text(&output.stderr));
        dedupe(&dir.join("one.txt"), Some(&workers[0].address))
    };
    assert_eq!(survivors, here);
    for worker in &workers[..1] {
        assert_eq!(worker.files(), ["worker-id"], "a deduplication leaves nothing on a worker");
    }
    drop(workers);
}

#[test]
fn two_workers_count_boards_that_need_128_bit_keys_as_brute_force_does() {
    let dir = scratch("wide");
    let workers: Vec<Worker> = (0..2).map(|i| Worker::start(&dir, &format!("w{i}"))).collect();
    let list = addresses(&workers);
    // The knight at width 10 and the zebra with the king's diagonal at width 6 need more than
    // 64 bits per frontier key (69 and 67); the knight's open tours from width 9 (65).
    let boards: [(&[&str], &str); 3] = [
        (&["knight", "10x3", "--sweep", "--buckets", "13"], "1,2"),
        (&["tours", "--moves", "2,3+1,1", "6x4", "--sweep", "--buckets", "13"], "2,3+1,1"),
        (&["knight", "9x3", "--open", "--sweep", "--buckets", "13"], "1,2"),
    ];
    for (i, (board, moves)) in boards.iter().enumerate() {
        let output = run_cluster(board, &list, &dir, &format!("job{i}"));
        assert!(output.status.success(), "{board:?}: {}", text(&output.stderr));
        let printed = text(&output.stdout);
        assert_eq!(printed, embedded(board), "{board:?}");
        let moves: leaper_core::hamiltonian::board::MoveSet = moves.parse().unwrap();
        let mut tours = 0;
        for line in printed.lines() {
            let (size, count) = line.split_once(' ').unwrap();
            let (width, length) = size.split_once('x').unwrap();
            let (width, length) = (width.parse().unwrap(), length.parse().unwrap());
            let brute = if board.contains(&"--open") {
                leaper_core::problems::tours::brute::count_paths(width, length, &moves).paths
            } else {
                leaper_core::problems::tours::brute::count_cycles(width, length, &moves)
            };
            assert_eq!(count, brute.to_string(), "{board:?}: {size}");
            tours += brute;
        }
        assert!(tours > 0, "{board:?}: no tours at all proves little");
    }
    drop(workers);
}

const LONG_BOARD: &[&str] = &["knight", "6x10", "--sweep", "--buckets", "31"];

#[test]
fn a_worker_killed_mid_job_comes_back_and_the_counts_are_exact() {
    let expected = embedded(LONG_BOARD);
    let dir = scratch("worker-kill");
    let mut workers: Vec<Worker> = (0..3).map(|i| Worker::start(&dir, &format!("w{i}"))).collect();
    let list = addresses(&workers);
    let args = cluster_args(LONG_BOARD, &list, &dir, "job");
    let coordinator =
        Command::new(LEAPER).args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("starts");
    wait_for_cells(&dir.join("job"), 25);
    workers[1].restart();
    let output = coordinator.wait_with_output().unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("step aborted"), "the coordinator did not notice the kill: {stderr}");
    assert_eq!(text(&output.stdout), expected);
    drop(workers);
}

#[test]
fn a_worker_that_stops_answering_aborts_the_step_and_the_counts_are_exact() {
    let expected = embedded(LONG_BOARD);
    let dir = scratch("worker-stop");
    let workers: Vec<Worker> = (0..3).map(|i| Worker::start(&dir, &format!("w{i}"))).collect();
    let args = cluster_args(LONG_BOARD, &addresses(&workers), &dir, "job");
    let mut coordinator =
        Command::new(LEAPER).args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("starts");
    let log = StderrWatch::new(coordinator.stderr.take().unwrap(), "step aborted");
    wait_for_cells(&dir.join("job"), 25);
    // A hung machine: the process and its connections stay, the answers stop, until the
    // coordinator has noticed (a fixed pause could end inside a commit, which tolerates it).
    let pid = workers[2].child.id().to_string();
    assert!(Command::new("kill").args(["-STOP", &pid]).status().unwrap().success());
    let noticed = log.wait(Duration::from_secs(180));
    assert!(Command::new("kill").args(["-CONT", &pid]).status().unwrap().success());
    let output = coordinator.wait_with_output().unwrap();
    let stderr = log.finish();
    assert!(noticed, "the coordinator did not notice the hang: {stderr}");
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout), expected);
    drop(workers);
}

#[test]
fn a_coordinator_killed_mid_job_resumes_to_the_exact_counts() {
    let expected = embedded(LONG_BOARD);
    let dir = scratch("coordinator-kill");
    let workers: Vec<Worker> = (0..3).map(|i| Worker::start(&dir, &format!("w{i}"))).collect();
    let args = cluster_args(LONG_BOARD, &addresses(&workers), &dir, "job");
    let mut coordinator =
        Command::new(LEAPER).args(&args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("starts");
    wait_for_cells(&dir.join("job"), 25);
    coordinator.kill().unwrap();
    coordinator.wait().unwrap();
    let output = leaper(&["resume", "--job-dir", dir.join("job").to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), expected);
    drop(workers);
}

/// Issue 55: two leases that reached a fresh worker at once both claimed its data directory,
/// and the second failed ("job-id: cannot replace"): every subtree job on two workers with
/// their default threads failed 8 times in 8. Every subtree problem, on two and on three such
/// workers, again and again (each job ends by freeing the directories, so each one claims
/// fresh directories again), counts what the embedded mode counts.
#[test]
fn subtree_jobs_run_on_workers_with_all_their_threads_again_and_again() {
    let dir = scratch("subtree-threads");
    let tours = dir.join("tours.txt");
    let problems: [(&[&str], usize); 5] = [
        (&["tangram", "solve"], 12),
        (&["quarter", "10", "--by-start"], 12),
        (&["quarter", "10", "--enumerate", "--format", "json"], 6),
        (&["tours", "enumerate", "5x6", "--closed", "--out", tours.to_str().unwrap()], 6),
        (&["quarto", "--lines", "rows,cols"], 1),
    ];
    let expected: Vec<String> = problems.iter().map(|(command, _)| embedded(command)).collect();
    let tours_embedded = std::fs::read(&tours).unwrap();
    for size in [2, 3] {
        let workers: Vec<Worker> =
            (0..size).map(|i| Worker::start_on_every_core(&dir, &format!("w{size}-{i}"))).collect();
        let list = addresses(&workers);
        for (index, ((command, rounds), expected)) in problems.iter().zip(&expected).enumerate() {
            for round in 0..*rounds {
                let output = run_cluster(command, &list, &dir, &format!("job-{size}-{index}-{round}"));
                let stderr = text(&output.stderr);
                assert!(output.status.success(), "{command:?} on {size} workers, round {round}: {stderr}");
                assert_eq!(&text(&output.stdout), expected, "{command:?} on {size} workers, round {round}");
                for worker in &workers {
                    assert_eq!(worker.files(), ["worker-id"], "{command:?}: the job left its claim behind");
                }
            }
        }
        assert_eq!(std::fs::read(&tours).unwrap(), tours_embedded, "the enumerated tours differ on {size} workers");
    }
    // The counts themselves, against the tables (Läuchli 142; Parkin's 10 x 10 corrected to
    // 43,318; 5 x 6 has 8 closed tours; Quarto's rows-and-columns draws).
    assert!(expected[0].contains("142"), "{}", expected[0]);
    assert!(expected[1].contains("43318"), "{}", expected[1]);
    assert_eq!(expected[3], "8\n");
    assert_eq!(expected[4], "1329371360640\n");
}

#[test]
fn quarto_shards_leased_to_workers_survive_a_worker_kill() {
    let dir = scratch("quarto");
    let mut workers: Vec<Worker> = (0..2).map(|i| Worker::start(&dir, &format!("w{i}"))).collect();
    let list = addresses(&workers);
    let args = cluster_args(&["quarto", "--lines", "rows,cols,alldiags"], &list, &dir, "job");
    let coordinator =
        Command::new(LEAPER).args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("starts");
    let ledger = dir.join("job").join("ledger.jsonl");
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(&ledger).map_or(0, |t| t.lines().count()) < 20 {
        assert!(Instant::now() < deadline, "no shards finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    workers[1].restart();
    let output = coordinator.wait_with_output().unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout), "85842854016\n");
    assert!(stderr.contains("leased again"), "the kill went unnoticed: {stderr}");
    for worker in &workers {
        assert!(!worker.data_dir.join("job-id").exists(), "the job released {}", worker.address);
    }
    drop(workers);
}

#[test]
fn bad_clusters_are_refused_before_any_work() {
    let dir = scratch("refused");
    let worker = Worker::start(&dir, "w0");
    let board = ["knight", "6x6"];
    let duplicate = format!("{0},{0}", worker.address);
    let unreachable = format!("{},{}", worker.address, free_address());
    for (workers, message) in [(duplicate.as_str(), "listed twice"), (unreachable.as_str(), "cannot reach worker")] {
        let output = run_cluster(&board, workers, &dir, &format!("job-{}", message.replace(' ', "-")));
        assert_eq!(output.status.code(), Some(1), "{workers}");
        assert!(text(&output.stderr).contains(message), "{workers}: {}", text(&output.stderr));
    }
    // A worker whose data directory belongs to another job.
    std::fs::write(worker.data_dir.join("job-id"), "some-other-job\n").unwrap();
    let output = run_cluster(&board, &worker.address, &dir, "job-owned");
    assert!(text(&output.stderr).contains("belongs to job some-other-job"), "{}", text(&output.stderr));
    // --workers without a job directory or token.
    let output = leaper(&["knight", "6x6", "--workers", &worker.address]);
    assert!(text(&output.stderr).contains("--workers needs --job-dir"), "{}", text(&output.stderr));
    drop(worker);
}

#[test]
fn one_worker_under_two_names_or_two_workers_on_one_directory_are_refused_before_any_work() {
    let dir = scratch("identity");
    let worker = Worker::start(&dir, "w0");
    let port = worker.address.rsplit(':').next().unwrap().to_string();
    let twice = format!("{},localhost:{port}", worker.address);
    let output = run_cluster(&["knight", "6x6"], &twice, &dir, "job-twice");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("are the same worker") && stderr.contains("list each worker once"), "{stderr}");
    // Refused before any work: the worker is not claimed, and the next job runs on it.
    assert_eq!(worker.files(), ["worker-id"]);
    assert!(!dir.join("job-twice").exists(), "the refused start left its job directory");
    let output = run_cluster(&["knight", "6x6"], &worker.address, &dir, "job-once");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), known_line("knight 6x6"));

    // A second worker on the same data directory does not start.
    let output = Command::new(LEAPER)
        .args(["worker", "--listen", &free_address(), "--data-dir", worker.data_dir.to_str().unwrap()])
        .args(["--token-file", dir.join("token").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("in use by another leaper process"), "{}", text(&output.stderr));
    // Nor does a worker given a job directory as its data directory.
    let output = Command::new(LEAPER)
        .args(["worker", "--listen", &free_address(), "--data-dir", dir.join("job-once").to_str().unwrap()])
        .args(["--token-file", dir.join("token").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("it is a job directory"), "{}", text(&output.stderr));
    assert!(dir.join("job-once/job.toml").exists());
    drop(worker);
}

#[test]
fn workers_and_the_coordinator_killed_at_random_moments_never_cost_a_count() {
    let expected = embedded(LONG_BOARD);
    let dir = scratch("random-kills");
    let mut workers: Vec<Worker> = (0..2).map(|i| Worker::start(&dir, &format!("w{i}"))).collect();
    let list = addresses(&workers);
    // xorshift, seeded: a failing run repeats exactly.
    let mut seed = 0x0020_2611_22c1_u64;
    let mut below = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    const KILLS: usize = 6;
    let (mut worker_kills, mut coordinator_kills, mut jobs) = (0, 0, 0);
    loop {
        let job = dir.join(format!("job{jobs}"));
        let args = if job.join("job.toml").exists() {
            vec!["resume".to_string(), "--job-dir".into(), job.to_str().unwrap().into()]
        } else {
            cluster_args(LONG_BOARD, &list, &dir, &format!("job{jobs}"))
        };
        let mut coordinator =
            Command::new(LEAPER).args(&args).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        // While it runs: a worker killed and restarted, then the coordinator killed.
        std::thread::sleep(Duration::from_millis(300 + below(1500)));
        if worker_kills < KILLS && coordinator.try_wait().unwrap().is_none() {
            workers[below(2) as usize].restart();
            worker_kills += 1;
            std::thread::sleep(Duration::from_millis(300 + below(1500)));
        }
        if coordinator_kills < KILLS && coordinator.try_wait().unwrap().is_none() {
            coordinator.kill().unwrap();
            coordinator_kills += 1;
        }
        let output = coordinator.wait_with_output().unwrap();
        if output.status.success() {
            assert_eq!(
                text(&output.stdout),
                expected,
                "job {jobs}: {worker_kills} worker, {coordinator_kills} coordinator kills"
            );
            if worker_kills == KILLS && coordinator_kills == KILLS {
                break;
            }
            jobs += 1;
        }
    }
    // The finished job freed both data directories.
    for worker in &workers {
        assert_eq!(worker.files(), ["worker-id"], "{}", worker.address);
    }
    drop(workers);
}

mod protocol {
    //! Calls a worker directly, as a hostile or confused peer would.

    use leaper_core::engine::subtree::SubtreeProblem;
    use leaper_core::engine::RecordLayout;
    use leaper_core::problems::quarto::Quarto;
    use leaper_proto::client::{client, Credentials};
    use leaper_proto::convert::{encode_batch, BatchSection};
    use leaper_proto::v1::{InfoRequest, PrepareRequest, ShardLease, StateBatch};
    use leaper_proto::FORMAT_VERSION;
    use tonic::Code;

    use super::*;

    fn prepare(workers: Vec<String>, job_id: &str) -> PrepareRequest {
        let params = "piece = \"knight\"\nmoves = \"1,2\"\nboard = \"5x6\"\nsweep = false\n";
        let table = toml::from_str(params).unwrap();
        let Ok(leaper_core::engine::Job::Sweep(sweep)) =
            leaper_core::problems::find("tours").and_then(|problem| problem.task(&table)?.job())
        else {
            panic!("a tours job is a sweep")
        };
        PrepareRequest {
            job_id: job_id.into(),
            format_version: FORMAT_VERSION,
            problem: "tours".into(),
            params: params.into(),
            key_words: 1,
            key_layout: sweep.key_layout(),
            key_format: Some(sweep.key_format()),
            buckets: 4,
            workers,
            index: 0,
            pass: 0,
            moduli: vec![0],
            mem_limit: 256 << 20,
            layers_merged: 0,
            layer_number: 0,
            files: Vec::new(),
            generation: 0,
        }
    }

    #[test]
    fn workers_refuse_strangers_foreign_jobs_and_foreign_buckets() {
        let dir = scratch("protocol");
        let worker = Worker::start(&dir, "w0");
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let _entered = runtime.enter();
        runtime.block_on(async {
            let credentials = |token: &str| Credentials { token: token.into(), tls_ca: None };
            let mut wrong = client(&worker.address, &credentials("not-the-token")).unwrap();
            let refused = wrong.info(InfoRequest {}).await.unwrap_err();
            assert_eq!(refused.code(), Code::Unauthenticated);

            let mut good = client(&worker.address, &credentials("cluster-secret")).unwrap();
            let other = free_address();
            let mut skewed = prepare(vec![worker.address.clone(), other.clone()], "job-a");
            skewed.format_version = FORMAT_VERSION + 1;
            assert_eq!(good.prepare(skewed).await.unwrap_err().code(), Code::FailedPrecondition);
            // A worker whose keys would mean something else (another release) refuses the job.
            let mut other_keys = prepare(vec![worker.address.clone(), other.clone()], "job-a");
            other_keys.key_layout.push_str(" (another release)");
            let refused = good.prepare(other_keys).await.unwrap_err();
            assert_eq!(refused.code(), Code::FailedPrecondition, "{refused}");
            assert!(refused.message().contains("run the same leaper release everywhere"), "{refused}");
            // A worker of another key format for the problem (another version of leaper) refuses
            // the job by that number, whatever the layouts say.
            let mut other_format = prepare(vec![worker.address.clone(), other.clone()], "job-a");
            let ours = other_format.key_format.unwrap();
            other_format.key_format = Some(ours + 1);
            let refused = good.prepare(other_format).await.unwrap_err();
            assert_eq!(refused.code(), Code::FailedPrecondition, "{refused}");
            let named = format!(
                "the coordinator's tours keys are of key format {}, this worker's of key format {ours}",
                ours + 1
            );
            assert!(refused.message().contains(&named), "{refused}");
            assert!(
                refused.message().contains("run the same leaper on the workers as on the coordinator"),
                "{refused}"
            );
            // A coordinator of before key formats were sent (none): the layout decides, and agrees.
            let unversioned =
                PrepareRequest { key_format: None, ..prepare(vec![worker.address.clone(), other.clone()], "job-a") };
            good.prepare(unversioned).await.expect("prepared by the layout alone");
            good.prepare(prepare(vec![worker.address.clone(), other], "job-a")).await.expect("prepared");

            // Bucket 1 belongs to worker 1 (1 mod 2), not to this one.
            let layout = RecordLayout::new(1, 1);
            let section = |bucket: usize| BatchSection { bucket, records: vec![42, 1], merged: false };
            let foreign = encode_batch("job-a", 0, 0, &[section(1)], layout);
            let error = good.push(tokio_stream::iter(vec![foreign])).await.unwrap_err();
            assert_eq!(error.code(), Code::PermissionDenied, "{error}");
            assert!(error.message().contains("bucket 1"), "{error}");

            let stranger: StateBatch = encode_batch("job-b", 0, 0, &[section(0)], layout);
            let error = good.push(tokio_stream::iter(vec![stranger])).await.unwrap_err();
            assert_eq!(error.code(), Code::PermissionDenied, "{error}");

            // The data directory now belongs to job-a.
            let error = good.prepare(prepare(vec![worker.address.clone()], "job-b")).await.unwrap_err();
            assert!(error.message().contains("belongs to job job-a"), "{error}");

            // Shard leases: another job's, and one whose shard plan differs from the worker's.
            let quarto = Quarto::lines("rows,cols").unwrap();
            let lease = |job_id: &str, fingerprint: u32| ShardLease {
                job_id: job_id.into(),
                format_version: FORMAT_VERSION,
                problem: "quarto".into(),
                params: "lines = \"rows,cols\"\ntable = false\n".into(),
                fingerprint,
                shard: 0,
            };
            let error = good.run_shard(lease("job-b", quarto.fingerprint())).await.unwrap_err();
            assert_eq!(error.code(), Code::PermissionDenied, "{error}");
            let error = good.run_shard(lease("job-a", quarto.fingerprint() ^ 1)).await.unwrap_err();
            assert_eq!(error.code(), Code::FailedPrecondition, "{error}");
            assert!(error.message().contains("shard plan"), "{error}");
            let report = good.run_shard(lease("job-a", quarto.fingerprint())).await.expect("a lease runs").into_inner();
            assert_eq!(report.counts, vec![quarto.run_shard(0).unwrap().counts[0].to_string()]);
        });
        drop(worker);
    }
}

mod tls {
    //! Workers serving TLS: the coordinator and the workers' pushes to each other go over it.

    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};

    use super::*;

    /// A CA and a worker certificate for 127.0.0.1 and localhost, as PEM files under `dir/name`:
    /// returns (ca, cert, key).
    fn pki(dir: &Path, name: &str) -> (PathBuf, PathBuf, PathBuf) {
        let out = dir.join(name);
        std::fs::create_dir_all(&out).unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let key = KeyPair::generate().unwrap();
        let params = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
        let cert = params.signed_by(&key, &ca).unwrap();
        let files = (out.join("ca.pem"), out.join("worker.pem"), out.join("worker.key"));
        std::fs::write(&files.0, ca.pem()).unwrap();
        std::fs::write(&files.1, cert.pem()).unwrap();
        std::fs::write(&files.2, key.serialize_pem()).unwrap();
        files
    }

    fn path(file: &Path) -> String {
        file.to_str().unwrap().to_string()
    }

    #[test]
    fn a_cluster_over_tls_counts_exactly_and_refuses_callers_without_it() {
        let dir = scratch("tls");
        let (ca, cert, key) = pki(&dir, "pki");
        let (stranger_ca, _, _) = pki(&dir, "stranger");
        let serve_tls =
            vec!["--tls-cert".into(), path(&cert), "--tls-key".into(), path(&key), "--tls-ca".into(), path(&ca)];
        let workers: Vec<Worker> =
            (0..2).map(|i| Worker::start_with(&dir, &format!("w{i}"), serve_tls.clone())).collect();
        let list = addresses(&workers);
        let board = ["knight", "6x6"];

        // Plain text to a TLS worker, and TLS with a CA that did not sign the workers': refused
        // before any work, naming the worker.
        let plain = run_cluster(&board, &list, &dir, "job-plain");
        assert_eq!(plain.status.code(), Some(1));
        let stderr = text(&plain.stderr);
        assert!(stderr.contains("cannot reach worker") && stderr.contains("needs --tls-ca"), "{stderr}");
        let mut untrusted = cluster_args(&board, &list, &dir, "job-untrusted");
        untrusted.extend(["--tls-ca".to_string(), path(&stranger_ca)]);
        let output = Command::new(LEAPER).args(&untrusted).output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = text(&output.stderr);
        assert!(stderr.contains("cannot reach worker") && stderr.contains("TLS"), "{stderr}");

        // The real run, watched from outside over TLS: the coordinator serves its status too.
        let listen = free_address();
        let mut args = cluster_args(LONG_BOARD, &list, &dir, "job");
        args.extend(["--tls-ca".to_string(), path(&ca), "--listen".into(), listen.clone()]);
        args.extend(["--tls-cert".to_string(), path(&cert), "--tls-key".into(), path(&key)]);
        // The status service would carry the workers' token in clear text without its own TLS.
        let mut clear = args.clone();
        clear.truncate(clear.len() - 4);
        let refused = Command::new(LEAPER).args(&clear).output().unwrap();
        assert!(text(&refused.stderr).contains("clear text"), "{}", text(&refused.stderr));
        assert!(!dir.join("job").exists(), "a refused command wrote its job directory");

        let log = std::fs::File::create(dir.join("coordinator.log")).unwrap();
        let coordinator = Command::new(LEAPER).args(&args).stdout(Stdio::piped()).stderr(log).spawn().unwrap();
        wait_until_listening(&listen, "the status service");
        let token = path(&dir.join("token"));
        let status = ["status", "--coordinator", &listen, "--token-file", &token];
        let plain = leaper(&status);
        assert!(!plain.status.success(), "a plain-text status call to a TLS service");
        let mut follow = status.to_vec();
        follow.extend(["--tls-ca", ca.to_str().unwrap(), "--follow", "--format", "json"]);
        let followed = leaper(&follow);
        assert!(followed.status.success(), "{}", text(&followed.stderr));
        let output = coordinator.wait_with_output().unwrap();
        let log = std::fs::read_to_string(dir.join("coordinator.log")).unwrap();
        assert!(output.status.success(), "{log}");
        let expected = embedded(LONG_BOARD);
        assert_eq!(text(&output.stdout), expected);
        let last: serde_json::Value = serde_json::from_str(text(&followed.stdout).lines().last().unwrap()).unwrap();
        assert_eq!(last["state"], "finished");
        // The finished status carries the same counts the coordinator printed.
        let served: String = last["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|pair| format!("6x{} {}\n", pair[0], pair[1].as_str().unwrap()))
            .collect();
        assert_eq!(served, expected);
        assert!(expected.ends_with(&known_lines("knight", 6, 10..=10)), "{expected}");

        // A worker's key that does not parse stops it with the file named.
        std::fs::write(&key, "not a key").unwrap();
        let bad = Command::new(LEAPER)
            .args(["worker", "--listen", &free_address(), "--data-dir"])
            .arg(dir.join("w-bad"))
            .args(["--token-file", &path(&dir.join("token"))])
            .args(&serve_tls)
            .output()
            .unwrap();
        assert!(!bad.status.success());
        assert!(text(&bad.stderr).contains("worker.key"), "{}", text(&bad.stderr));
        drop(workers);
    }
}

/// `leaper graph FILE` on two loopback workers: the graph travels in the job's parameters (the
/// workers never see the file), and the counts are the embedded run's.
#[test]
fn two_workers_count_a_graph_as_the_embedded_mode_does() {
    let dir = scratch("graph");
    std::fs::create_dir_all(&dir).unwrap();
    let workers: Vec<Worker> = (0..2).map(|i| Worker::start(&dir, &format!("w{i}"))).collect();
    let list = addresses(&workers);
    // The 7 x 7 grid with its diagonals one way: a graph no leaper board is.
    let mut edges = String::new();
    for v in 0..49 {
        let (x, y) = (v % 7, v / 7);
        for (dx, dy) in [(1, 0), (0, 1), (1, 1)] {
            if x + dx < 7 && y + dy < 7 {
                edges.push_str(&format!("v{v} v{}\n", (y + dy) * 7 + x + dx));
            }
        }
    }
    let file = dir.join("triangular.txt");
    std::fs::write(&file, edges).unwrap();
    let graph = ["graph", file.to_str().unwrap(), "--tours", "both", "--format", "json", "--buckets", "7"];
    let expected = embedded(&graph);
    assert!(expected.contains(r#""vertices":49,"edges":120"#), "{expected}");
    let output = run_cluster(&graph, &list, &dir, "job");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), expected);
    for worker in &workers {
        assert_eq!(worker.files(), ["worker-id"], "files left behind");
    }
    drop(workers);
}
