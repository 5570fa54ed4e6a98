//! The result lines of `--distinct`: one per board, the classes first.

use std::io::Write;

use serde::Serialize;

use super::{fixed_counts, Classes, DistinctPlan};
use crate::engine::problem::{write_json_line, write_line};
use crate::engine::{OutputFormat, Printing, Task};
use crate::error::{Error, Result};
use crate::hamiltonian::board::Geometry;
use crate::hamiltonian::symmetry::Symmetry;
use crate::hamiltonian::transfer::{SlotTour, TourKind};
use crate::problems::tours::CountTask;

/// One JSON line: `count` is the number of classes.
#[derive(Serialize)]
struct ClassLine<'a> {
    problem: String,
    board: String,
    tours: &'static str,
    distinct: bool,
    count: &'a str,
    total: &'a str,
    group_order: usize,
    fixed: Vec<FixedBy<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    classes_by_symmetry_order: Option<&'a std::collections::BTreeMap<usize, String>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    verified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

#[derive(Serialize)]
struct FixedBy<'a> {
    symmetry: &'a str,
    tours: &'a str,
}

impl CountTask {
    fn distinct_plan(&self) -> Result<(Geometry, DistinctPlan)> {
        let plan = &self.plan;
        let geometry = Geometry::new(plan.width, plan.rows, self.moves.clone());
        let distinct = DistinctPlan::new(&geometry, plan.min_rows, self.params.tours)?;
        Ok((geometry, distinct))
    }

    /// The board length and symmetry of a fold's slot (`None` for the board's own slots).
    pub(in crate::problems::tours) fn fold_of_slot(&self, slot: usize) -> Result<Option<(usize, Symmetry)>> {
        if !self.params.distinct {
            return Ok(None);
        }
        let (_, distinct) = self.distinct_plan()?;
        let first = SlotTour { open: true, rows: self.plan.rows }.slot(self.params.tours) + 1;
        Ok(slot.checked_sub(first).and_then(|f| distinct.folds.get(f).copied()))
    }

    /// The classes of every board, by length, from the sweep's counts.
    pub(in crate::problems::tours) fn classes(&self, counts: &[(usize, String)]) -> Result<Vec<(usize, Classes)>> {
        let (geometry, distinct) = self.distinct_plan()?;
        let (plan, tours) = (&self.plan, self.params.tours);
        let open = tours == TourKind::Open;
        let count = |slot: usize| -> Option<rug::Integer> {
            counts.iter().find(|(s, _)| *s == slot).and_then(|(_, c)| c.parse().ok())
        };
        let first = SlotTour { open: true, rows: plan.rows }.slot(tours) + 1;
        let mut out = Vec::new();
        for board in &distinct.boards {
            let Some(total) = count(SlotTour { open, rows: board.rows }.slot(tours)) else {
                continue;
            };
            let fixed = fixed_counts(&distinct, &geometry, open, board, &total, &|f| count(first + f))?;
            out.push((board.rows, Classes::from_fixed(&fixed, plan.transposed)?));
        }
        Ok(out)
    }

    pub(in crate::problems::tours) fn print_classes(
        &self,
        counts: &[(usize, String)],
        printing: Printing,
        out: &mut dyn Write,
    ) -> Result<()> {
        let (plan, tours) = (&self.plan, self.params.tours);
        let open = tours == TourKind::Open;
        let mut reasons: std::collections::HashMap<usize, String> = self.reasons().into_iter().collect();
        for (rows, classes) in self.classes(counts)? {
            let reason = reasons.remove(&SlotTour { open, rows }.slot(tours));
            if reason.is_some() && classes.tours != "0" {
                return Err(Error::Bug(format!("{reason:?}; yet {} were counted", classes.tours)));
            }
            let board = plan.label(rows);
            match printing.format {
                OutputFormat::Json => {
                    let line = ClassLine {
                        problem: self.problem(),
                        board,
                        tours: SlotTour { open, rows }.kind_name(),
                        distinct: true,
                        count: &classes.classes,
                        total: &classes.tours,
                        group_order: classes.group_order,
                        fixed: classes.fixed.iter().map(|(s, n)| FixedBy { symmetry: s, tours: n }).collect(),
                        classes_by_symmetry_order: classes.by_symmetry_order.as_ref(),
                        verified: printing.verified,
                        reason,
                    };
                    write_json_line(out, &line)?;
                }
                OutputFormat::Text => {
                    let fixed: Vec<String> = classes.fixed.iter().skip(1).map(|(s, n)| format!("{s} {n}")).collect();
                    let head = if self.params.sweep {
                        format!("{board} {}", classes.classes)
                    } else {
                        classes.classes.clone()
                    };
                    write_line(
                        out,
                        format_args!(
                            "{head} (of {} tours under {} symmetries; fixed by {})",
                            classes.tours,
                            classes.group_order,
                            fixed.join(", ")
                        ),
                    )?;
                }
            }
        }
        Ok(())
    }
}
