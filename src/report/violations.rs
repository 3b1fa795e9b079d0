//! `violations.csv`: one row per disallowed request, in input order.

use super::RowWriter;
use crate::audit::judge::{Decider, Judgement};
use crate::audit::sink::AgentRequest;
use crate::versions::VersionSet;

/// The header of `violations.csv`.
pub const HEADER: &str = "time,origin,agent,user_agent,client_ip,verification,method,path,status,bytes,rule,rule_line,group,robots_version,holds_under_1994,source";

impl RowWriter {
    /// Appends the violation row of `row` (a disallowed request).
    pub fn violation(&mut self, row: &AgentRequest<'_>) {
        let request = row.request;
        self.time_field(request.time);
        self.origin_field(row.origin, row.origin_name);
        self.agent_and_user_agent_fields(
            row.header,
            (row.agent, &row.agent_info.bot.name),
            request.user_agent,
        );
        self.text_field(request.client_ip);
        self.word_field(row.verification.as_str());
        self.method_field(request.method);
        self.text_field(row.path);
        self.status_field(request.status);
        self.number_field(request.bytes);
        self.rule_fields(row.robots, &row.judgement, true);
        self.version_field(row.robots, &row.judgement);
        self.word_field(if row.judgement.holds_under_1994 {
            "true"
        } else {
            "false"
        });
        self.source_field(row.input, row.source);
        self.end_row();
    }

    /// What decided a verdict, as the reports show it: the rule as written and its line, and
    /// with `group` the label of the rule's group; `status 503` and empty fields when the
    /// version's fetch status decided; empty fields when nothing did.
    pub(super) fn rule_fields(&mut self, robots: &VersionSet, judgement: &Judgement, group: bool) {
        let fields = if group { 3 } else { 2 };
        let Some(id) = judgement.version else {
            return self.empty_fields(fields);
        };
        let version = robots.version(id);
        match judgement.decider {
            Decider::Nothing => self.empty_fields(fields),
            Decider::Status => {
                self.display_field(version.status_rule_display());
                self.empty_fields(fields - 1);
            }
            Decider::Rule(rule) => match version
                .robots
                .as_ref()
                .and_then(|robots| robots.rules().get(rule as usize).map(|rule| (robots, rule)))
            {
                Some((robots, rule)) => {
                    self.field(rule.text.as_bytes());
                    self.number_field(rule.line);
                    if group {
                        self.group_field(id, robots, rule.group);
                    }
                }
                None => self.empty_fields(fields),
            },
        }
    }

    /// The version in force ([`Version::label`](crate::versions::Version::label)), or empty.
    pub(super) fn version_field(&mut self, robots: &VersionSet, judgement: &Judgement) {
        match judgement.version {
            Some(id) => self.version_label_field(robots, id),
            None => self.word_field(""),
        }
    }

    fn empty_fields(&mut self, count: usize) {
        for _ in 0..count {
            self.word_field("");
        }
    }
}
