//! The command line: `leaper`'s own commands (`resume`, `status`, `worker`), declared with clap,
//! and one command per problem command of the registry, each with the engine's options for its
//! kind added. Parsed once into an [`Invocation`]; a problem command becomes a [`JobRequest`].

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use leaper_core::engine::jobdir::JobKind;
use leaper_core::engine::{EngineOption, OutputFormat, Problem, Requested, Tool};
use leaper_core::problems::{self, REGISTRY};

use crate::console::{ConsoleArgs, LogFormat};
use crate::help::{action_help, print_bytes, print_completions, print_man, problem_headings, with_examples};
use crate::request::{parse_size, JobRequest, RunArgs, SweepArgs};

#[derive(Debug, Parser)]
#[command(
    name = "leaper",
    version,
    about = "Exact counts of combinatorial objects: one command a problem, each with its examples"
)]
pub struct Cli {
    /// Log format on stderr: text, or JSON lines for log collectors (never the live display; an
    /// event for every step). Text on a pipe or a file is quiet: no line in a run's first 30 s,
    /// then a progress line at most every 30 s (LEAPER_PROGRESS_EVERY=SECONDS), and the summary.
    #[arg(long, value_enum, default_value_t = LogFormat::Text, global = true, help_heading = "Logging", hide_short_help = true)]
    pub log_format: LogFormat,

    /// Print results only (errors still show).
    ///
    /// Print results only: no progress display, no log lines, no summary (errors still show).
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    /// More on stderr: -v a line for every step, -vv debug lines.
    ///
    /// More on stderr: -v a line for every step (under the progress display on a terminal; without
    /// one, instead of a progress line every 30 s), -vv debug lines. RUST_LOG sets levels exactly.
    #[arg(long, short, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Builtin,
}

