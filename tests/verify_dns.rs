//! `audit --verify dns` against a DNS server each test starts on 127.0.0.1 (hickory-server with
//! in-memory zones): verified_dns, spoofed, unverified, one lookup per distinct address, the
//! cache file and `--offline`.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{read_csv, robots_audit, row, write};
use robots_audit_testdns::{FLEET_ROBOTS, Fleet, RecordType, TestServer, Zones};

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

/// The DNS world:
///
/// | IP | PTR | forward |
/// | --- | --- | --- |
/// | 66.249.66.1 | crawl-66-249-66-1.googlebot.com | A 66.249.66.1 (genuine) |
/// | 66.249.66.5 | crawl-66-249-66-5.googlebot.com | A 66.249.66.5 (genuine) |
/// | 203.0.113.7 | crawl-fake.googlebot.com | A 66.249.66.200 (spoofed PTR) |
/// | 203.0.113.8 | none: NXDOMAIN | |
fn world() -> Zones {
    let mut zones = Zones::new();
    zones
        .crawler(
            "googlebot.com.",
            "crawl-66-249-66-1.googlebot.com.",
            ip("66.249.66.1"),
        )
        .crawler(
            "googlebot.com.",
            "crawl-66-249-66-5.googlebot.com.",
            ip("66.249.66.5"),
        )
        .ptr(ip("203.0.113.7"), "crawl-fake.googlebot.com.")
        .host(
            "googlebot.com.",
            "crawl-fake.googlebot.com.",
            ip("66.249.66.200"),
        );
    zones
}

