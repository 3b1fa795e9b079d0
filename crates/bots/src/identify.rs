//! Identifying the bot behind a User-Agent header.
//!
//! Every catalog pattern is compiled once into one multi-pattern regex that reports every
//! matching pattern; a header is then decided in this order, the first that applies winning:
//!
//! 1. **A curated pattern** (one of the project's own catalog format, built in or loaded with
//!    `--bots`): the bot of the most specific matching pattern, where a longer minimum match is
//!    more specific (for a literal, its length: `Googlebot-Image` beats `Googlebot`,
//!    `AdsBot-Google-Mobile` beats `AdsBot-Google`, `TelegramBot` beats `Twitterbot` in
//!    `TelegramBot (like TwitterBot)`), then the bot listed first. Entries that other
//!    user-agents quote are anchored in the catalog instead (`^FeedFetcher-Google`, so
//!    `Feedly/1.0 (...; like FeedFetcher-Google)` stays Feedly), and a literal pattern whose
//!    every occurrence follows `like` or `compatible with` does not count: the header compares
//!    itself to that bot (`SentiBot (compatible with Googlebot)` is SentiBot).
//! 2. **A declared bot**: the header declares itself a bot by the rule of
//!    [`declared`] (its module docs state the rule); it is an
//!    [`Identity::Unknown`] bot named after its product token.
//! 3. **An imported pattern** (from a crawler-user-agents list): the most specific matching
//!    one says the header is a bot, and the bot is the product whose name the match falls in,
//!    read in this header (the list's `[wW]get` makes `GNU wget2/2.0` the bot `wget2`, not
//!    `Wget`). That product is the catalog bot of that name or first token when there is one,
//!    else an unknown bot of that name. A match outside any product (inside a contact URL)
//!    gives the bot the list's instances name for that pattern.
//!
//! Because a list's patterns come last, loading one never changes the identity, or the robots
//! tokens, of a header that the catalog's own patterns or the declared-bot rule identify: it only
//! turns headers that would not be bots into bots.
//!
//! Everything else is [`Identity::NotBot`].

use regex_automata::nfa::thompson::Compiler;
use regex_automata::nfa::thompson::pikevm::PikeVM;
use regex_automata::util::primitives::PatternID;
use regex_automata::{Input, MatchKind, PatternSet, meta};
use regex_syntax::ParserBuilder;
use regex_syntax::hir::Hir;

use crate::bot::{Bot, Category};
use crate::declared;
use crate::error::PatternError;
use crate::naming;

/// Upper bound on the size of the compiled pattern set. The built-in catalog needs well under a
/// megabyte; a crawler-user-agents import (about 1,500 patterns) a few megabytes.
const NFA_SIZE_LIMIT: usize = 64 << 20;

/// Room for the lazy DFA of each searching thread. Reporting every matching pattern builds large
/// DFA states; with the default 2 MiB a crawler-user-agents import keeps clearing the cache and
/// falling back to the much slower NFA simulation. 16 MiB keeps warm look-ups at a few
/// microseconds (measured on real logs) while bounding memory per thread.
const DFA_CACHE_CAPACITY: usize = 16 << 20;

/// Who sent a request, as far as its User-Agent header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// A catalog bot: the index into [`Catalog::bots`](crate::Catalog::bots).
    Known(usize),
    /// A bot no catalog entry names: it declares itself one (see the
    /// [crate docs](crate#who-counts-as-a-bot)), or an imported pattern matched a product of a
    /// name the catalog does not have. It is named after the product that declares it, as
    /// written; its robots.txt tokens follow from that name alone: the name in lower case (its
    /// words run together when it has several), then its first word, then the name without a
    /// final `bot` or `robot` (`Veoozbot` answers to `veoozbot`, then `veooz`). It has no
    /// operator and its category is [`Category::Other`].
    Unknown(Bot),
    /// Anything else: browsers, people's own applications, and generic HTTP clients such as
    /// `curl/8.5.0`, `python-requests/2.31.0` or `Go-http-client/1.1` unless a catalog entry
    /// lists them.
    NotBot,
}

impl Identity {
    /// An unknown bot named `name`, with the tokens its name gives
    /// ([`tokens_of`](naming::tokens_of)).
    fn unknown(name: String) -> Identity {
        Identity::Unknown(Bot {
            tokens: naming::tokens_of(&name),
            name,
            operator: String::new(),
            category: Category::Other,
            policy: Default::default(),
        })
    }
}

/// How a pattern is written in its catalog file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// A literal substring (`patterns`).
    Literal,
    /// A regular expression (`regexes`, and every crawler-user-agents `pattern`).
    Regex,
}

