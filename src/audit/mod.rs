//! The audit: logs and robots sources in, verdicts and counters out (SPEC `audit`).
//!
//! [`run`] loads the bot catalog, the IP ranges and the robots versions, runs the
//! [`pipeline`] over the logs, and writes the [`crate::report`]s.

pub mod identity;
pub mod judge;
pub mod pipeline;
mod recent;
pub mod stats;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use jiff::{SignedDuration, Timestamp};
use robots_audit_bots::{Catalog, Verifier};
use robots_audit_logs::{FieldMap, Format, Source};

use self::identity::{AgentInfo, Identifier};
use self::judge::Judge;
use self::stats::{AgentId, OriginId, Stats};
use crate::error::Error;
use crate::origin::Origin;
use crate::policy::PolicySet;
use crate::policy::source::{LoadOptions, load};
use crate::report::{self, stream::StreamedReport};

/// A `--verify` range file and the bot or operator it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeFile {
    /// A bot name or operator; `None`: inferred from the file name.
    pub key: Option<String>,
    /// The file.
    pub path: PathBuf,
}

/// Everything `robots-audit audit` is told.
#[derive(Debug, Clone)]
pub struct AuditConfig {
    /// `LOG` arguments: files, directories, or `-` for standard input.
    pub logs: Vec<PathBuf>,
    /// `--robots` sources.
    pub robots: Vec<PathBuf>,
    /// `--origin`: the origin of lines that carry none, and of a single robots file.
    pub origin: Option<Origin>,
    /// `--format`; `None` detects it per file.
    pub format: Option<Format>,
    /// `--field` mappings for JSON logs.
    pub fields: FieldMap,
    /// `--out`.
    pub out: PathBuf,
    /// `--grace`.
    pub grace: SignedDuration,
    /// `--bots` files.
    pub bots: Vec<PathBuf>,
    /// `--verify` files.
    pub verify: Vec<RangeFile>,
    /// `--all-agents`.
    pub all_agents: bool,
    /// `--decisions`.
    pub decisions: bool,
    /// Write `report.html` beside the CSVs (`--no-html` turns it off).
    pub html: bool,
    /// `--threads`.
    pub threads: usize,
    /// Show the progress bar and the summary table.
    pub progress: bool,
    /// `--user-agent`: stands in for lines that carry no user-agent (crawl logs).
    pub fallback_user_agent: Option<Vec<u8>>,
    /// Set from a signal handler to stop the run; no report is written then.
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Default for AuditConfig {
    fn default() -> AuditConfig {
        AuditConfig {
            logs: Vec::new(),
            robots: Vec::new(),
            origin: None,
            format: None,
            fields: FieldMap::default(),
            out: PathBuf::from("robots-audit-report"),
            grace: SignedDuration::from_hours(24),
            bots: Vec::new(),
            verify: Vec::new(),
            all_agents: false,
            decisions: false,
            html: true,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            progress: false,
            fallback_user_agent: None,
            interrupt: None,
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// Its line number.
    pub line: u64,
    /// Why it was skipped.
    pub reason: &'static str,
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

/// What happened to one input file (`inputs.csv`).
#[derive(Debug, Clone, Default)]
pub struct FileReport {
    /// As shown in reports.
    pub name: String,
    /// The format used.
    pub format: Option<&'static str>,
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

    fn merge(&mut self, counts: pipeline::FileCounts) {
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
    /// The counters.
    pub stats: Stats,
    /// One per input, in argument order.
    pub files: Vec<FileReport>,
    /// The robots versions.
    pub policy: PolicySet,
}

impl AuditResult {
    /// An agent's name.
    pub fn agent_name(&self, agent: AgentId) -> &str {
        self.agents
            .get(agent as usize)
            .map_or("", |a| a.bot.name.as_str())
    }

    /// An origin's name.
    pub fn origin_name(&self, origin: OriginId) -> &str {
        self.origins.get(origin as usize).map_or("", String::as_str)
    }

    /// Whether some input had an error (exit code 3).
    pub fn input_errors(&self) -> bool {
        self.files.iter().any(|f| f.error.is_some())
    }
}

/// Expands `LOG` arguments: a directory stands for its regular files, sorted by name.
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

/// Loads the catalog: the built-in one, extended by `--bots` files.
pub fn load_catalog(files: &[PathBuf]) -> Result<Catalog, Error> {
    let mut catalog = Catalog::builtin();
    for file in files {
        catalog
            .extend_from_file(file)
            .map_err(|e| Error::Fatal(format!("--bots {}: {e}", file.display())))?;
    }
    Ok(catalog)
}

fn load_verifier(catalog: &Catalog, files: &[RangeFile]) -> Result<Verifier, Error> {
    let mut verifier = Verifier::new();
    for file in files {
        let key = match &file.key {
            Some(key) => key.clone(),
            None => Verifier::key_from_file_name(catalog, &file.path).ok_or_else(|| {
                Error::Usage(format!(
                    "--verify {}: cannot tell which bot these ranges belong to; write --verify BOT={}",
                    file.path.display(),
                    file.path.display()
                ))
            })?,
        };
        let bytes = fs::read(&file.path)
            .map_err(|e| Error::Fatal(format!("--verify {}: {e}", file.path.display())))?;
        let name = file.path.display().to_string();
        verifier
            .add_ranges(&key, &bytes, &name)
            .map_err(|e| Error::Fatal(format!("--verify {name}: {e}")))?;
    }
    Ok(verifier)
}

/// Runs an audit and writes its reports into `config.out`.
pub fn run(config: &AuditConfig) -> Result<AuditResult, Error> {
    let catalog = load_catalog(&config.bots)?;
    let verifier = load_verifier(&catalog, &config.verify)?;
    let policy = load(
        &config.robots,
        &LoadOptions {
            origin: config.origin.clone(),
            ..LoadOptions::default()
        },
    )
    .map_err(|e| Error::Fatal(e.0))?;
    let inputs = expand_inputs(&config.logs)?;
    if inputs.is_empty() {
        return Err(Error::Fatal(
            "no input: the log arguments name no file".into(),
        ));
    }
    let out = &config.out;
    fs::create_dir_all(out)
        .map_err(|e| Error::Fatal(format!("cannot create --out {}: {e}", out.display())))?;
    let start = |name: &str, header: &str| {
        StreamedReport::create(out, name, header, inputs.len())
            .map_err(|e| Error::Fatal(format!("cannot write into --out {}: {e}", out.display())))
    };
    let violations = start("violations.csv", report::violations::HEADER)?;
    let decisions = if config.decisions {
        Some(start("decisions.csv", report::decisions::HEADER)?)
    } else {
        None
    };
    let identifier = Identifier::new(&catalog, config.all_agents);
    let judge = Judge::new(&policy, config.grace);
    let output = pipeline::run(
        config,
        &inputs,
        &identifier,
        &judge,
        &verifier,
        &violations,
        decisions.as_ref(),
    )
    .map_err(|e| {
        if config.interrupted() {
            Error::Interrupted
        } else {
            Error::Fatal(e)
        }
    })?;
    let result = AuditResult {
        agents: identifier.into_agents(),
        origins: output.origins,
        stats: output.stats,
        files: output.files,
        policy,
    };
    if result
        .files
        .iter()
        .all(|f| f.error.is_some() && f.lines == 0)
    {
        let first = result
            .files
            .first()
            .map(|f| format!("{}: {}", f.name, f.error.as_deref().unwrap_or_default()));
        return Err(Error::Fatal(format!(
            "no readable input ({})",
            first.unwrap_or_default()
        )));
    }
    write_reports(out, &result, violations, decisions)
        .and_then(|()| {
            if config.html {
                report::html::write(out)?;
            }
            Ok(())
        })
        .map_err(|e| Error::Fatal(format!("cannot write reports into {}: {e}", out.display())))?;
    Ok(result)
}

fn write_reports(
    out: &Path,
    result: &AuditResult,
    violations: StreamedReport,
    decisions: Option<StreamedReport>,
) -> std::io::Result<()> {
    report::agents::write(out, result)?;
    report::agent_origins::write(out, result)?;
    violations.commit()?;
    if let Some(decisions) = decisions {
        decisions.commit()?;
    }
    report::rules::write(out, result)?;
    report::robots::write(out, result)?;
    report::inputs::write(out, result)
}
