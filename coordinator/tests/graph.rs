//! `leaper graph FILE` from the command line: the formats (edge list, graph6, sparse6, DIMACS,
//! stdin), the kinds of count, the notes and reasons, the errors; a graph job killed out of
//! core and resumed; long thin graphs (a cycle and a ladder of 100,000 vertices) counted in
//! seconds, in memory and out of core; and `--remove` on the leapers' boards.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{leaper, run, scratch, text};

/// The 4-cube as an edge list: 16 vertices named by their bits, 32 edges.
fn cube4() -> String {
    let mut lines = String::from("# the 4-cube\n");
    for u in 0..16u32 {
        for b in 0..4 {
            let v = u ^ 1 << b;
            if u < v {
                lines.push_str(&format!("{u:04b} {v:04b}\n"));
            }
        }
    }
    lines
}

/// The cycle `C_n` as an edge list (the issue's file: `i (i+1) mod n` a line).
fn cycle_edges(n: usize) -> Vec<(usize, usize)> {
    (0..n).map(|i| (i, (i + 1) % n)).collect()
}

/// The ladder `P_2 x P_n` (the 2 x n grid), rung by rung: vertices `2i` and `2i+1` form rung
/// `i`.
fn ladder_edges(n: usize) -> Vec<(usize, usize)> {
    let mut edges = Vec::new();
    for i in 0..n {
        edges.push((2 * i, 2 * i + 1));
        if i + 1 < n {
            edges.push((2 * i, 2 * i + 2));
            edges.push((2 * i + 1, 2 * i + 3));
        }
    }
    edges
}

/// `edges` as an edge-list file's text.
fn edge_list(edges: &[(usize, usize)]) -> String {
    edges.iter().map(|(u, v)| format!("{u} {v}\n")).collect()
}

/// The Hamiltonian cycles and (undirected) paths of a small graph on `0..n`, by brute force:
/// every directed Hamiltonian path from every vertex; a cycle is a path from 0 whose end
/// neighbours 0, counted once per direction.
fn brute_force_cycles_and_paths(n: usize, edges: &[(usize, usize)]) -> (u64, u64) {
    let mut adjacent = vec![0u32; n];
    for &(u, v) in edges {
        adjacent[u] |= 1 << v;
        adjacent[v] |= 1 << u;
    }
    // (paths from `at` covering the rest, those of them ending next to vertex 0)
    fn extend(adjacent: &[u32], at: usize, seen: u32, all: u32) -> (u64, u64) {
        if seen == all {
            return (1, u64::from(adjacent[at] & 1));
        }
        let (mut paths, mut closing) = (0, 0);
        let mut next = adjacent[at] & !seen;
        while next != 0 {
            let v = next.trailing_zeros() as usize;
            next &= next - 1;
            let (p, c) = extend(adjacent, v, seen | 1 << v, all);
            paths += p;
            closing += c;
        }
        (paths, closing)
    }
    let all = (1u32 << n) - 1;
    let directed_paths: u64 = (0..n).map(|start| extend(&adjacent, start, 1 << start, all).0).sum();
    let cycles = if n >= 3 { extend(&adjacent, 0, 1, all).1 / 2 } else { 0 };
    let paths = if n == 1 { 1 } else { directed_paths / 2 };
    (cycles, paths)
}

