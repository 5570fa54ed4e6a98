//! The fold: tours fixed by an involution, counted by a sweep of half the board.
//!
//! Identify each cell with its image under the involution `g` (the half turn, or a mirror
//! between two middle rows or columns). The half `T` the sweep meets first stands for both
//! halves; a move from `T` into the other half becomes a *twisted* edge of the folded graph,
//! a move from a cell to its own image a *loop*, and a cell `g` fixes (the centre, for the half
//! turn of an odd board) a vertex that a tour passes once. A tour fixed by `g` is then:
//!
//! * a cycle of the folded graph with an odd number of twisted edges (`g` turns the tour by
//!   half: going once round the fold ends on the image of the start, twice closes the tour; an
//!   even number would close after once round, into two cycles `C` and `g(C)`);
//! * or a path of the folded graph between two loops (`g` reflects the tour: the two loops are
//!   the tour's two moves `{u, g(u)}`);
//! * or, for open tours, a path from one end of the tour to a loop or the centre (`g` reverses
//!   the path: its middle move is a loop, or its middle cell the centre).
//!
//! Worked example: the half turn of the 6x5 board (5 cells wide, 6 rows). `T` is rows 0 to 2;
//! the move from (2, 0) to (3, 2) lands on the image of (2, 2), so the folded graph has a
//! twisted edge (2, 0)-(2, 2); the move from (2, 1) to (3, 3) lands on the cell's own image: a
//! loop at (2, 1).
//!
//! The sweep of the folded graph is the transfer matrix over its cells (in row-major order, its
//! edges within the window like the board's), with one more bit in the key: the parity of the
//! twisted edges chosen so far (closed tours; every edge ends on the one cycle, so the global
//! parity is the cycle's), or whether the open tour's end is placed (open tours). Loops and the
//! centre are tour ends in the sense of [`transfer`](crate::hamiltonian::transfer)'s `ends.rs`,
//! allowed only at those cells. This is the sweep to the middle, joined with its own image: the
//! crossing moves are chosen once, for both halves together. (Joining each middle state of the
//! plain sweep with its rotated image instead would overcount: there the crossing moves are
//! already chosen, and the states that remember the same frontier differ in them.)

use std::ops::RangeInclusive;

use crate::engine::{StateKey, StepPosition, Transition};
use crate::error::{Error, Result};
use crate::hamiltonian::board::Geometry;
use crate::hamiltonian::frontier::{worst_case_bits, FrontierState, EMPTY, FREE, FULL, MAX_WINDOW};
use crate::hamiltonian::order::RowOrder;
use crate::hamiltonian::symmetry::Symmetry;
use crate::hamiltonian::transfer::{join, Joined, TourKind, TransferMatrix, Walked};

/// A cell's vertex in the fold, and whether the cell is the image of the vertex's own cell.
type VertexOf<'a> = Box<dyn Fn(usize) -> (usize, bool) + 'a>;

/// The folded graph of one board and involution.
#[derive(Clone, Debug)]
pub struct FoldedGraph {
    /// The geometry of the sweep over the fold: the board itself for the half turn and the row
    /// mirror, half its width for the column mirror.
    pub geometry: Geometry,
    /// Vertices of the fold, `0..cells`, in sweep order.
    pub cells: usize,
    /// Per vertex: its neighbours, with `true` for a twisted edge (parallel edges possible).
    pub edges: Vec<Vec<(usize, bool)>>,
    /// Vertices with a loop (a move to their own image), or the centre.
    pub anchors: Vec<bool>,
    /// The fixed cell, if any: the last vertex.
    pub centre: Option<usize>,
    /// The largest distance of an edge in sweep order.
    pub reach: usize,
    /// Whether the rest of the fold is left-right symmetric at every row start.
    pub mirror_rows: bool,
}

