//! vdbench parameter files: storage (`sd=`), workload (`wd=`) and run
//! (`rd=`) definitions with `*=default` entries, continuation lines, wildcards,
//! transfer-size distributions, `iorate=max|N|curve` and `forxxx=` loops,
//! translated into `Job`s: one per workload and storage pair, the pairs of
//! one run sharing a group so they run at the same time, as in vdbench.
//! File-system definitions (`fsd=`, `fwd=`) are checked here and run as
//! file-set jobs (`vdbench_fs`).
//!
//! vdbench's own rules are kept: a keyword may be abbreviated, a line ends at
//! its first blank, a line ending in a comma continues on the next, and the
//! lines after an entry's first belong to it until the next entry starts.

use std::path::Path;

use super::reading::{Format, FormatError, IncludeBudget, Plan, Sources};

mod build;
mod definitions;
mod file_system;
mod interpret;
mod keywords;
mod lex;

use build::Builder;
use interpret::interpret;
use lex::{entries, lex, wildcard};

/// vdbench's curve points: percentages of the max run's rate.
pub const CURVE_POINTS: [f64; 6] = [10.0, 50.0, 70.0, 80.0, 90.0, 100.0];

/// Parses a vdbench parameter file; `path` names it in errors and anchors `include=`.
pub fn parse(text: &str, path: &Path, sources: &Sources) -> Result<Plan, FormatError> {
    let file = path.display().to_string();
    let lines = lex(text, &file, sources, path, &mut IncludeBudget::default(), false)?;
    let entries = entries(&lines, &file)?;
    if entries.is_empty() {
        return Err(FormatError {
            file,
            line: 0,
            column: None,
            message: "no parameters: a vdbench file needs sd=, wd= and rd= lines".into(),
        });
    }
    let parsed = interpret(&entries)?;
    let mut b = Builder {
        parsed: &parsed,
        jobs: Vec::new(),
        warnings: parsed.warnings.clone(),
        group: 0,
    };
    b.build()?;
    let (mut jobs, mut warnings) = (b.jobs, b.warnings);
    // The rds that name fwds, as file-set jobs.
    jobs.extend(super::vdbench_fs::jobs(&parsed.fs, wildcard, &mut warnings)?);
    let cannot_run = None;
    Ok(Plan {
        format: Format::Vdbench,
        jobs,
        warnings,
        cannot_run,
    })
}

#[cfg(test)]
mod tests;
