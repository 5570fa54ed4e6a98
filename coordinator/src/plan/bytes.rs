//! Bytes a state takes on disk at a large run's peak, by the lanes of counts a pass carries:
//! the one table of them, each figure with the run that measured it.
//!
//! A probe measures bytes a state on its own layers, a few million states, where keys lie far
//! apart (long deltas) and counts are small; at a large run's peak keys lie closer and counts
//! are larger, and the figure differs (the 9 x 10 probe's 3.53 bytes against 2.53 at row 4's
//! largest layer and 3.37 at the peak). So a plan prices its peak at the figure a real run
//! measured at its own peak for the same lanes, reached from the probe's figure as layers grow:
//! linearly in the logarithm of a layer's states, from the probe's largest layer to the layers
//! of the run in the table, and no further.
//!
//! Worked example: a pass of four residue lanes whose probe measured 3.53 bytes a state at 8.0
//! M states. At the 3.29e9 states of the table's run (or more) a state takes 3.37 bytes; at
//! 1.6e8 states, half way in logarithms (`ln(1.6e8 / 8e6) / ln(3.29e9 / 8e6)` = 0.50), 3.45.
//!
//! Lanes the table has no figure for take the nearest it has. An exact lane's spare residues and
//! high word cost next to nothing while counts stay below 2^64 (the high word is 0, a residue
//! equals the low word, and the store keeps the words after the first as differences from it:
//! 0.0015 bytes a state for both at the 9 x 6 peak), and several bytes a state once they pass
//! it ([`EXACT_128_VERIFIED`]), so an exact layout takes the nearest exact run's figure (the same
//! lane first). Residue lanes take the nearest
//! residue run's and 0.41 bytes a state for each word more or fewer: the slope of the line
//! through one exact 64-bit lane (2.14) and four residue lanes (3.37), 1 and 4 words. That line
//! joins two boards: at the same layer the lanes after the first cost next to nothing while
//! counts stay small (row 4 of both runs: 2.71 and 2.67 bytes a state), and the 9 x 10 peak's
//! larger counts make the slope. A run that measures a layout at its peak belongs here, in
//! [`MEASURED`].
//!
//! Every figure here was measured in bucket format 4. Format 5 (2026-11-30: counts shifted by
//! the trailing zero bits a lane's words share, blocks of 64 Ki states) stores the same layers
//! in about a tenth fewer bytes while counts are small (the 9 x 8 sweep's layers, step for
//! step; docs/PERFORMANCE-LOG.md, "Issue 56 item 1's pair"), and gains less once counts pass
//! 2^64 (random words shift by nothing), so a plan now errs by up to that much on the side of
//! room. The next large run of each layout replaces its figure.

use leaper_core::engine::Moduli;
use serde::Serialize;

/// How a pass carries its counts, as far as their bytes on disk go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Lanes {
    /// An exact lane of `bits` bits (64 or 128, saturating at `2^bits - 1`), then `spare`
    /// residues that check it (`--verify`).
    Exact { bits: u32, spare: usize },
    /// This many lanes of residues.
    Residues(usize),
}

impl Lanes {
    /// The lanes of a pass of moduli `moduli`.
    pub fn of(moduli: &Moduli) -> Lanes {
        match moduli.exact_lane() {
            Some(lane) => Lanes::Exact { bits: lane.bits(), spare: moduli.residues() },
            None => Lanes::Residues(moduli.len()),
        }
    }

    /// 64-bit words a state's counts take in memory.
    pub fn words(self) -> usize {
        match self {
            Lanes::Exact { bits, spare } => bits.div_ceil(64) as usize + spare,
            Lanes::Residues(n) => n,
        }
    }

    /// Whether `self` and `other` store their first lane alike (the same exact lane, or
    /// residues).
    fn same_kind(self, other: Lanes) -> bool {
        match (self, other) {
            (Lanes::Exact { bits: a, .. }, Lanes::Exact { bits: b, .. }) => a == b,
            (Lanes::Residues(_), Lanes::Residues(_)) => true,
            _ => false,
        }
    }

