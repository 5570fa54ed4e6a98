//! The host of an out-of-core sweep in one process: a disk store per pass in the job directory,
//! and a manifest committed after every step; in a sweep of more than [`PACED_FROM_STEPS`]
//! steps, after a step once a second has passed since the last commit (see [`Pacing`]).
//!
//! ```text
//! DIR/job.toml                         the spec (written once, see `spec`)
//! DIR/lock                             held by the process running the job
//! DIR/manifest.json                    the last committed step (see `manifest`)
//! DIR/pass-P/layer-NNNNNN/sSSS.lps     segments of the committed layer (its buckets' sections)
//! ```
//!
//! Resuming removes leaper's files the manifest does not name (half-written layers, spills, a
//! stale temporary manifest), but only once the resume is certain to go on: after the spec, the
//! manifest and every section it names have been checked. A file leaper does not write
//! stops the resume, named, before anything is touched.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::files::durable::{refuse_strangers, Foreign};
use crate::jobdir::manifest::{Counted, LayerRecord, WorkerLayer, MANIFEST_FORMAT};
use crate::jobdir::{remove_unnamed, unix_now, JobDir, JobFile, Manifest};
use crate::key::RecordLayout;
use crate::store::{disk_store, StateStore};
use crate::sweep::{StoreSource, SweepProgress};
use crate::Moduli;

/// Sweeps of more steps than this commit at most about once a second, not after every step: a
/// long thin graph's steps take microseconds and a commit milliseconds (two manifests and a
/// layer fsynced: 40-60 ms on a loaded machine, which made a cycle of 10,000 vertices take ten
/// minutes). Every board leaper counts has fewer steps, and commits after each.
pub const PACED_FROM_STEPS: usize = 4096;

/// When a sweep of many steps commits: a step within a pass goes uncommitted while the last
/// commit is less than a second old, or younger than twenty times what it took (so that
/// commits take at most about a twentieth of the time), unless a count became final at it (a
/// count printed is a count committed) or [`Pacing::EVERY_STEPS`] steps have gone since the
/// last commit. A pass's end always commits. A crash loses the steps since the last commit,
/// about a second of work, which the resume does again.
///
/// Example: a cycle of 100,000 vertices, in 3 s, commits before its first step (the plan's
/// manifest), about once a second, after step 65,535 whatever the clock says, at its last
/// step (its count settled) and at the pass's end.
#[derive(Clone, Copy, Debug)]
struct Pacing {
    /// When the last commit started, and what it took.
    last: Instant,
    took: Duration,
}

impl Pacing {
    const AT_MOST_EVERY: Duration = Duration::from_secs(1);
    const SHARE: u32 = 20;
    /// Steps after which a sweep commits whatever the clock says: checkpoints at steps its
    /// length alone decides, which a crash test can count on (a commit per 65,536 steps of
    /// microseconds costs nothing).
    const EVERY_STEPS: usize = 1 << 16;

    /// Whether the step that left `progress` may go uncommitted, the last commit having left
    /// `committed`.
    fn may_skip(&self, progress: &SweepProgress, committed: Option<&SweepProgress>) -> bool {
        let within_a_pass = progress.next_cell > 0;
        let nothing_settled = committed.is_some_and(|last| last.settled.len() == progress.settled.len());
        let few_steps = committed
            .is_some_and(|last| last.pass == progress.pass && progress.next_cell < last.next_cell + Self::EVERY_STEPS);
        let recent = self.last.elapsed() < Self::AT_MOST_EVERY.max(self.took * Self::SHARE);
        within_a_pass && nothing_settled && few_steps && recent
    }
}

