//! Mergeable crawl-rate counters: what `crawl_rate.csv` shows (docs/contract.md, "crawl_rate.csv").
//!
//! For each (agent, origin, delay in force) the audit keeps how many requests fell in each
//! second, never a list of request times, so counts from files read in parallel, or from nights
//! audited apart, add up to what one run over everything counts. `early_requests` is computed
//! at the end from the merged histogram: within one second every request but the first is early
//! (when the delay is above zero); the first request of a second is early when the previous
//! non-empty second is less than the delay before it.
//!
//! Memory is bounded twice, and never grows with lines. Each minute with a request holds one
//! entry of 16 bytes: the minute, and one word with a 60-bit mask of its non-empty seconds and
//! the count of its requests beyond one per such second, up to 14. A minute with more of them
//! keeps their count in a second list, 16 bytes more, so an entry costs at most 32 bytes.
//! Per key, past [`MAX_ENTRIES`] distinct buckets the key is coarsened to hours, then days, then
//! one bucket (counts only). Over all keys, a [`Rates`] is charged each key's entries, or
//! [`MAX_ENTRIES`] for a key its own cap coarsened; past [`BUDGET`] the floor under every key
//! rises to hours, then days, then one bucket, so a hostile robots.txt with a delay for every bot
//! on many origins costs at most [`BUDGET`] entries plus one per key. A coarsened key's early
//! count is a lower bound (`exact=false` in the report).
//!
//! Both levels are functions of the counted times alone, and only rise as times are added: a
//! key's own level is the finest at which its distinct buckets fit the cap; the floor is the
//! finest level at which the sum over keys of min(distinct buckets, cap) fits the budget. So a
//! part of the data never sits coarser than the whole, and merging (take the coarser levels, add
//! the buckets, refit) gives what one count over everything gives, in any order.
//!
//! Invariant: `kept` is sorted by bucket, without duplicates or zero counts, and holds at most
//! [`MAX_ENTRIES`] entries; masks are empty above level 0; at level 0 `spilled` holds, in the
//! same order, the count of every minute marked as spilled, each above what a word counts, and
//! above level 0 it is empty; every key of a [`Rates`] sits at its floor or above, and the
//! charge fits the budget unless the floor is the last level.
//! `state.json` keeps the counts (each entry as `[bucket, seconds mask, requests]`) and the
//! floor, and reading them back checks this invariant, so a damaged state is refused rather than
//! summed.

use serde::{Deserialize, Serialize};

use super::checked::{CountError, add};
use crate::ids::{AgentId, IdHashMap, OriginId};

/// The most entries one (agent, origin, delay) keeps: 64 KiB (128 KiB at most, see the module
/// doc), about three days of requests in every minute.
pub const MAX_ENTRIES: usize = 4096;

/// The most entries a [`Rates`] is charged for over all its keys: 64 MiB (128 MiB at most), 2,912
/// keys with a request in every minute of a day, so a night of 30 bots busy on 50 origins stays
/// exact.
pub const BUDGET: usize = 1 << 22;

/// The bucket width of each level in seconds: minutes (with their seconds' mask), hours, days;
/// the last level is one bucket for all time.
const WIDTHS: [i64; 3] = [60, 3600, 86_400];

/// The levels: minutes, hours, days, and one bucket.
const LEVELS: u8 = 4;

/// An agent on an origin under one crawl delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "(AgentId, OriginId, u32)", into = "(AgentId, OriginId, u32)")]
pub struct RateKey {
    /// The agent.
    pub agent: AgentId,
    /// The origin.
    pub origin: OriginId,
    /// The crawl delay in force, in milliseconds.
    pub delay_ms: u32,
}

impl From<(AgentId, OriginId, u32)> for RateKey {
    fn from((agent, origin, delay_ms): (AgentId, OriginId, u32)) -> RateKey {
        RateKey {
            agent,
            origin,
            delay_ms,
        }
    }
}

impl From<RateKey> for (AgentId, OriginId, u32) {
    fn from(key: RateKey) -> (AgentId, OriginId, u32) {
        (key.agent, key.origin, key.delay_ms)
    }
}

/// One bucket as `state.json` holds it and the counts are read: at level 0 a minute, with bit
/// `s` of `seconds` set when second `s` of it has a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "(i64, u64, u64)", into = "(i64, u64, u64)")]
struct Entry {
    bucket: i64,
    seconds: u64,
    requests: u64,
}

impl From<(i64, u64, u64)> for Entry {
    fn from((bucket, seconds, requests): (i64, u64, u64)) -> Entry {
        Entry {
            bucket,
            seconds,
            requests,
        }
    }
}

impl From<Entry> for (i64, u64, u64) {
    fn from(entry: Entry) -> (i64, u64, u64) {
        (entry.bucket, entry.seconds, entry.requests)
    }
}

/// The bits of a minute's [`Kept::word`] that mark its seconds with a request.
const SECONDS: u64 = (1 << 60) - 1;

/// Where a minute's [`Kept::word`] counts its requests beyond one per second with a request.
const EXTRA_SHIFT: u32 = 60;

/// The most requests beyond one per second that a minute's word counts itself.
const INLINE_EXTRA: u64 = 14;

/// The extra field of a minute whose extra requests are in [`RateCounts::spilled`].
const SPILLED: u64 = 15;

