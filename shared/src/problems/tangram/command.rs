//! `leaper tangram`: the problem's face to the command line and the job directory.
//!
//! Three actions, each a subtree job (so `--job-dir`, `resume`, `status` and `--workers` work
//! for all of them): `outlines` (one shard per area), `solve` and `fit` (one shard per outline
//! and first placement). The piece file's text is recorded in the parameters, so a resumed job
//! or a worker sees exactly the pieces the job started with.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, FromArgMatches, ValueEnum};
use serde::{Deserialize, Serialize};

use super::outline::{outlines, Outline, MAX_AREA};
use super::pieces::{KindLine, PieceSet, MAX_PIECE_FILE};
use super::shards::{area_slot, TangramJob};
use super::svg;
use crate::engine::jobdir::{check_writable, replace_output, JobKind};
use crate::engine::problem::{
    table, typed, write_json_line, write_line, Job, OutputFormat, Params, Printing, Problem, Task,
};
use crate::error::{Error, Result};
use crate::input::read_to_string_bounded;

/// The tangram programs, as the registry names them.
pub struct TangramProblem;

const ABOUT: &str = "Convex figures from polygon pieces (P. L\u{e4}uchli's tangram programs, 1967): `leaper tangram \
                     solve` finds 142 dissections of 13 of the 20 convex outlines of area 16 into the seven pieces.";

/// The examples of `tangram` and of each of its actions, for the help ([`Problem::examples`]).
const EXAMPLES: [(&str, &str); 4] = [
    (
        "tangram",
        "  leaper tangram solve              # 142 dissections of 13 of the 20 outlines
  leaper tangram outlines 16        # the 20 convex outlines of area 16
  leaper tangram fit --outline 5,2,2,0,0,0   # yes, in 36 ways
  leaper tangram outlines --help    # one action's options",
    ),
    (
        "tangram outlines",
        "  leaper tangram outlines 16        # the 20 outlines of area 16, with their sides
  leaper tangram outlines --count 1..40   # N(F) per area, as b-file rows",
    ),
    (
        "tangram solve",
        "  leaper tangram solve              # 142 dissections of 13 of the 20 outlines
  leaper tangram solve --pieces FILE   # any pieces on the half-square lattice
  leaper tangram solve --svg t.svg  # every dissection drawn, by outline",
    ),
    (
        "tangram fit",
        "  leaper tangram fit --outline 5,2,2,0,0,0   # yes, in 36 ways (a trapezoid)
  leaper tangram fit --outline 5,2,2,0,0,0 --svg fit.svg   # and drawn",
    ),
];

const LONG_HELP: &str = "\
Areas are counted in elementary triangles: isosceles right triangles with legs 1, half a unit square (the
tangram's small triangle). A convex figure made of them is an octagon: its bounding box, s2 wide and s4
high, with corners of legs s1 (bottom left), s3 (bottom right), s5 (top right), s7 (top left) cut off at
45 degrees, so that F = 2 s2 s4 - (s1^2 + s3^2 + s5^2 + s7^2). An outline is printed as s2,s4,s1,s3,s5,s7
with its sides counterclockwise from the bottom edge.

  leaper tangram outlines 16            the 20 outlines of area 16, one per congruence class
  leaper tangram outlines --count 1..40 N(F), the number of outlines, for F = 1 to 40
  leaper tangram solve                  every convex figure of the seven pieces, per outline
  leaper tangram solve --pieces FILE    the same for other pieces
  leaper tangram fit --outline 5,2,2,0,0,0
                                        can this outline be built (and in how many ways)?
                                        exit status 0 for yes, 1 for no, as grep's

A piece file holds one piece per line: a name, then the corners of its boundary in order, as
whole-number points x,y (each consecutive pair is an edge; `#` starts a comment):

  large-triangle   0,0 2,0 0,2
  parallelogram    0,0 1,0 2,1 1,1

