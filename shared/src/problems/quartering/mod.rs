//! Quartering a chessboard (T. R. Parkin's letter of 1974, Popular Computing problem 15): the
//! ways to cut a `2n x 2n` board along grid lines into four congruent pieces, OEIS A257952.
//!
//! Two classes of cuts, counted up to the board's rotations and reflections:
//!
//! * (a) *rotational*: four arms from the centre to the border, each the previous one turned by
//!   90 degrees (OEIS A064941);
//! * (b) *halved*: a centre line halves the board into two `2n x n` rectangles and each is cut
//!   into two pieces by a path that a half turn maps onto itself; which way round the second
//!   rectangle's pieces lie does not matter, so a cut of one rectangle is one dissection.
//!
//! Both counts come from simple paths on a folded board ([`graph`]): a cut of class (a) is a
//! path from the centre to the border of the board folded by the quarter turn, one of class (b)
//! a path on the rectangle folded by the half turn. Reflections pair the paths up except for
//! the straight ones along a centre line, and the straight cut of the rectangle down its middle
//! makes the four squares that class (a) has already:
//!
//! ```text
//!   rotational = (paths + 1) / 2                  the cross is its own mirror image
//!   halved     = (paths + straight) / 2 - 1       straight: 1 (n odd) or 2 (n even) cuts along
//!                                                 the rectangle's centre lines; minus the cross
//!   8x8:  (1191 + 1) / 2 = 596,  (340 + 2) / 2 - 1 = 170,  596 + 170 = 766
//! ```
//!
//! Two ways to count the paths, which agree wherever both run:
//!
//! * [`paths`]: a transfer-matrix sweep over the folded board (a frontier of at most `n`
//!   points), run by the engine with exact residue arithmetic, out of core and on a cluster;
//! * [`enumerate`]: Parkin's own method, every path traced from a border start point, per line of
//!   his Table 1, as a subtree job; with his slip emulated it prints the letter's figures.
//!
//! [`svg`] draws the dissections; [`command`] is the problem's face to the command line.

pub mod brute;
mod command;
pub mod enumerate;
pub mod graph;
pub mod paths;
pub mod shards;
pub mod svg;

pub use command::QuarterProblem;

use rug::Integer;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// A class of quartering cuts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// Cuts with 90-degree rotational symmetry, class (a).
    Rotational,
    /// A centre line, then each half cut by a 180-degree symmetric path, class (b).
    Halved,
}

impl Class {
    pub const BOTH: [Class; 2] = [Class::Rotational, Class::Halved];

    /// The result slot of the frontier sweep that counts this class's folded paths.
    pub fn slot(self) -> usize {
        match self {
            Class::Rotational => 0,
            Class::Halved => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Class::Rotational => "rotational",
            Class::Halved => "halved",
        }
    }

    /// How the letter heads the class's column.
    pub fn heading(self) -> &'static str {
        match self {
            Class::Rotational => "Square",
            Class::Halved => "Rect",
        }
    }

    /// The dissections of this class on the `2n x 2n` board, from its folded paths.
    pub fn dissections(self, n: usize, paths: &Integer) -> Result<Integer> {
        let (straight, cross) = match self {
            Class::Rotational => (1, 0),
            Class::Halved => (1 + u32::from(n.is_multiple_of(2)), 1),
        };
        let doubled = Integer::from(paths + straight);
        if doubled.is_odd() {
            return Err(Error::Bug(format!(
                "{paths} {} paths on the {side}x{side} board do not pair up by reflection",
                self.name(),
                side = 2 * n
            )));
        }
        Ok(doubled / 2u32 - cross)
    }
}

/// The name of a frontier sweep's result slot.
pub fn class_name(slot: usize) -> &'static str {
    Class::BOTH.get(slot).map_or("unknown", |class| class.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folded_paths_become_the_published_dissections() {
        let rotational = [(1191, 596), (76341, 38171)];
        for (i, &(paths, cuts)) in rotational.iter().enumerate() {
            assert_eq!(Class::Rotational.dissections(4 + i, &Integer::from(paths)).unwrap(), cuts);
        }
        assert_eq!(Class::Halved.dissections(4, &Integer::from(340)).unwrap(), 170);
        assert_eq!(Class::Halved.dissections(5, &Integer::from(10295)).unwrap(), 5147);
        assert_eq!(Class::Halved.dissections(1, &Integer::from(1)).unwrap(), 0);
        assert!(Class::Rotational.dissections(4, &Integer::from(1190)).is_err());
    }
}
