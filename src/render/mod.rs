//! Report -> text: the renderers that turn the plain facts of a run into
//! what toolcap prints. All the wording of the capped output (headers,
//! markers, status lines, cleaning's markers) lives here; error messages
//! stay with the code that detects the error.
//!
//! Only the default format exists so far ([`text`]); other styles and a
//! JSON report are more renderers of the same [`Report`](crate::Report).

pub(crate) mod json;
pub(crate) mod template;
pub(crate) mod text;

use std::io::{self, Write};

use crate::Options;
use crate::report::StreamReport;

/// Writes `report` in toolcap's default format: the stream unchanged when
/// it fitted; otherwise the warning header (unless `options` turn it
/// off), the head, the marker line and the tail, or for a JSON document
/// that `--format json` shortened, the header and the document.
pub fn render(report: &StreamReport, options: &Options, out: &mut impl Write) -> io::Result<()> {
    let header = if options.has_header() {
        text::HeaderPlace::Top
    } else {
        text::HeaderPlace::Omitted
    };
    let style = options
        .text_style()
        .map_err(|err| io::Error::new(io::ErrorKind::InvalidInput, err))?;
    let layout = text::Layout {
        header,
        style: &style,
    };
    text::write_stream(out, report, &layout, 0)
}
