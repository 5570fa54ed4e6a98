//! Quarto draws: arrangements of the values 0..16 on a 4 x 4 board in which no line has a bit in
//! common, that is every line's bitwise OR is 15 and bitwise AND is 0 (MathPages, "414298141056
//! Quarto Draws Suffice!"). Which lines count is the variant: rows, columns, diagonals and squares
//! in several readings, see [`lines`].
//!
//! The count is a subtree job. [`symmetry`] reduces it by the 384 value symmetries (XOR with a
//! constant, permutations of the four bits) and by the cell symmetries of the variant's lines that
//! fix the corner; what is left is one shard per orbit of *placements* (cells of the units 1, 2, 4,
//! 8, with 0 in the corner), each counted by the depth-first [`search`] and weighted by its orbit.

mod command;
pub mod lines;
pub mod search;
pub mod symmetry;

pub use command::{factorize, QuartoLine, QuartoProblem};

use lines::{Family, Rules, SIDE};
use search::Layout;
use symmetry::{line_preserving_maps, normal_allowed, placements, value_group_order, Placement};

use crate::engine::subtree::{ShardResult, SubtreeProblem};
use crate::{Error, Result};

const CELLS: usize = SIDE * SIDE;
const BITS: u32 = 4;

/// The nine variants of the document's table, in its order.
pub const TABLE: [&str; 9] = [
    "rows,cols",
    "rows,cols,maindiags",
    "rows,cols,alldiags",
    "rows,cols,mainsqrs",
    "rows,cols,mainsqrs,maindiags",
    "rows,cols,mainsqrs,alldiags",
    "rows,cols,allsqrs",
    "rows,cols,allsqrs,maindiags",
    "rows,cols,allsqrs,alldiags",
];

/// One variant, ready to count: its lines and its shards.
#[derive(Clone, Debug)]
pub struct Variant {
    pub rules: Rules,
    pub layout: Layout,
    pub placements: Vec<Placement>,
    /// The cell symmetries used (those of the lines that fix the corner), identity included.
    pub symmetries: usize,
}

impl Variant {
    pub fn new(rules: Rules) -> Variant {
        let maps = line_preserving_maps(SIDE, SIDE, &rules.lines);
        let placements = placements(CELLS, BITS, &maps);
        let layout = Layout::new(CELLS, BITS, rules.lines.clone());
        Variant { rules, layout, placements, symmetries: maps.len() }
    }

    /// Normal draws (0 in the corner, units ascending) with the units on `units`.
    pub fn normal_draws(&self, units: u16) -> u64 {
        self.layout.count(&normal_allowed(CELLS, units))
    }

    /// All draws the placement's orbit stands for.
    fn draws_of(&self, placement: &Placement) -> u128 {
        u128::from(self.normal_draws(placement.units))
            * u128::from(placement.weight)
            * u128::from(value_group_order(BITS))
    }
}

/// A Quarto job: one or more variants, one count (slot) each.
#[derive(Clone, Debug)]
pub struct Quarto {
    variants: Vec<Variant>,
    table: bool,
    /// Shard `i` of the job is placement `i - offsets[v]` of variant `v`.
    offsets: Vec<usize>,
}

impl Quarto {
    /// One variant, `rows,cols,maindiags` style.
    pub fn lines(text: &str) -> Result<Quarto> {
        Ok(Quarto::from_variants(vec![Variant::new(Rules::parse(text)?)], false))
    }

    /// The document's nine variants.
    pub fn table() -> Quarto {
        let variants = TABLE.iter().map(|text| Variant::new(Rules::parse(text).expect("table variants parse")));
        Quarto::from_variants(variants.collect(), true)
    }

    /// The variant counted: `table`, or the line families.
    pub fn params(&self) -> String {
        if self.table {
            "table".into()
        } else {
            self.variants[0].rules.families.iter().map(|f| f.name()).collect::<Vec<_>>().join(",")
        }
    }

    fn from_variants(variants: Vec<Variant>, table: bool) -> Quarto {
        let offsets = variants
            .iter()
            .scan(0, |start, variant| {
                let offset = *start;
                *start += variant.placements.len();
                Some(offset)
            })
            .collect();
        Quarto { variants, table, offsets }
    }

    pub fn variants(&self) -> &[Variant] {
        &self.variants
    }

    fn locate(&self, index: usize) -> Result<(usize, &Placement)> {
        let variant = self.offsets.partition_point(|&offset| offset <= index).saturating_sub(1);
        self.variants[variant]
            .placements
            .get(index - self.offsets[variant])
            .map(|placement| (variant, placement))
            .ok_or_else(|| {
                Error::InvalidRequest(format!("shard {index} is out of range ({} shards)", self.shard_count()))
            })
    }
}

impl SubtreeProblem for Quarto {
    fn describe(&self) -> String {
        format!("quarto {}", self.params())
    }

    fn slots(&self) -> Vec<String> {
        self.variants.iter().map(|variant| variant.rules.name()).collect()
    }

    fn shard_count(&self) -> usize {
        self.variants.iter().map(|variant| variant.placements.len()).sum()
    }

    fn shard_label(&self, index: usize) -> String {
        match self.locate(index) {
            Ok((variant, placement)) => {
                format!("{} units {:#06x} x{}", self.variants[variant].rules.name(), placement.units, placement.weight)
            }
            Err(_) => format!("shard {index} (out of range)"),
        }
    }

    fn run_shard(&self, index: usize) -> Result<ShardResult> {
        let (variant, placement) = self.locate(index)?;
        let mut counts = vec![0; self.variants.len()];
        counts[variant] = self.variants[variant].draws_of(placement);
        Ok(ShardResult { counts })
    }
}

/// The families every variant can combine, for help texts.
pub fn family_names() -> Vec<&'static str> {
    Family::ALL.iter().map(|f| f.name()).collect()
}
