//! A group's rules compiled for matching (precedence, wildcards and the index.htm rewrite of
//! `docs/robots-txt.md`).
//!
//! Every non-empty rule becomes a candidate, plus one more for an allow rule that gets the
//! index.htm rewrite. Candidates are sorted best first: priority descending, allow before
//! disallow, file order. They are then cut into chunks in that order. A chunk is either one
//! multi-pattern automaton, or, for candidates beyond the automaton budget, a fallback matcher.
//! Because the chunks keep the global order, the best candidate of the first chunk with a match
//! is the group's winner. [`MatchStrategy`] chooses which chunks are built: the engine's own
//! choice, or one kind of matcher forced for testing and diagnosis.
//!
//! The automaton is regex-automata's lazy DFA (the engine `meta::Regex` runs underneath) built
//! from all the chunk's patterns with `MatchKind::All`, anchored and byte oriented. A verdict walks
//! it once over the path, overlapping, and keeps the smallest pattern ID among the match states
//! it passes: pattern IDs follow the candidates' order, so that is the winner. Driving the lazy
//! DFA directly instead of through `meta::Regex::which_overlapping_matches` avoids a match set
//! per search and the wrapper's indirections, which halves the cost of a check.
//!
//! # A lazy DFA search never decides by failing
//!
//! A search that gives up and reported "no rule matched" would silently allow: the worst
//! failure an auditor can have. So every way a search can fail ([`GaveUp`]) sends the chunk to
//! the *linear fallback*: its candidates, in rank order, each matched with the linear wildcard
//! matcher of the fallback chunks, the first match being the winner. The ways are:
//!
//! - no start state (a [`MatchError`]): the cache could not make room for it under a
//!   cache-clear limit, a quit byte before the start, or an anchor mode the DFA does not
//!   support;
//! - a transition, or the end-of-input transition, that needs a new state the cache cannot make
//!   room for ([`CacheError`]);
//! - the walk entering a quit state.
//!
//! The production configuration allows only one of them, on purpose, and a unit test checks it
//! (`production_lazy_dfas_give_up_only_when_thrashing`): no byte is a quit byte (none is set,
//! and Unicode word boundaries, which would add some, are never used); searches are anchored at
//! the start of the path, which every lazy DFA supports; a full cache is cleared and the search
//! goes on (`next_state` carries the state it leaves through the clear), but at most
//! [`SEARCH_CACHE_CLEARS`] times in one search. A search that needs more is *thrashing*: each
//! byte of the path builds a new state, every state a large set of positions (a robots.txt of
//! many rules with many `*`, whose literals the path meets in turn), so that walking the
//! automaton costs more than matching each rule linearly: 16 s for one path of 7.6 KB against a
//! 472 KB robots.txt of such rules. It gives up, and that chunk is matched linearly for that
//! search and every later one, and so are the chunks of every other automaton of the same
//! robots.txt (they share a flag), at the cost of one search's clears: a file of hundreds of
//! such groups would otherwise pay one cache's worth of states in each of them.
//! The count of clears starts again with each search, so a long run of ordinary searches never
//! adds up to a give-up. The fallback exists so that such a chunk, a change of configuration or
//! of regex-automata can cost time but never a verdict. [`MatchStrategy::Fallback`] (every byte a
//! quit byte) and [`MatchStrategy::StarvedCache`] (the smallest cache, one clear allowed, so
//! searches give up at their start, on the way or at the end) force it, and the conformance
//! tables run under both.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use regex_automata::hybrid::dfa::{Cache, Config as LazyDfaConfig, DFA};
use regex_automata::hybrid::{CacheError, LazyStateID};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::pool::Pool;
use regex_automata::{Anchored, Input, MatchError, MatchKind};
use regex_syntax::hir::{Dot, Hir, Look, Repetition};
use smallvec::SmallVec;

use crate::pattern::{glob_matches_parts, index_htm_prefix};
use crate::{Rule, RuleId, RuleKind};

/// Fewest candidates worth an automaton. Below this, scanning the candidates' bodies, stored
/// side by side, beats walking a lazy DFA whose transition rows lie scattered in memory (on
/// real files, interleaved across many sites), and takes a fraction of the memory; many real
/// groups hold a single `Disallow: /`.
const MIN_AUTOMATON_CANDIDATES: usize = 32;
/// Most candidates in one automaton, which bounds the size of its lazy DFA states and the
/// patterns a match state lists.
const CHUNK_CANDIDATES: usize = 512;
/// Most pattern bytes in one automaton, which bounds the size of its lazy DFA states.
const CHUNK_PATTERN_BYTES: usize = 16 * 1024;
/// Most pattern bytes a group puts into automata. An automaton holds tens of bytes per pattern
/// byte (NFA, lazy DFA states per thread), so the lowest-ranked candidates of a huge group go to
/// the fallback matcher instead.
const GROUP_AUTOMATON_BYTES: usize = 128 * 1024;
/// Patterns with more wildcards than this go to the fallback matcher: their lazy DFA states
/// are sets of positions that grow with every `*`, so the cache thrashes and every search
/// rebuilds states, which is slower than the linear matcher.
const AUTOMATON_MAX_STARS: usize = 16;
/// Patterns longer than this go to the fallback matcher.
const AUTOMATON_MAX_PATTERN_BYTES: usize = 4 * 1024;
/// Size limit of one chunk's Thompson NFA; a chunk over it uses the fallback matcher.
const NFA_SIZE_LIMIT: usize = 4 << 20;
/// Capacity of the lazy DFA cache of one chunk, per thread that uses it; a chunk that needs more
/// than this even for its first states uses the fallback matcher.
const DFA_CACHE_CAPACITY: usize = 1 << 20;
/// Clears of its cache one search of a production lazy DFA may make; a search that needs one
/// more gives up, and its chunk is matched linearly from then on (see the module docs).
const SEARCH_CACHE_CLEARS: usize = 1;

