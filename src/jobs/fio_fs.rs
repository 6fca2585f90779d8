//! fio's file-operation engines translated into file-set jobs
//! (`jobs::fileset`), as fio 3.33's HOWTO describes them (engines
//! `filecreate`, `filestat`, `filedelete`, `dircreate`, `dirdelete`):
//! each of `numjobs` clones works on `nrfiles` files (or directories) in
//! `directory`, once, and fio reports the rate of the one operation.
//!
//! kura's job: a file set in `directory` of one directory level 0 (every
//! file in the set's root, `DIR/kura-fileset`), `nrfiles x numjobs` files,
//! threads = numjobs, and phases: filecreate `phases:create` (empty files:
//! fio does no I/O to them), filestat `phases:getattr` and filedelete
//! `phases:delete` on files laid out first with `filesize` bytes (as fio
//! lays them out), dircreate `phases:mkdir`, dirdelete `phases:mkdir,rmdir`
//! (fio makes the directories first; kura times and shows that phase too).
//! `openfiles` has no effect: kura holds one file open at a time.

use super::Job;
use super::fileset::FileSizes;
use super::options::{Opt, Value};
use super::reading::{FormatError, Loc};

/// The fio engines this module translates.
pub const ENGINES: [&str; 5] = ["filecreate", "filestat", "filedelete", "dircreate", "dirdelete"];

/// What a fio job with a file engine names.
pub struct FileEngineJob<'a> {
    pub name: &'a str,
    pub engine: &'a str,
    pub directory: Option<&'a str>,
    pub nrfiles: u64,
    pub numjobs: u64,
    pub filesize: Option<u64>,
    pub header: &'a Loc,
}

pub fn job(f: &FileEngineJob<'_>, notes: &mut Vec<String>) -> Result<Job, FormatError> {
    let phases = match f.engine {
        "filecreate" => "phases:create",
        "filestat" => "phases:getattr",
        "filedelete" => "phases:delete",
        "dircreate" => "phases:mkdir",
        "dirdelete" => "phases:mkdir,rmdir",
        other => {
            return Err(f
                .header
                .error(format!("unsupported: ioengine={other} as a file-set job")));
        }
    };
    let files = f.nrfiles.max(1).saturating_mul(f.numjobs.max(1));
    let size = match f.engine {
        "filecreate" => 0,
        _ => f.filesize.unwrap_or(0),
    };
    let dir = f.directory.unwrap_or(".");
    // Every file in the set's root: one level, no directories under it.
    let settings = [
        (Opt::Name, Value::Text(f.name.to_string())),
        (Opt::Threads, Value::Count(f.numjobs.max(1))),
        (Opt::Target, Value::Path(dir.into())),
        (Opt::Mix, Value::Text(phases.to_string())),
        (Opt::Depth, Value::Count(0)),
        (Opt::Width, Value::Count(1)),
        (Opt::Files, Value::Count(files)),
        (
            Opt::FileSize,
            Value::Text(FileSizes(vec![(size, 100)]).to_string()),
        ),
    ];
    let mut job = Job::default();
    for (opt, value) in settings {
        job.apply(opt, value)
            .map_err(|e| f.header.error(format!("{}: ioengine={}: {e}", f.name, f.engine)))?;
    }
    notes.push(format!(
        "{}: ioengine={}: a file set of {files} files in {}/kura-fileset, {phases}",
        f.name,
        f.engine,
        f.directory.unwrap_or(".")
    ));
    Ok(job)
}
