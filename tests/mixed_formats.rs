//! Streams that mix log formats, and requests a log carries that are not for a path: each line
//! is read in its own format (never attributed to another origin), the format is detected past
//! junk, and `OPTIONS *` / `CONNECT` are counted but never judged.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::common::*;
use proptest::prelude::*;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The lines of one of the sample night's logs.
fn sample_lines(name: &str) -> Vec<String> {
    let file = std::fs::File::open(repository().join("sample-data/logs").join(name)).unwrap();
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap();
    text.lines().map(|line| format!("{line}\n")).collect()
}

/// The README's audit of the sample night, over `logs` (with `-` read from `stdin`).
fn audit_sample(out: &Path, logs: &[&str], stdin: Option<Vec<u8>>) {
    let mut cmd = sample_night_audit();
    cmd.args(["--threads", "2", "--out"]);
    cmd.arg(out).args(logs);
    if let Some(stdin) = stdin {
        cmd.write_stdin(stdin);
    }
    cmd.assert().success();
}

/// A report's rows as a multiset, without the columns that name where a row came from.
fn rows(path: &Path) -> BTreeMap<Vec<(String, String)>, usize> {
    let mut counted = BTreeMap::new();
    for row in read_csv(path) {
        let row: Vec<(String, String)> = row.into_iter().filter(|(k, _)| k != "source").collect();
        *counted.entry(row).or_insert(0) += 1;
    }
    counted
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// vhost_combined and plain combined lines (whose origin is `--origin`), interleaved at
    /// random in one stream, give the reports of the two files audited apart.
    #[test]
    fn an_interleaved_stream_reads_like_its_files_apart(
        vhost_count in 1usize..400,
        combined_count in 1usize..400,
        order in proptest::collection::vec(any::<bool>(), 800),
    ) {
        let vhost: Vec<String> = sample_lines("vhost-2026-11-20.log.gz").into_iter().take(vhost_count).collect();
        let combined: Vec<String> = sample_lines("shop-access.log.gz").into_iter().take(combined_count).collect();
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "apart/vhost.log", vhost.concat());
        write(dir.path(), "apart/combined.log", combined.concat());
        let (mut v, mut c) = (vhost.iter(), combined.iter());
        let mut stream = String::new();
        for take_vhost in order.iter().copied().chain(std::iter::repeat(true)) {
            let next = if take_vhost { v.next().or_else(|| c.next()) } else { c.next().or_else(|| v.next()) };
            match next {
                Some(line) => stream.push_str(line),
                None => break,
            }
        }
        let apart = dir.path().join("out-apart");
        let mixed = dir.path().join("out-mixed");
        let apart_dir = dir.path().join("apart");
        audit_sample(&apart, &[apart_dir.to_str().unwrap()], None);
        audit_sample(&mixed, &["-"], Some(stream.into_bytes()));
        for report in ["agents.csv", "agent_origins.csv", "violations.csv"] {
            prop_assert_eq!(rows(&apart.join(report)), rows(&mixed.join(report)), "{}", report);
        }
        prop_assert_eq!(line_counts(&apart), line_counts(&mixed));
    }
}

#[test]
fn the_sample_night_piped_reads_like_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let logs = repository().join("sample-data/logs");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&logs)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "gz"))
        .collect();
    names.sort();
    // `cat logs/*.gz`: one multi-member gzip stream of three logs in two formats.
    let cat: Vec<u8> = names
        .iter()
        .flat_map(|path| std::fs::read(path).unwrap())
        .collect();
    let piped = dir.path().join("piped");
    let directory = dir.path().join("directory");
    audit_sample(&piped, &["-"], Some(cat));
    audit_sample(&directory, &["sample-data/logs"], None);
    for report in ["agents.csv", "agent_origins.csv"] {
        assert_eq!(
            std::fs::read_to_string(piped.join(report)).unwrap(),
            std::fs::read_to_string(directory.join(report)).unwrap(),
            "{report}"
        );
    }
    assert_eq!(line_counts(&piped), line_counts(&directory));
}

