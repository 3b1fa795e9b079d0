//! The request stream: who asks for what, when, and the ground-truth counters it feeds.

use crate::agents::{Address, BROWSERS, OTHER_FIRST_OCTETS};
use crate::format::{Line, LineWriter};
use crate::plan::{Actor, Agent, Check, RobotsHabit};
use crate::rng::Rng;
use crate::robots::SiteRobots;
use crate::site::{Bucket, BucketSet};

/// One origin of the run.
#[derive(Debug)]
pub(crate) struct Origin {
    pub(crate) host: String,
    pub(crate) robots: SiteRobots,
}

/// Ground truth for one (agent, origin) pair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) requests: u64,
    pub(crate) robots_fetches: u64,
    pub(crate) allowed: u64,
    pub(crate) disallowed: u64,
    pub(crate) exempt: u64,
    pub(crate) verified: u64,
    pub(crate) spoofed: u64,
    pub(crate) unverified: u64,
}

impl Counts {
    pub(crate) fn add(&mut self, other: &Counts) {
        self.requests += other.requests;
        self.robots_fetches += other.robots_fetches;
        self.allowed += other.allowed;
        self.disallowed += other.disallowed;
        self.exempt += other.exempt;
        self.verified += other.verified;
        self.spoofed += other.spoofed;
        self.unverified += other.unverified;
    }
}

const NEVER: i64 = i64::MIN;

/// A weighted choice among `weights.len()` items in O(log n).
#[derive(Debug)]
struct Weighted {
    cumulative: Vec<u64>,
}

impl Weighted {
    fn new(weights: impl Iterator<Item = u64>) -> Weighted {
        let mut total = 0u64;
        let cumulative = weights
            .map(|w| {
                total += w;
                total
            })
            .collect();
        Weighted { cumulative }
    }

    fn pick(&self, rng: &mut Rng) -> usize {
        let total = self.cumulative.last().copied().unwrap_or(0);
        let target = rng.below(total);
        self.cumulative.partition_point(|&c| c <= target)
    }
}

/// Generates requests one at a time and counts what each bot request means.
#[derive(Debug)]
pub(crate) struct Traffic<'a> {
    rng: Rng,
    agents: &'a [Agent],
    actors: &'a [Actor],
    origins: &'a [Origin],
    actor_choice: Weighted,
    origin_choice: Weighted,
    /// Per (actor, origin): when the actor last fetched the origin's robots.txt.
    last_robots: Vec<i64>,
    /// Per (agent, origin).
    truth: Vec<Counts>,
    browser_per_million: u32,
    allow_v6: bool,
    path: Vec<u8>,
    referer: Vec<u8>,
}

