//! Exact counts: exact lanes, and residues when a count may pass them.
//!
//! The transfer matrix only ever *adds* counts (a state passes its count on to each successor),
//! so a count is carried in *lanes* of 64-bit words that add cheaply: an exact lane (the count
//! itself, in one word or two, saturating), or its residues modulo several 64-bit moduli (`2^64`
//! itself and the primes just below it). Addition is one add and one compare a word, and the
//! Chinese remainder theorem turns residues into the exact integer at the end (with `rug`).
//!
//! # How many moduli
//!
//! The residues determine a count `H` exactly when the product `M` of the moduli exceeds `H`.
//! Every problem bounds its counts before counting ([`crate::Transition::bound_bits`];
//! for tours, a permanent bound, see `hamiltonian::bound`), and [`Moduli::covering`] takes
//! the fewest moduli whose exact product exceeds `2^bits`.
//!
//! # Exact counts first
//!
//! Bounds are loose: the 8x8 knight's closed tours are bounded by about `2^88`, so they take two
//! moduli (16 bytes per state), while their count, 13267364410532, and every count on the way
//! fit in 64 bits. So a sweep whose bound needs more than one modulus first counts with one
//! *saturating* exact lane ([`ExactLane`]): exact integers, where a sum that would reach the
//! lane's cap (`2^64 - 1` in one word, `2^128 - 1` in two) stays there. Saturation is sticky,
//! since counts are only ever added: the cap plus anything is the cap. So a final count below
//! the cap was never touched by a saturated state and is exact; a count stuck at the cap is
//! unknown, and the sweep counts again modulo the moduli the bound asks for (the residue route).
//!
//! Example with 4-bit words (a one-word lane saturating at 15, a two-word lane at 255): 9 + 5 =
//! 14 is exact in one word; 9 + 7 = 15 is stuck, and so is 15 + 0 later on, whatever the true
//! sum. In two words, low word first, 9 + 7 = 16 is `(0, 1)`: an add of the low words whose
//! carry goes into the high words' add, then one compare for the cap. `(15, 15)` is the cap:
//! `(15, 14) + (1, 0)` reaches it and stays there.
//!
//! # Which lane
//!
//! A live state's count never exceeds the count of a slot it can close into (its partial
//! objects extend to distinct whole ones by any one completion), so the lane a sweep needs is
//! the one its largest *result* fits. The 64-bit lane serves counts below `2^64` (8 bytes a
//! state); the 128-bit lane ([`ExactLane::Bits128`], 16 bytes) those below `2^128`, which
//! covers counts that three moduli carried before (the 9 x 10 board's closed tours, about
//! `2^74`: 16 bytes where residues took 24, and one lane to add where they took three). Which
//! one a sweep takes is the driver's choice from the bound (`engine::sweep::CountRoute`), or
//! the user's (`--counts exact64|exact128`).
//!
//! # Checking an exact lane
//!
//! `--verify` adds one spare modulus to every pass. A residue pass's count reconstructed from
//! its other moduli must agree with the spare residue. An exact pass carries the spare prime's
//! residue beside its lane ([`Moduli::exact`]: 24 bytes a state with the 128-bit lane, where
//! four residues took 32), and the count, from the lane or, if the lane saturated, from the
//! residue passes, must agree with it. Either catches a wrong bound, an arithmetic bug or a
//! flipped bit.
//!
//! # Lanes as words
//!
//! A pass's lanes travel (records, checkpoints, the wire) as 64-bit values, one per word of
//! the record: `0` for the modulus `2^64`, a prime for itself, [`SATURATING`] for the exact
//! 64-bit lane, and [`SATURATING`] then [`EXACT_128_HIGH`] for the two words of the 128-bit
//! lane. Neither marker is a modulus (moduli are `2^64` or odd primes), so the values say
//! what the words mean: `[MAX]` (an exact pass of releases before the 128-bit lane), `[MAX,
//! MAX - 1, p]` (the 128-bit lane checked by the prime `p`), `[0, p1, p2]` (three residues).

use std::fmt;

use rug::Integer;

use crate::error::{Error, Result};

/// The most moduli a count carries: counts up to about `2^65000`. A board whose bound needs more
/// is refused before any work (planning it would take longer than counting anything real).
pub const MAX_MODULI: usize = 1024;

