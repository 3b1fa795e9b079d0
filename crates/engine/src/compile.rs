//! A group's rules compiled for matching (rep-reference sections 6, 7 and 9).
//!
//! Every non-empty rule becomes a candidate, plus one more for an allow rule that gets the
//! index.htm rewrite. Candidates are sorted best first: priority descending, allow before
//! disallow, file order. They are then cut into chunks in that order. A chunk is either one
//! multi-pattern automaton (`regex_automata::meta::Regex`, `MatchKind::All`, anchored, byte
//! oriented) whose single overlapping search yields every matching candidate, or, when a chunk
//! would blow the automaton budget, a list scanned with the linear wildcard matcher. Because the
//! chunks keep the global order, the first matching candidate of the first chunk with a match is
//! the group's winner.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;

use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind, PatternSet, meta};

use crate::pattern::{glob_matches_parts, index_htm_prefix};
use crate::{Rule, RuleId, RuleKind};

/// Fewest candidates worth an automaton. A meta regex costs about 12 KiB even for one pattern,
/// while a handful of candidates is matched faster by the fallback's hash lookups and scans, and
/// many real groups hold a single `Disallow: /`.
const MIN_AUTOMATON_CANDIDATES: usize = 8;
/// Most candidates in one automaton. It also bounds the per-search cost of clearing and
/// scanning the match set.
const CHUNK_CANDIDATES: usize = 512;
/// Most pattern bytes in one automaton, which bounds the size of its lazy DFA states.
const CHUNK_PATTERN_BYTES: usize = 16 * 1024;
/// Most pattern bytes a group puts into automata. An automaton holds about a hundred bytes per
/// pattern byte (forward and reverse NFA, lazy DFA states), so the lowest-ranked candidates of
/// a huge group go to the fallback matcher instead.
pub(crate) const GROUP_AUTOMATON_BYTES: usize = 128 * 1024;
/// Patterns with more wildcards than this go to the fallback matcher: their lazy DFA states
/// are sets of positions that grow with every `*`, which thrashes the cache and makes the meta
/// engine fall back to its PikeVM, slower than the linear matcher.
const AUTOMATON_MAX_STARS: usize = 16;
/// Patterns longer than this go to the fallback matcher.
const AUTOMATON_MAX_PATTERN_BYTES: usize = 4 * 1024;
/// Size limit of one chunk's Thompson NFA; a chunk over it uses the fallback matcher.
const NFA_SIZE_LIMIT: usize = 4 << 20;
/// Capacity of the lazy DFA cache of one chunk, per thread that uses it.
const HYBRID_CACHE_CAPACITY: usize = 1 << 20;

thread_local! {
    /// Match sets kept per thread so that a verdict does not allocate, one per power-of-two
    /// capacity: clearing and scanning a set costs its capacity, so each search uses the
    /// smallest set that holds its automaton's patterns. Sets are empty between searches.
    static MATCH_SETS: RefCell<Vec<Option<PatternSet>>> = const { RefCell::new(Vec::new()) };
}

/// One way a rule can match: the rule itself, or its index.htm rewrite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub(crate) rule: RuleId,
    /// The byte length of the pattern that matched.
    pub(crate) priority: u32,
    pub(crate) allow: bool,
    /// Whether this is the `prefix/$` rewrite of an allow rule ending in `/index.htm…`.
    rewrite: bool,
}

impl Candidate {
    /// Smaller is better: Google's precedence, then file order for the reported rule.
    fn rank(&self) -> (Reverse<u32>, bool, RuleId) {
        (Reverse(self.priority), !self.allow, self.rule)
    }

    /// Whether `self` wins over `other`.
    pub(crate) fn beats(&self, other: &Candidate) -> bool {
        self.rank() < other.rank()
    }

