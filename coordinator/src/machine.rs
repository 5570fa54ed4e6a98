//! What this machine offers a count besides its memory (`memory.rs`): threads to run on, and
//! free disk.
//!
//! A leaf, like `numbers.rs`: it imports nothing of the crate, so that the runners (`sweep`),
//! the memory checks, the plan and the preflight checks all borrow from it without
//! importing one another.

use std::path::Path;

use anyhow::{Context, Result};

/// Runs `work` on `threads` threads (default: all cores), inside the caller's tracing span.
pub fn with_threads<T: Send>(threads: Option<usize>, work: impl FnOnce() -> T + Send) -> Result<T> {
    let span = tracing::Span::current();
    let work = move || span.in_scope(work);
    Ok(match threads {
        Some(threads) => rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .context("could not start the worker threads")?
            .install(work),
        None => work(),
    })
}

/// Bytes free for an unprivileged user on the file system that holds `path` (or would: its
/// nearest existing ancestor), as statvfs(3) says; `None` where it cannot say.
pub fn free_disk(path: &Path) -> Option<u64> {
    let absolute = std::path::absolute(path).ok()?;
    let existing = absolute.ancestors().find(|dir| dir.exists())?;
    let stats = nix::sys::statvfs::statvfs(existing).ok()?;
    Some((stats.blocks_available() as u64).saturating_mul(stats.fragment_size() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_disk_is_read_for_paths_not_made_yet() {
        let free = free_disk(Path::new("/tmp/leaper-preflight-not-made/job"));
        assert!(free.is_some_and(|bytes| bytes > 0), "{free:?}");
    }
}
