//! Where a terminal table meets 80 columns. A table is laid out at its
//! natural width; one that is wider first folds its long headings between
//! their words, then has its text columns cut with "…" or loses columns,
//! and says so on one line under it, but never wraps a cell: a label or a
//! number broken across lines reads as another row (`p99.999` as `p99.99`
//! and `9`). `--wide` shows the table whole.

use comfy_table::{ColumnConstraint, Table, Width};

use super::pad::cut;
use super::width::{COLUMNS, display_width, wide, wrap};

/// Narrowest a cut column gets: room for a word and "…".
const MIN_CUT: usize = 8;

/// How a table may be made to fit: which columns may go, first to last, and
/// which text columns may be cut. By default the rightmost columns go
/// first; the first column, which names each row, never goes.
#[derive(Debug, Clone, Default)]
pub struct Fit {
    drop: Option<Vec<usize>>,
    cut: Vec<usize>,
}

impl Fit {
    pub fn new() -> Fit {
        Fit::default()
    }

    /// The columns that may go, in the order they go; no others go.
    pub fn drop_first(mut self, columns: &[usize]) -> Fit {
        self.drop = Some(columns.to_vec());
        self
    }

    /// Text columns whose cells may be cut with "…" (before any column
    /// goes); listed first, the first to get room back.
    pub fn cut(mut self, columns: &[usize]) -> Fit {
        self.cut = columns.to_vec();
        self
    }
}

/// Whether `t` fits as it is (always, with `--wide`).
pub fn fits(t: &Table) -> bool {
    wide() || width(t) <= COLUMNS
}

/// `t` within `COLUMNS`, as `Display` writes it (no newline at the end), with
/// the line that says what was left out or cut.
pub fn render(t: &Table) -> String {
    render_with(t, &Fit::new())
}

pub fn render_with(t: &Table, fit: &Fit) -> String {
    fitted(t, fit).0
}

/// `render_with`, and how many columns went.
pub fn fitted(t: &Table, fit: &Fit) -> (String, usize) {
    if fits(t) {
        return (t.to_string(), 0);
    }
    let count = t.column_iter().count();
    let order: Vec<usize> = match &fit.drop {
        Some(cols) => cols.iter().copied().filter(|c| *c < count).collect(),
        None => (1..count).rev().collect(),
    };
    let natural = t.column_max_content_widths();
    let header = |i: usize| {
        t.header()
            .and_then(|h| h.cell_iter().nth(i))
            .map(|c| c.content())
            .unwrap_or_default()
    };
    let mut last = t.clone();
    for gone in 0..=order.len() {
        let mut c = t.clone();
        for &i in &order[..gone] {
            if let Some(col) = c.column_mut(i) {
                col.set_constraint(ColumnConstraint::Hidden);
            }
        }
        let cut: Vec<usize> = fit
            .cut
            .iter()
            .copied()
            .filter(|i| !order[..gone].contains(i))
            .collect();
        let cut_any = match squeeze(&mut c, &cut, &natural, &header) {
            Some(cut_any) => cut_any,
            None => {
                last = c;
                continue;
            }
        };
        let mut out = c.to_string();
        let mut notes = Vec::new();
        if gone > 0 {
            // Named as they stood, left to right.
            let mut gone_cols = order[..gone].to_vec();
            gone_cols.sort_unstable();
            let names: Vec<String> = gone_cols.into_iter().map(header).collect();
            notes.push(dropped(&names));
        }
        if cut_any {
            notes.push(crate::t!("fit-cut", width = COLUMNS));
        }
        for note in notes {
            out.push('\n');
            out.push_str(wrap("", &note, 2).trim_end());
        }
        return (out, gone);
    }
    // Nothing left to take out: the table is as narrow as it gets.
    (last.to_string(), order.len())
}

