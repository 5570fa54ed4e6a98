//! `leaper tours enumerate | generate | dedupe | convert | show`: the 6x6 closed tours against
//! the transfer matrix and the published classes (1245: 1223 asymmetric, 17 binary, 5
//! quaternary), the orbit-counting identity, the formats and their round trips, invalid lines
//! named by file and line, Warnsdorff tours deterministic for a seed.

use std::fs;
use std::path::{Path, PathBuf};

mod common;

use common::{known, known_line, leaper, path, run, scratch_dir, text};

/// The closed tours of 6 x 6, as the published table has them.
fn six_by_six() -> u64 {
    known("knight 6x6").parse().unwrap()
}

fn fails(args: &[&str]) -> String {
    let output = leaper(args, None);
    assert!(!output.status.success(), "leaper {args:?} should fail: {}", text(&output.stdout));
    text(&output.stderr)
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    serde_json::from_str(run(&args).trim()).expect("one JSON line")
}

/// Enumerates the 6x6 closed tours into `dir/tours6.txt`.
fn enumerate_6x6(dir: &Path) -> PathBuf {
    let file = dir.join("tours6.txt");
    let printed = run(&["tours", "enumerate", "6x6", "--closed", "--out", path(&file)]);
    assert_eq!(printed, known_line("knight 6x6"));
    file
}

#[test]
fn six_by_six_closed_tours_agree_with_the_transfer_matrix_and_the_published_classes() {
    let dir = scratch_dir("enumerate");
    let file = enumerate_6x6(&dir);
    assert_eq!(run(&["knight", "6x6"]), known_line("knight 6x6"), "the transfer matrix counts as many");
    let bytes = fs::read(&file).unwrap();
    let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    assert_eq!(lines.len() as u64, six_by_six());
    assert!(lines.iter().all(|l| l.len() == 2 + 36 + 2 + 36 + 2 && l.ends_with(b"\r\n")));
    let totals = json(&["tours", "dedupe", path(&file), "--board", "6x6", "--closed"]);
    assert_eq!(totals["tours"], six_by_six());
    assert_eq!(totals["classes"], 1245);
    assert_eq!(totals["closed_classes"], 1245);
    assert_eq!(totals["by_symmetry"], serde_json::json!({"1": 1223, "2": 17, "4": 5}));
    // Orbit counting: 8 / |stabiliser| summed over the classes is every tour once.
    assert_eq!(totals["images"], six_by_six());
    // One tour per class, and deduplicating those again changes nothing.
    let distinct = dir.join("distinct.txt");
    let output = leaper(&["tours", "dedupe", path(&file), "--board", "6x6", "--out", path(&distinct)], None);
    let printed = text(&output.stdout);
    assert!(printed.contains("classes         1245 (1245 closed, 0 open)"), "{printed}");
    // Through a pipe, a tool of a second says nothing on stderr (it said `INFO ... buckets=2`).
    assert_eq!(text(&output.stderr), "");
    let again = json(&["tours", "dedupe", path(&distinct), "--board", "6x6"]);
    assert_eq!((again["tours"].as_u64(), again["classes"].as_u64()), (Some(1245), Some(1245)));
    // The kept tours are the first of each class, in input order: the file is a subsequence.
    let kept = fs::read_to_string(&distinct).unwrap();
    let all = fs::read_to_string(&file).unwrap();
    let mut position = 0;
    for line in kept.split_inclusive('\n') {
        position += all[position..].find(line).expect("in input order") + line.len();
    }
}

