//! The Worker gRPC service.

use std::path::PathBuf;

use leaper_proto::v1::worker_server::Worker;
use leaper_proto::v1::{InfoReply, InfoRequest};
use leaper_proto::FORMAT_VERSION;
use tonic::{Request, Response, Status};

/// Name of the file in a data directory that records which job owns it.
pub const JOB_ID_FILE: &str = "job-id";

pub struct WorkerService {
    data_dir: PathBuf,
    threads: usize,
}

impl WorkerService {
    pub fn new(data_dir: PathBuf, threads: usize) -> Self {
        WorkerService { data_dir, threads }
    }

    fn job_id(&self) -> Result<String, Status> {
        match std::fs::read_to_string(self.data_dir.join(JOB_ID_FILE)) {
            Ok(text) => Ok(text.trim().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => Err(Status::internal(format!("cannot read {}: {e}", self.data_dir.join(JOB_ID_FILE).display()))),
        }
    }
}

#[tonic::async_trait]
impl Worker for WorkerService {
    async fn info(&self, _request: Request<InfoRequest>) -> Result<Response<InfoReply>, Status> {
        Ok(Response::new(InfoReply {
            worker_version: env!("CARGO_PKG_VERSION").to_string(),
            format_version: FORMAT_VERSION,
            threads: self.threads as u32,
            job_id: self.job_id()?,
        }))
    }
}
