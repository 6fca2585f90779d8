//! Side-by-side comparison of stored runs: rows matched across targets,
//! ratios to a baseline, a verdict on the repetitions (a rank test), prices,
//! and guidance per workload class. Three steps, kept apart: `rows` turns
//! runs into matched rows (measure), `guidance` draws conclusions from those
//! rows (summarise), `render` prints them (table, Markdown, CSV; JSON is the
//! serialized `Comparison`). Pure: no database, no terminal.

pub mod capacity;
mod decide;
mod guidance;
// many ranks
pub mod hosts;
pub mod render;
// seed 4's table
mod repeats_view;
mod rows;
pub mod shaped;
// seed 5: bonnie++ and tiobench across targets
pub mod suite_view;
// seed 2's table
pub mod sweep_view;

use serde::Serialize;
use thiserror::Error;

use crate::jobs::price::{Price, PriceError};
use crate::jobs::{BlockSize, Distribution};
use crate::metrics::RunResult;

pub use guidance::SAME_WITHIN;
pub use rows::{DEEP_QUEUE, LARGE_BLOCK_BYTES, SMALL_BLOCK_BYTES};

#[derive(Debug, Error)]
pub enum CompareError {
    #[error("nothing to compare: give at least one run")]
    NoTargets,
    #[error("baseline {0} is not one of the compared targets")]
    BadBaseline(usize),
    #[error(
        "{target} (run {run}) has a stored price that kura cannot use: {source}; fix it with `kura label {run} --price \"AMOUNT CUR/month\"`"
    )]
    Price {
        target: String,
        run: i64,
        #[source]
        source: PriceError,
    },
}

/// What is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Throughput in MB/s (10^6 bytes per second)
    Mbps,
    /// Operations per second
    Iops,
    /// Mean latency (submission to completion)
    LatMean,
    /// 99th percentile latency
    LatP99,
}

impl Metric {
    /// The unit values of this metric are given in.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Mbps => "MB/s",
            Metric::Iops => "IOPS",
            Metric::LatMean | Metric::LatP99 => "ns",
        }
    }
    pub fn title(self) -> &'static str {
        match self {
            Metric::Mbps => "MB/s",
            Metric::Iops => "IOPS",
            Metric::LatMean => "mean latency",
            Metric::LatP99 => "p99 latency",
        }
    }
    pub fn better(self) -> Better {
        match self {
            Metric::Mbps | Metric::Iops => Better::Higher,
            Metric::LatMean | Metric::LatP99 => Better::Lower,
        }
    }
    pub fn is_throughput(self) -> bool {
        self.better() == Better::Higher
    }
}

/// Which way a metric improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Higher,
    Lower,
}

/// What names a row and how rows are grouped into sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum By {
    /// One row per suite test (or workload) and direction, in run order
    Test,
    /// Rows by block size, one section per access pattern and read/write mix
    Bs,
    /// Rows by read/write mix, one section per access pattern and block size
    Mix,
}

/// Which figure of a row's repetitions is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Figure {
    /// The best repetition: the highest throughput, the lowest latency (CrystalDiskMark's figure)
    Best,
    /// The mean of the repetitions
    #[value(alias = "average")]
    Mean,
}

impl Figure {
    /// The figure a suite's own report shows: a mark grid its best pass,
    /// everything else the mean. Runs of several suites are compared by the mean.
    pub fn of_suites(targets: &[Target]) -> Figure {
        if all_marks(targets) {
            Figure::Best
        } else {
            Figure::Mean
        }
    }
}

/// What a cell's repetitions are, for the words that name them: a run's
/// passes (a mark run's `--runs`), or the runs of one label taken with
/// `--repeats` (seed 4's vdbench runs, repeated three times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Repeated {
    #[default]
    Passes,
    Runs,
}

impl Repeated {
    fn of(targets: &[Target]) -> Repeated {
        if !all_marks(targets) && targets.iter().any(|t| t.runs.len() > 1) {
            Repeated::Runs
        } else {
            Repeated::Passes
        }
    }

