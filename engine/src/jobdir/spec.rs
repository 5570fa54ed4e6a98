//! `job.toml`: what a job counts and how, written once when the job starts.
//!
//! ```toml
//! # A leaper job. Continue it with `leaper resume --job-dir DIR`; do not edit.
//! command = "knight 6x8 --sweep"      # how the command line read
//! crc32 = 2846627431                  # of the whole spec without this line (see below)
//! created_unix = 1763780000
//! format = 3
//! id = "knight-6x8-sweep-673f1a2b-1f2e"
//! kind = "sweep"                      # how it runs: "sweep" or "subtree"
//! leaper_version = "0.2.0"
//! problem = "tours"                   # which problem of the registry
//!
//! [params]                            # the problem's own parameters
//! ...
//! [run]                               # how it runs: output, workers, engine options
//! ...
//! ```
//!
//! The header is the engine's; everything after it (the *body*) belongs to whoever started the
//! job, here the coordinator's request, and is handed back to it untouched.
//!
//! The spec is protected like the layers it describes: an edited spec would read the layers as
//! other states and print a wrong count. `crc32` is the CRC-32 of the spec as leaper writes it
//! without that key (keys sorted, TOML as `toml` prints it), so a change of layout or comments
//! passes and a change of any value does not. `job.copy.toml` is a second copy, written with
//! it: a spec that fails its check is refused by name, and the copy, if intact, named as the
//! way back (as `manifest.json` and its copy are). Format 2 (the first releases of 0.2) had no
//! checksum; such a spec is still read, and the checks of the layers against it (what the keys
//! mean, the moduli, the job id) still apply.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::durable::{read_small, replace_durably};
use crate::files::{SPEC_COPY_FILE, SPEC_FILE};

/// Version of the `job.toml` layout. Format 3 carries `crc32`; format 2 did not (read still);
/// format 1 (leaper 0.1) had no `kind` and no registry names.
pub const SPEC_FORMAT: u32 = 3;

/// The oldest spec format this release reads.
const OLDEST_SPEC_FORMAT: u32 = 2;

/// A spec is a few hundred bytes, a graph's its edges and names besides (3 MB for a cycle of
/// 100,000 vertices, some 40 MB for one of `MAX_VERTICES`); anything past this is not one, and
/// a spec that would be is refused before the job starts.
const SPEC_BYTES: u64 = 1 << 28;

/// The key that holds the spec's checksum.
const CHECKSUM_KEY: &str = "crc32";

/// How a job runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    /// A transfer-matrix sweep: layers of states, a manifest after every step.
    Sweep,
    /// A search split into shards: a ledger line per finished shard.
    Subtree,
}

impl JobKind {
    pub fn name(self) -> &'static str {
        match self {
            JobKind::Sweep => "sweep",
            JobKind::Subtree => "subtree",
        }
    }
}

/// The header of `job.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecHeader {
    pub format: u32,
    pub kind: JobKind,
    pub problem: String,
    pub id: String,
    pub created_unix: u64,
    pub leaper_version: String,
    pub command: String,
}

/// A whole `job.toml`: the header and the body.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    pub header: SpecHeader,
    pub body: toml::Table,
}

impl SpecHeader {
    /// A header for a job started now: the id is `STEM-TIME-PID`.
    pub fn new(kind: JobKind, problem: &str, id_stem: &str, command: &str) -> SpecHeader {
        let created_unix = unix_now();
        SpecHeader {
            format: SPEC_FORMAT,
            kind,
            problem: problem.to_string(),
            id: format!("{id_stem}-{created_unix:x}-{:x}", std::process::id()),
            created_unix,
            leaper_version: env!("CARGO_PKG_VERSION").to_string(),
            command: command.to_string(),
        }
    }
}

/// What a directory without a spec is told (`leaper status`, `leaper resume`).
fn no_job_message() -> String {
    format!("holds no leaper job ({SPEC_FILE} is missing)")
}

/// Refuses `dir` when it holds neither `job.toml` nor its copy (as a file or anything else of that
/// name): no leaper job. Nothing else in it is looked at, so that a directory that is not a job
/// (`/tmp`) is named as such rather than searched.
pub fn check_holds_a_job(dir: &Path) -> Result<()> {
    let present = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
    if present(SPEC_FILE) || present(SPEC_COPY_FILE) {
        return Ok(());
    }
    Err(Error::File { path: dir.to_path_buf(), message: no_job_message() })
}

