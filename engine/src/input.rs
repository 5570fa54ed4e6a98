//! Input read within a bound. The files a user names (a token, TLS certificates, a piece file,
//! tour files, a graph, its vertex order, a mask of squares) are read no further than a bound
//! that fits their kind, so that a wrong file (`/dev/zero`, a disk image, a log without line
//! breaks) is refused by name after at most its bound, in memory of that order, never read whole
//! first; a regular file larger than its bound is refused by its size, unread; and a line or name
//! quoted in a message is cut short. A lone `-` names standard input ([`Source`]), read within
//! the same bound.
//!
//! ```text
//! read_file_bounded("/dev/zero", 4 KiB, "token file")
//!     reads 4097 bytes, one more than the bound ─► "/dev/zero: the token file is larger than 4 KiB,
//!     more than such a file holds: is it the right file?"
//! read_text(Source::new("-"), 64 MiB, "graph file")   with a pipe of 1 GB on stdin
//!     reads 64 MiB + 1 bytes ─► "stdin: the graph file is larger than 64 MiB, ..."
//! read_file_bounded("disk.img", 64 MiB, "graph file")  a regular file of 1 GiB: nothing read
//! BoundedLines over "a1 b3\r\n" ++ "x" * 10^9 ++ "\nc2", 16 KiB a line
//!     next_line ─► (1, Text("a1 b3"))            the line ending dropped
//!     next_line ─► (2, TooLong)                  after 16 KiB + 2 bytes of the line, not 10^9
//!     next_line ─► (3, Text("c2"))               the rest of line 2 skipped, a buffer at a time
//!     next_line ─► None
//! quote("x" * 10^9) ─► "xx…x"… (1000000000 bytes)      the first 80 characters, quoted
//! cut("x" * 10^9)   ─► xx…x… (1000000000 bytes)        the same, unquoted (a vertex's name)
//! ```
//!
//! A caller that stops at a line too long reads no further; one that skips it (`--skip-invalid`)
//! reads the rest of the line to its end without keeping it.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use crate::error::{file_error, Error, Result};

/// The characters of an input line a message quotes at most.
pub const QUOTE_CHARS: usize = 80;

/// `4 KiB`, `1 MiB`, or bytes where the size is no whole number of either.
pub fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// How messages name standard input.
pub const STDIN_NAME: &str = "stdin";

/// A file a user names to be read, or standard input for a lone `-` (as most command-line tools
/// read it; `./-` is a file of that name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Stdin,
    File(PathBuf),
}

impl Source {
    pub fn new(given: impl AsRef<Path>) -> Source {
        let given = given.as_ref();
        if given == Path::new("-") {
            Source::Stdin
        } else {
            Source::File(given.to_path_buf())
        }
    }

    /// How messages name it: its path, or `stdin`.
    pub fn name(&self) -> &Path {
        match self {
            Source::Stdin => Path::new(STDIN_NAME),
            Source::File(path) => path,
        }
    }

    /// Its bytes from the start.
    pub fn open(&self) -> std::io::Result<Box<dyn Read + Send>> {
        Ok(match self {
            Source::Stdin => Box::new(std::io::stdin()),
            Source::File(path) => Box::new(File::open(path)?),
        })
    }

    /// Whether it can be read twice: a regular file (standard input, a pipe or a device cannot).
    pub fn rereadable(&self) -> bool {
        match self {
            Source::Stdin => false,
            Source::File(path) => std::fs::metadata(path).is_ok_and(|meta| meta.is_file()),
        }
    }

    /// Its size, where it is a regular file.
    pub fn regular_size(&self) -> Option<u64> {
        match self {
            Source::Stdin => None,
            Source::File(path) => std::fs::metadata(path).ok().filter(|meta| meta.is_file()).map(|meta| meta.len()),
        }
    }
}

