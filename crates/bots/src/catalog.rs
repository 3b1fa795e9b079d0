//! The bot catalog: who each crawler is, which robots.txt tokens it obeys, and which user-agent
//! patterns recognise it.
//!
//! Two JSON formats load into it (told apart by their shape):
//!
//! * the project's own format, the one of the built-in `data/catalog.json`: an object with a
//!   `bots` array (or that array alone), each entry
//!   `{"name", "operator", "category", "tokens", "patterns", "regexes", "examples"}` and what
//!   the operator documents, each claim with its page: `"robots"` and `"robots_source"`,
//!   `"dns_suffixes"` and `"dns_source"`, `"ranges"` and `"ranges_source"`,
//!   `"honours_crawl_delay"` and `"crawl_delay_source"` (see [`BotPolicy`]);
//! * the public crawler-user-agents format: an array of `{"pattern", "instances", ...}`.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

pub(crate) use crate::bot::{Bot, Category};
use crate::crawler_user_agents;
use crate::error::{ClaimError, EntryError, LoadError, Position};
use crate::identify::{self, Identity, Matcher, Pattern, Syntax, compile_pattern};
use crate::policy::{BotPolicy, RobotsPolicy, list_problem, source_problem, suffix_problem};

/// The built-in catalog, embedded at compile time.
const BUILTIN: &str = include_str!("../data/catalog.json");

/// What the catalog keeps about a bot besides the public [`Bot`].
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) patterns: Vec<Pattern>,
    examples: Vec<String>,
}

/// The crawler catalog: bots, their robots.txt tokens, and a compiled matcher for their
/// user-agents.
///
/// ```
/// use robots_audit_bots::{Catalog, Identity};
///
/// let catalog = Catalog::builtin();
/// let Identity::Known(index) = catalog.identify(b"Googlebot-Image/1.0") else { panic!() };
/// let bot = &catalog.bots()[index];
/// assert_eq!(bot.name, "Googlebot-Image");
/// assert_eq!(bot.tokens, ["googlebot-image", "googlebot"]);
/// ```
#[derive(Debug, Clone)]
pub struct Catalog {
    bots: Vec<Bot>,
    entries: Vec<Entry>,
    matcher: Matcher,
}

impl Catalog {
    /// The built-in catalog (`data/catalog.json`, embedded in the binary).
    pub fn builtin() -> Catalog {
        let mut catalog = Catalog::empty();
        // The embedded file is checked by this crate's tests (every entry loads, every example
        // identifies to its entry), so a failure here is a build defect, not an input problem,
        // and its examples are not checked again at every start (a third of the start-up time).
        catalog
            .extend(BUILTIN.as_bytes(), "built-in catalog", false)
            .unwrap_or_else(|error| panic!("{error}"));
        catalog
    }

    /// A catalog without bots: every user-agent is either an unknown self-declared bot or not a
    /// bot.
    pub fn empty() -> Catalog {
        Catalog {
            bots: Vec::new(),
            entries: Vec::new(),
            matcher: Matcher::default(),
        }
    }

    /// Adds the bots of a JSON file in either supported format (told apart by shape) and returns
    /// how many entries the file had.
    ///
    /// * Own format (`{"bots": [...]}` or the bare array): an entry whose name equals an existing
    ///   bot's (ignoring ASCII case) replaces it in place; others are appended. Every `examples`
    ///   user-agent must then identify as its entry.
    /// * crawler-user-agents format (`[{"pattern": ...}, ...]`): each `pattern` is a regular
    ///   expression; every product it matches in its `instances` is a bot (named after that
    ///   product token as written, with the robots.txt tokens an unknown bot of that name has,
    ///   [`Identity::Unknown`]): the existing
    ///   bot of that name or first token, else a new bot of category `other`. The pattern belongs
    ///   to the product most of its instances show (else the longest word of the pattern), which
    ///   names the headers it matches outside any product. Imported patterns decide only headers
    ///   that neither the catalog's own patterns nor the declared-bot rule identify, and name
    ///   the product they match in each header (see [`Catalog::identify`]).
    ///
    /// `name` labels the input in errors. On error the catalog is left unchanged.
    ///
    /// ```
    /// use robots_audit_bots::{Catalog, Identity};
    ///
    /// let mut catalog = Catalog::empty();
    /// let list = br#"[{"pattern": "[pP]ython-urllib", "instances": ["Python-urllib/3.11"]},
    ///                 {"pattern": "arabot", "instances": []}]"#;
    /// assert_eq!(catalog.extend_from_bytes(list, "cua.json").unwrap(), 2);
    /// let Identity::Known(index) = catalog.identify(b"Python-urllib/3.12") else { panic!() };
    /// assert_eq!(catalog.bots()[index].name, "Python-urllib");
    /// // `arabot` matches inside `Clarabot`: the bot is the product it matched in.
    /// let Identity::Unknown(bot) = catalog.identify(b"Clarabot/1.4") else { panic!() };
    /// assert_eq!(bot.tokens, ["clarabot", "clara"]);
    /// ```
    pub fn extend_from_bytes(&mut self, bytes: &[u8], name: &str) -> Result<usize, LoadError> {
        self.extend(bytes, name, true)
    }

