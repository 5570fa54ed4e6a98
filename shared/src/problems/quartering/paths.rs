//! The frontier sweep: simple paths from the source of a folded board to its border, counted
//! one point at a time (the engine's [`Transition`]).
//!
//! Before step `i` the points `0..i` are decided: each is on the path or not, and the path's
//! pieces among them are known. Of those, only the points with an edge to a point `>= i` (the
//! *frontier*) matter for what follows, and for each of them only one of:
//!
//! ```text
//!   BLOCKED  on the path with both its edges, or off it with too few edges left to join it
//!   FREE     off the path so far, with two or more edges left
//!   SOURCE   an end of the piece that starts at the source
//!   BORDER   an end of the piece that starts on the border (there is at most one)
//!   PAIR k   an end of a piece whose other end is the other PAIR k of the frontier
//! ```
//!
//! Step `i` decides point `i`: which of its edges to earlier points it takes (0, 1 or 2; the
//! source, which starts with one end of the path, 0 or 1) and whether it ends the path on the
//! border. Taking an edge to a FREE point makes that point an end; to an end, extends that
//! piece; joining the two ends of one piece would close a cycle and is refused. When the
//! SOURCE and BORDER pieces meet, the path is whole: it is counted (`close`) if no other piece
//! is left open. A point leaves the frontier when its last edge is decided; an end that leaves
//! is a dead end, and the state dies.
//!
//! Keys hold one nibble per frontier point, pairs numbered in order of first appearance so that
//! equal situations have equal keys. The key type is `u64` while the frontier has at most 15
//! points (boards up to 30x30) and `u128` up to 22 (44x44); see [`capacity`]. One sweep may count both classes: the
//! rotational graph's steps, then the halved rectangle's, carried across by a marker state.

use std::marker::PhantomData;
use std::ops::RangeInclusive;

use super::graph::PathGraph;
use crate::engine::key::StateKey;
use crate::engine::transition::{StepPosition, Transition};
use crate::error::{Error, Result};

/// The quartering's key format ([`Transition::key_format`]): a nibble a frontier point, in
/// the stages' order. Raise it when a release lays the same states out otherwise.
pub const PATHS_FORMAT: u32 = 1;

const BLOCKED: u8 = 0;
const FREE: u8 = 1;
const SOURCE: u8 = 2;
const BORDER: u8 = 3;
const FIRST_PAIR: u8 = 4;

/// One graph of the sweep and the slot its paths count in.
#[derive(Clone, Debug)]
pub struct Stage {
    pub slot: usize,
    pub graph: PathGraph,
    /// `frontier[i]`: the points open before step `i` (ascending), for `i` in `0..=len`.
    frontier: Vec<Vec<usize>>,
    /// `edges[i]`: the frontier position (in `frontier[i]`) of each edge of point `i` to an
    /// earlier point.
    edges: Vec<Vec<usize>>,
    /// `moves[i][k]`: where position `k` of `frontier[i]`, or for `k = frontier[i].len()` point
    /// `i` itself, goes in `frontier[i + 1]`, and whether a FREE point there is left with fewer
    /// than two edges (and so is BLOCKED); `None` when it leaves the frontier.
    moves: Vec<Vec<Option<(usize, bool)>>>,
}

impl Stage {
    pub fn new(slot: usize, graph: PathGraph) -> Stage {
        let steps = graph.len();
        // left[v]: edges from v to points not yet taken, kept up to date step by step.
        let mut left = graph.later.clone();
        let mut frontier: Vec<Vec<usize>> = vec![Vec::new()];
        let mut lefts: Vec<Vec<usize>> = Vec::with_capacity(steps);
        for step in 0..steps {
            lefts.push(frontier[step].iter().map(|&v| left[v]).collect());
            for &u in &graph.earlier[step] {
                left[u] -= 1;
            }
            let open = frontier[step].iter().copied().chain(std::iter::once(step)).filter(|&v| left[v] > 0).collect();
            frontier.push(open);
        }
        let mut edges = Vec::with_capacity(steps);
        let mut moves = Vec::with_capacity(steps);
        for i in 0..steps {
            let before = &frontier[i];
            edges.push(
                graph.earlier[i]
                    .iter()
                    .map(|u| before.binary_search(u).expect("an earlier neighbour is open"))
                    .collect(),
            );
            let after = &frontier[i + 1];
            let after_left = if i + 1 < steps { &lefts[i + 1] } else { &Vec::new() };
            moves.push(
                before
                    .iter()
                    .chain(std::iter::once(&i))
                    .map(|v| after.binary_search(v).ok().map(|slot| (slot, after_left[slot] < 2)))
                    .collect(),
            );
        }
        Stage { slot, graph, frontier, edges, moves }
    }

