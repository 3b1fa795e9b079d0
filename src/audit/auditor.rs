//! One parsed request -> its events pushed into a [`Sink`].
//!
//! An [`Auditor`] is one thread's: it holds the caches in front of the run's shared tables
//! (user-agents, origins, group selections, published ranges), and needs no thread and no file:
//! give it requests, get events. It counts nothing: what a request comes to is the sink's.
//! [`BlockAuditor`] pairs it with a sink to process the blocks the [scheduler](super::schedule)
//! reads. Nothing here allocates per line once the caches are warm: fields are slices of the
//! block, each distinct user-agent and origin spelling is resolved once per thread.

use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use ahash::AHashMap;
use jiff::Timestamp;
use robots_audit_bots::dns::{DnsClaim, DnsVerdict, DnsVerifier};
use robots_audit_bots::{
    BotRanges, ClientAddress, Verification, Verifier, client_address, dotted_quad_address,
};
use robots_audit_logs::{BlockState, OriginParts, Request, Scratch, SkipReason};

use super::Input;
use super::error::AuditError;
use super::fold::{FoldSketch, Folding, KEPT_NAMES, without_retired};
use super::identity::{AgentInfo, Identifier, IdentityCache};
use super::judge::{Judge, Judgement, SelectionCache, match_path};
use super::origin_table::OriginTable;
use super::recent::RecentKeys;
use super::schedule::{BlockHandler, LineBlock};
use super::sink::{AgentRequest, InputEnded, InputStarted, NotABot, Sink, Skipped};
use super::tally::Tally;
use crate::ids::{AgentId, OriginId, VersionId};
use crate::origin::Origin;

/// What every thread's auditor reads and the tables they share (agents, origins).
#[derive(Debug)]
pub struct AuditContext<'a> {
    /// Resolves user-agents and numbers the agents.
    pub identifier: &'a Identifier<'a>,
    /// The robots versions and the grace period.
    pub judge: &'a Judge<'a>,
    /// The published ranges.
    pub verifier: &'a Verifier,
    /// The inputs, for their names in verdicts.
    pub inputs: &'a [Input],
    /// The origin of lines that name none (`--origin`).
    pub default_origin: Option<&'a Origin>,
    /// Stands in for an empty user-agent (`--user-agent`).
    pub fallback_user_agent: Option<&'a [u8]>,
    /// Forward-confirmed reverse DNS (`--verify dns`), shared by the threads.
    pub dns: Option<&'a Mutex<DnsVerifier>>,
    origins: Mutex<OriginTable>,
    /// How many origins the table retired: read without the lock at each block's end.
    retired_origins: AtomicUsize,
}

