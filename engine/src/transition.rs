//! The transition seam: what a frontier problem tells the step engine, and nothing more.
//!
//! A sweep walks a board one *step* (one cell) at a time. Between steps a layer of states
//! (frontier keys, each with its count as residues) is all there is. A problem implements
//! [`Transition`]: the key of the empty frontier, and for one state before step `s` every state
//! it leads to before step `s + 1` (`emit`) and every complete object it closes (`close`, with
//! the result *slot* it counts in: for tours, the board length). The engine adds the counts of
//! equal keys, so the problem never sees a count.
//!
//! ```text
//!   layer before step s          expand(s, key)               layer before step s + 1
//!   key A  count 3      ──►  emit(C), emit(D), close(4)  ──►  key C  count 3 + 2
//!   key B  count 2      ──►  emit(C)                          key D  count 3
//!                                                             slot 4 += 3
//! ```
//!
//! The key type is the problem's choice ([`StateKey`]: 64 or 128 bits). The engine runs a
//! transition through [`SweepJob`], an object-safe face that every transition has for free
//! (a blanket impl, in [`crate::kernel`], beside the expansion loop it runs): the
//! coordinator, the worker and the stores hold a `dyn SweepJob` and never name a problem, while
//! the expansion loop inside is monomorphised for the transition and its key type. This file is
//! only the seam: it imports neither the kernel nor the driver ([`crate::sweep`]).

use std::ops::RangeInclusive;

use crate::error::Result;
use crate::key::{RecordLayout, StateKey};
use crate::store::{LayerSummary, StateStore};
use crate::Moduli;

/// Where a step is on the board, for logs and status: row and column, from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepPosition {
    pub row: usize,
    pub col: usize,
}

/// What a problem knows of the sizes of its layers, for estimates of the time left and for
/// `leaper plan` (whose one layer model, coordinator/src/plan/model.rs, reads it): the steps of
/// a row (layers rise and fall along a row, and a column's layer is best foretold by the same
/// column a row up), how the board's end cuts the last rows' layers down (multipliers of what
/// the rows before would let one expect, the last row last), how many rows one step's choices
/// reach (the knight's 2: layers grow until about twice that many rows are done), and two facts
/// about the frontier that shape its first rows: whether cells may be path ends (open tours),
/// and whether a row's cells are processed out of their order (from its edges inwards, the
/// first row's states merging with their mirror images). A sweep without rows (a graph's: its
/// one row is the whole sweep) may say instead how wide its frontier is before each step
/// (`widths`, one more than its steps; empty where not known): its layers grow about
/// exponentially in that width (coordinator/src/plan/widths.rs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileHint {
    pub row: usize,
    pub tail: Vec<f64>,
    pub rows_reached: usize,
    pub ends: bool,
    pub reordered: bool,
    pub widths: Vec<usize>,
}