    /// The pattern body and whether it is anchored at the end, for the linear matcher.
    fn parts<'r>(&self, rules: &'r [Rule]) -> (&'r [u8], bool) {
        let pattern = rules
            .get(self.rule as usize)
            .map(|rule| &*rule.pattern)
            .unwrap_or_default();
        if self.rewrite {
            let prefix = (self.priority as usize).saturating_sub(1);
            (pattern.get(..prefix).unwrap_or_default(), true)
        } else {
            match pattern.split_last() {
                Some((b'$', body)) => (body, true),
                _ => (pattern, false),
            }
        }
    }

    fn matches(&self, rules: &[Rule], path: &[u8]) -> bool {
        let (body, anchored_end) = self.parts(rules);
        glob_matches_parts(body, anchored_end, path)
    }
}

#[derive(Debug, Clone)]
enum Engine {
    Automaton(meta::Regex),
    Fallback(Fallback),
}

#[derive(Debug, Clone)]
struct Chunk {
    candidates: Box<[Candidate]>,
    engine: Engine,
}

/// The compiled rules of one group.
#[derive(Debug, Clone)]
pub(crate) struct GroupMatcher {
    chunks: Box<[Chunk]>,
}

impl GroupMatcher {
    /// Compiles the rules `range` of `rules`, putting at most `automaton_budget` pattern bytes
    /// into automata.
    pub(crate) fn new(
        rules: &[Rule],
        range: Range<RuleId>,
        automaton_budget: usize,
    ) -> GroupMatcher {
        let mut candidates = Vec::new();
        for id in range {
            let Some(rule) = rules.get(id as usize) else {
                break;
            };
            if rule.pattern.is_empty() {
                // An empty pattern matches with priority 0, which never decides.
                continue;
            }
            let allow = rule.kind == RuleKind::Allow;
            candidates.push(Candidate {
                rule: id,
                priority: priority(rule.pattern.len()),
                allow,
                rewrite: false,
            });
            if let Some(prefix) = index_htm_prefix(&rule.pattern).filter(|_| allow) {
                candidates.push(Candidate {
                    rule: id,
                    priority: priority(prefix + 1),
                    allow,
                    rewrite: true,
                });
            }
        }
        candidates.sort_unstable_by_key(Candidate::rank);
        GroupMatcher {
            chunks: Chunker::new(rules, automaton_budget).run(candidates),
        }
    }

    /// The winning candidate for `path`, if any rule of the group matches it.
    pub(crate) fn best(&self, rules: &[Rule], path: &[u8]) -> Option<Candidate> {
        self.chunks.iter().find_map(|chunk| chunk.best(rules, path))
    }
}

fn priority(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// Cuts candidates, sorted best first, into chunks that keep that order.
struct Chunker<'r> {
    rules: &'r [Rule],
    chunks: Vec<Chunk>,
    automaton: Vec<Candidate>,
    automaton_bytes: usize,
    fallback: Vec<Candidate>,
    /// Pattern bytes that may still go into automata.
    budget: usize,
}

