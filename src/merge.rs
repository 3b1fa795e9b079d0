//! `merge`: the reports of several report directories as one `audit` over all their inputs in
//! argument order would have written them.
//!
//! A [`Merger`] sums the [`State`]s one at a time (memory holds the sum and one state):
//! settings must be equal; agents and origins are matched by name and robots versions by
//! (origin, label), whose content must be equal; every id of a report's counters is renumbered
//! into the merged tables ([`Stats::remap`](crate::audit::stats::Stats::remap)); an input whose
//! content fingerprint an input of an earlier report had is dropped, with a warning (within one
//! report, repeats stay: the audit counted them); a report that lacks a robots version in force
//! (by origin and time) for a request it counted was judged otherwise than one audit would
//! judge it, and is refused. The counters of the merged state are then
//! those of one audit: sums, minima and maxima, and distinct sets (a rule's agents, an agent's
//! origins) recomputed from the per-input counters.
//! [`copy_streamed`] concatenates the streamed reports (`violations.csv`,
//! `preference_conflicts.csv`, `decisions.csv`) by
//! copying each kept input's byte range of each report's file, never holding rows in memory.
//!
//! `merge` trusts nothing of a report directory: it reads only the tool's own report names
//! (a state listing another streamed report is refused, naming it), opens every file without
//! following a symlink (and only a regular file), checks every sum the reports will make (the
//! merged counters, their sums over agents, origins and the whole run, the inputs' counters
//! over every input, the streamed reports' byte ranges; an overflow is refused, naming the
//! report directory), and refuses a state holding a string longer than the tool writes
//! ([`crate::limits`]).
//!
//! The tables of unknown user-agent headers are kept per input as well, and summed in input
//! order as the audit sums them. Past the exact bound, merging these tables is approximate
//! ([`UnknownAgents::merge`]): the audit and `merge` then give the same estimates only when
//! they sum the same per-input tables, which they do for a merge of splits of one run's inputs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::audit::checked::add;
use crate::audit::fold::Folded;
use crate::audit::renumber::IdMap;
use crate::audit::stats::Stats;
use crate::audit::unknown::UnknownAgents;
use crate::commit::{NewFile, ReportDir};
use crate::ids::{AgentId, OriginId, VersionId};
use crate::origin::Origin;
use crate::report::files;
use crate::state::StateError;
use crate::state::{AgentState, InputState, Settings, Share, State};
use crate::versions::summary::{RobotsSummary, VersionSummary};
use jiff::Timestamp;

/// What [`copy_streamed`] needs of a report once its state is summed: where it is, and what each
/// of its inputs contributed to each streamed report.
#[derive(Debug, Clone)]
pub struct Source {
    /// The report directory, as its state was read.
    pub dir: ReportDir,
    /// By input: rows and bytes per streamed report.
    pub shares: Vec<BTreeMap<String, Share>>,
}

/// Where each input of each report went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Kept, at this position of the merged inputs.
    Kept(usize),
    /// Dropped: the same content as this merged input.
    Dropped(usize),
}

/// The merged state, with where each report's inputs went and the warnings to show.
#[derive(Debug)]
pub struct Merged {
    /// The sum.
    pub state: State,
    /// By report: where it is and its inputs' shares of the streamed reports.
    pub sources: Vec<Source>,
    /// By report, by input.
    pub placements: Vec<Vec<Placement>>,
    /// One line each: inputs held twice.
    pub warnings: Vec<String>,
}

