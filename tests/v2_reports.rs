//! Version 2's changes to the reports (CHANGELOG.md, version 2; docs/contract.md): the
//! `user_agent` of `decisions.csv`, `unknown_agents.csv` (exact, then bounded), the run owning
//! `--out`, "nothing judged" exiting 3 with its cause, and errors that name their file.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use crate::common::*;
use predicates::prelude::*;
use robots_audit::audit::auditor::{AuditContext, BlockAuditor};
use robots_audit::audit::identity::Identifier;
use robots_audit::audit::judge::Judge;
use robots_audit::audit::schedule::{BlockHandler, LineBlock};
use robots_audit::audit::tally::{self, Tally};
use robots_audit::audit::unknown::{EXACT_LIMIT, UnknownAgents};
use robots_audit::audit::{self, AuditConfig, expand_inputs};
use robots_audit::bots::{Catalog, Verifier};
use robots_audit::logs::{Block, FieldMap, Format, LineParser};
use robots_audit::report::summary;
use robots_audit::report::{Reports, View};
use robots_audit::state::{Settings, State};
use robots_audit::versions::source::{LoadOptions, load};

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const UNKNOWN_BOT: &str = "NightOwlCrawler/1.0 (+https://nightowl.example/bot.html)";
const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const CURL: &str = "curl/8.5.0";
/// Holds a comma, so that the report must quote it.
const SAFARI: &str = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Safari/605.1.15";

/// A `vhost_combined` line at `second` seconds after midnight, 1 January 2026.
fn line(host: &str, second: u32, path: &str, user_agent: &str) -> String {
    format!(
        "{host}:443 198.51.100.7 - - [01/Jan/2026:{:02}:{:02}:{:02} +0000] \"GET {path} HTTP/1.1\" 200 5 \"-\" \"{user_agent}\"\n",
        second / 3600,
        second / 60 % 60,
        second % 60
    )
}

fn robots(dir: &Path) {
    write(
        dir,
        "robots/a.example.txt",
        "User-agent: *\nDisallow: /private/\n",
    );
}

fn audit_in(dir: &Path) -> assert_cmd::Command {
    let mut cmd = robots_audit();
    cmd.current_dir(dir).args(["audit", "-q"]);
    cmd
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn decisions_carry_the_user_agent_as_logged() {
    let dir = tempfile::tempdir().unwrap();
    robots(dir.path());
    let quoted =
        r#"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html) \"x, y\""#;
    let log = [
        line("a.example", 10, "/private/a", GOOGLEBOT),
        line("a.example", 20, "/open", quoted),
        line("a.example", 30, "/open", UNKNOWN_BOT),
        line("a.example", 40, "/open", FIREFOX),
    ]
    .concat();
    write(dir.path(), "access.log", log);
    audit_in(dir.path())
        .args([
            "--robots",
            "robots",
            "--decisions",
            "--out",
            "out",
            "access.log",
        ])
        .assert()
        .code(0);
    let out = dir.path().join("out");
    assert_eq!(
        header(&out.join("decisions.csv")),
        "time,origin,agent,user_agent,client_ip,method,path,status,verdict,rule,rule_line,robots_version,source"
    );
    let rows = read_csv(&out.join("decisions.csv"));
    let seen: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["agent"].as_str(),
                r["user_agent"].as_str(),
                r["path"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("Googlebot", GOOGLEBOT, "/private/a"),
            (
                "Googlebot",
                "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html) \"x, y\"",
                "/open"
            ),
            ("NightOwlCrawler", UNKNOWN_BOT, "/open"),
        ]
    );
    // The violation of the same request names the same header.
    let violations = read_csv(&out.join("violations.csv"));
    assert_eq!(violations[0]["user_agent"], rows[0]["user_agent"]);
}