#[test]
fn the_same_tours_in_another_format_and_orientation_are_duplicates() {
    let dir = scratch_dir("formats");
    let file = enumerate_6x6(&dir);
    let moves = dir.join("tours.moves");
    let edges = dir.join("tours.edges");
    let back = dir.join("back.txt");
    run(&["tours", "convert", path(&file), "--board", "6x6", "--to", "moves", "--out", path(&moves)]);
    run(&["tours", "convert", path(&moves), "--board", "6x6", "--to", "edges", "--out", path(&edges)]);
    run(&["tours", "convert", path(&edges), "--board", "6x6", "--to", "compact", "--out", path(&back)]);
    // Enumerated tours start at a6 towards its lower neighbour, as tours rebuilt from their
    // connections do: the round trip gives the same bytes.
    assert_eq!(fs::read(&back).unwrap(), fs::read(&file).unwrap());
    let first_moves = fs::read_to_string(&moves).unwrap().lines().next().unwrap().to_string();
    assert!(first_moves.starts_with("a6 ") && first_moves.ends_with(" a6"), "{first_moves}");
    // Every tour once as it is, once in moves, once in edges: still 1245 classes, 3 x 9862 read.
    let totals = json(&["tours", "dedupe", path(&file), path(&moves), path(&edges), "--board", "6x6"]);
    assert_eq!((totals["tours"].as_u64(), totals["classes"].as_u64()), (Some(3 * six_by_six()), Some(1245)));
    // Compact lines read with or without their CR.
    let bare = dir.join("bare.txt");
    fs::write(&bare, fs::read_to_string(&file).unwrap().replace("\r\n", "\n")).unwrap();
    let totals = json(&["tours", "dedupe", path(&bare), "--board", "6x6", "--closed"]);
    assert_eq!((totals["tours"].as_u64(), totals["classes"].as_u64()), (Some(six_by_six()), Some(1245)));
    // A small memory limit (the least for two threads) makes more buckets; the answer stays.
    let small = ["--mem-limit", "512KiB", "--threads", "2"];
    let totals = json(&[&["tours", "dedupe", path(&file), path(&moves), "--board", "6x6"][..], &small].concat());
    assert_eq!(totals["classes"], 1245);
    // Less is refused, as a count out of core refuses it.
    let error = fails(&["tours", "dedupe", path(&file), "--board", "6x6", "--mem-limit", "1B"]);
    assert!(error.contains("--mem-limit 1 B is too small: it leaves 0 B to each of the"), "{error}");
    assert!(error.contains("raise --mem-limit"), "{error}");
}

/// Issue 58: `--out /dev/null` was refused as "not a regular file". A character device or a
/// named pipe is written in place (a file renamed over /dev/null would replace the device); a
/// link to a regular file is still refused.
#[test]
fn outputs_may_be_character_devices_and_named_pipes() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch_dir("streams");
    let file = enumerate_6x6(&dir);
    let moves = dir.join("tours.moves");
    run(&["tours", "convert", path(&file), "--board", "6x6", "--to", "moves", "--out", path(&moves)]);
    let to = |out: &Path| {
        leaper(&["tours", "convert", path(&file), "--board", "6x6", "--to", "moves", "--out", path(out)], None)
    };
    let output = to(Path::new("/dev/null"));
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device(), "/dev/null was replaced");
    // A b-file too (written whole, not tour by tour).
    let output = leaper(&["knight", "3x12", "--sweep", "--bfile", "/dev/null"], None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device(), "/dev/null was replaced");

    let fifo = dir.join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reading = fifo.clone();
    let reader = std::thread::spawn(move || fs::read(reading).unwrap());
    let output = to(&fifo);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(reader.join().unwrap(), fs::read(&moves).unwrap(), "the pipe got the tours");

    let link = dir.join("link.txt");
    std::os::unix::fs::symlink(&moves, &link).unwrap();
    let output = to(&link);
    assert!(!output.status.success() && text(&output.stderr).contains("not a regular file"));
}

#[test]
fn open_tours_are_compared_with_their_closing_connection() {
    let dir = scratch_dir("open");
    let file = dir.join("open5.txt");
    assert_eq!(run(&["tours", "enumerate", "5x5", "--open", "--out", path(&file), "--to", "edges"]), "864\n");
    let first = fs::read_to_string(&file).unwrap().lines().next().unwrap().to_string();
    assert_eq!(first.matches('*').count(), 1, "one fictitious connection: {first}");
    let totals = json(&["tours", "dedupe", path(&file), "--board", "5x5"]);
    assert_eq!(totals["open_classes"], totals["classes"]);
    assert_eq!(totals["images"], 864, "orbit counting over the open classes");
    assert!(fails(&["tours", "dedupe", path(&file), "--board", "5x5", "--closed"]).contains("line 1: an open tour"));
}