    /// [`extend_from_bytes`](Catalog::extend_from_bytes), checking the examples of the entries
    /// added or replaced when `check_examples` says so.
    fn extend(
        &mut self,
        bytes: &[u8],
        name: &str,
        check_examples: bool,
    ) -> Result<usize, LoadError> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|error| LoadError::new(name, None, format!("not valid JSON: {error}")))?;
        let mut bots = self.bots.clone();
        let mut entries = self.entries.clone();
        let (count, to_check) = match classify(value, name)? {
            Format::Own(items) => {
                let touched = add_own_entries(&mut bots, &mut entries, items, name)?;
                (touched.len(), touched)
            }
            Format::CrawlerUserAgents(items) => (
                add_crawler_user_agents(&mut bots, &mut entries, items, name)?,
                Vec::new(),
            ),
        };
        let patterns = entries
            .iter()
            .enumerate()
            .flat_map(|(bot, entry)| entry.patterns.iter().map(move |pattern| (bot, pattern)));
        let matcher = Matcher::build(patterns).map_err(|error| LoadError::at(name, None, error))?;
        let next = Catalog {
            bots,
            entries,
            matcher,
        };
        for (position, index) in to_check.into_iter().filter(|_| check_examples) {
            next.check_examples(index)
                .map_err(|error| LoadError::at(name, Some(Position::Entry(position)), error))?;
        }
        *self = next;
        Ok(count)
    }

    /// [`extend_from_bytes`](Catalog::extend_from_bytes) on a file's content; errors name the path.
    pub fn extend_from_file(&mut self, path: &Path) -> Result<usize, LoadError> {
        let label = path.display().to_string();
        let bytes = fs::read(path)
            .map_err(|error| LoadError::new(&label, None, format!("cannot read: {error}")))?;
        self.extend_from_bytes(&bytes, &label)
    }

    /// Every bot, in catalog order; [`Identity::Known`] indexes into it.
    pub fn bots(&self) -> &[Bot] {
        &self.bots
    }

    /// The index of the bot with this name, ignoring ASCII case.
    ///
    /// ```
    /// use robots_audit_bots::Catalog;
    /// let catalog = Catalog::builtin();
    /// let index = catalog.find("gptbot").unwrap();
    /// assert_eq!(catalog.bots()[index].name, "GPTBot");
    /// ```
    pub fn find(&self, name: &str) -> Option<usize> {
        find_name(&self.bots, name)
    }

    /// Real-looking user-agent headers of the bot at `index` (empty for bots known only by a
    /// robots.txt token, such as `Google-Extended`, and for imported bots). Each identifies as
    /// that bot; useful to synthesise logs.
    pub fn examples(&self, index: usize) -> &[String] {
        self.entries.get(index).map_or(&[], |entry| &entry.examples)
    }

    /// The user-agent patterns of the bot at `index`, in the order loaded.
    pub(crate) fn patterns(&self, index: usize) -> &[Pattern] {
        self.entries.get(index).map_or(&[], |entry| &entry.patterns)
    }

    /// Identifies the bot behind a User-Agent header (decoded, e.g. W3C `+` already turned into
    /// spaces): a catalog bot, an unknown bot that declares itself one, or not a bot. Any bytes
    /// are accepted; linear time in the header's length. The order of the rules is in the
    /// [crate docs](crate#identification), the declared-bot rule under
    /// [who counts as a bot](crate#who-counts-as-a-bot).
    ///
    /// ```
    /// use robots_audit_bots::{Catalog, Identity};
    ///
    /// let catalog = Catalog::builtin();
    /// let ua = b"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    /// let Identity::Known(index) = catalog.identify(ua) else { panic!() };
    /// assert_eq!(catalog.bots()[index].tokens, ["bingbot"]);
    ///
    /// let Identity::Unknown(bot) = catalog.identify(b"Mozilla/5.0 (compatible; FooBot/1.0; +http://foo.example/bot)")
    /// else { panic!() };
    /// assert_eq!((bot.name.as_str(), bot.tokens[0].as_str()), ("FooBot", "foobot"));
    ///
    /// assert_eq!(catalog.identify(b"curl/8.5.0"), Identity::NotBot);
    /// ```
    pub fn identify(&self, user_agent: &[u8]) -> Identity {
        identify::identify(&self.bots, &self.matcher, user_agent)
    }

    fn check_examples(&self, index: usize) -> Result<(), EntryError> {
        let examples = self.examples(index);
        for example in examples {
            let found = match self.identify(example.as_bytes()) {
                Identity::Known(found) if found == index => continue,
                Identity::Known(found) => self
                    .bots
                    .get(found)
                    .map_or("?", |bot| bot.name.as_str())
                    .to_owned(),
                Identity::Unknown(bot) => format!("the unknown bot {}", bot.name),
                Identity::NotBot => "not a bot".to_owned(),
            };
            return Err(EntryError::Example {
                example: example.clone(),
                found,
            });
        }
        Ok(())
    }
}

