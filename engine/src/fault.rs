//! Fault injection for crash tests: `LEAPER_FAULT=KIND@POINT:N` makes the N-th arrival at the
//! named point fail. KIND `crash` aborts the process on the spot (what `kill -9` or a power cut
//! does); KIND `full` makes the write fail as a full disk does; KIND `pause` says so on stderr
//! (`LEAPER_FAULT: pausing at POINT #N`) and waits two seconds, so that a test can kill the
//! process inside that window with a real SIGKILL. Unset in real runs, where a point costs one
//! check of a cached `None`.
//!
//! Points: `spill` (a successor batch is about to be written), `bucket` (a bucket section of the new
//! layer was written), `layer` (the new layer is durable, no checkpoint names it yet: in a sweep
//! whose checkpoints are paced, only a layer one is about to name), `manifest-temp` (the new
//! manifest is written beside the old one), `manifest` (the new manifest replaced the old one),
//! `manifest-copy-temp` and `manifest-copy` (the same for its copy), `release` (the old layer
//! was deleted); `job-temp` and `job` likewise for the job spec written when a job starts.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

#[derive(Debug)]
struct Fault {
    kind: Kind,
    point: String,
    at: u64,
}

#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Crash,
    Full,
    Pause,
}

fn configured() -> Option<&'static Fault> {
    static FAULT: OnceLock<Option<Fault>> = OnceLock::new();
    FAULT
        .get_or_init(|| {
            let text = std::env::var("LEAPER_FAULT").ok()?;
            let parse = || -> Option<Fault> {
                let (kind, rest) = text.split_once('@')?;
                let (point, at) = rest.split_once(':')?;
                let kind = match kind {
                    "crash" => Kind::Crash,
                    "full" => Kind::Full,
                    "pause" => Kind::Pause,
                    _ => return None,
                };
                Some(Fault { kind, point: point.to_string(), at: at.parse().ok()? })
            };
            let fault = parse();
            if fault.is_none() {
                eprintln!("ignoring LEAPER_FAULT={text:?}: expected crash@POINT:N, full@POINT:N or pause@POINT:N");
            }
            fault
        })
        .as_ref()
}

/// Marks the point `name`; fails there if `LEAPER_FAULT` says so.
pub fn point(name: &str) -> std::io::Result<()> {
    static ARRIVALS: AtomicU64 = AtomicU64::new(0);
    let Some(fault) = configured() else { return Ok(()) };
    if fault.point != name || ARRIVALS.fetch_add(1, Ordering::SeqCst) + 1 != fault.at {
        return Ok(());
    }
    match fault.kind {
        Kind::Crash => {
            eprintln!("LEAPER_FAULT: crashing at {name} #{}", fault.at);
            std::process::abort()
        }
        Kind::Full => Err(std::io::Error::from(std::io::ErrorKind::StorageFull)),
        Kind::Pause => {
            eprintln!("LEAPER_FAULT: pausing at {name} #{}", fault.at);
            // Long enough for a test that waits for this line to signal the process, also on
            // a machine busy with other builds (500 ms was not, once).
            std::thread::sleep(std::time::Duration::from_millis(2000));
            Ok(())
        }
    }
}
