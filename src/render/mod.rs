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
use crate::config::Config;
use crate::error::Error;
use crate::report::{Report, StreamReport};

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

/// What the command line prints for a run, rendered in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rendered {
    /// The main stream as text, as stdout shows it without `--json`: the
    /// header, head, markers and tail, then wrap mode's status line or
    /// filter mode's interruption line.
    pub output: Vec<u8>,
    /// A separate stderr as text (`--stderr separate`).
    pub stderr: Option<Vec<u8>>,
    /// The `--json` report: one line of JSON and its `\n`.
    pub json: Vec<u8>,
}

/// Renders the [`Report`] of a run of `config` ([`run_command`](crate::run_command)
/// or [`Capper::finish_run`](crate::Capper::finish_run)) as the command
/// line prints it, as text and as the `--json` report (whatever
/// `config.json` says).
///
/// # Errors
///
/// [`Error::Usage`] when the options of `config` contradict each other.
pub fn render_run(report: &Report, config: &Config) -> Result<Rendered, Error> {
    let layout = json::Layout::of(config, report)?;
    let trailer = layout.trailer(report);
    let mut output = Vec::new();
    text::write_output(
        &mut output,
        &report.output,
        &layout.text(false),
        0,
        trailer.as_deref(),
    )
    .map_err(Error::io("cannot render the output"))?;
    let stderr = match &report.stderr {
        Some(stream) => {
            let mut text = Vec::new();
            text::write_output(&mut text, stream, &layout.text(true), 0, None)
                .map_err(Error::io("cannot render the stderr"))?;
            Some(text)
        }
        None => None,
    };
    let mut json = Vec::new();
    json::write_report(&mut json, report, &layout)
        .map_err(Error::io("cannot render the report"))?;
    Ok(Rendered {
        output,
        stderr,
        json,
    })
}
