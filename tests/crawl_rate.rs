//! Crawl rate and usage preferences (issue 14; docs/contract.md, "Usage preferences"): a night
//! computed by hand, split over two files read by two threads, against two robots.txt versions.
//! `early_requests` and `preference_conflicts` must come out exactly, whatever thread read what,
//! and `crawl_rate.csv` and `preference_conflicts.csv` must not depend on `--threads`.

use crate::common::*;
use std::collections::BTreeMap;
use std::path::Path;

const BINGBOT: &str = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const GPTBOT: &str = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)";
const CLAUDEBOT: &str = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)";
const PERPLEXITY: &str = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)";

/// The initial robots.txt of a.example; the 12:00 version only changes bingbot's delay (line 2)
/// to 20 seconds.
fn robots(bing_delay: &str) -> String {
    format!(
        "User-agent: bingbot\n\
         Crawl-delay: {bing_delay}\n\
         Allow: /\n\
         \n\
         User-agent: GPTBot\n\
         Content-Usage: / train-ai=n\n\
         Content-Usage: /open/ train-ai=y\n\
         Disallow: /private/\n\
         \n\
         User-agent: *\n\
         Content-Signal: search=yes, ai-train=no\n\
         Crawl-delay: 5\n\
         Crawl-delay: later\n\
         Disallow: /private/\n"
    )
}

fn line(hms: &str, path: &str, ua: &str) -> String {
    format!(
        "a.example:443 192.0.2.1 - - [01/Jan/2026:{hms} +0000] \"GET {path} HTTP/1.1\" 200 512 \"-\" \"{ua}\"\n"
    )
}

/// Two files of the same origin, each in time order, their times interleaved.
fn night() -> (Vec<String>, Vec<String>) {
    let one = vec![
        line("10:00:00", "/a", BINGBOT),
        line("10:00:10", "/b", BINGBOT),
        line("10:00:15", "/c", BINGBOT),
        line("10:05:00", "/a", GOOGLEBOT),
        line("10:05:20", "/private/x", GOOGLEBOT),
        line("10:30:00", "/page", GPTBOT),
        line("10:30:01", "/open/x", GPTBOT),
        line("11:00:00", "/a", CLAUDEBOT),
        line("11:30:00", "/a", PERPLEXITY),
        line("12:00:00", "/d", BINGBOT),
        line("12:00:25", "/e", BINGBOT),
    ];
    let two = vec![
        line("10:00:05", "/f", BINGBOT),
        line("10:00:30", "/g", BINGBOT),
        line("10:00:30", "/h", BINGBOT),
        line("10:00:40", "/robots.txt", BINGBOT),
        line("10:05:03", "/b", GOOGLEBOT),
        line("10:30:02", "/private/p", GPTBOT),
        line("11:00:02", "/b", CLAUDEBOT),
        line("11:00:09", "/private/z", CLAUDEBOT),
        line("12:00:10", "/i", BINGBOT),
        line("12:30:00", "/page2", GPTBOT),
    ];
    (one, two)
}

fn audit(dir: &Path, threads: &str, out: &str) {
    robots_audit()
        .current_dir(dir)
        .args(["audit", "-q", "--robots", "robots", "--threads", threads])
        .args(["--out", out, "logs/one.log.gz", "logs/two.log.gz"])
        .assert()
        .code(0);
}

fn setup(dir: &Path) {
    write(dir, "robots/a.example.txt", robots("10"));
    write(
        dir,
        "robots/a.example/2026-01-01T12:00:00Z.txt",
        robots("20"),
    );
    let (one, two) = night();
    write_gz(dir, "logs/one.log.gz", one.concat().as_bytes());
    write_gz(dir, "logs/two.log.gz", two.concat().as_bytes());
}

fn pick<'a>(row: &'a BTreeMap<String, String>, columns: &[&str]) -> Vec<&'a str> {
    columns.iter().map(|c| row[*c].as_str()).collect()
}