impl FoldedGraph {
    /// The fold of `geometry` by `symmetry` (the half turn, the row mirror of a board with an
    /// even number of rows, or the column mirror of one with an even width).
    pub fn new(geometry: &Geometry, symmetry: Symmetry) -> Result<FoldedGraph> {
        let (width, rows) = (geometry.width, geometry.rows);
        let cells = geometry.cells();
        let image = |c: usize| symmetry.apply(width, rows, c);
        let (fold_geometry, vertex_of): (Geometry, VertexOf<'_>) = match symmetry {
            Symmetry::HalfTurn | Symmetry::RowMirror => {
                if symmetry == Symmetry::RowMirror && rows % 2 == 1 {
                    return Err(Error::Bug("a row mirror folds only an even number of rows".into()));
                }
                let half = cells / 2;
                (
                    geometry.clone(),
                    Box::new(move |c| if c < half || image(c) == c { (c, false) } else { (image(c), true) }),
                )
            }
            Symmetry::ColumnMirror => {
                if width % 2 == 1 {
                    return Err(Error::Bug("a column mirror folds only an even width".into()));
                }
                let half = width / 2;
                (
                    Geometry::new(half, rows, geometry.moves.clone()),
                    Box::new(move |c| {
                        let (r, col) = (c / width, c % width);
                        if col < half {
                            (r * half + col, false)
                        } else {
                            (r * half + (width - 1 - col), true)
                        }
                    }),
                )
            }
            other => return Err(Error::Bug(format!("no fold for {other:?}"))),
        };
        let centre = (0..cells).find(|&c| image(c) == c);
        let vertices = match symmetry {
            Symmetry::ColumnMirror => cells / 2,
            _ => cells / 2 + usize::from(centre.is_some()),
        };
        let mut edges = vec![Vec::new(); vertices];
        let mut anchors = vec![false; vertices];
        let mut reach = 1;
        for cell in 0..cells {
            let (a, twisted_cell) = vertex_of(cell);
            if twisted_cell {
                continue; // each vertex once, from its own cell
            }
            if Some(cell) == centre {
                anchors[a] = true;
            }
            for v in geometry.neighbours(cell) {
                let (b, twisted) = vertex_of(v);
                if b == a {
                    anchors[a] = true; // a move to the cell's own image
                    continue;
                }
                // The centre meets each pair {v, g(v)} once: one edge, its twist irrelevant.
                let twisted = twisted && Some(cell) != centre && Some(v) != centre;
                if !edges[a].contains(&(b, twisted)) {
                    edges[a].push((b, twisted));
                }
                reach = reach.max(a.abs_diff(b));
            }
        }
        let mirror_rows = match symmetry {
            Symmetry::ColumnMirror => false,
            _ => rows % 2 == 0,
        };
        Ok(FoldedGraph {
            geometry: fold_geometry,
            cells: vertices,
            edges,
            anchors,
            centre: centre.map(|c| vertex_of(c).0),
            reach,
            mirror_rows,
        })
    }

    /// Whether the fold's sweep has path ends (loops, the centre, or open tours' ends).
    pub fn has_ends(&self, open: bool) -> bool {
        open || self.anchors.iter().any(|&a| a)
    }

    /// Bits of the fold's largest key, its flag bit included.
    pub fn key_bits(&self, open: bool) -> u32 {
        worst_case_bits(self.reach, if self.has_ends(open) { 2 } else { 0 }) + 1
    }
}

/// The sweep of a fold: counts, in its one slot, the tours the involution fixes.
pub struct FoldedTours<K> {
    inner: TransferMatrix<K>,
    /// Per vertex: forward edges as (window position, twisted).
    forward: Vec<Vec<(u8, bool)>>,
    anchors: Vec<bool>,
    centre: Option<usize>,
    cells: usize,
    open: bool,
    /// The key bit of the parity (closed) or of the placed tour end (open).
    flag: K,
}

