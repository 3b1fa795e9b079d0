//! Synthetic access logs and robots.txt files with exact ground truth, for testing and
//! benchmarking robots-audit (`robots-audit synth`).
//!
//! [`generate`] writes, under [`SynthConfig::out`]:
//!
//! - `logs/access-NNN.log[.gz|.zst]`: [`SynthConfig::files`] files, time-ordered within and
//!   across files (file `k` covers the `k`-th slice of the time span), in one of the
//!   [`SynthFormat`] layouts;
//! - `robots/<host>.txt`: one robots.txt per origin, in the layout `audit --robots DIR` reads;
//! - `ranges/<bot>.json`: the published IP ranges of each crawler that has them, in the
//!   `{"creationTime":…,"prefixes":[…]}` shape operators publish;
//! - `truth.csv` (`agent,origin,requests,robots_fetches,allowed,disallowed,exempt,verified,spoofed,unverified`)
//!   and `truth-agents.csv` (the same summed per agent): what an exact audit must report.
//!
//! The truth is exact by construction, not by running a matcher: every robots.txt is assembled
//! from rule families whose verdict is known for every path bucket, and every crawler request
//! picks its path from a bucket whose verdict for that crawler's group is known. Crawler names
//! and robots.txt tokens come from the bot catalog (`robots_audit_bots::Catalog::builtin`), so
//! they are the ones the audit uses.
//!
//! ```no_run
//! use robots_audit_synth::{SynthConfig, generate};
//!
//! let config = SynthConfig { out: "synth-out".into(), lines: 10_000, ..SynthConfig::default() };
//! let summary = generate(&config)?;
//! println!("{} lines in {} files; truth in {}", summary.lines, summary.files.len(), summary.truth.display());
//! # Ok::<(), std::io::Error>(())
//! ```

#![warn(missing_docs)]

mod agents;
mod format;
mod output;
mod plan;
mod rng;
mod robots;
mod site;
mod text;
mod traffic;

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use jiff::{SignedDuration, Timestamp};
use robots_audit_bots::Catalog;

pub use agents::{BOTS, BROWSERS, Prefix, SynthBot};

use format::LineWriter;
use rng::Rng;
use traffic::{Counts, Origin, Traffic};

/// Log line layout of the generated files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SynthFormat {
    /// Apache `vhost_combined`: `host:443 1.2.3.4 - - [21/Nov/2026:04:27:15 +0000] "GET /p HTTP/1.1" 200 5120 "-" "UA"`.
    #[default]
    VhostCombined,
    /// NCSA combined, without host: a single origin, which the audit must be given (`--origin`).
    Combined,
    /// AWS Application Load Balancer access log (absolute URLs carry the origin).
    Alb,
    /// Caddy v2 JSON access log (`request.host` carries the origin, `tls` the scheme).
    Caddy,
}

impl SynthFormat {
    /// Every layout.
    pub const ALL: [SynthFormat; 4] = [
        SynthFormat::VhostCombined,
        SynthFormat::Combined,
        SynthFormat::Alb,
        SynthFormat::Caddy,
    ];

    /// The name the audit's `--format` option uses for this layout.
    ///
    /// ```
    /// use robots_audit_synth::SynthFormat;
    /// assert_eq!(SynthFormat::VhostCombined.name(), "vhost_combined");
    /// assert_eq!(SynthFormat::from_name("alb"), Some(SynthFormat::Alb));
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SynthFormat::VhostCombined => "vhost_combined",
            SynthFormat::Combined => "combined",
            SynthFormat::Alb => "alb",
            SynthFormat::Caddy => "caddy",
        }
    }

    /// The layout with this [`name`](Self::name), case-insensitively.
    #[must_use]
    pub fn from_name(name: &str) -> Option<SynthFormat> {
        Self::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// Whether the layout logs times to the second only.
    fn whole_seconds(self) -> bool {
        matches!(self, SynthFormat::VhostCombined | SynthFormat::Combined)
    }
}

