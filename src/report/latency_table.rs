//! The terminal page of a latency-bounded search: the load-latency curve as
//! a table (offered load, achieved IOPS, the bound's statistic, held or
//! crossed), the result in a sentence, and the step that held at the
//! highest load in full.

use super::escape::term;
use super::format::latency;
use super::run_table::{new_table, render_job};
use crate::jobs::EngineKind;
use crate::jobs::latency::{LatencyLoad, LatencyStat};
use crate::metrics::latency_bound::{
    Curve, DEVICE_BUSY_SHARE, Limiter, SHORT_SHARE, Verdict, closed_loop_max_iops, curves, in_flight_cap,
    stat_ns,
};
use crate::metrics::{JobResult, RunResult};

/// `12,400` from 12400.4.
pub fn grouped(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A limit as people write it: `6 ms`, `500 µs`, `1.5 ms`.
pub fn limit_text(ns: f64) -> String {
    let s = latency(ns);
    match s.split_once(' ') {
        Some((n, unit)) if n.contains('.') => {
            format!("{} {unit}", n.trim_end_matches('0').trim_end_matches('.'))
        }
        _ => s,
    }
}

/// `latency_limit 6 ms (mean), load rate`: what decides whether two searches compare.
pub fn bound_text(c: &Curve) -> String {
    crate::t!(
        match c.load {
            LatencyLoad::Rate => "search-bound-rate",
            LatencyLoad::Qd => "search-bound-qd",
            LatencyLoad::Threads => "search-bound-threads",
        },
        stat = crate::i18n::heading(c.stat.name()),
        limit = limit_text(c.latency_limit_ns as f64)
    )
}

/// The sentence with the result.
pub fn sentence(c: &Curve) -> String {
    c.sentence(limit_text, grouped)
}

/// One search: its curve table, its sentence, and its best step in full.
pub fn render_curve(run: &RunResult, c: &Curve) -> String {
    let title = match &c.test {
        Some(t) => format!("{} [{}]", term(&c.job), term(t)),
        None => term(&c.job).into_owned(),
    };
    let mut out = format!(
        "{}\n",
        crate::t!("search-title", title = title, bound = bound_text(c))
    );
    let stat = crate::t!(
        "direction-latency",
        direction = crate::i18n::heading(c.stat.name())
    );
    let mut t = new_table(&["step", "phase", "offered", "achieved IOPS", &stat, "bound"]);
    for (i, p) in c.points.iter().enumerate() {
        let offered = match c.load {
            LatencyLoad::Rate => p
                .offered_iops
                .map(|r| format!("{} IOPS", grouped(r as f64)))
                .unwrap_or_else(|| crate::t!("search-unthrottled")),
            LatencyLoad::Qd => format!("qd {}", p.qd),
            LatencyLoad::Threads => crate::t!("search-threads", threads = p.threads),
        };
        let mark = if c.best == Some(i) {
            crate::t!("search-best", verdict = crate::i18n::heading(p.verdict.name()))
        } else {
            crate::i18n::heading(p.verdict.name())
        };
        t.add_row(vec![
            p.step.to_string(),
            crate::i18n::heading(p.phase.name()),
            offered,
            grouped(p.achieved_iops),
            p.latency_ns.map(latency).unwrap_or_else(|| "-".into()),
            mark,
        ]);
    }
    out.push_str(&super::fit::render(&t));
    out.push('\n');
    // Wrapped to 80 columns: the sentence names the limit, the load and the result.
    out.push_str(&super::width::wrap("", &sentence(c), 2));
    for note in notes(run, c) {
        out.push_str(&super::width::wrap("", &note, 0));
    }
    if let Some(p) = c.best_point() {
        out.push('\n');
        out.push_str(&format!("{}\n", crate::t!("search-best-step")));
        out.push_str(&render_job(&run.jobs[p.job_index], false));
    }
    out
}

/// What held a search's short steps or kept it under its limit, from the
/// evidence of the step that shows it (`Curve::limiting_point`, else its
/// highest short step): the target, the job's operations in flight, the
/// client's CPU, or unknown; and what to raise where raising helps.
pub fn notes(run: &RunResult, c: &Curve) -> Vec<String> {
    let mut out = Vec::new();
    // The highest load that fell short says what capped the closed loop.
    let short = c
        .points
        .iter()
        .filter(|p| p.verdict == Verdict::Short)
        .max_by_key(|p| p.load(c.load).unwrap_or(u64::MAX));
    if short.is_some() {
        out.push(crate::t!(
            "search-short-note",
            pct = format!("{:.0}", SHORT_SHARE * 100.0)
        ));
    }
    let Some(p) = c.limiting_point().or(short) else {
        return out;
    };
    let r = &run.jobs[p.job_index];
    let e = &p.evidence;
    if c.lower_bound() && !matches!(p.limited_by, Limiter::InFlight) {
        out.push(crate::t!("search-lower-bound"));
    }
    let inflight = format!("{:.1}", e.in_flight.min(e.in_flight_cap as f64));
    let cpu = format!("{:.0}", e.cpu_per_thread * 100.0);
    out.push(match p.limited_by {
        Limiter::Target => crate::t!(
            "search-held-target",
            shape = shape(r),
            inflight = inflight,
            cap = e.in_flight_cap,
            growth = format!("{:.0}", e.latency_growth),
            cpu = cpu,
            device = device_part(e.device_busy)
        ),
        Limiter::ClientCpu => crate::t!(
            "search-held-cpu",
            cpu = cpu,
            inflight = inflight,
            cap = e.in_flight_cap
        ),
        Limiter::Unknown => crate::t!(
            "search-held-unknown",
            cpu = cpu,
            inflight = inflight,
            cap = e.in_flight_cap,
            device = device_part(e.device_busy)
        ),
        Limiter::InFlight if p.verdict == Verdict::Short => crate::t!(
            "search-short-cap",
            shape = shape(r),
            inflight = in_flight_cap(r),
            latency = stat_ns(r, LatencyStat::Mean).map(latency).unwrap_or_default(),
            max = grouped(closed_loop_max_iops(r).unwrap_or_default()),
            raise = raise(c, r)
        ),
        Limiter::InFlight => crate::t!("search-lower-bound-hint", raise = raise(c, r)),
    });
    out
}

/// How busy the device was, as a clause of a note: busy is the target's
/// evidence; a device mostly idle while operations waited says they
/// waited above it (a cgroup's throttle, a layer over the device).
/// Where the device is not known (a file's), nothing.
fn device_part(busy: Option<f64>) -> String {
    match busy {
        None => String::new(),
        Some(b) => crate::t!(
            if b >= DEVICE_BUSY_SHARE {
                "search-device-busy"
            } else {
                "search-device-idle"
            },
            pct = format!("{:.0}", b * 100.0)
        ),
    }
}

/// `qd 1 x 8 threads`, or `8 threads` where a thread does one operation at a time.
fn shape(r: &JobResult) -> String {
    match r.job.workload.kind().has_queue() {
        true => crate::t!("search-shape-block", qd = r.job.qd, threads = r.job.threads),
        false => crate::t!("search-threads", threads = r.job.threads),
    }
}

/// What to raise so the search can offer more: the ceiling of a queue
/// depth or thread search; for a rate search, what bounds the operations
/// in flight (`in_flight_cap`): qd and threads, threads alone on the sync
/// engine (one I/O in flight per thread) and for kinds other than block I/O.
fn raise(c: &Curve, r: &JobResult) -> String {
    match (c.load, r.job.workload.kind().has_queue(), r.job.engine) {
        (LatencyLoad::Qd, ..) => crate::t!("search-raise-ceiling-qd"),
        (LatencyLoad::Threads, ..) => crate::t!("search-raise-ceiling-threads"),
        (LatencyLoad::Rate, true, EngineKind::Sync) => crate::t!("search-raise-sync"),
        (LatencyLoad::Rate, true, _) => crate::t!("search-raise-qd-threads"),
        (LatencyLoad::Rate, false, _) => crate::t!("search-raise-threads"),
    }
}

/// Every search of the run, each as `render_curve` shows it.
pub fn render(run: &RunResult) -> String {
    curves(run)
        .iter()
        .map(|c| render_curve(run, c))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A step's device counters: its target device busy `share` of a second.
    fn busy(share: f64) -> crate::metrics::device_io::DeviceIo {
        use crate::metrics::device_io::{DeviceCounts, DeviceIo, DeviceRole};
        DeviceIo {
            window_ns: 1_000_000_000,
            devices: vec![DeviceCounts {
                device: "loop3".into(),
                role: DeviceRole::Target,
                holder: None,
                reads: 0,
                read_bytes: 0,
                read_ticks_ns: 0,
                writes: 0,
                write_bytes: 0,
                write_ticks_ns: 0,
                busy_ns: (share * 1e9) as u64,
                discards: 0,
                discard_bytes: 0,
                flushes: 0,
            }],
            write_amplification: None,
        }
    }
    use crate::jobs::Rw;
    use crate::jobs::latency::{LatencyStat, LatencyStep, Phase};
    use crate::metrics::JobResult;
    use crate::metrics::latency_bound::{Limiter, Verdict, stat_ns, verdict};
    use crate::report::fixtures::{direction, job, run};

    /// A step of a 1 ms mean-latency rate search: `offered` IOPS (None:
    /// the probe), `ops` done in its second, each read taking `lat_ns`.
    pub(crate) fn step(index: u32, phase: Phase, offered: Option<u64>, ops: u64, lat_ns: u64) -> JobResult {
        let mut r = job("job", Rw::RandRead, 4096, 100, Some(ops), None);
        r.test = None;
        r.read = Some(direction(ops, 4096, &[lat_ns]));
        r.job.latency_limit_ns = Some(1_000_000);
        r.job.rate_iops = offered;
        r.job.latency_step = Some(LatencyStep { index, phase });
        r
    }

    #[test]
    fn verdicts_and_the_curve_come_from_the_stored_steps() {
        let steps = vec![
            step(0, Phase::Probe, None, 2000, 5_000_000),
            step(1, Phase::Climb, Some(200), 200, 100_000),
            step(2, Phase::Climb, Some(300), 300, 900_000),
            // Under the limit, but 400 of the 450 offered: short.
            step(3, Phase::Climb, Some(450), 400, 500_000),
            step(4, Phase::Refine, Some(375), 375, 1_200_000),
        ];
        let verdicts: Vec<_> = steps.iter().map(|s| verdict(s).unwrap()).collect();
        assert_eq!(
            verdicts,
            [
                Verdict::Crossed,
                Verdict::Held,
                Verdict::Held,
                Verdict::Short,
                Verdict::Crossed
            ]
        );
        let r = run("", steps);
        let cs = curves(&r);
        assert_eq!(cs.len(), 1);
        let c = &cs[0];
        assert_eq!(c.points.len(), 5);
        assert_eq!(c.best_point().unwrap().offered_iops, Some(300));
        assert_eq!(c.score_iops(), Some(300.0));
        assert_eq!(
            sentence(c),
            "highest rate holding mean latency under 1 ms: 300 IOPS"
        );
        let text = render(&r);
        assert!(
            text.contains("held (best)") && text.contains("short") && text.contains("unthrottled"),
            "{text}"
        );
        assert!(text.contains("less than 95 %"), "{text}");

        // A second search of the run starts again at step 0.
        let mut two = r.clone();
        // One I/O in flight at 300 µs allows about 3,333 IOPS: 3,200 is
        // the queue's limit, so the hint is to raise it.
        two.jobs.push(step(0, Phase::Probe, None, 3200, 300_000));
        let cs = curves(&two);
        assert_eq!(cs.len(), 2);
        let probe = sentence(&cs[1]);
        assert!(
            probe.starts_with("mean latency stayed under 1 ms even unthrottled: >= 3,200 IOPS (")
                && probe.ends_with(" µs mean); the limit was never crossed, so this is a lower bound"),
            "{probe}"
        );
        assert!(cs[1].lower_bound() && !cs[0].lower_bound());
        let text = notes(&two, &cs[1]).join(" ");
        assert!(
            text.contains("The score is a lower bound") && text.contains("raise qd or threads"),
            "{text}"
        );
    }

    /// The steps above the best were all short: nothing the job could offer
    /// crossed the limit, so the score is a lower bound, and the note says
    /// what capped the offered load and what to raise.
    #[test]
    fn a_search_whose_top_steps_fell_short_scores_a_lower_bound() {
        let mut steps = vec![
            // Unpaced, the probe queued past the limit: that bounds nothing.
            step(0, Phase::Probe, None, 2000, 50_000_000),
            step(1, Phase::Climb, Some(200), 200, 3_000_000),
            step(2, Phase::Climb, Some(300), 300, 4_000_000),
            // Two threads of one I/O each at 4.8 ms complete about 417 a
            // second at most: 450 offered, 400 done, the threads were busy.
            step(3, Phase::Climb, Some(450), 400, 4_800_000),
            step(4, Phase::Refine, Some(375), 330, 4_500_000),
        ];
        for s in &mut steps {
            s.job.engine = EngineKind::Sync;
            s.job.threads = 2;
            s.job.latency_limit_ns = Some(10_000_000);
        }
        let r = run("", steps);
        let c = &curves(&r)[0];
        assert_eq!(c.points[4].verdict, Verdict::Short);
        assert!(c.lower_bound());
        assert_eq!(c.score_iops(), Some(300.0));
        assert_eq!(
            sentence(c),
            "highest rate holding mean latency under 10 ms: >= 300 IOPS, a lower bound: no step crossed the limit"
        );
        let text = notes(&r, c).join(" ");
        assert!(render(&r).contains("At qd 1 x 2 threads"));
        let mean_ns = stat_ns(&r.jobs[3], LatencyStat::Mean).unwrap();
        let max = grouped(2.0 / (mean_ns / 1e9));
        assert!(max.starts_with("4"), "{max}");
        assert!(
            text.contains("At qd 1 x 2 threads the job keeps at most 2 operations in flight")
                && text.contains(&format!("completes about {max} IOPS at most")),
            "{text}"
        );
        assert!(
            text.contains("raise threads, or qd with engine io_uring"),
            "{text}"
        );
        assert!(!text.contains("more qd or threads may"), "{text}");
    }

    /// A step that fell short while its threads were mostly idle (400 done
    /// where 2 in flight at 800 µs allow about 2,500, and 12 % of a core
    /// each) was held neither by its queue nor by kura's CPU: the note says
    /// it cannot tell, and neither blames the CPU nor says to raise the queue.
    /// With the threads busy on the CPU, the note blames the client's CPU.
    #[test]
    fn a_short_step_blames_the_cpu_only_when_the_cpu_was_busy() {
        let mut steps = vec![
            step(0, Phase::Probe, None, 2000, 5_000_000),
            step(1, Phase::Climb, Some(200), 200, 300_000),
            step(2, Phase::Climb, Some(300), 300, 400_000),
            step(3, Phase::Climb, Some(450), 400, 800_000),
        ];
        for s in &mut steps {
            s.job.engine = EngineKind::Sync;
            s.job.threads = 2;
        }
        let r = run("", steps.clone());
        let c = &curves(&r)[0];
        assert_eq!(c.points[3].verdict, Verdict::Short);
        assert_eq!(c.limited_by(), Some(Limiter::Unknown));
        assert!(c.lower_bound());
        let text = notes(&r, c).join(" ");
        assert!(
            text.contains("kura cannot tell what held the load")
                && text.contains("12 % of a core per thread"),
            "{text}"
        );
        assert!(
            !text.contains("CPU, not the target") && !text.contains("To offer more, raise"),
            "{text}"
        );

        // 1.8 s of CPU in the step's 1 s on 2 threads: 90 % of a core each.
        steps[3].cpu_user_ns = 1_500_000_000;
        steps[3].cpu_system_ns = 300_000_000;
        let r = run("", steps);
        let c = &curves(&r)[0];
        assert_eq!(c.limited_by(), Some(Limiter::ClientCpu));
        let text = notes(&r, c).join(" ");
        assert!(
            text.contains("90 % of a core each") && text.contains("the client's CPU, not the target"),
            "{text}"
        );

        // Unthrottled and under the limit, 900 where one I/O in flight at
        // 300 µs allows about 3,333, the CPU idle: not blamed either.
        let probe = run("", vec![step(0, Phase::Probe, None, 900, 300_000)]);
        let c = &curves(&probe)[0];
        assert!(c.lower_bound());
        let text = notes(&probe, c).join(" ");
        assert!(
            text.contains("kura cannot tell") && !text.contains("CPU, not the target"),
            "{text}"
        );
    }

    /// A disk that delivers 2,100 IOPS at most, searched at qd 16 under
    /// 6 ms: 16 queued operations take 16 / 2,100 s = 7.6 ms, but
    /// a throttle lets a burst through as each step starts, so a step
    /// offered more is short with a mean under the limit, its queue full
    /// and latency far over the unloaded one only once the burst is spent. The target was the limit: the score is exact,
    /// the rate it delivered (not the one offered), and nothing blames the
    /// CPU; a device busy all along says so, one mostly idle says the
    /// operations waited above it (a throttle).
    #[test]
    fn a_disk_limited_search_is_exact_and_scores_the_rate_delivered() {
        let mut steps = vec![
            step(0, Phase::Probe, None, 2100, 7_600_000),
            step(1, Phase::Climb, Some(1000), 1000, 70_000),
            step(2, Phase::Climb, Some(1500), 1500, 80_000),
            // Carried within the grid's and the in-flight slack: held.
            step(3, Phase::Refine, Some(2150), 2100, 2_000_000),
            step(4, Phase::Climb, Some(2250), 2100, 5_000_000),
        ];
        for s in &mut steps {
            s.job.qd = 16;
            s.job.latency_limit_ns = Some(6_000_000);
        }
        // The short step's last second: 2,100 done at 7.6 ms, 16 in flight.
        steps[4].series = vec![crate::metrics::IntervalPoint {
            duration_ns: 1_000_000_000,
            iops: 2100.0,
            lat_mean_ns: 7_600_000.0,
            ..Default::default()
        }];
        steps[4].device_io = Some(busy(0.02));
        let r = run("", steps.clone());
        let c = &curves(&r)[0];
        assert_eq!(c.points[3].verdict, Verdict::Held);
        assert_eq!(c.points[4].verdict, Verdict::Short);
        assert_eq!(c.limited_by(), Some(Limiter::Target));
        assert!(!c.lower_bound());
        assert_eq!(
            c.score_iops(),
            Some(2100.0),
            "the rate delivered, not the 2,150 offered"
        );
        assert_eq!(
            sentence(c),
            "highest rate holding mean latency under 6 ms: 2,100 IOPS delivered (2,150 offered), the most the target delivered: more load only queued at it"
        );
        let text = notes(&r, c).join(" ");
        assert!(
            text.contains("16.0 of 16 operations were in flight")
                && text.contains("busy only 2 %")
                && text.contains("not a lower bound"),
            "{text}"
        );
        assert!(!text.contains("client's CPU"), "{text}");
        steps[4].device_io = Some(busy(0.97));
        let r = run("", steps);
        let text = notes(&r, &curves(&r)[0]).join(" ");
        assert!(text.contains("the device was busy 97 %"), "{text}");
    }

    /// Short is judged on the operations against the rate x the measured
    /// time: one operation of slack for the pacing grid, and with Poisson
    /// arrivals the count's chance too.
    #[test]
    fn short_allows_for_the_grid_and_for_chance() {
        let at = |ops: u64, poisson: bool| {
            let mut s = step(1, Phase::Climb, Some(44), ops, 500_000);
            s.elapsed_ns = 3_000_000_000;
            s.job.rate_poisson = poisson;
            verdict(&s).unwrap()
        };
        // 132 offered, 95 % is 125.4.
        assert_eq!(at(131, false), Verdict::Held);
        assert_eq!(
            at(125, false),
            Verdict::Held,
            "one short of 95 %: the grid's slack"
        );
        assert_eq!(at(123, false), Verdict::Short);
        // Poisson arrivals: 2.326 standard deviations of 125.4 is 26 more.
        assert_eq!(at(110, true), Verdict::Held);
        assert_eq!(at(95, true), Verdict::Short);
    }

    #[test]
    fn statistics_cover_every_operation_of_a_step() {
        let mut r = job("mixed", Rw::RandRw, 4096, 50, Some(300), Some(100));
        r.read = Some(direction(300, 4096, &[1_000]));
        r.write = Some(direction(100, 4096, &[9_000]));
        // Weighted by operations: (300 x 1 µs + 100 x 9 µs) / 400, within
        // the histogram's 0.1 %.
        let near = |v: Option<f64>, want: f64| v.is_some_and(|v| (v - want).abs() <= want * 1e-3);
        assert!(near(stat_ns(&r, LatencyStat::Mean), 3_000.0));
        assert!(near(stat_ns(&r, LatencyStat::Max), 9_000.0));
        // A quarter of the operations are the slow writes: p90 is among them.
        let p90 = stat_ns(&r, LatencyStat::P90).unwrap();
        assert!((8_990.0..=9_010.0).contains(&p90), "{p90}");
        let p95 = stat_ns(&r, LatencyStat::P95).unwrap();
        assert!(p95 > 8_000.0);
        r.read = Some(direction(0, 4096, &[1]));
        r.write = Some(direction(0, 4096, &[1]));
        assert_eq!(stat_ns(&r, LatencyStat::Mean), None, "nothing completed");
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(grouped(12400.4), "12,400");
        assert_eq!(grouped(999.0), "999");
        assert_eq!(grouped(1_234_567.0), "1,234,567");
        assert_eq!(limit_text(6e6), "6 ms");
        assert_eq!(limit_text(1.5e6), "1.5 ms");
        assert_eq!(limit_text(500e3), "500 µs");
    }
}
