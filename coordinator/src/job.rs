//! Job directories: what a long count leaves on disk so that it survives a crash.
//!
//! ```text
//! DIR/job.toml                         the spec: what is counted and how (written once)
//! DIR/lock                             held (flock) by the process running the job; its pid
//! DIR/manifest.json                    the last committed step (see leaper_core::store::checkpoint)
//! DIR/pass-P/layer-NNNNNN/bBBBB.lpb    bucket files of the committed layer
//! ```
//!
//! A [`JobDir`] is the sweep's host for out-of-core runs: it makes stores for the passes and
//! commits a manifest after every step. Opening a job for `resume` removes every file the
//! manifest does not name (half-written layers, spills, a stale temporary manifest).

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use leaper_core::arith::Moduli;
use leaper_core::store::checkpoint::{
    remove_unnamed, replace_durably, LayerRecord, Manifest, WorkerLayer, MANIFEST_FILE, MANIFEST_FORMAT,
};
use leaper_core::store::{DiskStore, StateStore};
use leaper_core::tmx::{StepReport, StoreHost, SweepProgress};
use serde::{Deserialize, Serialize};

use crate::cli::{ClusterArgs, OutputFormat, TourArgs};
use crate::progress::Progress;
use crate::tours::Piece;

/// Version of the `job.toml` layout.
pub const JOB_FORMAT: u32 = 1;
pub const JOB_FILE: &str = "job.toml";
const LOCK_FILE: &str = "lock";

/// What a job counts and how: the command line that started it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSpec {
    pub format: u32,
    pub id: String,
    pub leaper_version: String,
    pub created_unix: u64,
    /// `knight`, `camel`, `zebra` or `tours`.
    pub piece: String,
    pub moves: String,
    pub board: String,
    pub sweep: bool,
    pub verify: bool,
    pub buckets: u32,
    pub moduli_per_pass: Option<u32>,
    pub mem_limit: u64,
    /// `text` or `json`.
    pub output: String,
    pub bfile: Option<PathBuf>,
    /// Worker addresses of a cluster job, in bucket-ownership order (empty: one process), and
    /// how to reach them.
    #[serde(flatten)]
    pub cluster: ClusterArgs,
}

impl JobSpec {
    pub fn new(piece: &Piece, args: &TourArgs, mem_limit: u64) -> Self {
        let created_unix = unix_now();
        let sweep = if args.sweep { "-sweep" } else { "" };
        JobSpec {
            format: JOB_FORMAT,
            id: format!("{}-{}{sweep}-{created_unix:x}-{:x}", piece.name(), args.board, std::process::id()),
            leaper_version: env!("CARGO_PKG_VERSION").to_string(),
            created_unix,
            piece: piece.name().to_string(),
            moves: piece.moves().to_string(),
            board: args.board.to_string(),
            sweep: args.sweep,
            verify: args.verify,
            buckets: args.buckets,
            moduli_per_pass: args.moduli_per_pass,
            mem_limit,
            output: match args.format {
                OutputFormat::Text => "text".into(),
                OutputFormat::Json => "json".into(),
            },
            bfile: args.bfile.clone(),
            cluster: args.cluster.recorded(),
        }
    }

    /// The piece and the command-line arguments this spec records.
    pub fn tour_args(&self, dir: &Path) -> Result<(Piece, TourArgs)> {
        let bad = |what: &str| anyhow::anyhow!("{}: {what}", dir.join(JOB_FILE).display());
        let moves = self.moves.parse().map_err(|e| bad(&format!("bad moves: {e}")))?;
        let piece =
            Piece::from_name(&self.piece, moves).ok_or_else(|| bad(&format!("unknown piece {:?}", self.piece)))?;
        let format = match self.output.as_str() {
            "text" => OutputFormat::Text,
            "json" => OutputFormat::Json,
            other => return Err(bad(&format!("unknown output format {other:?}"))),
        };
        let args = TourArgs {
            board: self.board.parse().map_err(|e| bad(&format!("bad board: {e}")))?,
            sweep: self.sweep,
            format,
            bfile: self.bfile.clone(),
            verify: self.verify,
            buckets: self.buckets,
            threads: None,
            moduli_per_pass: self.moduli_per_pass,
            job_dir: Some(dir.to_path_buf()),
            mem_limit: Some(self.mem_limit),
            cluster: self.cluster.clone(),
        };
        Ok((piece, args))
    }

    /// Reads `DIR/job.toml`, refusing other format versions.
    pub fn load(dir: &Path) -> Result<Self> {
        load_spec(dir)
    }

