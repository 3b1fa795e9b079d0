//! The W3C directives that lay out the data lines after them, followed from block to block by
//! the reader so that every block carries those in force before it
//! ([`Block::header`](crate::Block::header)): the last `#Fields:` line, preceded by the last
//! `#Software:` line and the last `#GMT-Offset:` line when the input has them (the writer
//! decides whether fields can be quoted; Oracle Web Cache declares its offset). A leaf below
//! the reader and the W3C parser.

use std::sync::Arc;

const FIELDS: &[u8] = b"#Fields:";
const GMT_OFFSET: &[u8] = b"#GMT-Offset:";
const SOFTWARE: &[u8] = b"#Software:";
/// The directives a header carries, in the order it holds them.
const CARRIED: [&[u8]; 3] = [SOFTWARE, GMT_OFFSET, FIELDS];
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The directives in force after `data` (whole lines), given those in force before it
/// (`previous`, as a block's header holds them); `None` when `data` changes neither.
pub(crate) fn in_force(previous: Option<&[u8]>, data: &[u8]) -> Option<Arc<[u8]>> {
    let found = CARRIED.map(|name| last_line_starting(data, name));
    if found.iter().all(Option::is_none) {
        return None;
    }
    let mut header = Vec::new();
    for (name, line) in CARRIED.into_iter().zip(found) {
        let Some(line) = line.or_else(|| previous.and_then(|p| directive(p, name))) else {
            continue;
        };
        if !header.is_empty() {
            header.push(b'\n');
        }
        header.extend_from_slice(line);
    }
    (previous != Some(&header[..])).then(|| Arc::from(header))
}

/// The `#Fields:` line of a block's header.
pub(crate) fn fields_line(header: &[u8]) -> Option<&[u8]> {
    directive(header, FIELDS)
}

/// The value of the `#GMT-Offset:` line of a block's header (`-0800`).
pub(crate) fn gmt_offset(header: &[u8]) -> Option<&[u8]> {
    directive(header, GMT_OFFSET).and_then(|line| Some(line.get(GMT_OFFSET.len()..)?.trim_ascii()))
}

/// The value of the `#Software:` line of a block's header (`Microsoft Internet Information
/// Services 10.0`).
pub(crate) fn software(header: &[u8]) -> Option<&[u8]> {
    directive(header, SOFTWARE).and_then(|line| Some(line.get(SOFTWARE.len()..)?.trim_ascii()))
}

/// The line of `header` that starts with `name`.
fn directive<'h>(header: &'h [u8], name: &[u8]) -> Option<&'h [u8]> {
    header
        .split(|&b| b == b'\n')
        .find(|line| line.starts_with(name))
}

/// The last line of `data` that starts with `name`, without its line end.
fn last_line_starting<'d>(data: &'d [u8], name: &[u8]) -> Option<&'d [u8]> {
    let starts_line = |at: usize| {
        at == 0 || data.get(at - 1) == Some(&b'\n') || (at == BOM.len() && data.starts_with(BOM))
    };
    let start = memchr::memmem::find_iter(data, name)
        .filter(|&at| starts_line(at))
        .last()?;
    let rest = data.get(start..).unwrap_or_default();
    let line = memchr::memchr(b'\n', rest).map_or(rest, |end| rest.get(..end).unwrap_or_default());
    Some(line.strip_suffix(b"\r").unwrap_or(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_carry_from_block_to_block() {
        type Step = (&'static [u8], Option<&'static [u8]>);
        let steps: &[Step] = &[
            (b"1 2\n", None),
            (b"#Fields: a b\n1 2\n", Some(b"#Fields: a b")),
            (b"1 2\n", Some(b"#Fields: a b")),
            (
                b"#GMT-Offset: -0800\r\n3 4\n",
                Some(b"#GMT-Offset: -0800\n#Fields: a b"),
            ),
            (b"#Fields: c\n5\n", Some(b"#GMT-Offset: -0800\n#Fields: c")),
            (b"x #Fields: d\n", Some(b"#GMT-Offset: -0800\n#Fields: c")),
            (
                b"\xEF\xBB\xBF#GMT-Offset: +0100\n",
                Some(b"#GMT-Offset: +0100\n#Fields: c"),
            ),
            (
                b"#Software: x\r\n#Fields: c\n",
                Some(b"#Software: x\n#GMT-Offset: +0100\n#Fields: c"),
            ),
            (
                b"6\n",
                Some(b"#Software: x\n#GMT-Offset: +0100\n#Fields: c"),
            ),
        ];
        let mut header: Option<Arc<[u8]>> = None;
        for &(data, want) in steps {
            if let Some(new) = in_force(header.as_deref(), data) {
                header = Some(new);
            }
            assert_eq!(header.as_deref(), want, "{}", String::from_utf8_lossy(data));
        }
        let header = header.unwrap();
        assert_eq!(fields_line(&header), Some(&b"#Fields: c"[..]));
        assert_eq!(gmt_offset(&header), Some(&b"+0100"[..]));
        assert_eq!(software(&header), Some(&b"x"[..]));
        assert_eq!(in_force(Some(&header), b"#GMT-Offset: +0100\n"), None);
    }
}