/// Which matchers a group's rules are compiled into.
///
/// [`MatchStrategy::Auto`] is the engine's choice and the default. The others force one kind of
/// matcher on every group whatever its size, **for testing and diagnosis only**: they give the
/// same verdicts, at other costs in time and memory (a forced automaton per small group costs
/// kilobytes; a forced fallback is as slow as the linear matcher). The engine's conformance
/// tables run under each of them. See [`Robots::with_strategy`](crate::Robots::with_strategy).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MatchStrategy {
    /// Runs of 32 or more candidates within the size limits go into lazy DFAs; the rest into
    /// the ordered scan, with hash tables for 32 or more wildcard-free patterns.
    #[default]
    Auto,
    /// Every candidate goes into a lazy DFA, whatever the size of its group, its wildcards or
    /// its length; only a chunk whose NFA exceeds the size limit is scanned.
    Automaton,
    /// No automaton and no hash table: every candidate is scanned in rank order.
    Scan,
    /// No automaton: every wildcard-free pattern is looked up in hash tables, the rest scanned.
    LiteralTables,
    /// Automata as with [`MatchStrategy::Automaton`], but every byte is a quit byte, so every
    /// search of a non-empty path gives up and the linear fallback decides.
    Fallback,
    /// Automata as with [`MatchStrategy::Automaton`], with the smallest lazy DFA cache that
    /// builds and at most one clear of it, so searches give up at their start, on the way or at
    /// the end of the path, and the linear fallback decides those.
    StarvedCache,
}

impl MatchStrategy {
    /// Every strategy, [`MatchStrategy::Auto`] first.
    pub const ALL: [MatchStrategy; 6] = [
        MatchStrategy::Auto,
        MatchStrategy::Automaton,
        MatchStrategy::Scan,
        MatchStrategy::LiteralTables,
        MatchStrategy::Fallback,
        MatchStrategy::StarvedCache,
    ];
}

/// How lazy DFAs are configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LazyDfaMode {
    /// The production configuration, which gives up only on a thrashing search (see the module
    /// docs).
    Production,
    /// Every byte a quit byte.
    QuitEveryByte,
    /// The smallest cache, cleared at most once in its life (the count is never reset), after
    /// which a search that needs room gives up.
    Starved,
}

/// The limits that decide which matcher each candidate goes to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    /// Fewest candidates in one automaton; a shorter run is scanned.
    min_automaton_candidates: usize,
    /// Most `*` in a pattern that goes into an automaton.
    max_stars: usize,
    /// Longest pattern that goes into an automaton.
    max_pattern_bytes: usize,
    /// Most pattern bytes a group puts into automata.
    group_automaton_bytes: usize,
    /// Fewest wildcard-free candidates of a fallback chunk looked up in hash tables.
    min_literal_table: usize,
    lazy_dfa: LazyDfaMode,
}

impl Plan {
    pub(crate) const fn of(strategy: MatchStrategy) -> Plan {
        const AUTO: Plan = Plan {
            min_automaton_candidates: MIN_AUTOMATON_CANDIDATES,
            max_stars: AUTOMATON_MAX_STARS,
            max_pattern_bytes: AUTOMATON_MAX_PATTERN_BYTES,
            group_automaton_bytes: GROUP_AUTOMATON_BYTES,
            min_literal_table: MIN_LITERAL_TABLE,
            lazy_dfa: LazyDfaMode::Production,
        };
        const AUTOMATA: Plan = Plan {
            min_automaton_candidates: 1,
            max_stars: usize::MAX,
            max_pattern_bytes: usize::MAX,
            group_automaton_bytes: usize::MAX,
            ..AUTO
        };
        const NO_AUTOMATA: Plan = Plan {
            group_automaton_bytes: 0,
            ..AUTO
        };
        match strategy {
            MatchStrategy::Auto => AUTO,
            MatchStrategy::Automaton => AUTOMATA,
            MatchStrategy::Scan => Plan {
                min_literal_table: usize::MAX,
                ..NO_AUTOMATA
            },
            MatchStrategy::LiteralTables => Plan {
                min_literal_table: 1,
                ..NO_AUTOMATA
            },
            MatchStrategy::Fallback => Plan {
                lazy_dfa: LazyDfaMode::QuitEveryByte,
                ..AUTOMATA
            },
            MatchStrategy::StarvedCache => Plan {
                lazy_dfa: LazyDfaMode::Starved,
                ..AUTOMATA
            },
        }
    }
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

    /// The pattern without its end anchor, and whether it had one.
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

/// A run of candidates, consecutive in rank order, and how they are matched.
#[derive(Debug)]
enum Chunk {
    Automaton(Box<Automaton>),
    Fallback(Fallback),
}

/// The compiled rules of one group.
#[derive(Debug)]
pub(crate) struct GroupMatcher {
    chunks: Chunks,
}

/// A group's chunks in rank order. Most groups compile to one, which is kept in place so that
/// matching a path does not first follow a pointer to a list of one.
type Chunks = SmallVec<[Chunk; 1]>;

impl GroupMatcher {
    /// [`GroupMatcher::sharing`] a flag of its own.
    #[cfg(test)]
    pub(crate) fn new(rules: &[Rule], range: Range<RuleId>, plan: &Plan) -> GroupMatcher {
        GroupMatcher::sharing(rules, range, plan, &Arc::default())
    }

    /// Compiles the rules `range` of `rules` as `plan` says, its automata sharing `thrashed`
    /// with every group of the same robots.txt: once a search of one of them thrashes, all of
    /// them are matched linearly (see the module docs).
    pub(crate) fn sharing(
        rules: &[Rule],
        range: Range<RuleId>,
        plan: &Plan,
        thrashed: &Arc<AtomicBool>,
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
            chunks: Chunker::new(rules, plan, thrashed).run(candidates),
        }
    }