    /// The catalogue's selector (`$unit`): `passes` or `runs`.
    pub fn key(self) -> &'static str {
        match self {
            Repeated::Passes => "passes",
            Repeated::Runs => "runs",
        }
    }
}

fn all_marks(targets: &[Target]) -> bool {
    targets
        .iter()
        .flat_map(|t| &t.runs)
        .all(|r| matches!(r.suite, Some(crate::jobs::suites::SuiteKind::Mark(_))))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompareOptions {
    pub metric: Metric,
    pub by: By,
    /// Index of the baseline target; ratios are target / baseline.
    pub baseline: usize,
    /// None: the suite's own (`Figure::of_suites`).
    pub figure: Option<Figure>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            metric: Metric::Mbps,
            by: By::Test,
            baseline: 0,
            figure: None,
        }
    }
}

/// One compared target: a run, or several runs taken as repetitions.
#[derive(Debug, Clone)]
pub struct Target {
    pub name: String,
    pub runs: Vec<RunResult>,
}

/// The whole comparison; serialized as `kura compare --format json`.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub metric: Metric,
    /// Unit of every `value`, `min` and `max`: `MB/s`, `IOPS` or `ns`.
    pub unit: &'static str,
    pub better: Better,
    pub by: By,
    /// Which figure of the repetitions each `value` is: `best` or `mean`.
    pub figure: Figure,
    /// Index into `targets`.
    pub baseline: usize,
    pub targets: Vec<TargetSummary>,
    pub rows: Vec<Row>,
    pub guidance: Vec<Guidance>,
    /// One pick per class among all targets (docs/compare.md, "When kura picks").
    pub picks: Vec<Pick>,
    /// Things to know before trusting the table (currencies, incomplete runs).
    pub warnings: Vec<String>,
    /// Latency-bounded capacity scores relative to the baseline, when the
    /// runs hold latency-bounded searches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_bound: Option<capacity::Capacity>,
    /// Every compared target's runs took turns with a run of every other
    /// target (`kura mark A B`, docs/mark.md): the machine's drift fell on
    /// them alike, and their passes pair up (`Cell::paired`).
    pub interleaved: bool,
    /// Per host, for targets whose runs many ranks made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<hosts::TargetHosts>,
    /// Every run is a mark run: the table is CrystalDiskMark's published
    /// shape, a row per target and a column per test (render.rs).
    #[serde(skip)]
    pub all_marks: bool,
    /// Every run is of bonnie++ or of tiobench: that suite's own tables (seed 5).
    #[serde(skip)]
    pub suite: Option<suite_view::SuiteView>,
    /// Whether the repetitions are passes or runs, for the words.
    #[serde(skip)]
    pub repeated: Repeated,
}

#[derive(Debug, Clone, Serialize)]
pub struct TargetSummary {
    pub name: String,
    pub run_ids: Vec<i64>,
    pub label: Option<String>,
    /// The price as stored, e.g. `1075.20 JPY/month`.
    pub price_text: Option<String>,
    pub price: Option<Price>,
    /// The price of one month, in `currency`.
    pub price_per_month: Option<f64>,
    pub currency: Option<String>,
    /// price_per_month / the baseline's; only when both are in one currency.
    pub price_ratio: Option<f64>,
    /// The first job's target path and device model, for recognising it.
    pub path: String,
    pub device_model: Option<String>,
    /// What kura knows of the volume under the target, seed 4's "size/plan"
    /// column: a block device's size and name (`64.0 MiB loop3`), a file's
    /// file system and device (`ext4 on vda`).
    pub volume: String,
    pub hostname: String,
    pub incomplete: bool,
    /// Why this target's numbers give no pick: warnings of its runs that say
    /// they are of memory, or of a job that stalled or stopped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// What names its storage (the first job's), to tell two labels of one target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identity: Option<crate::metrics::TargetIdentity>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
    /// Reads and writes of a mixed job together.
    Total,
    /// Another kind of operation (bonnie's creates, stats, deletes), by its name.
    #[serde(untagged)]
    Op(crate::metrics::OpKind),
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::Total => "total",
            Direction::Op(kind) => kind.name(),
        }
    }
}

