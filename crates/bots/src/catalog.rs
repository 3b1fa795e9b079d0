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

use std::fmt;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use regex_syntax::ParserBuilder;
use regex_syntax::hir::Hir;
use serde::Deserialize;
use serde_json::Value;

use crate::error::{LoadError, Position};
use crate::identify::{Identity, Matcher};
use crate::policy::{BotPolicy, RobotsPolicy, list_problem, source_problem, suffix_problem};

/// The built-in catalog, embedded at compile time.
const BUILTIN: &str = include_str!("../data/catalog.json");

/// What a crawler is for. Reports group bots by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Builds a web search index (Googlebot, bingbot, YandexBot, ...).
    Search,
    /// Collects content to train AI models (GPTBot, ClaudeBot, CCBot, ...).
    AiTraining,
    /// Builds the index an AI search product answers from (OAI-SearchBot, PerplexityBot, ...).
    AiSearch,
    /// Fetches a page because a user asked an AI assistant to (ChatGPT-User, Claude-User, ...).
    AiAssistant,
    /// Link indexes and site audits for SEO tools (AhrefsBot, SemrushBot, MJ12bot, ...).
    Seo,
    /// Link previews for social networks and messengers (facebookexternalhit, Twitterbot, ...).
    Social,
    /// Web archives (archive.org_bot, ia_archiver).
    Archive,
    /// Uptime and performance monitors (UptimeRobot, Pingdom, Chrome-Lighthouse, ...).
    Monitor,
    /// Everything else, including every unknown self-declared bot.
    Other,
}

impl Category {
    /// Every category, in report order.
    pub const ALL: [Category; 9] = [
        Category::Search,
        Category::AiTraining,
        Category::AiSearch,
        Category::AiAssistant,
        Category::Seo,
        Category::Social,
        Category::Archive,
        Category::Monitor,
        Category::Other,
    ];

    /// The name used in catalog files and reports.
    ///
    /// ```
    /// use robots_audit_bots::Category;
    /// assert_eq!(Category::AiTraining.as_str(), "ai-training");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Search => "search",
            Category::AiTraining => "ai-training",
            Category::AiSearch => "ai-search",
            Category::AiAssistant => "ai-assistant",
            Category::Seo => "seo",
            Category::Social => "social",
            Category::Archive => "archive",
            Category::Monitor => "monitor",
            Category::Other => "other",
        }
    }

    /// The category with this [`as_str`](Category::as_str) name, if any.
    ///
    /// ```
    /// use robots_audit_bots::Category;
    /// assert_eq!(Category::from_name("seo"), Some(Category::Seo));
    /// assert_eq!(Category::from_name("SEO"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL
            .into_iter()
            .find(|category| category.as_str() == name)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One crawler: its canonical name and the robots.txt product tokens it answers to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Bot {
    /// Canonical name as the operator writes it, e.g. `Googlebot-Image`.
    pub name: String,
    /// robots.txt product tokens in fallback order, lower-case, e.g. `["googlebot-image",
    /// "googlebot"]`: the first one that some group of a robots.txt names selects the rules.
    pub tokens: Vec<String>,
    /// Who runs it, e.g. `Google`; empty for unknown bots.
    pub operator: String,
    /// What it is for.
    pub category: Category,
    /// What its operator documents about robots.txt, DNS, range lists and `Crawl-delay`
    /// (the default for bots nobody documented). Shared: agents clone bots freely.
    pub policy: Arc<BotPolicy>,
}

