//! Forward-confirmed reverse DNS (`--verify dns`) and its cache (`--dns-cache`).
//!
//! A crawler IP is *confirmed* when its PTR name ends, on a label boundary, with a host suffix its
//! operator documents (`googlebot.com`, `search.msn.com`, ...) and that name resolves forward (A
//! for an IPv4 address, AAAA for IPv6) to the same IP. The operator's own instructions are in
//! `docs/bots.md`.
//!
//! A client field that is a host name (Apache's `HostnameLookups On` logs the PTR name it found,
//! not the address) is checked by forward DNS alone, since the address is not in the log: the name
//! must end with one of the suffixes and resolve (A or AAAA) to at least one address. That is
//! weaker than the round trip above, so a name that does not resolve is never a refutation.
//!
//! This module owns:
//!
//! * [`DnsResolver`]: a stub resolver (hickory) on its own single-threaded tokio runtime, with a
//!   timeout for each lookup and a bound on the lookups in flight.
//! * [`DnsCache`]: the CSV file `ip,ptr,confirmed,checked_at`, read before a run and written back
//!   atomically after it.
//! * [`DnsVerifier`]: both together; it answers a batch of [`DnsClaim`]s with [`DnsVerdict`]s.
//!
//! Invariants:
//!
//! * Each distinct IP is looked up at most once per [`DnsVerifier`] (one run), whatever the number
//!   of claims or batches naming it; a fresh cache entry is not looked up at all. Each distinct
//!   host name likewise, once per run; host names are not cached across runs (the cache file is
//!   keyed by IP), so `--offline` leaves them unknown.
//! * What is cached does not depend on which bot claimed the IP: a [`DnsRecord`] is the PTR name
//!   and whether that name resolves back to the IP (`confirmed`); the suffixes are applied when a
//!   verdict is asked for ([`DnsRecord::verdict`]). So the forward lookup is made even when the PTR
//!   name is outside the claiming bot's suffixes, and the same cache serves every bot.
//! * A lookup that did not end in an answer (timeout, SERVFAIL, refused, network error) is
//!   [`DnsVerdict::Unknown`], never a refutation, and is not written to the cache: the next run
//!   asks again. Within a run it is not retried. An expired cache entry still answers when its
//!   refresh is unknown, and in offline mode.
//! * Addresses are kept canonical: an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is the IPv4
//!   address.
//! * A cache file with a line that cannot be read is an error naming the file and the line: the
//!   file is rewritten after the run, so skipping a line would lose it.
//!
//! The lookups block the calling thread while they run: the audit calls [`DnsVerifier::verify`]
//! between its passes or from a side thread, never per log line, and never from inside an async
//! runtime.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use hickory_resolver::TokioResolver;
use hickory_resolver::config::{NameServerConfig, ResolveHosts, ResolverConfig};
use hickory_resolver::net::NetError;
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::proto::rr::{Name, RData, RecordType};
use jiff::{SignedDuration, Timestamp};

use crate::error::{CacheRowError, LoadError, Position};

/// The header of a DNS cache file, which is also its column order.
const CACHE_HEADER: [&str; 4] = ["ip", "ptr", "confirmed", "checked_at"];

/// The default age after which a cache entry is looked up again (`--dns-ttl`).
pub const DEFAULT_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Where the resolver sends its queries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameServers {
    /// The system's configuration (`/etc/resolv.conf` on Unix).
    System,
    /// These servers, each on its own port, over UDP (and TCP when an answer is truncated).
    Addresses(Vec<SocketAddr>),
}

/// How a [`DnsResolver`] looks up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsConfig {
    /// Where the queries go.
    pub name_servers: NameServers,
    /// The longest one lookup (the PTR query, or the forward query) may take, retries included;
    /// a lookup still unanswered then is [`UnknownCause::Timeout`].
    pub timeout: Duration,
    /// The most IPs being looked up at once (at least 1).
    pub concurrency: usize,
}

impl DnsConfig {
    /// The system's name servers, a 2-second timeout per lookup and 64 lookups in flight.
    pub fn system() -> Self {
        DnsConfig {
            name_servers: NameServers::System,
            timeout: Duration::from_secs(2),
            concurrency: 64,
        }
    }
}

/// A DNS resolver that could not be set up, or a cache file that could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum DnsError {
    /// The resolver's configuration is unusable (an unreadable `/etc/resolv.conf`, no name
    /// server given, no runtime).
    #[error("DNS resolver: {0}")]
    Resolver(String),
    /// The cache file could not be read, or a line of it is malformed.
    #[error("DNS cache {0}")]
    CacheRead(#[source] LoadError),
    /// The cache file could not be written.
    #[error("DNS cache {file}: cannot write: {source}")]
    CacheWrite {
        /// The cache file.
        file: String,
        /// What went wrong.
        source: io::Error,
    },
}

/// An IP address and the host suffixes documented by the operator of the bot that claims it.
#[derive(Debug, Clone, Copy)]
pub struct DnsClaim<'a> {
    /// The client address of the request.
    pub ip: IpAddr,
    /// The claiming bot's documented host suffixes (`googlebot.com`, ...).
    pub suffixes: &'a [String],
}

/// What DNS said about one IP, whichever bot claimed it: one row of the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsRecord {
    /// The PTR name, lower case, without the trailing dot; `None` when the IP has none (NXDOMAIN
    /// or an empty answer).
    pub ptr: Option<String>,
    /// Whether the forward lookup of `ptr` returned the IP.
    pub confirmed: bool,
    /// When the lookup was made, to the second.
    pub checked_at: Timestamp,
}

impl DnsRecord {
    /// The verdict for a bot documenting `suffixes`: confirmed only when the PTR name ends with
    /// one of them and resolves back to the IP.
    pub fn verdict(&self, suffixes: &[String]) -> DnsVerdict {
        match &self.ptr {
            None => DnsVerdict::NotConfirmed(Refutation::NoPtr),
            Some(ptr) if !suffixes.iter().any(|suffix| suffix_matches(ptr, suffix)) => {
                DnsVerdict::NotConfirmed(Refutation::OutsideSuffixes { ptr: ptr.clone() })
            }
            Some(ptr) if !self.confirmed => {
                DnsVerdict::NotConfirmed(Refutation::ForwardMismatch { ptr: ptr.clone() })
            }
            Some(ptr) => DnsVerdict::Confirmed { ptr: ptr.clone() },
        }
    }
}

