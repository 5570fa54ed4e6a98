//! Peak resident memory of this process, for progress logs and benchmarks.

/// The high-water mark of resident memory (VmHWM) in bytes, where the OS reports it.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// 80% of physical memory (MemTotal), or 8 GiB where the OS does not say.
pub fn default_in_memory_limit() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| {
        let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    });
    total.map_or(8 << 30, |kib| kib * 1024 / 5 * 4)
}