impl<'r> Chunker<'r> {
    fn new(rules: &'r [Rule], budget: usize) -> Chunker<'r> {
        Chunker {
            rules,
            chunks: Vec::new(),
            automaton: Vec::new(),
            automaton_bytes: 0,
            fallback: Vec::new(),
            budget,
        }
    }

    fn run(mut self, candidates: Vec<Candidate>) -> Box<[Chunk]> {
        for candidate in candidates {
            let (body, _) = candidate.parts(self.rules);
            // Every pattern costs NFA states beyond its bytes, so even `$` costs one.
            let cost = body.len() + 1;
            let fits = cost <= self.budget
                && body.len() <= AUTOMATON_MAX_PATTERN_BYTES
                && memchr::memchr_iter(b'*', body).count() <= AUTOMATON_MAX_STARS;
            if !fits {
                self.flush_automaton();
                self.fallback.push(candidate);
                continue;
            }
            self.flush_fallback();
            if self.automaton.len() == CHUNK_CANDIDATES
                || self.automaton_bytes + body.len() > CHUNK_PATTERN_BYTES
            {
                self.flush_automaton();
            }
            self.budget -= cost;
            self.automaton_bytes += body.len();
            self.automaton.push(candidate);
        }
        self.flush_automaton();
        self.flush_fallback();
        self.chunks.into_boxed_slice()
    }

    fn flush_fallback(&mut self) {
        if !self.fallback.is_empty() {
            let candidates = std::mem::take(&mut self.fallback).into_boxed_slice();
            let engine = Engine::Fallback(Fallback::new(self.rules, &candidates));
            self.chunks.push(Chunk { candidates, engine });
        }
    }

    fn flush_automaton(&mut self) {
        self.automaton_bytes = 0;
        if self.automaton.is_empty() {
            return;
        }
        let candidates = std::mem::take(&mut self.automaton).into_boxed_slice();
        let regex = (candidates.len() >= MIN_AUTOMATON_CANDIDATES)
            .then(|| build_automaton(self.rules, &candidates))
            .flatten();
        let engine = match regex {
            Some(regex) => Engine::Automaton(regex),
            None => Engine::Fallback(Fallback::new(self.rules, &candidates)),
        };
        self.chunks.push(Chunk { candidates, engine });
    }
}

/// The matcher for candidates that do not go into an automaton. Candidates are scanned in rank
/// order with the linear wildcard matcher, except that when there are many wildcard-free
/// patterns, those are looked up by the path's prefixes in hash tables instead.
#[derive(Debug, Clone)]
struct Fallback {
    literals: Option<Box<Literals>>,
    /// Candidates to scan, best first.
    scan: Box<[Candidate]>,
}

/// Wildcard-free patterns by their bytes, with the best candidate for each.
#[derive(Debug, Clone, Default)]
struct Literals {
    /// Patterns matched as prefixes.
    prefixes: HashMap<Box<[u8]>, Candidate>,
    /// Patterns that end with `$`, matched against the whole path.
    exact: HashMap<Box<[u8]>, Candidate>,
    /// The lengths of the keys of `prefixes`, longest first.
    lengths: Box<[usize]>,
}

/// Wildcard-free candidates from which hashing beats scanning.
const MIN_LITERAL_TABLE: usize = 32;

impl Fallback {
    fn new(rules: &[Rule], candidates: &[Candidate]) -> Fallback {
        let is_literal = |candidate: &&Candidate| !candidate.parts(rules).0.contains(&b'*');
        if candidates.iter().filter(is_literal).count() < MIN_LITERAL_TABLE {
            return Fallback {
                literals: None,
                scan: candidates.into(),
            };
        }
        let mut literals = Literals::default();
        // Candidates come best first, so the first one stored under a pattern is its winner.
        for candidate in candidates.iter().filter(is_literal) {
            let (body, anchored_end) = candidate.parts(rules);
            let table = if anchored_end { &mut literals.exact } else { &mut literals.prefixes };
            table.entry(body.into()).or_insert(*candidate);
        }
        let mut lengths: Vec<usize> = literals.prefixes.keys().map(|key| key.len()).collect();
        lengths.sort_unstable_by(|a, b| b.cmp(a));
        lengths.dedup();
        literals.lengths = lengths.into_boxed_slice();
        Fallback {
            literals: Some(Box::new(literals)),
            scan: candidates.iter().filter(|c| !is_literal(c)).copied().collect(),
        }
    }