    /// How the lanes read in a plan (`4 residue lanes`).
    pub fn name(self) -> String {
        let residues =
            |n: usize, what: &str| if n == 1 { format!("1 {what} residue") } else { format!("{n} {what} residues") };
        match self {
            Lanes::Exact { bits, spare: 0 } => format!("one exact {bits}-bit lane"),
            Lanes::Exact { bits, spare } => format!("one exact {bits}-bit lane and {}", residues(spare, "spare")),
            Lanes::Residues(1) => "1 residue lane".to_string(),
            Lanes::Residues(n) => format!("{n} residue lanes"),
        }
    }
}

/// What a run measured at its peak layer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Measured {
    pub lanes: Lanes,
    /// Bytes a state on disk at the peak layer.
    pub bytes_per_state: f64,
    /// The peak layer's states.
    pub states: f64,
    /// The run, and where its figures are.
    pub run: &'static str,
}

/// The runs that measured bytes a state at their peak, one per lane layout. The first is the
/// figure layouts with nothing of their kind here start from (module docs).
pub const MEASURED: [Measured; 3] = [
    Measured {
        lanes: Lanes::Exact { bits: 64, spare: 0 },
        bytes_per_state: 2.14,
        states: 1.863e9,
        run: "the 9 x 8 sweep of the dress rehearsal of 2026-11-28 (docs/FLAGSHIP.md)",
    },
    Measured {
        lanes: Lanes::Residues(4),
        bytes_per_state: 3.37,
        states: 3.288e9,
        run: "the 9 x 10 count in residues of 2026-11-28 (docs/FLAGSHIP.md)",
    },
    EXACT_128_VERIFIED,
];

/// One exact 128-bit lane and one spare residue: `knight 9x12 --sweep --verify`, the run of
/// 2026-11-29 (docs/FLAGSHIP.md, "The 9 x 12 run"), at its heaviest step on disk, 62 (row 7):
/// it read step 61's layer, 2.66e9 states in 17.8 GB, and wrote 3.29e9 with a spill of 20.5
/// GB, 38.3 GB for 5.95e9 states, 6.44 bytes a state. The figure climbs with the counts: 2.09 at
/// row 4, where the high word is 0 and the spare residue equals the low word (0.0015 bytes a
/// state for both at the 9 x 6 peak), 4.0 to 5.7 at row 6 (the peak layer, 3.46e9 states at
/// 4.63), then 5.4 to 11.4 at rows 7 to 10 as counts pass 2^64 and both turn into random bits.
/// A board whose heaviest steps come after that (9 x 14, whose rows 6 to 9 all reach the peak)
/// will take more: rows 8 and 9 took 6.8 to 9.4 here.
const EXACT_128_VERIFIED: Measured = Measured {
    lanes: Lanes::Exact { bits: 128, spare: 1 },
    bytes_per_state: 38.3e9 / (2.66e9 + 3.29e9),
    states: 3.29e9,
    run: "the 9 x 12 sweep of 2026-11-29, at its heaviest step (docs/FLAGSHIP.md)",
};

/// Bytes a state a lane of residues beyond the first adds: the slope of the line through one
/// exact 64-bit lane and four residue lanes (module docs), 0.41.
fn per_word() -> f64 {
    (MEASURED[1].bytes_per_state - MEASURED[0].bytes_per_state) / (MEASURED[1].lanes.words() - 1) as f64
}

/// The figure at a large run's peak for `lanes`: the table's, or, for a layout it has no run
/// of, as the module docs say: exact lanes the nearest exact run's (the same lane first), residue
/// lanes the nearest residue run's and [`per_word`] for each word more or fewer.
pub fn at_peak(lanes: Lanes) -> Measured {
    if let Some(measured) = MEASURED.iter().find(|m| m.lanes == lanes) {
        return *measured;
    }
    let nearest = |kind: &dyn Fn(Lanes) -> bool| {
        MEASURED.iter().filter(|m| kind(m.lanes)).min_by_key(|m| m.lanes.words().abs_diff(lanes.words())).copied()
    };
    let exact = |other: Lanes| matches!(other, Lanes::Exact { .. });
    match lanes {
        Lanes::Exact { .. } => {
            let run = nearest(&|other| other.same_kind(lanes)).or_else(|| nearest(&exact)).unwrap_or(MEASURED[0]);
            Measured { lanes, run: "the nearest run of an exact lane (coordinator/src/plan/bytes.rs)", ..run }
        }
        Lanes::Residues(_) => {
            let run = nearest(&|other| other.same_kind(lanes)).unwrap_or(MEASURED[0]);
            let more = lanes.words() as f64 - run.lanes.words() as f64;
            Measured {
                lanes,
                bytes_per_state: run.bytes_per_state + per_word() * more,
                run: "a run of other lanes, 0.41 bytes a state a word more or fewer (coordinator/src/plan/bytes.rs)",
                ..run
            }
        }
    }
}

