//! The ASCII whitespace of Google's parser, shared by the line parser, the extension
//! directives and group selection. Bytes only: nothing here looks at UTF-8.

/// ASCII whitespace as `absl::ascii_isspace` and C `isspace` see it: SP, HT, LF, VT, FF, CR.
pub(crate) fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// Strips [`is_space`] bytes at both ends.
pub(crate) fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !is_space(*b))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !is_space(*b))
        .map_or(start, |last| last + 1);
    bytes.get(start..end).unwrap_or_default()
}
