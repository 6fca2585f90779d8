//! A table as the page shows it and as it is downloaded: every cell keeps
//! the text a person reads (formatted as in the terminal) and the stored
//! value behind it, so CSV and JSON carry numbers, not strings like "3.85 ms".

use std::fmt::Write;

use serde::Serialize;

use crate::report::export::Grid;
use crate::report::svg::esc;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Null,
    Int(i64),
    Num(f64),
    Text(String),
}

impl Value {
    /// The value as a CSV field carries it: numbers in full, nothing for null.
    fn to_field(&self) -> String {
        match self {
            Value::Null => String::new(),
            Value::Int(i) => i.to_string(),
            Value::Num(x) => x.to_string(),
            Value::Text(s) => s.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub text: String,
    pub value: Value,
    /// The text links here (escaped on output).
    pub link: Option<String>,
    /// A checkbox of this form field name, with the value as its value.
    pub pick: Option<String>,
    /// The whole text, shown on hover, where `text` is its short form.
    pub title: Option<String>,
}

impl Cell {
    /// `text` on the page, `value` in downloads.
    pub fn shown(text: impl Into<String>, value: Value) -> Cell {
        Cell {
            text: text.into(),
            value,
            link: None,
            pick: None,
            title: None,
        }
    }
    pub fn text(s: impl Into<String>) -> Cell {
        let s = s.into();
        Cell::shown(s.clone(), Value::Text(s))
    }
    pub fn linked(mut self, href: impl Into<String>) -> Cell {
        self.link = Some(href.into());
        self
    }
    /// `whole` on hover, where the cell shows less of it.
    pub fn titled(mut self, whole: impl Into<String>) -> Cell {
        self.title = Some(whole.into());
        self
    }
    pub fn picked(mut self, field: &str) -> Cell {
        self.pick = Some(field.to_string());
        self
    }
    pub fn opt_text(s: Option<&str>) -> Cell {
        match s {
            Some(s) => Cell::text(s),
            None => Cell::empty(),
        }
    }
    /// A number shown as `shown`, exported as `v`.
    pub fn num(v: f64, shown: impl Into<String>) -> Cell {
        Cell::shown(shown, if v.is_finite() { Value::Num(v) } else { Value::Null })
    }
    pub fn int(v: i64) -> Cell {
        Cell::shown(v.to_string(), Value::Int(v))
    }
    pub fn empty() -> Cell {
        Cell::shown("", Value::Null)
    }

    fn to_html(&self) -> String {
        let mut out = String::new();
        if let Some(field) = &self.pick {
            let v = match &self.value {
                Value::Int(i) => i.to_string(),
                _ => self.text.clone(),
            };
            let _ = write!(
                out,
                r#"<input type="checkbox" name="{}" value="{}" aria-label="select {}"> "#,
                esc(field),
                esc(&v),
                esc(&self.text)
            );
        }
        match &self.link {
            Some(href) => {
                let _ = write!(out, r#"<a href="{}">{}</a>"#, esc(href), esc(&self.text));
            }
            None => out.push_str(&esc(&self.text)),
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Unique within a page; names the download (`?table=NAME`).
    pub name: String,
    pub title: String,
    pub columns: Vec<String>,
    /// Column names in downloads, where the values carry their unit
    /// (`lat_mean_ns` for a column shown as `3.85 ms`); empty: as shown.
    pub export_columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new(name: &str, title: &str, columns: &[&str]) -> Table {
        Table {
            name: name.to_string(),
            title: title.to_string(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            export_columns: Vec::new(),
            rows: Vec::new(),
        }
    }

    pub fn with_export_columns(mut self, names: &[&str]) -> Table {
        debug_assert_eq!(names.len(), self.columns.len());
        self.export_columns = names.iter().map(|c| c.to_string()).collect();
        self
    }

    fn exported_columns(&self) -> &[String] {
        if self.export_columns.is_empty() {
            &self.columns
        } else {
            &self.export_columns
        }
    }

    /// The table in HTML; `links` is markup placed beside the title (downloads).
    pub fn to_html(&self, links: &str) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<div class="table" id="table-{n}"><div class="table-title">{t}{links}</div><table data-table="{n}"><thead><tr>"#,
            n = esc(&self.name),
            t = esc(&crate::i18n::heading(&self.title)),
        );
        for c in &self.columns {
            let _ = write!(out, "<th>{}</th>", esc(&crate::i18n::heading(c)));
        }
        out.push_str("</tr></thead><tbody>");
        for row in &self.rows {
            out.push_str("<tr>");
            for (i, cell) in row.iter().enumerate() {
                let class = match cell.value {
                    _ if cell.pick.is_some() => r#" class="pick""#,
                    Value::Int(_) | Value::Num(_) if i > 0 => r#" class="n""#,
                    _ => "",
                };
                let title = match &cell.title {
                    Some(t) => format!(r#" title="{}""#, esc(t)),
                    None => String::new(),
                };
                let _ = write!(out, "<td{class}{title}>{}</td>", cell.to_html());
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table></div>");
        out
    }

    /// RFC 4180 CSV of the stored values, header first (export::Grid's writer).
    pub fn to_csv(&self) -> String {
        self.values_grid().to_csv_lines("\r\n")
    }

    /// A grid of text as a table: a cell that starts with a number (`371`,
    /// `371 0.43x`, `1190202 *`) is exported as that number and aligned as
    /// one; the first `grid.left` columns stay text.
    pub fn from_grid(name: &str, title: &str, grid: &Grid) -> Table {
        let columns: Vec<&str> = grid.header.iter().map(String::as_str).collect();
        let mut t = Table::new(name, title, &columns);
        for row in &grid.rows {
            t.rows.push(
                row.iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let first = c.split(' ').next().unwrap_or("");
                        match first.parse::<f64>() {
                            Ok(v) if i >= grid.left => Cell::num(v, c.as_str()),
                            _ => Cell::text(c.as_str()),
                        }
                    })
                    .collect(),
            );
        }
        t
    }

    /// The table as a person reads it, for the terminal and Markdown
    /// writers (export::Grid); the first `left` columns are names.
    pub fn shown_grid(&self, left: usize) -> Grid {
        let mut g = Grid::new(self.columns.iter().map(|c| crate::i18n::heading(c)));
        g.left = left;
        for row in &self.rows {
            g.push(row.iter().map(|c| c.text.clone()));
        }
        g
    }

    /// The stored values under the download's column names, for a CSV
    /// written by export::Grid.
    pub fn values_grid(&self) -> Grid {
        let mut g = Grid::new(self.exported_columns().to_vec());
        for row in &self.rows {
            g.push(row.iter().map(|c| c.value.to_field()));
        }
        g
    }

    /// `{"name", "title", "columns", "rows": [[value, ...], ...]}`: rows are
    /// arrays because column names repeat across targets.
    pub fn to_json(&self) -> serde_json::Value {
        let rows: Vec<Vec<&Value>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(|c| &c.value).collect())
            .collect();
        serde_json::json!({
            "name": self.name,
            "title": self.title,
            "columns": self.exported_columns(),
            "rows": rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new("runs", "Runs", &["label", "IOPS"]);
        t.rows
            .push(vec![Cell::text("a,\"b\""), Cell::num(1234.5, "1235")]);
        t.rows.push(vec![Cell::text("<i>x</i>"), Cell::empty()]);
        t
    }

    #[test]
    fn csv_quotes_and_keeps_raw_numbers() {
        assert_eq!(
            sample().to_csv(),
            "label,IOPS\r\n\"a,\"\"b\"\"\",1234.5\r\n<i>x</i>,\r\n"
        );
    }

    #[test]
    fn json_rows_are_values() {
        let v = sample().to_json();
        assert_eq!(v["rows"][0][1], 1234.5);
        assert!(v["rows"][1][1].is_null());
        assert_eq!(v["columns"][0], "label");
    }

    #[test]
    fn html_shows_formatted_escaped_text() {
        let html = sample().to_html("");
        assert!(html.contains("<td class=\"n\">1235</td>"));
        assert!(html.contains("&lt;i&gt;x&lt;/i&gt;"));
        assert!(!html.contains("<i>"));
    }
}
