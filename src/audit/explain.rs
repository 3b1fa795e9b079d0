//! `explain`: every step of the judgement of one log line.
//!
//! The verdict is never decided here: the line goes through the audit's own
//! [`Auditor::request`] with a sink that records the [`AgentRequest`], and the explanation is built
//! around that verdict (which version was in force, which groups the agent's tokens selected,
//! which rules match the path, grace, verification, the 1994 reading, usage preferences and the
//! crawl delay). So `explain` and `decisions.csv` cannot disagree; `tests/explain.rs` holds them
//! equal over whole nights.

mod explanation;

pub use explanation::{DnsStep, Explanation, MatchedRule, VersionStep};

use std::sync::{Mutex, PoisonError};

use jiff::Timestamp;
use robots_audit_bots::dns::{DnsVerdict, DnsVerifier, Refutation};
use robots_audit_bots::{Bot, Catalog, ClientAddress, Identity, Verifier, client_address};
use robots_audit_engine::{RuleKind, Selection, Stance, TokenMatch};
use robots_audit_logs::{Block, Format, LineParser, Request, Scratch, SkipReason};

use super::auditor::{AuditContext, Auditor};
use super::identity::Identifier;
use super::judge::Outcome;
use super::judge::{Decider, Judge, engine_use, select_for};
use super::sink::{AgentRequest, Sink};
use super::{AuditConfig, Input};
use crate::origin::Origin;
use crate::versions::{Effect, Version, VersionSet};

/// A sink that keeps the one verdict of the line as owned values.
#[derive(Debug, Default)]
struct Recorder {
    recorded: Option<Recorded>,
}

#[derive(Debug)]
struct Recorded {
    judgement: super::judge::Judgement,
    agent: robots_audit_bots::Bot,
    is_bot: bool,
    origin: String,
    path: Vec<u8>,
    client_ip: Vec<u8>,
    verification: &'static str,
}

impl Sink for Recorder {
    fn agent_request(&mut self, verdict: &AgentRequest<'_>) {
        self.recorded = Some(Recorded {
            judgement: verdict.judgement,
            agent: verdict.agent_info.bot.clone(),
            is_bot: verdict.agent_info.is_bot,
            origin: verdict.origin_name.to_owned(),
            path: verdict.path.to_vec(),
            client_ip: verdict.request.client_ip.to_vec(),
            verification: verdict.verification.as_str(),
        });
    }
}

/// What `explain` reads a line with: the audit's configuration and tables.
#[derive(Debug)]
pub struct Explainer<'a> {
    /// The audit options (origin, fields, grace, user-agent, all-agents).
    pub config: &'a AuditConfig,
    /// The bot catalog.
    pub catalog: &'a Catalog,
    /// The published ranges.
    pub verifier: &'a Verifier,
    /// The robots versions.
    pub policy: &'a VersionSet,
    /// `--verify dns`: the same verifier the audit would use (cache, offline, name servers).
    pub dns: Option<&'a Mutex<DnsVerifier>>,
}

