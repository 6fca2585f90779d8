//! A stored run in vdbench's shape: per run definition, one line per interval
//! and an average line, with vdbench's columns. The jobs of one run (one per
//! workload and storage pair) are added up per interval, as vdbench's summary
//! does. Response times are in milliseconds, MB/sec is 1024**2 bytes.

use crate::metrics::{IntervalPoint, JobResult, RunResult};

use super::escape::term;
use super::format::utc;

/// One interval of one run, summed over its jobs.
#[derive(Debug, Default, Clone)]
struct Line {
    secs: f64,
    reads: u64,
    writes: u64,
    bytes: u64,
    read_lat_sum: f64,
    write_lat_sum: f64,
    /// Sum over jobs of ops * (stddev^2 + mean^2), for the pooled deviation.
    square_sum: f64,
    max_ns: u64,
    cpu_ns: u64,
    cpu_sys_ns: u64,
}

impl Line {
    fn add(&mut self, p: &IntervalPoint) {
        let ops = (p.read_ops + p.write_ops) as f64;
        self.secs = self.secs.max(p.duration_ns as f64 / 1e9);
        self.reads += p.read_ops;
        self.writes += p.write_ops;
        self.bytes += p.bytes;
        self.read_lat_sum += p.read_lat_mean_ns * p.read_ops as f64;
        self.write_lat_sum += p.write_lat_mean_ns * p.write_ops as f64;
        self.square_sum += ops * (p.lat_stddev_ns.powi(2) + p.lat_mean_ns.powi(2));
        self.max_ns = self.max_ns.max(p.lat_max_ns);
        self.cpu_ns += p.cpu_user_ns + p.cpu_system_ns;
        self.cpu_sys_ns += p.cpu_system_ns;
    }

    fn merge(&mut self, o: &Line) {
        self.secs += o.secs;
        self.reads += o.reads;
        self.writes += o.writes;
        self.bytes += o.bytes;
        self.read_lat_sum += o.read_lat_sum;
        self.write_lat_sum += o.write_lat_sum;
        self.square_sum += o.square_sum;
        self.max_ns = self.max_ns.max(o.max_ns);
        self.cpu_ns += o.cpu_ns;
        self.cpu_sys_ns += o.cpu_sys_ns;
    }

    fn render(&self, label: &str, cores: u32) -> String {
        let ops = (self.reads + self.writes) as f64;
        let per = |x: f64, n: f64| if n > 0.0 { x / n } else { 0.0 };
        let rate = per(ops, self.secs);
        let mean_ns = per(self.read_lat_sum + self.write_lat_sum, ops);
        let stddev_ns = (per(self.square_sum, ops) - mean_ns * mean_ns).max(0.0).sqrt();
        let cpu = |ns: u64| per(ns as f64 / 1e9, self.secs * cores.max(1) as f64) * 100.0;
        let cells = [
            label.to_string(),
            format!("{rate:.2}"),
            format!("{:.2}", per(self.bytes as f64, self.secs) / (1024.0 * 1024.0)),
            format!("{}", per(self.bytes as f64, ops).round() as u64),
            format!("{:.2}", per(self.reads as f64 * 100.0, ops)),
            format!("{:.3}", mean_ns / 1e6),
            format!("{:.3}", per(self.read_lat_sum, self.reads as f64) / 1e6),
            format!("{:.3}", per(self.write_lat_sum, self.writes as f64) / 1e6),
            format!("{:.3}", self.max_ns as f64 / 1e6),
            format!("{:.3}", stddev_ns / 1e6),
            // Little's law: I/Os in flight on average.
            format!("{:.1}", rate * mean_ns / 1e9),
            format!("{:.1}", cpu(self.cpu_ns)),
            format!("{:.1}", cpu(self.cpu_sys_ns)),
        ];
        row(&cells)
    }
}

/// vdbench's columns and their widths, as vdbench prints them (`--wide`).
const WIDTHS: [usize; 13] = [14, 10, 8, 7, 6, 8, 8, 8, 8, 8, 5, 5, 5];

