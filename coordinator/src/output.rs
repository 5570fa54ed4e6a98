//! Results beyond what a problem prints: OEIS b-files (`n a(n)` per line) of a sweep's counts.

use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// Fails early, before a long count, if the b-file cannot be written.
pub fn check_writable(path: &Path) -> Result<()> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        bail!("cannot write b-file {}: directory {} does not exist", path.display(), parent.display());
    }
    if path.is_dir() {
        bail!("cannot write b-file {}: it is a directory", path.display());
    }
    Ok(())
}

/// Writes `n a(n)` lines to `path` atomically (a temporary file renamed into place), so an
/// interrupted run never leaves a truncated b-file.
pub fn write_bfile(path: &Path, rows: &[(usize, String)]) -> Result<()> {
    let mut text = String::new();
    for (n, value) in rows {
        text.push_str(&format!("{n} {value}\n"));
    }
    let temporary = path.with_extension("tmp-bfile");
    fs::write(&temporary, text).with_context(|| format!("cannot write {}", temporary.display()))?;
    fs::rename(&temporary, path)
        .with_context(|| format!("cannot move {} to {}", temporary.display(), path.display()))?;
    Ok(())
}
