//! The file-set kind of workload: a tree of files under an anchor directory
//! and a mix of file-system operations on it. Its parameters (shape, sizes,
//! mix, transfer size, file and offset selection), the named mixes and
//! their sources, and the text forms they are given in. What the
//! operations do lives in `fileset`; the tree itself in `targets::fileset`.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::units::{format_size, parse_size};
use crate::jobs::OpKind;

/// Files in a set above this need `--force`: past it a typo (width 100 for
/// 10) fills a disk with inodes.
pub const FILE_LIMIT: u64 = 100_000;
/// Defaults: one level of 10 directories with 100 files of 4 KiB each.
pub const DEFAULT_DEPTH: u32 = 1;
pub const DEFAULT_WIDTH: u32 = 10;
pub const DEFAULT_FILES: u64 = 100;
pub const DEFAULT_FILE_SIZE: u64 = 4096;
pub const DEFAULT_MIX: &str = "sfs97";
pub const DEFAULT_ZIPF_THETA: f64 = 1.2;

/// One operation on a file set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileOp {
    Create,
    Delete,
    Open,
    Close,
    Read,
    Write,
    Getattr,
    Setattr,
    Lookup,
    Readdir,
    Rename,
    Mkdir,
    Rmdir,
    Fsync,
}

impl FileOp {
    pub const ALL: [FileOp; 14] = [
        FileOp::Create,
        FileOp::Delete,
        FileOp::Open,
        FileOp::Close,
        FileOp::Read,
        FileOp::Write,
        FileOp::Getattr,
        FileOp::Setattr,
        FileOp::Lookup,
        FileOp::Readdir,
        FileOp::Rename,
        FileOp::Mkdir,
        FileOp::Rmdir,
        FileOp::Fsync,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FileOp::Create => "create",
            FileOp::Delete => "delete",
            FileOp::Open => "open",
            FileOp::Close => "close",
            FileOp::Read => "read",
            FileOp::Write => "write",
            FileOp::Getattr => "getattr",
            FileOp::Setattr => "setattr",
            FileOp::Lookup => "lookup",
            FileOp::Readdir => "readdir",
            FileOp::Rename => "rename",
            FileOp::Mkdir => "mkdir",
            FileOp::Rmdir => "rmdir",
            FileOp::Fsync => "fsync",
        }
    }

    /// The operation a name means; `stat`, `remove`, `unlink` and `chmod` are
    /// the words other tools use.
    pub fn parse(name: &str) -> Option<FileOp> {
        let name = name.trim().to_ascii_lowercase();
        let alias = match name.as_str() {
            "stat" => "getattr",
            "remove" | "unlink" => "delete",
            "chmod" | "utimes" => "setattr",
            "commit" => "fsync",
            other => other,
        };
        FileOp::ALL.into_iter().find(|o| o.name() == alias)
    }

    /// Where the operation's statistics are stored in a `JobResult`.
    pub fn kind(self) -> OpKind {
        match self {
            FileOp::Create => OpKind::Create,
            FileOp::Delete => OpKind::Delete,
            FileOp::Open => OpKind::Open,
            FileOp::Close => OpKind::Close,
            FileOp::Read => OpKind::Read,
            FileOp::Write => OpKind::Write,
            FileOp::Getattr => OpKind::Stat,
            FileOp::Setattr => OpKind::Setattr,
            FileOp::Lookup => OpKind::Lookup,
            FileOp::Readdir => OpKind::Readdir,
            FileOp::Rename => OpKind::Rename,
            FileOp::Mkdir => OpKind::Mkdir,
            FileOp::Rmdir => OpKind::Rmdir,
            FileOp::Fsync => OpKind::Fsync,
        }
    }

    /// Changes the file set (counted as a write in the interval series).
    pub fn modifies(self) -> bool {
        matches!(
            self,
            FileOp::Create
                | FileOp::Delete
                | FileOp::Write
                | FileOp::Setattr
                | FileOp::Rename
                | FileOp::Mkdir
                | FileOp::Rmdir
                | FileOp::Fsync
        )
    }
}

