//! Printing results: full decimal numbers, text or one JSON object per line, OEIS b-files.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::cli::OutputFormat;

/// One result line, e.g. `{"problem":"knight","board":"8x8","tours":"closed","count":"13267364410532"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CountLine {
    pub problem: String,
    pub board: String,
    pub tours: &'static str,
    /// Decimal digits: counts outgrow every JSON number type.
    pub count: String,
}

/// Prints counts to stdout. Text: the bare number for a single board, `BOARD COUNT` per line
/// for a sweep.
pub fn print_counts(lines: &[CountLine], format: OutputFormat, table: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    for line in lines {
        match format {
            OutputFormat::Json => writeln!(out, "{}", serde_json::to_string(line)?)?,
            OutputFormat::Text if table => writeln!(out, "{} {}", line.board, line.count)?,
            OutputFormat::Text => writeln!(out, "{}", line.count)?,
        }
    }
    out.flush()?;
    Ok(())
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_field_order_matches_the_contract() {
        let line = CountLine {
            problem: "knight".into(),
            board: "8x8".into(),
            tours: "closed",
            count: "13267364410532".into(),
        };
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            r#"{"problem":"knight","board":"8x8","tours":"closed","count":"13267364410532"}"#
        );
    }
}
