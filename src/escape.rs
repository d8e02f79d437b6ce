//! The ECMA-48 escape-sequence grammar (7-bit), as one byte-stepping state
//! machine shared by `--strip-ansi`, the cut rules (a cut never lands
//! inside a sequence) and the marker's colour reset.
//!
//! A sequence starts with ESC (0x1B) and is:
//! - CSI: `ESC [`, parameter bytes 0x30-0x3F, then intermediate bytes 0x20-0x2F,
//!   a final byte 0x40-0x7E (colours: `ESC [ 31 m`);
//! - a string, `ESC ]` (OSC) up to BEL or ST (`ESC \`), or `ESC P` (DCS),
//!   `ESC X` (SOS), `ESC ^` (PM), `ESC _` (APC) up to ST;
//! - any other `ESC`, intermediates 0x20-0x2F, and a final byte 0x30-0x7E
//!   (`ESC 7`, `ESC ( B`).
//!
//! What the standard leaves to terminals is decided for logs: a byte that
//! cannot continue a sequence ends it there and is itself text (so
//! `ESC [ 3 \n` drops `ESC [ 3` and keeps the newline); a string also ends
//! at a newline, and after [`MAX_STRING`] bytes, so a stray `ESC ]` in
//! binary garbage cannot swallow the rest of a stream. 8-bit C1 controls
//! (0x9B for CSI) are not recognised: in UTF-8 text those bytes are
//! continuation bytes.
//!
//! No crate does this byte-exactly: `vte` and `anstyle-parse` decode UTF-8
//! and hand back characters, so invalid bytes in the text would not pass
//! through unchanged.

use memchr::memchr;

/// A string longer than this (from its ESC) is taken to be garbage, not a
/// sequence.
const MAX_STRING: u32 = 64 * 1024;

const ESC: u8 = 0x1B;
const BEL: u8 = 0x07;
/// CAN and SUB cancel a sequence in progress (ECMA-48, 8.3.6 and 8.3.148).
const CAN: u8 = 0x18;
const SUB: u8 = 0x1A;

/// Where the grammar stands after the bytes stepped so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum State {
    /// Text.
    #[default]
    Ground,
    /// After ESC.
    Escape,
    /// In a CSI sequence's parameter bytes.
    Csi,
    /// In a CSI sequence's intermediate bytes: a parameter byte can no
    /// longer follow.
    CsiIntermediate,
    /// In an `ESC` sequence's intermediate bytes.
    Intermediate,
    /// In a string (OSC, DCS, SOS, PM, APC), this many bytes long so far.
    String { osc: bool, length: u32 },
    /// After an ESC inside a string: `\` ends it.
    StringEscape { osc: bool },
}

/// What one byte did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// It is text.
    Text,
    /// It starts or continues a sequence.
    Inside,
    /// It ends a sequence.
    End,
    /// It cannot continue the sequence: the sequence ended just before it,
    /// and the byte must be stepped again from [`State::Ground`] (where the
    /// state already is).
    Reject,
}

impl State {
    /// Advances the grammar by one byte.
    pub(crate) fn step(&mut self, byte: u8) -> Step {
        match *self {
            State::Ground => {
                if byte == ESC {
                    *self = State::Escape;
                    Step::Inside
                } else {
                    Step::Text
                }
            }
            State::Escape => match byte {
                b'[' => self.go(State::Csi),
                // A string's length counts from its ESC.
                b']' => self.go(State::String {
                    osc: true,
                    length: 2,
                }),
                b'P' | b'X' | b'^' | b'_' => self.go(State::String {
                    osc: false,
                    length: 2,
                }),
                0x20..=0x2F => self.go(State::Intermediate),
                0x30..=0x7E => self.end(),
                // ESC ESC: the first one ends alone, the second starts.
                _ => self.reject(),
            },
            State::Csi => match byte {
                0x30..=0x3F => Step::Inside,
                0x20..=0x2F => self.go(State::CsiIntermediate),
                0x40..=0x7E => self.end(),
                _ => self.reject(),
            },
            State::CsiIntermediate => match byte {
                0x20..=0x2F => Step::Inside,
                0x40..=0x7E => self.end(),
                _ => self.reject(),
            },
            State::Intermediate => match byte {
                0x20..=0x2F => Step::Inside,
                0x30..=0x7E => self.end(),
                _ => self.reject(),
            },
            State::String { osc, length } => match byte {
                BEL if osc => self.end(),
                ESC => self.go(State::StringEscape { osc }),
                b'\n' | CAN | SUB => self.reject(),
                _ if length >= MAX_STRING => self.reject(),
                _ => self.go(State::String {
                    osc,
                    length: length + 1,
                }),
            },
            State::StringEscape { .. } => {
                if byte == b'\\' {
                    self.end()
                } else {
                    // The string is over; this ESC starts a new sequence.
                    *self = State::Escape;
                    self.step(byte)
                }
            }
        }
    }

