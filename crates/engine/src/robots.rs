//! The parsed and compiled robots.txt: [`Robots`] owns the parts ([`crate::rules`]) and answers
//! for any crawler.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::compile::{Candidate, GroupMatcher, MatchStrategy, Plan};
use crate::directives::{
    Directive, DirectiveKind, DirectiveValue, Directives, IgnoredDirective, Preference,
    RequestRate, Stance, Use, VisitTime,
};
use crate::parse::{ParseOptions, ParseStats, parse};
use crate::rules::{Group, GroupId, Rule, RuleId};
use crate::select::{Selection, TokenMatch, select};

/// The outcome of matching one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Verdict {
    /// Whether the path may be crawled.
    pub allowed: bool,
    /// The rule that decided, or `None` when no rule matched. For an index.htm rewrite, the allow
    /// rule that produced it.
    pub rule: Option<RuleId>,
}

/// One robots.txt body, parsed and ready to answer for any crawler.
///
/// Parsing never fails: whatever the bytes, Google's parser reads something out of them. Each
/// group is compiled on first use and then shared; a `Robots` is `Send + Sync`.
///
/// ```
/// use robots_audit_engine::{Robots, TokenMatch, path_params_query};
///
/// let robots = Robots::parse(b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\n");
/// let crawler = robots.select(&[b"FooBot"], TokenMatch::ProductName);
/// let path = path_params_query(b"https://example.com/private/x?y=1");
/// let verdict = robots.verdict(&crawler, &path);
/// assert!(!verdict.allowed);
/// let rule = &robots.rules()[verdict.rule.unwrap() as usize];
/// assert_eq!((rule.text.as_str(), rule.line), ("Disallow: /private/", 2));
/// ```
#[derive(Debug)]
pub struct Robots {
    stats: ParseStats,
    groups: Vec<Group>,
    rules: Vec<Rule>,
    sitemaps: Vec<Box<[u8]>>,
    directives: Directives,
    matchers: Box<[OnceLock<GroupMatcher>]>,
    strategy: MatchStrategy,
    /// Set once a search of one of its automata thrashed: all of them are then matched
    /// linearly (`crates/engine/src/compile.rs`, module docs).
    thrashed: Arc<AtomicBool>,
}

impl Robots {
    /// Parses a whole body, as Google's library does. Same as [`Robots::parse_with`] with the
    /// default options.
    #[must_use]
    pub fn parse(body: &[u8]) -> Robots {
        Robots::parse_with(body, &ParseOptions::default())
    }

    /// Parses a body with `options`. Never fails and never panics.
    #[must_use]
    pub fn parse_with(body: &[u8], options: &ParseOptions) -> Robots {
        let parsed = parse(body, options);
        let matchers = parsed.groups.iter().map(|_| OnceLock::new()).collect();
        Robots {
            stats: parsed.stats,
            groups: parsed.groups,
            rules: parsed.rules,
            sitemaps: parsed.sitemaps,
            directives: parsed.directives,
            matchers,
            strategy: MatchStrategy::Auto,
            thrashed: Arc::default(),
        }
    }

    /// The same robots.txt, with its groups compiled as `strategy` says from now on (groups
    /// compiled before are compiled again). For testing and diagnosis: every strategy gives
    /// the same verdicts, and [`MatchStrategy::Auto`], the default, is the fastest.
    ///
    /// ```
    /// use robots_audit_engine::{MatchStrategy, Robots, TokenMatch};
    ///
    /// let body = b"user-agent: *\ndisallow: /a\nallow: /a/b$\n";
    /// for strategy in MatchStrategy::ALL {
    ///     let robots = Robots::parse(body).with_strategy(strategy);
    ///     let all = robots.select(&[], TokenMatch::Google);
    ///     assert!(!robots.verdict(&all, b"/a/c").allowed);
    ///     assert!(robots.verdict(&all, b"/a/b").allowed);
    /// }
    /// ```
    #[must_use]
    pub fn with_strategy(mut self, strategy: MatchStrategy) -> Robots {
        self.strategy = strategy;
        self.matchers = self.groups.iter().map(|_| OnceLock::new()).collect();
        self.thrashed = Arc::default();
        self
    }

    /// How the groups are compiled.
    #[must_use]
    pub fn strategy(&self) -> MatchStrategy {
        self.strategy
    }

