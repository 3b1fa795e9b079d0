//! A DNS server on 127.0.0.1 for the tests and the benchmark of `--verify dns`.
//!
//! It owns [`Fleet`] (a night of Googlebot requests from many distinct addresses, and the zones
//! that make each address a genuine crawler), [`Zones`] (PTR, A and AAAA records, names to answer SERVFAIL for) and [`TestServer`]
//! (hickory-server on an ephemeral UDP port of 127.0.0.1, on its own thread, counting every query
//! it receives). Invariants: it binds only the loopback address, never another; it stops when
//! dropped; each query is counted before it is answered, so a count read after a lookup returned
//! includes that lookup's queries.

#![warn(missing_docs)]

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread;
use std::time::Duration;

use hickory_server::Server;
use hickory_server::net::runtime::Time;
use hickory_server::proto::op::{Header, HeaderCounts, ResponseCode};
use hickory_server::proto::rr::rdata::{A, AAAA, PTR, SOA};
use hickory_server::proto::rr::{LowerName, Name, RData, Record};
use hickory_server::server::{Request, RequestHandler, ResponseHandler, ResponseInfo};
use hickory_server::store::in_memory::InMemoryZoneHandler;
use hickory_server::zone_handler::{AxfrPolicy, Catalog, MessageResponseBuilder, ZoneType};

/// The record types the query counts are kept by.
pub use hickory_server::proto::rr::RecordType;

/// A zone's records: `(owner name, data)`.
type ZoneRecords = Vec<(Name, RData)>;

/// The DNS data a server answers from. Names are absolute (`host.example.com.`); a forward zone is
/// created for each zone origin given to [`Zones::host`].
#[derive(Debug, Default, Clone)]
pub struct Zones {
    forward: HashMap<String, ZoneRecords>,
    reverse_v4: ZoneRecords,
    reverse_v6: ZoneRecords,
    servfail: Vec<LowerName>,
}

/// Parses an absolute DNS name; the tests write them by hand, so a bad one is a bug in the test.
fn name(text: &str) -> Name {
    Name::from_str(text).unwrap_or_else(|error| panic!("bad DNS name {text:?}: {error}"))
}

impl Zones {
    /// No records at all: every question is NXDOMAIN or REFUSED.
    pub fn new() -> Self {
        Zones::default()
    }

    /// A PTR record: `address` reverse-resolves to `host` (several calls give several names).
    pub fn ptr(&mut self, address: IpAddr, host: &str) -> &mut Self {
        self.ptr_name(address, name(host))
    }

    /// A PTR record whose name is given by its labels, which may hold any bytes, as a
    /// stranger's zone may write them (`host` names only what a host name may hold).
    pub fn ptr_labels(&mut self, address: IpAddr, labels: &[&[u8]]) -> &mut Self {
        let mut host = Name::from_labels(labels.iter().copied())
            .unwrap_or_else(|error| panic!("bad DNS labels {labels:?}: {error}"));
        host.set_fqdn(true);
        self.ptr_name(address, host)
    }

    fn ptr_name(&mut self, address: IpAddr, host: Name) -> &mut Self {
        let record = (Name::from(address), RData::PTR(PTR(host)));
        match address {
            IpAddr::V4(_) => self.reverse_v4.push(record),
            IpAddr::V6(_) => self.reverse_v6.push(record),
        }
        self
    }

    /// An A or AAAA record of `host`, in the zone `zone` (`googlebot.com.`).
    pub fn host(&mut self, zone: &str, host: &str, address: IpAddr) -> &mut Self {
        let data = match address {
            IpAddr::V4(v4) => RData::A(A(v4)),
            IpAddr::V6(v6) => RData::AAAA(AAAA(v6)),
        };
        self.forward
            .entry(zone.to_owned())
            .or_default()
            .push((name(host), data));
        self
    }

    /// A genuine crawler address: `address` has the PTR `host`, and `host` resolves back to it.
    pub fn crawler(&mut self, zone: &str, host: &str, address: IpAddr) -> &mut Self {
        self.ptr(address, host).host(zone, host, address)
    }

    /// Every question about `address`'s reverse name is answered SERVFAIL.
    pub fn servfail_reverse(&mut self, address: IpAddr) -> &mut Self {
        self.servfail.push(LowerName::from(Name::from(address)));
        self
    }

