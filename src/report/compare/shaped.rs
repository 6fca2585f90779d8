//! A comparison in a published table's shape (seed 2's sweep, seed 4's
//! repeated runs): tables of what a person reads and the values behind it
//! (html::table::Table), so each format writes the same model: the terminal
//! and Markdown the texts, CSV the values in machine units, HTML both.

use crate::report::escape::term;
use crate::report::export::Grid;
use crate::report::html::table::Table;

#[derive(Debug, Clone)]
pub struct Shaped {
    /// The CSV's first column: what a section is (`mix`, `row`).
    pub section_column: &'static str,
    /// Each section's name for the CSV, and its table (titled for people).
    pub sections: Vec<(String, Table)>,
    /// How many leading columns are names (left-aligned).
    pub left: usize,
    /// Columns the terminal shows under the first one, within 80 columns
    /// (a target's size/plan and price under its name); `--wide`, Markdown,
    /// CSV and HTML keep them apart.
    pub stack: Vec<usize>,
    /// Lines under the tables (what a mark in a cell means); not in the CSV.
    pub notes: Vec<String>,
}

impl Shaped {
    pub fn table(&self) -> String {
        let mut out = String::new();
        for (_, t) in &self.sections {
            out.push('\n');
            out.push_str(&crate::report::width::wrap("", &term(&t.title), 2));
            out.push_str(&self.stacked(t.shown_grid(self.left)).to_table());
        }
        for n in &self.notes {
            out.push_str(&crate::report::width::wrap("", &term(n), 0));
        }
        out
    }

    fn stacked(&self, g: Grid) -> Grid {
        if self.stack.is_empty() || crate::report::width::wide() {
            return g;
        }
        let merge = |row: &[String]| -> Vec<String> {
            let mut first = vec![term(&row[0]).into_owned()];
            first.extend(
                self.stack
                    .iter()
                    .filter_map(|i| row.get(*i))
                    .filter(|c| !c.is_empty() && *c != "-")
                    .map(|c| term(c).into_owned()),
            );
            // Indented: a line of its row, not a row of its own.
            std::iter::once(first.join("\n  "))
                .chain(
                    row.iter()
                        .enumerate()
                        .skip(1)
                        .filter(|(i, _)| !self.stack.contains(i))
                        .map(|(_, c)| c.clone()),
                )
                .collect()
        };
        let mut out = Grid::new(merge(&g.header));
        out.left = g.left - self.stack.iter().filter(|i| **i < g.left).count();
        out.stacked = true;
        for row in &g.rows {
            out.push(merge(row));
        }
        out
    }

    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for (_, t) in &self.sections {
            out.push_str(&format!("\n### {}\n\n", t.title));
            out.push_str(&t.shown_grid(self.left).to_markdown());
        }
        for n in &self.notes {
            out.push_str(&format!("\n{n}\n"));
        }
        out
    }

    /// One CSV: the section's name, then the table's values, a line per
    /// table row. Every section has the same columns (one per target, or
    /// per run), so one header serves them all.
    pub fn csv(&self) -> String {
        let mut all: Option<Grid> = None;
        for (name, t) in &self.sections {
            let g = t.values_grid();
            let out = all.get_or_insert_with(|| {
                let mut header = vec![self.section_column.to_string()];
                header.extend(g.header.iter().cloned());
                Grid::new(header)
            });
            for row in g.rows {
                out.push(std::iter::once(name.clone()).chain(row));
            }
        }
        all.map(|g| g.to_csv()).unwrap_or_default()
    }
}
