//! `report.html` opened in a real browser (headless Chromium): it renders without a script
//! error, the screenshot is not blank, its numbers equal the CSVs' (the bot table, the matrix,
//! the rules, the data-quality section), no table runs past the right edge at 1,400 px, strangers'
//! text is escaped, every table is capped and says so, the time axis names the year across one,
//! and the page of a merged directory is the page of one audit.
//!
//! Needs Chromium (Debian's `chromium` package; the README's test command installs it). Plain
//! `cargo test` without it skips these tests with a printed reason; with
//! `ROBOTS_AUDIT_REQUIRE_BROWSER=1` (set by the README's test command) a missing browser fails.

use crate::common::*;
use std::collections::{BTreeMap, BTreeSet};
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
    let marker = format!("data-col=\"{column}\"");
    let at = row
        .find(&marker)
        .unwrap_or_else(|| panic!("{column} not in {row_attribute}"));
    let start = at + row[at..].find('>').expect("end of the tag") + 1;
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
    audit_log(d, "night.log", &[]).success();
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

/// The rows of the table `id` in the rendered DOM: each row's key (the value of `attribute`) and
/// its cells by column; none when the page has no such table (a table without rows is not
/// drawn).
fn table_rows(dom: &str, id: &str, attribute: &str) -> Vec<(String, BTreeMap<String, String>)> {
    let Some(start) = dom.find(&format!("id=\"{id}\"")) else {
        return Vec::new();
    };
    let table = &dom[start..start + dom[start..].find("</table>").expect("end of the table")];
    let marker = format!("<tr {attribute}=\"");
    table
        .split(&marker)
        .skip(1)
        .map(|row| {
            let key = &row[..row.find('"').expect("end of the key")];
            let mut cells = BTreeMap::new();
            for cell in row.split("data-col=\"").skip(1) {
                let column = &cell[..cell.find('"').expect("end of the column")];
                let text = &cell[cell.find('>').expect("end of the tag") + 1..];
                let text = &text[..text.find('<').expect("end of the cell")];
                cells.insert(unescape(column), unescape(text));
            }
            (unescape(key), cells)
        })
        .collect()
}

/// Text of the serialised DOM, or of a chart's SVG, as the CSVs write it.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// Compares the cells of the page's table `id` with the CSV rows they show, found by `key`.
fn assert_same_numbers(
    dom: &str,
    (id, attribute): (&str, &str),
    csv: &[BTreeMap<String, String>],
    key: impl Fn(&BTreeMap<String, String>) -> String,
) -> usize {
    let rows = table_rows(dom, id, attribute);
    for (row_key, cells) in &rows {
        let csv_row = csv
            .iter()
            .find(|r| key(r) == *row_key)
            .unwrap_or_else(|| panic!("{id}: {row_key} is not in the CSV"));
        for (column, text) in cells {
            if let Some(value) = csv_row.get(column) {
                assert_eq!(text, value, "{id}: {row_key} {column}");
            }
        }
    }
    rows.len()
}

/// Runs the browser on `page` at 1,400 px with a script appended that records the page's width,
/// whether each table scrolls inside its box, and the texts of the charts that run out of their
/// chart (as `text: left..right of width`); returns the DOM.
fn measured_dom(browser: &Path, profile: &Path, page: &Path) -> String {
    let measured = page.with_file_name("measured.html");
    let html = std::fs::read_to_string(page).unwrap();
    let probe = "<script>document.body.dataset.width = \
        document.documentElement.scrollWidth + \"/\" + window.innerWidth;\
        document.body.dataset.tables = Array.from(document.querySelectorAll(\"table\"))\
        .map((t) => getComputedStyle(t.parentElement).overflowX).join(\",\");\
        const outside = [];\
        for (const svg of document.querySelectorAll(\"svg\")) {\
          const chart = svg.getBoundingClientRect();\
          for (const text of svg.querySelectorAll(\"text\")) {\
            const box = text.getBoundingClientRect();\
            if (box.left < chart.left || box.right > chart.right) {\
              outside.push(text.textContent.trim() + \": \" + (box.left - chart.left) + \"..\" \
                + (box.right - chart.left) + \" of \" + chart.width);\
            }\
          }\
        }\
        document.body.dataset.outside = outside.join(\" | \");\
        document.body.dataset.charts = document.querySelectorAll(\"svg\").length;</script></body>";
    std::fs::write(&measured, html.replace("</body>", probe)).unwrap();
    let (dom, log) = headless(
        browser,
        profile,
        &["--dump-dom".into(), "--window-size=1400,1000".into()],
        &measured,
    );
    assert!(dom.contains("data-ready=\"yes\""), "{log}");
    dom
}

