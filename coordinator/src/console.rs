//! What a person sees on stderr, and how results reach stdout without tearing it.
//!
//! Three modes, chosen once at start:
//!
//! | stderr is           | mode      | stderr carries                                         |
//! |---------------------|-----------|--------------------------------------------------------|
//! | a terminal          | `Display` | one live progress display; warnings; a summary line    |
//! | a pipe, a file      | `Lines`   | tracing lines (a line per step, no colour), a summary  |
//! | anything, `--quiet` | `Quiet`   | errors only                                            |
//!
//! `-v` brings the step lines back under the display (`-vv`: debug), `RUST_LOG` overrides the
//! level, and `--log-format json` always means lines. stdout carries results only, in every mode.

use std::io::{IsTerminal, Write};
use std::sync::{Mutex, OnceLock};

use clap::ValueEnum;
use indicatif::ProgressBar;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::EnvFilter;

/// How log lines are written on stderr (`--log-format`): here, not with the command line that
/// parses it, since the console is what every module writes through and imports nothing back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// How stderr is used for this run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Display,
    Lines,
    Quiet,
}

/// The command line's say on the console.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConsoleArgs {
    pub log_format: LogFormat,
    pub quiet: bool,
    pub verbose: u8,
}

static MODE: OnceLock<(Mode, LogFormat)> = OnceLock::new();
/// The live display, while one is drawn: log lines and results are written around it.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Chooses the mode and sets up tracing (a second call, as in tests, keeps the first).
pub fn init(args: ConsoleArgs) {
    let terminal = std::io::stderr().is_terminal();
    let mode = match (args.quiet, terminal && args.log_format == LogFormat::Text) {
        (true, _) => Mode::Quiet,
        (false, true) => Mode::Display,
        (false, false) => Mode::Lines,
    };
    if MODE.set((mode, args.log_format)).is_err() {
        return;
    }
    let level = match (mode, args.verbose) {
        (Mode::Quiet, _) => "error",
        (Mode::Display, 0) => "warn",
        (Mode::Display, 1) | (Mode::Lines, 0) => "info",
        (_, 1) => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let builder =
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(AroundDisplay).with_ansi(mode == Mode::Display);
    let _ = match args.log_format {
        LogFormat::Text => builder.try_init(),
        // The span list carries the job span's fields as well as the step's.
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(true).with_span_list(true).try_init(),
    };
}

/// The mode of this run (`Lines` if [`init`] was never called, as in library tests).
pub fn mode() -> Mode {
    MODE.get().map_or(Mode::Lines, |(mode, _)| *mode)
}

/// Whether logs are JSON lines (numbers as numbers, for collectors) rather than text.
pub fn json_logs() -> bool {
    MODE.get().is_some_and(|(_, format)| *format == LogFormat::Json)
}

/// Shows `bar` as the live display until [`hide`]; `None` unless the mode is `Display`.
pub fn show(bar: ProgressBar) -> Option<ProgressBar> {
    if mode() != Mode::Display {
        return None;
    }
    bar.enable_steady_tick(std::time::Duration::from_secs(1));
    *BAR.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
    Some(bar)
}

/// Takes the live display off the terminal.
pub fn hide() {
    if let Some(bar) = BAR.lock().unwrap_or_else(|e| e.into_inner()).take() {
        bar.finish_and_clear();
    }
}

/// Runs `write` with the live display out of the way (it is drawn again after).
pub fn around_display<T>(write: impl FnOnce() -> T) -> T {
    let bar = BAR.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match bar {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

/// Writes results to stdout (locked, flushed), around the live display.
pub fn results(write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>) -> anyhow::Result<()> {
    around_display(|| {
        let mut out = std::io::stdout().lock();
        write(&mut out)?;
        Ok(out.flush()?)
    })
}

/// A remark for the person running the command (why a count is 0, that a count was verified):
/// a `note:` line on stderr, an event in JSON logs, nothing when quiet.
pub fn note(text: &str) {
    match mode() {
        Mode::Quiet => {}
        Mode::Lines if json_logs() => tracing::info!(note = text, "note"),
        _ => around_display(|| eprintln!("note: {text}")),
    }
}

/// Something the person running the command must know even when quiet (a directory the run
/// made on its own): a `warning:` line on stderr, an event in JSON logs.
pub fn warn(text: &str) {
    match mode() {
        Mode::Lines if json_logs() => tracing::warn!(warning = text, "warning"),
        _ => around_display(|| eprintln!("warning: {text}")),
    }
}

/// The one line that ends a finished run: on the terminal as it is, in logs as an event (a
/// sweep logs its own, with its figures as fields).
pub fn summary(text: &str) {
    match mode() {
        Mode::Quiet => {}
        Mode::Display => {
            hide();
            eprintln!("{text}");
        }
        Mode::Lines => tracing::info!("{text}"),
    }
}

/// stderr for tracing: each event is written in one piece, around the live display.
struct AroundDisplay;

impl<'a> MakeWriter<'a> for AroundDisplay {
    type Writer = EventWriter;

    fn make_writer(&'a self) -> EventWriter {
        EventWriter(Vec::new())
    }
}

/// Collects one event's text, written out when the event is done.
struct EventWriter(Vec<u8>);

impl Write for EventWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for EventWriter {
    fn drop(&mut self) {
        if !self.0.is_empty() {
            around_display(|| {
                let _ = std::io::stderr().lock().write_all(&self.0);
            });
        }
    }
}