/// The value that names an exact lane's low word (see "Lanes as words" in the module's docs),
/// and the stored value of the 64-bit lane once saturated: exact counts below `2^64 - 1`, and
/// `2^64 - 1` for "at least that".
pub const SATURATING: u64 = u64::MAX;

/// The value that names the high word of the exact 128-bit lane, after its low word's
/// [`SATURATING`]: even, so never a modulus.
pub const EXACT_128_HIGH: u64 = u64::MAX - 1;

/// An exact lane: a count in one word or two (low word first), saturating at its cap (see the
/// module's docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExactLane {
    /// One word: counts below `2^64 - 1`.
    Bits64,
    /// Two words, low first: counts below `2^128 - 1`.
    Bits128,
}

impl ExactLane {
    /// Words a state the lane takes.
    pub const fn words(self) -> usize {
        match self {
            ExactLane::Bits64 => 1,
            ExactLane::Bits128 => 2,
        }
    }

    pub const fn bits(self) -> u32 {
        64 * self.words() as u32
    }

    /// The values that name the lane's words (see "Lanes as words").
    fn values(self) -> &'static [u64] {
        match self {
            ExactLane::Bits64 => &[SATURATING],
            ExactLane::Bits128 => &[SATURATING, EXACT_128_HIGH],
        }
    }

    /// Whether the lane's words (low first) hold its cap: a count that is not known.
    #[inline]
    pub fn is_saturated(self, words: &[u64]) -> bool {
        match self {
            ExactLane::Bits64 => words[0] == SATURATING,
            ExactLane::Bits128 => words[0] == u64::MAX && words[1] == u64::MAX,
        }
    }

    /// The count the lane's words hold, or `None` where it saturated.
    pub fn count(self, words: &[u64]) -> Option<Integer> {
        if self.is_saturated(words) {
            return None;
        }
        Some(match self {
            ExactLane::Bits64 => Integer::from(words[0]),
            ExactLane::Bits128 => Integer::from(words[0]) | (Integer::from(words[1]) << 64),
        })
    }
}

impl fmt::Display for ExactLane {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "exact {}-bit counts", self.bits())
    }
}