/// One compiled user-agent pattern.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    /// Case-insensitive, byte-oriented.
    pub(crate) hir: Hir,
    /// The fewest bytes any match spans (for a literal, its length): the more, the more
    /// specific, and the most specific matching pattern decides which bot a user-agent is.
    pub(crate) specificity: usize,
    /// From a crawler-user-agents list: outranked by every curated pattern.
    pub(crate) imported: bool,
}

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
    /// * crawler-user-agents format (`[{"pattern": ...}, ...]`): each pattern (a regex) belongs to
    ///   the bot named after the product token it matches in its `instances` (else the longest
    ///   word of the pattern). When that name is an existing bot's name or first token, the
    ///   pattern is added to that bot; otherwise a new bot of category `other` is appended.
    ///   Imported patterns rank below the catalog's own (see [`Catalog::identify`]).
    ///
    /// `name` labels the input in errors. On error the catalog is left unchanged.
    ///
    /// ```
    /// use robots_audit_bots::{Catalog, Identity};
    ///
    /// let mut catalog = Catalog::empty();
    /// let added = catalog
    ///     .extend_from_bytes(br#"[{"pattern": "Foo-?Crawler\\/", "instances": ["FooCrawler/2.0"]}]"#, "cua.json")
    ///     .unwrap();
    /// assert_eq!(added, 1);
    /// let Identity::Known(index) = catalog.identify(b"Foo-Crawler/3.1") else { panic!() };
    /// assert_eq!(catalog.bots()[index].name, "FooCrawler");
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
        let matcher =
            Matcher::build(&entries).map_err(|message| LoadError::new(name, None, message))?;
        let next = Catalog {
            bots,
            entries,
            matcher,
        };
        for (position, index) in to_check.into_iter().filter(|_| check_examples) {
            next.check_examples(index).map_err(|message| {
                LoadError::new(name, Some(Position::Entry(position)), message)
            })?;
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

    pub(crate) fn matcher(&self) -> &Matcher {
        &self.matcher
    }

    fn check_examples(&self, index: usize) -> Result<(), String> {
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
            return Err(format!(
                "example {example:?} is identified as {found}, not as this entry"
            ));
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
        let at = |message: String| LoadError::new(file, Some(Position::Entry(position)), message);
        let spec: OwnEntry = serde_json::from_value(item).map_err(|error| at(error.to_string()))?;
        let (bot, entry) = validate(spec).map_err(at)?;
        let index = match find_name(bots, &bot.name) {
            Some(index) => {
                if let Some((earlier, _)) = touched.iter().find(|(_, touched)| *touched == index) {
                    return Err(at(format!(
                        "the name {:?} is also used by entry {earlier}",
                        bot.name
                    )));
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

fn validate(spec: OwnEntry) -> Result<(Bot, Entry), String> {
    let name = spec.name.trim();
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(format!(
            "invalid name {:?}: it must be non-empty, without control characters",
            spec.name
        ));
    }
    if spec.tokens.is_empty() {
        return Err(format!(
            "{name}: `tokens` needs at least one robots.txt product token"
        ));
    }
    let mut tokens: Vec<String> = Vec::with_capacity(spec.tokens.len());
    for token in &spec.tokens {
        let token = token.to_ascii_lowercase();
        if let Some(problem) = token_problem(&token) {
            return Err(format!("{name}: invalid token {token:?}: {problem}"));
        }
        if tokens.contains(&token) {
            return Err(format!("{name}: token {token:?} is listed twice"));
        }
        tokens.push(token);
    }
    let mut patterns = Vec::with_capacity(spec.patterns.len() + spec.regexes.len());
    for literal in &spec.patterns {
        patterns.push(
            compile_pattern(&regex_syntax::escape(literal))
                .map_err(|e| format!("pattern {literal:?}: {e}"))?,
        );
    }
    for regex in &spec.regexes {
        patterns.push(compile_pattern(regex).map_err(|e| format!("regex {regex:?}: {e}"))?);
    }
    if patterns.is_empty() && !spec.examples.is_empty() {
        return Err(format!(
            "{name}: `examples` without `patterns` or `regexes` can never identify as it"
        ));
    }
    let policy = validate_policy(&spec).map_err(|problem| format!("{name}: {problem}"))?;
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
fn validate_policy(spec: &OwnEntry) -> Result<BotPolicy, String> {
    let source = |field: &str, url: &Option<String>, needed: bool| match url {
        Some(url) => match source_problem(url.trim()) {
            Some(problem) => Err(format!("`{field}` {url:?}: {problem}")),
            None => Ok(Some(url.trim().to_owned())),
        },
        None if needed => Err(format!(
            "`{field}` is required: the operator's page that documents it"
        )),
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
            return Err(format!("DNS suffix {suffix:?}: {problem}"));
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
                    return Err(format!("range list {list:?}: {problem}"));
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

/// Parses a pattern the way every catalog pattern is matched: case-insensitive (ASCII), on
/// bytes, so that user-agents with invalid UTF-8 still match.
pub(crate) fn compile_pattern(regex: &str) -> Result<Pattern, String> {
    let hir = ParserBuilder::new()
        .case_insensitive(true)
        .unicode(false)
        .utf8(false)
        .build()
        .parse(regex)
        .map_err(|error| error.to_string())?;
    match hir.properties().minimum_len() {
        Some(0) => {
            Err("it matches the empty string, so it would match every user-agent".to_owned())
        }
        Some(specificity) => Ok(Pattern {
            hir,
            specificity,
            imported: false,
        }),
        None => Err("it can never match".to_owned()),
    }
}

fn find_name(bots: &[Bot], name: &str) -> Option<usize> {
    bots.iter()
        .position(|bot| bot.name.eq_ignore_ascii_case(name))
}

/// One entry of the crawler-user-agents format; its other fields are not needed.
#[derive(Deserialize)]
struct CrawlerUserAgent {
    pattern: String,
    #[serde(default)]
    instances: Vec<String>,
}

fn add_crawler_user_agents(
    bots: &mut Vec<Bot>,
    entries: &mut Vec<Entry>,
    items: Vec<Value>,
    file: &str,
) -> Result<usize, LoadError> {
    let count = items.len();
    for (position, item) in items.into_iter().enumerate() {
        let at = |message: String| LoadError::new(file, Some(Position::Entry(position)), message);
        let spec: CrawlerUserAgent =
            serde_json::from_value(item).map_err(|error| at(error.to_string()))?;
        let mut pattern = compile_pattern(&spec.pattern)
            .map_err(|e| at(format!("pattern {:?}: {e}", spec.pattern)))?;
        pattern.imported = true;
        let name = crate::naming::imported_name(&spec.pattern, &pattern.hir, &spec.instances)
            .ok_or_else(|| {
                at(format!(
                    "pattern {:?}: no product name can be read from it",
                    spec.pattern
                ))
            })?;
        let existing = bots.iter().position(|bot| {
            bot.name.eq_ignore_ascii_case(&name)
                || bot
                    .tokens
                    .first()
                    .is_some_and(|t| t.eq_ignore_ascii_case(&name))
        });
        match existing.and_then(|index| entries.get_mut(index)) {
            Some(entry) => entry.patterns.push(pattern),
            None => {
                let token = name.to_ascii_lowercase();
                bots.push(Bot {
                    name,
                    tokens: vec![token],
                    operator: String::new(),
                    category: Category::Other,
                    policy: Arc::default(),
                });
                entries.push(Entry {
                    patterns: vec![pattern],
                    examples: Vec::new(),
                });
            }
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn category_names_round_trip() {
        for category in Category::ALL {
            assert_eq!(Category::from_name(category.as_str()), Some(category));
            assert_eq!(category.to_string(), category.as_str());
        }
    }

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
    fn pattern_specificity_is_minimum_match_length() {
        let cases: &[(&str, usize)] = &[
            ("Googlebot", 9),
            ("Googlebot\\/", 10),
            ("^FeedFetcher-Google", 18),
            ("AdsBot-Google([^-]|$)", 13),
            ("[wW]get", 4),
        ];
        for &(regex, specificity) in cases {
            assert_eq!(
                compile_pattern(regex).map(|p| p.specificity),
                Ok(specificity),
                "{regex}"
            );
        }
    }

    #[test]
    fn patterns_that_match_everything_or_nothing_are_rejected() {
        for regex in ["", "a*", "(?:)", "[^\\x00-\\xFF]", "foo("] {
            assert!(compile_pattern(regex).is_err(), "{regex}");
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
