//! Parkin's enumeration as a subtree job: one result slot per line of Table 1 (a class and a
//! start point), one shard per path prefix of a fixed depth under each start.
//!
//! The depth is the smallest that gives at least [`TARGET_SHARDS`] shards (or
//! [`MAX_DEPTH`]), so small boards make a few shards and large ones enough to keep every core
//! and worker busy; it depends only on the board, the classes and the rule, so every run of the
//! same job makes the same plan. A path that reaches the centre within the depth is a shard of
//! its own.

use super::enumerate::{starts, Figure, Point, Rule, Start, Tracer, Visit};
use super::Class;
use crate::engine::subtree::{ShardResult, SubtreeProblem};
use crate::{Error, Result};

/// Enough shards to spread a count over cores and workers.
pub const TARGET_SHARDS: usize = 256;
/// The deepest prefix a shard starts from.
pub const MAX_DEPTH: usize = 12;
/// The largest half side enumerated: the 16x16 board (about 6 * 10^12 cuts) is already far
/// beyond a run of hours; larger boards are the frontier sweep's.
pub const MAX_ENUMERATED: usize = 8;

/// The enumeration of one board.
#[derive(Clone, Debug)]
pub struct Enumeration {
    n: usize,
    rule: Rule,
    lines: Vec<Start>,
    /// Shard `i`: a line and the directions of its prefix.
    shards: Vec<(usize, Vec<usize>)>,
}

impl Enumeration {
    pub fn new(n: usize, classes: &[Class], rule: Rule) -> Result<Enumeration> {
        if n == 0 || n > MAX_ENUMERATED {
            return Err(Error::InvalidInput {
                input: format!("board \"{side}x{side}\"", side = 2 * n),
                reason: format!(
                    "enumeration traces every cut, which is for boards up to {max}x{max}; count larger boards \
                     with the frontier sweep (leave out --enumerate, --by-start, --parkin and --svg)",
                    max = 2 * MAX_ENUMERATED
                ),
            });
        }
        let lines = starts(n as i32, classes);
        let mut depth = 0;
        let shards = loop {
            let shards = plan(n, rule, &lines, depth);
            if shards.len() >= TARGET_SHARDS || depth == MAX_DEPTH {
                break shards;
            }
            depth += 1;
        };
        Ok(Enumeration { n, rule, lines, shards })
    }

    /// The lines of Table 1 this job counts, in slot order.
    pub fn lines(&self) -> &[Start] {
        &self.lines
    }

    fn tracer(&self, line: usize) -> Tracer {
        let start = self.lines[line];
        Tracer::new(Figure { n: self.n as i32, class: start.class }, start, self.rule)
    }

    /// Every counted path of every line, border point to centre, in slot order.
    pub fn for_each_path(&self, visit: &mut dyn FnMut(&Start, &[Point])) {
        for (line, start) in self.lines.iter().enumerate() {
            self.tracer(line).search(None, &mut |found| {
                if let Visit::Path { points, .. } = found {
                    visit(start, points);
                }
            });
        }
    }
}

/// The shards of `lines` at prefix depth `depth`.
fn plan(n: usize, rule: Rule, lines: &[Start], depth: usize) -> Vec<(usize, Vec<usize>)> {
    let mut shards = Vec::new();
    for (line, &start) in lines.iter().enumerate() {
        let mut tracer = Tracer::new(Figure { n: n as i32, class: start.class }, start, rule);
        tracer.search(Some(depth), &mut |found| match found {
            Visit::Prefix(directions) | Visit::Path { directions, .. } => shards.push((line, directions.to_vec())),
        });
    }
    shards
}

/// `SLLR`: the prefix's turns after its first step (straight, left, right).
fn turns(directions: &[usize]) -> String {
    directions
        .windows(2)
        .map(|w| match (w[1] + 4 - w[0]) % 4 {
            0 => 'S',
            1 => 'L',
            _ => 'R',
        })
        .collect()
}

/// `rotational 1,0`: a line's slot name.
pub fn line_name(start: &Start) -> String {
    format!("{} {}", start.class.name(), start.label())
}

impl SubtreeProblem for Enumeration {
    fn describe(&self) -> String {
        let rule = match self.rule {
            Rule::Accepted => "",
            Rule::Parkin => " --parkin",
        };
        let classes: std::collections::BTreeSet<Class> = self.lines.iter().map(|l| l.class).collect();
        let class = match classes.iter().collect::<Vec<_>>()[..] {
            [one] => format!(" --class {}", one.name()),
            _ => String::new(),
        };
        format!("quarter {side} --enumerate{class}{rule}", side = 2 * self.n)
    }

    fn slots(&self) -> Vec<String> {
        self.lines.iter().map(line_name).collect()
    }

    fn shard_count(&self) -> usize {
        self.shards.len()
    }

    fn shard_label(&self, index: usize) -> String {
        match self.shards.get(index) {
            Some((line, directions)) => format!("{} {}", line_name(&self.lines[*line]), turns(directions)),
            None => format!("shard {index} (out of range)"),
        }
    }

    fn run_shard(&self, index: usize) -> Result<ShardResult> {
        let (line, directions) = self.shards.get(index).ok_or_else(|| {
            Error::InvalidRequest(format!("shard {index} is out of range ({} shards)", self.shards.len()))
        })?;
        let mut tracer = self.tracer(*line);
        if !tracer.replay(directions) {
            return Err(Error::Bug(format!("shard {} does not replay", self.shard_label(index))));
        }
        let mut counts = vec![0; self.lines.len()];
        counts[*line] = tracer.count();
        Ok(ShardResult { counts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_line(job: &Enumeration) -> Vec<u128> {
        let mut totals = vec![0; job.lines().len()];
        for index in 0..job.shard_count() {
            for (total, count) in totals.iter_mut().zip(job.run_shard(index).unwrap().counts) {
                *total += count;
            }
        }
        totals
    }

    #[test]
    fn shards_add_up_to_the_whole_trace_of_each_line() {
        let job = Enumeration::new(4, &Class::BOTH, Rule::Accepted).unwrap();
        assert!(job.shard_count() >= TARGET_SHARDS);
        let whole: Vec<u128> = (0..job.lines().len()).map(|line| job.tracer(line).count()).collect();
        assert_eq!(by_line(&job), whole);
        // Table 1 of the letter for 8x8, square 4,0 as accepted (the letter has 87).
        assert_eq!(whole, vec![212, 167, 146, 71, 43, 33, 24, 8, 43, 19]);
    }

    #[test]
    fn boards_beyond_enumeration_are_refused() {
        assert!(Enumeration::new(MAX_ENUMERATED + 1, &Class::BOTH, Rule::Accepted).is_err());
    }
}
