//! Running a request, new or resumed: check it, make (or open) its job directory, serve its
//! status if asked, hand it to the runner of its kind, print what it counted.
//!
//! ```text
//! JobRequest ──► task.job() ──► Job::Sweep(sweep)     ──► sweep::run   ──┐
//!                           └─► Job::Subtree(search) ──► subtree::run ──┴─► ResultStream
//! ```

use std::path::PathBuf;

use anyhow::{Context, Result};
use leaper_core::engine::jobdir::checkpoints::SweepCheckpoints;
use leaper_core::engine::jobdir::{JobDir, JobFile, Manifest};
use leaper_core::engine::Job;

use crate::cli::ResumeArgs;
use crate::request::JobRequest;
use crate::results::ResultStream;
use crate::settings::{self, SweepSettings};
use crate::sweep::Layers;
use crate::{console, interrupt, serve, subtree, sweep};

/// A new count: in memory, or in a new job directory.
pub fn start(mut request: JobRequest) -> Result<()> {
    // The parameters are checked (a board too wide, an unknown family, a count no number of
    // moduli can carry), and the options against them, before anything is written.
    let job = request.task.job()?;
    let settings = settings::checked(&job, &request)?;
    // Counts proved 0 are printed with their reasons, and nothing is counted or written.
    if let Some(zeros) = proved_zero(&job, &request) {
        let results = ResultStream::new(&request);
        results.say_why_zero();
        console::note("nothing was counted: every count is 0 for the reasons above (--count-anyway counts)");
        return results.finish(&zeros);
    }
    // A count that will not fit this machine says so; an enumeration that cannot finish stops.
    let forecast = crate::preflight::check(&job, &request, settings.as_ref())?;
    let Some(dir) = request.run.job_dir.clone() else {
        let _span = tracing::info_span!("job", job = %request.task.command_line()).entered();
        let _counting = interrupt::counting_in_memory();
        let mut results = ResultStream::new(&request);
        results.say_why_zero();
        let counts = match (job, &settings) {
            (Job::Sweep(sweep), Some(settings)) => {
                match sweep::run(sweep.as_ref(), &request, settings, Layers::InMemory, &mut results) {
                    Ok(counts) => counts,
                    Err(error) => {
                        let Some((held, limit)) = outgrew_memory(&error) else { return Err(error) };
                        drop(_span);
                        return go_out_of_core(Job::Sweep(sweep), &request, results, held, limit);
                    }
                }
            }
            (Job::Subtree(search), _) => subtree::run(search, &request, None)?,
            (Job::Sweep(_), None) => unreachable!("a sweep's settings are resolved with its job"),
        };
        return results.finish(&counts);
    };
    let listener = serve::bind(&request.run.cluster)?;
    let spec = request.spec(&job)?;
    let results = ResultStream::new(&request);
    results.say_why_zero();
    let _counting = interrupt::starting_in(&dir);
    let directory = JobDir::create(&dir, spec)?;
    if let Some(forecast) = forecast {
        // `leaper status` shows it beside the run's own figures.
        forecast.save(directory.path())?;
    }
    run_in(directory, (job, settings), &request, listener, results, false)
}

/// The counts of a sweep whose every reported count a reason proves 0 before counting (a board
/// whose colours cannot alternate, a disconnected graph): each `0`, unless `--count-anyway`.
/// `knight 7x9` or `knight 8x8 --remove a1,h8` need not read a state to print 0.
pub(crate) fn proved_zero(job: &Job, request: &JobRequest) -> Option<Vec<(usize, String)>> {
    let Job::Sweep(sweep) = job else { return None };
    if request.sweep.as_ref().is_none_or(|s| s.count_anyway) {
        return None;
    }
    let proved: std::collections::HashSet<usize> = request.task.reasons().into_iter().map(|(slot, _)| slot).collect();
    let reported: Vec<usize> = sweep.reported().collect();
    reported.iter().all(|slot| proved.contains(slot)).then(|| reported.iter().map(|&slot| (slot, "0".into())).collect())
}

/// The bytes held and the limit, if an in-memory count stopped because its layers outgrew the
/// memory limit.
fn outgrew_memory(error: &anyhow::Error) -> Option<(u64, u64)> {
    match error.downcast_ref::<leaper_core::Error>() {
        Some(&leaper_core::Error::MemoryLimit { held, limit }) => Some((held, limit)),
        _ => None,
    }
}