/// One compiled user-agent pattern.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    /// As written in its file, so the catalog can be listed as it was loaded.
    pub(crate) source: String,
    pub(crate) syntax: Syntax,
    /// Case-insensitive, byte-oriented.
    pub(crate) hir: Hir,
    /// The fewest bytes any match spans (for a literal, its length): the more, the more
    /// specific, and the most specific matching pattern decides which bot a user-agent is.
    pub(crate) specificity: usize,
    /// For a pattern from a crawler-user-agents list (outranked by every curated pattern and by
    /// the declared-bot rule): a searcher that finds where it matches, since the product the
    /// match falls in names the bot.
    pub(crate) locator: Option<PikeVM>,
}

impl Pattern {
    /// Marks the pattern as imported from a crawler-user-agents list.
    pub(crate) fn into_imported(self) -> Result<Pattern, PatternError> {
        // A bare NFA simulation: the locator runs once per distinct header that only an
        // imported pattern identifies, where a full `meta::Regex` per pattern would cost far
        // more to build for the ~1,500 patterns of a list.
        let locator = Compiler::new()
            .build_from_hir(&self.hir)
            .and_then(PikeVM::new_from_nfa)
            .map_err(|error| PatternError::Locator(Box::new(error)))?;
        Ok(Pattern {
            locator: Some(locator),
            ..self
        })
    }

    /// Where the pattern first matches in `haystack` (for imported patterns only).
    pub(crate) fn locate(&self, haystack: &[u8]) -> Option<(usize, usize)> {
        locate(self.locator.as_ref()?, haystack)
    }
}

fn locate(locator: &PikeVM, haystack: &[u8]) -> Option<(usize, usize)> {
    let mut cache = locator.create_cache();
    locator
        .find(&mut cache, haystack)
        .map(|found| (found.start(), found.end()))
}

/// Parses a pattern the way every catalog pattern is matched: case-insensitive (ASCII), on
/// bytes, so that user-agents with invalid UTF-8 still match.
pub(crate) fn compile_pattern(source: &str, syntax: Syntax) -> Result<Pattern, PatternError> {
    let regex = match syntax {
        Syntax::Literal => regex_syntax::escape(source),
        Syntax::Regex => source.to_owned(),
    };
    let hir = ParserBuilder::new()
        .case_insensitive(true)
        .unicode(false)
        .utf8(false)
        .build()
        .parse(&regex)
        .map_err(|error| PatternError::Syntax(Box::new(error)))?;
    match hir.properties().minimum_len() {
        Some(0) => Err(PatternError::MatchesEmpty),
        Some(specificity) => Ok(Pattern {
            source: source.to_owned(),
            syntax,
            hir,
            specificity,
            locator: None,
        }),
        None => Err(PatternError::NeverMatches),
    }
}

/// Which bot a pattern belongs to, and how specific it is.
#[derive(Debug, Clone)]
struct Owner {
    bot: usize,
    specificity: usize,
    /// `Some` for an imported pattern (see [`Pattern::locator`]).
    locator: Option<PikeVM>,
    /// A curated literal pattern in ASCII lower case, to tell where the header only compares
    /// itself to that bot ([`only_compared`]).
    literal: Option<Box<[u8]>>,
}

/// Every catalog pattern, compiled into one regex.
#[derive(Debug, Clone, Default)]
pub(crate) struct Matcher {
    /// `None` when the catalog has no patterns.
    regex: Option<meta::Regex>,
    /// Indexed by pattern ID.
    owners: Vec<Owner>,
}

impl Matcher {
    /// Compiles `(bot index, pattern)` pairs.
    pub(crate) fn build<'a>(
        patterns: impl IntoIterator<Item = (usize, &'a Pattern)>,
    ) -> Result<Matcher, PatternError> {
        let mut hirs = Vec::new();
        let mut owners = Vec::new();
        for (bot, pattern) in patterns {
            hirs.push(&pattern.hir);
            owners.push(Owner {
                bot,
                specificity: pattern.specificity,
                locator: pattern.locator.clone(),
                literal: (pattern.syntax == Syntax::Literal && pattern.locator.is_none())
                    .then(|| pattern.source.to_ascii_lowercase().into_bytes().into()),
            });
        }
        if hirs.is_empty() {
            return Ok(Matcher::default());
        }
        let config = meta::Config::new()
            .match_kind(MatchKind::All)
            // `best` runs once per distinct header and thread, and an overlapping search scans
            // the whole header anyway: a prefilter saved nothing there, and building it cost 90
            // million instructions (about 25 ms) at every start.
            .auto_prefilter(false)
            .nfa_size_limit(Some(NFA_SIZE_LIMIT))
            .hybrid_cache_capacity(DFA_CACHE_CAPACITY);
        let regex = meta::Regex::builder()
            .configure(config)
            .build_many_from_hir(&hirs)
            .map_err(|error| PatternError::Matcher(Box::new(error)))?;
        Ok(Matcher {
            regex: Some(regex),
            owners,
        })
    }

