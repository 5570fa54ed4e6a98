//! The help, as a person reads it: options grouped under headings, examples for every command,
//! one tangram action's help on its own; and the completion scripts and manual page made from
//! the same command line.

use std::process::Command;

const LEAPER: &str = env!("CARGO_BIN_EXE_leaper");

/// `leaper ARGS`' stdout, which must have succeeded.
fn leaper(args: &[&str]) -> String {
    let output = Command::new(LEAPER).args(args).env("NO_COLOR", "1").output().expect("leaper runs");
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
    for flag in ["--help", "-h"] {
        let help = leaper(&["knight", flag]);
        let mut at = 0;
        for heading in HEADINGS {
            let found =
                help[at..].find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("{heading} in order:\n{help}"));
            at += found + 1;
        }
        let under = [
            ("Counting:", &["--sweep", "--open", "--tours", "--distinct", "--verify", "--counts"][..]),
            ("Output:", &["--format", "--bfile", "--stride", "--offset"]),
            ("Out of core:", &["--job-dir", "--mem-limit", "--buckets", "--threads"]),
            ("Cluster:", &["--workers", "--token-file", "--listen", "--tls-ca", "--tls-cert", "--tls-key"]),
            ("Logging:", &["--log-format", "--quiet", "--verbose"]),
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
    }
}

#[test]
fn every_command_has_examples() {
    let commands: &[&[&str]] = &[
        &["knight"],
        &["camel"],
        &["zebra"],
        &["tours"],
        &["tours", "enumerate"],
        &["tours", "generate"],
        &["tours", "dedupe"],
        &["tours", "convert"],
        &["tours", "show"],
        &["quarter"],
        &["quarto"],
        &["tangram"],
        &["tangram", "outlines"],
        &["tangram", "solve"],
        &["tangram", "fit"],
        &["resume"],
        &["status"],
        &["plan"],
        &["completions"],
        &["man"],
    ];
    for command in commands {
        for flag in ["--help", "-h"] {
            let args: Vec<&str> = command.iter().copied().chain([flag]).collect();
            let help = leaper(&args);
            let examples =
                help.find("\nExamples:\n").unwrap_or_else(|| panic!("leaper {args:?} has no examples:\n{help}"));
            let first = help[examples..].lines().nth(2).unwrap_or_default();
            assert!(first.trim_start().starts_with("leaper "), "leaper {args:?}: {first:?}");
        }
    }
    // `leaper worker --help` is leaper-worker's own; `leaper help worker` is leaper's.
    assert!(leaper(&["help", "worker"]).contains("\nExamples:\n  leaper worker --listen"));
    assert!(leaper(&["--help"]).contains("\nExamples:\n  leaper knight 6x6"));
}

#[test]
fn a_tangram_action_has_a_help_of_its_own() {
    let tangram = leaper(&["tangram", "--help"]);
    let outlines = leaper(&["tangram", "outlines", "--help"]);
    assert!(outlines.len() < tangram.len(), "{outlines}");
    assert!(outlines.starts_with("List the convex outlines of an area"), "{outlines}");
    assert!(outlines.contains("Usage: leaper tangram outlines"), "{outlines}");
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

    let dir = std::env::temp_dir().join(format!("leaper-man-{}", std::process::id()));
    leaper(&["man", "--dir", dir.to_str().unwrap()]);
    for name in ["leaper.1", "leaper-knight.1", "leaper-tours-dedupe.1", "leaper-tangram-outlines.1"] {
        let page = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(page.contains(".TH"), "{name}");
    }
    assert!(std::fs::read_to_string(dir.join("leaper-knight.1")).unwrap().contains("9862"));
    assert!(!dir.join("leaper-help.1").exists(), "clap's help command has no page");
    std::fs::remove_dir_all(&dir).unwrap();
}
