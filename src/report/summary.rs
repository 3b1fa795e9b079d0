//! The summary table on standard error: the top agents by violations.

use std::fmt::Write;

use super::agents::{coverage, totals};
use super::rate;
use super::unknown_agents::estimate_note;
use crate::audit::AuditResult;

/// How many agents the table shows.
pub const TOP: usize = 10;

/// Renders the summary: totals, then the agents with the most violations.
pub fn render(result: &AuditResult, out_dir: &str) -> String {
    let mut totals = totals(result);
    totals.sort_by(|a, b| {
        b.counts
            .disallowed
            .cmp(&a.counts.disallowed)
            .then_with(|| b.counts.requests.cmp(&a.counts.requests))
    });
    let lines: u64 = result.files.iter().map(|f| f.lines).sum();
    let skipped: u64 = result.files.iter().map(|f| f.skipped).sum();
    let bots: u64 = result.files.iter().map(|f| f.bot_requests).sum();
    let errors = result.files.iter().filter(|f| f.error.is_some()).count();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} files ({errors} with errors), {lines} lines ({skipped} skipped), {bots} bot requests, {} agents; reports in {out_dir}",
        result.files.len(),
        totals.len()
    );
    if let Some(note) = estimate_note(result) {
        let _ = writeln!(s, "{note}");
    }
    if totals.is_empty() {
        return s;
    }
    let width = totals
        .iter()
        .take(TOP)
        .map(|t| result.agent_name(t.agent).chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = writeln!(
        s,
        "{:<width$}  {:>10}  {:>10}  {:>10}  {:>7}  {:>8}  {:>8}",
        "agent", "requests", "judged", "violations", "rate", "coverage", "spoofed"
    );
    for t in totals.iter().take(TOP) {
        let c = &t.counts;
        let _ = writeln!(
            s,
            "{:<width$}  {:>10}  {:>10}  {:>10}  {:>7}  {:>8}  {:>8}",
            result.agent_name(t.agent),
            c.requests,
            c.judged(),
            c.disallowed,
            rate(c.disallowed, c.judged()),
            coverage(c),
            c.spoofed
        );
    }
    s
}
