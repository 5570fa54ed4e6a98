//! `leaper quarter`: the published counts, Parkin's Table 1 as he printed it and as it should
//! read, the drawing, the two methods against each other, resumable jobs of both kinds.

use std::fs;

mod common;

use common::{bfile_rows, leaper, run, scratch, text};

fn json(args: &[&str]) -> serde_json::Value {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    serde_json::from_str(run(&args).trim()).expect("one JSON line")
}

/// OEIS A257952 (all), A064941 (rotational), for sides 2, 4, ..., 20.
const PUBLISHED: [(&str, &str, &str); 10] = [
    ("2", "1", "1"),
    ("4", "5", "3"),
    ("6", "37", "26"),
    ("8", "766", "596"),
    ("10", "43318", "38171"),
    ("12", "7695805", "7083827"),
    ("14", "4015896016", "3852835452"),
    ("16", "6371333036059", "6200587517574"),
    ("18", "30153126159555641", "29752897658253125"),
    ("20", "431453249608567040694", "427721252609771505989"),
];

#[test]
fn the_five_values_of_the_issue_and_the_published_sequences() {
    for (side, expected) in [("2", "1"), ("4", "5"), ("6", "37"), ("8", "766"), ("10", "43318")] {
        assert_eq!(run(&["quarter", side]), format!("{expected}\n"), "{side}x{side}");
    }
    for (side, total, rotational) in PUBLISHED {
        let line = json(&["quarter", side]);
        assert_eq!(line["total"], total, "{side}x{side}");
        assert_eq!(line["rotational"], rotational, "{side}x{side} rotational class (A064941)");
        let halved: u128 = total.parse::<u128>().unwrap() - rotational.parse::<u128>().unwrap();
        assert_eq!(line["halved"], halved.to_string(), "{side}x{side} halved class (A257952 - A064941)");
        assert_eq!(line["method"], "frontier");
    }
    assert_eq!(run(&["quarter", "8", "--class", "rotational"]), "596\n");
    assert_eq!(run(&["quarter", "8", "--class", "halved"]), "170\n");
    let one = json(&["quarter", "10", "--class", "halved"]);
    assert_eq!((one["halved"].as_str(), one["total"].as_str()), (Some("5147"), Some("5147")));
    assert!(one.get("rotational").is_none(), "{one}");

    // A b-file row in the sequence's own offset: n for the 2n x 2n board.
    let dir = scratch("bfile");
    fs::create_dir_all(&dir).unwrap();
    let bfile = dir.join("b257952.txt");
    assert_eq!(run(&["quarter", "12", "--bfile", bfile.to_str().unwrap()]), "7695805\n");
    assert_eq!(bfile_rows(&bfile), "6 7695805\n");
}

#[test]
fn enumeration_and_the_frontier_sweep_agree_on_every_board_both_run() {
    for side in ["2", "4", "6", "8", "10", "12"] {
        let traced = json(&["quarter", side, "--enumerate"]);
        let swept = json(&["quarter", side]);
        assert_eq!(traced["method"], "enumeration");
        for field in ["rotational", "halved", "total"] {
            assert!(traced[field].as_str().is_some(), "{side}x{side}: no {field} in {traced}");
            assert_eq!(traced[field], swept[field], "{side}x{side} {field}");
        }
    }
}

/// The letter's Table 1, line by line: (class, start, paths), then C(2N).
const LETTER_8: [(&str, &str, u64); 10] = [
    ("rotational", "1,0", 212),
    ("rotational", "2,0", 167),
    ("rotational", "3,0", 146),
    ("rotational", "4,0", 87),
    ("halved", "1,0", 43),
    ("halved", "2,0", 33),
    ("halved", "3,0", 24),
    ("halved", "4,0", 8),
    ("halved", "0,1", 43),
    ("halved", "0,2", 19),
];
const LETTER_10: [(&str, &str, u64); 12] = [
    ("rotational", "1,0", 11030),
    ("rotational", "2,0", 8774),
    ("rotational", "3,0", 7538),
    ("rotational", "4,0", 7229),
    ("rotational", "5,0", 4522),
    ("halved", "1,0", 1026),
    ("halved", "2,0", 821),
    ("halved", "3,0", 670),
    ("halved", "4,0", 550),
    ("halved", "5,0", 243),
    ("halved", "0,1", 1026),
    ("halved", "0,2", 811),
];

