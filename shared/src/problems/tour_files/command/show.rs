//! `leaper tours show`: one tour as a diagram or an SVG picture.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::shared_args::{args, ReadArgs};
use crate::engine::jobdir::{check_writable, file_error};
use crate::engine::problem::{Tool, ToolContext};
use crate::error::{Error, Result};
use crate::problems::tour_files::reader::read_tours;
use crate::problems::tour_files::show;

/// `leaper tours show`.
pub struct ShowTool;

#[derive(Debug, Args)]
struct ShowArgs {
    /// The tour file (`-`: stdin).
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
    fn examples(&self) -> &'static str {
        "  leaper tours show tours6.txt --number 3                 # a numbered diagram
  leaper tours show w.txt --number 3 --svg w3.svg         # drawn to an SVG file"
    }

    fn command(&self) -> clap::Command {
        ShowArgs::augment_args(clap::Command::new("show"))
            .about("Draw one tour of a file: a diagram, or an SVG picture")
            .long_about("Draw one tour of a file: a numbered diagram, or an SVG picture of its moves.")
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
