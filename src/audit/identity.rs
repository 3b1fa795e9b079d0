//! Who made a request: the user-agent header resolved to an agent, once per distinct header.
//!
//! The catalog's bots are always agents of their own. Self-declared and list-matched bots are
//! minted by traffic, so at most a bounded number of them are (`src/audit/fold.rs`): one past the
//! bound is counted in the [`OTHER_AGENTS`] row, yet judged by its own robots tokens and named
//! as itself in the per-request reports (its [`AgentInfo`] says it is folded).

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use ahash::AHashMap;
use robots_audit_bots::{Bot, Catalog, Category, Identity};
use robots_audit_logs::{Text, TextEncoding};

use super::fold::{
    Admission, Admit, FoldSketch, KEPT_NAMES, OTHER_AGENTS, Retired, without_retired,
};
use super::recent::RecentKeys;
use crate::ids::AgentId;

/// The agent name under which `--all-agents` reports requests that are not from bots.
pub const NOT_A_BOT: &str = "(not a bot)";

/// An agent as the reports show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentInfo {
    /// Name, robots.txt tokens in fallback order, operator and category. An unknown bot is named
    /// after its product token; requests that are not from bots (`--all-agents`) are
    /// [`NOT_A_BOT`], with no tokens, so the `*` groups apply.
    pub bot: Bot,
    /// Whether it is a bot.
    pub is_bot: bool,
    /// Whether traffic minted it (a self-declared or list-matched bot, not a catalog entry):
    /// such agents are kept up to a bound, the rest folded.
    pub minted: bool,
    /// Whether it is counted in the [`OTHER_AGENTS`] row, whose id it shares: what depends on
    /// the agent itself (its robots groups) is then not cached by that id.
    pub folded: bool,
}

impl AgentInfo {
    /// A catalog bot, or with `minted` one that traffic minted.
    pub fn from_bot(bot: Bot, minted: bool) -> AgentInfo {
        AgentInfo {
            bot,
            is_bot: true,
            minted,
            folded: false,
        }
    }

    /// The row of the folded agents: a bot with no tokens of its own.
    pub fn other_agents() -> AgentInfo {
        let bot = Bot {
            name: OTHER_AGENTS.to_owned(),
            tokens: Vec::new(),
            operator: String::new(),
            category: Category::Other,
            policy: Default::default(),
        };
        AgentInfo::from_bot(bot, false)
    }

    fn not_a_bot() -> AgentInfo {
        let bot = Bot {
            name: NOT_A_BOT.to_owned(),
            tokens: Vec::new(),
            operator: String::new(),
            category: Category::Other,
            policy: Default::default(),
        };
        AgentInfo {
            bot,
            is_bot: false,
            minted: false,
            folded: false,
        }
    }
}

/// A resolved agent: its id in the run's table and its description.
pub type Resolved = (AgentId, Arc<AgentInfo>);

/// Resolves user-agent headers to agents and numbers the agents of a run. Shared by all threads;
/// each thread keeps an [`IdentityCache`] in front of it so the lock is taken once per distinct
/// header and thread, not once per line.
#[derive(Debug)]
pub struct Identifier<'a> {
    catalog: &'a Catalog,
    all_agents: bool,
    table: Mutex<AgentTable>,
    /// How many agents the table retired: read without the lock at each block's end.
    retired: AtomicUsize,
}

#[derive(Debug)]
struct AgentTable {
    /// The agents resolved by name, minted ones only while they are kept.
    by_name: AHashMap<String, AgentId>,
    /// By id; a retired agent's entry is the fold row's description.
    agents: Vec<Arc<AgentInfo>>,
    /// Which minted agents are kept.
    minted: Admission<AgentId>,
    /// The minted agents pushed out by smaller ones, and the [`OTHER_AGENTS`] row once a
    /// minted agent was folded.
    retired: Retired<AgentId>,
}

impl AgentTable {
    fn push(&mut self, info: Arc<AgentInfo>) -> Option<AgentId> {
        let id = AgentId::from_index(self.agents.len())?;
        self.agents.push(info);
        Some(id)
    }

