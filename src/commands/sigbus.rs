//! A SIGBUS while kura stores into its database. SQLite maps the `-shm`
//! file of a WAL database into memory (the wal-index); when that file is
//! truncated under it, or the disk behind it fails, the next access is a
//! SIGBUS, which ends the process with no error to return. SQLite's
//! heap-memory wal-index would avoid the mapping, but only with
//! `locking_mode=EXCLUSIVE`, which would lock every other kura out of the
//! database for the whole run; several kuras storing into one database at
//! once is a promise (docs/safety.md). So the mapping stays, and the run
//! measured so far is kept ready as JSON: the handler writes it to a new
//! file, says where, and ends kura with exit 1, as when the database
//! refuses a run.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Once};

use crate::metrics::RunResult;

/// Everything the handler needs, made before it can run: it allocates nothing.
struct Prepared {
    /// Where the JSON may go, in order, each with the line that says so.
    places: Vec<(CString, Vec<u8>)>,
    /// The JSON document, written part after part: a run's jobs are each
    /// serialized once, as they end, and shared by every later Prepared (a
    /// run of thousands of jobs serialized whole after each one took
    /// minutes).
    json: Vec<Arc<[u8]>>,
    /// Said when no place could take the file.
    lost: Vec<u8>,
}

static PREPARED: AtomicPtr<Prepared> = AtomicPtr::new(std::ptr::null_mut());
static INSTALL: Once = Once::new();

/// Keeps `result` (the run as measured so far) ready for a SIGBUS: saved
/// beside the database `db` (else here, else in the temporary directory)
/// as `kura-unsaved-run-STARTED-PID.json`. Called again, it replaces what
/// was kept. Must be called from the thread that uses the database, which
/// is the one a SIGBUS from its mapping interrupts.
pub fn keep_ready(db: &Path, given_db: Option<&Path>, result: &RunResult) {
    keep_parts_ready(
        db,
        given_db,
        result,
        vec![crate::report::to_json(result).into_bytes().into()],
    );
}

/// As `keep_ready`, with the document of `result` given as its parts, in order.
fn keep_parts_ready(db: &Path, given_db: Option<&Path>, result: &RunResult, json: Vec<Arc<[u8]>>) {
    INSTALL.call_once(install);
    let name = super::unsaved_run_name(result);
    let beside = super::beside_db(db);
    let why = format!(
        "kura: error: the database {} failed under kura (SIGBUS: its -shm file was truncated or its disk failed)",
        db.display()
    );
    let places = [beside, PathBuf::from("."), std::env::temp_dir()]
        .into_iter()
        .filter_map(|dir| {
            let path = dir.join(&name);
            let shown = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
            let line = format!(
                "{why}; the result is saved in {}; {}\n",
                crate::report::escape::shell_word(&shown.display().to_string()),
                super::import_hint(given_db, &shown)
            );
            Some((CString::new(path.as_os_str().as_bytes()).ok()?, line.into_bytes()))
        })
        .collect();
    let prepared = Box::new(Prepared {
        places,
        json,
        lost: format!("{why}; the result could not be saved as a file\n").into_bytes(),
    });
    let old = PREPARED.swap(Box::into_raw(prepared), Ordering::AcqRel);
    if !old.is_null() {
        // SAFETY: `old` came from Box::into_raw above and is no longer
        // reachable from PREPARED; the handler only runs on the thread whose
        // access to the mapping faults, which is this one, and not now.
        drop(unsafe { Box::from_raw(old) });
    }
}

/// The database is closed or the run is stored: a SIGBUS is no longer the
/// database's, and crashes kura as usual.
pub fn forget() {
    let old = PREPARED.swap(std::ptr::null_mut(), Ordering::AcqRel);
    if !old.is_null() {
        // SAFETY: as in `keep_ready`: from Box::into_raw, unreachable now.
        drop(unsafe { Box::from_raw(old) });
    }
}

fn install() {
    // SAFETY: sigaction is plain C data; all-zero bytes are a valid value
    // (an empty mask, no flags).
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
    // SAFETY: `action` is initialised and lives for the call; the handler
    // uses only async-signal-safe calls (open, write, fsync, close, _exit,
    // signal).
    unsafe { libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) };
}

/// Writes `bytes` to `fd` in full, as far as the kernel takes them.
fn write_all(fd: libc::c_int, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is valid for its length; write is async-signal-safe.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return false;
        }
        bytes = &bytes[n as usize..];
    }
    true
}

