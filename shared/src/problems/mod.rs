//! The problems that run as subtree jobs, and how a job spec names them.

pub mod quarto;

use std::sync::Arc;

use crate::search::SubtreeProblem;
use crate::{Error, Result};

/// The problem a job spec or shard lease names: `problem` with its `params` (see each problem's
/// `params`).
pub fn build(problem: &str, params: &str) -> Result<Arc<dyn SubtreeProblem>> {
    match problem {
        "quarto" => Ok(Arc::new(quarto::Quarto::from_params(params)?)),
        other => Err(Error::InvalidOption(format!("unknown problem {other:?}; the subtree problems are: quarto"))),
    }
}
