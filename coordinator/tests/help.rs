//! The help, as a person reads it: options grouped under headings, examples for every command,
//! one tangram action's help on its own; and the completion scripts and manual page made from
//! the same command line.

use std::process::Command;

const LEAPER: &str = env!("CARGO_BIN_EXE_leaper");

/// `leaper ARGS`' stdout, which must have succeeded.
fn leaper(args: &[&str]) -> String {
    leaper_with(args, &[])
}

/// `leaper ARGS`' stdout with these variables set, which must have succeeded.
fn leaper_with(args: &[&str], vars: &[(&str, &str)]) -> String {
    let mut command = Command::new(LEAPER);
    command.args(args).env("NO_COLOR", "1").envs(vars.iter().copied());
    let output = command.output().expect("leaper runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(output.status.success(), "leaper {args:?}: {}\n{stdout}", String::from_utf8_lossy(&output.stderr));
    stdout
}

/// The headings of the engine's options, in the order `--help` gives them.
const HEADINGS: [&str; 5] = ["Counting:", "Output:", "Out of core:", "Cluster:", "Logging:"];

/// The section of `help` under `heading`: its lines up to the next heading (an unindented line
/// ending in a colon) or the end.
fn section(help: &str, heading: &str) -> String {
    let mut lines = help.lines().skip_while(|line| *line != heading);
    assert!(lines.next().is_some(), "no {heading:?}:\n{help}");
    let body: Vec<&str> =
        lines.take_while(|line| line.is_empty() || line.starts_with(' ') || !line.ends_with(':')).collect();
    body.join("\n")
}

#[test]
fn knight_help_groups_its_options_under_headings() {
    let help = leaper(&["knight", "--help"]);
    let mut at = 0;
    for heading in HEADINGS {
        let found = help[at..].find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("{heading} in order:\n{help}"));
        at += found + 1;
    }
    let under = [
        ("Options:", &["--quiet", "--verbose", "--help"][..]),
        ("Counting:", &["--sweep", "--open", "--tours", "--distinct", "--verify", "--counts"]),
        ("Output:", &["--format", "--bfile", "--stride", "--offset"]),
        ("Out of core:", &["--job-dir", "--mem-limit", "--buckets", "--threads"]),
        ("Cluster:", &["--workers", "--token-file", "--listen", "--tls-ca", "--tls-cert", "--tls-key"]),
        ("Logging:", &["--log-format"]),
    ];
    for (heading, options) in under {
        let part = section(&help, heading);
        for option in options {
            let listed = part.lines().any(|line| {
                let mut words = line.split_whitespace().take(2).map(|word| word.trim_end_matches([',', '.']));
                words.any(|word| word == *option)
            });
            assert!(listed, "{option} under {heading}: {part}");
        }
    }
    // The options that are not the engine's and not the help flag: none left ungrouped.
    let ungrouped = section(&help, "Options:");
    assert!(!ungrouped.contains("--job-dir") && !ungrouped.contains("--sweep"), "{ungrouped}");
    // The short help keeps the groups a first run needs, and only those.
    let short = leaper(&["knight", "-h"]);
    for heading in ["Counting:", "Output:", "Out of core:"] {
        assert!(short.contains(&format!("\n{heading}\n")), "{heading}:\n{short}");
    }
    assert!(!short.contains("\nCluster:\n") && !short.contains("\nLogging:\n"), "{short}");
}

/// `leaper ARGS` as a terminal 80 columns wide shows it (clap wraps its help to `COLUMNS`).
fn leaper_at_80_columns(args: &[&str]) -> String {
    leaper_with(args, &[("COLUMNS", "80")])
}

/// `leaper` and every command below it (a problem's, its nested jobs and tools, leaper's own, and
/// each action a problem's first argument chooses, as `tangram outlines`), by its words, found
/// by walking the command line the binary parses: a command added to the registry is here
/// without being listed.
fn every_command() -> Vec<Vec<String>> {
    fn walk(command: &clap::Command, path: &[String], found: &mut Vec<Vec<String>>) {
        for sub in command.get_subcommands().filter(|sub| sub.get_name() != "help") {
            let path: Vec<String> = path.iter().cloned().chain([sub.get_name().to_string()]).collect();
            found.push(path.clone());
            let chooser = sub.get_arguments().find(|arg| arg.is_positional() && arg.get_id() == "action");
            for action in chooser.map(|arg| arg.get_possible_values()).unwrap_or_default() {
                found.push(path.iter().cloned().chain([action.get_name().to_string()]).collect());
            }
            walk(sub, &path, found);
        }
    }
    let mut found = vec![Vec::new()];
    walk(&leaper_coordinator::cli::command(), &[], &mut found);
    found
}

