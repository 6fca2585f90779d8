//! From runs to matched rows. A measurement is one job's one direction;
//! measurements become one row when they share a suite test and direction,
//! else identical workload parameters. A row some targets lack is joined
//! with a row of the same shape (pattern, block size, mix, direction) that
//! only the other targets have, and then marked not comparable, naming the
//! parameter that differs: that is more useful than two half-empty rows.

use super::{
    By, Cell, CompareOptions, Direction, Figure, Metric, Noise, Row, Target, TargetSummary, Workload,
    WorkloadClass,
};
use crate::jobs::options::{Opt, Show};
use crate::jobs::{Job, Value};
use crate::metrics::repeats::{RankTest, SIGNIFICANCE, rank_test};
use crate::metrics::{DirectionResult, JobResult, TargetKind};
use crate::report::format::bytes_human;

/// Sequential rows with every block at least this large are "large-block".
pub const LARGE_BLOCK_BYTES: u64 = 128 << 10;
/// Random rows with every block at most this large are "small-block".
pub const SMALL_BLOCK_BYTES: u64 = 16 << 10;
/// I/Os in flight (queue depth × threads) from which a queue counts as deep.
pub const DEEP_QUEUE: u32 = 8;

/// The parameters two measurements must share to be set side by side: the
/// options the table marks as identity (src/jobs/options.rs), as the job ran.
#[derive(Debug, Clone)]
struct Params {
    /// The job as compared: its read share as issued, the size a file target had.
    job: Job,
    /// The null engine does no I/O: its numbers are kura's own cost, not a device's.
    null_engine: bool,
}

impl PartialEq for Params {
    fn eq(&self, o: &Params) -> bool {
        self.null_engine == o.null_engine
            && self.job.workload.kind_name() == o.job.workload.kind_name()
            && self
                .job
                .identity()
                .map(|(_, v)| v)
                .eq(o.job.identity().map(|(_, v)| v))
    }
}

impl Params {
    fn of(j: &JobResult) -> Params {
        let mut job = j.job.clone();
        job.read_pct = job.effective_read_pct();
        // A whole block device has no chosen size: its span is the thing compared.
        job.size_bytes = job.size_bytes.or(match j.target.kind {
            TargetKind::File if j.target.size_bytes > 0 => Some(j.target.size_bytes),
            _ => None,
        });
        Params {
            null_engine: job.engine == crate::jobs::EngineKind::Null,
            job,
        }
    }

    fn random(&self) -> bool {
        self.job.rw.is_random()
    }

    /// Reads and writes both present.
    fn mixed(&self) -> bool {
        self.job.read_pct > 0 && self.job.read_pct < 100
    }

    /// What a row is about, before the parameters that must also agree: a
    /// file set's reads are never a row of block reads (tiobench's Random
    /// Read carried a file set's value), whatever their rw and bs.
    fn same_shape(&self, o: &Params) -> bool {
        self.job.workload.kind_name() == o.job.workload.kind_name()
            && self.random() == o.random()
            && self.job.bs == o.job.bs
            && self.job.read_pct == o.job.read_pct
    }

    fn bs_text(&self) -> String {
        self.job.bs_text()
    }

    fn mix_text(&self) -> String {
        match self.job.read_pct {
            100 => crate::t!("section-read"),
            0 => crate::t!("section-write"),
            p => crate::t!("section-read-pct", pct = p),
        }
    }

    fn pattern(&self) -> String {
        crate::t!(if self.random() {
            "section-random"
        } else {
            "section-sequential"
        })
    }

    /// `qd1 x1 buffered`, as in the summary, which stays English (a job summary).
    fn queue_summary(&self) -> String {
        let mut s = format!("qd{} x{}", self.job.qd, self.job.threads);
        if !self.job.direct {
            s.push_str(" buffered");
        }
        s
    }

    /// The same in the reader's language, for a section heading.
    fn queue_text(&self) -> String {
        let mut s = format!("qd{} x{}", self.job.qd, self.job.threads);
        if !self.job.direct {
            s.push_str(&crate::t!("section-buffered"));
        }
        s
    }

    /// `randread 4k qd1 x1`, as `Job::summary` writes it.
    fn summary(&self) -> String {
        // A kind with a row per operation is named by what it ran (a set and its mix).
        if self.job.workload.kind().rows_by_operation() {
            return self.job.summary();
        }
        let mut s = format!(
            "{} {} {}",
            self.job.rw.name(),
            self.bs_text(),
            self.queue_summary()
        );
        if self.job.rw.is_mixed() {
            s.insert_str(
                s.find(" qd").unwrap_or(s.len()),
                &format!(" {}% read", self.job.read_pct),
            );
        }
        s
    }

    fn workload(&self) -> Workload {
        /// The pacing options a row's workload lists (`Workload::pacing`).
        const PACING: [Opt; 2] = [Opt::FsyncEvery, Opt::RateIops];
        Workload {
            rw: self.job.rw.name(),
            bs: self.bs_text(),
            bs_split: self.job.bs.clone(),
            read_pct: self.job.read_pct,
            qd: self.job.qd,
            threads: self.job.threads,
            direct: self.job.direct,
            size_bytes: self.job.size_bytes,
            distribution: self.job.distribution.clone(),
            pacing: PACING
                .iter()
                .map(|o| match (o.def().get)(&self.job) {
                    Some(Value::Count(n)) => (o.def().key, Some(n)),
                    _ => (o.def().key, None),
                })
                .collect(),
        }
    }

