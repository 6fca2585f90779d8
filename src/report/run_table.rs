//! The terminal report of one run: a header, warnings, and per job a table
//! of throughput and latency per direction, then its percentiles.

use comfy_table::{CellAlignment, LineStyle, Table, TableStyle};

use super::escape::term;
use super::format::{latency, mb_per_sec, mib_per_sec, rate, utc};
use crate::metrics::histogram::{PERCENTILES, percentile_key};
use crate::metrics::{JobResult, RunResult, TargetKind};

/// Lines above, below and under the header only: easy to read, easy to paste.
const STYLE: TableStyle = TableStyle::new()
    .top_border(LineStyle::none().fill('─').junction('─'))
    .header_separator(LineStyle::none().fill('─').junction('─'))
    .bottom_border(LineStyle::none().fill('─').junction('─'));

pub fn new_table(header: &[&str]) -> Table {
    let mut t = Table::new();
    // Laid out at its natural width: `fit::render` makes it fit 80 columns
    // by taking columns out, never by wrapping a cell.
    t.load_style(STYLE);
    t.set_header(header.iter().map(|h| crate::i18n::heading(h)).collect::<Vec<_>>());
    for i in 1..header.len() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}

/// What the target is, as a reader names it. A file set's anchor is stored
/// as a file target (`TargetKind` keeps its two kinds, so runs stored now
/// still load in an older kura), but it is a directory.
pub fn target_kind_text(job: &JobResult) -> String {
    match job.target.kind {
        TargetKind::Block => crate::t!("target-block-device"),
        TargetKind::File if job.job.workload.kind().target_is_directory() => {
            crate::t!("target-directory")
        }
        TargetKind::File => crate::t!("target-file"),
    }
}

pub fn target_line(job: &JobResult) -> String {
    let t = &job.target;
    let mut parts = vec![target_kind_text(job)];
    if let Some(fs) = &t.fs_type {
        parts.push(fs.clone());
    }
    if let Some(dev) = &t.device {
        parts.push(crate::t!("target-on", dev = dev.as_str()));
    }
    if let Some(model) = &t.device_model {
        parts.push(term(model).into_owned());
    }
    match t.rotational {
        Some(true) => parts.push(crate::t!("target-rotational")),
        Some(false) => parts.push(crate::t!("target-non-rotational")),
        None => {}
    }
    // The part measured, not only the whole: a device's first 1 GiB is not the device.
    parts.push(super::span::span_text(job));
    format!("{} ({})", term(&t.path), parts.join(", "))
}

/// The syncs a job made and, where its syncs may hold the queue below its
/// depth (`fsync_every` at a qd above 1), how many I/Os it kept in flight.
pub fn syncs_text(job: &JobResult) -> String {
    if job.syncs == 0 {
        return String::new();
    }
    let mut text = format!(", {} fdatasync", job.syncs);
    if job.job.fsync_every.is_some()
        && job.job.qd > 1
        && let Some(n) = job.mean_in_flight()
    {
        text.push_str(&crate::t!("job-in-flight", n = format!("{n:.1}")));
    }
    text
}