/// Bytes a state takes in a layer of `states` states, for a pass of `lanes` whose probe
/// measured `probe_bytes` a state at its largest layer of `probe_states` states (`None`: the
/// probe ran in memory and measured no disk): module docs.
pub fn bytes_per_state(lanes: Lanes, states: f64, probe: Option<(f64, f64)>) -> f64 {
    let peak = at_peak(lanes);
    let Some((probe_states, probe_bytes)) = probe.filter(|&(s, b)| s >= 1.0 && b > 0.0) else {
        return peak.bytes_per_state;
    };
    if peak.states <= probe_states {
        return peak.bytes_per_state;
    }
    let way = ((states.max(1.0) / probe_states).ln() / (peak.states / probe_states).ln()).clamp(0.0, 1.0);
    probe_bytes + (peak.bytes_per_state - probe_bytes) * way
}

#[cfg(test)]
mod tests {
    use super::*;
    use leaper_core::engine::arith::ExactLane;

    const EXACT_64: Lanes = Lanes::Exact { bits: 64, spare: 0 };

    #[test]
    fn the_worked_example_of_the_module_docs() {
        let lanes = Lanes::Residues(4);
        assert_eq!(bytes_per_state(lanes, 3.29e9, Some((8e6, 3.53))), 3.37);
        assert_eq!(bytes_per_state(lanes, 1e12, Some((8e6, 3.53))), 3.37);
        let half = bytes_per_state(lanes, 8e6 * (3.288e9f64 / 8e6).sqrt(), Some((8e6, 3.53)));
        assert!((half - 3.45).abs() < 1e-9, "{half}");
        assert!((bytes_per_state(lanes, 1.6e8, Some((8e6, 3.53))) - 3.45).abs() < 0.005);
        // At the probe's own layers, the probe's figure; without a probe on disk, the table's.
        assert_eq!(bytes_per_state(lanes, 8e6, Some((8e6, 3.53))), 3.53);
        assert_eq!(bytes_per_state(EXACT_64, 1e3, None), 2.14);
    }

    #[test]
    fn lanes_without_a_run_lie_on_the_line_through_those_with_one() {
        assert_eq!(at_peak(EXACT_64).bytes_per_state, 2.14);
        assert_eq!(at_peak(Lanes::Residues(4)).bytes_per_state, 3.37);
        let per_lane = (3.37 - 2.14) / 3.0;
        assert!((per_word() - per_lane).abs() < 1e-12);
        for n in [1, 2, 3, 5] {
            let figure = at_peak(Lanes::Residues(n)).bytes_per_state;
            assert!((figure - (2.14 + per_lane * (n - 1) as f64)).abs() < 1e-12, "{n}: {figure}");
        }
        // An exact lane it has no run of: the nearest exact run's figure, the same lane first.
        assert_eq!(at_peak(Lanes::Exact { bits: 64, spare: 1 }).bytes_per_state, 2.14);
        let bare_128 = at_peak(Lanes::Exact { bits: 128, spare: 0 });
        assert_eq!(bare_128.bytes_per_state, EXACT_128_VERIFIED.bytes_per_state);
        assert_eq!(bare_128.lanes, Lanes::Exact { bits: 128, spare: 0 });
        assert_eq!(Lanes::Residues(4).name(), "4 residue lanes");
    }

    #[test]
    fn each_lane_layout_is_read_from_its_moduli() {
        assert_eq!(Lanes::of(&Moduli::saturating()), EXACT_64);
        let verified_128 = Moduli::exact(ExactLane::Bits128, 1).unwrap();
        assert_eq!(Lanes::of(&verified_128), Lanes::Exact { bits: 128, spare: 1 });
        assert_eq!(Lanes::of(&verified_128).words(), verified_128.len());
        assert_eq!(Lanes::of(&Moduli::first(4).unwrap()), Lanes::Residues(4));
        assert_eq!(at_peak(Lanes::of(&verified_128)), EXACT_128_VERIFIED);
        assert_eq!(Lanes::of(&verified_128).name(), "one exact 128-bit lane and 1 spare residue");
    }
}
