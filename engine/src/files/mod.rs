//! Every file a job directory (or a worker's data directory) can hold, named in one place, and
//! how they are written so that a crash loses none of them ([`durable`]).
//!
//! ```text
//! job.toml                                 Spec          what is counted and how, written once, checksummed
//! job.copy.toml                            SpecCopy      a second copy of it
//! lock                                     Lock          flock of the process running the job
//! manifest.json                            Manifest      the last committed step of a sweep
//! manifest.copy.json                       ManifestCopy  a second copy of it: one lost file loses nothing
//! ledger.jsonl                             Ledger        the finished shards of a subtree job
//! plan.json                                Plan          what the count was forecast to need when it started
//! job-id                                   JobId         a worker's data directory: whose it is
//! worker-id                                WorkerId      a worker's data directory: which worker it is
//! pass-P/layer-NNNNNN/sSSS.lps            Segment       bucket sections of one layer, one file per writing thread
//! pass-P/layer-NNNNNN/spill-BBBB.runs      Spill         a bucket's sorted runs, merged at the step's end
//! pass-P/layer-NNNNNN/bBBBB.lpb            Bucket        one bucket of a layer, of releases before segments
//! pass-P/layer-NNNNNN/spill-BBBB.raw       RawSpill      raw spilled records, of older releases
//! pass-P/layer-NNNNNN/spill-BBBB.runK      Run           a spill's aggregated run, of older releases
//! NAME.tmp                                 (temporary)   a file being replaced durably
//! ```
//!
//! [`JobFile::parse`] recognises exactly these names (and [`JobFile::is_temporary`] the
//! temporary ones); a name neither recognises was not written by leaper, and leaper never
//! deletes it.

pub mod durable;

use std::path::{Component, Path, PathBuf};

/// A file (or directory) a job writes, by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobFile {
    Spec,
    SpecCopy,
    Lock,
    Manifest,
    ManifestCopy,
    Ledger,
    /// The forecast made before the count started (the coordinator's `plan::forecast`).
    Plan,
    JobId,
    WorkerId,
    /// The directory of one counting pass.
    Pass {
        pass: usize,
    },
    /// The directory of one layer of a pass.
    Layer {
        pass: usize,
        layer: u64,
    },
    /// Bucket sections of one layer, one after another (see `store::disk::segment`).
    Segment {
        pass: usize,
        layer: u64,
        segment: usize,
    },
    /// A bucket file of one layer, as releases before segments wrote them.
    Bucket {
        pass: usize,
        layer: u64,
        bucket: usize,
    },
    /// The spill runs of one bucket of a layer being made (scratch, gone when the layer is).
    Spill {
        pass: usize,
        layer: u64,
        bucket: usize,
    },
    /// Spill files of older releases (raw records, and their aggregated runs): recognised so
    /// that a job directory an older release stopped in mid-step resumes, its half-made layer
    /// removed.
    RawSpill {
        pass: usize,
        layer: u64,
        bucket: usize,
    },
    Run {
        pass: usize,
        layer: u64,
        bucket: usize,
        run: usize,
    },
}

pub const SPEC_FILE: &str = "job.toml";
pub const SPEC_COPY_FILE: &str = "job.copy.toml";
pub const LOCK_FILE: &str = "lock";
pub const MANIFEST_FILE: &str = "manifest.json";
pub const MANIFEST_COPY_FILE: &str = "manifest.copy.json";
pub const LEDGER_FILE: &str = "ledger.jsonl";
/// A ledger line is about a hundred bytes a shard; a million shards make 100 MiB. Past this
/// a file is not a ledger leaper wrote (here, beside its name, so that the job directory
/// reads a ledger without the search that writes it: the two folders do not use each other).
pub const LEDGER_BYTES: u64 = 1 << 30;
pub const PLAN_FILE: &str = "plan.json";
pub const JOB_ID_FILE: &str = "job-id";
pub const WORKER_ID_FILE: &str = "worker-id";
/// The suffix of a file being written before it replaces its namesake.
pub const TEMPORARY_SUFFIX: &str = ".tmp";

impl JobFile {
    /// The path relative to the job (or data) directory.
    pub fn path(&self) -> PathBuf {
        match *self {
            JobFile::Spec => SPEC_FILE.into(),
            JobFile::SpecCopy => SPEC_COPY_FILE.into(),
            JobFile::Lock => LOCK_FILE.into(),
            JobFile::Manifest => MANIFEST_FILE.into(),
            JobFile::ManifestCopy => MANIFEST_COPY_FILE.into(),
            JobFile::Ledger => LEDGER_FILE.into(),
            JobFile::Plan => PLAN_FILE.into(),
            JobFile::JobId => JOB_ID_FILE.into(),
            JobFile::WorkerId => WORKER_ID_FILE.into(),
            JobFile::Pass { pass } => format!("pass-{pass}").into(),
            JobFile::Layer { pass, layer } => JobFile::Pass { pass }.path().join(format!("layer-{layer:06}")),
            JobFile::Segment { pass, layer, segment } => {
                JobFile::Layer { pass, layer }.path().join(format!("s{segment:03}.lps"))
            }
            JobFile::Bucket { pass, layer, bucket } => {
                JobFile::Layer { pass, layer }.path().join(format!("b{bucket:04}.lpb"))
            }
            JobFile::Spill { pass, layer, bucket } => {
                JobFile::Layer { pass, layer }.path().join(format!("spill-{bucket:04}.runs"))
            }
            JobFile::RawSpill { pass, layer, bucket } => {
                JobFile::Layer { pass, layer }.path().join(format!("spill-{bucket:04}.raw"))
            }
            JobFile::Run { pass, layer, bucket, run } => {
                JobFile::Layer { pass, layer }.path().join(format!("spill-{bucket:04}.run{run}"))
            }
        }
    }