impl Explainer<'_> {
    /// Explains the lines of `block`, lines of `source` read by `parser` (the one the audit
    /// reads the input with, [`input_parser`](super::schedule::input_parser)), whose numbers
    /// `wanted` accepts, in order. Every line of the block is read, as the audit reads a block
    /// from its start: the directives before a line lay it out (W3C `#Fields:`), a CRI record or
    /// docker's record of a cut line is joined with the pieces before it, a stream that changed
    /// format is read in its new one. A line read without those gets another reading, or none.
    /// When the block [ends its input](Block::ends_input), the records left open are read on
    /// its last line, after the line itself, as the audit reads them.
    pub fn explain_lines(
        &self,
        parser: &LineParser,
        block: &Block,
        source: &str,
        wanted: impl Fn(u64) -> bool,
    ) -> Vec<(u64, Explanation)> {
        let format = parser.format();
        let mut state = parser.block_state(block);
        let mut scratch = Scratch::new();
        let mut explained = Vec::new();
        let mut last = None;
        for (line_no, line) in block.lines() {
            let read = parser.parse(line, &mut state, &mut scratch);
            if wanted(line_no) {
                explained.push((line_no, self.explain_read(format, read, (source, line_no))));
            }
            last = Some(line_no);
        }
        // The records the input ended inside of, read on its last line as the audit reads
        // them: that line's explanation is the last record read there.
        if let Some(line_no) = last.filter(|&n| block.ends_input && wanted(n)) {
            while let Some(read) = parser.finish(&mut state, &mut scratch) {
                explained.push((line_no, self.explain_read(format, read, (source, line_no))));
            }
        }
        explained
    }

    /// Explains one line as the parser read it.
    fn explain_read(
        &self,
        format: Format,
        read: Result<Option<Request<'_>>, SkipReason>,
        (source, line_no): (&str, u64),
    ) -> Explanation {
        let mut explanation = Explanation::empty(format);
        let request = match read {
            Ok(Some(request)) => request,
            Ok(None) => {
                explanation.not_a_request = Some(
                    "a blank line, a comment, a directive, or a piece of a record (CRI `P`, \
                     docker's record of a cut line) that a later line completes: no request \
                     of its own"
                        .into(),
                );
                return explanation;
            }
            Err(reason) => {
                explanation.not_a_request = Some(format!("skipped: {}", reason.as_str()));
                return explanation;
            }
        };
        explanation.fields = Some(vec![
            ("time", request.time.to_string()),
            ("client_ip", lossy(request.client_ip)),
            ("method", lossy(request.method)),
            ("target", lossy(request.target)),
            ("query", request.query.map(lossy).unwrap_or_default()),
            ("status", request.status.to_string()),
            (
                "fetch_status",
                request
                    .fetch_status
                    .map(|s| s.to_string())
                    .unwrap_or_default(),
            ),
            ("bytes", request.bytes.to_string()),
            ("user_agent", lossy(&request.user_agent.decode())),
            (
                "scheme",
                request.origin.scheme.map(lossy).unwrap_or_default(),
            ),
            ("host", request.origin.host.map(lossy).unwrap_or_default()),
            (
                "port",
                request
                    .origin
                    .port
                    .map(|p| p.to_string())
                    .unwrap_or_default(),
            ),
        ]);
        let user_agent = request.user_agent.decode();
        let user_agent: &[u8] = match (&*user_agent, &self.config.fallback_user_agent) {
            (b"" | b"-", Some(fallback)) => fallback,
            (ua, _) => ua,
        };
        explanation.identification = match self.catalog.identify(user_agent) {
            Identity::Known(index) => format!(
                "catalog entry {:?} (its pattern matches the user-agent)",
                self.catalog.bots()[index].name
            ),
            Identity::Unknown(bot) => format!(
                "no catalog entry; the user-agent declares a bot, named after its product token {:?}",
                bot.name
            ),
            Identity::NotBot if self.config.all_agents => {
                "not a bot (no catalog entry, no bot keyword); judged under --all-agents".into()
            }
            Identity::NotBot => {
                "not a bot: no catalog entry matches and the user-agent declares no bot".into()
            }
        };

        // The verdict: the audit's own path, one line, one recording sink.
        let identifier = Identifier::new(self.catalog, self.config.all_agents);
        let judge = Judge::new(self.policy, self.config.grace).strict(self.config.strict);
        let inputs = [Input {
            name: source.to_owned(),
            source: robots_audit_logs::Source::Stdin,
            size: None,
        }];
        let mut context = AuditContext::new(&identifier, &judge, self.verifier, &inputs);
        context.default_origin = self.config.origin.as_ref();
        context.fallback_user_agent = self.config.fallback_user_agent.as_deref();
        context.dns = self.dns;
        let mut auditor = Auditor::new(&context);
        let mut recorder = Recorder::default();
        auditor.request(0, line_no, &request, &mut recorder);
        let Some(recorded) = recorder.recorded else {
            return explanation;
        };
        self.around(&mut explanation, &recorded, request.time);
        explanation
    }

    /// What DNS said of the client, read from the verifier the audit's own path just asked (so
    /// nothing is looked up twice); `None` without `--verify dns`.
    fn dns_step(&self, bot: &Bot, client_ip: &[u8], verification: &str) -> Option<DnsStep> {
        let dns = self.dns?;
        let suffixes = &bot.policy.dns_suffixes;
        let mut step = DnsStep {
            client: lossy(client_ip),
            ptr: None,
            forward: None,
            answer: String::new(),
            answered_by: "not asked".to_owned(),
        };
        if suffixes.is_empty() {
            step.answer = "not asked: the catalog lists no DNS suffix for this bot".into();
            return Some(step);
        }
        if verification == "verified" {
            step.answer = "not asked: the published ranges verified the address".into();
            return Some(step);
        }
        let dns = dns.lock().unwrap_or_else(PoisonError::into_inner);
        let addresses = |found: Option<&[std::net::IpAddr]>| {
            found.map(|found| found.iter().map(ToString::to_string).collect())
        };
        match client_address(client_ip) {
            ClientAddress::Public(ip) => {
                let record = dns.cache().get(ip);
                step.client = ip.to_string();
                step.ptr = record.and_then(|record| record.ptr.clone());
                step.forward = addresses(dns.forward_addresses(ip));
                step.answer = dns.known_verdict(ip, suffixes).to_string();
                step.answered_by = match (&step.forward, record) {
                    (Some(_), _) => "looked up in this run".into(),
                    (None, Some(record)) => {
                        format!("the DNS cache, checked at {}", record.checked_at)
                    }
                    (None, None) => "no answer".into(),
                };
            }
            ClientAddress::HostName(host) => {
                let host = lossy(host);
                step.forward = addresses(dns.host_addresses(&host));
                step.answered_by = if step.forward.is_some() {
                    "forward lookup of the logged host name in this run".into()
                } else {
                    "no answer".into()
                };
                step.answer = match dns.known_host_verdict(&host, suffixes) {
                    DnsVerdict::Confirmed { ptr } => format!(
                        "confirmed: {ptr} is under the operator's suffixes and resolves \
                         (the log holds the name, not the address)"
                    ),
                    DnsVerdict::NotConfirmed(Refutation::OutsideSuffixes { ptr }) => {
                        format!("not asked: {ptr} is outside the operator's suffixes")
                    }
                    DnsVerdict::NotConfirmed(Refutation::NameDoesNotResolve { name }) => {
                        format!("not confirmed: {name} has no address (unverified, never spoofed)")
                    }
                    other => other.to_string(),
                };
            }
            ClientAddress::Several => {
                step.answer = "not asked: the client field is a list of several public \
                               addresses, and the first ones are whatever the client sent"
                    .into();
            }
            ClientAddress::NotPublic | ClientAddress::Unknown => {
                step.answer =
                    "not asked: the client field is neither a public address nor a host name"
                        .into();
            }
        }
        Some(step)
    }

    /// Fills in the explanation around the audit's verdict.
    fn around(&self, explanation: &mut Explanation, recorded: &Recorded, time: Timestamp) {
        let bot = &recorded.agent;
        let judgement = &recorded.judgement;
        explanation.agent = Some(bot.name.clone());
        explanation.is_bot = recorded.is_bot;
        explanation.tokens = bot.tokens.clone();
        explanation.operator = bot.operator.clone();
        explanation.category = bot.category.to_string();
        explanation.honours_crawl_delay = bot.policy.honours_crawl_delay;
        explanation.preference_conflict = judgement.conflict.is_some();
        explanation.origin = recorded.origin.clone();
        explanation.path = lossy(&recorded.path);
        explanation.verdict = judgement.outcome.as_str().to_owned();
        explanation.verification = recorded.verification.to_owned();
        explanation.robots_policy = match &bot.policy.robots_source {
            Some(source) => format!("{:?} (source: {source})", bot.policy.robots),
            None => format!("{:?}", bot.policy.robots),
        };
        explanation.dns = self.dns_step(bot, &recorded.client_ip, recorded.verification);
        let covered = !self.verifier.ranges_for(bot).is_empty();
        explanation.verification_sources = self
            .verifier
            .lists()
            .into_iter()
            .filter(|list| {
                covered
                    && (list.key.eq_ignore_ascii_case(&bot.name)
                        || list.key.eq_ignore_ascii_case(&bot.operator))
            })
            .map(|list| match (list.snapshots.first(), list.snapshots.len()) {
                (Some(first), 1) => format!(
                    "--verify {} list {:?}: 1 snapshot from {first}",
                    list.key, list.list
                ),
                (Some(first), n) => format!(
                    "--verify {} list {:?}: {n} snapshots from {first}, the one in force at the request's time",
                    list.key, list.list
                ),
                (None, _) => format!("--verify {} list {:?}", list.key, list.list),
            })
            .chain(
                bot.policy
                    .dns_suffixes
                    .iter()
                    .map(|s| format!("documented DNS suffix {s}")),
            )
            .collect();
        if judgement.outcome == Outcome::RobotsFetch {
            self.robots_fetch(explanation, recorded, time);
            return;
        }
        let Some(id) = judgement.version else {
            explanation.grace = "no version in force: nothing to compare".into();
            return;
        };
        let version = self.policy.version(id);
        explanation.judged = true;
        explanation.robots_version = version.label();
        match judgement.decider {
            Decider::Nothing => {}
            Decider::Status => explanation.rule = version.status_rule(),
            Decider::Rule(rule) => {
                if let Some(rule) = version
                    .robots
                    .as_ref()
                    .and_then(|r| r.rules().get(rule as usize))
                {
                    explanation.rule = rule.text.clone();
                    explanation.rule_line = rule.line.to_string();
                }
            }
        }
        if judgement.outcome == Outcome::Disallowed || judgement.outcome == Outcome::Grace {
            explanation.holds_under_1994 = Some(judgement.holds_under_1994);
        }
        explanation.grace = self.grace(recorded, time);
        explanation.version = Some(version_step(version, bot, Some(&recorded.path)));
    }

    /// A request for `/robots.txt` is a fetch: counted (it shows the crawler reading the file,
    /// and counts for its crawl rate), never judged. What it fetched is the version of its
    /// origin in force at its time, as the robots sources know it; the judge has no use for it,
    /// so it is looked up here, the way the judge looks up the version of a judged request.
    fn robots_fetch(&self, explanation: &mut Explanation, recorded: &Recorded, time: Timestamp) {
        explanation.robots_fetch = true;
        explanation.grace = "a robots.txt fetch is not judged: grace does not apply".into();
        let fetched = Origin::parse(&recorded.origin).ok().and_then(|origin| {
            let versions = self.policy.versions_of(&origin);
            let at = self.policy.in_force_at(&versions, time)?;
            versions.get(at).copied()
        });
        if let Some(id) = fetched {
            let version = self.policy.version(id);
            explanation.robots_version = version.label();
            explanation.version = Some(version_step(version, &recorded.agent, None));
        }
    }

    /// Which earlier versions the grace window reaches, as the judge weighs them.
    fn grace(&self, recorded: &Recorded, time: Timestamp) -> String {
        let window = self.config.grace;
        match recorded.judgement.outcome {
            Outcome::Grace => format!(
                "disallowed by the version in force, but a version in force within --grace \
                 {window:#} before the request allowed it"
            ),
            Outcome::Disallowed => {
                let since = recorded
                    .judgement
                    .version
                    .and_then(|id| self.policy.version(id).valid_from)
                    .map(|from| time.duration_since(from));
                match since {
                    Some(since) if since < window => format!(
                        "the version in force changed {since:#} before the request, within \
                         --grace {window:#}, but no earlier version in the window allowed it"
                    ),
                    _ => format!(
                        "the version in force was already in force --grace {window:#} before \
                         the request: no grace"
                    ),
                }
            }
            _ => "not a violation: grace does not apply".into(),
        }
    }
}