impl fmt::Display for SynthFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Compression of the generated log files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SynthCompression {
    /// gzip at the fastest level (`.log.gz`).
    #[default]
    Gzip,
    /// zstd at level 1 (`.log.zst`).
    Zstd,
    /// Uncompressed (`.log`).
    Plain,
}

impl SynthCompression {
    /// Every compression.
    pub const ALL: [SynthCompression; 3] = [
        SynthCompression::Gzip,
        SynthCompression::Zstd,
        SynthCompression::Plain,
    ];

    /// `gzip`, `zstd` or `plain`.
    ///
    /// ```
    /// use robots_audit_synth::SynthCompression;
    /// assert_eq!(SynthCompression::from_name("zstd"), Some(SynthCompression::Zstd));
    /// assert_eq!(SynthCompression::Plain.extension(), "log");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SynthCompression::Gzip => "gzip",
            SynthCompression::Zstd => "zstd",
            SynthCompression::Plain => "plain",
        }
    }

    /// The compression with this [`name`](Self::name), case-insensitively.
    #[must_use]
    pub fn from_name(name: &str) -> Option<SynthCompression> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }

    /// The log file extension: `log.gz`, `log.zst` or `log`.
    #[must_use]
    pub fn extension(self) -> &'static str {
        match self {
            SynthCompression::Gzip => "log.gz",
            SynthCompression::Zstd => "log.zst",
            SynthCompression::Plain => "log",
        }
    }
}

impl fmt::Display for SynthCompression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthConfig {
    /// Output directory (created if missing). A previous run's output there is replaced: its
    /// `logs/access-*.log*`, `robots/*.txt` and `ranges/*.json` files are removed first, so that
    /// reading the folders sees this run only.
    pub out: PathBuf,
    /// Total log lines, split evenly over the files.
    pub lines: u64,
    /// Number of origins (web sites); [`SynthFormat::Combined`] always uses one.
    pub origins: usize,
    /// Number of distinct crawlers, taken from the front of [`BOTS`] (at most all of them).
    pub bots: usize,
    /// Number of log files (at least 1).
    pub files: usize,
    /// Line layout.
    pub format: SynthFormat,
    /// Log file compression.
    pub compression: SynthCompression,
    /// Same seed and config: byte-identical output.
    pub seed: u64,
    /// Time of the earliest possible line.
    pub start: jiff::Timestamp,
    /// Span of the logs: every line's time is in `[start, start + duration)`.
    pub duration: jiff::SignedDuration,
    /// Share of lines from browsers (not bots, not in the truth files), in `0.0..=1.0`.
    pub browser_share: f64,
}

impl Default for SynthConfig {
    /// 100,000 lines of vhost_combined over 24 hours from 2026-11-21T00:00:00Z, 8 origins,
    /// 30 crawlers, 4 gzip files, seed 1, half of the lines from browsers, into `synth/`.
    fn default() -> SynthConfig {
        SynthConfig {
            out: PathBuf::from("synth"),
            lines: 100_000,
            origins: 8,
            bots: 30,
            files: 4,
            format: SynthFormat::default(),
            compression: SynthCompression::default(),
            seed: 1,
            start: Timestamp::constant(1_795_219_200, 0),
            duration: SignedDuration::from_hours(24),
            browser_share: 0.5,
        }
    }
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The log files, in time order (which is also name order).
    pub files: Vec<PathBuf>,
    /// Lines written over all files.
    pub lines: u64,
    /// Uncompressed bytes written over all files.
    pub bytes: u64,
    /// The directory of `<host>.txt` robots files (`audit --robots`).
    pub robots_dir: PathBuf,
    /// `truth.csv`: one row per (agent, origin) with at least one request.
    pub truth: PathBuf,
    /// `truth-agents.csv`: one row per agent with at least one request.
    pub truth_agents: PathBuf,
    /// The origins, `https://<host>`, in order of popularity. With [`SynthFormat::Combined`] the
    /// single entry is what the audit needs as `--origin`.
    pub origins: Vec<String>,
    /// Published range files: (bot name, path), one per crawler of the run that has ranges
    /// (`audit --verify`).
    pub ranges: Vec<(String, PathBuf)>,
}

