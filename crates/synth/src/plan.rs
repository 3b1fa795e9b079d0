//! Who crawls: the run's agents (resolved through the bot catalog, so that names and tokens are
//! exactly the ones the audit will use) and the actors that send their traffic.

use robots_audit_bots::{Catalog, Identity, RobotsPolicy};

use crate::agents::{Address, BOTS, OTHER_FIRST_OCTETS, Prefix, SPOOF_FIRST_OCTETS};
use crate::rng::Rng;

/// One crawler of the run, as the audit will name it.
#[derive(Debug)]
pub(crate) struct Agent {
    /// The canonical name the catalog gives its user-agents.
    pub(crate) name: String,
    /// Its robots.txt product tokens, in fallback order (lower case, as the catalog has them).
    pub(crate) tokens: Vec<String>,
    /// Each token spelled as the user-agent header spells it (`GPTBot` for `gptbot`), for group
    /// names that look like the ones sites write.
    pub(crate) spellings: Vec<String>,
    /// The headers it sends.
    pub(crate) user_agents: Vec<&'static str>,
    /// Its published ranges, if any.
    pub(crate) ranges: Option<&'static [Prefix]>,
    /// How robots.txt binds it, as the catalog documents: an `ignores_global` crawler is not
    /// judged by the `*` groups, and a disallowed request of a `user_triggered` or `ignores`
    /// one is `exempt`.
    pub(crate) robots: RobotsPolicy,
}

/// Resolves the first `count` distinct crawlers of the built-in table through `catalog`.
/// User-agents that resolve to the same name are one agent (Googlebot desktop and smartphone),
/// and a user-agent that the catalog does not see as a bot is left out: the audit would not
/// count it, so it can have no truth row.
pub(crate) fn resolve_agents(catalog: &Catalog, count: usize) -> Vec<Agent> {
    let mut agents: Vec<Agent> = Vec::new();
    for bot in BOTS {
        for &user_agent in bot.user_agents {
            let (name, tokens, robots) = match catalog.identify(user_agent.as_bytes()) {
                Identity::Known(index) => match catalog.bots().get(index) {
                    Some(known) => (
                        known.name.clone(),
                        known.tokens.clone(),
                        known.policy.robots,
                    ),
                    None => continue,
                },
                Identity::Unknown(unknown) => (unknown.name, unknown.tokens, RobotsPolicy::Obeys),
                Identity::NotBot => continue,
            };
            if let Some(agent) = agents.iter_mut().find(|a| a.name == name) {
                agent.user_agents.push(user_agent);
                agent.ranges = agent.ranges.or(bot.ranges);
                continue;
            }
            if agents.len() < count {
                let spellings = tokens.iter().map(|t| spelling(t, user_agent)).collect();
                agents.push(Agent {
                    name,
                    tokens,
                    spellings,
                    user_agents: vec![user_agent],
                    ranges: bot.ranges,
                    robots,
                });
            }
        }
    }
    agents
}

/// `token` as it is written inside `user_agent` (case-insensitively found), else as given.
fn spelling(token: &str, user_agent: &str) -> String {
    let needle = token.as_bytes();
    if !needle.is_empty() {
        for window_start in 0..user_agent.len().saturating_sub(needle.len() - 1) {
            if let Some(window) = user_agent.get(window_start..window_start + needle.len())
                && window.as_bytes().eq_ignore_ascii_case(needle)
            {
                return window.to_owned();
            }
        }
    }
    token.to_owned()
}

/// How a request's client address relates to the agent's published ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    Verified,
    Spoofed,
    Unverified,
}

/// Where an actor's requests come from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Network {
    /// Inside the agent's published ranges.
    Published(&'static [Prefix]),
    /// A /16 of some hosting network (first two octets).
    Hosting([u8; 2]),
}

impl Network {
    pub(crate) fn address(self, rng: &mut Rng, allow_v6: bool) -> Address {
        match self {
            Network::Published(prefixes) => {
                let usable = |p: &&Prefix| allow_v6 || p.is_v4();
                let count = prefixes.iter().filter(usable).count();
                let chosen = prefixes.iter().filter(usable).nth(rng.index(count));
                match chosen {
                    Some(prefix) => prefix.address(rng),
                    // Every table entry has an IPv4 prefix; this only guards the arithmetic.
                    None => Address::V4(0x0a00_0001),
                }
            }
            Network::Hosting([a, b]) => {
                let low = rng.below(1 << 16) as u32;
                Address::V4(u32::from(a) << 24 | u32::from(b) << 16 | low)
            }
        }
    }
}

/// When an actor asks for `/robots.txt`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RobotsHabit {
    /// Before its first request on an origin, then again once the copy is older than this many
    /// microseconds.
    Polite { refresh_micros: i64 },
    /// Now and then, without regard to its cache.
    Occasional { per_million: u32 },
}

/// One source of crawler traffic: an agent's genuine crawler, or someone spoofing its name.
#[derive(Debug)]
pub(crate) struct Actor {
    pub(crate) agent: usize,
    pub(crate) weight: u64,
    pub(crate) network: Network,
    /// Share of its page requests that go to disallowed paths (when there are any), per million.
    pub(crate) violate_per_million: u32,
    pub(crate) habit: RobotsHabit,
    pub(crate) check: Check,
}