pub fn render_job(job: &JobResult, measuring: bool) -> String {
    let mut out = String::new();
    // A name of any length is stored; the title shows its start.
    let name = super::escape::term_cut(&job.job.name, super::escape::SHOWN_CHARS);
    let title = match &job.test {
        Some(test) => format!("{name} [{}]", term(test)),
        None => name.into_owned(),
    };
    let measured = format!(
        "{}{}",
        crate::t!(
            "job-measured",
            engine = job.engine.as_str(),
            elapsed = format!("{:.2}", job.elapsed_ns as f64 / 1e9),
            ramp = if job.ramp_ns > 0 {
                crate::t!("job-ramp", ramp = format!("{:.1}", job.ramp_ns as f64 / 1e9))
            } else {
                String::new()
            },
            user = format!("{:.2}", job.cpu_user_ns as f64 / 1e9),
            system = format!("{:.2}", job.cpu_system_ns as f64 / 1e9),
            syncs = syncs_text(job)
        ),
        match super::runs::job_note(job, measuring) {
            Some(note) => format!("  ({note})"),
            None => String::new(),
        },
    );
    out.push_str(&format!(
        "{title}: {}\n{}{}",
        job.job.summary(),
        super::width::wrap(&crate::t!("job-on"), &target_line(job), 4),
        super::width::wrap("  ", &measured, 4),
    ));
    out.push_str(&super::device_lines::job_lines(job));
    // The errors column only when there are errors (a warning says so too), so the table fits 80 columns.
    let errors = super::width::wide() || job.directions().any(|(_, d)| d.errors > 0);
    let table = |mib: bool| {
        let mut header = vec!["", "IOPS", "MB/s"];
        if mib {
            header.push("MiB/s");
        }
        header.push("ops");
        if errors {
            header.push("errors");
        }
        header.extend(["lat min", "mean", "stddev", "max"]);
        let mut t = new_table(&header);
        for (name, d) in job.directions() {
            let mut row = vec![
                crate::i18n::heading(name),
                rate(d.iops),
                mb_per_sec(d.bytes_per_sec),
            ];
            if mib {
                row.push(mib_per_sec(d.bytes_per_sec));
            }
            row.push(d.ops.to_string());
            if errors {
                row.push(d.errors.to_string());
            }
            row.extend([
                latency(d.lat_ns.min as f64),
                latency(d.lat_ns.mean),
                latency(d.lat_ns.stddev),
                latency(d.lat_ns.max as f64),
            ]);
            t.add_row(row);
        }
        t
    };
    // MiB/s goes (MB/s stays, --wide shows both) rather than a heading or a
    // number breaking inside its column: wide latencies, large counts or the
    // wider Japanese headings can leave 80 columns too few. It goes quietly:
    // MB/s says the same in other units.
    let mut t = table(true);
    if !super::fit::fits(&t) {
        t = table(false);
    }
    // Then the spread and the least latency, which the percentiles below tell too.
    let gone: Vec<usize> = ["stddev", "lat min"]
        .iter()
        .filter_map(|h| {
            t.header()?
                .cell_iter()
                .position(|c| c.content() == crate::i18n::heading(h))
        })
        .collect();
    out.push_str(&super::fit::render_with(
        &t,
        &super::fit::Fit::new().drop_first(&gone),
    ));
    out.push('\n');
    out.push_str(&percentile_table(job));
    out.push_str(&super::cluster_table::render(job));
    for (name, d) in job.directions() {
        for e in &d.error_samples {
            out.push_str(&format!(
                "  {name} error: {} (errno {}) at offset {}\n",
                term(&e.message),
                e.errno,
                e.offset_bytes
            ));
        }
    }
    out
}

/// The latency percentiles of a job: one row per percentile and a column
/// per direction (fits 80 columns); with `--wide`, one row per direction.
fn percentile_table(job: &JobResult) -> String {
    let value = |d: &crate::metrics::DirectionResult, q: &f64| {
        d.lat_ns
            .percentiles
            .get(&percentile_key(*q))
            .map(|v| latency(*v as f64))
            // A run imported from fio has fio's percentiles: a blank cell
            // would read as the row above wrapped.
            .unwrap_or_else(|| "-".to_string())
    };
    let p = if super::width::wide() {
        let mut header = vec!["percentile".to_string()];
        header.extend(PERCENTILES.iter().map(|p| super::format::percentile_label(*p)));
        let mut p = new_table(&header.iter().map(String::as_str).collect::<Vec<_>>());
        for (name, d) in job.directions() {
            let mut row = vec![crate::i18n::heading(name)];
            row.extend(PERCENTILES.iter().map(|q| value(d, q)));
            p.add_row(row);
        }
        p
    } else {
        let names: Vec<String> = job
            .directions()
            .map(|(n, _)| crate::t!("direction-latency", direction = crate::i18n::heading(n)))
            .collect();
        let mut header = vec!["percentile"];
        header.extend(names.iter().map(String::as_str));
        let mut p = new_table(&header);
        for q in PERCENTILES {
            let mut row = vec![super::format::percentile_label(q)];
            row.extend(job.directions().map(|(_, d)| value(d, &q)));
            p.add_row(row);
        }
        p
    };
    format!("{}\n", super::fit::render(&p))
}

/// `date · host · label · price · suite`: the line every report of a run starts with.
pub fn run_facts(run: &RunResult) -> String {
    let mut out = format!(
        "{} · {}",
        utc(run.started_unix_s),
        crate::t!("facts-host", host = term(&run.host.hostname))
    );
    if let Some(label) = &run.label {
        out.push_str(&crate::t!("run-label", label = term(label)));
    }
    if let Some(price) = &run.price {
        out.push_str(&format!(" · {}", crate::t!("facts-price", price = term(price))));
    }
    if let Some(suite) = &run.suite {
        out.push_str(&format!(
            " · {}",
            crate::t!("facts-suite", suite = term(&suite.to_string()))
        ));
    }
    out
}

pub fn render_run(run: &RunResult) -> String {
    let id = run
        .id
        .map(|i| crate::t!("run-id", id = i))
        .unwrap_or_else(|| crate::t!("run-not-stored"));
    let mut out = super::width::wrap(&format!("kura {id} · "), &run_facts(run), 2);
    out.push_str(&super::runs::incomplete_line(run));
    out.push_str(&super::runs::interleaved_line(run));
    out.push_str(&super::runs::warning_lines(run));
    // The steps of a latency-bounded search are shown as its curve.
    for job in run.jobs.iter().filter(|j| j.job.latency_step.is_none()) {
        out.push('\n');
        out.push_str(&super::kind_views::job_table(job, run));
    }
    let searches = super::latency_table::render(run);
    if !searches.is_empty() {
        out.push('\n');
        out.push_str(&searches);
    }
    out
}

