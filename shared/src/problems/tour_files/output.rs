//! Where a tours command writes its tours (`--out FILE`): a file, written through a temporary
//! file renamed into place so that a failure leaves none half-written, or, for `--out -` as most
//! command-line tools read a lone dash, standard output. Then the command's summary goes to
//! standard error, so that standard output holds tours only and can be piped on.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::engine::jobdir::{check_writable, file_error, write_durably_with};
use crate::error::Result;

/// How messages name standard output.
pub const STDOUT_NAME: &str = "standard output";

/// The target of `--out`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    File(PathBuf),
    Stdout,
}

impl Output {
    /// `-` is standard output; anything else a file.
    pub fn new(path: &Path) -> Output {
        if path == Path::new("-") {
            Output::Stdout
        } else {
            Output::File(path.to_path_buf())
        }
    }

    /// The path as messages name it.
    pub fn path(&self) -> &Path {
        match self {
            Output::File(path) => path,
            Output::Stdout => Path::new(STDOUT_NAME),
        }
    }

    /// As `--out` was given: the file's path, or `-`.
    pub fn given(&self) -> String {
        match self {
            Output::File(path) => path.display().to_string(),
            Output::Stdout => "-".into(),
        }
    }

    /// Fails early, before the work, if the file cannot be written (`what`: "tour file").
    pub fn check(&self, what: &str) -> Result<()> {
        match self {
            Output::File(path) => check_writable(path, what),
            Output::Stdout => Ok(()),
        }
    }

    /// Whether this is the file at `path` (standard output is no file read).
    pub fn is(&self, path: &Path) -> bool {
        let Output::File(own) = self else { return false };
        match (std::fs::canonicalize(own), std::fs::canonicalize(path)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }

    /// Writes `what` ("the tours") with `fill`: to the file through a temporary file, or to
    /// `stdout` through a buffer (standard output writes each line on its own), flushed, so that
    /// a closed pipe is found here.
    pub fn write(
        &self,
        what: &str,
        stdout: &mut dyn Write,
        fill: &mut dyn FnMut(&mut dyn Write) -> Result<()>,
    ) -> Result<()> {
        match self {
            Output::File(path) => write_durably_with(path, what, fill),
            Output::Stdout => {
                let mut buffered = std::io::BufWriter::with_capacity(1 << 16, stdout);
                fill(&mut buffered)?;
                buffered.flush().map_err(|e| file_error(Path::new(STDOUT_NAME), &format!("write {what}"), e))
            }
        }
    }

    /// Where the command's summary goes: standard error when the tours take standard output.
    pub fn summary<'a>(&self, stdout: &'a mut dyn Write, stderr: &'a mut std::io::Stderr) -> &'a mut dyn Write {
        match self {
            Output::File(_) => stdout,
            Output::Stdout => stderr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_dash_is_standard_output() {
        assert_eq!(Output::new(Path::new("-")), Output::Stdout);
        assert_eq!(Output::new(Path::new("./-")), Output::File("./-".into()));
        assert_eq!(Output::Stdout.path(), Path::new("standard output"));
        assert_eq!(Output::Stdout.given(), "-");
        let mut bytes = Vec::new();
        Output::Stdout
            .write("the tours", &mut bytes, &mut |out| {
                out.write_all(b"a1\n").map_err(|e| file_error(Path::new(STDOUT_NAME), "write", e))
            })
            .unwrap();
        assert_eq!(bytes, b"a1\n");
    }
}
