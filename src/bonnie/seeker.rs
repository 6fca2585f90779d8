//! bonnie++'s seek test: tickets drawn up front and handed through a pipe
//! to seekers, each with its own descriptor.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rand::Rng;

use super::measured::{Measured, errno};
use super::own_files::open_rw;
use super::session::Session;
use crate::jobs::bonnie_params::UPDATE_EVERY;
use crate::metrics::collect::DirCollector;

impl Session<'_> {
    /// bonnie++ 2.00a's seek test (bon_io.cpp, `seek_test` and
    /// `CFileOp::action`): `seeks` tickets are drawn up front, each a chunk to
    /// lseek to and read, negative when that chunk is also rewritten (one in
    /// ten), followed by one end mark per seeker; all are written at once
    /// into a pipe from which the seekers, each with its own descriptor,
    /// read one ticket per seek. A seeker's time runs from its first ticket
    /// to its close (fsync included); the test's elapsed time from the first
    /// seeker's start to the last one's end. Its CPU, as bonnie++ counts it,
    /// is the process's (getrusage RUSAGE_SELF) over each seeker's time,
    /// summed over seekers.
    pub(super) fn seeks(&mut self) -> io::Result<Measured> {
        let cfg = self.cfg;
        let path = cfg.data_path();
        let chunks = cfg.chunks().max(1);
        let mut tickets: Vec<i32> = (0..cfg.seeks)
            .map(|_| {
                // bonnie++ draws a non-negative int; its remainder picks both the chunk and the update.
                let r = (self.rng.next_u32() & 0x7fff_ffff) as i32;
                if (r as u64).is_multiple_of(UPDATE_EVERY) {
                    -r
                } else {
                    r
                }
            })
            .collect();
        tickets.extend(std::iter::repeat_n(END_OF_SEEKS, cfg.seekers as usize));
        let bytes: Vec<u8> = tickets.iter().flat_map(|t| t.to_ne_bytes()).collect();
        let files = (0..cfg.seekers)
            .map(|_| open_rw(&path, self.data_id))
            .collect::<io::Result<Vec<File>>>()?;
        let (pipe_read, pipe_write) = pipe()?;
        let failed = AtomicBool::new(false);
        let error: Mutex<Option<String>> = Mutex::new(None);
        let stop = self.stop;
        let outs: Vec<Seeker> = std::thread::scope(|s| {
            let handles: Vec<_> = files
                .into_iter()
                .enumerate()
                .map(|(i, file)| {
                    let (tickets, failed, error) = (&pipe_read, &failed, &error);
                    std::thread::Builder::new()
                        .name(format!("kura-seeker-{i}"))
                        .spawn_scoped(s, move || {
                            seeker(file, cfg.chunk_bytes, chunks, tickets, stop, failed, error)
                        })
                        .expect("spawning a seeker thread")
                })
                .collect();
            // Every seeker reads until its end mark, so this write always drains.
            if let Err(e) = (&File::from(pipe_write)).write_all(&bytes) {
                failed.store(true, Ordering::Relaxed);
                let mut slot = error.lock().unwrap_or_else(|p| p.into_inner());
                slot.get_or_insert_with(|| format!("writing the seek tickets: {e}"));
            }
            handles
                .into_iter()
                .map(|h| h.join().expect("seeker thread panicked"))
                .collect()
        });
        let mut m = Measured::default();
        let first = outs.iter().filter_map(|o| o.start).min();
        let last = outs.iter().filter_map(|o| o.end).max();
        if let (Some(first), Some(last)) = (first, last) {
            m.elapsed_ns = last.duration_since(first).as_nanos() as u64;
        }
        for o in &outs {
            m.read.merge(&o.read);
            m.write.merge(&o.write);
            m.cpu_user_ns += o.cpu.0;
            m.cpu_system_ns += o.cpu.1;
            m.syncs += o.syncs;
        }
        m.error = error.into_inner().unwrap_or_else(|e| e.into_inner());
        m.stopped = self.stopped() && m.read.ops < cfg.seeks;
        Ok(m)
    }
}

