//! What strangers write, shown to a person: the summary and notes on standard error, `check`
//! and `explain` on standard output, warnings and errors, and the page's tables. No byte of a
//! log line, a robots.txt or a report directory's `state.json` acts on the terminal (an
//! escape, a bell, a line feed that starts a line of its own) or makes a table unbounded.

use std::path::Path;

use crate::common::*;

/// A `vhost_combined` line of a self-declared bot whose product token is `token`, asking for
/// `/p` of `a.example`.
fn bot_line(token: &str) -> String {
    format!(
        "a.example:443 192.0.2.1 - - [20/Nov/2026:18:00:01 +0000] \"GET /p HTTP/1.1\" 200 5 \
         \"-\" \"{token}/1.0 (+http://x.example/)\"\n"
    )
}

/// Audits `night.log` of `dir` against a robots.txt that disallows `/p`, into `out`.
fn audit(dir: &Path, extra: &[&str]) -> std::process::Output {
    write(dir, "robots/a.example.txt", "User-agent: *\nDisallow: /p\n");
    robots_audit()
        .current_dir(dir)
        .args(["audit", "--robots", "robots", "--out", "out"])
        .args(extra)
        .arg("night.log")
        .output()
        .unwrap()
}

/// The characters of `bytes` a terminal acts on, but the line feeds that end lines and the
/// `separators` of fields: C0 controls, DEL, C1 controls (in UTF-8, `\xc2` then `\x80` to
/// `\x9f`), and the characters that reorder or break a line: bidirectional controls (U+202E
/// shows what follows it backwards) and the line and paragraph separators.
fn controls(bytes: &[u8], separators: &[char]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    // Written out as ranges of code points, apart from the tool's own list (src/shown.rs), so
    // that a character missing there is caught here.
    const ACTING: [(u32, u32); 7] = [
        (0x00, 0x1f),
        (0x7f, 0x9f),
        (0x61c, 0x61c),
        (0x200e, 0x200f),
        (0x2028, 0x2029),
        (0x202a, 0x202e),
        (0x2066, 0x2069),
    ];
    let acts = |c: char| {
        ACTING
            .iter()
            .any(|&(low, high)| (low..=high).contains(&u32::from(c)))
    };
    text.char_indices()
        .filter(|&(_, c)| acts(c) && c != '\n' && !separators.contains(&c))
        .map(|(at, c)| format!("{c:?} at {at}: {:?}", &text[at.saturating_sub(40)..at]))
        .collect()
}

/// A bot named by 70,000 letters (a product token can be any length): the summary's table
/// shows its name cut, where padding the column to the name's width panicked (exit 101 after
/// the reports were committed, and in every later `merge` of them).
#[test]
fn the_summary_shows_a_name_of_any_length_cut() {
    let dir = tempfile::tempdir().unwrap();
    let long = "A".repeat(70_000);
    write(dir.path(), "night.log", bot_line(&format!("{long}bot")));
    let out = audit(dir.path(), &[]);
    let stderr = stderr_text(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        &stderr[..stderr.len().min(500)]
    );
    assert!(
        out.stderr.len() < 4_000,
        "{} bytes on stderr",
        out.stderr.len()
    );
    let row = stderr
        .lines()
        .find(|line| line.starts_with("AAAA"))
        .unwrap_or_else(|| panic!("no row of the bot: {stderr}"));
    assert!(row.starts_with(&format!("{}…  ", "A".repeat(40))), "{row}");
    // The same reports merged: the same table.
    let merged = robots_audit()
        .current_dir(dir.path())
        .args(["merge", "--out", "merged", "out"])
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", stderr_text(&merged));
    assert!(
        stderr_text(&merged).contains(row),
        "{}",
        stderr_text(&merged)
    );
}

