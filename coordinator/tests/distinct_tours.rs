//! `leaper knight BOARD --distinct`: classes of tours under the board's symmetries by Burnside's
//! lemma, against `tours enumerate` + `tours dedupe` (every tour written, canonical forms
//! compared), class by class and by the order of the classes' symmetry groups; the sweep, the
//! job directory and the errors.

mod common;

use common::{leaper, run, scratch_dir, text};

fn json(args: &[&str]) -> Vec<serde_json::Value> {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    run(&args).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

/// Enumerates, dedupes, and compares with `--distinct`: classes, tours, and the classes by the
/// order of their symmetry group.
fn agrees_with_dedupe(board: &str, open: bool) {
    let dir = scratch_dir(&format!("{board}-{open}"));
    let file = dir.join("tours.txt");
    let kind = if open { "--open" } else { "--closed" };
    run(&["tours", "enumerate", board, kind, "--out", file.to_str().unwrap(), "-q"]);
    let deduped = json(&["tours", "dedupe", file.to_str().unwrap(), "--board", board, kind, "-q"]);
    let mut args = vec!["knight", board, "--distinct", "-q"];
    if open {
        args.push("--open");
    }
    let lines = json(&args);
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert_eq!(line["count"].as_str().unwrap(), deduped[0]["classes"].to_string(), "{board}: {line}");
    assert_eq!(line["total"].as_str().unwrap(), deduped[0]["tours"].to_string(), "{board}");
    let by_order: serde_json::Map<String, serde_json::Value> = line["classes_by_symmetry_order"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, n)| n.as_str() != Some("0"))
        .map(|(k, n)| (k.clone(), serde_json::json!(n.as_str().unwrap().parse::<u64>().unwrap())))
        .collect();
    assert_eq!(serde_json::Value::Object(by_order), deduped[0]["by_symmetry"], "{board}: {line}");
}

#[test]
fn classes_agree_with_every_tour_enumerated_and_deduplicated() {
    // 6x6: the quarter turns fix 10 tours, the half turn 78 (1245 = 1223 + 17 + 5 classes).
    agrees_with_dedupe("6x6", false);
    // 5x6: the mirror across the 6-long side fixes 4 of its 8 tours (a mirror fold).
    agrees_with_dedupe("5x6", false);
    agrees_with_dedupe("6x5", false);
    // 5x8: the half turn with loops (moves between a cell and its image) fixes 22.
    agrees_with_dedupe("5x8", false);
    // Open tours: the 5x5 board's half turn through the centre, and 5x6's none.
    agrees_with_dedupe("5x5", true);
    agrees_with_dedupe("5x6", true);
    // Nothing to fold: both sides even, so no open tour has a symmetry (the sweep alone).
    agrees_with_dedupe("4x6", true);
}

#[test]
fn the_fixed_counts_and_the_text_line() {
    let line = &json(&["knight", "6x6", "--distinct", "-q"])[0];
    let fixed: Vec<(String, String)> = line["fixed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["symmetry"].as_str().unwrap().into(), f["tours"].as_str().unwrap().into()))
        .collect();
    let expected = [
        ("identity", "9862"),
        ("half turn", "78"),
        ("mirror top-bottom", "0"),
        ("mirror left-right", "0"),
        ("quarter turn", "10"),
        ("three-quarter turn", "10"),
        ("diagonal mirror", "0"),
        ("antidiagonal mirror", "0"),
    ];
    assert_eq!(fixed, expected.map(|(a, b)| (a.to_string(), b.to_string())));
    assert_eq!(line["group_order"], 8);
    assert_eq!(
        run(&["knight", "6x6", "--distinct", "-q"]),
        "1245 (of 9862 tours under 8 symmetries; fixed by half turn 78, mirror top-bottom 0, mirror left-right 0, \
         quarter turn 10, three-quarter turn 10, diagonal mirror 0, antidiagonal mirror 0)\n"
    );
}

#[test]
fn a_sweep_gives_the_classes_of_every_length_as_single_boards_do() {
    let swept = json(&["knight", "5x8", "--sweep", "--distinct", "-q"]);
    let counts: Vec<(String, String)> =
        swept.iter().map(|l| (l["board"].as_str().unwrap().into(), l["count"].as_str().unwrap().into())).collect();
    assert_eq!(counts.len(), 8);
    for (board, classes) in &counts {
        let single = &json(&["knight", board, "--distinct", "-q"])[0];
        assert_eq!(single["count"].as_str().unwrap(), classes, "{board}");
    }
    assert_eq!(counts[5], ("5x6".to_string(), "3".to_string()));
    // Two constructions of one count: 7x6 along a frontier 7 wide folds its rows (the mirror
    // between rows 3 and 4), 6x7 as a single board along a frontier 6 wide folds its columns.
    let wide = json(&["knight", "7x6", "--sweep", "--distinct", "-q"]);
    let narrow = &json(&["knight", "6x7", "--distinct", "-q"])[0];
    assert_eq!(wide[5]["count"], narrow["count"]);
    assert_eq!(narrow["count"], "267183");
    let fixed = |line: &serde_json::Value| -> Vec<String> {
        let mut v: Vec<String> =
            line["fixed"].as_array().unwrap().iter().map(|f| f["tours"].as_str().unwrap().to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(fixed(&wide[5]), fixed(narrow), "530 by a mirror, 564 by the half turn, either way");
    assert_eq!(counts[7], ("5x8".to_string(), "11056".to_string()));
    // The b-file holds the classes.
    let dir = scratch_dir("bfile");
    let bfile = dir.join("b.txt");
    run(&["knight", "5x8", "--sweep", "--distinct", "-q", "--bfile", bfile.to_str().unwrap()]);
    assert!(common::bfile_rows(&bfile).ends_with("6 3\n7 0\n8 11056\n"), "{}", common::bfile_rows(&bfile));
}

#[test]
fn a_job_directory_resumes_with_the_folds_and_the_classes_come_out_the_same() {
    let dir = scratch_dir("jobdir");
    let job = dir.join("job");
    let direct = run(&["knight", "6x7", "--distinct", "-q"]);
    assert!(direct.starts_with("267183 "), "{direct}");
    let stopped =
        leaper(&["knight", "6x7", "--distinct", "-q", "--job-dir", job.to_str().unwrap()], Some("crash@manifest:20"));
    assert!(!stopped.status.success());
    let resumed = run(&["resume", "--job-dir", job.to_str().unwrap(), "-q"]);
    assert_eq!(resumed, direct);
}

#[test]
fn distinct_refuses_what_it_cannot_count() {
    for args in
        [&["knight", "6x6", "--distinct", "--directed"][..], &["knight", "6x6", "--distinct", "--tours", "both"]]
    {
        let output = leaper(args, None);
        assert!(!output.status.success());
        let error = text(&output.stderr);
        assert!(error.contains("--distinct") || error.contains("--directed"), "{error}");
    }
}

/// The 8x8 board: 1658420855433 classes (the half turn fixes 2432932 tours, nothing else any:
/// 608233 classes of order 2). About 15 minutes in memory (16 GiB): `--ignored`.
#[test]
#[ignore]
fn eight_by_eight_classes() {
    let line = &json(&["knight", "8x8", "--distinct", "-q"])[0];
    assert_eq!(line["count"], "1658420855433");
    assert_eq!(line["total"], "13267364410532");
    assert_eq!(line["fixed"][1]["tours"], "2432932");
    assert_eq!(line["classes_by_symmetry_order"], serde_json::json!({"1": "1658420247200", "2": "608233", "4": "0"}));
}
