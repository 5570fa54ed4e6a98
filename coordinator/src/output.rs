//! Results beyond what a problem prints: OEIS b-files of a sweep's counts, in the sequence's own
//! indexing, with a header saying what made them; [`closed_stdout`], which tells a reader of
//! standard output that went away (`leaper ... | head`) from a failure; and [`AnsweredNo`], a
//! run that printed "no" (exit status 1, as grep's).
//!
//! `leaper knight 3x12 --sweep --bfile b.txt --stride 2` counts the closed tours of 3x1 ... 3x12
//! and writes the sequence "closed tours of 3 x 2n": the even lengths 2, 4, ..., 12, as
//! n = 1 ... 6 (`--offset 0` would number them 0 ... 5):
//!
//! ```text
//! # leaper 0.2.0
//! # command: leaper knight 3x12 --sweep --bfile b.txt --stride 2
//! # date: 2025-11-24
//! 1 0
//! 2 0
//! 3 0
//! 4 0
//! 5 16
//! 6 176
//! ```

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use leaper_core::engine::jobdir::replace_output;
use leaper_core::engine::Task;

/// Fails early, before a long count, if the b-file cannot be written.
pub fn check_writable(path: &Path) -> Result<()> {
    Ok(leaper_core::engine::jobdir::check_writable(path, "b-file")?)
}

/// Which rows a b-file keeps and how it numbers them. The problem's rows are `(n, a(n))` with `n`
/// its own (the board length for tours): `--stride S` keeps the rows whose `n` is a multiple of
/// `S`, as `n / S`; `--offset K` numbers the first row kept `K`, the next `K + 1`, and so on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Indexing {
    pub offset: Option<usize>,
    pub stride: Option<usize>,
}

impl Indexing {
    /// The rows kept, renumbered; an indexing that keeps none is refused.
    pub fn apply(&self, rows: &[(usize, String)]) -> Result<Vec<(usize, String)>> {
        let stride = self.stride.unwrap_or(1);
        if stride == 0 {
            bail!("--stride 0 keeps no row: the stride must be at least 1");
        }
        let kept: Vec<(usize, String)> =
            rows.iter().filter(|(n, _)| n % stride == 0).map(|(n, value)| (n / stride, value.clone())).collect();
        if kept.is_empty() {
            let given: Vec<String> = rows.iter().map(|(n, _)| n.to_string()).collect();
            bail!(
                "--stride {stride} keeps no row of this b-file: its rows are n = {}, none a multiple of {stride}",
                match given.as_slice() {
                    [] => "none".to_string(),
                    [one] => one.clone(),
                    [first, .., last] => format!("{first} ... {last}"),
                }
            );
        }
        let Some(offset) = self.offset else { return Ok(kept) };
        if offset.checked_add(kept.len() - 1).is_none() {
            bail!(
                "--offset {offset} is too large: the b-file's {} rows would be numbered past {}",
                kept.len(),
                usize::MAX
            );
        }
        Ok(kept.into_iter().enumerate().map(|(i, (_, value))| (offset + i, value)).collect())
    }

    /// The options as a command line gives them (` --offset 1 --stride 2`).
    pub fn options(&self) -> String {
        let mut text = String::new();
        if let Some(offset) = self.offset {
            text.push_str(&format!(" --offset {offset}"));
        }
        if let Some(stride) = self.stride {
            text.push_str(&format!(" --stride {stride}"));
        }
        text
    }
}

/// Refuses, before counting, an `--offset` or `--stride` that leaves the b-file of these
/// parameters no row.
pub fn check_indexing(task: &dyn Task, indexing: Indexing) -> Result<()> {
    if indexing == Indexing::default() {
        return Ok(());
    }
    let rows: Vec<(usize, String)> = task.bfile_indices()?.into_iter().map(|n| (n, String::new())).collect();
    indexing.apply(&rows)?;
    Ok(())
}