    fn class(&self, dir: Direction) -> Option<WorkloadClass> {
        // The classes are shapes of block I/O: a file set's, bonnie's or a
        // database's job keeps the block fields at their defaults (randread
        // 4k qd1), which say nothing of what it did.
        if self.job.workload.kind().scope() != crate::jobs::options::Scope::Block {
            return None;
        }
        if self.mixed() {
            return (dir == Direction::Total).then_some(WorkloadClass::Mixed);
        }
        let inflight = self.job.qd.saturating_mul(self.job.threads);
        let min_bs = self.job.bs.iter().map(|b| b.bytes).min().unwrap_or(0);
        let max_bs = self.job.bs.iter().map(|b| b.bytes).max().unwrap_or(0);
        if !self.random() && min_bs >= LARGE_BLOCK_BYTES {
            Some(WorkloadClass::SequentialLarge)
        } else if self.random() && max_bs <= SMALL_BLOCK_BYTES && inflight == 1 {
            Some(WorkloadClass::RandomSmallQd1)
        } else if self.random() && max_bs <= SMALL_BLOCK_BYTES && inflight >= DEEP_QUEUE {
            Some(WorkloadClass::RandomSmallDeep)
        } else {
            None
        }
    }
}

/// The parameters that differ, named as a reader would say them.
fn differences(base: &Params, other: &Params) -> Vec<String> {
    let mut out = Vec::new();
    for ((def, a), (_, b)) in base.job.identity().zip(other.job.identity()) {
        let Some(ident) = def.identity else { continue };
        if a == b {
            continue;
        }
        let text = |v: &Option<Value>| match (v, ident.show) {
            (None, _) => crate::t!("diff-none"),
            (Some(Value::Count(n)), Show::Percent) => format!("{n} %"),
            (Some(Value::Bytes(n)), Show::Size) => bytes_human(*n),
            (Some(Value::Bool(on)), Show::Words(yes, no)) => {
                crate::i18n::phrase("diffword", if *on { yes } else { no })
            }
            (Some(v), _) => v.to_string(),
        };
        if ident.show == Show::Size && (a.is_none() || b.is_none()) {
            continue;
        }
        let (a, b) = (text(&a), text(&b));
        out.push(if ident.noun.is_empty() {
            crate::t!("diff-both", a = a, b = b)
        } else {
            let noun = crate::i18n::phrase("diff", ident.noun);
            crate::t!("diff-param", noun = noun, a = a, b = b)
        });
    }
    if base.null_engine != other.null_engine {
        let name = |null: bool| crate::t!(if null { "diff-null-engine" } else { "diff-real-io" });
        out.push(crate::t!(
            "diff-both",
            a = name(base.null_engine),
            b = name(other.null_engine)
        ));
    }
    out
}

/// One job's one direction, from one target.
#[derive(Debug, Clone)]
struct Measurement {
    target: usize,
    test: Option<String>,
    dir: Direction,
    params: Params,
    /// Which of the target's runs (index into `Target::runs`).
    run: usize,
    /// Operations completed: none means the job measured nothing, not zero.
    ops: u64,
    iops: f64,
    bytes_per_sec: f64,
    lat_mean_ns: f64,
    lat_p99_ns: Option<f64>,
    /// When the job started measuring (`JobResult::measure_start_unix_ms`).
    start_ms: u64,
}

impl Measurement {
    fn value(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Mbps => Some(self.bytes_per_sec / 1e6),
            Metric::Iops => Some(self.iops),
            Metric::LatMean => Some(self.lat_mean_ns),
            Metric::LatP99 => self.lat_p99_ns,
        }
    }
}

fn p99(d: &DirectionResult) -> Option<f64> {
    d.lat_ns.percentiles.get("99.000000").map(|v| *v as f64)
}