/// An out-of-core sweep's job directory: stores per pass, a manifest per step (or about one a
/// second, [`Pacing`]).
pub struct SweepCheckpoints {
    job: JobDir,
    manifest: Option<Manifest>,
    buckets: usize,
    mem_limit: u64,
    passes: usize,
    steps: usize,
    /// What the layers' keys mean and in which of the problem's key formats (see
    /// [`Manifest::key_layout`], [`Manifest::key_format`]).
    key_layout: String,
    key_format: u32,
    /// The moduli of the pass under way (see [`Manifest::moduli`]).
    moduli: Vec<u64>,
    /// A resumed job's files that no checkpoint names are still to be removed.
    leftovers: bool,
    /// How a sweep of more than [`PACED_FROM_STEPS`] steps paces its commits (`None`: a commit
    /// after every step).
    pacing: Option<Pacing>,
}

/// The files every job directory keeps whatever its manifest says.
const ALWAYS_KEPT: [JobFile; 4] = [JobFile::Spec, JobFile::SpecCopy, JobFile::Lock, JobFile::Plan];

impl SweepCheckpoints {
    /// A new job: nothing committed yet.
    pub fn new(job: JobDir, buckets: usize, mem_limit: u64) -> SweepCheckpoints {
        SweepCheckpoints {
            job,
            manifest: None,
            buckets,
            mem_limit,
            passes: 0,
            steps: 0,
            key_layout: String::new(),
            key_format: 0,
            moduli: Vec::new(),
            leftovers: false,
            pacing: None,
        }
    }

    /// A job to continue: checks its manifest and that the directory holds only leaper's files;
    /// removes nothing yet (see [`SweepCheckpoints::remove_leftovers`]).
    pub fn resume(job: JobDir, buckets: usize, mem_limit: u64) -> Result<SweepCheckpoints> {
        let manifest = Manifest::load(job.path())?;
        if let Some(manifest) = &manifest {
            if manifest.job != job.id() {
                return Err(Error::File {
                    path: job.file(JobFile::Manifest),
                    message: format!(
                        "belongs to job {}, but {} is job {}; the directory mixes two jobs: start again in an \
                         empty directory",
                        manifest.job,
                        job.file(JobFile::Spec).display(),
                        job.id()
                    ),
                });
            }
        }
        if let Some(recorded) = manifest.as_ref().and_then(|m| m.spec_format) {
            let format = job.spec().header.format;
            if format < recorded {
                return Err(Error::File {
                    path: job.file(JobFile::Spec),
                    message: format!(
                        "is of job format {format}, but the job was started with format {recorded} (its manifest \
                         records it): leaper never writes a job's spec in an older format, so it was rewritten by \
                         hand; restore the job.toml the job started with, or start the job again in a new \
                         directory; nothing was changed"
                    ),
                });
            }
        }
        refuse_strangers(job.path())?;
        Ok(SweepCheckpoints {
            job,
            manifest,
            buckets,
            mem_limit,
            passes: 0,
            steps: 0,
            key_layout: String::new(),
            key_format: 0,
            moduli: Vec::new(),
            leftovers: true,
            pacing: None,
        })
    }

    /// Checks that the job's transition means by its keys what the committed layers mean by
    /// theirs, and records both for the manifests to come: first the problem's key format
    /// (`key_format`, [`crate::Transition::key_format`]: another number means another
    /// leaper wrote the layers), then what the keys mean (`key_layout`,
    /// [`crate::Transition::key_layout`]: another text under the same format means the
    /// job now asks for other states, its `job.toml` edited or its parameters read otherwise).
    /// Either would read the layers as other states: it is refused, naming both, before anything
    /// is read or removed. A manifest of before key formats were recorded compares by the layout
    /// alone.
    pub fn check_keys(&mut self, key_format: u32, key_layout: &str) -> Result<()> {
        if let Some(manifest) = &self.manifest {
            let header = &self.job.spec().header;
            let (problem, started_by) = (&header.problem, &header.leaper_version);
            let refuse = |message: String| Error::File { path: self.job.file(JobFile::Manifest), message };
            match manifest.key_format {
                Some(format) if format != key_format => {
                    return Err(refuse(format!(
                        "the job's layers hold {problem} keys of key format {format}, this leaper's are of key \
                         format {key_format}: another version of leaper wrote them; resume the job with the leaper \
                         that started it (leaper {started_by}, says its job.toml); nothing was changed"
                    )));
                }
                Some(format) if manifest.key_layout != key_layout => {
                    return Err(refuse(format!(
                        "the job's layers were counted as \"{}\", but its job.toml now asks for \"{key_layout}\" \
                         (the same {problem} key format {format}): was job.toml edited? restore it; if it was not, \
                         this leaper reads the job's parameters otherwise: resume with the leaper release that \
                         started the job (leaper {started_by}); nothing was changed",
                        manifest.key_layout
                    )));
                }
                None if manifest.key_layout != key_layout => {
                    return Err(refuse(format!(
                        "the job's layers were counted as \"{}\", but this leaper reads its job.toml as \
                         \"{key_layout}\" ({problem} key format {key_format}; the manifest, older, records no key \
                         format): was job.toml edited? restore it, or resume with the leaper release that started \
                         the job (leaper {started_by}); nothing was changed",
                        manifest.key_layout
                    )));
                }
                _ => {}
            }
        }
        self.key_format = key_format;
        self.key_layout = key_layout.to_string();
        Ok(())
    }

