//! Job directories: what a long count leaves on disk so that it survives a crash, and a
//! worker's data directory, which is a job directory's little sibling.
//!
//! * [`spec`]: `job.toml`, its header (format, kind, problem, id, command) and its body.
//! * [`manifest`]: `manifest.json`, the last committed step of a sweep.
//! * [`checkpoints`]: the store host of an out-of-core sweep: a disk store per pass and a
//!   manifest after every step.
//!
//! The names of its files and how they are written durably are [`crate::files`]'s,
//! which the segment files of the disk store share.
//!
//! A [`JobDir`] is a directory locked by this process (flock on `lock`, which holds the pid):
//! a second process is refused while the first runs, and the lock goes with the process
//! however it ends. A [`DataDir`] is a worker's directory, locked the same way for the life of
//! the worker (flock on the directory itself, so that a free data directory holds no file), and
//! claimed by one job at a time (`job-id`).

pub mod checkpoints;
pub mod manifest;
pub mod spec;

use std::fs::{self, File};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

pub use crate::files::durable::{
    check_writable, commit_waiting, create_file, file_error, hold_commits, is_disk_full, is_stream, no_follow,
    refuse_links, refuse_strangers, remove_unnamed, replace_durably, replace_output, sync_dir, write_durably_with,
    Foreign,
};
pub use crate::files::JobFile;
pub use manifest::Manifest;
pub use spec::{unix_now, JobKind, JobSpec, SpecHeader, SPEC_FORMAT};

use crate::error::{Error, Result};
use crate::files::{durable, LEDGER_BYTES};

/// An exclusive lock on a directory, held until dropped (or until the process ends).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

impl DirLock {
    /// Takes the lock of `dir` (its file `lock`), or says which process holds it; `what` names
    /// the directory in the error ("job directory", "data directory").
    pub fn take(dir: &Path, what: &str) -> Result<DirLock> {
        let path = dir.join(JobFile::Lock.path());
        // Never through a link (the pid would overwrite what it points to), and only a file.
        let mut file = no_follow()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| file_error(&path, "open", e))?;
        if !file.metadata().map_err(|e| file_error(&path, "inspect", e))?.is_file() {
            return Err(Error::File {
                path,
                message: "is not a regular file, where leaper keeps its lock: remove it, then run again".into(),
            });
        }
        if let Err(e) = file.try_lock() {
            let holder = read_pid(&mut file).map_or(String::new(), |pid| format!(" (pid {pid})"));
            return Err(Error::File {
                path: dir.to_path_buf(),
                message: format!(
                    "the {what} is in use by another leaper process{holder}: wait for it, or stop it first ({e})"
                ),
            });
        }
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| crate::fault::point("lock"))
            .and_then(|()| write!(file, "{}", std::process::id()))
            .map_err(|e| file_error(&path, "write", e))?;
        Ok(DirLock { _file: file })
    }

    /// Locks the directory `dir` itself (flock on the directory), leaving no file in it: a
    /// worker's data directory stays empty while no job owns it.
    pub fn take_directory(dir: &Path, what: &str) -> Result<DirLock> {
        let file = File::open(dir).map_err(|e| file_error(dir, "open", e))?;
        if let Err(e) = file.try_lock() {
            return Err(Error::File {
                path: dir.to_path_buf(),
                message: format!("the {what} is in use by another leaper process: stop it first ({e})"),
            });
        }
        Ok(DirLock { _file: file })
    }
}

fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.rewind().ok()?;
    // A pid is a few digits: a lock file of more is not one leaper wrote.
    file.take(64).read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

/// Whether a process holds the lock of `dir`, and its pid (0 when it wrote none).
pub fn running_pid(dir: &Path) -> Option<u32> {
    let mut file = no_follow().read(true).open(dir.join(JobFile::Lock.path())).ok()?;
    match file.try_lock_shared() {
        Ok(()) => None,
        Err(_) => Some(read_pid(&mut file).unwrap_or(0)),
    }
}

/// When the lock of `dir` was last taken (its pid written), in seconds since the Unix epoch:
/// while [`running_pid`] names a process, when that process started on the job. A job resumed
/// days after its last commit has run since then, not since the commit.
pub fn lock_taken_unix(dir: &Path) -> Option<u64> {
    let written = fs::symlink_metadata(dir.join(JobFile::Lock.path())).ok()?.modified().ok()?;
    written.duration_since(std::time::UNIX_EPOCH).ok().map(|since| since.as_secs())
}

