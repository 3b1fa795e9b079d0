//! `robots-audit bots`: the crawler catalog as the audit would use it, one line per bot or the
//! full entries in the catalog's own JSON format (documented in docs/catalog-format.md).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use robots_audit::error::{EXIT_OK, Error};
use robots_audit::shown::{json_visible, visible};

use super::load_catalog;

/// What `robots-audit bots` does, for `--help`.
pub const ABOUT: &str = "The bot catalog: one line per bot, or the full entries with --json";

/// `robots-audit bots`.
#[derive(Debug, Args)]
pub struct BotsArgs {
    /// Extra or replacement bot definitions, loaded as `audit --bots` loads them. Repeatable.
    #[arg(long, value_name = "FILE")]
    pub bots: Vec<PathBuf>,
    /// The full entries, in the catalog's JSON format, instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Prints the catalog to standard output.
pub fn run(args: BotsArgs) -> Result<u8, Error> {
    let catalog = load_catalog(&args.bots)?;
    // A `--bots` file may be a list the public writes (crawler-user-agents): its patterns and
    // examples are shown with nothing that acts on a terminal (`src/shown.rs`).
    let listing = if args.json {
        json_visible(&catalog.render_json()).into_owned()
    } else {
        let table = catalog.render_table();
        table.lines().map(|line| visible(line) + "\n").collect()
    };
    let mut out = std::io::stdout().lock();
    out.write_all(listing.as_bytes())
        .and_then(|()| out.flush())
        .map_err(Error::output)?;
    Ok(EXIT_OK)
}
