//! The summary table on standard error: the top agents by violations.

use std::collections::BTreeMap;
use std::fmt::Write;

use jiff::Timestamp;

use crate::ids::OriginId;
use crate::origin::Origin;
use crate::shown::{cut, visible};

use super::agents::{AgentTotals, coverage};
use super::notes::{count, grouped, notes};
use super::unknown_agents::estimate_note;
use super::{View, rate};

/// How many agents the table shows.
pub const TOP: usize = 10;

/// Renders the summary: totals, then the agents with the most violations, then the notes. Names
/// in it may be strangers' (a product token, a host, a name of a merged `state.json`): each line
/// is written [`visible`], and the table's names [`cut`] too.
pub fn render(view: &View<'_>, out_dir: &str) -> String {
    let mut totals = view.agents.clone();
    totals.sort_by(|a, b| {
        b.counts
            .disallowed
            .cmp(&a.counts.disallowed)
            .then_with(|| b.counts.requests.cmp(&a.counts.requests))
    });
    let lines: u64 = view.files().map(|f| f.lines).sum();
    let skipped: u64 = view.files().map(|f| f.skipped).sum();
    let bots: u64 = view.files().map(|f| f.bot_requests).sum();
    let errors = view.files().filter(|f| f.error.is_some()).count();
    let mut s = String::new();
    let out_dir = visible(out_dir);
    let _ = writeln!(
        s,
        "{} ({errors} with errors), {} ({} skipped), {}, {}; reports in {out_dir}",
        count(view.state.inputs.len() as u64, "file", "files"),
        count(lines, "line", "lines"),
        grouped(skipped),
        count(bots, "bot request", "bot requests"),
        count(totals.len() as u64, "agent", "agents"),
    );
    if let Some(note) = estimate_note(view) {
        let _ = writeln!(s, "{}", visible(&note));
    }
    if !totals.is_empty() {
        table(&mut s, view, &totals);
    }
    for note in notes(view) {
        let _ = writeln!(s, "note: {}", visible(&note));
    }
    s
}

/// The characters of an agent's name the table shows: a self-declared bot is named by whatever
/// product token its user-agent holds, and one of 70,000 letters would otherwise push every
/// column off the screen (and a name of 65,536 or more could not be padded at all).
pub const TABLE_NAME_CHARS: usize = 40;

