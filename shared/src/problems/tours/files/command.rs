//! `leaper tours enumerate | generate | dedupe | convert | show`: the tour files' face to the
//! command line.
//!
//! `enumerate` is a job (a subtree search: `--job-dir`, `resume`, `status` and `--workers` work
//! for it); the others are tools that read and write files in one run.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, FromArgMatches};
use serde::{Deserialize, Serialize};

use super::board::TourBoard;
use super::dedupe::{dedupe, DedupeOptions, DedupeReport};
use super::enumerate::Enumeration;
use super::format::{write, Closure, Format};
use super::infer::{read_board, BoardSource};
use super::output::Output;
use super::reader::{read_tours, ReadOptions};
use super::show;
use super::tour::Tour;
use super::warnsdorff::{TieBreak, Warnsdorff};
use crate::engine::jobdir::{check_writable, file_error, JobKind};
use crate::engine::limits::parse_size;
use crate::engine::problem::{
    table, typed, write_json_line, write_line, Job, OutputFormat, Params, Printing, Task, Tool, ToolContext,
};
use crate::engine::search::{ShardResult, SubtreeProblem};
use crate::error::{Error, Result};
use crate::problems::tours::board::BoardSize;

/// The `action` of an enumeration's parameters: how the tours' problem tells them from a count.
pub const ENUMERATE: &str = "enumerate";

/// `leaper tours enumerate`.
#[derive(Debug, Args)]
pub struct EnumerateArgs {
    /// The board, WIDTHxLENGTH (at most 64 squares), for example 6x6.
    board: BoardSize,

    /// Closed tours (the default).
    #[arg(long, conflicts_with = "open")]
    closed: bool,

    /// Open tours (undirected Hamiltonian paths: a tour and its reverse are one).
    #[arg(long)]
    open: bool,

    /// Write every tour to FILE, one per line (`-`: to standard output, the count then to
    /// standard error).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    /// The format of --out.
    #[arg(long, value_enum, default_value_t = Format::Compact)]
    to: Format,
}

/// What an enumeration job does, as `job.toml` records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumerateParams {
    action: String,
    board: String,
    open: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    out: Option<PathBuf>,
    to: Format,
}

impl EnumerateParams {
    pub fn from_matches(matches: &clap::ArgMatches) -> Result<Params> {
        let args = EnumerateArgs::from_arg_matches(matches).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        TourBoard::new(args.board)?;
        let out = args.out.as_deref().map(Output::new);
        if let Some(out) = &out {
            out.check("tour file")?;
        }
        // A file is recorded by its absolute path, so that a resume from elsewhere finds it.
        let out = out.map(|out| match out {
            Output::File(path) => std::path::absolute(&path).unwrap_or(path),
            Output::Stdout => PathBuf::from("-"),
        });
        table(&EnumerateParams {
            action: ENUMERATE.into(),
            board: args.board.to_string(),
            open: args.open,
            out,
            to: args.to,
        })
    }

    fn kind(&self) -> &'static str {
        if self.open {
            "open"
        } else {
            "closed"
        }
    }
}

/// `tours enumerate`, its parameters read: the search, ready to run or to trace again for the
/// tour file.
pub struct EnumerateTask {
    job: Arc<EnumerateJob>,
}

impl EnumerateTask {
    pub fn read(params: &Params) -> Result<EnumerateTask> {
        let enumerate: EnumerateParams = typed("tours", params)?;
        let board = TourBoard::new(enumerate.board.parse()?)?;
        let enumeration = Enumeration::new(board, !enumerate.open)?;
        Ok(EnumerateTask { job: Arc::new(EnumerateJob { enumerate, enumeration }) })
    }

    /// The board whose tours are listed.
    pub fn board(&self) -> Result<BoardSize> {
        self.job.enumerate.board.parse()
    }

    /// Whether the tours listed are open ones.
    pub fn open(&self) -> bool {
        self.job.enumerate.open
    }

