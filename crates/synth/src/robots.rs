//! One robots.txt per origin, built from rule families whose verdicts are known per bucket, and
//! the set of buckets it disallows for each crawler of the run.

use crate::plan::Agent;
use crate::rng::Rng;
use crate::site::{self, BucketSet, Family, RuleSpec};

/// Tokens of real crawlers that are not in the run: sites name them, and they must change
/// nothing for the crawlers that are.
const FOREIGN_TOKENS: &[&str] = &[
    "Google-Extended",
    "Applebot-Extended",
    "anthropic-ai",
    "cohere-ai",
    "Mediapartners-Google",
    "ia_archiver",
];

/// What a specific group may say about the crawlers it names.
const GROUP_POLICIES: &[&[Family]] = &[
    &[Family::BlockAll],
    &[Family::BlockAll],
    &[Family::AllowAll],
    &[Family::Nothing],
    &[Family::AllowAll, Family::Search, Family::Private],
    &[Family::Private, Family::Search, Family::Query],
    &[Family::NoImages, Family::Private],
    &[Family::BlockAll, Family::Assets],
    &[Family::Pdf, Family::Api, Family::Checkout],
    &[Family::BlockAll, Family::StaticAllowed],
];

/// The robots.txt of one origin.
#[derive(Debug)]
pub(crate) struct SiteRobots {
    /// The file as written.
    pub(crate) body: Vec<u8>,
    /// Per agent of the run (same index): the buckets its selected group disallows.
    pub(crate) disallowed: Vec<BucketSet>,
}

#[derive(Debug)]
struct GroupPlan {
    /// The user-agent values, as written.
    names: Vec<String>,
    families: Vec<Family>,
    fillers: usize,
    crawl_delay: Option<u64>,
    comment: Option<&'static str>,
}

impl GroupPlan {
    fn new(names: Vec<String>, families: Vec<Family>) -> GroupPlan {
        GroupPlan {
            names,
            families,
            fillers: 0,
            crawl_delay: None,
            comment: None,
        }
    }

    fn rules(&self) -> impl Iterator<Item = &'static RuleSpec> + Clone + '_ {
        self.families.iter().flat_map(|family| family.rules())
    }

    fn is_global(&self) -> bool {
        self.names.iter().any(|name| name == "*")
    }

    fn names_token(&self, token: &str) -> bool {
        self.names
            .iter()
            .any(|name| product_name(name).eq_ignore_ascii_case(token))
    }
}

/// A group's name as the audit compares it: the user-agent value up to the first whitespace,
/// `/`, `*` or `;`.
fn product_name(value: &str) -> &str {
    value
        .split(|c: char| c.is_ascii_whitespace() || matches!(c, '/' | '*' | ';'))
        .next()
        .unwrap_or_default()
}

/// Whether a catalog token can be written as a group name that the audit reads back as exactly
/// that token.
fn writable_token(token: &str) -> bool {
    !token.is_empty()
        && product_name(token) == token
        && token.bytes().all(|b| b.is_ascii_graphic() && b != b'#')
}

/// The groups that apply to a crawler with these tokens (in fallback order): those naming the
/// first token that any group names, else the `*` groups (unless it ignores them).
fn select<'a>(groups: &'a [GroupPlan], agent: &Agent) -> Vec<&'a GroupPlan> {
    for token in agent.tokens.iter().filter(|t| !t.is_empty()) {
        let named: Vec<&GroupPlan> = groups.iter().filter(|g| g.names_token(token)).collect();
        if !named.is_empty() {
            return named;
        }
    }
    if !agent.robots.follows_global_group() {
        return Vec::new();
    }
    groups.iter().filter(|g| g.is_global()).collect()
}

#[derive(Clone, Copy)]
enum Profile {
    Minimal,
    Shop,
    Blog,
    Locked,
    Huge,
}

/// Builds the robots.txt of `host` for the crawlers `agents`.
pub(crate) fn build(host: &str, agents: &[Agent], rng: &mut Rng) -> SiteRobots {
    let profile = match rng.below(100) {
        0..12 => Profile::Minimal,
        12..45 => Profile::Shop,
        45..70 => Profile::Blog,
        70..80 => Profile::Locked,
        _ => Profile::Huge,
    };
    let groups = plan_groups(profile, agents, rng);
    let style = Style::random(rng);
    let body = render(host, &groups, &style, rng);
    let disallowed = agents
        .iter()
        .map(|agent| site::disallowed(select(&groups, agent).into_iter().flat_map(|g| g.rules())))
        .collect();
    SiteRobots { body, disallowed }
}