fn measurements(targets: &[Target]) -> Vec<Measurement> {
    let mut out = Vec::new();
    for (ti, t) in targets.iter().enumerate() {
        for (ri, run) in t.runs.iter().enumerate() {
            // A PTS run by test point, its window's rounds as repetitions of it.
            let jobs: Vec<(Option<String>, &JobResult)> = match run.suite {
                Some(crate::jobs::suites::SuiteKind::Pts) => crate::report::pts_table::window_jobs(run)
                    .into_iter()
                    .map(|(point, j)| (Some(point), j))
                    .collect(),
                _ => run.jobs.iter().map(|j| (j.test.clone(), j)).collect(),
            };
            // A latency search's steps are compared by its score (capacity.rs).
            let vdbench = run.suite == Some(crate::jobs::suites::SuiteKind::Vdbench);
            for (test, j) in jobs.into_iter().filter(|(_, j)| j.job.latency_step.is_none()) {
                let params = Params::of(j);
                let one = |dir, d: &DirectionResult| Measurement {
                    target: ti,
                    test: test.clone(),
                    dir,
                    params: params.clone(),
                    run: ri,
                    ops: d.ops,
                    iops: d.iops,
                    bytes_per_sec: d.bytes_per_sec,
                    lat_mean_ns: d.lat_ns.mean,
                    lat_p99_ns: p99(d),
                    start_ms: j.measure_start_unix_ms,
                };
                // A run of a vdbench parameter file is the figure its
                // summary printed, vdbench's average line (the first
                // interval left out as warm-up), not its whole time.
                let avg = vdbench
                    .then(|| crate::report::vdbench_summary::average(&[j]))
                    .flatten();
                let of_avg = |m: &mut Measurement, iops: f64, lat: Option<f64>| {
                    if let Some(a) = &avg {
                        let all = a.read_iops + a.write_iops;
                        m.bytes_per_sec = if all > 0.0 {
                            a.bytes_per_sec * iops / all
                        } else {
                            0.0
                        };
                        m.iops = iops;
                        m.lat_mean_ns = lat.unwrap_or(m.lat_mean_ns);
                    }
                };
                if let Some(r) = &j.read {
                    let mut m = one(Direction::Read, r);
                    if let Some(a) = &avg {
                        of_avg(&mut m, a.read_iops, a.read_lat_mean_ns);
                    }
                    out.push(m);
                }
                if let Some(w) = &j.write {
                    let mut m = one(Direction::Write, w);
                    if let Some(a) = &avg {
                        of_avg(&mut m, a.write_iops, a.write_lat_mean_ns);
                    }
                    out.push(m);
                }
                for (kind, d) in &j.operations {
                    out.push(one(Direction::Op(*kind), d));
                }
                if let (Some(r), Some(w)) = (&j.read, &j.write)
                    && r.ops + w.ops > 0
                {
                    // The mixed job as a whole: what a mixed workload's user gets.
                    let ops = (r.ops + w.ops) as f64;
                    let mut m = Measurement {
                        target: ti,
                        test: test.clone(),
                        dir: Direction::Total,
                        params: params.clone(),
                        run: ri,
                        ops: r.ops + w.ops,
                        iops: r.iops + w.iops,
                        bytes_per_sec: r.bytes_per_sec + w.bytes_per_sec,
                        lat_mean_ns: (r.lat_ns.mean * r.ops as f64 + w.lat_ns.mean * w.ops as f64) / ops,
                        lat_p99_ns: None,
                        start_ms: j.measure_start_unix_ms,
                    };
                    if let Some(a) = &avg {
                        of_avg(&mut m, a.read_iops + a.write_iops, a.lat_mean_ns);
                    }
                    out.push(m);
                }
            }
        }
    }
    out
}

/// Measurements grouped into one row, before values are computed.
struct Group {
    test: Option<String>,
    dir: Direction,
    members: Vec<Measurement>,
    /// The mixed job of a test that also has read-only or write-only jobs
    /// (a mark Mix profile): its rows are named `mix`.
    mixed_of_test: bool,
}

impl Group {
    fn targets(&self) -> Vec<usize> {
        let mut t: Vec<usize> = self.members.iter().map(|m| m.target).collect();
        t.sort_unstable();
        t.dedup();
        t
    }
    fn disjoint(&self, other: &Group) -> bool {
        let mine = self.targets();
        other.targets().iter().all(|t| !mine.contains(t))
    }
    fn params(&self) -> &Params {
        &self.members[0].params
    }
}

fn group(all: Vec<Measurement>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for m in all {
        // A test's repetitions are averaged into one row, but a Mix
        // profile's test also holds a mixed job beside its read and write
        // jobs: that job's reads are another row than the read job's.
        let found = groups.iter_mut().find(|g| {
            g.dir == m.dir
                && match (&g.test, &m.test) {
                    (Some(a), Some(b)) => a == b && g.params().mixed() == m.params.mixed(),
                    (None, None) => *g.params() == m.params,
                    _ => false,
                }
        });
        match found {
            Some(g) => g.members.push(m),
            None => groups.push(Group {
                test: m.test.clone(),
                dir: m.dir,
                members: vec![m],
                mixed_of_test: false,
            }),
        }
    }
    // Targets without test names (imports, plain runs), or naming the same
    // workload differently, join a test's row by identical parameters: always right.
    join(&mut groups, false, |a, b| {
        ((a.test.is_some() || b.test.is_some()) && a.params() == b.params()).then_some(0)
    });
    // Then rows of one shape that no target has twice become one row, marked
    // not comparable: only two rows that are each other's unique closest.
    join(&mut groups, true, |a, b| {
        ((a.test.is_none() || b.test.is_none()) && a.params().same_shape(b.params()))
            .then(|| differences(a.params(), b.params()).len())
    });
    groups
}

/// Merges pairs of groups that share a direction, have no target in common
/// and `fit` (lower score = closer), the later into the earlier so rows
/// keep run order. `strict`: a pair merges only when no other pair touching
/// either group scores as low, so a row is never given to its second-best match.
fn join(groups: &mut Vec<Group>, strict: bool, fits: impl Fn(&Group, &Group) -> Option<usize>) {
    loop {
        let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
        for a in 0..groups.len() {
            for b in a + 1..groups.len() {
                if groups[a].dir != groups[b].dir || !groups[a].disjoint(&groups[b]) {
                    continue;
                }
                let score = [fits(&groups[a], &groups[b]), fits(&groups[b], &groups[a])]
                    .into_iter()
                    .flatten()
                    .min();
                if let Some(score) = score {
                    pairs.push((score, a, b));
                }
            }
        }
        pairs.sort_unstable();
        let pick = pairs.iter().find(|(s, a, b)| {
            !strict
                || pairs
                    .iter()
                    .filter(|(s2, a2, b2)| (a2 == a || b2 == b || a2 == b || b2 == a) && s2 <= s)
                    .count()
                    == 1
        });
        let Some(&(_, a, b)) = pick else { return };
        let moved = groups.remove(b);
        if groups[a].test.is_none() {
            groups[a].test = moved.test.clone();
        }
        groups[a].members.extend(moved.members);
    }
}

