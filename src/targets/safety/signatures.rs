//! Signatures on a device or file: kura's own probe of the first bytes and
//! libblkid's through `wipefs`.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::process::{Command, Stdio};

/// A signature found on a device or file: what was there before kura.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signature {
    Ext2,
    Ext3,
    Ext4,
    Xfs,
    Btrfs,
    Swap,
    Lvm,
    Luks,
    MdRaid,
    Gpt,
    Mbr,
}

impl Signature {
    /// The thing the signature belongs to, with its article: "an ext4 file system".
    pub fn describe(self) -> String {
        match self {
            Signature::Ext2 => "an ext2 file system",
            Signature::Ext3 => "an ext3 file system",
            Signature::Ext4 => "an ext4 file system",
            Signature::Xfs => "an xfs file system",
            Signature::Btrfs => "a btrfs file system",
            Signature::Swap => "a swap area",
            Signature::Lvm => "an LVM physical volume",
            Signature::Luks => "a LUKS encrypted volume",
            Signature::MdRaid => "an md RAID member",
            Signature::Gpt => "a GPT partition table",
            Signature::Mbr => "an MBR partition table or boot sector",
        }
        .to_string()
    }
}

/// One signature found by a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::targets) enum Found {
    /// kura's own probe of the first bytes.
    Hand(Signature),
    /// util-linux's libblkid, through `wipefs`: the type it names and the byte offset of its magic.
    Wipefs { kind: String, offset: String },
}

pub(in crate::targets) fn describe_all(found: &[Found]) -> String {
    let hand: Vec<String> = found
        .iter()
        .filter_map(|f| match f {
            Found::Hand(s) => Some(format!("{} signature", s.describe())),
            Found::Wipefs { .. } => None,
        })
        .collect();
    let tool: Vec<String> = found
        .iter()
        .filter_map(|f| match f {
            Found::Wipefs { kind, offset } => Some(format!("{kind} at offset {offset}")),
            Found::Hand(_) => None,
        })
        .collect();
    match (hand.is_empty(), tool.is_empty()) {
        (false, true) => hand.join(", "),
        (true, false) => format!("a signature wipefs reports as {}", tool.join(", ")),
        _ => format!("{} (wipefs: {})", hand.join(", "), tool.join(", ")),
    }
}

/// Every signature on the device or file behind `file`: kura's own probe of
/// the first 68 KiB and libblkid's full probe through `wipefs`, which also
/// reads the end of the device (md 0.90/1.0, ZFS labels) and knows every file
/// system util-linux knows. Either finding something is enough to refuse; a
/// probe that cannot run is an error, because "nothing found" would be a guess.
pub(in crate::targets) fn find_signatures(file: &File) -> io::Result<Vec<Found>> {
    let mut found: Vec<Found> = detect_in(file)?.map(Found::Hand).into_iter().collect();
    found.extend(wipefs(file, &WIPEFS)?);
    Ok(found)
}

/// Where util-linux keeps wipefs when `/usr/sbin` is not on the PATH (a non-root shell).
const WIPEFS: [&str; 3] = ["wipefs", "/usr/sbin/wipefs", "/sbin/wipefs"];