    /// The [`OTHER_AGENTS`] row, made on first use.
    fn other(&mut self) -> Option<AgentId> {
        if let Some(id) = self.retired.other {
            return Some(id);
        }
        let id = self.push(Arc::new(AgentInfo::other_agents()))?;
        self.retired.other = Some(id);
        Some(id)
    }

    /// Retires agent `out`, pushed out by a smaller name: forgotten here, its counters moved
    /// to the fold row by each thread (`src/audit/fold.rs`).
    fn retire(&mut self, out: AgentId) -> Option<()> {
        let other = self.other()?;
        let fold_row = Arc::clone(self.agents.get(other.index())?);
        let info = std::mem::replace(self.agents.get_mut(out.index())?, fold_row);
        self.by_name.remove(&info.bot.name);
        self.retired.ids.push(out);
        Some(())
    }
}

impl<'a> Identifier<'a> {
    /// `all_agents`: also resolve headers that are not bots (to [`NOT_A_BOT`]). Keeps
    /// [`KEPT_NAMES`] minted agents ([`Identifier::keeping`] sets another bound).
    pub fn new(catalog: &'a Catalog, all_agents: bool) -> Identifier<'a> {
        Identifier {
            catalog,
            all_agents,
            table: Mutex::new(AgentTable {
                by_name: AHashMap::new(),
                agents: Vec::new(),
                minted: Admission::new(KEPT_NAMES),
                retired: Retired::default(),
            }),
            retired: AtomicUsize::new(0),
        }
    }

    /// The same identifier, keeping at most `kept_names` minted agents.
    pub fn keeping(self, kept_names: usize) -> Identifier<'a> {
        let mut table = self
            .table
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        table.minted = Admission::new(kept_names);
        Identifier {
            table: Mutex::new(table),
            ..self
        }
    }

    /// Resolves a decoded user-agent header; `None` when it is not a bot and not judged. A
    /// minted agent past the bound resolves to the [`OTHER_AGENTS`] row with its own
    /// description, marked folded.
    pub fn resolve(&self, user_agent: &[u8]) -> Option<Resolved> {
        let mut info = match self.catalog.identify(user_agent) {
            Identity::Known(index) => {
                AgentInfo::from_bot(self.catalog.bots()[index].clone(), false)
            }
            Identity::Unknown(bot) => AgentInfo::from_bot(bot, true),
            Identity::NotBot if self.all_agents => AgentInfo::not_a_bot(),
            Identity::NotBot => return None,
        };
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&id) = table.by_name.get(&info.bot.name) {
            return Some((id, Arc::clone(&table.agents[id.index()])));
        }
        if info.minted && table.minted.is_full() {
            // Made before the new agent's id is taken, which the admission records.
            table.other()?;
        }
        let next = AgentId::from_index(table.agents.len())?;
        if info.minted {
            match table.minted.admit(&info.bot.name, next) {
                Admit::Kept => {}
                Admit::KeptPushingOut(out) => {
                    // A later request of it resolves again, to the fold row.
                    table.retire(out)?;
                    self.retired
                        .store(table.retired.ids.len(), Ordering::Release);
                }
                Admit::Folded => {
                    let other = table.other()?;
                    info.folded = true;
                    return Some((other, Arc::new(info)));
                }
            }
        }
        let info = Arc::new(info);
        let id = table.push(Arc::clone(&info))?;
        table.by_name.insert(info.bot.name.clone(), id);
        Some((id, info))
    }

    /// The agents retired since the first `from`, with the fold row; `None` when there are
    /// none (a load, without the lock).
    pub fn retired_since(&self, from: usize) -> Option<(Vec<AgentId>, Option<AgentId>)> {
        if self.retired.load(Ordering::Acquire) <= from {
            return None;
        }
        let table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let ids = table.retired.ids.get(from..).unwrap_or_default().to_vec();
        Some((ids, table.retired.other))
    }

    /// The agents seen, retired ones left out, with the new position of each [`AgentId`]
    /// given (a retired agent's is the fold row's; `None` when none was retired), and the
    /// hashes of the minted agents folded.
    pub fn into_agents(self) -> (Vec<AgentInfo>, Option<Vec<usize>>, FoldSketch) {
        let table = self
            .table
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let (kept, new_ids) = without_retired(table.agents, &table.retired, AgentId::index);
        let agents = kept.into_iter().map(Arc::unwrap_or_clone).collect();
        (agents, new_ids, table.minted.into_folded())
    }
}