impl<K: StateKey> FoldedTours<K> {
    /// The sweep of `fold`; `flag_bit` is a key bit above every frontier key of the fold.
    pub fn new(fold: &FoldedGraph, open: bool, flag_bit: u32) -> Result<Self> {
        if fold.reach > MAX_WINDOW || fold.key_bits(open) > flag_bit + 1 || flag_bit >= K::BITS {
            return Err(Error::Bug(format!("a fold with a window of {} needs more than bit {flag_bit}", fold.reach)));
        }
        let kind = if fold.has_ends(open) { TourKind::Open } else { TourKind::Closed };
        let adjacency: Vec<Vec<usize>> = fold.edges.iter().map(|e| e.iter().map(|&(b, _)| b).collect()).collect();
        let rows = fold.geometry.rows;
        let inner = TransferMatrix::with_edges(
            Walked::Board(fold.geometry.clone()),
            rows,
            kind,
            fold.reach,
            &adjacency,
            fold.mirror_rows,
            RowOrder::row_major(fold.geometry.width),
        )?;
        let forward = fold
            .edges
            .iter()
            .enumerate()
            .map(|(a, list)| {
                let mut out: Vec<(u8, bool)> =
                    list.iter().filter(|&&(b, _)| b > a).map(|&(b, twisted)| ((b - a) as u8, twisted)).collect();
                out.sort_unstable();
                out
            })
            .collect();
        Ok(FoldedTours {
            inner,
            forward,
            anchors: fold.anchors.clone(),
            centre: fold.centre,
            cells: fold.cells,
            open,
            flag: K::from_u64(1) << flag_bit,
        })
    }

    /// Goes on from a branch: emits it (with its flag), or counts the tour it completed.
    #[allow(clippy::too_many_arguments)]
    fn after(
        &self,
        cell: usize,
        next: &FrontierState,
        newly_full: u64,
        joined: Joined,
        flag: bool,
        emit: &mut impl FnMut(K),
        close: &mut impl FnMut(usize),
    ) {
        match joined {
            Joined::Partial => {
                let bit = if flag { self.flag } else { K::from_u64(0) };
                self.inner.settle(cell, next, newly_full, &mut |key: K| emit(key | bit))
            }
            Joined::Cycle => {
                if !self.open && next.ends_used == 0 && flag && self.whole(cell, next) {
                    close(0)
                }
            }
            Joined::EndToEnd => {
                if (!self.open || flag) && self.whole(cell, next) {
                    close(0)
                }
            }
        }
    }

    /// Whether a branch that completed a cycle or path at `cell` covers every vertex: no other
    /// path is open and every vertex after `cell` is FULL.
    fn whole(&self, cell: usize, next: &FrontierState) -> bool {
        // The centre ends the path: a tour completes only there (before it, a FULL centre
        // would be a cell of degree 4).
        if self.centre.is_some_and(|centre| centre != cell) {
            return false;
        }
        let rest = self.cells - 1 - cell;
        rest <= self.inner.codec().len()
            && (1..=self.inner.codec().len())
                .all(|p| if p <= rest { next.mate[p] == FULL } else { next.mate[p] == EMPTY })
    }
}

impl<K: StateKey> Transition for FoldedTours<K> {
    type Key = K;

    fn steps(&self) -> usize {
        self.cells
    }

    fn slots(&self) -> usize {
        1
    }

    fn reported(&self) -> RangeInclusive<usize> {
        0..=0
    }

    fn bound_bits(&self) -> f64 {
        Transition::bound_bits(&self.inner)
    }

    fn start(&self) -> K {
        self.inner.start_key()
    }

    fn key_layout(&self) -> String {
        let anchors: Vec<String> =
            self.anchors.iter().enumerate().filter(|(_, &a)| a).map(|(v, _)| v.to_string()).collect();
        let twisted: Vec<String> = self
            .forward
            .iter()
            .enumerate()
            .flat_map(|(v, list)| list.iter().filter(|(_, t)| *t).map(move |(p, _)| format!("{v}+{p}")))
            .collect();
        format!(
            "fold of {}: {} tours, anchors {}, centre {:?}, twisted {}, flag bit {}",
            self.inner.key_layout(),
            if self.open { "open" } else { "closed" },
            anchors.join(","),
            self.centre,
            twisted.join(","),
            (0..K::BITS).find(|&bit| (self.flag >> bit).low_u64() & 1 == 1).unwrap_or(K::BITS)
        )
    }

