//! The memory guard: what a job will hold in memory, estimated before
//! anything is created, against the least of what the machine has free
//! (`MemAvailable`), what the memory cgroup kura runs in still allows (v1
//! `memory.limit_in_bytes`, v2 `memory.max`, up to the root), and the job's
//! own `mem_limit` (kura itself runs inside that group). A job that cannot
//! fit is refused with both numbers: the kernel's OOM killer would end kura
//! half way, leaving its test files and cgroup behind, or take down other
//! processes on the machine.
//!
//! The terms were measured (VmHWM of `kura run` on io_uring, docs/safety.md):
//! about 26 MiB for an idle run, 1.4 MiB more per thread (its stack, its
//! latency histograms of ~270 KiB each, its interval samples), and per queue
//! slot its two buffers plus 6.8 to 8.4 KiB (the slot's state and its share
//! of the io_uring rings). Each term is rounded up.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::jobs::Job;
use crate::jobs::job::DEFAULT_RUNTIME;
use crate::jobs::units;
use crate::metrics::collect::MAX_PERIODS;
// Readable sizes (`2.4 GiB`): `units::format_size` writes exact ones.
use crate::targets::fileset::format_size;

/// The process before any job: binary, SQLite, allocator, main thread.
pub const BASE_BYTES: u64 = 32 << 20;
/// One worker thread beside its slots: stack pages touched, histograms, samples.
pub const PER_THREAD_BYTES: u64 = 2 << 20;
/// One queue slot beside its two buffers: its state and ring entries.
pub const PER_SLOT_BYTES: u64 = 8 << 10;
/// One period of a job's interval series, from its first sample to the
/// stored run: its figures while the job runs, then at the job's end its
/// point and that point's JSON, twice (the finished job, the whole run),
/// all held at once. Measured as the growth of peak RSS (VmHWM, read from
/// /proc/PID/status every 100 ms until kura exits) of `kura run --engine null
/// --rate-iops 1000 --interval 10ms` between 2,000 periods (20 s, 34.6 MiB)
/// and 12,000 (120 s, 72.5 MiB): 3,977 bytes a period, 3,850 to 3,980 at 1
/// or 4 threads, reads or a mix (the series is the job's, not a thread's).
/// The 512 bytes assumed before counted only the figures kept while it runs.
pub const PER_PERIOD_BYTES: u64 = 4 << 10;

/// What one job is expected to hold at its peak; `None` when it overflows.
pub fn job_bytes(job: &Job) -> Option<u64> {
    slots_bytes(job)?
        .checked_add(threads_bytes(job)?)?
        .checked_add(series_bytes(job))
}

/// The queue slots: two buffers and the slot's state each, as many a
/// thread as the kind keeps operations in flight (block I/O: its qd).
fn slots_bytes(job: &Job) -> Option<u64> {
    let in_flight = job.workload.kind().in_flight_per_thread(job);
    let slots = u64::from(job.threads.max(1)).checked_mul(in_flight)?;
    let per_slot = job.max_bs().checked_mul(2)?.checked_add(PER_SLOT_BYTES)?;
    slots.checked_mul(per_slot)
}

fn threads_bytes(job: &Job) -> Option<u64> {
    u64::from(job.threads.max(1)).checked_mul(PER_THREAD_BYTES)
}

/// The periods a job's series holds at most: one per interval of its ramp
/// and runtime, and never more than `MAX_PERIODS` (a longer series is
/// coarsened, `metrics::collect`). A job whose end is unknown (an amount of
/// I/O with no runtime: at a low rate it may run for days) holds that many.
pub fn series_periods(job: &Job) -> u64 {
    let all = every_period(job).unwrap_or(u128::MAX);
    u64::try_from(all).unwrap_or(u64::MAX).min(MAX_PERIODS as u64)
}

/// One period per interval of the job's ramp and runtime (the default
/// runtime when it names no amount either); `None` when its end is unknown.
fn every_period(job: &Job) -> Option<u128> {
    // A kind measured whole keeps no series but the OLTP mix's, a period a
    // second of its few minutes: nothing beside the rest of the estimate.
    if job.workload.kind().measured_whole() {
        return Some(0);
    }
    let amount = job.io_size_bytes.is_some() || job.io_count.is_some() || job.passes.is_some();
    let length = match job.runtime {
        Some(runtime) => runtime + job.ramp,
        None if amount => return None,
        None => DEFAULT_RUNTIME + job.ramp,
    };
    Some(length.as_nanos() / job.interval.as_nanos().max(1) + 1)
}

fn series_bytes(job: &Job) -> u64 {
    series_periods(job) * PER_PERIOD_BYTES
}

