//! The audit: parsed requests in, verdicts and counters out.
//!
//! [`run`] reads the inputs with the [`schedule`]r, whose worker threads each hand their
//! blocks to a per-thread [`auditor`], which pushes one [`sink::Verdict`] per request into the
//! counters ([`stats`]) and into the [`sink::Output`] the caller gives (the report writers, in
//! the command), and counts the requests of headers that are not bots ([`unknown`]). Loading
//! the catalog, the ranges and the robots versions is the caller's; this module never sees a
//! report's format.

pub mod auditor;
mod entries;
pub mod explain;
pub mod hourly;
pub mod identity;
pub mod judge;
pub mod rate;
mod recent;
pub mod schedule;
mod seconds;
pub mod sink;
pub mod stats;
pub mod unknown;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use jiff::{SignedDuration, Timestamp};
use robots_audit_bots::dns::DnsVerifier;
use robots_audit_bots::{Catalog, Verifier};
use robots_audit_logs::{FieldMap, Format, SkipReason, Source};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use self::auditor::{AuditContext, BlockAuditor, FileCounts, SAMPLES_PER_FILE};
use self::identity::{AgentInfo, Identifier};
use self::judge::Judge;
use self::schedule::Schedule;
use self::sink::Output;
use self::stats::Stats;
use self::unknown::UnknownAgents;
use crate::error::Error;
use crate::ids::{AgentId, OriginId};
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

/// One input file (a `LOG` argument, or a file of a directory argument).
#[derive(Debug, Clone)]
pub struct Input {
    /// As shown in reports: the path as given, or `-`.
    pub name: String,
    /// Where to read it from.
    pub source: Source,
    /// Its size on disk, for the progress bar.
    pub size: Option<u64>,
}

/// A skipped line, sampled for `skipped_lines.csv`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Its line number.
    pub line: u64,
    /// Why it was skipped (read back only as one of the parser's reasons).
    #[serde(deserialize_with = "skip_reason")]
    pub reason: Label,
    /// Its first 200 bytes, as UTF-8.
    pub excerpt: String,
}

impl Sample {
    /// Samples `line`.
    pub fn new(line_no: u64, reason: &'static str, line: &[u8]) -> Sample {
        let cut = &line[..line.len().min(200)];
        Sample {
            line: line_no,
            reason,
            excerpt: String::from_utf8_lossy(cut).into_owned(),
        }
    }
}

/// A name from a fixed list (a format's, a skip reason's). Named so that serde's derive reads it
/// through the functions below instead of borrowing it from the input, which a `&'static str`
/// written out would make it try.
pub type Label = &'static str;

/// A skip reason read back from `state.json`: one of the parser's, or an error.
fn skip_reason<'de, D: Deserializer<'de>>(deserializer: D) -> Result<&'static str, D::Error> {
    let reason = String::deserialize(deserializer)?;
    SkipReason::ALL
        .iter()
        .map(SkipReason::as_str)
        .find(|r| *r == reason)
        .ok_or_else(|| D::Error::custom(format!("unknown skip reason {reason:?}")))
}

/// A log format's name read back from `state.json`: one of the formats', or an error.
fn format_name<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'static str>, D::Error> {
    Option::<String>::deserialize(deserializer)?
        .map(|name| {
            Format::from_name(&name)
                .map(|f| f.name())
                .ok_or_else(|| D::Error::custom(format!("unknown log format {name:?}")))
        })
        .transpose()
}

