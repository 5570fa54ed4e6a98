//! The process's memory as the operating system sees it.
//!
//! A count's layers live in large allocations (a bucket's table at a large count's peak) that
//! grow and are freed every step. glibc serves allocations past its mmap threshold with
//! their own mappings and unmaps them when freed, but it *raises* that threshold (up to 32 MiB)
//! each time such a mapping is freed, after which allocations of that size come from the heap and
//! their pages stay with the process when freed. So the resident size can outgrow the layers by
//! far: a count within its limit by its own accounting was killed by the kernel
//! (docs/PERFORMANCE-LOG.md, "`leaper knight 8x8` in memory with exact 64-bit counts").
//! [`return_large_frees`] fixes the threshold, and [`resident_bytes`] lets the in-memory store
//! check what is really resident.

/// The size from which an allocation is a mapping of its own ([`return_large_frees`]): its
/// pages are taken as they are first touched and go back to the OS when it is freed. A smaller
/// one comes from the allocator's heaps, whose freed pages stay with the process for the next
/// allocations: a store that must give memory back sizes its large arrays at least this.
pub const OWN_MAPPING_BYTES: usize = 1 << 20;

/// Makes allocations of [`OWN_MAPPING_BYTES`] and more their own mappings, returned to the OS
/// when freed. Called once when a binary starts.
pub fn return_large_frees() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; no allocation is in flight.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, OWN_MAPPING_BYTES as libc::c_int);
        // Below the threshold, up to 8 MiB freed at the top of a heap stays with it: the
        // out-of-core store frees and takes again a few hundred KiB a bucket (blocks, their
        // encodings), and trimming each time made the kernel unmap, flush the other cores'
        // TLBs and zero the pages again (docs/PERFORMANCE-LOG.md, "Allocator trimming").
        libc::mallopt(libc::M_TRIM_THRESHOLD, 8 << 20);
    }
}

/// Asks for 2 MiB pages behind `memory` (Linux, transparent huge pages in `madvise` mode), to be
/// called before its pages are first touched. Why: a table of the next layer is probed at random
/// over gigabytes, and with 4 KiB pages nearly every probe also misses the TLB and walks the page
/// tables; a 2 MiB page covers 512 times as much. A hint: where the kernel declines, nothing
/// changes.
pub fn advise_huge_pages(memory: &mut [u64]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = memory.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(memory);
        let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if last > first {
            // SAFETY: the range lies inside `memory`, which this process owns; MADV_HUGEPAGE
            // changes how its pages are backed, never their contents.
            unsafe {
                libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

/// Bytes resident in RAM now (VmRSS), or `None` where the OS does not say. Read from
/// `/proc/self/statm`, a line of seven numbers: the in-memory store asks at every step, and
/// `/proc/self/status`, fifty formatted lines, cost a sweep of many small steps (a graph's
/// 100,000 vertices) a fifth of its time.
pub fn resident_bytes() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
        let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
        // SAFETY: sysconf only reads a system parameter.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(page).ok().map(|page| pages * page)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// The high-water mark of resident memory (VmHWM) in bytes, or `None` where the OS does not say.
/// (Not `getrusage`'s `ru_maxrss`: after `exec` it keeps the peak of the process that forked,
/// a test harness's or a script's.)
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    /// A `kB` field of `/proc/self/status`, in bytes: what the cheaper reads are checked against.
    #[cfg(target_os = "linux")]
    fn status_bytes(field: &str) -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|line| line.starts_with(field)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_resident_size_is_read_and_below_its_peak() {
        let now = super::resident_bytes().expect("Linux reports VmRSS");
        let peak = super::peak_resident_bytes().expect("Linux reports VmHWM");
        assert!(now > 0 && now <= peak, "{now} {peak}");
        // The same figure as /proc/self/status gives (the resident size moves a little between
        // the reads: other tests run on other threads).
        let status_now = status_bytes("VmRSS:");
        assert!(now.abs_diff(status_now) <= status_now / 10, "statm {now}, status {status_now}");
    }
}
