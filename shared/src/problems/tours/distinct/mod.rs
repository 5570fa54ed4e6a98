//! Tours up to the board's symmetries: Burnside's lemma over counts of fixed tours.
//!
//! The classes of tours under a group `G` of symmetries number `(1/|G|) * sum over g of
//! fix(g)`, where `fix(g)` counts the tours `g` maps onto themselves (a tour and its reverse
//! are one tour, so `g` may reverse it). `fix(identity)` is the plain count. For the others see
//! [`group`] (which symmetries can fix a tour at all, and why the rest cannot), [`fold`] (the
//! involutions: a sweep of half the board) and [`walk`] (the quarter turns, and the independent
//! check of the folds). [`composite`] runs the folds inside the board's own sweep.
//!
//! For the knight on 6x6: 9862 closed tours; the half turn fixes 78, each quarter turn 10, the
//! mirrors and diagonals none; `(9862 + 78 + 10 + 10) / 8 = 1245` classes. A class whose tours
//! a subgroup `H` fixes has `|G| / |H|` tours, so the classes split by the order of their
//! symmetry group: 5 of order 4 (`10 / 2`), 17 of order 2 (`(78 - 10) / 4`), 1223 of order 1.

pub mod composite;
pub mod fold;
pub mod group;
mod lines;
pub mod walk;

use std::collections::BTreeMap;

use serde::Serialize;

use composite::WithFolds;
use fold::{FoldedGraph, FoldedTours};
use group::{route, Route};

use crate::engine::{StateKey, SweepJob};
use crate::error::{Error, Result};
use crate::hamiltonian::board::Geometry;
use crate::hamiltonian::frontier::MAX_WINDOW;
use crate::hamiltonian::symmetry::Symmetry;
use crate::hamiltonian::transfer::{TourKind, TransferMatrix};

/// The symmetries of one board length and how each is counted.
#[derive(Clone, Debug)]
pub struct BoardPlan {
    pub rows: usize,
    pub routes: Vec<(Symmetry, Route)>,
}

/// Every board of a sweep (or the one board) with its routes, and the folds in slot order.
#[derive(Clone, Debug)]
pub struct DistinctPlan {
    pub boards: Vec<BoardPlan>,
    /// (rows, symmetry) of each fold, in the order of their slots.
    pub folds: Vec<(usize, Symmetry)>,
}

impl DistinctPlan {
    /// The plan for `kind` tours (closed or open) of `geometry` at lengths `min_rows..=rows`.
    pub fn new(geometry: &Geometry, min_rows: usize, kind: TourKind) -> Result<DistinctPlan> {
        if kind == TourKind::Both {
            return Err(Error::InvalidRequest(
                "--distinct counts one kind of tour: ask for --tours closed or --tours open".into(),
            ));
        }
        let open = kind == TourKind::Open;
        let mut boards = Vec::new();
        let mut folds = Vec::new();
        for rows in min_rows.max(1)..=geometry.rows {
            let board = Geometry::new(geometry.width, rows, geometry.moves.clone());
            let mut routes = Vec::new();
            for symmetry in Symmetry::group(geometry.width, rows) {
                let route = route(&board, symmetry, open);
                if route == Route::Fold {
                    folds.push((rows, symmetry));
                }
                routes.push((symmetry, route));
            }
            boards.push(BoardPlan { rows, routes });
        }
        Ok(DistinctPlan { boards, folds })
    }
}

/// The sweep that counts the tours of `geometry` (lengths `min_rows..=rows`) and, in further
/// slots, the tours each fold of `plan` fixes; its key is 64 bits where everything fits.
pub fn job(geometry: &Geometry, min_rows: usize, kind: TourKind, plan: &DistinctPlan) -> Result<Box<dyn SweepJob>> {
    if plan.folds.is_empty() {
        // Nothing to fold (every other symmetry fixes no tour, or a walk counts it): the
        // board's own sweep, its key untagged.
        return crate::hamiltonian::transfer::tours(geometry.clone(), min_rows, kind);
    }
    let open = kind == TourKind::Open;
    let graphs: Vec<FoldedGraph> = plan
        .folds
        .iter()
        .map(|&(rows, symmetry)| {
            FoldedGraph::new(&Geometry::new(geometry.width, rows, geometry.moves.clone()), symmetry)
        })
        .collect::<Result<_>>()?;
    let tag_bits = usize::BITS - plan.folds.len().leading_zeros();
    let board_bits = crate::hamiltonian::transfer::plain_key_bits(geometry, kind);
    let widest = graphs.iter().map(|g| g.key_bits(open)).max().unwrap_or(0).max(board_bits + 1);
    if graphs.iter().any(|g| g.reach > MAX_WINDOW) || widest + tag_bits > 128 {
        return Err(Error::InvalidRequest(format!(
            "--distinct needs {} bits of key on a board {} wide, more than 128",
            widest + tag_bits,
            geometry.width
        )));
    }
    if widest + tag_bits <= 64 {
        Ok(Box::new(build::<u64>(geometry, min_rows, kind, plan, &graphs, tag_bits)?))
    } else {
        Ok(Box::new(build::<u128>(geometry, min_rows, kind, plan, &graphs, tag_bits)?))
    }
}