    /// The file the tours go to (`None`: none, or standard output), and their format.
    pub fn file(&self) -> (Option<&Path>, Format) {
        let file = self.job.enumerate.out.as_deref().filter(|out| *out != Path::new("-"));
        (file, self.job.enumerate.to)
    }
}

impl Task for EnumerateTask {
    fn kind(&self) -> JobKind {
        JobKind::Subtree
    }

    fn command_line(&self) -> String {
        let enumerate = &self.job.enumerate;
        let mut line = format!("tours enumerate {} --{}", enumerate.board, enumerate.kind());
        if let Some(out) = &enumerate.out {
            line.push_str(&format!(" --out {} --to {}", out.display(), enumerate.to.name()));
        }
        line
    }

    fn id_stem(&self) -> String {
        format!("tours-enumerate-{}-{}", self.job.enumerate.board, self.job.enumerate.kind())
    }

    fn job(&self) -> Result<Job> {
        Ok(Job::Subtree(self.job.clone()))
    }

    fn slot_label(&self, _slot: usize) -> Result<String> {
        Ok(self.command_line())
    }

    /// Prints the count and writes the tours to `--out`, tracing the shards again in order
    /// (every thread), and checks that the file holds as many tours as the shards counted.
    /// With `--out -` the tours take standard output and the count goes to standard error.
    fn print(&self, counts: &[(usize, String)], printing: Printing, out: &mut dyn Write) -> Result<()> {
        let EnumerateJob { enumerate, enumeration } = self.job.as_ref();
        let count = counts.first().map(|(_, c)| c.clone()).unwrap_or_default();
        let target = enumerate.out.as_deref().map(Output::new);
        if let Some(target) = &target {
            let written = write_enumeration(enumeration, target, enumerate.to, out)?;
            if written.to_string() != count {
                return Err(Error::Bug(format!("the shards counted {count} tours, the file got {written}")));
            }
        }
        let mut stderr = std::io::stderr();
        let out = match &target {
            Some(target) => target.summary(out, &mut stderr),
            None => out,
        };
        #[derive(Serialize)]
        struct Line<'a> {
            problem: &'a str,
            board: &'a str,
            tours: &'a str,
            count: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            file: Option<String>,
        }
        let file = enumerate.out.as_ref().map(|p| p.display().to_string());
        match printing.format {
            OutputFormat::Json => write_json_line(
                out,
                &Line { problem: "knight", board: &enumerate.board, tours: enumerate.kind(), count: &count, file },
            ),
            OutputFormat::Text => write_line(out, format_args!("{count}")),
        }
    }
}

/// The enumeration as a subtree job: one shard per start of a path.
struct EnumerateJob {
    enumerate: EnumerateParams,
    enumeration: Enumeration,
}

impl SubtreeProblem for EnumerateJob {
    fn describe(&self) -> String {
        format!("tours enumerate {} --{}", self.enumerate.board, self.enumerate.kind())
    }

    fn slots(&self) -> Vec<String> {
        vec![format!("{} tours", self.enumerate.kind())]
    }

    fn shard_count(&self) -> usize {
        self.enumeration.shard_count()
    }

    fn shard_label(&self, index: usize) -> String {
        self.enumeration.shard_label(index)
    }

    fn run_shard(&self, index: usize) -> Result<ShardResult> {
        let found = self.enumeration.run_shard(index, &mut |_| Ok(()))?;
        Ok(ShardResult { counts: vec![u128::from(found)] })
    }
}

