//! Which tours a sweep counts ([`TourKind`]: closed, open or both), and the result slot each
//! tour is counted in ([`SlotTour`]): one slot per board length and kind, so that one sweep
//! reports every length asked for, of one kind or of both.

use clap::Args;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Which tours a sweep counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum TourKind {
    /// Closed tours: Hamiltonian cycles.
    #[default]
    Closed,
    /// Open tours: Hamiltonian paths, a path and its reverse one tour.
    Open,
    /// Both, from one sweep.
    Both,
}

impl TourKind {
    /// Whether cells may be tour ends (the frontier then holds free ends).
    pub fn has_ends(self) -> bool {
        self != TourKind::Closed
    }

    /// Tour ends still to place when `ends_used` are placed: each lets one cell do with one
    /// edge fewer (none for closed tours).
    pub fn ends_to_place(self, ends_used: u8) -> u32 {
        if self.has_ends() {
            2 - ends_used as u32
        } else {
            0
        }
    }

    /// Free ends a frontier can hold: the two ends of an open tour.
    pub fn max_free(self) -> usize {
        if self.has_ends() {
            2
        } else {
            0
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TourKind::Closed => "closed",
            TourKind::Open => "open",
            TourKind::Both => "both",
        }
    }

    /// The kinds of tour counted, in slot order: closed (`false`), open (`true`).
    pub fn opens(self) -> &'static [bool] {
        match self {
            TourKind::Closed => &[false],
            TourKind::Open => &[true],
            TourKind::Both => &[false, true],
        }
    }
}

/// An undirected count (decimal) counted once per direction: twice it. The caller leaves out
/// the one tour with one direction (a single cell's open tour).
pub fn once_per_direction(count: &str) -> Result<String> {
    let undirected: rug::Integer =
        count.parse().map_err(|_| Error::Bug(format!("a count that is not a number: {count:?}")))?;
    Ok((undirected * 2u32).to_string())
}

/// A tour counted in a slot: which kind, and the board's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotTour {
    pub open: bool,
    pub rows: usize,
}

impl SlotTour {
    /// The slot of a tour of `rows` rows: the length itself when one kind is counted; `2 * rows`
    /// (closed) and `2 * rows + 1` (open) when both are, so the slots reported stay a range.
    pub fn slot(self, kind: TourKind) -> usize {
        match kind {
            TourKind::Both => 2 * self.rows + usize::from(self.open),
            _ => self.rows,
        }
    }

    /// `closed` or `open`, as results name the tours of a slot.
    pub fn kind_name(self) -> &'static str {
        if self.open {
            "open"
        } else {
            "closed"
        }
    }

    /// The tour a slot counts.
    pub fn of(slot: usize, kind: TourKind) -> SlotTour {
        match kind {
            TourKind::Both => SlotTour { open: slot % 2 == 1, rows: slot / 2 },
            kind => SlotTour { open: kind == TourKind::Open, rows: slot },
        }
    }
}

/// Which tours to count, as every command that counts tours takes it (the leapers', `graph`).
#[derive(Debug, Args)]
pub struct KindArgs {
    /// Count open tours (Hamiltonian paths).
    ///
    /// Count open tours (Hamiltonian paths; a path and its reverse are one tour): --tours open.
    #[arg(long, conflicts_with = "tours")]
    open: bool,

    /// Which tours to count: closed (Hamiltonian cycles), open, or both from one sweep (cheaper
    /// than two runs).
    #[arg(long, value_enum, value_name = "KIND", default_value_t = TourKind::Closed, hide_short_help = true)]
    tours: TourKind,

    /// Count each tour once per direction: twice the undirected count (a one-cell open tour has
    /// one direction).
    #[arg(long, hide_short_help = true)]
    pub directed: bool,
}

impl KindArgs {
    /// The tours asked for: `--open` is `--tours open`.
    pub fn tours(&self) -> TourKind {
        if self.open {
            TourKind::Open
        } else {
            self.tours
        }
    }
}
