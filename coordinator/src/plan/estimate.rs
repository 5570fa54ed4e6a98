//! From a probe to a plan: the whole layer profile, then what it costs on given machines.
//!
//! The profile is the probe's measured steps followed by the prediction of `leaper status`'s ETA
//! ([`super::model`]: each row's total grows from the row before's, the growth damped row by
//! row, and spreads along the row as row 2's layers, flattened as the rows saturate; the
//! board's last rows are cut down by the problem's known multipliers). Costs follow from
//! the profile and four measured figures (where each was measured: docs/PERFORMANCE-LOG.md, "The
//! costs of a plan"):
//!
//! * bytes a state takes in the out-of-core store at the heaviest step: what a large run of the
//!   same lanes measured at its peak, reached from the probe's own figure as layers grow
//!   ([`super::bytes`]);
//! * a step's disk at its peak: the layer it reads, whole until the step commits, and the larger
//!   of the layer it writes and its spill (a bucket's spill runs are removed as they are merged
//!   into its section); the spill of a step that overflows its tables is at most 1.1 times the
//!   layer it produces;
//! * in memory a state of the peak layer needs 1.05 times its record, the store frugal (the
//!   layer being read freed as the next one grows), and takes 2.1 times while the store is
//!   roomy, under a quarter of its limit ([`in_memory_held`]);
//! * states per second per machine, from the probe's steps of at least 100,000 states;
//! * the shuffle, on more than one worker ([`shuffle_seconds`]): every record a step hands on
//!   goes to the worker that owns its bucket, `(W - 1) / W` of them over the network; a step
//!   hands on about as many records as the layer it leaves holds states (the probe's ratio of
//!   the two: [`super::probe::Probe::handed_per_left`]). Two costs,
//!   both measured (docs/PERFORMANCE-LOG.md, "The shuffle measured on links of 1 Gbit/s, 100 Mbit/s
//!   and 10 Mbit/s"):
//!   - the processor's: each state read costs a worker [`SHUFFLE_SECONDS_PER_STATE`] more than
//!     out of core on one machine (sending, receiving, merging what others sent);
//!   - the link's: each record sent takes [`WIRE_BYTES_PER_WORD`] bytes a 64-bit word of its
//!     record (key words and lanes; zstd-compressed batches), over a link of `--link` each way
//!     (default [`link::DEFAULT_LINK`], assumed) that carries records at [`LINK_EFFICIENCY`] of
//!     its rate. The link runs beside the expansion: a step
//!     takes the longer of its work (the processor's share included) and its link time, so a
//!     link only costs what it takes beyond the work. Steps' fixed costs (3-50 ms a step, the
//!     calls and the commit) are left out.
//!
//! Worked example: a sweep whose profile is 1, 10, 100, 40 states read per step (the last step
//! leaves nothing), 5 bytes a state on disk, 10 states a second, two workers with tables for 30
//! states each. The largest step reads 100 and writes 40: the peak disk is (100 + 40) * 5 = 700
//! bytes, 350 per worker, and each worker's 20 new states fit its tables, so nothing spills (on
//! one worker its 40 overflow them: a spill of 1.1 * 40 * 5 = 220 bytes, more than the 200 of
//! the layer it merges into, so 500 + 220 = 720 bytes).
//! The sweep reads 151 states: 15.1 s of work, 7.55 s on the two workers, plus the shuffle:
//! each worker reads 75.5 states, 1.7 us more (0.022 us each). On a link of 80 bit/s (10 bytes a
//! second, of which records get 7.2) where a record sent is 8.4 bytes (2 words) and a step hands
//! on a record a state it leaves, step 2's worker reads 5 states (0.5 s of work) and hands on 50
//! records, of which it sends half, 25, 210 bytes: 29.17 s of link, 28.67 s beyond its work;
//! steps 1 and 3 (2.5 and 10 records: 2.92 and 11.67 s of link against 0.05 and 5 s of work) add
//! 2.87 and 6.67 s, step 4 (it leaves nothing) none: 38.2 s in all (315 bytes sent at 7.2 a
//! second, less the 5.55 s of work of the steps that send). At 1 Gbit/s no step's link time
//! comes near its work: the shuffle is the processor's 1.7 us alone.

use super::link::{self, LinkRate};

