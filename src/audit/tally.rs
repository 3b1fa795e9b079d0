//! The audit's counters as a sink: every event of an input counted into that input's tally.
//!
//! Each worker thread has a [`Tally`], which owns, by input, everything the run learns of it
//! ([`InputTally`]: its `inputs.csv` row and skipped-line samples, its counters, its requests of
//! headers that are not bots). At the end of the run the threads' tallies of each input are
//! folded into one ([`fold`]); merging is associative and commutative (sums, minima, maxima, set
//! unions; the table of unknown headers below its exact limit), so the result depends neither
//! on `--threads` nor on how blocks were spread over threads. The run's
//! [`State`](crate::state::State) is made of these tallies.
//!
//! Per line this is a few additions into the input's tally, found by index; a header that is not
//! a bot's finds its slot in the input's table of unknown headers by its identity key, and is
//! hashed only once per thread, table and key.

use std::sync::Arc;

use jiff::Timestamp;
use robots_audit_bots::Verification;

use super::Input;
use super::checked::CountError;
use super::file_report::{FileReport, SAMPLES_PER_FILE, Sample};
use super::fold::{Folded, Folding};
use super::identity::AgentInfo;
use super::judge::{Decider, Outcome, is_robots_fetch_target, match_path};
use super::sink::{AgentRequest, InputEnded, NotABot, Sink, Skipped};
use super::stats::{RuleKey, Stats};
use super::unknown::{HeaderSlot, UnknownAgents};
use crate::versions::summary::RobotsSummary;

/// What the run learnt of one input.
#[derive(Debug, Clone, Default)]
pub struct InputTally {
    /// Its `inputs.csv` row and its first skipped lines.
    pub file: FileReport,
    /// Its counters.
    pub stats: Stats,
    /// Its requests of user-agent headers that are not bots.
    pub unknown_agents: UnknownAgents,
    /// Whether a request's time was read without an offset, in the zone the run assumes.
    zone_assumed: bool,
}

impl InputTally {
    fn new(input: usize, unknown_agents_limit: usize) -> InputTally {
        let mut unknown_agents = UnknownAgents::new(unknown_agents_limit);
        // The table is named after its input, so that a slot of another input's is not
        // current in it.
        unknown_agents.set_table(u32::try_from(input).unwrap_or(u32::MAX));
        InputTally {
            file: FileReport::default(),
            stats: Stats::default(),
            unknown_agents,
            zone_assumed: false,
        }
    }

    /// Adds another thread's tally of the same input.
    fn merge(&mut self, mut other: InputTally) -> Result<(), CountError> {
        if self.stats.pairs.is_empty() {
            // The first part's table of pairs becomes the sum's instead of being copied into
            // it: the copy was a third table of every pair beside two threads' at the run's
            // peak. A thread's counters merged into empty ones are themselves (none of their
            // sums can overflow: each is at most the lines read).
            std::mem::swap(&mut self.stats.pairs, &mut other.stats.pairs);
        }
        self.file.merge(other.file);
        self.zone_assumed |= other.zone_assumed;
        self.stats.merge(other.stats)?;
        self.unknown_agents.merge(other.unknown_agents)
    }

    /// Counts a parsed request at `time`, read in the assumed zone or not.
    #[inline]
    fn parsed(&mut self, time: Timestamp, zone_assumed: bool) {
        self.zone_assumed |= zone_assumed;
        let file = &mut self.file;
        file.parsed += 1;
        file.first_time = Some(file.first_time.map_or(time, |t| t.min(time)));
        file.last_time = Some(file.last_time.map_or(time, |t| t.max(time)));
    }
}

/// What a run produced: its tables and each input's tally, in input order. The caller makes the
/// run's [`State`](crate::state::State) of it.
#[derive(Debug)]
pub struct RunTally {
    /// The hashes of the minted agents and origins folded during the run.
    pub folded: Folded,
    /// The agents seen, indexed by [`AgentId`](crate::ids::AgentId).
    pub agents: Vec<AgentInfo>,
    /// The origins seen, indexed by [`OriginId`](crate::ids::OriginId); the empty string for
    /// lines without one.
    pub origins: Vec<String>,
    /// What the reports show of the robots versions, indexed by
    /// [`VersionId`](crate::ids::VersionId).
    pub robots: Arc<RobotsSummary>,
    /// One per input, in argument order.
    pub inputs: Vec<InputTally>,
}