/// SPECsfs97 (SFS 2.0/3.0, NFSv3) operation shares as SPEC published them
/// (SFS 3.0 User's Guide, chapter 1, table 1; reproduced in M. Eisler's
/// "More on SPEC SFS 2008", NetApp, 2008): LOOKUP 27, READ 18, WRITE 9,
/// GETATTR 11, READLINK 7, READDIR 2, CREATE 1, REMOVE 1, FSSTAT 1,
/// SETATTR 1, READDIRPLUS 9, ACCESS 7, COMMIT 5 (99: SPEC's rounding).
/// Mapped onto local calls (docs/filesets.md): READLINK joins lookup (kura
/// makes no symlinks), ACCESS and FSSTAT join getattr, READDIRPLUS joins
/// readdir, COMMIT is fsync, and the missing 1 % goes to lookup.
pub const SFS97: &[(FileOp, u32)] = &[
    (FileOp::Lookup, 35),
    (FileOp::Read, 18),
    (FileOp::Write, 9),
    (FileOp::Getattr, 19),
    (FileOp::Readdir, 11),
    (FileOp::Create, 1),
    (FileOp::Delete, 1),
    (FileOp::Setattr, 1),
    (FileOp::Fsync, 5),
];

/// SPEC SFS 2014 SWBUILD's operation shares (SPEC SFS 2014 SP2 User's
/// Guide, the SWBUILD workload table): stat 70, access 6, chmod 5,
/// readdir 2, read_file 6, write_file 7, mkdir 1, unlink 2, create 1.
/// stat and access are getattr; chmod is setattr; read_file and write_file
/// move whole files.
pub const SWBUILD: &[(FileOp, u32)] = &[
    (FileOp::Getattr, 76),
    (FileOp::Setattr, 5),
    (FileOp::Readdir, 2),
    (FileOp::Read, 6),
    (FileOp::Write, 7),
    (FileOp::Mkdir, 1),
    (FileOp::Delete, 2),
    (FileOp::Create, 1),
];

/// mdtest's file phases, in its order: every file created, stat-ed, read and removed.
pub const MDTEST_PHASES: [FileOp; 4] = [FileOp::Create, FileOp::Getattr, FileOp::Read, FileOp::Delete];

/// What a job does with its file set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mix {
    /// Operations drawn at random by weight (the weights sum to 100).
    Weighted(Vec<(FileOp, u32)>),
    /// Each phase over every file in turn, the threads starting each phase
    /// together: mdtest's (one directory per thread, `shared` false, as
    /// mdtest -u; or the threads' files side by side), or `phases:OP,...`
    /// (fio's file engines translate to these).
    Phases { shared: bool, phases: Vec<FileOp> },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MixError {
    #[error("unknown operation '{0}' (known: {known})", known = known_ops())]
    UnknownOp(String),
    #[error("'{0}' is not OP=PCT")]
    NotPair(String),
    #[error("the shares sum to {0}, not 100")]
    Sum(u32),
    #[error("{0} is named twice")]
    Twice(String),
    #[error(
        "{0} cannot be a phase (phases: create, getattr, read, write, open, setattr, lookup, delete, fsync, mkdir, rmdir)"
    )]
    NotPhase(String),
}

fn known_ops() -> String {
    FileOp::ALL.map(FileOp::name).join(", ")
}

impl Mix {
    /// Phases that start by creating the files run on a set formatted
    /// without them (and end by removing what is left); others on the files.
    pub fn makes_files(&self) -> bool {
        matches!(self, Mix::Phases { phases, .. } if phases.first() == Some(&FileOp::Create))
    }