/// Stream identifiers: each part of the generator draws from its own stream of the seed, and
/// per-file and per-origin parts from their own sub-stream (`stream(kind, index)`).
const STREAM_ACTORS: u64 = 1;
const STREAM_TRAFFIC: u64 = 2;
const STREAM_TIMES: u64 = 3;
const STREAM_IDS: u64 = 4;
const STREAM_ROBOTS: u64 = 5;

fn stream(kind: u64, index: usize) -> u64 {
    kind << 40 ^ index as u64
}

/// Generates logs, robots files, range files and truth files as described in the crate docs.
///
/// Memory does not grow with [`SynthConfig::lines`]; it grows with origins × bots.
///
/// # Errors
///
/// `InvalidInput` for a config that cannot be honoured (no files, no origins, a non-positive or
/// overflowing duration, a duration shorter than the layout's time resolution, a browser share
/// outside `0..=1`); any I/O error from writing the output.
pub fn generate(config: &SynthConfig) -> io::Result<Summary> {
    let window = TimeWindow::new(config)?;
    if config.files == 0 || config.origins == 0 {
        return Err(invalid("files and origins must be at least 1"));
    }
    if !(0.0..=1.0).contains(&config.browser_share) {
        return Err(invalid("browser_share must be between 0 and 1"));
    }

    let logs_dir = config.out.join("logs");
    let robots_dir = config.out.join("robots");
    let ranges_dir = config.out.join("ranges");
    for dir in [&logs_dir, &robots_dir, &ranges_dir] {
        fs::create_dir_all(dir)?;
    }
    remove_previous(&logs_dir, |name| {
        name.starts_with("access-")
            && SynthCompression::ALL
                .iter()
                .any(|c| name.ends_with(&format!(".{}", c.extension())))
    })?;
    remove_previous(&robots_dir, |name| name.ends_with(".txt"))?;
    remove_previous(&ranges_dir, |name| name.ends_with(".json"))?;

    let catalog = Catalog::builtin();
    let agents = plan::resolve_agents(&catalog, config.bots);
    let actors = plan::plan_actors(&agents, &mut Rng::new(config.seed, STREAM_ACTORS));

    let origin_count = if config.format == SynthFormat::Combined {
        1
    } else {
        config.origins
    };
    let mut origins = Vec::with_capacity(origin_count);
    for index in 0..origin_count {
        let host = host_name(index);
        let mut rng = Rng::new(config.seed, stream(STREAM_ROBOTS, index));
        let robots = robots::build(&host, &agents, &mut rng);
        fs::write(robots_dir.join(format!("{host}.txt")), &robots.body)?;
        origins.push(Origin { host, robots });
    }

    let ranges = write_ranges(&ranges_dir, &agents, config.start)?;

    let width = config.files.saturating_sub(1).to_string().len().max(3);
    let files: Vec<PathBuf> = (0..config.files)
        .map(|index| {
            logs_dir.join(format!(
                "access-{index:0width$}.{}",
                config.compression.extension()
            ))
        })
        .collect();
    let run = Run {
        config,
        window,
        agents: &agents,
        actors: &actors,
        origins: &origins,
        balancer_id: Rng::new(config.seed, STREAM_IDS).next_u64(),
    };
    let (bytes, truth) = run.write_logs(&files)?;

    let truth_path = config.out.join("truth.csv");
    let truth_agents = config.out.join("truth-agents.csv");
    write_truth(&truth_path, &truth_agents, &agents, &origins, &truth)?;

    Ok(Summary {
        files,
        lines: config.lines,
        bytes,
        robots_dir,
        truth: truth_path,
        truth_agents,
        origins: origins
            .iter()
            .map(|o| format!("https://{}", o.host))
            .collect(),
        ranges,
    })
}

/// Everything the log files are generated from.
struct Run<'a> {
    config: &'a SynthConfig,
    window: TimeWindow,
    agents: &'a [plan::Agent],
    actors: &'a [plan::Actor],
    origins: &'a [Origin],
    balancer_id: u64,
}