/// The parameters of a row's workload (the baseline's, when it has the row).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Workload {
    pub rw: &'static str,
    /// As kura writes it: `4k`, or a split `4k/60:64k/40`.
    pub bs: String,
    pub bs_split: Vec<BlockSize>,
    /// Share of reads, 0..=100, whatever `rw` says.
    pub read_pct: u8,
    pub qd: u32,
    pub threads: u32,
    pub direct: bool,
    /// Test-file size or device span chosen; `None` when a whole device was used.
    pub size_bytes: Option<u64>,
    pub distribution: Distribution,
    /// The identity options that pace a job (periodic syncs, a rate cap),
    /// under their keys in the option table; `None` when unset. Keys in
    /// order, as the struct's fields were written before.
    #[serde(flatten)]
    pub pacing: std::collections::BTreeMap<&'static str, Option<u64>>,
}

/// The classes the guidance speaks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadClass {
    /// Sequential, block size at least `LARGE_BLOCK_BYTES`.
    SequentialLarge,
    /// Random, block size at most `SMALL_BLOCK_BYTES`, one I/O in flight.
    RandomSmallQd1,
    /// Random, block size at most `SMALL_BLOCK_BYTES`, at least `DEEP_QUEUE` I/Os in flight.
    RandomSmallDeep,
    /// Reads and writes mixed (both present), judged on their total.
    Mixed,
    /// Every comparable row (mixed jobs by their total).
    All,
}

