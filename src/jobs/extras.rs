//! Job settings that fio job files brought in (issue 17): synchronous opens,
//! a written byte pattern and minimum rates, with their text forms. The
//! fields are on `Job`; the reading and writing of their values is here.

use serde::{Deserialize, Serialize};

/// fio's `sync=`: writes open with O_SYNC or O_DSYNC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpenSync {
    /// O_SYNC: each write returns once its data and metadata are durable.
    Sync,
    /// O_DSYNC: each write returns once its data is durable.
    Dsync,
}

/// The words `open_sync` takes.
pub const OPEN_SYNC_WORDS: &[&str] = &["none", "sync", "dsync"];

impl OpenSync {
    pub fn name(this: Option<OpenSync>) -> &'static str {
        match this {
            None => "none",
            Some(OpenSync::Sync) => "sync",
            Some(OpenSync::Dsync) => "dsync",
        }
    }

    pub fn parse(word: &str) -> Result<Option<OpenSync>, String> {
        match word.trim().to_ascii_lowercase().as_str() {
            "none" | "0" => Ok(None),
            "sync" | "1" => Ok(Some(OpenSync::Sync)),
            "dsync" => Ok(Some(OpenSync::Dsync)),
            t => Err(format!("'{t}' is not none, sync or dsync")),
        }
    }

    /// The flag `open(2)` takes.
    pub fn flag(this: Option<OpenSync>) -> libc::c_int {
        match this {
            None => 0,
            Some(OpenSync::Sync) => libc::O_SYNC,
            Some(OpenSync::Dsync) => libc::O_DSYNC,
        }
    }
}

/// The longest pattern taken: fio's limit (`MAX_PATTERN_SIZE`, 512 bytes).
pub const MAX_PATTERN: usize = 512;

/// Reads a byte pattern as fio's `buffer_pattern` writes it: `0x` hex
/// digits and `"quoted text"`, in any order and number (`0xdead"ab"`).
/// fio's decimal numbers and `'file'` parts are refused.
pub fn parse_pattern(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err("an empty pattern".into());
    }
    while !rest.is_empty() {
        if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            let end = hex.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(hex.len());
            let digits = &hex[..end];
            if digits.is_empty() {
                return Err("0x without hex digits".into());
            }
            // An odd count has a leading zero nibble, as fio reads it.
            let padded = if digits.len() % 2 == 1 {
                format!("0{digits}")
            } else {
                digits.to_string()
            };
            for pair in padded.as_bytes().chunks(2) {
                let s = std::str::from_utf8(pair).unwrap_or("00");
                out.push(u8::from_str_radix(s, 16).map_err(|e| e.to_string())?);
            }
            rest = &hex[end..];
        } else if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted
                .find('"')
                .ok_or("a quoted part without its closing quote")?;
            out.extend_from_slice(&quoted.as_bytes()[..end]);
            rest = &quoted[end + 1..];
        } else if rest.starts_with('\'') {
            return Err("unsupported: a pattern read from a file ('name')".into());
        } else {
            return Err(
                "unsupported: only 0xHEX and \"text\" parts (fio's decimal numbers and 'files' are not taken)"
                    .into(),
            );
        }
        rest = rest.trim_start();
    }
    if out.is_empty() {
        return Err("an empty pattern".into());
    }
    if out.len() > MAX_PATTERN {
        return Err(format!("longer than {MAX_PATTERN} bytes"));
    }
    Ok(out)
}

/// The pattern as kura stores it: `0x` and its bytes in hex.
pub fn pattern_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 + bytes.len() * 2);
    s.push_str("0x");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Fills `buf` with `pattern` repeated from its first byte.
pub fn fill_pattern(buf: &mut [u8], pattern: &[u8]) {
    if pattern.is_empty() {
        return;
    }
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pattern[i % pattern.len()];
    }
}

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
    fn patterns_read_as_fio_writes_them() {
        assert_eq!(parse_pattern("0xdeadbeef").unwrap(), vec![0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(parse_pattern("0xabc").unwrap(), vec![0x0a, 0xbc]);
        assert_eq!(parse_pattern("\"ab\"0x01").unwrap(), vec![b'a', b'b', 1]);
        assert!(parse_pattern("-12").unwrap_err().contains("unsupported"));
        assert!(parse_pattern("'file'").unwrap_err().contains("unsupported"));
        assert!(parse_pattern("\"ab").is_err());
        assert_eq!(pattern_hex(&[0xde, 0xad]), "0xdead");
        let mut buf = [0u8; 5];
        fill_pattern(&mut buf, &[1, 2]);
        assert_eq!(buf, [1, 2, 1, 2, 1]);
    }

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
