//! The figure a job repeated in rounds tracks until steady (`until_steady`).

use serde::{Deserialize, Serialize};

/// The variable tracked from round to round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tracked {
    Iops,
    /// Bytes per second.
    Bw,
    /// Mean latency, nanoseconds.
    Lat,
}

impl Tracked {
    pub fn parse(text: &str) -> Option<Tracked> {
        match text.trim().to_ascii_lowercase().as_str() {
            "iops" => Some(Tracked::Iops),
            "bw" | "bandwidth" => Some(Tracked::Bw),
            "lat" | "latency" => Some(Tracked::Lat),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Tracked::Iops => "iops",
            Tracked::Bw => "bw",
            Tracked::Lat => "lat",
        }
    }
    pub fn unit(self) -> &'static str {
        match self {
            Tracked::Iops => "IOPS",
            Tracked::Bw => "MB/s",
            Tracked::Lat => "µs",
        }
    }
}
