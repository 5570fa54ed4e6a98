//! Parkin's enumeration (letter of January 29, 1974): every cut traced from a border point to
//! the centre, one start point of the letter's Table 1 at a time.
//!
//! A path starts on the border, takes the one step inwards, and goes on through interior points
//! until it reaches the centre. Each point it takes is marked together with its images under the
//! class's symmetry (the four turns of the board, or the half turn of the rectangle), so that
//! the arms the symmetry makes of the path never meet. The start points cover one eighth of the
//! board's border (square) or one quarter of the rectangle's, so each dissection is traced from
//! exactly one of them, except from a start on a centre line, where a path and its mirror image
//! start alike. The accepted rule keeps one of the two: until the path first turns, it may turn
//! only left. Parkin's program held that rule for one step only, for the square's centre-line
//! start, and so also counted paths that go straight on and then turn right first, mirror
//! images of ones it had: his 87 for the 8x8 board is 71 paths and 16 mirror images.
//!
//! ```text
//!   4x4 board, square class, centre C = (2,2):
//!   start (1,0):  (1,0) (1,1) (2,1) C   and   (1,0) (1,1) (1,2) C    two pinwheels, mirror images
//!   start (2,0):  (2,0) (2,1) C                                      the cross (a centre line)
//!   square class: 2 + 1 = 3 cuts
//! ```
//!
//! The rectangle's straight cut down its centre line is the cut of the board into four squares,
//! which the square class already has: it is not counted again.

use super::Class;

/// A lattice point, `(x, y)` from the corner: `x` across, `y` down (the letter's `I, J`).
pub type Point = (i32, i32);

/// The four directions, in turning order: a left turn is the next one.
const DIRECTIONS: [Point; 4] = [(1, 0), (0, -1), (-1, 0), (0, 1)];

/// Which mirror-image rule a centre-line start follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Left turns only until the path first turns (the accepted counts).
    Accepted,
    /// Left only at the first choice, then free (the letter's slip, square centre-line start).
    Parkin,
}

/// One line of the letter's Table 1: a class and a start point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start {
    pub class: Class,
    pub point: Point,
    /// The start lies on a centre line of its figure: mirror images start alike.
    pub centre_line: bool,
}

impl Start {
    /// `1,0`, as the letter writes it.
    pub fn label(&self) -> String {
        format!("{},{}", self.point.0, self.point.1)
    }

    /// The first step, into the figure.
    fn inwards(&self) -> usize {
        if self.point.1 == 0 {
            3
        } else {
            0
        }
    }
}

/// The start points of the `2n x 2n` board, square class then rectangle class, as Table 1
/// lists them.
pub fn starts(n: i32, classes: &[Class]) -> Vec<Start> {
    let mut lines = Vec::new();
    for &class in classes {
        for i in 1..=n {
            lines.push(Start { class, point: (i, 0), centre_line: i == n });
        }
        if class == Class::Halved {
            for j in 1..=n / 2 {
                lines.push(Start { class, point: (0, j), centre_line: 2 * j == n });
            }
        }
    }
    lines
}

/// The figure a class traces in: the whole board, or its upper `2n x n` half.
#[derive(Clone, Copy, Debug)]
pub struct Figure {
    pub n: i32,
    pub class: Class,
}

impl Figure {
    fn width(&self) -> i32 {
        2 * self.n
    }

    fn height(&self) -> i32 {
        match self.class {
            Class::Rotational => 2 * self.n,
            Class::Halved => self.n,
        }
    }

    fn index(&self, (x, y): Point) -> usize {
        (y * (self.width() + 1) + x) as usize
    }

    fn inside(&self, (x, y): Point) -> bool {
        (0..=self.width()).contains(&x) && (0..=self.height()).contains(&y)
    }

    pub fn on_border(&self, (x, y): Point) -> bool {
        x == 0 || y == 0 || x == self.width() || y == self.height()
    }

    /// The point and its images under the class's symmetry.
    pub fn images(&self, (x, y): Point) -> Vec<Point> {
        let n = self.n;
        match self.class {
            Class::Rotational => {
                let (dx, dy) = (x - n, y - n);
                vec![(n + dx, n + dy), (n - dy, n + dx), (n - dx, n - dy), (n + dy, n - dx)]
            }
            Class::Halved => vec![(x, y), (2 * n - x, n - y)],
        }
    }

    /// Whether the path is finished at `p`: the centre, or an end of the rectangle's centre edge.
    pub fn is_centre(&self, (x, y): Point) -> bool {
        let n = self.n;
        match self.class {
            Class::Rotational => (x, y) == (n, n),
            Class::Halved if n % 2 == 0 => (x, y) == (n, n / 2),
            Class::Halved => x == n && (y == (n - 1) / 2 || y == (n + 1) / 2),
        }
    }
}

/// A depth-first trace from one start point.
pub struct Tracer {
    figure: Figure,
    start: Start,
    rule: Rule,
    used: Vec<bool>,
    /// The path so far, from the border point.
    pub points: Vec<Point>,
    /// The direction of each step taken.
    directions: Vec<usize>,
}

