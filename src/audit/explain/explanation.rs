//! What `explain` shows of one line, and its two renderings: text, one step a line, and one
//! JSON object. Built by the [`Explainer`](super::Explainer), which decides nothing either: it
//! records the audit's own verdict.

use jiff::Timestamp;
use robots_audit_logs::Format;
use serde_json::{Value, json};

use crate::shown::visible;

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
    /// Whether a robots.txt version judged the request: false for a robots.txt fetch, an
    /// unjudged request and a line that is not audited.
    pub judged: bool,
    /// Whether the request fetched `/robots.txt` (verdict `robots_fetch`): counted, never
    /// judged; [`version`](Explanation::version) is then the version it fetched.
    pub robots_fetch: bool,
    /// The deciding rule as written, as `decisions.csv` writes it.
    pub rule: String,
    /// Its line, empty when no rule decided.
    pub rule_line: String,
    /// The version in force, as `decisions.csv` writes it; for a robots.txt fetch, the version
    /// it fetched (a fetch has no row in `decisions.csv`).
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

impl Explanation {
    /// An explanation of a line not read yet: every step empty.
    pub(super) fn empty(format: Format) -> Explanation {
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
            judged: false,
            robots_fetch: false,
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
            "judged": self.judged,
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

    /// The explanation as text, one step a line. Each line's control characters are written
    /// visibly ([`visible`]): the fields of the log line, the robots.txt's rules and groups and the
    /// PTR name are strangers' text.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        let out = &mut text;
        put(out, format_args!("format:        {}", self.format));
        if let Some(fields) = &self.fields {
            for (name, value) in fields.iter().filter(|(_, v)| !v.is_empty()) {
                put(out, format_args!("  {name:<13}{value}"));
            }
        }
        if let Some(why) = &self.not_a_request {
            put(out, format_args!("no request:    {why}"));
            return text;
        }
        put(out, format_args!("identity:      {}", self.identification));
        let Some(agent) = &self.agent else {
            put(out, format_args!("verdict:       none (not audited)"));
            return text;
        };
        put(
            out,
            format_args!(
                "agent:         {agent} (tokens {}; operator {}; category {})",
                self.tokens.join(", "),
                if self.operator.is_empty() {
                    "-"
                } else {
                    &self.operator
                },
                self.category
            ),
        );
        put(out, format_args!("robots policy: {}", self.robots_policy));
        put(
            out,
            format_args!(
                "origin:        {}",
                if self.origin.is_empty() {
                    "(none: the line names no host and no --origin was given)"
                } else {
                    &self.origin
                }
            ),
        );
        put(out, format_args!("path:          {}", self.path));
        if self.robots_fetch {
            self.fetch_text(out);
        } else {
            self.judgement_text(out);
        }
        put(
            out,
            format_args!(
                "verification:  {} ({})",
                self.verification,
                if self.verification_sources.is_empty() {
                    "no published list covers this bot".to_owned()
                } else {
                    self.verification_sources.join("; ")
                }
            ),
        );
        if let Some(dns) = &self.dns {
            put(
                out,
                format_args!("dns:           {} ({})", dns.client, dns.answered_by),
            );
            if let Some(ptr) = &dns.ptr {
                put(out, format_args!("  ptr:         {ptr}"));
            }
            if let Some(forward) = &dns.forward {
                put(
                    out,
                    format_args!(
                        "  forward:     {}",
                        if forward.is_empty() {
                            "no address".to_owned()
                        } else {
                            forward.join(", ")
                        }
                    ),
                );
            }
            put(out, format_args!("  answer:      {}", dns.answer));
        }
        put(out, format_args!("verdict:       {}", self.verdict));
        text
    }