/// Why reports cannot be merged; each names the report directory (or file) at fault.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A state cannot be read (it names its file).
    #[error(transparent)]
    State(#[from] StateError),
    /// Two reports made with different settings.
    #[error("{first} and {dir} were made with different settings: {differences}")]
    Settings {
        /// The first report directory.
        first: String,
        /// The other.
        dir: String,
        /// Each setting that differs, with both values.
        differences: String,
    },
    /// Two reports with different streamed reports.
    #[error(
        "{first} has {ours} but {dir} has {theirs}: merge reports made with the same --decisions"
    )]
    Streamed {
        /// The first report directory.
        first: String,
        /// Its streamed reports.
        ours: String,
        /// The other.
        dir: String,
        /// Its streamed reports.
        theirs: String,
    },
    /// One robots version with different content in two reports.
    #[error("robots.txt of {origin} version {label} differs between {first} and {dir}")]
    Robots {
        /// The origin.
        origin: String,
        /// The version's label.
        label: String,
        /// The report that brought it first.
        first: String,
        /// The other.
        dir: String,
    },
    /// Two reports audited with different robots histories where it changes verdicts: one
    /// lacks a version that was in force for some of its requests.
    #[error(
        "{lacks} was audited without robots.txt of {version}, which {holds} \
         holds and which was in force for requests of {lacks} to {requests} (until {latest}): \
         audit both with the same robots sources"
    )]
    RobotsHistory {
        /// The version: its origin as its source names it and its label.
        version: String,
        /// A report directory that holds the version.
        holds: String,
        /// The report directory without it.
        lacks: String,
        /// The origin of the requests it would have judged.
        requests: String,
        /// The latest of those requests.
        latest: Timestamp,
    },
    /// A state listing a streamed report that is not one of the tool's.
    #[error(
        "{dir}: its state lists {name:?} among its reports, which is not a report of this tool"
    )]
    UnknownReport {
        /// The report directory.
        dir: String,
        /// The name.
        name: String,
    },
    /// Counters that, with those of the reports before, sum past `u64::MAX`.
    #[error("{dir}: its counters and those merged before it sum past {max}; refused", max = u64::MAX)]
    Overflow {
        /// The report directory.
        dir: String,
    },
    /// A state the tool could not have written.
    #[error("{dir}: {message}")]
    Invalid {
        /// The report directory.
        dir: String,
        /// What is wrong with its state.
        message: String,
    },
    /// A report file that does not match its state, or cannot be read or written.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// No report directory to merge.
    #[error("nothing to merge")]
    Nothing,
}

/// What a report's verdicts were made with (its robots versions, by origin and label) and
/// about (the latest request per origin): enough to tell whether another report's version
/// would have judged one of its requests, in one lookup per version.
#[derive(Debug, Default)]
struct History {
    versions: HashSet<(String, String)>,
    /// Per request origin (a name of the state's origins), its latest request.
    latest: HashMap<String, Timestamp>,
    /// Per host ([`Origin::host_key`]), the latest request to it on any scheme, and the origin
    /// that request went to (the smallest name of a tie).
    latest_by_host: HashMap<String, (String, Timestamp)>,
}

impl History {
    fn new(versions: HashSet<(String, String)>, latest: HashMap<String, Timestamp>) -> History {
        let mut latest_by_host: HashMap<String, (String, Timestamp)> = HashMap::new();
        for (origin, &time) in &latest {
            let Ok(parsed) = Origin::parse(origin) else {
                continue;
            };
            let later = (time, std::cmp::Reverse(origin.as_str()));
            match latest_by_host.get_mut(&parsed.host_key()) {
                Some(kept) if (kept.1, std::cmp::Reverse(kept.0.as_str())) >= later => {}
                Some(kept) => *kept = (origin.clone(), time),
                None => {
                    latest_by_host.insert(parsed.host_key(), (origin.clone(), time));
                }
            }
        }
        History {
            versions,
            latest,
            latest_by_host,
        }
    }

    /// A request origin `version` would have judged (its scheme-specific origin, or its host on
    /// any scheme) with its latest request, when one was at or after the version's time.
    /// An any-scheme version that a scheme-specific one overrides counts too: reports made
    /// with such different sources are refused rather than reasoned about.
    fn in_force_for(&self, version: &VersionSummary) -> Option<(&str, Timestamp)> {
        let in_force = |latest: Timestamp| version.valid_from.is_none_or(|from| latest >= from);
        if let Some((origin, &latest)) = self.latest.get_key_value(&version.origin)
            && in_force(latest)
        {
            return Some((origin.as_str(), latest));
        }
        if version.origin.contains("://") {
            return None;
        }
        self.latest_by_host
            .get(&version.origin)
            .filter(|(_, latest)| in_force(*latest))
            .map(|(origin, latest)| (origin.as_str(), *latest))
    }
}

