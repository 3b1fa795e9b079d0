//! Forward-confirmed reverse DNS against a DNS server each test starts on 127.0.0.1 (hickory-server
//! with in-memory zones), and the DNS cache file.

use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::time::TimeValLike;
use robots_audit_bots::dns::{
    DnsCache, DnsClaim, DnsConfig, DnsError, DnsRecord, DnsResolver, DnsVerdict, DnsVerifier,
    NameServers, Refutation, SHOWN_FORWARD_ADDRESSES, UnknownCause,
};
use robots_audit_testdns::{RecordType, TestServer, Zones};

/// Every test ends within this, or fails.
const TEST_LIMIT: Duration = Duration::from_secs(60);

/// Runs `test` on its own thread and fails if it takes longer than `limit`.
fn within<T: Send + 'static>(limit: Duration, test: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    let handle = thread::spawn(move || {
        let _ = sender.send(test());
    });
    match receiver.recv_timeout(limit) {
        Ok(value) => value,
        Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the test thread sends its result before it ends"),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the test took longer than {limit:?}"),
    }
}

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

/// The DNS world of the tests.
///
/// | IP | PTR | forward |
/// | --- | --- | --- |
/// | 66.249.66.1 | crawl-66-249-66-1.googlebot.com | A 66.249.66.1 (genuine) |
/// | 66.249.66.2 | other.example.net and crawl-66-249-66-2.googlebot.com | A 66.249.66.2 |
/// | 66.249.66.3 | Crawl-66-249-66-3.GoogleBot.COM | A 66.249.66.3 (case differs) |
/// | 203.0.113.7 | crawl-fake.googlebot.com | A 66.249.66.200 (spoof) |
/// | 203.0.113.8 | ghost.googlebot.com | none: NXDOMAIN (spoof) |
/// | 198.51.100.9 | host-198-51-100-9.example.net | A 198.51.100.9 (outside the suffixes) |
/// | 192.0.2.55 | none: NXDOMAIN | |
/// | 192.0.2.66 | SERVFAIL | |
/// | 2001:4860:4801:10::1 | crawl-v6.googlebot.com | AAAA 2001:4860:4801:10::1 (genuine) |
/// | 2001:db8::7 | crawl-fake-v6.googlebot.com | AAAA 2001:db8::8 (spoof) |
fn world() -> Zones {
    let mut zones = Zones::new();
    zones
        .ptr(ip("66.249.66.1"), "crawl-66-249-66-1.googlebot.com.")
        .host(
            "googlebot.com.",
            "crawl-66-249-66-1.googlebot.com.",
            ip("66.249.66.1"),
        )
        .ptr(ip("66.249.66.2"), "other.example.net.")
        .ptr(ip("66.249.66.2"), "crawl-66-249-66-2.googlebot.com.")
        .host(
            "googlebot.com.",
            "crawl-66-249-66-2.googlebot.com.",
            ip("66.249.66.2"),
        )
        .host("example.net.", "other.example.net.", ip("66.249.66.2"))
        .ptr(ip("66.249.66.3"), "Crawl-66-249-66-3.GoogleBot.COM.")
        .host(
            "googlebot.com.",
            "crawl-66-249-66-3.googlebot.com.",
            ip("66.249.66.3"),
        )
        .ptr(ip("203.0.113.7"), "crawl-fake.googlebot.com.")
        .host(
            "googlebot.com.",
            "crawl-fake.googlebot.com.",
            ip("66.249.66.200"),
        )
        .ptr(ip("203.0.113.8"), "ghost.googlebot.com.")
        .ptr(ip("198.51.100.9"), "host-198-51-100-9.example.net.")
        .host(
            "example.net.",
            "host-198-51-100-9.example.net.",
            ip("198.51.100.9"),
        )
        .ptr(ip("2001:4860:4801:10::1"), "crawl-v6.googlebot.com.")
        .host(
            "googlebot.com.",
            "crawl-v6.googlebot.com.",
            ip("2001:4860:4801:10::1"),
        )
        .ptr(ip("2001:db8::7"), "crawl-fake-v6.googlebot.com.")
        .host(
            "googlebot.com.",
            "crawl-fake-v6.googlebot.com.",
            ip("2001:db8::8"),
        );
    zones
}

const SERVFAIL_IP: &str = "192.0.2.66";

