//! The reports as the audit's output: [`Reports`] implements [`Output`], its per-thread
//! [`RowSink`] implements [`Sink`].
//!
//! `violations.csv`, `preference_conflicts.csv` and `decisions.csv` get a row per request, so they are written while the
//! audit runs: each worker thread formats the rows of its block into its own [`RowWriter`] and
//! hands them to the [`StreamedReport`] when the block is done, which puts them in input order.
//! The other reports are written from the [`AuditResult`] at the end ([`Reports::commit`]).

use std::io;
use std::path::{Path, PathBuf};

use super::stream::StreamedReport;
use super::{
    RowWriter, agent_origins, agents, crawl_rate, decisions, hourly, html, inputs, owned,
    preference_conflicts, robots, rules, unknown_agents, violations,
};
use crate::audit::AuditResult;
use crate::audit::sink::{Output, Sink, Verdict};
use crate::audit::stats::Outcome;

/// Every report of a run in `--out`, the streamed ones started.
#[derive(Debug)]
pub struct Reports {
    dir: PathBuf,
    violations: StreamedReport,
    conflicts: StreamedReport,
    decisions: Option<StreamedReport>,
    html: bool,
}

impl Reports {
    /// Starts the streamed reports in `dir` (which must exist) for `inputs` input files;
    /// `decisions`: also `decisions.csv`. Nothing stands under a final name before
    /// [`Reports::commit`].
    pub fn create(dir: &Path, inputs: usize, decisions: bool) -> io::Result<Reports> {
        let violations = StreamedReport::create(dir, "violations.csv", violations::HEADER, inputs)?;
        let conflicts = StreamedReport::create(
            dir,
            preference_conflicts::FILE,
            preference_conflicts::HEADER,
            inputs,
        )?;
        let decisions = if decisions {
            Some(StreamedReport::create(
                dir,
                "decisions.csv",
                decisions::HEADER,
                inputs,
            )?)
        } else {
            None
        };
        Ok(Reports {
            dir: dir.to_path_buf(),
            violations,
            conflicts,
            decisions,
            html: true,
        })
    }

    /// Whether [`Reports::commit`] also writes `report.html` (by default it does).
    pub fn with_html(mut self, html: bool) -> Reports {
        self.html = html;
        self
    }

    /// Writes the reports of `result`, gives every report its final name, then removes the
    /// tool's reports this run did not write (the run owns `--out`: see [`super::owned`]).
    pub fn commit(self, result: &AuditResult) -> io::Result<()> {
        let dir = &self.dir;
        let mut written = vec![
            "agents.csv",
            "agent_origins.csv",
            "violations.csv",
            "rules.csv",
            "robots.csv",
            "inputs.csv",
            "skipped_lines.csv",
        ];
        agents::write(dir, result)?;
        agent_origins::write(dir, result)?;
        self.violations.commit()?;
        self.conflicts.commit()?;
        written.push(preference_conflicts::FILE);
        crawl_rate::write(dir, result)?;
        written.push(crawl_rate::FILE);
        if let Some(decisions) = self.decisions {
            decisions.commit()?;
            written.push("decisions.csv");
        }
        rules::write(dir, result)?;
        robots::write(dir, result)?;
        inputs::write(dir, result)?;
        unknown_agents::write(dir, result)?;
        written.push(unknown_agents::FILE);
        // Before the page, which draws its timeline from it.
        hourly::write(dir, result)?;
        written.push(hourly::FILE);
        if self.html {
            html::write(dir)?;
            written.push(html::FILE);
        }
        owned::remove_unwritten(dir, &written)?;
        Ok(())
    }
}

impl<'r> Output for &'r Reports {
    type Sink = RowSink<'r>;

    fn sink(&self) -> RowSink<'r> {
        RowSink {
            reports: self,
            with_decisions: self.decisions.is_some(),
            violations: RowWriter::new(),
            conflicts: RowWriter::new(),
            decisions: RowWriter::new(),
        }
    }

    fn input_done(&self, input: usize, blocks: u64) -> io::Result<()> {
        self.violations.end(input, blocks)?;
        self.conflicts.end(input, blocks)?;
        match &self.decisions {
            Some(decisions) => decisions.end(input, blocks),
            None => Ok(()),
        }
    }
}

/// One worker thread's rows of the streamed reports, kept from block to block with their memory
/// and label caches.
#[derive(Debug)]
pub struct RowSink<'r> {
    reports: &'r Reports,
    /// Whether `decisions.csv` is written (read once, not through `reports` per verdict).
    with_decisions: bool,
    violations: RowWriter,
    conflicts: RowWriter,
    decisions: RowWriter,
}

impl Sink for RowSink<'_> {
    #[inline]
    fn verdict(&mut self, verdict: &Verdict<'_>) {
        let outcome = verdict.judgement.outcome;
        if outcome == Outcome::Disallowed {
            self.violations.violation(verdict);
        } else if verdict.judgement.conflict.is_some() {
            self.conflicts.preference_conflict(verdict);
        }
        if self.with_decisions && outcome.is_judged() {
            self.decisions.decision(verdict);
        }
    }

    fn block_done(&mut self, input: usize, seq: u64) -> io::Result<()> {
        self.reports
            .violations
            .submit(input, seq, self.violations.rows())?;
        self.reports
            .conflicts
            .submit(input, seq, self.conflicts.rows())?;
        match &self.reports.decisions {
            Some(report) => report.submit(input, seq, self.decisions.rows()),
            None => Ok(()),
        }
    }
}
