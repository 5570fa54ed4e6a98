//! Driving the transfer matrix over a whole board: one step per cell, all cores, any store.
//!
//! A step reads the buckets of the current layer in parallel (rayon). Each worker thread expands
//! its states, stages successors per target bucket and hands full stages to the store; counts of
//! closed cycles are summed per board length in thread-local accumulators.

use std::time::{Duration, Instant};

use rayon::prelude::*;
use rug::Integer;

use crate::arith::{exact_count, hamiltonian_cycle_bound_bits, Moduli};
use crate::board::Geometry;
use crate::error::{Error, Result};
use crate::frontier::StateKey;
use crate::store::{bucket_of, LayerSummary, StateStore};
use crate::tmx::TransferMatrix;

/// Successors staged per target bucket before they are handed to the store.
const STAGE: usize = 256;

/// What to count.
#[derive(Clone, Debug)]
pub struct SweepConfig {
    /// Board width (the frontier side) and the longest length.
    pub geometry: Geometry,
    /// The shortest length wanted: counts come out for `min_rows..=geometry.rows`. A single
    /// board sets it to `geometry.rows`, which lets the engine prune harder.
    pub min_rows: usize,
    /// Extra moduli that cross-check the reconstruction (`--verify` uses 1).
    pub spare_moduli: usize,
    /// Moduli per pass; fewer per pass means less memory per state and more passes.
    pub moduli_per_pass: Option<usize>,
}

/// Progress of one step, for logs and benchmarks.
#[derive(Clone, Debug)]
pub struct StepReport {
    pub pass: usize,
    pub passes: usize,
    pub cell: usize,
    pub cells: usize,
    pub width: usize,
    pub rows: usize,
    pub row: usize,
    pub col: usize,
    pub states_in: u64,
    pub states_emitted: u64,
    pub layer: LayerSummary,
    pub elapsed: Duration,
}

/// The result of a sweep.
#[derive(Clone, Debug)]
pub struct SweepReport {
    /// `(rows, count)` for each length `min_rows..=rows`.
    pub counts: Vec<(usize, Integer)>,
    pub moduli: Moduli,
    pub peak_states: u64,
    pub peak_bytes: u64,
    pub states_processed: u64,
    pub elapsed: Duration,
}

