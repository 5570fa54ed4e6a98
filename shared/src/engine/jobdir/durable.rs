//! Writing files so that a crash leaves either the old or the new version, never half of one;
//! I/O errors that name their file; the sweep of files no checkpoint names.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::engine::jobdir::files::TEMPORARY_SUFFIX;
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

/// Makes the directory's entries (new, renamed or removed files) durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| file_error(dir, "fsync the directory", e))
}

/// Replaces `path` with `bytes` so that a crash leaves either the old or the new file: write
/// `PATH.tmp`, fsync, rename over `path`, fsync the directory. `fault` names the crash points
/// (`FAULT-temp` before the rename, `FAULT` after it).
pub fn replace_durably(path: &Path, bytes: &[u8], fault: &str) -> Result<()> {
    let mut temp = path.as_os_str().to_owned();
    temp.push(TEMPORARY_SUFFIX);
    let temp = PathBuf::from(temp);
    let write = || -> std::io::Result<()> {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        crate::engine::fault::point(&format!("{fault}-temp"))
    };
    write().map_err(|e| file_error(&temp, "write", e))?;
    fs::rename(&temp, path).map_err(|e| file_error(path, "replace", e))?;
    crate::engine::fault::point(fault).map_err(|e| file_error(path, "write", e))?;
    sync_dir(path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))
}

/// Deletes every file under `root` that `named` (paths relative to `root`) does not list,
/// except the files `keep` at the top, and the directories left empty; returns how many files
/// went. After a crash this clears half-written layers and spills.
pub fn remove_unnamed(root: &Path, named: &HashSet<PathBuf>, keep: &[&str]) -> Result<usize> {
    fn walk(root: &Path, at: &Path, named: &HashSet<PathBuf>, keep: &[&str]) -> Result<usize> {
        let mut removed = 0;
        let entries = fs::read_dir(at).map_err(|e| file_error(at, "read the directory", e))?;
        for entry in entries {
            let path = entry.map_err(|e| file_error(at, "read the directory", e))?.path();
            let relative = path.strip_prefix(root).expect("under the root").to_path_buf();
            if at == root && keep.iter().any(|k| relative == Path::new(k)) {
                continue;
            }
            if path.is_dir() {
                removed += walk(root, &path, named, keep)?;
                if fs::read_dir(&path).map(|mut d| d.next().is_none()).unwrap_or(false) {
                    fs::remove_dir(&path).map_err(|e| file_error(&path, "remove", e))?;
                }
            } else if !named.contains(&relative) {
                tracing::debug!(file = %path.display(), "removing a file no checkpoint names");
                fs::remove_file(&path).map_err(|e| file_error(&path, "remove", e))?;
                removed += 1;
            }
        }
        Ok(removed)
    }
    walk(root, root, named, keep)
}
