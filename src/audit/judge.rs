//! One request to one verdict: the robots version in force, the group, the deciding rule,
//! grace and the 1994 reading (`docs/contract.md`, "Semantics of one request", steps 3 to 8).

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::hash::{Hash, Hasher};

use ahash::AHashMap;
use jiff::{SignedDuration, Timestamp};
use robots_audit_bots::{ContentUse, RobotsPolicy};
use robots_audit_engine::{
    DirectiveKind, DirectiveValue, Robots, RuleId, Selection, Stance, TokenMatch, Use,
    path_params_query,
};

use super::fold::Folding;
use super::identity::AgentInfo;
use crate::ids::{AgentId, IdHashMap, VersionId};
use crate::versions::{Effect, VersionSet};

/// What one judged (or not judged) request came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// A request for `/robots.txt`: counted, never judged.
    RobotsFetch,
    /// No robots.txt version was in force (or the request had no origin).
    Unjudged,
    /// The robots.txt in force allowed it.
    Allowed,
    /// The robots.txt in force disallowed it: a violation.
    Disallowed,
    /// Disallowed by the version in force, but some version in force during the `--grace`
    /// window before the request allowed it.
    Grace,
    /// Disallowed by the robots.txt in force, but the agent's operator documents that
    /// robots.txt does not bind it (a `user_triggered` or `ignores` policy) and the run is not
    /// `--strict`.
    Exempt,
}

impl Outcome {
    /// Every outcome, for tests that draw one by index.
    #[cfg(test)]
    pub const ALL: [Outcome; 6] = [
        Outcome::RobotsFetch,
        Outcome::Unjudged,
        Outcome::Allowed,
        Outcome::Disallowed,
        Outcome::Grace,
        Outcome::Exempt,
    ];

    /// Whether the request was judged: allowed, disallowed, grace or exempt.
    pub fn is_judged(self) -> bool {
        matches!(
            self,
            Outcome::Allowed | Outcome::Disallowed | Outcome::Grace | Outcome::Exempt
        )
    }

    /// The word used in `decisions.csv`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::RobotsFetch => "robots_fetch",
            Outcome::Unjudged => "unjudged",
            Outcome::Allowed => "allowed",
            Outcome::Disallowed => "disallowed",
            Outcome::Grace => "grace",
            Outcome::Exempt => "exempt",
        }
    }
}

/// Whether a response with `status` handed the content over (2xx or 304): a violation with it
/// is `violations_served`.
#[inline]
pub fn is_served(status: u16) -> bool {
    (200..300).contains(&status) || status == 304
}

/// What decided a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decider {
    /// No rule matched (or the robots.txt was absent: 4xx): allowed.
    Nothing,
    /// A rule of the version's file.
    Rule(RuleId),
    /// The version's fetch status (429, 5xx, unreachable): everything disallowed.
    Status,
}

/// The verdict on one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judgement {
    /// The outcome counted in the reports.
    pub outcome: Outcome,
    /// The version in force, when there was one.
    pub version: Option<VersionId>,
    /// What decided it under the version in force.
    pub decider: Decider,
    /// For violations: whether the 1994 reading disallows it too.
    pub holds_under_1994: bool,
    /// For allowed requests: the usage preference of the version in force that says no to the
    /// agent's use of the path (`preference_conflicts.csv`).
    pub conflict: Option<Conflict>,
    /// The `Crawl-delay` in force for the agent, in milliseconds, under the version in force at
    /// the request's time (robots fetches included): what `crawl_rate.csv` counts against.
    pub crawl_delay: Option<u32>,
}

impl Judgement {
    pub(crate) fn unjudged() -> Judgement {
        Judgement {
            outcome: Outcome::Unjudged,
            version: None,
            decider: Decider::Nothing,
            holds_under_1994: false,
            conflict: None,
            crawl_delay: None,
        }
    }
}

/// A usage preference (Content-Signal or Content-Usage) that says no to the use an allowed
/// request's agent makes of the content: never a violation, counted apart (docs/contract.md,
/// "Usage preferences and crawl rate").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conflict {
    /// The use the agent's catalog category maps to.
    pub content_use: ContentUse,
    /// Which directive says no.
    pub kind: DirectiveKind,
    /// The line of the deciding directive in the version's file.
    pub line: u32,
}

impl Conflict {
    /// The use as the deciding directive names it: the Content-Signal key (`ai-train`) or the
    /// aipref label (`train-ai`).
    pub fn use_name(&self) -> &'static str {
        match self.kind {
            DirectiveKind::ContentUsage => self.content_use.aipref_label(),
            _ => self.content_use.content_signal_key(),
        }
    }

    /// The value that said no, as the directive's syntax writes it (`no` or `n`).
    pub fn value_name(&self) -> &'static str {
        match self.kind {
            DirectiveKind::ContentUsage => "n",
            _ => "no",
        }
    }
}

/// The engine's use for a catalog use.
pub fn engine_use(content_use: ContentUse) -> Use {
    match content_use {
        ContentUse::Search => Use::Search,
        ContentUse::AiTraining => Use::TrainAi,
        ContentUse::AiInput => Use::AiInput,
    }
}

