//! `tours enumerate` and `tours generate`, refused where they cannot finish or have nothing to
//! find, before anything is written.
//!
//! ```text
//! tours enumerate 7x7              no closed tour (the colours): nothing to list
//! tours enumerate 6x10             counted first (the knight's own sweep, quick here):
//!                                  239,187,240,144 closed tours, past the 10^9 leaper lists
//! tours enumerate 6x8 --out F      55,488,142 tours of 102 bytes (5.3 GiB): refused only if F's
//!                                  file system has less free
//! tours enumerate 8x8              its count's layers pass 1.5 M states: too many to list
//! tours generate 3x3               no tour, open or closed (the graph is disconnected)
//! tours generate 4x4               no reason known before counting, but 0 open tours counted
//! tours generate 8x8 --count 10^14 more than the 10^9 tours leaper writes (11.9 PiB as lines)
//! ```
//!
//! Why a count whose layers pass [`MOST_STATES`] means too many tours: `tours enumerate` takes
//! boards of at most 64 squares, and of those the only ones whose count passes that many states
//! in a layer are 7 x 8 and 8 x 8 (closed and open) and the open tours of 6 x 8, 6 x 9, 6 x 10,
//! 7 x 7 and 7 x 9. Counted: 7 x 8 closed 34,524,432,316; 8 x 8 closed 13,267,364,410,532; 7 x 7
//! open 82,787,609,160. An open count is at least the closed count times the squares (a closed
//! tour opens at any of its moves), which puts 6 x 8 open past 2.6e9 (55,488,142 closed) and
//! the others higher. 7 x 9 open was not counted (too costly a count for this check:
//! docs/PERFORMANCE-LOG.md, "Refusing tour enumerations"); its closed tours are refused for their
//! colours first. `generate` counts only boards with a side of at most 4: on larger boards a
//! knight's tour exists unless a closed one is asked for on two odd sides (Schwenk; Conrad et al.),
//! which the colours already say. `tours enumerate --moves 1,3` is checked by the count of that
//! leaper's tours; its refusal past [`MOST_STATES`] claims no number of tours (the bound above
//! is the knight's).

use rug::Integer;

use super::board::TourBoard;
use super::format::{write, Format};
use super::tour::Tour;
use crate::engine::jobdir::is_stream;
use crate::engine::problem::Preflight;
use crate::engine::store::memory_store;
use crate::engine::sweep::{
    plan_moduli, run_sweep, LocalSteps, StepOutcome, StepWatch, StoreFactory, SweepOptions, SweepProgress, Watched,
};
use crate::engine::Moduli;
use crate::error::{Error, Result};
use crate::hamiltonian::board::{BoardSize, Geometry, MoveSet};
use crate::hamiltonian::obstruction::{describe, obstructions, Colouring};
use crate::hamiltonian::transfer::{tours, TourKind};
use crate::units::{bytes, grouped};

/// A refusal, in the words given.
macro_rules! refuse {
    ($($words:tt)*) => {
        return Err(Error::InvalidRequest(format!($($words)*)))
    };
}

/// Tours leaper lists one by one at most: 10^9 lines are 60 GB and more, and days of search.
const MOST_TOURS: u64 = 1_000_000_000;
/// A layer of the count past this many states: too many tours to list (the module docs).
const MOST_STATES: u64 = 1_500_000;
/// The memory the count before listing may hold (its layers stay far below).
const COUNT_MEMORY: u64 = 1 << 30;
/// Boards with a side of at most this are counted before `generate` (the module docs).
const GENERATE_COUNTS_SIDES: usize = 4;

/// What `tours enumerate` was asked for, from its recorded parameters.
pub struct Enumeration {
    pub board: BoardSize,
    pub open: bool,
    /// `--moves` (`None`: the knight's).
    pub moves: Option<String>,
    /// The file the tours go to (`None`: none, or standard output).
    pub file: Option<std::path::PathBuf>,
    pub to: Format,
}

impl Enumeration {
    fn kind(&self) -> &'static str {
        if self.open {
            "open"
        } else {
            "closed"
        }
    }
}

