//! `--strip-ansi`: removes escape sequences (see [`crate::escape`]); every
//! other byte, invalid UTF-8 included, passes unchanged. A sequence split
//! across chunks is held in the grammar's state, not in a buffer.

use memchr::memchr;

use super::{Emit, Ending, Transform};
use crate::escape::{State, Step};

const ESC: u8 = 0x1B;

#[derive(Default)]
pub(crate) struct StripAnsi {
    state: State,
    changed: bool,
}

impl Transform for StripAnsi {
    fn push(&mut self, input: &[u8], out: &mut dyn Emit) {
        let mut at = 0;
        while at < input.len() {
            if self.state == State::Ground {
                let Some(found) = memchr(ESC, &input[at..]) else {
                    out.bytes(&input[at..]);
                    return;
                };
                if found > 0 {
                    out.bytes(&input[at..at + found]);
                }
                self.state.step(ESC);
                self.changed = true;
                at += found + 1;
                continue;
            }
            let byte = input[at];
            // A byte that cannot continue the sequence is read again as
            // text (or as the start of the next sequence).
            if self.state.step(byte) == Step::Reject && self.state.step(byte) == Step::Text {
                out.bytes(&input[at..=at]);
            }
            at += 1;
        }
    }

    /// A sequence cut off by the end of the stream is dropped.
    fn finish(&mut self, _ending: &Ending, _out: &mut dyn Emit) {}

    fn changed(&self) -> bool {
        self.changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::testing::run_all_chunkings;

    fn strip(input: &[u8]) -> Vec<u8> {
        run_all_chunkings(|| Box::<StripAnsi>::default(), input)
    }

    #[test]
    fn sequences_go_and_every_other_byte_stays() {
        assert_eq!(
            strip(b"\x1b[1;31merror\x1b[0m: \xff\xfe \x1b]8;;http://x\x1b\\link\x1b]8;;\x07\n"),
            b"error: \xff\xfe link\n"
        );
        assert_eq!(
            strip(b"no escapes \r\n\xc3\xa9"),
            b"no escapes \r\n\xc3\xa9"
        );
        assert_eq!(strip(b"\x1b[3\nbroken"), b"\nbroken");
        assert_eq!(strip(b"cut at the end \x1b[3"), b"cut at the end ");
    }
}
