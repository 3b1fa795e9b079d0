//! Writes one request as a log line in each supported layout.

use std::io::Write;
use std::net::Ipv6Addr;

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::SynthFormat;
use crate::agents::Address;
use crate::text::{push_hex, push_json_escaped, push_seconds, push_u64, push_u64_padded};

/// One generated request, borrowed from the generator's scratch buffers.
#[derive(Debug)]
pub(crate) struct Line<'a> {
    /// Unix time in microseconds.
    pub(crate) micros: i64,
    pub(crate) host: &'a str,
    pub(crate) client: Address,
    pub(crate) client_port: u16,
    pub(crate) method: &'static str,
    /// Path and query, as sent.
    pub(crate) target: &'a [u8],
    pub(crate) http2: bool,
    pub(crate) status: u16,
    pub(crate) bytes: u64,
    /// `-` or a URL.
    pub(crate) referer: &'a [u8],
    pub(crate) user_agent: &'a str,
    /// Server-side time spent, in microseconds (ALB and Caddy log it).
    pub(crate) duration_micros: u64,
    /// Random bits for per-request identifiers (ALB trace id, backend address).
    pub(crate) noise: u64,
}

/// The calendar date of the current day, recomputed only when the day changes: logs are written
/// in time order, so this is once per day of logs instead of once per line.
#[derive(Debug)]
struct Clock {
    day: i64,
    year: u64,
    month: u64,
    day_of_month: u64,
}

const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

impl Clock {
    fn new() -> Clock {
        Clock {
            day: i64::MIN,
            year: 1970,
            month: 1,
            day_of_month: 1,
        }
    }

    /// Splits `micros` into the cached date and the time of day; returns
    /// `(seconds of the day, microseconds of the second)`.
    fn split(&mut self, micros: i64) -> (u64, u64) {
        let seconds = micros.div_euclid(1_000_000);
        let day = seconds.div_euclid(86_400);
        if day != self.day {
            self.day = day;
            // Generated times lie between the config's start and end, which are valid
            // timestamps, so the conversion only fails on a caller bug; the epoch is then shown.
            let date = Timestamp::from_second(day * 86_400)
                .map(|ts| TimeZone::UTC.to_datetime(ts).date())
                .unwrap_or_default();
            self.year = u64::try_from(date.year()).unwrap_or(0);
            self.month = u64::try_from(date.month()).unwrap_or(1);
            self.day_of_month = u64::try_from(date.day()).unwrap_or(1);
        }
        // Both remainders are non-negative and small: `rem_euclid` never yields negatives.
        (
            seconds.rem_euclid(86_400) as u64,
            micros.rem_euclid(1_000_000) as u64,
        )
    }

    fn push_time_of_day(out: &mut Vec<u8>, second_of_day: u64) {
        push_u64_padded(out, second_of_day / 3600, 2);
        out.push(b':');
        push_u64_padded(out, second_of_day / 60 % 60, 2);
        out.push(b':');
        push_u64_padded(out, second_of_day % 60, 2);
    }

    /// `21/Nov/2026:04:27:15 +0000`
    fn push_clf(&mut self, out: &mut Vec<u8>, micros: i64) {
        let (second_of_day, _) = self.split(micros);
        push_u64_padded(out, self.day_of_month, 2);
        out.push(b'/');
        let month = MONTHS
            .get(self.month.saturating_sub(1) as usize)
            .copied()
            .unwrap_or(b"Jan");
        out.extend_from_slice(month);
        out.push(b'/');
        push_u64(out, self.year);
        out.push(b':');
        Self::push_time_of_day(out, second_of_day);
        out.extend_from_slice(b" +0000");
    }

    /// `2026-11-21T04:27:15.123456Z`
    fn push_iso(&mut self, out: &mut Vec<u8>, micros: i64) {
        let (second_of_day, fraction) = self.split(micros);
        push_u64_padded(out, self.year, 4);
        out.push(b'-');
        push_u64_padded(out, self.month, 2);
        out.push(b'-');
        push_u64_padded(out, self.day_of_month, 2);
        out.push(b'T');
        Self::push_time_of_day(out, second_of_day);
        out.push(b'.');
        push_u64_padded(out, fraction, 6);
        out.push(b'Z');
    }
}

