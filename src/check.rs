//! `robots-audit check`: one robots.txt, one or more agents, a verdict per URL with the rule
//! that decided it.

use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;

use robots_audit_bots::{Catalog, ContentUse, Identity, RobotsPolicy};
use robots_audit_engine::{
    DirectiveKind, GOOGLEBOT_MAX_BYTES, IgnoredDirective, ParseOptions, Robots, Selection, Stance,
    TokenMatch, path_params_query,
};

use crate::audit::judge::{engine_use, select_for};
use crate::error::Error;
use crate::report::crawl_rate::seconds;
use crate::shown::{Escaped, is_hidden};

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
    /// Print `disallowed`, never `exempt`, for a `--user-agent` whose operator says robots.txt
    /// does not bind it (as `audit --strict` counts it).
    pub strict: bool,
}

/// The tokens to select groups with, how they compare, and the robots policy of the crawler
/// (`obeys` for `--agent` tokens, the catalog's for `--user-agent`).
struct Agent {
    tokens: Vec<Vec<u8>>,
    mode: TokenMatch,
    policy: RobotsPolicy,
    /// The uses whose preferences are shown: the catalog category's for `--user-agent`, every
    /// use for `--agent` tokens, which have no category.
    uses: Vec<ContentUse>,
}

/// Which groups to use: Google's exact token comparison, or the catalog's fallback tokens and
/// robots policy.
fn agent(config: &CheckConfig) -> Result<Agent, Error> {
    match (&config.user_agent, config.agents.is_empty()) {
        (Some(_), false) => Err(Error::Usage(
            "give either --agent or --user-agent, not both".into(),
        )),
        (None, true) => Err(Error::Usage(
            "check needs --agent TOKEN or --user-agent HEADER".into(),
        )),
        (None, false) => Ok(Agent {
            tokens: config
                .agents
                .iter()
                .map(|a| a.as_bytes().to_vec())
                .collect(),
            mode: TokenMatch::Google,
            policy: RobotsPolicy::Obeys,
            uses: vec![
                ContentUse::AiTraining,
                ContentUse::AiInput,
                ContentUse::Search,
            ],
        }),
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
            Ok(Agent {
                tokens: bot.tokens.iter().map(|t| t.as_bytes().to_vec()).collect(),
                mode: TokenMatch::ProductName,
                policy: bot.policy.robots,
                uses: bot.category.content_use().into_iter().collect(),
            })
        }
    }
}

/// Writes one field of a `check` line with TAB, CR, LF and backslash escaped as `\t`, `\r`,
/// `\n` and `\\`, so every line has exactly six TAB-separated fields even when a URL or a rule
/// of a real robots.txt holds a TAB, every other control byte as `\xHH` (as the CSVs write
/// them), and every other character the terminal acts on or that reorders the line (C1
/// controls, bidirectional controls, the line and paragraph separators: [`is_hidden`]) as
/// `\u{H..}`, so that no rule of a stranger's robots.txt acts on the terminal. Other bytes,
/// invalid UTF-8 included, are written as they are.
fn write_field(out: &mut dyn Write, field: &[u8]) -> io::Result<()> {
    for chunk in field.utf8_chunks() {
        write_valid(out, chunk.valid())?;
        out.write_all(chunk.invalid())?;
    }
    Ok(())
}

/// [`write_field`] of a valid piece of a field.
fn write_valid(out: &mut dyn Write, text: &str) -> io::Result<()> {
    let mut rest = text;
    while let Some((at, c)) = rest
        .char_indices()
        .find(|&(_, c)| c == '\\' || is_hidden(c))
    {
        out.write_all(&rest.as_bytes()[..at])?;
        match c {
            '\t' => out.write_all(b"\\t")?,
            '\r' => out.write_all(b"\\r")?,
            '\n' => out.write_all(b"\\n")?,
            '\\' => out.write_all(b"\\\\")?,
            hidden => write!(out, "{}", Escaped(hidden))?,
        }
        rest = &rest[at + c.len_utf8()..];
    }
    out.write_all(rest.as_bytes())
}

