//! Scattering and gathering bits: PDEP and PEXT where the CPU does them fast, shifts elsewhere.
//!
//! The frontier keys of a count (`hamiltonian::frontier`) spread a mask of window cells to
//! every other bit, gather it back, and find the `r`-th set bit of a mask, for every state and
//! successor. BMI2's PDEP and PEXT do each in one instruction; the portable versions take a
//! dozen shifts and masks, or a loop that mispredicts, and a whole count is measurably faster
//! with the instructions (docs/PERFORMANCE-LOG.md, "PDEP and PEXT where they are fast").
//!
//! The build targets x86-64-v3, which has BMI2, but AMD's Zen 1 and Zen 2 run PDEP and PEXT in
//! microcode (a cycle or more per bit of the mask, slower than the shifts), so the choice is
//! made at run time: [`BitOps::detect`] asks CPUID once. The instructions are written as inline
//! assembly, which inlines into any function and into a build for any instruction set (an
//! intrinsic needs the feature enabled on its caller), behind a branch on a flag that never
//! changes: both routes give the same bits.
//!
//! Worked example: `spread_even(0b1011) = 0b01_00_01_01` (bit `i` to bit `2i`),
//! `gather_even` undoes it, and `select(0b1011_0100, 2) = 5` (set bits at 2, 4, 5, 7).

use std::sync::OnceLock;

/// Which route the bit operations take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitOps {
    pdep: bool,
}

const EVEN: u64 = 0x5555_5555_5555_5555;

impl BitOps {
    /// PDEP and PEXT where this CPU has them fast, shifts elsewhere (asked once a process).
    pub fn detect() -> Self {
        static FAST: OnceLock<bool> = OnceLock::new();
        BitOps { pdep: *FAST.get_or_init(fast_pdep) }
    }

    /// The portable route on every CPU (tests compare the two).
    pub const fn portable() -> Self {
        BitOps { pdep: false }
    }

    /// Moves bit `i` of the low 32 bits of `x` to bit `2i`.
    #[inline(always)]
    pub fn spread_even(self, x: u64) -> u64 {
        if self.pdep {
            return pdep(x, EVEN);
        }
        let mut x = x & 0xFFFF_FFFF;
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
        x = (x | (x << 2)) & 0x3333_3333_3333_3333;
        (x | (x << 1)) & EVEN
    }

    /// The inverse of [`spread_even`](Self::spread_even): bit `2i` of `x` to bit `i`.
    #[inline(always)]
    pub fn gather_even(self, x: u64) -> u64 {
        if self.pdep {
            return pext(x, EVEN);
        }
        let mut x = x & EVEN;
        x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
        x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
        x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
        x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
        (x | (x >> 16)) & 0xFFFF_FFFF
    }

    /// Deposits the low bits of `x`, in order, at the set bits of `mask` (PDEP). Worked example:
    /// `deposit(0b101, 0b1101_0000) = 0b1001_0000`.
    #[inline(always)]
    pub fn deposit(self, x: u64, mask: u64) -> u64 {
        if self.pdep {
            return pdep(x, mask);
        }
        if mask & mask.wrapping_add(1) == 0 {
            // The low bits, in place (every mask of a plain window): no loop.
            return x & mask;
        }
        let (mut out, mut rest, mut i) = (0, mask, 0);
        while rest != 0 {
            let low = rest & rest.wrapping_neg();
            out |= low & ((x >> i) & 1).wrapping_neg();
            rest ^= low;
            i += 1;
        }
        out
    }

    /// The inverse of [`deposit`](Self::deposit): the bits of `x` at the set bits of `mask`,
    /// packed into the low bits in order (PEXT).
    #[inline(always)]
    pub fn extract(self, x: u64, mask: u64) -> u64 {
        if self.pdep {
            return pext(x, mask);
        }
        if mask & mask.wrapping_add(1) == 0 {
            return x & mask;
        }
        let (mut out, mut rest, mut i) = (0, mask, 0);
        while rest != 0 {
            let low = rest & rest.wrapping_neg();
            out |= u64::from(x & low != 0) << i;
            rest ^= low;
            i += 1;
        }
        out
    }

