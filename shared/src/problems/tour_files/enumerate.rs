//! Every tour of a small board, by depth-first search split into shards.
//!
//! Closed tours start at square 0 (the top left corner) and are traced in the direction whose
//! second square is the lower-numbered neighbour of the start, so that each undirected tour is
//! found once. Open tours start at their lower-numbered end. The search keeps, for every
//! unvisited square, how many of its neighbours could still be joined to it (unvisited squares
//! and the path's live ends) and turns back as soon as one has too few: a square inside a tour
//! needs two, the far end of an open tour one.
//!
//! Worked example, 6x6 closed: the corner a6 (square 0) has two neighbours, b4 and c5, so every
//! closed tour passes c5 - a6 - b4; the search starts a6, c5 (square 8 < square 13) and must end
//! at b4. The shards are the paths of the first few squares, in a fixed order; 9862 tours in all.

use super::board::{Square, TourBoard};
use super::tour::Tour;
use crate::error::{Error, Result};

/// The largest board the search takes: its visited squares are one 64-bit word.
pub const MAX_SQUARES: usize = 64;

/// The search for every closed (or open) tour of one board.
pub struct Enumeration {
    board: TourBoard,
    closed: bool,
    /// Each shard is the start of a path; shard `i` finds the tours that begin with `shards[i]`.
    shards: Vec<Vec<Square>>,
}

impl Enumeration {
    pub fn new(board: TourBoard, closed: bool) -> Result<Enumeration> {
        if board.squares() > MAX_SQUARES {
            return Err(Error::InvalidRequest(format!(
                "tours enumerate searches boards of at most {MAX_SQUARES} squares; {} has {}",
                board.size(),
                board.squares()
            )));
        }
        let depth = if closed { 6 } else { 4 }.min(board.squares());
        let mut shards = Vec::new();
        let starts: Vec<Square> = if closed { vec![0] } else { (0..board.squares() as Square).collect() };
        for start in starts {
            prefixes(&board, &mut vec![start], depth, &mut shards);
        }
        Ok(Enumeration { board, closed, shards })
    }

    pub fn board(&self) -> &TourBoard {
        &self.board
    }

    pub fn closed(&self) -> bool {
        self.closed
    }

    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// The squares shard `index` starts with, as `a6-c5-...`.
    pub fn shard_label(&self, index: usize) -> String {
        self.shards[index].iter().map(|&s| self.board.name(s)).collect::<Vec<_>>().join("-")
    }

    /// Finds the tours of shard `index` in a fixed order, handing each to `found`; returns how
    /// many there were.
    pub fn run_shard(&self, index: usize, found: &mut dyn FnMut(&Tour) -> Result<()>) -> Result<u64> {
        let prefix = &self.shards[index];
        let mut search = Search::new(&self.board, self.closed, prefix[0]);
        for &square in &prefix[1..] {
            if !search.advance(square) {
                return Ok(0);
            }
        }
        search.walk(found)?;
        Ok(search.found)
    }
}

/// Every path of `depth` squares that extends `path`, in order.
fn prefixes(board: &TourBoard, path: &mut Vec<Square>, depth: usize, out: &mut Vec<Vec<Square>>) {
    if path.len() == depth {
        out.push(path.clone());
        return;
    }
    let head = *path.last().expect("a path has a start");
    for &next in board.neighbours(head) {
        if !path.contains(&next) {
            path.push(next);
            prefixes(board, path, depth, out);
            path.pop();
        }
    }
}

struct Search<'a> {
    board: &'a TourBoard,
    closed: bool,
    start: Square,
    visited: u64,
    path: Vec<Square>,
    /// For each square: neighbours that are unvisited, or the head, or (closed tours) the start.
    open_links: Vec<u8>,
    found: u64,
}

