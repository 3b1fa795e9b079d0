//! `robots-audit import`: past robots.txt versions from the Wayback Machine or a git
//! repository into a history directory.

use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::{ArgGroup, Args};
use robots_audit::error::{EXIT_INPUT_ERRORS, EXIT_OK, Error};
use robots_audit::history::PerSecond;
use robots_audit::history::copies::CopyLog;
use robots_audit::history::git::{GitSource, import as import_git};
use robots_audit::history::wayback::{
    Client, DEFAULT_MAX_COPIES, DEFAULT_SERVICE, Imported, WaybackOptions, cdx_time,
};
use robots_audit::origin::Origin;

/// What `robots-audit import` does, for `--help`.
pub const ABOUT: &str = "Past robots.txt versions from the Wayback Machine or a git repository into a history directory (DIR/manifest.csv)";

/// `robots-audit import`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("source").required(true).args(["wayback", "git"])))]
pub struct ImportArgs {
    /// Read the Wayback Machine's archive (or another CDX-compatible service).
    #[arg(long)]
    pub wayback: bool,
    /// Read the history of a file in this git repository.
    #[arg(long, value_name = "REPO", requires_all = ["path", "origin"])]
    pub git: Option<PathBuf>,
    /// With --git: the robots.txt file's path from the repository's root.
    #[arg(long, value_name = "PATH_IN_REPO", requires = "git")]
    pub path: Option<String>,
    /// With --git: the origin the file is served at.
    #[arg(long, value_name = "ORIGIN", requires = "git")]
    pub origin: Option<String>,
    /// With --git: the revision whose history is read.
    #[arg(long, default_value = "HEAD", value_name = "REV", requires = "git")]
    pub rev: String,
    /// The history directory: DIR/manifest.csv and the files it names (created if needed).
    #[arg(long, value_name = "DIR")]
    pub into: PathBuf,
    /// With --wayback: the first day of the period (2024, 2024-05, 2024-05-01 or RFC 3339).
    #[arg(long, value_name = "DATE", requires = "wayback")]
    pub from: Option<String>,
    /// With --wayback: the last day of the period, included.
    #[arg(long, value_name = "DATE", requires = "wayback")]
    pub to: Option<String>,
    /// With --wayback: the service's base URL. Copies are read under its /web/ path, and a
    /// redirect that leads off it (or off its origin, for the index) is not followed.
    #[arg(long, default_value = DEFAULT_SERVICE, value_name = "URL", requires = "wayback")]
    pub wayback_url: String,
    /// With --wayback: the least time between two requests to the service.
    #[arg(
        long,
        default_value = "1s",
        value_name = "DURATION",
        requires = "wayback"
    )]
    pub delay: String,
    /// With --wayback: how many times a request answered 429, 5xx or not at all is retried.
    #[arg(long, default_value_t = 4, value_name = "N", requires = "wayback",
          value_parser = clap::value_parser!(u32).range(0..=20))]
    pub retries: u32,
    /// With --wayback: the wait before the first retry; it doubles for each next one.
    #[arg(
        long,
        default_value = "2s",
        value_name = "DURATION",
        requires = "wayback"
    )]
    pub backoff: String,
    /// With --wayback: the longest one request may take.
    #[arg(
        long,
        default_value = "30s",
        value_name = "DURATION",
        requires = "wayback"
    )]
    pub timeout: String,
    /// With --wayback: the most archived copies read for one origin in one run. The import of an
    /// origin that needs more stops there and says so (exit 3); the next run goes on from there
    /// without reading those copies again.
    #[arg(long, default_value_t = DEFAULT_MAX_COPIES, value_name = "N", requires = "wayback",
          value_parser = clap::value_parser!(u64).range(1..).map(|n| usize::try_from(n).unwrap_or(usize::MAX)))]
    pub max_copies: usize,
    /// With --wayback: the User-Agent header sent [default: robots-audit/VERSION (robots.txt history)].
    #[arg(long, value_name = "UA", requires = "wayback")]
    pub user_agent: Option<String>,
    /// With --wayback: the origins whose robots.txt history is read (a bare host means https).
    #[arg(value_name = "ORIGIN", requires = "wayback")]
    pub origins: Vec<String>,
    /// When another command is updating DIR, wait for it to finish instead of exiting.
    #[arg(long)]
    pub wait: bool,
    /// No summary on standard error.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Runs the import.
pub fn run(args: ImportArgs) -> Result<u8, Error> {
    match &args.git {
        Some(repo) => run_git(repo.clone(), &args),
        None => run_wayback(&args),
    }
}

