//! Help beyond clap's own: headings for a problem's options, examples for every command (the
//! problem's own, `Problem::examples`), the help of one tangram action, shell completions and
//! manual pages.
//!
//! ```text
//! leaper knight -h               a line an option a first run needs, under Counting, Output,
//!                                Out of core; then the first two of the knight's examples
//! leaper knight --help           every option in full (Cluster and Logging too); every example
//! leaper tangram outlines --help the action's own help (action_help, before clap parses)
//! leaper completions bash        clap_complete over the whole command line
//! leaper man --dir DIR           clap_mangen: leaper.1, leaper-knight.1, ...
//! ```

use std::ffi::OsString;

use anyhow::Result;
use leaper_core::engine::jobdir::JobKind;
use leaper_core::engine::Problem;

/// The problem's own options (its board, what it counts), told under one heading before the
/// engine's: a file it writes is output, everything else says what is counted. Positional
/// arguments keep clap's "Arguments" section.
pub fn problem_headings(command: clap::Command) -> clap::Command {
    let ids: Vec<(String, &'static str)> = command
        .get_arguments()
        .filter(|arg| !arg.is_positional() && arg.get_help_heading().is_none())
        .filter(|arg| !matches!(arg.get_id().as_str(), "help" | "version"))
        .map(|arg| {
            let heading = if matches!(arg.get_id().as_str(), "svg" | "out" | "to") { "Output" } else { "Counting" };
            (arg.get_id().to_string(), heading)
        })
        .collect();
    ids.into_iter().fold(command, |command, (id, heading)| command.mut_arg(id, |arg| arg.help_heading(heading)))
}

/// How many examples the short help (`-h`) shows; `--help` shows them all.
const SHORT_EXAMPLES: usize = 2;

/// `command` with its examples (`problem.examples(path)`, or a tool's) after its options: the
/// first few after the short help (`-h`), all after the long one (`--help`), below the problem's
/// own long text where it has one.
pub fn with_examples(command: clap::Command, examples: Option<&str>) -> clap::Command {
    let Some(examples) = examples else { return command };
    let short: Vec<&str> = examples.lines().take(SHORT_EXAMPLES).collect();
    let long = format!("Examples:\n{examples}");
    let long = match command.get_after_long_help() {
        Some(text) => format!("{text}\n\n{long}"),
        None => long,
    };
    command.after_help(format!("Examples:\n{}", short.join("\n"))).after_long_help(long)
}

/// The top level's examples: the first of each problem's first command, from the registry (so
/// that no file here names a problem), then how to see a command's own.
pub fn top_examples(registry: &[&dyn Problem]) -> String {
    let mut lines = Vec::new();
    for problem in registry {
        let first = problem.commands().first().and_then(|command| problem.examples(command.get_name()));
        lines.extend(first.and_then(|examples| examples.lines().next()).map(str::to_string));
    }
    lines.push("leaper COMMAND --help # a command's options and examples".to_string());
    aligned(&lines)
}

/// Example lines (`leaper ... # what it prints`) under `Examples:`, their comments in one column.
fn aligned(lines: &[String]) -> String {
    let split: Vec<(&str, Option<&str>)> = lines
        .iter()
        .map(|line| match line.split_once(" # ") {
            Some((command, comment)) => (command.trim(), Some(comment.trim())),
            None => (line.trim(), None),
        })
        .collect();
    let width = split.iter().map(|(command, _)| command.len()).max().unwrap_or(0);
    let mut text = "Examples:".to_string();
    for (command, comment) in split {
        text += &match comment {
            Some(comment) => format!("\n  {command:width$}  # {comment}"),
            None => format!("\n  {command}"),
        };
    }
    text
}

/// `leaper plan`'s examples: each problem's first example of a command that sweeps, priced as
/// it would be started (from the registry, as [`top_examples`]), then a cluster's.
pub fn plan_examples(registry: &[&dyn Problem]) -> String {
    let mut lines = Vec::new();
    for problem in registry {
        let sweeps = problem
            .commands()
            .into_iter()
            .map(|command| command.get_name().to_string())
            .find(|name| problem.kinds(name).contains(&JobKind::Sweep));
        let first = sweeps.and_then(|name| problem.examples(&name)).and_then(|examples| examples.lines().next());
        if let Some(job) = first.and_then(|line| line.split('#').next()?.trim().strip_prefix("leaper ")) {
            lines.push(format!("leaper plan {job}"));
        }
    }
    lines.push("leaper plan COMMAND ARGS --workers 8 --disk-per-worker 2TiB # on 8 workers".to_string());
    aligned(&lines)
}

/// The help of one action of a problem command whose first argument is an action to choose
/// (`tangram outlines`): clap sees `outlines` as a value, not a subcommand, so `tangram outlines
/// --help` would print the help of the whole of `tangram`. This help has the action's own
/// description, only the options whose help names the action (`outlines: ...`, `solve, fit: ...`)
/// or no action at all, and the action's examples.
pub fn action_command(root: &clap::Command, problem: &str, action: &str) -> Option<clap::Command> {
    let sub = root.find_subcommand(problem)?;
    let chooser = sub.get_arguments().find(|arg| arg.get_id() == "action" && arg.is_positional())?;
    let value = chooser.get_possible_values().into_iter().find(|value| value.get_name() == action)?;
    let about = value.get_help().map(|help| help.to_string()).unwrap_or_default();
    let action = value.get_name().to_string();
    let action = action.as_str();
    let mut command =
        sub.clone().name(action.to_owned()).about(about).long_about(None::<&str>).after_long_help(None::<&str>);
    let named = |name: &str| chooser.get_possible_values().iter().any(|value| value.get_name() == name);
    // Every argument is visited in its order, so that the headings keep theirs.
    let ids: Vec<String> = sub.get_arguments().map(|arg| arg.get_id().to_string()).collect();
    for id in ids {
        command = command.mut_arg(id.clone(), |arg| {
            if id == "action" {
                return arg.hide(true);
            }
            let help = arg.get_help().map(|help| help.to_string()).unwrap_or_default();
            match help.split_once(": ") {
                Some((names, rest)) if names.split(", ").all(named) => {
                    if names.split(", ").any(|name| name == action) {
                        let help = capitalised(rest);
                        arg.help(help)
                    } else {
                        arg.hide(true)
                    }
                }
                _ => arg,
            }
        });
    }
    let path = format!("{problem} {action}");
    let owner = leaper_core::problems::owning(problem);
    let usage =
        owner.and_then(|owner| owner.usage(&path)).map_or_else(|| format!("leaper {path} [OPTIONS]"), String::from);
    let examples = owner.and_then(|owner| owner.examples(&path));
    Some(with_examples(command.bin_name(format!("leaper {problem} {action}")).override_usage(usage), examples))
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
}

/// `leaper [GLOBALS] PROBLEM ACTION ... --help` (or `-h`, or `leaper help PROBLEM ACTION`): the
/// help of that action, long or short, when the problem's first argument chooses an action.
pub fn action_help(root: &clap::Command, argv: &[OsString]) -> Option<String> {
    let words: Vec<&str> =
        argv.iter().skip(1).map_while(|word| word.to_str()).take_while(|word| *word != "--").collect();
    let mut positional = Vec::new();
    let mut skip_value = false;
    for word in &words {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if *word == "--log-format" {
            skip_value = true;
        } else if !word.starts_with('-') {
            positional.push(*word);
        }
    }
    let (problem, action, long) = match positional.as_slice() {
        ["help", problem, action, ..] => (*problem, *action, true),
        [problem, action, ..] if words.contains(&"--help") => (*problem, *action, true),
        [problem, action, ..] if words.contains(&"-h") => (*problem, *action, false),
        _ => return None,
    };
    let mut root = root.clone();
    root.build();
    let mut command = action_command(&root, problem, action)?;
    let help = if long { command.render_long_help() } else { command.render_help() };
    let styled = std::io::IsTerminal::is_terminal(&std::io::stdout()) && std::env::var_os("NO_COLOR").is_none();
    Some(if styled { help.ansi().to_string() } else { help.to_string() })
}

/// Writes `bytes` to stdout; a reader that has gone (`leaper man | head`) is no error.
pub fn print_bytes(bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => Err(error.into()),
        _ => Ok(()),
    }
}