impl Run<'_> {
    /// Writes every log file; returns the uncompressed bytes and the summed truth.
    ///
    /// Each file is a function of the seed and its index only (its own random streams, and
    /// crawlers whose robots.txt cache starts cold, as after a log rotation), so files are
    /// generated and compressed in parallel and the output does not depend on the thread count.
    fn write_logs(&self, files: &[PathBuf]) -> io::Result<(u64, Vec<Counts>)> {
        let workers = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(files.len())
            .max(1);
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let results: Vec<io::Result<(u64, Vec<Counts>)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut bytes = 0u64;
                        let mut truth =
                            vec![Counts::default(); self.agents.len() * self.origins.len()];
                        loop {
                            let index = next.fetch_add(1, Ordering::Relaxed);
                            let Some(path) = files.get(index) else { break };
                            if failed.load(Ordering::Relaxed) {
                                break;
                            }
                            match self.write_log(index, path) {
                                Ok((written, counts)) => {
                                    bytes += written;
                                    add_all(&mut truth, &counts);
                                }
                                Err(error) => {
                                    failed.store(true, Ordering::Relaxed);
                                    return Err(error);
                                }
                            }
                        }
                        Ok((bytes, truth))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(io::Error::other("a log generator thread panicked"))
                    })
                })
                .collect()
        });
        let mut bytes = 0u64;
        let mut truth = vec![Counts::default(); self.agents.len() * self.origins.len()];
        for result in results {
            let (written, counts) = result?;
            bytes += written;
            add_all(&mut truth, &counts);
        }
        Ok((bytes, truth))
    }

    fn write_log(&self, index: usize, path: &Path) -> io::Result<(u64, Vec<Counts>)> {
        let config = self.config;
        let mut traffic = Traffic::new(
            Rng::new(config.seed, stream(STREAM_TRAFFIC, index)),
            self.agents,
            self.actors,
            self.origins,
            config.browser_share,
            config.format != SynthFormat::Alb,
        );
        let mut writer =
            LineWriter::new(config.format, self.window.floor_micros(), self.balancer_id);
        let mut times = Rng::new(config.seed, stream(STREAM_TIMES, index));
        let slice = self.window.slice(index, config.files);
        let lines = lines_in_file(config.lines, index, config.files);
        let mut done = 0u64;
        let bytes = output::write_file(path, config.compression, |buffer| {
            while done < lines && buffer.len() < output::CHUNK {
                let micros = slice.micros_of(done, lines, times.below(1024));
                traffic.emit(micros, &mut writer, buffer);
                done += 1;
            }
            done < lines
        })?;
        Ok((bytes, traffic.into_truth()))
    }
}

fn add_all(sums: &mut [Counts], counts: &[Counts]) {
    for (sum, add) in sums.iter_mut().zip(counts) {
        sum.add(add);
    }
}

fn invalid(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message.to_owned())
}

/// The instants a layout can express inside `[start, start + duration)`, in ticks of its
/// resolution (a second, or a microsecond).
#[derive(Debug, Clone, Copy)]
struct TimeWindow {
    unit_micros: i64,
    first: i64,
    end: i64,
}

/// One file's share of the window.
#[derive(Debug, Clone, Copy)]
struct Slice {
    unit_micros: i64,
    first: i64,
    ticks: u128,
}

impl TimeWindow {
    fn new(config: &SynthConfig) -> io::Result<TimeWindow> {
        if config.duration <= SignedDuration::ZERO {
            return Err(invalid("duration must be positive"));
        }
        let unit_micros: i64 = if config.format.whole_seconds() {
            1_000_000
        } else {
            1
        };
        let unit_nanos = i128::from(unit_micros) * 1_000;
        let start = config.start.as_nanosecond();
        let end = start + config.duration.as_nanos();
        if end > Timestamp::MAX.as_nanosecond() {
            return Err(invalid(
                "start + duration is past the latest representable time",
            ));
        }
        // Round both ends up to the resolution: every tick in [first, end) is then a time at or
        // after `start` and strictly before `start + duration`.
        let ceil = |nanos: i128| -> io::Result<i64> {
            i64::try_from((nanos + unit_nanos - 1).div_euclid(unit_nanos))
                .map_err(|_| invalid("time out of range"))
        };
        let (first, end) = (ceil(start)?, ceil(end)?);
        if end <= first {
            return Err(invalid(
                "duration is shorter than the log format's time resolution",
            ));
        }
        Ok(TimeWindow {
            unit_micros,
            first,
            end,
        })
    }

