//! `robots-audit check`: one robots.txt, one or more agents, a verdict per URL with the rule
//! that decided it.

use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;

use robots_audit_bots::{Catalog, Identity};
use robots_audit_engine::{
    GOOGLEBOT_MAX_BYTES, ParseOptions, Robots, TokenMatch, path_params_query,
};

use crate::error::Error;

/// Everything `check` is told.
#[derive(Debug, Clone, Default)]
pub struct CheckConfig {
    /// The robots.txt file.
    pub robots: PathBuf,
    /// `--agent` product tokens, compared exactly as Google's matcher compares them; several
    /// merge their groups.
    pub agents: Vec<String>,
    /// `--user-agent`: a full header, resolved to tokens through the bot catalog.
    pub user_agent: Option<String>,
    /// The catalog that resolves `--user-agent` (`None`: the built-in one).
    pub catalog: Option<Catalog>,
    /// The URLs: absolute, bare paths, or empty.
    pub urls: Vec<Vec<u8>>,
    /// Ignore content after 500 KiB, as Google's crawler does (Google's library does not).
    pub truncate: bool,
}

/// Which groups to use: Google's exact token comparison, or the catalog's fallback tokens.
fn tokens(config: &CheckConfig) -> Result<(Vec<Vec<u8>>, TokenMatch), Error> {
    match (&config.user_agent, config.agents.is_empty()) {
        (Some(_), false) => Err(Error::Usage(
            "give either --agent or --user-agent, not both".into(),
        )),
        (None, true) => Err(Error::Usage(
            "check needs --agent TOKEN or --user-agent HEADER".into(),
        )),
        (None, false) => Ok((
            config
                .agents
                .iter()
                .map(|a| a.as_bytes().to_vec())
                .collect(),
            TokenMatch::Google,
        )),
        (Some(header), true) => {
            let builtin;
            let catalog = match &config.catalog {
                Some(catalog) => catalog,
                None => {
                    builtin = Catalog::builtin();
                    &builtin
                }
            };
            let bot = match catalog.identify(header.as_bytes()) {
                Identity::Known(i) => catalog.bots()[i].clone(),
                Identity::Unknown(bot) => bot,
                Identity::NotBot => {
                    return Err(Error::Usage(format!(
                        "--user-agent {header:?} is not a bot the catalog knows and does not declare itself one; use --agent TOKEN"
                    )));
                }
            };
            Ok((
                bot.tokens.iter().map(|t| t.as_bytes().to_vec()).collect(),
                TokenMatch::ProductName,
            ))
        }
    }
}

/// Runs `check`, writing `allowed|disallowed<TAB>URL<TAB>rule<TAB>line` per URL to `out`.
///
/// ```
/// # use robots_audit::check::{CheckConfig, run};
/// let dir = tempfile::tempdir().unwrap();
/// let robots = dir.path().join("robots.txt");
/// std::fs::write(&robots, "User-agent: *\nDisallow: /private/\n").unwrap();
/// let config = CheckConfig {
///     robots,
///     agents: vec!["FooBot".into()],
///     urls: vec![b"https://example.com/private/x".to_vec(), b"/public".to_vec()],
///     ..CheckConfig::default()
/// };
/// let mut out = Vec::new();
/// run(&config, &mut out).unwrap();
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "disallowed\thttps://example.com/private/x\tDisallow: /private/\t2\nallowed\t/public\t-\t0\n"
/// );
/// ```
pub fn run(config: &CheckConfig, out: &mut impl Write) -> Result<(), Error> {
    let (tokens, mode) = tokens(config)?;
    let body = fs::read(&config.robots).map_err(|e| {
        Error::Fatal(format!(
            "cannot read robots file {}: {e}",
            config.robots.display()
        ))
    })?;
    let options = ParseOptions {
        max_bytes: config.truncate.then_some(GOOGLEBOT_MAX_BYTES),
    };
    let robots = Robots::parse_with(&body, &options);
    let token_refs: Vec<&[u8]> = tokens.iter().map(Vec::as_slice).collect();
    let selection = robots.select(&token_refs, mode);
    let write = |out: &mut dyn Write, url: &[u8]| -> io::Result<()> {
        let path = path_params_query(url);
        let verdict = robots.verdict(&selection, &path);
        let (rule, line) = match verdict.rule.and_then(|r| robots.rules().get(r as usize)) {
            Some(rule) => (rule.text.as_str(), rule.line),
            None => ("-", 0),
        };
        out.write_all(if verdict.allowed {
            b"allowed\t"
        } else {
            b"disallowed\t"
        })?;
        out.write_all(url)?;
        writeln!(out, "\t{rule}\t{line}")
    };
    for url in &config.urls {
        write(out, url).map_err(|e| Error::Fatal(format!("cannot write output: {e}")))?;
    }
    Ok(())
}