/// Two inputs whose headers are known by heart; `Firefox` is seen first (in time) in the second
/// file but first in input order in the first one.
fn two_nights(dir: &Path) {
    robots(dir);
    let a = [
        line("a.example", 3600, "/c1", CURL),
        line("a.example", 3601, "/private/g", GOOGLEBOT),
        line("a.example", 3602, "/from-a-3?q=1", FIREFOX),
        line("a.example", 3603, "/from-a-4", FIREFOX),
        line("a.example", 3604, "/s1", SAFARI),
        line("a.example", 3605, "/n1", UNKNOWN_BOT),
        line("a.example", 3606, "/q", r#"Mozilla/5.0 \"quoted\" agent"#),
        line("a.example", 3607, "/dash", "-"),
    ]
    .concat();
    let b = [
        line("a.example", 60, "/from-b-1", FIREFOX),
        line("a.example", 7200, "/c2", CURL),
        line("a.example", 7201, "/robots.txt", SAFARI),
        line("a.example", 7202, "/private/x", FIREFOX),
    ]
    .concat();
    write(dir, "logs/a.log", a);
    write_gz(dir, "logs/b.log.gz", b.as_bytes());
}

#[test]
fn unknown_agents_are_counted_exactly_whatever_the_mode_and_threads() {
    let dir = tempfile::tempdir().unwrap();
    two_nights(dir.path());
    let mut outputs = Vec::new();
    for (out, extra) in [
        ("one", &["--threads", "1"][..]),
        ("two", &["--threads", "2"]),
        ("all", &["--threads", "2", "--all-agents"]),
    ] {
        audit_in(dir.path())
            .args(["--robots", "robots", "--out", out])
            .args(extra)
            .arg("logs")
            .assert()
            .code(0);
        outputs.push(read(&dir.path().join(out).join("unknown_agents.csv")));
    }
    let expected = "\
user_agent,requests,robots_fetches,first_seen,last_seen,sample_path
Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0,4,0,2026-01-01T00:01:00Z,2026-01-01T02:00:02Z,/from-a-3?q=1
\"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Safari/605.1.15\",2,1,2026-01-01T01:00:04Z,2026-01-01T02:00:01Z,/s1
curl/8.5.0,2,0,2026-01-01T01:00:00Z,2026-01-01T02:00:00Z,/c1
,1,0,2026-01-01T01:00:07Z,2026-01-01T01:00:07Z,/dash
\"Mozilla/5.0 \"\"quoted\"\" agent\",1,0,2026-01-01T01:00:06Z,2026-01-01T01:00:06Z,/q
";
    for (name, got) in ["one", "two", "all"].iter().zip(&outputs) {
        assert_eq!(got, expected, "--out {name}");
    }
    // A line without a header (`-`) is listed under the empty header. The run's requests are
    // all there: bots are never listed, and with --all-agents the
    // browsers are judged as (not a bot) yet still listed.
    let all = read_csv(&dir.path().join("all/agents.csv"));
    assert_eq!(row(&all, "agent", "(not a bot)")["requests"], "10");
}

/// Lines of 30 headers that are not bots and two that are, spread so that every block holds
/// several of each.
fn busy_log(seed: u32, lines: u32) -> String {
    (0..lines)
        .map(|i| {
            let n = i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 7;
            let ua = match n % 34 {
                0 => GOOGLEBOT.to_owned(),
                1 => UNKNOWN_BOT.to_owned(),
                k => format!("Mozilla/5.0 (Browser {}) Gecko/20100101", k % 30),
            };
            line("a.example", i % 86_400, &format!("/p/{seed}/{i}"), &ua)
        })
        .collect()
}

#[test]
fn unknown_agents_do_not_depend_on_threads_over_many_blocks() {
    let dir = tempfile::tempdir().unwrap();
    robots(dir.path());
    // About 1.8 MB each: several blocks per file.
    for seed in 0..3 {
        write_gz(
            dir.path(),
            &format!("logs/{seed}.log.gz"),
            busy_log(seed, 12_000).as_bytes(),
        );
    }
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let out = format!("out-{threads}");
        audit_in(dir.path())
            .args([
                "--robots",
                "robots",
                "--threads",
                threads,
                "--out",
                &out,
                "logs",
            ])
            .assert()
            .code(0);
        outputs.push(fs::read(dir.path().join(&out).join("unknown_agents.csv")).unwrap());
    }
    assert!(outputs[0] == outputs[1], "--threads 1 and 2 differ");
    let rows = read_csv(&dir.path().join("out-1/unknown_agents.csv"));
    assert_eq!(rows.len(), 30);
    let total: u64 = rows
        .iter()
        .map(|r| r["requests"].parse::<u64>().unwrap())
        .sum();
    let inputs = read_csv(&dir.path().join("out-1/inputs.csv"));
    let others: u64 = inputs
        .iter()
        .map(|r| r["other_requests"].parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, others);
}