    /// Whether the group's automata are matched linearly, theirs or another group's having
    /// thrashed.
    #[cfg(test)]
    pub(crate) fn thrashes(&self) -> bool {
        self.chunks.iter().any(|chunk| match chunk {
            Chunk::Automaton(automaton) => automaton.thrashed.load(Ordering::Relaxed),
            Chunk::Fallback(_) => false,
        })
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
    plan: &'r Plan,
    thrashed: &'r Arc<AtomicBool>,
    chunks: Chunks,
    automaton: Vec<Candidate>,
    automaton_bytes: usize,
    fallback: Vec<Candidate>,
    /// Pattern bytes that may still go into automata.
    budget: usize,
}

impl<'r> Chunker<'r> {
    fn new(rules: &'r [Rule], plan: &'r Plan, thrashed: &'r Arc<AtomicBool>) -> Chunker<'r> {
        Chunker {
            rules,
            plan,
            thrashed,
            chunks: Chunks::new(),
            automaton: Vec::new(),
            automaton_bytes: 0,
            fallback: Vec::new(),
            budget: plan.group_automaton_bytes,
        }
    }

    fn run(mut self, candidates: Vec<Candidate>) -> Chunks {
        for candidate in candidates {
            let (body, _) = candidate.parts(self.rules);
            // Every pattern costs NFA states beyond its bytes, so even `$` costs one.
            let cost = body.len() + 1;
            let fits = cost <= self.budget
                && body.len() <= self.plan.max_pattern_bytes
                && memchr::memchr_iter(b'*', body).count() <= self.plan.max_stars;
            if !fits {
                self.flush_automaton();
                self.fallback.push(candidate);
                continue;
            }
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
        self.chunks.shrink_to_fit();
        self.chunks
    }

    fn flush_fallback(&mut self) {
        if !self.fallback.is_empty() {
            let candidates = std::mem::take(&mut self.fallback);
            let fallback = Fallback::new(self.rules, &candidates, self.plan.min_literal_table);
            self.chunks.push(Chunk::Fallback(fallback));
        }
    }

    /// Turns the pending run into an automaton, or, when it is too small or over a limit,
    /// appends it to the pending fallback candidates, which all rank before it.
    fn flush_automaton(&mut self) {
        self.automaton_bytes = 0;
        let candidates = std::mem::take(&mut self.automaton);
        let automaton = (candidates.len() >= self.plan.min_automaton_candidates)
            .then(|| {
                let mode = self.plan.lazy_dfa;
                let config = lazy_dfa_config(mode);
                Automaton::new(self.rules, &candidates, mode, config, self.thrashed)
            })
            .flatten();
        match automaton {
            Some(automaton) => {
                self.flush_fallback();
                self.chunks.push(Chunk::Automaton(Box::new(automaton)));
            }
            None => self.fallback.extend(candidates),
        }
    }
}

/// The matcher for candidates that do not go into an automaton. Candidates are scanned in rank
/// order with the linear wildcard matcher, except that when there are many wildcard-free
/// patterns, those are looked up by the path's prefixes in hash tables instead.
#[derive(Debug)]
struct Fallback {
    literals: Option<Box<Literals>>,
    scan: Scan,
}

/// Candidates scanned best first, with their pattern bodies copied side by side so that a scan
/// reads one block of memory instead of chasing each rule.
#[derive(Debug)]
struct Scan {
    entries: Box<[ScanEntry]>,
    bodies: Box<[u8]>,
}

#[derive(Debug, Clone)]
struct ScanEntry {
    candidate: Candidate,
    /// Where the pattern body ends in `bodies`; it starts where the previous one ends.
    end: usize,
    anchored_end: bool,
    /// The body's first bytes before any `*`, at most eight, as a path's [`Head`] would hold
    /// them. Nearly every rule of a group differs from a given path within its first few
    /// bytes, so comparing two numbers rules it out without reading its body.
    head: Head,
    /// For a pattern with a `*` (most have none, and those are a plain comparison), which
    /// most paths pass the head test of (`/*.pdf$`, `/*?sessionid=`): the bytes it needs a
    /// matching path to hold, and for one that ends in `$`, the last bytes of its last
    /// literal, which such a path must end with.
    wildcard_filter: Option<WildcardFilter>,
}

#[derive(Debug, Clone)]
struct WildcardFilter {
    needs: ByteClasses,
    tail: Option<Head>,
}

impl WildcardFilter {
    fn new(body: &[u8], anchored_end: bool) -> WildcardFilter {
        let last = body.rsplit(|&b| b == b'*').next().unwrap_or_default();
        let tail = last.get(last.len().saturating_sub(8)..).unwrap_or_default();
        WildcardFilter {
            needs: ByteClasses::of(body.iter().filter(|&&b| b != b'*')),
            tail: (anchored_end && !tail.is_empty()).then(|| Head::of(tail)),
        }
    }

    /// Whether a path with these bytes and this tail may match; `false` is certain.
    fn admits(&self, path_bytes: &ByteClasses, path_tail: &Head) -> bool {
        path_bytes.contains_all(&self.needs) && self.tail.as_ref().is_none_or(|t| path_tail.is(t))
    }
}

/// Which byte values occur in a string, folded to 64 classes (`byte % 64`): a path that lacks
/// a class cannot hold a byte of it. Folding only lets more paths through to the full match,
/// and keeps the set in one register while it is built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ByteClasses(u64);

impl ByteClasses {
    fn of<'b>(bytes: impl IntoIterator<Item = &'b u8>) -> ByteClasses {
        ByteClasses(bytes.into_iter().fold(0, |set, &b| set | 1 << (b & 63)))
    }

    fn contains_all(&self, other: &ByteClasses) -> bool {
        other.0 & !self.0 == 0
    }
}

/// Up to eight leading bytes of a path or pattern as one number (little-endian), with how
/// many of them count.
#[derive(Debug, Clone, Copy)]
struct Head {
    bytes: u64,
    /// Ones over the bytes that count.
    mask: u64,
    len: usize,
}

impl Head {
    fn of(bytes: &[u8]) -> Head {
        let len = bytes.len().min(8);
        let mut word = [0u8; 8];
        if let (Some(to), Some(from)) = (word.get_mut(..len), bytes.get(..len)) {
            to.copy_from_slice(from);
        }
        Head {
            bytes: u64::from_le_bytes(word),
            mask: u64::MAX.checked_shr(64 - 8 * len as u32).unwrap_or(0),
            len,
        }
    }

    /// Whether `path` (of which `self` is the head) starts with the bytes of `pattern`.
    fn starts(&self, pattern: &Head) -> bool {
        self.len >= pattern.len && self.bytes & pattern.mask == pattern.bytes
    }