/// The lanes of a pass, one value per word of a record (see "Lanes as words"): residues
/// modulo pairwise coprime moduli (`2^64`, stored as 0, then primes below `2^64`); or an exact
/// lane, alone or followed by the residues of spare primes that check it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moduli {
    values: Vec<u64>,
    /// The exact lane the values start with, if any: what [`Moduli::add_assign`] adds first.
    exact: Option<ExactLane>,
}

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
        Ok(Moduli { values, exact: None })
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

    /// The lanes of an exact pass: `lane`, then the residues of `spare` primes (the largest
    /// below `2^64`) that check it (`--verify`).
    pub fn exact(lane: ExactLane, spare: usize) -> Result<Self> {
        let mut values = lane.values().to_vec();
        values.extend(Self::primes(spare)?);
        Ok(Moduli { values, exact: Some(lane) })
    }

    /// The one lane of exact 64-bit counts, saturating at `2^64 - 1`.
    pub fn saturating() -> Self {
        Moduli { values: vec![SATURATING], exact: Some(ExactLane::Bits64) }
    }

    /// The exact lane these lanes start with, if any.
    pub fn exact_lane(&self) -> Option<ExactLane> {
        self.exact
    }

    /// Lanes from their values, as a checkpoint or a peer sends them: an exact lane may only
    /// come first, and its markers mean nothing anywhere else (refused, naming the values).
    pub fn from_values(values: Vec<u64>) -> Result<Self> {
        let exact = match values.as_slice() {
            [SATURATING, EXACT_128_HIGH, ..] => Some(ExactLane::Bits128),
            [SATURATING, ..] => Some(ExactLane::Bits64),
            _ => None,
        };
        let residues = &values[exact.map_or(0, ExactLane::words)..];
        if residues.iter().any(|&value| value == SATURATING || value == EXACT_128_HIGH) {
            return Err(Error::InvalidRequest(format!(
                "{values:?} are no lanes of counts: an exact lane ({SATURATING}, or {SATURATING} then \
                 {EXACT_128_HIGH}) may only come first"
            )));
        }
        Ok(Moduli { values, exact })
    }

    /// The lanes of several passes one after another, as their counts are kept (an exact pass
    /// first, if any).
    pub fn concatenated(passes: &[Moduli]) -> Self {
        Moduli {
            values: passes.iter().flat_map(|pass| pass.values.iter().copied()).collect(),
            exact: passes.first().and_then(|pass| pass.exact),
        }
    }

    /// Words a state: the exact lane's and one per residue.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// Residues a state (the words after the exact lane).
    pub fn residues(&self) -> usize {
        self.len() - self.exact.map_or(0, ExactLane::words)
    }

    /// The modulus of residue word `i` as an integer (`2^64` for the stored 0).
    pub fn modulus(&self, i: usize) -> Integer {
        debug_assert!(i >= self.exact.map_or(0, ExactLane::words), "word {i} is an exact lane's");
        match self.values[i] {
            0 => Integer::from(1) << 64,
            m => Integer::from(m),
        }
    }

    /// The product of the moduli of residues alone.
    pub fn product(&self) -> Integer {
        debug_assert!(self.exact.is_none());
        (0..self.len()).fold(Integer::from(1), |acc, i| acc * self.modulus(i))
    }

    /// Split into consecutive groups of at most `per_pass` moduli (one counting pass each).
    pub fn passes(&self, per_pass: usize) -> Vec<Moduli> {
        debug_assert!(self.exact.is_none(), "an exact pass is never split");
        self.values.chunks(per_pass.max(1)).map(|c| Moduli { values: c.to_vec(), exact: None }).collect()
    }

    /// `dst += src`, lane by lane: the exact lane's one add (a carry between its two words and
    /// a compare for its cap), then a residue's add and compare per modulus. The kind of the
    /// lanes is one branch a call, the same at every call of a pass, so it is always predicted.
    #[inline]
    pub fn add_assign(&self, dst: &mut [u64], src: &[u64]) {
        let lane = match self.exact {
            None => 0,
            Some(ExactLane::Bits64) => {
                dst[0] = dst[0].saturating_add(src[0]);
                1
            }
            Some(ExactLane::Bits128) => {
                add_saturating_128(dst, src);
                2
            }
        };
        if dst.len() > lane {
            for ((d, &s), &m) in dst[lane..].iter_mut().zip(&src[lane..]).zip(&self.values[lane..]) {
                *d = add_mod(*d, s, m);
            }
        }
    }

    /// The lanes of a count of 1.
    pub fn one(&self) -> Vec<u64> {
        let mut one = vec![1; self.len()];
        if self.exact == Some(ExactLane::Bits128) {
            one[1] = 0;
        }
        one
    }

    /// Whether `lanes` (values of these lanes) hold an exact lane at its cap.
    pub fn is_saturated(&self, lanes: &[u64]) -> bool {
        self.exact.is_some_and(|lane| lane.is_saturated(lanes))
    }

    /// The unique integer in `[0, product)` with these residues (residues alone).
    pub fn reconstruct(&self, residues: &[u64]) -> Integer {
        assert_eq!(residues.len(), self.len());
        assert!(self.exact.is_none(), "an exact lane is no residue");
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

    /// `value mod m_i` for residue word `i`, in the stored form.
    pub fn residue_of(&self, value: &Integer, i: usize) -> u64 {
        (value % self.modulus(i)).to_u64().expect("a residue is below 2^64")
    }

    /// The lanes of an exact count `value`, below the exact lane's cap if there is one (tests).
    pub fn lanes_of(&self, value: &Integer) -> Vec<u64> {
        let words = self.exact.map_or(0, ExactLane::words);
        let low = Integer::from(value & u64::MAX).to_u64().expect("64 bits");
        let high = Integer::from(value >> 64u32).to_u64().unwrap_or(u64::MAX);
        let lane = [low, high];
        let residues = (words..self.len()).map(|i| self.residue_of(value, i));
        lane[..words].iter().copied().chain(residues).collect()
    }
}