/// Removes what a job that committed nothing wrote in `dir` (the directory too, if `created`),
/// and says whether it did: a job with a commit is left whole. Files leaper does not write
/// stay. The caller holds the job's lock: the lock file goes last, and another process that
/// takes it meanwhile finds the directory as a new start would.
pub fn remove_uncommitted(dir: &Path, created: bool) -> Result<bool> {
    if has_commits(dir) {
        return Ok(false);
    }
    remove_unnamed(dir, &Default::default(), &[JobFile::Lock], Foreign::Leave)?;
    let _ = fs::remove_file(dir.join(JobFile::Lock.path()));
    if created {
        let _ = fs::remove_dir(dir);
    }
    Ok(true)
}

/// A job directory, locked by this process.
pub struct JobDir {
    dir: PathBuf,
    spec: JobSpec,
    _lock: DirLock,
    /// This process made the directory.
    created: bool,
}

/// The names of the files in `dir` if they are only what a start interrupted before its spec
/// was written leaves (its lock, a temporary spec), with no process holding the lock.
fn interrupted_start(dir: &Path) -> Result<Option<Vec<String>>> {
    let temporary_spec = JobFile::Spec.temporary_path();
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| file_error(dir, "read", e))? {
        let name = PathBuf::from(entry.map_err(|e| file_error(dir, "read", e))?.file_name());
        if name != JobFile::Lock.path() && name != temporary_spec {
            return Ok(None);
        }
        names.push(name.display().to_string());
    }
    names.sort();
    Ok((!names.is_empty() && running_pid(dir).is_none()).then_some(names))
}

/// Whether the job in `dir` has committed anything a run could go on from: a manifest with a
/// step, a finished pass or a result, or a ledger with a finished shard. In doubt (a file that
/// cannot be read, a damaged one), yes: nothing that might be committed work is ever deleted.
pub fn has_commits(dir: &Path) -> bool {
    let committed_sweep = match Manifest::load(dir) {
        Ok(None) => false,
        Ok(Some(manifest)) => manifest.has_commits(),
        Err(_) => true,
    };
    let ledger = durable::read_small(&dir.join(JobFile::Ledger.path()), LEDGER_BYTES, "ledger");
    let committed_shards = match ledger {
        // The header line, then one line per finished shard.
        Ok(Some(ledger)) => ledger.iter().filter(|&&b| b == b'\n').count() > 1,
        Ok(None) => false,
        Err(_) => true,
    };
    committed_sweep || committed_shards
}

impl JobDir {
    /// Starts a new job in `dir`, which must be missing or empty (or hold only what a start
    /// interrupted before its spec was written left: those are removed, with a message): locks
    /// it, then writes `job.toml`.
    pub fn create(dir: &Path, spec: JobSpec) -> Result<JobDir> {
        // An interrupt waits for the directory to be made whole (locked, its spec written).
        let _whole = hold_commits();
        let created = !dir.exists();
        fs::create_dir_all(dir).map_err(|e| file_error(dir, "create the job directory", e))?;
        if dir.join(JobFile::Spec.path()).exists() {
            let held = match JobSpec::load(dir) {
                Ok(held) => format!("job {} ({})", held.header.id, held.header.command),
                Err(error) => format!("a job ({error})"),
            };
            return Err(Error::InvalidRequest(format!(
                "job directory {} already holds {held}; continue it with `leaper resume --job-dir {}`, or give \
                 the new job an empty directory",
                dir.display(),
                dir.display()
            )));
        }
        let leftovers = interrupted_start(dir)?;
        let occupied = fs::read_dir(dir).map_err(|e| file_error(dir, "read", e))?.next().is_some();
        if occupied && leftovers.is_none() {
            return Err(Error::InvalidRequest(format!(
                "job directory {} is not empty and holds no leaper job; give the job an empty directory",
                dir.display()
            )));
        }
        let lock_path = dir.join(JobFile::Lock.path());
        let lock_was_there = fs::symlink_metadata(&lock_path).is_ok();
        let lock = match DirLock::take(dir, "job directory") {
            Ok(lock) => lock,
            Err(error) => {
                // A lock this start could not take for want of room (or any failure of its
                // own) leaves nothing; a lock held by another process is that process's.
                if running_pid(dir).is_none() {
                    if !lock_was_there {
                        let _ = fs::remove_file(&lock_path);
                    }
                    if created {
                        let _ = fs::remove_dir(dir);
                    }
                }
                return Err(error);
            }
        };
        if let Some(names) = leftovers {
            remove_unnamed(dir, &Default::default(), &[JobFile::Lock], Foreign::Refuse)?;
            tracing::warn!(
                dir = %dir.display(),
                files = %names.join(", "),
                "removed the leftovers of a start that was interrupted before its spec was written"
            );
        }
        let job = JobDir { dir: dir.to_path_buf(), spec, _lock: lock, created };
        if let Err(error) = job.spec.write(dir) {
            // A spec that could not be written (a full disk) leaves nothing half-made.
            let _ = job.abandon();
            return Err(error);
        }
        Ok(job)
    }