/// What happened to one input file (`inputs.csv`), as `state.json` keeps it too.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileReport {
    /// As shown in reports.
    pub name: String,
    /// The format used (read back only as one of the formats' names).
    #[serde(deserialize_with = "format_name")]
    pub format: Option<Label>,
    /// gzip, zstd or plain.
    pub compression: Option<String>,
    /// Bytes read from the file (compressed).
    pub bytes_read: u64,
    /// Bytes after decompression.
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// Lines parsed into requests.
    pub parsed: u64,
    /// Lines skipped as malformed.
    pub skipped: u64,
    /// Requests from bots.
    pub bot_requests: u64,
    /// Other requests.
    pub other_requests: u64,
    /// Earliest request time.
    pub first_time: Option<Timestamp>,
    /// Latest request time.
    pub last_time: Option<Timestamp>,
    /// Why reading stopped early, if it did.
    pub error: Option<String>,
    /// The content fingerprint of the bytes read (XXH3-128; see `LogReader::fingerprint`);
    /// `None` when no byte was read. Not shown in `inputs.csv`: `merge` counts an input held
    /// by two reports once by it (the state keeps it beside the file, in hex).
    #[serde(skip)]
    pub fingerprint: Option<u128>,
    /// The first skipped lines.
    pub samples: Vec<Sample>,
}

impl FileReport {
    fn new(name: &str) -> FileReport {
        FileReport {
            name: name.to_owned(),
            ..FileReport::default()
        }
    }

    fn merge(&mut self, counts: FileCounts) {
        self.lines += counts.lines;
        self.parsed += counts.parsed;
        self.skipped += counts.skipped;
        self.bot_requests += counts.bot_requests;
        self.other_requests += counts.other_requests;
        self.first_time = [self.first_time, counts.first_time]
            .into_iter()
            .flatten()
            .min();
        self.last_time = [self.last_time, counts.last_time]
            .into_iter()
            .flatten()
            .max();
        self.samples.extend(counts.samples);
    }
}

/// The outcome of a run, as the reports show it.
#[derive(Debug)]
pub struct AuditResult {
    /// The agents seen, indexed by [`AgentId`].
    pub agents: Vec<AgentInfo>,
    /// The origins seen, indexed by [`OriginId`]; the empty string for lines without one.
    pub origins: Vec<String>,
    /// The counters: the sum of `input_stats`.
    pub stats: Stats,
    /// The counters of each input, in argument order (what `state.json` keeps).
    pub input_stats: Vec<Stats>,
    /// One per input, in argument order.
    pub files: Vec<FileReport>,
    /// What the reports show of the robots versions, indexed by [`VersionId`](crate::ids::VersionId).
    pub robots: Arc<RobotsSummary>,
    /// Requests of the user-agent headers that were not identified as bots: the tables of
    /// `input_unknown_agents` merged in input order.
    pub unknown_agents: UnknownAgents,
    /// The same, of each input, in argument order (what `state.json` keeps).
    pub input_unknown_agents: Vec<UnknownAgents>,
}

impl AuditResult {
    /// A result from its parts, each by input; the totals are the per-input counters summed
    /// in input order.
    pub fn new(
        agents: Vec<AgentInfo>,
        origins: Vec<String>,
        input_stats: Vec<Stats>,
        files: Vec<FileReport>,
        robots: Arc<RobotsSummary>,
        input_unknown_agents: Vec<UnknownAgents>,
    ) -> AuditResult {
        let mut stats = Stats::default();
        for counters in &input_stats {
            stats.merge(counters.clone());
        }
        let limit = input_unknown_agents
            .first()
            .map_or(unknown::EXACT_LIMIT, UnknownAgents::limit);
        let mut unknown_agents = UnknownAgents::new(limit);
        for table in &input_unknown_agents {
            unknown_agents.merge(table.clone());
        }
        AuditResult {
            agents,
            origins,
            stats,
            input_stats,
            files,
            robots,
            unknown_agents,
            input_unknown_agents,
        }
    }

    /// An agent's name.
    pub fn agent_name(&self, agent: AgentId) -> &str {
        self.agents
            .get(agent.index())
            .map_or("", |a| a.bot.name.as_str())
    }

    /// An origin's name.
    pub fn origin_name(&self, origin: OriginId) -> &str {
        self.origins.get(origin.index()).map_or("", String::as_str)
    }

    /// Whether some input had an error (exit code 3).
    pub fn input_errors(&self) -> bool {
        self.files.iter().any(|f| f.error.is_some())
    }

