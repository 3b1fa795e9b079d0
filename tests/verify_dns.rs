//! `audit --verify dns` against a DNS server each test starts on 127.0.0.1 (hickory-server with
//! in-memory zones): verified_dns, spoofed, unverified, one lookup per distinct address, the
//! cache file and `--offline`.

mod common;

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

use common::{read_csv, robots_audit, row, write};
use hickory_server::Server;
use hickory_server::net::runtime::Time;
use hickory_server::proto::rr::rdata::{A, PTR, SOA};
use hickory_server::proto::rr::{LowerName, Name, RData, Record, RecordType};
use hickory_server::server::{Request, RequestHandler, ResponseHandler, ResponseInfo};
use hickory_server::store::in_memory::InMemoryZoneHandler;
use hickory_server::zone_handler::{AxfrPolicy, Catalog, ZoneType};

fn name(text: &str) -> Name {
    Name::from_str(text).unwrap()
}

fn zone(origin: &str, records: &[(Name, RData)]) -> Arc<InMemoryZoneHandler> {
    let origin = name(origin);
    let mut handler =
        InMemoryZoneHandler::empty(origin.clone(), ZoneType::Primary, AxfrPolicy::Deny);
    let soa = SOA::new(
        name("ns.test."),
        name("hostmaster.test."),
        1,
        3600,
        600,
        86400,
        60,
    );
    assert!(handler.upsert_mut(Record::from_rdata(origin, 3600, RData::SOA(soa)), 1));
    for (owner, data) in records {
        assert!(handler.upsert_mut(Record::from_rdata(owner.clone(), 300, data.clone()), 1));
    }
    Arc::new(handler)
}

/// Queries seen, by `(name, type)`.
type QueryLog = Arc<Mutex<HashMap<(String, RecordType), usize>>>;

struct CountingHandler {
    catalog: Catalog,
    queries: QueryLog,
}

#[async_trait::async_trait]
impl RequestHandler for CountingHandler {
    async fn handle_request<R: ResponseHandler, T: Time>(
        &self,
        request: &Request,
        response_handle: R,
    ) -> ResponseInfo {
        if let Ok(info) = request.request_info() {
            let key = (info.query.name().to_string(), info.query.query_type());
            *self.queries.lock().unwrap().entry(key).or_default() += 1;
        }
        self.catalog
            .handle_request::<R, T>(request, response_handle)
            .await
    }
}