    /// The most specific matching pattern: curated ones before imported ones, then the longest
    /// minimum match, then the bot listed first. A curated literal that the header only names
    /// to compare itself to (`... like Googlebot`) does not count.
    fn best(&self, haystack: &[u8]) -> Option<&Owner> {
        let regex = self.regex.as_ref()?;
        let mut matched = PatternSet::new(regex.pattern_len());
        regex.which_overlapping_matches(&Input::new(haystack), &mut matched);
        // Most headers hold no comparison: only those that may are lowered and looked at.
        let lowered = may_compare(haystack).then(|| haystack.to_ascii_lowercase());
        matched
            .iter()
            .filter_map(|id: PatternID| self.owners.get(id.as_usize()))
            .filter(|owner| match (&lowered, &owner.literal) {
                (Some(lowered), Some(literal)) => !only_compared(lowered, literal),
                _ => true,
            })
            .max_by(|a, b| {
                (a.locator.is_none(), a.specificity)
                    .cmp(&(b.locator.is_none(), b.specificity))
                    .then(b.bot.cmp(&a.bot))
            })
    }
}

/// Whether `haystack` holds a word after which a bot's name is a comparison (see
/// [`only_compared`]).
fn may_compare(haystack: &[u8]) -> bool {
    haystack
        .windows(4)
        .any(|word| word.eq_ignore_ascii_case(b"like") || word.eq_ignore_ascii_case(b"with"))
}

/// Whether every place `literal` occurs in `lowered` (both in ASCII lower case) follows `like`
/// or `compatible with` and a space: the header names that bot to say it resembles it
/// (`FreshRSS/1.11 (...) like Googlebot`, `SentiBot (compatible with Googlebot)`), which makes
/// it no more that bot than [`declared`]'s rule makes it a bot of that name.
fn only_compared(lowered: &[u8], literal: &[u8]) -> bool {
    let mut occurrences = lowered
        .windows(literal.len())
        .enumerate()
        .filter(|(_, window)| *window == literal)
        .map(|(at, _)| lowered.get(..at).unwrap_or_default())
        .peekable();
    occurrences.peek().is_some()
        && occurrences.all(|before| {
            let Some(words) = before.strip_suffix(b" ").map(<[u8]>::trim_ascii_end) else {
                return false;
            };
            last_word(words, b"like").is_some()
                || last_word(words, b"with")
                    .and_then(|rest| rest.strip_suffix(b" "))
                    .and_then(|rest| last_word(rest.trim_ascii_end(), b"compatible"))
                    .is_some()
        })
}

/// What comes before `word` when `text` ends with it as a whole word.
fn last_word<'a>(text: &'a [u8], word: &[u8]) -> Option<&'a [u8]> {
    text.strip_suffix(word)
        .filter(|rest| rest.last().is_none_or(|b| !b.is_ascii_alphanumeric()))
}

/// Identifies `user_agent` against `bots` and their compiled patterns (see the module docs).
pub(crate) fn identify(bots: &[Bot], matcher: &Matcher, user_agent: &[u8]) -> Identity {
    let best = matcher.best(user_agent);
    let imported = match best {
        Some(owner) if owner.locator.is_none() => return Identity::Known(owner.bot),
        Some(owner) => owner.locator.as_ref().map(|locator| (owner.bot, locator)),
        None => None,
    };
    if let Some(name) = declared::declared_name(user_agent) {
        return Identity::unknown(name);
    }
    let Some((default_bot, locator)) = imported else {
        return Identity::NotBot;
    };
    let product = locate(locator, user_agent)
        .and_then(|(start, end)| naming::name_around(user_agent, start, end));
    match product {
        None => Identity::Known(default_bot),
        Some(name) => match naming::find_bot(bots, name) {
            Some(index) => Identity::Known(index),
            None => Identity::unknown(name.to_owned()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                compile_pattern(regex, Syntax::Regex)
                    .ok()
                    .map(|p| p.specificity),
                Some(specificity),
                "{regex}"
            );
        }
    }

    #[test]
    fn patterns_that_match_everything_or_nothing_are_rejected() {
        for regex in ["", "a*", "(?:)", "[^\\x00-\\xFF]", "foo("] {
            assert!(compile_pattern(regex, Syntax::Regex).is_err(), "{regex}");
        }
    }
}