/// One worker thread's counting sink.
#[derive(Debug)]
pub struct Tally {
    /// By input: what this thread counted of it (inputs it never saw stay empty).
    inputs: Vec<InputTally>,
    /// How many distinct headers that are not bots each table counts exactly.
    unknown_agents_limit: usize,
    /// By identity key: the header's slot in the table it was last counted in.
    slots: Vec<Option<HeaderSlot>>,
    /// The identity cache's epoch `slots` is for.
    epoch: u32,
    /// Reused to build a sample's path.
    path: Vec<u8>,
    /// Why moving counters to a fold row failed, reported when the tallies are summed.
    fold_failed: Option<CountError>,
    /// Retired agents and origins whose counters have not been moved to their fold rows yet.
    unfolded: Folding,
    /// The counters' entries after they were last moved, and how many entries moving has gone
    /// through in all (which the tests bound).
    entries_after_folding: usize,
    entries_folded: u64,
}

/// Below this many entries, a thread's counters are moved to the fold rows as soon as it learns
/// of a retired id: it costs little, and the counters then show the fold rows at once.
const FOLD_AT_ONCE: usize = 1 << 12;

impl Tally {
    /// An empty tally; tables of unknown headers exact up to `unknown_agents_limit`.
    pub fn new(unknown_agents_limit: usize) -> Tally {
        Tally {
            inputs: Vec::new(),
            unknown_agents_limit,
            slots: Vec::new(),
            epoch: 0,
            path: Vec::new(),
            fold_failed: None,
            unfolded: Folding::default(),
            entries_after_folding: 0,
            entries_folded: 0,
        }
    }

    /// This thread's counters of input `input`.
    #[cfg(test)]
    pub fn stats(&self, input: usize) -> Option<&Stats> {
        self.inputs.get(input).map(|tally| &tally.stats)
    }

    /// Moves what this thread counted under the retired agents and origins of `folding` (and
    /// of those before it not moved yet) to their fold rows, once the counters have doubled
    /// since they were last moved (at once while they are small).
    ///
    /// Moving goes through every counter of the thread, and traffic that mints a new name now
    /// and then retires one in nearly every block: moving at each block made a run quadratic
    /// (130 catalog bots on 5,000 hosts, one new name in 50 lines: 27 s for 1.5 million lines
    /// instead of 4.5 s). Counters left under a retired id are still counted right: the thread
    /// no longer counts anything under it, and the run moves them with the rest at its end
    /// (`audit::run`); waiting only keeps the memory of at most as many entries again.
    pub fn fold_retired(&mut self, folding: &Folding) {
        self.unfolded.extend(folding);
        let entries = self.entries();
        if entries > FOLD_AT_ONCE && entries < self.entries_after_folding.saturating_mul(2) {
            return;
        }
        let folding = std::mem::take(&mut self.unfolded);
        self.entries_folded = self.entries_folded.saturating_add(entries as u64);
        for tally in &mut self.inputs {
            match std::mem::take(&mut tally.stats).remap(&folding) {
                Ok(stats) => tally.stats = stats,
                Err(e) => {
                    self.fold_failed.get_or_insert(e);
                }
            }
        }
        self.entries_after_folding = self.entries();
    }

    /// The entries of this thread's counters, over its inputs.
    fn entries(&self) -> usize {
        self.inputs.iter().map(|tally| tally.stats.entries()).sum()
    }

    /// The tally of input `input`.
    #[inline]
    fn input(&mut self, input: usize) -> &mut InputTally {
        if self.inputs.len() <= input {
            self.grow(input);
        }
        &mut self.inputs[input]
    }

    #[cold]
    fn grow(&mut self, input: usize) {
        let limit = self.unknown_agents_limit;
        let first = self.inputs.len();
        self.inputs
            .extend((first..=input).map(|i| InputTally::new(i, limit)));
    }

