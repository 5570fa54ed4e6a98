//! Open tours from the command line: `--open`, `--directed`, `--tours both`, JSON, b-files, and
//! an out-of-core job that crashes and resumes.

mod common;

use common::{bfile_rows, known, leaper, run, scratch, text};

#[test]
fn open_tours_directed_tours_and_both_kinds() {
    assert_eq!(run(&["knight", "6x6", "--open"]), "3318960\n");
    assert_eq!(run(&["knight", "6x6", "--open", "--directed"]), "6637920\n");
    assert_eq!(run(&["knight", "6x6", "--tours", "open"]), "3318960\n");
    assert_eq!(
        run(&["knight", "6x6", "--tours", "both"]),
        format!("closed {}\nopen {}\n", known("knight 6x6"), known("knight 6x6 open"))
    );
    assert_eq!(run(&["knight", "6x6", "--tours", "both", "--directed"]), "closed 19724\nopen 6637920\n");
    // A path of one cell has one direction; 5x5 (OEIS A165134: 1728 directed).
    assert_eq!(run(&["knight", "1x1", "--open", "--directed"]), "1\n");
    assert_eq!(run(&["knight", "5x5", "--open", "--directed"]), "1728\n");
    assert_eq!(run(&["knight", "3x5", "--tours", "both", "--sweep"]), {
        let lines: String = ["0", "0", "0", "8", "0"]
            .iter()
            .enumerate()
            .map(|(i, open)| format!("3x{n} closed 0\n3x{n} open {open}\n", n = i + 1))
            .collect();
        lines
    });
}

#[test]
fn other_leapers_count_open_tours() {
    // Hamiltonian paths of the 4x4 grid (OEIS A096969: 552 directed).
    assert_eq!(run(&["tours", "--moves", "0,1", "4x4", "--open"]), "276\n");
    assert_eq!(run(&["camel", "6x6", "--open"]), "0\n", "the camel never changes colour");
    let zebra = run(&["zebra", "5x5", "--open", "--format", "json"]);
    let brute = leaper_core::problems::tours::brute::count_paths(5, 5, &"2,3".parse().unwrap()).paths;
    assert_eq!(
        zebra,
        format!(
            "{{\"problem\":\"zebra\",\"board\":\"5x5\",\"tours\":\"open\",\"count\":\"{brute}\",\"reason\":\"zebra 5x5: no \
             open tour: the board's graph is disconnected (3 components; 1 square has no move)\"}}\n"
        )
    );
}

#[test]
fn json_and_bfiles_of_open_sweeps() {
    let dir = scratch("bfile");
    std::fs::create_dir_all(&dir).unwrap();
    let bfile = dir.join("b.txt");
    let printed = run(&["knight", "3x8", "--open", "--sweep", "--format", "json", "--bfile", bfile.to_str().unwrap()]);
    let last = printed.lines().last().unwrap();
    assert_eq!(last, r#"{"problem":"knight","board":"3x8","tours":"open","count":"396"}"#);
    let bfile_text = bfile_rows(&bfile);
    assert!(bfile_text.starts_with("1 0\n2 0\n3 0\n4 8\n") && bfile_text.ends_with("8 396\n"), "{bfile_text}");

    run(&["knight", "3x8", "--open", "--sweep", "--directed", "--format", "json", "--bfile", bfile.to_str().unwrap()]);
    assert!(bfile_rows(&bfile).ends_with("8 792\n"));

    // One b-file, one sequence: both kinds are refused before counting, and nothing is written.
    let both = dir.join("both.txt");
    let output = leaper(&["knight", "3x8", "--tours", "both", "--sweep", "--bfile", both.to_str().unwrap()], None);
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("--tours both counts two"), "{}", text(&output.stderr));
    assert!(output.stdout.is_empty() && !both.exists());

    let output = leaper(&["knight", "6x6", "--open", "--tours", "closed"], None);
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("cannot be used with"), "{}", text(&output.stderr));
}

#[test]
fn an_open_tour_job_crashed_out_of_core_resumes_to_the_same_counts() {
    let board = ["knight", "5x8", "--open", "--sweep", "--buckets", "7", "--format", "json"];
    let expected = run(&board);
    assert!(
        expected.ends_with("{\"problem\":\"knight\",\"board\":\"5x8\",\"tours\":\"open\",\"count\":\"18061054\"}\n")
    );
    let dir = scratch("resume");
    let job = dir.join("job");
    let mut args = board.to_vec();
    args.extend(["--job-dir", job.to_str().unwrap()]);
    let crashed = leaper(&args, Some("crash@layer:20"));
    assert!(!crashed.status.success(), "the fault did not stop the job");
    assert!(expected.starts_with(&text(&crashed.stdout)), "only counts already final are printed");
    let status = run(&["status", "--job-dir", job.to_str().unwrap()]);
    assert!(status.contains("knight 5x8 --sweep --open"), "{status}");
    assert_eq!(run(&["resume", "--job-dir", job.to_str().unwrap()]), expected);
}
