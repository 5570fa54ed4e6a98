//! The command line, declared with clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use leaper_core::board::{BoardSize, MoveSet};

#[derive(Debug, Parser)]
#[command(name = "leaper", version, about = "Exact counts of knight's tours and other combinatorial objects")]
pub struct Cli {
    /// Log format on stderr (RUST_LOG sets the level; default info).
    #[arg(long, value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Closed knight's tours (undirected Hamiltonian cycles of the knight graph).
    Knight(TourArgs),
    /// Closed tours of the camel, the (1,3) leaper.
    Camel(TourArgs),
    /// Closed tours of the zebra, the (2,3) leaper.
    Zebra(TourArgs),
    /// Closed tours of any leaper or union of leapers.
    Tours {
        /// The move set: A,B for the (A,B) leaper, A,B+C,D for a union (the king is 1,0+1,1).
        #[arg(long, value_name = "A,B[+C,D...]")]
        moves: MoveSet,
        #[command(flatten)]
        args: TourArgs,
    },
}

#[derive(Debug, Args)]
pub struct TourArgs {
    /// The board, WIDTHxLENGTH, for example 8x6. A single board is swept along its longer side.
    #[arg(allow_hyphen_values = true)]
    pub board: BoardSize,

    /// Count every length from 1 to LENGTH in one sweep across a frontier WIDTH cells wide.
    #[arg(long)]
    pub sweep: bool,

    /// Output format: text, or one JSON object per result line.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,

    /// Also write the results as an OEIS b-file (`n a(n)` per line).
    #[arg(long, value_name = "FILE")]
    pub bfile: Option<PathBuf>,

    /// Count with one spare modulus and check that the exact result agrees with it.
    #[arg(long)]
    pub verify: bool,

    /// Hash buckets per layer.
    #[arg(long, default_value_t = 503, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub buckets: u32,

    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,

    /// Moduli per counting pass: fewer means fewer bytes per state and more passes.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub moduli_per_pass: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}
