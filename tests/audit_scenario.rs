//! A hand-written night over four origins, checked request by request: versions in time, grace,
//! a 503 hour, a 404 robots.txt, fallback tokens, a digit-bearing crawler name, a spoofed
//! Googlebot, robots fetches before and after crawling, and the 1994 reading both ways.

use crate::common::*;
use std::path::Path;

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const GOOGLEBOT_IMAGE: &str = "Googlebot-Image/1.0";
const MJ12: &str = "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)";
const AHREFS: &str = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";
const BING: &str = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

fn line(host: &str, ip: &str, hhmm: &str, path: &str, status: u16, ua: &str) -> String {
    format!(
        "{host}:443 {ip} - - [01/Jan/2026:{hhmm}:00 +0000] \"GET {path} HTTP/1.1\" {status} 512 \"-\" \"{ua}\"\n"
    )
}

fn scenario(dir: &Path) -> Vec<String> {
    write(
        dir,
        "robots/a.example.txt",
        "User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/ok/\n\n\
         User-agent: googlebot\nDisallow: /nogoogle/\n\nUser-agent: MJ12bot\nDisallow: /\n",
    );
    write(
        dir,
        "robots/a.example/2026-01-01T12:00:00Z.txt",
        "User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/ok/\nDisallow: /new/\n\n\
         User-agent: googlebot\nDisallow: /nogoogle/\n\nUser-agent: MJ12bot\nDisallow: /\n",
    );
    write(dir, "m/b.txt", "User-agent: *\nDisallow: /x/\n");
    write(
        dir,
        "manifest.csv",
        "origin,valid_from,status,file\n\
         https://b.example,,200,m/b.txt\n\
         https://b.example,2026-01-01T10:00:00Z,503,\n\
         https://b.example,2026-01-01T11:00:00Z,200,m/b.txt\n\
         c.example,,404,\n",
    );
    write(
        dir,
        "googlebot.json",
        r#"{"creationTime":"2026-01-01T00:00:00","prefixes":[{"ipv4Prefix":"66.249.64.0/19"}]}"#,
    );
    let g = "66.249.66.1";
    let lines = [
        line("a.example", g, "09:00", "/robots.txt", 200, GOOGLEBOT),
        line("a.example", g, "09:01", "/nogoogle/x", 200, GOOGLEBOT),
        line("a.example", g, "09:02", "/private/a", 200, GOOGLEBOT),
        line(
            "a.example",
            g,
            "09:03",
            "/nogoogle/img.png",
            200,
            GOOGLEBOT_IMAGE,
        ),
        line(
            "a.example",
            "203.0.113.5",
            "09:04",
            "/nogoogle/y",
            200,
            GOOGLEBOT,
        ),
        line("a.example", "198.51.100.9", "09:05", "/about", 200, MJ12),
        line(
            "a.example",
            "198.51.100.7",
            "09:06",
            "/private/ok/page",
            200,
            AHREFS,
        ),
        line(
            "a.example",
            "198.51.100.7",
            "09:07",
            "/docs/a.pdf",
            404,
            AHREFS,
        ),
        line(
            "a.example",
            "198.51.100.7",
            "12:30",
            "/new/thing",
            200,
            AHREFS,
        ),
        line(
            "a.example",
            "198.51.100.7",
            "12:31",
            "/private/z",
            200,
            AHREFS,
        ),
        line(
            "a.example",
            "198.51.100.7",
            "13:00",
            "/robots.txt",
            200,
            AHREFS,
        ),
        line("b.example", "40.77.167.1", "10:30", "/x/1", 200, BING),
        line("b.example", "40.77.167.1", "10:31", "/y", 503, BING),
        line("b.example", "40.77.167.1", "11:30", "/y", 200, BING),
        line("b.example", "40.77.167.1", "11:31", "/x/2", 200, BING),
        line("c.example", "40.77.167.1", "11:32", "/anything", 200, BING),
        line("d.example", "40.77.167.1", "11:33", "/unknown", 200, BING),
        line(
            "a.example",
            "192.0.2.1",
            "11:34",
            "/private/a",
            200,
            FIREFOX,
        ),
    ];
    write_gz(dir, "logs/night.log.gz", lines.concat().as_bytes());
    lines.to_vec()
}

fn run(dir: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    let mut cmd = robots_audit();
    cmd.current_dir(dir)
        .args([
            "audit",
            "-q",
            "--robots",
            "robots",
            "--robots",
            "manifest.csv",
            "--verify",
            "Google=googlebot.json",
        ])
        .args(["--out", "out", "logs/night.log.gz"])
        .args(extra);
    cmd.assert()
}

