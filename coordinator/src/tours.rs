//! Counting closed tours in the embedded mode: plan the sweep, run it on all cores with the
//! in-memory store, log progress, print exact results.

use std::time::Instant;

use anyhow::{Context, Result};
use leaper_core::arith::Moduli;
use leaper_core::board::{BoardSize, Geometry, MoveSet};
use leaper_core::store::{DiskStore, MemoryStore, StateStore};
use leaper_core::tmx::{count_closed_tours, StepReport, SweepConfig};

use crate::cli::TourArgs;
use crate::output::{self, CountLine};

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
#[derive(Clone, Debug, PartialEq, Eq)]
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

pub fn run(piece: Piece, args: TourArgs) -> Result<()> {
    if let Some(path) = &args.bfile {
        output::check_writable(path)?;
    }
    let plan = Plan::new(args.board, args.sweep);
    let geometry = Geometry::new(plan.width, plan.rows, piece.moves());
    let config = SweepConfig {
        geometry,
        min_rows: plan.min_rows,
        spare_moduli: usize::from(args.verify),
        moduli_per_pass: args.moduli_per_pass.map(|n| n as usize),
    };
    let buckets = args.buckets as usize;
    if let Some(dir) = &args.job_dir {
        check_job_dir(dir)?;
    }
    let job_dir = args.job_dir.clone();
    let mem_limit = match (args.mem_limit, &job_dir) {
        (Some(limit), _) => limit,
        (None, Some(_)) => 4 << 30,
        (None, None) => crate::memory::default_in_memory_limit(),
    };
    let mut new_store = |moduli: &Moduli| -> leaper_core::Result<Box<dyn StateStore>> {
        Ok(match &job_dir {
            Some(dir) => Box::new(DiskStore::create(dir, buckets, moduli.clone(), mem_limit)?),
            None => Box::new(MemoryStore::new(buckets, moduli.clone(), mem_limit)),
        })
    };
    let _job = tracing::info_span!("job", problem = %piece.problem(), board = %args.board).entered();
    let started = Instant::now();
    let mut progress = Progress::default();
    let mut sweep = || count_closed_tours(&config, &mut new_store, &mut |step| progress.step(step));
    let report = match args.threads {
        Some(threads) => rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .context("could not start the worker threads")?
            .install(sweep),
        None => sweep(),
    }?;
    tracing::info!(
        seconds = format!("{:.2}", started.elapsed().as_secs_f64()),
        peak_states = report.peak_states,
        peak_layer_bytes = report.peak_bytes,
        states_processed = report.states_processed,
        moduli = report.moduli.len(),
        peak_rss = crate::memory::peak_rss_bytes().unwrap_or(0),
        "sweep finished"
    );

    let problem = piece.problem();
    let lines: Vec<CountLine> = report
        .counts
        .iter()
        .map(|(rows, count)| CountLine {
            problem: problem.clone(),
            board: plan.label(*rows),
            tours: "closed",
            count: count.to_string(),
        })
        .collect();
    output::print_counts(&lines, args.format, args.sweep)?;
    if let Some(path) = &args.bfile {
        let rows: Vec<(usize, String)> = report.counts.iter().map(|(n, c)| (*n, c.to_string())).collect();
        output::write_bfile(path, &rows)?;
    }
    Ok(())
}

/// An out-of-core run needs a directory of its own: refuse one that holds files already, so
/// that nothing of another run is overwritten or deleted.
fn check_job_dir(dir: &std::path::Path) -> Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                anyhow::bail!(
                    "job directory {} is not empty; give each run a fresh directory (resuming a run is not \
                     supported yet)",
                    dir.display()
                );
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(anyhow::anyhow!("cannot use job directory {}: {e}", dir.display())),
    }
}

/// Turns step reports into log lines: one debug event per cell, one info event per row.
#[derive(Default)]
struct Progress {
    row_started: Option<Instant>,
    row_states: u64,
}

impl Progress {
    fn step(&mut self, step: &StepReport) {
        let started = *self.row_started.get_or_insert_with(|| Instant::now() - step.elapsed);
        self.row_states += step.states_in;
        let rate = step.states_in as f64 / step.elapsed.as_secs_f64().max(1e-9);
        tracing::debug!(
            pass = step.pass,
            cell = step.cell,
            row = step.row,
            col = step.col,
            states_in = step.states_in,
            states_out = step.layer.states,
            emitted = step.states_emitted,
            bytes = step.layer.bytes,
            rate = rate as u64,
            peak_rss = crate::memory::peak_rss_bytes().unwrap_or(0),
            "step"
        );
        if step.col + 1 == step.width || step.layer.states == 0 {
            let seconds = started.elapsed().as_secs_f64().max(1e-9);
            tracing::info!(
                pass = format!("{}/{}", step.pass + 1, step.passes),
                row = format!("{}/{}", step.row + 1, step.rows),
                states = step.layer.states,
                bytes = step.layer.bytes,
                rate = (self.row_states as f64 / seconds) as u64,
                seconds = format!("{seconds:.2}"),
                peak_rss = crate::memory::peak_rss_bytes().unwrap_or(0),
                "row done"
            );
            self.row_started = None;
            self.row_states = 0;
        }
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
