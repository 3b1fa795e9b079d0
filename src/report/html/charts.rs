//! The page's charts, drawn as inline SVG by `plotters` when the page is written (no script or
//! font from the network; plotters escapes the text it draws): the bots' violations and rates,
//! and requests and violations per hour with the robots.txt versions coming into force.
//!
//! What is drawn is capped ([`CHART_BOTS`], [`TIMELINE_BOTS`], [`TIMELINE_CHANGES`]), and the
//! time axis names dates, with the year when the period crosses one.

use std::collections::BTreeMap;

use jiff::Timestamp;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::tables::{Spelling, Table, by_violations, top};
use super::text::shown;
use crate::audit::hourly::Hour;
use crate::ids::AgentId;
use crate::report::View;

/// Bots drawn in the bar charts.
pub const CHART_BOTS: usize = 20;
/// Bots drawn in the hourly timeline.
pub const TIMELINE_BOTS: usize = 8;
/// robots.txt version changes marked on the timeline.
pub const TIMELINE_CHANGES: usize = 50;

/// One chart: its title, and its SVG when it could be drawn.
#[derive(Debug)]
pub struct Chart {
    /// What it shows.
    pub title: String,
    /// The SVG element; `None` when plotters failed (the page says so).
    pub svg: Option<String>,
}

/// The bar charts of the bots with the most violations.
#[derive(Debug)]
pub struct BarCharts {
    /// What they show of how many bots.
    pub note: String,
    /// Violations, then violation rate.
    pub charts: Vec<Chart>,
}

/// The violations and the violation rate of the bots with the most violations.
pub fn bar_charts(view: &View<'_>) -> BarCharts {
    let (bots, total) = by_violations(view, CHART_BOTS);
    let name = |agent: AgentId| shown(view.state.agent_name(agent));
    let violations: Vec<(String, f64)> = bots
        .iter()
        .map(|t| (name(t.agent), t.counts.disallowed as f64))
        .collect();
    let rates: Vec<(String, f64)> = bots
        .iter()
        .map(|t| {
            let judged = t.counts.judged();
            let rate = if judged == 0 {
                0.0
            } else {
                t.counts.disallowed as f64 / judged as f64
            };
            (name(t.agent), rate)
        })
        .collect();
    BarCharts {
        note: super::text::cap_note(bots.len(), total, "bots", "by violations, then requests"),
        charts: vec![
            bar_chart("violations", &violations, false),
            bar_chart("violation rate", &rates, true),
        ],
    }
}

/// A horizontal bar chart of `bars`.
fn bar_chart(title: &str, bars: &[(String, f64)], rate: bool) -> Chart {
    let mut svg = String::new();
    let height = 60 + 22 * bars.len().max(1) as u32;
    let drawn = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(&mut svg, (520, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let max = if rate {
            1.0
        } else {
            bars.iter().map(|b| b.1).fold(1.0, f64::max) * 1.05
        };
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
                SegmentValue::CenterOf(i) => bars.get(*i).map(|b| b.0.clone()).unwrap_or_default(),
                _ => String::new(),
            })
            .y_labels(bars.len().max(1))
            .draw()?;
        let color = if rate {
            RGBColor(214, 96, 77)
        } else {
            RGBColor(67, 147, 195)
        };
        chart.draw_series(bars.iter().enumerate().map(|(i, (_, value))| {
            Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(i)),
                    (*value, SegmentValue::Exact(i + 1)),
                ],
                color.filled(),
            )
        }))?;
        root.present()?;
        Ok(())
    })();
    Chart {
        title: title.to_owned(),
        svg: drawn.is_ok().then_some(svg),
    }
}

/// The hourly timeline: a legend, the charts, and the version changes they mark.
#[derive(Debug)]
pub struct Timeline {
    /// What it shows of how many bots.
    pub note: String,
    /// Each bot drawn, with its colour (`#rrggbb`).
    pub legend: Vec<(String, String)>,
    /// Violations, then requests; none when there is nothing to draw.
    pub charts: Vec<Chart>,
    /// The versions coming into force during the period, numbered as on the charts.
    pub changes: Table,
}

/// A robots.txt version coming into force during the timeline's period.
struct VersionChange {
    /// Hours since the epoch, fractional: where the marker stands on the time axis.
    at: f64,
}

/// One bot's values per hour.
type HourSeries = BTreeMap<AgentId, BTreeMap<Hour, f64>>;

