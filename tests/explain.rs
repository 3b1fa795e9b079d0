//! `explain`: its verdict is the audit's, line by line, over the sample night and a synthetic
//! night; its text shows each step.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::common::{read_csv, robots_audit, write};
use robots_audit::audit::AuditConfig;
use robots_audit::audit::explain::Explainer;
use robots_audit::audit::schedule::input_parser;
use robots_audit::bots::dns::{DnsCache, DnsConfig, DnsResolver, DnsVerifier, NameServers};
use robots_audit::bots::{Catalog, Verifier};
use robots_audit::logs::{LogReader, Source};
use robots_audit::origin::Origin;
use robots_audit::synth::{SynthCompression, SynthConfig, SynthFormat, generate};
use robots_audit::versions::source::{LoadOptions, load};
use robots_audit_testdns::{TestServer, Zones};

/// What `decisions.csv` and `explain --json` must agree on, by `file:line`.
type Decisions = BTreeMap<String, [String; 4]>;

/// The `verification` of each violation, by `file:line` (`violations.csv` and `explain`).
type Verifications = BTreeMap<String, String>;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// An audit's options, as the tests give them to both `audit` and `explain`.
struct Night {
    robots: Vec<PathBuf>,
    origin: Option<String>,
    verify: Vec<(String, PathBuf)>,
    logs: Vec<PathBuf>,
    /// `--verify dns --dns-server` this name server.
    dns: Option<SocketAddr>,
}

impl Night {
    fn args(&self) -> Vec<String> {
        let mut args = Vec::new();
        for robots in &self.robots {
            args.extend(["--robots".to_owned(), robots.display().to_string()]);
        }
        if let Some(origin) = &self.origin {
            args.extend(["--origin".to_owned(), origin.clone()]);
        }
        for (bot, path) in &self.verify {
            args.extend(["--verify".to_owned(), format!("{bot}={}", path.display())]);
        }
        if let Some(server) = self.dns {
            args.extend([
                "--verify".to_owned(),
                "dns".to_owned(),
                "--dns-server".to_owned(),
                server.to_string(),
            ]);
        }
        args
    }

    /// The `verification` of each row of the audit's `violations.csv` (after [`audit`]).
    fn violations(out: &Path) -> Verifications {
        read_csv(&out.join("violations.csv"))
            .into_iter()
            .map(|row| (row["source"].clone(), row["verification"].clone()))
            .collect()
    }

    /// The audit's `decisions.csv`, keyed by source.
    fn audit(&self, out: &Path) -> Decisions {
        robots_audit()
            .args(["audit", "-q", "--decisions", "--threads", "2", "--out"])
            .arg(out)
            .args(self.args())
            .args(&self.logs)
            .assert()
            .code(0);
        read_csv(&out.join("decisions.csv"))
            .into_iter()
            .map(|row| {
                (
                    row["source"].clone(),
                    [
                        row["verdict"].clone(),
                        row["rule"].clone(),
                        row["rule_line"].clone(),
                        row["robots_version"].clone(),
                    ],
                )
            })
            .collect()
    }

    /// `explain` (the library the command runs) on every line of every log, keeping the judged
    /// ones, as `decisions.csv` does.
    fn explain_every_line(&self) -> (Decisions, usize) {
        let (decisions, _, lines) = self.explain_every_line_verified();
        (decisions, lines)
    }

