//! Writing files so that a crash leaves either the old or the new version, never half of one;
//! the lock that keeps an interrupt out of a commit ([`hold_commits`]); I/O errors that name
//! their file (made in [`crate::error`]); the sweep of files no checkpoint names.
//!
//! Two kinds of file are written here. A job's own files (`job.toml`, `manifest.json`, ...) live
//! in a directory this process has locked, so their temporary file has a fixed name
//! (`manifest.json.tmp`) that a later run recognises and clears. An output (a b-file, a tour
//! file, a drawing) lives anywhere, so its temporary file carries the process id
//! (`b.txt.4711.tmp`): two runs never write the same one, and one left by a killed run is in no
//! one's way (it is removed by the next write of the same output). Neither kind of write ever
//! follows a symbolic link: a link where leaper keeps a file is refused, never written through.
//! An output that is a stream, not a file (`--out /dev/null`, a named pipe: [`is_stream`]), is
//! written in place: a file renamed over `/dev/null` would replace the device.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::{JobFile, TEMPORARY_SUFFIX};
use crate::error::{Error, Result};

// I/O errors that name their file are the error type's (`crate::error`), so that what reads a
// file below the job directory (`crate::input`) needs nothing of it; named here as ever.
pub use crate::error::{file_error, is_disk_full, DISK_FULL};

/// Held while a commit (a manifest, a ledger line) is written. An interrupted run takes it
/// and keeps it until the process ends, so that it stops between commits, never inside one,
/// and what it reports as committed stays so.
static COMMITS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Threads waiting in [`hold_commits`].
static WAITING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Waits for a commit in progress to end and holds off the next one while the guard lives.
pub fn hold_commits() -> std::sync::MutexGuard<'static, ()> {
    use std::sync::atomic::Ordering;
    WAITING.fetch_add(1, Ordering::SeqCst);
    let guard = COMMITS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    WAITING.fetch_sub(1, Ordering::SeqCst);
    guard
}

/// Whether a thread waits to commit: one that holds the commits off then knows that the run
/// has reached its next commit and writes nothing more.
pub fn commit_waiting() -> bool {
    WAITING.load(std::sync::atomic::Ordering::SeqCst) > 0
}

/// Open options that refuse a symbolic link as the file itself (`O_NOFOLLOW`: the open fails
/// with `ELOOP`, which [`file_error`] explains).
pub fn no_follow() -> fs::OpenOptions {
    let mut options = fs::OpenOptions::new();
    options.custom_flags(libc::O_NOFOLLOW);
    options
}

/// Creates (or empties) the file `path` for writing, never through a symbolic link.
pub fn create_file(path: &Path) -> std::io::Result<fs::File> {
    no_follow().write(true).create(true).truncate(true).open(path)
}

/// Reads a small file whole (a spec, a manifest, an id): `None` if there is none; refused, by
/// name and without reading it all, past `limit` bytes; never through a symbolic link.
pub fn read_small(path: &Path, limit: u64, what: &str) -> Result<Option<Vec<u8>>> {
    let file = match no_follow().read(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(file_error(path, "read", e)),
    };
    let bytes = crate::input::read_at_most(file, limit).map_err(|e| file_error(path, "read", e))?;
    bytes.map(Some).ok_or_else(|| Error::File {
        path: path.to_path_buf(),
        message: format!("is larger than any {what} leaper writes ({limit} bytes at most): not one, or damaged"),
    })
}

/// The directory a file's entry lives in (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Makes the directory's entries (new, renamed or removed files) durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| file_error(dir, "fsync the directory", e))
}

/// Replaces `path`, a file of a job or data directory this process has locked, with `bytes` so
/// that a crash leaves either the old or the new file: write `PATH.tmp`, fsync, rename over
/// `path`, fsync the directory. `fault` names the crash points (`FAULT-temp` before the
/// rename, `FAULT` after it).
pub fn replace_durably(path: &Path, bytes: &[u8], fault: &str) -> Result<()> {
    replace_through(&JobFile::temporary_of(path), path, bytes, fault)
}

/// Replaces the output `path` (a b-file, a drawing) with `bytes` as [`replace_durably`] does,
/// through a temporary file of this process's own.
pub fn replace_output(path: &Path, bytes: &[u8], fault: &str) -> Result<()> {
    if is_stream(path) {
        return write_stream(path, "write", &mut |out: &mut dyn Write| {
            out.write_all(bytes).map_err(|e| file_error(path, "write", e))
        });
    }
    replace_through(&output_temporary(path), path, bytes, fault)?;
    remove_stale_temporaries(path);
    Ok(())
}

