//! Mergeable crawl-rate counters: what `crawl_rate.csv` shows (docs/contract.md, "crawl_rate.csv").
//!
//! For each (agent, origin, delay in force) the audit keeps how many requests fell in each
//! second, never a list of request times, so counts from files read in parallel, or from nights
//! audited apart, add up to what one run over everything counts. `early_requests` is computed
//! at the end from the merged histogram: within one second every request but the first is early
//! (when the delay is above zero); the first request of a second is early when the previous
//! non-empty second is less than the delay before it.
//!
//! Memory is bounded per key: at most [`MAX_BUCKETS`] buckets. When the distinct seconds of a
//! key exceed it, the key's histogram is coarsened to minutes, then hours, then days, then one
//! bucket, and its early count becomes a lower bound (marked `exact=false` in the report). The
//! level is the finest whose distinct buckets fit, a function of the counted times alone, so
//! merging stays exact (associative and commutative) whatever the order.
//!
//! Invariant: `buckets` is sorted by bucket, without duplicates or zero counts, and holds at
//! most [`MAX_BUCKETS`] entries.

use ahash::AHashMap;

use crate::ids::{AgentId, OriginId};

/// The most buckets one (agent, origin, delay) keeps: 16 KiB.
pub const MAX_BUCKETS: usize = 1024;

/// The bucket width of each level in seconds; the last level is one bucket for all time.
const WIDTHS: [i64; 4] = [1, 60, 3600, 86_400];

/// The levels: seconds, minutes, hours, days, and one bucket.
const LEVELS: u8 = 5;

/// An agent on an origin under one crawl delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RateKey {
    /// The agent.
    pub agent: AgentId,
    /// The origin.
    pub origin: OriginId,
    /// The crawl delay in force, in milliseconds.
    pub delay_ms: u32,
}

/// Requests per time bucket of one [`RateKey`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RateCounts {
    /// 0: seconds (exact), 1: minutes, 2: hours, 3: days, 4: one bucket.
    level: u8,
    /// (bucket, requests), sorted by bucket.
    buckets: Vec<(i64, u64)>,
}

fn bucket_of(second: i64, level: u8) -> i64 {
    match WIDTHS.get(usize::from(level)) {
        Some(width) => second.div_euclid(*width),
        None => 0,
    }
}

/// The bucket at `level` of a bucket at the finer level `from`.
fn rebucket(bucket: i64, from: u8, to: u8) -> i64 {
    match (WIDTHS.get(usize::from(from)), WIDTHS.get(usize::from(to))) {
        (Some(from), Some(to)) => bucket.saturating_mul(*from).div_euclid(*to),
        _ => 0,
    }
}