/// The lines of `text` cut into blocks of `per_block` lines.
fn blocks(text: &str, per_block: usize) -> Vec<Block> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    lines
        .chunks(per_block)
        .enumerate()
        .map(|(i, chunk)| Block {
            data: chunk.concat().into_bytes(),
            first_line: (i * per_block + 1) as u64,
            ..Block::default()
        })
        .collect()
}

type Rows = Vec<(Vec<u8>, u64, Option<String>)>;

fn rows_of(table: &UnknownAgents) -> Rows {
    table
        .top(usize::MAX)
        .into_iter()
        .map(|(header, counts)| {
            (
                header.to_vec(),
                counts.requests,
                counts.sample.as_ref().map(|s| {
                    format!(
                        "{}:{}:{}",
                        s.input,
                        s.line,
                        String::from_utf8_lossy(&s.path)
                    )
                }),
            )
        })
        .collect()
}

/// However the blocks of two inputs are dealt to two threads and in whatever order they are
/// processed, the merged table is the one of a single thread reading them in order.
#[test]
fn unknown_agents_do_not_depend_on_the_order_of_blocks() {
    let dir = tempfile::tempdir().unwrap();
    robots(dir.path());
    let policy = load(&[dir.path().join("robots")], &LoadOptions::default()).unwrap();
    let catalog = Catalog::builtin();
    let identifier = Identifier::new(&catalog, false);
    let judge = Judge::new(&policy, jiff::SignedDuration::from_hours(24));
    let verifier = Verifier::new();
    let paths = [
        write(dir.path(), "x.log", ""),
        write(dir.path(), "y.log", ""),
    ];
    let inputs = expand_inputs(&paths).unwrap();
    let context = AuditContext::new(&identifier, &judge, &verifier, &inputs);
    let parser = Arc::new(LineParser::new(Format::VhostCombined, &FieldMap::default()));
    let work: Vec<LineBlock> = [busy_log(7, 2_000), busy_log(8, 1_500)]
        .iter()
        .enumerate()
        .flat_map(|(input, text)| {
            let parser = Arc::clone(&parser);
            blocks(text, 97)
                .into_iter()
                .enumerate()
                .map(move |(seq, block)| LineBlock {
                    input,
                    seq: seq as u64,
                    block,
                    parser: Arc::clone(&parser),
                })
        })
        .collect();
    let run = |deal: &dyn Fn(usize) -> usize, order: &[usize]| {
        let mut threads = [
            BlockAuditor::new(&context, Tally::new(EXACT_LIMIT), ()),
            BlockAuditor::new(&context, Tally::new(EXACT_LIMIT), ()),
        ];
        for &i in order {
            threads[deal(i)].handle(&work[i]).unwrap();
        }
        let [first, second] = threads;
        let mut merged = UnknownAgents::new(EXACT_LIMIT);
        let folded = tally::fold(
            vec![second.sink.0, first.sink.0],
            &inputs,
            (EXACT_LIMIT, "UTC"),
        );
        for input in folded.unwrap() {
            merged.merge(input.unknown_agents).unwrap();
        }
        merged
    };
    let in_order: Vec<usize> = (0..work.len()).collect();
    let single = run(&|_| 0, &in_order);
    assert!(!single.is_approximate());
    let reversed: Vec<usize> = in_order.iter().rev().copied().collect();
    let shuffled: Vec<usize> = {
        let mut keyed: Vec<(u32, usize)> = in_order
            .iter()
            .map(|&i| ((i as u32).wrapping_mul(2_654_435_761), i))
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|(_, i)| i).collect()
    };
    let want = rows_of(&single);
    assert_eq!(want.len(), 30);
    for (name, table) in [
        ("reversed, one thread", run(&|_| 1, &reversed)),
        ("alternating", run(&|i| i % 2, &in_order)),
        ("shuffled, by parity", run(&|i| i % 2, &shuffled)),
        (
            "reversed, halves",
            run(&|i| usize::from(i < work.len() / 2), &reversed),
        ),
    ] {
        assert_eq!(rows_of(&table), want, "{name}");
    }
    // The sample is the earliest request in input order: the first line of input 0 with the
    // header.
    let firefox_0 = want
        .iter()
        .find(|(h, ..)| h.as_slice() == b"Mozilla/5.0 (Browser 0) Gecko/20100101")
        .unwrap();
    assert!(
        firefox_0.2.as_deref().unwrap().starts_with("0:"),
        "{firefox_0:?}"
    );
}

