//! `kura history`: one line per stored run.

use super::escape::term;
use super::format::{mb_per_sec, rate, utc};
use super::run_table::new_table;
use crate::store::RunSummary;

pub fn render(runs: &[RunSummary]) -> String {
    if runs.is_empty() {
        return "no runs stored yet: try `kura mark` or `kura run`\n".to_string();
    }
    let mut t = new_table(&[
        "id", "date", "label", "suite", "target", "workload", "IOPS", "MB/s", "",
    ]);
    for r in runs {
        t.add_row(vec![
            r.id.to_string(),
            utc(r.started_unix_s),
            term(r.label.as_deref().unwrap_or_default()).into_owned(),
            term(r.suite.as_deref().unwrap_or_default()).into_owned(),
            term(&r.target).into_owned(),
            if r.jobs > 1 {
                format!("{} (+{} jobs)", term(&r.workload), r.jobs - 1)
            } else {
                term(&r.workload).into_owned()
            },
            rate(r.iops),
            mb_per_sec(r.bytes_per_sec),
            if r.incomplete {
                "incomplete".into()
            } else {
                String::new()
            },
        ]);
    }
    format!("{t}\n")
}
