//! `merge`: the reports of several report directories as one `audit` over all their inputs in
//! argument order would have written them.
//!
//! [`merge_states`] sums the [`State`]s: settings must be equal; agents and origins are matched
//! by name and robots versions by (origin, label), whose content must be equal; every id of a
//! report's counters is renumbered into the merged tables ([`Stats::remap`]); an input whose
//! content fingerprint an input of an earlier report had is dropped, with a warning (within
//! one report, repeats stay: the audit counted them). The counters of
//! the merged state are then those of one audit: sums, minima and maxima, and distinct sets
//! (a rule's agents, an agent's origins) recomputed from the per-input counters.
//! [`copy_streamed`] concatenates the streamed reports (`violations.csv`, `decisions.csv`) by
//! copying each kept input's byte range of each report's file, never holding rows in memory.
//!
//! The tables of unknown user-agent headers are kept per input as well, and summed in input
//! order as the audit sums them. Past the exact bound, merging these tables is approximate
//! ([`UnknownAgents::merge`]): the audit and `merge` then give the same estimates only when
//! they sum the same per-input tables, which they do for a merge of splits of one run's inputs.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::audit::stats::IdMap;
use crate::audit::unknown::UnknownAgents;
use crate::ids::{AgentId, OriginId, VersionId};
use crate::policy::summary::RobotsSummary;
use crate::report::atomic::AtomicFile;
use crate::state::{InputState, State};

/// One report directory to merge, read.
#[derive(Debug)]
pub struct Loaded {
    /// The directory.
    pub dir: PathBuf,
    /// Its state.
    pub state: State,
}

/// Reads the state of every directory; the first error names its directory.
pub fn load(dirs: &[PathBuf]) -> Result<Vec<Loaded>, String> {
    dirs.iter()
        .map(|dir| {
            State::read(dir).map(|state| Loaded {
                dir: dir.clone(),
                state,
            })
        })
        .collect()
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
    /// By report, by input.
    pub placements: Vec<Vec<Placement>>,
    /// One line each: inputs held twice, partial overlaps.
    pub warnings: Vec<String>,
}

/// Sums `reports` in order. Fails, naming the two report directories, on different settings,
/// different streamed reports, or different content under one robots version.
pub fn merge_states(reports: &[Loaded]) -> Result<Merged, String> {
    let Some(first) = reports.first() else {
        return Err("nothing to merge".into());
    };
    let mut agents: Vec<crate::state::AgentState> = Vec::new();
    let mut agent_ids: HashMap<String, AgentId> = HashMap::new();
    let mut origins: Vec<String> = Vec::new();
    let mut origin_ids: HashMap<String, OriginId> = HashMap::new();
    let mut robots = RobotsSummary::default();
    // (origin, label) -> (merged id, report index that brought it)
    let mut version_ids: HashMap<(String, String), (VersionId, usize)> = HashMap::new();
    let mut inputs: Vec<InputState> = Vec::new();
    let mut seen: HashMap<u128, (usize, usize)> = HashMap::new();
    let mut placements = Vec::new();
    let mut warnings = Vec::new();
    for (r, report) in reports.iter().enumerate() {
        let state = &report.state;
        let differences = state.settings.differences(&first.state.settings);
        if !differences.is_empty() {
            return Err(format!(
                "{} and {} were made with different settings: {}",
                first.dir.display(),
                report.dir.display(),
                differences.join(", ")
            ));
        }
        if state.streamed != first.state.streamed {
            return Err(format!(
                "{} has {} but {} has {}: merge reports made with the same --decisions",
                first.dir.display(),
                first.state.streamed.join(", "),
                report.dir.display(),
                state.streamed.join(", ")
            ));
        }
        let mut map = IdMap::default();
        for agent in &state.agents {
            let id = *agent_ids.entry(agent.name.clone()).or_insert_with(|| {
                agents.push(agent.clone());
                AgentId::from_index(agents.len() - 1).unwrap_or(AgentId::MAX)
            });
            map.agents.push(id);
        }
        for origin in &state.origins {
            let id = *origin_ids.entry(origin.clone()).or_insert_with(|| {
                origins.push(origin.clone());
                OriginId::from_index(origins.len() - 1).unwrap_or(OriginId::MAX)
            });
            map.origins.push(id);
        }
        for version in &state.robots.versions {
            let key = (version.origin.clone(), version.label());
            let id = match version_ids.get(&key) {
                Some(&(id, from)) => {
                    if robots.version(id).content_differs(version) {
                        return Err(format!(
                            "robots.txt of {} version {} differs between {} and {}",
                            key.0,
                            key.1,
                            reports[from].dir.display(),
                            report.dir.display()
                        ));
                    }
                    id
                }
                None => {
                    robots.versions.push(version.clone());
                    let id =
                        VersionId::from_index(robots.versions.len() - 1).unwrap_or(VersionId::MAX);
                    version_ids.insert(key, (id, r));
                    id
                }
            };
            map.versions.push(id);
        }
        let mut placed = Vec::with_capacity(state.inputs.len());
        // An audit given the same content twice counted it twice: only inputs of earlier
        // reports make one a repeat.
        let mut new_fingerprints = Vec::new();
        for (i, input) in state.inputs.iter().enumerate() {
            let fingerprint = input
                .fingerprint()
                .map_err(|e| format!("{}: {e}", report.dir.display()))?;
            if let Some(f) = fingerprint
                && let Some(&(earlier_report, merged)) = seen.get(&f)
            {
                warnings.push(format!(
                    "input {} of {} has the same content as input {} of {}: counted once",
                    input.file.name,
                    report.dir.display(),
                    inputs[merged].file.name,
                    reports[earlier_report].dir.display()
                ));
                placed.push(Placement::Dropped(merged));
                continue;
            }
            let stats = input
                .stats
                .remap(&map)
                .map_err(|e| format!("{}: input {i}: {e}", report.dir.display()))?;
            if let Some(f) = fingerprint {
                new_fingerprints.push((f, inputs.len()));
            }
            placed.push(Placement::Kept(inputs.len()));
            inputs.push(InputState {
                stats,
                ..input.clone()
            });
        }
        for (f, at) in new_fingerprints {
            seen.entry(f).or_insert((r, at));
        }
        // The samples of the unknown headers name inputs by position: renumbered as the inputs.
        for (input, &placement) in state.inputs.iter().zip(&placed) {
            let Placement::Kept(at) = placement else {
                continue;
            };
            let table = UnknownAgents::from_state(&input.unknown_agents, |i| {
                placed
                    .get(i)
                    .map(|&(Placement::Kept(m) | Placement::Dropped(m))| m)
                    .ok_or_else(|| {
                        format!("{}: input {i} is not in its state", report.dir.display())
                    })
            })?;
            inputs[at].unknown_agents = table.to_state();
        }
        placements.push(placed);
    }
    Ok(Merged {
        state: State {
            settings: first.state.settings.clone(),
            agents,
            origins,
            robots,
            streamed: first.state.streamed.clone(),
            inputs,
        },
        placements,
        warnings,
    })
}

