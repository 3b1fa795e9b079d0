//! Command-line definitions (clap derive). Turning them into library configurations is here too,
//! so that every wrong value is a usage error (exit code 2) with one clear sentence.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use robots_audit::audit::{AuditConfig, RangeFile};
use robots_audit::check::CheckConfig;
use robots_audit::error::Error;
use robots_audit::logs::{FieldMap, Format};
use robots_audit::origin::Origin;

/// Audit web access logs against the robots.txt in force at each request.
#[derive(Debug, Parser)]
#[command(name = "robots-audit", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Logs + robots sources -> CSV reports (the main job).
    Audit(AuditArgs),
    /// One robots.txt, one or more agents: a verdict per URL with the deciding rule.
    Check(CheckArgs),
    /// Realistic synthetic logs and robots files with known ground truth.
    Synth(SynthArgs),
}

/// `robots-audit audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Log files, directories (their files, sorted by name), or - for standard input.
    #[arg(required = true, value_name = "LOG")]
    pub logs: Vec<PathBuf>,
    /// A robots.txt file (with --origin), a directory of them, or a manifest CSV. Repeatable.
    #[arg(long = "robots", value_name = "PATH", required = true)]
    pub robots: Vec<PathBuf>,
    /// Origin of requests in logs that carry no host, e.g. https://example.com.
    #[arg(long, value_name = "URL")]
    pub origin: Option<String>,
    /// Log format: auto, combined, common, vhost_combined, w3c, cloudfront, alb, caddy, json, crawl.
    #[arg(long, default_value = "auto", value_name = "NAME")]
    pub format: String,
    /// JSON field mapping, name=dotted.path (names: time, client_ip, method, target, url,
    /// status, bytes, user_agent, host, scheme), or a preset (logpush). Repeatable.
    #[arg(long = "field", value_name = "MAPPING")]
    pub fields: Vec<String>,
    /// The proxy in front of the server sets X-Forwarded-Proto and X-Forwarded-Host: Caddy
    /// lines that carry them take their scheme and host from them.
    #[arg(long)]
    pub trust_forwarded: bool,
    /// Where the reports go.
    #[arg(long, default_value = "robots-audit-report", value_name = "DIR")]
    pub out: PathBuf,
    /// How long after a robots.txt change a request only the new version forbids counts as grace.
    #[arg(long, default_value = "24h", value_name = "DURATION")]
    pub grace: String,
    /// Extra or replacement bot definitions (catalog JSON or crawler-user-agents JSON). Repeatable.
    #[arg(long, value_name = "FILE")]
    pub bots: Vec<PathBuf>,
    /// Published IP ranges of a bot or operator: FILE (bot inferred from the name) or BOT=FILE.
    /// Repeatable.
    #[arg(long, value_name = "[BOT=]FILE")]
    pub verify: Vec<String>,
    /// Also judge requests whose user-agent is not a bot.
    #[arg(long)]
    pub all_agents: bool,
    /// Also write decisions.csv, one row per judged request.
    #[arg(long)]
    pub decisions: bool,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// The user-agent of lines that carry none (a crawler's own fetch log).
    #[arg(long, value_name = "HEADER")]
    pub user_agent: Option<String>,
    /// No progress bar and no summary table.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `robots-audit check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The robots.txt file.
    #[arg(long, value_name = "FILE")]
    pub robots: PathBuf,
    /// A product token, compared exactly as Google's matcher does. Repeatable: the crawler
    /// answers to all of them and their groups merge.
    #[arg(long = "agent", value_name = "TOKEN")]
    pub agents: Vec<String>,
    /// A full User-Agent header, resolved to tokens through the bot catalog.
    #[arg(long, value_name = "HEADER", conflicts_with = "agents")]
    pub user_agent: Option<String>,
    /// Extra bot definitions for --user-agent.
    #[arg(long, value_name = "FILE")]
    pub bots: Vec<PathBuf>,
    /// Read more URLs from FILE, one per line (- for standard input).
    #[arg(long, value_name = "FILE")]
    pub urls: Option<PathBuf>,
    /// Ignore content after 500 KiB, as Google's crawler does (Google's library reads it all).
    #[arg(long)]
    pub truncate: bool,
    /// URLs: absolute, bare paths, or empty.
    #[arg(value_name = "URL")]
    pub url: Vec<String>,
}

/// `robots-audit synth`.
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Where to write logs/, robots/, ranges/ and the truth files.
    #[arg(long, default_value = "synth-data", value_name = "DIR")]
    pub out: PathBuf,
    /// Log lines in all.
    #[arg(long, default_value_t = 100_000)]
    pub lines: u64,
    /// Number of origins (sites).
    #[arg(long, default_value_t = 5)]
    pub origins: usize,
    /// Number of bots.
    #[arg(long, default_value_t = 12)]
    pub bots: usize,
    /// Number of log files.
    #[arg(long, default_value_t = 1)]
    pub files: usize,
    /// Log format: vhost_combined, combined, alb, caddy.
    #[arg(long, default_value = "vhost_combined")]
    pub format: String,
    /// Compression: gzip, zstd, plain.
    #[arg(long, default_value = "gzip")]
    pub compression: String,
    /// Random seed: the same seed writes the same files.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time of the first line (RFC 3339).
    #[arg(long, default_value = "2026-11-20T00:00:00Z")]
    pub start: String,
    /// Span of the logs.
    #[arg(long, default_value = "24h")]
    pub duration: String,
    /// Share of lines from browsers (not bots), 0 to 1.
    #[arg(long, default_value_t = 0.5)]
    pub browser_share: f64,
}