/// The two accepted file shapes, with their entries.
enum Format {
    Own(Vec<Value>),
    CrawlerUserAgents(Vec<Value>),
}

fn classify(value: Value, file: &str) -> Result<Format, LoadError> {
    const SHAPES: &str = "expected the catalog format ({\"bots\": [...]}) or the crawler-user-agents \
                          format ([{\"pattern\": ...}, ...])";
    match value {
        Value::Object(mut map) => {
            if let Some(key) = map
                .keys()
                .find(|key| !matches!(key.as_str(), "bots" | "description"))
            {
                return Err(LoadError::new(
                    file,
                    None,
                    format!(
                        "unknown top-level key {key:?}: the catalog format has `bots` and `description`"
                    ),
                ));
            }
            match map.remove("bots") {
                Some(Value::Array(items)) => Ok(Format::Own(items)),
                Some(_) => Err(LoadError::new(file, None, "`bots` must be an array")),
                None => Err(LoadError::new(file, None, SHAPES)),
            }
        }
        Value::Array(items) => {
            let is_cua = |item: &Value| item.get("pattern").is_some();
            let Some(first) = items.first() else {
                return Ok(Format::Own(items));
            };
            let cua = is_cua(first);
            if !cua && first.get("name").is_none() {
                return Err(LoadError::new(file, Some(Position::Entry(0)), SHAPES));
            }
            if let Some(index) = items.iter().position(|item| is_cua(item) != cua) {
                let message = if cua {
                    "every entry of a crawler-user-agents file needs a `pattern`"
                } else {
                    "a catalog entry cannot have a `pattern` (patterns go in `patterns` or `regexes`)"
                };
                return Err(LoadError::new(file, Some(Position::Entry(index)), message));
            }
            Ok(if cua {
                Format::CrawlerUserAgents(items)
            } else {
                Format::Own(items)
            })
        }
        _ => Err(LoadError::new(file, None, SHAPES)),
    }
}

/// One entry of the catalog's own format.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OwnEntry {
    name: String,
    #[serde(default)]
    operator: String,
    category: Category,
    tokens: Vec<String>,
    /// Case-insensitive literal substrings.
    #[serde(default)]
    patterns: Vec<String>,
    /// Case-insensitive regular expressions (Rust `regex` syntax, matched on bytes).
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    examples: Vec<String>,
    #[serde(default)]
    robots: RobotsPolicy,
    robots_source: Option<String>,
    #[serde(default)]
    dns_suffixes: Vec<String>,
    dns_source: Option<String>,
    ranges: Option<Vec<String>>,
    ranges_source: Option<String>,
    #[serde(default)]
    honours_crawl_delay: bool,
    crawl_delay_source: Option<String>,
}