#[test]
fn invalid_lines_are_named_by_file_and_line_or_skipped() {
    let dir = scratch_dir("invalid");
    let file = enumerate_6x6(&dir);
    let good: Vec<String> = fs::read_to_string(&file).unwrap().lines().take(3).map(String::from).collect();
    let compact = |rows: &str, cols: &str| format!("  {rows}  {cols}");
    let (rows, cols) = (&good[0][2..38], &good[0][40..76]);
    // Swap two squares of the tour: the knight's move breaks.
    let mut swapped_rows: Vec<char> = rows.chars().collect();
    let mut swapped_cols: Vec<char> = cols.chars().collect();
    swapped_rows.swap(5, 6);
    swapped_cols.swap(5, 6);
    let swapped = compact(&swapped_rows.iter().collect::<String>(), &swapped_cols.iter().collect::<String>());
    // Repeat the first square in place of the last.
    let repeated = compact(&format!("{}{}", &rows[..35], &rows[..1]), &format!("{}{}", &cols[..35], &cols[..1]));
    let cases = [
        (swapped.clone(), "is not a knight's move"),
        (repeated, "visited twice"),
        (good[0][..70].to_string(), "a line of 70 bytes; a 6x6 tour in the compact format takes 76 (78 with CR LF)"),
        (compact(&rows.replace('1', "7"), cols), "row \"7\" is not between 1 and 6"),
    ];
    for (number, (bad, message)) in cases.iter().enumerate() {
        let input = dir.join(format!("bad{number}.txt"));
        fs::write(&input, format!("{}\r\n{}\r\n{bad}\r\n", good[0], good[1])).unwrap();
        let error = fails(&["tours", "dedupe", path(&input), "--board", "6x6"]);
        assert!(error.contains(&format!("{}: line 3: ", input.display())), "{error}");
        assert!(error.contains(message), "{message}: {error}");
        let totals = json(&["tours", "dedupe", path(&input), "--board", "6x6", "--skip-invalid"]);
        assert_eq!((totals["tours"].as_u64(), totals["invalid"].as_u64()), (Some(2), Some(1)));
    }
    // An open tour claimed closed: a move list whose ends are not a knight's move apart.
    let moves = dir.join("open.moves");
    run(&["tours", "enumerate", "5x5", "--open", "--to", "moves", "--out", path(&moves)]);
    let error = fails(&["tours", "convert", path(&moves), "--board", "5x5", "--closed", "--to", "compact"]);
    assert!(error.contains("line 1: an open tour claimed closed: its ends"), "{error}");
    // Nothing is left half-written when a conversion fails.
    let out = dir.join("never.txt");
    fails(&["tours", "convert", path(&moves), "--board", "5x5", "--closed", "--to", "compact", "--out", path(&out)]);
    assert!(!out.exists());
    assert_eq!(
        fs::read_dir(&dir)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains("tmp"))
            .count(),
        0
    );
}

#[test]
fn warnsdorff_tours_are_deterministic_for_a_seed_and_deduplicate() {
    let dir = scratch_dir("warnsdorff");
    let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
    let generate = |out: &Path, more: &[&str]| {
        let mut args = vec!["tours", "generate", "8x8", "--warnsdorff", "--closed", "--count", "300", "--seed", "7"];
        args.extend(["--out", path(out)]);
        args.extend(more);
        json(&args)
    };
    assert_eq!(generate(&a, &[])["tours"], 300);
    assert_eq!(generate(&b, &["--threads", "1"])["tours"], 300);
    assert_eq!(fs::read(&a).unwrap(), fs::read(&b).unwrap(), "the same seed, the same tours");
    let bytes = fs::read(&a).unwrap();
    assert_eq!(bytes.len(), 300 * 134, "Phadke's 134-byte lines");
    // Phadke: the eight connections around the corners are common to every closed 8x8 tour.
    let edges = run(&["tours", "convert", path(&a), "--to", "edges"]);
    for line in edges.lines() {
        let numbers: Vec<&str> = line.split(' ').collect();
        assert_eq!(numbers.len(), 64);
        for corner in ["1123", "1132", "1826", "1837", "6281", "6788", "7381", "7688"] {
            assert!(numbers.contains(&corner), "{corner} in {line}");
        }
    }
    let totals = json(&["tours", "dedupe", path(&a), "--closed"]);
    assert_eq!(totals["tours"], 300);
    // No tours asked for: refused, no file written.
    let none = dir.join("none.txt");
    let error = fails(&["tours", "generate", "8x8", "--count", "0", "--out", path(&none)]);
    assert!(error.contains("--count") && error.contains("ask for at least one tour"), "{error}");
    assert!(!none.exists());
    let classes = totals["classes"].as_u64().unwrap();
    // The same tours again as move lists, and as their first class representatives: nothing new.
    let moves = dir.join("a.moves");
    let distinct = dir.join("distinct.txt");
    run(&["tours", "convert", path(&a), "--to", "moves", "--out", path(&moves)]);
    run(&["tours", "dedupe", path(&a), "--out", path(&distinct)]);
    let again = json(&["tours", "dedupe", path(&a), path(&moves), path(&distinct), "--closed"]);
    assert_eq!(again["tours"].as_u64(), Some(600 + classes));
    assert_eq!(again["classes"].as_u64(), Some(classes));
    let kept = json(&["tours", "dedupe", path(&distinct)]);
    assert_eq!((kept["tours"].as_u64(), kept["classes"].as_u64()), (Some(classes), Some(classes)));
    let shown = run(&["tours", "show", path(&a), "--number", "2"]);
    assert!(shown.contains("closed tour"), "{shown}");
    let svg = dir.join("tour.svg");
    run(&["tours", "show", path(&a), "--svg", path(&svg)]);
    assert!(
        fs::read_to_string(&svg).unwrap().starts_with("<svg") || fs::read_to_string(&svg).unwrap().starts_with("<?xml")
    );
}