    /// The file a relative path names, if leaper writes files of that name.
    pub fn parse(relative: &Path) -> Option<JobFile> {
        let parts: Vec<&str> = relative
            .components()
            .map(|c| match c {
                Component::Normal(part) => part.to_str(),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let number = |text: &str, prefix: &str, suffix: &str| -> Option<u64> {
            let digits = text.strip_prefix(prefix)?.strip_suffix(suffix)?;
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| digits.parse().ok())?
        };
        let file = match parts.as_slice() {
            [SPEC_FILE] => JobFile::Spec,
            [SPEC_COPY_FILE] => JobFile::SpecCopy,
            [LOCK_FILE] => JobFile::Lock,
            [MANIFEST_FILE] => JobFile::Manifest,
            [MANIFEST_COPY_FILE] => JobFile::ManifestCopy,
            [LEDGER_FILE] => JobFile::Ledger,
            [PLAN_FILE] => JobFile::Plan,
            [JOB_ID_FILE] => JobFile::JobId,
            [WORKER_ID_FILE] => JobFile::WorkerId,
            [pass] => JobFile::Pass { pass: number(pass, "pass-", "")? as usize },
            [pass, layer] => {
                JobFile::Layer { pass: number(pass, "pass-", "")? as usize, layer: number(layer, "layer-", "")? }
            }
            [pass, layer, name] => {
                let (pass, layer) = (number(pass, "pass-", "")? as usize, number(layer, "layer-", "")?);
                if let Some(segment) = number(name, "s", ".lps") {
                    JobFile::Segment { pass, layer, segment: segment as usize }
                } else if let Some(bucket) = number(name, "b", ".lpb") {
                    JobFile::Bucket { pass, layer, bucket: bucket as usize }
                } else if let Some(bucket) = number(name, "spill-", ".runs") {
                    JobFile::Spill { pass, layer, bucket: bucket as usize }
                } else if let Some(bucket) = number(name, "spill-", ".raw") {
                    JobFile::RawSpill { pass, layer, bucket: bucket as usize }
                } else {
                    let (stem, run) = name.split_once(".run")?;
                    let bucket = number(stem, "spill-", "")? as usize;
                    JobFile::Run { pass, layer, bucket, run: number(run, "", "")? as usize }
                }
            }
            _ => return None,
        };
        // Only the canonical spelling of a name is leaper's (`pass-01` is not `pass-1`).
        (file.path() == relative).then_some(file)
    }

    /// The temporary file a durable replace of this file writes first.
    pub fn temporary_path(&self) -> PathBuf {
        JobFile::temporary_of(&self.path())
    }

    /// The temporary file a durable replace of `path` (any file) writes first.
    pub fn temporary_of(path: &Path) -> PathBuf {
        let mut name = path.as_os_str().to_owned();
        name.push(TEMPORARY_SUFFIX);
        name.into()
    }

    /// Whether `relative` is the temporary file of a durable replace of a top-level file.
    pub fn is_temporary(relative: &Path) -> bool {
        relative
            .to_str()
            .and_then(|name| name.strip_suffix(TEMPORARY_SUFFIX))
            .and_then(|stem| JobFile::parse(Path::new(stem)))
            .is_some_and(|file| {
                matches!(
                    file,
                    JobFile::Spec
                        | JobFile::SpecCopy
                        | JobFile::Manifest
                        | JobFile::ManifestCopy
                        | JobFile::Plan
                        | JobFile::JobId
                        | JobFile::WorkerId
                )
            })
    }

    /// Whether leaper writes files of this name (relative to the job or data directory).
    pub fn is_leapers(relative: &Path) -> bool {
        JobFile::parse(relative).is_some() || JobFile::is_temporary(relative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_to_their_files() {
        let files = [
            JobFile::Spec,
            JobFile::SpecCopy,
            JobFile::Lock,
            JobFile::Manifest,
            JobFile::ManifestCopy,
            JobFile::Ledger,
            JobFile::Plan,
            JobFile::JobId,
            JobFile::WorkerId,
            JobFile::Pass { pass: 3 },
            JobFile::Layer { pass: 0, layer: 17 },
            JobFile::Segment { pass: 0, layer: 4, segment: 1 },
            JobFile::Segment { pass: 0, layer: 4, segment: 1234 },
            JobFile::Bucket { pass: 1, layer: 2, bucket: 502 },
            JobFile::Bucket { pass: 1, layer: 2, bucket: 12345 },
            JobFile::Spill { pass: 0, layer: 9, bucket: 7 },
            JobFile::RawSpill { pass: 0, layer: 9, bucket: 7 },
            JobFile::Run { pass: 0, layer: 9, bucket: 7, run: 11 },
        ];
        for file in files {
            assert_eq!(JobFile::parse(&file.path()), Some(file), "{}", file.path().display());
        }
        for stranger in
            ["notes.txt", "mydata", "pass-x", "pass-01", "pass-0/layer-1", "pass-0/stray.raw", "../job.toml"]
        {
            assert_eq!(JobFile::parse(Path::new(stranger)), None, "{stranger}");
        }
        assert!(JobFile::is_temporary(Path::new("manifest.json.tmp")));
        assert!(!JobFile::is_temporary(Path::new("notes.tmp")));
    }
}
