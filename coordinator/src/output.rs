//! Results beyond what a problem prints: OEIS b-files (`n a(n)` per line) of a sweep's counts.

use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};
use leaper_core::engine::jobdir::{replace_durably, JobFile};

/// Fails early, before a long count, if the b-file cannot be written: its directory must exist
/// and take a new file (the b-file is written beside itself, then renamed), and the b-file
/// itself must be absent or a regular file.
pub fn check_writable(path: &Path) -> Result<()> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        bail!("cannot write b-file {}: directory {} does not exist", path.display(), parent.display());
    }
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => bail!("cannot write b-file {}: it is a directory", path.display()),
        Ok(meta) if !meta.is_file() => bail!("cannot write b-file {}: it is not a regular file", path.display()),
        _ => {}
    }
    let probe = JobFile::temporary_of(path);
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| fs::remove_file(&probe))
        .with_context(|| {
            format!("cannot write b-file {}: directory {} does not take new files", path.display(), parent.display())
        })?;
    Ok(())
}

/// Writes `n a(n)` lines to `path` durably (a temporary file, synced, renamed into place), so an
/// interrupted run never leaves a truncated b-file.
pub fn write_bfile(path: &Path, rows: &[(usize, String)]) -> Result<()> {
    let mut text = String::new();
    for (n, value) in rows {
        text.push_str(&format!("{n} {value}\n"));
    }
    Ok(replace_durably(path, text.as_bytes(), "bfile")?)
}
