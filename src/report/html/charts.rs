//! The page's charts, drawn as inline SVG by `plotters` when the page is written (no script or
//! font from the network; plotters escapes the text it draws): the bots' violations and rates,
//! and requests and violations per hour with the robots.txt versions coming into force.
//!
//! What is drawn is capped ([`CHART_BOTS`], [`TIMELINE_BOTS`], [`TIMELINE_CHANGES`],
//! [`TIMELINE_POINTS`]), a bar's label is cut to the room left of the bars, and the time axis
//! names dates, with the year when the period crosses one. A timeline's size depends on the
//! number of bots and points, never on the length of the period: a log line dated 1971 beside
//! one dated 9999 draws as many points as one night.

use std::collections::BTreeMap;

use jiff::Timestamp;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::tables::{Spelling, Table, by_violations, top};
use crate::audit::hourly::Hour;
use crate::ids::AgentId;
use crate::report::View;
use crate::shown::shown;

/// Bots drawn in the bar charts.
pub const CHART_BOTS: usize = 20;
/// Bots drawn in the hourly timeline.
pub const TIMELINE_BOTS: usize = 8;
/// robots.txt version changes marked on the timeline.
pub const TIMELINE_CHANGES: usize = 50;
/// Room left of a bar chart's plot for the bots' names, in pixels.
const BAR_NAME_ROOM: u32 = 190;
/// The font size of the bots' names in the bar charts, in pixels.
const BAR_NAME_SIZE: u32 = 12;
/// The space above and below each bar within its 22-pixel row, in pixels.
const BAR_GAP: u32 = 4;
/// Points of each line of the timeline at most, about one per pixel of the plot: a longer
/// period is drawn in steps of several hours or days ([`Step`]).
pub const TIMELINE_POINTS: i64 = 1_000;

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
    let name = |agent: AgentId| bar_name(view.state.agent_name(agent));
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
            .y_label_area_size(BAR_NAME_ROOM)
            .build_cartesian_2d(0.0..max, (0..bars.len().max(1)).into_segmented())?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => bars.get(*i).map(|b| b.0.clone()).unwrap_or_default(),
                _ => String::new(),
            })
            .y_labels(bars.len().max(1))
            .y_label_style(("sans-serif", BAR_NAME_SIZE))
            .draw()?;
        let color = if rate {
            RGBColor(214, 96, 77)
        } else {
            RGBColor(67, 147, 195)
        };
        chart.draw_series(bars.iter().enumerate().map(|(i, (_, value))| {
            let mut bar = Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(i)),
                    (*value, SegmentValue::Exact(i + 1)),
                ],
                color.filled(),
            );
            // Bars that filled their whole row touched their neighbours and read as one
            // staircase; a gap above and below sets each apart on its name's row.
            bar.set_margin(BAR_GAP, BAR_GAP, 0, 0);
            bar
        }))?;
        root.present()?;
        Ok(())
    })();
    Chart {
        title: title.to_owned(),
        svg: drawn.is_ok().then_some(svg),
    }
}

/// `name` as a bar's label: [`shown`], then cut and marked `…` where its estimated width
/// would pass the room left of the bars. A longer label would run out of the chart, which
/// shows only its end, cut at the chart's edge: the start that tells bots apart lost. The bot
/// table has the name as [`shown`].
fn bar_name(name: &str) -> String {
    // plotters ends a label 10 px short of the plot; as much is kept free at the chart's edge.
    let room = f64::from(BAR_NAME_ROOM - 10) / f64::from(BAR_NAME_SIZE);
    let text = shown(name);
    let mark = em_width('…');
    let (mut width, mut fits_with_mark) = (0.0, 0);
    for (at, c) in text.char_indices() {
        width += em_width(c);
        if width > room {
            return format!("{}…", &text[..fits_with_mark]);
        }
        if width + mark <= room {
            fits_with_mark = at + c.len_utf8();
        }
    }
    text
}

/// The width of `c` in ems, estimated wide: the page is drawn in the reader's sans-serif font,
/// which the page cannot measure when it is written, so each estimate is at least the width of
/// the character in DejaVu Sans, one of the widest, and more for the characters no table here
/// lists (a CJK ideograph is 1 em, an emoji 1.2 to 1.3).
fn em_width(c: char) -> f64 {
    match c {
        'M' | 'W' | 'm' | '@' | '%' => 1.0,
        'A'..='Z' | 'w' | '#' | '&' | '+' | '<' | '=' | '>' | '^' | '~' => 0.84,
        ' '..='~' => 0.64,
        '\u{1f000}'..=char::MAX => 1.4,
        _ => 1.1,
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
    /// What each point sums: `hour`, `6 hours`, `3 days`.
    pub step: String,
    /// The versions coming into force during the period, numbered as on the charts.
    pub changes: Table,
}

/// The hours each point of the timeline sums, and the points drawn: one hour a point while
/// the period has at most [`TIMELINE_POINTS`] hours, else the first of 2, 3, 4, 6 and 12 hours
/// or a whole number of days that keeps the points within it. Steps start at multiples of
/// their length since the epoch: a step of 6 hours at 00:00, 06:00, 12:00 and 18:00 UTC, a step
/// of days at midnight UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    /// Hours a point sums.
    hours: i64,
    /// The first hour of the first point.
    start: Hour,
    /// Points drawn.
    points: i64,
}

