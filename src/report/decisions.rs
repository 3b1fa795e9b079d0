//! `decisions.csv` (with `--decisions`): one row per judged request, in input order.

use std::borrow::Cow;

use robots_audit_logs::Request;

use super::violations::describe_rule;
use super::{RowWriter, text};
use crate::audit::judge::Judgement;
use crate::policy::PolicySet;

/// The header of `decisions.csv`.
pub const HEADER: &str =
    "time,origin,agent,client_ip,method,path,status,verdict,rule,rule_line,robots_version,source";

/// Everything a decision row shows.
#[derive(Debug)]
pub struct DecisionRow<'r> {
    /// The request.
    pub request: &'r Request<'r>,
    /// Its normalised origin.
    pub origin: &'r str,
    /// The agent's name.
    pub agent: &'r str,
    /// The path (with query) that was matched.
    pub path: &'r [u8],
    /// The verdict.
    pub judgement: &'r Judgement,
    /// The robots versions, to name the rule.
    pub policy: &'r PolicySet,
    /// Input file name and line number.
    pub source: (&'r str, u64),
}

impl RowWriter {
    /// Appends one decision row.
    pub fn decision(&mut self, row: &DecisionRow<'_>) {
        let request = row.request;
        let (rule, line, _) = describe_rule(row.policy, row.judgement);
        let version = row
            .judgement
            .version
            .map(|v| row.policy.version(v).label())
            .unwrap_or_default();
        self.record([
            Cow::Owned(request.time.to_string()),
            Cow::Borrowed(row.origin),
            Cow::Borrowed(row.agent),
            text(request.client_ip),
            text(request.method),
            text(row.path),
            Cow::Owned(request.status.to_string()),
            Cow::Borrowed(row.judgement.outcome.as_str()),
            Cow::Owned(rule),
            Cow::Owned(line),
            Cow::Owned(version),
            Cow::Owned(format!("{}:{}", row.source.0, row.source.1)),
        ]);
    }
}
