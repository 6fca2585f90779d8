//! One file per verb: each turns its arguments into library calls.

pub mod explain;
pub mod history;
pub mod label;
pub mod mark;
pub mod run;
pub mod run_file;
pub mod show;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result};

use crate::cli::{Cli, Command, RunCommon};
use crate::runner::{RunOptions, StopFlag};
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
        },
        keep: common.keep,
        quiet,
        label: common.label.clone(),
        price: common.price.clone(),
        ..RunOptions::default()
    }
}

/// Runs the verb; the returned code is the process's exit code.
pub fn dispatch(cli: Cli) -> Result<i32> {
    let ctx = Ctx {
        db: cli.db,
        json: cli.json,
        quiet: cli.quiet,
    };
    match cli.command {
        Command::Run(args) => run::run(&ctx, *args),
        Command::Explain(args) => explain::run(&ctx, args),
        Command::Mark(args) => mark::run(&ctx, args),
        Command::History(args) => history::run(&ctx, args),
        Command::Show(args) => show::run(&ctx, args),
        Command::Label(args) => label::run(&ctx, args),
    }
}
