//! `robots-audit audit`: logs and robots sources in, CSV reports out.
//!
//! The command loads what the audit needs (the bot catalog, the published ranges, the robots
//! versions, the list of inputs), starts the reports in `--out`, runs the library's audit with
//! the reports as its output, and writes the remaining reports and the summary.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use clap::Args;
use robots_audit::audit::{self, AuditConfig, InputFilter, expand_selected_inputs};
use robots_audit::bots::dns::{DnsCache, DnsConfig, DnsResolver, DnsVerifier, NameServers};
use robots_audit::bots::{Catalog, Verifier};
use robots_audit::commit::Staging;
use robots_audit::error::Error;
use robots_audit::logs::{FieldMap, FieldName, Format, HaproxyCaptures, LocalZone};
use robots_audit::origin::Origin;
use robots_audit::report::notes::count;
use robots_audit::report::summary;
use robots_audit::report::{Reports, View};
use robots_audit::state::Settings;
use robots_audit::versions::source::{LoadOptions, load};
use robots_audit::versions::summary::hex;
use sha2::{Digest, Sha256};

use super::{
    LastWords, commit_out, duration_flag, exit_code, load_catalog, lock_out, on_interrupt, one_of,
    parse_duration, say, usage,
};

/// What `robots-audit audit` does, for `--help`.
pub const ABOUT: &str = "Logs + robots sources -> CSV reports (the main job)";

/// The `--format` value that detects the format of each file.
const AUTO: &str = "auto";

/// The formats `--field` applies to.
const FIELD_FORMATS: [Format; 3] = [Format::Json, Format::Caddy, Format::Crawl];

