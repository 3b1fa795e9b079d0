//! Defensible verdicts (issue 13): crawlers whose operators document that robots.txt binds them
//! differently (`ignores_global`, `user_triggered`), `--strict`, grace against every version in
//! force during the window, and violations by verified requests.

use crate::common::*;
use std::path::Path;

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const ADSBOT: &str = "AdsBot-Google (+http://www.google.com/adsbot.html)";
const CHATGPT_USER: &str = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot";
const MJ12: &str = "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)";

fn line(host: &str, ip: &str, hhmm: &str, path: &str, ua: &str) -> String {
    format!(
        "{host}:443 {ip} - - [01/Jan/2026:{hhmm}:00 +0000] \"GET {path} HTTP/1.1\" 200 512 \"-\" \"{ua}\"\n"
    )
}

fn audit(dir: &Path, lines: &[String], extra: &[&str]) {
    write_gz(dir, "logs/night.log.gz", lines.concat().as_bytes());
    robots_audit()
        .current_dir(dir)
        .args(["audit", "-q", "--robots", "robots", "--out", "out"])
        .args(extra)
        .arg("logs/night.log.gz")
        .assert()
        .code(0);
}

fn agents(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    read_csv(&dir.join("out/agents.csv"))
}

fn counts<'a>(
    rows: &'a [std::collections::BTreeMap<String, String>],
    agent: &str,
    columns: &[&str],
) -> Vec<&'a str> {
    let r = row(rows, "agent", agent);
    columns.iter().map(|c| r[*c].as_str()).collect()
}

/// `/x` allowed until 10:00, an unrelated change at 12:00: at 13:00 a crawler may still hold the
/// copy of 09:00, so with 24 hours of grace `/x` is grace, not a violation; with 2 hours the
/// window starts at 11:00, when only versions disallowing `/x` were in force.
#[test]
fn grace_looks_at_every_version_in_force_during_the_window() {
    for (grace, expected) in [("24h", ["0", "1"]), ("2h", ["1", "0"])] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "robots/a.example.txt", "User-agent: *\nDisallow: /y\n");
        write(
            d,
            "robots/a.example/2026-01-01T10:00:00Z.txt",
            "User-agent: *\nDisallow: /x\n",
        );
        write(
            d,
            "robots/a.example/2026-01-01T12:00:00Z.txt",
            "User-agent: *\nDisallow: /x\nDisallow: /z\n",
        );
        let lines = [line("a.example", "192.0.2.1", "13:00", "/x", MJ12)];
        audit(d, &lines, &["--grace", grace]);
        assert_eq!(
            counts(&agents(d), "MJ12bot", &["disallowed", "grace"]),
            expected,
            "--grace {grace}"
        );
    }
}

fn special_crawler_robots(dir: &Path) {
    write(
        dir,
        "robots/a.example.txt",
        "User-agent: *\nDisallow: /\n\nUser-agent: AdsBot-Google\nDisallow: /ads-no/\n",
    );
    write(dir, "robots/b.example.txt", "User-agent: *\nDisallow: /\n");
}

/// AdsBot-Google ignores the `*` groups (Google's special-case crawlers) but obeys a group that
/// names it; Googlebot, which obeys, is judged by `*` where nothing names it.
#[test]
fn adsbot_obeys_only_groups_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    special_crawler_robots(d);
    let ip = "192.0.2.7";
    let lines = [
        line("b.example", ip, "10:00", "/page", ADSBOT),
        line("a.example", ip, "10:01", "/ads-no/1", ADSBOT),
        line("a.example", ip, "10:02", "/landing", ADSBOT),
        line("b.example", ip, "10:03", "/page", GOOGLEBOT),
    ];
    audit(d, &lines, &[]);
    let rows = agents(d);
    assert_eq!(
        counts(&rows, "AdsBot-Google", &["judged", "allowed", "disallowed"]),
        ["3", "2", "1"]
    );
    assert_eq!(counts(&rows, "Googlebot", &["disallowed"]), ["1"]);
    let violations = read_csv(&d.join("out/violations.csv"));
    let ads = row(&violations, "agent", "AdsBot-Google");
    assert_eq!(
        (ads["path"].as_str(), ads["rule"].as_str()),
        ("/ads-no/1", "Disallow: /ads-no/")
    );
}

