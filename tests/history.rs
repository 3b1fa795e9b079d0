//! Robots history (docs/contract.md, "Robots history: fetch and import"): `fetch`, `import --wayback` and
//! `import --git` against servers and repositories the tests make, on 127.0.0.1 only.

use std::collections::HashMap;
use std::fs;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::Command as StdCommand;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::common::*;
use predicates::prelude::*;
use robots_audit::history::fetch::FetchOptions;
use robots_audit::history::manifest::Manifest;
use robots_audit::origin::Origin;
use robots_audit::versions::FetchStatus;

/// How a test server answers one request.
enum Reply {
    /// A status, extra headers and a body.
    Answer(u16, Vec<(&'static str, String)>, Vec<u8>),
    /// Read the request, then say nothing for this long (or until the server stops).
    Hang(Duration),
    /// A 200 whose body stops (the connection closes) before its announced length.
    CutOff,
}

fn ok(body: impl Into<Vec<u8>>) -> Reply {
    Reply::Answer(200, Vec::new(), body.into())
}

fn status(code: u16) -> Reply {
    Reply::Answer(code, Vec::new(), format!("status {code}").into_bytes())
}

fn redirect(to: String) -> Reply {
    Reply::Answer(301, vec![("Location", to)], Vec::new())
}

/// The most connections one test server accepts: a runaway client cannot loop forever.
const MAX_CONNECTIONS: usize = 64;

/// A small HTTP/1.1 server on 127.0.0.1: one request per connection, answered by `handler`
/// from the request target; it records each request's head.
struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    heads: Arc<Mutex<Vec<String>>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    fn start(handler: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Server {
        Server::start_with_limit(MAX_CONNECTIONS, handler)
    }

    /// A server that accepts at most `connections` connections.
    fn start_with_limit(
        connections: usize,
        handler: impl Fn(&str) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let handler = Arc::new(handler);
        let thread = {
            let (stop, heads) = (Arc::clone(&stop), Arc::clone(&heads));
            std::thread::spawn(move || {
                for stream in listener.incoming().take(connections) {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (stop, heads, handler) =
                        (Arc::clone(&stop), Arc::clone(&heads), Arc::clone(&handler));
                    std::thread::spawn(move || serve(stream, &*handler, &heads, &stop));
                }
            })
        };
        Server {
            addr,
            stop,
            heads,
            thread: Some(thread),
        }
    }

    fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The request targets received so far.
    fn targets(&self) -> Vec<String> {
        self.heads
            .lock()
            .unwrap()
            .iter()
            .map(|h| h.split(' ').nth(1).unwrap_or_default().to_owned())
            .collect()
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    mut stream: TcpStream,
    handler: &(dyn Fn(&str) -> Reply + Send + Sync),
    heads: &Mutex<Vec<String>>,
    stop: &AtomicBool,
) {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 16 << 10 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let target = head.split(' ').nth(1).unwrap_or_default().to_owned();
    heads.lock().unwrap().push(head);
    match handler(&target) {
        Reply::Answer(code, headers, body) => {
            let mut out = format!(
                "HTTP/1.1 {code} Test\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                out.push_str(&format!("{name}: {value}\r\n"));
            }
            out.push_str("\r\n");
            let _ = stream.write_all(out.as_bytes());
            // The client may stop reading after 500 KiB: a write error is expected then.
            let _ = stream.write_all(&body);
        }
        Reply::CutOff => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\nUser-agent: *\n",
            );
        }
        Reply::Hang(duration) => {
            let end = Instant::now() + duration;
            while Instant::now() < end && !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

/// The binary, with no proxy from the environment between it and the test servers.
fn robots_audit_local() -> assert_cmd::Command {
    let mut cmd = robots_audit();
    for var in PROXY_VARIABLES {
        cmd.env_remove(var);
    }
    cmd
}

/// The environment variables that would put a proxy between the binary and the test servers.
const PROXY_VARIABLES: [&str; 6] = [
    "http_proxy",
    "HTTP_PROXY",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
];

/// The binary as a process to start, stop or kill, with no proxy from the environment between
/// it and the test servers.
fn robots_audit_local_process() -> StdCommand {
    let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("robots-audit"));
    for var in PROXY_VARIABLES {
        cmd.env_remove(var);
    }
    cmd
}

fn manifest_rows(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    read_csv(&dir.join("manifest.csv"))
}

/// Each manifest row's `valid_from` and `status`.
fn times_and_statuses(rows: &[std::collections::BTreeMap<String, String>]) -> Vec<(&str, &str)> {
    rows.iter()
        .map(|r| (r["valid_from"].as_str(), r["status"].as_str()))
        .collect()
}

fn options(timeout: Duration) -> FetchOptions {
    FetchOptions {
        timeout,
        concurrency: 4,
        ..FetchOptions::default()
    }
}

#[test]
fn fetch_records_statuses_and_keeps_the_first_500_kib() {
    let rules = "User-agent: *\nDisallow: /private/\n";
    let big: Vec<u8> = (0..600_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    let big_served = big.clone();
    let servers = [
        Server::start(move |_| ok(rules)),
        Server::start(|_| status(404)),
        Server::start(|_| status(503)),
        Server::start(|_| status(429)),
        Server::start(|_| Reply::Hang(Duration::from_secs(5))),
        Server::start(move |_| ok(big_served.clone())),
        Server::start(|_| Reply::CutOff),
    ];
    // A port with nothing listening: the connection is refused.
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let mut origins: Vec<Origin> = servers
        .iter()
        .map(|s| Origin::parse(&s.origin()).unwrap())
        .collect();
    origins.push(Origin::parse(&closed).unwrap());
    let started = Instant::now();
    let fetched = fetch_in_order(&origins, &options(Duration::from_millis(700)));
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the hanging server must cost one timeout, not its whole silence"
    );
    let statuses: Vec<FetchStatus> = fetched.iter().map(|f| f.observation.status).collect();
    use FetchStatus::*;
    assert_eq!(
        statuses,
        [
            Http(200),
            Http(404),
            Http(503),
            Http(429),
            Unreachable,
            Http(200),
            Unreachable,
            Unreachable
        ]
    );
    assert_eq!(
        fetched[0].observation.body.as_deref(),
        Some(rules.as_bytes())
    );
    for f in &fetched[1..5] {
        assert_eq!(f.observation.body, None);
    }
    assert!(
        fetched[4].error.as_ref().unwrap().contains("imeout"),
        "{:?}",
        fetched[4].error
    );
    assert!(
        fetched[6].error.as_ref().unwrap().contains("cut off"),
        "{:?}",
        fetched[6].error
    );
    assert!(fetched[7].error.is_some());
    let kept = fetched[5].observation.body.as_ref().unwrap();
    assert_eq!(kept.len(), 512_000);
    assert_eq!(kept[..], big[..512_000]);
    for server in &servers {
        assert_eq!(server.targets(), ["/robots.txt"]);
    }

    let dir = tempfile::tempdir().unwrap();
    let mut manifest = Manifest::open(dir.path()).unwrap();
    for f in &fetched {
        manifest.record(&f.observation).unwrap();
    }
    manifest.commit().unwrap();
    let rows = manifest_rows(dir.path());
    assert_eq!(rows.len(), 8);
    for (f, origin) in fetched.iter().zip(&origins) {
        let row = row(&rows, "origin", &origin.to_string());
        assert_eq!(row["status"], f.observation.status.to_string());
        assert_eq!(row["file"].is_empty(), f.observation.body.is_none());
    }
    let big_row = row(&rows, "origin", &origins[5].to_string());
    let stored = fs::read(dir.path().join(&big_row["file"])).unwrap();
    assert_eq!(stored.len(), 512_000);
    assert!(big_row["file"].starts_with(&format!("127.0.0.1_{}/", servers[5].addr.port())));
}

/// A server whose `/robots.txt` starts a chain of `hops` redirects ending at `/final`.
fn redirect_chain(hops: usize) -> Server {
    let base: Arc<Mutex<String>> = Arc::new(Mutex::new(String::new()));
    let seen = Arc::clone(&base);
    let server = Server::start(move |target| {
        let base = seen.lock().unwrap().clone();
        let step = match target {
            "/robots.txt" => 0,
            t => match t.strip_prefix("/hop/") {
                Some(n) => n.parse().unwrap(),
                None => return ok("User-agent: *\nDisallow: /after-redirects/\n"),
            },
        };
        if step + 1 < hops {
            redirect(format!("{base}/hop/{}", step + 1))
        } else {
            redirect(format!("{base}/final"))
        }
    });
    *base.lock().unwrap() = server.origin();
    server
}

#[test]
fn fetch_follows_five_redirects_and_not_a_sixth() {
    let five = redirect_chain(5);
    let six = redirect_chain(6);
    let origins = [
        Origin::parse(&five.origin()).unwrap(),
        Origin::parse(&six.origin()).unwrap(),
    ];
    let fetched = fetch_in_order(&origins, &options(Duration::from_secs(5)));

    assert_eq!(fetched[0].observation.status, FetchStatus::Http(200));
    assert_eq!(
        fetched[0].observation.body.as_deref(),
        Some(&b"User-agent: *\nDisallow: /after-redirects/\n"[..])
    );
    assert_eq!(
        five.targets(),
        [
            "/robots.txt",
            "/hop/1",
            "/hop/2",
            "/hop/3",
            "/hop/4",
            "/final"
        ]
    );

    // The 6th redirect is not followed: its 3xx is the answer, which the audit reads as no
    // robots.txt (no restrictions), as Google reads it as a 404.
    assert_eq!(fetched[1].observation.status, FetchStatus::Http(301));
    assert_eq!(fetched[1].observation.body, None);
    assert_eq!(
        six.targets(),
        [
            "/robots.txt",
            "/hop/1",
            "/hop/2",
            "/hop/3",
            "/hop/4",
            "/hop/5"
        ]
    );
    assert_eq!(
        FetchStatus::Http(301).effect(),
        robots_audit::versions::Effect::AllowAll
    );
}

/// Waits until the wall clock is in a later second than `since`, so two fetches get
/// different `valid_from` times.
fn next_second(since: jiff::Timestamp) {
    while jiff::Timestamp::now().as_second() <= since.as_second() {
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn fetch_adds_a_row_only_on_a_change_and_is_idempotent() {
    let body = Arc::new(Mutex::new(Reply::Answer(
        200,
        Vec::new(),
        b"User-agent: *\nDisallow: /a/\n".to_vec(),
    )));
    let current = Arc::clone(&body);
    let server = Server::start(move |_| match &*current.lock().unwrap() {
        Reply::Answer(code, headers, body) => Reply::Answer(*code, headers.clone(), body.clone()),
        Reply::Hang(d) => Reply::Hang(*d),
        Reply::CutOff => Reply::CutOff,
    });
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    let origins_file = write(
        dir.path(),
        "origins.txt",
        format!(
            "# the sites\n{}\n\n{}/\n",
            server.origin(),
            server.origin().to_uppercase()
        ),
    );
    let fetch = || {
        let mut cmd = robots_audit_local();
        cmd.arg("fetch")
            .arg("--into")
            .arg(&into)
            .arg("--origins")
            .arg(&origins_file)
            .args(["--timeout", "5s", "--user-agent", "TestFetcher/1.0"]);
        cmd
    };
    let first = jiff::Timestamp::now();
    fetch()
        .assert()
        .success()
        .stdout("")
        .stderr(predicates::str::contains("new row"));
    let manifest = fs::read(into.join("manifest.csv")).unwrap();
    assert_eq!(
        manifest_rows(&into).len(),
        1,
        "the origin is named twice, fetched once"
    );
    assert_eq!(server.targets().len(), 1);
    assert!(
        server.heads()[0]
            .to_ascii_lowercase()
            .contains("user-agent: testfetcher/1.0\r\n"),
        "{:?}",
        server.heads()
    );

    next_second(first);
    fetch()
        .assert()
        .success()
        .stderr(predicates::str::contains("unchanged"));
    assert_eq!(
        fs::read(into.join("manifest.csv")).unwrap(),
        manifest,
        "unchanged content: the manifest is left as it was"
    );

    *body.lock().unwrap() =
        Reply::Answer(200, Vec::new(), b"User-agent: *\nDisallow: /b/\n".to_vec());
    let changed = jiff::Timestamp::now();
    fetch().assert().success();
    next_second(changed);
    *body.lock().unwrap() = Reply::Answer(503, Vec::new(), b"busy".to_vec());
    fetch().assert().success();
    fetch().assert().success();

    let rows = manifest_rows(&into);
    let statuses: Vec<&str> = rows.iter().map(|r| r["status"].as_str()).collect();
    assert_eq!(statuses, ["200", "200", "503"], "{rows:#?}");
    assert!(rows.iter().all(|r| r["origin"] == server.origin()));
    let froms: Vec<&str> = rows.iter().map(|r| r["valid_from"].as_str()).collect();
    assert!(froms.windows(2).all(|w| w[0] < w[1]), "{froms:?}");
    assert_eq!(
        fs::read_to_string(into.join(&rows[1]["file"])).unwrap(),
        "User-agent: *\nDisallow: /b/\n"
    );
    // The default User-Agent names the program.
    robots_audit_local()
        .arg("fetch")
        .arg("--into")
        .arg(&into)
        .arg(server.origin())
        .assert()
        .success();
    let last = server.heads().pop().unwrap().to_ascii_lowercase();
    assert!(last.contains("user-agent: robots-audit/"), "{last}");
    let leftovers: Vec<_> = fs::read_dir(&into)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .filter(|e| e.file_name() != ".manifest.lock")
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn fetched_history_is_what_audit_judges_with() {
    let server = Server::start(|_| ok("User-agent: *\nDisallow: /private/\n"));
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("night");
    robots_audit_local()
        .arg("fetch")
        .arg("--into")
        .arg(&into)
        .arg(server.origin())
        .args(["-q"])
        .assert()
        .success()
        .stderr("");
    let rows = manifest_rows(&into);
    let valid_from: jiff::Timestamp = rows[0]["valid_from"].parse().unwrap();

    let line = |at: jiff::Timestamp, path: &str| {
        format!(
            "203.0.113.9 - - [{}] \"GET {path} HTTP/1.1\" 200 10 \"-\" \"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)\"\n",
            at.strftime("%d/%b/%Y:%H:%M:%S +0000")
        )
    };
    let later = valid_from + jiff::SignedDuration::from_mins(5);
    let before = valid_from - jiff::SignedDuration::from_hours(24);
    write(
        dir.path(),
        "access.log",
        [
            line(before, "/private/old"),
            line(later, "/private/x"),
            line(later, "/public"),
        ]
        .concat(),
    );
    robots_audit_local()
        .current_dir(dir.path())
        .args(["audit", "-q", "--robots", "night/manifest.csv", "--origin"])
        .arg(server.origin())
        .args(["--out", "out", "access.log"])
        .assert()
        .code(0);
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    let ahrefs = row(&agents, "agent", "AhrefsBot");
    assert_eq!(ahrefs["disallowed"], "1");
    assert_eq!(ahrefs["allowed"], "1");
    assert_eq!(
        ahrefs["unjudged"], "1",
        "before the first fetch nothing was in force"
    );
    let violations = read_csv(&dir.path().join("out/violations.csv"));
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0]["path"], "/private/x");
    assert_eq!(violations[0]["rule"], "Disallow: /private/");
    assert_eq!(violations[0]["robots_version"], rows[0]["valid_from"]);
}

#[test]
fn a_final_status_outside_200_to_599_is_recorded_unreachable_and_the_manifest_stays_readable() {
    let odd = Server::start(|_| status(999));
    let switching = Server::start(|_| status(101));
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    let fetch = || {
        let mut cmd = robots_audit_local();
        cmd.arg("fetch")
            .arg("--into")
            .arg(&into)
            .args(["--timeout", "5s"])
            .arg(odd.origin())
            .arg(switching.origin());
        cmd
    };
    fetch().assert().success().stderr(predicates::str::contains(
        "status 999: not a final HTTP status",
    ));
    let rows = manifest_rows(&into);
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["origin"].as_str(),
                r["status"].as_str(),
                r["file"].as_str(),
            )
        })
        .collect();
    let (odd_origin, switching_origin) = (odd.origin(), switching.origin());
    let mut want = [
        (odd_origin.as_str(), "unreachable", ""),
        (switching_origin.as_str(), "unreachable", ""),
    ];
    want.sort();
    assert_eq!(got, want);

    // The manifest is one every later command reads.
    fetch()
        .assert()
        .success()
        .stderr(predicates::str::contains("unchanged"));
    let valid_from: jiff::Timestamp = rows[0]["valid_from"].parse().unwrap();
    write(
        dir.path(),
        "access.log",
        format!(
            "203.0.113.9 - - [{}] \"GET /page HTTP/1.1\" 200 10 \"-\" \"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)\"\n",
            (valid_from + jiff::SignedDuration::from_mins(5)).strftime("%d/%b/%Y:%H:%M:%S +0000")
        ),
    );
    robots_audit_local()
        .current_dir(dir.path())
        .args([
            "audit",
            "-q",
            "--robots",
            "history/manifest.csv",
            "--origin",
        ])
        .arg(odd.origin())
        .args(["--out", "out", "access.log"])
        .assert()
        .code(0);
    let violations = read_csv(&dir.path().join("out/violations.csv"));
    assert_eq!(violations.len(), 1, "unreachable disallows everything");
    assert_eq!(violations[0]["rule"], "status unreachable");
}

/// A CDX-compatible service: `index` answers `/cdx/search/cdx`, `copies` the `id_` URLs by
/// timestamp.
fn wayback_service(
    index: impl Fn(usize) -> Reply + Send + Sync + 'static,
    copies: HashMap<&'static str, &'static str>,
) -> Server {
    let calls = AtomicUsize::new(0);
    Server::start(move |target| {
        if target.starts_with("/cdx/search/cdx?") {
            return index(calls.fetch_add(1, Ordering::SeqCst));
        }
        let copy = target
            .strip_prefix("/web/")
            .and_then(|rest| rest.split_once("id_/"))
            .filter(|(_, url)| *url == "https://example.com/robots.txt")
            .and_then(|(stamp, _)| copies.get(stamp));
        match copy {
            Some(body) => ok(*body),
            None => status(404),
        }
    })
}

const INDEX: &str = r#"[["timestamp","statuscode","digest"],
["20230601000000","200","OLD"],
["20240101000000","200","AAA"],
["20240102000000","200","AAA"],
["20240103000000","301","RRR"],
["20240104000000","200","BBB"],
["20240105000000","503","EEE"],
["20240106000000","-","AAA"],
["20240107000000","200","AAA"]]"#;

