//! A file set on disk under an anchor directory: checked (a directory, the
//! limit, the room there is), formatted in parallel or reused when kura's
//! manifest says it holds the same shape, and removed afterwards, name by
//! name, only what kura made. Every call names an entry relative to a
//! directory held open, with O_NOFOLLOW or AT_SYMLINK_NOFOLLOW: nothing is
//! followed through a symlink. Issues no measured I/O.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::jobs::fileset::{FILE_LIMIT, FileSizes, Resolved};

/// `781.2 MiB`: sizes in refusals, readable whatever their magnitude.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = bytes as f64;
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{x:.1} {}", UNITS[unit])
    }
}

/// The directory kura makes in the anchor; the set lives in it.
pub const ROOT: &str = "kura-fileset";
const ROOT_C: &CStr = c"kura-fileset";
/// kura's note in the root of what it made: the shape, the seed of the sizes, the state.
pub const MANIFEST: &str = "kura-manifest";
const MANIFEST_C: &CStr = c"kura-manifest";
/// Directories kept open besides the leaves: kura's own files, the database, stdio.
const SPARE_FDS: u64 = 64;

#[derive(Debug, Error)]
pub enum FileSetError {
    #[error("{0}")]
    Refused(String),
    #[error("{path}: {what}: {source}")]
    Io {
        path: String,
        what: &'static str,
        #[source]
        source: io::Error,
    },
    #[error("stopped while formatting the file set in {0}; what was made is removed")]
    Stopped(String),
}

fn io_err<'a>(path: &'a Path, what: &'static str) -> impl FnOnce(io::Error) -> FileSetError + 'a {
    move |source| FileSetError::Io {
        path: path.display().to_string(),
        what,
        source,
    }
}

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// openat relative to `dir`, never through a symlink at the last component.
pub fn open_at(dir: RawFd, name: &CStr, flags: libc::c_int, mode: libc::mode_t) -> io::Result<OwnedFd> {
    let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: `name` is NUL-terminated and lives for the call; a bad fd is an error, not UB.
    let fd = check(unsafe { libc::openat(dir, name.as_ptr(), flags, mode as libc::c_uint) })?;
    // SAFETY: openat returned a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Opens for writing a file of the set (made by kura, or found listed in
/// the set's manifest when the set was checked), never through a link.
pub fn open_for_write(dir: RawFd, name: &CStr) -> io::Result<OwnedFd> {
    open_at(dir, name, libc::O_WRONLY, 0)
}

fn open_dir_at(dir: RawFd, name: &CStr) -> io::Result<OwnedFd> {
    open_at(dir, name, libc::O_RDONLY | libc::O_DIRECTORY, 0)
}

/// lstat of an entry: the entry itself, a symlink as a symlink.
pub fn stat_at(dir: RawFd, name: &CStr) -> io::Result<libc::stat> {
    // SAFETY: `stat` is plain C data; all-zero bytes are a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `name` is NUL-terminated and `st` writable, both for the call.
    check(unsafe { libc::fstatat(dir, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) })?;
    Ok(st)
}

/// `name` in a fixed buffer, NUL-terminated, without allocating: `f123`.
pub struct NameBuf {
    buf: [u8; 48],
    len: usize,
}

impl Default for NameBuf {
    fn default() -> Self {
        NameBuf { buf: [0; 48], len: 0 }
    }
}

impl NameBuf {
    pub fn clear(&mut self) {
        self.len = 0;
    }
    pub fn push(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(self.buf.len() - 1 - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&bytes[..n]);
        self.len += n;
    }
    pub fn push_num(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let d = digits;
        self.push(&d[i..]);
    }
    pub fn as_cstr(&mut self) -> &CStr {
        self.buf[self.len] = 0;
        // The buffer is NUL-terminated at `len` just above, and pushes never write a NUL.
        CStr::from_bytes_until_nul(&self.buf[..=self.len]).unwrap_or(c"")
    }
    /// File `j` of a leaf directory.
    pub fn file(&mut self, j: u64) -> &CStr {
        self.clear();
        self.push(b"f");
        self.push_num(j);
        self.as_cstr()
    }
    /// File `j`'s name while a rename has it away.
    pub fn renamed(&mut self, j: u64) -> &CStr {
        self.clear();
        self.push(b"f");
        self.push_num(j);
        self.push(b".r");
        self.as_cstr()
    }
    /// Directory `n` a thread's mkdir made in a leaf.
    pub fn extra_dir(&mut self, thread: u32, n: u64) -> &CStr {
        self.clear();
        self.push(b"x");
        self.push_num(thread.into());
        self.push(b"-");
        self.push_num(n);
        self.as_cstr()
    }
    fn dir(&mut self, i: u64) -> &CStr {
        self.clear();
        self.push(b"d");
        self.push_num(i);
        self.as_cstr()
    }
}

/// What kura's manifest records.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Manifest {
    depth: u32,
    width: u32,
    files: u64,
    file_size: String,
    seed: u64,
    /// `complete`, `formatting`, `in-use` or `removing`: only a complete set is reused.
    state: String,
    /// Files per leaf a job may have made (`f0` up to `f<made - 1>`): the
    /// files of the set, or more while a job whose mix makes files (mdtest)
    /// uses it. Only these names are ever removed.
    made: u64,
}

impl Manifest {
    fn text(&self) -> String {
        format!(
            "kura file set\nversion=1\ndepth={}\nwidth={}\nfiles={}\nfile_size={}\nseed={}\nstate={}\nmade={}\n",
            self.depth, self.width, self.files, self.file_size, self.seed, self.state, self.made
        )
    }

    fn parse(text: &str) -> Option<Manifest> {
        let mut lines = text.lines();
        if lines.next()? != "kura file set" {
            return None;
        }
        let map: std::collections::HashMap<&str, &str> = lines.filter_map(|l| l.split_once('=')).collect();
        Some(Manifest {
            depth: map.get("depth")?.parse().ok()?,
            width: map.get("width")?.parse().ok()?,
            files: map.get("files")?.parse().ok()?,
            file_size: map.get("file_size")?.to_string(),
            seed: map.get("seed")?.parse().ok()?,
            state: map.get("state")?.to_string(),
            // Manifests written before `made` name only the set's files.
            made: match map.get("made") {
                Some(m) => m.parse().ok()?,
                None => map.get("files")?.parse().ok()?,
            },
        })
    }

    fn same_shape(&self, other: &Manifest) -> bool {
        (self.depth, self.width, self.files, &self.file_size)
            == (other.depth, other.width, other.files, &other.file_size)
    }
}