    /// The slot of the header of `request` in its input's table: by key when this thread has
    /// counted it in that table since its last purge, else by hashing the header.
    #[inline]
    fn slot(&mut self, request: &NotABot<'_>) -> HeaderSlot {
        let key = request.key;
        if key.epoch() != self.epoch {
            self.slots.clear();
            self.epoch = key.epoch();
        }
        let known = self.slots.get(key.index()).copied().flatten();
        let table = &mut self.input(request.input).unknown_agents;
        match known {
            Some(slot) if table.is_current(slot) => slot,
            _ => self.resolve_slot(request),
        }
    }

    #[cold]
    fn resolve_slot(&mut self, request: &NotABot<'_>) -> HeaderSlot {
        let slot = self
            .input(request.input)
            .unknown_agents
            .slot_of(&request.header());
        let at = request.key.index();
        if self.slots.len() <= at {
            self.slots.resize(at + 1, None);
        }
        self.slots[at] = Some(slot);
        slot
    }
}

/// Every event counts into its input's tally.
impl Sink for Tally {
    #[inline]
    fn agent_request(&mut self, request: &AgentRequest<'_>) {
        let tally = self.input(request.input);
        if request.agent_info.is_bot {
            tally.parsed(request.request.time, request.request.zone_assumed);
            tally.file.bot_requests += 1;
        }
        count(&mut tally.stats, request);
    }

    #[inline]
    fn not_a_bot(&mut self, request: &NotABot<'_>) {
        let slot = self.slot(request);
        let path = &mut self.path;
        let tally = match self.inputs.get_mut(request.input) {
            Some(tally) => tally,
            None => return,
        };
        tally.parsed(request.request.time, request.request.zone_assumed);
        tally.file.other_requests += 1;
        let parsed = request.request;
        let fetch = is_robots_fetch_target(parsed.target, parsed.query, path);
        tally.unknown_agents.count(
            slot,
            (parsed.time, fetch),
            (request.input, request.line),
            || match_path(parsed.target, parsed.query, path).into(),
        );
    }

    fn not_fetched(&mut self, input: usize, time: Timestamp) {
        let tally = self.input(input);
        // A crawler's own log: its times carry their zone.
        tally.parsed(time, false);
        tally.file.other_requests += 1;
    }

    fn skipped(&mut self, line: &Skipped<'_>) {
        let file = &mut self.input(line.input).file;
        file.count_skipped(line.reason.as_str(), 1);
        keep_sample(
            &mut file.samples,
            Sample::new(line.line, line.reason.as_str(), line.text),
        );
    }

    fn block_done(&mut self, input: usize, _: u64, lines: u64) -> std::io::Result<()> {
        self.input(input).file.lines += lines;
        Ok(())
    }

    fn input_ended(&mut self, ended: &InputEnded) -> std::io::Result<()> {
        let file = &mut self.input(ended.input).file;
        file.format = ended.format.map(|f| f.name());
        file.compression.clone_from(&ended.compression);
        file.bytes_read = ended.bytes_read;
        file.bytes = ended.bytes;
        file.error.clone_from(&ended.error);
        file.fingerprint = ended.fingerprint;
        Ok(())
    }
}

/// Counts a request of a resolved agent: for its agent and origin, its hour, its crawl rate,
/// and the rule that decided it.
#[inline]
fn count(stats: &mut Stats, request: &AgentRequest<'_>) {
    let judgement = &request.judgement;
    stats.hourly.record(
        request.request.time,
        request.agent,
        judgement.outcome,
        request.request.status,
        request.verification,
        judgement.conflict.is_some(),
    );
    if let Some(delay_ms) = judgement.crawl_delay {
        let key = super::rate::RateKey {
            agent: request.agent,
            origin: request.origin,
            delay_ms,
        };
        stats.rates.record(key, request.request.time.as_second());
    }
    let counts = stats.pair(request.agent, request.origin);
    counts.preference_conflicts += u64::from(judgement.conflict.is_some());
    counts.record(
        request.request.time,
        judgement.outcome,
        request.request.status,
    );
    let verified = match request.verification {
        // agents.csv's `verified`: by published ranges or by DNS.
        Verification::Verified | Verification::VerifiedDns => {
            counts.verified += 1;
            true
        }
        Verification::Spoofed => {
            counts.spoofed += 1;
            false
        }
        Verification::Unverified => {
            counts.unverified += 1;
            false
        }
    };
    if verified && judgement.outcome == Outcome::Disallowed {
        counts.disallowed_verified += 1;
    }
    if !judgement.outcome.is_judged() {
        return;
    }
    let Some(version) = judgement.version else {
        return;
    };
    let rule = match judgement.decider {
        Decider::Rule(rule) => Some(rule),
        Decider::Status => None,
        Decider::Nothing => return,
    };
    stats.rule_decided(
        RuleKey { version, rule },
        request.agent,
        judgement.outcome == Outcome::Disallowed,
    );
}

