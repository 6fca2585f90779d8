//! Hand-written SVG charts: axes with ticks and units, legends, grouped bars,
//! lines, shaded bands and histograms. Pure functions from numbers to markup;
//! every string drawn is escaped here, so callers pass raw user text.

use std::fmt::Write;

/// Okabe & Ito's colour-blind-safe palette (minus the yellow, unreadable on white).
pub const PALETTE: [&str; 7] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#555555",
];

pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Escapes text for HTML and SVG, in element content and in quoted
/// attributes; control characters and bidi controls are shown as the
/// terminal shows them (`\u{1b}`), since a page is copied into terminals.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in crate::report::escape::term(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const WIDTH: f64 = 640.0;
const PLOT_HEIGHT: f64 = 230.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 24.0;
/// Title and legend rows sit above the plot.
const TOP: f64 = 56.0;
const BOTTOM: f64 = 46.0;
/// Rough width of one character of the 11 px labels, for layout decisions.
const CHAR_PX: f64 = 6.4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Linear,
    Log10,
    Log2,
}

impl Scale {
    fn t(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log10 => v.max(f64::MIN_POSITIVE).log10(),
            Scale::Log2 => v.max(f64::MIN_POSITIVE).log2(),
        }
    }
}

/// One axis: its title (with the unit), scale, range and labelled ticks.
#[derive(Debug, Clone)]
pub struct Axis {
    pub title: String,
    pub scale: Scale,
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<(f64, String)>,
}

impl Axis {
    /// A linear axis over the data with 1-2-5 ticks; `from_zero` for quantities
    /// (IOPS, MB/s) whose bars or lines would mislead without the zero.
    pub fn linear(title: &str, min: f64, max: f64, from_zero: bool, fmt: fn(f64) -> String) -> Axis {
        let (mut lo, mut hi) = (if from_zero { min.min(0.0) } else { min }, max);
        if !lo.is_finite() || !hi.is_finite() {
            (lo, hi) = (0.0, 1.0);
        }
        if hi <= lo {
            hi = lo + if lo == 0.0 { 1.0 } else { lo.abs() };
        }
        let step = nice_step((hi - lo) / 5.0);
        // A hair over a tick (a run measured 2.0003 s) does not earn a whole empty step.
        let first = (lo / step + 0.02).floor() * step;
        let last = (hi / step - 0.02).ceil() * step;
        let mut ticks = Vec::new();
        let mut i = 0.0;
        while first + i * step <= last + step * 1e-9 {
            let v = first + i * step;
            // Avoid "-0" from floating error at zero.
            let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
            ticks.push((v, fmt(v)));
            i += 1.0;
        }
        Axis {
            title: title.to_string(),
            scale: Scale::Linear,
            lo: first,
            hi: last,
            ticks,
        }
    }

    /// A log axis from the decade below `min` to the decade above `max`; 2 and 5
    /// are ticked too when the data spans fewer than three decades.
    pub fn log10(title: &str, min: f64, max: f64, fmt: fn(f64) -> String) -> Axis {
        let min = if min.is_finite() && min > 0.0 { min } else { 1.0 };
        let max = if max.is_finite() && max > min {
            max
        } else {
            min * 10.0
        };
        let lo_exp = min.log10().floor() as i32;
        let mut hi_exp = max.log10().ceil() as i32;
        if hi_exp <= lo_exp {
            hi_exp = lo_exp + 1;
        }
        let mut ticks = Vec::new();
        let dense = hi_exp - lo_exp < 3;
        for e in lo_exp..=hi_exp {
            let base = 10f64.powi(e);
            ticks.push((base, fmt(base)));
            if dense && e < hi_exp {
                ticks.push((2.0 * base, fmt(2.0 * base)));
                ticks.push((5.0 * base, fmt(5.0 * base)));
            }
        }
        Axis {
            title: title.to_string(),
            scale: Scale::Log10,
            lo: 10f64.powi(lo_exp),
            hi: 10f64.powi(hi_exp),
            ticks,
        }
    }

    /// Exactly `lo..hi` (a time span), with 1-2-5 ticks inside it.
    pub fn span(title: &str, lo: f64, hi: f64, fmt: fn(f64) -> String) -> Axis {
        let mut a = Axis::linear(title, lo, hi, false, fmt);
        if hi > lo {
            a.ticks.retain(|(v, _)| *v >= lo - 1e-9 && *v <= hi + 1e-9);
            a.lo = lo;
            a.hi = hi;
        }
        a
    }

