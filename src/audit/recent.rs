//! Small fixed-size caches in front of the per-thread hash maps of the hot path.
//!
//! A hash map lookup by a user-agent hashes all of its ~100 bytes, probes, then compares the key;
//! nearly every line repeats a key seen moments before. These caches keep one key per slot,
//! picked from a few words of the key, so a hit costs a few loads, a multiply and the one key
//! comparison that any map needs. A miss (a new key, or one whose slot another key holds) goes
//! to the map behind and takes the slot over: no sequence of keys makes a lookup cost more than
//! the map's plus one comparison, and memory is fixed.

/// Slots of a [`RecentKeys`] (a power of two).
const SLOTS: usize = 1024;

/// Keys longer than this are never kept (they go to the map every time), which bounds the
/// memory of a cache at about `SLOTS * MAX_KEY` bytes.
const MAX_KEY: usize = 512;

/// Spreads a fingerprint over the slots (Fibonacci hashing: the top bits of the product depend
/// on every bit of the input).
const SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;

/// A direct-mapped cache from byte strings to small copyable values.
#[derive(Debug)]
pub struct RecentKeys<V> {
    /// `(key, value)` by slot; an empty key with `None` is a free slot.
    slots: Vec<(Vec<u8>, Option<V>)>,
}

impl<V> Default for RecentKeys<V> {
    fn default() -> Self {
        RecentKeys { slots: Vec::new() }
    }
}

impl<V: Copy> RecentKeys<V> {
    /// The value kept for `key`, if its slot holds it.
    pub fn get(&self, key: &[u8]) -> Option<V> {
        match self.slots.get(slot(key)) {
            Some((kept, value)) if kept.as_slice() == key => *value,
            _ => None,
        }
    }

    /// Keeps `value` for `key`, in place of whatever key had its slot.
    pub fn insert(&mut self, key: &[u8], value: V) {
        if key.len() > MAX_KEY {
            return;
        }
        if self.slots.is_empty() {
            self.slots.resize_with(SLOTS, || (Vec::new(), None));
        }
        if let Some((kept, old)) = self.slots.get_mut(slot(key)) {
            // The slot's memory is reused: no allocation once the keys have been seen.
            kept.clear();
            kept.extend_from_slice(key);
            *old = Some(value);
        }
    }

    /// Forgets every key (when the map behind is cleared).
    pub fn clear(&mut self) {
        for (key, value) in &mut self.slots {
            key.clear();
            *value = None;
        }
    }
}

/// The slot of `key`: from its length and its first, middle and last 8 bytes, which tell apart
/// the user-agents and hosts of real logs (they often share a prefix such as `Mozilla/5.0 (`).
fn slot(key: &[u8]) -> usize {
    let word = |at: usize| {
        key.get(at..at + 8)
            .and_then(|bytes| <[u8; 8]>::try_from(bytes).ok())
            .map_or(0, u64::from_le_bytes)
    };
    let n = key.len();
    let fingerprint = if n >= 8 {
        word(0) ^ word(n / 2 - 4).rotate_left(21) ^ word(n - 8).rotate_left(42)
    } else {
        let mut short = [0u8; 8];
        short[..n].copy_from_slice(key);
        u64::from_le_bytes(short)
    };
    let mixed = (fingerprint ^ n as u64).wrapping_mul(SPREAD);
    // The top bits: SLOTS is a power of two.
    (mixed >> (64 - SLOTS.trailing_zeros())) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn answers_only_for_the_key_it_holds() {
        let mut cache = RecentKeys::default();
        assert_eq!(cache.get(b"a"), None);
        cache.insert(b"a", 1);
        cache.insert(b"Mozilla/5.0 (compatible; Googlebot/2.1)", 2);
        cache.insert(b"", 3);
        assert_eq!(cache.get(b"a"), Some(1));
        assert_eq!(
            cache.get(b"Mozilla/5.0 (compatible; Googlebot/2.1)"),
            Some(2)
        );
        assert_eq!(cache.get(b""), Some(3));
        assert_eq!(cache.get(b"b"), None);
        assert_eq!(cache.get(b"Mozilla/5.0 (compatible; Googlebot/2.2)"), None);
        cache.insert(b"a", 4);
        assert_eq!(cache.get(b"a"), Some(4));
        cache.clear();
        assert_eq!(cache.get(b"a"), None);
        assert_eq!(cache.get(b""), None);
    }

    #[test]
    fn long_keys_are_not_kept() {
        let mut cache = RecentKeys::default();
        let long = vec![b'x'; MAX_KEY + 1];
        cache.insert(&long, 1);
        assert_eq!(cache.get(&long), None);
        let longest = vec![b'x'; MAX_KEY];
        cache.insert(&longest, 2);
        assert_eq!(cache.get(&longest), Some(2));
    }

    #[test]
    fn colliding_keys_evict_each_other() {
        // More keys than slots: two of them share one.
        let keys = (0..=SLOTS).map(|i| format!("user-agent {i}").into_bytes());
        let mut by_slot = std::collections::HashMap::new();
        let (first, second) = keys
            .into_iter()
            .find_map(|k| by_slot.insert(slot(&k), k.clone()).map(|old| (old, k)))
            .expect("pigeonhole");
        let mut cache = RecentKeys::default();
        cache.insert(&first, 1);
        cache.insert(&second, 2);
        assert_eq!(cache.get(&first), None);
        assert_eq!(cache.get(&second), Some(2));
    }

    proptest! {
        /// Whatever keys were inserted, a hit is the value last inserted for that key.
        #[test]
        fn a_hit_is_the_last_value_inserted(
            ops in prop::collection::vec((prop::collection::vec(0u8..4, 0..20), 0u32..100), 0..200),
        ) {
            let mut cache = RecentKeys::default();
            let mut truth = std::collections::HashMap::new();
            for (key, value) in ops {
                if let Some(hit) = cache.get(&key) {
                    prop_assert_eq!(Some(&hit), truth.get(&key));
                }
                cache.insert(&key, value);
                truth.insert(key.clone(), value);
                prop_assert_eq!(cache.get(&key), Some(value));
            }
        }
    }
}