/// The outcome of forward-confirmed reverse DNS for one claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DnsVerdict {
    /// The PTR name is the operator's and resolves back to the IP.
    Confirmed {
        /// The PTR name.
        ptr: String,
    },
    /// DNS answered, and the answer refutes the claim: the IP is not the operator's.
    NotConfirmed(Refutation),
    /// DNS gave no answer either way; never to be counted as spoofed.
    Unknown(UnknownCause),
}

/// Why DNS refutes a claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refutation {
    /// The IP has no PTR record (NXDOMAIN, or no PTR in the answer).
    NoPtr,
    /// The PTR name does not end with any of the bot's suffixes.
    OutsideSuffixes {
        /// The PTR name.
        ptr: String,
    },
    /// The PTR name is in the suffixes but does not resolve back to the IP.
    ForwardMismatch {
        /// The PTR name.
        ptr: String,
    },
    /// A logged host name, under the suffixes, that has no A or AAAA record (NXDOMAIN or an
    /// empty answer). The address is not in the log, so this refutes nothing about who sent the
    /// request: the audit counts it unverified, never spoofed.
    NameDoesNotResolve {
        /// The host name.
        name: String,
    },
}

/// Why DNS gave no answer for an IP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownCause {
    /// A lookup took longer than its timeout.
    Timeout,
    /// The server failed (SERVFAIL, REFUSED, ...) or the network did; the text says which.
    Failure(String),
    /// Offline, and the IP is not in the cache.
    NotCached,
    /// Not looked up: the run's lookups had taken all the time they are given
    /// ([`DnsVerifier::with_budget`]).
    BudgetSpent,
}

impl fmt::Display for UnknownCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownCause::Timeout => f.write_str("DNS lookup timed out"),
            UnknownCause::Failure(message) => write!(f, "DNS lookup failed: {message}"),
            UnknownCause::NotCached => f.write_str("offline and not in the DNS cache"),
            UnknownCause::BudgetSpent => {
                f.write_str("not looked up: the run's DNS lookups had taken their whole budget")
            }
        }
    }
}

impl fmt::Display for DnsVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DnsVerdict::Confirmed { ptr } => write!(f, "confirmed: {ptr} is the operator's"),
            DnsVerdict::NotConfirmed(Refutation::NoPtr) => {
                f.write_str("refuted: the address has no PTR name")
            }
            DnsVerdict::NotConfirmed(Refutation::OutsideSuffixes { ptr }) => {
                write!(f, "refuted: {ptr} is outside the operator's suffixes")
            }
            DnsVerdict::NotConfirmed(Refutation::ForwardMismatch { ptr }) => {
                write!(f, "refuted: {ptr} does not resolve back to the address")
            }
            DnsVerdict::NotConfirmed(Refutation::NameDoesNotResolve { name }) => {
                write!(f, "not confirmed: {name} has no address")
            }
            DnsVerdict::Unknown(cause) => write!(f, "no answer: {cause}"),
        }
    }
}

/// Whether the host name `name` is `suffix` or lies under it: the match ends on a label boundary
/// (`crawl-1.googlebot.com` is under `googlebot.com`, `evilgooglebot.com` is not), ignores ASCII
/// case, and tolerates a trailing dot on either side and a leading dot on the suffix.
///
/// ```
/// use robots_audit_bots::dns::suffix_matches;
///
/// assert!(suffix_matches("crawl-66-249-66-1.GoogleBot.com.", "googlebot.com"));
/// assert!(suffix_matches("googlebot.com", ".googlebot.com."));
/// assert!(!suffix_matches("evilgooglebot.com", "googlebot.com"));
/// assert!(!suffix_matches("googlebot.com.evil.example", "googlebot.com"));
/// assert!(!suffix_matches(r"crawl\.googlebot.com", "googlebot.com"));
/// assert!(suffix_matches(r"a\\.googlebot.com", "googlebot.com"));
/// ```
pub fn suffix_matches(name: &str, suffix: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name).as_bytes();
    let suffix = suffix.strip_suffix('.').unwrap_or(suffix);
    let suffix = suffix.strip_prefix('.').unwrap_or(suffix).as_bytes();
    if suffix.is_empty() || name.len() < suffix.len() {
        return false;
    }
    let (head, tail) = name.split_at(name.len() - suffix.len());
    // A dot a label holds is written `\.`: `crawl\.googlebot.com` is one label under `com`.
    let at_a_label = head
        .strip_suffix(b".")
        .is_some_and(|before| before.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0);
    tail.eq_ignore_ascii_case(suffix) && (head.is_empty() || at_a_label)
}

/// What a lookup of one IP found: the record to cache, and the addresses its PTR name resolved
/// to (kept for the run only).
type Answer = (DnsRecord, Vec<IpAddr>);

/// How many TTLs an entry is kept in the cache file after it was last checked
/// ([`DnsVerifier::cache_to_keep`]).
pub const KEPT_FOR_TTLS: i32 = 4;

/// The most entries the cache file keeps ([`DnsVerifier::cache_to_keep`]).
pub const MAX_CACHE_ENTRIES: usize = 200_000;

/// Answers the resolver keeps (see [`DnsResolver::new`]).
const RESOLVER_CACHE_ANSWERS: u64 = 16;

/// The most forward addresses of one name kept for `explain` to show: a stranger's zone can
/// answer thousands, and a run keeps those of every address it looks up.
pub const SHOWN_FORWARD_ADDRESSES: usize = 16;

