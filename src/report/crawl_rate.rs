//! `crawl_rate.csv`: one row per agent, origin and crawl delay in force, sorted by agent,
//! origin, then delay (docs/contract.md, "crawl_rate.csv").

use std::io;
use std::path::Path;

use jiff::Timestamp;

use super::{View, files, rate, time, write_csv};
use crate::audit::rate::{RateCounts, RateKey};

/// The header of `crawl_rate.csv`: the contract's columns (docs/contract.md), then `exact`.
pub const HEADER: &str = "agent,origin,crawl_delay,honours_crawl_delay,requests,early_requests,early_rate,busiest_minute,busiest_minute_requests,allowed_per_minute,exact";

/// A delay in milliseconds as seconds, without trailing zeros: `10`, `0.5`, `2.25`.
pub fn seconds(delay_ms: u32) -> String {
    let whole = delay_ms / 1000;
    let fraction = delay_ms % 1000;
    if fraction == 0 {
        return whole.to_string();
    }
    let digits = format!("{fraction:03}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// `60 / delay` with 4 decimals: the requests a minute that keep the delay; empty for a delay
/// of 0, which allows any number.
pub fn allowed_per_minute(delay_ms: u32) -> String {
    if delay_ms == 0 {
        return String::new();
    }
    format!("{:.4}", 60_000.0 / f64::from(delay_ms))
}

/// One agent, origin and delay's row of `crawl_rate.csv`, in [`HEADER`]'s order.
pub fn row(view: &View<'_>, key: &RateKey, counts: &RateCounts) -> [String; 11] {
    let honours = view
        .state
        .agents
        .get(key.agent.index())
        .is_some_and(|agent| agent.honours_crawl_delay);
    let requests = counts.requests();
    let early = counts.early_requests(key.delay_ms);
    let busiest = counts.busiest_minute();
    [
        view.state.agent_name(key.agent).to_owned(),
        view.state.origin_name(key.origin).to_owned(),
        seconds(key.delay_ms),
        honours.to_string(),
        requests.to_string(),
        early.to_string(),
        rate(early, requests),
        time(busiest.and_then(|(minute, _)| Timestamp::from_second(minute).ok())),
        busiest.map(|(_, n)| n.to_string()).unwrap_or_default(),
        allowed_per_minute(key.delay_ms),
        counts.is_exact().to_string(),
    ]
}

/// Writes `crawl_rate.csv` into `dir`.
pub fn write(dir: &Path, view: &View<'_>) -> io::Result<()> {
    let mut keys: Vec<_> = view.totals.stats.rates.iter().collect();
    keys.sort_by(|(a, _), (b, _)| {
        (
            view.state.agent_name(a.agent),
            view.state.origin_name(a.origin),
            a.delay_ms,
        )
            .cmp(&(
                view.state.agent_name(b.agent),
                view.state.origin_name(b.origin),
                b.delay_ms,
            ))
    });
    let rows = keys.into_iter().map(|(key, counts)| row(view, key, counts));
    write_csv(dir, files::CRAWL_RATE, HEADER, view.raw_csv(), rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_are_written_in_seconds() {
        let cases = [
            (10_000, "10", "6.0000"),
            (500, "0.5", "120.0000"),
            (2_250, "2.25", "26.6667"),
            (1_001, "1.001", "59.9401"),
            (0, "0", ""),
        ];
        for (ms, text, per_minute) in cases {
            assert_eq!(seconds(ms), text);
            assert_eq!(allowed_per_minute(ms), per_minute);
        }
    }
}