    /// An axis whose ticks the caller chooses (block sizes, percentiles).
    pub fn custom(title: &str, scale: Scale, lo: f64, hi: f64, ticks: Vec<(f64, String)>) -> Axis {
        let hi = if hi > lo { hi } else { lo + 1.0 };
        Axis {
            title: title.to_string(),
            scale,
            lo,
            hi,
            ticks,
        }
    }

    /// Position of `v` along the axis, 0 at `lo` and 1 at `hi`.
    fn frac(&self, v: f64) -> f64 {
        let (a, b) = (self.scale.t(self.lo), self.scale.t(self.hi));
        if b == a {
            0.5
        } else {
            (self.scale.t(v) - a) / (b - a)
        }
    }
}

/// The 1, 2 or 5 times a power of ten nearest above `raw`.
pub fn nice_step(raw: f64) -> f64 {
    if !raw.is_finite() || raw <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    let m = raw / p;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * p
}

/// Tick numbers: plain below ten thousand, then k and M.
pub fn num_tick(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    // Two decimals, or as many as a value below 0.01 needs for two
    // significant digits: the ticks of a 10 ms job's time axis read
    // 0.002, 0.004, not "0" five times.
    let decimals = if x != 0.0 && x.abs() < 0.01 {
        ((-x.abs().log10().floor()) as usize + 1).min(9)
    } else {
        2
    };
    let s = format!("{x:.decimals$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}{suffix}")
}

/// Latency ticks in the unit that suits each value: `1 ms`, `250 µs`.
pub fn latency_tick(ns: f64) -> String {
    let (x, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let s = format!("{x:.2}");
    format!("{} {unit}", s.trim_end_matches('0').trim_end_matches('.'))
}

/// A line of a line chart.
#[derive(Debug, Clone)]
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub dashed: bool,
    /// Indices of the points written with their value.
    pub values: Vec<usize>,
}

/// A shaded span of the x axis (a phase of a job), or of the y axis (a
/// tolerance around a value), with its label; `class` (`ramp`, `measure`,
/// `tol10`, `tol20`) picks the shade.
#[derive(Debug, Clone)]
pub struct Band {
    pub from: f64,
    pub to: f64,
    pub label: String,
    pub class: &'static str,
}

#[derive(Debug, Clone)]
pub struct LineChart {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub lines: Vec<Line>,
    pub bands: Vec<Band>,
    /// Shaded spans of the y axis, drawn in order (the widest first), each
    /// labelled inside its top edge at the right.
    pub y_bands: Vec<Band>,
    /// Vertical markers: (x, label), e.g. where measurement starts.
    pub markers: Vec<(f64, String)>,
    pub value_fmt: fn(f64) -> String,
    /// The line the chart is about, drawn wider and over the others.
    pub emphasis: Option<usize>,
}

/// Grouped vertical bars; one series per colour, one group per category.
#[derive(Debug, Clone)]
pub struct BarChart {
    pub title: String,
    pub y_title: String,
    pub groups: Vec<String>,
    /// (name, one value per group; `None` draws no bar).
    pub series: Vec<(String, Vec<Option<f64>>)>,
    pub value_fmt: fn(f64) -> String,
    /// A horizontal reference line (1.0 for ratios), with its label.
    pub reference: Option<(f64, String)>,
}

/// One bar of a `BinChart`: from, to (x) and height (y).
pub type Bin = (f64, f64, f64);

/// Bars over a numeric (usually log) x axis: the latency histogram.
#[derive(Debug, Clone)]
pub struct BinChart {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<(String, Vec<Bin>)>,
}

struct Plot<'a> {
    x: &'a Axis,
    y: &'a Axis,
    top: f64,
    height: f64,
}

impl Plot<'_> {
    fn px(&self, v: f64) -> f64 {
        LEFT + self.x.frac(v).clamp(-0.02, 1.02) * (WIDTH - LEFT - RIGHT)
    }
    fn py(&self, v: f64) -> f64 {
        self.top + self.height - self.y.frac(v).clamp(-0.02, 1.02) * self.height
    }
    fn bottom(&self) -> f64 {
        self.top + self.height
    }
}

