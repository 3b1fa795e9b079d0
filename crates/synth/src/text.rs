//! Allocation-free formatting into a reused byte buffer: the generator writes millions of lines
//! per second, and `format!`/`write!` cost more than the rest of a line together.

/// Appends `value` in decimal.
pub(crate) fn push_u64(out: &mut Vec<u8>, value: u64) {
    const PAIRS: &[u8; 200] = b"\
        0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = value;
    // Two digits per division: this runs several times per generated line.
    while rest >= 100 {
        let pair = (rest % 100) as usize * 2;
        rest /= 100;
        start -= 2;
        digits[start..start + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if rest >= 10 {
        let pair = rest as usize * 2;
        start -= 2;
        digits[start..start + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        start -= 1;
        // A single digit: the cast cannot truncate.
        digits[start] = b'0' + rest as u8;
    }
    out.extend_from_slice(&digits[start..]);
}

/// Appends `value` in decimal, left-padded with zeros to at least `width` digits.
pub(crate) fn push_u64_padded(out: &mut Vec<u8>, value: u64, width: usize) {
    let mut digits = 1;
    let mut rest = value / 10;
    while rest > 0 {
        digits += 1;
        rest /= 10;
    }
    out.extend(std::iter::repeat_n(b'0', width.saturating_sub(digits)));
    push_u64(out, value);
}

/// Appends the low `digits` hex digits of `value` (lower case), most significant first.
pub(crate) fn push_hex(out: &mut Vec<u8>, value: u64, digits: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for i in (0..digits.min(16)).rev() {
        // Masked to 4 bits, so the index is always inside HEX.
        out.push(HEX[((value >> (i * 4)) & 0xf) as usize]);
    }
}

/// Appends `value` as the inside of a JSON string (quotes not included).
pub(crate) fn push_json_escaped(out: &mut Vec<u8>, value: &[u8]) {
    for &byte in value {
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x00..=0x1f => {
                out.extend_from_slice(b"\\u00");
                push_hex(out, u64::from(byte), 2);
            }
            _ => out.push(byte),
        }
    }
}

/// Appends a duration given in microseconds as seconds with `decimals` (1..=6) decimals,
/// e.g. `1234` with 3 decimals is `0.001`.
pub(crate) fn push_seconds(out: &mut Vec<u8>, micros: u64, decimals: u32) {
    let decimals = decimals.clamp(1, 6);
    let scale = 10u64.pow(6 - decimals);
    let scaled = micros / scale;
    let unit = 10u64.pow(decimals);
    push_u64(out, scaled / unit);
    out.push(b'.');
    push_u64_padded(out, scaled % unit, decimals as usize);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        f(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn decimal_examples() {
        for (value, expected) in [(0, "0"), (7, "7"), (10, "10"), (5120, "5120")] {
            assert_eq!(run(|o| push_u64(o, value)), expected);
        }
        assert_eq!(run(|o| push_u64(o, u64::MAX)), u64::MAX.to_string());
    }

    #[test]
    fn padded_examples() {
        for (value, width, expected) in [
            (4, 2, "04"),
            (12, 2, "12"),
            (123, 2, "123"),
            (0, 3, "000"),
            (5, 6, "000005"),
        ] {
            assert_eq!(run(|o| push_u64_padded(o, value, width)), expected);
        }
    }

    #[test]
    fn hex_examples() {
        assert_eq!(run(|o| push_hex(o, 0x3f2a, 4)), "3f2a");
        assert_eq!(run(|o| push_hex(o, 0x3f2a, 6)), "003f2a");
        assert_eq!(run(|o| push_hex(o, 0xabcdef, 2)), "ef");
    }

    #[test]
    fn json_escape_examples() {
        assert_eq!(run(|o| push_json_escaped(o, b"a\"b\\c")), "a\\\"b\\\\c");
        assert_eq!(run(|o| push_json_escaped(o, b"\n\x01")), "\\u000a\\u0001");
        assert_eq!(
            run(|o| push_json_escaped(o, b"plain/ua 1.0")),
            "plain/ua 1.0"
        );
    }

    #[test]
    fn seconds_examples() {
        for (micros, decimals, expected) in [
            (1_234, 3, "0.001"),
            (2_500_000, 3, "2.500"),
            (1_716_723_772_601_480, 6, "1716723772.601480"),
            (17_557, 6, "0.017557"),
        ] {
            assert_eq!(run(|o| push_seconds(o, micros, decimals)), expected);
        }
    }

    proptest! {
        #[test]
        fn decimal_matches_std(value: u64, width in 0usize..25) {
            prop_assert_eq!(run(|o| push_u64(o, value)), value.to_string());
            prop_assert_eq!(run(|o| push_u64_padded(o, value, width)), format!("{value:0width$}"));
        }

        #[test]
        fn hex_matches_std(value: u64) {
            prop_assert_eq!(run(|o| push_hex(o, value, 16)), format!("{value:016x}"));
        }

        #[test]
        fn json_escaped_round_trips(value: String) {
            let escaped = run(|o| push_json_escaped(o, value.as_bytes()));
            let parsed: String = serde_json::from_str(&format!("\"{escaped}\"")).unwrap_or_default();
            prop_assert_eq!(parsed, value);
        }
    }
}