/// The commands that are leaper's own; every other command belongs to a problem.
#[derive(Debug, Subcommand)]
pub enum Builtin {
    /// Continue a job from its last commit (after a crash or a kill).
    ///
    /// Continue a job from its last committed step or finished shard (after a crash or a kill).
    #[command(after_help = "Examples:
  leaper resume --job-dir runs/8x12   # after a crash or kill -9
  leaper resume --job-dir runs/8x12 --threads 2 --mem-limit 2GiB")]
    Resume(ResumeArgs),
    /// Show where a job stands: step, layer, rate, ETA; running or not.
    ///
    /// Show where a job stands: last committed step, layer size, rate, ETA; running or not.
    #[command(after_help = "Examples:
  leaper status --job-dir runs/8x12   # step, layer, rate, ETA; running or not
  leaper status --job-dir runs/8x12 --format json
  leaper status --coordinator HOST:7100 --token-file secret --follow")]
    Status(StatusArgs),
    /// Price a count before running it: states, disk, memory, time.
    ///
    /// Price a sweep before running it: `leaper plan COMMAND ARGS [--workers N|ADDR,...]
    /// [--disk-per-worker SIZE] [--mem-per-worker SIZE]` runs its first steps, predicts the rest
    /// and prints peak states, disk per worker, states read and wall time (`leaper plan --help`).
    /// --workers is a number, or a count's own list of addresses, priced by its length.
    #[command(disable_help_flag = true)]
    Plan {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<OsString>,
    },
    /// Serve as a cluster worker (the `leaper-worker` beside `leaper`).
    ///
    /// Serve as a cluster worker: runs the `leaper-worker` binary installed beside `leaper`
    /// with the same arguments (see `leaper-worker --help`).
    #[command(
        disable_help_flag = true,
        after_help = "Examples:
  leaper worker --listen 0.0.0.0:7101 --data-dir /data/w1 --token-file secret
  leaper COMMAND ARGS --job-dir runs/J --token-file secret --workers h1:7101,h2:7101,h3:7101"
    )]
    Worker {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<OsString>,
    },
    /// Print a shell completion script (bash, zsh, fish, ...).
    #[command(after_help = "Examples:
  leaper completions bash > ~/.local/share/bash-completion/completions/leaper
  leaper completions zsh > ~/.zfunc/_leaper   # fpath+=~/.zfunc before compinit
  leaper completions fish > ~/.config/fish/completions/leaper.fish")]
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page, or write a page per command into DIR.
    #[command(after_help = "Examples:
  leaper man > leaper.1 && man ./leaper.1
  leaper man --dir /usr/local/share/man/man1  # leaper.1, leaper-COMMAND.1, ...")]
    Man {
        /// Write leaper.1 and a page per command (leaper-COMMAND.1, ...) into DIR instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// What the command line asks for.
pub enum Action {
    /// A new count (boxed: a request is far larger than the other actions).
    Start(Box<JobRequest>),
    Resume(ResumeArgs),
    Status(StatusArgs),
    /// `leaper worker ARGS`.
    Worker(Vec<OsString>),
    /// `leaper plan ARGS`: the plan's options and the job it prices.
    Plan(crate::plan::PlanArgs, Box<JobRequest>),
    /// A problem's tool (`leaper tours dedupe ...`), with its arguments.
    Tool(&'static dyn Tool, clap::ArgMatches),
    /// A count per item of the input (a graph6 stream), in order.
    Stream(Box<crate::request::StreamRequest>),
    /// An answer the problem gave without counting (`graph --print-order`), printed as it is.
    Answer(String),
}

pub struct Invocation {
    pub console: ConsoleArgs,
    pub action: Action,
}

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The job directory given to --job-dir when the job started.
    #[arg(long, value_name = "DIR", help_heading = "Out of core")]
    pub job_dir: PathBuf,

    /// Worker threads (default: all cores; at most 1024).
    #[arg(long, value_parser = leaper_core::engine::limits::parse_threads, help_heading = "Out of core")]
    pub threads: Option<usize>,

    /// Memory budget for this run (default: the one the job started with).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Out of core")]
    pub mem_limit: Option<u64>,

    /// Output format (default: the one the job started with).
    #[arg(long, value_enum, help_heading = "Output")]
    pub format: Option<OutputFormat>,

    /// Serve the status on this address for this run, instead of the job's own --listen.
    #[arg(long, value_name = "ADDR", help_heading = "Cluster", hide_short_help = true)]
    pub listen: Option<std::net::SocketAddr>,

    /// The token callers of --listen must send in this run (default: the job's).
    #[arg(long, value_name = "FILE", requires = "listen", help_heading = "Cluster", hide_short_help = true)]
    pub listen_token_file: Option<PathBuf>,

    /// The job's workers at their addresses now, in the job's order: a worker restarted elsewhere
    /// with its data directory is checked by the id kept there. Later resumes keep them (default:
    /// the workers of the last checkpoint).
    #[arg(long, value_name = "ADDR,...", value_delimiter = ',', help_heading = "Cluster", hide_short_help = true)]
    pub workers: Option<Vec<String>>,

    /// Write the results as an OEIS b-file (default: the one the job started with).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub bfile: Option<PathBuf>,

    /// Keep in the b-file only the rows whose n is a multiple of S, as n / S (default: the job's):
    /// a finished `knight 9x10` resumed with `--bfile F --stride 2` is A391999's row n = 5.
    #[arg(long, value_name = "S", value_parser = crate::request::parse_stride, help_heading = "Output", hide_short_help = true)]
    pub stride: Option<usize>,

    /// Number the b-file's first row K (default: the job's).
    #[arg(long, value_name = "K", help_heading = "Output", hide_short_help = true)]
    pub offset: Option<usize>,
}

impl ResumeArgs {
    /// Applies this run's overrides to the request a job directory recorded (checked with its
    /// job: `settings::checked`).
    pub fn apply(&self, request: &mut JobRequest) -> Result<()> {
        request.run.threads = self.threads;
        if let Some(format) = self.format {
            request.run.format = format;
        }
        if let Some(sweep) = &mut request.sweep {
            if let Some(limit) = self.mem_limit {
                sweep.mem_limit = Some(limit);
            }
            if let Some(path) = &self.bfile {
                sweep.bfile = Some(path.clone());
            }
            if self.stride.is_some() || self.offset.is_some() {
                if sweep.bfile.is_none() {
                    anyhow::bail!(
                        "--stride and --offset number the rows of a b-file: give --bfile FILE (this job writes none)"
                    );
                }
                sweep.stride = self.stride.or(sweep.stride);
                sweep.offset = self.offset.or(sweep.offset);
            }
        } else if self.bfile.is_some() || self.mem_limit.is_some() || self.stride.is_some() || self.offset.is_some() {
            anyhow::bail!("--bfile, --stride, --offset and --mem-limit apply to sweeps; this job is a subtree search");
        }
        if let Some(workers) = &self.workers {
            let job = &request.run.cluster.workers;
            if job.is_empty() {
                anyhow::bail!("--workers gives a cluster job's workers new addresses; this job runs in this process");
            }
            if request.sweep.is_some() && workers.len() != job.len() {
                anyhow::bail!(
                    "--workers names {} workers, the job has {}: its layers lie on its own workers, each owning its \
                     buckets; give all of them, in the job's order, each at its address now",
                    workers.len(),
                    job.len()
                );
            }
            request.run.cluster.workers = workers.clone();
        }
        if self.listen.is_some() {
            let cluster = &mut request.run.cluster;
            cluster.listen = self.listen;
            cluster.listen_token_file = self.listen_token_file.clone().or(cluster.listen_token_file.take());
        }
        Ok(())
    }
}

/// `leaper status` reads a job directory or asks a coordinator: one of the two, as its usage
/// line says (`<--job-dir <DIR>|--coordinator <ADDR>>`).
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["job_dir", "coordinator"])))]
pub struct StatusArgs {
    /// The job directory.
    #[arg(long, value_name = "DIR")]
    pub job_dir: Option<PathBuf>,

