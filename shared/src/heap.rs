//! The process's memory as the operating system sees it.
//!
//! A count's layers live in large allocations (a bucket's table is tens of MiB at the 8x8 peak)
//! that grow and are freed every step. glibc serves allocations past its mmap threshold with
//! their own mappings and unmaps them when freed, but it *raises* that threshold (up to 32 MiB)
//! each time such a mapping is freed, after which allocations of that size come from the heap and
//! their pages stay with the process when freed. The 8x8 knight count held 16 GB of layers by its
//! own accounting and was killed by the kernel at 24 GB resident. [`return_large_frees`] fixes
//! the threshold, and [`resident_bytes`] lets the in-memory store check what is really resident.

/// Makes allocations of 1 MiB and more their own mappings, returned to the OS when freed.
/// Called once when a binary starts.
pub fn return_large_frees() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; no allocation is in flight.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// Bytes resident in RAM now (VmRSS), or `None` where the OS does not say.
pub fn resident_bytes() -> Option<u64> {
    status_bytes("VmRSS:")
}

/// The high-water mark of resident memory (VmHWM) in bytes, or `None` where the OS does not say.
pub fn peak_resident_bytes() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// A `kB` field of `/proc/self/status` (Linux), in bytes.
fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn the_resident_size_is_read_and_below_its_peak() {
        let now = super::resident_bytes().expect("Linux reports VmRSS");
        let peak = super::peak_resident_bytes().expect("Linux reports VmHWM");
        assert!(now > 0 && now <= peak, "{now} {peak}");
    }
}
