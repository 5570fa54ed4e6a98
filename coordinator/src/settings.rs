//! A sweep's settings, resolved once from its request where the command line (or a job's
//! spec) has been read, then passed down: the counting options and the passes they plan, the
//! buckets, the memory limits, the threads. Below `run`, `plan` and `stream`, nothing works
//! them out from the request again.
//!
//! ```text
//! leaper knight 9x8 --sweep --verify --job-dir J
//!   options   spare 1, route automatic, every modulus in one pass
//!   plan      an exact pass, 64 or 128 bits wide as the board's bound asks, with a spare
//!             residue; then residue passes, run only if a count saturates the lane
//!   buckets   503 (--buckets)
//!   memory    4 GiB out of core (--mem-limit, or OUT_OF_CORE_MEM_LIMIT with a job directory;
//!             without one a share of this machine's memory, and the same on going out of core)
//!   threads   all cores (--threads)
//! ```
//!
//! A request changed later (a count that outgrows memory goes on in a job directory of its
//! own) is another request, resolved again.

use anyhow::{Context, Result};
use leaper_core::engine::sweep::{plan_moduli, SweepOptions, SweepPlan, SweepProgress};
use leaper_core::engine::{Job, SweepJob};

use crate::request::JobRequest;

/// What a sweep counts with, worked out once.
pub struct SweepSettings {
    pub options: SweepOptions,
    /// The passes `options` plan for this job: a count no number of moduli carries is refused
    /// when the settings are resolved, before anything is written.
    pub plan: SweepPlan,
    pub buckets: usize,
    /// The memory the count may hold here: `--mem-limit`, or by default out of core (with a job
    /// directory) `OUT_OF_CORE_MEM_LIMIT`, in memory a share of this machine's memory. An
    /// in-memory count that outgrows it goes on out of core with the same limit.
    pub mem_limit: u64,
    pub in_memory_limit: u64,
    pub out_of_core_limit: u64,
    pub threads: Option<usize>,
}

impl SweepSettings {
    /// The settings of `request`'s sweep of `job`.
    pub fn resolve(job: &dyn SweepJob, request: &JobRequest) -> Result<SweepSettings> {
        let args = request.sweep.as_ref().context("a sweep request carries the store's options")?;
        let options = SweepOptions {
            spare_moduli: usize::from(args.verify),
            moduli_per_pass: args.moduli_per_pass.map(|n| n as usize),
            counts: args.counts.route(),
        };
        let plan = plan_moduli(job, &options)?;
        let (in_memory_limit, out_of_core_limit) = (args.in_memory_limit(), args.out_of_core_limit());
        Ok(SweepSettings {
            options,
            plan,
            buckets: args.buckets as usize,
            mem_limit: if request.run.job_dir.is_some() { out_of_core_limit } else { in_memory_limit },
            in_memory_limit,
            out_of_core_limit,
            threads: request.run.threads,
        })
    }

    /// The settings of `job` if it is a sweep (`None` for a subtree job).
    pub fn of(job: &Job, request: &JobRequest) -> Result<Option<SweepSettings>> {
        match job {
            Job::Sweep(sweep) => Ok(Some(SweepSettings::resolve(sweep.as_ref(), request)?)),
            Job::Subtree(_) => Ok(None),
        }
    }

    /// Refuses a memory limit too small for the out-of-core store of `job` counted here (a
    /// cluster's stores are its workers'), whether it starts out of core or may go there after
    /// outgrowing its limit in memory.
    fn check_mem_limit(&self, job: &dyn SweepJob, request: &JobRequest) -> Result<()> {
        if !request.run.cluster.workers.is_empty() {
            return Ok(());
        }
        // The passes that run for certain: an exact pass alone, unless a count reaches 2^64 - 1
        // (then the residue passes' stores, of wider records, are the store's to refuse).
        let certain = &self.plan.passes[..self.plan.passes_to_run(job, &SweepProgress::default())];
        let in_memory = request.run.job_dir.is_none();
        crate::memory::check_out_of_core(job, certain, self.buckets, self.threads, self.mem_limit, in_memory)
    }
}

/// Everything `request` for `job` can be refused for before anything is written: its options
/// ([`JobRequest::check`]), a count no number of moduli carries (resolving the settings), a
/// memory limit too small for the job's store. Returns the sweep's settings (`None` for a
/// subtree job).
pub fn checked(job: &Job, request: &JobRequest) -> Result<Option<SweepSettings>> {
    request.check()?;
    let settings = SweepSettings::of(job, request)?;
    if let (Job::Sweep(sweep), Some(settings)) = (job, &settings) {
        settings.check_mem_limit(sweep.as_ref(), request)?;
    }
    Ok(settings)
}
