//! The ledger: the finished shards of a subtree job, one line each, appended and synced as they
//! finish, so that a resumed job runs only the rest.
//!
//! ```text
//! {"format":1,"job":"quarto-...","problem":"quarto rows+cols+maindiags","shards":366,"fingerprint":123,"crc32":..}
//! {"shard":17,"label":"units 0x0116","counts":["169560"],"crc32":..}
//! ```
//!
//! Every line carries the CRC-32 of itself written with `crc32` 0. A crash can leave only the last
//! line unfinished (no newline): that line is dropped and its shard runs again. Any other damage,
//! a header of another job or shard plan, or a shard recorded twice with different results is an
//! error naming the file and line: a ledger is never half-believed.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ShardResult;
use crate::fault;
use crate::files::durable::{file_error, hold_commits, no_follow, read_small, sync_dir};
use crate::files::LEDGER_BYTES;
pub use crate::files::LEDGER_FILE;
use crate::{Error, Result};

pub const LEDGER_FORMAT: u32 = 1;

/// The first line: which job and which shard plan the entries belong to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerHeader {
    pub format: u32,
    pub job: String,
    pub problem: String,
    pub shards: usize,
    pub fingerprint: u32,
    /// The format of the `job.toml` the job was started with: a spec rewritten in an older
    /// format (without its checksum) is refused. `None` in ledgers written before it was
    /// recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_format: Option<u32>,
    #[serde(default)]
    crc32: u32,
}

impl LedgerHeader {
    pub fn new(job: &str, problem: &str, shards: usize, fingerprint: u32) -> LedgerHeader {
        LedgerHeader {
            format: LEDGER_FORMAT,
            job: job.into(),
            problem: problem.into(),
            shards,
            fingerprint,
            spec_format: None,
            crc32: 0,
        }
    }

    /// The header of a job whose `job.toml` is of format `spec_format`.
    pub fn with_spec_format(self, spec_format: u32) -> LedgerHeader {
        LedgerHeader { spec_format: Some(spec_format), ..self }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    shard: usize,
    label: String,
    /// Decimal strings: exact at any size, and readable.
    counts: Vec<String>,
    #[serde(default)]
    crc32: u32,
}

/// An open ledger, appending.
pub struct Ledger {
    path: PathBuf,
    file: File,
    done: BTreeMap<usize, ShardResult>,
}

impl Ledger {
    /// Opens `DIR/ledger.jsonl`, creating it with `header` if missing; refuses a ledger whose
    /// header differs from `header`.
    pub fn open(dir: &Path, header: &LedgerHeader) -> Result<Ledger> {
        let path = dir.join(LEDGER_FILE);
        let file_error = |e: std::io::Error| file_error(&path, "write the ledger", e);
        let text = read_small(&path, LEDGER_BYTES, "ledger")?;
        // Missing, or empty after a crash before the header was written: start it.
        let Some(bytes) = text.filter(|bytes| !bytes.is_empty()) else {
            let mut file = no_follow().create(true).append(true).open(&path).map_err(file_error)?;
            file.write_all(&sealed_line(header)).and_then(|()| file.sync_all()).map_err(file_error)?;
            sync_dir(dir)?;
            return Ok(Ledger { path, file, done: BTreeMap::new() });
        };
        let (found, done, keep) = parse(&path, &bytes)?;
        check_header(&path, &found, header)?;
        let file = no_follow().append(true).open(&path).map_err(file_error)?;
        if keep < bytes.len() {
            tracing::warn!(file = %path.display(), bytes = bytes.len() - keep, "dropping an unfinished last line (an interrupted append); its shard runs again");
            file.set_len(keep as u64).and_then(|()| file.sync_all()).map_err(file_error)?;
        }
        Ok(Ledger { path, file, done })
    }

    /// Reads the ledger in `dir` without changing it (for `leaper status`): its header and the
    /// finished shards.
    pub fn read(dir: &Path) -> Result<(LedgerHeader, BTreeMap<usize, ShardResult>)> {
        let path = dir.join(LEDGER_FILE);
        let bytes = read_small(&path, LEDGER_BYTES, "ledger")?.ok_or_else(|| Error::File {
            path: path.clone(),
            message: "missing: the job's record of its finished shards is gone".into(),
        })?;
        let (header, done, _) = parse(&path, &bytes)?;
        Ok((header, done))
    }

    /// The shards already finished, with their results.
    pub fn done(&self) -> &BTreeMap<usize, ShardResult> {
        &self.done
    }

