//! Where the audit's events go: the audit pushes, its consumers implement these traits.
//!
//! The scheduler and the per-request [`Auditor`](super::auditor::Auditor) say everything they
//! learn of an input as events, and hand them to a [`Sink`], as ripgrep's searcher hands matches
//! and the start and end of each file to a printer: the start of an input, each request of a
//! resolved agent with its judgement ([`AgentRequest`]), each request whose user-agent is not a
//! bot's ([`NotABot`]), each skipped line ([`Skipped`]), each block done, and the end of an
//! input with what its reader knows ([`InputEnded`]). The audit keeps no tally of its own: its
//! counters are a sink ([`Tally`](super::tally::Tally)), the report writers (`src/report`) are
//! another, and the audit knows neither's format. A sink is one worker thread's, made by the
//! run's [`Output`], so an event is never shared or locked.
//!
//! Invariants:
//! - Every parsed request is announced exactly once by [`Sink::not_fetched`],
//!   [`Sink::not_a_bot`], or [`Sink::agent_request`] of a bot; a request whose header is not a
//!   bot's but that is judged anyway (`--all-agents`) gets [`Sink::not_a_bot`], then
//!   [`Sink::agent_request`] with an agent that is not a bot.
//! - For each input, a worker calls [`Sink::block_done`] once per block it processed, after the
//!   events of that block's lines; one worker calls [`Sink::input_started`] when the input is
//!   opened and one calls [`Sink::input_ended`] once its reader reached its end (or could not
//!   open it), with its number of blocks. Blocks of one input may finish in any order, before or
//!   after its end.

use std::borrow::Cow;
use std::io;

use jiff::Timestamp;
use robots_audit_bots::Verification;
use robots_audit_logs::{Format, Request, SkipReason};

use super::identity::{AgentInfo, HeaderKey, header_of};
use super::judge::Judgement;
use crate::ids::{AgentId, OriginId};
use crate::versions::VersionSet;

/// One request of a resolved agent with its judgement, and everything a report shows of it.
#[derive(Debug, Clone, Copy)]
pub struct AgentRequest<'a> {
    /// The request as parsed.
    pub request: &'a Request<'a>,
    /// The input file's position among the inputs.
    pub input: usize,
    /// The input file's name as reports show it, and the line number.
    pub source: (&'a str, u64),
    /// Its user-agent header's key in the worker's identity cache: the same key means the same
    /// header.
    pub header: HeaderKey,
    /// Who made it.
    pub agent: AgentId,
    /// Its description (name, tokens, whether it is a bot).
    pub agent_info: &'a AgentInfo,
    /// The origin it went to.
    pub origin: OriginId,
    /// The origin normalised (`https://example.com`), empty when the line named none.
    pub origin_name: &'a str,
    /// The path (with query) that was matched.
    pub path: &'a [u8],
    /// Whether its address is in the agent's published ranges.
    pub verification: Verification,
    /// The judgement.
    pub judgement: Judgement,
    /// The robots versions the judgement points into.
    pub robots: &'a VersionSet,
}

/// A request whose user-agent header is not a bot's: what `unknown_agents.csv` counts.
#[derive(Debug, Clone, Copy)]
pub struct NotABot<'a> {
    /// The request as parsed.
    pub request: &'a Request<'a>,
    /// The input file's position among the inputs.
    pub input: usize,
    /// The line number.
    pub line: u64,
    /// The header's key in the worker's identity cache: the same key means the same header.
    pub key: HeaderKey,
    /// What stands in for an empty header (`--user-agent`).
    pub fallback: Option<&'a [u8]>,
}

impl<'a> NotABot<'a> {
    /// The header as the request is identified by it: decoded, or the fallback for an empty
    /// one. Decoding an escaped header allocates: a sink asks only for a key it has not seen.
    pub fn header(&self) -> Cow<'a, [u8]> {
        header_of(self.request.user_agent, self.fallback)
    }
}

/// A line the parser could not read: counted, and sampled for `skipped_lines.csv`.
#[derive(Debug, Clone, Copy)]
pub struct Skipped<'a> {
    /// The input file's position among the inputs.
    pub input: usize,
    /// The line number.
    pub line: u64,
    /// Why it was skipped.
    pub reason: SkipReason,
    /// The line.
    pub text: &'a [u8],
}