impl WorkloadClass {
    pub fn title(self) -> &'static str {
        match self {
            WorkloadClass::SequentialLarge => "sequential-heavy (large sequential blocks)",
            WorkloadClass::RandomSmallQd1 => "little I/O (small random blocks, queue depth 1)",
            WorkloadClass::RandomSmallDeep => "random-heavy (small random blocks, deep queue)",
            WorkloadClass::Mixed => "mixed read/write",
            WorkloadClass::All => "all rows",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Stable identity of the row: `test:SEQ1M Q8T1:read` or the workload's parameters.
    pub key: String,
    /// What the first column shows, under `by`.
    pub label: String,
    /// The heading the row is grouped under (empty for `by test`).
    pub section: String,
    pub test: Option<String>,
    pub direction: Direction,
    pub workload: Workload,
    /// Class for the guidance; `None` for workloads outside every class.
    pub class: Option<WorkloadClass>,
    /// Unit of this row's values: the comparison's, except `IOPS` for an
    /// operation that moves no bytes under MB/s (`in_ops`), so that a
    /// program never reads a create's rate as MB/s.
    pub unit: &'static str,
    /// One per target, in `targets` order; `None` where the target has no such row.
    pub cells: Vec<Option<Cell>>,
    /// Why some targets' values cannot be set against the baseline's, if so.
    pub not_comparable: Option<String>,
}

impl Row {
    /// The reads or the writes of a job whose `total` row is among `rows`:
    /// a mixed job is one measurement, its total (what vdbench's summary and
    /// the guidance's "all rows" count).
    pub fn part_of_a_total(&self, rows: &[Row]) -> bool {
        matches!(self.direction, Direction::Read | Direction::Write)
            && rows.iter().any(|o| {
                o.direction == Direction::Total && o.test == self.test && o.workload == self.workload
            })
    }
}

/// One target's value in a row.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The comparison's `figure` of the repetitions (their mean, or the best
    /// one), in the comparison's `unit`.
    pub value: f64,
    pub min: f64,
    pub max: f64,
    /// Measurements taken together: jobs of the same test in a run (a mark
    /// run's passes), and runs of one target.
    pub repetitions: usize,
    /// The same figure of the repetitions, whatever the metric (best: the
    /// highest rates, the lowest latencies).
    pub iops: f64,
    pub bytes_per_sec: f64,
    pub lat_mean_ns: f64,
    pub lat_p99_ns: Option<f64>,
    /// value / the baseline's value (1 for the baseline); read with `better`.
    pub ratio: Option<f64>,
    /// What the repetitions say of the difference to the baseline (rows.rs, `noise`).
    pub noise: Option<Noise>,
    /// The two-sided p-value of the Mann-Whitney U test of this target's
    /// repetitions against the baseline's; when both were repeated.
    pub p_value: Option<f64>,
    /// Cliff's delta of the same: P(target > baseline) - P(target < baseline)
    /// over all pairs of repetitions, -1 to 1 in the metric's own direction.
    pub cliffs_delta: Option<f64>,
    /// Parameters that differ from the baseline's row, e.g. `queue depth 1 vs 32`.
    pub not_comparable: Option<String>,
    /// IOPS per currency unit per month.
    pub iops_per_price: Option<f64>,
    /// MB/s per currency unit per month.
    pub mbps_per_price: Option<f64>,
    /// Performance per price against the baseline's (> 1: more for the money),
    /// oriented so that lower latency counts as more performance.
    pub value_per_price_ratio: Option<f64>,
    /// Each of the target's runs by itself, in the order they were given
    /// (`--repeats`: oldest first); `null` for a run without this row.
    /// Only when the target has several runs.
    #[serde(skip_serializing_if = "one_run")]
    pub per_run: Vec<Option<f64>>,
    /// The test size of this target's measurements (the row's `workload` is the baseline's).
    #[serde(skip)]
    pub size_bytes: Option<u64>,
    /// Each repetition's value in the comparison's unit, for the rank test,
    /// in the order they ran (a run's passes in pass order, runs oldest first).
    #[serde(skip)]
    pub passes: Vec<f64>,
    /// When each of `passes` started measuring, ms since the Unix epoch (0: unknown).
    #[serde(skip)]
    pub pass_starts: Vec<u64>,
    /// Pass i of this target ran next to pass i of the baseline: their runs
    /// took turns (`interleaved`) and every pair ran before the next pair
    /// began, so a paired test may set pass i against pass i. False on the
    /// baseline's own cell.
    pub paired: bool,
}

fn one_run(v: &[Option<f64>]) -> bool {
    v.len() < 2
}

/// What two sets of repetitions say of their difference (docs/compare.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Noise {
    /// The Mann-Whitney U test finds a difference at `SIGNIFICANCE` (two-sided).
    Differs,
    /// Every repetition of one side beats every repetition of the other,
    /// though too few of them for the test to reach `SIGNIFICANCE` (3 against
    /// 3 gives p = 0.1 at best). Never noise.
    EveryPass,
    /// The repetitions overlap and the test finds no difference: the runs
    /// cannot tell the targets apart.
    WithinNoise,
    /// A side has one repetition: there is no spread to judge by.
    SingleRun,
}

pub use crate::metrics::repeats::SIGNIFICANCE;

/// One conclusion: a target against the baseline on one workload class.
#[derive(Debug, Clone, Serialize)]
pub struct Guidance {
    pub class: WorkloadClass,
    /// Index into `targets`.
    pub target: usize,
    /// Comparable rows the conclusion rests on.
    pub rows: usize,
    /// Geometric mean of the rows' ratios, oriented so that > 1 means the target is better.
    pub factor: Option<f64>,
    pub min_factor: Option<f64>,
    pub max_factor: Option<f64>,
    pub verdict: Verdict,
    /// With `too_few_runs`: the repetitions a side that would decide rows as
    /// far apart as these (docs/compare.md, "When kura picks").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs_needed: Option<usize>,
    pub price_ratio: Option<f64>,
    /// factor / price_ratio: > 1 means the target gives more performance per money.
    pub value_per_price_ratio: Option<f64>,
    /// The conclusion in one sentence.
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The target is better by more than `SAME_WITHIN`.
    Better,
    Worse,
    /// Within `SAME_WITHIN` of each other.
    Same,
    /// In every row the repetitions overlap and the rank test finds no
    /// difference: the runs cannot tell the targets apart.
    WithinNoise,
    /// Better in some rows, worse in others.
    Mixed,
    /// No comparable row of this class.
    NotMeasured,
    /// No row decided, and in some the repetitions do not overlap (or a side
    /// has one): too few of them to tell; `runs_needed` would.
    TooFewRuns,
    /// A side's runs are flagged (memory, stalls, stops): not ranked.
    Flagged,
    /// Both are the same storage under two names: not ranked.
    SameTarget,
}

