//! The largest count a state holds in each layer of a sweep, beside the sweep's results: what
//! decides whether an exact 64-bit lane is enough (`engine::arith`, "Which lane";
//! docs/PERFORMANCE-LOG.md, "Exact 128-bit counts").
//!
//! ```text
//! cargo run --release -p leaper-core --example largest_counts -- 'board = "9x6"' 'sweep = true'
//! ```
//!
//! Each argument is a line of the tours' parameters as `job.toml` records them (`piece` and
//! `moves` default to the knight's). The sweep runs in memory with exact 128-bit counts and
//! prints, per step (counted from 1, as the logs do), the states it left and the largest count
//! among them, then each reported count.

use std::sync::{Arc, Mutex};

use leaper_core::engine::store::{memory_store, LayerSummary, StateStore, StateVisitor};
use leaper_core::engine::sweep::{sweep_in_process, CountRoute, StoreFactory, SweepOptions, SweepProgress};
use leaper_core::engine::{Job, Moduli, RecordLayout};
use leaper_core::problems;

/// Per `finish_step`: the states it left, and the largest count the step read.
type Notes = Arc<Mutex<Vec<(u64, u128)>>>;

/// A store that notes the largest exact 128-bit count among the states each step reads.
struct Watching {
    inner: Box<dyn StateStore>,
    width: usize,
    largest: Mutex<u128>,
    notes: Notes,
}

impl StateStore for Watching {
    fn layout(&self) -> RecordLayout {
        self.inner.layout()
    }

    fn buckets(&self) -> usize {
        self.inner.buckets()
    }

    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> leaper_core::Result<()> {
        self.inner.read_bucket(bucket, &mut |keys, counts| {
            let lane = |lanes: &[u64]| lanes[0] as u128 | (lanes[1] as u128) << 64;
            if let Some(largest) = counts.chunks_exact(self.width).map(lane).max() {
                let mut held = self.largest.lock().unwrap();
                *held = (*held).max(largest);
            }
            visit(keys, counts)
        })
    }

    fn emit(&self, bucket: usize, records: &[u64]) -> leaper_core::Result<()> {
        self.inner.emit(bucket, records)
    }

    fn emit_merged(&self, bucket: usize, records: &[u64]) -> leaper_core::Result<()> {
        self.inner.emit_merged(bucket, records)
    }

    fn finish_step(&mut self) -> leaper_core::Result<LayerSummary> {
        let summary = self.inner.finish_step()?;
        let largest = std::mem::take(&mut *self.largest.lock().unwrap());
        self.notes.lock().unwrap().push((summary.states, largest));
        Ok(summary)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut lines: Vec<String> = std::env::args().skip(1).collect();
    if !lines.iter().any(|line| line.starts_with("piece")) {
        lines.extend(["piece = \"knight\"".into(), "moves = \"1,2\"".into()]);
    }
    let params: toml::Table = toml::from_str(&lines.join("\n"))?;
    let Job::Sweep(job) = problems::find("tours")?.task(&params)?.job()? else {
        return Err("not a sweep".into());
    };
    println!("bound {:.1} bits, {} steps", job.bound_bits(), job.steps());
    let options = SweepOptions { counts: CountRoute::Exact128, ..SweepOptions::default() };
    let notes = Notes::default();
    let kept = notes.clone();
    let mut host =
        StoreFactory(move |layout: RecordLayout, moduli: &Moduli| -> leaper_core::Result<Box<dyn StateStore>> {
            let inner = memory_store(layout, 503, moduli.clone(), u64::MAX)?;
            Ok(Box::new(Watching { inner, width: moduli.len(), largest: Mutex::new(0), notes: kept.clone() }))
        });
    let report = sweep_in_process(job.as_ref(), &options, &mut host, SweepProgress::default())?;
    let notes = notes.lock().unwrap();
    // The first note is the seed's; the layer note `k` left is read by the step of note `k + 1`.
    for step in 1..notes.len() {
        let (states, largest) = (notes[step].0, notes.get(step + 1).map_or(0, |next| next.1));
        let bits = if largest == 0 { 0.0 } else { (largest as f64).log2() };
        println!("step {step:3}: {states:>13} states, largest count {largest} ({bits:.1} bits)");
    }
    for (slot, count) in &report.counts {
        println!("{} {count} ({:.1} bits)", job.slot_name(*slot), count.to_f64().log2());
    }
    Ok(())
}
