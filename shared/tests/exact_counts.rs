//! The exact passes against the residue route: the same counts, below the exact lane's cap from
//! one pass, past it from the residue passes it falls back to; the 128-bit lane against residues
//! state for state; and the lane the bound chooses.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use leaper_core::engine::arith::{ExactLane, SATURATING};
use leaper_core::engine::problem::{table, Job, Problem};
use leaper_core::engine::store::{memory_store, LayerSummary, StateStore, StateVisitor};
use leaper_core::engine::sweep::{
    plan_moduli, sweep_in_process, CountRoute, StoreFactory, SweepOptions, SweepProgress, SweepReport,
    EXACT_128_FROM_BOUND_BITS,
};
use leaper_core::engine::{Moduli, RecordLayout, SweepJob};
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::{closed_tours, tours, TourKind};
use leaper_core::problems;
use leaper_core::problems::graph::command::GraphParams;
use leaper_core::problems::graph::input::Graph;
use rug::Integer;

fn sweep_job(job: &dyn SweepJob, options: SweepOptions) -> SweepReport {
    common::in_memory(job, &options, 31)
}

fn sweep(width: usize, rows: usize, moves: &MoveSet, options: SweepOptions) -> SweepReport {
    let job = closed_tours(Geometry::new(width, rows, moves.clone()), 1).expect("a valid board");
    sweep_job(job.as_ref(), options)
}

fn exact(width: usize, rows: usize, moves: &MoveSet, counts: CountRoute) -> SweepReport {
    sweep(width, rows, moves, SweepOptions { counts, ..SweepOptions::default() })
}

/// The residue route, checked with a spare modulus.
fn residues(width: usize, rows: usize, moves: &MoveSet) -> SweepReport {
    let options = SweepOptions { spare_moduli: 1, counts: CountRoute::Residues, ..SweepOptions::default() };
    sweep(width, rows, moves, options)
}

#[test]
fn counts_below_2_64_take_one_exact_pass_and_agree_with_residues() {
    // The bound of 6 x 14 asks for two moduli; every count fits in 64 bits.
    let knight = MoveSet::knight();
    let slow = residues(6, 14, &knight);
    assert!(slow.moduli.len() >= 3, "{:?}", slow.moduli);
    for (counts, lanes) in [
        (CountRoute::Exact64, Moduli::saturating()),
        (CountRoute::Exact128, Moduli::exact(ExactLane::Bits128, 0).unwrap()),
    ] {
        let fast = exact(6, 14, &knight, counts);
        assert_eq!(fast.moduli, lanes, "one exact pass, no residues");
        assert_eq!(fast.counts, slow.counts);
        assert_eq!(fast.counts[13].1.to_string(), "4005716717182224826");
    }
}

#[test]
fn counts_past_the_exact_lane_fall_back_to_residues_and_agree_with_them() {
    // King tours of 3 x n grow about sixfold a column: 3 x 60 has about 2^158, past both lanes.
    let king = MoveSet::leapers(&[(1, 0), (1, 1)]).unwrap();
    let slow = residues(3, 60, &king);
    for (counts, bits) in [(CountRoute::Exact64, 64), (CountRoute::Exact128, 128)] {
        let fast = exact(3, 60, &king, counts);
        assert_eq!(fast.moduli.values()[0], SATURATING, "the exact pass ran first");
        assert_eq!(fast.moduli.exact_lane().map(ExactLane::bits), Some(bits));
        assert!(fast.moduli.residues() > 1, "and the residue passes after it");
        assert_eq!(fast.counts, slow.counts, "{bits}");
        let past = |bits: u32| fast.counts.iter().filter(|(_, c)| *c > (Integer::from(1) << bits)).count();
        assert!(past(bits) > 0 && past(64) > past(128) && past(64) < fast.counts.len(), "{:?}", fast.counts);
    }
}

#[test]
fn a_spare_residue_beside_the_exact_lane_checks_every_count() {
    // `--verify` with the exact lanes: one pass, the lane and a spare prime's residue; past the
    // cap (king tours of 3 x 60), the residue passes and their own spare.
    let knight = MoveSet::knight();
    let king = MoveSet::leapers(&[(1, 0), (1, 1)]).unwrap();
    for counts in [CountRoute::Exact64, CountRoute::Exact128] {
        let lane = counts.exact_lane().unwrap();
        let checked = sweep(6, 14, &knight, SweepOptions { spare_moduli: 1, counts, ..SweepOptions::default() });
        assert_eq!(checked.moduli, Moduli::exact(lane, 1).unwrap(), "one pass: the lane and its spare");
        assert_eq!(checked.counts, residues(6, 14, &knight).counts);
        let past = sweep(3, 60, &king, SweepOptions { spare_moduli: 1, counts, ..SweepOptions::default() });
        assert_eq!(past.moduli.exact_lane(), Some(lane));
        assert_eq!(past.counts, residues(3, 60, &king).counts);
    }
}

