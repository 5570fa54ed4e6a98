//! Reading tour files (`-`: stdin): one tour per line, in any of the [formats](super::format),
//! checked as they are read, errors naming the file and line.
//!
//! Lines are read in chunks and parsed (and whatever the caller computes from each tour) on
//! every thread; the caller then sees them one by one in file order, each with its ordinal (the
//! number of valid tours before it, counted from 0), so that a second reading of the same files
//! numbers them alike. Blank lines and lines starting with `#` are skipped. An invalid line (not
//! a tour, not text, longer than [`MAX_TOUR_LINE`]) stops the reading with `FILE: line N: what is
//! wrong`, or with `--skip-invalid` is counted and skipped (the first few are logged). No line
//! is kept past its bound: a file without line breaks (`/dev/zero`) is refused after it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::board::{TourBoard, MAX_FILE_SIDE};
use super::format::{detect, parse, Closure, Format, MAX_TOUR_LINE};
use super::infer::BoardSource;
use super::tour::Tour;
use crate::engine::jobdir::file_error;
use crate::error::{Error, Result};
use crate::input::{BoundedLines, Line, Source};

/// Lines parsed together...
const CHUNK: usize = 1 << 15;
/// ...and their bytes at most, so that a chunk of long lines stays small.
const CHUNK_BYTES: usize = 16 << 20;
/// Invalid lines logged with `--skip-invalid` before the rest are only counted.
const LOGGED_INVALID: u64 = 10;

/// How tour files are read.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    pub board: TourBoard,
    /// Where the board came from, for the errors about lines.
    pub source: BoardSource,
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
    for given in paths {
        let source = Source::new(given);
        let path = source.name();
        let file = source.open().map_err(|e| file_error(path, "read the tours", e))?;
        stats.bytes += source.regular_size().unwrap_or(0);
        let mut lines = BoundedLines::new(BufReader::with_capacity(1 << 20, file), MAX_TOUR_LINE);
        let mut format = options.from;
        loop {
            let chunk = read_chunk(&mut lines, path, options.skip_invalid)?;
            if chunk.is_empty() {
                break;
            }
            if format.is_none() {
                format = detect_format(path, &chunk)?;
            }
            let parsed: Vec<std::result::Result<(Tour, T), String>> = chunk
                .par_iter()
                .map(|(_, line)| {
                    let text = line.as_ref().map_err(Clone::clone)?;
                    let format = format.expect("known once a line is text");
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
                            return Err(invalid(path, *line_number, &message, options));
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

/// An invalid line, named with the board it was read as: a tour of another board fails on any
/// line, and the note says which board to give instead.
fn invalid(path: &Path, line: usize, message: &str, options: &ReadOptions) -> Error {
    Error::File {
        path: path.to_path_buf(),
        message: format!(
            "line {line}: {message} ({}; --skip-invalid skips such lines)",
            options.source.note(&options.board)
        ),
    }
}

/// The format of the file's first line of text, if the chunk holds one.
fn detect_format(path: &Path, chunk: &[(usize, std::result::Result<String, String>)]) -> Result<Option<Format>> {
    let Some((line_number, Ok(text))) = chunk.iter().find(|(_, line)| line.is_ok()) else { return Ok(None) };
    let format = detect(text).ok_or_else(|| Error::File {
        path: path.to_path_buf(),
        message: format!(
            "line {line_number}: not a tour in any format leaper knows (compact lines start with two spaces, move \
             lists with a square such as a1, connection lists with digits); give --from"
        ),
    })?;
    Ok(Some(format))
}

/// The next lines that may hold a tour, with their line numbers (from 1), without line endings;
/// a line that cannot (not text, too long) with what is wrong with it, and unless such lines are
/// skipped, last: the rest of a line too long is never read.
fn read_chunk(
    lines: &mut BoundedLines<impl BufRead>,
    path: &Path,
    skip_invalid: bool,
) -> Result<Vec<(usize, std::result::Result<String, String>)>> {
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut bytes = 0;
    while chunk.len() < CHUNK && bytes < CHUNK_BYTES {
        let Some((number, line)) = lines.next_line().map_err(|e| file_error(path, "read the tours", e))? else {
            break;
        };
        let line = match line {
            Line::Text(text) if text.iter().all(u8::is_ascii_whitespace) || text.first() == Some(&b'#') => continue,
            Line::Text(text) => {
                String::from_utf8(text.to_vec()).map_err(|_| "the line is not text (UTF-8)".to_string())
            }
            Line::TooLong => Err(format!(
                "the line is longer than {MAX_TOUR_LINE} bytes, more than a tour takes on any board up to \
                 {MAX_FILE_SIDE}x{MAX_FILE_SIDE}"
            )),
        };
        bytes += line.as_ref().map_or(0, String::len);
        let stop = line.is_err() && !skip_invalid;
        chunk.push((number, line));
        if stop {
            break;
        }
    }
    Ok(chunk)
}