fn starts(line: &serde_json::Value) -> Vec<(String, String, u64)> {
    line["starts"]
        .as_array()
        .expect("starts")
        .iter()
        .map(|s| {
            let paths = s["paths"].as_str().unwrap().parse().unwrap();
            (s["class"].as_str().unwrap().to_string(), s["start"].as_str().unwrap().to_string(), paths)
        })
        .filter(|(_, _, paths)| *paths > 0)
        .collect()
}

fn owned(table: &[(&str, &str, u64)]) -> Vec<(String, String, u64)> {
    table.iter().map(|&(c, s, n)| (c.to_string(), s.to_string(), n)).collect()
}

#[test]
fn parkin_reproduces_every_line_of_the_letter_and_its_totals() {
    for (side, letter, total) in [("8", &LETTER_8[..], "782"), ("10", &LETTER_10[..], "44240")] {
        let line = json(&["quarter", side, "--parkin"]);
        assert_eq!(starts(&line), owned(letter), "{side}x{side}");
        assert_eq!(line["total"], total);
        assert_eq!(line["rule"], "parkin");
    }
    let table = run(&["quarter", "8", "--parkin"]);
    let rows: Vec<&str> = table.lines().collect();
    assert!(rows[1].contains("1,0            212") && rows[1].trim_end().ends_with("782"), "{table}");
    assert!(rows[4].contains("4,0*            87") && rows[4].contains("4,0*             8"), "{table}");
    assert!(rows[6].contains("0,2*            19"), "{table}");
}

#[test]
fn the_accepted_table_differs_from_the_letter_only_on_the_square_centre_line() {
    for (side, letter, accepted_centre) in [("8", &LETTER_8[..], 71), ("10", &LETTER_10[..], 3600)] {
        let line = json(&["quarter", side, "--by-start"]);
        let accepted = starts(&line);
        let letter = owned(letter);
        assert_eq!(accepted.len(), letter.len());
        for (ours, theirs) in accepted.iter().zip(&letter) {
            let centre = ours.0 == "rotational" && ours.1 == format!("{},0", side.parse::<u32>().unwrap() / 2);
            if centre {
                assert_eq!(ours.2, accepted_centre, "{side}x{side} square centre-line start");
                assert_ne!(ours.2, theirs.2);
            } else {
                assert_eq!(ours, theirs, "{side}x{side}");
            }
        }
        let sum: u64 = accepted.iter().map(|l| l.2).sum();
        assert_eq!(line["total"].as_str().unwrap(), sum.to_string());
    }
    assert!(run(&["quarter", "10", "--by-start"]).contains("5,0*          3600"));
}