    /// Checks, before a resume reads anything, that the sweep's plan (`passes`, every pass's
    /// lanes) counts in the lanes the manifest records: those of the pass under way when it
    /// stopped within a pass, those of the pass that ended when it stopped between two (a
    /// manifest records the lanes of the pass it was committed in). Refused by name
    /// ([`SweepCheckpoints::check_moduli`]'s message), nothing changed.
    pub fn check_lanes(&self, passes: &[Moduli], progress: &SweepProgress) -> Result<()> {
        let Some(manifest) = self.manifest.as_ref().filter(|m| !m.moduli.is_empty()) else { return Ok(()) };
        // Within a later pass the manifest names that pass's lanes alone; the words the ended
        // passes' counts hold are `run_sweep`'s check of the checkpoint against the plan.
        let pass = match progress.next_cell {
            0 => progress.pass.checked_sub(1),
            _ => Some(progress.pass),
        };
        match pass.and_then(|pass| passes.get(pass)) {
            Some(lanes) if manifest.moduli != lanes.values() => {
                Err(self.other_lanes(&manifest.moduli, lanes, progress.next_cell == 0))
            }
            _ => Ok(()),
        }
    }

    /// The refusal of lanes `asked` for the layers (`ended`: the counts of the pass that ended)
    /// of the lanes `held` records.
    fn other_lanes(&self, held: &[u64], asked: &Moduli, ended: bool) -> Error {
        let what = if ended { "the counts of its last pass are" } else { "layers hold" };
        let held =
            Moduli::from_values(held.to_vec()).map_or_else(|_| format!("the values {held:?}"), |held| held.to_string());
        Error::File {
            path: self.job.file(JobFile::Manifest),
            message: format!(
                "the job's {what} {held}, but its job.toml now asks for {asked}: was job.toml edited? restore it, \
                 or resume with the leaper release that started the job; nothing was changed"
            ),
        }
    }

    /// Checks that a pass resumed from the committed layer counts in the lanes its records hold
    /// (an exact lane of the same width, residues modulo the same moduli): a `job.toml` edited
    /// to other `--counts` or `--verify` would add the residues of one modulus to those of
    /// another, or read the words of a 64-bit lane as a 128-bit one. It is refused, naming both
    /// lanes. Records them for the manifests to come. Called as each pass begins, before its
    /// layer is read.
    pub fn check_moduli(&mut self, moduli: &Moduli, progress: &SweepProgress) -> Result<()> {
        let resumed = self.manifest.as_ref().filter(|m| progress.next_cell > 0 && !m.moduli.is_empty());
        if let Some(manifest) = resumed {
            if manifest.moduli != moduli.values() {
                return Err(self.other_lanes(&manifest.moduli, moduli, false));
            }
        }
        self.moduli = moduli.values().to_vec();
        Ok(())
    }

