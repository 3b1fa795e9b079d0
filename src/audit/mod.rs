//! The audit: parsed requests in, events and counters out.
//!
//! [`run`] reads the inputs with the [`schedule`]r, whose worker threads each hand their
//! blocks to a per-thread [`auditor`], which pushes the events of each request ([`sink`]) into
//! the run's counters ([`tally`]: per input, the [`stats`], the headers that are not bots'
//! [`unknown`] table, the lines of [`file_report`]) and into the [`sink::Output`] the caller
//! gives (the report writers, in the command). The run ends with each input's tally, of which
//! the caller makes the run's [`State`](crate::state::State). Loading the catalog, the ranges
//! and the robots versions is the caller's; this module never sees a report's format.

pub mod auditor;
pub mod checked;
mod entries;
pub mod error;
pub mod explain;
pub mod file_report;
pub mod fold;
pub mod hourly;
pub mod identity;
mod inputs;
pub mod judge;
mod origin_table;
pub mod rate;
mod recent;
pub mod renumber;
pub mod schedule;
pub mod sink;
pub mod stats;
pub mod tally;
pub mod unknown;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use jiff::SignedDuration;
use robots_audit_bots::dns::DnsVerifier;
use robots_audit_bots::{Catalog, Verifier};
use robots_audit_logs::{FieldMap, Format};

pub use self::inputs::{
    Input, InputError, InputFilter, expand_inputs, expand_selected_inputs, natural_order,
};

use self::auditor::{AuditContext, BlockAuditor};
use self::error::AuditError;
use self::identity::Identifier;
use self::judge::Judge;
use self::renumber::IdMap;
use self::schedule::Schedule;
use self::sink::Output;
use self::tally::{RunTally, SharedSum, Tally};
use crate::ids::{AgentId, OriginId, VersionId};
use crate::origin::Origin;
use crate::versions::VersionSet;
use crate::versions::summary::RobotsSummary;

/// How to audit: the options of `robots-audit audit` that act on each request.
#[derive(Debug, Clone)]
pub struct AuditConfig {
    /// `--origin`: the origin of lines that carry none.
    pub origin: Option<Origin>,
    /// `--format`; `None` detects it per file.
    pub format: Option<Format>,
    /// `--field` mappings for JSON logs.
    pub fields: FieldMap,
    /// `--grace`.
    pub grace: SignedDuration,
    /// `--strict`: requests of agents robots.txt does not bind by their operator's word
    /// (`user_triggered`, `ignores`) are violations, not `exempt`.
    pub strict: bool,
    /// `--all-agents`.
    pub all_agents: bool,
    /// `--threads`.
    pub threads: usize,
    /// Show the progress bar.
    pub progress: bool,
    /// `--user-agent`: stands in for lines that carry no user-agent (crawl logs).
    pub fallback_user_agent: Option<Vec<u8>>,
    /// Set from a signal handler to stop the run; no report is written then.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// How many distinct user-agent headers that are not bots are counted exactly
    /// (`unknown_agents.csv`); past that the counts are estimates ([`unknown`]).
    pub unknown_agents_limit: usize,
    /// `--verify dns`: forward-confirmed reverse DNS, shared by the worker threads; its cache
    /// holds this run's answers afterwards.
    pub dns: Option<Arc<Mutex<DnsVerifier>>>,
    /// How many self-declared or list-matched agents, and how many origins without a robots
    /// source, are kept; the others are folded ([`fold`]).
    pub kept_names: usize,
}

/// Threads when none are asked for: every core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Default for AuditConfig {
    fn default() -> AuditConfig {
        AuditConfig {
            origin: None,
            format: None,
            fields: FieldMap::default(),
            grace: SignedDuration::from_hours(24),
            strict: false,
            all_agents: false,
            threads: default_threads(),
            progress: false,
            fallback_user_agent: None,
            interrupt: None,
            unknown_agents_limit: unknown::EXACT_LIMIT,
            dns: None,
            kept_names: fold::KEPT_NAMES,
        }
    }
}

impl AuditConfig {
    /// Whether a signal asked the run to stop.
    pub fn interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}

/// The environment variable that sets the entries from which a worker thread moves its
/// counters of an input to the run's shared sum ([`tally::SHARE_FROM`] without it): for tests
/// that make small runs take that path.
const SHARE_COUNTERS_FROM: &str = "ROBOTS_AUDIT_SHARE_COUNTERS_FROM";