    fn go(&mut self, next: State) -> Step {
        *self = next;
        Step::Inside
    }

    fn end(&mut self) -> Step {
        *self = State::Ground;
        Step::End
    }

    fn reject(&mut self) -> Step {
        *self = State::Ground;
        Step::Reject
    }
}

/// Where the sequence that starts at `bytes[start]` (an ESC) ends: the
/// first byte after it, or `None` when `bytes` ends first. The same
/// grammar as [`State::step`], read as whole sequences: a string ended by
/// an ESC that does not make `ESC \` ends before that ESC, which starts a
/// sequence of its own.
fn sequence_at(bytes: &[u8], start: usize) -> Option<usize> {
    let byte_at = |i: usize| bytes.get(i).copied();
    let mut i = start + 1;
    let kind = byte_at(i)?;
    match kind {
        b'[' | 0x20..=0x2F => {
            // CSI: parameters, then intermediates; or ESC's intermediates.
            i += 1;
            if kind == b'[' {
                while (0x30..=0x3F).contains(&byte_at(i)?) {
                    i += 1;
                }
            }
            while (0x20..=0x2F).contains(&byte_at(i)?) {
                i += 1;
            }
            let last = if kind == b'[' {
                0x40..=0x7E
            } else {
                0x30..=0x7E
            };
            Some(if last.contains(&byte_at(i)?) {
                i + 1
            } else {
                i
            })
        }
        b']' | b'P' | b'X' | b'^' | b'_' => {
            let osc = kind == b']';
            i += 1;
            loop {
                match byte_at(i)? {
                    BEL if osc => return Some(i + 1),
                    ESC => {
                        return match byte_at(i + 1)? {
                            b'\\' => Some(i + 2),
                            _ => Some(i),
                        };
                    }
                    b'\n' | CAN | SUB => return Some(i),
                    _ if i - start >= MAX_STRING as usize => return Some(i),
                    _ => i += 1,
                }
            }
        }
        0x30..=0x7E => Some(i + 1),
        // Anything else (another ESC too) ends the lone ESC before it.
        _ => Some(i),
    }
}

/// The sequence of `bytes` that `at` falls strictly inside, read from
/// `from` (a position known to be text: a line start, since sequences end
/// at newlines, or a bounded distance back): its start, and its end
/// (`None`: it runs past the end of `bytes`).
fn sequence_containing(bytes: &[u8], from: usize, at: usize) -> Option<(usize, Option<usize>)> {
    let mut i = from;
    while let Some(found) = memchr(ESC, &bytes[i..at]) {
        let start = i + found;
        match sequence_at(bytes, start) {
            Some(end) if end <= at => i = end.max(start + 1),
            end => return Some((start, end)),
        }
    }
    None
}

/// The text of `bytes`, its escape sequences removed (what `--strip-ansi`
/// streams, for bytes held whole: the input `--profile auto` reads).
pub(crate) fn text_of(bytes: &[u8]) -> Vec<u8> {
    let mut state = State::Ground;
    let mut text = Vec::with_capacity(bytes.len());
    for &byte in bytes {
        let mut step = state.step(byte);
        if step == Step::Reject {
            step = state.step(byte);
        }
        if step == Step::Text {
            text.push(byte);
        }
    }
    text
}

/// If a cut at `at` would fall inside a sequence of `bytes`, the start of
/// that sequence; `None` when `at` is in text or at a sequence's edge.
pub(crate) fn sequence_around(bytes: &[u8], from: usize, at: usize) -> Option<usize> {
    sequence_containing(bytes, from, at).map(|(start, _)| start)
}

/// Where a cut at `at` must move to leave the sequence it falls inside:
/// `at` itself when it is in text or at an edge, the end of the sequence
/// otherwise, `None` when that sequence runs past the end of `bytes`.
pub(crate) fn sequence_end(bytes: &[u8], from: usize, at: usize) -> Option<usize> {
    match sequence_containing(bytes, from, at) {
        None => Some(at),
        Some((_, end)) => end,
    }
}