    /// [`explain_every_line`], with the verification of each line `explain` calls disallowed.
    fn explain_every_line_verified(&self) -> (Decisions, Verifications, usize) {
        let catalog = Catalog::builtin();
        let mut verifier = Verifier::new();
        for (bot, path) in &self.verify {
            verifier.add_path(&catalog, Some(bot), path).unwrap();
        }
        let config = AuditConfig {
            origin: self.origin.as_deref().map(|o| Origin::parse(o).unwrap()),
            ..AuditConfig::default()
        };
        let policy = load(
            &self.robots,
            &LoadOptions {
                origin: config.origin.clone(),
                ..LoadOptions::default()
            },
        )
        .unwrap();
        let dns = self.dns.map(|server| {
            let resolver = DnsResolver::new(&DnsConfig {
                name_servers: NameServers::Addresses(vec![server]),
                timeout: Duration::from_secs(5),
                concurrency: 4,
            })
            .unwrap();
            Mutex::new(DnsVerifier::online(
                resolver,
                DnsCache::new(),
                Duration::MAX,
            ))
        });
        let explainer = Explainer {
            config: &config,
            catalog: &catalog,
            verifier: &verifier,
            policy: &policy,
            dns: dns.as_ref(),
        };
        let mut judged = Decisions::new();
        let mut verified = Verifications::new();
        let mut lines = 0;
        for log in &self.logs {
            let mut files: Vec<PathBuf> = if log.is_dir() {
                std::fs::read_dir(log)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .collect()
            } else {
                vec![log.clone()]
            };
            files.sort();
            for file in files {
                let mut reader = LogReader::open(&Source::Path(file.clone())).unwrap();
                let mut parser = None;
                while let Some(block) = reader.next_block().unwrap() {
                    let parser = parser.get_or_insert_with(|| {
                        input_parser(&mut reader, &block, None, &config.fields).unwrap()
                    });
                    let name = file.display().to_string();
                    let explained = explainer.explain_lines(parser, &block, &name, |_| true);
                    for (line_no, explanation) in explained {
                        lines += 1;
                        let json = explanation.to_json();
                        let verdict = json["verdict"].as_str().unwrap().to_owned();
                        if ["", "robots_fetch", "unjudged"].contains(&verdict.as_str()) {
                            continue;
                        }
                        let text = |key: &str| json[key].as_str().unwrap().to_owned();
                        if verdict == "disallowed" {
                            verified.insert(format!("{name}:{line_no}"), text("verification"));
                        }
                        judged.insert(
                            format!("{name}:{line_no}"),
                            [
                                verdict,
                                text("rule"),
                                text("rule_line"),
                                text("robots_version"),
                            ],
                        );
                    }
                }
            }
        }
        (judged, verified, lines)
    }
}

fn sample_night() -> Night {
    let data = repo().join("sample-data");
    Night {
        robots: vec![data.join("robots"), data.join("manifest.csv")],
        origin: Some("https://shop.example.net".into()),
        verify: vec![("Google".into(), data.join("ranges/googlebot.json"))],
        logs: vec![data.join("logs")],
        dns: None,
    }
}

fn assert_same(audit: &Decisions, explained: &Decisions) {
    assert!(!audit.is_empty());
    for (source, row) in audit {
        assert_eq!(explained.get(source), Some(row), "line {source}");
    }
    assert_eq!(
        audit.len(),
        explained.len(),
        "explain judged lines the audit did not"
    );
}

#[test]
fn explain_agrees_with_the_audit_on_every_line_of_the_sample_night() {
    let dir = tempfile::tempdir().unwrap();
    let night = sample_night();
    let audit = night.audit(&dir.path().join("out"));
    let (explained, lines) = night.explain_every_line();
    assert_eq!(lines, 772 + 776 + 758);
    assert_same(&audit, &explained);
    for verdict in ["allowed", "disallowed", "grace", "exempt"] {
        assert!(audit.values().any(|row| row[0] == verdict), "{verdict}");
    }
}

#[test]
fn explain_agrees_with_the_audit_on_every_line_of_a_synthetic_night() {
    let dir = tempfile::tempdir().unwrap();
    let config = SynthConfig {
        out: dir.path().join("synth"),
        lines: 3_000,
        origins: 3,
        bots: 12,
        files: 2,
        format: SynthFormat::VhostCombined,
        compression: SynthCompression::Gzip,
        seed: 13,
        ..SynthConfig::default()
    };
    let summary = generate(&config).unwrap();
    let night = Night {
        robots: vec![summary.robots_dir.clone()],
        origin: None,
        verify: summary.ranges.clone(),
        logs: vec![config.out.join("logs")],
        dns: None,
    };
    let audit = night.audit(&dir.path().join("out"));
    let (explained, lines) = night.explain_every_line();
    assert_eq!(lines as u64, summary.lines);
    assert_same(&audit, &explained);
}

