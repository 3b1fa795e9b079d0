//! `state.json`: what a report directory holds beyond its CSVs, so that reports can be merged.
//!
//! The CSVs cannot be re-added: distinct counts (`origins`, a rule's `agents`) do not add, and
//! an input held by two reports must count once. So `audit` and `merge` write, beside the CSVs,
//! a versioned and checksummed [`State`]: the settings that shaped the verdicts, the run's
//! agents, origins and robots versions (a [`RobotsSummary`]: what `robots.csv` and `rules.csv`
//! show, with each file's SHA-256, never the bodies), and per input its content fingerprint,
//! its `inputs.csv` row and skipped-line samples, its counters ([`Stats`], ids being positions
//! in the state's own tables) and what it contributed to each streamed report (rows and bytes
//! of `violations.csv`, `preference_conflicts.csv`, `decisions.csv`), plus the run's table of unknown agents.
//!
//! Invariants: every report of the directory is a function of the state and the streamed
//! files, and the audit renders its reports from the state it writes ([`State::to_result`]), so
//! `merge` renders what one audit over all the inputs renders. The tables are in one canonical
//! order ([`State::canonical`]) and maps are written as lists sorted by key, so the same inputs
//! and settings give the same bytes, whatever the thread count or the split into merged
//! reports. The file is `{"format":"robots-audit-state","version":3,"payload":...,"sha256":...}`,
//! where `sha256` is the SHA-256 of the payload's bytes exactly as they stand in the file
//! (compact JSON; the counters as lists of their fields in order, times as seconds since the
//! epoch); a reader refuses another format, a newer version, or a payload whose checksum differs.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write as _};
use std::path::Path;
use std::sync::Arc;

use robots_audit_bots::{Bot, BotPolicy, Catalog, Category};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use crate::audit::identity::AgentInfo;
use crate::audit::stats::{IdMap, Stats};
use crate::audit::unknown::{UnknownAgents, UnknownAgentsState};
use crate::audit::{AuditConfig, AuditResult, FileReport};
use crate::ids::{AgentId, OriginId, VersionId};
use crate::policy::summary::{RobotsSummary, hex};

/// The file name in a report directory.
pub const FILE: &str = "state.json";
/// The `format` field.
pub const FORMAT: &str = "robots-audit-state";
/// The version this build writes and the only one it reads. 2 added the crawl-rate counters,
/// the preference-conflict counts and whether an agent honours `Crawl-delay`; 3 writes the
/// counters as lists without field names and their times as seconds; 4 fingerprints an input
/// by its decompressed content (3 by its bytes as read, compressed or not), so that `a.log` and
/// `a.log.gz` are one input. An older state's inputs must be audited again.
pub const VERSION: u32 = 4;

/// The options that shaped the verdicts: reports made with different settings are not merged.
/// Every field is compared; the catalog and range lists by the SHA-256 of what was loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// `--grace`, in seconds.
    pub grace_seconds: i64,
    /// `--strict`.
    pub strict: bool,
    /// `--all-agents`.
    pub all_agents: bool,
    /// SHA-256 of the catalog as loaded (the built-in one and every `--bots` file).
    pub catalog_sha256: String,
    /// `--verify`: `dns`, or a range list as `[BOT=]SHA-256` of its files.
    pub verify: Vec<String>,
    /// `--origin`.
    pub origin: Option<String>,
    /// `--user-agent`.
    pub user_agent: Option<String>,
    /// `--format`.
    pub format: String,
    /// `--field` mappings.
    pub fields: Vec<String>,
    /// `--trust-forwarded`.
    pub trust_forwarded: bool,
    /// How many distinct unknown user-agent headers are counted exactly.
    pub unknown_agents_limit: usize,
}

impl Settings {
    /// The settings of a library run with `config` and `catalog` (the catalog by the SHA-256
    /// of its entries). The command line adds what only it knows: the `--bots` and `--verify`
    /// files' content, `--field` and `--trust-forwarded` as given.
    pub fn of(config: &AuditConfig, catalog: &Catalog) -> Settings {
        let bots = serde_json::to_vec(catalog.bots()).unwrap_or_default();
        Settings {
            grace_seconds: config.grace.as_secs(),
            strict: config.strict,
            all_agents: config.all_agents,
            catalog_sha256: hex(Sha256::digest(&bots)),
            verify: if config.dns.is_some() {
                vec!["dns".into()]
            } else {
                Vec::new()
            },
            origin: config.origin.as_ref().map(ToString::to_string),
            user_agent: config
                .fallback_user_agent
                .as_deref()
                .map(|ua| String::from_utf8_lossy(ua).into_owned()),
            format: config.format.map_or("auto", |f| f.name()).to_owned(),
            fields: Vec::new(),
            trust_forwarded: false,
            unknown_agents_limit: config.unknown_agents_limit,
        }
    }

