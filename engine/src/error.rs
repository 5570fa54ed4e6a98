//! The one error type of `leaper-core` (and of the network layer built on it). Each variant says
//! what went wrong and, where the user can act, what to do; its [`Disposition`] says what a
//! caller does about it: a cluster step is rerun after a retryable error, a job stops on a
//! refusal or a fatal error, and a bug is reported as one.

use std::path::{Path, PathBuf};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A value the user gave that the problem cannot take: `input` says what kind of thing it
    /// is and what was given (`board "8x"`, `move set "1,"`), `reason` why it is refused and,
    /// where it can, what would be taken. Both are the problem's words: the engine knows no
    /// board.
    #[error("invalid {input}: {reason}")]
    InvalidInput { input: String, reason: String },

    #[error(
        "the layers held in memory reached {held} bytes, over the memory limit of {limit} bytes; count out \
         of core with --job-dir DIR (layers in segment files on disk), or raise --mem-limit"
    )]
    MemoryLimit { held: u64, limit: u64 },

    /// Options or parameters that do not fit together or do not fit the job.
    #[error("{0}")]
    InvalidRequest(String),

    #[error(
        "count verification failed for {board}: {route} gave {value} but the spare modulus {spare} \
         disagrees (residue {expected}, the count's {got}); this is a bug or a hardware fault, do not \
         publish this count"
    )]
    VerificationFailed { board: String, route: String, value: String, spare: u64, expected: u64, got: u64 },

    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },

    /// A peer answered, and the answer was no: another job owns it, it speaks another format or
    /// shard plan, it refused the token. Asking again cannot help.
    #[error("worker {peer}: {message}")]
    Refused { peer: String, message: String },

    /// A peer failed or stopped answering. The step (or lease) is tried again once it is back.
    #[error("worker {peer}: {message}")]
    Unavailable { peer: String, message: String },

    /// This attempt was replaced by a newer one (a step rerun after a failure elsewhere).
    #[error("the step was aborted: {0}")]
    Aborted(String),

    /// Something that cannot happen did: an overflow, a broken invariant.
    #[error("{0}; this is a bug in leaper: please report it with the command line that caused it")]
    Bug(String),
}

/// What a caller does about an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disposition {
    /// Try again once the peer is back: the failure was transient.
    Retry,
    /// Stop: the request cannot succeed as it is (bad input, a refusal, a damaged file).
    Stop,
    /// Stop and ask for a bug report.
    Bug,
}

impl Error {
    pub fn disposition(&self) -> Disposition {
        match self {
            Error::Unavailable { .. } | Error::Aborted(_) => Disposition::Retry,
            Error::Bug(_) | Error::VerificationFailed { .. } => Disposition::Bug,
            _ => Disposition::Stop,
        }
    }

    pub fn is_retryable(&self) -> bool {
        self.disposition() == Disposition::Retry
    }
}

/// What an error says when the disk is full (and what callers look for to add their advice).
pub const DISK_FULL: &str = "the disk is full";

/// An I/O failure on `path`, saying what was being done (and, for a full disk or a symbolic
/// link, what to do).
pub fn file_error(path: &Path, action: &str, error: std::io::Error) -> Error {
    let advice = if error.kind() == std::io::ErrorKind::StorageFull {
        format!("; {DISK_FULL}: free space (or use a directory on another disk), then run again")
    } else if error.raw_os_error() == Some(libc::ELOOP) {
        "; it is a symbolic link, and leaper never writes through a link it did not make: remove the link \
         (nothing was written through it)"
            .to_string()
    } else {
        String::new()
    };
    Error::File { path: path.to_path_buf(), message: format!("cannot {action}: {error}{advice}") }
}

/// Whether `error` is a full disk (see [`file_error`]).
pub fn is_disk_full(error: &Error) -> bool {
    matches!(error, Error::File { message, .. } if message.contains(DISK_FULL))
}