    /// The position of the `rank`-th set bit (from 0) of `mask`, which has more than `rank`.
    #[inline(always)]
    pub fn select(self, mut mask: u64, rank: u32) -> usize {
        debug_assert!(mask.count_ones() > rank);
        if self.pdep {
            return pdep(1 << rank, mask).trailing_zeros() as usize;
        }
        for _ in 0..rank {
            mask &= mask - 1;
        }
        mask.trailing_zeros() as usize
    }
}

/// Whether PDEP and PEXT are there and fast: BMI2, on any CPU but AMD's before Zen 3 (family
/// 0x19; Zen 1 and 2, and Hygon's Zen 1, are families 0x17 and 0x18).
fn fast_pdep() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__cpuid, __cpuid_count};
        let vendor = __cpuid(0);
        if vendor.eax < 7 {
            return false;
        }
        let bmi2 = __cpuid_count(7, 0).ebx & (1 << 8) != 0;
        // "AuthenticAMD" and "HygonGenuine", by the vendor string's first register.
        let amd_like = vendor.ebx == u32::from_le_bytes(*b"Auth") || vendor.ebx == u32::from_le_bytes(*b"Hygo");
        let eax = __cpuid(1).eax;
        let base = (eax >> 8) & 0xF;
        let family = if base == 0xF { base + ((eax >> 20) & 0xFF) } else { base };
        bmi2 && !(amd_like && family < 0x19)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[inline(always)]
fn pdep(x: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let out: u64;
        // SAFETY: reached only where `fast_pdep` found BMI2; no memory or stack is touched.
        unsafe {
            std::arch::asm!("pdep {out}, {x}, {mask}", out = lateout(reg) out, x = in(reg) x,
                mask = in(reg) mask, options(pure, nomem, nostack, preserves_flags));
        }
        out
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        unreachable!("PDEP is chosen only on x86-64 ({x:#x}, {mask:#x})")
    }
}

#[inline(always)]
fn pext(x: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let out: u64;
        // SAFETY: as for `pdep`.
        unsafe {
            std::arch::asm!("pext {out}, {x}, {mask}", out = lateout(reg) out, x = in(reg) x,
                mask = in(reg) mask, options(pure, nomem, nostack, preserves_flags));
        }
        out
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        unreachable!("PEXT is chosen only on x86-64 ({x:#x}, {mask:#x})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_worked_example() {
        for ops in [BitOps::portable(), BitOps::detect()] {
            assert_eq!(ops.spread_even(0b1011), 0b01_00_01_01);
            assert_eq!(ops.gather_even(0b01_00_01_01), 0b1011);
            assert_eq!(ops.select(0b1011_0100, 2), 5);
            assert_eq!(ops.deposit(0b101, 0b1101_0000), 0b1001_0000);
            assert_eq!(ops.extract(0b1001_0000, 0b1101_0000), 0b101);
        }
    }

    proptest! {
        /// Both routes give the same bits (where this CPU has fast PDEP; else both are portable).
        #[test]
        fn both_routes_agree(x in any::<u64>(), mask in 1u64.., rank in 0u32..64) {
            let (fast, portable) = (BitOps::detect(), BitOps::portable());
            prop_assert_eq!(fast.spread_even(x), portable.spread_even(x));
            prop_assert_eq!(fast.gather_even(x), portable.gather_even(x));
            prop_assert_eq!(portable.gather_even(portable.spread_even(x)), x & 0xFFFF_FFFF);
            let rank = rank % mask.count_ones();
            let at = portable.select(mask, rank);
            prop_assert_eq!(fast.select(mask, rank), at);
            prop_assert_eq!((mask & ((1 << at) - 1)).count_ones(), rank);
            prop_assert_eq!(mask >> at & 1, 1);
            prop_assert_eq!(fast.deposit(x, mask), portable.deposit(x, mask));
            prop_assert_eq!(fast.extract(x, mask), portable.extract(x, mask));
            let ones = mask.count_ones();
            let kept = if ones == 64 { x } else { x & ((1u64 << ones) - 1) };
            prop_assert_eq!(portable.extract(portable.deposit(x, mask), mask), kept);
            // A mask of low bits takes the portable route's shortcut.
            let low = u64::MAX >> (rank % 64);
            prop_assert_eq!(portable.deposit(x, low), fast.deposit(x, low));
            prop_assert_eq!(portable.extract(x, low), fast.extract(x, low));
        }
    }
}
