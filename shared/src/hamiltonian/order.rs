//! The order in which the transfer matrix visits the cells of a row, and the mirror symmetry it
//! meets along the way.
//!
//! The transfer matrix ([`super::transfer`]) processes the board row by row and, within a row,
//! in some fixed order of the columns. It works on *positions*: the `i`-th cell processed is
//! position `i`, and the frontier is the window of positions after the one being processed.
//! Rows stay whole (row `r` is positions `r * width ..`), so lengths, row starts and the board's
//! end read the same in every order; only the moves' offsets change, and with them the window:
//! the longest edge, counted in positions.
//!
//! A state and its left-right mirror image have the same completions whenever the cells
//! processed so far are themselves symmetric: one key may then stand for both, which halves
//! the layer. Row by row from left to right, that happens only at row starts, and in between the
//! layers grow, several times over by a row's last cell, and fall back at the next row's start
//! (docs/PERFORMANCE-LOG.md, "A row's columns from the edges inwards"). Processed from the edges
//! inwards, a pair of columns at a time, the cells processed are symmetric after every pair:
//!
//! ```text
//!   columns                    0  1  2  3  4  5  6
//!   outside in      position   0  2  4  6  5  3  1    symmetric after 2, 4, 6 and 7 cells
//!   even then odd   position   0  4  2  6  3  5  1    symmetric after 2, 4, 6 and 7 cells
//! ```
//!
//! Which pairs come first matters as much as the pairing: a knight's move changes the column by
//! one or two, and taking the columns an even distance from an edge first (0, 6, 2, 4, then 1,
//! 5, 3) leaves fewest states: on knight sweeps of widths 5 to 7 even then odd reads the fewest
//! of the three orders, and of all 24 orders of the pairs of a board 7 wide the best, (0, 6, 2,
//! 4, 3, 1, 5), reads barely fewer, on a longer window (docs/PERFORMANCE-LOG.md, "A row's columns
//! from the edges inwards").
//!
//! The price is a longer window: a knight's move from column 1 to column 3 two rows on spans 18
//! positions (2 * 7 + 6 - 2) where row-major order spans at most 15, and a longer window needs a
//! longer key. [`RowOrder::candidates`] lists the orders best first; the transfer matrix takes
//! the first whose key is as narrow as row-major order's (with dense keys, which store only the
//! positions that can hold an edge, even then odd fits 64 bits up to width 9: 59 bits at width
//! 8, 61 at 9). The window still starts at the position processed and ends `window` positions
//! on, so the frontier codec and the window's shift by one cell are those of row-major order.

use super::board::Geometry;

/// The order of the columns within every row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowOrder {
    /// Per position within a row: the column processed there.
    columns: Vec<usize>,
    /// Per column: its position within the row.
    positions: Vec<usize>,
}

impl RowOrder {
    /// Left to right.
    pub fn row_major(width: usize) -> Self {
        Self::of((0..width).collect())
    }

    /// From the edges inwards: columns `0, w - 1, 1, w - 2, ...` (see the module's comment).
    pub fn outside_in(width: usize) -> Self {
        Self::by_distance(width, (0..width.div_ceil(2)).collect())
    }

    /// From the edges inwards, first the columns an even distance from an edge, then the odd
    /// ones: `0, 6, 2, 4, 1, 5, 3` on a board 7 wide (see the module's comment).
    pub fn even_then_odd(width: usize) -> Self {
        let half = width.div_ceil(2);
        Self::by_distance(width, (0..half).step_by(2).chain((1..half).step_by(2)).collect())
    }

    /// Each distance from an edge in turn, the column on the left first.
    fn by_distance(width: usize, distances: Vec<usize>) -> Self {
        let mut columns = Vec::with_capacity(width);
        for d in distances {
            columns.push(d);
            if width - 1 - d != d {
                columns.push(width - 1 - d);
            }
        }
        Self::of(columns)
    }

    /// The orders a board may be processed in, best first: fewest states measured (knight
    /// sweeps 5 x 14, 6 x 10, 7 x 8, 7 x 10 and 8 x 6; docs/PERFORMANCE-LOG.md), each a window at
    /// least as long as the next's.
    pub fn candidates(width: usize) -> [RowOrder; 3] {
        [Self::even_then_odd(width), Self::outside_in(width), Self::row_major(width)]
    }

    fn of(columns: Vec<usize>) -> Self {
        let mut positions = vec![0; columns.len()];
        for (i, &column) in columns.iter().enumerate() {
            positions[column] = i;
        }
        RowOrder { columns, positions }
    }

    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// The column processed at position `i` of a row.
    pub fn column(&self, i: usize) -> usize {
        self.columns[i]
    }

