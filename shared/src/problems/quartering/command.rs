//! `leaper quarter`: the problem's face to the command line and the job directory.
//!
//! A plain count is a frontier sweep (fast, exact for any size, out of core and on a cluster);
//! `--enumerate`, `--by-start`, `--parkin` and `--svg` trace every cut instead, as a subtree job,
//! because they need the paths one by one.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, FromArgMatches};
use rug::Integer;
use serde::{Deserialize, Serialize};

use super::enumerate::{Rule, Start};
use super::graph::{folded, MAX_HALF_SIDE};
use super::paths::{capacity, FoldedSweep, Stage};
use super::shards::{line_name, Enumeration, MAX_ENUMERATED};
use super::{svg, Class};
use crate::engine::jobdir::{check_writable, replace_output, JobKind};
use crate::engine::problem::{
    table, typed, write_json_line, write_line, EngineOption, Job, OutputFormat, Params, Printing, Problem, Task,
};
use crate::engine::transition::SweepJob;
use crate::error::{Error, Result};

/// The quartering, as the registry names it.
pub struct QuarterProblem;

const ABOUT: &str = "Ways to cut a 2n x 2n board along grid lines into four congruent pieces (OEIS A257952): \
                     `leaper quarter 8` prints 766.";

const LONG_HELP: &str = "\
Two classes of cuts, as T. R. Parkin's letter of 1974 classifies them: (a) rotational, four arms from the
centre each the previous one turned by 90 degrees (OEIS A064941); (b) halved, a centre line halves the
board and each 2n x n half is cut into two pieces by a path that a half turn maps onto itself. Cuts equal
under a rotation or reflection of the board count once; in class (b) so do cuts that differ only in which
way round the second half's pieces lie; pieces are joined through edges, not corners.

Why the letter's totals (782 for 8x8, 44240 for 10x10) are higher than the accepted 766 and 43318: a path
that starts on a centre line has a mirror image that starts at the same point; the letter keeps one of
the two by letting such a path turn only left until it first turns. Its program held that rule for one
step only, for the square class, so a path that goes straight on and then turns right first was counted
beside its mirror image: 16 extra paths on the 8x8 board (87 where 71 are right), 922 on the 10x10.
--parkin emulates that slip and prints the letter's Table 1 line for line.";

#[derive(Debug, Args)]
#[command(after_long_help = LONG_HELP)]
struct QuarterArgs {
    /// The board's side, even: 8 for the chessboard.
    side: usize,

    /// Count one class only: rotational or halved.
    #[arg(long, value_enum, hide_possible_values = true)]
    class: Option<Class>,

    /// Trace every cut (Parkin's method) instead of sweeping.
    ///
    /// Trace every cut (Parkin's method) instead of sweeping a frontier.
    #[arg(long)]
    enumerate: bool,

    /// Print the paths per starting border point (Table 1).
    ///
    /// Print the paths per starting border point, in the layout of the letter's Table 1.
    #[arg(long, hide_short_help = true)]
    by_start: bool,

    /// Reproduce the 1974 letter: its Table 1 and its totals.
    ///
    /// Reproduce the letter: its Table 1 and totals, with its mirror-image rule as it ran (see below).
    #[arg(long, hide_short_help = true)]
    parkin: bool,

    /// Draw every dissection to FILE (SVG), a small board each.
    ///
    /// Draw every dissection to FILE (SVG), one small board each; up to 1000 dissections.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

/// What a quartering job counts, as `job.toml` records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuarterParams {
    /// The board's side, `2n`.
    pub side: usize,
    /// One class, or both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    pub enumerate: bool,
    pub by_start: bool,
    pub parkin: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub svg: Option<PathBuf>,
}

impl QuarterParams {
    fn read(params: &Params) -> Result<QuarterParams> {
        let quarter: QuarterParams = typed("quarter", params)?;
        quarter.check()?;
        Ok(quarter)
    }

    fn check(&self) -> Result<()> {
        if self.side % 2 == 1 || self.side == 0 || self.side > 2 * MAX_HALF_SIDE {
            return Err(Error::InvalidInput {
                input: format!("board \"{side}x{side}\"", side = self.side),
                reason: format!("the board's side must be even, from 2 to {}", 2 * MAX_HALF_SIDE),
            });
        }
        if self.parkin && self.svg.is_some() {
            return Err(Error::InvalidRequest(
                "--svg draws the accepted dissections; --parkin counts the letter's paths, some of them twice: \
                 use one or the other"
                    .into(),
            ));
        }
        if self.traces() && self.half() > MAX_ENUMERATED {
            let wanted = if self.svg.is_some() {
                "--svg"
            } else if self.parkin {
                "--parkin"
            } else if self.by_start {
                "--by-start"
            } else {
                "--enumerate"
            };
            return Err(Error::InvalidRequest(format!(
                "{wanted} traces every cut, which is for boards up to {max}x{max}; the {side}x{side} board is \
                 counted by the frontier sweep (leave out {wanted})",
                max = 2 * MAX_ENUMERATED,
                side = self.side
            )));
        }
        Ok(())
    }