/// bonnie++'s `END_SEEK_PROCESS` (INT_MIN): no more tickets for this seeker.
const END_OF_SEEKS: i32 = i32::MIN;

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array we pass.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are new and owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// One ticket from the shared pipe; `None` when it is closed or broken.
fn next_ticket(pipe: &OwnedFd) -> Option<i32> {
    let mut buf = [0u8; 4];
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: reads into the part of our own buffer not yet filled.
        let n = unsafe { libc::read(pipe.as_raw_fd(), buf[got..].as_mut_ptr().cast(), buf.len() - got) };
        match n {
            n if n > 0 => got += n as usize,
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            _ => return None,
        }
    }
    Some(i32::from_ne_bytes(buf))
}

fn process_cpu_ns() -> (u64, u64) {
    // SAFETY: rusage is plain C data; all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we pass and nothing else.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    (ns(usage.ru_utime), ns(usage.ru_stime))
}

struct Seeker {
    read: DirCollector,
    write: DirCollector,
    /// From its first ticket to its close; `None` when it got no ticket.
    start: Option<Instant>,
    end: Option<Instant>,
    cpu: (u64, u64),
    syncs: u64,
}

/// One seeker: tickets from the pipe until its end mark. After a failure or
/// Ctrl-C it keeps taking tickets without acting on them, so that the
/// writer of the pipe is never left blocked.
fn seeker(
    mut file: File,
    chunk: u64,
    chunks: u64,
    tickets: &OwnedFd,
    stop: &AtomicBool,
    failed: &AtomicBool,
    error: &Mutex<Option<String>>,
) -> Seeker {
    let mut buf = vec![0u8; chunk as usize];
    let (mut read, mut write) = (DirCollector::default(), DirCollector::default());
    let mut syncs = 0;
    let report = |what: &str, offset: u64, e: &io::Error, d: &mut DirCollector| {
        d.failure(errno(e), offset);
        failed.store(true, Ordering::Relaxed);
        let mut slot = error.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert_with(|| format!("{what} at offset {offset}: {e}"));
    };
    let mut ticket = next_ticket(tickets);
    let start = Instant::now();
    let cpu0 = process_cpu_ns();
    let mut acting = ticket.is_some_and(|t| t != END_OF_SEEKS);
    while let Some(t) = ticket.filter(|t| *t != END_OF_SEEKS) {
        if acting && (stop.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed)) {
            acting = false;
        }
        if acting {
            let at = t.unsigned_abs() as u64 % chunks;
            let update = t < 0;
            let offset = at * chunk;
            let seek_start = Instant::now();
            let got = file
                .seek(SeekFrom::Start(offset))
                .and_then(|_| file.read_exact(&mut buf));
            match got {
                Err(e) => {
                    report("seek read", offset, &e, &mut read);
                    acting = false;
                }
                Ok(()) if update => {
                    let read_end = Instant::now();
                    let b = &mut buf[(at % chunk) as usize];
                    *b = b.wrapping_sub(1);
                    let put = file
                        .seek(SeekFrom::Start(offset))
                        .and_then(|_| file.write_all(&buf));
                    match put {
                        Err(e) => {
                            report("seek rewrite", offset, &e, &mut write);
                            acting = false;
                        }
                        Ok(()) => {
                            let end = Instant::now();
                            write.success(chunk, end.duration_since(read_end).as_nanos() as u64);
                            read.success(chunk, end.duration_since(seek_start).as_nanos() as u64);
                        }
                    }
                }
                Ok(()) => read.success(chunk, seek_start.elapsed().as_nanos() as u64),
            }
        }
        ticket = next_ticket(tickets);
    }
    if ticket.is_some() && !stop.load(Ordering::Relaxed) && !failed.load(Ordering::Relaxed) {
        syncs += 1;
        if let Err(e) = file.sync_all() {
            report("fsync", 0, &e, &mut write);
        }
    }
    drop(file);
    let end = Instant::now();
    let cpu1 = process_cpu_ns();
    // A seeker that found only its end mark did no seek: it adds neither time nor CPU.
    let worked = read.ops + read.errors > 0;
    Seeker {
        read,
        write,
        start: worked.then_some(start),
        end: worked.then_some(end),
        cpu: if worked {
            (cpu1.0.saturating_sub(cpu0.0), cpu1.1.saturating_sub(cpu0.1))
        } else {
            (0, 0)
        },
        syncs,
    }
}
