//! `leaper tours enumerate | generate | dedupe | convert | show`: the tour files' face to the
//! command line, one file per subcommand.
//!
//! `enumerate` is a job (a subtree search: `--job-dir`, `resume`, `status` and `--workers` work
//! for it); the others are tools that read and write files in one run. What the tools share
//! (how they read tour files, their threads) is here.

mod convert;
mod dedupe;
pub mod enumerate;
mod generate;
mod show;

use std::path::PathBuf;

use clap::{Args, FromArgMatches};

use super::board::TourBoard;
use super::format::{Closure, Format};
use super::infer::{read_board, BoardSource};
use super::reader::ReadOptions;
use crate::engine::problem::Tool;
use crate::error::{Error, Result};
use crate::problems::tours::board::BoardSize;
pub use convert::ConvertTool;
pub use dedupe::DedupeTool;
pub use enumerate::{EnumerateArgs, EnumerateParams, EnumerateTask, ENUMERATE};
pub use generate::GenerateTool;
pub use show::ShowTool;

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

pub static TOOLS: [&dyn Tool; 4] = [&GenerateTool, &DedupeTool, &ConvertTool, &ShowTool];