    /// Ask the coordinator serving the job (its --listen address) instead. Needs --token-file.
    #[arg(long, value_name = "ADDR", requires = "token_file", help_heading = "Cluster")]
    pub coordinator: Option<String>,

    /// File holding the token the coordinator was started with.
    #[arg(long, value_name = "FILE", requires = "coordinator", help_heading = "Cluster")]
    pub token_file: Option<PathBuf>,

    /// Reach the coordinator over TLS, trusting this CA certificate (PEM).
    #[arg(long, value_name = "FILE", requires = "coordinator", help_heading = "Cluster")]
    pub tls_ca: Option<PathBuf>,

    /// With --coordinator: print the status again whenever a step has been committed or a shard
    /// finished (at most once a second), until the job has finished.
    #[arg(long, requires = "coordinator", help_heading = "Cluster")]
    pub follow: bool,

    /// Output format: text, or one JSON object.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text, help_heading = "Output")]
    pub format: OutputFormat,
}

/// The workers a tool that can use them is given.
#[derive(Debug, Args)]
pub struct ToolWorkers {
    /// Spread the work over these workers (`host:port,...`, each a running `leaper-worker`).
    /// Needs --token-file.
    #[arg(long, value_name = "ADDR,...", value_delimiter = ',', help_heading = "Cluster", hide_short_help = true)]
    pub workers: Vec<String>,

    /// File holding the token the workers share.
    #[arg(long, value_name = "FILE", requires = "workers", help_heading = "Cluster", hide_short_help = true)]
    pub token_file: Option<PathBuf>,

    /// Reach the workers over TLS, trusting this CA certificate (PEM).
    #[arg(long, value_name = "FILE", requires = "workers", help_heading = "Cluster", hide_short_help = true)]
    pub tls_ca: Option<PathBuf>,
}

/// The whole command line: every problem's commands first, then leaper's own; a problem
/// command with the engine's options of its kinds, told as its problem tells them; a problem
/// command's own subcommands are jobs too (with the options of their kinds), except its tools,
/// which take only their own.
pub fn command() -> clap::Command {
    let mut command = Cli::command()
        .after_help(crate::help::top_examples(REGISTRY))
        .mut_subcommand("plan", |plan| plan.after_help(crate::help::plan_examples(REGISTRY)));
    let builtins: Vec<String> = command.get_subcommands().map(|sub| sub.get_name().to_string()).collect();
    for (order, name) in builtins.into_iter().enumerate() {
        command = command.mut_subcommand(name, |sub| sub.display_order(PROBLEMS_FIRST + order));
    }
    let mut order = 0;
    for problem in REGISTRY {
        for mut sub in problem.commands() {
            let (about, long_about) = (sub.get_about().cloned(), sub.get_long_about().cloned());
            let name = sub.get_name().to_string();
            sub = problem_headings(sub);
            let nested: Vec<String> = sub.get_subcommands().map(|c| c.get_name().to_string()).collect();
            for nested in nested {
                let path = format!("{name} {nested}");
                sub = sub.mut_subcommand(nested, |job| {
                    let (about, long_about) = (job.get_about().cloned(), job.get_long_about().cloned());
                    let job = with_engine_options(problem_headings(job), *problem, &path);
                    let job = job.about(about.unwrap_or_default());
                    with_long_about(job, long_about)
                });
            }
            for tool in problem.tools(sub.get_name()) {
                let command = tool.command();
                let (about, long_about) = (command.get_about().cloned(), command.get_long_about().cloned());
                let command = if tool.uses_workers() { ToolWorkers::augment_args(command) } else { command };
                let command = with_long_about(command.about(about.unwrap_or_default()), long_about);
                sub = sub.subcommand(with_examples(command, Some(tool.examples())));
            }
            // The option structs' docs must not replace the problem's own description.
            let sub = with_engine_options(sub, *problem, &name).about(about.unwrap_or_default()).display_order(order);
            order += 1;
            command = command.subcommand(with_long_about(sub, long_about));
        }
    }
    command
}