Edges run along the grid or at 45 degrees; pieces need not be convex; identical pieces are found
whatever their names and placed as one kind, in the order of the file (largest first is fastest).
Dissections that differ by a symmetry of the outline or by swapping identical pieces count once.";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
enum Action {
    /// List the convex outlines of an area (or count them for a range of areas, --count).
    Outlines,
    /// Find every convex figure the pieces form, grouped by outline (the paper's Program 3).
    Solve,
    /// Whether one outline can be built from the pieces (the paper's Program 1), and in how many
    /// ways; exits 0 for yes, 1 for no, as grep does (an error also exits 1, after `error:`).
    Fit,
}

#[derive(Debug, Args)]
#[command(after_long_help = LONG_HELP)]
struct TangramArgs {
    /// What to do.
    #[arg(value_enum)]
    action: Action,

    /// outlines: the area, in elementary triangles (16 for the tangram).
    area: Option<i32>,

    /// outlines: print N(F) for every area F in the range A..B (both ends included).
    #[arg(long, value_name = "A..B", conflicts_with = "area")]
    count: Option<String>,

    /// solve, fit: the piece file (default: the seven tangram pieces).
    #[arg(long, value_name = "FILE")]
    pieces: Option<PathBuf>,

    /// fit: the outline, as s2,s4,s1,s3,s5,s7.
    #[arg(long, value_name = "s2,s4,s1,s3,s5,s7")]
    outline: Option<String>,

    /// solve, fit: draw every dissection to FILE (SVG), grouped by outline.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

/// What a tangram job does, as `job.toml` records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TangramParams {
    action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    area: Option<i32>,
    /// `--count A..B`, as `(A, B)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    count: Option<(i32, i32)>,
    /// The piece file's name, for messages, and its text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pieces_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pieces: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    outline: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    svg: Option<PathBuf>,
}

/// `A..B` (or one area).
fn parse_range(text: &str) -> Result<(i32, i32)> {
    let bad = || Error::InvalidRequest(format!("--count {text:?}: give a range of areas A..B, such as 1..40"));
    let (low, high) = match text.split_once("..") {
        Some((low, high)) => (low.trim(), high.trim().trim_start_matches('=')),
        None => (text.trim(), text.trim()),
    };
    let (low, high) = (low.parse::<i32>().map_err(|_| bad())?, high.parse::<i32>().map_err(|_| bad())?);
    if low < 1 || high < low || high > MAX_AREA {
        return Err(Error::InvalidRequest(format!(
            "--count {text:?}: areas run from 1 to {MAX_AREA}, the first no larger than the last"
        )));
    }
    Ok((low, high))
}

impl TangramParams {
    fn read(params: &Params) -> Result<TangramParams> {
        let tangram: TangramParams = typed("tangram", params)?;
        tangram.check()?;
        Ok(tangram)
    }