/// `--format`'s help: every name, written once (in the logs crate).
fn format_help() -> String {
    format!(
        "Log format: {}.",
        [AUTO]
            .into_iter()
            .chain(Format::ALL.iter().map(Format::name))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `--field`'s help: every field name a mapping may use, from the list that reads them, so
/// that the help cannot leave one out.
fn field_help() -> String {
    format!(
        "JSON field mapping, name=dotted.path (names: {}), or a preset (logpush). Repeatable.",
        FieldName::ALL
            .iter()
            .map(|name| name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The options that shape the verdict on each request: where the robots.txt versions, the
/// catalog and the ranges come from, how lines are read, grace and strictness. `audit` and
/// `explain` both take them, so a line is explained as the audit judged it.
#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// A robots.txt file (with --origin), a directory of them, or a manifest CSV. Repeatable.
    #[arg(long = "robots", value_name = "PATH", required = true)]
    pub robots: Vec<PathBuf>,
    /// Origin of requests in logs that carry no host, e.g. https://example.com.
    #[arg(long, value_name = "URL")]
    pub origin: Option<String>,
    /// Log format (`auto` detects it per file).
    #[arg(long, default_value = AUTO, value_name = "NAME", help = format_help())]
    pub format: String,
    /// JSON field mapping, name=dotted.path, or a preset (logpush).
    #[arg(long = "field", value_name = "MAPPING", help = field_help())]
    pub fields: Vec<String>,
    /// The proxy in front of the server sets X-Forwarded-Proto and X-Forwarded-Host: Caddy
    /// lines that carry them take their scheme and host from them.
    #[arg(long)]
    pub trust_forwarded: bool,
    /// The time zone of log times written without an offset (HAProxy's accept date, IIS
    /// Advanced Logging's date-local and time-local, a JSON date and time without one), an
    /// IANA name such as Europe/Paris; without it they are read as UTC.
    #[arg(long, value_name = "ZONE")]
    pub timezone: Option<String>,
    /// The request headers HAProxy captures, in the order of haproxy.cfg's `capture request
    /// header` lines, e.g. x-forwarded-for,host,user-agent: the user-agent and the host are
    /// read by position. Without it they are guessed by their shape, which the client chooses.
    #[arg(long, value_name = "HEADERS")]
    pub haproxy_captures: Option<String>,
    /// How many self-declared bots, and how many origins without a robots source, are kept
    /// before the others are folded (a state setting). Hidden: the bound is documented as a
    /// constant; tests use a small one.
    #[arg(long, hide = true, value_name = "N", default_value_t = robots_audit::audit::fold::KEPT_NAMES)]
    pub kept_names: usize,
    /// How long after a robots.txt change a request only the new version forbids counts as grace.
    #[arg(long, default_value = "24h", value_name = "DURATION")]
    pub grace: String,
    /// Extra or replacement bot definitions (catalog JSON or crawler-user-agents JSON). Repeatable.
    #[arg(long, value_name = "FILE")]
    pub bots: Vec<PathBuf>,
    /// Published IP ranges of a bot or operator: FILE (bot inferred from the name), BOT=FILE,
    /// or a directory of dated snapshots (DIR/<list, bot or operator>/<time>.json). Repeatable.
    #[arg(long, value_name = "[BOT=]PATH")]
    pub verify: Vec<String>,
    /// Count requests of agents whose operators say robots.txt does not bind them
    /// (user-triggered fetchers, crawlers that ignore it) as violations rather than exempt.
    #[arg(long)]
    pub strict: bool,
    /// Also judge requests whose user-agent is not a bot.
    #[arg(long)]
    pub all_agents: bool,
    /// The user-agent of lines that carry none (a crawler's own fetch log).
    #[arg(long, value_name = "HEADER")]
    pub user_agent: Option<String>,
}

/// `robots-audit audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Log files, directories (their files, in natural order: access.log, .1, .2, ..., .10),
    /// or - for standard input.
    #[arg(required = true, value_name = "LOG")]
    pub logs: Vec<PathBuf>,
    /// Of a LOG directory, read only the files whose name matches GLOB (e.g. 'access.log*').
    /// Repeatable; files named on the command line are always read.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Of a LOG directory, leave out the files whose name matches GLOB (e.g. 'error.log*').
    /// Repeatable; wins over --include.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// The options that shape each verdict, shared with `explain`.
    #[command(flatten)]
    pub judging: JudgeArgs,
    /// Where the reports go.
    #[arg(long, default_value = "robots-audit-report", value_name = "DIR")]
    pub out: PathBuf,
    /// The `--dns-*` options of `--verify dns`, shared with `explain`.
    #[command(flatten)]
    pub dns: DnsArgs,
    /// Also write decisions.csv, one row per judged request.
    #[arg(long)]
    pub decisions: bool,
    /// Do not write report.html (only the CSVs).
    #[arg(long)]
    pub no_html: bool,
    /// When another run is writing --out, wait for it to finish instead of exiting.
    #[arg(long)]
    pub wait: bool,
    /// Write CSV cells as read: no leading ' before a cell a spreadsheet would take for a
    /// formula, control bytes as they are (for pipelines, not spreadsheets).
    #[arg(long)]
    pub raw_csv: bool,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// No progress bar and no summary table.
    #[arg(short, long)]
    pub quiet: bool,
}

/// A `--verify` range file and the bot or operator it belongs to, or a snapshot directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RangeFile {
    /// A bot name or operator; `None`: inferred from the file name.
    key: Option<String>,
    /// The file or snapshot directory.
    path: PathBuf,
}

impl RangeFile {
    /// `BOT=FILE`, or `FILE` (also when the whole argument names an existing file).
    pub(super) fn parse(arg: &str) -> RangeFile {
        match arg.split_once('=') {
            Some((key, path))
                if !key.is_empty() && !key.contains('/') && !PathBuf::from(arg).exists() =>
            {
                RangeFile {
                    key: Some(key.to_owned()),
                    path: PathBuf::from(path),
                }
            }
            _ => RangeFile {
                key: None,
                path: PathBuf::from(arg),
            },
        }
    }
}

impl JudgeArgs {
    /// The library configuration these arguments describe, checked: every wrong value is a
    /// usage error.
    pub(super) fn config(&self) -> Result<AuditConfig, Error> {
        let origin = self
            .origin
            .as_deref()
            .map(|o| {
                Origin::parse(o).map_err(|e| {
                    usage(format!(
                        "--origin {o:?} is not an origin such as https://example.com: {e}"
                    ))
                })
            })
            .transpose()?;
        let format = match self.format.as_str() {
            AUTO => None,
            name => Some(Format::from_name(name).ok_or_else(|| {
                usage(format!(
                    "--format {name:?} is unknown; use {}",
                    one_of(
                        [AUTO]
                            .into_iter()
                            .chain(Format::ALL.iter().map(Format::name))
                    )
                ))
            })?),
        };
        if !self.fields.is_empty() && format.is_some_and(|f| !FIELD_FORMATS.contains(&f)) {
            return Err(usage(format!(
                "--field maps JSON fields, which --format {} does not have; use --format {}",
                self.format,
                one_of(FIELD_FORMATS.iter().map(Format::name).chain([AUTO]))
            )));
        }
        let mut fields = FieldMap::default();
        for mapping in &self.fields {
            match FieldMap::preset(mapping) {
                Some(preset) if fields.is_empty() => fields = preset,
                Some(_) => {
                    return Err(usage(format!(
                        "--field {mapping}: a preset must come before any other --field"
                    )));
                }
                None => fields
                    .parse_mapping(mapping)
                    .map_err(|e| usage(e.to_string()))?,
            }
        }
        if let Some(spec) = &self.haproxy_captures {
            if format.is_some_and(|f| f != Format::Haproxy) {
                return Err(usage(format!(
                    "--haproxy-captures names HAProxy's captured headers, which --format {} does \
                     not have; use --format haproxy or {AUTO}",
                    self.format
                )));
            }
            let captures = spec
                .parse::<HaproxyCaptures>()
                .map_err(|e| usage(e.to_string()))?;
            fields.set_haproxy_captures(Some(captures));
        }
        fields.set_trust_forwarded(self.trust_forwarded);
        if let Some(name) = &self.timezone {
            fields.set_local_zone(LocalZone::named(name).map_err(|e| usage(e.to_string()))?);
        }
        let defaults = AuditConfig::default();
        Ok(AuditConfig {
            origin,
            format,
            fields,
            grace: parse_duration("--grace", &self.grace)?,
            strict: self.strict,
            all_agents: self.all_agents,
            fallback_user_agent: self.user_agent.clone().map(String::into_bytes),
            kept_names: self.kept_names.max(1),
            ..defaults
        })
    }
}

impl JudgeArgs {
    /// The settings that shaped the verdicts, as `state.json` records them: `merge` refuses
    /// reports whose settings differ. The catalog and range lists count by their content.
    pub(super) fn settings(
        &self,
        catalog: &Catalog,
        config: &AuditConfig,
    ) -> Result<Settings, Error> {
        let mut settings = Settings::of(config, catalog);
        if !self.bots.is_empty() {
            let mut hasher = Sha256::new();
            hasher.update(settings.catalog_sha256.as_bytes());
            for file in &self.bots {
                hash_path(&mut hasher, file)?;
            }
            settings.catalog_sha256 = hex(hasher.finalize());
        }
        settings.verify.clear();
        for arg in &self.verify {
            if arg == DNS {
                settings.verify.push(DNS.to_owned());
                continue;
            }
            let file = RangeFile::parse(arg);
            let mut hasher = Sha256::new();
            hash_path(&mut hasher, &file.path)?;
            let digest = hex(hasher.finalize());
            settings.verify.push(match file.key {
                Some(key) => format!("{key}={digest}"),
                None => digest,
            });
        }
        settings.user_agent = self.user_agent.clone();
        settings.format = self.format.clone();
        settings.fields = self.fields.clone();
        settings.trust_forwarded = self.trust_forwarded;
        settings.timezone = self.timezone.clone();
        Ok(settings)
    }
}

/// Feeds the bytes of `path` into `hasher`: a file's, or a directory's files' (with their
/// names relative to it) in name order, recursively.
fn hash_path(hasher: &mut Sha256, path: &std::path::Path) -> Result<(), Error> {
    let fail = |e: std::io::Error| Error::Fatal(format!("cannot read {}: {e}", path.display()));
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = fs::read_dir(path)
            .and_then(|rd| rd.map(|e| e.map(|e| e.path())).collect())
            .map_err(fail)?;
        entries.sort();
        for entry in entries {
            if let Some(name) = entry.file_name() {
                hasher.update(name.as_encoded_bytes());
                hasher.update([0]);
            }
            hash_path(hasher, &entry)?;
        }
        return Ok(());
    }
    hasher.update(fs::read(path).map_err(fail)?);
    Ok(())
}

impl AuditArgs {
    /// The library configuration these arguments describe, checked: every wrong value is a
    /// usage error.
    pub(super) fn config(&self) -> Result<AuditConfig, Error> {
        if self
            .logs
            .iter()
            .filter(|log| log.as_os_str() == "-")
            .count()
            > 1
        {
            return Err(usage(
                "standard input can be read only once; give - a single time".into(),
            ));
        }
        let defaults = AuditConfig::default();
        Ok(AuditConfig {
            threads: self.threads.map_or(defaults.threads, usize::from),
            progress: !self.quiet,
            ..self.judging.config()?
        })
    }

    /// The DNS verifier `--verify dns` and the `--dns-*` options describe, with the cache read.
    fn dns_verifier(&self) -> Result<Option<DnsVerifier>, Error> {
        self.dns.verifier(&self.judging)
    }
}

/// The options of `--verify dns`.
#[derive(Debug, Args)]
pub struct DnsArgs {
    /// With `--verify dns`: the DNS cache, a CSV `ip,ptr,confirmed,checked_at` read before the
    /// run and written back atomically after it.
    #[arg(long, value_name = "FILE")]
    pub dns_cache: Option<PathBuf>,
    /// With `--verify dns`: cache entries older than this are looked up again.
    #[arg(long, default_value = "7d", value_name = "DURATION")]
    pub dns_ttl: String,
    /// With `--verify dns`: answer from `--dns-cache` only (an address not in it is unverified).
    #[arg(long)]
    pub offline: bool,
    /// With `--verify dns`: a name server to ask instead of the system's (resolv.conf).
    /// Repeatable.
    #[arg(long, value_name = "IP:PORT")]
    pub dns_server: Vec<std::net::SocketAddr>,
    /// With `--verify dns`: the longest one lookup (reverse or forward) may take.
    #[arg(long, default_value = "2s", value_name = "DURATION")]
    pub dns_timeout: String,
    /// With `--verify dns`: the most time the run's lookups may take in all; addresses met after
    /// it is spent are not looked up.
    #[arg(long, default_value = "10m", value_name = "DURATION")]
    pub dns_budget: String,
}

impl DnsArgs {
    /// The DNS verifier `--verify dns` (in `judging`) and these options describe, with the
    /// cache read; `None` without `--verify dns`.
    pub fn verifier(&self, judging: &JudgeArgs) -> Result<Option<DnsVerifier>, Error> {
        if !judging.verify.iter().any(|v| v == DNS) {
            if self.offline || self.dns_cache.is_some() || !self.dns_server.is_empty() {
                return Err(usage(
                    "--dns-cache, --dns-server and --offline need --verify dns".into(),
                ));
            }
            return Ok(None);
        }
        let ttl = duration_flag("--dns-ttl", &self.dns_ttl, false)?;
        let timeout = duration_flag("--dns-timeout", &self.dns_timeout, true)?;
        let budget = duration_flag("--dns-budget", &self.dns_budget, false)?;
        let cache = match &self.dns_cache {
            Some(path) if path.exists() => {
                DnsCache::load(path).map_err(|e| Error::Fatal(e.to_string()))?
            }
            _ => DnsCache::new(),
        };
        if self.offline {
            if self.dns_cache.is_none() {
                return Err(usage(
                    "--offline answers from --dns-cache FILE: give it".into(),
                ));
            }
            return Ok(Some(DnsVerifier::offline(cache)));
        }
        let resolver = DnsResolver::new(&DnsConfig {
            name_servers: if self.dns_server.is_empty() {
                NameServers::System
            } else {
                NameServers::Addresses(self.dns_server.clone())
            },
            timeout,
            ..DnsConfig::system()
        })
        .map_err(|e| Error::Fatal(e.to_string()))?;
        Ok(Some(
            DnsVerifier::online(resolver, cache, ttl).with_budget(budget),
        ))
    }

    /// The file the verifier's cache is written back to: `--dns-cache`, unless offline (then
    /// the file is left as it was).
    pub fn saved_to(&self) -> Option<&Path> {
        self.dns_cache.as_deref().filter(|_| !self.offline)
    }

    /// Writes the verifier's cache back to [`saved_to`](Self::saved_to), atomically.
    pub fn save(&self, dns: &DnsVerifier) -> Result<(), Error> {
        save_dns_cache(self.saved_to(), dns)
    }
}

fn save_dns_cache(path: Option<&Path>, dns: &DnsVerifier) -> Result<(), Error> {
    match path {
        Some(path) => dns
            .cache_to_keep()
            .save(path)
            .map_err(|e| Error::Fatal(e.to_string())),
        None => Ok(()),
    }
}

/// What an interrupted audit with `--verify dns` says before its process exits, if the run has
/// not returned by then (a thread blocked reading a pipe): the DNS cache, written back. The
/// wait covers the lookups under way when the run was stopped.
fn dns_last_words(args: &DnsArgs, dns: &Arc<Mutex<DnsVerifier>>) -> Option<LastWords> {
    let path = args.saved_to()?.to_owned();
    let wait = dns
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .longest_lookup();
    let dns = Arc::downgrade(dns);
    Some(LastWords {
        wait,
        say: Box::new(move || {
            // A thread that holds the verifier now is stuck: the cache is then left as it was
            // rather than the exit waiting for it.
            let Some(dns) = dns.upgrade() else {
                return;
            };
            let Ok(dns) = dns.try_lock() else {
                return;
            };
            if let Err(not_saved) = save_dns_cache(Some(&path), &dns) {
                say(format_args!("robots-audit: warning: {not_saved}"));
            }
        }),
    })
}

/// The `--verify` value that turns on forward-confirmed reverse DNS.
pub(super) const DNS: &str = "dns";

/// Runs `robots-audit audit`: exit code 0, or 3 when some input had errors or nothing could be
/// judged.
pub fn run(args: AuditArgs) -> Result<u8, Error> {
    let mut config = args.config()?;
    let verify: Vec<RangeFile> = args
        .judging
        .verify
        .iter()
        .filter(|a| *a != DNS)
        .map(|a| RangeFile::parse(a))
        .collect();
    let dns = args.dns_verifier()?.map(|dns| Arc::new(Mutex::new(dns)));
    let last_words = dns.as_ref().and_then(|dns| dns_last_words(&args.dns, dns));
    let interrupt = on_interrupt(last_words)?;
    if let Some(dns) = &dns {
        dns.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .stop_on(Arc::clone(&interrupt));
    }
    config.dns = dns.clone();
    config.interrupt = Some(Arc::clone(&interrupt));
    let catalog = load_catalog(&args.judging.bots)?;
    let verifier = load_verifier(&catalog, &verify)?;
    let robots = load(
        &args.judging.robots,
        &LoadOptions {
            origin: config.origin.clone(),
            ..LoadOptions::default()
        },
    )
    .map_err(|e| Error::Fatal(e.0))?;
    let mut settings = args.judging.settings(&catalog, &config)?;
    settings.raw_csv = args.raw_csv;
    let filter = InputFilter::new(&args.include, &args.exclude)?;
    let inputs = expand_selected_inputs(&args.logs, &filter)?;
    if inputs.is_empty() {
        return Err(Error::Fatal(
            "no input: the log arguments name no file".into(),
        ));
    }
    let out = &args.out;
    let lock = lock_out(out, args.wait)?;
    let staging = Staging::create(&lock)?;
    let reports = Reports::create(staging.path(), inputs.len(), args.decisions)
        .map(|reports| {
            reports
                .with_html(!args.no_html)
                .with_threads(config.threads)
                .with_raw_csv(args.raw_csv)
        })
        .map_err(|e| Error::Fatal(format!("cannot write into --out {}: {e}", out.display())))?;
    let run = audit::run(&config, &catalog, &verifier, robots, &inputs, &&reports);
    drop(config);
    // The answers are worth keeping whatever stops the run (an interrupt, a bad input): a night
    // killed by a watchdog must not ask them all again the next night.
    if let Some(dns) = dns {
        let dns = dns.lock().unwrap_or_else(PoisonError::into_inner);
        if dns.not_asked() > 0 {
            say(format_args!(
                "robots-audit: warning: --verify dns: the lookups took their whole --dns-budget \
                 ({}); {} met after it {} not looked up",
                args.dns.dns_budget,
                count(dns.not_asked() as u64, "address", "addresses"),
                if dns.not_asked() == 1 { "was" } else { "were" },
            ));
        }
        let saved = args.dns.save(&dns);
        match (&run, saved) {
            (Ok(_), saved) => saved?,
            (Err(_), Err(not_saved)) => say(format_args!("robots-audit: warning: {not_saved}")),
            (Err(_), Ok(())) => {}
        }
    }
    let run = run?;
    let state = reports
        .finish(run, settings)
        .map_err(|e| Error::Fatal(format!("cannot write reports into {}: {e}", out.display())))?;
    let view = View::of(&state)?;
    commit_out(staging, &interrupt)?;
    if !args.quiet {
        super::to_stderr(&summary::render(&view, &out.display().to_string()));
    }
    Ok(exit_code(&view))
}

/// Loads every `--verify` source: a range file (its key given or inferred from its name) or a
/// directory of dated snapshots, in force from their times.
pub(super) fn load_verifier(catalog: &Catalog, files: &[RangeFile]) -> Result<Verifier, Error> {
    let mut verifier = Verifier::new();
    for file in files {
        if file.key.is_none()
            && !file.path.is_dir()
            && Verifier::key_from_file_name(catalog, &file.path).is_none()
        {
            return Err(Error::Usage(format!(
                "--verify {}: cannot tell which bot these ranges belong to; write --verify BOT={}",
                file.path.display(),
                file.path.display()
            )));
        }
        verifier
            .add_path(catalog, file.key.as_deref(), &file.path)
            .map_err(|e| Error::Fatal(format!("--verify {}: {e}", file.path.display())))?;
    }
    Ok(verifier)
}
