//! The run's model: what a report directory holds beyond its CSVs, so that reports can be
//! merged, and what every report renders from.
//!
//! The CSVs cannot be re-added: distinct counts (`origins`, a rule's `agents`) do not add, and
//! an input held by two reports must count once. So a run is one [`State`]: the settings that
//! shaped the verdicts, the run's agents, origins and robots versions (a [`RobotsSummary`]: what
//! `robots.csv` and `rules.csv` show, with each file's SHA-256, never the bodies), and per input
//! its content fingerprint, its `inputs.csv` row and skipped-line samples, its counters
//! ([`Stats`], ids being positions in the state's own tables), its table of unknown agents and
//! what it contributed to each streamed report (rows and bytes of `violations.csv`,
//! `preference_conflicts.csv`, `decisions.csv`). `audit` makes it of the run's tallies
//! ([`State::of`]), `merge` sums states (`src/merge.rs`), and both render every report from it
//! (`src/report`) and write it as `state.json` ([`json`]).
//!
//! Invariants: every report of a directory is a function of its state and its streamed files,
//! so `merge` renders what one audit over all the inputs renders. The tables are in one
//! canonical order ([`State::canonical`]), so the same inputs and settings give the same
//! state, whatever the thread count or the split into merged reports.

mod fold;
pub mod json;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;

use robots_audit_bots::{Catalog, Category};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::audit::AuditConfig;
use crate::audit::checked::CountError;
use crate::audit::file_report::FileReport;
use crate::audit::fold::Folded;
use crate::audit::identity::AgentInfo;
use crate::audit::renumber::IdMap;
use crate::audit::stats::Stats;
use crate::audit::tally::RunTally;
use crate::audit::unknown::{StateBytes, UnknownAgents, UnknownAgentsState};
use crate::commit::ReportDir;
use crate::ids::{AgentId, OriginId, VersionId};
use crate::limits;
use crate::versions::summary::Decides;
use crate::versions::summary::{RobotsSummary, hex};

/// Why a state cannot be read or is inconsistent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// The file cannot be read.
    #[error("cannot read {message}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// Not JSON, or cut short.
    #[error("not a robots-audit state (corrupt or cut short): {0}")]
    Corrupt(String),
    /// Another format.
    #[error("format {0:?} is not {format:?}", format = json::FORMAT)]
    Format(String),
    /// A version newer than this build reads.
    #[error(
        "state version {0} is newer than this robots-audit reads ({version}); use a newer robots-audit",
        version = json::VERSION
    )]
    Newer(u32),
    /// A version older than this build reads.
    #[error(
        "state version {0} was written by an older robots-audit, in a layout this one does not read (version {version}): audit its inputs again with this version",
        version = json::VERSION
    )]
    Older(u32),
    /// The payload does not match its checksum.
    #[error("checksum mismatch: the state was changed or damaged")]
    Checksum,
    /// The payload is JSON but not a state.
    #[error("the state does not have the expected shape: {0}")]
    Shape(String),
    /// The state's parts do not agree with each other.
    #[error("{0}")]
    Inconsistent(String),
    /// Its counters cannot be renumbered or summed.
    #[error(transparent)]
    Counters(#[from] CountError),
    /// A state in a file, with the file named.
    #[error("{path}: {source}")]
    In {
        /// The file.
        path: String,
        /// What is wrong with it.
        source: Box<StateError>,
    },
}

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
    /// `--timezone`: the zone of log times written without an offset, which moves the
    /// requests read in it. Absent from states written before it was recorded, which were
    /// made without it.
    #[serde(default)]
    pub timezone: Option<String>,
    /// `--haproxy-captures`, lower-cased: which captured value is the user-agent and which the
    /// host. Absent from states written before it was recorded, which were made without it.
    #[serde(default)]
    pub haproxy_captures: Option<String>,
    /// How many distinct unknown user-agent headers are counted exactly.
    pub unknown_agents_limit: usize,
    /// `--raw-csv`: cells written as read, not by the spreadsheet-safe rule (`src/report/cells.rs`).
    pub raw_csv: bool,
    /// How many minted agents, and origins without a robots source, are kept
    /// (`src/audit/fold.rs`).
    pub kept_names: usize,
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
            timezone: None,
            haproxy_captures: config.fields.haproxy_captures().map(ToString::to_string),
            unknown_agents_limit: config.unknown_agents_limit,
            raw_csv: false,
            kept_names: config.kept_names,
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
    /// Whether traffic minted it (self-declared or list-matched): such agents are folded past
    /// the `kept_names` setting.
    pub minted: bool,
}