/// The preferences in force for `path`, one `use=value:line` per use that a line speaks
/// about (`train-ai=n:6`, `ai-train=no:11`), joined by `,`; `-` when none does.
fn preferences(robots: &Robots, selection: &Selection, path: &[u8], uses: &[ContentUse]) -> String {
    let stated: Vec<String> = uses
        .iter()
        .filter_map(|&content_use| {
            let p = robots.preference(selection, path, engine_use(content_use))?;
            let (name, value) = match (p.kind, p.value) {
                (DirectiveKind::ContentUsage, Stance::Yes) => (content_use.aipref_label(), "y"),
                (DirectiveKind::ContentUsage, Stance::No) => (content_use.aipref_label(), "n"),
                (_, Stance::Yes) => (content_use.content_signal_key(), "yes"),
                (_, Stance::No) => (content_use.content_signal_key(), "no"),
            };
            Some(format!("{name}={value}:{}", p.line))
        })
        .collect();
    if stated.is_empty() {
        "-".to_owned()
    } else {
        stated.join(",")
    }
}

/// Runs `check`, writing
/// `allowed|disallowed|exempt<TAB>URL<TAB>rule<TAB>line<TAB>crawl_delay<TAB>preferences` per URL
/// to `out` (fields escaped by `write_field`), and returns the extension lines the file
/// ignores (malformed `Crawl-delay`, `Content-Signal`, ... values), for the caller to show.
/// `crawl_delay` is the delay in seconds with its line (`10:2`) or `-`; `preferences` the usage
/// preferences in force for the URL's path (see `preferences`): for the catalog category's
/// use with `--user-agent`, for every use with `--agent`. `exempt` replaces `disallowed` for a
/// `--user-agent` whose catalog entry is `user_triggered` or `ignores`, unless `strict`; an
/// `ignores_global` one is judged by the groups naming its tokens only.
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
///     "disallowed\thttps://example.com/private/x\tDisallow: /private/\t2\t-\t-\n\
///      allowed\t/public\t-\t0\t-\t-\n"
/// );
/// ```
pub fn run(config: &CheckConfig, out: &mut impl Write) -> Result<Vec<IgnoredDirective>, Error> {
    let agent = agent(config)?;
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
    let token_refs: Vec<&[u8]> = agent.tokens.iter().map(Vec::as_slice).collect();
    let selection = select_for(&robots, &token_refs, agent.policy, agent.mode);
    let refused: &[u8] = if agent.policy.is_exempt() && !config.strict {
        b"exempt\t"
    } else {
        b"disallowed\t"
    };
    let crawl_delay = match robots.crawl_delay(&selection) {
        Some((delay, directive)) => format!(
            "{}:{}",
            seconds(u32::try_from(delay.as_millis()).unwrap_or(u32::MAX)),
            directive.line
        ),
        None => "-".to_owned(),
    };
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
            refused
        })?;
        write_field(out, url)?;
        out.write_all(b"\t")?;
        write_field(out, rule.as_bytes())?;
        write!(out, "\t{line}\t{crawl_delay}\t")?;
        write_field(
            out,
            preferences(&robots, &selection, &path, &agent.uses).as_bytes(),
        )?;
        writeln!(out)
    };
    for url in &config.urls {
        write(out, url).map_err(Error::output)?;
    }
    Ok(robots.ignored_directives().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_escaped_so_a_line_keeps_six_fields_and_no_control_byte() {
        let cases: [(&[u8], &[u8]); 11] = [
            (b"/plain", b"/plain"),
            (b"Disallow: /a\tb", b"Disallow: /a\\tb"),
            (b"/x\\y", b"/x\\\\y"),
            (b"\r\n", b"\\r\\n"),
            (b"", b""),
            (b"\xff\t", b"\xff\\t"),
            (b"/a\x1b[31m", b"/a\\x1b[31m"),
            (b"\x00\x07\x7f", b"\\x00\\x07\\x7f"),
            (b"\\x1b", b"\\\\x1b"),
            (
                "/\u{9b}31m\u{202e}1\u{2028}".as_bytes(),
                b"/\\u{9b}31m\\u{202e}1\\u{2028}",
            ),
            (b"\xc2\x9b\xff\xc2", b"\\u{9b}\xff\xc2"),
        ];
        for (field, expected) in cases {
            let mut out = Vec::new();
            write_field(&mut out, field).unwrap();
            assert_eq!(out, expected, "{field:?}");
        }
    }

    #[test]
    fn a_rule_with_a_tab_gives_six_fields() {
        let dir = tempfile::tempdir().unwrap();
        let robots = dir.path().join("robots.txt");
        fs::write(&robots, "User-agent: *\nDisallow: /a\tb\n").unwrap();
        let config = CheckConfig {
            robots,
            agents: vec!["FooBot".into()],
            urls: vec![b"/a\tb".to_vec(), b"/a%09b".to_vec()],
            ..CheckConfig::default()
        };
        let mut out = Vec::new();
        run(&config, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for line in text.lines() {
            assert_eq!(line.split('\t').count(), 6, "{line:?}");
        }
        assert!(text.contains("Disallow: /a\\tb"), "{text}");
    }

    /// The delay of the selected group and the preferences in force for each path, for the
    /// catalog category's use (`--user-agent`) or every use (`--agent`); malformed extension
    /// lines come back to the caller. The signal's `no` outweighs the usage rule's `y` on
    /// `/open/`: a no from either mechanism wins.
    #[test]
    fn delay_and_preferences_per_url() {
        let dir = tempfile::tempdir().unwrap();
        let robots = dir.path().join("robots.txt");
        fs::write(
            &robots,
            "User-agent: *\n\
             Crawl-delay: 2.5\n\
             Crawl-delay: 10s\n\
             Crawl-delay: soon\n\
             Content-Signal: search=yes, ai-train=no\n\
             Content-Usage: /open/ train-ai=y\n\
             Content-Signal: nonsense\n\
             Disallow: /private/\n",
        )
        .unwrap();
        let run_with = |config: CheckConfig| {
            let mut out = Vec::new();
            let ignored = run(&config, &mut out).unwrap();
            (String::from_utf8(out).unwrap(), ignored)
        };
        let (text, ignored) = run_with(CheckConfig {
            robots: robots.clone(),
            user_agent: Some(
                "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)".into(),
            ),
            urls: vec![b"/a".to_vec(), b"/open/x".to_vec(), b"/private/x".to_vec()],
            ..CheckConfig::default()
        });
        assert_eq!(
            text,
            "allowed\t/a\t-\t0\t10:3\tai-train=no:5\n\
             allowed\t/open/x\t-\t0\t10:3\tai-train=no:5\n\
             disallowed\t/private/x\tDisallow: /private/\t8\t10:3\tai-train=no:5\n"
        );
        let ignored: Vec<_> = ignored
            .iter()
            .map(|i| (i.line, i.kind.name(), i.reason.name()))
            .collect();
        assert_eq!(
            ignored,
            [
                (4, DirectiveKind::CrawlDelay.name(), "malformed"),
                (7, DirectiveKind::ContentSignal.name(), "malformed"),
            ]
        );
        let (text, _) = run_with(CheckConfig {
            robots,
            agents: vec!["AnyBot".into()],
            urls: vec![b"/a".to_vec()],
            ..CheckConfig::default()
        });
        assert_eq!(
            text,
            "allowed\t/a\t-\t0\t10:3\tai-train=no:5,search=yes:5\n"
        );
        fs::write(
            dir.path().join("usage.txt"),
            "User-agent: *\nContent-Usage: / train-ai=n\nContent-Usage: /open/ train-ai=y\n",
        )
        .unwrap();
        let (text, ignored) = run_with(CheckConfig {
            robots: dir.path().join("usage.txt"),
            agents: vec!["AnyBot".into()],
            urls: vec![b"/a".to_vec(), b"/open/x".to_vec()],
            ..CheckConfig::default()
        });
        assert_eq!(
            text,
            "allowed\t/a\t-\t0\t-\ttrain-ai=n:2\nallowed\t/open/x\t-\t0\t-\ttrain-ai=y:3\n"
        );
        assert!(ignored.is_empty());
    }
}