/// `command` with its long description put back (or none): the option structs' docs must not
/// stand in for it.
fn with_long_about(command: clap::Command, long_about: Option<clap::builder::StyledStr>) -> clap::Command {
    match long_about {
        Some(text) => command.long_about(text),
        None => command.long_about(None::<&str>),
    }
}

/// Where leaper's own commands start in the list of commands: after every problem's.
const PROBLEMS_FIRST: usize = 1000;

/// `command` (at `path` below `leaper`) with the engine's options of the kinds of job it
/// starts, each told for those kinds or as the problem tells it, and the problem's examples.
fn with_engine_options(command: clap::Command, problem: &dyn Problem, path: &str) -> clap::Command {
    let kinds = problem.kinds(path);
    let sweeps = kinds.contains(&JobKind::Sweep);
    let command = RunArgs::augment_args(command);
    let mut command = if sweeps { SweepArgs::augment_args(command) } else { command };
    if !kinds.contains(&JobKind::Subtree) {
        command = command.mut_arg("job_dir", |arg| arg.long_help(JOB_DIR_OF_A_SWEEP));
    } else if !sweeps {
        command = command
            .mut_arg("job_dir", |arg| arg.long_help(JOB_DIR_OF_A_SEARCH))
            .mut_arg("workers", |arg| arg.long_help(WORKERS_OF_A_SEARCH));
    }
    let ids: Vec<String> = command.get_arguments().map(|arg| arg.get_id().to_string()).collect();
    let name = path.split(' ').next().unwrap_or(path);
    for id in ids {
        command = match problem.engine_option(name, &id) {
            Some(EngineOption::Told(help)) => command.mut_arg(id, |arg| arg.long_help(help)),
            Some(EngineOption::Unused) => command.mut_arg(id, |arg| arg.hide(true)),
            None => command,
        };
    }
    with_examples(command, problem.examples(path))
}

/// `--job-dir` (long help) of a command that only sweeps, and of one that only searches.
const JOB_DIR_OF_A_SWEEP: &str = "Run as a resumable job in DIR (created if missing; it must be empty): its \
                                  layers go to segment files and a checkpoint is written after every step. \
                                  `leaper resume --job-dir DIR` goes on from the last one";
const JOB_DIR_OF_A_SEARCH: &str = "Run as a resumable job in DIR (created if missing; it must be empty): a ledger \
                                   line per finished shard. `leaper resume --job-dir DIR` runs only the shards not \
                                   yet done";
const WORKERS_OF_A_SEARCH: &str = "Lease the shards to these workers (`host:port,...`, each a running \
                                   `leaper-worker`). Needs --job-dir and --token-file";

/// A search given a sweep's options (`quarter 8 --by-start --buckets 64`) is refused, naming one:
/// they would be recorded and silently ignored.
fn refuse_sweep_options(command: &str, matches: &clap::ArgMatches) -> Result<()> {
    let sweep = SweepArgs::augment_args(clap::Command::new("sweep"));
    for arg in sweep.get_arguments() {
        let id = arg.get_id().as_str();
        if matches!(matches.value_source(id), Some(clap::parser::ValueSource::CommandLine)) {
            let name = arg.get_long().map_or(id.to_string(), |long| format!("--{long}"));
            anyhow::bail!("{name} is an option of transfer-matrix sweeps; this `{command}` job is a search");
        }
    }
    Ok(())
}

/// Parses the process's command line (clap prints help and errors, and exits, by itself; so do
/// `completions` and `man`, which print and are done).
pub fn parse() -> Result<Invocation> {
    let argv: Vec<OsString> = std::env::args_os().collect();
    let root = command();
    if let Some(help) = action_help(&root, &argv) {
        print_bytes(help.as_bytes())?;
        std::process::exit(0);
    }
    invocation(root.get_matches_from(argv))
}