/// The agents with the most violations, [`TOP`] of them, each name [`cut`] to
/// [`TABLE_NAME_CHARS`].
fn table(s: &mut String, view: &View<'_>, totals: &[AgentTotals]) {
    let top = &totals[..totals.len().min(TOP)];
    let names: Vec<String> = top
        .iter()
        .map(|t| cut(view.state.agent_name(t.agent), TABLE_NAME_CHARS))
        .collect();
    let width = names
        .iter()
        .map(|name| name.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = writeln!(
        s,
        "{:<width$}  {:>10}  {:>10}  {:>10}  {:>7}  {:>8}  {:>8}",
        "agent", "requests", "judged", "violations", "rate", "coverage", "spoofed"
    );
    for (t, name) in top.iter().zip(&names) {
        let c = &t.counts;
        let _ = writeln!(
            s,
            "{name:<width$}  {:>10}  {:>10}  {:>10}  {:>7}  {:>8}  {:>8}",
            c.requests,
            c.judged(),
            c.disallowed,
            rate(c.disallowed, c.judged()),
            coverage(c),
            c.spoofed
        );
    }
}

/// Why nothing was judged, in one line, when lines were read and no request was judged (exit
/// code 3): every line was skipped (a forced `--format` that is not the log's, say), no request
/// was a bot's, the bots only fetched robots.txt, the lines of a crawler's own log record no
/// fetch, or the requests could not be judged (the lines carried no host and no `--origin`
/// stood in, no robots source names the origins seen, or no version was in force yet at the
/// requests' times). `None` when something was judged or no line was read.
pub fn nothing_judged(view: &View<'_>) -> Option<String> {
    let lines: u64 = view.files().map(|f| f.lines).sum();
    let judged: u64 = view.agents.iter().map(|t| t.counts.judged()).sum();
    if lines == 0 || judged > 0 {
        return None;
    }
    unjudged(view).or_else(|| {
        Some(format!(
            "nothing judged: {}",
            no_request_to_judge(view, lines)
        ))
    })
}

/// Why no request was there to judge, when none was left unjudged either.
fn no_request_to_judge(view: &View<'_>, lines: u64) -> String {
    let parsed: u64 = view.files().map(|f| f.parsed).sum();
    let skipped: u64 = view.files().map(|f| f.skipped).sum();
    let fetches: u64 = view.agents.iter().map(|t| t.counts.robots_fetches).sum();
    if parsed > 0 && fetches > 0 {
        return format!(
            "the {} of bots {} all robots.txt fetches, which are never judged",
            count(fetches, "request", "requests"),
            if fetches == 1 { "was" } else { "were" }
        );
    }
    // A request of a header that is not a bot's is always counted among the unknown agents;
    // with none there, every line parsed was a crawler's own "not fetched" outcome.
    if parsed > 0 && view.totals.unknown_agents.is_empty() {
        return format!(
            "the {} read {} no fetch (a crawler's own outcome, such as -9998, is no request \
             to the site)",
            count(parsed, "line", "lines"),
            if parsed == 1 { "records" } else { "record" }
        );
    }
    if parsed > 0 {
        return format!(
            "none of the {} read was a bot's (--all-agents judges every request)",
            count(parsed, "request", "requests")
        );
    }
    if skipped == 0 {
        return format!(
            "the {} read {} no request",
            count(lines, "line", "lines"),
            if lines == 1 { "holds" } else { "hold" }
        );
    }
    // The reasons the samples show, the most frequent first.
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for sample in view.files().flat_map(|f| &f.samples) {
        match reasons
            .iter_mut()
            .find(|(reason, _)| *reason == sample.reason)
        {
            Some((_, n)) => *n += 1,
            None => reasons.push((sample.reason, 1)),
        }
    }
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let reasons: Vec<&str> = reasons.iter().map(|(reason, _)| *reason).collect();
    let format = match view.state.settings.format.as_str() {
        "auto" => String::new(),
        forced => format!(" for --format {forced}"),
    };
    let why = match reasons.as_slice() {
        [reason] => (*reason).to_owned(),
        _ => format!("skipped ({})", reasons.join(", ")),
    };
    format!(
        "{} of {} {why}{format}",
        grouped(skipped),
        count(lines, "line", "lines")
    )
}

/// Why the requests read could not be judged: the previous causes, or `None` when no request
/// was left unjudged.
fn unjudged(view: &View<'_>) -> Option<String> {
    let mut judged = 0u64;
    let mut unjudged: BTreeMap<OriginId, u64> = BTreeMap::new();
    for (&(_, origin), counts) in &view.totals.stats.pairs {
        judged += counts.judged();
        if counts.unjudged > 0 {
            *unjudged.entry(origin).or_default() += counts.unjudged;
        }
    }
    let total: u64 = unjudged.values().sum();
    if judged > 0 || total == 0 {
        return None;
    }
    let mut hostless = 0u64;
    // Origins with unjudged requests, the most requested first (ties by name).
    let mut unnamed: Vec<(&str, u64)> = Vec::new();
    let mut not_yet: Vec<(&str, u64, Option<Timestamp>)> = Vec::new();
    for (&origin, &count) in &unjudged {
        let name = view.state.origin_name(origin);
        if name.is_empty() {
            hostless += count;
            continue;
        }
        let first = Origin::parse(name)
            .ok()
            .and_then(|o| view.state.robots.first_version_of(&o));
        match first {
            None => unnamed.push((name, count)),
            Some(first) => not_yet.push((name, count, first.valid_from)),
        }
    }
    unnamed.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    not_yet.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut causes = Vec::new();
    if hostless > 0 {
        let mut cause = "the lines carry no host and --origin was not given".to_owned();
        if hostless < total {
            cause.push_str(&format!(" ({})", count(hostless, "request", "requests")));
        }
        causes.push(cause);
    }
    if let Some((first, _)) = unnamed.first() {
        let seen = unnamed.len() + not_yet.len();
        let which = if not_yet.is_empty() {
            format!(
                "any of the {} seen",
                count(seen as u64, "origin", "origins")
            )
        } else {
            format!(
                "{} of the {} seen",
                unnamed.len(),
                count(seen as u64, "origin", "origins")
            )
        };
        let mut cause = format!("no robots source names {which} (most requested: {first})");
        let mut named: Vec<&str> = view
            .state
            .robots
            .versions
            .iter()
            .map(|v| v.origin.as_str())
            .collect();
        named.sort_unstable();
        named.dedup();
        if named.is_empty() {
            cause.push_str("; the robots sources hold no robots.txt");
        } else {
            let shown = named.len().min(NAMED_SHOWN);
            cause.push_str(&format!(
                "; the robots sources name {}",
                named[..shown].join(", ")
            ));
            if named.len() > shown {
                cause.push_str(&format!(" and {} more", named.len() - shown));
            }
        }
        causes.push(cause);
    }
    if let Some((first, _, from)) = not_yet.first() {
        let from = from.map_or_else(String::new, |t| {
            format!(", whose first version is valid from {t}")
        });
        causes.push(format!(
            "no robots.txt version was in force yet when {} {} requested \
             (e.g. {first}{from})",
            count(not_yet.len() as u64, "origin", "origins"),
            if not_yet.len() == 1 { "was" } else { "were" }
        ));
    }
    Some(format!(
        "nothing judged: {} could not be judged: {}",
        count(total, "request", "requests"),
        causes.join("; ")
    ))
}

/// How many of the origins the robots sources name a "nothing judged" message shows.
const NAMED_SHOWN: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_by_thousands() {
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1_473, "1,473"),
            (1_000_000, "1,000,000"),
        ] {
            assert_eq!(grouped(n), text);
        }
    }
}