    /// `sfs97`, `swbuild`, `mdtest`, `mdtest-shared`, or `op=pct,...` summing to 100.
    pub fn parse(text: &str) -> Result<Mix, MixError> {
        let t = text.trim();
        match t.to_ascii_lowercase().as_str() {
            "sfs97" | "fstress" => return Ok(Mix::Weighted(SFS97.to_vec())),
            "swbuild" => return Ok(Mix::Weighted(SWBUILD.to_vec())),
            "mdtest" => {
                return Ok(Mix::Phases {
                    shared: false,
                    phases: MDTEST_PHASES.to_vec(),
                });
            }
            "mdtest-shared" => {
                return Ok(Mix::Phases {
                    shared: true,
                    phases: MDTEST_PHASES.to_vec(),
                });
            }
            _ => {}
        }
        if let Some(list) = t.strip_prefix("phases:") {
            let mut phases = Vec::new();
            for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let op = FileOp::parse(name).ok_or_else(|| MixError::UnknownOp(name.to_string()))?;
                if matches!(op, FileOp::Readdir | FileOp::Rename | FileOp::Close) {
                    return Err(MixError::NotPhase(op.name().to_string()));
                }
                phases.push(op);
            }
            if phases.is_empty() {
                return Err(MixError::NotPair(t.to_string()));
            }
            return Ok(Mix::Phases { shared: true, phases });
        }
        let mut weights: Vec<(FileOp, u32)> = Vec::new();
        for part in t.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (op, pct) = part
                .split_once('=')
                .or_else(|| part.split_once(':'))
                .ok_or_else(|| MixError::NotPair(part.to_string()))?;
            let op = FileOp::parse(op).ok_or_else(|| MixError::UnknownOp(op.trim().to_string()))?;
            let pct: u32 = pct
                .trim()
                .trim_end_matches('%')
                .parse()
                .map_err(|_| MixError::NotPair(part.to_string()))?;
            if weights.iter().any(|(o, _)| *o == op) {
                return Err(MixError::Twice(op.name().to_string()));
            }
            if pct > 0 {
                weights.push((op, pct));
            }
        }
        let sum: u32 = weights.iter().map(|(_, p)| p).sum();
        if sum != 100 {
            return Err(MixError::Sum(sum));
        }
        Ok(Mix::Weighted(weights))
    }
}

/// File sizes: one size, or vdbench's `(size,pct,size,pct...)` distribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSizes(pub Vec<(u64, u32)>);

impl FileSizes {
    pub fn parse(text: &str) -> Result<FileSizes, String> {
        let inner = text.trim().trim_start_matches('(').trim_end_matches(')');
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        if parts.len() == 1 {
            let bytes = parse_size(parts[0]).map_err(|e| e.to_string())?;
            return Ok(FileSizes(vec![(bytes, 100)]));
        }
        if !parts.len().is_multiple_of(2) {
            return Err("a distribution is pairs of size and percentage: (4k,50,1m,50)".into());
        }
        let mut out = Vec::new();
        for pair in parts.chunks(2) {
            let bytes = parse_size(pair[0]).map_err(|e| e.to_string())?;
            let pct: u32 = pair[1]
                .parse()
                .map_err(|_| format!("'{}' is not a percentage", pair[1]))?;
            out.push((bytes, pct));
        }
        let sum: u32 = out.iter().map(|(_, p)| p).sum();
        if sum != 100 {
            return Err(format!("the percentages sum to {sum}, not 100"));
        }
        Ok(FileSizes(out))
    }

    pub fn max(&self) -> u64 {
        self.0.iter().map(|(b, _)| *b).max().unwrap_or(0)
    }

    /// Mean size, for the bytes a set will hold.
    pub fn mean(&self) -> u64 {
        self.0.iter().map(|(b, p)| b * u64::from(*p)).sum::<u64>() / 100
    }

    /// The size of file `index` of a set made with `seed`: the same every run.
    pub fn size_of(&self, seed: u64, index: u64) -> u64 {
        if self.0.len() == 1 {
            return self.0[0].0;
        }
        let mut pick = (mix64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15)) % 100) as u32;
        for (bytes, pct) in &self.0 {
            if pick < *pct {
                return *bytes;
            }
            pick -= pct;
        }
        self.0[self.0.len() - 1].0
    }
}