/// Lines parsed and skipped over all the inputs of a run.
fn line_counts(out: &Path) -> (u64, u64) {
    read_csv(&out.join("inputs.csv"))
        .iter()
        .fold((0, 0), |(parsed, skipped), input| {
            (
                parsed + input["parsed"].parse::<u64>().unwrap(),
                skipped + input["skipped"].parse::<u64>().unwrap(),
            )
        })
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

fn combined(ip: &str, request: &str) -> String {
    format!("{ip} - - [20/Nov/2026:18:00:00 +0000] \"{request}\" 200 512 \"-\" \"{GOOGLEBOT}\"\n")
}

fn audit(dir: &Path, extra: &[&str], log: &str) -> PathBuf {
    let out = dir.join("out");
    robots_audit()
        .current_dir(dir)
        .args(["audit", "-q", "--robots", "robots.txt", "--out", "out"])
        .args(extra)
        .arg(log)
        .assert()
        .success();
    out
}

#[test]
fn requests_for_no_path_are_counted_never_judged() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /\n");
    let log = [
        combined("66.249.66.1", "GET /page HTTP/1.1"),
        combined("66.249.66.1", "OPTIONS * HTTP/1.1"),
        combined("66.249.66.1", "CONNECT www.example.com:443 HTTP/1.1"),
    ]
    .concat();
    write(dir.path(), "access.log", log);
    let out = audit(
        dir.path(),
        &["--origin", "https://www.example.com"],
        "access.log",
    );
    let agents = read_csv(&out.join("agents.csv"));
    let googlebot = row(&agents, "agent", "Googlebot");
    assert_eq!(
        (
            googlebot["requests"].as_str(),
            googlebot["judged"].as_str(),
            googlebot["disallowed"].as_str(),
            googlebot["unjudged"].as_str()
        ),
        ("3", "1", "1", "2")
    );
    let violations = read_csv(&out.join("violations.csv"));
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0]["path"], "/page");
}

#[test]
fn a_combined_log_never_takes_vhost_lines_for_its_own() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /\n");
    let log = [
        combined("66.249.66.1", "GET /page HTTP/1.1"),
        format!(
            "www.other.example:443 {}",
            combined("66.249.66.2", "GET /x HTTP/1.1")
        ),
    ]
    .concat();
    write(dir.path(), "access.log", log);
    let out = audit(
        dir.path(),
        &[
            "--origin",
            "https://www.example.com",
            "--format",
            "combined",
        ],
        "access.log",
    );
    let googlebot = read_csv(&out.join("agents.csv"));
    assert_eq!(row(&googlebot, "agent", "Googlebot")["requests"], "1");
    let skipped = read_csv(&out.join("skipped_lines.csv"));
    assert_eq!(skipped.len(), 1);
    assert_eq!(
        (skipped[0]["line"].as_str(), skipped[0]["reason"].as_str()),
        ("2", "wrong_format")
    );
}

#[test]
fn detection_looks_past_a_50_mb_junk_line() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots.txt",
        "User-agent: *\nDisallow: /private/\n",
    );
    let mut log = vec![b'#'.wrapping_add(1); 50 << 20];
    log.push(b'\n');
    for _ in 0..200 {
        log.extend_from_slice(combined("66.249.66.1", "GET /private/a HTTP/1.1").as_bytes());
    }
    write(dir.path(), "access.log", log);
    let out = audit(
        dir.path(),
        &["--origin", "https://www.example.com"],
        "access.log",
    );
    let inputs = read_csv(&out.join("inputs.csv"));
    assert_eq!(
        (
            inputs[0]["format"].as_str(),
            inputs[0]["parsed"].as_str(),
            inputs[0]["skipped"].as_str(),
            inputs[0]["error"].as_str()
        ),
        ("combined", "200", "1", "")
    );
    let agents = read_csv(&out.join("agents.csv"));
    assert_eq!(row(&agents, "agent", "Googlebot")["disallowed"], "200");
}

#[test]
fn caddy_behind_a_trusted_proxy_is_judged_for_the_forwarded_origin() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots/www.example.com.txt",
        "User-agent: *\nDisallow: /\n",
    );
    let line = format!(
        r#"{{"ts":1763661600,"request":{{"remote_ip":"66.249.66.1","method":"GET","host":"backend:8080","uri":"/a","headers":{{"X-Forwarded-Proto":["https"],"X-Forwarded-Host":["www.example.com"],"User-Agent":["{GOOGLEBOT}"]}}}},"status":200,"size":10}}
"#
    );
    write(dir.path(), "caddy.log", line);
    let run = |extra: &[&str]| {
        let out = dir.path().join("out");
        // A run that judges nothing may say so in its exit code: only the reports matter here.
        let _ = robots_audit()
            .current_dir(dir.path())
            .args(["audit", "-q", "--robots", "robots", "--out", "out"])
            .args(extra)
            .arg("caddy.log")
            .assert();
        read_csv(&out.join("agent_origins.csv"))
    };
    let trusted = run(&["--trust-forwarded"]);
    let googlebot = row(&trusted, "agent", "Googlebot");
    assert_eq!(googlebot["origin"], "https://www.example.com");
    assert_eq!(googlebot["disallowed"], "1");
    let untrusted = run(&[]);
    let googlebot = row(&untrusted, "agent", "Googlebot");
    assert_eq!(googlebot["origin"], "http://backend:8080");
    assert_eq!(googlebot["unjudged"], "1");
}