/// The value of `attribute` on the body of the DOM.
fn body_attribute<'a>(dom: &'a str, attribute: &str) -> &'a str {
    let marker = format!("{attribute}=\"");
    let start = dom
        .find(&marker)
        .unwrap_or_else(|| panic!("no {attribute} in the page"))
        + marker.len();
    &dom[start..start + dom[start..].find('"').unwrap()]
}

/// No table runs past the right edge at 1,400 px: the page is no wider than the window, and every
/// table sits in a box that scrolls; no text of a chart runs out of it.
fn assert_fits(dom: &str) {
    assert_ne!(body_attribute(dom, "data-charts"), "0", "no chart measured");
    let outside = body_attribute(dom, "data-outside");
    assert!(
        outside.is_empty(),
        "texts run out of their chart: {outside}"
    );
    let (width, window) = body_attribute(dom, "data-width")
        .split_once('/')
        .expect("width/window");
    let (width, window): (u32, u32) = (width.parse().unwrap(), window.parse().unwrap());
    assert_eq!(window, 1400);
    assert!(
        width <= window,
        "the page is {width} px wide at {window} px"
    );
    let overflows = body_attribute(dom, "data-tables");
    assert!(!overflows.is_empty(), "no table measured");
    for overflow in overflows.split(',') {
        assert_eq!(
            overflow, "auto",
            "a table's box does not scroll: {overflows}"
        );
    }
}

/// The sample night: every number of the page equals the CSVs' (item by item: the headline, the
/// bot table, the matrix, the rules, the inputs, the skipped lines by reason, the unknown agents),
/// and the page fits 1,400 px.
#[test]
fn the_sample_nights_page_shows_the_csvs_numbers_and_fits_the_window() {
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
    let dom = measured_dom(&browser, &dir.path().join("profile"), &page);
    assert_fits(&dom);

    let csv = |name: &str| read_csv(&out.join(name));
    let column = |r: &BTreeMap<String, String>, c: &str| r[c].clone();
    let agents = csv("agents.csv");
    let shown = assert_same_numbers(&dom, ("bot-table", "data-agent"), &agents, |r| {
        column(r, "agent")
    });
    assert_eq!(shown, agents.len());

    let pairs = csv("agent_origins.csv");
    let matrix = table_rows(&dom, "matrix-table", "data-origin");
    assert!(!matrix.is_empty());
    for (origin, cells) in &matrix {
        for (agent, rate) in cells {
            let pair = pairs
                .iter()
                .find(|r| r["origin"] == *origin && r["agent"] == *agent);
            match pair {
                Some(pair) if pair["violation_rate"].is_empty() => assert_eq!(rate, "-"),
                Some(pair) => assert_eq!(*rate, pair["violation_rate"], "{origin} {agent}"),
                None => assert_eq!(rate, "", "{origin} {agent}"),
            }
        }
    }

    let rules: Vec<_> = csv("rules.csv")
        .into_iter()
        .filter(|r| r["violations"] != "0")
        .collect();
    // The origin is spelled as the requests' (rules.csv names a host-wide source by its host).
    let keyed: Vec<_> = rules
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let origin = r.remove("origin").unwrap();
            let key = format!("{origin}|{}|{}", r["robots_version"], r["line"]);
            r.insert("key".into(), key);
            r
        })
        .collect();
    let shown = assert_same_numbers(&dom, ("rules-table", "data-rule"), &keyed, |r| {
        r["key"].clone()
    });
    assert_eq!(shown, rules.len().min(50));
    let origins: BTreeSet<&str> = pairs.iter().map(|r| r["origin"].as_str()).collect();
    for (_, cells) in table_rows(&dom, "rules-table", "data-rule") {
        for origin in cells["origin"].split(' ') {
            assert!(
                origins.contains(origin),
                "{origin} is not an origin of agent_origins.csv"
            );
        }
    }

    let inputs = csv("inputs.csv");
    let shown = assert_same_numbers(&dom, ("inputs-table", "data-input"), &inputs, |r| {
        column(r, "file")
    });
    assert_eq!(shown, inputs.len());
    let total = |rows: &[BTreeMap<String, String>], c: &str| -> u64 {
        rows.iter().map(|r| r[c].parse::<u64>().unwrap()).sum()
    };
    for (key, c) in [
        ("lines", "lines"),
        ("skipped", "skipped"),
        ("other_requests", "other_requests"),
    ] {
        let figure = text_of(&dom, &format!("data-total=\"{key}\""));
        assert_eq!(figure, total(&inputs, c).to_string(), "data quality: {key}");
    }
    assert_eq!(
        text_of(&dom, "data-total=\"unjudged\""),
        total(&agents, "unjudged").to_string()
    );

    // Fewer than 100 skipped lines per input: skipped_lines.csv has every one of them.
    let samples = csv("skipped_lines.csv");
    let reasons = table_rows(&dom, "reasons-table", "data-reason");
    assert!(!reasons.is_empty());
    for (reason, cells) in &reasons {
        let lines = samples.iter().filter(|s| s["reason"] == *reason).count();
        assert_eq!(cells["lines"], lines.to_string(), "skipped for {reason}");
    }
    let counted: usize = reasons
        .iter()
        .map(|r| r.1["lines"].parse::<usize>().unwrap())
        .sum();
    assert_eq!(counted as u64, total(&inputs, "skipped"));

    let unknown = csv("unknown_agents.csv");
    let shown = assert_same_numbers(&dom, ("unknown-table", "data-unknown"), &unknown, |r| {
        column(r, "user_agent")
    });
    assert_eq!(shown, unknown.len().min(20));
    assert_eq!(
        text_of(&dom, "data-total=\"unknown_agents\""),
        unknown.len().to_string()
    );
    let fetchers: Vec<_> = unknown
        .iter()
        .filter(|r| r["robots_fetches"] != "0")
        .cloned()
        .collect();
    let shown = assert_same_numbers(&dom, ("fetchers-table", "data-fetcher"), &fetchers, |r| {
        column(r, "user_agent")
    });
    assert_eq!(shown, fetchers.len());
    assert_eq!(
        text_of(&dom, "data-total=\"unknown_robots_fetchers\""),
        fetchers.len().to_string()
    );
    let assumed = inputs
        .iter()
        .filter(|r| !r["assumed_zone"].is_empty())
        .count();
    assert_eq!(
        text_of(&dom, "data-total=\"assumed_zone\""),
        assumed.to_string()
    );
    for key in ["folded_agents", "folded_origins"] {
        assert_eq!(text_of(&dom, &format!("data-total=\"{key}\"")), "0");
    }
}

