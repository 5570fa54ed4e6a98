//! The instruction set the build assumes.
//!
//! `.cargo/config.toml` builds for x86-64-v3 (AVX2, BMI1, BMI2, LZCNT, FMA, MOVBE, F16C on top
//! of x86-64-v2's POPCNT and SSE4.2: every x86-64 CPU since Haswell, 2013, and AMD's Zen; the
//! frontier keys of a count are bit arithmetic). On a CPU without them the binary would die of
//! an illegal instruction somewhere in a count; [`check`] says so before anything runs, and how
//! to build for that CPU. `is_x86_feature_detected!` cannot tell (it answers from the build's
//! own features), so the check asks CPUID itself, for each feature the build was compiled with
//! (a build with other `RUSTFLAGS` checks what it uses).
//!
//! Example: on a Sandy Bridge (AVX, no AVX2 or BMI) this build says "this build of leaper needs
//! AVX2, BMI1, BMI2, FMA, F16C, LZCNT and MOVBE, which this CPU lacks: ...".

/// Where the CPU reports a feature: a bit of a CPUID register, or the OS's AVX state.
#[derive(Clone, Copy, Debug)]
enum Report {
    /// This bit of leaf 1's ECX.
    Leaf1Ecx(u32),
    /// This bit of leaf 7's (subleaf 0) EBX.
    Leaf7Ebx(u32),
    /// This bit of leaf 0x8000_0001's ECX.
    Extended1Ecx(u32),
    /// Not a CPUID bit: the operating system saves the AVX registers (OSXSAVE and XCR0).
    AvxState,
}

/// A feature the build may be compiled with: its name, whether this build uses it, and where
/// the CPU reports it.
struct Feature {
    name: &'static str,
    compiled: bool,
    report: Report,
}

/// Every feature of x86-64-v2 and v3 the build may assume.
const FEATURES: [Feature; 11] = [
    Feature { name: "SSE4.2", compiled: cfg!(target_feature = "sse4.2"), report: Report::Leaf1Ecx(20) },
    Feature { name: "POPCNT", compiled: cfg!(target_feature = "popcnt"), report: Report::Leaf1Ecx(23) },
    Feature { name: "AVX", compiled: cfg!(target_feature = "avx"), report: Report::Leaf1Ecx(28) },
    Feature { name: "AVX2", compiled: cfg!(target_feature = "avx2"), report: Report::Leaf7Ebx(5) },
    Feature { name: "BMI1", compiled: cfg!(target_feature = "bmi1"), report: Report::Leaf7Ebx(3) },
    Feature { name: "BMI2", compiled: cfg!(target_feature = "bmi2"), report: Report::Leaf7Ebx(8) },
    Feature { name: "FMA", compiled: cfg!(target_feature = "fma"), report: Report::Leaf1Ecx(12) },
    Feature { name: "F16C", compiled: cfg!(target_feature = "f16c"), report: Report::Leaf1Ecx(29) },
    Feature { name: "LZCNT", compiled: cfg!(target_feature = "lzcnt"), report: Report::Extended1Ecx(5) },
    Feature { name: "MOVBE", compiled: cfg!(target_feature = "movbe"), report: Report::Leaf1Ecx(22) },
    Feature {
        name: "AVX state saved by the operating system",
        compiled: cfg!(target_feature = "avx"),
        report: Report::AvxState,
    },
];

/// `Err` with a message naming what the CPU lacks, when it cannot run this build.
pub fn check() -> Result<(), String> {
    verdict(&missing(has))
}

/// What [`check`] says of a CPU that lacks `missing`.
fn verdict(missing: &[&str]) -> Result<(), String> {
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "this build of leaper needs {}, which this CPU lacks: rebuild it with \
         RUSTFLAGS=\"-C target-cpu=native\" (or remove .cargo/config.toml's target-cpu) to run here",
        names(missing)
    ))
}

/// The features this build was compiled with that `present` says the CPU lacks.
fn missing(present: impl Fn(&Feature) -> bool) -> Vec<&'static str> {
    FEATURES.iter().filter(|f| f.compiled && !present(f)).map(|f| f.name).collect()
}

/// "A", "A and B", "A, B and C".
fn names(list: &[&str]) -> String {
    match list {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Whether this CPU has `feature`, by CPUID.
#[cfg(target_arch = "x86_64")]
fn has(feature: &Feature) -> bool {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    let set = |value: u32, bit: u32| value >> bit & 1 == 1;
    match feature.report {
        Report::Leaf1Ecx(bit) => set(__cpuid(1).ecx, bit),
        Report::Leaf7Ebx(bit) => __cpuid(0).eax >= 7 && set(__cpuid_count(7, 0).ebx, bit),
        Report::Extended1Ecx(bit) => __cpuid(0x8000_0000).eax >= 0x8000_0001 && set(__cpuid(0x8000_0001).ecx, bit),
        Report::AvxState => os_saves_avx_state(),
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn has(_feature: &Feature) -> bool {
    true
}

/// Whether the operating system saves the SSE and AVX registers on a context switch (without
/// it AVX instructions fault): OSXSAVE in CPUID, then XCR0's bits 1 and 2.
#[cfg(target_arch = "x86_64")]
fn os_saves_avx_state() -> bool {
    const OSXSAVE: u32 = 1 << 27;
    if std::arch::x86_64::__cpuid(1).ecx & OSXSAVE == 0 {
        return false;
    }
    let (low, _high): (u32, u32);
    // SAFETY: XGETBV with ECX = 0 reads XCR0; OSXSAVE (checked above) says it may run. No memory
    // or stack is touched.
    unsafe {
        std::arch::asm!("xgetbv", in("ecx") 0u32, out("eax") low, out("edx") _high,
            options(nomem, nostack, preserves_flags));
    }
    low & 0b110 == 0b110
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_machine_runs_its_own_build() {
        assert_eq!(check(), Ok(()));
    }

    #[test]
    fn a_cpu_without_a_compiled_feature_is_told_which() {
        let compiled: Vec<&str> = FEATURES.iter().filter(|f| f.compiled).map(|f| f.name).collect();
        // Every compiled feature missing: all named, in the table's order.
        assert_eq!(missing(|_| false), compiled);
        // One missing: that one alone.
        if let Some(&first) = compiled.first() {
            assert_eq!(missing(|f| f.name != first), vec![first]);
        }
        assert!(missing(|_| true).is_empty());
    }

    #[test]
    fn the_message_names_what_is_missing_and_the_way_out() {
        assert_eq!(verdict(&[]), Ok(()));
        let message = verdict(&["AVX2", "BMI2"]).unwrap_err();
        assert!(message.starts_with("this build of leaper needs AVX2 and BMI2, which this CPU lacks"), "{message}");
        assert!(message.contains("RUSTFLAGS=\"-C target-cpu=native\""), "{message}");
    }

    #[test]
    fn lists_read_as_sentences() {
        assert_eq!(names(&["AVX2"]), "AVX2");
        assert_eq!(names(&["AVX2", "BMI1"]), "AVX2 and BMI1");
        assert_eq!(names(&["AVX2", "BMI1", "LZCNT"]), "AVX2, BMI1 and LZCNT");
    }
}
