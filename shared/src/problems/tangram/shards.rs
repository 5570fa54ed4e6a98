//! The tangram's jobs as subtree jobs: `outlines` one shard per area; `solve` and `fit` one
//! shard per outline and placement of the first piece (only the placements the symmetry test
//! can keep), each counting into its outline's slot.

use super::outline::{outlines, Outline};
use super::pieces::PieceSet;
use super::solve::OutlineSearch;
use crate::engine::subtree::{ShardResult, SubtreeProblem};
use crate::Result;

/// The slot of N(F) for area `area`.
pub fn area_slot(area: i32) -> String {
    format!("N({area})")
}

/// A tangram job's shard plan.
pub enum TangramJob {
    /// N(F) for each area.
    Outlines { describe: String, areas: Vec<i32> },
    /// The dissections of each outline.
    Dissections {
        describe: String,
        pieces: PieceSet,
        outlines: Vec<Outline>,
        /// Shard `i`: an outline and the first piece's placement.
        shards: Vec<(usize, usize)>,
    },
}

impl TangramJob {
    pub fn outlines(describe: String, areas: Vec<i32>) -> TangramJob {
        TangramJob::Outlines { describe, areas }
    }

    /// Plans the search of every outline (refusing outlines of another area, or too large).
    pub fn dissections(describe: String, pieces: PieceSet, outlines: Vec<Outline>) -> Result<TangramJob> {
        let mut shards = Vec::new();
        for (index, &outline) in outlines.iter().enumerate() {
            let search = OutlineSearch::new(&pieces, outline)?;
            shards.extend(search.first_placements().into_iter().map(|first| (index, first)));
        }
        Ok(TangramJob::Dissections { describe, pieces, outlines, shards })
    }
}

impl SubtreeProblem for TangramJob {
    fn describe(&self) -> String {
        match self {
            TangramJob::Outlines { describe, .. } | TangramJob::Dissections { describe, .. } => describe.clone(),
        }
    }

    fn slots(&self) -> Vec<String> {
        match self {
            TangramJob::Outlines { areas, .. } => areas.iter().map(|&a| area_slot(a)).collect(),
            TangramJob::Dissections { outlines, .. } => outlines.iter().map(Outline::label).collect(),
        }
    }

    fn shard_count(&self) -> usize {
        match self {
            TangramJob::Outlines { areas, .. } => areas.len(),
            TangramJob::Dissections { shards, .. } => shards.len(),
        }
    }

    fn shard_label(&self, index: usize) -> String {
        match self {
            TangramJob::Outlines { areas, .. } => format!("area {}", areas[index]),
            TangramJob::Dissections { outlines, shards, .. } => {
                let (outline, first) = shards[index];
                format!("{} first piece at {first}", outlines[outline].label())
            }
        }
    }

    fn run_shard(&self, index: usize) -> Result<ShardResult> {
        let mut counts = vec![0u128; self.slots().len()];
        match self {
            TangramJob::Outlines { areas, .. } => counts[index] = outlines(areas[index])?.len() as u128,
            TangramJob::Dissections { pieces, outlines, shards, .. } => {
                let (outline, first) = shards[index];
                let search = OutlineSearch::new(pieces, outlines[outline])?;
                let (count, effort) = search.count(Some(first));
                tracing::debug!(
                    outline = %outlines[outline].label(),
                    first,
                    count,
                    tried = effort.tried,
                    fitted = effort.fitted,
                    kept = effort.kept,
                    "shard searched"
                );
                counts[outline] = count;
            }
        }
        Ok(ShardResult { counts })
    }
}
