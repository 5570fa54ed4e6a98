//! Results beyond what a problem prints: OEIS b-files (`n a(n)` per line) of a sweep's counts.

use std::path::Path;

use anyhow::Result;
use leaper_core::engine::jobdir::replace_durably;

/// Fails early, before a long count, if the b-file cannot be written.
pub fn check_writable(path: &Path) -> Result<()> {
    Ok(leaper_core::engine::jobdir::check_writable(path, "b-file")?)
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
