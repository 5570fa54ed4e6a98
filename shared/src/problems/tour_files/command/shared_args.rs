//! What the tools share: how they read tour files, and their threads.

use std::path::PathBuf;

use clap::{Args, FromArgMatches};

use crate::error::{Error, Result};
use crate::hamiltonian::board::BoardSize;
use crate::input::Source;
use crate::problems::tour_files::board::TourBoard;
use crate::problems::tour_files::format::{Closure, Format};
use crate::problems::tour_files::infer::{read_board, BoardSource};
use crate::problems::tour_files::reader::ReadOptions;

/// How every tool reads tour files.
#[derive(Debug, Args)]
pub(super) struct ReadArgs {
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
    /// How to read `files`: on the board of `--board`, or else of their first tour. Stdin (`-`)
    /// is read once: named twice, it is refused.
    pub(super) fn options(&self, files: &[PathBuf]) -> Result<ReadOptions> {
        if files.iter().filter(|file| Source::new(file) == Source::Stdin).count() > 1 {
            return Err(Error::InvalidRequest(
                "stdin (-) is given twice; it holds one input, read once: give it once".into(),
            ));
        }
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
pub(super) struct ThreadsArg {
    /// Threads (default: all cores; at most 1024).
    #[arg(long, value_parser = crate::engine::limits::parse_threads)]
    threads: Option<usize>,
}

impl ThreadsArg {
    /// Sizes the process's thread pool (all cores by default): a tool is the whole process.
    pub(super) fn use_them(&self) -> Result<()> {
        if let Some(threads) = self.threads {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build_global()
                .map_err(|e| Error::InvalidRequest(format!("cannot start {threads} threads: {e}")))?;
        }
        Ok(())
    }
}

pub(super) fn args<T: FromArgMatches>(matches: &clap::ArgMatches) -> Result<T> {
    T::from_arg_matches(matches).map_err(|e| Error::InvalidRequest(e.to_string()))
}