impl<'a> AuditContext<'a> {
    /// A context with an empty origin table.
    pub fn new(
        identifier: &'a Identifier<'a>,
        judge: &'a Judge<'a>,
        verifier: &'a Verifier,
        inputs: &'a [Input],
    ) -> AuditContext<'a> {
        AuditContext {
            identifier,
            judge,
            verifier,
            inputs,
            default_origin: None,
            fallback_user_agent: None,
            dns: None,
            origins: Mutex::new(OriginTable::new(KEPT_NAMES)),
            retired_origins: AtomicUsize::new(0),
        }
    }

    /// Keeps at most `kept_names` origins without a robots source (by default [`KEPT_NAMES`]).
    pub fn keep_origins(&mut self, kept_names: usize) {
        *self
            .origins
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner) = OriginTable::new(kept_names);
    }

    /// The origins seen, retired ones left out (the empty string for lines without one),
    /// with the new position of each [`OriginId`] given (a retired origin's is the fold row's;
    /// `None` when none was retired), and the hashes of the origins folded.
    pub fn into_origins(self) -> (Vec<String>, Option<Vec<usize>>, FoldSketch) {
        let table = self
            .origins
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let (names, new_ids) = without_retired(table.names, &table.retired, OriginId::index);
        (names, new_ids, table.minted.into_folded())
    }

    /// The agents and origins retired since `seen` (how many of each this thread knows of),
    /// which it then knows of; `None` when there are none (two loads, no lock).
    pub fn retired_since(&self, seen: &mut (usize, usize)) -> Option<Folding> {
        let origins = self.retired_origins.load(Ordering::Acquire);
        let agents = self.identifier.retired_since(seen.0);
        if agents.is_none() && origins <= seen.1 {
            return None;
        }
        let mut folding = Folding::default();
        if let Some((ids, other)) = agents {
            seen.0 += ids.len();
            folding.agents(&ids, other);
        }
        if origins > seen.1 {
            let table = self.origins.lock().unwrap_or_else(PoisonError::into_inner);
            let ids = table.retired.ids.get(seen.1..).unwrap_or_default();
            seen.1 += ids.len();
            folding.origins(ids, table.retired.other);
        }
        Some(folding)
    }

    /// Numbers an origin in the run's table; `None` (a line with no usable origin and no
    /// `--origin`) becomes the empty origin, whose requests stay unjudged. A folded origin
    /// keeps its own name (the per-request reports show it) under the fold row's id.
    fn intern(&self, origin: Option<&Origin>) -> OriginEntry {
        let name = origin.map(Origin::to_string).unwrap_or_default();
        let versions: Arc<[VersionId]> = origin
            .map(|o| self.judge.robots().versions_of(o))
            .unwrap_or_default()
            .into();
        let minted = versions.is_empty() && !name.is_empty();
        let mut table = self.origins.lock().unwrap_or_else(PoisonError::into_inner);
        let id = table.id(&name, minted);
        self.retired_origins
            .store(table.retired.ids.len(), Ordering::Release);
        drop(table);
        (id, Arc::from(name), versions)
    }

    /// Numbers the origin a line's host names, as [`intern`](Self::intern) does; when no
    /// robots source names it and the line logs the server's port apart from a port inside the
    /// host (the client's word, which servers route without), the host at the server's port
    /// instead, if a source names that.
    fn intern_at(
        &self,
        origin: Option<Origin>,
        parts: &OriginParts<'_>,
        host: &[u8],
    ) -> OriginEntry {
        let robots = self.judge.robots();
        let named = |o: &Origin| !robots.versions_of(o).is_empty();
        let origin = match origin {
            Some(o) if named(&o) => Some(o),
            origin => Origin::at_server_port(parts.scheme, host, parts.port)
                .filter(named)
                .or(origin),
        };
        self.intern(origin.as_ref())
    }
}

/// A resolved origin: its id, its name (empty when the line named none) and its robots versions.
type OriginEntry = (OriginId, Arc<str>, Arc<[VersionId]>);

/// Caps each thread's cache of origins, so that a log of millions of distinct hosts does not
/// grow memory without bound.
const CACHE_LIMIT: usize = 100_000;

/// One thread's cache of resolved origins, keyed by the scheme, host and port as the line has
/// them: normalising and interning happen once per distinct spelling and thread.
#[derive(Debug, Default)]
struct OriginCache {
    /// Index into `entries` by key.
    ids: AHashMap<Box<[u8]>, usize>,
    /// Recent keys, looked at before `ids`: most lines name one of a few origins.
    recent: RecentKeys<usize>,
    /// Recent hosts of lines that name no scheme (every line of the CLF family), with the port
    /// of their key and its index: such a line is resolved without building its key.
    recent_hosts: RecentKeys<(u16, usize)>,
    entries: Vec<OriginEntry>,
    /// The origin of lines that name none: `--origin`, or the empty origin.
    default: Option<OriginEntry>,
    /// Reused to build keys.
    key: Vec<u8>,
}