/// The test world, with SERVFAIL for the reverse name of [`SERVFAIL_IP`].
fn start_world() -> TestServer {
    let mut zones = world();
    zones.servfail_reverse(ip(SERVFAIL_IP));
    TestServer::start(&zones)
}

/// The resolver of these tests, asking `server`.
trait Loopback {
    fn resolver(&self, concurrency: usize) -> DnsResolver;
    fn ptr_queries(&self, address: &str) -> usize;
}

impl Loopback for TestServer {
    fn resolver(&self, concurrency: usize) -> DnsResolver {
        DnsResolver::new(&DnsConfig {
            name_servers: NameServers::Addresses(vec![self.address()]),
            timeout: Duration::from_secs(5),
            concurrency,
        })
        .unwrap()
    }

    /// How often the server was asked for the reverse name of `address`.
    fn ptr_queries(&self, address: &str) -> usize {
        self.ptr_queries_of(ip(address))
    }
}

fn google() -> Vec<String> {
    vec!["googlebot.com".to_owned(), "google.com".to_owned()]
}

fn claims<'a>(ips: &[&str], suffixes: &'a [String]) -> Vec<DnsClaim<'a>> {
    ips.iter()
        .map(|address| DnsClaim {
            ip: ip(address),
            suffixes,
        })
        .collect()
}

fn confirmed(ptr: &str) -> DnsVerdict {
    DnsVerdict::Confirmed {
        ptr: ptr.to_owned(),
    }
}

fn refuted(refutation: Refutation) -> DnsVerdict {
    DnsVerdict::NotConfirmed(refutation)
}

fn outside(ptr: &str) -> DnsVerdict {
    refuted(Refutation::OutsideSuffixes {
        ptr: ptr.to_owned(),
    })
}

fn mismatch(ptr: &str) -> DnsVerdict {
    refuted(Refutation::ForwardMismatch {
        ptr: ptr.to_owned(),
    })
}

fn now() -> Timestamp {
    "2026-11-23T12:00:00Z".parse().unwrap()
}

#[test]
fn every_kind_of_answer_gets_its_verdict() {
    within(TEST_LIMIT, || {
        let server = start_world();
        let suffixes = google();
        let table = [
            ("66.249.66.1", confirmed("crawl-66-249-66-1.googlebot.com")),
            ("66.249.66.2", confirmed("crawl-66-249-66-2.googlebot.com")),
            ("66.249.66.3", confirmed("crawl-66-249-66-3.googlebot.com")),
            (
                "::ffff:66.249.66.1",
                confirmed("crawl-66-249-66-1.googlebot.com"),
            ),
            ("2001:4860:4801:10::1", confirmed("crawl-v6.googlebot.com")),
            ("203.0.113.7", mismatch("crawl-fake.googlebot.com")),
            ("203.0.113.8", mismatch("ghost.googlebot.com")),
            ("2001:db8::7", mismatch("crawl-fake-v6.googlebot.com")),
            ("198.51.100.9", outside("host-198-51-100-9.example.net")),
            ("192.0.2.55", refuted(Refutation::NoPtr)),
        ];
        let ips: Vec<&str> = table.iter().map(|(address, _)| *address).collect();
        let mut verifier = DnsVerifier::online(server.resolver(4), DnsCache::new(), Duration::MAX);
        let verdicts = verifier.verify_at(&claims(&ips, &suffixes), now());
        for ((address, expected), verdict) in table.iter().zip(&verdicts) {
            assert_eq!(verdict, expected, "{address}");
        }
        // The mapped address is the IPv4 one: 9 distinct IPs.
        assert_eq!(verifier.lookups(), 9);

        // SERVFAIL is no answer either way: unknown, and not cached.
        let verdicts = verifier.verify_at(&claims(&[SERVFAIL_IP], &suffixes), now());
        match &verdicts[0] {
            DnsVerdict::Unknown(UnknownCause::Failure(message)) => {
                assert!(message.contains("Server Failure"), "{message}")
            }
            other => panic!("SERVFAIL gave {other:?}"),
        }
        assert!(verifier.cache().get(ip(SERVFAIL_IP)).is_none());
        assert_eq!(verifier.cache().len(), 9);
    });
}

