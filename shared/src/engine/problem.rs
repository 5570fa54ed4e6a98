//! The seam between a problem and the command line: what a problem must say so that `leaper`
//! can run it, record it, resume it, show its status and print its results, without knowing
//! what it counts.
//!
//! A problem owns its subcommands and their parameters ([`Problem::commands`],
//! [`Problem::params`]); the parameters are a TOML table, recorded in `job.toml` and sent to
//! workers as they are. They are read once, into the problem's typed [`Task`]
//! ([`Problem::task`]), and everything else is asked of it: the job itself ([`Task::job`]: a
//! transfer-matrix sweep or a subtree search), the names of its result slots, the printed
//! results. The engine's own options (output format, threads, job
//! directory, workers, and for sweeps the store's) are added to every command by the
//! coordinator, by kind, so a problem never declares them.

use std::io::Write;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::engine::jobdir::JobKind;
use crate::engine::subtree::SubtreeProblem;
use crate::engine::transition::SweepJob;
use crate::error::{Error, Result};

/// A problem's parameters, as `job.toml` records them.
pub type Params = toml::Table;

/// What a problem's parameters ask the engine to run.
pub enum Job {
    /// A transfer-matrix sweep over a board.
    Sweep(Box<dyn SweepJob>),
    /// A search split into shards.
    Subtree(Arc<dyn SubtreeProblem>),
}

/// What a command's arguments ask for ([`Problem::request`]): most often one count.
pub enum Requested {
    /// One count, with these parameters.
    One(Params),
    /// A count per item of the input, in the input's order (a graph6 stream: one per graph),
    /// each with the parameters it would have asked alone; read as they are counted, so that
    /// the input may be longer than memory holds. The first error ends it.
    Stream(Box<dyn Iterator<Item = Result<Params>>>),
    /// An answer printed as it is, on stdout, with nothing counted (a graph's vertex order).
    Answer(String),
}

/// How results are printed: bare text, or one JSON object per line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    #[default]
    Text,
    Json,
}

/// How results are to be printed: the format the user asked for, and whether the counts were
/// checked against a spare modulus (`--verify`), which JSON lines of sweeps then say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Printing {
    pub format: OutputFormat,
    pub verified: bool,
}

/// A problem, as the command line, the job directory and the workers see it: its name, its
/// commands and tools, and how its parameters read ([`Problem::task`]). Everything a job's
/// parameters decide is asked of the [`Task`] they read into, once.
pub trait Problem: Send + Sync {
    /// Its name in `job.toml`, in shard leases and in sweep preparations (`tours`, `quarto`).
    fn name(&self) -> &'static str;

    /// The kinds of job its command `path` (`knight`, `tours enumerate`) can start: the command
    /// line gives the command the options of every kind listed, told for those kinds (the
    /// quartering counts by a sweep or, tracing every cut, a search).
    fn kinds(&self, path: &str) -> &'static [JobKind];

    /// Its subcommands (the tours answer to `knight`, `camel`, `zebra` and `tours`), with the
    /// problem's own arguments only.
    fn commands(&self) -> Vec<clap::Command>;

    /// The parameters subcommand `command` was given.
    fn params(&self, command: &str, matches: &clap::ArgMatches) -> Result<Params>;

    /// What subcommand `command` asks for: by default one count, its [`Problem::params`]; a
    /// problem may read a stream of counts from its input, or answer without counting.
    fn request(&self, command: &str, matches: &clap::ArgMatches) -> Result<Requested> {
        Ok(Requested::One(self.params(command, matches)?))
    }

    /// The examples of its command `path` (`knight`, `tours enumerate`, `tangram outlines`: a
    /// command, a nested job or an action), for the help: lines `  leaper ...   # what it prints`,
    /// the most telling first (the short help shows the first two). Every command has some; a
    /// tool's are its own ([`Tool::examples`]).
    fn examples(&self, path: &str) -> Option<&'static str>;

