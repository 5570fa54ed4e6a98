//! The machine's memory, for the in-memory default limit (the process's own resident size is
//! `leaper_core::heap`'s), and the least limit an out-of-core store takes.

use anyhow::{bail, Context, Result};
use leaper_core::engine::store::check_disk_memory;
use leaper_core::engine::{Moduli, SweepJob};

use crate::numbers::{bytes, counted};

/// 80% of physical memory (MemTotal), or 8 GiB where the OS does not say.
pub fn default_in_memory_limit() -> u64 {
    meminfo("MemTotal:").map_or(8 << 30, |total| total / 5 * 4)
}

/// Memory the OS says is available for new work now (MemAvailable), if it says.
pub fn available_memory() -> Option<u64> {
    meminfo("MemAvailable:")
}

/// A field of /proc/meminfo, in bytes (it gives KiB).
fn meminfo(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|line| line.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kib| kib * 1024)
}

/// A mebibyte: the least limit a refusal names is a whole number of them.
const MIB: u64 = 1 << 20;

/// Refuses, before anything is counted, a memory limit `mem_limit` too small for the
/// out-of-core store of `job` (every pass of `passes`, `buckets` buckets, `threads` threads):
/// where a count starts out of core it would fail at its first step, and where it starts in
/// memory it would count until its layers outgrow the limit, start again out of core and fail
/// only then (`in_memory`: the message says so). The check is the store's own sizing, made
/// without a store; the message names the least limit that works, in whole MiB.
pub fn check_out_of_core(
    job: &dyn SweepJob,
    passes: &[Moduli],
    buckets: usize,
    threads: Option<usize>,
    mem_limit: u64,
    in_memory: bool,
) -> Result<()> {
    let verdict = crate::machine::with_threads(threads, || -> Result<Option<u64>> {
        let fits = |limit: u64| -> Result<bool> {
            for moduli in passes {
                match check_disk_memory(job.layout(moduli.len()), buckets, limit) {
                    Ok(_) => {}
                    Err(leaper_core::Error::InvalidRequest(_)) => return Ok(false),
                    Err(other) => return Err(other.into()),
                }
            }
            Ok(true)
        };
        if fits(mem_limit)? {
            return Ok(None);
        }
        // Whole MiB that fit, found by doubling then halving the gap; the store's needs grow
        // with the buckets and threads, never past a few GiB for the options' bounds.
        let (mut low, mut high) = (mem_limit / MIB, (mem_limit / MIB).max(1));
        while !fits(high * MIB)? {
            low = high;
            high = high.checked_mul(2).filter(|&h| h <= 1 << 30).context("no memory limit fits the store")?;
        }
        while high - low > 1 {
            let middle = low + (high - low) / 2;
            if fits(middle * MIB)? {
                high = middle;
            } else {
                low = middle;
            }
        }
        Ok(Some(high * MIB))
    });
    let verdict = match verdict.and_then(|inner| inner) {
        Ok(verdict) => verdict,
        // A layout no store takes (a key too wide) is the store's to refuse, as before.
        Err(error) => {
            tracing::debug!(error = %format!("{error:#}"), "the memory limit was not checked ahead");
            None
        }
    };
    let Some(least) = verdict else { return Ok(()) };
    let threads = threads.unwrap_or_else(rayon::current_num_threads);
    let whence = if in_memory { " (where an in-memory count that outgrows its limit goes on)" } else { "" };
    bail!(
        "--mem-limit {} is too small to count out of core{whence}: the store's buffers for {} on {} need more; \
         raise --mem-limit to at least {}, or lower --buckets",
        bytes(mem_limit),
        counted(buckets, "bucket", "buckets"),
        counted(threads, "thread", "threads"),
        bytes(least)
    )
}