/// Runs `leaper ARGS` (with `LEAPER_FAULT` set to `fault`), killing it if it runs longer than
/// `limit`: its exit status, its stdout, and how long it took. Its stderr (a line a step) goes.
fn leaper_within(args: &[&str], fault: Option<&str>, limit: Duration) -> (bool, String, Duration) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_leaper"));
    command.args(args).env_remove("LEAPER_FAULT").stdout(Stdio::piped()).stderr(Stdio::null());
    if let Some(fault) = fault {
        command.env("LEAPER_FAULT", fault);
    }
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            return (status.success(), text(&output.stdout), started.elapsed());
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("leaper {args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Long thin graphs take time linear in their size (issue 55 item 5): the old build had not
/// counted the cycle of 100,000 vertices after 150 s (it was at step 54,000, its steps slowing
/// as they went); now each takes a few seconds, and a minute is far more than enough.
const LINEAR: Duration = Duration::from_secs(60);

#[test]
fn long_thin_graphs_count_in_time_linear_in_their_size() {
    let dir = scratch("thin");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, edges: &[(usize, usize)]| -> String {
        let path = dir.join(name);
        std::fs::write(&path, edge_list(edges)).unwrap();
        path.to_str().unwrap().to_string()
    };
    // Small cycles and ladders, leaper against brute force, and the counts the large ones are
    // checked against: a cycle C_n has 1 Hamiltonian cycle and n paths (one edge left out); a
    // 2 x n ladder 1 cycle (its rim) and n^2 - n + 2 paths (OEIS A003682).
    for n in 3..=9 {
        let edges = cycle_edges(n);
        let brute = brute_force_cycles_and_paths(n, &edges);
        assert_eq!(brute, (1, n as u64), "C{n}");
        let counted = run(&["graph", &write(&format!("c{n}.txt"), &edges), "--tours", "both"]);
        assert_eq!(counted, format!("closed {}\nopen {}\n", brute.0, brute.1), "C{n}");
    }
    for n in 2..=7 {
        let edges = ladder_edges(n);
        let brute = brute_force_cycles_and_paths(2 * n, &edges);
        assert_eq!(brute, (1, (n * n - n + 2) as u64), "2 x {n}");
        let counted = run(&["graph", &write(&format!("ladder{n}.txt"), &edges), "--tours", "both"]);
        assert_eq!(counted, format!("closed {}\nopen {}\n", brute.0, brute.1), "2 x {n}");
    }
    // The issue's cycle of 100,000 vertices, and a ladder of as many (its bound, 86,000 bits,
    // needs more moduli than leaper carries: the exact 64-bit pass alone counts it).
    let n = 100_000;
    let cycle = write("c100000.txt", &cycle_edges(n));
    let (ok, counted, took) = leaper_within(&["graph", &cycle, "--tours", "both"], None, LINEAR);
    assert!(ok);
    assert_eq!(counted, format!("closed 1\nopen {n}\n"));
    eprintln!("the cycle of {n} vertices, closed and open: {took:?}");
    let rungs = n / 2;
    let ladder = write("ladder50000.txt", &ladder_edges(rungs));
    let (ok, counted, took) = leaper_within(&["graph", &ladder, "--tours", "both"], None, LINEAR);
    assert!(ok);
    assert_eq!(counted, format!("closed 1\nopen {}\n", rungs * rungs - rungs + 2));
    eprintln!("the 2 x {rungs} ladder, closed and open: {took:?}");
    // Where such a bound is a count's true size (a 4 x 17,000 grid: 68,000 vertices, cycles
    // growing about 2.7-fold a column), the exact pass saturates and the count is refused,
    // saying why, not printed as its cap.
    let grid = dir.join("grid4.dimacs");
    std::fs::write(&grid, common::grid_dimacs(4, 17_000)).unwrap();
    let output = leaper(&["graph", grid.to_str().unwrap()], None);
    assert!(!output.status.success() && output.stdout.is_empty());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("a count reached 2^128 - 1 in the exact 128-bit pass"), "{stderr}");
    assert!(stderr.contains("more than the 1024 moduli"), "{stderr}");
}

/// The step of the pass a job directory's manifest names.
fn committed_step(job: &Path) -> (u64, u64) {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(job.join("manifest.json")).unwrap()).unwrap();
    let progress = &manifest["progress"];
    (progress["pass"].as_u64().unwrap_or(0), progress["next_cell"].as_u64().unwrap_or(0))
}

#[test]
fn a_long_cycle_out_of_core_commits_about_once_a_second_and_resumes_from_there() {
    let dir = scratch("thin-job");
    std::fs::create_dir_all(&dir).unwrap();
    let n = 100_000;
    let cycle = dir.join("c100000.txt");
    std::fs::write(&cycle, edge_list(&cycle_edges(n))).unwrap();
    let cycle = cycle.to_str().unwrap();
    let job = dir.join("job");
    let args = ["graph", cycle, "--tours", "both", "--job-dir", job.to_str().unwrap()];
    // Killed just after its first checkpoint within the pass (a second in, or at step 65,536
    // whatever the clock says): the checkpoint names a step in the middle of the pass.
    let (ok, _, _) = leaper_within(&args, Some("crash@release:1"), LINEAR);
    assert!(!ok, "the fault did not stop the job");
    let (pass, step) = committed_step(&job);
    assert!(pass == 0 && step > 0 && step <= 1 << 16, "committed at pass {pass}, step {step}");
    let (ok, counted, took) = leaper_within(&["resume", "--job-dir", job.to_str().unwrap()], None, LINEAR);
    assert!(ok);
    assert_eq!(counted, format!("closed 1\nopen {n}\n"));
    eprintln!("the cycle of {n} vertices resumed from step {step} out of core: {took:?}");
    // From the start, out of core, in one go.
    std::fs::remove_dir_all(&job).unwrap();
    let (ok, counted, took) = leaper_within(&args, None, LINEAR);
    assert!(ok);
    assert_eq!(counted, format!("closed 1\nopen {n}\n"));
    eprintln!("the cycle of {n} vertices out of core: {took:?}");
}