#[test]
fn enumeration_is_a_resumable_subtree_job_and_the_old_tours_command_still_counts() {
    let dir = scratch_dir("job");
    let job = dir.join("job");
    let out = dir.join("t.txt");
    let printed = run(&["tours", "enumerate", "6x6", "--out", path(&out), "--job-dir", path(&job)]);
    assert_eq!(printed, known_line("knight 6x6"));
    assert_eq!(run(&["resume", "--job-dir", path(&job)]), known_line("knight 6x6"));
    let status = run(&["status", "--job-dir", path(&job)]);
    assert!(status.contains("tours enumerate 6x6 --closed"), "{status}");
    assert_eq!(run(&["tours", "--moves", "1,2", "6x6"]), known_line("knight 6x6"));
    assert!(fails(&["tours", "enumerate", "9x9"]).contains("at most 64 squares"));
}

/// The leaps `(a, b)` of a move set `A,B+C,D`, each in its eight orientations.
fn leaps(moves: &str) -> Vec<(i64, i64)> {
    let mut all = Vec::new();
    for leap in moves.split('+') {
        let (a, b) = leap.split_once(',').unwrap();
        let (a, b): (i64, i64) = (a.parse().unwrap(), b.parse().unwrap());
        for (x, y) in [(a, b), (b, a)] {
            for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                all.push((sx * x, sy * y));
            }
        }
    }
    all
}