/// Bytes a tour of `board` takes as a line of `to` (every line of a board is as long, but for a
/// move list's closing square, which a `closed` tour has).
fn line_bytes(board: BoardSize, closed: bool, to: Format) -> Result<u64> {
    let board = TourBoard::new(board)?;
    let tour = Tour { squares: (0..board.squares() as u16).collect(), closed };
    Ok(write(&board, &tour, to).len() as u64)
}

/// Refuses `tours enumerate` on a board with no tour of the kind, with more tours than leaper
/// lists, or whose tours would not fit the free disk of `--out`.
pub fn check_enumerate(asked: &Enumeration, machine: &Preflight) -> Result<()> {
    let (board, kind) = (asked.board, asked.kind());
    let piece = asked.moves.as_deref().map_or(Piece::Knight, Piece::Leaper);
    let (tour, count_command) = (piece.tour(), piece.count_command(board, asked.open));
    let name = format!("tours enumerate {board} --{kind}{}", piece.moves_option());
    if let Some(reason) = no_tour(piece, board, asked.open)? {
        refuse!("{name}: {board} has no {kind} {tour} ({reason}): there is nothing to list");
    }
    let Some(tours) = count(piece, board, asked.open, machine.threads)? else {
        // The bound is the knight's (the module docs); another piece's layers say less.
        let means = match piece {
            Piece::Knight => {
                format!(", which on a board of at most 64 squares means more than {} tours", grouped(MOST_TOURS))
            }
            Piece::Leaper(_) => String::new(),
        };
        refuse!(
            "{name}: {board} has too many {kind} tours to list one by one: the layers of their count pass {} \
             states{means}; `{count_command}` counts them",
            grouped(MOST_STATES),
        );
    };
    if tours == 0 {
        refuse!("{name}: {board} has no {kind} {tour} (`{count_command}` counts 0): there is nothing to list");
    }
    let lines = u128::try_from(&tours).unwrap_or(u128::MAX);
    let size = lines.saturating_mul(u128::from(line_bytes(board, !asked.open, asked.to)?));
    let shown = |size: u128| bytes(u64::try_from(size).unwrap_or(u64::MAX));
    if lines > u128::from(MOST_TOURS) {
        refuse!(
            "{name}: {board} has {} {kind} tours, more than the {} leaper lists one by one ({} as --to {} lines, \
             and days of search): `{count_command}` counts them; enumerate a smaller board to list its tours",
            grouped_integer(&tours),
            grouped(MOST_TOURS),
            shown(size),
            asked.to.name()
        );
    }
    // A stream (`--out /dev/null`) keeps nothing: no disk to run out of.
    if let Some(file) = asked.file.as_ref().filter(|file| !is_stream(file)) {
        let free = file.parent().and_then(machine.free_disk);
        if let Some(free) = free.filter(|&free| size > u128::from(free)) {
            refuse!(
                "{name} --out {}: its {} tours take {} as --to {} lines, more than the {} free there",
                file.display(),
                grouped_integer(&tours),
                shown(size),
                asked.to.name(),
                bytes(free)
            );
        }
    }
    Ok(())
}

/// Refuses `tours generate` on a board with no tour of the kind asked for (`--closed`: closed;
/// otherwise any, which is an open tour: a closed one opened at any move), or asked for more
/// tours than leaper writes one by one or than `--out`'s file system has room for, as
/// `enumerate` is.
pub fn check_generate(asked: &Generation, machine: &Preflight) -> Result<()> {
    let Generation { board, closed, .. } = *asked;
    let (open, kind) = if closed { (false, "closed knight's tour") } else { (true, "knight's tour, open or closed") };
    let name = format!("tours generate {board}");
    check_generated_size(&name, asked, machine)?;
    if let Some(reason) = no_tour(Piece::Knight, board, open)? {
        refuse!("{name}: {board} has no {kind} ({reason}): there is nothing to generate");
    }
    if board.width.min(board.length) <= GENERATE_COUNTS_SIDES
        && count(Piece::Knight, board, open, machine.threads)? == Some(Integer::ZERO)
    {
        let command = format!("leaper knight {board}{}", if open { " --open" } else { "" });
        refuse!("{name}: {board} has no {kind} (`{command}` counts 0): there is nothing to generate");
    }
    Ok(())
}