/// The one pick of a workload class among all compared targets.
#[derive(Debug, Clone, Serialize)]
pub struct Pick {
    pub class: WorkloadClass,
    /// Index into `targets`; `None` when the runs single out none.
    pub target: Option<usize>,
    /// Targets no other was shown faster than (the pick is among them).
    pub not_slower: Vec<usize>,
    /// Targets whose runs are flagged, left out of the pick.
    pub left_out: Vec<usize>,
    pub reason: PickReason,
    /// With `too_few_runs`: the repetitions a side that would tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs_needed: Option<usize>,
    /// The pick with the class's title.
    pub text: String,
    /// The pick alone, to end a single guidance line with.
    #[serde(skip)]
    pub sentence: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PickReason {
    /// Every other target was shown slower.
    Fastest,
    /// None was shown faster than another; the cheapest per performance.
    CheapestOfAlike,
    /// None was shown faster, and the runs say they are alike.
    Alike,
    /// Too few repetitions to tell the fastest ones apart.
    TooFewRuns,
    /// Each leads in some rows.
    Mixed,
    /// They are one storage under several names.
    SameTarget,
    /// Every target but at most one is flagged.
    AllFlagged,
}

impl Comparison {
    /// The guidance as printed: per class, each target's line against the
    /// baseline, then the class's pick; a class with a single line ends that
    /// line with the pick.
    pub fn guidance_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut classes: Vec<WorkloadClass> = Vec::new();
        for g in &self.guidance {
            if !classes.contains(&g.class) {
                classes.push(g.class);
            }
        }
        for class in classes {
            let lines: Vec<&Guidance> = self.guidance.iter().filter(|g| g.class == class).collect();
            let pick = self.picks.iter().find(|p| p.class == class);
            match (lines.as_slice(), pick) {
                ([one], Some(p)) => out.push(format!("{} {}", one.text, p.sentence)),
                _ => {
                    out.extend(lines.iter().map(|g| g.text.clone()));
                    out.extend(pick.map(|p| p.text.clone()));
                }
            }
        }
        out
    }
}

/// Compares runs, each run one target, named by its label (else `run ID`).
pub fn build(runs: &[RunResult], opts: &CompareOptions) -> Result<Comparison, CompareError> {
    build_targets(&each_run(runs), opts)
}

/// Each run a target of its own, named by its label (else `run ID`).
pub fn each_run(runs: &[RunResult]) -> Vec<Target> {
    runs.iter()
        .map(|r| Target {
            name: r
                .label
                .clone()
                .unwrap_or_else(|| crate::t!("run-id", id = r.id.unwrap_or(0))),
            runs: vec![r.clone()],
        })
        .collect()
}

/// The comparison in a published table's shape, where it has one: seed 2's
/// sweeps by block size (both figures per target), seed 4's targets of
/// several runs (a column per run), seed 5's bonnie++ and tiobench tables.
/// `None`: the row grid.
pub fn shaped(c: &Comparison) -> Option<shaped::Shaped> {
    if let Some(suite_view::SuiteView::Bonnie(s)) = &c.suite {
        return (c.by == By::Test).then(|| s.clone());
    }
    if let Some(suite_view::SuiteView::Tiobench(t)) = &c.suite {
        return (c.by == By::Test).then(|| suite_view::tiobench(t));
    }
    sweep_view::shaped(c).or_else(|| repeats_view::shaped(c))
}

