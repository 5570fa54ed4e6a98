//! The transfer matrix for tours: one cell at a time, frontier state to frontier states.
//!
//! [`TransferMatrix::expand`] takes the state before cell `c` (see [`super::frontier`]) and
//! produces every state before cell `c + 1`:
//!
//! 1. Cell `c` needs `2 - degree` more edges, all forward (its backward edges were chosen by
//!    earlier cells). Each choice of that many forward neighbours that are not FULL is one branch.
//! 2. Each edge joins partial paths: EMPTY-EMPTY starts a path, EMPTY-end extends one, end-end
//!    joins two paths, and joining the two ends of *one* path closes a cycle.
//! 3. A cycle is allowed only if it is the whole board of some length `K`: nothing else in the
//!    window is a path end, the FULL cells form a prefix that ends on a row boundary `K * width`,
//!    and everything after is EMPTY. The branch then adds its count to the total for `K` rows.
//!    This is how one sweep over `n` rows yields the counts for every length `1..=n`.
//! 4. Otherwise the window moves on by one cell. Before emitting, the branch is pruned if some
//!    cell whose neighbourhood just shrank (a forward neighbour of `c`, or a neighbour of a cell
//!    that became FULL) can no longer reach degree 2: its neighbours that are still unprocessed
//!    and not FULL are fewer than the edges it lacks. A path end always lacks one edge; an EMPTY
//!    cell lacks two only if every board the state can still complete contains it (its row is
//!    at most the last row touched so far, or below the shortest length asked for): in a sweep,
//!    an EMPTY cell past the end of a shorter board may stay EMPTY. Where the board has at most
//!    64 cells left, closed tours (and open ones once both tour ends are placed) are pruned
//!    harder: every cell left is checked at once, with the moves forced on cells that have
//!    exactly the edges they need ([`super::residual`]); open tours with tour ends still to
//!    place, by the cells left short of edges, at most one per tour end. That check implies the
//!    neighbourhood test, which there is left out.
//!    Pruning only removes states with no completion, so counts do not depend on it; it keeps
//!    the layers small.
//!
//! 5. Where the cells processed are symmetric left to right (at row starts, and within a row
//!    after each pair of columns when a row is processed from its edges inwards: see
//!    [`super::order`]), a state and its mirror image have the same number of completions for
//!    every length. One key stands for both, which halves those layers: the one whose FULL
//!    cells come first, read from the window's first cell (see `shared_key`: which of the two
//!    stands for both decides how the states meet).
//!
//! "Cell" here is a *position*: the board's cells numbered in the order they are processed,
//! row by row, within a row in the order [`super::order`] chooses (plain boards), or row-major
//! (the folded boards of `--distinct`).
//!
//! Open tours (Hamiltonian paths) add one more choice per cell, described in [`super::ends`]: a
//! cell may be one of the tour's two ends, with one edge fewer. [`TourKind`] says which tours a
//! sweep counts; counting both costs one sweep, since the closed tours are the cycles among the
//! states that have no tour end yet.
//!
//! The neighbourhood test is bit arithmetic: `neighbours[v]` holds bit `o + R` for each
//! neighbour of cell `v` at offset `o` (`|o| <= R`, the reach), and the blocked
//! positions of the window shifted into the same frame are masked out.

use std::cmp::Ordering;
use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};

use super::board::Geometry;
use super::bound::{cycle_bound_bits, path_bound_bits};
use super::frontier::{
    dense_worst_case_bits, live_positions, FrontierCodec, FrontierState, EMPTY, FREE, FRONTIER_FORMAT, FULL, MAX_WINDOW,
};
use super::order::{self, RowOrder};
use super::residual::{MoveMasks, MAX_REGION};
use crate::engine::{ProfileHint, StateKey, StepPosition, SweepJob, Transition};
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

    /// The tour a slot counts.
    pub fn of(slot: usize, kind: TourKind) -> SlotTour {
        match kind {
            TourKind::Both => SlotTour { open: slot % 2 == 1, rows: slot / 2 },
            kind => SlotTour { open: kind == TourKind::Open, rows: slot },
        }
    }
}

/// The closed-tour transition of `geometry` (see [`tours`]).
pub fn closed_tours(geometry: Geometry, min_rows: usize) -> Result<Box<dyn SweepJob>> {
    tours(geometry, min_rows, TourKind::Closed)
}

/// The transition counting `kind` tours of `geometry` (its `rows` is the longest length the
/// sweep reaches; counts are reported for `min_rows..=rows`), with the narrowest key its
/// frontier fits: 64 bits where the worst case allows, 128 bits beyond.
pub fn tours(geometry: Geometry, min_rows: usize, kind: TourKind) -> Result<Box<dyn SweepJob>> {
    let order = plain_order(&geometry, kind);
    if key_bits(&geometry, &order, kind) <= u64::BITS {
        Ok(Box::new(TransferMatrix::<u64>::in_order(geometry, min_rows, kind, order)?))
    } else {
        Ok(Box::new(TransferMatrix::<u128>::in_order(geometry, min_rows, kind, order)?))
    }
}

/// The worst-case key of `kind` tours of a board of `geometry`'s width in `order`, whatever its
/// length (a board tall enough for every move): the window's positions that can hold an edge
/// ([`live_positions`]), or more than 128 bits where the window is longer than the codec
/// holds.
fn key_bits(geometry: &Geometry, order: &RowOrder, kind: TourKind) -> u32 {
    let window = order::window(geometry, order);
    if window > MAX_WINDOW {
        return u128::BITS + 1;
    }
    let tall = Geometry::new(geometry.width, geometry.reach() / geometry.width.max(1) + 4, geometry.moves.clone());
    dense_worst_case_bits(&live_positions(&order.edges(&tall), window), kind.max_free())
}

/// The order of a plain board's cells ([`super::order`]): the first of
/// [`RowOrder::candidates`] whose key is as narrow as row-major order's and whose moves the
/// check of the cells left holds (row-major order always qualifies).
fn plain_order(geometry: &Geometry, kind: TourKind) -> RowOrder {
    let narrow = key_bits(geometry, &RowOrder::row_major(geometry.width), kind) <= u64::BITS;
    let checked = MoveMasks::new(geometry).is_some();
    RowOrder::candidates(geometry.width)
        .into_iter()
        .find(|order| {
            let bits = key_bits(geometry, order, kind);
            bits <= u128::BITS
                && (bits <= u64::BITS || !narrow)
                && (MoveMasks::from_edges(&order.edges(geometry)).is_some() || !checked)
        })
        .unwrap_or_else(|| RowOrder::row_major(geometry.width))
}