    /// Opens the job in `dir` to continue it, locked for this process. A directory without a
    /// spec is refused as holding no job before anything else in it is looked at.
    pub fn open(dir: &Path) -> Result<JobDir> {
        let interrupted = || dir.join(JobFile::Lock.path()).exists() && matches!(interrupted_start(dir), Ok(Some(_)));
        if !interrupted() {
            spec::check_holds_a_job(dir)?;
        }
        refuse_links(dir)?;
        let spec = match JobSpec::load(dir) {
            Err(_) if interrupted() => {
                return Err(Error::File {
                    path: dir.to_path_buf(),
                    message: "holds no leaper job, only what a start interrupted before its spec was written left \
                              behind: start the job again (the new start removes it)"
                        .into(),
                })
            }
            spec => spec?,
        };
        let lock = DirLock::take(dir, "job directory")?;
        spec.repair_copy(dir)?;
        Ok(JobDir { dir: dir.to_path_buf(), spec, _lock: lock, created: false })
    }

    /// Removes a job that committed nothing (a start that failed before its first step or
    /// shard was recorded): every file it wrote, and the directory if this job made it. Files
    /// leaper does not write stay.
    pub fn abandon(self) -> Result<()> {
        remove_uncommitted(&self.dir, self.created).map(|_| ())
    }

