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

/// Parses `1024`, `512KiB`, `2GiB`, `3G`, `1.5GB` (binary and decimal units).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let value: f64 = number.parse().map_err(|_| format!("{text:?} is not a size such as 2GiB or 512MiB"))?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "kb" => 1e3,
        "m" | "mib" => 1024.0 * 1024.0,
        "mb" => 1e6,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "gb" => 1e9,
        "t" | "tib" => 1024f64.powi(4),
        "tb" => 1e12,
        other => return Err(format!("unknown size unit {other:?} in {text:?}: use B, KiB, MiB, GiB or TiB")),
    };
    let bytes = value * scale;
    if !(1.0..1.8e19).contains(&bytes) {
        return Err(format!("{text:?} is not a usable size"));
    }
    Ok(bytes as u64)
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
