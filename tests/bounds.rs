//! Bounds on what traffic can mint: self-declared bots and origins without a robots source past
//! `--kept-names` are folded, the names kept depend on the names alone, and merged reports of
//! any split equal one audit, byte for byte.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use robots_audit::audit::fold::{OTHER_AGENTS, OTHER_ORIGINS, name_hash};

use crate::common::{read_csv, robots_audit, stderr_text, write};

const KEPT: usize = 5;
const BOTS: usize = 40;
const HOSTS: usize = 30;

/// A flood: each line a distinct self-declared bot and, on most lines, a distinct virtual host
/// without a robots source; every tenth line Googlebot on the host that has one.
fn flood() -> Vec<String> {
    (0..BOTS)
        .map(|i| {
            let (host, ua) = if i % 10 == 0 {
                (
                    "kept.example".to_owned(),
                    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
                        .to_owned(),
                )
            } else {
                (
                    format!("v{}.example", i % HOSTS),
                    format!("Bot{i:07}Bot/1.0 (+http://x{i}.example/)"),
                )
            };
            let path = if i % 3 == 0 { "/private/x" } else { "/robots.txt" };
            format!(
                "{host}:80 192.0.2.{} - - [20/Nov/2026:10:{:02}:00 +0000] \"GET {path} HTTP/1.1\" 200 5 \"-\" \"{ua}\"\n",
                i % 250,
                i % 60
            )
        })
        .collect()
}

fn robots_dir(dir: &Path) -> PathBuf {
    write(
        dir,
        "robots/kept.example.txt",
        "User-agent: *\nDisallow: /private/\n",
    );
    dir.join("robots")
}

fn audit(dir: &Path, files: &[PathBuf], out: &Path, threads: usize) -> String {
    let assert = robots_audit()
        .args(["audit", "--no-html", "--kept-names", &KEPT.to_string()])
        .arg("--threads")
        .arg(threads.to_string())
        .arg("--robots")
        .arg(dir.join("robots"))
        .arg("--out")
        .arg(out)
        .args(files)
        .assert();
    // A part with no judged request (no Googlebot line) exits 3, and still writes its reports.
    let code = assert.get_output().status.code();
    assert!(matches!(code, Some(0 | 3)), "{code:?}");
    stderr_text(assert.get_output())
}

