//! What a person sees on stderr, and how results reach stdout without tearing it.
//!
//! Three modes, chosen once at start:
//!
//! | stderr is           | mode      | stderr carries                                               |
//! |---------------------|-----------|--------------------------------------------------------------|
//! | a terminal          | `Display` | one live progress display; notes, warnings; a summary line   |
//! | a pipe, a file      | `Lines`   | notes, warnings; a progress line every 30 s; a summary line  |
//! | anything, `--quiet` | `Quiet`   | errors only                                                  |
//!
//! A pipe is told what a terminal is told, less the display: a count that ends within 30 s
//! writes its summary line alone, as cargo and ripgrep keep quiet, and a run in the background
//! still logs where it is, a line at most every 30 s ([`spaced_progress`]; the first once the
//! run has gone 30 s; `LEAPER_PROGRESS_EVERY` seconds otherwise):
//!
//! ```text
//! 2026-11-29T07:12:40Z  knight 7x10 --sweep: 31/70 steps · pass 1/1 · row 5, column 3 · 3,771,113 states · ...
//! finished in 58s: 203,454,330 states processed, peak layer 23,428,645 states (in memory), 2.9 GiB peak memory
//! ```
//!
//! `-v` brings a tracing line for every step back (under the display on a terminal), `-vv`
//! debug lines; `RUST_LOG` sets levels exactly; no text line names a module. `--log-format
//! json` always means lines, and complete ones: every step an event, whatever `-v` says
//! (scripts and a run in the background read them). stdout carries results only, in every mode.

use std::io::{IsTerminal, Write};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use clap::ValueEnum;
use indicatif::ProgressBar;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};
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

/// How often a pipe is told where a run is, unless `LEAPER_PROGRESS_EVERY` says otherwise.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(30);

/// The environment variable that sets the spacing of the progress lines, in seconds.
pub const PROGRESS_EVERY_VAR: &str = "LEAPER_PROGRESS_EVERY";

/// The command line's say on the console.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConsoleArgs {
    pub log_format: LogFormat,
    pub quiet: bool,
    pub verbose: u8,
    /// The least time between two progress lines on a pipe (and before the first).
    pub progress_every: Duration,
}

impl Default for ConsoleArgs {
    fn default() -> Self {
        ConsoleArgs { log_format: LogFormat::Text, quiet: false, verbose: 0, progress_every: PROGRESS_EVERY }
    }
}

/// The spacing of the progress lines `LEAPER_PROGRESS_EVERY` asks for (seconds, fractions
/// allowed), or the default when it is unset.
pub fn progress_every_from_env() -> anyhow::Result<Duration> {
    let Some(value) = std::env::var_os(PROGRESS_EVERY_VAR) else {
        return Ok(PROGRESS_EVERY);
    };
    let text = value.to_string_lossy();
    match text.trim().parse::<f64>() {
        Ok(seconds) if (0.0..1e9).contains(&seconds) => Ok(Duration::from_secs_f64(seconds)),
        _ => anyhow::bail!(
            "{PROGRESS_EVERY_VAR}={text:?}: the seconds between progress lines must be a number, 0 or more"
        ),
    }
}

static MODE: OnceLock<(Mode, ConsoleArgs)> = OnceLock::new();
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
    if MODE.set((mode, args)).is_err() {
        return;
    }
    // JSON lines are for machines and complete at info; text, for a person, starts at warn (the
    // progress a person sees is the display's or the spaced lines', not tracing's).
    let level = match (mode, args.log_format, args.verbose) {
        (Mode::Quiet, _, _) => "error",
        (_, LogFormat::Text, 0) => "warn",
        (_, LogFormat::Text, 1) | (_, LogFormat::Json, 0) => "info",
        (_, _, 1) | (_, LogFormat::Text, 2) => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let builder =
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(AroundDisplay).with_ansi(mode == Mode::Display);
    let _ = match args.log_format {
        // A person reads the span (job, step) and the message; the module path says nothing.
        LogFormat::Text => builder.with_target(false).try_init(),
        // The span list carries the job span's fields as well as the step's.
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(true).with_span_list(true).try_init(),
    };
}

/// The mode of this run (`Lines` if [`init`] was never called, as in library tests).
pub fn mode() -> Mode {
    MODE.get().map_or(Mode::Lines, |(mode, _)| *mode)
}

/// How verbose the command line asked the logs to be (`-v` once: 1).
pub fn verbose() -> u8 {
    MODE.get().map_or(0, |(_, args)| args.verbose)
}

/// Whether logs are JSON lines (numbers as numbers, for collectors) rather than text.
pub fn json_logs() -> bool {
    MODE.get().is_some_and(|(_, args)| args.log_format == LogFormat::Json)
}

/// The spacing of [`progress`] lines when stderr is a pipe read by a person (text, not
/// verbose); `None` otherwise: the display, every step's tracing line or silence tell instead.
pub fn spaced_progress() -> Option<Duration> {
    match MODE.get() {
        Some((Mode::Lines, args)) if args.log_format == LogFormat::Text && args.verbose == 0 => {
            Some(args.progress_every)
        }
        _ => None,
    }
}

/// A progress line on a pipe: the time (UTC, to the second) and where the run is.
pub fn progress(text: &str) {
    let mut now = String::new();
    let _ = SystemTime.format_time(&mut Writer::new(&mut now));
    // `2026-11-29T07:12:40.123456Z` to the second: a log read by a person needs no more.
    let now = match now.split_once('.') {
        Some((seconds, _)) => format!("{seconds}Z"),
        None => now,
    };
    around_display(|| eprintln!("{now}  {text}"));
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

/// The one line that ends a finished run: as it is in text, on a terminal or a pipe; in JSON
/// logs as an event (a sweep logs its own, with its figures as fields).
pub fn summary(text: &str) {
    match mode() {
        Mode::Quiet => {}
        Mode::Lines if json_logs() => tracing::info!("{text}"),
        _ => {
            hide();
            eprintln!("{text}");
        }
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
