//! `robots-audit check`: one robots.txt, one or more agents, a verdict per URL.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use robots_audit::check::CheckConfig;
use robots_audit::error::{EXIT_OK, Error};

use super::{load_catalog, usage};

/// What `robots-audit check` does, for `--help`.
pub const ABOUT: &str =
    "One robots.txt, one or more agents: a verdict per URL with the deciding rule";

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
    /// Extra bot definitions for --user-agent (tokens given with --agent need none).
    #[arg(long, value_name = "FILE")]
    pub bots: Vec<PathBuf>,
    /// Read more URLs from FILE, one per line (- for standard input).
    #[arg(long, value_name = "FILE")]
    pub urls: Option<PathBuf>,
    /// Ignore content after 500 KiB, as Google's crawler does (Google's library reads it all).
    #[arg(long)]
    pub truncate: bool,
    /// Print `disallowed` rather than `exempt` for a --user-agent whose operator says robots.txt
    /// does not bind it (user-triggered fetchers, crawlers that ignore it).
    #[arg(long)]
    pub strict: bool,
    /// URLs: absolute, bare paths, or empty.
    #[arg(value_name = "URL")]
    pub url: Vec<String>,
}

impl CheckArgs {
    /// The library configuration these arguments describe (reading `--urls`).
    fn into_config(self) -> Result<CheckConfig, Error> {
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
        // The catalog only names the tokens of a --user-agent. (clap's `requires` cannot say
        // this: it drops the requirement once --agent, which conflicts with it, is given.)
        let catalog = match &self.user_agent {
            Some(_) => Some(load_catalog(&self.bots)?),
            None if !self.bots.is_empty() => {
                return Err(usage(
                    "--bots serves --user-agent: the tokens of --agent need no catalog".into(),
                ));
            }
            None => None,
        };
        Ok(CheckConfig {
            robots: self.robots,
            agents: self.agents,
            user_agent: self.user_agent,
            catalog,
            urls,
            truncate: self.truncate,
            strict: self.strict,
        })
    }
}

/// Runs `robots-audit check`, writing one line per URL to standard output.
pub fn run(args: CheckArgs) -> Result<u8, Error> {
    let config = args.into_config()?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let ignored = robots_audit::check::run(&config, &mut out)?;
    out.flush().map_err(Error::output)?;
    // The extension lines that took no effect (robots.csv counts them in `ignored_lines`).
    for line in ignored {
        super::say(format_args!(
            "{}: line {} ignored ({} {}): {}",
            config.robots.display(),
            line.line,
            line.kind.name(),
            line.reason.name(),
            line.text
        ));
    }
    Ok(EXIT_OK)
}