#[test]
fn every_command_has_examples() {
    let commands = every_command();
    for expected in ["graph", "tours dedupe", "tangram fit", "worker", "plan", "resume"] {
        assert!(commands.iter().any(|c| c.join(" ") == expected), "{expected} not walked: {commands:?}");
    }
    for command in &commands {
        // `leaper worker --help` is leaper-worker's own (checked below); `leaper help worker` is leaper's.
        let words: Vec<&str> = command.iter().map(String::as_str).collect();
        let asked: Vec<Vec<&str>> = if words == ["worker"] {
            vec![vec!["help", "worker"]]
        } else {
            ["--help", "-h"].iter().map(|flag| words.iter().copied().chain([*flag]).collect()).collect()
        };
        for args in asked {
            let help = leaper_at_80_columns(&args);
            let examples =
                help.find("\nExamples:\n").unwrap_or_else(|| panic!("leaper {args:?} has no examples:\n{help}"));
            let first = help[examples..].lines().nth(2).unwrap_or_default();
            assert!(first.trim_start().starts_with("leaper "), "leaper {args:?}: {first:?}");
            // Clap wraps what does not fit: an example that fits keeps its lines, each a
            // command, a comment or a continued command.
            for line in help[examples..].lines().skip(2).filter(|line| !line.is_empty()) {
                assert!(line.starts_with("  "), "leaper {args:?}: an example wrapped at 80 columns: {line:?}");
            }
        }
    }
    assert!(leaper(&["--help"]).contains("\nExamples:\n  leaper knight 6x6"));
}

#[test]
fn the_short_help_of_a_count_fits_a_terminal() {
    // The commands that count and have no tools or actions of their own: their `-h` holds the
    // options a first run needs; the cluster, TLS and tuning options are behind `--help`.
    let counts: [&[&str]; 7] =
        [&["knight"], &["camel"], &["zebra"], &["quarter"], &["quarto"], &["graph"], &["tours", "enumerate"]];
    for words in counts {
        let args: Vec<&str> = words.iter().copied().chain(["-h"]).collect();
        let short = leaper_at_80_columns(&args);
        assert!(short.lines().count() <= 30, "leaper {args:?} is {} lines:\n{short}", short.lines().count());
        for hidden in ["--tls-ca", "--tls-cert", "--listen", "--buckets", "--threads", "--count-anyway"] {
            assert!(!short.contains(hidden), "leaper {args:?} shows {hidden}:\n{short}");
        }
        let long: Vec<&str> = words.iter().copied().chain(["--help"]).collect();
        let long = leaper_at_80_columns(&long);
        assert!(long.contains("--threads") && long.contains("--job-dir"), "{long}");
    }
    // Each command's help speaks of that command: no quartering in a graph's, no subtree job in
    // the knight's, no b-file where there is none.
    let graph = leaper_at_80_columns(&["graph", "--help"]);
    assert!(!graph.contains("--bfile") && !graph.contains("quartering"), "{graph}");
    let knight = leaper_at_80_columns(&["knight", "--help"]);
    assert!(!knight.contains("subtree") && !knight.contains("shard") && !knight.contains("half the side"), "{knight}");
    let quarter = leaper_at_80_columns(&["quarter", "--help"]);
    assert!(quarter.contains("half the side"), "{quarter}");
    let quarto = leaper_at_80_columns(&["quarto", "--help"]);
    assert!(quarto.contains("ledger line per finished") && !quarto.contains("layer"), "{quarto}");
}

#[test]
fn the_list_of_commands_starts_with_the_problems_and_fits_80_columns() {
    let help = leaper_at_80_columns(&["--help"]);
    let list: Vec<&str> =
        help.lines().skip_while(|line| *line != "Commands:").skip(1).take_while(|line| !line.is_empty()).collect();
    let names: Vec<&str> = list.iter().filter_map(|line| line.split_whitespace().next()).collect();
    assert_eq!(names.first(), Some(&"knight"), "{help}");
    let first_own = names.iter().position(|name| *name == "resume").expect("resume listed");
    assert!(names[..first_own].contains(&"graph") && names[first_own..].contains(&"man"), "{names:?}");
    for line in &list {
        assert!(line.len() < 80 && line.starts_with("  ") && !line.starts_with("   "), "{line:?} in\n{help}");
    }
}

