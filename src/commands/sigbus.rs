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
use std::sync::Once;
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::metrics::RunResult;

/// Everything the handler needs, made before it can run: it allocates nothing.
struct Prepared {
    /// Where the JSON may go, in order, each with the line that says so.
    places: Vec<(CString, Vec<u8>)>,
    json: Vec<u8>,
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
        json: crate::report::to_json(result).into_bytes(),
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
        // SAFETY: `path` is NUL-terminated; open is async-signal-safe.
        let fd = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                0o644,
            )
        };
        if fd < 0 {
            continue;
        }
        let written = write_all(fd, &p.json);
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
    pub run: RunResult,
    pub db: PathBuf,
    pub given_db: Option<PathBuf>,
}

impl Guarded<'_, '_> {
    pub fn new<'a, 'r>(
        ctx: &super::Ctx,
        inner: &'a mut crate::store::Recorder<'r>,
        header: RunResult,
    ) -> Guarded<'a, 'r> {
        let g = Guarded {
            inner,
            run: header,
            db: ctx.db_path(),
            given_db: ctx.db.clone(),
        };
        keep_ready(&g.db, g.given_db.as_deref(), &g.run);
        g
    }
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
        self.run.jobs.push(job.clone());
        keep_ready(&self.db, self.given_db.as_deref(), &self.run);
        self.inner.job_done(job);
    }
}