    /// What the parser saw.
    #[must_use]
    pub fn stats(&self) -> &ParseStats {
        &self.stats
    }

    /// The groups in file order.
    #[must_use]
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// Every allow and disallow rule inside a group, in file order.
    #[must_use]
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The non-empty sitemap values, raw, in file order.
    #[must_use]
    pub fn sitemaps(&self) -> &[Box<[u8]>] {
        &self.sitemaps
    }

    /// The groups that apply to a crawler answering to `tokens`, compared as `mode` says.
    ///
    /// When no group names any token, all `*` groups apply; a token named anywhere, even by a
    /// group without rules, switches the `*` groups off for that crawler. A group naming both
    /// `*` and a token counts as naming the token.
    ///
    /// ```
    /// use robots_audit_engine::{Robots, TokenMatch};
    ///
    /// let robots = Robots::parse(b"user-agent: googlebot\nallow: /\n\nuser-agent: *\ndisallow: /\n");
    /// let google = robots.select(&[b"Googlebot-Image", b"Googlebot"], TokenMatch::ProductName);
    /// assert_eq!((google.groups(), google.is_global()), (&[0][..], false));
    /// let other = robots.select(&[b"OtherBot"], TokenMatch::Google);
    /// assert_eq!((other.groups(), other.is_global()), (&[1][..], true));
    /// ```
    #[must_use]
    pub fn select(&self, tokens: &[&[u8]], mode: TokenMatch) -> Selection {
        select(&self.groups, tokens, mode)
    }

    /// Google's decision for `path` (the output of
    /// [`path_params_query`](crate::path_params_query)) under the selected groups.
    ///
    /// Among the matching non-empty rules the longest pattern wins and allow wins a tie; with no
    /// match the path is allowed. Patterns match from the start of the path, byte for byte and
    /// case-sensitively; `*` matches any bytes and a final `$` anchors the end. The reported
    /// rule is the winner, the first in file order among equal ones.
    ///
    /// ```
    /// use robots_audit_engine::{Robots, TokenMatch};
    ///
    /// let robots = Robots::parse(b"user-agent: *\nallow: /page\ndisallow: /*.htm\n");
    /// let all = robots.select(&[], TokenMatch::Google);
    /// assert!(!robots.verdict(&all, b"/page.htm").allowed);
    /// assert!(robots.verdict(&all, b"/page").allowed);
    /// assert_eq!(robots.verdict(&all, b"/other").rule, None);
    /// ```
    #[must_use]
    pub fn verdict(&self, selection: &Selection, path: &[u8]) -> Verdict {
        let mut best: Option<Candidate> = None;
        for &group in selection.groups() {
            let Some(matcher) = self.matcher(group) else {
                continue;
            };
            if let Some(candidate) = matcher.best(&self.rules, path)
                && best.is_none_or(|best| candidate.beats(&best))
            {
                best = Some(candidate);
            }
        }
        match best {
            Some(winner) => Verdict {
                allowed: winner.allow,
                rule: Some(winner.rule),
            },
            None => Verdict {
                allowed: true,
                rule: None,
            },
        }
    }

    /// The 1994 reading of the same selection: the first non-empty Disallow rule, in file order,
    /// whose escaped pattern is a plain byte prefix of `path` (`*` and `$` taken literally, Allow
    /// ignored).
    ///
    /// ```
    /// use robots_audit_engine::{Robots, TokenMatch};
    ///
    /// let robots = Robots::parse(b"user-agent: *\nallow: /a/b\ndisallow: /a\ndisallow: /*.pdf\n");
    /// let all = robots.select(&[], TokenMatch::Google);
    /// assert_eq!(robots.disallowed_1994(&all, b"/a/b"), Some(1));
    /// assert_eq!(robots.disallowed_1994(&all, b"/x.pdf"), None);
    /// ```
    #[must_use]
    pub fn disallowed_1994(&self, selection: &Selection, path: &[u8]) -> Option<RuleId> {
        crate::legacy::disallowed_1994(&self.groups, &self.rules, selection, path)
    }

