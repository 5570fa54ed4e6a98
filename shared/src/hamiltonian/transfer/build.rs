//! The transfer matrix of one geometry, built once before the sweep: the order of a row's
//! cells and the narrowest key that fits ([`tours`]), the tables every step reads (forward
//! neighbours, neighbour masks, where rows end, the mirror images at the mirror points, the
//! window positions a step leaves untouched), and what a key means
//! ([`key_layout`](TransferMatrix::key_layout): a job records it and a resume compares it).

use super::kinds::TourKind;
use super::mirror::images::{Mirror, NO_MIRROR};
use super::pruning::residual::MoveMasks;
use super::walked::Walked;
use crate::engine::{StateKey, SweepJob};
use crate::error::{Error, Result};
use crate::hamiltonian::board::Geometry;
use crate::hamiltonian::frontier::{
    dense_worst_case_bits, live_positions, FrontierCodec, FrontierState, FRONTIER_FORMAT, MAX_WINDOW,
};
use crate::hamiltonian::order::{self, RowOrder};

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

/// The transition counting `kind` tours (Hamiltonian cycles or paths) of a graph on the cells
/// `0..edges.len()`, processed in that order (`edges[v]`: the neighbours of `v`), as one row
/// ([`Walked::Graph`], `name` naming it): the window is the longest edge, the key the
/// narrowest that fits its live positions. `leaper graph` chooses the order.
pub fn graph_tours(name: String, edges: &[Vec<usize>], kind: TourKind) -> Result<Box<dyn SweepJob>> {
    let reach = order::reach(edges);
    let live = if reach > MAX_WINDOW { Vec::new() } else { live_positions(edges, reach) };
    let widths = live.iter().map(|mask| mask.count_ones() as usize).collect();
    let walked = Walked::Graph { vertices: edges.len(), name, widths };
    let bits = if reach > MAX_WINDOW { u128::BITS + 1 } else { dense_worst_case_bits(&live, kind.max_free()) };
    if bits <= u64::BITS {
        Ok(Box::new(TransferMatrix::<u64>::of_graph(walked, kind, reach, edges)?))
    } else {
        Ok(Box::new(TransferMatrix::<u128>::of_graph(walked, kind, reach, edges)?))
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

/// The order of a plain board's cells ([`order`]): the first of
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

/// Why the frontier of `walked` does not fit a `K` key (`needed_bits` in the worst case): for
/// a board, the widest board of its moves that fits; for a graph, its window.
fn too_wide<K: StateKey>(walked: &Walked, kind: TourKind, window: usize, needed_bits: u32) -> Error {
    match walked {
        Walked::Board(geometry) => {
            // Keys grow with the width: the widest that fits is the last of a run from 1.
            let fits = |w: &usize| {
                let narrower = Geometry::new(*w, geometry.rows, geometry.moves.clone());
                RowOrder::candidates(*w).iter().any(|order| key_bits(&narrower, order, kind) <= K::BITS)
            };
            Error::InvalidInput {
                input: format!("board width {} for the moves {}", geometry.width, geometry.moves),
                reason: format!(
                    "a frontier of {window} cells needs up to {needed_bits} bits per state, more than the \
                     {}-bit state key holds; the widest board this encoding supports for these moves is {}",
                    K::BITS,
                    (1..=geometry.width).take_while(fits).last().unwrap_or(0)
                ),
            }
        }
        Walked::Graph { name, .. } if window > MAX_WINDOW => Error::InvalidInput {
            input: format!("graph {name}"),
            reason: format!(
                "the order chosen puts two neighbours {window} places apart, and the frontier holds at most \
                 {MAX_WINDOW}; give a narrower order with --order FILE"
            ),
        },
        Walked::Graph { name, .. } => Error::InvalidInput {
            input: format!("graph {name}"),
            reason: format!(
                "its frontier in the order chosen (a window of {window} vertices) needs up to {needed_bits} bits \
                 per state, more than the {}-bit state key holds; give a narrower order with --order FILE",
                K::BITS
            ),
        },
    }
}

/// The transfer matrix of one geometry: precomputed neighbourhoods and the frontier codec.
pub struct TransferMatrix<K> {
    /// The board or graph whose cells are walked.
    pub(super) walked: Walked,
    /// Its cells per row and cells in all, kept at hand for the pruning of every successor.
    pub(super) width: usize,
    pub(super) cells: usize,
    pub(super) codec: FrontierCodec<K>,
    pub(super) kind: TourKind,
    /// The reach `R` of the move set: the window holds `R` cells between steps.
    pub(super) reach: usize,
    /// Per cell: window positions (1..=R) of its forward neighbours on the board.
    pub(super) forward: Vec<Vec<u8>>,
    /// Per cell: the same positions as a bit mask.
    pub(super) forward_mask: Vec<u64>,
    /// Per cell: bit `o + R` for each neighbour at offset `o`.
    pub(super) neighbours: Vec<u64>,
    /// Per cell: the first cell of the next row.
    pub(super) row_end: Vec<usize>,
    /// Cells before this one belong to every board whose count is wanted.
    pub(super) required_end: usize,
    /// The shortest length whose count is wanted.
    pub(super) min_rows: usize,
    /// The order of the cells within a row: cell `c` of the matrix is the board cell
    /// `order.cell(c)`.
    pub(super) order: RowOrder,
    /// The mirror images at each point of a row where the cells processed are symmetric.
    pub(super) mirrors: Vec<Mirror>,
    /// Per cell: the index in `mirrors` of the images after it, where a state and its mirror
    /// image share a key ([`NO_MIRROR`] elsewhere).
    pub(super) mirror_after: Vec<u8>,
    /// Per cell: the window positions no expansion at that cell gives an edge (all but the cell
    /// itself and its forward neighbours), whose kinds make the cell's neighbourhoods.
    pub(super) untouched: Vec<u64>,
    /// Per cell after which the cells processed are symmetric: the untouched positions whose
    /// mirror images (in the next state's frame) are untouched too; the neighbourhood there is
    /// read on them only.
    pub(super) symmetric: Vec<u64>,
    /// The moves as masks for the check of the cells left near the board's end
    /// ([`super::pruning::residual`]): plain boards only (not the folds of `--distinct`).
    pub(super) move_masks: Option<MoveMasks>,
    /// The first cell whose successors the check of the cells left prunes (`usize::MAX`:
    /// none); before it the neighbourhood test does ([`survives`](Self::survives)).
    pub(super) residual_from: usize,
    /// Tests: the neighbourhood test runs after `residual_from` too.
    #[cfg(test)]
    pub(super) neighbours_everywhere: bool,
    /// Tests: states with a FULL first cell are checked again as they are expanded.
    #[cfg(test)]
    pub(super) recheck_full_first: bool,
}

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
        let mut matrix = Self::with_edges(Walked::Board(geometry), min_rows, kind, reach, &edges, true, order)?;
        matrix.set_move_masks(MoveMasks::from_edges(&edges));
        Ok(matrix)
    }

    /// A graph's vertices as one row, in the order of `edges` ([`graph_tours`]), with the check
    /// of the cells left where its edges allow it.
    fn of_graph(walked: Walked, kind: TourKind, reach: usize, edges: &[Vec<usize>]) -> Result<Self> {
        let order = RowOrder::row_major(edges.len());
        let mut matrix = Self::with_edges(walked, 1, kind, reach, edges, false, order)?;
        matrix.set_move_masks(MoveMasks::from_edges(edges));
        Ok(matrix)
    }

    /// The transfer matrix of any graph on the cells `0..edges.len()`, processed in that order,
    /// whose edges join cells at most `reach` apart (`edges[v]`: the neighbours of `v`; a board
    /// in its [`RowOrder`], the folded boards of `--distinct`,
    /// or a graph's vertices in the order chosen for them, as one row).
    /// `walked` gives the rows (their width) and the error messages; `mirror_rows` says whether
    /// a state and its left-right image may share a key where the cells processed are symmetric
    /// (true only when the rest of the graph is symmetric left to right), `order` which cell is
    /// whose image.
    pub(crate) fn with_edges(
        walked: Walked,
        min_rows: usize,
        kind: TourKind,
        reach: usize,
        edges: &[Vec<usize>],
        mirror_rows: bool,
        order: RowOrder,
    ) -> Result<Self> {
        let min_rows = min_rows.clamp(1, walked.rows().max(1));
        let max_free = kind.max_free();
        let codec = FrontierCodec::fitting(
            reach,
            max_free,
            || live_positions(edges, reach),
            |needed_bits| too_wide::<K>(&walked, kind, reach, needed_bits),
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
        let width = walked.width();
        let row_end = (0..cells).map(|c| (c / width + 1) * width).collect();
        let required_end = (min_rows.min(walked.rows()) * width).min(cells);
        // Where the cells processed are symmetric: after each cell that leaves `k` cells of its
        // row processed (0 at a row's end), for the `k` the order makes symmetric.
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
            #[cfg(test)]
            recheck_full_first: false,
            width,
            cells: walked.cells(),
            walked,
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

    pub fn walked(&self) -> &Walked {
        &self.walked
    }

    pub fn codec(&self) -> &FrontierCodec<K> {
        &self.codec
    }

    pub fn kind(&self) -> TourKind {
        self.kind
    }

    /// What a key means ([`Transition::key_layout`](crate::engine::Transition::key_layout)): the move set and board, the tours and
    /// lengths counted, the order of a row's columns, the graph (a CRC of every cell's
    /// neighbours, for the folded boards of `--distinct`), where mirror images share a key,
    /// the window and the key's layout. Example: `tours (frontier 2): 1,2 on 9x10, closed
    /// tours of 1 to 10 rows, columns 0,8,2,6,4,1,7,3,5, graph 5c9e6f3a, mirrors after
    /// 0,2,4,6,8, window 23, dense 64-bit keys`; a graph's columns `0 to 99999 in order`.
    pub fn key_layout(&self) -> String {
        let width = self.walked.width();
        // A graph's vertices are one row, processed as the order chosen numbers them: a range,
        // not a list as long as the graph, which every checkpoint would repeat.
        let columns = match &self.walked {
            Walked::Graph { vertices, .. } => format!("0 to {} in order", vertices.saturating_sub(1)),
            Walked::Board(_) => (0..width).map(|i| self.order.column(i).to_string()).collect::<Vec<_>>().join(","),
        };
        let mut graph = crc32fast::Hasher::new();
        for mask in &self.neighbours {
            graph.update(&mask.to_le_bytes());
        }
        let mirrors: Vec<String> = (0..width)
            .filter(|&k| self.mirror_after.get((k + width - 1) % width) != Some(&NO_MIRROR))
            .map(|k| k.to_string())
            .collect();
        format!(
            "tours (frontier {FRONTIER_FORMAT}): {}, {} tours of {} to {} rows, columns {}, graph {:08x}, \
             mirrors after {}, window {}, {} {}-bit keys",
            self.walked.subject(),
            self.kind.name(),
            self.min_rows,
            self.walked.rows(),
            columns,
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
}

#[cfg(test)]
mod tests {
    use super::super::testing::{decoded_layers_to, knight, layers_with_successors};
    use super::*;
    use crate::hamiltonian::board::MoveSet;

    #[test]
    fn every_order_counts_the_same_tours_and_the_first_reads_fewest_states() {
        // The orders of `tours::order` against row-major order, state by state: the same
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
            (knight(8, 5), 1, TourKind::Closed),
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
        assert_eq!(crate::hamiltonian::frontier::worst_case_bits(nine.reach, 0), 77, "the plain layout needs 128 bits");
        assert_eq!(plain_key_bits(&knight(9, 10), TourKind::Closed), 61);
    }

    #[test]
    fn the_key_widths_the_docs_quote() {
        // frontier.rs ("Dense keys"), order.rs and ARCHITECTURE.md ("Keys") quote these: the
        // worst-case key in the order a count takes, which from width 8 is even then odd.
        let bits = |width, kind| plain_key_bits(&knight(width, 10), kind);
        assert_eq!(bits(8, TourKind::Closed), 59);
        assert_eq!(bits(9, TourKind::Closed), 61);
        assert_eq!(bits(10, TourKind::Closed), 75, "69 is row-major order's, which a count does not take");
        assert_eq!(bits(8, TourKind::Open), 62);
        assert_eq!(bits(9, TourKind::Open), 65);
        let eight = TransferMatrix::<u64>::new(knight(8, 10), 10, TourKind::Closed).unwrap();
        assert_eq!(eight.order, RowOrder::even_then_odd(8));
        let ten = TransferMatrix::<u128>::new(knight(10, 10), 10, TourKind::Closed).unwrap();
        assert_eq!(ten.order, RowOrder::even_then_odd(10));
    }
}
