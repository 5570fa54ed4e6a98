//! The request: what to count and how, built once (from the command line for a new job, from
//! `job.toml` to resume one) and passed down unchanged to whatever runs it.
//!
//! ```text
//! leaper knight 6x8 --sweep --job-dir D     ──► JobRequest { problem: tours, params, task, run, sweep }
//! leaper resume --job-dir D   (D/job.toml)  ──► the same JobRequest, with this run's overrides
//! ```
//!
//! The problem's parameters are the problem's own (a TOML table, as `job.toml` records it and
//! workers receive it), read once into its [`Task`] when the request is built; the rest are the
//! engine's options, the same for every problem of a kind: [`RunArgs`] for every job,
//! [`SweepArgs`] for sweeps.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use leaper_core::engine::jobdir::manifest::Counted;
use leaper_core::engine::jobdir::{JobSpec, SpecHeader};
use leaper_core::engine::problem::Params;
use leaper_core::engine::sweep::CountRoute;
use leaper_core::engine::{Job, OutputFormat, Problem, Task};
use leaper_core::problems;
use leaper_proto::client::Credentials;
use serde::{Deserialize, Serialize};

use crate::output::Indexing;

/// The bound of `job`'s counts, in bits (0 for a search, which has none).
fn bound_bits(job: &Job) -> f64 {
    match job {
        Job::Sweep(sweep) => sweep.bound_bits(),
        Job::Subtree(_) => 0.0,
    }
}

/// A job, fully described.
#[derive(Clone)]
pub struct JobRequest {
    /// The problem (its name is recorded in the spec's header).
    pub problem: &'static dyn Problem,
    /// Its parameters, as recorded and sent to workers.
    pub params: Params,
    /// The parameters read: everything they decide (the job, its names, its printing).
    pub task: Arc<dyn Task>,
    pub run: RunArgs,
    /// The store's options; only sweeps have them.
    pub sweep: Option<SweepArgs>,
}

/// The body of a job's spec: the request but its problem, which the header names, and its task,
/// which the parameters give.
#[derive(Serialize, Deserialize)]
struct RecordedRequest {
    params: Params,
    run: RunArgs,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sweep: Option<SweepArgs>,
}

/// Options of every job.
#[derive(Clone, Debug, Default, PartialEq, Eq, Args, Serialize, Deserialize)]
pub struct RunArgs {
    /// text (the default), or json: one object per result.
    ///
    /// Output format: text (the default), or json: one JSON object per result line.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text, help_heading = "Output", hide_possible_values = true, hide_default_value = true)]
    #[serde(default)]
    pub format: OutputFormat,

    /// Threads (default: all cores; at most 1024).
    #[arg(long, value_parser = leaper_core::engine::limits::parse_threads, help_heading = "Out of core", hide_short_help = true)]
    #[serde(skip)]
    pub threads: Option<usize>,

    /// Run resumably in DIR (`leaper resume` after a crash).
    ///
    /// Run as a resumable job in DIR (created if missing; it must be empty): a sweep writes its
    /// layers to segment files and a checkpoint after every step, a search a ledger line per
    /// finished shard. `leaper resume --job-dir DIR` goes on from there.
    #[arg(long, value_name = "DIR", help_heading = "Out of core")]
    #[serde(skip)]
    pub job_dir: Option<PathBuf>,

    #[command(flatten)]
    #[serde(flatten)]
    pub cluster: ClusterArgs,
}

/// Options of a transfer-matrix sweep.
#[derive(Clone, Debug, PartialEq, Eq, Args, Serialize, Deserialize)]
pub struct SweepArgs {
    /// Also write an OEIS b-file (`n a(n)` a line).
    ///
    /// Also write the results as an OEIS b-file: `#` lines (program, version, command, date),
    /// then `n a(n)` per line, n the board length unless --stride or --offset renumber them.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bfile: Option<PathBuf>,

    /// Keep in the b-file only the rows whose n is a multiple of S, as n / S: the sequence
    /// "closed tours of 5 x 2n" is `knight 5x20 --sweep --bfile F --stride 2`.
    #[arg(long, value_name = "S", requires = "bfile", value_parser = parse_stride, help_heading = "Output", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stride: Option<usize>,

    /// Number the b-file's first row K, the next K + 1, and so on (default: n = length / S).
    #[arg(long, value_name = "K", requires = "bfile", help_heading = "Output", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,

    /// Check the exact counts against one spare modulus.
    ///
    /// Count with one spare modulus and check that the exact result agrees with it.
    #[arg(long, help_heading = "Counting")]
    #[serde(default)]
    pub verify: bool,

