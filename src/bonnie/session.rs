//! One repetition's tests on the data file: per-character and block output,
//! rewrite, per-character and block input. The seek test is in `seeker.rs`,
//! the small-file tests in `small_files.rs`.

use std::ffi::CString;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rand::rngs::SmallRng;

use super::measured::{Clock, Measured, close, fail, lap};
use super::own_files::{FileId, create_new, open_rw};
use crate::jobs::bonnie_params::{BonnieSettings, Test};

/// One repetition's state shared by its tests.
pub(super) struct Session<'a> {
    pub cfg: &'a BonnieSettings,
    pub stop: &'a AtomicBool,
    pub rng: SmallRng,
    /// Names of the small files of the current create/stat/delete set.
    pub names: Vec<CString>,
    /// The data file this run made.
    pub data_id: FileId,
    /// The directory of small files the last create test made.
    pub files_id: FileId,
}

impl Session<'_> {
    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Setup failures (an open before the clock starts) are `Err`: nothing was measured.
    pub(super) fn measure(&mut self, test: Test) -> io::Result<Measured> {
        match test {
            Test::PutChar => self.put_char(),
            Test::PutBlock => self.put_block(),
            Test::Rewrite => self.rewrite(),
            Test::GetChar => self.get_char(),
            Test::GetBlock => self.get_block(),
            Test::Seeks => self.seeks(),
            Test::SeqCreate => self.create(false),
            Test::RandCreate => self.create(true),
            Test::SeqStat => self.stat_sequential(),
            Test::RandStat => self.stat_random(),
            Test::SeqDelete => self.delete_sequential(),
            Test::RandDelete => self.delete_random(),
        }
    }

    /// Writes `char_bytes` with one write(2) of one byte per call: no stdio
    /// buffer in between, which is what the test is about. `File` is unbuffered.
    /// As bonnie++ 2.00a (bonnie++.cpp, `TestFileOps`, `write_block_byte`),
    /// the clock is read around each chunk's worth of calls, not each call:
    /// one operation is a chunk, and the latency is that of the chunk.
    fn put_char(&mut self) -> io::Result<Measured> {
        let path = self.cfg.data_path();
        let file = create_new(&path, &mut self.data_id)?;
        let mut m = Measured::default();
        let clock = Clock::start();
        let chunk = self.cfg.chunk_bytes;
        let mut offset = 0u64;
        'chunks: for _ in 0..self.cfg.char_bytes / chunk {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            let start = Instant::now();
            for i in 0..chunk {
                let byte = [(i & 0x7f) as u8];
                let failed = match (&file).write(&byte) {
                    Ok(1) => None,
                    Ok(_) => Some(io::Error::new(io::ErrorKind::WriteZero, "write(2) wrote nothing")),
                    Err(e) => Some(e),
                };
                if let Some(e) = failed {
                    if i > 0 {
                        m.write.success(i, start.elapsed().as_nanos() as u64);
                    }
                    fail(&mut m, true, "one-byte write", offset + i, &e);
                    break 'chunks;
                }
            }
            m.write.success(chunk, start.elapsed().as_nanos() as u64);
            offset += chunk;
        }
        close(file, &mut m, &path);
        clock.stop(&mut m);
        Ok(m)
    }

    /// Writes the whole file again from scratch, a chunk per call; the chunk is
    /// zeros with one byte changed per write, as bonnie++ writes it.
    fn put_block(&mut self) -> io::Result<Measured> {
        let path = self.cfg.data_path();
        let file = create_new(&path, &mut self.data_id)?;
        let chunk = self.cfg.chunk_bytes as usize;
        let mut buf = vec![0u8; chunk];
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        for i in 0..self.cfg.chunks() {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            let at = i as usize % chunk;
            buf[at] = buf[at].wrapping_add(1);
            if let Err(e) = (&file).write_all(&buf) {
                fail(&mut m, true, "block write", i * chunk as u64, &e);
                break;
            }
            m.write.success(chunk as u64, lap(&mut last));
        }
        close(file, &mut m, &path);
        clock.stop(&mut m);
        Ok(m)
    }

    /// Reads each chunk, changes one byte, seeks back and writes it.
    fn rewrite(&mut self) -> io::Result<Measured> {
        let path = self.cfg.data_path();
        let mut file = open_rw(&path, self.data_id)?;
        let chunk = self.cfg.chunk_bytes as usize;
        let mut buf = vec![0u8; chunk];
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        for i in 0..self.cfg.chunks() {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            let offset = i * chunk as u64;
            let start = last;
            if let Err(e) = file.read_exact(&mut buf) {
                fail(&mut m, false, "rewrite read", offset, &e);
                break;
            }
            m.read.success(chunk as u64, lap(&mut last));
            let at = i as usize % chunk;
            buf[at] = buf[at].wrapping_add(1);
            let written = file
                .seek(SeekFrom::Current(-(chunk as i64)))
                .and_then(|_| file.write_all(&buf));
            if let Err(e) = written {
                fail(&mut m, true, "rewrite write", offset, &e);
                break;
            }
            lap(&mut last);
            m.write
                .success(chunk as u64, last.duration_since(start).as_nanos() as u64);
        }
        close(file, &mut m, &path);
        clock.stop(&mut m);
        Ok(m)
    }

    /// Reads `char_bytes` with one read(2) of one byte per call, timed a
    /// chunk's worth of calls at a time as bonnie++ 2.00a does (`read_block_byte`).
    fn get_char(&mut self) -> io::Result<Measured> {
        let path = self.cfg.data_path();
        let file = open_rw(&path, self.data_id)?;
        let mut m = Measured::default();
        let clock = Clock::start();
        let chunk = self.cfg.chunk_bytes;
        let mut offset = 0u64;
        let mut seen = [0u64; 256];
        'chunks: for _ in 0..self.cfg.char_bytes / chunk {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            let start = Instant::now();
            for i in 0..chunk {
                let mut byte = [0u8; 1];
                let failed = match (&file).read(&mut byte) {
                    Ok(1) => {
                        // Use the byte, as bonnie++ does, so the read is not optimised away.
                        seen[byte[0] as usize] += 1;
                        None
                    }
                    Ok(_) => Some(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the file ended early",
                    )),
                    Err(e) => Some(e),
                };
                if let Some(e) = failed {
                    if i > 0 {
                        m.read.success(i, start.elapsed().as_nanos() as u64);
                    }
                    fail(&mut m, false, "one-byte read", offset + i, &e);
                    break 'chunks;
                }
            }
            m.read.success(chunk, start.elapsed().as_nanos() as u64);
            offset += chunk;
        }
        std::hint::black_box(&seen);
        close(file, &mut m, &path);
        clock.stop(&mut m);
        Ok(m)
    }

    fn get_block(&mut self) -> io::Result<Measured> {
        let path = self.cfg.data_path();
        let mut file = open_rw(&path, self.data_id)?;
        let chunk = self.cfg.chunk_bytes as usize;
        let mut buf = vec![0u8; chunk];
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        for i in 0..self.cfg.chunks() {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            if let Err(e) = file.read_exact(&mut buf) {
                fail(&mut m, false, "block read", i * chunk as u64, &e);
                break;
            }
            m.read.success(chunk as u64, lap(&mut last));
        }
        close(file, &mut m, &path);
        clock.stop(&mut m);
        Ok(m)
    }
}