/// Writes every tour of the enumeration to `target`, shards in order; returns how many.
fn write_enumeration(
    enumeration: &Enumeration,
    target: &Output,
    format: Format,
    stdout: &mut dyn Write,
) -> Result<u64> {
    use rayon::prelude::*;
    let board = enumeration.board();
    let path = target.path();
    let mut written = 0;
    target.write("the tours", stdout, &mut |out| {
        // A few shards at a time on every thread, written in shard order.
        let batch = rayon::current_num_threads() * 4;
        let shards: Vec<usize> = (0..enumeration.shard_count()).collect();
        for group in shards.chunks(batch) {
            let texts: Vec<(u64, String)> = group
                .par_iter()
                .map(|&shard| {
                    let mut text = String::new();
                    let count = enumeration.run_shard(shard, &mut |tour| {
                        text.push_str(&write(board, tour, format));
                        Ok(())
                    })?;
                    Ok((count, text))
                })
                .collect::<Result<_>>()?;
            for (count, text) in texts {
                written += count;
                out.write_all(text.as_bytes()).map_err(|e| file_error(path, "write the tours", e))?;
            }
        }
        Ok(())
    })?;
    Ok(written)
}

/// How every tool reads tour files.
#[derive(Debug, Args)]
struct ReadArgs {
    /// The board of the files, WIDTHxLENGTH (default: the board of the first tour; 8x8 for
    /// input that is not a regular file, such as a pipe).
    #[arg(long)]
    board: Option<BoardSize>,

    /// The files' format (default: recognised from each file's first tour).
    #[arg(long, value_enum)]
    from: Option<Format>,

    /// Every tour is closed: one whose ends are not a knight's move apart is invalid.
    #[arg(long, conflicts_with = "open")]
    closed: bool,

    /// Every tour is open (its ends joined by Phadke's fictitious closing connection).
    #[arg(long)]
    open: bool,

    /// Count and skip invalid lines instead of stopping at the first.
    #[arg(long)]
    skip_invalid: bool,
}

impl ReadArgs {
    /// How to read `files`: on the board of `--board`, or else of their first tour.
    fn options(&self, files: &[PathBuf]) -> Result<ReadOptions> {
        let closure = match (self.closed, self.open) {
            (true, _) => Closure::Closed,
            (_, true) => Closure::Open,
            _ => Closure::Auto,
        };
        let (size, source) = match self.board {
            Some(size) => (size, BoardSource::Given),
            None => read_board(files, self.from)?,
        };
        Ok(ReadOptions {
            board: TourBoard::new(size)?,
            source,
            from: self.from,
            closure,
            skip_invalid: self.skip_invalid,
        })
    }
}

/// The threads of a tool that computes in parallel.
#[derive(Debug, Args)]
struct ThreadsArg {
    /// Threads (default: all cores; at most 1024).
    #[arg(long, value_parser = crate::engine::limits::parse_threads)]
    threads: Option<usize>,
}

impl ThreadsArg {
    /// Sizes the process's thread pool (all cores by default): a tool is the whole process.
    fn use_them(&self) -> Result<()> {
        if let Some(threads) = self.threads {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build_global()
                .map_err(|e| Error::InvalidRequest(format!("cannot start {threads} threads: {e}")))?;
        }
        Ok(())
    }
}

fn args<T: FromArgMatches>(matches: &clap::ArgMatches) -> Result<T> {
    T::from_arg_matches(matches).map_err(|e| Error::InvalidRequest(e.to_string()))
}

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
        Err(_) => Err(format!("{text:?} is not a number of tours")),
    }
}

impl Tool for GenerateTool {
    fn command(&self) -> clap::Command {
        GenerateArgs::augment_args(clap::Command::new("generate"))
            .about("Write tours found by Warnsdorff's rule (tie-break variants; deterministic for a seed).")
    }

