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
//!
//! A night of many virtual hosts gives every thread a counter for nearly every pair of agent and
//! origin, so kept per thread until the end they cost the pairs once per thread. A thread whose
//! counters of an input reach [`SHARE_FROM`] entries therefore moves them into the run's
//! [`SharedSum`] at the end of a block and counts on in its emptied tables; [`fold`] adds what
//! each thread still holds to that sum. Invariants: every event is counted exactly once, in a
//! thread's tally or in the shared sum; counters moved under an id retired since (or not moved
//! to the fold row yet) are moved with the shared sum's own (once its entries have doubled, as a
//! thread does) or by the run's renumbering at its end, so the sum is the same whenever, and by
//! whichever thread, counters were moved.

use std::sync::{Arc, Mutex, PoisonError};

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
    fn merge(&mut self, other: InputTally) -> Result<(), CountError> {
        self.file.merge(other.file);
        self.zone_assumed |= other.zone_assumed;
        self.merge_stats(other.stats)?;
        self.unknown_agents.merge(other.unknown_agents)
    }

    /// Adds counters of this input (a thread's, or the run's shared sum of them).
    fn merge_stats(&mut self, mut stats: Stats) -> Result<(), CountError> {
        if self.stats.pairs.is_empty() {
            // The first part's table of pairs becomes the sum's instead of being copied into
            // it: the copy was a third table of every pair beside two threads' at the run's
            // peak. A thread's counters merged into empty ones are themselves (none of their
            // sums can overflow: each is at most the lines read).
            std::mem::swap(&mut self.stats.pairs, &mut stats.pairs);
        }
        self.stats.merge(stats)
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
    /// The run's sum of the counters the threads moved out of their tallies, and the entries
    /// from which this thread moves its counters of an input there (`None`: it never does).
    shared: Option<(Arc<SharedSum>, usize)>,
}

/// Below this many entries, a thread's counters are moved to the fold rows as soon as it learns
/// of a retired id: it costs little, and the counters then show the fold rows at once.
const FOLD_AT_ONCE: usize = 1 << 12;

/// The entries (pairs, rules, hours and crawl-rate keys) from which a thread moves its counters
/// of an input to the run's [`SharedSum`]. Each move takes the sum's lock and goes through the
/// moved entries once, so this keeps runs of a few thousand pairs (the throughput benchmark's)
/// off that path, and costs a thread at most about 14 MB of counters of its own.
pub const SHARE_FROM: usize = 1 << 16;

/// What the worker threads moved out of their tallies, by input: one sum for the run.
#[derive(Debug, Default)]
pub struct SharedSum(Mutex<Shared>);

#[derive(Debug, Default)]
struct Shared {
    /// By input: the counters moved here.
    inputs: Vec<Stats>,
    /// Retired agents and origins whose counters here have not been moved to their fold rows.
    unfolded: Folding,
    /// How many retired agents and origins of the run `unfolded` has taken in.
    retired_seen: (usize, usize),
    /// The entries after the counters here were last moved to the fold rows.
    entries_after_folding: usize,
    /// Why a sum or a move to the fold rows failed, reported when the tallies are summed.
    failed: Option<CountError>,
}

impl SharedSum {
    /// Adds `stats`, counters of input `input`, leaving them empty; `retired_since` gives the
    /// agents and origins the run retired past a count of them, which the sum's counters are
    /// then moved out of once the sum has doubled since it last did (as a thread's are).
    fn add(
        &self,
        input: usize,
        stats: &mut Stats,
        retired_since: impl FnOnce(&mut (usize, usize)) -> Option<Folding>,
    ) {
        let mut shared = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let shared = &mut *shared;
        if shared.failed.is_some() {
            *stats = Stats::default();
            return;
        }
        if let Some(folding) = retired_since(&mut shared.retired_seen) {
            shared.unfolded.extend(&folding);
        }
        if shared.inputs.len() <= input {
            shared.inputs.resize_with(input + 1, Stats::default);
        }
        if let Err(e) = shared.inputs[input].drain_from(stats) {
            shared.failed = Some(e);
            return;
        }
        let entries: usize = shared.inputs.iter().map(Stats::entries).sum();
        if shared.unfolded.is_empty()
            || (entries > FOLD_AT_ONCE && entries < shared.entries_after_folding.saturating_mul(2))
        {
            return;
        }
        let folding = std::mem::take(&mut shared.unfolded);
        for part in &mut shared.inputs {
            match std::mem::take(part).remap(&folding) {
                Ok(stats) => *part = stats,
                Err(e) => {
                    shared.failed = Some(e);
                    return;
                }
            }
        }
        shared.entries_after_folding = shared.inputs.iter().map(Stats::entries).sum();
    }

