//! `--squeeze`: a run of k >= 3 identical consecutive lines becomes the
//! first line and one marker line, `[... previous line repeated {k-1} more
//! times ...]`, which stands for the k-1 repeats, when the marker is
//! shorter than the repeats it replaces; with a spill file the marker
//! names the raw lines of the repeats, `(lines a-b)` before its `...]`.
//! Two in a row stay as they are.
//! Lines are compared whole, terminator included, up to [`MAX_COMPARED`]
//! bytes; a longer line is never squeezed.

use memchr::memchr_iter;

use super::Emit;
use super::assemble::{Assembled, MAX_COMPARED, WholeLines};
use crate::vocab::marker::repeat_marker;

/// `--squeeze`, fed whole lines.
pub(crate) type Squeeze = Assembled<Repeats>;

/// `--squeeze`; its markers name the raw lines they stand for when
/// `name_lines` (a spill file holds them).
pub(crate) fn squeeze(name_lines: bool) -> Squeeze {
    Assembled::of(Repeats {
        name_lines,
        ..Repeats::default()
    })
}

#[derive(Default)]
pub(crate) struct Repeats {
    /// The last line passed on (whole), the one repeats are compared with.
    previous: Option<Vec<u8>>,
    /// How many identical lines followed `previous` so far.
    repeats: u64,
    changed: bool,
    name_lines: bool,
    /// The raw lines before the current one (a merged line counts the
    /// lines it stands for).
    raw: u64,
    /// The raw line of the first repeat.
    repeats_from: u64,
}

/// Whether two lines are identical. Log lines that differ mostly differ
/// near their end (counters, ids, durations) after a shared prefix (a
/// timestamp, a level): comparing the last bytes first finds most
/// differences at once.
fn same_line(a: &[u8], b: &[u8]) -> bool {
    /// Compared as one 16-byte word, in registers (a slice compare calls
    /// memcmp, and this runs for most lines).
    fn end(line: &[u8]) -> Option<u128> {
        let end: [u8; 16] = line.get(line.len().checked_sub(16)?..)?.try_into().ok()?;
        Some(u128::from_ne_bytes(end))
    }
    a.len() == b.len() && end(a) == end(b) && a == b
}

impl Repeats {
    /// Ends a run of repeats of `previous`: they become the marker when
    /// there are two or more and the marker is shorter than they are;
    /// otherwise they are shown as they are.
    fn end_run(&mut self, previous: &[u8], out: &mut dyn Emit) {
        let repeats = std::mem::take(&mut self.repeats);
        let lines = (
            self.repeats_from,
            self.repeats_from + repeats.saturating_sub(1),
        );
        let marker = repeat_marker(repeats, self.name_lines.then_some(lines));
        let replaced = repeats.saturating_mul(previous.len() as u64);
        if repeats >= 2 && (marker.len() as u64) < replaced {
            self.changed = true;
            out.merged_line(&marker, repeats);
        } else {
            (0..repeats).for_each(|_| out.bytes(previous));
        }
    }

    /// Ends a run of repeats of the line held from an earlier chunk.
    fn end_held_run(&mut self, out: &mut dyn Emit) {
        let previous = self.previous.take();
        self.end_run(previous.as_deref().unwrap_or_default(), out);
        self.previous = previous;
    }

    /// Whether `input[start..end]` repeats the previous line (`last` in the
    /// chunk, else the held one), whose length is already known to match.
    fn repeats_last(
        &self,
        input: &[u8],
        last: Option<(usize, usize)>,
        start: usize,
        end: usize,
    ) -> bool {
        let line = &input[start..end];
        match last {
            Some((s, e)) => same_line(&input[s..e], line),
            None => self.previous.as_deref().is_some_and(|p| same_line(p, line)),
        }
    }

    /// The current line repeats the previous one.
    fn repeat(&mut self) {
        if self.repeats == 0 {
            self.repeats_from = self.raw + 1;
        }
        self.repeats += 1;
        self.raw += 1;
    }

    /// Makes `line` the one later lines are compared with (none, for a
    /// line too long to compare).
    fn remember(&mut self, line: &[u8]) {
        if line.len() > MAX_COMPARED {
            self.previous = None;
            return;
        }
        let previous = self.previous.get_or_insert_with(Vec::new);
        previous.clear();
        previous.extend_from_slice(line);
    }
}