    /// How the job's command line read.
    pub fn command(&self) -> String {
        let piece = if self.piece == "tours" { format!("tours --moves {}", self.moves) } else { self.piece.clone() };
        format!("{piece} {}{}", self.board, if self.sweep { " --sweep" } else { "" })
    }
}

/// An open job directory, locked by this process.
pub struct JobDir {
    dir: PathBuf,
    spec: JobSpec,
    /// Held for the life of the job: a second process on the same directory is refused.
    _lock: File,
    manifest: Option<Manifest>,
    mem_limit: u64,
    passes: usize,
    cells: usize,
    progress: Progress,
}

impl JobDir {
    /// Starts a new job in `dir`, which must be empty or missing.
    pub fn create(dir: &Path, spec: JobSpec) -> Result<Self> {
        let lock = claim_empty(dir)?;
        write_spec(dir, &spec)?;
        Ok(JobDir::new(dir, spec, lock, None))
    }

    /// Opens the job in `dir` to continue it: checks its spec and manifest, then removes every
    /// file the manifest does not name.
    pub fn open(dir: &Path) -> Result<Self> {
        let spec = JobSpec::load(dir)?;
        let lock = take_lock(dir)?;
        let manifest = Manifest::load(dir)?;
        if let Some(manifest) = &manifest {
            if manifest.job != spec.id {
                bail!(
                    "{} belongs to job {}, but {} is job {}; the directory mixes two jobs: start again in an empty \
                     directory",
                    dir.join(MANIFEST_FILE).display(),
                    manifest.job,
                    dir.join(JOB_FILE).display(),
                    spec.id
                );
            }
        }
        let named: HashSet<PathBuf> = manifest.iter().flat_map(Manifest::named_files).collect();
        let removed = remove_unnamed(dir, &named, &[JOB_FILE, LOCK_FILE])?;
        if removed > 0 {
            tracing::info!(files = removed, "removed files that no checkpoint names (an interrupted step)");
        }
        Ok(JobDir::new(dir, spec, lock, manifest))
    }

    fn new(dir: &Path, spec: JobSpec, lock: File, manifest: Option<Manifest>) -> Self {
        let mem_limit = spec.mem_limit;
        let progress = Progress::default();
        JobDir { dir: dir.to_path_buf(), spec, _lock: lock, manifest, mem_limit, passes: 0, cells: 0, progress }
    }

    pub fn spec(&self) -> &JobSpec {
        &self.spec
    }

    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_ref()
    }

    /// Where to start: the committed progress, or the beginning.
    pub fn start(&self) -> SweepProgress {
        self.manifest.as_ref().map(|m| m.progress.clone()).unwrap_or_default()
    }

    /// Sets what the sweep looks like (for manifests and ETAs) and this run's memory limit.
    pub fn plan(&mut self, passes: usize, cells: usize, mem_limit: u64) {
        self.passes = passes;
        self.cells = cells;
        self.mem_limit = mem_limit;
    }

    /// Records the exact counts and deletes what is left of the layers.
    pub fn finish(&mut self, counts: &[(usize, String)]) -> Result<()> {
        let progress = self.start();
        let mut manifest = self.manifest_for(&progress, None);
        manifest.result = Some(counts.to_vec());
        manifest.commit(&self.dir)?;
        self.manifest = Some(manifest);
        remove_unnamed(&self.dir, &[PathBuf::from(MANIFEST_FILE)].into_iter().collect(), &[JOB_FILE, LOCK_FILE])?;
        Ok(())
    }

    /// Commits `progress` of a cluster job with each worker's part of the layer.
    pub fn commit_cluster(&mut self, progress: &SweepProgress, workers: Vec<WorkerLayer>) -> leaper_core::Result<()> {
        let manifest = Manifest { workers, ..self.manifest_for(progress, None) };
        manifest.commit(&self.dir)?;
        self.manifest = Some(manifest);
        Ok(())
    }

    fn manifest_for(&self, progress: &SweepProgress, layer: Option<LayerRecord>) -> Manifest {
        Manifest {
            format: MANIFEST_FORMAT,
            job: self.spec.id.clone(),
            passes: self.passes,
            cells: self.cells,
            progress: progress.clone(),
            layer,
            workers: Vec::new(),
            committed_unix: unix_now(),
            result: None,
            crc32: 0,
        }
    }

    fn pass_dir(&self, pass: usize) -> PathBuf {
        self.dir.join(format!("pass-{pass}"))
    }
}

