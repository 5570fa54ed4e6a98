//! Optional TLS (rustls): a server's certificate and key, and the CA a client trusts.

use std::path::{Path, PathBuf};

use leaper_core::input::read_file_bounded;
use leaper_core::{Error, Result};
use tonic::transport::{Identity, Server, ServerTlsConfig};

/// A CA certificate, read once, with the file it came from (for error messages).
#[derive(Clone, Debug)]
pub struct TlsCa {
    pub file: PathBuf,
    pub pem: Vec<u8>,
}

impl TlsCa {
    pub fn read(file: &Path) -> Result<Self> {
        let pem = read(file, "CA")?;
        if !String::from_utf8_lossy(&pem).contains("-----BEGIN CERTIFICATE-----") {
            return Err(Error::File {
                path: file.to_path_buf(),
                message: "the TLS CA file holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into(),
            });
        }
        Ok(TlsCa { file: file.to_path_buf(), pem })
    }
}

/// A gRPC server builder, serving TLS with `cert` and `key` (PEM files) when both are given.
pub fn server(cert: Option<&Path>, key: Option<&Path>) -> Result<Server> {
    let builder = Server::builder();
    let (Some(cert), Some(key)) = (cert, key) else { return Ok(builder) };
    let identity = Identity::from_pem(read(cert, "certificate")?, read(key, "key")?);
    builder.tls_config(ServerTlsConfig::new().identity(identity)).map_err(|e| Error::File {
        path: cert.to_path_buf(),
        message: format!("this TLS certificate, or its key {}, does not load: {e}", key.display()),
    })
}

/// The largest PEM file read: a certificate is one or two KiB, a chain or a CA bundle (the
/// system's, some 200 KiB) well below this.
pub const MAX_PEM_BYTES: u64 = 1 << 20;

fn read(file: &Path, what: &str) -> Result<Vec<u8>> {
    read_file_bounded(file, MAX_PEM_BYTES, &format!("TLS {what} file"))
}
