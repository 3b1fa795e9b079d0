//! `explain`: its verdict is the audit's, line by line, over the sample night and a synthetic
//! night; its text shows each step.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{read_csv, robots_audit};
use robots_audit::audit::AuditConfig;
use robots_audit::audit::explain::Explainer;
use robots_audit::bots::{Catalog, Verifier};
use robots_audit::logs::{LogReader, Source};
use robots_audit::origin::Origin;
use robots_audit::policy::source::{LoadOptions, load};
use robots_audit::synth::{SynthCompression, SynthConfig, SynthFormat, generate};

/// What `decisions.csv` and `explain --json` must agree on, by `file:line`.
type Decisions = BTreeMap<String, [String; 4]>;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// An audit's options, as the tests give them to both `audit` and `explain`.
struct Night {
    robots: Vec<PathBuf>,
    origin: Option<String>,
    verify: Vec<(String, PathBuf)>,
    logs: Vec<PathBuf>,
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
        args
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
        let explainer = Explainer {
            config: &config,
            catalog: &catalog,
            verifier: &verifier,
            policy: &policy,
        };
        let mut judged = Decisions::new();
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
                let mut format = None;
                let mut preamble: Vec<Vec<u8>> = Vec::new();
                while let Some(block) = reader.next_block().unwrap() {
                    if format.is_none() {
                        format = reader.detect_format(&block);
                    }
                    for (line_no, line) in block.lines() {
                        lines += 1;
                        let before: Vec<&[u8]> = preamble.iter().map(Vec::as_slice).collect();
                        let name = file.display().to_string();
                        let explanation = explainer.explain(
                            format.unwrap(),
                            true,
                            &before,
                            (&name, line_no),
                            line,
                        );
                        let json = explanation.to_json();
                        if line.first() == Some(&b'#') {
                            preamble.push(line.to_vec());
                        }
                        let verdict = json["verdict"].as_str().unwrap().to_owned();
                        if ["", "robots_fetch", "unjudged"].contains(&verdict.as_str()) {
                            continue;
                        }
                        let text = |key: &str| json[key].as_str().unwrap().to_owned();
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
        (judged, lines)
    }
}

fn sample_night() -> Night {
    let data = repo().join("sample-data");
    Night {
        robots: vec![data.join("robots"), data.join("manifest.csv")],
        origin: Some("https://shop.example.net".into()),
        verify: vec![("Google".into(), data.join("ranges/googlebot.json"))],
        logs: vec![data.join("logs")],
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
    assert_eq!(lines, 764 + 776 + 758);
    assert_same(&audit, &explained);
    for verdict in ["allowed", "disallowed", "grace"] {
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
