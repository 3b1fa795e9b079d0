//! Prefixes that log collectors put before each line of a server's log: syslog and journald,
//! docker compose, Kubernetes' CRI files, docker's `json-file` records. A prefix is recognised
//! by its shape ([`Prefix::detect`]) and split off ([`Prefix::split`]) before the format's
//! parser sees the line; records that continue one another (CRI's partial `P` records,
//! docker's records cut at 16 KiB) are joined ([`assemble`]), bounded by
//! [`MAX_LINE_LEN`](crate::MAX_LINE_LEN). Below the line parser and detection, above the
//! formats' shared pieces.

mod container;
mod docker;
mod syslog;

use std::fmt;

use crate::limits::MAX_LINE_LEN;

/// A prefix a collector writes before each line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Prefix {
    /// RFC 3164 syslog as rsyslog and syslog-ng write it (`Jul  4 12:00:01 host tag[pid]: `,
    /// `<PRI>` optional), journald's `short` outputs, and the same with an RFC 3339 time.
    Syslog,
    /// RFC 5424 syslog: `<PRI>1 TIME HOST APP PROCID MSGID SD `.
    Rfc5424,
    /// docker compose: `name  | `, with or without an RFC 3339 time after the bar.
    Compose,
    /// Kubernetes CRI log files: `TIME stdout|stderr P|F `, partial records joined.
    Cri,
    /// docker's `json-file` records: `{"log":"...","stream":"...","time":"..."}`, unwrapped.
    DockerJson,
}

impl Prefix {
    /// Every prefix, in the order a line is tried against them: the most distinctive first.
    pub const ALL: [Prefix; 5] = [
        Prefix::DockerJson,
        Prefix::Cri,
        Prefix::Rfc5424,
        Prefix::Syslog,
        Prefix::Compose,
    ];

    /// The prefix's name: `syslog`, `rfc5424`, `compose`, `cri`, `docker_json`.
    pub fn name(self) -> &'static str {
        match self {
            Prefix::Syslog => "syslog",
            Prefix::Rfc5424 => "rfc5424",
            Prefix::Compose => "compose",
            Prefix::Cri => "cri",
            Prefix::DockerJson => "docker_json",
        }
    }

    /// The record `line` holds behind this prefix, when it has the prefix's shape.
    pub(crate) fn split(self, line: &[u8]) -> Option<Record<'_>> {
        let whole = |body| Record {
            stream: Stream::Stdout,
            body,
            partial: false,
            json: false,
        };
        match self {
            Prefix::Syslog => syslog::bsd(line).map(whole),
            Prefix::Rfc5424 => syslog::rfc5424(line).map(whole),
            Prefix::Compose => container::compose(line).map(whole),
            Prefix::Cri => container::cri(line),
            Prefix::DockerJson => docker::record(line),
        }
    }

    /// The prefix `line` has, and its record, trying [`Prefix::ALL`] in order.
    pub(crate) fn detect(line: &[u8]) -> Option<(Prefix, Record<'_>)> {
        Prefix::ALL
            .into_iter()
            .find_map(|prefix| Some((prefix, prefix.split(line)?)))
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The output stream a container's line came from; records continue only records of their own
/// stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout = 0,
    Stderr = 1,
}

/// What a prefixed line holds: a message, or a piece of one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record<'a> {
    pub(crate) stream: Stream,
    /// The message, or the piece of it this record holds.
    pub(crate) body: &'a [u8],
    /// A later record of the same stream continues this one (CRI `P`).
    pub(crate) partial: bool,
    /// `body` is a JSON string's content (docker), to be decoded.
    pub(crate) json: bool,
}

/// For each stream, whether a record of it is open (continued by the next) within the block.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OpenRecords {
    open: [bool; 2],
    /// The record being joined passed [`MAX_LINE_LEN`]: its pieces are dropped.
    too_long: [bool; 2],
}