pub(super) fn build_rows(
    targets: &[Target],
    summaries: &[TargetSummary],
    opts: &CompareOptions,
    figure: Figure,
) -> Vec<Row> {
    let mut groups = group(measurements(targets));
    let pure: Vec<Option<String>> = groups
        .iter()
        .filter(|g| g.test.is_some() && !g.params().mixed())
        .map(|g| g.test.clone())
        .collect();
    for g in &mut groups {
        g.mixed_of_test = g.params().mixed() && pure.contains(&g.test);
    }
    let mut rows: Vec<Row> = groups
        .into_iter()
        .map(|g| row(g, targets, summaries, opts, figure))
        .collect();
    order(&mut rows, opts.by);
    rows
}

fn row(
    g: Group,
    targets: &[Target],
    summaries: &[TargetSummary],
    opts: &CompareOptions,
    figure: Figure,
) -> Row {
    let base = opts.baseline;
    // The baseline's parameters are the reference; without it, the first target's.
    let reference = g
        .members
        .iter()
        .find(|m| m.target == base)
        .unwrap_or(&g.members[0])
        .params
        .clone();
    // An operation that moves no bytes (bonnie's or a file set's creates,
    // stats, deletes) has no MB/s: it is compared by its own figure,
    // operations per second, and its label says so.
    let moves_no_bytes =
        matches!(g.dir, Direction::Op(_)) && g.members.iter().all(|m| m.bytes_per_sec == 0.0);
    let metric = match opts.metric {
        Metric::Mbps if moves_no_bytes => Metric::Iops,
        m => m,
    };
    let mut cells: Vec<Option<Cell>> = (0..targets.len())
        .map(|t| cell(&g, t, targets[t].runs.len(), &reference, metric, figure))
        .collect();
    let base_cell = cells[base].clone();
    let mut reasons = Vec::new();
    for (t, c) in cells.iter_mut().enumerate() {
        let Some(c) = c else { continue };
        if let Some(why) = &c.not_comparable {
            reasons.push(crate::t!(
                "diff-target",
                name = summaries[t].name.as_str(),
                why = why.as_str()
            ));
        }
        compare_to_base(c, base_cell.as_ref(), t == base, metric);
        prices(c, &summaries[t], &summaries[base], metric);
    }
    let test = g.test.clone();
    let key = match &test {
        Some(t) if g.mixed_of_test => format!("test:{t}:mix:{}", g.dir.name()),
        Some(t) => format!("test:{t}:{}", g.dir.name()),
        None => format!("{}:{}", reference.summary(), g.dir.name()),
    };
    // The mixed job of a test that also has pure ones: "SEQ1M Q8T1 mix read".
    let shown = match &test {
        Some(t) if g.mixed_of_test => Some(format!(
            "{} {}",
            crate::i18n::heading(t),
            crate::i18n::heading("mix")
        )),
        _ => test.clone(),
    };
    let (section, mut label) = naming(&shown, g.dir, &reference, opts.by);
    if metric != opts.metric {
        label = crate::t!("compare-row-in-ops", label = label);
    }
    Row {
        key,
        label,
        section,
        test,
        direction: g.dir,
        workload: reference.workload(),
        class: reference.class(g.dir),
        unit: metric.unit(),
        cells,
        not_comparable: (!reasons.is_empty()).then(|| reasons.join(&crate::t!("note-separator"))),
    }
}

/// One figure of several repetitions: their mean, or the best of them.
fn figure_of(values: impl Iterator<Item = f64>, figure: Figure, higher_is_better: bool) -> f64 {
    let values: Vec<f64> = values.collect();
    match figure {
        Figure::Mean => values.iter().sum::<f64>() / values.len() as f64,
        Figure::Best if higher_is_better => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Figure::Best => values.iter().copied().fold(f64::INFINITY, f64::min),
    }
}

fn cell(
    g: &Group,
    target: usize,
    runs: usize,
    reference: &Params,
    metric: Metric,
    figure: Figure,
) -> Option<Cell> {
    let all: Vec<&Measurement> = g.members.iter().filter(|m| m.target == target).collect();
    // A repetition that completed nothing (a stall, 0 ops after the ramp)
    // measured nothing: averaging its 0 in would invent a slowdown.
    let done: Vec<&Measurement> = all.iter().copied().filter(|m| m.ops > 0).collect();
    let nothing_completed = done.is_empty();
    let mine = if nothing_completed { all } else { done };
    let values: Vec<f64> = mine.iter().filter_map(|m| m.value(metric)).collect();
    if values.is_empty() {
        return None;
    }
    let of =
        |f: &dyn Fn(&Measurement) -> f64, higher: bool| figure_of(mine.iter().map(|m| f(m)), figure, higher);
    let mut diffs: Vec<String> = Vec::new();
    for m in &mine {
        for d in differences(reference, &m.params) {
            if !diffs.contains(&d) {
                diffs.push(d);
            }
        }
    }
    let p99s: Vec<f64> = mine.iter().filter_map(|m| m.lat_p99_ns).collect();
    // Each run on its own (seed 4's "IOPS run 1, run 2, run 3"): its jobs
    // of this row by the comparison's figure, as the cell takes them all.
    let per_run = (0..runs)
        .map(|r| {
            let of_run: Vec<f64> = mine
                .iter()
                .filter(|m| m.run == r)
                .filter_map(|m| m.value(metric))
                .collect();
            (!nothing_completed && !of_run.is_empty())
                .then(|| figure_of(of_run.into_iter(), figure, metric.is_throughput()))
        })
        .collect();
    let mut c = Cell {
        value: figure_of(values.iter().copied(), figure, metric.is_throughput()),
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        repetitions: values.len(),
        iops: of(&|m| m.iops, true),
        bytes_per_sec: of(&|m| m.bytes_per_sec, true),
        lat_mean_ns: of(&|m| m.lat_mean_ns, false),
        lat_p99_ns: (p99s.len() == mine.len()).then(|| figure_of(p99s.into_iter(), figure, false)),
        ratio: None,
        noise: None,
        p_value: None,
        cliffs_delta: None,
        not_comparable: (!diffs.is_empty()).then(|| diffs.join(&crate::t!("list-separator"))),
        iops_per_price: None,
        mbps_per_price: None,
        value_per_price_ratio: None,
        size_bytes: mine[0].params.job.size_bytes,
        per_run,
        passes: values,
        pass_starts: mine
            .iter()
            .filter(|m| m.value(metric).is_some())
            .map(|m| m.start_ms)
            .collect(),
        paired: false,
    };
    if nothing_completed {
        // Not a measurement of 0 MB/s: no ratio, and no repetition counted.
        c.not_comparable = Some(crate::t!("compare-nothing-completed"));
        c.repetitions = 0;
    }
    Some(c)
}

