//! bonnie++'s report, rendered from a stored run: the 80-column blocks
//! "Sequential Output / Sequential Input / Random Seeks" and "Sequential
//! Create / Random Create" with their /sec, %CP and Latency rows, laid out as
//! bonnie++ 2.00a prints them (bon_time.cpp), and its CSV line.
//!
//! The CSV is what bonnie++ 2.00a writes: 50 fields, the first being the
//! format version "1.98" (bonnie++ 2.0 still writes 1.98, and its
//! bon_csv2html and bon_csv2txt skip any line that starts otherwise).

use serde::Serialize;

use crate::jobs::bonnie_params::{
    BonnieParams, DEFAULT_CHUNK, FILES_UNIT, Kind, MIN_TIME_NS, SEEKERS, SEEKS, Test, repetition_of, seed_of,
};
use crate::metrics::{JobResult, RunResult};

/// bonnie++'s CSV format version; see the module comment.
pub const CSV_FORMAT_VERSION: &str = "1.98";
/// Fields of one CSV line (bon_csv2html's MAX_ITEMS).
pub const CSV_FIELDS: usize = 50;

/// One test's numbers in bonnie++'s units: KiB for I/O, seeks or files for the rest.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    /// Runs added into this sample.
    runs: u64,
    units: f64,
    ops: u64,
    bytes: u64,
    elapsed_ns: u64,
    cpu_ns: u64,
    lat_max_ns: u64,
}

impl Sample {
    fn of(job: &JobResult, test: Test) -> Sample {
        // Runs stored before results by operation kept a file test's creates,
        // stats and deletes as writes or reads.
        let direction = if test.counts_writes() {
            job.write.as_ref()
        } else {
            job.read.as_ref()
        };
        let d = test.op().and_then(|op| job.operation(op)).or(direction);
        let (ops, bytes, lat_max_ns) = d.map(|d| (d.ops, d.bytes, d.lat_ns.max)).unwrap_or_default();
        Sample {
            runs: 1,
            units: match test.kind() {
                Kind::Io => bytes as f64 / 1024.0,
                Kind::Seeks | Kind::Files => ops as f64,
            },
            ops,
            bytes,
            elapsed_ns: job.elapsed_ns,
            cpu_ns: job.cpu_user_ns + job.cpu_system_ns,
            lat_max_ns,
        }
    }

    fn add(&mut self, o: &Sample) {
        self.runs += o.runs;
        self.units += o.units;
        self.ops += o.ops;
        self.bytes += o.bytes;
        self.elapsed_ns += o.elapsed_ns;
        self.cpu_ns += o.cpu_ns;
        self.lat_max_ns = self.lat_max_ns.max(o.lat_max_ns);
    }

    /// bonnie++ does not report a test that ran under 0.5 s; for several runs, on average.
    fn too_short(&self) -> bool {
        self.elapsed_ns < MIN_TIME_NS * self.runs.max(1)
    }

    fn secs(&self) -> f64 {
        self.elapsed_ns as f64 / 1e9
    }

    fn rate(&self) -> f64 {
        if self.elapsed_ns > 0 {
            self.units / self.secs()
        } else {
            0.0
        }
    }