/// `addresses` cut to [`SHOWN_FORWARD_ADDRESSES`], keeping `client` among them when it was.
fn shown_addresses(mut addresses: Vec<IpAddr>, client: Option<IpAddr>) -> Vec<IpAddr> {
    if addresses.len() > SHOWN_FORWARD_ADDRESSES {
        let client_at = client.and_then(|client| addresses.iter().position(|a| *a == client));
        addresses.truncate(SHOWN_FORWARD_ADDRESSES);
        if let (Some(at), Some(client), Some(last)) = (client_at, client, addresses.last_mut())
            && at >= SHOWN_FORWARD_ADDRESSES
        {
            *last = client;
        }
        addresses.shrink_to_fit();
    }
    addresses
}

/// A stub resolver for forward-confirmed reverse DNS, with its own single-threaded runtime.
pub struct DnsResolver {
    runtime: tokio::runtime::Runtime,
    resolver: TokioResolver,
    timeout: Duration,
    concurrency: usize,
}

impl fmt::Debug for DnsResolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DnsResolver")
            .field("timeout", &self.timeout)
            .field("concurrency", &self.concurrency)
            .finish_non_exhaustive()
    }
}

impl DnsResolver {
    /// A resolver as `config` says. It sends nothing until asked to look up.
    pub fn new(config: &DnsConfig) -> Result<Self, DnsError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|error| DnsError::Resolver(format!("cannot start a runtime: {error}")))?;
        let mut builder = match &config.name_servers {
            NameServers::System => TokioResolver::builder_tokio().map_err(|error| {
                DnsError::Resolver(format!("cannot read the system configuration: {error}"))
            })?,
            NameServers::Addresses(addresses) => {
                if addresses.is_empty() {
                    return Err(DnsError::Resolver("no name server given".to_owned()));
                }
                let servers = addresses
                    .iter()
                    .map(|address| {
                        let mut server = NameServerConfig::udp_and_tcp(address.ip());
                        for connection in &mut server.connections {
                            connection.port = address.port();
                        }
                        server
                    })
                    .collect();
                TokioResolver::builder_with_config(
                    ResolverConfig::from_name_servers(servers),
                    TokioRuntimeProvider::default(),
                )
            }
        };
        let concurrency = config.concurrency.max(1);
        let options = builder.options_mut();
        // A query that fails (no answer, SERVFAIL) is sent once more, each try with half the
        // time, so one lost UDP datagram is not an unknown; `bounded` also caps the whole lookup
        // at `timeout`. A negative answer (NXDOMAIN, no record) is never retried.
        options.attempts = 1;
        options.timeout = (config.timeout / 2).max(Duration::from_millis(1));
        // The hosts file says nothing about who operates an address.
        options.use_hosts_file = ResolveHosts::Never;
        // Each lookup in flight holds at most one request; more would be refused as busy.
        options.max_active_requests = options.max_active_requests.max(concurrency);
        // A run asks each name once (an address's PTR name, then that name's addresses), so a
        // cache of answers saves nothing; the default keeps 8,192 of them, whatever their size,
        // and a stranger's zone can make each answer thousands of records.
        options.cache_size = RESOLVER_CACHE_ANSWERS;
        let resolver = {
            let _context = runtime.enter();
            builder
                .build()
                .map_err(|error| DnsError::Resolver(error.to_string()))?
        };
        Ok(DnsResolver {
            runtime,
            resolver,
            timeout: config.timeout,
            concurrency,
        })
    }

    /// Looks up each claim's IP (the claims name distinct, canonical IPs), at most
    /// `concurrency` at once, and returns one result per claim, in no particular order. A
    /// record's `checked_at` is `now`.
    fn look_up_all(
        &self,
        claims: &[DnsClaim<'_>],
        now: Timestamp,
        (stop, deadline): (Option<&AtomicBool>, Option<Instant>),
    ) -> Vec<(IpAddr, Result<Answer, UnknownCause>)> {
        let go_on = || {
            !stop.is_some_and(|s| s.load(Ordering::Relaxed))
                && deadline.is_none_or(|deadline| Instant::now() < deadline)
        };
        self.runtime.block_on(
            futures_util::stream::iter(claims)
                // Once the run is asked to stop or the budget is spent, no lookup starts; those
                // under way end within their timeouts.
                .take_while(|_| std::future::ready(go_on()))
                .map(|claim| async move {
                    let answer = self.look_up(claim.ip, claim.suffixes).await;
                    let record = answer.map(|(ptr, forward)| {
                        let record = DnsRecord {
                            confirmed: forward.contains(&claim.ip),
                            ptr,
                            checked_at: now,
                        };
                        (record, shown_addresses(forward, Some(claim.ip)))
                    });
                    (claim.ip, record)
                })
                .buffer_unordered(self.concurrency)
                .collect(),
        )
    }

    /// The PTR name of `ip` (preferring one in `suffixes` when there are several) and the
    /// addresses of `ip`'s family that name resolves to.
    async fn look_up(
        &self,
        ip: IpAddr,
        suffixes: &[String],
    ) -> Result<(Option<String>, Vec<IpAddr>), UnknownCause> {
        let mut reverse = Name::from(ip);
        reverse.set_fqdn(true);
        let Some(answer) = self.bounded(self.resolver.reverse_lookup(reverse)).await? else {
            return Ok((None, Vec::new()));
        };
        // The name as the answer holds it is what is asked forward: its text escapes any byte
        // a stranger's zone put in a label, and would not read back as the same name.
        let names: Vec<(String, &Name)> = answer
            .answers()
            .iter()
            .filter_map(|record| match &record.data {
                RData::PTR(ptr) => Some((host_name(&ptr.0), &ptr.0)),
                _ => None,
            })
            .collect();
        let Some((ptr, name)) = names
            .iter()
            .find(|(text, _)| suffixes.iter().any(|suffix| suffix_matches(text, suffix)))
            .or(names.first())
        else {
            return Ok((None, Vec::new()));
        };
        let record_type = match ip {
            IpAddr::V4(_) => RecordType::A,
            IpAddr::V6(_) => RecordType::AAAA,
        };
        let forward = self.addresses((*name).clone(), record_type).await?;
        Ok((Some(ptr.clone()), forward))
    }

    /// The addresses (of `record_type`, A or AAAA) `name` resolves to; none when DNS says it
    /// has no such record.
    async fn addresses(
        &self,
        mut name: Name,
        record_type: RecordType,
    ) -> Result<Vec<IpAddr>, UnknownCause> {
        name.set_fqdn(true);
        let Some(answer) = self
            .bounded(self.resolver.lookup(name, record_type))
            .await?
        else {
            return Ok(Vec::new());
        };
        Ok(answer
            .answers()
            .iter()
            .filter_map(|record| match &record.data {
                RData::A(address) => Some(IpAddr::V4(address.0)),
                RData::AAAA(address) => Some(IpAddr::V6(address.0)),
                _ => None,
            })
            .collect())
    }

    /// The A and AAAA addresses of a logged host name, both asked at once. One family's
    /// addresses are an answer even when the other's lookup failed; no address at all is an
    /// answer only when both lookups were answered.
    fn host_addresses(&self, host: &str) -> Result<Vec<IpAddr>, UnknownCause> {
        let name = Name::from_ascii(host)
            .map_err(|error| UnknownCause::Failure(format!("host name {host}: {error}")))?;
        let (v4, v6) = self.runtime.block_on(async {
            futures_util::future::join(
                self.addresses(name.clone(), RecordType::A),
                self.addresses(name, RecordType::AAAA),
            )
            .await
        });
        match (v4, v6) {
            (Ok(mut v4), Ok(v6)) => {
                v4.extend(v6);
                Ok(v4)
            }
            (Ok(found), Err(cause)) | (Err(cause), Ok(found)) => {
                if found.is_empty() {
                    Err(cause)
                } else {
                    Ok(found)
                }
            }
            (Err(cause), Err(_)) => Err(cause),
        }
    }

    /// Runs one lookup within the timeout: `Ok(None)` when DNS says there is no such record,
    /// an unknown cause when there is no answer either way.
    async fn bounded<T>(
        &self,
        lookup: impl Future<Output = Result<T, NetError>>,
    ) -> Result<Option<T>, UnknownCause> {
        match tokio::time::timeout(self.timeout, lookup).await {
            Err(_) => Err(UnknownCause::Timeout),
            Ok(Ok(answer)) => Ok(Some(answer)),
            Ok(Err(error)) if error.is_no_records_found() => Ok(None),
            Ok(Err(NetError::Timeout)) => Err(UnknownCause::Timeout),
            Ok(Err(error)) => Err(UnknownCause::Failure(error.to_string())),
        }
    }
}