    fn run(&self, matches: &clap::ArgMatches, _context: &ToolContext, out: &mut dyn Write) -> Result<()> {
        let args: GenerateArgs = args(matches)?;
        args.threads.use_them()?;
        let board = TourBoard::new(args.board)?;
        let target = Output::new(&args.out);
        target.check("tour file")?;
        let start = match &args.start {
            Some(name) => Some(board.parse_name(name).ok_or_else(|| {
                Error::InvalidRequest(format!("--start {name:?} is not a square of the {} board", board.size()))
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

/// `leaper tours dedupe`.
pub struct DedupeTool;

#[derive(Debug, Args)]
struct DedupeArgs {
    /// The tour files.
    #[arg(required = true)]
    files: Vec<PathBuf>,

    #[command(flatten)]
    read: ReadArgs,

    /// Write one tour per class (the first read), in input order (`-`: to standard output, the
    /// totals then to standard error).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    /// The format of --out.
    #[arg(long, value_enum, default_value_t = Format::Compact)]
    to: Format,

    /// Memory for sorting the canonical forms, for example 1GiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "2GiB")]
    mem_limit: u64,

    /// Directory for the bucket files (made, then removed; default: beside --out, or in the
    /// current directory).
    #[arg(long, value_name = "DIR")]
    scratch: Option<PathBuf>,

    /// Output format of the totals.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,

    #[command(flatten)]
    threads: ThreadsArg,
}

impl Tool for DedupeTool {
    fn uses_workers(&self) -> bool {
        true
    }

    fn command(&self) -> clap::Command {
        DedupeArgs::augment_args(clap::Command::new("dedupe")).about(
            "Keep one tour per class under the board's symmetries (a tour and its reverse are one); \
             print the totals and the classes by the order of their symmetry group.",
        )
    }

    fn run(&self, matches: &clap::ArgMatches, context: &ToolContext, out: &mut dyn Write) -> Result<()> {
        let args: DedupeArgs = args(matches)?;
        args.threads.use_them()?;
        let target = args.out.as_deref().map(Output::new);
        if let Some(target) = &target {
            target.check("distinct tours")?;
            if args.files.iter().any(|f| target.is(f)) {
                return Err(Error::InvalidRequest(format!(
                    "--out {} is one of the files read; write the distinct tours elsewhere",
                    target.given()
                )));
            }
        }
        let scratch = args.scratch.clone().unwrap_or_else(|| {
            let base = match &target {
                Some(Output::File(path)) => path.clone(),
                _ => PathBuf::from("leaper"),
            };
            PathBuf::from(format!("{}.dedupe-{}", base.display(), std::process::id()))
        });
        let options = DedupeOptions {
            read: args.read.options(&args.files)?,
            out: target.clone().map(|target| (target, args.to)),
            scratch,
            mem_limit: args.mem_limit,
        };
        let report = dedupe(&args.files, &options, context.workers.as_deref(), out)?;
        tracing::info!(
            bytes_on_disk = report.distinct.bytes_on_disk,
            buckets = report.distinct.buckets,
            splits = report.distinct.splits,
            "deduplicated"
        );
        let mut stderr = std::io::stderr();
        let out = match &target {
            Some(target) => target.summary(out, &mut stderr),
            None => out,
        };
        print_report(&options.read.board, &report, args.format, out)
    }
}

fn print_report(board: &TourBoard, report: &DedupeReport, format: OutputFormat, out: &mut dyn Write) -> Result<()> {
    let group = if board.is_square() { 8 } else { 4 };
    match format {
        OutputFormat::Json => {
            #[derive(Serialize)]
            struct Totals {
                board: String,
                tours: u64,
                invalid: u64,
                classes: u64,
                closed_classes: u64,
                open_classes: u64,
                by_symmetry: std::collections::BTreeMap<String, u64>,
                images: u64,
            }
            write_json_line(
                out,
                &Totals {
                    board: board.size().to_string(),
                    tours: report.tours,
                    invalid: report.invalid,
                    classes: report.classes,
                    closed_classes: report.closed_classes,
                    open_classes: report.open_classes,
                    by_symmetry: report.by_symmetry.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                    images: report.images,
                },
            )
        }
        OutputFormat::Text => {
            write_line(out, format_args!("tours read      {}", report.tours))?;
            if report.invalid > 0 {
                write_line(out, format_args!("invalid lines   {} (skipped)", report.invalid))?;
            }
            write_line(
                out,
                format_args!(
                    "classes         {} ({} closed, {} open)",
                    report.classes, report.closed_classes, report.open_classes
                ),
            )?;
            for (order, classes) in &report.by_symmetry {
                write_line(out, format_args!("  symmetry group of order {order}: {classes}"))?;
            }
            write_line(
                out,
                format_args!("tours in these classes {} (the sum of {group} / order over the classes)", report.images),
            )
        }
    }
}

/// `leaper tours convert`.
pub struct ConvertTool;

#[derive(Debug, Args)]
struct ConvertArgs {
    /// The tour files.
    #[arg(required = true)]
    files: Vec<PathBuf>,

    #[command(flatten)]
    read: ReadArgs,

    /// The format to write.
    #[arg(long, value_enum)]
    to: Format,

    /// Write to FILE (default, or `-`: standard output).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    #[command(flatten)]
    threads: ThreadsArg,
}

impl Tool for ConvertTool {
    fn command(&self) -> clap::Command {
        ConvertArgs::augment_args(clap::Command::new("convert"))
            .about("Rewrite tour files in another format (compact, moves, edges), checking every tour.")
    }

    fn run(&self, matches: &clap::ArgMatches, _context: &ToolContext, out: &mut dyn Write) -> Result<()> {
        let args: ConvertArgs = args(matches)?;
        args.threads.use_them()?;
        let target = args.out.as_deref().map_or(Output::Stdout, Output::new);
        target.check("converted tours")?;
        if args.files.iter().any(|f| target.is(f)) {
            return Err(Error::InvalidRequest(format!("--out {} is one of the files read", target.given())));
        }
        let options = args.read.options(&args.files)?;
        let board = options.board.clone();
        target.write("the converted tours", out, &mut |sink| {
            read_tours(&args.files, &options, &|_| (), &mut |_, tour, ()| {
                sink.write_all(write(&board, tour, args.to).as_bytes())
                    .map_err(|e| file_error(target.path(), "write the converted tours", e))
            })?;
            Ok(())
        })
    }
}

/// `leaper tours show`.
pub struct ShowTool;

#[derive(Debug, Args)]
struct ShowArgs {
    /// The tour file.
    file: PathBuf,

    #[command(flatten)]
    read: ReadArgs,

    /// Which tour of the file, counted from 1.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    number: u64,

    /// Draw it as SVG to FILE instead of printing a diagram.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

impl Tool for ShowTool {
    fn command(&self) -> clap::Command {
        ShowArgs::augment_args(clap::Command::new("show"))
            .about("Draw one tour of a file: a numbered diagram, or an SVG picture of its moves.")
    }

    fn run(&self, matches: &clap::ArgMatches, _context: &ToolContext, out: &mut dyn Write) -> Result<()> {
        let args: ShowArgs = args(matches)?;
        let options = args.read.options(std::slice::from_ref(&args.file))?;
        let mut wanted = None;
        read_tours(std::slice::from_ref(&args.file), &options, &|_| (), &mut |ordinal, tour, ()| {
            if ordinal + 1 == args.number {
                wanted = Some(tour.clone());
            }
            Ok(())
        })?;
        let tour = wanted.ok_or_else(|| Error::File {
            path: args.file.clone(),
            message: format!("has fewer than {} tours", args.number),
        })?;
        match &args.svg {
            Some(path) => {
                check_writable(path, "drawing")?;
                crate::engine::jobdir::replace_output(path, show::svg(&options.board, &tour).as_bytes(), "svg")
            }
            None => out
                .write_all(show::text(&options.board, &tour).as_bytes())
                .map_err(|e| file_error(Path::new("standard output"), "write", e)),
        }
    }
}

/// The tools, as `leaper tours` lists them.
pub static TOOLS: [&dyn Tool; 4] = [&GenerateTool, &DedupeTool, &ConvertTool, &ShowTool];
