//! `leaper tours generate`: tours by Warnsdorff's rule, to a file.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::shared_args::{args, ThreadsArg};
use crate::engine::jobdir::file_error;
use crate::engine::problem::{write_json_line, write_line, OutputFormat, Preflight, Tool, ToolContext};
use crate::error::{Error, Result};
use crate::hamiltonian::board::BoardSize;
use crate::input::quote;
use crate::problems::tour_files::board::TourBoard;
use crate::problems::tour_files::format::{write, Format};
use crate::problems::tour_files::output::Output;
use crate::problems::tour_files::preflight::{check_generate, Generation};
use crate::problems::tour_files::tour::Tour;
use crate::problems::tour_files::warnsdorff::{TieBreak, Warnsdorff};

/// `leaper tours generate`.
pub struct GenerateTool;

#[derive(Debug, Args)]
struct GenerateArgs {
    /// The board, WIDTHxLENGTH.
    board: BoardSize,

    /// By Warnsdorff's rule: always to the square with the fewest onward moves (the method
    /// leaper knows, and the default).
    #[arg(long)]
    warnsdorff: bool,

    /// Only closed tours (attempts that do not close are dropped).
    #[arg(long)]
    closed: bool,

    /// How many tours (at least one).
    #[arg(long, value_parser = parse_count)]
    count: u64,

    /// The seed: the same seed, board and options give the same tours, on any number of threads.
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// How ties between squares with as few onward moves are broken: random; pohl (fewest
    /// onward moves two steps ahead, then random); roth (farthest from the centre, then random).
    #[arg(long, value_enum, default_value_t = TieBreak::Random)]
    tie_break: TieBreak,

    /// Start every tour here (default: a random square per attempt).
    #[arg(long, value_name = "SQUARE")]
    start: Option<String>,

    /// Give up after this many attempts (default: 1000 per tour asked for, and at least a million).
    #[arg(long)]
    max_attempts: Option<u64>,

    /// The file to write (`-`: standard output, the summary then to standard error).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,

    /// Its format.
    #[arg(long, value_enum, default_value_t = Format::Compact)]
    to: Format,

    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,

    #[command(flatten)]
    threads: ThreadsArg,
}

/// Parses `--count N`: a file of no tours is never what was meant.
fn parse_count(text: &str) -> std::result::Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("ask for at least one tour".into()),
        Ok(count) => Ok(count),
        Err(_) => Err(format!("{} is not a number of tours", quote(text))),
    }
}

impl Tool for GenerateTool {
    fn examples(&self) -> &'static str {
        "  leaper tours generate 8x8 --warnsdorff --closed --count 100000 --out w.txt
  leaper tours dedupe w.txt --out distinct.txt   # one tour per symmetry class"
    }

    fn command(&self) -> clap::Command {
        GenerateArgs::augment_args(clap::Command::new("generate"))
            .about("Write tours found by Warnsdorff's rule")
            .long_about("Write tours found by Warnsdorff's rule (tie-break variants; deterministic for a seed).")
    }

    /// Refuses a board with no tour of the kind asked for (`--closed`: closed; otherwise any,
    /// which is an open tour: a closed one opened at any move), and more tours than leaper
    /// writes one by one or than `--out`'s file system has room for, as `enumerate` does.
    fn preflight(&self, matches: &clap::ArgMatches, machine: &Preflight) -> Result<()> {
        let args: GenerateArgs = args(matches)?;
        let asked =
            Generation { board: args.board, closed: args.closed, count: args.count, out: &args.out, to: args.to };
        check_generate(&asked, machine)
    }

    fn run(&self, matches: &clap::ArgMatches, _context: &ToolContext, out: &mut dyn Write) -> Result<()> {
        let args: GenerateArgs = args(matches)?;
        args.threads.use_them()?;
        let board = TourBoard::new(args.board)?;
        let target = Output::new(&args.out);
        target.check("tour file")?;
        let start = match &args.start {
            Some(name) => Some(board.parse_name(name).ok_or_else(|| {
                Error::InvalidRequest(format!("--start {} is not a square of the {} board", quote(name), board.size()))
            })?),
            None => None,
        };
        let rule = Warnsdorff { board: &board, tie_break: args.tie_break, closed: args.closed, start, seed: args.seed };
        let max_attempts = args.max_attempts.unwrap_or(args.count.saturating_mul(1000).max(1_000_000));
        let mut generated = None;
        target.write("the tours", out, &mut |file| {
            generated = Some(rule.generate(args.count, max_attempts, &mut |tour: &Tour| {
                file.write_all(write(&board, tour, args.to).as_bytes())
                    .map_err(|e| file_error(target.path(), "write the tours", e))
            })?);
            Ok(())
        })?;
        let generated = generated.expect("written");
        let kind = if args.closed { "closed" } else { "open or closed" };
        if generated.tours < args.count {
            tracing::warn!(
                asked = args.count,
                found = generated.tours,
                attempts = generated.attempts,
                "fewer tours than asked: the attempts ran out (raise --max-attempts)"
            );
        }
        #[derive(Serialize)]
        struct Summary<'a> {
            board: String,
            tours: u64,
            kind: &'a str,
            attempts: u64,
            tie_break: TieBreak,
            seed: u64,
            file: String,
        }
        let summary = Summary {
            board: board.size().to_string(),
            tours: generated.tours,
            kind,
            attempts: generated.attempts,
            tie_break: args.tie_break,
            seed: args.seed,
            file: target.given(),
        };
        let mut stderr = std::io::stderr();
        let out = target.summary(out, &mut stderr);
        match args.format {
            OutputFormat::Json => write_json_line(out, &summary)?,
            OutputFormat::Text => write_line(
                out,
                format_args!(
                    "{} {kind} tours of {} in {} attempts (Warnsdorff, --tie-break {}, seed {}) written to {}",
                    summary.tours,
                    summary.board,
                    summary.attempts,
                    clap::ValueEnum::to_possible_value(&args.tie_break)
                        .map_or_else(String::new, |v| v.get_name().into()),
                    args.seed,
                    target.path().display()
                ),
            )?,
        }
        if generated.tours < args.count {
            return Err(Error::InvalidRequest(format!(
                "found {} of the {} tours asked for in {} attempts; the file holds those",
                generated.tours, args.count, generated.attempts
            )));
        }
        Ok(())
    }
}
