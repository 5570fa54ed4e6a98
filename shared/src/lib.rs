//! leaper-core: the problems and what they stand on; everything that computes, nothing that
//! talks to the network.
//!
//! * [`engine`]: the `leaper-engine` crate (the transition seam and the step driver, state keys
//!   and records, residue arithmetic, the state stores, subtree jobs, the job directory), with
//!   the seam between a problem and the command line beside it.
//! * [`hamiltonian`]: the Hamiltonian frontier, the transfer matrix the tours and graphs stand
//!   on.
//! * [`problems`]: one folder per problem (closed tours of leapers, Quarto draws), each behind
//!   the engine's seams, and the registry that names them.
//! * [`bits`]: scattering and gathering bits, by PDEP and PEXT where the CPU does them fast.
//! * [`cpu`]: the instruction set the build assumes, checked when a binary starts.
//! * [`error`], [`heap`], [`input`]: the engine's, named here as ever.

pub mod bits;
pub mod cpu;
pub mod engine;
pub mod hamiltonian;
pub mod problems;
pub mod units;

pub use leaper_engine::{error, heap, input};
pub use leaper_engine::{Disposition, Error, Result};
