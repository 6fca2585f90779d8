//! The CrystalDiskMark grid: one row per test (Peak and Real World: the
//! random test in three units, as CrystalDiskMark shows them), Read, Write
//! and Mix columns, each followed by `±`, half the range of its passes.
//!
//! Number formats follow `CDiskMarkDlg::SetMeter` (CrystalDiskMark 9.0.1):
//! MB/s, IOPS and µs with two decimals below a million and none above,
//! GB/s with three; the Demo profile has its own (`MarkUnit::demo_value`).

use comfy_table::Cell;

use super::run_table::new_table;
use crate::jobs::presets::Profile;
use crate::metrics::RunResult;
use crate::metrics::repeats::{RepeatStats, TestSummary, half_range};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkUnit {
    MbPerSec,
    GbPerSec,
    Iops,
    LatencyUs,
}

impl MarkUnit {
    pub fn parse(s: &str) -> Option<MarkUnit> {
        match s {
            "mbps" | "MB/s" => Some(MarkUnit::MbPerSec),
            "gbps" | "GB/s" => Some(MarkUnit::GbPerSec),
            "iops" => Some(MarkUnit::Iops),
            "us" | "µs" | "latency" => Some(MarkUnit::LatencyUs),
            _ => None,
        }
    }
    fn title(self) -> &'static str {
        match self {
            MarkUnit::MbPerSec => "MB/s",
            MarkUnit::GbPerSec => "GB/s",
            MarkUnit::Iops => "IOPS",
            MarkUnit::LatencyUs => "µs",
        }
    }
    fn value(self, s: &RepeatStats, figure: Figure, demo: bool) -> String {
        let (bps, iops, lat_ns) = match figure {
            Figure::Best => (s.best_bytes_per_sec, s.best_iops, s.min_lat_mean_ns),
            Figure::Mean => (s.mean_bytes_per_sec, s.mean_iops, s.mean_lat_mean_ns),
        };
        let two_or_none = |x: f64| {
            if x >= 1e6 {
                format!("{x:.0}")
            } else {
                format!("{x:.2}")
            }
        };
        if demo {
            return self.demo_value(bps, iops, lat_ns);
        }
        match self {
            // SetMeter: "%d" from 1,000,000 MB/s up, as IOPS and µs.
            MarkUnit::MbPerSec => two_or_none(bps / 1e6),
            MarkUnit::GbPerSec => format!("{:.3}", bps / 1e9),
            MarkUnit::Iops => two_or_none(iops),
            MarkUnit::LatencyUs => two_or_none(lat_ns / 1e3),
        }
    }
}

impl MarkUnit {
    /// The Demo profile's numbers (`SetMeter` under `PROFILE_DEMO`): MB/s
    /// whole from 1000 up, else one decimal; GB/s one decimal; IOPS whole,
    /// in thousands (`123k`) from 100,000 up; µs with one decimal, whole
    /// from 1000 µs, and whole ms from a second.
    fn demo_value(self, bps: f64, iops: f64, lat_ns: f64) -> String {
        let mb = bps / 1e6;
        let us = lat_ns / 1e3;
        match self {
            MarkUnit::MbPerSec if mb >= 1000.0 => format!("{}", mb as u64),
            MarkUnit::MbPerSec => format!("{mb:.1}"),
            MarkUnit::GbPerSec => format!("{:.1}", mb / 1000.0),
            MarkUnit::Iops if iops >= 100_000.0 => format!("{}k", iops as u64 / 1000),
            MarkUnit::Iops => format!("{}", iops as u64),
            MarkUnit::LatencyUs if bps <= 0.0 => "0.0".to_string(),
            MarkUnit::LatencyUs if us >= 1e6 => format!("{} ms", us as u64 / 1000),
            MarkUnit::LatencyUs if us >= 1000.0 => format!("{}", us as u64),
            MarkUnit::LatencyUs => format!("{us:.1}"),
        }
    }
}

/// Which figure of a test's passes the grid shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// The best score and the lowest latency of the passes (CrystalDiskMark).
    Best,
    /// The mean of the passes (KDiskMark's Default profile).
    Mean,
}

