//! The IO500-like suite's page: IO500's phase table (name, GiB/s or kIOPS,
//! time) and its score line, computed from the stored jobs only
//! (jobs::io500 says which job and operation measures each phase).

use serde::Serialize;

use super::run_table::new_table;
use crate::jobs::io500::{self, Group, PHASES};
use crate::metrics::{JobResult, OpKind, RunResult};

const GIB: f64 = (1u64 << 30) as f64;

/// One of IO500's phases as kura measured it.
#[derive(Debug, Clone, Serialize)]
pub struct Io500Row {
    pub phase: String,
    pub group: Group,
    /// GiB/s (bandwidth) or kIOPS (metadata); `None`: not run.
    pub value: Option<f64>,
    pub unit: &'static str,
    /// The phase's time in seconds (IO500's "time").
    pub time_s: Option<f64>,
    /// Operations (transfers, files) the phase did over every rank.
    pub ops: Option<u64>,
    /// With a stonewall: every rank's operations at the deadline together
    /// (`ops` is after wear-out), and the fewest and most of one rank.
    pub stonewall_ops: Option<u64>,
    pub stonewall_min_ops: Option<u64>,
    pub stonewall_max_ops: Option<u64>,
    /// The write phase ended before the stonewall (IO500 marks it INVALID).
    pub before_stonewall: bool,
}

/// The score as IO500's `calc_score` computes it from the rows.
#[derive(Debug, Clone, Serialize)]
pub struct Io500Score {
    pub bandwidth_gib_s: f64,
    pub metadata_kiops: f64,
    pub score: f64,
}

fn job<'a>(run: &'a RunResult, test: &str) -> Option<&'a JobResult> {
    run.jobs.iter().find(|j| j.test.as_deref() == Some(test))
}

fn op_kind(name: &str) -> Option<OpKind> {
    [
        OpKind::Read,
        OpKind::Write,
        OpKind::Create,
        OpKind::Stat,
        OpKind::Delete,
    ]
    .into_iter()
    .find(|k| k.name() == name)
}

/// IO500's phases in its order, each from the kura job that measured it.
pub fn rows(run: &RunResult) -> Vec<Io500Row> {
    PHASES
        .iter()
        .map(|p| {
            let unit = match p.group {
                Group::Bandwidth => "GiB/s",
                Group::Metadata => "kIOPS",
            };
            let mut row = Io500Row {
                phase: p.name.to_string(),
                group: p.group,
                value: None,
                unit,
                time_s: None,
                ops: None,
                stonewall_ops: None,
                stonewall_min_ops: None,
                stonewall_max_ops: None,
                before_stonewall: false,
            };
            let Some(j) = p.test.and_then(|t| job(run, t)) else {
                return row;
            };
            let Some(kind) = op_kind(p.op) else {
                return row;
            };
            let Some(d) = j.operation(kind) else {
                return row;
            };
            row.ops = Some(d.ops);
            // The stonewall is the create phase's in an mdtest job.
            let wall = j.cluster.as_ref().and_then(|c| c.stonewall.as_ref());
            if let Some(s) = wall.filter(|_| p.op == "write" || p.op == "create") {
                row.stonewall_ops = Some(s.ops_at_deadline);
                row.stonewall_min_ops = Some(s.min_ops_at_deadline);
                row.stonewall_max_ops = Some(s.max_ops_at_deadline);
            }
            match p.group {
                Group::Bandwidth => {
                    row.value = Some(d.bytes_per_sec / GIB);
                    row.time_s = Some(j.elapsed_ns as f64 / 1e9);
                }
                Group::Metadata => {
                    row.value = Some(d.iops / 1000.0);
                    row.time_s = Some(if d.iops > 0.0 { d.ops as f64 / d.iops } else { 0.0 });
                }
            }
            if let (Some(s), Some(t)) = (wall, row.time_s)
                && row.stonewall_ops.is_some()
            {
                row.before_stonewall = t * 1e9 < s.deadline_ns as f64;
            }
            row
        })
        .collect()
}

/// IO500's score from the rows: the geometric mean of each group's
/// values above 0, and the square root of their product.
pub fn score(rows: &[Io500Row]) -> Io500Score {
    let of = |g: Group| -> Vec<f64> {
        rows.iter()
            .filter(|r| r.group == g)
            .filter_map(|r| r.value)
            .collect()
    };
    let bandwidth_gib_s = io500::geomean(&of(Group::Bandwidth));
    let metadata_kiops = io500::geomean(&of(Group::Metadata));
    Io500Score {
        bandwidth_gib_s,
        metadata_kiops,
        score: io500::score(bandwidth_gib_s, metadata_kiops),
    }
}

pub fn render(rows: &[Io500Row], score: &Io500Score) -> String {
    let mut t = new_table(&["phase", "value", "unit", "time s", "operations"]);
    for r in rows {
        t.add_row(vec![
            r.phase.clone(),
            r.value.map_or("-".into(), |v| format!("{v:.6}")),
            r.unit.to_string(),
            r.time_s.map_or(crate::t!("io500-not-run"), |s| format!("{s:.3}")),
            r.ops.map_or(String::new(), |o| o.to_string()),
        ]);
    }
    let mut out = format!("{}\n", super::fit::render(&t));
    out.push_str(&crate::report::width::wrap(
        "",
        &format!(
            "[SCORE] Bandwidth {:.6} GiB/s : IOPS {:.6} kiops : TOTAL {:.6} {}",
            score.bandwidth_gib_s,
            score.metadata_kiops,
            score.score,
            crate::t!("io500-like-mark")
        ),
        2,
    ));
    for r in rows {
        if let (Some(at), Some(min), Some(max), Some(ops)) =
            (r.stonewall_ops, r.stonewall_min_ops, r.stonewall_max_ops, r.ops)
        {
            out.push_str(&crate::report::width::wrap(
                "",
                &crate::t!(
                    "io500-stonewall",
                    phase = r.phase.as_str(),
                    at = at.to_string(),
                    min = min.to_string(),
                    max = max.to_string(),
                    ops = ops.to_string()
                ),
                2,
            ));
        }
    }
    let early: Vec<&str> = rows
        .iter()
        .filter(|r| r.before_stonewall)
        .map(|r| r.phase.as_str())
        .collect();
    if !early.is_empty() {
        out.push_str(&crate::report::width::wrap(
            "",
            &crate::t!("io500-before-stonewall", phases = early.join(", ")),
            2,
        ));
    }
    out
}
