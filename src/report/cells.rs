//! Cells an analyst opens in a spreadsheet: the one rule every CSV of the tool follows.
//!
//! Spreadsheet programs evaluate a cell that starts with `=`, `+`, `-`, `@`, TAB or CR as a
//! formula (OWASP, "CSV Injection"): a user-agent `=HYPERLINK(...)` becomes a link, `=1+1` is
//! computed. Logs and robots.txt files are written by whoever sends requests, so by default:
//!
//! 1. every control byte (0x00 to 0x1F, and 0x7F) of a cell is written visibly as `\xHH` (two
//!    lower-case hex digits: a NUL is `\x00`, a TAB `\x09`), and every other character a
//!    terminal acts on or that reorders the text around it (a C1 control, a bidirectional
//!    control, the line and paragraph separators: [`is_hidden`]) as `\u{H..}` (`\u{9b}`,
//!    `\u{202e}`), as the terminal and the page show them (`src/shown.rs`), so no cell holds a
//!    character a spreadsheet or a terminal acts on (`cat violations.csv`); this comes first,
//!    so a TAB or CR never starts a cell;
//! 2. a cell that then starts with `=`, `+`, `-` or `@`, after any spaces, and is not a number,
//!    gets a leading `'`, which spreadsheets read as "text" and do not show. A lone `-` or `+`
//!    (the logs' own mark of a missing field) computes nothing and is left as it is.
//!
//! Numbers, times and fixed words the tool writes never start with one of those, except a
//! negative number and a time before year 1 (`-000249-10-15T19:33:20Z`), which compute nothing
//! and are left as they are. `--raw-csv` writes cells as read, for pipelines
//! that want the bytes; it is a setting of the state, so `merge` never mixes the two.

use std::borrow::Cow;
use std::io::Write as _;

use crate::shown::{Escaped, is_hidden};

/// Whether `byte` is a control byte, written visibly.
#[inline]
pub fn is_control(byte: u8) -> bool {
    byte < 0x20 || byte == 0x7F
}

/// Whether `cell` (its control bytes already written visibly) would be read as a formula.
#[inline]
pub fn starts_formula(cell: &[u8]) -> bool {
    // Some programs and import dialogs trim a cell's leading spaces before they look at it, so
    // ` =1+1` counts as the formula it becomes there.
    let first = cell.iter().position(|&b| b != b' ').unwrap_or(cell.len());
    let cell = &cell[first..];
    matches!(
        cell.first(),
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
    ) && !matches!(cell, b"-" | b"+")
        && !is_number(cell)
        && !is_early_time(cell)
}

/// `-000249-10-15T19:33:20Z`: a time before year 1 as RFC 3339 (jiff) writes it, with a sign
/// and six digits of year. The tool writes times itself, in the streamed reports without the
/// rule; this shape computes nothing (digits, `-`, `:`, `T`, `Z`), so every report writes such
/// a time alike, as a number is.
fn is_early_time(cell: &[u8]) -> bool {
    const SHAPE: &[u8] = b"-000000-00-00T00:00:00";
    let Some((head, rest)) = cell.split_at_checked(SHAPE.len()) else {
        return false;
    };
    let fits = head.iter().zip(SHAPE).all(|(&b, &s)| {
        if s == b'0' {
            b.is_ascii_digit()
        } else {
            b == s
        }
    });
    let fraction = match rest {
        [b'.', digits @ .., b'Z'] => digits,
        [b'Z'] => &[b'0'][..],
        _ => &[][..],
    };
    fits && !fraction.is_empty() && fraction.iter().all(u8::is_ascii_digit)
}

/// `-12`, `+3.5`: a number, which a spreadsheet reads as one, not as a formula.
fn is_number(cell: &[u8]) -> bool {
    let digits = match cell {
        [b'-' | b'+', rest @ ..] => rest,
        _ => cell,
    };
    let (whole, fraction) = match digits.iter().position(|&b| b == b'.') {
        Some(dot) => (&digits[..dot], Some(&digits[dot + 1..])),
        None => (digits, None),
    };
    !whole.is_empty()
        && whole.iter().all(u8::is_ascii_digit)
        && fraction.is_none_or(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
}

/// Whether `cell` holds a character above ASCII that is written visibly ([`is_hidden`]). Each
/// such character's UTF-8 starts with 0xC2 (C1), 0xD8 (U+061C) or 0xE2 (the others): a cell
/// without those bytes is not decoded.
#[inline]
pub fn has_hidden(cell: &[u8]) -> bool {
    cell.iter().any(|&b| matches!(b, 0xC2 | 0xD8 | 0xE2))
        && cell
            .utf8_chunks()
            .any(|chunk| chunk.valid().chars().any(|c| !c.is_ascii() && is_hidden(c)))
}

/// Whether the rule writes `cell` other than as it is.
#[inline]
pub fn changes(cell: &[u8]) -> bool {
    cell.iter().any(|&b| is_control(b)) || has_hidden(cell) || starts_formula(cell)
}

/// `cell` as the rule writes it: control bytes as `\xHH`, then a `'` before a formula. Borrows
/// `cell` when nothing changes.
pub fn safe(cell: &[u8]) -> Cow<'_, [u8]> {
    if !changes(cell) {
        return Cow::Borrowed(cell);
    }
    let mut out = Vec::with_capacity(cell.len() + 8);
    write_safe(cell, &mut out);
    Cow::Owned(out)
}