/// What `tours generate` was asked for.
pub struct Generation<'a> {
    pub board: BoardSize,
    /// `--closed`: closed tours only.
    pub closed: bool,
    /// `--count`.
    pub count: u64,
    /// `--out` (`-`: standard output).
    pub out: &'a std::path::Path,
    /// `--to`.
    pub to: Format,
}

/// Refuses a `tours generate` (`name`) of more tours than [`MOST_TOURS`], or of more bytes than
/// the file system of `--out` has free: its tours take at least `--count` lines of the shortest
/// a tour of the board takes in `--to` (an open tour's, unless `closed`).
fn check_generated_size(name: &str, asked: &Generation, machine: &Preflight) -> Result<()> {
    let Generation { board, closed, count, out, to } = *asked;
    let size = u128::from(count) * u128::from(line_bytes(board, closed, to)?);
    let shown = bytes(u64::try_from(size).unwrap_or(u64::MAX));
    if count > MOST_TOURS {
        refuse!(
            "{name} --count {}: more than the {} tours leaper writes one by one ({shown} as --to {} lines); ask for \
             fewer",
            grouped(count),
            grouped(MOST_TOURS),
            to.name()
        );
    }
    if out != std::path::Path::new("-") && !is_stream(out) {
        // The file's own path: free_disk looks from its nearest existing ancestor (`o.txt`'s
        // parent is an empty path).
        let free = (machine.free_disk)(out);
        if let Some(free) = free.filter(|&free| size > u128::from(free)) {
            refuse!(
                "{name} --out {}: its {} tours take {shown} as --to {} lines, more than the {} free there",
                out.display(),
                grouped(count),
                to.name(),
                bytes(free)
            );
        }
    }
    Ok(())
}

/// The piece whose tours are listed: the knight, or the leaper of `--moves` (`1,3`).
#[derive(Clone, Copy)]
enum Piece<'a> {
    Knight,
    Leaper(&'a str),
}

impl Piece<'_> {
    /// `knight's tour`, `(1,3) leaper's tour`, as the count's notes name the mover.
    fn tour(self) -> String {
        match self {
            Piece::Knight => "knight's tour".into(),
            Piece::Leaper(moves) => {
                let leapers: Vec<String> = moves.split('+').map(|leaper| format!("({leaper})")).collect();
                format!("{} leaper's tour", leapers.join("+"))
            }
        }
    }

    /// ` --moves 1,3`, or nothing for the knight.
    fn moves_option(self) -> String {
        match self {
            Piece::Knight => String::new(),
            Piece::Leaper(moves) => format!(" --moves {moves}"),
        }
    }

    /// The count of the tours listed: `leaper knight 6x6`, `leaper tours --moves 1,3 6x6 --open`.
    fn count_command(self, board: BoardSize, open: bool) -> String {
        let open = if open { " --open" } else { "" };
        match self {
            Piece::Knight => format!("leaper knight {board}{open}"),
            Piece::Leaper(moves) => format!("leaper tours --moves {moves} {board}{open}"),
        }
    }

    /// Its moves.
    fn moves(self) -> Result<MoveSet> {
        match self {
            Piece::Knight => "1,2".parse(),
            Piece::Leaper(moves) => moves.parse(),
        }
    }

    /// The mover as the count's reasons name it: `knight`, `(1,3) leaper`.
    fn mover(self) -> String {
        self.tour().trim_end_matches("'s tour").to_string()
    }
}

/// The board as the count runs it: along its longer side, across the shorter (the frontier).
fn geometry(piece: Piece, board: BoardSize) -> Result<Geometry> {
    let (width, length) = (board.width.min(board.length), board.width.max(board.length));
    Ok(Geometry::new(width, length, piece.moves()?))
}