    /// Appends shard `index`'s result and syncs it to disk.
    pub fn record(&mut self, index: usize, label: &str, result: &ShardResult) -> Result<()> {
        let entry = Entry {
            shard: index,
            label: label.into(),
            counts: result.counts.iter().map(u128::to_string).collect(),
            crc32: 0,
        };
        let file_error = |e: std::io::Error| file_error(&self.path, "append to the ledger", e);
        fault::point("ledger").map_err(file_error)?;
        let _commit = hold_commits();
        self.file.write_all(&sealed_line(&entry)).and_then(|()| self.file.sync_data()).map_err(file_error)?;
        self.done.insert(index, result.clone());
        Ok(())
    }
}

/// `value` as one JSON line whose `crc32` field is the CRC of the line written with `crc32` 0.
fn sealed_line<T: Serialize + Clone + Sealed>(value: &T) -> Vec<u8> {
    let mut sealed = value.clone();
    sealed.set_crc(0);
    let crc = crc32fast::hash(&serde_json::to_vec(&sealed).expect("ledger lines serialize"));
    sealed.set_crc(crc);
    let mut line = serde_json::to_vec(&sealed).expect("ledger lines serialize");
    line.push(b'\n');
    line
}

trait Sealed {
    fn crc(&self) -> u32;
    fn set_crc(&mut self, crc: u32);
}

impl Sealed for LedgerHeader {
    fn crc(&self) -> u32 {
        self.crc32
    }
    fn set_crc(&mut self, crc: u32) {
        self.crc32 = crc;
    }
}

impl Sealed for Entry {
    fn crc(&self) -> u32 {
        self.crc32
    }
    fn set_crc(&mut self, crc: u32) {
        self.crc32 = crc;
    }
}

/// Reads one sealed line, or says why it cannot be believed.
fn unseal<T: for<'a> Deserialize<'a> + Serialize + Clone + Sealed>(line: &[u8]) -> std::result::Result<T, String> {
    let value: T = serde_json::from_slice(line).map_err(|e| format!("not a ledger line ({e})"))?;
    let mut check = value.clone();
    let crc = check.crc();
    check.set_crc(0);
    let expected = crc32fast::hash(&serde_json::to_vec(&check).map_err(|e| e.to_string())?);
    if crc != expected {
        return Err(format!("checksum mismatch (recorded {crc:08x}, computed {expected:08x})"));
    }
    Ok(value)
}

/// Refuses a ledger written for another job or shard plan.
fn check_header(path: &Path, found: &LedgerHeader, header: &LedgerHeader) -> Result<()> {
    if let (Some(started), Some(now)) = (found.spec_format, header.spec_format) {
        if now < started {
            return Err(Error::File {
                path: path.to_path_buf(),
                message: format!(
                    "records a job started with job format {started}, but its job.toml is now of format {now}: \
                     leaper never writes a job's spec in an older format, so it was rewritten by hand; restore the \
                     job.toml the job started with; nothing was changed"
                ),
            });
        }
    }
    let expected = LedgerHeader { crc32: found.crc32, spec_format: found.spec_format, ..header.clone() };
    if *found != expected {
        return Err(Error::File {
            path: path.to_path_buf(),
            message: format!(
                "belongs to job {} ({}, {} shards, plan {:08x}), not to job {} ({}, {} shards, plan {:08x}); a \
                 different job or leaper release wrote it",
                found.job,
                found.problem,
                found.shards,
                found.fingerprint,
                header.job,
                header.problem,
                header.shards,
                header.fingerprint
            ),
        });
    }
    Ok(())
}

/// The header and finished shards in `bytes`, and how many bytes of it to keep (all but an
/// unfinished last line).
fn parse(path: &Path, bytes: &[u8]) -> Result<(LedgerHeader, BTreeMap<usize, ShardResult>, usize)> {
    let damaged = |line: usize, why: String| Error::File {
        path: path.to_path_buf(),
        message: format!(
            "line {line}: {why}; the ledger is damaged: restore it from a backup, or move the job directory \
             aside and start the job again"
        ),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |last| last + 1);
    let mut lines = bytes[..complete].split(|&b| b == b'\n').filter(|l| !l.is_empty()).enumerate();
    let found: LedgerHeader = match lines.next() {
        Some((_, line)) => unseal(line).map_err(|why| damaged(1, why))?,
        None => return Err(damaged(1, "the header line is missing".into())),
    };
    let mut done = BTreeMap::new();
    for (number, line) in lines {
        let entry: Entry = unseal(line).map_err(|why| damaged(number + 1, why))?;
        if entry.shard >= found.shards {
            return Err(damaged(
                number + 1,
                format!("shard {} is out of range (the plan has {})", entry.shard, found.shards),
            ));
        }
        let counts: Vec<u128> = entry
            .counts
            .iter()
            .map(|c| c.parse::<u128>().map_err(|e| damaged(number + 1, format!("count {c:?}: {e}"))))
            .collect::<Result<_>>()?;
        let result = ShardResult { counts };
        if let Some(previous) = done.insert(entry.shard, result.clone()) {
            if previous != result {
                return Err(damaged(
                    number + 1,
                    format!("shard {} is recorded twice with different results", entry.shard),
                ));
            }
        }
    }
    Ok((found, done, complete))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> leaper_test_kit::Scratch {
        leaper_test_kit::scratch_dir(&format!("ledger-{name}"))
    }

    fn header() -> LedgerHeader {
        LedgerHeader::new("job-1", "quarto rows,cols", 10, 0xabcd)
    }

    fn filled(name: &str) -> leaper_test_kit::Scratch {
        let dir = scratch(name);
        let mut ledger = Ledger::open(&dir, &header()).unwrap();
        for shard in [3, 1, 7] {
            ledger.record(shard, "label", &ShardResult { counts: vec![shard as u128 * 1000, 5] }).unwrap();
        }
        dir
    }

    #[test]
    fn an_empty_ledger_left_by_a_crash_at_creation_starts_afresh() {
        let dir = scratch("empty");
        std::fs::write(dir.join(LEDGER_FILE), b"").unwrap();
        let mut ledger = Ledger::open(&dir, &header()).unwrap();
        ledger.record(2, "label", &ShardResult { counts: vec![9, 9] }).unwrap();
        assert_eq!(Ledger::open(&dir, &header()).unwrap().done().len(), 1);
    }

    #[test]
    fn finished_shards_survive_a_reopen() {
        let dir = filled("reopen");
        let ledger = Ledger::open(&dir, &header()).unwrap();
        assert_eq!(ledger.done().keys().copied().collect::<Vec<_>>(), vec![1, 3, 7]);
        assert_eq!(ledger.done()[&7].counts, vec![7000, 5]);
    }

    #[test]
    fn an_unfinished_last_line_is_dropped_and_its_shard_runs_again() {
        let dir = filled("torn");
        let path = dir.join(LEDGER_FILE);
        let whole = std::fs::read(&path).unwrap();
        let mut torn = whole.clone();
        torn.extend_from_slice(br#"{"shard":9,"label":"label","cou"#);
        std::fs::write(&path, &torn).unwrap();
        let ledger = Ledger::open(&dir, &header()).unwrap();
        assert_eq!(ledger.done().len(), 3);
        assert_eq!(std::fs::read(&path).unwrap(), whole);
    }

    #[test]
    fn damage_and_foreign_ledgers_are_refused_and_left_alone() {
        let dir = filled("damaged");
        let path = dir.join(LEDGER_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let damaged = text.replacen("7000", "7001", 1);
        std::fs::write(&path, &damaged).unwrap();
        let error = Ledger::open(&dir, &header()).err().unwrap().to_string();
        assert!(error.contains("line 4: checksum mismatch"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), damaged);

        std::fs::write(&path, &text).unwrap();
        let other = LedgerHeader::new("job-2", "quarto rows,cols", 10, 0xabcd);
        let error = Ledger::open(&dir, &other).err().unwrap().to_string();
        assert!(error.contains("belongs to job job-1"), "{error}");
        let skewed = LedgerHeader::new("job-1", "quarto rows,cols", 10, 0x1234);
        assert!(Ledger::open(&dir, &skewed).is_err());
    }

    /// A ledger records the spec format its job started with: a job.toml rewritten in an older
    /// format (no checksum) is refused; a ledger of before the format was recorded opens.
    #[test]
    fn a_spec_rewritten_in_an_older_format_is_refused() {
        let dir = scratch("spec-format");
        Ledger::open(&dir, &header().with_spec_format(3)).unwrap();
        assert!(Ledger::open(&dir, &header().with_spec_format(3)).is_ok());
        let error = Ledger::open(&dir, &header().with_spec_format(2)).err().unwrap().to_string();
        assert!(error.contains("started with job format 3, but its job.toml is now of format 2"), "{error}");
        // Written before spec formats were recorded: opens with or without one.
        let old = filled("spec-format-old");
        assert!(Ledger::open(&old, &header().with_spec_format(2)).is_ok());
    }
}