/// Caps each thread's cache, so that a log of millions of distinct headers (random junk, a
/// scanner that randomises its user-agent) does not grow memory without bound.
const CACHE_LIMIT: usize = 100_000;

/// A header as one thread's [`IdentityCache`] knows it, a bot's or not: the same key is the same
/// header (raw bytes and encoding alike, so the same decoded bytes and the same fallback), so a
/// consumer can keep what it knows of a header by key instead of hashing the header again. Keys
/// are dense within an epoch (below the cache's limit); the cache starts a new epoch whenever it
/// forgets what it knew.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderKey {
    epoch: u32,
    index: u32,
}

impl HeaderKey {
    /// The epoch of the cache that gave the key.
    pub fn epoch(self) -> u32 {
        self.epoch
    }

    /// The key's position in its epoch, below 100,000.
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// What the cache knows of one header: its agent (`None`: not judged) with the position of its
/// description in the cache's `infos`, its key, and whether it is a bot's.
#[derive(Debug, Clone, Copy)]
struct Known {
    agent: Option<AgentId>,
    info: u32,
    key: HeaderKey,
    is_bot: bool,
}

/// Who made a request, as [`IdentityCache::resolve`] answers.
#[derive(Debug, Clone, Copy)]
pub struct Identified<'a> {
    /// The agent the request is judged as: a bot, or with `--all-agents` [`NOT_A_BOT`].
    pub agent: Option<(AgentId, &'a AgentInfo)>,
    /// The header's key.
    pub key: HeaderKey,
    /// Whether the header was identified as a bot's.
    pub is_bot: bool,
}

/// One thread's cache of resolved headers, keyed by the raw bytes as they stand in the log.
#[derive(Debug, Default)]
pub struct IdentityCache {
    /// Recent headers with their encoding slot and what is known of them, looked at before
    /// `by_encoding`: most lines repeat one of a few headers, and this finds them without
    /// hashing ~100 bytes.
    recent: RecentKeys<(usize, Known)>,
    /// What is known of each header seen, one map per encoding; at most [`CACHE_LIMIT`] in all.
    by_encoding: [AHashMap<Box<[u8]>, Known>; 4],
    /// The epoch of the keys given since the maps were last cleared.
    epoch: u32,
    /// Keys given in this epoch.
    keys: u32,
    /// This thread's handles on the agents of the headers it resolved (one per header: folded
    /// agents share an id but not a description), so that a cache hit lends the agent out
    /// instead of cloning an `Arc` per line. Forgotten with the maps.
    infos: Vec<Arc<AgentInfo>>,
}

impl IdentityCache {
    /// Resolves `user_agent` through the cache. `fallback` stands in for an empty header (a
    /// crawler's fetch log names no user-agent per line).
    ///
    /// The header is taken by reference and read field by field: the parser stored its
    /// pointer and length one at a time, and a copy of the whole read them back in one load,
    /// which the processor cannot forward from two stores and waits for (`BENCHMARKS.md`,
    /// "Version 3: fewer loads per verdict").
    #[inline]
    pub fn resolve(
        &mut self,
        identifier: &Identifier<'_>,
        user_agent: &Text<'_>,
        fallback: Option<&[u8]>,
    ) -> Identified<'_> {
        let encoding = encoding_slot(user_agent.encoding);
        let known = match self.recent.get(user_agent.raw) {
            Some((kept, known)) if kept == encoding => known,
            _ => {
                let known = self.lookup(identifier, *user_agent, encoding, fallback);
                self.recent.insert(user_agent.raw, (encoding, known));
                known
            }
        };
        let agent = known.agent.and_then(|id| {
            let info = self.infos.get(known.info as usize)?;
            Some((id, info.as_ref()))
        });
        Identified {
            agent,
            key: known.key,
            is_bot: known.is_bot,
        }
    }