#[test]
fn the_6x6_drawing_has_37_boards_and_large_boards_are_refused_with_their_count() {
    let dir = scratch("svg");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("quarterings.svg");
    assert_eq!(run(&["quarter", "6", "--svg", path.to_str().unwrap()]), "37\n");
    let svg = fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches(r#"class="rotational""#).count(), 26);
    assert_eq!(svg.matches(r#"class="halved""#).count(), 11);
    // On white, as the tours' and the tangram's drawings are, titled by class.
    assert!(svg.contains(r#"<rect width="100%" height="100%" fill="white"/>"#), "no background");
    assert!(svg.contains(">6x6: 37 dissections (26 rotational, 11 halved)</text>"), "{svg}");
    // One class drawn: the title counts that class alone (it said "(0 rotational, 170 halved)").
    let halved = dir.join("halved.svg");
    assert_eq!(run(&["quarter", "8", "--class", "halved", "--svg", halved.to_str().unwrap()]), "170\n");
    let svg = fs::read_to_string(&halved).unwrap();
    assert!(svg.contains(">8x8: 170 halved dissections</text>") && !svg.contains("rotational"), "{svg}");
    fs::remove_file(&halved).unwrap();

    let refused = dir.join("refused.svg");
    let output = leaper(&["quarter", "10", "--svg", refused.to_str().unwrap()], None);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("43318 dissections") && stderr.contains("1000"), "{stderr}");
    assert!(!refused.exists());
    let listed: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(listed.len(), 1, "nothing half-made beside the drawing: {listed:?}");
}

#[test]
fn bad_boards_and_options_are_refused_by_name() {
    for (args, message) in [
        (&["quarter", "7"][..], "the board's side must be even"),
        (&["quarter", "0"][..], "the board's side must be even"),
        (&["quarter", "46"][..], "from 2 to 44"),
        (&["quarter", "18", "--by-start"][..], "--by-start traces every cut, which is for boards up to 16x16"),
        (&["quarter", "8", "--by-start", "--buckets", "64"][..], "--buckets is an option of transfer-matrix sweeps"),
        (&["quarter", "8", "--svg", "/nonexistent/dir/x.svg"][..], "directory /nonexistent/dir does not exist"),
        (&["quarter", "8", "--parkin", "--svg", "x.svg"][..], "use one or the other"),
    ] {
        let dir = scratch("refused");
        let mut args = args.to_vec();
        args.extend(["--job-dir", dir.to_str().unwrap()]);
        let output = leaper(&args, None);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(text(&output.stderr).contains(message), "{args:?}: {}", text(&output.stderr));
        assert!(!dir.exists(), "{args:?} left its job directory behind");
    }
    assert!(!std::path::Path::new("x.svg").exists());
}

#[test]
fn both_kinds_of_job_resume_after_a_crash_to_the_exact_count() {
    // The frontier sweep, out of core, killed after a committed step.
    let dir = scratch("sweep");
    let job = dir.to_str().unwrap();
    let crashed = leaper(&["quarter", "12", "--job-dir", job], Some("crash@layer:30"));
    assert!(!crashed.status.success());
    let status: serde_json::Value =
        serde_json::from_str(&run(&["status", "--job-dir", job, "--format", "json"])).unwrap();
    assert_eq!((status["command"].as_str(), status["state"].as_str()), (Some("quarter 12"), Some("stopped")));
    let committed = status["cells_done"].as_u64().unwrap();
    assert!(committed > 0, "the crash came after committed steps: {status}");
    // -v: a line for every step, on a pipe too.
    let resumed = leaper(&["-v", "resume", "--job-dir", job], None);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(text(&resumed.stdout), "7695805\n");
    let log = text(&resumed.stderr);
    assert!(
        // Steps are logged from 1: step `committed` was the last one committed.
        log.contains(&format!("step={} ", committed + 1)) && !log.contains(&format!("step={committed} ")),
        "resume starts after step {committed}: {log}"
    );
    fs::remove_dir_all(&dir).unwrap();

    // The enumeration, a subtree job, killed after some shards.
    let dir = scratch("enumerate");
    let job = dir.to_str().unwrap();
    let crashed =
        leaper(&["quarter", "10", "--by-start", "--format", "json", "--job-dir", job], Some("crash@ledger:20"));
    assert!(!crashed.status.success());
    let resumed = leaper(&["resume", "--job-dir", job], None);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let line: serde_json::Value = serde_json::from_str(text(&resumed.stdout).trim()).unwrap();
    assert_eq!(line["total"], "43318");
    assert_eq!(starts(&line)[4], ("rotational".to_string(), "5,0".to_string(), 3600));
}
