//! Why a board has no tour, found before any counting: the move set's graph on the board is
//! disconnected, a square has too few moves, the graph is bipartite with sides a tour cannot
//! alternate between, or the moves forced by squares of two moves contradict ([`super::forced`];
//! for open tours, whichever two squares are the ends).
//!
//! Worked examples:
//!
//! * The camel (1,3) on 5x12: each move goes 1 + 3 = 4 squares, an even number, so it never
//!   changes the square's colour. The white squares and the black squares are two graphs with
//!   no move between them, and a tour must visit both: no closed tour and no open tour on any
//!   length (every count of `camel 5x12 --sweep` is 0).
//! * The knight on 5x5: each move goes 1 + 2 = 3 squares and changes the colour, so a tour
//!   alternates colours. The board has 13 squares of one colour and 12 of the other: a closed
//!   tour would need as many of each, so there is none; an open tour may start and end on the
//!   larger colour (864 do).
//! * The (0,1) leaper on 1x3: the end squares have one move each, and a closed tour enters and
//!   leaves every square by different moves: none. An open tour has two ends, which may be
//!   squares of one move each: three such squares would forbid it.
//!
//! The conditions, for a board of `n` squares (tours as the transfer matrix counts them: a closed
//! tour is a cycle through every square, so a board of one or two squares has none; an open tour
//! is a path through every square, and a 1x1 board has one, the square itself):
//!
//! | condition                              | closed tour       | open tour                     |
//! |----------------------------------------|-------------------|-------------------------------|
//! | the graph is connected                 | needed            | needed                        |
//! | squares with fewer than two moves      | none              | at most two, none without one |
//! | a bipartite graph's two sides          | equal             | differing by at most one      |
//! | forced moves (see [`super::forced`])   | no contradiction  | none for some pair of ends    |
//!
//! Every board length of a sweep is checked in one pass down the board, adding a row at a time
//! as the sweep does (the board of `L` rows is the first `L` rows of the longest one): a
//! union-find with parity joins each new square to the squares its moves reach upwards, and
//! counts components, the two sides of each component (an edge inside one side is an odd cycle:
//! the graph is not bipartite, then or for any longer board) and the squares with no move or
//! one. The cost is one visit per square and move, nothing like a count. The forced moves are
//! followed on each board on its own, a pass per length for closed tours and a pass per pair of
//! ends for open tours, within a fixed amount of work for the whole sweep ([`FORCED_WORK`]):
//! lengths beyond it go without (so long boards, open tours from about 200 squares, have only
//! the plain reasons).

use std::ops::RangeInclusive;

use super::board::MoveSet;
use super::forced::{every_pair_of_ends_contradicts, forced_contradiction, pairs_of_ends, Contradiction};

/// The work the forced-move checks may do over all the lengths of one sweep, in squares times
/// moves (a fraction of a second): a closed tour's check costs that once per length, an open
/// tour's once per pair of ends. Longer lengths go without them.
pub const FORCED_WORK: usize = 50_000_000;

/// Per board length in `lengths` (boards `width` wide), why it has no open tour (`open`) or no
/// closed tour, where that is plain before counting.
pub fn obstructions(
    width: usize,
    lengths: RangeInclusive<usize>,
    moves: &MoveSet,
    open: bool,
) -> Vec<(usize, Obstruction)> {
    let mut work = 0usize;
    let mut found = Vec::new();
    for (rows, shape) in (1..).zip(shapes(width, *lengths.end(), moves)) {
        if !lengths.contains(&rows) {
            continue;
        }
        let plain = if open { shape.open_obstruction() } else { shape.closed_obstruction() };
        let obstruction = plain.or_else(|| {
            let passes = if open { pairs_of_ends(shape.squares) } else { 1 };
            work = work.saturating_add(passes.saturating_mul(shape.squares * moves.vectors().len()));
            if work > FORCED_WORK {
                None
            } else if open {
                every_pair_of_ends_contradicts(width, rows, moves).then_some(Obstruction::ForcedEnds { pairs: passes })
            } else {
                forced_contradiction(width, rows, moves).map(Obstruction::Forced)
            }
        });
        if let Some(obstruction) = obstruction {
            found.push((rows, obstruction));
        }
    }
    found
}

/// What a tour needs of a board's graph, for one board length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Squares on the board.
    pub squares: usize,
    /// Connected components of the graph.
    pub components: usize,
    /// The sizes of the two sides, larger first, of a connected bipartite graph.
    pub sides: Option<(usize, usize)>,
    /// Squares without a move.
    pub no_move: usize,
    /// Squares with exactly one move.
    pub one_move: usize,
}