/// A file set ready to load: its directories held open.
#[derive(Debug)]
pub struct FileSet {
    pub anchor: PathBuf,
    pub root: PathBuf,
    root_fd: OwnedFd,
    anchor_fd: OwnedFd,
    /// The directories of the last level, by leaf index.
    leaves: Vec<OwnedFd>,
    /// Each leaf's path below the root, `d3/d1/`, for lookups that walk it.
    leaf_paths: Vec<Vec<u8>>,
    pub depth: u32,
    pub width: u32,
    pub files_per_leaf: u64,
    pub sizes: FileSizes,
    /// Seed of the file sizes, from the manifest when the set was reused.
    pub seed: u64,
    /// kura made the set in this run (it removes it unless --keep).
    pub created: bool,
    /// Files per leaf a job may have made: see `Manifest::made`.
    made: AtomicU64,
}

impl FileSet {
    pub fn leaf_count(&self) -> usize {
        self.leaves.len()
    }
    pub fn total_files(&self) -> u64 {
        self.leaves.len() as u64 * self.files_per_leaf
    }
    pub fn total_bytes(&self) -> u64 {
        (0..self.total_files()).map(|i| self.size_of(i)).sum()
    }
    pub fn root_fd(&self) -> RawFd {
        self.root_fd.as_raw_fd()
    }
    pub fn leaf_fd(&self, leaf: usize) -> RawFd {
        self.leaves[leaf].as_raw_fd()
    }
    pub fn leaf_path(&self, leaf: usize) -> &[u8] {
        &self.leaf_paths[leaf]
    }
    /// File `index` of the set: its leaf and its number there.
    pub fn locate(&self, index: u64) -> (usize, u64) {
        (
            (index / self.files_per_leaf) as usize,
            index % self.files_per_leaf,
        )
    }
    pub fn size_of(&self, index: u64) -> u64 {
        self.sizes.size_of(self.seed, index)
    }

    /// Drops the set's files from the page cache (dirty pages written back
    /// first): before a capped job, so what the cap allows is what the job
    /// itself caches (pages stay charged to the group that loaded them). A
    /// file a job removed or has not made yet is passed over.
    pub fn evict_cache(&self) -> io::Result<()> {
        let mut name = NameBuf::default();
        for index in 0..self.total_files() {
            let (leaf, k) = self.locate(index);
            let fd = match open_at(self.leaf_fd(leaf), name.file(k), libc::O_RDONLY, 0) {
                Ok(fd) => fd,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            // SAFETY: the descriptor is open for both calls, which read only their integer arguments.
            check(unsafe { libc::fdatasync(fd.as_raw_fd()) })?;
            // SAFETY: as above.
            let rc = unsafe { libc::posix_fadvise(fd.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            if rc != 0 {
                return Err(io::Error::from_raw_os_error(rc));
            }
        }
        Ok(())
    }

    fn write_manifest(&self, state: &str) -> Result<(), FileSetError> {
        let made = self.made.load(Ordering::Relaxed).max(self.files_per_leaf);
        write_manifest(
            self.root_fd(),
            &self.root,
            &Manifest {
                depth: self.depth,
                width: self.width,
                files: self.files_per_leaf,
                file_size: self.sizes.to_string(),
                seed: self.seed,
                state: state.to_string(),
                made,
            },
        )
    }

    /// Marks the set as being changed by a job: a run killed now leaves a
    /// set the next run rebuilds rather than trusts.
    pub fn begin_use(&self) -> Result<(), FileSetError> {
        self.write_manifest("in-use")
    }

    /// [`begin_use`](Self::begin_use) for a job whose mix makes files of its
    /// own, up to `f<files_per_leaf - 1>` in each leaf: recorded first, so a
    /// later removal knows those names are kura's and no others.
    pub fn begin_use_making(&self, files_per_leaf: u64) -> Result<(), FileSetError> {
        self.made.fetch_max(files_per_leaf, Ordering::Relaxed);
        self.write_manifest("in-use")
    }

    /// Marks the set whole again, after the job put back what it changed.
    pub fn end_use(&self) -> Result<(), FileSetError> {
        self.write_manifest("complete")
    }

    /// Removes what kura made, and only that: its files by their names
    /// (regular files only), the directories it made once they are empty,
    /// the manifest and the root. Returns what it left and why.
    pub fn remove(self) -> Vec<String> {
        let mut left = Vec::new();
        // A removal that stops half way must not leave a manifest saying the set is whole.
        if let Err(e) = self.write_manifest("removing") {
            left.push(e.to_string());
            return left;
        }
        let layout = Layout {
            depth: self.depth,
            width: self.width,
            made: self.made.load(Ordering::Relaxed).max(self.files_per_leaf),
        };
        remove_contents(self.root_fd(), &self.root, 0, layout, &mut left);
        drop(self.leaves);
        let FileSet {
            root,
            root_fd,
            anchor_fd,
            ..
        } = self;
        drop(root_fd);
        if left.is_empty() {
            // SAFETY: the name is NUL-terminated and the anchor fd is open.
            let rc = unsafe { libc::unlinkat(anchor_fd.as_raw_fd(), ROOT_C.as_ptr(), libc::AT_REMOVEDIR) };
            if rc != 0 {
                left.push(format!(
                    "{}: not removed: {}",
                    root.display(),
                    io::Error::last_os_error()
                ));
            }
        } else {
            left.push(format!(
                "{}: kept, because it holds what kura did not make",
                root.display()
            ));
        }
        left
    }
}

fn write_manifest(root_fd: RawFd, root: &Path, m: &Manifest) -> Result<(), FileSetError> {
    let path = root.join(MANIFEST);
    let fd = open_at(
        root_fd,
        MANIFEST_C,
        libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
        0o644,
    )
    .map_err(io_err(&path, "writing kura's manifest"))?;
    let mut file = std::fs::File::from(fd);
    io::Write::write_all(&mut file, m.text().as_bytes()).map_err(io_err(&path, "writing kura's manifest"))
}

fn read_manifest(root_fd: RawFd) -> Option<Manifest> {
    let fd = open_at(root_fd, MANIFEST_C, libc::O_RDONLY, 0).ok()?;
    let st = stat_at(root_fd, MANIFEST_C).ok()?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG || st.st_size > 4096 {
        return None;
    }
    let mut text = String::new();
    io::Read::read_to_string(&mut std::fs::File::from(fd), &mut text).ok()?;
    Manifest::parse(&text)
}

/// Free bytes and free inodes (`None` where the file system does not count them: btrfs).
fn free_space(fd: RawFd) -> io::Result<(u64, Option<u64>)> {
    // SAFETY: statvfs is plain C data; all-zero bytes are a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is writable for the call; a bad fd is an error.
    check(unsafe { libc::fstatvfs(fd, &mut st) })?;
    let inodes = (st.f_files > 0).then_some(st.f_favail);
    Ok((st.f_bavail.saturating_mul(st.f_frsize), inodes))
}

/// Raises the soft limit on open files to the hard one; returns the limit now.
fn raise_fd_limit() -> u64 {
    // SAFETY: rlimit is plain C data, written by getrlimit.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: `lim` is writable for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return 1024;
    }
    if lim.rlim_cur < lim.rlim_max {
        let want = libc::rlimit {
            rlim_cur: lim.rlim_max,
            rlim_max: lim.rlim_max,
        };
        // SAFETY: `want` is a valid rlimit read for the call.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &want) } == 0 {
            return want.rlim_cur;
        }
    }
    lim.rlim_cur
}

/// What a set would make, for refusals: `1,000 files in 110 directories, 4.1 MB`.
fn describe(shape: &Resolved) -> String {
    format!(
        "{} files in {} directories, {}",
        shape.total_files(),
        shape.dirs(),
        format_size(shape.total_bytes())
    )
}

/// The anchor, held open; refuses what is not a directory. Creates nothing.
/// O_DIRECTORY does the refusing, so the directory checked is the one held.
pub fn open_anchor(anchor: &Path) -> Result<OwnedFd, FileSetError> {
    let c = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(anchor.as_os_str()))
        .map_err(|_| FileSetError::Refused(format!("{}: the path holds a NUL", anchor.display())))?;
    // The anchor is the directory the user named, so a symlink to it is theirs to give.
    // SAFETY: `c` is NUL-terminated and lives for the call.
    let opened =
        check(unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) });
    let fd = match opened {
        Ok(fd) => fd,
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {
            return Err(FileSetError::Refused(format!(
                "{}: not a directory; a file set needs a directory to hold it",
                anchor.display()
            )));
        }
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
            return Err(FileSetError::Refused(format!(
                "{}: no such directory; kura makes its file set inside a directory that exists",
                anchor.display()
            )));
        }
        Err(e) => return Err(io_err(anchor, "opening the file-set anchor")(e)),
    };
    // SAFETY: a new descriptor nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Refuses a set too large without `force`, or one that cannot fit. Creates nothing.
