//! The depth-first count of Quarto draws below a partial arrangement.
//!
//! A *draw* places the values `0..2^bits` on the cells, one each, so that every line holds, in every
//! bit, both a 0 and a 1: bitwise OR over the line is all ones, bitwise AND is zero. The search
//! fills cells in a fixed order chosen so that lines close as early as possible, and keeps for each
//! line the OR and AND of the values placed so far. Two checks prune:
//!
//! * a line with one empty cell admits there only values that carry every bit the line still lacks
//!   as a 1 (`!or`) and none the line still lacks as a 0 (`and`);
//! * after a placement, a line left with one empty cell must still admit some unused value there
//!   (forward check), else the branch dies before its subtree is entered.
//!
//! Since a line's fill count at each depth is fixed by the order, both checks are tabulated per
//! depth once, and the inner loop only ANDs masks. The last cell is not entered: its number of
//! admissible values (0 or 1) is the count.

/// Lines are cell masks, so a board has at most 16 cells (values fit a `u16` mask too).
pub const MAX_CELLS: usize = 16;

/// `ADMITS[missing_ones][missing_zeros]`: the values `v < 16` carrying every bit of
/// `missing_ones` and no bit of `missing_zeros`.
const ADMITS: [[u16; 16]; 16] = {
    let mut table = [[0u16; 16]; 16];
    let mut ones = 0;
    while ones < 16 {
        let mut zeros = 0;
        while zeros < 16 {
            let mut v = 0;
            while v < 16 {
                if v & ones == ones && v & zeros == 0 {
                    table[ones][zeros] |= 1 << v;
                }
                v += 1;
            }
            zeros += 1;
        }
        ones += 1;
    }
    table
};

/// A board for the search: `cells` cells holding the values `0..2^bits` (so `cells == 2^bits`) and
/// the lines that must be draws.
#[derive(Clone, Debug)]
pub struct Layout {
    pub cells: usize,
    pub bits: u32,
    pub lines: Vec<u16>,
}

impl Layout {
    pub fn new(cells: usize, bits: u32, lines: Vec<u16>) -> Layout {
        assert!(cells <= MAX_CELLS && cells == 1 << bits, "a layout holds 2^bits <= 16 cells");
        assert!(lines.iter().all(|&line| line != 0 && (line as u32) < (1u32 << cells)));
        Layout { cells, bits, lines }
    }

    fn full(&self) -> u8 {
        ((1u32 << self.bits) - 1) as u8
    }

    /// Every value in every cell.
    pub fn unrestricted(&self) -> Vec<u16> {
        vec![((1u32 << self.cells) - 1) as u16; self.cells]
    }

    /// Counts the draws whose cell `c` holds a value of `allowed[c]` (a value mask) for every `c`.
    /// Cells allowed a single value are placed first, so a prefix costs nothing.
    pub fn count(&self, allowed: &[u16]) -> u64 {
        assert_eq!(allowed.len(), self.cells);
        Search::new(self, allowed).count()
    }
}

/// What depth `d` of the search does, fixed by the fill order.
#[derive(Clone, Debug, Default)]
struct Depth {
    allowed: u16,
    /// Lines through the cell whose other cells are all filled: they restrict its value.
    closing: Vec<usize>,
    /// Lines through the cell that this placement leaves with exactly one empty cell.
    forward: Vec<(usize, usize)>,
    /// Lines through the cell (their OR and AND absorb its value).
    through: Vec<usize>,
    /// The closing lines again, each with whether it holds the previous depth's cell.
    closing_after_previous: Vec<(usize, bool)>,
}

/// The depth-first search of one set of allowed values, each depth as the fill order fixes it.
struct Search {
    depths: Vec<Depth>,
    full: u8,
    allowed: Vec<u16>,
}

#[derive(Clone, Copy)]
struct Frame {
    or: [u8; MAX_LINES],
    and: [u8; MAX_LINES],
    unused: u16,
}

/// Enough for every line family of a 4 x 4 board together.
pub const MAX_LINES: usize = 40;