#[test]
fn suffixes_come_from_the_claim() {
    within(TEST_LIMIT, || {
        let server = start_world();
        let google = google();
        let bing = vec!["search.msn.com".to_owned()];
        let example = vec!["example.net".to_owned()];
        let mut verifier = DnsVerifier::online(server.resolver(4), DnsCache::new(), Duration::MAX);
        let batch = [
            DnsClaim {
                ip: ip("66.249.66.1"),
                suffixes: &google,
            },
            DnsClaim {
                ip: ip("66.249.66.1"),
                suffixes: &bing,
            },
            DnsClaim {
                ip: ip("198.51.100.9"),
                suffixes: &example,
            },
            DnsClaim {
                ip: ip("198.51.100.9"),
                suffixes: &[],
            },
        ];
        let verdicts = verifier.verify_at(&batch, now());
        assert_eq!(
            verdicts,
            [
                confirmed("crawl-66-249-66-1.googlebot.com"),
                outside("crawl-66-249-66-1.googlebot.com"),
                confirmed("host-198-51-100-9.example.net"),
                outside("host-198-51-100-9.example.net"),
            ]
        );
        assert_eq!(server.ptr_queries("66.249.66.1"), 1);
        assert_eq!(server.ptr_queries("198.51.100.9"), 1);
    });
}

#[test]
fn each_distinct_ip_is_looked_up_once_per_run() {
    within(TEST_LIMIT, || {
        let server = start_world();
        let suffixes = google();
        let ips = [
            "66.249.66.1",
            "203.0.113.7",
            "192.0.2.55",
            "2001:4860:4801:10::1",
            SERVFAIL_IP,
        ];
        let mut batch = claims(&ips, &suffixes);
        batch.extend(claims(&ips, &suffixes));
        batch.extend(claims(&["::ffff:66.249.66.1"], &suffixes));
        // TTL zero: everything is expired at once, yet a run asks about each IP once.
        let mut verifier = DnsVerifier::online(server.resolver(8), DnsCache::new(), Duration::ZERO);
        let first = verifier.verify_at(&batch, now());
        let second = verifier.verify_at(&batch, now() + SignedDuration::from_hours(1));
        assert_eq!(first, second);
        assert_eq!(verifier.lookups(), ips.len());
        for address in &ips[..4] {
            assert_eq!(server.ptr_queries(address), 1, "PTR queries for {address}");
        }
        // The resolver sends a failed query once more, within the same lookup.
        assert_eq!(server.ptr_queries(SERVFAIL_IP), 2);
        assert_eq!(
            server.count("crawl-66-249-66-1.googlebot.com.", RecordType::A),
            1
        );
        assert_eq!(server.count("crawl-v6.googlebot.com.", RecordType::AAAA), 1);
        assert_eq!(server.count("crawl-v6.googlebot.com.", RecordType::A), 0);
        // 4 + 2 PTR queries, and a forward query for each of the 3 PTR names.
        assert_eq!(server.total_queries(), 6 + 3);
    });
}

#[test]
fn a_silent_server_is_a_timeout_never_a_spoof() {
    within(TEST_LIMIT, || {
        // Bound and kept open, never read: queries to it go unanswered.
        let silent = std::net::UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let resolver = DnsResolver::new(&DnsConfig {
            name_servers: NameServers::Addresses(vec![silent.local_addr().unwrap()]),
            timeout: Duration::from_millis(300),
            concurrency: 4,
        })
        .unwrap();
        let suffixes = google();
        let mut verifier = DnsVerifier::online(resolver, DnsCache::new(), Duration::MAX);
        let started = Instant::now();
        let verdicts = verifier.verify_at(
            &claims(&["66.249.66.1", "2001:4860:4801:10::1"], &suffixes),
            now(),
        );
        assert_eq!(
            verdicts,
            vec![DnsVerdict::Unknown(UnknownCause::Timeout); 2]
        );
        assert!(
            verifier.cache().is_empty(),
            "unknown results are not cached"
        );
        // Well within the test's bound: the two lookups ran side by side, each bounded.
        assert!(started.elapsed() < Duration::from_secs(20));
    });
}