/// Why a board has no tour of some kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Obstruction {
    /// The graph falls apart into `components` pieces (`no_move` of them single squares).
    Disconnected { components: usize, no_move: usize },
    /// Squares that cannot take their share of a tour's moves: for a closed tour every square
    /// with fewer than two moves, for an open tour those with one move (more than two of them).
    FewMoves { no_move: usize, one_move: usize },
    /// The graph is connected and bipartite, with sides of these sizes (larger first).
    Unbalanced { larger: usize, smaller: usize },
    /// The moves forced by squares of two moves contradict (closed tours).
    Forced(Contradiction),
    /// They contradict for each of the `pairs` pairs of squares an open tour could end on.
    ForcedEnds { pairs: usize },
}

impl Shape {
    /// Why a board of this shape has no closed tour, if a reason is plain.
    pub fn closed_obstruction(&self) -> Option<Obstruction> {
        if self.components > 1 {
            return Some(Obstruction::Disconnected { components: self.components, no_move: self.no_move });
        }
        if self.no_move + self.one_move > 0 {
            return Some(Obstruction::FewMoves { no_move: self.no_move, one_move: self.one_move });
        }
        match self.sides {
            Some((larger, smaller)) if larger != smaller => Some(Obstruction::Unbalanced { larger, smaller }),
            _ => None,
        }
    }

    /// Why a board of this shape has no open tour, if a reason is plain. (A connected board of
    /// more than one square has no square without a move.)
    pub fn open_obstruction(&self) -> Option<Obstruction> {
        if self.components > 1 {
            return Some(Obstruction::Disconnected { components: self.components, no_move: self.no_move });
        }
        if self.one_move > 2 {
            return Some(Obstruction::FewMoves { no_move: 0, one_move: self.one_move });
        }
        match self.sides {
            Some((larger, smaller)) if larger > smaller + 1 => Some(Obstruction::Unbalanced { larger, smaller }),
            _ => None,
        }
    }
}

/// The shapes of the boards `width x 1 ..= width x rows` under `moves` (entry `L - 1` is the
/// board of `L` rows).
pub fn shapes(width: usize, rows: usize, moves: &MoveSet) -> Vec<Shape> {
    let mut graph = GrowingGraph::new(width * rows);
    // Each edge once, from its later square: moves that reach back into an earlier row, or to
    // the left within the row.
    let backward: Vec<(i64, i64)> = moves
        .vectors()
        .iter()
        .filter(|&&(dx, dy)| dy < 0 || (dy == 0 && dx < 0))
        .map(|&(dx, dy)| (dx as i64, dy as i64))
        .collect();
    let mut shapes = Vec::with_capacity(rows);
    for row in 0..rows as i64 {
        for col in 0..width as i64 {
            let square = graph.add_square();
            for &(dx, dy) in &backward {
                let (c, r) = (col + dx, row + dy);
                if c >= 0 && r >= 0 && c < width as i64 {
                    graph.add_edge(square, r as usize * width + c as usize);
                }
            }
        }
        shapes.push(graph.shape());
    }
    shapes
}

/// A graph that grows by squares and edges: components with the two sides of each (union-find
/// with parity), and the squares of degree 0 and 1.
struct GrowingGraph {
    /// The parent of each square; a root is its own parent.
    parent: Vec<usize>,
    /// Whether a square is on the other side from its parent.
    flipped: Vec<bool>,
    /// At a root: the squares of its component on the root's side and on the other side.
    sides: Vec<[usize; 2]>,
    degree: Vec<usize>,
    components: usize,
    bipartite: bool,
    no_move: usize,
    one_move: usize,
}

impl GrowingGraph {
    fn new(capacity: usize) -> Self {
        GrowingGraph {
            parent: Vec::with_capacity(capacity),
            flipped: Vec::with_capacity(capacity),
            sides: Vec::with_capacity(capacity),
            degree: Vec::with_capacity(capacity),
            components: 0,
            bipartite: true,
            no_move: 0,
            one_move: 0,
        }
    }

    fn add_square(&mut self) -> usize {
        let square = self.parent.len();
        self.parent.push(square);
        self.flipped.push(false);
        self.sides.push([1, 0]);
        self.degree.push(0);
        self.components += 1;
        self.no_move += 1;
        square
    }

    fn add_edge(&mut self, a: usize, b: usize) {
        self.gain_move(a);
        self.gain_move(b);
        let ((root_a, side_a), (root_b, side_b)) = (self.find(a), self.find(b));
        if root_a == root_b {
            // Both ends on one side: an odd cycle.
            self.bipartite &= side_a != side_b;
            return;
        }
        // The smaller component goes under the larger, turned so that `a` and `b` end on
        // opposite sides.
        let size = |root: usize| self.sides[root][0] + self.sides[root][1];
        let (root, child) = if size(root_a) >= size(root_b) { (root_a, root_b) } else { (root_b, root_a) };
        let flip = side_a == side_b;
        self.parent[child] = root;
        self.flipped[child] = flip;
        let [same, other] = self.sides[child];
        let added = if flip { [other, same] } else { [same, other] };
        self.sides[root][0] += added[0];
        self.sides[root][1] += added[1];
        self.components -= 1;
    }