    /// Why nothing could be judged, in one line, when requests that the audit judges were read
    /// and none of them was (exit code 3): the lines carried no host and no `--origin` stood
    /// in, no robots source names the origins seen, or no version was in force yet at the
    /// requests' times. `None` when something was judged or nothing needed judging (robots.txt
    /// fetches are never judged).
    pub fn nothing_judged(&self) -> Option<String> {
        let mut judged = 0u64;
        let mut unjudged: BTreeMap<OriginId, u64> = BTreeMap::new();
        for (&(_, origin), counts) in &self.stats.pairs {
            judged += counts.judged();
            if counts.unjudged > 0 {
                *unjudged.entry(origin).or_default() += counts.unjudged;
            }
        }
        let total: u64 = unjudged.values().sum();
        if judged > 0 || total == 0 {
            return None;
        }
        let mut hostless = 0u64;
        // Origins with unjudged requests, the most requested first (ties by name).
        let mut unnamed: Vec<(&str, u64)> = Vec::new();
        let mut not_yet: Vec<(&str, u64, Option<Timestamp>)> = Vec::new();
        for (&origin, &count) in &unjudged {
            let name = self.origin_name(origin);
            if name.is_empty() {
                hostless += count;
                continue;
            }
            let first = Origin::parse(name)
                .ok()
                .and_then(|o| self.robots.first_version_of(&o));
            match first {
                None => unnamed.push((name, count)),
                Some(first) => not_yet.push((name, count, first.valid_from)),
            }
        }
        unnamed.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        not_yet.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        let mut causes = Vec::new();
        if hostless > 0 {
            let mut cause = "the lines carry no host and --origin was not given".to_owned();
            if hostless < total {
                cause.push_str(&format!(" ({hostless} requests)"));
            }
            causes.push(cause);
        }
        if let Some((first, _)) = unnamed.first() {
            let seen = unnamed.len() + not_yet.len();
            let which = if not_yet.is_empty() {
                format!("any of the {seen} origins seen")
            } else {
                format!("{} of the {seen} origins seen", unnamed.len())
            };
            let mut cause = format!("no robots source names {which} (most requested: {first})");
            let mut named: Vec<&str> = self
                .robots
                .versions
                .iter()
                .map(|v| v.origin.as_str())
                .collect();
            named.sort_unstable();
            named.dedup();
            if named.is_empty() {
                cause.push_str("; the robots sources hold no robots.txt");
            } else {
                let shown = named.len().min(NAMED_SHOWN);
                cause.push_str(&format!(
                    "; the robots sources name {}",
                    named[..shown].join(", ")
                ));
                if named.len() > shown {
                    cause.push_str(&format!(" and {} more", named.len() - shown));
                }
            }
            causes.push(cause);
        }
        if let Some((first, _, from)) = not_yet.first() {
            let from = from.map_or_else(String::new, |t| {
                format!(", whose first version is valid from {t}")
            });
            causes.push(format!(
                "no robots.txt version was in force yet when {} origins were requested \
                 (e.g. {first}{from})",
                not_yet.len()
            ));
        }
        Some(format!(
            "nothing judged: {total} requests could not be judged: {}",
            causes.join("; ")
        ))
    }
}

/// How many of the origins the robots sources name a "nothing judged" message shows.
const NAMED_SHOWN: usize = 3;

