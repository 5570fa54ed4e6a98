//! `leaper knight|camel|zebra BOARD` and `leaper tours --moves A,B[+C,D] BOARD`: the tours'
//! face to the command line and the job directory, with `--sweep` for every length at once,
//! `--open` or `--tours both` for open tours, `--directed` to count each tour once per direction
//! and `--distinct` for classes under the board's symmetries; and the enumeration of every tour
//! of a small board, `leaper tours enumerate BOARD` (a subtree job: [`crate::problems::tour_files::command::enumerate`]).
//!
//! The parameters read into one of two tasks: a [`CountTask`] (a sweep) or an
//! [`EnumerateTask`] (a search). A count of a board with squares removed is in
//! `holed_count.rs`.

use std::io::Write;
use std::sync::Arc;

use clap::{Args, FromArgMatches};
use serde::{Deserialize, Serialize};

use super::distinct::{self, DistinctPlan};
use super::holes;
use crate::engine::jobdir::JobKind;
use crate::engine::problem::{
    table, typed, write_json_line, write_line, Job, OutputFormat, Params, Printing, Problem, Task,
};
use crate::engine::Tool;
use crate::error::{Error, Result};
use crate::hamiltonian::board::{BoardSize, Geometry, MoveSet};
use crate::hamiltonian::obstruction::{describe, describe_briefly, obstructions, Colouring};
use crate::hamiltonian::transfer::{self, KindArgs, SlotTour, TourKind};
use crate::problems::tour_files::command::{EnumerateArgs, EnumerateParams, EnumerateTask, ENUMERATE, TOOLS};

/// The tours of leapers, closed and open, as the registry names them.
pub struct Tours;

/// The pieces with a subcommand of their own, and the one for any move set.
const PIECES: [(&str, &str); 4] = [
    ("knight", "Knight's tours: closed (Hamiltonian cycles) or --open (paths)."),
    ("camel", "Tours of the camel, the (1,3) leaper: closed or --open."),
    ("zebra", "Tours of the zebra, the (2,3) leaper: closed or --open."),
    ("tours", "Tours of any leaper or union of leapers: closed or --open."),
];

/// The examples of each tour command, for the help ([`Problem::examples`]).
const EXAMPLES: [(&str, &str); 5] = [
    (
        "knight",
        "  leaper knight 6x6              # 9862 closed tours, in a fraction of a second
  leaper knight 6x10 --sweep     # every length 6x1 ... 6x10 from one sweep
  leaper knight 6x6 --open       # 3318960 open tours (undirected paths)
  leaper knight 8x12 --sweep --job-dir runs/8x12 --mem-limit 2GiB  # resumable",
    ),
    (
        "camel",
        "  leaper camel 5x12              # 0: every camel move keeps its square's colour
  leaper camel 5x12 --sweep --format json   # JSON lines, each 0 with its reason",
    ),
    (
        "zebra",
        "  leaper zebra 5x12 --sweep      # twelve zeros, each explained
  leaper zebra 5x12 --sweep --format json   # the same as JSON lines",
    ),
    (
        "tours",
        "  leaper tours --moves 2,3+1,1 6x4   # 2586: the zebra with a diagonal step
  leaper tours --moves 1,0+1,1 4x5   # any union of leapers: here the king
  leaper tours enumerate 6x6 --closed --out tours6.txt   # all 9862 of them",
    ),
    (
        "tours enumerate",
        "  leaper tours enumerate 6x6 --closed --out tours6.txt   # all 9862 of them
  leaper tours enumerate 5x5 --open --to moves --out o.txt   # 864, as moves
  leaper tours enumerate 3x4 --moves 1,0+1,1 --to moves  # the king's 120",
    ),
];

/// The arguments every tour command takes.
#[derive(Debug, Args)]
struct TourArgs {
    /// The board, WIDTHxLENGTH, for example 8x6.
    ///
    /// The board, WIDTHxLENGTH, for example 8x6. A single board is swept along its longer side.
    #[arg(allow_hyphen_values = true)]
    board: BoardSize,

    /// Count every length from 1 to LENGTH in one sweep.
    ///
    /// Count every length from 1 to LENGTH in one sweep across a frontier WIDTH cells wide.
    #[arg(long)]
    sweep: bool,

