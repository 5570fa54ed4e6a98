//! Out-of-core jobs survive crashes: a job killed at any point (mid-step, mid-aggregation,
//! mid-commit, by `kill -9`) and resumed prints exactly the counts of an uninterrupted run; a
//! damaged job directory is refused by name and left as it was.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BOARD: &[&str] = &["knight", "6x8", "--sweep", "--buckets", "7", "--format", "json"];

mod common;

use common::{known, known_line, known_lines, leaper, scratch, text, Scratch};
use leaper_core::engine::jobdir::Manifest;
use leaper_core::hamiltonian::frontier::FRONTIER_FORMAT;

fn start(dir: &Path, fault: Option<&str>) -> Output {
    let mut args = BOARD.to_vec();
    // A small memory budget, so that successors go through spill files (merged in memory
    // first, they would otherwise reach their sections directly): 22 spill runs in
    // all, the faults below strike among them.
    args.extend(["--job-dir", dir.to_str().unwrap(), "--mem-limit", "4MiB"]);
    leaper(&args, fault)
}

fn resume(dir: &Path, fault: Option<&str>) -> Output {
    leaper(&["resume", "--job-dir", dir.to_str().unwrap()], fault)
}

fn status(dir: &Path) -> serde_json::Value {
    let output = leaper(&["status", "--job-dir", dir.to_str().unwrap(), "--format", "json"], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("status is JSON")
}

/// What an uninterrupted in-memory run prints.
fn reference() -> String {
    let output = leaper(BOARD, None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains(&format!(
            r#"{{"problem":"knight","board":"6x8","tours":"closed","count":"{}"}}"#,
            known("knight 6x8")
        )),
        "{stdout}"
    );
    stdout
}

/// A job that crashed (by fault injection) after some committed steps.
fn crashed_job(name: &str, fault: &str) -> Scratch {
    let dir = scratch(name);
    let output = start(&dir, Some(fault));
    assert!(!output.status.success(), "the fault {fault} did not stop the job");
    // Only counts already final may have been printed: the first lines of a whole run's output.
    let printed = text(&output.stdout);
    assert!(reference().starts_with(&printed), "a crashed job printed {printed:?}");
    dir
}

#[test]
fn a_job_crashed_at_any_point_resumes_to_the_same_counts() {
    let expected = reference();
    // Every kind of moment: writing spills, between bucket sections, after the layer is durable
    // but unnamed, with the new manifest beside the old, right after the rename, after the
    // old layer went.
    for fault in [
        "crash@spill:15",
        "crash@bucket:90",
        "crash@layer:20",
        "crash@manifest-temp:25",
        "crash@manifest:30",
        "crash@release:33",
    ] {
        let dir = crashed_job(&fault.replace(['@', ':'], "-"), fault);
        let before = status(&dir);
        assert_eq!(before["state"], "stopped", "{fault}: {before}");
        assert!(before["cells_done"].as_u64().unwrap() > 0, "{fault}: nothing committed before the crash");
        let output = resume(&dir, None);
        assert!(output.status.success(), "{fault}: {}", text(&output.stderr));
        assert_eq!(text(&output.stdout), expected, "{fault}");
        let after = status(&dir);
        assert_eq!(after["state"], "finished", "{fault}: {after}");
        // Only the spec, the lock and the manifest with the counts (and its copy) are left.
        let mut left: Vec<String> =
            fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        assert_eq!(left, ["job.copy.toml", "job.toml", "lock", "manifest.copy.json", "manifest.json"], "{fault}");
    }
}

#[test]
fn a_job_of_several_passes_resumes_in_any_pass() {
    // One modulus per pass and a spare: two passes of 48 steps each.
    let board = ["knight", "6x8", "--sweep", "--buckets", "7", "--verify", "--moduli-per-pass", "1"];
    let expected = text(&leaper(&board, None).stdout);
    assert!(expected.ends_with(&known_lines("knight", 6, 8..=8)), "{expected}");
    // In pass 1; at the end of pass 1 (the job's first manifest, its 48 step commits, then the
    // pass commit); in pass 2.
    for fault in ["crash@layer:30", "crash@manifest:50", "crash@manifest-temp:51", "crash@layer:70"] {
        let dir = scratch(&format!("passes-{}", fault.replace(['@', ':'], "-")));
        let mut args = board.to_vec();
        args.extend(["--job-dir", dir.to_str().unwrap()]);
        assert!(!leaper(&args, Some(fault)).status.success(), "{fault}");
        let stopped = status(&dir);
        assert_eq!(stopped["passes"], 2, "{stopped}");
        let output = resume(&dir, None);
        assert_eq!(text(&output.stdout), expected, "{fault}: {}", text(&output.stderr));
    }
}

#[test]
fn a_job_whose_exact_pass_saturates_resumes_in_either_pass() {
    // King tours of 3 x n pass 2^64 at about n = 25 and 2^128 at about n = 49: the exact pass
    // (180 steps), 64 or 128 bits wide, saturates and the residue pass follows it.
    for (lanes, crashes) in [
        ("exact64", [("crash@layer:30", 1), ("crash@layer:120", 2), ("crash@manifest:182", 2), ("crash@layer:250", 2)]),
        (
            "exact128",
            [("crash@layer:120", 1), ("crash@layer:170", 2), ("crash@manifest:182", 2), ("crash@layer:250", 2)],
        ),
    ] {
        let board = ["tours", "--moves", "1,0+1,1", "3x60", "--sweep", "--buckets", "7", "--counts", lanes];
        let expected = text(&leaper(&board, None).stdout);
        assert!(expected.ends_with("3x60 432250127596360169729677265572035855937427261342\n"), "{expected}");
        // In the exact pass, before a count passed its cap (one pass known) and after; at its
        // end (the first manifest, 180 step commits, the pass commit); in the residue pass.
        for (fault, passes) in crashes {
            let dir = scratch(&format!("{lanes}-{}", fault.replace(['@', ':'], "-")));
            let mut args = board.to_vec();
            args.extend(["--job-dir", dir.to_str().unwrap()]);
            let crashed = leaper(&args, Some(fault));
            assert!(!crashed.status.success(), "{lanes} {fault}");
            assert!(expected.starts_with(&text(&crashed.stdout)), "{lanes} {fault}: {}", text(&crashed.stdout));
            let stopped = status(&dir);
            assert_eq!(stopped["passes"], passes, "{lanes} {fault}: {stopped}");
            let output = resume(&dir, None);
            assert_eq!(text(&output.stdout), expected, "{lanes} {fault}: {}", text(&output.stderr));
        }
    }
}

#[test]
fn a_resume_in_other_lanes_is_refused_by_name_and_jobs_of_before_the_128_bit_lane_resume_as_they_were() {
    // King tours of 3 x 60: a bound of about 2^200, for which `exact` now takes 128 bits.
    let board = ["tours", "--moves", "1,0+1,1", "3x60", "--sweep", "--buckets", "7"];
    let expected = text(&leaper(&board, None).stdout);
    let started = |name: &str, more: &[&str]| {
        let dir = scratch(name);
        let mut args = board.to_vec();
        args.extend(more);
        args.extend(["--job-dir", dir.to_str().unwrap()]);
        assert!(!leaper(&args, Some("crash@layer:40")).status.success(), "{name}");
        dir
    };
    // What a new job records: the lane the bound chose.
    let dir = started("lanes-recorded", &[]);
    assert!(fs::read_to_string(dir.join("job.toml")).unwrap().contains("counts = \"exact128\""));
    fs::remove_dir_all(&dir).unwrap();

    // Layers of 64-bit counts, a job.toml sealed again asking for 128 (or residues): refused,
    // both lanes named, nothing changed.
    for (forged, asked) in [("exact128", "now asks for exact 128-bit counts"), ("residues", "now asks for 5 residues")]
    {
        let dir = started(&format!("lanes-forged-{forged}"), &["--counts", "exact64"]);
        forge_spec(&dir, "sweep", "counts", forged);
        let before = snapshot(&dir);
        let output = resume(&dir, None);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{forged}: {stderr}");
        assert!(stderr.contains("the job's layers hold exact 64-bit counts") && stderr.contains(asked), "{stderr}");
        assert_eq!(snapshot(&dir), before, "{forged}: the refusal changed the job directory");
    }

    // Between passes too (the exact 64-bit pass saturated and ended, the residue pass not
    // begun: 180 step commits, the pass commit), and a step into the residue pass, whose
    // manifest names its residues alone: the ended pass's words give it away (the sweep's check
    // of the checkpoint against its plan).
    for (fault, refusal) in [
        (
            "crash@manifest:181",
            "the counts of its last pass are exact 64-bit counts, but its job.toml now asks for exact 128-bit",
        ),
        (
            "crash@manifest:182",
            "1 words of counts a slot from the passes before) does not fit this sweep (2 passes: exact 128-bit counts",
        ),
    ] {
        let dir = scratch("lanes-forged-between-passes");
        let mut args = board.to_vec();
        args.extend(["--counts", "exact64", "--job-dir", dir.to_str().unwrap()]);
        assert!(!leaper(&args, Some(fault)).status.success());
        assert_eq!(status(&dir)["passes"], 2);
        forge_spec(&dir, "sweep", "counts", "exact128");
        let before = snapshot(&dir);
        let output = resume(&dir, None);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{fault}: {stderr}");
        assert!(stderr.contains(refusal), "{fault}: {stderr}");
        assert_eq!(snapshot(&dir), before, "{fault}: the refusal changed the job directory");
    }

    // A job.toml of a release before the 128-bit lane says `exact`: the exact 64-bit pass
    // without --verify, the residue passes with it, as that release counted; it resumes so.
    for (started_as, verify) in [("exact64", false), ("residues", true)] {
        let more: &[&str] = if verify { &["--counts", started_as, "--verify"] } else { &["--counts", started_as] };
        let dir = started(&format!("lanes-before-{started_as}"), more);
        forge_spec(&dir, "sweep", "counts", "exact");
        let output = resume(&dir, None);
        assert!(output.status.success(), "{started_as}: {}", text(&output.stderr));
        assert_eq!(text(&output.stdout), expected, "{started_as}");
    }
}

#[test]
fn a_resume_that_crashes_too_is_resumed_again() {
    let expected = reference();
    let dir = crashed_job("twice", "crash@layer:10");
    let first = status(&dir)["cells_done"].as_u64().unwrap();
    let output = resume(&dir, Some("crash@manifest-temp:12"));
    assert!(!output.status.success());
    // The resume went on from the first checkpoint: 11 more steps committed, the 12th not.
    assert_eq!(status(&dir)["cells_done"].as_u64().unwrap(), first + 11);
    let output = resume(&dir, None);
    assert_eq!(text(&output.stdout), expected, "{}", text(&output.stderr));
    // A finished job resumed again prints its recorded counts.
    let output = resume(&dir, None);
    assert_eq!(text(&output.stdout), expected);
}

#[test]
fn a_job_killed_with_sigkill_resumes_to_the_same_counts() {
    let dir = scratch("kill");
    let args = ["knight", "6x12", "--sweep", "--buckets", "31", "--job-dir", dir.to_str().unwrap()];
    let mut child = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(args)
        .env_remove("LEAPER_FAULT")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("leaper starts");
    // Kill it once it is well into the board (row 6 of 12), at no particular moment of a step.
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        if dir.join("manifest.json").exists() && status(&dir)["cells_done"].as_u64().unwrap_or(0) >= 36 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("kill -9");
    child.wait().unwrap();
    let killed = status(&dir);
    assert_eq!(killed["state"], "stopped", "{killed}");
    assert!(killed["cells_done"].as_u64().unwrap() < 72, "the job finished before the kill: {killed}");

    let output = resume(&dir, None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let last = text(&output.stdout).lines().last().unwrap_or_default().to_string();
    assert_eq!(last, "6x12 964730606632516");
    assert_eq!(status(&dir)["counts"][11][1], "964730606632516");
}

#[test]
fn a_full_disk_stops_the_job_with_advice_and_loses_nothing() {
    let expected = reference();
    let dir = scratch("full");
    let output = start(&dir, Some("full@spill:13"));
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("spill-") && stderr.contains("disk is full") && stderr.contains("leaper resume"),
        "{stderr}"
    );
    let output = resume(&dir, None);
    assert_eq!(text(&output.stdout), expected, "{}", text(&output.stderr));
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every file under `dir` with its contents.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else if path.file_name().unwrap() != "lock" {
            files.push((path.clone(), fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}

/// Replaces `from` by `to` in the job's spec, which must hold `from`.
/// Sets `[table] key = value` in the job's spec and seals it again, checksum and copy, as
/// leaper writes a spec: an edit only a deliberate forger makes.
fn forge_spec(dir: &Path, table: &str, key: &str, value: &str) {
    use leaper_core::engine::jobdir::JobSpec;
    let mut spec = JobSpec::load(dir).unwrap();
    let section = spec.body.get_mut(table).and_then(|t| t.as_table_mut()).unwrap();
    let old = section.get(key).unwrap_or_else(|| panic!("no {key} in [{table}]"));
    let new = match old {
        toml::Value::Boolean(_) => toml::Value::Boolean(value == "true"),
        _ => toml::Value::String(value.into()),
    };
    assert_ne!(old, &new, "[{table}] {key} is {value} already");
    section.insert(key.into(), new);
    spec.write(dir).unwrap();
}

/// Changes the committed manifest as a leaper would have written it (sealed, its copy too).
fn reseal_manifest(dir: &Path, change: fn(&mut Manifest)) {
    let mut manifest = Manifest::load(dir).unwrap().unwrap();
    change(&mut manifest);
    manifest.commit(dir).unwrap();
}

fn edit_spec(dir: &Path, from: &str, to: &str) {
    let path = dir.join("job.toml");
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from} not in {text}");
    fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn damaged_job_directories_are_refused_by_name_and_left_alone() {
    // A clean checkpoint: the crash comes right after a commit, so every file is named.
    let good = crashed_job("damage", "crash@release:30");
    let manifest: serde_json::Value = serde_json::from_slice(&fs::read(good.join("manifest.json")).unwrap()).unwrap();
    let files = manifest["layer"]["files"].as_array().unwrap();
    let bucket =
        files.iter().max_by_key(|f| f["bytes"].as_u64().unwrap()).unwrap()["file"].as_str().unwrap().to_string();

    type Damage = fn(&Path, &str);
    // Layers of another key format for the problem: another leaper wrote them.
    let skew = format!(
        "the job's layers hold tours keys of key format {}, this leaper's are of key format {FRONTIER_FORMAT}: \
         another version of leaper wrote them; resume the job with the leaper that started it",
        FRONTIER_FORMAT + 1
    );
    let cases: Vec<(&str, Damage, &str)> = vec![
        (
            "truncated",
            |dir, bucket| {
                let path = dir.join(bucket);
                let bytes = fs::read(&path).unwrap();
                fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
            },
            "truncated",
        ),
        ("missing", |dir, bucket| fs::remove_file(dir.join(bucket)).unwrap(), "missing"),
        (
            "flipped",
            |dir, bucket| {
                let path = dir.join(bucket);
                let mut bytes = fs::read(&path).unwrap();
                let middle = bytes.len() / 2;
                bytes[middle] ^= 0x10;
                fs::write(&path, bytes).unwrap();
            },
            "checksum mismatch",
        ),
        (
            "swapped",
            |dir, bucket| {
                // Valid sections, but not where the checkpoint recorded them: the segment's first
                // section moved to its end.
                let manifest: serde_json::Value =
                    serde_json::from_slice(&fs::read(dir.join("manifest.json")).unwrap()).unwrap();
                let first = manifest["layer"]["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|f| f["file"] == bucket && f["offset"].as_u64().unwrap_or(0) == 0)
                    .unwrap()["bytes"]
                    .as_u64()
                    .unwrap() as usize;
                let path = dir.join(bucket);
                let mut bytes = fs::read(&path).unwrap();
                assert!(first < bytes.len(), "the segment holds more than one section");
                bytes.rotate_left(first);
                fs::write(&path, bytes).unwrap();
            },
            // The sections the checkpoint names are not where it says (damaged), or hold other
            // states than it recorded: either way refused, with the way back.
            "restore it",
        ),
        (
            "version skew",
            |dir, _| {
                let path = dir.join("manifest.json");
                let text = fs::read_to_string(&path).unwrap().replacen("\"format\": 3", "\"format\": 7", 1);
                fs::write(path, text).unwrap();
            },
            "manifest format 7, this leaper reads format 3",
        ),
        (
            "keys of another leaper",
            |dir, _| reseal_manifest(dir, |manifest| manifest.key_format = Some(FRONTIER_FORMAT + 1)),
            &skew,
        ),
        // What is counted, edited after the start: the spec no longer matches its checksum.
        (
            "spec edited: moves",
            |dir, _| edit_spec(dir, "moves = \"1,2\"", "moves = \"1,3\""),
            "damaged job spec: checksum mismatch",
        ),
        (
            "spec edited: tours",
            |dir, _| edit_spec(dir, "tours = \"closed\"", "tours = \"open\""),
            "damaged job spec: checksum mismatch",
        ),
        ("spec edited: sweep", |dir, _| edit_spec(dir, "sweep = true", "sweep = false"), "damaged job spec"),
        ("spec edited: board", |dir, _| edit_spec(dir, "board = \"6x8\"", "board = \"6x7\""), "damaged job spec"),
        (
            "spec edited: counts",
            |dir, _| edit_spec(dir, "counts = \"residues\"", "counts = \"exact64\""),
            "damaged job spec",
        ),
        (
            "spec cut short",
            |dir, _| {
                let path = dir.join("job.toml");
                let bytes = fs::read(&path).unwrap();
                fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
            },
            "its copy job.copy.toml is intact",
        ),
        ("spec missing", |dir, _| fs::remove_file(dir.join("job.toml")).unwrap(), "copy it to job.toml"),
        (
            "spec and copy differ",
            |dir, _| {
                let original = fs::read(dir.join("job.copy.toml")).unwrap();
                forge_spec(dir, "params", "moves", "1,3");
                fs::write(dir.join("job.copy.toml"), original).unwrap();
            },
            "differs from its copy",
        ),
        // Edited and sealed again with a valid checksum (as only a deliberate forger would):
        // the layers still refuse a spec that means other states, or other moduli. (`--counts
        // residues` here counts modulo the same one modulus as `exact`, and would resume.)
        ("spec forged: moves", |dir, _| forge_spec(dir, "params", "moves", "1,3"), "was job.toml edited?"),
        ("spec forged: tours", |dir, _| forge_spec(dir, "params", "tours", "open"), "was job.toml edited?"),
        ("spec forged: board", |dir, _| forge_spec(dir, "params", "board", "6x7"), "was job.toml edited?"),
        ("spec forged: sweep", |dir, _| forge_spec(dir, "params", "sweep", "false"), "was job.toml edited?"),
        ("spec forged: verify", |dir, _| forge_spec(dir, "sweep", "verify", "true"), "was job.toml edited?"),
        (
            "manifest cut short",
            |dir, _| {
                let path = dir.join("manifest.json");
                let bytes = fs::read(&path).unwrap();
                fs::write(&path, &bytes[..bytes.len() / 3]).unwrap();
            },
            "damaged manifest",
        ),
        (
            "spec skew",
            |dir, _| {
                let path = dir.join("job.toml");
                let text = fs::read_to_string(&path).unwrap().replacen("format = 3", "format = 4", 1);
                fs::write(path, text).unwrap();
            },
            "job format 4, this leaper reads formats 2 to 3",
        ),
    ];
    for (name, damage, message) in cases {
        let dir = scratch(&format!("damaged-{}", name.replace(' ', "-")));
        copy_dir(&good, &dir);
        damage(&dir, &bucket);
        let before = snapshot(&dir);
        let output = resume(&dir, None);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(output.stdout.is_empty(), "{name}");
        assert!(stderr.contains(message), "{name}: {stderr}");
        let named = match name {
            _ if name.contains("skew") || name.contains("manifest") => "",
            _ if name.contains("keys") => "manifest.json",
            // Both lanes named: the layers' and those the forged spec asks for.
            _ if name.contains("spec forged: verify") => {
                "the job's layers hold 1 residue ([0]), but its job.toml now asks for 2 residues"
            }
            _ if name.contains("spec forged") => "manifest.json",
            _ if name.contains("spec") => "job.toml",
            _ => bucket.as_str(),
        };
        assert!(stderr.contains(named), "{name}: the error does not name {named}: {stderr}");
        assert!(snapshot(&dir) == before, "{name}: the failed resume changed the job directory");
    }

    // A manifest of before key formats were recorded resumes (the layout alone decides).
    let legacy = scratch("damaged-legacy");
    copy_dir(&good, &legacy);
    reseal_manifest(&legacy, |manifest| manifest.key_format = None);
    assert!(!fs::read_to_string(legacy.join("manifest.json")).unwrap().contains("key_format"));
    let output = resume(&legacy, None);
    assert_eq!(text(&output.stdout), reference(), "{}", text(&output.stderr));

    // Untouched, the same checkpoint resumes.
    let output = resume(&good, None);
    assert_eq!(text(&output.stdout), reference(), "{}", text(&output.stderr));
}

/// A job resumed long after its last commit: the time left `leaper status` gives counts from
/// the resume, not from the commit (it counted the days the job lay stopped as work done, and
/// said 0 s until the next commit).
#[test]
fn a_job_resumed_long_after_its_commit_has_its_time_left_counted_from_the_resume() {
    let dir = crashed_job("stale", "crash@release:30");
    // Steps a million times slower (an estimate of days), committed ten days ago.
    reseal_manifest(&dir, |manifest| {
        let progress = &mut manifest.progress;
        progress.step_micros *= 1_000_000;
        progress.step_timings.iter_mut().for_each(|timing| *timing *= 1_000_000);
        manifest.committed_unix -= 10 * 86_400;
    });
    let stopped = status(&dir);
    assert_eq!(stopped["state"], "stopped");
    let left = stopped["eta_seconds"].as_f64().unwrap_or_else(|| panic!("no estimate: {stopped}"));
    assert!(left > 3_600.0, "{stopped}");

    // Resumed now: a process takes the lock and writes its pid, as leaper does.
    let mut lock = fs::File::options().read(true).write(true).open(dir.join("lock")).unwrap();
    lock.try_lock().unwrap();
    lock.set_len(0).unwrap();
    std::io::Write::write_all(&mut lock, std::process::id().to_string().as_bytes()).unwrap();
    let running = status(&dir);
    assert_eq!(running["state"], "running");
    let running_left = running["eta_seconds"].as_f64().unwrap_or_else(|| panic!("no estimate: {running}"));
    assert!(running_left <= left && left - running_left < 60.0, "stopped: {left} s left; running: {running_left} s");
}

#[test]
fn a_job_directory_belongs_to_one_job_and_one_process() {
    let dir = crashed_job("owned", "crash@layer:5");
    // Starting another job there is refused, and says how to continue the one it holds.
    let output = leaper(&["knight", "6x6", "--job-dir", dir.to_str().unwrap()], None);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr.contains("already holds job knight-6x8-sweep") && stderr.contains("leaper resume"), "{stderr}");

    // While another process holds the lock, resume is refused.
    let lock = fs::File::options().read(true).write(true).open(dir.join("lock")).unwrap();
    lock.try_lock().unwrap();
    assert_eq!(status(&dir)["state"], "running");
    let output = resume(&dir, None);
    assert!(text(&output.stderr).contains("in use by another leaper process"), "{}", text(&output.stderr));
    drop(lock);

    // Files of leaper's no checkpoint names (here: a stray spill) are removed on resume.
    let stray = dir.join("pass-0/layer-000999/spill-0001.raw");
    fs::create_dir_all(stray.parent().unwrap()).unwrap();
    fs::write(&stray, b"left over").unwrap();
    let output = leaper(&["--log-format", "json", "resume", "--job-dir", dir.to_str().unwrap()], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(!stray.exists() && !dir.join("pass-0/layer-000999").exists());
    // Step events carry the job and step spans and the progress fields.
    let stderr = text(&output.stderr);
    let step: serde_json::Value = stderr
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|event| event["message"] == "step done")
        .expect("a step event");
    // Numbers are JSON numbers, sizes in bytes and times in seconds, as collectors want them.
    for field in ["states_in", "states_emitted", "states_out", "layer_bytes", "spilled_bytes", "rate", "peak_rss_bytes"]
    {
        assert!(step[field].is_u64(), "no {field} number in {step}");
    }
    assert!(step["seconds"].is_f64() && step.get("eta_seconds").is_none_or(|eta| eta.is_f64()), "{step}");
    assert!(step["spans"][0]["job"].as_str().unwrap().starts_with("knight-6x8-sweep"), "{step}");
    for field in ["step", "row", "col"] {
        assert!(step["span"].get(field).is_some(), "no {field} in {step}");
    }

    let output = resume(&scratch("nothing-here"), None);
    assert!(text(&output.stderr).contains("holds no leaper job"), "{}", text(&output.stderr));
}

/// Issue 55: `leaper resume --job-dir /tmp` searched /tmp and blamed someone else's symbolic
/// link. A directory without a spec holds no leaper job, said first, as `leaper status` says it;
/// nothing in it is touched.
#[test]
fn a_directory_that_is_no_job_is_named_so_before_anything_in_it_is_read() {
    let dir = scratch("not-a-job");
    fs::create_dir_all(dir.join("someone/else")).unwrap();
    std::os::unix::fs::symlink("/nowhere", dir.join("someone/else/link")).unwrap();
    fs::write(dir.join("notes.txt"), "theirs").unwrap();
    let expected = format!("error: {}: holds no leaper job (job.toml is missing)\n", dir.display());
    for command in ["resume", "status"] {
        let output = leaper(&[command, "--job-dir", dir.to_str().unwrap()], None);
        assert_eq!(output.status.code(), Some(1), "{command}");
        assert_eq!(text(&output.stderr), expected, "{command}");
    }
    assert_eq!(fs::read_to_string(dir.join("notes.txt")).unwrap(), "theirs");
    assert!(fs::symlink_metadata(dir.join("someone/else/link")).is_ok() && !dir.join("lock").exists());
}

/// `job.toml` exactly as leaper 0.1.0 wrote it for `knight 6x8 --sweep --buckets 7 --format json`
/// and for `quarto --lines rows,cols` (format 1: no job kind, no registry names).
const RELEASE_0_1_SWEEP: &str = "# A leaper job. Continue it with `leaper resume --job-dir DIR`; do not edit.
format = 1
id = \"knight-6x8-sweep-6b026d90-399d\"
leaper_version = \"0.1.0\"
created_unix = 1795321232
piece = \"knight\"
moves = \"1,2\"
board = \"6x8\"
sweep = true
verify = false
buckets = 7
mem_limit = 4294967296
output = \"json\"
";
const RELEASE_0_1_SUBTREE: &str = "# A leaper job. Continue it with `leaper resume --job-dir DIR`; do not edit.
format = 1
id = \"quarto-6b026d90-39a4\"
leaper_version = \"0.1.0\"
created_unix = 1795321232
problem = \"quarto\"
params = \"rows,cols\"
output = \"text\"
";

#[test]
fn a_job_directory_of_the_previous_release_is_refused_by_its_format_and_left_alone() {
    for (name, spec) in [("sweep", RELEASE_0_1_SWEEP), ("subtree", RELEASE_0_1_SUBTREE)] {
        let dir = scratch(&format!("release-0-1-{name}"));
        fs::create_dir_all(dir.join("pass-0/layer-000004")).unwrap();
        fs::write(dir.join("job.toml"), spec).unwrap();
        // What the old job had committed: a manifest or a ledger, and its layer's files.
        fs::write(dir.join("manifest.json"), "{\"format\": 1, \"job\": \"knight-6x8-sweep-6b026d90-399d\"}\n").unwrap();
        fs::write(dir.join("pass-0/layer-000004/b0002.lpb"), b"LEAPBKT1 committed states").unwrap();
        let before = snapshot(&dir);
        for args in [vec!["resume", "--job-dir"], vec!["status", "--job-dir"]] {
            let mut args = args.clone();
            args.push(dir.to_str().unwrap());
            let output = leaper(&args, None);
            let stderr = text(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{name} {args:?}: {stderr}");
            assert!(output.stdout.is_empty(), "{name} {args:?}");
            for needle in [
                "job.toml",
                "job format 1, this leaper reads formats 2 to 3",
                "started by leaper 0.1.0",
                "that release",
            ] {
                assert!(stderr.contains(needle), "{name} {args:?}: no {needle:?} in {stderr}");
            }
        }
        // A new job is refused there too, and says what the directory holds.
        let output = leaper(&["knight", "6x6", "--job-dir", dir.to_str().unwrap()], None);
        assert!(text(&output.stderr).contains("already holds a job"), "{}", text(&output.stderr));
        assert!(snapshot(&dir) == before, "{name}: a refused command changed the job directory");
    }
}

/// Issue 55: a finished job's job.toml rewritten by hand to format 2 (which has no checksum),
/// with `verify = true` or `counts = "residues"`, its copy overwritten too, made `leaper resume`
/// print `"verified": true` for counts never verified. The manifest records the spec's format
/// and how the counts were carried: both edits are refused, as they are on an unfinished job,
/// and the directory is left as it was. Sweeps and subtree jobs alike.
#[test]
fn a_finished_job_s_spec_is_protected_as_a_running_one_s() {
    let forged = |dir: &Path, edit: &dyn Fn(String) -> String| {
        let spec = fs::read_to_string(dir.join("job.toml")).unwrap();
        let older: String = spec
            .lines()
            .filter(|line| !line.starts_with("crc32 = "))
            .map(|line| if line == "format = 3" { "format = 2\n".to_string() } else { format!("{line}\n") })
            .collect();
        let forged = edit(older);
        fs::write(dir.join("job.toml"), &forged).unwrap();
        fs::write(dir.join("job.copy.toml"), &forged).unwrap();
    };
    type Edit = fn(String) -> String;
    let sweep_edits: [(&str, Edit); 3] = [
        ("verify", |spec| spec.replacen("verify = false", "verify = true", 1)),
        ("residues", |spec| spec.replacen("counts = \"exact\"", "counts = \"residues\"", 1)),
        ("format alone", |spec| spec),
    ];
    for (name, edit) in sweep_edits {
        let dir = scratch(&format!("finished-spec-{name}"));
        let job = dir.to_str().unwrap();
        let output = leaper(&["knight", "6x6", "--job-dir", job, "--format", "json"], None);
        assert!(output.status.success(), "{}", text(&output.stderr));
        assert_eq!(
            text(&output.stdout),
            format!(r#"{{"problem":"knight","board":"6x6","tours":"closed","count":"{}"}}"#, known("knight 6x6"))
                + "\n"
        );
        forged(&dir, &edit);
        let before = snapshot(&dir);
        let output = leaper(&["resume", "--job-dir", job, "--format", "json"], None);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert_eq!(text(&output.stdout), "", "{name}: printed a count");
        assert!(stderr.contains("is of job format 2, but the job was started with format 3"), "{name}: {stderr}");
        assert!(snapshot(&dir) == before, "{name}: a refused resume changed the job directory");
    }
    // A subtree job's ledger records the format too.
    let dir = scratch("finished-spec-subtree");
    let job = dir.to_str().unwrap();
    let output = leaper(&["quarter", "8", "--by-start", "--job-dir", job], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    forged(&dir, &|spec| spec);
    let output = leaper(&["resume", "--job-dir", job], None);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("started with job format 3, but its job.toml is now of format 2"), "{stderr}");
}

/// The seeded campaign of issue 55 on a finished job's spec: random hand edits of job.toml
/// (values changed, with the checksum kept, dropped, or forged; the format lowered; the copy
/// overwritten or not). A resume either refuses, changing nothing, or prints the job's count
/// exactly as it was counted: never a flag or a count the job did not earn.
#[test]
fn a_seeded_campaign_of_hand_edits_to_a_finished_job_s_spec() {
    use leaper_core::engine::jobdir::JobSpec;
    let dir = scratch("finished-spec-campaign");
    let job = dir.to_str().unwrap();
    let output = leaper(&["knight", "6x6", "--job-dir", job, "--format", "json"], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let counted = text(&output.stdout);
    assert_eq!(
        counted,
        format!(r#"{{"problem":"knight","board":"6x6","tours":"closed","count":"{}"}}"#, known("knight 6x6")) + "\n"
    );
    let original = (fs::read(dir.join("job.toml")).unwrap(), fs::read(dir.join("job.copy.toml")).unwrap());
    let mut state = 55_u64;
    let mut random = move |bound: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) % bound as u64) as usize
    };
    // (section, key, another value): what a hand might change.
    let values: [(&str, &str, toml::Value); 7] = [
        ("sweep", "verify", toml::Value::Boolean(true)),
        ("sweep", "counts", toml::Value::String("residues".into())),
        ("sweep", "buckets", toml::Value::Integer(7)),
        ("sweep", "mem_limit", toml::Value::Integer(1 << 26)),
        ("params", "board", toml::Value::String("6x8".into())),
        ("params", "tours", toml::Value::String("open".into())),
        ("run", "format", toml::Value::String("text".into())),
    ];
    let (mut refused, mut printed) = (0, 0);
    for round in 0..20 {
        fs::write(dir.join("job.toml"), &original.0).unwrap();
        fs::write(dir.join("job.copy.toml"), &original.1).unwrap();
        let mut spec = JobSpec::load(&dir).unwrap();
        let (section, key, value) = &values[random(values.len())];
        spec.body.get_mut(*section).and_then(|t| t.as_table_mut()).unwrap().insert(key.to_string(), value.clone());
        let lowered = random(2) == 0;
        if lowered {
            spec.header.format = 2;
        }
        // Written by leaper's own code (a valid checksum), then maybe spoiled by hand.
        spec.write(&dir).unwrap();
        let mut written = fs::read_to_string(dir.join("job.toml")).unwrap();
        match random(3) {
            0 => {}
            1 => written = written.lines().filter(|l| !l.starts_with("crc32")).map(|l| format!("{l}\n")).collect(),
            _ => written = written.replacen("crc32 = ", "crc32 = 1", 1),
        }
        fs::write(dir.join("job.toml"), &written).unwrap();
        if random(2) == 0 {
            fs::write(dir.join("job.copy.toml"), &written).unwrap();
        }
        let before = snapshot(&dir);
        let output = leaper(&["resume", "--job-dir", job], None);
        let what = format!("round {round}: [{section}] {key} = {value}, format {}", if lowered { 2 } else { 3 });
        if output.status.success() {
            printed += 1;
            let stdout = text(&output.stdout);
            let same = stdout == counted || stdout == known_line("knight 6x6");
            assert!(same, "{what}: printed {stdout}");
            assert!(!text(&output.stderr).contains("verified"), "{what}: {}", text(&output.stderr));
            assert!(!lowered, "{what}: a lowered format was accepted");
        } else {
            refused += 1;
            assert_eq!(output.status.code(), Some(1), "{what}: {}", text(&output.stderr));
            assert!(output.stdout.is_empty(), "{what}");
            assert!(snapshot(&dir) == before, "{what}: a refused resume changed the job directory");
        }
    }
    assert!(refused > 0 && printed > 0, "refused {refused}, printed {printed}");
}
