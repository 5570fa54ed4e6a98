//! Writing files so that a crash leaves either the old or the new version, never half of one;
//! I/O errors that name their file; the sweep of files no checkpoint names.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::engine::jobdir::files::JobFile;
use crate::error::{Error, Result};

/// An I/O failure on `path`, saying what was being done (and, for a full disk, what to do).
pub fn file_error(path: &Path, action: &str, error: std::io::Error) -> Error {
    let advice = if error.kind() == std::io::ErrorKind::StorageFull {
        "; the disk is full: free space (or move the job directory elsewhere), then continue with \
         `leaper resume --job-dir DIR`; the last committed checkpoint is intact"
    } else {
        ""
    };
    Error::File { path: path.to_path_buf(), message: format!("cannot {action}: {error}{advice}") }
}

/// The directory a file's entry lives in (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Makes the directory's entries (new, renamed or removed files) durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| file_error(dir, "fsync the directory", e))
}

/// Replaces `path` with `bytes` so that a crash leaves either the old or the new file: write
/// `PATH.tmp`, fsync, rename over `path`, fsync the directory. `fault` names the crash points
/// (`FAULT-temp` before the rename, `FAULT` after it).
pub fn replace_durably(path: &Path, bytes: &[u8], fault: &str) -> Result<()> {
    let temp = JobFile::temporary_of(path);
    let write = || -> std::io::Result<()> {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        crate::engine::fault::point(&format!("{fault}-temp"))
    };
    write().map_err(|e| file_error(&temp, "write", e))?;
    fs::rename(&temp, path).map_err(|e| file_error(path, "replace", e))?;
    crate::engine::fault::point(fault).map_err(|e| file_error(path, "write", e))?;
    sync_dir(directory_of(path))
}

/// Writes `path` through a temporary file beside it, renamed into place once complete and
/// synced: a failure leaves no half-written file.
pub fn write_durably_with(path: &Path, what: &str, fill: &mut dyn FnMut(&mut dyn Write) -> Result<()>) -> Result<()> {
    let temp = JobFile::temporary_of(path);
    let io = |e: std::io::Error| file_error(&temp, &format!("write {what}"), e);
    let result = (|| {
        let file = fs::File::create(&temp).map_err(io)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        fill(&mut out)?;
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)
    })();
    if let Err(error) = result {
        let _ = fs::remove_file(&temp);
        return Err(error);
    }
    fs::rename(&temp, path).map_err(|e| file_error(path, &format!("write {what}"), e))?;
    sync_dir(directory_of(path))
}

/// Fails early, before a long count, if an output file (`what`: `b-file`, `drawing`) cannot be
/// written: its directory must exist and take a new file (outputs are written beside themselves,
/// then renamed), and the file itself must be absent or a regular file.
pub fn check_writable(path: &Path, what: &str) -> Result<()> {
    let parent = directory_of(path);
    let refuse = |message: String| Err(Error::File { path: path.to_path_buf(), message });
    if !parent.is_dir() {
        return refuse(format!("cannot write the {what}: directory {} does not exist", parent.display()));
    }
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => return refuse(format!("cannot write the {what}: it is a directory")),
        Ok(meta) if !meta.is_file() => return refuse(format!("cannot write the {what}: it is not a regular file")),
        _ => {}
    }
    let probe = JobFile::temporary_of(path);
    match fs::OpenOptions::new().write(true).create_new(true).open(&probe).and_then(|_| fs::remove_file(&probe)) {
        Ok(()) => Ok(()),
        Err(e) => {
            refuse(format!("cannot write the {what}: directory {} does not take new files ({e})", parent.display()))
        }
    }
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

fn stranger_error(root: &Path, stranger: &Path) -> Error {
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
        let is_dir = entry.file_type().map_err(|e| file_error(&path, "inspect", e))?.is_dir();
        if !JobFile::is_leapers(&relative) {
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
        let root = std::env::temp_dir().join(format!("leaper-durable-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
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
        fs::remove_dir_all(&root).unwrap();
    }
}