fn import_wayback(server: &Server, into: &Path) -> assert_cmd::Command {
    import_wayback_with_delay(server, into, "0s")
}

fn import_wayback_with_delay(server: &Server, into: &Path, delay: &str) -> assert_cmd::Command {
    let mut cmd = robots_audit_local();
    cmd.args(["import", "--wayback", "--wayback-url"])
        .arg(server.origin())
        .args([
            "--delay",
            delay,
            "--backoff",
            "10ms",
            "--timeout",
            "5s",
            "--into",
        ])
        .arg(into);
    cmd
}

#[test]
fn wayback_one_row_per_change_of_content() {
    let server = wayback_service(
        |_| ok(INDEX),
        HashMap::from([
            ("20230601000000", "User-agent: *\nDisallow: /old/\n"),
            ("20240101000000", "User-agent: *\nDisallow: /a/\n"),
            ("20240104000000", "User-agent: *\nDisallow: /b/\n"),
        ]),
    );
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    import_wayback(&server, &into)
        .args([
            "--from",
            "2024",
            "--to",
            "2024-12-31",
            "https://example.com",
        ])
        .assert()
        .success()
        .stdout("")
        .stderr(predicates::str::contains("1 redirect skipped"));
    let rows = manifest_rows(&into);
    let got = times_and_statuses(&rows);
    assert_eq!(
        got,
        [
            ("2024-01-01T00:00:00Z", "200"),
            ("2024-01-04T00:00:00Z", "200"),
            ("2024-01-05T00:00:00Z", "503"),
            // A revisit of the first content: the content changed back.
            ("2024-01-06T00:00:00Z", "200"),
        ]
    );
    assert_eq!(rows[0]["file"], rows[3]["file"], "same content, one file");
    assert_eq!(
        fs::read_to_string(into.join(&rows[1]["file"])).unwrap(),
        "User-agent: *\nDisallow: /b/\n"
    );
    assert!(rows.iter().all(|r| r["origin"] == "https://example.com"));

    let targets = server.targets();
    for (index, collapse) in targets
        .iter()
        .zip(["collapse=digest", "collapse=statuscode"])
    {
        for part in [
            "/cdx/search/cdx?url=example.com/robots.txt",
            "output=json",
            "fl=timestamp,statuscode,digest",
            "from=2024",
            "to=20241231",
            collapse,
        ] {
            assert!(index.contains(part), "{part} missing from {index}");
        }
    }
    // This service does not collapse: a capture both answers list counts once, and each
    // content is read once; nothing outside the period, no redirect, no error status.
    assert_eq!(
        targets[2..],
        [
            "/web/20240101000000id_/https://example.com/robots.txt",
            "/web/20240104000000id_/https://example.com/robots.txt",
        ]
    );

    let manifest = fs::read(into.join("manifest.csv")).unwrap();
    import_wayback(&server, &into)
        .args([
            "--from",
            "2024",
            "--to",
            "2024-12-31",
            "https://example.com",
        ])
        .assert()
        .success()
        .stderr(predicates::str::contains("0 new rows"));
    assert_eq!(fs::read(into.join("manifest.csv")).unwrap(), manifest);
}

