//! The kernel's mount and swap tables, read for the devices a write destroys.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use crate::targets::stack::{Member, devnum, parse_devnum};

/// Undoes the octal escapes (`\040` for a space) the kernel writes in mountinfo and swaps.
pub(in crate::targets) fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4].iter().all(|b| (b'0'..=b'7').contains(b))
        {
            let value = bytes[i + 1..i + 4]
                .iter()
                .fold(0u32, |acc, b| acc * 8 + (b - b'0') as u32);
            out.push(value as u8);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One line of /proc/self/mountinfo, the fields kura needs.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::targets) struct Mount {
    pub devnum: Option<(u32, u32)>,
    pub mount_point: String,
    pub fstype: String,
    pub source: String,
}

pub(in crate::targets) fn parse_mountinfo(text: &str) -> Vec<Mount> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let left: Vec<&str> = left.split(' ').collect();
        let mut right = right.split(' ');
        let (Some(fstype), Some(source)) = (right.next(), right.next()) else {
            continue;
        };
        if left.len() < 5 {
            continue;
        }
        out.push(Mount {
            devnum: parse_devnum(left[2]),
            mount_point: unescape(left[4]),
            fstype: unescape(fstype),
            source: unescape(source),
        });
    }
    out
}

/// Whether a mount or swap source path names `member`, by path or by device number.
fn names_member(source: &str, member: &Member) -> bool {
    if !source.starts_with('/') {
        return false;
    }
    let Ok(canonical) = Path::new(source).canonicalize() else {
        return false;
    };
    if canonical == member.path {
        return true;
    }
    match (member.devnum, std::fs::metadata(&canonical)) {
        (Some(devnum_), Ok(meta)) => meta.file_type().is_block_device() && devnum(meta.rdev()) == devnum_,
        _ => false,
    }
}

pub(super) fn find_mounted<'m>(members: &'m [Member], mountinfo: &str) -> Option<(&'m Member, String)> {
    let mounts = parse_mountinfo(mountinfo);
    for member in members {
        for mount in &mounts {
            // btrfs reports a synthetic 0:NN device number, so the source path is checked as well.
            let by_number = member.devnum.is_some() && mount.devnum == member.devnum;
            if by_number || names_member(&mount.source, member) {
                return Some((member, mount.mount_point.clone()));
            }
        }
    }
    None
}

pub(super) fn find_swap<'m>(members: &'m [Member], swaps: &str) -> Option<&'m Member> {
    // The first line is a header; the file name is the first column.
    let names: Vec<String> = swaps
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(unescape)
        .collect();
    members
        .iter()
        .find(|m| names.iter().any(|name| names_member(name, m)))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn mountinfo_fields_and_escapes() {
        let text = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n\
                    90 27 0:55 / /mnt/my\\040disk rw - btrfs /dev/loop5 rw,space_cache\n\
                    garbage line\n";
        let mounts = parse_mountinfo(text);
        assert_eq!(mounts.len(), 2);
        assert_eq!(mounts[0].devnum, Some((254, 0)));
        assert_eq!(mounts[0].fstype, "ext4");
        assert_eq!(mounts[1].mount_point, "/mnt/my disk");
        assert_eq!(mounts[1].source, "/dev/loop5");
        assert_eq!(unescape("a\\134b"), "a\\b");
        assert_eq!(unescape("tail\\04"), "tail\\04");
    }

    #[test]
    fn mounted_by_number_or_by_source() {
        let member = Member {
            path: PathBuf::from("/dev/null"),
            devnum: Some((250, 7)),
            ..Member::default()
        };
        let by_number = "30 1 250:7 / /mnt/a rw - ext4 /dev/whatever rw\n";
        let by_source = "30 1 0:99 / /mnt/b rw - btrfs /dev/null rw\n";
        let unrelated = "30 1 0:99 / /mnt/c rw - tmpfs tmpfs rw\n";
        let members = [member];
        assert_eq!(find_mounted(&members, by_number).unwrap().1, "/mnt/a");
        assert_eq!(find_mounted(&members, by_source).unwrap().1, "/mnt/b");
        assert!(find_mounted(&members, unrelated).is_none());
    }

    #[test]
    fn swap_by_path() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let path = file.path().canonicalize().unwrap();
        let swaps = format!(
            "Filename Type Size Used Priority\n{} file 1024 0 -2\n",
            path.display()
        );
        let members = [Member {
            path: path.clone(),
            ..Member::default()
        }];
        assert!(find_swap(&members, &swaps).is_some());
        assert!(find_swap(&members, "Filename Type Size Used Priority\n").is_none());
    }
}
