//! `leaper tours show`: one tour as a diagram or an SVG picture.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, FromArgMatches};
use serde::{Deserialize, Serialize};

use super::{args, ReadArgs, ThreadsArg};
use crate::engine::jobdir::{check_writable, file_error, JobKind};
use crate::engine::limits::parse_size;
use crate::engine::problem::{
    table, typed, write_json_line, write_line, Job, OutputFormat, Params, Printing, Task, Tool, ToolContext,
};
use crate::engine::search::{ShardResult, SubtreeProblem};
use crate::error::{Error, Result};
use crate::problems::tour_files::board::TourBoard;
use crate::problems::tour_files::dedupe::{dedupe, DedupeOptions, DedupeReport};
use crate::problems::tour_files::enumerate::Enumeration;
use crate::problems::tour_files::format::{write, Closure, Format};
use crate::problems::tour_files::infer::{read_board, BoardSource};
use crate::problems::tour_files::output::Output;
use crate::problems::tour_files::reader::{read_tours, ReadOptions};
use crate::problems::tour_files::show;
use crate::problems::tour_files::tour::Tour;
use crate::problems::tour_files::warnsdorff::{TieBreak, Warnsdorff};
use crate::problems::tours::board::BoardSize;

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