impl fmt::Display for FileSizes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let [(bytes, 100)] = self.0.as_slice() {
            return f.write_str(&format_size(*bytes));
        }
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|(b, p)| format!("{},{p}", format_size(*b)))
            .collect();
        write!(f, "({})", parts.join(","))
    }
}

/// splitmix64's finaliser: a file's size from its index without a table.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Where in a file a transfer of `xfersize` lands (vdbench's `fileio`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileIo {
    Random,
    Sequential,
}

impl FileIo {
    pub fn parse(text: &str) -> Option<FileIo> {
        match text.trim().to_ascii_lowercase().as_str() {
            "random" | "rand" => Some(FileIo::Random),
            "sequential" | "seq" => Some(FileIo::Sequential),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            FileIo::Random => "random",
            FileIo::Sequential => "sequential",
        }
    }
}

/// Which file the next operation takes (vdbench's `fileselect`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileSelect {
    Random,
    Sequential,
    /// Zipf over the files by index, the first the hottest.
    Zipf {
        theta: f64,
    },
}

impl Eq for FileSelect {}

impl FileSelect {
    pub fn parse(text: &str) -> Option<FileSelect> {
        let t = text.trim().to_ascii_lowercase();
        match t.as_str() {
            "random" | "rand" => Some(FileSelect::Random),
            "sequential" | "seq" => Some(FileSelect::Sequential),
            "zipf" => Some(FileSelect::Zipf {
                theta: DEFAULT_ZIPF_THETA,
            }),
            _ => {
                let theta: f64 = t.strip_prefix("zipf:")?.parse().ok()?;
                (theta > 0.0 && theta.is_finite()).then_some(FileSelect::Zipf { theta })
            }
        }
    }
}

impl fmt::Display for FileSelect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileSelect::Random => f.write_str("random"),
            FileSelect::Sequential => f.write_str("sequential"),
            FileSelect::Zipf { theta } => write!(f, "zipf:{theta}"),
        }
    }
}

/// A stored file-set job's parameters. Unset fields take the defaults above
/// when the job runs, and the runner stores the job with them filled in.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FileSetParams {
    /// `sfs97`, `swbuild`, `mdtest`, `mdtest-shared` or `op=pct,...`.
    #[serde(default)]
    pub mix: Option<String>,
    /// Levels of directories under the set's root.
    #[serde(default)]
    pub depth: Option<u32>,
    /// Directories in each directory of the levels above the last.
    #[serde(default)]
    pub width: Option<u32>,
    /// Files in each directory of the last level (vdbench's `files=`).
    #[serde(default)]
    pub files: Option<u64>,
    /// One size or a distribution, as `FileSizes` writes it.
    #[serde(default)]
    pub file_size: Option<String>,
    /// Bytes per read or write; unset moves whole files.
    #[serde(default)]
    pub xfersize_bytes: Option<u64>,
    #[serde(default)]
    pub fileio: Option<FileIo>,
    #[serde(default)]
    pub fileselect: Option<FileSelect>,
    /// Allows a set of more than `FILE_LIMIT` files.
    #[serde(default)]
    pub force: bool,
    /// A create or write makes its file durable (`fsync`) before the close, timed with it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fsync_on_close: bool,
}

/// A file-set job's parameters with every default filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub mix: Mix,
    pub mix_text: String,
    pub depth: u32,
    pub width: u32,
    pub files: u64,
    pub sizes: FileSizes,
    pub xfersize_bytes: Option<u64>,
    pub fileio: FileIo,
    pub fileselect: FileSelect,
    pub force: bool,
    pub fsync_on_close: bool,
}

impl FileSetParams {
    /// The job's file-set parameters; `None` for a job of another kind.
    pub fn of(job: &super::Job) -> Option<&FileSetParams> {
        match &job.workload {
            super::Workload::FileSet(p) => Some(p),
            _ => None,
        }
    }

    /// The job's file-set parameters, making a block job a file-set job:
    /// a file-set option given to a block job makes it one.
    pub fn of_mut(job: &mut super::Job) -> Result<&mut FileSetParams, String> {
        if matches!(job.workload, super::Workload::Block) {
            job.workload = super::Workload::FileSet(FileSetParams::default());
        }
        let kind = job.workload.kind().name();
        match &mut job.workload {
            super::Workload::FileSet(p) => Ok(p),
            _ => Err(format!("only file-set jobs take this option, not a {kind} job")),
        }
    }

