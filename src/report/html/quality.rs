//! The page's data-quality section: what the run read (each input, its lines, bytes,
//! compression, format and error), what it could not read (skipped lines by reason) or judge
//! (unjudged requests by origin; the first skipped lines), the user-agents that are not bots, and what the page leaves
//! out, and what the run folded past the bound on names that traffic mints. Every number is one of `inputs.csv`, `skipped_lines.csv`, `agent_origins.csv` or
//! `unknown_agents.csv`, or a
//! sum of one of their columns.

use super::Figure;
use super::tables::{Table, top, unjudged_by_origin};
use crate::audit::file_report::FileReport;
use crate::audit::fold::{FoldCount, OTHER_AGENTS, OTHER_ORIGINS};
use crate::report::{View, inputs, unknown_agents};

/// Inputs listed.
pub const INPUT_ROWS: usize = 100;
/// Origins listed with unjudged requests.
pub const UNJUDGED_ROWS: usize = 20;
/// Unknown user-agents listed.
pub const UNKNOWN_ROWS: usize = 20;
/// Unknown user-agents listed among those that fetched robots.txt.
pub const FETCHER_ROWS: usize = 50;
/// Skipped lines listed (of skipped_lines.csv's samples).
pub const SAMPLE_ROWS: usize = 20;

/// The inputs.csv columns the inputs table shows.
const INPUT_COLUMNS: &[&str] = &[
    "file",
    "format",
    "compression",
    "bytes_read",
    "bytes",
    "lines",
    "parsed",
    "skipped",
    "bot_requests",
    "other_requests",
    "error",
    "assumed_zone",
];

/// The data-quality section.
#[derive(Debug)]
pub struct Quality {
    /// The run's totals: lines, skipped, unjudged, unknown agents.
    pub figures: Vec<Figure>,
    /// The inputs, those with errors or skipped lines first.
    pub inputs: Table,
    /// Skipped lines by reason, over the inputs.
    pub reasons: Table,
    /// The first sampled skipped lines.
    pub samples: Table,
    /// Unjudged requests by origin.
    pub unjudged: Table,
    /// The user-agent headers that are not bots with the most requests.
    pub unknown: Table,
    /// The user-agent headers that are not bots and fetched robots.txt: crawlers the catalog
    /// misses.
    pub fetchers: Table,
    /// Why the unknown agents' counts are estimates, when they are.
    pub estimate: Option<String>,
    /// What the run folded into one row, one line per kind of name.
    pub folded: Vec<String>,
    /// What each capped table of the page left out, filled in by the page.
    pub capped: Vec<String>,
}

/// The data-quality section of `view`.
pub fn quality(view: &View<'_>) -> Quality {
    let files: Vec<&FileReport> = view.files().collect();
    let sum = |field: fn(&FileReport) -> u64| -> u64 {
        files.iter().map(|f| field(f)).fold(0, u64::saturating_add)
    };
    let unjudged = view
        .agents
        .iter()
        .map(|t| t.counts.unjudged)
        .fold(0, u64::saturating_add);
    let unknown = &view.totals.unknown_agents;
    let (fetchers, fetchers_total) = fetchers_table(view);
    let assumed = files.iter().filter(|f| f.assumed_zone.is_some()).count();
    let folded = folded(view);
    let mut figures = vec![
        Figure::new("inputs", "inputs", files.len() as u64),
        Figure::new(
            "input_errors",
            "inputs with errors",
            files.iter().filter(|f| f.error.is_some()).count() as u64,
        ),
        Figure::new("lines", "lines read", sum(|f| f.lines)),
        Figure::new("skipped", "lines skipped", sum(|f| f.skipped)),
        Figure::new(
            "other_requests",
            "requests not from bots",
            sum(|f| f.other_requests),
        ),
        Figure::new("unjudged", "bot requests not judged", unjudged),
        Figure::new(
            "unknown_agents",
            "unknown user-agents",
            unknown.len() as u64,
        ),
        Figure::new(
            "unknown_robots_fetchers",
            "unknown user-agents that fetched robots.txt",
            fetchers_total as u64,
        ),
        Figure::new(
            "assumed_zone",
            "inputs read in an assumed time zone",
            assumed as u64,
        ),
    ];
    figures.extend(
        folded
            .iter()
            .map(|fold| Figure::text(fold.key, fold.label, fold.count())),
    );
    Quality {
        figures,
        inputs: inputs_table(&files),
        reasons: reasons_table(&files),
        samples: samples_table(&files),
        unjudged: unjudged_by_origin(view, UNJUDGED_ROWS),
        unknown: unknown_table(view),
        fetchers,
        estimate: unknown_agents::estimate_note(view),
        folded: folded.iter().filter_map(Fold::line).collect(),
        capped: Vec::new(),
    }
}