impl RateCounts {
    /// Counts one request at `second` (seconds since the epoch).
    #[inline]
    pub fn record(&mut self, second: i64) {
        let bucket = bucket_of(second, self.level);
        match self.buckets.last_mut() {
            Some((last, count)) if *last == bucket => *count += 1,
            Some((last, _)) if *last > bucket => {
                match self.buckets.binary_search_by_key(&bucket, |(b, _)| *b) {
                    Ok(at) => {
                        if let Some((_, count)) = self.buckets.get_mut(at) {
                            *count += 1;
                        }
                    }
                    Err(at) => {
                        self.buckets.insert(at, (bucket, 1));
                        self.fit();
                    }
                }
            }
            _ => {
                self.buckets.push((bucket, 1));
                self.fit();
            }
        }
    }

    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &RateCounts) {
        let level = self.level.max(other.level);
        self.coarsen_to(level);
        let mut theirs = other.clone();
        theirs.coarsen_to(level);
        let mine = std::mem::take(&mut self.buckets);
        let mut merged = Vec::with_capacity(mine.len() + theirs.buckets.len());
        let (mut a, mut b) = (
            mine.into_iter().peekable(),
            theirs.buckets.into_iter().peekable(),
        );
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.0 == y.0 => {
                    let (bucket, n) = (x.0, x.1 + y.1);
                    a.next();
                    b.next();
                    (bucket, n)
                }
                (Some(x), Some(y)) if x.0 < y.0 => {
                    let x = *x;
                    a.next();
                    x
                }
                (Some(_), Some(y)) | (None, Some(y)) => {
                    let y = *y;
                    b.next();
                    y
                }
                (Some(x), None) => {
                    let x = *x;
                    a.next();
                    x
                }
                (None, None) => break,
            };
            merged.push(next);
        }
        self.buckets = merged;
        self.fit();
    }

    /// Coarsens while the buckets exceed [`MAX_BUCKETS`].
    fn fit(&mut self) {
        while self.buckets.len() > MAX_BUCKETS && self.level + 1 < LEVELS {
            self.coarsen_to(self.level + 1);
        }
    }

    fn coarsen_to(&mut self, level: u8) {
        if level <= self.level {
            return;
        }
        let from = self.level;
        let mut coarse: Vec<(i64, u64)> = Vec::with_capacity(self.buckets.len());
        for &(bucket, count) in &self.buckets {
            let bucket = rebucket(bucket, from, level);
            match coarse.last_mut() {
                Some((last, n)) if *last == bucket => *n += count,
                _ => coarse.push((bucket, count)),
            }
        }
        self.buckets = coarse;
        self.level = level;
    }

    /// Every request counted.
    pub fn requests(&self) -> u64 {
        self.buckets.iter().map(|(_, n)| n).sum()
    }

    /// Whether the counts are still per second, so [`RateCounts::early_requests`] is exact.
    pub fn is_exact(&self) -> bool {
        self.level == 0
    }

    /// How many buckets are kept (for the memory bound).
    pub fn buckets(&self) -> usize {
        self.buckets.len()
    }

    /// Requests less than `delay_ms` after the previous one (at whole-second resolution).
    /// Exact while [`RateCounts::is_exact`]; otherwise a lower bound: in a bucket of `w`
    /// seconds at most `(w - 1) / ceil(delay) + 1` requests can keep the delay.
    pub fn early_requests(&self, delay_ms: u32) -> u64 {
        if delay_ms == 0 {
            return 0;
        }
        match WIDTHS.get(usize::from(self.level)) {
            Some(1) => {
                let mut early = 0;
                let mut previous: Option<i64> = None;
                for &(second, count) in &self.buckets {
                    early += count - 1;
                    if let Some(previous) = previous
                        && second.saturating_sub(previous).saturating_mul(1000)
                            < i64::from(delay_ms)
                    {
                        early += 1;
                    }
                    previous = Some(second);
                }
                early
            }
            Some(&width) => {
                let step = i64::from(delay_ms.div_ceil(1000)).max(1);
                let keep = u64::try_from((width - 1) / step + 1).unwrap_or(u64::MAX);
                self.buckets
                    .iter()
                    .map(|(_, count)| count.saturating_sub(keep))
                    .sum()
            }
            None => 0,
        }
    }

    /// The minute (seconds since the epoch of its start) with the most requests, the earliest
    /// among equal ones, and its requests; `None` when the counts are coarser than minutes.
    pub fn busiest_minute(&self) -> Option<(i64, u64)> {
        let mut best: Option<(i64, u64)> = None;
        let mut consider = |minute: i64, count: u64| {
            if best.is_none_or(|(_, most)| count > most) {
                best = Some((minute, count));
            }
        };
        match self.level {
            0 => {
                let mut current: Option<(i64, u64)> = None;
                for &(second, count) in &self.buckets {
                    let minute = second.div_euclid(60);
                    match &mut current {
                        Some((m, n)) if *m == minute => *n += count,
                        _ => {
                            if let Some((m, n)) = current {
                                consider(m, n);
                            }
                            current = Some((minute, count));
                        }
                    }
                }
                if let Some((m, n)) = current {
                    consider(m, n);
                }
            }
            1 => {
                for &(minute, count) in &self.buckets {
                    consider(minute, count);
                }
            }
            _ => return None,
        }
        best.map(|(minute, count)| (minute.saturating_mul(60), count))
    }
}

/// Every key's counts, of a run or of one thread's share of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rates {
    /// Per agent, origin and delay.
    pub keys: AHashMap<RateKey, RateCounts>,
}