/// A frontier problem's side of the step engine.
pub trait Transition: Send + Sync + 'static {
    /// The frontier key: `u64` where the worst case fits, `u128` where it does not.
    type Key: StateKey;

    /// Steps of one pass (cells of the board).
    fn steps(&self) -> usize;

    /// Result slots `close` may name: `0..slots()`.
    fn slots(&self) -> usize;

    /// The slots whose counts are reported (for tours: the board lengths asked for).
    fn reported(&self) -> RangeInclusive<usize>;

    /// `log2` of an upper bound on every reported count: it decides how many moduli a count
    /// needs to be exact.
    fn bound_bits(&self) -> f64;

    /// Whether the counts may be far below [`Transition::bound_bits`] (a long thin graph's: a
    /// ladder of 100,000 vertices is bounded by 86,000 bits and has one cycle), so that where
    /// the bound needs more moduli than leaper carries the exact 64-bit pass is still worth
    /// running, refused only if a count saturates. A board's bound follows its counts' growth:
    /// such a count is refused before any work.
    fn counts_may_be_far_below_bound(&self) -> bool {
        false
    }

    /// The key of the state every sweep starts from.
    fn start(&self) -> Self::Key;

    /// What a key means, in words: everything the keys depend on (the problem, the parameters
    /// that shape its frontier, the order of the steps, the key's layout and its version). A
    /// layer is read only by a transition that gives the same text: a job's manifest records
    /// it, and a resume and every worker compare, so that an edited `job.toml` or a release
    /// that lays keys out otherwise is refused by name rather than read as other states.
    fn key_layout(&self) -> String;

    /// The version of the way the problem lays out its keys (its codec, the order of its
    /// steps), counting from 1: raised by the problem whenever a release lays the same states
    /// out otherwise, and by nothing else. A job's manifest records it and every worker is sent
    /// it; both compare it before [`key_layout`](Self::key_layout), so that layers written by
    /// another leaper (another format) are told from a `job.toml` that now asks for other
    /// states (the same format, another layout). Each problem has its own: a new one for the
    /// tours refuses no other problem's jobs.
    fn key_format(&self) -> u32;

    /// Where step `step` is on the board.
    fn position(&self, step: usize) -> StepPosition;

    /// The name of slot `slot` in messages (for tours: the board, `8x6`).
    fn slot_name(&self, slot: usize) -> String;

    /// The last step that can close an object into `slot`: after it (in the last pass) the
    /// slot's count is final and is reported at once. By default only the sweep's end is sure.
    fn last_step_of(&self, _slot: usize) -> usize {
        self.steps() - 1
    }

    /// What it knows of its layers' sizes (by default: nothing, the pass is one row).
    fn profile_hint(&self) -> ProfileHint {
        ProfileHint { row: self.steps(), rows_reached: 1, ..ProfileHint::default() }
    }

    /// Whether the problem gives [`neighbourhood`](Self::neighbourhood)s: the engine then
    /// merges successors group by group in a small table before they reach the store (see
    /// [`crate::kernel::grouped`]).
    const NEIGHBOURHOODS: bool = false;

    /// A value of `key` that every state shares with every other state whose expansion at
    /// `step` can emit a key that `key`'s expansion emits: for tours, which cells of the window
    /// are EMPTY, FULL or a path end, outside the cells the step can touch. Only read when
    /// [`NEIGHBOURHOODS`](Self::NEIGHBOURHOODS) is true; any value is correct for a step past
    /// the last.
    fn neighbourhood(&self, _step: usize, _key: Self::Key) -> u64 {
        0
    }

    /// All successors of `key`, the state before step `step`: `emit` receives each state before
    /// `step + 1`, `close` the slot of each complete object the step finishes. Never emits
    /// [`StateKey::VACANT`].
    fn expand(&self, step: usize, key: Self::Key, emit: &mut impl FnMut(Self::Key), close: &mut impl FnMut(usize));
}

/// What one step did, wherever it ran.
#[derive(Clone, Debug, Default)]
pub struct StepOutcome {
    /// Residues of what the step closed, `slots * moduli` (index: slot).
    pub closed: Vec<u64>,
    /// States read from the current layer and successors emitted.
    pub read: u64,
    pub emitted: u64,
    /// Records handed to the store: `emitted`, or fewer where successors were merged first
    /// ([`crate::kernel::grouped`]).
    pub handed: u64,
    /// The merged next layer.
    pub layer: LayerSummary,
}

/// A transition as the engine holds it: object-safe, its key type hidden.
pub trait SweepJob: Send + Sync {
    fn steps(&self) -> usize;
    fn slots(&self) -> usize;
    fn reported(&self) -> RangeInclusive<usize>;
    fn bound_bits(&self) -> f64;
    fn counts_may_be_far_below_bound(&self) -> bool;
    fn position(&self, step: usize) -> StepPosition;
    fn slot_name(&self, slot: usize) -> String;
    fn last_step_of(&self, slot: usize) -> usize;
    fn profile_hint(&self) -> ProfileHint;

    /// Words of a key: 1 or 2.
    fn key_words(&self) -> usize;

    /// What a key means ([`Transition::key_layout`]).
    fn key_layout(&self) -> String;

    /// The version of the problem's key layout ([`Transition::key_format`]).
    fn key_format(&self) -> u32;

    /// The record layout for `residues` residues per state.
    fn layout(&self, residues: usize) -> RecordLayout {
        RecordLayout::new(self.key_words(), residues)
    }

    /// The start state with count 1 under `moduli`, as a record.
    fn start_record(&self, moduli: &Moduli) -> Vec<u64>;

    /// Expands the states of `buckets` of the store's current layer at `step` on all cores and
    /// emits their successors to the store; returns the closed counts (the layer is not merged).
    /// For every transition: [`crate::kernel::expand_layer`].
    fn expand_layer(
        &self,
        step: usize,
        moduli: &Moduli,
        store: &dyn StateStore,
        buckets: &[usize],
    ) -> Result<StepOutcome>;
}