/// Counts closed tours for every length `min_rows..=rows` of `config.geometry`. `new_store` makes the
/// store for one pass from the moduli of that pass; `observe` sees every step.
pub fn count_closed_tours(
    config: &SweepConfig,
    new_store: &mut dyn FnMut(&Moduli) -> Result<Box<dyn StateStore>>,
    observe: &mut dyn FnMut(&StepReport),
) -> Result<SweepReport> {
    let started = Instant::now();
    let geometry = &config.geometry;
    let min_rows = config.min_rows.clamp(1, geometry.rows.max(1));
    let matrix = TransferMatrix::new(geometry.clone(), min_rows)?;
    let bound_bits = (min_rows..=geometry.rows)
        .map(|rows| hamiltonian_cycle_bound_bits(&Geometry::new(geometry.width, rows, geometry.moves.clone())))
        .fold(0.0, f64::max);
    let moduli = Moduli::covering(bound_bits, config.spare_moduli)?;
    let passes = moduli.passes(config.moduli_per_pass.unwrap_or(moduli.len()));
    tracing::info!(
        board = %format!("{}x{}", geometry.width, geometry.rows),
        moves = %geometry.moves,
        window = matrix.codec().len(),
        bound_bits = format!("{bound_bits:.1}"),
        moduli = moduli.len(),
        passes = passes.len(),
        "sweep planned"
    );

    let mut residues: Vec<Vec<u64>> = vec![Vec::with_capacity(moduli.len()); geometry.rows + 1];
    let (mut peak_states, mut peak_bytes, mut processed) = (0u64, 0u64, 0u64);
    for (pass, pass_moduli) in passes.iter().enumerate() {
        let mut store = new_store(pass_moduli)?;
        let totals = run_pass(&matrix, pass_moduli, store.as_mut(), &mut |mut report| {
            report.pass = pass;
            report.passes = passes.len();
            peak_states = peak_states.max(report.layer.states);
            peak_bytes = peak_bytes.max(report.layer.bytes);
            processed += report.states_in;
            observe(&report);
        })?;
        for (rows, pass_residues) in totals.into_iter().enumerate() {
            residues[rows].extend(pass_residues);
        }
    }

    let counts = (min_rows..=geometry.rows)
        .map(|rows| {
            let board = format!("{}x{}", geometry.width, rows);
            Ok((rows, exact_count(&moduli, &residues[rows], config.spare_moduli, &board)?))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(SweepReport { counts, moduli, peak_states, peak_bytes, states_processed: processed, elapsed: started.elapsed() })
}

/// One pass over the board with one set of moduli: residues of the count for each length.
fn run_pass(
    matrix: &TransferMatrix,
    moduli: &Moduli,
    store: &mut dyn StateStore,
    observe: &mut dyn FnMut(StepReport),
) -> Result<Vec<Vec<u64>>> {
    let geometry = matrix.geometry();
    let start = matrix.start_key();
    let mut seed = vec![start];
    seed.extend(moduli.one());
    store.emit(bucket_of(start, store.buckets()), &seed)?;
    let mut layer = store.finish_step()?;
    let mut totals = vec![vec![0u64; moduli.len()]; geometry.rows + 1];
    for cell in 0..geometry.cells() {
        if layer.states == 0 {
            break;
        }
        let step_started = Instant::now();
        let step = run_step(matrix, cell, moduli, store, geometry.rows)?;
        for (total, closed) in totals.iter_mut().zip(step.closed.chunks(moduli.len())) {
            moduli.add_assign(total, closed);
        }
        let states_in = layer.states;
        layer = store.finish_step()?;
        observe(StepReport {
            pass: 0,
            passes: 1,
            cell,
            cells: geometry.cells(),
            width: geometry.width,
            rows: geometry.rows,
            row: cell / geometry.width,
            col: cell % geometry.width,
            states_in,
            states_emitted: step.emitted,
            layer,
            elapsed: step_started.elapsed(),
        });
    }
    Ok(totals)
}

/// Per-thread state of a step: staged successors and closed-cycle sums.
struct Expander {
    /// Per target bucket, records (key, then residues) waiting to be handed to the store.
    stages: Vec<Vec<u64>>,
    /// Residues of closed cycles, `(rows + 1) * width`, indexed by board length.
    closed: Vec<u64>,
    emitted: u64,
}

struct StepTotals {
    closed: Vec<u64>,
    emitted: u64,
}

fn run_step(
    matrix: &TransferMatrix,
    cell: usize,
    moduli: &Moduli,
    store: &dyn StateStore,
    rows: usize,
) -> Result<StepTotals> {
    let buckets = store.buckets();
    let width = moduli.len();
    let new_expander = || Expander {
        stages: (0..buckets).map(|_| Vec::with_capacity(STAGE * (1 + width))).collect(),
        closed: vec![0; (rows + 1) * width],
        emitted: 0,
    };
    (0..buckets)
        .into_par_iter()
        .try_fold(new_expander, |mut expander, bucket| -> Result<Expander> {
            store.read_bucket(bucket, &mut |keys, residues| {
                expand_chunk(matrix, cell, moduli, store, &mut expander, keys, residues)
            })?;
            Ok(expander)
        })
        .map(|expander| {
            let mut expander = expander?;
            for (bucket, stage) in expander.stages.iter_mut().enumerate() {
                if !stage.is_empty() {
                    store.emit(bucket, stage)?;
                    stage.clear();
                }
            }
            Ok(StepTotals { closed: expander.closed, emitted: expander.emitted })
        })
        .try_reduce(
            || StepTotals { closed: vec![0; (rows + 1) * width], emitted: 0 },
            |mut a, b| {
                for (x, y) in a.closed.chunks_mut(width).zip(b.closed.chunks(width)) {
                    moduli.add_assign(x, y);
                }
                a.emitted += b.emitted;
                Ok(a)
            },
        )
}

fn expand_chunk(
    matrix: &TransferMatrix,
    cell: usize,
    moduli: &Moduli,
    store: &dyn StateStore,
    expander: &mut Expander,
    keys: &[StateKey],
    residues: &[u64],
) -> Result<()> {
    let width = moduli.len();
    let buckets = store.buckets();
    let Expander { stages, closed, emitted } = expander;
    let mut failure: Option<Error> = None;
    for (i, &key) in keys.iter().enumerate() {
        let counts = &residues[i * width..(i + 1) * width];
        matrix.expand(
            cell,
            key,
            &mut |child| {
                *emitted += 1;
                let bucket = bucket_of(child, buckets);
                let stage = &mut stages[bucket];
                stage.push(child);
                stage.extend_from_slice(counts);
                if stage.len() >= STAGE * (1 + width) {
                    if let Err(e) = store.emit(bucket, stage) {
                        failure.get_or_insert(e);
                    }
                    stage.clear();
                }
            },
            &mut |rows| moduli.add_assign(&mut closed[rows * width..(rows + 1) * width], counts),
        );
        if let Some(e) = failure.take() {
            return Err(e);
        }
    }
    Ok(())
}