    /// Every question about `host` is answered SERVFAIL.
    pub fn servfail_name(&mut self, host: &str) -> &mut Self {
        self.servfail.push(LowerName::from(name(host)));
        self
    }
}

/// A fleet of genuine Googlebot addresses and a night of their requests: the data of the DNS
/// measurements (each distinct address must be looked up once, however many lines name it).
#[derive(Debug, Clone)]
pub struct Fleet {
    addresses: Vec<IpAddr>,
}

/// The robots.txt the fleet's night is judged against: two of its eight paths are disallowed.
pub const FLEET_ROBOTS: &str = "User-agent: *\nDisallow: /private/\nDisallow: /cart\n";

const FLEET_PATHS: [&str; 8] = [
    "/",
    "/products/1",
    "/products/2?color=red",
    "/private/report.pdf",
    "/blog/2026/11/night",
    "/cart",
    "/docs/api",
    "/static/site.css",
];

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

impl Fleet {
    /// `count` distinct public IPv4 addresses (from 66.33.0.0, outside every documentation and
    /// private range).
    pub fn new(count: u32) -> Fleet {
        Fleet {
            addresses: (0..count)
                .map(|index| IpAddr::V4(Ipv4Addr::from(0x4221_0000 + index)))
                .collect(),
        }
    }

    /// The addresses.
    pub fn addresses(&self) -> &[IpAddr] {
        &self.addresses
    }

    /// Zones in which every address has the PTR name `crawl-<n>.googlebot.com`, which resolves
    /// back to it.
    pub fn zones(&self) -> Zones {
        let mut zones = Zones::new();
        for (index, &address) in self.addresses.iter().enumerate() {
            zones.crawler(
                "googlebot.com.",
                &format!("crawl-{index}.googlebot.com."),
                address,
            );
        }
        zones
    }

    /// Line `index` (from 0) of a night of `lines` combined-format Googlebot requests: times
    /// rising over 12 hours from 2026-11-20 18:00 UTC, addresses taken in a scattered order so
    /// that every block of the log names many of them, paths cycling over eight (two disallowed
    /// by [`FLEET_ROBOTS`]).
    pub fn line(&self, index: u64, lines: u64, out: &mut String) {
        use std::fmt::Write as _;
        let count = self.addresses.len().max(1) as u64;
        // 7919 is prime, so stepping by it visits every address once per `count` lines.
        let address = self.addresses[((index * 7919) % count) as usize];
        let second = 18 * 3600 + index * 12 * 3600 / lines.max(1);
        let (day, second) = (20 + second / 86_400, second % 86_400);
        let path = FLEET_PATHS[(index % FLEET_PATHS.len() as u64) as usize];
        let _ = writeln!(
            out,
            "{address} - - [{day:02}/Nov/2026:{:02}:{:02}:{:02} +0000] \"GET {path} HTTP/1.1\" 200 512 \"-\" \"{GOOGLEBOT}\"",
            second / 3600,
            second / 60 % 60,
            second % 60
        );
    }
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
    handler.upsert_mut(Record::from_rdata(origin, 3600, RData::SOA(soa)), 1);
    for (owner, data) in records {
        handler.upsert_mut(Record::from_rdata(owner.clone(), 300, data.clone()), 1);
    }
    Arc::new(handler)
}

/// What the server was asked: `(lower-case absolute name, type)` and how often.
type QueryLog = Arc<Mutex<HashMap<(String, RecordType), usize>>>;

/// The zones' catalog, counting every query and answering SERVFAIL for the names in `servfail`.
struct CountingHandler {
    catalog: Catalog,
    queries: QueryLog,
    servfail: Vec<LowerName>,
}

#[async_trait::async_trait]
impl RequestHandler for CountingHandler {
    async fn handle_request<R: ResponseHandler, T: Time>(
        &self,
        request: &Request,
        mut response_handle: R,
    ) -> ResponseInfo {
        if let Ok(info) = request.request_info() {
            let key = (
                info.query.name().to_string().to_ascii_lowercase(),
                info.query.query_type(),
            );
            *self
                .queries
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(key)
                .or_default() += 1;
            if self.servfail.contains(info.query.name()) {
                let response = MessageResponseBuilder::new(&request.queries, None)
                    .error_msg(&request.metadata, ResponseCode::ServFail);
                return match response_handle.send_response(response).await {
                    Ok(info) => info,
                    Err(_) => ResponseInfo::from(Header {
                        metadata: request.metadata,
                        counts: HeaderCounts::default(),
                    }),
                };
            }
        }
        self.catalog
            .handle_request::<R, T>(request, response_handle)
            .await
    }
}

