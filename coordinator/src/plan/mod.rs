//! `leaper plan PROBLEM ARGS [--workers N|ADDR,...] [--disk-per-worker SIZE] [--mem-per-worker
//! SIZE]`: what a sweep will cost, before it runs. `--workers` is a number, or the count's own
//! list of addresses (priced by its length, never reached), so a count's line prices as it is.
//!
//! ```text
//! leaper plan knight 9x10 --workers 8 --disk-per-worker 2TiB
//!   probe    the sweep's first steps, for real, until a layer would pass --probe-states
//!   profile  the probe's layers, then the rest predicted (the ETA's layer model)
//!   costs    peak disk per worker, in-memory bytes, states read, wall time for 1, 4, 8, 32
//!            and N workers (the shuffle between workers included), and whether N workers with
//!            the given disks hold the job
//!   machine  whether the count fits this machine in memory, and about how long it takes here
//! ```
//!
//! The same probe, bounded to about a second, warns before a count that will not fit
//! ([`crate::preflight`]): [`estimate`] is both's. A sweep without rows, which the model cannot
//! extend, is priced from its smaller instances counted in full where its problem names them
//! ([`ladder`]: `leaper plan quarter 40` from `quarter 2` to `quarter 20`, in about a second);
//! a graph's, whose frontier's width is known at every step, is guessed from it past its probe
//! ([`widths`]: `leaper plan knight 8x8 --remove a1,h1`).
//!
//! The plan's own options may stand anywhere after `plan`; everything else is the job, exactly
//! as it would be started (`knight 9x10 --open --counts residues`), so the plan prices the same
//! moduli, passes and key width the job would get.

pub mod bytes;
pub mod estimate;
pub mod forecast;
pub mod ladder;
pub mod link;
pub mod model;
pub mod probe;
pub mod widths;

pub use crate::numbers::{approx, duration};
pub use forecast::{estimate, predict};

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::{CommandFactory, FromArgMatches, Parser};
use leaper_core::engine::sweep::SweepPlan;
use leaper_core::engine::{Job, Moduli, OutputFormat, SweepJob};
use serde::Serialize;

use crate::numbers::{bytes, counted, grouped};
use crate::request::{parse_size, JobRequest, DEFAULT_BUCKETS, MOST_BUCKETS};
use estimate::{cost_on, workers_needed, WIRE_BYTES_PER_WORD};
use probe::Probe;

/// Worker counts every plan prices, besides the one asked for.
const WORKER_COUNTS: [usize; 4] = [1, 4, 8, 32];
/// The most workers a plan looks for when the disks asked for are too small.
const MOST_WORKERS: usize = 100_000;

/// The plan's own options.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "plan",
    override_usage = "leaper plan [OPTIONS] <PROBLEM> [JOB ARGS]...",
    about = "Price a sweep before running it: peak states, disk per worker, states read, wall time"
)]
pub struct PlanArgs {
    /// Workers the job would run on: a number, or the count's own list (`host:port,...`, as
    /// `leaper knight ... --workers` takes it), priced by its length and not reached. The plan
    /// also prices 1, 4, 8 and 32.
    #[arg(long, value_name = "N|ADDR,...", default_value_t = 1, value_parser = parse_worker_count, help_heading = "Cluster")]
    pub workers: u64,

    /// Disk each worker has for the job: the plan says whether the job fits, and on how many
    /// such workers it would.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Cluster")]
    pub disk_per_worker: Option<u64>,

    /// Each worker's network link, each way, in bits a second as tc writes them (1Gbit, 100Mbit,
    /// 10Mbit): what the shuffle between workers costs. Default: an assumed 1Gbit.
    #[arg(long, value_name = "RATE", value_parser = link::parse_link, help_heading = "Cluster")]
    pub link: Option<link::LinkRate>,

    /// Memory budget each worker gives the job (its --mem-limit; default: the job's, or 4GiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Cluster")]
    pub mem_per_worker: Option<u64>,

