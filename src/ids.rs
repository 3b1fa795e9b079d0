//! The numbers a run gives to the things it counts: agents, origins and robots versions.
//!
//! Each is its own type, so that a counter keyed by (agent, origin) cannot be handed an origin
//! where it expects an agent. They are dense indexes (0, 1, 2, ... in order of first sight or of
//! loading) into the tables of the run; this module sits below every other one of the crate.
//! Maps keyed by them hash with [`IdHashMap`]'s cheaper hasher, since no log can choose them.

use std::collections::HashMap;
use std::fmt;

/// A hash map keyed by ids of this module, alone or with numbers read from a robots.txt version
/// (a rule's index, a crawl delay), never with a field of a log line. The run hands these ids
/// out in order, so whoever wrote the logs cannot choose keys that collide, and the keys need no
/// keyed hash: FxHash, a multiplication per word, spreads them. The counters of one request look
/// up several such maps. A key with a log's field in it (an hour, an address, a user-agent)
/// stays in an `ahash` map.
pub type IdHashMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;

macro_rules! index_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default,
            serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(u32);

        impl $name {
            /// The largest id: stands for a table that is full.
            pub const MAX: $name = $name(u32::MAX);

            /// The id of position `index` of its table, if it fits.
            pub fn from_index(index: usize) -> Option<$name> {
                u32::try_from(index).ok().map($name)
            }

            /// The position in its table.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

index_id!(
    /// An agent of the run, by order of first sight (`State::agents` indexes by it).
    AgentId
);
index_id!(
    /// An origin of the run, by order of first sight (`State::origins` indexes by it).
    OriginId
);
index_id!(
    /// A robots.txt version, by load order (`VersionSet::versions` indexes by it).
    VersionId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_indexes() {
        assert_eq!(AgentId::from_index(7).map(AgentId::index), Some(7));
        assert_eq!(OriginId::from_index(usize::MAX), None);
        assert_eq!(VersionId::from_index(0), Some(VersionId::default()));
        assert_eq!(AgentId::from_index(3).unwrap().to_string(), "3");
    }
}