impl fmt::Display for Moduli {
    /// What a pass carries, as messages name it: `exact 128-bit counts and 1 spare residue`,
    /// `3 residues`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let residues = self.residues();
        let plural = if residues == 1 { "" } else { "s" };
        match self.exact {
            Some(lane) if residues == 0 => write!(f, "{lane}"),
            Some(lane) => write!(f, "{lane} and {residues} spare residue{plural}"),
            None => write!(f, "{residues} residue{plural} ({:?})", self.values),
        }
    }
}

/// `dst[..2] += src[..2]` as 128-bit integers, low word first, capped at `2^128 - 1`: an add, an
/// add with carry and a compare (no loop, no branch).
#[inline(always)]
fn add_saturating_128(dst: &mut [u64], src: &[u64]) {
    let a = dst[0] as u128 | (dst[1] as u128) << 64;
    let b = src[0] as u128 | (src[1] as u128) << 64;
    let sum = a.saturating_add(b);
    dst[0] = sum as u64;
    dst[1] = (sum >> 64) as u64;
}

/// `(a + b) mod m`, where `m = 0` stands for `2^64`.
#[inline(always)]
pub fn add_mod(a: u64, b: u64, m: u64) -> u64 {
    let (sum, carry) = a.overflowing_add(b);
    if m != 0 && (carry || sum >= m) {
        sum.wrapping_sub(m)
    } else {
        sum
    }
}

/// An exact count from the lanes of the passes that ran, checked wherever two routes meet.
///
/// `lanes` are the passes' lanes one after another, `values` their values in order, `spare`
/// the spare moduli each pass carries (`--verify`: 1). A leading exact lane gives the count
/// when it is below its cap; when residue passes follow it (the sweep fell back to them for
/// another count), they must agree with it; and its pass's spare residues check the count
/// whichever route gave it.
pub fn exact_count(lanes: &Moduli, values: &[u64], spare: usize, board: &str) -> Result<Integer> {
    let Some(lane) = lanes.exact else {
        return count_of_residues(lanes, values, spare, board);
    };
    let (words, checked) = (lane.words(), lane.words() + spare);
    let exact = lane.count(&values[..words]);
    let rest = Moduli { values: lanes.values[checked..].to_vec(), exact: None };
    let from_residues =
        (!rest.is_empty()).then(|| count_of_residues(&rest, &values[checked..], spare, board)).transpose()?;
    let count = match (exact, from_residues) {
        (Some(exact), Some(crt)) if exact != crt => {
            return Err(Error::Bug(format!(
                "{board}: the {lane} gave {exact} and the residues {crt}; this is a bug or a hardware fault, do \
                 not publish this count"
            )));
        }
        (Some(exact), _) => exact,
        (None, Some(crt)) => crt,
        (None, None) => {
            return Err(Error::Bug(format!("{board}: the {lane} saturated and no residues were counted")));
        }
    };
    for i in words..checked {
        check_spare(lanes, values, i, &count, &format!("the {lane}"), board)?;
    }
    Ok(count)
}

/// The count reconstructed from residues (`lanes` without an exact lane), checked against the
/// last `spare` of them.
fn count_of_residues(lanes: &Moduli, residues: &[u64], spare: usize, board: &str) -> Result<Integer> {
    let used = lanes.len() - spare;
    let primary = Moduli { values: lanes.values[..used].to_vec(), exact: None };
    let value = primary.reconstruct(&residues[..used]);
    for i in used..lanes.len() {
        check_spare(lanes, residues, i, &value, &format!("the first {used} moduli"), board)?;
    }
    Ok(value)
}