fn replace_through(temp: &Path, path: &Path, bytes: &[u8], fault: &str) -> Result<()> {
    let write = || -> std::io::Result<()> {
        let mut file = create_file(temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        crate::fault::point(&format!("{fault}-temp"))
    };
    if let Err(e) = write() {
        remove_temporary(temp);
        return Err(file_error(temp, "write", e));
    }
    fs::rename(temp, path).map_err(|e| file_error(path, "replace", e))?;
    crate::fault::point(fault).map_err(|e| file_error(path, "write", e))?;
    sync_dir(directory_of(path))
}

/// Removes a temporary file that a failed write left (unless it is a link: those are the
/// user's).
fn remove_temporary(temp: &Path) {
    if fs::symlink_metadata(temp).is_ok_and(|meta| meta.is_file()) {
        let _ = fs::remove_file(temp);
    }
}

/// The temporary file of this process for the output `path`: `NAME.PID.tmp` beside it.
pub fn output_temporary(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{}{TEMPORARY_SUFFIX}", std::process::id()));
    name.into()
}

/// Removes the temporary files of `path` that processes no longer running left
/// (`NAME.PID.tmp`, a run killed while it wrote the output).
fn remove_stale_temporaries(path: &Path) {
    let (Some(name), Ok(entries)) = (path.file_name().and_then(|n| n.to_str()), fs::read_dir(directory_of(path)))
    else {
        return;
    };
    for entry in entries.flatten() {
        if left_by_dead_process(&entry.file_name(), &format!("{name}."), TEMPORARY_SUFFIX) {
            remove_temporary(&entry.path());
        }
    }
}

/// Whether `file_name` is `PREFIX` `PID` `SUFFIX` and process PID no longer runs: what a run of
/// leaper killed while it worked left behind (an output's temporary file, a dedupe's scratch
/// directory), which no process will finish or remove.
pub fn left_by_dead_process(file_name: &std::ffi::OsStr, prefix: &str, suffix: &str) -> bool {
    let pid = file_name
        .to_str()
        .and_then(|name| name.strip_prefix(prefix)?.strip_suffix(suffix))
        .filter(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
    pid.is_some_and(|pid| !Path::new("/proc").join(pid).exists())
}

/// Writes the output `path` through a temporary file of this process beside it, renamed into
/// place once complete and synced: a failure leaves no half-written file.
pub fn write_durably_with(path: &Path, what: &str, fill: &mut dyn FnMut(&mut dyn Write) -> Result<()>) -> Result<()> {
    if is_stream(path) {
        return write_stream(path, &format!("write {what}"), fill);
    }
    let temp = output_temporary(path);
    let io = |e: std::io::Error| file_error(&temp, &format!("write {what}"), e);
    let result = (|| {
        let file = create_file(&temp).map_err(io)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        fill(&mut out)?;
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)
    })();
    if let Err(error) = result {
        remove_temporary(&temp);
        return Err(error);
    }
    fs::rename(&temp, path).map_err(|e| file_error(path, &format!("write {what}"), e))?;
    remove_stale_temporaries(path);
    sync_dir(directory_of(path))
}

/// Whether the output `path` is a stream rather than a file: a character device (`/dev/null`,
/// a terminal) or a named pipe, links followed (`/dev/stdout`, the `/dev/fd/63` of a shell's
/// `>(gzip > t.gz)`). It is written in place, as it is: there is no file to replace.
pub fn is_stream(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    fs::metadata(path).is_ok_and(|meta| meta.file_type().is_char_device() || meta.file_type().is_fifo())
}

/// Writes the stream `path` ([`is_stream`]) with `fill`, opened as it is (neither created nor
/// truncated), buffered and flushed; `doing` names the write in errors.
fn write_stream(path: &Path, doing: &str, fill: &mut dyn FnMut(&mut dyn Write) -> Result<()>) -> Result<()> {
    let file = fs::OpenOptions::new().write(true).open(path).map_err(|e| file_error(path, doing, e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    fill(&mut out)?;
    out.flush().map_err(|e| file_error(path, doing, e))
}

/// Fails early, before a long count, if an output file (`what`: `b-file`, `drawing`) cannot be
/// written: its directory must exist and take a new file (outputs are written beside themselves,
/// then renamed), the file itself must be absent, a regular file or a stream ([`is_stream`]:
/// `/dev/null`), and it must not lie in a job or data directory (whose files are leaper's own:
/// a b-file written over `job.toml` would lose the job).
pub fn check_writable(path: &Path, what: &str) -> Result<()> {
    if is_stream(path) {
        return Ok(());
    }
    let parent = directory_of(path);
    let refuse = |message: String| Err(Error::File { path: path.to_path_buf(), message });
    if !parent.is_dir() {
        return refuse(format!("cannot write the {what}: directory {} does not exist", parent.display()));
    }
    if let Some(owner) = leapers_directory(parent) {
        return refuse(format!(
            "cannot write the {what} there: {} is a leaper job or data directory, whose files are leaper's \
             own; write it elsewhere",
            owner.display()
        ));
    }
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => return refuse(format!("cannot write the {what}: it is a directory")),
        Ok(meta) if !meta.is_file() => return refuse(format!("cannot write the {what}: it is not a regular file")),
        _ => {}
    }
    let probe = output_temporary(path);
    remove_temporary(&probe);
    match no_follow().write(true).create_new(true).open(&probe).and_then(|_| fs::remove_file(&probe)) {
        Ok(()) => Ok(()),
        Err(e) => {
            refuse(format!("cannot write the {what}: directory {} does not take new files ({e})", parent.display()))
        }
    }
}

/// The job or data directory `dir` lies in (itself or an ancestor), if any: one that holds a
/// job's spec and lock, or a worker's id.
pub fn leapers_directory(dir: &Path) -> Option<PathBuf> {
    let dir = fs::canonicalize(dir).ok()?;
    dir.ancestors()
        .find(|at| {
            let has = |file: JobFile| fs::symlink_metadata(at.join(file.path())).is_ok();
            (has(JobFile::Spec) || has(JobFile::SpecCopy)) && has(JobFile::Lock) || has(JobFile::WorkerId)
        })
        .map(Path::to_path_buf)
}

/// What to do with files under a job directory that leaper does not write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Foreign {
    /// Refuse, naming the first one, and delete nothing (a resume, a worker's Prepare).
    Refuse,
    /// Leave them where they are (a worker freeing its data directory).
    Leave,
}

/// Deletes every file under `root` that leaper writes ([`JobFile::is_leapers`]) and `named`
/// (paths relative to `root`) does not list, except the files `keep`, and the directories left
/// empty; returns how many files went. After a crash this clears half-written layers and
/// spills. A file or directory leaper does not write is never deleted: with [`Foreign::Refuse`]
/// the whole sweep is refused before anything is removed, naming it.
pub fn remove_unnamed(root: &Path, named: &HashSet<PathBuf>, keep: &[JobFile], foreign: Foreign) -> Result<usize> {
    let kept: HashSet<PathBuf> = keep.iter().map(JobFile::path).collect();
    let mut doomed = Vec::new();
    let mut strangers = Vec::new();
    classify(root, root, named, &kept, &mut doomed, &mut strangers)?;
    if let (Foreign::Refuse, Some(stranger)) = (foreign, strangers.first()) {
        return Err(stranger_error(root, stranger));
    }
    remove_all(&doomed)
}

/// Removes the folder `at` under `root` (a layer of a job or data directory): leaper's files in
/// it, then the folder once it is empty. A file of anyone else's stays (with a warning), and so
/// does the folder that holds it. A folder already gone is not an error.
pub fn remove_folder(root: &Path, at: &Path) -> Result<usize> {
    if !at.exists() {
        return Ok(0);
    }
    let nothing = HashSet::new();
    let (mut doomed, mut strangers) = (Vec::new(), Vec::new());
    if classify(root, at, &nothing, &nothing, &mut doomed, &mut strangers)? {
        doomed.push((at.to_path_buf(), true));
    }
    for stranger in &strangers {
        tracing::warn!(file = %stranger.display(), "left in place: leaper did not write it");
    }
    remove_all(&doomed)
}

fn remove_all(doomed: &[(PathBuf, bool)]) -> Result<usize> {
    for (path, is_dir) in doomed {
        let removed = if *is_dir { fs::remove_dir(path) } else { fs::remove_file(path) };
        match removed {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(file_error(path, "remove", e)),
            _ => tracing::debug!(file = %path.display(), "removed a file no checkpoint names"),
        }
    }
    Ok(doomed.iter().filter(|(_, is_dir)| !is_dir).count())
}

/// Refuses a directory that holds anything leaper does not write, naming it; changes nothing.
pub fn refuse_strangers(root: &Path) -> Result<()> {
    let everything: HashSet<PathBuf> = HashSet::new();
    let (mut doomed, mut strangers) = (Vec::new(), Vec::new());
    classify(root, root, &everything, &everything, &mut doomed, &mut strangers)?;
    match strangers.first() {
        Some(stranger) => Err(stranger_error(root, stranger)),
        None => Ok(()),
    }
}

/// Refuses a directory that holds a symbolic link anywhere in it, naming it; changes nothing.
/// A link where leaper keeps a file would have leaper read or write what it points to.
pub fn refuse_links(root: &Path) -> Result<()> {
    let entries = match fs::read_dir(root) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(file_error(root, "read the directory", e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| file_error(root, "read the directory", e))?;
        let kind = entry.file_type().map_err(|e| file_error(&entry.path(), "inspect", e))?;
        if kind.is_symlink() {
            return Err(link_error(&entry.path()));
        }
        if kind.is_dir() {
            refuse_links(&entry.path())?;
        }
    }
    Ok(())
}

fn link_error(link: &Path) -> Error {
    Error::File {
        path: link.to_path_buf(),
        message: "is a symbolic link in a job or data directory, where leaper keeps only files of its own; \
                  leaper never follows a link it did not make: remove the link, then run the command again \
                  (nothing was changed, and nothing was written through it)"
            .into(),
    }
}

fn stranger_error(root: &Path, stranger: &Path) -> Error {
    if fs::symlink_metadata(stranger).is_ok_and(|meta| meta.file_type().is_symlink()) {
        return link_error(stranger);
    }
    Error::File {
        path: stranger.to_path_buf(),
        message: format!(
            "is not a file leaper writes, and it lies in a job directory ({}); leaper never deletes what is not \
             its own: move it out of the directory, then run the command again (nothing was changed)",
            root.display()
        ),
    }
}

/// Sorts the entries under `at` into leaper's files to delete (children before their
/// directories) and strangers. A leaper directory is deleted only if nothing in it stays.
fn classify(
    root: &Path,
    at: &Path,
    named: &HashSet<PathBuf>,
    kept: &HashSet<PathBuf>,
    doomed: &mut Vec<(PathBuf, bool)>,
    strangers: &mut Vec<PathBuf>,
) -> Result<bool> {
    let mut emptied = true;
    let entries = fs::read_dir(at).map_err(|e| file_error(at, "read the directory", e))?;
    for entry in entries {
        let entry = entry.map_err(|e| file_error(at, "read the directory", e))?;
        let path = entry.path();
        let relative = path.strip_prefix(root).expect("under the root").to_path_buf();
        let kind = entry.file_type().map_err(|e| file_error(&path, "inspect", e))?;
        let is_dir = kind.is_dir();
        // A link is never leaper's own, whatever its name.
        if kind.is_symlink() || !JobFile::is_leapers(&relative) {
            strangers.push(path);
            emptied = false;
        } else if named.contains(&relative) || kept.contains(&relative) {
            emptied = false;
        } else if is_dir {
            if classify(root, &path, named, kept, doomed, strangers)? {
                doomed.push((path, true));
            } else {
                emptied = false;
            }
        } else {
            doomed.push((path, false));
        }
    }
    Ok(emptied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_leapers_own_unnamed_files_are_removed_and_strangers_stop_the_sweep() {
        let root = leaper_test_kit::scratch("durable");
        let layer = root.join("pass-0/layer-000003");
        fs::create_dir_all(&layer).unwrap();
        for file in ["job.toml", "lock", "manifest.json", "manifest.json.tmp", "pass-0/layer-000003/b0001.lpb"] {
            fs::write(root.join(file), b"x").unwrap();
        }
        fs::create_dir_all(root.join("pass-0/layer-000004")).unwrap();
        fs::write(root.join("pass-0/layer-000004/spill-0002.raw"), b"x").unwrap();
        fs::write(root.join("notes.txt"), b"mine").unwrap();
        fs::create_dir_all(root.join("mydata")).unwrap();
        let named: HashSet<PathBuf> =
            ["manifest.json", "pass-0/layer-000003/b0001.lpb"].iter().map(PathBuf::from).collect();
        let keep = [JobFile::Spec, JobFile::Lock];

        let error = remove_unnamed(&root, &named, &keep, Foreign::Refuse).unwrap_err().to_string();
        assert!(error.contains("notes.txt") || error.contains("mydata"), "{error}");
        assert!(root.join("manifest.json.tmp").exists(), "nothing is removed when a stranger is found");

        assert_eq!(remove_unnamed(&root, &named, &keep, Foreign::Leave).unwrap(), 2);
        // A layer's folder goes with leaper's files in it; a stranger keeps it in place.
        fs::write(root.join("pass-0/layer-000003/mine.txt"), b"mine").unwrap();
        assert_eq!(remove_folder(&root, &root.join("pass-0/layer-000003")).unwrap(), 1);
        assert!(root.join("pass-0/layer-000003/mine.txt").exists());
        fs::remove_file(root.join("pass-0/layer-000003/mine.txt")).unwrap();
        assert_eq!(remove_folder(&root, &root.join("pass-0/layer-000003")).unwrap(), 0);
        assert!(!root.join("pass-0/layer-000003").exists());
        fs::create_dir_all(root.join("pass-0/layer-000003")).unwrap();
        fs::write(root.join("pass-0/layer-000003/b0001.lpb"), b"x").unwrap();
        assert!(!root.join("manifest.json.tmp").exists() && !root.join("pass-0/layer-000004").exists());
        for stays in ["job.toml", "lock", "manifest.json", "pass-0/layer-000003/b0001.lpb", "notes.txt", "mydata"] {
            assert!(root.join(stays).exists(), "{stays}");
        }
    }
}
