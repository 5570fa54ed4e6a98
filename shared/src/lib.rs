//! leaper-core: everything that computes, nothing that talks to the network.
//!
//! * [`board`]: board sizes, move sets (leapers and their unions), board geometry.
//! * [`frontier`]: the frontier state of the transfer matrix and its canonical 64-bit key.
//! * [`tmx`]: the transfer-matrix step and the sweep that counts closed tours for every length.
//! * [`arith`]: residue vectors, moduli from a proven bound, CRT to exact integers.
//! * [`store`]: where the states of a layer live between steps.
//! * [`fault`]: crash and full-disk injection for the crash tests.
//! * [`brute`]: an independent brute-force counter for small boards.

pub mod arith;
pub mod board;
pub mod brute;
pub mod error;
pub mod fault;
pub mod frontier;
pub mod problems;
pub mod search;
pub mod store;
pub mod tmx;

pub use error::{Error, Result};