/// A [`SHARE_COUNTERS_FROM`] that is not a number of entries.
#[derive(Debug, thiserror::Error)]
#[error("{SHARE_COUNTERS_FROM}={0:?} is not a number of entries")]
struct ShareFromError(std::ffi::OsString);

fn share_from() -> Result<usize, ShareFromError> {
    match std::env::var_os(SHARE_COUNTERS_FROM) {
        None => Ok(tally::SHARE_FROM),
        Some(value) => value
            .to_str()
            .and_then(|text| text.trim().parse().ok())
            .ok_or(ShareFromError(value)),
    }
}

/// The ids of a table's positions after [`fold::without_retired`] (`None`: as they were, `len`
/// of them).
fn new_ids<Id>(
    positions: Option<Vec<usize>>,
    len: usize,
    id: fn(usize) -> Option<Id>,
) -> Result<Vec<Id>, AuditError> {
    let positions = positions.unwrap_or_else(|| (0..len).collect());
    positions
        .into_iter()
        .map(|at| id(at).ok_or_else(|| AuditError::Fatal("too many ids for a table".into())))
        .collect()
}

/// Audits `inputs` and returns what the run counted of each, pushing every event into
/// `output` as well. `catalog` names the agents, `verifier` holds the published ranges, `robots`
/// the robots versions (summarised in the result for the reports). Fails when no input could be
/// read at all, when `output` fails, or when `config.interrupt` was raised
/// ([`AuditError::Interrupted`]).
pub fn run<O: Output>(
    config: &AuditConfig,
    catalog: &Catalog,
    verifier: &Verifier,
    robots: VersionSet,
    inputs: &[Input],
    output: &O,
) -> Result<RunTally, AuditError> {
    let identifier = Identifier::new(catalog, config.all_agents).keeping(config.kept_names);
    let judge = Judge::new(&robots, config.grace).strict(config.strict);
    let mut context = AuditContext::new(&identifier, &judge, verifier, inputs);
    context.keep_origins(config.kept_names);
    context.default_origin = config.origin.as_ref();
    context.fallback_user_agent = config.fallback_user_agent.as_deref();
    context.dns = config.dns.as_deref();
    let schedule = Schedule {
        threads: config.threads,
        format: config.format,
        fields: &config.fields,
        progress: config.progress,
        interrupt: config.interrupt.as_deref(),
    };
    let limit = config.unknown_agents_limit;
    let shared = Arc::new(SharedSum::default());
    let share_from = share_from().map_err(|e| AuditError::Fatal(e.to_string()))?;
    let handlers = schedule::run(schedule, inputs, || {
        let tally = Tally::new(limit).sharing(Arc::clone(&shared), share_from);
        BlockAuditor::new(&context, tally, output.sink())
    })?;
    let tallies = handlers.into_iter().map(|handler| handler.sink.0).collect();
    let zone = config.fields.local_zone().name();
    let sum_failed = |e| AuditError::Fatal(format!("cannot sum the counters of the threads: {e}"));
    let mut tallies = tally::fold(tallies, inputs, (limit, zone)).map_err(sum_failed)?;
    let (origins, origin_ids, folded_origins) = context.into_origins();
    let (agents, agent_ids, folded_agents) = identifier.into_agents();
    if agent_ids.is_some() || origin_ids.is_some() {
        // What threads counted of the retired after their last block goes to the fold rows.
        let map = IdMap {
            agents: new_ids(agent_ids, agents.len(), AgentId::from_index)?,
            origins: new_ids(origin_ids, origins.len(), OriginId::from_index)?,
            versions: new_ids(None, robots.versions().len(), VersionId::from_index)?,
        };
        for tally in &mut tallies {
            tally.stats = std::mem::take(&mut tally.stats)
                .remap(&map)
                .map_err(sum_failed)?;
        }
    }
    if tallies
        .iter()
        .all(|t| t.file.error.is_some() && t.file.lines == 0)
    {
        let first = tallies.first().map(|t| {
            format!(
                "{}: {}",
                t.file.name,
                t.file.error.as_deref().unwrap_or_default()
            )
        });
        return Err(AuditError::Fatal(format!(
            "no readable input ({})",
            first.unwrap_or_default()
        )));
    }
    Ok(RunTally {
        folded: fold::Folded {
            agents: folded_agents,
            origins: folded_origins,
        },
        agents,
        origins,
        robots: Arc::new(RobotsSummary::of(&robots)),
        inputs: tallies,
    })
}
