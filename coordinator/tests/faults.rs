//! What a fault campaign found, each reproduced: nothing the user owns is deleted, nothing
//! committed is thrown away, bad requests are refused before any work, a start that fails or is
//! killed leaves nothing half-made. And a sweep killed with SIGKILL at random moments, over and
//! over, still prints exactly what an uninterrupted run prints.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{known, known_line, leaper, scratch, text, Scratch};

const BOARD: &[&str] = &["knight", "6x8", "--sweep", "--buckets", "7", "--format", "json"];

fn with_job_dir<'a>(args: &[&'a str], dir: &'a Path) -> Vec<&'a str> {
    let mut args = args.to_vec();
    args.extend(["--job-dir", dir.to_str().unwrap()]);
    args
}

fn resume(dir: &Path) -> std::process::Output {
    leaper(&["resume", "--job-dir", dir.to_str().unwrap()], None)
}

/// Every file under `dir` (the lock excepted: each process rewrites its pid) with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.push((path.clone(), Vec::new()));
            files.extend(snapshot(&path));
        } else if path.file_name().unwrap() != "lock" {
            files.push((path.clone(), fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}

/// A job stopped by a crash (fault injection) after some committed steps.
fn crashed(name: &str, fault: &str) -> Scratch {
    let dir = scratch(name);
    let output = leaper(&with_job_dir(BOARD, &dir), Some(fault));
    assert!(!output.status.success(), "{fault} did not stop the job");
    dir
}

/// What an uninterrupted run prints.
fn reference(board: &[&str]) -> String {
    common::run(board)
}

#[test]
fn resume_never_deletes_what_the_job_did_not_write() {
    let dir = crashed("strangers", "crash@layer:12");
    fs::write(dir.join("notes.txt"), "important").unwrap();
    fs::create_dir_all(dir.join("mydata")).unwrap();
    fs::write(dir.join("mydata/results.csv"), "1,2,3").unwrap();
    // A file inside the job's own folders that is not one of its names is a stranger too.
    fs::write(dir.join("pass-0/readme"), "mine").unwrap();
    let before = snapshot(&dir);
    let output = resume(&dir);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is not a file leaper writes") && stderr.contains("nothing was changed"), "{stderr}");
    assert!(["notes.txt", "mydata", "readme"].iter().any(|name| stderr.contains(name)), "{stderr}");
    assert!(snapshot(&dir) == before, "a refused resume changed the job directory");
    // Moved out, the job goes on to the exact counts.
    fs::remove_file(dir.join("notes.txt")).unwrap();
    fs::remove_dir_all(dir.join("mydata")).unwrap();
    fs::remove_file(dir.join("pass-0/readme")).unwrap();
    let output = resume(&dir);
    assert_eq!(text(&output.stdout), reference(BOARD), "{}", text(&output.stderr));
}

#[test]
fn a_lost_manifest_costs_nothing_and_deletes_nothing() {
    let dir = crashed("lost-manifest", "crash@release:13");
    let before = snapshot(&dir);
    fs::remove_file(dir.join("manifest.json")).unwrap();
    let output = resume(&dir);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("manifest.json: missing") && stderr.contains("manifest.copy.json holds the last commit"));
    assert!(stderr.contains("nothing was deleted"), "{stderr}");
    assert!(output.stdout.is_empty());
    // Every committed segment file is still there.
    let after: Vec<PathBuf> = snapshot(&dir).into_iter().map(|(path, _)| path).collect();
    for (path, _) in &before {
        assert!(path.ends_with("manifest.json") || after.contains(path), "{} went", path.display());
    }
    // Without the copy either, the committed layers are still never thrown away.
    let copy = fs::read(dir.join("manifest.copy.json")).unwrap();
    fs::remove_file(dir.join("manifest.copy.json")).unwrap();
    let output = resume(&dir);
    let stderr = text(&output.stderr);
    assert!(stderr.contains("committed layers") && stderr.contains("nothing was deleted"), "{stderr}");
    // The copy, put back as the manifest, resumes the job to the exact counts.
    fs::write(dir.join("manifest.json"), copy).unwrap();
    let output = resume(&dir);
    assert_eq!(text(&output.stdout), reference(BOARD), "{}", text(&output.stderr));
}

#[test]
fn a_crash_in_the_very_first_step_resumes() {
    // The start state's layer is on disk before the first step commits: the job's first
    // manifest, written before it, tells a job that had not started from a lost manifest.
    let dir = crashed("first-step", "crash@layer:1");
    let output = leaper(&["status", "--job-dir", dir.to_str().unwrap()], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("none committed yet"), "{}", text(&output.stdout));
    let output = resume(&dir);
    assert_eq!(text(&output.stdout), reference(BOARD), "{}", text(&output.stderr));
}

#[test]
fn status_reads_the_checkpoint_of_the_step_that_emptied_the_layer() {
    // `knight 6x10 --sweep`'s layer empties at step 55 of 60: that step's checkpoint says the
    // next cell is the 60th, past the 54 steps profiled, and `leaper status` (and a coordinator's
    // status service) panicked on it estimating what was left.
    let board: &[&str] = &["knight", "6x10", "--sweep", "--format", "json"];
    let dir = scratch("emptied-layer");
    let output = leaper(&with_job_dir(board, &dir), Some("crash@manifest:55"));
    assert!(!output.status.success(), "the crash did not stop the job");
    let status = leaper(&["status", "--job-dir", dir.to_str().unwrap(), "--format", "json"], None);
    assert!(status.status.success(), "{}", text(&status.stderr));
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!((status["cells_done"].as_u64(), status["cells"].as_u64()), (Some(60), Some(60)), "{status}");
    assert_eq!(status["eta_seconds"].as_f64(), Some(0.0), "{status}");
    let output = resume(&dir);
    assert_eq!(text(&output.stdout), reference(board), "{}", text(&output.stderr));
}

#[test]
fn a_refused_resume_leaves_the_half_written_layer_where_it_was() {
    // A crash in the middle of writing a layer's segment files, then a damaged committed file.
    let dir = crashed("refused-resume", "crash@bucket:40");
    let manifest: serde_json::Value = serde_json::from_slice(&fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let committed = manifest["layer"]["files"][0]["file"].as_str().unwrap().to_string();
    let next = manifest["layer"]["number"].as_u64().unwrap() + 1;
    let half_written = dir.join(format!("pass-0/layer-{next:06}"));
    assert!(half_written.exists(), "the crash left no half-written layer");
    let path = dir.join(&committed);
    let mut bytes = fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    fs::write(&path, bytes).unwrap();
    let before = snapshot(&dir);
    let output = resume(&dir);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&committed) && stderr.contains("checksum mismatch"), "{stderr}");
    assert!(snapshot(&dir) == before, "the refused resume deleted the half-written layer");
}