/// Appends `cell` to `out` as the rule writes it.
pub fn write_safe(cell: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    for chunk in cell.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_hidden(c) {
                // Writing to a Vec cannot fail.
                let _ = write!(out, "{}", Escaped(c));
            } else {
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
        }
        out.extend_from_slice(chunk.invalid());
    }
    if starts_formula(&out[start..]) {
        out.insert(start, b'\'');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_get_a_quote_and_control_bytes_are_written_visibly() {
        let cases: [(&[u8], &[u8]); 30] = [
            (b"Mozilla/5.0", b"Mozilla/5.0"),
            (
                b"=HYPERLINK(\"http://x\",\"y\")",
                b"'=HYPERLINK(\"http://x\",\"y\")",
            ),
            (b"=1+1", b"'=1+1"),
            (b"+1", b"+1"),
            (b"+1+1", b"'+1+1"),
            (b"-12.5", b"-12.5"),
            (b"-x", b"'-x"),
            (b"@SUM(A1)", b"'@SUM(A1)"),
            (b"\tcmd", b"\\x09cmd"),
            (b"\r=1", b"\\x0d=1"),
            (b"a\x00b\x7f", b"a\\x00b\\x7f"),
            (b"\x1b[31m", b"\\x1b[31m"),
            (b"", b""),
            (b"-", b"-"),
            (b" =1+1", b"' =1+1"),
            (b"   @SUM(A1)", b"'   @SUM(A1)"),
            (b" -12", b" -12"),
            (b" -", b" -"),
            (b" a=1", b" a=1"),
            (b"   ", b"   "),
            ("a\u{9b}31m".as_bytes(), b"a\\u{9b}31m"),
            (
                "\u{202e}21 \u{2028}\u{61c}".as_bytes(),
                b"\\u{202e}21 \\u{2028}\\u{61c}",
            ),
            ("\u{85}=1".as_bytes(), b"\\u{85}=1"),
            (
                "caf\u{e9} \u{2014}".as_bytes(),
                "caf\u{e9} \u{2014}".as_bytes(),
            ),
            (b"\xc2\xff\x1b", b"\xc2\xff\\x1b"),
            (b"-000249-10-15T19:33:20Z", b"-000249-10-15T19:33:20Z"),
            (b"-000249-10-15T19:33:20.5Z", b"-000249-10-15T19:33:20.5Z"),
            (b"-000249-10-15T19:33:20.Z", b"'-000249-10-15T19:33:20.Z"),
            (b"-000249-10-15T19:33:20Z+1", b"'-000249-10-15T19:33:20Z+1"),
            (b"-0249-10-15T19:33:20Z", b"'-0249-10-15T19:33:20Z"),
        ];
        for (cell, written) in cases {
            assert_eq!(
                safe(cell).as_ref(),
                written,
                "{}",
                String::from_utf8_lossy(cell)
            );
        }
    }

    proptest::proptest! {
        /// Whatever a cell holds, what is written has no control byte and starts no formula.
        #[test]
        fn no_cell_holds_a_control_byte_or_starts_a_formula(
            spaces in 0usize..3,
            prefix in proptest::sample::select(vec![b'=', b'+', b'-', b'@', b'\t', b'\r', b'a', b'1', 0u8, 0x7f, 0xc2]),
            // Any byte, and often the bytes of C1 and bidirectional controls (U+009B: C2 9B,
            // U+202E: E2 80 AE).
            rest in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::num::u8::ANY,
                    proptest::sample::select(vec![0x80, 0x9b, 0xc2, 0xe2, 0xae]),
                ],
                0..20,
            ),
        ) {
            let mut cell = vec![b' '; spaces];
            cell.push(prefix);
            cell.extend(rest);
            let written = safe(&cell);
            proptest::prop_assert!(!written.iter().any(|&b| is_control(b)));
            proptest::prop_assert!(!has_hidden(&written));
            proptest::prop_assert!(!starts_formula(&written));
            if !changes(&cell) {
                proptest::prop_assert_eq!(written.as_ref(), cell.as_slice());
            }
        }
    }
}