pub fn check_room(anchor: &Path, anchor_fd: RawFd, shape: &Resolved) -> Result<(), FileSetError> {
    check_limit(anchor, anchor_fd, shape)?;
    check_fit(anchor, anchor_fd, shape, shape, false)
}

fn room(anchor: &Path, anchor_fd: RawFd) -> Result<(u64, Option<u64>, String), FileSetError> {
    let (free, inodes) = free_space(anchor_fd).map_err(io_err(anchor, "statvfs"))?;
    let shown = inodes.map_or_else(|| "uncounted".to_string(), |n| n.to_string());
    Ok((
        free,
        inodes,
        format!("there are {} and {shown} inodes free", format_size(free)),
    ))
}

/// More than `FILE_LIMIT` files formatted needs `force`.
fn check_limit(anchor: &Path, anchor_fd: RawFd, shape: &Resolved) -> Result<(), FileSetError> {
    let files = shape.total_files();
    if files > FILE_LIMIT && !shape.force {
        return Err(FileSetError::Refused(format!(
            "{}: the file set would create {}, more than {FILE_LIMIT} files; {}; pass --force to create it",
            anchor.display(),
            describe(shape),
            room(anchor, anchor_fd)?.2
        )));
    }
    Ok(())
}

/// Whether the set formatted as `shape`, and the files the job's mix makes
/// as it runs (`full`: mdtest's phases make every file), fit in the free
/// bytes and inodes; for a set `reused`, only what the mix makes counts.
/// One check for every mix: mdtest's files used to be left to fail one by one.
fn check_fit(
    anchor: &Path,
    anchor_fd: RawFd,
    shape: &Resolved,
    full: &Resolved,
    reused: bool,
) -> Result<(), FileSetError> {
    let (files, bytes) = if reused {
        (
            full.total_files().saturating_sub(shape.total_files()),
            full.total_bytes().saturating_sub(shape.total_bytes()),
        )
    } else {
        (
            full.total_files()
                .max(shape.total_files())
                .saturating_add(shape.dirs())
                .saturating_add(2),
            full.total_bytes().max(shape.total_bytes()),
        )
    };
    if files == 0 && bytes == 0 {
        return Ok(());
    }
    let (free, inodes, room) = room(anchor, anchor_fd)?;
    if bytes > free || inodes.is_some_and(|n| files > n) {
        let made = if full.total_files() > shape.total_files() {
            " (the job's mix makes its files as it runs)"
        } else {
            ""
        };
        return Err(FileSetError::Refused(format!(
            "{}: the file set does not fit: it needs {}{made}; {room}",
            anchor.display(),
            describe(full),
        )));
    }
    Ok(())
}

/// Progress of a format, reported about once a second.
pub type Report<'a> = &'a (dyn Fn(&str) + Sync);

/// The set under `anchor`: reused when kura's manifest there says it is
/// complete and of this shape, else formatted by `threads` threads.
pub fn prepare(
    anchor: &Path,
    shape: &Resolved,
    seed: u64,
    threads: u32,
    stop: &AtomicBool,
    report: Report<'_>,
) -> Result<FileSet, FileSetError> {
    prepare_for(anchor, shape, shape, seed, threads, stop, report)
}

/// [`prepare`] for a job whose mix may make more files than the set holds
/// (`full`, the job's own shape): they must fit too.
pub fn prepare_for(
    anchor: &Path,
    shape: &Resolved,
    full: &Resolved,
    seed: u64,
    threads: u32,
    stop: &AtomicBool,
    report: Report<'_>,
) -> Result<FileSet, FileSetError> {
    let p = Preparing {
        anchor,
        anchor_fd: open_anchor(anchor)?,
        root: anchor.join(ROOT),
        shape,
        full,
        report,
    };
    p.check_fd_limit()?;
    let want = Manifest {
        depth: shape.depth,
        width: shape.width,
        files: shape.files,
        file_size: shape.sizes.to_string(),
        seed,
        state: "complete".into(),
        made: shape.files,
    };
    if let Some(root_fd) = p.existing_root()? {
        let Some(found) = read_manifest(root_fd.as_raw_fd()) else {
            return Err(FileSetError::Refused(format!(
                "{}: exists without kura's manifest, so kura did not make it; remove it or choose another directory",
                p.root.display()
            )));
        };
        if found.same_shape(&want) && found.state == "complete" {
            return p.reuse(root_fd, &found);
        }
        p.remove_old(root_fd, &found)?;
    }
    p.create(seed, threads, stop)
}

/// A set being prepared under `anchor`: what [`prepare_for`]'s steps share.
struct Preparing<'a> {
    anchor: &'a Path,
    anchor_fd: OwnedFd,
    root: PathBuf,
    shape: &'a Resolved,
    full: &'a Resolved,
    report: Report<'a>,
}