#[test]
fn a_closed_port_is_unknown() {
    within(TEST_LIMIT, || {
        let closed = {
            let socket = std::net::UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
            socket.local_addr().unwrap()
        };
        let resolver = DnsResolver::new(&DnsConfig {
            name_servers: NameServers::Addresses(vec![closed]),
            timeout: Duration::from_millis(300),
            concurrency: 1,
        })
        .unwrap();
        let suffixes = google();
        let mut verifier = DnsVerifier::online(resolver, DnsCache::new(), Duration::MAX);
        let verdicts = verifier.verify_at(&claims(&["66.249.66.1"], &suffixes), now());
        assert!(
            matches!(verdicts[0], DnsVerdict::Unknown(_)),
            "{verdicts:?}"
        );
        assert!(verifier.cache().is_empty());
    });
}

#[test]
fn no_name_server_is_an_error() {
    let error = DnsResolver::new(&DnsConfig {
        name_servers: NameServers::Addresses(Vec::new()),
        timeout: Duration::from_secs(1),
        concurrency: 1,
    })
    .unwrap_err();
    assert!(matches!(error, DnsError::Resolver(_)));
    assert_eq!(error.to_string(), "DNS resolver: no name server given");
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn the_cache_round_trips_through_its_file_and_serves_offline() {
    within(TEST_LIMIT, || {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("dns-cache.csv");
        let server = start_world();
        let suffixes = google();
        let ips = [
            "2001:db8::7",
            "66.249.66.1",
            "203.0.113.7",
            "192.0.2.55",
            "198.51.100.9",
            SERVFAIL_IP,
        ];
        let mut verifier = DnsVerifier::online(
            server.resolver(4),
            DnsCache::load(&path).unwrap(),
            Duration::from_secs(7 * 86400),
        );
        let online = verifier.verify_at(&claims(&ips, &suffixes), now());
        verifier.cache().save(&path).unwrap();
        assert_eq!(
            read(&path),
            "ip,ptr,confirmed,checked_at\n\
             66.249.66.1,crawl-66-249-66-1.googlebot.com,true,2026-11-23T12:00:00Z\n\
             192.0.2.55,,false,2026-11-23T12:00:00Z\n\
             198.51.100.9,host-198-51-100-9.example.net,true,2026-11-23T12:00:00Z\n\
             203.0.113.7,crawl-fake.googlebot.com,false,2026-11-23T12:00:00Z\n\
             2001:db8::7,crawl-fake-v6.googlebot.com,false,2026-11-23T12:00:00Z\n"
        );
        let names: Vec<_> = std::fs::read_dir(directory.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["dns-cache.csv"], "no temporary file is left behind");

        // Offline, a year later: the same verdicts from the file, expired or not, and an IP the
        // cache lacks (here the SERVFAIL one, never cached) is unknown.
        drop(server);
        let mut offline = DnsVerifier::offline(DnsCache::load(&path).unwrap());
        let a_year_later = now() + SignedDuration::from_hours(365 * 24);
        let mut replay = claims(&ips, &suffixes);
        replay.extend(claims(&["66.249.66.3"], &suffixes));
        let verdicts = offline.verify_at(&replay, a_year_later);
        assert_eq!(verdicts[..5], online[..5]);
        assert_eq!(verdicts[5], DnsVerdict::Unknown(UnknownCause::NotCached));
        assert_eq!(verdicts[6], DnsVerdict::Unknown(UnknownCause::NotCached));
        assert_eq!(offline.lookups(), 0);
    });
}

#[test]
fn entries_older_than_the_ttl_are_looked_up_again() {
    within(TEST_LIMIT, || {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("cache.csv");
        let server = start_world();
        let suffixes = google();
        let ttl = Duration::from_secs(7 * 86400);
        let ips = ["66.249.66.1", "203.0.113.7"];
        let run = |at: Timestamp| {
            let mut verifier =
                DnsVerifier::online(server.resolver(2), DnsCache::load(&path).unwrap(), ttl);
            let verdicts = verifier.verify_at(&claims(&ips, &suffixes), at);
            verifier.into_cache().save(&path).unwrap();
            verdicts
        };
        let first = run(now());
        assert_eq!(server.ptr_queries("66.249.66.1"), 1);
        // Six days on: fresh, no query.
        assert_eq!(run(now() + SignedDuration::from_hours(6 * 24)), first);
        assert_eq!(server.ptr_queries("66.249.66.1"), 1);
        assert_eq!(server.ptr_queries("203.0.113.7"), 1);
        // Eight days on: expired, asked again, and the file carries the new time.
        assert_eq!(run(now() + SignedDuration::from_hours(8 * 24)), first);
        assert_eq!(server.ptr_queries("66.249.66.1"), 2);
        assert_eq!(server.ptr_queries("203.0.113.7"), 2);
        assert!(
            read(&path).contains(
                "66.249.66.1,crawl-66-249-66-1.googlebot.com,true,2026-12-01T12:00:00Z\n"
            )
        );
    });
}

#[test]
fn an_expired_entry_answers_when_its_refresh_fails() {
    within(TEST_LIMIT, || {
        let server = start_world();
        let suffixes = google();
        let mut cache = DnsCache::new();
        let old: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let record = DnsRecord {
            ptr: Some("crawl-192-0-2-66.googlebot.com".to_owned()),
            confirmed: true,
            checked_at: old,
        };
        cache.insert(ip(SERVFAIL_IP), record.clone());
        let mut verifier =
            DnsVerifier::online(server.resolver(1), cache, Duration::from_secs(86400));
        let verdicts = verifier.verify_at(&claims(&[SERVFAIL_IP], &suffixes), now());
        assert_eq!(verdicts, [confirmed("crawl-192-0-2-66.googlebot.com")]);
        assert_eq!(
            server.ptr_queries(SERVFAIL_IP),
            2,
            "the refresh was tried (and retried)"
        );
        assert_eq!(
            verifier.cache().get(ip(SERVFAIL_IP)),
            Some(&record),
            "and kept the old entry"
        );
    });
}

#[test]
fn a_corrupt_cache_file_is_an_error_naming_file_and_line() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("dns-cache.csv");
    std::fs::write(
        &path,
        "ip,ptr,confirmed,checked_at\n\
         66.249.66.1,crawl-66-249-66-1.googlebot.com,true,2026-11-23T12:00:00Z\n\
         66.249.66.1x,crawl-66-249-66-1.googlebot.com,true,2026-11-23T12:00:00Z\n",
    )
    .unwrap();
    let error = DnsCache::load(&path).unwrap_err();
    assert!(matches!(error, DnsError::CacheRead(_)));
    let expected = format!(
        "DNS cache {}: line 3: ip `66.249.66.1x` is not an IP address",
        path.display()
    );
    assert_eq!(error.to_string(), expected);

    // A cache that does not exist yet is empty; one that cannot be written names its file.
    assert!(
        DnsCache::load(&directory.path().join("new.csv"))
            .unwrap()
            .is_empty()
    );
    let unwritable = directory.path().join("missing-directory").join("cache.csv");
    let error = DnsCache::new().save(&unwritable).unwrap_err();
    assert!(error.to_string().starts_with(&format!(
        "DNS cache {}: cannot write: ",
        unwritable.display()
    )));
    assert!(!directory.path().join("missing-directory").exists());
}

