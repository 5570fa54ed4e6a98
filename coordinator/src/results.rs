//! Results on stdout as they become final: a sweep's board lengths one by one while it runs (an
//! 8 x 12 sweep has its short boards hours before its end), the rest at the end; the b-file and
//! the remarks on stderr (why a count is 0, that the counts were verified) once all are known.

use anyhow::Result;
use leaper_core::engine::{Printing, Task};

use crate::request::JobRequest;
use crate::{console, fit, zero_notes};

/// The columns a note's text may take on a terminal (after `note: `).
fn note_width() -> usize {
    fit::stderr_width().saturating_sub("note: ".len())
}

/// What has been printed of a job's results.
pub struct ResultStream<'a> {
    task: &'a dyn Task,
    request: &'a JobRequest,
    /// Whether the problem prints its slots one by one (otherwise all at the end).
    one_by_one: bool,
    printed: Vec<usize>,
    /// The first failure to print (stdout closed): the run goes on, and ends with it.
    failed: Option<anyhow::Error>,
}

impl<'a> ResultStream<'a> {
    pub fn new(request: &'a JobRequest) -> ResultStream<'a> {
        let task = request.task.as_ref();
        ResultStream { task, request, one_by_one: task.prints_each_slot(), printed: Vec::new(), failed: None }
    }

    /// Says, before any counting, the task's notes (a graph's vertex order), and why counts the
    /// problem knows to be 0 are 0 (a move set whose graph is disconnected on the board, colours
    /// that cannot alternate along a tour): on stderr, whole where there are few, in brief and
    /// grouped by kind where there are many ([`zero_notes`]); in the JSON result lines as
    /// `reason`.
    pub fn say_why_zero(&self) {
        for note in self.task.notes() {
            console::note(&note);
        }
        let reasons = self.task.reasons();
        let terminal = console::mode() == console::Mode::Display && console::verbose() == 0;
        if reasons.len() <= zero_notes::SAID_WHOLE || !terminal && console::verbose() > 0 || console::json_logs() {
            let briefs = if terminal { self.task.reasons_in_brief() } else { Vec::new() };
            for (slot, reason) in &reasons {
                // On a terminal, a reason wider than it is said in brief, fitted.
                let brief = briefs.iter().find(|(brief_slot, _)| brief_slot == slot).map(|(_, brief)| brief);
                match brief.filter(|_| reason.chars().count() > note_width()) {
                    Some(brief) => console::note(&zero_notes::fitted(brief, note_width())),
                    None => console::note(reason),
                }
            }
            return;
        }
        for line in zero_notes::grouped(&self.task.reasons_in_brief()) {
            let line = if terminal { zero_notes::fitted(&line, note_width()) } else { line };
            console::note(&line);
        }
    }

    /// Prints the counts of slots that became final, if the problem prints slot by slot.
    pub fn settled(&mut self, counts: &[(usize, String)]) {
        if !self.one_by_one || self.failed.is_some() {
            return;
        }
        let fresh: Vec<(usize, String)> =
            counts.iter().filter(|(slot, _)| !self.printed.contains(slot)).cloned().collect();
        if fresh.is_empty() {
            return;
        }
        match self.print(&fresh) {
            Ok(()) => self.printed.extend(fresh.iter().map(|(slot, _)| *slot)),
            Err(error) => self.failed = Some(error),
        }
    }

    /// Prints what is left of `counts` (all of them if the problem prints them together),
    /// writes the b-file, and gives the first failure to print, if any.
    pub fn finish(mut self, counts: &[(usize, String)]) -> Result<()> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        let rest: Vec<(usize, String)> =
            counts.iter().filter(|(slot, _)| !self.printed.contains(slot)).cloned().collect();
        if !rest.is_empty() || !self.one_by_one {
            self.print(if self.one_by_one { &rest } else { counts })?;
        }
        let sweep = self.request.sweep.as_ref();
        if let Some((path, sweep)) = sweep.and_then(|s| Some((s.bfile.as_ref()?, s))) {
            let command = self.task.command_line();
            let rows = self.task.bfile_rows(counts)?;
            crate::output::write_bfile(path, &command, sweep.indexing(), &rows)?;
        }
        if sweep.is_some_and(|s| s.verify) {
            console::note("verified: every count was rebuilt from its moduli and agrees with one spare modulus");
        }
        if self.task.answers_no(counts) {
            return Err(crate::output::AnsweredNo.into());
        }
        Ok(())
    }

    fn print(&self, counts: &[(usize, String)]) -> Result<()> {
        let verified = self.request.sweep.as_ref().is_some_and(|s| s.verify);
        let printing = Printing { format: self.request.run.format, verified };
        console::results(|out| Ok(self.task.print(counts, printing, out)?))
    }
}