/// Within 80 columns: the same columns but `resp max`, `resp stddev` and
/// `cpu% sys` (in `--wide` and the JSON), a little narrower.
const NARROW: [(usize, usize); 10] = [
    (0, 10),
    (1, 10),
    (2, 7),
    (3, 6),
    (4, 6),
    (5, 7),
    (6, 7),
    (7, 7),
    (10, 5),
    (11, 5),
];

/// One line of the table from all 13 cells, right-aligned.
fn row<S: AsRef<str>>(cells: &[S; 13]) -> String {
    let shown: Vec<String> = if super::width::wide() {
        cells
            .iter()
            .zip(WIDTHS)
            .map(|(c, w)| format!("{:>w$}", c.as_ref()))
            .collect()
    } else {
        NARROW
            .iter()
            .map(|&(i, w)| format!("{:>w$}", cells[i].as_ref()))
            .collect()
    };
    shown.join(" ") + "\n"
}

fn header() -> String {
    let top = [
        "interval", "i/o", "MB/sec", "bytes", "read", "resp", "read", "write", "resp", "resp", "queue",
        "cpu%", "cpu%",
    ];
    let bottom = [
        "", "rate", "1024**2", "i/o", "pct", "time", "resp", "resp", "max", "stddev", "depth", "sys+u", "sys",
    ];
    row(&top) + &row(&bottom)
}

fn run_title(jobs: &[&JobResult]) -> String {
    let first = jobs[0];
    let name = term(first.test.as_deref().unwrap_or(&first.job.name)).into_owned();
    let rate: Option<u64> = jobs.iter().map(|j| j.job.rate_iops).sum();
    let rate = match rate {
        Some(r) => format!("I/O rate: {r}"),
        None => "I/O rate: Uncontrolled MAX".into(),
    };
    let warmup = first.ramp_ns / 1_000_000_000;
    let elapsed = first
        .job
        .runtime
        .map_or(first.elapsed_ns / 1_000_000_000, |r| r.as_secs())
        + warmup;
    let interval = first.job.interval.as_secs_f64();
    let pairs: Vec<_> = jobs.iter().map(|j| term(&j.job.name)).collect();
    format!(
        "Starting RD={name}; {rate}; elapsed={elapsed}{}; interval={interval}; workloads: {}\n",
        if warmup > 0 {
            format!(" warmup={warmup}")
        } else {
            String::new()
        },
        pairs.join(", ")
    )
}

/// One run definition's interval lines, its jobs added up per interval.
struct Intervals {
    lines: Vec<Line>,
    /// vdbench's number of the first line (after the warmup's intervals).
    first_number: u64,
    /// Lines the average leaves out at the start.
    skip: usize,
}

impl Intervals {
    fn of(jobs: &[&JobResult]) -> Intervals {
        let interval_ns = jobs[0].job.interval.as_nanos().max(1) as u64;
        // vdbench prints whole intervals; the sliver after the last one would show absurd rates.
        let whole = |j: &JobResult| {
            let full = j
                .series
                .iter()
                .filter(|p| p.duration_ns * 100 >= interval_ns * 99)
                .count();
            if full > 0 { full } else { j.series.len() }
        };
        let periods = jobs.iter().map(|j| whole(j)).max().unwrap_or(0);
        let mut lines = vec![Line::default(); periods];
        for j in jobs {
            for (k, p) in j.series.iter().take(periods).enumerate() {
                lines[k].add(p);
            }
        }
        // vdbench leaves the first interval out of the average when there is no warmup.
        let skip = usize::from(jobs[0].ramp_ns == 0 && lines.len() > 1);
        Intervals {
            first_number: jobs[0].ramp_ns / interval_ns + 1,
            skip: skip.min(lines.len()),
            lines,
        }
    }

    /// The average line and the numbers of its first and last interval (`avg_2-30`).
    fn average(&self) -> (Line, u64, u64) {
        let mut avg = Line::default();
        for line in &self.lines[self.skip..] {
            avg.merge(line);
        }
        let from = self.first_number + self.skip as u64;
        let to = self.first_number + self.lines.len().saturating_sub(1) as u64;
        (avg, from, to)
    }
}

