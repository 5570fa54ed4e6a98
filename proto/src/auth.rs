//! The shared token: read from a file, required on every call.

use std::path::Path;

use leaper_core::input::read_to_string_bounded;
use leaper_core::{Error, Result};
use tonic::service::Interceptor;
use tonic::{Request, Status};

use crate::{bearer, AUTHORIZATION};

/// The largest token file read: a shared secret is a line of some dozens of characters; a file
/// past this is the wrong file (and is never echoed, being a secret).
pub const MAX_TOKEN_BYTES: u64 = 4 << 10;

/// Reads a token file; surrounding whitespace is ignored, an empty token is refused.
pub fn read_token(path: &Path) -> Result<String> {
    let text = read_to_string_bounded(path, MAX_TOKEN_BYTES, "token file")?;
    let token = text.trim();
    if token.is_empty() {
        return Err(Error::File {
            path: path.to_path_buf(),
            message: "the token file is empty: put a shared secret in it".into(),
        });
    }
    Ok(token.to_string())
}

/// Refuses calls whose `authorization` metadata is not `Bearer <token>`.
#[derive(Clone)]
pub struct TokenCheck {
    expected: String,
}

impl TokenCheck {
    pub fn new(token: String) -> Self {
        TokenCheck { expected: bearer(&token) }
    }
}

impl Interceptor for TokenCheck {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let given = request.metadata().get(AUTHORIZATION).and_then(|v| v.to_str().ok());
        match given {
            Some(value) if constant_time_eq(value.as_bytes(), self.expected.as_bytes()) => Ok(request),
            Some(_) => Err(Status::unauthenticated("wrong token")),
            None => Err(Status::unauthenticated("missing token: send authorization: Bearer <token>")),
        }
    }
}

/// Compares without an early exit, so timing does not reveal how much of a token matched.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