impl JobSpec {
    /// Reads `DIR/job.toml` and checks it: its format, its checksum, and that its copy (if
    /// intact) says the same. A spec that fails is refused by name, with the way back.
    pub fn load(dir: &Path) -> Result<JobSpec> {
        let path = dir.join(SPEC_FILE);
        let copy = dir.join(SPEC_COPY_FILE);
        match Self::read(&path) {
            Ok(Some(spec)) => {
                if let Ok(Some(other)) = Self::read(&copy) {
                    if other != spec {
                        return Err(Error::File {
                            path,
                            message: format!(
                                "differs from its copy {SPEC_COPY_FILE}, and both are intact: one of them was \
                                 rewritten; a job's spec cannot change after its start: restore the one the \
                                 job started with, or start the job again in a new directory; nothing was changed"
                            ),
                        });
                    }
                }
                Ok(spec)
            }
            Ok(None) => Err(Error::File {
                path: dir.to_path_buf(),
                message: match Self::read(&copy) {
                    Ok(Some(_)) => format!(
                        "{SPEC_FILE} is missing; its copy {SPEC_COPY_FILE} is intact: copy it to {SPEC_FILE} to \
                         continue the job; nothing was changed"
                    ),
                    _ => no_job_message(),
                },
            }),
            Err(Error::File { path, message }) if message.starts_with(DAMAGED) => {
                let way_back = match Self::read(&copy) {
                    Ok(Some(_)) => format!(
                        "its copy {SPEC_COPY_FILE} is intact: copy it to {SPEC_FILE} (`cp {} {}`) to continue the \
                         job",
                        copy.display(),
                        path.display()
                    ),
                    _ => "its copy is missing or damaged too: start the job again in a new directory".to_string(),
                };
                Err(Error::File { path, message: format!("{message}; {way_back}; nothing was changed") })
            }
            Err(error) => Err(error),
        }
    }

    /// The spec in the file `path`, checked; `None` if there is no such file.
    fn read(path: &Path) -> Result<Option<JobSpec>> {
        let Some(bytes) = read_small(path, SPEC_BYTES, "job spec")? else { return Ok(None) };
        let damaged = |what: &dyn std::fmt::Display| Error::File {
            path: path.to_path_buf(),
            message: format!("{DAMAGED}: {what}"),
        };
        let text = String::from_utf8(bytes).map_err(|_| damaged(&"not UTF-8"))?;
        let mut table: toml::Table = toml::from_str(&text).map_err(|e| damaged(&e.to_string().trim_end()))?;
        // The version first, so that a spec of another release is named as such.
        let format = match table.get("format").map(toml::Value::as_integer) {
            None => return Err(damaged(&"it has no format (cut short?)")),
            Some(format) => format,
        };
        if !format.is_some_and(|f| (OLDEST_SPEC_FORMAT as i64..=SPEC_FORMAT as i64).contains(&f)) {
            let version = table.get("leaper_version").and_then(toml::Value::as_str).unwrap_or("unknown");
            return Err(Error::File {
                path: path.to_path_buf(),
                message: format!(
                    "job format {}, this leaper reads formats {OLDEST_SPEC_FORMAT} to {SPEC_FORMAT}; the job was \
                     started by leaper {version}: finish it with that release (`leaper resume --job-dir DIR`), or \
                     start it again in a new directory",
                    format.map_or("unknown".to_string(), |f| f.to_string())
                ),
            });
        }
        if format == Some(SPEC_FORMAT as i64) {
            let recorded = table.remove(CHECKSUM_KEY).and_then(|v| v.as_integer());
            let actual = checksum(&table)?;
            if recorded != Some(actual as i64) {
                return Err(damaged(&format!(
                    "{}: it was edited, or cut short; a job's spec cannot change after its start (the layers \
                     would be read as other states)",
                    if recorded.is_some() { "checksum mismatch" } else { "no checksum" }
                )));
            }
        }
        let mut header = toml::Table::new();
        for key in ["format", "kind", "problem", "id", "created_unix", "leaper_version", "command"] {
            if let Some(value) = table.remove(key) {
                header.insert(key.into(), value);
            }
        }
        let header: SpecHeader = header.try_into().map_err(|e: toml::de::Error| damaged(&e.to_string().trim_end()))?;
        Ok(Some(JobSpec { header, body: table }))
    }