    /// Whether the 1994 reading of the selection disallows `path` too: the same answer as
    /// [`disallowed_1994`](Self::disallowed_1994)`.is_some()`. The rule that decided Google's
    /// verdict on the same path, `decided_by`, is tried first: a Disallow rule of the selected
    /// groups that is a plain prefix of the path answers at once, without scanning the others,
    /// and that is what decides most disallowed requests.
    ///
    /// ```
    /// use robots_audit_engine::{Robots, TokenMatch};
    ///
    /// let robots = Robots::parse(b"user-agent: *\ndisallow: /a\ndisallow: /*.pdf\n");
    /// let all = robots.select(&[], TokenMatch::Google);
    /// let verdict = robots.verdict(&all, b"/a/b");
    /// assert!(robots.holds_under_1994(&all, b"/a/b", verdict.rule));
    /// let verdict = robots.verdict(&all, b"/x.pdf");
    /// assert!(!verdict.allowed);
    /// assert!(!robots.holds_under_1994(&all, b"/x.pdf", verdict.rule));
    /// ```
    #[must_use]
    pub fn holds_under_1994(
        &self,
        selection: &Selection,
        path: &[u8],
        decided_by: Option<RuleId>,
    ) -> bool {
        let witness = decided_by
            .and_then(|id| self.rules.get(id as usize))
            .filter(|rule| selection.groups().contains(&rule.group));
        witness.is_some_and(|rule| crate::legacy::disallows_1994(rule, path))
            || self.disallowed_1994(selection, path).is_some()
    }

    /// The group's user-agent values joined by `|` (lossy UTF-8); empty for an unknown group.
    ///
    /// ```
    /// use robots_audit_engine::Robots;
    ///
    /// let robots = Robots::parse(b"user-agent: a\nuser-agent: B/1.0\ndisallow: /\n");
    /// assert_eq!(robots.group_label(0), "a|B/1.0");
    /// ```
    #[must_use]
    pub fn group_label(&self, group: GroupId) -> String {
        let Some(group) = self.groups.get(group as usize) else {
            return String::new();
        };
        let joined = group.agents.join(&b'|');
        String::from_utf8_lossy(&joined).into_owned()
    }

    /// Every crawl-rate and preference directive that took effect, in file order.
    ///
    /// ```
    /// use robots_audit_engine::{DirectiveKind, Robots};
    ///
    /// let robots = Robots::parse(b"user-agent: *\ncrawl-delay: 5\ncontent-signal: ai-train=no\n");
    /// let kinds: Vec<_> = robots.directives().iter().map(|d| d.value.kind()).collect();
    /// assert_eq!(kinds, [DirectiveKind::CrawlDelay, DirectiveKind::ContentSignal]);
    /// ```
    #[must_use]
    pub fn directives(&self) -> &[Directive] {
        &self.directives.all
    }

    /// The crawl-rate and preference lines that took no effect, with the reason, in file order.
    /// Each is also counted in [`ParseStats::ignored_lines`].
    ///
    /// ```
    /// use robots_audit_engine::{IgnoredReason, Robots};
    ///
    /// let robots = Robots::parse(b"crawl-delay: 1\nuser-agent: *\ncrawl-delay: soon\n");
    /// let reasons: Vec<_> = robots.ignored_directives().iter().map(|i| (i.line, i.reason)).collect();
    /// assert_eq!(reasons, [(1, IgnoredReason::OutsideGroup), (3, IgnoredReason::Malformed)]);
    /// assert_eq!(robots.stats().ignored_lines, 2);
    /// ```
    #[must_use]
    pub fn ignored_directives(&self) -> &[IgnoredDirective] {
        &self.directives.ignored
    }

    /// The directives of one group, in file order; empty for an unknown group.
    #[must_use]
    pub fn group_directives(&self, group: GroupId) -> &[Directive] {
        self.directives.of_group(group)
    }

    /// The crawl delay in force for a selection: the longest `Crawl-delay` over its groups (two
    /// in one group: the longer wins too), the first in file order among equal ones.
    ///
    /// ```
    /// use std::time::Duration;
    /// use robots_audit_engine::{Robots, TokenMatch};
    ///
    /// let robots = Robots::parse(b"user-agent: bingbot\ncrawl-delay: 2\ncrawl-delay: 10s\n");
    /// let bing = robots.select(&[b"bingbot"], TokenMatch::ProductName);
    /// let (delay, line) = robots.crawl_delay(&bing).unwrap();
    /// assert_eq!((delay, line.line, line.text.as_str()), (Duration::from_secs(10), 3, "crawl-delay: 10s"));
    /// ```
    #[must_use]
    pub fn crawl_delay(&self, selection: &Selection) -> Option<(Duration, &Directive)> {
        self.directives.crawl_delay(selection.groups())
    }

