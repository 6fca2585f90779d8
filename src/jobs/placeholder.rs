//! Placeholders are not paths. A vdbench file copied from an article with
//! `lun=/dev/{device}` made a 1 GiB file in /dev (RAM) and stored RAM's
//! speed as a disk's. Every job's target passes [`find`] once, in
//! `Job::validate`, whichever reader set it: flags, TOML, fio, vdbench.

/// The first placeholder in `path`: `{device}`, `${DEV}` or `$DEV` (a
/// variable the shell or the reader did not expand), `<device>` (two
/// characters or more between the brackets).
pub fn find(path: &str) -> Option<&str> {
    let bytes = path.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let found = match b {
            b'{' => closed(path, i, b'}'),
            // `<i>` and `<b>` are markup, and a file may be named so (to
            // test a report's escaping); `<device>`, `<dev>` are placeholders.
            b'<' => closed(path, i, b'>').filter(|end| end - i > 3),
            b'$' if bytes.get(i + 1) == Some(&b'{') => closed(path, i + 1, b'}'),
            b'$' => {
                let name = path[i + 1..]
                    .bytes()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    .count();
                let starts_like_a_name = bytes
                    .get(i + 1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_');
                starts_like_a_name.then_some(i + 1 + name)
            }
            _ => None,
        };
        if let Some(end) = found {
            return Some(&path[i..end]);
        }
    }
    None
}

/// The end (exclusive) of `open ... close` starting at `start` when what is
/// between reads as a name (letters, digits, `_`, `-`, `.`, spaces).
fn closed(path: &str, start: usize, close: u8) -> Option<usize> {
    let inner = &path[start + 1..];
    let len = inner.bytes().position(|c| c == close)?;
    let name = &inner[..len];
    let is_name = !name.trim().is_empty()
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b' '));
    is_name.then_some(start + 1 + len + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_found_and_paths_are_not() {
        for (path, found) in [
            ("/dev/{device}", "{device}"),
            ("/dev/${DEV}", "${DEV}"),
            ("/dev/$DEV", "$DEV"),
            ("/dev/<device>", "<device>"),
            ("/mnt/{ssd 1}/t.dat", "{ssd 1}"),
            ("/dev/disk/by-id/<your-disk>", "<your-disk>"),
        ] {
            assert_eq!(find(path), Some(found), "{path}");
        }
        for path in [
            "/dev/nvme0n1",
            "/mnt/data/kura-test.dat",
            "/mnt/a{b/c}",
            "/mnt/{}",
            "/mnt/price$5",
            "/mnt/x<y",
            "/mnt/<i>x.dat",
            "ラベル/t.dat",
        ] {
            assert_eq!(find(path), None, "{path}");
        }
    }
}