/// Past the limit of exact counting, the counts come from a bounded summary: the heavy
/// hitters are kept with a bounded error, the report stays within the summary, and the
/// summary on standard error says the counts are estimates.
#[test]
fn past_the_limit_the_counts_are_bounded_estimates() {
    let dir = tempfile::tempdir().unwrap();
    robots(dir.path());
    let mut log = String::new();
    for i in 0..3_000u32 {
        let ua = match i % 3 {
            0 => FIREFOX.to_owned(),
            1 => CURL.to_owned(),
            _ => format!("Scanner-{i}"),
        };
        log.push_str(&line("a.example", i, &format!("/x{i}"), &ua));
    }
    let log = write(dir.path(), "logs/night.log", log);
    let out = dir.path().join("out");
    fs::create_dir(&out).unwrap();
    let robots = load(&[dir.path().join("robots")], &LoadOptions::default()).unwrap();
    let inputs = expand_inputs(&[log]).unwrap();
    let reports = Reports::create(&out, inputs.len(), false).unwrap();
    let config = AuditConfig {
        threads: 2,
        unknown_agents_limit: 50,
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
    let state = reports
        .finish(run, Settings::of(&config, &catalog))
        .unwrap();
    let view = View::of(&state).unwrap();
    let unknown = &view.totals.unknown_agents;
    assert!(unknown.is_approximate());
    assert!(unknown.len() <= 50, "{} kept", unknown.len());
    let error = unknown.max_error();
    let rows = read_csv(&out.join("unknown_agents.csv"));
    assert!(rows.len() <= 50);
    for (i, (ua, truth)) in [(FIREFOX, 1000u64), (CURL, 1000)].into_iter().enumerate() {
        let row = row(&rows, "user_agent", ua);
        let requests: u64 = row["requests"].parse().unwrap();
        assert!(
            (truth..=truth + error).contains(&requests),
            "{ua}: {requests}, error {error}"
        );
        assert!(
            rows[..2].contains(row),
            "{ua} is among the first two (row {i})"
        );
    }
    let summary = summary::render(&view, "out");
    assert!(
        summary.contains("unknown_agents.csv: more than 50 distinct user-agent headers")
            && summary.contains("estimates"),
        "{summary}"
    );
    // Exact below the limit: the same night with the default limit says nothing of estimates.
    let exact = audit::run(
        &AuditConfig {
            threads: 2,
            ..AuditConfig::default()
        },
        &catalog,
        &Verifier::new(),
        load(&[dir.path().join("robots")], &LoadOptions::default()).unwrap(),
        &inputs,
        &(),
    )
    .unwrap();
    let exact = State::of(Settings::of(&config, &catalog), exact, &[]).unwrap();
    let exact = View::of(&exact).unwrap();
    assert!(!exact.totals.unknown_agents.is_approximate());
    assert_eq!(exact.totals.unknown_agents.len(), 1_002);
    assert!(!summary::render(&exact, "out").contains("estimates"));
}

#[test]
fn unknown_agents_lists_at_most_a_thousand_headers() {
    let dir = tempfile::tempdir().unwrap();
    robots(dir.path());
    let log: String = (0..1_200u32)
        .map(|i| {
            // Header k is seen k % 3 + 1 times.
            let copies = i % 3 + 1;
            (0..copies)
                .map(|c| line("a.example", i + c, "/", &format!("agent-{i:04}")))
                .collect::<String>()
        })
        .collect();
    write(dir.path(), "night.log", log);
    audit_in(dir.path())
        .args(["--robots", "robots", "--out", "out", "night.log"])
        .assert()
        // Lines were read and nothing was judged: no request was a bot's.
        .code(3);
    let rows = read_csv(&dir.path().join("out/unknown_agents.csv"));
    assert_eq!(rows.len(), 1_000);
    // 400 headers seen 3 times, 400 twice, then the first 200 by bytes of those seen once.
    assert_eq!(rows[0]["user_agent"], "agent-0002");
    assert_eq!(rows[0]["requests"], "3");
    assert_eq!(rows[400]["user_agent"], "agent-0001");
    assert_eq!(rows[999]["user_agent"], "agent-0597");
    assert_eq!(rows[999]["requests"], "1");
}

/// Every file in `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_run_owns_its_out_directory() {
    let dir = tempfile::tempdir().unwrap();
    two_nights(dir.path());
    let out = dir.path().join("out");
    audit_in(dir.path())
        .args(["--robots", "robots", "--decisions", "--out", "out", "logs"])
        .assert()
        .code(0);
    assert!(out.join("decisions.csv").exists());
    write(dir.path(), "out/notes.txt", "mine");
    write(dir.path(), "out/decisions-2025.csv", "mine too");
    audit_in(dir.path())
        .args(["--robots", "robots", "--out", "out", "logs"])
        .assert()
        .code(0);
    assert!(
        !out.join("decisions.csv").exists(),
        "a stale decisions.csv is left"
    );
    assert_eq!(read(&out.join("notes.txt")), "mine");
    assert_eq!(read(&out.join("decisions-2025.csv")), "mine too");
    assert!(out.join("unknown_agents.csv").exists());
    // A fatal error (a robots source that cannot be read) leaves every report as it was.
    let before = snapshot(&out);
    write(
        dir.path(),
        "bad/manifest.csv",
        "origin,valid_from,status,flie\n",
    );
    audit_in(dir.path())
        .args([
            "--robots",
            "bad/manifest.csv",
            "--decisions",
            "--out",
            "out",
            "logs",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bad/manifest.csv"));
    assert_eq!(snapshot(&out), before);
}

#[test]
fn host_less_lines_without_origin_judge_nothing_and_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    robots(dir.path());
    let log = format!(
        "203.0.113.9 - - [01/Jan/2026:10:00:00 +0000] \"GET /private/x HTTP/1.1\" 200 10 \"-\" \"{GOOGLEBOT}\"\n"
    );
    write(dir.path(), "access.log", log.repeat(4));
    let assert = audit_in(dir.path())
        .args(["--robots", "robots", "--out", "out", "access.log"])
        .assert()
        .code(3);
    let stderr = stderr_text(assert.get_output());
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("nothing judged"))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].contains("4 requests could not be judged")
            && said[0].contains("the lines carry no host and --origin was not given"),
        "{stderr}"
    );
    // The reports are written all the same.
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    assert_eq!(row(&agents, "agent", "Googlebot")["unjudged"], "4");
    // Mixed with lines whose host no source names, both causes are said, in one line.
    write(
        dir.path(),
        "hosted.log",
        line("b.example", 5, "/x", GOOGLEBOT),
    );
    audit_in(dir.path())
        .args([
            "--robots",
            "robots",
            "--out",
            "out",
            "access.log",
            "hosted.log",
        ])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "robots-audit: nothing judged: 5 requests could not be judged: the lines carry no \
             host and --origin was not given (4 requests); no robots source names any of the 1 \
             origin seen (most requested: https://b.example); the robots sources name \
             a.example\n",
        ));
    // With --origin the same log is judged.
    audit_in(dir.path())
        .args(["--robots", "robots", "--origin", "https://a.example"])
        .args(["--out", "out", "access.log"])
        .assert()
        .code(0)
        .stderr("");
}

