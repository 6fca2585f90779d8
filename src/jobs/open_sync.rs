//! Synchronous opens (fio's `sync=`): the setting on `Job`, its words and
//! the flag `open(2)` takes for it.

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