fn plan_groups(profile: Profile, agents: &[Agent], rng: &mut Rng) -> Vec<GroupPlan> {
    let star = |families: Vec<Family>| GroupPlan::new(vec!["*".to_owned()], families);
    let optional = |rng: &mut Rng, candidates: &[Family]| -> Vec<Family> {
        candidates
            .iter()
            .copied()
            .filter(|_| rng.chance(500_000))
            .collect()
    };
    let (mut global, specific_count, fillers) = match profile {
        Profile::Minimal => {
            let families = match rng.below(3) {
                0 => vec![Family::Nothing],
                1 => vec![Family::AllowAll],
                _ => vec![Family::Private],
            };
            (star(families), rng.range(0, 1), 0)
        }
        Profile::Shop | Profile::Huge => {
            let mut families = vec![
                Family::Private,
                Family::Checkout,
                Family::Search,
                Family::Session,
            ];
            families.extend(optional(rng, &[Family::Pdf, Family::Query, Family::Api]));
            let fillers = if matches!(profile, Profile::Huge) {
                rng.range(200, 1_200)
            } else {
                rng.range(0, 15)
            };
            (star(families), rng.range(1, 5), fillers)
        }
        Profile::Blog => {
            let mut families = vec![Family::WpAdmin, Family::Feed, Family::Drafts];
            families.extend(optional(rng, &[Family::Search, Family::Pdf]));
            (star(families), rng.range(1, 3), rng.range(0, 10))
        }
        Profile::Locked => {
            let mut families = vec![Family::BlockAll];
            families.extend(optional(rng, &[Family::StaticAllowed]));
            (star(families), rng.range(1, 3), 0)
        }
    };
    global.comment = Some("Default rules for every crawler");

    let mut specific = Vec::new();
    let mut named: Vec<usize> = Vec::new();
    for _ in 0..specific_count {
        let mut names = Vec::new();
        for _ in 0..rng.range(1, 3) {
            let index = rng.index(agents.len());
            if named.contains(&index) {
                continue;
            }
            if let Some(name) = agents.get(index).and_then(|a| group_name(a, rng)) {
                named.push(index);
                names.push(name);
            }
        }
        if rng.chance(250_000)
            && let Some(token) = rng.pick(FOREIGN_TOKENS)
        {
            names.push((*token).to_owned());
        }
        if names.is_empty() {
            continue;
        }
        let families = rng
            .pick(GROUP_POLICIES)
            .map(|p| p.to_vec())
            .unwrap_or_default();
        let mut group = GroupPlan::new(names, families);
        if rng.chance(300_000) {
            group.crawl_delay = Some(rng.range(1, 30));
        }
        if rng.chance(400_000) {
            group.comment = rng
                .pick(&[
                    "Crawlers we have agreed terms with",
                    "AI training crawlers",
                    "Too aggressive, see ticket OPS-1423",
                    "Search engines",
                ])
                .copied();
        }
        specific.push(group);
    }

    // Merges: a later group naming a token again adds rules to it, and a second `*` group adds
    // rules to the first. Both are legal and common in hand-edited files.
    if let Some(first) = specific.first()
        && rng.chance(200_000)
    {
        let name = first.names[0].clone();
        let families = optional(rng, &[Family::Pdf, Family::Api, Family::Feed]);
        if !families.is_empty() {
            specific.push(GroupPlan::new(vec![name], families));
        }
    }
    let mut trailing_global = None;
    if global.families.len() >= 2 && rng.chance(200_000) {
        let split = rng.range(1, global.families.len() as u64 - 1) as usize;
        let rest = global.families.split_off(split);
        trailing_global = Some(star(rest));
    }

    let mut groups = Vec::with_capacity(specific.len() + 2);
    let global_first = rng.chance(700_000);
    if global_first {
        groups.push(global);
        groups.extend(specific);
    } else {
        groups.extend(specific);
        groups.push(global);
    }
    groups.extend(trailing_global);

    // Fillers go anywhere that already has real rules; they match no request.
    for _ in 0..fillers {
        let index = rng.index(groups.len());
        if let Some(group) = groups.get_mut(index)
            && !group.families.contains(&Family::Nothing)
        {
            group.fillers += 1;
        }
    }
    groups
}

