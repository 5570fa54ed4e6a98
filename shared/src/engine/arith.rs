//! Exact counts from residues.
//!
//! The transfer matrix only ever *adds* counts (a state passes its count on to each successor),
//! so a count is carried as its residues modulo several 64-bit moduli: `2^64` itself and the
//! primes just below it. Addition is one add and one compare per modulus, and the Chinese
//! remainder theorem turns the residues into the exact integer at the end (with `rug`).
//!
//! # How many moduli
//!
//! The residues determine a count `H` exactly when the product `M` of the moduli exceeds `H`.
//! Every problem bounds its counts before counting ([`crate::engine::Transition::bound_bits`];
//! for tours, a permanent bound, see `problems::tours::bound`), and [`Moduli::covering`] takes
//! the fewest moduli whose exact product exceeds `2^bits`.
//!
//! `--verify` adds one spare modulus: the count reconstructed from the others must agree with
//! the spare residue, which catches a wrong bound, an arithmetic bug or a flipped bit.
//!
//! # Exact 64-bit counts first
//!
//! Bounds are loose: the 8x8 knight's bound is about `2^118`, so it takes two moduli (16 bytes
//! per state), while its count, 13267364410532, and every count on the way fit in 64 bits. So a
//! sweep whose bound needs more than one modulus first counts with one *saturating* lane
//! ([`SATURATING`]): exact 64-bit integers, where a sum that would reach `2^64 - 1` stays there.
//! Saturation is sticky, since counts are only ever added: `2^64 - 1` plus anything is
//! `2^64 - 1`. So a final count below `2^64 - 1` was never touched by a saturated state and is
//! exact; a count stuck at `2^64 - 1` is unknown, and the sweep counts again modulo the moduli the
//! bound asks for (the residue route). Example with 4-bit lanes (saturating at 15): 9 + 5 = 14 is
//! exact; 9 + 7 = 15 is stuck, and so is 15 + 0 later on, whatever the true sum.

use rug::Integer;

use crate::error::{Error, Result};

/// The most moduli a count carries: counts up to about `2^65000`. A board whose bound needs more
/// is refused before any work (planning it would take longer than counting anything real).
pub const MAX_MODULI: usize = 1024;

/// The stored value of the saturating lane: exact counts below `2^64 - 1`, and `2^64 - 1` for
/// "at least that" (see the module's docs). It is no modulus: it stands alone in its pass.
pub const SATURATING: u64 = u64::MAX;

/// A set of pairwise coprime moduli: `2^64` (stored as 0) followed by primes below `2^64`; or,
/// for the exact 64-bit pass, the one [`SATURATING`] lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moduli {
    values: Vec<u64>,
}

/// The primes below 2^64 used as moduli, largest first (the test `moduli_are_prime` checks them).
/// Generated once with `rug`'s primality test, listed here so startup costs nothing.
const PRIMES_BELOW_2_64: [u64; 24] = [
    u64::MAX - 58,
    u64::MAX - 82,
    u64::MAX - 94,
    u64::MAX - 178,
    u64::MAX - 188,
    u64::MAX - 256,
    u64::MAX - 278,
    u64::MAX - 322,
    u64::MAX - 352,
    u64::MAX - 362,
    u64::MAX - 424,
    u64::MAX - 452,
    u64::MAX - 502,
    u64::MAX - 742,
    u64::MAX - 824,
    u64::MAX - 842,
    u64::MAX - 844,
    u64::MAX - 896,
    u64::MAX - 898,
    u64::MAX - 934,
    u64::MAX - 944,
    u64::MAX - 1022,
    u64::MAX - 1024,
    u64::MAX - 1076,
];

impl Moduli {
    /// The first `count` moduli of the fixed sequence `2^64, p1, p2, ...`.
    pub fn first(count: usize) -> Result<Self> {
        let mut values = vec![0u64];
        values.extend(Self::primes(count.saturating_sub(1))?);
        values.truncate(count);
        Ok(Moduli { values })
    }

    fn primes(count: usize) -> Result<Vec<u64>> {
        let mut primes: Vec<u64> = PRIMES_BELOW_2_64.iter().copied().take(count).collect();
        // Counts beyond ~2^1600 need more moduli than listed: find them the slow way.
        let mut candidate = *primes.last().unwrap_or(&u64::MAX);
        while primes.len() < count {
            candidate = candidate
                .checked_sub(2)
                .ok_or_else(|| Error::InvalidRequest("more moduli requested than exist below 2^64".into()))?;
            if Integer::from(candidate).is_probably_prime(40) != rug::integer::IsPrime::No {
                primes.push(candidate);
            }
        }
        Ok(primes)
    }

