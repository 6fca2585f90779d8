//! vdbench's text: logical lines (continuations, includes), parameters,
//! entries, numbers, wildcards and abbreviated keywords.

use std::path::Path;

use crate::jobs::reading::{FormatError, IncludeBudget, Loc, Sources, join_normalized};

#[derive(Debug, Clone)]
pub(super) struct Param {
    pub(super) key: String,
    pub(super) value: String,
    pub(super) loc: Loc,
    pub(super) value_loc: Loc,
}

impl Param {
    pub(super) fn err(&self, why: impl std::fmt::Display) -> FormatError {
        self.value_loc
            .error(format!("{}={}: {why}", self.key, self.value))
    }

    /// The values: `(a,b,c)` or a single one.
    pub(super) fn items(&self) -> Result<Vec<String>, FormatError> {
        let v = self.value.trim();
        let inner = match v.strip_prefix('(') {
            Some(rest) => rest
                .strip_suffix(')')
                .ok_or_else(|| self.err("unmatched parenthesis"))?,
            None => return Ok(vec![v.to_string()]),
        };
        let mut items = Vec::new();
        let mut depth = 0;
        let mut current = String::new();
        for c in inner.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(c);
        }
        items.push(current);
        let items: Vec<String> = items.into_iter().map(|s| s.trim().to_string()).collect();
        if items.iter().any(|s| s.is_empty()) {
            return Err(self.err("empty value in the list"));
        }
        Ok(items)
    }

    pub(super) fn single(&self) -> Result<String, FormatError> {
        let items = self.items()?;
        match items.as_slice() {
            [one] => Ok(one.clone()),
            _ => Err(self.err("expects one value")),
        }
    }

    pub(super) fn number(&self) -> Result<f64, FormatError> {
        number(&self.key, &self.single()?).map_err(|w| self.err(w))
    }

    pub(super) fn numbers(&self) -> Result<Vec<f64>, FormatError> {
        self.items()?
            .iter()
            .map(|i| number(&self.key, i).map_err(|w| self.err(w)))
            .collect()
    }

    pub(super) fn pct(&self) -> Result<f64, FormatError> {
        let n = self.number()?;
        if !(0.0..=100.0).contains(&n) {
            return Err(self.err(format!("{n} is not a percentage 0-100")));
        }
        Ok(n)
    }

    pub(super) fn whole(&self, min: f64, max: f64) -> Result<u64, FormatError> {
        let n = self.number()?;
        if n.fract() != 0.0 || n < min || n > max {
            return Err(self.err(format!("expected a whole number from {min} to {max}")));
        }
        Ok(n as u64)
    }
}

pub(super) fn is_time_key(key: &str) -> bool {
    ["el", "in", "pa", "wa"].iter().any(|p| key.starts_with(p))
}

