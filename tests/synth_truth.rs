//! End to end on `synth` output: the reports must match the generator's ground truth exactly,
//! for every format and compression it writes.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::*;
use robots_audit::synth::{SynthCompression, SynthConfig, SynthFormat, TRUTH_COUNTERS, generate};

/// A night of 6 origins and 30 bots in 3 files, generated under `dir/synth`.
fn synth_config(
    dir: &Path,
    lines: u64,
    format: SynthFormat,
    compression: SynthCompression,
    seed: u64,
) -> SynthConfig {
    SynthConfig {
        out: dir.join("synth"),
        lines,
        origins: 6,
        bots: 30,
        files: 3,
        format,
        compression,
        seed,
        ..SynthConfig::default()
    }
}

fn audit_matches_truth(format: SynthFormat, compression: SynthCompression, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let config = synth_config(dir.path(), 20_000, format, compression, seed);
    let summary = generate(&config).unwrap();
    let out = dir.path().join("out");
    let mut cmd = robots_audit();
    cmd.args(["audit", "-q", "--threads", "2", "--out"])
        .arg(&out)
        .arg("--robots")
        .arg(&summary.robots_dir);
    for (bot, path) in &summary.ranges {
        cmd.arg("--verify").arg(format!("{bot}={}", path.display()));
    }
    if format == SynthFormat::Combined {
        cmd.args(["--origin", &summary.origins[0]]);
    }
    cmd.arg(config.out.join("logs")).assert().code(0);
    compare(&out, &summary.truth_agents, &summary.truth);
}

fn keyed(
    rows: Vec<BTreeMap<String, String>>,
    keys: &[&str],
) -> BTreeMap<Vec<String>, BTreeMap<String, String>> {
    rows.into_iter()
        .map(|r| (keys.iter().map(|k| r[*k].clone()).collect(), r))
        .collect()
}

fn compare(out: &Path, truth_agents: &Path, truth: &Path) {
    let agents = keyed(read_csv(&out.join("agents.csv")), &["agent"]);
    let want = keyed(read_csv(truth_agents), &["agent"]);
    assert_eq!(
        agents.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "the same agents"
    );
    for (agent, want) in &want {
        let got = &agents[agent];
        for column in TRUTH_COUNTERS {
            assert_eq!(got[column], want[column], "{agent:?} {column}");
        }
        assert_eq!(
            (got["grace"].as_str(), got["unjudged"].as_str()),
            ("0", "0"),
            "{agent:?}"
        );
    }
    let pairs = keyed(
        read_csv(&out.join("agent_origins.csv")),
        &["agent", "origin"],
    );
    let want = keyed(read_csv(truth), &["agent", "origin"]);
    assert_eq!(pairs.len(), want.len(), "the same (agent, origin) pairs");
    for (key, want) in &want {
        let got = pairs
            .get(key)
            .unwrap_or_else(|| panic!("no row for {key:?}"));
        for column in ["requests", "robots_fetches", "allowed", "disallowed"] {
            assert_eq!(got[column], want[column], "{key:?} {column}");
        }
    }
    let violations = read_csv(&out.join("violations.csv"));
    let total: u64 = want
        .values()
        .map(|r| r["disallowed"].parse::<u64>().unwrap())
        .sum();
    assert_eq!(violations.len() as u64, total);
}

#[test]
fn vhost_combined_gzip() {
    audit_matches_truth(SynthFormat::VhostCombined, SynthCompression::Gzip, 1);
}

#[test]
fn combined_zstd_with_origin() {
    audit_matches_truth(SynthFormat::Combined, SynthCompression::Zstd, 2);
}

#[test]
fn alb_plain() {
    audit_matches_truth(SynthFormat::Alb, SynthCompression::Plain, 3);
}

#[test]
fn caddy_gzip() {
    audit_matches_truth(SynthFormat::Caddy, SynthCompression::Gzip, 4);
}

/// The streamed reports of files read at the same time (so that later files spill until the
/// earlier ones end) are byte for byte those of files read one after another, and
/// `decisions.csv` holds one row per judged request of the ground truth.
#[test]
fn streamed_reports_do_not_depend_on_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let config = synth_config(
        dir.path(),
        90_000,
        SynthFormat::VhostCombined,
        SynthCompression::Plain,
        5,
    );
    let summary = generate(&config).unwrap();
    let mut reports = Vec::new();
    for threads in ["1", "3"] {
        let out = dir.path().join(format!("out-{threads}"));
        robots_audit()
            .args(["audit", "-q", "--decisions", "--threads", threads, "--out"])
            .arg(&out)
            .arg("--robots")
            .arg(&summary.robots_dir)
            .arg(config.out.join("logs"))
            .assert()
            .code(0);
        let read = |name: &str| std::fs::read(out.join(name)).unwrap();
        reports.push((read("violations.csv"), read("decisions.csv")));
    }
    assert!(
        reports[0] == reports[1],
        "reports differ between 1 and 3 threads"
    );
    let judged: usize = read_csv(&summary.truth)
        .iter()
        .map(|r| r["allowed"].parse::<usize>().unwrap() + r["disallowed"].parse::<usize>().unwrap())
        .sum();
    let decisions = reports[0].1.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(
        decisions,
        judged + 1,
        "a header and one row per judged request"
    );
}