impl OpenRecords {
    /// The state of a block that starts inside the records of the streams `cut` names, which
    /// the block before it cut at the line cap ([`Block::cut_records`](crate::Block)): they
    /// reached the cap, so their pieces are dropped and their last is skipped as too long.
    pub(crate) fn cut(cut: [bool; 2]) -> OpenRecords {
        OpenRecords {
            open: cut,
            too_long: cut,
        }
    }

    /// Closes the first stream that has a record open: the stream, and whether its record
    /// reached the line cap.
    pub(crate) fn close_first(&mut self) -> Option<(usize, bool)> {
        let stream = self.open.iter().position(|&open| open)?;
        let open = self.open.get_mut(stream)?;
        *open = false;
        Some((
            stream,
            self.too_long.get(stream).copied().unwrap_or_default(),
        ))
    }
}

/// What [`assemble`] made of a record.
#[derive(Debug)]
pub(crate) enum Assembled<'a> {
    /// A whole message.
    Message(&'a [u8]),
    /// A piece of a message that later records continue.
    Pending,
    /// The joined message reached [`MAX_LINE_LEN`].
    TooLong,
}

/// Joins `record` to the records of its stream still open in `open`, in `buffers` (one per
/// stream, reused from line to line and block to block). A whole record without escapes is
/// its own message, borrowed from the line.
pub(crate) fn assemble<'a>(
    record: Record<'a>,
    open: &mut OpenRecords,
    buffers: &'a mut [Vec<u8>; 2],
) -> Assembled<'a> {
    let stream = record.stream as usize;
    let was_open = open.open.get(stream).copied().unwrap_or_default();
    if !was_open && !record.partial && !record.json {
        return Assembled::Message(record.body);
    }
    let (Some(buffer), Some(too_long), Some(is_open)) = (
        buffers.get_mut(stream),
        open.too_long.get_mut(stream),
        open.open.get_mut(stream),
    ) else {
        return Assembled::TooLong;
    };
    if !was_open {
        buffer.clear();
        *too_long = false;
    }
    // A decoded JSON string is never longer than its text: the bound is checked before the
    // buffer grows.
    if *too_long || buffer.len() + record.body.len() >= MAX_LINE_LEN {
        *too_long = true;
        buffer.clear();
        *is_open = record.partial;
        return if record.partial {
            Assembled::Pending
        } else {
            Assembled::TooLong
        };
    }
    if record.json {
        docker::decode_into(record.body, buffer);
        if !record.partial {
            // The line end docker keeps is no part of the line.
            buffer.pop();
            if buffer.last() == Some(&b'\r') {
                buffer.pop();
            }
        }
    } else {
        buffer.extend_from_slice(record.body);
    }
    *is_open = record.partial;
    if record.partial {
        return Assembled::Pending;
    }
    Assembled::Message(buffer)
}

/// How many lines [`whole_records_end`] looks back for the last record of a stream, once the
/// other stream's is found: a partial record is continued within milliseconds, so a stream
/// silent for this many lines has no record open.
const LOOK_BACK_LINES: usize = 4096;

/// The lines of `data` (whole lines, each ending in `\n`) from the last to the first: where
/// each starts, and the record of a container runtime it holds, if any.
fn records_backwards(data: &[u8]) -> impl Iterator<Item = (usize, Option<Record<'_>>)> {
    let mut end = data.len();
    std::iter::from_fn(move || {
        let body_end = end.checked_sub(1)?;
        let start =
            memchr::memrchr(b'\n', data.get(..body_end).unwrap_or_default()).map_or(0, |at| at + 1);
        let line = data.get(start..body_end).unwrap_or_default();
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        end = start;
        Some((start, container::cri(line).or_else(|| docker::record(line))))
    })
}