    /// This process made the directory (a new job's, not one that was there before).
    pub fn created(&self) -> bool {
        self.created
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    pub fn spec(&self) -> &JobSpec {
        &self.spec
    }

    pub fn id(&self) -> &str {
        &self.spec.header.id
    }

    /// Where `file` lives in this job directory.
    pub fn file(&self, file: JobFile) -> PathBuf {
        self.dir.join(file.path())
    }
}

/// A worker's data directory, locked for the life of the worker.
pub struct DataDir {
    dir: PathBuf,
    _lock: DirLock,
    worker_id: String,
    /// Held across a claim's read and write: a worker's requests run on many threads, and two
    /// leases that reach a fresh worker at once must not both find it free and both write
    /// `job-id` through the same temporary file (the second rename then finds none).
    claiming: std::sync::Mutex<()>,
}

impl DataDir {
    /// Opens (creating it if missing) and locks `dir`; gives it a worker id the first time.
    /// A job directory is refused: a worker's sweeps would delete its spec and checkpoints.
    pub fn open(dir: &Path) -> Result<DataDir> {
        fs::create_dir_all(dir).map_err(|e| file_error(dir, "create the data directory", e))?;
        refuse_links(dir)?;
        for file in [JobFile::Spec, JobFile::Manifest, JobFile::Ledger] {
            if dir.join(file.path()).exists() {
                return Err(Error::File {
                    path: dir.to_path_buf(),
                    message: format!(
                        "holds {}: it is a job directory, not a worker's data directory; give the worker a \
                         directory of its own",
                        file.path().display()
                    ),
                });
            }
        }
        let lock = DirLock::take_directory(dir, "data directory")?;
        let path = dir.join(JobFile::WorkerId.path());
        let worker_id = match read_id(&path)? {
            Some(id) => id,
            None if path.exists() => {
                return Err(Error::File { path, message: "empty: remove it to give the worker a new id".into() })
            }
            None => {
                let id = new_worker_id();
                replace_durably(&path, format!("{id}\n").as_bytes(), "worker-id")?;
                id
            }
        };
        Ok(DataDir { dir: dir.to_path_buf(), _lock: lock, worker_id, claiming: Default::default() })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Who the worker is, whatever address it is reached by: a coordinator refuses a worker
    /// listed twice under two names.
    pub fn worker_id(&self) -> &str {
        &self.worker_id
    }

    /// The job the directory belongs to, `None` when it is free.
    pub fn owner(&self) -> Result<Option<String>> {
        read_id(&self.dir.join(JobFile::JobId.path()))
    }

    /// Records that the directory belongs to `job_id`; refuses when another job owns it.
    /// Atomic within the worker (the directory lock keeps other processes out) and idempotent:
    /// any number of concurrent claims by one job succeed, and write `job-id` once.
    pub fn claim(&self, job_id: &str) -> Result<()> {
        let _claiming = self.claiming.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match self.owner()? {
            Some(owner) if owner == job_id => Ok(()),
            Some(owner) => Err(Error::Refused {
                peer: String::new(),
                message: format!(
                    "data directory {} belongs to job {owner}; give job {job_id} a fresh data directory",
                    self.dir.display()
                ),
            }),
            None => replace_durably(&self.dir.join(JobFile::JobId.path()), format!("{job_id}\n").as_bytes(), "job-id"),
        }
    }

    /// Removes the job's files (the worker id stays, and so does anything leaper did not
    /// write): the job is over and the directory is free again.
    pub fn release(&self) -> Result<usize> {
        remove_unnamed(&self.dir, &Default::default(), &[JobFile::WorkerId], Foreign::Leave)
    }
}

/// The id in the file `path` (`worker-id`, `job-id`), trimmed; `None` if the file is missing or
/// blank.
fn read_id(path: &Path) -> Result<Option<String>> {
    let Some(bytes) = durable::read_small(path, 4096, "id file")? else { return Ok(None) };
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::File { path: path.to_path_buf(), message: "not UTF-8: not an id leaper wrote".into() })?;
    Ok(Some(text.trim().to_string()).filter(|id| !id.is_empty()))
}

/// A worker id that no other worker has: the time, the process and the machine's randomness.
fn new_worker_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    hasher.write_u32(std::process::id());
    format!("w-{:016x}", hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> leaper_test_kit::Scratch {
        leaper_test_kit::scratch(&format!("jobdir-{name}"))
    }

    #[test]
    fn a_directory_is_locked_by_one_process_and_held_by_one_job() {
        let dir = scratch("locked");
        let spec = JobSpec {
            header: SpecHeader::new(JobKind::Subtree, "quarto", "quarto", "quarto"),
            body: Default::default(),
        };
        let job = JobDir::create(&dir, spec.clone()).unwrap();
        assert_eq!(running_pid(&dir), Some(std::process::id()));
        let error = JobDir::create(&dir, spec.clone()).err().unwrap().to_string();
        assert!(error.contains("already holds job quarto-") && error.contains("leaper resume"), "{error}");
        drop(job);
        assert_eq!(running_pid(&dir), None);
        let reopened = JobDir::open(&dir).unwrap();
        assert_eq!(reopened.spec(), &spec);
    }

    #[test]
    fn a_directory_without_a_spec_holds_no_job_whatever_else_it_holds() {
        // As /tmp: someone else's files, folders and links, and no job.toml.
        let dir = scratch("not-a-job");
        fs::create_dir_all(dir.join("theirs")).unwrap();
        std::os::unix::fs::symlink("/nowhere", dir.join("theirs/link")).unwrap();
        fs::write(dir.join("notes.txt"), "mine").unwrap();
        let error = JobDir::open(&dir).err().unwrap().to_string();
        assert_eq!(error, format!("{}: holds no leaper job (job.toml is missing)", dir.display()));
        // A spec that is a link is a job directory's link, and named as such.
        std::os::unix::fs::symlink("/nowhere", dir.join("job.toml")).unwrap();
        let error = JobDir::open(&dir).err().unwrap().to_string();
        assert!(error.contains("is a symbolic link in a job or data directory"), "{error}");
    }

    #[test]
    fn a_data_directory_belongs_to_one_job_at_a_time() {
        let dir = scratch("data");
        let data = DataDir::open(&dir).unwrap();
        assert!(DataDir::open(&dir).err().unwrap().to_string().contains("in use by another leaper process"));
        assert_eq!(data.owner().unwrap(), None);
        data.claim("job-a").unwrap();
        data.claim("job-a").unwrap();
        let error = data.claim("job-b").unwrap_err();
        assert!(!error.is_retryable() && error.to_string().contains("belongs to job job-a"), "{error}");
        let id = data.worker_id().to_string();
        data.release().unwrap();
        // Many claims of one job at once, as a worker's threads make them: all succeed, and one
        // other job's claim among them is refused.
        std::thread::scope(|scope| {
            let claims: Vec<_> = (0..16).map(|_| scope.spawn(|| data.claim("job-c"))).collect();
            for claim in claims {
                claim.join().unwrap().unwrap();
            }
        });
        assert_eq!(data.owner().unwrap().as_deref(), Some("job-c"));
        assert!(data.claim("job-d").unwrap_err().to_string().contains("belongs to job job-c"));
        data.release().unwrap();
        assert_eq!(data.owner().unwrap(), None);
        let left: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["worker-id"], "a free data directory keeps only the worker's id");
        drop(data);
        assert_eq!(DataDir::open(&dir).unwrap().worker_id(), id, "the id outlives the process");
    }
}