/// The command itself, on a violation of the sample night: `--json` holds the audit's row, and
/// the text names each step.
#[test]
fn explain_command_on_a_sample_violation() {
    let dir = tempfile::tempdir().unwrap();
    let night = sample_night();
    let audit = night.audit(&dir.path().join("out"));
    let (source, row) = audit
        .iter()
        .find(|(_, row)| row[0] == "disallowed")
        .unwrap();
    let output = robots_audit()
        .arg("explain")
        .args(night.args())
        .args(["--json", "--line", source])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    for (key, value) in ["verdict", "rule", "rule_line", "robots_version"]
        .iter()
        .zip(row)
    {
        assert_eq!(json[key], *value.as_str(), "{key}");
    }
    assert_eq!(json["origin"], "https://shop.example.net");
    assert!(json["agent"].is_string());

    let output = robots_audit()
        .arg("explain")
        .args(night.args())
        .args(["--line", source])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    for step in [
        "format:        combined",
        "identity:      catalog entry",
        "origin:        https://shop.example.net",
        "robots.txt:    version ",
        "groups:        [",
        "  matches:     line ",
        "deciding rule: ",
        "grace:         ",
        "1994 reading:  ",
        "verification:  ",
        "crawl-delay:   ",
        "usage:         ",
        "verdict:       disallowed",
    ] {
        assert!(text.contains(step), "{step:?} missing in\n{text}");
    }
    assert!(
        text.contains(&format!("{} (line {})", row[1], row[2])),
        "{text}"
    );
}

/// A line given as an argument; a browser is not a bot; a malformed line says why.
#[test]
fn explain_a_line_given_as_argument() {
    let robots = repo().join("sample-data/manifest/shop.txt");
    let run = |line: &str| {
        let output = robots_audit()
            .args([
                "explain",
                "--origin",
                "https://shop.example.net",
                "--robots",
            ])
            .arg(&robots)
            .arg(line)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let bot = run(
        r#"203.0.113.9 - - [20/Nov/2026:18:08:41 +0000] "GET /cart?x=1 HTTP/1.1" 200 10 "-" "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)""#,
    );
    assert!(bot.contains("agent:         Bingbot"), "{bot}");
    assert!(bot.contains("path:          /cart?x=1"), "{bot}");
    assert!(bot.contains("verdict:       "), "{bot}");
    let browser = run(
        r#"203.0.113.9 - - [20/Nov/2026:18:08:41 +0000] "GET /cart HTTP/1.1" 200 10 "-" "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0""#,
    );
    assert!(browser.contains("identity:      not a bot"), "{browser}");
    assert!(
        browser.contains("verdict:       none (not audited)"),
        "{browser}"
    );
    let skipped = robots_audit()
        .args(["explain", "--format", "combined", "--robots"])
        .arg(&robots)
        .args(["--origin", "https://shop.example.net", "not a log line"])
        .output()
        .unwrap();
    let text = String::from_utf8(skipped.stdout).unwrap();
    assert!(text.contains("no request:    skipped: "), "{text}");
}

/// The sample night with `--verify dns` against a loopback server that knows its client
/// addresses: a third genuine crawler names, a third PTR names whose forward lookup gives another
/// address, a third nothing. `explain` gives every line the audit's verdict, and every violation
/// the audit's verification (`verified_dns`, `spoofed` and the others).
#[test]
fn explain_agrees_with_the_audit_under_verify_dns() {
    let dir = tempfile::tempdir().unwrap();
    let mut night = sample_night();
    let plain = night.audit(&dir.path().join("plain"));
    let decisions = read_csv(&dir.path().join("plain/decisions.csv"));
    let clients: BTreeSet<IpAddr> = decisions
        .iter()
        .filter_map(|row| row["client_ip"].parse().ok())
        .collect();
    assert!(clients.len() > 10, "{} clients", clients.len());
    let mut zones = Zones::new();
    for (index, &client) in clients.iter().enumerate() {
        let genuine = format!("crawl-{index}.googlebot.com.");
        let fake = format!("fake-{index}.googlebot.com.");
        match index % 3 {
            0 => {
                zones.crawler("googlebot.com.", &genuine, client);
            }
            1 => {
                zones.ptr(client, &fake).host(
                    "googlebot.com.",
                    &fake,
                    IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)),
                );
            }
            _ => {}
        }
    }
    let server = TestServer::start(&zones);
    night.dns = Some(server.address());
    let out = dir.path().join("dns");
    let audit = night.audit(&out);
    let violations = Night::violations(&out);
    let (explained, verified, _) = night.explain_every_line_verified();
    assert_same(&audit, &explained);
    assert_eq!(audit, plain, "DNS changes verification, never a verdict");
    for (source, verification) in &violations {
        assert_eq!(verified.get(source), Some(verification), "line {source}");
    }
    assert_eq!(violations.len(), verified.len());
    for expected in ["verified_dns", "spoofed"] {
        assert!(
            violations.values().any(|v| v == expected),
            "no {expected} violation: {violations:?}"
        );
    }
}

