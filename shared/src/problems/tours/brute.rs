//! An independent check on the transfer matrix: depth-first search for Hamiltonian cycles.
//!
//! Shares nothing with [`super::closed`] but the move vectors: it builds its own adjacency matrix,
//! walks every path from cell 0 and counts the ones that return, each cycle once per direction.
//! The only pruning is the obvious necessary condition (every unvisited cell keeps two usable
//! neighbours), so the code stays easy to trust. Practical up to about 36 cells.

use super::board::MoveSet;

/// The number of Hamiltonian cycles (undirected) of the `width x length` board under `moves`.
pub fn count_cycles(width: usize, length: usize, moves: &MoveSet) -> u128 {
    let n = width * length;
    if n < 3 {
        return 0;
    }
    let mut adjacent = vec![false; n * n];
    let mut neighbours = vec![Vec::new(); n];
    for y in 0..length as i64 {
        for x in 0..width as i64 {
            for &(dx, dy) in moves.vectors() {
                let (tx, ty) = (x + dx as i64, y + dy as i64);
                if tx >= 0 && ty >= 0 && tx < width as i64 && ty < length as i64 {
                    let (a, b) = ((y * width as i64 + x) as usize, (ty * width as i64 + tx) as usize);
                    adjacent[a * n + b] = true;
                    neighbours[a].push(b);
                }
            }
        }
    }
    if neighbours.iter().any(|list| list.len() < 2) {
        return 0;
    }
    let mut search = Search {
        n,
        adjacent,
        unvisited_degree: neighbours.iter().map(|l| l.len()).collect(),
        neighbours,
        visited: vec![false; n],
        found: 0,
    };
    search.visit(0);
    search.walk(0, 1);
    search.found / 2
}

struct Search {
    n: usize,
    adjacent: Vec<bool>,
    neighbours: Vec<Vec<usize>>,
    /// Unvisited neighbours of each cell.
    unvisited_degree: Vec<usize>,
    visited: Vec<bool>,
    /// Directed cycles through cell 0.
    found: u128,
}

impl Search {
    fn visit(&mut self, v: usize) {
        self.visited[v] = true;
        for &u in &self.neighbours[v] {
            self.unvisited_degree[u] -= 1;
        }
    }

    fn unvisit(&mut self, v: usize) {
        self.visited[v] = false;
        for &u in &self.neighbours[v] {
            self.unvisited_degree[u] += 1;
        }
    }

    /// Can every unvisited cell near `head` or `previous` still get two edges, and can the
    /// path still return to cell 0?
    fn feasible(&self, head: usize, previous: usize) -> bool {
        let usable = |u: usize| {
            self.unvisited_degree[u] + self.adjacent[u * self.n + head] as usize + self.adjacent[u * self.n] as usize
        };
        let ok = |u: &usize| self.visited[*u] || usable(*u) >= 2;
        self.neighbours[head].iter().all(ok)
            && self.neighbours[previous].iter().all(ok)
            && (self.unvisited_degree[0] > 0 || self.adjacent[head * self.n])
    }

    fn walk(&mut self, head: usize, depth: usize) {
        if depth == self.n {
            if self.adjacent[head * self.n] {
                self.found += 1;
            }
            return;
        }
        for i in 0..self.neighbours[head].len() {
            let next = self.neighbours[head][i];
            if self.visited[next] {
                continue;
            }
            self.visit(next);
            if self.feasible(next, head) {
                self.walk(next, depth + 1);
            }
            self.unvisit(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_known_counts() {
        let knight = MoveSet::knight();
        assert_eq!(count_cycles(3, 4, &knight), 0);
        assert_eq!(count_cycles(5, 6, &knight), 8);
        let wazir = MoveSet::leaper(0, 1).unwrap();
        assert_eq!(count_cycles(2, 2, &wazir), 1);
        assert_eq!(count_cycles(4, 4, &wazir), 6);
        assert_eq!(count_cycles(3, 3, &wazir), 0);
    }
}