    /// Options that belong to another action are refused by name.
    fn check(&self) -> Result<()> {
        let refuse = |option: &str, action: &str| {
            Err(Error::InvalidRequest(format!(
                "{option} is an option of `tangram {action}`, not of `tangram {}`",
                self.name()
            )))
        };
        match self.action {
            Action::Outlines => {
                if self.pieces.is_some() {
                    return refuse("--pieces", "solve");
                }
                if self.outline.is_some() {
                    return refuse("--outline", "fit");
                }
                if self.svg.is_some() {
                    return refuse("--svg", "solve");
                }
                if self.area.is_none() && self.count.is_none() {
                    return Err(Error::InvalidRequest(
                        "tangram outlines needs an area (tangram outlines 16) or a range (--count 1..40)".into(),
                    ));
                }
                if let Some(area) = self.area {
                    super::outline::check_area(area)?;
                }
            }
            Action::Solve | Action::Fit => {
                if self.area.is_some() {
                    return refuse("an area", "outlines");
                }
                if self.count.is_some() {
                    return refuse("--count", "outlines");
                }
                match (self.action, &self.outline) {
                    (Action::Solve, Some(_)) => return refuse("--outline", "fit"),
                    (Action::Fit, None) => {
                        return Err(Error::InvalidRequest(
                            "tangram fit needs --outline s2,s4,s1,s3,s5,s7 (see `leaper tangram outlines 16`)".into(),
                        ))
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn name(&self) -> &'static str {
        match self.action {
            Action::Outlines => "outlines",
            Action::Solve => "solve",
            Action::Fit => "fit",
        }
    }

    fn pieces(&self) -> Result<PieceSet> {
        match &self.pieces {
            Some(text) => PieceSet::parse(self.pieces_file.as_deref().unwrap_or("the piece file"), text),
            None => Ok(PieceSet::classic()),
        }
    }

    /// The outlines a solve or fit job places pieces in.
    fn outlines(&self, pieces: &PieceSet) -> Result<Vec<Outline>> {
        match &self.outline {
            Some(text) => Ok(vec![Outline::parse(text)?]),
            None => outlines(pieces.area()),
        }
    }

    /// The areas an outlines job covers.
    fn areas(&self) -> Vec<i32> {
        match (self.area, self.count) {
            (Some(area), _) => vec![area],
            (None, Some((low, high))) => (low..=high).collect(),
            (None, None) => Vec::new(),
        }
    }

    fn search(&self) -> Result<TangramJob> {
        match self.action {
            Action::Outlines => Ok(TangramJob::outlines(self.command_line(), self.areas())),
            Action::Solve | Action::Fit => {
                let pieces = self.pieces()?;
                let outlines = self.outlines(&pieces)?;
                TangramJob::dissections(self.command_line(), pieces, outlines)
            }
        }
    }
}

/// A line of `tangram outlines`.
#[derive(Serialize)]
struct OutlineLine {
    problem: &'static str,
    area: i32,
    outline: [i32; 6],
    sides: String,
}

/// A line of `tangram outlines --count`, and the last of `tangram outlines F`.
#[derive(Serialize)]
struct CountLine {
    problem: &'static str,
    area: i32,
    outlines: String,
}

/// A line of `tangram solve` or `fit`: one outline.
#[derive(Serialize)]
struct DissectionLine {
    problem: &'static str,
    outline: [i32; 6],
    sides: String,
    dissections: String,
}

/// The last line of `tangram solve`: the totals and the pieces as the program found them.
#[derive(Serialize)]
struct TotalLine {
    problem: &'static str,
    area: i32,
    outlines: usize,
    possible: usize,
    dissections: String,
    pieces: Vec<KindLine>,
}

fn parse_count(text: &str) -> Result<u128> {
    text.parse().map_err(|e| Error::Bug(format!("a tangram count {text:?}: {e}")))
}

impl Problem for TangramProblem {
    fn name(&self) -> &'static str {
        "tangram"
    }

    fn kinds(&self, _path: &str) -> &'static [JobKind] {
        &[JobKind::Subtree]
    }

    fn examples(&self, path: &str) -> Option<&'static str> {
        EXAMPLES.iter().find(|(command, _)| *command == path).map(|(_, lines)| *lines)
    }

    fn usage(&self, path: &str) -> Option<&'static str> {
        // An area or a range of them: one of the two, which clap's usage of the whole command
        // (where both are optional) cannot say.
        (path == "tangram outlines").then_some("leaper tangram outlines [OPTIONS] <AREA | --count <A..B>>")
    }

    fn commands(&self) -> Vec<clap::Command> {
        vec![TangramArgs::augment_args(clap::Command::new("tangram"))
            .about("Convex figures from tangram pieces (P. L\u{e4}uchli, 1967)")
            .long_about(ABOUT)]
    }

    fn params(&self, _command: &str, matches: &clap::ArgMatches) -> Result<Params> {
        let args = TangramArgs::from_arg_matches(matches).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        let (pieces_file, pieces) = match &args.pieces {
            Some(path) => {
                let text = read_to_string_bounded(path, MAX_PIECE_FILE, "piece file")?;
                (Some(path.display().to_string()), Some(text))
            }
            None => (None, None),
        };
        let params = TangramParams {
            action: args.action,
            area: args.area,
            count: args.count.as_deref().map(parse_range).transpose()?,
            pieces_file,
            pieces,
            outline: args.outline,
            svg: args.svg.map(|p| std::path::absolute(&p).unwrap_or(p)),
        };
        params.check()?;
        // Bad pieces, a bad outline or areas that do not match are refused before any job starts.
        params.search()?;
        if let Some(path) = &params.svg {
            check_writable(path, "drawing")?;
        }
        table(&params)
    }