#[test]
fn saving_replaces_the_old_file_whole() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("cache.csv");
    std::fs::write(&path, "old contents\n").unwrap();
    let mut cache = DnsCache::new();
    cache.insert(
        ip("66.249.66.1"),
        DnsRecord {
            ptr: Some("crawl-66-249-66-1.googlebot.com".to_owned()),
            confirmed: true,
            checked_at: now(),
        },
    );
    cache.save(&path).unwrap();
    assert_eq!(DnsCache::load(&path).unwrap(), cache);
    assert_eq!(std::fs::read_dir(directory.path()).unwrap().count(), 1);
}

#[test]
fn the_verifier_can_run_on_a_side_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<DnsVerifier>();
    assert_send::<DnsResolver>();
}

/// The distinct bot IPs of the measurement, and their zone.
fn many_crawlers(count: u32) -> (Zones, Vec<IpAddr>) {
    let mut zones = Zones::new();
    let mut ips = Vec::new();
    for index in 0..count {
        let address = IpAddr::V4(Ipv4Addr::from(0x4221_0000 + index));
        let host = format!("crawl-{index}.googlebot.com.");
        zones.crawler("googlebot.com.", &host, address);
        ips.push(address);
    }
    (zones, ips)
}

/// How long 5,000 distinct IPs take against the loopback server, 64 at a time. Prints the time;
/// run with `cargo test -p robots-audit-bots --test tests dns:: -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check: run by hand"]
fn measure_five_thousand_ips() {
    within(Duration::from_secs(300), || {
        let (zones, ips) = many_crawlers(5_000);
        let server = TestServer::start(&zones);
        let suffixes = google();
        let batch: Vec<DnsClaim<'_>> = ips
            .iter()
            .map(|&ip| DnsClaim {
                ip,
                suffixes: &suffixes,
            })
            .collect();
        let mut verifier = DnsVerifier::online(server.resolver(64), DnsCache::new(), Duration::MAX);
        let cpu = |who| {
            let usage = getrusage(who).unwrap();
            let micros = (usage.user_time() + usage.system_time()).num_microseconds();
            Duration::from_micros(u64::try_from(micros).unwrap())
        };
        let (client_before, process_before) =
            (cpu(UsageWho::RUSAGE_THREAD), cpu(UsageWho::RUSAGE_SELF));
        let started = Instant::now();
        let verdicts = verifier.verify_at(&batch, now());
        let elapsed = started.elapsed();
        // The lookups run on this thread (the resolver's runtime is single-threaded); the server
        // runs on another thread of the process.
        let client_cpu = cpu(UsageWho::RUSAGE_THREAD) - client_before;
        let process_cpu = cpu(UsageWho::RUSAGE_SELF) - process_before;
        let confirmed = verdicts
            .iter()
            .filter(|verdict| matches!(verdict, DnsVerdict::Confirmed { .. }))
            .count();
        println!(
            "{} distinct IPs, concurrency 64: {elapsed:.2?} wall ({:.0} IPs/s), CPU {client_cpu:.2?} \
             resolver + {:.2?} server, {confirmed} confirmed, {} queries at the server",
            ips.len(),
            ips.len() as f64 / elapsed.as_secs_f64(),
            process_cpu.saturating_sub(client_cpu),
            server.total_queries()
        );
        assert_eq!(confirmed, ips.len());
        assert_eq!(server.total_queries(), 2 * ips.len());
    });
}