/// `explain --verify dns` shows the PTR name, the forward addresses and the answer, for an
/// address and for a logged host name; `--offline` answers from the cache explain wrote.
#[test]
fn explain_shows_what_dns_said() {
    let mut zones = Zones::new();
    zones
        .crawler(
            "googlebot.com.",
            "crawl-66-249-66-1.googlebot.com.",
            IpAddr::V4(Ipv4Addr::new(66, 249, 66, 1)),
        )
        .ptr(
            IpAddr::V4(Ipv4Addr::new(203, 0, 113, 7)),
            "crawl-fake.googlebot.com.",
        )
        .host(
            "googlebot.com.",
            "crawl-fake.googlebot.com.",
            IpAddr::V4(Ipv4Addr::new(66, 249, 66, 200)),
        );
    let server = TestServer::start(&zones);
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("dns.csv");
    let robots = repo().join("sample-data/manifest/shop.txt");
    let line = |client: &str| {
        format!(
            r#"{client} - - [20/Nov/2026:18:08:41 +0000] "GET /cart HTTP/1.1" 200 10 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)""#
        )
    };
    let explain = |client: &str, extra: &[&str]| {
        let output = robots_audit()
            .args([
                "explain",
                "--origin",
                "https://shop.example.net",
                "--robots",
            ])
            .arg(&robots)
            .args(["--verify", "dns", "--dns-cache"])
            .arg(&cache)
            .args(extra)
            .arg(line(client))
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let server_arg = server.address().to_string();
    let online = ["--dns-server", server_arg.as_str()];

    let genuine = explain("66.249.66.1", &online);
    for step in [
        "verification:  verified_dns",
        "dns:           66.249.66.1 (looked up in this run)",
        "  ptr:         crawl-66-249-66-1.googlebot.com",
        "  forward:     66.249.66.1",
        "  answer:      confirmed: crawl-66-249-66-1.googlebot.com is the operator's",
    ] {
        assert!(genuine.contains(step), "{step:?} missing in\n{genuine}");
    }
    let spoof = explain("203.0.113.7", &online);
    for step in [
        "verification:  spoofed",
        "  ptr:         crawl-fake.googlebot.com",
        "  forward:     66.249.66.200",
        "  answer:      refuted: crawl-fake.googlebot.com does not resolve back to the address",
    ] {
        assert!(spoof.contains(step), "{step:?} missing in\n{spoof}");
    }
    let host = explain("crawl-66-249-66-1.googlebot.com", &online);
    for step in [
        "verification:  verified_dns",
        "dns:           crawl-66-249-66-1.googlebot.com (forward lookup of the logged host name in this run)",
        "  forward:     66.249.66.1",
    ] {
        assert!(host.contains(step), "{step:?} missing in\n{host}");
    }
    let missing = explain("ghost.googlebot.com", &online);
    assert!(missing.contains("verification:  unverified"), "{missing}");
    assert!(missing.contains("  forward:     no address"), "{missing}");

    // Offline, from the cache the online runs wrote: the same verdict, its time, no forward
    // addresses (the cache does not keep them).
    drop(server);
    let cached = explain("203.0.113.7", &["--offline"]);
    assert!(cached.contains("verification:  spoofed"), "{cached}");
    assert!(
        cached.contains("dns:           203.0.113.7 (the DNS cache, checked at "),
        "{cached}"
    );
    assert!(!cached.contains("  forward:"), "{cached}");
    let json = robots_audit()
        .args([
            "explain",
            "--json",
            "--origin",
            "https://shop.example.net",
            "--robots",
        ])
        .arg(&robots)
        .args(["--verify", "dns", "--offline", "--dns-cache"])
        .arg(&cache)
        .arg(line("66.249.66.1"))
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["verification"], "verified_dns");
    assert_eq!(json["dns"]["ptr"], "crawl-66-249-66-1.googlebot.com");
}