    /// The widest frontier a key holds, in points.
    pub fn width(&self) -> usize {
        self.frontier.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// `log2` of a bound on the paths: from each point a path goes on along at most 3 of its 4
    /// edges (or ends on the border), and it has at most one point per step, so there are at
    /// most `4 * 3^(len - 1)` paths of each length and `2 * 3^len` in all.
    pub fn bound_bits(&self) -> f64 {
        1.0 + self.graph.len() as f64 * 3f64.log2()
    }
}

/// The sweep over one or two folded boards.
pub struct FoldedSweep<K> {
    stages: Vec<Stage>,
    /// The first step of each stage.
    offsets: Vec<usize>,
    slots: usize,
    bound_bits: f64,
    key: PhantomData<K>,
}

/// The widest frontier a key of `K` holds: a nibble per point, the top nibble kept clear (the
/// marker is 15 there, so no key can equal it or [`StateKey::VACANT`]), and at most 11 pairs so
/// that pair numbers stay below 15 in a nibble.
pub fn capacity<K: StateKey>() -> usize {
    let nibbles = K::BITS as usize / 4 - 1;
    // w points hold at most w / 2 pairs, numbered FIRST_PAIR.. .
    nibbles.min(2 * (15 - FIRST_PAIR as usize))
}

impl<K: StateKey> FoldedSweep<K> {
    /// Sweeps `stages` in order; `slots` is the number of result slots of the problem.
    pub fn new(stages: Vec<Stage>, slots: usize) -> Result<FoldedSweep<K>> {
        for stage in &stages {
            if stage.width() > capacity::<K>() {
                return Err(Error::Bug(format!(
                    "a frontier of {} points does not fit a {}-bit key of at most {} points",
                    stage.width(),
                    K::BITS,
                    capacity::<K>()
                )));
            }
        }
        let offsets = stages
            .iter()
            .scan(0, |start, stage| {
                let offset = *start;
                *start += stage.graph.len();
                Some(offset)
            })
            .collect();
        let bound_bits = stages.iter().map(Stage::bound_bits).fold(0.0, f64::max);
        Ok(FoldedSweep { stages, offsets, slots, bound_bits, key: PhantomData })
    }

    /// The marker: "this stage is skipped, the next one has not begun".
    fn marker() -> K {
        K::from_u64(15) << (K::BITS - 4)
    }

    fn locate(&self, step: usize) -> (usize, usize) {
        let stage = self.offsets.partition_point(|&offset| offset <= step) - 1;
        (stage, step - self.offsets[stage])
    }
}

/// Point `i`'s decision applied to a frontier: the symbols of the frontier before step `i + 1`.
struct Decision<'a> {
    /// Symbols of `frontier[i]`, then point `i` itself, last.
    symbols: &'a mut [u8],
    /// The current point's degree on the path so far.
    degree: u8,
    /// Set when the source and border pieces met.
    whole: bool,
}

impl Decision<'_> {
    fn next_pair(&self) -> u8 {
        self.symbols.iter().copied().filter(|&s| s >= FIRST_PAIR).max().map_or(FIRST_PAIR, |s| s + 1)
    }

    fn relabel(&mut self, from: u8, to: u8) {
        for s in self.symbols.iter_mut() {
            if *s == from {
                *s = to;
            }
        }
    }

    /// Joins the end `a` (the current point's) and the end `b` of two pieces; `false` when that
    /// would close a cycle or join two pieces that may not meet.
    fn join(&mut self, a: u8, b: u8) -> bool {
        if a == b {
            return false;
        }
        match (a.min(b), a.max(b)) {
            (SOURCE, BORDER) => {
                self.whole = true;
                true
            }
            (low, high) => {
                // A pair joined to SOURCE or BORDER takes that name; two pairs keep the lower.
                self.relabel(high, low);
                true
            }
        }
    }

    /// Takes the edge from the current point (last symbol) to frontier position `k`.
    fn take_edge(&mut self, k: usize) -> bool {
        let current = self.symbols.len() - 1;
        let other = self.symbols[k];
        if other == BLOCKED {
            return false;
        }
        let mine = self.symbols[current];
        let ok = match (self.degree, other) {
            (0, FREE) => {
                let pair = self.next_pair();
                self.symbols[k] = pair;
                self.symbols[current] = pair;
                true
            }
            (0, end) => {
                self.symbols[k] = BLOCKED;
                self.symbols[current] = end;
                true
            }
            (1, FREE) => {
                self.symbols[k] = mine;
                self.symbols[current] = BLOCKED;
                true
            }
            (1, end) => {
                self.symbols[k] = BLOCKED;
                self.symbols[current] = BLOCKED;
                self.join(mine, end)
            }
            _ => false,
        };
        self.degree += 1;
        ok
    }

    /// Ends the path at the border through the current point.
    fn take_border(&mut self) -> bool {
        let current = self.symbols.len() - 1;
        let mine = self.symbols[current];
        let ok = match self.degree {
            0 => {
                self.symbols[current] = BORDER;
                !self.symbols[..current].contains(&BORDER)
            }
            1 => {
                // A second piece from the border could never reach the source.
                if mine != SOURCE && self.symbols[..current].contains(&BORDER) {
                    return false;
                }
                self.symbols[current] = BLOCKED;
                self.join(mine, BORDER)
            }
            _ => false,
        };
        self.degree += 1;
        ok
    }
}