/// The worst-case key of a plain board's frontier, in the order [`plain_order`] chooses.
pub fn plain_key_bits(geometry: &Geometry, kind: TourKind) -> u32 {
    key_bits(geometry, &plain_order(geometry, kind), kind)
}

/// What adding one edge did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Joined {
    /// Paths were started, extended or joined; none is complete.
    Partial,
    /// The two ends of one path met: a cycle.
    Cycle,
    /// Two paths that each end at a tour end were joined: one path between the two tour ends.
    EndToEnd,
}

/// The transfer matrix of one geometry: precomputed neighbourhoods and the frontier codec.
pub struct TransferMatrix<K> {
    geometry: Geometry,
    codec: FrontierCodec<K>,
    kind: TourKind,
    /// The reach `R` of the move set: the window holds `R` cells between steps.
    reach: usize,
    /// Per cell: window positions (1..=R) of its forward neighbours on the board.
    pub(super) forward: Vec<Vec<u8>>,
    /// Per cell: the same positions as a bit mask.
    forward_mask: Vec<u64>,
    /// Per cell: bit `o + R` for each neighbour at offset `o`.
    neighbours: Vec<u64>,
    /// Per cell: the first cell of the next row.
    row_end: Vec<usize>,
    /// Cells before this one belong to every board whose count is wanted.
    required_end: usize,
    /// The shortest length whose count is wanted.
    min_rows: usize,
    /// The order of the cells within a row: cell `c` of the matrix is the board cell
    /// `order.cell(c)`.
    order: RowOrder,
    /// The mirror images at each point of a row where the cells processed are symmetric.
    mirrors: Vec<Mirror>,
    /// Per cell: the index in `mirrors` of the images after it, where a state and its mirror
    /// image share a key ([`NO_MIRROR`] elsewhere).
    mirror_after: Vec<u8>,
    /// Per cell: the window positions no expansion at that cell gives an edge (all but the cell
    /// itself and its forward neighbours), whose kinds make the cell's neighbourhoods.
    untouched: Vec<u64>,
    /// Per cell after which the cells processed are symmetric: the untouched positions whose
    /// mirror images (in the next state's frame) are untouched too; the neighbourhood there is
    /// read on them only.
    symmetric: Vec<u64>,
    /// The moves as masks for the check of the cells left near the board's end
    /// ([`super::residual`]): plain boards only (not the folds of `--distinct`).
    move_masks: Option<MoveMasks>,
    /// The first cell whose successors the check of the cells left prunes (`usize::MAX`:
    /// none); before it the neighbourhood test does ([`survives`](Self::survives)).
    residual_from: usize,
    /// Tests: the neighbourhood test runs after `residual_from` too.
    #[cfg(test)]
    neighbours_everywhere: bool,
}

const NO_MIRROR: u8 = u8::MAX;

/// The left-right mirror image of the window at one point of a row where the cells processed
/// are symmetric.
struct Mirror {
    /// The window position (next state's frame) of the image of each position (`NO_MIRROR`
    /// where the image falls outside the window).
    image: [u8; MAX_WINDOW + 1],
    /// [`mirror_mask`] by table: for each byte of a mask (positions
    /// `8i` to `8i + 7`), the images of its positions ([`OUTSIDE`] for an image outside the
    /// window).
    bytes: Box<[[u64; 256]; 4]>,
}

impl Mirror {
    /// The images of a window of `reach` positions that starts after the first `processed`
    /// cells of a row.
    fn new(order: &RowOrder, processed: usize, reach: usize) -> Self {
        let width = order.width();
        let mut image = [NO_MIRROR; MAX_WINDOW + 1];
        for (p, image) in image.iter_mut().enumerate().take(reach) {
            let at = processed + p;
            let q = at / width * width + order.mirror(at % width);
            // The processed cells are symmetric, so images of later cells are later: q >= processed.
            if q - processed < reach {
                *image = (q - processed) as u8;
            }
        }
        let mut bytes = Box::new([[0u64; 256]; 4]);
        for (i, table) in bytes.iter_mut().enumerate() {
            for (byte, images) in table.iter_mut().enumerate() {
                // Position 0 (the cell just processed) is never asked about.
                for p in (0..8).filter(|j| byte >> j & 1 == 1).map(|j| 8 * i + j).filter(|&p| p > 0) {
                    *images |= match image[p - 1] {
                        NO_MIRROR => OUTSIDE,
                        q => 1 << (q + 1),
                    };
                }
            }
        }
        Mirror { image, bytes }
    }
}

/// The image [`mirror_mask`] gives a position whose mirror image falls outside
/// the window: a bit no window position has.
const OUTSIDE: u64 = 1 << 63;

impl<K: StateKey> TransferMatrix<K> {
    /// The transfer matrix for `kind` tours on `geometry` (its `rows` is the longest length the
    /// sweep reaches). Counts are exact for lengths `min_rows..=geometry.rows`; shorter boards may
    /// be pruned away, so a single board (`min_rows = rows`) prunes hardest.
    pub fn new(geometry: Geometry, min_rows: usize, kind: TourKind) -> Result<Self> {
        Self::in_order(geometry.clone(), min_rows, kind, plain_order(&geometry, kind))
    }

    /// [`new`](Self::new) with the cells of each row processed in `order`.
    pub(super) fn in_order(geometry: Geometry, min_rows: usize, kind: TourKind, order: RowOrder) -> Result<Self> {
        let reach = order::window(&geometry, &order);
        let edges = order.edges(&geometry);
        let mut matrix = Self::with_edges(geometry, min_rows, kind, reach, &edges, true, order)?;
        matrix.set_move_masks(MoveMasks::from_edges(&edges));
        Ok(matrix)
    }