/// A client field that is a host name (`HostnameLookups On`): confirmed when under the suffixes
/// and it resolves forward, by A or AAAA; a name that does not resolve is refuted only as a name
/// (the audit keeps it unverified); each name is asked once per run; offline it is unknown.
#[test]
fn logged_host_names_are_checked_by_forward_dns() {
    within(TEST_LIMIT, || {
        let mut zones = world();
        zones.servfail_name("broken.googlebot.com.");
        let server = TestServer::start(&zones);
        let suffixes = google();
        let mut verifier = DnsVerifier::online(server.resolver(4), DnsCache::new(), Duration::MAX);
        let table = [
            (
                "crawl-66-249-66-1.googlebot.com",
                confirmed("crawl-66-249-66-1.googlebot.com"),
            ),
            // Only an AAAA record, written in upper case with the root's dot.
            (
                "CRAWL-V6.GOOGLEBOT.COM.",
                confirmed("crawl-v6.googlebot.com"),
            ),
            (
                "ghost.googlebot.com",
                refuted(Refutation::NameDoesNotResolve {
                    name: "ghost.googlebot.com".to_owned(),
                }),
            ),
            (
                "host-198-51-100-9.example.net",
                outside("host-198-51-100-9.example.net"),
            ),
            (
                "broken.googlebot.com",
                DnsVerdict::Unknown(UnknownCause::Failure(String::new())),
            ),
        ];
        for round in 0..2 {
            for (host, expected) in &table {
                let verdict = verifier.verify_host(host, &suffixes);
                match (&verdict, expected) {
                    (
                        DnsVerdict::Unknown(UnknownCause::Failure(message)),
                        DnsVerdict::Unknown(_),
                    ) => {
                        assert!(message.contains("Server Failure"), "{message}")
                    }
                    _ => assert_eq!(&verdict, expected, "{host}, round {round}"),
                }
            }
        }
        // Each name under the suffixes once (A and AAAA), the one outside them never; a failed
        // query is sent once more (as for PTR queries), and the failure is not asked again.
        for (host, queries) in [
            ("crawl-66-249-66-1.googlebot.com", 1),
            ("crawl-v6.googlebot.com", 1),
            ("ghost.googlebot.com", 1),
            ("broken.googlebot.com", 2),
        ] {
            assert_eq!(server.count(host, RecordType::A), queries, "A {host}");
            assert_eq!(server.count(host, RecordType::AAAA), queries, "AAAA {host}");
        }
        assert_eq!(
            server.count("host-198-51-100-9.example.net", RecordType::A),
            0
        );
        assert_eq!(server.total_queries(), 10);
        assert_eq!(verifier.host_lookups(), 4);
        assert_eq!(
            verifier.host_addresses("crawl-66-249-66-1.googlebot.com."),
            Some(&[ip("66.249.66.1")][..])
        );
        // Host names are not written to the cache file, which is keyed by IP.
        assert!(verifier.cache().is_empty());

        let mut offline = DnsVerifier::offline(DnsCache::new());
        assert_eq!(
            offline.verify_host("crawl-66-249-66-1.googlebot.com", &suffixes),
            DnsVerdict::Unknown(UnknownCause::NotCached)
        );
    });
}