/// Bytes in memory per byte of a record of the peak layer, for the in-memory store once frugal
/// (a layer freed as it is read, tables drained as they are written: what must fit the limit):
/// 8.57 GiB for the 562 M 16-byte states of a row-major 8 x 8's peak (docs/PERFORMANCE-LOG.md, "The
/// costs of a plan").
pub const IN_MEMORY_OVERHEAD: f64 = 1.05;
/// The same while the store is roomy (below a quarter of its limit it keeps the layer read and
/// the tables of the one written from step to step, for speed): `leaper --log-format json knight
/// 8x8` held 3,261 MB at its end (the `step done` lines' `peak_rss_bytes`) for a peak layer of
/// 97,147,304 records of 16 bytes, 2.10 times their bytes. Smaller layers take more a state
/// (fixed costs: 5.3 times at `knight 7x10`'s 4.4 M); records of two lanes as many times theirs
/// (1.48 times one lane's bytes at 7 x 10, for records 1.5 times as long).
pub const IN_MEMORY_ROOMY: f64 = 2.1;
/// The spill of a step whose new layer overflows its tables, per byte of that layer (1.12
/// measured at the 9 x 10 run's peak: docs/PERFORMANCE-LOG.md, "The costs of a plan").
pub const SPILL_PER_LAYER: f64 = 1.1;
/// The share of the memory budget the out-of-core store gives its tables...
const TABLE_SHARE: f64 = 0.75;
/// ...and the bytes a table entry costs per byte of record (its load factor).
const TABLE_OVERHEAD: f64 = 1.25;
/// Steps reading fewer states than this are left out of the rate (fixed costs dominate them).
pub const RATE_FLOOR: u64 = 100_000;
/// Seconds a state read costs a worker of a cluster beyond out of core on one machine, as wall
/// time on two threads: `knight 9x6 --sweep` (352,112,428 states read) took 104.9 s of processor
/// time on three namespaced workers linked at 1 Gbit/s (their user and system time, from
/// /proc) against 89.3 s out of core in one process, both at `--mem-limit 1GiB` on this 2-core
/// machine: 15.6 s more, 0.044 us a state read, 0.022 us of wall on two threads
/// (docs/PERFORMANCE-LOG.md, "The shuffle's processor share, in processor time"). Processor time,
/// unlike the wall, does not care that the three workers shared two cores. (The loopback fit it
/// replaces, 1.8 us, took the wall of workers sharing one machine's cores for their cost.)
pub const SHUFFLE_SECONDS_PER_STATE: f64 = 15.6 / 352_112_428.0 / 2.0;
/// Compressed bytes a record sent between workers takes a 64-bit word of its record (key and
/// lanes): `knight 9x6 --sweep` (one key word, one exact 64-bit lane) sent 235,010,260 records
/// in 1,976,763,549 bytes, 8.41 a record, 4.21 a word (7.1 a record on its first rows, 8.4 at
/// its peak, 9.9 at its end: counts grow). Other layouts are assumed to compress alike per
/// word: measured on one layout only.
pub const WIRE_BYTES_PER_WORD: f64 = 1_976_763_549.0 / 235_010_260.0 / 2.0;
/// The share of a link's rate that records get: the 9 x 6 sweep's steps that waited on links of
/// 10 Mbit/s took 1.2-1.8 times (1.37 over the pass) what their bytes take at the full rate; the
/// links carried 7% more than the records (headers, TCP's retransmissions under the limit). A
/// pass of steps of the longer of their work and their bytes at 0.72 of the rate takes 732 s
/// against 736 s measured. Measured at 10 Mbit/s only: at 100 Mbit/s and 1 Gbit/s the work
/// outlasted the link at every step.
pub const LINK_EFFICIENCY: f64 = 0.72;

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
    /// Records a step hands to the store per state of the layer it leaves (what a cluster
    /// shuffles).
    pub handed_per_left: f64,
    /// Bytes a record sent to another worker takes on the wire ([`WIRE_BYTES_PER_WORD`] a word).
    pub wire_bytes_per_record: f64,
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
    /// The link each worker has, each way.
    pub link: LinkRate,
    /// Seconds of one pass a worker spends on the shuffle (0 on one worker): the processor's
    /// share and the link's time beyond the work.
    pub shuffle_seconds_per_pass: f64,
    /// Of those, the link's: what its steps' link times take beyond their work.
    pub link_seconds_per_pass: f64,
    /// Bytes each worker sends in one pass (and, as many, receives).
    pub sent_bytes_per_worker: f64,
    /// Seconds for one pass, every worker as fast as this machine, the shuffle included.
    pub seconds_per_pass: f64,
}

/// The cost of `profile` on `workers` machines with `mem` bytes of budget each, on links of
/// the default speed ([`link::DEFAULT_LINK`]).
pub fn cost(profile: &Profile, rates: &Rates, workers: usize, mem: u64) -> Cost {
    cost_on(profile, rates, workers, mem, link::DEFAULT_LINK)
}

