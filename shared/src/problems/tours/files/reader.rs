//! Reading tour files: one tour per line, in any of the [formats](super::format), checked as
//! they are read, errors naming the file and line.
//!
//! Lines are read in chunks and parsed (and whatever the caller computes from each tour) on
//! every thread; the caller then sees them one by one in file order, each with its ordinal (the
//! number of valid tours before it, counted from 0), so that a second reading of the same files
//! numbers them alike. Blank lines and lines starting with `#` are skipped. An invalid line
//! stops the reading with `FILE: line N: what is wrong`, or with `--skip-invalid` is counted and
//! skipped (the first few are logged).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::board::TourBoard;
use super::format::{detect, parse, Closure, Format};
use super::tour::Tour;
use crate::engine::jobdir::file_error;
use crate::error::{Error, Result};

/// Lines parsed together.
const CHUNK: usize = 1 << 15;
/// Invalid lines logged with `--skip-invalid` before the rest are only counted.
const LOGGED_INVALID: u64 = 10;

/// How tour files are read.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    pub board: TourBoard,
    /// The files' format; `None` recognises each file's from its first tour.
    pub from: Option<Format>,
    pub closure: Closure,
    pub skip_invalid: bool,
}

/// What a reading found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    pub tours: u64,
    pub invalid: u64,
    /// Bytes of the files read.
    pub bytes: u64,
}

/// Reads every tour of `paths` in order. `compute` runs on any thread for each valid tour;
/// `each` gets, in file order, the tour's ordinal, the tour and what was computed from it.
pub fn read_tours<T: Send>(
    paths: &[PathBuf],
    options: &ReadOptions,
    compute: &(dyn Fn(&Tour) -> T + Sync),
    each: &mut dyn FnMut(u64, &Tour, T) -> Result<()>,
) -> Result<ReadStats> {
    let mut stats = ReadStats::default();
    for path in paths {
        let file = File::open(path).map_err(|e| file_error(path, "read the tours", e))?;
        stats.bytes += file.metadata().map_err(|e| file_error(path, "read the tours", e))?.len();
        let mut lines = BufReader::with_capacity(1 << 20, file);
        let mut format = options.from;
        let mut number = 0usize;
        loop {
            let chunk = read_chunk(&mut lines, path, &mut number)?;
            if chunk.is_empty() {
                break;
            }
            if format.is_none() {
                let (line_number, text) = &chunk[0];
                format = Some(detect(text).ok_or_else(|| Error::File {
                    path: path.clone(),
                    message: format!(
                        "line {line_number}: not a tour in any format leaper knows (compact lines start with two \
                         spaces, move lists with a square such as a1, connection lists with digits); give --from"
                    ),
                })?);
            }
            let format = format.expect("known by now");
            let parsed: Vec<std::result::Result<(Tour, T), String>> = chunk
                .par_iter()
                .map(|(_, text)| {
                    let tour = parse(&options.board, format, options.closure, text)?;
                    let value = compute(&tour);
                    Ok((tour, value))
                })
                .collect();
            for ((line_number, _), result) in chunk.iter().zip(parsed) {
                match result {
                    Ok((tour, value)) => {
                        each(stats.tours, &tour, value)?;
                        stats.tours += 1;
                    }
                    Err(message) => {
                        stats.invalid += 1;
                        if !options.skip_invalid {
                            return Err(invalid(path, *line_number, &message));
                        }
                        if stats.invalid <= LOGGED_INVALID {
                            tracing::warn!(file = %path.display(), line = line_number, "skipped: {message}");
                        }
                    }
                }
            }
        }
    }
    if stats.invalid > LOGGED_INVALID {
        tracing::warn!(skipped = stats.invalid, "invalid lines skipped (the first {LOGGED_INVALID} were logged)");
    }
    Ok(stats)
}

fn invalid(path: &Path, line: usize, message: &str) -> Error {
    Error::File {
        path: path.to_path_buf(),
        message: format!("line {line}: {message} (--skip-invalid skips such lines)"),
    }
}

/// The next lines that hold a tour, with their line numbers (from 1), without line endings.
fn read_chunk(lines: &mut BufReader<File>, path: &Path, number: &mut usize) -> Result<Vec<(usize, String)>> {
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut bytes = Vec::new();
    while chunk.len() < CHUNK {
        bytes.clear();
        if lines.read_until(b'\n', &mut bytes).map_err(|e| file_error(path, "read the tours", e))? == 0 {
            break;
        }
        *number += 1;
        while bytes.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
            bytes.pop();
        }
        if bytes.iter().all(u8::is_ascii_whitespace) || bytes.first() == Some(&b'#') {
            continue;
        }
        let text =
            String::from_utf8(bytes.clone()).map_err(|_| invalid(path, *number, "the line is not text (UTF-8)"))?;
        chunk.push((*number, text));
    }
    Ok(chunk)
}