#[test]
fn the_bound_chooses_the_lane() {
    let knight = MoveSet::knight();
    let route = |width, rows, min_rows| {
        let job = closed_tours(Geometry::new(width, rows, knight.clone()), min_rows).unwrap();
        let plan = plan_moduli(job.as_ref(), &SweepOptions::default()).unwrap();
        (CountRoute::Automatic.resolved(job.bound_bits()), plan.exact_lane(), plan.passes.len())
    };
    // One modulus covers 6 x 6 (the residue modulo 2^64 is the count): no exact pass.
    assert_eq!(route(6, 6, 6), (CountRoute::Residues, None, 1));
    // 8 x 8 (bound 2^88, count 2^43.6) and the 9 x 8 sweep (2^101, 2^52.7): 64 bits.
    // (The exact pass, then one residue pass of every modulus.)
    assert_eq!(route(8, 8, 8), (CountRoute::Exact64, Some(ExactLane::Bits64), 2));
    assert_eq!(route(9, 8, 1), (CountRoute::Exact64, Some(ExactLane::Bits64), 2));
    // 9 x 10 (bound 2^131, count 2^74) and 7 x 12 (2^119, 2^65.1): 128 bits.
    assert_eq!(route(9, 10, 10), (CountRoute::Exact128, Some(ExactLane::Bits128), 2));
    assert_eq!(route(7, 12, 12), (CountRoute::Exact128, Some(ExactLane::Bits128), 2));
    assert!(CountRoute::Automatic.resolved(EXACT_128_FROM_BOUND_BITS - 0.1) == CountRoute::Exact64);
    // 63.5 bits round up to 64, which one modulus does not cover.
    assert_eq!(CountRoute::Automatic.resolved(63.0), CountRoute::Residues);
    assert_eq!(CountRoute::Automatic.resolved(63.5), CountRoute::Exact64);
    // A route given is taken whatever the bound.
    assert_eq!(CountRoute::Exact128.resolved(10.0), CountRoute::Exact128);
    assert_eq!(CountRoute::Residues.resolved(500.0), CountRoute::Residues);
}

/// A layer's states: key words to lanes.
type Layer = BTreeMap<Vec<u64>, Vec<u64>>;

/// Every layer a sweep read, as they are read.
type Layers = Arc<Mutex<Vec<Layer>>>;

/// A store that keeps a copy of every layer as the steps read it.
struct Recording {
    inner: Box<dyn StateStore>,
    layers: Layers,
}

impl StateStore for Recording {
    fn layout(&self) -> RecordLayout {
        self.inner.layout()
    }

    fn buckets(&self) -> usize {
        self.inner.buckets()
    }