/// Formats lines of one layout; keeps the date cache between lines.
#[derive(Debug)]
pub(crate) struct LineWriter {
    format: SynthFormat,
    clock: Clock,
    /// Nothing before this instant is written (ALB's request creation time precedes its log time).
    floor_micros: i64,
    balancer_id: u64,
}

impl LineWriter {
    pub(crate) fn new(format: SynthFormat, floor_micros: i64, balancer_id: u64) -> LineWriter {
        LineWriter {
            format,
            clock: Clock::new(),
            floor_micros,
            balancer_id,
        }
    }

    /// Appends `line` and its newline to `out`.
    pub(crate) fn write(&mut self, line: &Line<'_>, out: &mut Vec<u8>) {
        match self.format {
            SynthFormat::VhostCombined => {
                out.extend_from_slice(line.host.as_bytes());
                out.extend_from_slice(b":443 ");
                self.write_combined(line, out);
            }
            SynthFormat::Combined => self.write_combined(line, out),
            SynthFormat::Alb => self.write_alb(line, out),
            SynthFormat::Caddy => self.write_caddy(line, out),
        }
        out.push(b'\n');
    }

    fn write_combined(&mut self, line: &Line<'_>, out: &mut Vec<u8>) {
        push_address(out, line.client);
        out.extend_from_slice(b" - - [");
        self.clock.push_clf(out, line.micros);
        out.extend_from_slice(b"] \"");
        out.extend_from_slice(line.method.as_bytes());
        out.push(b' ');
        out.extend_from_slice(line.target);
        out.extend_from_slice(if line.http2 {
            b" HTTP/2.0\" "
        } else {
            b" HTTP/1.1\" "
        });
        push_u64(out, u64::from(line.status));
        out.push(b' ');
        push_u64(out, line.bytes);
        out.extend_from_slice(b" \"");
        out.extend_from_slice(line.referer);
        out.extend_from_slice(b"\" \"");
        out.extend_from_slice(line.user_agent.as_bytes());
        out.push(b'"');
    }

    fn write_alb(&mut self, line: &Line<'_>, out: &mut Vec<u8>) {
        let request_micros = 1 + line.noise % 900;
        let response_micros = line.noise >> 10 & 0x3f;
        let target_micros = line.duration_micros;
        out.extend_from_slice(if line.http2 { b"h2 " } else { b"https " });
        self.clock.push_iso(out, line.micros);
        out.extend_from_slice(b" app/web-lb/");
        push_hex(out, self.balancer_id, 16);
        out.push(b' ');
        push_address(out, line.client);
        out.push(b':');
        push_u64(out, u64::from(line.client_port));
        let backend = line.noise >> 16 & 0xff;
        out.extend_from_slice(b" 10.0.1.");
        push_u64(out, backend);
        out.extend_from_slice(b":80 ");
        push_seconds(out, request_micros, 3);
        out.push(b' ');
        push_seconds(out, target_micros, 3);
        out.push(b' ');
        push_seconds(out, response_micros, 3);
        out.push(b' ');
        push_u64(out, u64::from(line.status));
        out.push(b' ');
        push_u64(out, u64::from(line.status));
        out.push(b' ');
        push_u64(out, 150 + (line.noise >> 24 & 0x1ff));
        out.push(b' ');
        push_u64(out, line.bytes);
        out.extend_from_slice(b" \"");
        out.extend_from_slice(line.method.as_bytes());
        out.extend_from_slice(b" https://");
        out.extend_from_slice(line.host.as_bytes());
        out.extend_from_slice(b":443");
        out.extend_from_slice(line.target);
        out.extend_from_slice(if line.http2 {
            b" HTTP/2.0\" \""
        } else {
            b" HTTP/1.1\" \""
        });
        out.extend_from_slice(line.user_agent.as_bytes());
        out.extend_from_slice(
            b"\" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/web-targets/",
        );
        push_hex(out, self.balancer_id.rotate_left(17), 16);
        out.extend_from_slice(b" \"Root=1-");
        // Seconds since the epoch in hex, as AWS trace ids carry them.
        push_hex(out, line.micros.div_euclid(1_000_000) as u64, 8);
        out.push(b'-');
        push_hex(out, line.noise, 16);
        push_hex(out, line.noise.rotate_left(29), 8);
        out.extend_from_slice(b"\" \"");
        out.extend_from_slice(line.host.as_bytes());
        out.extend_from_slice(
            b"\" \"arn:aws:acm:us-east-1:123456789012:certificate/6f0a1c2e-8b3d-4e5f-9a7b-0c1d2e3f4a5b\" 0 ",
        );
        let total = (request_micros + target_micros + response_micros) as i64;
        let created = (line.micros - total).max(self.floor_micros);
        self.clock.push_iso(out, created);
        out.extend_from_slice(b" \"forward\" \"-\" \"-\" \"10.0.1.");
        push_u64(out, backend);
        out.extend_from_slice(b":80\" \"");
        push_u64(out, u64::from(line.status));
        out.extend_from_slice(b"\" \"-\" \"-\"");
    }

