//! Which robots.txt version judges a request, read from the log's own clock (docs/contract.md,
//! "Semantics of one request" and "Grace"; docs/log-formats.md, "Times"): a table of requests
//! one second before, at and after each change of a history written in several offsets and out
//! of order, logged in UTC, at fixed offsets and in local time across both daylight saving
//! changes of `--timezone Europe/Paris`, each with the row `decisions.csv` must hold.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::*;

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const CHATGPT_USER: &str = "Mozilla/5.0 (compatible; ChatGPT-User/1.0; +https://openai.com/bot)";

/// `shop.example` (any scheme) changes four times around the night the clocks go back,
/// 2026-10-25, when Paris's 02:00 to 03:00 comes twice (00:00Z to 01:00Z at +02:00, then 01:00Z
/// to 02:00Z at +01:00); `https://blog.example` twice around the night they go forward,
/// 2026-03-29, when 02:00 to 03:00 never comes; `blog.example` has one version for the other
/// schemes. Rows are out of order and their times in several offsets.
const MANIFEST: &str = "origin,valid_from,status,file
shop.example,2026-10-25T02:30:00+01:00,200,disallow-b.txt
https://blog.example,2026-03-29T03:00:00+02:00,unreachable,
shop.example,2026-10-25T01:00:00Z,503,
blog.example,,200,disallow-all.txt
shop.example,2026-10-25T02:30:00+02:00,200,disallow-a.txt
https://blog.example,2026-03-29T01:30:00Z,200,disallow-x.txt
shop.example,,404,
";

/// HAProxy logs its local time without an offset: read in Paris, a time of the hour that comes
/// twice is its first occurrence, and one of the hour skipped has the offset before the change.
const HAPROXY: &str = "\
10.0.0.1:5000 [25/Oct/2026:02:29:59.999] www~ web/a 0/0/1/1/2 200 10 - - ---- 1/1/1/1/0 0/0 {shop.example|GOOGLEBOT} \"GET /a HTTP/1.1\"
10.0.0.2:5000 [25/Oct/2026:02:30:00.000] www~ web/a 0/0/1/1/2 200 10 - - ---- 1/1/1/1/0 0/0 {shop.example|GOOGLEBOT} \"GET /a HTTP/1.1\"
10.0.0.3:5000 [29/Mar/2026:02:30:00.000] www~ web/a 0/0/1/1/2 200 10 - - ---- 1/1/1/1/0 0/0 {blog.example|GOOGLEBOT} \"GET /x HTTP/1.1\"
10.0.0.4:5000 [29/Mar/2026:01:59:59.000] www~ web/a 0/0/1/1/2 200 10 - - ---- 1/1/1/1/0 0/0 {blog.example|GOOGLEBOT} \"GET /x HTTP/1.1\"
10.0.0.5:5000 [29/Mar/2026:01:59:59.000] www web/a 0/0/1/1/2 200 10 - - ---- 1/1/1/1/0 0/0 {blog.example|GOOGLEBOT} \"GET /x HTTP/1.1\"
";

/// Apache writes its offset, so `--timezone` does not apply.
const VHOST: &str = "\
shop.example:443 10.0.1.1 - - [25/Oct/2026:02:29:59 +0100] \"GET /c HTTP/1.1\" 200 10 \"-\" \"GOOGLEBOT\"
shop.example:443 10.0.1.2 - - [25/Oct/2026:02:30:00 +0100] \"GET /a HTTP/1.1\" 200 10 \"-\" \"GOOGLEBOT\"
shop.example:443 10.0.1.3 - - [25/Oct/2026:02:30:01 +0100] \"GET /b HTTP/1.1\" 200 10 \"-\" \"GOOGLEBOT\"
shop.example:80 10.0.1.4 - - [24/Oct/2026:23:59:59 -0100] \"GET /c HTTP/1.1\" 200 10 \"-\" \"CHATGPT_USER\"
shop.example:80 10.0.1.5 - - [25/Oct/2026:06:00:00 +0530] \"GET /a HTTP/1.1\" 200 10 \"-\" \"CHATGPT_USER\"
cdn.example:443 10.0.1.6 - - [25/Oct/2026:00:59:59 +0000] \"GET /a HTTP/1.1\" 200 10 \"-\" \"GOOGLEBOT\"
cdn.example:443 10.0.1.7 - - [24/Oct/2026:16:00:00 -0900] \"GET /a HTTP/1.1\" 200 10 \"-\" \"GOOGLEBOT\"
";

