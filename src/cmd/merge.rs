//! `robots-audit merge`: report directories in, the reports of one audit over all their inputs
//! out (see `src/merge.rs` for the rules).
//!
//! Exit codes as `audit`'s: 0 done; 1 a state that cannot be read (corrupt, tampered, newer
//! version), different settings, or different content under one robots version, nothing
//! written; 2 wrong usage; 3 done, but some merged input had errors, or nothing was judged.

use std::path::PathBuf;

use clap::Args;
use robots_audit::audit::default_threads;
use robots_audit::commit::Staging;
use robots_audit::error::Error;
use robots_audit::merge::{copy_streamed, merge_dirs};
use robots_audit::report::output::render;
use robots_audit::report::{View, summary};

use super::{commit_out, exit_code, lock_out, on_interrupt};

/// One line in `robots-audit --help`.
pub const ABOUT: &str = "Report directories -> the reports of one audit over all their inputs";

/// `robots-audit merge [--out DIR] REPORT_DIR...`
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Report directories written by `audit` or `merge`, in the order of their inputs. The
    /// `--out` directory may be one of them (the month a night is merged into); when it does
    /// not exist yet, it stands for an empty set.
    #[arg(required = true, value_name = "REPORT_DIR")]
    pub reports: Vec<PathBuf>,
    /// Where to write the merged reports (the run owns it, as `audit`'s --out).
    #[arg(long, default_value = "robots-audit-report", value_name = "DIR")]
    pub out: PathBuf,
    /// Do not write report.html.
    #[arg(long)]
    pub no_html: bool,
    /// When another run is writing --out, wait for it to finish instead of exiting.
    #[arg(long)]
    pub wait: bool,
    /// The reports were made with `audit --raw-csv` (cells as read): merge refuses to mix them
    /// with spreadsheet-safe ones, either way.
    #[arg(long)]
    pub raw_csv: bool,
    /// No summary table on standard error (warnings and errors are still shown).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Runs `merge`.
pub fn run(args: MergeArgs) -> Result<u8, Error> {
    let interrupt = on_interrupt(None)?;
    let out = &args.out;
    let lock = lock_out(out, args.wait)?;
    // The first night of a month: `merge --out month month night` with no `month` yet.
    let starts_empty = |dir: &PathBuf| lock.out().is(dir) && !lock.out().path().exists();
    let reports: Vec<PathBuf> = args
        .reports
        .iter()
        .filter(|dir| !starts_empty(dir))
        .cloned()
        .collect();
    let merged = merge_dirs(&reports)?;
    for warning in &merged.warnings {
        super::say(format_args!("robots-audit: warning: {warning}"));
    }
    if merged.state.settings.raw_csv != args.raw_csv {
        let (made, given) = if args.raw_csv {
            ("without", "with")
        } else {
            ("with", "without")
        };
        return Err(Error::Fatal(format!(
            "the reports were made {made} --raw-csv; merge them {made} it (not {given} it): \
             merged reports never mix cells as read and spreadsheet-safe cells"
        )));
    }
    let view = View::of(&merged.state)?;
    let staging = Staging::create(&lock)?;
    let dir = staging.path();
    for name in &merged.state.streamed {
        copy_streamed(dir, name, &merged.sources, &merged.placements)?;
    }
    render(dir, &view, !args.no_html, default_threads())
        .map_err(|e| Error::Fatal(format!("cannot write reports into {}: {e}", out.display())))?;
    commit_out(staging, &interrupt)?;
    if !args.quiet {
        super::to_stderr(&summary::render(&view, &out.display().to_string()));
    }
    Ok(exit_code(&view))
}
