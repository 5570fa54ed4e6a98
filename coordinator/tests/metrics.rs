//! `/metrics` on the coordinator's `--listen` port and on each worker's, scraped during a count
//! on three workers on loopback: the figures rise from step to step, agree with `leaper status
//! --job-dir` at the same commit and at the end, and the count is exact. Scrapes are plain
//! HTTP/1.1 GETs written here, as Prometheus sends them, with the cluster's token.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{free_address, wait_until_listening};

const LEAPER: &str = env!("CARGO_BIN_EXE_leaper");
const TOKEN: &str = "metrics-secret";

/// A process killed when dropped (a worker, or the coordinator of a failed test).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_worker(dir: &Path, name: &str) -> (String, Killed) {
    let address = free_address();
    let child = Command::new(LEAPER)
        .args(["worker", "--listen", &address, "--threads", "1", "--token-file"])
        .arg(dir.join("token"))
        .arg("--data-dir")
        .arg(dir.join(name))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("worker starts");
    wait_until_listening(&address, "a worker");
    (address, Killed(child))
}

/// `GET path` on `address` with `authorization` (if any): the status code and the body.
fn get(address: &str, path: &str, authorization: Option<&str>) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(address).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let header = authorization.map_or(String::new(), |value| format!("Authorization: {value}\r\n"));
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n{header}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    assert!(!head.to_ascii_lowercase().contains("transfer-encoding: chunked"), "{head}");
    let code = head.split(' ').nth(1)?.parse().ok()?;
    Some((code, body.to_string()))
}

/// One scrape: each series (name and labels, as printed) and its value, as printed.
type Scrape = HashMap<String, String>;

fn scrape(address: &str) -> Option<Scrape> {
    let (code, body) = get(address, "/metrics", Some(&format!("Bearer {TOKEN}")))?;
    assert_eq!(code, 200, "{address}: {body}");
    assert!(body.ends_with("# EOF\n"), "{body}");
    let series = body.lines().filter(|line| !line.starts_with('#'));
    Some(series.map(|line| line.rsplit_once(' ').map(|(k, v)| (k.to_string(), v.to_string())).unwrap()).collect())
}

/// An integer series of a scrape.
fn number(scrape: &Scrape, series: &str) -> u64 {
    let value = scrape.get(series).unwrap_or_else(|| panic!("no {series} in {scrape:?}"));
    value.parse().unwrap_or_else(|_| panic!("{series} {value} is not an integer"))
}

fn sum(scrapes: &[Scrape], series: &str) -> u64 {
    scrapes.iter().map(|scrape| number(scrape, series)).sum()
}

fn status(job_dir: &Path) -> serde_json::Value {
    let output = Command::new(LEAPER).arg("status").arg("--job-dir").arg(job_dir).args(["--format", "json"]).output();
    serde_json::from_slice(&output.unwrap().stdout).unwrap_or(serde_json::Value::Null)
}

/// What one moment of the run showed: every scrape taken at the commit `leaper status` read.
struct Sample {
    step: u64,
    states_read: u64,
    shuffle_sent: u64,
}

/// Scrapes the workers, reads `leaper status`, scrapes the coordinator and the workers again;
/// where all of them stand at the same committed step, checks that they agree, figure by figure.
fn sample(coordinator: &str, workers: &[String], job_dir: &Path) -> Option<Sample> {
    let before: Vec<Scrape> = workers.iter().map(|w| scrape(w)).collect::<Option<_>>()?;
    let status = status(job_dir);
    let ours = scrape(coordinator)?;
    let after: Vec<Scrape> = workers.iter().map(|w| scrape(w)).collect::<Option<_>>()?;
    let step = status["cells_done"].as_u64()?;
    let steps_of =
        |scrapes: &[Scrape]| scrapes.iter().map(|s| s.get("leaper_worker_merged_layers").cloned()).collect::<Vec<_>>();
    // Workers merge the seed as a layer before the first step.
    let at_step = vec![Some((step + 1).to_string()); workers.len()];
    // A step merged or committed between the reads: the figures are of two moments.
    if step == 0 || number(&ours, "leaper_step") != step || steps_of(&before) != at_step || steps_of(&after) != at_step
    {
        return None;
    }
    let read = "leaper_worker_states_read_total";
    if sum(&before, read) != sum(&after, read) {
        return None;
    }
    let field = |name: &str| status[name].as_u64().unwrap();
    assert_eq!(number(&ours, "leaper_pass"), field("pass"));
    assert_eq!(number(&ours, "leaper_steps"), field("cells"));
    assert_eq!(number(&ours, "leaper_layer_states"), field("states"));
    assert_eq!(number(&ours, "leaper_layer_bytes"), field("bytes"));
    assert_eq!(number(&ours, "leaper_states_read_total"), field("states_processed"));
    // The committed layer is the workers' parts of it; the states it read, the workers' reads.
    assert_eq!(sum(&after, "leaper_worker_layer_states"), field("states"));
    assert_eq!(sum(&after, "leaper_worker_layer_bytes"), field("bytes"));
    assert_eq!(sum(&after, read), field("states_processed"));
    for worker in workers {
        let up = format!("leaper_cluster_worker_state{{worker=\"{worker}\",state=\"up\"}}");
        let waiting = format!("leaper_cluster_worker_state{{worker=\"{worker}\",state=\"waiting\"}}");
        assert_eq!(ours.get(&up).map(String::as_str), Some("1.0"), "{ours:?}");
        assert_eq!(ours.get(&waiting).map(String::as_str), Some("0.0"), "{ours:?}");
    }
    Some(Sample {
        step,
        states_read: field("states_processed"),
        shuffle_sent: sum(&after, "leaper_worker_shuffle_sent_bytes_total"),
    })
}