impl AgentState {
    /// The agent as the reports show it.
    pub fn of(info: &AgentInfo) -> AgentState {
        AgentState {
            name: info.bot.name.clone(),
            tokens: info.bot.tokens.clone(),
            operator: info.bot.operator.clone(),
            category: info.bot.category,
            is_bot: info.is_bot,
            honours_crawl_delay: info.bot.policy.honours_crawl_delay,
            minted: info.minted,
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
    pub fn fingerprint(&self) -> Result<Option<u128>, StateError> {
        self.fingerprint
            .as_deref()
            .map(|f| {
                u128::from_str_radix(f, 16)
                    .map_err(|_| StateError::Inconsistent(format!("bad fingerprint {f:?}")))
            })
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
    /// The hashes of the minted agents and origins folded (`src/audit/fold.rs`).
    pub folded: Folded,
    /// The inputs, in argument order.
    pub inputs: Vec<InputState>,
}

impl State {
    /// The state of a run, folded ([`State::fold`]) and in canonical order
    /// ([`State::canonical`]); `streamed` names the streamed reports written and gives each
    /// input's share of them, by input.
    pub fn of(
        settings: Settings,
        run: RunTally,
        streamed: &[(&str, Vec<Share>)],
    ) -> Result<State, StateError> {
        let inputs = run
            .inputs
            .into_iter()
            .enumerate()
            .map(|(i, tally)| InputState {
                fingerprint: tally.file.fingerprint.map(|f| format!("{f:032x}")),
                streamed: streamed
                    .iter()
                    .map(|(name, shares)| {
                        (
                            (*name).to_owned(),
                            shares.get(i).copied().unwrap_or_default(),
                        )
                    })
                    .collect(),
                unknown_agents: tally.unknown_agents.to_state(),
                file: tally.file,
                stats: tally.stats,
            })
            .collect();
        State {
            settings,
            agents: run.agents.iter().map(AgentState::of).collect(),
            origins: run.origins,
            robots: run.robots,
            streamed: streamed
                .iter()
                .map(|(name, _)| (*name).to_owned())
                .collect(),
            folded: run.folded,
            inputs,
        }
        .fold()
    }

    /// The same state with its tables in one order: agents by name, origins by name, robots
    /// versions by origin, then time (the order of `robots.csv`), every id of the counters
    /// renumbered. The order in which worker threads (or `merge`, report by report) met the
    /// agents and origins is then lost, so the same inputs and settings give the same
    /// `state.json` byte for byte, whatever the thread count and however the inputs were split
    /// over reports that were merged. Nothing is copied when the order is already canonical, as
    /// the versions of a run are ([`VersionSet::sort_versions`](crate::versions::VersionSet::sort_versions)).
    pub fn canonical(mut self) -> Result<State, StateError> {
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
            input.stats = std::mem::take(&mut input.stats).remap(&map)?;
        }
        Ok(self)
    }

    /// The counters and the table of unknown agents of all inputs summed, in input order, as
    /// the run-wide reports show them. An error names what in the state is inconsistent.
    ///
    /// The counters of a state with one input are that input's, borrowed: a copy would double
    /// the memory of its crawl-rate counts, which grow with the times counted.
    pub fn totals(&self) -> Result<Totals<'_>, StateError> {
        let stats = match self.inputs.as_slice() {
            [only] => Cow::Borrowed(&only.stats),
            inputs => {
                let mut sum = Stats::default();
                for input in inputs {
                    sum.merge(input.stats.clone())?;
                }
                Cow::Owned(sum)
            }
        };
        let count = self.inputs.len();
        let limit = self
            .inputs
            .first()
            .map_or(self.settings.unknown_agents_limit, |i| {
                i.unknown_agents.limit
            });
        let mut unknown_agents = UnknownAgents::new(limit);
        for input in &self.inputs {
            let table = UnknownAgents::from_state(&input.unknown_agents, |i| {
                if i < count {
                    Ok(i)
                } else {
                    Err(format!("input {i} is not in the state's inputs"))
                }
            })
            .map_err(StateError::Inconsistent)?;
            unknown_agents.merge(table)?;
        }
        Ok(Totals {
            stats,
            unknown_agents,
        })
    }

    /// An agent's name.
    pub fn agent_name(&self, agent: AgentId) -> &str {
        self.agents
            .get(agent.index())
            .map_or("", |a| a.name.as_str())
    }

    /// An origin's name (empty for requests that named none).
    pub fn origin_name(&self, origin: OriginId) -> &str {
        self.origins.get(origin.index()).map_or("", String::as_str)
    }

    /// Whether some input had an error (exit code 3).
    pub fn input_errors(&self) -> bool {
        self.inputs.iter().any(|i| i.file.error.is_some())
    }

    /// The first string of the state longer than the tool writes ([`limits`]), named: a
    /// state that holds one was not written by the tool.
    pub fn overlong(&self) -> Option<String> {
        let too_long = |what: &str, text: &str, limit: usize| {
            (text.len() > limit)
                .then(|| format!("{what} of {} bytes (at most {limit})", text.len()))
        };
        let agents = self.agents.iter().flat_map(|agent| {
            [&agent.name, &agent.operator]
                .into_iter()
                .chain(&agent.tokens)
                .map(|text| {
                    (
                        "an agent's name, operator or token",
                        text.as_str(),
                        limits::FIELD,
                    )
                })
        });
        let origins = self
            .origins
            .iter()
            .map(|origin| ("an origin", origin.as_str(), limits::FIELD));
        let versions = self.robots.versions.iter().flat_map(|version| {
            let rules = match &version.decides {
                Decides::Rules(rules) => &rules[..],
                _ => &[],
            };
            [
                (
                    "a robots version's origin",
                    version.origin.as_str(),
                    limits::FIELD,
                ),
                (
                    "a robots version's source",
                    version.source.as_str(),
                    limits::FIELD,
                ),
            ]
            .into_iter()
            .chain(rules.iter().flat_map(|rule| {
                [
                    ("a rule", rule.text.as_str(), limits::ROBOTS_FILE),
                    ("a group's label", rule.group.as_str(), limits::ROBOTS_FILE),
                ]
            }))
        });
        let inputs = self.inputs.iter().flat_map(|input| {
            [(
                "an input's name",
                input.file.name.as_str(),
                limits::FILE_NAME,
            )]
            .into_iter()
            .chain(
                input
                    .file
                    .error
                    .iter()
                    .map(|error| ("an input's error", error.as_str(), limits::FILE_NAME)),
            )
            .chain(input.file.samples.iter().map(|sample| {
                (
                    "a skipped line's excerpt",
                    sample.excerpt.as_str(),
                    limits::EXCERPT_TEXT,
                )
            }))
        });
        let strings = agents.chain(origins).chain(versions).chain(inputs);
        for (what, text, limit) in strings {
            if let Some(found) = too_long(what, text, limit) {
                return Some(found);
            }
        }
        self.inputs.iter().find_map(|input| {
            input.unknown_agents.headers.iter().find_map(|header| {
                let bytes = |value: &StateBytes| match value {
                    StateBytes::Text(text) => text.len(),
                    StateBytes::Hex { hex } => hex.len() / 2,
                };
                let path = header.sample.as_ref().map_or(0, |s| bytes(&s.path));
                (bytes(&header.header) > limits::FIELD || path > limits::FIELD).then(|| {
                    format!(
                        "an unknown agent's header or path longer than {}",
                        limits::FIELD
                    )
                })
            })
        })
    }

    /// Reads the report directory's `state.json`, verifying its format, version and checksum.
    pub fn read(dir: &ReportDir) -> Result<State, StateError> {
        let path = dir.path().join(json::FILE);
        let mut bytes = Vec::new();
        dir.open_file(json::FILE)
            .and_then(|mut file| io::Read::read_to_end(&mut file, &mut bytes))
            .map_err(|e| StateError::Read {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
        json::parse(&bytes).map_err(|e| StateError::In {
            path: path.display().to_string(),
            source: Box::new(e),
        })
    }
}

/// The counters of every input of a state summed: what the run-wide reports show.
#[derive(Debug, Clone, Default)]
pub struct Totals<'s> {
    /// The counters.
    pub stats: Cow<'s, Stats>,
    /// The requests of user-agent headers that are not bots.
    pub unknown_agents: UnknownAgents,
}

/// The positions of `items` sorted by `key` (a stable sort: equal keys keep their order).
fn order_by<T>(items: &[T], key: impl Fn(&T) -> &str) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| key(&items[a]).cmp(key(&items[b])));
    order
}