/// What a visitor wants after a complete path or a prefix.
pub enum Visit<'a> {
    /// A complete path (border point to centre) and the directions of its steps.
    Path { points: &'a [Point], directions: &'a [usize] },
    /// A path cut off at the prefix depth: the turns taken so far.
    Prefix(&'a [usize]),
}

impl Tracer {
    pub fn new(figure: Figure, start: Start, rule: Rule) -> Tracer {
        let cells = ((figure.width() + 1) * (figure.height() + 1)) as usize;
        Tracer { figure, start, rule, used: vec![false; cells], points: vec![start.point], directions: Vec::new() }
    }

    fn turned(&self) -> bool {
        self.directions.windows(2).any(|w| w[0] != w[1])
    }

    /// The directions the path may take next (in a fixed order), not yet checked for room.
    fn choices(&self) -> Vec<usize> {
        let Some(&last) = self.directions.last() else {
            return vec![self.start.inwards()];
        };
        let (left, right) = ((last + 1) % 4, (last + 3) % 4);
        let restricted = self.start.centre_line
            && match (self.rule, self.start.class) {
                // The slip: only at the first choice, and only for the square (the letter's
                // rectangle lines are right).
                (Rule::Parkin, Class::Rotational) => self.directions.len() == 1,
                _ => !self.turned(),
            };
        if restricted {
            vec![last, left]
        } else {
            vec![last, left, right]
        }
    }

    /// Takes a step in `direction` if there is room; `false` (nothing changed) if not.
    fn step(&mut self, direction: usize) -> bool {
        let (x, y) = *self.points.last().expect("a path has its start");
        let next = (x + DIRECTIONS[direction].0, y + DIRECTIONS[direction].1);
        if !self.figure.inside(next) || self.figure.on_border(next) {
            return false;
        }
        let images = self.figure.images(next);
        if images.iter().any(|&p| self.used[self.figure.index(p)]) {
            return false;
        }
        for p in images {
            self.used[self.figure.index(p)] = true;
        }
        self.points.push(next);
        self.directions.push(direction);
        true
    }

    fn back(&mut self) {
        let point = self.points.pop().expect("a step to take back");
        self.directions.pop();
        for p in self.figure.images(point) {
            self.used[self.figure.index(p)] = false;
        }
    }

    /// Whether the path, now at the centre, is one the class counts (not the cross again).
    fn counts(&self) -> bool {
        !(self.start.class == Class::Halved && self.start.point.1 == 0 && self.start.centre_line && !self.turned())
    }

    /// Replays the directions of a prefix; `false` if one does not fit.
    pub fn replay(&mut self, directions: &[usize]) -> bool {
        for (depth, &direction) in directions.iter().enumerate() {
            if !self.choices().contains(&direction) || !self.step(direction) {
                return false;
            }
            if self.figure.is_centre(*self.points.last().expect("a point")) && depth + 1 < directions.len() {
                return false;
            }
        }
        true
    }

    /// Whether the path has reached the centre.
    pub fn at_centre(&self) -> bool {
        self.points.len() > 1 && self.figure.is_centre(*self.points.last().expect("a point"))
    }

    /// Whether the path at the centre is counted.
    pub fn complete_and_counted(&self) -> bool {
        self.at_centre() && self.counts()
    }

    /// Visits every complete path below the current one (the current path itself if it is
    /// complete); with `cut = Some(depth)`, stops at paths of `depth` steps and visits them as
    /// prefixes instead. Returns the number of complete paths visited.
    pub fn search(&mut self, cut: Option<usize>, visit: &mut dyn FnMut(Visit)) -> u128 {
        if self.at_centre() {
            if self.counts() {
                visit(Visit::Path { points: &self.points, directions: &self.directions });
                return 1;
            }
            return 0;
        }
        if cut == Some(self.directions.len()) {
            visit(Visit::Prefix(&self.directions));
            return 0;
        }
        let mut found = 0;
        for direction in self.choices() {
            if self.step(direction) {
                found += self.search(cut, visit);
                self.back();
            }
        }
        found
    }

    /// The number of complete paths below the current one, without visiting them.
    pub fn count(&mut self) -> u128 {
        self.search(None, &mut |_| {})
    }
}

/// Every counted path from `start`, by the accepted rule or the letter's.
pub fn paths_from(n: i32, start: Start, rule: Rule) -> u128 {
    Tracer::new(Figure { n, class: start.class }, start, rule).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_4x4_board_has_three_square_cuts_and_two_rectangle_cuts() {
        let counts: Vec<u128> = starts(2, &[Class::Rotational, Class::Halved])
            .into_iter()
            .map(|start| paths_from(2, start, Rule::Accepted))
            .collect();
        // square 1,0 and 2,0; rectangle 1,0, 2,0 (the cross, not counted again) and 0,1
        assert_eq!(counts, vec![2, 1, 1, 0, 1]);
    }
}
