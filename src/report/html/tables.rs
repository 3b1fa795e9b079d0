//! The page's tables, each made of the rows the CSV reports write (the same functions make
//! both, so a number on the page is the number in the CSV) and capped: a table shows its top
//! rows and says how many it had ("Top 100 of 2000 bots, by violations, then requests.").
//!
//! Ranking reads the counters, never the formatted rows: only the rows shown are formatted.

use std::cmp::Ordering;

use ahash::{AHashMap, AHashSet};

use super::text::cap_note;
use crate::audit::stats::{Counts, RuleKey};
use crate::ids::{AgentId, OriginId};
use crate::report::{View, agent_origins, agents, crawl_rate, rate, rules};
use crate::shown::shown;
use crate::state::State;
use crate::versions::summary::Decides;

/// Rows of the bot table.
pub const BOT_ROWS: usize = 100;
/// Origins and bots of the violation-rate matrix.
pub const MATRIX_ORIGINS: usize = 30;
/// Bots (columns) of the violation-rate matrix.
pub const MATRIX_BOTS: usize = 15;
/// Rules listed among the most violated.
pub const TOP_RULES: usize = 50;
/// Rows of the crawl-rate and the preference tables.
pub const TOP_FINDINGS: usize = 50;

/// The agents.csv columns the bot table shows, in this order.
const AGENT_COLUMNS: &[&str] = &[
    "agent",
    "category",
    "requests",
    "judged",
    "allowed",
    "disallowed",
    "disallowed_verified",
    "grace",
    "exempt",
    "violation_rate",
    "coverage",
    "verified",
    "spoofed",
    "unverified",
    "preference_conflicts",
    "origins",
    "origins_with_violations",
];

/// One cell: its column (which a test finds it by), its text as shown, whether it is a number
/// (right-aligned) and, in the matrix, the shade of its rate.
#[derive(Debug)]
pub struct Cell {
    /// The column's name.
    pub column: String,
    /// The text shown.
    pub text: String,
    /// Whether the text is a number.
    pub numeric: bool,
    /// The opacity of the cell's background, for a rate.
    pub shade: Option<String>,
}

impl Cell {
    /// A cell of `column` showing `text` (through [`shown`]).
    pub fn new(column: &str, text: &str) -> Cell {
        Cell {
            column: shown(column),
            text: shown(text),
            numeric: !text.is_empty() && text.parse::<f64>().is_ok(),
            shade: None,
        }
    }
}

/// One row: the value of its key attribute, a heading cell (the matrix's origin), its cells.
#[derive(Debug)]
pub struct Row {
    /// The value of the table's key attribute.
    pub key: String,
    /// A heading cell before the others.
    pub head: Option<String>,
    /// The cells.
    pub cells: Vec<Cell>,
}

/// A table as the template draws it.
#[derive(Debug)]
pub struct Table {
    /// The table's `id`.
    pub id: &'static str,
    /// The attribute each row carries its key in (`data-agent`, ...).
    pub key: &'static str,
    /// The column headings, as shown (a bot's name heads a column of the matrix).
    pub columns: Vec<String>,
    /// Whether a click on a heading sorts it.
    pub sortable: bool,
    /// The rows shown.
    pub rows: Vec<Row>,
    /// What it shows of how many ([`cap_note`]).
    pub note: String,
    /// Whether rows were left out.
    pub capped: bool,
}

impl Table {
    /// An empty table with `columns` (through [`shown`]).
    pub fn new(id: &'static str, key: &'static str, columns: &[&str]) -> Table {
        Table {
            id,
            key,
            columns: columns.iter().map(|c| shown(c)).collect(),
            sortable: false,
            rows: Vec::new(),
            note: String::new(),
            capped: false,
        }
    }

    /// Says that the table shows its rows of `total` `what`, ranked `order`.
    pub fn noted(mut self, total: usize, what: &str, order: &str) -> Table {
        self.capped = self.rows.len() < total;
        self.note = cap_note(self.rows.len(), total, what, order);
        self
    }

    /// Adds a row keyed `key` with the cells of `columns` picked from `values`, a CSV row
    /// whose header is `header`.
    pub fn push_picked(&mut self, key: &str, header: &[&str], values: &[String]) {
        let cells = self
            .columns
            .iter()
            .map(|column| {
                let at = header.iter().position(|h| h == column);
                let value = at.and_then(|at| values.get(at));
                Cell::new(column, value.map_or("", String::as_str))
            })
            .collect();
        self.rows.push(Row {
            key: shown(key),
            head: None,
            cells,
        });
    }
}

