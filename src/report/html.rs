//! `report.html`: the reports of one `--out` directory as one page an analyst opens in a browser.
//!
//! The page is made from the CSV files the run (or `merge`) has just committed, never from the
//! run's counters, so every number in it is a number of the CSVs, copied as written; it costs a
//! read of the aggregate reports (`agents.csv`, `agent_origins.csv`, the violated rows of
//! `rules.csv`, `robots.csv`, and `hourly.csv` and `crawl_rate.csv` when present), never of the
//! per-request ones. Charts are SVG drawn by `plotters` when the page is written, so the page needs no
//! script, font or image from the network; a few lines of inline script only sort the bot
//! table. What is drawn is capped (the caps are below and said on the page), so a month of
//! 500 origins and 100 bots still opens at once.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::path::Path;

use jiff::Timestamp;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::files;
use crate::commit::NewFile;

/// Bots drawn in the bar charts.
const CHART_BOTS: usize = 20;
/// Bots drawn in the hourly timeline.
const TIMELINE_BOTS: usize = 8;
/// Origins and bots of the violation-rate matrix.
const MATRIX_ORIGINS: usize = 30;
const MATRIX_BOTS: usize = 15;
/// Rules listed among the most violated.
const TOP_RULES: usize = 50;
/// Crawl-rate rows listed.
const TOP_CRAWL_RATE: usize = 50;

/// The agents.csv columns shown in the bot table, in this order, when the file has them.
const AGENT_COLUMNS: &[&str] = &[
    "agent",
    "category",
    "requests",
    "judged",
    "allowed",
    "disallowed",
    "disallowed_verified",
    "grace",
    "exempt",
    "violation_rate",
    "coverage",
    "verified",
    "spoofed",
    "unverified",
    "preference_conflicts",
    "origins",
    "origins_with_violations",
];

/// One CSV report read back: its header and its cells. The cells' text is kept in one string,
/// so reading a report allocates nothing per row or cell (`rules.csv` has a row per rule).
///
/// Invariant: `bounds` starts with 0 and has one more entry per cell, the cell's end in
/// `text`, `header.len()` cells a row (the CSV reader refuses rows of another length).
struct Table {
    header: Vec<String>,
    text: String,
    bounds: Vec<usize>,
}

/// One row of a [`Table`]: the bounds of its cells in the table's text, the start of its first
/// cell and the end of each.
type Row<'a> = &'a [usize];

impl Table {
    /// Reads `dir/name`; `None` when the file is not there.
    fn read(dir: &Path, name: &str) -> io::Result<Option<Table>> {
        Table::read_where(dir, name, "", |_| true)
    }

    /// Reads the rows of `dir/name` whose cell in `column` passes `keep` (every row when the
    /// column is not there); `None` when the file is not there. A night over many origins has
    /// millions of rules, of which the page shows the violated ones.
    fn read_where(
        dir: &Path,
        name: &str,
        column: &str,
        keep: impl Fn(&str) -> bool,
    ) -> io::Result<Option<Table>> {
        let path = dir.join(name);
        let mut reader = match csv::Reader::from_path(&path) {
            Ok(reader) => reader,
            Err(e) => {
                return match e.kind() {
                    csv::ErrorKind::Io(io) if io.kind() == io::ErrorKind::NotFound => Ok(None),
                    _ => Err(io::Error::other(format!("{}: {e}", path.display()))),
                };
            }
        };
        let failed = |e: csv::Error| io::Error::other(format!("{}: {e}", path.display()));
        let header: Vec<String> = reader
            .headers()
            .map_err(failed)?
            .iter()
            .map(str::to_owned)
            .collect();
        let tested = header.iter().position(|h| h == column);
        let mut table = Table {
            header,
            text: String::new(),
            bounds: vec![0],
        };
        let mut record = csv::StringRecord::new();
        while reader.read_record(&mut record).map_err(failed)? {
            if tested.is_some_and(|column| !keep(record.get(column).unwrap_or_default())) {
                continue;
            }
            for cell in &record {
                table.text.push_str(cell);
                table.bounds.push(table.text.len());
            }
        }
        Ok(Some(table))
    }

    /// The number of rows.
    fn len(&self) -> usize {
        match self.header.len() {
            0 => 0,
            width => (self.bounds.len() - 1) / width,
        }
    }

    fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        let width = self.header.len();
        (0..self.len()).filter_map(move |row| self.bounds.get(row * width..=(row + 1) * width))
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The text of `row`'s cell in `column`, or the empty string.
    fn cell<'a>(&'a self, row: Row<'_>, column: usize) -> &'a str {
        match (row.get(column), row.get(column + 1)) {
            (Some(&start), Some(&end)) => self.text.get(start..end).unwrap_or_default(),
            _ => "",
        }
    }

    /// The value of `name` in `row`, or the empty string.
    fn get<'a>(&'a self, row: Row<'_>, name: &str) -> &'a str {
        self.column(name)
            .map_or("", |column| self.cell(row, column))
    }

    fn number(&self, row: Row<'_>, name: &str) -> f64 {
        self.get(row, name).parse().unwrap_or(0.0)
    }

    fn sum(&self, name: &str) -> u64 {
        self.rows()
            .map(|row| self.get(row, name).parse::<u64>().unwrap_or(0))
            .sum()
    }
}

/// Writes `out/report.html` from the CSV reports in `out`.
pub fn write(out: &Path) -> io::Result<()> {
    let page = render(out)?;
    let mut file = NewFile::create(out, files::REPORT_HTML)?;
    file.write_all(page.as_bytes())?;
    file.finish()
}

/// The page for the reports in `dir`.
pub fn render(dir: &Path) -> io::Result<String> {
    let missing = |name: &str| io::Error::other(format!("{}: missing", dir.join(name).display()));
    let agents = Table::read(dir, files::AGENTS)?.ok_or_else(|| missing(files::AGENTS))?;
    let pairs =
        Table::read(dir, files::AGENT_ORIGINS)?.ok_or_else(|| missing(files::AGENT_ORIGINS))?;
    let rules = Table::read_where(dir, files::RULES, "violations", |v| {
        v.parse::<f64>().is_ok_and(|v| v > 0.0)
    })?
    .ok_or_else(|| missing(files::RULES))?;
    let robots = Table::read(dir, files::ROBOTS)?.ok_or_else(|| missing(files::ROBOTS))?;
    let hourly = Table::read(dir, files::HOURLY)?;
    let crawl_rate = Table::read(dir, files::CRAWL_RATE)?;

    let mut html = String::with_capacity(1 << 16);
    html.push_str(HEAD);
    headline(&mut html, &agents, &pairs);
    bot_table(&mut html, &agents);
    bot_charts(&mut html, &agents);
    match &hourly {
        Some(hourly) => timeline(&mut html, &agents, hourly, &robots),
        None => html.push_str(
            "<section id=\"timeline\"><h2>Requests and violations per hour</h2><p class=\"note\">No \
             hourly.csv in this report directory.</p></section>\n",
        ),
    }
    matrix(&mut html, &pairs);
    top_rules(&mut html, &rules);
    if let Some(crawl_rate) = &crawl_rate {
        crawl_rate_section(&mut html, crawl_rate);
    }
    preferences_section(&mut html, &pairs);
    html.push_str(TAIL);
    Ok(html)
}

fn headline(html: &mut String, agents: &Table, pairs: &Table) {
    let origins: BTreeSet<&str> = pairs.rows().map(|r| pairs.get(r, "origin")).collect();
    let first = agents
        .rows()
        .map(|r| agents.get(r, "first_seen"))
        .filter(|t| !t.is_empty())
        .min()
        .unwrap_or("");
    let last = agents
        .rows()
        .map(|r| agents.get(r, "last_seen"))
        .max()
        .unwrap_or("");
    let mut figures = vec![
        (
            "requests",
            "bot requests",
            agents.sum("requests").to_string(),
        ),
        ("bots", "bots", agents.len().to_string()),
        ("origins", "origins", origins.len().to_string()),
        ("judged", "judged", agents.sum("judged").to_string()),
        (
            "disallowed",
            "violations",
            agents.sum("disallowed").to_string(),
        ),
        (
            "spoofed",
            "spoofed requests",
            agents.sum("spoofed").to_string(),
        ),
    ];
    for (column, label) in [
        ("exempt", "exempt"),
        ("preference_conflicts", "preference conflicts"),
    ] {
        if agents.column(column).is_some() {
            figures.push((column, label, agents.sum(column).to_string()));
        }
    }
    let _ = write!(
        html,
        "<header><h1>robots-audit report</h1><p class=\"period\">{} to {}</p></header>\n\
         <section id=\"headline\">",
        escape(first),
        escape(last)
    );
    for (key, label, value) in figures {
        let _ = write!(
            html,
            "<div class=\"figure\" data-total=\"{key}\"><span class=\"value\">{value}</span>\
             <span class=\"label\">{label}</span></div>"
        );
    }
    html.push_str("</section>\n");
}

