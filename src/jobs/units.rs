//! Sizes, durations and rates as users write them, parsed into fixed units
//! (bytes, nanoseconds). k/m/g/t are 1024-based like fio; kb/mb/gb/tb are
//! 1000-based, because storage vendors quote both and users copy both.

use std::time::Duration;

use thiserror::Error;

#[derive(Debug, Error, PartialEq)]
pub enum UnitError {
    #[error("'{0}' is not a size (examples: 4096, 4k, 1m, 1g, 500mb)")]
    Size(String),
    #[error("'{0}' is not a duration (examples: 500ms, 10s, 2m, 1h; a bare number is seconds)")]
    Duration(String),
    #[error("'{0}' is too large")]
    Overflow(String),
}

/// Parses a byte size: `4096`, `4k`, `4KiB`, `1g`, `500mb` (10^6).
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    if num.is_empty() {
        return Err(UnitError::Size(text.to_string()));
    }
    let multiplier: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => return Err(UnitError::Size(text.to_string())),
    };
    if num.contains('.') {
        let value: f64 = num.parse().map_err(|_| UnitError::Size(text.to_string()))?;
        let bytes = value * multiplier as f64;
        if !bytes.is_finite() || bytes >= u64::MAX as f64 {
            return Err(UnitError::Overflow(text.to_string()));
        }
        if bytes.fract() != 0.0 {
            return Err(UnitError::Size(text.to_string()));
        }
        return Ok(bytes as u64);
    }
    let value: u64 = num.parse().map_err(|_| UnitError::Overflow(text.to_string()))?;
    value
        .checked_mul(multiplier)
        .ok_or_else(|| UnitError::Overflow(text.to_string()))
}

/// Parses a duration: `500ms`, `10s`, `2m`, `1h`, `30` (seconds), `250us`.
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| UnitError::Duration(text.to_string()))?;
    let seconds_per_unit = match suffix.to_ascii_lowercase().as_str() {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" => 1e-6,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(UnitError::Duration(text.to_string())),
    };
    let secs = value * seconds_per_unit;
    if !secs.is_finite() || secs > 366.0 * 86400.0 {
        return Err(UnitError::Overflow(text.to_string()));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Formats bytes the way kura prints sizes: the largest exact 1024 unit.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(1 << 40, "t"), (1 << 30, "g"), (1 << 20, "m"), (1 << 10, "k")];
    for (unit, name) in UNITS {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{}{}", bytes / unit, name);
        }
    }
    bytes.to_string()
}

/// Formats a duration in the largest unit that keeps it exact.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if !d.as_nanos().is_multiple_of(1_000_000) {
        format!("{}us", d.as_micros())
    } else if ms.is_multiple_of(3_600_000) && ms > 0 {
        format!("{}h", ms / 3_600_000)
    } else if ms.is_multiple_of(60_000) && ms > 0 {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_both_bases() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("1m"), Ok(1 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("2t"), Ok(2 << 40));
        assert_eq!(parse_size("500mb"), Ok(500_000_000));
        assert_eq!(parse_size("4kib"), Ok(4096));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert!(parse_size("4x").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("k").is_err());
        assert!(parse_size("99999999999999999999").is_err());
        assert!(parse_size("99999999t").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert!(parse_duration("1d").is_err());
        assert!(parse_duration("fast").is_err());
    }

    #[test]
    fn format_round_trips() {
        for s in ["4k", "1m", "1g", "512", "3t"] {
            assert_eq!(format_size(parse_size(s).unwrap()), s);
        }
        for s in ["10s", "500ms", "2m", "1h"] {
            assert_eq!(format_duration(parse_duration(s).unwrap()), s);
        }
    }
}
