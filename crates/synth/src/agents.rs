//! The built-in crawler and browser user-agents, and the IP ranges the genuine crawlers use.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::rng::Rng;

/// A CIDR prefix that a crawler's genuine requests come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix {
    /// An IPv4 network: address and prefix length.
    V4([u8; 4], u8),
    /// An IPv6 network: address and prefix length.
    V6([u16; 8], u8),
}

impl Prefix {
    /// A random address inside the prefix.
    pub(crate) fn address(self, rng: &mut Rng) -> Address {
        match self {
            Prefix::V4(base, len) => {
                let host_bits = 32 - u32::from(len.min(32));
                let host = if host_bits == 0 {
                    0
                } else {
                    // The random part is below 2^host_bits <= 2^32.
                    rng.below(1 << host_bits) as u32
                };
                Address::V4(u32::from_be_bytes(base) | host)
            }
            Prefix::V6(base, len) => {
                let host_bits = 128 - u32::from(len.min(128));
                let base = Ipv6Addr::from(base).to_bits();
                let random = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
                let host = if host_bits == 0 {
                    0
                } else {
                    random >> (128 - host_bits)
                };
                Address::V6(base | host)
            }
        }
    }

    /// Whether `address` is inside the prefix.
    #[cfg(test)]
    pub(crate) fn contains(self, address: Address) -> bool {
        match (self, address) {
            (Prefix::V4(base, len), Address::V4(ip)) => {
                let shift = 32 - u32::from(len.min(32));
                u32::from_be_bytes(base).checked_shr(shift) == ip.checked_shr(shift)
            }
            (Prefix::V6(base, len), Address::V6(ip)) => {
                let shift = 128 - u32::from(len.min(128));
                Ipv6Addr::from(base).to_bits().checked_shr(shift) == ip.checked_shr(shift)
            }
            _ => false,
        }
    }

    pub(crate) fn is_v4(self) -> bool {
        matches!(self, Prefix::V4(..))
    }
}

impl std::fmt::Display for Prefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Prefix::V4(base, len) => write!(f, "{}/{len}", Ipv4Addr::from(base)),
            Prefix::V6(base, len) => write!(f, "{}/{len}", Ipv6Addr::from(base)),
        }
    }
}

/// A client address as generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Address {
    V4(u32),
    V6(u128),
}

/// One crawler of the built-in table.
#[derive(Debug)]
pub struct SynthBot {
    /// The user-agent headers it sends (several for crawlers with desktop and mobile variants).
    pub user_agents: &'static [&'static str],
    /// The prefixes its genuine requests come from, when its operator publishes them (these are
    /// written to `ranges/<name>.json`); `None`: no published ranges, requests are unverified.
    pub ranges: Option<&'static [Prefix]>,
}

const GOOGLE: &[Prefix] = &[
    Prefix::V4([66, 249, 64, 0], 27),
    Prefix::V4([66, 249, 66, 0], 27),
    Prefix::V4([66, 249, 68, 0], 27),
    Prefix::V4([66, 249, 79, 0], 27),
    Prefix::V6([0x2001, 0x4860, 0x4801, 0x10, 0, 0, 0, 0], 64),
    Prefix::V6([0x2001, 0x4860, 0x4801, 0x2a, 0, 0, 0, 0], 64),
];
const BING: &[Prefix] = &[
    Prefix::V4([157, 55, 39, 0], 24),
    Prefix::V4([207, 46, 13, 0], 24),
    Prefix::V4([40, 77, 167, 0], 24),
];
const GPTBOT: &[Prefix] = &[
    Prefix::V4([20, 171, 206, 0], 24),
    Prefix::V4([52, 230, 152, 0], 24),
];
const OAI_SEARCH: &[Prefix] = &[
    Prefix::V4([20, 42, 10, 176], 28),
    Prefix::V4([172, 203, 190, 128], 28),
];
const CHATGPT_USER: &[Prefix] = &[
    Prefix::V4([23, 98, 142, 176], 28),
    Prefix::V4([40, 84, 180, 224], 28),
];
const PERPLEXITY: &[Prefix] = &[
    Prefix::V4([3, 224, 62, 0], 28),
    Prefix::V4([44, 221, 181, 224], 28),
];
const APPLE: &[Prefix] = &[
    Prefix::V4([17, 241, 208, 0], 24),
    Prefix::V4([17, 22, 237, 0], 24),
    Prefix::V6([0x2a01, 0xb747, 0x3000, 0x200, 0, 0, 0, 0], 64),
];
const DUCKDUCKGO: &[Prefix] = &[
    Prefix::V4([20, 191, 45, 212], 32),
    Prefix::V4([40, 88, 21, 235], 32),
    Prefix::V4([52, 142, 24, 149], 32),
];