/// Issue 58: `tours enumerate` takes `--moves` as the counts do. Every tour listed is a path of
/// the piece's leaps through every square, each listed once, and as many as the transfer matrix
/// counts (`leaper tours --moves`, the independent route), closed and open.
#[test]
fn enumeration_takes_a_move_set_and_lists_what_the_count_counts() {
    let dir = scratch_dir("moves");
    for (moves, board, open) in [
        ("1,0", "4x5", false),
        ("1,0", "3x6", true),
        ("1,0+1,1", "3x4", false),
        ("1,0+1,1", "3x4", true),
        ("2,3+1,2", "4x4", false),
        ("2,3+1,2", "3x6", true),
        ("1,2", "5x6", false),
    ] {
        let kind = if open { "--open" } else { "--closed" };
        let counted =
            run(&[&["tours", "--moves", moves, board][..], if open { &["--open"][..] } else { &[] }].concat());
        let file = dir.join(format!("{moves}-{board}{kind}.txt"));
        let listed = run(&["tours", "enumerate", board, "--moves", moves, kind, "--to", "moves", "--out", path(&file)]);
        assert_eq!(listed, counted, "{moves} {board} {kind}");
        let (width, length): (i64, i64) = {
            let (w, l) = board.split_once('x').unwrap();
            (w.parse().unwrap(), l.parse().unwrap())
        };
        let text = fs::read_to_string(&file).unwrap();
        let lines: std::collections::HashSet<&str> = text.lines().collect();
        assert_eq!(lines.len().to_string() + "\n", counted, "{moves} {board} {kind}: each tour once");
        let leaps = leaps(moves);
        for line in &lines {
            let squares: Vec<(i64, i64)> = line
                .split(' ')
                .map(|name| (i64::from(name.as_bytes()[0] - b'a'), name[1..].parse::<i64>().unwrap()))
                .collect();
            let visited: std::collections::HashSet<&(i64, i64)> = squares.iter().collect();
            // A closed tour's move list repeats its first square at its end.
            assert_eq!(visited.len() as i64, width * length, "{line}");
            assert_eq!(squares.len() as i64, width * length + i64::from(!open), "{line}");
            for pair in squares.windows(2) {
                let leap = (pair[1].0 - pair[0].0, pair[1].1 - pair[0].1);
                assert!(leaps.contains(&leap), "{moves}: {:?} to {:?} in {line}", pair[0], pair[1]);
            }
        }
    }
    // A job: the move set is recorded, and a resume after a crash lists the same tours.
    let job = dir.join("job");
    let args = ["tours", "enumerate", "4x5", "--moves", "1,0+1,1", "--format", "json", "--job-dir", path(&job)];
    let crashed = leaper(&args, Some("crash@ledger:30"));
    assert!(!crashed.status.success());
    assert!(fs::read_to_string(job.join("job.toml")).unwrap().contains("moves = \"1,0+1,1\""));
    let resumed = run(&["resume", "--job-dir", path(&job)]);
    assert_eq!(
        resumed,
        "{\"problem\":\"leaper:1,0+1,1\",\"board\":\"4x5\",\"tours\":\"closed\",\"count\":\"50354\"}\n"
    );
    assert_eq!(run(&["tours", "--moves", "1,0+1,1", "4x5"]), "50354\n");
    // The knight's job records no move set, as every job before --moves did.
    let knight = dir.join("knight");
    run(&["tours", "enumerate", "5x6", "--job-dir", path(&knight)]);
    assert!(!fs::read_to_string(knight.join("job.toml")).unwrap().contains("moves"));
    // A piece with no tour, and a move set that is none, are refused by name.
    let error = fails(&["tours", "enumerate", "6x6", "--moves", "1,3"]);
    assert!(error.contains("6x6 has no closed (1,3) leaper's tour (every (1,3) leaper move keeps"), "{error}");
    assert!(fails(&["tours", "enumerate", "6x6", "--moves", "1"]).contains("invalid"));
}

#[test]
fn files_without_board_are_read_on_the_board_of_their_first_tour() {
    let dir = scratch_dir("inferred");
    let file = enumerate_6x6(&dir);
    // No --board: the first line is a 6x6 tour, and the published classes come out.
    let totals = json(&["tours", "dedupe", path(&file), "--closed"]);
    assert_eq!(totals["board"], "6x6");
    assert_eq!((totals["tours"].as_u64(), totals["classes"].as_u64()), (Some(six_by_six()), Some(1245)));
    assert_eq!(totals["by_symmetry"], serde_json::json!({"1": 1223, "2": 17, "4": 5}));
    assert_eq!(totals["images"], six_by_six());
    // show and convert print what they print given --board 6x6.
    let shown = run(&["tours", "show", path(&file)]);
    assert_eq!(shown, run(&["tours", "show", path(&file), "--board", "6x6"]));
    assert!(shown.starts_with("6  1 ") && shown.ends_with("   a  b  c  d  e  f\nclosed tour\n"), "{shown}");
    let moves = run(&["tours", "convert", path(&file), "--to", "moves"]);
    assert_eq!(moves, run(&["tours", "convert", path(&file), "--board", "6x6", "--to", "moves"]));
    assert_eq!(moves.lines().count() as u64, six_by_six());
    // A move list, and a connection list, name their board as well.
    let listed = dir.join("tours.moves");
    fs::write(&listed, &moves).unwrap();
    let edges = run(&["tours", "convert", path(&listed), "--to", "edges"]);
    let connections = dir.join("tours.edges");
    fs::write(&connections, &edges).unwrap();
    let back = run(&["tours", "convert", path(&connections), "--to", "compact"]);
    assert_eq!(back.as_bytes(), fs::read(&file).unwrap());
    // An open 5x5 tour, which `show` on 8x8 called "square a8 is missing".
    let open = dir.join("open5.moves");
    run(&["tours", "enumerate", "5x5", "--open", "--to", "moves", "--out", path(&open)]);
    assert_eq!(run(&["tours", "show", path(&open)]), run(&["tours", "show", path(&open), "--board", "5x5"]));
}

