//! Serde for the counters' hash maps as lists of `[key, value]` sorted by key: JSON keys are
//! strings, and the order makes `state.json` the same for the same counters.
//!
//! Invariant: a list read back holds each key once; a repeated key (a damaged state) is an
//! error, never one of its values silently dropped.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub fn serialize<K, V, H, S>(map: &HashMap<K, V, H>, serializer: S) -> Result<S::Ok, S::Error>
where
    K: Serialize + Ord,
    V: Serialize,
    S: Serializer,
{
    let mut entries: Vec<(&K, &V)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries.serialize(serializer)
}

pub fn deserialize<'de, K, V, H, D>(deserializer: D) -> Result<HashMap<K, V, H>, D::Error>
where
    K: Deserialize<'de> + Eq + Hash,
    H: BuildHasher + Default,
    V: Deserialize<'de>,
    D: Deserializer<'de>,
{
    let entries = Vec::<(K, V)>::deserialize(deserializer)?;
    let listed = entries.len();
    let map: HashMap<K, V, H> = entries.into_iter().collect();
    if map.len() != listed {
        return Err(D::Error::custom("a key is listed twice"));
    }
    Ok(map)
}