impl OriginCache {
    fn resolve(&mut self, context: &AuditContext<'_>, parts: OriginParts<'_>) -> &OriginEntry {
        let Some(host) = parts.host.filter(|h| !h.is_empty() && *h != b"-") else {
            return self
                .default
                .get_or_insert_with(|| context.intern(context.default_origin));
        };
        let port = parts.port.unwrap_or(0);
        if parts.scheme.is_none()
            && let Some((kept_port, index)) = self.recent_hosts.get(host)
            && kept_port == port
        {
            return &self.entries[index];
        }
        self.key.clear();
        self.key.extend_from_slice(parts.scheme.unwrap_or_default());
        self.key.push(0);
        self.key.extend_from_slice(host);
        self.key.push(0);
        self.key.extend_from_slice(&port.to_le_bytes());
        let index = match self.recent.get(&self.key) {
            Some(index) => index,
            None => {
                let index = match self.ids.get(self.key.as_slice()) {
                    Some(&index) => index,
                    None => {
                        if self.entries.len() >= CACHE_LIMIT {
                            self.ids.clear();
                            self.entries.clear();
                            self.recent.clear();
                            self.recent_hosts.clear();
                        }
                        let origin = Origin::from_parts(parts.scheme, host, parts.port).ok();
                        self.entries.push(context.intern_at(origin, &parts, host));
                        let index = self.entries.len() - 1;
                        self.ids.insert(self.key.as_slice().into(), index);
                        index
                    }
                };
                self.recent.insert(&self.key, index);
                index
            }
        };
        if parts.scheme.is_none() {
            // The key of a line without a scheme is that of the empty scheme: one entry.
            self.recent_hosts.insert(host, (port, index));
        }
        &self.entries[index]
    }
}

/// One thread's knowledge of which agents have published ranges. Most crawlers publish none,
/// and then every request is unverified: the address need not even be parsed. A request is
/// checked against the snapshot in force at its time; with one snapshot (the usual case) no
/// search for it is made. A host-name client is unverified, never spoofed, unless forward DNS
/// verifies it.
#[derive(Debug, Default)]
struct AgentRanges {
    /// By [`AgentId`]: the `--verify` ranges that apply to the agent, merged.
    by_agent: Vec<KnownRanges>,
    /// What recent client fields read as, host names and plain dotted quads aside: a crawler
    /// sends many requests from each of its addresses, and looking an IPv6 field up here costs
    /// a fraction of reading it again (about 680 instructions). A dotted quad is read again
    /// instead (about 190 instructions): cheaper in cycles than a lookup that misses the CPU's
    /// cache, which most lookups of a large slot table do.
    clients: RecentKeys<ClientAddress<'static>>,
    /// With `--verify dns`: what DNS said of each address for each agent this thread has seen,
    /// so that an address seen before never takes the shared verifier's lock.
    dns_seen: AHashMap<(IpAddr, AgentId), DnsVerdictKind>,
    /// With `--verify dns`: for each agent (by [`AgentId`]), the answer for each client field
    /// already seen as it stands in the log, so a repeated address costs one hash of its bytes
    /// instead of parsing it again (at most [`MAX_CLIENT_FIELDS`] fields in all; past that a
    /// new field is parsed and `dns_seen` answers).
    dns_by_field: Vec<AHashMap<Box<[u8]>, DnsVerdictKind>>,
    /// The fields `dns_by_field` holds, over all agents.
    dns_fields: usize,
    /// With `--verify dns`: for each agent, whether each logged host name under its suffixes
    /// resolved forward.
    hosts_seen: AHashMap<AgentId, AHashMap<Box<[u8]>, bool>>,
}

impl AgentRanges {
    /// Forgets what was cached of the retired agents of `folding`.
    fn forget(&mut self, folding: &Folding) {
        for agent in folding.retired_agents() {
            if let Some(ranges) = self.by_agent.get_mut(agent.index()) {
                *ranges = KnownRanges::NotAsked;
            }
            if let Some(fields) = self.dns_by_field.get_mut(agent.index()) {
                self.dns_fields = self.dns_fields.saturating_sub(fields.len());
                *fields = AHashMap::default();
            }
        }
        self.dns_seen
            .retain(|&(_, agent), _| !folding.is_retired(agent));
        self.hosts_seen
            .retain(|&agent, _| !folding.is_retired(agent));
    }
}