fn usage(message: String) -> Error {
    Error::Usage(message)
}

/// Parses a duration such as `24h`, `90m`, `1h30m`, `0s`.
pub fn parse_duration(flag: &str, text: &str) -> Result<jiff::SignedDuration, Error> {
    let duration: jiff::SignedDuration = text.parse().map_err(|e| {
        usage(format!(
            "{flag} {text:?} is not a duration such as 24h or 90m: {e}"
        ))
    })?;
    if duration.is_negative() {
        return Err(usage(format!("{flag} {text:?} must not be negative")));
    }
    Ok(duration)
}

impl AuditArgs {
    /// The library configuration these arguments describe.
    pub fn into_config(self) -> Result<AuditConfig, Error> {
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
            "auto" => None,
            name => Some(Format::from_name(name).ok_or_else(|| {
                usage(format!(
                    "--format {name:?} is unknown; use auto, combined, common, vhost_combined, w3c, cloudfront, alb, caddy, json or crawl"
                ))
            })?),
        };
        if !self.fields.is_empty()
            && format.is_some_and(|f| !matches!(f, Format::Json | Format::Caddy | Format::Crawl))
        {
            return Err(usage(format!(
                "--field maps JSON fields, which --format {} does not have; use --format json, caddy, crawl or auto",
                self.format
            )));
        }
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
        let mut fields = FieldMap::default();
        for mapping in &self.fields {
            match FieldMap::preset(mapping) {
                Some(preset) if fields.is_empty() => fields = preset,
                Some(_) => {
                    return Err(usage(format!(
                        "--field {mapping}: a preset must come before any other --field"
                    )));
                }
                None => fields.parse_mapping(mapping).map_err(usage)?,
            }
        }
        fields.set_trust_forwarded(self.trust_forwarded);
        let verify = self
            .verify
            .iter()
            .map(|arg| match arg.split_once('=') {
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
            })
            .collect();
        let defaults = AuditConfig::default();
        Ok(AuditConfig {
            logs: self.logs,
            robots: self.robots,
            origin,
            format,
            fields,
            out: self.out,
            grace: parse_duration("--grace", &self.grace)?,
            bots: self.bots,
            verify,
            all_agents: self.all_agents,
            decisions: self.decisions,
            threads: self.threads.map_or(defaults.threads, usize::from),
            progress: !self.quiet,
            fallback_user_agent: self.user_agent.map(String::into_bytes),
            interrupt: None,
        })
    }
}

impl CheckArgs {
    /// The library configuration these arguments describe.
    pub fn into_config(self) -> Result<CheckConfig, Error> {
        if self.url.is_empty() && self.urls.is_none() {
            return Err(usage("no URL to check: give URLs or --urls FILE".into()));
        }
        let mut urls: Vec<Vec<u8>> = self.url.into_iter().map(String::into_bytes).collect();
        if let Some(file) = &self.urls {
            let body = if file.as_os_str() == "-" {
                let mut body = Vec::new();
                std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut body).map_err(
                    |e| Error::Fatal(format!("cannot read URLs from standard input: {e}")),
                )?;
                body
            } else {
                std::fs::read(file).map_err(|e| {
                    Error::Fatal(format!("cannot read --urls {}: {e}", file.display()))
                })?
            };
            urls.extend(
                body.split(|&b| b == b'\n')
                    .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
                    .filter(|l| !l.is_empty())
                    .map(<[u8]>::to_vec),
            );
        }
        Ok(CheckConfig {
            robots: self.robots,
            agents: self.agents,
            user_agent: self.user_agent,
            bots: self.bots,
            urls,
            truncate: self.truncate,
        })
    }
}

impl SynthArgs {
    /// The generator configuration these arguments describe.
    pub fn into_config(self) -> Result<robots_audit::synth::SynthConfig, Error> {
        use robots_audit::synth::{SynthCompression, SynthConfig, SynthFormat};
        let format = match self.format.as_str() {
            "vhost_combined" => SynthFormat::VhostCombined,
            "combined" => SynthFormat::Combined,
            "alb" => SynthFormat::Alb,
            "caddy" => SynthFormat::Caddy,
            other => {
                return Err(usage(format!(
                    "--format {other:?} is unknown; use vhost_combined, combined, alb or caddy"
                )));
            }
        };
        let compression = match self.compression.as_str() {
            "gzip" => SynthCompression::Gzip,
            "zstd" => SynthCompression::Zstd,
            "plain" => SynthCompression::Plain,
            other => {
                return Err(usage(format!(
                    "--compression {other:?} is unknown; use gzip, zstd or plain"
                )));
            }
        };
        let start: jiff::Timestamp = self.start.parse().map_err(|e| {
            usage(format!(
                "--start {:?} is not an RFC 3339 time: {e}",
                self.start
            ))
        })?;
        if !(0.0..=1.0).contains(&self.browser_share) {
            return Err(usage(format!(
                "--browser-share {} must be between 0 and 1",
                self.browser_share
            )));
        }
        for (flag, value) in [
            ("--files", self.files),
            ("--origins", self.origins),
            ("--bots", self.bots),
        ] {
            if value == 0 {
                return Err(usage(format!("{flag} must be at least 1")));
            }
        }
        Ok(SynthConfig {
            out: self.out,
            lines: self.lines,
            origins: self.origins,
            bots: self.bots,
            files: self.files,
            format,
            compression,
            seed: self.seed,
            start,
            duration: parse_duration("--duration", &self.duration)?,
            browser_share: self.browser_share,
        })
    }
}
