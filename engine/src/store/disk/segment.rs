//! Segment files: the buckets of a layer written one after another into a few files, one per
//! writing thread, rather than a file per bucket.
//!
//! ```text
//! pass-P/layer-NNNNNN/s000.lps   [bucket 3][bucket 0][bucket 7]...   each a bucket section
//! pass-P/layer-NNNNNN/s001.lps   [bucket 1][bucket 2]...             (see `section`)
//! ```
//!
//! A bucket section is what a bucket file was (header, blocks, index, footer and a CRC of its
//! own, block offsets counted from the section's start), so a section is checked and read on
//! its own, by the file, offset and length its checkpoint records. Why: a file per bucket and
//! step makes a sweep open, fsync and remove as many small files as its buckets times its
//! steps, and those calls took more time than the counting (docs/PERFORMANCE-LOG.md, "Segment
//! files"). A step writes, fsyncs and later removes one file per thread.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::Result;
use crate::files::durable::{create_file, file_error};
use crate::files::JobFile;

/// One segment file being written: sections appended, then fsynced once.
pub struct SegmentWriter {
    path: PathBuf,
    out: BufWriter<File>,
    written: u64,
}

impl SegmentWriter {
    /// A new, empty segment at `path` (its folder must exist).
    pub fn create(path: &Path) -> Result<Self> {
        let file = create_file(path).map_err(|e| file_error(path, "create", e))?;
        Ok(SegmentWriter { path: path.to_path_buf(), out: BufWriter::with_capacity(1 << 20, file), written: 0 })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes written so far: where the next section starts.
    pub fn position(&self) -> u64 {
        self.written
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write_all(bytes).map_err(|e| file_error(&self.path, "write", e))?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Flushes the file, and fsyncs it when `sync` (a store whose checkpoints do not name every
    /// layer fsyncs a layer only when one is to: [`crate::store::StateStore::make_durable`]).
    pub fn finish(self, sync: bool) -> Result<PathBuf> {
        let file = self.out.into_inner().map_err(|e| file_error(&self.path, "write", e.into_error()))?;
        if sync {
            file.sync_all().map_err(|e| file_error(&self.path, "fsync", e))?;
        }
        Ok(self.path)
    }
}

/// The segments of one layer being written: a bucket takes a writer, appends its section and
/// gives the writer back, so that threads never share one and no more segments are made than
/// buckets are written at once.
pub struct Segments {
    root: PathBuf,
    pass: usize,
    layer: u64,
    idle: Mutex<Vec<SegmentWriter>>,
    made: Mutex<usize>,
}

impl Segments {
    /// The segments of `layer` of `pass` under `root` (the layer's folder must exist).
    pub fn new(root: &Path, pass: usize, layer: u64) -> Self {
        Segments { root: root.to_path_buf(), pass, layer, idle: Mutex::new(Vec::new()), made: Mutex::new(0) }
    }

    /// Runs `write` on a writer no other thread holds (a new segment where none is idle).
    pub fn with_writer<T>(&self, write: impl FnOnce(&mut SegmentWriter) -> Result<T>) -> Result<T> {
        let idle = self.idle.lock().expect("segments lock").pop();
        let mut writer = match idle {
            Some(writer) => writer,
            None => {
                let segment = {
                    let mut made = self.made.lock().expect("segments lock");
                    *made += 1;
                    *made - 1
                };
                let path = self.root.join(JobFile::Segment { pass: self.pass, layer: self.layer, segment }.path());
                SegmentWriter::create(&path)?
            }
        };
        let written = write(&mut writer);
        self.idle.lock().expect("segments lock").push(writer);
        written
    }

    /// Flushes every segment, and fsyncs it when `sync`; returns their paths.
    pub fn finish(self, sync: bool) -> Result<Vec<PathBuf>> {
        let writers = self.idle.into_inner().expect("segments lock");
        writers.into_iter().map(|writer| writer.finish(sync)).collect()
    }
}