    fn gain_move(&mut self, square: usize) {
        match self.degree[square] {
            0 => (self.no_move, self.one_move) = (self.no_move - 1, self.one_move + 1),
            1 => self.one_move -= 1,
            _ => {}
        }
        self.degree[square] += 1;
    }

    /// The root of `square`'s component, and whether `square` is on the other side from it.
    fn find(&mut self, square: usize) -> (usize, bool) {
        let mut path = Vec::new();
        let mut at = square;
        while self.parent[at] != at {
            path.push(at);
            at = self.parent[at];
        }
        let root = at;
        // Point every square on the path straight at the root, nearest the root first, so each
        // parent's side is already relative to the root.
        for &s in path.iter().rev() {
            let parent = self.parent[s];
            if parent != root {
                self.flipped[s] ^= self.flipped[parent];
                self.parent[s] = root;
            }
        }
        (root, path.first().is_some_and(|&s| self.flipped[s]))
    }

    fn shape(&mut self) -> Shape {
        let sides = (self.components == 1 && self.bipartite).then(|| {
            let root = self.find(0).0;
            let [a, b] = self.sides[root];
            (a.max(b), a.min(b))
        });
        Shape {
            squares: self.parent.len(),
            components: self.components,
            sides,
            no_move: self.no_move,
            one_move: self.one_move,
        }
    }
}

/// How a move set's moves treat the colour of a square, for the wording of a reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colouring {
    /// Every move changes it (a + b odd): the colours are the two sides of the graph.
    Changes,
    /// Every move keeps it (a + b even): the colours are never joined.
    Keeps,
    /// Some moves do, some do not.
    Mixed,
}

impl Colouring {
    pub fn of(moves: &MoveSet) -> Colouring {
        let odd = moves.vectors().iter().filter(|(dx, dy)| (dx + dy) % 2 != 0).count();
        match odd {
            0 => Colouring::Keeps,
            n if n == moves.vectors().len() => Colouring::Changes,
            _ => Colouring::Mixed,
        }
    }
}

/// The reason in words, e.g. `camel 5x12: no closed tour: every camel move keeps the square's
/// colour, so the board's graph is disconnected (2 components)`. `piece` names the mover
/// (`knight`, `(1,1) leaper`), `board` the board as the user wrote it.
pub fn describe(piece: &str, board: &str, open: bool, obstruction: Obstruction, colouring: Colouring) -> String {
    let kind = if open { "open" } else { "closed" };
    let cause = match obstruction {
        Obstruction::Disconnected { components, no_move } => {
            let isolated = match no_move {
                0 => String::new(),
                1 => "; 1 square has no move".to_string(),
                n => format!("; {n} squares have no move"),
            };
            let graph = format!("the board's graph is disconnected ({components} components{isolated})");
            match colouring {
                Colouring::Keeps => format!("every {piece} move keeps the square's colour, so {graph}"),
                _ => graph,
            }
        }
        // A connected board of two squares or more has no square without a move.
        Obstruction::FewMoves { one_move, .. } if open => format!(
            "an open tour enters and leaves every square but its two ends, so at most two squares may have a \
             single move, and {one_move} do"
        ),
        Obstruction::FewMoves { no_move, one_move } => {
            let squares = match (no_move, one_move) {
                (0, n) => format!("{} only one move", squares_have(n)),
                (n, 0) => format!("{} no move", squares_have(n)),
                (a, b) => format!("{} fewer than two moves", squares_have(a + b)),
            };
            format!("a closed tour enters and leaves every square, but {squares}")
        }
        Obstruction::Unbalanced { larger, smaller } => {
            let need = if open { "so the two can differ by at most one" } else { "so it needs as many of each" };
            match colouring {
                Colouring::Changes => format!(
                    "every {piece} move changes the square's colour and the board has {larger} squares of one colour \
                     and {smaller} of the other, but {} tour alternates colours, {need}",
                    article(kind)
                ),
                _ => format!(
                    "the board's graph is bipartite: every move joins a set of {larger} squares to a set of \
                     {smaller}, but {} tour alternates between them, {need}",
                    article(kind)
                ),
            }
        }
        Obstruction::Forced(contradiction) => {
            let outcome = match contradiction {
                Contradiction::Starved => "leave a square with fewer than two moves it can make".to_string(),
                Contradiction::ShortCycle { squares, of } => {
                    format!("close a cycle of {squares} squares, short of the board's {of}")
                }
                Contradiction::Overfull => "would give a square three moves".to_string(),
            };
            format!(
                "a closed tour uses both moves of every square that has only two, and the moves this forces, \
                 followed, {outcome}"
            )
        }
        Obstruction::ForcedEnds { pairs } => format!(
            "for each of the {pairs} pairs of squares its ends could be, an open tour uses both moves of every \
             other square that has only two, and the moves this forces, followed, contradict"
        ),
    };
    format!("{piece} {board}: no {kind} tour: {cause}")
}

