//! Requests of the user-agent headers that were not identified as bots (`unknown_agents.csv`),
//! so that the catalog can be extended from what the logs really hold.
//!
//! Each worker thread keeps an [`UnknownAgents`] table and the tables are merged at the end.
//! While a run sees at most [`UnknownAgents::limit`] distinct such headers (by default
//! [`EXACT_LIMIT`]) the table is exact: its counts are sums, its times minima and maxima, its
//! sample the earliest request in input order, so the result depends neither on `--threads` nor
//! on how blocks were spread over threads. Past the limit the table becomes a bounded
//! heavy-hitters summary (Space-Saving, kept with a batch purge): memory stays bounded, every
//! count is at most [`UnknownAgents::max_error`] above the true count, and any header more
//! frequent than that is kept. docs/contract.md ("unknown_agents.csv") states the guarantee.
//!
//! The per-line cost is one index into a vector: the counting sink remembers each distinct
//! header's [`HeaderSlot`] by the key the identity cache gave it, and the header is hashed only
//! once per thread, table and distinct header (again after a purge renumbers the slots).

use ahash::AHashMap;

use super::checked::{CountError, add};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// How many distinct headers a run counts exactly.
pub const EXACT_LIMIT: usize = 100_000;

/// A header's position in one thread's [`UnknownAgents`], valid until the table is purged (the
/// generation tells).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderSlot {
    table: u32,
    generation: u32,
    index: u32,
}

/// Where a header was first seen: the earliest request in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstRequest {
    /// The input's position among the inputs.
    pub input: usize,
    /// The line number in that input.
    pub line: u64,
    /// The request's path (with its query) as the audit matches it.
    pub path: Box<[u8]>,
}

/// What was counted of one header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderCounts {
    /// Requests (an estimate, at most `error` too high, once the table is approximate).
    pub requests: u64,
    /// Requests for `/robots.txt`, within the same error as `requests`.
    pub robots_fetches: u64,
    /// How far above the true count `requests` may be (0 while exact).
    pub error: u64,
    /// Its earliest request time.
    pub first_seen: Option<Timestamp>,
    /// Its latest request time.
    pub last_seen: Option<Timestamp>,
    /// Its earliest request in input order.
    pub sample: Option<FirstRequest>,
}

impl HeaderCounts {
    fn merge(&mut self, other: HeaderCounts) -> Result<(), CountError> {
        self.requests = add(self.requests, other.requests)?;
        self.robots_fetches = add(self.robots_fetches, other.robots_fetches)?;
        self.error = add(self.error, other.error)?;
        self.first_seen = [self.first_seen, other.first_seen]
            .into_iter()
            .flatten()
            .min();
        self.last_seen = [self.last_seen, other.last_seen]
            .into_iter()
            .flatten()
            .max();
        if let Some(theirs) = other.sample {
            let earlier = self
                .sample
                .as_ref()
                .is_none_or(|ours| (theirs.input, theirs.line) < (ours.input, ours.line));
            if earlier {
                self.sample = Some(theirs);
            }
        }
        Ok(())
    }
}

/// Bytes as `state.json` keeps them: the text when they are UTF-8, else hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StateBytes {
    /// Valid UTF-8.
    Text(String),
    /// Anything else, in lower-case hex.
    Hex {
        /// The bytes in hex.
        hex: String,
    },
}

impl StateBytes {
    /// `bytes` as kept.
    pub fn of(bytes: &[u8]) -> StateBytes {
        match std::str::from_utf8(bytes) {
            Ok(text) => StateBytes::Text(text.to_owned()),
            Err(_) => StateBytes::Hex {
                hex: bytes.iter().map(|b| format!("{b:02x}")).collect(),
            },
        }
    }

