//! Checked arithmetic of the counters: counters read from report directories may be anything,
//! and a sum past `u64::MAX` is refused, never wrapped.

/// Why counters cannot be merged or renumbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CountError {
    /// An id outside its table (a corrupt state).
    #[error("{kind} {id} is not in the state's {kind}s")]
    UnknownId {
        /// `agent`, `origin` or `robots version`.
        kind: &'static str,
        /// The id.
        id: u32,
    },
    /// A sum would pass `u64::MAX`.
    #[error("a counter would pass {max}", max = u64::MAX)]
    Overflow,
}

/// `a + b`, or [`CountError::Overflow`].
pub fn add(a: u64, b: u64) -> Result<u64, CountError> {
    a.checked_add(b).ok_or(CountError::Overflow)
}
