//! The auditor alone: no thread, no file. Requests are parsed from lines written here, verdicts
//! land in a sink that keeps them.

use robots_audit_bots::{Bot, Catalog};
use robots_audit_engine::Robots;
use robots_audit_logs::{BlockState, Format, LineParser};

use super::*;
use crate::audit::file_report::FileReport;
use crate::audit::judge::{Decider, Outcome};
use crate::audit::tally::fold;
use crate::audit::tally::tests::inputs;
use crate::audit::unknown::EXACT_LIMIT;
use crate::versions::{FetchStatus, Version, VersionSet};

/// What a test looks at in a verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    agent: String,
    origin: String,
    outcome: Outcome,
    rule: Option<String>,
    verification: Verification,
    source: (String, u64),
}

#[derive(Default)]
struct Keep(Vec<Seen>);

impl Sink for Keep {
    fn agent_request(&mut self, v: &AgentRequest<'_>) {
        let version = v.judgement.version.map(|id| v.robots.version(id));
        let rule = match (v.judgement.decider, version) {
            (Decider::Rule(rule), Some(version)) => version
                .robots
                .as_ref()
                .map(|robots| robots.rules()[rule as usize].text.clone()),
            (Decider::Status, Some(version)) => Some(version.status_rule()),
            _ => None,
        };
        self.0.push(Seen {
            agent: v.agent_info.bot.name.clone(),
            origin: v.origin_name.to_owned(),
            outcome: v.judgement.outcome,
            rule,
            verification: v.verification,
            source: (v.source.0.to_owned(), v.source.1),
        });
    }
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const MJ12: &str = "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)";
const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// `a.example` (any scheme) with rules; `https://b.example` answering 503.
fn versions() -> VersionSet {
    let mut set = VersionSet::new();
    let body = b"User-agent: *\nDisallow: /private/\n\nUser-agent: MJ12bot\nDisallow: /\n";
    set.add(Version {
        origin: "a.example".into(),
        valid_from: None,
        status: FetchStatus::Http(200),
        robots: Some(Robots::parse(body).into()),
        source: "a.txt".into(),
        bytes: body.len() as u64,
        sha256: None,
    })
    .unwrap();
    set.add(Version {
        origin: "https://b.example".into(),
        valid_from: None,
        status: FetchStatus::Http(503),
        robots: None,
        source: "manifest".into(),
        bytes: 0,
        sha256: None,
    })
    .unwrap();
    set
}

fn line(host: &str, ip: &str, path: &str, ua: &str) -> String {
    format!(
        "{host}:443 {ip} - - [01/Jan/2026:09:00:00 +0000] \"GET {path} HTTP/1.1\" 200 512 \"-\" \"{ua}\""
    )
}

/// Feeds `lines` (input, text; numbered from 1 in order) to `auditor`, pushing into `sink`.
fn feed(auditor: &mut Auditor<'_>, sink: &mut impl Sink, lines: &[(usize, String)]) {
    let parser = LineParser::new(Format::VhostCombined, &Default::default());
    let mut scratch = Scratch::default();
    for (line_no, (input, text)) in (1..).zip(lines) {
        let mut state = BlockState::default();
        match &parser.parse(text.as_bytes(), &mut state, &mut scratch) {
            Ok(Some(request)) => auditor.request(*input, line_no, request, sink),
            Ok(None) => {}
            &Err(reason) => sink.skipped(&Skipped {
                input: *input,
                line: line_no,
                reason,
                text: text.as_bytes(),
            }),
        }
    }
}

/// Audits `lines` with a fresh auditor: the verdicts, the origins, the counters of each input.
fn audit(all_agents: bool, lines: &[(usize, String)]) -> (Vec<Seen>, Vec<String>, Vec<FileReport>) {
    let catalog = Catalog::builtin();
    let mut verifier = Verifier::new();
    verifier
        // Named after a list Googlebot's catalog entry documents: an operator's list of
        // another name covers none of its documented crawlers.
        .add_ranges("Google", b"66.249.64.0/19\n", "googlebot.txt")
        .unwrap();
    let versions = versions();
    let identifier = Identifier::new(&catalog, all_agents);
    let judge = Judge::new(&versions, jiff::SignedDuration::from_hours(24));
    let inputs = inputs();
    let context = AuditContext::new(&identifier, &judge, &verifier, &inputs);
    let mut auditor = Auditor::new(&context);
    let mut sink = (Tally::new(EXACT_LIMIT), Keep::default());
    feed(&mut auditor, &mut sink, lines);
    let (tally, kept) = sink;
    let counts = fold(vec![tally], &inputs, (EXACT_LIMIT, "UTC"))
        .unwrap()
        .into_iter()
        .map(|input| input.file)
        .collect();
    (kept.0, context.into_origins().0, counts)
}

type Brief = (String, String, Outcome, Option<String>);

fn brief(agent: &str, origin: &str, outcome: Outcome, rule: Option<&str>) -> Brief {
    (
        agent.into(),
        origin.into(),
        outcome,
        rule.map(str::to_owned),
    )
}

#[test]
fn each_request_gets_its_verdict() {
    let google = "66.249.66.1";
    let lines = [
        (0, line("a.example", google, "/private/x", GOOGLEBOT)),
        (0, line("a.example", google, "/public", GOOGLEBOT)),
        (
            0,
            line("a.example", "203.0.113.9", "/robots.txt", GOOGLEBOT),
        ),
        (1, line("a.example", "198.51.100.1", "/public", MJ12)),
        (1, line("b.example", "198.51.100.1", "/public", MJ12)),
        (1, line("c.example", "198.51.100.1", "/public", MJ12)),
        (1, line("a.example", "198.51.100.2", "/private/x", FIREFOX)),
        (1, "not a log line".to_owned()),
    ];
    let (verdicts, origins, counts) = audit(false, &lines);
    let got: Vec<Brief> = verdicts
        .iter()
        .map(|s| (s.agent.clone(), s.origin.clone(), s.outcome, s.rule.clone()))
        .collect();
    let a = "https://a.example";
    assert_eq!(
        got,
        [
            brief(
                "Googlebot",
                a,
                Outcome::Disallowed,
                Some("Disallow: /private/")
            ),
            brief("Googlebot", a, Outcome::Allowed, None),
            brief("Googlebot", a, Outcome::RobotsFetch, None),
            brief("MJ12bot", a, Outcome::Disallowed, Some("Disallow: /")),
            brief(
                "MJ12bot",
                "https://b.example",
                Outcome::Disallowed,
                Some("status 503")
            ),
            brief("MJ12bot", "https://c.example", Outcome::Unjudged, None),
        ]
    );
    let verifications: Vec<Verification> = verdicts.iter().map(|s| s.verification).collect();
    assert_eq!(
        verifications,
        [
            Verification::Verified,
            Verification::Verified,
            Verification::Spoofed,
            Verification::Unverified,
            Verification::Unverified,
            Verification::Unverified,
        ]
    );
    assert_eq!(verdicts[3].source, ("two.log".to_owned(), 4));
    assert_eq!(
        origins,
        [
            "https://a.example",
            "https://b.example",
            "https://c.example"
        ]
    );
    let summary: Vec<_> = counts
        .iter()
        .map(|c| {
            (
                c.parsed,
                c.skipped,
                c.bot_requests,
                c.other_requests,
                c.samples.len(),
            )
        })
        .collect();
    assert_eq!(summary, [(3, 0, 3, 0, 0), (4, 1, 3, 1, 1)]);
    assert_eq!(counts[1].samples[0].line, 8);
}

#[test]
fn all_agents_judges_browsers_under_the_star_group() {
    let lines = [(0, line("a.example", "198.51.100.2", "/private/x", FIREFOX))];
    let (verdicts, _, counts) = audit(true, &lines);
    assert_eq!(verdicts.len(), 1);
    assert_eq!(
        (verdicts[0].agent.as_str(), verdicts[0].outcome),
        ("(not a bot)", Outcome::Disallowed)
    );
    assert_eq!((counts[0].bot_requests, counts[0].other_requests), (0, 1));
}

#[test]
fn the_counters_are_a_sink_that_adds_up_the_events() {
    let catalog = Catalog::builtin();
    let verifier = Verifier::new();
    let versions = versions();
    let identifier = Identifier::new(&catalog, false);
    let judge = Judge::new(&versions, jiff::SignedDuration::from_hours(24));
    let inputs = inputs();
    let context = AuditContext::new(&identifier, &judge, &verifier, &inputs);
    let mut auditor = Auditor::new(&context);
    let mut sink = (Tally::new(EXACT_LIMIT), Keep::default());
    let lines: Vec<(usize, String)> = ["/private/a", "/private/b", "/ok", "/robots.txt"]
        .into_iter()
        .map(|path| (0, line("a.example", "203.0.113.1", path, GOOGLEBOT)))
        .collect();
    feed(&mut auditor, &mut sink, &lines);
    let (tally, kept) = sink;
    let stats = fold(vec![tally], &inputs, (EXACT_LIMIT, "UTC"))
        .unwrap()
        .swap_remove(0)
        .stats;
    assert_eq!(kept.0.len(), 4);
    assert_eq!(stats.pairs.len(), 1);
    let counts = stats.pairs.values().next().unwrap();
    assert_eq!(
        (
            counts.requests,
            counts.robots_fetches,
            counts.allowed,
            counts.disallowed,
            counts.unverified
        ),
        (4, 1, 1, 2, 4)
    );
    let decided: Vec<(u64, u64)> = stats
        .rules
        .values()
        .map(|r| (r.decided, r.violations))
        .collect();
    assert_eq!(decided, [(2, 2)]);
}

fn agent(catalog: &Catalog, name: &str) -> AgentInfo {
    let bot = catalog
        .bots()
        .iter()
        .find(|bot| bot.name == name)
        .cloned()
        .unwrap_or_else(|| Bot {
            name: name.to_owned(),
            tokens: vec![name.to_ascii_lowercase()],
            operator: String::new(),
            category: robots_audit_bots::Category::Other,
            policy: Default::default(),
        });
    AgentInfo::from_bot(bot, false)
}

#[test]
fn verifications_agree_with_the_verifier() {
    let catalog = Catalog::builtin();
    let mut verifier = Verifier::new();
    verifier
        .add_ranges(
            "Googlebot",
            b"66.249.64.0/19\n2001:4860:4801::/48\n",
            "google.txt",
        )
        .unwrap();
    verifier
        .add_ranges("Microsoft", b"157.55.39.0/24\n", "bing.txt")
        .unwrap();
    let agents = [
        agent(&catalog, "Googlebot"),
        agent(&catalog, "Bingbot"),
        agent(&catalog, "GPTBot"),
        agent(&catalog, "NoSuchBot"),
    ];
    let addresses: [&[u8]; 7] = [
        b"66.249.66.1",
        b"157.55.39.7:443",
        b"[2001:4860:4801::1]",
        b"203.0.113.9",
        b"",
        b"-",
        b"not an address",
    ];
    let time: jiff::Timestamp = "2025-06-01T12:00:00Z".parse().unwrap();
    let mut ranges = AgentRanges::default();
    for round in 0..2 {
        for (id, info) in agents.iter().enumerate() {
            let id = AgentId::from_index(id).unwrap();
            for address in addresses {
                assert_eq!(
                    ranges
                        .verify((&verifier, None), (id, info), (address, time), false)
                        .unwrap(),
                    verifier.verify(&info.bot, address),
                    "round {round}, {} from {}",
                    info.bot.name,
                    String::from_utf8_lossy(address)
                );
            }
        }
    }
    let ranged: Vec<bool> = ranges
        .by_agent
        .iter()
        .map(|known| match known {
            KnownRanges::Ranges(ranges) => !ranges.is_empty(),
            KnownRanges::NoRanges => false,
            KnownRanges::NotAsked => panic!("every agent was asked"),
        })
        .collect();
    assert_eq!(ranged, [true, true, false, false]);
}

#[test]
fn each_request_is_verified_against_the_snapshot_in_force_at_its_time() {
    let catalog = Catalog::builtin();
    let mut verifier = Verifier::new();
    let at = |text: &str| -> jiff::Timestamp { text.parse().unwrap() };
    verifier
        .add_snapshot(
            "Google",
            "common-crawlers",
            at("2025-01-01T00:00:00Z"),
            b"66.249.64.0/19\n",
            "common-crawlers/2025-01-01.txt",
        )
        .unwrap();
    verifier
        .add_snapshot(
            "Google",
            "common-crawlers",
            at("2025-06-01T00:00:00Z"),
            b"192.0.2.0/24\n",
            "common-crawlers/2025-06-01.txt",
        )
        .unwrap();
    let googlebot = agent(&catalog, "Googlebot");
    let feedfetcher = agent(&catalog, "FeedFetcher-Google");
    let id = AgentId::from_index(0).unwrap();
    let other = AgentId::from_index(1).unwrap();
    let cases: [(&AgentInfo, AgentId, &[u8], &str, Verification); 8] = [
        // Before the first snapshot the list says nothing.
        (
            &googlebot,
            id,
            b"66.249.66.1",
            "2024-12-31T23:59:59Z",
            Verification::Unverified,
        ),
        (
            &googlebot,
            id,
            b"66.249.66.1",
            "2025-01-01T00:00:00Z",
            Verification::Verified,
        ),
        (
            &googlebot,
            id,
            b"192.0.2.1",
            "2025-03-01T00:00:00Z",
            Verification::Spoofed,
        ),
        (
            &googlebot,
            id,
            b"66.249.66.1",
            "2025-06-01T00:00:00Z",
            Verification::Spoofed,
        ),
        (
            &googlebot,
            id,
            b"192.0.2.1",
            "2026-01-01T00:00:00Z",
            Verification::Verified,
        ),
        // A host name is never spoofed: unverified until DNS is wired.
        (
            &googlebot,
            id,
            b"crawl-66-249-66-1.googlebot.com",
            "2025-03-01T00:00:00Z",
            Verification::Unverified,
        ),
        (
            &googlebot,
            id,
            b"spoof.example",
            "2025-03-01T00:00:00Z",
            Verification::Unverified,
        ),
        // The common-crawlers list does not cover a user-triggered fetcher.
        (
            &feedfetcher,
            other,
            b"203.0.113.9",
            "2025-03-01T00:00:00Z",
            Verification::Unverified,
        ),
    ];
    let mut ranges = AgentRanges::default();
    for (info, agent, address, time, expected) in cases {
        let time = at(time);
        assert_eq!(
            ranges
                .verify((&verifier, None), (agent, info), (address, time), false)
                .unwrap(),
            expected,
            "{} from {} at {time}",
            info.bot.name,
            String::from_utf8_lossy(address)
        );
        assert_eq!(verifier.verify_at(&info.bot, address, time), expected);
    }
}

#[test]
fn dns_answers_are_remembered_per_client_field_within_a_bound() {
    use robots_audit_bots::dns::{DnsCache, DnsRecord, DnsVerifier};

    let catalog = Catalog::builtin();
    let verifier = Verifier::new();
    let googlebot = agent(&catalog, "Googlebot");
    let id = AgentId::from_index(0).unwrap();
    let time: jiff::Timestamp = "2025-06-01T12:00:00Z".parse().unwrap();
    let mut cache = DnsCache::new();
    let record = |ptr: &str, confirmed| DnsRecord {
        ptr: Some(ptr.to_owned()),
        confirmed,
        checked_at: time,
    };
    cache.insert(
        "66.249.66.1".parse().unwrap(),
        record("crawl-66-249-66-1.googlebot.com", true),
    );
    cache.insert(
        "203.0.113.9".parse().unwrap(),
        record("crawl.googlebot.com.example.net", true),
    );
    let dns = Mutex::new(DnsVerifier::offline(cache));
    let mut ranges = AgentRanges::default();
    let verify = |ranges: &mut AgentRanges, field: &[u8]| {
        ranges
            .verify(
                (&verifier, Some(&dns)),
                (id, &googlebot),
                (field, time),
                false,
            )
            .unwrap()
    };
    // The same field answers the same from memory as when it was first parsed and asked.
    for _ in 0..3 {
        assert_eq!(
            verify(&mut ranges, b"66.249.66.1"),
            Verification::VerifiedDns
        );
        assert_eq!(verify(&mut ranges, b"203.0.113.9"), Verification::Spoofed);
        assert_eq!(
            verify(&mut ranges, b"198.51.100.7"),
            Verification::Unverified
        );
    }
    assert_eq!(ranges.dns_fields, 3);
    // Fields that never repeat fill the memory up to its bound and no further; past it, a new
    // field is still answered right.
    for n in 0..MAX_CLIENT_FIELDS as u32 {
        let field = format!("10.{}.{}.{}, 66.249.66.1", n >> 16, (n >> 8) & 255, n & 255);
        assert_eq!(
            verify(&mut ranges, field.as_bytes()),
            Verification::VerifiedDns
        );
    }
    assert_eq!(ranges.dns_fields, MAX_CLIENT_FIELDS);
    assert_eq!(
        verify(&mut ranges, b" 66.249.66.1"),
        Verification::VerifiedDns
    );
    assert_eq!(verify(&mut ranges, b"203.0.113.9 "), Verification::Spoofed);
    assert_eq!(ranges.dns_fields, MAX_CLIENT_FIELDS);
}

/// A minted bot's header, `Bot0000007Bot/1.0 (...)`, named `Bot0000007Bot`.
fn minted(i: usize) -> String {
    format!("Bot{i:07}Bot/1.0 (+http://x{i}.example/)")
}

/// The distinct agents a thread's counters of input 0 name.
fn agents_counted(tally: &Tally) -> usize {
    let agents: std::collections::BTreeSet<AgentId> = tally
        .stats(0)
        .map(|stats| stats.pairs.keys().map(|k| k.0).collect())
        .unwrap_or_default();
    agents.len()
}

/// Names arriving in decreasing hash order push one name out per line: each thread moves what
/// it counted of the pushed-out ones to the fold row at the end of its block, a thread whose
/// cache still names one included, and the run's counters are those of any other order.
#[test]
fn retired_names_leave_every_thread_at_the_end_of_its_block() {
    use crate::audit::fold::{OTHER_AGENTS, name_hash};
    const KEPT: usize = 3;
    let catalog = Catalog::builtin();
    let verifier = Verifier::new();
    let versions = versions();
    let judge = Judge::new(&versions, jiff::SignedDuration::from_hours(24));
    let inputs = inputs();
    let mut bots: Vec<usize> = (1..=12).collect();
    bots.sort_by_key(|&i| std::cmp::Reverse(name_hash(format!("Bot{i:07}Bot").as_bytes())));
    let requests = |bots: &[usize]| -> Vec<(usize, String)> {
        bots.iter()
            .map(|&i| {
                (
                    0,
                    line("a.example", "203.0.113.1", "/private/x", &minted(i)),
                )
            })
            .collect()
    };
    let run = |order: &[usize]| {
        let identifier = Identifier::new(&catalog, false).keeping(KEPT);
        let context = AuditContext::new(&identifier, &judge, &verifier, &inputs);
        let mut first = BlockAuditor::new(&context, Tally::new(EXACT_LIMIT), ());
        let mut second = BlockAuditor::new(&context, Tally::new(EXACT_LIMIT), ());
        // The second thread caches the largest name while it is still kept.
        feed(
            &mut second.auditor,
            &mut second.sink,
            &requests(&order[..1]),
        );
        feed(&mut first.auditor, &mut first.sink, &requests(&order[1..]));
        // Its cache still names the pushed-out agent: counted under its id, then moved.
        feed(
            &mut second.auditor,
            &mut second.sink,
            &requests(&order[..1]),
        );
        let before = (
            agents_counted(&first.sink.0),
            agents_counted(&second.sink.0),
        );
        first.fold_retired();
        second.fold_retired();
        let after = (
            agents_counted(&first.sink.0),
            agents_counted(&second.sink.0),
        );
        // Forgotten by the second thread's cache: now counted in the fold row.
        feed(
            &mut second.auditor,
            &mut second.sink,
            &requests(&order[..1]),
        );
        assert_eq!(agents_counted(&second.sink.0), after.1);
        let tallies = vec![first.sink.0, second.sink.0];
        let stats = fold(tallies, &inputs, (EXACT_LIMIT, "UTC"))
            .unwrap()
            .swap_remove(0)
            .stats;
        drop(context);
        let (agents, new_ids, _) = identifier.into_agents();
        let names: Vec<String> = agents.iter().map(|a| a.bot.name.clone()).collect();
        let mut requests_by_name: Vec<(String, u64)> = stats
            .pairs
            .iter()
            .map(|(&(agent, _), counts)| {
                let at = new_ids
                    .as_ref()
                    .map_or(agent.index(), |ids| ids[agent.index()]);
                (names[at].clone(), counts.requests)
            })
            .collect();
        requests_by_name.sort();
        (before, after, requests_by_name)
    };
    let (before, after, counted) = run(&bots);
    // Nine names were pushed out, one per line of the first thread.
    assert_eq!(before, (11, 1));
    assert_eq!(after, (KEPT + 1, 1));
    // The three smallest names are kept; the others' twelve requests less three are folded.
    let mut want: Vec<(String, u64)> = bots[bots.len() - KEPT..]
        .iter()
        .map(|&i| (format!("Bot{i:07}Bot"), 1))
        .collect();
    want.push((OTHER_AGENTS.to_owned(), 11));
    want.sort();
    assert_eq!(counted, want);
}

/// One host on several ports, alternately: each line keeps the origin of its own port,
/// though the thread's recent hosts are kept by host.
#[test]
fn one_host_on_several_ports_is_one_origin_per_port() {
    let on = |port: u16| {
        format!(
            "a.example:{port} 66.249.66.1 - - [01/Jan/2026:09:00:00 +0000] \"GET /public HTTP/1.1\" 200 512 \"-\" \"{GOOGLEBOT}\""
        )
    };
    let ports = [443, 80, 443, 80, 8080, 443, 8080];
    let lines: Vec<(usize, String)> = ports.iter().map(|&port| (0, on(port))).collect();
    let (verdicts, _, _) = audit(false, &lines);
    let got: Vec<&str> = verdicts.iter().map(|seen| seen.origin.as_str()).collect();
    let want: Vec<String> = ports
        .iter()
        .map(|&port| {
            crate::origin::Origin::from_parts(None, b"a.example", Some(port))
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        want.iter().collect::<std::collections::BTreeSet<_>>().len(),
        3
    );
}
