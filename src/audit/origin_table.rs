//! The run's table of origins, shared by the worker threads behind the audit context's lock.
//!
//! Invariant: an origin's id is its position in `names` and never changes during the run; a
//! minted origin (no robots source names it) is kept only while it is among the smallest
//! `kept_names` (`src/audit/fold.rs`), else counted as [`OTHER_ORIGINS`], whose row exists
//! before any origin is folded or retired.

use ahash::AHashMap;

use super::fold::{Admission, Admit, OTHER_ORIGINS, Retired};
use crate::ids::OriginId;

/// The origins of the run, numbered in order of first sight. Origins without a robots source
/// are minted by traffic (any Host header names one): at most a bounded number of them are kept
/// (`src/audit/fold.rs`), the others counted as [`OTHER_ORIGINS`].
#[derive(Debug)]
pub(super) struct OriginTable {
    /// By name; minted origins only while they are kept.
    ids: AHashMap<String, OriginId>,
    /// By id; a retired origin's name is empty.
    pub(super) names: Vec<String>,
    /// Which minted origins are kept.
    pub(super) minted: Admission<OriginId>,
    /// The minted origins pushed out by smaller ones, and the [`OTHER_ORIGINS`] row once an
    /// origin was folded.
    pub(super) retired: Retired<OriginId>,
}

impl OriginTable {
    /// An empty table keeping at most `kept_names` minted origins.
    pub(super) fn new(kept_names: usize) -> OriginTable {
        OriginTable {
            ids: AHashMap::new(),
            names: Vec::new(),
            minted: Admission::new(kept_names),
            retired: Retired::default(),
        }
    }

    fn push(&mut self, name: String) -> OriginId {
        let id = OriginId::from_index(self.names.len()).unwrap_or(OriginId::MAX);
        self.names.push(name);
        id
    }

    /// The [`OTHER_ORIGINS`] row, made on first use.
    fn other(&mut self) -> OriginId {
        if let Some(id) = self.retired.other {
            return id;
        }
        let id = self.push(OTHER_ORIGINS.to_owned());
        self.retired.other = Some(id);
        id
    }

    /// The id of origin `name`, numbered when new; `minted` when no robots source names it.
    pub(super) fn id(&mut self, name: &str, minted: bool) -> OriginId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        if minted && self.minted.is_full() {
            // Made before the new origin's id is taken, which the admission records.
            self.other();
        }
        let next = OriginId::from_index(self.names.len()).unwrap_or(OriginId::MAX);
        if minted {
            match self.minted.admit(name, next) {
                Admit::Kept => {}
                Admit::KeptPushingOut(out) => {
                    // Forgotten here; each thread moves its counters to the fold row.
                    if let Some(name) = self.names.get_mut(out.index()) {
                        let name = std::mem::take(name);
                        self.ids.remove(name.as_str());
                        self.retired.ids.push(out);
                    }
                }
                Admit::Folded => return self.other(),
            }
        }
        let id = self.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }
}