/// The interval series as the cause of a refusal: when the rest of the job
/// fits in `room` bytes, the words for the series and the interval or
/// runtime with which it fits.
struct SeriesCause {
    what: String,
    fix: String,
}

fn series_cause(job: &Job, needed: u64, room: u64) -> Option<SeriesCause> {
    let series = series_bytes(job);
    let rest = needed.checked_sub(series)?;
    if rest > room {
        return None;
    }
    // The periods that fit beside the rest: n periods span n - 1 whole intervals.
    let fit = (room - rest) / PER_PERIOD_BYTES;
    let mut ways = Vec::new();
    if fit >= 2 {
        if let Some(runtime) = job.runtime {
            let least = (runtime + job.ramp).as_nanos().div_ceil(u128::from(fit - 1));
            let least = Duration::from_nanos(u64::try_from(least).unwrap_or(u64::MAX));
            ways.push(format!("--interval {} or more", readable_duration(least, true)));
        }
        let longest = job
            .interval
            .saturating_mul(u32::try_from(fit - 1).unwrap_or(u32::MAX))
            .saturating_sub(job.ramp);
        if longest >= Duration::from_millis(1) {
            ways.push(format!("--runtime {} or less", readable_duration(longest, false)));
        }
    }
    let interval = units::format_duration(job.interval);
    let kept = match every_period(job) {
        None => format!("up to {MAX_PERIODS} periods, the most a job keeps, as its end is unknown"),
        Some(all) if all > MAX_PERIODS as u128 => {
            format!("{all} periods of --interval {interval}, kept as {MAX_PERIODS} at most")
        }
        Some(all) => format!("{all} periods of --interval {interval}"),
    };
    Some(SeriesCause {
        what: format!(
            "{} of it for the interval series ({kept}, {} each)",
            format_size(series),
            format_size(PER_PERIOD_BYTES)
        ),
        fix: if ways.is_empty() {
            "the interval series is the cause".into()
        } else {
            format!("the interval series is the cause: give {}", ways.join(", or "))
        },
    })
}

/// A duration as a flag takes it, rounded up (`up`) or down to a whole
/// millisecond (whole second from 10 s on) so that it still fits.
fn readable_duration(d: Duration, up: bool) -> String {
    let unit: u128 = if d >= Duration::from_secs(10) {
        1_000_000_000
    } else {
        1_000_000
    };
    let n = d.as_nanos();
    let whole = if up { n.div_ceil(unit) } else { n / unit }.max(1);
    let d = Duration::from_nanos(u64::try_from(whole * unit).unwrap_or(u64::MAX));
    units::format_duration(d)
}

/// The smallest room kura has, and who sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Room {
    pub bytes: u64,
    pub what: String,
}

/// The machine's room (`available`, MemAvailable) and the cgroup's now.
/// Empty when the kernel says nothing.
pub fn rooms(available: Option<u64>) -> Vec<Room> {
    let mut out = Vec::new();
    if let Some(bytes) = available {
        out.push(Room {
            bytes,
            what: "available on this machine (MemAvailable)".into(),
        });
    }
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    out.extend(cgroup_room(&cgroup, Path::new("/sys/fs/cgroup")));
    out
}

/// Room left under the tightest memory limit of kura's cgroup and its
/// ancestors: the limit less what is charged there and cannot be reclaimed
/// (page cache can). `root` is where the hierarchies are mounted.
fn cgroup_room(proc_cgroup: &str, root: &Path) -> Option<Room> {
    limits(proc_cgroup, root)
        .into_iter()
        .map(|l| {
            let usage = read_number(&l.dir.join(l.usage_file)).unwrap_or(0);
            let stat = std::fs::read_to_string(l.dir.join("memory.stat")).unwrap_or_default();
            let file: u64 = stat
                .lines()
                .filter_map(|line| line.split_once(' '))
                .filter(|(k, _)| l.file_keys.contains(k))
                .filter_map(|(_, v)| v.trim().parse::<u64>().ok())
                .sum();
            Room {
                bytes: l.bytes.saturating_sub(usage.saturating_sub(file)),
                what: format!(
                    "left under the memory cgroup limit of {} ({} {})",
                    l.dir.display(),
                    l.limit_file,
                    format_size(l.bytes)
                ),
            }
        })
        .min_by_key(|r| r.bytes)
}

/// The memory kura may use at all: MemTotal, or less where a memory limit
/// is set on its cgroup or one above it. bonnie++ sizes its file from this.
pub fn usable_memory_bytes() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let total = mem_total(&meminfo).unwrap_or(0);
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let limit = limits(&cgroup, Path::new("/sys/fs/cgroup"))
        .into_iter()
        .map(|l| l.bytes)
        .min();
    match limit {
        Some(l) if total == 0 || l < total => l,
        _ => total,
    }
}

fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    line.split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()?
        .checked_mul(1024)
}

/// A memory limit set on kura's cgroup or one of its ancestors, and the
/// files beside it that say what is charged there.
struct Limit {
    dir: PathBuf,
    limit_file: &'static str,
    usage_file: &'static str,
    /// The keys of `memory.stat` that count reclaimable page cache.
    file_keys: &'static [&'static str],
    bytes: u64,
}

/// Every memory limit on kura's cgroups (v1's memory controller, v2) and
/// their ancestors, read from `/proc/self/cgroup`'s text; `root` is where
/// the hierarchies are mounted.
fn limits(proc_cgroup: &str, root: &Path) -> Vec<Limit> {
    let mut out = Vec::new();
    let mut walk = |dir: PathBuf, limit_file, usage_file, file_keys| {
        let mut dir = Some(dir.as_path());
        while let Some(d) = dir {
            if !d.starts_with(root) || d == root {
                break;
            }
            // v1 writes "no limit" as a page-rounded i64::MAX; v2 writes "max".
            if let Some(bytes) = read_number(&d.join(limit_file)).filter(|l| *l < 1 << 60) {
                out.push(Limit {
                    dir: d.to_path_buf(),
                    limit_file,
                    usage_file,
                    file_keys,
                    bytes,
                });
            }
            dir = d.parent();
        }
    };
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let rel = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "memory") {
            walk(
                root.join("memory").join(rel),
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
                &["total_inactive_file", "total_active_file"],
            );
        } else if controllers.is_empty() {
            // The unified hierarchy is mounted at the root or, beside v1, at `unified`.
            for base in [root.to_path_buf(), root.join("unified")] {
                if base.join("cgroup.controllers").exists() {
                    walk(
                        base.join(rel),
                        "memory.max",
                        "memory.current",
                        &["inactive_file", "active_file"],
                    );
                }
            }
        }
    }
    out
}