#[cfg(test)]
mod fit_tests {
    use super::*;
    use crate::report::fixtures;

    #[test]
    fn a_job_with_wide_numbers_drops_mib_s_rather_than_wrap_a_cell() {
        let narrow = render_job(
            &fixtures::job("a", crate::jobs::Rw::RandRw, 4096, 50, Some(900), Some(100)),
            false,
        );
        assert!(narrow.contains("MiB/s"), "{narrow}");
        let mut job = fixtures::job("b", crate::jobs::Rw::RandRw, 4096, 50, Some(1), Some(1));
        // A long run's counts and a slow tail: every cell at its widest.
        let lat = [34_300, 112_700, 1_160_000, 121_180_000];
        for d in [&mut job.read, &mut job.write] {
            *d = Some(fixtures::direction(4, 1 << 20, &lat));
            let d = d.as_mut().unwrap();
            d.ops = 123_456_789;
            d.iops = 123_456.0;
            d.bytes_per_sec = 1_234_567_890.0;
        }
        let wide = render_job(&job, false);
        let table: Vec<&str> = wide.lines().skip_while(|l| !l.contains("IOPS")).take(4).collect();
        assert!(!table[0].contains("MiB/s"), "{wide}");
        assert!(
            table[0].contains("lat min") && table[0].contains("stddev"),
            "{wide}"
        );
        assert!(table[2].trim_start().starts_with("read"), "{wide}");
        assert!(
            table[3].trim_start().starts_with("write"),
            "one line per direction:\n{wide}"
        );
        for line in wide.lines() {
            assert!(super::super::width::display_width(line) <= 80, "{line}\n{wide}");
        }
    }

    #[test]
    fn a_job_syncing_at_depth_says_how_many_ios_it_kept_in_flight() {
        // 20,000 writes in a second, 160 µs each: 3.2 in flight (Little's law), at qd 16.
        let mut job = fixtures::job("f", crate::jobs::Rw::Write, 4096, 0, None, Some(20_000));
        job.write = Some(fixtures::direction(20_000, 4096, &[160_000]));
        job.syncs = 2_500;
        job.job.qd = 16;
        job.job.fsync_every = Some(8);
        let text = render_job(&job, false);
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains("2500 fdatasync, 3.2 I/Os besides syncs in flight"),
            "{text}"
        );
        for line in text.lines() {
            assert!(super::super::width::display_width(line) <= 80, "{line}\n{text}");
        }
        // At qd 1 nothing can hold the queue below its depth: nothing to say.
        job.job.qd = 1;
        assert!(!render_job(&job, false).contains("in flight"));
    }

    /// A job of nine operations has a percentile column each; at
    /// 80 columns `p99.999` was broken into `p99.99` over `9`. Columns go
    /// (and a line says which) and every row stays one line.
    #[test]
    fn a_percentile_table_of_many_operations_keeps_each_row_on_its_line() {
        use crate::jobs::OpKind;
        let mut job = fixtures::job("sfs97", crate::jobs::Rw::RandRw, 4096, 50, Some(900), Some(100));
        let lat = [34_300, 112_700, 1_160_000, 121_180_000];
        for op in [
            OpKind::Fsync,
            OpKind::Create,
            OpKind::Stat,
            OpKind::Setattr,
            OpKind::Readdir,
            OpKind::Delete,
            OpKind::Open,
        ] {
            job.operations.insert(op, fixtures::direction(50, 0, &lat));
        }
        let text = percentile_table(&job);
        let lines: Vec<&str> = text.lines().collect();
        for line in &lines {
            assert!(super::super::width::display_width(line) <= 80, "{line}\n{text}");
        }
        let rows: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| l.starts_with(" p") && l[2..].starts_with(|c: char| c.is_ascii_digit()))
            .collect();
        assert_eq!(rows.len(), PERCENTILES.len(), "{text}");
        assert!(rows.last().unwrap().starts_with(" p99.999 "), "{text}");
        assert!(
            lines.last().unwrap().contains("--wide"),
            "says what went:\n{text}"
        );
    }

    /// A file set's anchor is a directory, though stored (and loaded, in
    /// runs of any version) as a file target.
    #[test]
    fn a_file_sets_target_is_a_directory() {
        let mut job = fixtures::job("sfs97", crate::jobs::Rw::RandRead, 4096, 100, Some(1), None);
        assert!(target_line(&job).contains("(file, ext4"), "{}", target_line(&job));
        job.job.workload = crate::jobs::Workload::FileSet(Default::default());
        let line = target_line(&job);
        assert!(line.contains("(directory, ext4"), "{line}");
        assert!(line.ends_with("1.0 GiB)"), "{line}");
        assert!(!line.contains("file,"), "{line}");
    }
}