    /// The bytes back; an error for hex that is not hex.
    // The error is the text of a state's inconsistency, which its callers put into the typed
    // error that names the report (`StateError::Inconsistent`, merge's invalid state).
    pub fn bytes(&self) -> Result<Vec<u8>, String> {
        match self {
            StateBytes::Text(text) => Ok(text.as_bytes().to_vec()),
            StateBytes::Hex { hex } => {
                let digits = hex.as_bytes();
                if digits.len() % 2 != 0 {
                    return Err(format!("{hex:?} is not hex"));
                }
                digits
                    .chunks(2)
                    .map(|pair| {
                        std::str::from_utf8(pair)
                            .ok()
                            .and_then(|p| u8::from_str_radix(p, 16).ok())
                            .ok_or_else(|| format!("{hex:?} is not hex"))
                    })
                    .collect()
            }
        }
    }
}

/// Where a header was first seen, as `state.json` keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleState {
    /// The input's position among the report's inputs.
    pub input: usize,
    /// The line number.
    pub line: u64,
    /// The path.
    pub path: StateBytes,
}

/// One header's counts, as `state.json` keeps them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderState {
    /// The header.
    pub header: StateBytes,
    /// Requests.
    pub requests: u64,
    /// Requests for `/robots.txt`.
    pub robots_fetches: u64,
    /// The most `requests` and `robots_fetches` may be too high.
    pub error: u64,
    /// Earliest request time.
    pub first_seen: Option<Timestamp>,
    /// Latest request time.
    pub last_seen: Option<Timestamp>,
    /// Earliest request in input order.
    pub sample: Option<SampleState>,
}

/// An [`UnknownAgents`] table as `state.json` keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnknownAgentsState {
    /// The limit of exact counting.
    pub limit: usize,
    /// The most requests a header missing from the table may have had.
    pub floor: u64,
    /// Whether the counts are estimates.
    pub approximate: bool,
    /// Every header held, sorted by its bytes.
    pub headers: Vec<HeaderState>,
}

/// Counts per distinct user-agent header (decoded bytes) of the requests that are not bots.
#[derive(Debug, Clone)]
pub struct UnknownAgents {
    /// Distinct headers counted exactly; also the summary's size once past it.
    limit: usize,
    /// The header of each slot's counts.
    slots: AHashMap<Box<[u8]>, u32>,
    /// By slot index.
    counts: Vec<HeaderCounts>,
    /// Which of a thread's tables this is (the audit keeps one per input): a slot of another
    /// table is never current here.
    table: u32,
    /// Bumped whenever slots are renumbered.
    generation: u32,
    /// The most requests a header missing from the table may have had (0 while exact).
    floor: u64,
    /// Whether more than `limit` distinct headers were seen.
    approximate: bool,
}

impl Default for UnknownAgents {
    fn default() -> UnknownAgents {
        UnknownAgents::new(EXACT_LIMIT)
    }
}

impl UnknownAgents {
    /// An empty table, exact up to `limit` distinct headers (at least 1).
    pub fn new(limit: usize) -> UnknownAgents {
        UnknownAgents {
            limit: limit.max(1),
            slots: AHashMap::new(),
            counts: Vec::new(),
            table: 0,
            generation: 0,
            floor: 0,
            approximate: false,
        }
    }

    /// The limit of exact counting.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether the counts are estimates: more than [`UnknownAgents::limit`] distinct headers
    /// were seen.
    pub fn is_approximate(&self) -> bool {
        self.approximate
    }

    /// How far above its true count any count may be (0 while exact).
    pub fn max_error(&self) -> u64 {
        self.floor
    }

    /// How many distinct headers the table holds.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether no header was counted.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Whether `slot` still points at the header it was given for.
    #[inline]
    pub fn is_current(&self, slot: HeaderSlot) -> bool {
        slot.generation == self.generation && slot.table == self.table
    }

    /// Names this table `table` among a thread's tables, so that slots of the others are not
    /// current here.
    pub fn set_table(&mut self, table: u32) {
        self.table = table;
    }

    /// The slot of `header`, made (with no request yet) when the table does not hold it. Making
    /// one in a full table first purges it, which renumbers the other slots.
    pub fn slot_of(&mut self, header: &[u8]) -> HeaderSlot {
        if let Some(&index) = self.slots.get(header) {
            return self.slot(index);
        }
        if self.counts.len() >= self.limit {
            self.approximate = true;
            self.keep_top(self.limit.div_ceil(2));
        }
        // A header that was purged may have had up to `floor` requests, any of them robots
        // fetches: it comes back with them, so that no count is ever below the truth.
        let index = u32::try_from(self.counts.len()).unwrap_or(u32::MAX);
        self.counts.push(HeaderCounts {
            requests: self.floor,
            robots_fetches: self.floor,
            error: self.floor,
            ..HeaderCounts::default()
        });
        self.slots.insert(header.into(), index);
        self.slot(index)
    }