#[test]
fn every_request_gets_the_expected_verdict() {
    let dir = tempfile::tempdir().unwrap();
    scenario(dir.path());
    run(dir.path(), &["--decisions"]).success().code(0);
    let out = dir.path().join("out");

    let agents = read_csv(&out.join("agents.csv"));
    let googlebot = row(&agents, "agent", "Googlebot");
    assert_eq!(googlebot["requests"], "4");
    assert_eq!(googlebot["robots_fetches"], "1");
    assert_eq!(googlebot["disallowed"], "2");
    assert_eq!(googlebot["allowed"], "1");
    assert_eq!(googlebot["verified"], "3");
    assert_eq!(googlebot["spoofed"], "1");
    assert_eq!(googlebot["violation_rate"], "0.6667");
    assert_eq!(googlebot["coverage"], "1.0000");
    assert_eq!(googlebot["origins_robots_fetched"], "1");

    let image = row(&agents, "agent", "Googlebot-Image");
    assert_eq!(
        (
            image["disallowed"].as_str(),
            image["robots_tokens"].as_str()
        ),
        ("1", "googlebot-image|googlebot")
    );
    assert_eq!(image["verified"], "1");

    let mj12 = row(&agents, "agent", "MJ12bot");
    assert_eq!(
        (mj12["disallowed"].as_str(), mj12["unverified"].as_str()),
        ("1", "1")
    );

    let ahrefs = row(&agents, "agent", "AhrefsBot");
    assert_eq!(
        (
            ahrefs["allowed"].as_str(),
            ahrefs["disallowed"].as_str(),
            ahrefs["grace"].as_str(),
            ahrefs["robots_fetches"].as_str()
        ),
        ("1", "2", "1", "1")
    );
    assert_eq!(
        ahrefs["violations_served"], "1",
        "the .pdf violation got a 404"
    );

    // During the 503 hour, /y was allowed by the version before: grace (the cached copy may be used).
    let bing = row(&agents, "agent", "Bingbot");
    assert_eq!(
        (
            bing["requests"].as_str(),
            bing["allowed"].as_str(),
            bing["disallowed"].as_str(),
            bing["grace"].as_str(),
            bing["unjudged"].as_str()
        ),
        ("6", "2", "2", "1", "1")
    );
    assert_eq!(bing["origins"], "3");
    assert_eq!(bing["origins_with_violations"], "1");
    assert_eq!(bing["coverage"], "0.8333");
    assert!(
        agents.iter().all(|r| !r["agent"].contains("Firefox")),
        "browsers are not bots"
    );

    let violations = read_csv(&out.join("violations.csv"));
    let rules: Vec<(&str, &str, &str, &str)> = violations
        .iter()
        .map(|v| {
            (
                v["agent"].as_str(),
                v["path"].as_str(),
                v["rule"].as_str(),
                v["holds_under_1994"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        rules,
        vec![
            ("Googlebot", "/nogoogle/x", "Disallow: /nogoogle/", "true"),
            (
                "Googlebot-Image",
                "/nogoogle/img.png",
                "Disallow: /nogoogle/",
                "true"
            ),
            ("Googlebot", "/nogoogle/y", "Disallow: /nogoogle/", "true"),
            ("MJ12bot", "/about", "Disallow: /", "true"),
            ("AhrefsBot", "/docs/a.pdf", "Disallow: /*.pdf$", "false"),
            ("AhrefsBot", "/private/z", "Disallow: /private/", "true"),
            ("Bingbot", "/x/1", "status 503", "true"),
            ("Bingbot", "/x/2", "Disallow: /x/", "true"),
        ]
    );
    let spoofed = &violations[2];
    assert_eq!(
        (
            spoofed["verification"].as_str(),
            spoofed["client_ip"].as_str()
        ),
        ("spoofed", "203.0.113.5")
    );
    assert_eq!(violations[0]["verification"], "verified");
    assert_eq!(violations[0]["group"], "googlebot");
    assert_eq!(violations[0]["rule_line"], "7");
    assert_eq!(violations[0]["robots_version"], "initial");
    assert_eq!(violations[0]["source"], "logs/night.log.gz:2");
    assert_eq!(violations[0]["origin"], "https://a.example");
    assert_eq!(violations[0]["time"], "2026-01-01T09:01:00Z");
    assert_eq!(violations[5]["robots_version"], "2026-01-01T12:00:00Z");
    assert_eq!(violations[6]["robots_version"], "2026-01-01T10:00:00Z");

    let pairs = read_csv(&out.join("agent_origins.csv"));
    let ahrefs_a = pairs
        .iter()
        .find(|r| r["agent"] == "AhrefsBot" && r["origin"] == "https://a.example")
        .unwrap();
    assert_eq!(
        ahrefs_a["first_robots_fetch"], "2026-01-01T13:00:00Z",
        "fetched robots.txt only after crawling"
    );
    assert_eq!(ahrefs_a["first_violation"], "2026-01-01T09:07:00Z");
    assert_eq!(ahrefs_a["robots_fetch_statuses"], "200:1");
    let bing_d = pairs
        .iter()
        .find(|r| r["agent"] == "Bingbot" && r["origin"] == "https://d.example")
        .unwrap();
    assert_eq!(
        (bing_d["unjudged"].as_str(), bing_d["coverage"].as_str()),
        ("1", "0.0000")
    );

    let decisions = read_csv(&out.join("decisions.csv"));
    let verdicts: Vec<&str> = decisions.iter().map(|d| d["verdict"].as_str()).collect();
    assert_eq!(
        verdicts,
        [
            "disallowed",
            "allowed",
            "disallowed",
            "disallowed",
            "disallowed",
            "allowed",
            "disallowed",
            "grace",
            "disallowed",
            "disallowed",
            "grace",
            "allowed",
            "disallowed",
            "allowed"
        ]
    );

    let rules = read_csv(&out.join("rules.csv"));
    let nogoogle = rules
        .iter()
        .find(|r| {
            r["origin"] == "a.example"
                && r["robots_version"] == "initial"
                && r["rule"] == "Disallow: /nogoogle/"
        })
        .unwrap();
    assert_eq!(
        (
            nogoogle["decided"].as_str(),
            nogoogle["violations"].as_str()
        ),
        ("3", "3")
    );
    assert_eq!(nogoogle["agents"], "Googlebot|Googlebot-Image");
    let status = rules.iter().find(|r| r["rule"] == "status 503").unwrap();
    assert_eq!(
        (status["origin"].as_str(), status["decided"].as_str()),
        ("https://b.example", "2")
    );
    let unused = rules
        .iter()
        .find(|r| r["rule"] == "Disallow: /new/")
        .unwrap();
    assert_eq!(
        unused["violations"], "0",
        "the grace request is decided, not a violation"
    );

    let robots = read_csv(&out.join("robots.csv"));
    assert_eq!(robots.len(), 6);
    let c = row(&robots, "origin", "c.example");
    assert_eq!((c["status"].as_str(), c["rules"].as_str()), ("404", ""));

    let inputs = read_csv(&out.join("inputs.csv"));
    assert_eq!(inputs.len(), 1);
    let input = &inputs[0];
    assert_eq!(
        (
            input["format"].as_str(),
            input["compression"].as_str(),
            input["lines"].as_str(),
            input["parsed"].as_str()
        ),
        ("vhost_combined", "gzip", "18", "18")
    );
    assert_eq!(
        (
            input["bot_requests"].as_str(),
            input["other_requests"].as_str()
        ),
        ("17", "1")
    );
}

#[test]
fn grace_zero_turns_grace_into_a_violation() {
    let dir = tempfile::tempdir().unwrap();
    scenario(dir.path());
    run(dir.path(), &["--grace", "0s"]).success();
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    let ahrefs = row(&agents, "agent", "AhrefsBot");
    assert_eq!(
        (ahrefs["disallowed"].as_str(), ahrefs["grace"].as_str()),
        ("3", "0")
    );
}

#[test]
fn reports_do_not_depend_on_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    scenario(dir.path());
    let mut outputs = Vec::new();
    for threads in ["1", "2", "8"] {
        let out = format!("out-{threads}");
        robots_audit()
            .current_dir(dir.path())
            .args([
                "audit",
                "-q",
                "--robots",
                "robots",
                "--robots",
                "manifest.csv",
                "--decisions",
                "--threads",
                threads,
                "--out",
                &out,
            ])
            .args(["logs/night.log.gz", "logs/night.log.gz"])
            .assert()
            .success();
        let mut files = Vec::new();
        for name in [
            "agents.csv",
            "agent_origins.csv",
            "violations.csv",
            "decisions.csv",
            "rules.csv",
            "robots.csv",
            "inputs.csv",
            "skipped_lines.csv",
            "hourly.csv",
            "crawl_rate.csv",
            "preference_conflicts.csv",
        ] {
            files.push(std::fs::read(dir.path().join(&out).join(name)).unwrap());
        }
        outputs.push(files);
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0], outputs[2]);
}

#[test]
fn verify_directory_checks_each_request_against_the_snapshot_in_force() {
    let dir = tempfile::tempdir().unwrap();
    scenario(dir.path());
    // Until 09:02 Google's list held only the spoofer's network; from 09:02 only Google's.
    write(
        dir.path(),
        "ranges/common-crawlers/2026-01-01.txt",
        "203.0.113.0/24\n",
    );
    write(
        dir.path(),
        "ranges/common-crawlers/2026-01-01T09:02:00Z.txt",
        "66.249.64.0/19\n",
    );
    let mut cmd = robots_audit();
    cmd.current_dir(dir.path())
        .args([
            "audit",
            "-q",
            "--robots",
            "robots",
            "--robots",
            "manifest.csv",
        ])
        .args(["--verify", "ranges", "--out", "out", "logs/night.log.gz"]);
    cmd.assert().success().code(0);
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    let googlebot = row(&agents, "agent", "Googlebot");
    // 09:00 and 09:01 from Google's address: outside the list then; 09:02: inside; 09:04 from
    // 203.0.113.5: outside the list by then.
    assert_eq!(
        (
            googlebot["verified"].as_str(),
            googlebot["spoofed"].as_str()
        ),
        ("1", "3")
    );
    assert_eq!(row(&agents, "agent", "Googlebot-Image")["verified"], "1");
    // Google's common-crawlers list does not cover MJ12bot.
    assert_eq!(row(&agents, "agent", "MJ12bot")["spoofed"], "0");
}