#[test]
fn metrics_rise_during_a_count_and_agree_with_leaper_status() {
    let dir = common::scratch("rise");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("token"), format!("{TOKEN}\n")).unwrap();
    let (addresses, _workers): (Vec<String>, Vec<Killed>) =
        (0..3).map(|i| start_worker(&dir, &format!("w{i}"))).unzip();

    // A worker's port answers scrapes and refuses strangers; garbage and a request of another
    // method cost it nothing.
    let worker = &addresses[0];
    assert_eq!(get(worker, "/metrics", None).map(|(code, _)| code), Some(401));
    assert_eq!(get(worker, "/metrics", Some("Bearer wrong")).map(|(code, _)| code), Some(401));
    let mut garbage = TcpStream::connect(worker).unwrap();
    let _ = garbage.write_all(b"\x00\x01 not a request at all\r\n\r\n");
    drop(garbage);
    let idle = scrape(worker).expect("the worker answers after garbage");
    assert_eq!(number(&idle, "leaper_worker_prepared"), 0);
    assert_eq!(number(&idle, "leaper_worker_states_read_total"), 0);

    let coordinator = free_address();
    let job_dir = dir.join("job");
    let child = Command::new(LEAPER)
        .args(["knight", "7x8", "--sweep", "--buckets", "31", "--workers", &addresses.join(",")])
        .arg("--token-file")
        .arg(dir.join("token"))
        .arg("--job-dir")
        .arg(&job_dir)
        .args(["--listen", &coordinator])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join("coordinator.log")).unwrap())
        .spawn()
        .expect("leaper runs");
    let mut child = Killed(child);

    let deadline = Instant::now() + Duration::from_secs(300);
    let mut samples: Vec<Sample> = Vec::new();
    let mut refused = false;
    while child.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the count did not finish in time");
        if !refused {
            refused = get(&coordinator, "/metrics", None).is_some_and(|(code, _)| code == 401);
        }
        if let Some(sample) = sample(&coordinator, &addresses, &job_dir) {
            if samples.last().is_none_or(|last| last.step < sample.step) {
                samples.push(sample);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let exit = child.0.wait().unwrap();
    let log = std::fs::read_to_string(dir.join("coordinator.log")).unwrap();
    assert!(exit.success(), "{log}");
    let mut stdout = String::new();
    child.0.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    // As the embedded mode counts it.
    assert!(stdout.ends_with("7x7 0\n7x8 34524432316\n"), "{stdout}");
    assert!(refused, "the coordinator's /metrics answered a scrape without the token");

    // At least two moments, each agreeing with leaper status; the counters rose between them.
    assert!(samples.len() >= 2, "only {} agreeing scrapes during the run", samples.len());
    for pair in samples.windows(2) {
        assert!(pair[1].states_read > pair[0].states_read, "states read did not rise");
        // A step's few states may all stay with their owner: the bytes rise over the run.
        assert!(pair[1].shuffle_sent >= pair[0].shuffle_sent, "shuffle bytes fell");
    }
    let (first, last) = (&samples[0], &samples[samples.len() - 1]);
    assert!(last.shuffle_sent > first.shuffle_sent, "shuffle bytes did not rise");

    // At the end: the job finished, its states processed are every worker's reads.
    let finished = status(&job_dir);
    assert_eq!(finished["state"], "finished");
    let last: Vec<Scrape> = addresses.iter().map(|w| scrape(w).unwrap()).collect();
    assert_eq!(sum(&last, "leaper_worker_states_read_total"), finished["states_processed"].as_u64().unwrap());
    assert_eq!(sum(&last, "leaper_worker_prepared"), 0, "a finished job leaves no pass prepared");
    drop(_workers);
}