/// Expands `LOG` arguments: a directory stands for its regular files, sorted by name. A
/// directory with no regular file, or one that cannot be listed, is an error naming it.
pub fn expand_inputs(logs: &[PathBuf]) -> Result<Vec<Input>, Error> {
    let mut inputs = Vec::new();
    for log in logs {
        if log.as_os_str() == "-" {
            inputs.push(Input {
                name: "-".into(),
                source: Source::Stdin,
                size: None,
            });
            continue;
        }
        if log.is_dir() {
            let mut files: Vec<PathBuf> = fs::read_dir(log)
                .and_then(|rd| rd.map(|e| e.map(|e| e.path())).collect())
                .map_err(|e| {
                    Error::Fatal(format!("cannot list log directory {}: {e}", log.display()))
                })?;
            files.retain(|p| fs::metadata(p).map(|m| m.is_file()).unwrap_or(true));
            if files.is_empty() {
                // An empty night would otherwise pass for a quiet one.
                return Err(Error::Fatal(format!(
                    "log directory {} holds no file to read (its subdirectories are not read)",
                    log.display()
                )));
            }
            files.sort();
            inputs.extend(files.into_iter().map(|p| file_input(&p)));
        } else {
            inputs.push(file_input(log));
        }
    }
    Ok(inputs)
}

fn file_input(path: &Path) -> Input {
    Input {
        name: path.display().to_string(),
        source: Source::Path(path.to_path_buf()),
        size: fs::metadata(path).ok().map(|m| m.len()),
    }
}

/// Audits `inputs` and returns what the reports show, pushing every verdict into `output` as
/// well. `catalog` names the agents, `verifier` holds the published ranges, `robots` the robots
/// versions (kept in the result for the reports). Fails when no input could be read at all,
/// when `output` fails, or when `config.interrupt` was raised ([`Error::Interrupted`]).
pub fn run<O: Output>(
    config: &AuditConfig,
    catalog: &Catalog,
    verifier: &Verifier,
    robots: VersionSet,
    inputs: &[Input],
    output: &O,
) -> Result<AuditResult, Error> {
    let identifier = Identifier::new(catalog, config.all_agents);
    let judge = Judge::new(&robots, config.grace).strict(config.strict);
    let mut context = AuditContext::new(&identifier, &judge, verifier, inputs);
    context.default_origin = config.origin.as_ref();
    context.fallback_user_agent = config.fallback_user_agent.as_deref();
    context.unknown_agents_limit = config.unknown_agents_limit;
    context.dns = config.dns.as_deref();
    let schedule = Schedule {
        threads: config.threads,
        format: config.format,
        fields: &config.fields,
        progress: config.progress,
        interrupt: config.interrupt.as_deref(),
    };
    let input_done = |input, blocks| output.input_done(input, blocks);
    let (handlers, mut files) = schedule::run(
        schedule,
        inputs,
        || BlockAuditor::new(&context, output.sink()),
        &input_done,
    )
    .map_err(|e| {
        if config.interrupted() {
            Error::Interrupted
        } else {
            Error::Fatal(e)
        }
    })?;
    let mut input_stats: Vec<Stats> = Vec::new();
    input_stats.resize_with(inputs.len(), Stats::default);
    let mut input_unknown: Vec<UnknownAgents> = (0..inputs.len())
        .map(|_| UnknownAgents::new(config.unknown_agents_limit))
        .collect();
    for mut handler in handlers {
        for (total, table) in input_unknown
            .iter_mut()
            .zip(handler.auditor.take_unknown_agents_by_input())
        {
            total.merge(table);
        }
        let (counters, _) = handler.sink;
        for (total, counters) in input_stats.iter_mut().zip(counters.by_input) {
            total.merge(counters);
        }
        for (report, counts) in files.iter_mut().zip(handler.auditor.into_file_counts()) {
            report.merge(counts);
        }
    }
    for report in &mut files {
        report.samples.sort_by_key(|s| s.line);
        report.samples.truncate(SAMPLES_PER_FILE);
    }
    let origins = context.into_origins();
    if files.iter().all(|f| f.error.is_some() && f.lines == 0) {
        let first = files
            .first()
            .map(|f| format!("{}: {}", f.name, f.error.as_deref().unwrap_or_default()));
        return Err(Error::Fatal(format!(
            "no readable input ({})",
            first.unwrap_or_default()
        )));
    }
    let robots = Arc::new(RobotsSummary::of(&robots));
    Ok(AuditResult::new(
        identifier.into_agents(),
        origins,
        input_stats,
        files,
        robots,
        input_unknown,
    ))
}