/// Requests and violations per hour of the bots with the most violations, then requests (a
/// night without violations still shows who came when), with the robots.txt versions that came
/// into force in the period.
pub fn timeline(view: &View<'_>, spelling: &Spelling<'_>) -> Timeline {
    let (bots, total) = by_violations(view, TIMELINE_BOTS);
    let drawn: Vec<AgentId> = bots.iter().map(|t| t.agent).collect();
    let (mut violations, mut requests) = (HourSeries::new(), HourSeries::new());
    let (mut first, mut last) = (Hour::MAX, Hour::MIN);
    for (hour, agent, counts) in view.totals.stats.hourly.rows() {
        first = first.min(hour);
        last = last.max(hour);
        if drawn.contains(&agent) {
            *violations
                .entry(agent)
                .or_default()
                .entry(hour)
                .or_default() += counts.disallowed as f64;
            *requests.entry(agent).or_default().entry(hour).or_default() += counts.requests as f64;
        }
    }
    let columns = ["#", "robots_version", "origin", "status"];
    let mut changes = Table::new("changes-table", "data-change", &columns);
    let note = super::text::cap_note(drawn.len(), total, "bots", "by violations, then requests");
    if first > last || drawn.is_empty() {
        return Timeline {
            note,
            legend: Vec::new(),
            charts: Vec::new(),
            changes: changes.noted(0, "robots.txt changes in the period", "the earliest"),
        };
    }
    let period = first as f64..=(last + 1) as f64;
    let robots = &view.state.robots;
    let in_period = robots.sorted().into_iter().filter_map(|id| {
        let version = robots.version(id);
        let at = version.valid_from?.as_second() as f64 / 3600.0;
        period.contains(&at).then_some((at, version))
    });
    let (in_force, changes_total) = top(in_period, TIMELINE_CHANGES, |a, b| {
        a.0.total_cmp(&b.0)
            .then_with(|| a.1.origin.cmp(&b.1.origin))
    });
    let mut marks = Vec::new();
    for (i, (at, version)) in in_force.iter().enumerate() {
        let number = (i + 1).to_string();
        let values = [
            number.clone(),
            version.label(),
            spelling.spell(&version.origin),
            version.status.clone(),
        ];
        changes.push_picked(&number, &columns, &values);
        marks.push(VersionChange { at: *at });
    }
    let colors: Vec<RGBColor> = (0..drawn.len())
        .map(|i| {
            let (r, g, b) = Palette99::pick(i).rgb();
            RGBColor(r, g, b)
        })
        .collect();
    let legend = drawn
        .iter()
        .zip(&colors)
        .map(|(&agent, c)| {
            (
                shown(view.state.agent_name(agent)),
                format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2),
            )
        })
        .collect();
    let charts = [(&violations, "violations"), (&requests, "requests")]
        .into_iter()
        .map(|(series, title)| Chart {
            title: format!("{title} timeline"),
            svg: hour_chart(series, &drawn, &colors, (first, last), &marks, title).ok(),
        })
        .collect();
    Timeline {
        note,
        legend,
        charts,
        changes: changes.noted(
            changes_total,
            "robots.txt changes in the period",
            "the earliest",
        ),
    }
}

/// The label of `hour` on the time axis: month, day and hour, with the year first when the
/// axis crosses one (`12-31 23:00`, `2025-12-31 23:00`).
pub fn hour_label(hour: Hour, with_year: bool) -> String {
    let format = if with_year {
        "%Y-%m-%d %H:00"
    } else {
        "%m-%d %H:00"
    };
    Timestamp::from_second(hour.saturating_mul(3600))
        .map(|t| t.strftime(format).to_string())
        .unwrap_or_default()
}

/// Whether hours `first` to `last` lie in more than one year (UTC).
pub fn crosses_year(first: Hour, last: Hour) -> bool {
    let year = |hour: Hour| {
        Timestamp::from_second(hour.saturating_mul(3600))
            .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).year())
            .ok()
    };
    year(first) != year(last)
}

/// A line chart of one column per hour for `bots`, each hour's value drawn at the middle of the
/// hour, with the version changes as numbered dashed lines at their exact time.
fn hour_chart(
    series: &HourSeries,
    bots: &[AgentId],
    colors: &[RGBColor],
    (first, last): (Hour, Hour),
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
        let hours = usize::try_from(last + 1 - first).unwrap_or(usize::MAX);
        let with_year = crosses_year(first, last);
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{title} per hour (UTC)"), ("sans-serif", 16))
            .margin(10)
            .margin_right(40)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(first as f64..(last + 1) as f64, 0.0..max)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(hours.clamp(2, if with_year { 9 } else { 13 }))
            .x_label_formatter(&|h| hour_label(h.floor() as Hour, with_year))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hour_labels_name_the_year_only_across_one() {
        let hour = |text: &str| text.parse::<Timestamp>().unwrap().as_second() / 3600;
        let (eve, day) = (hour("2025-12-31T23:00:00Z"), hour("2026-01-01T02:00:00Z"));
        assert!(crosses_year(eve, day));
        assert!(!crosses_year(day, day + 30));
        assert_eq!(hour_label(eve, true), "2025-12-31 23:00");
        assert_eq!(hour_label(day, false), "01-01 02:00");
        assert_eq!(hour_label(2, false), "01-01 02:00");
    }
}
