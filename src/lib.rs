//! kura: storage benchmarks with honest numbers.
//! Data flows one way: jobs -> runner -> worker (workload + engine) ->
//! metrics -> store -> report.

pub mod bonnie;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod database;
pub mod engine;
pub mod fileset;
pub mod i18n;
pub mod import;
pub mod io_text;
pub mod jobs;
pub mod metrics;
pub mod report;
pub mod runner;
pub mod store;
pub mod targets;
pub mod worker;
pub mod workload;