/// A JSON date and time without an offset is local time too; one with an offset is not.
const JSON: &str = r#"{"time":"2026-03-29 03:00:00","host":"blog.example","scheme":"https","uri":"/y","status":200,"user_agent":"GOOGLEBOT","client_ip":"10.0.2.1"}
{"time":"2026-03-29T02:59:59+01:00","host":"blog.example","scheme":"https","uri":"/y","status":200,"user_agent":"GOOGLEBOT","client_ip":"10.0.2.2"}
{"time":"2026-10-25T02:59:59.5+02:00","host":"shop.example","scheme":"https","uri":"/a","status":200,"user_agent":"GOOGLEBOT","client_ip":"10.0.2.3"}
"#;

/// Per client: the UTC time read, the version in force, and the verdict with `--grace 1h`, with
/// `--grace 0s`, and with `--grace 0s --strict`; `None` for a request no version judges.
type Expected = (&'static str, &'static str, [&'static str; 3]);

const EXPECTED: &[(&str, Option<Expected>)] = &[
    // The first 02:29:59.999 is 00:29:59.999Z, before the 00:30Z version: the initial 404.
    (
        "10.0.0.1",
        Some(("2026-10-25T00:29:59.999Z", "initial", ["allowed"; 3])),
    ),
    // The first 02:30 is 00:30Z: the version of 00:30Z, which a 404 allowed until then.
    (
        "10.0.0.2",
        Some((
            "2026-10-25T00:30:00Z",
            "2026-10-25T00:30:00Z",
            ["grace", "disallowed", "disallowed"],
        )),
    ),
    // 02:30 never came on 29 March: read at +01:00, 01:30Z, after the unreachable row.
    (
        "10.0.0.3",
        Some((
            "2026-03-29T01:30:00Z",
            "2026-03-29T01:30:00Z",
            ["disallowed"; 3],
        )),
    ),
    // 00:59:59Z: https has no version yet, and its history replaces blog.example's for https.
    ("10.0.0.4", None),
    // The same moment over http: blog.example's version.
    (
        "10.0.0.5",
        Some(("2026-03-29T00:59:59Z", "initial", ["disallowed"; 3])),
    ),
    // 01:29:59Z: the 503 of 01:00Z, after the 00:30Z version that allowed /c.
    (
        "10.0.1.1",
        Some((
            "2026-10-25T01:29:59Z",
            "2026-10-25T01:00:00Z",
            ["grace", "disallowed", "disallowed"],
        )),
    ),
    // 01:30Z: the second 02:30, at +01:00, is the version of 01:30Z, which allows /a.
    (
        "10.0.1.2",
        Some((
            "2026-10-25T01:30:00Z",
            "2026-10-25T01:30:00Z",
            ["allowed"; 3],
        )),
    ),
    // One second on, /b: the 503 before allowed nothing, the 00:30Z version did.
    (
        "10.0.1.3",
        Some((
            "2026-10-25T01:30:01Z",
            "2026-10-25T01:30:00Z",
            ["grace", "disallowed", "disallowed"],
        )),
    ),
    // 00:59:59Z, one second before the 503, for a user-triggered fetcher.
    (
        "10.0.1.4",
        Some((
            "2026-10-25T00:59:59Z",
            "2026-10-25T00:30:00Z",
            ["allowed"; 3],
        )),
    ),
    // 00:30Z at +05:30 is the 00:30Z version's first moment: exempt unless strict.
    (
        "10.0.1.5",
        Some((
            "2026-10-25T00:30:00Z",
            "2026-10-25T00:30:00Z",
            ["grace", "exempt", "disallowed"],
        )),
    ),
    // cdn.example is a directory: its `<host>.txt` before its dated version of 01:00Z.
    (
        "10.0.1.6",
        Some(("2026-10-25T00:59:59Z", "initial", ["allowed"; 3])),
    ),
    (
        "10.0.1.7",
        Some((
            "2026-10-25T01:00:00Z",
            "2026-10-25T01:00:00Z",
            ["grace", "disallowed", "disallowed"],
        )),
    ),
    // 03:00 in Paris on 29 March is 01:00Z: the unreachable row, the first of https.
    (
        "10.0.2.1",
        Some((
            "2026-03-29T01:00:00Z",
            "2026-03-29T01:00:00Z",
            ["disallowed"; 3],
        )),
    ),
    // 01:59:59Z: the version of 01:30Z, which allows /y.
    (
        "10.0.2.2",
        Some((
            "2026-03-29T01:59:59Z",
            "2026-03-29T01:30:00Z",
            ["allowed"; 3],
        )),
    ),
    // 00:59:59.5Z: still the 00:30Z version, half a second before the 503.
    (
        "10.0.2.3",
        Some((
            "2026-10-25T00:59:59.5Z",
            "2026-10-25T00:30:00Z",
            ["grace", "disallowed", "disallowed"],
        )),
    ),
];

fn scenario(dir: &Path) {
    write(
        dir,
        "history/disallow-a.txt",
        "User-agent: *\nDisallow: /a\n",
    );
    write(
        dir,
        "history/disallow-b.txt",
        "User-agent: *\nDisallow: /b\n",
    );
    write(
        dir,
        "history/disallow-x.txt",
        "User-agent: *\nDisallow: /x\n",
    );
    write(
        dir,
        "history/disallow-all.txt",
        "User-agent: *\nDisallow: /\n",
    );
    write(dir, "history/manifest.csv", MANIFEST);
    write(dir, "dated/cdn.example.txt", "User-agent: *\nAllow: /\n");
    write(
        dir,
        "dated/cdn.example/2026-10-25T02:00:00+01:00.txt",
        "User-agent: *\nDisallow: /a\n",
    );
    let agents = |log: &str| {
        log.replace("CHATGPT_USER", CHATGPT_USER)
            .replace("GOOGLEBOT", GOOGLEBOT)
    };
    write(dir, "logs/1-haproxy.log", agents(HAPROXY));
    write(dir, "logs/2-vhost.log", agents(VHOST));
    write(dir, "logs/3-json.log", agents(JSON));
}

/// The decisions of one audit, by client.
fn decisions(
    dir: &Path,
    out: &str,
    options: &[&str],
) -> BTreeMap<String, (String, String, String)> {
    robots_audit()
        .current_dir(dir)
        .args(["audit", "-q", "--no-html", "--decisions", "--threads", "1"])
        .args(["--robots", "history/manifest.csv", "--robots", "dated"])
        .args(["--timezone", "Europe/Paris", "--out", out])
        .args(options)
        .arg("logs")
        .assert()
        .success();
    read_csv(&dir.join(out).join("decisions.csv"))
        .into_iter()
        .map(|row| {
            (
                row["client_ip"].clone(),
                (
                    row["time"].clone(),
                    row["robots_version"].clone(),
                    row["verdict"].clone(),
                ),
            )
        })
        .collect()
}

#[test]
fn each_request_is_judged_by_the_version_in_force_at_its_instant() {
    let dir = tempfile::tempdir().unwrap();
    scenario(dir.path());
    let runs: [&[&str]; 3] = [
        &["--grace", "1h"],
        &["--grace", "0s"],
        &["--grace", "0s", "--strict"],
    ];
    for (run, options) in runs.iter().enumerate() {
        let mut got = decisions(dir.path(), &format!("out{run}"), options);
        for &(client, expected) in EXPECTED {
            let want = expected.map(|(time, version, verdicts)| {
                (
                    time.to_owned(),
                    version.to_owned(),
                    verdicts[run].to_owned(),
                )
            });
            assert_eq!(got.remove(client), want, "{client} with {options:?}");
        }
        assert!(got.is_empty(), "rows of no request listed: {got:?}");
    }
}