/// What one thread knows of an agent's `--verify` ranges. Knowing that there are none is
/// kept apart from the ranges, so that the requests of an agent without any (most crawlers)
/// read nothing more than this.
#[derive(Debug, Clone, Default)]
enum KnownRanges {
    /// Not asked yet.
    #[default]
    NotAsked,
    /// No ranges cover the agent at any time.
    NoRanges,
    /// The ranges that cover the agent.
    Ranges(BotRanges),
}

impl KnownRanges {
    fn of(ranges: BotRanges) -> KnownRanges {
        if ranges.is_empty() {
            KnownRanges::NoRanges
        } else {
            KnownRanges::Ranges(ranges)
        }
    }
}

/// A folded agent shares its id with the others, so nothing is cached by it: a range list keyed
/// by the agent's own name (a minted agent has no operator) is asked at each request.
#[cold]
fn verify_folded(
    verifier: &Verifier,
    info: &AgentInfo,
    client_ip: &[u8],
    time: Timestamp,
) -> Verification {
    if verifier
        .keys()
        .any(|key| key.eq_ignore_ascii_case(&info.bot.name))
    {
        verifier.verify_at(&info.bot, client_ip, time)
    } else {
        Verification::Unverified
    }
}

/// A client field's reading that borrows nothing from the field, so that it can be kept: all
/// but a host name.
fn without_host_name(client: ClientAddress<'_>) -> Option<ClientAddress<'static>> {
    match client {
        ClientAddress::Public(ip) => Some(ClientAddress::Public(ip)),
        ClientAddress::NotPublic => Some(ClientAddress::NotPublic),
        ClientAddress::Several => Some(ClientAddress::Several),
        ClientAddress::Unknown => Some(ClientAddress::Unknown),
        ClientAddress::HostName(_) => None,
    }
}

/// Client fields one thread remembers in [`AgentRanges::dns_by_field`]: a log whose client
/// fields never repeat (a different forwarded list on every line) cannot grow it past this.
const MAX_CLIENT_FIELDS: usize = 100_000;

/// What a DNS verdict means for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DnsVerdictKind {
    Confirmed,
    NotConfirmed,
    Unknown,
}

impl DnsVerdictKind {
    fn of(verdict: Option<&DnsVerdict>) -> DnsVerdictKind {
        match verdict {
            Some(DnsVerdict::Confirmed { .. }) => DnsVerdictKind::Confirmed,
            Some(DnsVerdict::NotConfirmed(_)) => DnsVerdictKind::NotConfirmed,
            Some(DnsVerdict::Unknown(_)) | None => DnsVerdictKind::Unknown,
        }
    }

    /// The request's verification: DNS's answer, or the ranges' verdict when DNS had none.
    fn verification(self, by_ranges: Verification) -> Verification {
        match self {
            DnsVerdictKind::Confirmed => Verification::VerifiedDns,
            DnsVerdictKind::NotConfirmed => Verification::Spoofed,
            DnsVerdictKind::Unknown => by_ranges,
        }
    }
}

/// A request whose verification waits for a DNS lookup of `0` (see [`BlockAuditor`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LookupDeferred(IpAddr);

