//! Number and time formats shared by every table.

/// Latency in the unit that keeps 3-4 significant digits: ns, µs, ms or s.
pub fn latency(ns: f64) -> String {
    if ns < 1_000.0 {
        format!("{ns:.0} ns")
    } else if ns < 1_000_000.0 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1_000_000_000.0 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// A percentile's name, as every table heads it: `p50`, `p99.9`,
/// `p99.999`, from the percentile (99.9).
pub fn percentile_label(p: f64) -> String {
    format!("p{p}")
}

/// [`percentile_label`] of a stored key ("99.900000", as fio writes it).
pub fn percentile_key_label(key: &str) -> String {
    key.parse::<f64>()
        .map(percentile_label)
        .unwrap_or_else(|_| format!("p{key}"))
}

/// A rate with a precision that suits its size (CrystalDiskMark prints 3 decimals below 10).
pub fn rate(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

pub fn mb_per_sec(bytes_per_sec: f64) -> String {
    rate(bytes_per_sec / 1e6)
}

pub fn mib_per_sec(bytes_per_sec: f64) -> String {
    rate(bytes_per_sec / (1u64 << 20) as f64)
}

/// `2026-11-22 03:40:11 UTC` from Unix seconds (proleptic Gregorian, no leap seconds).
pub fn utc(unix_s: i64) -> String {
    let days = unix_s.div_euclid(86_400);
    let secs = unix_s.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

pub fn bytes_human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_named_alike_from_a_number_or_a_key() {
        assert_eq!(percentile_label(99.0), "p99");
        assert_eq!(percentile_label(99.999), "p99.999");
        assert_eq!(percentile_key_label("99.990000"), "p99.99");
        assert_eq!(percentile_key_label("50.000000"), "p50");
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_795_316_411), "2026-11-22 03:00:11 UTC");
    }

    #[test]
    fn latency_units() {
        assert_eq!(latency(850.0), "850 ns");
        assert_eq!(latency(12_345.0), "12.3 µs");
        assert_eq!(latency(3_850_000.0), "3.85 ms");
    }
}