/// What parsed arguments ask for.
fn invocation(matches: clap::ArgMatches) -> Result<Invocation> {
    let console = ConsoleArgs {
        log_format: *matches.get_one::<LogFormat>("log_format").expect("a default"),
        quiet: matches.get_flag("quiet"),
        verbose: matches.get_count("verbose"),
        progress_every: crate::console::progress_every_from_env()?,
    };
    let (name, sub) = matches.subcommand().expect("a subcommand is required");
    let action = match problems::owning(name) {
        Some(problem) => {
            let nested = sub.subcommand();
            if let Some((nested, tool_matches)) = nested {
                if let Some(tool) = problem.tools(name).into_iter().find(|t| t.command().get_name() == nested) {
                    return Ok(Invocation { console, action: Action::Tool(tool, tool_matches.clone()) });
                }
            }
            // A nested job (`tours enumerate`) has the options of every job after its name.
            let job_matches = nested.map_or(sub, |(_, m)| m);
            let params = match problem.request(name, sub)? {
                Requested::One(params) => params,
                Requested::Answer(text) => return Ok(Invocation { console, action: Action::Answer(text) }),
                Requested::Stream(items) => {
                    let sweep = match problem.kinds(name).contains(&JobKind::Sweep) {
                        true => Some(SweepArgs::from_arg_matches(sub)?),
                        false => None,
                    };
                    let run = RunArgs::from_arg_matches(job_matches)?;
                    let stream = crate::request::StreamRequest { problem, run, sweep, items };
                    return Ok(Invocation { console, action: Action::Stream(Box::new(stream)) });
                }
            };
            let mut request = JobRequest::new(problem, params, RunArgs::from_arg_matches(job_matches)?, None)?;
            match request.task.kind() {
                JobKind::Sweep => request.sweep = Some(SweepArgs::from_arg_matches(sub)?),
                JobKind::Subtree => refuse_sweep_options(name, sub)?,
            }
            Action::Start(Box::new(request))
        }
        None => match Builtin::from_arg_matches(&matches)? {
            Builtin::Resume(args) => Action::Resume(args),
            Builtin::Status(args) => Action::Status(args),
            Builtin::Worker { args } => Action::Worker(args),
            Builtin::Completions { shell } => {
                print_completions(shell, command())?;
                std::process::exit(0)
            }
            Builtin::Man { dir } => {
                print_man(dir.as_deref(), command())?;
                std::process::exit(0)
            }
            Builtin::Plan { args } => {
                let (plan, job) = crate::plan::split_args(args)?;
                let job_line = std::iter::once(OsString::from("leaper")).chain(job);
                let parsed = command().try_get_matches_from(job_line).unwrap_or_else(|error| error.exit());
                match invocation(parsed)?.action {
                    Action::Start(request) => Action::Plan(plan, request),
                    Action::Stream(_) | Action::Answer(_) => anyhow::bail!(
                        "`leaper plan` prices one count: not a stream of them, nor an answer printed without \
                         counting (--print-order)"
                    ),
                    _ => anyhow::bail!("`leaper plan` prices a problem's job (`leaper plan COMMAND ARGS`, as the count would be started), not a command of leaper's own"),
                }
            }
        },
    };
    Ok(Invocation { console, action })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_command_parses_with_the_options_of_its_kind() {
        command().debug_assert();
        let matches = command()
            .try_get_matches_from(["leaper", "knight", "6x8", "--sweep", "--buckets", "7", "--job-dir", "j"])
            .unwrap();
        let (name, sub) = matches.subcommand().unwrap();
        assert_eq!(name, "knight");
        assert_eq!(SweepArgs::from_arg_matches(sub).unwrap().buckets, 7);
        let error = command().try_get_matches_from(["leaper", "quarto", "--buckets", "7"]).unwrap_err();
        assert_eq!(error.kind(), clap::error::ErrorKind::UnknownArgument, "a subtree job has no buckets");
        let help = command().find_subcommand_mut("quarto").unwrap().render_long_help().to_string();
        for sweep_only in ["bucket", "layer", "checkpoint", "sweep"] {
            assert!(!help.contains(sweep_only), "quarto --help speaks of {sweep_only}: {help}");
        }
    }
}