/// The cost of `profile` on `workers` machines with `mem` bytes of budget each, each linked to
/// the others at `link`.
pub fn cost_on(profile: &Profile, rates: &Rates, workers: usize, mem: u64, link: LinkRate) -> Cost {
    let workers = workers.max(1);
    let (_, read, left) = profile.heaviest_step();
    let per_worker = |states: u64| states as f64 / workers as f64;
    let table_states = TABLE_SHARE * mem as f64 / (rates.record_bytes * TABLE_OVERHEAD);
    let spills = per_worker(left) > table_states;
    // A bucket's spill runs leave the disk as its section is written: the spill and the new
    // layer are not there in full at once.
    let written = if spills { SPILL_PER_LAYER.max(1.0) } else { 1.0 } * per_worker(left);
    let shuffle = shuffle_seconds(profile, rates, workers, link);
    Cost {
        workers,
        disk_per_worker: ((per_worker(read) + written) * rates.disk_bytes_per_state).ceil() as u64,
        spills,
        link,
        shuffle_seconds_per_pass: shuffle.processor + shuffle.link,
        link_seconds_per_pass: shuffle.link,
        sent_bytes_per_worker: shuffle.sent_bytes,
        seconds_per_pass: profile.expansions() as f64 / (rates.states_per_second * workers as f64)
            + shuffle.processor
            + shuffle.link,
    }
}

/// What the shuffle costs a worker in one pass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ShuffleSeconds {
    /// The processor's share: sending, receiving, merging what others sent.
    pub processor: f64,
    /// The link's time beyond the work, summed over the steps.
    pub link: f64,
    /// Bytes the worker sends.
    pub sent_bytes: f64,
}

/// A worker's shuffle in one pass on `workers` workers linked at `link` (the module docs): step
/// by step, the link's time beyond the step's work.
pub fn shuffle_seconds(profile: &Profile, rates: &Rates, workers: usize, link: LinkRate) -> ShuffleSeconds {
    if workers < 2 {
        return ShuffleSeconds::default();
    }
    let share = (workers - 1) as f64 / workers as f64;
    let mut shuffle = ShuffleSeconds::default();
    for (step, &states) in profile.states.iter().enumerate() {
        let read = states as f64 / workers as f64;
        let left = profile.states.get(step + 1).copied().unwrap_or(0) as f64 / workers as f64;
        let processor = read * SHUFFLE_SECONDS_PER_STATE;
        let work = read / rates.states_per_second + processor;
        let sent_bytes = left * rates.handed_per_left * share * rates.wire_bytes_per_record;
        shuffle.processor += processor;
        shuffle.link += (sent_bytes / (link.bytes_per_second() * LINK_EFFICIENCY) - work).max(0.0);
        shuffle.sent_bytes += sent_bytes;
    }
    shuffle
}

/// Bytes the in-memory store needs at the peak layer (one machine, no job directory): what must
/// fit its memory limit.
pub fn in_memory_bytes(profile: &Profile, rates: &Rates) -> u64 {
    (profile.peak().1 as f64 * rates.record_bytes * IN_MEMORY_OVERHEAD).ceil() as u64
}

