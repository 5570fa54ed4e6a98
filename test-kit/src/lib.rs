//! What the tests of every leaper crate share.
//!
//! - [`scratch`] and [`scratch_dir`]: a path for one test's files under a fresh temporary
//!   directory, removed with everything in it when the test ends, also when it fails (a
//!   hand-written `remove_dir_all` at a test's end never runs after a failed assertion).
//! - [`known`], [`known_line`] and [`known_lines`]: the counts published elsewhere that the tests check leaper
//!   against, one table for the workspace (`known-counts.txt` beside this crate, with sources).
//! - [`free_address`] and [`wait_until_listening`]: loopback addresses for the servers a test
//!   starts (tests talk to this machine only).
//!
//! ```
//! let job = leaper_test_kit::scratch("resume");
//! assert!(!job.exists()); // a job directory is made by the count, not before it
//! assert_eq!(leaper_test_kit::known("knight 6x6"), "9862");
//! assert_eq!(leaper_test_kit::known_line("knight 6x6"), "9862\n");
//! assert_eq!(leaper_test_kit::known_lines("knight", 6, 5..=6), "6x5 8\n6x6 9862\n");
//! ```

use std::net::{TcpListener, TcpStream};
use std::ops::{Deref, RangeInclusive};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A path under a temporary directory of its own, all of it removed when this is dropped. It
/// reads as a `Path` (`dir.join(..)`, `dir.to_str()`, `&dir` where a `&Path` is asked).
pub struct Scratch {
    path: PathBuf,
    // Dropped after `path`: removes the directory and whatever the test put in it.
    _root: tempfile::TempDir,
}

/// A fresh path named after `name`, not created: a job directory must not exist before the
/// command that makes it.
pub fn scratch(name: &str) -> Scratch {
    let root = tempfile::Builder::new()
        .prefix(&format!("leaper-{name}-"))
        .tempdir()
        .unwrap_or_else(|e| panic!("a temporary directory for {name}: {e}"));
    Scratch { path: root.path().join(name), _root: root }
}

/// As [`scratch`], with the directory made (empty).
pub fn scratch_dir(name: &str) -> Scratch {
    let dir = scratch(name);
    std::fs::create_dir(&dir.path).unwrap_or_else(|e| panic!("{}: {e}", dir.path.display()));
    dir
}

impl Scratch {
    /// The path, owned (to move into a thread or a closure).
    pub fn to_path_buf(&self) -> PathBuf {
        self.path.clone()
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

const KNOWN: &str = include_str!("../known-counts.txt");

/// The table's lines: each a name (its words), its count, and how many words of source follow.
fn entries() -> impl Iterator<Item = (Vec<&'static str>, &'static str, usize)> {
    KNOWN.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty()).map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let count = fields.iter().position(|field| field.bytes().all(|b| b.is_ascii_digit()));
        let count = count.unwrap_or_else(|| panic!("test-kit/known-counts.txt: no count in {line:?}"));
        (fields[..count].to_vec(), fields[count], fields.len() - count - 1)
    })
}

/// The published count named `name` (`knight 6x8`, `knight 6x6 open`, `grid 6x6`), as decimal
/// digits. Panics if the table has no such line: a test asks only for what is there.
pub fn known(name: &str) -> &'static str {
    let words: Vec<&str> = name.split_whitespace().collect();
    entries()
        .find(|(named, _, _)| *named == words)
        .map(|(_, count, _)| count)
        .unwrap_or_else(|| panic!("test-kit/known-counts.txt has no count named {name:?}"))
}

/// The line a count prints in text: `known_line("knight 6x6")` is `9862\n`.
pub fn known_line(name: &str) -> String {
    format!("{}\n", known(name))
}

/// The lines a sweep prints for `problem` along `width` over `rows`: `6x5 8\n6x6 9862\n` for
/// `known_lines("knight", 6, 5..=6)`.
pub fn known_lines(problem: &str, width: usize, rows: RangeInclusive<usize>) -> String {
    rows.map(|n| format!("{width}x{n} {}\n", known(&format!("{problem} {width}x{n}")))).collect()
}

/// A loopback address no one listens on now, for a server a test is about to start.
pub fn free_address() -> String {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string()
}

/// Waits (up to 30 s) until something accepts connections on `address`; `what` names it.
pub fn wait_until_listening(address: &str, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(address).is_err() {
        assert!(Instant::now() < deadline, "{what} did not start listening on {address}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_table_has_a_name_a_count_and_a_source() {
        for (name, count, source_words) in entries() {
            assert!(name.len() >= 2 && source_words >= 1, "name, count and source in {name:?} {count}");
            assert_eq!(known(&name.join(" ")), count, "{name:?} found first");
        }
    }

    #[test]
    fn a_count_is_found_by_its_whole_name_only() {
        assert_eq!(known("knight 6x6"), "9862");
        assert_eq!(known("knight 6x6 open"), "3318960");
        assert!(std::panic::catch_unwind(|| known("knight 6x")).is_err());
        assert!(std::panic::catch_unwind(|| known("knight")).is_err());
    }

    #[test]
    fn a_scratch_directory_goes_when_it_is_dropped_also_on_a_panic() {
        let dir = scratch_dir("kit");
        let root = dir.parent().unwrap().to_path_buf();
        std::fs::write(dir.join("file"), "x").unwrap();
        drop(dir);
        assert!(!root.exists());
        let kept = std::sync::Mutex::new(PathBuf::new());
        let _ = std::panic::catch_unwind(|| {
            let dir = scratch("failing");
            *kept.lock().unwrap() = dir.parent().unwrap().to_path_buf();
            panic!("a failed assertion");
        });
        assert!(!kept.lock().unwrap().exists());
    }
}
