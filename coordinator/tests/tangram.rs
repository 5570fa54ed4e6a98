//! `leaper tangram`: the paper's numbers (N(F), 20 outlines, 13 possible, 142 dissections, the
//! square's 1 and the trapezoid's 36), piece files and their errors, the drawing, a resumed job.

use std::fs;

mod common;

use common::{leaper, run, scratch, text};

fn json_lines(args: &[&str]) -> Vec<serde_json::Value> {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    run(&args).lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect()
}

/// `(outline, dissections)` of every outline line, and the total line.
fn dissections(lines: &[serde_json::Value]) -> (Vec<(Vec<i64>, u64)>, &serde_json::Value) {
    let (total, outlines) = lines.split_last().expect("lines");
    let outlines = outlines
        .iter()
        .map(|line| {
            let outline = line["outline"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
            (outline, line["dissections"].as_str().unwrap().parse().unwrap())
        })
        .collect();
    (outlines, total)
}

#[test]
fn the_papers_outlines_and_their_number_for_each_area() {
    let listed = run(&["tangram", "outlines", "16"]);
    let rows: Vec<&str> = listed.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(rows.len(), 21, "{listed}");
    assert_eq!(rows[20], "N(16) = 20 outlines");
    assert!(rows.contains(&"   5  2  2  0  0  0   3, 2, 5, 2\u{221a}2"), "{listed}");
    assert!(rows.contains(&"   4  4  2  2  2  2   2\u{221a}2, 2\u{221a}2, 2\u{221a}2, 2\u{221a}2"), "{listed}");
    // The paper's table, F = 1 ... 10, as b-file rows.
    let counts = run(&["tangram", "outlines", "--count", "1..10"]);
    assert_eq!(counts, "1 1\n2 3\n3 2\n4 6\n5 3\n6 7\n7 5\n8 11\n9 5\n10 10\n");
    let json = json_lines(&["tangram", "outlines", "--count", "16"]);
    assert_eq!(json.len(), 1);
    assert_eq!((json[0]["area"].as_i64(), json[0]["outlines"].as_str()), (Some(16), Some("20")));
}

#[test]
fn the_seven_pieces_make_142_figures_in_13_of_the_20_outlines() {
    let lines = json_lines(&["tangram", "solve"]);
    let (outlines, total) = dissections(&lines);
    assert_eq!(outlines.len(), 20);
    assert_eq!(outlines.iter().filter(|(_, n)| *n > 0).count(), 13);
    assert_eq!(outlines.iter().map(|(_, n)| n).sum::<u64>(), 142);
    let of = |outline: [i64; 6]| outlines.iter().find(|(o, _)| *o == outline).map(|(_, n)| *n);
    assert_eq!(of([4, 4, 2, 2, 2, 2]), Some(1), "the square");
    assert_eq!(of([5, 2, 2, 0, 0, 0]), Some(36), "the right trapezoid 3, 2, 5, 2\u{221a}2");
    assert_eq!(outlines.iter().map(|(_, n)| *n).max(), Some(36));
    assert_eq!((total["dissections"].as_str(), total["possible"].as_u64()), (Some("142"), Some(13)));
    // The symmetry type of every piece, as the program found it.
    let symmetries: Vec<&str> =
        total["pieces"].as_array().unwrap().iter().map(|p| p["symmetry"].as_str().unwrap()).collect();
    assert_eq!(
        symmetries,
        [
            "mirror line, diagonal y = x",
            "mirror line, vertical",
            "all eight symmetries of the square",
            "half turn",
            "mirror line, diagonal y = x"
        ]
    );
    let text_output = run(&["tangram", "solve"]);
    assert!(text_output.ends_with("142 dissections in 13 of the 20 outlines\n"), "{text_output}");

    // Program 1: one outline.
    let yes = run(&["tangram", "fit", "--outline", "5,2,2,0,0,0"]);
    assert!(
        yes.starts_with("yes: the outline (5,2,2,0,0,0) (sides 3, 2, 5, 2\u{221a}2)") && yes.contains(" 36 "),
        "{yes}"
    );
    // The same trapezoid turned and mirrored is the same outline.
    assert!(run(&["tangram", "fit", "--outline", "2,5,0,0,0,2"]).contains(" 36 "));
    // "no" exits 1, as grep does when nothing matches, with no error: a script can ask.
    let no = leaper(&["tangram", "fit", "--outline", "8,1,0,0,0,0"], None);
    assert_eq!(no.status.code(), Some(1));
    assert!(text(&no.stdout).starts_with("no: the outline (8,1,0,0,0,0)"), "{}", text(&no.stdout));
    assert!(!text(&no.stderr).contains("error"), "{}", text(&no.stderr));
    let no = leaper(&["tangram", "fit", "--outline", "8,1,0,0,0,0", "--format", "json"], None);
    assert_eq!(no.status.code(), Some(1));
    assert!(text(&no.stdout).contains(r#""dissections":"0""#), "{}", text(&no.stdout));
    let yes = leaper(&["tangram", "fit", "--outline", "5,2,2,0,0,0"], None);
    assert_eq!(yes.status.code(), Some(0));
    // Clap wraps the help to the terminal: read it as one line.
    let help = common::one_line(&text(&leaper(&["tangram", "--help"], None).stdout));
    assert!(help.contains("exit status 0 for yes, 1 for no"), "{help}");
}

#[test]
fn a_piece_file_of_the_same_pieces_moved_turned_and_renamed_gives_the_same_figures() {
    let dir = scratch("pieces");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pieces.txt");
    fs::write(
        &file,
        "# the classic set, each piece moved, turned or mirrored\n\
         big   10,10 12,10 12,12\n\
         big2  0,0 0,2 2,2 # the other large triangle\n\
         mid   3,3 4,4 3,5\n\
         sq    7,7 8,7 8,8 7,8\n\
         par   0,0 1,1 1,2 0,1\n\
         tiny  5,5 5,4 4,5\n\
         tiny2 1,0 1,1 0,1\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let lines = json_lines(&["tangram", "solve", "--pieces", path]);
    let (outlines, total) = dissections(&lines);
    assert_eq!(total["dissections"], "142");
    assert_eq!(outlines, dissections(&json_lines(&["tangram", "solve"])).0);
    let kinds: Vec<u64> = total["pieces"].as_array().unwrap().iter().map(|p| p["copies"].as_u64().unwrap()).collect();
    assert_eq!(kinds, [2, 1, 1, 1, 2], "identical pieces found whatever their names");

    // Area 32: outlines whose bounding boxes are far larger than the pieces (thin strips) are
    // searched too; one 4x4 square fills exactly the 4x4 square.
    let big = dir.join("big.txt");
    fs::write(&big, "big 0,0 4,0 4,4 0,4\n").unwrap();
    let big_out = run(&["tangram", "solve", "--pieces", big.to_str().unwrap()]);
    assert!(big_out.ends_with("1 dissection in 1 of the 37 outlines\n"), "{big_out}");

    // Three pieces: two small triangles and a square make 4 convex figures of area 4.
    let small = dir.join("small.txt");
    fs::write(&small, "t 0,0 1,0 0,1\nt 0,0 1,0 0,1\ns 0,0 1,0 1,1 0,1\n").unwrap();
    let lines = json_lines(&["tangram", "solve", "--pieces", small.to_str().unwrap()]);
    let (outlines, total) = dissections(&lines);
    assert_eq!(outlines.len(), 6, "N(4) = 6 outlines");
    assert_eq!(total["area"], 4);
    assert!(total["dissections"].as_str().unwrap().parse::<u64>().unwrap() > 0);
}

#[test]
fn bad_piece_files_outlines_and_options_are_refused_with_the_offending_line() {
    let dir = scratch("bad");
    fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, body: &str| {
        let path = dir.join(name);
        fs::write(&path, body).unwrap();
        path.to_str().unwrap().to_string()
    };
    let crossing = file("crossing.txt", "a 0,0 1,0 0,1\n# a bow tie\nb 0,0 2,0 0,2 2,2\n");
    let off = file("off.txt", "a 0,0 1,0 0.5,1\n");
    let slanted = file("slanted.txt", "a 0,0 1,0 0,1\nb 0,0 2,0 0,1\n");
    let job = dir.join("job");
    let job = job.to_str().unwrap();
    for (args, message) in [
        (
            vec!["tangram", "solve", "--pieces", &crossing],
            format!("{crossing}:3: piece b: its boundary crosses or touches itself"),
        ),
        (vec!["tangram", "solve", "--pieces", &off], format!("{off}:1: \"0.5,1\" is off the lattice")),
        (vec!["tangram", "solve", "--pieces", &slanted], format!("{slanted}:2: piece b: the edge from 2,0 to 0,1")),
        (
            vec!["tangram", "fit", "--outline", "4,4,0,0,0,0"],
            "the pieces cover 16 elementary triangles, the outline (4,4,0,0,0,0) covers 32".to_string(),
        ),
        (vec!["tangram", "fit", "--outline", "5,2,3,3,0,0"], "corner cuts overlap".to_string()),
        (vec!["tangram", "fit"], "tangram fit needs --outline".to_string()),
        (vec!["tangram", "outlines"], "needs an area".to_string()),
        (vec!["tangram", "outlines", "16", "--pieces", &off], "--pieces is an option of `tangram solve`".to_string()),
        (
            vec!["tangram", "solve", "--svg", "/nonexistent/dir/t.svg"],
            "directory /nonexistent/dir does not exist".to_string(),
        ),
        (vec!["tangram", "solve", "--pieces", "/nonexistent/pieces.txt"], "cannot read the piece file".to_string()),
    ] {
        let mut args = args.clone();
        args.extend(["--job-dir", job]);
        let output = leaper(&args, None);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(text(&output.stderr).contains(&message), "{args:?}: {}", text(&output.stderr));
        assert!(!std::path::Path::new(job).exists(), "{args:?} left a job directory");
    }
}

#[test]
fn the_drawing_holds_every_dissection_grouped_by_outline() {
    let dir = scratch("svg");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tangram.svg");
    let printed = run(&["tangram", "solve", "--svg", path.to_str().unwrap()]);
    assert!(printed.ends_with("142 dissections in 13 of the 20 outlines\n"));
    let svg = fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    // Per dissection: the outline twice (its double line) and the seven pieces.
    assert_eq!(svg.matches("<polygon").count(), 142 * 9);
    assert_eq!(svg.matches("<text").count(), 13, "one caption per possible outline");
    assert!(svg.contains("(4,4,2,2,2,2) sides 2\u{221a}2, 2\u{221a}2, 2\u{221a}2, 2\u{221a}2: 1 dissection<"));
    // On white, each of the seven pieces in a colour of its own (they were all one grey).
    assert!(svg.contains(r#"<rect width="100%" height="100%" fill="white"/>"#));
    let piece_fills: std::collections::BTreeSet<&str> = svg
        .lines()
        .filter(|line| line.starts_with("<polygon") && line.contains(r#"stroke-width="1""#))
        .map(|line| line.split(r#"fill=""#).nth(1).unwrap().split('"').next().unwrap())
        .collect();
    assert_eq!(piece_fills.len(), 7, "{piece_fills:?}");
    assert!(!piece_fills.contains("white") && !piece_fills.contains("none"), "{piece_fills:?}");
    // Nothing to draw: no empty drawing, and the user is told.
    let empty = dir.join("none.svg");
    let output = leaper(&["tangram", "fit", "--outline", "8,1,0,0,0,0", "--svg", empty.to_str().unwrap()], None);
    assert_eq!(output.status.code(), Some(1), "a fit that finds nothing answers no");
    assert!(text(&output.stderr).contains("no dissection to draw"), "{}", text(&output.stderr));
    assert!(!empty.exists());
}

#[test]
fn a_solve_killed_after_some_shards_resumes_to_the_same_figures() {
    let dir = scratch("resume");
    let job = dir.to_str().unwrap();
    let crashed = leaper(&["tangram", "solve", "--format", "json", "--job-dir", job], Some("crash@ledger:6"));
    assert!(!crashed.status.success());
    let status: serde_json::Value =
        serde_json::from_str(&run(&["status", "--job-dir", job, "--format", "json"])).unwrap();
    assert_eq!(status["command"], "tangram solve");
    let resumed = leaper(&["resume", "--job-dir", job], None);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let lines: Vec<serde_json::Value> =
        text(&resumed.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(dissections(&lines).1["dissections"], "142");
}
