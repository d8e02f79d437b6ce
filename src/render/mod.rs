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

use crate::error::Error;
use crate::report::{Look, Report, StreamReport};
use template::Template;
use text::TextStyle;

/// Writes `report` as toolcap prints it, in the style it was capped for
/// (the [`Options`](crate::Options) of its [`Capper`](crate::Capper)): the
/// stream unchanged when it fitted; otherwise the warning header (unless
/// the options turned it off), the head, the marker line and the tail, or
/// for a JSON document that `--format json` shortened, the header and the
/// document.
///
/// ```
/// let options = toolcap::Options::new().max(10).marker_template("[{omitted_chars} chars cut]");
/// let mut capper = toolcap::Capper::new(&options)?;
/// capper.push("aaaa\néééé\nbbbb\n".as_bytes());
/// let mut out = Vec::new();
/// toolcap::render(&capper.finish(), &mut out)?;
/// assert_eq!(
///     String::from_utf8_lossy(&out),
///     "Warning: truncated output (original token count: 5)\n\
///      Total output lines: 3\n\n\
///      aaaa\n[5 chars cut]\nbbbb\n"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render(report: &StreamReport, out: &mut impl Write) -> io::Result<()> {
    let style =
        text_style(&report.look).map_err(|err| io::Error::new(io::ErrorKind::InvalidInput, err))?;
    let layout = text::Layout {
        header: header_place(&report.look),
        style: &style,
    };
    text::write_stream(out, report, &layout, 0)
}

/// Where the header of a stream rendered at its end goes.
pub(crate) fn header_place(look: &Look) -> text::HeaderPlace {
    if look.header {
        text::HeaderPlace::Top
    } else {
        text::HeaderPlace::Omitted
    }
}

/// The text style `look` names, its templates parsed. The plan parsed
/// them first and refused a bad one, naming its option.
pub(crate) fn text_style(look: &Look) -> Result<TextStyle, String> {
    let parse = |template: &Option<String>, option| {
        template
            .as_deref()
            .map(|text| Template::parse(text, option))
            .transpose()
    };
    Ok(TextStyle {
        header: parse(&look.header_template, "--header")?,
        marker: parse(&look.marker_template, "--marker")?,
        codex: look.codex,
        verifiers: look.verifiers,
        profile: look.profile.clone(),
    })
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

/// Renders the [`Report`] of a run as the command line prints it, as text
/// and as the `--json` report, each stream in the style it carries; wrap
/// mode's status line after the output when `status_line`. The public
/// entry is [`crate::run::render`], which reads `status_line` off a `Config`.
pub(crate) fn render_run(report: &Report, status_line: bool) -> Result<Rendered, Error> {
    let layout = json::Layout::of(status_line, report)?;
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
