//! A FUSE file system for fault tests, in memory, served by the test process
//! (the `fuser` crate mounts as root without libfuse): EIO on reads of
//! chosen byte ranges, ENOSPC once writes pass a total, a delay on every Nth
//! read or write, and silent corruption (one byte flipped as it is stored)
//! at chosen offsets. Write faults start after `after_bytes` written, so a
//! test file kura pre-fills is created whole. Unmounted by its own
//! directory name on drop, even when the test fails.
#![allow(dead_code)]

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fuser::{
    Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, LockOwner,
    MountOption, OpenFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry,
    ReplyOpen, ReplyStatfs, ReplyWrite, Request, TimeOrNow, WriteFlags,
};

/// What goes wrong, and when.
#[derive(Debug, Default, Clone)]
pub struct Faults {
    /// Reads touching these byte ranges fail with EIO.
    pub eio_reads: Vec<Range<u64>>,
    /// Write faults start once this many bytes were written (the pre-fill).
    pub after_bytes: u64,
    /// Writes fail with ENOSPC once this many bytes were written in all.
    pub enospc_after: Option<u64>,
    /// The byte at each offset is stored flipped (the write reports success).
    pub corrupt: Vec<u64>,
    /// Every Nth read or write waits this long first.
    pub delay: Option<(u64, Duration)>,
}

/// What the file system saw.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    pub written_bytes: u64,
    pub eio: u64,
    pub enospc: u64,
    pub corrupted: u64,
    pub delayed: u64,
    ops: u64,
}

struct Node {
    name: OsString,
    data: Vec<u8>,
}

struct State {
    files: HashMap<u64, Node>,
    next_ino: u64,
    faults: Faults,
    seen: Seen,
}

#[derive(Clone)]
pub struct FaultFs(Arc<Mutex<State>>);

const TTL: Duration = Duration::ZERO;
const CAPACITY: u64 = 1 << 30;

fn attr(ino: u64, kind: FileType, size: u64) -> FileAttr {
    FileAttr {
        ino: INodeNo(ino),
        size,
        blocks: size.div_ceil(512),
        atime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        ctime: UNIX_EPOCH,
        crtime: UNIX_EPOCH,
        kind,
        perm: if kind == FileType::Directory { 0o755 } else { 0o644 },
        nlink: if kind == FileType::Directory { 2 } else { 1 },
        uid: 0,
        gid: 0,
        rdev: 0,
        flags: 0,
        blksize: 4096,
    }
}

impl FaultFs {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn file_attr(&self, ino: u64) -> Option<FileAttr> {
        if ino == 1 {
            return Some(attr(1, FileType::Directory, 0));
        }
        self.state()
            .files
            .get(&ino)
            .map(|n| attr(ino, FileType::RegularFile, n.data.len() as u64))
    }

    /// Sleeps when this op is a delayed one (outside the lock).
    fn maybe_delay(&self) {
        let wait = {
            let mut s = self.state();
            s.seen.ops += 1;
            match s.faults.delay {
                Some((every, d)) if s.seen.ops.is_multiple_of(every) => {
                    s.seen.delayed += 1;
                    Some(d)
                }
                _ => None,
            }
        };
        if let Some(d) = wait {
            std::thread::sleep(d);
        }
    }
}