    /// Whether `self`, the last bytes of a path (at most eight), ends with `suffix`, itself at
    /// most eight bytes.
    fn is(&self, suffix: &Head) -> bool {
        self.len >= suffix.len
            && self
                .bytes
                .checked_shr(8 * (self.len - suffix.len) as u32)
                .unwrap_or(0)
                == suffix.bytes
    }
}

impl Scan {
    fn new<'c>(rules: &[Rule], candidates: impl Iterator<Item = &'c Candidate>) -> Scan {
        let mut entries = Vec::new();
        let mut bodies = Vec::new();
        for candidate in candidates {
            let (body, anchored_end) = candidate.parts(rules);
            bodies.extend_from_slice(body);
            let literal_start = body.split(|&b| b == b'*').next().unwrap_or_default();
            entries.push(ScanEntry {
                candidate: *candidate,
                end: bodies.len(),
                anchored_end,
                head: Head::of(literal_start),
                wildcard_filter: (literal_start.len() < body.len())
                    .then(|| WildcardFilter::new(body, anchored_end)),
            });
        }
        Scan {
            entries: entries.into_boxed_slice(),
            bodies: bodies.into_boxed_slice(),
        }
    }

    /// The first candidate that matches `path`, which is the best since they are in rank order.
    fn first(&self, path: &[u8]) -> Option<Candidate> {
        let path_head = Head::of(path);
        // Worked out when the first wildcard pattern asks.
        let mut path_bytes_and_tail = None;
        let mut start = 0;
        for entry in &self.entries {
            let body_start = start;
            start = entry.end;
            if !path_head.starts(&entry.head) {
                continue;
            }
            if let Some(filter) = &entry.wildcard_filter {
                let (bytes, tail) = path_bytes_and_tail.get_or_insert_with(|| {
                    let tail = path.get(path.len().saturating_sub(8)..).unwrap_or_default();
                    (ByteClasses::of(path), Head::of(tail))
                });
                if !filter.admits(bytes, tail) {
                    continue;
                }
            }
            let body = self.bodies.get(body_start..entry.end).unwrap_or_default();
            let matched = match (entry.wildcard_filter.is_some(), entry.anchored_end) {
                (true, _) => glob_matches_parts(body, entry.anchored_end, path),
                (false, false) => path.starts_with(body),
                (false, true) => path == body,
            };
            if matched {
                return Some(entry.candidate);
            }
        }
        None
    }
}

/// Wildcard-free patterns by their bytes, with the best candidate for each.
#[derive(Debug, Default)]
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
    /// Scans `candidates`, or, when `min_table` or more of them are wildcard-free, looks
    /// those up in hash tables and scans the rest.
    fn new(rules: &[Rule], candidates: &[Candidate], min_table: usize) -> Fallback {
        let is_literal = |candidate: &&Candidate| !candidate.parts(rules).0.contains(&b'*');
        if candidates.iter().filter(is_literal).count() < min_table {
            return Fallback {
                literals: None,
                scan: Scan::new(rules, candidates.iter()),
            };
        }
        let mut literals = Literals::default();
        // Candidates come best first, so the first one stored under a pattern is its winner.
        for candidate in candidates.iter().filter(is_literal) {
            let (body, anchored_end) = candidate.parts(rules);
            let table = if anchored_end {
                &mut literals.exact
            } else {
                &mut literals.prefixes
            };
            table.entry(body.into()).or_insert(*candidate);
        }
        let mut lengths: Vec<usize> = literals.prefixes.keys().map(|key| key.len()).collect();
        lengths.sort_unstable_by(|a, b| b.cmp(a));
        lengths.dedup();
        literals.lengths = lengths.into_boxed_slice();
        Fallback {
            literals: Some(Box::new(literals)),
            scan: Scan::new(rules, candidates.iter().filter(|c| !is_literal(c))),
        }
    }

    fn best(&self, path: &[u8]) -> Option<Candidate> {
        let scanned = self.scan.first(path);
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

/// The regex of one candidate, built as syntax directly (parsing regex text cost more than the
/// rest of compiling): the literal bytes, runs of `*` as one `(?s-u:.)*`, an end anchor, and
/// trailing wildcards of an unanchored pattern dropped since matching is by prefix anyway.
fn candidate_hir(body: &[u8], anchored_end: bool) -> Hir {
    let body = if anchored_end {
        body
    } else {
        let kept = body
            .iter()
            .rposition(|b| *b != b'*')
            .map_or(0, |last| last + 1);
        body.get(..kept).unwrap_or_default()
    };
    let mut parts = vec![Hir::look(Look::Start)];
    let mut literal = Vec::new();
    let mut after_star = false;
    for &byte in body {
        if byte == b'*' {
            if !after_star {
                if !literal.is_empty() {
                    parts.push(Hir::literal(std::mem::take(&mut literal)));
                }
                parts.push(Hir::repetition(Repetition {
                    min: 0,
                    max: None,
                    greedy: true,
                    sub: Box::new(Hir::dot(Dot::AnyByte)),
                }));
            }
            after_star = true;
            continue;
        }
        after_star = false;
        literal.push(byte);
    }
    if !literal.is_empty() {
        parts.push(Hir::literal(literal));
    }
    if anchored_end {
        parts.push(Hir::look(Look::End));
    }
    Hir::concat(parts)
}

type CachePool = Pool<Cache, Box<dyn Fn() -> Cache + Send + Sync>>;

/// A lazy DFA over a chunk's patterns, with one cache per thread that searches it.
struct Automaton {
    dfa: DFA,
    caches: CachePool,
    /// The candidates, in pattern ID order.
    candidates: Box<[Candidate]>,
    mode: LazyDfaMode,
    /// Set when a search of the production configuration gave up in this automaton or in
    /// another of the same robots.txt: they thrash, and their chunks are matched linearly from
    /// then on. Only ever set, so any thread may read it late: it then walks the automaton once
    /// more, and still gets the chunk's verdict.
    thrashed: Arc<AtomicBool>,
}

impl std::fmt::Debug for Automaton {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Automaton")
            .field("patterns", &self.dfa.pattern_len())
            .finish_non_exhaustive()
    }
}

impl Automaton {
    /// Builds the automaton of `candidates` with the lazy DFA configuration `config` (of
    /// `mode`), sharing `thrashed`, or `None` when it exceeds the budget.
    fn new(
        rules: &[Rule],
        candidates: &[Candidate],
        mode: LazyDfaMode,
        config: LazyDfaConfig,
        thrashed: &Arc<AtomicBool>,
    ) -> Option<Automaton> {
        let hirs: Vec<Hir> = candidates
            .iter()
            .map(|candidate| {
                let (body, anchored_end) = candidate.parts(rules);
                candidate_hir(body, anchored_end)
            })
            .collect();
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .nfa_size_limit(Some(NFA_SIZE_LIMIT)),
            )
            .build_many_from_hir(&hirs)
            .ok()?;
        let dfa = DFA::builder().configure(config).build_from_nfa(nfa).ok()?;
        let factory = dfa.clone();
        let create: Box<dyn Fn() -> Cache + Send + Sync> = Box::new(move || factory.create_cache());
        Some(Automaton {
            dfa,
            caches: Pool::new(create),
            candidates: candidates.into(),
            mode,
            thrashed: Arc::clone(thrashed),
        })
    }