/// Every heading of the page's tables is shown as strangers' text is: the matrix of violation
/// rates names its columns by bot, and a 300,000-letter name made a heading of as many bytes.
#[test]
fn the_pages_headings_are_cut_like_every_strangers_string() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "night.log",
        bot_line(&format!("{}bot", "B".repeat(300_000))),
    );
    let out = audit(dir.path(), &["-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let page = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    let headings: Vec<&str> = page
        .split("<th")
        .skip(1)
        .filter(|th| th.starts_with(['>', ' ']))
        .map(|th| &th[..th.find("</th>").unwrap()])
        .collect();
    assert!(
        headings
            .iter()
            .any(|th| th.contains(&format!("{}…", "B".repeat(200)))),
        "no heading names the bot"
    );
    let longest = headings.iter().map(|th| th.len()).max().unwrap();
    assert!(longest < 1_000, "a heading of {longest} bytes");
    assert!(page.len() < 400_000, "a page of {} bytes", page.len());
}

/// `check` writes a robots.txt's rules on standard output and the lines it ignores on standard
/// error: an escape sequence in either is written visibly, as the CSVs write control bytes.
#[test]
fn check_writes_no_control_byte_of_a_robots_txt() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots.txt",
        "User-agent: *\nDisallow: /a\x1b[31m\nDisallow: /b\u{9b}31m\u{202e}1\nCrawl-delay: \x1b]0;pwned\x07\n",
    );
    let out = robots_audit()
        .current_dir(dir.path())
        .args(["check", "--robots", "robots.txt", "--agent", "googlebot"])
        .args(["/a\x1b[31m", "/b%C2%9B31m%E2%80%AE1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), stderr_text(&out));
    assert_eq!(
        controls(&out.stdout, &['\t']),
        Vec::<String>::new(),
        "{stdout}"
    );
    assert_eq!(controls(&out.stderr, &[]), Vec::<String>::new(), "{stderr}");
    assert!(
        stdout.starts_with("disallowed\t/a\\x1b[31m\tDisallow: /a\\x1b[31m\t2\t"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\tDisallow: /b\\u{9b}31m\\u{202e}1\t3\t"),
        "{stdout}"
    );
    assert!(
        stderr.contains("Crawl-delay: \\x1b]0;pwned\\x07"),
        "{stderr}"
    );
}

/// `explain` prints the fields of the line, its user-agent and the robots.txt's rules: a line
/// feed in a JSON log's user-agent cannot start a line of the explanation's own (a fake
/// verdict), and escapes and C1 controls are written visibly.
#[test]
fn explain_writes_strangers_text_visibly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "robots/example.com.txt",
        "User-agent: *\nDisallow: /a\x1b[31m\n",
    );
    let target = "/a\\u001b[31mx";
    let agent = "EvilBot/1.0 (\\u009b31m \\u202e1 \\u2028)\\nverdict:       allowed";
    write(
        d,
        "caddy.log",
        format!(
            r#"{{"ts":1763661601,"request":{{"client_ip":"203.0.113.9","method":"GET","host":"example.com","uri":"{target}","headers":{{"User-Agent":["{agent}"]}}}},"status":200,"size":10}}"#
        ) + "\n",
    );
    let out = robots_audit()
        .current_dir(d)
        .args(["explain", "--robots", "robots", "--line", "caddy.log:1"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}{stdout}", stderr_text(&out));
    assert_eq!(controls(&out.stdout, &[]), Vec::<String>::new(), "{stdout}");
    let verdicts: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("verdict:"))
        .collect();
    assert_eq!(verdicts, ["verdict:       disallowed"], "{stdout}");
    for shown in [
        "  target       /a\\x1b[31mx",
        "  user_agent   EvilBot/1.0 (\\u{9b}31m \\u{202e}1 \\u{2028})\\x0averdict:       allowed",
        "  matches:     line 2 Disallow: /a\\x1b[31m",
    ] {
        assert!(stdout.contains(shown), "no {shown:?} in {stdout}");
    }
    // The JSON form carries the values as read, escaped as JSON.
    let json = robots_audit()
        .current_dir(d)
        .args([
            "explain",
            "--json",
            "--robots",
            "robots",
            "--line",
            "caddy.log:1",
        ])
        .output()
        .unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["path"], "/a\x1b[31mx", "{value}");
    assert_eq!(
        value["fields"]["user_agent"],
        "EvilBot/1.0 (\u{9b}31m \u{202e}1 \u{2028})\nverdict:       allowed",
        "{value}"
    );
    // ... and as JSON escapes: what is printed holds no character a terminal acts on.
    assert_eq!(
        controls(&json.stdout, &[]),
        Vec::<String>::new(),
        "{}",
        String::from_utf8_lossy(&json.stdout)
    );
}

/// `merge` reads names from each report directory's `state.json`, which anyone who can write
/// the directory can edit and sign again: an agent's name or an input's holding escape
/// sequences reaches standard error written visibly.
#[test]
fn merge_writes_no_control_byte_of_a_state() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "night.log", bot_line("Evilbot"));
    let out = audit(d, &["-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let state = d.join("out/state.json");
    let text = std::fs::read_to_string(&state).unwrap();
    assert!(text.contains("\"Evilbot\""), "{text}");
    let hostile = text.replace(
        "\"Evilbot\"",
        "\"Evil\\u001b]0;PWNED\\u0007\\u001b[2J\\u202ebot\"",
    );
    std::fs::write(&state, resigned_state(&hostile, |_| {})).unwrap();
    let merged = robots_audit()
        .current_dir(d)
        .args(["merge", "--out", "merged", "out"])
        .output()
        .unwrap();
    let stderr = stderr_text(&merged);
    assert_eq!(merged.status.code(), Some(0), "{stderr}");
    assert_eq!(
        controls(&merged.stderr, &[]),
        Vec::<String>::new(),
        "{stderr}"
    );
    assert!(
        stderr.contains("Evil\\x1b]0;PWNED\\x07\\x1b[2J\\u{202e}bot"),
        "{stderr}"
    );
}

/// `bots` shows what a `--bots` file holds, and crawler-user-agents is a list the public
/// writes: a pattern or example holding a C1 control, DEL or a bidirectional control reaches
/// standard output escaped, as the same JSON value.
#[test]
fn bots_writes_no_control_character_of_a_list() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = "Evil\u{7f}bot\u{202e}";
    let list = serde_json::json!([{
        "pattern": pattern,
        "url": "http://x.example/\u{9b}31m",
        "instances": ["Evil\u{7f}bot\u{202e}/1.0 \u{9b}31m"],
    }]);
    write(dir.path(), "list.json", list.to_string());
    for json in [true, false] {
        let out = robots_audit()
            .current_dir(dir.path())
            .args(["bots", "--bots", "list.json"])
            .args(json.then_some("--json"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
        assert_eq!(controls(&out.stdout, &[]), Vec::<String>::new(), "{stdout}");
        if json {
            let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(value.to_string().contains(pattern), "{value}");
        }
    }
}