/// The file at `path`, refused by name when it holds more than `limit` bytes: at most one byte
/// past the bound is read (none when the file's size says so). `what` names the file's kind in
/// messages ("token file").
pub fn read_file_bounded(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>> {
    read_bounded(&Source::File(path.to_path_buf()), limit, what)
}

/// All of `source` (a file, or standard input), refused by name when it holds more than
/// `limit` bytes: at most one byte past the bound is read, and a regular file larger than the
/// bound is refused by its size, unread.
pub fn read_bounded(source: &Source, limit: u64, what: &str) -> Result<Vec<u8>> {
    let name = source.name();
    let too_large = || Error::File {
        path: name.to_path_buf(),
        message: format!(
            "the {what} is larger than {}, more than such a file holds: is it the right file?",
            size(limit)
        ),
    };
    if source.regular_size().is_some_and(|bytes| bytes > limit) {
        return Err(too_large());
    }
    let action = format!("read the {what}");
    let reader = source.open().map_err(|e| file_error(name, &action, e))?;
    read_at_most(reader, limit).map_err(|e| file_error(name, &action, e))?.ok_or_else(too_large)
}

/// All of `reader` when it holds at most `limit` bytes, else `None`: one byte past the bound is
/// read, never more.
pub fn read_at_most(reader: impl Read, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    reader.take(limit + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// [`read_file_bounded`], as text: a file that is not UTF-8 is refused by name.
pub fn read_to_string_bounded(path: &Path, limit: u64, what: &str) -> Result<String> {
    read_text(&Source::File(path.to_path_buf()), limit, what)
}

/// [`read_bounded`], as text: input that is not UTF-8 is refused by name.
pub fn read_text(source: &Source, limit: u64, what: &str) -> Result<String> {
    String::from_utf8(read_bounded(source, limit, what)?).map_err(|_| Error::File {
        path: source.name().to_path_buf(),
        message: format!("the {what} is not text (UTF-8)"),
    })
}

/// One line as [`BoundedLines`] reads it.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// The line's bytes, without its line ending (LF or CR LF).
    Text(&'a [u8]),
    /// A line longer than the bound: not kept.
    TooLong,
}

/// The lines of a reader, each at most `limit` bytes besides its line ending, numbered from 1.
pub struct BoundedLines<R> {
    reader: R,
    limit: usize,
    number: usize,
    line: Vec<u8>,
    /// The rest of a line too long is still to be skipped.
    skipping: bool,
}

impl<R: BufRead> BoundedLines<R> {
    pub fn new(reader: R, limit: usize) -> Self {
        BoundedLines { reader, limit, number: 0, line: Vec::new(), skipping: false }
    }

    /// The bound on a line, its line ending aside.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The next line and its number, or `None` at the end. A line past the bound is
    /// [`Line::TooLong`] once `limit` + 2 of its bytes are read (two for a CR LF); the next call
    /// skips the rest of it.
    pub fn next_line(&mut self) -> std::io::Result<Option<(usize, Line<'_>)>> {
        if self.skipping {
            self.skip_line()?;
            self.skipping = false;
        }
        self.line.clear();
        let read = self.reader.by_ref().take(self.limit as u64 + 2).read_until(b'\n', &mut self.line)?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        let ended = self.line.last() == Some(&b'\n');
        while self.line.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
            self.line.pop();
        }
        if !ended && read == self.limit + 2 {
            self.skipping = true;
            return Ok(Some((self.number, Line::TooLong)));
        }
        if self.line.len() > self.limit {
            return Ok(Some((self.number, Line::TooLong)));
        }
        Ok(Some((self.number, Line::Text(&self.line))))
    }

    /// Reads up to the next line ending (or the end), keeping nothing.
    fn skip_line(&mut self) -> std::io::Result<()> {
        loop {
            let buffer = self.reader.fill_buf()?;
            if buffer.is_empty() {
                return Ok(());
            }
            match buffer.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    self.reader.consume(end + 1);
                    return Ok(());
                }
                None => {
                    let all = buffer.len();
                    self.reader.consume(all);
                }
            }
        }
    }
}

/// `text` quoted for a message: its first [`QUOTE_CHARS`] characters, and where it is longer an
/// ellipsis and its length.
pub fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => format!("{text:?}"),
        Some((end, _)) => format!("{:?}… ({} bytes)", &text[..end], text.len()),
    }
}