/// The inputs, with an error first, then read in an assumed time zone, then by skipped lines,
/// then in argument order.
fn inputs_table(files: &[&FileReport]) -> Table {
    let header: Vec<&str> = inputs::HEADER.split(',').collect();
    let rank = |f: &FileReport| (f.error.is_some(), f.assumed_zone.is_some(), f.skipped);
    let (shown, total) = top(files.iter().enumerate(), INPUT_ROWS, |a, b| {
        rank(b.1).cmp(&rank(a.1)).then(a.0.cmp(&b.0))
    });
    let mut table = Table::new("inputs-table", "data-input", INPUT_COLUMNS);
    for (_, file) in shown {
        table.push_picked(&file.name, &header, &inputs::row(file));
    }
    table.noted(
        total,
        "inputs",
        "those with errors first, then by skipped lines",
    )
}

/// Skipped lines by reason, over every input (their sum is the `skipped` column's).
fn reasons_table(files: &[&FileReport]) -> Table {
    let mut by_reason: Vec<(&str, u64)> = Vec::new();
    for count in files.iter().flat_map(|f| &f.skipped_by_reason) {
        match by_reason
            .iter_mut()
            .find(|(reason, _)| *reason == count.reason)
        {
            Some((_, lines)) => *lines = lines.saturating_add(count.lines),
            None => by_reason.push((count.reason, count.lines)),
        }
    }
    by_reason.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let columns = ["reason", "lines"];
    let mut table = Table::new("reasons-table", "data-reason", &columns);
    let total = by_reason.len();
    for (reason, lines) in by_reason {
        table.push_picked(reason, &columns, &[reason.to_owned(), lines.to_string()]);
    }
    table.noted(total, "reasons", "by lines")
}

/// skipped_lines.csv's first rows.
fn samples_table(files: &[&FileReport]) -> Table {
    let header: Vec<&str> = inputs::SKIPPED_HEADER.split(',').collect();
    let samples = files
        .iter()
        .flat_map(|f| f.samples.iter().map(move |sample| (*f, sample)));
    let mut table = Table::new("samples-table", "data-sample", &header);
    let mut total = 0;
    for (file, sample) in samples {
        total += 1;
        if table.rows.len() < SAMPLE_ROWS {
            let row = inputs::sample_row(file, sample);
            table.push_picked(&format!("{}:{}", row[0], row[1]), &header, &row);
        }
    }
    table.noted(total, "sampled skipped lines", "the first in input order")
}

/// The unknown user-agents that fetched robots.txt (unknown_agents.csv's rows), most fetches
/// first, and how many there were.
fn fetchers_table(view: &View<'_>) -> (Table, usize) {
    let header: Vec<&str> = unknown_agents::HEADER.split(',').collect();
    let unknown = &view.totals.unknown_agents;
    let fetching = unknown
        .top(unknown.len())
        .into_iter()
        .filter(|(_, counts)| counts.robots_fetches > 0);
    let (shown, total) = top(fetching, FETCHER_ROWS, |a, b| {
        (b.1.robots_fetches, b.1.requests)
            .cmp(&(a.1.robots_fetches, a.1.requests))
            .then_with(|| a.0.cmp(b.0))
    });
    let mut table = Table::new("fetchers-table", "data-fetcher", &header);
    for (agent, counts) in shown {
        let row = unknown_agents::row(agent, counts);
        table.push_picked(&row[0], &header, &row);
    }
    let table = table.noted(total, "user-agents that fetched robots.txt", "by fetches");
    (table, total)
}

/// One kind of name the run folded past the bound on what traffic mints.
struct Fold {
    key: &'static str,
    label: &'static str,
    row: &'static str,
    count: FoldCount,
    kept: usize,
}

impl Fold {
    /// The count as shown: exact, or `about N` for an estimate.
    fn count(&self) -> String {
        match self.count {
            FoldCount::Exact(n) => n.to_string(),
            FoldCount::About(n) => format!("about {n}"),
        }
    }

    /// The line of the list of what was left out, when something was folded.
    fn line(&self) -> Option<String> {
        (self.count.value() > 0).then(|| {
            format!(
                "{} {}: counted in the row {}, past the {} kept.",
                self.count(),
                self.label,
                self.row,
                self.kept
            )
        })
    }
}

/// The self-declared bots and the origins without a robots source the run folded.
fn folded(view: &View<'_>) -> [Fold; 2] {
    let state = view.state;
    let kept = state.settings.kept_names;
    [
        Fold {
            key: "folded_agents",
            label: "self-declared bots folded",
            row: OTHER_AGENTS,
            count: state.folded.agents.count(kept),
            kept,
        },
        Fold {
            key: "folded_origins",
            label: "origins without robots.txt folded",
            row: OTHER_ORIGINS,
            count: state.folded.origins.count(kept),
            kept,
        },
    ]
}

/// unknown_agents.csv's first rows.
fn unknown_table(view: &View<'_>) -> Table {
    let header: Vec<&str> = unknown_agents::HEADER.split(',').collect();
    let unknown = &view.totals.unknown_agents;
    let mut table = Table::new("unknown-table", "data-unknown", &header);
    for (agent, counts) in unknown.top(UNKNOWN_ROWS) {
        let row = unknown_agents::row(agent, counts);
        table.push_picked(&row[0], &header, &row);
    }
    table.noted(unknown.len(), "user-agents", "by requests")
}