    /// Removes what an interrupted run left that no checkpoint names (a half-written layer,
    /// spills, a temporary manifest). Called once the resume is certain: the committed layer
    /// has been verified (the first store of the run), or the workers have been prepared.
    pub fn remove_leftovers(&mut self) -> Result<()> {
        if !std::mem::take(&mut self.leftovers) {
            return Ok(());
        }
        let named: HashSet<PathBuf> = self.manifest.iter().flat_map(Manifest::named_files).collect();
        let removed = remove_unnamed(self.job.path(), &named, &ALWAYS_KEPT, Foreign::Refuse)?;
        if removed > 0 {
            tracing::info!(files = removed, "removed files that no checkpoint names (an interrupted step)");
        }
        Ok(())
    }

    pub fn job(&self) -> &JobDir {
        &self.job
    }

    /// The job directory, for what comes after the sweep.
    pub fn into_job(self) -> JobDir {
        self.job
    }

    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_ref()
    }

    /// Where to start: the committed progress, or the beginning.
    pub fn start(&self) -> SweepProgress {
        self.manifest.as_ref().map(|m| m.progress.clone()).unwrap_or_default()
    }

    /// Sets what the sweep looks like, for manifests and status. A new job commits its first
    /// manifest now, before any layer file exists: from here on, layer files without a manifest
    /// mean a lost manifest, never a job that had not started.
    pub fn plan(&mut self, passes: usize, steps: usize) -> Result<()> {
        self.passes = passes;
        self.steps = steps;
        self.pacing = (steps > PACED_FROM_STEPS).then(|| Pacing { last: Instant::now(), took: Duration::ZERO });
        if self.manifest.is_none() {
            let first = self.manifest_for(&SweepProgress::default(), None);
            self.commit_manifest(first)?;
        }
        Ok(())
    }

    /// Records the exact counts, and how they were carried, and deletes what is left of the
    /// layers.
    pub fn finish(&mut self, counts: &[(usize, String)], counted: Counted) -> Result<()> {
        let progress = self.start();
        let mut manifest = self.manifest_for(&progress, None);
        manifest.result = Some(counts.to_vec());
        manifest.counted = Some(counted);
        self.commit_manifest(manifest)?;
        // The counts are committed: a stranger added meanwhile stays, and does not fail the job.
        let named = [JobFile::Manifest.path(), JobFile::ManifestCopy.path()].into_iter().collect();
        remove_unnamed(self.job.path(), &named, &ALWAYS_KEPT, Foreign::Leave)?;
        Ok(())
    }

    /// The counts of a job that had finished, once its request is checked against how they were
    /// counted: a `job.toml` that now asks for other counts (`--counts`, `--verify`) is refused,
    /// as it is while the job runs, so that what is printed of them (verified or not) is what the
    /// manifest recorded. `None` for a job still to count.
    pub fn finished(&self, asked: &Counted) -> Result<Option<Vec<(usize, String)>>> {
        let Some(manifest) = &self.manifest else { return Ok(None) };
        let Some(counts) = manifest.result.clone() else { return Ok(None) };
        // A manifest of before this was recorded: the spec's checksum is all there is.
        let Some(counted) = &manifest.counted else { return Ok(Some(counts)) };
        if counted != asked {
            let said = |c: &Counted| format!("counts = {:?}, verify = {}", c.counts, c.verified);
            return Err(Error::File {
                path: self.job.file(JobFile::Spec),
                message: format!(
                    "asks for {}, but the job's counts were counted with {} (its manifest records it): was \
                     job.toml edited? restore it; nothing was changed",
                    said(asked),
                    said(counted)
                ),
            });
        }
        Ok(Some(counts))
    }

    /// Commits `progress` of a cluster job with each worker's part of the layer.
    pub fn commit_cluster(&mut self, progress: &SweepProgress, workers: Vec<WorkerLayer>) -> Result<()> {
        let manifest = Manifest { workers, ..self.manifest_for(progress, None) };
        self.commit_manifest(manifest)
    }

    fn commit_manifest(&mut self, manifest: Manifest) -> Result<()> {
        manifest.commit(self.job.path())?;
        self.manifest = Some(manifest);
        Ok(())
    }

    fn manifest_for(&self, progress: &SweepProgress, layer: Option<LayerRecord>) -> Manifest {
        debug_assert!(!self.key_layout.is_empty(), "check_keys comes before any commit");
        Manifest {
            format: MANIFEST_FORMAT,
            job: self.job.id().to_string(),
            passes: if progress.passes > 0 { progress.passes } else { self.passes },
            cells: self.steps,
            key_layout: self.key_layout.clone(),
            key_format: Some(self.key_format),
            moduli: self.moduli.clone(),
            progress: progress.clone(),
            layer,
            workers: Vec::new(),
            committed_unix: unix_now(),
            result: None,
            counted: None,
            spec_format: Some(self.job.spec().header.format),
            crc32: 0,
        }
    }
}