    /// The counters moved here, by input, leaving the sum empty.
    fn take(&self) -> Result<Vec<Stats>, CountError> {
        let mut shared = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match shared.failed.take() {
            Some(e) => Err(e),
            None => Ok(std::mem::take(&mut shared.inputs)),
        }
    }
}

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
            shared: None,
        }
    }

    /// The same tally moving its counters of an input to `shared` once they hold `from`
    /// entries ([`Tally::share_if_large`]).
    pub fn sharing(mut self, shared: Arc<SharedSum>, from: usize) -> Tally {
        self.shared = Some((shared, from));
        self
    }

    /// At the end of a block of input `input`: moves this thread's counters of it to the run's
    /// shared sum when they hold the tally's threshold of entries, first moving what they hold
    /// under retired ids to the fold rows (so that the shared sum takes none this thread knows
    /// of). `retired_since` gives the ids the run retired past a count of them, as
    /// [`AuditContext::retired_since`](super::auditor::AuditContext::retired_since) does.
    #[inline]
    pub fn share_if_large(
        &mut self,
        input: usize,
        retired_since: impl FnOnce(&mut (usize, usize)) -> Option<Folding>,
    ) {
        let Some((_, from)) = self.shared else {
            return;
        };
        if self
            .inputs
            .get(input)
            .is_some_and(|tally| tally.stats.entries() >= from)
        {
            self.share(input, retired_since);
        }
    }

    /// Out of line: the block handler's code, run for every block, stays that of the check.
    #[cold]
    #[inline(never)]
    fn share(
        &mut self,
        input: usize,
        retired_since: impl FnOnce(&mut (usize, usize)) -> Option<Folding>,
    ) {
        if !self.unfolded.is_empty() {
            self.fold_unfolded();
        }
        if let (Some((shared, _)), Some(tally)) = (&self.shared, self.inputs.get_mut(input)) {
            shared.add(input, &mut tally.stats, retired_since);
        }
        self.entries_after_folding = self.entries();
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
        self.fold_unfolded();
    }

    /// Moves what this thread counted under the retired ids it knows of to their fold rows.
    fn fold_unfolded(&mut self) {
        let folding = std::mem::take(&mut self.unfolded);
        self.entries_folded = self.entries_folded.saturating_add(self.entries() as u64);
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
        stats
            .rates
            .record(key, super::hourly::second_of(request.request.time));
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
        // The shared sum first, so that its table of pairs, the largest, becomes the total's
        // and the threads' own are added to it.
        if let Some((shared, _)) = tally.shared {
            for (total, part) in folded.iter_mut().zip(shared.take()?) {
                total.merge_stats(part)?;
            }
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
pub(crate) mod tests {
    use super::*;
    use crate::audit::stats::RuleKey;
    use crate::ids::{AgentId, OriginId, VersionId};
    use proptest::prelude::*;
    use robots_audit_bots::Verification;
    use robots_audit_logs::Source;

    /// The agent the tests retire agents into.
    const OTHER: usize = 9;

    /// One counted request: its agent, origin, second, outcome and status, and its input.
    type Event = (usize, usize, i64, usize, u16, usize);

    /// Counts `event` into `tally` as the sink does: a pair, an hour, maybe a crawl rate and a
    /// rule. An agent already retired in `retired` counts in the fold row.
    fn record(tally: &mut Tally, event: Event, retired: &[AgentId]) {
        let (agent, origin, secs, outcome, status, input) = event;
        let mut agent = AgentId::from_index(agent).unwrap();
        if retired.contains(&agent) {
            agent = AgentId::from_index(OTHER).unwrap();
        }
        let origin = OriginId::from_index(origin).unwrap();
        let time = Timestamp::from_second(secs).unwrap();
        let outcome = Outcome::ALL[outcome];
        let stats = &mut tally.input(input).stats;
        stats
            .hourly
            .record(time, agent, outcome, status, Verification::Verified, false);
        if secs % 3 == 0 {
            let key = super::super::rate::RateKey {
                agent,
                origin,
                delay_ms: 5_000,
            };
            stats.rates.record(key, secs);
        }
        stats.pair(agent, origin).record(time, outcome, status);
        let rule = RuleKey {
            version: VersionId::default(),
            rule: Some(u32::try_from(secs % 4).unwrap()),
        };
        stats.rule_decided(rule, agent, outcome == Outcome::Disallowed);
    }

    /// Two inputs read from standard input, `one.log` and `two.log`.
    pub(crate) fn inputs() -> Vec<Input> {
        ["one.log", "two.log"]
            .into_iter()
            .map(|name| Input {
                name: name.into(),
                source: Source::Stdin,
                size: None,
            })
            .collect()
    }

    /// Each input's counters of `tallies` summed, under the fold rows of `retired`.
    fn summed(tallies: Vec<Tally>, retired: &[AgentId]) -> Vec<Stats> {
        let mut folding = Folding::default();
        folding.agents(retired, AgentId::from_index(OTHER));
        fold(tallies, &inputs(), (10, "UTC"))
            .unwrap()
            .into_iter()
            .map(|tally| tally.stats.remap(&folding).unwrap())
            .collect()
    }

    /// One thread's step: count an event, maybe retire its agent first, maybe end a block
    /// (learning of the retired agents, then moving its counters when they are large).
    type Step = (Event, bool, bool, bool);

    fn steps() -> impl Strategy<Value = Vec<Step>> {
        let event = (
            0usize..6,
            0usize..4,
            0i64..20_000,
            0usize..6,
            prop::sample::select(vec![200u16, 304, 404, 503]),
            0usize..2,
        );
        prop::collection::vec(
            (
                event,
                any::<bool>(),
                prop::bool::weighted(0.05),
                prop::bool::weighted(0.1),
            ),
            0..120,
        )
    }

    proptest! {
        /// Counting events on two threads that move their counters to the shared sum at any
        /// block end and at any size, with agents retired in between (counted under them
        /// before, in the fold row after), sums to what one thread counting them all does.
        #[test]
        fn moving_counters_to_the_shared_sum_at_any_point_gives_the_same_sum(
            steps in steps(),
            from in 0usize..12,
        ) {
            let shared = Arc::new(SharedSum::default());
            let mut threads = [
                Tally::new(10).sharing(Arc::clone(&shared), from),
                Tally::new(10).sharing(Arc::clone(&shared), from),
            ];
            let mut seen = [0usize; 2];
            let mut one = Tally::new(10);
            let mut retired: Vec<AgentId> = Vec::new();
            let log = std::cell::RefCell::new(Vec::new());
            let since = |cursor: &mut (usize, usize)| {
                let log = log.borrow();
                let ids: &[AgentId] = log.get(cursor.0..).unwrap_or_default();
                if ids.is_empty() {
                    return None;
                }
                cursor.0 += ids.len();
                let mut folding = Folding::default();
                folding.agents(ids, AgentId::from_index(OTHER));
                Some(folding)
            };
            for (at, &(event, second, retire, block_end)) in steps.iter().enumerate() {
                let agent = AgentId::from_index(event.0).unwrap();
                if retire && !retired.contains(&agent) {
                    retired.push(agent);
                    log.borrow_mut().push(agent);
                }
                let thread = usize::from(second);
                record(&mut one, event, &retired);
                // A thread counts under an agent retired since its last block end (its cache
                // still names it), as a worker does.
                let known = &retired[..seen[thread].min(retired.len())];
                record(&mut threads[thread], event, known);
                if block_end || at % 7 == 0 {
                    let mut cursor = (seen[thread], 0);
                    if let Some(folding) = since(&mut cursor) {
                        threads[thread].fold_retired(&folding);
                    }
                    seen[thread] = cursor.0;
                    threads[thread].share_if_large(event.5, since);
                }
            }
            let [first, second] = threads;
            let expected = summed(vec![one], &retired);
            prop_assert_eq!(summed(vec![first, second], &retired), expected);
        }
    }

    /// The shared sum moves what it holds under retired agents to their fold rows once it has
    /// doubled, so that names retired one after another do not pile up in it.
    #[test]
    fn the_shared_sum_moves_retired_counters_to_the_fold_rows() {
        const NAMES: usize = 20_000;
        let shared = SharedSum::default();
        let origin = OriginId::from_index(0).unwrap();
        let other = AgentId::from_index(NAMES).unwrap();
        let mut retired_up_to = 0;
        for i in 0..NAMES {
            let mut stats = Stats::default();
            stats.pair(AgentId::from_index(i).unwrap(), origin).requests += 1;
            shared.add(0, &mut stats, |seen: &mut (usize, usize)| {
                // Each name is retired once the next one is counted.
                let ids: Vec<AgentId> = (seen.0..retired_up_to)
                    .map(|i| AgentId::from_index(i).unwrap())
                    .collect();
                seen.0 = retired_up_to;
                let mut folding = Folding::default();
                folding.agents(&ids, Some(other));
                (!ids.is_empty()).then_some(folding)
            });
            assert!(stats.pairs.is_empty());
            retired_up_to = i + 1;
        }
        let held = shared.take().unwrap().swap_remove(0);
        let requests: u64 = held.pairs.values().map(|c| c.requests).sum();
        assert_eq!(requests, NAMES as u64);
        assert!(
            held.pairs.len() <= 2 * FOLD_AT_ONCE.max(1),
            "{} pairs held",
            held.pairs.len()
        );
        assert!(held.pairs.contains_key(&(other, origin)));
    }

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