/// ChatGPT-User fetches on a person's request and OpenAI says robots.txt does not apply to it:
/// `exempt`, not a violation, unless `--strict`.
#[test]
fn user_triggered_fetches_are_exempt_unless_strict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "robots/a.example.txt",
        "User-agent: *\nDisallow: /private/\n",
    );
    let ip = "192.0.2.9";
    let lines = [
        line("a.example", ip, "10:00", "/private/1", CHATGPT_USER),
        line("a.example", ip, "10:01", "/private/2", CHATGPT_USER),
        line("a.example", ip, "10:02", "/public", CHATGPT_USER),
        line("a.example", ip, "10:03", "/private/3", MJ12),
    ];
    let columns = ["judged", "allowed", "disallowed", "grace", "exempt"];

    audit(d, &lines, &["--decisions"]);
    let rows = agents(d);
    assert_eq!(
        counts(&rows, "ChatGPT-User", &columns),
        ["3", "1", "0", "0", "2"]
    );
    assert_eq!(
        counts(&rows, "MJ12bot", &columns),
        ["1", "0", "1", "0", "0"]
    );
    let per_origin = read_csv(&d.join("out/agent_origins.csv"));
    assert_eq!(row(&per_origin, "agent", "ChatGPT-User")["exempt"], "2");
    let hourly = read_csv(&d.join("out/hourly.csv"));
    let hour = row(&hourly, "agent", "ChatGPT-User");
    assert_eq!(
        (hour["exempt"].as_str(), hour["judged"].as_str()),
        ("2", "3")
    );
    let violations = read_csv(&d.join("out/violations.csv"));
    assert_eq!(violations.len(), 1, "{violations:#?}");
    assert_eq!(violations[0]["agent"], "MJ12bot");
    let decisions = read_csv(&d.join("out/decisions.csv"));
    let exempt: Vec<_> = decisions
        .iter()
        .filter(|r| r["verdict"] == "exempt")
        .map(|r| r["path"].as_str())
        .collect();
    assert_eq!(exempt, ["/private/1", "/private/2"]);

    audit(d, &lines, &["--strict"]);
    let rows = agents(d);
    assert_eq!(
        counts(&rows, "ChatGPT-User", &columns),
        ["3", "1", "2", "0", "0"]
    );
    assert_eq!(read_csv(&d.join("out/violations.csv")).len(), 3);
}

/// Every judged request is exactly one of allowed, disallowed, grace and exempt, per agent and
/// per agent and origin.
#[test]
fn judged_is_the_sum_of_its_outcomes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    special_crawler_robots(d);
    write(
        d,
        "robots/a.example/2026-01-01T10:00:00Z.txt",
        "User-agent: *\nDisallow: /\nAllow: /open/\n",
    );
    let mut lines = Vec::new();
    for (i, path) in ["/", "/open/1", "/page", "/ads-no/x", "/robots.txt"]
        .iter()
        .enumerate()
    {
        for (j, ua) in [ADSBOT, CHATGPT_USER, GOOGLEBOT, MJ12].iter().enumerate() {
            for (host, hour) in [
                ("a.example", "09"),
                ("a.example", "11"),
                ("b.example", "12"),
            ] {
                let hhmm = format!("{hour}:{:02}", i * 4 + j);
                lines.push(line(host, "192.0.2.3", &hhmm, path, ua));
            }
        }
    }
    audit(d, &lines, &[]);
    let n =
        |r: &std::collections::BTreeMap<String, String>, c: &str| -> u64 { r[c].parse().unwrap() };
    let mut exempt = 0;
    for report in ["agents.csv", "agent_origins.csv"] {
        for r in read_csv(&d.join("out").join(report)) {
            assert_eq!(
                n(&r, "judged"),
                n(&r, "allowed") + n(&r, "disallowed") + n(&r, "grace") + n(&r, "exempt"),
                "{report}: {r:?}"
            );
            assert_eq!(
                n(&r, "requests"),
                n(&r, "judged") + n(&r, "unjudged") + n(&r, "robots_fetches"),
                "{report}: {r:?}"
            );
            exempt += n(&r, "exempt");
        }
    }
    assert!(exempt > 0, "the night has exempt requests");
}