impl StoreSource for SweepCheckpoints {
    fn store(
        &mut self,
        layout: RecordLayout,
        moduli: &Moduli,
        progress: &SweepProgress,
    ) -> Result<Box<dyn StateStore>> {
        self.check_moduli(moduli, progress)?;
        let layer = self.manifest.as_ref().and_then(|m| m.layer.as_ref()).filter(|_| progress.next_cell > 0);
        let durable = layer.map(|layer| layer.durable(self.job.path()));
        let mut store = disk_store(
            layout,
            self.job.path(),
            progress.pass,
            self.buckets,
            moduli.clone(),
            self.mem_limit,
            durable.as_ref(),
        )?;
        if self.pacing.is_some() {
            store.pace_checkpoints();
        }
        self.remove_leftovers()?;
        Ok(store)
    }

    fn commit(&mut self, progress: &SweepProgress, store: &mut dyn StateStore) -> Result<bool> {
        let committed = self.manifest.as_ref().map(|manifest| &manifest.progress);
        if self.pacing.is_some_and(|pacing| pacing.may_skip(progress, committed)) {
            return Ok(false);
        }
        let started = Instant::now();
        let layer = if progress.next_cell > 0 {
            store.make_durable()?;
            store.durable_layer().map(|layer| LayerRecord::new(self.job.path(), &layer)).transpose()?
        } else {
            None
        };
        let manifest = self.manifest_for(progress, layer);
        self.commit_manifest(manifest)?;
        if let Some(pacing) = &mut self.pacing {
            *pacing = Pacing { last: started, took: started.elapsed() };
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobdir::{JobKind, JobSpec, SpecHeader, SPEC_FORMAT};

    /// Reopens the job in `dir` as a resume does and checks its keys.
    fn resume_with(dir: &std::path::Path, key_format: u32, key_layout: &str) -> Result<SweepCheckpoints> {
        let mut checkpoints = SweepCheckpoints::resume(JobDir::open(dir)?, 4, 1 << 20)?;
        checkpoints.check_keys(key_format, key_layout)?;
        Ok(checkpoints)
    }

    #[test]
    fn layers_of_another_key_format_or_layout_are_refused_each_with_its_own_reason() {
        let dir = leaper_test_kit::scratch("checkpoints-keys");
        let spec = JobSpec {
            header: SpecHeader::new(JobKind::Sweep, "tours", "knight-6x8", "knight 6x8"),
            body: Default::default(),
        };
        let started_by = spec.header.leaper_version.clone();
        let mut checkpoints = SweepCheckpoints::new(JobDir::create(&dir, spec).unwrap(), 4, 1 << 20);
        checkpoints.check_keys(2, "keys A").unwrap();
        checkpoints.plan(1, 48).unwrap();
        drop(checkpoints);
        assert_eq!(Manifest::load(&dir).unwrap().unwrap().key_format, Some(2));

        // Another key format: another leaper wrote the layers, whatever the layout says.
        for layout in ["keys A", "keys B"] {
            let error = resume_with(&dir, 3, layout).err().unwrap().to_string();
            assert!(error.contains("manifest.json"), "{error}");
            assert!(
                error.contains("the job's layers hold tours keys of key format 2, this leaper's are of key format 3"),
                "{error}"
            );
            assert!(
                error.contains(&format!("resume the job with the leaper that started it (leaper {started_by}")),
                "{error}"
            );
        }
        // The same key format, another layout: the job now asks for other states.
        let error = resume_with(&dir, 2, "keys B").err().unwrap().to_string();
        assert!(error.contains("counted as \"keys A\", but its job.toml now asks for \"keys B\""), "{error}");
        assert!(error.contains("(the same tours key format 2): was job.toml edited?"), "{error}");
        resume_with(&dir, 2, "keys A").unwrap();

        // A manifest of before key formats were recorded: the layout alone decides, and the next
        // commit records the format.
        let mut old = Manifest::load(&dir).unwrap().unwrap();
        old.key_format = None;
        old.commit(&dir).unwrap();
        assert!(!std::fs::read_to_string(dir.join("manifest.json")).unwrap().contains("key_format"));
        let error = resume_with(&dir, 2, "keys B").err().unwrap().to_string();
        assert!(error.contains("counted as \"keys A\"") && error.contains("records no key format"), "{error}");
        assert!(error.contains("was job.toml edited?"), "{error}");
        let mut checkpoints = resume_with(&dir, 2, "keys A").unwrap();
        checkpoints.finish(&[], Counted { verified: false, counts: "exact".into() }).unwrap();
        drop(checkpoints);
        assert_eq!(Manifest::load(&dir).unwrap().unwrap().key_format, Some(2));
    }

    /// Issue 55: a finished job's `job.toml` rewritten to format 2 (no checksum) with
    /// `verify = true` printed `"verified": true` for counts never verified. The manifest now
    /// records the spec's format and how the counts were carried, and both are held against the
    /// spec on resume, finished or not.
    #[test]
    fn a_finished_job_is_held_to_its_spec_format_and_to_how_it_counted() {
        let dir = leaper_test_kit::scratch("checkpoints-finished");
        let spec = JobSpec {
            header: SpecHeader::new(JobKind::Sweep, "tours", "knight-6x6", "knight 6x6"),
            body: Default::default(),
        };
        let exact = Counted { verified: false, counts: "exact".into() };
        let mut checkpoints = SweepCheckpoints::new(JobDir::create(&dir, spec.clone()).unwrap(), 4, 1 << 20);
        checkpoints.check_keys(2, "keys").unwrap();
        checkpoints.plan(1, 36).unwrap();
        checkpoints.finish(&[(6, "9862".into())], exact.clone()).unwrap();
        drop(checkpoints);
        let manifest = Manifest::load(&dir).unwrap().unwrap();
        assert_eq!((manifest.spec_format, manifest.counted.as_ref()), (Some(SPEC_FORMAT), Some(&exact)));

        // Asked as it counted: the counts, and how they were carried.
        let finished = resume_with(&dir, 2, "keys").unwrap().finished(&exact).unwrap();
        assert_eq!(finished, Some(vec![(6, "9862".to_string())]));
        // Asked otherwise: refused, naming both.
        for asked in
            [Counted { verified: true, counts: "exact".into() }, Counted { verified: false, counts: "residues".into() }]
        {
            let error = resume_with(&dir, 2, "keys").unwrap().finished(&asked).unwrap_err().to_string();
            assert!(error.contains("was job.toml edited?"), "{error}");
            assert!(error.contains("counted with counts = \"exact\", verify = false"), "{error}");
        }

        // The spec rewritten in format 2 (no checksum), its copy too: refused before anything.
        let mut older = spec.clone();
        older.header.format = 2;
        older.write(&dir).unwrap();
        let error = resume_with(&dir, 2, "keys").err().unwrap().to_string();
        assert!(error.contains("is of job format 2, but the job was started with format 3"), "{error}");
        // A job started in format 2 (an older release) resumes as it always did.
        let mut manifest = Manifest::load(&dir).unwrap().unwrap();
        manifest.spec_format = Some(2);
        manifest.commit(&dir).unwrap();
        assert!(resume_with(&dir, 2, "keys").unwrap().finished(&exact).unwrap().is_some());
    }
}