fn same_files(a: &Path, b: &Path) {
    let names = |dir: &Path| {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(a), names(b));
    for name in names(a) {
        assert!(
            fs::read(a.join(&name)).unwrap() == fs::read(b.join(&name)).unwrap(),
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

/// The `KEPT` names of `names` with the smallest hashes.
fn smallest(names: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    let mut ranked: Vec<(u64, String)> = names
        .into_iter()
        .map(|n| (name_hash(n.as_bytes()), n))
        .collect();
    ranked.sort();
    ranked.truncate(KEPT);
    ranked.into_iter().map(|(_, n)| n).collect()
}

#[test]
fn past_the_bound_the_smallest_names_are_kept_and_the_rest_folded() {
    let dir = tempfile::tempdir().unwrap();
    robots_dir(dir.path());
    let log = write(dir.path(), "logs/flood.log", flood().concat());
    let out = dir.path().join("out");
    let stderr = audit(dir.path(), &[log], &out, 2);
    let agents = read_csv(&out.join("agents.csv"));
    let names: BTreeSet<String> = agents.iter().map(|r| r["agent"].clone()).collect();
    let minted = (0..BOTS)
        .filter(|i| i % 10 != 0)
        .map(|i| format!("Bot{i:07}Bot"));
    let mut want = smallest(minted);
    want.insert("Googlebot".into());
    want.insert(OTHER_AGENTS.into());
    assert_eq!(names, want);
    let requests: u64 = agents
        .iter()
        .map(|r| r["requests"].parse::<u64>().unwrap())
        .sum();
    assert_eq!(requests, BOTS as u64, "every request counted once");
    let other = agents.iter().find(|r| r["agent"] == OTHER_AGENTS).unwrap();
    assert_eq!(other["requests"], (BOTS - BOTS / 10 - KEPT).to_string());
    let origins: BTreeSet<String> = read_csv(&out.join("agent_origins.csv"))
        .iter()
        .map(|r| r["origin"].clone())
        .collect();
    let hosts = (1..HOSTS).map(|h| format!("http://v{h}.example"));
    let mut want = smallest(hosts);
    want.insert("http://kept.example".into());
    want.insert(OTHER_ORIGINS.into());
    assert_eq!(origins, want);
    // The per-request rows name the folded bot itself, judged by its own tokens.
    let violations = fs::read_to_string(out.join("violations.csv")).unwrap();
    assert_eq!(violations.lines().count(), 1 + 2, "{violations}");
    // Kept sourceless origins and the fold row, most requested first; then the bots that
    // requested them, whose coverage is 0.
    assert!(
        stderr.contains(&format!(
            "note: no robots source for {} origins with bot requests (left unjudged): {OTHER_ORIGINS} (",
            KEPT + 1
        )) && stderr.contains(" and 3 more\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note: coverage below 1 for ") && stderr.contains("(0.0000)"),
        "{stderr}"
    );
    // Past the bound the sketch of folded names is full: the summary says "about".
    assert!(
        stderr.contains(&format!(
            "note: folded past {KEPT} names of each kind: about "
        )) && stderr.contains(&format!("self-declared bots into {OTHER_AGENTS}; about "))
            && stderr.contains(&format!(
                "origins without a robots source into {OTHER_ORIGINS}"
            )),
        "{stderr}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    /// Any order of the flood's lines, split over inputs, threads and merged reports, gives the
    /// reports (state.json included) of one audit of everything.
    #[test]
    fn any_split_of_a_flood_merges_to_one_audit(
        order in Just((0..BOTS).collect::<Vec<usize>>()).prop_shuffle(),
        cuts in proptest::collection::btree_set(1usize..BOTS, 1..4),
        reports in 1usize..4,
        threads in 1usize..3,
    ) {
        let dir = tempfile::tempdir().unwrap();
        robots_dir(dir.path());
        let lines = flood();
        let mut bounds: Vec<usize> = vec![0];
        bounds.extend(cuts);
        bounds.push(BOTS);
        let files: Vec<PathBuf> = bounds
            .windows(2)
            .enumerate()
            .map(|(f, w)| {
                let text: String = order[w[0]..w[1]].iter().map(|&i| lines[i].as_str()).collect();
                write(dir.path(), &format!("logs/part{f}.log"), text)
            })
            .collect();
        let all = dir.path().join("all");
        audit(dir.path(), &files, &all, 1);
        let per = files.len().div_ceil(reports);
        let parts: Vec<PathBuf> = files
            .chunks(per)
            .enumerate()
            .map(|(i, chunk)| {
                let out = dir.path().join(format!("report{i}"));
                audit(dir.path(), chunk, &out, threads);
                out
            })
            .collect();
        let merged = dir.path().join("merged");
        robots_audit()
            .args(["merge", "-q", "--no-html", "--out"])
            .arg(&merged)
            .args(&parts)
            .assert()
            .code(0);
        same_files(&all, &merged);
    }
}

/// `inputs.csv`'s `assumed_zone` and the summary name the inputs whose times carry no offset,
/// with the zone they were read in; an input whose times all carry one has none.
#[test]
fn inputs_read_in_an_assumed_zone_say_so() {
    let dir = tempfile::tempdir().unwrap();
    robots_dir(dir.path());
    let haproxy = write(
        dir.path(),
        "logs/haproxy.log",
        "192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 5120 - - ---- 3/3/1/1/0 0/0 {kept.example|Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)} \"GET /private/x HTTP/1.1\"\n",
    );
    let combined = write(dir.path(), "logs/flood.log", flood()[..10].concat());
    for (zone, want) in [(None, "UTC"), (Some("Europe/Paris"), "Europe/Paris")] {
        let out = dir.path().join(format!("out-{want}").replace('/', "-"));
        let mut cmd = robots_audit();
        cmd.args(["audit", "--no-html", "--robots"])
            .arg(dir.path().join("robots"))
            .arg("--out")
            .arg(&out);
        if let Some(zone) = zone {
            cmd.args(["--timezone", zone]);
        }
        let assert = cmd.arg(&haproxy).arg(&combined).assert().code(0);
        let stderr = stderr_text(assert.get_output());
        let inputs = read_csv(&out.join("inputs.csv"));
        let zones: Vec<(&str, &str)> = inputs
            .iter()
            .map(|r| (r["format"].as_str(), r["assumed_zone"].as_str()))
            .collect();
        assert_eq!(zones, [("haproxy", want), ("vhost_combined", "")]);
        assert!(
            stderr.contains(&format!(
                "note: times without an offset read in an assumed zone (--timezone): {want} for 1 input: {}",
                haproxy.display()
            )),
            "{stderr}"
        );
    }
}

/// A line of bot `i` alone (its time, address and path depend on `i`, not on the line's
/// position), to the host with a robots.txt.
fn minted_line(i: usize) -> String {
    format!(
        "kept.example:80 192.0.2.{} - - [20/Nov/2026:10:{:02}:{:02} +0000] \"GET /private/{} HTTP/1.1\" 200 5 \"-\" \"Bot{i:07}Bot/1.0 (+http://x{i}.example/)\"\n",
        i % 250,
        i % 60,
        (i / 60) % 60,
        i % 7
    )
}

/// `n` distinct bots in decreasing order of their names' hashes: each new name pushes a kept
/// one out.
fn decreasing_hash_order(n: usize) -> Vec<usize> {
    let mut bots: Vec<usize> = (0..n).collect();
    bots.sort_by_key(|&i| std::cmp::Reverse(name_hash(format!("Bot{i:07}Bot").as_bytes())));
    bots
}

/// Names in decreasing hash order push one kept name out per line, over several blocks (1 MiB
/// each) on two threads, so every thread folds retired names at the end of its blocks: the
/// counters are those of the same lines in the opposite order, where no name is pushed out.
#[test]
fn names_in_decreasing_hash_order_fold_as_in_any_other_order() {
    let dir = tempfile::tempdir().unwrap();
    robots_dir(dir.path());
    let decreasing = decreasing_hash_order(40_000);
    let text = |order: &[usize]| -> String { order.iter().map(|&i| minted_line(i)).collect() };
    let pushing = write(dir.path(), "pushing/a.log", text(&decreasing));
    let increasing: Vec<usize> = decreasing.iter().rev().copied().collect();
    let calm = write(dir.path(), "calm/a.log", text(&increasing));
    assert!(
        fs::metadata(&pushing).unwrap().len() > 4 << 20,
        "several blocks"
    );
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    audit(dir.path(), &[pushing], &a, 2);
    audit(dir.path(), &[calm], &b, 2);
    for name in [
        "agents.csv",
        "agent_origins.csv",
        "hourly.csv",
        "rules.csv",
        "unknown_agents.csv",
    ] {
        assert_eq!(
            fs::read_to_string(a.join(name)).unwrap(),
            fs::read_to_string(b.join(name)).unwrap(),
            "{name}"
        );
    }
    let agents: BTreeSet<String> = read_csv(&a.join("agents.csv"))
        .iter()
        .map(|r| r["agent"].clone())
        .collect();
    let mut want = smallest((0..40_000).map(|i| format!("Bot{i:07}Bot")));
    want.insert(OTHER_AGENTS.into());
    assert_eq!(agents, want);
}

/// Worker threads made to move their counters to the run's shared sum at the end of every
/// block (`ROBOTS_AUDIT_SHARE_COUNTERS_FROM=1`), while names in decreasing hash order push a
/// kept one out on every other line, write the reports and `state.json` of one thread that never
/// moves them, byte for byte: counters moved under a name retired since end in its fold row.
#[test]
fn counters_moved_to_the_shared_sum_add_up_as_one_thread_counts() {
    let dir = tempfile::tempdir().unwrap();
    robots_dir(dir.path());
    let googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    let text: String = decreasing_hash_order(40_000)
        .into_iter()
        .enumerate()
        .map(|(line, i)| {
            let host = if line % 5 == 0 { "kept" } else { "v" };
            let ua = if line % 2 == 0 {
                format!("Bot{i:07}Bot/1.0 (+http://x{i}.example/)")
            } else {
                googlebot.to_owned()
            };
            format!(
                "{host}{}.example:80 192.0.2.{} - - [20/Nov/2026:{:02}:{:02}:00 +0000] \"GET /private/{} HTTP/1.1\" 200 5 \"-\" \"{ua}\"\n",
                line % 400,
                line % 250,
                line % 24,
                line % 60,
                line % 7
            )
        })
        .collect();
    let log = write(dir.path(), "logs/a.log", text);
    assert!(
        fs::metadata(&log).unwrap().len() > 4 << 20,
        "several blocks"
    );
    let run = |threads: &str, share_from: Option<&str>| {
        let out = dir.path().join(format!("out-{threads}-{share_from:?}"));
        let mut command = robots_audit();
        if let Some(from) = share_from {
            command.env("ROBOTS_AUDIT_SHARE_COUNTERS_FROM", from);
        }
        let assert = command
            .args([
                "audit",
                "-q",
                "--no-html",
                "--kept-names",
                "300",
                "--threads",
            ])
            .arg(threads)
            .arg("--robots")
            .arg(dir.path().join("robots"))
            .arg("--out")
            .arg(&out)
            .arg(&log)
            .assert();
        let code = assert.get_output().status.code();
        assert!(matches!(code, Some(0 | 3)), "{code:?}");
        out
    };
    let one = run("1", None);
    for (threads, from) in [("2", "1"), ("3", "1"), ("2", "500")] {
        same_files(&one, &run(threads, Some(from)));
    }
    let agents = read_csv(&one.join("agents.csv"));
    assert!(agents.iter().any(|r| r["agent"] == OTHER_AGENTS));
    let origins = read_csv(&one.join("agent_origins.csv"));
    assert!(origins.len() > 300, "{} pairs", origins.len());
}

/// A threshold for moving counters that is not a number is refused, not ignored.
#[test]
fn a_share_threshold_that_is_no_number_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    robots_dir(dir.path());
    let log = write(dir.path(), "logs/a.log", minted_line(1));
    let output = robots_audit()
        .env("ROBOTS_AUDIT_SHARE_COUNTERS_FROM", "many")
        .args(["audit", "-q", "--robots"])
        .arg(dir.path().join("robots"))
        .arg("--out")
        .arg(dir.path().join("out"))
        .arg(&log)
        .output()
        .unwrap();
    let err = stderr_text(&output);
    assert!(!output.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("ROBOTS_AUDIT_SHARE_COUNTERS_FROM=\"many\" is not a number of entries"),
        "{err}"
    );
}

/// The peak memory of a one-million-line flood in decreasing hash order, which pushes a kept
/// name out on every line; `cargo test --test tests -- --ignored decreasing_hash_flood_memory
/// --nocapture` runs it (BENCHMARKS.md, "Names in decreasing hash order", has the numbers).
#[test]
#[ignore = "writes 120 MB and audits a million distinct bots; run by hand to measure"]
fn decreasing_hash_flood_memory() {
    use nix::sys::resource::{UsageWho, getrusage};
    let dir = tempfile::tempdir().unwrap();
    robots_dir(dir.path());
    let log = dir.path().join("flood.log");
    let mut text = String::new();
    for i in decreasing_hash_order(1_000_000) {
        text.push_str(&minted_line(i));
    }
    fs::write(&log, text).unwrap();
    let out = dir.path().join("out");
    robots_audit()
        .args(["audit", "-q", "--threads", "2", "--robots"])
        .arg(dir.path().join("robots"))
        .arg("--out")
        .arg(&out)
        .arg(&log)
        .assert()
        .success();
    // The largest child this test process waited for: the audit.
    let peak_kib = getrusage(UsageWho::RUSAGE_CHILDREN).unwrap().max_rss();
    println!("peak resident memory: {peak_kib} KiB");
    assert!(peak_kib < 512 * 1024, "{peak_kib} KiB");
    assert!(fs::metadata(out.join("report.html")).unwrap().len() < 5 << 20);
}
