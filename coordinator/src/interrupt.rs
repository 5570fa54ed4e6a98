//! Ctrl-C (SIGINT) and SIGTERM: a run stops between commits and says how to go on.
//!
//! ```text
//! leaper knight 7x10 --sweep --job-dir J       ^C after step 24
//!     interrupted: 24 of 70 steps are committed in J; continue with `leaper resume --job-dir J`
//!     exit 130 (SIGTERM: 143)
//! leaper knight 7x10 --sweep                   ^C
//!     interrupted: the count was held in memory and is lost; to be able to stop and go on,
//!     give it a job directory: `leaper knight 7x10 --sweep --job-dir DIR`
//! leaper knight 7x10 --sweep --job-dir J       ^C before its first step is committed
//!     interrupted: nothing was committed yet, so nothing is kept (J is removed)
//! ```
//!
//! A thread waits for the signal; the runners say what is running ([`counting_in_memory`],
//! [`starting_in`], [`counting_in`]). On the signal the thread waits for a commit in progress to end and holds
//! off the next one, so the report of what is committed stays true, then ends the process. The
//! work since the last commit is redone by `resume`, exactly as after a crash.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use leaper_core::engine::jobdir::running_pid;

use crate::console;
use crate::status::Status;

/// What this process is running, as far as an interrupt is concerned.
enum Running {
    InMemory,
    /// A job in `dir`; `new`: started by this run, so removed if it committed nothing.
    Job {
        dir: PathBuf,
        new: bool,
        created: bool,
    },
}

static RUNNING: Mutex<Option<Running>> = Mutex::new(None);

/// Ends the process on SIGINT or SIGTERM with the exit code of the signal (130, 143), after
/// saying what was kept. Without it the signal would kill the process mid-line, silently.
pub fn install() {
    let spawned = std::thread::Builder::new().name("interrupt".into()).spawn(|| {
        let Some(code) = wait_for_signal() else { return };
        stop(code)
    });
    if let Err(error) = spawned {
        tracing::debug!(%error, "no interrupt thread: Ctrl-C ends the run without a word");
    }
}

/// The exit code of the first SIGINT (130) or SIGTERM (143), or `None` if they cannot be
/// caught here (the default, dying by the signal, stands).
fn wait_for_signal() -> Option<i32> {
    use tokio::signal::unix::{signal, SignalKind};
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
    runtime.block_on(async {
        let mut interrupt = signal(SignalKind::interrupt()).ok()?;
        let mut terminate = signal(SignalKind::terminate()).ok()?;
        tokio::select! {
            _ = interrupt.recv() => Some(130),
            _ = terminate.recv() => Some(143),
        }
    })
}

/// Marks the span of a run; what it marked is forgotten when dropped.
#[must_use = "the mark lasts as long as the guard"]
pub struct Counting(());

impl Drop for Counting {
    fn drop(&mut self) {
        *RUNNING.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

fn mark(running: Running) -> Counting {
    *RUNNING.lock().unwrap_or_else(|e| e.into_inner()) = Some(running);
    Counting(())
}

/// A count with nothing on disk: an interrupt loses it.
pub fn counting_in_memory() -> Counting {
    mark(Running::InMemory)
}

/// A new job about to be made in `dir`: an interrupt from here on removes what it made.
pub fn starting_in(dir: &Path) -> Counting {
    mark(Running::Job { dir: dir.to_path_buf(), new: true, created: !dir.exists() })
}

/// A job in `dir`, new (`resuming` false) or resumed; `created`: this run made the directory.
pub fn counting_in(dir: &Path, resuming: bool, created: bool) -> Counting {
    mark(Running::Job { dir: dir.to_path_buf(), new: !resuming, created })
}

fn stop(code: i32) -> ! {
    let _no_more_commits = leaper_core::engine::jobdir::hold_commits();
    console::hide();
    let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(running) = running {
        let text = match running {
            Running::InMemory => in_memory_lost(),
            Running::Job { dir, new, created } => job_stopped(&dir, new, created),
        };
        if console::json_logs() {
            tracing::warn!(interrupted = %text, "interrupted");
        } else {
            eprintln!("interrupted: {text}");
        }
    }
    std::process::exit(code)
}

fn in_memory_lost() -> String {
    let words: Vec<String> = std::env::args().skip(1).map(|word| shell_word(&word)).collect();
    format!(
        "the count was held in memory and is lost; to be able to stop and go on, give it a job \
         directory: `leaper {} --job-dir DIR`",
        words.join(" ")
    )
}

fn job_stopped(dir: &Path, new: bool, created: bool) -> String {
    let shown = dir.display();
    // A new job's directory is this process's once it holds its lock; before that (the signal
    // came while it was being made, or it was refused) nothing of this run is in it.
    if new && running_pid(dir) != Some(std::process::id()) {
        return "the job had not started: nothing was made".to_string();
    }
    if new {
        match remove_uncommitted(dir, created) {
            Ok(true) if created => {
                return format!("nothing was committed yet, so nothing is kept ({shown} is removed)")
            }
            Ok(true) => {
                return format!("nothing was committed yet, so nothing is kept (leaper's files in {shown} are removed)")
            }
            Ok(false) => {}
            Err(error) => tracing::warn!(%error, "could not remove the job that committed nothing"),
        }
    }
    let resume = format!("continue with `leaper resume --job-dir {}`", shell_word(&shown.to_string()));
    match Status::read(dir) {
        Ok(status) => {
            let (done, all, unit) = status.done();
            format!("{done} of {all} {unit} are committed in {shown}; {resume}")
        }
        Err(_) => resume,
    }
}

/// [`jobdir::remove_uncommitted`] once the run has stopped writing: the step under way still
/// writes its layer until it reaches its commit, where it waits (the interrupt holds commits
/// off). A job's first steps are its smallest, so that is milliseconds; after 10 s the files are
/// removed while it writes, tried again while the directory keeps filling.
///
/// [`jobdir::remove_uncommitted`]: leaper_core::engine::jobdir::remove_uncommitted
fn remove_uncommitted(dir: &Path, created: bool) -> leaper_core::Result<bool> {
    use leaper_core::engine::jobdir;
    // A job that has committed keeps everything: no step need reach its commit first (a cluster
    // step waiting for a worker that is gone never would).
    if jobdir::has_commits(dir) {
        return Ok(false);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !jobdir::commit_waiting() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let mut tries = 0;
    loop {
        let removed = jobdir::remove_uncommitted(dir, created);
        // A file written after the listing keeps the directory: go round again.
        let again = match &removed {
            Err(_) => true,
            Ok(true) => created && dir.exists(),
            Ok(false) => false,
        };
        if !again || tries == 50 {
            return removed;
        }
        tries += 1;
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `word` as a shell reads it back: quoted only where it needs to be.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./:,=+@%".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn words_are_quoted_only_where_a_shell_needs_it() {
        assert_eq!(shell_word("7x10"), "7x10");
        assert_eq!(shell_word("--mem-limit=1GiB"), "--mem-limit=1GiB");
        assert_eq!(shell_word("my runs/j"), "'my runs/j'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