impl AgentRanges {
    /// The request's verification. With `defer`, a client address DNS has not answered for
    /// this agent is not looked up: [`LookupDeferred`] names it instead.
    fn verify(
        &mut self,
        (verifier, dns): (&Verifier, Option<&Mutex<DnsVerifier>>),
        (agent, info): (AgentId, &AgentInfo),
        (client_ip, time): (&[u8], Timestamp),
        defer: bool,
    ) -> Result<Verification, LookupDeferred> {
        if info.folded {
            return Ok(verify_folded(verifier, info, client_ip, time));
        }
        let slot = agent.index();
        if self.by_agent.len() <= slot {
            self.by_agent.resize(slot + 1, KnownRanges::NotAsked);
        }
        let known = &mut self.by_agent[slot];
        if let KnownRanges::NotAsked = known {
            *known = KnownRanges::of(verifier.ranges_for(&info.bot));
        }
        let by_ranges = if let KnownRanges::Ranges(ranges) = known {
            let client = dotted_quad_address(client_ip)
                .or_else(|| self.clients.get(client_ip))
                .unwrap_or_else(|| {
                    let client = client_address(client_ip);
                    if let Some(kept) = without_host_name(client) {
                        self.clients.insert(client_ip, kept);
                    }
                    client
                });
            ranges.check_address_at(client, time).without_dns()
        } else {
            // Not even the address needs reading.
            Verification::Unverified
        };
        match dns {
            Some(dns)
                if by_ranges != Verification::Verified
                    && !info.bot.policy.dns_suffixes.is_empty() =>
            {
                let seen = self
                    .dns_by_field
                    .get(agent.index())
                    .and_then(|fields| fields.get(client_ip));
                match seen {
                    Some(kind) => Ok(kind.verification(by_ranges)),
                    None => self.verify_by_dns(dns, (agent, info), client_ip, by_ranges, defer),
                }
            }
            _ => Ok(by_ranges),
        }
    }

    /// Forward-confirmed reverse DNS for a request the ranges did not verify: confirmed is
    /// `verified_dns`, refuted is `spoofed`, no answer leaves the ranges' verdict. A logged host
    /// name is checked by forward DNS alone ([`verify_host_by_dns`](Self::verify_host_by_dns));
    /// any other client field that is not a public address is not looked up.
    #[cold]
    fn verify_by_dns(
        &mut self,
        dns: &Mutex<DnsVerifier>,
        (agent, info): (AgentId, &AgentInfo),
        client_ip: &[u8],
        by_ranges: Verification,
        defer: bool,
    ) -> Result<Verification, LookupDeferred> {
        let ip = match client_address(client_ip) {
            ClientAddress::Public(ip) => ip,
            ClientAddress::HostName(host) => {
                return Ok(self.verify_host_by_dns(dns, (agent, info), host, by_ranges));
            }
            ClientAddress::NotPublic | ClientAddress::Several | ClientAddress::Unknown => {
                return Ok(by_ranges);
            }
        };
        let kind = match self.dns_seen.get(&(ip, agent)) {
            Some(&kind) => kind,
            None => {
                let claim = DnsClaim {
                    ip,
                    suffixes: &info.bot.policy.dns_suffixes,
                };
                let mut verifier = dns.lock().unwrap_or_else(PoisonError::into_inner);
                let verdict = if defer {
                    let Some(known) = verifier.verdict_without_lookup(&claim) else {
                        return Err(LookupDeferred(ip));
                    };
                    Some(known)
                } else {
                    verifier.verify(&[claim]).pop()
                };
                drop(verifier);
                let kind = DnsVerdictKind::of(verdict.as_ref());
                self.dns_seen.insert((ip, agent), kind);
                kind
            }
        };
        let slot = agent.index();
        if self.dns_by_field.len() <= slot {
            self.dns_by_field.resize_with(slot + 1, AHashMap::default);
        }
        if self.dns_fields < MAX_CLIENT_FIELDS {
            self.dns_by_field[slot].insert(client_ip.into(), kind);
            self.dns_fields += 1;
        }
        Ok(kind.verification(by_ranges))
    }

