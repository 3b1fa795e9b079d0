//! The library API the command is built on: loading, auditing into an output of one's own, and
//! writing the reports, which come out byte for byte as the command writes them.

use std::io;
use std::path::PathBuf;
use std::sync::Mutex;

use crate::common::*;
use robots_audit::audit::judge::Outcome;
use robots_audit::audit::sink::{AgentRequest, InputEnded, Output, Sink};
use robots_audit::audit::{self, AuditConfig, expand_inputs};
use robots_audit::bots::{Catalog, Verifier};
use robots_audit::report::Reports;
use robots_audit::state::Settings;
use robots_audit::versions::source::{LoadOptions, load};

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const MJ12: &str = "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)";

/// A night of `n` lines over two hosts, half of them MJ12bot, which is banned from a.example.
fn night(dir: &std::path::Path, n: usize) -> PathBuf {
    write(
        dir,
        "robots/a.example.txt",
        "User-agent: *\nDisallow: /private/\n\nUser-agent: MJ12bot\nDisallow: /\n",
    );
    write(
        dir,
        "robots/b.example.txt",
        "User-agent: *\nDisallow: /x/\n",
    );
    let lines: String = (0..n)
        .map(|i| {
            let host = if i % 3 == 0 { "b.example" } else { "a.example" };
            let ua = if i % 2 == 0 { MJ12 } else { GOOGLEBOT };
            let path = ["/", "/private/p", "/x/y", "/robots.txt"][i % 4];
            format!(
                "{host}:443 198.51.100.{} - - [01/Jan/2026:{:02}:{:02}:00 +0000] \"GET {path}{i} HTTP/1.1\" 200 5 \"-\" \"{ua}\"\n",
                i % 250,
                (i / 60) % 24,
                i % 60
            )
        })
        .collect();
    write_gz(dir, "logs/night.log.gz", lines.as_bytes())
}

/// An output of the test's own: how many verdicts of each outcome its sinks saw, and which
/// inputs were reported done.
#[derive(Default)]
struct Tally {
    outcomes: Mutex<[u64; 6]>,
    done: Mutex<Vec<(usize, u64)>>,
}

struct TallySink<'t> {
    tally: &'t Tally,
    outcomes: [u64; 6],
}

impl Sink for TallySink<'_> {
    fn agent_request(&mut self, verdict: &AgentRequest<'_>) {
        let slot = match verdict.judgement.outcome {
            Outcome::RobotsFetch => 0,
            Outcome::Unjudged => 1,
            Outcome::Allowed => 2,
            Outcome::Disallowed => 3,
            Outcome::Grace => 4,
            Outcome::Exempt => 5,
        };
        self.outcomes[slot] += 1;
    }

    fn block_done(&mut self, _: usize, _: u64, _: u64) -> io::Result<()> {
        let mut total = self.tally.outcomes.lock().unwrap();
        for (sum, n) in total.iter_mut().zip(std::mem::take(&mut self.outcomes)) {
            *sum += n;
        }
        Ok(())
    }

    fn input_ended(&mut self, ended: &InputEnded) -> io::Result<()> {
        self.tally
            .done
            .lock()
            .unwrap()
            .push((ended.input, ended.blocks));
        Ok(())
    }
}

impl<'t> Output for &'t Tally {
    type Sink = TallySink<'t>;

    fn sink(&self) -> TallySink<'t> {
        TallySink {
            tally: self,
            outcomes: [0; 6],
        }
    }
}

#[test]
fn an_output_of_ones_own_sees_every_verdict_the_counters_count() {
    let dir = tempfile::tempdir().unwrap();
    let log = night(dir.path(), 3000);
    let robots = load(&[dir.path().join("robots")], &LoadOptions::default()).unwrap();
    let inputs = expand_inputs(&[log]).unwrap();
    let config = AuditConfig {
        threads: 2,
        ..AuditConfig::default()
    };
    let tally = Tally::default();
    let run = audit::run(
        &config,
        &Catalog::builtin(),
        &Verifier::new(),
        robots,
        &inputs,
        &&tally,
    )
    .unwrap();
    let mut counted = [0u64; 6];
    for counts in run
        .inputs
        .iter()
        .flat_map(|input| input.stats.pairs.values())
    {
        for (sum, n) in counted.iter_mut().zip([
            counts.robots_fetches,
            counts.unjudged,
            counts.allowed,
            counts.disallowed,
            counts.grace,
            counts.exempt,
        ]) {
            *sum += n;
        }
    }
    assert_eq!(*tally.outcomes.lock().unwrap(), counted);
    assert_eq!(counted.iter().sum::<u64>(), 3000);
    assert!(counted[3] > 0, "some violations: {counted:?}");
    assert_eq!(tally.done.lock().unwrap().len(), 1);
    assert_eq!(run.inputs[0].file.lines, 3000);
}

#[test]
fn reports_written_through_the_library_are_the_commands() {
    let dir = tempfile::tempdir().unwrap();
    night(dir.path(), 500);
    robots_audit()
        .current_dir(dir.path())
        .args(["audit", "-q", "--decisions", "--robots", "robots"])
        .args(["--out", "by-command", "logs"])
        .assert()
        .success();
    // Relative paths, as the command was given them, so that the `source` columns agree (the
    // other test of this file uses absolute paths only).
    std::env::set_current_dir(dir.path()).unwrap();
    let robots = load(&[PathBuf::from("robots")], &LoadOptions::default()).unwrap();
    let inputs = expand_inputs(&[PathBuf::from("logs")]).unwrap();
    std::fs::create_dir("by-library").unwrap();
    let reports = Reports::create("by-library".as_ref(), inputs.len(), true).unwrap();
    let config = AuditConfig {
        threads: 1,
        ..AuditConfig::default()
    };
    let catalog = Catalog::builtin();
    let run = audit::run(
        &config,
        &catalog,
        &Verifier::new(),
        robots,
        &inputs,
        &&reports,
    )
    .unwrap();
    reports
        .finish(run, Settings::of(&config, &catalog))
        .unwrap();
    for name in [
        "agents.csv",
        "agent_origins.csv",
        "violations.csv",
        "decisions.csv",
        "rules.csv",
        "robots.csv",
        "inputs.csv",
        "skipped_lines.csv",
        "unknown_agents.csv",
        "hourly.csv",
        "crawl_rate.csv",
        "preference_conflicts.csv",
    ] {
        let read = |d: &str| std::fs::read(dir.path().join(d).join(name)).unwrap();
        assert!(read("by-command") == read("by-library"), "{name} differs");
    }
}
