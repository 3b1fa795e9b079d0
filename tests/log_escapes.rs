//! Paths the server escaped in its log are judged as the client sent them: the audit of
//! `GET /q\"x` and `check '/q"x'` give the same verdict (issue 26, "Escapes").

use crate::common::*;

const ROBOTS: &str =
    "User-agent: *\nDisallow: /q\"x\nDisallow: /back\\slash\nDisallow: /caf\u{e9}\n";

/// A request line's target as the server logged it, the path the client asked for, and the
/// verdict on it (the raw UTF-8 path is `check`'s to judge: Google's matcher percent-encodes
/// the rule's `é`, not the path's).
const CASES: [(&str, &str, Option<&str>); 6] = [
    // Apache
    (r#"/q\"x"#, "/q\"x", Some("disallowed")),
    (r"/back\\slash/1", "/back\\slash/1", Some("disallowed")),
    (r#"/q\"y"#, "/q\"y", Some("allowed")),
    // nginx
    (r"/q\x22x?a=1", "/q\"x?a=1", Some("disallowed")),
    (r"/caf\xC3\xA9/menu", "/caf\u{e9}/menu", None),
    (r"/back\x5Cslash", "/back\\slash", Some("disallowed")),
];

fn line(target: &str) -> String {
    format!(
        "203.0.113.9 - - [01/Jan/2026:10:00:00 +0000] \"GET {target} HTTP/1.1\" 200 10 \"-\" \
         \"ExampleBot/1.0 (+https://bot.example/)\"\n"
    )
}

/// `check`'s verdict on `path` for ExampleBot.
fn check(dir: &std::path::Path, path: &str) -> String {
    let output = robots_audit()
        .current_dir(dir)
        .args([
            "check",
            "--robots",
            "robots.txt",
            "--agent",
            "ExampleBot",
            path,
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_text(&output));
    let stdout = String::from_utf8(output.stdout).unwrap();
    stdout.split('\t').next().unwrap().to_owned()
}

#[test]
fn the_audit_judges_escaped_paths_as_check_does() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", ROBOTS);
    let log: String = CASES.iter().map(|(logged, ..)| line(logged)).collect();
    write(dir.path(), "access.log", log);
    robots_audit()
        .current_dir(dir.path())
        .args(["audit", "-q", "--robots", "robots.txt", "--origin"])
        .args(["https://example.com", "--decisions", "--out", "out"])
        .arg("access.log")
        .assert()
        .success();
    let decisions = read_csv(&dir.path().join("out/decisions.csv"));
    assert_eq!(decisions.len(), CASES.len());
    for ((logged, path, verdict), decision) in CASES.iter().zip(&decisions) {
        assert_eq!(decision["path"], *path, "{logged}");
        let checked = check(dir.path(), path);
        assert_eq!(decision["verdict"], checked, "{logged} read as {path}");
        if let Some(verdict) = verdict {
            assert_eq!(checked, *verdict, "{path}");
        }
    }
}

/// A request line in absolute form gives the path only where the format logs the site apart:
/// the vhost (or `--origin`) chose which site answered, and the URL's host is the client's word
/// (docs/log-formats.md, "Origins"). Each line is judged by the logged site's robots.txt.
#[test]
fn absolute_form_targets_are_judged_by_the_site_that_logged_them() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots/www.example.com.txt",
        "User-agent: *\nDisallow: /join\n",
    );
    write(
        dir.path(),
        "robots/other.example.txt",
        "User-agent: *\nAllow: /\n",
    );
    let bot = "\"-\" \"ExampleBot/1.0 (+https://bot.example/)\"";
    let targets = [
        "http://other.example/join_form",
        "https://other.example:8443/join_form?x=1",
        "HTTP://OTHER.EXAMPLE/join",
    ];
    let vhost: String = targets
        .iter()
        .map(|target| {
            format!(
                "www.example.com:443 203.0.113.9 - - [01/Jan/2026:10:00:00 +0000] \
                 \"GET {target} HTTP/1.1\" 200 10 {bot}\n"
            )
        })
        .collect();
    write(dir.path(), "vhost.log", vhost);
    let combined = format!(
        "203.0.113.9 - - [01/Jan/2026:10:00:00 +0000] \"GET {} HTTP/1.1\" 200 10 {bot}\n",
        targets[0]
    );
    write(dir.path(), "combined.log", combined);
    for (log, origin) in [
        ("vhost.log", None),
        ("combined.log", Some("https://www.example.com")),
    ] {
        let mut audit = robots_audit();
        audit
            .current_dir(dir.path())
            .args(["audit", "-q", "--robots", "robots", "--decisions", "--out"])
            .arg(format!("out-{log}"));
        if let Some(origin) = origin {
            audit.args(["--origin", origin]);
        }
        audit.arg(log).assert().success();
        let decisions = read_csv(&dir.path().join(format!("out-{log}/decisions.csv")));
        assert_eq!(
            decisions.len(),
            if origin.is_some() { 1 } else { 3 },
            "{log}"
        );
        for decision in &decisions {
            assert_eq!(decision["origin"], "https://www.example.com", "{log}");
            assert!(decision["path"].starts_with("/join"), "{log}: {decision:?}");
            assert_eq!(decision["verdict"], "disallowed", "{log}: {decision:?}");
        }
    }
}
