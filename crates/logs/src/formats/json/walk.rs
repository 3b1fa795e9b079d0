//! The walk of one JSON line: the tree of mapped paths, and a serde visitor that descends only
//! into the keys some path names, recording the scalars it finds at mapped paths ([`Found`])
//! and skipping everything else unparsed. A leaf below the JSON parser, above the field names.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::fields::FieldName;
use crate::formats::lex;
use crate::time::{self, Read};
use crate::zone::{LocalZone, ZoneMinute};

/// Where values are collected: one slot per [`FieldName`], plus Caddy's `tls` object whose
/// mere presence means HTTPS.
pub(super) const TLS_SLOT: usize = FieldName::ALL.len();
/// Caddy behind a trusted proxy: the `X-Forwarded-Proto` and `X-Forwarded-Host` headers.
pub(super) const FORWARDED_PROTO_SLOT: usize = TLS_SLOT + 1;
pub(super) const FORWARDED_HOST_SLOT: usize = TLS_SLOT + 2;
pub(super) const SLOTS: usize = TLS_SLOT + 3;

/// One node of the tree of mapped paths.
#[derive(Debug, Clone, Default)]
struct Node {
    children: Vec<(Box<str>, usize)>,
    /// The slots this node's value fills, with the preference of this path (lower wins).
    targets: Vec<(usize, u8)>,
}

/// The mapped paths as a tree, walked once per line.
#[derive(Debug, Clone)]
pub(super) struct PathTree {
    nodes: Vec<Node>,
}

impl PathTree {
    /// A tree with only its root.
    pub(super) fn new() -> PathTree {
        PathTree {
            nodes: vec![Node::default()],
        }
    }

    /// Adds `path` (dotted keys), whose value fills `slot` with `preference` (lower wins).
    pub(super) fn add(&mut self, path: &str, slot: usize, preference: u8) {
        let mut node = 0;
        for segment in path.split('.') {
            let existing = self
                .nodes
                .get(node)
                .and_then(|n| n.children.iter().find(|(key, _)| &**key == segment))
                .map(|&(_, child)| child);
            node = match existing {
                Some(child) => child,
                None => {
                    let child = self.nodes.len();
                    self.nodes.push(Node::default());
                    if let Some(parent) = self.nodes.get_mut(node) {
                        parent.children.push((segment.into(), child));
                    }
                    child
                }
            };
        }
        if let Some(leaf) = self.nodes.get_mut(node) {
            leaf.targets.push((slot, preference));
        }
    }

    /// Walks `input`, a JSON object, recording the values at mapped paths into `found`;
    /// escaped strings are unescaped into `unescaped`.
    pub(super) fn walk<'a>(
        &self,
        input: &'a [u8],
        found: &mut Found<'a>,
        unescaped: &mut Vec<u8>,
    ) -> Result<(), serde_json::Error> {
        if input.trim_ascii_start().first() != Some(&b'{') {
            return Err(de::Error::custom("not an object"));
        }
        let mut deserializer = serde_json::Deserializer::from_slice(input);
        Walk {
            tree: self,
            node: 0,
            found,
            unescaped,
        }
        .deserialize(&mut deserializer)?;
        deserializer.end()
    }
}

/// A string value: borrowed from the line, or unescaped into the scratch buffer.
#[derive(Debug, Clone, Copy)]
pub(super) enum Str<'a> {
    Line(&'a [u8]),
    Unescaped { start: usize, end: usize },
}

impl<'a> Str<'a> {
    fn bytes(self, unescaped: &'a [u8]) -> &'a [u8] {
        match self {
            Str::Line(bytes) => bytes,
            Str::Unescaped { start, end } => unescaped.get(start..end).unwrap_or_default(),
        }
    }
}

/// A scalar found at a mapped path.
#[derive(Debug, Clone, Copy)]
pub(super) enum Value<'a> {
    Str(Str<'a>),
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    /// A boolean, object or other value that is there but is no text or number.
    Present,
}

impl<'a> Value<'a> {
    /// The time the value writes, and whether it was written without an offset and read in
    /// `zone` (`minute` remembers the zone's offset of the last minute read so).
    pub(super) fn time(
        self,
        unescaped: &'a [u8],
        zone: &LocalZone,
        minute: &mut ZoneMinute,
    ) -> Option<(jiff::Timestamp, bool)> {
        let read = match self {
            Value::Str(text) => time::any_or_wall(text.bytes(unescaped))?,
            Value::Unsigned(n) => Read::Instant(time::epoch_integer(i64::try_from(n).ok()?)?),
            Value::Signed(n) => Read::Instant(time::epoch_integer(n)?),
            Value::Float(f) => Read::Instant(time::epoch_float(f)?),
            Value::Present => return None,
        };
        match read {
            Read::Instant(time) => Some((time, false)),
            Read::Wall(wall) => Some((zone.timestamp(wall, minute)?, true)),
        }
    }

