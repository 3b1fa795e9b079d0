//! `violations.csv`: one row per disallowed request, in input order.

use std::borrow::Cow;

use robots_audit_bots::Verification;
use robots_audit_logs::Request;

use super::{RowWriter, text};
use crate::audit::judge::{Decider, Judgement};
use crate::policy::PolicySet;

/// The header of `violations.csv`.
pub const HEADER: &str = "time,origin,agent,user_agent,client_ip,verification,method,path,status,bytes,rule,rule_line,group,robots_version,holds_under_1994,source";

/// Everything a violation row shows.
#[derive(Debug)]
pub struct ViolationRow<'r> {
    /// The request.
    pub request: &'r Request<'r>,
    /// Its normalised origin.
    pub origin: &'r str,
    /// The agent's name.
    pub agent: &'r str,
    /// Whether its IP was inside the agent's published ranges.
    pub verification: Verification,
    /// The path (with query) that was matched.
    pub path: &'r [u8],
    /// The verdict.
    pub judgement: &'r Judgement,
    /// The robots versions, to name the rule.
    pub policy: &'r PolicySet,
    /// Input file name and line number.
    pub source: (&'r str, u64),
}

/// What a verdict's deciding rule looks like in a report: text, line, group.
pub fn describe_rule(policy: &PolicySet, judgement: &Judgement) -> (String, String, String) {
    let Some(version) = judgement.version.map(|v| policy.version(v)) else {
        return Default::default();
    };
    match judgement.decider {
        Decider::Nothing => Default::default(),
        Decider::Status => (
            format!("status {}", version.status),
            String::new(),
            String::new(),
        ),
        Decider::Rule(id) => match version
            .robots
            .as_ref()
            .and_then(|r| r.rules().get(id as usize).map(|rule| (r, rule)))
        {
            Some((robots, rule)) => (
                rule.text.clone(),
                rule.line.to_string(),
                robots.group_label(rule.group),
            ),
            None => Default::default(),
        },
    }
}

impl RowWriter {
    /// Appends one violation row.
    pub fn violation(&mut self, row: &ViolationRow<'_>) {
        let request = row.request;
        let (rule, line, group) = describe_rule(row.policy, row.judgement);
        let version = row
            .judgement
            .version
            .map(|v| row.policy.version(v).label())
            .unwrap_or_default();
        let user_agent = request.user_agent.encoding.decode(request.user_agent.raw);
        self.record([
            Cow::Owned(request.time.to_string()),
            Cow::Borrowed(row.origin),
            Cow::Borrowed(row.agent),
            text(&user_agent).into_owned().into(),
            text(request.client_ip),
            Cow::Borrowed(row.verification.as_str()),
            text(request.method),
            text(row.path),
            Cow::Owned(request.status.to_string()),
            Cow::Owned(request.bytes.to_string()),
            Cow::Owned(rule),
            Cow::Owned(line),
            Cow::Owned(group),
            Cow::Owned(version),
            Cow::Borrowed(if row.judgement.holds_under_1994 {
                "true"
            } else {
                "false"
            }),
            Cow::Owned(format!("{}:{}", row.source.0, row.source.1)),
        ]);
    }
}
