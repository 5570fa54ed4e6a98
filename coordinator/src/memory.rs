//! The machine's memory, for the in-memory default limit (the process's own resident size is
//! `leaper_core::heap`'s).

/// 80% of physical memory (MemTotal), or 8 GiB where the OS does not say.
pub fn default_in_memory_limit() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| {
        let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    });
    total.map_or(8 << 30, |kib| kib * 1024 / 5 * 4)
}
