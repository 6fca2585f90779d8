//! Shared by tests/html_report.rs and tests/serve.rs: stored runs of known
//! shapes (a CrystalDiskMark pair, a block-size sweep pair, a night-long
//! run), headless Chromium, and a minimal HTTP client for 127.0.0.1.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kura::jobs::Job;
use kura::metrics::histogram::{encode, new_histogram, record, summarize};
use kura::metrics::{
    DirectionResult, HostFacts, IntervalPoint, JobResult, RunResult, TargetFacts, TargetKind,
};
use kura::store::Store;

pub fn tmp() -> tempfile::TempDir {
    tempfile::tempdir_in(std::env::var("KURA_TEST_DIR").unwrap_or_else(|_| "/var/tmp".into())).unwrap()
}

/// `target/screenshots/`, where the page pictures go for people to look at.
pub fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let dir = target.join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---- constructed runs ----

/// A direction measured at `iops` with blocks of `bs` bytes for 5 s, with
/// latencies spread around what the queue depth implies and a thin tail.
pub fn direction(iops: f64, bs: u64, qd: u32) -> DirectionResult {
    let mean_ns = qd as f64 / iops * 1e9;
    let mut h = new_histogram();
    for i in 0..4000u64 {
        let spread = 0.6 + (i % 97) as f64 / 97.0 * 0.8;
        let tail = if i % 400 == 0 { 8.0 } else { 1.0 };
        record(&mut h, (mean_ns * spread * tail) as u64);
    }
    let ops = (iops * 5.0) as u64;
    DirectionResult {
        ops,
        bytes: ops * bs,
        errors: 0,
        error_samples: Vec::new(),
        iops,
        bytes_per_sec: iops * bs as f64,
        lat_ns: summarize(&h),
        histogram: encode(&h),
    }
}

fn series(
    iops: f64,
    lat_ns: f64,
    points: u64,
    interval_s: u64,
    step: Option<(u64, f64)>,
) -> Vec<IntervalPoint> {
    (0..points)
        .map(|i| {
            // A level change at `step` (the seed's backend moving hot blocks to SSD).
            let level = match step {
                Some((at, factor)) if i >= at => factor,
                _ => 1.0,
            };
            let wobble = 1.0 + ((i * 37 % 11) as f64 - 5.0) / 100.0;
            let rate = iops * level * wobble;
            let ops = (rate * interval_s as f64) as u64;
            IntervalPoint {
                start_ns: i * interval_s * 1_000_000_000,
                duration_ns: interval_s * 1_000_000_000,
                read_ops: ops / 2,
                write_ops: ops - ops / 2,
                bytes: ops * 8192,
                iops: rate,
                bytes_per_sec: rate * 8192.0,
                lat_mean_ns: lat_ns / level,
                lat_p99_ns: (lat_ns / level * 3.0) as u64,
                ..IntervalPoint::default()
            }
        })
        .collect()
}

pub fn target(path: &str, size_bytes: u64, model: &str, rotational: bool) -> TargetFacts {
    TargetFacts {
        path: path.to_string(),
        kind: TargetKind::File,
        fs_type: Some("ext4".into()),
        device: Some("sdb".into()),
        device_model: Some(model.to_string()),
        rotational: Some(rotational),
        size_bytes,
        logical_block_bytes: 512,
        created: true,
        identity: None,
    }
}

pub fn job_result(
    job: Job,
    test: Option<&str>,
    target: TargetFacts,
    read: Option<f64>,
    write: Option<f64>,
) -> JobResult {
    let bs = job.bs[0].bytes;
    let qd = job.qd * job.threads;
    let total = read.unwrap_or(0.0) + write.unwrap_or(0.0);
    JobResult {
        test: test.map(str::to_string),
        target,
        engine: "io_uring".into(),
        measure_start_unix_ms: 0,
        elapsed_ns: 5_000_000_000,
        ramp_ns: 1_000_000_000,
        read: read.map(|i| direction(i, bs, qd)),
        write: write.map(|i| direction(i, bs, qd)),
        operations: Default::default(),
        syncs: 0,
        cpu_user_ns: 100_000_000,
        cpu_system_ns: 300_000_000,
        series: series(total, qd as f64 / total.max(1.0) * 1e9, 10, 1, None)
            .into_iter()
            .map(|mut p| {
                p.duration_ns /= 2;
                p.start_ns /= 2;
                p
            })
            .collect(),
        incomplete: false,
        cluster: None,
        device_io: None,
        job,
    }
}

/// A job as its keys would be given on the command line.
pub fn job(name: &str, rw: &str, bs_bytes: u64, qd: u32, read_pct: u8) -> Job {
    let mut job = Job::default();
    for (key, value) in [
        ("name", name.to_string()),
        ("rw", rw.to_string()),
        ("bs", bs_bytes.to_string()),
        ("qd", qd.to_string()),
        ("read_pct", read_pct.to_string()),
    ] {
        job.set(key, &value).unwrap();
    }
    job
}