    #[command(flatten)]
    kind: KindArgs,

    /// Count once per class under the board's symmetries.
    ///
    /// Count the tours once per class under the board's symmetries (rotations and reflections:
    /// 8 on a square, 4 on other rectangles), by Burnside's lemma; --format json also lists the
    /// tours each symmetry fixes and the classes by the order of their symmetry group.
    #[arg(long, conflicts_with = "directed")]
    distinct: bool,

    /// Remove these squares from the board (chess names, a1 the first square of the first row:
    /// --remove a1,h8); the board left is counted as a graph (a single board only).
    #[arg(long, value_name = "SQUARES", conflicts_with_all = ["sweep", "distinct"], hide_short_help = true)]
    remove: Vec<String>,

    /// Remove the squares a picture of the board marks: one line per rank, the last rank first,
    /// x for a square removed and . for one kept (`-`: stdin).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["sweep", "distinct", "remove"], hide_short_help = true)]
    remove_mask: Option<String>,
}

/// `leaper tours` also takes the move set.
#[derive(Debug, Args)]
struct MovesArg {
    /// The moves: A,B the (A,B) leaper, A,B+C,D a union.
    ///
    /// The move set: A,B for the (A,B) leaper, A,B+C,D for a union (the king is 1,0+1,1).
    #[arg(long, value_name = "A,B[+C,D...]")]
    moves: MoveSet,
}

/// What a tour job counts, as `job.toml` records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TourParams {
    /// `knight`, `camel`, `zebra`, or `tours` for a move set given with `--moves`.
    pub piece: String,
    /// The move set, `1,2` for the knight.
    pub moves: String,
    /// The board as the user wrote it, `8x6`.
    pub board: String,
    pub sweep: bool,
    /// Which tours; jobs recorded before open tours existed counted closed tours.
    #[serde(default)]
    pub tours: TourKind,
    /// Counts printed once per direction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub directed: bool,
    /// Classes under the board's symmetries instead of tours.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub distinct: bool,
    /// Squares removed from the board (`a1`), sorted by rank then file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
}

/// A count of tours, its parameters read: the move set and the sweep that answers it.
pub struct CountTask {
    pub(super) params: TourParams,
    pub(super) moves: MoveSet,
    pub(super) plan: BoardSweep,
}

impl CountTask {
    fn read(params: &Params) -> Result<CountTask> {
        let params: TourParams = typed("tours", params)?;
        let moves: MoveSet = params.moves.parse()?;
        let plan = BoardSweep::new(params.board.parse()?, params.sweep);
        Ok(CountTask { params, moves, plan })
    }

    /// The tour slot `slot` counts. A board with squares removed is counted as a graph, whose
    /// one slot (per kind) stands for the whole board.
    fn counted(&self, slot: usize) -> SlotTour {
        let tour = SlotTour::of(slot, self.params.tours);
        if self.params.removed.is_empty() {
            tour
        } else {
            SlotTour { rows: self.plan.rows, ..tour }
        }
    }

    /// The board's label, with the squares removed (`8x8 without a1, h8`).
    pub(super) fn board_label(&self, rows: usize) -> String {
        match self.params.removed.as_slice() {
            [] => self.plan.label(rows),
            removed => format!("{} without {}", self.plan.label(rows), removed.join(", ")),
        }
    }

    /// The `problem` field of JSON output: the piece, or `leaper:MOVES` for a move set.
    pub(super) fn problem(&self) -> String {
        match self.params.piece.as_str() {
            "tours" => format!("leaper:{}", self.params.moves),
            piece => piece.to_string(),
        }
    }

    /// The count as printed: doubled when tours are counted once per direction (every tour but
    /// the one-cell open tour of a 1x1 board has two).
    fn shown(&self, tour: SlotTour, count: &str) -> Result<String> {
        let one_square = self.plan.width * tour.rows - self.params.removed.len() == 1;
        if !self.params.directed || (tour.open && one_square) {
            return Ok(count.to_string());
        }
        transfer::once_per_direction(count)
    }

    /// The mover as reasons name it: the piece, or `(1,0)+(1,1) leaper` for a move set.
    pub(super) fn mover(&self) -> String {
        match self.params.piece.as_str() {
            "tours" => {
                let leapers: Vec<String> = self.params.moves.split('+').map(|leaper| format!("({leaper})")).collect();
                format!("{} leaper", leapers.join("+"))
            }
            piece => piece.to_string(),
        }
    }

