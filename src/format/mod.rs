//! `--format`: what kind of records a stream holds, so that no cut lands
//! inside one. `text` is the core's lines and bytes; each other format is
//! one room here behind one trait, [`Reading`]: what a record boundary is
//! (`diff`: files and hunks, `csv`: rows, [`records`] what they share) and
//! how the left-out middle is described ([`FormatReport`]). `json` has no
//! boundaries: it holds the whole document (up to `--json-limit`) and
//! shortens it inside; `auto` is `json`, then `diff`, then `text`.
//!
//! A format reads the stream beside the capper and never sees its
//! buffers: the stream hands it the bytes, tells it what the capper let go
//! of, gives the capper its boundaries and, at the end, the cut. It may
//! import `cut`, `measure`, `transform` and the leaves; not `capture`,
//! `report`, `render` or `run`, which come after it.

mod auto;
mod csv;
mod diff;
mod json;
mod records;

pub use csv::CsvReport;
pub use diff::DiffReport;
pub(crate) use diff::NAMED_FILES;
pub use json::JsonReport;

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

/// What `--format` made of a stream: which format applied, and the facts
/// its output shows beyond the core's (SPEC.md, "Formats").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatReport {
    /// Capped as text: `--format text`, or `auto` found nothing else.
    #[default]
    Text,
    /// A valid JSON document.
    Json(JsonReport),
    /// `--format json` on a stream that is not a JSON document within
    /// `--json-limit` (or whose shortest form is over the budget): capped
    /// as text, for this reason (the header names it when cut).
    NotJson(String),
    /// A unified diff, cut at hunk or file boundaries.
    Diff(DiffReport),
    /// Comma-separated values, cut at rows.
    Csv(CsvReport),
}

impl FormatReport {
    /// The format that applied: `text`, `json`, `diff` or `csv`.
    pub fn name(&self) -> &'static str {
        match self {
            FormatReport::Text | FormatReport::NotJson(_) => "text",
            FormatReport::Json(_) => "json",
            FormatReport::Diff(_) => "diff",
            FormatReport::Csv(_) => "csv",
        }
    }
}

/// A format at work on one stream, beside the capper.
pub(crate) trait Reading: Send {
    /// The raw stream's next bytes, before cleaning: a document is the raw
    /// stream (a fold marker inside it would make it invalid JSON, issue
    /// 21).
    fn raw(&mut self, _chunk: &[u8]) {}

    /// The capped stream's next bytes (after cleaning); the capper has let
    /// go of every byte before `evicted_to`, which is the cut middle for
    /// sure.
    fn capped(&mut self, _chunk: &[u8], _evicted_to: u64) {}

    /// The stream has ended: where records start after its first byte,
    /// sorted (the boundaries a cut may move to); `None` when the format
    /// has none or does not apply (`auto` on a stream that is no diff).
    fn boundaries(&mut self) -> Option<Vec<u64>> {
        None
    }

    /// At most how many bytes the format prints between the head and the
    /// tail of a cut stream (CSV's header row, repeated), which the cut
    /// leaves room for within the budget; called after
    /// [`boundaries`](Reading::boundaries).
    fn reprinted(&self) -> u64 {
        0
    }

    /// What the format makes of the capped stream.
    fn finish(self: Box<Self>, capped: Capped<'_>) -> Verdict;
}

/// What the capper made of the stream, for [`Reading::finish`].
#[derive(Clone, Copy)]
pub(crate) struct Capped<'a> {
    /// The cut B[h:t], when it was cut.
    pub(crate) cut: Option<(u64, u64)>,
    /// B[0:h] when cut, otherwise all of B.
    pub(crate) head: &'a [u8],
    /// The raw stream's length, before cleaning.
    pub(crate) raw_bytes: u64,
}

/// What the output is, by the format.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The capped stream, as the capper cut it.
    Capped(FormatReport),
    /// A JSON document instead of head, marker and tail: `whole` when it
    /// fits (then the report holds no shortened document), else empty.
    Document { whole: Vec<u8>, report: JsonReport },
}

/// The format of one stream at work, or `None` for `text`. `budget` is
/// the stream's budget in bytes (what a document is shortened to),
/// `head_reach` the capper's head buffer capacity (record starts before
/// it are kept whatever the ring lets go of).
pub(crate) fn reading(plan: FormatPlan, budget: u64, head_reach: u64) -> Option<Box<dyn Reading>> {
    let document = || json::Document::new(plan, budget);
    match plan.format {
        Format::Text => None,
        Format::Json => Some(Box::new(document())),
        Format::Diff => Some(Box::new(diff::Diff::new(false, head_reach))),
        Format::Csv => Some(Box::new(csv::Csv::new(head_reach))),
        Format::Auto => Some(Box::new(auto::Auto::new(
            document(),
            diff::Diff::new(true, head_reach),
        ))),
    }
}
