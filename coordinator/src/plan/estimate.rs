//! From a probe to a plan: the whole layer profile, then what it costs on given machines.
//!
//! The profile is the probe's measured steps followed by the prediction of `leaper status`'s ETA
//! ([`super::model`]: each row's total grows from the row before's, the growth damped row by
//! row, and spreads along the row as row 2's layers, flattened as the rows saturate; the
//! board's last rows are cut down by the problem's known multipliers). Costs follow from
//! the profile and four measured figures (where each was measured: docs/PERFORMANCE.md, "The
//! costs of a plan"):
//!
//! * bytes a state takes in the out-of-core store at the heaviest step: what a large run of the
//!   same lanes measured at its peak, reached from the probe's own figure as layers grow
//!   ([`super::bytes`]);
//! * a step's disk at its peak: the layer it reads, whole until the step commits, and the larger
//!   of the layer it writes and its spill (a bucket's spill runs are removed as they are merged
//!   into its section); the spill of a step that overflows its tables is at most 1.1 times the
//!   layer it produces;
//! * in memory a state of the peak layer costs 1.05 times its record (the in-memory store
//!   appends merged records in chunks, the layer being read freed as the next one grows);
//! * states per second per machine, from the probe's steps of at least 100,000 states;
//! * the shuffle, on more than one worker: every record a step hands on goes to the worker that
//!   owns its bucket, `(W - 1) / W` of them over the network. Each state read costs a worker
//!   1.8 us more than out of core on one machine (fitted on loopback workers), and each record
//!   sent its bytes on disk over an assumed 1 Gbit/s link per worker (records travel
//!   zstd-compressed; as compact as on disk is assumed).
//!
//! Worked example: a sweep whose profile is 1, 10, 100, 40 states read per step (the last step
//! leaves nothing), 5 bytes a state on disk, 10 states a second, two workers with tables for 30
//! states each. The largest step reads 100 and writes 40: the peak disk is (100 + 40) * 5 = 700
//! bytes, 350 per worker, and each worker's 20 new states fit its tables, so nothing spills (on
//! one worker its 40 overflow them: a spill of 1.1 * 40 * 5 = 220 bytes, more than the 200 of
//! the layer it merges into, so 500 + 220 = 720 bytes).
//! The sweep reads 151 states: 15.1 s of work, 7.55 s on the two workers, plus the shuffle:
//! each worker reads 75.5 states (136 us) and sends half of the 75.5 records it hands on (189
//! bytes, 1.5 us at 1 Gbit/s).

/// Bytes in memory per byte of a record of the peak layer, for the in-memory store (fitted on
/// 8x8: docs/PERFORMANCE.md, "The costs of a plan").
pub const IN_MEMORY_OVERHEAD: f64 = 1.05;
/// The spill of a step whose new layer overflows its tables, per byte of that layer (1.12
/// measured at the 9 x 10 run's peak: docs/PERFORMANCE.md, "The costs of a plan").
pub const SPILL_PER_LAYER: f64 = 1.1;
/// The share of the memory budget the out-of-core store gives its tables...
const TABLE_SHARE: f64 = 0.75;
/// ...and the bytes a table entry costs per byte of record (its load factor).
const TABLE_OVERHEAD: f64 = 1.25;
/// Steps reading fewer states than this are left out of the rate (fixed costs dominate them).
pub const RATE_FLOOR: u64 = 100_000;
/// Seconds a state read costs a worker of a cluster beyond out of core on one machine (fitted
/// on loopback workers: docs/PERFORMANCE.md, "The costs of a plan").
pub const SHUFFLE_SECONDS_PER_STATE: f64 = 1.8e-6;
/// Bytes a second each worker sends and receives: an assumed 1 Gbit/s link.
pub const NETWORK_BYTES_PER_SECOND: f64 = 125e6;

/// The predicted layer profile of one pass: states read by every step.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// States read by each step, measured for the first `measured`, predicted after.
    pub states: Vec<u64>,
    pub measured: usize,
}

impl Profile {
    /// The largest layer and the step that reads it.
    pub fn peak(&self) -> (usize, u64) {
        self.states.iter().copied().enumerate().max_by_key(|&(_, s)| s).unwrap_or((0, 0))
    }

    /// States read over the pass.
    pub fn expansions(&self) -> u128 {
        self.states.iter().map(|&s| s as u128).sum()
    }

    /// The step (and the states it reads and leaves) where the old and the new layer together
    /// are largest: the peak of a step's disk.
    pub fn heaviest_step(&self) -> (usize, u64, u64) {
        (0..self.states.len())
            .map(|i| (i, self.states[i], self.states.get(i + 1).copied().unwrap_or(0)))
            .max_by_key(|&(_, read, left)| read as u128 + left as u128)
            .unwrap_or((0, 0, 0))
    }
}

/// The measured figures the costs scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Rates {
    /// Bytes per state in the out-of-core store.
    pub disk_bytes_per_state: f64,
    /// Bytes of one record (key words and lanes) in memory.
    pub record_bytes: f64,
    /// States per second on this machine.
    pub states_per_second: f64,
    /// Records a step hands to the store per state it reads (what a cluster shuffles).
    pub handed_per_read: f64,
}

