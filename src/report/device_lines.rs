//! What the devices under a job counted, as a line under the
//! job's table: the bytes each read and wrote, how busy it was, and the
//! bytes the target's device wrote over kura's (write amplification).

use super::format::bytes_human;
use crate::metrics::device_io::{DeviceCounts, DeviceRole};
use crate::metrics::{JobResult, RunResult};

/// "  device loop3: read 795.0 MiB, wrote 1.0 GiB (1.02x kura's), busy 63 %; under it ...",
/// wrapped; empty for a job without counters.
pub fn job_lines(job: &JobResult) -> String {
    match text(job) {
        Some(text) => super::width::wrap("  ", &text, 4),
        None => String::new(),
    }
}

/// For the suites whose tables have a row a test (bonnie, db): a line for each test.
pub fn by_test(run: &RunResult) -> String {
    let mut out = String::new();
    for job in &run.jobs {
        let Some(text) = text(job) else { continue };
        if out.is_empty() {
            out = format!("{}\n", crate::t!("device-by-test"));
        }
        let test = job.test.as_deref().unwrap_or(&job.job.name);
        let name = match crate::jobs::bonnie_params::Test::from_name(test) {
            Some(t) => crate::t!(bonnie_key(t)),
            None => super::escape::term_cut(test, 40).into_owned(),
        };
        out.push_str(&super::width::wrap(&format!("  {name}: "), &text, 4));
    }
    out
}

/// A bonnie test's name in the reader's language, as its table's headings say it.
fn bonnie_key(test: crate::jobs::bonnie_params::Test) -> &'static str {
    use crate::jobs::bonnie_params::Test;
    match test {
        Test::PutChar => "bonnie-test-put-char",
        Test::PutBlock => "bonnie-test-put-block",
        Test::Rewrite => "bonnie-test-rewrite",
        Test::GetChar => "bonnie-test-get-char",
        Test::GetBlock => "bonnie-test-get-block",
        Test::Seeks => "bonnie-test-seeks",
        Test::SeqCreate => "bonnie-test-seq-create",
        Test::SeqStat => "bonnie-test-seq-stat",
        Test::SeqDelete => "bonnie-test-seq-delete",
        Test::RandCreate => "bonnie-test-rand-create",
        Test::RandStat => "bonnie-test-rand-stat",
        Test::RandDelete => "bonnie-test-rand-delete",
    }
}

fn text(job: &JobResult) -> Option<String> {
    let io = job.device_io.as_ref()?;
    let read_only = job.by_operation().all(|(k, _)| k == crate::metrics::OpKind::Read);
    let one = |d: &DeviceCounts| {
        let mut written = nbsp(bytes_human(d.write_bytes));
        if d.role == DeviceRole::Target {
            written.push_str(&match io.write_amplification {
                Some(x) => crate::t!("device-amplification", ratio = format!("{x:.2}")),
                // Nothing kura counts in bytes (a database's queries, empty files): per operation.
                None if d.write_bytes > 0 && job.total_ops() > 0 && !read_only => crate::t!(
                    "device-per-op",
                    bytes = nbsp(bytes_human(d.write_bytes / job.total_ops()))
                ),
                None => String::new(),
            });
        }
        let busy = match io.window_ns {
            0 => 0.0,
            w => (d.busy_ns as f64 / w as f64 * 100.0).min(100.0),
        };
        crate::t!(
            "device-counts",
            device = d.device.as_str(),
            read = nbsp(bytes_human(d.read_bytes)),
            written = written,
            // The figure and its sign kept on one line when wrapped.
            busy = format!("{busy:.0}\u{a0}%")
        )
    };
    let targets: Vec<String> = io
        .devices
        .iter()
        .filter(|d| d.role == DeviceRole::Target)
        .map(one)
        .collect();
    let under: Vec<String> = io
        .devices
        .iter()
        .filter(|d| d.role == DeviceRole::Under)
        .map(one)
        .collect();
    let mut text = crate::t!("device-target", devices = targets.join("; "));
    if !under.is_empty() {
        text.push_str(&crate::t!("device-under", devices = under.join("; ")));
    }
    Some(text)
}

/// "795.0 MiB" kept on one line when wrapped.
fn nbsp(text: String) -> String {
    text.replace(' ', "\u{a0}")
}