impl<'a> Traffic<'a> {
    pub(crate) fn new(
        rng: Rng,
        agents: &'a [Agent],
        actors: &'a [Actor],
        origins: &'a [Origin],
        browser_share: f64,
        allow_v6: bool,
    ) -> Traffic<'a> {
        // Origins get Zipf-like popularity, as hosts on one server do.
        let origin_choice = Weighted::new((0..origins.len() as u64).map(|i| 1_000_000 / (i + 2)));
        let browser_per_million = if actors.is_empty() {
            1_000_000
        } else {
            // Validated to lie in 0..=1 by the caller; the product fits in u32.
            (browser_share * 1_000_000.0).round() as u32
        };
        Traffic {
            rng,
            agents,
            actors,
            origins,
            actor_choice: Weighted::new(actors.iter().map(|a| a.weight)),
            origin_choice,
            last_robots: vec![NEVER; actors.len() * origins.len()],
            truth: vec![Counts::default(); agents.len() * origins.len()],
            browser_per_million,
            allow_v6,
            path: Vec::with_capacity(256),
            referer: Vec::with_capacity(256),
        }
    }

    /// The counters, indexed `agent * origins + origin`.
    pub(crate) fn into_truth(self) -> Vec<Counts> {
        self.truth
    }

    /// Appends one request made at `micros` to `out`.
    pub(crate) fn emit(&mut self, micros: i64, writer: &mut LineWriter, out: &mut Vec<u8>) {
        if self.rng.chance(self.browser_per_million) {
            self.emit_browser(micros, writer, out);
        } else {
            self.emit_bot(micros, writer, out);
        }
    }

    fn emit_bot(&mut self, micros: i64, writer: &mut LineWriter, out: &mut Vec<u8>) {
        let rng = &mut self.rng;
        let actor_index = self.actor_choice.pick(rng);
        let Some(actor) = self.actors.get(actor_index) else {
            return;
        };
        let Some(agent) = self.agents.get(actor.agent) else {
            return;
        };
        let origin_count = self.origins.len();
        let mut origin_index = self.origin_choice.pick(rng);
        // A crawler that obeys does not keep coming back to a site that shuts it out entirely:
        // let it mostly crawl elsewhere.
        for _ in 0..3 {
            let blocked = self
                .origins
                .get(origin_index)
                .and_then(|o| o.robots.disallowed.get(actor.agent))
                .is_some_and(|d| *d == BucketSet::ALL);
            if !(blocked && actor.violate_per_million == 0) {
                break;
            }
            origin_index = self.origin_choice.pick(rng);
        }
        let Some(origin) = self.origins.get(origin_index) else {
            return;
        };
        let disallowed = origin
            .robots
            .disallowed
            .get(actor.agent)
            .copied()
            .unwrap_or_default();

        let last = actor_index * origin_count + origin_index;
        let mut robots_fetch = match actor.habit {
            RobotsHabit::Polite { refresh_micros } => self
                .last_robots
                .get(last)
                .is_none_or(|&t| t == NEVER || micros.saturating_sub(t) >= refresh_micros),
            RobotsHabit::Occasional { per_million } => rng.chance(per_million),
        };
        let mut bucket = None;
        if !robots_fetch {
            let violate = actor.violate_per_million > 0 && rng.chance(actor.violate_per_million);
            let permitted = disallowed.complement();
            bucket = if violate {
                disallowed.pick(rng).or_else(|| permitted.pick(rng))
            } else {
                permitted.pick(rng)
            };
            // Nothing it may fetch here: an obedient crawler only re-reads robots.txt.
            robots_fetch = bucket.is_none();
        }

        let counts_index = actor.agent * origin_count + origin_index;
        let mut counts = self.truth.get(counts_index).copied().unwrap_or_default();
        counts.requests += 1;
        match actor.check {
            Check::Verified => counts.verified += 1,
            Check::Spoofed => counts.spoofed += 1,
            Check::Unverified => counts.unverified += 1,
        }
        self.path.clear();
        let (status, bytes) = match bucket {
            Some(bucket) if !robots_fetch => {
                if disallowed.contains(bucket) && agent.robots.is_exempt() {
                    counts.exempt += 1;
                } else if disallowed.contains(bucket) {
                    counts.disallowed += 1;
                } else {
                    counts.allowed += 1;
                }
                bucket.write_path(rng, &mut self.path);
                response(rng, bucket.size_range())
            }
            _ => {
                counts.robots_fetches += 1;
                if let Some(t) = self.last_robots.get_mut(last) {
                    *t = micros;
                }
                self.path.extend_from_slice(b"/robots.txt");
                if rng.chance(50_000) {
                    (304, 0)
                } else {
                    (200, origin.robots.body.len() as u64)
                }
            }
        };
        if let Some(slot) = self.truth.get_mut(counts_index) {
            *slot = counts;
        }

        let user_agent = rng.pick(&agent.user_agents).copied().unwrap_or_default();
        let line = Line {
            micros,
            host: &origin.host,
            client: actor.network.address(rng, self.allow_v6),
            client_port: rng.range(1024, 65_535) as u16,
            method: "GET",
            target: &self.path,
            http2: rng.chance(300_000),
            status,
            bytes,
            referer: b"-",
            user_agent,
            duration_micros: rng.range(200, 400_000),
            noise: rng.next_u64(),
        };
        writer.write(&line, out);
    }

    fn emit_browser(&mut self, micros: i64, writer: &mut LineWriter, out: &mut Vec<u8>) {
        let rng = &mut self.rng;
        let Some(origin) = self.origins.get(self.origin_choice.pick(rng)) else {
            return;
        };
        self.path.clear();
        let mut method = "GET";
        let (status, bytes) = if rng.chance(40_000) {
            self.path.extend_from_slice(
                rng.pick(&[
                    b"/favicon.ico".as_slice(),
                    b"/apple-touch-icon.png",
                    b"/manifest.json",
                ])
                .copied()
                .unwrap_or_default(),
            );
            response(rng, (300, 15_000))
        } else {
            let bucket = BucketSet::ALL.pick(rng).unwrap_or(Bucket::Home);
            bucket.write_path(rng, &mut self.path);
            if matches!(bucket, Bucket::Checkout | Bucket::Api) && rng.chance(300_000) {
                method = "POST";
            }
            response(rng, bucket.size_range())
        };
        self.referer.clear();
        match rng.below(10) {
            0..4 => self.referer.push(b'-'),
            4..6 => self.referer.extend_from_slice(b"https://www.google.com/"),
            _ => {
                self.referer.extend_from_slice(b"https://");
                self.referer.extend_from_slice(origin.host.as_bytes());
                Bucket::Home.write_path(rng, &mut self.referer);
            }
        }
        let client = if self.allow_v6 && rng.chance(80_000) {
            Address::V6(0x2a02_0000_u128 << 96 | u128::from(rng.next_u64()) << 32)
        } else {
            let first = rng.pick(OTHER_FIRST_OCTETS).copied().unwrap_or(5);
            Address::V4(u32::from(first) << 24 | rng.below(1 << 24) as u32)
        };
        let user_agent = rng.pick(BROWSERS).copied().unwrap_or_default();
        let line = Line {
            micros,
            host: &origin.host,
            client,
            client_port: rng.range(1024, 65_535) as u16,
            method,
            target: &self.path,
            http2: rng.chance(600_000),
            status,
            bytes,
            referer: &self.referer,
            user_agent,
            duration_micros: rng.range(200, 900_000),
            noise: rng.next_u64(),
        };
        writer.write(&line, out);
    }
}

/// Status and response size of a page request: mostly full responses, some revalidations,
/// some missing pages and redirects.
fn response(rng: &mut Rng, (low, high): (u64, u64)) -> (u16, u64) {
    match rng.below(100) {
        0..88 => (200, rng.range(low, high)),
        88..94 => (304, 0),
        94..98 => (404, rng.range(150, 600)),
        _ => (301, rng.range(0, 250)),
    }
}