/// The `cap` items of `items` that come first by `order`, in that order, and how many there were.
pub fn top<T>(
    items: impl Iterator<Item = T>,
    cap: usize,
    order: impl Fn(&T, &T) -> Ordering,
) -> (Vec<T>, usize) {
    let mut all: Vec<T> = items.collect();
    let total = all.len();
    if cap == 0 {
        all.clear();
    } else if all.len() > cap {
        all.select_nth_unstable_by(cap - 1, &order);
        all.truncate(cap);
    }
    all.sort_by(order);
    (all, total)
}

/// The agents' totals, most violations first, then most requests, then by name.
pub fn by_violations<'v>(view: &'v View<'_>, cap: usize) -> (Vec<&'v agents::AgentTotals>, usize) {
    top(view.agents.iter(), cap, |a, b| {
        (b.counts.disallowed, b.counts.requests)
            .cmp(&(a.counts.disallowed, a.counts.requests))
            .then_with(|| {
                view.state
                    .agent_name(a.agent)
                    .cmp(view.state.agent_name(b.agent))
            })
    })
}

/// The bot table: agents.csv's rows of the bots with the most violations, then requests.
pub fn bots(view: &View<'_>) -> Table {
    let header: Vec<&str> = agents::HEADER.split(',').collect();
    let mut table = Table::new("bot-table", "data-agent", AGENT_COLUMNS);
    table.sortable = true;
    let (shown_bots, total) = by_violations(view, BOT_ROWS);
    for t in shown_bots {
        let row = agents::row(view, t);
        table.push_picked(view.state.agent_name(t.agent), &header, &row);
    }
    table.noted(total, "bots", "by violations, then requests")
}

/// The one spelling of an origin on the page: a robots version that applies on any scheme is
/// named by its host (`www.example.org`), the requests by their origin
/// (`http://www.example.org`); the page names a version by the origins of its requests.
#[derive(Debug, Default)]
pub struct Spelling<'s> {
    by_host: AHashMap<&'s str, Vec<&'s str>>,
}