/// An [`Entry`] as a key keeps it, in 16 bytes where the entry takes 24. At level 0 `word`
/// holds the minute's seconds ([`SECONDS`]) and, above them, its requests beyond one per such
/// second, up to [`INLINE_EXTRA`], or [`SPILLED`]; above level 0 `word` is the bucket's requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kept {
    bucket: i64,
    word: u64,
}

/// The requests beyond one per second of a minute with more than [`INLINE_EXTRA`] of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Spilled {
    bucket: i64,
    extra: u64,
}

/// Requests per time bucket of one [`RateKey`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "UncheckedCounts", into = "UncheckedCounts")]
pub struct RateCounts {
    /// 0: minutes with seconds (exact), 1: hours, 2: days, 3: one bucket.
    level: u8,
    /// The buckets, packed.
    kept: Vec<Kept>,
    /// At level 0, the extra requests of each minute marked [`SPILLED`], in the same order;
    /// empty above level 0.
    spilled: Vec<Spilled>,
}

/// [`RateCounts`] as `state.json` holds it, `[level, entries]`; as read, before the module's
/// invariant is checked.
#[derive(Serialize, Deserialize)]
struct UncheckedCounts(u8, Vec<Entry>);

impl From<RateCounts> for UncheckedCounts {
    fn from(counts: RateCounts) -> UncheckedCounts {
        UncheckedCounts(counts.level, counts.entry_list().collect())
    }
}

// serde's `try_from` reports the error through `Display` as the reason the state does not read,
// so a message is all it needs.
impl TryFrom<UncheckedCounts> for RateCounts {
    type Error = String;

    fn try_from(counts: UncheckedCounts) -> Result<RateCounts, String> {
        let UncheckedCounts(level, entries) = counts;
        if level >= LEVELS {
            return Err(format!("crawl-rate level {level} is not below {LEVELS}"));
        }
        if entries.is_empty() {
            return Err("crawl-rate counts without a request".into());
        }
        if entries.len() > MAX_ENTRIES {
            return Err(format!(
                "{} crawl-rate entries, more than {MAX_ENTRIES}",
                entries.len()
            ));
        }
        if entries
            .iter()
            .try_fold(0u64, |sum, e| sum.checked_add(e.requests))
            .is_none()
        {
            return Err(format!("crawl-rate requests past {}", u64::MAX));
        }
        if entries.windows(2).any(|w| w[0].bucket >= w[1].bucket) {
            return Err("crawl-rate entries not sorted by bucket, or repeated".into());
        }
        for entry in &entries {
            let seconds_valid = if level == 0 {
                entry.seconds != 0 && entry.seconds <= SECONDS
            } else {
                entry.seconds == 0
            };
            if !seconds_valid {
                return Err(format!(
                    "crawl-rate bucket {} has the seconds mask {:#x} at level {level}",
                    entry.bucket, entry.seconds
                ));
            }
            if entry.requests < u64::from(entry.seconds.count_ones()) || entry.requests == 0 {
                return Err(format!(
                    "crawl-rate bucket {} counts {} requests, fewer than its seconds",
                    entry.bucket, entry.requests
                ));
            }
            if level + 1 == LEVELS && entry.bucket != 0 {
                return Err(format!(
                    "crawl-rate bucket {} at the last level, where the only bucket is 0",
                    entry.bucket
                ));
            }
        }
        let mut out = RateCounts::at(level);
        out.kept.reserve_exact(entries.len());
        for entry in entries {
            out.push_entry(entry);
        }
        Ok(out)
    }
}

fn bucket_of(second: i64, level: u8) -> i64 {
    match WIDTHS.get(usize::from(level)) {
        Some(width) => second.div_euclid(*width),
        None => 0,
    }
}

/// The bucket at `to` of a bucket at the finer level `from`.
fn rebucket(bucket: i64, from: u8, to: u8) -> i64 {
    match (WIDTHS.get(usize::from(from)), WIDTHS.get(usize::from(to))) {
        (Some(from), Some(to)) => bucket.saturating_mul(*from).div_euclid(*to),
        _ => 0,
    }
}

impl RateCounts {
    /// No request yet, at `level`: a new key of a [`Rates`] starts at its floor.
    fn at(level: u8) -> RateCounts {
        RateCounts {
            level,
            kept: Vec::new(),
            spilled: Vec::new(),
        }
    }

