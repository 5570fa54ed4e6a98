//! Helpers of the transfer matrix's tests: boards, a matrix without the check of the cells left,
//! and a whole sweep state by state.

use std::collections::HashMap;

use super::build::TransferMatrix;
use crate::engine::{StateKey, Transition};
use crate::error::Result;
use crate::hamiltonian::board::{Geometry, MoveSet};
use crate::hamiltonian::frontier::FrontierState;

pub(super) fn knight(width: usize, rows: usize) -> Geometry {
    Geometry::new(width, rows, MoveSet::knight())
}

/// `matrix` without the check of the cells left (the camel below: its moves keep a square's
/// colour, so its graph has no tour and the check lets next to nothing live; unchecked, its
/// states still exercise a reach that is not the knight's).
pub(super) fn unchecked(matrix: Result<TransferMatrix<u64>>) -> TransferMatrix<u64> {
    let mut matrix = matrix.unwrap();
    matrix.set_move_masks(None);
    matrix
}

/// Every layer of `matrix`'s sweep, state by state: the keys, each key's successors (indices
/// into the next layer) and whether it closes a tour counted, and the tours per slot.
#[allow(clippy::type_complexity)]
pub(super) fn layers_with_successors<K: StateKey>(
    matrix: &TransferMatrix<K>,
) -> (Vec<Vec<K>>, Vec<Vec<(Vec<usize>, bool)>>, Vec<u64>) {
    layers_with_successors_to(matrix, matrix.walked().cells())
}

/// Which states of each layer are alive, cell by cell as `successors` (from
/// [`layers_with_successors`]): some path from them closes a tour counted. A backward pass; the
/// states of the last layer have no successors and are not.
pub(super) fn alive_states<K>(layers: &[Vec<K>], successors: &[Vec<(Vec<usize>, bool)>]) -> Vec<Vec<bool>> {
    let last = vec![false; layers.last().map_or(0, Vec::len)];
    let mut alive: Vec<Vec<bool>> = Vec::with_capacity(successors.len());
    for step in successors.iter().rev() {
        let after = alive.last().unwrap_or(&last);
        let now = step.iter().map(|(children, closes)| *closes || children.iter().any(|&i| after[i])).collect();
        alive.push(now);
    }
    alive.reverse();
    alive
}

/// [`layers_with_successors_to`] with every layer decoded: the states, whatever their keys.
#[allow(clippy::type_complexity)]
pub(super) fn decoded_layers_to<K: StateKey>(
    matrix: &TransferMatrix<K>,
    cells: usize,
) -> (Vec<Vec<FrontierState>>, Vec<Vec<(Vec<usize>, bool)>>, Vec<u64>) {
    let (layers, successors, tours) = layers_with_successors_to(matrix, cells);
    let decoded = layers
        .iter()
        .enumerate()
        .map(|(at, layer)| layer.iter().map(|&k| matrix.codec.decode(k, at)).collect())
        .collect();
    (decoded, successors, tours)
}

/// [`layers_with_successors`] of the sweep's first `cells` cells.
#[allow(clippy::type_complexity)]
pub(super) fn layers_with_successors_to<K: StateKey>(
    matrix: &TransferMatrix<K>,
    cells: usize,
) -> (Vec<Vec<K>>, Vec<Vec<(Vec<usize>, bool)>>, Vec<u64>) {
    let reported = Transition::reported(matrix);
    let mut tours = vec![0u64; Transition::slots(matrix)];
    let mut layers = vec![vec![matrix.start_key()]];
    let mut successors = Vec::new();
    let mut counts = vec![1u64];
    for cell in 0..cells {
        let mut index: HashMap<K, usize> = HashMap::new();
        let (mut next, mut next_counts) = (Vec::new(), Vec::new());
        let mut step = Vec::new();
        for (&key, &count) in layers[cell].iter().zip(&counts) {
            let (mut children, mut closes) = (Vec::new(), false);
            matrix.expand(
                cell,
                key,
                &mut |child| {
                    let i = *index.entry(child).or_insert_with(|| {
                        next.push(child);
                        next_counts.push(0);
                        next.len() - 1
                    });
                    next_counts[i] += count;
                    children.push(i);
                },
                &mut |slot| {
                    tours[slot] += count;
                    closes |= reported.contains(&slot);
                },
            );
            step.push((children, closes));
        }
        successors.push(step);
        layers.push(next);
        counts = next_counts;
    }
    (layers, successors, tours)
}