    /// The smallest pattern ID that matches `path` from its start, in one overlapping walk.
    ///
    /// A DFA enters a match state one byte after the match ends, so every match of an anchored
    /// pattern shows up as a match state on the way or at the end-of-input transition. An error
    /// means the lazy DFA gave up, and says nothing about the path: the caller must then match
    /// the chunk with the linear fallback.
    fn first_match(&self, path: &[u8]) -> Result<Option<usize>, GaveUp> {
        let dfa = &self.dfa;
        let mut guard = self.caches.get();
        let cache: &mut Cache = &mut guard;
        if self.mode != LazyDfaMode::Production {
            return walk(dfa, cache, path);
        }
        // Clears are counted per search: a cache that was cleared keeps its count, and its
        // states were turning over anyway.
        if cache.clear_count() > 0 {
            cache.reset(dfa);
        }
        let walked = walk(dfa, cache, path);
        if walked.is_err() {
            // The chunk is matched linearly from now on: the full cache is not kept.
            *cache = dfa.create_cache();
        }
        walked
    }
}

/// [`Automaton::first_match`] with `cache`.
fn walk(dfa: &DFA, cache: &mut Cache, path: &[u8]) -> Result<Option<usize>, GaveUp> {
    let input = Input::new(path).anchored(Anchored::Yes);
    let mut state = dfa
        .start_state_forward(cache, &input)
        .map_err(|_: MatchError| GaveUp::Start)?;
    let smallest = |state: LazyStateID, cache: &Cache| {
        (0..dfa.match_len(cache, state))
            .map(|index| dfa.match_pattern(cache, state, index).as_usize())
            .min()
    };
    let mut best: Option<usize> = None;
    for &byte in path {
        state = dfa
            .next_state(cache, state, byte)
            .map_err(|_: CacheError| GaveUp::Transition)?;
        if state.is_tagged() {
            if state.is_dead() {
                return Ok(best);
            }
            if state.is_quit() {
                return Err(GaveUp::Quit);
            }
            if state.is_match() {
                best = min_some(best, smallest(state, cache));
            }
        }
    }
    state = dfa
        .next_eoi_state(cache, state)
        .map_err(|_: CacheError| GaveUp::EndOfInput)?;
    if state.is_match() {
        best = min_some(best, smallest(state, cache));
    }
    Ok(best)
}

impl Automaton {
    /// The chunk's winner without the lazy DFA: its candidates in rank order, each matched with
    /// the linear wildcard matcher.
    fn linear_fallback(&self, rules: &[Rule], path: &[u8]) -> Option<Candidate> {
        self.candidates
            .iter()
            .find(|candidate| candidate.matches(rules, path))
            .copied()
    }
}

/// Why a lazy DFA search gave up (see the module docs). Each one sends the search to the
/// chunk's linear fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GaveUp {
    /// No start state.
    Start,
    /// A transition on a byte of the path needed a state the cache could not hold.
    Transition,
    /// The end-of-input transition needed a state the cache could not hold.
    EndOfInput,
    /// The walk entered a quit state.
    Quit,
}

/// The lazy DFA configuration of `mode`; only [`LazyDfaMode::Production`] is used outside
/// tests and diagnosis.
fn lazy_dfa_config(mode: LazyDfaMode) -> LazyDfaConfig {
    let production = DFA::config()
        .match_kind(MatchKind::All)
        .cache_capacity(DFA_CACHE_CAPACITY)
        .unicode_word_boundary(false)
        .minimum_cache_clear_count(Some(SEARCH_CACHE_CLEARS));
    match mode {
        LazyDfaMode::Production => production,
        LazyDfaMode::QuitEveryByte => {
            (0..=u8::MAX).fold(production, |config, byte| config.quit(byte, true))
        }
        LazyDfaMode::Starved => production
            .cache_capacity(0)
            .skip_cache_capacity_check(true)
            .minimum_cache_clear_count(Some(1)),
    }
}

