//! The terminal page of a latency-bounded search: the load-latency curve as
//! a table (offered load, achieved IOPS, the bound's statistic, held or
//! crossed), the result in a sentence, and the step that held at the
//! highest load in full.

use super::escape::term;
use super::format::latency;
use super::run_table::{new_table, render_job};
use crate::jobs::latency::LatencyLoad;
use crate::metrics::RunResult;
use crate::metrics::latency_bound::{Curve, curves};

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
    out.push_str(&t.to_string());
    out.push('\n');
    // Wrapped to 80 columns: the sentence names the limit, the load and the result.
    out.push_str(&super::width::wrap("", &sentence(c), 2));
    if c.points.iter().any(|p| p.verdict.name() == "short") {
        out.push_str(&format!(
            "{}\n",
            crate::t!(
                "search-short-note",
                pct = format!("{:.0}", crate::metrics::latency_bound::SHORT_SHARE * 100.0)
            )
        ));
    }
    if let Some(p) = c.best_point() {
        out.push('\n');
        out.push_str(&format!("{}\n", crate::t!("search-best-step")));
        out.push_str(&render_job(&run.jobs[p.job_index], false));
    }
    out
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
mod tests {
    use super::*;
    use crate::jobs::Rw;
    use crate::jobs::latency::{LatencyStat, LatencyStep, Phase};
    use crate::metrics::JobResult;
    use crate::metrics::latency_bound::{Verdict, stat_ns, verdict};
    use crate::report::fixtures::{direction, job, run};

    /// A step of a 1 ms mean-latency rate search: `offered` IOPS (None:
    /// the probe), `ops` done in its second, each read taking `lat_ns`.
    fn step(index: u32, phase: Phase, offered: Option<u64>, ops: u64, lat_ns: u64) -> JobResult {
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
        two.jobs.push(step(0, Phase::Probe, None, 900, 300_000));
        let cs = curves(&two);
        assert_eq!(cs.len(), 2);
        let probe = sentence(&cs[1]);
        assert!(
            probe.starts_with("mean latency stayed under 1 ms even unthrottled: 900 IOPS (")
                && probe.ends_with(" µs mean); the limit was never crossed"),
            "{probe}"
        );
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