    fn write_caddy(&mut self, line: &Line<'_>, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"level\":\"info\",\"ts\":");
        // Generated times are after 1970, so the value is non-negative.
        push_seconds(out, line.micros.max(0) as u64, 6);
        out.extend_from_slice(
            b",\"logger\":\"http.log.access\",\"msg\":\"handled request\",\"request\":{\"remote_ip\":\"",
        );
        push_address(out, line.client);
        out.extend_from_slice(b"\",\"remote_port\":\"");
        push_u64(out, u64::from(line.client_port));
        out.extend_from_slice(b"\",\"client_ip\":\"");
        push_address(out, line.client);
        out.extend_from_slice(if line.http2 {
            b"\",\"proto\":\"HTTP/2.0\",\"method\":\""
        } else {
            b"\",\"proto\":\"HTTP/1.1\",\"method\":\""
        });
        out.extend_from_slice(line.method.as_bytes());
        out.extend_from_slice(b"\",\"host\":\"");
        push_json_escaped(out, line.host.as_bytes());
        out.extend_from_slice(b"\",\"uri\":\"");
        push_json_escaped(out, line.target);
        out.extend_from_slice(b"\",\"headers\":{\"User-Agent\":[\"");
        push_json_escaped(out, line.user_agent.as_bytes());
        out.extend_from_slice(b"\"],\"Accept\":[\"*/*\"],\"Accept-Encoding\":[\"gzip, br\"]");
        if line.referer != b"-" {
            out.extend_from_slice(b",\"Referer\":[\"");
            push_json_escaped(out, line.referer);
            out.extend_from_slice(b"\"]");
        }
        out.extend_from_slice(
            b"},\"tls\":{\"resumed\":false,\"version\":772,\"cipher_suite\":4865,\"proto\":\"",
        );
        out.extend_from_slice(if line.http2 { b"h2" } else { b"http/1.1" });
        out.extend_from_slice(b"\",\"server_name\":\"");
        push_json_escaped(out, line.host.as_bytes());
        out.extend_from_slice(b"\"}},\"bytes_read\":0,\"user_id\":\"\",\"duration\":");
        push_seconds(out, line.duration_micros, 6);
        out.extend_from_slice(b",\"size\":");
        push_u64(out, line.bytes);
        out.extend_from_slice(b",\"status\":");
        push_u64(out, u64::from(line.status));
        out.extend_from_slice(b",\"resp_headers\":{\"Server\":[\"Caddy\"]}}");
    }
}