fn read_number(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Refuses jobs (one, or a group that runs at the same time) that would
/// not fit in the memory kura has; the message gives the estimate, its
/// largest term and the limit it is over, and names the interval series
/// when it is what does not fit.
pub fn check(jobs: &[&Job], rooms: &[Room]) -> Result<(), String> {
    let needed = jobs
        .iter()
        .try_fold(BASE_BYTES, |sum, j| job_bytes(j).and_then(|b| sum.checked_add(b)));
    let needed_text = needed.map_or_else(|| "more than 16 EiB".into(), format_size);
    let terms = |job: &Job, series: bool| {
        format!(
            "{} threads x qd {} x (2 x bs {} + {} per slot), {} per thread, {}{} for kura",
            job.threads,
            job.qd,
            units::format_size(job.max_bs()),
            format_size(PER_SLOT_BYTES),
            format_size(PER_THREAD_BYTES),
            if series {
                format!(
                    "{} periods of the series x {}, ",
                    series_periods(job),
                    format_size(PER_PERIOD_BYTES)
                )
            } else {
                String::new()
            },
            format_size(BASE_BYTES),
        )
    };
    let group = || {
        format!(
            "{}: these jobs running at the same time need about {needed_text} of memory",
            jobs.iter()
                .map(|j| j.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        )
    };
    let Some(needed) = needed else {
        let what = match jobs {
            [job] => format!(
                "{}: the job needs about {needed_text} of memory ({})",
                job.name,
                terms(job, true)
            ),
            _ => group(),
        };
        return Err(format!("{what}; lower qd, bs or threads"));
    };
    // The job's threads and buffers are made inside the group `mem_limit`
    // makes; what kura had before it entered stays charged where it was.
    let own = jobs
        .iter()
        .filter_map(|j| j.mem_limit_bytes)
        .min()
        .map(|bytes| Room {
            bytes: bytes.saturating_add(BASE_BYTES),
            what: String::new(),
        });
    let Some(room) = rooms.iter().chain(own.as_ref()).min_by_key(|r| r.bytes) else {
        return Ok(());
    };
    if needed <= room.bytes {
        return Ok(());
    }
    let (what, fix) = match jobs {
        [job] => match series_cause(job, needed, room.bytes) {
            Some(cause) => (
                format!(
                    "{}: the job needs about {needed_text} of memory, {} ({})",
                    job.name,
                    cause.what,
                    terms(job, false)
                ),
                cause.fix,
            ),
            None => (
                format!(
                    "{}: the job needs about {needed_text} of memory ({})",
                    job.name,
                    terms(job, true)
                ),
                "lower qd, bs or threads".to_string(),
            ),
        },
        _ => (group(), "lower qd, bs or threads".to_string()),
    };
    if room.what.is_empty() {
        Err(format!(
            "{what} but mem_limit allows {} (kura's threads run inside that memory cgroup too); \
             {fix}, or raise mem_limit",
            format_size(room.bytes - BASE_BYTES),
        ))
    } else {
        Err(format!(
            "{what} but only {} is {}; {fix}",
            format_size(room.bytes),
            room.what
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(threads: u32, qd: u32, bs: &str) -> Job {
        let mut j = Job::default();
        j.set("threads", &threads.to_string()).unwrap();
        j.set("qd", &qd.to_string()).unwrap();
        j.set("bs", bs).unwrap();
        j
    }

    #[test]
    fn the_estimate_covers_what_was_measured() {
        // VmHWM measured on io_uring, in KiB: (threads, qd, bs, peak).
        for (threads, qd, bs, kib) in [
            (1, 1, "4k", 26_060u64),
            (64, 1, "4k", 114_732),
            (256, 1, "512", 382_168),
            (8, 4096, "512", 301_200),
            (4, 1024, "64k", 553_392),
            (1, 64, "1m", 155_696),
        ] {
            let j = job(threads, qd, bs);
            let est = BASE_BYTES + job_bytes(&j).unwrap();
            assert!(est >= kib * 1024, "{threads}x{qd}x{bs}: {est} < {kib} KiB");
            assert!(
                est <= kib * 1024 * 2,
                "{threads}x{qd}x{bs}: {est} is far above {kib} KiB"
            );
        }
    }

    #[test]
    fn the_tightest_room_refuses_with_both_numbers() {
        let j = job(64, 4096, "512");
        let rooms = [
            Room {
                bytes: 1 << 30,
                what: "left under the memory cgroup limit of /x".into(),
            },
            Room {
                bytes: 20 << 30,
                what: "available on this machine (MemAvailable)".into(),
            },
        ];
        let e = check(&[&j], &rooms).unwrap_err();
        assert!(e.contains("needs about 2.4 GiB"), "{e}");
        assert!(
            e.contains("only 1.0 GiB is left under the memory cgroup limit of /x"),
            "{e}"
        );
        assert!(check(&[&j], &rooms[1..]).is_ok());
        let mut capped = j.clone();
        capped.mem_limit_bytes = Some(256 << 20);
        let e = check(&[&capped], &rooms[1..]).unwrap_err();
        assert!(e.contains("but mem_limit allows 256.0 MiB"), "{e}");
        let mut huge = job(1, 1, "1m");
        (huge.threads, huge.qd) = (u32::MAX, u32::MAX);
        assert_eq!(job_bytes(&huge), None);
        let e = check(&[&huge], &[]).unwrap_err();
        assert!(e.contains("more than 16 EiB"), "{e}");
    }

    fn timed(runtime: &str, interval: &str) -> Job {
        let mut j = job(1, 1, "4k");
        j.set("runtime", runtime).unwrap();
        j.set("interval", interval).unwrap();
        j
    }

    #[test]
    fn the_estimate_covers_the_series_measured() {
        // The null engine's peak RSS grew 3,977 bytes a period (PER_PERIOD_BYTES).
        const MEASURED: u64 = 3_977;
        for (runtime, interval, periods) in [
            ("30s", "10ms", 3001u64),
            // What a hostile try ran: 47,001 periods, held as 2,938 of 160 ms.
            ("470s", "10ms", 2938),
            ("8h", "1s", 3600),
        ] {
            let j = timed(runtime, interval);
            // The same job with one period less than... one: the rest of the estimate.
            let one = timed(runtime, runtime);
            let series = job_bytes(&j).unwrap() - job_bytes(&one).unwrap();
            assert!(
                series + 2 * PER_PERIOD_BYTES >= periods * MEASURED,
                "{runtime} at {interval}: {series} bytes for {periods} periods"
            );
        }
    }

    #[test]
    fn a_job_whose_end_is_unknown_counts_the_most_periods_a_job_keeps() {
        let mut j = job(1, 1, "4k");
        j.set("io_count", "4000000000").unwrap();
        j.set("rate_iops", "1").unwrap();
        j.set("interval", "10ms").unwrap();
        assert_eq!(series_periods(&j), MAX_PERIODS as u64);
        // A runtime caps it; without either, the default runtime's.
        j.set("runtime", "1s").unwrap();
        assert_eq!(series_periods(&j), 101);
        let plain = job(1, 1, "4k");
        assert_eq!(series_periods(&plain), DEFAULT_RUNTIME.as_secs() + 1);
    }

    #[test]
    fn a_series_that_does_not_fit_names_the_interval_and_what_fits() {
        let j = timed("470s", "10ms");
        let room = |mib: u64| Room {
            bytes: mib << 20,
            what: "left under the memory cgroup limit of /x".into(),
        };
        // 32 MiB for kura, 2 MiB for the thread: 6 MiB are left for 1,536 periods.
        let e = check(&[&j], &[room(40)]).unwrap_err();
        assert!(e.contains("16.0 MiB of it for the interval series"), "{e}");
        assert!(
            e.contains("47001 periods of --interval 10ms, kept as 4096 at most"),
            "{e}"
        );
        assert!(
            e.ends_with(
                "the interval series is the cause: give --interval 307ms or more, or --runtime 15s or less"
            ),
            "{e}"
        );
        // What it names fits.
        for (runtime, interval) in [("470s", "307ms"), ("15s", "10ms")] {
            assert!(
                check(&[&timed(runtime, interval)], &[room(40)]).is_ok(),
                "{runtime} {interval}"
            );
        }
        let mut capped = j.clone();
        capped.mem_limit_bytes = Some(10 << 20);
        let e = check(&[&capped], &[]).unwrap_err();
        assert!(e.contains("but mem_limit allows 10.0 MiB"), "{e}");
        assert!(e.ends_with("or --runtime 20s or less, or raise mem_limit"), "{e}");
        // Threads and queue that do not fit are still the cause, the series counted among them.
        let e = check(&[&job(64, 4096, "512")], &[room(1024)]).unwrap_err();
        assert!(e.ends_with("lower qd, bs or threads"), "{e}");
        assert!(e.contains("11 periods of the series x 4.0 KiB"), "{e}");
        let mut unknown = job(1, 1, "4k");
        unknown.set("io_count", "4000000000").unwrap();
        let e = check(&[&unknown], &[room(40)]).unwrap_err();
        assert!(e.contains("the most a job keeps, as its end is unknown"), "{e}");
        assert!(e.ends_with("give --runtime 1531s or less"), "{e}");
    }

    #[test]
    fn a_v1_cgroup_limit_counts_what_cannot_be_reclaimed() {
        let dir = tempfile::tempdir().unwrap();
        let g = dir.path().join("memory/outer/inner");
        std::fs::create_dir_all(&g).unwrap();
        let outer = dir.path().join("memory/outer");
        std::fs::write(outer.join("memory.limit_in_bytes"), "1073741824\n").unwrap();
        std::fs::write(outer.join("memory.usage_in_bytes"), "536870912\n").unwrap();
        std::fs::write(outer.join("memory.stat"), "total_inactive_file 268435456\n").unwrap();
        std::fs::write(g.join("memory.limit_in_bytes"), "9223372036854771712\n").unwrap();
        let room = cgroup_room("4:memory:/outer/inner\n0::/\n", dir.path()).unwrap();
        assert_eq!(room.bytes, 768 << 20);
        assert!(
            room.what.contains("outer (memory.limit_in_bytes 1.0 GiB)"),
            "{}",
            room.what
        );
        assert!(cgroup_room("4:memory:/\n", dir.path()).is_none());
    }

    #[test]
    fn usable_memory_is_the_tightest_limit_of_v1_and_v2_with_parents() {
        let root = tempfile::tempdir().unwrap();
        let v1 = root.path().join("memory/a/b");
        std::fs::create_dir_all(&v1).unwrap();
        std::fs::write(v1.join("memory.limit_in_bytes"), "536870912\n").unwrap();
        std::fs::write(
            root.path().join("memory/a/memory.limit_in_bytes"),
            "9223372036854771712\n",
        )
        .unwrap();
        let v2 = root.path().join("unified/c");
        std::fs::create_dir_all(&v2).unwrap();
        std::fs::write(root.path().join("unified/cgroup.controllers"), "memory\n").unwrap();
        std::fs::write(v2.join("memory.max"), "max\n").unwrap();
        std::fs::write(root.path().join("unified/memory.max"), "1073741824\n").unwrap();
        let text = "4:memory:/a/b\n3:cpu:/x\n0::/c\n";
        let mut found: Vec<u64> = limits(text, root.path()).iter().map(|l| l.bytes).collect();
        found.sort();
        assert_eq!(found, vec![1 << 29, 1 << 30]);
        assert_eq!(mem_total("MemTotal:  1024 kB\n"), Some(1 << 20));
        assert!(usable_memory_bytes() > 0);
    }
}