#[test]
fn origins_no_robots_source_names_judge_nothing_and_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    robots(dir.path());
    let log = [
        line("www.a.example", 10, "/private/1", GOOGLEBOT),
        line("www.a.example", 11, "/2", GOOGLEBOT),
        line("b.example", 12, "/3", GOOGLEBOT),
        line("b.example", 13, "/robots.txt", GOOGLEBOT),
        line("www.a.example", 14, "/4", FIREFOX),
    ]
    .concat();
    write(dir.path(), "access.log", log);
    audit_in(dir.path())
        .args(["--robots", "robots", "--out", "out", "access.log"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "robots-audit: nothing judged: 3 requests could not be judged: no robots source \
             names any of the 2 origins seen (most requested: https://www.a.example); the \
             robots sources name a.example\n",
        ));
    assert!(dir.path().join("out/agents.csv").exists());
    // An empty robots directory says so.
    fs::create_dir(dir.path().join("empty")).unwrap();
    audit_in(dir.path())
        .args(["--robots", "empty", "--out", "out", "access.log"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "no robots source names any of the 2 origins seen (most requested: \
             https://www.a.example); the robots sources hold no robots.txt",
        ));
    // Versions that come into force only after the requests.
    write(
        dir.path(),
        "later/www.a.example/2026-02-01T00:00:00Z.txt",
        "User-agent: *\nDisallow: /\n",
    );
    write(
        dir.path(),
        "later/b.example/2026-03-01T00:00:00Z.txt",
        "User-agent: *\nDisallow: /\n",
    );
    audit_in(dir.path())
        .args(["--robots", "later", "--out", "out", "access.log"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "no robots.txt version was in force yet when 2 origins were requested (e.g. \
             https://www.a.example, whose first version is valid from 2026-02-01T00:00:00Z)",
        ));
}

