//! What a finished count leaves: `--verify` and the reasons of zero counts said in its JSON
//! lines, and b-files in a sequence's own indexing (`--offset`, `--stride`) with a header saying
//! what made them.

mod common;

use std::path::Path;

use common::{known, known_line, leaper, run, scratch, text};

/// The closed tours of 3x1 ... 3x12 (3x10 and 3x12 are the first with any).
const THREE_BY: [&str; 12] = ["0", "0", "0", "0", "0", "0", "0", "0", "0", "16", "0", "176"];

#[test]
fn verify_is_reported_in_json_lines_only_when_asked() {
    let verified = run(&["knight", "6x6", "--verify", "--format", "json"]);
    let line = |more: &str| {
        format!(r#"{{"problem":"knight","board":"6x6","tours":"closed","count":"{}"{more}}}"#, known("knight 6x6"))
            + "\n"
    };
    assert_eq!(verified, line(r#","verified":true"#));
    let unverified = run(&["knight", "6x6", "--format", "json"]);
    assert_eq!(unverified, line(""));
    // Text output is the count alone either way.
    assert_eq!(run(&["knight", "6x6", "--verify"]), known_line("knight 6x6"));
    let quarter = run(&["quarter", "6", "--verify", "--format", "json"]);
    assert!(quarter.trim_end().ends_with(",\"verified\":true}"), "{quarter}");
}

#[test]
fn zero_counts_carry_their_reason_in_json() {
    let lines = run(&["camel", "5x12", "--sweep", "--format", "json"]);
    assert_eq!(lines.lines().count(), 12);
    assert!(lines.lines().all(|line| line.contains("\"count\":\"0\",\"reason\":\"camel 5x")), "{lines}");
    assert_eq!(
        lines.lines().last().unwrap(),
        "{\"problem\":\"camel\",\"board\":\"5x12\",\"tours\":\"closed\",\"count\":\"0\",\"reason\":\"camel 5x12: no \
         closed tour: every camel move keeps the square's colour, so the board's graph is disconnected (2 \
         components)\"}"
    );
    // The text output stays the table of counts.
    assert_eq!(run(&["camel", "5x3", "--sweep"]), "5x1 0\n5x2 0\n5x3 0\n");
}

/// The header of a b-file written today by `leaper COMMAND`.
fn header(command: &str) -> Vec<String> {
    vec![
        format!("# leaper {}", env!("CARGO_PKG_VERSION")),
        format!("# command: leaper {command}"),
        format!("# date: {}", leaper_coordinator::output::today().unwrap()),
    ]
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect()
}

/// `n a(n)` lines.
fn rows(rows: &[(usize, &str)]) -> Vec<String> {
    rows.iter().map(|(n, value)| format!("{n} {value}")).collect()
}

#[test]
fn bfiles_have_a_header_and_number_rows_by_offset_and_stride() {
    let dir = scratch("bfile");
    std::fs::create_dir_all(&dir).unwrap();
    let bfile = dir.join("b.txt");
    let path = bfile.to_str().unwrap();

    // Every length, numbered by length.
    run(&["knight", "3x12", "--sweep", "--bfile", path]);
    let every: Vec<(usize, &str)> = (1..).zip(THREE_BY).collect();
    assert_eq!(lines(&bfile), [header("knight 3x12 --sweep --bfile b.txt"), rows(&every)].concat());

    // Closed tours of 3 x 2n: n = 1 ... 6.
    run(&["knight", "3x12", "--sweep", "--bfile", path, "--stride", "2"]);
    let even = [(1, "0"), (2, "0"), (3, "0"), (4, "0"), (5, "16"), (6, "176")];
    assert_eq!(lines(&bfile), [header("knight 3x12 --sweep --bfile b.txt --stride 2"), rows(&even)].concat());

    // The same sequence from offset 0: n = 0 ... 5 (the board 3 x 2(n+1)).
    run(&["knight", "3x12", "--sweep", "--bfile", path, "--stride", "2", "--offset", "0"]);
    let from_zero = [(0, "0"), (1, "0"), (2, "0"), (3, "0"), (4, "16"), (5, "176")];
    let command = "knight 3x12 --sweep --bfile b.txt --offset 0 --stride 2";
    assert_eq!(lines(&bfile), [header(command), rows(&from_zero)].concat());

    // An offset alone renumbers every length: 3x1 is n = 5.
    run(&["knight", "3x4", "--sweep", "--bfile", path, "--offset", "5"]);
    let shifted = [(5, "0"), (6, "0"), (7, "0"), (8, "0")];
    assert_eq!(lines(&bfile), [header("knight 3x4 --sweep --bfile b.txt --offset 5"), rows(&shifted)].concat());

    // Directed open tours of 3 x 4n.
    run(&["knight", "3x8", "--open", "--directed", "--sweep", "--bfile", path, "--stride", "4"]);
    let command = "knight 3x8 --sweep --open --directed --bfile b.txt --stride 4";
    assert_eq!(lines(&bfile), [header(command), rows(&[(1, "16"), (2, "792")])].concat());
}

#[test]
fn a_resumed_job_keeps_its_offset_and_stride() {
    let dir = scratch("resume");
    std::fs::create_dir_all(&dir).unwrap();
    let (job, first, second) = (dir.join("job"), dir.join("b1.txt"), dir.join("b2.txt"));
    let job = job.to_str().unwrap();
    run(&["knight", "3x12", "--sweep", "--job-dir", job, "--bfile", first.to_str().unwrap(), "--stride", "2"]);
    // A finished job resumed prints (and writes) its counts again, here to another b-file.
    run(&["resume", "--job-dir", job, "--bfile", second.to_str().unwrap()]);
    let even = [(1, "0"), (2, "0"), (3, "0"), (4, "0"), (5, "16"), (6, "176")];
    assert_eq!(lines(&first), [header("knight 3x12 --sweep --bfile b1.txt --stride 2"), rows(&even)].concat());
    assert_eq!(lines(&second), [header("knight 3x12 --sweep --bfile b2.txt --stride 2"), rows(&even)].concat());
}

#[test]
fn a_finished_job_resumed_writes_its_bfile_in_a_sequence_s_numbering() {
    let dir = scratch("renumber");
    std::fs::create_dir_all(&dir).unwrap();
    let (job, bfile) = (dir.join("job"), dir.join("b3.txt"));
    let job = job.to_str().unwrap();
    run(&["knight", "3x12", "--sweep", "--job-dir", job]);
    // Renumbering needs a b-file to number: refused, the job left as it was.
    let output = leaper(&["resume", "--job-dir", job, "--stride", "2"], None);
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("--stride and --offset number the rows of a b-file"));
    // The closed tours of 3 x 2n from the finished job, n = 1 ... 6.
    run(&["resume", "--job-dir", job, "--bfile", bfile.to_str().unwrap(), "--stride", "2"]);
    let even = [(1, "0"), (2, "0"), (3, "0"), (4, "0"), (5, "16"), (6, "176")];
    assert_eq!(lines(&bfile), [header("knight 3x12 --sweep --bfile b3.txt --stride 2"), rows(&even)].concat());
    // And from offset 0, as the sequence may number them.
    run(&["resume", "--job-dir", job, "--bfile", bfile.to_str().unwrap(), "--stride", "2", "--offset", "0"]);
    let from_zero = [(0, "0"), (1, "0"), (2, "0"), (3, "0"), (4, "16"), (5, "176")];
    let command = "knight 3x12 --sweep --bfile b3.txt --offset 0 --stride 2";
    assert_eq!(lines(&bfile), [header(command), rows(&from_zero)].concat());
}

#[test]
fn an_indexing_that_keeps_nothing_is_refused_before_counting() {
    let dir = scratch("refused");
    std::fs::create_dir_all(&dir).unwrap();
    let bfile = dir.join("b.txt");
    let path = bfile.to_str().unwrap();
    let refusals: [(&[&str], &str); 5] = [
        (
            &["knight", "3x12", "--sweep", "--bfile", path, "--stride", "13"],
            "--stride 13 keeps no row of this b-file: its rows are n = 1 ... 12, none a multiple of 13",
        ),
        (
            &["knight", "6x6", "--bfile", path, "--stride", "4"],
            "--stride 4 keeps no row of this b-file: its rows are n = 6, none a multiple of 4",
        ),
        (&["knight", "3x12", "--sweep", "--bfile", path, "--stride", "0"], "a stride of 0 keeps no length"),
        (&["knight", "3x12", "--sweep", "--stride", "2"], "--bfile <FILE>"),
        (&["knight", "3x12", "--sweep", "--offset", "1"], "--bfile <FILE>"),
    ];
    for (args, message) in refusals {
        let output = leaper(args, None);
        let stderr = text(&output.stderr);
        assert!(!output.status.success(), "{args:?} was accepted");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        // Refused before counting: nothing printed, no b-file.
        assert!(output.stdout.is_empty() && !stderr.contains("sweep planned"), "{args:?}: {stderr}");
        assert!(!bfile.exists(), "{args:?} wrote a b-file");
    }
}

/// A b-file's lines but its date (a run past midnight writes another).
fn undated(path: &Path) -> Vec<String> {
    lines(path).into_iter().filter(|line| !line.starts_with("# date: ")).collect()
}

/// Runs a b-file's `# command:` line in a shell, in `dir`, with this `leaper` first on the PATH.
fn run_recorded(bfile: &Path, dir: &Path) -> String {
    let command = lines(bfile).iter().find_map(|l| l.strip_prefix("# command: ").map(str::to_string)).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_leaper")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let output = std::process::Command::new("sh")
        .args(["-c", &format!("{command} -q")])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("LEAPER_FAULT")
        .output()
        .unwrap();
    assert!(output.status.success(), "{command}: {}", text(&output.stderr));
    command
}

/// Issue 58: the `# command:` line must write the same file again. Every option that changes a
/// b-file's rows (the move set, open or directed tours, classes up to symmetry, the quartering's
/// class, stride and offset) and a name the shell would take apart, each run as recorded, from
/// another directory: the same rows under the same header.
#[test]
fn a_bfile_s_command_line_writes_the_same_file_again() {
    let dir = scratch("bfile-again");
    let (first, again) = (dir.join("first"), dir.join("again"));
    std::fs::create_dir_all(&first).unwrap();
    for args in [
        &["knight", "3x12", "--sweep", "--open", "--stride", "2", "--offset", "0"][..],
        &["tours", "--moves", "1,3", "4x8", "--sweep"][..],
        &["knight", "3x12", "--sweep", "--directed"][..],
        &["knight", "4x8", "--sweep", "--distinct", "--open"][..],
        &["zebra", "4x6", "--sweep", "--open"][..],
        &["quarter", "8", "--class", "halved", "--stride", "2"][..],
    ] {
        for name in ["b.txt", "my b-file's rows.txt"] {
            let bfile = first.join(name);
            let mut with_bfile = args.to_vec();
            with_bfile.extend(["--bfile", bfile.to_str().unwrap()]);
            run(&with_bfile);
            std::fs::create_dir_all(&again).unwrap();
            let command = run_recorded(&bfile, &again);
            assert_eq!(undated(&again.join(name)), undated(&bfile), "{args:?} as recorded: {command}");
            std::fs::remove_dir_all(&again).unwrap();
        }
    }
    // A finished job's b-file, asked of `resume`, records the command that writes it at once.
    let job = dir.join("job");
    run(&["knight", "3x12", "--sweep", "--open", "--job-dir", job.to_str().unwrap()]);
    let bfile = first.join("resumed.txt");
    run(&["resume", "--job-dir", job.to_str().unwrap(), "--bfile", bfile.to_str().unwrap(), "--stride", "3"]);
    std::fs::create_dir_all(&again).unwrap();
    let command = run_recorded(&bfile, &again);
    assert_eq!(undated(&again.join("resumed.txt")), undated(&bfile), "{command}");
}
