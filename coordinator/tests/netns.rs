//! A cluster of separate hosts on one machine: `scripts/netns-cluster` puts every worker in a
//! network namespace of its own, on a veth link to this process's namespace (the coordinator's)
//! that `tc` limits or cuts, and these tests drive it through the faults of real links, each
//! ending in the exact count: a link down for 5 s mid-step, down for 60 s, a worker's link at
//! 1 Mbit/s among links at 1 Gbit/s, the coordinator killed mid-shuffle, a worker restarted on
//! a new address.
//!
//! Namespaces need root and iproute2. Where they cannot be made, every test says
//! `SKIPPED: <test>: <reason>` on stderr, past the test harness's capture so that it shows in
//! any run, and returns. Run with `--nocapture` to see what the user saw in each fault.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;

use common::{known_lines, text, wait_for_cells, without_escapes};

const LEAPER: &str = env!("CARGO_BIN_EXE_leaper");

/// `knight 7x10 --sweep` as the published tables give it (Löbbing and Wegener's 7 x 8,
/// Kyek, Parberry and Wegener's 7 x 10; docs/RESULTS.md): a board of an odd number of squares
/// has no closed tour, nor has a board of 1, 2 or 4 rows.
fn seven_by_ten() -> String {
    known_lines("knight", 7, 1..=10)
}
const SEVEN_BY_TEN_SWEEP: &[&str] = &["knight", "7x10", "--sweep", "--buckets", "31"];
/// The first eight lines of it.
const SEVEN_BY_EIGHT_SWEEP: &[&str] = &["knight", "7x8", "--sweep", "--buckets", "31"];

fn seven_by_eight() -> String {
    known_lines("knight", 7, 1..=8)
}

/// Says on this process's own stderr that a test was skipped, and why (`eprintln!` would be
/// captured, and shown only if the test failed).
fn skipped(test: &str, reason: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {reason}");
}

/// Runs `scripts/netns-cluster ARGS` with this build's worker.
fn netns_cluster(args: &[&str]) -> Output {
    Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/netns-cluster"))
        .args(args)
        .env("LEAPER_BIN", Path::new(LEAPER).parent().unwrap())
        .output()
        .expect("bash runs")
}

/// A worker's link as `netns-cluster status` reports it.
#[derive(Debug)]
struct Link {
    address: String,
    netns: String,
    veth: String,
    up: bool,
    rate: String,
    running: bool,
    bytes: u64,
}

impl Link {
    fn parse(line: &str) -> Link {
        let field = |key: &str| {
            line.split(' ')
                .find_map(|word| word.strip_prefix(&format!("{key}=")))
                .unwrap_or_else(|| panic!("no {key} in {line:?}"))
                .to_string()
        };
        let number = |key: &str| field(key).parse::<u64>().unwrap();
        Link {
            address: field("address"),
            netns: field("netns"),
            veth: field("veth"),
            up: field("link") == "up",
            rate: field("rate"),
            running: field("process") == "running",
            bytes: number("to_worker_bytes") + number("from_worker_bytes"),
        }
    }
}

/// A cluster the script made for one test: stopped, and its namespaces and links removed,
/// when dropped.
struct Cluster {
    dir: common::Scratch,
    /// `--workers A,B,C --token-file T`, as the script printed it.
    arguments: Vec<String>,
}

impl Cluster {
    /// `count` workers of one thread, every link at `rate`; `None` (said SKIPPED) where
    /// namespaces cannot be made here.
    fn start(test: &str, count: usize, rate: &str) -> Option<Cluster> {
        let dir = common::scratch(test);
        let dir_arg = dir.to_str().unwrap();
        let output = netns_cluster(&["start", &count.to_string(), "--rate", rate, "--threads", "1", "--dir", dir_arg]);
        if output.status.code() == Some(77) {
            let stderr = text(&output.stderr);
            skipped(test, stderr.trim().trim_start_matches("SKIPPED: "));
            return None;
        }
        assert!(output.status.success(), "netns-cluster start: {}", text(&output.stderr));
        let arguments = text(&output.stdout).split_whitespace().map(String::from).collect();
        Some(Cluster { dir, arguments })
    }

    /// Runs the script on this cluster; asserts that it succeeded.
    fn script(&self, args: &[&str]) -> String {
        let mut args = args.to_vec();
        args.extend(["--dir", self.dir.to_str().unwrap()]);
        let output = netns_cluster(&args);
        assert!(output.status.success(), "netns-cluster {args:?}: {}", text(&output.stderr));
        text(&output.stdout)
    }