impl Step {
    /// The step that draws hours `first` to `last` (both included, `first <= last`).
    fn of(first: Hour, last: Hour) -> Step {
        let covering = |hours: i64| Step {
            hours,
            start: first.div_euclid(hours) * hours,
            points: last.div_euclid(hours) - first.div_euclid(hours) + 1,
        };
        let fits = |step: &Step| step.points <= TIMELINE_POINTS;
        if let Some(step) = [1, 2, 3, 4, 6, 12, 24].map(covering).into_iter().find(fits) {
            return step;
        }
        // Fewer days cannot fit; as steps grow, the points fall to one or two.
        let mut days = (last - first) / (24 * TIMELINE_POINTS) + 1;
        loop {
            let step = covering(days * 24);
            if fits(&step) {
                return step;
            }
            days += 1;
        }
    }

    /// How the page names it: `hour`, `6 hours`, `day`, `3 days`.
    fn name(&self) -> String {
        match self.hours {
            1 => "hour".to_owned(),
            24 => "day".to_owned(),
            hours if hours % 24 == 0 => format!("{} days", hours / 24),
            hours => format!("{hours} hours"),
        }
    }

    /// The hour after the last point's.
    fn end(&self) -> Hour {
        self.start + self.points * self.hours
    }

    /// The first hour of each point.
    fn starts(&self) -> impl Iterator<Item = Hour> + '_ {
        (0..self.points).map(|point| self.start + point * self.hours)
    }

    /// Each point's value: the sum of the values of its hours.
    fn sums(&self, values: &BTreeMap<Hour, f64>) -> Vec<f64> {
        self.starts()
            .map(|from| values.range(from..from + self.hours).map(|(_, v)| v).sum())
            .collect()
    }
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
            step: Step::of(0, 0).name(),
            changes: changes.noted(0, "robots.txt changes in the period", "the earliest"),
        };
    }
    let step = Step::of(first, last);
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
            svg: hour_chart(series, &drawn, &colors, step, &marks, title).ok(),
        })
        .collect();
    Timeline {
        note,
        legend,
        charts,
        step: step.name(),
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

/// A line chart of `bots`, a point per `step`, each the sum of its hours drawn at the step's
/// middle, with the version changes as numbered dashed lines at their exact time.
fn hour_chart(
    series: &HourSeries,
    bots: &[AgentId],
    colors: &[RGBColor],
    step: Step,
    changes: &[VersionChange],
    title: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let (first, last) = (step.start, step.end() - 1);
    let empty = BTreeMap::new();
    let summed: Vec<Vec<f64>> = bots
        .iter()
        .map(|bot| step.sums(series.get(bot).unwrap_or(&empty)))
        .collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1040, 300)).into_drawing_area();
        root.fill(&WHITE)?;
        let max = summed.iter().flatten().copied().fold(1.0, f64::max) * 1.15;
        let hours = usize::try_from(last + 1 - first).unwrap_or(usize::MAX);
        let with_year = crosses_year(first, last);
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{title} per {} (UTC)", step.name()),
                ("sans-serif", 16),
            )
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
        let middle = step.hours as f64 / 2.0;
        for (values, &color) in summed.iter().zip(colors) {
            let line = step
                .starts()
                .zip(values)
                .map(|(from, &value)| (from as f64 + middle, value));
            // A line through one point draws nothing: a period within one step is a dot.
            let dot = if step.points == 1 { 3 } else { 0 };
            chart.draw_series(LineSeries::new(line, color.stroke_width(2)).point_size(dot))?;
        }
        root.present()?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn hour(text: &str) -> Hour {
        text.parse::<Timestamp>().unwrap().as_second() / 3600
    }

    /// A night and a month are drawn by the hour; longer periods in the first step that keeps
    /// them within [`TIMELINE_POINTS`], down to a log line dated 1971 beside one dated 9999.
    #[test]
    fn long_periods_are_drawn_in_steps_of_hours_or_days() {
        let night = hour("2026-11-20T18:00:00Z");
        let cases: &[(Hour, Hour, i64, &str)] = &[
            (night, night, 1, "hour"),
            (night, night + 11, 1, "hour"),
            (night, night + 999, 1, "hour"),
            // 1,000 hours from midnight: 1,001 points by the hour, 501 by two.
            (night - 18, night + 982, 2, "2 hours"),
            (night, night + 24 * 100, 3, "3 hours"),
            (night, night + 24 * 365, 12, "12 hours"),
            // Steps of days start at midnight: 1,000 days from 18:00 touch 1,001 of them.
            (night - 18, night - 18 + 24 * 1000 - 1, 24, "day"),
            (night, night + 24 * 1000 - 1, 48, "2 days"),
            (night - 18, night - 18 + 24 * 1000, 48, "2 days"),
            (
                hour("1971-01-01T00:00:00Z"),
                hour("9999-11-21T00:00:00Z"),
                24 * 2933,
                "2933 days",
            ),
            (
                Timestamp::MIN.as_second().div_euclid(3600),
                Timestamp::MAX.as_second().div_euclid(3600),
                24 * 7311,
                "7311 days",
            ),
        ];
        for &(first, last, hours, name) in cases {
            let step = Step::of(first, last);
            assert_eq!(
                (step.hours, step.name().as_str()),
                (hours, name),
                "{first}..={last}"
            );
            assert!(step.points <= TIMELINE_POINTS, "{step:?}");
            assert!(step.start <= first && last < step.end(), "{step:?}");
        }
    }

    #[test]
    fn each_point_sums_its_hours() {
        let step = Step::of(10, 2_500);
        assert_eq!((step.hours, step.start, step.points), (3, 9, 831));
        let values = BTreeMap::from([(10, 1.0), (11, 2.0), (12, 4.0), (2_500, 8.0)]);
        let sums = step.sums(&values);
        assert_eq!(sums.len(), 831);
        assert_eq!((sums[0], sums[1], sums[830]), (3.0, 4.0, 8.0));
        assert_eq!(sums.iter().sum::<f64>(), 15.0);
    }

    proptest! {
        /// Whatever the period, the points are within the cap and cover it, each hour falls in
        /// one point, and no shorter step of the candidates would have fitted.
        #[test]
        fn steps_cover_the_period_within_the_cap(
            first in -90_000_000i64..90_000_000,
            length in prop_oneof![0i64..3_000, 0i64..200_000_000],
        ) {
            let last = first + length;
            let step = Step::of(first, last);
            prop_assert!(step.points >= 1 && step.points <= TIMELINE_POINTS);
            prop_assert!(step.start <= first && last < step.end());
            prop_assert!(step.start + step.hours > first);
            prop_assert!(step.end() - step.hours <= last);
            prop_assert_eq!(step.start.rem_euclid(step.hours), 0);
            let fits = |hours: i64| last.div_euclid(hours) - first.div_euclid(hours) < TIMELINE_POINTS;
            let shorter = [1, 2, 3, 4, 6, 12, 24]
                .into_iter()
                .chain((1..step.hours / 24).map(|days| days * 24))
                .take_while(|&hours| hours < step.hours);
            for hours in shorter {
                prop_assert!(!fits(hours), "{} hours would fit: {:?}", hours, step);
            }
            let values: BTreeMap<Hour, f64> = [first, last, first + length / 2]
                .into_iter()
                .map(|hour| (hour, 1.0))
                .collect();
            prop_assert_eq!(step.sums(&values).iter().sum::<f64>(), values.len() as f64);
        }
    }

    /// A name that fits is its label as [`shown`]; a longer one is cut where its estimated
    /// width would pass the room, after its first characters, and marked `…`.
    #[test]
    fn bar_names_are_cut_to_the_room_left_of_the_bars() {
        let room = f64::from(BAR_NAME_ROOM - 10) / f64::from(BAR_NAME_SIZE);
        let width = |text: &str| text.chars().map(em_width).sum::<f64>();
        let cut = |text: &str, times: usize| format!("{}…", text.repeat(times));
        let cases: [(String, String); 8] = [
            ("Googlebot".into(), "Googlebot".into()),
            (
                "Google-CloudVertexBot".into(),
                "Google-CloudVertexBot".into(),
            ),
            ("meta-externalagent".into(), "meta-externalagent".into()),
            ("W".repeat(200), cut("W", 13)),
            ("i".repeat(200), cut("i", 21)),
            ("\u{5bbd}".repeat(30), cut("\u{5bbd}", 12)),
            (
                "a\u{202e}b".repeat(10),
                format!("{}a…", r"a\u{202e}b".repeat(2)),
            ),
            ("x".repeat(2_000), cut("x", 21)),
        ];
        for (name, label) in cases {
            let got = bar_name(&name);
            assert_eq!(got, label, "{name}");
            assert!(width(&got) <= room, "{got} is wider than {room} em");
        }
    }

    /// Each bar stands on its own row with a gap to the next, whatever the values: bars that
    /// touched read as one staircase.
    #[test]
    fn bars_are_set_apart_from_their_neighbours() {
        let bars: Vec<(String, f64)> = [62.0, 50.0, 50.0, 1.0, 0.5]
            .iter()
            .enumerate()
            .map(|(i, &value)| (format!("bot{i}"), value))
            .collect();
        let svg = bar_chart("violations", &bars, false).svg.expect("drawn");
        let attribute = |rect: &str, name: &str| -> u32 {
            let from = rect.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
            rect[from..].split('"').next().unwrap().parse().unwrap()
        };
        let mut spans: Vec<(u32, u32)> = svg
            .split("<rect")
            .filter(|rect| rect.contains("fill=\"#4393C3\""))
            .map(|rect| (attribute(rect, "y"), attribute(rect, "height")))
            .collect();
        spans.sort_unstable();
        assert_eq!(spans.len(), bars.len(), "{svg}");
        for pair in spans.windows(2) {
            let ((top, height), (next, _)) = (pair[0], pair[1]);
            assert!(top + height + BAR_GAP <= next, "{spans:?}");
        }
    }

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