impl Preparing<'_> {
    /// kura holds every leaf directory open: there must be descriptors enough.
    fn check_fd_limit(&self) -> Result<(), FileSetError> {
        let limit = raise_fd_limit();
        let leaves = self.shape.leaf_dirs();
        if leaves.saturating_add(SPARE_FDS) > limit {
            return Err(FileSetError::Refused(format!(
                "{}: the file set has {leaves} directories at its last level and kura holds each open, \
                 but only {limit} files may be open; lower width or depth (or raise ulimit -n)",
                self.anchor.display()
            )));
        }
        Ok(())
    }

    /// The root directory when there is one; a symlink or a file in its place is refused.
    fn existing_root(&self) -> Result<Option<OwnedFd>, FileSetError> {
        match open_dir_at(self.anchor_fd.as_raw_fd(), ROOT_C) {
            Ok(fd) => Ok(Some(fd)),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(None),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                Err(FileSetError::Refused(format!(
                    "{}: is not a directory kura made (a symlink or a file); kura neither follows nor removes it",
                    self.root.display()
                )))
            }
            Err(e) => Err(io_err(&self.root, "opening")(e)),
        }
    }

    /// The set in `root_fd`, its leaves not opened yet.
    fn set(self, root_fd: OwnedFd, seed: u64, created: bool, made: u64) -> FileSet {
        FileSet {
            anchor: self.anchor.to_path_buf(),
            root: self.root,
            root_fd,
            anchor_fd: self.anchor_fd,
            leaves: Vec::new(),
            leaf_paths: Vec::new(),
            depth: self.shape.depth,
            width: self.shape.width,
            files_per_leaf: self.shape.files,
            sizes: self.shape.sizes.clone(),
            seed,
            created,
            made: AtomicU64::new(made),
        }
    }

    /// kura's complete set of this shape, as `found` describes it.
    fn reuse(self, root_fd: OwnedFd, found: &Manifest) -> Result<FileSet, FileSetError> {
        check_fit(
            self.anchor,
            self.anchor_fd.as_raw_fd(),
            self.shape,
            self.full,
            true,
        )?;
        let report = self.report;
        let mut set = self.set(root_fd, found.seed, false, found.made);
        open_leaves(&mut set)?;
        report(&format!(
            "reusing the file set in {} ({} files)",
            set.root.display(),
            set.total_files()
        ));
        Ok(set)
    }

    /// Removes kura's own set of another shape, or one a run left half made,
    /// but only when everything in it is an entry its manifest lists; the
    /// check comes first, so a refusal has removed nothing.
    fn remove_old(&self, root_fd: OwnedFd, found: &Manifest) -> Result<(), FileSetError> {
        let root = &self.root;
        refuse_unlisted(root_fd.as_raw_fd(), root, found)?;
        (self.report)(&format!(
            "{}: kura's set there is {} ({}); removing it",
            set_desc(found),
            found.state,
            root.display()
        ));
        // A removal that stops half way must not leave a manifest saying the set is whole.
        write_manifest(
            root_fd.as_raw_fd(),
            root,
            &Manifest {
                state: "removing".into(),
                ..found.clone()
            },
        )?;
        let mut left = Vec::new();
        remove_contents(root_fd.as_raw_fd(), root, 0, found.layout(), &mut left);
        if !left.is_empty() {
            return Err(FileSetError::Refused(format!(
                "{}: cannot rebuild the file set: {}",
                root.display(),
                left.join("; ")
            )));
        }
        // SAFETY: the name is NUL-terminated and the root fd is open.
        unsafe { libc::unlinkat(root_fd.as_raw_fd(), MANIFEST_C.as_ptr(), 0) };
        drop(root_fd);
        // SAFETY: as above, for the anchor.
        check(unsafe { libc::unlinkat(self.anchor_fd.as_raw_fd(), ROOT_C.as_ptr(), libc::AT_REMOVEDIR) })
            .map_err(io_err(root, "removing the old file set"))?;
        Ok(())
    }

    /// Makes the root and formats the set in it by `threads` threads; a
    /// format that fails removes what it made.
    fn create(self, seed: u64, threads: u32, stop: &AtomicBool) -> Result<FileSet, FileSetError> {
        let anchor_fd = self.anchor_fd.as_raw_fd();
        check_limit(self.anchor, anchor_fd, self.shape)?;
        check_fit(self.anchor, anchor_fd, self.shape, self.full, false)?;
        // SAFETY: the name is NUL-terminated and the anchor fd is open.
        check(unsafe { libc::mkdirat(anchor_fd, ROOT_C.as_ptr(), 0o755) })
            .map_err(io_err(&self.root, "creating"))?;
        let root_fd = open_dir_at(anchor_fd, ROOT_C).map_err(io_err(&self.root, "opening"))?;
        let (report, files) = (self.report, self.shape.files);
        let mut set = self.set(root_fd, seed, true, files);
        match format(&mut set, threads, stop, report) {
            Ok(()) => Ok(set),
            Err(e) => {
                let root = set.root.clone();
                let left = set.remove();
                if left.is_empty() {
                    Err(e)
                } else {
                    Err(FileSetError::Refused(format!(
                        "{e}; and removing {} left: {}",
                        root.display(),
                        left.join("; ")
                    )))
                }
            }
        }
    }
}

/// What [`prepare_for`] would refuse, found before a run's first I/O, so
/// that a suite is refused before its first job rather than at its file-set
/// job: a root that is not kura's, kura's set of another shape holding an
/// entry its manifest does not list, a set or a mix's files that do not
/// fit. Creates, removes and writes nothing.
pub fn check_before(anchor: &Path, shape: &Resolved, full: &Resolved) -> Result<(), FileSetError> {
    let anchor_fd = open_anchor(anchor)?;
    let root = anchor.join(ROOT);
    match open_dir_at(anchor_fd.as_raw_fd(), ROOT_C) {
        Ok(root_fd) => {
            let Some(found) = read_manifest(root_fd.as_raw_fd()) else {
                return Err(FileSetError::Refused(format!(
                    "{}: exists without kura's manifest, so kura did not make it; remove it or choose another directory",
                    root.display()
                )));
            };
            let same = (found.depth, found.width, found.files, found.file_size.as_str())
                == (
                    shape.depth,
                    shape.width,
                    shape.files,
                    shape.sizes.to_string().as_str(),
                );
            if same && found.state == "complete" {
                return check_fit(anchor, anchor_fd.as_raw_fd(), shape, full, true);
            }
            // Rebuilt by `prepare_for`, which checks the room once the old set is gone.
            refuse_unlisted(root_fd.as_raw_fd(), &root, &found)
        }
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
            check_limit(anchor, anchor_fd.as_raw_fd(), shape)?;
            check_fit(anchor, anchor_fd.as_raw_fd(), shape, full, false)
        }
        Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
            Err(FileSetError::Refused(format!(
                "{}: is not a directory kura made (a symlink or a file); kura neither follows nor removes it",
                root.display()
            )))
        }
        Err(e) => Err(io_err(&root, "opening")(e)),
    }
}