fn bot_table(html: &mut String, agents: &Table) {
    let columns: Vec<(usize, &str)> = AGENT_COLUMNS
        .iter()
        .filter_map(|&name| agents.column(name).map(|c| (c, name)))
        .collect();
    html.push_str(
        "<section id=\"bots\"><h2>Bots</h2><p class=\"note\">Click a heading to sort.</p>\
         <table class=\"sortable\"><thead><tr>",
    );
    for (_, name) in &columns {
        let _ = write!(html, "<th>{}</th>", escape(name));
    }
    html.push_str("</tr></thead><tbody>\n");
    for row in agents.rows() {
        let _ = write!(
            html,
            "<tr data-agent=\"{}\">",
            escape(agents.get(row, "agent"))
        );
        for &(column, name) in &columns {
            let value = agents.cell(row, column);
            let class = if name == "agent" || name == "category" {
                ""
            } else {
                " class=\"num\""
            };
            let _ = write!(
                html,
                "<td data-col=\"{name}\"{class}>{}</td>",
                escape(value)
            );
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table></section>\n");
}

/// The bots with the most of `column`, at most `cap` of them, with their values.
fn top_by<'a>(table: &'a Table, column: &str, cap: usize) -> Vec<(&'a str, f64)> {
    let mut bots: Vec<(&str, f64)> = table
        .rows()
        .map(|r| (table.get(r, "agent"), table.number(r, column)))
        .collect();
    bots.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    bots.truncate(cap);
    bots
}

fn bot_charts(html: &mut String, agents: &Table) {
    html.push_str("<section id=\"bot-charts\"><h2>Violations and violation rate per bot</h2>");
    let by_violations = top_by(agents, "disallowed", CHART_BOTS);
    let rates: Vec<(&str, f64)> = by_violations
        .iter()
        .map(|&(bot, _)| {
            let row = agents.rows().find(|r| agents.get(r, "agent") == bot);
            (bot, row.map_or(0.0, |r| agents.number(r, "violation_rate")))
        })
        .collect();
    if agents.len() > CHART_BOTS {
        let _ = write!(
            html,
            "<p class=\"note\">The {CHART_BOTS} bots with the most violations of {}.</p>",
            agents.len()
        );
    }
    html.push_str("<div class=\"charts\">");
    html.push_str(&bar_chart("violations", &by_violations, false));
    html.push_str(&bar_chart("violation rate", &rates, true));
    html.push_str("</div></section>\n");
}

/// A horizontal bar chart of `bars` as an SVG element.
fn bar_chart(title: &str, bars: &[(&str, f64)], rate: bool) -> String {
    let mut svg = String::new();
    let height = 60 + 22 * bars.len().max(1) as u32;
    {
        let root = SVGBackend::with_string(&mut svg, (520, height)).into_drawing_area();
        let drawn = (|| -> Result<(), Box<dyn std::error::Error>> {
            root.fill(&WHITE)?;
            let max = if rate {
                1.0
            } else {
                bars.iter().map(|b| b.1).fold(1.0, f64::max) * 1.05
            };
            let names: Vec<String> = bars.iter().map(|b| b.0.to_owned()).collect();
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 16))
                .margin(8)
                .x_label_area_size(24)
                .y_label_area_size(150)
                .build_cartesian_2d(0.0..max, (0..bars.len().max(1)).into_segmented())?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_label_formatter(&|v| match v {
                    SegmentValue::CenterOf(i) => names.get(*i).cloned().unwrap_or_default(),
                    _ => String::new(),
                })
                .y_labels(bars.len().max(1))
                .draw()?;
            let color = if rate {
                RGBColor(214, 96, 77)
            } else {
                RGBColor(67, 147, 195)
            };
            chart.draw_series(bars.iter().enumerate().map(|(i, &(_, value))| {
                Rectangle::new(
                    [
                        (0.0, SegmentValue::Exact(i)),
                        (value, SegmentValue::Exact(i + 1)),
                    ],
                    color.filled(),
                )
            }))?;
            root.present()?;
            Ok(())
        })();
        if drawn.is_err() {
            return format!("<p class=\"note\">The {title} chart could not be drawn.</p>");
        }
    }
    format!("<figure class=\"chart\">{svg}</figure>")
}

