//! `--format`: what kind of records a stream holds, so that no cut lands
//! inside one. `text` is the core's lines and bytes; `diff` and `csv` move
//! the cuts to record boundaries as the stream passes (the scanners are in
//! [`cut`](crate::cut), the boundaries they find are kept by
//! [`capture`](crate::capture)); `json` holds the whole document (up to
//! `--json-limit`) and shortens it inside, in [`json`].

pub(crate) mod json;

/// `--json-limit` when not given: documents up to this size are parsed.
pub const DEFAULT_JSON_LIMIT: u64 = 64 << 20;

/// `--format`: how a stream is read to decide where cuts may land.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Lines and bytes, as the core cuts them (the default).
    #[default]
    Text,
    /// One JSON document, shortened inside until it fits.
    Json,
    /// A unified diff: cuts at hunk or file boundaries.
    Diff,
    /// Comma-separated values: cuts at rows, the header row repeated.
    Csv,
    /// `json` for a document that parses, `diff` for a stream that starts
    /// like one, else `text`.
    Auto,
}

impl Format {
    /// Whether it may hold a whole JSON document.
    pub(crate) fn may_be_json(self) -> bool {
        matches!(self, Format::Json | Format::Auto)
    }

    /// The name `--format` gives it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Diff => "diff",
            Format::Csv => "csv",
            Format::Auto => "auto",
        }
    }
}

/// How a stream is formatted: the format and its JSON settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FormatPlan {
    pub(crate) format: Format,
    /// `--json-limit`.
    pub(crate) json_limit: u64,
    /// `--pretty`: a shortened document is printed pretty whatever the
    /// input looked like.
    pub(crate) pretty: bool,
}

impl Default for FormatPlan {
    fn default() -> FormatPlan {
        FormatPlan {
            format: Format::Text,
            json_limit: DEFAULT_JSON_LIMIT,
            pretty: false,
        }
    }
}

/// Whether a stream that starts with `start` is a diff, for `auto`.
pub(crate) fn starts_like_diff(start: &[u8]) -> bool {
    start.starts_with(b"diff --git") || start.starts_with(b"--- ")
}

/// How many first bytes [`starts_like_diff`] looks at.
pub(crate) const DIFF_SNIFF: usize = b"diff --git".len();