/// `t` with each heading wider than its column's cells folded between its
/// words (`SSD/HDD per JPY` over `(price 1.63x)`): a heading is read once,
/// a column on every line. The cells keep their width; no word is broken.
/// Only as many and as far as it takes, those that give the most room
/// first, into at most each of `stages` lines in turn.
fn fold_headings(t: &Table, cut: &[usize], stages: &[usize]) -> Table {
    let mut out = t.clone();
    let Some(header) = t.header() else {
        return out;
    };
    let headings: Vec<String> = header.cell_iter().map(|c| c.content()).collect();
    // (column, its cells' width, its heading's width now)
    let mut folding: Vec<(usize, usize, usize)> = Vec::new();
    for (i, heading) in headings.iter().enumerate() {
        let cells = t
            .row_iter()
            .filter_map(|r| r.cell_iter().nth(i))
            .map(|c| display_width(&c.content()))
            .max()
            .unwrap_or(0);
        let column = t.column(i);
        let hidden = column.is_some_and(|c| c.is_hidden());
        // Folded already, at an earlier stage.
        let now = match column.and_then(|c| c.constraint()) {
            Some(ColumnConstraint::Absolute(Width::Fixed(w))) => (*w as usize).saturating_sub(2),
            _ => display_width(heading),
        };
        if !cut.contains(&i) && !hidden && cells < now {
            folding.push((i, cells, now));
        }
    }
    for &most_lines in stages {
        // Each heading at its narrowest in that many lines, the most room first.
        let mut folds: Vec<(usize, usize)> = folding
            .iter()
            .enumerate()
            .filter_map(|(k, &(i, cells, now))| {
                let word = headings[i].split(' ').map(display_width).max().unwrap_or(0);
                let narrowest =
                    (cells.max(word).max(1)..now).find(|w| lines(&headings[i], *w) <= most_lines)?;
                Some((k, narrowest))
            })
            .collect();
        folds.sort_by_key(|&(k, narrowest)| (std::cmp::Reverse(folding[k].2 - narrowest), k));
        for (k, narrowest) in folds {
            let excess = width(&out).saturating_sub(COLUMNS);
            if excess == 0 {
                return out;
            }
            let (i, _, now) = &mut folding[k];
            let w = narrowest.max(now.saturating_sub(excess));
            if let Some(col) = out.column_mut(*i) {
                col.set_constraint(ColumnConstraint::Absolute(Width::Fixed(w as u16 + 2)));
            }
            *now = w;
        }
    }
    out
}

/// Lines `text` takes folded between its words at `width` columns (no
/// wider than its longest word).
fn lines(text: &str, width: usize) -> usize {
    let mut count = 1;
    let mut used = 0;
    for word in text.split(' ').map(display_width) {
        if used > 0 && used + 1 + word > width {
            count += 1;
            used = word;
        } else {
            used += word + usize::from(used > 0);
        }
    }
    count
}

/// The line naming the columns left out, on one line: the first names,
/// then how many more.
fn dropped(names: &[String]) -> String {
    let line = |shown: usize| {
        let mut list = names[..shown].join(&crate::t!("list-separator"));
        if shown < names.len() {
            list.push_str(&crate::t!("fit-more", n = names.len() - shown));
        }
        crate::t!("fit-dropped", columns = list, width = COLUMNS)
    };
    (1..=names.len())
        .rev()
        .map(line)
        .find(|l| display_width(l) <= COLUMNS)
        .unwrap_or_else(|| line(1))
}