    /// Forgets every header, keys and all: a key of the old epoch is never given again.
    pub fn forget(&mut self) {
        self.by_encoding.iter_mut().for_each(|map| map.clear());
        self.recent.clear();
        self.infos.clear();
        self.epoch = self.epoch.wrapping_add(1);
        self.keys = 0;
    }

    /// Resolves a header that is not among the recent ones, through the map of all.
    fn lookup(
        &mut self,
        identifier: &Identifier<'_>,
        user_agent: Text<'_>,
        encoding: usize,
        fallback: Option<&[u8]>,
    ) -> Known {
        if let Some(&known) = self.by_encoding[encoding].get(user_agent.raw) {
            return known;
        }
        if self.by_encoding.iter().map(|map| map.len()).sum::<usize>() >= CACHE_LIMIT {
            self.forget();
        }
        let header = header_of(user_agent, fallback);
        let resolved = identifier.resolve(&header);
        let is_bot = resolved.as_ref().is_some_and(|(_, info)| info.is_bot);
        let known = Known {
            agent: resolved.as_ref().map(|(id, _)| *id),
            info: u32::try_from(self.infos.len()).unwrap_or(u32::MAX),
            key: HeaderKey {
                epoch: self.epoch,
                index: self.keys,
            },
            is_bot,
        };
        self.keys += 1;
        self.by_encoding[encoding].insert(user_agent.raw.into(), known);
        if let Some((_, info)) = resolved {
            self.infos.push(info);
        }
        known
    }
}

/// The header a request is identified by: the decoded user-agent, or `fallback` for an empty
/// one (`-` included).
pub fn header_of<'h>(user_agent: Text<'h>, fallback: Option<&'h [u8]>) -> Cow<'h, [u8]> {
    let decoded = user_agent.encoding.decode(user_agent.raw);
    match (decoded.as_ref(), fallback) {
        (b"" | b"-", Some(fallback)) => Cow::Borrowed(fallback),
        _ => decoded,
    }
}