#[test]
fn graphs_in_every_format_count_their_cycles_and_paths() {
    let dir = scratch("formats");
    std::fs::create_dir_all(&dir).unwrap();
    let cube = dir.join("cube4.txt");
    std::fs::write(&cube, cube4()).unwrap();
    let cube = cube.to_str().unwrap();
    // The 4-cube: 1344 Hamiltonian cycles (A066037); each once per direction with --directed.
    assert_eq!(run(&["graph", cube]), "1344\n");
    assert_eq!(run(&["graph", cube, "--directed"]), "2688\n");
    assert_eq!(
        run(&["graph", cube, "--format", "json"]),
        "{\"problem\":\"graph\",\"graph\":\"".to_string()
            + cube
            + "\",\"vertices\":16,\"edges\":32,\"tours\":\"closed\",\"count\":\"1344\"}\n"
    );
    // The grid graphs of A003763, in DIMACS: 6 x 6 has 1072 cycles.
    let grid = dir.join("grid.dimacs");
    std::fs::write(&grid, common::grid_dimacs(6, 6)).unwrap();
    assert_eq!(run(&["graph", grid.to_str().unwrap()]), "1072\n");
    // The Petersen graph in graph6, from stdin: no Hamiltonian cycle, and both kinds at once.
    let mut child = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["graph", "-", "--tours", "both"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"IheA@GUAo\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "closed 0\nopen 120\n");
    // K5 in graph6 (nauty: `D~{`), named with --from: 60 paths. The example of nauty's
    // formats.txt in sparse6, `:Fa@x^` (7 vertices, edges 0-1 0-2 1-2 5-6): disconnected.
    let k5 = dir.join("k5");
    std::fs::write(&k5, "D~{\n").unwrap();
    assert_eq!(run(&["graph", k5.to_str().unwrap(), "--from", "graph6", "--open"]), "60\n");
    let example = dir.join("example.s6");
    std::fs::write(&example, ":Fa@x^\n").unwrap();
    let output = leaper(&["graph", example.to_str().unwrap(), "--tours", "both"], None);
    assert_eq!(text(&output.stdout), "closed 0\nopen 0\n");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("4 vertices have fewer than two neighbours (3, 4, 5, ...)"), "{stderr}");
    assert!(stderr.contains("2 vertices have no neighbour (3, 4)"), "{stderr}");
    // The note names the order and the frontier's width.
    let output = leaper(&["graph", cube], None);
    let stderr = text(&output.stderr);
    assert!(stderr.contains("16 vertices, 32 edges; vertex order"), "{stderr}");
    assert!(stderr.contains("frontier") && stderr.contains("window"), "{stderr}");
}

#[test]
fn graphs_with_no_cycle_say_why_and_bad_input_is_refused() {
    let dir = scratch("reasons");
    std::fs::create_dir_all(&dir).unwrap();
    // A cut vertex: two triangles sharing vertex c.
    let bowtie = dir.join("bowtie.txt");
    std::fs::write(&bowtie, "a b\nb c\nc a\nc d\nd e\ne c\n").unwrap();
    let output = leaper(&["graph", bowtie.to_str().unwrap(), "--format", "json"], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains(r#""count":"0","reason":"graph "#) && stdout.contains("vertex c is a cut vertex"),
        "{stdout}"
    );
    assert!(text(&output.stderr).contains("vertex c is a cut vertex"));
    // Bad lines name the file and line; nothing is left behind in the job directory.
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "a b\nb c d\n").unwrap();
    let job = dir.join("job");
    let output = leaper(&["graph", bad.to_str().unwrap(), "--job-dir", job.to_str().unwrap()], None);
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("bad.txt line 2"), "{stderr}");
    assert!(!job.exists(), "a refused job left its directory");
    let output = leaper(&["graph", dir.join("missing.txt").to_str().unwrap()], None);
    assert!(!output.status.success() && text(&output.stderr).contains("missing.txt"));
    // A graph too wide for the key: the complete graph on 40 vertices.
    let wide = dir.join("k40.txt");
    let edges: String = (0..40).flat_map(|u| (u + 1..40).map(move |v| format!("{u} {v}\n"))).collect();
    std::fs::write(&wide, edges).unwrap();
    let output = leaper(&["graph", wide.to_str().unwrap()], None);
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("too wide") && stderr.contains("at most 31"), "{stderr}");
    // A b-file is for sequences.
    let output = leaper(&["graph", bowtie.to_str().unwrap(), "--bfile", dir.join("b.txt").to_str().unwrap()], None);
    assert!(!output.status.success() && text(&output.stderr).contains("not a sequence"));
    // An order that misses a vertex.
    let order = dir.join("order.txt");
    std::fs::write(&order, "a b c d\n").unwrap();
    let output = leaper(&["graph", bowtie.to_str().unwrap(), "--order", order.to_str().unwrap()], None);
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("leaves out 1 vertices (e)"), "{}", text(&output.stderr));
}