/// Compares targets whose runs are repetitions of each other.
pub fn build_targets(targets: &[Target], opts: &CompareOptions) -> Result<Comparison, CompareError> {
    if targets.is_empty() {
        return Err(CompareError::NoTargets);
    }
    if opts.baseline >= targets.len() {
        return Err(CompareError::BadBaseline(opts.baseline));
    }
    let names = unique_names(targets);
    let mut warnings = Vec::new();
    let mut summaries = Vec::new();
    for (t, name) in targets.iter().zip(&names) {
        summaries.push(target_summary(t, name, &mut warnings)?);
    }
    price_ratios(&mut summaries, opts.baseline, &mut warnings);
    let figure = opts.figure.unwrap_or_else(|| Figure::of_suites(targets));
    let rows = rows::build_rows(targets, &summaries, opts, figure);
    // Rows held apart by their parameters; a job that completed nothing says so in its own cell.
    let nothing = crate::t!("compare-nothing-completed");
    let not_comparable = rows
        .iter()
        .filter(|r| {
            r.cells
                .iter()
                .flatten()
                .any(|c| c.not_comparable.as_ref().is_some_and(|why| *why != nothing))
        })
        .count();
    if not_comparable > 0 {
        warnings.push(crate::t!("compare-rows-not-comparable", count = not_comparable));
    }
    // Runs that share no workload (another suite's, another file set's)
    // make a grid of dashes: say why once.
    let shared = |r: &Row| r.cells.iter().flatten().count() > 1;
    if targets.len() > 1 && !rows.is_empty() && !rows.iter().any(shared) {
        warnings.push(crate::t!("compare-no-shared-row"));
    }
    let mut rows = rows;
    pair_passes(&mut rows, targets, opts.baseline);
    let repeated = Repeated::of(targets);
    let (guidance, mut picks) = guidance::build(&rows, &summaries, opts, repeated);
    let interleaved = interleaved(targets);
    if !interleaved {
        // A drift of the machine during one target's runs reads as a
        // difference between targets; runs in turns share it.
        for p in picks.iter_mut().filter(|p| p.target.is_some()) {
            let note = crate::t!("pick-not-interleaved");
            p.text = format!("{} {note}", p.text);
            p.sentence = format!("{} {note}", p.sentence);
        }
    }
    let latency_bound = capacity::build(targets, opts.baseline);
    let suite = suite_view::build(targets, &names, opts.baseline, &rows);
    Ok(Comparison {
        metric: opts.metric,
        unit: opts.metric.unit(),
        better: opts.metric.better(),
        by: opts.by,
        figure,
        baseline: opts.baseline,
        targets: summaries,
        rows,
        guidance,
        picks,
        warnings,
        latency_bound,
        interleaved,
        hosts: hosts::build(targets, &names),
        all_marks: all_marks(targets),
        suite,
        repeated,
    })
}

/// Whether every run of `a` took turns with a run of `b` (`interleaved_with`).
fn took_turns(a: &Target, b: &Target) -> bool {
    !a.runs.is_empty()
        && a.runs.iter().all(|r| {
            b.runs
                .iter()
                .any(|o| o.id.is_some_and(|id| r.interleaved_with.contains(&id)))
        })
}

/// Every target's runs took turns with a run of each other target.
fn interleaved(targets: &[Target]) -> bool {
    targets.len() > 1
        && targets.iter().enumerate().all(|(i, a)| {
            targets
                .iter()
                .enumerate()
                .all(|(j, b)| i == j || took_turns(a, b))
        })
}