/// Checks that `count` (from `route`) has the residue `values[i]` modulo residue word `i`.
fn check_spare(lanes: &Moduli, values: &[u64], i: usize, count: &Integer, route: &str, board: &str) -> Result<()> {
    let got = lanes.residue_of(count, i);
    if got != values[i] {
        return Err(Error::VerificationFailed {
            board: board.to_string(),
            route: route.to_string(),
            value: count.to_string(),
            spare: lanes.values[i],
            expected: values[i],
            got,
        });
    }
    Ok(())
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
    fn residues_wrap_and_exact_lanes_saturate_for_good() {
        let p = PRIMES_BELOW_2_64[0];
        assert_eq!(add_mod(p - 1, 1, p), 0);
        assert_eq!(add_mod(p - 1, p - 1, p), p - 2);
        assert_eq!(add_mod(u64::MAX, 2, 0), 1);
        let add = |lanes: &Moduli, a: &[u64], b: &[u64]| {
            let mut sum = a.to_vec();
            lanes.add_assign(&mut sum, b);
            sum
        };
        let narrow = Moduli::saturating();
        assert_eq!(add(&narrow, &[u64::MAX - 2], &[1]), [u64::MAX - 1]);
        assert_eq!(add(&narrow, &[u64::MAX - 2], &[2]), [SATURATING]);
        assert_eq!(add(&narrow, &[u64::MAX - 2], &[3]), [SATURATING]);
        assert_eq!(add(&narrow, &[SATURATING], &[0]), [SATURATING]);
        // Two words, low first: the carry crosses into the high word; the cap is both words full,
        // and stays (the module's example, in 64-bit words).
        let wide = Moduli::exact(ExactLane::Bits128, 1).unwrap();
        assert_eq!(add(&wide, &[u64::MAX, 0, 5], &[1, 0, 7]), [0, 1, 12]);
        assert_eq!(add(&wide, &[u64::MAX, 7, p - 1], &[u64::MAX, 0, 2]), [u64::MAX - 1, 8, 1]);
        assert_eq!(add(&wide, &[u64::MAX, u64::MAX - 1, 0], &[1, 0, 0]), [0, u64::MAX, 0]);
        assert_eq!(add(&wide, &[0, u64::MAX, 0], &[u64::MAX, 0, 0]), [u64::MAX, u64::MAX, 0]);
        assert!(wide.is_saturated(&[u64::MAX, u64::MAX, 0]));
        assert_eq!(add(&wide, &[u64::MAX, u64::MAX, 0], &[0, 0, 0])[..2], [u64::MAX, u64::MAX]);
        assert_eq!(add(&wide, &[5, u64::MAX, 0], &[0, 1, 0])[..2], [u64::MAX, u64::MAX]);
        assert!(!wide.is_saturated(&[u64::MAX, u64::MAX - 1, 0]) && !wide.is_saturated(&[u64::MAX - 1, u64::MAX, 0]));
        assert_eq!(wide.one(), [1, 0, 1]);
        assert_eq!(Moduli::exact(ExactLane::Bits64, 1).unwrap().one(), [1, 1]);
    }

    proptest::proptest! {
        #[test]
        fn the_wide_lane_adds_as_u128_and_its_spare_as_residues(a: u128, b: u128, x: u64, y: u64) {
            let lanes = Moduli::exact(ExactLane::Bits128, 1).unwrap();
            let p = PRIMES_BELOW_2_64[0];
            let (x, y) = (x % p, y % p);
            let mut sum = vec![a as u64, (a >> 64) as u64, x];
            lanes.add_assign(&mut sum, &[b as u64, (b >> 64) as u64, y]);
            let expected = a.saturating_add(b);
            proptest::prop_assert_eq!(sum[0] as u128 | (sum[1] as u128) << 64, expected);
            proptest::prop_assert_eq!(sum[2] as u128, (x as u128 + y as u128) % p as u128);
        }
    }

    #[test]
    fn lanes_read_from_values_say_what_their_words_mean_and_refuse_misplaced_markers() {
        let of = |values: &[u64]| Moduli::from_values(values.to_vec());
        let p = PRIMES_BELOW_2_64[0];
        // What releases before the 128-bit lane recorded reads as it did.
        assert_eq!(of(&[SATURATING]).unwrap(), Moduli::saturating());
        assert_eq!(of(&[0, p]).unwrap(), Moduli::first(2).unwrap());
        assert_eq!(of(&[SATURATING, EXACT_128_HIGH, p]).unwrap(), Moduli::exact(ExactLane::Bits128, 1).unwrap());
        assert_eq!(of(&[SATURATING, EXACT_128_HIGH]).unwrap().exact_lane(), Some(ExactLane::Bits128));
        assert_eq!(of(&[SATURATING, p]).unwrap().exact_lane(), Some(ExactLane::Bits64));
        for misplaced in [&[0, SATURATING][..], &[EXACT_128_HIGH], &[SATURATING, EXACT_128_HIGH, EXACT_128_HIGH]] {
            let error = of(misplaced).unwrap_err().to_string();
            assert!(error.contains("no lanes of counts") && error.contains("may only come first"), "{error}");
        }
        assert_eq!(
            Moduli::exact(ExactLane::Bits128, 1).unwrap().to_string(),
            "exact 128-bit counts and 1 spare residue"
        );
        assert_eq!(Moduli::saturating().to_string(), "exact 64-bit counts");
        assert_eq!(Moduli::first(2).unwrap().to_string(), format!("2 residues ([0, {p}])"));
        // The lanes of passes one after another keep the exact lane first.
        let passes = [Moduli::exact(ExactLane::Bits128, 1).unwrap(), Moduli::covering(130.0, 1).unwrap()];
        let all = Moduli::concatenated(&passes);
        assert_eq!((all.len(), all.exact_lane(), all.residues()), (7, Some(ExactLane::Bits128), 5));
    }

    #[test]
    fn an_exact_lane_gives_counts_below_its_cap_and_defers_to_residues_above() {
        let residues = Moduli::first(3).unwrap();
        let small = Integer::from(13267364410532u64);
        let wide = Integer::from(19381952998732022416892u128); // 9 x 10's closed tours, about 2^74
        let big: Integer = Integer::from(1) << 150;
        for lane in [ExactLane::Bits64, ExactLane::Bits128] {
            let exact = Moduli::exact(lane, 0).unwrap();
            let lanes = Moduli::concatenated(&[exact.clone(), residues.clone()]);
            let below_cap = if lane == ExactLane::Bits64 { &small } else { &wide };
            // Alone, or checked against residues that agree.
            assert_eq!(exact_count(&exact, &exact.lanes_of(below_cap), 0, "t").unwrap(), *below_cap);
            assert_eq!(exact_count(&lanes, &lanes.lanes_of(below_cap), 0, "t").unwrap(), *below_cap);
            // Saturated: the residues decide; saturated with none counted is a bug, not a count.
            let saturated: Vec<u64> = vec![u64::MAX; lane.words()];
            let mut values = saturated.clone();
            values.extend(residues.lanes_of(&big));
            assert_eq!(exact_count(&lanes, &values, 0, "t").unwrap(), big);
            assert!(exact_count(&exact, &saturated, 0, "t").unwrap_err().to_string().contains("saturated"));
            // A lane that disagrees with the residues is caught.
            let mut off = lanes.lanes_of(below_cap);
            off[0] -= 1;
            assert!(exact_count(&lanes, &off, 0, "t").unwrap_err().to_string().contains("residues"), "{lane}");
        }
    }

    #[test]
    fn a_spare_residue_checks_the_exact_lane_and_the_residues_that_replace_it() {
        let wide = Integer::from(19381952998732022416892u128);
        let checked = Moduli::exact(ExactLane::Bits128, 1).unwrap();
        let values = checked.lanes_of(&wide);
        let expected = wide.to_u128().unwrap();
        assert_eq!(values[..2], [expected as u64, (expected >> 64) as u64]);
        assert_eq!(exact_count(&checked, &values, 1, "9x10").unwrap(), wide);
        // A flipped bit in the lane, or in the spare residue, fails the check by name.
        for word in [0, 2] {
            let mut flipped = values.clone();
            flipped[word] ^= 1 << 20;
            let error = exact_count(&checked, &flipped, 1, "9x10").unwrap_err();
            assert!(matches!(error, Error::VerificationFailed { .. }), "{error}");
            assert!(error.to_string().contains("the exact 128-bit counts gave"), "{error}");
        }
        // The lane saturated: the residue passes (with their own spare) give the count, and the
        // exact pass's spare residue checks it too.
        let big: Integer = Integer::from(1) << 150;
        let residue_passes = Moduli::covering(160.0, 1).unwrap();
        let lanes = Moduli::concatenated(&[checked.clone(), residue_passes.clone()]);
        let mut values = vec![u64::MAX, u64::MAX, checked.residue_of(&big, 2)];
        values.extend(residue_passes.lanes_of(&big));
        assert_eq!(exact_count(&lanes, &values, 1, "t").unwrap(), big);
        values[2] ^= 1;
        let error = exact_count(&lanes, &values, 1, "t").unwrap_err();
        assert!(matches!(error, Error::VerificationFailed { .. }), "{error}");
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
