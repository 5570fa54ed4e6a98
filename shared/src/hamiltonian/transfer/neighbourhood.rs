//! The neighbourhood of a state
//! ([`Transition::neighbourhood`](crate::engine::Transition::neighbourhood)): the kinds of the
//! window positions the step leaves untouched, which every parent of a key shares, so that the
//! engine expands a bucket group by group and merges each group's successors before the store
//! sees them (`engine/kernel/grouped.rs`). The tests here run that grouped expansion too.

use super::build::TransferMatrix;
use super::mirror::images::mirror_mask;
use crate::engine::StateKey;

impl<K: StateKey> TransferMatrix<K> {
    /// The neighbourhood of a state before `cell` (see
    /// [`Transition::neighbourhood`](crate::engine::Transition::neighbourhood)): the kinds
    /// (FULL, path end, EMPTY) of the window positions the cell gives no edge, packed as two
    /// masks. An expansion changes only the kinds of the cell and its forward neighbours, so
    /// every parent of a key sees the kinds the key has at the other positions.
    ///
    /// Where the key emitted stands for a state and its mirror image (the cells processed after
    /// `cell` are symmetric), the parents of a key may also be the parents of its image: there
    /// the kinds are read only at positions whose images are read too, and the lesser of the
    /// two readings (as they are, and mirrored) is the neighbourhood. Example: the knight on a
    /// board 3 wide in row-major order (window of 7), at cell 2, whose forward neighbours are at
    /// positions 1 and 5: positions 2, 3, 4 and 6 are untouched; in the next state's frame they
    /// are 1, 2, 3 and 5, whose images are 1, 0, 5 and 3; the image of 2 (0, position 1 now) is
    /// touched, so the kinds are read at positions 2, 4 and 6, and 4 and 6 trade places in the
    /// mirrored reading.
    pub fn neighbourhood_of(&self, cell: usize, key: K) -> u64 {
        let (full, ends) = self.codec.kinds(key, cell);
        let Some(&untouched) = self.untouched.get(cell) else {
            return full | ends << 32;
        };
        if !self.mirrors_after(cell) {
            return (full & untouched) | (ends & untouched) << 32;
        }
        let kept = self.symmetric[cell];
        let (full, ends) = (full & kept, ends & kept);
        let as_is = full | ends << 32;
        let mirror = self.mirror_of(cell);
        let mirrored = mirror_mask(mirror, full) | mirror_mask(mirror, ends) << 32;
        as_is.min(mirrored)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::mirror::images::mirror_mask;
    use super::super::testing::{knight, unchecked};
    use super::super::{TourKind, TransferMatrix};
    use crate::engine::{StateKey, SweepJob};
    use crate::hamiltonian::board::{Geometry, MoveSet};
    use crate::hamiltonian::order::RowOrder;

    /// Runs a whole sweep state by state and returns the first key two of whose parents have
    /// different `neighbourhood`s, or the number of (step, key) pairs checked if there is none.
    fn first_parents_apart<K: StateKey>(
        matrix: &TransferMatrix<K>,
        neighbourhood: impl Fn(usize, K) -> u64,
    ) -> std::result::Result<usize, (usize, K)> {
        let mut layer = vec![matrix.start_key()];
        let mut checked = 0;
        for cell in 0..matrix.walked().cells() {
            let mut parents: HashMap<K, u64> = HashMap::new();
            let mut apart = None;
            for &key in &layer {
                let own = neighbourhood(cell, key);
                matrix.expand(
                    cell,
                    key,
                    &mut |child| {
                        if *parents.entry(child).or_insert(own) != own {
                            apart.get_or_insert((cell, child));
                        }
                    },
                    &mut |_| {},
                );
            }
            if let Some(apart) = apart {
                return Err(apart);
            }
            checked += parents.len();
            layer = parents.into_keys().collect();
        }
        Ok(checked)
    }

    #[test]
    fn every_parent_of_a_key_has_its_neighbourhood() {
        // Sweeps (every length, mirror folding at mirror points), single boards, open tours and
        // both kinds, 64- and 128-bit keys, and a leaper whose reach is not the knight's.
        let cases: Vec<(TransferMatrix<u64>, usize)> = vec![
            (TransferMatrix::new(knight(5, 8), 1, TourKind::Closed).unwrap(), 10_000),
            (TransferMatrix::new(knight(6, 6), 6, TourKind::Closed).unwrap(), 10_000),
            (TransferMatrix::new(knight(4, 8), 1, TourKind::Open).unwrap(), 10_000),
            (TransferMatrix::new(knight(5, 6), 1, TourKind::Both).unwrap(), 10_000),
            (
                unchecked(TransferMatrix::new(Geometry::new(4, 9, MoveSet::leaper(1, 3).unwrap()), 1, TourKind::Open)),
                1_000,
            ),
        ];
        for (matrix, at_least) in &cases {
            let checked = first_parents_apart(matrix, |cell, key| matrix.neighbourhood_of(cell, key));
            assert!(matches!(checked, Ok(n) if n >= *at_least), "{:?}: {checked:?}", matrix.walked());
        }
        let wide = TransferMatrix::<u128>::new(knight(5, 6), 1, TourKind::Both).unwrap();
        assert!(first_parents_apart(&wide, |cell, key| wide.neighbourhood_of(cell, key)).is_ok());
    }

    #[test]
    fn reading_the_touched_cells_or_ignoring_the_mirror_splits_parents() {
        // The check above can fail: the kinds of every cell, or the untouched cells' kinds
        // without the mirror's symmetric reading, put parents of one key apart.
        let matrix = TransferMatrix::<u64>::new(knight(5, 6), 1, TourKind::Closed).unwrap();
        let every_cell = |cell: usize, key: u64| {
            let (full, ends) = matrix.codec().kinds(key, cell);
            full | ends << 32
        };
        assert!(first_parents_apart(&matrix, every_cell).is_err());
        let no_mirror = |cell: usize, key: u64| {
            let (full, ends) = matrix.codec().kinds(key, cell);
            let untouched = matrix.untouched.get(cell).copied().unwrap_or(u64::MAX);
            (full & untouched) | (ends & untouched) << 32
        };
        let (cell, _) = first_parents_apart(&matrix, no_mirror).unwrap_err();
        assert!(matrix.mirrors_after(cell), "parents split at cell {cell}, which is no mirror point");
    }

    /// The 6 x 6 board's closed-tour sweep by the grouped expansion into the in-memory store, its
    /// groups split when their tables hold `entries`, step by step: the tours closed, the states
    /// read, the successors emitted and the layer made.
    fn six_by_six_steps(entries: usize) -> Vec<(u64, u64, u64, u64)> {
        use crate::engine::kernel::expand_layer_splitting_at;
        use crate::engine::store::{MemoryStore, StateStore};
        use crate::engine::Moduli;
        let matrix = TransferMatrix::<u64>::new(knight(6, 6), 6, TourKind::Closed).unwrap();
        let moduli = Moduli::saturating();
        let mut store = MemoryStore::<u64>::new(31, moduli.clone(), u64::MAX);
        store.emit(0, &matrix.start_record(&moduli)).unwrap();
        store.finish_step().unwrap();
        let buckets: Vec<usize> = (0..store.buckets()).collect();
        let mut steps = Vec::new();
        for cell in 0..matrix.walked().cells() {
            let outcome = expand_layer_splitting_at(&matrix, cell, &moduli, &store, &buckets, entries).unwrap();
            let made = store.finish_step().unwrap().states;
            steps.push((outcome.closed[6], outcome.read, outcome.emitted, made));
        }
        steps
    }

    /// The tours and the layers of [`six_by_six_steps`].
    fn tours_and_layers(steps: &[(u64, u64, u64, u64)]) -> (u64, Vec<u64>) {
        (steps.iter().map(|step| step.0).sum(), steps.iter().map(|step| step.3).collect())
    }

    #[test]
    fn groups_split_for_their_size_are_merged_by_the_store() {
        // Whole groups reach the store merged (it appends them); a group whose table fills is
        // handed on in parts, which the store must merge: else its keys would come twice and
        // the layers grow.
        let (tours, layers) = tours_and_layers(&six_by_six_steps(crate::engine::kernel::grouped::TABLE_ENTRIES));
        assert_eq!(tours, 9862);
        let (split_tours, split_layers) = tours_and_layers(&six_by_six_steps(8));
        assert_eq!(split_tours, 9862);
        assert_eq!(split_layers, layers);
        assert!(layers.iter().max() > Some(&1000));
    }

    #[test]
    fn a_thread_reuses_its_expander_from_step_to_step_and_sweep_to_sweep() {
        // One thread: every step after the first, and the whole second sweep, run on the
        // expander the thread kept; its counters must start from zero each time.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let sweep = || six_by_six_steps(crate::engine::kernel::grouped::TABLE_ENTRIES);
        let first = pool.install(sweep);
        assert!(pool.install(crate::engine::kernel::thread_keeps_an_expander));
        assert_eq!(tours_and_layers(&first).0, 9862);
        // Each step reads the layer the step before made.
        assert!(first.windows(2).all(|pair| pair[1].1 == pair[0].3));
        assert_eq!(pool.install(sweep), first);
    }

    #[test]
    fn the_neighbourhood_example_of_the_docs() {
        // The knight 3 wide, row-major: cell 2's forward neighbours at positions 1 and 5; read
        // at 2, 4, 6.
        let matrix =
            TransferMatrix::<u64>::in_order(knight(3, 4), 1, TourKind::Closed, RowOrder::row_major(3)).unwrap();
        assert_eq!(matrix.forward_mask[2], 1 << 1 | 1 << 5);
        assert_eq!(matrix.untouched[2], 1 << 2 | 1 << 3 | 1 << 4 | 1 << 6);
        assert_eq!(matrix.symmetric[2], 1 << 2 | 1 << 4 | 1 << 6);
        assert_eq!(mirror_mask(matrix.mirror_of(2), 1 << 4), 1 << 6);
    }
}