    /// The fewest moduli whose product exceeds `2^bits`, plus `spare` more for verification.
    /// Refuses (at once, before any work) a bound that would need more than [`MAX_MODULI`].
    pub fn covering(bits: f64, spare: usize) -> Result<Self> {
        let bits = bits.max(0.0).ceil();
        // Every modulus exceeds 2^63, so `bits / 63 + 1` of them always cover the bound.
        let enough = (bits / 63.0) as usize + 1;
        if enough + spare > MAX_MODULI {
            return Err(Error::InvalidRequest(format!(
                "an exact count here may need up to {bits} bits, more than the {MAX_MODULI} moduli of 64 bits leaper \
                 carries per state: count a smaller board"
            )));
        }
        let candidates = Self::first(enough + spare)?;
        let needed = Integer::from(1) << bits as u32;
        let mut product = Integer::from(1);
        let mut count = 0;
        while product <= needed {
            product *= candidates.modulus(count);
            count += 1;
        }
        Self::first(count + spare)
    }

    /// The one lane of exact 64-bit counts, saturating at `2^64 - 1`.
    pub fn saturating() -> Self {
        Moduli { values: vec![SATURATING] }
    }

    /// Whether this is the exact 64-bit lane rather than residues.
    pub fn is_saturating(&self) -> bool {
        self.values == [SATURATING]
    }