    fn floor_micros(self) -> i64 {
        self.first.saturating_mul(self.unit_micros)
    }

    fn slice(self, index: usize, count: usize) -> Slice {
        let span = (self.end - self.first) as u128;
        let at = |i: usize| self.first + (span * i as u128 / count as u128) as i64;
        let first = at(index);
        Slice {
            unit_micros: self.unit_micros,
            first,
            ticks: (at(index + 1) - first) as u128,
        }
    }
}

impl Slice {
    /// The time of line `line` of `lines`: evenly spread with jitter (`jitter` in `0..1024`),
    /// non-decreasing in `line`, and inside the slice.
    fn micros_of(self, line: u64, lines: u64, jitter: u64) -> i64 {
        let position = u128::from(line) * 1024 + u128::from(jitter);
        let offset = self.ticks * position / (u128::from(lines.max(1)) * 1024);
        // offset < ticks, which came from an i64 difference.
        (self.first + offset as i64).saturating_mul(self.unit_micros)
    }
}

fn lines_in_file(total: u64, index: usize, files: usize) -> u64 {
    let files = files as u64;
    total / files + u64::from((index as u64) < total % files)
}

/// Host names of the origins: reserved example domains, so the data can never point at a real
/// site.
fn host_name(index: usize) -> String {
    const NAMES: [&str; 16] = [
        "shop", "news", "blog", "docs", "travel", "recipes", "garden", "outdoor", "music",
        "studio", "books", "forum", "photos", "health", "market", "kids",
    ];
    let name = NAMES[index % NAMES.len()];
    let round = index / NAMES.len();
    let label = if round == 0 {
        name.to_owned()
    } else {
        format!("{name}{}", round + 1)
    };
    match index % 3 {
        0 => format!("www.{label}.example"),
        1 => format!("{label}.example.com"),
        _ => format!("{label}.example.org"),
    }
}

