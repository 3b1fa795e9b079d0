//! One request to one verdict: the robots version in force, the group, the deciding rule,
//! grace and the 1994 reading (README "How a request is judged", steps 3 to 8).

use std::borrow::Cow;

use ahash::AHashMap;
use jiff::{SignedDuration, Timestamp};
use robots_audit_bots::RobotsPolicy;
use robots_audit_engine::{Robots, RuleId, Selection, TokenMatch, path_params_query};

use super::identity::AgentInfo;
use super::stats::Outcome;
use crate::ids::{AgentId, VersionId};
use crate::policy::{Effect, PolicySet};

/// What decided a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

impl Judgement {
    pub(crate) fn unjudged() -> Judgement {
        Judgement {
            outcome: Outcome::Unjudged,
            version: None,
            decider: Decider::Nothing,
            holds_under_1994: false,
        }
    }
}

/// The shared, read-only part of judging: the robots versions, the grace period and whether
/// documented exemptions count (`--strict`).
#[derive(Debug)]
pub struct Judge<'a> {
    policy: &'a PolicySet,
    grace: SignedDuration,
    strict: bool,
}

/// One thread's cache of group selections, one per robots version and agent.
#[derive(Debug, Default)]
pub struct SelectionCache {
    selections: AHashMap<(VersionId, AgentId), Selection>,
}

/// Is this the path of a robots.txt fetch? Its query does not matter.
pub fn is_robots_fetch(path: &[u8]) -> bool {
    // Compared as an array, which needs no call to `memcmp` for every request.
    path.first_chunk::<11>() == Some(b"/robots.txt") && matches!(path.get(11), None | Some(b'?'))
}

/// The path the matcher sees, from a request target and a separately logged query: an
/// origin-form target (`/a?b`) is used as it is, up to a fragment; an absolute URL goes through
/// Google's URL-to-path rule. Borrows the target when it can be used as it is, and builds the
/// path in `buf` otherwise.
pub fn match_path<'b>(target: &'b [u8], query: Option<&[u8]>, buf: &'b mut Vec<u8>) -> &'b [u8] {
    let query = query.filter(|q| !q.is_empty() && *q != b"-");
    if target.first() == Some(&b'/') {
        let path = match memchr::memchr(b'#', target) {
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
    /// A judge over `policy` with the given grace period.
    pub fn new(policy: &'a PolicySet, grace: SignedDuration) -> Judge<'a> {
        Judge {
            policy,
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
    pub fn policy(&self) -> &'a PolicySet {
        self.policy
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
        if is_robots_fetch(path) {
            return Judgement {
                outcome: Outcome::RobotsFetch,
                ..Judgement::unjudged()
            };
        }
        let Some(at) = self.policy.in_force_at(versions, time) else {
            return Judgement::unjudged();
        };
        let upto = versions.get(..=at).unwrap_or_default();
        let Some(&current) = upto.last() else {
            return Judgement::unjudged();
        };
        let (allowed, decider) = self.decide(cache, current, agent, path);
        let mut judgement = Judgement {
            outcome: if allowed {
                Outcome::Allowed
            } else {
                Outcome::Disallowed
            },
            version: Some(current),
            decider,
            holds_under_1994: false,
        };
        if allowed {
            return judgement;
        }
        let version = self.policy.version(current);
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
                robots.disallowed_1994(selection, path).is_some()
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
                .policy
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
        cache
            .selections
            .entry((version, agent.0))
            .or_insert_with(|| {
                let tokens: Vec<&[u8]> = agent.1.bot.tokens.iter().map(|t| t.as_bytes()).collect();
                match &self.policy.version(version).robots {
                    Some(robots) => select_for(
                        robots,
                        &tokens,
                        agent.1.bot.policy.robots,
                        TokenMatch::ProductName,
                    ),
                    None => Selection::default(),
                }
            })
    }

    /// Whether `version` allows the request, and what decided.
    fn decide(
        &self,
        cache: &mut SelectionCache,
        version: VersionId,
        agent: (AgentId, &AgentInfo),
        path: &[u8],
    ) -> (bool, Decider) {
        let v = self.policy.version(version);
        match (v.effect(), &v.robots) {
            (Effect::DisallowAll, _) => (false, Decider::Status),
            (Effect::Rules, Some(robots)) => {
                let selection = self.selection(cache, version, agent);
                let verdict = robots.verdict(selection, path);
                (
                    verdict.allowed,
                    verdict.rule.map_or(Decider::Nothing, Decider::Rule),
                )
            }
            _ => (true, Decider::Nothing),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{FetchStatus, Version};
    use robots_audit_bots::{Catalog, Identity};

    /// `a.example` with a version from each `(valid_from, body)`.
    fn timeline(versions: &[(Option<&str>, &str)]) -> (PolicySet, Vec<VersionId>) {
        let mut policy = PolicySet::new();
        let ids = versions
            .iter()
            .map(|(from, body)| {
                policy
                    .add(Version {
                        origin: "a.example".into(),
                        valid_from: from.map(|t| t.parse().unwrap()),
                        status: FetchStatus::Http(200),
                        robots: Some(Robots::parse(body.as_bytes())),
                        source: "test".into(),
                        bytes: body.len() as u64,
                        sha256: None,
                    })
                    .unwrap()
            })
            .collect();
        (policy, ids)
    }

    fn agent(user_agent: &str) -> AgentInfo {
        let catalog = Catalog::builtin();
        let Identity::Known(index) = catalog.identify(user_agent.as_bytes()) else {
            panic!("{user_agent} is in the catalog");
        };
        AgentInfo {
            bot: catalog.bots()[index].clone(),
            is_bot: true,
        }
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

    #[test]
    fn grace_walks_back_over_every_version_in_the_window() {
        // `/x` allowed until 10:00; an unrelated change at 12:00.
        let (policy, versions) = timeline(&[
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
            let judge = Judge::new(&policy, SignedDuration::from_hours(hours));
            assert_eq!(
                outcome(&judge, &versions, &mj12, at, path),
                expected,
                "grace {hours}h, {path} at {at}"
            );
        }
    }

    #[test]
    fn robots_policies_decide_group_and_outcome() {
        let (policy, versions) = timeline(&[(
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
            let judge = Judge::new(&policy, SignedDuration::from_hours(24)).strict(strict);
            assert_eq!(
                outcome(&judge, &versions, &agent(user_agent), at, path),
                expected,
                "{user_agent} strict={strict} {path}"
            );
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
    }
}
