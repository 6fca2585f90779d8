//! The CrystalDiskMark grid: one row per test, Read and Write columns.

use comfy_table::Cell;

use super::format::{latency, rate};
use super::run_table::new_table;
use crate::metrics::repeats::{RepeatStats, TestSummary};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkUnit {
    MbPerSec,
    Iops,
    LatencyUs,
}

impl MarkUnit {
    pub fn parse(s: &str) -> Option<MarkUnit> {
        match s {
            "mbps" | "MB/s" => Some(MarkUnit::MbPerSec),
            "iops" => Some(MarkUnit::Iops),
            "us" | "latency" => Some(MarkUnit::LatencyUs),
            _ => None,
        }
    }
    fn title(self) -> &'static str {
        match self {
            MarkUnit::MbPerSec => "MB/s",
            MarkUnit::Iops => "IOPS",
            MarkUnit::LatencyUs => "mean latency",
        }
    }
    fn best(self, s: &RepeatStats) -> String {
        match self {
            MarkUnit::MbPerSec => format!("{:.2}", s.best_bytes_per_sec / 1e6),
            MarkUnit::Iops => rate(s.best_iops),
            MarkUnit::LatencyUs => latency(s.best_lat_mean_ns),
        }
    }
    fn mean(self, s: &RepeatStats) -> String {
        match self {
            MarkUnit::MbPerSec => format!("{:.2}", s.mean_bytes_per_sec / 1e6),
            MarkUnit::Iops => rate(s.mean_iops),
            MarkUnit::LatencyUs => String::new(),
        }
    }
}

pub fn render(summaries: &[TestSummary], unit: MarkUnit, color: bool) -> String {
    let title = unit.title();
    let read = format!("Read {title}");
    let write = format!("Write {title}");
    let mut t = new_table(&["test", &read, "(mean)", &write, "(mean)", "runs", "spread"]);
    for s in summaries {
        let cells = |st: &Option<RepeatStats>, c: comfy_table::Color| match st {
            Some(st) => {
                let mut best = Cell::new(unit.best(st));
                if color {
                    best = best.fg(c);
                }
                (best, Cell::new(unit.mean(st)))
            }
            None => (Cell::new("-"), Cell::new("")),
        };
        let (rb, rm) = cells(&s.read, comfy_table::Color::Green);
        let (wb, wm) = cells(&s.write, comfy_table::Color::Cyan);
        let runs = s
            .read
            .as_ref()
            .or(s.write.as_ref())
            .map(|st| st.runs)
            .unwrap_or(0);
        let spread = [&s.read, &s.write]
            .iter()
            .filter_map(|st| st.as_ref())
            .map(|st| st.spread)
            .fold(0.0, f64::max);
        let spread = if runs > 1 {
            format!("{:.0} %", spread * 100.0)
        } else {
            String::new()
        };
        t.add_row(vec![
            Cell::new(&s.test),
            rb,
            rm,
            wb,
            wm,
            Cell::new(runs),
            Cell::new(spread),
        ]);
    }
    format!("{t}\n")
}