#[test]
fn a_tangram_action_has_a_help_of_its_own() {
    let tangram = leaper(&["tangram", "--help"]);
    let outlines = leaper(&["tangram", "outlines", "--help"]);
    assert!(outlines.len() < tangram.len(), "{outlines}");
    assert!(outlines.starts_with("List the convex outlines of an area"), "{outlines}");
    // The problem's own usage line: an area or a range of areas, one of the two.
    assert!(outlines.contains("Usage: leaper tangram outlines [OPTIONS] <AREA | --count <A..B>>"), "{outlines}");
    assert!(outlines.contains("--count <A..B>"), "{outlines}");
    // Only the options of `outlines` (and the engine's), told without their action prefix.
    for other in ["--pieces", "--outline ", "--svg", "solve, fit:"] {
        assert!(!outlines.contains(other), "{other}: {outlines}");
    }
    assert!(outlines.contains("leaper tangram outlines 16"), "{outlines}");
    assert!(section(&outlines, "Out of core:").contains("--job-dir"), "{outlines}");
    // The same from `-h`, `help tangram outlines`, with the global options first, and for `fit`.
    assert!(leaper(&["tangram", "outlines", "-h"]).starts_with("List the convex outlines"));
    assert_eq!(leaper(&["help", "tangram", "outlines"]), outlines);
    assert_eq!(leaper(&["--log-format", "json", "tangram", "outlines", "--help"]), outlines);
    let fit = leaper(&["tangram", "fit", "--help"]);
    assert!(fit.contains("--outline <s2,s4,s1,s3,s5,s7>") && !fit.contains("--count"), "{fit}");
    // Without --help the action runs as before.
    assert!(leaper(&["-q", "tangram", "outlines", "16"]).lines().count() > 20);
}

#[test]
fn completions_and_the_manual_page_come_from_the_command_line() {
    let bash = leaper(&["completions", "bash"]);
    assert!(bash.contains("_leaper") && bash.contains("knight") && bash.contains("--job-dir"), "{bash}");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        assert!(leaper(&["completions", shell]).contains("knight"), "{shell}");
    }
    let page = leaper(&["man"]);
    let header = page.lines().find(|line| !line.starts_with(".ie") && !line.starts_with(".el")).unwrap();
    assert!(header.starts_with(".TH leaper 1"), "{header}");
    assert!(page.contains("knight") && page.contains("quarter"), "{page}");

    let dir = leaper_test_kit::scratch("man");
    leaper(&["man", "--dir", dir.to_str().unwrap()]);
    for name in ["leaper.1", "leaper-knight.1", "leaper-tours-dedupe.1", "leaper-tangram-outlines.1"] {
        let page = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(page.contains(".TH"), "{name}");
    }
    assert!(std::fs::read_to_string(dir.join("leaper-knight.1"))
        .unwrap()
        .contains(leaper_test_kit::known("knight 6x6")));
    assert!(!dir.join("leaper-help.1").exists(), "clap's help command has no page");
}

/// Issue 59: a problem is its folder and its registry line. No file under coordinator/src names
/// a problem's command in its code (comments and unit tests aside): not as a literal (`"tours"`,
/// a downcast's `find`), not in a path into its folder, not in an example (`leaper knight ...`);
/// the help's examples come from the registry.
#[test]
fn no_file_of_the_coordinator_names_a_problem() {
    let names: Vec<String> = leaper_core::problems::REGISTRY
        .iter()
        .flat_map(|problem| problem.commands())
        .map(|command| command.get_name().to_string())
        .collect();
    assert!(names.len() >= 5, "{names:?}");
    let mut found = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap();
            for (number, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for name in &names {
                    let named = [format!("leaper {name} "), format!("\"{name}\""), format!("::{name}::")];
                    if named.iter().any(|pattern| line.contains(pattern.as_str())) {
                        found.push(format!("{}:{}: {}", path.display(), number + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "problems named in the coordinator's code:\n{}", found.join("\n"));
    // The examples the help shows are the registry's.
    let help = leaper(&["--help"]);
    for problem in leaper_core::problems::REGISTRY {
        let first = problem.commands().first().and_then(|command| problem.examples(command.get_name()));
        if let Some(line) = first.and_then(|examples| examples.lines().next()) {
            let command = line.split(" # ").next().unwrap().trim();
            assert!(help.contains(&format!("\n  {command} ")), "{command}: {help}");
        }
    }
}