    /// A logged host name (`HostnameLookups On`): `verified_dns` when it ends with one of the
    /// bot's suffixes and resolves forward; otherwise the ranges' verdict (unverified), never
    /// spoofed, since the address the request came from is not in the log (`docs/bots.md`).
    fn verify_host_by_dns(
        &mut self,
        dns: &Mutex<DnsVerifier>,
        (agent, info): (AgentId, &AgentInfo),
        host: &[u8],
        by_ranges: Verification,
    ) -> Verification {
        let suffixes = &info.bot.policy.dns_suffixes;
        if !suffixes
            .iter()
            .any(|suffix| robots_audit_bots::host_has_suffix(host, suffix))
        {
            return by_ranges;
        }
        let seen = self.hosts_seen.entry(agent).or_default();
        let resolves = match seen.get(host) {
            Some(&resolves) => resolves,
            None => {
                // A host name is ASCII: anything else cannot resolve and is not asked.
                let resolves = std::str::from_utf8(host).is_ok_and(|name| {
                    matches!(
                        dns.lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .verify_host(name, suffixes),
                        DnsVerdict::Confirmed { .. }
                    )
                });
                seen.insert(host.into(), resolves);
                resolves
            }
        };
        if resolves {
            Verification::VerifiedDns
        } else {
            by_ranges
        }
    }
}

/// One thread's auditor: requests in, events out.
#[derive(Debug)]
pub struct Auditor<'c> {
    context: &'c AuditContext<'c>,
    identities: IdentityCache,
    selections: SelectionCache,
    origins: OriginCache,
    ranges: AgentRanges,
    /// Reused to build a path that is not a slice of the line.
    path: Vec<u8>,
}