/// The reason in brief, the same words for every board of its kind, so that a terminal can say
/// many boards' on one line: `knight 5x3: no closed tour: unequal colours` for 5 x 3, 5 x 5, ...
/// ([`describe`] says how unequal, and why that matters).
pub fn describe_briefly(
    piece: &str,
    board: &str,
    open: bool,
    obstruction: Obstruction,
    colouring: Colouring,
) -> String {
    let kind = if open { "open" } else { "closed" };
    let gist = match obstruction {
        Obstruction::Disconnected { .. } => "the board's graph is disconnected",
        Obstruction::FewMoves { .. } if open => "over two squares have a single move",
        Obstruction::FewMoves { .. } => "a square has fewer than two moves",
        Obstruction::Unbalanced { .. } => match (colouring, open) {
            (Colouring::Changes, false) => "unequal colours",
            (Colouring::Changes, true) => "colours differ by more than one",
            (_, false) => "the sides of its bipartite graph are unequal",
            (_, true) => "the sides of its bipartite graph differ by more than one",
        },
        Obstruction::Forced(_) => "forced moves contradict",
        Obstruction::ForcedEnds { .. } => "forced moves contradict for every pair of ends",
    };
    format!("{piece} {board}: no {kind} tour: {gist}")
}

fn squares_have(n: usize) -> String {
    if n == 1 {
        "1 square has".to_string()
    } else {
        format!("{n} squares have")
    }
}

fn article(kind: &str) -> String {
    if kind == "open" {
        "an open".to_string()
    } else {
        "a closed".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(width: usize, rows: usize, moves: &str) -> Shape {
        *shapes(width, rows, &moves.parse().unwrap()).last().unwrap()
    }

    #[test]
    fn shapes_count_components_sides_and_thin_squares() {
        // The knight on 3x3: the centre has no move, the other eight squares make one cycle.
        assert_eq!(shape(3, 3, "1,2"), Shape { squares: 9, components: 2, sides: None, no_move: 1, one_move: 0 });
        // The knight on 5x5: connected, 13 squares of one colour and 12 of the other.
        assert_eq!(
            shape(5, 5, "1,2"),
            Shape { squares: 25, components: 1, sides: Some((13, 12)), no_move: 0, one_move: 0 }
        );
        // The camel on 5x12: the two colours, never joined.
        assert_eq!(shape(5, 12, "1,3").components, 2);
        // The king on 3x3 has triangles: not bipartite.
        assert_eq!(shape(3, 3, "1,0+1,1").sides, None);
        // The (0,1) leaper on 1x3: a path, its ends of degree 1.
        assert_eq!(
            shape(1, 3, "0,1"),
            Shape { squares: 3, components: 1, sides: Some((2, 1)), no_move: 0, one_move: 2 }
        );
        assert_eq!(
            shape(1, 1, "1,2"),
            Shape { squares: 1, components: 1, sides: Some((1, 0)), no_move: 1, one_move: 0 }
        );
    }

    #[test]
    fn every_length_of_a_sweep_has_its_own_shape() {
        let all = shapes(4, 3, &"0,1".parse().unwrap());
        let components: Vec<usize> = all.iter().map(|s| s.components).collect();
        assert_eq!(components, [1, 1, 1]);
        let sides: Vec<_> = all.iter().map(|s| s.sides).collect();
        assert_eq!(sides, [Some((2, 2)), Some((4, 4)), Some((6, 6))]);
        let one_move: Vec<usize> = all.iter().map(|s| s.one_move).collect();
        assert_eq!(one_move, [2, 0, 0]);
    }

    #[test]
    fn tiny_boards_follow_the_counting_conventions() {
        // 1x1: no closed tour (no move at all), one open tour.
        let one = shape(1, 1, "1,2");
        assert_eq!(one.closed_obstruction(), Some(Obstruction::FewMoves { no_move: 1, one_move: 0 }));
        assert_eq!(one.open_obstruction(), None);
        // Two squares a move apart: no closed tour, one open tour.
        let two = shape(1, 2, "0,1");
        assert_eq!(two.closed_obstruction(), Some(Obstruction::FewMoves { no_move: 0, one_move: 2 }));
        assert_eq!(two.open_obstruction(), None);
    }
}
