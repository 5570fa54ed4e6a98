//! The command line, declared with clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use leaper_core::board::{BoardSize, MoveSet};
use serde::{Deserialize, Serialize};

#[derive(Debug, Parser)]
#[command(name = "leaper", version, about = "Exact counts of knight's tours and other combinatorial objects")]
pub struct Cli {
    /// Log format on stderr (RUST_LOG sets the level; default info).
    #[arg(long, value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Closed knight's tours (undirected Hamiltonian cycles of the knight graph).
    Knight(TourArgs),
    /// Closed tours of the camel, the (1,3) leaper.
    Camel(TourArgs),
    /// Closed tours of the zebra, the (2,3) leaper.
    Zebra(TourArgs),
    /// Closed tours of any leaper or union of leapers.
    Tours {
        /// The move set: A,B for the (A,B) leaper, A,B+C,D for a union (the king is 1,0+1,1).
        #[arg(long, value_name = "A,B[+C,D...]")]
        moves: MoveSet,
        #[command(flatten)]
        args: TourArgs,
    },
    /// Quarto draws: arrangements of 0..15 on a 4x4 board in which every line has bitwise OR 15
    /// and bitwise AND 0 (no property shared by a whole line). Prints 414298141056 by default.
    Quarto(QuartoArgs),
    /// Continue an out-of-core job from its last committed step (after a crash or a kill).
    Resume(ResumeArgs),
    /// Show where a job stands: last committed step, layer size, rate, ETA; running or not.
    Status(StatusArgs),
    /// Serve as a cluster worker (the same as the `leaper-worker` binary).
    Worker(leaper_worker::WorkerConfig),
}

#[derive(Debug, Args)]
#[command(after_long_help = "Line families (combine with commas):\n  \
  rows, cols   the four rows, the four columns\n  \
  maindiags    the two long diagonals\n  \
  alldiags     the long diagonal (0,0)-(3,3) and the four diagonals running the other way on the\n               \
               torus, (0,s) (1,s-1) (2,s-2) (3,s-3) with columns mod 4: five lines\n  \
  mainsqrs     corners of every axis-aligned square on the board: nine 2x2 blocks, four of side 2,\n               \
               the four corners: fourteen\n  \
  allsqrs      the same on the torus: sixteen 2x2 blocks (wrapping) and four of side 2: twenty\n\n\
The source document's prose says nine squares (fifteen on the torus) and torus diagonals; its\n\
nine published counts are reproduced by exactly the readings above (the tests check all nine).")]
pub struct QuartoArgs {
    /// The line families that must be draws, for example rows,cols,alldiags (see below).
    #[arg(long, value_name = "FAMILY,...", default_value = "rows,cols,maindiags")]
    pub lines: String,

    /// Count the document's nine variants and print them with the factorisation of count/384.
    #[arg(long, conflicts_with = "lines")]
    pub table: bool,

    /// Output format: text, or one JSON object per variant.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,

    /// Threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,

    /// Run as a resumable job: finished shards are recorded in DIR/ledger.jsonl (created if
    /// missing; it must be empty); `leaper resume --job-dir DIR` runs only the rest.
    #[arg(long, value_name = "DIR")]
    pub job_dir: Option<PathBuf>,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// How a job uses the network: its workers and how to reach them, and the status service it
/// serves. Recorded in the job spec, so that `resume` does the same.
#[derive(Clone, Debug, Default, PartialEq, Eq, Args, Serialize, Deserialize)]
pub struct ClusterArgs {
    /// Run the job on these workers (`host:port,...`, each a running `leaper-worker`). A sweep's
    /// worker order fixes which worker owns which buckets. Needs --job-dir and --token-file.
    #[arg(long, value_name = "ADDR,...", value_delimiter = ',')]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<String>,

    /// File holding the token the workers share.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// Reach the workers over TLS, trusting this CA certificate (PEM) that signed theirs.
    #[arg(long, value_name = "FILE", requires = "workers")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_ca: Option<PathBuf>,