fn run_result(label: &str, price: Option<&str>, suite: &str, jobs: Vec<JobResult>) -> RunResult {
    RunResult {
        id: None,
        kura_version: "0.1.0".into(),
        started_unix_s: 1_795_312_800,
        label: Some(label.to_string()),
        price: price.map(str::to_string),
        suite: Some(suite.into()),
        hosts: Vec::new(),
        interleaved_with: Vec::new(),
        host: HostFacts {
            hostname: "bench-vm".into(),
            kernel: "6.1.0-test".into(),
            cpu_model: "Test CPU".into(),
            cores: 2,
            memory_bytes: 24 << 30,
        },
        jobs,
        incomplete: false,
        warnings: vec!["constructed for the HTML tests".to_string().into()],
    }
}

/// CrystalDiskMark 8's default tests: (name, sequential, bs, qd).
const MARK_TESTS: [(&str, bool, u64, u32); 4] = [
    ("SEQ1M Q8T1", true, 1 << 20, 8),
    ("SEQ1M Q1T1", true, 1 << 20, 1),
    ("RND4K Q32T1", false, 4096, 32),
    ("RND4K Q1T1", false, 4096, 1),
];

/// A `kura mark` run with two repetitions per test; `mbps` gives the best
/// read and write MB/s of each test (the second repetition is 10 % slower).
pub fn mark_run(label: &str, mbps: [(f64, f64); 4], rotational: bool) -> RunResult {
    let facts = target("/mnt/t/kura-test.dat", 1 << 30, "TEST DISK", rotational);
    let mut jobs = Vec::new();
    for ((name, seq, bs, qd), (read_mb, write_mb)) in MARK_TESTS.into_iter().zip(mbps) {
        for (write, mb) in [(false, read_mb), (true, write_mb)] {
            for rep in 0..2 {
                let rw = match (seq, write) {
                    (true, false) => "read",
                    (true, true) => "write",
                    (false, false) => "randread",
                    (false, true) => "randwrite",
                };
                let direction = if write { "write" } else { "read" };
                let job = job(&format!("{name} {direction} #{}", rep + 1), rw, bs, qd, 50);
                let iops = mb * 1e6 / bs as f64 * if rep == 0 { 1.0 } else { 0.9 };
                let (r, w) = if write {
                    (None, Some(iops))
                } else {
                    (Some(iops), None)
                };
                jobs.push(job_result(job, Some(name), facts.clone(), r, w));
            }
        }
    }
    run_result(label, None, "mark:default", jobs)
}

/// The seed's physical server and cloud fast drive (MB/s: Seq read/write ...).
pub fn seed_marks() -> (RunResult, RunResult) {
    (
        mark_run(
            "Physical RAID5",
            [(180.2, 47.4), (95.1, 40.3), (3.1, 2.2), (0.687, 0.9)],
            true,
        ),
        mark_run(
            "Cloud fast",
            [(363.4, 250.7), (210.5, 180.2), (120.3, 95.8), (90.94, 60.1)],
            false,
        ),
    )
}

pub const SWEEP_SIZES: [u64; 6] = [4, 8, 16, 32, 64, 256];

/// A `kura sweep` run: random I/O at the seed's block sizes and three mixes;
/// `iops_4k_read` scales the whole curve.
pub fn sweep_run(label: &str, price: &str, iops_4k_read: f64, rotational: bool) -> RunResult {
    let facts = target("/data/kura-test.dat", 1 << 30, "Managed disk", rotational);
    let mut jobs = Vec::new();
    for (read_pct, mix_factor) in [(100u8, 1.0), (50, 0.8), (0, 0.7)] {
        for kib in SWEEP_SIZES {
            let name = format!("bs={kib}k mix={read_pct}/{}", 100 - read_pct);
            let job = job(&name, "randrw", kib * 1024, 8, read_pct);
            // IOPS fall with block size until the 60 MiB/s cap.
            let iops = (iops_4k_read * mix_factor * (4.0 / kib as f64).powf(0.3))
                .min(60.0 * 1048576.0 / (kib * 1024) as f64);
            let r = (read_pct > 0).then(|| iops * read_pct as f64 / 100.0);
            let w = (read_pct < 100).then(|| iops * (100 - read_pct) as f64 / 100.0);
            let test = job.name.clone();
            jobs.push(job_result(job, Some(&test), facts.clone(), r, w));
        }
    }
    run_result(label, Some(price), "sweep", jobs)
}