/// A [`MergeError::Invalid`] for `dir`.
fn invalid(dir: &Path, message: impl ToString) -> MergeError {
    MergeError::Invalid {
        dir: dir.display().to_string(),
        message: message.to_string(),
    }
}

/// A [`MergeError::File`] for `path`.
fn file_error(path: &Path, message: impl ToString) -> MergeError {
    MergeError::File {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

/// Sums report states one at a time, in order, so that memory holds the sum and one state, not
/// every state given. Fails, naming the two report directories, on different settings,
/// different streamed reports, or different content under one robots version, and naming the
/// report directory on a state the tool could not have written or counters that overflow.
#[derive(Debug, Default)]
pub struct Merger {
    /// The first report's directory, settings and streamed reports: every other must agree.
    first: Option<(PathBuf, Settings, Vec<String>)>,
    agents: Vec<AgentState>,
    agent_ids: HashMap<String, AgentId>,
    origins: Vec<String>,
    origin_ids: HashMap<String, OriginId>,
    robots: RobotsSummary,
    /// (origin, label) -> the merged version and the report that brought it.
    version_ids: HashMap<(String, String), (VersionId, usize)>,
    inputs: Vec<InputState>,
    /// Fingerprint -> the report and merged input that hold it first.
    seen: HashMap<u128, (usize, usize)>,
    sources: Vec<Source>,
    /// By report, as `sources`: what its verdicts were made with and about.
    histories: Vec<History>,
    placements: Vec<Vec<Placement>>,
    warnings: Vec<String>,
    /// The kept inputs' counters and unknown agents summed so far: the sums the reports will
    /// make, checked report by report.
    sums: Stats,
    unknown: Option<UnknownAgents>,
    /// The reports' sketches of folded names, summed.
    folded: Folded,
}

impl Merger {
    /// An empty sum.
    pub fn new() -> Merger {
        Merger::default()
    }

    /// Adds `state`, read from the report directory `report`.
    pub fn add(&mut self, report: &ReportDir, state: State) -> Result<(), MergeError> {
        let dir = report.path();
        if let Some(name) = state
            .streamed
            .iter()
            .find(|name| files::streamed(name).is_none())
        {
            return Err(MergeError::UnknownReport {
                dir: dir.display().to_string(),
                name: name.clone(),
            });
        }
        if let Some(found) = state.overlong() {
            return Err(invalid(
                dir,
                format!("its state holds {found}, longer than robots-audit writes"),
            ));
        }
        let r = self.sources.len();
        let (first_dir, settings, streamed) = self.first.get_or_insert_with(|| {
            (
                dir.to_path_buf(),
                state.settings.clone(),
                state.streamed.clone(),
            )
        });
        // Values in the order the message names the directories: the first report's, then this one's.
        let differences = settings.differences(&state.settings);
        if !differences.is_empty() {
            return Err(MergeError::Settings {
                first: first_dir.display().to_string(),
                dir: dir.display().to_string(),
                differences: differences.join(", "),
            });
        }
        if state.streamed != *streamed {
            return Err(MergeError::Streamed {
                first: first_dir.display().to_string(),
                ours: streamed.join(", "),
                dir: dir.display().to_string(),
                theirs: state.streamed.join(", "),
            });
        }
        let limit = settings.kept_names;
        if !state.folded.agents.is_valid(limit) || !state.folded.origins.is_valid(limit) {
            return Err(invalid(
                dir,
                format!("its state holds more folded names than its kept_names ({limit})"),
            ));
        }
        if self.folded.agents.limit == 0 {
            self.folded = state.folded.clone();
        } else {
            self.folded.agents.merge(&state.folded.agents);
            self.folded.origins.merge(&state.folded.origins);
        }
        let versions_before = self.robots.versions.len();
        let own_versions: HashSet<(String, String)> = state
            .robots
            .versions
            .iter()
            .map(|v| (v.origin.clone(), v.label()))
            .collect();
        let map = self.map_ids(dir, &state)?;
        let mut placed = Vec::with_capacity(state.inputs.len());
        // An audit given the same content twice counted it twice: only inputs of earlier
        // reports make one a repeat.
        let mut new_fingerprints = Vec::new();
        let mut kept = Vec::new();
        for (i, input) in state.inputs.iter().enumerate() {
            let fingerprint = input.fingerprint().map_err(|e| invalid(dir, e))?;
            if let Some(f) = fingerprint
                && let Some(&(earlier, merged)) = self.seen.get(&f)
            {
                self.warnings.push(format!(
                    "input {} of {} has the same content as input {} of {}: counted once",
                    input.file.name,
                    dir.display(),
                    self.inputs[merged].file.name,
                    self.sources[earlier].dir.path().display()
                ));
                placed.push(Placement::Dropped(merged));
                continue;
            }
            let at = self.inputs.len() + kept.len();
            if let Some(f) = fingerprint {
                new_fingerprints.push((f, at));
            }
            placed.push(Placement::Kept(at));
            kept.push(i);
        }
        let shares = state.inputs.iter().map(|i| i.streamed.clone()).collect();
        let mut inputs: Vec<Option<InputState>> = state.inputs.into_iter().map(Some).collect();
        // Per merged origin, the latest request of this report's kept inputs.
        let mut latest: HashMap<OriginId, Timestamp> = HashMap::new();
        for i in kept {
            let Some(mut input) = inputs.get_mut(i).and_then(Option::take) else {
                continue;
            };
            input.stats = input
                .stats
                .remap(&map)
                .map_err(|e| invalid(dir, format!("input {i}: {e}")))?;
            // The samples of the unknown headers name inputs by position: renumbered as the
            // inputs are.
            let table = UnknownAgents::from_state(&input.unknown_agents, |i| {
                placed
                    .get(i)
                    .map(|&(Placement::Kept(m) | Placement::Dropped(m))| m)
                    .ok_or_else(|| format!("input {i} is not in its state"))
            })
            .map_err(|e| invalid(dir, e))?;
            input.unknown_agents = table.to_state();
            let overflow = || MergeError::Overflow {
                dir: dir.display().to_string(),
            };
            for ((_, origin), counts) in &input.stats.pairs {
                if let Some(last) = counts.last_seen() {
                    let latest = latest.entry(*origin).or_insert(last);
                    *latest = (*latest).max(last);
                }
            }
            self.sums
                .merge(input.stats.clone())
                .map_err(|_| overflow())?;
            let unknown = self
                .unknown
                .get_or_insert_with(|| UnknownAgents::new(table.limit()));
            unknown.merge(table).map_err(|_| overflow())?;
            self.inputs.push(input);
        }
        let inputs_fit = self.inputs.iter().try_fold([0u64; 8], |mut totals, input| {
            let counters = input.file.summed_counters()?;
            for (total, n) in totals.iter_mut().zip(counters) {
                *total = total.checked_add(n)?;
            }
            Some(totals)
        });
        if self.sums.check_sums().is_err() || inputs_fit.is_none() {
            return Err(MergeError::Overflow {
                dir: dir.display().to_string(),
            });
        }
        let history = History::new(
            own_versions,
            latest
                .into_iter()
                .map(|(origin, time)| (self.origins[origin.index()].clone(), time))
                .collect(),
        );
        self.check_history(dir, &history, versions_before)?;
        for (f, at) in new_fingerprints {
            self.seen.entry(f).or_insert((r, at));
        }
        self.sources.push(Source {
            dir: report.clone(),
            shares,
        });
        self.histories.push(history);
        self.placements.push(placed);
        Ok(())
    }

    /// Refuses a report whose robots history differs from the earlier reports' where one
    /// audit over all their inputs would judge a request otherwise: a version one report
    /// lacks, in force (by its origin and time) for a request that report counted. Histories
    /// that grow night by night (a version fetched after a night's last request) merge.
    /// `versions_before` is how many merged versions came from the earlier reports.
    fn check_history(
        &self,
        dir: &Path,
        history: &History,
        versions_before: usize,
    ) -> Result<(), MergeError> {
        let (earlier, new) = self.robots.versions.split_at(versions_before);
        let refused = |version: &VersionSummary, holds: &Path, lacks: &Path, history: &History| {
            history
                .in_force_for(version)
                .map(|(requests, latest)| MergeError::RobotsHistory {
                    version: format!("{} version {}", version.origin, version.label()),
                    holds: holds.display().to_string(),
                    lacks: lacks.display().to_string(),
                    requests: requests.to_owned(),
                    latest,
                })
        };
        for version in earlier {
            let key = (version.origin.clone(), version.label());
            if history.versions.contains(&key) {
                continue;
            }
            let holds = self
                .version_ids
                .get(&key)
                .and_then(|&(_, from)| self.sources.get(from))
                .map_or(dir, |source| source.dir.path());
            if let Some(error) = refused(version, holds, dir, history) {
                return Err(error);
            }
        }
        for version in new {
            for (source, other) in self.sources.iter().zip(&self.histories) {
                if let Some(error) = refused(version, dir, source.dir.path(), other) {
                    return Err(error);
                }
            }
        }
        Ok(())
    }

    /// The merged ids of `state`'s agents, origins and robots versions, the new ones added.
    fn map_ids(&mut self, dir: &Path, state: &State) -> Result<IdMap, MergeError> {
        let mut map = IdMap::default();
        for agent in &state.agents {
            let agents = &mut self.agents;
            let id = *self.agent_ids.entry(agent.name.clone()).or_insert_with(|| {
                agents.push(agent.clone());
                AgentId::from_index(agents.len() - 1).unwrap_or(AgentId::MAX)
            });
            map.agents.push(id);
        }
        for origin in &state.origins {
            let origins = &mut self.origins;
            let id = *self.origin_ids.entry(origin.clone()).or_insert_with(|| {
                origins.push(origin.clone());
                OriginId::from_index(origins.len() - 1).unwrap_or(OriginId::MAX)
            });
            map.origins.push(id);
        }
        for version in &state.robots.versions {
            let key = (version.origin.clone(), version.label());
            let id = match self.version_ids.get(&key) {
                Some(&(id, from)) => {
                    if self.robots.version(id).content_differs(version) {
                        // `from` is this report's own index when the version came earlier in
                        // this same state, which `sources` does not hold yet.
                        let Some(first) = self.sources.get(from) else {
                            return Err(invalid(
                                dir,
                                format!(
                                    "its state holds robots.txt of {} version {} twice, with \
                                     different content",
                                    key.0, key.1
                                ),
                            ));
                        };
                        return Err(MergeError::Robots {
                            origin: key.0,
                            label: key.1,
                            first: first.dir.path().display().to_string(),
                            dir: dir.display().to_string(),
                        });
                    }
                    id
                }
                None => {
                    self.robots.versions.push(version.clone());
                    let id = VersionId::from_index(self.robots.versions.len() - 1)
                        .unwrap_or(VersionId::MAX);
                    self.version_ids.insert(key, (id, self.sources.len()));
                    id
                }
            };
            map.versions.push(id);
        }
        Ok(map)
    }

    /// The sum of the states added; an error when none was.
    pub fn finish(self) -> Result<Merged, MergeError> {
        let Some((_, settings, streamed)) = self.first else {
            return Err(MergeError::Nothing);
        };
        let state = State {
            settings,
            agents: self.agents,
            origins: self.origins,
            robots: Arc::new(self.robots),
            streamed,
            folded: self.folded,
            inputs: self.inputs,
        };
        Ok(Merged {
            state: state.fold()?,
            sources: self.sources,
            placements: self.placements,
            warnings: self.warnings,
        })
    }
}

/// Reads and sums the states of `dirs` in order, one at a time ([`Merger`]); the first error
/// names its directory.
pub fn merge_dirs(dirs: &[PathBuf]) -> Result<Merged, MergeError> {
    let mut merger = Merger::new();
    for dir in dirs {
        let report = ReportDir::open(dir).map_err(|e| StateError::Read {
            path: dir.display().to_string(),
            message: e.to_string(),
        })?;
        merger.add(&report, State::read(&report)?)?;
    }
    merger.finish()
}

/// The longest header line a streamed report may start with: far more than any the tool
/// writes.
const MAX_HEADER_BYTES: u64 = 64 << 10;

/// Writes streamed report `name` (one of [`files::STREAMED`]) into `out` (a staging
/// directory): the header of the first report's file, then, report by report in order, the
/// byte range of every kept input. Report files are opened without following a symlink. A file
/// whose size does not match its state (changed after the audit), or whose ranges sum past
/// `u64::MAX`, is an error naming it.
pub fn copy_streamed(
    out: &Path,
    name: &str,
    sources: &[Source],
    placements: &[Vec<Placement>],
) -> Result<(), MergeError> {
    let name = files::streamed(name).ok_or_else(|| MergeError::UnknownReport {
        dir: out.display().to_string(),
        name: name.to_owned(),
    })?;
    let written = out.join(name);
    let cannot_write = |e: io::Error| file_error(&written, format!("cannot write it: {e}"));
    let mut header: Option<Vec<u8>> = None;
    let mut target = NewFile::create(out, name).map_err(cannot_write)?;
    {
        let mut writer = BufWriter::with_capacity(1 << 20, &mut target);
        for (report, placed) in sources.iter().zip(placements) {
            let path = report.dir.path().join(name);
            let fail = |e: io::Error| file_error(&path, e);
            let file = report.dir.open_file(name).map_err(|e| MergeError::File {
                path: path.display().to_string(),
                message: e.to_string().replace(&format!("{}: ", path.display()), ""),
            })?;
            let size = file.metadata().map_err(fail)?.len();
            let mut reader = BufReader::with_capacity(1 << 20, file);
            let mut first_line = Vec::new();
            // The header is the tool's own line of a few hundred bytes: a file that has none
            // within the bound is not one of its reports, and is not read into memory whole.
            io::BufRead::read_until(
                &mut (&mut reader).take(MAX_HEADER_BYTES),
                b'\n',
                &mut first_line,
            )
            .map_err(fail)?;
            if !first_line.ends_with(b"\n") && first_line.len() as u64 == MAX_HEADER_BYTES {
                return Err(file_error(
                    &path,
                    format!("has no header line within its first {MAX_HEADER_BYTES} bytes"),
                ));
            }
            let rows = report
                .shares
                .iter()
                .map(|shares| shares.get(name).map_or(0, |s| s.bytes))
                .try_fold(first_line.len() as u64, add)
                .map_err(|_| MergeError::Overflow {
                    dir: report.dir.path().display().to_string(),
                })?;
            if rows != size {
                return Err(file_error(
                    &path,
                    "is not the file its state.json describes (changed after the audit?)",
                ));
            }
            match &header {
                None => {
                    writer.write_all(&first_line).map_err(cannot_write)?;
                    header = Some(first_line);
                }
                Some(h) if *h != first_line => {
                    return Err(file_error(
                        &path,
                        "has another header than the first report's",
                    ));
                }
                Some(_) => {}
            }
            for (shares, placement) in report.shares.iter().zip(placed) {
                let bytes = shares.get(name).map_or(0, |s| s.bytes);
                match placement {
                    Placement::Kept(_) => {
                        let copied = io::copy(&mut (&mut reader).take(bytes), &mut writer)
                            .map_err(cannot_write)?;
                        if copied != bytes {
                            return Err(file_error(&path, "ends early"));
                        }
                    }
                    Placement::Dropped(_) => {
                        let skip =
                            i64::try_from(bytes).map_err(|_| file_error(&path, "is too large"))?;
                        reader.seek_relative(skip).map_err(fail)?;
                    }
                }
            }
        }
        writer.flush().map_err(cannot_write)?;
    }
    target.finish().map_err(cannot_write)
}
