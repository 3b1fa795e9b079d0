//! `fetch` against hostile servers (docs/guide/robots-sources.md, "Robots history"): every
//! status line, header, redirect and byte of body is a stranger's. The servers are raw TCP on
//! 127.0.0.1, each accepting a bounded number of connections, and every fetch has a timeout.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use robots_audit::history::fetch::{FetchOptions, Fetched};
use robots_audit::origin::Origin;
use robots_audit::versions::FetchStatus;

/// What a connection is answered with: the request target, the stream, and the server's stop
/// flag (a script that writes for long checks it).
type Script = dyn Fn(&str, &mut TcpStream, &AtomicBool) + Send + Sync;

/// A server on 127.0.0.1 that answers each of at most 16 connections by running a script.
struct Raw {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Raw {
    fn start(script: impl Fn(&str, &mut TcpStream, &AtomicBool) + Send + Sync + 'static) -> Raw {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let script: Arc<Script> = Arc::new(script);
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for stream in listener.incoming().take(16) {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(mut stream) = stream else { continue };
                    let (stop, script) = (Arc::clone(&stop), Arc::clone(&script));
                    std::thread::spawn(move || {
                        if let Some(target) = read_head(&mut stream) {
                            script(&target, &mut stream, &stop);
                        }
                    });
                }
            })
        };
        Raw {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    fn origin(&self) -> Origin {
        Origin::parse(&format!("http://{}", self.addr)).unwrap()
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads a request head (at most 16 KiB) and returns its target.
fn read_head(stream: &mut TcpStream) -> Option<String> {
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 16 << 10 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return None,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    Some(head.split(' ').nth(1).unwrap_or_default().to_owned())
}

/// Writes `bytes` as they are, then closes the connection.
fn say(
    bytes: impl AsRef<[u8]> + Send + Sync + 'static,
) -> impl Fn(&str, &mut TcpStream, &AtomicBool) {
    move |_, stream, _| {
        let _ = stream.write_all(bytes.as_ref());
    }
}

/// Writes `head`, then `piece` every `every` until the server stops or the client leaves.
fn trickle(
    head: &'static str,
    piece: &'static str,
    every: Duration,
) -> impl Fn(&str, &mut TcpStream, &AtomicBool) {
    move |_, stream, stop| {
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        while !stop.load(Ordering::SeqCst) && stream.write_all(piece.as_bytes()).is_ok() {
            std::thread::sleep(every);
        }
    }
}

fn fetch(origins: &[Origin], timeout: Duration, concurrency: usize) -> Vec<Fetched> {
    let options = FetchOptions {
        timeout,
        concurrency,
        ..FetchOptions::default()
    };
    crate::common::fetch_in_order(origins, &options)
}

#[test]
fn fetch_timeout_bounds_trickled_heads_and_bodies() {
    let servers = [
        // One header line at a time, forever.
        Raw::start(trickle(
            "HTTP/1.1 200 OK\r\n",
            "X-Slow: yes\r\n",
            Duration::from_millis(100),
        )),
        // A body announced long, one byte at a time.
        Raw::start(trickle(
            "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n",
            "a",
            Duration::from_millis(100),
        )),
        // A chunked body, one small chunk at a time, never ending.
        Raw::start(trickle(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            "1\r\na\r\n",
            Duration::from_millis(100),
        )),
        // A redirect whose body never ends, then a target that trickles.
        Raw::start(|target, stream, stop| {
            if target == "/robots.txt" {
                let _ = stream.write_all(
                    b"HTTP/1.1 301 Moved\r\nLocation: /slow\r\nContent-Length: 100000\r\n\r\n",
                );
            }
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
            while !stop.load(Ordering::SeqCst) && stream.write_all(b"a").is_ok() {
                std::thread::sleep(Duration::from_millis(100));
            }
        }),
        // Five redirects, each answered after 300 ms: the timeout covers them all.
        Raw::start(|target, stream, _| {
            std::thread::sleep(Duration::from_millis(300));
            let hop: usize = target.trim_start_matches("/hop/").parse().unwrap_or(0);
            let answer = format!(
                "HTTP/1.1 302 Found\r\nLocation: /hop/{}\r\nContent-Length: 0\r\n\r\n",
                hop + 1
            );
            let _ = stream.write_all(answer.as_bytes());
        }),
    ];
    let origins: Vec<Origin> = servers.iter().map(Raw::origin).collect();
    let started = Instant::now();
    // Two at a time: five slow origins cost three timeouts, not five silences.
    let fetched = fetch(&origins, Duration::from_millis(800), 2);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "took {took:?}");
    for (i, f) in fetched.iter().enumerate() {
        assert_eq!(
            f.observation.status,
            FetchStatus::Unreachable,
            "server {i}: {f:?}"
        );
        assert!(
            f.error.as_ref().unwrap().contains("imeout"),
            "server {i}: {f:?}"
        );
    }
}

#[test]
fn fetch_bounds_endless_and_compressed_bodies_at_500_kib() {
    let bomb = {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            gz.write_all(&zeros).unwrap();
        }
        gz.finish().unwrap()
    };
    let servers = [
        // A chunked body as fast as the client reads, never ending.
        Raw::start(|_, stream, stop| {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
            let chunk = format!("1000\r\n{}\r\n", "a".repeat(0x1000));
            while !stop.load(Ordering::SeqCst) && stream.write_all(chunk.as_bytes()).is_ok() {}
        }),
        // 64 MiB of zeros in 64 KiB of gzip.
        Raw::start(move |_, stream, _| {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
                bomb.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&bomb);
        }),
        // A Content-Length shorter than what follows: only the announced bytes are the body.
        Raw::start(say(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nUser-agent: *\nDisallow: /\n",
        )),
    ];
    let origins: Vec<Origin> = servers.iter().map(Raw::origin).collect();
    let fetched = fetch(&origins, Duration::from_secs(10), 3);
    let statuses: Vec<FetchStatus> = fetched.iter().map(|f| f.observation.status).collect();
    assert_eq!(statuses, [FetchStatus::Http(200); 3], "{fetched:?}");
    let lens: Vec<usize> = fetched
        .iter()
        .map(|f| f.observation.body.as_ref().unwrap().len())
        .collect();
    assert_eq!(lens, [512_000, 512_000, 5]);
}