fn build<K: StateKey>(
    geometry: &Geometry,
    min_rows: usize,
    kind: TourKind,
    plan: &DistinctPlan,
    graphs: &[FoldedGraph],
    tag_bits: u32,
) -> Result<WithFolds<K>> {
    let tag_shift = K::BITS - tag_bits;
    let open = kind == TourKind::Open;
    let folds = graphs.iter().map(|g| FoldedTours::new(g, open, tag_shift - 1)).collect::<Result<Vec<_>>>()?;
    let names = plan
        .folds
        .iter()
        .map(|&(rows, symmetry)| format!("{}x{} {}", geometry.width, rows, symmetry.name(false)))
        .collect();
    Ok(WithFolds { board: TransferMatrix::new(geometry.clone(), min_rows, kind)?, folds, names, tag_shift })
}

/// The classes of one board: the fixed counts by symmetry and what Burnside's lemma makes of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Classes {
    /// The classes: tours counted once per orbit of the symmetry group.
    pub classes: String,
    /// Every tour.
    pub tours: String,
    /// The order of the board's symmetry group.
    pub group_order: usize,
    /// Per symmetry (by name): the tours it fixes.
    pub fixed: Vec<(String, String)>,
    /// Classes by the order of their symmetry group, where the fixed counts determine it.
    pub by_symmetry_order: Option<BTreeMap<usize, String>>,
}

impl Classes {
    /// Burnside's lemma for one board, from its fixed counts (the identity's first).
    pub fn from_fixed(fixed: &[(Symmetry, rug::Integer)], transposed: bool) -> Result<Classes> {
        let order = fixed.len();
        let sum: rug::Integer = fixed.iter().map(|(_, n)| n).sum();
        let (classes, rest) = sum.clone().div_rem_euc(rug::Integer::from(order));
        if rest != 0 {
            return Err(Error::Bug(format!(
                "Burnside's sum {sum} over a group of order {order} is not a whole number"
            )));
        }
        let get = |s: Symmetry| fixed.iter().find(|(g, _)| *g == s).map(|(_, n)| n.clone()).unwrap_or_default();
        let total = get(Symmetry::Identity);
        let by_order = stabilisers(fixed, order, &get, &total);
        Ok(Classes {
            classes: classes.to_string(),
            tours: total.to_string(),
            group_order: order,
            fixed: fixed.iter().map(|(g, n)| (g.name(transposed).to_string(), n.to_string())).collect(),
            by_symmetry_order: by_order,
        })
    }
}

/// Classes by the order of their symmetry group (a class whose tours are fixed by a subgroup
/// `H` and nothing more has `|G| / |H|` tours), where the fixed counts determine it: when no
/// tour is fixed by two involutions of a rectangle (one of them fixes none), or by a mirror of a
/// square (then every stabiliser is a subgroup of the rotations).
fn stabilisers(
    fixed: &[(Symmetry, rug::Integer)],
    order: usize,
    get: &dyn Fn(Symmetry) -> rug::Integer,
    total: &rug::Integer,
) -> Option<BTreeMap<usize, String>> {
    use Symmetry::*;
    let zero = |s: Symmetry| get(s) == 0;
    // Tours by exact stabiliser: (stabiliser order, tours).
    let mut exact: Vec<(usize, rug::Integer)> = Vec::new();
    if order == 4 {
        if !(zero(HalfTurn) || zero(RowMirror) || zero(ColumnMirror)) {
            return None;
        }
        let twos: rug::Integer = fixed.iter().skip(1).map(|(_, n)| n).sum();
        exact.push((1, total.clone() - &twos));
        exact.push((2, twos));
    } else {
        if ![RowMirror, ColumnMirror, Diagonal, AntiDiagonal].into_iter().all(zero) {
            return None;
        }
        let quarter = get(QuarterTurn);
        let half = get(HalfTurn);
        exact.push((1, total.clone() - &half));
        exact.push((2, half - &quarter));
        exact.push((4, quarter));
    }
    let mut out = BTreeMap::new();
    for (stabiliser, tours) in exact {
        // Each class with this stabiliser has order / stabiliser tours.
        let per_class = rug::Integer::from(order / stabiliser);
        let (classes, rest) = tours.div_rem_euc(per_class);
        if rest != 0 || classes < 0 {
            return None;
        }
        out.insert(stabiliser, classes.to_string());
    }
    Some(out)
}

/// The fixed counts of one board: from the sweep's slots, the walks, and the zeros.
pub fn fixed_counts(
    plan: &DistinctPlan,
    geometry: &Geometry,
    open: bool,
    board: &BoardPlan,
    board_count: &rug::Integer,
    fold_counts: &dyn Fn(usize) -> Option<rug::Integer>,
) -> Result<Vec<(Symmetry, rug::Integer)>> {
    let mut out = Vec::new();
    for (symmetry, route) in &board.routes {
        let n = match route {
            Route::Sweep => board_count.clone(),
            Route::Fold => {
                let index = plan
                    .folds
                    .iter()
                    .position(|&(rows, s)| rows == board.rows && s == *symmetry)
                    .ok_or_else(|| Error::Bug(format!("no fold for {symmetry:?} at {} rows", board.rows)))?;
                fold_counts(index).ok_or_else(|| Error::Bug(format!("the fold for {symmetry:?} has no count")))?
            }
            Route::Walk => {
                let board_geometry = Geometry::new(geometry.width, board.rows, geometry.moves.clone());
                rug::Integer::from(walk::fixed_tours(&board_geometry, *symmetry, open))
            }
            Route::None(_) => rug::Integer::new(),
        };
        out.push((*symmetry, n));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