    fn task(&self, params: &Params) -> Result<Arc<dyn Task>> {
        Ok(Arc::new(TangramParams::read(params)?))
    }
}

/// The parameters, once checked, are the task: what they ask for is cheap to rebuild.
impl Task for TangramParams {
    fn kind(&self) -> JobKind {
        JobKind::Subtree
    }

    fn command_line(&self) -> String {
        let mut line = format!("tangram {}", self.name());
        if let Some(area) = self.area {
            line.push_str(&format!(" {area}"));
        }
        if let Some((low, high)) = self.count {
            line.push_str(&format!(" --count {low}..{high}"));
        }
        if let Some(file) = &self.pieces_file {
            line.push_str(&format!(" --pieces {file}"));
        }
        if let Some(outline) = &self.outline {
            line.push_str(&format!(" --outline {outline}"));
        }
        if let Some(path) = &self.svg {
            line.push_str(&format!(" --svg {}", path.display()));
        }
        line
    }

    fn id_stem(&self) -> String {
        format!("tangram-{}", self.name())
    }

    fn job(&self) -> Result<Job> {
        Ok(Job::Subtree(Arc::new(self.search()?)))
    }

    /// The area or outline of a slot, without planning the search (status asks for every slot).
    fn slot_label(&self, slot: usize) -> Result<String> {
        let label = match self.action {
            Action::Outlines => self.areas().get(slot).map(|&area| area_slot(area)),
            Action::Solve | Action::Fit => self.outlines(&self.pieces()?)?.get(slot).map(Outline::label),
        };
        label.ok_or_else(|| Error::Bug(format!("tangram has no slot {slot}")))
    }

    fn print(&self, counts: &[(usize, String)], printing: Printing, out: &mut dyn Write) -> Result<()> {
        match self.action {
            Action::Outlines => print_outlines(self, counts, printing.format, out),
            Action::Solve | Action::Fit => print_dissections(self, counts, printing.format, out),
        }
    }

    /// `fit` asks whether the outline can be built: no dissection is a no (exit status 1).
    fn answers_no(&self, counts: &[(usize, String)]) -> bool {
        self.action == Action::Fit && counts.iter().all(|(_, count)| count == "0")
    }
}

fn print_outlines(
    tangram: &TangramParams,
    counts: &[(usize, String)],
    format: OutputFormat,
    out: &mut dyn Write,
) -> Result<()> {
    let areas = tangram.areas();
    if let Some(area) = tangram.area {
        let listed = outlines(area)?;
        if format == OutputFormat::Text {
            write_line(out, format_args!("# s2 s4 s1 s3 s5 s7   sides, counterclockwise from the bottom edge"))?;
        }
        for outline in &listed {
            match format {
                OutputFormat::Json => write_json_line(
                    out,
                    &OutlineLine { problem: "tangram", area, outline: outline.params(), sides: outline.sides() },
                )?,
                OutputFormat::Text => {
                    let numbers: Vec<String> = outline.params().iter().map(|v| format!("{v:>2}")).collect();
                    write_line(out, format_args!("  {}   {}", numbers.join(" "), outline.sides()))?
                }
            }
        }
    }
    for (slot, count) in counts {
        let area = *areas.get(*slot).ok_or_else(|| Error::Bug(format!("no area of slot {slot}")))?;
        match format {
            OutputFormat::Json => {
                write_json_line(out, &CountLine { problem: "tangram", area, outlines: count.clone() })?
            }
            OutputFormat::Text if tangram.area.is_some() => {
                write_line(out, format_args!("N({area}) = {count} outlines"))?
            }
            OutputFormat::Text => write_line(out, format_args!("{area} {count}"))?,
        }
    }
    Ok(())
}

