//! Checkpoints: `manifest.json` names the last committed layer of a job and holds everything
//! else needed to go on from it (the sweep's position and running totals).
//!
//! A step commits by writing the new manifest to `manifest.json.tmp`, fsync, rename over
//! `manifest.json`, fsync of the directory, and the same again for its copy,
//! `manifest.copy.json`; only then may the files of the older layer be deleted. Whatever the
//! moment of a crash, `manifest.json` is either the old or the new manifest and every file it
//! names is intact.
//!
//! The copy is there so that one lost or damaged file cannot cost a run of days. It is never
//! used behind the user's back: a job whose manifest is missing or damaged is refused, with the
//! copy named as the way back (it is checked first), and nothing is deleted. A job directory
//! that holds committed layers but neither file is refused too: without its manifest a job
//! cannot tell what its layers count, and starting again would throw them away.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::durable::{file_error, hold_commits, read_small, replace_durably};
use crate::files::{JobFile, MANIFEST_COPY_FILE, MANIFEST_FILE};
use crate::store::{BucketInfo, BucketSection, DurableLayer};
use crate::sweep::SweepProgress;

/// Version of the manifest layout; manifests of another version are refused. Format 3 records
/// what the layer's keys mean (`key_layout`, and since it was added within format 3, the
/// problem's `key_format`), which a resume compares with the job's own: what the keys mean is
/// the problem's to say, and a change of it no longer needs a new format.
/// (Format 2: the tours' layers keyed in the order of `hamiltonian::order`; format 1:
/// row-major. Both are refused: they do not say what their keys mean.)
pub const MANIFEST_FORMAT: u32 = 3;

/// A manifest names a few files per bucket and worker: a few MiB at most, even for a large
/// cluster; anything past this is not one.
const MANIFEST_BYTES: u64 = 256 << 20;

/// The last committed step of a job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    /// The job this manifest belongs to (its `job.toml` carries the same id).
    pub job: String,
    pub passes: usize,
    pub cells: usize,
    /// What the layers' keys mean, as the job's transition says
    /// ([`crate::Transition::key_layout`]): a job whose transition now says otherwise
    /// (its `job.toml` edited, or a release that lays keys out otherwise) is refused.
    pub key_layout: String,
    /// The version of the problem's key layout ([`crate::Transition::key_format`]),
    /// compared before `key_layout`: another number means another leaper wrote the layers.
    /// `None` in manifests written before it was recorded: those compare by `key_layout` alone,
    /// the check they were written under (the engine does not read a format out of a problem's
    /// text), and the next commit records it. Left out of the JSON when `None`, so that such a
    /// manifest keeps its checksum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_format: Option<u32>,
    /// The lanes of the pass the layer belongs to (what its records' count words mean, one value
    /// a word: `engine::arith`, "Lanes as words"): a job whose `job.toml` now asks for other
    /// counts (`--counts`, `--verify`) is refused. Empty in manifests written before it was
    /// recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moduli: Vec<u64>,
    /// Where the sweep stands and what it has counted.
    pub progress: SweepProgress,
    /// The committed layer (absent between passes, when a pass starts from its seed).
    pub layer: Option<LayerRecord>,
    /// On a cluster: the workers in the order that fixes bucket ownership (bucket `b` belongs
    /// to worker `b mod len`), each with its part of the committed layer (paths relative to the
    /// worker's data directory). Empty for a job run in one process.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<WorkerLayer>,
    /// Seconds since the Unix epoch of the commit (for `status`).
    pub committed_unix: u64,
    /// Exact counts `(rows, decimal)` once the job has finished.
    pub result: Option<Vec<(usize, String)>>,
    /// How the counts of `result` were carried, recorded with them: a finished job prints
    /// these, never what its `job.toml` says now. `None` before the job finished, and in
    /// manifests written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted: Option<Counted>,
    /// The format of the `job.toml` the job was started with
    /// ([`crate::jobdir::spec::SPEC_FORMAT`] then): a `job.toml` of an older format
    /// (format 2 has no checksum) is one rewritten by hand, and is refused. `None` in manifests
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_format: Option<u32>,
    /// CRC-32 of the manifest's compact JSON with this field 0: a flipped digit in a residue
    /// would otherwise become a wrong count.
    #[serde(default)]
    pub crc32: u32,
}

