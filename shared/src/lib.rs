//! leaper-core: everything that computes, nothing that talks to the network.
//!
//! * [`engine`]: what every count shares: the transition seam and the step driver, state keys
//!   and records, residue arithmetic, the state stores, subtree jobs, the job directory, and the
//!   seam between a problem and the command line.
//! * [`hamiltonian`]: the Hamiltonian frontier, the transfer matrix the tours and graphs stand
//!   on.
//! * [`problems`]: one folder per problem (closed tours of leapers, Quarto draws), each behind
//!   the engine's seams, and the registry that names them.
//! * [`bits`]: scattering and gathering bits, by PDEP and PEXT where the CPU does them fast.
//! * [`cpu`]: the instruction set the build assumes, checked when a binary starts.
//! * [`heap`]: large frees returned to the OS, and the resident size the memory limit checks.
//! * [`input`]: files a user names, read within a bound that fits their kind; lines quoted short.

pub mod bits;
pub mod cpu;
pub mod engine;
pub mod error;
pub mod hamiltonian;
pub mod heap;
pub mod input;
pub mod problems;
pub mod units;

pub use error::{Disposition, Error, Result};