/// The figures of vdbench's average line (`avg_2-N`) for some jobs of one
/// run definition: what the run's summary prints, and the per-run figure
/// `compare` gives a run of a vdbench parameter file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Average {
    pub read_iops: f64,
    pub write_iops: f64,
    pub bytes_per_sec: f64,
    pub read_lat_mean_ns: Option<f64>,
    pub write_lat_mean_ns: Option<f64>,
    pub lat_mean_ns: Option<f64>,
}

/// vdbench's average line of `jobs`; `None` when they hold no interval.
pub fn average(jobs: &[&JobResult]) -> Option<Average> {
    if jobs.is_empty() {
        return None;
    }
    let (l, _, _) = Intervals::of(jobs).average();
    if l.secs <= 0.0 {
        return None;
    }
    let per = |x: f64, n: u64| (n > 0).then(|| x / n as f64);
    Some(Average {
        read_iops: l.reads as f64 / l.secs,
        write_iops: l.writes as f64 / l.secs,
        bytes_per_sec: l.bytes as f64 / l.secs,
        read_lat_mean_ns: per(l.read_lat_sum, l.reads),
        write_lat_mean_ns: per(l.write_lat_sum, l.writes),
        lat_mean_ns: per(l.read_lat_sum + l.write_lat_sum, l.reads + l.writes),
    })
}

/// The vdbench-shaped report of a stored run.
pub fn render(run: &RunResult) -> String {
    let mut out = format!(
        "kura {} · {} · {}\n",
        run.id
            .map(|i| crate::t!("run-id", id = i))
            .unwrap_or_else(|| crate::t!("run-not-stored")),
        crate::t!("vdbench-title"),
        utc(run.started_unix_s)
    );
    // vdbench's own column headings stay as vdbench prints them; the note says what they mean.
    let note = if super::width::wide() {
        crate::t!("vdbench-note")
    } else {
        crate::t!("vdbench-note-narrow")
    };
    out.push_str(&super::width::wrap("", &note, 1));
    out.push_str(&super::runs::incomplete_line(run));
    out.push_str(&super::runs::warning_lines(run));
    let cores = run.host.cores;
    let mut i = 0;
    while i < run.jobs.len() {
        // Jobs of one run definition are stored next to each other with the same test.
        let test = &run.jobs[i].test;
        let n = run.jobs[i..]
            .iter()
            .take_while(|j| j.test.is_some() && j.test == *test)
            .count()
            .max(1);
        let jobs: Vec<&JobResult> = run.jobs[i..i + n].iter().collect();
        i += n;
        out.push('\n');
        out.push_str(&super::width::wrap("", run_title(&jobs).trim_end(), 2));
        out.push_str(&header());
        let iv = Intervals::of(&jobs);
        for (k, line) in iv.lines.iter().enumerate() {
            out.push_str(&line.render(&(iv.first_number + k as u64).to_string(), cores));
        }
        let (avg, from, to) = iv.average();
        out.push_str(&avg.render(&format!("avg_{from}-{to}"), cores));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(reads: u64, writes: u64, mean_ms: f64) -> IntervalPoint {
        IntervalPoint {
            duration_ns: 1_000_000_000,
            read_ops: reads,
            write_ops: writes,
            bytes: (reads + writes) * 8192,
            lat_mean_ns: mean_ms * 1e6,
            read_lat_mean_ns: mean_ms * 1e6,
            write_lat_mean_ns: mean_ms * 1e6,
            lat_max_ns: (mean_ms * 3e6) as u64,
            ..Default::default()
        }
    }

    #[test]
    fn lines_add_jobs_and_apply_littles_law() {
        let mut l = Line::default();
        l.add(&point(500, 500, 4.0));
        l.add(&point(1000, 0, 4.0));
        let text = l.render("1", 2);
        let cols: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(cols[0], "1");
        assert_eq!(cols[1], "2000.00");
        assert_eq!(cols[2], "15.62");
        assert_eq!(cols[3], "8192");
        assert_eq!(cols[4], "75.00");
        assert_eq!(cols[5], "4.000");
        // Within 80 columns: queue depth after the three response times.
        assert_eq!(cols[8], "8.0");
        assert!(text.len() <= 80, "{text}");
    }
}