/// A request for `/robots.txt` is a fetch: `explain` says so, says it is not judged, and names
/// the version it fetched (the one in force at its time, with its source and `valid_from`).
#[test]
fn explain_a_robots_txt_fetch() {
    let manifest = repo().join("sample-data/manifest.csv");
    let line = |time: &str| {
        format!(
            r#"66.249.66.1 - - [20/Nov/2026:{time} +0000] "GET /robots.txt HTTP/1.1" 200 120 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)""#
        )
    };
    let run = |line: &str, json: bool| {
        let mut cmd = robots_audit();
        cmd.args([
            "explain",
            "--origin",
            "https://blog.example.com",
            "--robots",
        ])
        .arg(&manifest);
        if json {
            cmd.arg("--json");
        }
        let output = cmd.arg(line).output().unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    // 22:30 falls in the 503 version that starts at 22:00; 12:00 in the initial one.
    let cases = [
        (
            "22:30:00",
            "2026-11-20T22:00:00Z",
            Some("2026-11-20T22:00:00Z"),
            "503",
        ),
        ("12:00:00", "initial", None, "200"),
    ];
    for (time, label, valid_from, status) in cases {
        let json: serde_json::Value = serde_json::from_str(&run(&line(time), true)).unwrap();
        assert_eq!(json["verdict"], "robots_fetch", "{json}");
        assert_eq!(json["judged"], false, "{json}");
        assert_eq!(json["rule"], "", "{json}");
        assert_eq!(json["robots_version"], label, "{json}");
        assert_eq!(json["version"]["label"], label, "{json}");
        assert_eq!(json["version"]["status"], status, "{json}");
        assert_eq!(
            json["version"]["valid_from"],
            valid_from.map_or(serde_json::Value::Null, serde_json::Value::from),
            "{json}"
        );
        assert!(
            json["version"]["source"]
                .as_str()
                .is_some_and(|s| s.contains("manifest")),
            "{json}"
        );

        let text = run(&line(time), false);
        for step in [
            "robots.txt:    this request fetched the robots.txt itself: counted, not judged",
            &format!("fetched:       version {label} from "),
            &format!(
                "(valid from {}; status {status}",
                valid_from.unwrap_or("the beginning")
            ),
            "verdict:       robots_fetch",
        ] {
            assert!(text.contains(step), "{step:?} missing in\n{text}");
        }
        assert!(!text.contains("no version in force"), "{text}");
        assert!(!text.contains("deciding rule:"), "{text}");
    }

    // An origin the sources do not name: a fetch all the same, with no version to name.
    let text = robots_audit()
        .args([
            "explain",
            "--origin",
            "https://elsewhere.example",
            "--robots",
        ])
        .arg(&manifest)
        .arg(line("12:00:00"))
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("fetched:       no version is known"),
        "{text}"
    );
    assert!(text.contains("verdict:       robots_fetch"), "{text}");
}