/// The DNS world:
///
/// | IP | PTR | forward |
/// | --- | --- | --- |
/// | 66.249.66.1 | crawl-66-249-66-1.googlebot.com | A 66.249.66.1 (genuine) |
/// | 66.249.66.5 | crawl-66-249-66-5.googlebot.com | A 66.249.66.5 (genuine) |
/// | 203.0.113.7 | crawl-fake.googlebot.com | A 66.249.66.200 (spoofed PTR) |
/// | 203.0.113.8 | none: NXDOMAIN | |
struct TestServer {
    address: SocketAddr,
    queries: QueryLog,
    stop: Option<Box<dyn FnOnce() + Send>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl TestServer {
    fn start() -> TestServer {
        let reverse = [
            ("66.249.66.1", "crawl-66-249-66-1.googlebot.com."),
            ("66.249.66.5", "crawl-66-249-66-5.googlebot.com."),
            ("203.0.113.7", "crawl-fake.googlebot.com."),
        ]
        .map(|(ip, host)| {
            (
                Name::from(ip.parse::<IpAddr>().unwrap()),
                RData::PTR(PTR(name(host))),
            )
        });
        let forward = [
            ("crawl-66-249-66-1.googlebot.com.", [66, 249, 66, 1]),
            ("crawl-66-249-66-5.googlebot.com.", [66, 249, 66, 5]),
            ("crawl-fake.googlebot.com.", [66, 249, 66, 200]),
        ]
        .map(|(host, ip)| (name(host), RData::A(A(Ipv4Addr::from(ip)))));
        let mut catalog = Catalog::new();
        catalog.upsert(
            LowerName::from(name("googlebot.com.")),
            vec![zone("googlebot.com.", &forward)],
        );
        catalog.upsert(
            LowerName::from(name("in-addr.arpa.")),
            vec![zone("in-addr.arpa.", &reverse)],
        );
        let queries = QueryLog::default();
        let handler = CountingHandler {
            catalog,
            queries: queries.clone(),
        };
        let (ready, started) = mpsc::channel();
        let thread = thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let socket = tokio::net::UdpSocket::bind((Ipv4Addr::LOCALHOST, 0))
                    .await
                    .unwrap();
                let address = socket.local_addr().unwrap();
                let mut server = Server::new(handler);
                server.register_socket(socket);
                let token = server.shutdown_token().clone();
                let stop: Box<dyn FnOnce() + Send> = Box::new(move || token.cancel());
                ready.send((address, stop)).unwrap();
                let _ = server.block_until_done().await;
            });
        });
        let (address, stop) = started.recv_timeout(Duration::from_secs(10)).unwrap();
        TestServer {
            address,
            queries,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    fn ptr_queries(&self) -> usize {
        self.queries
            .lock()
            .unwrap()
            .iter()
            .filter(|((_, kind), _)| *kind == RecordType::PTR)
            .map(|(_, n)| n)
            .sum()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

/// A night on one origin: each address asks for `/private/` (disallowed) several times.
fn night(dir: &Path, addresses: &[&str]) -> (std::path::PathBuf, std::path::PathBuf) {
    let robots = write(dir, "robots.txt", "User-agent: *\nDisallow: /private/\n");
    let mut log = String::new();
    for (i, address) in addresses.iter().enumerate() {
        for repeat in 0..3 {
            log.push_str(&format!(
                "{address} - - [20/Nov/2026:10:{:02}:{:02} +0000] \"GET /private/{i} HTTP/1.1\" 200 10 \"-\" \"{GOOGLEBOT}\"\n",
                i % 60,
                repeat
            ));
        }
    }
    (robots, write(dir, "access.log", log))
}

fn audit(dir: &Path, robots: &Path, log: &Path, extra: &[&str]) -> Vec<HashMap<String, String>> {
    let out = dir.join("out");
    robots_audit()
        .args(["audit", "-q", "--decisions", "--no-html", "--threads", "2"])
        .args(["--origin", "https://example.com", "--robots"])
        .arg(robots)
        .arg("--out")
        .arg(&out)
        .args(extra)
        .arg(log)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(0);
    read_csv(&out.join("violations.csv"))
        .into_iter()
        .map(|r| r.into_iter().collect())
        .collect()
}

fn verification_by_ip(rows: &[HashMap<String, String>]) -> HashMap<String, String> {
    let mut by_ip = HashMap::new();
    for r in rows {
        let previous = by_ip.insert(r["client_ip"].clone(), r["verification"].clone());
        assert!(previous.is_none_or(|p| p == r["verification"]), "{rows:?}");
    }
    by_ip
}

#[test]
fn dns_verifies_confirms_and_refutes_each_address_once() {
    let server = TestServer::start();
    let dir = tempfile::tempdir().unwrap();
    let addresses = ["66.249.66.1", "66.249.66.5", "203.0.113.7", "203.0.113.8"];
    let (robots, log) = night(dir.path(), &addresses);
    let cache = dir.path().join("dns.csv");
    let server_arg = server.address.to_string();
    let rows = audit(
        dir.path(),
        &robots,
        &log,
        &[
            "--verify",
            "dns",
            "--dns-server",
            &server_arg,
            "--dns-cache",
            cache.to_str().unwrap(),
        ],
    );
    assert_eq!(rows.len(), 12);
    let by_ip = verification_by_ip(&rows);
    assert_eq!(by_ip["66.249.66.1"], "verified_dns");
    assert_eq!(by_ip["66.249.66.5"], "verified_dns");
    // A PTR under googlebot.com whose forward lookup gives another address.
    assert_eq!(by_ip["203.0.113.7"], "spoofed");
    // NXDOMAIN: no PTR at all.
    assert_eq!(by_ip["203.0.113.8"], "spoofed");
    // Three requests per address, one reverse lookup per distinct address.
    assert_eq!(server.ptr_queries(), addresses.len());
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    let googlebot = row(&agents, "agent", "Googlebot");
    assert_eq!(googlebot["verified"], "6");
    assert_eq!(googlebot["spoofed"], "6");

    // The cache was written, one row per address.
    let written = std::fs::read_to_string(&cache).unwrap();
    for address in addresses {
        assert!(written.contains(address), "{written}");
    }

    // Offline, from the cache alone: the same verdicts, no query; an address not cached is
    // unverified.
    drop(server);
    let dir2 = tempfile::tempdir().unwrap();
    let mut more = addresses.to_vec();
    more.push("66.249.66.9");
    let (robots, log) = night(dir2.path(), &more);
    let rows = audit(
        dir2.path(),
        &robots,
        &log,
        &[
            "--verify",
            "dns",
            "--offline",
            "--dns-cache",
            cache.to_str().unwrap(),
        ],
    );
    let by_ip = verification_by_ip(&rows);
    assert_eq!(by_ip["66.249.66.1"], "verified_dns");
    assert_eq!(by_ip["203.0.113.7"], "spoofed");
    assert_eq!(by_ip["203.0.113.8"], "spoofed");
    assert_eq!(by_ip["66.249.66.9"], "unverified");
}

/// A server that never answers: unverified, never spoofed, within the timeout.
#[test]
fn a_silent_server_leaves_requests_unverified() {
    let silent = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (robots, log) = night(dir.path(), &["66.249.66.1", "203.0.113.7"]);
    let server_arg = silent.local_addr().unwrap().to_string();
    let rows = audit(
        dir.path(),
        &robots,
        &log,
        &[
            "--verify",
            "dns",
            "--dns-server",
            &server_arg,
            "--dns-timeout",
            "300ms",
        ],
    );
    let by_ip = verification_by_ip(&rows);
    assert_eq!(by_ip["66.249.66.1"], "unverified");
    assert_eq!(by_ip["203.0.113.7"], "unverified");
}

/// Inside the published ranges stays `verified`: DNS is not asked.
#[test]
fn published_ranges_come_first() {
    let server = TestServer::start();
    let dir = tempfile::tempdir().unwrap();
    let (robots, log) = night(dir.path(), &["66.249.66.1"]);
    let ranges = write(
        dir.path(),
        "googlebot.json",
        r#"{"prefixes":[{"ipv4Prefix":"66.249.66.0/27"}]}"#,
    );
    let server_arg = server.address.to_string();
    let verify = format!("Googlebot={}", ranges.display());
    let rows = audit(
        dir.path(),
        &robots,
        &log,
        &[
            "--verify",
            &verify,
            "--verify",
            "dns",
            "--dns-server",
            &server_arg,
        ],
    );
    assert_eq!(verification_by_ip(&rows)["66.249.66.1"], "verified");
    assert_eq!(server.ptr_queries(), 0);
}

#[test]
fn dns_options_need_verify_dns() {
    let dir = tempfile::tempdir().unwrap();
    let (robots, log) = night(dir.path(), &["66.249.66.1"]);
    robots_audit()
        .args(["audit", "-q", "--origin", "https://example.com", "--robots"])
        .arg(&robots)
        .arg("--out")
        .arg(dir.path().join("out"))
        .args(["--offline", "--dns-cache", "x.csv"])
        .arg(&log)
        .assert()
        .code(2);
}
