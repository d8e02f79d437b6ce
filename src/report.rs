//! The plain facts of a run: what each stream held and where it was cut,
//! where the full output went, how the command ended, and what went wrong.
//!
//! A [`Report`] is data only: renderers turn it into text (see
//! [`render`](crate::render())), and nothing here writes anything.

use std::collections::BTreeMap;
use std::time::Duration;

/// Where a stream was cut is the capper's to say, and what `--format`
/// made of it the format's; a report carries both.
pub use crate::capture::{Cut, KeptLines};
use crate::error::Problem;
pub use crate::format::{CsvReport, DiffReport, FormatReport, JsonReport};
use crate::measure::Tokenizer;
pub use crate::spill::SpillReport;

/// Everything a run of toolcap came to.
#[derive(Debug)]
#[non_exhaustive]
pub struct Report {
    /// The main stream: the inputs in filter mode; the command's stdout (or
    /// stdout and stderr merged) in wrap mode.
    pub output: StreamReport,
    /// The command's stderr, capped on its own (`--stderr separate`).
    pub stderr: Option<StreamReport>,
    /// In wrap mode, how the command ended.
    pub child: Option<ChildReport>,
    /// In filter mode, the signal that stopped the reading early, if one
    /// did: the totals are then those of what was read.
    pub interrupted_by: Option<i32>,
    /// Failures that did not stop the run; each one fails it.
    pub problems: Vec<Problem>,
    /// Failures that lost nothing (a spill file that was not needed).
    pub warnings: Vec<Problem>,
    /// The profile whose options the run used (`--profile`).
    pub profile: Option<String>,
    /// `--show ID --grep`: no line matched, so nothing was printed (the
    /// command line exits 1, as grep does).
    pub no_match: bool,
}

impl Report {
    /// A run that capped nothing (a store command).
    pub(crate) fn empty() -> Report {
        Report {
            output: StreamReport::empty(),
            stderr: None,
            child: None,
            interrupted_by: None,
            problems: Vec::new(),
            warnings: Vec::new(),
            profile: None,
            no_match: false,
        }
    }
}

impl StreamReport {
    fn empty() -> StreamReport {
        StreamReport {
            bytes: 0,
            lines: 0,
            newlines: 0,
            tokens: 0,
            tokens_estimated: false,
            head: Vec::new(),
            tail: Vec::new(),
            cut: None,
            kept: Vec::new(),
            hidden_matches: 0,
            hidden_errors: 0,
            raw_bytes: 0,
            cleaned: false,
            redacted: None,
            chars: None,
            spill: None,
            spill_note: false,
            format: FormatReport::Text,
            look: Look::default(),
        }
    }
}

/// One capped stream: its totals, the kept head and tail, and the cut.
/// B is the stream the budget applied to: the input, after cleaning when
/// cleaning was asked for; line numbers in [`Cut`] and [`KeptLines`] are
/// those of the raw input.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamReport {
    /// n: its length in bytes.
    pub bytes: u64,
    /// L: its number of `\n`, plus 1 if it is non-empty and does not end
    /// in `\n`.
    pub lines: u64,
    /// Its number of `\n` (what `--style verifiers` counts lines by).
    pub newlines: u64,
    /// The header's token count: ceil(n / 4), or with a real tokenizer its
    /// count of B.
    pub tokens: u64,
    /// Whether `tokens` is an estimate (shown as `~N`): a real count
    /// extrapolated past `--count-limit`, or taken in pieces that a
    /// tokenizer might have joined (a stretch of over 1 MiB with no line
    /// break or space to split at).
    pub tokens_estimated: bool,
    /// The head: `B[0:h]` when cut, otherwise all of B.
    pub head: Vec<u8>,
    /// The tail: `B[t:n]` when cut, otherwise empty.
    pub tail: Vec<u8>,
    /// Where B was cut; `None` when it fitted the budget.
    pub cut: Option<Cut>,
    /// Lines of the cut middle kept by `--keep`, in order: each block is
    /// shown between the markers of the gaps around it.
    pub kept: Vec<KeptLines>,
    /// Matching lines of the middle that did not fit `--keep-max`.
    pub hidden_matches: u64,
    /// Of those, the error lines (`--keep-errors`, `--keep-error`).
    pub hidden_errors: u64,
    /// The stream as read, before cleaning: its length in bytes.
    pub raw_bytes: u64,
    /// Whether cleaning changed the stream (then B is the cleaned stream).
    pub cleaned: bool,
    /// With `--redact`: how many secrets of each kind were redacted.
    pub redacted: Option<BTreeMap<String, u64>>,
    /// The characters of B (bytes that are not UTF-8 continuation bytes),
    /// when the output needed them (`--style codex`, `{omitted_chars}`).
    pub chars: Option<u64>,
    /// Where the full stream went, when it was spilled.
    pub spill: Option<SpillReport>,
    /// Whether the output, not cut but condensed, ends with a line naming
    /// the spill file its fold and squeeze markers name raw lines of.
    pub(crate) spill_note: bool,
    /// What `--format` made of it.
    pub format: FormatReport,
    /// How it is rendered: as the plan it was capped by says, so that
    /// rendering needs nothing else (a marker that counts characters
    /// always finds them counted).
    pub(crate) look: Look,
}