    /// exact (the default), exact64, exact128 or residues.
    ///
    /// How counts are carried: `exact` (the default), one pass of exact counts in the lane the
    /// bound calls for (64 bits, 8 bytes a state; 128 bits, 16 bytes, where the bound says the
    /// counts may pass 2^64), counting again with residues only if a count reaches the lane's
    /// cap; `exact64` or `exact128`, that lane whatever the bound; `residues`, residues from the
    /// start, for counts known to pass 2^128.
    #[arg(long, value_enum, default_value_t = Counts::Exact, help_heading = "Counting", hide_possible_values = true, hide_default_value = true)]
    #[serde(default = "Counts::recorded_before_exact")]
    pub counts: Counts,

    /// Count even where every count asked for is proved 0 before counting (the reasons are
    /// printed, and nothing is counted otherwise): to check the reasons themselves.
    #[arg(long, help_heading = "Counting", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub count_anyway: bool,

    /// Hash buckets per layer.
    #[arg(long, default_value_t = DEFAULT_BUCKETS, value_parser = clap::value_parser!(u32).range(1..=MOST_BUCKETS as i64), help_heading = "Out of core", hide_short_help = true)]
    pub buckets: u32,

    /// Moduli per counting pass: fewer means fewer bytes per state and more passes.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64), help_heading = "Counting", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moduli_per_pass: Option<u32>,

    /// Memory budget such as 2GiB (default: see --help).
    ///
    /// Memory budget, for example 2GiB or 512MiB. Out of core the default is 4GiB, and the peak
    /// resident size stays within the budget, 10% and a floor of 32 MiB (the program, its
    /// threads, pages of the layer files being read; measured on 1 to 8 threads); in memory it
    /// is 80% of the machine's RAM, and a count that needs more starts again out of core, with
    /// the same budget, in a job directory of its own (removed once it is done).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Out of core")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_limit: Option<u64>,
}

/// `--counts`: how a sweep carries its counts.
///
/// A new job's `job.toml` records the route the bound chose for `exact` (`exact64`,
/// `exact128` or `residues`), so that a resume counts in the lanes its layers hold whatever a
/// later release would choose; `exact` in a `job.toml` is what releases before the 128-bit lane
/// recorded, and means what it meant then ([`Counts::before_lanes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counts {
    /// Exact counts in the lane the bound calls for.
    Exact,
    /// Exact 64-bit counts, whatever the bound.
    #[value(name = "exact64")]
    #[serde(rename = "exact64")]
    Exact64,
    /// Exact 128-bit counts, whatever the bound.
    #[value(name = "exact128")]
    #[serde(rename = "exact128")]
    Exact128,
    Residues,
}

impl Counts {
    /// Jobs recorded before the exact pass existed counted with residues, and resume so.
    fn recorded_before_exact() -> Self {
        Counts::Residues
    }

    pub fn route(self) -> CountRoute {
        match self {
            Counts::Exact => CountRoute::Automatic,
            Counts::Exact64 => CountRoute::Exact64,
            Counts::Exact128 => CountRoute::Exact128,
            Counts::Residues => CountRoute::Residues,
        }
    }

    /// The counts a route resolved from the bound records.
    fn recorded(route: CountRoute) -> Self {
        match route {
            CountRoute::Automatic => Counts::Exact,
            CountRoute::Exact64 => Counts::Exact64,
            CountRoute::Exact128 => Counts::Exact128,
            CountRoute::Residues => Counts::Residues,
        }
    }

    /// What `exact` meant in a job recorded before the 128-bit lane: the exact 64-bit pass
    /// where the bound (`bound_bits`) asks for more than one modulus and `--verify` is off, the
    /// residue passes otherwise. Its layers and checkpoints are those of that route.
    fn before_lanes(bound_bits: f64, verify: bool) -> Self {
        let one_modulus = CountRoute::Automatic.resolved(bound_bits) == CountRoute::Residues;
        if verify || one_modulus {
            Counts::Residues
        } else {
            Counts::Exact64
        }
    }
}

impl SweepArgs {
    /// The memory a count in memory may hold: `--mem-limit`, or by default a share of this
    /// machine's memory ([`crate::memory::default_in_memory_limit`]).
    pub fn in_memory_limit(&self) -> u64 {
        self.mem_limit.unwrap_or_else(crate::memory::default_in_memory_limit)
    }