    /// The strictest `Request-rate` over the selection's groups (fewest requests per second).
    #[must_use]
    pub fn request_rate(&self, selection: &Selection) -> Option<(RequestRate, &Directive)> {
        self.directives.request_rate(selection.groups())
    }

    /// The `Visit-time` windows of the selection's groups, in file order. Several windows are
    /// alternatives: a time is inside when any window holds it.
    pub fn visit_times<'a>(
        &'a self,
        selection: &'a Selection,
    ) -> impl Iterator<Item = (VisitTime, &'a Directive)> + 'a {
        selection
            .groups()
            .iter()
            .flat_map(|group| self.directives.of_group(*group))
            .filter_map(|directive| match directive.value {
                DirectiveValue::VisitTime(window) => Some((window, directive)),
                _ => None,
            })
    }

    /// The `Content-Signal` preference in force for `path` and `use_` under the selection.
    ///
    /// The signals of all selected groups are read together, like their rules: among those
    /// whose path matches (a signal without a path applies to every path, below any that names one), the longest path decides;
    /// among equally long ones a `no` beats a `yes`. `None` when no signal speaks about the use.
    ///
    /// ```
    /// use robots_audit_engine::{Robots, Stance, TokenMatch, Use};
    ///
    /// let robots = Robots::parse(b"User-Agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n");
    /// let gptbot = robots.select(&[b"GPTBot"], TokenMatch::ProductName);
    /// let train = robots.signal(&gptbot, b"/a", Use::TrainAi).unwrap();
    /// assert_eq!((train.value, train.line), (Stance::No, 2));
    /// assert_eq!(robots.signal(&gptbot, b"/a", Use::AiInput), None);
    /// ```
    #[must_use]
    pub fn signal(&self, selection: &Selection, path: &[u8], use_: Use) -> Option<Preference<'_>> {
        self.directives
            .preference(selection.groups(), DirectiveKind::ContentSignal, path, use_)
    }

    /// The `Content-Usage` preference in force for `path` and `use_` under the selection
    /// (draft-ietf-aipref-attach): the rule with the longest matching path decides, as for
    /// Allow and Disallow; among equally long ones the most restrictive wins. Within a rule the
    /// narrowest vocabulary category stated for the use decides ([`Use::usage_labels`]).
    ///
    /// ```
    /// use robots_audit_engine::{Robots, Stance, TokenMatch, Use};
    ///
    /// let robots = Robots::parse(
    ///     b"User-Agent: *\nAllow: /\nContent-Usage: / train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n",
    /// );
    /// let all = robots.select(&[b"AnyBot"], TokenMatch::ProductName);
    /// assert_eq!(robots.usage(&all, b"/test", Use::TrainAi).unwrap().value, Stance::No);
    /// assert_eq!(robots.usage(&all, b"/ai-ok/test", Use::TrainAi).unwrap().value, Stance::Yes);
    /// ```
    #[must_use]
    pub fn usage(&self, selection: &Selection, path: &[u8], use_: Use) -> Option<Preference<'_>> {
        self.directives
            .preference(selection.groups(), DirectiveKind::ContentUsage, path, use_)
    }

    /// The preference in force from both mechanisms: a `no` from either wins (the aipref
    /// vocabulary's combining rule); when both agree, the Content-Usage line is reported.
    #[must_use]
    pub fn preference(
        &self,
        selection: &Selection,
        path: &[u8],
        use_: Use,
    ) -> Option<Preference<'_>> {
        let usage = self.usage(selection, path, use_);
        let signal = self.signal(selection, path, use_);
        match (usage, signal) {
            (Some(usage), Some(signal))
                if signal.value == Stance::No && usage.value == Stance::Yes =>
            {
                Some(signal)
            }
            (Some(usage), _) => Some(usage),
            (None, signal) => signal,
        }
    }

    /// Compiles every group now instead of on first use, for example right after loading when
    /// the first verdicts should not pay for compilation.
    pub fn compile(&self) {
        for group in 0..self.groups.len() {
            let _ = self.matcher(saturating_group_id(group));
        }
    }

    fn matcher(&self, group: GroupId) -> Option<&GroupMatcher> {
        let slot = self.matchers.get(group as usize)?;
        if let Some(matcher) = slot.get() {
            return Some(matcher);
        }
        let rules = self.groups.get(group as usize)?.rules.clone();
        Some(slot.get_or_init(|| {
            GroupMatcher::sharing(&self.rules, rules, &Plan::of(self.strategy), &self.thrashed)
        }))
    }
}