    /// What `f` reads of the job's file-set parameters; `None` for a job
    /// of another kind (a file-set option's value, `jobs::options`).
    pub fn get<T>(job: &super::Job, f: impl Fn(&FileSetParams) -> Option<T>) -> Option<T> {
        FileSetParams::of(job).and_then(f)
    }

    /// A file-set switch: on makes the job a file set; off leaves a job of
    /// another kind as it is.
    pub fn set_switch(
        job: &mut super::Job,
        on: bool,
        field: impl FnOnce(&mut FileSetParams) -> &mut bool,
    ) -> Result<(), String> {
        if on || FileSetParams::of(job).is_some() {
            *field(FileSetParams::of_mut(job)?) = on;
        }
        Ok(())
    }

    pub fn resolve(&self) -> Result<Resolved, String> {
        let mix_text = self.mix.clone().unwrap_or_else(|| DEFAULT_MIX.to_string());
        let mix = Mix::parse(&mix_text).map_err(|e| format!("mix: {e}"))?;
        let sizes = match &self.file_size {
            Some(s) => FileSizes::parse(s).map_err(|e| format!("file_size: {e}"))?,
            None => FileSizes(vec![(DEFAULT_FILE_SIZE, 100)]),
        };
        Ok(Resolved {
            mix,
            mix_text,
            depth: self.depth.unwrap_or(DEFAULT_DEPTH),
            width: self.width.unwrap_or(DEFAULT_WIDTH),
            files: self.files.unwrap_or(DEFAULT_FILES),
            sizes,
            xfersize_bytes: self.xfersize_bytes,
            fileio: self.fileio.unwrap_or(FileIo::Random),
            fileselect: self.fileselect.unwrap_or(FileSelect::Random),
            force: self.force,
            fsync_on_close: self.fsync_on_close,
        })
    }

    /// The parameters as run: every default written out, so the stored job repeats exactly.
    pub fn filled(&self) -> FileSetParams {
        let Ok(r) = self.resolve() else {
            return self.clone();
        };
        FileSetParams {
            mix: Some(r.mix_text),
            depth: Some(r.depth),
            width: Some(r.width),
            files: Some(r.files),
            file_size: Some(r.sizes.to_string()),
            xfersize_bytes: r.xfersize_bytes,
            fileio: Some(r.fileio),
            fileselect: Some(r.fileselect),
            force: r.force,
            fsync_on_close: r.fsync_on_close,
        }
    }

    /// `sfs97 10x1 dirs, 100 files of 4 KiB`: a job's summary.
    pub fn summary(&self) -> String {
        let r = match self.resolve() {
            Ok(r) => r,
            Err(e) => return e,
        };
        let mut s = format!(
            "file set {} ({} files of {}",
            r.mix_text,
            r.total_files(),
            r.sizes
        );
        if let Some(x) = r.xfersize_bytes {
            s.push_str(&format!(", xfersize {}", format_size(x)));
        }
        if r.fsync_on_close {
            s.push_str(", fsync on close");
        }
        s.push(')');
        s
    }
}

impl Resolved {
    /// Directories at the last level, where the files are.
    pub fn leaf_dirs(&self) -> u64 {
        u64::from(self.width).saturating_pow(self.depth)
    }

    /// Every directory of the set below its root.
    pub fn dirs(&self) -> u64 {
        (1..=self.depth).fold(0u64, |sum, level| {
            sum.saturating_add(u64::from(self.width).saturating_pow(level))
        })
    }

    pub fn total_files(&self) -> u64 {
        self.leaf_dirs().saturating_mul(self.files)
    }

    pub fn total_bytes(&self) -> u64 {
        self.total_files().saturating_mul(self.sizes.mean())
    }
}

