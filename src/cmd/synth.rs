//! `robots-audit synth`: a synthetic night of logs, robots files and ranges, with the verdict
//! of every request known.

use std::path::PathBuf;

use clap::Args;
use robots_audit::error::{EXIT_OK, Error};
use robots_audit::synth::{SynthCompression, SynthConfig, SynthFormat, generate};

use super::{one_of, parse_duration, usage};

/// What `robots-audit synth` does, for `--help`.
pub const ABOUT: &str = "Realistic synthetic logs and robots files with known ground truth";

/// `--format`'s help: every name, written once (in the synth crate).
fn format_help() -> String {
    format!("Log format: {}.", names(&SynthFormat::ALL, |f| f.name()))
}

/// `--compression`'s help.
fn compression_help() -> String {
    format!(
        "Compression: {}.",
        names(&SynthCompression::ALL, |c| c.name())
    )
}

fn names<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> String {
    all.iter().map(|&v| name(v)).collect::<Vec<_>>().join(", ")
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
    /// Log format.
    #[arg(long, default_value_t = SynthFormat::VhostCombined.name().to_owned(), help = format_help())]
    pub format: String,
    /// Compression.
    #[arg(long, default_value_t = SynthCompression::Gzip.name().to_owned(), help = compression_help())]
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

impl SynthArgs {
    /// The generator configuration these arguments describe.
    fn into_config(self) -> Result<SynthConfig, Error> {
        let format = SynthFormat::from_name(&self.format).ok_or_else(|| {
            usage(format!(
                "--format {:?} is unknown; use {}",
                self.format,
                one_of(SynthFormat::ALL.iter().map(|f| f.name()))
            ))
        })?;
        let compression = SynthCompression::from_name(&self.compression).ok_or_else(|| {
            usage(format!(
                "--compression {:?} is unknown; use {}",
                self.compression,
                one_of(SynthCompression::ALL.iter().map(|c| c.name()))
            ))
        })?;
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

/// Runs `robots-audit synth`, printing what it wrote on standard error.
pub fn run(args: SynthArgs) -> Result<u8, Error> {
    let config = args.into_config()?;
    let summary = generate(&config).map_err(|e| {
        Error::Fatal(format!(
            "synth: cannot write into {}: {e}",
            config.out.display()
        ))
    })?;
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let files = summary.files.len() as u64;
    super::to_stderr(&format!(
        "synth: {} line{} ({} byte{}) in {files} file{}; robots in {}; ground truth in {}\n",
        summary.lines,
        plural(summary.lines),
        summary.bytes,
        plural(summary.bytes),
        plural(files),
        summary.robots_dir.display(),
        summary.truth.display()
    ));
    Ok(EXIT_OK)
}