/// Removes files of a previous run so that a directory read sees only this run's output.
fn remove_previous(dir: &Path, ours: impl Fn(&str) -> bool) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let is_ours = entry.file_name().to_str().is_some_and(&ours);
        if is_ours && entry.file_type()?.is_file() {
            fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// A file name for a bot: its name with anything but `[A-Za-z0-9._-]` replaced.
fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn write_ranges(
    dir: &Path,
    agents: &[plan::Agent],
    start: Timestamp,
) -> io::Result<Vec<(String, PathBuf)>> {
    let created = start
        .checked_sub(SignedDuration::from_hours(24))
        .unwrap_or(start)
        .strftime("%Y-%m-%dT%H:%M:%S.000000")
        .to_string();
    let mut written = Vec::new();
    for agent in agents {
        let Some(prefixes) = agent.ranges else {
            continue;
        };
        let prefixes: Vec<serde_json::Value> = prefixes
            .iter()
            .map(|p| {
                let key = if p.is_v4() {
                    "ipv4Prefix"
                } else {
                    "ipv6Prefix"
                };
                serde_json::json!({ key: p.to_string() })
            })
            .collect();
        let document = serde_json::json!({ "creationTime": created, "prefixes": prefixes });
        let path = dir.join(format!("{}.json", file_stem(&agent.name)));
        let mut body = serde_json::to_vec_pretty(&document).map_err(io::Error::other)?;
        body.push(b'\n');
        fs::write(&path, body)?;
        written.push((agent.name.clone(), path));
    }
    Ok(written)
}

/// The counter columns of the ground-truth files (`truth.csv` after `agent,origin`,
/// `truth-agents.csv` after `agent`), named as the audit's reports name them.
pub const TRUTH_COUNTERS: [&str; 8] = [
    "requests",
    "robots_fetches",
    "allowed",
    "disallowed",
    "exempt",
    "verified",
    "spoofed",
    "unverified",
];

fn write_truth(
    per_origin: &Path,
    per_agent: &Path,
    agents: &[plan::Agent],
    origins: &[Origin],
    truth: &[Counts],
) -> io::Result<()> {
    let mut rows: Vec<(&str, String, Counts)> = Vec::new();
    for (agent_index, agent) in agents.iter().enumerate() {
        for (origin_index, origin) in origins.iter().enumerate() {
            let counts = truth
                .get(agent_index * origins.len() + origin_index)
                .copied()
                .unwrap_or_default();
            if counts.requests > 0 {
                rows.push((&agent.name, format!("https://{}", origin.host), counts));
            }
        }
    }
    rows.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));

    let numbers = |c: &Counts| {
        [
            c.requests,
            c.robots_fetches,
            c.allowed,
            c.disallowed,
            c.exempt,
            c.verified,
            c.spoofed,
            c.unverified,
        ]
        .map(|n| n.to_string())
    };
    let mut csv = csv::Writer::from_path(per_origin)?;
    csv.write_record(["agent", "origin"].into_iter().chain(TRUTH_COUNTERS))?;
    for (agent, origin, counts) in &rows {
        let numbers = numbers(counts);
        csv.write_record(
            [*agent, origin.as_str()]
                .into_iter()
                .chain(numbers.iter().map(String::as_str)),
        )?;
    }
    csv.flush()?;

    let mut totals: Vec<(&str, Counts)> = Vec::new();
    for (agent, _, counts) in &rows {
        match totals.last_mut() {
            Some((name, sum)) if name == agent => sum.add(counts),
            _ => totals.push((agent, *counts)),
        }
    }
    let mut csv = csv::Writer::from_path(per_agent)?;
    csv.write_record(["agent"].into_iter().chain(TRUTH_COUNTERS))?;
    for (agent, counts) in &totals {
        let numbers = numbers(counts);
        csv.write_record(
            [*agent]
                .into_iter()
                .chain(numbers.iter().map(String::as_str)),
        )?;
    }
    csv.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(format: SynthFormat, start: &str, duration: SignedDuration) -> SynthConfig {
        SynthConfig {
            format,
            start: start.parse().unwrap_or_default(),
            duration,
            ..SynthConfig::default()
        }
    }

    #[test]
    fn names_round_trip() {
        for format in SynthFormat::ALL {
            assert_eq!(SynthFormat::from_name(format.name()), Some(format));
            assert_eq!(format.to_string(), format.name());
        }
        for compression in SynthCompression::ALL {
            assert_eq!(
                SynthCompression::from_name(compression.name()),
                Some(compression)
            );
        }
        assert_eq!(
            SynthFormat::from_name("VHOST_COMBINED"),
            Some(SynthFormat::VhostCombined)
        );
        assert_eq!(SynthFormat::from_name("w3c"), None);
    }

    #[test]
    fn default_start_is_the_documented_instant() {
        assert_eq!(
            SynthConfig::default().start.to_string(),
            "2026-11-21T00:00:00Z"
        );
    }

    #[test]
    fn window_rounds_a_fractional_start_up_to_the_resolution() {
        let window = TimeWindow::new(&config(
            SynthFormat::VhostCombined,
            "2026-11-21T00:00:00.5Z",
            SignedDuration::from_secs(10),
        ));
        let window = window.ok();
        assert!(window.is_some());
        if let Some(w) = window {
            let start: Timestamp = "2026-11-21T00:00:01Z".parse().unwrap_or_default();
            assert_eq!(w.floor_micros(), start.as_microsecond());
            // 00:00:01 ..= 00:00:10 are inside [00:00:00.5, 00:00:10.5).
            assert_eq!(w.end - w.first, 10);
        }
    }

    #[test]
    fn window_rejects_durations_below_the_resolution() {
        let short = config(
            SynthFormat::Combined,
            "2026-11-21T00:00:00.2Z",
            SignedDuration::from_millis(500),
        );
        assert!(TimeWindow::new(&short).is_err());
        let fine = SynthConfig {
            format: SynthFormat::Alb,
            ..short
        };
        assert!(TimeWindow::new(&fine).is_ok());
        let negative = config(
            SynthFormat::Alb,
            "2026-11-21T00:00:00Z",
            SignedDuration::from_secs(-1),
        );
        assert!(TimeWindow::new(&negative).is_err());
    }

    #[test]
    fn slices_tile_the_window_and_times_stay_inside() {
        let window = TimeWindow {
            unit_micros: 1,
            first: 1_000,
            end: 1_100,
        };
        let mut previous = i64::MIN;
        for index in 0..7 {
            let slice = window.slice(index, 7);
            let next = window.slice(index + 1, 7);
            assert_eq!(slice.first + slice.ticks as i64, next.first);
            for line in 0..50 {
                for jitter in [0, 1023] {
                    let t = slice.micros_of(line, 50, jitter);
                    assert!(
                        t >= slice.first
                            && (t < slice.first + slice.ticks as i64 || slice.ticks == 0)
                    );
                    assert!(t < 1_100);
                }
                let t = slice.micros_of(line, 50, 512);
                assert!(t >= previous);
                previous = t;
            }
        }
    }

    proptest::proptest! {
        /// Whatever the window and split, every line time is inside `[start, start + duration)`,
        /// and times never go back, within a file or from one file to the next.
        #[test]
        fn line_times_stay_inside_and_ordered(
            start_nanos in 0i64..4_000_000_000_000_000_000,
            duration_nanos in 1i64..400_000_000_000_000,
            whole_seconds: bool,
            files in 1usize..6,
            lines in 0u64..300,
            seed: u64,
        ) {
            let format = if whole_seconds { SynthFormat::Combined } else { SynthFormat::Caddy };
            let config = SynthConfig {
                format,
                start: Timestamp::from_nanosecond(i128::from(start_nanos)).unwrap_or_default(),
                duration: SignedDuration::from_nanos(duration_nanos),
                files,
                ..SynthConfig::default()
            };
            let Ok(window) = TimeWindow::new(&config) else {
                // Only a window too short for the resolution may be refused.
                proptest::prop_assert!(whole_seconds && duration_nanos < 1_000_000_000);
                return Ok(());
            };
            let start = config.start.as_nanosecond();
            let end = start + config.duration.as_nanos();
            let mut rng = Rng::new(seed, 0);
            let mut previous = i64::MIN;
            for index in 0..files {
                let slice = window.slice(index, files);
                let count = lines_in_file(lines, index, files);
                for line in 0..count {
                    let micros = slice.micros_of(line, count, rng.below(1024));
                    let nanos = i128::from(micros) * 1_000;
                    proptest::prop_assert!(nanos >= start && nanos < end);
                    proptest::prop_assert!(micros >= previous);
                    previous = micros;
                }
            }
        }
    }

    #[test]
    fn lines_split_evenly() {
        for (total, files, expected) in [
            (10u64, 3usize, vec![4u64, 3, 3]),
            (2, 4, vec![1, 1, 0, 0]),
            (0, 2, vec![0, 0]),
        ] {
            let split: Vec<u64> = (0..files).map(|i| lines_in_file(total, i, files)).collect();
            assert_eq!(split, expected);
        }
    }

    #[test]
    fn host_names_are_distinct_and_reserved() {
        let hosts: Vec<String> = (0..100).map(host_name).collect();
        let mut unique = hosts.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), hosts.len());
        assert!(
            hosts
                .iter()
                .all(|h| h.ends_with(".example") || h.contains(".example."))
        );
        assert_eq!(hosts[0], "www.shop.example");
    }

    #[test]
    fn file_stem_examples() {
        for (name, stem) in [
            ("Googlebot", "Googlebot"),
            ("archive.org_bot", "archive.org_bot"),
            ("a/b c", "a_b_c"),
        ] {
            assert_eq!(file_stem(name), stem);
        }
    }
}