    /// The entries in bucket order.
    fn entry_list(&self) -> impl Iterator<Item = Entry> + '_ {
        let level = self.level;
        let mut spilled = self.spilled.iter();
        self.kept.iter().map(move |kept| {
            if level > 0 {
                return Entry {
                    bucket: kept.bucket,
                    seconds: 0,
                    requests: kept.word,
                };
            }
            let seconds = kept.word & SECONDS;
            let extra = match kept.word >> EXTRA_SHIFT {
                SPILLED => spilled.next().map_or(0, |s| s.extra),
                inline => inline,
            };
            Entry {
                bucket: kept.bucket,
                seconds,
                requests: u64::from(seconds.count_ones()).saturating_add(extra),
            }
        })
    }

    /// Appends `entry`, which comes after every bucket kept, at this level.
    fn push_entry(&mut self, entry: Entry) {
        if self.level > 0 {
            self.kept.push(Kept {
                bucket: entry.bucket,
                word: entry.requests,
            });
            return;
        }
        let seconds = entry.seconds & SECONDS;
        let extra = entry
            .requests
            .saturating_sub(u64::from(seconds.count_ones()));
        let field = if extra > INLINE_EXTRA {
            self.spilled.push(Spilled {
                bucket: entry.bucket,
                extra,
            });
            SPILLED
        } else {
            extra
        };
        self.kept.push(Kept {
            bucket: entry.bucket,
            word: seconds | (field << EXTRA_SHIFT),
        });
    }

    /// Where `bucket` is kept, or where it would go.
    #[inline]
    fn find(&self, bucket: i64) -> Result<usize, usize> {
        match self.kept.last() {
            Some(last) if last.bucket == bucket => Ok(self.kept.len() - 1),
            Some(last) if last.bucket < bucket => Err(self.kept.len()),
            None => Err(0),
            Some(_) => self.kept.binary_search_by_key(&bucket, |k| k.bucket),
        }
    }

    /// Counts one request at `second` (seconds since the epoch).
    #[inline]
    pub fn record(&mut self, second: i64) {
        let bucket = bucket_of(second, self.level);
        // A new minute's word: its second; a new coarser bucket's: one request.
        let word = if self.level == 0 {
            1u64 << second.rem_euclid(60)
        } else {
            1
        };
        let exact = self.level == 0;
        match self.find(bucket) {
            Ok(at) => match self.kept.get_mut(at) {
                Some(kept) if !exact => kept.word = kept.word.saturating_add(1),
                Some(kept) if kept.word & word == 0 => kept.word |= word,
                Some(_) => self.add_extra(at),
                None => {}
            },
            Err(at) => {
                self.make_room();
                self.kept.insert(at, Kept { bucket, word });
                self.fit();
            }
        }
    }

    /// Counts one more request in a second of minute `kept[at]` that has one already.
    fn add_extra(&mut self, at: usize) {
        let Some(kept) = self.kept.get_mut(at) else {
            return;
        };
        let bucket = kept.bucket;
        match kept.word >> EXTRA_SHIFT {
            SPILLED => {
                let found = match self.spilled.last() {
                    Some(last) if last.bucket == bucket => Ok(self.spilled.len() - 1),
                    _ => self.spilled.binary_search_by_key(&bucket, |s| s.bucket),
                };
                if let Some(spilled) = found.ok().and_then(|i| self.spilled.get_mut(i)) {
                    spilled.extra = spilled.extra.saturating_add(1);
                }
            }
            INLINE_EXTRA => {
                kept.word = (kept.word & SECONDS) | (SPILLED << EXTRA_SHIFT);
                let at = self.spilled.partition_point(|s| s.bucket < bucket);
                self.spilled.insert(
                    at,
                    Spilled {
                        bucket,
                        extra: INLINE_EXTRA + 1,
                    },
                );
            }
            _ => kept.word += 1 << EXTRA_SHIFT,
        }
    }

    /// Room for one more bucket, growing by a quarter rather than doubling: a key gains a
    /// bucket once a minute at most, so the copies cost little, and the memory a thread holds
    /// for its counts stays within a quarter of what they need.
    fn make_room(&mut self) {
        let len = self.kept.len();
        if len == self.kept.capacity() {
            self.kept.reserve_exact((len / 4).max(4));
        }
    }

    /// Adds `other` into `self`. The requests of both fit in a `u64` (checked first), so no
    /// bucket's sum can overflow. Taking `other` by value lets counts with nothing yet take its
    /// buckets as they are, so folding the threads' counts copies no key that one thread alone
    /// saw.
    pub fn merge(&mut self, mut other: RateCounts) -> Result<(), CountError> {
        add(self.requests(), other.requests())?;
        let level = self.level.max(other.level);
        self.coarsen_to(level);
        other.coarsen_to(level);
        if other.kept.is_empty() {
            return Ok(());
        }
        if self.kept.is_empty() {
            *self = other;
            return Ok(());
        }
        *self = self.merged_with(&other);
        self.fit();
        Ok(())
    }

    /// The buckets of `self` and `theirs`, both at the same level, added.
    fn merged_with(&self, theirs: &RateCounts) -> RateCounts {
        let mut merged = RateCounts::at(self.level);
        merged
            .kept
            .reserve_exact(self.kept.len() + theirs.kept.len());
        let (mut a, mut b) = (self.entry_list().peekable(), theirs.entry_list().peekable());
        loop {
            let next = match (a.peek().copied(), b.peek().copied()) {
                (Some(x), Some(y)) if x.bucket == y.bucket => {
                    a.next();
                    b.next();
                    Entry {
                        bucket: x.bucket,
                        seconds: x.seconds | y.seconds,
                        requests: x.requests.saturating_add(y.requests),
                    }
                }
                (Some(x), Some(y)) if x.bucket < y.bucket => {
                    a.next();
                    x
                }
                (_, Some(y)) => {
                    b.next();
                    y
                }
                (Some(x), None) => {
                    a.next();
                    x
                }
                (None, None) => break,
            };
            merged.push_entry(next);
        }
        merged
    }

    /// Coarsens while the buckets exceed [`MAX_ENTRIES`].
    fn fit(&mut self) {
        while self.kept.len() > MAX_ENTRIES && self.level + 1 < LEVELS {
            self.coarsen_to(self.level + 1);
        }
    }

    fn coarsen_to(&mut self, level: u8) {
        if level <= self.level {
            return;
        }
        let from = self.level;
        let mut coarse = RateCounts::at(level);
        coarse.kept.reserve_exact(self.kept.len());
        for entry in self.entry_list() {
            let bucket = rebucket(entry.bucket, from, level);
            match coarse.kept.last_mut() {
                Some(last) if last.bucket == bucket => {
                    last.word = last.word.saturating_add(entry.requests);
                }
                _ => coarse.kept.push(Kept {
                    bucket,
                    word: entry.requests,
                }),
            }
        }
        *self = coarse;
    }

    /// Every request counted (a sum that fits: reading and merging check it).
    pub fn requests(&self) -> u64 {
        self.entry_list()
            .fold(0u64, |sum, e| sum.saturating_add(e.requests))
    }

    /// Whether the counts still know every second, so [`RateCounts::early_requests`] is exact.
    pub fn is_exact(&self) -> bool {
        self.level == 0
    }

    /// How many buckets are kept (for the memory bound).
    pub fn entries(&self) -> usize {
        self.kept.len()
    }

    /// Requests less than `delay_ms` after the previous one (at whole-second resolution):
    /// within a second all but the first, and the first of a second when the previous non-empty
    /// second is closer than the delay. Exact while [`RateCounts::is_exact`]; otherwise a lower
    /// bound: in a bucket of `w` seconds at most `(w - 1) / ceil(delay) + 1` requests can keep
    /// the delay.
    pub fn early_requests(&self, delay_ms: u32) -> u64 {
        if delay_ms == 0 {
            return 0;
        }
        if self.level == 0 {
            let mut early = 0;
            let mut previous: Option<i64> = None;
            for entry in self.entry_list() {
                let distinct = u64::from(entry.seconds.count_ones());
                early += entry.requests - distinct;
                let mut mask = entry.seconds;
                while mask != 0 {
                    let second = entry
                        .bucket
                        .saturating_mul(60)
                        .saturating_add(i64::from(mask.trailing_zeros()));
                    mask &= mask - 1;
                    if let Some(previous) = previous
                        && second.saturating_sub(previous).saturating_mul(1000)
                            < i64::from(delay_ms)
                    {
                        early += 1;
                    }
                    previous = Some(second);
                }
            }
            return early;
        }
        match WIDTHS.get(usize::from(self.level)) {
            Some(&width) => {
                let step = i64::from(delay_ms.div_ceil(1000)).max(1);
                let keep = u64::try_from((width - 1) / step + 1).unwrap_or(u64::MAX);
                self.entry_list()
                    .map(|e| e.requests.saturating_sub(keep))
                    .sum()
            }
            None => 0,
        }
    }

    /// The minute (seconds since the epoch of its start) with the most requests, the earliest
    /// among equal ones, and its requests; `None` when the counts are coarser than minutes.
    pub fn busiest_minute(&self) -> Option<(i64, u64)> {
        if self.level != 0 {
            return None;
        }
        let mut best: Option<(i64, u64)> = None;
        for entry in self.entry_list() {
            if best.is_none_or(|(_, most)| entry.requests > most) {
                best = Some((entry.bucket, entry.requests));
            }
        }
        best.map(|(minute, count)| (minute.saturating_mul(60), count))
    }
}