    /// Run the sweep for real through its first two rows and on while the layers hold at most
    /// N states, then predict the rest. A sweep without rows (the quartering) that cannot be run
    /// whole within N states read is priced from its smaller instances counted in full, N states
    /// read in all.
    #[arg(long, value_name = "N", default_value_t = forecast::PROBE_STATES, help_heading = "Probe")]
    pub probe_states: u64,

    /// Directory for the probe's scratch files (removed afterwards; default: the system's
    /// temporary directory).
    #[arg(long, value_name = "DIR", help_heading = "Probe")]
    pub scratch: Option<PathBuf>,
}

/// How many workers `--workers` names: `8`, or a count's list of addresses (`h1:7101,h2:7101`,
/// two), so that a count's command line is priced as it stands.
fn parse_worker_count(text: &str) -> Result<u64, String> {
    const MOST: u64 = MOST_WORKERS as u64;
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return match text.parse::<u64>() {
            Ok(n @ 1..=MOST) => Ok(n),
            _ => Err(format!("{text} workers: a plan prices 1 to {MOST}")),
        };
    }
    let addresses: Vec<&str> = text.split(',').map(str::trim).collect();
    if let Some(bad) = addresses.iter().find(|a| !a.contains(':') || a.starts_with(':') || a.ends_with(':')) {
        return Err(format!(
            "{bad:?} is neither a number of workers (`--workers 8`) nor a worker's address (`--workers \
             host:port,...`)"
        ));
    }
    for (i, address) in addresses.iter().enumerate() {
        if addresses[..i].contains(address) {
            return Err(format!("{address} is listed twice: list each worker once"));
        }
    }
    match addresses.len() as u64 {
        n @ 1..=MOST => Ok(n),
        n => Err(format!("{n} workers: a plan prices 1 to {MOST}")),
    }
}

/// The plan's options that take a value, as they are spelled.
const VALUED: [&str; 6] =
    ["--workers", "--disk-per-worker", "--mem-per-worker", "--probe-states", "--scratch", "--link"];

/// The plan's own command line, with the registry's examples after its options.
fn plan_command() -> clap::Command {
    let examples = crate::help::plan_examples(leaper_core::problems::REGISTRY);
    PlanArgs::command().after_help(format!(
        "Everything else after `plan` is the job, as it would be started: `leaper plan COMMAND ARGS \
         [--workers N] [--disk-per-worker SIZE]`\n\n{examples}"
    ))
}

/// Splits the arguments after `plan` into the plan's own (parsed, with clap's help and errors)
/// and the job's (returned as they are, for the job's parser).
pub fn split_args(args: Vec<OsString>) -> Result<(PlanArgs, Vec<OsString>)> {
    let (mut own, mut job) = (vec![OsString::from("plan")], Vec::new());
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        let name = text.split('=').next().unwrap_or_default();
        if VALUED.contains(&name) {
            let takes_next = !text.contains('=');
            own.push(arg);
            if takes_next {
                own.extend(args.next());
            }
        } else if (text == "--help" || text == "-h") && job.is_empty() {
            own.push(arg);
        } else {
            job.push(arg);
        }
    }
    let matches = plan_command().try_get_matches_from(&own).unwrap_or_else(|error| error.exit());
    let plan = PlanArgs::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    if job.is_empty() {
        plan_command().print_help()?;
        bail!("`leaper plan` needs a job to price: `leaper plan COMMAND ARGS`, as the count would be started");
    }
    Ok((plan, job))
}

