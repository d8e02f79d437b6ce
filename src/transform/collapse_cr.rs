//! `--collapse-cr`: a progress bar redrawn with `\r` leaves only its last
//! frame. In each line a bare `\r` (not part of `\r\n`) discards what came
//! before it on that line, once more text follows it; a backspace removes
//! the character before it. A frame longer than [`MAX_FRAME`] is passed on
//! as it is, so memory stays bounded.

use memchr::{memchr2, memchr3, memrchr};

use super::{Emit, Ending, Transform};

/// The longest frame held back while its line is unfinished.
const MAX_FRAME: usize = 1 << 20;

const BACKSPACE: u8 = 0x08;

#[derive(Default)]
pub(crate) struct CollapseCr {
    /// The current line's frame so far.
    frame: Vec<u8>,
    /// A bare `\r` was seen: the frame is dropped when more text comes.
    redraw: bool,
    /// The last byte was a `\r`; the next decides whether it is bare.
    pending_cr: bool,
    /// The frame outgrew [`MAX_FRAME`]: this line is passed on as it is.
    passing: bool,
    changed: bool,
}

impl CollapseCr {
    /// A `\r` (whose meaning the next byte decides) or a backspace in the
    /// current line.
    fn add_control(&mut self, byte: u8, out: &mut dyn Emit) {
        if byte == b'\r' {
            self.pending_cr = true;
        } else if self.passing {
            out.bytes(&[byte]);
        } else {
            self.changed = true;
            if !self.redraw {
                pop_character(&mut self.frame);
            }
        }
    }

    /// Adds text of the current line that holds no control byte.
    fn add_text(&mut self, text: &[u8], out: &mut dyn Emit) {
        if self.passing {
            out.bytes(text);
            return;
        }
        if self.redraw {
            self.frame.clear();
            self.redraw = false;
        }
        self.frame.extend_from_slice(text);
        if self.frame.len() > MAX_FRAME {
            out.bytes(&self.frame);
            self.frame.clear();
            self.passing = true;
        }
    }

    /// Resolves a pending `\r` before `next` (`Some(b'\n')`: it was CRLF).
    fn resolve_cr(&mut self, next: Option<u8>, out: &mut dyn Emit) {
        if !std::mem::take(&mut self.pending_cr) {
            return;
        }
        if next == Some(b'\n') {
            self.frame.push(b'\r');
        } else if self.passing {
            out.bytes(b"\r");
            // Collapsing resumes with the next frame.
            self.passing = false;
        } else {
            self.changed = true;
            self.redraw = true;
        }
    }

    fn end_line(&mut self, terminator: &[u8], out: &mut dyn Emit) {
        self.frame.extend_from_slice(terminator);
        out.bytes(&self.frame);
        self.frame.clear();
        self.redraw = false;
        self.passing = false;
    }
}

/// Removes the last character: the longest valid UTF-8 character the
/// frame ends with (2 to 4 bytes), or else its last byte (an ASCII
/// character, or one invalid byte).
fn pop_character(frame: &mut Vec<u8>) {
    let len = frame.len();
    let width = (2..=4.min(len))
        .rev()
        .find(|&width| {
            std::str::from_utf8(&frame[len - width..]).is_ok_and(|text| text.chars().count() == 1)
        })
        .unwrap_or(1);
    frame.truncate(len.saturating_sub(width));
}

impl CollapseCr {
    /// Whether no line is in progress.
    fn is_fresh(&self) -> bool {
        self.frame.is_empty() && !self.pending_cr && !self.redraw && !self.passing
    }

