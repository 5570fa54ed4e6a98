//! `GET /metrics` in Prometheus' text format, served on the same port as the gRPC services (the
//! coordinator's `--listen`, each worker's `--listen`), with the same token.
//!
//! A scrape is a plain HTTP request beside the gRPC calls; tonic's server accepts HTTP/1.1 as
//! well as HTTP/2 (`accept_http1`), and [`MetricsLayer`] answers the path `/metrics` before the
//! gRPC router sees it, handing every other request on as it came:
//!
//! ```text
//! GET /metrics HTTP/1.1                      HTTP/1.1 200 OK
//! Authorization: Bearer <the token>    ─►    content-type: application/openmetrics-text; ...
//!                                            # TYPE leaper_step gauge
//!                                            leaper_step 17
//!                                            ...
//!                                            # EOF
//! ```
//!
//! The token is the one every gRPC call carries (`Authorization: Bearer <token>`, which a
//! Prometheus scrape config sends with `authorization: { credentials_file: TOKEN }`): the
//! figures say what a job is and how far it is, which the status service also keeps to callers
//! with the token. A request without it is answered 401, another method 405.
//!
//! The figures are computed at each scrape, by the closure the server was given, from what the
//! process already reads or counts (the coordinator: `leaper status`'s own reading of the job
//! directory): no second bookkeeping that could disagree. [`Exposition`] encodes them with the
//! `prometheus-client` crate (the Prometheus project's own): counters gain `_total`, a unit its
//! suffix (`_bytes`, `_seconds`).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::task::{Context, Poll};

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::{EncodeCounterValue, EncodeGaugeValue};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::registry::Registry;
pub use prometheus_client::registry::Unit;
use tonic::body::Body;
use tonic::codegen::http::{header, Method, Request, Response, StatusCode};
use tonic::codegen::Service;
use tower_layer::Layer;

use crate::auth::constant_time_eq;
use crate::{bearer, AUTHORIZATION};

/// The path scrapes ask for.
pub const METRICS_PATH: &str = "/metrics";

/// What a scrape is answered with: OpenMetrics text, which Prometheus reads.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Labels of one series: `(name, value)` pairs, for example `[("worker", "10.0.0.2:7101")]`.
pub type Labels = Vec<(String, String)>;

/// The figures of one scrape, each registered once under its name, then encoded.
#[derive(Default)]
pub struct Exposition {
    registry: Registry,
}

impl Exposition {
    /// A value that goes up and down (`name` without its unit: the unit adds its suffix). An
    /// integer (`u64`) is printed as it is, every digit; `f64` for rates and times.
    pub fn gauge<N>(&mut self, name: &str, help: &str, unit: Option<Unit>, value: N)
    where
        N: EncodeGaugeValue + Send + Sync + std::fmt::Debug + 'static,
    {
        match unit {
            Some(unit) => self.registry.register_with_unit(name, help, unit, ConstGauge::new(value)),
            None => self.registry.register(name, help, ConstGauge::new(value)),
        }
    }

    /// A count that only goes up while the process lives (`name` without `_total`, which the
    /// encoding adds, and without its unit).
    pub fn counter<N>(&mut self, name: &str, help: &str, unit: Option<Unit>, value: N)
    where
        N: EncodeCounterValue + Send + Sync + std::fmt::Debug + 'static,
    {
        match unit {
            Some(unit) => self.registry.register_with_unit(name, help, unit, ConstCounter::new(value)),
            None => self.registry.register(name, help, ConstCounter::new(value)),
        }
    }

    /// A gauge with one series per label set (for example one per worker).
    pub fn labelled_gauge(&mut self, name: &str, help: &str, series: &[(Labels, f64)]) {
        let family = Family::<Labels, Gauge<f64, AtomicU64>>::default();
        for (labels, value) in series {
            family.get_or_create(labels).set(*value);
        }
        self.registry.register(name, help, family);
    }

    /// The text a scrape is answered with, ending in `# EOF`.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        encode(&mut text, &self.registry).expect("writing to a String cannot fail");
        text
    }
}

