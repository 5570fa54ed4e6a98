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
//! Lanes the table has no figure for take the nearest it has: residue lanes between one (the
//! exact lane's figure: a lane of residues stores the count itself while it stays below the
//! modulus, as the exact lane does) and four, linearly in the number of lanes, and beyond four
//! the same slope. The two figures come from two boards: at the same layer the lanes after the
//! first cost next to nothing while counts stay below the moduli (row 4 of both runs: 2.71 and
//! 2.67 bytes a state), and the 9 x 10 peak's larger counts make part of the difference. A run
//! that measures a layout at its peak belongs here, in [`MEASURED`].

use leaper_core::engine::Moduli;
use serde::Serialize;

/// How a pass carries its counts, as far as their bytes on disk go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Lanes {
    /// One 64-bit lane of exact counts, saturating at 2^64 - 1.
    Exact64,
    /// This many lanes of residues.
    Residues(usize),
}

impl Lanes {
    /// The lanes of a pass of moduli `moduli`.
    pub fn of(moduli: &Moduli) -> Lanes {
        if moduli.exact_lane().is_some() {
            Lanes::Exact64
        } else {
            Lanes::Residues(moduli.len())
        }
    }

    /// How the lanes read in a plan (`4 residue lanes`).
    pub fn name(self) -> String {
        match self {
            Lanes::Exact64 => "one exact 64-bit lane".to_string(),
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

/// The runs that measured bytes a state at their peak, one per lane layout.
pub const MEASURED: [Measured; 2] = [
    Measured {
        lanes: Lanes::Exact64,
        bytes_per_state: 2.14,
        states: 1.863e9,
        run: "knight 9x8 --sweep, the dress rehearsal of 2026-11-28 (docs/FLAGSHIP.md)",
    },
    Measured {
        lanes: Lanes::Residues(4),
        bytes_per_state: 3.37,
        states: 3.288e9,
        run: "knight 9x10 --counts residues --verify, the run of 2026-11-28 (docs/FLAGSHIP.md)",
    },
];

/// The figure at a large run's peak for `lanes`: the table's, or, for residue lanes it has no
/// run of, the line through one lane (the exact lane's figure) and the residue lanes it has
/// (module docs).
pub fn at_peak(lanes: Lanes) -> Measured {
    if let Some(measured) = MEASURED.iter().find(|m| m.lanes == lanes) {
        return *measured;
    }
    let exact = MEASURED[0];
    let Lanes::Residues(n) = lanes else { return exact };
    let (k, residues) = MEASURED
        .iter()
        .find_map(|m| match m.lanes {
            Lanes::Residues(k) if k > 1 => Some((k, *m)),
            _ => None,
        })
        .unwrap_or((1, exact));
    let slope = (residues.bytes_per_state - exact.bytes_per_state) / (k - 1).max(1) as f64;
    let fraction = (n as f64 - 1.0) / (k - 1).max(1) as f64;
    Measured {
        lanes,
        bytes_per_state: exact.bytes_per_state + slope * (n as f64 - 1.0),
        states: exact.states + (residues.states - exact.states) * fraction.clamp(0.0, 1.0),
        run: "between the runs of one exact lane and of 4 residue lanes (coordinator/src/plan/bytes.rs)",
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
        assert_eq!(bytes_per_state(Lanes::Exact64, 1e3, None), 2.14);
    }

    #[test]
    fn lanes_without_a_run_lie_on_the_line_through_those_with_one() {
        assert_eq!(at_peak(Lanes::Exact64).bytes_per_state, 2.14);
        assert_eq!(at_peak(Lanes::Residues(4)).bytes_per_state, 3.37);
        let per_lane = (3.37 - 2.14) / 3.0;
        for n in [1, 2, 3, 5] {
            let figure = at_peak(Lanes::Residues(n)).bytes_per_state;
            assert!((figure - (2.14 + per_lane * (n - 1) as f64)).abs() < 1e-12, "{n}: {figure}");
        }
        assert_eq!(Lanes::of(&Moduli::saturating()), Lanes::Exact64);
        assert_eq!(Lanes::Residues(4).name(), "4 residue lanes");
    }
}