/// Marks the cells whose passes pair with the baseline's, pass by pass:
/// their runs took turns, as many passes a side, and each pair of passes
/// ran before the next pair began (a pass that measured nothing, left out
/// of one side, would shift the pairs; the start times show it).
fn pair_passes(rows: &mut [Row], targets: &[Target], base: usize) {
    for row in rows.iter_mut() {
        let Some(b) = row.cells.get(base).cloned().flatten() else {
            continue;
        };
        for (t, cell) in row.cells.iter_mut().enumerate() {
            let Some(c) = cell else { continue };
            c.paired = t != base
                && took_turns(&targets[t], &targets[base])
                && took_turns(&targets[base], &targets[t])
                && in_turn(&c.pass_starts, &b.pass_starts);
        }
    }
}

/// Two lists of pass starts that took turns: as many, all known, and pair i
/// (pass i of each) wholly before pair i + 1.
fn in_turn(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len()
        && !a.is_empty()
        && a.iter().chain(b).all(|&t| t > 0)
        && (1..a.len()).all(|i| a[i - 1].max(b[i - 1]) < a[i].min(b[i]))
}

/// Targets that share a name get their run ids added, so columns stay distinct.
fn unique_names(targets: &[Target]) -> Vec<String> {
    targets
        .iter()
        .map(|t| {
            if targets.iter().filter(|o| o.name == t.name).count() > 1 {
                let ids: Vec<String> = t
                    .runs
                    .iter()
                    .filter_map(|r| r.id)
                    .map(|i| i.to_string())
                    .collect();
                crate::t!(
                    "compare-name-with-runs",
                    name = t.name.as_str(),
                    ids = ids.join(",")
                )
            } else {
                t.name.clone()
            }
        })
        .collect()
}

fn target_summary(t: &Target, name: &str, warnings: &mut Vec<String>) -> Result<TargetSummary, CompareError> {
    let run_ids: Vec<i64> = t.runs.iter().filter_map(|r| r.id).collect();
    let mut price_text: Option<String> = None;
    let mut price = None;
    for r in &t.runs {
        let Some(text) = &r.price else { continue };
        let parsed = Price::parse(text).map_err(|source| CompareError::Price {
            target: name.to_string(),
            run: r.id.unwrap_or(0),
            source,
        })?;
        match &price {
            None => {
                price = Some(parsed);
                price_text = Some(text.clone());
            }
            Some(p) if *p != parsed => warnings.push(crate::t!(
                "compare-prices-differ",
                name = name,
                first = price_text.as_deref().unwrap_or(""),
                other = text.as_str()
            )),
            Some(_) => {}
        }
    }
    let first_job = t.runs.iter().find_map(|r| r.jobs.first());
    let incomplete = t.runs.iter().any(|r| r.incomplete);
    // A number that may not be the device's carries its reason wherever it is compared.
    for r in &t.runs {
        for w in r.warnings.iter().filter(|w| w.is_data_source()) {
            warnings.push(format!("{}: {w}", whose(name, r)));
        }
    }
    let mut flags: Vec<String> = t
        .runs
        .iter()
        .flat_map(|r| r.warnings.iter().filter_map(|w| w.voids_a_pick()))
        .chain(incomplete.then(|| crate::t!("pick-void-stopped")))
        .collect();
    flags.sort();
    flags.dedup();
    for r in t.runs.iter().filter(|r| r.incomplete) {
        warnings.push(crate::t!(
            "compare-run-stopped-early",
            name = name,
            id = r.id.unwrap_or(0)
        ));
    }
    // Long runs: a step, drift or spike in a compared run's series
    // is part of what its numbers mean; so is a job too short to trust or
    // a latency tail.
    for r in &t.runs {
        for w in r.warnings.iter().filter(|w| {
            matches!(
                w,
                crate::metrics::Warning::SeriesStep { .. }
                    | crate::metrics::Warning::SeriesDrift { .. }
                    | crate::metrics::Warning::SeriesUnsteady { .. }
                    | crate::metrics::Warning::LatencySpikes { .. }
                    | crate::metrics::Warning::LatencyTail { .. }
                    | crate::metrics::Warning::TooShort { .. }
            )
        }) {
            warnings.push(format!("{}: {w}", whose(name, r)));
        }
    }
    Ok(TargetSummary {
        name: name.to_string(),
        run_ids,
        label: t.runs.iter().find_map(|r| r.label.clone()),
        price_per_month: price.as_ref().map(Price::monthly),
        price_ratio: None,
        currency: price.as_ref().map(|p| p.currency.clone()),
        price_text,
        price,
        path: first_job.map(|j| j.target.path.clone()).unwrap_or_default(),
        device_model: first_job.and_then(|j| j.target.device_model.clone()),
        volume: first_job.map(|j| volume(&j.target)).unwrap_or_default(),
        hostname: t
            .runs
            .first()
            .map(|r| r.host.hostname.clone())
            .unwrap_or_default(),
        incomplete,
        flags,
        identity: first_job.and_then(|j| j.target.identity.clone()),
    })
}