impl<'c> Auditor<'c> {
    /// An auditor with empty caches.
    pub fn new(context: &'c AuditContext<'c>) -> Auditor<'c> {
        Auditor {
            context,
            identities: IdentityCache::default(),
            selections: SelectionCache::default(),
            origins: OriginCache::default(),
            ranges: AgentRanges::default(),
            path: Vec::new(),
        }
    }

    /// Forgets what this thread cached of the retired agents and origins of `folding`: a
    /// later request of one resolves again, to its fold row.
    pub fn forget(&mut self, folding: &Folding) {
        if folding.has_agents() {
            self.identities.forget();
            self.selections.forget(folding);
            self.ranges.forget(folding);
        }
        if folding.has_origins() {
            self.origins = OriginCache::default();
        }
    }

    /// Audits `request`, line `line_no` of input `input`, pushing its events into `sink`: a
    /// request of a header that is not a bot's is announced as such, and when its user-agent
    /// resolves to an agent (a bot, or anyone with `--all-agents`), its judgement follows.
    #[inline]
    pub fn request(
        &mut self,
        input: usize,
        line_no: u64,
        request: &Request<'_>,
        sink: &mut impl Sink,
    ) {
        // Not deferred, every lookup is made in place: nothing can be left waiting.
        let _ = self.audit(input, line_no, request, sink, false);
    }

    /// [`request`](Self::request); with `defer`, a request that needs a DNS lookup pushes
    /// nothing and says which address it waits for.
    #[inline]
    fn audit(
        &mut self,
        input: usize,
        line_no: u64,
        request: &Request<'_>,
        sink: &mut impl Sink,
        defer: bool,
    ) -> Result<(), LookupDeferred> {
        let context = self.context;
        // A crawler's own "not fetched" outcome (Heritrix -9998 etc.) is no request to the site.
        if request.fetch_status.is_some_and(|s| s < 0) {
            sink.not_fetched(input, request.time);
            return Ok(());
        }
        let identified = self.identities.resolve(
            context.identifier,
            &request.user_agent,
            context.fallback_user_agent,
        );
        let header = identified.key;
        if !identified.is_bot {
            sink.not_a_bot(&NotABot {
                request,
                input,
                line: line_no,
                key: header,
                fallback: context.fallback_user_agent,
            });
        }
        let Some((agent, info)) = identified.agent else {
            return Ok(());
        };
        let (origin, origin_name, versions) = self.origins.resolve(context, request.origin);
        let path = match_path(request.target, request.query, &mut self.path);
        // `OPTIONS *` and `CONNECT host:443` ask for no path: counted, never judged.
        let judgement = if request.target_form().is_path() {
            context.judge.judge(
                &mut self.selections,
                (agent, info),
                versions,
                request.time,
                path,
            )
        } else {
            Judgement::unjudged()
        };
        let verification = if info.is_bot {
            self.ranges.verify(
                (context.verifier, context.dns),
                (agent, info),
                (request.client_ip, request.time),
                defer,
            )?
        } else {
            Verification::Unverified
        };
        sink.agent_request(&AgentRequest {
            request,
            input,
            source: (context.inputs[input].name.as_str(), line_no),
            header,
            agent,
            agent_info: info,
            origin: *origin,
            origin_name,
            path,
            verification,
            judgement,
            robots: context.judge.robots(),
        });
        Ok(())
    }

    /// Looks up together, 64 at a time (`DnsConfig::concurrency`), every client address of
    /// `work` that DNS has not answered for its agent, so that its requests find their answers
    /// waiting: one lookup after another, each up to twice `--dns-timeout`, a night of new
    /// addresses took hours. The lines are read again, only in a block that needs a lookup.
    #[cold]
    fn look_up_block(&mut self, work: &LineBlock, scratch: &mut Scratch) {
        let context = self.context;
        let Some(dns) = context.dns else {
            return;
        };
        let mut state = work.parser.block_state(&work.block);
        let mut waiting: Vec<(IpAddr, AgentId, Vec<String>)> = Vec::new();
        let mut asked = AHashMap::new();
        for (_, line) in work.block.lines() {
            let Ok(Some(request)) = work.parser.parse(line, &mut state, scratch) else {
                continue;
            };
            if request.fetch_status.is_some_and(|s| s < 0) {
                continue;
            }
            let identified = self.identities.resolve(
                context.identifier,
                &request.user_agent,
                context.fallback_user_agent,
            );
            let Some((agent, info)) = identified.agent.filter(|(_, info)| info.is_bot) else {
                continue;
            };
            let deferred = self.ranges.verify(
                (context.verifier, Some(dns)),
                (agent, info),
                (request.client_ip, request.time),
                true,
            );
            if let Err(LookupDeferred(ip)) = deferred
                && asked.insert((ip, agent), ()).is_none()
            {
                waiting.push((ip, agent, info.bot.policy.dns_suffixes.clone()));
            }
        }
        let claims: Vec<DnsClaim<'_>> = waiting
            .iter()
            .map(|(ip, _, suffixes)| DnsClaim { ip: *ip, suffixes })
            .collect();
        let verdicts = dns
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .verify(&claims);
        for ((ip, agent, _), verdict) in waiting.iter().zip(&verdicts) {
            self.ranges
                .dns_seen
                .insert((*ip, *agent), DnsVerdictKind::of(Some(verdict)));
        }
    }
}

/// One worker thread's handler of blocks: its auditor, and the sink its events go to (the
/// run's counters, then the output's sink).
#[derive(Debug)]
pub struct BlockAuditor<'c, S> {
    /// The auditor.
    pub auditor: Auditor<'c>,
    /// The run's counters, then the output's sink.
    pub sink: (Tally, S),
    /// Kept from block to block with its memory.
    scratch: Scratch,
    /// The same, for the second reading of a block that needs DNS lookups.
    lookahead: Scratch,
    /// How many retired agents and origins this thread has folded.
    retired_seen: (usize, usize),
}

impl<'c, S: Sink> BlockAuditor<'c, S> {
    /// A handler pushing into `tally`, then `sink`.
    pub fn new(context: &'c AuditContext<'c>, tally: Tally, sink: S) -> BlockAuditor<'c, S> {
        BlockAuditor {
            auditor: Auditor::new(context),
            sink: (tally, sink),
            scratch: Scratch::default(),
            lookahead: Scratch::default(),
            retired_seen: (0, 0),
        }
    }
}

