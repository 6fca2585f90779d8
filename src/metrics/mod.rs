//! Measurement: latency histograms, per-direction counters, the interval
//! series, and the result types that every report is rendered from.

pub mod changes;
pub mod cluster;
pub mod collect;
pub mod device_io;
pub mod fio_bins;
pub mod histogram;
pub mod latency_bound;
pub mod repeats;
pub mod result;
pub mod sink;
pub mod steady;
pub mod warning;
mod warning_examples;

pub use result::*;
pub use warning::{VerifyMismatch, Warning};