impl<'a> Search<'a> {
    fn new(board: &'a TourBoard, closed: bool, start: Square) -> Search<'a> {
        let open_links = (0..board.squares() as Square).map(|s| board.neighbours(s).len() as u8).collect();
        Search { board, closed, start, visited: 1 << start, path: vec![start], open_links, found: 0 }
    }

    fn head(&self) -> Square {
        *self.path.last().expect("a path has a start")
    }

    fn is_visited(&self, square: Square) -> bool {
        self.visited >> square & 1 == 1
    }

    /// Moves the head to `next`; false if that leaves a square that can no longer be toured.
    /// The old head becomes an inner square of the path (a closed tour's start stays joinable:
    /// the knight comes back to it).
    fn advance(&mut self, next: Square) -> bool {
        let old = self.head();
        self.visited |= 1 << next;
        self.path.push(next);
        let old_stays = self.closed && old == self.start;
        let mut alive = true;
        if !old_stays {
            for &n in self.board.neighbours(old) {
                self.open_links[n as usize] -= 1;
                if !self.is_visited(n) && self.open_links[n as usize] < self.needed(n) {
                    alive = false;
                }
            }
        }
        // The new head no longer counts as a neighbour of its own (it is visited now).
        alive
    }

    /// How many joinable neighbours an unvisited square needs: two inside a closed tour; one
    /// for an open tour (it may be the far end).
    fn needed(&self, _square: Square) -> u8 {
        if self.closed {
            2
        } else {
            1
        }
    }

    fn retreat(&mut self) {
        let head = self.path.pop().expect("a step to undo");
        self.visited &= !(1 << head);
        let old = self.head();
        if !(self.closed && old == self.start) {
            for &n in self.board.neighbours(old) {
                self.open_links[n as usize] += 1;
            }
        }
    }

    fn walk(&mut self, found: &mut dyn FnMut(&Tour) -> Result<()>) -> Result<()> {
        let squares = self.board.squares();
        if self.path.len() == squares {
            let last = self.head();
            let keep = if self.closed {
                self.board.is_move(last, self.start) && self.path[1] < last
            } else {
                self.start < last
            };
            if keep {
                self.found += 1;
                found(&Tour { squares: self.path.clone(), closed: self.closed })?;
            }
            return Ok(());
        }
        let head = self.head();
        for k in 0..self.board.neighbours(head).len() {
            let next = self.board.neighbours(head)[k];
            if self.is_visited(next) {
                continue;
            }
            if self.advance(next) {
                self.walk(found)?;
            }
            self.retreat();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(size: &str, closed: bool) -> u64 {
        let board = TourBoard::new(size.parse().unwrap()).unwrap();
        let enumeration = Enumeration::new(board.clone(), closed).unwrap();
        let mut total = 0;
        for shard in 0..enumeration.shard_count() {
            total += enumeration
                .run_shard(shard, &mut |tour| {
                    assert_eq!(tour.check(&board), Ok(()));
                    Ok(())
                })
                .unwrap();
        }
        total
    }

    #[test]
    fn small_boards_match_the_published_counts() {
        // Closed: none on 4x4 or 5x5 (odd), 8 on 5x6 and 6x5, 44202 on 8x5 is too long here.
        assert_eq!(count("4x4", true), 0);
        assert_eq!(count("5x5", true), 0);
        assert_eq!(count("5x6", true), 8);
        assert_eq!(count("6x5", true), 8);
        assert_eq!(count("3x10", true), 16);
        // Open (undirected Hamiltonian paths): 3x4 has 8, 3x8 396, 3x10 3048, 4x5 82, 5x5 864
        // (half the directed counts 16, 792, 6096, 164, 1728).
        assert_eq!(count("3x4", false), 8);
        assert_eq!(count("4x3", false), 8);
        assert_eq!(count("3x8", false), 396);
        assert_eq!(count("10x3", false), 3048);
        assert_eq!(count("4x5", false), 82);
        assert_eq!(count("5x5", false), 864);
        assert_eq!(count("6x6", true), 9862);
    }
}
