//! The block of notes the summary on standard error ends with: what a run saw that its numbers
//! alone would not say. Origins with bot requests and no robots source, bots whose coverage is
//! below 1, names folded past the bound (`src/audit/fold.rs`), and inputs whose times were read
//! in an assumed zone. Each note is one line naming the first few, "and N more", each name
//! [`shown`] (cut, its control characters visible).

use std::collections::BTreeMap;

use crate::audit::fold::{FoldCount, FoldSketch, OTHER_AGENTS, OTHER_ORIGINS};
use crate::shown::shown;

use super::View;
use super::agents::coverage;

/// How many names a note shows before "and N more".
pub const SHOWN: usize = 3;

/// `n` and the noun, singular for 1: `1 file`, `2 files`; thousands grouped.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
}

/// `1473` as `1,473`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `items` joined by commas, the first [`SHOWN`] of them, then "and N more".
fn first_few(items: &[String]) -> String {
    let shown = items.len().min(SHOWN);
    let mut text = items[..shown].join(", ");
    if items.len() > shown {
        text.push_str(&format!(
            " and {} more",
            grouped((items.len() - shown) as u64)
        ));
    }
    text
}

/// The notes, one line each, in a fixed order; empty when there is nothing to say.
pub fn notes(view: &View<'_>) -> Vec<String> {
    [
        sourceless_origins(view),
        low_coverage(view),
        folded(view),
        assumed_zones(view),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The origins bots requested that no robots source names, the most requested first.
fn sourceless_origins(view: &View<'_>) -> Option<String> {
    let sourceless = view.state.sourceless_origins();
    let mut requests: BTreeMap<usize, u64> = BTreeMap::new();
    for (&(agent, origin), counts) in &view.totals.stats.pairs {
        let is_bot = view
            .state
            .agents
            .get(agent.index())
            .is_some_and(|a| a.is_bot);
        if is_bot && sourceless.get(origin.index()).copied().unwrap_or(false) {
            *requests.entry(origin.index()).or_default() += counts.requests;
        }
    }
    if requests.is_empty() {
        return None;
    }
    let mut ranked: Vec<(&str, u64)> = requests
        .into_iter()
        .map(|(origin, n)| (view.state.origins[origin].as_str(), n))
        .collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let names: Vec<String> = ranked
        .iter()
        .map(|(name, n)| format!("{} ({})", shown(name), count(*n, "request", "requests")))
        .collect();
    Some(format!(
        "no robots source for {} with bot requests (left unjudged): {}",
        count(ranked.len() as u64, "origin", "origins"),
        first_few(&names)
    ))
}

/// The bots whose coverage is below 1 (some request could not be judged), lowest first.
fn low_coverage(view: &View<'_>) -> Option<String> {
    let mut low: Vec<(&str, f64, String)> = view
        .agents
        .iter()
        .filter(|t| {
            view.state
                .agents
                .get(t.agent.index())
                .is_some_and(|a| a.is_bot)
        })
        .filter_map(|t| {
            let c = &t.counts;
            let judgeable = c.requests.saturating_sub(c.robots_fetches);
            (judgeable > 0 && c.judged() < judgeable).then(|| {
                (
                    view.state.agent_name(t.agent),
                    c.judged() as f64 / judgeable as f64,
                    coverage(c),
                )
            })
        })
        .collect();
    if low.is_empty() {
        return None;
    }
    low.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)));
    let names: Vec<String> = low
        .iter()
        .map(|(name, _, coverage)| format!("{} ({coverage})", shown(name)))
        .collect();
    Some(format!(
        "coverage below 1 for {}: {}",
        count(low.len() as u64, "bot", "bots"),
        first_few(&names)
    ))
}

/// How many names were folded, of each kind.
fn folded(view: &View<'_>) -> Option<String> {
    let state = view.state;
    let kept = state.settings.kept_names;
    let one = |sketch: &FoldSketch, (one, many): (&str, &str), row: &str| {
        let n = sketch.count(kept);
        (n.value() > 0).then(|| {
            let about = match n {
                FoldCount::Exact(_) => "",
                FoldCount::About(_) => "about ",
            };
            format!("{about}{} into {row}", count(n.value(), one, many))
        })
    };
    let parts: Vec<String> = [
        one(
            &state.folded.agents,
            ("self-declared bot", "self-declared bots"),
            OTHER_AGENTS,
        ),
        one(
            &state.folded.origins,
            (
                "origin without a robots source",
                "origins without a robots source",
            ),
            OTHER_ORIGINS,
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "folded past {} names of each kind: {}",
            grouped(kept as u64),
            parts.join("; ")
        )
    })
}

/// The inputs whose times without an offset were read in an assumed zone, by zone.
fn assumed_zones(view: &View<'_>) -> Option<String> {
    let mut by_zone: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for file in view.files() {
        if let Some(zone) = &file.assumed_zone {
            by_zone.entry(zone).or_default().push(shown(&file.name));
        }
    }
    let parts: Vec<String> = by_zone
        .iter()
        .map(|(zone, inputs)| {
            format!(
                "{zone} for {}: {}",
                count(inputs.len() as u64, "input", "inputs"),
                first_few(inputs)
            )
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "times without an offset read in an assumed zone (--timezone): {}",
            parts.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_and_plural_only_when_not_one() {
        for (n, text) in [
            (0, "0 files"),
            (1, "1 file"),
            (2, "2 files"),
            (1_473, "1,473 files"),
            (1_000_000, "1,000,000 files"),
        ] {
            assert_eq!(count(n, "file", "files"), text);
        }
    }

    #[test]
    fn a_list_shows_the_first_few_and_how_many_more() {
        let names = |n: usize| (1..=n).map(|i| format!("o{i}")).collect::<Vec<_>>();
        for (n, text) in [
            (1, "o1"),
            (3, "o1, o2, o3"),
            (4, "o1, o2, o3 and 1 more"),
            (1_004, "o1, o2, o3 and 1,001 more"),
        ] {
            assert_eq!(first_few(&names(n)), text);
        }
    }
}