#[test]
fn a_line_of_another_board_names_the_board_expected_and_suggests_board() {
    let dir = scratch_dir("board-errors");
    let file = enumerate_6x6(&dir);
    let first = fs::read_to_string(&file).unwrap().lines().next().unwrap().to_string();
    let error_of = |args: &[&str]| fails(args).lines().last().unwrap().to_string();
    // A first line that is no whole tour: the boards its length fits, and --board.
    let broken = dir.join("broken.txt");
    fs::write(&broken, format!("  {}{}\r\n", first[2..38].replace('6', "5"), &first[38..])).unwrap();
    assert_eq!(
        error_of(&["tours", "show", path(&broken)]),
        format!(
            "error: {}: line 1: cannot tell the board from this line: a line of 76 bytes is a compact tour of 6x6, \
             9x4 or 4x9, but its rows and columns cover none of them; give it with --board WxH",
            broken.display()
        )
    );
    let short = dir.join("short.txt");
    fs::write(&short, format!("{}\r\n", &first[..70])).unwrap();
    assert_eq!(
        error_of(&["tours", "dedupe", path(&short)]),
        format!(
            "error: {}: line 1: cannot tell the board from this line: no board's compact tour takes a line of 70 \
             bytes; give it with --board WxH",
            short.display()
        )
    );
    // A 5x5 file after a 6x6 one: read as 6x6, which the error says, with the board that fits.
    let five = dir.join("open5.txt");
    run(&["tours", "enumerate", "5x5", "--open", "--out", path(&five)]);
    assert_eq!(
        error_of(&["tours", "dedupe", path(&file), path(&five)]),
        format!(
            "error: {}: line 1: a line of 54 bytes; a 6x6 tour in the compact format takes 76 (78 with CR LF); 54 \
             bytes are a compact tour of 5x5 (read as 6x6, the board of line 1 of {}; tours of another board need \
             --board WxH; --skip-invalid skips such lines)",
            five.display(),
            file.display()
        )
    );
    // --board 8x8 given for a 5x5 move list: the missing square, the board, and --board.
    let moves = dir.join("open5.moves");
    run(&["tours", "convert", path(&five), "--to", "moves", "--out", path(&moves)]);
    assert_eq!(
        error_of(&["tours", "show", path(&moves), "--board", "8x8"]),
        format!(
            "error: {}: line 1: the tour has 25 squares, the 8x8 board 64: square a8 is missing (read as 8x8, the \
             board of --board; tours of another board need --board WxH; --skip-invalid skips such lines)",
            moves.display()
        )
    );
}

/// Runs `leaper ARGS` with `stdin` as its standard input (and `cwd` as its directory).
fn piped(args: &[&str], stdin: fs::File, cwd: &Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(args)
        .current_dir(cwd)
        .env_remove("LEAPER_FAULT")
        .stdin(stdin)
        .output()
        .expect("leaper runs")
}

/// Issue 55: `-` reads stdin for tour files as it does for graphs. convert, show and dedupe
/// print for stdin what they print for the file; dedupe's `--out`, which reads its input a
/// second time, writes the same tours from the tours it kept of stdin's first reading; errors
/// name stdin; stdin given twice is refused.
#[test]
fn a_dash_reads_tours_from_stdin() {
    let dir = scratch_dir("stdin");
    let file = dir.join("w.txt");
    // Open and closed tours alike, 8x8: the board stdin is read on when none is given.
    run(&["tours", "generate", "8x8", "--count", "40", "--seed", "5", "--out", path(&file)]);
    let from_stdin = |args: &[&str]| {
        let output = piped(args, fs::File::open(&file).unwrap(), &dir);
        assert!(output.status.success(), "{args:?}: {}", text(&output.stderr));
        text(&output.stdout)
    };
    for args in [
        &["tours", "convert", "-", "--to", "moves"][..],
        &["tours", "convert", "-", "--to", "edges", "--open"],
        &["tours", "show", "-", "--number", "7"],
        &["tours", "dedupe", "-", "--format", "json"],
        &["tours", "dedupe", "-", "--out", "-", "--to", "moves"],
    ] {
        // The same command on the file: the input is the third argument (`--out -` stays).
        let mut named = args.to_vec();
        named[2] = path(&file);
        assert_eq!(from_stdin(args), run(&named), "{args:?}");
    }
    let (by_file, by_stdin) = (dir.join("by-file.txt"), dir.join("by-stdin.txt"));
    run(&["tours", "dedupe", path(&file), "--out", path(&by_file)]);
    from_stdin(&["tours", "dedupe", "-", "--out", path(&by_stdin)]);
    assert_eq!(fs::read(&by_stdin).unwrap(), fs::read(&by_file).unwrap());
    let mut left: Vec<String> =
        fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    left.sort();
    assert_eq!(left, ["by-file.txt", "by-stdin.txt", "w.txt"], "the scratch directories are removed");
    // Errors name stdin, and say its board was not read ahead.
    let bad = dir.join("bad.txt");
    fs::write(&bad, "  123\n").unwrap();
    let output = piped(&["tours", "convert", "-", "--to", "moves"], fs::File::open(&bad).unwrap(), &dir);
    let stderr = text(&output.stderr);
    assert!(!output.status.success() && stderr.contains("stdin: line 1: "), "{stderr}");
    assert!(stderr.contains("read as 8x8, the default: stdin is not a regular file"), "{stderr}");
    let error = fails(&["tours", "convert", "-", "-", "--to", "moves"]);
    assert!(error.contains("stdin (-) is given twice"), "{error}");
}