pub(crate) fn push_address(out: &mut Vec<u8>, address: Address) {
    match address {
        Address::V4(ip) => {
            for (i, octet) in ip.to_be_bytes().into_iter().enumerate() {
                if i > 0 {
                    out.push(b'.');
                }
                push_u64(out, u64::from(octet));
            }
        }
        Address::V6(ip) => {
            // Writing into a Vec cannot fail, and IPv6 clients are rare enough that the
            // formatting machinery's cost does not show.
            let _ = write!(out, "{}", Ipv6Addr::from_bits(ip));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn micros(rfc3339: &str) -> i64 {
        rfc3339
            .parse::<Timestamp>()
            .map(|t| t.as_microsecond())
            .unwrap_or(0)
    }

    fn sample(micros: i64) -> Line<'static> {
        Line {
            micros,
            host: "shop.example",
            client: Address::V4(u32::from_be_bytes([1, 2, 3, 4])),
            client_port: 5555,
            method: "GET",
            target: b"/path?q=1",
            http2: false,
            status: 200,
            bytes: 5120,
            referer: b"-",
            user_agent: "Mozilla/5.0 (compatible; \"Quoted\"Bot/1.0)",
            duration_micros: 2_000,
            noise: 0x0123_4567_89ab_cdef,
        }
    }

    fn written(format: SynthFormat, line: &Line<'_>) -> String {
        let mut out = Vec::new();
        LineWriter::new(format, 0, 0xabc).write(line, &mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn vhost_combined_example() {
        let mut line = sample(micros("2026-11-21T04:27:15.999Z"));
        line.user_agent = "UA";
        assert_eq!(
            written(SynthFormat::VhostCombined, &line),
            "shop.example:443 1.2.3.4 - - [21/Nov/2026:04:27:15 +0000] \"GET /path?q=1 HTTP/1.1\" 200 5120 \"-\" \"UA\"\n"
        );
        assert_eq!(
            written(SynthFormat::Combined, &line),
            "1.2.3.4 - - [21/Nov/2026:04:27:15 +0000] \"GET /path?q=1 HTTP/1.1\" 200 5120 \"-\" \"UA\"\n"
        );
    }

    #[test]
    fn clf_dates_across_months_and_leap_days() {
        for (time, expected) in [
            ("2024-02-29T23:59:59Z", "29/Feb/2024:23:59:59 +0000"),
            ("2024-03-01T00:00:00Z", "01/Mar/2024:00:00:00 +0000"),
            ("1999-12-31T12:05:09Z", "31/Dec/1999:12:05:09 +0000"),
            ("1969-12-31T23:59:59Z", "31/Dec/1969:23:59:59 +0000"),
        ] {
            let mut clock = Clock::new();
            let mut out = Vec::new();
            clock.push_clf(&mut out, micros(time));
            assert_eq!(String::from_utf8_lossy(&out), expected);
            let mut iso = Vec::new();
            clock.push_iso(&mut iso, micros(time));
            let back: Timestamp = String::from_utf8_lossy(&iso).parse().unwrap_or_default();
            assert_eq!(back.as_microsecond(), micros(time));
        }
    }

    #[test]
    fn alb_line_has_the_documented_fields() {
        let line = sample(micros("2026-11-21T04:27:15.123456Z"));
        let text = written(SynthFormat::Alb, &line);
        assert!(text.starts_with(
            "https 2026-11-21T04:27:15.123456Z app/web-lb/0000000000000abc 1.2.3.4:5555 10.0.1."
        ));
        assert!(text.contains(" 200 200 "));
        assert!(
            text.contains(" 5120 \"GET https://shop.example:443/path?q=1 HTTP/1.1\" \"Mozilla/5.0")
        );
        assert!(text.contains("\"shop.example\""));
        assert!(text.ends_with("\"200\" \"-\" \"-\"\n"));
        // Request creation time: before the log time, never before the floor.
        assert!(text.contains(" 0 2026-11-21T04:27:15.12"));
    }

    #[test]
    fn caddy_line_is_json_with_the_documented_fields() {
        let mut line = sample(micros("2026-11-21T04:27:15.123456Z"));
        line.client = Address::V6(0x2001_0db8 << 96 | 1);
        line.referer = b"https://shop.example/";
        let text = written(SynthFormat::Caddy, &line);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(value["ts"].as_f64(), Some(1_795_235_235.123_456));
        assert_eq!(value["request"]["client_ip"], "2001:db8::1");
        assert_eq!(value["request"]["host"], "shop.example");
        assert_eq!(value["request"]["uri"], "/path?q=1");
        assert_eq!(
            value["request"]["headers"]["User-Agent"][0],
            line.user_agent
        );
        assert_eq!(
            value["request"]["headers"]["Referer"][0],
            "https://shop.example/"
        );
        assert!(value["request"]["tls"].is_object());
        assert_eq!(value["status"], 200);
        assert_eq!(value["size"], 5120);
    }

    #[test]
    fn addresses() {
        let mut out = Vec::new();
        push_address(&mut out, Address::V4(u32::from_be_bytes([66, 249, 64, 7])));
        out.push(b' ');
        push_address(&mut out, Address::V6(0x2001_4860_4801_0010 << 64 | 0xab));
        assert_eq!(
            String::from_utf8_lossy(&out),
            "66.249.64.7 2001:4860:4801:10::ab"
        );
    }
}