/// Folds the headings of `t` as far as it takes, then narrows its `cut`
/// columns (each to at least its heading and `MIN_CUT`) and gives each back
/// room in turn, so that `t` fits; None when it cannot. Some(true) when a
/// cell is cut.
fn squeeze(t: &mut Table, cut: &[usize], natural: &[u16], header: &dyn Fn(usize) -> String) -> Option<bool> {
    // A heading over two lines loses nothing: before any cell is cut.
    *t = fold_headings(t, cut, &[2]);
    if cut.is_empty() {
        *t = fold_headings(t, cut, &[3, 4]);
        return (width(t) <= COLUMNS).then_some(false);
    }
    let least: Vec<usize> = cut
        .iter()
        .map(|&i| {
            let full = natural.get(i).copied().unwrap_or(0) as usize;
            full.min(MIN_CUT.max(display_width(&header(i))))
        })
        .collect();
    let set = |t: &mut Table, widths: &[usize]| {
        for (&i, &w) in cut.iter().zip(widths) {
            if let Some(col) = t.column_mut(i) {
                // Absolute widths count the padding, one space each side.
                col.set_constraint(ColumnConstraint::Absolute(Width::Fixed(w as u16 + 2)));
            }
        }
    };
    // A cell cut is cut on its first line, with "…", not wrapped under it;
    // a row of cells made of lines on purpose (a unit or a plan stacked
    // under a name, export::Grid) keeps those lines.
    t.set_truncation_indicator("…");
    for row in t.row_iter_mut() {
        let lines = row.cell_iter().map(|c| c.content().lines().count()).max();
        row.max_height(lines.unwrap_or(1).max(1));
    }
    // The first cut column (what names the rows) is worth a heading over
    // three or four lines; the others are cut first.
    let mut first_whole = least.clone();
    first_whole[0] = natural.get(cut[0]).copied().unwrap_or(0) as usize;
    set(t, &first_whole);
    *t = fold_headings(t, cut, &[3, 4]);
    set(t, &least);
    let narrowest = width(t);
    if narrowest > COLUMNS {
        return None;
    }
    let mut room = COLUMNS - narrowest;
    let mut widths = least.clone();
    for (k, &i) in cut.iter().enumerate() {
        let full = natural.get(i).copied().unwrap_or(0) as usize;
        let more = full.saturating_sub(widths[k]).min(room);
        widths[k] += more;
        room -= more;
    }
    set(t, &widths);
    cut_cells(t, cut, &widths);
    Some(
        cut.iter()
            .zip(&widths)
            .any(|(&i, &w)| natural.get(i).copied().unwrap_or(0) as usize > w),
    )
}

/// Cuts each line of the `cut` columns' cells to its column's width, so
/// that comfy-table wraps nothing, and lets each row have the lines it was
/// given (a unit stacked under a test's name stays, where a row of one line
/// lost it). A column's cells cut alike from the right though they differ
/// (`Sequential Output Per Chr`, `... Block`, `... Rewrite`) would read as
/// one row repeated: those keep their ends and lose their middles.
fn cut_cells(t: &mut Table, cut: &[usize], widths: &[usize]) {
    let rows: Vec<Vec<String>> = t
        .row_iter()
        .map(|r| r.cell_iter().map(|c| c.content()).collect())
        .collect();
    let mut shown = rows.clone();
    for (&i, &w) in cut.iter().zip(widths) {
        let lines = |r: &Vec<String>| -> Vec<String> {
            r.get(i)
                .map(|c| c.split('\n').map(str::to_string).collect())
                .unwrap_or_default()
        };
        let ends: Vec<Vec<String>> = rows
            .iter()
            .map(|r| lines(r).iter().map(|l| cut_end(l, w)).collect())
            .collect();
        for (k, r) in rows.iter().enumerate() {
            if r.get(i).is_none() {
                continue;
            }
            let whole = lines(r);
            let cells: Vec<String> = whole
                .iter()
                .enumerate()
                .map(|(n, line)| {
                    // How long a start this line shares with each other line
                    // of the column, and whether that one is cut alike.
                    let shared: Vec<(usize, bool)> = rows
                        .iter()
                        .enumerate()
                        .filter(|(o, _)| *o != k)
                        .filter_map(|(o, other)| {
                            Some((ends[o].get(n)? == &ends[k][n], lines(other).get(n)?.clone()))
                        })
                        .filter(|(_, other)| other != line)
                        .map(|(alike, other)| (common_start(line, &other), alike))
                        .collect();
                    // Kept whole from where it parts from those it would read
                    // as; then from where it parts from any whose start is
                    // as long as the start that is shown, until none is.
                    let Some(mut from) = shared.iter().filter(|(_, alike)| *alike).map(|(s, _)| *s).max()
                    else {
                        return ends[k][n].clone();
                    };
                    loop {
                        let tail: String = line.chars().skip(from).collect();
                        let cut = cut_middle(line, w, display_width(&tail));
                        let head = cut.chars().take_while(|c| *c != '…').count();
                        let next = shared
                            .iter()
                            .map(|(s, _)| *s)
                            .filter(|s| *s >= head)
                            .fold(from, usize::min);
                        if next == from {
                            return cut;
                        }
                        from = next;
                    }
                })
                .collect();
            shown[k][i] = cells.join("\n");
        }
    }
    for ((row, was), now) in t.row_iter_mut().zip(&rows).zip(&shown) {
        let height = now.iter().map(|c| c.split('\n').count()).max().unwrap_or(1);
        if was != now {
            let cells: Vec<comfy_table::Cell> = row
                .cell_iter()
                .zip(now)
                .enumerate()
                .map(|(i, (cell, text))| match cut.contains(&i) {
                    true => comfy_table::Cell::new(text),
                    false => cell.clone(),
                })
                .collect();
            *row = comfy_table::Row::from(cells);
        }
        row.max_height(height);
    }
}

