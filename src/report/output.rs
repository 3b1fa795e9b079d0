//! The reports as the audit's output: [`Reports`] implements [`Output`], its per-thread
//! [`RowSink`] implements [`Sink`].
//!
//! `violations.csv`, `preference_conflicts.csv` and `decisions.csv` get a row per request, so
//! they are written while the audit runs: each worker thread formats the rows of its block into
//! its own [`RowWriter`] and hands them to the [`StreamedReport`] when the block is done, which
//! puts them in input order.
//! The other reports, and `state.json`, are written at the end ([`Reports::finish`]): the run's
//! tallies become its [`State`], and the reports render from that state ([`render`]), as
//! `merge` renders from the state it sums, so that both write the same bytes for the same
//! inputs. Each streamed report counts the rows and bytes every input contributed to it (the
//! state keeps them, and `merge` copies byte ranges by them). Every file goes into the run's
//! staging directory; committing the set into `--out` is the caller's (`src/commit`).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::stream::StreamedReport;
use super::{
    RowWriter, View, agent_origins, agents, crawl_rate, decisions, files, hourly, html, inputs,
    preference_conflicts, robots, rules, unknown_agents, violations,
};
use crate::audit::judge::Outcome;
use crate::audit::sink::{AgentRequest, InputEnded, Output, Sink};
use crate::audit::tally::RunTally;
use crate::commit::NewFile;
use crate::state::{Settings, Share, State, json};

/// A streamed report with what each input contributed to it.
#[derive(Debug)]
struct Streamed {
    report: StreamedReport,
    /// By input: rows and bytes handed in.
    shares: Vec<(AtomicU64, AtomicU64)>,
}

impl Streamed {
    fn create(dir: &Path, name: &str, header: &str, inputs: usize) -> io::Result<Streamed> {
        Ok(Streamed {
            report: StreamedReport::create(dir, name, header, inputs)?,
            shares: (0..inputs)
                .map(|_| (AtomicU64::new(0), AtomicU64::new(0)))
                .collect(),
        })
    }

    /// Hands in the `count` rows of block `seq` of input `input`.
    fn submit(&self, input: usize, seq: u64, rows: &mut Vec<u8>, count: u64) -> io::Result<()> {
        if let Some((r, b)) = self.shares.get(input) {
            r.fetch_add(count, Ordering::Relaxed);
            b.fetch_add(rows.len() as u64, Ordering::Relaxed);
        }
        self.report.submit(input, seq, rows)
    }

    fn end(&self, input: usize, blocks: u64) -> io::Result<()> {
        self.report.end(input, blocks)
    }

    /// The report, still to be finished, and what each input contributed to it: final once
    /// every row has been handed in.
    fn into_parts(self) -> (StreamedReport, Vec<Share>) {
        let shares = self
            .shares
            .into_iter()
            .map(|(rows, bytes)| Share {
                rows: rows.into_inner(),
                bytes: bytes.into_inner(),
            })
            .collect();
        (self.report, shares)
    }
}

/// Every report of a run in `--out`, the streamed ones started.
#[derive(Debug)]
pub struct Reports {
    dir: PathBuf,
    violations: Streamed,
    conflicts: Streamed,
    decisions: Option<Streamed>,
    html: bool,
    /// Threads that write the reports at the end (the run's `--threads`).
    threads: usize,
    /// `--raw-csv`: the streamed reports' cells as read.
    raw_csv: bool,
}