/// The user-agent value naming one of the agent's tokens, spelled as its user-agent header does.
/// Mostly its first (most specific) token; sometimes a fallback token, which then also covers it.
fn group_name(agent: &Agent, rng: &mut Rng) -> Option<String> {
    let writable: Vec<usize> = (0..agent.tokens.len())
        .filter(|&i| writable_token(&agent.tokens[i]))
        .collect();
    let index = if writable.len() > 1 && rng.chance(200_000) {
        *rng.pick(&writable[1..])?
    } else {
        *writable.first()?
    };
    let spelled = agent.spellings.get(index)?;
    Some(match rng.below(10) {
        0 => spelled.to_ascii_lowercase(),
        _ => spelled.clone(),
    })
}

/// Cosmetic choices of one file: key spelling, separators, line ends, byte order mark.
struct Style {
    user_agent: &'static str,
    allow: &'static str,
    disallow: &'static str,
    separator: &'static str,
    crlf: bool,
    bom: bool,
    blank_between_groups: bool,
}

impl Style {
    fn random(rng: &mut Rng) -> Style {
        let (user_agent, allow, disallow) = match rng.below(10) {
            0 => ("user-agent", "allow", "disallow"),
            1 => ("User-Agent", "Allow", "Disallow"),
            2 => ("USER-AGENT", "ALLOW", "DISALLOW"),
            _ => ("User-agent", "Allow", "Disallow"),
        };
        Style {
            user_agent,
            allow,
            disallow,
            separator: if rng.chance(100_000) { ":" } else { ": " },
            crlf: rng.chance(200_000),
            bom: rng.chance(80_000),
            blank_between_groups: rng.chance(850_000),
        }
    }
}

fn render(host: &str, groups: &[GroupPlan], style: &Style, rng: &mut Rng) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = vec![format!("# robots.txt for https://{host}/").into_bytes()];
    if rng.chance(500_000) {
        lines.push(format!("# Questions about crawling: webmaster@{host}").into_bytes());
    }
    lines.push(Vec::new());
    let sitemaps = sitemap_lines(host, rng);
    let sitemaps_first = rng.chance(250_000);
    if sitemaps_first {
        lines.extend(sitemaps.iter().cloned());
        lines.push(Vec::new());
    }
    let key = |allow: bool| if allow { style.allow } else { style.disallow };
    for (i, group) in groups.iter().enumerate() {
        if i > 0 && style.blank_between_groups {
            lines.push(Vec::new());
        }
        if let Some(comment) = group.comment {
            lines.push(format!("# {comment}").into_bytes());
        }
        for name in &group.names {
            lines.push(format!("{}{}{name}", style.user_agent, style.separator).into_bytes());
        }
        if let Some(delay) = group.crawl_delay {
            lines.push(format!("Crawl-delay{}{delay}", style.separator).into_bytes());
        }
        let mut rules: Vec<Vec<u8>> = Vec::new();
        for rule in group.rules() {
            let mut line = if rule.pattern.is_empty() {
                format!("{}:", key(rule.allow)).into_bytes()
            } else {
                format!("{}{}{}", key(rule.allow), style.separator, rule.pattern).into_bytes()
            };
            if !rule.pattern.is_empty() && rng.chance(80_000) {
                line.extend_from_slice(b"  # keep out");
            }
            rules.push(line);
        }
        for _ in 0..group.fillers {
            let mut pattern = Vec::new();
            let allow = site::write_filler_pattern(rng, &mut pattern);
            let mut line = format!("{}{}", key(allow), style.separator).into_bytes();
            line.extend_from_slice(&pattern);
            rules.push(line);
        }
        // Rule order must not matter under longest-match precedence, so shuffle it.
        for i in (1..rules.len()).rev() {
            rules.swap(i, rng.index(i + 1));
        }
        lines.extend(rules);
    }
    if !sitemaps_first {
        lines.push(Vec::new());
        lines.extend(sitemaps);
    }
    if rng.chance(150_000) {
        lines.push(format!("Host: {host}").into_bytes());
    }

    let eol: &[u8] = if style.crlf { b"\r\n" } else { b"\n" };
    let mut body = Vec::new();
    if style.bom {
        body.extend_from_slice(b"\xEF\xBB\xBF");
    }
    for line in lines {
        body.extend_from_slice(&line);
        body.extend_from_slice(eol);
    }
    body
}