fn encoding_slot(encoding: TextEncoding) -> usize {
    match encoding {
        TextEncoding::Raw => 0,
        TextEncoding::Plus => 1,
        TextEncoding::Percent => 2,
        TextEncoding::Backslash => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOGLEBOT: &[u8] =
        b"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    const BROWSER: &[u8] =
        b"Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0";

    fn name(resolved: Option<(AgentId, &AgentInfo)>) -> Option<(AgentId, String)> {
        resolved.map(|(id, info)| (id, info.bot.name.clone()))
    }

    #[test]
    fn the_cache_answers_as_the_identifier_does() {
        let catalog = Catalog::builtin();
        for all_agents in [false, true] {
            let identifier = Identifier::new(&catalog, all_agents);
            let mut cache = IdentityCache::default();
            let escaped = Text {
                raw: br"Googlebot-Image/1.0 \x41",
                encoding: TextEncoding::Backslash,
            };
            let cases = [
                (Text::raw(GOOGLEBOT), Some("Googlebot")),
                (Text::raw(BROWSER), all_agents.then_some(NOT_A_BOT)),
                (escaped, Some("Googlebot-Image")),
                (Text::raw(GOOGLEBOT), Some("Googlebot")),
            ];
            let mut first_ids = Vec::new();
            for round in 0..2 {
                for (i, (header, want)) in cases.iter().enumerate() {
                    let got = name(cache.resolve(&identifier, header, None).agent);
                    assert_eq!(got.as_ref().map(|(_, n)| n.as_str()), *want, "{i}");
                    if round == 0 {
                        first_ids.push(got.map(|(id, _)| id));
                    } else {
                        assert_eq!(got.map(|(id, _)| id), first_ids[i], "stable id {i}");
                    }
                }
            }
            let direct = identifier.resolve(GOOGLEBOT).map(|(id, _)| id);
            assert_eq!(direct, first_ids[0]);
        }
    }

    /// The same bytes under different encodings are different headers: the recent-header
    /// cache must not answer for one with the other's agent.
    #[test]
    fn the_encoding_is_part_of_the_key() {
        let catalog = Catalog::builtin();
        let identifier = Identifier::new(&catalog, true);
        let mut cache = IdentityCache::default();
        let raw: &[u8] = b"%47ooglebot/2.1";
        for round in 0..3 {
            for encoding in [
                TextEncoding::Percent,
                TextEncoding::Raw,
                TextEncoding::Percent,
                TextEncoding::Plus,
            ] {
                let got = name(
                    cache
                        .resolve(&identifier, &Text { raw, encoding }, None)
                        .agent,
                );
                let decoded = encoding.decode(raw);
                let want = identifier
                    .resolve(&decoded)
                    .map(|(id, info)| (id, info.bot.name.clone()));
                assert_eq!(got, want, "round {round}, {encoding:?}");
            }
        }
        let percent = name(
            cache
                .resolve(
                    &identifier,
                    &Text {
                        raw,
                        encoding: TextEncoding::Percent,
                    },
                    None,
                )
                .agent,
        );
        let plain = name(cache.resolve(&identifier, &Text::raw(raw), None).agent);
        assert_eq!(percent.map(|(_, n)| n).as_deref(), Some("Googlebot"));
        assert_ne!(plain.map(|(_, n)| n).as_deref(), Some("Googlebot"));
    }

    #[test]
    fn an_empty_header_stands_for_the_fallback() {
        let catalog = Catalog::builtin();
        let identifier = Identifier::new(&catalog, false);
        // The fallback is the same for a whole run, and so for a cache.
        let (mut with, mut without) = (IdentityCache::default(), IdentityCache::default());
        for header in [&b""[..], b"-", b""] {
            let got = name(
                with.resolve(&identifier, &Text::raw(header), Some(GOOGLEBOT))
                    .agent,
            );
            assert_eq!(got.map(|(_, n)| n), Some("Googlebot".to_owned()));
            assert_eq!(
                name(without.resolve(&identifier, &Text::raw(header), None).agent),
                None
            );
        }
    }

    /// Every header gets a key, bot or not (with `--all-agents` a browser is judged but is still
    /// not a bot); the same header keeps its key, another header gets the next one, and the
    /// same bytes under another encoding are another header.
    #[test]
    fn every_header_gets_a_key_and_keeps_it() {
        let catalog = Catalog::builtin();
        for all_agents in [false, true] {
            let identifier = Identifier::new(&catalog, all_agents);
            let mut cache = IdentityCache::default();
            let bot = cache.resolve(&identifier, &Text::raw(GOOGLEBOT), None);
            assert!(bot.is_bot);
            let bot = bot.key;
            let browser = cache.resolve(&identifier, &Text::raw(BROWSER), None);
            assert_eq!(browser.agent.is_some(), all_agents);
            assert!(!browser.is_bot);
            let browser = browser.key;
            let curl = cache
                .resolve(&identifier, &Text::raw(b"curl/8.0"), None)
                .key;
            let plus = Text {
                raw: b"curl/8.0",
                encoding: TextEncoding::Plus,
            };
            let plus = cache.resolve(&identifier, &plus, None).key;
            let indices = [bot, browser, curl, plus].map(HeaderKey::index);
            assert_eq!(indices, [0, 1, 2, 3]);
            for _ in 0..3 {
                for (header, key) in [(GOOGLEBOT, bot), (BROWSER, browser)] {
                    let again = cache.resolve(&identifier, &Text::raw(header), None);
                    assert_eq!(again.key, key);
                }
            }
            cache.forget();
            let after = cache.resolve(&identifier, &Text::raw(BROWSER), None).key;
            assert_eq!(after.index(), 0);
            assert_ne!(after.epoch(), browser.epoch());
        }
    }
}
