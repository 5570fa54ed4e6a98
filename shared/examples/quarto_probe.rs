use leaper_core::problems::quarto::Quarto;
use leaper_core::search::{local::run_local, SubtreeProblem};
fn main() {
    let spec = std::env::args().nth(1).unwrap();
    let t = std::time::Instant::now();
    let job = Quarto::from_params(&spec).unwrap();
    let totals = run_local(&job, None, None, &mut |_| {}).unwrap();
    for (name, count) in job.slots().iter().zip(&totals.counts) {
        println!("{name} {count}");
    }
    println!("{} shards {:?}", job.shard_count(), t.elapsed());
}