/// The built-in crawlers, most prominent first: a run with `bots = n` uses the first `n`.
/// Three are made up (self-declared bots that no catalog knows), so the audit's unknown-bot path
/// is always exercised.
pub const BOTS: &[SynthBot] = &[
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.204 Safari/537.36",
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        ],
        ranges: Some(GOOGLE),
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
            "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        ],
        ranges: Some(BING),
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        ],
        ranges: Some(GPTBOT),
    },
    SynthBot {
        user_agents: &["Mozilla/5.0 (compatible; ExampleCrawler/2.1; +https://example.net/bot)"],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &["Googlebot-Image/1.0"],
        ranges: Some(GOOGLE),
    },
    SynthBot {
        user_agents: &["Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)"],
        ranges: None,
    },
    SynthBot {
        user_agents: &["CCBot/2.0 (https://commoncrawl.org/faq/)"],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
        ],
        ranges: Some(PERPLEXITY),
    },
    SynthBot {
        user_agents: &["Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)"],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
        ],
        ranges: Some(APPLE),
    },
    SynthBot {
        user_agents: &["AcmeResearchBot/0.9 (+https://research.acme.example/crawler)"],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot",
        ],
        ranges: Some(OAI_SEARCH),
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &["Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)"],
        ranges: None,
    },
    SynthBot {
        user_agents: &["DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)"],
        ranges: Some(DUCKDUCKGO),
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
        ],
        ranges: Some(CHATGPT_USER),
    },
    SynthBot {
        user_agents: &["facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (compatible; DotBot/1.2; +https://opensiteexplorer.org/dotbot; help@moz.com)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &["Twitterbot/1.0"],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (compatible; SeznamBot/4.0; +https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (compatible; archive.org_bot +http://archive.org/details/archive.org_bot)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (compatible; NimbusSpider/1.3; +http://nimbus.example.org/spider.html)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &["Mozilla/5.0 (compatible; BLEXBot/1.0; +http://webmeup-crawler.com/)"],
        ranges: None,
    },
    SynthBot {
        user_agents: &["Mozilla/5.0 (compatible; Qwantbot/1.0; +https://help.qwant.com/bot/)"],
        ranges: None,
    },
    SynthBot {
        user_agents: &[
            "Mozilla/5.0 (compatible; DataForSeoBot/1.0; +https://dataforseo.com/dataforseo-bot)",
        ],
        ranges: None,
    },
    SynthBot {
        user_agents: &["Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)"],
        ranges: None,
    },
];

/// Browser user-agents: the non-bot share of the traffic.
pub const BROWSERS: &[&str] = &[
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.104 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
    "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
    "Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
];

/// First octets of the hosting networks that spoofers send from. None of them starts any prefix
/// in the tables above, so a spoofed address is never inside a published range.
pub(crate) const SPOOF_FIRST_OCTETS: &[u8] = &[45, 91, 103, 185, 194, 212];

/// First octets of networks for crawlers without published ranges and for browsers.
pub(crate) const OTHER_FIRST_OCTETS: &[u8] = &[5, 37, 46, 62, 77, 84, 88, 95, 109, 136, 144, 178];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_display_as_cidr() {
        assert_eq!(GOOGLE[0].to_string(), "66.249.64.0/27");
        assert_eq!(GOOGLE[4].to_string(), "2001:4860:4801:10::/64");
        assert_eq!(DUCKDUCKGO[0].to_string(), "20.191.45.212/32");
    }

    #[test]
    fn addresses_fall_inside_their_prefix() {
        let mut rng = Rng::new(1, 2);
        for bot in BOTS {
            for prefix in bot.ranges.unwrap_or_default() {
                for _ in 0..200 {
                    assert!(prefix.contains(prefix.address(&mut rng)), "{prefix}");
                }
            }
        }
    }

    #[test]
    fn prefix_bases_have_no_host_bits() {
        // A base with host bits set would be written as a CIDR that means something else.
        for bot in BOTS {
            for &prefix in bot.ranges.unwrap_or_default() {
                let host_bits = match prefix {
                    Prefix::V4(base, len) => u128::from(
                        u32::from_be_bytes(base)
                            & u32::MAX.checked_shr(u32::from(len)).unwrap_or(0),
                    ),
                    Prefix::V6(base, len) => {
                        Ipv6Addr::from(base).to_bits()
                            & u128::MAX.checked_shr(u32::from(len)).unwrap_or(0)
                    }
                };
                assert_eq!(host_bits, 0, "{prefix}");
            }
        }
    }

    #[test]
    fn spoof_networks_are_outside_every_published_range() {
        for bot in BOTS {
            for prefix in bot.ranges.unwrap_or_default() {
                if let Prefix::V4(base, len) = prefix {
                    assert!(*len >= 8);
                    assert!(!SPOOF_FIRST_OCTETS.contains(&base[0]), "{prefix}");
                }
            }
        }
    }

    #[test]
    fn prefix_contains_examples() {
        let p = Prefix::V4([66, 249, 64, 0], 27);
        for (ip, inside) in [
            ([66, 249, 64, 0], true),
            ([66, 249, 64, 31], true),
            ([66, 249, 64, 32], false),
            ([66, 249, 65, 1], false),
        ] {
            assert_eq!(p.contains(Address::V4(u32::from_be_bytes(ip))), inside);
        }
        let v6 = Prefix::V6([0x2001, 0x4860, 0x4801, 0x10, 0, 0, 0, 0], 64);
        let inside: Ipv6Addr = "2001:4860:4801:10::abcd"
            .parse()
            .unwrap_or(Ipv6Addr::UNSPECIFIED);
        let outside: Ipv6Addr = "2001:4860:4801:11::1"
            .parse()
            .unwrap_or(Ipv6Addr::UNSPECIFIED);
        assert!(v6.contains(Address::V6(inside.to_bits())));
        assert!(!v6.contains(Address::V6(outside.to_bits())));
        assert!(!v6.contains(Address::V4(1)));
    }

    #[test]
    fn table_has_enough_distinct_user_agents() {
        let all: Vec<&str> = BOTS
            .iter()
            .flat_map(|b| b.user_agents.iter().copied())
            .collect();
        let mut unique = all.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), all.len());
        assert!(BOTS.len() >= 33);
        assert!(BOTS.iter().all(|b| !b.user_agents.is_empty()));
    }
}