fn print_dissections(
    tangram: &TangramParams,
    counts: &[(usize, String)],
    format: OutputFormat,
    out: &mut dyn Write,
) -> Result<()> {
    let pieces = tangram.pieces()?;
    let outlines = tangram.outlines(&pieces)?;
    let mut per_outline = vec![0u128; outlines.len()];
    for (slot, count) in counts {
        *per_outline.get_mut(*slot).ok_or_else(|| Error::Bug(format!("no outline of slot {slot}")))? =
            parse_count(count)?;
    }
    let total: u128 = per_outline.iter().sum();
    let possible = per_outline.iter().filter(|&&c| c > 0).count();
    if format == OutputFormat::Text && tangram.action == Action::Solve {
        write_line(
            out,
            format_args!(
                "# {} pieces in {} {}, {} elementary triangles",
                pieces.piece_count(),
                pieces.kinds.len(),
                if pieces.kinds.len() == 1 { "kind" } else { "kinds" },
                pieces.area()
            ),
        )?;
        for kind in &pieces.kinds {
            let line = KindLine::from(kind);
            write_line(
                out,
                format_args!(
                    "#   {} x {:<18} area {:<3} {} orientation{}, symmetry: {}",
                    line.copies,
                    line.name,
                    line.area,
                    line.orientations,
                    if line.orientations == 1 { "" } else { "s" },
                    line.symmetry
                ),
            )?;
        }
        write_line(out, format_args!("# outline s2,s4,s1,s3,s5,s7   dissections   sides"))?;
    }
    for (outline, &count) in outlines.iter().zip(&per_outline) {
        match (format, tangram.action) {
            (OutputFormat::Json, _) => write_json_line(
                out,
                &DissectionLine {
                    problem: "tangram",
                    outline: outline.params(),
                    sides: outline.sides(),
                    dissections: count.to_string(),
                },
            )?,
            (OutputFormat::Text, Action::Fit) if count == 0 => write_line(
                out,
                format_args!(
                    "no: the outline {} (sides {}) cannot be built from the pieces",
                    outline.label(),
                    outline.sides()
                ),
            )?,
            (OutputFormat::Text, Action::Fit) => write_line(
                out,
                format_args!(
                    "yes: the outline {} (sides {}) is built from the pieces in {count} essentially different way{}",
                    outline.label(),
                    outline.sides(),
                    if count == 1 { "" } else { "s" }
                ),
            )?,
            (OutputFormat::Text, _) => {
                write_line(out, format_args!("  {:<24}{count:>14}   {}", outline.label(), outline.sides()))?
            }
        }
    }
    if tangram.action == Action::Solve {
        match format {
            OutputFormat::Json => write_json_line(
                out,
                &TotalLine {
                    problem: "tangram",
                    area: pieces.area(),
                    outlines: outlines.len(),
                    possible,
                    dissections: total.to_string(),
                    pieces: pieces.kinds.iter().map(KindLine::from).collect(),
                },
            )?,
            OutputFormat::Text => {
                let noun = if total == 1 { "dissection" } else { "dissections" };
                write_line(out, format_args!("{total} {noun} in {possible} of the {} outlines", outlines.len()))?
            }
        }
    }
    if let Some(path) = &tangram.svg {
        if total == 0 {
            tracing::warn!(drawing = %path.display(), "no dissection to draw; the drawing was not written");
            return Ok(());
        }
        svg::check_drawable(total)?;
        let groups = svg::groups(&pieces, &outlines)?;
        let drawn: usize = groups.iter().map(|g| g.dissections.len()).sum();
        if drawn as u128 != total {
            return Err(Error::Bug(format!("{drawn} dissections found for the drawing, {total} counted")));
        }
        replace_output(path, svg::render(&groups).as_bytes(), "svg")?;
        tracing::info!(drawing = %path.display(), dissections = drawn, "drew every dissection");
    }
    Ok(())
}