fn compare_to_base(c: &mut Cell, base: Option<&Cell>, is_base: bool, metric: Metric) {
    if is_base {
        c.ratio = (c.repetitions > 0).then_some(1.0);
        return;
    }
    let Some(b) = base else { return };
    if c.not_comparable.is_some() || b.value <= 0.0 {
        return;
    }
    c.ratio = Some(c.value / b.value);
    let (noise, test) = noise(&c.passes, &b.passes);
    c.noise = Some(noise);
    c.p_value = test.map(|t| t.p_value);
    // Oriented so that above 0 means this target is better.
    c.cliffs_delta = test.map(|t| {
        if metric.is_throughput() {
            t.cliffs_delta
        } else {
            -t.cliffs_delta
        }
    });
}

/// The verdict on a target's repetitions against the baseline's: the
/// Mann-Whitney U test at `SIGNIFICANCE`, and whether every repetition of
/// one side beats every one of the other (Cliff's delta ±1), which with few
/// repetitions is all the test could ever show and is never noise.
pub(super) fn noise(target: &[f64], base: &[f64]) -> (Noise, Option<RankTest>) {
    if target.len() < 2 || base.len() < 2 {
        return (Noise::SingleRun, None);
    }
    let Some(test) = rank_test(target, base) else {
        return (Noise::SingleRun, None);
    };
    let verdict = if test.p_value < SIGNIFICANCE {
        Noise::Differs
    } else if test.cliffs_delta.abs() == 1.0 {
        Noise::EveryPass
    } else {
        Noise::WithinNoise
    };
    (verdict, Some(test))
}

fn prices(c: &mut Cell, t: &TargetSummary, base: &TargetSummary, metric: Metric) {
    let Some(month) = t.price_per_month.filter(|m| *m > 0.0) else {
        return;
    };
    c.iops_per_price = Some(c.iops / month);
    c.mbps_per_price = Some(c.bytes_per_sec / 1e6 / month);
    if let (Some(ratio), Some(price_ratio)) = (c.ratio, t.price_ratio)
        && ratio > 0.0
        && base.price_per_month.is_some()
    {
        let oriented = if metric.is_throughput() {
            ratio
        } else {
            1.0 / ratio
        };
        c.value_per_price_ratio = Some(oriented / price_ratio);
    }
}

/// The section heading and first-column label of a row under `by`.
fn naming(test: &Option<String>, dir: Direction, p: &Params, by: By) -> (String, String) {
    // A test runs both directions and a mixed job has three rows: say which.
    let with_dir = |s: String| {
        if test.is_some() || p.mixed() || p.job.workload.kind().rows_by_operation() {
            format!("{s} {}", crate::i18n::heading(dir.name()))
        } else {
            s
        }
    };
    match by {
        By::Test => (
            String::new(),
            // A suite's test name, in the reader's language where the catalogue has it.
            with_dir(
                test.as_deref()
                    .map(crate::i18n::heading)
                    .unwrap_or_else(|| p.summary()),
            ),
        ),
        By::Bs => (
            [p.pattern(), p.mix_text(), p.queue_text()].join(&crate::t!("list-separator")),
            with_dir(p.bs_text()),
        ),
        By::Mix => (
            [format!("{} {}", p.pattern(), p.bs_text()), p.queue_text()].join(&crate::t!("list-separator")),
            with_dir(p.mix_text()),
        ),
    }
}