fn sitemap_lines(host: &str, rng: &mut Rng) -> Vec<Vec<u8>> {
    let count = rng.range(1, 3) as usize;
    ["sitemap.xml", "sitemap_index.xml", "news-sitemap.xml"]
        .iter()
        .take(count)
        .map(|file| format!("Sitemap: https://{host}/{file}").into_bytes())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::Bucket;
    use robots_audit_bots::RobotsPolicy;

    fn agent(name: &str, tokens: &[&str]) -> Agent {
        Agent {
            name: name.to_owned(),
            tokens: tokens.iter().map(|t| (*t).to_owned()).collect(),
            spellings: tokens.iter().map(|t| (*t).to_owned()).collect(),
            user_agents: Vec::new(),
            ranges: None,
            robots: RobotsPolicy::Obeys,
        }
    }

    fn group(names: &[&str], families: &[Family]) -> GroupPlan {
        GroupPlan::new(
            names.iter().map(|n| (*n).to_owned()).collect(),
            families.to_vec(),
        )
    }

    #[test]
    fn product_name_examples() {
        for (value, expected) in [
            ("GPTBot", "GPTBot"),
            ("Googlebot/2.1", "Googlebot"),
            ("MJ12bot", "MJ12bot"),
            ("Foo Bar", "Foo"),
            ("FooBot*", "FooBot"),
            ("x;y", "x"),
            ("*", ""),
        ] {
            assert_eq!(product_name(value), expected);
        }
    }

    #[test]
    fn selection_follows_token_fallback_order() {
        let groups = [
            group(&["*"], &[Family::Private]),
            group(&["Googlebot"], &[Family::BlockAll]),
            group(&["googlebot-image", "GPTBot"], &[Family::NoImages]),
        ];
        let image = agent("Googlebot-Image", &["googlebot-image", "googlebot"]);
        let google = agent("Googlebot", &["googlebot"]);
        let other = agent("bingbot", &["bingbot"]);
        let names = |a: &Agent| -> Vec<Vec<String>> {
            select(&groups, a).iter().map(|g| g.names.clone()).collect()
        };
        assert_eq!(
            names(&image),
            vec![vec!["googlebot-image".to_owned(), "GPTBot".to_owned()]]
        );
        assert_eq!(names(&google), vec![vec!["Googlebot".to_owned()]]);
        assert_eq!(names(&other), vec![vec!["*".to_owned()]]);
        let special = Agent {
            robots: RobotsPolicy::IgnoresGlobal,
            ..agent("AdsBot-Google", &["adsbot-google"])
        };
        assert!(
            names(&special).is_empty(),
            "the * groups do not apply to it"
        );
    }

    #[test]
    fn groups_naming_a_token_merge_and_switch_star_off() {
        let groups = [
            group(&["*"], &[Family::BlockAll]),
            group(&["FooBot"], &[Family::Private]),
            group(&["foobot"], &[Family::Pdf]),
        ];
        let foo = agent("FooBot", &["foobot"]);
        let set = site::disallowed(select(&groups, &foo).into_iter().flat_map(|g| g.rules()));
        assert!(set.contains(Bucket::Private) && set.contains(Bucket::Pdf));
        assert!(!set.contains(Bucket::Home), "the * group must not apply");
    }

    #[test]
    fn writable_token_examples() {
        for (token, ok) in [
            ("gptbot", true),
            ("archive.org_bot", true),
            ("", false),
            ("foo bar", false),
            ("foo/1", false),
            ("a#b", false),
        ] {
            assert_eq!(writable_token(token), ok, "{token}");
        }
    }

    #[test]
    fn a_run_without_crawlers_still_gets_files() {
        for seed in 0..100 {
            let site = build("shop.example", &[], &mut Rng::new(seed, 1));
            assert!(site.disallowed.is_empty());
            let text = String::from_utf8_lossy(&site.body).to_ascii_lowercase();
            assert!(text.contains("user-agent: *") || text.contains("user-agent:*"));
        }
    }

    #[test]
    fn every_group_has_a_rule_and_file_is_deterministic() {
        let agents = [
            agent("Googlebot", &["googlebot"]),
            agent("GPTBot", &["gptbot"]),
            agent("Googlebot-Image", &["googlebot-image", "googlebot"]),
        ];
        for seed in 0..200 {
            let mut rng = Rng::new(seed, 9);
            let plan = plan_groups(Profile::Shop, &agents, &mut rng);
            assert!(
                plan.iter()
                    .all(|g| !g.families.is_empty() && !g.names.is_empty())
            );
            let a = build("shop.example", &agents, &mut Rng::new(seed, 1));
            let b = build("shop.example", &agents, &mut Rng::new(seed, 1));
            assert_eq!(a.body, b.body);
            assert_eq!(a.disallowed, b.disallowed);
            assert_eq!(a.disallowed.len(), agents.len());
        }
    }
}