/// One job measured all night at 10 s periods, after a 5 min ramp; IOPS
/// rise by half at 02:00 (4 h in), as in the vdbench seed.
pub fn night_run() -> RunResult {
    let mut j = job_result(
        job("night", "randrw", 8192, 8, 50),
        None,
        target("/dev/vdb", 100 << 30, "Cloud volume", false),
        Some(1000.0),
        Some(1000.0),
    );
    j.ramp_ns = 300_000_000_000;
    j.elapsed_ns = 8 * 3600 * 1_000_000_000;
    j.series = series(2000.0, 3_850_000.0, 8 * 360, 10, Some((4 * 360, 1.5)));
    let mut run = run_result("Night volume", Some("1200 JPY/month"), "vdbench", vec![j]);
    run.suite = None;
    run
}

pub fn store_runs(db: &Path, runs: &mut [RunResult]) -> Vec<i64> {
    let mut store = Store::open(db, false).unwrap();
    runs.iter_mut().map(|r| store.save(r).unwrap()).collect()
}

// ---- headless Chromium ----

fn chromium(args: &[String]) -> std::process::Output {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("chromium");
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-proxy-server",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(args)
    .stdin(Stdio::null());
    // Files, not pipes: a DOM larger than a pipe's buffer would block
    // Chromium while this waits for it to exit.
    let stdout_path = profile.path().join("stdout");
    let stderr_path = profile.path().join("stderr");
    cmd.stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap());
    let mut child = cmd.spawn().expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish in 120 s: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    let stderr = std::fs::read(&stderr_path).unwrap_or_default();
    assert!(
        status.success(),
        "chromium {args:?} failed: {}",
        String::from_utf8_lossy(&stderr)
    );
    std::process::Output {
        status,
        stdout: std::fs::read(&stdout_path).unwrap(),
        stderr,
    }
}

/// The DOM after the page loaded, as Chromium serializes it.
pub fn dump_dom(url: &str) -> String {
    let out = chromium(&["--dump-dom".to_string(), url.to_string()]);
    String::from_utf8(out.stdout).expect("the DOM is UTF-8")
}

/// A 1280 px wide screenshot of `url` into target/screenshots/NAME.png.
pub fn screenshot(url: &str, name: &str, height: u32) -> PathBuf {
    let path = screenshot_dir().join(format!("{name}.png"));
    let _ = std::fs::remove_file(&path);
    chromium(&[
        format!("--screenshot={}", path.display()),
        format!("--window-size=1280,{height}"),
        url.to_string(),
    ]);
    let png = std::fs::read(&path).expect("the screenshot was written");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{name}.png looks empty"
    );
    path
}

pub fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

// The chart readers, shared with the library's own tests (report/html/pts.rs).
use kura::report::svg::esc;
#[path = "svg_inspect.rs"]
mod svg_inspect;
#[allow(unused_imports)] // Not every test binary reads charts.
pub use svg_inspect::{svg_chart, svg_lines};

// ---- HTTP on 127.0.0.1 ----

pub struct HttpReply {
    pub status: u16,
    pub headers: String,
    pub body: String,
}

/// One GET (or `method`) with Connection: close and hard timeouts.
pub fn request(addr: SocketAddr, method: &str, path: &str, host: Option<&str>) -> HttpReply {
    assert!(addr.ip().is_loopback(), "tests talk to loopback only");
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
    let host = host.map(str::to_string).unwrap_or_else(|| addr.to_string());
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("reads the reply");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8(raw[..split].to_vec()).expect("headers are text");
    let body = &raw[split + 4..];
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let chunked = head
        .lines()
        .any(|l| l.to_ascii_lowercase().starts_with("transfer-encoding:") && l.contains("chunked"));
    let body = if chunked { dechunk(body) } else { body.to_vec() };
    HttpReply {
        status,
        headers: head,
        body: String::from_utf8(body).expect("bodies are UTF-8"),
    }
}

/// HTTP/1.1 chunked transfer coding, should a server send it.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = raw
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("a chunk size line");
        let line = std::str::from_utf8(&raw[..eol]).unwrap();
        let size = usize::from_str_radix(line.split(';').next().unwrap().trim(), 16).expect("a hex size");
        if size == 0 {
            return out;
        }
        let rest = &raw[eol + 2..];
        out.extend_from_slice(&rest[..size]);
        raw = rest[size..].strip_prefix(b"\r\n").expect("CRLF after a chunk");
    }
}

pub fn get(addr: SocketAddr, path: &str) -> HttpReply {
    request(addr, "GET", path, None)
}

/// `kura serve` in a child process on an ephemeral loopback port.
pub struct Server {
    pub child: std::process::Child,
    pub addr: SocketAddr,
}

impl Server {
    pub fn start(db: &Path, extra: &[&str]) -> Server {
        let mut child = crate::common::cmd::child(db)
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kura serve starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("kura serve prints its address within 30 s");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Server { child, addr }
    }

    /// Ctrl-C, then the exit status within 10 s.
    pub fn interrupt(mut self) -> std::process::ExitStatus {
        // SAFETY: kill(2) on our own child's pid; no memory is involved.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGINT);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "kura serve ignored Ctrl-C for 10 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
