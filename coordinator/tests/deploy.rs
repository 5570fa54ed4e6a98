//! The deployment files parse, and every leaper command line in them uses flags the binaries
//! accept (as their `--help` lists them): a renamed flag must not silently break a deployment.

use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

const LEAPER: &str = env!("CARGO_BIN_EXE_leaper");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `--help` of `leaper SUBCOMMAND` (the `leaper worker` subcommand is the `leaper-worker`
/// binary's own command line).
fn help(subcommand: Option<&str>) -> String {
    let output = Command::new(LEAPER).args(subcommand).arg("--help").output().unwrap();
    assert!(output.status.success(), "leaper {subcommand:?} --help failed");
    String::from_utf8(output.stdout).unwrap()
}

fn accepts(help: &str, flag: &str) -> bool {
    [" ", "\n", ",", "="].iter().any(|end| help.contains(&format!("{flag}{end}")))
}

/// Checks every leaper invocation in `tokens`; returns how many there were.
fn check_tokens(file: &Path, tokens: &[String]) -> usize {
    let mut invocations = 0;
    let mut context: Option<String> = None;
    let mut pending_subcommand = false;
    let mut in_message = false;
    for (i, raw) in tokens.iter().enumerate() {
        let token = raw.trim_matches(|c| c == '"' || c == '\'' || c == ';');
        let program = token.rsplit('/').next().unwrap_or(token);
        // A flag's value (`--data-dir /var/lib/leaper`, `cargo -p leaper-worker`) is not a
        // command, nor is a name looked up or tested (`command -v leaper-worker`, `[ -x FILE ]`)
        // or a message's word.
        let previous = if i > 0 { tokens[i - 1].as_str() } else { "" };
        let names_a_file = ["-p", "-v", "-x", "-e", "-f", "-d"].contains(&previous);
        if (previous.starts_with("--") || names_a_file) && !token.starts_with('-') {
            continue;
        }
        if token == "echo" {
            in_message = true;
        }
        if in_message {
            in_message = !(raw.ends_with(';') || ["||", "&&", "|", ">&2"].contains(&token));
            continue;
        }
        if program == "leaper-worker" {
            invocations += 1;
            context = Some(help(Some("worker")));
            pending_subcommand = false;
        } else if program == "leaper" {
            invocations += 1;
            context = Some(help(None));
            pending_subcommand = true;
        } else if let Some(help_text) = &context {
            if let Some(flag) = token.strip_prefix("--").map(|f| format!("--{}", f.split('=').next().unwrap())) {
                assert!(accepts(help_text, &flag), "{}: `{flag}` is not a flag of {raw:?}'s command", file.display());
            } else if pending_subcommand {
                // A script's "$@" stands for a count's arguments: every piece shares them.
                context = Some(help(Some(if token.starts_with('$') { "knight" } else { token })));
                pending_subcommand = false;
            }
        }
        if raw.ends_with(';') || ["fi", "then", "else", "&&", "||", "|", "&"].contains(&token) {
            context = None;
        }
    }
    invocations
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

/// Every `command:` of a YAML document (compose services, Kubernetes containers), as words.
fn yaml_commands(node: &Yaml, out: &mut Vec<Vec<String>>) {
    match node {
        Yaml::Array(items) => items.iter().for_each(|i| yaml_commands(i, out)),
        Yaml::Hash(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    (Some("command" | "args"), Yaml::Array(parts)) => {
                        out.push(parts.iter().filter_map(Yaml::as_str).flat_map(words).collect())
                    }
                    (Some("command" | "args"), Yaml::String(text)) => out.push(words(text)),
                    _ => yaml_commands(value, out),
                }
            }
        }
        _ => {}
    }
}

/// Lines of a shell script or unit, with `\` continuations joined and comments dropped.
fn shell_lines(text: &str) -> Vec<Vec<String>> {
    text.replace("\\\n", " ")
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .map(|line| line.split_once('=').filter(|(key, _)| key.starts_with("Exec")).map_or(line, |(_, v)| v))
        .map(words)
        .collect()
}

#[test]
fn deployment_files_parse_and_use_real_flags() {
    let root = repo();
    let mut invocations = 0;
    let mut yaml_files = 0;
    for file in ["deploy/compose/compose.yaml", "deploy/kubernetes/leaper.yaml"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let documents = YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{file} does not parse: {e}"));
        assert!(!documents.is_empty(), "{file} is empty");
        let mut commands = Vec::new();
        documents.iter().for_each(|d| yaml_commands(d, &mut commands));
        for command in &commands {
            invocations += check_tokens(&root.join(file), command);
        }
        yaml_files += 1;
    }
    for file in ["deploy/slurm/leaper.sbatch", "scripts/local-cluster"] {
        let status = Command::new("bash").arg("-n").arg(root.join(file)).status().unwrap();
        assert!(status.success(), "{file} is not valid bash");
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for line in shell_lines(&text) {
            invocations += check_tokens(&root.join(file), &line);
        }
    }
    for file in ["deploy/systemd/leaper-worker.service", "deploy/systemd/leaper-job@.service"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let section = line.starts_with('[') && line.ends_with(']');
            assert!(section || line.contains('='), "{file}: `{line}` is neither a section nor a setting");
        }
        for line in shell_lines(&text) {
            invocations += check_tokens(&root.join(file), &line);
        }
    }
    assert_eq!(yaml_files, 2);
    // compose: 3 workers and a coordinator; kubernetes: workers, coordinator resume and start;
    // slurm: worker, resume, start; local-cluster: worker; systemd: worker, resume.
    assert_eq!(invocations, 13, "leaper command lines found in the deployment files");
}

/// The Grafana dashboard is JSON Grafana reads (panels with Prometheus queries), and every
/// metric it asks for is one the coordinator or the workers export.
#[test]
fn the_grafana_dashboard_reads_and_asks_for_real_metrics() {
    let root = repo();
    let text = std::fs::read_to_string(root.join("deploy/grafana/leaper.json")).unwrap();
    let dashboard: serde_json::Value = serde_json::from_str(&text).expect("deploy/grafana/leaper.json is JSON");
    let panels = dashboard["panels"].as_array().expect("panels");
    assert!(panels.len() >= 8, "a panel per figure of the issue");
    let exported: String = ["coordinator/src/metrics.rs", "worker/src/metrics.rs"]
        .iter()
        .map(|file| std::fs::read_to_string(root.join(file)).unwrap())
        .collect();
    for panel in panels {
        let targets = panel["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "{panel}");
        for target in targets {
            let query = target["expr"].as_str().expect("expr");
            let names =
                query.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| w.starts_with("leaper_"));
            for name in names {
                // The encoding adds `_total` to counters and the unit's suffix: the code names neither.
                let base =
                    ["_total", "_bytes", "_seconds"].iter().fold(name, |n, suffix| n.strip_suffix(suffix).unwrap_or(n));
                assert!(exported.contains(&format!("\"{base}\"")), "{name} in {query}: no such metric");
            }
        }
    }
}