/// What the selected groups of a version say about an agent's use, resolved once per (version,
/// agent) so that a version without preference lines costs one flag check per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PreferenceFacts {
    /// No statement speaks to the agent (or the agent's category maps to no use).
    Silent,
    /// Every statement applies to every path: the answer is the same for each request.
    Constant(Option<Conflict>),
    /// Some statement names a path: each allowed request asks the engine.
    ByPath(ContentUse),
}

/// What a version says to one agent beyond Allow and Disallow, resolved with its selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Extensions {
    crawl_delay: Option<u32>,
    preference: PreferenceFacts,
}

impl Extensions {
    const NONE: Extensions = Extensions {
        crawl_delay: None,
        preference: PreferenceFacts::Silent,
    };

    fn of(robots: &Robots, selection: &Selection, content_use: Option<ContentUse>) -> Extensions {
        let crawl_delay = robots
            .crawl_delay(selection)
            .map(|(delay, _)| u32::try_from(delay.as_millis()).unwrap_or(u32::MAX));
        let statements = selection
            .groups()
            .iter()
            .flat_map(|group| robots.group_directives(*group))
            .filter_map(|directive| match &directive.value {
                DirectiveValue::ContentSignal(statement)
                | DirectiveValue::ContentUsage(statement) => Some(statement),
                _ => None,
            });
        let mut any = false;
        let mut by_path = false;
        for statement in statements {
            any = true;
            // Every path the judge sees starts with `/` ([`match_path`]), so a statement for
            // `/` applies to all of them, like one naming no path.
            by_path |= !matches!(&*statement.pattern, b"" | b"/");
        }
        let preference = match content_use {
            Some(content_use) if by_path => PreferenceFacts::ByPath(content_use),
            Some(content_use) if any => {
                PreferenceFacts::Constant(conflict_at(robots, selection, b"/", content_use))
            }
            _ => PreferenceFacts::Silent,
        };
        Extensions {
            crawl_delay,
            preference,
        }
    }
}

/// The conflict, if the preference in force for `path` says no to `content_use`.
fn conflict_at(
    robots: &Robots,
    selection: &Selection,
    path: &[u8],
    content_use: ContentUse,
) -> Option<Conflict> {
    let preference = robots.preference(selection, path, engine_use(content_use))?;
    (preference.value == Stance::No).then_some(Conflict {
        content_use,
        kind: preference.kind,
        line: preference.line,
    })
}

/// The shared, read-only part of judging: the robots versions, the grace period and whether
/// documented exemptions count (`--strict`).
#[derive(Debug)]
pub struct Judge<'a> {
    robots: &'a VersionSet,
    grace: SignedDuration,
    strict: bool,
}

/// One thread's cache of group selections, one per robots version and agent, with what the
/// selected groups say about crawl delay and usage preferences. A folded agent shares its id
/// with every other folded agent, so its selections are kept by its robots tokens instead (all
/// else a selection reads is the same for every minted agent: no policy, category `other`), at
/// most `FOLDED_SELECTIONS` of them.
#[derive(Debug, Default)]
pub struct SelectionCache {
    selections: IdHashMap<(VersionId, AgentId), (Selection, Extensions)>,
    /// By version and a hash of the tokens, with the tokens to confirm a hit: a lookup
    /// allocates nothing.
    folded: AHashMap<(VersionId, u64), (Vec<String>, Selected)>,
}

/// The groups selected for an agent in a version, and what they say beyond the rules.
type Selected = (Selection, Extensions);

impl SelectionCache {
    /// Forgets the selections of the retired agents of `folding`.
    pub fn forget(&mut self, folding: &Folding) {
        self.selections
            .retain(|&(_, agent), _| !folding.is_retired(agent));
    }
}

/// Selections of folded agents one thread keeps: a flood of minted names cannot grow the cache.
const FOLDED_SELECTIONS: usize = 10_000;

/// Is this the path of a robots.txt fetch? Its query does not matter.
pub fn is_robots_fetch(path: &[u8]) -> bool {
    // Compared as an array, which needs no call to `memcmp` for every request.
    path.first_chunk::<11>() == Some(b"/robots.txt") && matches!(path.get(11), None | Some(b'?'))
}

/// Is a request for `target` (with `query` logged apart) a robots.txt fetch: the answer of
/// [`is_robots_fetch`] on its [`match_path`], building that path only for a target that is not
/// origin-form (a path is compared where it stands, as most targets are).
pub fn is_robots_fetch_target(target: &[u8], query: Option<&[u8]>, buf: &mut Vec<u8>) -> bool {
    if target.first() == Some(&b'/') {
        // Cutting a fragment or adding a query leaves the first 11 bytes, and puts `?` after
        // them exactly when a fragment or query starts there.
        return target.first_chunk::<11>() == Some(b"/robots.txt")
            && matches!(target.get(11), None | Some(b'?' | b'#'));
    }
    is_robots_fetch(match_path(target, query, buf))
}