/// Refuses a set kura would rebuild when anything in it is not an entry its
/// manifest lists: a user's file put inside, a link, a file numbered past
/// the set's. A rebuild used to remove the set around such a file, then
/// refuse, leaving a manifest that still said `state=complete`.
fn refuse_unlisted(root_fd: RawFd, root: &Path, found: &Manifest) -> Result<(), FileSetError> {
    let mut foreign = Vec::new();
    find_unlisted(root_fd, root, 0, found.layout(), &mut foreign);
    let Some(first) = foreign.first() else {
        return Ok(());
    };
    let more = match foreign.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Err(FileSetError::Refused(format!(
        "{}: kura's file set there ({}, {}) would be rebuilt for this job, but it holds {first}{more}, which its \
         manifest does not list; kura removes nothing of it: move that out, or choose another directory",
        root.display(),
        set_desc(found),
        found.state
    )))
}

/// Entries below `dir` that are not what the manifest's layout names, or
/// not of the kind it names (at most 16, for a message).
fn find_unlisted(dir: RawFd, path: &Path, level: u32, layout: Layout, out: &mut Vec<String>) {
    let names = match entry_names(dir) {
        Ok(n) => n,
        Err(e) => {
            out.push(format!("{} (cannot list it: {e})", path.display()));
            return;
        }
    };
    for name in names {
        if out.len() >= 16 {
            return;
        }
        let shown = path.join(String::from_utf8_lossy(&name).as_ref());
        let Ok(c) = std::ffi::CString::new(name.clone()) else {
            continue;
        };
        let Some(want_dir) = kura_entry(&name, level, layout) else {
            out.push(shown.display().to_string());
            continue;
        };
        let kind = match stat_at(dir, &c) {
            Ok(st) => st.st_mode & libc::S_IFMT,
            Err(e) => {
                out.push(format!("{} ({e})", shown.display()));
                continue;
            }
        };
        match (want_dir, kind) {
            (true, libc::S_IFDIR) => match open_dir_at(dir, &c) {
                // Directories of the last level (`x<t>-<n>`) hold nothing of kura's.
                Ok(fd) if level < layout.depth => {
                    find_unlisted(fd.as_raw_fd(), &shown, level + 1, layout, out)
                }
                Ok(fd) => match entry_names(fd.as_raw_fd()) {
                    Ok(inside) if inside.is_empty() => {}
                    Ok(inside) => out.push(
                        shown
                            .join(String::from_utf8_lossy(&inside[0]).as_ref())
                            .display()
                            .to_string(),
                    ),
                    Err(e) => out.push(format!("{} ({e})", shown.display())),
                },
                Err(e) => out.push(format!("{} ({e})", shown.display())),
            },
            (false, libc::S_IFREG) => {}
            _ => out.push(format!("{} (a symlink or another kind of file)", shown.display())),
        }
    }
}

fn set_desc(m: &Manifest) -> String {
    format!(
        "depth {} width {} files {} size {}",
        m.depth, m.width, m.files, m.file_size
    )
}

/// Makes the directories, then every file, in parallel, reporting the rate.
fn format(
    set: &mut FileSet,
    threads: u32,
    stop: &AtomicBool,
    report: Report<'_>,
) -> Result<(), FileSetError> {
    set.write_manifest("formatting")?;
    make_dirs(set.root_fd(), &set.root, set.depth, set.width)?;
    open_leaves(set)?;
    let total = set.total_files();
    let bytes = set.total_bytes();
    let done = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let started = Instant::now();
    let set_ref: &FileSet = set;
    let result: Result<(), FileSetError> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|t| {
                let done = &done;
                let failed = &failed;
                scope.spawn(move || -> Result<(), FileSetError> {
                    let mut buf = fill_buffer(
                        set_ref.sizes.max().min(1 << 20) as usize,
                        set_ref.seed ^ u64::from(t),
                    );
                    let mut name = NameBuf::default();
                    let mut i = u64::from(t);
                    while i < total {
                        if stop.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed) {
                            return Ok(());
                        }
                        let (leaf, j) = set_ref.locate(i);
                        stamp(&mut buf, set_ref.seed, i);
                        if let Err(e) =
                            write_untimed_file(set_ref.leaf_fd(leaf), name.file(j), set_ref.size_of(i), &buf)
                        {
                            failed.store(true, Ordering::Relaxed);
                            let path = set_ref
                                .root
                                .join(String::from_utf8_lossy(set_ref.leaf_path(leaf)).as_ref());
                            return Err(FileSetError::Io {
                                path: path.join(format!("f{j}")).display().to_string(),
                                what: "formatting the file set",
                                source: e,
                            });
                        }
                        done.fetch_add(1, Ordering::Relaxed);
                        i += u64::from(threads.max(1));
                    }
                    Ok(())
                })
            })
            .collect();
        let mut last = Instant::now();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(50));
            if last.elapsed() >= Duration::from_secs(1) {
                last = Instant::now();
                let n = done.load(Ordering::Relaxed);
                let secs = started.elapsed().as_secs_f64().max(1e-3);
                report(&format!(
                    "formatting {}: {n}/{total} files, {:.0} files/s",
                    set_ref.root.display(),
                    n as f64 / secs
                ));
            }
        }
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err(FileSetError::Refused("a format thread panicked".into())))
        })
    });
    result?;
    if stop.load(Ordering::Relaxed) {
        return Err(FileSetError::Stopped(set.anchor.display().to_string()));
    }
    let secs = started.elapsed().as_secs_f64().max(1e-3);
    report(&format!(
        "formatted {}: {total} files, {} in {secs:.1} s ({:.0} files/s)",
        set.root.display(),
        format_size(bytes),
        total as f64 / secs
    ));
    set.write_manifest("complete")
}

/// Bytes to write into files: not zeros, which a file system may compress or skip.
pub fn fill_buffer(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len.max(1))
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Makes `buf` the content of file `index` of the set made with `seed`:
/// each 4 KiB block starts with the seed and the file's number, so no two
/// files share a block. With one buffer for every file, files of one size
/// were byte for byte the same and a deduplicating file system kept one.
pub fn stamp(buf: &mut [u8], seed: u64, index: u64) {
    for block in buf.chunks_mut(4096) {
        for (b, v) in block
            .iter_mut()
            .zip(seed.to_le_bytes().into_iter().chain(index.to_le_bytes()))
        {
            *b = v;
        }
    }
}