fn wipefs(file: &File, tools: &[&str]) -> io::Result<Vec<Found>> {
    // An empty file has no bytes to carry a signature, and libblkid refuses to probe it.
    if file.metadata()?.len() == 0 && file.metadata()?.is_file() {
        return Ok(Vec::new());
    }
    let mut last = None;
    for &tool in tools {
        // The probe reads the descriptor kura checked, handed over as stdin, not the path again.
        let out = Command::new(tool)
            .args(["--no-act", "--json", "/proc/self/fd/0"])
            .env("LC_ALL", "C")
            .stdin(Stdio::from(file.try_clone()?))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output();
        match out {
            Ok(out) if out.status.success() => return parse_wipefs(&out.stdout),
            Ok(out) => {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let first = stderr.lines().next().unwrap_or("").trim();
                return Err(io::Error::other(format!(
                    "{tool} --no-act failed ({}{}{first}), so its signatures could not be read; \
                     pass --allow-destroy naming it if everything on it may be lost",
                    out.status,
                    if first.is_empty() { "" } else { ": " }
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => last = Some(e),
            Err(e) => return Err(io::Error::other(format!("cannot run {tool}: {e}"))),
        }
    }
    Err(io::Error::other(format!(
        "wipefs (util-linux) is needed to look for signatures and was not found ({}); install util-linux, \
         or pass --allow-destroy naming it if everything on it may be lost",
        last.map(|e| e.to_string()).unwrap_or_default()
    )))
}

fn parse_wipefs(stdout: &[u8]) -> io::Result<Vec<Found>> {
    // Older util-linux prints nothing at all when there is nothing to report.
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    // util-linux writes a label's bytes as they are on the device, which may
    // be no UTF-8 at all (a label in a legacy code page, or the bytes of a
    // signature that random data happened to carry): read them lossily, as
    // only the signature's type and offset are used.
    let text = String::from_utf8_lossy(stdout);
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| io::Error::other(format!("wipefs printed something other than JSON: {e}")))?;
    let Some(list) = value.get("signatures").and_then(|s| s.as_array()) else {
        return Err(io::Error::other("wipefs's JSON has no \"signatures\" list"));
    };
    Ok(list
        .iter()
        .map(|s| Found::Wipefs {
            kind: s
                .get("type")
                .and_then(|t| t.as_str())
                .unwrap_or("unknown")
                .to_string(),
            offset: s
                .get("offset")
                .and_then(|t| t.as_str())
                .unwrap_or("?")
                .to_string(),
        })
        .collect())
}

/// Far enough to reach the btrfs superblock (0x10040) and swap headers up to 64 KiB pages.
const PROBE_BYTES: usize = 0x10000 + 0x1000;

fn detect_in(file: &File) -> io::Result<Option<Signature>> {
    let mut buf = vec![0u8; PROBE_BYTES];
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    Ok(signature_in(&buf))
}

fn at(buf: &[u8], offset: usize, magic: &[u8]) -> bool {
    buf.get(offset..offset + magic.len()) == Some(magic)
}

fn le32(buf: &[u8], offset: usize) -> u32 {
    buf.get(offset..offset + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(0)
}

fn page_size() -> usize {
    // SAFETY: sysconf reads a constant and has no memory effects.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

/// File systems before partition tables: a FAT or NTFS volume also ends its
/// first sector with 55 AA, and a GPT disk carries a protective MBR.
fn signature_in(buf: &[u8]) -> Option<Signature> {
    // ext2/3/4 superblock at 1024, magic 0xEF53 little-endian at +0x38.
    if at(buf, 0x438, &[0x53, 0xEF]) {
        return Some(ext_flavour(buf));
    }
    if at(buf, 0, b"XFSB") {
        return Some(Signature::Xfs);
    }
    if at(buf, 0x10040, b"_BHRfS_M") {
        return Some(Signature::Btrfs);
    }
    // The swap header fills the first page; other architectures' page sizes are checked too.
    let mut pages = vec![page_size(), 4096, 8192, 16384, 65536];
    pages.dedup();
    if pages
        .iter()
        .any(|p| *p >= 10 && (at(buf, p - 10, b"SWAPSPACE2") || at(buf, p - 10, b"SWAP-SPACE")))
    {
        return Some(Signature::Swap);
    }
    if (0..4).any(|sector| at(buf, sector * 512, b"LABELONE")) {
        return Some(Signature::Lvm);
    }
    if at(buf, 0, b"LUKS\xba\xbe") {
        return Some(Signature::Luks);
    }
    // md superblock 1.1 at 0 and 1.2 at 4 KiB (0.90 and 1.0 sit at the end and are not probed).
    const MD_MAGIC: u32 = 0xa92b_4efc;
    if le32(buf, 0) == MD_MAGIC || le32(buf, 4096) == MD_MAGIC {
        return Some(Signature::MdRaid);
    }
    // GPT header in LBA 1: at 512 on 512-byte-sector disks, at 4096 on 4K-sector disks.
    if at(buf, 512, b"EFI PART") || at(buf, 4096, b"EFI PART") {
        return Some(Signature::Gpt);
    }
    if at(buf, 0x1FE, &[0x55, 0xAA]) {
        return Some(Signature::Mbr);
    }
    None
}

/// blkid's rule: ext4-only features make ext4, a journal makes ext3.
fn ext_flavour(buf: &[u8]) -> Signature {
    const SB: usize = 1024;
    let compat = le32(buf, SB + 0x5C);
    let incompat = le32(buf, SB + 0x60);
    let ro_compat = le32(buf, SB + 0x64);
    const COMPAT_HAS_JOURNAL: u32 = 0x4;
    // extents, 64bit, mmp, flex_bg, ea_inode, dirdata, csum_seed, large_dir, inline_data, encrypt, casefold
    const INCOMPAT_EXT4: u32 =
        0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x1000 | 0x2000 | 0x4000 | 0x8000 | 0x10000 | 0x20000;
    // huge_file, gdt_csum, dir_nlink, extra_isize, quota, bigalloc, metadata_csum
    const RO_COMPAT_EXT4: u32 = 0x8 | 0x10 | 0x20 | 0x40 | 0x100 | 0x200 | 0x400;
    if incompat & INCOMPAT_EXT4 != 0 || ro_compat & RO_COMPAT_EXT4 != 0 {
        Signature::Ext4
    } else if compat & COMPAT_HAS_JOURNAL != 0 {
        Signature::Ext3
    } else {
        Signature::Ext2
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::Path;

    use super::*;
    use crate::targets::safety::check_device_writable;

    /// Looks for file-system, volume and partition-table signatures in the first
    /// bytes of `path`, which may be any readable file or device.
    fn detect_signature(path: &Path) -> io::Result<Option<Signature>> {
        detect_in(&File::open(path)?)
    }

    fn file_with(len: usize, writes: &[(usize, &[u8])]) -> tempfile::NamedTempFile {
        let mut data = vec![0u8; len];
        for (offset, bytes) in writes {
            data[*offset..*offset + bytes.len()].copy_from_slice(bytes);
        }
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&data).unwrap();
        file.flush().unwrap();
        file
    }

    fn detect(len: usize, writes: &[(usize, &[u8])]) -> Option<Signature> {
        detect_signature(file_with(len, writes).path()).unwrap()
    }

    const LEN: usize = 128 << 10;

    #[test]
    fn zeros_and_short_files_carry_nothing() {
        assert_eq!(detect(LEN, &[]), None);
        assert_eq!(detect(100, &[]), None);
        assert_eq!(detect(0, &[]), None);
    }

    #[test]
    fn ext_magic_and_flavour() {
        assert_eq!(detect(LEN, &[(0x438, &[0x53, 0xEF])]), Some(Signature::Ext2));
        assert_eq!(
            detect(LEN, &[(0x438, &[0x53, 0xEF]), (0x45C, &[0x04])]),
            Some(Signature::Ext3)
        );
        assert_eq!(
            detect(LEN, &[(0x438, &[0x53, 0xEF]), (0x460, &[0x40])]),
            Some(Signature::Ext4)
        );
        // The magic one byte off is no superblock.
        assert_eq!(detect(LEN, &[(0x439, &[0x53, 0xEF])]), None);
    }

    #[test]
    fn other_file_systems_and_volumes() {
        assert_eq!(detect(LEN, &[(0, b"XFSB")]), Some(Signature::Xfs));
        assert_eq!(detect(LEN, &[(0x10040, b"_BHRfS_M")]), Some(Signature::Btrfs));
        assert_eq!(
            detect(LEN, &[(page_size() - 10, b"SWAPSPACE2")]),
            Some(Signature::Swap)
        );
        assert_eq!(detect(LEN, &[(65536 - 10, b"SWAPSPACE2")]), Some(Signature::Swap));
        for sector in 0..4 {
            assert_eq!(detect(LEN, &[(sector * 512, b"LABELONE")]), Some(Signature::Lvm));
        }
        assert_eq!(detect(LEN, &[(4 * 512, b"LABELONE")]), None);
        assert_eq!(detect(LEN, &[(0, b"LUKS\xba\xbe")]), Some(Signature::Luks));
        assert_eq!(
            detect(LEN, &[(4096, &0xa92b_4efcu32.to_le_bytes())]),
            Some(Signature::MdRaid)
        );
    }

    #[test]
    fn partition_tables() {
        assert_eq!(detect(LEN, &[(0x1FE, &[0x55, 0xAA])]), Some(Signature::Mbr));
        assert_eq!(
            detect(LEN, &[(0x1FE, &[0x55, 0xAA]), (512, b"EFI PART")]),
            Some(Signature::Gpt)
        );
        assert_eq!(detect(LEN, &[(4096, b"EFI PART")]), Some(Signature::Gpt));
        assert_eq!(detect(LEN, &[(0x1FE, &[0xAA, 0x55])]), None);
    }

    #[test]
    fn a_file_system_wins_over_its_boot_sector() {
        assert_eq!(
            detect(LEN, &[(0x1FE, &[0x55, 0xAA]), (0, b"XFSB")]),
            Some(Signature::Xfs)
        );
    }

    #[test]
    fn wipefs_json_is_read_and_garbage_is_an_error() {
        let json = br#"{"signatures": [{"device": "stdin", "offset": "0x3ffe000",
            "type": "linux_raid_member", "uuid": null, "label": null}]}"#;
        assert_eq!(
            parse_wipefs(json).unwrap(),
            vec![Found::Wipefs {
                kind: "linux_raid_member".into(),
                offset: "0x3ffe000".into()
            }]
        );
        assert!(
            parse_wipefs(b"{\n \"signatures\": [\n\n ]\n}\n")
                .unwrap()
                .is_empty()
        );
        assert!(parse_wipefs(b"\n").unwrap().is_empty());
        // A label of bytes that are no UTF-8, as wipefs prints them.
        let latin1 = b"{\"signatures\": [{\"device\":\"x\", \"offset\":\"0x3\", \"type\":\"vfat\", \"label\":\"caf\xe9\xff\"}]}";
        let found = parse_wipefs(latin1).unwrap();
        assert!(matches!(&found[..], [Found::Wipefs { kind, offset }] if kind == "vfat" && offset == "0x3"));
        assert!(parse_wipefs(b"DEVICE OFFSET TYPE").is_err());
        assert!(parse_wipefs(b"{}").is_err());
        let both = describe_all(&[
            Found::Hand(Signature::Mbr),
            Found::Wipefs {
                kind: "dos".into(),
                offset: "0x1fe".into(),
            },
        ]);
        assert!(
            both.contains("MBR") && both.contains("dos at offset 0x1fe"),
            "{both}"
        );
    }

    #[test]
    fn a_missing_or_failing_wipefs_is_an_error_not_a_clean_bill() {
        let file = file_with(LEN, &[]);
        let err = wipefs(file.as_file(), &["/nonexistent/wipefs"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("was not found") && err.contains("util-linux"),
            "{err}"
        );
        let err = wipefs(file.as_file(), &["false"]).unwrap_err().to_string();
        assert!(err.contains("false --no-act failed"), "{err}");
    }

    #[test]
    fn the_probe_finds_what_only_libblkid_knows() {
        // f2fs's magic at 0x400 is not in kura's own list; wipefs must report it.
        let file = file_with(LEN, &[(0x400, &0xF2F5_2010u32.to_le_bytes())]);
        assert_eq!(detect_signature(file.path()).unwrap(), None);
        let found = find_signatures(file.as_file()).unwrap();
        assert_eq!(
            found,
            vec![Found::Wipefs {
                kind: "f2fs".into(),
                offset: "0x400".into()
            }]
        );
    }

    #[test]
    fn unreadable_paths_are_errors() {
        assert!(detect_signature(Path::new("/nonexistent/kura")).is_err());
    }

    #[test]
    fn signatures_on_plain_files_are_refused_unless_named() {
        let file = file_with(LEN, &[(0x438, &[0x53, 0xEF]), (0x460, &[0x40])]);
        let err = check_device_writable(file.path(), None).unwrap_err().to_string();
        assert!(err.contains("ext4") && err.contains("--allow-destroy"), "{err}");
        check_device_writable(file.path(), Some(file.path())).unwrap();
        let other = file_with(16, &[]);
        let err = check_device_writable(file.path(), Some(other.path()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("different device"), "{err}");
        let clean = file_with(LEN, &[]);
        check_device_writable(clean.path(), None).unwrap();
    }
}