    /// `n`, half the side.
    fn half(&self) -> usize {
        self.side / 2
    }

    fn classes(&self) -> Vec<Class> {
        self.class.map_or(Class::BOTH.to_vec(), |class| vec![class])
    }

    /// Whether the job traces every cut (a subtree job) rather than sweeping a frontier.
    fn traces(&self) -> bool {
        self.enumerate || self.by_start || self.parkin || self.svg.is_some()
    }

    fn rule(&self) -> Rule {
        if self.parkin {
            Rule::Parkin
        } else {
            Rule::Accepted
        }
    }

    fn sweep(&self) -> Result<Box<dyn SweepJob>> {
        let n = self.half();
        let mut stages = Vec::new();
        for class in self.classes() {
            stages.push(Stage::new(class.slot(), folded(class, n)?));
        }
        let width = stages.iter().map(Stage::width).max().unwrap_or(0);
        Ok(if width <= capacity::<u64>() {
            Box::new(FoldedSweep::<u64>::new(stages, Class::BOTH.len())?)
        } else {
            Box::new(FoldedSweep::<u128>::new(stages, Class::BOTH.len())?)
        })
    }
}

/// The counts of one finished job, by class, and by line of Table 1 when traced.
struct Tally {
    classes: Vec<(Class, Integer)>,
    lines: Vec<(Start, Integer)>,
}

impl Tally {
    fn new(quarter: &QuarterParams, counts: &[(usize, String)]) -> Result<Tally> {
        let parse = |text: &String| {
            Integer::from_str_radix(text, 10).map_err(|e| Error::Bug(format!("a quartering count {text:?}: {e}")))
        };
        let mut tally = Tally { classes: Vec::new(), lines: Vec::new() };
        if quarter.traces() {
            let job = Enumeration::new(quarter.half(), &quarter.classes(), quarter.rule())?;
            for (slot, count) in counts {
                let start = *job.lines().get(*slot).ok_or_else(|| Error::Bug(format!("no line {slot}")))?;
                tally.lines.push((start, parse(count)?));
            }
            for class in quarter.classes() {
                let sum = tally.lines.iter().filter(|(s, _)| s.class == class).map(|(_, c)| c).sum();
                tally.classes.push((class, Integer::from(&sum)));
            }
        } else {
            for class in quarter.classes() {
                let paths = counts.iter().find(|(slot, _)| *slot == class.slot()).map(|(_, c)| c);
                let paths = paths.ok_or_else(|| Error::Bug(format!("no count of {} paths", class.name())))?;
                tally.classes.push((class, class.dissections(quarter.half(), &parse(paths)?)?));
            }
        }
        Ok(tally)
    }

    fn total(&self) -> Integer {
        self.classes.iter().map(|(_, c)| c).sum::<Integer>()
    }

    fn class(&self, class: Class) -> Option<&Integer> {
        self.classes.iter().find(|(c, _)| *c == class).map(|(_, count)| count)
    }
}

/// One result line:
/// `{"problem":"quarter","board":"8x8","method":"frontier","rotational":"596","halved":"170","total":"766"}`.
#[derive(Serialize)]
struct QuarterLine {
    problem: &'static str,
    board: String,
    method: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rotational: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    halved: Option<String>,
    total: String,
    /// Present (true) when the counts were checked against a spare modulus (`--verify`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    verified: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    starts: Vec<StartLine>,
}

#[derive(Serialize)]
struct StartLine {
    class: &'static str,
    start: String,
    centre_line: bool,
    paths: String,
}