#[test]
fn requests_that_cannot_finish_are_refused_at_once_and_leave_nothing() {
    let dir = scratch("refused-at-once");
    let job = dir.join("job");
    let job_dir = job.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["knight", "1000x1000", "--job-dir", job_dir], "widest board"),
        (&["tours", "--moves", "0,1", "31x65000", "--sweep", "--job-dir", job_dir], "smaller board"),
        (&["knight", "6x6", "--threads", "100000", "--job-dir", job_dir], "give 1 to 1024"),
        (
            &["knight", "6x6", "--bfile", "/proc/version", "--job-dir", job_dir],
            "/proc/version: cannot write the b-file",
        ),
        (&["knight", "6x6", "--bfile", "/proc", "--job-dir", job_dir], "/proc: cannot write the b-file"),
    ];
    for (args, message) in cases {
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_leaper"))
            .args(args)
            .env_remove("LEAPER_FAULT")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Refused at once: before the fix the first two planned for minutes (or forever).
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                child.kill().unwrap();
                panic!("{args:?} was still working after a minute");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let output = child.wait_with_output().unwrap();
        assert!(!output.status.success(), "{args:?}");
        assert!(text(&output.stderr).contains(message), "{args:?}: {}", text(&output.stderr));
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(!job.exists(), "{args:?} left a job directory behind");
    }
}