    /// Per reported slot, why its count is 0 when the board's graph says so before counting; in
    /// brief (the words boards of a kind share) or whole.
    fn reasons_by_slot(&self, brief: bool) -> Vec<(usize, String)> {
        let (moves, plan, tours) = (&self.moves, &self.plan, self.params.tours);
        let kinds = tours.opens();
        if !self.params.removed.is_empty() {
            // One board: its reasons whole, brief or not.
            return self.holed_reasons(kinds);
        }
        let colouring = Colouring::of(moves);
        let mut reasons = Vec::new();
        for &open in kinds {
            for (rows, obstruction) in obstructions(plan.width, plan.min_rows..=plan.rows, moves, open) {
                let say = if brief { describe_briefly } else { describe };
                let reason = say(&self.mover(), &plan.label(rows), open, obstruction, colouring);
                reasons.push((SlotTour { open, rows }.slot(tours), reason));
            }
        }
        reasons.sort_unstable();
        reasons
    }
}

/// The sweep that answers a request: frontier width, rows, and which lengths are reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardSweep {
    pub width: usize,
    pub rows: usize,
    pub min_rows: usize,
    /// How the board of each reported length is named in the output.
    pub label_width: usize,
    pub transposed: bool,
}

impl BoardSweep {
    /// A sweep runs along the second side; a single board along its longer side, so that the
    /// frontier is as narrow as possible.
    pub fn new(board: BoardSize, sweep: bool) -> Self {
        if sweep {
            BoardSweep {
                width: board.width,
                rows: board.length,
                min_rows: 1,
                label_width: board.width,
                transposed: false,
            }
        } else {
            let transposed = board.width > board.length;
            let (width, rows) = if transposed { (board.length, board.width) } else { (board.width, board.length) };
            BoardSweep { width, rows, min_rows: rows, label_width: board.width, transposed }
        }
    }

    /// The board name of the count for `rows` rows, as the user wrote it.
    pub fn label(&self, rows: usize) -> String {
        if self.transposed {
            format!("{}x{}", rows, self.width)
        } else if self.min_rows == self.rows {
            format!("{}x{}", self.label_width, rows)
        } else {
            format!("{}x{}", self.width, rows)
        }
    }
}