    /// The steps of a judged (or unjudged) request: the version, its groups and rules, the
    /// deciding rule, grace and the 1994 reading.
    fn judgement_text(&self, out: &mut String) {
        match &self.version {
            None => {
                put(out, format_args!("robots.txt:    no version in force"));
            }
            Some(v) => {
                put(
                    out,
                    format_args!(
                        "robots.txt:    version {} from {} (status {}: {})",
                        v.label, v.source, v.status, v.effect
                    ),
                );
                self.groups_text(out, v);
                let conflict = if self.preference_conflict {
                    ": a preference conflict (allowed, but the preference says no)"
                } else {
                    ""
                };
                match &v.preference {
                    Some((text, value, line)) => put(
                        out,
                        format_args!(
                            "usage:         {value} for this bot's use ({text}, line {line}){conflict}"
                        ),
                    ),
                    None => put(
                        out,
                        format_args!("usage:         no preference for this bot's use"),
                    ),
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
        put(out, format_args!("deciding rule: {deciding}"));
        put(out, format_args!("grace:         {}", self.grace));
        if let Some(holds) = self.holds_under_1994 {
            put(
                out,
                format_args!(
                    "1994 reading:  {}",
                    if holds {
                        "disallowed too"
                    } else {
                        "allowed (a violation only under RFC 9309)"
                    }
                ),
            );
        }
    }

    /// A robots.txt fetch: not judged; the version it fetched and what its groups say to the
    /// agent (its crawl delay counts the fetch).
    fn fetch_text(&self, out: &mut String) {
        put(
            out,
            format_args!(
                "robots.txt:    this request fetched the robots.txt itself: counted, not judged"
            ),
        );
        match &self.version {
            None => {
                put(
                    out,
                    format_args!(
                        "fetched:       no version is known to be in force at its time (the robots \
                     sources name no version of this origin before it)"
                    ),
                );
            }
            Some(v) => {
                let valid_from = v
                    .valid_from
                    .map_or_else(|| "the beginning".to_owned(), |t| t.to_string());
                put(
                    out,
                    format_args!(
                        "fetched:       version {} from {} (valid from {valid_from}; status {}: {})",
                        v.label, v.source, v.status, v.effect
                    ),
                );
                self.groups_text(out, v);
            }
        }
    }

    /// The groups the agent's tokens select, the rules that match the path and the crawl delay.
    fn groups_text(&self, out: &mut String, v: &VersionStep) {
        if !v.groups.is_empty() || v.effect == "its rules decide" {
            let why = if v.global_groups {
                "no group names the agent's tokens: the `*` groups".to_owned()
            } else if v.groups.is_empty() {
                "no group names the agent and there is no `*` group".to_owned()
            } else {
                format!("named by the agent's tokens ({})", self.tokens.join(", "))
            };
            put(
                out,
                format_args!("groups:        [{}] ({why})", v.groups.join("] [")),
            );
        }
        for rule in &v.matched_rules {
            put(
                out,
                format_args!(
                    "  matches:     line {} {} (priority {})",
                    rule.line, rule.text, rule.priority
                ),
            );
        }
        match v.crawl_delay {
            Some((seconds, line)) if self.honours_crawl_delay => put(
                out,
                format_args!(
                    "crawl-delay:   {seconds}s (line {line}); its operator says it honours \
                 Crawl-delay: counted in crawl_rate.csv"
                ),
            ),
            Some((seconds, line)) => put(
                out,
                format_args!(
                    "crawl-delay:   {seconds}s (line {line}); its operator does not say it \
                 honours Crawl-delay: reported in crawl_rate.csv, not binding"
                ),
            ),
            None => put(out, format_args!("crawl-delay:   none")),
        };
    }
}

/// Appends one line of an explanation's text, with its control characters written visibly, so
/// that a value (a user-agent holding an escape sequence or, from a JSON log, a line feed and a
/// line of its own) can neither act on the terminal nor pass for a step of the explanation.
fn put(out: &mut String, line: std::fmt::Arguments<'_>) {
    out.push_str(&visible(&line.to_string()));
    out.push('\n');
}