#[test]
fn a_start_that_fails_or_dies_in_its_first_moments_leaves_nothing_in_the_way() {
    let dir = scratch("first-moments");
    let job = dir.join("job");
    // A memory budget too small for the store: refused, and the new directory is gone again.
    let output = leaper(&with_job_dir(&["knight", "6x8", "--mem-limit", "1MiB"], &job), None);
    assert!(text(&output.stderr).contains("raise --mem-limit"), "{}", text(&output.stderr));
    assert!(!job.exists(), "a start that failed left {}", job.display());
    // A full disk while the lock, the spec or its copy is written: nothing left, and no
    // advice to resume a job that is not there.
    for fault in ["full@lock:1", "full@job-temp:1", "full@job-copy-temp:1", "full@job-copy:1"] {
        let output = leaper(&with_job_dir(&["knight", "6x6"], &job), Some(fault));
        let stderr = text(&output.stderr);
        assert!(stderr.contains("disk is full") && !stderr.contains("resume"), "{fault}: {stderr}");
        assert!(!job.exists(), "a start on a full disk ({fault}) left {}", job.display());
    }
    // Killed while the spec was being written: the lock and a temporary spec are left.
    let output = leaper(&with_job_dir(&["knight", "6x6"], &job), Some("crash@job-temp:1"));
    assert!(!output.status.success());
    let mut left: Vec<String> =
        fs::read_dir(&job).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    left.sort();
    assert_eq!(left, ["job.toml.tmp", "lock"]);
    let output = resume(&job);
    assert!(text(&output.stderr).contains("start the job again"), "{}", text(&output.stderr));
    // The next start clears them, says so, and counts.
    let output = leaper(&with_job_dir(&["knight", "6x6"], &job), None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), known_line("knight 6x6"));
    assert!(text(&output.stderr).contains("removed the leftovers of a start"), "{}", text(&output.stderr));
}

/// Puts a link into a job directory (the first argument) to a file outside (the second).
type Plant = fn(&Path, &Path);

#[test]
fn leaper_never_follows_a_link_it_did_not_make() {
    let outside_dir = scratch("links-outside");
    fs::create_dir_all(&outside_dir).unwrap();
    let outside = outside_dir.join("precious.txt");
    let cases: [(&str, Plant); 4] = [
        // The lock: its pid would have overwritten the file.
        ("lock", |dir, outside| {
            fs::remove_file(dir.join("lock")).unwrap();
            std::os::unix::fs::symlink(outside, dir.join("lock")).unwrap();
        }),
        // The spec, pointing at a copy of itself.
        ("job.toml", |dir, outside| {
            fs::copy(dir.join("job.toml"), outside).unwrap();
            fs::remove_file(dir.join("job.toml")).unwrap();
            std::os::unix::fs::symlink(outside, dir.join("job.toml")).unwrap();
        }),
        // A spill or layer file of the step to come, waiting to be written through.
        ("spill", |dir, outside| {
            let layer = fs::read_dir(dir.join("pass-0")).unwrap().map(|e| e.unwrap().path()).max().unwrap();
            std::os::unix::fs::symlink(outside, layer.join("spill-0001.runs")).unwrap();
        }),
        // The committed layer's folder, moved elsewhere behind a link.
        ("layer", |dir, outside| {
            let layer = fs::read_dir(dir.join("pass-0")).unwrap().map(|e| e.unwrap().path()).max().unwrap();
            let moved = outside.with_extension("layer");
            fs::rename(&layer, &moved).unwrap();
            std::os::unix::fs::symlink(&moved, &layer).unwrap();
        }),
    ];
    for (name, plant) in cases {
        fs::write(&outside, "precious").unwrap();
        let dir = crashed(&format!("link-{name}"), "crash@release:20");
        plant(&dir, &outside);
        let before = fs::read(&outside).unwrap();
        let output = resume(&dir);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains("symbolic link") && stderr.contains("remove the link"), "{name}: {stderr}");
        assert!(output.stdout.is_empty(), "{name}");
        assert_eq!(fs::read(&outside).unwrap(), before, "{name}: the file outside was changed");
        let _ = fs::remove_dir_all(outside.with_extension("layer"));
    }
    // A worker's data directory too.
    let data = scratch("link-data");
    fs::create_dir_all(&data).unwrap();
    std::os::unix::fs::symlink(&outside, data.join("worker-id")).unwrap();
    let token = outside_dir.join("token");
    fs::write(&token, "a-token-of-at-least-sixteen-bytes\n").unwrap();
    let worker = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["worker", "--listen", "127.0.0.1:0", "--data-dir", data.to_str().unwrap(), "--token-file"])
        .arg(&token)
        .output()
        .unwrap();
    assert!(!worker.status.success());
    assert!(text(&worker.stderr).contains("symbolic link"), "{}", text(&worker.stderr));
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
}

