//! The coordinator side of leaper: the command line, the request it becomes, the runners by job
//! kind (sweeps, subtree jobs) in process or on workers, status, and the status service.
//! `main.rs` only wires these together.
//!
//! ```text
//! cli ──► request ──► run ──► sweep (cluster) ─┐     stream ──► run, sweep (a count per item)
//!    │                   └──► subtree (leases) ┴─► workers (connect, check)
//!    └──► plan (probe, model, estimate) ──► request (its sweep options), machine (threads)
//! status ◄── metrics ◄── serve   progress ──► eta, results; memory ──► machine
//! leaves, importing nothing of the crate: console, numbers, machine, output, straggler,
//! waiting
//! ```
//!
//! No module imports one that imports it, however far round: `scripts/import-graph` checks it.

pub mod cli;
pub mod console;
pub mod dedupe_workers;
pub mod eta;
pub mod fit;
pub mod help;
pub mod interrupt;
pub mod machine;
pub mod memory;
pub mod metrics;
pub mod numbers;
pub mod output;
pub mod plan;
pub mod preflight;
pub mod progress;
pub mod request;
pub mod results;
pub mod run;
pub mod serve;
pub mod settings;
pub mod status;
pub mod straggler;
pub mod stream;
pub mod subtree;
pub mod sweep;
pub mod waiting;
pub mod workers;
pub mod zero_notes;

use std::ffi::OsString;
use std::io::Write;

use anyhow::{Context, Result};

use cli::{Action, StatusArgs};

/// Runs what the command line asked for.
pub fn run(action: Action) -> Result<()> {
    match action {
        Action::Start(request) => run::start(*request),
        Action::Stream(stream) => stream::run(*stream),
        Action::Answer(text) => console::results(|out| Ok(out.write_all(text.as_bytes())?)),
        Action::Resume(args) => run::resume(args),
        Action::Status(args) => show_status(args),
        Action::Worker(args) => exec_worker(args),
        Action::Plan(args, request) => plan::run(&args, &request),
        Action::Tool(tool, matches) => run_tool(tool, &matches),
    }
}

/// A problem's tool, with the workers it was given (`--workers`), if it takes them.
fn run_tool(tool: &dyn leaper_core::engine::Tool, matches: &clap::ArgMatches) -> Result<()> {
    preflight::check_tool(tool, matches)?;
    let mut context = leaper_core::engine::ToolContext::default();
    if tool.uses_workers() {
        let workers = <cli::ToolWorkers as clap::FromArgMatches>::from_arg_matches(matches)?;
        if !workers.workers.is_empty() {
            let token_file = workers.token_file.as_deref().context("--workers needs --token-file")?;
            let credentials = leaper_proto::client::Credentials::load(token_file, workers.tls_ca.as_deref())?;
            let purpose = format!("{}-{}", tool.command().get_name(), std::process::id());
            context.workers =
                Some(Box::new(dedupe_workers::RemoteBuckets::connect(&workers.workers, &credentials, &purpose)?));
        }
    }
    let mut out = std::io::stdout().lock();
    tool.run(matches, &context, &mut out)?;
    Ok(std::io::Write::flush(&mut out)?)
}

/// `leaper status`: from the job directory, or from the coordinator serving the job.
fn show_status(args: StatusArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match (&args.job_dir, &args.coordinator) {
        (Some(dir), _) => {
            let status = status::Status::read(dir)?;
            status.print(args.format, &mut out)?;
            // A job no process runs goes on with one command: say it (text only; JSON is data).
            if args.format == leaper_core::engine::OutputFormat::Text && status.state() == "stopped" {
                writeln!(out, "next      continue with `leaper resume --job-dir {}`", dir.display())?;
            }
            Ok(())
        }
        (None, Some(address)) => serve::show_remote(address, &args, &mut out),
        (None, None) => anyhow::bail!("give --job-dir DIR, or --coordinator ADDR for a coordinator serving --listen"),
    }
}

/// `leaper worker ARGS`: becomes the `leaper-worker` installed beside this binary (or on the
/// PATH), with the same arguments and the same process id.
fn exec_worker(args: Vec<OsString>) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("leaper-worker")))
        .filter(|path| path.is_file());
    let program = beside.clone().unwrap_or_else(|| "leaper-worker".into());
    let error = std::process::Command::new(&program).args(&args).exec();
    Err(error).with_context(|| {
        format!(
            "`leaper worker` runs the leaper-worker binary, found neither beside leaper nor on the PATH ({}): \
             install it (cargo build --release -p leaper-worker)",
            program.display()
        )
    })
}
