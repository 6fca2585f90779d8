//! kura: storage benchmarks with honest numbers.
//! Data flows one way: spec -> runner -> worker (workload + engine) ->
//! metrics -> store -> report.

pub mod cli;
pub mod commands;
pub mod engine;
pub mod fsops;
pub mod import;
pub mod metrics;
pub mod report;
pub mod runner;
pub mod spec;
pub mod store;
pub mod target;
pub mod worker;
pub mod workload;