    /// The board cell processed at position `position`.
    pub fn cell(&self, position: usize) -> usize {
        let width = self.width();
        position / width * width + self.columns[position % width]
    }

    /// The position of board cell `cell`.
    pub fn position(&self, cell: usize) -> usize {
        let width = self.width();
        cell / width * width + self.positions[cell % width]
    }

    /// The board's graph on positions: per position, the positions of its neighbours.
    pub fn edges(&self, geometry: &Geometry) -> Vec<Vec<usize>> {
        (0..geometry.cells())
            .map(|position| geometry.neighbours(self.cell(position)).map(|v| self.position(v)).collect())
            .collect()
    }

    /// The position, within its row, of the mirror image of the cell at position `i`.
    pub fn mirror(&self, i: usize) -> usize {
        self.positions[self.width() - 1 - self.columns[i]]
    }

    /// Whether the first `processed` cells of a row (at most its width) are symmetric left to
    /// right: then a state and its mirror image may share a key.
    pub fn symmetric_after(&self, processed: usize) -> bool {
        (0..processed).all(|i| self.mirror(i) < processed)
    }
}

/// The longest edge of a graph on positions.
pub fn reach(edges: &[Vec<usize>]) -> usize {
    edges.iter().enumerate().flat_map(|(v, adjacent)| adjacent.iter().map(move |&u| u.abs_diff(v))).max().unwrap_or(1)
}

/// The window the frontier of `geometry`'s width needs in `order`: in row-major order the
/// longest forward move ([`Geometry::reach`]); in another, the longest edge on a board of that
/// width tall enough for every move, so that every length of a sweep has the same window.
pub fn window(geometry: &Geometry, order: &RowOrder) -> usize {
    if *order == RowOrder::row_major(geometry.width) {
        return geometry.reach();
    }
    let tall = Geometry::new(geometry.width, geometry.reach() / geometry.width.max(1) + 3, geometry.moves.clone());
    reach(&order.edges(&tall))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hamiltonian::board::MoveSet;

    fn columns(order: &RowOrder) -> Vec<usize> {
        (0..order.width()).map(|i| order.column(i)).collect()
    }

    #[test]
    fn the_example_of_the_module() {
        let geometry = Geometry::new(7, 5, MoveSet::knight());
        let outside_in = RowOrder::outside_in(7);
        let even_then_odd = RowOrder::even_then_odd(7);
        assert_eq!(columns(&outside_in), [0, 6, 1, 5, 2, 4, 3]);
        assert_eq!(columns(&even_then_odd), [0, 6, 2, 4, 1, 5, 3]);
        for order in [&outside_in, &even_then_odd] {
            let symmetric: Vec<usize> = (1..=7).filter(|&k| order.symmetric_after(k)).collect();
            assert_eq!(symmetric, [2, 4, 6, 7]);
        }
        assert_eq!(reach(&outside_in.edges(&geometry)), 16);
        assert_eq!(window(&geometry, &outside_in), 16);
        assert_eq!(window(&geometry, &even_then_odd), 18);
        assert_eq!(columns(&RowOrder::even_then_odd(8)), [0, 7, 2, 5, 1, 6, 3, 4]);
        assert_eq!(columns(&RowOrder::even_then_odd(1)), [0]);
        assert_eq!(reach(&RowOrder::row_major(7).edges(&geometry)), geometry.reach());
        for width in 1..12 {
            let geometry = Geometry::new(width, 1, MoveSet::knight());
            assert_eq!(window(&geometry, &RowOrder::row_major(width)), geometry.reach(), "width {width}");
        }
        let row_major = RowOrder::row_major(7);
        assert_eq!((1..=7).filter(|&k| row_major.symmetric_after(k)).collect::<Vec<_>>(), [7]);
    }

    #[test]
    fn positions_and_cells_are_inverse_and_edges_are_the_boards() {
        for width in 1..10 {
            let geometry = Geometry::new(width, 4, MoveSet::knight());
            for order in RowOrder::candidates(width) {
                let edges = order.edges(&geometry);
                for cell in 0..geometry.cells() {
                    assert_eq!(order.cell(order.position(cell)), cell);
                    let mut mapped: Vec<usize> = edges[order.position(cell)].iter().map(|&p| order.cell(p)).collect();
                    let mut board: Vec<usize> = geometry.neighbours(cell).collect();
                    mapped.sort_unstable();
                    board.sort_unstable();
                    assert_eq!(mapped, board);
                }
                for i in 0..width {
                    assert_eq!(order.mirror(order.mirror(i)), i);
                    assert_eq!(order.column(order.mirror(i)), width - 1 - order.column(i));
                }
            }
        }
    }
}