/// Bytes a count in memory holds at its peak under a memory limit of `limit`: roomy while that
/// stays under a quarter of the limit, else what it grew to by then or its frugal need,
/// whichever is more ([`IN_MEMORY_ROOMY`]).
pub fn in_memory_held(profile: &Profile, rates: &Rates, limit: u64) -> u64 {
    let roomy = (profile.peak().1 as f64 * rates.record_bytes * IN_MEMORY_ROOMY).ceil() as u64;
    if roomy <= limit / 4 {
        roomy
    } else {
        in_memory_bytes(profile, rates).max(limit / 4)
    }
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
        let rates = Rates {
            disk_bytes_per_state: 5.0,
            record_bytes: 16.0,
            states_per_second: 10.0,
            handed_per_left: 1.0,
            wire_bytes_per_record: 8.4,
        };
        // Tables for 30 states: 0.75 * mem / (16 * 1.25) = 30.
        let mem = 800;
        let two = cost(&profile, &rates, 2, mem);
        assert_eq!((two.workers, two.disk_per_worker, two.spills), (2, 350, false));
        // 75.5 states read (0.022 us each); at 1 Gbit/s the link never outlasts a step's work.
        let shuffle = 75.5 * SHUFFLE_SECONDS_PER_STATE;
        assert!((shuffle - 1.67e-6).abs() < 0.01e-6, "{shuffle}");
        assert!((two.shuffle_seconds_per_pass - shuffle).abs() < 1e-12, "{two:?}");
        assert_eq!(two.link_seconds_per_pass, 0.0);
        assert!((two.sent_bytes_per_worker - 37.5 * 8.4).abs() < 1e-9, "{two:?}");
        assert!((two.seconds_per_pass - 7.55 - shuffle).abs() < 1e-9, "{two:?}");
        // At 80 bit/s (7.2 bytes a second for records), 315 / 7.2 - 5.55 = 38.2 s of link beyond
        // the work of the three steps that send (less their processor's share, in the work).
        let slow = cost_on(&profile, &rates, 2, mem, LinkRate { bits_per_second: 80.0 });
        let beyond: f64 = 315.0 / 7.2 - 5.55;
        assert!((beyond - 38.2).abs() < 1e-9);
        let sending = 55.5 * SHUFFLE_SECONDS_PER_STATE;
        assert!((slow.link_seconds_per_pass - (beyond - sending)).abs() < 1e-9, "{slow:?}");
        // The pass: the work, every step's processor share, the link beyond the sending steps'.
        assert!((slow.seconds_per_pass - 7.55 - beyond - (shuffle - sending)).abs() < 1e-9, "{slow:?}");
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
        // Roomy (2.1 times the records, 3,360 bytes) under a quarter of the limit; past it, what it
        // grew to by then, or the frugal need if more.
        assert_eq!(in_memory_held(&profile, &rates, 4 * 3360), 3360);
        assert_eq!(in_memory_held(&profile, &rates, 4 * 3000), 3000);
        assert_eq!(in_memory_held(&profile, &rates, 4 * 1000), 1680);
    }

    /// `knight 9x6 --sweep` on three workers in network namespaces (docs/PERFORMANCE-LOG.md, "The
    /// shuffle measured on links of 1 Gbit/s, 100 Mbit/s and 10 Mbit/s"): the states each step
    /// read, and the pass's figures as the coordinator's `shuffle` lines summed them.
    const NINE_BY_SIX_STATES: [u64; 45] = [
        1, 1, 1, 6, 21, 105, 315, 915, 4650, 22643, 31859, 45344, 59356, 154258, 347562, 814168, 1883701, 2649512,
        5005548, 5829058, 7606903, 9220664, 13809541, 14655780, 17406316, 24370426, 28699536, 28274957, 30304099,
        32595104, 30312163, 27247069, 16397081, 15793125, 15102355, 12484479, 6643508, 3553086, 741889, 43025, 2090,
        128, 62, 15, 3,
    ];
    const NINE_BY_SIX_SENT_RECORDS: f64 = 235_010_260.0;
    const NINE_BY_SIX_SENT_BYTES: f64 = 1_976_763_549.0;
    /// The Expand calls' wall time over the pass at 1 Gbit/s (no step waited on a link) and at
    /// 10 Mbit/s.
    const NINE_BY_SIX_EXPAND_FAST: f64 = 156.13;
    const NINE_BY_SIX_EXPAND_10_MBIT: f64 = 736.28;

    #[test]
    fn the_model_prices_the_nine_by_six_shuffle_as_measured() {
        let profile = Profile { states: NINE_BY_SIX_STATES.to_vec(), measured: 45 };
        let read = profile.expansions() as f64;
        assert_eq!(read, 352_112_428.0);
        // The records handed on, of which two thirds went to another worker; the work of a
        // worker's third at the rate of the run at 1 Gbit/s.
        let rates = Rates {
            disk_bytes_per_state: 2.73,
            record_bytes: 16.0,
            states_per_second: read / 3.0 / NINE_BY_SIX_EXPAND_FAST,
            handed_per_left: NINE_BY_SIX_SENT_RECORDS / ((read - 1.0) * 2.0 / 3.0),
            wire_bytes_per_record: 2.0 * WIRE_BYTES_PER_WORD,
        };
        let at = |bits_per_second| cost_on(&profile, &rates, 3, 1 << 30, LinkRate { bits_per_second });
        let slow = at(1e7);
        // Each worker sent a third of the bytes.
        let sent = slow.sent_bytes_per_worker / (NINE_BY_SIX_SENT_BYTES / 3.0);
        assert!((sent - 1.0).abs() < 1e-9, "{sent}");
        // At 10 Mbit/s the links held every large step: the pass within 2% of the measured.
        let ratio = slow.seconds_per_pass / NINE_BY_SIX_EXPAND_10_MBIT;
        assert!((0.98..1.02).contains(&ratio), "{ratio}: {slow:?}");
        // At 1 Gbit/s no step waits on its link.
        assert_eq!(at(1e9).link_seconds_per_pass, 0.0);
    }
}