impl WholeLines for Repeats {
    /// Lines that are not repeats go out as they are, many at once; the
    /// line they are compared with is borrowed from the chunk while it is
    /// in it, and copied only at the chunk's end.
    fn lines(&mut self, input: &[u8], from: usize, out: &mut dyn Emit) -> usize {
        // `pending`: where lines not yet emitted begin; `last`: the
        // previous line when it lies in this chunk (else the held one), and
        // `last_len` its length (0: none to compare with), so that most
        // lines are told apart by their length alone.
        let mut at = from;
        let mut pending = at;
        let mut last: Option<(usize, usize)> = None;
        let mut last_len = self.previous.as_ref().map_or(0, Vec::len);
        for newline in memchr_iter(b'\n', &input[from..]) {
            let (start, end) = (at, from + newline + 1);
            at = end;
            let len = end - start;
            if len == last_len && self.repeats_last(input, last, start, end) {
                if pending < start {
                    out.bytes(&input[pending..start]);
                }
                self.repeat();
                pending = end;
                continue;
            }
            if self.repeats > 0 {
                match last {
                    Some((s, e)) => self.end_run(&input[s..e], out),
                    None => self.end_held_run(out),
                }
            }
            if len > MAX_COMPARED {
                // A line too long to compare breaks any comparison.
                self.previous = None;
                (last, last_len) = (None, 0);
                out.bytes(&input[pending..end]);
                pending = end;
            } else {
                (last, last_len) = (Some((start, end)), len);
            }
            self.raw += 1;
        }
        if pending < at {
            out.bytes(&input[pending..at]);
        }
        if let Some((s, e)) = last {
            self.remember(&input[s..e]);
        }
        at
    }

    fn line(&mut self, line: &[u8], out: &mut dyn Emit) {
        if line.len() <= MAX_COMPARED && self.previous.as_deref() == Some(line) {
            self.repeat();
            return;
        }
        self.end_held_run(out);
        out.bytes(line);
        self.remember(line);
        self.raw += 1;
    }

    fn too_long(&mut self, out: &mut dyn Emit) {
        self.end_held_run(out);
        self.previous = None;
    }

    fn passed(&mut self) {
        self.raw += 1;
    }

    fn merged(&mut self, line: &[u8], lines: u64, out: &mut dyn Emit) {
        // A merged line is never a repeat of anything.
        self.end_held_run(out);
        self.previous = None;
        self.raw += lines;
        out.merged_line(line, lines);
    }

    fn end(&mut self, out: &mut dyn Emit) {
        self.end_held_run(out);
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

    /// A line long enough that two repeats of it outweigh a marker.
    const LONG: &str = "compiling the same crate again and again\n";

    #[test]
    fn runs_of_three_or_more_become_a_marker() {
        let repeated = |n: usize| LONG.repeat(n);
        assert_eq!(
            squeeze(format!("a\n{}c\n", repeated(4)).as_bytes()),
            format!("a\n{LONG}[... previous line repeated 3 more times ...]\nc\n").as_bytes()
        );
        let twice = format!("{}y\n", repeated(2));
        assert_eq!(squeeze(twice.as_bytes()), twice.as_bytes());
        let unterminated = format!("{}{}", repeated(2), LONG.trim_end());
        assert_eq!(
            squeeze(unterminated.as_bytes()),
            unterminated.as_bytes(),
            "the last line has no newline: not identical"
        );
        assert_eq!(
            squeeze(repeated(3).as_bytes()),
            format!("{LONG}[... previous line repeated 2 more times ...]\n").as_bytes()
        );
    }

    #[test]
    fn repeats_no_longer_than_the_marker_stay() {
        assert_eq!(squeeze(b"a\nb\nb\nb\nb\nc\n"), b"a\nb\nb\nb\nb\nc\n");
        let short = "ok\n".repeat(15);
        assert_eq!(
            squeeze(short.as_bytes()),
            short.as_bytes(),
            "14 repeats of 3 bytes"
        );
        assert_eq!(
            squeeze("ok\n".repeat(17).as_bytes()),
            b"ok\n[... previous line repeated 16 more times ...]\n",
            "16 repeats are 48 bytes, the marker 47"
        );
    }

    #[test]
    fn with_a_spill_file_the_marker_names_the_raw_lines_of_the_repeats() {
        let input = format!("a\n{}c\n{}", LONG.repeat(4), LONG.repeat(3));
        assert_eq!(
            run_all_chunkings(|| Box::new(super::squeeze(true)), input.as_bytes()),
            format!(
                "a\n{LONG}[... previous line repeated 3 more times (lines 3-5) ...]\nc\n\
                 {LONG}[... previous line repeated 2 more times (lines 8-9) ...]\n"
            )
            .as_bytes()
        );
    }

    #[test]
    fn the_marker_stands_for_the_repeats() {
        let input = format!("a\n{}b\n", LONG.repeat(4));
        let output = run(|| Box::<Squeeze>::default(), input.as_bytes(), 3);
        assert_eq!(output.merged, [(2 + LONG.len(), 3)]);
    }

    #[test]
    fn lines_too_long_to_compare_pass_through() {
        let long = [vec![b'x'; MAX_COMPARED + 10], b"\n".to_vec()].concat();
        let input = [long.clone(), long.clone(), long.clone()].concat();
        for chunk in [100, 4096, 65_536, input.len()] {
            let output = run(|| Box::<Squeeze>::default(), &input, chunk).bytes;
            assert!(
                output == input,
                "chunks of {chunk}: {} bytes out",
                output.len()
            );
        }
    }
}
