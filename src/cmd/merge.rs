//! `robots-audit merge`: report directories in, the reports of one audit over all their inputs
//! out (see `src/merge.rs` for the rules).
//!
//! Exit codes as `audit`'s: 0 done; 1 a state that cannot be read (corrupt, tampered, newer
//! version), different settings, or different content under one robots version, nothing
//! written; 2 wrong usage; 3 done, but some merged input had errors, or nothing was judged.

use std::fs;
use std::path::PathBuf;

use clap::Args;
use robots_audit::audit::default_threads;
use robots_audit::commit::atomic::remove_temporaries;
use robots_audit::error::Error;
use robots_audit::merge::{copy_streamed, merge_dirs};
use robots_audit::report::output::render;
use robots_audit::report::{View, summary};

use super::exit_code;

/// One line in `robots-audit --help`.
pub const ABOUT: &str = "Report directories -> the reports of one audit over all their inputs";

/// `robots-audit merge [--out DIR] REPORT_DIR...`
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Report directories written by `audit` or `merge`, in the order of their inputs.
    #[arg(required = true, value_name = "REPORT_DIR")]
    pub reports: Vec<PathBuf>,
    /// Where to write the merged reports (the run owns it, as `audit`'s --out).
    #[arg(long, default_value = "robots-audit-report", value_name = "DIR")]
    pub out: PathBuf,
    /// Do not write report.html.
    #[arg(long)]
    pub no_html: bool,
    /// No summary table on standard error (warnings and errors are still shown).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Runs `merge`.
pub fn run(args: MergeArgs) -> Result<u8, Error> {
    let merged = merge_dirs(&args.reports).map_err(Error::Fatal)?;
    for warning in &merged.warnings {
        eprintln!("robots-audit: warning: {warning}");
    }
    let out = &args.out;
    fs::create_dir_all(out)
        .map_err(|e| Error::Fatal(format!("cannot create --out {}: {e}", out.display())))?;
    let view =
        View::of(&merged.state).map_err(|e| Error::Fatal(format!("inconsistent state: {e}")))?;
    let rendered = (|| {
        for name in &merged.state.streamed {
            copy_streamed(out, name, &merged.sources, &merged.placements)?;
        }
        render(out, &view, !args.no_html, default_threads())
            .map_err(|e| format!("cannot write reports into {}: {e}", out.display()))
    })();
    if let Err(e) = rendered {
        remove_temporaries(out);
        return Err(Error::Fatal(e));
    }
    if !args.quiet {
        eprint!("{}", summary::render(&view, &out.display().to_string()));
    }
    Ok(exit_code(&view))
}