fn saturating_group_id(index: usize) -> GroupId {
    GroupId::try_from(index).unwrap_or(GroupId::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Robots>();
        assert_send_sync::<Selection>();
    }

    #[test]
    fn foreign_selections_do_not_panic() {
        let big = Robots::parse(
            b"user-agent: a\nuser-agent: b\ndisallow: /\nuser-agent: c\ndisallow: /\n",
        );
        let selection = big.select(&[b"c"], TokenMatch::Google);
        let small = Robots::parse(b"user-agent: *\ndisallow: /x\n");
        assert_eq!(
            small.verdict(&selection, b"/x"),
            Verdict {
                allowed: true,
                rule: None
            }
        );
        assert_eq!(small.disallowed_1994(&selection, b"/x"), None);
        assert_eq!(small.group_label(7), "");
    }

    #[test]
    fn both_engines_agree_on_a_realistic_file() {
        // Enough rules for an automaton, against the same rules scanned.
        let mut body = b"user-agent: *\ndisallow: /search\nallow: /search/about\n\
            disallow: /*?sid=\nallow: /*.css$\ndisallow: /private*/\nallow: /docs/index.html\n\
            disallow: /docs/\n"
            .to_vec();
        for i in 0..40 {
            body.extend_from_slice(
                format!("disallow: /extra{i}/*.php$\nallow: /extra{i}/\n").as_bytes(),
            );
        }
        let automata = Robots::parse(&body);
        let scan = Robots::parse(&body).with_strategy(MatchStrategy::Scan);
        let all = automata.select(&[], TokenMatch::Google);
        for path in [
            "/",
            "/search",
            "/search/about",
            "/search?q",
            "/a?sid=1",
            "/x.css",
            "/x.css?v",
            "/private1/x",
            "/privat/",
            "/docs/",
            "/docs/x",
            "/docs/index.html",
            "/extra3/",
            "/extra3/a.php",
            "/extra3/a.php?x",
            "/extra39/b/c.php",
        ] {
            assert_eq!(
                automata.verdict(&all, path.as_bytes()),
                scan.verdict(&all, path.as_bytes()),
                "path {path}"
            );
        }
    }

    /// Two groups of rules with 16 `*` whose literals the path meets in turn, the last never:
    /// a search of the first group's automaton thrashes, and the second group, compiled after,
    /// is matched linearly without a search of its own, as is every group of the file.
    #[test]
    fn one_thrashing_group_sends_every_group_to_the_linear_matcher() {
        let (rules, path) = crate::compile::tests::thrashing_rules_and_path(1024);
        let per_group = rules.len();
        let rules: String = rules
            .iter()
            .map(|rule| format!("Disallow: {}\n", String::from_utf8_lossy(&rule.pattern)))
            .collect();
        let body = format!("User-agent: a\n{rules}\nUser-agent: b\n{rules}");
        let path = String::from_utf8(path).unwrap();
        let robots = Robots::parse(body.as_bytes());
        let (a, b) = (
            robots.select(&[b"a"], TokenMatch::Google),
            robots.select(&[b"b"], TokenMatch::Google),
        );
        assert_eq!(robots.verdict(&a, path.as_bytes()).rule, None);
        assert!(robots.matcher(0).unwrap().thrashes());
        assert!(robots.matcher(1).unwrap().thrashes());
        let matched = format!("{path}!!");
        assert_eq!(
            robots.verdict(&b, matched.as_bytes()).rule,
            Some(per_group as RuleId)
        );
        // Another strategy compiles the groups again, with a flag of their own.
        let robots = robots.with_strategy(MatchStrategy::Automaton);
        assert!(!robots.matcher(1).unwrap().thrashes());
    }
}
