//! The generated gRPC types and services of `leaper.proto`, and the constants both sides agree
//! on. This crate knows nothing of the engine.

pub mod v1 {
    tonic::include_proto!("leaper.v1");
}

/// Version of the wire and on-disk formats; a peer speaking another one is refused.
pub const FORMAT_VERSION: u32 = 1;

/// The metadata key that carries the shared token.
pub const AUTHORIZATION: &str = "authorization";

/// The metadata value for `token`.
pub fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}