/// File sets as a kind of workload: operations on a tree of files.
impl super::workload::WorkloadKind for FileSetParams {
    fn name(&self) -> &'static str {
        "fileset"
    }

    fn scope(&self) -> super::options::Scope {
        super::options::Scope::FileSet
    }

    fn summary(&self, job: &super::Job) -> String {
        format!("{} x{}", FileSetParams::summary(self), job.threads)
    }

    fn measured_whole(&self) -> bool {
        false
    }

    fn target_is_directory(&self) -> bool {
        true
    }

    fn rows_by_operation(&self) -> bool {
        true
    }

    fn runs_on_ranks(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(w: &[(FileOp, u32)]) -> u32 {
        w.iter().map(|(_, p)| p).sum()
    }

    #[test]
    fn named_mixes_sum_to_100() {
        assert_eq!(sum(SFS97), 100);
        assert_eq!(sum(SWBUILD), 100);
    }

    #[test]
    fn explicit_mixes_are_checked() {
        assert_eq!(
            Mix::parse("read=50,write=50").unwrap(),
            Mix::Weighted(vec![(FileOp::Read, 50), (FileOp::Write, 50)])
        );
        assert_eq!(
            Mix::parse("stat=100").unwrap(),
            Mix::Weighted(vec![(FileOp::Getattr, 100)])
        );
        let e = Mix::parse("read=50,frobnicate=50").unwrap_err().to_string();
        assert!(e.starts_with("unknown operation 'frobnicate'"), "{e}");
        assert_eq!(Mix::parse("read=50,write=40").unwrap_err(), MixError::Sum(90));
        assert!(matches!(Mix::parse("read"), Err(MixError::NotPair(_))));
        assert!(matches!(Mix::parse("read=50,read=50"), Err(MixError::Twice(_))));
        assert_eq!(
            Mix::parse("mdtest").unwrap(),
            Mix::Phases {
                shared: false,
                phases: MDTEST_PHASES.to_vec()
            }
        );
        assert_eq!(
            Mix::parse("phases:stat,delete").unwrap(),
            Mix::Phases {
                shared: true,
                phases: vec![FileOp::Getattr, FileOp::Delete]
            }
        );
        assert!(matches!(Mix::parse("phases:readdir"), Err(MixError::NotPhase(_))));
    }

    #[test]
    fn sizes_read_vdbench_distributions() {
        let s = FileSizes::parse("(4k,50,1m,50)").unwrap();
        assert_eq!(s.0, vec![(4096, 50), (1 << 20, 50)]);
        assert_eq!(FileSizes::parse(&s.to_string()).unwrap(), s);
        assert!(FileSizes::parse("(4k,50,1m,40)").is_err());
        assert_eq!(FileSizes::parse("8k").unwrap().0, vec![(8192, 100)]);
        let big = (0..10_000).filter(|i| s.size_of(7, *i) == 1 << 20).count();
        assert!((4_500..5_500).contains(&big), "{big}");
        assert_eq!(s.size_of(7, 12), s.size_of(7, 12));
    }

    #[test]
    fn shape_counts() {
        let p = FileSetParams {
            depth: Some(2),
            width: Some(3),
            files: Some(5),
            ..Default::default()
        };
        let r = p.resolve().unwrap();
        assert_eq!(r.leaf_dirs(), 9);
        assert_eq!(r.dirs(), 12);
        assert_eq!(r.total_files(), 45);
        assert_eq!(r.total_bytes(), 45 * 4096);
        let filled = p.filled();
        assert_eq!(filled.resolve().unwrap(), r);
        assert_eq!(filled.mix.as_deref(), Some("sfs97"));
    }

    #[test]
    fn selections_parse() {
        assert_eq!(
            FileSelect::parse("zipf:0.9"),
            Some(FileSelect::Zipf { theta: 0.9 })
        );
        assert_eq!(FileSelect::parse("seq"), Some(FileSelect::Sequential));
        assert_eq!(FileSelect::parse("zipf:-1"), None);
        assert_eq!(FileIo::parse("sequential"), Some(FileIo::Sequential));
    }
}
