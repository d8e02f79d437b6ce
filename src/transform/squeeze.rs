//! `--squeeze`: a run of k >= 3 identical consecutive lines becomes the
//! first line and one marker line, `[... previous line repeated {k-1} more
//! times ...]`, which stands for the k-1 repeats. Two in a row stay as they
//! are. Lines are compared whole, terminator included, up to
//! [`MAX_COMPARED`] bytes; a longer line is never squeezed.

use super::lines::segments;
use super::{Emit, Ending, Transform};
use crate::render::text::repeat_marker;

/// Lines up to this long are held back to be compared.
const MAX_COMPARED: usize = 64 * 1024;

#[derive(Default)]
pub(crate) struct Squeeze {
    /// The last line passed on (whole), the one repeats are compared with.
    previous: Option<Vec<u8>>,
    /// How many identical lines followed `previous` so far.
    repeats: u64,
    /// The current line, while it arrives.
    partial: Vec<u8>,
    /// The current line outgrew [`MAX_COMPARED`]: passed on as it comes.
    passing: bool,
    changed: bool,
}

impl Squeeze {
    /// Ends a run: one repeat is shown as it is, more become the marker.
    fn end_run(&mut self, out: &mut dyn Emit) {
        match std::mem::take(&mut self.repeats) {
            0 => {}
            1 => out.bytes(self.previous.as_deref().unwrap_or_default()),
            repeats => {
                self.changed = true;
                out.merged_line(&repeat_marker(repeats), repeats);
            }
        }
    }

    /// A whole line: counted as a repeat, or passed on.
    fn line(&mut self, line: &[u8], out: &mut dyn Emit) {
        if line.len() > MAX_COMPARED {
            self.end_run(out);
            self.previous = None;
            out.bytes(line);
            return;
        }
        if self.previous.as_deref() == Some(line) {
            self.repeats += 1;
            return;
        }
        self.end_run(out);
        out.bytes(line);
        match &mut self.previous {
            Some(previous) => {
                previous.clear();
                previous.extend_from_slice(line);
            }
            None => self.previous = Some(line.to_vec()),
        }
    }
}

impl Transform for Squeeze {
    fn push(&mut self, input: &[u8], out: &mut dyn Emit) {
        for (segment, ends_line) in segments(input) {
            if self.passing {
                out.bytes(segment);
                self.passing = !ends_line;
                continue;
            }
            if !ends_line || !self.partial.is_empty() {
                self.partial.extend_from_slice(segment);
                if ends_line {
                    let line = std::mem::take(&mut self.partial);
                    self.line(&line, out);
                    self.partial = line;
                    self.partial.clear();
                } else if self.partial.len() > MAX_COMPARED {
                    self.end_run(out);
                    self.previous = None;
                    out.bytes(&self.partial);
                    self.partial.clear();
                    self.passing = true;
                }
                continue;
            }
            self.line(segment, out);
        }
    }

    fn push_merged(&mut self, line: &[u8], lines: u64, out: &mut dyn Emit) {
        // A merged line is never a repeat of anything.
        self.end_run(out);
        self.previous = None;
        out.merged_line(line, lines);
    }

    fn finish(&mut self, _ending: &Ending, out: &mut dyn Emit) {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.line(&line, out);
        }
        self.end_run(out);
    }

    fn changed(&self) -> bool {
        self.changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::testing::{run, run_all_chunkings};

    fn squeeze(input: &[u8]) -> Vec<u8> {
        run_all_chunkings(|| Box::<Squeeze>::default(), input)
    }

    #[test]
    fn runs_of_three_or_more_become_a_marker() {
        assert_eq!(
            squeeze(b"a\nb\nb\nb\nb\nc\n"),
            b"a\nb\n[... previous line repeated 3 more times ...]\nc\n"
        );
        assert_eq!(squeeze(b"x\nx\ny\n"), b"x\nx\ny\n");
        assert_eq!(
            squeeze(b"z\nz\nz"),
            b"z\nz\nz",
            "the last line has no newline: not identical"
        );
        assert_eq!(
            squeeze(b"z\nz\nz\n"),
            b"z\n[... previous line repeated 2 more times ...]\n"
        );
    }

    #[test]
    fn the_marker_stands_for_the_repeats() {
        let output = run(|| Box::<Squeeze>::default(), b"a\na\na\na\nb\n", 3);
        assert_eq!(output.merged, [(2, 3)]);
    }

    #[test]
    fn lines_too_long_to_compare_pass_through() {
        let long = [vec![b'x'; MAX_COMPARED + 10], b"\n".to_vec()].concat();
        let input = [long.clone(), long.clone(), long.clone()].concat();
        for chunk in [100, 4096, 65_536, input.len()] {
            let output = run(|| Box::<Squeeze>::default(), &input, chunk).bytes;
            assert!(output == input, "chunks of {chunk}: {} bytes out", output.len());
        }
    }
}