/// Writes the b-file to `path` durably (a temporary file, synced, renamed into place), so an
/// interrupted run never leaves a truncated b-file: the header, then `n a(n)` for each row the
/// indexing keeps. `command` is the job's command line without `leaper` and the b-file options:
/// every option that changes the rows (the problem's [`Task::command_line`], the indexing), so
/// that the `# command:` line, pasted into a shell, writes the same file.
pub fn write_bfile(path: &Path, command: &str, indexing: Indexing, rows: &[(usize, String)]) -> Result<()> {
    let rows = indexing.apply(rows)?;
    // The file's own name: the directory it was written in means nothing to a reader.
    let name = path.file_name().map_or(path.as_os_str(), |name| name).to_string_lossy();
    let mut text = format!(
        "# leaper {}\n# command: leaper {command} --bfile {}{}\n# date: {}\n",
        env!("CARGO_PKG_VERSION"),
        shell_word(&name),
        indexing.options(),
        today().context("cannot date the b-file")?
    );
    for (n, value) in rows {
        text.push_str(&format!("{n} {value}\n"));
    }
    Ok(replace_output(path, text.as_bytes(), "bfile")?)
}

/// `word` as a POSIX shell reads it back: as it is when it holds nothing the shell would take
/// apart (`b.txt`), else in single quotes (`'my b-file.txt'`, a quote inside as `'\''`).
pub fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-.,/:=+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Today's date in UTC, `YYYY-MM-DD`.
pub fn today() -> Result<String> {
    let seconds = SystemTime::now().duration_since(UNIX_EPOCH).context("the clock is set before 1970")?.as_secs();
    let (year, month, day) = civil_date((seconds / 86_400) as i64);
    Ok(format!("{year:04}-{month:02}-{day:02}"))
}

/// The Gregorian date `(year, month, day)` of the day `days` after 1970-01-01.
///
/// Counted from 0000-03-01 instead, a year ends with February, so its leap day is last: years
/// run in 400-year eras of 146097 days, and inside an era the year and the day of the year
/// follow from the day count alone; months from March are 153 days per five (31 30 31 30 31).
/// (Howard Hinnant's `civil_from_days`.)
pub fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468; // days from 0000-03-01
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month as u32, day as u32)
}

/// `EPIPE`, the same on Linux and the BSDs (a test checks that it is a broken pipe here).
const EPIPE: i32 = 32;

/// Whether `error` is standard output closed by its reader (`leaper status ... | head`): then
/// leaper stops quietly and successfully, as `cat` and `ripgrep` do, since what was asked for
/// went wherever the reader wanted it. Either an `io::Error` of kind `BrokenPipe` in the chain,
/// or leaper-core's report of a write to standard output, which keeps only the system's message.
pub fn closed_stdout(error: &anyhow::Error) -> bool {
    let broken_pipe = std::io::Error::from_raw_os_error(EPIPE).to_string();
    error.chain().any(|cause| {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return io.kind() == std::io::ErrorKind::BrokenPipe;
        }
        matches!(
            cause.downcast_ref::<leaper_core::Error>(),
            Some(leaper_core::Error::File { path, message })
                if path == Path::new("standard output") && message.ends_with(&broken_pipe)
        )
    })
}

/// The end of a run whose printed answer is no (`tangram fit` of an outline the pieces cannot
/// build): not a failure, but a status of 1, as grep's when nothing matches ([`answered_no`]).
#[derive(Debug)]
pub struct AnsweredNo;

impl std::fmt::Display for AnsweredNo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the answer printed is no")
    }
}

impl std::error::Error for AnsweredNo {}