    /// The names of the settings that differ, with both values.
    pub fn differences(&self, other: &Settings) -> Vec<String> {
        let (Ok(serde_json::Value::Object(ours)), Ok(serde_json::Value::Object(theirs))) =
            (serde_json::to_value(self), serde_json::to_value(other))
        else {
            return vec!["settings".into()];
        };
        ours.iter()
            .filter(|(key, value)| theirs.get(*key) != Some(value))
            .map(|(key, value)| {
                let theirs = theirs.get(key).cloned().unwrap_or_default();
                format!("{key} ({value} and {theirs})")
            })
            .collect()
    }
}

/// An agent as the reports show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentState {
    /// Its name (agents are merged by it).
    pub name: String,
    /// Its robots.txt tokens.
    pub tokens: Vec<String>,
    /// Its operator.
    pub operator: String,
    /// Its category.
    pub category: Category,
    /// Whether it is a bot.
    pub is_bot: bool,
    /// Whether it honours `Crawl-delay` (`crawl_rate.csv`).
    pub honours_crawl_delay: bool,
}

impl AgentState {
    fn of(info: &AgentInfo) -> AgentState {
        AgentState {
            name: info.bot.name.clone(),
            tokens: info.bot.tokens.clone(),
            operator: info.bot.operator.clone(),
            category: info.bot.category,
            is_bot: info.is_bot,
            honours_crawl_delay: info.bot.policy.honours_crawl_delay,
        }
    }

    /// The agent, with the default policy but whether it honours `Crawl-delay` (the reports
    /// show nothing else of the policy).
    pub fn to_info(&self) -> AgentInfo {
        AgentInfo {
            bot: Bot {
                name: self.name.clone(),
                tokens: self.tokens.clone(),
                operator: self.operator.clone(),
                category: self.category,
                policy: BotPolicy {
                    honours_crawl_delay: self.honours_crawl_delay,
                    ..BotPolicy::default()
                }
                .into(),
            },
            is_bot: self.is_bot,
        }
    }
}

/// What one input contributed to one streamed report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Share {
    /// Rows.
    pub rows: u64,
    /// Bytes of those rows.
    pub bytes: u64,
}

/// One input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputState {
    /// XXH3-128 of its bytes as read, in hex; `None` when no byte was read.
    pub fingerprint: Option<String>,
    /// Its `inputs.csv` row and samples (its fingerprint is the field above).
    pub file: FileReport,
    /// Its counters.
    pub stats: Stats,
    /// What it contributed to each streamed report, by file name.
    pub streamed: BTreeMap<String, Share>,
    /// Its requests of user-agent headers that are not bots (samples name inputs by their
    /// position in this state).
    pub unknown_agents: UnknownAgentsState,
}

impl InputState {
    /// The fingerprint as a number.
    pub fn fingerprint(&self) -> Result<Option<u128>, String> {
        self.fingerprint
            .as_deref()
            .map(|f| u128::from_str_radix(f, 16).map_err(|_| format!("bad fingerprint {f:?}")))
            .transpose()
    }
}

/// Everything a report directory holds beyond its CSVs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The settings that shaped the verdicts.
    pub settings: Settings,
    /// The agents; a `Stats` agent id is a position here.
    pub agents: Vec<AgentState>,
    /// The origins; a `Stats` origin id is a position here.
    pub origins: Vec<String>,
    /// The robots versions; a `Stats` version id is a position here.
    pub robots: Arc<RobotsSummary>,
    /// The streamed reports written, in the order their files were written.
    pub streamed: Vec<String>,
    /// The inputs, in argument order.
    pub inputs: Vec<InputState>,
}

/// A writer that hashes what it passes on: the payload's checksum, computed as it is written.
struct Hashing<W> {
    out: W,
    sha256: Sha256,
}

impl<W: io::Write> io::Write for Hashing<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.out.write(bytes)?;
        self.sha256.update(bytes.get(..written).unwrap_or_default());
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The file as read: the payload kept as its bytes until the checksum has been verified.
#[derive(Deserialize)]
struct EnvelopeIn<'a> {
    format: String,
    version: u32,
    sha256: String,
    #[serde(borrow)]
    payload: &'a RawValue,
}