    fn slot(&self, index: u32) -> HeaderSlot {
        HeaderSlot {
            table: self.table,
            generation: self.generation,
            index,
        }
    }

    /// Counts one request of the header in `slot` (which must be current), made at `time`,
    /// line `line` of input `input`, a robots.txt fetch or not; `path` gives its path, asked
    /// only when this request is the earliest in input order so far.
    #[inline]
    pub fn count(
        &mut self,
        slot: HeaderSlot,
        (time, robots_fetch): (Timestamp, bool),
        (input, line): (usize, u64),
        path: impl FnOnce() -> Box<[u8]>,
    ) {
        debug_assert!(self.is_current(slot));
        let Some(counts) = self.counts.get_mut(slot.index as usize) else {
            return;
        };
        counts.requests += 1;
        counts.robots_fetches += u64::from(robots_fetch);
        if counts.first_seen.is_none_or(|t| time < t) {
            counts.first_seen = Some(time);
        }
        if counts.last_seen.is_none_or(|t| time > t) {
            counts.last_seen = Some(time);
        }
        let earlier = counts
            .sample
            .as_ref()
            .is_none_or(|s| (input, line) < (s.input, s.line));
        if earlier {
            counts.sample = Some(FirstRequest {
                input,
                line,
                path: path(),
            });
        }
    }

    /// Adds `other` into `self`. Exact tables whose headers together number at most the limit
    /// merge exactly; otherwise each side's floor stands for the headers it no longer holds.
    /// `self` may be left part-added when a sum overflows.
    pub fn merge(&mut self, other: UnknownAgents) -> Result<(), CountError> {
        let (ours, theirs) = (self.floor, other.floor);
        let mut matched = vec![false; self.counts.len()];
        let mut others: Vec<Option<HeaderCounts>> = other.counts.into_iter().map(Some).collect();
        for (header, index) in other.slots {
            let Some(counts) = others.get_mut(index as usize).and_then(Option::take) else {
                continue;
            };
            match self.slots.get(&header) {
                Some(&mine) => {
                    matched[mine as usize] = true;
                    self.counts[mine as usize].merge(counts)?;
                }
                None => {
                    let mut counts = counts;
                    counts.requests = add(counts.requests, ours)?;
                    counts.robots_fetches = add(counts.robots_fetches, ours)?;
                    counts.error = add(counts.error, ours)?;
                    let index = u32::try_from(self.counts.len()).unwrap_or(u32::MAX);
                    self.counts.push(counts);
                    self.slots.insert(header, index);
                }
            }
        }
        for (counts, _) in self.counts.iter_mut().zip(&matched).filter(|(_, m)| !**m) {
            counts.requests = add(counts.requests, theirs)?;
            counts.robots_fetches = add(counts.robots_fetches, theirs)?;
            counts.error = add(counts.error, theirs)?;
        }
        self.floor = add(ours, theirs)?;
        self.approximate |= other.approximate;
        self.generation = self.generation.wrapping_add(1);
        if self.counts.len() > self.limit {
            self.approximate = true;
            self.keep_top(self.limit);
        }
        Ok(())
    }

    /// Keeps the `keep` headers with the most requests (ties: by header bytes), raising the
    /// floor to the most requests of a header dropped; renumbers the slots.
    fn keep_top(&mut self, keep: usize) {
        let mut all = self.drain();
        if all.len() > keep {
            all.select_nth_unstable_by(keep, by_rank);
            let dropped = all.split_off(keep);
            let most = dropped.iter().map(|(_, c)| c.requests).max().unwrap_or(0);
            self.floor = self.floor.max(most);
        }
        self.generation = self.generation.wrapping_add(1);
        for (header, counts) in all {
            let index = u32::try_from(self.counts.len()).unwrap_or(u32::MAX);
            self.counts.push(counts);
            self.slots.insert(header, index);
        }
    }