fn min_some(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl Chunk {
    fn best(&self, rules: &[Rule], path: &[u8]) -> Option<Candidate> {
        match self {
            Chunk::Fallback(fallback) => fallback.best(path),
            Chunk::Automaton(automaton) if automaton.thrashed.load(Ordering::Relaxed) => {
                automaton.linear_fallback(rules, path)
            }
            Chunk::Automaton(automaton) => match automaton.first_match(path) {
                Ok(first) => first.and_then(|index| automaton.candidates.get(index).copied()),
                Err(GaveUp::Start | GaveUp::Transition | GaveUp::EndOfInput | GaveUp::Quit) => {
                    if automaton.mode == LazyDfaMode::Production {
                        automaton.thrashed.store(true, Ordering::Relaxed);
                    }
                    automaton.linear_fallback(rules, path)
                }
            },
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::pattern::glob_matches;
    use crate::reference;
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

    fn reference_best(rules: &[Rule], path: &[u8]) -> Option<(u32, bool)> {
        reference::best_rule(rules, path).map(|id| (id, rules[id as usize].kind == RuleKind::Allow))
    }

    fn plan(strategy: MatchStrategy) -> Plan {
        Plan::of(strategy)
    }

    fn winner(matcher: &GroupMatcher, rules: &[Rule], path: &[u8]) -> Option<(u32, bool)> {
        matcher
            .best(rules, path)
            .map(|candidate| (candidate.rule, candidate.allow))
    }

    // Longer than eight bytes at times, so that the scan's head and tail filters see patterns
    // and paths on both sides of their word size; `!` and `a` fall into one byte class, and
    // 0xE9 is above ASCII.
    fn pattern_strategy() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop::sample::select(vec![
            b'*', b'*', b'$', b'$', b'/', b'/', b'a', b'b', b'?', b'%', b'2', b'F', b'.', b'!',
            0xE9,
        ]);
        prop::collection::vec(byte, 0..14)
    }

    fn path_strategy() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop::sample::select(vec![
            b'/', b'a', b'b', b'$', b'*', b'?', b'%', b'2', b'F', b'.', b'!', 0xE9,
        ]);
        prop::collection::vec(byte, 0..16).prop_map(|mut tail| {
            tail.insert(0, b'/');
            tail
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn linear_matcher_agrees_with_position_sets(pattern in pattern_strategy(), path in path_strategy()) {
            prop_assert_eq!(glob_matches(&pattern, &path), reference::position_set_matches(&path, &pattern));
        }

        #[test]
        fn small_groups_agree_with_the_reference(
            patterns in prop::collection::vec((any::<bool>(), pattern_strategy()), 1..12),
            path in path_strategy(),
            strategy in prop::sample::select(MatchStrategy::ALL.to_vec()),
        ) {
            let rules: Vec<Rule> = (0..).zip(&patterns).map(|(id, (allow, pattern))| {
                rule(id, if *allow { RuleKind::Allow } else { RuleKind::Disallow }, pattern)
            }).collect();
            let matcher = GroupMatcher::new(&rules, 0..priority(rules.len()), &plan(strategy));
            prop_assert_eq!(winner(&matcher, &rules, &path), reference_best(&rules, &path));
        }
    }

    /// A literal pattern whose every byte is a lazy DFA state of its own.
    fn long_pattern() -> Vec<u8> {
        [b"/long/".as_slice(), &b"abcdefghij".repeat(30)].concat()
    }

    /// A group whose automaton needs many lazy DFA states: literals that share prefixes, a long
    /// literal, wildcards in the middle and at the end, anchors and an index.htm rewrite.
    fn state_hungry_rules() -> Vec<Rule> {
        let mut rules = Vec::new();
        for i in 0..40u32 {
            let kind = if i % 3 == 0 {
                RuleKind::Allow
            } else {
                RuleKind::Disallow
            };
            let pattern = match i % 5 {
                0 => format!("/shop/{i}/item"),
                1 => format!("/*{i}*.php$"),
                2 => format!("/shop/{}*/x{i}", i % 7),
                3 => format!("/docs/{i}/index.html"),
                _ => format!("/shop/{}/{i}$", i % 4),
            };
            rules.push(rule(i, kind, pattern.as_bytes()));
        }
        rules.push(rule(40, RuleKind::Disallow, &long_pattern()));
        rules
    }

    /// Paths that reach deep into the automaton, and others that die early.
    fn probing_paths() -> Vec<Vec<u8>> {
        let mut paths: Vec<Vec<u8>> = vec![b"/".to_vec(), b"/x".to_vec(), b"/docs/".to_vec()];
        paths.push([long_pattern().as_slice(), b"/end"].concat());
        for i in 0..40 {
            paths.push(format!("/shop/{i}/item/more").into_bytes());
            paths.push(format!("/shop/{}/abc/x{i}", i % 7).into_bytes());
            paths.push(format!("/a/{i}/b/page.php").into_bytes());
            paths.push(format!("/docs/{i}/").into_bytes());
            paths.push(format!("/shop/{}/{i}", i % 4).into_bytes());
        }
        paths
    }

    fn automata(matcher: &GroupMatcher) -> Vec<&Automaton> {
        matcher
            .chunks
            .iter()
            .filter_map(|chunk| match chunk {
                Chunk::Automaton(automaton) => Some(&**automaton),
                Chunk::Fallback(_) => None,
            })
            .collect()
    }

    #[test]
    fn production_lazy_dfas_give_up_only_when_thrashing() {
        let config = lazy_dfa_config(LazyDfaMode::Production);
        assert!(
            (0..=u8::MAX).all(|byte| !config.get_quit(byte)),
            "a quit byte"
        );
        assert!(!config.get_unicode_word_boundary());
        assert_eq!(
            config.get_minimum_cache_clear_count(),
            Some(SEARCH_CACHE_CLEARS)
        );
        assert_eq!(config.get_minimum_bytes_per_state(), None);
        // With the production cache, no search of the state-hungry group gives up, however
        // many searches (their clears are counted per search).
        let rules = state_hungry_rules();
        let matcher = GroupMatcher::new(&rules, 0..41, &plan(MatchStrategy::Automaton));
        let [automaton] = automata(&matcher)[..] else {
            panic!("one automaton");
        };
        for _ in 0..3 {
            for path in probing_paths() {
                let first = automaton.first_match(&path).expect("no give-up");
                let winner = first.map(|index| {
                    let candidate = automaton.candidates[index];
                    (candidate.rule, candidate.allow)
                });
                assert_eq!(winner, reference_best(&rules, &path), "path {path:?}");
                assert_eq!(winner, self::winner(&matcher, &rules, &path));
            }
        }
        assert!(!automaton.thrashed.load(Ordering::Relaxed));
        // With a cache of 128 KB, searches clear it at times, never more than once each: over
        // many searches the clears add up past the limit, and still none gives up.
        let production = |config: LazyDfaConfig| {
            let candidates = &automaton.candidates;
            Automaton::new(
                &rules,
                candidates,
                LazyDfaMode::Production,
                config,
                &Arc::default(),
            )
            .expect("automaton")
        };
        let cramped = production(config.clone().cache_capacity(128 * 1024));
        let mut clears = 0;
        for _ in 0..3 {
            for path in probing_paths() {
                let first = cramped.first_match(&path).expect("no give-up");
                clears += cramped.caches.get().clear_count();
                let winner = first.map(|index| cramped.candidates[index].rule);
                assert_eq!(winner, reference_best(&rules, &path).map(|(rule, _)| rule));
            }
        }
        assert!(clears > SEARCH_CACHE_CLEARS, "{clears} clears");
        // With the smallest cache, cleared over and over, a search gives up at its second clear
        // and the chunk is matched linearly from then on, with the same verdicts.
        let tiny = production(config.cache_capacity(0).skip_cache_capacity_check(true));
        let long_path = [long_pattern().as_slice(), b"/end"].concat();
        assert_eq!(tiny.first_match(&long_path), Err(GaveUp::Transition));
        let chunk = Chunk::Automaton(Box::new(tiny));
        for path in probing_paths() {
            let best = chunk.best(&rules, &path);
            let winner = best.map(|candidate| (candidate.rule, candidate.allow));
            assert_eq!(winner, reference_best(&rules, &path), "path {path:?}");
        }
        let Chunk::Automaton(tiny) = &chunk else {
            unreachable!()
        };
        assert!(tiny.thrashed.load(Ordering::Relaxed));
    }

    /// Rules whose literals a path meets in turn, each with 16 `*` (the most an automaton
    /// takes) and a last literal the path never holds: every byte of the path builds a new
    /// state, each a set of positions in every rule, so that one search fills the cache again
    /// and again.
    pub(crate) fn thrashing_rules_and_path(tokens: usize) -> (Vec<Rule>, Vec<u8>) {
        let alphabet = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let token = |i: usize| [alphabet[i / alphabet.len()], alphabet[i % alphabet.len()]];
        let per_rule = tokens / 16;
        let rules = (0..per_rule)
            .map(|j| {
                let mut pattern = b"/*".to_vec();
                for k in 0..15 {
                    pattern.extend_from_slice(&token(j + k * per_rule));
                    pattern.push(b'*');
                }
                pattern.extend_from_slice(b"!!");
                rule(j as u32, RuleKind::Disallow, &pattern)
            })
            .collect();
        let path = [
            b"/".as_slice(),
            &(0..tokens).flat_map(token).collect::<Vec<u8>>(),
        ]
        .concat();
        (rules, path)
    }

    #[test]
    fn a_thrashing_automaton_gives_up_and_its_chunk_is_matched_linearly() {
        let (rules, path) = thrashing_rules_and_path(1024);
        let matcher = GroupMatcher::new(&rules, 0..rules.len() as u32, &plan(MatchStrategy::Auto));
        let thrashing = automata(&matcher);
        assert!(!thrashing.is_empty(), "the rules go to automata");
        assert_eq!(winner(&matcher, &rules, &path), None);
        assert!(
            thrashing.iter().any(|a| a.thrashed.load(Ordering::Relaxed)),
            "a search that needs a second clear gives up"
        );
        // A path that a rule matches, and one of the first rule's literals, through the chunk
        // matched linearly.
        let matched = [path.as_slice(), b"!!"].concat();
        assert_eq!(
            winner(&matcher, &rules, &matched),
            reference_best(&rules, &matched)
        );
        assert!(reference_best(&rules, &matched).is_some());
        assert_eq!(winner(&matcher, &rules, b"/"), None);
    }

    #[test]
    fn starved_caches_fall_back_to_googles_verdict() {
        let rules = state_hungry_rules();
        let matcher = GroupMatcher::new(&rules, 0..41, &plan(MatchStrategy::StarvedCache));
        let [automaton] = automata(&matcher)[..] else {
            panic!("one automaton");
        };
        // On a fresh cache, the long path fills the cache, clears it once, fills it again and
        // gives up; the start state, dropped by the clear and larger than the state that did not
        // fit, then has no room either.
        let long_path = [long_pattern().as_slice(), b"/end"].concat();
        assert_eq!(automaton.first_match(&long_path), Err(GaveUp::Transition));
        assert_eq!(automaton.first_match(b"/shop/1/item"), Err(GaveUp::Start));
        assert_eq!(
            winner(&matcher, &rules, &long_path),
            Some((40, false)),
            "the long rule"
        );
        assert_eq!(winner(&matcher, &rules, b"/shop/1/item"), None);
        assert_eq!(winner(&matcher, &rules, b"/shop/5/item"), Some((5, false)));
        // Searches that succeed and searches that give up, mixed.
        let matcher = GroupMatcher::new(&rules, 0..41, &plan(MatchStrategy::StarvedCache));
        let [automaton] = automata(&matcher)[..] else {
            panic!("one automaton");
        };
        let mut outcomes = std::collections::BTreeMap::new();
        for path in probing_paths() {
            let outcome = match automaton.first_match(&path) {
                Ok(_) => "ok",
                Err(GaveUp::Start) => "start",
                Err(GaveUp::Transition) => "transition",
                Err(GaveUp::EndOfInput) => "end of input",
                Err(GaveUp::Quit) => "quit",
            };
            *outcomes.entry(outcome).or_insert(0) += 1;
            assert_eq!(
                winner(&matcher, &rules, &path),
                reference_best(&rules, &path),
                "path {path:?}"
            );
        }
        for expected in ["ok", "transition"] {
            assert!(
                outcomes.contains_key(expected),
                "no {expected}: {outcomes:?}"
            );
        }
        assert!(!outcomes.contains_key("quit"), "{outcomes:?}");
    }

    #[test]
    fn quit_bytes_send_every_search_to_the_fallback() {
        let rules = state_hungry_rules();
        let matcher = GroupMatcher::new(&rules, 0..41, &plan(MatchStrategy::Fallback));
        let [automaton] = automata(&matcher)[..] else {
            panic!("one automaton");
        };
        for path in probing_paths() {
            assert_eq!(automaton.first_match(&path), Err(GaveUp::Quit));
            let expected = reference_best(&rules, &path);
            assert_eq!(winner(&matcher, &rules, &path), expected, "path {path:?}");
        }
    }

    #[test]
    fn strategies_build_the_matchers_they_name() {
        let rules = state_hungry_rules();
        let kinds = |strategy| {
            let matcher = GroupMatcher::new(&rules[..3], 0..3, &plan(strategy));
            matcher
                .chunks
                .iter()
                .map(|chunk| match chunk {
                    Chunk::Automaton(_) => "automaton",
                    Chunk::Fallback(Fallback { literals: None, .. }) => "scan",
                    Chunk::Fallback(Fallback {
                        literals: Some(_), ..
                    }) => "tables",
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds(MatchStrategy::Auto), ["scan"]);
        assert_eq!(kinds(MatchStrategy::Automaton), ["automaton"]);
        assert_eq!(kinds(MatchStrategy::Scan), ["scan"]);
        assert_eq!(kinds(MatchStrategy::LiteralTables), ["tables"]);
        assert_eq!(kinds(MatchStrategy::Fallback), ["automaton"]);
        assert_eq!(kinds(MatchStrategy::StarvedCache), ["automaton"]);
    }

    #[test]
    fn heads_and_tails_compare_leading_and_trailing_bytes() {
        let path = Head::of(b"/abcdefgh");
        assert!(path.starts(&Head::of(b"/abc")));
        assert!(path.starts(&Head::of(b"/abcdefg")));
        assert!(path.starts(&Head::of(b"")));
        assert!(!path.starts(&Head::of(b"/abd")));
        // A pattern longer than the path never starts it, even with zero bytes to pad.
        assert!(!Head::of(b"/a").starts(&Head::of(b"/a\0")));
        let tail = Head::of(b"b/x.pdf");
        assert!(tail.is(&Head::of(b".pdf")));
        assert!(tail.is(&Head::of(b"b/x.pdf")));
        assert!(tail.is(&Head::of(b"")));
        assert!(!tail.is(&Head::of(b".pdx")));
        assert!(!tail.is(&Head::of(b"ab/x.pdf")));
        assert!(!Head::of(b"df").is(&Head::of(b"pdf")));
    }

    #[test]
    fn wildcard_filters_never_turn_away_a_match() {
        type Case = (&'static [u8], bool, &'static [u8], bool);
        let cases: [Case; 8] = [
            (b"/*.pdf", true, b"/docs/a.pdf", true),
            (b"/*.pdf", true, b"/docs/a.pdf?x", false),
            (b"/*.pdf", false, b"/docs/a.pdf?x", true),
            (b"/*?sessionid=", false, b"/a?b=1", false),
            (b"/*?sessionid=", false, b"/a?sessionid=2", true),
            // `!` shares a class with `a`: let through, and the full match decides.
            (b"/*a", false, b"/!", true),
            (b"/*\xE9t\xE9", true, b"/\xE9t\xE9", true),
            (b"/*", true, b"/", true),
        ];
        for (body, anchored_end, path, admitted) in cases {
            let filter = WildcardFilter::new(body, anchored_end);
            let tail = Head::of(path.get(path.len().saturating_sub(8)..).unwrap_or_default());
            assert_eq!(
                filter.admits(&ByteClasses::of(path), &tail),
                admitted,
                "{} against {}",
                String::from_utf8_lossy(body),
                String::from_utf8_lossy(path)
            );
            if glob_matches_parts(body, anchored_end, path) {
                assert!(admitted);
            }
        }
    }

    #[test]
    fn candidate_syntax_keeps_bytes_and_collapses_stars() {
        // Written out as the regex it stands for (`Hir` prints as a regex).
        let regex = |body: &[u8], anchored| candidate_hir(body, anchored).to_string();
        assert_eq!(regex(b"/a**b", false), r"(?:\A(?:/a)(?-u:[\x00-\xFF])*b)");
        assert_eq!(regex(b"/a*", false), r"(?:\A(?:/a))");
        assert_eq!(regex(b"/a*", true), r"(?:\A(?:/a)(?-u:[\x00-\xFF])*\z)");
        assert_eq!(regex(b"/a.b?$", false), r"(?:\A(?:/a\.b\?\$))");
        assert_eq!(regex(b"**", false), r"\A");
        assert_eq!(regex(b"/\xFF%", false), r"(?:\A(?:/(?-u:\xFF)%))");
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
        let full = GroupMatcher::new(&rules, range.clone(), &plan(MatchStrategy::Auto));
        let partial_plan = Plan {
            group_automaton_bytes: 2_000,
            ..plan(MatchStrategy::Auto)
        };
        let partial = GroupMatcher::new(&rules, range.clone(), &partial_plan);
        let none = GroupMatcher::new(&rules, range, &plan(MatchStrategy::Scan));
        let automata = |m: &GroupMatcher| {
            m.chunks
                .iter()
                .filter(|c| matches!(c, Chunk::Automaton(_)))
                .count()
        };
        assert!(automata(&full) >= 3);
        assert!(full.chunks.iter().any(|c| matches!(c, Chunk::Fallback(_))));
        assert!(automata(&partial) >= 1);
        assert!(matches!(partial.chunks.last(), Some(Chunk::Fallback(_))));
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
        let auto = plan(MatchStrategy::Auto);
        let all = GroupMatcher::new(&rules, 0..priority(rules.len()), &auto);
        let engines: Vec<bool> = all
            .chunks
            .iter()
            .map(|c| matches!(c, Chunk::Automaton(_)))
            .collect();
        assert_eq!(engines, [false, true]);
        assert!(all.chunks.spilled());
        let mut path = oversized.clone();
        path.push(b'a');
        let oversized_id = MIN_AUTOMATON_CANDIDATES as u32;
        assert_eq!(winner(&all, &rules, &path), Some((oversized_id, true)));
        assert_eq!(winner(&all, &rules, b"/x3/y"), Some((3, false)));

        let few = GroupMatcher::new(&rules, 0..3, &auto);
        assert!(!few.chunks.spilled());
        assert!(matches!(few.chunks[..], [Chunk::Fallback(_)]));
        assert_eq!(winner(&few, &rules, b"/x2"), Some((2, false)));

        let empty = GroupMatcher::new(&rules, 0..0, &auto);
        assert!(empty.chunks.is_empty());
        assert_eq!(winner(&empty, &rules, b"/x2"), None);
    }
}