/// An input opened by its reader.
#[derive(Debug, Clone, Copy)]
pub struct InputStarted<'a> {
    /// The input file's position among the inputs.
    pub input: usize,
    /// The compression its first bytes showed (`gzip`, `zstd`, `plain`, ...).
    pub compression: &'a str,
}

/// An input whose reader reached its end, stopped at damage, or could not open it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputEnded {
    /// The input file's position among the inputs.
    pub input: usize,
    /// How many blocks it had (0 when it could not be opened).
    pub blocks: u64,
    /// Bytes read from the file (compressed).
    pub bytes_read: u64,
    /// Bytes after decompression.
    pub bytes: u64,
    /// The format its lines were read in, once known.
    pub format: Option<Format>,
    /// Its compression, once opened.
    pub compression: Option<String>,
    /// Why reading stopped early or never started, if it did.
    pub error: Option<String>,
    /// The content fingerprint of the bytes read (see `LogReader::fingerprint`); `None` when
    /// no byte was read.
    pub fingerprint: Option<u128>,
}

/// One worker thread's receiver of the audit's events. Only [`Sink::agent_request`] must be
/// implemented: a sink ignores the events it does not need.
pub trait Sink {
    /// A request of a resolved agent (robots fetches and unjudged requests included).
    fn agent_request(&mut self, request: &AgentRequest<'_>);

    /// A request whose user-agent header is not a bot's.
    #[inline]
    fn not_a_bot(&mut self, request: &NotABot<'_>) {
        let _ = request;
    }

    /// A line of a crawler's own fetch log for a fetch it did not make (Heritrix `-9998` and
    /// the like): a request to no site, made at `time`.
    #[inline]
    fn not_fetched(&mut self, input: usize, time: Timestamp) {
        let _ = (input, time);
    }

    /// A line the parser could not read.
    #[inline]
    fn skipped(&mut self, line: &Skipped<'_>) {
        let _ = line;
    }

    /// Every event of block `seq` of input `input`, of `lines` lines, has been pushed.
    fn block_done(&mut self, input: usize, seq: u64, lines: u64) -> io::Result<()> {
        let _ = (input, seq, lines);
        Ok(())
    }

    /// Input `started.input` was opened.
    fn input_started(&mut self, started: &InputStarted<'_>) -> io::Result<()> {
        let _ = started;
        Ok(())
    }

    /// Input `ended.input` has no block left to read.
    fn input_ended(&mut self, ended: &InputEnded) -> io::Result<()> {
        let _ = ended;
        Ok(())
    }
}

/// Both sinks get every event, the first one first (static dispatch: no call through a pointer
/// per line).
impl<A: Sink, B: Sink> Sink for (A, B) {
    #[inline]
    fn agent_request(&mut self, request: &AgentRequest<'_>) {
        self.0.agent_request(request);
        self.1.agent_request(request);
    }

    #[inline]
    fn not_a_bot(&mut self, request: &NotABot<'_>) {
        self.0.not_a_bot(request);
        self.1.not_a_bot(request);
    }

    #[inline]
    fn not_fetched(&mut self, input: usize, time: Timestamp) {
        self.0.not_fetched(input, time);
        self.1.not_fetched(input, time);
    }

    #[inline]
    fn skipped(&mut self, line: &Skipped<'_>) {
        self.0.skipped(line);
        self.1.skipped(line);
    }

    fn block_done(&mut self, input: usize, seq: u64, lines: u64) -> io::Result<()> {
        self.0.block_done(input, seq, lines)?;
        self.1.block_done(input, seq, lines)
    }

    fn input_started(&mut self, started: &InputStarted<'_>) -> io::Result<()> {
        self.0.input_started(started)?;
        self.1.input_started(started)
    }

    fn input_ended(&mut self, ended: &InputEnded) -> io::Result<()> {
        self.0.input_ended(ended)?;
        self.1.input_ended(ended)
    }
}

/// A sink that keeps nothing.
impl Sink for () {
    #[inline]
    fn agent_request(&mut self, _: &AgentRequest<'_>) {}
}

/// The shared side of a run's consumer: makes one [`Sink`] per worker thread.
pub trait Output: Sync {
    /// The per-thread sink.
    type Sink: Sink + Send;

    /// A sink for one more worker thread.
    fn sink(&self) -> Self::Sink;
}

/// No output besides the audit's counters.
impl Output for () {
    type Sink = ();

    fn sink(&self) {}
}