/// A count without a job directory whose layers outgrew memory starts again out of core on its
/// own, with the same memory budget, in a new job directory named after it in the working
/// directory (`leaper-knight-8x8`, or `-2`, `-3`, ... when taken), and says so: if this run is
/// interrupted, `leaper resume` goes on from its last step. Counts already printed are not
/// printed again. The directory exists only for that resume: a finished count removes it.
fn go_out_of_core(job: Job, request: &JobRequest, results: ResultStream, held: u64, limit: u64) -> Result<()> {
    let stem = format!("leaper-{}", request.task.id_stem());
    let dir = (1..)
        .map(|n| if n == 1 { PathBuf::from(&stem) } else { PathBuf::from(format!("{stem}-{n}")) })
        .find(|dir| !dir.exists())
        .expect("some name is free");
    let mut request = request.clone();
    request.run.job_dir = Some(dir.clone());
    if let Some(sweep) = &mut request.sweep {
        // The in-memory budget, not the out-of-core default: the machine's memory is the limit.
        sweep.mem_limit = Some(sweep.in_memory_limit());
    }
    let spec = request.spec(&job)?;
    // Another request than the one that outgrew memory (a job directory now): its own settings.
    let settings = SweepSettings::of(&job, &request)?;
    let _counting = interrupt::starting_in(&dir);
    let directory = JobDir::create(&dir, spec)?;
    console::warn(&format!(
        "the layers held in memory reached {}, over the memory limit of {}; counting again \
         out of core in the job directory {} (if this run stops, `leaper resume --job-dir {}` goes on \
         from its last step; a finished count removes the directory)",
        crate::numbers::bytes(held),
        crate::numbers::bytes(limit),
        dir.display(),
        dir.display()
    ));
    let listener = serve::bind(&request.run.cluster)?;
    run_in(directory, (job, settings), &request, listener, results, false)?;
    std::fs::remove_dir_all(&dir)
        .with_context(|| format!("{}: the count is done but its job directory was not removed", dir.display()))
}

/// `leaper resume --job-dir DIR`: the request the job recorded, with this run's overrides.
pub fn resume(args: ResumeArgs) -> Result<()> {
    let directory = JobDir::open(&args.job_dir)?;
    let mut request = JobRequest::from_spec(directory.spec(), &args.job_dir)?;
    if args.workers.is_none() {
        if let Some(moved) = checkpoint_workers(&args.job_dir, &request) {
            console::note(&format!(
                "the job's workers moved: going on with the last checkpoint's, {}",
                moved.join(",")
            ));
            request.run.cluster.workers = moved;
        }
    }
    args.apply(&mut request)?;
    let job = request.task.job()?;
    let settings = settings::checked(&job, &request)?;
    let listener = serve::bind(&request.run.cluster)?;
    let results = ResultStream::new(&request);
    results.say_why_zero();
    run_in(directory, (job, settings), &request, listener, results, true)
}

/// The addresses of the last checkpoint's workers where a resume with `--workers` moved them
/// from those `job.toml` names: the resumes after it go on with them. A manifest that does not
/// read says nothing here: the resume itself refuses it, with the way back.
fn checkpoint_workers(dir: &std::path::Path, request: &JobRequest) -> Option<Vec<String>> {
    let manifest = Manifest::load(dir).ok().flatten()?;
    let addresses: Vec<String> = manifest.workers.iter().map(|worker| worker.address.clone()).collect();
    (!addresses.is_empty() && addresses != request.run.cluster.workers).then_some(addresses)
}

/// Runs (or, `resuming`, continues) a job in its directory to the end and prints its counts.
/// Nothing here may fail before the match below: a new job's directory is removed there.
fn run_in(
    directory: JobDir,
    (job, settings): (Job, Option<SweepSettings>),
    request: &JobRequest,
    listener: Option<serve::StatusListener>,
    mut results: ResultStream,
    resuming: bool,
) -> Result<()> {
    let _span = tracing::info_span!("job", job = %directory.id()).entered();
    let status = serve::start(listener, directory.path());
    let _counting = interrupt::counting_in(directory.path(), resuming, directory.created());
    let (counted, directory) = match (status, job, settings) {
        (Err(error), _, _) => (Err(error), directory),
        (Ok(_status), Job::Sweep(sweep), Some(settings)) => {
            let (buckets, mem_limit) = (settings.buckets, settings.out_of_core_limit);
            let mut checkpoints = if resuming {
                SweepCheckpoints::resume(directory, buckets, mem_limit)?
            } else {
                SweepCheckpoints::new(directory, buckets, mem_limit)
            };
            let layers = Layers::OutOfCore(&mut checkpoints);
            let counted = sweep::run(sweep.as_ref(), request, &settings, layers, &mut results);
            (counted, checkpoints.into_job())
        }
        (Ok(_status), Job::Subtree(search), _) => (subtree::run(search, request, Some(&directory)), directory),
        (Ok(_status), Job::Sweep(_), None) => unreachable!("a sweep's settings are resolved with its job"),
    };
    let Err(error) = counted else { return results.finish(&counted?) };
    let path = directory.path().to_path_buf();
    if !resuming {
        // A start that failed before it committed anything leaves nothing half-made.
        if let Err(cleanup) = directory.abandon() {
            tracing::warn!(dir = %path.display(), error = %cleanup, "could not remove the job that failed to start");
        }
    } else {
        drop(directory);
    }
    // Where a job is left to go on with (a resume, or a start that committed), a full disk
    // costs nothing committed: say how to go on.
    let disk_full = error.downcast_ref::<leaper_core::Error>().is_some_and(leaper_core::engine::jobdir::is_disk_full);
    if disk_full && path.join(JobFile::Spec.path()).exists() {
        return Err(anyhow::anyhow!(
            "{error:#}; the job's last committed checkpoint is intact: once there is room, continue with \
             `leaper resume --job-dir {}`",
            path.display()
        ));
    }
    Err(error)
}