/// Hours since the epoch of an `hour` value of hourly.csv.
fn hour_index(text: &str) -> Option<i64> {
    text.parse::<Timestamp>()
        .ok()
        .map(|t| t.as_second().div_euclid(3600))
}

fn hour_label(index: i64) -> String {
    Timestamp::from_second(index * 3600)
        .map(|t| t.strftime("%m-%d %H:00").to_string())
        .unwrap_or_default()
}

/// A robots.txt version coming into force during the timeline's period.
struct VersionChange {
    /// Hours since the epoch, fractional: where the marker stands on the time axis.
    at: f64,
    /// `valid_from`, the origin and the fetch status, as robots.csv has them.
    valid_from: String,
    origin: String,
    status: String,
}

/// One bot's values per hour (hours since the epoch) of one hourly.csv column.
type HourSeries<'a> = BTreeMap<&'a str, BTreeMap<i64, f64>>;

fn timeline(html: &mut String, agents: &Table, hourly: &Table, robots: &Table) {
    html.push_str("<section id=\"timeline\"><h2>Requests and violations per hour</h2>");
    // The bots with the most violations, then the most requests: a night without
    // violations still shows who came when.
    let mut ranked: Vec<(&str, f64, f64)> = agents
        .rows()
        .map(|r| {
            (
                agents.get(r, "agent"),
                agents.number(r, "disallowed"),
                agents.number(r, "requests"),
            )
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then(b.2.total_cmp(&a.2))
            .then(a.0.cmp(b.0))
    });
    let top: Vec<&str> = ranked.iter().take(TIMELINE_BOTS).map(|b| b.0).collect();
    let (mut violations, mut requests) = (HourSeries::new(), HourSeries::new());
    let (mut first, mut last) = (i64::MAX, i64::MIN);
    for row in hourly.rows() {
        let Some(hour) = hour_index(hourly.get(row, "hour")) else {
            continue;
        };
        first = first.min(hour);
        last = last.max(hour);
        let agent = hourly.get(row, "agent");
        if top.contains(&agent) {
            *violations
                .entry(agent)
                .or_default()
                .entry(hour)
                .or_default() += hourly.number(row, "disallowed");
            *requests.entry(agent).or_default().entry(hour).or_default() +=
                hourly.number(row, "requests");
        }
    }
    if first > last || top.is_empty() {
        html.push_str("<p class=\"note\">No requests to draw.</p></section>\n");
        return;
    }
    let changes: Vec<VersionChange> = robots
        .rows()
        .filter_map(|r| {
            let valid_from = robots.get(r, "robots_version");
            let at = valid_from.parse::<Timestamp>().ok()?.as_second() as f64 / 3600.0;
            (first as f64..=(last + 1) as f64)
                .contains(&at)
                .then(|| VersionChange {
                    at,
                    valid_from: valid_from.to_owned(),
                    origin: robots.get(r, "origin").to_owned(),
                    status: robots.get(r, "status").to_owned(),
                })
        })
        .collect();
    if agents.len() > top.len() {
        let _ = write!(
            html,
            "<p class=\"note\">The {} bots with the most violations (then requests), of {}.</p>",
            top.len(),
            agents.len()
        );
    }
    let colors: Vec<RGBColor> = (0..top.len())
        .map(|i| {
            let (r, g, b) = Palette99::pick(i).rgb();
            RGBColor(r, g, b)
        })
        .collect();
    html.push_str("<p class=\"legend\">");
    for (bot, color) in top.iter().zip(&colors) {
        let _ = write!(
            html,
            "<span class=\"key\"><i style=\"background:#{:02x}{:02x}{:02x}\"></i>{}</span>",
            color.0,
            color.1,
            color.2,
            escape(bot)
        );
    }
    html.push_str("</p>");
    for (series, title) in [(&violations, "violations"), (&requests, "requests")] {
        match hour_chart(series, &top, &colors, (first, last), &changes, title) {
            Ok(svg) => {
                let _ = write!(html, "<figure class=\"chart wide\">{svg}</figure>");
            }
            Err(_) => {
                let _ = write!(
                    html,
                    "<p class=\"note\">The {title} timeline could not be drawn.</p>"
                );
            }
        }
    }
    if !changes.is_empty() {
        html.push_str(
            "<p class=\"note\">Dashed lines: robots.txt versions coming into force \
             (robots.csv).</p><table><tr><th>#</th><th>robots_version</th><th>origin</th>\
             <th>status</th></tr>",
        );
        for (i, change) in changes.iter().enumerate() {
            let _ = write!(
                html,
                "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
                i + 1,
                escape(&change.valid_from),
                escape(&change.origin),
                escape(&change.status)
            );
        }
        html.push_str("</table>");
    }
    html.push_str("</section>\n");
}