    pub fn from_values(values: Vec<u64>) -> Self {
        Moduli { values }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// The modulus as an integer (`2^64` for the stored 0).
    pub fn modulus(&self, i: usize) -> Integer {
        match self.values[i] {
            0 => Integer::from(1) << 64,
            m => Integer::from(m),
        }
    }

    pub fn product(&self) -> Integer {
        (0..self.len()).fold(Integer::from(1), |acc, i| acc * self.modulus(i))
    }

    /// Split into consecutive groups of at most `per_pass` moduli (one counting pass each).
    pub fn passes(&self, per_pass: usize) -> Vec<Moduli> {
        self.values.chunks(per_pass.max(1)).map(|c| Moduli { values: c.to_vec() }).collect()
    }

    /// `dst += src`, residue by residue.
    #[inline]
    pub fn add_assign(&self, dst: &mut [u64], src: &[u64]) {
        for ((d, &s), &m) in dst.iter_mut().zip(src).zip(&self.values) {
            *d = add_mod(*d, s, m);
        }
    }

    /// The residues of 1.
    pub fn one(&self) -> Vec<u64> {
        vec![1; self.len()]
    }

    /// The unique integer in `[0, product)` with these residues.
    pub fn reconstruct(&self, residues: &[u64]) -> Integer {
        assert_eq!(residues.len(), self.len());
        // Garner-free CRT: x = sum r_i * (M/m_i) * ((M/m_i)^-1 mod m_i) mod M.
        let total = self.product();
        let mut x = Integer::new();
        for (i, &r) in residues.iter().enumerate() {
            let m = self.modulus(i);
            let rest = Integer::from(&total / &m);
            let inverse = Integer::from(&rest % &m).invert(&m).expect("moduli are pairwise coprime");
            x += Integer::from(r) * rest * inverse;
        }
        x % total
    }

    /// `value mod m_i`, in the stored form.
    pub fn residue_of(&self, value: &Integer, i: usize) -> u64 {
        (value % self.modulus(i)).to_u64().expect("a residue is below 2^64")
    }
}

/// `(a + b) mod m`, where `m = 0` stands for `2^64`; for `m` = [`SATURATING`], `a + b` capped
/// at `2^64 - 1`.
#[inline(always)]
pub fn add_mod(a: u64, b: u64, m: u64) -> u64 {
    let (sum, carry) = a.overflowing_add(b);
    if m == SATURATING {
        if carry {
            SATURATING
        } else {
            sum
        }
    } else if m != 0 && (carry || sum >= m) {
        sum.wrapping_sub(m)
    } else {
        sum
    }
}

/// An exact count reconstructed from residues, checked against the spare moduli when present.
///
/// `moduli` are those of the passes that ran, `residues` their values in order. A leading
/// [`SATURATING`] lane gives the count when it is below `2^64 - 1`; when residues follow it (the
/// sweep fell back to them for another count), they must agree with it.
pub fn exact_count(moduli: &Moduli, residues: &[u64], spare: usize, board: &str) -> Result<Integer> {
    if moduli.values().first() == Some(&SATURATING) {
        let rest = Moduli::from_values(moduli.values()[1..].to_vec());
        if residues[0] == SATURATING {
            if rest.is_empty() {
                return Err(Error::Bug(format!(
                    "{board}: the exact 64-bit count saturated and no residues were counted"
                )));
            }
            return exact_count(&rest, &residues[1..], spare, board);
        }
        let exact = Integer::from(residues[0]);
        if !rest.is_empty() {
            let crt = exact_count(&rest, &residues[1..], spare, board)?;
            if crt != exact {
                return Err(Error::Bug(format!(
                    "{board}: the exact 64-bit count {exact} and the residues' {crt} disagree; this is a bug or a \
                     hardware fault, do not publish this count"
                )));
            }
        }
        return Ok(exact);
    }
    let used = moduli.len() - spare;
    let primary = Moduli::from_values(moduli.values()[..used].to_vec());
    let value = primary.reconstruct(&residues[..used]);
    for (i, &expected) in residues.iter().enumerate().skip(used) {
        let got = moduli.residue_of(&value, i);
        if got != expected {
            return Err(Error::VerificationFailed {
                board: board.to_string(),
                moduli: used,
                value: value.to_string(),
                spare: moduli.values()[i],
                expected,
                got,
            });
        }
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::ops::Pow;

    #[test]
    fn moduli_are_prime_and_descending() {
        let mut previous = u64::MAX;
        for &p in &PRIMES_BELOW_2_64 {
            assert!(p < previous);
            assert_ne!(Integer::from(p).is_probably_prime(50), rug::integer::IsPrime::No, "{p}");
            previous = p;
        }
        // No prime was skipped between the listed ones.
        for candidate in (PRIMES_BELOW_2_64[PRIMES_BELOW_2_64.len() - 1]..u64::MAX).step_by(2) {
            if Integer::from(candidate).is_probably_prime(50) != rug::integer::IsPrime::No {
                assert!(PRIMES_BELOW_2_64.contains(&candidate), "missing prime {candidate}");
            }
        }
        // Beyond the list, primes are found on demand.
        let many = Moduli::first(30).unwrap();
        assert_eq!(many.len(), 30);
        assert!(many.values()[25] < many.values()[24]);
    }

    #[test]
    fn covering_takes_the_fewest_moduli_and_refuses_absurd_bounds() {
        for bits in [0.0, 1.0, 63.0, 64.0, 127.9, 128.0, 1000.0, 5000.5] {
            let moduli = Moduli::covering(bits, 0).unwrap();
            let needed = Integer::from(1) << bits.ceil() as u32;
            assert!(moduli.product() > needed, "{bits}");
            let fewer = Moduli::first(moduli.len() - 1).unwrap();
            assert!(moduli.len() == 1 || fewer.product() <= needed, "{bits}: one modulus too many");
            assert_eq!(Moduli::covering(bits, 1).unwrap().len(), moduli.len() + 1);
        }
        let error = Moduli::covering(2e6, 0).unwrap_err().to_string();
        assert!(error.contains("2000000 bits") && error.contains("smaller board"), "{error}");
    }

    #[test]
    fn add_mod_wraps() {
        let p = PRIMES_BELOW_2_64[0];
        assert_eq!(add_mod(p - 1, 1, p), 0);
        assert_eq!(add_mod(p - 1, p - 1, p), p - 2);
        assert_eq!(add_mod(u64::MAX, 2, 0), 1);
        assert_eq!(add_mod(u64::MAX - 2, 1, SATURATING), u64::MAX - 1);
        assert_eq!(add_mod(u64::MAX - 2, 2, SATURATING), SATURATING);
        assert_eq!(add_mod(u64::MAX - 2, 3, SATURATING), SATURATING);
        assert_eq!(add_mod(SATURATING, 0, SATURATING), SATURATING);
        assert_eq!(add_mod(SATURATING, SATURATING, SATURATING), SATURATING);
    }

    #[test]
    fn the_saturating_lane_gives_exact_counts_below_its_cap_and_defers_to_residues_above() {
        let residues = Moduli::first(3).unwrap();
        let mut lanes = vec![SATURATING];
        lanes.extend(residues.values());
        let lanes = Moduli::from_values(lanes);
        let small = Integer::from(13267364410532u64);
        let big: Integer = Integer::from(1) << 100;
        let of = |value: &Integer, lane: u64| -> Vec<u64> {
            std::iter::once(lane).chain((0..3).map(|i| residues.residue_of(value, i))).collect()
        };
        // Alone, or checked against residues that agree.
        assert_eq!(exact_count(&Moduli::saturating(), &[12345], 0, "t").unwrap(), 12345);
        assert_eq!(exact_count(&lanes, &of(&small, 13267364410532), 0, "t").unwrap(), small);
        // Saturated: the residues decide; saturated with none counted is a bug, not a count.
        assert_eq!(exact_count(&lanes, &of(&big, SATURATING), 0, "t").unwrap(), big);
        assert!(exact_count(&Moduli::saturating(), &[SATURATING], 0, "t").is_err());
        // A lane that disagrees with the residues is caught.
        assert!(exact_count(&lanes, &of(&small, 13267364410531), 0, "t").is_err());
    }

    #[test]
    fn crt_round_trips_big_numbers() {
        let moduli = Moduli::first(7).unwrap();
        let value: Integer = Integer::from(3).pow(230) + 12345; // about 2^365, below 2^64 * p1...p5
        assert!(value < Moduli::first(6).unwrap().product());
        let residues: Vec<u64> = (0..7).map(|i| moduli.residue_of(&value, i)).collect();
        assert_eq!(moduli.reconstruct(&residues), value);
        assert_eq!(exact_count(&moduli, &residues, 1, "test").unwrap(), value);
        let mut wrong = residues.clone();
        wrong[2] ^= 1;
        assert!(exact_count(&moduli, &wrong, 1, "test").is_err());
    }
}