    /// The transfer matrix of any graph on the cells `0..edges.len()`, processed in that order,
    /// whose edges join cells at most `reach` apart (`edges[v]`: the neighbours of `v`; a board
    /// in its [`RowOrder`], or the folded boards of [`super::distinct`]). `geometry` gives the
    /// rows (its width) and the error messages; `mirror_rows` says whether a state and its
    /// left-right image may share a key where the cells processed are symmetric (true only when
    /// the rest of the graph is symmetric left to right), `order` which cell is whose image.
    pub(super) fn with_edges(
        geometry: Geometry,
        min_rows: usize,
        kind: TourKind,
        reach: usize,
        edges: &[Vec<usize>],
        mirror_rows: bool,
        order: RowOrder,
    ) -> Result<Self> {
        let min_rows = min_rows.clamp(1, geometry.rows.max(1));
        let max_free = kind.max_free();
        let codec = FrontierCodec::fitting(
            reach,
            max_free,
            || live_positions(edges, reach),
            |needed_bits| {
                // Keys grow with the width: the widest that fits is the last of a run from 1.
                let fits = |w: &usize| {
                    let narrower = Geometry::new(*w, geometry.rows, geometry.moves.clone());
                    RowOrder::candidates(*w).iter().any(|order| key_bits(&narrower, order, kind) <= K::BITS)
                };
                Error::FrontierTooWide {
                    width: geometry.width,
                    moves: geometry.moves.to_string(),
                    window: reach,
                    needed_bits,
                    available_bits: K::BITS,
                    max_width: (1..=geometry.width).take_while(fits).last().unwrap_or(0),
                }
            },
        )?;
        debug_assert!(2 * reach + 1 < 64, "the codec admits no window this long");
        let cells = edges.len();
        let mut forward = Vec::with_capacity(cells);
        let mut forward_mask = Vec::with_capacity(cells);
        let mut neighbours = Vec::with_capacity(cells);
        for (cell, adjacent) in edges.iter().enumerate() {
            let mut positions: Vec<u8> = Vec::new();
            let mut mask = 0u64;
            for &v in adjacent {
                let offset = v as i64 - cell as i64;
                debug_assert!(offset != 0 && offset.unsigned_abs() as usize <= reach);
                mask |= 1 << (offset + reach as i64);
                if offset > 0 {
                    positions.push(offset as u8);
                }
            }
            positions.sort_unstable();
            positions.dedup();
            forward_mask.push(positions.iter().fold(0u64, |m, &p| m | 1 << p));
            forward.push(positions);
            neighbours.push(mask);
        }
        let row_end = (0..cells).map(|c| (c / geometry.width + 1) * geometry.width).collect();
        let required_end = (min_rows.min(geometry.rows) * geometry.width).min(cells);
        // Where the cells processed are symmetric: after each cell that leaves `k` cells of its
        // row processed (0 at a row's end), for the `k` the order makes symmetric.
        let width = geometry.width;
        debug_assert_eq!(order.width(), width);
        let symmetric_points: Vec<usize> =
            (0..width).filter(|&k| mirror_rows && order.symmetric_after(if k == 0 { width } else { k })).collect();
        let mirrors: Vec<Mirror> = symmetric_points.iter().map(|&k| Mirror::new(&order, k, reach)).collect();
        let mirror_after: Vec<u8> = (0..cells)
            .map(|cell| match symmetric_points.iter().position(|&k| k == (cell + 1) % width) {
                Some(index) => index as u8,
                None => NO_MIRROR,
            })
            .collect();
        let window = (1u64 << reach) - 1;
        let untouched: Vec<u64> = forward_mask.iter().map(|&forward| window & !1 & !forward).collect();
        let symmetric = untouched
            .iter()
            .zip(&mirror_after)
            .map(|(&kept, &index)| {
                let Some(mirror) = mirrors.get(index as usize) else {
                    return 0;
                };
                let image = &mirror.image;
                let image_kept = |p: usize| image[p - 1] != NO_MIRROR && kept >> (image[p - 1] + 1) & 1 == 1;
                (1..reach).filter(|&p| kept >> p & 1 == 1 && image_kept(p)).fold(0u64, |m, p| m | 1 << p)
            })
            .collect();
        Ok(TransferMatrix {
            untouched,
            symmetric,
            move_masks: None,
            residual_from: usize::MAX,
            #[cfg(test)]
            neighbours_everywhere: false,
            geometry,
            codec,
            kind,
            reach,
            forward,
            forward_mask,
            neighbours,
            row_end,
            required_end,
            min_rows,
            order,
            mirrors,
            mirror_after,
        })
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    pub fn codec(&self) -> &FrontierCodec<K> {
        &self.codec
    }

    pub fn kind(&self) -> TourKind {
        self.kind
    }

    /// What a key means ([`Transition::key_layout`]): the move set and board, the tours and
    /// lengths counted, the order of a row's columns, the graph (a CRC of every cell's
    /// neighbours, for the folded boards of `--distinct`), where mirror images share a key,
    /// the window and the key's layout. Example: `tours (frontier 2): 1,2 on 9x10, closed
    /// tours of 1 to 10 rows, columns 0,8,2,6,4,1,7,3,5, graph 5c9e6f3a, mirrors after
    /// 0,2,4,6,8, window 23, dense 64-bit keys`.
    pub fn key_layout(&self) -> String {
        let columns: Vec<String> = (0..self.geometry.width).map(|i| self.order.column(i).to_string()).collect();
        let mut graph = crc32fast::Hasher::new();
        for mask in &self.neighbours {
            graph.update(&mask.to_le_bytes());
        }
        let width = self.geometry.width;
        let mirrors: Vec<String> = (0..width)
            .filter(|&k| self.mirror_after.get((k + width - 1) % width) != Some(&NO_MIRROR))
            .map(|k| k.to_string())
            .collect();
        format!(
            "tours (frontier {FRONTIER_FORMAT}): {} on {}x{}, {} tours of {} to {} rows, columns {}, graph {:08x}, \
             mirrors after {}, window {}, {} {}-bit keys",
            self.geometry.moves,
            width,
            self.geometry.rows,
            self.kind.name(),
            self.min_rows,
            self.geometry.rows,
            columns.join(","),
            graph.finalize(),
            if mirrors.is_empty() { "none".to_string() } else { mirrors.join(",") },
            self.reach,
            if self.codec.is_dense() { "dense" } else { "plain" },
            K::BITS
        )
    }

    /// The key of the empty frontier, where every sweep starts.
    pub fn start_key(&self) -> K {
        self.codec.encode(&FrontierState::empty(), 0, 0)
    }

    /// All successors of `key` (the state before `cell`): `emit` receives the key of each state
    /// before `cell + 1`, `close` the slot of each tour a branch completes.
    #[inline]
    pub fn expand(&self, cell: usize, key: K, emit: &mut impl FnMut(K), close: &mut impl FnMut(usize)) {
        if self.codec.first_is_full(key, cell) && !self.mirrors_after(cell) {
            // A FULL first cell takes no edge: the key moves on without being decoded (a fifth
            // of the states of the 7 x 8 sweep). Row ends decode it, for the mirror image.
            let (full, ends) = self.codec.kinds(key, cell);
            if self.survives(cell, full, full | ends, self.codec.ends_used(key), 0) {
                emit(self.codec.moved_past_full(key, cell));
            }
            return;
        }
        let state = self.codec.decode(key, cell);
        let forward = &self.forward[cell];
        match state.mate[0] {
            FULL => self.settle(cell, &state, 0, emit),
            EMPTY => {
                for (i, &a) in forward.iter().enumerate() {
                    if state.mate[a as usize] == FULL {
                        continue;
                    }
                    for &b in &forward[i + 1..] {
                        if state.mate[b as usize] == FULL {
                            continue;
                        }
                        let mut next = state;
                        let mut newly_full = 0;
                        let first = join(&mut next, 0, a as usize, &mut newly_full);
                        debug_assert_eq!(first, Joined::Partial);
                        let joined = join(&mut next, 0, b as usize, &mut newly_full);
                        self.after_join(cell, &next, newly_full, joined, emit, close);
                    }
                }
            }
            _ => {
                for &a in forward {
                    if state.mate[a as usize] == FULL {
                        continue;
                    }
                    let mut next = state;
                    let mut newly_full = 0;
                    let joined = join(&mut next, 0, a as usize, &mut newly_full);
                    self.after_join(cell, &next, newly_full, joined, emit, close);
                }
            }
        }
        if self.kind.has_ends() && state.ends_used < 2 && state.mate[0] != FULL {
            self.expand_tour_end(cell, &state, emit, close);
        }
    }

    /// Goes on from a branch whose edges are chosen: emits it, or counts the tour it closed.
    #[inline]
    pub(super) fn after_join(
        &self,
        cell: usize,
        next: &FrontierState,
        newly_full: u64,
        joined: Joined,
        emit: &mut impl FnMut(K),
        close: &mut impl FnMut(usize),
    ) {
        match joined {
            Joined::Partial => self.settle(cell, next, newly_full, emit),
            // A cycle is a closed tour only before any cell became a tour end.
            Joined::Cycle if self.kind != TourKind::Open && next.ends_used == 0 => {
                self.close_whole(cell, next, false, close)
            }
            Joined::Cycle => {}
            Joined::EndToEnd => self.close_whole(cell, next, true, close),
        }
    }

    /// Prunes, then emits the window moved on by one cell. Cell 0 is FULL here.
    #[inline]
    pub(super) fn settle(&self, cell: usize, next: &FrontierState, newly_full: u64, emit: &mut impl FnMut(K)) {
        if !self.survives(cell, next.full, next.used, next.ends_used, newly_full) {
            return;
        }
        if self.mirrors_after(cell) {
            // The cells processed are symmetric: a state and its mirror image have the same
            // completions, so one key stands for both.
            emit(self.shared_key(cell, next));
        } else {
            emit(self.codec.encode(next, 1, cell + 1));
        }
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
    fn shared_key(&self, cell: usize, next: &FrontierState) -> K {
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

    /// Whether a branch whose window (before it moves on) has the FULL cells `full` and the
    /// cells with an edge `used` (cell 0 among both), with `ends_used` tour ends placed, survives
    /// the prune: from [`residual_from`](Self::residual_from) on by the check of the cells left
    /// ([`may_complete`](Self::may_complete)), before it by the neighbourhood test
    /// ([`neighbours_allow`](Self::neighbours_allow)). `newly_full` are the cells this branch
    /// filled.
    ///
    /// The check of the cells left implies the neighbourhood test: it asks every cell the test
    /// asks about, of each board length the test admits, with no more edges open (rule 1 of
    /// [`super::residual`]), so where it runs the test is left out: the 7 x 8 sweep read the same
    /// 47,490,756 states either way (before row starts were chosen by their first cells: now
    /// 40,277,096), in 6% less time without the test
    /// (`the_check_of_the_cells_left_implies_the_neighbourhood_test`).
    #[inline]
    fn survives(&self, cell: usize, full: u64, used: u64, ends_used: u8, newly_full: u64) -> bool {
        // An EMPTY cell must be covered only if every board still possible contains it: boards
        // reach at least the last row anything touches, and at least `min_rows`.
        let last_used = 63 - used.leading_zeros() as usize;
        let covered_end = self.row_end[cell + last_used].max(self.required_end);
        if cell < self.residual_from {
            return self.neighbours_allow(cell, full, used, ends_used, newly_full, covered_end);
        }
        if self.neighbours_everywhere() && !self.neighbours_allow(cell, full, used, ends_used, newly_full, covered_end)
        {
            return false;
        }
        self.may_complete(cell, full, used, ends_used, covered_end)
    }

    /// The neighbourhood test of [`survives`](Self::survives): no cell whose neighbourhood just
    /// shrank (a forward neighbour of `cell`, or a neighbour of a cell in `newly_full`) is short
    /// of edges beyond the tour ends still to place. EMPTY cells count from `covered_end` on
    /// only.
    #[inline]
    fn neighbours_allow(
        &self,
        cell: usize,
        full: u64,
        used: u64,
        ends_used: u8,
        newly_full: u64,
        covered_end: usize,
    ) -> bool {
        let reach = self.reach;
        // Blocked window positions in the frame of `neighbours`: everything up to and including
        // cell 0 (processed) and every FULL cell.
        let blocked = ((full | 1) << reach) | ((1u64 << reach) - 1);
        let mut check = self.forward_mask[cell];
        let mut grown = newly_full;
        while grown != 0 {
            let x = grown.trailing_zeros() as usize;
            grown &= grown - 1;
            check |= (self.neighbours[cell + x] << x) >> reach;
        }
        // Cells past the window are untouched and checked when they enter it.
        check &= !(full | 1) & ((2u64 << reach) - 1);
        // Edges the cells checked lack beyond what they can still get: each tour end still to
        // place excuses one (none for closed tours).
        let mut spare_ends = self.kind.ends_to_place(ends_used);
        while check != 0 {
            let p = check.trailing_zeros() as usize;
            check &= check - 1;
            let lacking = if used >> p & 1 != 0 {
                1
            } else if cell + p < covered_end {
                2
            } else {
                continue;
            };
            let available = (self.neighbours[cell + p] & !(blocked >> p)).count_ones();
            if available < lacking {
                let short = lacking - available;
                if short > spare_ends {
                    return false;
                }
                spare_ends -= short;
            }
        }
        true
    }

    /// Whether the neighbourhood test runs where the check of the cells left does too (tests).
    #[inline]
    fn neighbours_everywhere(&self) -> bool {
        #[cfg(test)]
        {
            self.neighbours_everywhere
        }
        #[cfg(not(test))]
        {
            false
        }
    }

    /// Sets the masks of the check of the cells left (`None`: no check), and the first cell
    /// after which it runs: where the longest board has at most [`MAX_REGION`] cells left.
    fn set_move_masks(&mut self, masks: Option<MoveMasks>) {
        let cells = self.geometry.cells();
        self.residual_from = match masks {
            Some(_) => cells.saturating_sub(MAX_REGION + 1),
            None => usize::MAX,
        };
        self.move_masks = masks;
    }

    /// Whether the state may still complete a board of some length the sweep counts (boards end
    /// at `covered_end` or later, on a row boundary), by the check of [`super::residual`]: asked
    /// from [`residual_from`](Self::residual_from) on, where the longest board has at most
    /// [`MAX_REGION`] cells left. Open tours whose two tour ends
    /// are placed are checked as closed tours are: every cell left needs all its edges. Before
    /// that any cell may still become a tour end and do with one edge fewer, and the weaker
    /// test of [`MoveMasks::ends_allow`] holds (which every state a closed tour may complete
    /// passes too, so `--tours both` asks it of its states without a tour end).
    #[inline]
    fn may_complete(&self, cell: usize, full: u64, used: u64, ends_used: u8, covered_end: usize) -> bool {
        let Some(masks) = &self.move_masks else {
            return true;
        };
        let spare_ends = self.kind.ends_to_place(ends_used);
        let cells = self.geometry.cells();
        debug_assert!(cell >= self.residual_from && cells - (cell + 1) <= MAX_REGION);
        // Window position `p >= 1` is cell `cell + p`: bit `p - 1` from the next cell on.
        let (full, ends) = (full >> 1, (used & !full) >> 1);
        // Longest board first: a state that completes at all mostly completes there, and one
        // question then settles it (7 x 10 sweep: 11% less CPU time than shortest first).
        // Stepped a row at a time rather than counted by a division: this runs for every
        // successor, and a division was a twentieth of the prune's time.
        let width = self.geometry.width;
        debug_assert!(covered_end <= cells && (cells - covered_end).is_multiple_of(width));
        let mut end = cells;
        loop {
            if masks.cells_left_allow_cached(cell + 1, end, full, ends, spare_ends) {
                return true;
            }
            if end < covered_end + width {
                return false;
            }
            end -= width;
        }
    }

    /// Whether the state emitted after `cell` stands for its mirror image too (the cells
    /// processed are symmetric).
    #[inline]
    fn mirrors_after(&self, cell: usize) -> bool {
        self.mirror_after[cell] != NO_MIRROR
    }

    /// The mirror images after `cell`, one of [`mirrors_after`](Self::mirrors_after).
    #[inline]
    fn mirror_of(&self, cell: usize) -> &Mirror {
        &self.mirrors[self.mirror_after[cell] as usize]
    }

    /// The neighbourhood of a state before `cell` (see [`Transition::neighbourhood`]): the kinds
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

    /// A cycle (`open == false`) or a path between the two tour ends (`open`) completed at
    /// `cell`: counts it if it covers a whole board of some length.
    #[cold]
    pub(super) fn close_whole(&self, cell: usize, next: &FrontierState, open: bool, close: &mut impl FnMut(usize)) {
        let window = self.reach;
        if (1..=window).any(|p| next.mate[p] != EMPTY && next.mate[p] != FULL) {
            return; // another path is still open
        }
        let first_not_full = (!(next.full >> 1)).trailing_zeros() as usize + 1;
        if first_not_full <= window && next.full >> first_not_full != 0 {
            return; // a FULL cell after an EMPTY one: the tour skipped a cell
        }
        let end = cell + first_not_full;
        if end.is_multiple_of(self.geometry.width) {
            close(SlotTour { open, rows: end / self.geometry.width }.slot(self.kind));
        }
    }
}

impl<K: StateKey> Transition for TransferMatrix<K> {
    type Key = K;

    fn steps(&self) -> usize {
        self.geometry.cells()
    }

    /// One slot per board length `0..=rows` and kind of tour counted.
    fn slots(&self) -> usize {
        SlotTour { open: true, rows: self.geometry.rows }.slot(self.kind) + 1
    }

    fn reported(&self) -> RangeInclusive<usize> {
        let first = SlotTour { open: self.kind == TourKind::Open, rows: self.min_rows }.slot(self.kind);
        let last = SlotTour { open: self.kind != TourKind::Closed, rows: self.geometry.rows }.slot(self.kind);
        first..=last
    }

    /// A single board's own bound; for a sweep one bound that covers every length at once. A
    /// path bound exceeds the cycle bound of the same board, so it covers both kinds.
    fn bound_bits(&self) -> f64 {
        let single = self.min_rows == self.geometry.rows;
        if self.kind.has_ends() {
            path_bound_bits(&self.geometry, single)
        } else {
            cycle_bound_bits(&self.geometry, single)
        }
    }

    fn start(&self) -> K {
        self.start_key()
    }

    fn key_layout(&self) -> String {
        TransferMatrix::key_layout(self)
    }

    fn position(&self, step: usize) -> StepPosition {
        StepPosition { row: step / self.geometry.width, col: self.order.column(step % self.geometry.width) }
    }

    /// A board of `rows` rows closes at the latest at its own last cell (`close_whole`: the
    /// board ends where the window's first EMPTY cell is, past the cell being processed).
    fn last_step_of(&self, slot: usize) -> usize {
        let rows = SlotTour::of(slot, self.kind).rows.max(1);
        (rows * self.geometry.width).min(self.geometry.cells()) - 1
    }

    /// Layers rise and fall along each row. The rows within a move of the board's end lose most
    /// of their states (no path may leave the board), the last row all: measured on knight
    /// boards of widths 6 to 8, the row a move's height before the end keeps about a fifth of
    /// what its growth promised (half for open tours, whose ends may stay there), each row after
    /// it a fortieth (an eighth) of that. Tour ends in the first row inflate the second row's
    /// growth of open tours: the third keeps 0.6 of it as a logarithm (0.61-0.62 measured on
    /// `knight 5x16 --open --sweep` and `knight 6x10 --open`), closed tours the usual 0.8.
    ///
    /// The check of the cells left ([`super::residual`]) cuts closed tours' last rows further:
    /// against the same boards without it (knight 6 x 8, 7 x 8, 6 x 10, 7 x 10 and 6 x 12 single
    /// boards, 6 x 10, 7 x 10 and 5 x 16 sweeps), the two rows before those keep 0.58-0.76 and
    /// 0.19-0.29 of their states, the two rows within a move 0.15-0.27 and 0.10-0.21: 0.7, 0.25
    /// and 0.25 here (the last, the rows within a move alike: the second has few states left).
    /// A short board cut while still growing keeps more (7 x 6: 0.99 and 0.62 for the first
    /// two), which its time left, foretold with these, underestimates by up to 43% (eta.rs).
    /// Open tours, checked with all their edges once both ends are placed and before that by
    /// the cells short of edges (knight 6 x 8, 6 x 10 and 7 x 8 single boards, 5 x 16 and
    /// 6 x 12 sweeps, `--open`): 0.64-0.73, 0.41-0.44, then 0.32-0.37 and 0.13-0.16 within a
    /// move: 0.7, 0.42 and 0.33 (the last row within a move holds few states). `--tours both`
    /// keeps the cut without the check (not measured; the check cuts its last rows too, so its
    /// figures are upper ones).
    ///
    /// In the orders of [`super::order`] (from the edges inwards), the layers' shape changes
    /// twice. The board's end cuts less: the 6 x 14 sweep's last four rows keep 0.83, 0.36,
    /// 0.079 and 0.0023 of the settled rows' states (row-major: 0.75, 0.24, 0.043 and 0.0011),
    /// so closed tours take 0.85, 0.35 and 0.4. And the first row holds far fewer states (its
    /// cells merge with their mirror images pair by pair), which inflates the second row's
    /// growth on wide boards: the third row keeps 0.53 of it on `knight 7x10`, 0.48 on
    /// `knight 8x6 --sweep` (0.79 and 0.98 on 6 x 10 and 5 x 12, the usual 0.8 there), open
    /// tours 0.40 on `knight 7x10 --open` and 0.53 on `knight 6x8 --open` (0.45 here).
    fn profile_hint(&self) -> ProfileHint {
        let width = self.geometry.width;
        let rows_reached = (self.geometry.reach() / width).max(1);
        let reordered = self.order != RowOrder::row_major(width);
        let (first, fall) = if self.kind.has_ends() { (0.5, 0.12) } else { (0.2, 0.025) };
        let (before, within_a_move): (&[f64], f64) = match (self.move_masks.is_some(), self.kind) {
            (true, TourKind::Closed) if reordered => (&[0.85, 0.35], 0.4),
            (true, TourKind::Closed) => (&[0.7, 0.25], 0.25),
            (true, TourKind::Open) => (&[0.7, 0.42], 0.33),
            _ => (&[], 1.0),
        };
        let mut tail = before.to_vec();
        tail.extend((0..rows_reached as i32).map(|j| first * f64::powi(fall, j) * within_a_move));
        tail.push(0.0);
        let third_row_growth = match (self.kind.has_ends(), reordered) {
            (false, true) if width >= 7 => Some(0.5),
            (false, _) => None,
            (true, false) => Some(0.6),
            (true, true) => Some(0.45),
        };
        ProfileHint { row: self.geometry.width, tail, third_row_growth, rows_reached }
    }

    fn slot_name(&self, slot: usize) -> String {
        let tour = SlotTour::of(slot, self.kind);
        match self.kind {
            TourKind::Both => {
                format!("{}x{} {}", self.geometry.width, tour.rows, if tour.open { "open" } else { "closed" })
            }
            _ => format!("{}x{}", self.geometry.width, tour.rows),
        }
    }

    #[inline]
    fn expand(&self, step: usize, key: K, emit: &mut impl FnMut(K), close: &mut impl FnMut(usize)) {
        TransferMatrix::expand(self, step, key, emit, close)
    }

    const NEIGHBOURHOODS: bool = true;

    #[inline]
    fn neighbourhood(&self, step: usize, key: K) -> u64 {
        self.neighbourhood_of(step, key)
    }
}

/// Positions `p >= 1` of a state (frame of the state before the cell `mirror` follows) moved to
/// their mirror images in the same frame; a position whose image falls outside the window gives
/// [`OUTSIDE`]. Position 0 is left out.
#[inline]
fn mirror_mask(mirror: &Mirror, mask: u64) -> u64 {
    debug_assert!(mask >> 32 == 0);
    let byte = |i: usize| mirror.bytes[i][(mask >> (8 * i)) as usize & 0xFF];
    byte(0) | byte(1) | byte(2) | byte(3)
}

/// Adds the edge `x - y` (neither FULL) to `state`.
#[inline]
pub(super) fn join(state: &mut FrontierState, x: usize, y: usize, newly_full: &mut u64) -> Joined {
    let (mx, my) = (state.mate[x], state.mate[y]);
    match (mx, my) {
        (EMPTY, EMPTY) => {
            state.set_end(x, y as u8);
            state.set_end(y, x as u8);
        }
        (EMPTY, _) => {
            state.set_end(x, my);
            if my != FREE {
                state.mate[my as usize] = x as u8;
            }
            state.set_full(y);
            *newly_full |= 1 << y;
        }
        (_, EMPTY) => {
            state.set_end(y, mx);
            if mx != FREE {
                state.mate[mx as usize] = y as u8;
            }
            state.set_full(x);
            *newly_full |= 1 << x;
        }
        _ => {
            state.set_full(x);
            state.set_full(y);
            if mx as usize == y {
                return Joined::Cycle;
            }
            if mx == FREE && my == FREE {
                return Joined::EndToEnd;
            }
            if mx != FREE {
                state.mate[mx as usize] = my;
            }
            if my != FREE {
                state.mate[my as usize] = mx;
            }
            *newly_full |= (1 << x) | (1 << y);
        }
    }
    Joined::Partial
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::problems::tours::board::MoveSet;

    /// Runs a whole sweep state by state and returns the first key two of whose parents have
    /// different `neighbourhood`s, or the number of (step, key) pairs checked if there is none.
    fn first_parents_apart<K: StateKey>(
        matrix: &TransferMatrix<K>,
        neighbourhood: impl Fn(usize, K) -> u64,
    ) -> std::result::Result<usize, (usize, K)> {
        let mut layer = vec![matrix.start_key()];
        let mut checked = 0;
        for cell in 0..matrix.geometry().cells() {
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

    fn knight(width: usize, rows: usize) -> Geometry {
        Geometry::new(width, rows, MoveSet::knight())
    }

    /// `matrix` without the check of the cells left (the camel below: its moves keep a square's
    /// colour, so its graph has no tour and the check lets next to nothing live; unchecked, its
    /// states still exercise a reach that is not the knight's).
    fn unchecked(matrix: Result<TransferMatrix<u64>>) -> TransferMatrix<u64> {
        let mut matrix = matrix.unwrap();
        matrix.set_move_masks(None);
        matrix
    }

    #[test]
    fn every_parent_of_a_key_has_its_neighbourhood() {
        // Sweeps (every length, mirror folding at row starts), single boards, open tours and
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
            assert!(matches!(checked, Ok(n) if n >= *at_least), "{:?}: {checked:?}", matrix.geometry());
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
        assert!(matrix.mirrors_after(cell), "parents split at cell {cell}, which does not end a row");
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
        for cell in 0..matrix.geometry().cells() {
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

    /// Every layer of `matrix`'s sweep, state by state: the keys, each key's successors (indices
    /// into the next layer) and whether it closes a tour counted, and the tours per slot.
    #[allow(clippy::type_complexity)]
    fn layers_with_successors<K: StateKey>(
        matrix: &TransferMatrix<K>,
    ) -> (Vec<Vec<K>>, Vec<Vec<(Vec<usize>, bool)>>, Vec<u64>) {
        layers_with_successors_to(matrix, matrix.geometry().cells())
    }

    /// [`layers_with_successors_to`] with every layer decoded: the states, whatever their keys.
    #[allow(clippy::type_complexity)]
    fn decoded_layers_to<K: StateKey>(
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
    fn layers_with_successors_to<K: StateKey>(
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

    #[test]
    fn the_check_of_the_cells_left_prunes_dead_states_only() {
        // Without the check, on single boards and sweeps: a state is alive when some path from
        // it closes a tour counted. The check rejects no live state, and with it the counts are
        // the same. On knight boards it rejects most dead states; with twelve moves a cell
        // (knight and wazir) few cells have exactly the edges they need, and it rejects few.
        // Open tours before both tour ends are placed get the weaker test (no edge forced), so
        // fewer of the dead are rejected: 58-76% (47-49% when those states were not checked).
        let knight_and_wazir = MoveSet::leapers(&[(1, 2), (0, 1)]).unwrap();
        for (geometry, min_rows, kind, share) in [
            (knight(6, 6), 6, TourKind::Closed, 0.5),
            (knight(5, 10), 1, TourKind::Closed, 0.5),
            (knight(6, 7), 1, TourKind::Closed, 0.5),
            (Geometry::new(4, 6, knight_and_wazir), 1, TourKind::Closed, 0.0),
            (knight(5, 6), 6, TourKind::Open, 0.55),
            (knight(4, 8), 1, TourKind::Open, 0.55),
            (knight(5, 6), 1, TourKind::Both, 0.55),
        ] {
            let checked = TransferMatrix::<u64>::new(geometry.clone(), min_rows, kind).unwrap();
            let masks = checked.move_masks.as_ref().expect("tours of a plain board are checked");
            let plain = unchecked(TransferMatrix::new(geometry.clone(), min_rows, kind));
            let (layers, successors, tours) = layers_with_successors(&plain);
            let mut alive_after = vec![false; layers.last().unwrap().len()];
            let (mut dead, mut rejected) = (0, 0);
            for cell in (0..geometry.cells()).rev() {
                let alive: Vec<bool> = successors[cell]
                    .iter()
                    .map(|(children, closes)| *closes || children.iter().any(|&i| alive_after[i]))
                    .collect();
                let first_end = ((min_rows * geometry.width).max(cell + 1)).div_ceil(geometry.width) * geometry.width;
                for (&key, &alive) in layers[cell].iter().zip(&alive) {
                    let state = plain.codec().decode(key, cell);
                    let ends = state.used & !state.full;
                    let spare_ends = kind.ends_to_place(state.ends_used);
                    let allowed = (first_end..=geometry.cells())
                        .step_by(geometry.width)
                        .any(|end| masks.cells_left_allow(cell, end, state.full, ends, spare_ends));
                    assert!(allowed || !alive, "{geometry:?}: live state {:?} before cell {cell} rejected", state.mate);
                    dead += usize::from(!alive);
                    rejected += usize::from(!allowed);
                }
                alive_after = alive;
            }
            // The lengths asked for; a single board may prune away the tours of shorter ones.
            let (_, _, checked_tours) = layers_with_successors(&checked);
            let reported = Transition::reported(&checked);
            assert_eq!(checked_tours[reported.clone()], tours[reported], "{geometry:?}");
            assert!(rejected as f64 > share * dead as f64, "{geometry:?}: {rejected} of {dead} dead states rejected");
            assert!(rejected > 0, "{geometry:?}: no dead state rejected");
        }
    }

    #[test]
    fn the_check_of_the_cells_left_implies_the_neighbourhood_test() {
        // Where the check of the cells left runs, the neighbourhood test in front of it rejects
        // nothing more: every layer is the same with it and without it. Sweeps and single
        // boards, each kind of tour, and a board longer than the check reaches (5 x 14: its
        // first cells are tested by neighbourhood only).
        for (geometry, min_rows, kind) in [
            (knight(6, 6), 6, TourKind::Closed),
            (knight(5, 10), 1, TourKind::Closed),
            (knight(5, 14), 14, TourKind::Closed),
            (knight(5, 6), 6, TourKind::Open),
            (knight(4, 8), 1, TourKind::Open),
            (knight(5, 6), 1, TourKind::Both),
        ] {
            let checked = TransferMatrix::<u64>::new(geometry.clone(), min_rows, kind).unwrap();
            let mut both = TransferMatrix::<u64>::new(geometry.clone(), min_rows, kind).unwrap();
            both.neighbours_everywhere = true;
            let (layers, _, tours) = layers_with_successors(&checked);
            let (layers_both, _, tours_both) = layers_with_successors(&both);
            let states: usize = layers.iter().map(Vec::len).sum();
            assert!(states > 1000, "{geometry:?}: {states} states");
            assert_eq!(layers, layers_both, "{geometry:?} {kind:?}");
            assert_eq!(tours, tours_both, "{geometry:?} {kind:?}");
        }
        assert_eq!(TransferMatrix::<u64>::new(knight(5, 14), 14, TourKind::Closed).unwrap().residual_from, 5);
    }

    #[test]
    fn every_order_counts_the_same_tours_and_the_first_reads_fewest_states() {
        // The orders of `super::order` against row-major order, state by state: the same
        // tours of every length and kind, and fewer states read where the mirror symmetry
        // holds after every pair of columns.
        for (geometry, min_rows, kind) in [
            (knight(5, 8), 1, TourKind::Closed),
            (knight(6, 6), 6, TourKind::Closed),
            (knight(7, 6), 6, TourKind::Closed),
            (knight(4, 7), 1, TourKind::Open),
            (knight(5, 6), 1, TourKind::Both),
        ] {
            let runs: Vec<(Vec<u64>, usize)> = RowOrder::candidates(geometry.width)
                .into_iter()
                .map(|order| {
                    let matrix = TransferMatrix::<u64>::in_order(geometry.clone(), min_rows, kind, order).unwrap();
                    let (layers, _, tours) = layers_with_successors(&matrix);
                    (tours, layers.iter().map(Vec::len).sum())
                })
                .collect();
            let row_major = runs.last().unwrap();
            assert!(row_major.0.iter().any(|&tours| tours > 0), "{geometry:?}");
            assert!(runs.iter().all(|run| run.0 == row_major.0), "{geometry:?} {kind:?}: {runs:?}");
            assert!(runs[0].1 < row_major.1, "{geometry:?} {kind:?}: {runs:?}");
        }
    }

    /// `matrix` with the plain key layout: every window position stored before every cell.
    fn with_plain_keys<K: StateKey>(mut matrix: TransferMatrix<K>) -> TransferMatrix<K> {
        matrix.codec = FrontierCodec::new(matrix.reach, matrix.kind.max_free(), |bits| Error::Bug(format!("{bits}")))
            .expect("the plain layout fits");
        matrix
    }

    /// `matrix` with the dense key layout: only the positions some neighbour reaches.
    fn with_dense_keys<K: StateKey>(mut matrix: TransferMatrix<K>, edges: &[Vec<usize>]) -> TransferMatrix<K> {
        let live = live_positions(edges, matrix.reach);
        matrix.codec =
            FrontierCodec::with_live(matrix.reach, matrix.kind.max_free(), &live, |bits| Error::Bug(format!("{bits}")))
                .expect("the dense layout fits");
        assert!(matrix.codec.is_dense());
        matrix
    }

    #[test]
    fn dense_and_plain_keys_make_the_same_layers_state_by_state() {
        // The dense layout (positions no neighbour reaches left out) against the plain one, in
        // the order each board is counted in: every layer the same states in the same order
        // (decoded), the same successors, the same tours per slot. Widths 3 to 9, each kind of
        // tour, sweeps and single boards, a leaper other than the knight; at width 9 the dense
        // key is 64 bits where the plain one needs 128.
        let cases = [
            (knight(3, 8), 1, TourKind::Open),
            (knight(4, 7), 1, TourKind::Both),
            (knight(5, 8), 1, TourKind::Closed),
            (knight(6, 6), 6, TourKind::Closed),
            (knight(7, 6), 6, TourKind::Closed),
            (knight(8, 4), 1, TourKind::Closed),
            (knight(5, 6), 6, TourKind::Open),
            (Geometry::new(6, 5, MoveSet::leaper(1, 3).unwrap()), 1, TourKind::Both),
            (knight(9, 8), 1, TourKind::Closed),
            (knight(9, 3), 3, TourKind::Open),
        ];
        for (geometry, min_rows, kind) in cases {
            // The 9 x 8 sweep's first 14 cells (its layers then grow past a test's patience).
            let cells = if geometry.rows == 8 && geometry.width == 9 { 14 } else { geometry.cells() };
            let dense = TransferMatrix::<u64>::new(geometry.clone(), min_rows, kind);
            let plain = with_plain_keys(TransferMatrix::<u128>::new(geometry.clone(), min_rows, kind).unwrap());
            let (expected, successors, tours) = decoded_layers_to(&plain, cells);
            let states: usize = expected.iter().map(Vec::len).sum();
            assert!(states > 500, "{geometry:?} {kind:?}: {states} states");
            // The dense layout in 128-bit keys, and the matrix a count makes (64-bit keys, dense
            // where the plain layout does not fit them).
            let wide = TransferMatrix::<u128>::new(geometry.clone(), min_rows, kind).unwrap();
            let edges = wide.order.edges(&geometry);
            let wide = with_dense_keys(wide, &edges);
            assert_eq!(
                decoded_layers_to(&wide, cells),
                (expected.clone(), successors.clone(), tours.clone()),
                "{geometry:?} {kind:?}"
            );
            if let Ok(dense) = dense {
                assert_eq!(decoded_layers_to(&dense, cells), (expected, successors, tours), "{geometry:?} {kind:?}");
            }
        }
        // The flagship's width: 64-bit dense keys in the order that reads the fewest states.
        let nine = TransferMatrix::<u64>::new(knight(9, 10), 10, TourKind::Closed).unwrap();
        assert_eq!(nine.order, RowOrder::even_then_odd(9));
        assert_eq!(nine.reach, 23);
        assert!(nine.codec.is_dense());
        let seven = TransferMatrix::<u64>::new(knight(7, 10), 10, TourKind::Closed).unwrap();
        assert!(!seven.codec.is_dense(), "the plain layout fits 64 bits at width 7, and costs less");
        assert_eq!(super::super::frontier::worst_case_bits(nine.reach, 0), 77, "the plain layout needs 128 bits");
        assert_eq!(plain_key_bits(&knight(9, 10), TourKind::Closed), 61);
    }

    #[test]
    fn the_corner_of_the_residual_example() {
        // `residual`'s example: the knight on 4 x 5 after cell 3, cell 10 FULL; the corner 19
        // has one move left and lacks two. Without cell 10 FULL the cells left pass.
        let masks = MoveMasks::new(&knight(4, 5)).unwrap();
        assert!(!masks.degrees_allow(4, 20, 1 << (10 - 4), 0));
        assert!(masks.degrees_allow(4, 20, 0, 0));
        // `ends_allow`'s example: cells 4 and 19 one edge short each, so an open tour with both
        // ends to place passes and one with a single end left fails; a cell with no edge open
        // fails whatever is left (cell 19 with 13 FULL too).
        assert!(masks.ends_allow(4, 20, 1 << (10 - 4), 0, 2));
        assert!(!masks.ends_allow(4, 20, 1 << (10 - 4), 0, 1));
        assert!(!masks.ends_allow(4, 20, 1 << (10 - 4) | 1 << (13 - 4), 0, 2));
        assert!(masks.cells_left_allow_cached(4, 20, 1 << (10 - 4), 0, 2));
        assert!(!masks.cells_left_allow_cached(4, 20, 1 << (10 - 4), 0, 0));
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