/// Issue 55: a graph6 line that lies about its size (damaged, cut short, trailing data) was
/// taken for an edge list of one vertex and counted 0. It is refused, from a file and from
/// stdin, naming the format, the line and what is wrong; no job directory is made.
#[test]
fn a_graph_file_that_lies_is_refused_never_counted() {
    let dir = scratch("lies");
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("job");
    // Each line with the vertex count its first character gives, and what follows it.
    for (line, vertices, wanted, found) in [
        ("E~~", 6, 3, 2),       // K6 cut short
        ("F~~w", 7, 4, 3),      // the header overstates the size
        ("D~~w", 5, 2, 3),      // ... and understates it
        ("E~~w~~", 6, 3, 5),    // trailing data
        ("IheA", 10, 8, 3),     // a cut-short Petersen graph
        ("IheA@GUA", 10, 8, 7), // one character short
    ] {
        let file = dir.join("g.g6");
        std::fs::write(&file, format!("{line}\n")).unwrap();
        for from_stdin in [false, true] {
            let (source, output) = if from_stdin {
                let mut child = Command::new(env!("CARGO_BIN_EXE_leaper"))
                    .args(["graph", "-", "--job-dir", job.to_str().unwrap()])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                child.stdin.take().unwrap().write_all(format!("{line}\n").as_bytes()).unwrap();
                ("stdin", child.wait_with_output().unwrap())
            } else {
                let args = ["graph", file.to_str().unwrap(), "--job-dir", job.to_str().unwrap()];
                (file.to_str().unwrap(), leaper(&args, None))
            };
            let stderr = text(&output.stderr);
            assert!(!output.status.success(), "{line} from {source}: counted {}", text(&output.stdout));
            assert_eq!(text(&output.stdout), "", "{line}");
            let characters = if wanted == 1 { "character" } else { "characters" };
            let expected = format!(
                "{source} line 1: \"{line}\" is no whole graph6 graph: graph6 of {vertices} vertices has {wanted} \
                 {characters} after the vertex count (n(n-1)/2 bits, six a character), this line {found} \
                 (recognised as graph6: a line of graph6's characters alone; --from reads it as another format)"
            );
            assert!(stderr.contains(&expected), "{stderr}\nwanted {expected}");
            assert!(!job.exists(), "a refused graph left a job directory");
        }
    }
    // The same with --from graph6: the reader's words, without how the format was recognised.
    let file = dir.join("given.g6");
    std::fs::write(&file, "E~~\n").unwrap();
    let output = leaper(&["graph", file.to_str().unwrap(), "--from", "graph6"], None);
    let stderr = text(&output.stderr);
    assert!(!output.status.success() && stderr.contains("is no whole graph6 graph"), "{stderr}");
    assert!(!stderr.contains("recognised as"), "{stderr}");
    // A file of one token that is no graph6 is an edge list of one vertex: its 0 says why,
    // naming the vertex read.
    let lone = dir.join("lone.txt");
    std::fs::write(&lone, "x1\n").unwrap();
    let output = leaper(&["graph", lone.to_str().unwrap()], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "0\n");
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("no Hamiltonian cycle: a Hamiltonian cycle needs 3 vertices or more, and the graph has 1 (x1)"),
        "{stderr}"
    );
    // A valid graph6 line still counts: K6 has 60 Hamiltonian cycles.
    std::fs::write(&file, "E~~w\n").unwrap();
    assert_eq!(run(&["graph", file.to_str().unwrap()]), "60\n");
}

