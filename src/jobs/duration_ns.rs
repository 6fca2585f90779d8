//! Durations in JSON as whole nanoseconds under a `*_ns` key, as every other
//! unit is in its field name. Runs stored before that hold serde's
//! `{"secs": S, "nanos": N}` under the bare key; both read.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serializer};

#[derive(Deserialize)]
#[serde(untagged)]
enum Stored {
    Ns(u64),
    Old { secs: u64, nanos: u32 },
}

impl From<Stored> for Duration {
    fn from(s: Stored) -> Duration {
        match s {
            Stored::Ns(ns) => Duration::from_nanos(ns),
            Stored::Old { secs, nanos } => Duration::new(secs, nanos),
        }
    }
}

/// Nanoseconds as u64: 584 years, far beyond any runtime a job can have.
fn ns(d: &Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(ns(d))
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    Stored::deserialize(d).map(Duration::from)
}

/// The same for an optional duration (`null` when not set).
pub mod option {
    use super::*;

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&ns(d)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<Stored>::deserialize(d)?.map(Duration::from))
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};
    use std::time::Duration;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct T {
        #[serde(rename = "runtime_ns", alias = "runtime", with = "super::option")]
        runtime: Option<Duration>,
        #[serde(rename = "ramp_ns", alias = "ramp", with = "super")]
        ramp: Duration,
    }

    #[test]
    fn written_as_ns_and_read_in_both_shapes() {
        let t = T {
            runtime: Some(Duration::from_millis(1500)),
            ramp: Duration::ZERO,
        };
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, r#"{"runtime_ns":1500000000,"ramp_ns":0}"#);
        assert_eq!(serde_json::from_str::<T>(&json).unwrap(), t);
        let old = r#"{"runtime":{"secs":1,"nanos":500000000},"ramp":{"secs":0,"nanos":0}}"#;
        assert_eq!(serde_json::from_str::<T>(old).unwrap(), t);
        let none = r#"{"runtime":null,"ramp_ns":0}"#;
        assert_eq!(serde_json::from_str::<T>(none).unwrap().runtime, None);
    }
}