/// Where a block of whole lines may end so that no partial record (CRI's `P`, docker's cut
/// lines) is cut from its continuation: the end of the last line after which no stream has a
/// partial record open. `data.len()` for a log of no such records (its last line is none), and
/// 0 when every line of `data` belongs to a record still open. Looks back line by line from the
/// end, so it costs a few instructions for other logs.
pub(crate) fn whole_records_end(data: &[u8]) -> usize {
    let mut candidate = data.len();
    // For each stream: whether its last record before the candidate has been seen.
    let mut seen = [false; 2];
    let mut since_seen = 0;
    for (start, record) in records_backwards(data) {
        let Some(record) = record else {
            // No record: nothing crosses it.
            return candidate;
        };
        let stream = record.stream as usize;
        if !seen.get(stream).copied().unwrap_or(true) {
            if record.partial {
                // The candidate would cut this record from its continuation.
                candidate = start;
                seen = [false; 2];
                since_seen = 0;
                continue;
            }
            if let Some(seen) = seen.get_mut(stream) {
                *seen = true;
            }
        }
        if seen == [true; 2] {
            return candidate;
        }
        since_seen += 1;
        if since_seen > LOOK_BACK_LINES {
            return candidate;
        }
    }
    candidate
}

/// The streams whose last record in `data` (whole lines) is partial: the records a block that
/// ends there cuts from their continuation, looking back as [`whole_records_end`] does. The
/// reader cuts a block so only when no record ends within the line cap.
pub(crate) fn open_at_end(data: &[u8]) -> [bool; 2] {
    let mut open = [false; 2];
    let mut seen = [false; 2];
    for (_, record) in records_backwards(data).take(LOOK_BACK_LINES) {
        let Some(record) = record else {
            break;
        };
        let stream = record.stream as usize;
        if let (Some(seen), Some(open)) = (seen.get_mut(stream), open.get_mut(stream))
            && !*seen
        {
            *seen = true;
            *open = record.partial;
        }
        if seen == [true; 2] {
            break;
        }
    }
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a run of lines assembles into, as text.
    fn messages(prefix: Prefix, lines: &[&[u8]]) -> Vec<String> {
        let mut open = OpenRecords::default();
        let mut buffers = [Vec::new(), Vec::new()];
        lines
            .iter()
            .map(|line| {
                let record = prefix.split(line).expect("the prefix's shape");
                match assemble(record, &mut open, &mut buffers) {
                    Assembled::Message(message) => String::from_utf8_lossy(message).into_owned(),
                    Assembled::Pending => "…".to_owned(),
                    Assembled::TooLong => "too long".to_owned(),
                }
            })
            .collect()
    }

    #[test]
    fn partial_records_join_per_stream() {
        let lines: &[&[u8]] = &[
            b"2026-11-20T01:00:00Z stdout P 1.2.3.4 - - [10/Oct/2000",
            b"2026-11-20T01:00:00Z stderr F warning",
            b"2026-11-20T01:00:00Z stdout P :13:55:36 -0700] ",
            b"2026-11-20T01:00:00Z stdout F \"GET / HTTP/1.0\" 200 1",
            b"2026-11-20T01:00:01Z stdout F next",
        ];
        assert_eq!(
            messages(Prefix::Cri, lines),
            [
                "…",
                "warning",
                "…",
                "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1",
                "next"
            ]
        );
        let docker: &[&[u8]] = &[
            br#"{"log":"{\"ts\":1,","stream":"stdout","time":"2026-11-20T01:00:00Z"}"#,
            br#"{"log":"\"status\":200}\r\n","stream":"stdout","time":"2026-11-20T01:00:00Z"}"#,
            br#"{"log":"\n","stream":"stderr","time":"2026-11-20T01:00:00Z"}"#,
        ];
        assert_eq!(
            messages(Prefix::DockerJson, docker),
            ["…", "{\"ts\":1,\"status\":200}", ""]
        );
    }

    #[test]
    fn joined_records_are_bounded() {
        let piece = vec![b'x'; MAX_LINE_LEN / 2];
        let partial = [&b"2026-11-20T01:00:00Z stdout P "[..], &piece].concat();
        let last = b"2026-11-20T01:00:00Z stdout F end".to_vec();
        let after = b"2026-11-20T01:00:01Z stdout F next".to_vec();
        let lines: Vec<&[u8]> = vec![&partial, &partial, &partial, &last, &after];
        assert_eq!(
            messages(Prefix::Cri, &lines),
            ["…", "…", "…", "too long", "next"]
        );
    }

    #[test]
    fn blocks_end_after_whole_records() {
        const F_OUT: &str = "2026-11-20T01:00:00Z stdout F a\n";
        const P_OUT: &str = "2026-11-20T01:00:00Z stdout P a\n";
        const F_ERR: &str = "2026-11-20T01:00:00Z stderr F a\n";
        const P_ERR: &str = "2026-11-20T01:00:00Z stderr P a\n";
        const DOCKER_P: &str =
            "{\"log\":\"a\",\"stream\":\"stdout\",\"time\":\"2026-11-20T01:00:00Z\"}\n";
        const DOCKER_F: &str =
            "{\"log\":\"a\\n\",\"stream\":\"stdout\",\"time\":\"2026-11-20T01:00:00Z\"}\n";
        let cases: &[(&[&str], usize)] = &[
            // not a log of records: anywhere
            (&["1.2.3.4 - -\n", "x\n"], 2),
            (&[F_OUT, F_OUT], 2),
            (&[F_OUT, P_OUT], 1),
            (&[F_OUT, P_OUT, P_OUT], 1),
            (&[P_OUT, P_OUT], 0),
            // another stream's records between a partial one and its end
            (&[F_OUT, P_OUT, F_ERR], 1),
            (&[F_OUT, P_OUT, F_ERR, F_OUT], 4),
            (&[P_ERR, F_OUT, F_ERR, P_OUT], 3),
            (&[F_ERR, P_OUT, P_ERR, F_OUT], 1),
            (&["junk\n", P_OUT], 1),
            // docker's cut lines
            (&[DOCKER_F, DOCKER_P], 1),
            (&[DOCKER_F, DOCKER_P, DOCKER_F], 3),
        ];
        for &(lines, want) in cases {
            let data = lines.concat();
            let want: usize = lines.iter().take(want).map(|l| l.len()).sum();
            assert_eq!(whole_records_end(data.as_bytes()), want, "{lines:?}");
        }
    }

    #[test]
    fn open_records_at_the_end() {
        const F_OUT: &str = "2026-11-20T01:00:00Z stdout F a\n";
        const P_OUT: &str = "2026-11-20T01:00:00Z stdout P a\n";
        const F_ERR: &str = "2026-11-20T01:00:00Z stderr F a\n";
        const P_ERR: &str = "2026-11-20T01:00:00Z stderr P a\n";
        let cases: &[(&[&str], [bool; 2])] = &[
            (&[], [false; 2]),
            (&["1.2.3.4 - -\n", P_OUT], [true, false]),
            (&[P_OUT, "junk\n"], [false; 2]),
            (&[P_OUT, P_OUT, F_ERR], [true, false]),
            (&[P_OUT, P_ERR, F_OUT], [false, true]),
            (&[P_ERR, P_OUT, P_ERR], [true, true]),
        ];
        for &(lines, want) in cases {
            assert_eq!(open_at_end(lines.concat().as_bytes()), want, "{lines:?}");
        }
    }

    #[test]
    fn every_prefix_has_a_distinct_name_and_is_detected() {
        let lines: [(&[u8], Prefix); 5] = [
            (b"Jul  4 12:00:01 web caddy[2140]: x", Prefix::Syslog),
            (
                b"<134>1 2026-11-20T01:00:00Z - haproxy 1 - - x",
                Prefix::Rfc5424,
            ),
            (b"web-1  | x", Prefix::Compose),
            (b"2026-11-20T01:00:00Z stdout F x", Prefix::Cri),
            (
                br#"{"log":"x\n","stream":"stdout","time":"2026-11-20T01:00:00Z"}"#,
                Prefix::DockerJson,
            ),
        ];
        for (line, want) in lines {
            assert_eq!(Prefix::detect(line).map(|(p, _)| p), Some(want));
        }
        let names: std::collections::HashSet<_> = Prefix::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(names.len(), Prefix::ALL.len());
    }
}