#[test]
fn early_requests_and_conflicts_of_a_night_computed_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    audit(d, "2", "out");

    // Bingbot under a 10 s delay: 10:00:00, :05, :10, :15, :30, :30, :40 (robots.txt). :05,
    // :10 and :15 come 5 s after the previous one, the second :30 in the same second: 4 early.
    // Under the 20 s delay from 12:00: 12:00:00, :10, :25, the last two early.
    // Googlebot and ClaudeBot fall under `*` (5 s): Googlebot 10:05:00, :03, :20: 1 early;
    // ClaudeBot 11:00:00, :02, :09: 1 early. PerplexityBot: one request. GPTBot's group has no
    // delay: no row.
    let rates = read_csv(&d.join("out/crawl_rate.csv"));
    let columns = [
        "agent",
        "origin",
        "crawl_delay",
        "honours_crawl_delay",
        "requests",
        "early_requests",
        "early_rate",
        "busiest_minute",
        "busiest_minute_requests",
        "allowed_per_minute",
        "exact",
    ];
    let got: Vec<Vec<&str>> = rates.iter().map(|r| pick(r, &columns)).collect();
    let origin = "https://a.example";
    let want: Vec<Vec<&str>> = vec![
        vec![
            "Bingbot",
            origin,
            "10",
            "true",
            "7",
            "4",
            "0.5714",
            "2026-01-01T10:00:00Z",
            "7",
            "6.0000",
            "true",
        ],
        vec![
            "Bingbot",
            origin,
            "20",
            "true",
            "3",
            "2",
            "0.6667",
            "2026-01-01T12:00:00Z",
            "3",
            "3.0000",
            "true",
        ],
        vec![
            "ClaudeBot",
            origin,
            "5",
            "true",
            "3",
            "1",
            "0.3333",
            "2026-01-01T11:00:00Z",
            "3",
            "12.0000",
            "true",
        ],
        vec![
            "Googlebot",
            origin,
            "5",
            "false",
            "3",
            "1",
            "0.3333",
            "2026-01-01T10:05:00Z",
            "3",
            "12.0000",
            "true",
        ],
        vec![
            "PerplexityBot",
            origin,
            "5",
            "false",
            "1",
            "0",
            "0.0000",
            "2026-01-01T11:30:00Z",
            "1",
            "12.0000",
            "true",
        ],
    ];
    assert_eq!(got, want);

    // Conflicts: GPTBot's Content-Usage says `train-ai=n` except under /open/ (its /private/
    // request is a violation, never a conflict); ClaudeBot (ai-training) is under `*`, whose
    // signal says `ai-train=no`; Googlebot's `search=yes` and PerplexityBot's unstated
    // `ai-input` are no conflict. Rows in input order: file one, then file two.
    let conflicts = read_csv(&d.join("out/preference_conflicts.csv"));
    let columns = [
        "time",
        "origin",
        "agent",
        "path",
        "use",
        "preference",
        "directive",
        "directive_line",
        "robots_version",
        "source",
    ];
    let got: Vec<Vec<&str>> = conflicts.iter().map(|r| pick(r, &columns)).collect();
    let want = vec![
        vec![
            "2026-01-01T10:30:00Z",
            origin,
            "GPTBot",
            "/page",
            "train-ai",
            "n",
            "Content-Usage: / train-ai=n",
            "6",
            "initial",
            "logs/one.log.gz:6",
        ],
        vec![
            "2026-01-01T11:00:00Z",
            origin,
            "ClaudeBot",
            "/a",
            "ai-train",
            "no",
            "Content-Signal: search=yes, ai-train=no",
            "11",
            "initial",
            "logs/one.log.gz:8",
        ],
        vec![
            "2026-01-01T11:00:02Z",
            origin,
            "ClaudeBot",
            "/b",
            "ai-train",
            "no",
            "Content-Signal: search=yes, ai-train=no",
            "11",
            "initial",
            "logs/two.log.gz:7",
        ],
        vec![
            "2026-01-01T12:30:00Z",
            origin,
            "GPTBot",
            "/page2",
            "train-ai",
            "n",
            "Content-Usage: / train-ai=n",
            "6",
            "2026-01-01T12:00:00Z",
            "logs/two.log.gz:10",
        ],
    ];
    assert_eq!(got, want);

    // The same counts in agents.csv, agent_origins.csv and hourly.csv.
    let agents = read_csv(&d.join("out/agents.csv"));
    for (agent, n) in [
        ("GPTBot", "2"),
        ("ClaudeBot", "2"),
        ("Googlebot", "0"),
        ("Bingbot", "0"),
        ("PerplexityBot", "0"),
    ] {
        assert_eq!(
            row(&agents, "agent", agent)["preference_conflicts"],
            n,
            "{agent}"
        );
    }
    assert_eq!(row(&agents, "agent", "GPTBot")["disallowed"], "1");
    let per_origin = read_csv(&d.join("out/agent_origins.csv"));
    assert_eq!(
        row(&per_origin, "agent", "GPTBot")["preference_conflicts"],
        "2"
    );
    let hourly = read_csv(&d.join("out/hourly.csv"));
    let by_hour: Vec<(&str, &str, &str)> = hourly
        .iter()
        .filter(|r| r["preference_conflicts"] != "0")
        .map(|r| {
            (
                r["hour"].as_str(),
                r["agent"].as_str(),
                r["preference_conflicts"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        by_hour,
        [
            ("2026-01-01T10:00:00Z", "GPTBot", "1"),
            ("2026-01-01T11:00:00Z", "ClaudeBot", "2"),
            ("2026-01-01T12:00:00Z", "GPTBot", "1"),
        ]
    );

    // `Crawl-delay: later` is ignored and counted in robots.csv's `ignored_lines`.
    let robots = read_csv(&d.join("out/robots.csv"));
    assert!(
        robots.iter().all(|r| r["ignored_lines"] == "1"),
        "{robots:?}"
    );

    // One thread, or the files in the other order of threads: the same bytes.
    audit(d, "1", "out1");
    for name in ["crawl_rate.csv", "preference_conflicts.csv", "hourly.csv"] {
        assert_eq!(
            std::fs::read(d.join("out").join(name)).unwrap(),
            std::fs::read(d.join("out1").join(name)).unwrap(),
            "{name}"
        );
    }
}

/// A file's lines spread over many blocks read by several threads count the same as one pass:
/// the per-second counts merge exactly.
#[test]
fn a_large_file_over_threads_counts_like_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "robots/a.example.txt",
        "User-agent: *\nCrawl-delay: 3\nContent-Signal: ai-train=no\n",
    );
    // 40,000 lines: Bingbot every 2 s (all early after the first at a 3 s delay, except
    // where the pattern leaves a 4 s gap), ClaudeBot in bursts.
    let mut text = String::new();
    for i in 0..20_000u32 {
        let t = i * 2 + (i / 7) * 2;
        let hms = format!("{:02}:{:02}:{:02}", (t / 3600) % 24, (t / 60) % 60, t % 60);
        text.push_str(&line(&hms, "/x", BINGBOT));
        text.push_str(&line(&hms, "/y", CLAUDEBOT));
    }
    write_gz(d, "logs/one.log.gz", text.as_bytes());
    for (threads, out) in [("1", "out1"), ("2", "out2")] {
        robots_audit()
            .current_dir(d)
            .args(["audit", "-q", "--robots", "robots", "--threads", threads])
            .args(["--out", out, "logs/one.log.gz"])
            .assert()
            .code(0);
    }
    for name in [
        "crawl_rate.csv",
        "preference_conflicts.csv",
        "agents.csv",
        "state.json",
    ] {
        assert_eq!(
            std::fs::read(d.join("out1").join(name)).unwrap(),
            std::fs::read(d.join("out2").join(name)).unwrap(),
            "{name}"
        );
    }
    let rates = read_csv(&d.join("out2/crawl_rate.csv"));
    let bing = row(&rates, "agent", "Bingbot");
    assert_eq!(bing["requests"], "20000");
    // Gaps of 2 s are early; every 7th gap is 4 s: 20,000 - 1 gaps, floor(19,999 / 7) of 4 s.
    // Times wrap at midnight (t passes 86,400 s only past line 37,000): no wrap here.
    let early: u64 = 19_999 - 19_999 / 7;
    assert_eq!(bing["early_requests"], early.to_string());
    assert_eq!(
        row(&read_csv(&d.join("out2/agents.csv")), "agent", "ClaudeBot")["preference_conflicts"],
        "20000"
    );
}

