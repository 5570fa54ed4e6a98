//! Help beyond clap's own: headings for a problem's options, examples for every command, the
//! help of one tangram action, shell completions and manual pages.
//!
//! ```text
//! leaper knight -h               options under Counting, Output, Out of core, Cluster, Logging;
//!                                then "Examples:" from EXAMPLES
//! leaper tangram outlines --help the action's own help (action_help, before clap parses)
//! leaper completions bash        clap_complete over the whole command line
//! leaper man --dir DIR           clap_mangen: leaper.1, leaper-knight.1, ...
//! ```

use std::ffi::OsString;

use anyhow::Result;

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

/// Examples of every problem command, its nested jobs, its tools and the tangram's actions, by
/// their path below `leaper`. Counts shown are those README.md and docs/GUIDE.md give.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "knight",
        "  leaper knight 6x6                      # 9862 closed tours, in a fraction of a second
  leaper knight 6x10 --sweep             # every length 6x1 ... 6x10 from one sweep
  leaper knight 6x6 --open               # 3318960 open tours (Hamiltonian paths, undirected)
  leaper knight 8x12 --sweep --job-dir runs/8x12 --mem-limit 2GiB   # out of core, resumable",
    ),
    (
        "camel",
        "  leaper camel 5x12                      # 0: every camel move keeps the square's colour
  leaper camel 5x12 --sweep --format json   # JSON lines; a count known to be 0 gives its reason",
    ),
    (
        "zebra",
        "  leaper zebra 5x12 --sweep              # twelve zeros, each explained
  leaper zebra 5x12 --sweep --format json   # the same, with each reason in a JSON line",
    ),
    (
        "tours",
        "  leaper tours --moves 2,3+1,1 6x4       # 2586: the zebra (2,3) with a diagonal step (1,1)
  leaper tours --moves 1,0+1,1 4x5       # any union of leapers: here the king
  leaper tours enumerate 6x6 --closed --out tours6.txt   # all 9862 closed 6x6 tours",
    ),
    (
        "tours enumerate",
        "  leaper tours enumerate 6x6 --closed --out tours6.txt   # all 9862 closed 6x6 tours
  leaper tours enumerate 5x5 --open --to moves --out o.txt   # the 864 open 5x5 tours, as move lists
  leaper tours enumerate 3x4 --moves 1,0+1,1 --to moves      # the king's 120 closed tours",
    ),
    (
        "tours generate",
        "  leaper tours generate 8x8 --warnsdorff --closed --count 100000 --seed 7 --out w.txt
  leaper tours dedupe w.txt --out distinct.txt           # then keep one tour per symmetry class",
    ),
    (
        "tours dedupe",
        "  leaper tours dedupe tours6.txt                          # 1245 classes: 1223, 17 and 5 by symmetry order
  leaper tours dedupe w.txt tours-b.txt --out distinct.txt --mem-limit 1GiB",
    ),
    (
        "tours convert",
        "  leaper tours convert w.txt --to edges --out w.edges     # compact | moves | edges
  leaper tours convert tours6.txt --to moves --out tours6.moves",
    ),
    (
        "tours show",
        "  leaper tours show tours6.txt --number 3                 # a numbered diagram
  leaper tours show w.txt --number 3 --svg w3.svg         # drawn to an SVG file",
    ),
    (
        "quarter",
        "  leaper quarter 8                       # 766: ways to cut the 8x8 board into four congruent pieces
  leaper quarter 8 --class rotational    # 596 (class (a), OEIS A064941); --class halved: 170
  leaper quarter 6 --svg quarterings.svg # all 37 dissections drawn, one small board each
  leaper quarter 8 --parkin              # the 1974 letter exactly: its Table 1 and its 782",
    ),
    (
        "quarto",
        "  leaper quarto                          # 414298141056: rows, columns and the two long diagonals
  leaper quarto --lines rows,cols        # 1329371360640
  leaper quarto --table                  # the source document's nine variants, with count/384 factorised",
    ),
    (
        "tangram",
        "  leaper tangram solve                   # the seven pieces: dissections per outline, 142 in 13 of 20
  leaper tangram outlines 16             # the 20 convex outlines of area 16
  leaper tangram fit --outline 5,2,2,0,0,0   # yes, in 36 ways
  leaper tangram outlines --help         # one action's options",
    ),
    (
        "tangram outlines",
        "  leaper tangram outlines 16             # the 20 convex outlines of area 16, with s2,s4,s1,s3,s5,s7 and sides
  leaper tangram outlines --count 1..40  # N(F) per area, as b-file rows (1 1, 2 3, 3 2, ... 16 20 ...)",
    ),
    (
        "tangram solve",
        "  leaper tangram solve                   # the seven pieces: dissections per outline, 142 in 13 of 20
  leaper tangram solve --pieces FILE     # any pieces on the half-square lattice
  leaper tangram solve --svg tangram.svg # every dissection drawn, grouped by outline",
    ),
    (
        "tangram fit",
        "  leaper tangram fit --outline 5,2,2,0,0,0   # yes, in 36 ways (the right trapezoid 3, 2, 5, 2√2)
  leaper tangram fit --outline 5,2,2,0,0,0 --svg fit.svg   # and the 36 dissections drawn",
    ),
];

/// The examples of the command at `path` (`tours dedupe`), as an "Examples:" section.
fn examples(path: &str) -> Option<String> {
    EXAMPLES.iter().find(|(p, _)| *p == path).map(|(_, lines)| format!("Examples:\n{lines}"))
}

/// `command` with its examples after its options: after both the short help (`-h`) and the
/// long one (`--help`), below the problem's own long text where it has one.
pub fn with_examples(command: clap::Command, path: &str) -> clap::Command {
    let Some(examples) = examples(path) else { return command };
    let long = command.get_after_long_help().map(|text| format!("{text}\n\n{examples}"));
    let command = command.after_help(examples);
    match long {
        Some(text) => command.after_long_help(text),
        None => command,
    }
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
    let area = sub.get_arguments().any(|arg| arg.is_positional() && arg.get_id() == "area");
    let usage = match (action, area) {
        ("outlines", true) => format!("leaper {problem} outlines [OPTIONS] <AREA | --count <A..B>>"),
        _ => format!("leaper {problem} {action} [OPTIONS]"),
    };
    Some(with_examples(
        command.bin_name(format!("leaper {problem} {action}")).override_usage(usage),
        &format!("{problem} {action}"),
    ))
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