/// A line the audit reads together with lines before it (the last piece of a CRI record that
/// partial `P` records started, the last of docker's records of one cut line, a W3C line whose
/// `#Fields:` directive lies more than 64 directives back) gets the audit's verdict from
/// `explain --line`: the lines of its block before it are read first, as the audit reads them.
/// A piece that a later line completes is no request of its own.
#[test]
fn explain_reads_the_lines_before_a_line_as_the_audit_does() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(
        dir.path(),
        "robots.txt",
        "User-agent: *\nDisallow: /private\n",
    );
    let line = r#"66.249.66.1 - - [20/Nov/2026:12:30:00 +0000] "GET /private/x HTTP/1.1" 200 5 "-" "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)""#;
    let (head, rest) = line.split_at(40);
    let (middle, tail) = rest.split_at(50);
    let cri = format!(
        "2026-11-20T12:30:00.1Z stdout P {head}\n\
         2026-11-20T12:30:00.2Z stderr F an error line\n\
         2026-11-20T12:30:00.3Z stdout P {middle}\n\
         2026-11-20T12:30:00.4Z stdout F {tail}\n"
    );
    // Rotated before the runtime's closing record: the record is read where the input ends
    // (after a browser's request, by which the format is detected).
    let rotated = format!(
        "2026-11-20T12:30:00.0Z stdout F 192.0.2.9 - - [20/Nov/2026:12:29:59 +0000] \
         \"GET / HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0\"\n\
         2026-11-20T12:30:00.1Z stdout P {head}\n\
         2026-11-20T12:30:00.3Z stdout P {middle}\n\
         2026-11-20T12:30:00.4Z stdout P {tail}\n"
    );
    let record = |log: &str| {
        serde_json::json!({"log": log, "stream": "stdout", "time": "2026-11-20T12:30:00Z"})
            .to_string()
    };
    let docker = format!(
        "{}\n{}\n",
        record(&line[..50]),
        record(&format!("{}\n", &line[50..]))
    );
    let mut w3c = String::from(
        "#Software: Microsoft Internet Information Services 10.0\n\
         #Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip \
         cs(User-Agent) sc-status sc-substatus sc-win32-status time-taken\n",
    );
    for remark in 0..70 {
        w3c.push_str(&format!("#Remark: {remark}\n"));
    }
    w3c.push_str(
        "2026-11-20 12:30:00 10.0.0.1 GET /private/x - 443 - 66.249.66.1 \
         Mozilla/5.0+(compatible;+GPTBot/1.2;++https://openai.com/gptbot) 200 0 0 5\n",
    );
    for (name, log, last, pieces) in [
        ("cri.log", cri, 4, &[1, 3][..]),
        ("rotated.log", rotated, 4, &[2, 3][..]),
        ("docker.log", docker, 2, &[1][..]),
        ("w3c.log", w3c, 73, &[][..]),
    ] {
        let log = write(dir.path(), name, log);
        let out = dir.path().join(format!("{name}.out"));
        let options = ["--origin", "https://h.example", "--robots"];
        robots_audit()
            .args(["audit", "-q", "--decisions", "--out"])
            .arg(&out)
            .args(options)
            .arg(&robots)
            .arg(&log)
            .assert()
            .code(0);
        let decisions = read_csv(&out.join("decisions.csv"));
        assert_eq!(decisions.len(), 1, "{name}: {decisions:?}");
        let decision = &decisions[0];
        let explain = |line: u64| -> serde_json::Value {
            let output = robots_audit()
                .args(["explain", "--json"])
                .args(options)
                .arg(&robots)
                .arg("--line")
                .arg(format!("{}:{line}", log.display()))
                .output()
                .unwrap();
            assert!(output.status.success(), "{name}: {output:?}");
            serde_json::from_slice(&output.stdout).unwrap()
        };
        let json = explain(last);
        assert_eq!(decision["source"], format!("{}:{last}", log.display()));
        assert_eq!(
            json["not_a_request"],
            serde_json::Value::Null,
            "{name}: {json}"
        );
        for (key, column) in [
            ("verdict", "verdict"),
            ("agent", "agent"),
            ("path", "path"),
            ("rule", "rule"),
            ("rule_line", "rule_line"),
        ] {
            assert_eq!(json[key], decision[column].as_str(), "{name}: {key}");
        }
        assert_eq!(json["fields"]["time"], decision["time"].as_str(), "{name}");
        for &piece in pieces {
            let json = explain(piece);
            assert_eq!(json["verdict"], "", "{name}:{piece}: {json}");
            let why = json["not_a_request"].as_str().unwrap_or_default();
            assert!(
                why.contains("a later line completes"),
                "{name}:{piece}: {why}"
            );
        }
    }
}