    fn links(&self) -> Vec<Link> {
        self.script(&["status"]).lines().map(Link::parse).collect()
    }

    /// Worker `worker`'s address (from 1, as the script counts).
    fn address(&self, worker: usize) -> String {
        self.links()[worker - 1].address.clone()
    }

    /// The command line of a job on the cluster: `board`, the workers, the job directory.
    fn job(&self, board: &[&str], job_dir: &Path) -> Vec<String> {
        let mut args: Vec<String> = board.iter().map(|s| s.to_string()).collect();
        args.extend(self.arguments.iter().cloned());
        args.extend(["--job-dir".to_string(), job_dir.to_str().unwrap().to_string()]);
        args
    }

    /// Waits until states cross the links: a shuffle under way (64 KiB within 20 ms). The
    /// links' counters are read where the kernel keeps them (the script's `status` reports the
    /// same), so that the fault that follows lands within milliseconds.
    fn wait_for_shuffle(&self) {
        let counters: Vec<PathBuf> = self
            .links()
            .iter()
            .flat_map(|link| {
                let stats = Path::new("/sys/class/net").join(&link.veth).join("statistics");
                [stats.join("tx_bytes"), stats.join("rx_bytes")]
            })
            .collect();
        let total = || -> u64 {
            counters.iter().map(|file| std::fs::read_to_string(file).unwrap().trim().parse::<u64>().unwrap()).sum()
        };
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut before = total();
        loop {
            std::thread::sleep(Duration::from_millis(20));
            let now = total();
            if now - before >= 64 << 10 {
                return;
            }
            before = now;
            assert!(Instant::now() < deadline, "no shuffle crossed the links");
        }
    }

    /// The files in worker `worker`'s data directory, sorted.
    fn data_files(&self, worker: usize) -> Vec<String> {
        let dir = self.dir.join(format!("worker-{worker}"));
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let output = netns_cluster(&["stop", "--dir", self.dir.to_str().unwrap()]);
        if !output.status.success() {
            let _ = writeln!(std::io::stderr(), "netns-cluster stop: {}", text(&output.stderr));
        }
    }
}

/// A coordinator under way, its stderr collected as it comes.
struct Coordinator {
    child: Child,
    stderr: Arc<Mutex<String>>,
    reader: std::thread::JoinHandle<()>,
}

impl Coordinator {
    fn start(args: &[String]) -> Coordinator {
        let mut child = Command::new(LEAPER)
            .args(args)
            .env_remove("LEAPER_FAULT")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("leaper starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let collected = Arc::clone(&stderr);
        let pipe = child.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            for line in std::io::BufReader::new(pipe).lines().map_while(Result::ok) {
                let mut all = collected.lock().unwrap();
                all.push_str(&line);
                all.push('\n');
            }
        });
        Coordinator { child, stderr, reader }
    }

    /// Waits until stderr holds `needle`; false after `limit` or once the coordinator ended.
    fn wait_for(&mut self, needle: &str, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if self.stderr.lock().unwrap().contains(needle) {
                return true;
            }
            if self.child.try_wait().unwrap().is_some() {
                std::thread::sleep(Duration::from_millis(100));
                return self.stderr.lock().unwrap().contains(needle);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    fn signal(&self, signal: &str) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args([signal, &pid]).status().unwrap().success());
    }

    /// Waits for the end: the exit status, stdout and stderr.
    fn finish(mut self) -> (ExitStatus, String, String) {
        let mut stdout = String::new();
        self.child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
        let status = self.child.wait().unwrap();
        self.reader.join().unwrap();
        let stderr = self.stderr.lock().unwrap().clone();
        (status, stdout, stderr)
    }
}

fn leaper(args: &[&str]) -> Output {
    Command::new(LEAPER).args(args).env_remove("LEAPER_FAULT").output().expect("leaper runs")
}

/// The time of day, in seconds, of a log line (`2026-11-29T07:03:54.673097Z  INFO ...`).
fn logged_at(line: &str) -> Option<f64> {
    let clock = line.split_whitespace().next()?.split_once('T')?.1.trim_end_matches('Z');
    let mut parts = clock.split(':').map(|part| part.parse::<f64>().ok());
    Some(parts.next()?? * 3600.0 + parts.next()?? * 60.0 + parts.next()??)
}