const HOUR_MICROS: i64 = 3_600_000_000;

/// Gives each agent a genuine actor (well-behaved or careless) and some agents with published
/// ranges a spoofer. The first agent with ranges is always spoofed, so that every run with such
/// an agent has spoofed traffic to find.
pub(crate) fn plan_actors(agents: &[Agent], rng: &mut Rng) -> Vec<Actor> {
    let mut actors = Vec::new();
    let mut spoofed_one = false;
    for (index, agent) in agents.iter().enumerate() {
        // Zipf-like popularity: the table is ordered by prominence.
        let weight = 1_000_000 / (index as u64 + 1) * rng.range(60, 140) / 100;
        let careless = index > 0 && rng.chance(350_000);
        let (violate_per_million, habit) = if careless {
            let habit = if rng.chance(500_000) {
                RobotsHabit::Polite {
                    refresh_micros: rng.range(12, 48) as i64 * HOUR_MICROS,
                }
            } else {
                RobotsHabit::Occasional { per_million: 5_000 }
            };
            (rng.range(50_000, 500_000) as u32, habit)
        } else {
            let refresh = rng.range(6, 24) as i64 * HOUR_MICROS;
            (
                0,
                RobotsHabit::Polite {
                    refresh_micros: refresh,
                },
            )
        };
        let (network, check) = match agent.ranges {
            Some(prefixes) => (Network::Published(prefixes), Check::Verified),
            None => (
                Network::Hosting(hosting(rng, OTHER_FIRST_OCTETS)),
                Check::Unverified,
            ),
        };
        actors.push(Actor {
            agent: index,
            weight: weight.max(1),
            network,
            violate_per_million,
            habit,
            check,
        });
        if agent.ranges.is_some() && (!spoofed_one || rng.chance(400_000)) {
            spoofed_one = true;
            actors.push(Actor {
                agent: index,
                weight: (weight / rng.range(3, 8)).max(1),
                network: Network::Hosting(hosting(rng, SPOOF_FIRST_OCTETS)),
                violate_per_million: rng.range(300_000, 800_000) as u32,
                habit: RobotsHabit::Occasional {
                    per_million: 10_000,
                },
                check: Check::Spoofed,
            });
        }
    }
    actors
}

fn hosting(rng: &mut Rng, first_octets: &[u8]) -> [u8; 2] {
    let first = rng.pick(first_octets).copied().unwrap_or(5);
    // The second octet stays clear of 0 and 255 only for looks.
    [first, rng.range(1, 254) as u8]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling_examples() {
        for (token, ua, expected) in [
            ("gptbot", "Mozilla/5.0 (compatible; GPTBot/1.2)", "GPTBot"),
            ("googlebot", "Googlebot-Image/1.0", "Googlebot"),
            ("absent", "Mozilla/5.0", "absent"),
            ("", "x", ""),
            ("longer-than-ua", "short", "longer-than-ua"),
        ] {
            assert_eq!(spelling(token, ua), expected);
        }
    }

    fn agent(ranges: Option<&'static [Prefix]>) -> Agent {
        Agent {
            name: "X".to_owned(),
            tokens: vec!["x".to_owned()],
            spellings: vec!["X".to_owned()],
            user_agents: vec!["X/1.0"],
            ranges,
            robots: RobotsPolicy::Obeys,
        }
    }

    #[test]
    fn first_ranged_agent_is_spoofed_and_spoofers_violate() {
        const RANGES: &[Prefix] = &[Prefix::V4([66, 249, 64, 0], 27)];
        let agents = [agent(None), agent(Some(RANGES)), agent(None)];
        for seed in 0..50 {
            let actors = plan_actors(&agents, &mut Rng::new(seed, 3));
            let spoofers: Vec<&Actor> = actors
                .iter()
                .filter(|a| a.check == Check::Spoofed)
                .collect();
            assert_eq!(spoofers.len(), 1);
            assert_eq!(spoofers[0].agent, 1);
            assert!(spoofers[0].violate_per_million > 0);
            assert_eq!(
                actors[0].violate_per_million, 0,
                "the top agent is well-behaved"
            );
            for actor in &actors {
                let expected = match (actor.check, agents[actor.agent].ranges) {
                    (Check::Spoofed, _) => Check::Spoofed,
                    (_, Some(_)) => Check::Verified,
                    (_, None) => Check::Unverified,
                };
                assert_eq!(actor.check, expected);
            }
        }
    }

    #[test]
    fn spoofed_addresses_are_outside_the_published_ranges() {
        let mut rng = Rng::new(1, 1);
        for bot in BOTS {
            let Some(prefixes) = bot.ranges else { continue };
            for _ in 0..200 {
                let network = Network::Hosting(hosting(&mut rng, SPOOF_FIRST_OCTETS));
                let address = network.address(&mut rng, true);
                assert!(prefixes.iter().all(|p| !p.contains(address)));
                let genuine = Network::Published(prefixes).address(&mut rng, true);
                assert!(prefixes.iter().any(|p| p.contains(genuine)));
                let v4_only = Network::Published(prefixes).address(&mut rng, false);
                assert!(matches!(v4_only, Address::V4(_)));
            }
        }
    }
}
