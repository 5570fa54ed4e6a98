//! A stream of counts: a problem's input that asks for one count per item (a graph6 file of
//! many graphs, `geng 6 | leaper graph -`), each an ordinary request, counted and printed in
//! the input's order, one after another, as each would be alone.
//!
//! ```text
//! items:   line 1 (4 vertices)  line 2 (4)  line 3 (60 vertices)  line 4 (5)
//!          └──── small: counted together ──┘ large: run::start     small ...
//!          in parallel, printed in order      (notes, progress)
//! stdout:  0 / 1 / 3                          <its count>           ...
//! ```
//!
//! Small counts ([`SMALL_STEPS`] steps or fewer: a graph of that many vertices) are gathered
//! in batches of up to [`BATCH`], counted in parallel in memory ([`sweep::count_quietly`]) and
//! printed in order once the batch is done, with no notes or display for each; a count the
//! problem proves 0 is printed without counting, as alone (`--count-anyway` counts it). A large
//! count runs alone, as `run::start` runs any count, after every line before it is printed.
//! The first item that does not read ends the stream with its error, after the lines before it.

use anyhow::Result;
use leaper_core::engine::jobdir::JobKind;
use leaper_core::engine::problem::Params;
use leaper_core::engine::{Job, Printing};
use rayon::prelude::*;

use crate::request::{JobRequest, RunArgs, StreamRequest};
use crate::settings::SweepSettings;
use crate::{console, interrupt, sweep};

/// The most steps (a graph's vertices) of a count counted with others, in parallel.
pub const SMALL_STEPS: usize = 24;

/// The most small counts counted together before their lines are printed.
pub const BATCH: usize = 1024;

impl StreamRequest {
    /// Refuses what a stream cannot do: every count is in memory and printed as a line, so
    /// nothing that needs one job (a job directory, workers, a status service, a b-file).
    fn check(&self) -> Result<()> {
        let one_job = [
            (self.run.job_dir.is_some(), "--job-dir"),
            (!self.run.cluster.workers.is_empty(), "--workers"),
            (self.run.cluster.listen.is_some(), "--listen"),
            (self.sweep.as_ref().is_some_and(|s| s.bfile.is_some()), "--bfile"),
        ];
        if let Some((_, option)) = one_job.into_iter().find(|(given, _)| *given) {
            anyhow::bail!(
                "{option} is for one count, and the input is a stream of them (a graph6 or sparse6 file of several \
                 graphs, one a line), each counted in memory in turn: put a graph to count so in a file of its own"
            );
        }
        Ok(())
    }

    /// The request of one item, with the options every count shares.
    fn item(&self, params: Params) -> Result<JobRequest> {
        let mut request = JobRequest::new(self.problem, params, self.run.clone(), self.sweep.clone())?;
        if request.task.kind() == JobKind::Subtree {
            request.sweep = None;
        }
        Ok(request)
    }
}

/// Counts every item of `stream` in order and prints each one's result lines.
pub fn run(mut stream: StreamRequest) -> Result<()> {
    stream.check()?;
    let items = std::mem::replace(&mut stream.items, Box::new(std::iter::empty()));
    let mut batch: Vec<(JobRequest, Job)> = Vec::new();
    let mut counted = 0usize;
    for params in items {
        let request = match params.map_err(anyhow::Error::from).and_then(|params| stream.item(params)) {
            Ok(request) => request,
            Err(error) => {
                count_batch(&mut batch, &stream.run)?;
                return Err(error);
            }
        };
        counted += 1;
        let job = match request.task.job() {
            Ok(job) => job,
            // As a line that does not read: the lines before it first.
            Err(error) => {
                count_batch(&mut batch, &stream.run)?;
                return Err(error.into());
            }
        };
        match &job {
            Job::Sweep(sweep) if sweep.steps() <= SMALL_STEPS => {
                batch.push((request, job));
                if batch.len() == BATCH {
                    count_batch(&mut batch, &stream.run)?;
                }
            }
            _ => {
                count_batch(&mut batch, &stream.run)?;
                drop(job);
                crate::run::start(request)?;
            }
        }
    }
    count_batch(&mut batch, &stream.run)?;
    if stream.sweep.as_ref().is_some_and(|s| s.verify) {
        console::note("verified: every count was rebuilt from its moduli and agrees with one spare modulus");
    }
    console::note(&format!("{counted} counts, one a line of the input, in its order"));
    Ok(())
}

/// Counts the small counts of `batch` in parallel and prints their lines in order; empties it.
/// The first that fails is the error, after the lines before it.
fn count_batch(batch: &mut Vec<(JobRequest, Job)>, run: &RunArgs) -> Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let _counting = interrupt::counting_in_memory();
    let lines: Vec<Result<Vec<u8>>> = crate::machine::with_threads(run.threads, || {
        batch.par_iter().map(|(request, job)| lines_of(request, job)).collect()
    })?;
    batch.clear();
    let mut failed = None;
    console::results(|out| {
        for lines in lines {
            match lines {
                Ok(lines) => out.write_all(&lines)?,
                Err(error) => {
                    failed = Some(error);
                    break;
                }
            }
        }
        Ok(())
    })?;
    failed.map_or(Ok(()), Err)
}

/// The result lines of one small count, as it prints them alone.
fn lines_of(request: &JobRequest, job: &Job) -> Result<Vec<u8>> {
    let Job::Sweep(sweep) = job else { anyhow::bail!("a small count of a stream is a sweep") };
    let counts = match crate::run::proved_zero(job, request) {
        Some(zeros) => zeros,
        None => sweep::count_quietly(sweep.as_ref(), &SweepSettings::resolve(sweep.as_ref(), request)?)?,
    };
    let verified = request.sweep.as_ref().is_some_and(|s| s.verify);
    let printing = Printing { format: request.run.format, verified };
    let mut lines = Vec::new();
    request.task.print(&counts, printing, &mut lines)?;
    Ok(lines)
}
