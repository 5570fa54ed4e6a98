//! `leaper tours dedupe`: one tour per class of tour files, out of core.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::shared_args::{args, ReadArgs, ThreadsArg};
use crate::engine::dedupe::{default_scratch, remove_stale_scratch};
use crate::engine::limits::parse_size;
use crate::engine::problem::{write_json_line, write_line, OutputFormat, Tool, ToolContext};
use crate::error::{Error, Result};
use crate::hamiltonian::symmetry::Symmetry;
use crate::problems::tour_files::board::TourBoard;
use crate::problems::tour_files::dedupe::{dedupe, DedupeOptions, DedupeReport};
use crate::problems::tour_files::format::Format;
use crate::problems::tour_files::output::Output;

/// `leaper tours dedupe`.
pub struct DedupeTool;

#[derive(Debug, Args)]
struct DedupeArgs {
    /// The tour files (`-`: stdin).
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

    /// Directory for the bucket files (made, then removed; default: OUT.dedupe-PID beside --out,
    /// or leaper.dedupe-PID in the current directory, where those of runs killed are removed).
    #[arg(long, value_name = "DIR")]
    scratch: Option<PathBuf>,

    /// Output format of the totals.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,

    #[command(flatten)]
    threads: ThreadsArg,
}

impl Tool for DedupeTool {
    fn examples(&self) -> &'static str {
        "  leaper tours dedupe tours6.txt         # 1245 classes: 1223, 17, 5 by symmetry
  leaper tours dedupe w.txt tours-b.txt --out distinct.txt --mem-limit 1GiB"
    }

    fn uses_workers(&self) -> bool {
        true
    }

    fn command(&self) -> clap::Command {
        DedupeArgs::augment_args(clap::Command::new("dedupe"))
            .about("Keep one tour per symmetry class; print the totals")
            .long_about(
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
            // What runs killed beside the same base left is removed, as their outputs'
            // temporary files are.
            for stale in remove_stale_scratch(&base) {
                tracing::info!(dir = %stale.display(), "removed the scratch directory of a dedupe no longer running");
            }
            default_scratch(&base)
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
    let group = Symmetry::group(board.cols(), board.rows()).len();
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
