//! Sets of addresses: sorted, merged intervals per address family, looked up by binary search
//! without allocation; and the range lists loaded for a key, each a timeless set and dated
//! snapshots.

use std::net::IpAddr;

use ipnet::IpNet;
use jiff::Timestamp;

use super::Verification;
use crate::bot::Bot;

/// Sorted, non-overlapping, non-adjacent inclusive ranges of one address family.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RangeSet<T> {
    ranges: Vec<(T, T)>,
}

impl<T: Copy + Ord + Successor> RangeSet<T> {
    fn extend(&mut self, more: impl IntoIterator<Item = (T, T)>) {
        self.ranges.extend(more);
        self.ranges.sort_unstable();
        let mut merged: Vec<(T, T)> = Vec::with_capacity(self.ranges.len());
        for &(start, end) in &self.ranges {
            match merged.last_mut() {
                Some(last) if start <= last.1.successor() => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        self.ranges = merged;
    }

    fn contains(&self, address: T) -> bool {
        let after = self.ranges.partition_point(|&(start, _)| start <= address);
        after
            .checked_sub(1)
            .and_then(|index| self.ranges.get(index))
            .is_some_and(|&(_, end)| address <= end)
    }

    fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// The next address, saturating at the top of the family (for merging adjacent ranges).
trait Successor {
    fn successor(self) -> Self;
}

impl Successor for u32 {
    fn successor(self) -> Self {
        self.saturating_add(1)
    }
}

impl Successor for u128 {
    fn successor(self) -> Self {
        self.saturating_add(1)
    }
}

/// The addresses of one snapshot (or of a union of snapshots), both families.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Ranges {
    v4: RangeSet<u32>,
    v6: RangeSet<u128>,
}

impl Ranges {
    pub(super) fn add_nets(&mut self, nets: &[IpNet]) {
        self.v4.extend(nets.iter().filter_map(|net| match net {
            IpNet::V4(net) => Some((u32::from(net.network()), u32::from(net.broadcast()))),
            IpNet::V6(_) => None,
        }));
        self.v6.extend(nets.iter().filter_map(|net| match net {
            IpNet::V6(net) => Some((u128::from(net.network()), u128::from(net.broadcast()))),
            IpNet::V4(_) => None,
        }));
    }

    pub(super) fn add(&mut self, other: &Ranges) {
        self.v4.extend(other.v4.ranges.iter().copied());
        self.v6.extend(other.v6.ranges.iter().copied());
    }

    pub(super) fn is_empty(&self) -> bool {
        self.v4.is_empty() && self.v6.is_empty()
    }

    pub(super) fn verify(&self, ip: IpAddr) -> Verification {
        let (has_family, inside) = match ip {
            IpAddr::V4(ip) => (!self.v4.is_empty(), self.v4.contains(u32::from(ip))),
            IpAddr::V6(ip) => (!self.v6.is_empty(), self.v6.contains(u128::from(ip))),
        };
        match (inside, has_family) {
            (true, _) => Verification::Verified,
            (false, true) => Verification::Spoofed,
            (false, false) => Verification::Unverified,
        }
    }
}

/// One range list loaded for a key: the files without a time (in force at every time) and the
/// dated snapshots (each in force from its time until the next).
#[derive(Debug, Clone)]
pub(super) struct RangeList {
    /// A bot name or an operator, as first given.
    pub(super) key: String,
    /// The list's name, lower case: a file stem such as `common-crawlers`, or the directory
    /// name of a snapshot series.
    pub(super) list: String,
    pub(super) timeless: Ranges,
    /// Sorted by time, one per distinct time.
    pub(super) dated: Vec<(Timestamp, Ranges)>,
}

impl RangeList {
    pub(super) fn covers(&self, bot: &Bot) -> bool {
        self.key.eq_ignore_ascii_case(&bot.name)
            || (!bot.operator.is_empty()
                && self.key.eq_ignore_ascii_case(&bot.operator)
                && bot.policy.covered_by_list(&self.list))
    }

    /// The times at which what this list says changes.
    pub(super) fn times(&self) -> impl Iterator<Item = Timestamp> + '_ {
        self.dated.iter().map(|(time, _)| *time)
    }

    /// What the list says at `time` (`None`: before any snapshot, only the timeless files).
    pub(super) fn at(&self, time: Option<Timestamp>) -> impl Iterator<Item = &Ranges> {
        let snapshot = time.and_then(|time| {
            let after = self.dated.partition_point(|(from, _)| *from <= time);
            after.checked_sub(1).and_then(|index| self.dated.get(index))
        });
        std::iter::once(&self.timeless).chain(snapshot.map(|(_, ranges)| ranges))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_and_look_up() {
        let mut set = RangeSet::<u32>::default();
        set.extend([
            (10, 20),
            (21, 30),
            (40, 50),
            (45, 47),
            (u32::MAX - 1, u32::MAX),
        ]);
        assert_eq!(set.ranges, [(10, 30), (40, 50), (u32::MAX - 1, u32::MAX)]);
        let cases: &[(u32, bool)] = &[
            (0, false),
            (9, false),
            (10, true),
            (25, true),
            (30, true),
            (31, false),
            (50, true),
            (51, false),
            (u32::MAX, true),
        ];
        for &(address, inside) in cases {
            assert_eq!(set.contains(address), inside, "{address}");
        }
    }
}