    /// Collapses the line in progress, from `input[from..]` through its
    /// `\n`, a run of text at a time; returns where the next line starts
    /// (or the end).
    fn continue_line(&mut self, input: &[u8], from: usize, out: &mut dyn Emit) -> usize {
        let mut at = from;
        while at < input.len() {
            let text_end =
                memchr3(b'\r', BACKSPACE, b'\n', &input[at..]).map_or(input.len(), |p| at + p);
            if text_end > at {
                self.resolve_cr(Some(input[at]), out);
                self.add_text(&input[at..text_end], out);
                at = text_end;
                continue;
            }
            let byte = input[at];
            self.resolve_cr(Some(byte), out);
            if byte == b'\n' {
                self.end_line(b"\n", out);
                return at + 1;
            }
            self.add_control(byte, out);
            at += 1;
        }
        input.len()
    }
}

impl Transform for CollapseCr {
    /// Lines without a `\r` or backspace (CRLF aside) go out as they are,
    /// many at once; only a line that has one is rebuilt byte by byte.
    fn push(&mut self, input: &[u8], out: &mut dyn Emit) {
        let mut at = 0;
        if !self.is_fresh() {
            at = self.continue_line(input, 0, out);
        }
        // Whole plain lines from here on are not emitted yet.
        let mut plain_from = at;
        while at < input.len() {
            let Some(found) = memchr2(b'\r', BACKSPACE, &input[at..]) else {
                break;
            };
            let p = at + found;
            if input[p] == b'\r' && input.get(p + 1) == Some(&b'\n') {
                at = p + 2;
                continue;
            }
            let line_start =
                memrchr(b'\n', &input[plain_from..p]).map_or(plain_from, |q| plain_from + q + 1);
            if line_start > plain_from {
                out.bytes(&input[plain_from..line_start]);
            }
            at = self.continue_line(input, line_start, out);
            plain_from = at;
        }
        // The last line may still be redrawn by a later `\r`: it waits.
        let rest = &input[plain_from..];
        let end = memrchr(b'\n', rest).map_or(0, |q| q + 1);
        if end > 0 {
            out.bytes(&rest[..end]);
        }
        if end < rest.len() {
            self.continue_line(rest, end, out);
        }
    }

    fn finish(&mut self, _ending: &Ending, out: &mut dyn Emit) {
        self.resolve_cr(None, out);
        if !self.frame.is_empty() {
            self.end_line(b"", out);
        }
    }

    fn changed(&self) -> bool {
        self.changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::testing::run_all_chunkings;

    fn collapse(input: &[u8]) -> Vec<u8> {
        run_all_chunkings(|| Box::<CollapseCr>::default(), input)
    }

    #[test]
    fn redraws_leave_the_last_frame() {
        assert_eq!(collapse(b" 10%\r 50%\r100%\ndone\n"), b"100%\ndone\n");
        // A trailing bare \r: the last frame drawn stays.
        assert_eq!(collapse(b"10%\r20%\r"), b"20%");
        assert_eq!(collapse(b"10%\r20%\r\n"), b"20%\r\n");
        assert_eq!(collapse(b"a\r\rb\n"), b"b\n");
    }

    #[test]
    fn crlf_is_not_a_redraw() {
        assert_eq!(collapse(b"one\r\ntwo\r\n"), b"one\r\ntwo\r\n");
    }

    #[test]
    fn backspace_removes_one_character() {
        assert_eq!(collapse(b"abc\x08d\n"), b"abd\n");
        assert_eq!(collapse("a€\x08b\n".as_bytes()), b"ab\n");
        assert_eq!(collapse(b"\x08\x08x\n"), b"x\n");
        assert_eq!(collapse(b"a\xff\x08b\n"), b"ab\n");
        // An invalid byte after a character goes alone.
        assert_eq!(collapse("a€\u{80}".as_bytes()), "a€\u{80}".as_bytes());
        assert_eq!(collapse(b"a\xe2\x82\xac\x80\x08\n"), "a€\n".as_bytes());
        assert_eq!(collapse(b"a\xe2\x82\x08\n"), b"a\xe2\n");
    }

    #[test]
    fn plain_text_is_unchanged() {
        let text = b"plain line\nanother \xff line\n\nlast";
        assert_eq!(collapse(text), text);
    }
}