#[test]
fn outputs_never_land_in_a_job_directory_and_temporary_files_never_block() {
    let dir = scratch("outputs");
    let job = dir.join("job");
    fs::create_dir_all(&job).unwrap();
    // A b-file inside the job directory of the start: refused before any work, nothing made.
    let bfile = job.join("b.txt");
    let mut args = with_job_dir(&["knight", "6x8", "--sweep"], &job);
    args.extend(["--bfile", bfile.to_str().unwrap()]);
    let output = leaper(&args, None);
    assert!(text(&output.stderr).contains("lies in the job directory"), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("leaper's own"), "{}", text(&output.stderr));
    assert_eq!(fs::read_dir(&job).unwrap().count(), 0, "a refused start wrote into its job directory");
    fs::remove_dir(&job).unwrap();
    // On resume: the spec or the manifest as the b-file.
    let crashed = crashed("outputs-job", "crash@release:20");
    for name in ["job.toml", "manifest.json", "b.txt"] {
        let before = snapshot(&crashed);
        let target = crashed.join(name);
        let output =
            leaper(&["resume", "--job-dir", crashed.to_str().unwrap(), "--bfile", target.to_str().unwrap()], None);
        assert_eq!(output.status.code(), Some(1), "{name}");
        assert!(text(&output.stderr).contains("leaper's own"), "{name}: {}", text(&output.stderr));
        assert!(snapshot(&crashed) == before, "--bfile {name} changed the job directory");
    }
    // A tour file into a job directory.
    let out = crashed.join("tours.txt");
    let output = leaper(&["tours", "enumerate", "5x6", "--closed", "--out", out.to_str().unwrap()], None);
    assert!(text(&output.stderr).contains("job or data directory"), "{}", text(&output.stderr));
    assert!(!out.exists());

    // Temporary files a killed run left (the name of this release's, and of the last) block
    // nothing, and the next write of the same output clears this release's.
    let out = dir.join("e.txt");
    let stale = dir.join("e.txt.4194303.tmp");
    fs::write(&stale, "half").unwrap();
    fs::write(dir.join("e.txt.tmp"), "half").unwrap();
    let output = leaper(&["tours", "enumerate", "5x6", "--closed", "--out", out.to_str().unwrap()], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(out.exists() && !stale.exists());
    // A b-file on a full disk: no temporary file left, no advice to resume a job that does not
    // exist, and the next run writes it.
    let bfile = dir.join("b.txt");
    let args = ["knight", "6x6", "--sweep", "--bfile", bfile.to_str().unwrap()];
    let output = leaper(&args, Some("full@bfile-temp:1"));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("disk is full") && !stderr.contains("resume"), "{stderr}");
    let left: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(!left.iter().any(|name| name.to_string_lossy().starts_with("b.txt")), "{left:?}");
    let output = leaper(&args, None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(fs::read_to_string(&bfile).unwrap().contains(&format!("6 {}", known("knight 6x6"))));
}

/// A small deterministic generator, so that a failing run can be repeated exactly.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// Starts `leaper ARGS` with `fault` set; stderr is read on a thread that reports the first
/// line containing `needle`.
fn spawn(args: &[&str], fault: Option<&str>, needle: &'static str) -> (Child, std::sync::mpsc::Receiver<()>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_leaper"));
    command.args(args).env_remove("LEAPER_FAULT").stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(fault) = fault {
        command.env("LEAPER_FAULT", fault);
    }
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tell, told) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains(needle) {
                let _ = tell.send(());
            }
        }
    });
    (child, told)
}

