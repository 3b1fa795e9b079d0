//! `robots.csv`: one row per loaded robots.txt version.

use std::io;
use std::path::Path;

use super::rules::sorted_versions;
use super::write_csv;
use crate::audit::AuditResult;

/// The header of `robots.csv`.
pub const HEADER: &str =
    "origin,robots_version,status,source,bytes,truncated,lines,groups,rules,ignored_lines";

/// Writes `robots.csv` into `dir`.
pub fn write(dir: &Path, result: &AuditResult) -> io::Result<()> {
    let rows = sorted_versions(result).into_iter().map(|id| {
        let v = result.policy.version(id);
        let stats = v.robots.as_ref().map(|r| r.stats());
        let n = |f: fn(&robots_audit_engine::ParseStats) -> u32| {
            stats.map_or(String::new(), |s| f(s).to_string())
        };
        vec![
            v.origin.clone(),
            v.label(),
            v.status.to_string(),
            v.source.clone(),
            v.bytes.to_string(),
            stats.is_some_and(|s| s.truncated).to_string(),
            n(|s| s.lines),
            n(|s| s.groups),
            n(|s| s.rules),
            n(|s| s.ignored_lines),
        ]
    });
    write_csv(dir, "robots.csv", HEADER, rows)
}
