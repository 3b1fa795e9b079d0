//! `decisions.csv` (with `--decisions`): one row per judged request, in input order.

use robots_audit_logs::Request;

use super::RowWriter;
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
        self.time_field(request.time);
        self.field(row.origin.as_bytes());
        self.field(row.agent.as_bytes());
        self.text_field(request.client_ip);
        self.text_field(request.method);
        self.text_field(row.path);
        self.number_field(request.status);
        self.word_field(row.judgement.outcome.as_str());
        self.rule_fields(row.policy, row.judgement, false);
        self.version_field(row.policy, row.judgement);
        self.source_field(row.source);
        self.end_row();
    }
}