/// Prices `request`'s sweep on the machines `args` describe and prints the plan.
pub fn run(args: &PlanArgs, request: &JobRequest) -> Result<()> {
    if request.run.job_dir.is_some() || !request.run.cluster.workers.is_empty() {
        bail!("`leaper plan` runs nothing to keep: give the job without --job-dir");
    }
    let built = request.task.job()?;
    let Job::Sweep(job) = &built else {
        bail!("`leaper plan` prices transfer-matrix sweeps; `{}` is a search", request.problem.name());
    };
    let settings = crate::settings::checked(&built, request)?.expect("a sweep has settings");
    let scratch = args.scratch.clone().unwrap_or_else(std::env::temp_dir);
    let mem = args.mem_per_worker.unwrap_or(settings.out_of_core_limit);
    let priced = forecast::price(job.as_ref(), request, &settings, args.probe_states, &scratch, mem, false)?;
    let counts = PassPlan::new(&settings.plan);
    let machine = Machine::new(&priced.forecast, settings.in_memory_limit);
    let name = request.task.command_line();
    let disk = DiskFigure::new(job.as_ref(), &settings.plan.passes[0], &priced.probe);
    let (notes, report) = (request.task.plan_notes(), Report { counts, machine, disk });
    let plan = PlanReport::new(job.as_ref(), name, priced, args, mem, report, notes);
    let mut out = std::io::stdout().lock();
    match request.run.format {
        OutputFormat::Json => writeln!(out, "{}", serde_json::to_string(&plan)?)?,
        OutputFormat::Text => plan.print(&mut out)?,
    }
    Ok(out.flush()?)
}

/// How the job carries its counts, for the plan's passes.
#[derive(Clone, Debug, Serialize)]
struct PassPlan {
    /// Lanes (64-bit words) of counts per state in the first pass.
    lanes: usize,
    /// Residues per state in the first pass (the exact pass: its spare residues alone).
    moduli: usize,
    /// Whether an exact pass comes first (residue passes follow only if a count reaches its cap).
    exact_first: bool,
    /// The exact pass's lane, in bits (64 or 128), where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    exact_bits: Option<u32>,
    /// What the first pass carries, in words: `exact 128-bit counts and 1 spare residue`.
    carried: String,
    /// Residue passes: after the exact pass if it saturates, or all the passes.
    residue_passes: usize,
    /// Passes that run for certain: the exact pass alone, or every residue pass.
    runs: usize,
}

impl PassPlan {
    fn new(plan: &SweepPlan) -> PassPlan {
        let first = &plan.passes[0];
        // Residue passes follow the exact pass only if a count saturates (none where the bound
        // needs more moduli than leaper carries).
        let exact = plan.exact_lane();
        let residue_passes = plan.passes.len() - usize::from(exact.is_some());
        PassPlan {
            lanes: first.len(),
            moduli: first.residues(),
            exact_first: exact.is_some(),
            exact_bits: exact.map(|lane| lane.bits()),
            carried: match exact {
                Some(_) => first.to_string(),
                None => counted(first.len(), "residue", "residues"),
            },
            residue_passes,
            runs: if exact.is_some() { 1 } else { residue_passes },
        }
    }

    /// The `passes` line: how many passes follow one another, and what the times below mean.
    fn line(&self) -> String {
        if let Some(bits) = self.exact_bits {
            if self.residue_passes == 0 {
                return format!(
                    "1 pass of {} ({} a state), whose times are below; a count that reaches 2^{bits} - 1 is \
                     refused (its bound needs more moduli than leaper carries)",
                    self.carried,
                    counted(self.lanes, "word", "words"),
                );
            }
            return format!(
                "1 pass of {} ({} a state), whose times are below; then {} only if a count reaches 2^{bits} - 1 \
                 (--counts residues skips the exact pass for counts known to pass it)",
                self.carried,
                counted(self.lanes, "word", "words"),
                counted(self.residue_passes, "residue pass", "residue passes")
            );
        }
        match self.runs {
            1 => "1 pass: the times below are the whole count's".to_string(),
            n => format!("{n} passes, one after another: the times below are per pass, {n} times that in all"),
        }
    }
}

/// This machine against a count in memory: `leaper plan`'s verdict line.
#[derive(Clone, Debug, Serialize)]
struct Machine {
    /// Bytes a count in memory may hold here: its --mem-limit, or 80% of MemTotal.
    in_memory_limit: u64,
    /// MemAvailable now, where the OS says.
    memory_available: Option<u64>,
    /// Whether the count's in-memory peak fits both.
    fits_in_memory: bool,
    /// Seconds the whole count takes here, every pass that runs, at the probe's rate.
    seconds: f64,
}