fn run_git(repo: PathBuf, args: &ImportArgs) -> Result<u8, Error> {
    if !args.origins.is_empty() {
        return Err(Error::Usage(
            "with --git, name the origin with --origin, not as an argument".into(),
        ));
    }
    let origin_text = args.origin.as_deref().unwrap_or_default();
    let origin = Origin::parse(origin_text).map_err(|e| {
        Error::Usage(format!(
            "--origin {origin_text:?} is not an origin such as https://example.com: {e}"
        ))
    })?;
    let mut manifest = super::open_history(&args.into, args.wait)?;
    let source = GitSource {
        repo: &repo,
        path: args.path.as_deref().unwrap_or_default(),
        rev: &args.rev,
    };
    // Each version is recorded (its file written) as it is read; on an error nothing is
    // committed and the manifest stays as it was.
    let mut history = PerSecond::new(&mut manifest);
    let imported = import_git(&source, &origin, &mut history)?;
    let tally = history.finish()?;
    let path = manifest.path();
    manifest.commit()?;
    // Even with --quiet: an unattended run's log must show that the first version's date may
    // be later than its commit.
    if let Some((commit, at)) = &imported.shallow {
        super::say(format_args!(
            "robots-audit: import: {} is a shallow clone: the history before commit {commit} \
             ({at}) is not in it, so the version of {} in force then is dated from {at}, perhaps \
             later than it was committed; `git fetch --unshallow` there reads the whole history",
            repo.display(),
            source.path,
        ));
    }
    if !args.quiet {
        let versions = tally.added + tally.unchanged;
        super::say(format_args!(
            "import: {origin}: {} version{} of {} in git, {} new row{} in {} ({} unchanged)",
            versions,
            if versions == 1 { "" } else { "s" },
            source.path,
            tally.added,
            if tally.added == 1 { "" } else { "s" },
            path.display(),
            tally.unchanged
        ));
    }
    Ok(EXIT_OK)
}

fn run_wayback(args: &ImportArgs) -> Result<u8, Error> {
    let texts: Vec<(String, String)> = args
        .origins
        .iter()
        .map(|o| (o.clone(), "ORIGIN".to_owned()))
        .collect();
    let origins = super::parse_origins(&texts)?;
    if origins.is_empty() {
        return Err(Error::Usage(
            "import --wayback needs at least one ORIGIN".into(),
        ));
    }
    let period = |flag: &str, value: &Option<String>| {
        value
            .as_deref()
            .map(|v| cdx_time(v).map_err(|e| Error::Usage(format!("{flag} {e}"))))
            .transpose()
    };
    let options = WaybackOptions {
        service: args.wayback_url.clone(),
        from: period("--from", &args.from)?,
        to: period("--to", &args.to)?,
        delay: super::duration_flag("--delay", &args.delay, false)?,
        retries: args.retries,
        backoff: super::duration_flag("--backoff", &args.backoff, false)?,
        timeout: super::duration_flag("--timeout", &args.timeout, true)?,
        user_agent: super::user_agent_flag(args.user_agent.clone())?,
        max_copies: args.max_copies,
    };
    let mut client = Client::new(options).map_err(|e| Error::Usage(e.to_string()))?;
    let mut manifest = super::open_history(&args.into, args.wait)?;
    let mut copies = CopyLog::load(manifest.dir())?;
    let mut failures = Vec::new();
    let mut stopped = 0;
    for origin in &origins {
        // Each copy is recorded (its file written) as it arrives; an origin that fails half-way
        // gets its rows back as they were, so the manifest never holds half of its history.
        let saved = manifest.save(origin);
        let mut history = PerSecond::new(&mut manifest);
        let imported = client
            .import(origin, &mut history, &mut copies)
            .and_then(|imported| Ok((imported, history.finish()?)));
        match imported {
            Ok((imported, tally)) => {
                if !args.quiet {
                    super::say(format_args!(
                        "import: {origin}: {} capture{} ({} redirect{} skipped), {} cop{} read, \
                         {} new row{} ({} unchanged)",
                        imported.captures,
                        if imported.captures == 1 { "" } else { "s" },
                        imported.redirects,
                        if imported.redirects == 1 { "" } else { "s" },
                        imported.copies,
                        if imported.copies == 1 { "y" } else { "ies" },
                        tally.added,
                        if tally.added == 1 { "" } else { "s" },
                        tally.unchanged
                    ));
                }
                if imported.left > 0 {
                    stopped += 1;
                    warn_stopped(origin, &imported, args.max_copies);
                }
            }
            Err(e) => {
                manifest.restore(saved);
                super::say(format_args!(
                    "robots-audit: import: {origin}: nothing imported: {e}"
                ));
                failures.push(format!("{origin}: {e}"));
            }
        }
    }
    // What was imported is kept even when some origin failed, and so is what the copies read
    // held, which a failed origin's next import then need not read again. The copy log is
    // written first, while the directory's lock is held.
    copies.commit()?;
    manifest.commit()?;
    if failures.len() == origins.len() {
        return Err(Error::Fatal(format!(
            "import --wayback: nothing imported ({})",
            failures.join("; ")
        )));
    }
    Ok(if failures.is_empty() && stopped == 0 {
        EXIT_OK
    } else {
        EXIT_INPUT_ERRORS
    })
}

/// Says, even with `--quiet`, that an origin's import stopped at `--max-copies` and what is left
/// for the next run: an unattended run's log must show that the history is not complete yet.
fn warn_stopped(origin: &robots_audit::origin::Origin, imported: &Imported, max_copies: usize) {
    let resume = imported
        .resume
        .map_or_else(String::new, |at| format!(", from {at}"));
    super::say(format_args!(
        "robots-audit: import: {origin}: stopped after {} cop{} (--max-copies {max_copies}): {} of \
         the period's {} captures left for the next run{resume}; the history is complete up to \
         there, and the same import run again goes on from there",
        imported.copies,
        if imported.copies == 1 { "y" } else { "ies" },
        imported.left,
        imported.captures,
    ));
}