impl<K: StateKey> Transition for FoldedSweep<K> {
    type Key = K;

    fn steps(&self) -> usize {
        self.stages.iter().map(|stage| stage.graph.len()).sum()
    }

    fn slots(&self) -> usize {
        self.slots
    }

    fn reported(&self) -> RangeInclusive<usize> {
        let slots: Vec<usize> = self.stages.iter().map(|stage| stage.slot).collect();
        slots.iter().copied().min().unwrap_or(0)..=slots.iter().copied().max().unwrap_or(0)
    }

    fn bound_bits(&self) -> f64 {
        self.bound_bits
    }

    fn start(&self) -> K {
        K::from_u64(0)
    }

    /// The stages as they are (points, frontiers, edges and moves fix what a key's nibbles
    /// mean), as a CRC, with the key's width.
    fn key_layout(&self) -> String {
        let slots: Vec<String> = self.stages.iter().map(|stage| stage.slot.to_string()).collect();
        format!(
            "quarter paths: {} stages for slots {}, stages {:08x}, {}-bit keys of a nibble a point",
            self.stages.len(),
            slots.join(","),
            crc32fast::hash(format!("{:?}", self.stages).as_bytes()),
            K::BITS
        )
    }

    fn key_format(&self) -> u32 {
        PATHS_FORMAT
    }

    fn position(&self, step: usize) -> StepPosition {
        let (stage, i) = self.locate(step);
        let (x, y) = self.stages[stage].graph.points[i];
        StepPosition { row: usize::from(y), col: usize::from(x) }
    }

    fn slot_name(&self, slot: usize) -> String {
        super::class_name(slot).to_string()
    }

    fn expand(&self, step: usize, key: K, emit: &mut impl FnMut(K), close: &mut impl FnMut(usize)) {
        let (s, i) = self.locate(step);
        let stage = &self.stages[s];
        let last_step = i + 1 == stage.graph.len();
        let later_stage = s + 1 < self.stages.len();
        if key == Self::marker() {
            emit(if last_step { K::from_u64(0) } else { Self::marker() });
            return;
        }
        if i == 0 && later_stage {
            // The next stage starts from the empty frontier once this one is done.
            emit(if last_step { K::from_u64(0) } else { Self::marker() });
        }
        let before = &stage.frontier[i];
        let mut symbols = [0u8; 33];
        for (k, symbol) in symbols.iter_mut().enumerate().take(before.len()) {
            *symbol = ((key >> (4 * k as u32)) & K::from_u64(15)).low_u64() as u8;
        }
        let graph = &stage.graph;
        let positions = &stage.edges[i];
        let is_source = i == 0;
        let width = before.len() + 1;
        for mask in 0u32..(1 << positions.len()) {
            let taken = mask.count_ones() as u8;
            let start_degree = u8::from(is_source);
            if start_degree + taken > 2 {
                continue;
            }
            for border in 0..=graph.terminals[i] {
                let ends_here = border > 0;
                if start_degree + taken + u8::from(ends_here) > 2 {
                    continue;
                }
                let mut work = symbols;
                work[before.len()] = if is_source { SOURCE } else { FREE };
                let mut decision = Decision { symbols: &mut work[..width], degree: start_degree, whole: false };
                let mut ok = true;
                for (bit, &k) in positions.iter().enumerate() {
                    if mask >> bit & 1 == 1 && !decision.take_edge(k) {
                        ok = false;
                        break;
                    }
                }
                if ok && ends_here {
                    ok = decision.take_border();
                }
                if !ok {
                    continue;
                }
                let whole = decision.whole;
                if let Some(next) = self.settle(stage, i, &mut work[..width], whole) {
                    emit(next);
                } else if whole && clean(&work[..width]) {
                    close(stage.slot);
                }
            }
        }
    }
}