    /// Serve the job's status on this address (the Coordinator gRPC service) while it runs, for
    /// `leaper status --coordinator ADDR`. Needs --job-dir, and --token-file or
    /// --listen-token-file.
    #[arg(long, value_name = "ADDR")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listen: Option<std::net::SocketAddr>,

    /// The token callers of --listen must send (default: --token-file). A token of their own
    /// lets people watch the job without being able to drive its workers.
    #[arg(long, value_name = "FILE", requires = "listen")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listen_token_file: Option<PathBuf>,

    /// Serve --listen over TLS with this certificate chain (PEM). Needs --tls-key.
    #[arg(long, value_name = "FILE", requires_all = ["listen", "tls_key"])]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_cert: Option<PathBuf>,

    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_key: Option<PathBuf>,
}

impl ClusterArgs {
    /// Refuses `--workers` or `--listen` without the job directory and token they need.
    pub fn check(&self, job_dir: Option<&std::path::Path>, records: &str) -> anyhow::Result<()> {
        if !self.workers.is_empty() && (job_dir.is_none() || self.token_file.is_none()) {
            anyhow::bail!("--workers needs --job-dir ({records}) and --token-file (the workers' token)");
        }
        if self.listen.is_some() && (job_dir.is_none() || self.status_token_file().is_none()) {
            anyhow::bail!(
                "--listen needs --job-dir (the status it serves) and --token-file or --listen-token-file (the \
                 callers' token)"
            );
        }
        if self.listen.is_some() && self.tls_ca.is_some() && self.tls_cert.is_none() && self.listen_token_file.is_none()
        {
            anyhow::bail!(
                "the workers use TLS but --listen would carry their token in clear text: give --tls-cert and \
                 --tls-key, or a separate --listen-token-file"
            );
        }
        Ok(())
    }

    /// The same, with every file named by an absolute path, as a job spec records it: `resume`
    /// may run from another directory.
    pub fn recorded(&self) -> ClusterArgs {
        let absolute = |path: &Option<PathBuf>| path.as_ref().map(|p| std::path::absolute(p).unwrap_or(p.clone()));
        ClusterArgs {
            token_file: absolute(&self.token_file),
            tls_ca: absolute(&self.tls_ca),
            tls_cert: absolute(&self.tls_cert),
            tls_key: absolute(&self.tls_key),
            listen_token_file: absolute(&self.listen_token_file),
            ..self.clone()
        }
    }

    /// Applies `resume --listen/--listen-token-file` to the job in `job_dir`, for one run.
    pub fn listen_instead(&mut self, resume: &ResumeArgs) -> anyhow::Result<()> {
        if resume.listen.is_none() {
            return Ok(());
        }
        self.listen = resume.listen;
        self.listen_token_file = resume.listen_token_file.clone().or(self.listen_token_file.take());
        self.check(Some(&resume.job_dir), "its records")
    }

    /// The token file callers of the status service must match.
    pub fn status_token_file(&self) -> Option<&std::path::Path> {
        self.listen_token_file.as_deref().or(self.token_file.as_deref())
    }

    /// The token (and TLS CA) for calling the workers.
    pub fn credentials(&self) -> anyhow::Result<leaper_worker::client::Credentials> {
        let token_file =
            self.token_file.as_deref().ok_or_else(|| anyhow::anyhow!("a cluster job needs --token-file"))?;
        leaper_worker::client::Credentials::load(token_file, self.tls_ca.as_deref())
    }
}

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The job directory given to --job-dir when the job started.
    #[arg(long, value_name = "DIR")]
    pub job_dir: PathBuf,

    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,

    /// Memory budget for this run (default: the one the job started with).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub mem_limit: Option<u64>,

    /// Output format (default: the one the job started with).
    #[arg(long, value_enum)]
    pub format: Option<OutputFormat>,

    /// Serve the status on this address for this run, instead of the job's own --listen.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<std::net::SocketAddr>,

    /// The token callers of --listen must send in this run (default: the job's).
    #[arg(long, value_name = "FILE", requires = "listen")]
    pub listen_token_file: Option<PathBuf>,