/// A line chart of one column per hour for `bots`, each hour's value drawn at the middle of the
/// hour, with the version changes as numbered dashed lines at their exact time.
fn hour_chart(
    series: &HourSeries<'_>,
    bots: &[&str],
    colors: &[RGBColor],
    (first, last): (i64, i64),
    changes: &[VersionChange],
    title: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1040, 300)).into_drawing_area();
        root.fill(&WHITE)?;
        let max = series
            .values()
            .flat_map(|s| s.values().copied())
            .fold(1.0, f64::max)
            * 1.15;
        let hours = (last + 1 - first) as usize;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{title} per hour (UTC)"), ("sans-serif", 16))
            .margin(10)
            .margin_right(30)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(first as f64..(last + 1) as f64, 0.0..max)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(hours.clamp(2, 13))
            .x_label_formatter(&|h| hour_label(h.floor() as i64))
            .y_desc(title)
            .draw()?;
        let marker = ShapeStyle::from(&RGBColor(90, 90, 90)).stroke_width(1);
        for (i, change) in changes.iter().enumerate() {
            chart.draw_series(std::iter::once(DashedPathElement::new(
                [(change.at, 0.0), (change.at, max)],
                5,
                4,
                marker,
            )))?;
            chart.draw_series(std::iter::once(Text::new(
                format!(" {}", i + 1),
                (change.at, max),
                ("sans-serif", 13).into_font().color(&RGBColor(90, 90, 90)),
            )))?;
        }
        for (bot, &color) in bots.iter().zip(colors) {
            let points = series.get(bot);
            let line = (first..=last).map(|h| {
                let value = points.and_then(|p| p.get(&h)).copied().unwrap_or(0.0);
                (h as f64 + 0.5, value)
            });
            chart.draw_series(LineSeries::new(line, color.stroke_width(2)))?;
        }
        root.present()?;
    }
    Ok(svg)
}

