//! `robots.csv`: one row per loaded robots.txt version.

use std::io;
use std::path::Path;

use super::{View, files, write_csv};
use crate::versions::summary::ParseSummary;

/// The header of `robots.csv`.
pub const HEADER: &str =
    "origin,robots_version,status,source,bytes,truncated,lines,groups,rules,ignored_lines";

/// Writes `robots.csv` into `dir`.
pub fn write(dir: &Path, view: &View<'_>) -> io::Result<()> {
    let rows = view.state.robots.sorted().into_iter().map(|id| {
        let v = view.state.robots.version(id);
        let stats = v.parse;
        let n = |f: fn(&ParseSummary) -> u32| stats.map_or(String::new(), |s| f(&s).to_string());
        vec![
            v.origin.clone(),
            v.label(),
            v.status.clone(),
            v.source.clone(),
            v.bytes.to_string(),
            stats.is_some_and(|s| s.truncated).to_string(),
            n(|s| s.lines),
            n(|s| s.groups),
            n(|s| s.rules),
            n(|s| s.ignored_lines),
        ]
    });
    write_csv(dir, files::ROBOTS, HEADER, view.raw_csv(), rows)
}