/// One result line, e.g. `{"problem":"knight","board":"8x8","tours":"closed","count":"13267364410532"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CountLine<'a> {
    pub problem: String,
    pub board: String,
    /// The squares removed from the board, when some are.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub removed: &'a [String],
    pub tours: &'static str,
    /// Present (true) when each tour is counted once per direction.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub directed: bool,
    /// Decimal digits: counts outgrow every JSON number type.
    pub count: String,
    /// Present (true) when the count was checked against a spare modulus (`--verify`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub verified: bool,
    /// Why the count is 0, when that is plain before counting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Problem for Tours {
    fn name(&self) -> &'static str {
        "tours"
    }

    fn kinds(&self, path: &str) -> &'static [JobKind] {
        if path == format!("tours {ENUMERATE}") {
            &[JobKind::Subtree]
        } else {
            &[JobKind::Sweep]
        }
    }

    fn examples(&self, path: &str) -> Option<&'static str> {
        EXAMPLES.iter().find(|(command, _)| *command == path).map(|(_, lines)| *lines)
    }

    fn commands(&self) -> Vec<clap::Command> {
        PIECES
            .iter()
            .map(|&(name, about)| {
                let command = TourArgs::augment_args(clap::Command::new(name));
                let command = if name == "tours" {
                    let enumerate = EnumerateArgs::augment_args(clap::Command::new(ENUMERATE))
                        .about("Write every tour of a small board, by sharded search")
                        .long_about("Write every closed (or open) knight's tour of a small board, by sharded search.");
                    MovesArg::augment_args(command)
                        .subcommand(enumerate)
                        .args_conflicts_with_subcommands(true)
                        .subcommand_negates_reqs(true)
                } else {
                    command
                };
                // After the arguments: their structs' docs would otherwise become the about text.
                command.about(about)
            })
            .collect()
    }

    fn tools(&self, command: &str) -> Vec<&'static dyn Tool> {
        if command == "tours" {
            TOOLS.to_vec()
        } else {
            Vec::new()
        }
    }

    fn params(&self, command: &str, matches: &clap::ArgMatches) -> Result<Params> {
        if let Some((ENUMERATE, nested)) = matches.subcommand() {
            return EnumerateParams::from_matches(nested);
        }
        let args = TourArgs::from_arg_matches(matches).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        let moves = match command {
            "knight" => MoveSet::knight(),
            "camel" => MoveSet::leaper(1, 3)?,
            "zebra" => MoveSet::leaper(2, 3)?,
            "tours" => MovesArg::from_arg_matches(matches).map_err(|e| Error::InvalidRequest(e.to_string()))?.moves,
            other => return Err(Error::Bug(format!("the tours have no command {other:?}"))),
        };
        let removed = match &args.remove_mask {
            Some(path) => holes::read_mask(path, args.board)?,
            None => holes::squares(&args.remove, args.board)?,
        };
        let params = TourParams {
            piece: command.into(),
            moves: moves.to_string(),
            board: args.board.to_string(),
            sweep: args.sweep,
            tours: args.kind.tours(),
            directed: args.kind.directed,
            distinct: args.distinct,
            removed,
        };
        if params.distinct {
            let plan = BoardSweep::new(args.board, args.sweep);
            DistinctPlan::new(&Geometry::new(plan.width, plan.rows, moves), plan.min_rows, params.tours)?;
        }
        table(&params)
    }

    /// A count, or with `action = "enumerate"` the listing of every tour.
    fn task(&self, params: &Params) -> Result<Arc<dyn Task>> {
        if params.get("action").and_then(|a| a.as_str()) == Some(ENUMERATE) {
            return Ok(Arc::new(EnumerateTask::read(params)?));
        }
        Ok(Arc::new(CountTask::read(params)?))
    }
}

/// How the command line of a count of `tour` reads (`knight 6x8 --sweep`).
fn command_line(tour: &TourParams) -> String {
    let piece = if tour.piece == "tours" { format!("tours --moves {}", tour.moves) } else { tour.piece.clone() };
    let kind = match tour.tours {
        TourKind::Closed => "",
        TourKind::Open => " --open",
        TourKind::Both => " --tours both",
    };
    format!(
        "{piece} {}{}{kind}{}",
        tour.board,
        if tour.sweep { " --sweep" } else { "" },
        if tour.directed { " --directed" } else { "" }
    ) + if tour.distinct { " --distinct" } else { "" }
        + &if tour.removed.is_empty() { String::new() } else { format!(" --remove {}", tour.removed.join(",")) }
}

impl Task for CountTask {
    fn kind(&self) -> JobKind {
        JobKind::Sweep
    }

    fn command_line(&self) -> String {
        command_line(&self.params)
    }

    fn id_stem(&self) -> String {
        let tour = &self.params;
        let kind = if tour.tours == TourKind::Closed { String::new() } else { format!("-{}", tour.tours.name()) };
        format!(
            "{}-{}{}{kind}{}",
            tour.piece,
            tour.board,
            if tour.sweep { "-sweep" } else { "" },
            if tour.distinct { "-distinct" } else { "" }
        ) + &if tour.removed.is_empty() { String::new() } else { format!("-without-{}", tour.removed.join("-")) }
    }

    fn job(&self) -> Result<Job> {
        let (tours, plan) = (self.params.tours, &self.plan);
        let geometry = Geometry::new(plan.width, plan.rows, self.moves.clone());
        if self.params.distinct {
            let distinct = DistinctPlan::new(&geometry, plan.min_rows, tours)?;
            return Ok(Job::Sweep(distinct::job(&geometry, plan.min_rows, tours, &distinct)?));
        }
        if !self.params.removed.is_empty() {
            return self.holed_job();
        }
        Ok(Job::Sweep(transfer::tours(geometry, plan.min_rows, tours)?))
    }

