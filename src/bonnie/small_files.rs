//! bonnie++'s small-file tests: create, stat and delete a set of empty
//! files in name order and in random order, with names as bonnie++ makes them.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::time::Instant;

use rand::Rng;
use rand::rngs::SmallRng;

use super::Dir;
use super::measured::{Clock, Measured, fail, lap};
use super::own_files::not_ours;
use super::session::Session;

impl Session<'_> {
    /// Times `op` on each file of the set in the order of `names`, one call
    /// a lap, as bonnie++'s file tests do; the first failure, or Ctrl-C,
    /// ends the test.
    fn each_name(&self, m: &mut Measured, write: bool, what: &str, op: impl Fn(&CString) -> io::Result<()>) {
        let mut last = Instant::now();
        for (i, name) in self.names.iter().enumerate() {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            if let Err(e) = op(name) {
                fail(m, write, what, i as u64, &e);
                break;
            }
            let done = if write { &mut m.write } else { &mut m.read };
            done.success(0, lap(&mut last));
        }
    }

    /// Creates the files of a set in name order: sequential names sort as
    /// they are made, random ones start with random characters.
    pub(super) fn create(&mut self, random: bool) -> io::Result<Measured> {
        let cfg = self.cfg;
        self.names = make_names(&mut self.rng, cfg.files, random);
        std::fs::DirBuilder::new().mode(0o700).create(cfg.files_path())?;
        let dir = Dir::open_own(&cfg.files_path())?;
        self.files_id = Some(dir.identity()?);
        let mut m = Measured::default();
        let clock = Clock::start();
        self.each_name(&mut m, true, "create", |name| dir.create_empty(name));
        self.sync_fs(&dir, &mut m);
        clock.stop(&mut m);
        Ok(m)
    }

    /// Stats every file in the order readdir returns them.
    pub(super) fn stat_sequential(&mut self) -> io::Result<Measured> {
        let cfg = self.cfg;
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        let mut count = 0u64;
        match std::fs::read_dir(cfg.files_path()) {
            Err(e) => fail(&mut m, false, "opendir", 0, &e),
            Ok(entries) => {
                for entry in entries {
                    if self.stopped() {
                        m.stopped = true;
                        break;
                    }
                    // DirEntry::metadata is fstatat relative to the open directory.
                    if let Err(e) = entry.and_then(|e| e.metadata()) {
                        fail(&mut m, false, "stat", count, &e);
                        break;
                    }
                    m.read.success(0, lap(&mut last));
                    count += 1;
                }
            }
        }
        clock.stop(&mut m);
        self.check_count(&mut m, count);
        Ok(m)
    }

    pub(super) fn stat_random(&mut self) -> io::Result<Measured> {
        shuffle(&mut self.rng, &mut self.names);
        let dir = self.own_files_dir()?;
        let mut m = Measured::default();
        let clock = Clock::start();
        self.each_name(&mut m, false, "stat", |name| dir.stat(name).map(drop));
        clock.stop(&mut m);
        Ok(m)
    }

    /// Deletes every file in readdir order, then the directory.
    pub(super) fn delete_sequential(&mut self) -> io::Result<Measured> {
        let cfg = self.cfg;
        let dir = self.own_files_dir()?;
        let parent = Dir::open(&cfg.dir)?;
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        let mut count = 0u64;
        match std::fs::read_dir(cfg.files_path()) {
            Err(e) => fail(&mut m, true, "opendir", 0, &e),
            Ok(entries) => {
                for entry in entries {
                    if self.stopped() {
                        m.stopped = true;
                        break;
                    }
                    let deleted = entry.and_then(|e| {
                        let name = CString::new(e.file_name().as_bytes()).map_err(io::Error::other)?;
                        dir.unlink(&name)
                    });
                    if let Err(e) = deleted {
                        fail(&mut m, true, "unlink", count, &e);
                        break;
                    }
                    m.write.success(0, lap(&mut last));
                    count += 1;
                }
            }
        }
        self.remove_dir(&parent, &mut m);
        clock.stop(&mut m);
        self.check_count(&mut m, count);
        Ok(m)
    }

    pub(super) fn delete_random(&mut self) -> io::Result<Measured> {
        shuffle(&mut self.rng, &mut self.names);
        let cfg = self.cfg;
        let dir = self.own_files_dir()?;
        let parent = Dir::open(&cfg.dir)?;
        let mut m = Measured::default();
        let clock = Clock::start();
        self.each_name(&mut m, true, "unlink", |name| dir.unlink(name));
        self.remove_dir(&parent, &mut m);
        clock.stop(&mut m);
        Ok(m)
    }

    /// The directory of small files, only while its name leads to the one
    /// the create test made (a directory swapped in is not ours).
    fn own_files_dir(&self) -> io::Result<Dir> {
        let path = self.cfg.files_path();
        let dir = Dir::open_own(&path).map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                not_ours(&path)
            } else {
                e
            }
        })?;
        if Some(dir.identity()?) != self.files_id {
            return Err(not_ours(&path));
        }
        Ok(dir)
    }

    /// The directory goes with its last file, inside the measured time as in bonnie++.
    fn remove_dir(&self, parent: &Dir, m: &mut Measured) {
        if m.stopped || m.error.is_some() {
            return;
        }
        if let Err(e) = std::fs::remove_dir(self.cfg.files_path()) {
            m.error = Some(format!("rmdir {}: {e}", self.cfg.files_path().display()));
            return;
        }
        self.sync_fs(parent, m);
    }

    fn sync_fs(&self, dir: &Dir, m: &mut Measured) {
        if m.stopped || m.error.is_some() {
            return;
        }
        m.syncs += 1;
        if let Err(e) = dir.sync_fs() {
            m.error = Some(format!("syncfs: {e}"));
        }
    }

    fn check_count(&self, m: &mut Measured, count: u64) {
        if !m.stopped && m.error.is_none() && count != self.cfg.files {
            m.error = Some(format!(
                "found {count} files in {}, expected {}",
                self.cfg.files_path().display(),
                self.cfg.files
            ));
        }
    }
}