    /// Empties the table, returning each header with its counts.
    fn drain(&mut self) -> Vec<(Box<[u8]>, HeaderCounts)> {
        let mut counts: Vec<Option<HeaderCounts>> = std::mem::take(&mut self.counts)
            .into_iter()
            .map(Some)
            .collect();
        self.slots
            .drain()
            .filter_map(|(header, index)| {
                counts
                    .get_mut(index as usize)
                    .and_then(Option::take)
                    .map(|c| (header, c))
            })
            .collect()
    }

    /// The table as `state.json` keeps it: every header, sorted by its bytes.
    pub fn to_state(&self) -> UnknownAgentsState {
        let mut held: Vec<(&[u8], &HeaderCounts)> = self
            .slots
            .iter()
            .filter_map(|(header, &index)| {
                Some((header.as_ref(), self.counts.get(index as usize)?))
            })
            .collect();
        held.sort_unstable_by_key(|&(header, _)| header);
        let headers = held
            .into_iter()
            .map(|(header, counts)| HeaderState {
                header: StateBytes::of(header),
                requests: counts.requests,
                robots_fetches: counts.robots_fetches,
                error: counts.error,
                first_seen: counts.first_seen,
                last_seen: counts.last_seen,
                sample: counts.sample.as_ref().map(|s| SampleState {
                    input: s.input,
                    line: s.line,
                    path: StateBytes::of(&s.path),
                }),
            })
            .collect();
        UnknownAgentsState {
            limit: self.limit,
            floor: self.floor,
            approximate: self.approximate,
            headers,
        }
    }

    /// The table `state` describes, its samples' inputs renumbered by `input` (`merge`).
    // As for `bytes`: the error is the text of an inconsistency, for the caller's typed error
    // that names the report; `input` is the caller's own check, worded by it.
    pub fn from_state(
        state: &UnknownAgentsState,
        input: impl Fn(usize) -> Result<usize, String>,
    ) -> Result<UnknownAgents, String> {
        let mut table = UnknownAgents::new(state.limit);
        table.floor = state.floor;
        table.approximate = state.approximate;
        for h in &state.headers {
            let sample = match &h.sample {
                Some(s) => Some(FirstRequest {
                    input: input(s.input)?,
                    line: s.line,
                    path: s.path.bytes()?.into_boxed_slice(),
                }),
                None => None,
            };
            let index = u32::try_from(table.counts.len()).unwrap_or(u32::MAX);
            table.counts.push(HeaderCounts {
                requests: h.requests,
                robots_fetches: h.robots_fetches,
                error: h.error,
                first_seen: h.first_seen,
                last_seen: h.last_seen,
                sample,
            });
            if table
                .slots
                .insert(h.header.bytes()?.into_boxed_slice(), index)
                .is_some()
            {
                return Err("a user-agent header is listed twice in unknown_agents".into());
            }
        }
        Ok(table)
    }

    /// The `n` headers with the most requests, ties broken by header bytes (ascending), with
    /// their counts.
    pub fn top(&self, n: usize) -> Vec<(&[u8], &HeaderCounts)> {
        let mut all: Vec<(&[u8], &HeaderCounts)> = self
            .slots
            .iter()
            .filter_map(|(header, &index)| {
                self.counts
                    .get(index as usize)
                    .map(|c| (header.as_ref(), c))
            })
            .collect();
        let rank = |a: &(&[u8], &HeaderCounts), b: &(&[u8], &HeaderCounts)| {
            b.1.requests.cmp(&a.1.requests).then_with(|| a.0.cmp(b.0))
        };
        if all.len() > n {
            all.select_nth_unstable_by(n, rank);
            all.truncate(n);
        }
        all.sort_unstable_by(rank);
        all
    }
}