    /// The memory budget of an out-of-core store: `--mem-limit`, or [`OUT_OF_CORE_MEM_LIMIT`].
    pub fn out_of_core_limit(&self) -> u64 {
        self.mem_limit.unwrap_or(OUT_OF_CORE_MEM_LIMIT)
    }

    /// How the b-file numbers its rows (`--offset`, `--stride`).
    pub fn indexing(&self) -> Indexing {
        Indexing { offset: self.offset, stride: self.stride }
    }

    /// How these options carry the counts, as a finished job's manifest records it.
    pub fn counted(&self) -> Counted {
        let counts = match self.counts.to_possible_value() {
            Some(value) => value.get_name().to_string(),
            None => format!("{:?}", self.counts),
        };
        Counted { verified: self.verify, counts }
    }
}

/// A b-file's stride: a whole number of at least 1.
pub(crate) fn parse_stride(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("a stride of 0 keeps no length: it must be at least 1".into()),
        Ok(stride) => Ok(stride),
        Err(_) => Err(format!("{text:?} is not a whole number of at least 1")),
    }
}

/// How a job uses the network: its workers and how to reach them, and the status service it
/// serves. Recorded in the job spec, so that `resume` does the same.
#[derive(Clone, Debug, Default, PartialEq, Eq, Args, Serialize, Deserialize)]
pub struct ClusterArgs {
    /// Run the job on these workers (`host:port,...`, each a running `leaper-worker`). A sweep's
    /// worker order fixes which worker owns which buckets. Needs --job-dir and --token-file.
    /// `leaper plan` prices the same list.
    #[arg(long, value_name = "ADDR,...", value_delimiter = ',', help_heading = "Cluster", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<String>,

    /// File holding the token the workers share.
    #[arg(long, value_name = "FILE", help_heading = "Cluster", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_file: Option<PathBuf>,

    /// Reach the workers over TLS, trusting this CA certificate (PEM) that signed theirs.
    #[arg(long, value_name = "FILE", requires = "workers", help_heading = "Cluster", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_ca: Option<PathBuf>,

    /// Serve the job's status on this address (the Coordinator gRPC service) while it runs, for
    /// `leaper status --coordinator ADDR`. Needs --job-dir, and --token-file or
    /// --listen-token-file.
    #[arg(long, value_name = "ADDR", help_heading = "Cluster", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listen: Option<std::net::SocketAddr>,

    /// The token callers of --listen must send (default: --token-file). A token of their own
    /// lets people watch the job without being able to drive its workers.
    #[arg(long, value_name = "FILE", requires = "listen", help_heading = "Cluster", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listen_token_file: Option<PathBuf>,

    /// Serve --listen over TLS with this certificate chain (PEM). Needs --tls-key.
    #[arg(long, value_name = "FILE", requires_all = ["listen", "tls_key"], help_heading = "Cluster", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_cert: Option<PathBuf>,

    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert", help_heading = "Cluster", hide_short_help = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_key: Option<PathBuf>,
}

/// The memory budget of an out-of-core run when `--mem-limit` is not given.
pub const OUT_OF_CORE_MEM_LIMIT: u64 = 4 << 30;

/// A layer's hash buckets when `--buckets` is not given (a prime: keys spread evenly).
pub const DEFAULT_BUCKETS: u32 = 503;

/// The most buckets `--buckets` takes.
pub const MOST_BUCKETS: u32 = 1_000_000;

/// `path` made absolute, with its symbolic links resolved as far as it exists: two spellings of
/// one directory compare equal.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while std::fs::canonicalize(existing).is_err() {
        let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else { return absolute };
        rest.push(name);
        existing = parent;
    }
    let mut out = std::fs::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf());
    out.extend(rest.iter().rev());
    out
}

impl JobRequest {
    /// The request of `problem` with these parameters, read into its task (refused here if
    /// they do not read).
    pub fn new(problem: &'static dyn Problem, params: Params, run: RunArgs, sweep: Option<SweepArgs>) -> Result<Self> {
        let task = problem.task(&params)?;
        Ok(JobRequest { problem, params, task, run, sweep })
    }

    /// The bound of a sweep's counts, in bits (0 for a search, which has none).
    fn sweep_bound_bits(&self) -> Result<f64> {
        if self.sweep.is_none() {
            return Ok(0.0);
        }
        Ok(bound_bits(&self.task.job()?))
    }