/// A user-agent, a path, a host and a robots.txt rule holding markup, quotes, `&`, a NUL and
/// invalid UTF-8: the page shows them as text (its only script element is its own), the NUL
/// visible, the invalid byte replaced; in a browser the cells read as the CSVs write them.
#[test]
fn strangers_text_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nasty: &[u8] = b"<script>alert(\"x\")</script>&'\x00\xff";
    let line = |host: &[u8], path: &[u8], agent: &[u8]| {
        [
            host,
            b":80 192.0.2.1 - - [01/Jan/2026:10:00:00 +0000] \"GET ",
            path,
            b" HTTP/1.1\" 200 5 \"-\" \"",
            agent,
            b"\"\n",
        ]
        .concat()
    };
    let bing = b"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    let browser_agent = [&b"Mozilla/5.0 "[..], nasty].concat();
    let nasty_path = [&b"/p"[..], nasty].concat();
    let log = [
        line(b"shop.example", &nasty_path, bing),
        line(b"shop.example", &nasty_path, &browser_agent),
        line(nasty, b"/", bing),
    ]
    .concat();
    write(d, "night.log", &log);
    write(
        d,
        "robots/shop.example.txt",
        [&b"User-agent: *\nDisallow: /p<script>alert(\"x\")</script>&'\n"[..]].concat(),
    );
    robots_audit()
        .current_dir(d)
        .args([
            "audit",
            "-q",
            "--robots",
            "robots",
            "--format",
            "vhost_combined",
        ])
        .args(["--out", "out", "night.log"])
        .assert()
        .success();
    let out = d.join("out");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(
        html.matches("<script").count(),
        1,
        "a script element from the log"
    );
    assert!(
        !html.contains("alert(\"x\")</"),
        "unescaped text from the log"
    );
    assert!(!html.contains('\0'), "a NUL byte in the page");
    // In the user-agent and path of the unknown agents, the host of the skipped line, the rule.
    let escaped = "&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;";
    let shown = format!("{escaped}\\x00\u{FFFD}");
    for (what, text) in [
        ("user-agent", format!("Mozilla/5.0 {shown}")),
        ("path", format!("/p{shown}")),
        ("host", format!("{shown}:80 192.0.2.1")),
        ("rule", format!("Disallow: /p{escaped}<")),
    ] {
        assert!(
            html.contains(&text),
            "the {what} is not shown as text: {text}"
        );
    }

    let Some(browser) = browser() else {
        return;
    };
    let (dom, log) = headless(
        &browser,
        &d.join("profile"),
        &["--dump-dom".into()],
        &out.join("report.html"),
    );
    assert!(dom.contains("data-ready=\"yes\""), "{log}");
    let unknown = read_csv(&out.join("unknown_agents.csv"));
    let rows = table_rows(&dom, "unknown-table", "data-unknown");
    assert_eq!(rows.len(), 1);
    for column in ["user_agent", "sample_path"] {
        // The CSV cell, less the spreadsheet rule's leading quote, is the page's text.
        assert_eq!(rows[0].1[column], unknown[0][column], "{column}");
    }
}

