//! Query strings, strictly: a malformed escape, invalid UTF-8 or an unknown
//! parameter is an error (the server answers 400), never silently dropped.

pub use crate::report::html::url_encode as encode;

/// The decoded `key=value` pairs of a query string, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query(pub Vec<(String, String)>);

impl Query {
    pub fn parse(raw: &str) -> Result<Query, String> {
        let mut pairs = Vec::new();
        for part in raw.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            pairs.push((decode(k)?, decode(v)?));
        }
        Ok(Query(pairs))
    }

    /// Fails on parameters outside `allowed`.
    pub fn only(&self, allowed: &[&str]) -> Result<(), String> {
        match self.0.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            Some((k, _)) if allowed.is_empty() => {
                Err(format!("unknown parameter '{k}': this page takes none"))
            }
            Some((k, _)) => Err(format!("unknown parameter '{k}' (known: {})", allowed.join(", "))),
            None => Ok(()),
        }
    }

    /// The one value of `key`; given twice is an error. An empty value counts as absent
    /// (an empty filter box).
    pub fn one(&self, key: &str) -> Result<Option<&str>, String> {
        let mut found = self.0.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str());
        match (found.next(), found.next()) {
            (Some(_), Some(_)) => Err(format!("parameter '{key}' given more than once")),
            (Some(v), None) if !v.is_empty() => Ok(Some(v)),
            _ => Ok(None),
        }
    }

    pub fn all(&self, key: &str) -> impl Iterator<Item = &str> {
        self.0
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Encodes the pairs back, without `?`.
    pub fn encode(&self) -> String {
        self.0
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// Percent-decoding with `+` as space (HTML forms send that).
pub fn decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("malformed percent escape in '{s}'"))?;
                out.push(hex);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| format!("'{s}' is not UTF-8 once decoded"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_forms() {
        let q = Query::parse("label=NAS+A&suite=mark%3Adefault&run=1&run=2&empty=").unwrap();
        assert_eq!(q.one("label").unwrap(), Some("NAS A"));
        assert_eq!(q.one("suite").unwrap(), Some("mark:default"));
        assert_eq!(q.one("empty").unwrap(), None);
        assert_eq!(q.all("run").collect::<Vec<_>>(), ["1", "2"]);
        assert!(q.one("run").is_err());
        assert!(q.only(&["label", "suite", "run", "empty"]).is_ok());
        assert!(q.only(&["label"]).unwrap_err().contains("suite"));
    }

    #[test]
    fn rejects_malformed_escapes() {
        assert!(Query::parse("a=%zz").is_err());
        assert!(Query::parse("a=%4").is_err());
        assert!(Query::parse("a=%ff").is_err());
    }

    proptest! {
        #[test]
        fn encoding_round_trips(s in ".*") {
            prop_assert_eq!(decode(&encode(&s)).unwrap(), s);
        }
    }
}