#[test]
fn a_graph_job_killed_out_of_core_resumes_to_the_same_count() {
    let dir = scratch("resume");
    std::fs::create_dir_all(&dir).unwrap();
    let grid = dir.join("grid.dimacs");
    std::fs::write(&grid, common::grid_dimacs(8, 8)).unwrap();
    let grid = grid.to_str().unwrap();
    let expected = run(&["graph", grid, "--format", "json"]);
    assert!(expected.contains(r#""count":"4638576""#), "{expected}");
    let job = dir.join("job");
    let args = ["graph", grid, "--format", "json", "--buckets", "7", "--job-dir", job.to_str().unwrap()];
    let crashed = leaper(&args, Some("crash@layer:30"));
    assert!(!crashed.status.success(), "the fault did not stop the job");
    let status = run(&["status", "--job-dir", job.to_str().unwrap()]);
    assert!(status.contains("graph "), "{status}");
    // The graph is in job.toml: the resume reads no file.
    std::fs::remove_file(grid).unwrap();
    assert_eq!(run(&["resume", "--job-dir", job.to_str().unwrap()]), expected);
}

/// `leaper knight BOARD --remove SQUARES` with `--format json`: its one line.
fn holed(board: &str, removed: &str) -> String {
    let output = leaper(&["knight", board, "--remove", removed, "--format", "json"], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stdout)
}

#[test]
fn boards_with_squares_removed() {
    // Two opposite corners of one colour: no closed tour, by colour, said as a reason (the
    // 8 x 8 board, which takes minutes, is the ignored test below).
    let line = holed("6x6", "a1,f6");
    assert!(line.contains(r#""board":"6x6","removed":["a1","f6"],"tours":"closed","count":"0""#), "{line}");
    assert!(line.contains("18 squares of one colour and 16 of the other"), "{line}");
    // A corner and its neighbour of the other colour: the same board two ways, names and mask.
    let dir = scratch("holes");
    std::fs::create_dir_all(&dir).unwrap();
    let mask = dir.join("mask.txt");
    std::fs::write(&mask, "......\n......\n......\n......\n......\nxx....\n").unwrap();
    let by_names = run(&["knight", "6x6", "--remove", "b1,a1", "--open"]);
    let by_mask = run(&["knight", "6x6", "--remove-mask", mask.to_str().unwrap(), "--open"]);
    assert_eq!(by_names, by_mask);
    assert_ne!(by_names, "0\n");
    let output = leaper(&["knight", "8x8", "--remove", "a9"], None);
    assert!(!output.status.success() && text(&output.stderr).contains("not on the 8x8 board"));
    let output = leaper(&["knight", "8x8", "--remove", "a1", "--sweep"], None);
    assert!(!output.status.success() && text(&output.stderr).contains("cannot be used with"));
    // The mask from stdin, as a graph is read.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["knight", "6x6", "--remove-mask", "-", "--open"])
        .stdin(std::fs::File::open(&mask).unwrap())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), by_names);
}

/// Issue 55: `--remove a1,a1` and `--remove ""` were read as `a1` and as no square at all (the
/// whole board counted as a graph); both are slips, refused with what to give instead, before
/// any job directory is made.
#[test]
fn a_square_named_twice_or_an_empty_name_is_refused() {
    let dir = scratch("remove-slips");
    let job = dir.join("job");
    for (removed, says) in [
        ("a1,a1", "error: --remove: square a1 is named twice; give each square once\n"),
        ("b1,A1,a1", "error: --remove: square a1 is named twice; give each square once\n"),
        ("", "error: --remove \"\": an empty square name; give the squares by name, each once, as in a1,h8\n"),
        (
            "a1,,b2",
            "error: --remove \"a1,,b2\": an empty square name; give the squares by name, each once, as in a1,h8\n",
        ),
    ] {
        let output = leaper(&["knight", "6x6", "--remove", removed, "--job-dir", job.to_str().unwrap()], None);
        assert_eq!(output.status.code(), Some(1), "{removed:?}: {}", text(&output.stdout));
        assert!(text(&output.stderr).ends_with(says), "{removed:?}: {}", text(&output.stderr));
        assert!(output.stdout.is_empty() && !job.exists(), "{removed:?}");
    }
    let output = leaper(&["knight", "6x6", "--remove", "a1", "--remove", "a1"], None);
    assert!(text(&output.stderr).contains("square a1 is named twice"), "{}", text(&output.stderr));
    // Named once each, the squares are removed.
    assert_eq!(holed("6x6", "a1"), holed("6x6", "A1 "));
}

/// The issue's example: minutes of counting (1.2e9 states) to confirm the reason's 0.
#[test]
#[ignore]
fn the_chessboard_without_two_opposite_corners_has_no_closed_tour() {
    let output = leaper(
        &["knight", "8x8", "--remove", "a1,h8", "--format", "json", "--count-anyway", "--log-format", "json"],
        None,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let line = text(&output.stdout);
    assert!(line.contains(r#""board":"8x8","removed":["a1","h8"],"tours":"closed","count":"0""#), "{line}");
    assert!(line.contains("32 squares of one colour and 30 of the other"), "{line}");
    assert!(text(&output.stderr).contains("step done"), "--count-anyway counted nothing");
}

/// Issue 55: a count known to be 0 is not computed (`knight 8x8 --remove a1,h8` counted for 6
/// minutes and 3.7 GB, `knight 7x9` read 30.6 M states, to print the 0 its reason had given):
/// the reasons and the 0s are printed at once, no job directory is made, and `--count-anyway`
/// counts to check the reasons. A count with a reason for some lengths only is counted.
#[test]
fn counts_known_to_be_zero_are_not_computed() {
    let dir = scratch("proved-zero");
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("job");
    let counted = |output: &std::process::Output| text(&output.stderr).contains("step done");
    let nothing = "nothing was counted: every count is 0 for the reasons above";
    for (args, zeros, reason) in [
        (&["knight", "8x8", "--remove", "a1,h8"][..], 1, "32 squares of one colour and 30 of the other"),
        (&["knight", "7x9"][..], 1, "32 squares of one colour and 31 of the other"),
        (&["knight", "9x7", "--tours", "closed"][..], 1, "32 squares of one colour and 31 of the other"),
        (&["zebra", "5x12", "--sweep"][..], 12, "no closed tour"),
    ] {
        let mut with_job = args.to_vec();
        with_job.extend(["--job-dir", job.to_str().unwrap(), "--log-format", "json"]);
        let output = leaper(&with_job, None);
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{args:?}: {stderr}");
        assert_eq!(text(&output.stdout).lines().filter(|l| l.ends_with(" 0") || *l == "0").count(), zeros, "{args:?}");
        assert!(stderr.contains(reason) && stderr.contains(nothing), "{args:?}: {stderr}");
        assert!(!counted(&output), "{args:?} counted: {stderr}");
        assert!(!job.exists(), "{args:?}: a job directory was made for nothing");
    }
    // Asked to, it counts, and the count agrees with the reason.
    let output = leaper(&["knight", "7x9", "--count-anyway", "--log-format", "json"], None);
    assert!(output.status.success() && counted(&output), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "0\n");
    assert!(!text(&output.stderr).contains(nothing));
    // Reasons for some lengths, not all: the sweep counts (knight 3x4 has no closed tour, 3x10 has).
    let output = leaper(&["knight", "3x10", "--sweep", "--log-format", "json"], None);
    assert!(output.status.success() && counted(&output), "{}", text(&output.stderr));
    assert!(text(&output.stdout).ends_with("3x10 16\n"), "{}", text(&output.stdout));
}

/// Hamiltonian cycles and paths of a small graph by trying every order: the independent route.
fn brute_force(n: usize, edges: &[(usize, usize)]) -> (u64, u64) {
    let mut adjacent = vec![vec![false; n]; n];
    for &(u, v) in edges {
        adjacent[u][v] = true;
        adjacent[v][u] = true;
    }
    // Paths from `v`, `seen` holding the vertices used: (closing back to 0, reaching all).
    fn walk(adjacent: &[Vec<bool>], v: usize, seen: &mut Vec<bool>, used: usize) -> (u64, u64) {
        let n = adjacent.len();
        if used == n {
            return (u64::from(adjacent[v][0]), 1);
        }
        let mut found = (0, 0);
        for w in 0..n {
            if adjacent[v][w] && !seen[w] {
                seen[w] = true;
                let (cycles, paths) = walk(adjacent, w, seen, used + 1);
                seen[w] = false;
                found = (found.0 + cycles, found.1 + paths);
            }
        }
        found
    }
    let mut directed_paths = 0;
    let mut directed_cycles = 0;
    for start in 0..n {
        let mut seen = vec![false; n];
        seen[start] = true;
        let (cycles, paths) = walk(&adjacent, start, &mut seen, 1);
        directed_paths += paths;
        if start == 0 {
            directed_cycles = cycles;
        }
    }
    let cycles = if n >= 3 { directed_cycles / 2 } else { 0 };
    let paths = if n == 1 { 1 } else { directed_paths / 2 };
    (cycles, paths)
}

/// The seeded campaign of issue 55: random graphs in every format are counted as brute force
/// counts them; the same files damaged (cut short, trailing bytes, a lying vertex count, a
/// character changed) are either refused, naming the format they were recognised as, or read as
/// a graph of that very format and counted exactly; never read as another format.
#[test]
fn a_seeded_campaign_of_valid_damaged_and_lying_graph_files() {
    use leaper_core::problems::graph::input::{Format, Graph};
    let dir = scratch("campaign");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("g");
    let mut state = 0x5eed_u64;
    let mut random = move |bound: usize| {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % bound as u64) as usize
    };
    let counted = |text: &str| -> (std::process::Output, std::process::Output) {
        std::fs::write(&file, text).unwrap();
        let path = file.to_str().unwrap();
        (leaper(&["graph", path], None), leaper(&["graph", path, "--open"], None))
    };
    let (mut refused, mut read) = (0, 0);
    for round in 0..24 {
        let n = 3 + random(6);
        let edges: Vec<(usize, usize)> =
            (0..n).flat_map(|v| (0..v).map(move |u| (u, v))).filter(|_| random(100) < 60).collect();
        let graph = Graph::from_edges((0..n).map(|v| v.to_string()).collect(), edges.clone());
        let format = Format::ALL[round % 4];
        let written = graph.write(format);
        // Valid: the count of brute force.
        let (cycles, paths) = brute_force(n, &edges);
        let (closed, open) = counted(&written);
        assert!(closed.status.success() && open.status.success(), "{format} {written:?}: {}", text(&closed.stderr));
        assert_eq!(
            (text(&closed.stdout), text(&open.stdout)),
            (format!("{cycles}\n"), format!("{paths}\n")),
            "{format} {written:?}"
        );
        // Damaged, on the line that holds the graph (the last for DIMACS and edge lists).
        let body = written.trim_end();
        let damaged = match random(4) {
            0 => body[..body.len() - 1].to_string(),
            1 => format!("{body}~"),
            2 if matches!(format, Format::Graph6) => {
                // The vertex count lies: one more or one fewer.
                let first = body.as_bytes()[0];
                let lie = if random(2) == 0 { first + 1 } else { first - 1 };
                format!("{}{}", lie as char, &body[1..])
            }
            _ => {
                let at = random(body.len());
                let mut bytes = body.as_bytes().to_vec();
                bytes[at] = b'?' + (random(64) as u8);
                String::from_utf8(bytes).unwrap()
            }
        } + "\n";
        let detected = Format::detect(&damaged);
        if matches!(format, Format::Graph6 | Format::Sparse6) && !damaged.trim().is_empty() {
            assert_eq!(detected, format, "{damaged:?} was recognised as another format");
        }
        let (closed, open) = counted(&damaged);
        match Graph::read(&damaged, Some(detected), "g") {
            Err(_) => {
                refused += 1;
                for output in [&closed, &open] {
                    assert_eq!(output.status.code(), Some(1), "{format} {damaged:?} was counted");
                    assert!(output.stdout.is_empty());
                }
            }
            Ok((graph, _)) => {
                read += 1;
                let n = graph.vertices();
                let edges: Vec<(usize, usize)> = graph.edges().collect();
                if n > 12 {
                    continue;
                }
                let (cycles, paths) = brute_force(n, &edges);
                assert_eq!(
                    (text(&closed.stdout), text(&open.stdout)),
                    (format!("{cycles}\n"), format!("{paths}\n")),
                    "{format} damaged to {damaged:?}: {}",
                    text(&closed.stderr)
                );
            }
        }
    }
    // The campaign tried both outcomes.
    assert!(refused > 0 && read > 0, "refused {refused}, read {read}");
}

/// `leaper ARGS` with `input` on its stdin.
fn leaper_with_stdin(args: &[&str], input: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(args)
        .env_remove("LEAPER_FAULT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    // Written from a thread of its own: leaper may print (and fill its stdout) before it has read it all.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// The graphs on `n` vertices up to isomorphism, each as its edges: by brute force, the least
/// mask over the pairs of each class under every permutation of the vertices, in increasing
/// order of it.
fn graphs_up_to_isomorphism(n: usize) -> Vec<Vec<(usize, usize)>> {
    let pairs: Vec<(usize, usize)> = (0..n).flat_map(|v| (0..v).map(move |u| (u, v))).collect();
    let mut permutations: Vec<Vec<usize>> = vec![vec![]];
    for _ in 0..n {
        let mut longer = Vec::new();
        for p in &permutations {
            for v in (0..n).filter(|v| !p.contains(v)) {
                longer.push([p.clone(), vec![v]].concat());
            }
        }
        permutations = longer;
    }
    let index = |u: usize, v: usize| pairs.iter().position(|&(a, b)| (a, b) == (u.min(v), u.max(v))).unwrap();
    let mut classes: Vec<u64> = (0..1u64 << pairs.len())
        .map(|mask| {
            permutations
                .iter()
                .map(|p| {
                    (0..pairs.len())
                        .filter(|&i| mask >> i & 1 == 1)
                        .map(|i| 1u64 << index(p[pairs[i].0], p[pairs[i].1]))
                        .sum::<u64>()
                })
                .min()
                .unwrap()
        })
        .collect();
    classes.sort_unstable();
    classes.dedup();
    classes
        .into_iter()
        .map(|mask| (0..pairs.len()).filter(|&i| mask >> i & 1 == 1).map(|i| pairs[i]).collect())
        .collect()
}

/// graph6 of a graph on `n` < 63 vertices (nauty's formats.txt), written here, apart from
/// leaper's writer: N(n), then the upper triangle column by column, six bits a character.
fn graph6(n: usize, edges: &[(usize, usize)]) -> String {
    let bits: Vec<bool> = (0..n)
        .flat_map(|v| (0..v).map(move |u| (u, v)))
        .map(|(u, v)| edges.iter().any(|&(a, b)| (a.min(b), a.max(b)) == (u, v)))
        .collect();
    let mut line = String::from(char::from(63 + n as u8));
    for chunk in bits.chunks(6) {
        let value = (0..6).fold(0u8, |value, i| value << 1 | u8::from(chunk.get(i) == Some(&true)));
        line.push(char::from(63 + value));
    }
    line
}

/// Issue 58: `geng 4 | leaper graph -` was refused ("holds 11 graphs"); each graph of a graph6
/// or sparse6 stream is counted, one line a graph, in the stream's order.
#[test]
fn a_graph6_stream_of_the_11_graphs_on_4_vertices_is_counted_one_line_a_graph() {
    let graphs = graphs_up_to_isomorphism(4);
    assert_eq!(graphs.len(), 11);
    let stream: String = graphs.iter().map(|edges| graph6(4, edges) + "\n").collect();
    let brute: Vec<(u64, u64)> = graphs.iter().map(|edges| brute_force_cycles_and_paths(4, edges)).collect();
    let cycles: String = brute.iter().map(|(cycles, _)| format!("{cycles}\n")).collect();
    // The 4-cycle, the 4-cycle with a chord, K4: 1, 1, 3; the other 8 graphs have none.
    let mut sorted: Vec<u64> = brute.iter().map(|&(cycles, _)| cycles).collect();
    sorted.sort_unstable();
    assert_eq!(sorted, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 3]);
    let output = leaper_with_stdin(&["graph", "-"], &stream);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), cycles);
    // Both kinds: the closed and the open count on the graph's line.
    let both: String = brute.iter().map(|(cycles, paths)| format!("{cycles} {paths}\n")).collect();
    assert_eq!(text(&leaper_with_stdin(&["graph", "-", "--tours", "both"], &stream).stdout), both);
    let paths: String = brute.iter().map(|(_, paths)| format!("{paths}\n")).collect();
    assert_eq!(text(&leaper_with_stdin(&["graph", "-", "--open"], &stream).stdout), paths);
    // With a header, blank lines, and from a file; JSON names each graph's line.
    let dir = scratch("stream");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("four.g6");
    std::fs::write(&file, format!(">>graph6<<{}\n", stream.replace('\n', "\n\n"))).unwrap();
    assert_eq!(run(&["graph", file.to_str().unwrap()]), cycles);
    let json = run(&["graph", file.to_str().unwrap(), "--format", "json"]);
    let last = json.lines().last().unwrap();
    let line = format!("\"graph\":\"{} line 21\"", file.to_str().unwrap());
    assert!(last.contains(&line) && last.ends_with(&format!("\"count\":\"{}\",\"line\":21}}", brute[10].0)), "{last}");
    // The same graphs in sparse6 (leaper's writer, which its own tests read back).
    use leaper_core::problems::graph::input::{Format, Graph};
    let sparse6: String = graphs
        .iter()
        .map(|edges| Graph::read(&graph6(4, edges), Some(Format::Graph6), "g").unwrap().0.write(Format::Sparse6))
        .collect();
    assert_eq!(sparse6.lines().count(), 11);
    assert!(sparse6.lines().all(|line| line.starts_with(':')), "{sparse6}");
    assert_eq!(text(&leaper_with_stdin(&["graph", "-"], &sparse6).stdout), cycles);
    // A graph larger than a small one runs alone, in its place: the 6 x 6 grid (1072 cycles).
    let grid: Vec<(usize, usize)> = (0..36)
        .flat_map(|v| [(v % 6 + 1 < 6).then_some((v, v + 1)), (v + 6 < 36).then_some((v, v + 6))])
        .flatten()
        .collect();
    // Cr is the 4-cycle 0-1-3-2-0.
    let mixed = format!("C~\n{}\nCr\n", graph6(36, &grid));
    assert_eq!(text(&leaper_with_stdin(&["graph", "-"], &mixed).stdout), "3\n1072\n1\n");
}

/// A stream's bad line or too wide a graph is an error naming its line, after the lines before
/// it; what needs one job is refused.
#[test]
fn a_stream_s_bad_line_is_named_and_ends_it() {
    let output = leaper_with_stdin(&["graph", "-"], "C~\nC^\nC~~\nC~\n");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout), "3\n1\n");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("error: stdin line 3: \"C~~\" is no whole graph6 graph"), "{stderr}");
    // K40 on line 2: too wide, by its line.
    let k40: Vec<(usize, usize)> = (0..40).flat_map(|v| (0..v).map(move |u| (u, v))).collect();
    let output = leaper_with_stdin(&["graph", "-"], &format!("C~\n{}\n", graph6(40, &k40)));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout), "3\n");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("error: graph stdin line 2 is too wide: frontier 39, the keys hold 31"), "{stderr}");
    let output = leaper_with_stdin(&["graph", "-", "--job-dir", "/nonexistent/job"], "C~\nC^\n");
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("--job-dir is for one count, and the input is a stream"));
    assert!(output.stdout.is_empty());
}