/// A host name as the cache keeps it: ASCII (IDNA labels as `xn--`), lower case, no trailing dot.
fn host_name(name: &Name) -> String {
    let mut text = name.to_ascii().to_ascii_lowercase();
    if text.ends_with('.') {
        text.pop();
    }
    text
}

/// A logged host name as lookups key it: lower case, no trailing dot.
fn normalise_host(host: &str) -> String {
    let host = host.strip_suffix('.').unwrap_or(host);
    host.to_ascii_lowercase()
}

/// The DNS cache: one [`DnsRecord`] per IP, kept sorted by IP so the file is deterministic.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DnsCache {
    records: BTreeMap<IpAddr, DnsRecord>,
}

impl DnsCache {
    /// An empty cache.
    pub fn new() -> Self {
        DnsCache::default()
    }

    /// Reads a cache file; a file that does not exist yet is an empty cache.
    pub fn load(path: &Path) -> Result<Self, DnsError> {
        let label = path.display().to_string();
        match fs::read(path) {
            Ok(bytes) => DnsCache::from_csv(&bytes, &label),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(DnsCache::new()),
            Err(error) => Err(DnsError::CacheRead(LoadError::new(
                &label,
                None,
                format!("cannot read: {error}"),
            ))),
        }
    }

    /// Parses the CSV text of a cache file; `label` names it in errors.
    pub fn from_csv(bytes: &[u8], label: &str) -> Result<Self, DnsError> {
        let error = |line: u64, message: String| {
            let line = usize::try_from(line).unwrap_or(usize::MAX);
            DnsError::CacheRead(LoadError::new(label, Some(Position::Line(line)), message))
        };
        let mut cache = DnsCache::new();
        if bytes.is_empty() {
            return Ok(cache);
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(bytes);
        let mut first_line = HashMap::new();
        let mut row = csv::ByteRecord::new();
        let mut header_seen = false;
        loop {
            match reader.read_byte_record(&mut row) {
                Ok(false) => break,
                Ok(true) => {}
                Err(problem) => {
                    let line = problem.position().map_or(0, csv::Position::line);
                    return Err(error(line, format!("not a CSV row: {problem}")));
                }
            }
            let line = row.position().map_or(0, csv::Position::line);
            if !header_seen {
                header_seen = true;
                if row
                    .iter()
                    .ne(CACHE_HEADER.iter().map(|name| name.as_bytes()))
                {
                    return Err(error(
                        line,
                        format!("the header must be `{}`", CACHE_HEADER.join(",")),
                    ));
                }
                continue;
            }
            let (ip, record) =
                parse_row(&row).map_err(|problem| error(line, problem.to_string()))?;
            if let Some(earlier) = first_line.insert(ip, line) {
                return Err(error(line, format!("{ip} is already on line {earlier}")));
            }
            cache.records.insert(ip, record);
        }
        if !header_seen {
            return Err(error(1, "no header".to_owned()));
        }
        Ok(cache)
    }

    /// The cache as CSV text, header first, rows sorted by IP.
    pub fn to_csv(&self) -> Vec<u8> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        // Writing to memory cannot fail, and every row has the header's four fields.
        let rows = std::iter::once(CACHE_HEADER.map(str::to_owned)).chain(self.records.iter().map(
            |(ip, record)| {
                [
                    ip.to_string(),
                    record.ptr.clone().unwrap_or_default(),
                    record.confirmed.to_string(),
                    record.checked_at.to_string(),
                ]
            },
        ));
        for row in rows {
            if writer.write_record(&row).is_err() {
                break;
            }
        }
        writer.into_inner().unwrap_or_default()
    }

