//! The byte pattern written data repeats (fio's `buffer_pattern`): how it
//! is read from text, stored on `Job` as hex, and laid into a buffer.

/// The longest pattern taken: fio's limit (`MAX_PATTERN_SIZE`, 512 bytes).
pub const MAX_PATTERN: usize = 512;

/// Reads a byte pattern as fio's `buffer_pattern` writes it: `0x` hex
/// digits and `"quoted text"`, in any order and number (`0xdead"ab"`).
/// fio's decimal numbers and `'file'` parts are refused.
pub fn parse_pattern(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err("an empty pattern".into());
    }
    while !rest.is_empty() {
        if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            let end = hex.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(hex.len());
            let digits = &hex[..end];
            if digits.is_empty() {
                return Err("0x without hex digits".into());
            }
            // An odd count has a leading zero nibble, as fio reads it.
            let padded = if digits.len() % 2 == 1 {
                format!("0{digits}")
            } else {
                digits.to_string()
            };
            for pair in padded.as_bytes().chunks(2) {
                let s = std::str::from_utf8(pair).unwrap_or("00");
                out.push(u8::from_str_radix(s, 16).map_err(|e| e.to_string())?);
            }
            rest = &hex[end..];
        } else if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted
                .find('"')
                .ok_or("a quoted part without its closing quote")?;
            out.extend_from_slice(&quoted.as_bytes()[..end]);
            rest = &quoted[end + 1..];
        } else if rest.starts_with('\'') {
            return Err("unsupported: a pattern read from a file ('name')".into());
        } else {
            return Err(
                "unsupported: only 0xHEX and \"text\" parts (fio's decimal numbers and 'files' are not taken)"
                    .into(),
            );
        }
        rest = rest.trim_start();
    }
    if out.is_empty() {
        return Err("an empty pattern".into());
    }
    if out.len() > MAX_PATTERN {
        return Err(format!("longer than {MAX_PATTERN} bytes"));
    }
    Ok(out)
}

/// The pattern as kura stores it: `0x` and its bytes in hex.
pub fn pattern_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 + bytes.len() * 2);
    s.push_str("0x");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Fills `buf` with `pattern` repeated from its first byte.
pub fn fill_pattern(buf: &mut [u8], pattern: &[u8]) {
    if pattern.is_empty() {
        return;
    }
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pattern[i % pattern.len()];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_read_as_fio_writes_them() {
        assert_eq!(parse_pattern("0xdeadbeef").unwrap(), vec![0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(parse_pattern("0xabc").unwrap(), vec![0x0a, 0xbc]);
        assert_eq!(parse_pattern("\"ab\"0x01").unwrap(), vec![b'a', b'b', 1]);
        assert!(parse_pattern("-12").unwrap_err().contains("unsupported"));
        assert!(parse_pattern("'file'").unwrap_err().contains("unsupported"));
        assert!(parse_pattern("\"ab").is_err());
        assert_eq!(pattern_hex(&[0xde, 0xad]), "0xdead");
        let mut buf = [0u8; 5];
        fill_pattern(&mut buf, &[1, 2]);
        assert_eq!(buf, [1, 2, 1, 2, 1]);
    }
}
