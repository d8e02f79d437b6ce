//! `--json`: the report of a run as one JSON object on one line. Its
//! `output` is exactly the text toolcap would have printed (invalid UTF-8
//! replaced by U+FFFD); the other fields are the report's facts. Fields
//! are only ever added, never renamed (SPEC.md, "JSON report").

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::text::{self, HeaderPlace, TextStyle};
use crate::error::Error;
use crate::report::{ChildExit, FormatReport, Report, SpillReport, StreamReport};

/// How the text inside the report is laid out, as the text mode would:
/// each stream in the style it carries.
pub(crate) struct Layout {
    /// `--tokenizer`, which the token counts are in.
    pub(crate) tokenizer: &'static str,
    /// Wrap mode's status line after the output.
    pub(crate) status_line: bool,
    /// The style and header of each stream (a separate stderr may have
    /// its own budget, which codex's marker names).
    pub(crate) output_style: (TextStyle, HeaderPlace),
    pub(crate) stderr_style: (TextStyle, HeaderPlace),
}

impl Layout {
    /// The layout of `report`, whose streams carry their style (with
    /// `--profile auto`, that of the profile the input chose), with wrap
    /// mode's status line when `status_line`.
    pub(crate) fn of(status_line: bool, report: &Report) -> Result<Layout, Error> {
        let style = |stream: &StreamReport| -> Result<(TextStyle, HeaderPlace), Error> {
            let mut style = super::text_style(&stream.look).map_err(Error::Usage)?;
            style.profile.clone_from(&report.profile);
            Ok((style, super::header_place(&stream.look)))
        };
        let output_style = style(&report.output)?;
        let stderr_style = match &report.stderr {
            Some(stderr) => style(stderr)?,
            None => output_style.clone(),
        };
        Ok(Layout {
            tokenizer: report.output.look.tokenizer.name(),
            status_line,
            output_style,
            stderr_style,
        })
    }

    /// The line that follows the main stream: wrap mode's status line, or
    /// the note that a signal interrupted the reading.
    pub(crate) fn trailer(&self, report: &Report) -> Option<String> {
        match (&report.child, report.interrupted_by) {
            (Some(child), _) => text::status_line(child).filter(|_| self.status_line),
            (None, Some(signal)) => Some(text::interruption_line(signal)),
            (None, None) => None,
        }
    }

    /// The text layout of the main stream, or of the separate stderr.
    pub(crate) fn text(&self, stderr: bool) -> text::Layout<'_> {
        let (style, header) = if stderr {
            &self.stderr_style
        } else {
            &self.output_style
        };
        text::Layout {
            header: *header,
            style,
        }
    }
}

/// Writes `report` as one line of JSON.
pub(crate) fn write_report(
    out: &mut impl Write,
    report: &Report,
    layout: &Layout,
) -> io::Result<()> {
    let trailer = layout.trailer(report);
    let mut object = stream_fields(&report.output, &layout.text(false), trailer.as_deref())?;
    if let Some(child) = &report.child {
        let (code, signal) = match child.exit {
            ChildExit::Exited(code) => (Some(code), None),
            ChildExit::Signaled(signal) => (None, Some(signal)),
            ChildExit::NotFound => (Some(127), None),
            ChildExit::NotExecutable => (Some(126), None),
            ChildExit::Unknown => (None, None),
        };
        object.insert(
            "exit".into(),
            json!({"code": code, "signal": signal, "timed_out": child.timed_out_after.is_some()}),
        );
        object.insert(
            "duration_ms".into(),
            json!(child.duration.as_millis() as u64),
        );
    }
    if let Some(stderr) = &report.stderr {
        let fields = stream_fields(stderr, &layout.text(true), None)?;
        object.insert("stderr".into(), Value::Object(fields));
    }
    object.insert("tokenizer".into(), json!(layout.tokenizer));
    object.insert("interrupted_by".into(), json!(report.interrupted_by));
    object.insert("profile".into(), json!(report.profile));
    let problems: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    object.insert("problems".into(), json!(problems));
    serde_json::to_writer(&mut *out, &Value::Object(object)).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// The capping fields of one stream, `output` first.
fn stream_fields(
    stream: &StreamReport,
    layout: &text::Layout<'_>,
    trailer: Option<&str>,
) -> io::Result<Map<String, Value>> {
    let mut text = Vec::new();
    text::write_output(&mut text, stream, layout, 0, trailer)?;
    let kept: u64 = stream
        .kept
        .iter()
        .map(|block| block.bytes.len() as u64)
        .sum();
    // A shortened document is the head, and what it does not print of the
    // stream is what was omitted.
    let document = stream
        .shortened_json()
        .map(|document| document.len() as u64 + 1);
    let head_bytes = document.unwrap_or(stream.head.len() as u64);
    let omitted = match (document, stream.cut) {
        (Some(printed), _) => stream.bytes.saturating_sub(printed),
        (None, cut) => cut.map_or(0, |cut| cut.omitted_bytes() - kept),
    };
    let mut fields = Map::new();
    let mut put = |name: &str, value: Value| {
        fields.insert(name.to_string(), value);
    };
    put("output", json!(String::from_utf8_lossy(&text)));
    put("truncated", json!(stream.truncated()));
    put("bytes", json!(stream.bytes));
    put("lines", json!(stream.lines));
    put("tokens", json!(stream.tokens));
    put("tokens_estimated", json!(stream.tokens_estimated));
    put("head_bytes", json!(head_bytes));
    put("tail_bytes", json!(stream.tail.len()));
    put("omitted_bytes", json!(omitted));
    put(
        "omitted_lines",
        json!(
            stream
                .cut
                .map(|cut| [cut.first_omitted_line, cut.last_omitted_line])
        ),
    );
    put("kept_bytes", json!(kept));
    put("hidden_matches", json!(stream.hidden_matches));
    put("hidden_errors", json!(stream.hidden_errors));
    put("raw_bytes", json!(stream.raw_bytes));
    put("cleaned", json!(stream.cleaned));
    put("redacted", json!(stream.redacted));
    let (spill, spill_id, spill_error) = match &stream.spill {
        Some(SpillReport::Saved { path, id }) => {
            (json!(path.to_string_lossy()), json!(id), Value::Null)
        }
        Some(SpillReport::NotSaved(reason)) => {
            (Value::Null, Value::Null, json!(reason.to_string()))
        }
        None => (Value::Null, Value::Null, Value::Null),
    };
    put("spill", spill);
    put("spill_id", spill_id);
    put("spill_error", spill_error);
    // --format: what applied, why JSON fell back, what a diff's cut held.
    put("format", json!(stream.format.name()));
    let fallback = match &stream.format {
        FormatReport::NotJson(reason) => json!(reason),
        _ => Value::Null,
    };
    put("format_fallback", fallback);
    let (hunks, files) = match &stream.format {
        FormatReport::Diff(diff) if stream.cut.is_some() => (json!(diff.hunks), json!(diff.files)),
        _ => (Value::Null, Value::Null),
    };
    put("omitted_hunks", hunks);
    put("omitted_files", files);
    Ok(fields)
}
