//! The `#Fields:` directive of W3C extended logs and CloudFront logs: which column holds what.

/// Columns past this many are ignored; real layouts have at most about forty.
const MAX_COLUMNS: usize = 64;

/// What a column holds, as far as a request needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Column {
    Ignored,
    Date,
    Time,
    /// IIS Advanced Logging's `date-local`: the server's local date, no zone written.
    LocalDate,
    /// IIS Advanced Logging's `time-local`.
    LocalTime,
    ClientIp,
    Method,
    UriStem,
    UriQuery,
    /// `cs-uri`: stem and query together.
    Uri,
    Status,
    Bytes,
    UserAgent,
    /// `cs-host` / `cs(Host)`: the Host header (for CloudFront, the distribution's name).
    Host,
    /// CloudFront `x-host-header`: the Host header the viewer sent.
    HostHeader,
    Port,
    /// CloudFront `cs-protocol`: the scheme.
    Scheme,
}

/// How many [`Column`] kinds there are, for arrays indexed by kind.
pub(crate) const COLUMN_KINDS: usize = Column::Scheme as usize + 1;

impl Column {
    fn named(name: &[u8]) -> Column {
        let mut lower = [0u8; 24];
        let Some(lower) = lower.get_mut(..name.len()) else {
            return Column::Ignored;
        };
        lower.copy_from_slice(name);
        lower.make_ascii_lowercase();
        match &*lower {
            b"date" => Column::Date,
            b"time" => Column::Time,
            b"date-local" => Column::LocalDate,
            b"time-local" => Column::LocalTime,
            b"c-ip" => Column::ClientIp,
            b"cs-method" => Column::Method,
            b"cs-uri-stem" => Column::UriStem,
            b"cs-uri-query" => Column::UriQuery,
            b"cs-uri" => Column::Uri,
            b"sc-status" => Column::Status,
            b"sc-bytes" => Column::Bytes,
            // Oracle Web Cache writes request headers as `csUser-Agent`, `csHost`.
            b"cs(user-agent)" | b"csuser-agent" => Column::UserAgent,
            b"cs-host" | b"cs(host)" | b"cshost" => Column::Host,
            b"x-host-header" => Column::HostHeader,
            b"s-port" => Column::Port,
            b"cs-protocol" => Column::Scheme,
            _ => Column::Ignored,
        }
    }
}

/// The columns of one `#Fields:` line. Fixed size, so that a block state holding one costs no
/// allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    columns: [Column; MAX_COLUMNS],
    len: usize,
}

impl Layout {
    /// The layout of a `#Fields:` line (the directive itself included or not).
    pub(crate) fn parse(fields_line: &[u8]) -> Layout {
        let names = fields_line.strip_prefix(b"#Fields:").unwrap_or(fields_line);
        let mut layout = Layout {
            columns: [Column::Ignored; MAX_COLUMNS],
            len: 0,
        };
        let names = names
            .split(|b| b.is_ascii_whitespace())
            .filter(|name| !name.is_empty());
        for (slot, name) in layout.columns.iter_mut().zip(names) {
            *slot = Column::named(name);
            layout.len += 1;
        }
        layout
    }

    /// Whether the `#Fields:` line may have named more columns than the layout keeps.
    pub(crate) fn may_be_cut(&self) -> bool {
        self.len == MAX_COLUMNS
    }

    /// The columns in order.
    pub(crate) fn columns(&self) -> &[Column] {
        self.columns.get(..self.len).unwrap_or_default()
    }
}

/// One value per [`Column`] kind, filled from a line's fields.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Values<'a> {
    values: [Option<&'a [u8]>; COLUMN_KINDS],
    /// The W3C user-agent field was quoted (so its spaces are real and `+` is a plus).
    pub(crate) agent_quoted: bool,
}

impl<'a> Values<'a> {
    pub(crate) fn set(&mut self, column: Column, value: &'a [u8]) {
        if let Some(slot) = self.values.get_mut(column as usize) {
            *slot = Some(value);
        }
    }

    /// The column's value; `None` when it is missing, empty or `-`.
    pub(crate) fn get(&self, column: Column) -> Option<&'a [u8]> {
        self.values
            .get(column as usize)
            .copied()
            .flatten()
            .filter(|v| !v.is_empty() && *v != b"-")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_iis_default_layout() {
        let layout = Layout::parse(b"#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status");
        use Column::*;
        assert_eq!(
            layout.columns(),
            [
                Date, Time, Ignored, Method, UriStem, UriQuery, Port, Ignored, ClientIp, UserAgent,
                Ignored, Status
            ]
        );
    }

    #[test]
    fn caps_the_column_count_and_ignores_long_names() {
        let many = format!("#Fields: {} date", "x ".repeat(100));
        let layout = Layout::parse(many.as_bytes());
        assert_eq!(layout.columns().len(), MAX_COLUMNS);
        assert!(!layout.columns().contains(&Column::Date));
        let long = Layout::parse(b"#Fields: cs(a-very-long-header-name-indeed) date");
        assert_eq!(long.columns(), [Column::Ignored, Column::Date]);
    }

    #[test]
    fn dashes_are_empty() {
        let mut values = Values::default();
        values.set(Column::UriQuery, b"-");
        values.set(Column::UriStem, b"/a");
        assert_eq!(values.get(Column::UriQuery), None);
        assert_eq!(values.get(Column::UriStem), Some(&b"/a"[..]));
        assert_eq!(values.get(Column::Date), None);
    }
}