/// A block device by its size and name, a file by where it lies.
fn volume(t: &crate::metrics::TargetFacts) -> String {
    match t.kind {
        crate::metrics::TargetKind::Block => {
            let name = t.path.rsplit('/').next().unwrap_or(&t.path);
            format!("{} {name}", crate::report::format::bytes_human(t.size_bytes))
        }
        crate::metrics::TargetKind::File => match (&t.fs_type, &t.device) {
            (Some(fs), Some(dev)) => crate::t!("compare-volume-on", fs = fs.as_str(), device = dev.as_str()),
            (Some(fs), None) => fs.clone(),
            (None, Some(dev)) => dev.clone(),
            (None, None) => String::new(),
        },
    }
}

/// Which target and run a warning is about: `ssd: run 3`, or `run 3` alone
/// when the target is named by its run id.
fn whose(name: &str, run: &RunResult) -> String {
    let run_name = crate::t!("run-id", id = run.id.unwrap_or(0));
    if name == run_name {
        run_name
    } else {
        format!("{name}: {run_name}")
    }
}

fn price_ratios(targets: &mut [TargetSummary], baseline: usize, warnings: &mut Vec<String>) {
    let priced = targets.iter().filter(|t| t.price.is_some()).count();
    if priced == 0 {
        return;
    }
    for t in targets.iter().filter(|t| t.price.is_none()) {
        warnings.push(crate::t!("compare-no-price", name = t.name.as_str()));
    }
    let base_currency = targets[baseline].currency.clone();
    let base_month = targets[baseline].price_per_month;
    let mut currencies: Vec<String> = targets.iter().filter_map(|t| t.currency.clone()).collect();
    currencies.sort();
    currencies.dedup();
    if currencies.len() > 1 {
        warnings.push(crate::t!(
            "compare-currencies-differ",
            currencies = currencies.join(", ")
        ));
    }
    for t in targets.iter_mut() {
        t.price_ratio = match (&t.currency, &base_currency, t.price_per_month, base_month) {
            (Some(c), Some(bc), Some(m), Some(bm)) if c == bc && bm > 0.0 => Some(m / bm),
            _ => None,
        };
    }
}

#[cfg(test)]
mod pairing_tests {
    use super::in_turn;

    #[test]
    fn passes_pair_only_when_each_pair_ran_before_the_next() {
        // A1 B1 A2 B2 A3 B3.
        assert!(in_turn(&[10, 30, 50], &[20, 40, 60]));
        // The baseline first in each turn is as good.
        assert!(in_turn(&[20, 40, 60], &[10, 30, 50]));
        // One after the other: A1 A2 A3 B1 B2 B3.
        assert!(!in_turn(&[10, 20, 30], &[40, 50, 60]));
        // A pass left out of one side shifts the pairs.
        assert!(!in_turn(&[10, 50], &[20, 40, 60]));
        // Unknown start times (imported runs) pair nothing.
        assert!(!in_turn(&[0, 30], &[20, 40]));
        assert!(!in_turn(&[], &[]));
    }
}