/// Computes one scrape's text, or says why it could not.
pub type Scrape = Arc<dyn Fn() -> Result<String, String> + Send + Sync>;

/// Answers `/metrics` in front of a server's gRPC services (see the module's docs).
#[derive(Clone)]
pub struct MetricsLayer {
    scrape: Scrape,
    expected: Arc<str>,
}

impl MetricsLayer {
    /// Answers scrapes that carry `token` with what `scrape` computes (on a blocking thread: it
    /// may read files).
    pub fn new(token: &str, scrape: Scrape) -> Self {
        MetricsLayer { scrape, expected: bearer(token).into() }
    }

    /// The refusal of a request that is not a scrape with the token, if it is not one.
    fn refusal(&self, request: &Request<Body>) -> Option<Response<Body>> {
        if request.method() != Method::GET {
            let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "only GET /metrics\n");
            response.headers_mut().insert(header::ALLOW, header::HeaderValue::from_static("GET"));
            return Some(response);
        }
        let given = request.headers().get(AUTHORIZATION).map(|value| value.as_bytes());
        match given {
            Some(value) if constant_time_eq(value, self.expected.as_bytes()) => None,
            Some(_) => Some(unauthorized("wrong token\n")),
            None => Some(unauthorized("missing token: send Authorization: Bearer <token> (the cluster's token)\n")),
        }
    }
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Body::new(text.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

fn unauthorized(text: &str) -> Response<Body> {
    let mut response = plain(StatusCode::UNAUTHORIZED, text);
    response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
    response
}

impl<S> Layer<S> for MetricsLayer {
    type Service = WithMetrics<S>;

    fn layer(&self, inner: S) -> WithMetrics<S> {
        WithMetrics { inner, metrics: self.clone() }
    }
}

/// A server's service with `/metrics` answered in front of it.
#[derive(Clone)]
pub struct WithMetrics<S> {
    inner: S,
    metrics: MetricsLayer,
}

type Answer<E> = Pin<Box<dyn Future<Output = Result<Response<Body>, E>> + Send>>;

impl<S> Service<Request<Body>> for WithMetrics<S>
where
    S: Service<Request<Body>, Response = Response<Body>> + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        if request.uri().path() != METRICS_PATH {
            return Box::pin(self.inner.call(request));
        }
        let refused = self.metrics.refusal(&request);
        let scrape = self.metrics.scrape.clone();
        Box::pin(async move {
            if let Some(refusal) = refused {
                return Ok(refusal);
            }
            let text = tokio::task::spawn_blocking(move || scrape()).await;
            let response = match text {
                Ok(Ok(text)) => {
                    let mut response = Response::new(Body::new(text));
                    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static(CONTENT_TYPE));
                    response
                }
                Ok(Err(message)) => plain(StatusCode::INTERNAL_SERVER_ERROR, &format!("{message}\n")),
                Err(error) => plain(StatusCode::INTERNAL_SERVER_ERROR, &format!("the scrape failed: {error}\n")),
            };
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_gain_total_and_units_their_suffix() {
        let mut exposition = Exposition::default();
        exposition.counter("leaper_states_read", "States read", None, 12u64);
        exposition.counter("leaper_step", "Seconds in steps", Some(Unit::Seconds), 1.5f64);
        exposition.gauge("leaper_layer", "Bytes of the layer", Some(Unit::Bytes), 4096u64);
        let series = [(vec![("worker".to_string(), "127.0.0.1:7101".to_string())], 1.0)];
        exposition.labelled_gauge("leaper_cluster_worker_up", "Up", &series);
        let text = exposition.encode();
        assert!(text.contains("\nleaper_states_read_total 12\n"), "{text}");
        assert!(text.contains("\nleaper_step_seconds_total 1.5\n"), "{text}");
        assert!(text.contains("\nleaper_layer_bytes 4096\n"), "{text}");
        assert!(text.contains("\nleaper_cluster_worker_up{worker=\"127.0.0.1:7101\"} 1.0\n"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
}
