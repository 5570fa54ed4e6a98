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

/// The `w` x `h` grid graph in DIMACS, vertices 1-based.
fn grid_dimacs(w: usize, h: usize) -> String {
    let mut edges = Vec::new();
    for v in 0..w * h {
        if v % w + 1 < w {
            edges.push((v, v + 1));
        }
        if v + w < w * h {
            edges.push((v, v + w));
        }
    }
    let mut text = format!("c the {w} x {h} grid\np edge {} {}\n", w * h, edges.len());
    for (u, v) in edges {
        text.push_str(&format!("e {} {}\n", u + 1, v + 1));
    }
    text
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
    let dir = scratch("graph", "thin");
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
    // saying why, not printed as 2^64 - 1.
    let grid = dir.join("grid4.dimacs");
    std::fs::write(&grid, grid_dimacs(4, 17_000)).unwrap();
    let output = leaper(&["graph", grid.to_str().unwrap()], None);
    assert!(!output.status.success() && output.stdout.is_empty());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("a count reached 2^64 - 1 in the exact 64-bit pass"), "{stderr}");
    assert!(stderr.contains("more than the 1024 moduli"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
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
    let dir = scratch("graph", "thin-job");
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn graphs_in_every_format_count_their_cycles_and_paths() {
    let dir = scratch("graph", "formats");
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
    std::fs::write(&grid, grid_dimacs(6, 6)).unwrap();
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn graphs_with_no_cycle_say_why_and_bad_input_is_refused() {
    let dir = scratch("graph", "reasons");
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_graph_job_killed_out_of_core_resumes_to_the_same_count() {
    let dir = scratch("graph", "resume");
    std::fs::create_dir_all(&dir).unwrap();
    let grid = dir.join("grid.dimacs");
    std::fs::write(&grid, grid_dimacs(8, 8)).unwrap();
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
    std::fs::remove_dir_all(&dir).unwrap();
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
    let dir = scratch("graph", "holes");
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
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The issue's example: minutes of counting (1.2e9 states) to confirm the reason's 0.
#[test]
#[ignore]
fn the_chessboard_without_two_opposite_corners_has_no_closed_tour() {
    let line = holed("8x8", "a1,h8");
    assert!(line.contains(r#""board":"8x8","removed":["a1","h8"],"tours":"closed","count":"0""#), "{line}");
    assert!(line.contains("32 squares of one colour and 30 of the other"), "{line}");
}