/// What a key at `level` with `entries` is charged under `floor`: its entries at the floor, or
/// [`MAX_ENTRIES`] when its own cap coarsened it above the floor (then its distinct buckets at
/// the floor, unknown now, are more than the cap). Summed over keys, this only grows as times
/// are added.
fn charge(level: u8, entries: usize, floor: u8) -> usize {
    if level > floor { MAX_ENTRIES } else { entries }
}

/// Every key's counts, of a run or of one thread's share of it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "UncheckedRates")]
pub struct Rates {
    /// Per agent, origin and delay.
    #[serde(with = "super::entries")]
    keys: IdHashMap<RateKey, RateCounts>,
    /// The level no key sits below.
    floor: u8,
    /// Entries charged over all keys (see [`charge`]).
    #[serde(skip)]
    charged: usize,
    /// The most entries charged before the floor rises: [`BUDGET`] but in tests.
    #[serde(skip)]
    budget: usize,
}

/// Equal when they count the same: the budget is how they were kept, not what they count.
impl PartialEq for Rates {
    fn eq(&self, other: &Rates) -> bool {
        self.floor == other.floor && self.keys == other.keys
    }
}

impl Eq for Rates {}

impl Default for Rates {
    fn default() -> Rates {
        Rates::with_budget(BUDGET)
    }
}

/// [`Rates`] as read, before the module's invariant is checked.
#[derive(Deserialize)]
struct UncheckedRates {
    #[serde(with = "super::entries")]
    keys: IdHashMap<RateKey, RateCounts>,
    floor: u8,
}

// As for `RateCounts`: serde reports the message as the reason the state does not read.
impl TryFrom<UncheckedRates> for Rates {
    type Error = String;