    fn best(&self, rules: &[Rule], path: &[u8]) -> Option<Candidate> {
        let scanned = self
            .scan
            .iter()
            .find(|candidate| candidate.matches(rules, path))
            .copied();
        let Some(literals) = &self.literals else {
            return scanned;
        };
        // Among literal prefixes the longest wins, and each pattern keeps its best candidate.
        let prefix = literals
            .lengths
            .iter()
            .filter_map(|&len| path.get(..len))
            .find_map(|prefix| literals.prefixes.get(prefix).copied());
        let exact = literals.exact.get(path).copied();
        [scanned, prefix, exact]
            .into_iter()
            .flatten()
            .reduce(|best, next| if next.beats(&best) { next } else { best })
    }
}

/// The regex of one candidate: literal bytes escaped, runs of `*` as one `(?s:.)*`, an end
/// anchor as `\z`, and trailing wildcards of an unanchored pattern dropped since matching is by
/// prefix anyway.
fn regex_source(body: &[u8], anchored_end: bool) -> String {
    let body = if anchored_end {
        body
    } else {
        let kept = body
            .iter()
            .rposition(|b| *b != b'*')
            .map_or(0, |last| last + 1);
        body.get(..kept).unwrap_or_default()
    };
    let mut source = String::with_capacity(body.len() * 2 + 6);
    source.push_str(r"\A");
    let mut after_star = false;
    for &byte in body {
        if byte == b'*' {
            if !after_star {
                source.push_str("(?s:.)*");
            }
            after_star = true;
            continue;
        }
        after_star = false;
        if byte.is_ascii_alphanumeric() || byte == b'/' {
            source.push(char::from(byte));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(source, r"\x{byte:02X}");
        }
    }
    if anchored_end {
        source.push_str(r"\z");
    }
    source
}

fn build_automaton(rules: &[Rule], candidates: &[Candidate]) -> Option<meta::Regex> {
    let sources: Vec<String> = candidates
        .iter()
        .map(|candidate| {
            let (body, anchored_end) = candidate.parts(rules);
            regex_source(body, anchored_end)
        })
        .collect();
    meta::Regex::builder()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .configure(
            meta::Regex::config()
                .match_kind(MatchKind::All)
                .utf8_empty(false)
                .auto_prefilter(false)
                .which_captures(WhichCaptures::None)
                .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                .hybrid_cache_capacity(HYBRID_CACHE_CAPACITY)
                // The lazy DFA is as fast once warm; a full DFA only adds build time.
                .dfa(false)
                .onepass(false)
                .backtrack(false),
        )
        .build_many(&sources)
        .ok()
}

impl Chunk {
    fn best(&self, rules: &[Rule], path: &[u8]) -> Option<Candidate> {
        match &self.engine {
            Engine::Fallback(fallback) => fallback.best(rules, path),
            Engine::Automaton(regex) => {
                let first = first_match(regex, path)?;
                self.candidates.get(first).copied()
            }
        }
    }
}

/// The smallest pattern ID of `regex` that matches `path` from its start.
fn first_match(regex: &meta::Regex, path: &[u8]) -> Option<usize> {
    let input = Input::new(path).anchored(Anchored::Yes);
    let search = |set: &mut PatternSet| {
        regex.which_overlapping_matches(&input, set);
        if set.is_empty() {
            return None;
        }
        let first = set.iter().next().map(|id| id.as_usize());
        set.clear();
        first
    };
    let capacity = regex.pattern_len().next_power_of_two();
    let slot = capacity.trailing_zeros() as usize;
    let reused = MATCH_SETS.try_with(|cell| {
        let mut sets = cell.try_borrow_mut().ok()?;
        if sets.len() <= slot {
            sets.resize_with(slot + 1, || None);
        }
        let set = sets.get_mut(slot)?.get_or_insert_with(|| PatternSet::new(capacity));
        Some(search(set))
    });
    match reused {
        Ok(Some(first)) => first,
        // Only while the thread shuts down: a set of our own is correct, just slower.
        _ => search(&mut PatternSet::new(regex.pattern_len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::glob_matches;
    use proptest::prelude::*;

    fn rule(id: u32, kind: RuleKind, pattern: &[u8]) -> Rule {
        Rule {
            kind,
            pattern: pattern.into(),
            text: String::new(),
            line: id + 1,
            group: 0,
        }
    }

    /// Google's position-set matcher, written independently of both engines.
    fn reference_matches(pattern: &[u8], path: &[u8]) -> bool {
        let mut positions = vec![0usize];
        for (i, &byte) in pattern.iter().enumerate() {
            if byte == b'$' && i + 1 == pattern.len() {
                return positions.last() == Some(&path.len());
            }
            if byte == b'*' {
                let from = positions[0];
                positions = (from..=path.len()).collect();
            } else {
                positions = positions
                    .into_iter()
                    .filter(|&at| path.get(at) == Some(&byte))
                    .map(|at| at + 1)
                    .collect();
                if positions.is_empty() {
                    return false;
                }
            }
        }
        true
    }

    fn reference_best(rules: &[Rule], path: &[u8]) -> Option<(u32, bool)> {
        let mut best: Option<(u32, bool, u32)> = None;
        for (id, rule) in (0..).zip(rules) {
            let allow = rule.kind == RuleKind::Allow;
            let mut consider = |priority: u32| {
                let better = match best {
                    None => true,
                    Some((p, a, _)) => priority > p || (priority == p && allow && !a),
                };
                if better {
                    best = Some((priority, allow, id));
                }
            };
            if rule.pattern.is_empty() {
                continue;
            }
            if reference_matches(&rule.pattern, path) {
                consider(priority(rule.pattern.len()));
            } else if allow {
                if let Some(prefix) = index_htm_prefix(&rule.pattern) {
                    let mut rewritten = rule.pattern[..prefix].to_vec();
                    rewritten.push(b'$');
                    if reference_matches(&rewritten, path) {
                        consider(priority(rewritten.len()));
                    }
                }
            }
        }
        best.map(|(_, allow, id)| (id, allow))
    }

    fn winner(matcher: &GroupMatcher, rules: &[Rule], path: &[u8]) -> Option<(u32, bool)> {
        matcher
            .best(rules, path)
            .map(|candidate| (candidate.rule, candidate.allow))
    }

    fn pattern_strategy() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop::sample::select(vec![
            b'*', b'*', b'$', b'$', b'/', b'/', b'a', b'b', b'?', b'%', b'2', b'F', b'.',
        ]);
        prop::collection::vec(byte, 0..8)
    }

    fn path_strategy() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop::sample::select(vec![
            b'/', b'a', b'b', b'$', b'*', b'?', b'%', b'2', b'F', b'.',
        ]);
        prop::collection::vec(byte, 0..10).prop_map(|mut tail| {
            tail.insert(0, b'/');
            tail
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn linear_matcher_agrees_with_position_sets(pattern in pattern_strategy(), path in path_strategy()) {
            prop_assert_eq!(glob_matches(&pattern, &path), reference_matches(&pattern, &path));
        }

        #[test]
        fn scanned_groups_agree_with_the_reference(
            patterns in prop::collection::vec((any::<bool>(), pattern_strategy()), 1..12),
            path in path_strategy(),
        ) {
            let rules: Vec<Rule> = (0..).zip(&patterns).map(|(id, (allow, pattern))| {
                rule(id, if *allow { RuleKind::Allow } else { RuleKind::Disallow }, pattern)
            }).collect();
            let matcher = GroupMatcher::new(&rules, 0..priority(rules.len()), 0);
            prop_assert_eq!(winner(&matcher, &rules, &path), reference_best(&rules, &path));
        }
    }

    #[test]
    fn regex_sources_escape_and_collapse() {
        assert_eq!(regex_source(b"/a**b", false), r"\A/a(?s:.)*b");
        assert_eq!(regex_source(b"/a*", false), r"\A/a");
        assert_eq!(regex_source(b"/a*", true), r"\A/a(?s:.)*\z");
        assert_eq!(regex_source(b"/a.b?$", false), r"\A/a\x2Eb\x3F\x24");
        assert_eq!(regex_source(b"**", false), r"\A");
    }

    #[test]
    fn chunks_keep_the_global_order() {
        // More candidates than one automaton holds, heavy patterns in between and duplicate
        // literals, so that matches land in automata, in fallback tables and scans, and across
        // chunk borders.
        let mut rules = Vec::new();
        for i in 0..(CHUNK_CANDIDATES as u32 * 3) {
            let kind = if i % 3 == 0 {
                RuleKind::Allow
            } else {
                RuleKind::Disallow
            };
            let pattern = match i % 8 {
                0 => format!("/{}*", i % 40).into_bytes(),
                1 => format!("/*{}$", i % 30).into_bytes(),
                2 => {
                    let mut heavy = b"/".to_vec();
                    for _ in 0..=AUTOMATON_MAX_STARS {
                        heavy.extend_from_slice(b"*1");
                    }
                    heavy
                }
                3 => b"/index.html".to_vec(),
                4 => format!("/{}/{}$", i % 11, i % 13).into_bytes(),
                _ => format!("/{}/{}", i % 11, i % 13).into_bytes(),
            };
            rules.push(rule(i, kind, &pattern));
        }
        let range = 0..priority(rules.len());
        let full = GroupMatcher::new(&rules, range.clone(), GROUP_AUTOMATON_BYTES);
        let partial = GroupMatcher::new(&rules, range.clone(), 2_000);
        let none = GroupMatcher::new(&rules, range, 0);
        let automata = |m: &GroupMatcher| {
            m.chunks
                .iter()
                .filter(|c| matches!(c.engine, Engine::Automaton(_)))
                .count()
        };
        assert!(automata(&full) >= 3);
        assert!(
            full.chunks
                .iter()
                .any(|c| matches!(c.engine, Engine::Fallback(_)))
        );
        assert!(automata(&partial) >= 1);
        assert!(matches!(
            partial.chunks.last().map(|c| &c.engine),
            Some(Engine::Fallback(_))
        ));
        assert_eq!(automata(&none), 0);
        let mut paths: Vec<Vec<u8>> = Vec::new();
        for a in 0..12 {
            for b in 0..14 {
                paths.push(format!("/{a}/{b}").into_bytes());
                paths.push(format!("/{a}/{b}x").into_bytes());
            }
        }
        for extra in [
            "/",
            "/1",
            "/x1111111111111111111",
            "/7",
            "/a29",
            "/b/",
            "/index.html",
        ] {
            paths.push(extra.as_bytes().to_vec());
        }
        for path in &paths {
            let expected = reference_best(&rules, path);
            for matcher in [&full, &partial, &none] {
                assert_eq!(winner(matcher, &rules, path), expected, "path {path:?}");
            }
        }
    }

    #[test]
    fn small_and_oversized_chunks_use_the_fallback() {
        let mut oversized = b"/".to_vec();
        oversized.resize(AUTOMATON_MAX_PATTERN_BYTES + 1, b'a');
        let mut rules: Vec<Rule> = (0..MIN_AUTOMATON_CANDIDATES as u32)
            .map(|i| rule(i, RuleKind::Disallow, format!("/x{i}").as_bytes()))
            .collect();
        rules.push(rule(99, RuleKind::Allow, &oversized));
        let all = GroupMatcher::new(&rules, 0..priority(rules.len()), GROUP_AUTOMATON_BYTES);
        let engines: Vec<bool> = all
            .chunks
            .iter()
            .map(|c| matches!(c.engine, Engine::Automaton(_)))
            .collect();
        assert_eq!(engines, [false, true]);
        let mut path = oversized.clone();
        path.push(b'a');
        assert_eq!(winner(&all, &rules, &path), Some((8, true)));
        assert_eq!(winner(&all, &rules, b"/x3/y"), Some((3, false)));

        let few = GroupMatcher::new(&rules, 0..3, GROUP_AUTOMATON_BYTES);
        assert!(matches!(
            few.chunks[..],
            [Chunk {
                engine: Engine::Fallback(_),
                ..
            }]
        ));
        assert_eq!(winner(&few, &rules, b"/x2"), Some((2, false)));
    }
}