    fn slot_label(&self, slot: usize) -> Result<String> {
        let (tours, plan) = (self.params.tours, &self.plan);
        if let Some((rows, symmetry)) = self.fold_of_slot(slot)? {
            return Ok(format!("{} fixed by the {}", plan.label(rows), symmetry.name(plan.transposed)));
        }
        let counted = self.counted(slot);
        Ok(match tours {
            TourKind::Both => format!("{} {}", self.board_label(counted.rows), counted.kind_name()),
            _ => self.board_label(counted.rows),
        })
    }

    fn check_bfile(&self) -> Result<()> {
        if !self.params.removed.is_empty() {
            return Err(Error::InvalidRequest(
                "a board with squares removed is counted on its own: --bfile is for the boards of a sweep".into(),
            ));
        }
        if self.params.tours != TourKind::Both {
            return Ok(());
        }
        Err(Error::InvalidRequest(
            "a b-file holds one sequence and --tours both counts two: ask for --tours closed or --tours open".into(),
        ))
    }

    fn bfile_rows(&self, counts: &[(usize, String)]) -> Result<Vec<(usize, String)>> {
        self.check_bfile()?;
        if self.params.distinct {
            return Ok(self.classes(counts)?.into_iter().map(|(rows, c)| (rows, c.classes)).collect());
        }
        counts
            .iter()
            .map(|(slot, count)| {
                let counted = SlotTour::of(*slot, self.params.tours);
                Ok((counted.rows, self.shown(counted, count)?))
            })
            .collect()
    }

    /// A count line per board length (and kind of tour): each printed as it becomes final.
    /// (Classes need every count of their board: printed at the end.)
    fn prints_each_slot(&self) -> bool {
        !self.params.distinct
    }

    fn reasons(&self) -> Vec<(usize, String)> {
        self.reasons_by_slot(false)
    }

    fn reasons_in_brief(&self) -> Vec<(usize, String)> {
        self.reasons_by_slot(true)
    }

    /// A sweep costs what its longest board alone costs: the same transfer matrix, whose last
    /// rows the board's end cuts alike (`knight 7x10 --sweep` read 65.24 M states, the 7 x 10
    /// board alone 64.90 M; 7 x 12, two passes each, 224.0 M and 223.3 M: docs/FLAGSHIP.md,
    /// "`leaper plan`").
    /// So the plan of either names the other, and a sweep along a board's longer side names the
    /// single board, which runs along it.
    /// A board with squares removed is counted as a graph: its note says the order, as a graph's.
    fn notes(&self) -> Vec<String> {
        if self.params.removed.is_empty() || self.params.distinct {
            return Vec::new();
        }
        self.holed_notes()
    }

    fn plan_notes(&self) -> Vec<String> {
        let tour = &self.params;
        if tour.distinct || !tour.removed.is_empty() {
            return Vec::new();
        }
        let (width, rows) = (self.plan.width, self.plan.rows);
        let same = "a sweep costs what its longest board alone costs (knight 7x10 --sweep read 65.24 M states, \
                    the 7x10 board alone 64.90 M)";
        if !tour.sweep {
            let sweep = TourParams { sweep: true, board: format!("{width}x{rows}"), ..tour.clone() };
            return vec![format!(
                "{same}: `{}` counts {width}x1 to {width}x{rows} for these figures",
                command_line(&sweep)
            )];
        }
        let mut notes = vec![format!(
            "{same}: this one, {width} wide, counts {width}x1 to {width}x{rows} for the cost of {width}x{rows} alone"
        )];
        if rows < width {
            let single = TourParams { sweep: false, ..tour.clone() };
            notes.push(format!(
                "the single board {} runs {rows} wide instead, along its longer side: `leaper plan {}`",
                tour.board,
                command_line(&single)
            ));
        }
        notes
    }

