//! One file per verb: each turns its arguments into library calls.

pub mod compare;
pub mod explain;
pub mod history;
pub mod import;
pub mod label;
pub mod mark;
pub mod report;
pub mod run;
pub mod run_file;
pub mod serve;
pub mod show;
pub mod suite;
pub mod sweep;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result};

use crate::cli::{Cli, Command, RunCommon, SuiteCommand, SuiteCommon};
use crate::report::export::Format;
use crate::runner::{RunOptions, StopFlag};
use crate::spec::price::Price;
use crate::store::{self, Store};
use crate::target::TargetOptions;

/// What every verb shares: where the database is and how to print.
pub struct Ctx {
    pub db: Option<PathBuf>,
    pub json: bool,
    pub quiet: bool,
}

impl Ctx {
    pub fn store(&self) -> Result<Store> {
        let (path, create_parent) = match &self.db {
            Some(p) => (p.clone(), false),
            None => (store::default_path(), true),
        };
        Ok(Store::open(&path, create_parent)?)
    }
}

/// Ctrl-C and SIGTERM set the flag instead of killing kura, so a run can
/// stop, store what it measured and remove its test files.
pub fn stop_flag() -> Result<StopFlag> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, stop.clone()).context("installing the Ctrl-C handler")?;
    }
    Ok(stop)
}

pub fn run_options(common: &RunCommon, quiet: bool) -> RunOptions {
    RunOptions {
        target: TargetOptions {
            allow_destroy: common.allow_destroy.clone(),
            stop: None,
        },
        keep: common.keep,
        quiet,
        label: common.label.clone(),
        price: common.price.clone(),
        ..RunOptions::default()
    }
}

/// `--runs`: how often each test of a suite runs.
pub fn parse_runs(text: &str) -> Result<u32> {
    text.parse()
        .ok()
        .filter(|n| (1..=1000).contains(n))
        .ok_or_else(|| anyhow::anyhow!("--runs: '{text}' is not valid: must be between 1 and 1000"))
}

/// Run options of a suite, and its repetitions.
pub fn suite_options(suite: &SuiteCommon, quiet: bool, name: &str) -> Result<(u32, RunOptions)> {
    let runs = parse_runs(&suite.runs)?;
    let mut opts = run_options(&suite.common, quiet);
    opts.pause = crate::spec::units::parse_duration(&suite.interval)
        .map_err(|e| anyhow::anyhow!("--interval: {e}"))?;
    opts.suite = Some(name.to_string());
    Ok((runs, opts))
}

/// `--format`, with `--json` meaning `--format json`; the two must not disagree.
pub fn output_format(ctx: &Ctx, format: Option<Format>) -> Result<Format> {
    match (ctx.json, format) {
        (true, Some(f)) if f != Format::Json => {
            anyhow::bail!("--json and --format {} disagree: give one of them", f.name())
        }
        (true, _) => Ok(Format::Json),
        (false, f) => Ok(f.unwrap_or(Format::Table)),
    }
}

/// The `--price` a verb was given, if any.
fn given_price(command: &Command) -> Option<&str> {
    match command {
        Command::Run(a) => a.common.price.as_deref(),
        Command::Mark(a) => a.common.price.as_deref(),
        Command::Sweep(a) => a.suite.common.price.as_deref(),
        Command::Suite(SuiteCommand::Tiobench(a)) => a.suite.common.price.as_deref(),
        Command::Suite(SuiteCommand::Bonnie(a)) => a.suite.common.price.as_deref(),
        Command::Label(a) => a.price.as_deref(),
        Command::Import(a) => match &a.source {
            crate::cli::ImportSource::Fio(f) => f.price.as_deref(),
        },
        _ => None,
    }
}

/// Runs the verb; the returned code is the process's exit code.
pub fn dispatch(cli: Cli) -> Result<i32> {
    // Checked before anything runs or is stored, so a typo costs no benchmark time.
    if let Some(price) = given_price(&cli.command) {
        Price::parse(price).map_err(|e| anyhow::anyhow!("--price: {e}"))?;
    }
    let ctx = Ctx {
        db: cli.db,
        json: cli.json,
        quiet: cli.quiet,
    };
    match cli.command {
        Command::Run(args) => run::run(&ctx, *args),
        Command::Explain(args) => explain::run(&ctx, args),
        Command::Mark(args) => mark::run(&ctx, args),
        Command::Sweep(args) => sweep::run(&ctx, args),
        Command::Suite(SuiteCommand::Tiobench(args)) => suite::tiobench(&ctx, args),
        Command::Suite(SuiteCommand::Bonnie(args)) => suite::bonnie(&ctx, args),
        Command::History(args) => history::run(&ctx, args),
        Command::Show(args) => show::run(&ctx, args),
        Command::Label(args) => label::run(&ctx, args),
        Command::Compare(args) => compare::run(&ctx, args),
        Command::Import(args) => import::run(&ctx, args),
        Command::Report(args) => report::run(&ctx, args),
        Command::Serve(args) => serve::run(&ctx, args),
    }
}