#[test]
fn a_sweep_killed_at_random_moments_still_counts_exactly_and_touches_nothing_else() {
    let board: &[&str] = &["knight", "6x10", "--sweep", "--buckets", "7", "--format", "json"];
    let expected = reference(board);
    let mut rng = Rng(0x5eed_1eaf_2026_1122);
    let dir = scratch("random-kills");
    fs::create_dir_all(&dir).unwrap();
    // Beside the job directory: must never be touched.
    let outside = dir.join("sentinel.txt");
    fs::write(&outside, "not leaper's").unwrap();
    let commit_points = ["manifest-temp", "manifest", "manifest-copy-temp", "manifest-copy", "release", "layer"];
    let (mut kills, mut jobs, mut finished) = (0, 0, 0);
    let mut job = dir.join("job-0");
    while kills < 24 || finished == 0 {
        let fresh = !job.join("job.toml").exists();
        let mut args = if fresh { board.to_vec() } else { vec!["resume"] };
        args.extend(["--job-dir", job.to_str().unwrap()]);
        // Now and then a stranger in the job directory: the resume must stop and name it.
        if !fresh && rng.below(6) == 0 {
            fs::write(job.join("notes.txt"), "mine").unwrap();
            let output = leaper(&args, None);
            assert!(text(&output.stderr).contains("notes.txt"), "{}", text(&output.stderr));
            assert_eq!(fs::read_to_string(job.join("notes.txt")).unwrap(), "mine");
            fs::remove_file(job.join("notes.txt")).unwrap();
        }
        // Now and then an edited spec: refused by name, and its copy is the way back.
        if !fresh && job.join("job.copy.toml").exists() && rng.below(6) == 0 {
            let spec = fs::read(job.join("job.toml")).unwrap();
            let edited = text(&spec).replacen("moves = \"1,2\"", "moves = \"1,3\"", 1);
            fs::write(job.join("job.toml"), edited).unwrap();
            let output = leaper(&args, None);
            let stderr = text(&output.stderr);
            assert!(stderr.contains("job.toml: damaged job spec") && stderr.contains("cp "), "{stderr}");
            assert!(output.stdout.is_empty(), "an edited spec printed counts");
            fs::copy(job.join("job.copy.toml"), job.join("job.toml")).unwrap();
            assert_eq!(fs::read(job.join("job.toml")).unwrap(), spec);
        }
        // Now and then the lock made a link to a file outside: refused, the file untouched.
        if !fresh && rng.below(6) == 0 {
            // No lock is there when the last run was killed before it made one.
            let _ = fs::remove_file(job.join("lock"));
            std::os::unix::fs::symlink(&outside, job.join("lock")).unwrap();
            let output = leaper(&args, None);
            assert!(text(&output.stderr).contains("symbolic link"), "{}", text(&output.stderr));
            fs::remove_file(job.join("lock")).unwrap();
        }
        // The moment of the kill: the first milliseconds, inside a commit, or anywhere.
        let round = kills + finished;
        let (fault, wait) = match rng.below(4) {
            _ if round == 0 => (None, Duration::from_millis(rng.below(4))),
            0 => {
                (Some(format!("pause@{}:{}", commit_points[rng.below(6) as usize], 1 + rng.below(12))), Duration::ZERO)
            }
            1 => (None, Duration::from_millis(rng.below(30))),
            _ => (None, Duration::from_millis(rng.below(3000))),
        };
        let (mut child, paused) = spawn(&args, fault.as_deref(), "LEAPER_FAULT: pausing");
        let deadline = Instant::now() + Duration::from_secs(120);
        let moment = Instant::now() + wait;
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            let due = match fault {
                Some(_) => paused.try_recv().is_ok(),
                None => Instant::now() >= moment,
            };
            if due {
                child.kill().unwrap();
                kills += 1;
                break;
            }
            assert!(Instant::now() < deadline, "a run did not end");
            std::thread::sleep(Duration::from_millis(1));
        }
        let output = child.wait_with_output().unwrap();
        if output.status.success() {
            assert_eq!(text(&output.stdout), expected, "job {jobs} after {kills} kills");
            finished += 1;
            jobs += 1;
            job = dir.join(format!("job-{jobs}"));
        } else {
            // Counts final before the kill were printed as they became final: exactly the
            // first lines of what a whole run prints.
            let printed = text(&output.stdout);
            assert!(expected.starts_with(&printed), "a killed run printed {printed:?}");
        }
        assert_eq!(fs::read_to_string(&outside).unwrap(), "not leaper's");
    }
    // The last job, killed or not, goes on to the exact counts.
    if job.join("job.toml").exists() {
        let output = resume(&job);
        assert_eq!(text(&output.stdout), expected, "{}", text(&output.stderr));
    }
    assert!(kills >= 24, "{kills} kills");
}