impl Rates {
    /// Counts one request of `key` at `second`.
    #[inline]
    pub fn record(&mut self, key: RateKey, second: i64) {
        self.keys.entry(key).or_default().record(second);
    }

    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &Rates) {
        for (key, counts) in &other.keys {
            self.keys.entry(*key).or_default().merge(counts);
        }
    }

    /// Buckets kept over all keys: at most `keys × MAX_BUCKETS`.
    pub fn buckets(&self) -> usize {
        self.keys.values().map(RateCounts::buckets).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn counts(seconds: &[i64]) -> RateCounts {
        let mut c = RateCounts::default();
        for &s in seconds {
            c.record(s);
        }
        c
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
        assert_eq!(RateCounts::default().busiest_minute(), None);
    }

    #[test]
    fn memory_is_bounded_per_key_whatever_the_lines() {
        // A compliant crawler with a request every 10 seconds for 100 days: 864,000 requests.
        let mut c = RateCounts::default();
        for s in 0..864_000 {
            c.record(s * 10);
            assert!(c.buckets() <= MAX_BUCKETS);
        }
        assert_eq!(c.requests(), 864_000);
        assert!(!c.is_exact());
        // Per-day buckets of 8,640 requests each: a 10 s delay lets all of them keep it.
        assert_eq!(c.early_requests(10_000), 0);
        // At 20 s only 4,320 a day can: the lower bound says at least 4,320 early per day.
        assert_eq!(c.early_requests(20_000), 4_320 * 100);
        assert_eq!(c.busiest_minute(), None);
        // Within the cap the minute level is still exact about the busiest minute.
        let c = counts(&(0..(MAX_BUCKETS as i64 + 1)).collect::<Vec<_>>());
        assert!(!c.is_exact());
        assert_eq!(c.busiest_minute(), Some((0, 60)));
    }

    #[test]
    fn many_keys_stay_bounded() {
        // A hostile file: a delay for every bot on 100,000 origins. Every request in its own
        // second, spread over the keys: memory follows the keys, never the lines.
        let mut rates = Rates::default();
        let keys = 100_000usize;
        for round in 0..3i64 {
            for origin in 0..keys {
                let key = RateKey {
                    agent: AgentId::from_index(origin % 7).unwrap(),
                    origin: OriginId::from_index(origin).unwrap(),
                    delay_ms: 5_000,
                };
                rates.record(key, round * 1_000_000 + origin as i64);
            }
        }
        assert_eq!(rates.keys.len(), keys);
        assert!(rates.buckets() <= keys * MAX_BUCKETS);
        // And one key hammered with far more lines than the cap keeps at most the cap.
        let key = RateKey {
            agent: AgentId::from_index(0).unwrap(),
            origin: OriginId::from_index(0).unwrap(),
            delay_ms: 5_000,
        };
        for s in 0..200_000 {
            rates.record(key, s * 3);
        }
        assert!(rates.keys[&key].buckets() <= MAX_BUCKETS);
        assert!(rates.buckets() <= keys * 3 + MAX_BUCKETS);
    }

    fn arb_seconds() -> impl Strategy<Value = Vec<i64>> {
        prop::collection::vec(
            prop_oneof![0i64..100, 0i64..5_000, 0i64..10_000_000],
            0..1_500,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn exact_counts_match_the_definition(seconds in prop::collection::vec(0i64..500, 0..300),
                                             delay in 0u32..40_000) {
            let c = counts(&seconds);
            prop_assert!(c.is_exact());
            prop_assert_eq!(c.early_requests(delay), early_by_definition(&seconds, delay));
        }

        #[test]
        fn merge_equals_one_count_over_everything(a in arb_seconds(), b in arb_seconds(),
                                                  c in arb_seconds()) {
            let all: Vec<i64> = a.iter().chain(&b).chain(&c).copied().collect();
            let whole = counts(&all);
            let (ca, cb, cc) = (counts(&a), counts(&b), counts(&c));
            let mut ab_c = ca.clone();
            ab_c.merge(&cb);
            ab_c.merge(&cc);
            let mut bc = cb.clone();
            bc.merge(&cc);
            let mut a_bc = ca.clone();
            a_bc.merge(&bc);
            let mut cba = cc.clone();
            cba.merge(&cb);
            cba.merge(&ca);
            prop_assert_eq!(&ab_c, &whole);
            prop_assert_eq!(&a_bc, &whole);
            prop_assert_eq!(&cba, &whole);
            prop_assert!(whole.buckets() <= MAX_BUCKETS);
            if whole.is_exact() {
                prop_assert_eq!(whole.early_requests(7_000), early_by_definition(&all, 7_000));
            } else {
                prop_assert!(whole.early_requests(7_000) <= early_by_definition(&all, 7_000));
            }
        }
    }
}