fn matrix(html: &mut String, pairs: &Table) {
    html.push_str("<section id=\"matrix\"><h2>Violation rate by origin and bot</h2>");
    let mut by_origin: BTreeMap<&str, f64> = BTreeMap::new();
    let mut by_bot: BTreeMap<&str, f64> = BTreeMap::new();
    let mut cell: BTreeMap<(&str, &str), &str> = BTreeMap::new();
    for row in pairs.rows() {
        let (origin, agent) = (pairs.get(row, "origin"), pairs.get(row, "agent"));
        let requests = pairs.number(row, "requests");
        *by_origin.entry(origin).or_default() += requests;
        *by_bot.entry(agent).or_default() += requests;
        cell.insert((origin, agent), pairs.get(row, "violation_rate"));
    }
    let (origins_total, bots_total) = (by_origin.len(), by_bot.len());
    let origins = busiest(by_origin, MATRIX_ORIGINS);
    let bots = busiest(by_bot, MATRIX_BOTS);
    if origins_total > MATRIX_ORIGINS || bots_total > MATRIX_BOTS {
        let _ = write!(
            html,
            "<p class=\"note\">The {} busiest origins of {origins_total} and the {} busiest \
             bots of {bots_total}.</p>",
            origins.len(),
            bots.len()
        );
    }
    html.push_str("<table class=\"matrix\"><thead><tr><th>origin</th>");
    for bot in &bots {
        let _ = write!(html, "<th>{}</th>", escape(bot));
    }
    html.push_str("</tr></thead><tbody>\n");
    for origin in &origins {
        let _ = write!(html, "<tr><th>{}</th>", escape(origin));
        for bot in &bots {
            match cell.get(&(*origin, *bot)) {
                Some(rate) if !rate.is_empty() => {
                    let value: f64 = rate.parse().unwrap_or(0.0);
                    let _ = write!(
                        html,
                        "<td class=\"num\" style=\"background:rgba(214,96,77,{:.2})\">{}</td>",
                        value.clamp(0.0, 1.0) * 0.85,
                        escape(rate)
                    );
                }
                Some(_) => html.push_str("<td class=\"num\">-</td>"),
                None => html.push_str("<td></td>"),
            }
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table></section>\n");
}

/// The `cap` keys with the most requests, busiest first (ties by name).
fn busiest(requests: BTreeMap<&str, f64>, cap: usize) -> Vec<&str> {
    let mut keys: Vec<(&str, f64)> = requests.into_iter().collect();
    keys.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    keys.into_iter().take(cap).map(|k| k.0).collect()
}

fn top_rules(html: &mut String, rules: &Table) {
    html.push_str("<section id=\"rules\"><h2>Most violated rules</h2>");
    // Each row's count is read once, not at every comparison; the sort is stable, as before.
    let mut violated: Vec<(f64, Row<'_>)> = rules
        .rows()
        .map(|r| (rules.number(r, "violations"), r))
        .filter(|&(violations, _)| violations > 0.0)
        .collect();
    violated.sort_by(|a, b| b.0.total_cmp(&a.0));
    if violated.len() > TOP_RULES {
        let _ = write!(
            html,
            "<p class=\"note\">The {TOP_RULES} most violated of {} violated rules.</p>",
            violated.len()
        );
    }
    let violated: Vec<Row<'_>> = violated.iter().take(TOP_RULES).map(|v| v.1).collect();
    simple_table(
        html,
        rules,
        &violated,
        &[
            "origin",
            "robots_version",
            "group",
            "line",
            "rule",
            "violations",
            "agents",
        ],
    );
    html.push_str("</section>\n");
}

fn crawl_rate_section(html: &mut String, crawl_rate: &Table) {
    html.push_str(
        "<section id=\"crawl-rate\"><h2>Crawl rate</h2><p class=\"note\">Requests sooner than \
         the Crawl-delay in force after the same bot's previous request to the origin \
         (crawl_rate.csv). Only bots whose operator says they honour Crawl-delay \
         (<code>honours_crawl_delay</code>) are bound by it.</p>",
    );
    // The count read once per row, not at every comparison.
    let mut rows: Vec<(f64, Row<'_>)> = crawl_rate
        .rows()
        .map(|r| (crawl_rate.number(r, "early_requests"), r))
        .filter(|&(early, _)| early > 0.0)
        .collect();
    // Most early requests first; the CSV's order (agent, origin, delay) among equals.
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    if rows.is_empty() {
        html.push_str("<p class=\"note\">No request came earlier than a declared crawl delay.</p>");
    } else {
        if rows.len() > TOP_CRAWL_RATE {
            let _ = write!(
                html,
                "<p class=\"note\">The {TOP_CRAWL_RATE} rows with the most early requests of {}.</p>",
                rows.len()
            );
        }
        let rows: Vec<Row<'_>> = rows.iter().take(TOP_CRAWL_RATE).map(|r| r.1).collect();
        let columns: Vec<&str> = crawl_rate.header.iter().map(String::as_str).collect();
        keyed_table(
            html,
            crawl_rate,
            &rows,
            &columns,
            "data-rate",
            &["agent", "origin", "crawl_delay"],
        );
    }
    html.push_str("</section>\n");
}

/// The (bot, origin) pairs with preference conflicts, from agent_origins.csv (the per-request
/// preference_conflicts.csv is not read: the page reads aggregates only).
fn preferences_section(html: &mut String, pairs: &Table) {
    if pairs.column("preference_conflicts").is_none() {
        return;
    }
    html.push_str(
        "<section id=\"preferences\"><h2>Usage preference conflicts</h2><p class=\"note\">\
         Allowed requests whose Content-Signal or Content-Usage preference in force says no to \
         the bot's use (never violations; each is listed in preference_conflicts.csv).</p>",
    );
    let mut rows: Vec<(f64, Row<'_>)> = pairs
        .rows()
        .map(|r| (pairs.number(r, "preference_conflicts"), r))
        .filter(|&(conflicts, _)| conflicts > 0.0)
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    if rows.is_empty() {
        html.push_str("<p class=\"note\">No preference conflict.</p>");
    } else {
        if rows.len() > TOP_CRAWL_RATE {
            let _ = write!(
                html,
                "<p class=\"note\">The {TOP_CRAWL_RATE} bot and origin pairs with the most conflicts of {}.</p>",
                rows.len()
            );
        }
        let rows: Vec<Row<'_>> = rows.iter().take(TOP_CRAWL_RATE).map(|r| r.1).collect();
        keyed_table(
            html,
            pairs,
            &rows,
            &["agent", "origin", "allowed", "preference_conflicts"],
            "data-conflicts",
            &["agent", "origin"],
        );
    }
    html.push_str("</section>\n");
}

/// A table whose rows carry `attribute="k1|k2|..."` (the `key` columns) and whose cells carry
/// `data-col`, so a test can find each number in the rendered page.
fn keyed_table(
    html: &mut String,
    table: &Table,
    rows: &[Row<'_>],
    columns: &[&str],
    attribute: &str,
    key: &[&str],
) {
    html.push_str("<table><thead><tr>");
    for name in columns {
        let _ = write!(html, "<th>{}</th>", escape(name));
    }
    html.push_str("</tr></thead><tbody>\n");
    for row in rows {
        let id: Vec<&str> = key.iter().map(|k| table.get(row, k)).collect();
        let _ = write!(html, "<tr {attribute}=\"{}\">", escape(&id.join("|")));
        for name in columns {
            let _ = write!(
                html,
                "<td data-col=\"{}\">{}</td>",
                escape(name),
                escape(table.get(row, name))
            );
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table>");
}

fn simple_table(html: &mut String, table: &Table, rows: &[Row<'_>], columns: &[&str]) {
    html.push_str("<table><thead><tr>");
    for name in columns {
        let _ = write!(html, "<th>{}</th>", escape(name));
    }
    html.push_str("</tr></thead><tbody>\n");
    for row in rows {
        html.push_str("<tr>");
        for name in columns {
            let _ = write!(html, "<td>{}</td>", escape(table.get(row, name)));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table>");
}

/// Text as HTML text or attribute value.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

const HEAD: &str = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>robots-audit report</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1100px}
h1{margin:0}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
.period,.note{color:#666}
#headline{display:flex;flex-wrap:wrap;gap:1em;margin-top:1em}
.figure{border:1px solid #ddd;border-radius:6px;padding:.6em 1em;min-width:8em}
.figure .value{display:block;font-size:1.6em;font-weight:600}
.figure .label{color:#666}
table{border-collapse:collapse;font-size:.9em}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer;background:#f4f4f4}
.charts{display:flex;flex-wrap:wrap;gap:1em}
figure.chart{margin:0}
.legend .key{margin-right:1.2em;white-space:nowrap}
.legend .key i{display:inline-block;width:1.6em;height:.3em;margin-right:.4em;vertical-align:middle}
</style></head><body>
"#;

const TAIL: &str = r#"<script>
for (const table of document.querySelectorAll("table.sortable")) {
  const heads = table.tHead.rows[0].cells;
  for (let i = 0; i < heads.length; i++) {
    heads[i].addEventListener("click", () => {
      const body = table.tBodies[0];
      const down = heads[i].dataset.order !== "down";
      heads[i].dataset.order = down ? "down" : "up";
      const key = (row) => row.cells[i].textContent;
      const rows = Array.from(body.rows).sort((a, b) => {
        const x = key(a), y = key(b), nx = parseFloat(x), ny = parseFloat(y);
        const order = isNaN(nx) || isNaN(ny) ? x.localeCompare(y) : nx - ny;
        return down ? -order : order;
      });
      rows.forEach((row) => body.appendChild(row));
    });
  }
}
document.body.dataset.ready = "yes";
</script>
</body></html>
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn hours() {
        assert_eq!(hour_index("1970-01-01T02:00:00Z"), Some(2));
        assert_eq!(hour_label(2), "01-01 02:00");
        assert_eq!(hour_index("not a time"), None);
    }
}
