//! `leaper plan`: its predictions against the measured truth, and its refusals.

mod common;

use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use leaper_core::engine::store::memory_store;
use leaper_core::engine::sweep::{sweep_in_process, StoreFactory, SweepOptions, SweepProgress};
use leaper_core::engine::Moduli;
use leaper_core::problems::tours::board::{Geometry, MoveSet};
use leaper_core::problems::tours::transfer::{tours, TourKind};
use serde_json::Value;

/// How far a prediction may stray from the truth, either way (docs/FLAGSHIP.md).
const TRUST: f64 = 2.0;

/// Runs `leaper ARGS --scratch DIR` and checks that the probe left nothing in DIR.
fn leaper(args: &[&str]) -> Output {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let scratch = common::scratch("plan", &RUNS.fetch_add(1, Ordering::Relaxed).to_string());
    std::fs::create_dir_all(&scratch).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_leaper"));
    command.args(args).args(["--scratch", scratch.to_str().unwrap()]).env("RUST_LOG", "warn");
    let output = command.output().expect("leaper runs");
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0, "the probe left files behind");
    std::fs::remove_dir_all(&scratch).unwrap();
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
    let mut stores = StoreFactory(|layout, moduli: &Moduli| memory_store(layout, 61, moduli.clone(), 8 << 30));
    let report =
        sweep_in_process(job.as_ref(), &SweepOptions::default(), &mut stores, SweepProgress::default()).unwrap();
    (report.profile.iter().copied().max().unwrap(), report.states_processed)
}

fn within(predicted: f64, truth: f64, what: &str) {
    let ratio = predicted / truth;
    eprintln!("{what}: predicted {predicted:.3e}, measured {truth:.3e}, ratio {ratio:.2}");
    assert!((1.0 / TRUST..=TRUST).contains(&ratio), "{what}: predicted {predicted}, measured {truth}");
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
    // 8x8: the truth of `leaper knight 8x8` (docs/PERFORMANCE.md): a peak layer of 97,821,977
    // states, 995,629,757 states read. `eight_by_eight_plan_against_a_count`
    // measures it again.
    let plan = plan(&["knight", "8x8"]);
    within(plan["peak_states"].as_f64().unwrap(), 97_821_977.0, "8x8 peak");
    within(plan["expansions"].as_f64().unwrap(), 995_629_757.0, "8x8 states read");
}

#[test]
#[ignore = "counts 8x8 in memory: about 3 minutes and 3.5 GiB"]
fn eight_by_eight_plan_against_a_count() {
    let plan = plan(&["knight", "8x8"]);
    let (peak, work) = measured(8, 8);
    assert_eq!((peak, work), (97_821_977, 995_629_757));
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
    let plan = plan(&["knight", "10x10", "--counts", "residues"]);
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