/// The forward addresses of a PTR name looked up this run are kept, for `explain`.
#[test]
fn forward_addresses_of_a_lookup_are_kept_for_the_run() {
    within(TEST_LIMIT, || {
        let server = start_world();
        let suffixes = google();
        let mut verifier = DnsVerifier::online(server.resolver(2), DnsCache::new(), Duration::MAX);
        verifier.verify_at(
            &claims(&["66.249.66.1", "203.0.113.7", "192.0.2.55"], &suffixes),
            now(),
        );
        assert_eq!(
            verifier.forward_addresses(ip("66.249.66.1")),
            Some(&[ip("66.249.66.1")][..])
        );
        assert_eq!(
            verifier.forward_addresses(ip("203.0.113.7")),
            Some(&[ip("66.249.66.200")][..])
        );
        assert_eq!(verifier.forward_addresses(ip("192.0.2.55")), Some(&[][..]));
        assert_eq!(verifier.forward_addresses(ip("66.249.66.9")), None);
    });
}

/// A name answering 40 addresses, the client the 30th: 16 are kept for `explain`, the
/// client's among them, and the verdict saw all 40.
#[test]
fn forward_addresses_kept_are_bounded_and_keep_the_client() {
    within(TEST_LIMIT, || {
        let client = ip("66.249.70.30");
        let mut zones = Zones::new();
        zones.ptr(client, "crawl-many.googlebot.com.");
        for last in 1..=40 {
            zones.host(
                "googlebot.com.",
                "crawl-many.googlebot.com.",
                ip(&format!("66.249.70.{last}")),
            );
        }
        let server = TestServer::start(&zones);
        let suffixes = google();
        let mut verifier = DnsVerifier::online(server.resolver(2), DnsCache::new(), Duration::MAX);
        let verdicts = verifier.verify_at(&claims(&["66.249.70.30"], &suffixes), now());
        assert_eq!(verdicts, [confirmed("crawl-many.googlebot.com")]);
        let kept = verifier.forward_addresses(client).unwrap();
        assert_eq!(kept.len(), SHOWN_FORWARD_ADDRESSES);
        assert!(kept.contains(&client), "{kept:?}");
    });
}

/// A cache entry checked "later" than the run (a clock that ran ahead, an edited file) would
/// never expire: it is looked up again.
#[test]
fn a_check_dated_in_the_future_is_looked_up_again() {
    within(TEST_LIMIT, || {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("cache.csv");
        let server = start_world();
        let suffixes = google();
        let ttl = Duration::from_secs(7 * 86400);
        let run = |at: Timestamp| {
            let mut verifier =
                DnsVerifier::online(server.resolver(2), DnsCache::load(&path).unwrap(), ttl);
            let verdicts = verifier.verify_at(&claims(&["66.249.66.1"], &suffixes), at);
            verifier.into_cache().save(&path).unwrap();
            verdicts
        };
        let first = run(now());
        assert_eq!(server.ptr_queries("66.249.66.1"), 1);
        assert_eq!(run(now() - SignedDuration::from_hours(24)), first);
        assert_eq!(server.ptr_queries("66.249.66.1"), 2);
    });
}