    fn read_bucket(&self, bucket: usize, visit: &mut StateVisitor) -> leaper_core::Result<()> {
        let layout = self.inner.layout();
        self.inner.read_bucket(bucket, &mut |keys, lanes| {
            let mut layers = self.layers.lock().unwrap();
            let layer = layers.last_mut().expect("a layer is being read");
            for (key, lanes) in keys.chunks_exact(layout.key_words).zip(lanes.chunks_exact(layout.residues)) {
                assert!(layer.insert(key.to_vec(), lanes.to_vec()).is_none(), "a key twice in one layer");
            }
            visit(keys, lanes)
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
        self.layers.lock().unwrap().push(Layer::new());
        Ok(summary)
    }
}

/// The sweep of `job` by `counts` with a spare modulus, and every layer its first pass read.
fn recorded(job: &dyn SweepJob, counts: CountRoute) -> (SweepReport, Vec<Layer>) {
    let layers = Layers::default();
    let kept = layers.clone();
    let mut host =
        StoreFactory(move |layout: RecordLayout, moduli: &Moduli| -> leaper_core::Result<Box<dyn StateStore>> {
            let inner = memory_store(layout, 13, moduli.clone(), u64::MAX)?;
            // The first pass alone: the layers of one set of lanes.
            let layers = if kept.lock().unwrap().is_empty() { kept.clone() } else { Layers::default() };
            layers.lock().unwrap().push(BTreeMap::new());
            Ok(Box::new(Recording { inner, layers }))
        });
    let options = SweepOptions { spare_moduli: 1, counts, ..SweepOptions::default() };
    let report = sweep_in_process(job, &options, &mut host, SweepProgress::default()).expect("sweep");
    let layers = std::mem::take(&mut *layers.lock().unwrap());
    (report, layers)
}

/// Sweeps `job` with the 128-bit lane and with residues, each checked by a spare modulus, and
/// compares them state for state: the same keys in every layer, each state's exact count the
/// one its residues give, and the same counts per slot.
fn lanes_agree_state_for_state(name: &str, job: &dyn SweepJob) {
    let (wide, wide_layers) = recorded(job, CountRoute::Exact128);
    let (crt, crt_layers) = recorded(job, CountRoute::Residues);
    assert_eq!(wide.moduli, Moduli::exact(ExactLane::Bits128, 1).unwrap(), "{name}: one pass, the lane checked");
    assert_eq!(wide.counts, crt.counts, "{name}");
    assert!(wide.counts.iter().any(|(_, count)| *count > 0), "{name}: a board with something to count");
    assert_eq!(wide_layers.len(), crt_layers.len(), "{name}: the same steps");
    // The residue route's moduli but its spare, which alone reconstruct a count.
    let used = Moduli::from_values(crt.moduli.values()[..crt.moduli.len() - 1].to_vec()).unwrap();
    let mut states = 0;
    for (step, (wide_layer, crt_layer)) in wide_layers.iter().zip(&crt_layers).enumerate() {
        assert!(wide_layer.keys().eq(crt_layer.keys()), "{name}: the keys of layer {step} differ");
        for ((key, lanes), residues) in wide_layer.iter().zip(crt_layer.values()) {
            let count = Integer::from(lanes[0]) | (Integer::from(lanes[1]) << 64);
            assert_eq!(count, used.reconstruct(&residues[..used.len()]), "{name}: layer {step}, key {key:?}");
            // The spare residues of both routes are of the same count.
            assert_eq!(lanes[2], wide.moduli.residue_of(&count, 2), "{name}: layer {step}, key {key:?}");
            let spare = crt.moduli.len() - 1;
            assert_eq!(residues[spare], crt.moduli.residue_of(&count, spare), "{name}: layer {step}, key {key:?}");
            states += 1;
        }
    }
    assert!(states > 100, "{name}: {states} states compared");
}

fn job_of(problem: &str, params: &str) -> Box<dyn SweepJob> {
    let params: toml::Table = toml::from_str(params).unwrap();
    match problems::find(problem).unwrap().task(&params).unwrap().job().unwrap() {
        Job::Sweep(job) => job,
        Job::Subtree(_) => panic!("{problem} {params}: not a sweep"),
    }
}

#[test]
fn the_128_bit_lane_and_residues_agree_state_for_state_on_every_kind_of_sweep() {
    let knight = MoveSet::knight();
    let king = MoveSet::leapers(&[(1, 0), (1, 1)]).unwrap();
    let tours_of = |board: &str, more: &str| {
        job_of("tours", &format!("piece = \"knight\"\nmoves = \"1,2\"\nboard = \"{board}\"\n{more}"))
    };
    let cases: Vec<(&str, Box<dyn SweepJob>)> = vec![
        ("closed sweep", tours_of("6x8", "sweep = true")),
        ("open sweep", tours_of("5x6", "sweep = true\ntours = \"open\"")),
        ("both kinds", tours_of("6x6", "sweep = false\ntours = \"both\"")),
        ("open tours on 128-bit keys", tours(Geometry::new(9, 3, knight.clone()), 1, TourKind::Open).unwrap()),
        ("directed", tours_of("5x6", "sweep = false\ntours = \"open\"\ndirected = true")),
        ("classes under symmetry", tours_of("6x6", "sweep = false\ndistinct = true")),
        ("a board with holes", tours_of("6x6", "sweep = false\ntours = \"both\"\nremoved = [\"a1\", \"b1\"]")),
        ("another leaper: the king", tours(Geometry::new(3, 14, king), 1, TourKind::Both).unwrap()),
        ("a graph", graph_job()),
        ("the quartering", job_of("quarter", "side = 8\nenumerate = false\nby_start = false\nparkin = false")),
    ];
    for (name, job) in cases {
        lanes_agree_state_for_state(name, job.as_ref());
    }
}

/// The Petersen graph's cycles and paths, a sweep over its vertices.
fn graph_job() -> Box<dyn SweepJob> {
    let edges = "0 1\n1 2\n2 3\n3 4\n4 0\n0 5\n1 6\n2 7\n3 8\n4 9\n5 7\n7 9\n9 6\n6 8\n8 5\n";
    let (graph, notes) = Graph::read(edges, None, "petersen").unwrap();
    let params = GraphParams::new("petersen".into(), &graph, notes, TourKind::Both, false, None).unwrap();
    let task = problems::graph::GraphProblem.task(&table(&params).unwrap()).unwrap();
    match task.job().unwrap() {
        Job::Sweep(job) => job,
        Job::Subtree(_) => panic!("a graph count is a sweep"),
    }
}