impl StoreHost for JobDir {
    fn store(&mut self, moduli: &Moduli, progress: &SweepProgress) -> leaper_core::Result<Box<dyn StateStore>> {
        let dir = self.pass_dir(progress.pass);
        let buckets = self.spec.buckets as usize;
        let layer = self.manifest.as_ref().and_then(|m| m.layer.as_ref()).filter(|_| progress.next_cell > 0);
        Ok(Box::new(match layer {
            Some(layer) => DiskStore::resume(&dir, buckets, moduli.clone(), self.mem_limit, &layer.durable(&self.dir))?,
            None => DiskStore::create(&dir, buckets, moduli.clone(), self.mem_limit)?,
        }))
    }

    fn commit(&mut self, progress: &SweepProgress, store: &dyn StateStore) -> leaper_core::Result<()> {
        let layer = match store.durable_layer() {
            Some(layer) if progress.next_cell > 0 => Some(LayerRecord::new(&self.dir, &layer)?),
            _ => None,
        };
        let manifest = self.manifest_for(progress, layer);
        manifest.commit(&self.dir)?;
        self.manifest = Some(manifest);
        Ok(())
    }

    fn observe(&mut self, step: &StepReport) {
        self.progress.step(step);
    }
}

/// Reads the spec in `DIR/job.toml`, refusing other format versions.
pub fn load_spec<T: serde::de::DeserializeOwned>(dir: &Path) -> Result<T> {
    let path = dir.join(JOB_FILE);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("{} holds no leaper job ({JOB_FILE} is missing)", dir.display())
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let value: toml::Table = toml::from_str(&text).with_context(|| format!("{} is damaged", path.display()))?;
    match value.get("format").and_then(toml::Value::as_integer) {
        Some(format) if format == JOB_FORMAT as i64 => {}
        other => bail!(
            "{}: job format {}, this leaper reads format {JOB_FORMAT}; use the leaper release that started \
             the job",
            path.display(),
            other.map_or("unknown".to_string(), |f| f.to_string())
        ),
    }
    toml::from_str(&text).with_context(|| format!("{} is damaged", path.display()))
}

/// Makes `dir` (created if missing) the home of a new job: it must hold no job and no other
/// files. Returns the job's lock.
pub fn claim_empty(dir: &Path) -> Result<File> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create job directory {}", dir.display()))?;
    if let Some((id, command)) = existing_job(dir) {
        bail!(
            "job directory {} already holds job {id} ({command}); continue it with `leaper resume --job-dir {}`, \
             or give the new job an empty directory",
            dir.display(),
            dir.display()
        );
    }
    let occupied = fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?.next().is_some();
    if occupied {
        bail!("job directory {} is not empty and holds no leaper job; give the job an empty directory", dir.display());
    }
    take_lock(dir)
}

/// Writes `DIR/job.toml` durably, once, when a job starts.
pub fn write_spec<T: Serialize>(dir: &Path, spec: &T) -> Result<()> {
    let text = format!(
        "# A leaper job. Continue it with `leaper resume --job-dir DIR`; do not edit.\n{}",
        toml::to_string(spec).context("cannot write the job spec")?
    );
    Ok(replace_durably(&dir.join(JOB_FILE), text.as_bytes(), "job")?)
}

/// Whether the job in `dir` is a subtree job (its spec names a `problem`), read without
/// knowing its kind; `None` when `job.toml` cannot be read.
pub fn is_subtree_job(dir: &Path) -> bool {
    fs::read_to_string(dir.join(JOB_FILE))
        .ok()
        .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
        .is_some_and(|table| table.contains_key("problem"))
}

/// The id and command line of the job already in `dir`, whatever its kind.
fn existing_job(dir: &Path) -> Option<(String, String)> {
    if is_subtree_job(dir) {
        return crate::subtree::SubtreeSpec::load(dir).ok().map(|spec| (spec.id.clone(), spec.command()));
    }
    JobSpec::load(dir).ok().map(|spec| (spec.id.clone(), spec.command()))
}

/// Takes the job's lock, or says which process holds it.
pub fn take_lock(dir: &Path) -> Result<File> {
    let path = dir.join(LOCK_FILE);
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    if let Err(e) = file.try_lock() {
        let holder = read_pid(&mut file).map_or(String::new(), |pid| format!(" (pid {pid})"));
        bail!(
            "job directory {} is in use by another leaper process{holder}: wait for it, or stop it first ({e})",
            dir.display()
        );
    }
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| write!(file, "{}", std::process::id()))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(file)
}

fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

/// Whether a process holds the job's lock, and its pid.
pub fn running_pid(dir: &Path) -> Option<u32> {
    let mut file = File::open(dir.join(LOCK_FILE)).ok()?;
    match file.try_lock_shared() {
        Ok(()) => None,
        Err(_) => Some(read_pid(&mut file).unwrap_or(0)),
    }
}

pub fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}
