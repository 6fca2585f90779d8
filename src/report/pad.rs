//! Fixed-width cells by display width, for the tables laid out by hand in
//! the shape of another tool's output (bonnie++, vdbench, sql-bench):
//! `format!("{:<9}")` counts characters, and a Japanese character takes two
//! columns.

use super::width::display_width;

/// `text` cut to at most `width` columns, never inside a character.
pub fn cut(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out
}

/// `text` padded on the right to `width` columns (`{:<width$}`).
pub fn left(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(display_width(text))))
}

/// `text` padded on the left to `width` columns (`{:>width$}`).
pub fn right(text: &str, width: usize) -> String {
    format!("{}{text}", " ".repeat(width.saturating_sub(display_width(text))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_count_twice() {
        assert_eq!(left("test", 6), "test  ");
        assert_eq!(left("テスト", 8), "テスト  ");
        assert_eq!(right("秒", 5), "   秒");
        assert_eq!(right("toolong", 3), "toolong");
        assert_eq!(cut("シーケンシャル", 5), "シー");
        assert_eq!(cut("abc", 5), "abc");
    }
}