/// Test order is run order; block sizes ascend; mixes go from all reads to all writes.
fn order(rows: &mut [Row], by: By) {
    let sections: Vec<String> = rows.iter().fold(Vec::new(), |mut acc, r| {
        if !acc.contains(&r.section) {
            acc.push(r.section.clone());
        }
        acc
    });
    let section_index = |r: &Row| sections.iter().position(|s| *s == r.section).unwrap_or(0);
    let first_bs = |r: &Row| r.workload.bs_split.first().map(|b| b.bytes).unwrap_or(0);
    match by {
        By::Test => {}
        By::Bs => rows.sort_by_key(|r| (section_index(r), first_bs(r), r.direction)),
        By::Mix => rows.sort_by_key(|r| (section_index(r), 100 - r.workload.read_pct, r.direction)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{BlockSize, Rw};

    /// Two PTS runs are compared by test point over each one's measurement
    /// window: a run steady at round 6 and one at round 5 give one row per
    /// point, of 5 rounds each; a round before the window, the purge and
    /// the preconditioning are not in it.
    #[test]
    fn pts_runs_compare_by_test_point_over_their_windows() {
        use crate::metrics::Warning;
        use crate::metrics::steady::{self, Rounds, Tracked};
        use crate::report::fixtures::{job, run};
        let pts = |id: i64, rounds: u32, ops: u64| {
            let mut jobs = vec![job("LAT purge blkdiscard", Rw::Trim, 1 << 24, 0, None, None)];
            jobs.push(job("LAT WIPC", Rw::Write, 128 << 10, 0, None, Some(1)));
            let mut values = Vec::new();
            for n in 1..=rounds {
                // Round 1 is far off: only a window that leaves it out is steady.
                let w = if n == 1 { ops * 10 } else { ops };
                jobs.push(job(
                    &format!("LAT bs=4k mix=100/0 round {n}"),
                    Rw::RandRead,
                    4096,
                    100,
                    Some(7),
                    None,
                ));
                jobs.push(job(
                    &format!("LAT bs=4k mix=0/100 round {n}"),
                    Rw::RandWrite,
                    4096,
                    0,
                    None,
                    Some(w),
                ));
                values.push(w as f64);
            }
            let mut r = run("pts", jobs);
            r.id = Some(id);
            let window = steady::window(&values);
            assert!(window.as_ref().is_some_and(|w| w.steady()), "{values:?}");
            r.warnings = vec![Warning::Rounds {
                job: "LAT bs=4k mix=0/100".into(),
                rounds: Rounds {
                    tracked: Tracked::Iops,
                    values,
                    window,
                    steady: true,
                },
            }];
            r
        };
        let c =
            crate::report::compare::build(&[pts(1, 6, 1000), pts(2, 7, 2000)], &Default::default()).unwrap();
        let keys: Vec<&str> = c.rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(
            keys,
            ["test:LAT bs=4k mix=100/0:read", "test:LAT bs=4k mix=0/100:write"]
        );
        let w = &c.rows[1].cells;
        let (a, b) = (w[0].as_ref().unwrap(), w[1].as_ref().unwrap());
        assert_eq!((a.repetitions, b.repetitions), (5, 5));
        assert_eq!((a.iops, b.iops), (1000.0, 2000.0));
        assert_eq!(b.ratio, Some(2.0));
    }

    /// A mark Mix profile's test holds a read, a write and a 70/30 job: the
    /// mixed job's reads are a row of their own, never averaged into the
    /// read job's row (which made both "not comparable" and their numbers wrong).
    #[test]
    fn a_mix_profiles_mixed_job_is_its_own_row() {
        use crate::report::fixtures::{job, run};
        let mark = |read_ops: u64| {
            let mut r = run(
                "mark:default-mix",
                vec![
                    job("SEQ1M Q8T1", Rw::Read, 1 << 20, 100, Some(read_ops), None),
                    job("SEQ1M Q8T1", Rw::Write, 1 << 20, 0, None, Some(500)),
                    job("SEQ1M Q8T1", Rw::Rw, 1 << 20, 70, Some(70), Some(30)),
                ],
            );
            r.id = Some(read_ops as i64);
            r
        };
        let c = crate::report::compare::build(&[mark(1000), mark(2000)], &Default::default()).unwrap();
        let keys: Vec<&str> = c.rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "test:SEQ1M Q8T1:read",
                "test:SEQ1M Q8T1:write",
                "test:SEQ1M Q8T1:mix:read",
                "test:SEQ1M Q8T1:mix:write",
                "test:SEQ1M Q8T1:mix:total",
            ]
        );
        for row in &c.rows {
            assert_eq!(row.not_comparable, None, "{}", row.key);
            for cell in row.cells.iter().flatten() {
                assert_eq!(cell.repetitions, 1, "{}", row.key);
            }
        }
        assert_eq!(c.rows[0].label, "SEQ1M Q8T1 read");
        assert_eq!(c.rows[2].label, "SEQ1M Q8T1 mix read");
        let ratio = c.rows[0].cells[1].as_ref().unwrap().ratio.unwrap();
        assert!((ratio - 2.0).abs() < 1e-9, "the read job's reads alone: {ratio}");
        assert_eq!(c.rows[2].cells[1].as_ref().unwrap().ratio, Some(1.0));
    }

    /// A job that completed nothing (0 ops after its ramp) is no measurement
    /// of 0 MB/s: its cell says so, gets no ratio, and the row names it.
    #[test]
    fn a_job_that_completed_nothing_is_never_a_ratio() {
        use crate::report::fixtures::{job, run};
        let mark = |id: i64, label: &str, read_ops: u64| {
            let mut r = run(
                "mark:default",
                vec![job("SEQ1M Q1T1", Rw::Read, 1 << 20, 100, Some(read_ops), None)],
            );
            r.id = Some(id);
            r.label = Some(label.into());
            r
        };
        let runs = [mark(1, "ssd", 1000), mark(2, "stuck", 0)];
        let c = crate::report::compare::build(&runs, &Default::default()).unwrap();
        let stuck = c.rows[0].cells[1].as_ref().unwrap();
        assert_eq!(stuck.ratio, None);
        assert_eq!(stuck.repetitions, 0);
        assert_eq!(stuck.not_comparable.as_deref(), Some("no operation completed"));
        assert!(
            c.rows[0].not_comparable.as_deref().unwrap().contains("stuck"),
            "{:?}",
            c.rows[0].not_comparable
        );
        let table = crate::report::compare::render::table(&c);
        assert!(!table.contains("0.000"), "{table}");
        assert!(table.contains("no operation completed"), "{table}");

        // As the baseline it is no 1.00x either, and the other gets no ratio to it.
        let opts = crate::report::compare::CompareOptions {
            baseline: 1,
            ..Default::default()
        };
        let c = crate::report::compare::build(&runs, &opts).unwrap();
        assert_eq!(c.rows[0].cells[1].as_ref().unwrap().ratio, None);
        assert_eq!(c.rows[0].cells[0].as_ref().unwrap().ratio, None);

        // A repetition that stalled is left out of the mean, not averaged as 0.
        let c = crate::report::compare::build_targets(
            &[
                crate::report::compare::Target {
                    name: "ssd".into(),
                    runs: vec![mark(1, "ssd", 1000)],
                },
                crate::report::compare::Target {
                    name: "hdd".into(),
                    runs: vec![mark(2, "hdd", 500), mark(3, "hdd", 0)],
                },
            ],
            &Default::default(),
        )
        .unwrap();
        let hdd = c.rows[0].cells[1].as_ref().unwrap();
        assert_eq!((hdd.repetitions, hdd.not_comparable.as_deref()), (1, None));
        assert!((hdd.ratio.unwrap() - 0.5).abs() < 1e-9, "{:?}", hdd.ratio);
    }

    #[test]
    fn the_null_engine_is_not_comparable_with_real_io() {
        let real = params(Rw::RandRead, 4096, 1);
        let null = Params {
            null_engine: true,
            ..params(Rw::RandRead, 4096, 1)
        };
        assert_eq!(
            differences(&real, &null),
            vec!["real I/O vs null engine (no I/O)".to_string()]
        );
        assert!(differences(&real, &params(Rw::RandRead, 4096, 1)).is_empty());
    }

    fn params(rw: Rw, bs: u64, qd: u32) -> Params {
        let job = Job {
            rw,
            bs: vec![BlockSize {
                bytes: bs,
                weight: 100,
            }],
            read_pct: match rw {
                Rw::Read | Rw::RandRead => 100,
                Rw::Write | Rw::RandWrite => 0,
                _ => 50,
            },
            qd,
            size_bytes: Some(1 << 30),
            ..Job::default()
        };
        Params {
            job,
            null_engine: false,
        }
    }

    #[test]
    fn classes_follow_the_seed_workloads() {
        use WorkloadClass::*;
        let c = |rw, bs, qd, dir| params(rw, bs, qd).class(dir);
        assert_eq!(c(Rw::Read, 1 << 20, 8, Direction::Read), Some(SequentialLarge));
        assert_eq!(
            c(Rw::Write, 128 << 10, 32, Direction::Write),
            Some(SequentialLarge)
        );
        assert_eq!(c(Rw::RandRead, 4096, 1, Direction::Read), Some(RandomSmallQd1));
        assert_eq!(
            c(Rw::RandWrite, 4096, 32, Direction::Write),
            Some(RandomSmallDeep)
        );
        assert_eq!(c(Rw::RandRead, 4096, 4, Direction::Read), None);
        assert_eq!(c(Rw::RandRead, 64 << 10, 1, Direction::Read), None);
        assert_eq!(c(Rw::RandRw, 8192, 8, Direction::Total), Some(Mixed));
        assert_eq!(c(Rw::RandRw, 8192, 8, Direction::Read), None);
    }

    /// A file set's reads share rw and bs with tiobench's Random Read (a
    /// file set's block fields are defaults), but are another kind of
    /// work: never one row, not even one marked not comparable.
    #[test]
    fn rows_of_another_kind_never_join_by_shape() {
        use crate::report::fixtures::{job, run};
        let mut tio = job("Random Read", Rw::RandRead, 4096, 100, Some(1000), None);
        tio.test = Some("Random Read".into());
        let mut a = run("tiobench", vec![tio]);
        (a.id, a.label) = (Some(1), Some("tio".into()));
        let mut fs = job("fs", Rw::RandRead, 4096, 100, Some(500), None);
        fs.test = None;
        fs.job.workload = crate::jobs::Workload::FileSet(Default::default());
        let mut b = run("", vec![fs]);
        (b.id, b.label) = (Some(2), Some("fs".into()));
        let c = crate::i18n::in_english(|| super::super::build(&[a, b], &Default::default()).unwrap());
        for row in &c.rows {
            let filled = row.cells.iter().filter(|c| c.is_some()).count();
            assert_eq!(filled, 1, "{} holds both kinds", row.key);
        }
    }

    #[test]
    fn only_block_jobs_have_a_class() {
        let mut p = params(Rw::RandRead, 4096, 1);
        assert!(p.class(Direction::Read).is_some());
        p.job.workload = crate::jobs::Workload::FileSet(Default::default());
        assert_eq!(p.class(Direction::Read), None, "a file set is not a 4k qd1 read");
    }

    /// An option the table marks as identity keeps rows apart, with no code here.
    #[test]
    fn every_identity_option_of_the_table_is_a_difference() {
        let base = params(Rw::RandRead, 4096, 1);
        for (def, value) in base.job.identity() {
            let mut other = base.clone();
            let changed = [
                "2",
                "8k",
                "randwrite",
                "false",
                "true",
                "zipf:1.2",
                "2g",
                "sequential",
                "stat=100",
                "dsync",
                "0x55",
                "4k,64k",
            ]
            .iter()
            .any(|text| other.job.set(def.key, text).is_ok() && (def.get)(&other.job) != value);
            assert!(changed, "{}: no test value", def.key);
            assert_ne!(base, other, "{}", def.key);
            assert_eq!(differences(&base, &other).len(), 1, "{}", def.key);
        }
    }

    #[test]
    fn differences_name_the_parameter() {
        let a = params(Rw::RandRead, 4096, 1);
        let mut b = a.clone();
        b.job.qd = 32;
        b.job.direct = false;
        b.job.size_bytes = Some(4 << 30);
        assert_eq!(
            differences(&a, &b),
            vec![
                "queue depth 1 vs 32",
                "direct vs buffered",
                "test size 1.0 GiB vs 4.0 GiB"
            ]
        );
        b.job.size_bytes = None;
        assert_eq!(
            differences(&a, &b).len(),
            2,
            "an unknown size is not a difference"
        );
    }

    #[test]
    fn passes_that_never_overlap_are_never_noise() {
        // The seeds' grid: one side's passes spread 31.7-84.5 MB/s, the
        // other's 1.9-2.06; the old rule called the 0.04x row noise.
        let (verdict, test) = noise(&[1.9, 2.0, 2.06], &[31.7, 60.0, 84.5]);
        assert_eq!(verdict, Noise::EveryPass);
        let test = test.unwrap();
        assert!(
            (test.p_value - 0.1).abs() < 1e-12,
            "3 against 3 cannot go below 0.1"
        );
        assert_eq!(test.cliffs_delta, -1.0);
        // Five passes a side reach the level when they do not overlap.
        let (verdict, test) = noise(&[10.0, 11.0, 12.0, 13.0, 14.0], &[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(verdict, Noise::Differs);
        assert!(test.unwrap().p_value < 0.01);
    }

    #[test]
    fn overlapping_passes_cannot_tell_targets_apart() {
        let (verdict, test) = noise(&[100.0, 95.0, 105.0], &[92.0, 99.0, 101.0]);
        assert_eq!(verdict, Noise::WithinNoise);
        assert!(test.unwrap().p_value >= SIGNIFICANCE);
        // One pass of one side among the other's: overlapping, however far the means.
        let (verdict, _) = noise(&[10.0, 50.0, 60.0], &[1.0, 2.0, 20.0]);
        assert_eq!(verdict, Noise::WithinNoise);
        // Five passes a side, interleaved except at the ends: the test decides.
        let (verdict, test) = noise(&[5.0, 7.0, 8.0, 9.0, 10.0], &[1.0, 2.0, 3.0, 4.0, 6.0]);
        assert_eq!(verdict, Noise::Differs, "p = {}", test.unwrap().p_value);
    }

    #[test]
    fn one_repetition_on_a_side_is_a_single_run() {
        assert_eq!(noise(&[100.0], &[90.0]).0, Noise::SingleRun);
        assert_eq!(noise(&[100.0], &[1.0, 2.0, 3.0]).0, Noise::SingleRun);
        assert_eq!(noise(&[1.0, 2.0], &[100.0]).0, Noise::SingleRun);
    }

    #[test]
    fn the_best_latency_is_the_lowest() {
        let v = || [3.0, 1.0, 2.0].into_iter();
        assert_eq!(figure_of(v(), Figure::Best, true), 3.0);
        assert_eq!(figure_of(v(), Figure::Best, false), 1.0);
        assert_eq!(figure_of(v(), Figure::Mean, false), 2.0);
    }

    /// Three passes of one test on each of two mark runs: best of the passes
    /// (CrystalDiskMark's figure) by default, their mean when asked.
    #[test]
    fn mark_runs_are_compared_by_their_best_pass_unless_told() {
        use crate::report::compare::{Figure, build};
        use crate::report::fixtures::{job, run};
        let mark = |suite: &str, id: i64, ops: [u64; 3]| {
            let mut r = run(
                suite,
                ops.iter()
                    .map(|o| job("SEQ1M Q8T1", Rw::Read, 1 << 20, 100, Some(*o), None))
                    .collect(),
            );
            r.id = Some(id);
            r.label = Some(format!("t{id}"));
            r
        };
        let runs = [
            mark("mark:default", 1, [100, 400, 100]),
            mark("mark:default", 2, [200, 300, 250]),
        ];
        let mb = |ops: u64| (ops << 20) as f64 / 1e6;
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9 * b.abs(), "{a} vs {b}");
        let c = build(&runs, &Default::default()).unwrap();
        assert_eq!(c.figure, Figure::Best);
        let cells: Vec<&Cell> = c.rows[0].cells.iter().flatten().collect();
        close(cells[0].value, mb(400));
        close(cells[1].value, mb(300));
        close(cells[1].ratio.unwrap(), 0.75);
        let mean = CompareOptions {
            figure: Some(Figure::Mean),
            ..Default::default()
        };
        let c = build(&runs, &mean).unwrap();
        assert_eq!(c.figure, Figure::Mean);
        close(c.rows[0].cells[0].as_ref().unwrap().value, mb(200));
        close(c.rows[0].cells[1].as_ref().unwrap().ratio.unwrap(), 1.25);
        // Anything but a mark is compared by its mean, as its own report shows it.
        let sweep = [
            mark("sweep", 1, [100, 400, 100]),
            mark("sweep", 2, [200, 300, 250]),
        ];
        let c = build(&sweep, &Default::default()).unwrap();
        assert_eq!(c.figure, Figure::Mean);
        close(c.rows[0].cells[0].as_ref().unwrap().value, mb(200));
    }
}