/// Most requests first, then by header bytes.
fn by_rank(a: &(Box<[u8]>, HeaderCounts), b: &(Box<[u8]>, HeaderCounts)) -> std::cmp::Ordering {
    b.1.requests.cmp(&a.1.requests).then_with(|| a.0.cmp(&b.0))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_table_reads_back_from_its_state_with_bytes_that_are_not_utf8() {
        let mut table = UnknownAgents::new(10);
        let time = Timestamp::from_second(100).unwrap();
        for (header, line) in [
            (&b"plain/1.0"[..], 3),
            (b"bad\xFF\xFEheader", 1),
            (b"plain/1.0", 2),
        ] {
            let slot = table.slot_of(header);
            table.count(slot, (time, line == 2), (0, line), || {
                b"/p\xC3".to_vec().into_boxed_slice()
            });
        }
        let state = table.to_state();
        // Sorted by bytes: "bad..." first.
        assert!(matches!(state.headers[0].header, StateBytes::Hex { .. }));
        assert!(matches!(state.headers[1].header, StateBytes::Text(_)));
        let json = serde_json::to_string(&state).unwrap();
        let back: UnknownAgentsState = serde_json::from_str(&json).unwrap();
        let table_back = UnknownAgents::from_state(&back, |i| Ok(i + 7)).unwrap();
        let top = table_back.top(10);
        assert_eq!(top[0].0, b"plain/1.0");
        assert_eq!((top[0].1.requests, top[0].1.robots_fetches), (2, 1));
        assert_eq!(
            top[0].1.sample.as_ref().map(|s| (s.input, s.line)),
            Some((7, 2))
        );
        assert_eq!(top[1].0, b"bad\xFF\xFEheader");
        assert!(StateBytes::Hex { hex: "zz".into() }.bytes().is_err());
    }

    fn t(second: i64) -> Timestamp {
        Timestamp::from_second(second).unwrap()
    }

    /// Whether the test event on `line` is a robots.txt fetch.
    fn fetch(line: u64) -> bool {
        line.is_multiple_of(3)
    }

    /// Counts `(header, time, input, line)` events into a table of `limit`.
    fn table(limit: usize, events: &[(u8, i64, usize, u64)]) -> UnknownAgents {
        let mut table = UnknownAgents::new(limit);
        for &(header, time, input, line) in events {
            let slot = table.slot_of(&[b'h', header]);
            table.count(slot, (t(time), fetch(line)), (input, line), || {
                format!("/{input}/{line}").into_bytes().into()
            });
        }
        table
    }

    type Row = (
        Vec<u8>,
        (u64, u64),
        Option<Timestamp>,
        Option<Timestamp>,
        Option<Vec<u8>>,
    );

    fn rows(table: &UnknownAgents) -> Vec<Row> {
        table
            .top(usize::MAX)
            .into_iter()
            .map(|(h, c)| {
                (
                    h.to_vec(),
                    (c.requests, c.robots_fetches),
                    c.first_seen,
                    c.last_seen,
                    c.sample.as_ref().map(|s| s.path.to_vec()),
                )
            })
            .collect()
    }

    /// The exact answer, computed the plain way: requests and robots fetches per header.
    fn truth(events: &[(u8, i64, usize, u64)]) -> BTreeMap<Vec<u8>, (u64, u64)> {
        let mut truth: BTreeMap<Vec<u8>, (u64, u64)> = BTreeMap::new();
        for &(header, _, _, line) in events {
            let counts = truth.entry(vec![b'h', header]).or_default();
            counts.0 += 1;
            counts.1 += u64::from(fetch(line));
        }
        truth
    }

    #[test]
    fn counts_times_and_the_earliest_request() {
        let table = table(
            10,
            &[(1, 50, 1, 3), (2, 10, 0, 9), (1, 20, 0, 7), (1, 90, 1, 1)],
        );
        assert_eq!(
            rows(&table),
            [
                (
                    b"h\x01".to_vec(),
                    (3, 1),
                    Some(t(20)),
                    Some(t(90)),
                    Some(b"/0/7".to_vec())
                ),
                (
                    b"h\x02".to_vec(),
                    (1, 1),
                    Some(t(10)),
                    Some(t(10)),
                    Some(b"/0/9".to_vec())
                ),
            ]
        );
        assert!(!table.is_approximate());
    }

    #[test]
    fn ties_are_ordered_by_header_bytes() {
        let table = table(
            10,
            &[(3, 0, 0, 1), (1, 0, 0, 2), (2, 0, 0, 3), (2, 0, 0, 4)],
        );
        let order: Vec<Vec<u8>> = table.top(3).into_iter().map(|(h, _)| h.to_vec()).collect();
        assert_eq!(
            order,
            [b"h\x02".to_vec(), b"h\x01".to_vec(), b"h\x03".to_vec()]
        );
        assert_eq!(table.top(1).len(), 1);
    }

    #[test]
    fn a_purge_renumbers_slots_and_keeps_the_heavy_hitters() {
        let mut table = UnknownAgents::new(4);
        let heavy = table.slot_of(b"heavy");
        for line in 0..100 {
            table.count(heavy, (t(0), true), (0, line), || Box::from(&b"/"[..]));
        }
        let mut stale = None;
        for light in 0u32..50 {
            let slot = table.slot_of(&light.to_le_bytes());
            stale.get_or_insert(slot);
            table.count(slot, (t(0), false), (0, 1000), || Box::from(&b"/"[..]));
        }
        assert!(table.is_approximate());
        assert!(!table.is_current(stale.unwrap()));
        assert!(table.len() <= 4);
        let top = table.top(1);
        assert_eq!(top[0].0, b"heavy");
        assert_eq!((top[0].1.requests, top[0].1.robots_fetches), (100, 100));
        assert!(table.max_error() >= 1);
    }

    proptest! {
        /// Below the limit, any split of the events over tables, merged in any order, gives the
        /// counts of one table over all of them.
        #[test]
        fn exact_tables_merge_exactly(
            events in prop::collection::vec((0u8..20, 0i64..100, 0usize..3, 0u64..50), 0..200),
            split in prop::collection::vec(0usize..3, 200),
        ) {
            let whole = table(20, &events);
            let mut parts: Vec<Vec<(u8, i64, usize, u64)>> = vec![Vec::new(); 3];
            for (event, &part) in events.iter().zip(&split) {
                parts[part].push(*event);
            }
            let mut merged = UnknownAgents::new(20);
            for part in parts.iter().rev() {
                merged.merge(table(20, part)).unwrap();
            }
            prop_assert!(!merged.is_approximate());
            prop_assert_eq!(rows(&merged), rows(&whole));
            let counted: BTreeMap<Vec<u8>, (u64, u64)> =
                rows(&whole).into_iter().map(|r| (r.0, r.1)).collect();
            prop_assert_eq!(counted, truth(&events));
        }

        /// Past the limit, split over threads or not: every count is at least the true one
        /// and at most `max_error` above it, memory stays within the limit, and every header
        /// more frequent than `max_error` is kept.
        #[test]
        fn the_summary_bounds_every_count(
            events in prop::collection::vec((0u8..40, 0i64..100, 0usize..2, 0u64..50), 0..400),
            split in prop::collection::vec(0usize..2, 400),
            limit in 2usize..12,
        ) {
            let mut parts: Vec<Vec<(u8, i64, usize, u64)>> = vec![Vec::new(); 2];
            for (event, &part) in events.iter().zip(&split) {
                parts[part].push(*event);
            }
            let mut merged = table(limit, &parts[0]);
            merged.merge(table(limit, &parts[1])).unwrap();
            let truth = truth(&events);
            prop_assert!(merged.len() <= limit);
            let kept: BTreeMap<Vec<u8>, (u64, u64, u64)> = merged
                .top(usize::MAX)
                .into_iter()
                .map(|(h, c)| (h.to_vec(), (c.requests, c.robots_fetches, c.error)))
                .collect();
            for (header, &(requests, fetches, error)) in &kept {
                let (real, real_fetches) = truth[header];
                prop_assert!(requests >= real && requests - error <= real);
                prop_assert!(fetches >= real_fetches && fetches - error <= real_fetches);
                prop_assert!(error <= merged.max_error());
            }
            for (header, &(real, _)) in &truth {
                if real > merged.max_error() {
                    prop_assert!(kept.contains_key(header), "{header:?} x{real} dropped");
                }
            }
            if truth.len() > limit {
                prop_assert!(merged.is_approximate());
            }
        }
    }
}