/// Keeps the [`SAMPLES_PER_FILE`] lowest-numbered samples, so that the union over threads holds
/// the first ones of the file whatever order blocks were processed in.
fn keep_sample(samples: &mut Vec<Sample>, sample: Sample) {
    if samples.len() < SAMPLES_PER_FILE {
        samples.push(sample);
        return;
    }
    if let Some((i, worst)) = samples.iter().enumerate().max_by_key(|(_, s)| s.line)
        && worst.line > sample.line
    {
        samples[i] = sample;
    }
}

/// The tally of each of `inputs` over the worker threads' tallies: each input's parts merged in
/// thread order, named as the input is, with its first [`SAMPLES_PER_FILE`] samples and, when
/// some time of it was read without an offset, the name of the zone assumed (`assumed_zone`).
pub fn fold(
    tallies: Vec<Tally>,
    inputs: &[Input],
    (unknown_agents_limit, assumed_zone): (usize, &str),
) -> Result<Vec<InputTally>, CountError> {
    let mut folded: Vec<InputTally> = (0..inputs.len())
        .map(|i| InputTally::new(i, unknown_agents_limit))
        .collect();
    for tally in tallies {
        if let Some(e) = tally.fold_failed {
            return Err(e);
        }
        for (total, part) in folded.iter_mut().zip(tally.inputs) {
            total.merge(part)?;
        }
    }
    for (tally, input) in folded.iter_mut().zip(inputs) {
        tally.file.name.clone_from(&input.name);
        tally.file.assumed_zone = tally.zone_assumed.then(|| assumed_zone.to_owned());
        tally.file.samples.sort_by_key(|s| s.line);
        tally.file.samples.truncate(SAMPLES_PER_FILE);
    }
    Ok(folded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{AgentId, OriginId};

    /// A thread that learns of a retired name at the end of nearly every block goes through
    /// its counters a bounded number of times in all, not once per block, and loses no count.
    #[test]
    fn moving_to_the_fold_rows_costs_the_counters_a_few_times_not_once_per_block() {
        const PAIRS: usize = 20_000;
        const BLOCKS: usize = 500;
        let agent = |i: usize| AgentId::from_index(i).unwrap();
        let origin = OriginId::from_index(0).unwrap();
        let other = agent(PAIRS + BLOCKS);
        let mut tally = Tally::new(10);
        for i in 0..PAIRS {
            tally.input(0).stats.pair(agent(i), origin).requests += 1;
        }
        for block in 0..BLOCKS {
            // The name minted in this block, counted, then retired by a smaller one.
            let minted = agent(PAIRS + block);
            tally.input(0).stats.pair(minted, origin).requests += 1;
            let mut folding = Folding::default();
            folding.agents(&[minted], Some(other));
            tally.fold_retired(&folding);
        }
        let bound = 4 * (PAIRS + BLOCKS) as u64;
        assert!(
            tally.entries_folded <= bound,
            "{} entries gone through, more than {bound}",
            tally.entries_folded
        );
        let stats = &tally.inputs[0].stats;
        let requests: u64 = stats.pairs.values().map(|c| c.requests).sum();
        assert_eq!(requests, (PAIRS + BLOCKS) as u64);
        assert!(
            stats.pairs.len() <= 2 * (PAIRS + 1),
            "{}",
            stats.pairs.len()
        );
    }
}