/// Why `board` has no tour of the piece and kind, if the engine knows before counting: the note
/// `leaper knight BOARD` prints, without what the message says already (`knight 3x3: no open
/// tour: `).
fn no_tour(piece: Piece, board: BoardSize, open: bool) -> Result<Option<String>> {
    let Geometry { width, rows, moves } = geometry(piece, board)?;
    let colouring = Colouring::of(&moves);
    let said = format!(": no {} tour: ", if open { "open" } else { "closed" });
    Ok(obstructions(width, rows..=rows, &moves, open).into_iter().next().map(|(_, obstruction)| {
        let reason = describe(&piece.mover(), &board.to_string(), open, obstruction, colouring);
        match reason.split_once(&said) {
            Some((_, why)) => why.to_string(),
            None => reason,
        }
    }))
}

/// The number of the piece's tours of `board`, counted in memory while the count's layers hold
/// at most [`MOST_STATES`] states; `None` once one holds more (or the board is too wide to count).
fn count(piece: Piece, board: BoardSize, open: bool, threads: Option<usize>) -> Result<Option<Integer>> {
    let geometry = geometry(piece, board)?;
    let rows = geometry.rows;
    let kind = if open { TourKind::Open } else { TourKind::Closed };
    let Ok(job) = tours(geometry, rows, kind) else { return Ok(None) };
    // A pool of its own: a tool sizes the global one after this check.
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::InvalidRequest(format!("could not start the worker threads: {e}")))?;
    pool.install(|| {
        // The count is the check's own business: none of its log lines.
        tracing::subscriber::with_default(tracing::subscriber::NoSubscriber::default(), || {
            let mut stores =
                StoreFactory(|layout, moduli: &Moduli| memory_store(layout, 61, moduli.clone(), COUNT_MEMORY));
            let mut steps = LocalSteps::new(job.as_ref(), &mut stores);
            let mut host = Watched { inner: &mut steps, watch: Capped { passed: false } };
            let plan = plan_moduli(job.as_ref(), &SweepOptions::default())?;
            match run_sweep(job.as_ref(), &plan, &mut host, SweepProgress::default()) {
                Ok(report) => Ok(report.counts.first().map(|(_, count)| count.clone())),
                Err(_) if host.watch.passed => Ok(None),
                Err(Error::MemoryLimit { .. }) => Ok(None),
                Err(error) => Err(error),
            }
        })
    })
}

/// Stops the steps once a layer passes [`MOST_STATES`].
struct Capped {
    passed: bool,
}

impl StepWatch for Capped {
    fn stepped(&mut self, _step: usize, outcome: &StepOutcome) -> Result<()> {
        if outcome.layer.states > MOST_STATES {
            self.passed = true;
            return Err(Error::InvalidRequest("the count before listing passed its states".into()));
        }
        Ok(())
    }
}

/// `13,267,364,410,532`.
fn grouped_integer(n: &Integer) -> String {
    u64::try_from(n).map_or_else(|_| n.to_string(), grouped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(text: &str) -> BoardSize {
        text.parse().unwrap()
    }

    #[test]
    fn small_boards_are_counted_and_wide_ones_pass_the_states() {
        let knight = Piece::Knight;
        assert_eq!(count(knight, board("6x6"), false, Some(2)).unwrap(), Some(Integer::from(9862)));
        assert_eq!(count(knight, board("4x4"), true, Some(2)).unwrap(), Some(Integer::ZERO));
        assert_eq!(count(knight, board("8x8"), false, Some(2)).unwrap(), None);
    }

    #[test]
    fn the_engine_says_why_a_board_has_no_tour() {
        let reason = no_tour(Piece::Knight, board("3x3"), true).unwrap().unwrap();
        assert!(reason.starts_with("the board's graph is disconnected"), "{reason}");
        assert_eq!(no_tour(Piece::Knight, board("6x6"), false).unwrap(), None);
        let camel = no_tour(Piece::Leaper("1,3"), board("6x6"), false).unwrap().unwrap();
        assert!(camel.starts_with("every (1,3) leaper move keeps the square's colour"), "{camel}");
    }

    #[test]
    fn a_line_is_as_long_as_the_format_writes_it() {
        assert_eq!(line_bytes(board("8x8"), true, Format::Compact).unwrap(), 134);
        // A closed move list repeats its first square: "a1 " more.
        let open = line_bytes(board("8x8"), false, Format::Moves).unwrap();
        assert_eq!(line_bytes(board("8x8"), true, Format::Moves).unwrap(), open + 3);
    }
}
