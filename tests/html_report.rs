//! `report.html` opened in a real browser (headless Chromium): it renders without a script
//! error, the screenshot is not blank, every bot of `agents.csv` is in the rendered page and the
//! headline totals equal the sums of `agents.csv`.
//!
//! Needs Chromium (Debian's `chromium` package; the README's test command installs it). Plain
//! `cargo test` without it skips these tests with a printed reason; with
//! `ROBOTS_AUDIT_REQUIRE_BROWSER=1` (set by the README's test command) a missing browser fails.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The browser to drive, or `None` (with the reason printed) when there is none.
fn browser() -> Option<PathBuf> {
    let candidates = std::env::var_os("ROBOTS_AUDIT_CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            ["chromium", "chromium-browser", "google-chrome"]
                .iter()
                .filter_map(|name| which(name)),
        );
    if let Some(found) = candidates.into_iter().find(|p| p.is_file()) {
        return Some(found);
    }
    let reason =
        "no Chromium found (install Debian's chromium package or set ROBOTS_AUDIT_CHROMIUM)";
    if std::env::var_os("ROBOTS_AUDIT_REQUIRE_BROWSER").is_some() {
        panic!("{reason}, and ROBOTS_AUDIT_REQUIRE_BROWSER is set");
    }
    eprintln!("SKIPPED: {reason}");
    None
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Runs the browser headless on `page` with `args`; returns its standard output and error.
/// Killed after a minute: a test never hangs on the browser. Its output goes to files, not
/// pipes: a DOM larger than a pipe's buffer would block the browser until the deadline.
fn headless(browser: &Path, profile: &Path, args: &[String], page: &Path) -> (String, String) {
    std::fs::create_dir_all(profile).expect("create the browser profile");
    let (stdout, stderr) = (profile.join("stdout.txt"), profile.join("stderr.txt"));
    let file = |path: &Path| std::fs::File::create(path).expect("create a browser output file");
    let mut child = Command::new(browser)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-extensions",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(file(&stdout))
        .stderr(file(&stderr))
        .spawn()
        .expect("start the browser");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("wait for the browser").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the browser did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let read = |path: &Path| {
        String::from_utf8_lossy(&std::fs::read(path).expect("read the browser output")).into_owned()
    };
    (read(&stdout), read(&stderr))
}

/// The text of the element carrying `attribute` in the rendered DOM.
fn text_of<'a>(dom: &'a str, attribute: &str) -> &'a str {
    let at = dom
        .find(attribute)
        .unwrap_or_else(|| panic!("{attribute} not in the page"));
    let rest = &dom[at..];
    let start = rest.find("class=\"value\">").expect("a value") + "class=\"value\">".len();
    let end = rest[start..].find('<').expect("end of the value");
    &rest[start..start + end]
}

#[test]
fn the_sample_nights_page_renders_in_a_browser_with_the_csvs_numbers() {
    let Some(browser) = browser() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    sample_night_audit()
        .arg("--out")
        .arg(&out)
        .arg("sample-data/logs")
        .assert()
        .success();
    let page = out.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    for remote in ["http://", "https://"] {
        for attribute in ["src=\"", "href=\""] {
            assert!(
                !html.contains(&format!("{attribute}{remote}")),
                "the page loads something from the network: {attribute}{remote}"
            );
        }
    }

    let profile = dir.path().join("profile");
    let (dom, log) = headless(&browser, &profile, &["--dump-dom".into()], &page);
    assert!(
        dom.contains("data-ready=\"yes\""),
        "the page's script did not run to its end:\n{log}"
    );
    for line in log.lines() {
        assert!(
            !(line.contains("CONSOLE") && (line.contains("Uncaught") || line.contains("Error"))),
            "console error: {line}"
        );
    }
    for chart in ["violations per hour (UTC)", "requests per hour (UTC)"] {
        assert!(dom.contains(chart), "the timeline has no {chart} chart");
    }
    let agents = read_csv(&out.join("agents.csv"));
    assert!(!agents.is_empty());
    for row in &agents {
        let marker = format!("data-agent=\"{}\"", row["agent"]);
        assert!(dom.contains(&marker), "{} is not in the page", row["agent"]);
    }
    let sum = |column: &str| -> u64 {
        agents
            .iter()
            .map(|r| r[column].parse::<u64>().unwrap())
            .sum()
    };
    for column in ["requests", "judged", "disallowed", "spoofed"] {
        let shown = text_of(&dom, &format!("data-total=\"{column}\""));
        assert_eq!(shown, sum(column).to_string(), "headline {column}");
    }
    assert_eq!(
        text_of(&dom, "data-total=\"bots\""),
        agents.len().to_string()
    );

    let shot = dir.path().join("page.png");
    headless(
        &browser,
        &profile,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1200,1600".into(),
            "--hide-scrollbars".into(),
        ],
        &page,
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    let channels = frame.color_type.samples();
    let pixels = &pixels[..frame.buffer_size()];
    let first = &pixels[..channels];
    let differing = pixels
        .chunks(channels)
        .filter(|pixel| *pixel != first)
        .count();
    let total = pixels.len() / channels;
    assert!(
        differing * 50 > total,
        "the screenshot is blank: {differing} of {total} pixels differ from the first"
    );
}