const NAME_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const NAME_EXTRA: u32 = 12;

/// bonnie++'s names: the index in 10 hex digits and 0-12 random characters,
/// after it for the sequential set, before it for the random set.
fn make_names(rng: &mut SmallRng, n: u64, random: bool) -> Vec<CString> {
    (0..n)
        .map(|i| {
            let len = rng.next_u32() % (NAME_EXTRA + 1);
            let extra: String = (0..len)
                .map(|_| NAME_CHARS[(rng.next_u32() as usize) % NAME_CHARS.len()] as char)
                .collect();
            let name = if random {
                format!("{extra}{i:010x}")
            } else {
                format!("{i:010x}{extra}")
            };
            CString::new(name).expect("names are alphanumeric")
        })
        .collect()
}

/// Fisher-Yates; bonnie++ swaps each name with a random one, which is biased.
fn shuffle<T>(rng: &mut SmallRng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use rand::SeedableRng;

    use super::*;
    use crate::bonnie::own_files::cleanup;
    use crate::jobs::bonnie_params::{BonnieSettings, Test};

    #[test]
    fn names_sort_in_creation_order_only_when_sequential() {
        let mut rng = SmallRng::seed_from_u64(7);
        let seq = make_names(&mut rng, 300, false);
        let mut sorted = seq.clone();
        sorted.sort();
        assert_eq!(seq, sorted);
        assert!(seq[17].to_str().unwrap().starts_with("0000000011"));
        let random = make_names(&mut rng, 300, true);
        let mut sorted = random.clone();
        sorted.sort();
        assert_ne!(random, sorted);
        assert!(random.iter().all(|n| {
            let n = n.to_bytes();
            n.len() >= 10 && n.len() <= 22
        }));
    }
    #[test]
    fn the_small_files_directory_is_removed_only_while_it_is_the_one_kura_made() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = BonnieSettings::new(dir.path().to_path_buf(), 1 << 20, 8192, 1);
        let stop = AtomicBool::new(false);
        let mut session = Session {
            cfg: &cfg,
            stop: &stop,
            rng: SmallRng::seed_from_u64(1),
            names: Vec::new(),
            data_id: None,
            files_id: None,
        };
        let m = session.create(false).unwrap();
        assert!(m.error.is_none(), "{:?}", m.error);
        let files = cfg.files_path();
        let made = session.files_id;
        // A real directory with someone's data swapped in between two tests.
        std::fs::rename(&files, dir.path().join("moved")).unwrap();
        std::fs::create_dir(&files).unwrap();
        std::fs::write(files.join("precious"), b"data").unwrap();
        let Err(err) = session.measure(Test::SeqDelete) else {
            panic!("the delete test ran in a directory kura did not make");
        };
        let err = err.to_string();
        assert!(err.contains("not the file kura made"), "{err}");
        let mut warnings = Vec::new();
        cleanup(&cfg, None, made, &mut warnings);
        assert_eq!(std::fs::read(files.join("precious")).unwrap(), b"data");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        // Its own directory put back: its files and it are removed.
        std::fs::remove_file(files.join("precious")).unwrap();
        std::fs::remove_dir(&files).unwrap();
        std::fs::rename(dir.path().join("moved"), &files).unwrap();
        cleanup(&cfg, None, made, &mut warnings);
        assert!(!files.exists(), "{warnings:?}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
    }

    #[test]
    fn shuffle_keeps_every_item() {
        let mut rng = SmallRng::seed_from_u64(3);
        let mut v: Vec<u32> = (0..1000).collect();
        shuffle(&mut rng, &mut v);
        assert_ne!(v, (0..1000).collect::<Vec<_>>());
        v.sort();
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
    }
}
