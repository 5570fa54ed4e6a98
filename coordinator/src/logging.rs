//! tracing setup: human-readable or JSON lines on stderr, level from RUST_LOG (default info).

use tracing_subscriber::EnvFilter;

use crate::cli::LogFormat;

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    // A second init (tests calling run twice) keeps the first subscriber.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(true).try_init(),
    };
}