/// Applies own-format entries; returns `(entry position in the file, bot index)` of each.
fn add_own_entries(
    bots: &mut Vec<Bot>,
    entries: &mut Vec<Entry>,
    items: Vec<Value>,
    file: &str,
) -> Result<Vec<(usize, usize)>, LoadError> {
    let mut touched: Vec<(usize, usize)> = Vec::with_capacity(items.len());
    for (position, item) in items.into_iter().enumerate() {
        let at = |error: EntryError| LoadError::at(file, Some(Position::Entry(position)), error);
        let spec: OwnEntry = serde_json::from_value(item).map_err(|error| at(error.into()))?;
        let (bot, entry) = validate(spec).map_err(at)?;
        let index = match find_name(bots, &bot.name) {
            Some(index) => {
                if let Some((earlier, _)) = touched.iter().find(|(_, touched)| *touched == index) {
                    return Err(at(EntryError::NameTaken {
                        name: bot.name,
                        earlier: *earlier,
                    }));
                }
                if let (Some(old_bot), Some(old_entry)) =
                    (bots.get_mut(index), entries.get_mut(index))
                {
                    *old_bot = bot;
                    *old_entry = entry;
                }
                index
            }
            None => {
                bots.push(bot);
                entries.push(entry);
                bots.len() - 1
            }
        };
        touched.push((position, index));
    }
    Ok(touched)
}

fn validate(spec: OwnEntry) -> Result<(Bot, Entry), EntryError> {
    let name = spec.name.trim();
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(EntryError::InvalidName(spec.name));
    }
    if spec.tokens.is_empty() {
        return Err(EntryError::NoTokens(name.to_owned()));
    }
    let mut tokens: Vec<String> = Vec::with_capacity(spec.tokens.len());
    for token in &spec.tokens {
        let token = token.to_ascii_lowercase();
        if let Some(problem) = token_problem(&token) {
            return Err(EntryError::InvalidToken {
                name: name.to_owned(),
                token,
                problem,
            });
        }
        if tokens.contains(&token) {
            return Err(EntryError::DuplicateToken {
                name: name.to_owned(),
                token,
            });
        }
        tokens.push(token);
    }
    let mut patterns = Vec::with_capacity(spec.patterns.len() + spec.regexes.len());
    for literal in &spec.patterns {
        patterns.push(compile_pattern(literal, Syntax::Literal).map_err(|source| {
            EntryError::Pattern {
                pattern: literal.clone(),
                source,
            }
        })?);
    }
    for regex in &spec.regexes {
        patterns.push(compile_pattern(regex, Syntax::Regex).map_err(|source| {
            EntryError::Regex {
                regex: regex.clone(),
                source,
            }
        })?);
    }
    if patterns.is_empty() && !spec.examples.is_empty() {
        return Err(EntryError::ExamplesWithoutPatterns(name.to_owned()));
    }
    let policy = validate_policy(&spec).map_err(|source| EntryError::Claim {
        name: name.to_owned(),
        source,
    })?;
    let bot = Bot {
        name: name.to_owned(),
        tokens,
        operator: spec.operator.trim().to_owned(),
        category: spec.category,
        policy: Arc::new(policy),
    };
    Ok((
        bot,
        Entry {
            patterns,
            examples: spec.examples,
        },
    ))
}

/// The documented policy of an own-format entry, or what is wrong with it: every documented
/// claim carries the https URL of the operator's page that makes it.
fn validate_policy(spec: &OwnEntry) -> Result<BotPolicy, ClaimError> {
    let source = |field: &'static str, url: &Option<String>, needed: bool| match url {
        Some(url) => match source_problem(url.trim()) {
            Some(problem) => Err(ClaimError::BadSource {
                field,
                url: url.clone(),
                problem,
            }),
            None => Ok(Some(url.trim().to_owned())),
        },
        None if needed => Err(ClaimError::MissingSource(field)),
        None => Ok(None),
    };
    let robots_source = source(
        "robots_source",
        &spec.robots_source,
        spec.robots != RobotsPolicy::Obeys,
    )?;
    let mut dns_suffixes: Vec<String> = Vec::with_capacity(spec.dns_suffixes.len());
    for suffix in &spec.dns_suffixes {
        let clean = suffix.trim().trim_matches('.').to_ascii_lowercase();
        if let Some(problem) = suffix_problem(&clean) {
            return Err(ClaimError::DnsSuffix {
                suffix: suffix.clone(),
                problem,
            });
        }
        if !dns_suffixes.contains(&clean) {
            dns_suffixes.push(clean);
        }
    }
    let dns_source = source("dns_source", &spec.dns_source, !dns_suffixes.is_empty())?;
    let ranges = match &spec.ranges {
        Some(lists) => {
            let mut clean: Vec<String> = Vec::with_capacity(lists.len());
            for list in lists {
                if let Some(problem) = list_problem(list) {
                    return Err(ClaimError::RangeList {
                        list: list.clone(),
                        problem,
                    });
                }
                if !clean.contains(list) {
                    clean.push(list.clone());
                }
            }
            Some(clean)
        }
        None => None,
    };
    let ranges_source = source(
        "ranges_source",
        &spec.ranges_source,
        ranges.as_ref().is_some_and(|lists| !lists.is_empty()),
    )?;
    let crawl_delay_source = source(
        "crawl_delay_source",
        &spec.crawl_delay_source,
        spec.honours_crawl_delay,
    )?;
    Ok(BotPolicy {
        robots: spec.robots,
        robots_source,
        dns_suffixes,
        dns_source,
        ranges,
        ranges_source,
        honours_crawl_delay: spec.honours_crawl_delay,
        crawl_delay_source,
    })
}