#[test]
fn errors_name_their_file() {
    let dir = tempfile::tempdir().unwrap();
    robots(dir.path());
    write(
        dir.path(),
        "good.log",
        line("a.example", 10, "/private/1", GOOGLEBOT),
    );
    fs::create_dir_all(dir.path().join("empty-logs")).unwrap();
    fs::create_dir_all(dir.path().join("nested-logs/2026-01-01")).unwrap();
    write(dir.path(), "nested-logs/2026-01-01/a.log", "x");
    write(
        dir.path(),
        "other/a.example.txt",
        "User-agent: *\nDisallow: /\n",
    );
    write(dir.path(), "broken-bots.json", "{\"bots\": [");
    write(dir.path(), "gptbot.json", "not ranges at all {");
    let cases: [(&[&str], u8, &str); 8] = [
        (
            &["empty-logs"],
            1,
            "log directory empty-logs holds no file to read",
        ),
        (
            &["nested-logs"],
            1,
            "log directory nested-logs holds no file to read",
        ),
        (&["missing.log"], 1, "missing.log"),
        (
            &["good.log", "missing.log"],
            3,
            "robots-audit: missing.log: cannot open",
        ),
        (
            &["--robots", "other", "good.log"],
            1,
            "robots/a.example.txt and other/a.example.txt",
        ),
        (
            &["--bots", "broken-bots.json", "good.log"],
            1,
            "--bots broken-bots.json",
        ),
        (
            &["--bots", "no-such-bots.json", "good.log"],
            1,
            "--bots no-such-bots.json",
        ),
        (
            &["--verify", "GPTBot=gptbot.json", "good.log"],
            1,
            "--verify gptbot.json",
        ),
    ];
    for (args, code, message) in cases {
        audit_in(dir.path())
            .args(["--robots", "robots", "--out", "out"])
            .args(args)
            .assert()
            .code(i32::from(code))
            .stderr(predicate::str::contains(message));
    }
    // A --verify file that does not exist.
    audit_in(dir.path())
        .args(["--robots", "robots", "--out", "out"])
        .args(["--verify", "GPTBot=absent.json", "good.log"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--verify absent.json"));
}
