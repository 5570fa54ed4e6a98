//! `job.toml`: what a job counts and how, written once when the job starts.
//!
//! ```toml
//! # A leaper job. Continue it with `leaper resume --job-dir DIR`; do not edit.
//! format = 2
//! kind = "sweep"                      # how it runs: "sweep" or "subtree"
//! problem = "tours"                   # which problem of the registry
//! id = "knight-6x8-sweep-673f1a2b-1f2e"
//! created_unix = 1763780000
//! leaper_version = "0.2.0"
//! command = "knight 6x8 --sweep"      # how the command line read
//!
//! [params]                            # the problem's own parameters
//! ...
//! [run]                               # how it runs: output, workers, engine options
//! ...
//! ```
//!
//! The header is the engine's; everything after it (the *body*) belongs to whoever started the
//! job, here the coordinator's request, and is handed back to it untouched.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::engine::jobdir::durable::{file_error, replace_durably};
use crate::engine::jobdir::files::SPEC_FILE;
use crate::error::{Error, Result};

/// Version of the `job.toml` layout. Format 1 (leaper 0.1) had no `kind` and no registry names.
pub const SPEC_FORMAT: u32 = 2;

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

impl JobSpec {
    /// Reads `DIR/job.toml`, refusing other format versions by number.
    pub fn load(dir: &Path) -> Result<JobSpec> {
        let path = dir.join(SPEC_FILE);
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::File {
                    path: dir.to_path_buf(),
                    message: format!("holds no leaper job ({SPEC_FILE} is missing)"),
                })
            }
            Err(e) => return Err(file_error(&path, "read", e)),
        };
        let damaged = |e: &dyn std::fmt::Display| Error::File { path: path.clone(), message: format!("damaged: {e}") };
        let mut table: toml::Table = toml::from_str(&text).map_err(|e| damaged(&e))?;
        // The version first, so that a spec of another release is named as such.
        let format = table.get("format").and_then(toml::Value::as_integer);
        if format != Some(SPEC_FORMAT as i64) {
            let version = table.get("leaper_version").and_then(toml::Value::as_str).unwrap_or("unknown");
            return Err(Error::File {
                path: path.clone(),
                message: format!(
                    "job format {}, this leaper reads format {SPEC_FORMAT}; the job was started by leaper {version}: \
                     finish it with that release (`leaper resume --job-dir DIR`), or start it again in a new \
                     directory",
                    format.map_or("unknown".to_string(), |f| f.to_string())
                ),
            });
        }
        let mut header = toml::Table::new();
        for key in ["format", "kind", "problem", "id", "created_unix", "leaper_version", "command"] {
            if let Some(value) = table.remove(key) {
                header.insert(key.into(), value);
            }
        }
        let header: SpecHeader = header.try_into().map_err(|e| damaged(&e))?;
        Ok(JobSpec { header, body: table })
    }

    /// Writes `DIR/job.toml` durably.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let mut table = toml::Table::try_from(&self.header).expect("a spec header serializes");
        table.extend(self.body.clone());
        let text = format!(
            "# A leaper job. Continue it with `leaper resume --job-dir DIR`; do not edit.\n{}",
            toml::to_string(&table).map_err(|e| Error::Bug(format!("cannot write the job spec: {e}")))?
        );
        replace_durably(&dir.join(SPEC_FILE), text.as_bytes(), "job")
    }
}

pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_and_refuse_other_formats() {
        let dir = std::env::temp_dir().join(format!("leaper-spec-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let mut body = toml::Table::new();
        body.insert("params".into(), toml::Value::Table(toml::toml! { board = "6x8" }));
        let spec = JobSpec { header: SpecHeader::new(JobKind::Sweep, "tours", "knight-6x8", "knight 6x8"), body };
        spec.write(&dir).unwrap();
        assert_eq!(JobSpec::load(&dir).unwrap(), spec);

        let text = fs::read_to_string(dir.join(SPEC_FILE)).unwrap();
        fs::write(dir.join(SPEC_FILE), text.replacen("format = 2", "format = 1", 1)).unwrap();
        let error = JobSpec::load(&dir).unwrap_err().to_string();
        assert!(error.contains("job format 1, this leaper reads format 2"), "{error}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