fn open(out: &mut String, kind: &str, title: &str, height: f64) {
    let _ = write!(
        out,
        r#"<svg class="chart {kind}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{t}"><title>{t}</title><rect class="bg" x="0" y="0" width="{WIDTH}" height="{height}"/><text class="chart-title" x="{x}" y="20" text-anchor="middle">{t}</text>"#,
        t = esc(title),
        x = WIDTH / 2.0,
    );
}

/// Legend entries in rows under the title; returns the height used.
fn legend(out: &mut String, items: &[(String, &str, bool)]) {
    out.push_str(r#"<g class="legend">"#);
    let (mut x, mut y) = (LEFT, 38.0);
    for (name, colour, dashed) in items {
        let w = 26.0 + super::width::display_width(name) as f64 * CHAR_PX + 14.0;
        if x + w > WIDTH - RIGHT && x > LEFT {
            x = LEFT;
            y += 14.0;
        }
        let dash = if *dashed { r#" stroke-dasharray="5 3""# } else { "" };
        let _ = write!(
            out,
            r#"<line x1="{x}" y1="{ly}" x2="{x2}" y2="{ly}" stroke="{colour}" stroke-width="6"{dash}/><text x="{tx}" y="{y}">{n}</text>"#,
            ly = y - 4.0,
            x2 = x + 20.0,
            tx = x + 25.0,
            n = esc(name),
        );
        x += w;
    }
    out.push_str("</g>");
}

/// Legend entries for named series drawn solid, one colour each in order.
fn solid_legend<T>(series: &[(String, T)]) -> Vec<(String, &'static str, bool)> {
    series
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.clone(), color(i), false))
        .collect()
}

fn legend_rows(items: &[(String, &str, bool)]) -> f64 {
    let mut rows = 1.0;
    let mut x = LEFT;
    for (name, _, _) in items {
        let w = 26.0 + super::width::display_width(name) as f64 * CHAR_PX + 14.0;
        if x + w > WIDTH - RIGHT && x > LEFT {
            x = LEFT;
            rows += 1.0;
        }
        x += w;
    }
    rows
}

