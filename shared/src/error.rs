//! The one error type of `leaper-core`. Each variant says what went wrong and, where the user can
//! act, what to do.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid board {input:?}: {reason}")]
    InvalidBoard { input: String, reason: String },

    #[error("invalid move set {input:?}: {reason}")]
    InvalidMoves { input: String, reason: String },

    #[error(
        "a frontier of {window} cells (board width {width}, moves {moves}) needs up to {needed_bits} bits \
         per state, more than the {available_bits}-bit state key holds; the widest board this encoding \
         supports for these moves is {max_width}"
    )]
    FrontierTooWide {
        width: usize,
        moves: String,
        window: usize,
        needed_bits: u32,
        available_bits: u32,
        max_width: usize,
    },

    #[error(
        "the layers held in memory reached {held} bytes, over the memory limit of {limit} bytes; count out \
         of core with --job-dir DIR (layers in bucket files on disk), or raise --mem-limit"
    )]
    MemoryLimit { held: u64, limit: u64 },

    #[error("invalid option: {0}")]
    InvalidOption(String),

    #[error(
        "count verification failed for {board}: the first {moduli} moduli give {value} but the spare \
         modulus {spare} disagrees (residue {expected}, reconstruction {got}); this is a bug or a \
         hardware fault, do not publish this count"
    )]
    VerificationFailed { board: String, moduli: usize, value: String, spare: u64, expected: u64, got: u64 },

    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },

    #[error("worker {peer}: {message}")]
    Worker { peer: String, message: String },
}