/// A capture a test's CDX service lists: its timestamp, status and digest.
type CdxRow = (String, &'static str, &'static str);

/// A CDX index answer as the Wayback Machine makes it for `target`: `collapse=digest` or
/// `collapse=statuscode` drops each row whose field is the one of the row before it, and at most
/// `max_rows` rows are listed (the Wayback Machine lists at most 150,000), cut without a word.
fn collapsed_index(target: &str, captures: &[CdxRow], max_rows: usize) -> Reply {
    let collapsed_field: Option<fn(&CdxRow) -> &'static str> = if target.contains("collapse=digest")
    {
        Some(|row| row.2)
    } else if target.contains("collapse=statuscode") {
        Some(|row| row.1)
    } else {
        None
    };
    let mut rows = vec![r#"["timestamp","statuscode","digest"]"#.to_owned()];
    let mut last: Option<&CdxRow> = None;
    for capture in captures {
        let repeated = collapsed_field
            .zip(last)
            .is_some_and(|(field, last)| field(last) == field(capture));
        last = Some(capture);
        if !repeated && rows.len() <= max_rows {
            let (stamp, status, digest) = capture;
            rows.push(format!(r#"["{stamp}","{status}","{digest}"]"#));
        }
    }
    ok(format!("[{}]", rows.join(",")))
}

/// The index requests among `targets`, and the others.
fn index_and_copies(targets: Vec<String>) -> (Vec<String>, Vec<String>) {
    targets
        .into_iter()
        .partition(|t| t.starts_with("/cdx/search/cdx?"))
}

/// An empty 503 and an empty 200 have the same digest, the SHA-1 of nothing.
const EMPTY_DIGEST: &str = "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ";

#[test]
fn wayback_the_same_content_with_another_status_is_a_change() {
    let captures = [
        ("20240101000000", "200", "AAA"),
        // Only the digest changes: collapse=statuscode alone would drop it.
        ("20240115000000", "200", "BBB"),
        // Only the status changes from here on: collapse=digest alone would drop them.
        ("20240201000000", "503", EMPTY_DIGEST),
        ("20240301000000", "200", EMPTY_DIGEST),
        ("20240401000000", "503", EMPTY_DIGEST),
        // Revisits of the empty content, which the archive replays as the 200 it holds.
        ("20240501000000", "-", EMPTY_DIGEST),
        ("20240601000000", "-", EMPTY_DIGEST),
    ]
    .map(|(stamp, status, digest)| (stamp.to_owned(), status, digest));
    let server = Server::start(move |target| {
        if target.starts_with("/cdx/search/cdx?") {
            return collapsed_index(target, &captures, 150_000);
        }
        match target
            .strip_prefix("/web/")
            .and_then(|r| r.split_once("id_/"))
        {
            Some(("20240101000000", _)) => ok("User-agent: *\nDisallow: /private/\n"),
            Some(("20240115000000", _)) => ok("User-agent: *\nDisallow: /other/\n"),
            Some(_) => ok(""),
            None => status(404),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    import_wayback(&server, &into)
        .arg("https://example.com")
        .assert()
        .success();
    let rows = manifest_rows(&into);
    let got = times_and_statuses(&rows);
    assert_eq!(
        got,
        [
            ("2024-01-01T00:00:00Z", "200"),
            ("2024-01-15T00:00:00Z", "200"),
            ("2024-02-01T00:00:00Z", "503"),
            ("2024-03-01T00:00:00Z", "200"),
            ("2024-04-01T00:00:00Z", "503"),
            ("2024-05-01T00:00:00Z", "200"),
        ]
    );
    assert_eq!(fs::read(into.join(&rows[3]["file"])).unwrap(), b"");
    assert_eq!(rows[5]["file"], rows[3]["file"]);
    let (index, copies) = index_and_copies(server.targets());
    assert_eq!(index.len(), 2, "{index:?}");
    // The revisits' status is the one the empty content was read with: no copy asked again.
    assert_eq!(
        copies,
        [
            "/web/20240101000000id_/https://example.com/robots.txt",
            "/web/20240115000000id_/https://example.com/robots.txt",
            "/web/20240301000000id_/https://example.com/robots.txt",
        ]
    );
}

#[test]
fn wayback_a_change_after_a_long_run_of_the_same_capture_is_found() {
    // Runs of 500 hourly captures, more than the service lists in one answer: asked without
    // collapse, the index would stop in the first run.
    const RUN: usize = 500;
    let runs = [
        ("200", EMPTY_DIGEST),
        // Only the status changes, twice.
        ("503", EMPTY_DIGEST),
        ("200", EMPTY_DIGEST),
        // Only the digest changes.
        ("200", "BBB"),
    ];
    let stamp = |hour: usize| {
        jiff::Timestamp::from_second(1_704_067_200 + 3600 * i64::try_from(hour).unwrap())
            .unwrap()
            .strftime("%Y%m%d%H%M%S")
            .to_string()
    };
    let captures: Vec<CdxRow> = runs
        .iter()
        .flat_map(|&(status, digest)| std::iter::repeat_n((status, digest), RUN))
        .enumerate()
        .map(|(hour, (status, digest))| (stamp(hour), status, digest))
        .collect();
    let server = Server::start(move |target| {
        if target.starts_with("/cdx/search/cdx?") {
            return collapsed_index(target, &captures, 100);
        }
        match target.strip_prefix(&format!("/web/{}", stamp(3 * RUN))) {
            Some(_) => ok("User-agent: *\nDisallow: /b/\n"),
            None => ok(""),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    let delay = Duration::from_millis(400);
    let started = Instant::now();
    import_wayback_with_delay(&server, &into, &format!("{}ms", delay.as_millis()))
        .arg("https://example.com")
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "4 captures (0 redirects skipped), 2 copies read, 4 new rows",
        ));
    let rows = manifest_rows(&into);
    let got = times_and_statuses(&rows);
    assert_eq!(
        got,
        [
            ("2024-01-01T00:00:00Z", "200"),
            ("2024-01-21T20:00:00Z", "503"),
            ("2024-02-11T16:00:00Z", "200"),
            ("2024-03-03T12:00:00Z", "200"),
        ]
    );
    assert_eq!(rows[2]["file"], rows[0]["file"]);
    assert_eq!(
        fs::read_to_string(into.join(&rows[3]["file"])).unwrap(),
        "User-agent: *\nDisallow: /b/\n"
    );
    let (index, copies) = index_and_copies(server.targets());
    assert_eq!(index.len(), 2, "{index:?}");
    assert_eq!(
        copies,
        [0, 3 * RUN].map(|hour| format!("/web/{}id_/https://example.com/robots.txt", stamp(hour)))
    );
    // Two index requests and two copies: three waits of --delay, one between the index requests.
    // Measured here, as the client waits: the server sees each request some time after it starts.
    let took = started.elapsed();
    assert!(took >= 3 * delay, "{took:?}");
}

#[test]
fn wayback_backs_off_on_429_and_5xx_then_succeeds() {
    let copy_calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&copy_calls);
    let index_calls = AtomicUsize::new(0);
    let server = Server::start(move |target| {
        if target.starts_with("/cdx/") {
            return match index_calls.fetch_add(1, Ordering::SeqCst) {
                0 => Reply::Answer(429, vec![("Retry-After", "0".into())], Vec::new()),
                _ => ok(r#"[["timestamp","statuscode","digest"],["20240101000000","200","AAA"]]"#),
            };
        }
        match counted.fetch_add(1, Ordering::SeqCst) {
            0 => status(502),
            _ => ok("User-agent: *\nDisallow: /\n"),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    import_wayback(&server, &into)
        .arg("example.com")
        .assert()
        .success();
    assert_eq!(server.targets().len(), 5, "{:?}", server.targets());
    assert_eq!(copy_calls.load(Ordering::SeqCst), 2);
    let rows = manifest_rows(&into);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["origin"], "https://example.com");
    assert_eq!(rows[0]["status"], "200");
}

#[test]
fn wayback_that_keeps_failing_is_a_clear_error() {
    let server = wayback_service(|_| status(500), HashMap::new());
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    import_wayback(&server, &into)
        .args(["--retries", "2", "https://example.com"])
        .assert()
        .code(1)
        .stderr(
            predicates::str::contains("answered 500, 3 times in a row; giving up")
                .and(predicates::str::contains("https://example.com")),
        );
    assert_eq!(server.targets().len(), 3, "retries are bounded");
    assert!(!into.join("manifest.csv").exists());

    // The index collapsed on the digest is read, the one collapsed on the status is not.
    let second_fails = wayback_service(
        |call| match call {
            0 => ok(INDEX),
            _ => status(500),
        },
        HashMap::new(),
    );
    import_wayback(&second_fails, &into)
        .args(["--retries", "0", "https://example.com"])
        .assert()
        .code(1)
        .stderr(
            predicates::str::contains("collapse=statuscode").and(predicates::str::contains(
                "answered 500, 1 time in a row; giving up",
            )),
        );
    assert_eq!(second_fails.targets().len(), 2, "no copy is read");
    assert!(!into.join("manifest.csv").exists());

    // A service that is not a CDX index.
    let html = wayback_service(|_| ok("<html>maintenance</html>"), HashMap::new());
    import_wayback(&html, &into)
        .arg("https://example.com")
        .assert()
        .code(1)
        .stderr(predicates::str::contains("not a JSON array"));
}

/// An index answer of exactly `len` bytes: one 404 capture, spaces between the rows.
fn padded_index(len: usize) -> Vec<u8> {
    let (head, tail) = (
        &br#"[["timestamp","statuscode","digest"],"#[..],
        &br#"["20240101000000","404","A"]]"#[..],
    );
    let mut body = head.to_vec();
    body.resize(len - tail.len(), b' ');
    body.extend_from_slice(tail);
    body
}

/// An index answer longer than is read, plain or compressed (64 MiB of spaces in 64 KiB of
/// gzip), fails the origin's import saying so, not with the JSON error of rows cut off; one of
/// exactly the limit is read.
#[test]
fn wayback_an_index_answer_longer_than_64_mib_is_named_as_such() {
    use robots_audit::history::wayback::MAX_INDEX_BYTES;
    let gzipped = {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&padded_index(MAX_INDEX_BYTES + 1)).unwrap();
        gz.finish().unwrap()
    };
    let answers = [
        ("plain", None, padded_index(MAX_INDEX_BYTES + 1)),
        ("gzip", Some("gzip"), gzipped),
    ];
    for (kind, encoding, body) in answers {
        let server = wayback_service(
            move |_| {
                let headers = encoding.map(|e| ("Content-Encoding", e.to_owned()));
                Reply::Answer(200, headers.into_iter().collect(), body.clone())
            },
            HashMap::new(),
        );
        let dir = tempfile::tempdir().unwrap();
        let into = dir.path().join("history");
        import_wayback(&server, &into)
            .args(["--retries", "0", "https://example.com"])
            .assert()
            .code(1)
            .stderr(
                predicates::str::contains(format!(
                    "collapse=digest: the CDX answer is longer than {MAX_INDEX_BYTES} bytes, \
                     the most read"
                ))
                .and(predicates::str::contains("--from, --to"))
                .and(predicates::str::contains("JSON").not()),
            );
        assert_eq!(server.targets().len(), 1, "{kind}: nothing more is asked");
        assert!(!into.join("manifest.csv").exists(), "{kind}");
    }

    let server = wayback_service(|_| ok(padded_index(MAX_INDEX_BYTES)), HashMap::new());
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    import_wayback(&server, &into)
        .args(["--retries", "0", "-q", "https://example.com"])
        .assert()
        .success();
    let rows = manifest_rows(&into);
    assert_eq!(times_and_statuses(&rows), [("2024-01-01T00:00:00Z", "404")]);
}

/// Runs git in `repo` with fixed identities and times; panics on failure.
fn git(repo: &Path, args: &[&str], time: &str) {
    let out = StdCommand::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_AUTHOR_DATE", time)
        .env("GIT_COMMITTER_DATE", time)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An empty git repository `dir/site`, its branch `main`.
fn new_repo(dir: &Path, time: &str) -> std::path::PathBuf {
    let repo = dir.join("site");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"], time);
    repo
}

fn commit_file(repo: &Path, file: &str, content: Option<&str>, time: &str) {
    match content {
        Some(content) => {
            write(repo, file, content);
            git(repo, &["add", file], time);
        }
        None => git(repo, &["rm", "-q", file], time),
    }
    git(repo, &["commit", "-q", "-m", file], time);
}

#[test]
fn git_one_row_per_commit_that_changed_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let repo = new_repo(dir.path(), "2026-01-01T00:00:00Z");
    let robots = "public/robots.txt";
    commit_file(
        &repo,
        robots,
        Some("User-agent: *\nDisallow: /a/\n"),
        "2026-01-01T10:00:00Z",
    );
    commit_file(&repo, "README", Some("hello"), "2026-01-02T10:00:00Z");
    commit_file(
        &repo,
        robots,
        Some("User-agent: *\nDisallow: /bb/\n"),
        "2026-01-03T10:00:00Z",
    );
    // A second commit in the same second: the later content is the one in force.
    commit_file(
        &repo,
        robots,
        Some("User-agent: *\nDisallow: /b/\n"),
        "2026-01-03T10:00:00Z",
    );
    commit_file(
        &repo,
        "public/index.html",
        Some("<p>"),
        "2026-01-04T10:00:00Z",
    );
    commit_file(&repo, robots, None, "2026-01-05T10:00:00Z");
    commit_file(&repo, "README", Some("hello again"), "2026-01-06T10:00:00Z");
    commit_file(
        &repo,
        robots,
        Some("User-agent: *\nDisallow: /a/\n"),
        "2026-01-07T10:00:00+02:00",
    );

    let into = dir.path().join("history");
    let import = || {
        let mut cmd = robots_audit_local();
        cmd.args(["import", "--git"])
            .arg(&repo)
            .args([
                "--path",
                robots,
                "--origin",
                "https://example.com",
                "--into",
            ])
            .arg(&into);
        cmd
    };
    import()
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "4 versions of public/robots.txt in git, 4 new rows",
        ));
    let rows = manifest_rows(&into);
    let got = times_and_statuses(&rows);
    assert_eq!(
        got,
        [
            ("2026-01-01T10:00:00Z", "200"),
            ("2026-01-03T10:00:00Z", "200"),
            ("2026-01-05T10:00:00Z", "404"),
            ("2026-01-07T08:00:00Z", "200"),
        ]
    );
    assert_eq!(rows[2]["file"], "");
    assert_eq!(rows[0]["file"], rows[3]["file"]);
    assert_eq!(
        fs::read_to_string(into.join(&rows[1]["file"])).unwrap(),
        "User-agent: *\nDisallow: /b/\n"
    );

    let manifest = fs::read(into.join("manifest.csv")).unwrap();
    import()
        .assert()
        .success()
        .stderr(predicates::str::contains("0 new rows"));
    assert_eq!(fs::read(into.join("manifest.csv")).unwrap(), manifest);

    // The manifest is one the audit reads.
    write(dir.path(), "empty.log", "");
    robots_audit_local()
        .current_dir(dir.path())
        .args([
            "audit",
            "-q",
            "--robots",
            "history/manifest.csv",
            "--out",
            "out",
            "empty.log",
        ])
        .assert()
        .success();
    let robots = read_csv(&dir.path().join("out/robots.csv"));
    assert_eq!(robots.len(), 4);
}

#[test]
fn usage_and_git_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    robots_audit_local()
        .args(["import", "--git"])
        .arg(dir.path())
        .args([
            "--path",
            "robots.txt",
            "--origin",
            "https://example.com",
            "--into",
        ])
        .arg(&into)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "is not a revision of a git repository",
        ));
    robots_audit_local()
        .env("PATH", "")
        .args(["import", "--git"])
        .arg(dir.path())
        .args([
            "--path",
            "robots.txt",
            "--origin",
            "https://example.com",
            "--into",
        ])
        .arg(&into)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("needs the git program"));
    // --git needs --path and --origin; the sources exclude each other.
    robots_audit_local()
        .args(["import", "--git", "repo", "--into", "x"])
        .assert()
        .code(2);
    robots_audit_local()
        .args([
            "import",
            "--wayback",
            "--git",
            "r",
            "--path",
            "p",
            "--origin",
            "o",
            "--into",
            "x",
        ])
        .assert()
        .code(2);
    robots_audit_local()
        .args(["import", "--wayback", "--into", "x"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("at least one ORIGIN"));
    robots_audit_local()
        .args([
            "import",
            "--wayback",
            "--from",
            "last week",
            "--into",
            "x",
            "example.com",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--from"));
    robots_audit_local()
        .args(["fetch", "--into", "x", "--timeout", "0s", "example.com"])
        .assert()
        .code(2);
    robots_audit_local()
        .args(["fetch", "--into", "x", "ftp://files.example.com"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("http and https only"));
    robots_audit_local()
        .args(["fetch", "--into", "x", "https://exa mple.com"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not an origin"));
}

#[test]
fn git_a_merged_branch_counts_when_it_landed() {
    let dir = tempfile::tempdir().unwrap();
    let repo = new_repo(dir.path(), "2026-02-01T00:00:00Z");
    commit_file(
        &repo,
        "robots.txt",
        Some("User-agent: *\nDisallow: /a/\n"),
        "2026-02-01T10:00:00Z",
    );
    git(
        &repo,
        &["checkout", "-q", "-b", "side"],
        "2026-02-01T10:00:00Z",
    );
    commit_file(
        &repo,
        "robots.txt",
        Some("User-agent: *\nDisallow: /b/\n"),
        "2026-02-02T10:00:00Z",
    );
    git(&repo, &["checkout", "-q", "main"], "2026-02-02T10:00:00Z");
    commit_file(&repo, "index.html", Some("<p>"), "2026-02-03T10:00:00Z");
    git(
        &repo,
        &["merge", "-q", "--no-ff", "-m", "merge side", "side"],
        "2026-02-04T10:00:00Z",
    );

    let into = dir.path().join("history");
    robots_audit_local()
        .args(["import", "--git"])
        .arg(&repo)
        .args(["--path", "robots.txt", "--origin", "example.com", "--into"])
        .arg(&into)
        .assert()
        .success();
    let rows = manifest_rows(&into);
    let got: Vec<&str> = rows.iter().map(|r| r["valid_from"].as_str()).collect();
    assert_eq!(got, ["2026-02-01T10:00:00Z", "2026-02-04T10:00:00Z"]);
    assert_eq!(
        fs::read_to_string(into.join(&rows[1]["file"])).unwrap(),
        "User-agent: *\nDisallow: /b/\n"
    );
    // The side branch's own history is read with --rev.
    let side = dir.path().join("side-history");
    robots_audit_local()
        .args(["import", "--git"])
        .arg(&repo)
        .args([
            "--rev",
            "side",
            "--path",
            "robots.txt",
            "--origin",
            "example.com",
            "--into",
        ])
        .arg(&side)
        .assert()
        .success();
    let rows = manifest_rows(&side);
    let got: Vec<&str> = rows.iter().map(|r| r["valid_from"].as_str()).collect();
    assert_eq!(got, ["2026-02-01T10:00:00Z", "2026-02-02T10:00:00Z"]);
}

#[test]
fn a_fetch_killed_mid_run_leaves_the_manifest_as_it_was() {
    let quick = Server::start(|_| ok("User-agent: *\nDisallow: /changed/\n"));
    let slow = Server::start(|_| Reply::Hang(Duration::from_secs(10)));
    let dir = tempfile::tempdir().unwrap();
    let before = format!("origin,valid_from,status,file\n{},,404,\n", quick.origin());
    write(dir.path(), "history/manifest.csv", &before);
    let mut child = robots_audit_local_process()
        .args(["fetch", "-q", "--timeout", "20s", "--into"])
        .arg(dir.path().join("history"))
        .arg(quick.origin())
        .arg(slow.origin())
        .spawn()
        .unwrap();
    // The quick origin is answered (its file may be written); the slow one keeps the run going.
    let start = Instant::now();
    while (quick.targets().is_empty() || slow.targets().is_empty())
        && start.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join("history/manifest.csv")).unwrap(),
        before
    );
}

#[test]
fn a_history_directory_is_updated_by_one_command_at_a_time() {
    let site = Server::start(|_| ok("User-agent: *\nDisallow: /a/\n"));
    let archive = wayback_service(|_| ok(INDEX), HashMap::new());
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    let before = "origin,valid_from,status,file\nexample.org,,404,\n";
    write(&into, "manifest.csv", before);
    // This process holds the directory as a command does, from open to commit.
    let held = Manifest::open(&into).unwrap();
    let refused = || {
        predicates::str::contains(format!(
            "another robots-audit run (pid {} on",
            std::process::id()
        ))
        .and(predicates::str::contains(format!(
            "is updating the history directory {}; --wait waits for it",
            into.display()
        )))
    };
    let started = Instant::now();
    robots_audit_local()
        .arg("fetch")
        .arg("--into")
        .arg(&into)
        .arg(site.origin())
        .assert()
        .code(1)
        .stderr(refused());
    import_wayback(&archive, &into)
        .arg("https://example.com")
        .assert()
        .code(1)
        .stderr(refused());
    assert!(started.elapsed() < Duration::from_secs(5), "at once");
    assert!(site.targets().is_empty() && archive.targets().is_empty());
    assert_eq!(
        fs::read_to_string(into.join("manifest.csv")).unwrap(),
        before
    );
    let mut names: Vec<String> = fs::read_dir(&into)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".manifest.lock", "manifest.csv"]);

    // With --wait, the command waits for the holder, then does its work.
    let child = robots_audit_local_process()
        .args(["fetch", "--wait", "--timeout", "5s", "--into"])
        .arg(&into)
        .arg(site.origin())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        site.targets().is_empty(),
        "no request while the lock is held"
    );
    drop(held);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "waiting for another robots-audit run (pid {} on",
            std::process::id()
        )),
        "{stderr}"
    );
    assert_eq!(site.targets(), ["/robots.txt"]);
    assert_eq!(manifest_rows(&into).len(), 2);
}

