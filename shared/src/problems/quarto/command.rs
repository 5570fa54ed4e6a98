//! `leaper quarto`: the problem's face to the command line and the job directory.

use std::io::Write;
use std::sync::Arc;

use clap::{Args, FromArgMatches};
use serde::{Deserialize, Serialize};

use super::Quarto;
use crate::engine::jobdir::JobKind;
use crate::engine::problem::{
    table, typed, write_json_line, write_line, Job, OutputFormat, Params, Printing, Problem, Task,
};
use crate::engine::subtree::SubtreeProblem;
use crate::error::{Error, Result};

/// Quarto draws, as the registry names them.
pub struct QuartoProblem;

/// The value symmetries every count is a multiple of (XOR with a constant, bit permutations).
const SYMMETRY: u128 = 384;

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
struct QuartoArgs {
    /// The line families that must be draws, for example rows,cols,alldiags (see below).
    #[arg(long, value_name = "FAMILY,...", default_value = "rows,cols,maindiags")]
    lines: String,

    /// Count the document's nine variants and print them with the factorisation of count/384.
    #[arg(long, conflicts_with = "lines")]
    table: bool,
}

/// What a Quarto job counts, as `job.toml` and shard leases record it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuartoParams {
    /// The line families, `rows,cols,maindiags` (unused with `table`).
    pub lines: String,
    /// The document's nine variants.
    pub table: bool,
}

/// A Quarto count, its parameters read: the variants it counts.
struct QuartoTask {
    params: QuartoParams,
    quarto: Quarto,
}

impl QuartoTask {
    fn read(params: &Params) -> Result<QuartoTask> {
        let params: QuartoParams = typed("quarto", params)?;
        let quarto = if params.table { Quarto::table() } else { Quarto::lines(&params.lines)? };
        Ok(QuartoTask { params, quarto })
    }
}

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

impl Problem for QuartoProblem {
    fn name(&self) -> &'static str {
        "quarto"
    }

    fn kinds(&self, _path: &str) -> &'static [JobKind] {
        &[JobKind::Subtree]
    }

    fn examples(&self, path: &str) -> Option<&'static str> {
        (path == "quarto").then_some(
            "  leaper quarto                     # 414298141056: rows, columns, two diagonals
  leaper quarto --lines rows,cols   # 1329371360640
  leaper quarto --table             # the nine variants, count/384 factorised",
        )
    }

    fn commands(&self) -> Vec<clap::Command> {
        let about = "Quarto draws: arrangements of 0..15 on a 4x4 board in which every line has bitwise OR 15 \
                     and bitwise AND 0 (no property shared by a whole line). Prints 414298141056 by default.";
        vec![QuartoArgs::augment_args(clap::Command::new("quarto"))
            .about("Quarto draws: full 4x4 boards with no line sharing a trait")
            .long_about(about)]
    }

    fn params(&self, _command: &str, matches: &clap::ArgMatches) -> Result<Params> {
        let args = QuartoArgs::from_arg_matches(matches).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        let params = table(&QuartoParams { lines: args.lines, table: args.table })?;
        // Refuse unknown families now, before any job directory is made.
        QuartoTask::read(&params)?;
        Ok(params)
    }

    fn task(&self, params: &Params) -> Result<Arc<dyn Task>> {
        Ok(Arc::new(QuartoTask::read(params)?))
    }
}

impl Task for QuartoTask {
    fn kind(&self) -> JobKind {
        JobKind::Subtree
    }

    /// `quarto rows,cols,maindiags`, or `quarto table` for the document's nine variants.
    fn command_line(&self) -> String {
        self.quarto.describe()
    }

    fn id_stem(&self) -> String {
        "quarto".into()
    }

    fn job(&self) -> Result<Job> {
        let problem: Arc<dyn SubtreeProblem> = Arc::new(self.quarto.clone());
        Ok(Job::Subtree(problem))
    }

    fn slot_label(&self, slot: usize) -> Result<String> {
        let slots = self.quarto.slots();
        slots.get(slot).cloned().ok_or_else(|| Error::Bug(format!("quarto has no slot {slot}")))
    }

    fn print(&self, counts: &[(usize, String)], printing: Printing, out: &mut dyn Write) -> Result<()> {
        let (quarto, job) = (&self.params, &self.quarto);
        let names = job.slots();
        if quarto.table && printing.format == OutputFormat::Text {
            write_line(out, format_args!("{:<30} {:>15}    {}", "lines", "draws", "draws / 384, factorised"))?;
        }
        for (slot, count) in counts {
            let value: u128 = count.parse().map_err(|e| Error::Bug(format!("a Quarto count {count:?}: {e}")))?;
            let line = QuartoLine {
                problem: "quarto",
                lines: names.get(*slot).cloned().unwrap_or_default(),
                count: count.clone(),
                per_symmetry: (value / SYMMETRY).to_string(),
                factorization: factorize(value / SYMMETRY),
            };
            match printing.format {
                OutputFormat::Json => write_json_line(out, &line)?,
                OutputFormat::Text if quarto.table => {
                    write_line(out, format_args!("{:<30} {:>15}    {}", line.lines, line.count, line.factorization))?
                }
                OutputFormat::Text => write_line(out, format_args!("{}", line.count))?,
            }
        }
        Ok(())
    }
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
    use super::*;

    #[test]
    fn the_table_names_its_columns() {
        let params = table(&QuartoParams { lines: "rows,cols".into(), table: true }).unwrap();
        let mut out = Vec::new();
        let counts = [(0, "1329371360640".to_string())];
        let task = QuartoProblem.task(&params).unwrap();
        task.print(&counts, Printing { format: OutputFormat::Text, verified: false }, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "lines                                    draws    draws / 384, factorised\n\
             rows+cols                        1329371360640    (3^2)(5)(76931213)\n"
        );
    }

    #[test]
    fn factorizations_read_as_in_the_document() {
        assert_eq!(factorize(3461904585), "(3^2)(5)(76931213)");
        assert_eq!(factorize(1078901409), "(3)(359633803)");
        assert_eq!(factorize(201599), "(201599)");
        assert_eq!(factorize(1), "(1)");
    }
}