fn start() -> TestServer {
    TestServer::start(&world())
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

/// A night on one origin: each address asks for `/private/` (disallowed) several times.
fn night(dir: &Path, addresses: &[&str]) -> (std::path::PathBuf, std::path::PathBuf) {
    let robots = write(dir, "robots.txt", "User-agent: *\nDisallow: /private/\n");
    let mut log = String::new();
    for (i, address) in addresses.iter().enumerate() {
        for repeat in 0..3 {
            log.push_str(&format!(
                "{address} - - [20/Nov/2026:10:{:02}:{:02} +0000] \"GET /private/{i} HTTP/1.1\" 200 10 \"-\" \"{GOOGLEBOT}\"\n",
                i % 60,
                repeat
            ));
        }
    }
    (robots, write(dir, "access.log", log))
}

fn audit(dir: &Path, robots: &Path, log: &Path, extra: &[&str]) -> Vec<HashMap<String, String>> {
    let out = dir.join("out");
    robots_audit()
        .args(["audit", "-q", "--decisions", "--no-html", "--threads", "2"])
        .args(["--origin", "https://example.com", "--robots"])
        .arg(robots)
        .arg("--out")
        .arg(&out)
        .args(extra)
        .arg(log)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(0);
    read_csv(&out.join("violations.csv"))
        .into_iter()
        .map(|r| r.into_iter().collect())
        .collect()
}

fn verification_by_ip(rows: &[HashMap<String, String>]) -> HashMap<String, String> {
    let mut by_ip = HashMap::new();
    for r in rows {
        let previous = by_ip.insert(r["client_ip"].clone(), r["verification"].clone());
        assert!(previous.is_none_or(|p| p == r["verification"]), "{rows:?}");
    }
    by_ip
}

#[test]
fn dns_verifies_confirms_and_refutes_each_address_once() {
    let server = start();
    let dir = tempfile::tempdir().unwrap();
    let addresses = ["66.249.66.1", "66.249.66.5", "203.0.113.7", "203.0.113.8"];
    let (robots, log) = night(dir.path(), &addresses);
    let cache = dir.path().join("dns.csv");
    let server_arg = server.address().to_string();
    let rows = audit(
        dir.path(),
        &robots,
        &log,
        &[
            "--verify",
            "dns",
            "--dns-server",
            &server_arg,
            "--dns-cache",
            cache.to_str().unwrap(),
        ],
    );
    assert_eq!(rows.len(), 12);
    let by_ip = verification_by_ip(&rows);
    assert_eq!(by_ip["66.249.66.1"], "verified_dns");
    assert_eq!(by_ip["66.249.66.5"], "verified_dns");
    // A PTR under googlebot.com whose forward lookup gives another address.
    assert_eq!(by_ip["203.0.113.7"], "spoofed");
    // NXDOMAIN: no PTR at all.
    assert_eq!(by_ip["203.0.113.8"], "spoofed");
    // Three requests per address, one reverse lookup per distinct address.
    assert_eq!(server.queries_of_type(RecordType::PTR), addresses.len());
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    let googlebot = row(&agents, "agent", "Googlebot");
    assert_eq!(googlebot["verified"], "6");
    assert_eq!(googlebot["spoofed"], "6");

    // The cache was written, one row per address.
    let written = std::fs::read_to_string(&cache).unwrap();
    for address in addresses {
        assert!(written.contains(address), "{written}");
    }

    // Offline, from the cache alone: the same verdicts, no query; an address not cached is
    // unverified.
    drop(server);
    let dir2 = tempfile::tempdir().unwrap();
    let mut more = addresses.to_vec();
    more.push("66.249.66.9");
    let (robots, log) = night(dir2.path(), &more);
    let rows = audit(
        dir2.path(),
        &robots,
        &log,
        &[
            "--verify",
            "dns",
            "--offline",
            "--dns-cache",
            cache.to_str().unwrap(),
        ],
    );
    let by_ip = verification_by_ip(&rows);
    assert_eq!(by_ip["66.249.66.1"], "verified_dns");
    assert_eq!(by_ip["203.0.113.7"], "spoofed");
    assert_eq!(by_ip["203.0.113.8"], "spoofed");
    assert_eq!(by_ip["66.249.66.9"], "unverified");
}

/// A server that never answers: unverified, never spoofed, within the timeout.
#[test]
fn a_silent_server_leaves_requests_unverified() {
    let silent = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (robots, log) = night(dir.path(), &["66.249.66.1", "203.0.113.7"]);
    let server_arg = silent.local_addr().unwrap().to_string();
    let rows = audit(
        dir.path(),
        &robots,
        &log,
        &[
            "--verify",
            "dns",
            "--dns-server",
            &server_arg,
            "--dns-timeout",
            "300ms",
        ],
    );
    let by_ip = verification_by_ip(&rows);
    assert_eq!(by_ip["66.249.66.1"], "unverified");
    assert_eq!(by_ip["203.0.113.7"], "unverified");
}

/// Inside the published ranges stays `verified`: DNS is not asked.
#[test]
fn published_ranges_come_first() {
    let server = start();
    let dir = tempfile::tempdir().unwrap();
    let (robots, log) = night(dir.path(), &["66.249.66.1"]);
    let ranges = write(
        dir.path(),
        "googlebot.json",
        r#"{"prefixes":[{"ipv4Prefix":"66.249.66.0/27"}]}"#,
    );
    let server_arg = server.address().to_string();
    let verify = format!("Googlebot={}", ranges.display());
    let rows = audit(
        dir.path(),
        &robots,
        &log,
        &[
            "--verify",
            &verify,
            "--verify",
            "dns",
            "--dns-server",
            &server_arg,
        ],
    );
    assert_eq!(verification_by_ip(&rows)["66.249.66.1"], "verified");
    assert_eq!(server.queries_of_type(RecordType::PTR), 0);
}

#[test]
fn dns_options_need_verify_dns() {
    let dir = tempfile::tempdir().unwrap();
    let (robots, log) = night(dir.path(), &["66.249.66.1"]);
    robots_audit()
        .args(["audit", "-q", "--origin", "https://example.com", "--robots"])
        .arg(&robots)
        .arg("--out")
        .arg(dir.path().join("out"))
        .args(["--offline", "--dns-cache", "x.csv"])
        .arg(&log)
        .assert()
        .code(2);
}

/// A client field that is a host name (`HostnameLookups On`): under Google's suffixes and
/// resolving forward is `verified_dns`; one that does not resolve, or outside the suffixes, is
/// `unverified`, never `spoofed`; each name is asked once, whatever the number of its requests.
#[test]
fn logged_host_names_are_verified_by_forward_dns_never_spoofed() {
    let server = start();
    let dir = tempfile::tempdir().unwrap();
    let hosts = [
        "crawl-66-249-66-1.googlebot.com",
        "ghost.googlebot.com",
        "host-198-51-100-9.example.net",
        "-",
    ];
    let (robots, log) = night(dir.path(), &hosts);
    let server_arg = server.address().to_string();
    let rows = audit(
        dir.path(),
        &robots,
        &log,
        &["--verify", "dns", "--dns-server", &server_arg],
    );
    assert_eq!(rows.len(), 12);
    let by_client = verification_by_ip(&rows);
    assert_eq!(by_client["crawl-66-249-66-1.googlebot.com"], "verified_dns");
    assert_eq!(by_client["ghost.googlebot.com"], "unverified");
    assert_eq!(by_client["host-198-51-100-9.example.net"], "unverified");
    assert_eq!(by_client["-"], "unverified");
    assert_eq!(
        server.count("crawl-66-249-66-1.googlebot.com", RecordType::A),
        1
    );
    assert_eq!(server.count("ghost.googlebot.com", RecordType::A), 1);
    assert_eq!(
        server.count("host-198-51-100-9.example.net", RecordType::A),
        0
    );
    assert_eq!(server.queries_of_type(RecordType::PTR), 0);
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    let googlebot = row(&agents, "agent", "Googlebot");
    assert_eq!(googlebot["verified"], "3");
    assert_eq!(googlebot["spoofed"], "0");

    // Without DNS the same names are all unverified.
    let rows = audit(dir.path(), &robots, &log, &[]);
    assert!(
        rows.iter().all(|r| r["verification"] == "unverified"),
        "{rows:?}"
    );
}

/// At scale, lookups are bounded by the distinct addresses, not the lines: 20,000 lines from 500
/// crawler addresses, audited on 2 threads, ask the server one PTR and one A question per
/// address; the same night again with the cache the first run wrote asks nothing.
#[test]
fn lookups_are_bounded_by_distinct_addresses() {
    const LINES: u64 = 20_000;
    const ADDRESSES: u32 = 500;
    let fleet = Fleet::new(ADDRESSES);
    let server = TestServer::start(&fleet.zones());
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", FLEET_ROBOTS);
    let mut night = String::new();
    for index in 0..LINES {
        fleet.line(index, LINES, &mut night);
    }
    let log = write(dir.path(), "access.log", night);
    let cache = dir.path().join("dns.csv");
    let server_arg = server.address().to_string();
    let run = || {
        let out = dir.path().join("out");
        robots_audit()
            .args(["audit", "-q", "--no-html", "--threads", "2"])
            .args(["--origin", "https://example.com", "--robots"])
            .arg(&robots)
            .arg("--out")
            .arg(&out)
            .args([
                "--verify",
                "dns",
                "--dns-server",
                &server_arg,
                "--dns-cache",
            ])
            .arg(&cache)
            .arg(&log)
            .timeout(Duration::from_secs(120))
            .assert()
            .code(0);
        let agents = read_csv(&out.join("agents.csv"));
        let googlebot = row(&agents, "agent", "Googlebot");
        assert_eq!(googlebot["requests"], LINES.to_string());
        assert_eq!(googlebot["verified"], LINES.to_string());
        assert_eq!(googlebot["disallowed"], (LINES / 4).to_string());
        assert_eq!(googlebot["disallowed_verified"], (LINES / 4).to_string());
    };
    run();
    assert_eq!(
        server.distinct_names_of_type(RecordType::PTR),
        ADDRESSES as usize
    );
    assert_eq!(server.queries_of_type(RecordType::PTR), ADDRESSES as usize);
    assert_eq!(server.queries_of_type(RecordType::A), ADDRESSES as usize);
    assert_eq!(server.total_queries(), 2 * ADDRESSES as usize);
    let cached = std::fs::read_to_string(&cache).unwrap();
    assert_eq!(cached.lines().count(), 1 + ADDRESSES as usize);

    run();
    assert_eq!(
        server.total_queries(),
        2 * ADDRESSES as usize,
        "a warm cache asks nothing"
    );
}

/// `count` distinct public addresses, none in any published range.
fn strangers(count: u16) -> Vec<String> {
    (0..count)
        .map(|i| format!("45.{}.{}.1", i >> 8, i & 255))
        .collect()
}

/// A night of `count` new addresses ([`strangers`]) and a name server that never answers:
/// its socket (kept open for the test), its address, the robots.txt and the log.
fn unanswered_night(dir: &Path, count: u16) -> (UdpSocket, String, PathBuf, PathBuf) {
    let silent = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let server_arg = silent.local_addr().unwrap().to_string();
    let addresses = strangers(count);
    let (robots, log) = night(
        dir,
        &addresses.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    (silent, server_arg, robots, log)
}

/// The new addresses of a night are looked up together, up to 64 at once, not one
/// after another: 60 addresses a silent server leaves unanswered for 1 s each take about a
/// second, where one at a time they took a minute.
#[test]
fn new_addresses_are_looked_up_together() {
    let dir = tempfile::tempdir().unwrap();
    let (_silent, server_arg, robots, log) = unanswered_night(dir.path(), 60);
    let started = std::time::Instant::now();
    let rows = audit(
        dir.path(),
        &robots,
        &log,
        &[
            "--verify",
            "dns",
            "--dns-server",
            &server_arg,
            "--dns-timeout",
            "1s",
        ],
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert_eq!(rows.len(), 3 * 60);
    assert!(rows.iter().all(|r| r["verification"] == "unverified"));
}

/// A night stopped by SIGINT while a reader waits on a pipe (a process that exits without the
/// run returning) still writes back what DNS answered: a watchdog that kills a long night
/// must not make the next one ask it all again.
#[cfg(unix)]
#[test]
fn an_interrupted_night_keeps_its_dns_answers() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    use std::process::{Command, Stdio};
    let server = start();
    let dir = tempfile::tempdir().unwrap();
    let addresses = ["66.249.66.1", "203.0.113.8"];
    let (robots, log) = night(dir.path(), &addresses);
    // A second input that never ends: a pipe the test holds open and never writes.
    let pipe = dir.path().join("pipe.log");
    assert!(
        Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap()
            .success()
    );
    let _writer = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&pipe)
        .unwrap();
    let cache = dir.path().join("dns.csv");
    let child = Command::new(assert_cmd::cargo::cargo_bin("robots-audit"))
        .args(["audit", "-q", "--no-html", "--threads", "1"])
        .args(["--origin", "https://example.com", "--robots"])
        .arg(&robots)
        .arg("--out")
        .arg(dir.path().join("out"))
        .args(["--verify", "dns", "--dns-timeout", "1s", "--dns-server"])
        .arg(server.address().to_string())
        .arg("--dns-cache")
        .arg(&cache)
        .arg(&log)
        .arg(&pipe)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let asked = std::time::Instant::now();
    while server.queries_of_type(RecordType::PTR) < addresses.len() {
        assert!(asked.elapsed() < Duration::from_secs(30), "no lookups");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The answers reach the verifier a moment after the server sends them.
    std::thread::sleep(Duration::from_millis(500));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let written = std::fs::read_to_string(&cache).unwrap();
    for address in addresses {
        assert!(written.contains(address), "{written}");
    }
    assert!(!dir.path().join("out").exists());
}

/// Envoy logs the client as the `X-Forwarded-For` list. A stranger at 203.0.113.5 who sends
/// `X-Forwarded-For: 66.249.66.1` is logged `66.249.66.1, 203.0.113.5`: several public
/// addresses, neither looked up nor verified. Googlebot behind a private proxy
/// (`66.249.66.5, 10.0.0.2`) is verified by its one public address.
#[test]
fn a_forwarded_list_of_several_public_addresses_is_not_verified() {
    let server = start();
    let dir = tempfile::tempdir().unwrap();
    let robots = write(
        dir.path(),
        "robots.txt",
        "User-agent: *\nDisallow: /private/\n",
    );
    let envoy = |second: u32, forwarded: &str| {
        format!(
            "[2026-11-20T10:00:0{second}.000Z] \"GET /private/{second} HTTP/1.1\" 200 - 0 10 1 1 \"{forwarded}\" \"{GOOGLEBOT}\" \"id-{second}\" \"example.com\" \"10.1.2.3:8080\"\n"
        )
    };
    let log = write(
        dir.path(),
        "envoy.log",
        envoy(1, "66.249.66.1, 203.0.113.5") + &envoy(2, "66.249.66.5, 10.0.0.2"),
    );
    let server_arg = server.address().to_string();
    let rows = audit(
        dir.path(),
        &robots,
        &log,
        &[
            "--format",
            "envoy",
            "--verify",
            "dns",
            "--dns-server",
            &server_arg,
        ],
    );
    let by_ip = verification_by_ip(&rows);
    assert_eq!(by_ip["66.249.66.1, 203.0.113.5"], "unverified", "{rows:?}");
    assert_eq!(by_ip["66.249.66.5, 10.0.0.2"], "verified_dns", "{rows:?}");
    assert_eq!(server.ptr_queries_of(ip("66.249.66.1")), 0);
    assert_eq!(server.ptr_queries_of(ip("203.0.113.5")), 0);
    // explain says why.
    let line = format!("{}:1", log.display());
    let output = robots_audit()
        .args([
            "explain",
            "--format",
            "envoy",
            "--origin",
            "https://example.com",
        ])
        .arg("--robots")
        .arg(&robots)
        .args([
            "--verify",
            "dns",
            "--dns-server",
            &server_arg,
            "--line",
            &line,
        ])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("a list of several public addresses"),
        "{text}"
    );
    assert_eq!(server.ptr_queries_of(ip("66.249.66.1")), 0);
}

/// `--dns-budget` bounds a night whose new addresses are never answered: once the lookups
/// have taken it, the addresses met after are not looked up, and standard error says how many.
#[test]
fn the_dns_budget_bounds_a_night_of_unanswered_addresses() {
    let dir = tempfile::tempdir().unwrap();
    let (_silent, server_arg, robots, log) = unanswered_night(dir.path(), 1_000);
    let started = std::time::Instant::now();
    let output = robots_audit()
        .args(["audit", "--decisions", "--no-html", "--threads", "1"])
        .args(["--origin", "https://example.com", "--robots"])
        .arg(&robots)
        .arg("--out")
        .arg(dir.path().join("out"))
        .args(["--verify", "dns", "--dns-server", &server_arg])
        .args(["--dns-timeout", "1s", "--dns-budget", "1s"])
        .arg(&log)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(0));
    // A wave or two of 64 lookups, then none: without the budget, 16 waves of a second.
    assert!(took < Duration::from_secs(10), "{took:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let not_asked: usize = stderr
        .split("--dns-budget (1s); ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!((800..=936).contains(&not_asked), "{stderr}");
    let rows = read_csv(&dir.path().join("out/violations.csv"));
    assert!(rows.iter().all(|r| r["verification"] == "unverified"));
}