/// Whether a run ended with [`AnsweredNo`]: exit with status 1, and nothing more to say.
pub fn answered_no(error: &anyhow::Error) -> bool {
    error.downcast_ref::<AnsweredNo>().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_the_shell_would_take_apart_is_quoted() {
        assert_eq!(shell_word("b-file_1.txt"), "b-file_1.txt");
        assert_eq!(shell_word("my rows.txt"), "'my rows.txt'");
        assert_eq!(shell_word("a'b$c"), r"'a'\''b$c'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn a_closed_standard_output_is_told_from_other_failures() {
        assert_eq!(std::io::Error::from_raw_os_error(EPIPE).kind(), std::io::ErrorKind::BrokenPipe);
        let pipe = || std::io::Error::from_raw_os_error(EPIPE);
        let on_stdout = |message: String| leaper_core::Error::File { path: "standard output".into(), message };
        assert!(closed_stdout(&anyhow::Error::from(pipe())));
        assert!(closed_stdout(&anyhow::Error::from(pipe()).context("printing the status")));
        assert!(closed_stdout(&on_stdout(pipe().to_string()).into()));
        assert!(closed_stdout(&on_stdout(format!("cannot write the converted tours: {}", pipe())).into()));
        // A pipe to a file of the user's, a full disk on standard output, anything else: errors.
        let to_file = leaper_core::Error::File { path: "fifo".into(), message: pipe().to_string() };
        assert!(!closed_stdout(&to_file.into()));
        assert!(!closed_stdout(&on_stdout(std::io::Error::from_raw_os_error(28).to_string()).into()));
        assert!(!closed_stdout(&anyhow::anyhow!("worker 127.0.0.1:1: Broken pipe")));
    }

    #[test]
    fn civil_dates_of_known_days() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(-1), (1969, 12, 31));
        assert_eq!(civil_date(59), (1970, 3, 1));
        assert_eq!(civil_date(10_957), (2000, 1, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29), "2000 is a leap year: divisible by 400");
        assert_eq!(civil_date(19_723), (2024, 1, 1));
        assert_eq!(civil_date(20_088), (2024, 12, 31), "2024 has 366 days");
        assert_eq!(civil_date(47_540), (2100, 2, 28));
        assert_eq!(civil_date(47_541), (2100, 3, 1), "2100 is not a leap year");
    }

    fn rows(lengths: std::ops::RangeInclusive<usize>) -> Vec<(usize, String)> {
        lengths.map(|n| (n, format!("a{n}"))).collect()
    }

    fn numbers(rows: &[(usize, String)]) -> Vec<(usize, &str)> {
        rows.iter().map(|(n, value)| (*n, value.as_str())).collect()
    }

    #[test]
    fn a_stride_keeps_multiples_and_an_offset_renumbers() {
        let all = rows(1..=7);
        let plain = Indexing::default().apply(&all).unwrap();
        assert_eq!(plain, all);
        let even = Indexing { offset: None, stride: Some(2) }.apply(&all).unwrap();
        assert_eq!(numbers(&even), [(1, "a2"), (2, "a4"), (3, "a6")]);
        let from_zero = Indexing { offset: Some(0), stride: Some(3) }.apply(&all).unwrap();
        assert_eq!(numbers(&from_zero), [(0, "a3"), (1, "a6")]);
        let shifted = Indexing { offset: Some(10), stride: None }.apply(&rows(4..=5)).unwrap();
        assert_eq!(numbers(&shifted), [(10, "a4"), (11, "a5")]);
        assert_eq!(Indexing { offset: Some(1), stride: Some(2) }.options(), " --offset 1 --stride 2");
    }

    #[test]
    fn an_indexing_that_keeps_no_row_is_refused() {
        let error = Indexing { offset: None, stride: Some(8) }.apply(&rows(1..=7)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--stride 8 keeps no row of this b-file: its rows are n = 1 ... 7, none a multiple of 8"
        );
        let error = Indexing { offset: None, stride: Some(4) }.apply(&rows(6..=6)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--stride 4 keeps no row of this b-file: its rows are n = 6, none a multiple of 4"
        );
        let error = Indexing { offset: None, stride: Some(0) }.apply(&rows(1..=7)).unwrap_err();
        assert_eq!(error.to_string(), "--stride 0 keeps no row: the stride must be at least 1");
        let error = Indexing { offset: Some(usize::MAX), stride: None }.apply(&rows(1..=2)).unwrap_err();
        assert!(error.to_string().starts_with("--offset 18446744073709551615 is too large"), "{error}");
    }
}
