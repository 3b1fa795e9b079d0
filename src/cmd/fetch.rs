//! `robots-audit fetch`: the live robots.txt of each origin into a history directory.

use std::path::PathBuf;

use clap::Args;
use robots_audit::error::{EXIT_OK, Error};
use robots_audit::history::Recorded;
use robots_audit::history::fetch::{FetchOptions, fetch_all};

/// What `robots-audit fetch` does, for `--help`.
pub const ABOUT: &str =
    "The live robots.txt of each origin into a history directory (DIR/manifest.csv)";

/// `robots-audit fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The history directory: DIR/manifest.csv and the files it names (created if needed).
    #[arg(long, value_name = "DIR")]
    pub into: PathBuf,
    /// The User-Agent header sent [default: robots-audit/VERSION (robots.txt history)].
    #[arg(long, value_name = "UA")]
    pub user_agent: Option<String>,
    /// The longest one fetch may take, redirects and body included; longer is `unreachable`.
    #[arg(long, default_value = "10s", value_name = "DURATION")]
    pub timeout: String,
    /// How many origins are fetched at once.
    #[arg(long, default_value_t = 8, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub concurrency: u16,
    /// A file of origins, one per line (blank lines and lines starting with # are skipped).
    #[arg(long, value_name = "FILE")]
    pub origins: Option<PathBuf>,
    /// Origins, e.g. https://example.com (a bare host means https).
    #[arg(value_name = "ORIGIN", required_unless_present = "origins")]
    pub origin: Vec<String>,
    /// When another command is updating DIR, wait for it to finish instead of exiting.
    #[arg(long)]
    pub wait: bool,
    /// No line per origin on standard error.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Fetches every origin and records what changed.
pub fn run(args: FetchArgs) -> Result<u8, Error> {
    let mut texts: Vec<(String, String)> = args
        .origin
        .iter()
        .map(|o| (o.clone(), "ORIGIN".to_owned()))
        .collect();
    if let Some(file) = &args.origins {
        let body = std::fs::read(file)
            .map_err(|e| Error::Fatal(format!("cannot read --origins {}: {e}", file.display())))?;
        for (n, line) in String::from_utf8_lossy(&body).lines().enumerate() {
            let line = line.trim();
            if !line.is_empty() && !line.starts_with('#') {
                texts.push((
                    line.to_owned(),
                    format!("{} line {}", file.display(), n + 1),
                ));
            }
        }
    }
    let origins = super::parse_origins(&texts)?;
    if origins.is_empty() {
        return Err(Error::Usage("no origin to fetch".into()));
    }
    if let Some(other) = origins
        .iter()
        .find(|o| !matches!(o.scheme(), "http" | "https"))
    {
        return Err(Error::Usage(format!(
            "{other}: fetch speaks http and https only"
        )));
    }
    let options = FetchOptions {
        user_agent: super::user_agent_flag(args.user_agent)?,
        timeout: super::duration_flag("--timeout", &args.timeout, true)?,
        concurrency: usize::from(args.concurrency),
    };
    // Opened first: a locked directory or a broken manifest fails before any request.
    let mut manifest = super::open_history(&args.into, args.wait)?;
    let mut added = 0;
    // Each answer is recorded (its file written) as it arrives, in the order they come.
    fetch_all(&origins, &options, |_, one| -> Result<(), Error> {
        let recorded = manifest.record(&one.observation)?;
        if recorded != Recorded::Unchanged {
            added += 1;
        }
        if !args.quiet {
            let what = match recorded {
                Recorded::Added => "new row",
                Recorded::Replaced => "new row (replaces this second's)",
                Recorded::Unchanged => "unchanged",
            };
            let size = one
                .observation
                .body
                .as_ref()
                .map(|b| format!(", {} byte{}", b.len(), if b.len() == 1 { "" } else { "s" }))
                .unwrap_or_default();
            let why = one
                .error
                .as_ref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default();
            super::say(format_args!(
                "fetch: {} {}{why}{size}: {what}",
                one.observation.origin, one.observation.status
            ));
        }
        Ok(())
    })?;
    let path = manifest.path();
    manifest.commit()?;
    if !args.quiet {
        super::say(format_args!(
            "fetch: {} origin{}, {added} new row{} in {}",
            origins.len(),
            if origins.len() == 1 { "" } else { "s" },
            if added == 1 { "" } else { "s" },
            path.display()
        ));
    }
    Ok(EXIT_OK)
}