    /// Writes `DIR/job.toml` and its copy durably, each sealed with its checksum.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let mut table = toml::Table::try_from(&self.header).expect("a spec header serializes");
        table.extend(self.body.clone());
        table.insert(CHECKSUM_KEY.into(), toml::Value::Integer(checksum(&table)? as i64));
        let text = format!(
            "# A leaper job. Continue it with `leaper resume --job-dir DIR`; do not edit.\n{}",
            toml::to_string(&table).map_err(|e| Error::Bug(format!("cannot write the job spec: {e}")))?
        );
        if text.len() as u64 > SPEC_BYTES {
            return Err(Error::InvalidRequest(format!(
                "the job spec would take {} bytes, more than the {SPEC_BYTES} a job directory's job.toml may hold: \
                 count it without --job-dir",
                text.len()
            )));
        }
        replace_durably(&dir.join(SPEC_FILE), text.as_bytes(), "job")?;
        replace_durably(&dir.join(SPEC_COPY_FILE), text.as_bytes(), "job-copy")
    }

    /// Writes the copy again if it is missing or damaged while the spec itself is intact (a
    /// crash between the two writes of a start, a copy removed by hand).
    pub fn repair_copy(&self, dir: &Path) -> Result<()> {
        let copy = dir.join(SPEC_COPY_FILE);
        if self.header.format < SPEC_FORMAT || matches!(Self::read(&copy), Ok(Some(_))) {
            return Ok(());
        }
        let text = read_small(&dir.join(SPEC_FILE), SPEC_BYTES, "job spec")?.unwrap_or_default();
        tracing::warn!(file = %copy.display(), "missing or damaged: written again from the intact job.toml");
        replace_durably(&copy, &text, "job-copy")
    }
}

/// How a spec that fails its checks is described (the way back follows).
const DAMAGED: &str = "damaged job spec";

/// CRC-32 of `table` (without its checksum) as `toml` prints it.
fn checksum(table: &toml::Table) -> Result<u32> {
    let text = toml::to_string(table).map_err(|e| Error::Bug(format!("cannot print the job spec: {e}")))?;
    Ok(crc32fast::hash(text.as_bytes()))
}

pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn specs_round_trip_and_refuse_other_formats() {
        let dir = leaper_test_kit::scratch_dir("spec");
        let mut body = toml::Table::new();
        body.insert("params".into(), toml::Value::Table(toml::toml! { board = "6x8" }));
        let spec = JobSpec { header: SpecHeader::new(JobKind::Sweep, "tours", "knight-6x8", "knight 6x8"), body };
        spec.write(&dir).unwrap();
        assert_eq!(JobSpec::load(&dir).unwrap(), spec);
        let text = fs::read_to_string(dir.join(SPEC_FILE)).unwrap();
        assert_eq!(fs::read_to_string(dir.join(SPEC_COPY_FILE)).unwrap(), text);
        let edit = |from: &str, to: &str| {
            assert!(text.contains(from), "{from} in {text}");
            fs::write(dir.join(SPEC_FILE), text.replacen(from, to, 1)).unwrap();
            JobSpec::load(&dir).map_err(|e| e.to_string())
        };

        // Layout and comments are not content: the spec still loads.
        assert_eq!(edit("board = \"6x8\"", "# a note\nboard   =   \"6x8\""), Ok(spec.clone()));
        // Any value is: refused, with the copy named as the way back.
        let error = edit("board = \"6x8\"", "board = \"6x7\"").unwrap_err();
        assert!(error.contains("damaged job spec: checksum mismatch") && error.contains("cp "), "{error}");
        let error = edit("crc32 = ", "crc32 = 1").unwrap_err();
        assert!(error.contains("checksum mismatch"), "{error}");
        // Cut short, down to no format at all.
        let error = edit("format = 3", "").unwrap_err();
        assert!(error.contains("it has no format") && error.contains("job.copy.toml is intact"), "{error}");
        fs::write(dir.join(SPEC_COPY_FILE), &text[..text.len() / 2]).unwrap();
        let error = edit("board = \"6x8\"", "board = \"6x7\"").unwrap_err();
        assert!(error.contains("its copy is missing or damaged too"), "{error}");
        fs::write(dir.join(SPEC_COPY_FILE), &text).unwrap();

        // Another release's format is named as such.
        let error = edit("format = 3", "format = 1").unwrap_err();
        assert!(error.contains("job format 1, this leaper reads formats 2 to 3"), "{error}");
        // Format 2 had no checksum: read as it is (the layers' own checks still apply).
        let without: String = text.lines().filter(|line| !line.starts_with("crc32")).collect::<Vec<_>>().join("\n");
        fs::write(dir.join(SPEC_FILE), without.replacen("format = 3", "format = 2", 1)).unwrap();
        fs::remove_file(dir.join(SPEC_COPY_FILE)).unwrap();
        assert_eq!(JobSpec::load(&dir).unwrap().body, spec.body);
    }
}