/// `text` as a message shows a name unquoted (a vertex's, a square's): whole when it is short,
/// else its first [`QUOTE_CHARS`] characters, an ellipsis and its length.
pub fn cut(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}… ({} bytes)", &text[..end], text.len())),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor};

    use super::*;

    fn lines(text: &[u8], limit: usize) -> Vec<(usize, Option<String>)> {
        // A small buffer, so that lines span refills.
        let mut lines = BoundedLines::new(BufReader::with_capacity(3, Cursor::new(text.to_vec())), limit);
        let mut all = Vec::new();
        while let Some((number, line)) = lines.next_line().unwrap() {
            all.push((
                number,
                match line {
                    Line::Text(bytes) => Some(String::from_utf8(bytes.to_vec()).unwrap()),
                    Line::TooLong => None,
                },
            ));
        }
        all
    }

    #[test]
    fn lines_within_the_bound_are_read_and_longer_ones_skipped() {
        let text = b"abcd\r\nabcde\nabcdefgh\n\nab\r\nabcd";
        let expected = [(1, Some("abcd")), (2, None), (3, None), (4, Some("")), (5, Some("ab")), (6, Some("abcd"))];
        let expected: Vec<(usize, Option<String>)> = expected.iter().map(|(n, l)| (*n, l.map(String::from))).collect();
        assert_eq!(lines(text, 4), expected);
        // Exactly at the bound, with either line ending or none.
        assert_eq!(lines(b"abcd\r\n", 4), [(1, Some("abcd".into()))]);
        assert_eq!(lines(b"abcd", 4), [(1, Some("abcd".into()))]);
        assert_eq!(lines(b"abcde", 4), [(1, None)]);
        assert_eq!(lines(b"abcdef", 4), [(1, None)]);
        assert_eq!(lines(b"", 4), []);
    }

    #[test]
    fn an_endless_line_is_reported_after_the_bound() {
        // /dev/zero has no line ending: the reader stops after the bound and two bytes.
        let mut endless = BoundedLines::new(BufReader::new(std::io::repeat(0).take(1 << 40)), 1000);
        assert_eq!(endless.next_line().unwrap(), Some((1, Line::TooLong)));
        assert!(endless.line.capacity() < 4096, "{}", endless.line.capacity());
    }

    #[test]
    fn files_past_their_bound_are_refused_by_name() {
        let dir = leaper_test_kit::scratch_dir("input");
        let path = dir.join("token");
        std::fs::write(&path, "s3cret\n").unwrap();
        assert_eq!(read_to_string_bounded(&path, 7, "token file").unwrap(), "s3cret\n");
        let error = read_to_string_bounded(&path, 6, "token file").unwrap_err().to_string();
        assert!(error.starts_with(&format!("{}: the token file is larger than 6 bytes", path.display())), "{error}");
        std::fs::write(&path, b"\xff\n").unwrap();
        let error = read_to_string_bounded(&path, 4096, "token file").unwrap_err().to_string();
        assert!(error.ends_with("the token file is not text (UTF-8)"), "{error}");
        assert!(read_file_bounded(&dir.join("missing"), 4096, "token file")
            .unwrap_err()
            .to_string()
            .contains("cannot"));
        let error = read_file_bounded(Path::new("/dev/zero"), 4 << 10, "token file").unwrap_err().to_string();
        assert!(error.starts_with("/dev/zero: the token file is larger than 4 KiB"), "{error}");
        assert_eq!(size(1 << 20), "1 MiB");
        assert_eq!(size(1000), "1000 bytes");
    }

    #[test]
    fn quotes_are_cut_short() {
        assert_eq!(quote("a1 b3"), "\"a1 b3\"");
        let long = "é".repeat(100);
        assert_eq!(quote(&long), format!("\"{}\"… (200 bytes)", "é".repeat(QUOTE_CHARS)));
        assert_eq!(quote(&"x".repeat(QUOTE_CHARS)), format!("\"{}\"", "x".repeat(QUOTE_CHARS)));
        assert_eq!(cut("a1"), "a1");
        assert_eq!(cut(&"x".repeat(QUOTE_CHARS)), "x".repeat(QUOTE_CHARS));
        assert_eq!(cut(&"é".repeat(100)), format!("{}… (200 bytes)", "é".repeat(QUOTE_CHARS)));
    }

    #[test]
    fn a_regular_file_past_its_bound_is_refused_by_its_size() {
        let dir = leaper_test_kit::scratch_dir("input-size");
        let path = dir.join("big");
        // Sparse: a gigabyte by its size, nothing on disk, and nothing read.
        File::create(&path).unwrap().set_len(1 << 30).unwrap();
        let error = read_file_bounded(&path, 1 << 20, "mask file").unwrap_err().to_string();
        assert!(
            error.ends_with("the mask file is larger than 1 MiB, more than such a file holds: is it the right file?")
        );
        assert_eq!(Source::new("-"), Source::Stdin);
        assert_eq!(Source::new("./-"), Source::File("./-".into()));
        assert_eq!(Source::Stdin.name(), Path::new("stdin"));
        assert!(!Source::Stdin.rereadable() && !Source::new("/dev/zero").rereadable());
    }
}
