//! The kinds of operation a job does and its result counts separately.

use serde::{Deserialize, Serialize};

/// A kind of operation a job counts separately: block I/O, file-set and
/// metadata operations, SQL. Stored by its lowercase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Read,
    Write,
    Trim,
    Fsync,
    Create,
    Open,
    Stat,
    Setattr,
    Readdir,
    Rename,
    Delete,
    Mkdir,
    Rmdir,
    Query,
    Transaction,
    // File sets.
    Close,
    Lookup,
    /// A database commit (the db kind): where a database waits for its fsyncs.
    Commit,
}

impl OpKind {
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Trim => "trim",
            OpKind::Fsync => "fsync",
            OpKind::Create => "create",
            OpKind::Open => "open",
            OpKind::Stat => "stat",
            OpKind::Setattr => "setattr",
            OpKind::Readdir => "readdir",
            OpKind::Rename => "rename",
            OpKind::Delete => "delete",
            OpKind::Mkdir => "mkdir",
            OpKind::Rmdir => "rmdir",
            OpKind::Query => "query",
            OpKind::Transaction => "transaction",
            OpKind::Close => "close",
            OpKind::Lookup => "lookup",
            OpKind::Commit => "commit",
        }
    }
}