/// Prints what the user saw on stderr, for the record: the lines other than the steps', and
/// the step that ended the longest after the one before it. Returns that wait in seconds.
fn saw(what: &str, stderr: &str) -> f64 {
    let lines: Vec<&str> = stderr.lines().filter(|line| !line.contains("step done")).collect();
    eprintln!("--- {what}: what the user saw ---\n{}", lines.join("\n"));
    let steps: Vec<(f64, &str)> =
        stderr.lines().filter(|line| line.contains("step done")).filter_map(|l| Some((logged_at(l)?, l))).collect();
    // A step's time, its commit's and its release's: what a stalled link holds up.
    let longest = steps.windows(2).map(|pair| (pair[1].0 - pair[0].0, pair[1].1)).max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((gap, line)) = longest {
        eprintln!("(the longest wait for a step: {gap:.1} s) {line}");
    }
    longest.map_or(0.0, |(gap, _)| gap)
}

/// Item 1: the script makes a host of its own per worker, limits its link, and removes all it
/// made on `stop`, on Ctrl-C and on SIGTERM; bad arguments make nothing.
#[test]
fn the_script_makes_hosts_of_their_own_and_removes_them_on_every_exit() {
    let Some(cluster) = Cluster::start("script", 3, "100mbit") else { return };
    let links = cluster.links();
    assert_eq!(links.len(), 3);
    let subnet = |address: &str| address.rsplit_once('.').unwrap().0.to_string();
    for (i, link) in links.iter().enumerate() {
        assert!(link.up && link.running && link.rate == "100mbit", "{link:?}");
        assert!(link.address.starts_with("10.57.") && link.address.ends_with(":7101"), "{link:?}");
        assert_eq!(subnet(&link.address), subnet(&links[0].address), "one subnet");
        // The worker's namespace holds its own address and loopback, nothing else.
        let inside = Command::new("ip").args(["-n", &link.netns, "-4", "-o", "addr", "show"]).output().unwrap();
        let addresses: Vec<String> =
            text(&inside.stdout).lines().map(|line| line.split_whitespace().nth(3).unwrap().to_string()).collect();
        let own = format!("{}/24", link.address.trim_end_matches(":7101"));
        assert_eq!(addresses, ["127.0.0.1/8".to_string(), own], "worker {}", i + 1);
        let qdisc = Command::new("tc").args(["qdisc", "show", "dev", &link.veth]).output().unwrap();
        assert!(text(&qdisc.stdout).contains("tbf") && text(&qdisc.stdout).contains("rate 100Mbit"), "{link:?}");
    }
    assert!(cluster.arguments[1].split(',').eq(links.iter().map(|l| l.address.as_str())), "{:?}", cluster.arguments);

    // A count across the links is the embedded one.
    let board = ["knight", "6x8", "--sweep", "--buckets", "31"];
    let job_dir = cluster.dir.join("job");
    let args = cluster.job(&board, &job_dir);
    let counted = Command::new(LEAPER).args(&args).output().unwrap();
    assert!(counted.status.success(), "{}", text(&counted.stderr));
    let embedded = leaper(&board);
    assert_eq!(text(&counted.stdout), text(&embedded.stdout));
    assert!(text(&counted.stdout).ends_with(&known_lines("knight", 6, 8..=8)));
    // States crossed every worker's link.
    for (before, after) in links.iter().zip(cluster.links()) {
        assert!(after.bytes > before.bytes + 100_000, "{before:?} {after:?}");
    }

    // `stop` removes every namespace, link and worker.
    let gone = |links: &[Link]| {
        let namespaces = text(&Command::new("ip").args(["netns", "list"]).output().unwrap().stdout);
        for link in links {
            assert!(!namespaces.contains(&link.netns), "{} is still there", link.netns);
            let shown = Command::new("ip").args(["link", "show", &link.veth]).output().unwrap();
            assert!(!shown.status.success(), "{} is still there", link.veth);
        }
    };
    let dir = cluster.dir.to_path_buf();
    cluster.script(&["stop"]);
    gone(&links);
    let status = netns_cluster(&["status", "--dir", dir.to_str().unwrap()]);
    assert!(!status.status.success() && text(&status.stderr).contains("no cluster under"));

    // In the foreground (--wait), Ctrl-C and SIGTERM remove everything too.
    for (signal, code) in [("-INT", 130), ("-TERM", 143)] {
        let mut foreground = bash_with_default_signals()
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/netns-cluster"))
            .args(["start", "2", "--wait", "--dir", dir.to_str().unwrap()])
            .env("LEAPER_BIN", Path::new(LEAPER).parent().unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut first = String::new();
        std::io::BufReader::new(foreground.stdout.take().unwrap()).read_line(&mut first).unwrap();
        assert!(first.starts_with("--workers 10.57."), "{first}");
        let running = netns_cluster(&["status", "--dir", dir.to_str().unwrap()]);
        let links: Vec<Link> = text(&running.stdout).lines().map(Link::parse).collect();
        assert_eq!(links.len(), 2);
        assert!(Command::new("kill").args([signal, &foreground.id().to_string()]).status().unwrap().success());
        assert_eq!(foreground.wait().unwrap().code(), Some(code), "{signal}");
        gone(&links);
    }

    // Bad arguments: refused by name, nothing made.
    for (args, message) in [
        (&["start", "0"][..], "from 1 to 32"),
        (&["start", "2", "--rate", "fast"][..], "a rate is a whole number"),
        (&["link", "1", "down"][..], "no cluster under"),
    ] {
        let mut args = args.to_vec();
        args.extend(["--dir", dir.to_str().unwrap()]);
        let output = netns_cluster(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(text(&output.stderr).contains(message), "{args:?}: {}", text(&output.stderr));
        assert!(!dir.join("cluster").exists(), "{args:?} made a cluster");
    }
    // Where namespaces cannot be made (here: as nobody), the script says so and skips.
    if Command::new("setpriv").arg("--help").output().is_ok_and(|o| o.status.success()) {
        let output = Command::new("setpriv")
            .args(["--reuid", "65534", "--regid", "65534", "--clear-groups", "bash"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/netns-cluster"))
            .arg("check")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(77));
        assert!(text(&output.stderr).starts_with("SKIPPED: not root"), "{}", text(&output.stderr));
    }
}

/// A link cut for 5 s while states cross it: the step goes on (or is rerun) and the count is
/// exact.
#[test]
fn a_link_down_for_5_s_mid_step_costs_nothing() {
    let Some(cluster) = Cluster::start("down-5s", 3, "1gbit") else { return };
    let job_dir = cluster.dir.join("job");
    // `-v`: the step lines, which a pipe gets only so, tell how long each step took.
    let mut job = cluster.job(SEVEN_BY_TEN_SWEEP, &job_dir);
    job.insert(0, "-v".to_string());
    let coordinator = Coordinator::start(&job);
    // The steps of the middle rows, the longest.
    wait_for_cells(&job_dir, 25);
    cluster.wait_for_shuffle();
    cluster.script(&["link", "2", "down"]);
    std::thread::sleep(Duration::from_secs(5));
    cluster.script(&["link", "2", "up"]);
    let (status, stdout, stderr) = coordinator.finish();
    let longest = saw("worker 2's link down for 5 s mid-step", &stderr);
    assert!(status.success(), "{stderr}");
    assert_eq!(stdout, seven_by_ten());
    // The cut held the job up: it landed inside a step (or its commit).
    assert!(longest >= 4.5, "no step felt the 5 s cut: {stderr}");
}

/// A link cut for 60 s: the job waits for the worker (the guide: up to 10 minutes), says on
/// stderr which worker it waits for, and goes on to the exact count once it answers.
#[test]
fn a_link_down_for_60_s_makes_the_job_wait_and_say_for_whom() {
    let Some(cluster) = Cluster::start("down-60s", 3, "1gbit") else { return };
    let job_dir = cluster.dir.join("job");
    let second = cluster.address(2);
    let mut coordinator = Coordinator::start(&cluster.job(SEVEN_BY_TEN_SWEEP, &job_dir));
    wait_for_cells(&job_dir, 20);
    cluster.wait_for_shuffle();
    cluster.script(&["link", "2", "down"]);
    let cut = Instant::now();
    let waiting = format!("waiting for worker {second} to answer");
    let named = coordinator.wait_for(&waiting, Duration::from_secs(55));
    std::thread::sleep(Duration::from_secs(60).saturating_sub(cut.elapsed()));
    cluster.script(&["link", "2", "up"]);
    let (status, stdout, stderr) = coordinator.finish();
    saw("worker 2's link down for 60 s", &stderr);
    assert!(named, "the job did not say it waits for {second}: {stderr}");
    assert!(stderr.contains("every worker answers again"), "{stderr}");
    assert!(status.success(), "{stderr}");
    assert_eq!(stdout, seven_by_ten());
}

/// One link at 1 Mbit/s, the others at 1 Gbit/s: its worker is named the straggler in the live
/// display, in the logs and in `leaper status`, and no other worker is; the count is exact.
#[test]
fn a_worker_on_a_slow_link_is_named_the_straggler() {
    let Some(cluster) = Cluster::start("straggler", 3, "1gbit") else { return };
    cluster.script(&["link", "3", "rate", "1mbit"]);
    let slow = cluster.address(3);
    let board = ["knight", "6x8", "--sweep", "--buckets", "31"];
    let job_dir = cluster.dir.join("job");
    let args = cluster.job(&board, &job_dir);
    // The live display: stderr on a terminal wide enough for its first line.
    let size = nix::pty::Winsize { ws_row: 40, ws_col: 200, ws_xpixel: 0, ws_ypixel: 0 };
    let pty = nix::pty::openpty(Some(&size), None).expect("a pseudo-terminal");
    let mut child = Command::new(LEAPER)
        .args(&args)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::from(pty.slave))
        .spawn()
        .unwrap();
    let mut master = std::fs::File::from(pty.master);
    let terminal = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let _ = master.read_to_end(&mut seen);
        text(&seen)
    });
    // `leaper status` names it while the job runs.
    let mut status_named = None;
    let deadline = Instant::now() + Duration::from_secs(120);
    while status_named.is_none() && Instant::now() < deadline && child.try_wait().unwrap().is_none() {
        let status = leaper(&["status", "--job-dir", job_dir.to_str().unwrap()]);
        let said = text(&status.stdout);
        if said.contains("straggler") {
            let json = leaper(&["status", "--job-dir", job_dir.to_str().unwrap(), "--format", "json"]);
            let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap_or_default();
            status_named = Some((said, json));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let output = child.wait_with_output().unwrap();
    let terminal = terminal.join().unwrap();
    let terminal = without_escapes(&terminal);
    eprintln!("--- worker 3's link at 1 Mbit/s: what the terminal showed ---");
    // The log line above the display, and the display's first line from its pass on.
    for (needle, from) in
        [(format!("worker {slow} is the straggler"), None), (format!("straggler {slow} ("), Some("pass "))]
    {
        if let Some(at) = terminal.find(&needle) {
            let from = from.and_then(|word| terminal[..at].rfind(word)).unwrap_or(at);
            let to = terminal[at..].find(')').map_or(terminal.len(), |end| at + end + 1);
            eprintln!("{}", &terminal[from..to]);
        }
    }
    assert!(output.status.success(), "{terminal}");
    assert_eq!(text(&output.stdout), text(&leaper(&board).stdout));
    assert!(text(&output.stdout).ends_with(&known_lines("knight", 6, 8..=8)));
    assert!(terminal.contains(&format!("straggler {slow} (")), "the display did not name {slow}: {terminal}");
    assert!(terminal.contains(&format!("worker {slow} is the straggler")), "no log line: {terminal}");
    for fast in [cluster.address(1), cluster.address(2)] {
        assert!(!terminal.contains(&format!("straggler {fast}")), "{fast} named: {terminal}");
    }
    let (said, json) = status_named.expect("leaper status never named a straggler");
    eprintln!("--- leaper status meanwhile ---\n{said}");
    assert!(said.contains(&format!("straggler {slow}: ")), "{said}");
    assert_eq!(json["straggler"], slow.as_str(), "{json}");
}

/// The coordinator killed with SIGKILL while states cross the links: `leaper resume` goes on
/// from the last commit to the exact count, and the finished job frees the workers.
#[test]
fn a_coordinator_killed_mid_shuffle_resumes_to_the_exact_count() {
    let Some(cluster) = Cluster::start("coordinator-kill", 3, "1gbit") else { return };
    let job_dir = cluster.dir.join("job");
    let coordinator = Coordinator::start(&cluster.job(SEVEN_BY_TEN_SWEEP, &job_dir));
    wait_for_cells(&job_dir, 25);
    cluster.wait_for_shuffle();
    coordinator.signal("-KILL");
    let (status, _, stderr) = coordinator.finish();
    assert!(!status.success(), "{stderr}");
    let resumed = leaper(&["resume", "--job-dir", job_dir.to_str().unwrap()]);
    let stderr = text(&resumed.stderr);
    saw("the coordinator killed mid-shuffle, then `leaper resume`", &stderr);
    assert!(resumed.status.success(), "{stderr}");
    assert_eq!(text(&resumed.stdout), seven_by_ten());
    for worker in 1..=3 {
        assert_eq!(cluster.data_files(worker), ["worker-id"], "worker {worker} was not freed");
    }
}

/// A worker restarted on a new address (its data directory kept): the running job waits for its
/// old address; interrupted, it goes on with `leaper resume --workers` giving the new one
/// (checked by the worker's id: the workers given in another order are refused), and later
/// resumes keep the new address.
#[test]
fn a_worker_restarted_on_a_new_address_goes_on_by_resume_workers() {
    let Some(cluster) = Cluster::start("new-address", 3, "1gbit") else { return };
    let job_dir = cluster.dir.join("job");
    let job = job_dir.to_str().unwrap();
    let old = cluster.address(2);
    let mut coordinator = Coordinator::start(&cluster.job(SEVEN_BY_EIGHT_SWEEP, &job_dir));
    wait_for_cells(&job_dir, 15);
    let moved = cluster.script(&["restart", "2", "--new-address"]);
    let new = moved.split_whitespace().nth(1).unwrap().to_string();
    let addresses: Vec<&str> = new.split(',').collect();
    assert_ne!(addresses[1], old);
    assert!(coordinator.wait_for(&format!("waiting for worker {old} to answer"), Duration::from_secs(60)));
    coordinator.signal("-INT");
    let (status, _, stderr) = coordinator.finish();
    saw("worker 2 restarted on a new address (the running job)", &stderr);
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted: ") && stderr.contains("leaper resume --job-dir"), "{stderr}");

    // The same workers in another order: refused by their ids, before any work.
    let swapped = format!("{},{},{}", addresses[1], addresses[0], addresses[2]);
    let refused = leaper(&["resume", "--job-dir", job, "--workers", &swapped]);
    let said = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{said}");
    assert!(said.contains("is not the worker that holds part 1 of the committed layer"), "{said}");
    // Too few: refused too.
    let refused = leaper(&["resume", "--job-dir", job, "--workers", &addresses[..2].join(",")]);
    assert!(text(&refused.stderr).contains("--workers names 2 workers, the job has 3"), "{}", text(&refused.stderr));

    // At their addresses now: the job goes on; killed again, a plain resume keeps them.
    let resume: Vec<String> =
        ["-v", "resume", "--job-dir", job, "--workers", &new].iter().map(|s| s.to_string()).collect();
    let coordinator = Coordinator::start(&resume);
    let committed = leaper(&["status", "--job-dir", job, "--format", "json"]);
    let committed: serde_json::Value = serde_json::from_slice(&committed.stdout).unwrap();
    wait_for_cells(&job_dir, committed["cells_done"].as_u64().unwrap() + 3);
    coordinator.signal("-KILL");
    let (_, _, stderr) = coordinator.finish();
    saw("`leaper resume --workers` with the new address (killed after 3 steps)", &stderr);
    assert!(stderr.contains(&format!("a worker of the job moved worker=2 from={old} to={}", addresses[1])), "{stderr}");
    let resumed = leaper(&["resume", "--job-dir", job]);
    let stderr = text(&resumed.stderr);
    saw("then a plain `leaper resume`", &stderr);
    assert!(
        stderr.contains(&format!("the job's workers moved: going on with the last checkpoint's, {new}")),
        "{stderr}"
    );
    assert!(resumed.status.success(), "{stderr}");
    assert_eq!(text(&resumed.stdout), seven_by_eight());
}

/// `bash`, with SIGINT as a terminal gives it: a test run started in the background (`cargo test
/// &` from a script) inherits SIGINT ignored, and bash cannot trap a signal ignored on entry, so
/// the script would never see the Ctrl-C this test sends. `env --default-signal` (coreutils 8.31
/// and later) restores it where it exists.
fn bash_with_default_signals() -> Command {
    let restores = Command::new("env").args(["--default-signal=INT", "true"]).status().is_ok_and(|s| s.success());
    if restores {
        let mut command = Command::new("env");
        command.args(["--default-signal=INT", "bash"]);
        command
    } else {
        Command::new("bash")
    }
}