impl<'s> Spelling<'s> {
    /// The spellings of the host-named versions of `state` (its origins are sorted, so the
    /// origins of a host are too).
    pub fn of(state: &'s State) -> Spelling<'s> {
        let hosts: AHashSet<&str> = state
            .robots
            .versions
            .iter()
            .map(|v| v.origin.as_str())
            .filter(|origin| !origin.contains("://"))
            .collect();
        let mut by_host: AHashMap<&str, Vec<&str>> = AHashMap::new();
        if !hosts.is_empty() {
            for origin in &state.origins {
                if let Some((_, host)) = origin.split_once("://")
                    && let Some(&host) = hosts.get(host)
                {
                    by_host.entry(host).or_default().push(origin);
                }
            }
        }
        Spelling { by_host }
    }

    /// `origin` as the page writes it: the request origins of a host, or the origin itself.
    pub fn spell(&self, origin: &str) -> String {
        match self.by_host.get(origin) {
            Some(origins) => origins.join(" "),
            None => origin.to_owned(),
        }
    }
}

/// The matrix of violation rates (agent_origins.csv's `violation_rate`) of the busiest origins
/// and bots.
pub fn matrix(view: &View<'_>) -> Table {
    let state = view.state;
    let mut by_origin = vec![0u64; state.origins.len()];
    let mut by_agent = vec![0u64; state.agents.len()];
    for (&(agent, origin), counts) in &view.totals.stats.pairs {
        if state.origin_name(origin).is_empty() {
            continue;
        }
        if let Some(n) = by_origin.get_mut(origin.index()) {
            *n = n.saturating_add(counts.requests);
        }
        if let Some(n) = by_agent.get_mut(agent.index()) {
            *n = n.saturating_add(counts.requests);
        }
    }
    let (origins, origins_total) = busiest(&by_origin, MATRIX_ORIGINS);
    let (bots, bots_total) = busiest(&by_agent, MATRIX_BOTS);
    let bot_ids: Vec<AgentId> = bots
        .iter()
        .filter_map(|&b| AgentId::from_index(b))
        .collect();
    let mut columns = vec!["origin"];
    columns.extend(bot_ids.iter().map(|&a| state.agent_name(a)));
    let mut table = Table::new("matrix-table", "data-origin", &columns);
    for origin in origins.iter().filter_map(|&o| OriginId::from_index(o)) {
        let name = state.origin_name(origin);
        let cells = bot_ids
            .iter()
            .map(
                |&agent| match view.totals.stats.pairs.get(&(agent, origin)) {
                    Some(c) => {
                        let violation_rate = rate(c.disallowed, c.judged());
                        let mut cell = Cell::new(state.agent_name(agent), &violation_rate);
                        if violation_rate.is_empty() {
                            cell.text = "-".into();
                            cell.numeric = true;
                        } else {
                            let value = c.disallowed as f64 / c.judged() as f64;
                            cell.shade = Some(format!("{:.2}", value.clamp(0.0, 1.0) * 0.85));
                        }
                        cell
                    }
                    None => Cell::new(state.agent_name(agent), ""),
                },
            )
            .collect();
        table.rows.push(Row {
            key: shown(name),
            head: Some(shown(name)),
            cells,
        });
    }
    table.capped = origins.len() < origins_total || bots.len() < bots_total;
    table.note = format!(
        "{} {}",
        cap_note(origins.len(), origins_total, "origins", "by requests"),
        cap_note(bots.len(), bots_total, "bots", "by requests")
    );
    table
}

/// The positions of the `cap` largest of `requests` (0 left out), largest first, and how many
/// were not 0.
fn busiest(requests: &[u64], cap: usize) -> (Vec<usize>, usize) {
    let (busiest, total) = top(
        requests.iter().enumerate().filter(|(_, n)| **n > 0),
        cap,
        |a, b| b.1.cmp(a.1).then(a.0.cmp(&b.0)),
    );
    (busiest.into_iter().map(|(at, _)| at).collect(), total)
}

/// The rules with the most violations (rules.csv's rows), the origin spelled as elsewhere.
pub fn most_violated_rules(view: &View<'_>, spelling: &Spelling<'_>) -> Table {
    let robots = &view.state.robots;
    let violated = view.totals.stats.rules.iter().filter(|(key, counts)| {
        counts.violations > 0 && key.version.index() < robots.versions.len()
    });
    let place = |key: &RuleKey| {
        let version = robots.version(key.version);
        (&version.origin, version.valid_from, key.rule)
    };
    let (shown_rules, total) = top(violated, TOP_RULES, |a, b| {
        b.1.violations
            .cmp(&a.1.violations)
            .then_with(|| place(a.0).cmp(&place(b.0)))
    });
    let columns = [
        "origin",
        "robots_version",
        "group",
        "line",
        "rule",
        "violations",
        "agents",
    ];
    let mut table = Table::new("rules-table", "data-rule", &columns);
    for (key, counts) in shown_rules {
        let version = robots.version(key.version);
        let (group, line, text) = rule_parts(&version.decides, key.rule);
        let label = version.label();
        let values = [
            spelling.spell(&version.origin),
            label.clone(),
            group,
            line.clone(),
            text,
            counts.violations.to_string(),
            rules::agents_cell(view, counts),
        ];
        let values: Vec<String> = values.into();
        table.push_picked(
            &format!("{}|{label}|{line}", version.origin),
            &columns,
            &values,
        );
    }
    table.noted(total, "violated rules", "by violations")
}

/// A rule's group, line and text as rules.csv writes them (a status rule has neither group nor
/// line).
fn rule_parts(
    decides: &Decides,
    rule: Option<robots_audit_engine::RuleId>,
) -> (String, String, String) {
    match (decides, rule) {
        (Decides::Rules(rules), Some(rule)) => rules
            .get(rule as usize)
            .map(|r| (r.group.clone(), r.line.to_string(), r.text.clone()))
            .unwrap_or_default(),
        (Decides::Status(status), None) => (String::new(), String::new(), status.clone()),
        _ => Default::default(),
    }
}

/// The crawl-rate rows with early requests (crawl_rate.csv's rows), most first.
pub fn crawl_rate(view: &View<'_>) -> Table {
    let header: Vec<&str> = crawl_rate::HEADER.split(',').collect();
    let state = view.state;
    let early = view
        .totals
        .stats
        .rates
        .iter()
        .map(|(key, counts)| (key, counts, counts.early_requests(key.delay_ms)))
        .filter(|(_, _, early)| *early > 0);
    let (rows, total) = top(early, TOP_FINDINGS, |a, b| {
        b.2.cmp(&a.2).then_with(|| {
            (
                state.agent_name(a.0.agent),
                state.origin_name(a.0.origin),
                a.0.delay_ms,
            )
                .cmp(&(
                    state.agent_name(b.0.agent),
                    state.origin_name(b.0.origin),
                    b.0.delay_ms,
                ))
        })
    });
    let mut table = Table::new("crawl-rate-table", "data-rate", &header);
    for (key, counts, _) in rows {
        let row = crawl_rate::row(view, key, counts);
        let id = format!("{}|{}|{}", row[0], row[1], row[2]);
        table.push_picked(&id, &header, &row);
    }
    table.noted(
        total,
        "bot, origin and delay rows with early requests",
        "by early requests",
    )
}

/// The bot and origin pairs with preference conflicts (agent_origins.csv's rows), most first.
pub fn preferences(view: &View<'_>) -> Table {
    let header: Vec<&str> = agent_origins::HEADER.split(',').collect();
    let state = view.state;
    let conflicted = view
        .totals
        .stats
        .pairs
        .iter()
        .filter(|(_, c)| c.preference_conflicts > 0);
    let name = |key: &(AgentId, OriginId)| (state.agent_name(key.0), state.origin_name(key.1));
    let (rows, total) = top(conflicted, TOP_FINDINGS, |a, b| {
        b.1.preference_conflicts
            .cmp(&a.1.preference_conflicts)
            .then_with(|| name(a.0).cmp(&name(b.0)))
    });
    let columns = ["agent", "origin", "allowed", "preference_conflicts"];
    let mut table = Table::new("preferences-table", "data-conflicts", &columns);
    for (&key, counts) in rows {
        let row = agent_origins::row(view, key, counts);
        table.push_picked(&format!("{}|{}", row[0], row[1]), &header, &row);
    }
    table.noted(total, "bot and origin pairs with conflicts", "by conflicts")
}

/// The requests of each origin that were not judged, over the bots (agent_origins.csv's
/// `unjudged` summed by origin).
pub fn unjudged_by_origin(view: &View<'_>, cap: usize) -> Table {
    let state = view.state;
    let mut by_origin: Vec<Counts> = vec![Counts::default(); state.origins.len()];
    for (&(_, origin), counts) in &view.totals.stats.pairs {
        if counts.unjudged == 0 {
            continue;
        }
        if let Some(total) = by_origin.get_mut(origin.index()) {
            total.requests = total.requests.saturating_add(counts.requests);
            total.unjudged = total.unjudged.saturating_add(counts.unjudged);
        }
    }
    let unjudged = by_origin.iter().enumerate().filter(|(_, c)| c.unjudged > 0);
    let (rows, total) = top(unjudged, cap, |a, b| {
        b.1.unjudged.cmp(&a.1.unjudged).then(a.0.cmp(&b.0))
    });
    let columns = ["origin", "requests", "unjudged"];
    let mut table = Table::new("unjudged-table", "data-unjudged", &columns);
    for (at, counts) in rows {
        let name = OriginId::from_index(at).map_or("", |o| state.origin_name(o));
        let values = vec![
            if name.is_empty() {
                "(no origin)".to_owned()
            } else {
                name.to_owned()
            },
            counts.requests.to_string(),
            counts.unjudged.to_string(),
        ];
        table.push_picked(name, &columns, &values);
    }
    table.noted(
        total,
        "origins with unjudged requests",
        "by unjudged requests",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_rows_come_first_and_the_total_counts_all() {
        let cases: [(&[u32], usize, &[u32], usize); 4] = [
            (&[3, 9, 1, 7], 2, &[9, 7], 4),
            (&[3, 9], 5, &[9, 3], 2),
            (&[], 3, &[], 0),
            (&[1, 2], 0, &[], 2),
        ];
        for (items, cap, want, total) in cases {
            let (got, n) = top(items.iter().copied(), cap, |a, b| b.cmp(a));
            assert_eq!(
                (got.as_slice(), n),
                (want, total),
                "{items:?} capped at {cap}"
            );
        }
    }
}
