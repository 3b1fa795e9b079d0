//! `report.html`: the reports of one run (or `merge`) as one page an analyst opens in a browser.
//!
//! The page is rendered from the run's [`State`](crate::state::State), through the same
//! [`View`] and the same row functions the CSV reports are written with, so every number on it
//! is a number of the CSVs; it reads no file back. The markup is the template
//! `templates/report.html` (askama, compiled into the binary; every value HTML-escaped unless
//! the template marks it `safe`, which only the charts' SVG is); this module gathers what it
//! shows. Charts are SVG drawn by `plotters` when the page is written (`charts.rs`), so the page
//! needs no script, font or image from the network; a few lines of inline script sort the bot
//! table.
//!
//! Invariants: every table is capped and says what it left out (`tables.rs`), and every string
//! from a log or a robots.txt file is shown cut and with its control characters visible
//! (`text.rs`), so the page stays small whatever the traffic minted (a flood of distinct bots or
//! hosts gives the same few hundred rows).

mod charts;
mod quality;
mod tables;
mod text;

use std::io::{self, Write as _};
use std::path::Path;

use askama::Template;

use self::charts::{BarCharts, Timeline};
use self::quality::Quality;
use self::tables::{Spelling, Table};
use super::{View, files, time};
use crate::commit::NewFile;

pub use self::charts::{CHART_BOTS, TIMELINE_BOTS, TIMELINE_CHANGES, crosses_year, hour_label};
pub use self::quality::{FETCHER_ROWS, INPUT_ROWS, SAMPLE_ROWS, UNJUDGED_ROWS, UNKNOWN_ROWS};
pub use self::tables::{BOT_ROWS, MATRIX_BOTS, MATRIX_ORIGINS, TOP_FINDINGS, TOP_RULES};

/// One headline figure: the key a test finds it by, its label, its value.
#[derive(Debug)]
pub struct Figure {
    /// The `data-total` key.
    pub key: &'static str,
    /// What it counts.
    pub label: &'static str,
    /// The count, as shown.
    pub value: String,
}

impl Figure {
    /// A figure of a count.
    pub fn new(key: &'static str, label: &'static str, value: u64) -> Figure {
        Figure::text(key, label, value.to_string())
    }

    /// A figure shown as `value`.
    pub fn text(key: &'static str, label: &'static str, value: String) -> Figure {
        Figure { key, label, value }
    }
}

/// The page, as the template draws it.
#[derive(Template)]
#[template(path = "report.html")]
struct Page {
    period: String,
    figures: Vec<Figure>,
    bots: Table,
    bar_charts: BarCharts,
    timeline: Timeline,
    matrix: Table,
    rules: Table,
    crawl_rate: Table,
    preferences: Table,
    quality: Quality,
}

/// Writes `report.html` of `view` into `dir` (a staging directory).
pub fn write(dir: &Path, view: &View<'_>) -> io::Result<()> {
    let page = render(view)?;
    let mut file = NewFile::create(dir, files::REPORT_HTML)?;
    file.write_all(page.as_bytes())?;
    file.finish()
}

/// The page of `view`.
pub fn render(view: &View<'_>) -> io::Result<String> {
    let spelling = Spelling::of(view.state);
    let mut page = Page {
        period: period(view),
        figures: headline(view),
        bots: tables::bots(view),
        bar_charts: charts::bar_charts(view),
        timeline: charts::timeline(view, &spelling),
        matrix: tables::matrix(view),
        rules: tables::most_violated_rules(view, &spelling),
        crawl_rate: tables::crawl_rate(view),
        preferences: tables::preferences(view),
        quality: quality::quality(view),
    };
    page.quality.capped = capped(&page);
    page.render().map_err(io::Error::other)
}

/// The first request to the last, over the bots.
fn period(view: &View<'_>) -> String {
    let first = view
        .agents
        .iter()
        .filter_map(|t| t.counts.first_seen())
        .min();
    let last = view
        .agents
        .iter()
        .filter_map(|t| t.counts.last_seen())
        .max();
    match (first, last) {
        (Some(_), Some(_)) => format!("{} to {}", time(first), time(last)),
        _ => "No bot requests.".to_owned(),
    }
}

/// The night's figures: sums of agents.csv's columns, its bots, the origins of
/// agent_origins.csv.
fn headline(view: &View<'_>) -> Vec<Figure> {
    let sum = |field: fn(&crate::audit::stats::Counts) -> u64| {
        view.agents
            .iter()
            .map(|t| field(&t.counts))
            .fold(0, u64::saturating_add)
    };
    let mut with_requests = vec![false; view.state.origins.len()];
    for &(_, origin) in view.totals.stats.pairs.keys() {
        if let Some(seen) = with_requests.get_mut(origin.index()) {
            *seen = !view.state.origin_name(origin).is_empty();
        }
    }
    let origins = with_requests.iter().filter(|seen| **seen).count();
    vec![
        Figure::new("requests", "bot requests", sum(|c| c.requests)),
        Figure::new("bots", "bots", view.agents.len() as u64),
        Figure::new("origins", "origins", origins as u64),
        Figure::new("judged", "judged", sum(|c| c.judged())),
        Figure::new("disallowed", "violations", sum(|c| c.disallowed)),
        Figure::new("spoofed", "spoofed requests", sum(|c| c.spoofed)),
        Figure::new("exempt", "exempt", sum(|c| c.exempt)),
        Figure::new(
            "preference_conflicts",
            "preference conflicts",
            sum(|c| c.preference_conflicts),
        ),
    ]
}

/// What every capped table of `page` left out, one line each, named by its section, and what
/// the run folded.
fn capped(page: &Page) -> Vec<String> {
    let tables = [
        ("Bots", &page.bots),
        ("Robots.txt changes", &page.timeline.changes),
        ("Violation rate by origin and bot", &page.matrix),
        ("Most violated rules", &page.rules),
        ("Crawl rate", &page.crawl_rate),
        ("Usage preference conflicts", &page.preferences),
        ("Inputs", &page.quality.inputs),
        ("Skipped lines", &page.quality.samples),
        ("Unjudged requests by origin", &page.quality.unjudged),
        ("Unknown agents", &page.quality.unknown),
        (
            "Unknown agents that fetched robots.txt",
            &page.quality.fetchers,
        ),
    ];
    let mut lines: Vec<String> = tables
        .iter()
        .filter(|(_, table)| table.capped)
        .map(|(section, table)| format!("{section}: {}", table.note))
        .collect();
    let per_step = format!("Per {}", page.timeline.step);
    let charts = [
        ("Bot charts", &page.bar_charts.note),
        (per_step.as_str(), &page.timeline.note),
    ];
    lines.extend(
        charts
            .iter()
            .filter(|(_, note)| note.starts_with("Top "))
            .map(|(section, note)| format!("{section}: {note}")),
    );
    lines.extend(page.quality.folded.iter().cloned());
    lines
}