impl State {
    /// The state of `result`, in canonical order ([`State::canonical`]); `streamed` names the
    /// streamed reports written and gives each input's share of them, by input.
    pub fn of(
        settings: Settings,
        result: &AuditResult,
        streamed: &[(&str, Vec<Share>)],
    ) -> Result<State, String> {
        let inputs = result
            .files
            .iter()
            .zip(&result.input_stats)
            .zip(&result.input_unknown_agents)
            .enumerate()
            .map(|(i, ((file, stats), unknown))| InputState {
                fingerprint: file.fingerprint.map(|f| format!("{f:032x}")),
                file: file.clone(),
                stats: stats.clone(),
                streamed: streamed
                    .iter()
                    .map(|(name, shares)| {
                        (
                            (*name).to_owned(),
                            shares.get(i).copied().unwrap_or_default(),
                        )
                    })
                    .collect(),
                unknown_agents: unknown.to_state(),
            })
            .collect();
        State {
            settings,
            agents: result.agents.iter().map(AgentState::of).collect(),
            origins: result.origins.clone(),
            robots: Arc::clone(&result.robots),
            streamed: streamed
                .iter()
                .map(|(name, _)| (*name).to_owned())
                .collect(),
            inputs,
        }
        .canonical()
    }

    /// The same state with its tables in one order: agents by name, origins by name, robots
    /// versions by origin, then time (the order of `robots.csv`), every id of the counters
    /// renumbered. The order in which worker threads (or `merge`, report by report) met the
    /// agents and origins is then lost, so the same inputs and settings give the same
    /// `state.json` byte for byte, whatever the thread count and however the inputs were split
    /// over reports that were merged. Nothing is copied when the order is already canonical, as
    /// the versions of a run are ([`PolicySet::sort_versions`](crate::policy::PolicySet::sort_versions)).
    pub fn canonical(mut self) -> Result<State, String> {
        let agents = order_by(&self.agents, |agent| agent.name.as_str());
        let origins = order_by(&self.origins, String::as_str);
        let versions: Vec<usize> = self.robots.sorted().iter().map(|v| v.index()).collect();
        let is_identity = |order: &[usize]| order.iter().enumerate().all(|(i, &at)| i == at);
        if is_identity(&agents) && is_identity(&origins) && is_identity(&versions) {
            return Ok(self);
        }
        let map = IdMap {
            agents: inverse(&agents, AgentId::from_index)?,
            origins: inverse(&origins, OriginId::from_index)?,
            versions: inverse(&versions, VersionId::from_index)?,
        };
        self.agents = agents.iter().map(|&i| self.agents[i].clone()).collect();
        self.origins = origins.iter().map(|&i| self.origins[i].clone()).collect();
        if !is_identity(&versions) {
            // Moved when the summary is not shared (merge), copied when it is.
            let summary = Arc::try_unwrap(self.robots).unwrap_or_else(|shared| (*shared).clone());
            let mut slots: Vec<Option<_>> = summary.versions.into_iter().map(Some).collect();
            self.robots = Arc::new(RobotsSummary {
                versions: versions.iter().filter_map(|&i| slots[i].take()).collect(),
            });
        }
        for input in &mut self.inputs {
            input.stats = input.stats.remap(&map)?;
        }
        Ok(self)
    }

