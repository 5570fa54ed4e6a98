//! Calling a worker: a channel with keep-alive pings (a dead peer is noticed within seconds),
//! the shared token on every request, the message size limit, and TLS when the cluster uses it.

use std::path::Path;
use std::time::Duration;

use leaper_core::{Error, Result};
use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::service::Interceptor;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

use crate::auth::read_token;
use crate::convert::MAX_MESSAGE_BYTES;
pub use crate::tls::TlsCa;
use crate::v1::worker_client::WorkerClient;
use crate::{bearer, AUTHORIZATION};

/// A worker client that sends the token.
pub type Client = WorkerClient<InterceptedService<Channel, AddToken>>;

/// What a caller needs to reach workers: the shared token and, when the workers serve TLS, the
/// CA certificate (PEM) that signed their certificates.
#[derive(Clone)]
pub struct Credentials {
    pub token: String,
    pub tls_ca: Option<TlsCa>,
}

/// Never prints the token.
impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("token", &"<hidden>").field("tls_ca", &self.tls_ca).finish()
    }
}

impl Credentials {
    /// Reads the token file and, if given, the CA file.
    pub fn load(token_file: &Path, tls_ca: Option<&Path>) -> Result<Self> {
        let tls_ca = tls_ca.map(TlsCa::read).transpose()?;
        Ok(Credentials { token: read_token(token_file)?, tls_ca })
    }
}

/// Adds `authorization: Bearer <token>` to every request.
#[derive(Clone)]
pub struct AddToken(MetadataValue<tonic::metadata::Ascii>);

impl Interceptor for AddToken {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        request.metadata_mut().insert(AUTHORIZATION, self.0.clone());
        Ok(request)
    }
}

impl AddToken {
    pub fn new(token: &str) -> Result<Self> {
        let value =
            bearer(token).parse().map_err(|_| Error::InvalidRequest("the token must be printable ASCII".into()))?;
        Ok(AddToken(value))
    }
}

/// A channel to `address` (`host:port`), over TLS when `credentials` name a CA. The connection
/// is made on first use. The coordinator's own service is reached the same way.
pub fn channel(address: &str, credentials: &Credentials) -> Result<Channel> {
    let scheme = if credentials.tls_ca.is_some() { "https" } else { "http" };
    let mut endpoint = Endpoint::from_shared(format!("{scheme}://{address}"))
        .map_err(|e| Error::InvalidRequest(format!("bad address {address:?}: {e}")))?
        .connect_timeout(Duration::from_secs(5))
        .http2_keep_alive_interval(Duration::from_secs(5))
        .keep_alive_timeout(Duration::from_secs(10))
        .keep_alive_while_idle(true)
        .tcp_nodelay(true);
    if let Some(ca) = &credentials.tls_ca {
        let tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(&ca.pem));
        endpoint = endpoint
            .tls_config(tls)
            .map_err(|e| Error::File { path: ca.file.clone(), message: format!("the TLS CA does not load: {e}") })?;
    }
    Ok(endpoint.connect_lazy())
}

/// A client for the worker at `address`.
pub fn client(address: &str, credentials: &Credentials) -> Result<Client> {
    let channel = channel(address, credentials)?;
    Ok(WorkerClient::with_interceptor(channel, AddToken::new(&credentials.token)?)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES))
}