    pub(super) fn integer(self, unescaped: &'a [u8]) -> Option<i64> {
        match self {
            Value::Str(text) => {
                let text = text.bytes(unescaped).trim_ascii();
                match text.strip_prefix(b"-") {
                    Some(digits) => lex::number(digits)
                        .and_then(|n| i64::try_from(n).ok())
                        .map(|n| -n),
                    None => lex::number(text).and_then(|n| i64::try_from(n).ok()),
                }
            }
            Value::Unsigned(n) => i64::try_from(n).ok(),
            Value::Signed(n) => Some(n),
            // Whole floats only (`200.0`); the cast is exact below 2^53.
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(f as i64),
            Value::Float(_) | Value::Present => None,
        }
    }

    pub(super) fn is_dash(self, unescaped: &'a [u8]) -> bool {
        matches!(self, Value::Str(text) if matches!(text.bytes(unescaped), b"-" | b""))
    }
}

/// The best value found so far for each slot, with the preference of the path it came from.
#[derive(Debug, Default)]
pub(super) struct Found<'a> {
    slots: [Option<(u8, Value<'a>)>; SLOTS],
}

impl<'a> Found<'a> {
    pub(super) fn value(&self, slot: usize) -> Option<Value<'a>> {
        self.slots
            .get(slot)
            .copied()
            .flatten()
            .map(|(_, value)| value)
    }

    /// The slot as text: strings as they are, numbers not (a numeric user-agent is no
    /// user-agent). Empty strings and `-` count as absent.
    pub(super) fn text(&self, slot: usize, unescaped: &'a [u8]) -> Option<&'a [u8]> {
        match self.value(slot)? {
            Value::Str(text) => lex::present(text.bytes(unescaped)),
            _ => None,
        }
    }

    fn record(&mut self, targets: &[(usize, u8)], value: Value<'a>) {
        for &(slot, preference) in targets {
            if let Some(entry) = self.slots.get_mut(slot)
                && entry.is_none_or(|(existing, _)| preference < existing)
            {
                *entry = Some((preference, value));
            }
        }
    }
}

/// Walks one JSON value at one node of the path tree.
struct Walk<'p, 'w, 'a> {
    tree: &'p PathTree,
    node: usize,
    found: &'w mut Found<'a>,
    unescaped: &'w mut Vec<u8>,
}

impl<'a> Walk<'_, '_, 'a> {
    fn record(self, value: Value<'a>) {
        let targets = self
            .tree
            .nodes
            .get(self.node)
            .map_or(&[][..], |node| &node.targets);
        self.found.record(targets, value);
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_, '_, 'de> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, '_, 'de> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<(), E> {
        self.record(Value::Str(Str::Line(value.as_bytes())));
        Ok(())
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<(), E> {
        let targets = self
            .tree
            .nodes
            .get(self.node)
            .map_or(&[][..], |node| &node.targets);
        if !targets.is_empty() {
            let start = self.unescaped.len();
            self.unescaped.extend_from_slice(value.as_bytes());
            self.found.record(
                targets,
                Value::Str(Str::Unescaped {
                    start,
                    end: self.unescaped.len(),
                }),
            );
        }
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<(), E> {
        self.record(Value::Unsigned(value));
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<(), E> {
        self.record(Value::Signed(value));
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<(), E> {
        self.record(Value::Float(value));
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.record(Value::Present);
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // An array stands for its first element: Caddy logs each header as a list of values.
        let Walk {
            tree,
            node,
            found,
            unescaped,
        } = self;
        seq.next_element_seed(Walk {
            tree,
            node,
            found,
            unescaped,
        })?;
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Walk {
            tree,
            node,
            found,
            unescaped,
        } = self;
        let Some(current) = tree.nodes.get(node) else {
            return Ok(());
        };
        found.record(&current.targets, Value::Present);
        while let Some(child) = map.next_key_seed(Key {
            children: &current.children,
        })? {
            match child {
                Some(child) => map.next_value_seed(Walk {
                    tree,
                    node: child,
                    found: &mut *found,
                    unescaped: &mut *unescaped,
                })?,
                None => map.next_value::<IgnoredAny>().map(|_| ())?,
            }
        }
        Ok(())
    }
}

/// Reads an object key and looks it up among a node's children without allocating.
struct Key<'p> {
    children: &'p [(Box<str>, usize)],
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = Option<usize>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self
            .children
            .iter()
            .find(|(name, _)| &**name == key)
            .map(|&(_, child)| child))
    }
}
