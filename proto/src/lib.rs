//! The network layer, shared by the coordinator and the worker: the generated gRPC types and
//! services of `leaper.proto`, the conversions between them and engine types ([`convert`]), the
//! shared token ([`auth`]), TLS ([`tls`]), the client channel ([`client`]) and `/metrics` beside
//! the gRPC services ([`metrics`]). Built on
//! `leaper-core`; the engine never imports it.

pub mod auth;
pub mod client;
pub mod convert;
pub mod metrics;
pub mod tls;

pub mod v1 {
    tonic::include_proto!("leaper.v1");
}

/// Version of the wire protocol and of the worker's data directory layout; a peer speaking
/// another one is refused. Format 2 names problems by their registry name and carries keys of
/// any width; format 3 keyed the tours' states in the order of
/// `leaper_core::hamiltonian::order`; format 4 sends what the keys mean
/// (`PrepareRequest.key_layout`, the transition's `key_layout`), which the worker compares with
/// its own, so that a change of a problem's keys needs no new format. Within format 4 Prepare
/// gained the problem's own key format (`PrepareRequest.key_format`, optional: a new field of a
/// proto3 message is ignored by older peers and absent from older coordinators), so that a worker
/// of another key format for the problem is refused by that number. Format 5 carries exact
/// 128-bit counts (`PrepareRequest.moduli` naming the lane's two words) and, with `--verify`,
/// an exact lane checked by a spare prime; a worker of format 4 would add those words as
/// residues, and a worker's layers are bucket sections of format 4 (lanes stored as they are).
/// Format 6 changes nothing on the wire: a worker's layers are bucket sections of format 5
/// (counts shifted by their shared trailing zero bits, blocks of 64 Ki states), which a worker
/// of format 5 could not read back.
pub const FORMAT_VERSION: u32 = 6;

/// The metadata key that carries the shared token.
pub const AUTHORIZATION: &str = "authorization";

/// The metadata value for `token`.
pub fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}
