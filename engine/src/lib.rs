//! leaper-engine: everything that is the same whatever is being counted. It names no problem and
//! knows no command line (no clap): the problems (`leaper-core`) stand on it, and cargo keeps it
//! from reaching back to them.
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
//! * [`dedupe`]: records deduplicated out of core (tour files, and buckets on workers).
//! * [`limits`]: bounds on what a command line may ask for (threads).
//! * [`fault`]: crash and full-disk injection for the crash tests.
//! * [`error`]: the one error type; [`heap`]: large frees returned to the OS and the resident
//!   size the memory limit checks; [`input`]: files a user names, read within a bound.

pub mod arith;
pub mod dedupe;
pub mod error;
pub mod fault;
pub mod files;
pub mod heap;
pub mod input;
pub mod jobdir;
pub mod kernel;
pub mod key;
pub mod limits;
pub mod store;
pub mod subtree;
pub mod sweep;
pub mod transition;

pub use arith::Moduli;
pub use error::{Disposition, Error, Result};
pub use key::{RecordLayout, StateKey};
pub use transition::{ProfileHint, StepPosition, SweepJob, Transition};
