//! `preference_conflicts.csv`: one row per allowed request whose usage preference in force says
//! no to its agent's use, in input order, streamed like `violations.csv`.

use super::RowWriter;
use crate::audit::sink::AgentRequest;

/// The header of `preference_conflicts.csv`.
pub const HEADER: &str =
    "time,origin,agent,path,use,preference,directive,directive_line,robots_version,source";

impl RowWriter {
    /// Appends the row of `row`, an allowed request with a preference conflict; nothing when it
    /// has none.
    pub fn preference_conflict(&mut self, row: &AgentRequest<'_>) {
        let Some(conflict) = row.judgement.conflict else {
            return;
        };
        let directive = row
            .judgement
            .version
            .and_then(|id| row.robots.version(id).robots.as_ref())
            .and_then(|robots| robots.directives().iter().find(|d| d.line == conflict.line));
        self.time_field(row.request.time);
        self.origin_field(row.origin, row.origin_name);
        self.agent_field(row.agent, &row.agent_info.bot.name);
        self.text_field(row.path);
        self.word_field(conflict.use_name());
        self.word_field(conflict.value_name());
        self.field(directive.map_or(&b""[..], |d| d.text.as_bytes()));
        self.number_field(conflict.line);
        self.version_field(row.robots, &row.judgement);
        self.source_field(row.input, row.source);
        self.end_row();
    }
}