    fn cpu_pct(&self) -> f64 {
        if self.elapsed_ns > 0 {
            self.cpu_ns as f64 / self.elapsed_ns as f64 * 100.0
        } else {
            0.0
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct BonnieRow {
    pub test: String,
    pub runs: usize,
    /// `K/sec` (KiB per second) for the I/O tests, `/sec` for seeks and files.
    pub unit: &'static str,
    /// In `unit`: total work over total measured time of all runs.
    pub rate: f64,
    pub bytes_per_sec: Option<f64>,
    /// One-byte calls, chunks, seeks or files per second.
    pub ops_per_sec: f64,
    /// CPU time over measured time; the seekers' times add up, so it may pass 100.
    pub cpu_pct: f64,
    /// The slowest single operation of all runs.
    pub lat_max_ns: u64,
    pub elapsed_ns: u64,
    /// A run took less than 0.5 s: bonnie++ would print +++++ instead of its rate.
    pub under_min_time: bool,
}

fn unit(test: Test) -> &'static str {
    if test.kind() == Kind::Io { "K/sec" } else { "/sec" }
}

fn params(job: &JobResult) -> Option<&BonnieParams> {
    job.job.workload.bonnie()
}

/// The run's jobs by repetition, in the order they ran.
fn repetitions(run: &RunResult) -> Vec<(u32, Vec<&JobResult>)> {
    let mut out: Vec<(u32, Vec<&JobResult>)> = Vec::new();
    for j in &run.jobs {
        // Runs stored before bonnie was a kind of workload say it only in the job's name.
        let rep = params(j)
            .map(|p| p.repetition)
            .or_else(|| repetition_of(&j.job.name))
            .unwrap_or(1);
        match out.iter_mut().find(|(r, _)| *r == rep) {
            Some((_, jobs)) => jobs.push(j),
            None => out.push((rep, vec![j])),
        }
    }
    out
}

fn find(jobs: &[&JobResult], test: Test) -> Option<Sample> {
    jobs.iter()
        .find(|j| j.test.as_deref() == Some(test.name()))
        .map(|j| Sample::of(j, test))
}

/// Per test, all runs together.
pub fn rows(run: &RunResult) -> Vec<BonnieRow> {
    Test::ALL
        .into_iter()
        .filter_map(|test| {
            let samples: Vec<Sample> = run
                .jobs
                .iter()
                .filter(|j| j.test.as_deref() == Some(test.name()))
                .map(|j| Sample::of(j, test))
                .collect();
            let mut all = Sample::default();
            samples.iter().for_each(|s| all.add(s));
            let secs = all.secs();
            let per_sec = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
            (!samples.is_empty()).then(|| BonnieRow {
                test: test.name().to_string(),
                runs: samples.len(),
                unit: unit(test),
                rate: all.rate(),
                bytes_per_sec: (test.kind() == Kind::Io).then(|| per_sec(all.bytes as f64)),
                ops_per_sec: per_sec(all.ops as f64),
                cpu_pct: all.cpu_pct(),
                lat_max_ns: all.lat_max_ns,
                elapsed_ns: all.elapsed_ns,
                under_min_time: samples.iter().any(|s| s.too_short()),
            })
        })
        .collect()
}

/// Tests whose runs disagree by more than 15 % of their mean rate. Runs
/// under 0.5 s are left out: bonnie++ does not even report those.
pub fn disagreement_warnings(run: &RunResult) -> Vec<crate::metrics::Warning> {
    let mut out = Vec::new();
    for test in Test::ALL {
        let samples: Vec<Sample> = run
            .jobs
            .iter()
            .filter(|j| j.test.as_deref() == Some(test.name()) && !j.incomplete)
            .map(|j| Sample::of(j, test))
            .collect();
        if samples.len() < 2 || samples.iter().any(|s| s.too_short()) {
            continue;
        }
        let rates: Vec<f64> = samples.iter().map(|s| s.rate()).collect();
        let mean = rates.iter().sum::<f64>() / rates.len() as f64;
        let (min, max) = rates
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
        let spread = if mean > 0.0 { (max - min) / mean } else { 0.0 };
        if spread > crate::metrics::repeats::DISAGREEMENT {
            out.push(crate::metrics::Warning::RepeatsDisagree {
                test: test.name().to_string(),
                direction: None,
                runs: rates.len() as u32,
                spread_pct: spread * 100.0,
                min,
                max,
                unit: unit(test).to_string(),
            });
        }
    }
    out
}

/// What the run was asked to do, read back from its stored jobs.
struct Layout {
    name: String,
    size_bytes: Option<u64>,
    chunk_bytes: u64,
    seeks: u64,
    seekers: u32,
    files: Option<u64>,
    seed: u32,
}

fn layout(run: &RunResult) -> Layout {
    let io = run.jobs.iter().find(|j| {
        j.test
            .as_deref()
            .and_then(Test::from_name)
            .is_some_and(|t| t.kind() != Kind::Files)
    });
    let block = run.jobs.iter().find(|j| {
        j.test
            .as_deref()
            .and_then(Test::from_name)
            .is_some_and(|t| matches!(t, Test::PutBlock | Test::Rewrite | Test::GetBlock | Test::Seeks))
    });
    let seeks = run
        .jobs
        .iter()
        .find(|j| j.test.as_deref() == Some(Test::Seeks.name()));
    let files = run.jobs.iter().find(|j| {
        j.test
            .as_deref()
            .and_then(Test::from_name)
            .is_some_and(|t| t.kind() == Kind::Files)
    });
    Layout {
        name: run
            .label
            .clone()
            .unwrap_or_else(|| run.host.hostname.clone())
            .replace(',', " ")
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect(),
        // Runs stored before bonnie was a kind of workload keep its settings in block-job terms.
        size_bytes: io.and_then(|j| params(j).map(|p| p.size_bytes).or(j.job.size_bytes)),
        chunk_bytes: block
            .map(|j| params(j).map_or_else(|| j.job.max_bs(), |p| p.chunk_bytes))
            .unwrap_or(DEFAULT_CHUNK),
        seeks: seeks
            .and_then(|j| params(j).map(|p| p.seeks).or(j.job.io_count))
            .unwrap_or(SEEKS),
        seekers: seeks
            .map(|j| params(j).map_or(j.job.threads, |p| p.seekers))
            .unwrap_or(SEEKERS),
        files: files.and_then(|j| params(j).map(|p| p.files).or(j.job.io_count)),
        seed: run
            .jobs
            .iter()
            .find_map(params)
            .map_or_else(|| seed_of(run.started_unix_s), |p| p.seed),
    }
}

/// bonnie++'s print_size: the number in the largest unit of `units` that keeps it whole.
fn print_size(mut n: u64, units: &[u8]) -> String {
    let mut i = 0;
    if n != 0 {
        while n.is_multiple_of(1024) && i + 1 < units.len() {
            n /= 1024;
            i += 1;
        }
    }
    format!("{n}{}", units[i] as char).trim_end().to_string()
}

fn size_field(size_bytes: u64) -> String {
    print_size(size_bytes >> 20, b"MG")
}

/// `16M`, or `16M:4k` and so on when a setting is not bonnie++'s default.
fn size_label(l: &Layout, size_bytes: u64) -> String {
    let chunk = if l.chunk_bytes != DEFAULT_CHUNK {
        print_size(l.chunk_bytes, b" km")
    } else {
        String::new()
    };
    let seeks = if l.seeks != SEEKS {
        l.seeks.to_string()
    } else {
        String::new()
    };
    let seekers = if l.seekers != SEEKERS {
        l.seekers.to_string()
    } else {
        String::new()
    };
    let s = [size_field(size_bytes), chunk, String::new(), seeks, seekers].join(":");
    s.trim_end_matches(':').to_string()
}

/// bonnie++'s 19-character "Name:Size etc" cell: the name cut to fit, the size right-aligned.
fn name_cell(name: &str, size: &str) -> String {
    let width = 18usize.saturating_sub(size.chars().count());
    if width == 0 {
        return size.to_string();
    }
    // By display width: the mean's row starts with a translated word.
    let name = super::pad::cut(name, width);
    format!("{} {size}", super::pad::left(&name, width))
}

/// bonnie++'s latency text: whole µs, ms or s.
pub fn latency_text(ns: u64) -> String {
    if ns == 0 {
        return String::new();
    }
    let secs = ns as f64 / 1e9;
    if secs > 99.999999 {
        format!("{}s", secs as u64)
    } else if secs > 0.099999 {
        format!("{}ms", (secs * 1e3) as u64)
    } else {
        format!("{}us", (secs * 1e6) as u64)
    }
}

/// The rate and %CP cells of one test in the text report.
fn text_cells(test: Test, s: Option<&Sample>) -> String {
    let Some(s) = s else {
        return format!("{:6}{:4}", "", "");
    };
    if s.too_short() {
        return " +++++ +++".to_string();
    }
    let stat = s.rate();
    let rate = match test.kind() {
        Kind::Io if stat < 10_000.0 => format!(" {:4}k", stat as u64),
        Kind::Io if stat / 1024.0 < 1000.0 => {
            let mib = stat / 1024.0;
            if mib < 100.0 {
                format!(" {mib:4.1}m")
            } else {
                format!(" {:4}m", (mib + 0.5) as u64)
            }
        }
        Kind::Io => format!(" {:4.1}g", stat / 1024.0 / 1024.0),
        Kind::Seeks if stat >= 1000.0 => format!(" {stat:5.0}"),
        Kind::Seeks => format!(" {stat:5.1}"),
        Kind::Files => format!(" {:5}", stat as u64),
    };
    format!("{rate} {:3}", s.cpu_pct() as u64)
}

/// The rate and CPU fields of one test in the CSV line.
fn csv_cells(test: Test, s: Option<&Sample>) -> [String; 2] {
    let Some(s) = s else {
        return [String::new(), String::new()];
    };
    if s.too_short() {
        return ["+++++".to_string(), "+++".to_string()];
    }
    let stat = s.rate();
    let rate = match test.kind() {
        Kind::Seeks if stat >= 1000.0 => format!("{stat:.0}"),
        Kind::Seeks => format!("{stat:.1}"),
        Kind::Io | Kind::Files => (stat as u64).to_string(),
    };
    [rate, (s.cpu_pct() as u64).to_string()]
}

const IO_TESTS: [Test; 6] = [
    Test::PutChar,
    Test::PutBlock,
    Test::Rewrite,
    Test::GetChar,
    Test::GetBlock,
    Test::Seeks,
];
const FILE_TESTS: [Test; 6] = [
    Test::SeqCreate,
    Test::SeqStat,
    Test::SeqDelete,
    Test::RandCreate,
    Test::RandStat,
    Test::RandDelete,
];

/// A line of numbers and its Latency line.
fn data_lines(first: &str, tests: &[Test], samples: &[Option<Sample>]) -> String {
    let mut out = first.to_string();
    for (t, s) in tests.iter().zip(samples) {
        out.push_str(&text_cells(*t, s.as_ref()));
    }
    out.push_str(&format!(
        "\n{}",
        super::pad::left(&crate::t!("bonnie-latency"), 17)
    ));
    for s in samples {
        out.push_str(&format!(
            " {:>9}",
            latency_text(s.map(|s| s.lat_max_ns).unwrap_or(0))
        ));
    }
    out.push('\n');
    out
}

/// Each run's line; with several runs, also their mean (total work over
/// total time) and the worst latency of all.
fn lines_of(run: &RunResult, tests: &[Test], first_cell: &dyn Fn(&str) -> String) -> String {
    let reps = repetitions(run);
    let many = reps.len() > 1;
    let mut out = String::new();
    let mut total: Vec<Option<Sample>> = vec![None; tests.len()];
    for (rep, jobs) in &reps {
        let samples: Vec<Option<Sample>> = tests.iter().map(|t| find(jobs, *t)).collect();
        for (acc, s) in total.iter_mut().zip(&samples) {
            if let Some(s) = s {
                acc.get_or_insert_with(Sample::default).add(s);
            }
        }
        let name = if many { format!("#{rep}") } else { String::new() };
        out.push_str(&data_lines(&first_cell(&name), tests, &samples));
    }
    if many {
        out.push_str(&data_lines(&first_cell(&crate::t!("bonnie-mean")), tests, &total));
    }
    out
}

/// The units row after the first 20 columns, as bonnie++ prints it.
const PER_SEC: &str = " /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP";

fn version_cell() -> String {
    format!("{:<20}", format!("kura {}", env!("CARGO_PKG_VERSION")))
}

/// The text report: bonnie++'s two blocks, each present when its tests ran.
pub fn render(run: &RunResult) -> String {
    let l = layout(run);
    let mut out = String::new();
    let has = |tests: &[Test]| {
        run.jobs.iter().any(|j| {
            j.test
                .as_deref()
                .and_then(Test::from_name)
                .is_some_and(|t| tests.contains(&t))
        })
    };
    if has(&IO_TESTS) {
        let size = size_label(&l, l.size_bytes.unwrap_or(0));
        out.push_str(&version_cell());
        out.push_str(&format!("{}\n", crate::t!("bonnie-io-groups")));
        out.push_str(&format!("{:20}{}\n", "", crate::t!("bonnie-io-tests")));
        out.push_str(&format!(
            "{}{PER_SEC}\n",
            super::pad::left(&crate::t!("bonnie-name-size"), 20)
        ));
        let cell = |tag: &str| {
            let name = if tag.is_empty() {
                l.name.clone()
            } else {
                format!("{tag} {}", l.name)
            };
            name_cell(&name, &size)
        };
        out.push_str(&lines_of(run, &IO_TESTS, &cell));
    }
    if has(&FILE_TESTS) {
        let files = l.files.unwrap_or(0) / FILES_UNIT;
        out.push_str(&version_cell());
        out.push_str(&format!("{}\n", crate::t!("bonnie-file-groups")));
        out.push_str(&format!("{:<19.19} ", l.name));
        out.push_str(&format!("{}\n", crate::t!("bonnie-file-tests")));
        out.push_str(&format!(
            "{} {PER_SEC}\n",
            super::pad::right(&crate::t!("bonnie-files"), 19)
        ));
        let cell = |tag: &str| {
            let text = if tag.is_empty() {
                files.to_string()
            } else {
                format!("{tag} {files}")
            };
            format!("{text:>19}")
        };
        out.push_str(&lines_of(run, &FILE_TESTS, &cell));
    }
    let short = run
        .jobs
        .iter()
        .any(|j| j.test.as_deref().and_then(Test::from_name).is_some() && j.elapsed_ns < MIN_TIME_NS);
    if short {
        out.push_str(&format!("{}\n", crate::t!("bonnie-too-short")));
    }
    if repetitions(run).len() > 1 {
        out.push_str(&format!("{}\n", crate::t!("bonnie-mean-note")));
    }
    out
}

/// One CSV line per run, in bonnie++ 2.00a's field order (see `CSV_FIELDS`).
pub fn csv_lines(run: &RunResult) -> Vec<String> {
    let l = layout(run);
    repetitions(run)
        .iter()
        .map(|(_, jobs)| {
            let mut f: Vec<String> = vec![
                CSV_FORMAT_VERSION.to_string(),
                format!("kura-{}", run.kura_version),
                l.name.clone(),
                "1".to_string(),
                l.seed.to_string(),
            ];
            let ran = |tests: &[Test]| tests.iter().any(|t| find(jobs, *t).is_some());
            match l.size_bytes {
                Some(size) if ran(&IO_TESTS) => {
                    f.push(size_field(size));
                    f.push(if l.chunk_bytes != DEFAULT_CHUNK {
                        print_size(l.chunk_bytes, b" km")
                    } else {
                        String::new()
                    });
                    f.push(l.seeks.to_string());
                    f.push(l.seekers.to_string());
                    for t in IO_TESTS {
                        f.extend(csv_cells(t, find(jobs, t).as_ref()));
                    }
                }
                _ => f.extend(std::iter::repeat_n(String::new(), 16)),
            }
            match l.files {
                Some(files) if ran(&FILE_TESTS) => {
                    f.push((files / FILES_UNIT).to_string());
                    // max_size, min_size, num_dirs, file_chunk_size: kura's files are empty, in one directory.
                    f.extend(std::iter::repeat_n(String::new(), 4));
                    for t in FILE_TESTS {
                        f.extend(csv_cells(t, find(jobs, t).as_ref()));
                    }
                }
                _ => f.extend(std::iter::repeat_n(String::new(), 17)),
            }
            for t in Test::ALL {
                f.push(latency_text(find(jobs, t).map(|s| s.lat_max_ns).unwrap_or(0)));
            }
            f.join(",")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_print_as_bonnie_prints_them() {
        assert_eq!(print_size(16, b"MG"), "16M");
        assert_eq!(print_size(2048, b"MG"), "2G");
        assert_eq!(print_size(4096, b" km"), "4k");
        assert_eq!(print_size(512, b" km"), "512");
        assert_eq!(print_size(1 << 20, b" km"), "1m");
        assert_eq!(name_cell("refhost", "16M"), "refhost         16M");
        assert_eq!(name_cell("a-very-long-host-name", "16M"), "a-very-long-hos 16M");
        let l = Layout {
            name: "h".into(),
            size_bytes: Some(16 << 20),
            chunk_bytes: 4096,
            seeks: SEEKS,
            seekers: 3,
            files: None,
            seed: 1,
        };
        assert_eq!(size_label(&l, 16 << 20), "16M:4k:::3");
    }

    #[test]
    fn latencies_and_cells_as_bonnie_prints_them() {
        assert_eq!(latency_text(0), "");
        assert_eq!(latency_text(9_455_000), "9455us");
        assert_eq!(latency_text(250_000_000), "250ms");
        assert_eq!(latency_text(120_000_000_000), "120s");
        let s = Sample {
            runs: 1,
            units: 2334.0 * 2.0,
            ops: 1,
            bytes: 1,
            elapsed_ns: 2_000_000_000,
            cpu_ns: 1_920_000_000,
            lat_max_ns: 1,
        };
        assert_eq!(text_cells(Test::PutChar, Some(&s)), " 2334k  96");
        assert_eq!(
            csv_cells(Test::PutChar, Some(&s)),
            ["2334".to_string(), "96".to_string()]
        );
        let fast = Sample {
            units: 500.0 * 1024.0 * 2.0,
            ..s
        };
        assert_eq!(text_cells(Test::GetBlock, Some(&fast)), "  500m  96");
        let seeks = Sample { units: 500.0, ..s };
        assert_eq!(text_cells(Test::Seeks, Some(&seeks)), " 250.0  96");
        assert_eq!(csv_cells(Test::Seeks, Some(&seeks))[0], "250.0");
        let short = Sample {
            elapsed_ns: MIN_TIME_NS - 1,
            ..s
        };
        assert_eq!(text_cells(Test::SeqCreate, Some(&short)), " +++++ +++");
        assert_eq!(text_cells(Test::SeqCreate, None), " ".repeat(10));
    }
}