/// How long [`create_untimed`] waits out a client's cache that still shows
/// an entry its server no longer has: sshfs keeps what it saw 20 s (its
/// `dcache_timeout`), FUSE's kernel entry 1 s; an NFS client's attributes
/// last up to `acregmax`, 60 s, but its exclusive create asks the server.
const STALE_ENTRY_WAIT: Duration = Duration::from_secs(30);

/// Creates `name` in `dir`, which must not hold it (O_CREAT|O_EXCL|O_NOFOLLOW),
/// for what is not timed: a format and a job's putting the set back.
///
/// A client of a shared file system may fail the create with EEXIST for a
/// name another host removed: sshfs answers lookups from its cache of what
/// it last saw (docs/cluster.md, "A shared set formatted again"), so the
/// kernel refuses the exclusive create without asking the server. Such an
/// EEXIST is checked with the server ([`absent_from_server`]) and the
/// create tried again until the cache agrees. An entry that is there stays
/// EEXIST: nothing that exists is opened for writing, written or removed.
pub fn create_untimed(dir: RawFd, name: &CStr) -> io::Result<OwnedFd> {
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL;
    let started = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        let refused = match open_at(dir, name, flags, 0o644) {
            Ok(fd) => return Ok(fd),
            Err(e) => e,
        };
        if refused.raw_os_error() != Some(libc::EEXIST)
            || started.elapsed() >= STALE_ENTRY_WAIT
            || !absent_from_server(dir, name)
        {
            return Err(refused);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(500));
    }
}

/// Whether `name`, which an exclusive create just found, is absent where the
/// file system keeps it. A lookup may be answered from a client's cache, an
/// open is not: sshfs asks its server, and on "no such file" drops what it
/// cached. Only a regular file is opened (read-only, non-blocking, never
/// through a symlink): kura's files are regular, anything else is not kura's
/// and stays EEXIST.
fn absent_from_server(dir: RawFd, name: &CStr) -> bool {
    let gone = |e: &io::Error| e.raw_os_error() == Some(libc::ENOENT);
    match stat_at(dir, name) {
        Err(e) => gone(&e),
        Ok(st) if st.st_mode & libc::S_IFMT != libc::S_IFREG => false,
        Ok(_) => {
            let flags = libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY;
            matches!(open_at(dir, name, flags, 0), Err(e) if gone(&e))
        }
    }
}

/// [`create_untimed`], then `size` bytes from `buf` over and over, closed.
pub fn write_untimed_file(dir: RawFd, name: &CStr, size: u64, buf: &[u8]) -> io::Result<()> {
    let fd = create_untimed(dir, name)?;
    write_all(fd.as_raw_fd(), 0, size, buf)
}

/// Creates a file that must not exist, writes `size` bytes from `buf` over and over, closes it.
pub fn write_new_file(dir: RawFd, name: &CStr, size: u64, buf: &[u8]) -> io::Result<()> {
    let fd = open_at(dir, name, libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL, 0o644)?;
    write_all(fd.as_raw_fd(), 0, size, buf)
}