impl Machine {
    fn new(forecast: &forecast::Forecast, in_memory_limit: u64) -> Machine {
        let memory_available = crate::memory::available_memory();
        // It must fit its limit frugally; what is free now must hold what it will take.
        let (need, held) = (forecast.memory, forecast.memory_held);
        Machine {
            in_memory_limit,
            memory_available,
            fits_in_memory: need <= in_memory_limit && memory_available.is_none_or(|free| held <= free),
            seconds: forecast.seconds,
        }
    }

    /// The `machine` line, for a count needing `need` bytes in memory and holding `held`.
    fn line(&self, need: u64, held: u64) -> String {
        let time = format!("about {}", duration(self.seconds));
        let free = self.memory_available.map_or_else(|| bytes(self.in_memory_limit), bytes);
        if self.fits_in_memory {
            format!("fits this machine in memory ({} of {free} available): just run it, {time}", bytes(held))
        } else if need <= self.in_memory_limit {
            format!(
                "fits this machine's memory but not what is free now ({} held, {free} available): free some, \
                 or count out of core with --job-dir DIR; {time}",
                bytes(held)
            )
        } else {
            format!(
                "does not fit this machine in memory ({} needed, {} for a count in memory): count out of core \
                 with --job-dir DIR (disk below) or on workers; {time} on this machine",
                bytes(need),
                bytes(self.in_memory_limit)
            )
        }
    }
}

/// Where the plan's bytes a state on disk come from.
#[derive(Clone, Debug, Serialize)]
struct DiskFigure {
    /// Bytes a state of the probe's largest layer took (0 in memory).
    probe_bytes_per_state: f64,
    /// The lanes a state carries, as they read (`4 residue lanes`).
    lanes: String,
    /// The run whose figure at its peak the plan takes for these lanes (none: the probe ran
    /// the whole sweep, its own figure is exact).
    measured_by: Option<&'static str>,
    /// That run's bytes a state at its peak.
    measured_bytes_per_state: Option<f64>,
}

impl DiskFigure {
    fn new(job: &dyn SweepJob, first: &Moduli, probe: &Probe) -> DiskFigure {
        let lanes = bytes::Lanes::of(first);
        let exact = probe.on_disk && probe.finished(job.steps());
        let peak = (!exact).then(|| bytes::at_peak(lanes));
        DiskFigure {
            probe_bytes_per_state: if probe.on_disk { probe.bytes_per_state() } else { 0.0 },
            lanes: lanes.name(),
            measured_by: peak.map(|peak| peak.run),
            measured_bytes_per_state: peak.map(|peak| peak.bytes_per_state),
        }
    }

    /// The `disk` line, for `bytes_per_state` a state at the heaviest step.
    fn line(&self, bytes_per_state: f64) -> String {
        match (self.measured_by, self.measured_bytes_per_state) {
            (Some(run), Some(_)) if self.probe_bytes_per_state == 0.0 => format!(
                "{bytes_per_state:.2} bytes a state at the heaviest step, {} (the figure of {run}: no \
                 layer was written to disk); a step holds the layer it reads and the larger of the layer it writes \
                 and its spill",
                self.lanes
            ),
            (Some(run), Some(measured)) => format!(
                "{bytes_per_state:.2} bytes a state at the heaviest step, {} ({measured:.2} as measured by {run}; \
                 {:.2} at the probe's largest layer); a step holds the layer it reads and the larger of the layer \
                 it writes and its spill",
                self.lanes, self.probe_bytes_per_state
            ),
            _ => format!("{bytes_per_state:.2} bytes a state, {}, as the probe measured them", self.lanes),
        }
    }
}

/// What a plan says besides its profile and costs: how the counts are carried, this machine's
/// verdict, where its bytes a state come from.
struct Report {
    counts: PassPlan,
    machine: Machine,
    disk: DiskFigure,
}