/// Bots named with 200 characters, the widest Latin letters, CJK, emoji, bidirectional controls
/// and markup: each bar of the charts is labelled with the start of its name, cut to fit and
/// marked `…` (the whole label inside its chart, where it ran out of its left edge and showed
/// only the name's end), and the timeline's legend wraps inside the page at 1,400 px, where it
/// ran past the right edge.
#[test]
fn long_names_stay_inside_the_charts_and_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Each name, and its start as a label shows it (markup as text, a control escaped).
    let named: [(String, String); 7] = [
        ("W".repeat(200), "WWWWWWWWWW".into()),
        ("m".repeat(120), "mmmmmmmmmm".into()),
        ("\u{5bbd}".repeat(100), "\u{5bbd}\u{5bbd}\u{5bbd}".into()),
        ("\u{1f600}".repeat(80), "\u{1f600}\u{1f600}\u{1f600}".into()),
        (
            format!("{}x", "\u{202e}".repeat(60)),
            r"\u{202e}\u{202e}".into(),
        ),
        ("&<>\"'".repeat(30), "&<>\"'&<>\"'".into()),
        ("Ш".repeat(120), "ШШШШШШШШШШ".into()),
    ];
    let bots: Vec<serde_json::Value> = named
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            serde_json::json!({"name": name, "category": "other", "tokens": [format!("probe{i}")],
                "patterns": [format!("Probe{i}X")]})
        })
        .collect();
    write(
        d,
        "catalog.json",
        serde_json::json!({ "bots": bots }).to_string(),
    );
    let mut log = String::new();
    let minted = format!(
        "Mozilla/5.0 (compatible; {}Bot/1.0; +http://w.example/)",
        "M".repeat(150)
    );
    let agents = (0..named.len()).map(|i| format!("Probe{i}X/1.0"));
    for agent in agents.chain([minted]) {
        log.push_str(&format!(
            "a.example:443 192.0.2.1 - - [01/Jan/2026:10:00:00 +0000] \"GET /p HTTP/1.1\" 200 5 \
             \"-\" \"{agent}\"\n"
        ));
    }
    write(d, "night.log", log);
    write(d, "robots/a.example.txt", "User-agent: *\nDisallow: /p\n");
    audit_log(d, "night.log", &["--bots=catalog.json".into()]).success();
    let page = d.join("out/report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let section = |id: &str| &html[html.find(&format!("<section id=\"{id}\"")).expect(id)..];
    let charts = section("bot-charts");
    let charts = &charts[..charts.find("</section>").unwrap()];
    let labels: Vec<String> = charts
        .split("</text>")
        .filter_map(|text| text.rsplit_once('>'))
        .map(|(_, label)| unescape(label.trim()))
        .collect();
    let starts = named.iter().map(|(_, start)| start.as_str());
    for start in starts.chain(["MMMMMMMMMM"]) {
        let cut = labels
            .iter()
            .filter(|label| label.starts_with(start) && label.ends_with('…'))
            .count();
        assert_eq!(cut, 2, "labels starting {start:?} and cut, of {labels:?}");
    }

    let Some(browser) = browser() else {
        return;
    };
    assert_fits(&measured_dom(&browser, &d.join("profile"), &page));
}