/// A DNS server on 127.0.0.1 (ephemeral UDP port) serving [`Zones`], stopped when dropped.
pub struct TestServer {
    address: SocketAddr,
    queries: QueryLog,
    stop: Option<Box<dyn FnOnce() + Send>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl TestServer {
    /// Starts a server answering from `zones`; panics when no loopback socket can be had within
    /// ten seconds (a test cannot run without it).
    pub fn start(zones: &Zones) -> Self {
        let mut catalog = Catalog::new();
        for (origin, records) in &zones.forward {
            catalog.upsert(LowerName::from(name(origin)), vec![zone(origin, records)]);
        }
        catalog.upsert(
            LowerName::from(name("in-addr.arpa.")),
            vec![zone("in-addr.arpa.", &zones.reverse_v4)],
        );
        catalog.upsert(
            LowerName::from(name("ip6.arpa.")),
            vec![zone("ip6.arpa.", &zones.reverse_v6)],
        );
        let queries = QueryLog::default();
        let handler = CountingHandler {
            catalog,
            queries: queries.clone(),
            servfail: zones.servfail.clone(),
        };
        let (ready, started) = mpsc::channel();
        let thread = thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime for the test DNS server");
            runtime.block_on(async move {
                let socket = tokio::net::UdpSocket::bind((Ipv4Addr::LOCALHOST, 0))
                    .await
                    .expect("a UDP socket on 127.0.0.1");
                let address = socket.local_addr().expect("the socket's address");
                let mut server = Server::new(handler);
                server.register_socket(socket);
                let token = server.shutdown_token().clone();
                let stop: Box<dyn FnOnce() + Send> = Box::new(move || token.cancel());
                if ready.send((address, stop)).is_ok() {
                    let _ = server.block_until_done().await;
                }
            });
        });
        let (address, stop) = started
            .recv_timeout(Duration::from_secs(10))
            .expect("the test DNS server started within 10 s");
        TestServer {
            address,
            queries,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Where the server listens (127.0.0.1 and its port).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// How often the server was asked for `host` (absolute or not, any case) with `record_type`.
    pub fn count(&self, host: &str, record_type: RecordType) -> usize {
        let mut key = host.to_ascii_lowercase();
        if !key.ends_with('.') {
            key.push('.');
        }
        self.queries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(key, record_type))
            .copied()
            .unwrap_or(0)
    }

    /// How often the server was asked for the reverse name of `address`.
    pub fn ptr_queries_of(&self, address: IpAddr) -> usize {
        self.count(&Name::from(address).to_string(), RecordType::PTR)
    }

    /// How many queries of `record_type` the server received, all names together.
    pub fn queries_of_type(&self, record_type: RecordType) -> usize {
        self.queries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|((_, kind), _)| *kind == record_type)
            .map(|(_, count)| count)
            .sum()
    }

    /// How many distinct names of `record_type` the server was asked about.
    pub fn distinct_names_of_type(&self, record_type: RecordType) -> usize {
        self.queries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .filter(|(_, kind)| *kind == record_type)
            .count()
    }

    /// How many queries the server received.
    pub fn total_queries(&self) -> usize {
        self.queries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fleet_night_names_every_address_and_stays_in_its_night() {
        let fleet = Fleet::new(5);
        let mut night = String::new();
        for index in 0..20 {
            fleet.line(index, 20, &mut night);
        }
        for address in fleet.addresses() {
            assert_eq!(night.matches(&format!("{address} - - [")).count(), 4);
        }
        assert!(night.starts_with("66.33.0.0 - - [20/Nov/2026:18:00:00 +0000] \"GET / HTTP/1.1\""));
        assert!(
            night
                .lines()
                .last()
                .unwrap()
                .contains("[21/Nov/2026:05:24:00 +0000]")
        );
    }

    #[test]
    fn names_are_counted_absolute_and_lower_case() {
        let server = TestServer::start(&Zones::new());
        assert!(server.address().ip().is_loopback());
        assert_eq!(server.count("Crawl.Example.", RecordType::A), 0);
        assert_eq!(server.total_queries(), 0);
    }
}
