//! Bounds on what a command line may ask for, checked when it is parsed: a request past them
//! could only exhaust the machine, never finish sooner.

/// The most threads a process runs: far more than any machine's cores, few enough that a typo
/// (`--threads 100000`) is refused instead of spawning threads until memory runs out.
pub const MAX_THREADS: usize = 1024;

/// Parses `--threads N`, 1 to [`MAX_THREADS`].
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let threads: usize = text.trim().parse().map_err(|_| format!("{text:?} is not a number of threads"))?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads == 0 || threads > MAX_THREADS {
        return Err(format!(
            "{threads} threads: give 1 to {MAX_THREADS} (this machine has {cores} cores; leave --threads out to use \
             them all)"
        ));
    }
    Ok(threads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_bounded() {
        assert_eq!(parse_threads("4"), Ok(4));
        assert!(parse_threads("0").is_err());
        assert!(parse_threads("100000").unwrap_err().contains("give 1 to 1024"));
        assert!(parse_threads("many").is_err());
    }
}
