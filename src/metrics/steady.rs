//! Steady state as the SNIA Solid State Storage Performance Test
//! Specification (PTS) 2.0.2 defines it, on the rounds of a job: over a
//! measurement window of the last 5 rounds, the tracked variable y must
//! have (a) a range, max(y) - min(y), of no more than 20 % of the window's
//! average, and (b) a best linear fit whose excursion across the window
//! (its max minus its min) is within 10 % of that average. Both must hold.
//! Pure: the rounds' values in, a verdict out.

use serde::{Deserialize, Serialize};

use super::JobResult;

/// Rounds in the PTS's measurement window.
pub const WINDOW: usize = 5;
/// The PTS's limits: range within 20 % and fitted excursion within 10 % of the average.
pub const MAX_RANGE_PCT: f64 = 20.0;
pub const MAX_SLOPE_PCT: f64 = 10.0;
/// Rounds after which a job that is not steady stops (the PTS's 25).
pub const MAX_ROUNDS: u32 = 25;

pub use crate::jobs::Tracked;

/// A round's value of the tracked variable, in its unit.
pub fn value_of(tracked: Tracked, r: &JobResult) -> f64 {
    let dirs: Vec<_> = r.directions().map(|(_, d)| d).collect();
    match tracked {
        Tracked::Iops => dirs.iter().map(|d| d.iops).sum(),
        Tracked::Bw => dirs.iter().map(|d| d.bytes_per_sec).sum::<f64>() / 1e6,
        Tracked::Lat => {
            let ops: u64 = dirs.iter().map(|d| d.ops).sum();
            let weighted: f64 = dirs.iter().map(|d| d.lat_ns.mean * d.ops as f64).sum();
            if ops > 0 { weighted / ops as f64 / 1e3 } else { 0.0 }
        }
    }
}

/// The PTS's two figures over the window of the last rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// First and last round of the window, counted from 1.
    pub first_round: u32,
    pub last_round: u32,
    pub average: f64,
    /// max - min, in percent of the average.
    pub range_pct: f64,
    /// The fitted line's excursion across the window, in percent of the average.
    pub slope_pct: f64,
}

impl Window {
    pub fn steady(&self) -> bool {
        self.range_pct <= MAX_RANGE_PCT && self.slope_pct <= MAX_SLOPE_PCT
    }
}

/// The window of the last `WINDOW` rounds; `None` until there are as many.
pub fn window(values: &[f64]) -> Option<Window> {
    let n = values.len();
    if n < WINDOW {
        return None;
    }
    let w = &values[n - WINDOW..];
    let average = w.iter().sum::<f64>() / WINDOW as f64;
    let (min, max) = w.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(*v), hi.max(*v))
    });
    let (slope, _, _) = super::changes::least_squares(w);
    let pct = |x: f64| {
        if average > 0.0 {
            x / average * 100.0
        } else {
            // Nothing moved (every round failed): never steady, and finite for JSON.
            f64::MAX
        }
    };
    Some(Window {
        first_round: (n - WINDOW + 1) as u32,
        last_round: n as u32,
        average,
        range_pct: pct(max - min),
        slope_pct: pct((slope * (WINDOW - 1) as f64).abs()),
    })
}

/// What the rounds of a job came to, stored with the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rounds {
    pub tracked: Tracked,
    /// The tracked value of every round, in order.
    pub values: Vec<f64>,
    /// The last window judged; `None` when fewer than 5 rounds ran.
    pub window: Option<Window>,
    pub steady: bool,
}

pub fn rounds_text(r: &Rounds) -> String {
    let unit = r.tracked.unit();
    match (&r.window, r.steady) {
        (Some(w), true) => crate::t!(
            "steady-reached",
            first = w.first_round,
            last = w.last_round,
            unit = unit,
            average = format!("{:.1}", w.average),
            range = format!("{:.1}", w.range_pct),
            slope = format!("{:.1}", w.slope_pct)
        ),
        (Some(w), false) => crate::t!(
            "steady-not-reached",
            rounds = r.values.len(),
            first = w.first_round,
            last = w.last_round,
            unit = unit,
            range = format!("{:.1}", w.range_pct),
            slope = format!("{:.1}", w.slope_pct)
        ),
        (None, _) => crate::t!("steady-too-few", rounds = r.values.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_rounds_are_steady_at_the_fifth() {
        assert!(window(&[100.0, 101.0, 99.0, 100.0]).is_none());
        let w = window(&[100.0, 101.0, 99.0, 100.0, 100.0]).unwrap();
        assert!(w.steady(), "{w:?}");
        assert_eq!((w.first_round, w.last_round), (1, 5));
    }

    #[test]
    fn a_falling_series_fails_the_slope_before_the_range() {
        // 4 % a round: a range of 16 % passes, an excursion of 16 % does not.
        let w = window(&[100.0, 96.0, 92.0, 88.0, 84.0]).unwrap();
        assert!(w.range_pct <= MAX_RANGE_PCT, "{w:?}");
        assert!(w.slope_pct > MAX_SLOPE_PCT, "{w:?}");
        assert!(!w.steady());
    }

    #[test]
    fn a_wide_but_level_window_fails_the_range() {
        let w = window(&[100.0, 80.0, 120.0, 80.0, 100.0]).unwrap();
        assert!(w.slope_pct <= MAX_SLOPE_PCT, "{w:?}");
        assert!(w.range_pct > MAX_RANGE_PCT, "{w:?}");
        assert!(!w.steady());
    }

    #[test]
    fn the_window_is_the_last_five() {
        let w = window(&[500.0, 300.0, 100.0, 101.0, 99.0, 100.0, 100.0]).unwrap();
        assert_eq!((w.first_round, w.last_round), (3, 7));
        assert!(w.steady());
    }
}