impl<S> BlockAuditor<'_, S> {
    /// At the end of a block: forgets what this thread cached of the agents and origins
    /// retired since its last block, and has its tally move what it counted under them to
    /// their fold rows, now or once its counters have grown (`src/audit/fold.rs`).
    fn fold_retired(&mut self) {
        if let Some(folding) = self.auditor.context.retired_since(&mut self.retired_seen) {
            self.auditor.forget(&folding);
            self.sink.0.fold_retired(&folding);
        }
    }
}

/// A failure of the report writers while the audit runs.
fn write_failed(e: std::io::Error) -> AuditError {
    AuditError::Fatal(format!("cannot write reports: {e}"))
}

/// Line `line` of `work`'s input, `text`, skipped for `reason`.
fn skipped<'a>(work: &LineBlock, line: u64, reason: SkipReason, text: &'a [u8]) -> Skipped<'a> {
    Skipped {
        input: work.input,
        line,
        reason,
        text,
    }
}

impl<S: Sink> BlockAuditor<'_, S> {
    /// Reads the records of a container runtime left open where the input ends
    /// ([`LineParser::finish`](robots_audit_logs::LineParser::finish)) as lines of the input's
    /// last line number; a skipped one shows that line's text.
    #[cold]
    fn finish_input(&mut self, work: &LineBlock, state: &mut BlockState) {
        let Some((line_no, line)) = work.block.lines().last() else {
            return;
        };
        while let Some(read) = work.parser.finish(state, &mut self.scratch) {
            match &read {
                Ok(Some(request)) => {
                    self.auditor
                        .request(work.input, line_no, request, &mut self.sink)
                }
                Ok(None) => {}
                &Err(reason) => self.sink.skipped(&skipped(work, line_no, reason, line)),
            }
        }
    }
}

impl<S: Sink> BlockHandler for BlockAuditor<'_, S> {
    fn handle(&mut self, work: &LineBlock) -> Result<u64, AuditError> {
        let mut state = work.parser.block_state(&work.block);
        let mut lines = 0u64;
        // Until a request needs a DNS lookup; then the block's lookups are made at once.
        let mut defer = self.auditor.context.dns.is_some();
        for (line_no, line) in work.block.lines() {
            lines += 1;
            // Matched by reference: binding the request by value copied it, field by field
            // (about 60 instructions a line), only to lend it on.
            match &work.parser.parse(line, &mut state, &mut self.scratch) {
                Ok(Some(request)) => {
                    let audited =
                        self.auditor
                            .audit(work.input, line_no, request, &mut self.sink, defer);
                    if audited.is_err() {
                        defer = false;
                        self.auditor.look_up_block(work, &mut self.lookahead);
                        self.auditor
                            .request(work.input, line_no, request, &mut self.sink);
                    }
                }
                Ok(None) => {}
                &Err(reason) => self.sink.skipped(&skipped(work, line_no, reason, line)),
            }
        }
        if work.block.ends_input {
            self.finish_input(work, &mut state);
        }
        self.fold_retired();
        let context = self.auditor.context;
        self.sink
            .0
            .share_if_large(work.input, |seen| context.retired_since(seen));
        self.sink
            .block_done(work.input, work.seq, lines)
            .map_err(write_failed)?;
        Ok(lines)
    }

    fn input_started(&mut self, started: &InputStarted<'_>) -> Result<(), AuditError> {
        self.sink.input_started(started).map_err(write_failed)
    }

    fn input_ended(&mut self, ended: &InputEnded) -> Result<(), AuditError> {
        self.sink.input_ended(ended).map_err(write_failed)
    }
}

#[cfg(test)]
#[path = "auditor_tests.rs"]
mod tests;