/// A spent budget asks nothing more: each address not known is unknown for that reason, an
/// expired entry still answers from the cache, and the addresses not asked are counted.
#[test]
fn a_spent_budget_asks_nothing() {
    within(TEST_LIMIT, || {
        let server = start_world();
        let suffixes = google();
        let mut cache = DnsCache::new();
        cache.insert(
            ip("66.249.66.1"),
            DnsRecord {
                ptr: Some("crawl-66-249-66-1.googlebot.com".into()),
                confirmed: true,
                checked_at: now() - SignedDuration::from_hours(24 * 30),
            },
        );
        let mut verifier = DnsVerifier::online(server.resolver(2), cache, Duration::from_secs(60))
            .with_budget(Duration::ZERO);
        let verdicts =
            verifier.verify_at(&claims(&["66.249.66.1", "203.0.113.7"], &suffixes), now());
        assert_eq!(
            verdicts,
            [
                confirmed("crawl-66-249-66-1.googlebot.com"),
                DnsVerdict::Unknown(UnknownCause::BudgetSpent)
            ]
        );
        assert_eq!(server.total_queries(), 0);
        assert_eq!(verifier.not_asked(), 2);
    });
}

/// What a run writes back: entries checked more than four TTLs ago are dropped, and past the
/// most kept, confirmed entries go first, then the most recently checked.
#[test]
fn the_cache_written_back_is_bounded() {
    let record = |confirmed: bool, days_ago: i64| DnsRecord {
        ptr: Some("crawl.googlebot.com".into()),
        confirmed,
        checked_at: Timestamp::now() - SignedDuration::from_hours(24 * days_ago),
    };
    let mut cache = DnsCache::new();
    cache.insert(ip("192.0.2.1"), record(true, 3));
    cache.insert(ip("192.0.2.2"), record(false, 1));
    cache.insert(ip("192.0.2.3"), record(true, 5));
    cache.insert(ip("192.0.2.4"), record(false, 2));
    let kept = |cache: &DnsCache| {
        cache
            .iter()
            .map(|(ip, _)| ip.to_string())
            .collect::<Vec<_>>()
    };
    let oldest = Timestamp::now() - SignedDuration::from_hours(24 * 4);
    assert_eq!(
        kept(&cache.pruned(oldest, 10)),
        ["192.0.2.1", "192.0.2.2", "192.0.2.4"]
    );
    assert_eq!(kept(&cache.pruned(oldest, 2)), ["192.0.2.1", "192.0.2.2"]);
    assert_eq!(kept(&cache.pruned(Timestamp::MIN, 1)), ["192.0.2.1"]);

    within(TEST_LIMIT, move || {
        let server = start_world();
        let one_day = Duration::from_secs(86_400);
        let verifier = DnsVerifier::online(server.resolver(2), cache, one_day);
        assert_eq!(
            kept(&verifier.cache_to_keep()),
            ["192.0.2.1", "192.0.2.2", "192.0.2.4"]
        );
    });
}

/// PTR names a stranger's zone may hold: bytes a host name does not have are asked forward as
/// the name they are (here unanswered: a mismatch, so refuted), not dropped as no answer, which
/// a spoofer could choose over `spoofed`; and a dot inside a label is no label boundary, so
/// `crawl\.googlebot.com` is not under `googlebot.com`.
#[test]
fn odd_ptr_names_are_judged_as_the_names_they_are() {
    within(TEST_LIMIT, || {
        let mut zones = Zones::new();
        zones
            .ptr_labels(ip("45.0.0.1"), &[b"=cmd|calc", b"googlebot", b"com"])
            .ptr_labels(ip("45.0.0.2"), &[b"crawl.googlebot", b"com"])
            // The zones the forward questions go to, which know neither name.
            .host(
                "googlebot.com.",
                "crawl-1.googlebot.com.",
                ip("66.249.66.1"),
            )
            .host("com.", "example.com.", ip("192.0.2.1"));
        let server = TestServer::start(&zones);
        let suffixes = google();
        let mut verifier = DnsVerifier::online(server.resolver(2), DnsCache::new(), Duration::MAX);
        let verdicts = verifier.verify_at(&claims(&["45.0.0.1", "45.0.0.2"], &suffixes), now());
        assert_eq!(verdicts[0], mismatch(r"\=cmd\|calc.googlebot.com"));
        assert_eq!(verdicts[1], outside(r"crawl\.googlebot.com"));
    });
}
