//! The mirror symmetry. Where the cells processed are symmetric left to right (the mirror
//! points: every row start, and within a row after each pair of columns when the row is
//! processed from its edges inwards, [`crate::hamiltonian::order`]), a state and its
//! left-right mirror image have the same number of completions for every length, so one key
//! stands for both ([`shared_key`](TransferMatrix::shared_key)), which halves those layers.
//! The key layout names them (`mirrors after 0,2,4`: after that many cells of a row).
//!
//! * [`images`]: the mirror images of the window's positions at one mirror point, by table.

pub(super) mod images;

use std::cmp::Ordering;

use super::build::TransferMatrix;
use crate::engine::StateKey;
use crate::hamiltonian::frontier::{FrontierState, FREE, FULL};
use images::{mirror_mask, Mirror, NO_MIRROR, OUTSIDE};

impl<K: StateKey> TransferMatrix<K> {
    /// Whether the state emitted after `cell` stands for its mirror image too (the cells
    /// processed are symmetric).
    #[inline]
    pub(super) fn mirrors_after(&self, cell: usize) -> bool {
        self.mirror_after[cell] != NO_MIRROR
    }

    /// The mirror images after `cell`, one of [`mirrors_after`](Self::mirrors_after).
    #[inline]
    pub(super) fn mirror_of(&self, cell: usize) -> &Mirror {
        &self.mirrors[self.mirror_after[cell] as usize]
    }

    /// The key that stands for the window `next[1..=R]` and its left-right mirror image, after
    /// `cell` (the window's own where some cell's image falls outside it). Either would do
    /// for the counts, so long as a state and its image choose the same one; the choice decides
    /// how the row's states then meet. The one chosen is the one whose kinds, read from the
    /// window's first cell on, have a FULL cell first (where the FULL cells are symmetric, a
    /// path end first; where those are too, the lesser key). The first cells are the next ones
    /// processed, and states that agree on the rest meet once those have left the window. The
    /// lesser key of the two, the rule before, left the row starts' layers as they are and the
    /// layers within the rows 10-15% larger: 198.5 M states read by the 7 x 10 sweep against
    /// 169.1 M now. The kinds' images are table lookups, so most states encode one key only.
    pub(super) fn shared_key(&self, cell: usize, next: &FrontierState) -> K {
        let mirror = self.mirror_of(cell);
        let (full, ends) = (next.full & !1, next.used & !next.full);
        let (full_image, ends_image) = (mirror_mask(mirror, full), mirror_mask(mirror, ends));
        if (full_image | ends_image) & OUTSIDE != 0 {
            return self.codec.encode(next, 1, cell + 1);
        }
        // Position p's FULL bit at 63 - p, its path-end bit at 31 - p: the greater reading has
        // the first FULL cell, then the first path end, of the two.
        let first_cells_first = |full: u64, ends: u64| full.reverse_bits() | ends.reverse_bits() >> 32;
        match first_cells_first(full, ends).cmp(&first_cells_first(full_image, ends_image)) {
            Ordering::Greater => self.codec.encode(next, 1, cell + 1),
            Ordering::Less => self.mirrored_key(cell, mirror, next),
            Ordering::Equal => self.codec.encode(next, 1, cell + 1).min(self.mirrored_key(cell, mirror, next)),
        }
    }

    /// The key of the left-right mirror image of the window `next[1..=R]` after `cell` by
    /// `mirror`, whose used cells all have their images inside the window.
    fn mirrored_key(&self, cell: usize, mirror: &Mirror, next: &FrontierState) -> K {
        let mut image = FrontierState::empty();
        image.ends_used = next.ends_used;
        let mut used = next.used & !1;
        while used != 0 {
            let p = used.trailing_zeros() as usize;
            used &= used - 1;
            let q = mirror.image[p - 1];
            debug_assert_ne!(q, NO_MIRROR);
            match next.mate[p] {
                FULL => image.set_full(q as usize),
                FREE => image.set_end(q as usize, FREE),
                mate => image.set_end(q as usize, mirror.image[mate as usize - 1]),
            }
        }
        self.codec.encode(&image, 0, cell + 1)
    }
}