/// `explain` shows the delay in force (and whether the bot is bound by it) and the preference
/// for the bot's use, and says when the audit counts a conflict; `--json` carries both flags.
#[test]
fn explain_shows_the_delay_and_the_preference() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let explain = |source: &str, json: bool| {
        let mut cmd = robots_audit();
        cmd.current_dir(d)
            .args(["explain", "--robots", "robots", "--line", source]);
        if json {
            cmd.arg("--json");
        }
        let output = cmd.output().unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    // GPTBot /page at 10:30:00: allowed, Content-Usage says train-ai=n.
    let text = explain("logs/one.log.gz:6", false);
    assert!(text.contains("verdict:       allowed"), "{text}");
    assert!(
        text.contains(
            "usage:         no for this bot's use (Content-Usage: / train-ai=n, line 6): a preference conflict"
        ),
        "{text}"
    );
    assert!(text.contains("crawl-delay:   none"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&explain("logs/one.log.gz:6", true)).unwrap();
    assert_eq!(json["preference_conflict"], true);
    // GPTBot /open/x: the /open/ rule says y.
    let text = explain("logs/one.log.gz:7", false);
    assert!(
        text.contains(
            "usage:         yes for this bot's use (Content-Usage: /open/ train-ai=y, line 7)\n"
        ),
        "{text}"
    );
    // Bingbot at 10:00:10: 10 s under the initial version, and Bingbot honours it; at 12:00:00
    // the new version's 20 s.
    let text = explain("logs/one.log.gz:2", false);
    assert!(
        text.contains("crawl-delay:   10s (line 2); its operator says it honours Crawl-delay"),
        "{text}"
    );
    let text = explain("logs/one.log.gz:10", false);
    assert!(text.contains("crawl-delay:   20s (line 2)"), "{text}");
    // Googlebot falls under `*`: 5 s, not binding; `search=yes` is no conflict.
    let text = explain("logs/one.log.gz:4", false);
    assert!(
        text.contains("crawl-delay:   5s (line 12); its operator does not say it honours"),
        "{text}"
    );
    assert!(
        text.contains("usage:         yes for this bot's use (Content-Signal: search=yes, ai-train=no, line 11)\n"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&explain("logs/one.log.gz:4", true)).unwrap();
    assert_eq!(
        (&json["honours_crawl_delay"], &json["preference_conflict"]),
        (
            &serde_json::Value::Bool(false),
            &serde_json::Value::Bool(false)
        )
    );
}

/// Every file of `a` equals the one of the same name in `b`, byte for byte, `state.json`
/// included (its tables are in canonical order).
fn same_reports(a: &Path, b: &Path) {
    let names = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(a), names(b));
    for name in names(a) {
        assert!(
            std::fs::read(a.join(&name)).unwrap() == std::fs::read(b.join(&name)).unwrap(),
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

fn audit_one(dir: &Path, file: &str, out: &str) {
    robots_audit()
        .current_dir(dir)
        .args(["audit", "-q", "--robots", "robots", "--out", out, file])
        .assert()
        .code(0);
}

#[test]
fn each_file_audited_apart_merges_to_the_audit_of_both() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    audit(d, "2", "whole");
    audit_one(d, "logs/one.log.gz", "one");
    audit_one(d, "logs/two.log.gz", "two");
    robots_audit()
        .current_dir(d)
        .args(["merge", "-q", "--out", "merged", "one", "two"])
        .assert()
        .code(0);
    same_reports(&d.join("whole"), &d.join("merged"));

    // Bingbot under the 10 s delay: file one alone has 1 early request (10:00:15), file two
    // alone 1 (the second 10:00:30); together 10:00:05, :10 and :15 are early too: 4.
    let early = |out: &str| -> Vec<String> {
        read_csv(&d.join(out).join("crawl_rate.csv"))
            .iter()
            .filter(|r| r["agent"] == "Bingbot" && r["crawl_delay"] == "10")
            .map(|r| r["early_requests"].clone())
            .collect()
    };
    assert_eq!(early("one"), ["1"]);
    assert_eq!(early("two"), ["1"]);
    assert_eq!(early("merged"), ["4"]);
    // GPTBot's and ClaudeBot's conflicts, one of each in each file, in input order.
    let sources: Vec<String> = read_csv(&d.join("merged/preference_conflicts.csv"))
        .iter()
        .map(|r| r["source"].clone())
        .collect();
    assert_eq!(
        sources,
        [
            "logs/one.log.gz:6",
            "logs/one.log.gz:8",
            "logs/two.log.gz:7",
            "logs/two.log.gz:10"
        ]
    );
    let conflicts = |out: &str| -> String {
        read_csv(&d.join(out).join("agents.csv"))
            .iter()
            .map(|r| format!("{}={} ", r["agent"], r["preference_conflicts"]))
            .collect()
    };
    assert_eq!(conflicts("merged"), conflicts("whole"));
    for agent in ["GPTBot=2", "ClaudeBot=2"] {
        assert!(
            conflicts("merged").contains(agent),
            "{}",
            conflicts("merged")
        );
    }
}

/// A `state.json` whose crawl-rate counts break their invariant, with a valid checksum (as a
/// bug or a hand edit would leave it), is refused with the reason, never summed.
#[test]
fn a_damaged_crawl_rate_entry_in_the_state_is_refused() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    audit_one(d, "logs/one.log.gz", "one");
    let text = std::fs::read_to_string(d.join("one/state.json")).unwrap();
    let envelope: serde_json::Value = serde_json::from_str(&text).unwrap();
    type Damage = fn(&mut Vec<serde_json::Value>);
    let cases: [(&str, Damage, &str); 3] = [
        (
            "fewer requests than seconds",
            |entries| entries[0][2] = 1.into(),
            "fewer than its seconds",
        ),
        (
            "a repeated minute",
            |entries| entries.push(entries[0].clone()),
            "not sorted by bucket, or repeated",
        ),
        (
            "a mask past the minute",
            |entries| entries[0][1] = (1u64 << 60).into(),
            "seconds mask",
        ),
    ];
    for (name, damage, expected) in cases {
        let mut envelope = envelope.clone();
        let keys = envelope["payload"]["inputs"][0]["stats"]["rates"]["keys"]
            .as_array_mut()
            .unwrap();
        let bingbot = keys
            .iter_mut()
            .find(|k| k[0][2] == 10_000)
            .expect("Bingbot under the 10 s delay");
        let entries = bingbot[1][1].as_array_mut().unwrap();
        damage(entries);
        let payload = serde_json::to_string(&envelope["payload"]).unwrap();
        envelope["sha256"] = format!("{:x}", Sha256::digest(payload.as_bytes())).into();
        let report = d.join(name);
        std::fs::create_dir_all(&report).unwrap();
        for file in std::fs::read_dir(d.join("one")).unwrap() {
            let file = file.unwrap();
            std::fs::copy(file.path(), report.join(file.file_name())).unwrap();
        }
        std::fs::write(
            report.join("state.json"),
            serde_json::to_string(&envelope).unwrap(),
        )
        .unwrap();
        let out = robots_audit()
            .current_dir(d)
            .args(["merge", "-q", "--out", "merged"])
            .arg(&report)
            .assert()
            .code(1)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{name}: {err}");
        assert!(!d.join("merged/crawl_rate.csv").exists(), "{name}");
    }
}