/// `leaper completions SHELL`: the script for `shell`, of the whole command line as parsed
/// (`root`, which the command line gives: help imports nothing of it).
pub fn print_completions(shell: clap_complete::Shell, mut root: clap::Command) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut root, "leaper", &mut script);
    print_bytes(&script)
}

/// `leaper man [--dir DIR]`: the manual page of `leaper` on stdout, or in DIR `leaper.1` and a
/// page per command (`leaper-knight.1`, `leaper-tours-dedupe.1`, `leaper-tangram-outlines.1`),
/// of the whole command line `root`.
pub fn print_man(dir: Option<&std::path::Path>, mut root: clap::Command) -> Result<()> {
    use anyhow::Context;
    root.build();
    let Some(dir) = dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(root).render(&mut page)?;
        return print_bytes(&page);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    write_pages(&root, dir).with_context(|| format!("cannot write the pages to {}", dir.display()))?;
    for sub in root.get_subcommands() {
        let Some(chooser) = sub.get_arguments().find(|arg| arg.get_id() == "action" && arg.is_positional()) else {
            continue;
        };
        for value in chooser.get_possible_values() {
            let Some(action) = action_command(&root, sub.get_name(), value.get_name()) else { continue };
            let title = format!("leaper-{}-{}", sub.get_name(), value.get_name());
            let mut page = Vec::new();
            clap_mangen::Man::new(action).title(title.clone()).render(&mut page)?;
            let path = dir.join(format!("{title}.1"));
            std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(())
}

/// The page of `command` (built) and of each of its commands below it, but clap's `help`.
fn write_pages(command: &clap::Command, dir: &std::path::Path) -> std::io::Result<()> {
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set() && sub.get_name() != "help") {
        write_pages(sub, dir)?;
    }
    clap_mangen::Man::new(command.clone()).generate_to(dir)?;
    Ok(())
}