/// [`write_new_file`], made durable (`fsync`) before it is closed.
pub fn write_new_durable_file(dir: RawFd, name: &CStr, size: u64, buf: &[u8]) -> io::Result<()> {
    let fd = open_at(dir, name, libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL, 0o644)?;
    write_all(fd.as_raw_fd(), 0, size, buf)?;
    // SAFETY: fsync only reads the descriptor, which is open.
    match unsafe { libc::fsync(fd.as_raw_fd()) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Writes `len` bytes at `offset` from `buf`, repeated as needed.
pub fn write_all(fd: RawFd, offset: u64, len: u64, buf: &[u8]) -> io::Result<()> {
    let mut done = 0u64;
    while done < len {
        let n = (len - done).min(buf.len() as u64) as usize;
        // SAFETY: `buf` holds at least `n` bytes for the call.
        let rc = unsafe { libc::pwrite(fd, buf.as_ptr().cast(), n, (offset + done) as libc::off_t) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        if rc == 0 {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        done += rc as u64;
    }
    Ok(())
}

fn make_dirs(dir: RawFd, path: &Path, levels: u32, width: u32) -> Result<(), FileSetError> {
    if levels == 0 {
        return Ok(());
    }
    let mut name = NameBuf::default();
    for i in 0..u64::from(width) {
        let c = name.dir(i);
        let child = path.join(format!("d{i}"));
        // SAFETY: `c` is NUL-terminated and `dir` open for the call.
        check(unsafe { libc::mkdirat(dir, c.as_ptr(), 0o755) }).map_err(io_err(&child, "creating"))?;
        let fd = open_dir_at(dir, name.dir(i)).map_err(io_err(&child, "opening"))?;
        make_dirs(fd.as_raw_fd(), &child, levels - 1, width)?;
    }
    Ok(())
}

/// Opens every directory of the last level by walking from the root, one
/// component at a time with O_NOFOLLOW: a symlink put in place of one is refused.
fn open_leaves(set: &mut FileSet) -> Result<(), FileSetError> {
    let leaves = u64::from(set.width).pow(set.depth);
    let mut name = NameBuf::default();
    set.leaves.clear();
    set.leaf_paths.clear();
    for leaf in 0..leaves {
        let mut digits = vec![0u64; set.depth as usize];
        let mut rest = leaf;
        for d in digits.iter_mut().rev() {
            *d = rest % u64::from(set.width);
            rest /= u64::from(set.width);
        }
        let mut fd: Option<OwnedFd> = None;
        let mut rel = Vec::new();
        for d in &digits {
            let parent = fd.as_ref().map_or(set.root_fd(), |f| f.as_raw_fd());
            rel.extend_from_slice(format!("d{d}/").as_bytes());
            let next = open_dir_at(parent, name.dir(*d)).map_err(|e| {
                let path = set.root.join(String::from_utf8_lossy(&rel).as_ref());
                if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) {
                    FileSetError::Refused(format!(
                        "{}: is not a directory kura made (a symlink or a file); kura does not follow it",
                        path.display()
                    ))
                } else {
                    io_err(&path, "opening")(e)
                }
            })?;
            fd = Some(next);
        }
        let fd = match fd {
            Some(f) => f,
            None => open_dir_at(set.root_fd(), c".").map_err(io_err(&set.root, "opening"))?,
        };
        set.leaves.push(fd);
        set.leaf_paths.push(rel);
    }
    Ok(())
}

/// Names of a directory's entries, `.` and `..` left out.
pub fn entry_names(dir: RawFd) -> io::Result<Vec<Vec<u8>>> {
    let fd = open_dir_at(dir, c".")?;
    let mut buf = vec![0u8; 32 * 1024];
    let mut names = Vec::new();
    loop {
        let n = getdents(fd.as_raw_fd(), &mut buf)?;
        if n == 0 {
            return Ok(names);
        }
        for_each_entry(&buf[..n], |name| {
            if name != b"." && name != b".." {
                names.push(name.to_vec());
            }
        });
    }
}

/// One getdents64 call into `buf`; 0 at the end of the directory.
pub fn getdents(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is writable for its whole length for the call.
    let n = unsafe { libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len()) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Calls `f` with each entry's name in a buffer getdents64 filled.
pub fn for_each_entry(buf: &[u8], mut f: impl FnMut(&[u8])) {
    // linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name.
    let mut at = 0;
    while at + 19 <= buf.len() {
        let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
        if reclen == 0 || at + reclen > buf.len() {
            break;
        }
        let name = &buf[at + 19..at + reclen];
        let end = name.iter().position(|b| *b == 0).unwrap_or(name.len());
        f(&name[..end]);
        at += reclen;
    }
}

fn digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

/// The names a manifest lists: its levels, their width, and the files per leaf.
#[derive(Debug, Clone, Copy)]
struct Layout {
    depth: u32,
    width: u32,
    made: u64,
}

impl Manifest {
    fn layout(&self) -> Layout {
        Layout {
            depth: self.depth,
            width: self.width,
            made: self.made.max(self.files),
        }
    }
}

/// What kura names in a directory at `level` of a set: `d<n>` directories
/// (n below the width) above the last level; `f<n>` and `f<n>.r` files (n
/// below the files made) and `x<t>-<n>` directories in it; the manifest in
/// the root. Whether it is a directory; `None` for a name that is not kura's.
fn kura_entry(name: &[u8], level: u32, layout: Layout) -> Option<bool> {
    let Layout { depth, width, made } = layout;
    let is_dir = true;
    if level == 0 && name == MANIFEST.as_bytes() {
        return Some(!is_dir);
    }
    if level < depth {
        return name
            .strip_prefix(b"d")
            .and_then(digits)
            .filter(|n| *n < u64::from(width))
            .map(|_| is_dir);
    }
    if let Some(rest) = name.strip_prefix(b"f") {
        let num = rest.strip_suffix(b".r").unwrap_or(rest);
        return digits(num).filter(|n| *n < made).map(|_| !is_dir);
    }
    if let Some(rest) = name.strip_prefix(b"x") {
        let (t, n) = rest.split_at(rest.iter().position(|b| *b == b'-')?);
        return (digits(t).is_some() && digits(&n[1..]).is_some()).then_some(is_dir);
    }
    None
}

/// Removes, below `dir`, what kura names (regular files as files,
/// directories as directories once emptied); leaves the rest, noted in `left`.
fn remove_contents(dir: RawFd, path: &Path, level: u32, layout: Layout, left: &mut Vec<String>) {
    // A client that caches listings (sshfs for 20 s, NFS by its attribute
    // cache) lists what other clients of a shared set have removed and misses
    // what they made. Removing through it refreshes its listing of that
    // directory, so it is listed again until a listing holds nothing to remove.
    const PASSES: u32 = 4;
    for pass in 1..=PASSES {
        let mut this_pass = Vec::new();
        let changed = remove_listed(dir, path, level, layout, &mut this_pass);
        if !changed || pass == PASSES {
            left.append(&mut this_pass);
            break;
        }
    }
    if level == 0 && left.is_empty() {
        // SAFETY: the name is NUL-terminated and `dir` open for the call.
        unsafe { libc::unlinkat(dir, MANIFEST_C.as_ptr(), 0) };
    }
}

/// One pass of `remove_contents` over one listing of `dir`: whether it
/// removed anything or found the listing stale (a name already gone).
fn remove_listed(dir: RawFd, path: &Path, level: u32, layout: Layout, left: &mut Vec<String>) -> bool {
    let names = match entry_names(dir) {
        Ok(n) => n,
        Err(e) => {
            left.push(format!("{}: cannot list: {e}", path.display()));
            return false;
        }
    };
    let gone = |e: &io::Error| e.raw_os_error() == Some(libc::ENOENT);
    let mut changed = false;
    for name in names {
        let shown = path.join(String::from_utf8_lossy(&name).as_ref());
        let Ok(c) = std::ffi::CString::new(name.clone()) else {
            continue;
        };
        let Some(want_dir) = kura_entry(&name, level, layout) else {
            left.push(format!("{}: left: kura did not make it", shown.display()));
            continue;
        };
        let st = match stat_at(dir, &c) {
            Ok(st) => st,
            Err(e) if gone(&e) => {
                changed = true;
                continue;
            }
            Err(e) => {
                left.push(format!("{}: left: {e}", shown.display()));
                continue;
            }
        };
        let kind = st.st_mode & libc::S_IFMT;
        if want_dir && kind == libc::S_IFDIR {
            if level < layout.depth {
                match open_dir_at(dir, &c) {
                    Ok(fd) => remove_contents(fd.as_raw_fd(), &shown, level + 1, layout, left),
                    Err(e) if gone(&e) => {
                        changed = true;
                        continue;
                    }
                    Err(e) => {
                        left.push(format!("{}: left: {e}", shown.display()));
                        continue;
                    }
                }
            }
            // SAFETY: `c` is NUL-terminated and `dir` open for the call.
            if unsafe { libc::unlinkat(dir, c.as_ptr(), libc::AT_REMOVEDIR) } == 0 {
                changed = true;
            } else {
                let e = io::Error::last_os_error();
                if gone(&e) {
                    changed = true;
                } else if e.raw_os_error() != Some(libc::ENOTEMPTY) || left.is_empty() {
                    left.push(format!("{}: left: {e}", shown.display()));
                }
            }
        } else if !want_dir && kind == libc::S_IFREG {
            if level == 0 && name == MANIFEST.as_bytes() {
                // Removed last, by the caller, so an interrupted cleanup still reads as kura's.
                continue;
            }
            // SAFETY: as above.
            if unsafe { libc::unlinkat(dir, c.as_ptr(), 0) } == 0 {
                changed = true;
            } else {
                let e = io::Error::last_os_error();
                if gone(&e) {
                    changed = true;
                } else {
                    left.push(format!("{}: left: {e}", shown.display()));
                }
            }
        } else {
            left.push(format!(
                "{}: left: not the {} kura made (a symlink or another kind of file)",
                shown.display(),
                if want_dir { "directory" } else { "regular file" }
            ));
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::fileset::FileSetParams;

    fn shape(depth: u32, width: u32, files: u64) -> Resolved {
        FileSetParams {
            depth: Some(depth),
            width: Some(width),
            files: Some(files),
            file_size: Some("1k".into()),
            ..Default::default()
        }
        .resolve()
        .unwrap()
    }

    fn tree(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let e = e.unwrap();
                out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
                if e.file_type().unwrap().is_dir() {
                    stack.push(e.path());
                }
            }
        }
        out.sort();
        out
    }

    /// An entry that is there, a file or a symlink, stays EEXIST (only one
    /// the file system says is absent is tried again), and nothing of it changes.
    #[test]
    fn an_untimed_create_never_takes_an_entry_that_is_there() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = open_anchor(tmp.path()).unwrap();
        std::fs::write(tmp.path().join("f0"), b"theirs").unwrap();
        std::fs::write(tmp.path().join("target"), b"kept").unwrap();
        std::os::unix::fs::symlink("target", tmp.path().join("f1")).unwrap();
        for name in [c"f0", c"f1"] {
            let e = write_untimed_file(dir.as_raw_fd(), name, 4096, &[7u8; 4096]).unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::EEXIST), "{name:?}");
        }
        assert_eq!(std::fs::read(tmp.path().join("f0")).unwrap(), b"theirs");
        assert_eq!(std::fs::read(tmp.path().join("target")).unwrap(), b"kept");
        write_untimed_file(dir.as_raw_fd(), c"f2", 4096, &[7u8; 4096]).unwrap();
        assert_eq!(std::fs::metadata(tmp.path().join("f2")).unwrap().len(), 4096);
    }

    #[test]
    fn formats_reuses_and_removes_only_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("mine"), b"x").unwrap();
        let before = tree(tmp.path());
        let stop = AtomicBool::new(false);
        let s = shape(2, 3, 4);
        let set = prepare(tmp.path(), &s, 1, 2, &stop, &|_| {}).unwrap();
        assert!(set.created);
        assert_eq!(set.total_files(), 36);
        assert_eq!(
            std::fs::metadata(tmp.path().join("kura-fileset/d2/d1/f3"))
                .unwrap()
                .len(),
            1024
        );
        drop(set);
        let again = prepare(tmp.path(), &s, 9, 2, &stop, &|_| {}).unwrap();
        assert!(!again.created, "a complete set of the same shape is reused");
        assert_eq!(again.seed, 1, "with the seed it was made with");
        // Someone else's file inside is left, and so is the root holding it.
        std::fs::write(tmp.path().join("kura-fileset/d0/theirs"), b"y").unwrap();
        let left = again.remove();
        assert!(left.iter().any(|l| l.contains("theirs")), "{left:?}");
        assert!(tmp.path().join("kura-fileset/d0/theirs").exists());
        std::fs::remove_file(tmp.path().join("kura-fileset/d0/theirs")).unwrap();
        let set = prepare(tmp.path(), &s, 1, 1, &stop, &|_| {}).unwrap();
        assert!(set.remove().is_empty());
        assert_eq!(tree(tmp.path()), before);
    }

    #[test]
    fn refuses_a_symlink_in_place_of_the_root_or_a_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), tmp.path().join(ROOT)).unwrap();
        let stop = AtomicBool::new(false);
        let e = prepare(tmp.path(), &shape(1, 2, 2), 1, 1, &stop, &|_| {}).unwrap_err();
        assert!(e.to_string().contains("symlink"), "{e}");
        assert!(tree(outside.path()).is_empty());
    }

    #[test]
    fn refuses_too_many_files_and_what_is_not_a_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let stop = AtomicBool::new(false);
        let e = prepare(tmp.path(), &shape(2, 100, 11), 1, 1, &stop, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("110000 files in 10100 directories"), "{e}");
        assert!(e.contains("inodes free") && e.contains("--force"), "{e}");
        assert!(tree(tmp.path()).is_empty());
        let file = tmp.path().join("f");
        std::fs::write(&file, b"").unwrap();
        let e = prepare(&file, &shape(1, 1, 1), 1, 1, &stop, &|_| {}).unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
    }

    #[test]
    fn a_rebuild_refused_for_an_unlisted_entry_removes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let stop = AtomicBool::new(false);
        drop(prepare(tmp.path(), &shape(1, 2, 2), 1, 1, &stop, &|_| {}).unwrap());
        // Written by a kura without `made`: only the set's own files are listed.
        let manifest = tmp.path().join("kura-fileset/kura-manifest");
        let old = std::fs::read_to_string(&manifest)
            .unwrap()
            .replace("made=2\n", "");
        std::fs::write(&manifest, &old).unwrap();
        std::fs::write(tmp.path().join("kura-fileset/d1/f2"), b"theirs").unwrap();
        let before = tree(tmp.path());
        let e = prepare(tmp.path(), &shape(1, 2, 3), 1, 1, &stop, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("d1/f2") && e.contains("removes nothing"), "{e}");
        assert_eq!(tree(tmp.path()), before);
        assert_eq!(
            std::fs::read_to_string(&manifest).unwrap(),
            old,
            "the manifest was rewritten"
        );
        let e = check_before(tmp.path(), &shape(1, 2, 3), &shape(1, 2, 3)).unwrap_err();
        assert!(e.to_string().contains("d1/f2"), "{e}");
        // Once it is gone, the set is rebuilt, and the manifest says what it holds.
        std::fs::remove_file(tmp.path().join("kura-fileset/d1/f2")).unwrap();
        check_before(tmp.path(), &shape(1, 2, 3), &shape(1, 2, 3)).unwrap();
        let set = prepare(tmp.path(), &shape(1, 2, 3), 1, 1, &stop, &|_| {}).unwrap();
        assert!(set.created);
        let text = std::fs::read_to_string(&manifest).unwrap();
        assert!(text.contains("files=3\n") && text.contains("made=3\n") && text.contains("state=complete\n"));
    }

    #[test]
    fn names_are_built_without_allocating() {
        let mut n = NameBuf::default();
        assert_eq!(n.file(0).to_bytes(), b"f0");
        assert_eq!(n.file(1234567).to_bytes(), b"f1234567");
        assert_eq!(n.renamed(5).to_bytes(), b"f5.r");
        assert_eq!(n.extra_dir(2, 10).to_bytes(), b"x2-10");
        let layout = Layout {
            depth: 1,
            width: 3,
            made: 13,
        };
        assert_eq!(kura_entry(b"f12.r", 1, layout), Some(false));
        assert_eq!(
            kura_entry(b"f13", 1, layout),
            None,
            "past the files the manifest lists"
        );
        assert_eq!(kura_entry(b"d2", 0, layout), Some(true));
        assert_eq!(kura_entry(b"d3", 0, layout), None);
        assert_eq!(kura_entry(b"fx", 1, layout), None);
    }
}