/// How a finished job's counts were carried, as its request said when it counted them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counted {
    /// Whether one spare modulus checked every count (`--verify`).
    pub verified: bool,
    /// The route the counts took, as `--counts` names it.
    pub counts: String,
}

/// A layer as the manifest names it: file names relative to the job directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerRecord {
    pub number: u64,
    pub states: u64,
    pub bytes: u64,
    pub files: Vec<FileRecord>,
}

/// A worker of a cluster job and its part of the committed layer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkerLayer {
    pub address: String,
    pub layer: Option<LayerRecord>,
    /// The worker's id (`worker-id` in its data directory, whatever address reaches it): a
    /// resume that gives the job's workers at new addresses is checked against it. `None` in
    /// manifests written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The worker's share of the last steps' time, in microseconds (the coordinator's straggler
    /// rule), from which `leaper status` names a worker much slower than the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share_micros: Option<u64>,
}

/// One bucket of a layer: its section of a segment file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileRecord {
    pub bucket: usize,
    pub file: String,
    /// Where the section starts in the file.
    #[serde(default)]
    pub offset: u64,
    #[serde(flatten)]
    pub info: BucketInfo,
}

impl LayerRecord {
    /// Records `layer`, whose files must lie under `job_dir`.
    pub fn new(job_dir: &Path, layer: &DurableLayer) -> Result<Self> {
        let files = layer
            .files
            .iter()
            .map(|file| {
                let relative = file.path.strip_prefix(job_dir).map_err(|_| Error::File {
                    path: file.path.clone(),
                    message: format!("lies outside the job directory {}", job_dir.display()),
                })?;
                let file_name = relative.to_str().ok_or_else(|| Error::File {
                    path: file.path.clone(),
                    message: "the file name is not UTF-8".into(),
                })?;
                Ok(FileRecord {
                    bucket: file.bucket,
                    file: file_name.to_string(),
                    offset: file.offset,
                    info: file.info,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(LayerRecord {
            number: layer.number,
            states: files.iter().map(|f| f.info.states).sum(),
            bytes: files.iter().map(|f| f.info.bytes).sum(),
            files,
        })
    }

    /// The layer with paths under `job_dir`, for a store to resume from.
    pub fn durable(&self, job_dir: &Path) -> DurableLayer {
        let files = self
            .files
            .iter()
            .map(|file| BucketSection {
                bucket: file.bucket,
                path: job_dir.join(&file.file),
                offset: file.offset,
                info: file.info,
            })
            .collect();
        DurableLayer { number: self.number, files }
    }

    /// Paths (relative to the job directory) of the files this layer names, each once.
    pub fn file_names(&self) -> impl Iterator<Item = &str> {
        let mut names: Vec<&str> = self.files.iter().map(|file| file.file.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names.into_iter()
    }
}

impl Manifest {
    /// Commits this manifest in `dir`: temporary file, fsync, rename, directory fsync.
    pub fn commit(&self, dir: &Path) -> Result<()> {
        let sealed = Manifest { crc32: self.checksum(), ..self.clone() };
        let mut text = serde_json::to_vec_pretty(&sealed).expect("a manifest serializes");
        text.push(b'\n');
        let _commit = hold_commits();
        replace_durably(&dir.join(MANIFEST_FILE), &text, "manifest")?;
        replace_durably(&dir.join(MANIFEST_COPY_FILE), &text, "manifest-copy")
    }

    /// The committed manifest in `dir`, or `None` if the job has not committed a step yet.
    /// A missing or damaged manifest of a job that has committed is an error that names the
    /// file and says how to recover.
    pub fn load(dir: &Path) -> Result<Option<Manifest>> {
        let path = dir.join(MANIFEST_FILE);
        match Self::read(&path) {
            Ok(Some(manifest)) => Ok(Some(manifest)),
            Ok(None) => match Self::read(&dir.join(MANIFEST_COPY_FILE)) {
                Ok(Some(copy)) => Err(Error::File {
                    path,
                    message: format!(
                        "missing; its copy {MANIFEST_COPY_FILE} holds the last commit (pass {}, step {}): copy it \
                         to {MANIFEST_FILE} to continue the job; nothing was deleted",
                        copy.progress.pass + 1,
                        copy.progress.next_cell
                    ),
                }),
                Ok(None) => match committed_layer(dir)? {
                    Some(layer) => Err(Error::File {
                        path,
                        message: format!(
                            "missing, and so is its copy {MANIFEST_COPY_FILE}, but the directory holds committed \
                             layers ({}): without the manifest they cannot be counted on; restore it from a \
                             backup, or start the job again in a new directory; nothing was deleted",
                            layer.display()
                        ),
                    }),
                    None => Ok(None),
                },
                Err(_) => Err(Error::File {
                    path,
                    message: format!(
                        "missing, and its copy {MANIFEST_COPY_FILE} is damaged too: restore one of them from a \
                         backup; nothing was deleted"
                    ),
                }),
            },
            Err(Error::File { path, message }) if message.starts_with("damaged") => {
                let copy = match Self::read(&dir.join(MANIFEST_COPY_FILE)) {
                    Ok(Some(_)) => format!(
                        "; its copy {MANIFEST_COPY_FILE} is intact: copy it to {MANIFEST_FILE} to continue the job"
                    ),
                    _ => String::new(),
                };
                Err(Error::File { path, message: format!("{message}{copy}") })
            }
            Err(error) => Err(error),
        }
    }

    /// The manifest in the file `path`, `None` if there is no such file.
    fn read(path: &Path) -> Result<Option<Manifest>> {
        let Some(text) = read_small(path, MANIFEST_BYTES, "manifest")? else { return Ok(None) };
        let damaged = |what: String| Error::File {
            path: path.to_path_buf(),
            message: format!("damaged manifest: {what}; restore it from a backup or start the job again"),
        };
        // The version first, so that a manifest of another release is named as such rather
        // than as damaged.
        let value: serde_json::Value = serde_json::from_slice(&text).map_err(|e| damaged(e.to_string()))?;
        let format = value.get("format").and_then(|f| f.as_u64());
        if format != Some(MANIFEST_FORMAT as u64) {
            return Err(Error::File {
                path: path.to_path_buf(),
                message: format!(
                    "manifest format {}, this leaper reads format {MANIFEST_FORMAT}; resume the job with the \
                     leaper release that started it",
                    format.map_or("unknown".to_string(), |f| f.to_string())
                ),
            });
        }
        let manifest: Manifest = serde_json::from_value(value).map_err(|e| damaged(e.to_string()))?;
        if manifest.checksum() != manifest.crc32 {
            return Err(damaged("checksum mismatch".into()));
        }
        Ok(Some(manifest))
    }

    fn checksum(&self) -> u32 {
        let unsealed = Manifest { crc32: 0, ..self.clone() };
        crc32fast::hash(&serde_json::to_vec(&unsealed).expect("a manifest serializes"))
    }

    /// Whether the manifest records work a run could go on from: a step, a finished pass or a
    /// result (a job's first manifest, written before its first step, records none).
    pub fn has_commits(&self) -> bool {
        self.progress != SweepProgress::default() || self.layer.is_some() || self.result.is_some()
    }

    /// `(states, bytes)` of the committed layer: the process's, or on a cluster every worker's
    /// part.
    pub fn layer_size(&self) -> (u64, u64) {
        let layers = self.layer.iter().chain(self.workers.iter().filter_map(|w| w.layer.as_ref()));
        layers.fold((0, 0), |(states, bytes), layer| (states + layer.states, bytes + layer.bytes))
    }

    /// Every file the manifest names, relative to the job directory.
    pub fn named_files(&self) -> Vec<PathBuf> {
        let mut names = vec![PathBuf::from(MANIFEST_FILE), PathBuf::from(MANIFEST_COPY_FILE)];
        if let Some(layer) = &self.layer {
            names.extend(layer.file_names().map(PathBuf::from));
        }
        names
    }
}

/// The first committed layer directory under `dir`, if any (a layer directory holding a segment
/// or a bucket file).
fn committed_layer(dir: &Path) -> Result<Option<PathBuf>> {
    let list = |at: &Path| -> Result<Vec<PathBuf>> {
        match fs::read_dir(at) {
            Ok(entries) => {
                let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
                paths.sort();
                Ok(paths)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(file_error(at, "read the directory", e)),
        }
    };
    for pass in list(dir)? {
        if !matches!(pass.strip_prefix(dir).ok().and_then(JobFile::parse), Some(JobFile::Pass { .. })) {
            continue;
        }
        for layer in list(&pass)? {
            let layer_data = |file: &PathBuf| {
                matches!(
                    file.strip_prefix(dir).ok().and_then(JobFile::parse),
                    Some(JobFile::Segment { .. } | JobFile::Bucket { .. })
                )
            };
            if list(&layer)?.iter().any(layer_data) {
                return Ok(Some(layer));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST_TEMP: &str = "manifest.json.tmp";

    fn sample(job: &str) -> Manifest {
        Manifest {
            format: MANIFEST_FORMAT,
            job: job.into(),
            passes: 1,
            cells: 48,
            key_layout: "test keys".into(),
            key_format: Some(1),
            moduli: vec![7, 11],
            progress: SweepProgress { pass: 0, next_cell: 7, ..SweepProgress::default() },
            layer: Some(LayerRecord {
                number: 8,
                states: 10,
                bytes: 500,
                files: vec![FileRecord {
                    bucket: 3,
                    file: "pass-0/layer-000008/s000.lps".into(),
                    offset: 0,
                    info: BucketInfo { states: 10, bytes: 500, crc32: 0xdead_beef },
                }],
            }),
            workers: Vec::new(),
            committed_unix: 1,
            result: None,
            counted: None,
            spec_format: Some(3),
            crc32: 0,
        }
    }

    #[test]
    fn commits_replace_the_manifest_atomically_and_load_back() {
        let dir = leaper_test_kit::scratch_dir("manifest");
        assert_eq!(Manifest::load(&dir).unwrap(), None);
        sample("a").commit(&dir).unwrap();
        sample("b").commit(&dir).unwrap();
        let loaded = Manifest::load(&dir).unwrap().unwrap();
        assert_eq!(Manifest { crc32: 0, ..loaded }, sample("b"));
        assert!(!dir.join(MANIFEST_TEMP).exists());

        let text = fs::read_to_string(dir.join(MANIFEST_FILE)).unwrap();
        fs::write(dir.join(MANIFEST_FILE), text.replace("\"next_cell\": 7", "\"next_cell\": 8")).unwrap();
        let error = Manifest::load(&dir).unwrap_err().to_string();
        assert!(error.contains("checksum mismatch"), "{error}");
        let other = MANIFEST_FORMAT + 1;
        fs::write(
            dir.join(MANIFEST_FILE),
            text.replace(&format!("\"format\": {MANIFEST_FORMAT}"), &format!("\"format\": {other}")),
        )
        .unwrap();
        let error = Manifest::load(&dir).unwrap_err().to_string();
        assert!(error.contains(&format!("manifest format {other}")) && error.contains("manifest.json"), "{error}");
        fs::write(dir.join(MANIFEST_FILE), &text[..text.len() / 2]).unwrap();
        let error = Manifest::load(&dir).unwrap_err().to_string();
        assert!(error.contains("damaged manifest") && error.contains("manifest.copy.json is intact"), "{error}");
    }

    #[test]
    fn a_lost_manifest_is_refused_with_its_copy_named_and_committed_layers_are_never_orphaned() {
        let dir = leaper_test_kit::scratch("manifest-lost");
        fs::create_dir_all(dir.join("pass-0/layer-000008")).unwrap();
        sample("a").commit(&dir).unwrap();
        fs::write(dir.join("pass-0/layer-000008/s000.lps"), b"states").unwrap();
        fs::remove_file(dir.join(MANIFEST_FILE)).unwrap();
        let error = Manifest::load(&dir).unwrap_err().to_string();
        assert!(error.contains("manifest.json: missing") && error.contains("step 7"), "{error}");
        fs::remove_file(dir.join(MANIFEST_COPY_FILE)).unwrap();
        let error = Manifest::load(&dir).unwrap_err().to_string();
        assert!(error.contains("committed layers") && error.contains("layer-000008"), "{error}");
        fs::remove_dir_all(dir.join("pass-0")).unwrap();
        assert_eq!(Manifest::load(&dir).unwrap(), None, "nothing committed: a job that never took a step");
    }
}