    /// The usage line of its command `path` where clap's would not say it (an action whose
    /// arguments are alternatives: `leaper tangram outlines [OPTIONS] <AREA | --count <A..B>>`).
    /// By default none: the help says `leaper PATH [OPTIONS]`.
    fn usage(&self, _path: &str) -> Option<&'static str> {
        None
    }

    /// How its command `command` tells one of the engine's options (`bfile`, `stride`, by the
    /// option's id), where the engine's words do not fit it. By default they do.
    fn engine_option(&self, _command: &str, _option: &str) -> Option<EngineOption> {
        None
    }

    /// The tools under its command `command`: subcommands that work on files and print, without
    /// a job (`leaper tours dedupe`). Other subcommands a problem's command declares are jobs.
    fn tools(&self, _command: &str) -> Vec<&'static dyn Tool> {
        Vec::new()
    }

    /// These parameters, read and checked once, as the task they ask for. Called when a request
    /// is built (from the command line, or from `job.toml` to resume) and when a worker is sent
    /// a job; every later question goes to the task.
    fn task(&self, params: &Params) -> Result<Arc<dyn Task>>;
}

/// What one set of a problem's parameters asks for, read into the problem's own types: the
/// job to run, and how its results are named and printed.
///
/// ```text
/// job.toml [params] piece = "knight", board = "9x10"  ──Problem::task──►  a tours count task
///     .kind() Sweep   .command_line() "knight 9x10"   .job() the transfer matrix   .print(counts)
/// ```
///
/// A task is also `Any`, for the few callers that know its type (the coordinator's warning
/// before an enumeration that cannot finish): `(task as &dyn Any).downcast_ref::<T>()`.
pub trait Task: Send + Sync + std::any::Any {
    /// The kind of job it is.
    fn kind(&self) -> JobKind;

    /// How its command line reads (`knight 6x8 --sweep`).
    fn command_line(&self) -> String;

    /// The start of the ids of its jobs (`knight-6x8-sweep`).
    fn id_stem(&self) -> String;

    /// The job to run: a transfer-matrix sweep or a subtree search, built anew on each call.
    fn job(&self) -> Result<Job>;

    /// The name of result slot `slot` (a board, a variant), for status lines.
    fn slot_label(&self, slot: usize) -> Result<String>;

    /// Refuses a b-file it cannot make (`--bfile`), before anything is counted.
    fn check_bfile(&self) -> Result<()> {
        Ok(())
    }

    /// Refuses, before anything is written, a job that cannot finish or has nothing to find
    /// (`tours enumerate` of a board with no tour, or with more than leaper lists), with what
    /// the machine says (`machine`). By default, every job may start.
    fn preflight(&self, _machine: &Preflight) -> Result<()> {
        Ok(())
    }

    /// The rows `n a(n)` of an OEIS b-file of these counts (`--bfile`): by default one per slot,
    /// the slot being `n` (the tours' board lengths).
    fn bfile_rows(&self, counts: &[(usize, String)]) -> Result<Vec<(usize, String)>> {
        Ok(counts.to_vec())
    }

    /// The `n` of each row [`Task::bfile_rows`] will make, known before counting (so that a
    /// b-file numbering that keeps no row is refused before the count): by default the slots the
    /// sweep reports, as the default rows are.
    fn bfile_indices(&self) -> Result<Vec<usize>> {
        Ok(match self.job()? {
            Job::Sweep(job) => job.reported().collect(),
            Job::Subtree(_) => Vec::new(),
        })
    }

    /// Remarks for the person running the job, said before it counts (how a graph's vertices
    /// are ordered and how wide its frontier is). By default, none.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Remarks for `leaper plan` on what the same counts cost another way (the tours: a sweep
    /// costs what its longest board alone costs, so each names the other). By default, none.
    fn plan_notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// The same count one size smaller (the quartering: its board two squares narrower), or
    /// `None` (the default). A sweep is priced before it runs from a probe of its first steps,
    /// which the plan's model extends row by row; a sweep without rows (the quartering's
    /// diagonals) that is too big to probe in full is priced instead from its smaller
    /// instances counted in full: their peaks and states read grow about geometrically from one
    /// size to the next (`leaper plan quarter 40` from `quarter 2` to `quarter 20`). Each call
    /// goes one size down, until `None`; cheap, it must not count.
    fn smaller(&self) -> Option<Arc<dyn Task>> {
        None
    }

    /// Per result slot, why its count is known to be 0 before anything is counted (a move set
    /// whose graph on the board is disconnected: `camel 5x12: no closed tour: ...`), for the
    /// slots it reports. Cheap: it must not count. By default, none.
    fn reasons(&self) -> Vec<(usize, String)> {
        Vec::new()
    }