#[test]
fn wayback_an_origin_that_fails_half_way_adds_nothing() {
    // The first content is read and recorded, the second copy is missing from the archive.
    let server = wayback_service(
        |_| {
            ok(r#"[["timestamp","statuscode","digest"],
                ["20240101000000","200","AAA"],
                ["20240102000000","503","EEE"],
                ["20240103000000","200","BBB"]]"#)
        },
        HashMap::from([("20240101000000", "User-agent: *\nDisallow: /a/\n")]),
    );
    let dir = tempfile::tempdir().unwrap();
    let before = "origin,valid_from,status,file\nhttps://example.com,,404,\n";
    let into = dir.path().join("history");
    write(&into, "manifest.csv", before);
    import_wayback(&server, &into)
        .args(["--retries", "0", "https://example.com"])
        .assert()
        .code(1)
        .stderr(
            predicates::str::contains("nothing imported")
                .and(predicates::str::contains("20240103000000id_"))
                .and(predicates::str::contains("answered 404")),
        );
    assert_eq!(
        fs::read_to_string(into.join("manifest.csv")).unwrap(),
        before
    );
}

/// The archive's `id_` URL of a capture of https://example.com/robots.txt.
fn copy_target(stamp: &str) -> String {
    format!("/web/{stamp}id_/https://example.com/robots.txt")
}