impl Filesystem for FaultFs {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let found = (u64::from(parent) == 1)
            .then(|| {
                let s = self.state();
                s.files
                    .iter()
                    .find(|(_, n)| n.name == name)
                    .map(|(ino, n)| attr(*ino, FileType::RegularFile, n.data.len() as u64))
            })
            .flatten();
        match found {
            Some(a) => reply.entry(&TTL, &a, Generation(0)),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.file_attr(ino.into()) {
            Some(a) => reply.attr(&TTL, &a),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        if let Some(size) = size
            && let Some(n) = self.state().files.get_mut(&u64::from(ino))
        {
            n.data.resize(size as usize, 0);
        }
        match self.file_attr(ino.into()) {
            Some(a) => reply.attr(&TTL, &a),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn create(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        _mode: u32,
        _umask: u32,
        _flags: i32,
        reply: ReplyCreate,
    ) {
        if u64::from(parent) != 1 {
            return reply.error(Errno::ENOENT);
        }
        let mut s = self.state();
        if s.files.values().any(|n| n.name == name) {
            return reply.error(Errno::EEXIST);
        }
        let ino = s.next_ino;
        s.next_ino += 1;
        s.files.insert(
            ino,
            Node {
                name: name.to_owned(),
                data: Vec::new(),
            },
        );
        reply.created(
            &TTL,
            &attr(ino, FileType::RegularFile, 0),
            Generation(0),
            FileHandle(0),
            FopenFlags::empty(),
        );
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        match self.file_attr(ino.into()) {
            Some(_) => reply.opened(FileHandle(0), FopenFlags::empty()),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        self.maybe_delay();
        let mut s = self.state();
        let end = offset + size as u64;
        if s.faults.eio_reads.iter().any(|r| r.start < end && offset < r.end) {
            s.seen.eio += 1;
            return reply.error(Errno::EIO);
        }
        match s.files.get(&u64::from(ino)) {
            Some(n) => {
                let len = n.data.len() as u64;
                let (a, b) = (offset.min(len) as usize, end.min(len) as usize);
                reply.data(&n.data[a..b]);
            }
            None => reply.error(Errno::ENOENT),
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        self.maybe_delay();
        let mut s = self.state();
        let armed = s.seen.written_bytes >= s.faults.after_bytes;
        if let Some(limit) = s.faults.enospc_after
            && s.seen.written_bytes + data.len() as u64 > limit
        {
            s.seen.enospc += 1;
            return reply.error(Errno::ENOSPC);
        }
        let corrupt: Vec<u64> = if armed {
            s.faults
                .corrupt
                .iter()
                .copied()
                .filter(|&c| c >= offset && c < offset + data.len() as u64)
                .collect()
        } else {
            Vec::new()
        };
        s.seen.corrupted += corrupt.len() as u64;
        s.seen.written_bytes += data.len() as u64;
        let Some(n) = s.files.get_mut(&u64::from(ino)) else {
            return reply.error(Errno::ENOENT);
        };
        let end = offset as usize + data.len();
        if n.data.len() < end {
            n.data.resize(end, 0);
        }
        n.data[offset as usize..end].copy_from_slice(data);
        for c in corrupt {
            n.data[c as usize] ^= 0xff;
        }
        reply.written(data.len() as u32);
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn fsync(&self, _req: &Request, _ino: INodeNo, _fh: FileHandle, _datasync: bool, reply: ReplyEmpty) {
        reply.ok();
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let mut s = self.state();
        let ino = s.files.iter().find(|(_, n)| n.name == name).map(|(i, _)| *i);
        match (u64::from(parent), ino) {
            (1, Some(ino)) => {
                s.files.remove(&ino);
                reply.ok();
            }
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn readdir(&self, _req: &Request, ino: INodeNo, _fh: FileHandle, offset: u64, mut reply: ReplyDirectory) {
        if u64::from(ino) != 1 {
            return reply.error(Errno::ENOTDIR);
        }
        let s = self.state();
        let mut entries: Vec<(u64, FileType, OsString)> = vec![
            (1, FileType::Directory, ".".into()),
            (1, FileType::Directory, "..".into()),
        ];
        entries.extend(
            s.files
                .iter()
                .map(|(i, n)| (*i, FileType::RegularFile, n.name.clone())),
        );
        for (i, (ino, kind, name)) in entries.into_iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(ino), (i + 1) as u64, kind, &name) {
                break;
            }
        }
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        let used: u64 = self.state().files.values().map(|n| n.data.len() as u64).sum();
        let free = (CAPACITY - used.min(CAPACITY)) / 4096;
        reply.statfs(CAPACITY / 4096, free, free, 1 << 20, 1 << 20, 4096, 255, 4096);
    }
}

/// A mounted FaultFs on a fresh directory.
pub struct FaultMount {
    session: Option<fuser::BackgroundSession>,
    fs: FaultFs,
    pub dir: PathBuf,
    _parent: tempfile::TempDir,
}

impl FaultMount {
    pub fn new(faults: Faults) -> std::io::Result<FaultMount> {
        let parent = tempfile::tempdir()?;
        let dir = parent.path().join("faultfs");
        std::fs::create_dir(&dir)?;
        let fs = FaultFs(Arc::new(Mutex::new(State {
            files: HashMap::new(),
            next_ino: 2,
            faults,
            seen: Seen::default(),
        })));
        let mut config = Config::default();
        config.mount_options = vec![MountOption::FSName("kura-faultfs".into()), MountOption::RW];
        let session = fuser::spawn_mount(fs.clone(), &dir, &config)?;
        Ok(FaultMount {
            session: Some(session),
            fs,
            dir,
            _parent: parent,
        })
    }

    /// The server goes away mid-run, as a crashed FUSE process or a lost
    /// network mount does: the session ends and the kernel fails every
    /// request on the mount from then on (ENOTCONN).
    pub fn vanish(&mut self) {
        use std::os::unix::fs::MetadataExt;
        // The connection's number in fusectl is the mount's device minor.
        let dev = std::fs::metadata(&self.dir).expect("the mount is there").dev();
        let ctl = std::path::Path::new("/sys/fs/fuse/connections");
        let conn = ctl.join(libc::minor(dev).to_string());
        let mounted_ctl = !conn.exists();
        if mounted_ctl {
            let ok = std::process::Command::new("mount")
                .args(["-t", "fusectl", "none"])
                .arg(ctl)
                .status();
            assert!(matches!(ok, Ok(s) if s.success()), "mounting fusectl: {ok:?}");
        }
        let aborted = std::fs::write(conn.join("abort"), "1");
        if mounted_ctl {
            let _ = std::process::Command::new("umount").arg(ctl).status();
        }
        aborted.expect("aborting the FUSE connection");
    }

    pub fn seen(&self) -> Seen {
        self.fs.state().seen.clone()
    }

    /// The names of the files in it now.
    pub fn files(&self) -> Vec<String> {
        self.fs
            .state()
            .files
            .values()
            .map(|n| n.name.to_string_lossy().into_owned())
            .collect()
    }
}

impl Drop for FaultMount {
    fn drop(&mut self) {
        // The session unmounts when dropped; `umount -l` by name covers a session that could not.
        drop(self.session.take());
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.dir)
            .stderr(std::process::Stdio::null())
            .status();
    }
}