/// Issue 58: an edge list read with `--from graph6` said "holds 2 graphs"; now what the graph6
/// reader finds wrong in its first line. A graph too wide says how wide, and what the keys hold.
#[test]
fn a_wrong_from_says_what_the_reader_found_and_too_wide_says_how_wide() {
    let dir = scratch("wrong-from");
    std::fs::create_dir_all(&dir).unwrap();
    let edges = dir.join("path.txt");
    std::fs::write(&edges, "0 1\n1 2\n").unwrap();
    let output = leaper(&["graph", edges.to_str().unwrap(), "--from", "graph6"], None);
    assert_eq!(output.status.code(), Some(1));
    let expected = format!(
        "error: {} line 1: '0' (character 1) is no graph6 character: they run from '?' to '~' (bytes 63 to 126)\n",
        edges.display()
    );
    assert_eq!(text(&output.stderr), expected);
    let wide = dir.join("k40.txt");
    let k40: String = (0..40).flat_map(|u| (u + 1..40).map(move |v| format!("{u} {v}\n"))).collect();
    std::fs::write(&wide, k40).unwrap();
    let stderr = text(&leaper(&["graph", wide.to_str().unwrap()], None).stderr);
    let expected = format!("error: graph {} is too wide: frontier 39, the keys hold 31 (", wide.display());
    assert!(stderr.starts_with(&expected), "{stderr}");
}