/// The version in force and what its groups say to `bot`: the groups the audit selects, the
/// crawl delay and, given the `path` of a judged request, the rules that match it and the usage
/// preference for the bot's use.
fn version_step(version: &Version, bot: &Bot, path: Option<&[u8]>) -> VersionStep {
    let mut step = VersionStep {
        label: version.label(),
        source: version.source.clone(),
        valid_from: version.valid_from,
        status: version.status.to_string(),
        effect: match version.effect() {
            Effect::Rules => "its rules decide",
            Effect::AllowAll => "no robots.txt: everything allowed",
            Effect::DisallowAll => "unavailable: everything disallowed",
        },
        groups: Vec::new(),
        global_groups: false,
        matched_rules: Vec::new(),
        crawl_delay: None,
        preference: None,
    };
    let Some(robots) = &version.robots else {
        return step;
    };
    let tokens: Vec<&[u8]> = bot.tokens.iter().map(|t| t.as_bytes()).collect();
    // The audit's own selection, so an `ignores_global` bot never shows the `*` groups.
    let selection: Selection =
        select_for(robots, &tokens, bot.policy.robots, TokenMatch::ProductName);
    step.global_groups = selection.is_global();
    step.groups = selection
        .groups()
        .iter()
        .map(|&g| robots.group_label(g))
        .collect();
    step.crawl_delay = robots
        .crawl_delay(&selection)
        .map(|(delay, directive)| (delay.as_secs_f64(), directive.line));
    let Some(path) = path else {
        return step;
    };
    step.matched_rules = robots
        .rules()
        .iter()
        .filter(|rule| selection.groups().contains(&rule.group))
        .filter(|rule| rule.matches(path))
        .map(|rule| MatchedRule {
            text: rule.text.clone(),
            line: rule.line,
            allow: rule.kind == RuleKind::Allow,
            priority: rule.pattern.len(),
        })
        .collect();
    step.preference = bot.category.content_use().and_then(|content_use| {
        robots
            .preference(&selection, path, engine_use(content_use))
            .map(|p| {
                (
                    p.text.to_owned(),
                    match p.value {
                        Stance::Yes => "yes",
                        Stance::No => "no",
                    },
                    p.line,
                )
            })
    });
    step
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