/// For each old position, the id of its place in `order` (a list of old positions).
fn inverse<Id: Copy>(order: &[usize], id: fn(usize) -> Option<Id>) -> Result<Vec<Id>, StateError> {
    let mut ids = vec![None; order.len()];
    for (new, &old) in order.iter().enumerate() {
        ids[old] = Some(id(new).ok_or_else(|| {
            StateError::Inconsistent("too many ids for the state's tables".into())
        })?);
    }
    Ok(ids.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differing_settings_are_named() {
        let a = Settings {
            grace_seconds: 86_400,
            ..Settings::default()
        };
        let mut b = a.clone();
        b.strict = true;
        b.grace_seconds = 60;
        let differences = b.differences(&a);
        assert_eq!(differences.len(), 2, "{differences:?}");
        assert!(differences.iter().any(|d| d.starts_with("strict")));
        assert!(a.differences(&a).is_empty());
    }

    /// A state written before `--timezone` or `--haproxy-captures` was recorded was made
    /// without it.
    #[test]
    fn settings_without_a_later_option_read_as_made_without_it() {
        let made = Settings {
            timezone: Some("Europe/Paris".into()),
            haproxy_captures: Some("host,user-agent".into()),
            ..Settings::default()
        };
        for key in ["timezone", "haproxy_captures"] {
            let mut json = serde_json::to_value(&made).unwrap();
            let removed = json.as_object_mut().and_then(|o| o.remove(key));
            assert!(removed.is_some_and(|value| value.is_string()), "{key}");
            let settings: Settings = serde_json::from_value(json).unwrap();
            let read = match key {
                "timezone" => &settings.timezone,
                _ => &settings.haproxy_captures,
            };
            assert_eq!(*read, None, "{key}");
        }
    }
}