    /// Write the results as an OEIS b-file (default: the one the job started with).
    #[arg(long, value_name = "FILE")]
    pub bfile: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The job directory.
    #[arg(long, value_name = "DIR", required_unless_present = "coordinator", conflicts_with = "coordinator")]
    pub job_dir: Option<PathBuf>,

    /// Ask the coordinator serving the job (its --listen address) instead. Needs --token-file.
    #[arg(long, value_name = "ADDR", requires = "token_file")]
    pub coordinator: Option<String>,

    /// File holding the token the coordinator was started with.
    #[arg(long, value_name = "FILE", requires = "coordinator")]
    pub token_file: Option<PathBuf>,

    /// Reach the coordinator over TLS, trusting this CA certificate (PEM).
    #[arg(long, value_name = "FILE", requires = "coordinator")]
    pub tls_ca: Option<PathBuf>,

    /// With --coordinator: print the status again whenever a step has been committed or a shard
    /// finished (at most once a second), until the job has finished.
    #[arg(long, requires = "coordinator")]
    pub follow: bool,

    /// Output format: text, or one JSON object.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

#[derive(Debug, Args)]
pub struct TourArgs {
    /// The board, WIDTHxLENGTH, for example 8x6. A single board is swept along its longer side.
    #[arg(allow_hyphen_values = true)]
    pub board: BoardSize,

    /// Count every length from 1 to LENGTH in one sweep across a frontier WIDTH cells wide.
    #[arg(long)]
    pub sweep: bool,

    /// Output format: text, or one JSON object per result line.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,

    /// Also write the results as an OEIS b-file (`n a(n)` per line).
    #[arg(long, value_name = "FILE")]
    pub bfile: Option<PathBuf>,

    /// Count with one spare modulus and check that the exact result agrees with it.
    #[arg(long)]
    pub verify: bool,

    /// Hash buckets per layer.
    #[arg(long, default_value_t = 503, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub buckets: u32,

    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,

    /// Moduli per counting pass: fewer means fewer bytes per state and more passes.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub moduli_per_pass: Option<u32>,

    /// Run as a resumable out-of-core job: layers in bucket files and a checkpoint after every
    /// step under this directory (created if missing; it must be empty).
    #[arg(long, value_name = "DIR")]
    pub job_dir: Option<PathBuf>,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    /// Memory budget, for example 2GiB or 512MiB. Out of core the default is 4GiB; in memory it
    /// is 80% of the machine's RAM, and a count that needs more stops with advice to use --job-dir.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub mem_limit: Option<u64>,
}

/// Parses `1024`, `512KiB`, `2GiB`, `3G`, `1.5GB` (binary and decimal units).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let value: f64 = number.parse().map_err(|_| format!("{text:?} is not a size such as 2GiB or 512MiB"))?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "kb" => 1e3,
        "m" | "mib" => 1024.0 * 1024.0,
        "mb" => 1e6,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "gb" => 1e9,
        "t" | "tib" => 1024f64.powi(4),
        "tb" => 1e12,
        other => return Err(format!("unknown size unit {other:?} in {text:?}: use B, KiB, MiB, GiB or TiB")),
    };
    let bytes = value * scale;
    if !(1.0..1.8e19).contains(&bytes) {
        return Err(format!("{text:?} is not a usable size"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::{parse_size, ClusterArgs};

    #[test]
    fn job_specs_record_absolute_paths_so_resume_works_from_anywhere() {
        let given = ClusterArgs {
            workers: vec!["h1:7101".into()],
            token_file: Some("secret".into()),
            tls_ca: Some("/etc/leaper/ca.pem".into()),
            ..ClusterArgs::default()
        };
        let recorded = given.recorded();
        assert_eq!(recorded.token_file, Some(std::env::current_dir().unwrap().join("secret")));
        assert_eq!(recorded.tls_ca, given.tls_ca);
        assert_eq!((recorded.workers, recorded.listen, recorded.tls_cert), (given.workers, None, None));
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5 parsecs").is_err());
        assert!(parse_size("0").is_err());
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}