/// A log whose first lines detection cannot read (more junk than it looks through, before any
/// line of a format) is not read by the audit: `inputs.csv` says why, and no line of it is
/// judged. `explain --line` on one of its lines says the same, rather than detecting a format
/// from the lines around that line and judging a request the audit never judged.
#[test]
fn explain_refuses_a_line_of_a_log_the_audit_cannot_detect() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(
        dir.path(),
        "robots.txt",
        "User-agent: *\nDisallow: /private\n",
    );
    let junk_line = format!("{}\n", "a line of no format ".repeat(6));
    let junk_lines = robots_audit::logs::DETECT_MAX_LINES + 1_000;
    let mut log = junk_line.repeat(junk_lines);
    // Past the first block: the line's own block holds few enough lines for a detection of
    // its own to reach the line.
    assert!(log.len() > robots_audit::logs::DEFAULT_BLOCK_SIZE);
    log.push_str(
        r#"66.249.66.1 - - [20/Nov/2026:12:30:00 +0000] "GET /private/x HTTP/1.1" 200 5 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)""#,
    );
    log.push('\n');
    let undetected = write(dir.path(), "undetected.log", log);
    let readable = write(
        dir.path(),
        "readable.log",
        "66.249.66.1 - - [20/Nov/2026:12:30:00 +0000] \"GET /public HTTP/1.1\" 200 5 \"-\" \
         \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\"\n",
    );
    let options = ["--origin", "https://h.example", "--robots"];
    let out = dir.path().join("out");
    robots_audit()
        .args(["audit", "-q", "--decisions", "--out"])
        .arg(&out)
        .args(options)
        .arg(&robots)
        .args([&undetected, &readable])
        .assert()
        .code(3);
    let message = "could not detect the log format; name it with --format";
    let inputs = read_csv(&out.join("inputs.csv"));
    assert_eq!(inputs[0]["error"], message, "{inputs:?}");
    let decisions = read_csv(&out.join("decisions.csv"));
    assert!(
        decisions
            .iter()
            .all(|row| !row["source"].starts_with(&undetected.display().to_string())),
        "{decisions:?}"
    );
    let last = junk_lines + 1;
    let explained = robots_audit()
        .arg("explain")
        .args(options)
        .arg(&robots)
        .arg("--line")
        .arg(format!("{}:{last}", undetected.display()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&explained.stderr);
    assert!(!explained.status.success(), "{explained:?}");
    assert!(stderr.contains(message), "{stderr}");
    assert!(explained.stdout.is_empty(), "{explained:?}");
}

/// A line whose bytes are not UTF-8 (a client's raw bytes in the path and the user-agent, as
/// the logs hold them) is judged by the audit; given to `explain` as its argument, it gets the
/// audit's verdict, rule and version, and the fields `explain --line` reads from the file.
#[cfg(unix)]
#[test]
fn explain_takes_a_line_argument_that_is_not_utf8() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let dir = tempfile::tempdir().unwrap();
    let robots = write(
        dir.path(),
        "robots.txt",
        "User-agent: *\nDisallow: /private\n",
    );
    let line: &[u8] = b"66.249.66.1 - - [20/Nov/2026:12:30:00 +0000] \"GET /private/\xff HTTP/1.1\" \
        200 5 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html) \xfe\"";
    let log = write(dir.path(), "raw.log", [line, b"\n"].concat());
    let options = ["--origin", "https://h.example", "--robots"];
    let out = dir.path().join("out");
    robots_audit()
        .args(["audit", "-q", "--decisions", "--out"])
        .arg(&out)
        .args(options)
        .arg(&robots)
        .arg(&log)
        .assert()
        .code(0);
    let decisions = read_csv(&out.join("decisions.csv"));
    assert_eq!(decisions.len(), 1, "{decisions:?}");
    let explain = |how: &[&OsStr]| -> serde_json::Value {
        let output = robots_audit()
            .args(["explain", "--json"])
            .args(options)
            .arg(&robots)
            .args(how)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let from_argument = explain(&[OsStr::new("--"), OsStr::from_bytes(line)]);
    let source = format!("{}:1", log.display());
    let from_file = explain(&[OsStr::new("--line"), OsStr::new(&source)]);
    for (key, column) in [
        ("verdict", "verdict"),
        ("agent", "agent"),
        ("rule", "rule"),
        ("rule_line", "rule_line"),
        ("robots_version", "robots_version"),
    ] {
        assert_eq!(from_argument[key], decisions[0][column].as_str(), "{key}");
    }
    assert_eq!(from_argument["verdict"], "disallowed");
    for key in ["fields", "path", "verification", "origin"] {
        assert_eq!(from_argument[key], from_file[key], "{key}");
    }
}