    /// [`Task::reasons`] in brief: the same slots, each `subject: verdict: gist`, the gist the
    /// words every slot of its kind shares (`knight 5x3: no closed tour: unequal colours`), so
    /// that a terminal can say many slots' on one line. By default, the
    /// reasons whole.
    fn reasons_in_brief(&self) -> Vec<(usize, String)> {
        self.reasons()
    }

    /// Whether [`Task::print`] prints each slot on its own, so that a sweep's slots can be
    /// printed one by one as they become final (the tours' board lengths); otherwise all are
    /// printed together at the end (a table, a total).
    fn prints_each_slot(&self) -> bool {
        false
    }

    /// Prints the exact counts, `(slot, decimal)`, as the user asked.
    fn print(&self, counts: &[(usize, String)], printing: Printing, out: &mut dyn Write) -> Result<()>;

    /// Whether the counts answer a yes-or-no question with no (`tangram fit`: the outline cannot
    /// be built): the run then exits with status 1 once they are printed, as grep does when
    /// nothing matches, so that a script can ask. By default, a count is no question.
    fn answers_no(&self, _counts: &[(usize, String)]) -> bool {
        false
    }
}

/// A problem's own telling of one of the engine's options ([`Problem::engine_option`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineOption {
    /// Its long help (`--help`) in the problem's words (the quartering's b-file: n is half the side).
    Told(&'static str),
    /// Left out of the help: the problem refuses it with a reason (a graph's count is one
    /// number, no b-file).
    Unused,
}

/// A command that reads and writes files and prints, start to end in one run: no job directory,
/// no workers, nothing to resume (converting tour files, drawing a tour). Its arguments are all
/// its own.
pub trait Tool: Send + Sync {
    /// Its subcommand, with its arguments.
    fn command(&self) -> clap::Command;

    /// Its examples, as [`Problem::examples`] gives a command's.
    fn examples(&self) -> &'static str;

    /// Whether it can spread its work over cluster workers (the command line then gives it
    /// `--workers`, `--token-file` and `--tls-ca`, and [`ToolContext::workers`]).
    fn uses_workers(&self) -> bool {
        false
    }

    /// Refuses, before it runs, what cannot finish or has nothing to find (`tours generate` of a
    /// board with no tour), as [`Task::preflight`] does. By default, it may run.
    fn preflight(&self, _matches: &clap::ArgMatches, _machine: &Preflight) -> Result<()> {
        Ok(())
    }

    /// Runs it on the arguments given, printing to `out`.
    fn run(&self, matches: &clap::ArgMatches, context: &ToolContext, out: &mut dyn Write) -> Result<()>;
}

/// What a problem's check before it runs may ask of the machine, which the command line's
/// side knows: the threads a count may use, the disk free where a file goes.
pub struct Preflight<'a> {
    /// The threads a quick count may use (`None`: every core).
    pub threads: Option<usize>,
    /// Bytes free on the file system that holds `path` (or would), where the machine says.
    pub free_disk: &'a dyn Fn(&std::path::Path) -> Option<u64>,
}

/// What the command line gives a tool besides its arguments.
#[derive(Default)]
pub struct ToolContext {
    /// Workers that deduplicate buckets, when `--workers` was given.
    pub workers: Option<Box<dyn crate::engine::dedupe::BucketDeduper>>,
}

/// Typed parameters from a table, or an error naming the problem.
pub fn typed<T: serde::de::DeserializeOwned>(problem: &str, params: &Params) -> Result<T> {
    params
        .clone()
        .try_into()
        .map_err(|e| Error::InvalidRequest(format!("the parameters of a {problem} job do not read: {e}")))
}

/// A table of typed parameters.
pub fn table<T: Serialize>(params: &T) -> Result<Params> {
    Params::try_from(params).map_err(|e| Error::Bug(format!("parameters do not serialize: {e}")))
}

/// Writes one line to the output, naming the output on failure.
pub fn write_line(out: &mut dyn Write, line: std::fmt::Arguments) -> Result<()> {
    writeln!(out, "{line}").map_err(|e| Error::File { path: "standard output".into(), message: e.to_string() })
}

/// Writes one result as a line of JSON (`--format json`).
pub fn write_json_line<T: Serialize>(out: &mut dyn Write, line: &T) -> Result<()> {
    let json = serde_json::to_string(line).map_err(|e| Error::Bug(format!("a result line does not serialize: {e}")))?;
    write_line(out, format_args!("{json}"))
}