    /// What the reports render. An error names what in the state is inconsistent.
    pub fn to_result(&self) -> Result<AuditResult, String> {
        let files = self
            .inputs
            .iter()
            .map(|input| {
                Ok(FileReport {
                    fingerprint: input.fingerprint()?,
                    ..input.file.clone()
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let count = self.inputs.len();
        let unknown = self
            .inputs
            .iter()
            .map(|input| {
                UnknownAgents::from_state(&input.unknown_agents, |i| {
                    if i < count {
                        Ok(i)
                    } else {
                        Err(format!("input {i} is not in the state's inputs"))
                    }
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(AuditResult::new(
            self.agents.iter().map(AgentState::to_info).collect(),
            self.origins.clone(),
            self.inputs.iter().map(|i| i.stats.clone()).collect(),
            files,
            Arc::clone(&self.robots),
            unknown,
        ))
    }

    /// Writes `state.json` to `out` as it is serialised, the checksum last: a night over many
    /// origins has a state of hundreds of megabytes, never held in memory as text.
    pub fn write_json(&self, out: impl io::Write) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(1 << 16, out);
        write!(
            out,
            r#"{{"format":{},"version":{VERSION},"payload":"#,
            serde_json::to_string(FORMAT).map_err(io::Error::other)?
        )?;
        let mut hashing = Hashing {
            out: &mut out,
            sha256: Sha256::new(),
        };
        serde_json::to_writer(&mut hashing, self).map_err(io::Error::other)?;
        let sha256 = hex(hashing.sha256.finalize());
        writeln!(out, r#","sha256":"{sha256}"}}"#)?;
        out.flush()
    }

    /// Reads `dir/state.json`, verifying its format, version and checksum.
    pub fn read(dir: &Path) -> Result<State, String> {
        let path = dir.join(FILE);
        let bytes = fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        State::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses the bytes of a `state.json`.
    pub fn parse(bytes: &[u8]) -> Result<State, String> {
        let envelope: EnvelopeIn<'_> = serde_json::from_slice(bytes)
            .map_err(|e| format!("not a robots-audit state (corrupt or cut short): {e}"))?;
        if envelope.format != FORMAT {
            return Err(format!("format {:?} is not {FORMAT:?}", envelope.format));
        }
        if envelope.version > VERSION {
            return Err(format!(
                "state version {} is newer than this robots-audit reads ({VERSION}); use a newer robots-audit",
                envelope.version
            ));
        }
        if envelope.version != VERSION {
            return Err(format!(
                "state version {} was written by an older robots-audit, in a layout this one does not read (version {VERSION}): audit its inputs again with this version",
                envelope.version
            ));
        }
        if checksum(envelope.payload.get()) != envelope.sha256 {
            return Err("checksum mismatch: the state was changed or damaged".into());
        }
        serde_json::from_str(envelope.payload.get())
            .map_err(|e| format!("the state does not have the expected shape: {e}"))
    }
}

/// The positions of `items` sorted by `key` (a stable sort: equal keys keep their order).
fn order_by<T>(items: &[T], key: impl Fn(&T) -> &str) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| key(&items[a]).cmp(key(&items[b])));
    order
}

/// For each old position, the id of its place in `order` (a list of old positions).
fn inverse<Id: Copy>(order: &[usize], id: fn(usize) -> Option<Id>) -> Result<Vec<Id>, String> {
    let mut ids = vec![None; order.len()];
    for (new, &old) in order.iter().enumerate() {
        ids[old] = Some(id(new).ok_or("too many ids for the state's tables")?);
    }
    Ok(ids.into_iter().flatten().collect())
}

/// SHA-256 of the payload's bytes, in hex.
fn checksum(payload: &str) -> String {
    hex(Sha256::digest(payload.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> State {
        State {
            settings: Settings {
                grace_seconds: 86_400,
                catalog_sha256: "ab".into(),
                format: "auto".into(),
                ..Settings::default()
            },
            agents: vec![],
            origins: vec!["https://e.com".into()],
            robots: Arc::default(),
            streamed: vec!["violations.csv".into()],
            inputs: vec![],
        }
    }

    fn written(state: &State) -> Vec<u8> {
        let mut bytes = Vec::new();
        state.write_json(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn a_state_reads_back_as_written() {
        let state = state();
        assert_eq!(State::parse(&written(&state)).unwrap(), state);
    }

    #[test]
    fn damage_tampering_and_newer_versions_are_refused() {
        let bytes = String::from_utf8(written(&state())).unwrap();
        let cases = [
            (bytes[..bytes.len() / 2].to_owned(), "corrupt or cut short"),
            (
                bytes.replace("https://e.com", "https://f.com"),
                "checksum mismatch",
            ),
            (
                bytes.replace("\"version\":3", "\"version\":4"),
                "newer than",
            ),
            (
                bytes.replace("\"version\":3", "\"version\":2"),
                "older robots-audit",
            ),
            (bytes.replace(FORMAT, "other"), "is not"),
        ];
        for (text, expected) in cases {
            let err = State::parse(text.as_bytes()).unwrap_err();
            assert!(err.contains(expected), "{err}");
        }
    }

    #[test]
    fn differing_settings_are_named() {
        let a = state().settings;
        let mut b = a.clone();
        b.strict = true;
        b.grace_seconds = 60;
        let differences = b.differences(&a);
        assert_eq!(differences.len(), 2, "{differences:?}");
        assert!(differences.iter().any(|d| d.starts_with("strict")));
        assert!(a.differences(&a).is_empty());
    }
}