/// Audits a log of `bots` distinct self-declared bots, each on its own virtual host, keeping
/// `kept` names of each kind, and returns the page.
fn flood(dir: &Path, bots: usize, kept: usize) -> String {
    let mut log = String::new();
    for i in 0..bots {
        log.push_str(&format!(
            "h{i}.example:80 192.0.2.1 - - [01/Jan/2026:10:00:00 +0000] \"GET /p HTTP/1.1\" \
             200 5 \"-\" \"Bot{i:07}Bot/1.0 (+http://x{i}.example/)\"\n"
        ));
    }
    write(dir, "flood.log", log);
    write(
        dir,
        "robots/h0.example.txt",
        "User-agent: *\nDisallow: /p\n",
    );
    audit_log(dir, "flood.log", &[format!("--kept-names={kept}")])
        .code(predicates::prelude::predicate::in_iter([0, 3]));
    std::fs::read_to_string(dir.join("out/report.html")).unwrap()
}

/// A flood of distinct self-declared bots, each on a host of its own, past the names a run keeps
/// (1,000 here, for speed; 10,000 by default): every table shows its cap and says "of M", the
/// page says what was folded, and its size does not grow with the flood.
#[test]
fn every_table_is_capped_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let page = flood(dir.path(), 1_300, 1_000);
    let rows = page.matches("<tr data-agent=").count();
    assert_eq!(rows, 100, "bot table rows");
    // 1,000 kept, the fold row, and none of the others.
    let note = "Top 100 of 1001 bots, by violations, then requests.";
    assert!(page.contains(note), "no {note:?}");
    // h0.example has a robots source, so it is never folded.
    assert!(page.contains("Top 30 of 1002 origins, by requests."));
    assert!(page.contains("Top 20 of 1001 origins with unjudged requests"));
    let figure = |key: &str| {
        let at = page.find(&format!("data-total=\"{key}\"")).expect(key);
        let start = at + page[at..].find("class=\"value\">").unwrap() + "class=\"value\">".len();
        page[start..start + page[start..].find('<').unwrap()].to_owned()
    };
    assert_eq!(figure("folded_agents"), "300");
    assert_eq!(figure("folded_origins"), "299");
    assert!(page.contains(
        "300 self-declared bots folded: counted in the row (other self-declared bots), past the \
         1000 kept."
    ));
    assert!(
        page.contains("<ul id=\"capped\">"),
        "the data-quality section lists no cap"
    );
    assert!(
        page.contains("<li>Per hour: Top 8 of 1001 bots, by violations, then requests.</li>"),
        "the timeline's cap is not listed"
    );
    // A row costs some hundreds of bytes: with every table capped the page does not grow with
    // the flood (a million bots would give the same page as these).
    assert!(page.len() < 1_000_000, "the page is {} bytes", page.len());
}

/// Audits the log `log` in `dir` against the robots sources of `dir/robots` into `dir/out`,
/// with `extra` options.
fn audit_log(dir: &Path, log: &str, extra: &[String]) -> assert_cmd::assert::Assert {
    robots_audit()
        .current_dir(dir)
        .args(["audit", "-q", "--robots", "robots", "--out", "out", log])
        .args(extra)
        .assert()
}

/// Audits `log` as `night.log` of `a.example`, whose robots.txt disallows `/p`, into `out` in
/// `dir`; returns its `report.html`.
fn audit_night(dir: &Path, log: &str) -> String {
    write(dir, "night.log", log);
    write(dir, "robots/a.example.txt", "User-agent: *\nDisallow: /p\n");
    audit_log(dir, "night.log", &[]).code(predicates::prelude::predicate::in_iter([0, 3]));
    std::fs::read_to_string(dir.join("out/report.html")).unwrap()
}

/// A night across New Year: the time axis names the year.
#[test]
fn a_night_across_new_year_names_the_years_on_the_time_axis() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ua = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    let mut log = String::new();
    for (day, hour) in [
        ("31/Dec/2025", 22),
        ("31/Dec/2025", 23),
        ("01/Jan/2026", 0),
        ("01/Jan/2026", 3),
    ] {
        log.push_str(&format!(
            "a.example:443 192.0.2.1 - - [{day}:{hour:02}:10:00 +0000] \"GET /p HTTP/1.1\" 200 5 \"-\" \"{ua}\"\n"
        ));
    }
    let page = audit_night(d, &log);
    for label in ["2025-12-31 ", "2026-01-01 "] {
        assert!(page.contains(label), "no axis label {label}");
    }
}

