//! Counting closed tours in the embedded mode: plan the sweep, run it on all cores in memory or
//! out of core in a job directory, log progress, print exact results.

use anyhow::{Context, Result};
use leaper_core::arith::Moduli;
use leaper_core::board::{BoardSize, Geometry, MoveSet};
use leaper_core::store::{MemoryStore, StateStore};
use leaper_core::tmx::{
    count_closed_tours, plan_moduli, run_sweep, StepReport, StoreHost, SweepConfig, SweepProgress, SweepReport,
};

use crate::cli::{ResumeArgs, TourArgs};
use crate::cluster::{ClusterHost, ClusterJob};
use crate::job::{JobDir, JobSpec};
use crate::output::{self, CountLine};
use crate::progress::Progress;

/// Which piece tours the board.
#[derive(Clone, Debug)]
pub enum Piece {
    Knight,
    Camel,
    Zebra,
    Custom(MoveSet),
}

impl Piece {
    pub fn moves(&self) -> MoveSet {
        match self {
            Piece::Knight => MoveSet::knight(),
            Piece::Camel => MoveSet::leaper(1, 3).expect("valid leaper"),
            Piece::Zebra => MoveSet::leaper(2, 3).expect("valid leaper"),
            Piece::Custom(moves) => moves.clone(),
        }
    }

    /// The name a job spec records.
    pub fn name(&self) -> &'static str {
        match self {
            Piece::Knight => "knight",
            Piece::Camel => "camel",
            Piece::Zebra => "zebra",
            Piece::Custom(_) => "tours",
        }
    }

    /// The piece a job spec names.
    pub fn from_name(name: &str, moves: MoveSet) -> Option<Self> {
        Some(match name {
            "knight" => Piece::Knight,
            "camel" => Piece::Camel,
            "zebra" => Piece::Zebra,
            "tours" => Piece::Custom(moves),
            _ => return None,
        })
    }

    /// The `problem` field of JSON output.
    pub fn problem(&self) -> String {
        match self {
            Piece::Knight => "knight".into(),
            Piece::Camel => "camel".into(),
            Piece::Zebra => "zebra".into(),
            Piece::Custom(moves) => format!("leaper:{moves}"),
        }
    }
}

/// The sweep that answers a request: frontier width, rows, and which lengths are reported.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Plan {
    pub width: usize,
    pub rows: usize,
    pub min_rows: usize,
    /// How the board of each reported length is named in the output.
    pub label_width: usize,
    pub transposed: bool,
}