/// Everything a plan says, in the order it says it.
#[derive(Clone, Debug, Serialize)]
struct PlanReport {
    job: String,
    steps: usize,
    key_bits: usize,
    counts: PassPlan,
    machine: Machine,
    probe_steps: usize,
    probe_seconds: f64,
    probe_finished: bool,
    /// States read by every step of one pass (measured for the first `probe_steps`).
    profile: Vec<u64>,
    peak_states: u64,
    /// The largest layer read in each row.
    row_peaks: Vec<u64>,
    /// The step (from 1) that reads the peak layer, and its row and column (from 1).
    peak_step: usize,
    peak_row: usize,
    peak_col: usize,
    /// States read over one pass.
    expansions: u128,
    disk_bytes_per_state: f64,
    states_per_second: f64,
    threads: usize,
    in_memory_bytes: u64,
    mem_per_worker: u64,
    /// Suggested --buckets, so a bucket grouped by a thread stays within an eighth of the budget.
    buckets: u64,
    costs: Vec<estimate::Cost>,
    /// Each worker's link, each way, and whether `--link` gave it (else it is assumed).
    link: link::LinkRate,
    link_given: bool,
    /// Bytes a record sent to another worker takes on the wire.
    wire_bytes_per_record: f64,
    workers: usize,
    disk_per_worker: Option<u64>,
    /// Whether `workers` workers with `disk_per_worker` each hold the job.
    fits: Option<bool>,
    /// The fewest workers with `disk_per_worker` each that hold it.
    workers_needed: Option<usize>,
    /// Where `disk_bytes_per_state` comes from.
    disk: DiskFigure,
    /// The smaller instances a sweep without rows was priced from, where it was too big to
    /// probe whole (its probe's figures are then the largest one's, counted in memory).
    #[serde(skip_serializing_if = "Option::is_none")]
    ladder: Option<ladder::LadderReport>,
    /// What the same counts cost another way, as the problem says ([`leaper_core::engine::Task::plan_notes`]).
    notes: Vec<String>,
    /// The figures the warning before a count and `leaper status` quote ([`forecast`]).
    forecast: forecast::Forecast,
}

impl PlanReport {
    #[allow(clippy::too_many_arguments)]
    fn new(
        job: &dyn SweepJob,
        name: String,
        priced: forecast::Priced,
        args: &PlanArgs,
        mem: u64,
        report: Report,
        notes: Vec<String>,
    ) -> PlanReport {
        let Report { counts, machine, disk } = report;
        let forecast::Priced { probe, profile, rates, forecast, ladder, .. } = priced;
        let workers = args.workers as usize;
        let mut counts_priced: Vec<usize> = WORKER_COUNTS.iter().copied().chain([workers]).collect();
        counts_priced.sort_unstable();
        counts_priced.dedup();
        let link = args.link.unwrap_or(link::DEFAULT_LINK);
        let costs: Vec<estimate::Cost> =
            counts_priced.iter().map(|&w| cost_on(&profile, &rates, w, mem, link)).collect();
        // The workers asked for are among those priced.
        let fits = args
            .disk_per_worker
            .map(|disk| costs.iter().any(|cost| cost.workers == workers && cost.disk_per_worker <= disk));
        let (peak_index, peak_states) = profile.peak();
        let position = job.position(peak_index);
        let threads = rayon::current_num_threads();
        let grouped_bytes = 2.0 * rates.record_bytes * threads as f64 * peak_states as f64 / workers as f64;
        let buckets =
            ((grouped_bytes / (mem as f64 / 8.0)).ceil() as u64).clamp(DEFAULT_BUCKETS.into(), MOST_BUCKETS.into());
        PlanReport {
            job: name,
            steps: job.steps(),
            key_bits: 64 * job.key_words(),
            counts,
            machine,
            // Priced from smaller instances: its own probe ran no step, theirs took these seconds.
            probe_steps: forecast.probe_steps,
            probe_seconds: match &ladder {
                Some(ladder) => ladder.rungs.iter().flat_map(|rung| &rung.probe.seconds).sum(),
                None => probe.seconds.iter().sum(),
            },
            probe_finished: forecast.probe_finished,
            peak_states,
            row_peaks: profile
                .states
                .chunks(job.profile_hint().row.max(1))
                .map(|row| row.iter().copied().max().unwrap_or(0))
                .collect(),
            peak_step: peak_index + 1,
            peak_row: position.row + 1,
            peak_col: position.col + 1,
            expansions: profile.expansions(),
            disk_bytes_per_state: rates.disk_bytes_per_state,
            states_per_second: rates.states_per_second,
            threads,
            in_memory_bytes: forecast.memory,
            mem_per_worker: mem,
            buckets,
            costs,
            link,
            link_given: args.link.is_some(),
            wire_bytes_per_record: rates.wire_bytes_per_record,
            workers,
            disk_per_worker: args.disk_per_worker,
            fits,
            workers_needed: args
                .disk_per_worker
                .and_then(|disk| workers_needed(&profile, &rates, disk, mem, MOST_WORKERS)),
            profile: profile.states,
            disk,
            ladder: ladder.as_ref().map(ladder::Ladder::report),
            notes,
            forecast,
        }
    }