impl Figure {
    pub fn parse(s: &str) -> Option<Figure> {
        match s {
            "best" => Some(Figure::Best),
            "mean" | "average" => Some(Figure::Mean),
            _ => None,
        }
    }
    /// The caption line that says what the grid shows.
    pub fn caption(self, passes: usize) -> String {
        let passes = crate::t!("mark-passes", passes = passes);
        match self {
            Figure::Best => crate::t!("mark-caption-best", passes = passes),
            Figure::Mean => crate::t!("mark-caption-mean", passes = passes),
        }
    }
}

/// What the grid shows and how.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub unit: MarkUnit,
    pub figure: Figure,
    /// Peak and Real World: the random tests in MB/s, IOPS and µs, whatever `unit` says.
    pub random_in_three_units: bool,
    pub color: bool,
    /// The Demo profile: CrystalDiskMark's Demo number formats.
    pub demo: bool,
}

pub fn render(summaries: &[TestSummary], grid: &Layout) -> String {
    let mix = summaries.iter().any(|s| s.mix.is_some());
    // One row per (test, unit); a random test of Peak or Real World gets three.
    let mut rows: Vec<(&TestSummary, MarkUnit)> = Vec::new();
    for s in summaries {
        if grid.random_in_three_units && s.test.starts_with("RND") {
            for unit in [MarkUnit::MbPerSec, MarkUnit::Iops, MarkUnit::LatencyUs] {
                rows.push((s, unit));
            }
        } else {
            let unit = if grid.random_in_three_units {
                MarkUnit::MbPerSec
            } else {
                grid.unit
            };
            rows.push((s, unit));
        }
    }
    let per_row = grid.random_in_three_units;
    let title = |dir: &str| {
        if per_row {
            dir.to_string()
        } else {
            format!("{dir} {}", grid.unit.title())
        }
    };
    let (read, write, mixed) = (
        title(&crate::t!("mark-read")),
        title(&crate::t!("mark-write")),
        title(&crate::t!("mark-mix")),
    );
    let test = crate::t!("mark-test");
    let mut header = vec![test.as_str(), read.as_str(), "±", write.as_str(), "±"];
    if mix {
        header.extend([mixed.as_str(), "±"]);
    }
    let mut t = new_table(&header);
    for (i, (s, unit)) in rows.iter().enumerate() {
        // The spread is the same in every unit: shown once, on the test's first row.
        let first_of_test = i == 0 || rows[i - 1].0.test != s.test;
        let cells = |st: &Option<RepeatStats>, c: comfy_table::Color| match st {
            Some(st) => {
                let mut value = Cell::new(unit.value(st, grid.figure, grid.demo));
                if grid.color {
                    value = value.fg(c);
                }
                let shown = match grid.figure {
                    Figure::Best => st.best_bytes_per_sec,
                    Figure::Mean => st.mean_bytes_per_sec,
                };
                let spread = match half_range(st.min_bytes_per_sec, st.best_bytes_per_sec, shown) {
                    Some(h) if st.runs > 1 && first_of_test => format!("{:.0}%", h * 100.0),
                    _ => String::new(),
                };
                [value, Cell::new(spread)]
            }
            None => [Cell::new("-"), Cell::new("")],
        };
        let name = if per_row {
            format!("{} {}", s.test, unit.title())
        } else {
            s.test.clone()
        };
        let mut row = vec![Cell::new(name)];
        row.extend(cells(&s.read, comfy_table::Color::Green));
        row.extend(cells(&s.write, comfy_table::Color::Cyan));
        if mix {
            row.extend(cells(&s.mix, comfy_table::Color::Magenta));
        }
        t.add_row(row);
    }
    format!("{}\n", super::fit::render(&t))
}

/// The most passes any test of the grid had.
pub fn passes(summaries: &[TestSummary]) -> usize {
    summaries
        .iter()
        .flat_map(|s| [&s.read, &s.write, &s.mix])
        .flatten()
        .map(|st| st.runs)
        .max()
        .unwrap_or(0)
}

/// `1 s passes, not 5 s` when the passes measured less than the profile's
/// `MeasureTime`: numbers of short passes are not the profile's, and a
/// reader comparing with CrystalDiskMark must know before reading the grid.
pub fn short_passes(run: &RunResult, profile: Option<Profile>) -> Option<String> {
    let profile_pass = profile?.setting.measure();
    let pass = run
        .jobs
        .iter()
        .map(|j| j.job.runtime.unwrap_or(crate::jobs::job::DEFAULT_RUNTIME))
        .min()?;
    (pass < profile_pass).then(|| {
        crate::t!(
            "mark-short-passes",
            pass = seconds(pass),
            profile = seconds(profile_pass)
        )
    })
}