    /// Refuses option combinations that cannot work, before anything is written (with a sweep's
    /// memory limit against its job: `settings::checked`).
    pub fn check(&self) -> Result<()> {
        let records = match self.sweep {
            Some(_) => "the coordinator's checkpoints",
            None => "the ledger of finished shards",
        };
        self.run.cluster.check(self.run.job_dir.as_deref(), records)?;
        if let Some(sweep) = self.sweep.as_ref().filter(|s| s.bfile.is_some()) {
            self.task.check_bfile()?;
            crate::output::check_indexing(self.task.as_ref(), sweep.indexing())?;
        }
        if let Some(path) = self.sweep.as_ref().and_then(|s| s.bfile.as_ref()) {
            crate::output::check_writable(path)?;
        }
        self.check_outputs_outside_job_dir()
    }

    /// Refuses an output (`--bfile`, a problem's `--out`: any path among the options) inside
    /// the job directory, which holds only leaper's own files: a b-file named `job.toml` would
    /// replace the job's spec, any other name would make later resumes refuse a stranger.
    fn check_outputs_outside_job_dir(&self) -> Result<()> {
        let Some(dir) = &self.run.job_dir else { return Ok(()) };
        let dir = resolved(dir);
        let mut outputs: Vec<(String, PathBuf)> = Vec::new();
        if let Some(path) = self.sweep.as_ref().and_then(|s| s.bfile.clone()) {
            outputs.push(("bfile".into(), path));
        }
        for (key, value) in &self.params {
            if let Some(text) = value.as_str().filter(|text| text.starts_with('/')) {
                outputs.push((key.replace('_', "-"), PathBuf::from(text)));
            }
        }
        for (option, path) in outputs {
            let within = path.parent().map(resolved).is_some_and(|parent| parent.starts_with(&dir));
            anyhow::ensure!(
                !within,
                "--{option} {} lies in the job directory {}, which holds only leaper's own files: write it elsewhere",
                path.display(),
                dir.display()
            );
        }
        Ok(())
    }

    /// The spec of a new job of this request's `job`: the header and the request as its body.
    /// Fixes what a resumed run must do the same way: the lanes, the memory budget, absolute
    /// file paths.
    pub fn spec(&mut self, job: &Job) -> Result<JobSpec> {
        let bound_bits = if self.sweep.is_some() { bound_bits(job) } else { 0.0 };
        if let Some(sweep) = &mut self.sweep {
            // The lanes the bound chose, recorded: a resume counts in the lanes its layers hold.
            if sweep.counts == Counts::Exact {
                sweep.counts = Counts::recorded(CountRoute::Automatic.resolved(bound_bits));
            }
            sweep.mem_limit = Some(sweep.out_of_core_limit());
            sweep.bfile = sweep.bfile.as_ref().map(|p| std::path::absolute(p).unwrap_or(p.clone()));
        }
        self.run.cluster = self.run.cluster.recorded();
        let header =
            SpecHeader::new(self.task.kind(), self.problem.name(), &self.task.id_stem(), &self.task.command_line());
        let recorded =
            RecordedRequest { params: self.params.clone(), run: self.run.clone(), sweep: self.sweep.clone() };
        let body = toml::Table::try_from(&recorded).context("cannot record the request")?;
        Ok(JobSpec { header, body })
    }

    /// The request a job directory's spec records, for `dir`.
    pub fn from_spec(spec: &JobSpec, dir: &Path) -> Result<JobRequest> {
        let recorded: RecordedRequest = spec
            .body
            .clone()
            .try_into()
            .with_context(|| format!("{}: the job's request does not read", dir.join("job.toml").display()))?;
        let problem = problems::find(&spec.header.problem)?;
        let mut request = JobRequest::new(problem, recorded.params, recorded.run, recorded.sweep)?;
        let bound_bits = request.sweep_bound_bits()?;
        if let Some(sweep) = request.sweep.as_mut().filter(|sweep| sweep.counts == Counts::Exact) {
            sweep.counts = Counts::before_lanes(bound_bits, sweep.verify);
        }
        let kind = request.task.kind();
        if kind != spec.header.kind {
            bail!(
                "{}: a {} job of problem {}, whose parameters ask for a {}",
                dir.join("job.toml").display(),
                spec.header.kind.name(),
                spec.header.problem,
                kind.name()
            );
        }
        request.run.job_dir = Some(dir.to_path_buf());
        Ok(request)
    }
}