impl Reports {
    /// Starts the streamed reports in `dir` (the run's staging directory) for `inputs` input
    /// files; `decisions`: also `decisions.csv`.
    pub fn create(dir: &Path, inputs: usize, decisions: bool) -> io::Result<Reports> {
        let violations = Streamed::create(dir, files::VIOLATIONS, violations::HEADER, inputs)?;
        let conflicts = Streamed::create(
            dir,
            files::PREFERENCE_CONFLICTS,
            preference_conflicts::HEADER,
            inputs,
        )?;
        let decisions = if decisions {
            Some(Streamed::create(
                dir,
                files::DECISIONS,
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
            threads: 1,
            raw_csv: false,
        })
    }

    /// Whether the streamed reports' cells are written as read (`--raw-csv`) instead of by the
    /// spreadsheet-safe rule (by default they are not). The settings given to
    /// [`Reports::finish`] must say the same.
    pub fn with_raw_csv(mut self, raw: bool) -> Reports {
        self.raw_csv = raw;
        self
    }

    /// Whether [`Reports::finish`] also writes `report.html` (by default it does).
    pub fn with_html(mut self, html: bool) -> Reports {
        self.html = html;
        self
    }

    /// Writes the final reports on `threads` threads (default 1).
    pub fn with_threads(mut self, threads: usize) -> Reports {
        self.threads = threads;
        self
    }

    /// Completes the streamed reports, and writes the state of `run` (made with `settings`)
    /// and every other report rendered from it ([`render`]). Returns the state.
    ///
    /// Every row has been handed in when this is called, so the streamed reports' shares are
    /// known and the state needs nothing more from them. What is left of each is its last sync,
    /// waiting for the disk (tens of milliseconds for a large file), so those syncs run on
    /// threads of their own while the other reports are written. An error of a streamed report
    /// comes first: it says why the others do not matter.
    pub fn finish(self, run: RunTally, settings: Settings) -> io::Result<State> {
        let mut reports = Vec::with_capacity(3);
        let mut streamed = Vec::with_capacity(3);
        for (name, report) in [
            (files::VIOLATIONS, Some(self.violations)),
            (files::PREFERENCE_CONFLICTS, Some(self.conflicts)),
            (files::DECISIONS, self.decisions),
        ] {
            if let Some((report, shares)) = report.map(Streamed::into_parts) {
                reports.push(report);
                streamed.push((name, shares));
            }
        }
        let state = State::of(settings, run, &streamed)
            .map_err(|e| io::Error::other(format!("inconsistent state: {e}")))?;
        let view =
            View::of(&state).map_err(|e| io::Error::other(format!("inconsistent state: {e}")))?;
        std::thread::scope(|scope| {
            let finishing = reports
                .into_iter()
                .map(|report| {
                    std::thread::Builder::new()
                        .name("report-finish".to_owned())
                        .spawn_scoped(scope, || report.finish())
                })
                .collect::<io::Result<Vec<_>>>()?;
            let rendered = render(&self.dir, &view, self.html, self.threads);
            for finished in finishing {
                finished
                    .join()
                    .map_err(|_| io::Error::other("the thread finishing a report failed"))??;
            }
            rendered
        })?;
        Ok(state)
    }
}

/// Writes into `dir` (a staging directory) every report of `view` but the streamed ones (which
/// must be there already), `report.html` when `html`, and `state.json`. The audit and `merge`
/// both end here.
///
/// The reports read the state and write files of their own, so they are written side by side
/// on the thread pool: after the workers are done, this is all the run has left to do, and one
/// thread would leave the other cores idle while the night's reports are written. The page is
/// one of them, rendered from the same view. `threads` bounds the threads used: with 1 (or 0),
/// the reports are written one after the other on the calling thread, and no pool is started
/// (a pool's threads outlive it for a moment after it is dropped).
pub fn render(dir: &Path, view: &View<'_>, html: bool, threads: usize) -> io::Result<()> {
    let state = view.state;
    let rendered = view;
    // The state is the longest to write: first, so that it starts at once beside the rest.
    let writers: [(&str, &(dyn Fn() -> io::Result<()> + Sync)); 10] = [
        (files::STATE, &|| {
            let mut file = NewFile::create(dir, files::STATE)?;
            json::write(state, &mut file)?;
            file.finish()
        }),
        (files::AGENTS, &|| agents::write(dir, rendered)),
        (files::AGENT_ORIGINS, &|| {
            agent_origins::write(dir, rendered)
        }),
        (files::RULES, &|| rules::write(dir, rendered)),
        (files::ROBOTS, &|| robots::write(dir, rendered)),
        (files::INPUTS, &|| inputs::write(dir, rendered)),
        (files::UNKNOWN_AGENTS, &|| {
            unknown_agents::write(dir, rendered)
        }),
        (files::CRAWL_RATE, &|| crawl_rate::write(dir, rendered)),
        (files::HOURLY, &|| hourly::write(dir, rendered)),
        (files::REPORT_HTML, &|| {
            if html {
                html::write(dir, rendered)
            } else {
                Ok(())
            }
        }),
    ];
    if threads <= 1 {
        return writers.iter().try_for_each(|(_, write)| write());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("robots-audit-report-{i}"))
        .build()
        .map_err(io::Error::other)?;
    pool.install(|| {
        writers
            .par_iter()
            .map(|(_, write)| write())
            .collect::<io::Result<()>>()
    })
}

impl<'r> Output for &'r Reports {
    type Sink = RowSink<'r>;

    fn sink(&self) -> RowSink<'r> {
        RowSink {
            reports: self,
            with_decisions: self.decisions.is_some(),
            violations: RowWriter::new(self.raw_csv),
            violation_rows: 0,
            conflicts: RowWriter::new(self.raw_csv),
            conflict_rows: 0,
            decisions: RowWriter::new(self.raw_csv),
            decision_rows: 0,
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
    /// Rows of the block being processed.
    violation_rows: u64,
    conflicts: RowWriter,
    conflict_rows: u64,
    decisions: RowWriter,
    decision_rows: u64,
}

impl Sink for RowSink<'_> {
    #[inline]
    fn agent_request(&mut self, verdict: &AgentRequest<'_>) {
        let outcome = verdict.judgement.outcome;
        if outcome == Outcome::Disallowed {
            self.violations.violation(verdict);
            self.violation_rows += 1;
        } else if verdict.judgement.conflict.is_some() {
            self.conflicts.preference_conflict(verdict);
            self.conflict_rows += 1;
        }
        if self.with_decisions && outcome.is_judged() {
            self.decisions.decision(verdict);
            self.decision_rows += 1;
        }
    }

    fn block_done(&mut self, input: usize, seq: u64, _: u64) -> io::Result<()> {
        let rows = std::mem::take(&mut self.violation_rows);
        self.reports
            .violations
            .submit(input, seq, self.violations.rows(), rows)?;
        let rows = std::mem::take(&mut self.conflict_rows);
        self.reports
            .conflicts
            .submit(input, seq, self.conflicts.rows(), rows)?;
        let rows = std::mem::take(&mut self.decision_rows);
        match &self.reports.decisions {
            Some(report) => report.submit(input, seq, self.decisions.rows(), rows),
            None => Ok(()),
        }
    }

    fn input_ended(&mut self, ended: &InputEnded) -> io::Result<()> {
        let reports = self.reports;
        reports.violations.end(ended.input, ended.blocks)?;
        reports.conflicts.end(ended.input, ended.blocks)?;
        match &reports.decisions {
            Some(decisions) => decisions.end(ended.input, ended.blocks),
            None => Ok(()),
        }
    }
}