/// vdbench's numbers: decimals, `k m g t` as powers of 1024 (an optional `b`
/// after them), `h` for hours; for times `m` means minutes.
pub(super) fn number(key: &str, text: &str) -> Result<f64, String> {
    let t = text.trim().to_ascii_lowercase();
    if let Ok(n) = t.parse::<f64>() {
        return if n.is_finite() {
            Ok(n)
        } else {
            Err(format!("'{text}' is not a number"))
        };
    }
    let t = if t.len() > 2 && t.ends_with('b') {
        &t[..t.len() - 1]
    } else {
        &t[..]
    };
    let mut chars = t.chars();
    let tail = chars.next_back().map(String::from).unwrap_or_default();
    let front = chars.as_str();
    let mult = match tail.as_str() {
        "k" => 1024.0,
        "m" if is_time_key(key) => 60.0,
        "m" => 1024.0 * 1024.0,
        "g" => 1024.0 * 1024.0 * 1024.0,
        "t" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "h" => 3600.0,
        "s" if is_time_key(key) => 1.0,
        _ => return Err(format!("'{text}' is not a number (examples: 8192, 4k, 1m, 2g)")),
    };
    front
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite())
        .map(|n| n * mult)
        .ok_or_else(|| format!("'{text}' is not a number (examples: 8192, 4k, 1m, 2g)"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    General,
    Hd,
    Sd,
    Wd,
    Rd,
    Fsd,
    Fwd,
    Rg,
}

impl Kind {
    fn of(key: &str) -> Option<Kind> {
        Some(match key {
            "hd" => Kind::Hd,
            "sd" => Kind::Sd,
            "wd" => Kind::Wd,
            "rd" => Kind::Rd,
            "fsd" => Kind::Fsd,
            "fwd" => Kind::Fwd,
            "rg" => Kind::Rg,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) kind: Kind,
    pub(super) name: String,
    pub(super) loc: Loc,
    pub(super) params: Vec<Param>,
}

/// One logical line: its text and where each byte came from.
pub(super) struct Logical {
    pub(super) text: String,
    pub(super) at: Vec<(usize, usize)>,
}

pub(super) fn lex(
    text: &str,
    file: &str,
    sources: &Sources,
    base: &Path,
    budget: &mut IncludeBudget,
    nested: bool,
) -> Result<Vec<Logical>, FormatError> {
    let mut out = Vec::new();
    let mut pending: Option<Logical> = None;
    for (i, raw) in text.lines().enumerate() {
        let lead = raw.len() - raw.trim_start().len();
        let trimmed = raw.trim();
        if trimmed.starts_with("eof") {
            break;
        }
        if trimmed.is_empty() || trimmed.starts_with(['/', '#', '*']) {
            continue;
        }
        let loc = Loc {
            file: file.to_string(),
            line: i + 1,
            column: lead + 1,
        };
        if let Some(name) = trimmed.strip_prefix("include=") {
            if nested {
                return Err(loc.error("include= inside an included file (vdbench does not allow it)"));
            }
            let name = name.split_whitespace().next().unwrap_or("");
            let path = join_normalized(base.parent().unwrap_or(Path::new("")), name);
            let key = path.display().to_string();
            budget.open(&loc)?;
            let inc = (sources.read)(&path)
                .map_err(|e| loc.error(format!("cannot read included file {key}: {e}")))?;
            budget.charge(&loc, &key, &inc)?;
            out.extend(lex(&inc, &key, sources, &path, budget, true)?);
            continue;
        }
        // vdbench ends a line at its first blank outside quotes; what follows is a comment.
        let mut kept = String::new();
        let mut at = Vec::new();
        let mut quoted = false;
        for (col, (offset, c)) in raw
            .char_indices()
            .enumerate()
            .skip_while(|(_, (_, c))| c.is_whitespace())
        {
            let _ = offset;
            if c == '"' {
                quoted = !quoted;
                continue;
            }
            if c.is_whitespace() && !quoted {
                break;
            }
            for _ in 0..c.len_utf8() {
                at.push((i + 1, col + 1));
            }
            kept.push(c);
        }
        if quoted {
            return Err(loc.error("unmatched quote"));
        }
        match &mut pending {
            Some(p) => {
                p.text.push_str(&kept);
                p.at.extend(at);
            }
            None => pending = Some(Logical { text: kept, at }),
        }
        if !pending.as_ref().is_some_and(|p| p.text.ends_with(',')) {
            out.extend(pending.take());
        }
    }
    out.extend(pending.take());
    Ok(out)
}

pub(super) fn split_params(line: &Logical, file: &str) -> Result<Vec<Param>, FormatError> {
    let loc_at = |byte: usize| {
        let (line_no, column) = line
            .at
            .get(byte.min(line.at.len().saturating_sub(1)))
            .copied()
            .unwrap_or((0, 1));
        Loc {
            file: file.to_string(),
            line: line_no,
            column,
        }
    };
    let mut params = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = line.text.as_bytes();
    for i in 0..=bytes.len() {
        let c = bytes.get(i).copied();
        match c {
            Some(b'(') => depth += 1,
            Some(b')') => {
                depth -= 1;
                if depth < 0 {
                    return Err(loc_at(i).error("unmatched parenthesis"));
                }
            }
            Some(b',') if depth == 0 => {}
            None => {}
            _ => continue,
        }
        if c.is_some() && c != Some(b',') {
            continue;
        }
        if c.is_none() && depth > 0 {
            return Err(loc_at(start).error("unmatched parenthesis"));
        }
        let piece = &line.text[start..i];
        if !piece.is_empty() {
            let Some((key, value)) = piece.split_once('=') else {
                return Err(loc_at(start).error("expected keyword=value"));
            };
            let key = key.to_ascii_lowercase();
            if !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(
                    loc_at(start).error("expected keyword=value, where a keyword is letters, digits and _")
                );
            }
            if key.len() < 2 {
                return Err(loc_at(start).error(format!(
                    "keyword '{key}' is too short (vdbench needs at least 2 characters)"
                )));
            }
            if value.is_empty() {
                return Err(loc_at(start).error(format!("{key}= has no value")));
            }
            params.push(Param {
                key,
                value: value.to_string(),
                loc: loc_at(start),
                value_loc: loc_at(start + piece.find('=').unwrap_or(0) + 1),
            });
        }
        start = i + 1;
    }
    Ok(params)
}

/// Groups parameters into entries: an entry starts at `sd=`, `wd=`, ... and
/// takes every parameter until the next one starts, as vdbench's scanner does.
pub(super) fn entries(lines: &[Logical], file: &str) -> Result<Vec<Entry>, FormatError> {
    let mut out: Vec<Entry> = Vec::new();
    for line in lines {
        for p in split_params(line, file)? {
            // `sd=` inside a wd, `wd=` inside an rd, ... name what the entry uses.
            let reference = match out.last().map(|e| e.kind) {
                Some(Kind::Wd) => p.key == "sd",
                Some(Kind::Rd) => matches!(p.key.as_str(), "wd" | "sd" | "fsd" | "fwd"),
                Some(Kind::Fwd) => p.key == "fsd",
                _ => false,
            };
            match Kind::of(&p.key).filter(|_| !reference) {
                Some(kind) => {
                    let name = p.single()?;
                    out.push(Entry {
                        kind,
                        name,
                        loc: p.loc.clone(),
                        params: Vec::new(),
                    });
                }
                None => match out.last_mut() {
                    Some(e) => e.params.push(p),
                    None => out.push(Entry {
                        kind: Kind::General,
                        name: String::new(),
                        loc: p.loc.clone(),
                        params: vec![p],
                    }),
                },
            }
        }
    }
    // General parameters must come first; merge the ones that did.
    Ok(out)
}

/// vdbench's wildcard: `*` matches any run of characters.
pub(super) fn wildcard(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len()).any(|i| tail.is_char_boundary(i) && wildcard(rest, &tail[i..]))
        }
    }
}

/// Which of `keywords` the (possibly abbreviated) key names; vdbench tries them in order.
pub(super) fn which<'a>(key: &str, keywords: &[&'a str]) -> Option<&'a str> {
    keywords.iter().copied().find(|k| k.starts_with(key))
}