#[test]
fn fetch_redirects_that_cannot_be_followed_are_their_3xx() {
    let servers = [
        Raw::start(say("HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n")),
        Raw::start(say(
            "HTTP/1.1 301 Moved\r\nLocation: ftp://files.example/robots.txt\r\nContent-Length: 0\r\n\r\n",
        )),
        Raw::start(say(
            "HTTP/1.1 301 Moved\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\n\r\n",
        )),
        Raw::start(say(
            "HTTP/1.1 307 Moved\r\nLocation: data:text/plain,User-agent:%20*%0ADisallow:%20/\r\nContent-Length: 0\r\n\r\n",
        )),
        Raw::start(say(
            b"HTTP/1.1 308 Moved\r\nLocation: /r\xFFobots\r\nContent-Length: 0\r\n\r\n".to_vec(),
        )),
        Raw::start(say(
            "HTTP/1.1 301 Moved\r\nLocation: http://[not a host/\r\nContent-Length: 0\r\n\r\n",
        )),
    ];
    let origins: Vec<Origin> = servers.iter().map(Raw::origin).collect();
    let fetched = fetch(&origins, Duration::from_secs(5), 6);
    let statuses: Vec<FetchStatus> = fetched.iter().map(|f| f.observation.status).collect();
    use FetchStatus::Http;
    assert_eq!(
        statuses,
        [
            Http(302),
            Http(301),
            Http(301),
            Http(307),
            Http(308),
            Http(301)
        ],
        "{fetched:#?}"
    );
    for f in &fetched {
        assert_eq!(f.observation.body, None);
        let note = f.error.as_deref().unwrap_or_default();
        assert!(note.contains("not followed"), "{note}");
    }
}

#[test]
fn fetch_follows_relative_and_cross_host_redirects() {
    let far = Raw::start(|target, stream, _| {
        let answer: &[u8] = match target {
            "/robots.txt" => {
                b"HTTP/1.1 200 OK\r\nContent-Length: 25\r\n\r\nUser-agent: *\nDisallow: /"
            }
            _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
        };
        let _ = stream.write_all(answer);
    });
    let far_robots = format!("http://user:pw@{}/robots.txt#top", far.addr);
    let servers = [
        Raw::start(|target, stream, _| {
            let answer: &[u8] = match target {
                // Dot segments past the root stop at the root, as a browser resolves them.
                "/robots.txt" => b"HTTP/1.1 301 Moved\r\nLocation: ../../r\xc3\xb6bots.txt\r\nContent-Length: 0\r\n\r\n",
                // UTF-8 in a Location is sent percent-encoded.
                "/r%C3%B6bots.txt" => b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
            };
            let _ = stream.write_all(answer);
        }),
        // To another port, with user info and a fragment, neither of which is sent.
        Raw::start(move |_, stream, _| {
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 302 Found\r\nLocation: {far_robots}\r\nContent-Length: 0\r\n\r\n"
                )
                .as_bytes(),
            );
        }),
    ];
    let origins: Vec<Origin> = servers.iter().map(Raw::origin).collect();
    let fetched = fetch(&origins, Duration::from_secs(5), 2);
    let bodies: Vec<(FetchStatus, Option<&[u8]>)> = fetched
        .iter()
        .map(|f| (f.observation.status, f.observation.body.as_deref()))
        .collect();
    assert_eq!(
        bodies,
        [
            (FetchStatus::Http(200), Some(&b"ok"[..])),
            (
                FetchStatus::Http(200),
                Some(&b"User-agent: *\nDisallow: /"[..])
            ),
        ],
        "{fetched:#?}"
    );
}