fn seconds(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

#[cfg(test)]
mod pass_tests {
    use std::time::Duration;

    use super::*;
    use crate::jobs::Rw;
    use crate::report::fixtures::{job, run};

    fn mark(runtime: Duration) -> RunResult {
        let mut j = job("SEQ1M Q8T1", Rw::Read, 1 << 20, 100, Some(10), None);
        j.job.runtime = Some(runtime);
        run("mark:default", vec![j])
    }

    #[test]
    fn passes_shorter_than_the_profiles_are_said() {
        let default = Profile::parse("default", None).ok();
        assert_eq!(
            short_passes(&mark(Duration::from_secs(1)), default).as_deref(),
            Some("1 s passes, not 5 s as the profile measures: the grid is not the profile's")
        );
        assert_eq!(short_passes(&mark(Duration::from_secs(5)), default), None);
        // The Flash setting's passes are 1 s long.
        let flash = Profile::parse("default", Some("flash")).ok();
        assert_eq!(short_passes(&mark(Duration::from_secs(1)), flash), None);
        assert!(
            short_passes(&mark(Duration::from_millis(500)), flash)
                .unwrap()
                .starts_with("0.5 s passes, not 1 s")
        );
    }
}

#[cfg(test)]
mod demo_tests {
    use super::MarkUnit;

    #[test]
    fn demo_numbers_are_as_set_meter_writes_them_under_profile_demo() {
        let v = |u: MarkUnit, bps: f64, iops: f64, lat_ns: f64| u.demo_value(bps, iops, lat_ns);
        assert_eq!(v(MarkUnit::MbPerSec, 3_456_789_000.0, 0.0, 0.0), "3456");
        assert_eq!(v(MarkUnit::MbPerSec, 512_340_000.0, 0.0, 0.0), "512.3");
        assert_eq!(v(MarkUnit::GbPerSec, 3_456_789_000.0, 0.0, 0.0), "3.5");
        assert_eq!(v(MarkUnit::Iops, 1.0, 123_456.0, 0.0), "123k");
        assert_eq!(v(MarkUnit::Iops, 1.0, 99_999.7, 0.0), "99999");
        assert_eq!(v(MarkUnit::LatencyUs, 1.0, 0.0, 81_300.0), "81.3");
        assert_eq!(v(MarkUnit::LatencyUs, 1.0, 0.0, 2_500_000.0), "2500");
        assert_eq!(v(MarkUnit::LatencyUs, 1.0, 0.0, 3_200_000_000.0), "3200 ms");
        assert_eq!(v(MarkUnit::LatencyUs, 0.0, 0.0, 0.0), "0.0");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Rw;
    use crate::metrics::repeats::summarize_mark;
    use crate::report::compare::{self, CompareOptions};
    use crate::report::fixtures::{job, run};

    /// The grid's `±` was (max - min) / mean, twice what compare
    /// shows for the same passes; both are half the range now.
    #[test]
    fn the_grids_plus_minus_is_compares_half_range() {
        let pass = |n: u32, ops: u64| {
            let mut j = job("SEQ1M Q8T1", Rw::Read, 1_000_000, 100, Some(ops), None);
            j.job.name = format!("SEQ1M Q8T1 read #{n}");
            j
        };
        let r = run("mark:default", vec![pass(1, 100), pass(2, 150)]);
        let grid = render(
            &summarize_mark(&r),
            &Layout {
                unit: MarkUnit::MbPerSec,
                figure: Figure::Mean,
                random_in_three_units: false,
                color: false,
                demo: false,
            },
        );
        // (150 - 100) / 2 / 125, beside the passes' mean, 125 MB/s.
        assert!(grid.contains(" 125.00   20% "), "{grid}");
        // The same passes as repetitions of a plain run: compare's row, by their mean.
        let mut plain = r.clone();
        plain.suite = None;
        let c = compare::build(std::slice::from_ref(&plain), &CompareOptions::default()).unwrap();
        let text = compare::render::table(&c);
        assert!(text.contains("125 ±20.0%"), "{text}");
    }
}