/// What a sweep costs on `workers` machines with the given memory each.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Cost {
    pub workers: usize,
    /// Peak bytes on each worker's disk: the old layer of the heaviest step, and the larger of
    /// its new layer and its spill (if the new layer overflows the worker's tables).
    pub disk_per_worker: u64,
    /// Whether the heaviest step spills.
    pub spills: bool,
    /// Seconds of one pass a worker spends on the shuffle (0 on one worker).
    pub shuffle_seconds_per_pass: f64,
    /// Seconds for one pass, every worker as fast as this machine, the shuffle included.
    pub seconds_per_pass: f64,
}

/// The cost of `profile` on `workers` machines with `mem` bytes of budget each.
pub fn cost(profile: &Profile, rates: &Rates, workers: usize, mem: u64) -> Cost {
    let workers = workers.max(1);
    let (_, read, left) = profile.heaviest_step();
    let per_worker = |states: u64| states as f64 / workers as f64;
    let table_states = TABLE_SHARE * mem as f64 / (rates.record_bytes * TABLE_OVERHEAD);
    let spills = per_worker(left) > table_states;
    // A bucket's spill runs leave the disk as its section is written: the spill and the new
    // layer are not there in full at once.
    let written = if spills { SPILL_PER_LAYER.max(1.0) } else { 1.0 } * per_worker(left);
    let shuffle = shuffle_seconds(profile, rates, workers);
    Cost {
        workers,
        disk_per_worker: ((per_worker(read) + written) * rates.disk_bytes_per_state).ceil() as u64,
        spills,
        shuffle_seconds_per_pass: shuffle,
        seconds_per_pass: profile.expansions() as f64 / (rates.states_per_second * workers as f64) + shuffle,
    }
}

/// A worker's seconds of shuffle in one pass on `workers` workers (the module docs).
fn shuffle_seconds(profile: &Profile, rates: &Rates, workers: usize) -> f64 {
    if workers < 2 {
        return 0.0;
    }
    let read = profile.expansions() as f64 / workers as f64;
    let sent = read * rates.handed_per_read * (workers - 1) as f64 / workers as f64;
    read * SHUFFLE_SECONDS_PER_STATE + sent * rates.disk_bytes_per_state / NETWORK_BYTES_PER_SECOND
}

/// Bytes the in-memory store needs at the peak layer (one machine, no job directory).
pub fn in_memory_bytes(profile: &Profile, rates: &Rates) -> u64 {
    (profile.peak().1 as f64 * rates.record_bytes * IN_MEMORY_OVERHEAD).ceil() as u64
}

/// The fewest workers whose disks of `disk` bytes each hold the heaviest step (at most
/// `limit`; `None` if even that many do not).
pub fn workers_needed(profile: &Profile, rates: &Rates, disk: u64, mem: u64, limit: usize) -> Option<usize> {
    let fits = |workers: usize| cost(profile, rates, workers, mem).disk_per_worker <= disk;
    if !fits(limit) {
        return None;
    }
    // Disk per worker falls as workers are added: search the smallest that fits.
    let (mut low, mut high) = (1, limit);
    while low < high {
        let middle = (low + high) / 2;
        if fits(middle) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    Some(low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worked_example_of_the_module_docs() {
        let profile = Profile { states: vec![1, 10, 100, 40], measured: 4 };
        let rates =
            Rates { disk_bytes_per_state: 5.0, record_bytes: 16.0, states_per_second: 10.0, handed_per_read: 1.0 };
        // Tables for 30 states: 0.75 * mem / (16 * 1.25) = 30.
        let mem = 800;
        let two = cost(&profile, &rates, 2, mem);
        assert_eq!((two.workers, two.disk_per_worker, two.spills), (2, 350, false));
        // 75.5 states read (1.8 us each), 37.75 records of 5 bytes sent at 125 MB/s.
        let shuffle = 75.5 * 1.8e-6 + 37.75 * 5.0 / 125e6;
        assert!((two.shuffle_seconds_per_pass - shuffle).abs() < 1e-12, "{two:?}");
        assert!((two.seconds_per_pass - 7.55 - shuffle).abs() < 1e-9, "{two:?}");
        assert_eq!(profile.peak(), (2, 100));
        assert_eq!(profile.expansions(), 151);
        // One worker: its 40 new states overflow the tables, and the spill (1.1 times the layer
        // it merges into) is what the disk holds beside the old layer at the step's peak.
        let one = cost(&profile, &rates, 1, mem);
        let spilled = ((100.0 + SPILL_PER_LAYER * 40.0) * 5.0f64).ceil() as u64;
        assert!((720..=721).contains(&spilled), "{spilled}");
        assert_eq!((one.disk_per_worker, one.spills, one.shuffle_seconds_per_pass), (spilled, true, 0.0));
        assert_eq!(workers_needed(&profile, &rates, 350, mem, 64), Some(2));
        assert_eq!(workers_needed(&profile, &rates, 349, mem, 64), Some(3));
        assert_eq!(workers_needed(&profile, &rates, 1, mem, 64), None);
        assert_eq!(in_memory_bytes(&profile, &rates), (100.0f64 * 16.0 * 1.05).ceil() as u64);
    }
}
