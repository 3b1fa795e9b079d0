//! `explain`: every step of the judgement of one log line.
//!
//! The verdict is never decided here: the line goes through the audit's own
//! [`Auditor::request`] with a sink that records the [`AgentRequest`], and the explanation is built
//! around that verdict (which version was in force, which groups the agent's tokens selected,
//! which rules match the path, grace, verification, the 1994 reading, usage preferences and the
//! crawl delay). So `explain` and `decisions.csv` cannot disagree; `tests/explain.rs` holds them
//! equal over whole nights.

use std::sync::{Mutex, PoisonError};

use jiff::Timestamp;
use robots_audit_bots::dns::{DnsVerdict, DnsVerifier, Refutation};
use robots_audit_bots::{Bot, Catalog, ClientAddress, Identity, Verifier, client_address};
use robots_audit_engine::reference::position_set_matches;
use robots_audit_engine::{RuleKind, Selection, Stance, TokenMatch};
use robots_audit_logs::{BlockState, FieldMap, Format, LineParser, Scratch};
use serde_json::{Value, json};

use super::auditor::{AuditContext, Auditor};
use super::identity::Identifier;
use super::judge::Outcome;
use super::judge::{Decider, Judge, engine_use, select_for};
use super::sink::{AgentRequest, Sink};
use super::{AuditConfig, Input};
use crate::versions::{Effect, VersionSet};

/// One rule of the selected groups that matches the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchedRule {
    /// The rule as written.
    pub text: String,
    /// Its line in the robots.txt.
    pub line: u32,
    /// Allow or disallow.
    pub allow: bool,
    /// Its priority: the length of its pattern (the longest match wins, allow on a tie).
    pub priority: usize,
}

/// The robots version in force for the request, and what its groups say to the agent.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionStep {
    /// As reports name it: its `valid_from` or `initial`.
    pub label: String,
    /// Where it was read from.
    pub source: String,
    /// From when it is in force.
    pub valid_from: Option<Timestamp>,
    /// The fetch status.
    pub status: String,
    /// How the status reads: rules, allow all, disallow all.
    pub effect: &'static str,
    /// The selected groups' labels (their user-agent lines).
    pub groups: Vec<String>,
    /// Whether those are the `*` groups (no group names the agent).
    pub global_groups: bool,
    /// Every rule of those groups that matches the path.
    pub matched_rules: Vec<MatchedRule>,
    /// `Crawl-delay` in force for the agent, with its line.
    pub crawl_delay: Option<(f64, u32)>,
    /// The usage preference for the bot's use (Content-Signal / Content-Usage), with its line.
    pub preference: Option<(String, &'static str, u32)>,
}

/// What `--verify dns` said of the request's client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsStep {
    /// What was checked: the client address, or the logged host name.
    pub client: String,
    /// The address's PTR name, when DNS or the cache gave one.
    pub ptr: Option<String>,
    /// The addresses the name resolved to, when it was looked up in this run (a cached answer
    /// keeps only whether the address was among them).
    pub forward: Option<Vec<String>>,
    /// DNS's answer, or why DNS was not asked.
    pub answer: String,
    /// Where the answer came from: this run's lookup, the cache, or nowhere.
    pub answered_by: String,
}