/// The path the matcher sees, from a request target and a separately logged query: an
/// origin-form target (`/a?b`) is used as it is, up to a fragment; an absolute URL goes through
/// Google's URL-to-path rule. Borrows the target when it can be used as it is, and builds the
/// path in `buf` otherwise.
#[inline]
pub fn match_path<'b>(target: &'b [u8], query: Option<&[u8]>, buf: &'b mut Vec<u8>) -> &'b [u8] {
    let query = query.filter(|q| !q.is_empty() && *q != b"-");
    if target.first() == Some(&b'/') {
        // Nearly every target is a few dozen bytes without a `#`, for which `memchr` costs more
        // to set up than the search.
        let path = match robots_audit_logs::memchr_near(b'#', target) {
            Some(end) => target.get(..end).unwrap_or_default(),
            None => target,
        };
        let Some(query) = query else {
            return path;
        };
        buf.clear();
        buf.extend_from_slice(path);
        buf.push(b'?');
        buf.extend_from_slice(query);
        return buf;
    }
    let path: Cow<'_, [u8]> = path_params_query(target);
    buf.clear();
    buf.extend_from_slice(&path);
    if let Some(query) = query {
        buf.push(b'?');
        buf.extend_from_slice(query);
    }
    buf
}

/// The groups of `robots` that apply to a crawler answering to `tokens` with the robots
/// `policy` its operator documents: an `ignores_global` crawler obeys only groups naming one of
/// its tokens, so when only the `*` groups would apply, nothing does (`docs/bots.md`).
pub fn select_for(
    robots: &Robots,
    tokens: &[&[u8]],
    policy: RobotsPolicy,
    mode: TokenMatch,
) -> Selection {
    let selection = robots.select(tokens, mode);
    if selection.is_global() && !policy.follows_global_group() {
        return Selection::default();
    }
    selection
}

impl<'a> Judge<'a> {
    /// A judge over the robots versions `robots` with the given grace period.
    pub fn new(robots: &'a VersionSet, grace: SignedDuration) -> Judge<'a> {
        Judge {
            robots,
            grace,
            strict: false,
        }
    }

    /// With `strict`, requests of agents whose operator says robots.txt does not bind them
    /// (`user_triggered`, `ignores`) are violations like any other, never `exempt`.
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Judge<'a> {
        self.strict = strict;
        self
    }