/// Runs `leaper ARGS`, which must end within a minute (else it is killed and the test fails).
fn within_a_minute(args: &[&str]) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(args)
        .env_remove("LEAPER_FAULT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("leaper runs");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("leaper {args:?} still ran after a minute: stopped");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Issue 55: `tours generate 8x8 --count 99999999999999 --out o.txt` began writing 13 PB. As
/// `enumerate`, it is refused before anything is written: past the 10^9 tours leaper writes one
/// by one, and past the free space of --out's file system.
#[test]
fn a_generation_past_the_tours_leaper_writes_or_the_free_disk_is_refused_up_front() {
    let dir = scratch_dir("generate-big");
    let out = dir.join("o.txt");
    let output = within_a_minute(&[
        "tours",
        "generate",
        "8x8",
        "--warnsdorff",
        "--count",
        "99999999999999",
        "--out",
        path(&out),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "error: tours generate 8x8 --count 99,999,999,999,999: more than the 1,000,000,000 tours leaper writes one \
         by one (11.9 PiB as --to compact lines); ask for fewer\n"
    );
    // 10^9 tours as connection lists (over 300 bytes each on 8x8): more than this disk has free.
    let free = nix::sys::statvfs::statvfs(&*dir).map(|s| s.blocks_available() * s.fragment_size()).unwrap();
    if free < 300_000_000_000 {
        let output = within_a_minute(&[
            "tours",
            "generate",
            "8x8",
            "--count",
            "1000000000",
            "--to",
            "edges",
            "--out",
            path(&out),
        ]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        let says = format!("error: tours generate 8x8 --out {}: its 1,000,000,000 tours take ", out.display());
        assert!(stderr.starts_with(&says) && stderr.contains("free there"), "{stderr}");
    } else {
        eprintln!("{} has {free} bytes free: the free-space refusal is not tried", dir.display());
    }
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 0, "nothing written");
}

/// Issue 55: a dedupe killed while it worked left its scratch directory (`OUT.dedupe-PID/`) for
/// good. The next dedupe beside the same output removes it, as output temporaries of dead
/// processes are removed.
#[test]
fn a_killed_dedupe_s_scratch_directory_is_removed_by_the_next() {
    let dir = scratch_dir("stale-scratch");
    let tours = dir.join("w.txt");
    run(&["tours", "generate", "6x6", "--count", "20", "--seed", "2", "--out", path(&tours)]);
    // A dedupe reading a pipe that never ends, killed once its scratch directory is made.
    let fifo = dir.join("pipe");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let out = dir.join("distinct.txt");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["tours", "dedupe", path(&fifo), "--board", "6x6", "--out", path(&out)])
        .env_remove("LEAPER_FAULT")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut writer = fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    std::io::Write::write_all(&mut writer, &fs::read(&tours).unwrap()).unwrap();
    let scratch_dir = dir.join(format!("distinct.txt.dedupe-{}", child.id()));
    let started = std::time::Instant::now();
    while !scratch_dir.join("bucket-0000.rec").exists() {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "no scratch directory");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    drop(writer);
    assert!(scratch_dir.is_dir(), "the killed run left its scratch directory");
    let totals = json(&["tours", "dedupe", path(&tours), "--out", path(&out)]);
    assert_eq!(totals["tours"], 20);
    assert!(!scratch_dir.exists(), "the next dedupe removed it");
    let mut left: Vec<String> =
        fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    left.sort();
    assert_eq!(left, ["distinct.txt", "pipe", "w.txt"]);
}
