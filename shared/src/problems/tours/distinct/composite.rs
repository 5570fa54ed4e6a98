//! One sweep for every count Burnside's lemma needs: the board's own sweep and its folds, in
//! step.
//!
//! Each fold's states carry a tag in the key's top bits (the board's own have tag 0), so the
//! stores hold them side by side and never add a fold's count to another's. The folds start at
//! step 0 from the start state (count 1) and, being half the board, finish halfway; their slots
//! follow the board's. Running them inside the same sweep keeps `--job-dir`, resume, `--verify`
//! and the cluster working for them unchanged.

use std::ops::RangeInclusive;

use super::fold::FoldedTours;
use crate::engine::{ProfileHint, StateKey, StepPosition, Transition};
use crate::hamiltonian::transfer::TransferMatrix;

pub struct WithFolds<K> {
    pub(super) board: TransferMatrix<K>,
    pub(super) folds: Vec<FoldedTours<K>>,
    /// The names of the folds' slots.
    pub(super) names: Vec<String>,
    /// The lowest bit of the tag.
    pub(super) tag_shift: u32,
}

impl<K: StateKey> WithFolds<K> {
    fn first_fold_slot(&self) -> usize {
        Transition::slots(&self.board)
    }

    fn tag(&self, fold: usize) -> K {
        K::from_u64(fold as u64 + 1) << self.tag_shift
    }
}

impl<K: StateKey> Transition for WithFolds<K> {
    type Key = K;

    fn steps(&self) -> usize {
        Transition::steps(&self.board)
    }

    fn slots(&self) -> usize {
        self.first_fold_slot() + self.folds.len()
    }

    fn reported(&self) -> RangeInclusive<usize> {
        *Transition::reported(&self.board).start()..=self.slots() - 1
    }

    fn bound_bits(&self) -> f64 {
        Transition::bound_bits(&self.board)
    }

    fn start(&self) -> K {
        self.board.start_key()
    }

    fn key_layout(&self) -> String {
        let folds: Vec<String> = self
            .folds
            .iter()
            .zip(&self.names)
            .map(|(fold, name)| format!("{name}: {}", Transition::key_layout(fold)))
            .collect();
        format!("{}; folds tagged from bit {}: {}", self.board.key_layout(), self.tag_shift, folds.join("; "))
    }

    /// The board's own: the folds' keys are the frontier's, tagged.
    fn key_format(&self) -> u32 {
        Transition::key_format(&self.board)
    }

    fn position(&self, step: usize) -> StepPosition {
        Transition::position(&self.board, step)
    }

    fn slot_name(&self, slot: usize) -> String {
        match slot.checked_sub(self.first_fold_slot()) {
            Some(fold) => self.names[fold].clone(),
            None => Transition::slot_name(&self.board, slot),
        }
    }

    fn last_step_of(&self, slot: usize) -> usize {
        match slot.checked_sub(self.first_fold_slot()) {
            Some(fold) => Transition::steps(&self.folds[fold]) - 1,
            None => Transition::last_step_of(&self.board, slot),
        }
    }

    fn profile_hint(&self) -> ProfileHint {
        Transition::profile_hint(&self.board)
    }

    fn expand(&self, step: usize, key: K, emit: &mut impl FnMut(K), close: &mut impl FnMut(usize)) {
        let tag = (key >> self.tag_shift).low_u64() as usize;
        let first = self.first_fold_slot();
        if tag == 0 {
            self.board.expand(step, key, emit, close);
            if step == 0 {
                for (f, fold) in self.folds.iter().enumerate() {
                    let tag = self.tag(f);
                    fold.expand(0, fold.start(), &mut |k| emit(k | tag), &mut |_| close(first + f));
                }
            }
            return;
        }
        let f = tag - 1;
        let fold = &self.folds[f];
        if step < Transition::steps(fold) {
            let tag = self.tag(f);
            fold.expand(step, key & !tag, &mut |k| emit(k | tag), &mut |_| close(first + f));
        }
    }
}