/// How a stream's report is rendered, fixed when its options were
/// compiled (see `Plan::compile`): the header, the templates, the style,
/// the profile the header's line on cleaning names, and what a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Look {
    /// `--no-header` when false.
    pub(crate) header: bool,
    /// `--header` and `--marker`, as given (checked by the plan).
    pub(crate) header_template: Option<String>,
    pub(crate) marker_template: Option<String>,
    /// `--style codex`.
    pub(crate) codex: Option<CodexMarker>,
    /// `--style verifiers`.
    pub(crate) verifiers: Option<VerifiersCut>,
    /// `--profile`.
    pub(crate) profile: Option<String>,
    /// `--tokenizer`, which the token counts are in.
    pub(crate) tokenizer: Tokenizer,
}

impl Default for Look {
    fn default() -> Look {
        Look {
            header: true,
            header_template: None,
            marker_template: None,
            codex: None,
            verifiers: None,
            profile: None,
            tokenizer: Tokenizer::Approx,
        }
    }
}

impl Look {
    /// Whether the marker's wording is the user's (`--marker`), codex's
    /// or verifiers'.
    pub(crate) fn has_own_marker(&self) -> bool {
        self.marker_template.is_some() || self.codex.is_some() || self.verifiers.is_some()
    }
}

/// `--style verifiers`: what verifiers 0.4.0's `truncate_tool_output`
/// keeps of a text over its budget M.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VerifiersCut {
    /// floor(M/2): the bytes kept each side, less a character they split.
    pub(crate) keep: u64,
}

/// What codex's marker counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CodexMarker {
    /// `…{C} chars truncated…`, the characters left out (under `--max`).
    Chars,
    /// `…{ceil((n - M)/4)} tokens truncated…` (under `--tokens`), M being
    /// the budget in bytes.
    Tokens { budget: u64 },
}

impl StreamReport {
    /// Whether the output is not the stream as it was: its middle was cut
    /// out, or a JSON document was shortened.
    pub fn truncated(&self) -> bool {
        self.cut.is_some() || self.shortened_json().is_some()
    }

    /// The shortened JSON document printed in place of head, marker and
    /// tail, if `--format json` made one.
    pub fn shortened_json(&self) -> Option<&[u8]> {
        match &self.format {
            FormatReport::Json(json) => json.shortened.as_deref(),
            _ => None,
        }
    }
}

/// How a wrapped command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChildReport {
    /// Its exit.
    pub exit: ChildExit,
    /// `Some(limit)` when `--timeout` stopped it.
    pub timed_out_after: Option<Duration>,
    /// From start to exit.
    pub duration: Duration,
}

impl ChildReport {
    /// The status a shell would report: the exit status, 128+N after
    /// signal N, 124 after `--timeout`, 127 for a program not found, 126
    /// for one that cannot be executed, 125 when its status is unknown.
    pub fn status(&self) -> i32 {
        if self.timed_out_after.is_some() {
            return 124;
        }
        match self.exit {
            ChildExit::Exited(code) => code,
            ChildExit::Signaled(signal) => 128 + signal,
            ChildExit::NotFound => 127,
            ChildExit::NotExecutable => 126,
            // toolcap could not learn it.
            ChildExit::Unknown => 125,
        }
    }
}

/// How a command's process ended, as wait(2) tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChildExit {
    /// It exited with this status.
    Exited(i32),
    /// It was killed by this signal.
    Signaled(i32),
    /// It could not be started: no such program.
    NotFound,
    /// It could not be started: not executable (or another exec failure).
    NotExecutable,
    /// It ended, but its status was taken by something else in the
    /// embedding program (see [`Problem::StatusLost`]).
    Unknown,
}