#[test]
fn fetch_odd_answers_are_unreachable_or_read_as_http_reads_them() {
    let servers = [
        // Not HTTP at all.
        Raw::start(say("SSH-2.0-OpenSSH_9.6\r\n")),
        // A chunked body cut off mid-chunk.
        Raw::start(say(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n20\r\nUser-agent: *\nDis",
        )),
        // An interim 100 before the answer.
        Raw::start(say(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        )),
        // Gzip that is not gzip.
        Raw::start(say(
            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 10\r\n\r\nnot gzip!!",
        )),
    ];
    let origins: Vec<Origin> = servers.iter().map(Raw::origin).collect();
    let fetched = fetch(&origins, Duration::from_secs(5), 4);
    let got: Vec<(FetchStatus, Option<&[u8]>)> = fetched
        .iter()
        .map(|f| (f.observation.status, f.observation.body.as_deref()))
        .collect();
    use FetchStatus::*;
    assert_eq!(
        got,
        [
            (Unreachable, None),
            (Unreachable, None),
            (Http(200), Some(&b"ok"[..])),
            (Unreachable, None),
        ],
        "{fetched:#?}"
    );
    assert!(fetched[1].error.as_ref().unwrap().contains("cut off"));
}

#[test]
fn fetch_a_user_agent_that_is_no_header_value_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    for command in [
        &["fetch", "--timeout", "2s"][..],
        &[
            "import",
            "--wayback",
            "--wayback-url",
            "http://127.0.0.1:1",
            "--retries",
            "0",
        ][..],
    ] {
        crate::common::robots_audit()
            .args(command)
            .args(["--user-agent", "Bot/1.0\r\nX-Injected: yes", "--into"])
            .arg(dir.path().join("history"))
            .arg("http://127.0.0.1:1")
            .assert()
            .code(2)
            .stderr(predicates::str::contains("--user-agent"));
    }
    assert!(!dir.path().join("history/manifest.csv").exists());
}

/// Each origin may send 500 KiB, and a list of origins may be long: what `fetch` holds at once
/// is the bodies of the fetches under way (`--concurrency`), not of every origin.
#[test]
fn fetch_memory_does_not_grow_with_the_origins() {
    const ORIGINS: usize = 64;
    let servers: Vec<Raw> = (0..ORIGINS)
        .map(|n| {
            Raw::start(move |_, stream, _| {
                let mut body = format!("User-agent: *\nDisallow: /site-{n}/\n").into_bytes();
                body.resize(512_000, b'#');
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            })
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let peak = |origins: &[Raw], into: &str| {
        let into = dir.path().join(into);
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("robots-audit"))
            .env_remove("http_proxy")
            .env_remove("HTTP_PROXY")
            .env_remove("all_proxy")
            .env_remove("ALL_PROXY")
            .args([
                "fetch",
                "-q",
                "--concurrency",
                "2",
                "--timeout",
                "20s",
                "--into",
            ])
            .arg(&into)
            .args(origins.iter().map(|s| s.origin().to_string()))
            .spawn()
            .unwrap();
        let (status, peak) = crate::common::peak_memory_kib(&mut child);
        assert!(status.success());
        let dirs = std::fs::read_dir(&into)
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_dir())
            .count();
        assert_eq!(dirs, origins.len(), "a file per origin");
        peak
    };
    let few = peak(&servers[..4], "few");
    let all = peak(&servers, "all");
    eprintln!("fetch, 4 and {ORIGINS} origins of 500 KiB: peak memory {few:?} and {all:?} KiB");
    if let (Some(few), Some(all)) = (few, all) {
        // 60 more bodies held to the end would be 30 MB more.
        assert!(all < few + 8 * 1024, "{few} KiB, then {all} KiB");
    }
}

/// A recording that fails stops the run: no fetch starts after it.
#[test]
fn fetch_stops_starting_fetches_once_recording_fails() {
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let servers: Vec<Raw> = (0..8)
        .map(|_| {
            let asked = Arc::clone(&asked);
            Raw::start(move |_, stream, _| {
                asked.fetch_add(1, Ordering::SeqCst);
                let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
            })
        })
        .collect();
    let origins: Vec<Origin> = servers.iter().map(Raw::origin).collect();
    let options = FetchOptions {
        timeout: Duration::from_secs(5),
        concurrency: 2,
        ..FetchOptions::default()
    };
    let mut given = 0;
    let result = robots_audit::history::fetch::fetch_all(&origins, &options, |_, _| {
        given += 1;
        Err(robots_audit::history::HistoryError::FetchThreads(
            std::io::Error::other("disk full"),
        ))
    });
    assert!(result.is_err());
    assert_eq!(given, 1);
    // The failing answer, and at most one more fetch under way in each thread.
    assert!(asked.load(Ordering::SeqCst) <= 3, "{asked:?}");
}