impl<K: StateKey> FoldedSweep<K> {
    /// The key before step `i + 1`, or `None` when the state dies or the path is whole.
    fn settle(&self, stage: &Stage, i: usize, symbols: &mut [u8], whole: bool) -> Option<K> {
        if whole {
            return None;
        }
        let mut key = K::from_u64(0);
        let mut renumber = [0u8; 33];
        let mut next_pair = FIRST_PAIR;
        for (&symbol, &moved) in symbols.iter().zip(&stage.moves[i]) {
            match moved {
                Some((slot, few_left)) => {
                    let symbol = match symbol {
                        FREE if few_left => BLOCKED,
                        pair if pair >= FIRST_PAIR => {
                            if renumber[pair as usize] == 0 {
                                renumber[pair as usize] = next_pair;
                                next_pair += 1;
                            }
                            renumber[pair as usize]
                        }
                        other => other,
                    };
                    key = key | (K::from_u64(u64::from(symbol)) << (4 * slot as u32));
                }
                // The point leaves the frontier: an end here could never be continued.
                None if symbol >= SOURCE => return None,
                None => {}
            }
        }
        Some(key)
    }
}

/// Whether a whole path leaves no other piece open.
fn clean(symbols: &[u8]) -> bool {
    symbols.iter().all(|&s| s <= FREE)
}

/// Counts the paths of `stages` in this process with plain integers, one total per slot: for
/// small boards (the drawing's limit, the tests), without the engine. Fails if a count passes
/// 2^128.
pub fn count_in_memory<K: StateKey>(stages: Vec<Stage>, slots: usize) -> Result<Vec<u128>> {
    let sweep = FoldedSweep::<K>::new(stages, slots)?;
    let overflow = || Error::InvalidRequest("the count passes 2^128; count it with the engine".into());
    let mut layer = std::collections::HashMap::from([(sweep.start(), 1u128)]);
    let mut closed = vec![Some(0u128); slots];
    for step in 0..sweep.steps() {
        let mut next: std::collections::HashMap<K, Option<u128>> = std::collections::HashMap::new();
        for (&key, &n) in &layer {
            sweep.expand(
                step,
                key,
                &mut |k| {
                    let entry = next.entry(k).or_insert(Some(0));
                    *entry = entry.and_then(|e| e.checked_add(n));
                },
                &mut |slot| closed[slot] = closed[slot].and_then(|c| c.checked_add(n)),
            );
        }
        layer = next.into_iter().map(|(k, n)| n.map(|n| (k, n))).collect::<Option<_>>().ok_or_else(overflow)?;
    }
    closed.into_iter().map(|c| c.ok_or_else(overflow)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::quartering::graph::{halved, rotational};

    fn count(stages: Vec<Stage>) -> Vec<u128> {
        let narrow = count_in_memory::<u64>(stages.clone(), 2).unwrap();
        assert_eq!(count_in_memory::<u128>(stages, 2).unwrap(), narrow, "64-bit and 128-bit keys agree");
        narrow
    }

    #[test]
    fn frontiers_are_n_points_wide_and_fit_their_keys() {
        assert_eq!((capacity::<u64>(), capacity::<u128>()), (15, 22));
        for n in 1..=crate::problems::quartering::graph::MAX_HALF_SIDE {
            // At most n points wide (the widest key is the 44x44 board's, 22 points), and no less
            // once the board is big enough for the diamonds to fill out.
            let widths = (Stage::new(0, rotational(n).unwrap()).width(), Stage::new(1, halved(n).unwrap()).width());
            let expected = (if n >= 3 { n } else { n - 1 }, n - 1);
            assert_eq!(widths, expected, "n = {n}");
        }
    }

    #[test]
    fn folded_paths_on_small_boards_match_the_enumeration() {
        // Paths of the folded boards (not yet reduced by reflection), n = 1..=5, from the
        // Parkin-style enumeration in `enumerate`.
        let rotational_paths = [1, 5, 51, 1191, 76341];
        let halved_paths = [1, 4, 23, 340, 10295];
        for n in 1..=5 {
            let stages = vec![Stage::new(0, rotational(n).unwrap()), Stage::new(1, halved(n).unwrap())];
            assert_eq!(count(stages), vec![rotational_paths[n - 1], halved_paths[n - 1]], "n = {n}");
        }
    }

    #[test]
    fn one_class_alone_counts_the_same() {
        assert_eq!(count(vec![Stage::new(1, halved(4).unwrap())]), vec![0, 340]);
        assert_eq!(count(vec![Stage::new(0, rotational(4).unwrap())]), vec![1191, 0]);
    }
}