impl Problem for QuarterProblem {
    fn name(&self) -> &'static str {
        "quarter"
    }

    fn kinds(&self, _path: &str) -> &'static [JobKind] {
        &[JobKind::Sweep, JobKind::Subtree]
    }

    /// Its b-file has one row, n half the side: the knight's words (n a length) mean nothing here.
    fn engine_option(&self, _command: &str, option: &str) -> Option<EngineOption> {
        match option {
            "bfile" => Some(EngineOption::Told(
                "Also write the count as an OEIS b-file: `#` lines (program, version, command, date), then one \
                 row `n a(n)`, n half the side (A257952's index) unless --stride or --offset renumber it",
            )),
            "stride" => Some(EngineOption::Told(
                "Write the row as n / S, n half the side: `quarter 8 --bfile F --stride 2` writes `2 766`",
            )),
            _ => None,
        }
    }

    fn examples(&self, path: &str) -> Option<&'static str> {
        (path == "quarter").then_some(
            "  leaper quarter 8                  # 766 ways to cut 8x8 into four equal pieces
  leaper quarter 8 --class rotational   # 596 (A064941); --class halved: 170
  leaper quarter 6 --svg q.svg      # all 37 dissections drawn, a board each
  leaper quarter 8 --parkin         # the 1974 letter: its Table 1 and its 782",
        )
    }

    fn commands(&self) -> Vec<clap::Command> {
        vec![QuarterArgs::augment_args(clap::Command::new("quarter"))
            .about("Ways to cut a 2n x 2n board into four congruent pieces (A257952)")
            .long_about(ABOUT)]
    }

    fn params(&self, _command: &str, matches: &clap::ArgMatches) -> Result<Params> {
        let args = QuarterArgs::from_arg_matches(matches).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        let params = QuarterParams {
            side: args.side,
            class: args.class,
            enumerate: args.enumerate,
            by_start: args.by_start,
            parkin: args.parkin,
            svg: args.svg.map(|p| std::path::absolute(&p).unwrap_or(p)),
        };
        params.check()?;
        if let Some(path) = &params.svg {
            check_writable(path, "drawing")?;
            svg::check_drawable(params.side, &drawn_count(&params)?)?;
        }
        table(&params)
    }

    fn task(&self, params: &Params) -> Result<Arc<dyn Task>> {
        Ok(Arc::new(QuarterParams::read(params)?))
    }
}

/// The parameters, once checked, are the task.
impl Task for QuarterParams {
    fn kind(&self) -> JobKind {
        if self.traces() {
            JobKind::Subtree
        } else {
            JobKind::Sweep
        }
    }

    fn command_line(&self) -> String {
        let quarter = self;
        let mut line = format!("quarter {}", quarter.side);
        if let Some(class) = quarter.class {
            line.push_str(&format!(" --class {}", class.name()));
        }
        for (flag, on) in
            [("--enumerate", quarter.enumerate), ("--by-start", quarter.by_start), ("--parkin", quarter.parkin)]
        {
            if on {
                line.push(' ');
                line.push_str(flag);
            }
        }
        if let Some(path) = &quarter.svg {
            line.push_str(&format!(" --svg {}", path.display()));
        }
        line
    }

    fn id_stem(&self) -> String {
        let method = if self.traces() { "-enumerate" } else { "" };
        format!("quarter-{}{method}", self.side)
    }

    fn job(&self) -> Result<Job> {
        let quarter = self;
        Ok(if quarter.traces() {
            Job::Subtree(Arc::new(Enumeration::new(quarter.half(), &quarter.classes(), quarter.rule())?))
        } else {
            Job::Sweep(quarter.sweep()?)
        })
    }

    /// The board two squares narrower, the same class: down to 2x2. Its layers grow about 3.9
    /// times a size at their peak and its states read about 4.2 times (from 16x16 to 28x28).
    fn smaller(&self) -> Option<Arc<dyn Task>> {
        if self.traces() || self.side <= 2 {
            return None;
        }
        Some(Arc::new(QuarterParams { side: self.side - 2, ..self.clone() }))
    }

    fn slot_label(&self, slot: usize) -> Result<String> {
        let quarter = self;
        if quarter.traces() {
            let job = Enumeration::new(quarter.half(), &quarter.classes(), quarter.rule())?;
            return job.lines().get(slot).map(line_name).ok_or_else(|| Error::Bug(format!("no line {slot}")));
        }
        Ok(format!("{} paths", super::class_name(slot)))
    }

    /// One row of A257952 (offset 0: `n` for the `2n x 2n` board), or of A064941 for the
    /// rotational class alone; with `--class halved`, of the halved class (A257952 - A064941,
    /// which has no entry of its own).
    fn bfile_rows(&self, counts: &[(usize, String)]) -> Result<Vec<(usize, String)>> {
        let tally = Tally::new(self, counts)?;
        Ok(vec![(self.half(), tally.total().to_string())])
    }