/// Everything `explain` shows of one line.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The log format the line was read as.
    pub format: &'static str,
    /// The parsed fields, by name; `None` when the line was skipped or held no request.
    pub fields: Option<Vec<(&'static str, String)>>,
    /// Why the line holds no request (skip reason, blank, comment), when it holds none.
    pub not_a_request: Option<String>,
    /// The agent as reports name it; `None` when the user-agent is not a bot.
    pub agent: Option<String>,
    /// How the agent was identified: the catalog entry, a declared bot, or not a bot.
    pub identification: String,
    /// Whether the agent is a bot (`--all-agents` judges the others too).
    pub is_bot: bool,
    /// The robots.txt tokens of the agent, in fallback order.
    pub tokens: Vec<String>,
    /// Its operator and category.
    pub operator: String,
    /// Its category.
    pub category: String,
    /// The origin normalised; empty when the line names none.
    pub origin: String,
    /// The path matched (path and query).
    pub path: String,
    /// The verdict, as `decisions.csv` writes it.
    pub verdict: String,
    /// The deciding rule as written, as `decisions.csv` writes it.
    pub rule: String,
    /// Its line, empty when no rule decided.
    pub rule_line: String,
    /// The version in force, as `decisions.csv` writes it.
    pub robots_version: String,
    /// The version in force and what it says to the agent.
    pub version: Option<VersionStep>,
    /// Grace: the window and the earlier version that allowed the request, if one did.
    pub grace: String,
    /// The verification value (`verified`, `spoofed`, `unverified`).
    pub verification: String,
    /// The published lists and DNS suffixes that cover the bot.
    pub verification_sources: Vec<String>,
    /// With `--verify dns`: the PTR name, the forward addresses and DNS's answer.
    pub dns: Option<DnsStep>,
    /// For violations: whether the 1994 reading disallows the path too.
    pub holds_under_1994: Option<bool>,
    /// The catalog's robots policy of the bot (obeys, ignores, ...) and its source.
    pub robots_policy: String,
    /// Whether the bot's operator says it honours `Crawl-delay` (catalog
    /// `honours_crawl_delay`): only then is the delay binding.
    pub honours_crawl_delay: bool,
    /// Whether the audit counts the line as a `preference_conflict`: allowed, and the usage
    /// preference in force says no to the bot's use.
    pub preference_conflict: bool,
}

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
    /// Explains `line`, line `line_no` of `source`, read as `format`. `preamble` are the lines
    /// before it that set a layout (W3C `#Fields:`), given to the parser first, as the audit
    /// reads a file.
    pub fn explain(
        &self,
        format: Format,
        detected: bool,
        preamble: &[&[u8]],
        (source, line_no): (&str, u64),
        line: &[u8],
    ) -> Explanation {
        let fields = self.fields();
        let parser = if detected {
            LineParser::detected(format, &fields)
        } else {
            LineParser::new(format, &fields)
        };
        let mut state = BlockState::new();
        let mut scratch = Scratch::new();
        for directive in preamble {
            let _ = parser.parse(directive, &mut state, &mut scratch);
        }
        let mut explanation = Explanation::empty(format);
        let request = match parser.parse(line, &mut state, &mut scratch) {
            Ok(Some(request)) => request,
            Ok(None) => {
                explanation.not_a_request = Some("a blank line, a comment or a directive".into());
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
            ClientAddress::NotPublic | ClientAddress::Unknown => {
                step.answer =
                    "not asked: the client field is neither a public address nor a host name"
                        .into();
            }
        }
        Some(step)
    }

    fn fields(&self) -> FieldMap {
        self.config.fields.clone()
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
        let Some(id) = judgement.version else {
            explanation.grace = "no version in force: nothing to compare".into();
            return;
        };
        let version = self.policy.version(id);
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
        if let Some(robots) = &version.robots {
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
            step.matched_rules = robots
                .rules()
                .iter()
                .filter(|rule| selection.groups().contains(&rule.group))
                .filter(|rule| !rule.pattern.is_empty())
                .filter(|rule| position_set_matches(&recorded.path, &rule.pattern))
                .map(|rule| MatchedRule {
                    text: rule.text.clone(),
                    line: rule.line,
                    allow: rule.kind == RuleKind::Allow,
                    priority: rule.pattern.len(),
                })
                .collect();
            step.crawl_delay = robots
                .crawl_delay(&selection)
                .map(|(delay, directive)| (delay.as_secs_f64(), directive.line));
            step.preference = bot.category.content_use().and_then(|content_use| {
                robots
                    .preference(&selection, &recorded.path, engine_use(content_use))
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
        }
        explanation.version = Some(step);
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

impl Explanation {
    fn empty(format: Format) -> Explanation {
        Explanation {
            format: format.name(),
            fields: None,
            not_a_request: None,
            agent: None,
            is_bot: false,
            identification: String::new(),
            tokens: Vec::new(),
            operator: String::new(),
            category: String::new(),
            origin: String::new(),
            path: String::new(),
            verdict: String::new(),
            rule: String::new(),
            rule_line: String::new(),
            robots_version: String::new(),
            version: None,
            grace: String::new(),
            verification: String::new(),
            verification_sources: Vec::new(),
            dns: None,
            holds_under_1994: None,
            robots_policy: String::new(),
            honours_crawl_delay: false,
            preference_conflict: false,
        }
    }

    /// The explanation as one JSON object.
    pub fn to_json(&self) -> Value {
        let version = self.version.as_ref().map(|v| {
            json!({
                "label": v.label,
                "source": v.source,
                "valid_from": v.valid_from.map(|t| t.to_string()),
                "status": v.status,
                "effect": v.effect,
                "groups": v.groups,
                "global_groups": v.global_groups,
                "matched_rules": v.matched_rules.iter().map(|r| json!({
                    "rule": r.text, "line": r.line, "allow": r.allow, "priority": r.priority,
                })).collect::<Vec<_>>(),
                "crawl_delay": v.crawl_delay.map(|(s, line)| json!({"seconds": s, "line": line})),
                "preference": v.preference.as_ref().map(|(text, value, line)| json!({
                    "directive": text, "value": value, "line": line,
                })),
            })
        });
        json!({
            "format": self.format,
            "fields": self.fields.as_ref().map(|f| f.iter().map(|(k, v)| (k.to_string(), Value::from(v.clone()))).collect::<serde_json::Map<_, _>>()),
            "not_a_request": self.not_a_request,
            "agent": self.agent,
            "is_bot": self.is_bot,
            "identification": self.identification,
            "tokens": self.tokens,
            "operator": self.operator,
            "category": self.category,
            "origin": self.origin,
            "path": self.path,
            "verdict": self.verdict,
            "rule": self.rule,
            "rule_line": self.rule_line,
            "robots_version": self.robots_version,
            "version": version,
            "grace": self.grace,
            "verification": self.verification,
            "verification_sources": self.verification_sources,
            "dns": self.dns.as_ref().map(|d| json!({
                "client": d.client,
                "ptr": d.ptr,
                "forward": d.forward,
                "answer": d.answer,
                "answered_by": d.answered_by,
            })),
            "holds_under_1994": self.holds_under_1994,
            "robots_policy": self.robots_policy,
            "honours_crawl_delay": self.honours_crawl_delay,
            "preference_conflict": self.preference_conflict,
        })
    }

    /// The explanation as text, one step a line.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(out, "format:        {}", self.format);
        if let Some(fields) = &self.fields {
            for (name, value) in fields.iter().filter(|(_, v)| !v.is_empty()) {
                let _ = writeln!(out, "  {name:<13}{value}");
            }
        }
        if let Some(why) = &self.not_a_request {
            let _ = writeln!(out, "no request:    {why}");
            return out;
        }
        let _ = writeln!(out, "identity:      {}", self.identification);
        let Some(agent) = &self.agent else {
            let _ = writeln!(out, "verdict:       none (not audited)");
            return out;
        };
        let _ = writeln!(
            out,
            "agent:         {agent} (tokens {}; operator {}; category {})",
            self.tokens.join(", "),
            if self.operator.is_empty() {
                "-"
            } else {
                &self.operator
            },
            self.category
        );
        let _ = writeln!(out, "robots policy: {}", self.robots_policy);
        let _ = writeln!(
            out,
            "origin:        {}",
            if self.origin.is_empty() {
                "(none: the line names no host and no --origin was given)"
            } else {
                &self.origin
            }
        );
        let _ = writeln!(out, "path:          {}", self.path);
        match &self.version {
            None => {
                let _ = writeln!(out, "robots.txt:    no version in force");
            }
            Some(v) => {
                let _ = writeln!(
                    out,
                    "robots.txt:    version {} from {} (status {}: {})",
                    v.label, v.source, v.status, v.effect
                );
                if !v.groups.is_empty() || v.effect == "its rules decide" {
                    let why = if v.global_groups {
                        "no group names the agent's tokens: the `*` groups".to_owned()
                    } else if v.groups.is_empty() {
                        "no group names the agent and there is no `*` group".to_owned()
                    } else {
                        format!("named by the agent's tokens ({})", self.tokens.join(", "))
                    };
                    let _ = writeln!(out, "groups:        [{}] ({why})", v.groups.join("] ["));
                }
                for rule in &v.matched_rules {
                    let _ = writeln!(
                        out,
                        "  matches:     line {} {} (priority {})",
                        rule.line, rule.text, rule.priority
                    );
                }
                let _ = match v.crawl_delay {
                    Some((seconds, line)) if self.honours_crawl_delay => writeln!(
                        out,
                        "crawl-delay:   {seconds}s (line {line}); its operator says it honours \
                         Crawl-delay: counted in crawl_rate.csv"
                    ),
                    Some((seconds, line)) => writeln!(
                        out,
                        "crawl-delay:   {seconds}s (line {line}); its operator does not say it \
                         honours Crawl-delay: reported in crawl_rate.csv, not binding"
                    ),
                    None => writeln!(out, "crawl-delay:   none"),
                };
                let conflict = if self.preference_conflict {
                    ": a preference conflict (allowed, but the preference says no)"
                } else {
                    ""
                };
                let _ = match &v.preference {
                    Some((text, value, line)) => writeln!(
                        out,
                        "usage:         {value} for this bot's use ({text}, line {line}){conflict}"
                    ),
                    None => writeln!(out, "usage:         no preference for this bot's use"),
                };
            }
        }
        let deciding = if self.rule.is_empty() {
            "no rule matched".to_owned()
        } else if self.rule_line.is_empty() {
            self.rule.clone()
        } else {
            format!("{} (line {})", self.rule, self.rule_line)
        };
        let _ = writeln!(out, "deciding rule: {deciding}");
        let _ = writeln!(out, "grace:         {}", self.grace);
        if let Some(holds) = self.holds_under_1994 {
            let _ = writeln!(
                out,
                "1994 reading:  {}",
                if holds {
                    "disallowed too"
                } else {
                    "allowed (a violation only under RFC 9309)"
                }
            );
        }
        let _ = writeln!(
            out,
            "verification:  {} ({})",
            self.verification,
            if self.verification_sources.is_empty() {
                "no published list covers this bot".to_owned()
            } else {
                self.verification_sources.join("; ")
            }
        );
        if let Some(dns) = &self.dns {
            let _ = writeln!(out, "dns:           {} ({})", dns.client, dns.answered_by);
            if let Some(ptr) = &dns.ptr {
                let _ = writeln!(out, "  ptr:         {ptr}");
            }
            if let Some(forward) = &dns.forward {
                let _ = writeln!(
                    out,
                    "  forward:     {}",
                    if forward.is_empty() {
                        "no address".to_owned()
                    } else {
                        forward.join(", ")
                    }
                );
            }
            let _ = writeln!(out, "  answer:      {}", dns.answer);
        }
        let _ = writeln!(out, "verdict:       {}", self.verdict);
        out
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