/// Whether colours or styles are on after `text` is printed, `on` before
/// it: its last SGR sequence (`ESC [ params m`, no intermediate bytes)
/// decides, and without one nothing changes. An SGR that sets anything
/// other than a full reset counts as on; conservative (`ESC[22m` counts),
/// since an extra reset costs nothing.
pub(crate) fn style_after(mut on: bool, text: &[u8]) -> bool {
    let mut i = 0;
    while let Some(found) = memchr(ESC, &text[i..]) {
        let start = i + found;
        let Some(end) = sequence_at(text, start) else {
            break;
        };
        let sequence = &text[start..end];
        if let Some(params) = sequence
            .strip_prefix(b"\x1b[")
            .and_then(|rest| rest.strip_suffix(b"m"))
            .filter(|params| params.iter().all(|b| (0x30..=0x3F).contains(b)))
        {
            on = sgr_sets_something(params);
        }
        i = end.max(start + 1);
    }
    on
}

/// `ESC [ m`, `ESC [ 0 m` and `ESC [ 0;0 m` reset; anything else sets,
/// sub-parameters too (`ESC [ : m` counts as on: found by the capper fuzz
/// target, and an extra reset costs nothing).
fn sgr_sets_something(params: &[u8]) -> bool {
    params
        .split(|&b| b == b';')
        .any(|param| param.iter().any(|&b| b != b'0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_of_every_kind_are_recognised() {
        for (input, text) in [
            (&b"\x1b[1;31mred\x1b[0m"[..], &b"red"[..]),
            (b"a\x1b[?25hb", b"ab"),
            (b"\x1b]0;title\x07x", b"x"),
            (b"\x1b]8;;https://e.com\x1b\\link\x1b]8;;\x1b\\", b"link"),
            (b"\x1bPq#0;2;0;0;0\x1b\\after", b"after"),
            (b"\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\z", b"z"),
            (b"\x1b7\x1b8\x1b(B\x1b=ok", b"ok"),
            // Broken sequences: the rejecting byte is text.
            (b"\x1b[3\nx", b"\nx"),
            (b"\x1b]no end\nline", b"\nline"),
            (b"\x1b\x07bell", b"\x07bell"),
            (b"\x1b\x1b[mz", b"z"),
            // A parameter byte after an intermediate ends a CSI (found by
            // the capper fuzz target).
            (b"\x1b[1 ;x", b";x"),
            (b"\x1b[1 !q;", b";"),
            // A string interrupted by another sequence.
            (b"\x1b]title\x1b[31mred", b"red"),
            // Invalid UTF-8 and 8-bit bytes are text.
            (b"\xff\x9b31m\xc3", b"\xff\x9b31m\xc3"),
        ] {
            assert_eq!(text_of(input), text, "{input:?}");
        }
    }

    #[test]
    fn cut_positions_inside_a_sequence_move_to_its_edges() {
        let bytes = b"ab\x1b[31mcd\x1b]0;t\x07e";
        // Inside "ESC[31m" (2..7): starts at 2, ends at 7.
        for at in 3..7 {
            assert_eq!(sequence_around(bytes, 0, at), Some(2), "{at}");
            assert_eq!(sequence_end(bytes, 0, at), Some(7), "{at}");
        }
        for at in [0, 1, 2, 7, 8, 9, 15] {
            assert_eq!(sequence_around(bytes, 0, at), None, "{at}");
            assert_eq!(sequence_end(bytes, 0, at), Some(at), "{at}");
        }
        assert_eq!(sequence_around(bytes, 0, 12), Some(9));
        assert_eq!(sequence_end(bytes, 0, 12), Some(15));
        assert_eq!(sequence_end(b"x\x1b[31", 0, 3), None);
        assert_eq!(sequence_end(b"\x1b[;;+;;", 0, 4), Some(5));
    }

    #[test]
    fn style_left_on_by_the_last_sgr() {
        let leaves_on = |text: &[u8]| style_after(false, text);
        assert!(!leaves_on(b"plain"));
        assert!(leaves_on(b"\x1b[31mred"));
        assert!(!leaves_on(b"\x1b[31mred\x1b[0m"));
        assert!(!leaves_on(b"\x1b[1;31mred\x1b[m"));
        assert!(leaves_on(b"\x1b[0m\x1b[38;5;1mx"));
        // Parameters are split at `;` only: a sub-parameter sets something.
        assert!(leaves_on(b"\x1b[:m"));
        assert!(leaves_on(b"\x1b[4:0m"));
        // Not SGR: cursor movement, or an intermediate byte.
        assert!(!leaves_on(b"\x1b[2K\x1b[1G"));
        assert!(!leaves_on(b"\x1b[31 m"));
        // No SGR at all: what was on stays on.
        assert!(style_after(true, b"plain"));
        // An OSC cut short by an ESC does not swallow the reset after it.
        assert!(!leaves_on(b"\x1b[31m\x1b]0;t\x1b[0mab"));
    }
}
