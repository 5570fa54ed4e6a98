//! `leaper tours convert`: tour files from one format to another.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::shared_args::{args, ReadArgs, ThreadsArg};
use crate::engine::jobdir::file_error;
use crate::engine::problem::{Tool, ToolContext};
use crate::error::{Error, Result};
use crate::problems::tour_files::format::{write, Format};
use crate::problems::tour_files::output::Output;
use crate::problems::tour_files::reader::read_tours;

/// `leaper tours convert`.
pub struct ConvertTool;

#[derive(Debug, Args)]
struct ConvertArgs {
    /// The tour files (`-`: stdin).
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
    fn examples(&self) -> &'static str {
        "  leaper tours convert w.txt --to edges --out w.edges   # compact, moves, edges
  leaper tours convert tours6.txt --to moves --out tours6.moves"
    }

    fn command(&self) -> clap::Command {
        ConvertArgs::augment_args(clap::Command::new("convert"))
            .about("Rewrite tour files in another format, checking every tour")
            .long_about("Rewrite tour files in another format (compact, moves, edges), checking every tour.")
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
