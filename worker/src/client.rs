//! Calling a worker: a channel with keep-alive pings (a dead peer is noticed within seconds),
//! the shared token on every request, the message size limit.

use std::time::Duration;

use leaper_proto::v1::worker_client::WorkerClient;
use leaper_proto::{bearer, AUTHORIZATION};
use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::service::Interceptor;
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Status};

use crate::wire::MAX_MESSAGE_BYTES;

/// A worker client that sends the token.
pub type Client = WorkerClient<InterceptedService<Channel, AddToken>>;

/// Adds `authorization: Bearer <token>` to every request.
#[derive(Clone)]
pub struct AddToken(MetadataValue<tonic::metadata::Ascii>);

impl Interceptor for AddToken {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        request.metadata_mut().insert(AUTHORIZATION, self.0.clone());
        Ok(request)
    }
}

/// A client for the worker at `address` (`host:port`). The connection is made on first use.
pub fn client(address: &str, token: &str) -> anyhow::Result<Client> {
    let endpoint = Endpoint::from_shared(format!("http://{address}"))
        .map_err(|e| anyhow::anyhow!("bad worker address {address:?}: {e}"))?
        .connect_timeout(Duration::from_secs(5))
        .http2_keep_alive_interval(Duration::from_secs(5))
        .keep_alive_timeout(Duration::from_secs(10))
        .keep_alive_while_idle(true)
        .tcp_nodelay(true);
    let token = bearer(token).parse().map_err(|_| anyhow::anyhow!("the token must be printable ASCII"))?;
    Ok(WorkerClient::with_interceptor(endpoint.connect_lazy(), AddToken(token))
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES))
}