    fn print(&self, counts: &[(usize, String)], printing: Printing, out: &mut dyn Write) -> Result<()> {
        if self.params.distinct {
            return self.print_classes(counts, printing, out);
        }
        let tour = &self.params;
        let both = tour.tours == TourKind::Both;
        let mut reasons: std::collections::HashMap<usize, String> = match printing.format {
            OutputFormat::Json => self.reasons_by_slot(false).into_iter().collect(),
            OutputFormat::Text => Default::default(),
        };
        for (slot, count) in counts {
            let counted = self.counted(*slot);
            let line = CountLine {
                problem: self.problem(),
                board: self.plan.label(counted.rows),
                removed: &tour.removed,
                tours: counted.kind_name(),
                directed: tour.directed,
                count: self.shown(counted, count)?,
                verified: printing.verified,
                reason: reasons.remove(slot),
            };
            if let Some(reason) = line.reason.as_ref().filter(|_| count != "0") {
                return Err(Error::Bug(format!("{reason}; yet {count} were counted")));
            }
            match printing.format {
                OutputFormat::Json => write_json_line(out, &line)?,
                OutputFormat::Text if tour.sweep && both => {
                    write_line(out, format_args!("{} {} {}", line.board, line.tours, line.count))?
                }
                OutputFormat::Text if tour.sweep => write_line(out, format_args!("{} {}", line.board, line.count))?,
                OutputFormat::Text if both => write_line(out, format_args!("{} {}", line.tours, line.count))?,
                OutputFormat::Text => write_line(out, format_args!("{}", line.count))?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_sweep_along_the_narrow_side_and_name_boards_as_written() {
        let plan = BoardSweep::new("8x6".parse().unwrap(), false);
        assert_eq!((plan.width, plan.rows, plan.min_rows), (6, 8, 8));
        assert_eq!(plan.label(8), "8x6");
        let plan = BoardSweep::new("6x8".parse().unwrap(), false);
        assert_eq!((plan.width, plan.rows, plan.min_rows), (6, 8, 8));
        assert_eq!(plan.label(8), "6x8");
        let plan = BoardSweep::new("8x12".parse().unwrap(), true);
        assert_eq!((plan.width, plan.rows, plan.min_rows), (8, 12, 1));
        assert_eq!(plan.label(3), "8x3");
    }

    #[test]
    fn json_field_order_matches_the_contract() {
        let line = CountLine {
            problem: "knight".into(),
            board: "8x8".into(),
            removed: &[],
            tours: "closed",
            directed: false,
            count: "13267364410532".into(),
            verified: false,
            reason: None,
        };
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            r#"{"problem":"knight","board":"8x8","tours":"closed","count":"13267364410532"}"#
        );
        let line = CountLine { tours: "open", directed: true, count: "6637920".into(), board: "6x6".into(), ..line };
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            r#"{"problem":"knight","board":"6x6","tours":"open","directed":true,"count":"6637920"}"#
        );
        let reason = "knight 5x5: no closed tour: ...";
        let line = CountLine {
            tours: "closed",
            directed: false,
            count: "0".into(),
            board: "5x5".into(),
            verified: true,
            reason: Some(reason.into()),
            ..line
        };
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            format!(
                r#"{{"problem":"knight","board":"5x5","tours":"closed","count":"0","verified":true,"reason":"{reason}"}}"#
            )
        );
    }

    #[test]
    fn json_lines_carry_the_reason_and_the_check_text_lines_neither() {
        let params = table(&TourParams {
            piece: "camel".into(),
            moves: "1,3".into(),
            board: "4x4".into(),
            sweep: true,
            tours: TourKind::Both,
            directed: false,
            distinct: false,
            removed: Vec::new(),
        })
        .unwrap();
        let counts: Vec<(usize, String)> = (2..=9).map(|slot| (slot, "0".to_string())).collect();
        let task = Tours.task(&params).unwrap();
        let printed = |printing: Printing| {
            let mut out = Vec::new();
            task.print(&counts, printing, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            printed(Printing { format: OutputFormat::Text, verified: true }),
            "4x1 closed 0\n4x1 open 0\n4x2 closed 0\n4x2 open 0\n4x3 closed 0\n4x3 open 0\n4x4 closed 0\n4x4 open 0\n"
        );
        let json = printed(Printing { format: OutputFormat::Json, verified: true });
        let last = json.lines().last().unwrap();
        assert_eq!(
            last,
            r#"{"problem":"camel","board":"4x4","tours":"open","count":"0","verified":true,"reason":"camel 4x4: no open tour: every camel move keeps the square's colour, so the board's graph is disconnected (6 components; 4 squares have no move)"}"#
        );
        assert_eq!(json.lines().filter(|line| line.contains(r#""reason":"camel 4x"#)).count(), 8);
        let unverified = printed(Printing { format: OutputFormat::Json, verified: false });
        assert_eq!(unverified.matches("verified").count(), 0);
    }
}