/// Issue 58: `--print-order` prints the order chosen, by vertex names, as `--order` reads it:
/// fed back, the same count and the same order; the note names it too, and a holed board's.
#[test]
fn the_printed_order_reads_back_to_the_same_count() {
    let dir = scratch("print-order");
    std::fs::create_dir_all(&dir).unwrap();
    let cube = dir.join("cube4.txt");
    std::fs::write(&cube, cube4()).unwrap();
    let cube = cube.to_str().unwrap();
    let printed = run(&["graph", cube, "--print-order"]);
    let names: Vec<&str> = printed.split_whitespace().collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    let all: Vec<String> = (0..16).map(|v| format!("{v:04b}")).collect();
    assert_eq!(sorted, all, "{printed}");
    let order = dir.join("order.txt");
    std::fs::write(&order, &printed).unwrap();
    let order = order.to_str().unwrap();
    assert_eq!(run(&["graph", cube, "--order", order]), "1344\n");
    assert_eq!(run(&["graph", cube, "--order", order, "--print-order"]), printed);
    // The note names the order, whole for 16 vertices.
    let stderr = text(&leaper(&["graph", cube], None).stderr);
    assert!(stderr.contains(&format!("; the order: {}", printed.trim_end())), "{stderr}");
    // A board with squares removed, counted as a graph, names its order too.
    let stderr = text(&leaper(&["knight", "6x6", "--remove", "a1,b1"], None).stderr);
    assert!(stderr.contains("knight 6x6 without a1, b1: 34 squares; vertex order"), "{stderr}");
    assert!(stderr.contains("; the order begins ") && stderr.contains(" ...\n"), "{stderr}");
}