/// Characters `a` and `b` start with alike.
fn common_start(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// `text` within `width` columns, cut on the right with "…".
fn cut_end(text: &str, width: usize) -> String {
    if display_width(text) <= width {
        return text.to_string();
    }
    format!("{}…", cut(text, width.saturating_sub(1)))
}

/// `text` within `width` columns: its end, `tail` columns of it where
/// there is room, after as much of its start as fits and "…".
fn cut_middle(text: &str, width: usize, tail: usize) -> String {
    if display_width(text) <= width || width < 4 {
        return cut_end(text, width);
    }
    let room = width - 1;
    // Two columns of the start at least: one wide character.
    let head = cut(text, room - tail.clamp(1, room - 2));
    let tail_room = room - display_width(&head);
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = display_width(&c.to_string());
        if used + w > tail_room {
            break;
        }
        used += w;
        tail.push(c);
    }
    let tail: String = tail.into_iter().rev().collect();
    format!("{head}…{tail}")
}

/// The widest line of `t` as laid out, in display columns.
fn width(t: &Table) -> usize {
    t.to_string().lines().map(display_width).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::run_table::new_table;

    fn lines(s: &str) -> Vec<&str> {
        s.lines().collect()
    }

    #[test]
    fn a_table_that_fits_is_left_alone() {
        let mut t = new_table(&["percentile", "read latency"]);
        t.add_row(vec!["p99.999", "4.08 ms"]);
        assert_eq!(render(&t), t.to_string());
    }

    #[test]
    fn columns_go_from_the_right_and_labels_stay_whole() {
        let mut header = vec!["percentile".to_string()];
        header.extend((0..9).map(|i| format!("op{i} latency")));
        let mut t = new_table(&header.iter().map(String::as_str).collect::<Vec<_>>());
        for p in ["p99.99", "p99.999"] {
            let mut row = vec![p.to_string()];
            row.extend((0..9).map(|_| "123.4 µs".to_string()));
            t.add_row(row);
        }
        let out = render(&t);
        assert!(out.lines().all(|l| display_width(l) <= COLUMNS), "{out}");
        // One line per row: nothing wrapped; headings fold between words.
        let rows: Vec<&str> = lines(&out)
            .into_iter()
            .filter(|l| l.starts_with(" p99"))
            .collect();
        assert_eq!(rows.len(), 2, "{out}");
        assert!(rows[1].starts_with(" p99.999 "), "{out}");
        assert!(rows.iter().all(|r| r.matches("123.4 µs").count() >= 5), "{out}");
        let note = lines(&out).last().unwrap().to_string();
        assert!(note.starts_with("op"), "{out}");
        // Named left to right, on one line however many go.
        assert!(note.starts_with("op") && note.contains(" more"), "{note}");
        assert!(note.contains("--wide"), "{note}");
    }

    #[test]
    fn a_cut_column_is_cut_with_an_ellipsis_before_any_column_goes() {
        let mut t = new_table(&["id", "MB/s", "figure"]);
        t.add_row(vec!["1", "849", &"a long figure ".repeat(10)]);
        t.add_row(vec!["2", "12", "short"]);
        let out = render_with(&t, &Fit::new().cut(&[2]));
        let l = lines(&out);
        assert_eq!(l.len(), 6 + 1, "{out}");
        assert!(l.iter().all(|l| display_width(l) <= COLUMNS), "{out}");
        assert!(
            l[3].contains("a long figure") && l[3].trim_end().ends_with('…'),
            "{out}"
        );
        assert!(l[4].contains(" short"), "{out}");
        assert!(l[6].contains("--wide") && !l[6].contains("left out"), "{out}");
    }

    /// Bonnie++'s comparison stacks the unit under the test's
    /// name; fitted to 80 columns each row was cut to one line (the unit
    /// gone, `Random Seeks…`), and in Japanese the `シーケンシャル出力 ...`
    /// rows were cut to the same `シーケンシャル出力…`. Each row keeps its
    /// unit, and no two rows read the same where their column has room for
    /// what tells them apart.
    #[test]
    fn stacked_lines_stay_and_no_two_rows_are_cut_alike() {
        let tests = [
            "シーケンシャル出力 文字単位\nK/sec",
            "シーケンシャル出力 ブロック\nK/sec",
            "シーケンシャル出力 書き換え\nK/sec",
            "シーケンシャル入力 文字単位\nK/sec",
            "シーケンシャル入力 ブロック\nK/sec",
            "ランダムシーク\n/sec",
        ];
        // Two runs and one ratio, or two ratios: the test's column 24, or
        // 16 columns wide (as a comparison of three runs leaves it).
        for ratios in [1, 2] {
            let mut header = vec!["テスト".to_string()];
            for r in 0..2 {
                header.extend([format!("実行 {r}"), "レイテンシ".into()]);
            }
            header.extend((0..ratios).map(|r| format!("x{r}")));
            let mut t = new_table(&header.iter().map(String::as_str).collect::<Vec<_>>());
            for test in tests {
                let mut row = vec![test.to_string()];
                for _ in 0..2 {
                    row.extend(["62899 *".to_string(), "16269us".to_string()]);
                }
                row.extend((0..ratios).map(|_| "0.85x".to_string()));
                t.add_row(row);
            }
            let out = render_with(&t, &Fit::new().cut(&[0]));
            assert!(out.lines().all(|l| display_width(l) <= COLUMNS), "{out}");
            assert_eq!(out.lines().filter(|l| l.trim() == "K/sec").count(), 5, "{out}");
            assert_eq!(out.lines().filter(|l| l.trim() == "/sec").count(), 1, "{out}");
            let firsts: Vec<&str> = out
                .lines()
                .filter(|l| l.contains("62899"))
                .map(|l| l.split("   ").next().unwrap())
                .collect();
            assert_eq!(firsts.len(), tests.len(), "{out}");
            for (k, a) in firsts.iter().enumerate() {
                assert!(!firsts[k + 1..].contains(a), "{a} twice:\n{out}");
            }
            assert!(firsts.iter().any(|f| f.contains('…')), "{out}");
        }
    }

    #[test]
    fn wide_characters_count_twice_when_fitting() {
        let mut t = new_table(&["テスト", "値"]);
        t.add_row(vec!["シーケンシャル読み込み".repeat(3), "1".repeat(30)]);
        let out = render_with(&t, &Fit::new().cut(&[0]));
        assert!(out.lines().all(|l| display_width(l) <= COLUMNS), "{out}");
        assert_eq!(lines(&out).len(), 5 + 1, "{out}");
        assert!(out.contains(&"1".repeat(30)), "a number is never cut: {out}");
    }
}
