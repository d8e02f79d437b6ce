//! `--binary summary`: a stream whose first 8 KiB hold a NUL byte is not
//! text; it becomes one line saying how long it was and where it went.

use memchr::{memchr, memchr_iter};

use super::{Emit, Ending, Transform};
use std::os::unix::ffi::OsStrExt;

use crate::spill::SpillReport;
use crate::vocab::marker::escape_for_marker;

/// How much of the start is looked at: enough for any text header, small
/// enough to hold back.
const PROBE: usize = 8 * 1024;

#[derive(Default)]
pub(crate) struct BinarySummary {
    /// The start of the stream, until decided.
    probe: Vec<u8>,
    decided: Option<Kind>,
    bytes: u64,
    newlines: u64,
    last_byte: Option<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Binary,
}

impl BinarySummary {
    fn count(&mut self, input: &[u8]) {
        self.bytes += input.len() as u64;
        self.newlines += memchr_iter(b'\n', input).count() as u64;
        if let Some(&last) = input.last() {
            self.last_byte = Some(last);
        }
    }
}

impl Transform for BinarySummary {
    fn push(&mut self, input: &[u8], out: &mut dyn Emit) {
        match self.decided {
            Some(Kind::Text) => out.bytes(input),
            Some(Kind::Binary) => self.count(input),
            None => {
                let take = (PROBE - self.probe.len()).min(input.len());
                self.probe.extend_from_slice(&input[..take]);
                if memchr(0, &self.probe).is_some() {
                    self.decided = Some(Kind::Binary);
                    let probe = std::mem::take(&mut self.probe);
                    self.count(&probe);
                    self.count(&input[take..]);
                } else if self.probe.len() == PROBE {
                    self.decided = Some(Kind::Text);
                    out.bytes(&std::mem::take(&mut self.probe));
                    out.bytes(&input[take..]);
                }
            }
        }
    }

    /// No NUL has come yet (one would have decided): the stream is text.
    fn decide_now(&mut self, out: &mut dyn Emit) {
        if self.decided.is_none() {
            self.decided = Some(Kind::Text);
            out.bytes(&std::mem::take(&mut self.probe));
        }
    }

    fn finish(&mut self, ending: &Ending, out: &mut dyn Emit) {
        match self.decided {
            Some(Kind::Binary) => {
                let lines = self.newlines + u64::from(self.last_byte.is_some_and(|b| b != b'\n'));
                out.merged_line(&binary_summary(self.bytes, ending.spill), lines);
            }
            // Shorter than the probe and no NUL: text.
            _ => out.bytes(&std::mem::take(&mut self.probe)),
        }
    }

    fn changed(&self) -> bool {
        self.decided == Some(Kind::Binary)
    }

    fn names_spill(&self) -> bool {
        self.changed()
    }
}

/// `--binary summary`'s one line for a binary stream of `bytes` bytes.
pub(crate) fn binary_summary(bytes: u64, spill: Option<&SpillReport>) -> Vec<u8> {
    let mut line = format!("[binary output: {bytes} bytes").into_bytes();
    match spill {
        None => {}
        Some(SpillReport::Saved { path, .. }) => {
            line.extend_from_slice(b"; full output in ");
            line.extend_from_slice(&escape_for_marker(path.as_os_str().as_bytes()));
        }
        Some(SpillReport::NotSaved(reason)) => {
            line.extend_from_slice(b"; full output not saved: ");
            line.extend_from_slice(&escape_for_marker(reason.to_string().as_bytes()));
        }
    }
    line.extend_from_slice(b"]\n");
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::testing::{run, run_all_chunkings};

    fn make() -> Box<dyn Transform + Send> {
        Box::<BinarySummary>::default()
    }

    #[test]
    fn text_passes_unchanged() {
        let text: Vec<u8> = b"line\n".repeat(3_000);
        assert_eq!(run(make, &text, 1000).bytes, text);
        assert_eq!(run_all_chunkings(make, b"short\xff\n"), b"short\xff\n");
    }

    #[test]
    fn a_nul_in_the_first_8_kib_makes_a_summary_line() {
        let mut binary = vec![b'x'; 8_000];
        binary.extend_from_slice(b"\0\n\nmore");
        let output = run(make, &binary, 777);
        assert_eq!(output.bytes, b"[binary output: 8007 bytes]\n");
        // It stands for the input's 3 lines.
        assert_eq!(output.merged, [(0, 3)]);
    }

    #[test]
    fn a_nul_after_8_kib_is_text() {
        let mut late = vec![b'x'; PROBE];
        late.push(0);
        assert_eq!(run(make, &late, 100).bytes, late);
    }
}