impl Search {
    fn new(layout: &Layout, allowed: &[u16]) -> Search {
        assert!(layout.lines.len() <= MAX_LINES, "at most {MAX_LINES} lines");
        let order = fill_order(layout, allowed);
        let mut filled = 0u16;
        let mut depths = Vec::with_capacity(order.len());
        let mut previous = 0u16;
        for &cell in &order {
            let bit = 1u16 << cell;
            let mut depth = Depth { allowed: allowed[cell], ..Depth::default() };
            for (index, &line) in layout.lines.iter().enumerate() {
                if line & bit == 0 {
                    continue;
                }
                depth.through.push(index);
                if line & !filled == bit {
                    depth.closing.push(index);
                    depth.closing_after_previous.push((index, line & previous != 0));
                }
                let empty_after = line & !(filled | bit);
                if empty_after.count_ones() == 1 {
                    depth.forward.push((index, empty_after.trailing_zeros() as usize));
                }
            }
            filled |= bit;
            previous = bit;
            depths.push(depth);
        }
        Search { depths, full: layout.full(), allowed: allowed.to_vec() }
    }

    fn count(&self) -> u64 {
        let full = self.full;
        let unused = ((1u32 << self.depths.len()) - 1) as u16;
        self.descend(0, &Frame { or: [0; MAX_LINES], and: [full; MAX_LINES], unused })
    }

    fn admitted(&self, frame: &Frame, line: usize) -> u16 {
        ADMITS[(self.full & !frame.or[line]) as usize][frame.and[line] as usize]
    }

    fn descend(&self, depth: usize, frame: &Frame) -> u64 {
        let step = &self.depths[depth];
        let mut candidates = frame.unused & step.allowed;
        for &line in &step.closing {
            candidates &= self.admitted(frame, line);
        }
        if depth + 1 == self.depths.len() {
            return u64::from(candidates.count_ones());
        }
        if depth + 2 == self.depths.len() {
            return self.last_two(frame, candidates, &self.depths[depth + 1]);
        }
        let mut total = 0;
        while candidates != 0 {
            let value = candidates.trailing_zeros() as u8;
            candidates &= candidates - 1;
            let mut next = *frame;
            next.unused &= !(1 << value);
            for &line in &step.through {
                next.or[line] |= value;
                next.and[line] &= value;
            }
            let viable = step
                .forward
                .iter()
                .all(|&(line, empty)| next.unused & self.allowed[empty] & self.admitted(&next, line) != 0);
            if viable {
                total += self.descend(depth + 1, &next);
            }
        }
        total
    }
}

impl Search {
    /// The last two cells without entering them: the last cell's value is whatever the
    /// second-to-last leaves, so each candidate there counts if that value is admitted.
    fn last_two(&self, frame: &Frame, mut candidates: u16, last: &Depth) -> u64 {
        let mut total = 0;
        while candidates != 0 {
            let value = candidates.trailing_zeros() as u8;
            candidates &= candidates - 1;
            let mut admitted = frame.unused & !(1 << value) & last.allowed;
            for &(line, holds_previous) in &last.closing_after_previous {
                let (or, and) = if holds_previous {
                    (frame.or[line] | value, frame.and[line] & value)
                } else {
                    (frame.or[line], frame.and[line])
                };
                admitted &= ADMITS[(self.full & !or) as usize][and as usize];
            }
            total += u64::from(admitted != 0);
        }
        total
    }
}

/// Forced cells first (in cell order), then greedily the cell that closes the most lines, ties
/// broken by how full its lines already are: early closing means early pruning.
fn fill_order(layout: &Layout, allowed: &[u16]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..layout.cells).filter(|&c| allowed[c].count_ones() == 1).collect();
    let mut filled: u16 = order.iter().map(|&c| 1u16 << c).sum();
    while order.len() < layout.cells {
        let best = (0..layout.cells)
            .filter(|&c| filled & (1 << c) == 0)
            .max_by_key(|&c| {
                let bit = 1u16 << c;
                let through = layout.lines.iter().filter(|&&line| line & bit != 0);
                let closes = through.clone().filter(|&&line| line & !filled == bit).count();
                let fullness: u32 = through.map(|&line| (line & filled).count_ones().pow(2)).sum();
                (closes, fullness, std::cmp::Reverse(c))
            })
            .expect("an unfilled cell remains");
        order.push(best);
        filled |= 1 << best;
    }
    order
}