/// Why `token` (already lower-cased) cannot be a robots.txt product token, if it cannot.
///
/// A robots.txt group's name ends at the first whitespace, `/`, `*` or `;`, and `#` starts a
/// comment, so a token holding one of these could never select a group.
fn token_problem(token: &str) -> Option<&'static str> {
    if token.is_empty() {
        Some("it is empty")
    } else if token
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '/' | '*' | ';' | '#'))
    {
        Some("a token cannot contain whitespace, control characters, '/', '*', ';' or '#'")
    } else {
        None
    }
}

fn find_name(bots: &[Bot], name: &str) -> Option<usize> {
    bots.iter()
        .position(|bot| bot.name.eq_ignore_ascii_case(name))
}

/// Adds the patterns of a crawler-user-agents list (see [`crawler_user_agents`]) and a bot for
/// each product they name that the catalog lacks; returns how many entries the list had.
fn add_crawler_user_agents(
    bots: &mut Vec<Bot>,
    entries: &mut Vec<Entry>,
    items: Vec<Value>,
    file: &str,
) -> Result<usize, LoadError> {
    let count = items.len();
    for imported in crawler_user_agents::read(items, file)? {
        let mut owner = None;
        for name in imported.products {
            let index = crate::naming::find_bot(bots, &name).unwrap_or_else(|| {
                bots.push(Bot {
                    tokens: crate::naming::tokens_of(&name),
                    name,
                    operator: String::new(),
                    category: Category::Other,
                    policy: Arc::default(),
                });
                entries.push(Entry {
                    patterns: Vec::new(),
                    examples: Vec::new(),
                });
                bots.len() - 1
            });
            owner.get_or_insert(index);
        }
        if let Some(entry) = owner.and_then(|index| entries.get_mut(index)) {
            entry.patterns.push(imported.pattern);
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_rules() {
        let cases: &[(&str, bool)] = &[
            ("googlebot", true),
            ("archive.org_bot", true),
            ("360spider", true),
            ("", false),
            ("sogou web spider", false),
            ("foo/1.0", false),
            ("foo*", false),
            ("foo;bar", false),
            ("foo#bar", false),
        ];
        for &(token, valid) in cases {
            assert_eq!(token_problem(token).is_none(), valid, "{token:?}");
        }
    }

    #[test]
    fn builtin_loads() {
        let catalog = Catalog::builtin();
        assert!(catalog.bots().len() >= 70);
        assert_eq!(catalog.bots().len(), catalog.entries.len());
    }

    #[test]
    fn failed_extension_leaves_the_catalog_unchanged() {
        let mut catalog = Catalog::builtin();
        let before = catalog.bots().to_vec();
        let bad = br#"{"bots": [
            {"name": "Googlebot", "category": "search", "tokens": ["googlebot"], "patterns": ["Zzz"]},
            {"name": "Broken", "category": "search", "tokens": ["broken"], "regexes": ["("]}
        ]}"#;
        let error = catalog.extend_from_bytes(bad, "bad.json").unwrap_err();
        assert_eq!(error.position, Some(Position::Entry(1)));
        assert_eq!(catalog.bots(), before.as_slice());
    }
}
