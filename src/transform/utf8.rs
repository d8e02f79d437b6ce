//! `--utf8`: invalid UTF-8 becomes U+FFFD, one per maximal invalid
//! subpart (as `String::from_utf8_lossy` does), so the output is always
//! valid UTF-8. A character split across chunks is completed, not replaced.

use super::{Emit, Ending, Transform};

const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

#[derive(Default)]
pub(crate) struct ReplaceInvalid {
    /// The start of a character that the next chunk may complete (at most
    /// 3 bytes, a valid prefix).
    carry: Vec<u8>,
    changed: bool,
}

impl ReplaceInvalid {
    /// Emits the valid parts of `input` and a replacement for each invalid
    /// subpart; keeps an unfinished last character in `carry`.
    fn emit_valid(&mut self, mut input: &[u8], out: &mut dyn Emit) {
        while !input.is_empty() {
            match std::str::from_utf8(input) {
                Ok(_) => {
                    out.bytes(input);
                    return;
                }
                Err(err) => {
                    let valid = err.valid_up_to();
                    if valid > 0 {
                        out.bytes(&input[..valid]);
                    }
                    match err.error_len() {
                        None => {
                            self.carry.extend_from_slice(&input[valid..]);
                            return;
                        }
                        Some(len) => {
                            self.changed = true;
                            out.bytes(REPLACEMENT);
                            input = &input[valid + len..];
                        }
                    }
                }
            }
        }
    }
}

impl Transform for ReplaceInvalid {
    fn push(&mut self, mut input: &[u8], out: &mut dyn Emit) {
        if !self.carry.is_empty() {
            // Complete the carried character with at most 3 more bytes.
            let mut joined = std::mem::take(&mut self.carry);
            let carried = joined.len();
            let borrowed = (4 - carried).min(input.len());
            joined.extend_from_slice(&input[..borrowed]);
            match std::str::from_utf8(&joined) {
                Ok(_) => {
                    out.bytes(&joined);
                    input = &input[borrowed..];
                }
                Err(err) if err.valid_up_to() > 0 => {
                    out.bytes(&joined[..err.valid_up_to()]);
                    input = &input[err.valid_up_to() - carried..];
                }
                Err(err) => match err.error_len() {
                    // Still unfinished: all of `input` joined the carry.
                    None => {
                        self.carry = joined;
                        return;
                    }
                    Some(len) => {
                        self.changed = true;
                        out.bytes(REPLACEMENT);
                        input = &input[len.saturating_sub(carried)..];
                    }
                },
            }
        }
        self.emit_valid(input, out);
    }

    fn finish(&mut self, _ending: &Ending, out: &mut dyn Emit) {
        if !std::mem::take(&mut self.carry).is_empty() {
            self.changed = true;
            out.bytes(REPLACEMENT);
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

    fn fix(input: &[u8]) -> Vec<u8> {
        run_all_chunkings(|| Box::<ReplaceInvalid>::default(), input)
    }

    #[test]
    fn invalid_bytes_become_replacement_characters_as_std_does() {
        for input in [
            &b"valid \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"[..],
            b"\xff\xfe",
            b"a\xe2\x82b",
            b"\xf0\x9f\x98",
            b"\xc3",
            b"\x80\x80x\xed\xa0\x80y",
            b"\xe2\x28\xa1 \xf8\x88\x80\x80\x80",
        ] {
            let expected = String::from_utf8_lossy(input).into_owned().into_bytes();
            assert_eq!(fix(input), expected, "{input:?}");
        }
    }
}
