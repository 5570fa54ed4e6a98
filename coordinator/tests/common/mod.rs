//! Helpers the command-line tests share: run `leaper`, read its output, a scratch directory.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `leaper ARGS`, with `LEAPER_FAULT` set to `fault` (and otherwise cleared).
pub fn leaper(args: &[&str], fault: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_leaper"));
    command.args(args).env_remove("LEAPER_FAULT");
    if let Some(fault) = fault {
        command.env("LEAPER_FAULT", fault);
    }
    command.output().expect("leaper runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh path under the temporary directory, unique to this test process (not created).
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("leaper-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
