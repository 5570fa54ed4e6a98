//! `leaper quarto`: counts of Quarto draws, one variant or the source document's table of nine.

use std::sync::Arc;

use anyhow::Result;
use leaper_core::problems::quarto::Quarto;
use leaper_core::search::{SubtreeProblem, Totals};
use serde::Serialize;

use crate::cli::{OutputFormat, QuartoArgs, ResumeArgs};
use crate::subtree::{self, Placement};

/// The value symmetries every count is a multiple of (XOR with a constant, bit permutations).
const SYMMETRY: u128 = 384;

/// One result line: `{"problem":"quarto","lines":"rows+cols+maindiags","count":"414298141056",...}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QuartoLine {
    pub problem: &'static str,
    pub lines: String,
    pub count: String,
    /// count / 384 and its prime factorisation, as the document's table gives them.
    pub per_symmetry: String,
    pub factorization: String,
}

pub fn run(args: QuartoArgs) -> Result<()> {
    let job = if args.table { Quarto::table() } else { Quarto::lines(&args.lines)? };
    let params = job.params();
    let placement = Placement { threads: args.threads, job_dir: args.job_dir.clone(), cluster: args.cluster.clone() };
    let job: Arc<dyn SubtreeProblem> = Arc::new(job);
    let totals = subtree::run(job.clone(), "quarto", &params, args.format, &placement)?;
    print(job.as_ref(), &totals, args.format, args.table)
}

/// Prints a resumed job's counts.
pub fn resume(args: &ResumeArgs) -> Result<()> {
    let (spec, problem, totals) = subtree::resume(args)?;
    print(problem.as_ref(), &totals, args.format.unwrap_or(spec.output()), spec.params == "table")
}

fn print(problem: &dyn SubtreeProblem, totals: &Totals, format: OutputFormat, table: bool) -> Result<()> {
    use std::io::Write;
    let lines: Vec<QuartoLine> = problem
        .slots()
        .iter()
        .zip(&totals.counts)
        .map(|(name, &count)| QuartoLine {
            problem: "quarto",
            lines: name.clone(),
            count: count.to_string(),
            per_symmetry: (count / SYMMETRY).to_string(),
            factorization: factorize(count / SYMMETRY),
        })
        .collect();
    let mut out = std::io::stdout().lock();
    for line in &lines {
        match format {
            OutputFormat::Json => writeln!(out, "{}", serde_json::to_string(line)?)?,
            OutputFormat::Text if table => {
                writeln!(out, "{:<30} {:>15}    {}", line.lines, line.count, line.factorization)?
            }
            OutputFormat::Text => writeln!(out, "{}", line.count)?,
        }
    }
    out.flush()?;
    Ok(())
}

/// `(3^2)(5)(76931213)`, by trial division (the counts here are below 10^13 / 384).
pub fn factorize(mut n: u128) -> String {
    if n < 2 {
        return format!("({n})");
    }
    let mut text = String::new();
    let mut p = 2u128;
    while p * p <= n {
        let mut power = 0;
        while n.is_multiple_of(p) {
            n /= p;
            power += 1;
        }
        match power {
            0 => {}
            1 => text.push_str(&format!("({p})")),
            _ => text.push_str(&format!("({p}^{power})")),
        }
        p += if p == 2 { 1 } else { 2 };
    }
    if n > 1 {
        text.push_str(&format!("({n})"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::factorize;

    #[test]
    fn factorizations_read_as_in_the_document() {
        assert_eq!(factorize(3461904585), "(3^2)(5)(76931213)");
        assert_eq!(factorize(1078901409), "(3)(359633803)");
        assert_eq!(factorize(201599), "(201599)");
        assert_eq!(factorize(1), "(1)");
    }
}
