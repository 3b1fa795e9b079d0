//! Where verdicts go: the audit pushes, its consumers implement these traits.
//!
//! The per-request [`Auditor`](super::auditor::Auditor) turns a parsed request into a
//! [`Verdict`] and hands it to a [`Sink`], as ripgrep's searcher hands matches to a printer. The
//! audit's own counters ([`Stats`](super::stats::Stats)) are a sink; the report writers
//! (`src/report`) are another; the audit knows neither's format. A sink is one thread's: each
//! worker owns one, made by the run's [`Output`], so a verdict is never shared or locked.
//!
//! Invariant: for each input, a worker calls [`Sink::block_done`] once per block it processed,
//! after the verdicts of that block's lines, and the scheduler calls [`Output::input_done`] once
//! per input with its number of blocks; blocks of one input may finish in any order.

use std::io;

use robots_audit_bots::Verification;
use robots_audit_logs::Request;

use super::identity::AgentInfo;
use super::judge::Judgement;
use crate::ids::{AgentId, OriginId};
use crate::versions::VersionSet;

/// The verdict on one request of a resolved agent, with everything a report shows of it.
#[derive(Debug, Clone, Copy)]
pub struct Verdict<'a> {
    /// The request as parsed.
    pub request: &'a Request<'a>,
    /// The input file's position among the inputs.
    pub input: usize,
    /// The input file's name as reports show it, and the line number.
    pub source: (&'a str, u64),
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
    /// The verdict.
    pub judgement: Judgement,
    /// The robots versions the judgement points into.
    pub robots: &'a VersionSet,
}

/// One worker thread's receiver of verdicts.
pub trait Sink {
    /// One request of a resolved agent (robots fetches and unjudged requests included).
    fn verdict(&mut self, verdict: &Verdict<'_>);

    /// Every verdict of block `seq` of input `input` has been pushed.
    fn block_done(&mut self, input: usize, seq: u64) -> io::Result<()> {
        let _ = (input, seq);
        Ok(())
    }
}

/// Both sinks get every verdict, the first one first (static dispatch: no call through a
/// pointer per line).
impl<A: Sink, B: Sink> Sink for (A, B) {
    #[inline]
    fn verdict(&mut self, verdict: &Verdict<'_>) {
        self.0.verdict(verdict);
        self.1.verdict(verdict);
    }

    fn block_done(&mut self, input: usize, seq: u64) -> io::Result<()> {
        self.0.block_done(input, seq)?;
        self.1.block_done(input, seq)
    }
}

/// A sink that keeps nothing.
impl Sink for () {
    #[inline]
    fn verdict(&mut self, _: &Verdict<'_>) {}
}

/// The shared side of a run's consumer: makes one [`Sink`] per worker thread and hears when an
/// input is complete.
pub trait Output: Sync {
    /// The per-thread sink.
    type Sink: Sink + Send;

    /// A sink for one more worker thread.
    fn sink(&self) -> Self::Sink;

    /// Input `input` has `blocks` blocks, each already passed to [`Sink::block_done`] or about
    /// to be: its reader reached its end (or could not open it: 0 blocks).
    fn input_done(&self, input: usize, blocks: u64) -> io::Result<()>;
}

/// No output besides the counters of the result.
impl Output for () {
    type Sink = ();

    fn sink(&self) {}

    fn input_done(&self, _: usize, _: u64) -> io::Result<()> {
        Ok(())
    }
}
