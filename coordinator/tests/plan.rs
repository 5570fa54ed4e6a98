//! `leaper plan`: its predictions against the measured truth, and its refusals.

mod common;

use std::process::{Command, Output};

use leaper_coordinator::plan::estimate::SHUFFLE_SECONDS_PER_STATE;
use leaper_core::engine::sweep::{sweep_in_memory, SweepOptions};
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::{tours, TourKind};
use serde_json::Value;

/// How far a prediction may stray from the truth, either way (docs/FLAGSHIP.md).
const TRUST: f64 = 2.0;

/// Runs `leaper ARGS --scratch DIR` and checks that the probe left nothing in DIR.
fn leaper(args: &[&str]) -> Output {
    let scratch = common::scratch_dir("plan-probe");
    let mut command = Command::new(env!("CARGO_BIN_EXE_leaper"));
    command.args(args).args(["--scratch", scratch.to_str().unwrap()]).env("RUST_LOG", "warn");
    let output = command.output().expect("leaper runs");
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0, "the probe left files behind");
    output
}

fn plan(args: &[&str]) -> Value {
    let mut all = vec!["plan"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let output = leaper(&all);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

/// The peak layer and the states read of a single knight board, counted in memory.
fn measured(width: usize, rows: usize) -> (u64, u64) {
    measured_tours(width, rows, TourKind::Closed)
}

fn measured_tours(width: usize, rows: usize, kind: TourKind) -> (u64, u64) {
    let job = tours(Geometry::new(width, rows, MoveSet::knight()), rows, kind).unwrap();
    let report = sweep_in_memory(job.as_ref(), &SweepOptions::default(), 61, 8 << 30).unwrap();
    (report.profile.iter().copied().max().unwrap(), report.states_processed)
}

fn within(predicted: f64, truth: f64, what: &str) {
    within_of(TRUST, predicted, truth, what);
}

/// Whether `predicted` is within a factor `trust` of `truth`, either way.
fn within_of(trust: f64, predicted: f64, truth: f64, what: &str) {
    let ratio = predicted / truth;
    eprintln!("{what}: predicted {predicted:.3e}, measured {truth:.3e}, ratio {ratio:.2}");
    assert!(
        (1.0 / trust..=trust).contains(&ratio),
        "{what}: predicted {predicted}, measured {truth}, ratio {ratio:.2}"
    );
}

#[test]
fn predicted_peaks_and_work_are_within_a_factor_of_two_up_to_8x8() {
    // Probes stopped early on purpose (two rows, then 10^5 states), so most of the run is
    // predicted; the truth is counted here.
    for (width, rows) in [(7, 8), (6, 10), (6, 12)] {
        let plan = plan(&["knight", &format!("{width}x{rows}"), "--probe-states", "100000"]);
        assert_eq!(plan["probe_finished"], false, "{width}x{rows}: the probe ran the whole sweep");
        let (peak, work) = measured(width, rows);
        within(plan["peak_states"].as_f64().unwrap(), peak as f64, &format!("{width}x{rows} peak"));
        within(plan["expansions"].as_f64().unwrap(), work as f64, &format!("{width}x{rows} states read"));
    }
    // Open tours: their row 3 keeps less of row 2's growth (the problem's ProfileHint says so).
    let open = plan(&["knight", "6x8", "--open", "--probe-states", "100000"]);
    assert_eq!(open["probe_finished"], false);
    let (peak, work) = measured_tours(6, 8, TourKind::Open);
    within(open["peak_states"].as_f64().unwrap(), peak as f64, "6x8 open peak");
    within(open["expansions"].as_f64().unwrap(), work as f64, "6x8 open states read");
    // 8x8: the truth of `leaper knight 8x8` (docs/PERFORMANCE.md, the table at the top): a peak
    // layer of 97,147,304 states, 779,991,057 states read (since the chains of forced edges:
    // 97,821,977 and 860,618,119 before). `eight_by_eight_plan_against_a_count` measures it again.
    let plan = plan(&["knight", "8x8"]);
    within(plan["peak_states"].as_f64().unwrap(), 97_147_304.0, "8x8 peak");
    within(plan["expansions"].as_f64().unwrap(), 779_991_057.0, "8x8 states read");
}

/// What a width-9 run measured: its peak layer, its states read, and its disk at the heaviest
/// step (the layer read, whole until the step commits, and the larger of the layer written and
/// the step's spill: docs/PERFORMANCE-LOG.md, "The costs of a plan").
struct WidthNineRun {
    job: &'static [&'static str],
    peak: f64,
    read: f64,
    disk: f64,
}

/// The dress rehearsal (docs/FLAGSHIP.md, "The dress rehearsal"): `leaper knight 9x8 --sweep
/// --job-dir D --mem-limit 14GiB`. Its heaviest step, 35, read 1,475,605,063 states at 2.72
/// bytes and wrote 1,863,164,937 at 2.11 (a spill of 3,408 MiB): 7.94e9 bytes, where the disk
/// was sampled at 7.4 GiB.
const NINE_BY_EIGHT: WidthNineRun = WidthNineRun {
    job: &["knight", "9x8", "--sweep"],
    peak: 1_863_164_937.0,
    read: 17_409_845_077.0,
    disk: 1_475_605_063.0 * 2.72 + 1_863_164_937.0 * 2.11,
};

/// The 9 x 10 run (docs/FLAGSHIP.md, "The 9 x 10 run"): `leaper knight 9x10 --counts residues
/// --verify --job-dir D --mem-limit 14GiB`. Its heaviest step, 44, read 10.3 GiB and wrote 10.1
/// GiB with a spill of 11.3 GiB: 21.6 GiB.
const NINE_BY_TEN: WidthNineRun = WidthNineRun {
    job: &["knight", "9x10", "--counts", "residues", "--verify"],
    peak: 3_288_397_307.0,
    read: 58_905_100_760.0,
    disk: (10.3 + 11.3) * (1u64 << 30) as f64,
};

/// The 9 x 12 run (docs/FLAGSHIP.md, "The 9 x 12 run"): `leaper knight 9x12 --sweep --verify
/// --job-dir D --mem-limit 12GiB`, exact 128-bit counts and a spare residue. Its heaviest step,
/// 62, read step 61's layer of 16.6 GiB and spilled 20.5 GB (more than the 19.5 GB it wrote).
const NINE_BY_TWELVE: WidthNineRun = WidthNineRun {
    job: &["knight", "9x12", "--sweep", "--verify"],
    peak: 3_461_242_671.0,
    read: 102_755_672_093.0,
    disk: 16.6 * (1u64 << 30) as f64 + 20.5e9,
};

#[test]
fn the_two_row_probe_of_width_nine_comes_within_a_quarter_of_the_runs() {
    // The default probe: two rows of 9 (18 steps, a few seconds), then the model; on one
    // worker with the runs' memory limit, so that its heaviest step spills as theirs did.
    for run in [NINE_BY_EIGHT, NINE_BY_TEN, NINE_BY_TWELVE] {
        let mut args = run.job.to_vec();
        args.extend(["--mem-per-worker", "14GiB"]);
        let plan = plan(&args);
        assert_eq!(plan["probe_steps"], 18, "{:?}", run.job);
        let one = &plan["costs"].as_array().unwrap()[0];
        assert_eq!((one["workers"].as_u64(), one["spills"].as_bool()), (Some(1), Some(true)), "{one}");
        let name = run.job[1];
        within_of(1.25, plan["peak_states"].as_f64().unwrap(), run.peak, &format!("{name} peak"));
        within_of(1.25, plan["expansions"].as_f64().unwrap(), run.read, &format!("{name} states read"));
        within_of(1.25, one["disk_per_worker"].as_f64().unwrap(), run.disk, &format!("{name} disk"));
    }
}

#[test]
fn a_sweep_and_its_longest_board_are_priced_alike_and_the_plan_says_so() {
    // 7 x 12: the sweep read 224.0 M states in its two passes, the board alone 223.3 M.
    let (board, sweep) = (plan(&["knight", "7x12"]), plan(&["knight", "7x12", "--sweep"]));
    for what in ["peak_states", "expansions"] {
        let (a, b) = (board[what].as_f64().unwrap(), sweep[what].as_f64().unwrap());
        assert!((a / b - 1.0).abs() < 0.01, "{what}: the board {a}, the sweep {b}");
    }
    let notes = |plan: &Value| -> Vec<String> {
        plan["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
    };
    let said = "a sweep costs what its longest board alone costs";
    assert!(
        notes(&board)[0].starts_with(said)
            && notes(&board)[0].ends_with("`knight 7x12 --sweep` counts 7x1 to 7x12 for these figures"),
        "{board}"
    );
    assert_eq!(notes(&sweep).len(), 1, "{sweep}");
    assert!(notes(&sweep)[0].ends_with("this one, 7 wide, counts 7x1 to 7x12 for the cost of 7x12 alone"), "{sweep}");
    // The board written the other way round runs 7 wide too; a sweep along the longer side
    // names the single board, which runs along it.
    let text = plan_text(&["knight", "12x7", "--probe-states", "1000"]);
    assert!(
        line(&text, "note      ").ends_with("`knight 7x12 --sweep` counts 7x1 to 7x12 for these figures"),
        "{text}"
    );
    let text = plan_text(&["knight", "7x5", "--sweep"]);
    assert!(
        text.contains(
            "note      the single board 7x5 runs 5 wide instead, along its longer side: `leaper plan knight 7x5`"
        ),
        "{text}"
    );
}

#[test]
#[ignore = "counts 8x8 in memory: about 3 minutes and 3.5 GiB"]
fn eight_by_eight_plan_against_a_count() {
    let plan = plan(&["knight", "8x8"]);
    let (peak, work) = measured(8, 8);
    assert_eq!((peak, work), (97_147_304, 779_991_057));
    within(plan["peak_states"].as_f64().unwrap(), peak as f64, "8x8 peak");
    within(plan["expansions"].as_f64().unwrap(), work as f64, "8x8 states read");
}

#[test]
fn a_probe_that_runs_the_whole_sweep_makes_an_exact_plan() {
    let plan = plan(&["knight", "6x6", "--probe-states", "100000000"]);
    assert_eq!(plan["probe_finished"], true);
    let (peak, work) = measured(6, 6);
    assert_eq!(plan["peak_states"].as_u64(), Some(peak));
    assert_eq!(plan["expansions"].as_u64(), Some(work));
    // Priced for 1, 4, 8 and 32 workers and the 3 asked for, disk falling as workers are added.
    let plan = self::plan(&["knight", "6x6", "--workers", "3", "--disk-per-worker", "1KiB"]);
    let workers: Vec<u64> = plan["costs"].as_array().unwrap().iter().map(|c| c["workers"].as_u64().unwrap()).collect();
    assert_eq!(workers, [1, 3, 4, 8, 32]);
    let disk: Vec<u64> =
        plan["costs"].as_array().unwrap().iter().map(|c| c["disk_per_worker"].as_u64().unwrap()).collect();
    assert!(disk.windows(2).all(|w| w[0] >= w[1]), "{disk:?}");
    let needed = plan["workers_needed"].as_u64().unwrap();
    assert_eq!(plan["fits"], Value::Bool(needed <= 3));
}

/// Issue 58: `--workers` was a number in `plan` and a list of addresses in a count; the plan
/// takes either, the list priced by its length, so a count's command line prices as it stands.
#[test]
fn plan_takes_a_number_of_workers_or_a_count_s_list_of_them() {
    let costs = |plan: &Value| -> Vec<u64> {
        plan["costs"].as_array().unwrap().iter().map(|c| c["workers"].as_u64().unwrap()).collect()
    };
    let by_number = plan(&["knight", "6x6", "--workers", "3"]);
    let by_list = plan(&["knight", "6x6", "--workers", "127.0.0.1:57201,h2:7101,[::1]:7101"]);
    assert_eq!(costs(&by_number), [1, 3, 4, 8, 32]);
    assert_eq!(costs(&by_list), [1, 3, 4, 8, 32]);
    assert_eq!(by_list["workers"], 3);
    let one = plan(&["knight", "6x6", "--workers=127.0.0.1:57201"]);
    assert_eq!(one["workers"], 1);
    for (workers, says) in [
        ("h1:7101,h1:7101", "h1:7101 is listed twice: list each worker once"),
        ("eight", "\"eight\" is neither a number of workers (`--workers 8`) nor a worker's address"),
        ("h1:7101,", "\"\" is neither a number of workers"),
        ("0", "0 workers: a plan prices 1 to 100000"),
    ] {
        let output = leaper(&["plan", "knight", "6x6", "--workers", workers]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success() && stderr.contains(says), "{workers}: {stderr}");
    }
    // Both helps say so.
    // Clap wraps the help to the terminal: read it as one line.
    let help = common::one_line(&String::from_utf8_lossy(&leaper(&["plan", "--help"]).stdout));
    assert!(help.contains("--workers <N|ADDR,...>") && help.contains("the count's own list"), "{help}");
    let help = Command::new(env!("CARGO_BIN_EXE_leaper")).args(["knight", "--help"]).output().unwrap();
    let help = common::one_line(&String::from_utf8_lossy(&help.stdout));
    assert!(help.contains("`leaper plan` prices the same list"), "{help}");
}

#[test]
fn width_ten_is_planned_with_wide_keys() {
    let plan = plan(&["knight", "10x3", "--sweep", "--counts", "residues"]);
    assert_eq!(plan["key_bits"], 128);
    assert_eq!(plan["counts"]["exact_first"], false);
    assert_eq!(plan["probe_finished"], true);
}

#[test]
#[ignore = "probes two rows of width 10: about 3 minutes"]
fn ten_by_ten_is_planned() {
    // Each step of the two rows probed (the default probe stops before a step of 8 M states).
    let plan = plan(&["knight", "10x10", "--counts", "residues", "--probe-states", "30000000"]);
    assert_eq!(plan["key_bits"], 128);
    assert!(plan["peak_states"].as_f64().unwrap() > 1e11, "{plan}");
}

#[test]
fn what_cannot_be_planned_is_refused_by_name() {
    for (args, says) in [
        (&["plan"][..], "needs a job"),
        (&["plan", "quarto"][..], "search"),
        (&["plan", "knight", "6x6", "--job-dir", "somewhere"][..], "--job-dir"),
        (&["plan", "resume", "--job-dir", "x"][..], "not a command of leaper's own"),
    ] {
        let output = leaper(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success() && stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// `leaper plan ARGS` as a person reads it.
fn plan_text(args: &[&str]) -> String {
    let mut all = vec!["plan"];
    all.extend_from_slice(args);
    let output = leaper(&all);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// The line of `text` that starts with `label`.
fn line<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines().find(|line| line.starts_with(label)).unwrap_or_else(|| panic!("no {label:?} line in\n{text}"))
}

/// Whether `text` is a duration as the plan writes one: `0.2 s`, `90 s`, `15 min`, `5.4 h`, ...
fn is_duration(text: &str) -> bool {
    let (number, unit) = text.split_once(' ').unwrap_or_default();
    number.parse::<f64>().is_ok() && ["s", "min", "h", "days", "years"].contains(&unit)
}

#[test]
fn the_plan_says_whether_the_count_fits_this_machine_and_how_many_passes_follow() {
    let text = plan_text(&["knight", "6x6", "--workers", "1", "--disk-per-worker", "1TiB"]);
    // 1,663 states at the peak, 16 bytes each, 1.05 times that needed in memory (27.3 KiB), 2.1
    // times that held (54.6 KiB), the store keeping its tables: far below its limit.
    assert!(line(&text, "memory    ").starts_with("memory    27.3 KiB to count in memory at least"), "{text}");
    let machine = line(&text, "machine   ");
    let time = machine
        .strip_prefix("machine   fits this machine in memory (54.6 KiB of ")
        .and_then(|rest| rest.split_once(" available): just run it, about "))
        .map(|(_, time)| time)
        .unwrap_or_else(|| panic!("{machine}"));
    assert!(is_duration(time), "{machine}");
    assert_eq!(line(&text, "passes    "), "passes    1 pass: the times below are the whole count's");
    // Singular where there is one.
    assert!(line(&text, "plan      ").ends_with("64-bit keys, 1 residue a state, 1 pass"), "{text}");
    assert_eq!(line(&text, "verdict   "), "verdict   1 worker with 1.0 TiB of disk each: fits; 1 such worker holds it");
    // A count too big for its memory limit says where to count it instead. (The peak predicted
    // from two rows, 4.92e6 states of 16 bytes at 1.05 times their size; the count's own peak is
    // 4,382,863 states, 70.2 MiB.)
    let text = plan_text(&["knight", "7x10", "--mem-limit", "64MiB", "--probe-states", "1"]);
    let machine = line(&text, "machine   ");
    let time = machine
        .strip_prefix(
            "machine   does not fit this machine in memory (78.8 MiB needed, 64.0 MiB for a count in memory): \
             count out of core with --job-dir DIR (disk below) or on workers; about ",
        )
        .and_then(|rest| rest.strip_suffix(" on this machine"))
        .unwrap_or_else(|| panic!("{machine}"));
    assert!(is_duration(time), "{machine}");
    // An exact pass first, a residue pass only if it saturates; or residue passes one by one.
    let text = plan_text(&["knight", "6x12", "--probe-states", "1000"]);
    assert!(line(&text, "plan      ").ends_with("64-bit keys, exact 64-bit counts, 1 pass"), "{text}");
    assert_eq!(
        line(&text, "passes    "),
        "passes    1 pass of exact 64-bit counts (1 word a state), whose times are below; then 1 residue pass only \
         if a count reaches 2^64 - 1 (--counts residues skips the exact pass for counts known to pass it)"
    );
    // Where the bound says the counts may pass 2^64, 128 bits; with --verify, a spare residue.
    let text = plan_text(&["knight", "7x12", "--probe-states", "1000", "--verify"]);
    assert!(line(&text, "plan      ").ends_with("exact 128-bit counts and 1 spare residue, 1 pass"), "{text}");
    assert!(
        line(&text, "passes    ")
            .starts_with("passes    1 pass of exact 128-bit counts and 1 spare residue (3 words a state)"),
        "{text}"
    );
    assert!(line(&text, "passes    ").contains("then 1 residue pass only if a count reaches 2^128 - 1"), "{text}");
    let plan = plan(&["knight", "7x12", "--probe-states", "1000", "--counts", "exact64"]);
    assert_eq!(
        (plan["counts"]["exact_bits"].as_u64(), plan["counts"]["lanes"].as_u64()),
        (Some(64), Some(1)),
        "{plan}"
    );
    let text =
        plan_text(&["knight", "6x12", "--probe-states", "1000", "--counts", "residues", "--moduli-per-pass", "1"]);
    assert!(line(&text, "plan      ").ends_with("1 residue a state, 2 passes"), "{text}");
    assert_eq!(
        line(&text, "passes    "),
        "passes    2 passes, one after another: the times below are per pass, 2 times that in all"
    );
}

#[test]
fn worker_times_include_the_shuffle_and_a_finished_probe_still_prices_its_disk() {
    // `scripts/nine-by-ten --board 6x6`: the probe runs the whole sweep, whose last layer is empty.
    let text = plan_text(&["knight", "6x6", "--counts", "residues", "--workers", "2"]);
    assert!(!text.contains(" 0 B") && !text.contains("0.00 bytes"), "{text}");
    assert!(line(&text, "  workers").contains("  shuffle  "), "{text}");
    let plan = plan(&["knight", "6x6", "--counts", "residues", "--workers", "2"]);
    assert!(plan["disk_bytes_per_state"].as_f64().unwrap() > 1.0, "{plan}");
    for cost in plan["costs"].as_array().unwrap() {
        let (workers, shuffle) =
            (cost["workers"].as_u64().unwrap(), cost["shuffle_seconds_per_pass"].as_f64().unwrap());
        assert!(cost["disk_per_worker"].as_u64().unwrap() > 0, "{cost}");
        if workers == 1 {
            assert_eq!(shuffle, 0.0);
        } else {
            assert!(shuffle > 0.0 && cost["seconds_per_pass"].as_f64().unwrap() > shuffle, "{cost}");
        }
    }
    // Spelled out under the table, measured and assumed.
    let processor = format!("{:.3} us a state read on each worker", SHUFFLE_SECONDS_PER_STATE * 1e6);
    assert!(text.contains(&format!("time per pass includes the shuffle: {processor} and ")), "{text}");
    assert!(text.contains("measured on workers linked at 1 Gbit/s, 100 Mbit/s and 10 Mbit/s"), "{text}");
    assert!(text.contains("over an assumed 1Gbit/s link each way"), "{text}");
}

#[test]
fn the_link_is_priced_as_given_and_a_bad_one_is_refused_by_name() {
    let job = ["knight", "6x6", "--counts", "residues", "--workers", "3"];
    let at = |link: &str| {
        let mut args = job.to_vec();
        args.extend(["--link", link]);
        let plan = plan(&args);
        let three = plan["costs"].as_array().unwrap().iter().find(|cost| cost["workers"] == 3).unwrap().clone();
        (plan, three)
    };
    let (fast_plan, fast) = at("10Gbit");
    let (slow_plan, slow) = at("1kbit");
    assert_eq!((fast_plan["link_given"].as_bool(), fast["link"]["bits_per_second"].as_f64()), (Some(true), Some(1e10)));
    // The same bytes sent; a link of 1 kbit/s (90 bytes a second for records) outlasts the work.
    let sent = slow["sent_bytes_per_worker"].as_f64().unwrap();
    assert!(sent > 0.0 && sent == fast["sent_bytes_per_worker"].as_f64().unwrap(), "{slow} {fast}");
    let link = slow["link_seconds_per_pass"].as_f64().unwrap();
    assert!(link > 0.9 * sent / 90.0 && link <= sent / 90.0, "{slow}");
    assert_eq!(fast["link_seconds_per_pass"].as_f64(), Some(0.0), "{fast}");
    assert!(
        slow["seconds_per_pass"].as_f64().unwrap() > fast["seconds_per_pass"].as_f64().unwrap() + 0.9 * sent / 90.0
    );
    assert_eq!(slow_plan["wire_bytes_per_record"], fast_plan["wire_bytes_per_record"]);
    let mut args = job.to_vec();
    args.extend(["--link", "10Mbit"]);
    assert!(plan_text(&args).contains("over a 10Mbit/s link each way"));
    for (link, says) in [("1Gbps", "bytes a second"), ("100", "no unit"), ("fast", "unknown unit")] {
        let mut args = vec!["plan"];
        args.extend(job);
        args.extend(["--link", link]);
        let output = leaper(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success() && stderr.contains(says) && stderr.contains(link), "{link}: {stderr}");
    }
}

/// Runs `leaper ARGS` in `dir` until `done` says so of a line of its stderr (or of the files it
/// made), then stops it; returns the stderr read.
fn run_until(dir: &std::path::Path, args: &[&str], done: &dyn Fn(&str) -> bool) -> Vec<String> {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(args)
        .current_dir(dir)
        .env("RUST_LOG", "info")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("leaper runs");
    let mut lines = Vec::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        let stop = done(&line);
        lines.push(line);
        if stop {
            break;
        }
    }
    let _ = child.kill();
    child.wait().unwrap();
    lines
}

#[test]
fn the_plan_the_warning_and_the_status_quote_one_forecast() {
    // 7 x 10 is priced before it counts (a frontier of 14 cells); its peak, 4.38 M states, is past
    // the probe's 4 M, so the figures are predicted, not counted.
    // Two threads: the out-of-core store's buffers on more would need more than 64 MiB.
    let job = ["knight", "7x10", "--mem-limit", "64MiB", "--threads", "2"];
    let text = plan_text(&job);
    let after = |label: &str, until: &str| line(&text, label)[10..].split(until).next().unwrap().to_string();
    let (peak, memory) = (after("peak      ", " states"), after("memory    ", " to count in memory"));
    let dir = common::scratch("one-forecast");
    std::fs::create_dir_all(&dir).unwrap();
    // In memory, over its limit: the warning, with the plan's figures, before the first step.
    let stderr = run_until(&dir, &job, &|line| line.starts_with("warning: ") || line.contains("step done"));
    let warning = stderr.last().unwrap();
    assert!(
        warning.starts_with(&format!(
            "warning: knight 7x10 needs about {peak} states at its peak ({memory} in memory, where a count may hold \
             64.0 MiB here)"
        )),
        "plan: {peak} states, {memory}; {stderr:#?}"
    );
    // With a job directory: the forecast kept, and `leaper status` quoting it.
    let mut counted = job.to_vec();
    counted.extend(["--job-dir", "job"]);
    let plan_file = dir.join("job").join("plan.json");
    run_until(&dir, &counted, &|line| line.contains("step done") && plan_file.exists());
    let status = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["status", "--job-dir", dir.join("job").to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let status: Value = serde_json::from_slice(&status.stdout).expect("one JSON object");
    let (kept, planned) = (&status["plan"], &plan(&job)["forecast"]);
    for figure in ["peak_states", "peak_step", "states_read", "runs", "memory", "memory_held", "disk", "mem_limit"] {
        assert!(kept[figure].is_u64(), "{figure}: {status}");
        assert_eq!(kept[figure], planned[figure], "{figure}: kept {kept}, planned {planned}");
    }
    // The time rests on each probe's measured rate: the same machine, moments apart.
    let (kept_s, planned_s) = (kept["seconds"].as_f64().unwrap(), planned["seconds"].as_f64().unwrap());
    within_of(3.0, kept_s, planned_s, "seconds");
    let text = String::from_utf8(
        Command::new(env!("CARGO_BIN_EXE_leaper"))
            .args(["status", "--job-dir", dir.join("job").to_str().unwrap()])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(line(&text, "plan      ").starts_with(&format!("plan      peak {peak} states (step ")), "{text}");
}

/// The peak layer and the states read of `quarter SIDE`, counted in memory.
fn measured_quarter(side: usize) -> (u64, u64) {
    use leaper_core::engine::{Job, Problem};
    let params =
        toml::from_str(&format!("side = {side}\nenumerate = false\nby_start = false\nparkin = false")).unwrap();
    let task = leaper_core::problems::quartering::QuarterProblem.task(&params).unwrap();
    let Ok(Job::Sweep(job)) = task.job() else { panic!("quarter {side} is a sweep") };
    let report = sweep_in_memory(job.as_ref(), &SweepOptions::default(), 61, 8 << 30).unwrap();
    (report.profile.iter().copied().max().unwrap(), report.states_processed)
}

/// Issue 58: a sweep without rows (the quartering's) was priced by a probe of its own, which the
/// model cannot extend: `plan quarter 40` probed for a minute, then gave up. It is priced from
/// its smaller boards counted in full, and says so.
#[test]
fn a_sweep_without_rows_is_priced_from_its_smaller_instances() {
    let (peak, work) = measured_quarter(24);
    assert_eq!((peak, work), (2_396_794, 48_210_895));
    // Two sizes on from quarter 20 (the default budget, 4 M states read), four from quarter 16
    // (300,000): the peak within 1% (measured: 0.999 and 1.007 times), the states read high, as
    // the last growth taken on says (1.04 and 1.27 times: the growth slows, 4.26 a size from 18
    // to 20, 4.16 from 22 to 24).
    for (budget, top, sizes_on, trust) in [("4000000", "quarter 20", 2, 1.1), ("300000", "quarter 16", 4, 1.4)] {
        let plan = plan(&["quarter", "24", "--probe-states", budget]);
        assert_eq!(plan["probe_finished"], false, "{plan}");
        let rungs = plan["ladder"]["rungs"].as_array().unwrap();
        assert_eq!((rungs[0]["name"].as_str(), rungs.last().unwrap()["name"].as_str()), (Some("quarter 2"), Some(top)));
        assert_eq!(plan["ladder"]["sizes_on"], sizes_on);
        let source = format!("extrapolated from quarter 2 to {top}, counted in full");
        assert_eq!(plan["forecast"]["extrapolated"].as_str(), Some(source.as_str()));
        within_of(1.02, plan["peak_states"].as_f64().unwrap(), peak as f64, &format!("quarter 24 peak from {top}"));
        let read = plan["expansions"].as_f64().unwrap();
        within_of(trust, read, work as f64, &format!("quarter 24 states read from {top}"));
        assert!(read >= work as f64, "{read}");
    }
    // Counted whole where it fits the budget: exact.
    let small = plan(&["quarter", "12"]);
    assert_eq!((small["probe_finished"].as_bool(), small["peak_states"].as_u64()), (Some(true), Some(681)));
    assert!(small.get("ladder").is_none(), "{small}");
    // quarter 40 (752 steps): from the same boards, 10 sizes on. Its peak is quarter 24's grown
    // 8 sizes at 3.8 to 4.0 times a size (the peak grows 3.89 to 3.90 times from 10 to 28).
    let text = plan_text(&["quarter", "40"]);
    let probe = line(&text, "probe     ");
    assert!(
        probe.starts_with("probe     none of its steps: extrapolated from quarter 2 to quarter 20, counted in full: ")
            && probe.contains(
                "then 10 sizes on at 3.89 times the peak and 4.26 times the states read a size, as from \
                               quarter 18 to quarter 20"
            ),
        "{text}"
    );
    let plan = plan(&["quarter", "40"]);
    let forty = plan["peak_states"].as_f64().unwrap();
    assert!((peak as f64 * 3.8f64.powi(8)..peak as f64 * 4.0f64.powi(8)).contains(&forty), "{forty}");
    assert_eq!(plan["steps"], 752);
    assert!(plan["expansions"].as_f64().unwrap() > 20.0 * forty, "{plan}");
}

/// Issue 58: `leaper quarter 40` started without a warning and ran 10 minutes to 4.1 GB. It warns
/// before its first step with the plan's figures, in memory and with a job directory, whose
/// status quotes the same forecast.
#[test]
fn quarter_40_warns_before_its_first_step_with_the_plan_s_figures() {
    let text = plan_text(&["quarter", "40"]);
    let after = |label: &str, until: &str| line(&text, label)[10..].split(until).next().unwrap().to_string();
    let (peak, memory) = (after("peak      ", " states"), after("memory    ", " to count in memory"));
    let dir = common::scratch("quarter-40");
    std::fs::create_dir_all(&dir).unwrap();
    let stderr =
        run_until(&dir, &["quarter", "40"], &|line| line.starts_with("warning: ") || line.contains("step done"));
    let warning = stderr.last().unwrap();
    assert!(
        warning.starts_with(&format!("warning: quarter 40 needs about {peak} states at its peak ({memory} in memory, "))
            && warning.ends_with(
                " on this machine (extrapolated from quarter 2 to quarter 20, counted in full); see `leaper plan quarter \
                 40`"
            ),
        "plan: {peak} states, {memory}; {stderr:#?}"
    );
    let job = ["quarter", "40", "--job-dir", "job"];
    let plan_file = dir.join("job").join("plan.json");
    // Stopped at its first step, by which its directory keeps the forecast.
    let stderr = run_until(&dir, &job, &|line| line.contains("step done"));
    let warning = stderr.iter().position(|line| line.starts_with("warning: "));
    let warning = warning.unwrap_or_else(|| panic!("no warning before the first step: {stderr:#?}"));
    assert!(stderr[warning].starts_with(&format!("warning: quarter 40 needs about {peak} states at its peak (")));
    assert!(stderr[warning].contains(" on disk, where "), "{}", stderr[warning]);
    assert!(plan_file.exists(), "{stderr:#?}");
    let status = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["status", "--job-dir", dir.join("job").to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let status: Value = serde_json::from_slice(&status.stdout).expect("one JSON object");
    let (kept, planned) = (&status["plan"], &plan(&["quarter", "40"])["forecast"]);
    for figure in ["peak_states", "peak_step", "states_read", "runs", "memory", "disk", "mem_limit", "extrapolated"] {
        assert!(!kept[figure].is_null(), "{figure}: {status}");
        assert_eq!(kept[figure], planned[figure], "{figure}: kept {kept}, planned {planned}");
    }
}

/// The states each step of `leaper ARGS` read, from its JSON log, and what it printed.
fn states_read_by_step(args: &[&str]) -> (Vec<u64>, String) {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--log-format", "json"]);
    let output = common::leaper(&all, None);
    assert!(output.status.success(), "{args:?}: {}", common::text(&output.stderr));
    let read = common::text(&output.stderr)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["message"] == "step done")
        .map(|event| event["states_in"].as_u64().unwrap())
        .collect();
    (read, common::text(&output.stdout))
}

/// Issue 58: a graph's sweep (a board with squares removed is counted as its graph) has no rows,
/// and `leaper plan` gave up past its probe. Past a probe stopped early on purpose, its layers
/// are guessed from its frontier's widths, within the 7 times the plan says of its peak and
/// the states read; a probe that runs the whole sweep is exact.
#[test]
fn a_graph_s_layers_are_guessed_from_its_frontier_s_widths() {
    let dir = common::scratch("graph-widths");
    std::fs::create_dir_all(&dir).unwrap();
    // The 12 x 12 grid graph's cycles (A003763), counted, then planned from 2,000 states.
    let grid = dir.join("grid12.dimacs");
    std::fs::write(&grid, common::grid_dimacs(12, 12)).unwrap();
    let grid = grid.to_str().unwrap();
    let knight = |board: &'static str, removed: &'static str| vec!["knight", board, "--remove", removed];
    for (job, probe_states) in [
        (vec!["graph", grid], "2000"),
        (knight("7x7", "a1"), "20000"),
        (knight("8x6", "a1,b1"), "20000"),
        (knight("6x8", "a1,b1"), "20000"),
    ] {
        let (read, printed) = states_read_by_step(&job);
        if job[0] == "graph" {
            assert_eq!(printed, "1076226888605605706\n");
        }
        let mut args = job.clone();
        args.extend_from_slice(&["--probe-states", probe_states]);
        let guessed = plan(&args);
        let what = job.join(" ");
        let source = guessed["forecast"]["extrapolated"].as_str().unwrap_or_else(|| panic!("{what}: {guessed}"));
        assert!(source.contains(" guessed from the frontier's widths, as a graph has no rows, "), "{source}");
        assert_eq!(guessed["probe_finished"], false);
        let peak = *read.iter().max().unwrap() as f64;
        within_of(7.0, guessed["peak_states"].as_f64().unwrap(), peak, &format!("{what} peak"));
        let work = read.iter().sum::<u64>() as f64;
        within_of(7.0, guessed["expansions"].as_f64().unwrap(), work, &format!("{what} states read"));
    }
    // The plan's own probe (4 M states a step) runs 7 x 7 without a1 whole: exact, and said so.
    let (read, _) = states_read_by_step(&knight("7x7", "a1"));
    let exact = plan(&knight("7x7", "a1"));
    assert_eq!(exact["probe_finished"], true);
    assert_eq!(exact["peak_states"].as_u64(), read.iter().max().copied());
    assert_eq!(exact["expansions"].as_u64(), Some(read.iter().sum::<u64>()));
    assert!(exact["forecast"]["extrapolated"].is_null(), "{exact}");
    // A graph is one row: the text names the peak's step alone, and no rows.
    let args = ["knight", "8x6", "--remove", "a1,b1", "--probe-states", "20000"];
    let (text, peak_step) = (plan_text(&args), plan(&args)["peak_step"].clone());
    assert!(line(&text, "peak      ").ends_with(&format!("states, read by step {peak_step}")), "{text}");
    assert!(!text.contains("\nrows      "), "{text}");
    assert!(line(&text, "probe     ").contains(", then steps "), "{text}");
}

/// Issue 58: from 28 x 28 on, the quartering's counts pass the exact 128-bit lane (28 x 28 has
/// 1.12e42 ways, 2^139.7; 26 x 26 9.46e35, 2^119.5), and the residue pass that follows was not
/// priced. The smaller instances' counts foretell it: the forecast runs both passes, and the
/// plan says so and how to skip the exact one.
#[test]
fn a_count_foretold_past_the_exact_lane_is_priced_with_its_residue_pass() {
    let (within, past) = (plan(&["quarter", "26"]), plan(&["quarter", "28"]));
    let bits = |plan: &Value| plan["forecast"]["count_bits"].as_f64().unwrap();
    // The sweep's own counts (its slots) are what the lane holds: about twice the total.
    assert!((119.5..121.5).contains(&bits(&within)), "{within}");
    assert!((139.7..141.7).contains(&bits(&past)), "{past}");
    assert_eq!((within["forecast"]["runs"].as_u64(), past["forecast"]["runs"].as_u64()), (Some(1), Some(2)));
    let one_pass = past["costs"][0]["seconds_per_pass"].as_f64().unwrap();
    assert!((past["forecast"]["seconds"].as_f64().unwrap() - 2.0 * one_pass).abs() <= 1e-6 * one_pass, "{past}");
    let text = plan_text(&["quarter", "28"]);
    assert!(
        line(&text, "count     ").ends_with(
            "as the counts of quarter 16 to quarter 20 foretell: past the exact pass's 2^128, so 2 passes run, \
             priced below; --counts residues skips the exact pass"
        ),
        "{text}"
    );
    assert!(line(&plan_text(&["quarter", "26"]), "count     ").ends_with("within the exact pass's 2^128"));
}