    /// The `count` line, where the smaller instances' counts foretell the count's size: `about
    /// 2^161.5, as the counts of quarter 16 to quarter 20 foretell: past the exact pass's 2^128,
    /// so 2 passes run, priced below; --counts residues skips the exact pass`.
    fn count_line(&self) -> Option<String> {
        let (bits, ladder) = (self.forecast.count_bits?, self.ladder.as_ref()?);
        let rungs = &ladder.rungs[ladder.rungs.len().saturating_sub(3)..];
        let from = format!("as the counts of {} to {} foretell", rungs[0].name, rungs[rungs.len() - 1].name);
        let lane = self.counts.exact_bits?;
        Some(if bits >= f64::from(lane) {
            format!(
                "about 2^{bits:.1}, {from}: past the exact pass's 2^{lane}, so {} run, priced below; --counts \
                 residues skips the exact pass",
                counted(self.forecast.runs, "pass", "passes")
            )
        } else {
            format!("about 2^{bits:.1}, {from}: within the exact pass's 2^{lane}")
        })
    }

    fn print(&self, out: &mut dyn Write) -> Result<()> {
        let counts = &self.counts;
        let carried = if counts.exact_first {
            format!("{}, 1 pass", counts.carried)
        } else {
            format!("{} a state, {}", counts.carried, counted(counts.residue_passes, "pass", "passes"))
        };
        writeln!(out, "plan      {}: {} steps, {}-bit keys, {carried}", self.job, self.steps, self.key_bits)?;
        writeln!(out, "passes    {}", counts.line())?;
        if let Some(line) = self.count_line() {
            writeln!(out, "count     {line}")?;
        }
        let threads = counted(self.threads, "thread", "threads");
        let rate = grouped(self.states_per_second.round() as u64);
        if let Some(ladder) = &self.ladder {
            let seconds = self.probe_seconds;
            let read: u64 = ladder.rungs.iter().map(|rung| rung.states_read).sum();
            let [.., before, last] = &ladder.rungs[..] else { unreachable!("a ladder has two rungs") };
            writeln!(
                out,
                "probe     none of its steps: {}: {} states read in {seconds:.1} s in memory, {rate} states/s on \
                 {threads}; then {} on at {:.2} times the peak and {:.2} times the states read a size, as from {} \
                 to {}; the layers' shape is {}'s",
                ladder.source,
                grouped(read),
                counted(ladder.sizes_on, "size", "sizes"),
                ladder.peak_growth,
                ladder.read_growth,
                before.name,
                last.name,
                last.name
            )?;
        } else {
            let how = match &self.forecast.extrapolated {
                _ if self.probe_finished => "the whole sweep (the plan is exact)".to_string(),
                Some(guessed) => format!("then {guessed}"),
                None => "then predicted".to_string(),
            };
            writeln!(
                out,
                "probe     steps 1-{} run in {:.1} s, {how}; {:.2} bytes a state on disk, {rate} states/s on {threads}",
                self.probe_steps, self.probe_seconds, self.disk.probe_bytes_per_state,
            )?;
        }
        // A sweep without rows is one row: its steps say where.
        let rows = self.row_peaks.len() > 1;
        let at = if rows { format!(" (row {}, column {})", self.peak_row, self.peak_col) } else { String::new() };
        writeln!(out, "peak      {} states, read by step {}{at}", approx(self.peak_states as f64), self.peak_step)?;
        writeln!(out, "work      {} states read per pass", approx(self.expansions as f64))?;
        let held = self.forecast.memory_held;
        let roomy = if held > self.in_memory_bytes {
            format!(
                "; it holds {} there, keeping its tables from step to step while under a quarter of its limit",
                bytes(held)
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "memory    {} to count in memory at least (no --job-dir, one machine){roomy}",
            bytes(self.in_memory_bytes)
        )?;
        writeln!(out, "machine   {}", self.machine.line(self.in_memory_bytes, held))?;
        if rows {
            let peaks: Vec<String> = self.row_peaks.iter().map(|&s| approx(s as f64)).collect();
            writeln!(out, "rows      largest layer of each row: {}", peaks.join("  "))?;
        }
        writeln!(out, "disk      {}", self.disk.line(self.disk_bytes_per_state))?;
        for note in &self.notes {
            writeln!(out, "note      {note}")?;
        }
        writeln!(
            out,
            "out of core, --mem-limit {} per worker (suggested --buckets {}):",
            bytes(self.mem_per_worker),
            self.buckets
        )?;
        writeln!(
            out,
            "  {:>7}  {:>16}  {:>7}  {:>16}  {:>10}  {:>10}  {:>14}",
            "workers", "disk per worker", "spills", "sent per worker", "shuffle", "of it link", "time per pass"
        )?;
        for cost in &self.costs {
            let cluster = |figure: String| if cost.workers > 1 { figure } else { "-".into() };
            writeln!(
                out,
                "  {:>7}  {:>16}  {:>7}  {:>16}  {:>10}  {:>10}  {:>14}",
                cost.workers,
                bytes(cost.disk_per_worker),
                if cost.spills { "yes" } else { "no" },
                cluster(bytes(cost.sent_bytes_per_worker.round() as u64)),
                cluster(duration(cost.shuffle_seconds_per_pass)),
                cluster(duration(cost.link_seconds_per_pass)),
                duration(cost.seconds_per_pass)
            )?;
        }
        if let (Some(disk), Some(fits)) = (self.disk_per_worker, self.fits) {
            let verdict = if fits { "fits" } else { "does not fit" };
            let needed = match self.workers_needed {
                Some(n) => counted(n, "such worker holds it", "such workers hold it"),
                None => format!("not even {MOST_WORKERS} such workers hold it"),
            };
            writeln!(
                out,
                "verdict   {} with {} of disk each: {verdict}; {needed}",
                counted(self.workers, "worker", "workers"),
                bytes(disk)
            )?;
        }
        writeln!(
            out,
            "(times: every worker as fast as this machine at the probe's rate; time per pass includes the shuffle: \
             {:.3} us a state read on each worker and {:.1} bytes a record sent ({:.2} a word), measured on \
             workers linked at 1 Gbit/s, 100 Mbit/s and 10 Mbit/s, over {} {} link each way, counted where it \
             outlasts a step's work; how far to trust the prediction: docs/FLAGSHIP.md)",
            estimate::SHUFFLE_SECONDS_PER_STATE * 1e6,
            self.wire_bytes_per_record,
            WIRE_BYTES_PER_WORD,
            if self.link_given { "a" } else { "an assumed" },
            self.link,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_options_are_taken_wherever_they_stand() {
        let args: Vec<OsString> = ["knight", "9x10", "--workers", "8", "--open", "--disk-per-worker=2TiB"]
            .into_iter()
            .map(OsString::from)
            .collect();
        let (plan, job) = split_args(args).unwrap();
        assert_eq!(plan.workers, 8);
        assert_eq!(plan.disk_per_worker, Some(2 << 40));
        assert_eq!(job, ["knight", "9x10", "--open"]);
    }

    #[test]
    fn figures_read_as_people_write_them() {
        assert_eq!(approx(999_999.0), "999,999");
        assert_eq!(approx(2.5e10), "2.50e10");
        assert_eq!(duration(90.0), "90 s");
        assert_eq!(duration(0.25), "0.2 s");
        assert_eq!(duration(86_400.0 * 3.0), "3.0 days");
    }
}