    /// The robots versions this judge knows.
    pub fn robots(&self) -> &'a VersionSet {
        self.robots
    }

    /// Judges one request of `agent` for `path` at `time`, against the `versions` of its origin.
    pub fn judge(
        &self,
        cache: &mut SelectionCache,
        agent: (AgentId, &AgentInfo),
        versions: &[VersionId],
        time: Timestamp,
        path: &[u8],
    ) -> Judgement {
        let in_force = self.robots.in_force_at(versions, time);
        if is_robots_fetch(path) {
            // Not judged, but a request all the same: it counts for the crawl rate.
            let crawl_delay = in_force
                .and_then(|at| versions.get(at))
                .and_then(|&current| self.extensions(cache, current, agent).crawl_delay);
            return Judgement {
                outcome: Outcome::RobotsFetch,
                crawl_delay,
                ..Judgement::unjudged()
            };
        }
        let Some(at) = in_force else {
            return Judgement::unjudged();
        };
        let upto = versions.get(..=at).unwrap_or_default();
        let Some(&current) = upto.last() else {
            return Judgement::unjudged();
        };
        let (allowed, decider, extensions) = self.decide(cache, current, agent, path);
        let mut judgement = Judgement {
            outcome: if allowed {
                Outcome::Allowed
            } else {
                Outcome::Disallowed
            },
            version: Some(current),
            decider,
            holds_under_1994: false,
            conflict: None,
            crawl_delay: extensions.crawl_delay,
        };
        if allowed {
            judgement.conflict = match extensions.preference {
                PreferenceFacts::Silent => None,
                PreferenceFacts::Constant(conflict) => conflict,
                PreferenceFacts::ByPath(content_use) => self
                    .robots
                    .version(current)
                    .robots
                    .as_ref()
                    .and_then(|robots| {
                        let selection = self.selection(cache, current, agent);
                        conflict_at(robots, selection, path, content_use)
                    }),
            };
            return judgement;
        }
        let version = self.robots.version(current);
        if self.allowed_in_grace_window(cache, agent, upto, time, path) {
            judgement.outcome = Outcome::Grace;
        } else if !self.strict && agent.1.bot.policy.robots.is_exempt() {
            judgement.outcome = Outcome::Exempt;
        }
        judgement.holds_under_1994 = match (version.effect(), &version.robots) {
            // The 1994 text: on a temporary failure a robot should defer its visits.
            (Effect::DisallowAll, _) => true,
            (Effect::Rules, Some(robots)) => {
                let selection = self.selection(cache, current, agent);
                let decided_by = match judgement.decider {
                    Decider::Rule(id) => Some(id),
                    Decider::Nothing | Decider::Status => None,
                };
                robots.holds_under_1994(selection, path, decided_by)
            }
            _ => false,
        };
        judgement
    }

    /// Whether a version in force at some moment of the grace window `[time - grace, time]`,
    /// other than the last of `upto` (the one in force at `time`), allowed the request: a crawler
    /// may hold any copy fetched in that window (`docs/contract.md`, "Grace"). Versions before
    /// the last are in force until the next one's `valid_from`, so the walk back stops at the
    /// first version that came into force at or before the window's start.
    fn allowed_in_grace_window(
        &self,
        cache: &mut SelectionCache,
        agent: (AgentId, &AgentInfo),
        upto: &[VersionId],
        time: Timestamp,
        path: &[u8],
    ) -> bool {
        let mut later = upto.iter().rev();
        let mut newer = match later.next() {
            Some(&id) => id,
            None => return false,
        };
        for &older in later {
            // `older` was in force until `newer` came: inside the window only if that was less
            // than `grace` before the request.
            let replaced_in_window = self
                .robots
                .version(newer)
                .valid_from
                .is_some_and(|from| time.duration_since(from) < self.grace);
            if !replaced_in_window {
                return false;
            }
            if self.decide(cache, older, agent, path).0 {
                return true;
            }
            newer = older;
        }
        false
    }

    fn selection<'c>(
        &self,
        cache: &'c mut SelectionCache,
        version: VersionId,
        agent: (AgentId, &AgentInfo),
    ) -> &'c Selection {
        &self.selected(cache, version, agent).0
    }

    fn extensions(
        &self,
        cache: &mut SelectionCache,
        version: VersionId,
        agent: (AgentId, &AgentInfo),
    ) -> Extensions {
        if self.robots.version(version).effect() != Effect::Rules {
            return Extensions::NONE;
        }
        self.selected(cache, version, agent).1
    }

    fn selected<'c>(
        &self,
        cache: &'c mut SelectionCache,
        version: VersionId,
        agent: (AgentId, &AgentInfo),
    ) -> &'c (Selection, Extensions) {
        if agent.1.folded {
            return self.selected_folded(cache, version, agent.1);
        }
        cache
            .selections
            .entry((version, agent.0))
            .or_insert_with(|| self.select(version, agent.1))
    }

    #[cold]
    fn selected_folded<'c>(
        &self,
        cache: &'c mut SelectionCache,
        version: VersionId,
        agent: &AgentInfo,
    ) -> &'c (Selection, Extensions) {
        let tokens = &agent.bot.tokens;
        let mut hasher = ahash::AHasher::default();
        tokens.hash(&mut hasher);
        let key = (version, hasher.finish());
        let hit = cache
            .folded
            .get(&key)
            .is_some_and(|(kept, _)| kept == tokens);
        if !hit && cache.folded.len() >= FOLDED_SELECTIONS {
            cache.folded.clear();
        }
        let kept = match cache.folded.entry(key) {
            Entry::Occupied(kept) => {
                let kept = kept.into_mut();
                if !hit {
                    // Another agent's tokens under the same hash: selected for this one.
                    *kept = (tokens.clone(), self.select(version, agent));
                }
                kept
            }
            Entry::Vacant(slot) => slot.insert((tokens.clone(), self.select(version, agent))),
        };
        &kept.1
    }

    /// The groups of `version` that apply to `agent`, and what they say beyond the rules.
    fn select(&self, version: VersionId, agent: &AgentInfo) -> (Selection, Extensions) {
        let tokens: Vec<&[u8]> = agent.bot.tokens.iter().map(|t| t.as_bytes()).collect();
        match &self.robots.version(version).robots {
            Some(robots) => {
                let selection = select_for(
                    robots,
                    &tokens,
                    agent.bot.policy.robots,
                    TokenMatch::ProductName,
                );
                let content_use = if agent.is_bot {
                    agent.bot.category.content_use()
                } else {
                    None
                };
                let extensions = Extensions::of(robots, &selection, content_use);
                (selection, extensions)
            }
            None => (Selection::default(), Extensions::NONE),
        }
    }

    /// Whether `version` allows the request, what decided, and what the version says to the
    /// agent beyond Allow and Disallow.
    fn decide(
        &self,
        cache: &mut SelectionCache,
        version: VersionId,
        agent: (AgentId, &AgentInfo),
        path: &[u8],
    ) -> (bool, Decider, Extensions) {
        let v = self.robots.version(version);
        match (v.effect(), &v.robots) {
            (Effect::DisallowAll, _) => (false, Decider::Status, Extensions::NONE),
            (Effect::Rules, Some(robots)) => {
                let (selection, extensions) = self.selected(cache, version, agent);
                let verdict = robots.verdict(selection, path);
                (
                    verdict.allowed,
                    verdict.rule.map_or(Decider::Nothing, Decider::Rule),
                    *extensions,
                )
            }
            _ => (true, Decider::Nothing, Extensions::NONE),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::versions::{FetchStatus, Version};
    use robots_audit_bots::{Catalog, Identity};

    /// `a.example` with a version from each `(valid_from, body)`.
    fn timeline(versions: &[(Option<&str>, &str)]) -> (VersionSet, Vec<VersionId>) {
        let mut set = VersionSet::new();
        let ids = versions
            .iter()
            .map(|(from, body)| {
                set.add(Version {
                    origin: "a.example".into(),
                    valid_from: from.map(|t| t.parse().unwrap()),
                    status: FetchStatus::Http(200),
                    robots: Some(Robots::parse(body.as_bytes()).into()),
                    source: "test".into(),
                    bytes: body.len() as u64,
                    sha256: None,
                })
                .unwrap()
            })
            .collect();
        (set, ids)
    }

    fn agent(user_agent: &str) -> AgentInfo {
        let catalog = Catalog::builtin();
        let Identity::Known(index) = catalog.identify(user_agent.as_bytes()) else {
            panic!("{user_agent} is in the catalog");
        };
        AgentInfo::from_bot(catalog.bots()[index].clone(), false)
    }

    fn outcome(
        judge: &Judge<'_>,
        versions: &[VersionId],
        who: &AgentInfo,
        at: &str,
        path: &str,
    ) -> Outcome {
        let mut cache = SelectionCache::default();
        let agent = (AgentId::default(), who);
        judge
            .judge(
                &mut cache,
                agent,
                versions,
                at.parse().unwrap(),
                path.as_bytes(),
            )
            .outcome
    }

    /// Folded agents share one id: each is still judged by its own tokens, through one cache.
    #[test]
    fn folded_agents_sharing_an_id_keep_their_own_groups() {
        let (set, versions) = timeline(&[(
            None,
            "User-agent: alphabot\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n",
        )]);
        let judge = Judge::new(&set, SignedDuration::ZERO);
        let folded = |name: &str| {
            let Identity::Unknown(bot) =
                Catalog::builtin().identify(format!("{name}/1.0 (+http://x.example/)").as_bytes())
            else {
                panic!("{name} declares itself a bot");
            };
            AgentInfo {
                folded: true,
                ..AgentInfo::from_bot(bot, true)
            }
        };
        let (alpha, beta) = (folded("AlphaBot"), folded("BetaBot"));
        let mut cache = SelectionCache::default();
        let shared = AgentId::default();
        let at: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        for round in 0..2 {
            for (who, path, want) in [
                (&alpha, "/a", Outcome::Disallowed),
                (&alpha, "/b", Outcome::Allowed),
                (&beta, "/a", Outcome::Allowed),
                (&beta, "/b", Outcome::Disallowed),
            ] {
                let got = judge
                    .judge(&mut cache, (shared, who), &versions, at, path.as_bytes())
                    .outcome;
                assert_eq!(got, want, "round {round}: {} {path}", who.bot.name);
            }
        }
    }

    #[test]
    fn grace_walks_back_over_every_version_in_the_window() {
        // `/x` allowed until 10:00; an unrelated change at 12:00.
        let (set, versions) = timeline(&[
            (None, "User-agent: *\nDisallow: /y\n"),
            (
                Some("2026-01-01T10:00:00Z"),
                "User-agent: *\nDisallow: /x\n",
            ),
            (
                Some("2026-01-01T12:00:00Z"),
                "User-agent: *\nDisallow: /x\nDisallow: /z\n",
            ),
        ]);
        let mj12 = agent("MJ12bot/v1.4.8");
        let cases = [
            // (grace in hours, request time, path, outcome)
            (24, "2026-01-01T13:00:00Z", "/x", Outcome::Grace),
            (4, "2026-01-01T13:00:00Z", "/x", Outcome::Grace),
            // The window starts at 10:00 sharp, when the first version was no longer in force.
            (3, "2026-01-01T13:00:00Z", "/x", Outcome::Disallowed),
            (2, "2026-01-01T13:00:00Z", "/x", Outcome::Disallowed),
            (24, "2026-01-02T09:59:59Z", "/x", Outcome::Grace),
            (24, "2026-01-02T10:00:00Z", "/x", Outcome::Disallowed),
            (0, "2026-01-01T13:00:00Z", "/x", Outcome::Disallowed),
            // The 10:00 version, in force until 12:00, allowed `/z`.
            (24, "2026-01-01T13:00:00Z", "/z", Outcome::Grace),
            (24, "2026-01-01T13:00:00Z", "/a", Outcome::Allowed),
            (24, "2026-01-01T09:00:00Z", "/y", Outcome::Disallowed),
        ];
        for (hours, at, path, expected) in cases {
            let judge = Judge::new(&set, SignedDuration::from_hours(hours));
            assert_eq!(
                outcome(&judge, &versions, &mj12, at, path),
                expected,
                "grace {hours}h, {path} at {at}"
            );
        }
    }

    #[test]
    fn robots_policies_decide_group_and_outcome() {
        let (set, versions) = timeline(&[(
            None,
            "User-agent: *\nDisallow: /\n\nUser-agent: AdsBot-Google\nDisallow: /ads-no/\n",
        )]);
        let at = "2026-01-01T13:00:00Z";
        let cases = [
            // (user-agent, strict, path, outcome)
            (
                "AdsBot-Google (+http://www.google.com/adsbot.html)",
                false,
                "/page",
                Outcome::Allowed,
            ),
            (
                "AdsBot-Google (+http://www.google.com/adsbot.html)",
                false,
                "/ads-no/1",
                Outcome::Disallowed,
            ),
            ("Mediapartners-Google", false, "/page", Outcome::Allowed),
            ("ChatGPT-User/1.0", false, "/page", Outcome::Exempt),
            ("ChatGPT-User/1.0", true, "/page", Outcome::Disallowed),
            ("Google-Safety", false, "/page", Outcome::Exempt),
            ("MJ12bot/v1.4.8", false, "/page", Outcome::Disallowed),
        ];
        for (user_agent, strict, path, expected) in cases {
            let judge = Judge::new(&set, SignedDuration::from_hours(24)).strict(strict);
            assert_eq!(
                outcome(&judge, &versions, &agent(user_agent), at, path),
                expected,
                "{user_agent} strict={strict} {path}"
            );
        }
    }

    #[test]
    fn preferences_and_delays_resolved_once_per_version_and_agent() {
        let (set, versions) = timeline(&[
            (
                None,
                "User-agent: *\nCrawl-delay: 2.5\nContent-Signal: ai-train=no, search=yes\n\
                 Disallow: /private/\n\nUser-agent: GPTBot\nContent-Usage: / train-ai=n\n\
                 Content-Usage: /open/ train-ai=y\n",
            ),
            (Some("2026-01-01T12:00:00Z"), "User-agent: *\nAllow: /\n"),
        ]);
        let judge = Judge::new(&set, SignedDuration::from_hours(0));
        let judged = |who: &AgentInfo, at: &str, path: &str| {
            let mut cache = SelectionCache::default();
            judge.judge(
                &mut cache,
                (AgentId::default(), who),
                &versions,
                at.parse().unwrap(),
                path.as_bytes(),
            )
        };
        let claude = agent("Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)");
        let gpt = agent("Mozilla/5.0 (compatible; GPTBot/1.1; +https://openai.com/gptbot)");
        let google =
            agent("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)");
        let morning = "2026-01-01T10:00:00Z";
        let signal = Some(Conflict {
            content_use: ContentUse::AiTraining,
            kind: DirectiveKind::ContentSignal,
            line: 3,
        });
        let usage = Some(Conflict {
            content_use: ContentUse::AiTraining,
            kind: DirectiveKind::ContentUsage,
            line: 7,
        });
        // (agent, time, path, outcome, conflict, delay)
        let cases = [
            (
                &claude,
                morning,
                "/a",
                Outcome::Allowed,
                signal,
                Some(2_500),
            ),
            // A violation is never a conflict.
            (
                &claude,
                morning,
                "/private/a",
                Outcome::Disallowed,
                None,
                Some(2_500),
            ),
            // Robots fetches are not judged, but count for the crawl rate.
            (
                &claude,
                morning,
                "/robots.txt",
                Outcome::RobotsFetch,
                None,
                Some(2_500),
            ),
            (&google, morning, "/a", Outcome::Allowed, None, Some(2_500)),
            (&gpt, morning, "/a", Outcome::Allowed, usage, None),
            (&gpt, morning, "/open/a", Outcome::Allowed, None, None),
            // The version of 12:00 says nothing beyond Allow.
            (
                &claude,
                "2026-01-01T13:00:00Z",
                "/a",
                Outcome::Allowed,
                None,
                None,
            ),
        ];
        for (who, at, path, outcome, conflict, delay) in cases {
            let judgement = judged(who, at, path);
            assert_eq!(
                (judgement.outcome, judgement.conflict, judgement.crawl_delay),
                (outcome, conflict, delay),
                "{} {at} {path}",
                who.bot.name
            );
        }
        // The initial version has no start: it is in force before the first dated one.
        let early = judged(&claude, "2025-01-01T00:00:00Z", "/robots.txt");
        assert_eq!(
            early.crawl_delay,
            Some(2_500),
            "the initial version is in force from the start"
        );
    }

    #[test]
    fn preferences_for_every_path_are_resolved_once() {
        let facts = |body: &str, user_agent: &str| {
            let robots = Robots::parse(body.as_bytes());
            let who = agent(user_agent);
            let tokens: Vec<&[u8]> = who.bot.tokens.iter().map(|t| t.as_bytes()).collect();
            let selection = select_for(
                &robots,
                &tokens,
                who.bot.policy.robots,
                TokenMatch::ProductName,
            );
            Extensions::of(&robots, &selection, who.bot.category.content_use()).preference
        };
        let gpt = "Mozilla/5.0 (compatible; GPTBot/1.1; +https://openai.com/gptbot)";
        let seo = "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)";
        let no = Some(Conflict {
            content_use: ContentUse::AiTraining,
            kind: DirectiveKind::ContentUsage,
            line: 2,
        });
        let cases = [
            (
                "User-agent: *\nDisallow: /x\n",
                gpt,
                PreferenceFacts::Silent,
            ),
            (
                "User-agent: *\nContent-Usage: / train-ai=n\n",
                gpt,
                PreferenceFacts::Constant(no),
            ),
            (
                "User-agent: *\nContent-Usage: train-ai=n\n",
                gpt,
                PreferenceFacts::Constant(no),
            ),
            (
                "User-agent: *\nContent-Usage: / train-ai=y\n",
                gpt,
                PreferenceFacts::Constant(None),
            ),
            (
                "User-agent: *\nContent-Usage: / train-ai=n\nContent-Usage: /a/ train-ai=y\n",
                gpt,
                PreferenceFacts::ByPath(ContentUse::AiTraining),
            ),
            // A category with no use, or a group that is not the bot's, says nothing.
            (
                "User-agent: *\nContent-Usage: / train-ai=n\n",
                seo,
                PreferenceFacts::Silent,
            ),
            (
                "User-agent: GPTBot\nAllow: /\n\nUser-agent: *\nContent-Usage: / train-ai=n\n",
                gpt,
                PreferenceFacts::Silent,
            ),
        ];
        for (body, user_agent, expected) in cases {
            assert_eq!(facts(body, user_agent), expected, "{body:?} {user_agent}");
        }
    }

    #[test]
    fn match_paths() {
        let mut buf = Vec::new();
        type Case = (&'static [u8], Option<&'static [u8]>, &'static [u8]);
        let cases: [Case; 10] = [
            (b"/a/b?c=d", None, b"/a/b?c=d"),
            (b"/a#frag", None, b"/a"),
            (b"//double/slash", None, b"//double/slash"),
            (b"https://example.com/x/y?z", None, b"/x/y?z"),
            (b"https://example.com", None, b"/"),
            (b"/stem", Some(b"q=1"), b"/stem?q=1"),
            (b"/stem", Some(b"-"), b"/stem"),
            (b"*", None, b"/"),
            (b"/a#b", Some(b"q"), b"/a?q"),
            (b"/a?x#y", Some(b""), b"/a?x"),
        ];
        for (target, query, want) in cases {
            assert_eq!(
                match_path(target, query, &mut buf),
                want,
                "{:?}",
                String::from_utf8_lossy(target)
            );
        }
    }

    #[test]
    fn robots_fetches() {
        assert!(is_robots_fetch(b"/robots.txt"));
        assert!(is_robots_fetch(b"/robots.txt?x=1"));
        assert!(!is_robots_fetch(b"/robots.txt.bak"));
        assert!(!is_robots_fetch(b"/a/robots.txt"));
        assert!(!is_robots_fetch(b"/robots.txtx?a"));
        assert!(!is_robots_fetch(b"/robots.tx"));
        let mut buf = Vec::new();
        for (target, query) in [
            (&b"/robots.txt"[..], None),
            (b"/robots.txt?x", None),
            (b"/robots.txt#top", Some(&b"a=1"[..])),
            (b"/robots.txt", Some(b"a=1")),
            (b"/robots.txtx", None),
            (b"/robots.tx", Some(b"t")),
            (b"/a/robots.txt", None),
            (b"http://a.example/robots.txt", None),
            (b"http://a.example/robots.txt;x?y", None),
            (b"http://a.example/a/robots.txt", None),
            (b"*", None),
        ] {
            let path = match_path(target, query, &mut buf).to_vec();
            assert_eq!(
                is_robots_fetch_target(target, query, &mut buf),
                is_robots_fetch(&path),
                "{}",
                String::from_utf8_lossy(target)
            );
        }
    }

    /// The robots.txt of one kind of version in [`in_force_and_grace_follow_the_contract`]
    /// (`None` for a status without a file), and whether it allows `path`, as
    /// docs/guide/robots-sources.md states each status.
    fn kind(kind: usize) -> (FetchStatus, Option<&'static str>, fn(&str) -> bool) {
        match kind {
            0 => (
                FetchStatus::Http(200),
                Some("User-agent: *\nDisallow: /a\n"),
                |p| p != "/a",
            ),
            1 => (
                FetchStatus::Http(200),
                Some("User-agent: *\nDisallow: /b\n"),
                |p| p != "/b",
            ),
            2 => (FetchStatus::Http(503), None, |_| false),
            3 => (FetchStatus::Http(404), None, |_| true),
            4 => (FetchStatus::Unreachable, None, |_| false),
            5 => (FetchStatus::Http(102), None, |_| false),
            6 => (FetchStatus::Http(301), None, |_| true),
            _ => (FetchStatus::Http(429), None, |_| false),
        }
    }

    /// Googlebot, which obeys, and ChatGPT-User, a user-triggered fetcher: built once, as
    /// identifying them reads the whole catalog.
    static TIMELINE_AGENTS: std::sync::LazyLock<(AgentInfo, AgentInfo)> =
        std::sync::LazyLock::new(|| {
            (
                agent("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"),
                agent("Mozilla/5.0 (compatible; ChatGPT-User/1.0; +https://openai.com/bot)"),
            )
        });

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]
        /// The version in force, grace and exemption over random timelines, against a scan
        /// written from docs/contract.md ("Semantics of one request", "Grace"): the version in
        /// force at `t` is the one with the latest `valid_from` at or before `t` (an empty one
        /// is earlier than any); none is `unjudged`. A disallowed request is `grace` when a
        /// version in force at some moment of `[t - grace, t]` allowed it (one replaced exactly
        /// at `t - grace` was not), else `exempt` for a user-triggered fetcher unless strict.
        /// Times are whole seconds in a short span, so requests fall on, just before and just
        /// after changes and window edges; versions are added in any order, two at the same
        /// moment refused, and sorting the set changes no answer.
        #[test]
        fn in_force_and_grace_follow_the_contract(
            loaded in proptest::collection::vec(
                (proptest::option::of(0i64..40), 0usize..8), 0..7),
            requests in proptest::collection::vec((-3i64..60, 0usize..3, proptest::bool::ANY), 1..24),
            grace in 0i64..25,
            strict in proptest::bool::ANY,
        ) {
            const BASE: i64 = 1_774_746_000;
            let mut set = VersionSet::new();
            let mut timeline: Vec<(Option<i64>, usize)> = Vec::new();
            for &(from, version_kind) in &loaded {
                let (status, body, _) = kind(version_kind);
                let added = set.add(Version {
                    origin: "a.example".into(),
                    valid_from: from.map(|s| Timestamp::from_second(BASE + s).unwrap()),
                    status,
                    robots: body.map(|b| Robots::parse(b.as_bytes()).into()),
                    source: format!("{from:?} {version_kind}"),
                    bytes: 0,
                    sha256: None,
                });
                let clash = timeline.iter().any(|&(other, _)| other == from);
                proptest::prop_assert_eq!(added.is_err(), clash);
                if !clash {
                    timeline.push((from, version_kind));
                }
            }
            let (crawler, fetcher) = &*TIMELINE_AGENTS;
            let origin = crate::origin::Origin::parse("https://a.example").unwrap();
            let expected = |at: i64, path: &str, exempt: bool| -> (Outcome, Option<String>) {
                // Latest `valid_from` at or before `at`; `None` sorts before every time.
                let Some(&(from, current)) = timeline
                    .iter()
                    .filter(|(from, _)| from.is_none_or(|f| f <= at))
                    .max_by_key(|(from, _)| *from)
                else {
                    return (Outcome::Unjudged, None);
                };
                let label = from.map_or("initial".to_owned(), |f| {
                    Timestamp::from_second(BASE + f).unwrap().to_string()
                });
                if kind(current).2(path) {
                    return (Outcome::Allowed, Some(label));
                }
                // Versions before `current`, each in force until the next one's start.
                let in_window_and_allowing = timeline.iter().any(|&(start, other)| {
                    let before_current = match (start, from) {
                        (_, None) => false,
                        (None, Some(_)) => true,
                        (Some(s), Some(f)) => s < f,
                    };
                    let next = timeline
                        .iter()
                        .filter_map(|&(s, _)| s)
                        .filter(|&s| start.is_none_or(|own| s > own))
                        .min();
                    before_current
                        && next.is_some_and(|end| end > at - grace)
                        && kind(other).2(path)
                });
                let outcome = if in_window_and_allowing {
                    Outcome::Grace
                } else if exempt && !strict {
                    Outcome::Exempt
                } else {
                    Outcome::Disallowed
                };
                (outcome, Some(label))
            };
            let answer = |set: &VersionSet, at: i64, path: &str, is_fetcher: bool| {
                let judge = Judge::new(set, SignedDuration::from_secs(grace)).strict(strict);
                let judged = judge.judge(
                    &mut SelectionCache::default(),
                    (AgentId::default(), if is_fetcher { fetcher } else { crawler }),
                    &set.versions_of(&origin),
                    Timestamp::from_second(BASE + at).unwrap(),
                    path.as_bytes(),
                );
                (judged.outcome, judged.version.map(|v| set.version(v).label()))
            };
            let paths = ["/a", "/b", "/c"];
            let mut answers = Vec::new();
            for &(at, path, is_fetcher) in &requests {
                let got = answer(&set, at, paths[path], is_fetcher);
                proptest::prop_assert_eq!(
                    &got,
                    &expected(at, paths[path], is_fetcher),
                    "{} at +{}s, grace {}s, strict {}, timeline {:?}",
                    paths[path], at, grace, strict, timeline
                );
                answers.push(got);
            }
            set.sort_versions();
            for (&(at, path, is_fetcher), before) in requests.iter().zip(&answers) {
                let got = answer(&set, at, paths[path], is_fetcher);
                proptest::prop_assert_eq!(&got, before, "after sorting");
            }
        }
    }
}