    fn bfile_indices(&self) -> Result<Vec<usize>> {
        Ok(vec![self.half()])
    }

    fn print(&self, counts: &[(usize, String)], printing: Printing, out: &mut dyn Write) -> Result<()> {
        let quarter = self;
        let tally = Tally::new(quarter, counts)?;
        if let Some(path) = &quarter.svg {
            draw(quarter, &tally, path)?;
        }
        let table = quarter.by_start || quarter.parkin;
        match printing.format {
            OutputFormat::Json => {
                let starts = if table {
                    tally
                        .lines
                        .iter()
                        .map(|(start, count)| StartLine {
                            class: start.class.name(),
                            start: start.label(),
                            centre_line: start.centre_line,
                            paths: count.to_string(),
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let line = QuarterLine {
                    problem: "quarter",
                    board: format!("{side}x{side}", side = quarter.side),
                    method: if quarter.traces() { "enumeration" } else { "frontier" },
                    rule: quarter.parkin.then_some("parkin"),
                    rotational: tally.class(Class::Rotational).map(Integer::to_string),
                    halved: tally.class(Class::Halved).map(Integer::to_string),
                    total: tally.total().to_string(),
                    verified: printing.verified,
                    starts,
                };
                write_json_line(out, &line)
            }
            OutputFormat::Text if table => print_table(quarter, &tally, out),
            OutputFormat::Text => write_line(out, format_args!("{}", tally.total())),
        }
    }
}

/// The count a drawing would hold, before any job starts (tracing is for boards up to 16x16,
/// which the frontier sweep counts in a moment).
fn drawn_count(quarter: &QuarterParams) -> Result<Integer> {
    let mut total = Integer::new();
    for class in quarter.classes() {
        let stage = Stage::new(class.slot(), folded(class, quarter.half())?);
        let paths = super::paths::count_in_memory::<u128>(vec![stage], Class::BOTH.len())?;
        total += class.dissections(quarter.half(), &Integer::from(paths[class.slot()]))?;
    }
    Ok(total)
}

fn draw(quarter: &QuarterParams, tally: &Tally, path: &std::path::Path) -> Result<()> {
    svg::check_drawable(quarter.side, &tally.total())?;
    let dissections = svg::dissections(quarter.half(), &quarter.classes())?;
    if tally.total() != dissections.len() {
        return Err(Error::Bug(format!(
            "{} dissections traced for the drawing, {} counted",
            dissections.len(),
            tally.total()
        )));
    }
    replace_output(path, svg::render(quarter.side, &quarter.classes(), &dissections).as_bytes(), "svg")?;
    tracing::info!(drawing = %path.display(), dissections = dissections.len(), "drew every dissection");
    Ok(())
}

/// The letter's Table 1 layout: `N 2N`, the square lines beside the rectangle lines, `C(2N)`.
fn print_table(quarter: &QuarterParams, tally: &Tally, out: &mut dyn Write) -> Result<()> {
    let column = |class: Class| -> Vec<String> {
        tally
            .lines
            .iter()
            .filter(|(start, count)| start.class == class && *count != 0)
            .map(|(start, count)| {
                let mark = if start.centre_line { "*" } else { "" };
                format!("{:<6}{:>12}", format!("{}{mark}", start.label()), count.to_string())
            })
            .collect()
    };
    let (square, rect) = (column(Class::Rotational), column(Class::Halved));
    let rows = square.len().max(rect.len());
    write_line(
        out,
        format_args!("{:>3} {:>4}   {:<18}   {:<18}   {:>8}", "N", "2N", "I,J {Square}  #", "I,J {Rect}    #", "C(2N)"),
    )?;
    for row in 0..rows {
        let (n, side, total) = if row == 0 {
            (quarter.half().to_string(), quarter.side.to_string(), tally.total().to_string())
        } else {
            (String::new(), String::new(), String::new())
        };
        let cell = |lines: &Vec<String>| lines.get(row).cloned().unwrap_or_default();
        let line = format!("{n:>3} {side:>4}   {:<18}   {:<18}   {total:>8}", cell(&square), cell(&rect));
        write_line(out, format_args!("{}", line.trim_end()))?;
    }
    let rule = if quarter.parkin {
        "the letter's rule as it ran: left only at the first choice, square class"
    } else {
        "left turns only until the first turn (the accepted counts)"
    };
    write_line(out, format_args!("* starts on a centre line; mirror images kept apart by {rule}"))?;
    write_line(out, format_args!("lines with no paths are left out, as in the letter"))
}
