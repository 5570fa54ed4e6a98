//! The engine: everything that is the same whatever is being counted.
//!
//! * [`transition`]: the seam a frontier problem implements ([`Transition`]), and the
//!   object-safe [`SweepJob`] every transition gets for free.
//! * [`key`]: state keys (64 or 128 bits) and the [`RecordLayout`] of a state record.
//! * [`sweep`]: the step driver: passes, steps, hosts (in process or on a cluster), totals.
//! * [`kernel`]: one step on all cores ([`kernel::expand_layer`]): each thread's expansion and
//!   staging, successors merged group by group where the problem names neighbourhoods
//!   ([`kernel::grouped`]); and every transition's `SweepJob` impl.
//! * [`arith`]: residues, moduli, CRT to exact integers.
//! * [`store`]: where a layer's states live between steps: in memory, or in segment files.
//! * [`subtree`]: subtree jobs: shards, a ledger of finished shards, local runs.
//! * [`jobdir`]: the job directory: lock, spec, manifest, checkpoints.
//! * [`files`]: the names of every file a job writes, and writing them durably (the job
//!   directory and the disk store's segments both).
//! * [`problem`]: the seam between a problem and the command line ([`Problem`]), and the typed
//!   [`Task`] its parameters read into.
//! * [`dedupe`]: records deduplicated out of core (tour files, and buckets on workers).
//! * [`limits`]: bounds on what a command line may ask for (threads).
//! * [`fault`]: crash and full-disk injection for the crash tests.

pub mod arith;
pub mod dedupe;
pub mod fault;
pub mod files;
pub mod jobdir;
pub mod kernel;
pub mod key;
pub mod limits;
pub mod problem;
pub mod store;
pub mod subtree;
pub mod sweep;
pub mod transition;

pub use arith::Moduli;
pub use key::{RecordLayout, StateKey};
pub use problem::{EngineOption, Job, OutputFormat, Printing, Problem, Requested, Task, Tool, ToolContext};
pub use transition::{ProfileHint, StepPosition, SweepJob, Transition};
