//! Minimum rates (fio's `rate_min`, `rate_iops_min`): the setting on `Job`
//! and the `R,W` per-direction text it is read from and written as.

use serde::{Deserialize, Serialize};

/// fio's `rate_min` and `rate_iops_min`: each thread, checked every second
/// after a two-second settling time, fails when a direction falls below
/// its minimum (fio's `__check_min_rate` in backend.c, fio 3.33).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateMin {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_iops: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_iops: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_bytes_per_sec: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_bytes_per_sec: Option<u64>,
}

impl RateMin {
    pub fn is_empty(&self) -> bool {
        *self == RateMin::default()
    }
}

/// `R,W` as fio writes per-direction values: `100` sets both, `100,` reads
/// only, `,100` writes only; a third (trim) value is ignored.
pub fn parse_per_dir(
    text: &str,
    mut one: impl FnMut(&str) -> Result<u64, String>,
) -> Result<(Option<u64>, Option<u64>), String> {
    let parts: Vec<&str> = text.split(',').collect();
    let mut opt = |p: &str| -> Result<Option<u64>, String> {
        if p.trim().is_empty() {
            Ok(None)
        } else {
            one(p.trim()).map(|n| (n > 0).then_some(n))
        }
    };
    match parts.as_slice() {
        [both] => {
            let v = opt(both)?;
            Ok((v, v))
        }
        [r, w] | [r, w, _] => Ok((opt(r)?, opt(w)?)),
        _ => Err("at most three values: read,write,trim".into()),
    }
}

/// `R,W` back from two values; `None` when neither is set.
pub fn per_dir_text(read: Option<u64>, write: Option<u64>, show: impl Fn(u64) -> String) -> Option<String> {
    match (read, write) {
        (None, None) => None,
        (Some(r), Some(w)) if r == w => Some(show(r)),
        (r, w) => Some(format!(
            "{},{}",
            r.map(&show).unwrap_or_default(),
            w.map(&show).unwrap_or_default()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_direction_values_split_as_fio_splits_them() {
        let n = |t: &str| t.parse::<u64>().map_err(|e| e.to_string());
        assert_eq!(parse_per_dir("5", n).unwrap(), (Some(5), Some(5)));
        assert_eq!(parse_per_dir("5,", n).unwrap(), (Some(5), None));
        assert_eq!(parse_per_dir(",7", n).unwrap(), (None, Some(7)));
        assert_eq!(parse_per_dir("1,2,3", n).unwrap(), (Some(1), Some(2)));
        assert_eq!(per_dir_text(Some(5), None, |n| n.to_string()).unwrap(), "5,");
        assert_eq!(per_dir_text(Some(5), Some(5), |n| n.to_string()).unwrap(), "5");
    }
}
