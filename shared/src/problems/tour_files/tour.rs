//! A knight's tour as a file holds it: the squares in the order the knight visits them, and
//! whether the tour is closed (the last square a knight's move from the first).

use super::board::{Square, TourBoard};

/// A tour: every square once, in visiting order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Tour {
    pub squares: Vec<Square>,
    /// Closed: the knight returns from the last square to the first.
    pub closed: bool,
}

impl Tour {
    /// Checks that this is a tour of `board`: every square exactly once, every step a knight's
    /// move, and, if it is closed, the last square a knight's move from the first. The error
    /// names the first defect found.
    pub fn check(&self, board: &TourBoard) -> Result<(), String> {
        let squares = board.squares();
        if let Some(&off) = self.squares.iter().find(|&&s| s as usize >= squares) {
            return Err(format!("square number {off} is not on the {} board", board.size()));
        }
        let mut seen = vec![usize::MAX; squares];
        for (index, &square) in self.squares.iter().enumerate() {
            let first = seen[square as usize];
            if first != usize::MAX {
                return Err(format!(
                    "square {} is visited twice (as square {} and {} of the tour)",
                    board.name(square),
                    first + 1,
                    index + 1
                ));
            }
            seen[square as usize] = index;
        }
        if let Some(missing) = seen.iter().position(|&index| index == usize::MAX) {
            return Err(format!(
                "the tour has {} squares, the {} board {}: square {} is missing",
                self.squares.len(),
                board.size(),
                squares,
                board.name(missing as Square)
            ));
        }
        for (index, pair) in self.squares.windows(2).enumerate() {
            if !board.is_move(pair[0], pair[1]) {
                return Err(format!(
                    "move {} from {} to {} is not a knight's move",
                    index + 1,
                    board.name(pair[0]),
                    board.name(pair[1])
                ));
            }
        }
        if self.closed && !self.closes(board) {
            return Err(format!(
                "an open tour claimed closed: its ends {} and {} are not a knight's move apart",
                board.name(self.squares[0]),
                board.name(*self.squares.last().expect("a tour has squares"))
            ));
        }
        Ok(())
    }

    /// Whether the last square is a move (a knight's, on a tour file's board) from the first.
    pub fn closes(&self, board: &TourBoard) -> bool {
        match (self.squares.first(), self.squares.last()) {
            (Some(&first), Some(&last)) => self.squares.len() > 2 && board.is_move(last, first),
            _ => false,
        }
    }

    /// The tour's connections, each as (lower square, higher square): the knight's moves it
    /// makes, and for a closed tour the move back to the start. The fictitious closing move of an
    /// open tour is not among them (see [`Tour::ends`]).
    pub fn moves(&self) -> impl Iterator<Item = (Square, Square)> + '_ {
        let back = self.closed.then(|| (*self.squares.last().expect("a tour has squares"), self.squares[0]));
        self.squares.windows(2).map(|pair| (pair[0], pair[1])).chain(back).map(|(a, b)| (a.min(b), a.max(b)))
    }

    /// An open tour's ends, lower first: Phadke's fictitious closing connection.
    pub fn ends(&self) -> Option<(Square, Square)> {
        let (first, last) = (self.squares[0], *self.squares.last().expect("a tour has squares"));
        (!self.closed).then_some((first.min(last), first.max(last)))
    }
}

impl Tour {
    /// The tour with these connections (Phadke's connectivity form): for a closed tour the
    /// squares' knight's moves, two at every square; for an open one the moves of a path and its
    /// `ends` (the fictitious closing connection). It starts at the lower-numbered end, or for a
    /// closed tour at square 0 towards its lower-numbered neighbour, so one set of connections
    /// gives one tour.
    pub fn from_connections(
        board: &TourBoard,
        connections: &[(Square, Square)],
        ends: Option<(Square, Square)>,
    ) -> Result<Tour, String> {
        let squares = board.squares();
        let mut linked: Vec<Vec<Square>> = vec![Vec::new(); squares];
        for &(a, b) in connections {
            if a as usize >= squares || b as usize >= squares {
                return Err(format!("a connection leaves the {} board", board.size()));
            }
            if !board.is_move(a, b) {
                return Err(format!("{} to {} is not a knight's move", board.name(a), board.name(b)));
            }
            if linked[a as usize].contains(&b) {
                return Err(format!("the connection {} to {} is listed twice", board.name(a), board.name(b)));
            }
            linked[a as usize].push(b);
            linked[b as usize].push(a);
        }
        if let Some((x, y)) = ends {
            if x == y || x as usize >= squares || y as usize >= squares {
                return Err("an open tour's two ends must be two squares of the board".into());
            }
        }
        let wanted = |square: Square| match ends {
            Some((x, y)) if square == x || square == y => 1,
            _ => 2,
        };
        for square in 0..squares as Square {
            let have = linked[square as usize].len();
            if have != wanted(square) {
                return Err(format!(
                    "square {} has {have} connections, a tour gives it {}",
                    board.name(square),
                    wanted(square)
                ));
            }
        }
        let start = ends.map_or(0, |(low, _)| low);
        let mut tour = vec![start];
        let mut previous = None;
        let mut at = start;
        loop {
            let next = linked[at as usize].iter().copied().filter(|&n| Some(n) != previous).min();
            match next {
                Some(next) if next != start && tour.len() < squares => {
                    tour.push(next);
                    previous = Some(at);
                    at = next;
                }
                _ => break,
            }
        }
        if tour.len() != squares {
            return Err(format!(
                "the connections make a circuit of {} squares through {}, not one tour of all {squares}",
                tour.len(),
                board.name(start)
            ));
        }
        Ok(Tour { squares: tour, closed: ends.is_none() })
    }
}