/// `disallowed_verified` counts the violations of requests from inside the crawler's published
/// ranges; a violation from outside them is only in `disallowed`.
#[test]
fn disallowed_verified_counts_violations_from_published_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "robots/a.example.txt",
        "User-agent: *\nDisallow: /private/\n",
    );
    write(
        d,
        "googlebot.json",
        r#"{"creationTime":"2026-01-01T00:00:00","prefixes":[{"ipv4Prefix":"66.249.64.0/19"}]}"#,
    );
    let lines = [
        line("a.example", "66.249.66.1", "10:00", "/private/1", GOOGLEBOT),
        line("a.example", "66.249.66.1", "10:01", "/private/2", GOOGLEBOT),
        line("a.example", "66.249.66.1", "10:02", "/public", GOOGLEBOT),
        line("a.example", "203.0.113.5", "10:03", "/private/3", GOOGLEBOT),
    ];
    audit(d, &lines, &["--verify", "Google=googlebot.json"]);
    let columns = ["disallowed", "disallowed_verified", "verified", "spoofed"];
    assert_eq!(
        counts(&agents(d), "Googlebot", &columns),
        ["3", "2", "3", "1"]
    );
    let per_origin = read_csv(&d.join("out/agent_origins.csv"));
    let r = row(&per_origin, "agent", "Googlebot");
    assert_eq!(
        (r["disallowed"].as_str(), r["disallowed_verified"].as_str()),
        ("3", "2")
    );
    let header = header(&d.join("out/agents.csv"));
    assert!(
        header.contains(",disallowed,disallowed_verified,grace,exempt,unjudged,"),
        "{header}"
    );
}

fn check(dir: &Path, user_agent: &str, extra: &[&str], urls: &[&str]) -> String {
    let out = robots_audit()
        .current_dir(dir)
        .args([
            "check",
            "--robots",
            "robots.txt",
            "--user-agent",
            user_agent,
        ])
        .args(extra)
        .args(urls)
        .assert()
        .code(0);
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn check_selects_groups_and_prints_exempt_as_the_audit_judges() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "robots.txt",
        "User-agent: *\nDisallow: /\n\nUser-agent: AdsBot-Google\nDisallow: /ads-no/\n",
    );
    assert_eq!(
        check(d, ADSBOT, &[], &["/page", "/ads-no/1"]),
        "allowed\t/page\t-\t0\t-\t-\ndisallowed\t/ads-no/1\tDisallow: /ads-no/\t5\t-\t-\n"
    );
    assert_eq!(
        check(d, CHATGPT_USER, &[], &["/page"]),
        "exempt\t/page\tDisallow: /\t2\t-\t-\n"
    );
    assert_eq!(
        check(d, CHATGPT_USER, &["--strict"], &["/page"]),
        "disallowed\t/page\tDisallow: /\t2\t-\t-\n"
    );
    // Product tokens given with --agent are judged as Google's matcher judges them.
    let out = robots_audit()
        .current_dir(d)
        .args(["check", "--robots", "robots.txt", "--agent", "ChatGPT-User"])
        .arg("/page")
        .assert()
        .code(0);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "disallowed\t/page\tDisallow: /\t2\t-\t-\n"
    );
}