    /// Writes the cache to `path` atomically: a temporary file in the same directory, synced,
    /// then renamed over `path` (and the directory synced), so a crash leaves the old file or the
    /// new one, never a part.
    pub fn save(&self, path: &Path) -> Result<(), DnsError> {
        write_atomically(path, &self.to_csv()).map_err(|source| DnsError::CacheWrite {
            file: path.display().to_string(),
            source,
        })
    }

    /// The records checked at `oldest` or later, at most `most` of them: confirmed ones first,
    /// then the most recently checked.
    pub fn pruned(&self, oldest: Timestamp, most: usize) -> DnsCache {
        let mut kept: Vec<(&IpAddr, &DnsRecord)> = self
            .records
            .iter()
            .filter(|(_, record)| record.checked_at >= oldest)
            .collect();
        if kept.len() > most {
            kept.sort_by_key(|(_, record)| {
                (
                    std::cmp::Reverse(record.confirmed),
                    std::cmp::Reverse(record.checked_at),
                )
            });
            kept.truncate(most);
        }
        DnsCache {
            records: kept
                .into_iter()
                .map(|(ip, record)| (*ip, record.clone()))
                .collect(),
        }
    }

    /// The record of `ip`, if cached.
    pub fn get(&self, ip: IpAddr) -> Option<&DnsRecord> {
        self.records.get(&ip.to_canonical())
    }

    /// Caches `record` for `ip`, replacing any earlier one; `checked_at` is kept to the second,
    /// the PTR name in lower case without a trailing dot.
    pub fn insert(&mut self, ip: IpAddr, mut record: DnsRecord) {
        record.checked_at = whole_seconds(record.checked_at);
        if let Some(ptr) = &mut record.ptr {
            ptr.make_ascii_lowercase();
            if ptr.ends_with('.') {
                ptr.pop();
            }
        }
        self.records.insert(ip.to_canonical(), record);
    }

    /// The number of cached IPs.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the cache holds no IP.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The cached records, by IP.
    pub fn iter(&self) -> impl Iterator<Item = (IpAddr, &DnsRecord)> {
        self.records.iter().map(|(ip, record)| (*ip, record))
    }
}

/// One data row of a cache file.
fn parse_row(row: &csv::ByteRecord) -> Result<(IpAddr, DnsRecord), CacheRowError> {
    if row.len() != CACHE_HEADER.len() {
        return Err(CacheRowError::FieldCount {
            found: row.len(),
            expected: CACHE_HEADER.len(),
            header: CACHE_HEADER.join(","),
        });
    }
    let field = |index: usize| {
        std::str::from_utf8(&row[index]).map_err(|_| CacheRowError::NotUtf8(CACHE_HEADER[index]))
    };
    let ip_text = field(0)?;
    let ip: IpAddr = ip_text
        .parse()
        .map_err(|_| CacheRowError::Ip(ip_text.to_owned()))?;
    let ptr = match field(1)? {
        "" => None,
        name if name
            .bytes()
            .any(|byte| byte.is_ascii_whitespace() || byte.is_ascii_control()) =>
        {
            return Err(CacheRowError::Ptr(name.to_owned()));
        }
        name => Some(name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase()),
    };
    let confirmed = match field(2)? {
        "true" => true,
        "false" => false,
        other => return Err(CacheRowError::Confirmed(other.to_owned())),
    };
    if confirmed && ptr.is_none() {
        return Err(CacheRowError::ConfirmedWithoutPtr);
    }
    let checked_text = field(3)?;
    let checked_at: Timestamp = checked_text
        .parse()
        .map_err(|_| CacheRowError::CheckedAt(checked_text.to_owned()))?;
    Ok((
        ip.to_canonical(),
        DnsRecord {
            ptr,
            confirmed,
            checked_at: whole_seconds(checked_at),
        },
    ))
}

fn whole_seconds(time: Timestamp) -> Timestamp {
    Timestamp::from_second(time.as_second()).unwrap_or(time)
}

fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "the path does not name a file")
    })?;
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temporary_name = OsString::from(".");
    temporary_name.push(name);
    temporary_name.push(format!(".{}.tmp", std::process::id()));
    let temporary = directory.join(temporary_name);
    let written = (|| {
        let mut file = fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temporary, path)?;
        sync_directory(directory)
    })();
    if written.is_err() {
        // The temporary file is ours alone (the name holds our process id); the old cache is
        // untouched, so removing it loses nothing.
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// Makes a rename in `directory` durable.
#[cfg(unix)]
fn sync_directory(directory: &Path) -> io::Result<()> {
    fs::File::open(directory)?.sync_all()
}

/// Directories cannot be opened for syncing here; the rename is as durable as the platform makes
/// it.
#[cfg(not(unix))]
fn sync_directory(_directory: &Path) -> io::Result<()> {
    Ok(())
}

/// Forward-confirmed reverse DNS for one run: a resolver (none when offline), the cache, and what
/// this run already asked.
#[derive(Debug)]
pub struct DnsVerifier {
    resolver: Option<DnsResolver>,
    cache: DnsCache,
    ttl: SignedDuration,
    asked: HashSet<IpAddr>,
    unknown: HashMap<IpAddr, UnknownCause>,
    /// The forward addresses of the PTR names this run looked up, by IP, at most
    /// [`SHOWN_FORWARD_ADDRESSES`] each (not cached: a cached record keeps only whether the IP
    /// was among them).
    forward: HashMap<IpAddr, Vec<IpAddr>>,
    /// The logged host names this run looked up, lower case without a trailing dot: their
    /// addresses, or why DNS did not answer.
    hosts: HashMap<String, Result<Vec<IpAddr>, UnknownCause>>,
    /// Raised when the run is asked to stop: no lookup starts after it.
    stop: Option<Arc<AtomicBool>>,
    /// The most time this run's lookups may take in all; `None` without a bound.
    budget: Option<Duration>,
    /// The time this run's lookups have taken.
    spent: Duration,
}

impl DnsVerifier {
    /// Looks up IPs missing from `cache` or older than `ttl` with `resolver`.
    pub fn online(resolver: DnsResolver, cache: DnsCache, ttl: Duration) -> Self {
        DnsVerifier {
            resolver: Some(resolver),
            cache,
            ttl: SignedDuration::try_from(ttl).unwrap_or(SignedDuration::MAX),
            asked: HashSet::new(),
            unknown: HashMap::new(),
            forward: HashMap::new(),
            hosts: HashMap::new(),
            stop: None,
            budget: None,
            spent: Duration::ZERO,
        }
    }

    /// Answers from `cache` alone, expired entries included (`--offline`): an IP not in it is
    /// [`UnknownCause::NotCached`].
    pub fn offline(cache: DnsCache) -> Self {
        DnsVerifier {
            resolver: None,
            cache,
            ttl: SignedDuration::MAX,
            asked: HashSet::new(),
            unknown: HashMap::new(),
            forward: HashMap::new(),
            hosts: HashMap::new(),
            stop: None,
            budget: None,
            spent: Duration::ZERO,
        }
    }

    /// Bounds the time this run's lookups take in all: once `budget` is spent, an address not
    /// known is not looked up ([`UnknownCause::BudgetSpent`]). A stranger's reverse zone that
    /// never answers costs each new address the timeout, and a stranger can send from as many
    /// addresses as an IPv6 prefix holds: without a bound, a night of them never ends.
    #[must_use]
    pub fn with_budget(mut self, budget: Duration) -> Self {
        self.budget = Some(budget);
        self
    }

    /// The cache as a run writes it back: without the entries checked more than
    /// [`KEPT_FOR_TTLS`] times the TTL ago, which an online run would look up again anyway, and
    /// at most [`MAX_CACHE_ENTRIES`] (confirmed ones first, then the most recently checked).
    /// Every new address is an entry, and a stranger can send from as many addresses as an
    /// IPv6 prefix holds: without these bounds the file, read whole at the start of every run,
    /// would grow without end.
    pub fn cache_to_keep(&self) -> DnsCache {
        let now = whole_seconds(Timestamp::now());
        let kept_for = self
            .ttl
            .checked_mul(KEPT_FOR_TTLS)
            .unwrap_or(SignedDuration::MAX);
        let oldest = now.checked_sub(kept_for).unwrap_or(Timestamp::MIN);
        self.cache.pruned(oldest, MAX_CACHE_ENTRIES)
    }

    /// The addresses this run did not look up because its budget was spent.
    pub fn not_asked(&self) -> usize {
        self.unknown
            .values()
            .filter(|cause| **cause == UnknownCause::BudgetSpent)
            .count()
    }

    /// From when `stop` is raised, no lookup starts: what is not known then stays unknown.
    pub fn stop_on(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// The longest a batch of lookups can go on once the run is asked to stop: the lookups
    /// under way then, each a reverse and a forward query of up to the timeout.
    pub fn longest_lookup(&self) -> Duration {
        self.resolver.as_ref().map_or(Duration::ZERO, |resolver| {
            resolver.timeout.saturating_mul(2)
        })
    }

    /// The verdict of each claim, in order, looking up now what needs it.
    pub fn verify(&mut self, claims: &[DnsClaim<'_>]) -> Vec<DnsVerdict> {
        self.verify_at(claims, Timestamp::now())
    }

    /// The verdict [`verify`](Self::verify) would give `claim` now without looking anything up
    /// (a fresh cache entry, an address this run asked, or offline); `None` when it would look
    /// `claim` up.
    pub fn verdict_without_lookup(&self, claim: &DnsClaim<'_>) -> Option<DnsVerdict> {
        let ip = claim.ip.to_canonical();
        let now = whole_seconds(Timestamp::now());
        let answered = self.resolver.is_none()
            || self.asked.contains(&ip)
            || self
                .cache
                .get(ip)
                .is_some_and(|record| self.fresh(record, now));
        answered.then(|| self.known_verdict(ip, claim.suffixes))
    }

    /// Whether `record` needs no new lookup at `now`. A check dated in the future (a clock
    /// that ran ahead, an edited file) is not fresh: it would never expire.
    fn fresh(&self, record: &DnsRecord, now: Timestamp) -> bool {
        record.checked_at <= now && now.duration_since(record.checked_at) <= self.ttl
    }

    /// [`verify`](Self::verify) at the time `now`, which decides what has expired and becomes the
    /// `checked_at` of new records.
    pub fn verify_at(&mut self, claims: &[DnsClaim<'_>], now: Timestamp) -> Vec<DnsVerdict> {
        let now = whole_seconds(now);
        if let Some(resolver) = &self.resolver {
            let mut pending = Vec::new();
            for claim in claims {
                let ip = claim.ip.to_canonical();
                let fresh = self
                    .cache
                    .get(ip)
                    .is_some_and(|record| self.fresh(record, now));
                if !fresh && self.asked.insert(ip) {
                    pending.push(DnsClaim {
                        ip,
                        suffixes: claim.suffixes,
                    });
                }
            }
            let started = Instant::now();
            let deadline = self
                .budget
                .map(|budget| started + budget.saturating_sub(self.spent));
            let answers = resolver.look_up_all(&pending, now, (self.stop.as_deref(), deadline));
            self.spent += started.elapsed();
            for (ip, answer) in answers {
                match answer {
                    Ok((record, forward)) => {
                        self.cache.insert(ip, record);
                        self.forward.insert(ip, forward);
                    }
                    Err(cause) => {
                        self.unknown.insert(ip, cause);
                    }
                }
            }
            if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                for claim in &pending {
                    let looked_up = self
                        .cache
                        .get(claim.ip)
                        .is_some_and(|r| r.checked_at == now)
                        || self.unknown.contains_key(&claim.ip);
                    if !looked_up {
                        self.unknown.insert(claim.ip, UnknownCause::BudgetSpent);
                    }
                }
            }
        }
        claims
            .iter()
            .map(|claim| self.known_verdict(claim.ip, claim.suffixes))
            .collect()
    }

    /// The number of distinct IPs this run has looked up by DNS.
    pub fn lookups(&self) -> usize {
        self.asked.len()
    }

    /// The addresses the PTR name of `ip` resolved to, when this run looked `ip` up (a verdict
    /// from the cache alone has none to show): at most [`SHOWN_FORWARD_ADDRESSES`] of them,
    /// `ip` among them when it was.
    pub fn forward_addresses(&self, ip: IpAddr) -> Option<&[IpAddr]> {
        self.forward.get(&ip.to_canonical()).map(Vec::as_slice)
    }

    /// The verdict for a client field that is the host name `host` (`HostnameLookups On`),
    /// claimed by a bot documenting `suffixes`: [`DnsVerdict::Confirmed`] when the name ends
    /// with one of them and has at least one A or AAAA record. A name outside the suffixes is
    /// not looked up. Each distinct name is looked up once per run, never offline (the cache is
    /// keyed by IP): then it is [`UnknownCause::NotCached`].
    pub fn verify_host(&mut self, host: &str, suffixes: &[String]) -> DnsVerdict {
        let host = normalise_host(host);
        if !suffixes.iter().any(|suffix| suffix_matches(&host, suffix)) {
            return DnsVerdict::NotConfirmed(Refutation::OutsideSuffixes { ptr: host });
        }
        let stopped = self
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed));
        if !self.hosts.contains_key(&host)
            && !stopped
            && let Some(resolver) = &self.resolver
        {
            let answer = resolver
                .host_addresses(&host)
                .map(|addresses| shown_addresses(addresses, None));
            self.hosts.insert(host.clone(), answer);
        }
        self.known_host_verdict(&host, suffixes)
    }

    /// What this run knows of `ip` for a bot documenting `suffixes`, without looking anything
    /// up: the cached record's verdict, why a lookup of this run got no answer, or
    /// [`UnknownCause::NotCached`].
    pub fn known_verdict(&self, ip: IpAddr, suffixes: &[String]) -> DnsVerdict {
        let ip = ip.to_canonical();
        match (self.cache.get(ip), self.unknown.get(&ip)) {
            (Some(record), _) => record.verdict(suffixes),
            (None, Some(cause)) => DnsVerdict::Unknown(cause.clone()),
            (None, None) => DnsVerdict::Unknown(UnknownCause::NotCached),
        }
    }

    /// What this run knows of the logged host name `host`, without looking anything up (see
    /// [`verify_host`](Self::verify_host)).
    pub fn known_host_verdict(&self, host: &str, suffixes: &[String]) -> DnsVerdict {
        let host = normalise_host(host);
        if !suffixes.iter().any(|suffix| suffix_matches(&host, suffix)) {
            return DnsVerdict::NotConfirmed(Refutation::OutsideSuffixes { ptr: host });
        }
        match self.hosts.get(&host) {
            Some(Ok(addresses)) if addresses.is_empty() => {
                DnsVerdict::NotConfirmed(Refutation::NameDoesNotResolve { name: host })
            }
            Some(Ok(_)) => DnsVerdict::Confirmed { ptr: host },
            Some(Err(cause)) => DnsVerdict::Unknown(cause.clone()),
            None => DnsVerdict::Unknown(UnknownCause::NotCached),
        }
    }

    /// The addresses a logged host name resolved to in this run, if it was looked up.
    pub fn host_addresses(&self, host: &str) -> Option<&[IpAddr]> {
        match self.hosts.get(&normalise_host(host)) {
            Some(Ok(addresses)) => Some(addresses),
            _ => None,
        }
    }

    /// The number of distinct host names this run has looked up by forward DNS.
    pub fn host_lookups(&self) -> usize {
        self.hosts.len()
    }

    /// The cache, with this run's answers.
    pub fn cache(&self) -> &DnsCache {
        &self.cache
    }

    /// The cache, with this run's answers, to be saved.
    pub fn into_cache(self) -> DnsCache {
        self.cache
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the cache holds, its file reads back the same.
        #[test]
        fn any_cache_survives_its_file(
            rows in proptest::collection::vec(
                (
                    any::<IpAddr>(),
                    proptest::option::of("[a-zA-Z0-9,\"_-]{1,12}(\\.[a-z0-9-]{1,8}){0,3}"),
                    any::<bool>(),
                    0i64..4_000_000_000,
                ),
                0..20,
            )
        ) {
            let mut cache = DnsCache::new();
            for (ip, ptr, confirmed, second) in rows {
                let confirmed = confirmed && ptr.is_some();
                let checked_at = Timestamp::from_second(second).unwrap();
                cache.insert(ip, DnsRecord { ptr, confirmed, checked_at });
            }
            prop_assert_eq!(DnsCache::from_csv(&cache.to_csv(), "p.csv").unwrap(), cache);
        }

        /// A name under a suffix matches it, in any case and with any trailing dots; a name that
        /// only shares the suffix's last characters does not.
        #[test]
        fn names_under_a_suffix_match_it(
            host in "[a-z0-9-]{1,10}",
            suffix in "[a-z0-9-]{1,10}(\\.[a-z0-9-]{1,10}){0,2}",
            upper in any::<bool>(),
            dot in any::<bool>(),
        ) {
            let name = format!("{host}.{suffix}{}", if dot { "." } else { "" });
            let name = if upper { name.to_ascii_uppercase() } else { name };
            prop_assert!(suffix_matches(&name, &suffix));
            prop_assert!(suffix_matches(&suffix, &suffix));
            let glued = format!("{host}{suffix}");
            prop_assert!(!suffix_matches(&glued, &suffix));
        }
    }

    #[test]
    fn suffixes_match_on_label_boundaries_only() {
        let table = [
            ("crawl-66-249-66-1.googlebot.com", "googlebot.com", true),
            ("crawl-66-249-66-1.googlebot.com.", "googlebot.com", true),
            ("CRAWL.GOOGLEBOT.COM", "googlebot.com", true),
            ("googlebot.com", "googlebot.com", true),
            ("googlebot.com", "googlebot.com.", true),
            ("a.googlebot.com", ".googlebot.com", true),
            ("rate-limited-proxy-1.google.com", "google.com", true),
            ("evilgooglebot.com", "googlebot.com", false),
            ("googlebot.com.evil.example", "googlebot.com", false),
            ("com", "googlebot.com", false),
            ("googlebot.com", "", false),
            ("googlebot.com", ".", false),
            ("", "googlebot.com", false),
        ];
        for (name, suffix, expected) in table {
            assert_eq!(
                suffix_matches(name, suffix),
                expected,
                "{name} under {suffix}"
            );
        }
    }

    #[test]
    fn a_record_judges_each_suffix_list() {
        let checked_at: Timestamp = "2026-11-01T00:00:00Z".parse().unwrap();
        let google = ["googlebot.com".to_owned(), "google.com".to_owned()];
        let bing = ["search.msn.com".to_owned()];
        let record = DnsRecord {
            ptr: Some("crawl-1.googlebot.com".to_owned()),
            confirmed: true,
            checked_at,
        };
        assert_eq!(
            record.verdict(&google),
            DnsVerdict::Confirmed {
                ptr: "crawl-1.googlebot.com".to_owned()
            }
        );
        assert_eq!(
            record.verdict(&bing),
            DnsVerdict::NotConfirmed(Refutation::OutsideSuffixes {
                ptr: "crawl-1.googlebot.com".to_owned()
            })
        );
        let spoof = DnsRecord {
            confirmed: false,
            ..record.clone()
        };
        assert_eq!(
            spoof.verdict(&google),
            DnsVerdict::NotConfirmed(Refutation::ForwardMismatch {
                ptr: "crawl-1.googlebot.com".to_owned()
            })
        );
        let none = DnsRecord {
            ptr: None,
            confirmed: false,
            checked_at,
        };
        assert_eq!(
            none.verdict(&google),
            DnsVerdict::NotConfirmed(Refutation::NoPtr)
        );
    }

    #[test]
    fn cache_csv_round_trips_sorted_and_canonical() {
        let mut cache = DnsCache::new();
        let at: Timestamp = "2026-11-20T10:11:12.75Z".parse().unwrap();
        cache.insert(
            "2001:4860:4801::1".parse().unwrap(),
            DnsRecord {
                ptr: Some("crawl-v6.googlebot.com".to_owned()),
                confirmed: true,
                checked_at: at,
            },
        );
        cache.insert(
            "::ffff:66.249.66.1".parse().unwrap(),
            DnsRecord {
                ptr: Some("crawl-66-249-66-1.googlebot.com".to_owned()),
                confirmed: true,
                checked_at: at,
            },
        );
        cache.insert(
            "10.0.0.1".parse().unwrap(),
            DnsRecord {
                ptr: None,
                confirmed: false,
                checked_at: at,
            },
        );
        let text = String::from_utf8(cache.to_csv()).unwrap();
        assert_eq!(
            text,
            "ip,ptr,confirmed,checked_at\n\
             10.0.0.1,,false,2026-11-20T10:11:12Z\n\
             66.249.66.1,crawl-66-249-66-1.googlebot.com,true,2026-11-20T10:11:12Z\n\
             2001:4860:4801::1,crawl-v6.googlebot.com,true,2026-11-20T10:11:12Z\n"
        );
        assert_eq!(DnsCache::from_csv(text.as_bytes(), "c.csv").unwrap(), cache);
    }

    #[test]
    fn malformed_cache_lines_name_file_and_line() {
        let header = "ip,ptr,confirmed,checked_at\n";
        let good = "66.249.66.1,crawl.googlebot.com,true,2026-11-20T10:11:12Z\n";
        let table = [
            ("ip,ptr\n".to_owned(), "c.csv: line 1: the header must be"),
            (
                format!("{header}{good}nope,x,true,2026-11-20T10:11:12Z\n"),
                "c.csv: line 3: ip `nope`",
            ),
            (
                format!("{header}1.2.3.4,x,maybe,2026-11-20T10:11:12Z\n"),
                "c.csv: line 2: confirmed `maybe`",
            ),
            (
                format!("{header}1.2.3.4,,true,2026-11-20T10:11:12Z\n"),
                "c.csv: line 2: confirmed is true without",
            ),
            (
                format!("{header}1.2.3.4,x,true,yesterday\n"),
                "c.csv: line 2: checked_at `yesterday`",
            ),
            (format!("{header}1.2.3.4,x,true\n"), "c.csv: line 2: "),
            (
                format!("{header}{good}{good}"),
                "c.csv: line 3: 66.249.66.1 is already on line 2",
            ),
            (
                format!("{header}1.2.3.4,a b,true,2026-11-20T10:11:12Z\n"),
                "c.csv: line 2: ptr `a b`",
            ),
            (
                format!("{header}1.2.3.4,\u{7f}x,true,2026-11-20T10:11:12Z\n"),
                "c.csv: line 2: ptr",
            ),
        ];
        for (text, expected) in table {
            let error = DnsCache::from_csv(text.as_bytes(), "c.csv")
                .unwrap_err()
                .to_string();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
        let mut invalid_utf8 = header.as_bytes().to_vec();
        invalid_utf8.extend_from_slice(b"1.2.3.4,\xff,true,2026-11-20T10:11:12Z\n");
        let error = DnsCache::from_csv(&invalid_utf8, "c.csv")
            .unwrap_err()
            .to_string();
        assert!(error.contains("c.csv: line 2: ptr is not UTF-8"), "{error}");
        assert!(DnsCache::from_csv(b"", "c.csv").unwrap().is_empty());
        assert!(
            DnsCache::from_csv(header.as_bytes(), "c.csv")
                .unwrap()
                .is_empty()
        );
    }
}
