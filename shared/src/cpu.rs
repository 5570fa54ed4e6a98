//! The instruction set the build assumes.
//!
//! `.cargo/config.toml` builds for x86-64-v2 (POPCNT and SSE4.2; the frontier keys of a count
//! are bit arithmetic). On a CPU without them the binary would die of an illegal instruction
//! somewhere in a count; [`check`] says so before anything runs. `is_x86_feature_detected!`
//! cannot tell (it answers from the build's own features), so the check asks CPUID itself.

/// `Err` with a message naming what the CPU lacks, when it cannot run this build.
pub fn check() -> Result<(), String> {
    #[cfg(all(target_arch = "x86_64", target_feature = "popcnt"))]
    {
        // CPUID leaf 1, ECX: bit 20 SSE4.2, bit 23 POPCNT.
        let ecx = std::arch::x86_64::__cpuid(1).ecx;
        let missing: Vec<&str> = [(20, "SSE4.2"), (23, "POPCNT")]
            .into_iter()
            .filter(|&(bit, _)| ecx & (1 << bit) == 0)
            .map(|(_, n)| n)
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "this build of leaper needs an x86-64-v2 CPU and this one lacks {}: rebuild it with \
                 RUSTFLAGS=\"-C target-cpu=native\" (or remove .cargo/config.toml's target-cpu) to run here",
                missing.join(" and ")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_build_machine_runs_its_own_build() {
        assert_eq!(super::check(), Ok(()));
    }
}