/// A night within one hour: each bot drawn on the timeline is a dot on both charts (a line
/// through one point draws nothing, and the charts were empty); over two hours, lines.
#[test]
fn a_night_within_one_hour_draws_each_bot_as_a_dot() {
    let ua = |bot: &str| format!("Mozilla/5.0 (compatible; {bot}/1.0; +http://{bot}.example/)");
    let line = |hour: u32, bot: &str| {
        format!(
            "a.example:443 192.0.2.1 - - [01/Jan/2026:{hour:02}:10:00 +0000] \"GET /p HTTP/1.1\" \
             200 5 \"-\" \"{}\"\n",
            ua(bot)
        )
    };
    for (hours, dots) in [(&[10][..], 4), (&[10, 11][..], 0)] {
        let dir = tempfile::tempdir().unwrap();
        let log: String = hours
            .iter()
            .flat_map(|&hour| ["OneBot", "TwoBot"].map(|bot| line(hour, bot)))
            .collect();
        let page = audit_night(dir.path(), &log);
        let timeline = &page[page.find("<section id=\"timeline\"").unwrap()..];
        let timeline = &timeline[..timeline.find("</section>").unwrap()];
        assert_eq!(timeline.matches("<circle").count(), dots, "hours {hours:?}");
    }
}

/// A log line dated 1971 and one dated 9999 beside tonight's: the timeline is drawn in steps
/// of days, as many points as a night's, where it drew every hour in between (a page of over a
/// gigabyte for one bot). `hourly.csv` still has each hour.
#[test]
fn a_period_of_millennia_is_drawn_in_as_many_points_as_a_night() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ua = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    let mut log: String = ["01/Jan/1971", "21/Nov/2026", "21/Nov/9999"]
        .iter()
        .map(|day| {
            format!(
                "a.example:443 192.0.2.1 - - [{day}:00:10:00 +0000] \"GET /p HTTP/1.1\" 200 5 \"-\" \"{ua}\"\n"
            )
        })
        .collect();
    // Nine more bots tonight: the timeline draws eight, and the page says so under its step.
    for i in 0..9 {
        log.push_str(&format!(
            "a.example:443 192.0.2.1 - - [21/Nov/2026:01:10:00 +0000] \"GET /q HTTP/1.1\" 200 5 \
             \"-\" \"Bot{i:07}Bot/1.0 (+http://x{i}.example/)\"\n"
        ));
    }
    let page = audit_night(d, &log);
    assert!(page.len() < 1_000_000, "the page is {} bytes", page.len());
    for text in [
        "Requests and violations per 2933 days",
        "violations per 2933 days (UTC)",
        "requests per 2933 days (UTC)",
        "1970-01-01 ",
        "9955-07-25 ",
        "<li>Per 2933 days: Top 8 of 10 bots, by violations, then requests.</li>",
    ] {
        assert!(page.contains(text), "the page does not say {text:?}");
    }
    let hourly = read_csv(&d.join("out/hourly.csv"));
    assert_eq!(hourly.len(), 12, "{hourly:?}");
}

/// The page of a merged directory is the page of one audit of everything.
#[test]
fn the_page_of_a_merge_is_the_page_of_one_audit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let logs = [
        "sample-data/logs/shop-access.log.gz",
        "sample-data/logs/vhost-2026-11-20.log.gz",
        "sample-data/logs/vhost-2026-11-21.log.gz",
    ];
    let audit = |out: &Path, logs: &[&str]| {
        sample_night_audit()
            .arg("--out")
            .arg(out)
            .args(logs)
            .assert()
            .success();
    };
    // Two crawlers the catalog does not know, fetching robots.txt in both halves.
    let mut unknown = String::new();
    for agent in ["ltx71 - (http://ltx71.com/)", "HonesoSearchEngine/1.0"] {
        for minute in [10, 20] {
            unknown.push_str(&format!(
                "203.0.113.9 - - [20/Nov/2026:20:{minute}:00 +0000] \"GET /robots.txt HTTP/1.1\" 200 10 \"-\" \"{agent}\"\n"
            ));
        }
    }
    let extra = write(d, "unknown.log", unknown);
    let extra = extra.to_str().unwrap();
    let (all, first, second, merged) = (d.join("all"), d.join("a"), d.join("b"), d.join("m"));
    audit(&all, &[logs[0], logs[1], logs[2], extra]);
    audit(&first, &[logs[0], extra]);
    audit(&second, &logs[1..]);
    robots_audit()
        .args(["merge", "-q", "--out"])
        .arg(&merged)
        .arg(&first)
        .arg(&second)
        .assert()
        .success();
    let page = |dir: &Path| std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        page(&all) == page(&merged),
        "the merged page differs from the audit's"
    );
}