impl Plan {
    /// A sweep runs along the second side; a single board along its longer side, so that the
    /// frontier is as narrow as possible.
    pub fn new(board: BoardSize, sweep: bool) -> Self {
        if sweep {
            Plan { width: board.width, rows: board.length, min_rows: 1, label_width: board.width, transposed: false }
        } else {
            let transposed = board.width > board.length;
            let (width, rows) = if transposed { (board.length, board.width) } else { (board.width, board.length) };
            Plan { width, rows, min_rows: rows, label_width: board.width, transposed }
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

/// How long a cluster job waits for a failed worker to come back before it stops.
const WORKER_PATIENCE: std::time::Duration = std::time::Duration::from_secs(600);

/// The memory budget of an out-of-core run when `--mem-limit` is not given.
const OUT_OF_CORE_MEM_LIMIT: u64 = 4 << 30;

/// `leaper knight|camel|zebra|tours ...`: a new count, in memory or in a new job directory.
pub fn run(piece: Piece, args: TourArgs) -> Result<()> {
    if let Some(path) = &args.bfile {
        output::check_writable(path)?;
    }
    args.cluster.check(args.job_dir.as_deref(), "the coordinator's checkpoints")?;
    match &args.job_dir {
        Some(dir) => {
            let mem_limit = args.mem_limit.unwrap_or(OUT_OF_CORE_MEM_LIMIT);
            let listener = crate::serve::bind(&args.cluster)?;
            let job = JobDir::create(dir, JobSpec::new(&piece, &args, mem_limit))?;
            run_job(piece, args, job, mem_limit, listener)
        }
        None => {
            let mem_limit = args.mem_limit.unwrap_or_else(crate::memory::default_in_memory_limit);
            let buckets = args.buckets as usize;
            let mut host = MemoryHost {
                new_store: |moduli: &Moduli| -> leaper_core::Result<Box<dyn StateStore>> {
                    Ok(Box::new(MemoryStore::new(buckets, moduli.clone(), mem_limit)))
                },
                progress: Progress::default(),
            };
            let config = sweep_config(&piece, &args);
            let _job = tracing::info_span!("job", job = %format!("{}-{}", piece.name(), args.board)).entered();
            let report =
                with_threads(args.threads, || count_closed_tours(&config, &mut host, SweepProgress::default()))??;
            log_finished(&report);
            report_counts(&piece, &args, &decimal(&report))
        }
    }
}

/// `leaper resume --job-dir DIR`: continues a job from its last committed step.
pub fn resume(resume: ResumeArgs) -> Result<()> {
    let job = JobDir::open(&resume.job_dir)?;
    let (piece, mut args) = job.spec().tour_args(&resume.job_dir)?;
    args.threads = resume.threads;
    if let Some(format) = resume.format {
        args.format = format;
    }
    if let Some(path) = &resume.bfile {
        args.bfile = Some(path.clone());
    }
    if let Some(path) = &args.bfile {
        output::check_writable(path)?;
    }
    if let Some(counts) = job.manifest().and_then(|m| m.result.clone()) {
        tracing::info!(job = %job.spec().id, "the job had finished; printing its counts");
        return report_counts(&piece, &args, &counts);
    }
    let mem_limit = resume.mem_limit.unwrap_or(job.spec().mem_limit);
    args.cluster.listen_instead(&resume)?;
    let listener = crate::serve::bind(&args.cluster)?;
    run_job(piece, args, job, mem_limit, listener)
}

/// Runs (or continues) an out-of-core job to the end, records and prints its counts.
fn run_job(
    piece: Piece,
    args: TourArgs,
    mut job: JobDir,
    mem_limit: u64,
    listener: Option<crate::serve::StatusListener>,
) -> Result<()> {
    let config = sweep_config(&piece, &args);
    let (_, passes) = plan_moduli(&config)?;
    job.plan(passes.len(), config.geometry.cells(), mem_limit);
    let start = job.start();
    let _job = tracing::info_span!("job", job = %job.spec().id).entered();
    let dir = args.job_dir.as_deref().context("an out-of-core job has a job directory")?;
    let _status = crate::serve::start(listener, dir)?;
    let report = if args.cluster.workers.is_empty() {
        with_threads(args.threads, || count_closed_tours(&config, &mut job, start))??
    } else {
        let credentials = args.cluster.credentials()?;
        let plan = ClusterJob {
            width: config.geometry.width,
            rows: config.geometry.rows,
            min_rows: config.min_rows,
            moves: config.geometry.moves.to_string(),
            buckets: args.buckets as usize,
            mem_limit,
            passes: passes.len(),
        };
        let mut host = ClusterHost::connect(&args.cluster.workers, &credentials, &mut job, plan, WORKER_PATIENCE)?;
        run_sweep(&config, &mut host, start)?
    };
    log_finished(&report);
    let counts = decimal(&report);
    job.finish(&counts)?;
    report_counts(&piece, &args, &counts)
}

/// The sweep that answers `args` for `piece`.
fn sweep_config(piece: &Piece, args: &TourArgs) -> SweepConfig {
    let plan = Plan::new(args.board, args.sweep);
    SweepConfig {
        geometry: Geometry::new(plan.width, plan.rows, piece.moves()),
        min_rows: plan.min_rows,
        spare_moduli: usize::from(args.verify),
        moduli_per_pass: args.moduli_per_pass.map(|n| n as usize),
    }
}

/// Runs `work` on `threads` threads (default: all cores), inside the caller's tracing span.
fn with_threads<T: Send>(threads: Option<usize>, work: impl FnOnce() -> T + Send) -> Result<T> {
    let span = tracing::Span::current();
    let work = move || span.in_scope(work);
    Ok(match threads {
        Some(threads) => rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .context("could not start the worker threads")?
            .install(work),
        None => work(),
    })
}

fn decimal(report: &SweepReport) -> Vec<(usize, String)> {
    report.counts.iter().map(|(rows, count)| (*rows, count.to_string())).collect()
}

fn log_finished(report: &SweepReport) {
    tracing::info!(
        step_seconds = format!("{:.2}", report.step_seconds),
        peak_states = report.peak_states,
        peak_layer_bytes = report.peak_bytes,
        states_processed = report.states_processed,
        moduli = report.moduli.len(),
        peak_rss = crate::memory::peak_rss_bytes().unwrap_or(0),
        "sweep finished"
    );
}

/// Prints `(rows, count)` pairs as the user asked, and writes the b-file if asked.
fn report_counts(piece: &Piece, args: &TourArgs, counts: &[(usize, String)]) -> Result<()> {
    let plan = Plan::new(args.board, args.sweep);
    let lines: Vec<CountLine> = counts
        .iter()
        .map(|(rows, count)| CountLine {
            problem: piece.problem(),
            board: plan.label(*rows),
            tours: "closed",
            count: count.clone(),
        })
        .collect();
    output::print_counts(&lines, args.format, args.sweep)?;
    if let Some(path) = &args.bfile {
        output::write_bfile(path, counts)?;
    }
    Ok(())
}

/// The in-memory host: a fresh store per pass, progress logs, no checkpoints.
struct MemoryHost<F> {
    new_store: F,
    progress: Progress,
}

impl<F: FnMut(&Moduli) -> leaper_core::Result<Box<dyn StateStore>>> StoreHost for MemoryHost<F> {
    fn store(&mut self, moduli: &Moduli, _progress: &SweepProgress) -> leaper_core::Result<Box<dyn StateStore>> {
        (self.new_store)(moduli)
    }

    fn observe(&mut self, step: &StepReport) {
        self.progress.step(step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_sweep_along_the_narrow_side_and_name_boards_as_written() {
        let plan = Plan::new("8x6".parse().unwrap(), false);
        assert_eq!((plan.width, plan.rows, plan.min_rows), (6, 8, 8));
        assert_eq!(plan.label(8), "8x6");
        let plan = Plan::new("6x8".parse().unwrap(), false);
        assert_eq!((plan.width, plan.rows, plan.min_rows), (6, 8, 8));
        assert_eq!(plan.label(8), "6x8");
        let plan = Plan::new("8x12".parse().unwrap(), true);
        assert_eq!((plan.width, plan.rows, plan.min_rows), (8, 12, 1));
        assert_eq!(plan.label(3), "8x3");
    }
}
