// Reading kura's SVG charts back in tests: a chart by its title, and the
// lines of a line chart with their points. Included by tests/support and by
// the library's report/html/pts.rs tests, each of which has `esc` (kura's
// HTML escape) in scope above it.

/// The chart titled `title` in a page, from its `<svg` to its `</svg>`.
pub fn svg_chart<'a>(html: &'a str, title: &str) -> &'a str {
    let label = format!(r#"aria-label="{}""#, super::esc(title));
    let at = html
        .find(&label)
        .unwrap_or_else(|| panic!("no chart titled {title}"));
    let start = html[..at].rfind("<svg").unwrap();
    let end = at + html[at..].find("</svg>").unwrap();
    &html[start..end]
}

/// (name, points of its polyline) of each line of a line chart, in the order drawn.
pub fn svg_lines(svg: &str) -> Vec<(String, usize)> {
    svg.split(r#"<g class="series" data-name=""#)
        .skip(1)
        .map(|s| {
            let name = s[..s.find('"').unwrap()].to_string();
            let points = s
                .split(r#"points=""#)
                .nth(1)
                .map_or(0, |p| p[..p.find('"').unwrap()].split_whitespace().count());
            (name, points)
        })
        .collect()
}
