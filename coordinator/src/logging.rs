//! tracing setup: human-readable or JSON lines on stderr, level from RUST_LOG (default info).

use tracing_subscriber::EnvFilter;

use crate::cli::LogFormat;

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    // A second init (tests calling run twice) keeps the first subscriber.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        // The span list carries the job span's fields as well as the step's.
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(true).with_span_list(true).try_init(),
    };
}