impl ClusterArgs {
    /// Refuses `--workers` or `--listen` without the job directory and token they need.
    pub fn check(&self, job_dir: Option<&Path>, records: &str) -> Result<()> {
        if !self.workers.is_empty() && (job_dir.is_none() || self.token_file.is_none()) {
            bail!("--workers needs --job-dir ({records}) and --token-file (the workers' token)");
        }
        if self.listen.is_some() && (job_dir.is_none() || self.status_token_file().is_none()) {
            bail!(
                "--listen needs --job-dir (the status it serves) and --token-file or --listen-token-file (the \
                 callers' token)"
            );
        }
        if self.listen.is_some() && self.tls_ca.is_some() && self.tls_cert.is_none() && self.listen_token_file.is_none()
        {
            bail!(
                "the workers use TLS but --listen would carry their token in clear text: give --tls-cert and \
                 --tls-key, or a separate --listen-token-file"
            );
        }
        Ok(())
    }

    /// The same, with every file named by an absolute path, as a job spec records it: `resume`
    /// may run from another directory.
    pub fn recorded(&self) -> ClusterArgs {
        let absolute = |path: &Option<PathBuf>| path.as_ref().map(|p| std::path::absolute(p).unwrap_or(p.clone()));
        ClusterArgs {
            token_file: absolute(&self.token_file),
            tls_ca: absolute(&self.tls_ca),
            tls_cert: absolute(&self.tls_cert),
            tls_key: absolute(&self.tls_key),
            listen_token_file: absolute(&self.listen_token_file),
            ..self.clone()
        }
    }

    /// The token file callers of the status service must match.
    pub fn status_token_file(&self) -> Option<&Path> {
        self.listen_token_file.as_deref().or(self.token_file.as_deref())
    }

    /// The token (and TLS CA) for calling the workers.
    pub fn credentials(&self) -> Result<Credentials> {
        let token_file = self.token_file.as_deref().context("a cluster job needs --token-file")?;
        Ok(Credentials::load(token_file, self.tls_ca.as_deref())?)
    }
}

pub use leaper_core::engine::limits::parse_size;

/// A stream of counts, as the command line asked for it: the problem, the options every count
/// shares, and the items' parameters, read as they are counted. `crate::stream` runs it; it is
/// here so that the command line makes one without depending on the runner.
pub struct StreamRequest {
    pub problem: &'static dyn leaper_core::engine::Problem,
    pub run: RunArgs,
    pub sweep: Option<SweepArgs>,
    pub items: Box<dyn Iterator<Item = leaper_core::Result<leaper_core::engine::problem::Params>>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_specs_record_absolute_paths_so_resume_works_from_anywhere() {
        let given = ClusterArgs {
            workers: vec!["h1:7101".into()],
            token_file: Some("secret".into()),
            tls_ca: Some("/etc/leaper/ca.pem".into()),
            ..ClusterArgs::default()
        };
        let recorded = given.recorded();
        assert_eq!(recorded.token_file, Some(std::env::current_dir().unwrap().join("secret")));
        assert_eq!(recorded.tls_ca, given.tls_ca);
        assert_eq!((recorded.workers, recorded.listen, recorded.tls_cert), (given.workers, None, None));
    }

    #[test]
    fn a_request_survives_its_job_spec() {
        let mut request = JobRequest::new(
            problems::find("tours").unwrap(),
            toml::toml! { piece = "knight"
            moves = "1,2"
            board = "6x8"
            sweep = true },
            RunArgs { format: OutputFormat::Json, threads: Some(3), ..RunArgs::default() },
            Some(SweepArgs {
                bfile: Some("b.txt".into()),
                stride: Some(2),
                offset: Some(1),
                verify: true,
                counts: Counts::Exact,
                count_anyway: false,
                buckets: 7,
                moduli_per_pass: Some(1),
                mem_limit: None,
            }),
        )
        .unwrap();
        let job = request.task.job().unwrap();
        let spec = request.spec(&job).unwrap();
        assert_eq!(spec.header.command, "knight 6x8 --sweep");
        assert!(spec.header.id.starts_with("knight-6x8-sweep-"), "{}", spec.header.id);
        let back = JobRequest::from_spec(&spec, Path::new("/jobs/a")).unwrap();
        // Threads are this run's; the job directory is where the spec was found.
        assert_eq!(back.run.threads, None);
        assert_eq!(back.run.job_dir.as_deref(), Some(Path::new("/jobs/a")));
        assert_eq!(back.sweep.as_ref().unwrap().mem_limit, Some(OUT_OF_CORE_MEM_LIMIT));
        assert_eq!((back.params, back.sweep), (request.params, request.sweep));
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5 parsecs").is_err());
        assert!(parse_size("0").is_err());
    }
}