    fn try_from(rates: UncheckedRates) -> Result<Rates, String> {
        let UncheckedRates { keys, floor } = rates;
        if floor >= LEVELS {
            return Err(format!("crawl-rate floor {floor} is not below {LEVELS}"));
        }
        if let Some(counts) = keys.values().find(|counts| counts.level < floor) {
            return Err(format!(
                "crawl-rate counts at level {} below the floor {floor}",
                counts.level
            ));
        }
        let mut out = Rates {
            keys,
            floor,
            ..Rates::default()
        };
        out.charged = out.recharge();
        if out.charged > out.budget && floor + 1 < LEVELS {
            return Err(format!(
                "crawl-rate counts charge {} entries at floor {floor}, more than {}",
                out.charged, out.budget
            ));
        }
        Ok(out)
    }
}

impl Rates {
    /// Empty counts whose floor rises past `budget` entries charged.
    fn with_budget(budget: usize) -> Rates {
        Rates {
            keys: IdHashMap::default(),
            floor: 0,
            charged: 0,
            budget,
        }
    }

    /// Each key and its counts, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (&RateKey, &RateCounts)> {
        self.keys.iter()
    }

    /// How many keys were counted.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    fn recharge(&self) -> usize {
        self.keys
            .values()
            .map(|counts| charge(counts.level, counts.entries(), self.floor))
            .sum()
    }

    /// Lifts the floor to `floor` and every key to it at least.
    fn raise_floor(&mut self, floor: u8) {
        self.floor = floor;
        for counts in self.keys.values_mut() {
            counts.coarsen_to(floor);
        }
    }

    /// Counts one request of `key` at `second`.
    #[inline]
    pub fn record(&mut self, key: RateKey, second: i64) {
        let floor = self.floor;
        let counts = self
            .keys
            .entry(key)
            .or_insert_with(|| RateCounts::at(floor));
        let before = (counts.level, counts.entries());
        counts.record(second);
        let after = (counts.level, counts.entries());
        if before != after {
            self.charged =
                self.charged - charge(before.0, before.1, floor) + charge(after.0, after.1, floor);
            self.fit();
        }
    }

    /// Raises the floor while the charge exceeds the budget.
    fn fit(&mut self) {
        while self.charged > self.budget && self.floor + 1 < LEVELS {
            self.raise_floor(self.floor + 1);
            self.charged = self.recharge();
        }
    }

    /// Adds `other` into `self`, taking the counts of keys `self` lacks as they are.
    pub fn merge(&mut self, other: Rates) -> Result<(), CountError> {
        if other.floor > self.floor {
            self.raise_floor(other.floor);
        }
        let floor = self.floor;
        for (key, counts) in other.keys {
            let mine = self
                .keys
                .entry(key)
                .or_insert_with(|| RateCounts::at(floor));
            mine.merge(counts)?;
            mine.coarsen_to(floor);
        }
        self.charged = self.recharge();
        self.fit();
        Ok(())
    }

    /// The same counts under other keys (`merge` renumbering agents and origins): counts of
    /// keys that map to one key are merged, and the counts of a key alone under its new key move
    /// as they are. Stops at the first key `f` refuses.
    pub fn map_keys(
        self,
        f: impl Fn(RateKey) -> Result<RateKey, CountError>,
    ) -> Result<Rates, CountError> {
        let mut out = Rates::with_budget(self.budget);
        out.floor = self.floor;
        for (key, counts) in self.keys {
            let mapped = out
                .keys
                .entry(f(key)?)
                .or_insert_with(|| RateCounts::at(self.floor));
            mapped.merge(counts)?;
        }
        out.charged = out.recharge();
        out.fit();
        Ok(out)
    }

    /// Entries kept over all keys: at most [`BUDGET`] plus one per key.
    pub fn entries(&self) -> usize {
        self.keys.values().map(RateCounts::entries).sum()
    }

    /// The level no key sits below: 0 while every key may still be exact.
    pub fn floor(&self) -> u8 {
        self.floor
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn counts(seconds: &[i64]) -> RateCounts {
        let mut c = RateCounts::default();
        for &s in seconds {
            c.record(s);
        }
        c
    }

    /// The key of `agent` on `origin` under a delay of `delay_ms`.
    fn key(agent: usize, origin: usize, delay_ms: u32) -> RateKey {
        RateKey {
            agent: AgentId::from_index(agent).unwrap(),
            origin: OriginId::from_index(origin).unwrap(),
            delay_ms,
        }
    }

    /// Early requests by the definition, from the sorted request times.
    fn early_by_definition(seconds: &[i64], delay_ms: u32) -> u64 {
        let mut sorted = seconds.to_vec();
        sorted.sort_unstable();
        let mut early = 0;
        for pair in sorted.windows(2) {
            let gap = pair[1] - pair[0];
            // Same second: the real gap is below one second, under any delay above zero.
            if delay_ms > 0 && (gap == 0 || gap * 1000 < i64::from(delay_ms)) {
                early += 1;
            }
        }
        early
    }

    #[test]
    fn early_requests_by_hand() {
        // (times, delay ms, early)
        let cases: [(&[i64], u32, u64); 8] = [
            (&[0, 10, 20], 10_000, 0),
            (&[0, 9, 20], 10_000, 1),
            (&[0, 0, 0], 10_000, 2),
            (&[0, 0, 0], 0, 0),
            (&[0, 1], 500, 0),
            (&[0, 0], 500, 1),
            (&[0, 1, 2], 1_500, 2),
            (&[30, 0, 5, 5, 16], 10_000, 2),
        ];
        for (times, delay, early) in cases {
            assert_eq!(
                counts(times).early_requests(delay),
                early,
                "{times:?} {delay}"
            );
            assert_eq!(
                early_by_definition(times, delay),
                early,
                "{times:?} {delay}"
            );
        }
    }

    #[test]
    fn busiest_minute_is_the_earliest_of_the_fullest() {
        let c = counts(&[0, 1, 60, 61, 125, 126, 127, 200]);
        assert_eq!(c.busiest_minute(), Some((120, 3)));
        let c = counts(&[0, 1, 60, 61]);
        assert_eq!(c.busiest_minute(), Some((0, 2)));
        let c = counts(&[-1, -1, 5]);
        assert_eq!(c.busiest_minute(), Some((-60, 2)));
        assert_eq!(c.early_requests(10_000), 2);
        assert_eq!(RateCounts::default().busiest_minute(), None);
    }

    #[test]
    fn extra_requests_past_the_word_are_spilled_and_read_back() {
        // (requests in second 5 of minute 0, extra requests, spilled)
        for (requests, extra, spilled) in [(1, 0, false), (15, 14, false), (16, 15, true)] {
            let c = counts(&vec![5; requests]);
            assert_eq!(c.entry_list().next().unwrap().requests, requests as u64);
            assert_eq!(c.spilled.len(), usize::from(spilled), "{requests}");
            assert_eq!(c.early_requests(1_000), extra, "{requests}");
        }
        // Two parts under the word's limit make a whole past it, and the other way round the
        // whole is the same whatever the order the seconds came in.
        let (mut a, b) = (counts(&[5; 8]), counts(&[5, 5, 5, 5, 5, 5, 5, 5, 70]));
        a.merge(b).unwrap();
        let mut seconds = vec![70];
        seconds.extend([5; 16]);
        let whole = counts(&seconds);
        assert_eq!(a, whole);
        assert_eq!(
            whole.spilled,
            [Spilled {
                bucket: 0,
                extra: 15
            }]
        );
        assert_eq!(whole.busiest_minute(), Some((0, 16)));
        // Coarsened, a spilled minute's requests all count; the spilled list empties.
        let mut hours = whole.clone();
        hours.coarsen_to(1);
        assert_eq!(hours.entry_list().next().unwrap().requests, 17);
        assert!(hours.spilled.is_empty());
        assert_eq!(hours.requests(), whole.requests());
    }

    #[test]
    fn memory_is_bounded_per_key_whatever_the_lines() {
        // A crawler hammering one origin: 100 requests a second for an hour, 360,000 lines, in
        // 60 entries.
        let mut c = RateCounts::default();
        for s in 0..360_000 {
            c.record(s / 100);
        }
        assert_eq!((c.entries(), c.requests()), (60, 360_000));
        assert!(c.is_exact());
        assert_eq!(c.early_requests(1_000), 360_000 - 3_600);
        assert_eq!(c.early_requests(2_000), 360_000 - 1);
        // A compliant crawler with a request every 10 seconds for 100 days: 864,000 requests
        // in 144,000 minutes, past the cap: per day, counts only.
        let mut c = RateCounts::default();
        for s in 0..864_000 {
            c.record(s * 10);
            assert!(c.entries() <= MAX_ENTRIES);
        }
        assert_eq!(c.requests(), 864_000);
        assert!(!c.is_exact());
        // Per-day buckets of 8,640 requests each: a 10 s delay lets all of them keep it.
        assert_eq!(c.early_requests(10_000), 0);
        // At 20 s only 4,320 a day can: the lower bound says at least 4,320 early per day.
        assert_eq!(c.early_requests(20_000), 4_320 * 100);
        assert_eq!(c.busiest_minute(), None);
    }

    #[test]
    fn many_keys_stay_bounded() {
        // A hostile file: a delay for every bot on 100,000 origins, each key seen in a new
        // minute by every line: 5,000,000 lines would keep 5,000,000 entries (120 MB), one per
        // key and minute. The floor rises instead, and the entries stay within the budget.
        let mut rates = Rates::default();
        let keys = 100_000usize;
        let key = |origin: usize| key(origin % 7, origin, 5_000);
        for round in 0..50i64 {
            for origin in 0..keys {
                rates.record(key(origin), round * 60 + (origin % 60) as i64);
            }
            assert!(rates.entries() <= BUDGET.max(keys), "round {round}");
        }
        assert_eq!(rates.keys.len(), keys);
        assert_eq!(rates.floor(), 1);
        assert!(rates.iter().all(|(_, counts)| !counts.is_exact()));
        let requests: u64 = rates.iter().map(|(_, counts)| counts.requests()).sum();
        assert_eq!(requests, 5_000_000);
        // More lines in the same hours keep the same entries.
        let entries = rates.entries();
        for origin in 0..keys {
            rates.record(key(origin), 7);
        }
        assert_eq!(rates.entries(), entries);
        // One key hammered far past its cap keeps at most the cap.
        for s in 0..2_000_000 {
            rates.record(key(0), s * 30);
        }
        assert!(rates.keys[&key(0)].entries() <= MAX_ENTRIES);
        assert!(rates.entries() <= BUDGET + keys);
    }

    #[test]
    fn the_floor_rises_past_the_budget_and_is_charged_the_cap_for_capped_keys() {
        let key = |origin: usize| key(0, origin, 1_000);
        let mut rates = Rates::with_budget(MAX_ENTRIES + 10);
        // Key 0 passes its own cap: hours, charged the cap.
        for minute in 0..=MAX_ENTRIES as i64 {
            rates.record(key(0), minute * 60);
        }
        assert_eq!((rates.floor(), rates.charged), (0, MAX_ENTRIES));
        assert_eq!(rates.keys[&key(0)].level, 1);
        // Ten more minutes on other keys fit; the eleventh does not: the floor rises to hours.
        for origin in 1..=10 {
            rates.record(key(origin), 0);
        }
        assert_eq!((rates.floor(), rates.charged), (0, MAX_ENTRIES + 10));
        rates.record(key(1), 60);
        assert_eq!(rates.floor(), 1);
        assert_eq!(rates.charged, rates.entries());
        assert!(rates.iter().all(|(_, counts)| counts.level == 1));
    }

    #[test]
    fn renumbered_keys_merge() {
        let key = |agent: usize, origin: usize| key(agent, origin, 10_000);
        let mut rates = Rates::default();
        rates.record(key(0, 0), 0);
        rates.record(key(1, 0), 5);
        // Both agents become agent 2.
        let mapped = rates
            .clone()
            .map_keys(|k| {
                Ok(RateKey {
                    agent: AgentId::from_index(2).unwrap(),
                    ..k
                })
            })
            .unwrap();
        assert_eq!(mapped.keys.len(), 1);
        assert_eq!(mapped.keys[&key(2, 0)].early_requests(10_000), 1);
        assert_eq!(
            rates.map_keys(|_| Err(CountError::Overflow)),
            Err(CountError::Overflow)
        );
    }

    /// `state.json`'s counts read back only when they keep the module's invariant.
    #[test]
    fn damaged_counts_are_refused_when_read() {
        let read = |json: &str| serde_json::from_str::<RateCounts>(json).map_err(|e| e.to_string());
        let good = counts(&[60, 61, 61, 200]);
        let json = serde_json::to_string(&good).unwrap();
        assert_eq!(json, r#"[0,[[1,3,3],[3,1048576,1]]]"#);
        assert_eq!(read(&json), Ok(good));
        let too_many: Vec<String> = (0..=MAX_ENTRIES).map(|m| format!("[{m},1,1]")).collect();
        let too_many = format!("[0,[{}]]", too_many.join(","));
        let cases = [
            (r#"[4,[[0,0,1]]]"#, "level 4"),
            (r#"[0,[]]"#, "without a request"),
            (too_many.as_str(), "more than 4096"),
            (r#"[0,[[3,1,1],[1,1,1]]]"#, "not sorted"),
            (r#"[0,[[1,1,1],[1,1,1]]]"#, "repeated"),
            (r#"[0,[[1,1152921504606846976,1]]]"#, "seconds mask"),
            (r#"[0,[[1,0,1]]]"#, "seconds mask"),
            (r#"[1,[[1,1,1]]]"#, "seconds mask"),
            (r#"[0,[[1,7,2]]]"#, "fewer than its seconds"),
            (r#"[2,[[1,0,0]]]"#, "fewer than its seconds"),
            (r#"[3,[[5,0,9]]]"#, "only bucket is 0"),
            (r#"[0,[[1,1,1]]"#, "EOF"),
        ];
        for (json, expected) in cases {
            let err = read(json).unwrap_err();
            assert!(err.contains(expected), "{json}: {err}");
        }
    }

    #[test]
    fn rates_read_back_as_written_and_refuse_a_key_listed_twice() {
        let key = |agent: usize, origin: usize| key(agent, origin, 1_500);
        let mut rates = Rates::default();
        rates.record(key(1, 2), 100);
        rates.record(key(0, 1), 5);
        let json = serde_json::to_value(&rates).unwrap();
        assert_eq!(
            serde_json::from_value::<Rates>(json.clone()).unwrap(),
            rates
        );
        let mut below = json.clone();
        below["floor"] = 1.into();
        let err = serde_json::from_value::<Rates>(below)
            .unwrap_err()
            .to_string();
        assert!(err.contains("below the floor 1"), "{err}");
        let mut floor = json.clone();
        floor["floor"] = 4.into();
        let err = serde_json::from_value::<Rates>(floor)
            .unwrap_err()
            .to_string();
        assert!(err.contains("floor 4"), "{err}");
        let mut twice = json;
        let keys = twice["keys"].as_array_mut().unwrap();
        keys.push(keys[0].clone());
        let err = serde_json::from_value::<Rates>(twice)
            .unwrap_err()
            .to_string();
        assert!(err.contains("listed twice"), "{err}");
    }

    fn arb_seconds() -> impl Strategy<Value = Vec<i64>> {
        prop_oneof![
            prop::collection::vec(
                prop_oneof![0i64..100, 0i64..5_000, 0i64..10_000_000],
                0..300
            ),
            // Enough distinct minutes to pass the cap.
            prop::collection::vec(0i64..100_000_000, 1_500..3_000),
            // Minutes with more requests beyond one a second than a minute's word counts.
            prop::collection::vec(0i64..120, 100..400),
        ]
    }

    /// Requests as (key index, second).
    fn arb_requests() -> impl Strategy<Value = Vec<(usize, i64)>> {
        prop::collection::vec(
            (0usize..12, prop_oneof![0i64..600, 0i64..10_000_000]),
            0..400,
        )
    }

    fn rates(requests: &[(usize, i64)], budget: usize) -> Rates {
        let mut rates = Rates::with_budget(budget);
        for &(origin, second) in requests {
            rates.record(key(origin % 3, origin, 2_000), second);
        }
        rates
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn budgeted_rates_merge_to_one_count_over_everything(
            a in arb_requests(), b in arb_requests(), c in arb_requests(),
            budget in prop_oneof![Just(8usize), Just(40), Just(300), Just(BUDGET)],
        ) {
            let all: Vec<(usize, i64)> = a.iter().chain(&b).chain(&c).copied().collect();
            let whole = rates(&all, budget);
            let (ra, rb, rc) = (rates(&a, budget), rates(&b, budget), rates(&c, budget));
            let mut ab_c = ra.clone();
            ab_c.merge(rb.clone()).unwrap();
            ab_c.merge(rc.clone()).unwrap();
            let mut bc = rb.clone();
            bc.merge(rc.clone()).unwrap();
            let mut a_bc = ra.clone();
            a_bc.merge(bc.clone()).unwrap();
            let mut cba = rc.clone();
            cba.merge(rb.clone()).unwrap();
            cba.merge(ra.clone()).unwrap();
            prop_assert_eq!(&ab_c, &whole);
            prop_assert_eq!(&a_bc, &whole);
            prop_assert_eq!(&cba, &whole);
            let mut into_nothing = Rates::with_budget(budget);
            into_nothing.merge(whole.clone()).unwrap();
            prop_assert_eq!(&into_nothing, &whole);
            prop_assert_eq!(whole.charged, whole.recharge());
            prop_assert!(whole.entries() <= budget.max(whole.keys.len()));
            prop_assert!(whole.iter().all(|(_, counts)| counts.level >= whole.floor()));
            let requests: u64 = whole.iter().map(|(_, counts)| counts.requests()).sum();
            prop_assert_eq!(requests, all.len() as u64);
        }

        #[test]
        fn exact_counts_match_the_definition(seconds in prop::collection::vec(0i64..500, 0..300),
                                             delay in 0u32..40_000) {
            let c = counts(&seconds);
            prop_assert!(c.is_exact());
            prop_assert_eq!(c.early_requests(delay), early_by_definition(&seconds, delay));
        }

        #[test]
        fn packed_minutes_hold_what_was_counted(
            seconds in prop::collection::vec(prop_oneof![0i64..180, -120i64..0, 0i64..100_000], 0..600),
        ) {
            let mut model: BTreeMap<i64, (u64, u64)> = BTreeMap::new();
            for &s in &seconds {
                let (mask, requests) = model.entry(s.div_euclid(60)).or_default();
                *mask |= 1 << s.rem_euclid(60);
                *requests += 1;
            }
            let c = counts(&seconds);
            prop_assert!(c.is_exact());
            let kept: Vec<(i64, (u64, u64))> = c
                .entry_list()
                .map(|e| (e.bucket, (e.seconds, e.requests)))
                .collect();
            let expected: Vec<(i64, (u64, u64))> = model.into_iter().collect();
            prop_assert_eq!(kept, expected);
            let spilled: Vec<i64> = c.spilled.iter().map(|s| s.bucket).collect();
            let marked: Vec<i64> = c
                .kept
                .iter()
                .filter(|k| k.word >> EXTRA_SHIFT == SPILLED)
                .map(|k| k.bucket)
                .collect();
            prop_assert_eq!(spilled, marked);
            prop_assert!(c.spilled.iter().all(|s| s.extra > INLINE_EXTRA));
            if c.entries() > 0 {
                let json = serde_json::to_string(&c).unwrap();
                prop_assert_eq!(serde_json::from_str::<RateCounts>(&json).unwrap(), c);
            }
        }

        #[test]
        fn merge_equals_one_count_over_everything(a in arb_seconds(), b in arb_seconds(),
                                                  c in arb_seconds()) {
            let all: Vec<i64> = a.iter().chain(&b).chain(&c).copied().collect();
            let whole = counts(&all);
            let (ca, cb, cc) = (counts(&a), counts(&b), counts(&c));
            let mut ab_c = ca.clone();
            ab_c.merge(cb.clone()).unwrap();
            ab_c.merge(cc.clone()).unwrap();
            let mut bc = cb.clone();
            bc.merge(cc.clone()).unwrap();
            let mut a_bc = ca.clone();
            a_bc.merge(bc.clone()).unwrap();
            let mut cba = cc.clone();
            cba.merge(cb.clone()).unwrap();
            cba.merge(ca.clone()).unwrap();
            prop_assert_eq!(&ab_c, &whole);
            prop_assert_eq!(&a_bc, &whole);
            prop_assert_eq!(&cba, &whole);
            let mut into_nothing = RateCounts::default();
            into_nothing.merge(whole.clone()).unwrap();
            prop_assert_eq!(&into_nothing, &whole);
            prop_assert!(whole.entries() <= MAX_ENTRIES);
            let json = serde_json::to_string(&whole).unwrap();
            prop_assert_eq!(&serde_json::from_str::<RateCounts>(&json).unwrap(), &whole);
            if whole.is_exact() {
                prop_assert_eq!(whole.early_requests(7_000), early_by_definition(&all, 7_000));
            } else {
                prop_assert!(whole.early_requests(7_000) <= early_by_definition(&all, 7_000));
            }
        }
    }
}