    /// The board's own: the fold's keys are the frontier's, with its flag bit.
    fn key_format(&self) -> u32 {
        Transition::key_format(&self.inner)
    }

    fn position(&self, step: usize) -> StepPosition {
        Transition::position(&self.inner, step)
    }

    fn slot_name(&self, _slot: usize) -> String {
        "fixed".into()
    }

    fn expand(&self, cell: usize, key: K, emit: &mut impl FnMut(K), close: &mut impl FnMut(usize)) {
        let flag = key & self.flag != K::from_u64(0);
        let state = self.inner.codec().decode(key & !self.flag, cell);
        let twist = |t: bool| !self.open && t;
        let is_centre = Some(cell) == self.centre;
        let forward = &self.forward[cell];
        // The centre has no interior branches: it ends the path (below).
        if !is_centre {
            match state.mate[0] {
                FULL => self.after(cell, &state, 0, Joined::Partial, flag, emit, close),
                EMPTY => {
                    for (i, &(a, ta)) in forward.iter().enumerate() {
                        if state.mate[a as usize] == FULL {
                            continue;
                        }
                        for &(b, tb) in &forward[i + 1..] {
                            // Both of two parallel edges would be a cycle of two vertices: a
                            // tour of four cells, which no board here has.
                            if b == a || state.mate[b as usize] == FULL {
                                continue;
                            }
                            let mut next = state;
                            let mut newly_full = 0;
                            join(&mut next, 0, a as usize, &mut newly_full);
                            let joined = join(&mut next, 0, b as usize, &mut newly_full);
                            self.after(cell, &next, newly_full, joined, flag ^ twist(ta) ^ twist(tb), emit, close);
                        }
                    }
                }
                _ => {
                    for &(a, ta) in forward {
                        if state.mate[a as usize] == FULL {
                            continue;
                        }
                        let mut next = state;
                        let mut newly_full = 0;
                        let joined = join(&mut next, 0, a as usize, &mut newly_full);
                        self.after(cell, &next, newly_full, joined, flag ^ twist(ta), emit, close);
                    }
                }
            }
        }
        // The branches in which this vertex ends a path: at a loop or the centre (an anchor,
        // one at most for open tours), or as the open tour's end.
        let tour_end = self.open && flag;
        if state.mate[0] == FULL || state.ends_used >= 2 {
            return;
        }
        let anchor_ok = self.anchors[cell] && (!self.open || state.ends_used == u8::from(tour_end));
        let tour_end_ok = self.open && !tour_end && !is_centre;
        for as_tour_end in [false, true] {
            if (as_tour_end && !tour_end_ok) || (!as_tour_end && !anchor_ok) {
                continue;
            }
            // The flag after this end: open tours mark their end; closed tours keep the parity.
            let flag_after = if self.open { tour_end || as_tour_end } else { flag };
            match state.mate[0] {
                EMPTY if !is_centre => {
                    for &(a, ta) in forward {
                        if state.mate[a as usize] == FULL {
                            continue;
                        }
                        let mut next = state;
                        next.ends_used += 1;
                        next.set_end(0, FREE);
                        let mut newly_full = 0;
                        let joined = join(&mut next, 0, a as usize, &mut newly_full);
                        self.after(cell, &next, newly_full, joined, flag_after ^ twist(ta), emit, close);
                    }
                }
                EMPTY => {}
                mate => {
                    let mut next = state;
                    next.ends_used += 1;
                    next.set_full(0);
                    if mate == FREE {
                        self.after(cell, &next, 0, Joined::EndToEnd, flag_after, emit, close);
                    } else {
                        next.mate[mate as usize] = FREE;
                        self.after(cell, &next, 0, Joined::Partial, flag_after, emit, close);
                    }
                }
            }
        }
    }
}
