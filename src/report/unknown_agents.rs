//! `unknown_agents.csv`: the user-agent headers most often seen that were not identified as
//! bots, material for extending the catalog.

use std::io;
use std::path::Path;

use super::{View, files, text, time, write_csv};
use crate::audit::unknown::HeaderCounts;

/// The header of `unknown_agents.csv`.
pub const HEADER: &str = "user_agent,requests,robots_fetches,first_seen,last_seen,sample_path";

/// How many headers the report lists.
pub const ROWS: usize = 1_000;

/// Writes `unknown_agents.csv` into `dir`: the [`ROWS`] headers with the most requests, most
/// first, ties by the header's bytes; `sample_path` is the path of the header's earliest request
/// in input order (files as given, then line number).
pub fn write(dir: &Path, view: &View<'_>) -> io::Result<()> {
    let top = view.totals.unknown_agents.top(ROWS);
    let rows = top.into_iter().map(|(header, counts)| row(header, counts));
    write_csv(dir, files::UNKNOWN_AGENTS, HEADER, view.raw_csv(), rows)
}

/// One header's row of `unknown_agents.csv`, in [`HEADER`]'s order (before the cells rule).
pub fn row(header: &[u8], counts: &HeaderCounts) -> [String; 6] {
    [
        text(header).into_owned(),
        counts.requests.to_string(),
        counts.robots_fetches.to_string(),
        time(counts.first_seen),
        time(counts.last_seen),
        counts
            .sample
            .as_ref()
            .map(|s| text(&s.path).into_owned())
            .unwrap_or_default(),
    ]
}

/// The line the summary on standard error adds when the counts are estimates.
pub fn estimate_note(view: &View<'_>) -> Option<String> {
    let unknown = &view.totals.unknown_agents;
    unknown.is_approximate().then(|| {
        format!(
            "{}: more than {} distinct user-agent headers that are not bots; its counts are \
             estimates from a bounded summary, each at most {} above the true count",
            files::UNKNOWN_AGENTS,
            unknown.limit(),
            unknown.max_error()
        )
    })
}
