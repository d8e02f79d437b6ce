//! Turns a [`Capture`] into output bytes: the warning header, the head, the
//! omitted-bytes marker and the tail, in the exact format of the README.
//!
//! It writes to any `Write` and never reads input or decides cuts.

use std::io::{self, Write};

use crate::capture::{Capture, Cut};

/// Where the two header lines go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderPlace {
    /// Before the head, followed by a blank line (the default).
    Top,
    /// After the tail, because `--live` printed the head before the totals
    /// were known.
    Bottom,
    /// `--no-header`.
    Omitted,
}

/// What the marker says about the full output.
#[derive(Clone, Copy, Debug)]
pub enum SpillNote<'a> {
    None,
    /// The full output is in this file (path bytes as given).
    SavedIn(&'a [u8]),
    /// Saving it failed, for this reason.
    NotSaved(&'a str),
}

/// Writes the capped output, except its first `already_written` bytes of
/// head, which `--live` printed while the input arrived.
pub fn write_capped(
    out: &mut impl Write,
    capture: &Capture,
    already_written: usize,
    header: HeaderPlace,
    spill: SpillNote,
) -> io::Result<()> {
    let head = capture.head();
    let Some(cut) = capture.cut() else {
        return out.write_all(&head[already_written..]);
    };
    if header == HeaderPlace::Top {
        write_header(out, capture)?;
        out.write_all(b"\n")?;
    }
    out.write_all(&head[already_written..])?;
    if head.last().is_some_and(|&b| b != b'\n') {
        out.write_all(b"\n")?;
    }
    write_marker(out, cut, spill)?;
    let tail = capture.tail();
    out.write_all(tail)?;
    if header == HeaderPlace::Bottom {
        if tail.last().is_some_and(|&b| b != b'\n') {
            out.write_all(b"\n")?;
        }
        write_header(out, capture)?;
    }
    Ok(())
}

fn write_header(out: &mut impl Write, capture: &Capture) -> io::Result<()> {
    write!(
        out,
        "Warning: truncated output (original token count: {})\nTotal output lines: {}\n",
        capture.total_bytes().div_ceil(4),
        capture.total_lines()
    )
}

fn write_marker(out: &mut impl Write, cut: &Cut, spill: SpillNote) -> io::Result<()> {
    write!(out, "[... {} bytes truncated", cut.omitted_bytes())?;
    let lines = format!(
        "(lines {}-{})",
        cut.first_omitted_line, cut.last_omitted_line
    );
    match spill {
        SpillNote::None => {}
        SpillNote::SavedIn(path) => {
            write!(out, " {lines}; full output in ")?;
            out.write_all(path)?;
        }
        SpillNote::NotSaved(reason) => write!(out, " {lines}; full output not saved: {reason}")?,
    }
    out.write_all(b" ...]\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{Budget, Capper, CutMode};

    fn render(input: &[u8], header: HeaderPlace, spill: SpillNote) -> String {
        let mut capper = Capper::new(Budget {
            head: 4,
            tail: 4,
            lines: None,
            cut: CutMode::Lines,
        });
        capper.push(input);
        let mut out = Vec::new();
        write_capped(&mut out, &capper.finish(), 0, header, spill).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn fitting_input_is_passed_through() {
        assert_eq!(render(b"abc", HeaderPlace::Top, SpillNote::None), "abc");
    }

    #[test]
    fn header_marker_and_spill_path() {
        assert_eq!(
            render(
                b"a\nb\nc\nd\ne\nf\n",
                HeaderPlace::Top,
                SpillNote::SavedIn(b"/tmp/x")
            ),
            "Warning: truncated output (original token count: 3)\nTotal output lines: 6\n\n\
             a\nb\n[... 4 bytes truncated (lines 3-4); full output in /tmp/x ...]\ne\nf\n"
        );
    }

    #[test]
    fn header_at_bottom_follows_a_newline() {
        assert_eq!(
            render(
                b"abcdefghij",
                HeaderPlace::Bottom,
                SpillNote::NotSaved("disk full")
            ),
            "abcd\n[... 2 bytes truncated (lines 1-1); full output not saved: disk full ...]\nghij\n\
             Warning: truncated output (original token count: 3)\nTotal output lines: 1\n"
        );
    }
}
