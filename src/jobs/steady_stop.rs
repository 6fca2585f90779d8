//! fio's steady-state stop (`ss`, `ss_dur`, `ss_ramp`; fio 3.33
//! steadystate.c, HOWTO.rst "Steady state"): a job ends early once the
//! last `ss_dur` of its per-second IOPS or bandwidth hold a criterion:
//! `iops`/`bw`, the largest deviation from the window's mean, or
//! `iops_slope`/`bw_slope`, the slope of a least-squares line through it;
//! either as a share of the mean (`10%`) or in the figure's unit. fio's
//! `steadystate.fio` ends a 5-minute job once IOPS stay within 10 %.
//! Not the SNIA PTS rounds of `until_steady` (jobs/tracked.rs).

use serde::{Deserialize, Serialize};

/// fio's criterion: which figure, how judged, and the limit it must be under.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SteadyRule {
    /// Bandwidth (bytes per second) instead of IOPS.
    pub bw: bool,
    /// The slope of the window's least-squares line, instead of its largest deviation.
    pub slope: bool,
    pub limit: f64,
    /// The limit is a percentage of the window's mean.
    pub pct: bool,
}

impl SteadyRule {
    /// `iops:10%`, `iops_slope:0.01%`, `bw:2000000`, `bw_slope:1%`.
    pub fn parse(text: &str) -> Result<SteadyRule, String> {
        let t = text.trim().to_ascii_lowercase();
        let (kind, limit) = t
            .split_once(':')
            .ok_or("expected iops, iops_slope, bw or bw_slope, a colon and a limit, such as iops:10%")?;
        let (bw, slope) = match kind {
            "iops" => (false, false),
            "iops_slope" => (false, true),
            "bw" => (true, false),
            "bw_slope" => (true, true),
            _ => return Err(format!("'{kind}' is not iops, iops_slope, bw or bw_slope")),
        };
        let (number, pct) = match limit.strip_suffix('%') {
            Some(n) => (n, true),
            None => (limit, false),
        };
        let limit: f64 = number
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite() && *x > 0.0)
            .ok_or_else(|| format!("'{limit}' is not a limit more than 0"))?;
        Ok(SteadyRule {
            bw,
            slope,
            limit,
            pct,
        })
    }

    pub fn name(&self) -> String {
        let kind = match (self.bw, self.slope) {
            (false, false) => "iops",
            (false, true) => "iops_slope",
            (true, false) => "bw",
            (true, true) => "bw_slope",
        };
        format!("{kind}:{}{}", self.limit, if self.pct { "%" } else { "" })
    }

    /// fio's criterion of a full window of per-second values, and whether
    /// it is under the limit (steadystate.c: strictly under).
    pub fn holds(&self, window: &[f64]) -> bool {
        let n = window.len() as f64;
        if window.is_empty() {
            return false;
        }
        let mean = window.iter().sum::<f64>() / n;
        let figure = if self.slope {
            // x = 0..n-1, equally spaced, as fio assumes.
            let mean_x = (n - 1.0) / 2.0;
            let sxy: f64 = window
                .iter()
                .enumerate()
                .map(|(i, y)| (i as f64 - mean_x) * (y - mean))
                .sum();
            let sxx: f64 = (0..window.len()).map(|i| (i as f64 - mean_x).powi(2)).sum();
            if sxx == 0.0 { 0.0 } else { (sxy / sxx).abs() }
        } else {
            window.iter().map(|y| (y - mean).abs()).fold(0.0, f64::max)
        };
        let criterion = if self.pct {
            if mean <= 0.0 {
                return false;
            }
            100.0 * figure / mean
        } else {
            figure
        };
        criterion < self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_criteria() {
        let r = SteadyRule::parse("iops:10%").unwrap();
        assert_eq!(r.name(), "iops:10%");
        assert!(r.holds(&[100.0, 104.0, 96.0, 101.0]));
        assert!(!r.holds(&[100.0, 120.0, 96.0, 101.0]));
        let s = SteadyRule::parse("bw_slope:1%").unwrap();
        assert!(s.bw && s.slope);
        // Rising 5 a second around 100: 5 % of the mean, not under 1 %.
        assert!(!s.holds(&[90.0, 95.0, 100.0, 105.0, 110.0]));
        assert!(s.holds(&[100.0, 101.0, 99.0, 100.0, 100.0]));
        assert!(SteadyRule::parse("iops:0").is_err());
        assert!(SteadyRule::parse("lat:1%").is_err());
        assert!(SteadyRule::parse("iops").is_err());
    }
}