fn y_axis(out: &mut String, p: &Plot) {
    out.push_str(r#"<g class="axis y">"#);
    for (v, label) in &p.y.ticks {
        let y = p.py(*v);
        let _ = write!(
            out,
            r#"<line class="grid" x1="{LEFT}" y1="{y:.1}" x2="{x2}" y2="{y:.1}"/><text class="tick" x="{tx}" y="{ty:.1}" text-anchor="end">{l}</text>"#,
            x2 = WIDTH - RIGHT,
            tx = LEFT - 6.0,
            ty = y + 4.0,
            l = esc(label),
        );
    }
    let _ = write!(
        out,
        r#"<line class="axis-line" x1="{LEFT}" y1="{t}" x2="{LEFT}" y2="{b}"/><text class="axis-title" transform="translate(16 {m:.1}) rotate(-90)" text-anchor="middle">{title}</text></g>"#,
        t = p.top,
        b = p.bottom(),
        m = p.top + p.height / 2.0,
        title = esc(&p.y.title),
    );
}

fn x_axis(out: &mut String, p: &Plot) {
    out.push_str(r#"<g class="axis x">"#);
    for (v, label) in &p.x.ticks {
        let x = p.px(*v);
        let _ = write!(
            out,
            r#"<line class="tickmark" x1="{x:.1}" y1="{b}" x2="{x:.1}" y2="{b5}"/><text class="tick" x="{x:.1}" y="{ty}" text-anchor="middle">{l}</text>"#,
            b = p.bottom(),
            b5 = p.bottom() + 5.0,
            ty = p.bottom() + 17.0,
            l = esc(label),
        );
    }
    let _ = write!(
        out,
        r#"<line class="axis-line" x1="{LEFT}" y1="{b}" x2="{r}" y2="{b}"/><text class="axis-title" x="{m}" y="{ty}" text-anchor="middle">{title}</text></g>"#,
        b = p.bottom(),
        r = WIDTH - RIGHT,
        m = LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
        ty = p.bottom() + 36.0,
        title = esc(&p.x.title),
    );
}

pub fn line_chart(c: &LineChart) -> String {
    let mut out = String::new();
    let items: Vec<(String, &str, bool)> = c
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.clone(), color(i), l.dashed))
        .collect();
    let top = TOP + (legend_rows(&items) - 1.0) * 14.0;
    let height = top + PLOT_HEIGHT + BOTTOM;
    open(&mut out, "line-chart", &c.title, height);
    legend(&mut out, &items);
    let p = Plot {
        x: &c.x,
        y: &c.y,
        top,
        height: PLOT_HEIGHT,
    };
    for b in &c.bands {
        let (x1, x2) = (p.px(b.from), p.px(b.to));
        // A band too narrow for its label (5 min of ramp before 8 h) gets it
        // beside it, one line lower, instead of centred over it.
        let fits = super::width::display_width(&b.label) as f64 * CHAR_PX <= x2 - x1;
        let (tx, ty, anchor) = if fits {
            ((x1 + x2) / 2.0, p.top + 12.0, "middle")
        } else {
            (x2 + 3.0, p.top + 26.0, "start")
        };
        let _ = write!(
            out,
            r#"<g class="band {c}"><rect x="{x1:.1}" y="{t}" width="{w:.1}" height="{h}"/><text x="{tx:.1}" y="{ty}" text-anchor="{anchor}">{l}</text></g>"#,
            c = b.class,
            t = p.top,
            w = (x2 - x1).max(0.0),
            h = p.height,
            l = esc(&b.label),
        );
    }
    for b in &c.y_bands {
        let (y1, y2) = (p.py(b.to), p.py(b.from));
        // Labels sit in the top strip of their band, right of the data;
        // a strip too thin for one is labelled just above its edge.
        let ty = if y2 - y1 >= 2.0 * 12.0 {
            y1 + 11.0
        } else {
            y1 - 3.0
        };
        let _ = write!(
            out,
            r#"<g class="band {c}"><rect x="{LEFT}" y="{y1:.1}" width="{w}" height="{h:.1}"/><text x="{tx}" y="{ty:.1}" text-anchor="end">{l}</text></g>"#,
            c = b.class,
            w = WIDTH - LEFT - RIGHT,
            h = (y2 - y1).max(0.0),
            tx = WIDTH - RIGHT - 4.0,
            l = esc(&b.label),
        );
    }
    y_axis(&mut out, &p);
    x_axis(&mut out, &p);
    for (k, (x, label)) in c.markers.iter().enumerate() {
        let px = p.px(*x);
        // Neighbouring markers' labels take turns on three rows, so they do not overlap.
        let row = (k % 3) as f64 * 12.0;
        let _ = write!(
            out,
            r#"<g class="marker"><line x1="{px:.1}" y1="{t}" x2="{px:.1}" y2="{b}"/><text x="{tx:.1}" y="{ty}">{l}</text></g>"#,
            t = p.top,
            b = p.bottom(),
            tx = px + 4.0,
            ty = p.top + 26.0 + row,
            l = esc(label),
        );
    }
    let order = (0..c.lines.len())
        .filter(|i| Some(*i) != c.emphasis)
        .chain(c.emphasis.filter(|e| *e < c.lines.len()));
    for i in order {
        let line = &c.lines[i];
        let colour = color(i);
        let width = if Some(i) == c.emphasis { 3 } else { 2 };
        let pts: Vec<String> = line
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|(x, y)| format!("{:.1},{:.1}", p.px(*x), p.py(*y)))
            .collect();
        let dash = if line.dashed {
            r#" stroke-dasharray="5 3""#
        } else {
            ""
        };
        let _ = write!(
            out,
            r#"<g class="series" data-name="{n}"><polyline class="line" fill="none" stroke="{colour}" stroke-width="{width}"{dash} points="{pts}"/>"#,
            n = esc(&line.name),
            pts = pts.join(" "),
        );
        // Dots only where they stay readable.
        if line.points.len() <= 60 {
            for (x, y) in &line.points {
                let _ = write!(
                    out,
                    r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="3" fill="{colour}"><title>{v}</title></circle>"#,
                    cx = p.px(*x),
                    cy = p.py(*y),
                    v = esc(&(c.value_fmt)(*y)),
                );
            }
        }
        for (x, y) in line.values.iter().filter_map(|k| line.points.get(*k)) {
            // The top line at this x writes its value above, the others below.
            let on_top = c
                .lines
                .iter()
                .all(|other| other.points.iter().find(|q| q.0 == *x).is_none_or(|q| q.1 <= *y));
            let dy = if on_top { -7.0 } else { 14.0 };
            let _ = write!(
                out,
                r#"<text class="value" x="{cx:.1}" y="{cy:.1}" text-anchor="middle" fill="{colour}">{v}</text>"#,
                cx = p.px(*x),
                cy = p.py(*y) + dy,
                v = esc(&(c.value_fmt)(*y)),
            );
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    out
}

pub fn bar_chart(c: &BarChart) -> String {
    let mut out = String::new();
    let items = solid_legend(&c.series);
    let top = TOP + (legend_rows(&items) - 1.0) * 14.0;
    let layout = BarLayout::of(c);
    let height = top + PLOT_HEIGHT + BOTTOM + layout.label_h;
    open(&mut out, "bar-chart", &c.title, height);
    legend(&mut out, &items);
    let y = bar_value_axis(c, layout.bar_w);
    let x = Axis::custom("", Scale::Linear, 0.0, 1.0, Vec::new());
    let p = Plot {
        x: &x,
        y: &y,
        top,
        height: PLOT_HEIGHT,
    };
    y_axis(&mut out, &p);
    group_labels(&mut out, c, &layout, &p);
    for (s, (name, values)) in c.series.iter().enumerate() {
        let _ = write!(out, r#"<g class="series" data-name="{}">"#, esc(name));
        for (g, v) in values.iter().enumerate() {
            if let Some(v) = v {
                bar(&mut out, c, &layout, &p, (s, name), (g, *v));
            }
        }
        out.push_str("</g>");
    }
    if let Some((v, label)) = &c.reference {
        let yr = p.py(*v);
        let _ = write!(
            out,
            r#"<g class="marker"><line x1="{LEFT}" y1="{yr:.1}" x2="{r}" y2="{yr:.1}"/><text x="{tx}" y="{ty:.1}" text-anchor="end">{l}</text></g>"#,
            r = WIDTH - RIGHT,
            tx = WIDTH - RIGHT - 2.0,
            ty = yr - 4.0,
            l = esc(label),
        );
    }
    out.push_str("</svg>");
    out
}

/// Where a bar chart's groups and bars go across, and the room its group names take below.
struct BarLayout {
    group_w: f64,
    /// Series, at least one: the bars of a group.
    n: f64,
    bar_w: f64,
    /// Group names that do not fit under their group are drawn slanted.
    slanted: bool,
    label_h: f64,
}

impl BarLayout {
    fn of(c: &BarChart) -> BarLayout {
        let plot_w = WIDTH - LEFT - RIGHT;
        let groups = c.groups.len().max(1) as f64;
        let group_w = plot_w / groups;
        let longest = c
            .groups
            .iter()
            .map(|g| super::width::display_width(g))
            .max()
            .unwrap_or(0) as f64
            * CHAR_PX;
        let slanted = longest > group_w - 6.0;
        let n = c.series.len().max(1) as f64;
        BarLayout {
            group_w,
            n,
            bar_w: (group_w * 0.8 / n).min(90.0),
            slanted,
            label_h: if slanted { longest * 0.6 + 12.0 } else { 0.0 },
        }
    }
}

/// The value axis from zero, with room above the tallest bar for its value,
/// written across or, on a narrow bar, upright.
fn bar_value_axis(c: &BarChart, bar_w: f64) -> Axis {
    let max = c
        .series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .copied()
        .chain(c.reference.as_ref().map(|r| r.0))
        .fold(0.0, f64::max);
    let label_px = c
        .series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .map(|v| {
            let w = super::width::display_width(&(c.value_fmt)(*v)) as f64 * CHAR_PX;
            if w <= bar_w + 4.0 { 16.0 } else { w + 8.0 }
        })
        .fold(16.0, f64::max)
        .min(PLOT_HEIGHT * 0.5);
    Axis::linear(
        &c.y_title,
        0.0,
        max * PLOT_HEIGHT / (PLOT_HEIGHT - label_px),
        true,
        num_tick,
    )
}

/// The group names under the plot, and its base line.
fn group_labels(out: &mut String, c: &BarChart, layout: &BarLayout, p: &Plot) {
    out.push_str(r#"<g class="axis x">"#);
    for (g, name) in c.groups.iter().enumerate() {
        let cx = LEFT + layout.group_w * (g as f64 + 0.5);
        if layout.slanted {
            let _ = write!(
                out,
                r#"<text class="tick" transform="translate({cx:.1} {ty}) rotate(-35)" text-anchor="end">{n}</text>"#,
                ty = p.bottom() + 14.0,
                n = esc(name),
            );
        } else {
            let _ = write!(
                out,
                r#"<text class="tick" x="{cx:.1}" y="{ty}" text-anchor="middle">{n}</text>"#,
                ty = p.bottom() + 17.0,
                n = esc(name),
            );
        }
    }
    let _ = write!(
        out,
        r#"<line class="axis-line" x1="{LEFT}" y1="{b}" x2="{r}" y2="{b}"/></g>"#,
        b = p.bottom(),
        r = WIDTH - RIGHT,
    );
}

/// Series `s`'s bar of group `g`, with its value above it.
fn bar(
    out: &mut String,
    c: &BarChart,
    layout: &BarLayout,
    p: &Plot,
    (s, name): (usize, &str),
    (g, v): (usize, f64),
) {
    let BarLayout {
        group_w, n, bar_w, ..
    } = *layout;
    let x0 = LEFT + group_w * g as f64 + (group_w - bar_w * n) / 2.0 + bar_w * s as f64;
    let (yt, yb) = (p.py(v), p.py(0.0));
    let text = (c.value_fmt)(v);
    let _ = write!(
        out,
        r#"<rect class="bar" x="{x0:.1}" y="{yt:.1}" width="{w:.1}" height="{h:.1}" fill="{colour}"><title>{n}, {g}: {t}</title></rect>"#,
        w = (bar_w - 2.0).max(1.0),
        h = (yb - yt).max(0.0),
        colour = color(s),
        n = esc(name),
        g = esc(&c.groups[g]),
        t = esc(&text),
    );
    let cx = x0 + bar_w / 2.0;
    if super::width::display_width(&text) as f64 * CHAR_PX <= bar_w + 4.0 {
        let _ = write!(
            out,
            r#"<text class="value" x="{cx:.1}" y="{ty:.1}" text-anchor="middle">{t}</text>"#,
            ty = yt - 4.0,
            t = esc(&text),
        );
    } else {
        let _ = write!(
            out,
            r#"<text class="value" transform="translate({tx:.1} {ty:.1}) rotate(-90)">{t}</text>"#,
            tx = cx + 4.0,
            ty = yt - 4.0,
            t = esc(&text),
        );
    }
}

pub fn bin_chart(c: &BinChart) -> String {
    let mut out = String::new();
    let items = solid_legend(&c.series);
    let top = TOP + (legend_rows(&items) - 1.0) * 14.0;
    let height = top + PLOT_HEIGHT + BOTTOM;
    open(&mut out, "bin-chart", &c.title, height);
    legend(&mut out, &items);
    let p = Plot {
        x: &c.x,
        y: &c.y,
        top,
        height: PLOT_HEIGHT,
    };
    y_axis(&mut out, &p);
    x_axis(&mut out, &p);
    for (s, (name, bins)) in c.series.iter().enumerate() {
        let _ = write!(out, r#"<g class="series" data-name="{}">"#, esc(name));
        for (from, to, h) in bins {
            let (x1, x2) = (p.px(*from), p.px(*to));
            let (yt, yb) = (p.py(*h), p.py(c.y.lo));
            let _ = write!(
                out,
                r#"<rect class="bar" x="{x1:.1}" y="{yt:.1}" width="{w:.1}" height="{hh:.1}" fill="{col}" fill-opacity="0.65"><title>{n} {a} – {b}: {v:.3} %</title></rect>"#,
                w = (x2 - x1).max(0.5),
                hh = (yb - yt).max(0.0),
                col = color(s),
                n = esc(name),
                a = latency_tick(*from),
                b = latency_tick(*to),
                v = h,
            );
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    out
}

/// Horizontal grouped bars, one row per category: fits many long names
/// (workloads) and, on a log axis, shows ratios around a reference of 1.
#[derive(Debug, Clone)]
pub struct HBarChart {
    pub title: String,
    pub x_title: String,
    pub rows: Vec<String>,
    /// (name, one value per row; `None` draws no bar).
    pub series: Vec<(String, Vec<Option<f64>>)>,
    pub value_fmt: fn(f64) -> String,
    /// Bars start here (1 for ratios) and a dashed line marks it, named in the legend.
    pub reference: Option<(f64, String)>,
    pub log: bool,
}

pub fn hbar_chart(c: &HBarChart) -> String {
    let mut out = String::new();
    let mut items: Vec<(String, &str, bool)> = c
        .series
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.clone(), color(i), false))
        .collect();
    if let Some((v, name)) = &c.reference {
        items.push((format!("{name} = {}", (c.value_fmt)(*v)), "#777777", true));
    }
    let top = TOP + (legend_rows(&items) - 1.0) * 14.0;
    let n = c.series.len().max(1) as f64;
    let bar_h = 13.0;
    let row_h = bar_h * n + 8.0;
    let plot_h = (row_h * c.rows.len() as f64).max(40.0);
    let longest = c
        .rows
        .iter()
        .map(|r| super::width::display_width(r))
        .max()
        .unwrap_or(0) as f64
        * CHAR_PX;
    let left = (longest + 14.0).clamp(LEFT, WIDTH * 0.45);
    let height = top + plot_h + BOTTOM;
    open(&mut out, "hbar-chart", &c.title, height);
    legend(&mut out, &items);
    let values: Vec<f64> = c
        .series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .copied()
        .filter(|v| v.is_finite())
        .chain(c.reference.as_ref().map(|r| r.0))
        .collect();
    let max = values.iter().copied().fold(0.0, f64::max);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let x = if c.log {
        Axis::log10(&c.x_title, min.max(1e-9), max, num_tick)
    } else {
        Axis::linear(&c.x_title, 0.0, max * 1.15, true, num_tick)
    };
    let plot_w = WIDTH - left - RIGHT;
    // Room on the right of the longest bar for its value.
    let px = |v: f64| left + x.frac(v).clamp(0.0, 1.0) * (plot_w - 44.0);
    let base = c.reference.as_ref().map(|r| r.0).unwrap_or(x.lo);
    let bottom = top + plot_h;
    out.push_str(r#"<g class="axis x">"#);
    for (v, label) in &x.ticks {
        let tx = px(*v);
        let _ = write!(
            out,
            r#"<line class="grid" x1="{tx:.1}" y1="{top}" x2="{tx:.1}" y2="{bottom}"/><text class="tick" x="{tx:.1}" y="{ty}" text-anchor="middle">{l}</text>"#,
            ty = bottom + 17.0,
            l = esc(label),
        );
    }
    let _ = write!(
        out,
        r#"<line class="axis-line" x1="{left}" y1="{bottom}" x2="{r}" y2="{bottom}"/><text class="axis-title" x="{m}" y="{ty}" text-anchor="middle">{t}</text></g>"#,
        r = WIDTH - RIGHT,
        m = left + plot_w / 2.0,
        ty = bottom + 36.0,
        t = esc(&x.title),
    );
    out.push_str(r#"<g class="axis y">"#);
    for (r, name) in c.rows.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text class="tick" x="{tx}" y="{ty:.1}" text-anchor="end">{n}</text>"#,
            tx = left - 6.0,
            ty = top + row_h * r as f64 + row_h / 2.0 + 4.0,
            n = esc(name),
        );
    }
    let _ = write!(
        out,
        r#"<line class="axis-line" x1="{left}" y1="{top}" x2="{left}" y2="{bottom}"/></g>"#
    );
    for (s, (name, vals)) in c.series.iter().enumerate() {
        let colour = color(s);
        let _ = write!(out, r#"<g class="series" data-name="{}">"#, esc(name));
        for (r, v) in vals.iter().enumerate() {
            let Some(v) = v.filter(|v| v.is_finite()) else {
                continue;
            };
            let y = top + row_h * r as f64 + 4.0 + bar_h * s as f64;
            let (a, b) = (px(base), px(v));
            let text = (c.value_fmt)(v);
            // A bar reaching the axis leaves no room for its value on the
            // left (it would cover the row's name): the value goes on the
            // other side of the reference line.
            let text_w = super::width::display_width(&text) as f64 * CHAR_PX;
            let after = b >= a || b - 3.0 - text_w < left;
            let tx = match (b >= a, after) {
                (true, _) => b + 3.0,
                (false, true) => a + 3.0,
                (false, false) => b - 3.0,
            };
            let _ = write!(
                out,
                r#"<rect class="bar" x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{colour}"><title>{n}, {row}: {t}</title></rect><text class="value" x="{tx:.1}" y="{ty:.1}" text-anchor="{anchor}">{t}</text>"#,
                x = a.min(b),
                w = (a - b).abs().max(1.0),
                h = bar_h - 2.0,
                n = esc(name),
                row = esc(&c.rows[r]),
                t = esc(&text),
                ty = y + bar_h - 4.0,
                anchor = if after { "start" } else { "end" },
            );
        }
        out.push_str("</g>");
    }
    if c.reference.is_some() {
        let rx = px(base);
        let _ = write!(
            out,
            r#"<g class="marker"><line x1="{rx:.1}" y1="{top}" x2="{rx:.1}" y2="{bottom}"/></g>"#
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc(r#"<script>alert("1")&'x'</script>"#),
            "&lt;script&gt;alert(&quot;1&quot;)&amp;&#39;x&#39;&lt;/script&gt;"
        );
        assert_eq!(
            esc("a\x1b]0;t\x07\r\n<b\u{202e}"),
            "a\\u{1b}]0;t\\u{7}\\r\\n&lt;b\\u{202e}"
        );
    }

    #[test]
    fn nice_steps_are_1_2_5() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(1.3), 2.0);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(7.0), 10.0);
        assert_eq!(nice_step(2300.0), 5000.0);
    }

    #[test]
    fn linear_axis_covers_the_data_from_zero() {
        let tiny = Axis::linear("s", 0.0, 0.01, true, num_tick);
        let labels: Vec<&str> = tiny.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0", "0.002", "0.004", "0.006", "0.008", "0.01"]);
        let a = Axis::linear("IOPS", 120.0, 987.0, true, num_tick);
        assert_eq!(a.lo, 0.0);
        assert!(a.hi >= 987.0);
        assert_eq!(a.ticks.first().unwrap().1, "0");
        assert!(a.ticks.len() >= 4 && a.ticks.len() <= 8, "{:?}", a.ticks);
        // A flat series still gets a usable axis.
        let flat = Axis::linear("x", 5.0, 5.0, false, num_tick);
        assert!(flat.hi > flat.lo);
    }

    #[test]
    fn log_axis_ends_on_decades() {
        let a = Axis::log10("latency", 35_000.0, 4_200_000.0, latency_tick);
        assert_eq!(a.lo, 10_000.0);
        assert_eq!(a.hi, 10_000_000.0);
        assert_eq!(a.ticks[0].1, "10 µs");
        assert!(a.ticks.iter().any(|t| t.1 == "1 ms"));
        assert!((a.frac(1e5) - 1.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn tick_labels() {
        assert_eq!(num_tick(0.0), "0");
        assert_eq!(num_tick(2.5), "2.5");
        assert_eq!(num_tick(20_000.0), "20k");
        assert_eq!(num_tick(1_500_000.0), "1.5M");
        assert_eq!(latency_tick(250_000.0), "250 µs");
        assert_eq!(latency_tick(1e6), "1 ms");
    }

    #[test]
    fn ratio_bars_start_at_the_reference() {
        let svg = hbar_chart(&HBarChart {
            title: "ratios".into(),
            x_title: "ratio".into(),
            rows: vec!["SEQ1M Q8T1 read".into(), "RND4K Q1T1 read".into()],
            series: vec![("Cloud fast".into(), vec![Some(2.02), Some(0.5)])],
            value_fmt: |v| format!("{v:.2}×"),
            reference: Some((1.0, "Physical".into())),
            log: true,
        });
        assert!(svg.contains(">2.02×<") && svg.contains(">0.50×<"));
        assert!(svg.contains("Physical = 1.00×"));
        assert_eq!(svg.matches(r#"class="bar""#).count(), 2);
    }

    #[test]
    fn span_axis_keeps_its_range() {
        let a = Axis::span("t", -0.083, 8.0, num_tick);
        assert_eq!((a.lo, a.hi), (-0.083, 8.0));
        assert_eq!(a.ticks.first().unwrap().1, "0");
        assert_eq!(a.ticks.last().unwrap().1, "8");
    }

    #[test]
    fn charts_escape_names_and_show_values() {
        let svg = bar_chart(&BarChart {
            title: "<b>t</b>".into(),
            y_title: "MB/s".into(),
            groups: vec!["SEQ1M Q8T1".into()],
            series: vec![("<script>".into(), vec![Some(363.4)])],
            value_fmt: |v| format!("{v:.2}"),
            reference: None,
        });
        assert!(!svg.contains("<script>") && !svg.contains("<b>"));
        assert!(svg.contains("&lt;script&gt;"));
        assert!(svg.contains(">363.40<"));
        assert!(svg.contains(r#"class="axis y""#));
    }
}
