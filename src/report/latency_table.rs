//! The terminal page of a latency-bounded search: the load-latency curve as
//! a table (offered load, achieved IOPS, the bound's statistic, held or
//! crossed), the result in a sentence, and the step that held at the
//! highest load in full.

use super::escape::term;
use super::format::latency;
use super::run_table::{new_table, render_job};
use crate::jobs::latency::{LatencyLoad, LatencyStat};
use crate::jobs::{EngineKind, Workload};
use crate::metrics::latency_bound::{
    Curve, SHORT_SHARE, Verdict, achieved_iops, closed_loop_max_iops, curves, in_flight_cap, stat_ns,
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

/// What a reader can do about a search's short steps or its lower bound:
/// how many operations the job keeps in flight, what that caps the rate
/// at, and what to raise so it can offer more.
pub fn notes(run: &RunResult, c: &Curve) -> Vec<String> {
    let mut out = Vec::new();
    // The highest load that fell short says what capped the closed loop.
    let short = c
        .points
        .iter()
        .filter(|p| p.verdict == Verdict::Short)
        .max_by_key(|p| p.load(c.load).unwrap_or(u64::MAX));
    if let Some(p) = short {
        let r = &run.jobs[p.job_index];
        out.push(crate::t!(
            "search-short-note",
            pct = format!("{:.0}", SHORT_SHARE * 100.0)
        ));
        if let Some(max) = closed_loop_max_iops(r) {
            out.push(match held_between_operations(r, max) {
                Some(done) => crate::t!(
                    "search-short-between",
                    shape = shape(r),
                    inflight = in_flight_cap(r),
                    latency = stat_ns(r, LatencyStat::Mean).map(latency).unwrap_or_default(),
                    max = grouped(max),
                    done = grouped(done)
                ),
                None => crate::t!(
                    "search-short-cap",
                    shape = shape(r),
                    inflight = in_flight_cap(r),
                    latency = stat_ns(r, LatencyStat::Mean).map(latency).unwrap_or_default(),
                    max = grouped(max),
                    raise = raise(c, r)
                ),
            });
        }
    } else if c.lower_bound()
        && let Some(p) = c.best_point()
    {
        let r = &run.jobs[p.job_index];
        let between = closed_loop_max_iops(r).and_then(|max| held_between_operations(r, max));
        out.push(match between {
            Some(done) => crate::t!(
                "search-lower-bound-between",
                done = grouped(done),
                max = grouped(closed_loop_max_iops(r).unwrap_or_default())
            ),
            None => crate::t!("search-lower-bound-hint", raise = raise(c, r)),
        });
    }
    out
}

/// Below this share of what its operations in flight allow (Little's law at
/// its mean latency), a closed loop was not held by them: its threads spent
/// the rest of the time between operations, so more threads or a deeper
/// queue would not have offered more.
const IN_FLIGHT_BOUND_SHARE: f64 = 0.7;

/// What a step completed, where that was well under `max`, the most its
/// operations in flight allow: then the time between operations (the
/// client's CPU: kura's threads waiting for a core, or work outside the
/// timed operation), not the queue, capped it.
fn held_between_operations(r: &JobResult, max: f64) -> Option<f64> {
    let done = achieved_iops(r);
    (done > 0.0 && done < max * IN_FLIGHT_BOUND_SHARE).then_some(done)
}

/// `qd 1 x 8 threads`, or `8 threads` where a thread does one operation at a time.
fn shape(r: &JobResult) -> String {
    match r.job.workload {
        Workload::Block => crate::t!("search-shape-block", qd = r.job.qd, threads = r.job.threads),
        _ => crate::t!("search-threads", threads = r.job.threads),
    }
}

/// What to raise so the search can offer more: the ceiling of a queue
/// depth or thread search; for a rate search, what bounds the operations
/// in flight (`in_flight_cap`): qd and threads, threads alone on the sync
/// engine (one I/O in flight per thread) and for kinds other than block I/O.
fn raise(c: &Curve, r: &JobResult) -> String {
    match (c.load, &r.job.workload, r.job.engine) {
        (LatencyLoad::Qd, ..) => crate::t!("search-raise-ceiling-qd"),
        (LatencyLoad::Threads, ..) => crate::t!("search-raise-ceiling-threads"),
        (LatencyLoad::Rate, Workload::Block, EngineKind::Sync) => crate::t!("search-raise-sync"),
        (LatencyLoad::Rate, Workload::Block, _) => crate::t!("search-raise-qd-threads"),
        (LatencyLoad::Rate, ..) => crate::t!("search-raise-threads"),
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
    use crate::jobs::Rw;
    use crate::jobs::latency::{LatencyStat, LatencyStep, Phase};
    use crate::metrics::JobResult;
    use crate::metrics::latency_bound::{Verdict, stat_ns, verdict};
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
        // One I/O in flight at 300 µs allows about 3,333 IOPS: 3,000 is
        // the queue's limit, so the hint is to raise it.
        two.jobs.push(step(0, Phase::Probe, None, 3000, 300_000));
        let cs = curves(&two);
        assert_eq!(cs.len(), 2);
        let probe = sentence(&cs[1]);
        assert!(
            probe.starts_with("mean latency stayed under 1 ms even unthrottled: >= 3,000 IOPS (")
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
            // Two threads of one I/O each at 4.5 ms complete about 444 a
            // second at most: 450 offered, 400 done, the threads were busy.
            step(3, Phase::Climb, Some(450), 400, 4_500_000),
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
    /// where 2 in flight at 800 µs allow about 2,500) was not held by its
    /// queue: the note says so, and does not tell the reader to raise it.
    #[test]
    fn a_short_step_with_idle_threads_blames_the_time_between_operations() {
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
        let r = run("", steps);
        let c = &curves(&r)[0];
        assert_eq!(c.points[3].verdict, Verdict::Short);
        let text = notes(&r, c).join(" ");
        assert!(
            text.contains("yet it completed 400") && text.contains("will not offer more"),
            "{text}"
        );
        assert!(!text.contains("To offer more, raise"), "{text}");

        // Unthrottled and under the limit, but 900 where one I/O in flight
        // at 300 µs allows about 3,333: a lower bound the client's CPU set.
        let probe = run("", vec![step(0, Phase::Probe, None, 900, 300_000)]);
        let c = &curves(&probe)[0];
        assert!(c.lower_bound());
        let text = notes(&probe, c).join(" ");
        assert!(
            text.contains("the job completed 900") && text.contains("the client's CPU, not the target"),
            "{text}"
        );
        assert!(!text.contains("raise qd or threads"), "{text}");
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
