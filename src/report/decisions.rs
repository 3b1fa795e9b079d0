//! `decisions.csv` (with `--decisions`): one row per judged request, in input order.

use super::RowWriter;
use crate::audit::sink::AgentRequest;

/// The header of `decisions.csv`.
pub const HEADER: &str = "time,origin,agent,user_agent,client_ip,method,path,status,verdict,rule,rule_line,robots_version,source";

impl RowWriter {
    /// Appends the decision row of `row` (a judged request).
    pub fn decision(&mut self, row: &AgentRequest<'_>) {
        let request = row.request;
        self.time_field(request.time);
        self.origin_field(row.origin, row.origin_name);
        self.agent_and_user_agent_fields(
            row.header,
            (row.agent, &row.agent_info.bot.name),
            request.user_agent,
        );
        self.text_field(request.client_ip);
        self.method_field(request.method);
        self.text_field(row.path);
        self.status_field(request.status);
        self.verdict_fields(row.robots, &row.judgement);
        self.source_field(row.input, row.source);
        self.end_row();
    }
}