/// The text of cell `column` in the row carrying `row_attribute` in the rendered DOM.
fn cell<'a>(dom: &'a str, row_attribute: &str, column: &str) -> &'a str {
    let at = dom
        .find(row_attribute)
        .unwrap_or_else(|| panic!("{row_attribute} not in the page"));
    let row = &dom[at..at + dom[at..].find("</tr>").expect("end of the row")];
    let marker = format!("data-col=\"{column}\">");
    let start = row
        .find(&marker)
        .unwrap_or_else(|| panic!("{column} not in {row_attribute}"))
        + marker.len();
    let end = row[start..].find('<').expect("end of the cell");
    &row[start..start + end]
}

/// A night with crawl delays and usage preferences: the page's crawl-rate and preference
/// sections show the numbers of crawl_rate.csv and agent_origins.csv, and the headline's
/// conflict total is the sum of agents.csv.
#[test]
fn crawl_rate_and_preference_sections_show_the_csvs_numbers() {
    let Some(browser) = browser() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "robots/a.example.txt",
        "User-agent: bingbot\nCrawl-delay: 10\n\nUser-agent: *\nCrawl-delay: 4\n\
         Content-Signal: search=yes, ai-train=no\n",
    );
    let ua_bing = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    let ua_claude = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)";
    let mut log = String::new();
    for (second, ua) in [
        (0, ua_bing),
        (3, ua_bing),
        (4, ua_bing),
        (30, ua_bing),
        (0, ua_claude),
        (1, ua_claude),
        (9, ua_claude),
    ] {
        log.push_str(&format!(
            "a.example:443 192.0.2.1 - - [01/Jan/2026:10:00:{second:02} +0000] \"GET /p{second} HTTP/1.1\" 200 5 \"-\" \"{ua}\"\n"
        ));
    }
    write(d, "night.log", log);
    robots_audit()
        .current_dir(d)
        .args([
            "audit",
            "-q",
            "--robots",
            "robots",
            "--out",
            "out",
            "night.log",
        ])
        .assert()
        .success();
    let out = d.join("out");
    let profile = d.join("profile");
    let (dom, log) = headless(
        &browser,
        &profile,
        &["--dump-dom".into()],
        &out.join("report.html"),
    );
    assert!(dom.contains("data-ready=\"yes\""), "{log}");

    let rates = read_csv(&out.join("crawl_rate.csv"));
    assert_eq!(rates.len(), 2);
    for r in &rates {
        let key = format!(
            "data-rate=\"{}|{}|{}\"",
            r["agent"], r["origin"], r["crawl_delay"]
        );
        for column in [
            "early_requests",
            "requests",
            "early_rate",
            "honours_crawl_delay",
        ] {
            assert_eq!(cell(&dom, &key, column), r[column], "{key} {column}");
        }
    }
    assert_eq!(row(&rates, "agent", "Bingbot")["early_requests"], "2");

    let pairs = read_csv(&out.join("agent_origins.csv"));
    let claude = row(&pairs, "agent", "ClaudeBot");
    assert_eq!(claude["preference_conflicts"], "3");
    let key = format!("data-conflicts=\"ClaudeBot|{}\"", claude["origin"]);
    assert_eq!(cell(&dom, &key, "preference_conflicts"), "3");
    assert!(!dom.contains("data-conflicts=\"Bingbot|"));
    let agents = read_csv(&out.join("agents.csv"));
    let total: u64 = agents
        .iter()
        .map(|r| r["preference_conflicts"].parse::<u64>().unwrap())
        .sum();
    assert_eq!(
        text_of(&dom, "data-total=\"preference_conflicts\""),
        total.to_string()
    );
}