/// Writes streamed report `name` into `out` (atomically): the header of the first report's
/// file, then, report by report in order, the byte range of every kept input. A file whose size
/// does not match its state (changed after the audit) is an error naming it.
pub fn copy_streamed(
    out: &Path,
    name: &str,
    reports: &[Loaded],
    placements: &[Vec<Placement>],
) -> Result<(), String> {
    let mut header: Option<Vec<u8>> = None;
    let mut target = AtomicFile::create(out, name)
        .map_err(|e| format!("cannot write {} into {}: {e}", name, out.display()))?;
    {
        let mut writer = BufWriter::with_capacity(1 << 20, &mut target);
        for (report, placed) in reports.iter().zip(placements) {
            let path = report.dir.join(name);
            let fail = |e: io::Error| format!("{}: {e}", path.display());
            let file = File::open(&path).map_err(fail)?;
            let size = file.metadata().map_err(fail)?.len();
            let mut reader = BufReader::with_capacity(1 << 20, file);
            let mut first_line = Vec::new();
            io::BufRead::read_until(&mut reader, b'\n', &mut first_line).map_err(fail)?;
            let rows: u64 = report
                .state
                .inputs
                .iter()
                .map(|i| i.streamed.get(name).map_or(0, |s| s.bytes))
                .sum();
            if first_line.len() as u64 + rows != size {
                return Err(format!(
                    "{} is not the file its state.json describes (changed after the audit?)",
                    path.display()
                ));
            }
            match &header {
                None => {
                    writer.write_all(&first_line).map_err(fail)?;
                    header = Some(first_line);
                }
                Some(h) if *h != first_line => {
                    return Err(format!(
                        "{} has another header than the first report's",
                        path.display()
                    ));
                }
                Some(_) => {}
            }
            for (input, placement) in report.state.inputs.iter().zip(placed) {
                let bytes = input.streamed.get(name).map_or(0, |s| s.bytes);
                match placement {
                    Placement::Kept(_) => {
                        let copied =
                            io::copy(&mut (&mut reader).take(bytes), &mut writer).map_err(fail)?;
                        if copied != bytes {
                            return Err(format!("{} ends early", path.display()));
                        }
                    }
                    Placement::Dropped(_) => {
                        let skip = i64::try_from(bytes)
                            .map_err(|_| format!("{} is too large", path.display()))?;
                        reader.seek_relative(skip).map_err(fail)?;
                    }
                }
            }
        }
        writer
            .flush()
            .map_err(|e| format!("cannot write {}: {e}", name))?;
    }
    target
        .commit()
        .map_err(|e| format!("cannot write {} into {}: {e}", name, out.display()))
}