/// A copy is read from the archive only: a redirect it answers is followed while it stays on
/// the archive's origin and under its `/web/` path. A redirect anywhere else (a site's revisit
/// replayed as its redirect, say) is not followed, and the origin is not imported, as when a
/// copy is missing: what is recorded as the archived robots.txt never comes from elsewhere.
#[test]
fn wayback_copies_follow_redirects_only_inside_the_archive() {
    let elsewhere = Server::start(|_| ok("User-agent: *\nDisallow: /planted/\n"));
    let other = elsewhere.origin();
    let other_host = other.trim_start_matches("http://").to_owned();
    let index = r#"[["timestamp","statuscode","digest"],
        ["20240101000000","200","AAA"],
        ["20240102000000","-","BBB"]]"#;
    // Where the revisit's copy redirects to, and whether that is still the archive's copy.
    let cases = [
        (format!("{other}/robots.txt"), false),
        (
            format!("//{other_host}/web/20240102000000id_/https://example.com/robots.txt"),
            false,
        ),
        ("/robots.txt".to_owned(), false),
        ("/web/../robots.txt".to_owned(), false),
        ("/web/%2e%2e/robots.txt".to_owned(), false),
        (copy_target("20240102000005"), true),
    ];
    for (location, inside) in cases {
        let to = location.clone();
        let archive = Server::start(move |target| {
            if target.starts_with("/cdx/search/cdx?") {
                return ok(index);
            }
            if target == copy_target("20240101000000") {
                ok("User-agent: *\nDisallow: /a/\n")
            } else if target == copy_target("20240102000000") {
                Reply::Answer(302, vec![("Location", to.clone())], Vec::new())
            } else if target == copy_target("20240102000005") {
                ok("User-agent: *\nDisallow: /b/\n")
            } else {
                ok("User-agent: *\nDisallow: /planted/\n")
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let into = dir.path().join("history");
        let output = import_wayback(&archive, &into)
            .args(["--retries", "0", "https://example.com"])
            .output()
            .unwrap();
        let stderr = stderr_text(&output);
        assert!(elsewhere.targets().is_empty(), "{location}: {stderr}");
        if inside {
            assert_eq!(output.status.code(), Some(0), "{location}: {stderr}");
            let rows = manifest_rows(&into);
            assert_eq!(rows.len(), 2, "{location}: {rows:?}");
            assert_eq!(
                fs::read_to_string(into.join(&rows[1]["file"])).unwrap(),
                "User-agent: *\nDisallow: /b/\n",
                "{location}"
            );
            continue;
        }
        assert_eq!(output.status.code(), Some(1), "{location}: {stderr}");
        for part in [
            "nothing imported",
            &copy_target("20240102000000"),
            "redirected to",
            &format!("outside {}/web/", archive.origin()),
        ] {
            assert!(
                stderr.contains(part),
                "{location}: {part:?} missing in {stderr}"
            );
        }
        assert!(!into.join("manifest.csv").exists(), "{location}");
        assert!(
            archive
                .targets()
                .iter()
                .all(|t| !t.contains("planted") && t != "/robots.txt"),
            "{location}: {:?}",
            archive.targets()
        );
    }

    // A redirect inside the archive is followed a bounded number of times.
    let looping = Server::start(|target| {
        if target.starts_with("/cdx/search/cdx?") {
            return ok(r#"[["timestamp","statuscode","digest"],["20240101000000","-","AAA"]]"#);
        }
        Reply::Answer(302, vec![("Location", target.to_owned())], Vec::new())
    });
    let dir = tempfile::tempdir().unwrap();
    import_wayback(&looping, &dir.path().join("history"))
        .arg("https://example.com")
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "still a redirect after 5 redirects",
        ));
    assert_eq!(looping.targets().len(), 2 + 6, "{:?}", looping.targets());

    // The index's redirects stay on the archive's origin too.
    let archive = Server::start(move |_| redirect(format!("{other}/cdx/search/cdx")));
    let dir = tempfile::tempdir().unwrap();
    import_wayback(&archive, &dir.path().join("history"))
        .args(["--retries", "0", "https://example.com"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("redirected to"));
    assert!(elsewhere.targets().is_empty());
}

/// A history of 12 captures that needs 6 copies: contents read once and met again, a 4xx and a
/// 5xx (no copy), two captures in one second, revisits known and not, a redirect.
const LONG_INDEX: &str = r#"[["timestamp","statuscode","digest"],
["20240101000000","200","A"],
["20240102000000","200","A"],
["20240103000000","404","N"],
["20240104000000","200","B"],
["20240104000000","200","C"],
["20240105000000","-","A"],
["20240106000000","-","D"],
["20240107000000","503","E"],
["20240108000000","200","F"],
["20240109000000","301","R"],
["20240110000000","-","F"],
["20240111000000","200","G"]]"#;

/// The copies of [`LONG_INDEX`], by timestamp.
fn long_history_copies() -> HashMap<&'static str, &'static str> {
    HashMap::from([
        ("20240101000000", "User-agent: *\nDisallow: /a/\n"),
        ("20240104000000", "User-agent: *\nDisallow: /b/\n"),
        ("20240106000000", "User-agent: *\nDisallow: /d/\n"),
        ("20240108000000", "User-agent: *\nDisallow: /f/\n"),
        ("20240111000000", "User-agent: *\nDisallow: /g/\n"),
    ])
}

/// The copies a server was asked for since it had been asked `since` requests.
fn copies_asked(server: &Server, since: usize) -> Vec<String> {
    index_and_copies(server.targets()[since..].to_vec()).1
}

/// `--max-copies` bounds what one run reads of an origin; the run says so, even with --quiet,
/// and exits 3; each next run reads only copies no run has read, goes on where the last one
/// stopped, and the runs end with the manifest one run without a cap writes.
#[test]
fn wayback_reads_at_most_max_copies_a_run_and_the_next_run_goes_on() {
    let server = wayback_service(|_| ok(LONG_INDEX), long_history_copies());
    let dir = tempfile::tempdir().unwrap();
    let (whole, capped) = (dir.path().join("whole"), dir.path().join("capped"));
    import_wayback(&server, &whole)
        .arg("https://example.com")
        .assert()
        .code(0)
        .stderr(predicates::str::contains(
            "12 captures (1 redirect skipped), 6 copies read, 8 new rows",
        ));
    let all_copies = copies_asked(&server, 0);
    assert_eq!(all_copies.len(), 6, "{all_copies:?}");

    let stops = [
        Some("8 of the period's 12 captures left for the next run, from 2024-01-04T00:00:00Z"),
        Some("4 of the period's 12 captures left for the next run, from 2024-01-08T00:00:00Z"),
        None,
    ];
    let mut copies = Vec::new();
    for stop in stops {
        let asked = server.targets().len();
        let output = import_wayback(&server, &capped)
            .args(["-q", "--max-copies", "2", "https://example.com"])
            .output()
            .unwrap();
        let stderr = stderr_text(&output);
        let run_copies = copies_asked(&server, asked);
        assert_eq!(run_copies.len(), 2, "{run_copies:?}");
        copies.extend(run_copies);
        match stop {
            Some(left) => {
                assert_eq!(output.status.code(), Some(3), "{stderr}");
                let warning = format!(
                    "robots-audit: import: https://example.com: stopped after 2 copies \
                     (--max-copies 2): {left}"
                );
                assert!(stderr.contains(&warning), "{warning:?} missing in {stderr}");
                assert_eq!(stderr.lines().count(), 1, "{stderr}");
            }
            None => {
                assert_eq!(output.status.code(), Some(0), "{stderr}");
                assert_eq!(stderr, "");
            }
        }
    }
    assert_eq!(
        copies, all_copies,
        "each copy read once, in the order of one run"
    );
    assert_eq!(
        fs::read(capped.join("manifest.csv")).unwrap(),
        fs::read(whole.join("manifest.csv")).unwrap()
    );

    // Nothing is left: a run reads no copy and adds nothing.
    for into in [&capped, &whole] {
        let asked = server.targets().len();
        let manifest = fs::read(into.join("manifest.csv")).unwrap();
        import_wayback(&server, into)
            .args(["--max-copies", "1", "https://example.com"])
            .assert()
            .code(0)
            .stderr(predicates::str::contains("0 copies read, 0 new rows"));
        assert_eq!(copies_asked(&server, asked), Vec::<String>::new());
        assert_eq!(fs::read(into.join("manifest.csv")).unwrap(), manifest);
    }

    robots_audit_local()
        .args([
            "import",
            "--wayback",
            "--max-copies",
            "0",
            "--into",
            "x",
            "a.example",
        ])
        .assert()
        .code(2);
}

/// A robots.txt of `size` bytes, different for each `n`.
fn big_robots(n: usize, size: usize) -> Vec<u8> {
    let mut body = format!("User-agent: *\nDisallow: /version-{n}/\n").into_bytes();
    while body.len() < size {
        body.extend_from_slice(b"# padding padding padding padding padding padding padding\n");
    }
    body.truncate(size);
    body
}

/// 2,000 distinct archived copies of 500 KiB each (1 GB in all) go through `import
/// --wayback` with memory that does not grow with their number. Ignored by default (it moves
/// a gigabyte over loopback); `cargo test --test tests -- --ignored wayback_memory` runs it and
/// prints the peak (docs/pending-cli.md has the numbers).
#[test]
#[ignore = "moves 1 GB over loopback; run by hand to measure"]
fn wayback_memory_does_not_grow_with_the_copies() {
    const COPIES: usize = 2_000;
    let stamp = |i: usize| {
        let hours = i64::try_from(i).unwrap();
        jiff::Timestamp::from_second(1_704_067_200 + hours * 3600)
            .unwrap()
            .strftime("%Y%m%d%H%M%S")
            .to_string()
    };
    let mut index = String::from(r#"[["timestamp","statuscode","digest"]"#);
    for i in 0..COPIES {
        index.push_str(&format!(r#",["{}","200","D{i}"]"#, stamp(i)));
    }
    index.push(']');
    let stamps: HashMap<String, usize> = (0..COPIES).map(|i| (stamp(i), i)).collect();
    assert_eq!(stamps.len(), COPIES, "distinct capture times");
    let server = Server::start_with_limit(COPIES + 8, move |target| {
        if target.starts_with("/cdx/") {
            return ok(index.clone());
        }
        let copy = target
            .strip_prefix("/web/")
            .and_then(|rest| rest.split_once("id_/"))
            .and_then(|(stamp, _)| stamps.get(stamp));
        match copy {
            Some(&n) => ok(big_robots(n, 500 * 1024)),
            None => status(404),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    let mut child = robots_audit_local_process()
        .args([
            "import",
            "-q",
            "--wayback",
            "--delay",
            "0s",
            "--max-copies",
            &COPIES.to_string(),
            "--wayback-url",
        ])
        .arg(server.origin())
        .arg("--into")
        .arg(&into)
        .arg("https://example.com")
        .spawn()
        .unwrap();
    let started = Instant::now();
    let (status, peak) = peak_memory_kib(&mut child);
    assert!(status.success());
    assert_eq!(manifest_rows(&into).len(), COPIES);
    eprintln!(
        "import --wayback, {COPIES} copies of 500 KiB: peak memory {} KiB, {:.1} s",
        peak.map_or("unknown".into(), |p| p.to_string()),
        started.elapsed().as_secs_f64()
    );
    if let Some(peak) = peak {
        assert!(peak < 128 * 1024, "peak {peak} KiB");
    }
}

/// Runs git in `repo` with input on standard input; returns its standard output, trimmed.
fn git_stdin(repo: &Path, args: &[&str], input: &[u8]) -> String {
    let mut child = StdCommand::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Commits an index entry of any mode at `path` (a symbolic link, a submodule) without making
/// it in the work tree.
fn commit_entry(repo: &Path, mode: &str, object: &str, path: &str, time: &str) {
    let entry = format!("{mode},{object},{path}");
    git(
        repo,
        &["update-index", "--add", "--cacheinfo", &entry],
        time,
    );
    git(repo, &["commit", "-q", "-m", path], time);
}

/// A symbolic link or a submodule at the path is never stored as content: the import is an
/// error that names the commit, and the manifest stays as it was.
#[test]
fn git_a_symlink_or_submodule_at_the_path_is_an_error_naming_the_commit() {
    for kind in ["symlink", "submodule"] {
        let dir = tempfile::tempdir().unwrap();
        let repo = new_repo(dir.path(), "2026-03-01T00:00:00Z");
        commit_file(
            &repo,
            "robots.txt",
            Some("User-agent: *\nDisallow: /a/\n"),
            "2026-03-01T10:00:00Z",
        );
        git(&repo, &["rm", "-q", "robots.txt"], "2026-03-02T10:00:00Z");
        let (mode, object) = match kind {
            "symlink" => (
                "120000",
                git_stdin(
                    &repo,
                    &["hash-object", "-w", "--stdin"],
                    b"secret/robots.txt",
                ),
            ),
            _ => (
                "160000",
                "0123456789abcdef0123456789abcdef01234567".to_owned(),
            ),
        };
        commit_entry(&repo, mode, &object, "robots.txt", "2026-03-02T10:00:00Z");
        let commit = git_stdin(&repo, &["rev-parse", "HEAD"], b"");
        let into = dir.path().join("history");
        let before = "origin,valid_from,status,file\nhttps://example.com,,404,\n";
        write(&into, "manifest.csv", before);
        let output = robots_audit_local()
            .args(["import", "--git"])
            .arg(&repo)
            .args(["--path", "robots.txt", "--origin", "example.com", "--into"])
            .arg(&into)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{kind}: {output:?}");
        let stderr = stderr_text(&output);
        let what = match kind {
            "symlink" => "robots.txt is a symbolic link (to \"secret/robots.txt\")",
            _ => "robots.txt is a submodule (commit 0123456789abcdef",
        };
        for part in [
            what,
            &format!("in commit {commit}"),
            &format!("--rev {commit}^"),
        ] {
            assert!(
                stderr.contains(part),
                "{kind}: {part:?} missing in {stderr}"
            );
        }
        assert_eq!(
            fs::read_to_string(into.join("manifest.csv")).unwrap(),
            before,
            "{kind}"
        );
        // The history before it imports.
        robots_audit_local()
            .args(["import", "-q", "--git"])
            .arg(&repo)
            .args(["--rev", &format!("{commit}^"), "--path", "robots.txt"])
            .args(["--origin", "example.com", "--into"])
            .arg(&into)
            .assert()
            .success();
        let rows = manifest_rows(&into);
        assert_eq!(rows.len(), 2, "{kind}: {rows:?}");
        assert_eq!(rows[1]["valid_from"], "2026-03-01T10:00:00Z");
    }
}

/// Blobs of 250 MB at the path: only their first 500 KiB are read (and stored), with memory
/// that does not depend on their size. Ignored by default (it writes a gigabyte);
/// `cargo test --test tests -- --ignored git_memory` runs it and prints the peak
/// (docs/pending-cli.md has the numbers).
#[test]
#[ignore = "writes 1 GB into a throwaway repository; run by hand to measure"]
fn git_memory_does_not_grow_with_the_blobs() {
    const BLOBS: usize = 4;
    const SIZE: usize = 250_000_000;
    let dir = tempfile::tempdir().unwrap();
    let repo = new_repo(dir.path(), "2026-04-01T00:00:00Z");
    for n in 0..BLOBS {
        write(&repo, "robots.txt", big_robots(n, SIZE));
        let time = format!("2026-04-0{}T10:00:00Z", n + 1);
        git(&repo, &["add", "robots.txt"], &time);
        git(&repo, &["commit", "-q", "-m", "big"], &time);
    }
    let into = dir.path().join("history");
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("robots-audit"))
        .args(["import", "-q", "--git"])
        .arg(&repo)
        .args(["--path", "robots.txt", "--origin", "example.com", "--into"])
        .arg(&into)
        .spawn()
        .unwrap();
    let started = Instant::now();
    let (status, peak) = peak_memory_kib(&mut child);
    assert!(status.success());
    let rows = manifest_rows(&into);
    assert_eq!(rows.len(), BLOBS);
    for (n, row) in rows.iter().enumerate() {
        let stored = fs::read(into.join(&row["file"])).unwrap();
        assert_eq!(stored, big_robots(n, 512_000), "row {n}");
    }
    eprintln!(
        "import --git, {BLOBS} blobs of {SIZE} bytes: peak memory {} KiB, {:.1} s",
        peak.map_or("unknown".into(), |p| p.to_string()),
        started.elapsed().as_secs_f64()
    );
    if let Some(peak) = peak {
        assert!(peak < 64 * 1024, "peak {peak} KiB");
    }
}

/// Commits `robots.txt` with `content` as written by `author_time` and landed at
/// `committer_time` (a rebase or a cherry-pick makes them differ).
fn commit_landed(repo: &Path, content: &str, author_time: &str, committer_time: &str) {
    write(repo, "robots.txt", content);
    git(repo, &["add", "robots.txt"], committer_time);
    let out = StdCommand::new("git")
        .arg("-C")
        .arg(repo)
        .args(["commit", "-q", "-m", content])
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_AUTHOR_DATE", author_time)
        .env("GIT_COMMITTER_DATE", committer_time)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// `import --git` of `repo`'s robots.txt into `into`, as https://example.com.
fn import_git(repo: &Path, into: &Path) -> assert_cmd::Command {
    let mut cmd = robots_audit_local();
    cmd.args(["import", "--git"])
        .arg(repo)
        .args(["--path", "robots.txt", "--origin", "https://example.com"])
        .arg("--into")
        .arg(into);
    cmd
}

/// A version is in force from its commit's committer time, never its author time; a committer
/// time before the previous commit's (a clock behind) is raised to it.
#[test]
fn git_versions_are_dated_by_committer_time_raised_to_keep_the_order() {
    let dir = tempfile::tempdir().unwrap();
    let repo = new_repo(dir.path(), "2026-01-01T00:00:00Z");
    let cases = [
        // (content, author time, committer time)
        (
            "Disallow: /a/\n",
            "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z",
        ),
        // Written long before, landed on the branch later (a rebase): the landing counts.
        (
            "Disallow: /b/\n",
            "2025-06-01T00:00:00Z",
            "2026-01-02T10:00:00Z",
        ),
        // Written after it landed? Only a rewritten author time does that; it is not read.
        (
            "Disallow: /c/\n",
            "2026-09-09T09:09:09Z",
            "2026-01-03T10:00:00Z",
        ),
        // A committer clock a day behind: raised to the previous commit's time, where it
        // replaces that commit's version (the later answer of a second wins).
        (
            "Disallow: /d/\n",
            "2026-01-02T10:00:00Z",
            "2026-01-02T12:00:00Z",
        ),
        (
            "Disallow: /e/\n",
            "2026-01-05T10:00:00Z",
            "2026-01-05T10:00:00Z",
        ),
    ];
    for (content, author, committer) in cases {
        commit_landed(&repo, content, author, committer);
    }
    let into = dir.path().join("history");
    import_git(&repo, &into).assert().success();
    let rows = manifest_rows(&into);
    let got: Vec<(&str, String)> = rows
        .iter()
        .map(|r| {
            let content = fs::read_to_string(into.join(&r["file"])).unwrap();
            (r["valid_from"].as_str(), content)
        })
        .collect();
    assert_eq!(
        got,
        [
            ("2026-01-01T10:00:00Z", "Disallow: /a/\n".to_owned()),
            ("2026-01-02T10:00:00Z", "Disallow: /b/\n".to_owned()),
            ("2026-01-03T10:00:00Z", "Disallow: /d/\n".to_owned()),
            ("2026-01-05T10:00:00Z", "Disallow: /e/\n".to_owned()),
        ]
    );
}

/// A committer time far in the future would be raised onto every later commit, and one git
/// cannot read (before 1970) is no time: either is an error naming the commit, and the
/// manifest stays as it was; the history before it imports.
#[test]
fn git_a_commit_dated_in_the_future_or_before_1970_is_an_error_naming_it() {
    for (kind, time) in [
        ("future", "4102444800 +0000"),
        ("before 1970", "-100 +0000"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let repo = new_repo(dir.path(), "2026-01-01T00:00:00Z");
        commit_file(
            &repo,
            "robots.txt",
            Some("User-agent: *\nDisallow: /a/\n"),
            "2024-01-01T00:00:00Z",
        );
        write(&repo, "robots.txt", "User-agent: *\nDisallow: /b/\n");
        git(&repo, &["add", "robots.txt"], "2024-01-01T00:00:00Z");
        let tree = git_stdin(&repo, &["write-tree"], b"");
        let parent = git_stdin(&repo, &["rev-parse", "HEAD"], b"");
        // git refuses to make such a commit itself; a repository may still hold one.
        let object = format!(
            "tree {tree}\nparent {parent}\nauthor T <t@example.com> {time}\n\
             committer T <t@example.com> {time}\n\nodd clock\n"
        );
        let commit = git_stdin(
            &repo,
            &[
                "hash-object",
                "--literally",
                "-t",
                "commit",
                "-w",
                "--stdin",
            ],
            object.as_bytes(),
        );
        git_stdin(&repo, &["update-ref", "HEAD", &commit], b"");
        commit_file(
            &repo,
            "robots.txt",
            Some("User-agent: *\nDisallow: /c/\n"),
            "2024-03-01T00:00:00Z",
        );
        let into = dir.path().join("history");
        let before = "origin,valid_from,status,file\nhttps://example.com,,404,\n";
        write(&into, "manifest.csv", before);
        let output = import_git(&repo, &into).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{kind}: {output:?}");
        let stderr = stderr_text(&output);
        let what = match kind {
            "future" => "committer time 2100-01-01T00:00:00Z is in the future".to_owned(),
            _ => "git reads no committer time in it (a date before 1970".to_owned(),
        };
        for part in [
            format!("commit {commit}: "),
            what,
            format!("--rev {commit}^"),
        ] {
            assert!(stderr.contains(&part), "{kind}: {part:?} not in {stderr}");
        }
        assert_eq!(
            fs::read_to_string(into.join("manifest.csv")).unwrap(),
            before,
            "{kind}"
        );
        import_git(&repo, &into)
            .args(["-q", "--rev", &format!("{commit}^")])
            .assert()
            .success();
        let rows = manifest_rows(&into);
        assert_eq!(
            times_and_statuses(&rows),
            [("", "404"), ("2024-01-01T00:00:00Z", "200")],
            "{kind}"
        );
    }
}

/// A shallow clone lists its oldest commit as the one that added the file: the import says
/// that the version in force then is dated from that commit, even with -q; a full clone of
/// the same history says nothing of the kind.
#[test]
fn git_a_shallow_clone_is_named_with_the_commit_its_history_starts_at() {
    let dir = tempfile::tempdir().unwrap();
    let repo = new_repo(dir.path(), "2026-01-01T00:00:00Z");
    commit_file(
        &repo,
        "robots.txt",
        Some("Disallow: /a/\n"),
        "2024-01-01T00:00:00Z",
    );
    commit_file(&repo, "README", Some("one"), "2024-02-01T00:00:00Z");
    commit_file(&repo, "README", Some("two"), "2024-03-01T00:00:00Z");
    let url = format!("file://{}", repo.display());
    let clone = |name: &str, depth: &[&str]| {
        let path = dir.path().join(name);
        let out = StdCommand::new("git")
            .args(["clone", "-q"])
            .args(depth)
            .arg(&url)
            .arg(&path)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        path
    };
    let shallow = clone("shallow", &["--depth", "2"]);
    let full = clone("full", &[]);
    let boundary = git_stdin(&shallow, &["rev-parse", "HEAD^"], b"");

    let output = import_git(&shallow, &dir.path().join("from-shallow"))
        .arg("-q")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stderr = stderr_text(&output);
    assert!(
        stderr.contains(&format!(
            "is a shallow clone: the history before commit {boundary} (2024-02-01T00:00:00Z) is \
             not in it"
        )) && stderr.contains("git fetch --unshallow"),
        "{stderr}"
    );
    let rows = manifest_rows(&dir.path().join("from-shallow"));
    assert_eq!(times_and_statuses(&rows), [("2024-02-01T00:00:00Z", "200")]);

    let output = import_git(&full, &dir.path().join("from-full"))
        .arg("-q")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stderr_text(&output), "");
    let rows = manifest_rows(&dir.path().join("from-full"));
    assert_eq!(times_and_statuses(&rows), [("2024-01-01T00:00:00Z", "200")]);
}

/// An import stopped part-way (killed: a job's time limit) keeps the copies it read, written
/// every `SAVE_EVERY` copies, so the next run reads only the others instead of reading the same
/// copies again and being stopped at the same place every night.
#[test]
fn wayback_a_killed_import_keeps_the_copies_it_read() {
    use robots_audit::history::copies::{COPIES_NAME, SAVE_EVERY};
    let count = SAVE_EVERY + 10;
    let captures: Vec<CdxRow> = (0..count)
        .map(|i| {
            let stamp = format!("2024{:02}{:02}000000", 1 + i / 28, 1 + i % 28);
            let digest: &'static str = Box::leak(format!("D{i:03}").into_boxed_str());
            (stamp, "200", digest)
        })
        .collect();
    let stamps: Vec<String> = captures.iter().map(|c| c.0.clone()).collect();
    let stuck_at = SAVE_EVERY + 5;
    let hang = Arc::new(AtomicBool::new(true));
    let server = {
        let hang = Arc::clone(&hang);
        Server::start_with_limit(4 * count, move |target| {
            if target.starts_with("/cdx/search/cdx?") {
                return collapsed_index(target, &captures, 150_000);
            }
            let copy = target
                .strip_prefix("/web/")
                .and_then(|rest| rest.split_once("id_/"))
                .and_then(|(stamp, _)| stamps.iter().position(|s| s == stamp));
            match copy {
                Some(i) if i == stuck_at && hang.load(Ordering::SeqCst) => {
                    Reply::Hang(Duration::from_secs(30))
                }
                Some(i) => ok(format!("User-agent: *\nDisallow: /{i}/\n")),
                None => status(404),
            }
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history");
    let mut child = robots_audit_local_process()
        .args(["import", "-q", "--wayback", "--wayback-url"])
        .arg(server.origin())
        .args([
            "--delay",
            "0s",
            "--backoff",
            "10ms",
            "--timeout",
            "60s",
            "--into",
        ])
        .arg(&into)
        .arg("https://example.com")
        .spawn()
        .unwrap();
    let start = Instant::now();
    while copies_asked(&server, 0).len() <= stuck_at && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // The import waits for the copy that hangs; the copies before it were read.
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(copies_asked(&server, 0).len(), stuck_at + 1);
    let log = fs::read_to_string(into.join(COPIES_NAME)).expect("the copy log was written");
    assert_eq!(log.lines().count(), 1 + SAVE_EVERY, "{log}");

    hang.store(false, Ordering::SeqCst);
    let asked = server.targets().len();
    import_wayback(&server, &into)
        .args(["-q", "https://example.com"])
        .assert()
        .code(0);
    let again = copies_asked(&server, asked);
    assert_eq!(again.len(), count - SAVE_EVERY, "{again:?}");
    let first_read: Vec<String> = copies_asked(&server, 0)[..SAVE_EVERY].to_vec();
    assert!(
        again.iter().all(|copy| !first_read.contains(copy)),
        "{again:?}"
    );
    assert_eq!(manifest_rows(&into).len(), count);
}