extern "C" fn on_sigbus(_signal: libc::c_int) {
    let prepared = PREPARED.load(Ordering::Acquire);
    if prepared.is_null() {
        // Not the database's: the default action, when the faulting access
        // runs again on return, ends kura as a crash.
        // SAFETY: signal is async-signal-safe.
        unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
        return;
    }
    // SAFETY: a non-null PREPARED points to a live Prepared (see keep_ready).
    let p = unsafe { &*prepared };
    for (path, line) in &p.places {
        // open(2) alone: async-signal-safe.
        let fd = crate::targets::own::create_new_in_handler(path);
        if fd < 0 {
            continue;
        }
        let written = p.json.iter().all(|part| write_all(fd, part));
        // SAFETY: `fd` was opened above; fsync and close are async-signal-safe.
        let synced = unsafe { libc::fsync(fd) == 0 && libc::close(fd) == 0 };
        if written && synced {
            write_all(2, line);
            // SAFETY: _exit is async-signal-safe and ends the process at once.
            unsafe { libc::_exit(1) };
        }
        // A part written (a full disk): the next place gets the whole file.
        // SAFETY: unlink is async-signal-safe; the file is the one made above.
        unsafe { libc::unlink(path.as_ptr()) };
    }
    write_all(2, &p.lost);
    // SAFETY: _exit is async-signal-safe.
    unsafe { libc::_exit(1) };
}

/// A sink that passes everything to the recorder and keeps the run so far
/// ready for a SIGBUS: the run's header and every job that finished.
pub struct Guarded<'a, 'r> {
    pub inner: &'a mut crate::store::Recorder<'r>,
    /// The run's header; its jobs are kept only as `jobs`.
    pub run: RunResult,
    pub db: PathBuf,
    pub given_db: Option<PathBuf>,
    /// The header's document up to its `"jobs": [`, and what closes it.
    head: Arc<[u8]>,
    tail: Arc<[u8]>,
    /// Each finished job's JSON, a comma before all but the first.
    jobs: Vec<Arc<[u8]>>,
}

impl Guarded<'_, '_> {
    pub fn new<'a, 'r>(
        ctx: &super::Ctx,
        inner: &'a mut crate::store::Recorder<'r>,
        header: RunResult,
    ) -> Guarded<'a, 'r> {
        let (head, tail) = split_at_jobs(&header);
        let g = Guarded {
            inner,
            run: header,
            db: ctx.db_path(),
            given_db: ctx.db.clone(),
            head,
            tail,
            jobs: Vec::new(),
        };
        g.keep();
        g
    }

    fn keep(&self) {
        let mut parts = Vec::with_capacity(self.jobs.len() + 2);
        parts.push(self.head.clone());
        parts.extend(self.jobs.iter().cloned());
        parts.push(self.tail.clone());
        keep_parts_ready(&self.db, self.given_db.as_deref(), &self.run, parts);
    }
}

/// The document of `header` (as `report::to_json` writes it) with its jobs
/// moved last: the part before the jobs' elements and the part after them.
fn split_at_jobs(header: &RunResult) -> (Arc<[u8]>, Arc<[u8]>) {
    let mut value = serde_json::to_value(header).expect("results serialize");
    if let Some(map) = value.as_object_mut() {
        map.remove("jobs");
    }
    let text = crate::report::to_json(&value);
    let body = text.trim_end().strip_suffix('}').unwrap_or(&text).trim_end();
    let sep = if body.ends_with('{') { "" } else { "," };
    let head = format!("{body}{sep}\n  \"jobs\": [");
    (head.into_bytes().into(), b"]\n}\n".as_slice().into())
}

impl crate::metrics::sink::RunSink for Guarded<'_, '_> {
    fn job_started(&mut self, skeleton: &crate::metrics::JobResult) {
        self.inner.job_started(skeleton);
    }

    fn interval(&mut self, point: &crate::metrics::IntervalPoint) {
        self.inner.interval(point);
    }

    fn job_done(&mut self, job: &crate::metrics::JobResult) {
        // Ready before the store touches the database with it.
        let mut part = if self.jobs.is_empty() {
            Vec::new()
        } else {
            b",".to_vec()
        };
        serde_json::to_writer(&mut part, job).expect("results serialize");
        self.jobs.push(part.into());
        self.keep();
        self.inner.job_done(job);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Rw;
    use crate::report::fixtures;

    #[test]
    fn the_kept_parts_are_the_runs_document_with_its_jobs_last() {
        let a = fixtures::job("a", Rw::Read, 4096, 100, Some(10), None);
        let b = fixtures::job("b", Rw::Write, 4096, 0, None, Some(20));
        let whole = fixtures::run("quick", vec![a.clone(), b.clone()]);
        let header = RunResult {
            jobs: vec![],
            ..whole.clone()
        };
        let (head, tail) = split_at_jobs(&header);
        for jobs in [vec![], vec![a.clone()], vec![a, b]] {
            let mut doc = head.to_vec();
            for (i, j) in jobs.iter().enumerate() {
                doc.extend(if i > 0 { "," } else { "" }.bytes());
                doc.extend(serde_json::to_vec(j).unwrap());
            }
            doc.extend(tail.iter());
            let kept: serde_json::Value = serde_json::from_slice(&doc).unwrap();
            let expected: serde_json::Value = serde_json::from_str(&crate::report::to_json(&RunResult {
                jobs,
                ..header.clone()
            }))
            .unwrap();
            assert_eq!(kept, expected);
            assert_eq!(kept.as_object().unwrap().keys().next().unwrap(), "schema_version");
        }
    }
}
