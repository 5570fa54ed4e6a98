//! `leaper tours enumerate`: every tour of a small board, as a job (a subtree search:
//! `--job-dir`, `resume`, `status` and `--workers` work for it), and the tour file it writes.
//! The knight's tours, or with `--moves A,B[+C,D]` another leaper's, as the counts take it
//! (`leaper tours --moves 1,3 6x6` counts what `tours enumerate 6x6 --moves 1,3` lists).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, FromArgMatches};
use serde::{Deserialize, Serialize};

use crate::engine::jobdir::{file_error, JobKind};
use crate::engine::problem::{
    table, typed, write_json_line, write_line, Job, OutputFormat, Params, Preflight, Printing, Task,
};
use crate::engine::subtree::{ShardResult, SubtreeProblem};
use crate::error::{Error, Result};
use crate::hamiltonian::board::{BoardSize, MoveSet};
use crate::problems::tour_files::board::TourBoard;
use crate::problems::tour_files::enumerate::Enumeration;
use crate::problems::tour_files::format::{write, Format};
use crate::problems::tour_files::output::Output;
use crate::problems::tour_files::preflight::{check_enumerate, Enumeration as Asked};

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

    /// Open tours (Hamiltonian paths).
    ///
    /// Open tours (undirected Hamiltonian paths: a tour and its reverse are one).
    #[arg(long)]
    open: bool,

    /// The leaps: `A,B` or a union `A,B+C,D` (default: the knight).
    ///
    /// The piece's leaps, as the counts take them: `A,B` (1,3 is the camel) or a union
    /// `A,B+C,D` (default: the knight's, 1,2). The tools that read tour files read knight's
    /// tours.
    #[arg(long, value_name = "A,B[+C,D]")]
    moves: Option<String>,

    /// Write every tour to FILE, one a line (`-`: stdout).
    ///
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
    /// `--moves`, as given; none for the knight (as every job before `--moves` recorded it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    moves: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    out: Option<PathBuf>,
    to: Format,
}

impl EnumerateParams {
    pub fn from_matches(matches: &clap::ArgMatches) -> Result<Params> {
        let args = EnumerateArgs::from_arg_matches(matches).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        let moves = args.moves.as_deref().map(str::trim).map(str::to_string);
        TourBoard::with_moves(args.board, move_set(moves.as_deref())?)?;
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
            moves,
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

    /// The `problem` of a JSON line, as a count's: `knight`, or `leaper:1,3` for `--moves 1,3`.
    fn problem(&self) -> String {
        self.moves.as_ref().map_or("knight".into(), |moves| format!("leaper:{moves}"))
    }
}

/// The move set of `--moves` (`None`: the knight's).
fn move_set(moves: Option<&str>) -> Result<MoveSet> {
    moves.map_or(Ok(MoveSet::knight()), str::parse)
}

/// `tours enumerate`, its parameters read: the search, ready to run or to trace again for the
/// tour file.
pub struct EnumerateTask {
    job: Arc<EnumerateJob>,
}

impl EnumerateTask {
    pub fn read(params: &Params) -> Result<EnumerateTask> {
        let enumerate: EnumerateParams = typed("tours", params)?;
        let board = TourBoard::with_moves(enumerate.board.parse()?, move_set(enumerate.moves.as_deref())?)?;
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

    /// `--moves`, as given (`None`: the knight's).
    pub fn moves(&self) -> Option<&str> {
        self.job.enumerate.moves.as_deref()
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
        if let Some(moves) = &enumerate.moves {
            line.push_str(&format!(" --moves {moves}"));
        }
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

    /// Refuses a board with no tour of the kind, with more tours than leaper lists, or whose
    /// tours would not fit the free disk of `--out` (counted first where that is quick).
    fn preflight(&self, machine: &Preflight) -> Result<()> {
        let (file, to) = self.file();
        let moves = self.moves().map(str::to_string);
        let asked = Asked { board: self.board()?, open: self.open(), moves, file: file.map(Into::into), to };
        check_enumerate(&asked, machine)
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
                &Line {
                    problem: &enumerate.problem(),
                    board: &enumerate.board,
                    tours: enumerate.kind(),
                    count: &count,
                    file,
                },
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
    /// The move set is part of it (the shards' labels are squares, the same for any piece), so
    /// that a ledger or a worker of another piece's tours is refused by the fingerprint.
    fn describe(&self) -> String {
        let moves = self.enumerate.moves.as_ref().map_or(String::new(), |moves| format!(" --moves {moves}"));
        format!("tours enumerate {} --{}{moves}", self.enumerate.board, self.enumerate.kind())
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
