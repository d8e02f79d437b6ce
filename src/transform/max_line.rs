//! `--max-line SIZE`: a line longer than SIZE bytes (not counting its `\n`
//! or `\r\n`) keeps its first floor(SIZE/2) and last SIZE - floor(SIZE/2)
//! bytes, with ` [... {N} bytes of this line truncated ...] ` between
//! them; neither part splits a UTF-8 character. Memory is bounded by SIZE:
//! a long line's head goes out as soon as the line is known to be too long,
//! and only its last bytes are held.

use memchr::{memchr, memchr_iter};

use super::{Emit, Ending, Transform};
use crate::vocab::TailRing;
use crate::vocab::marker::line_cut_marker;
use crate::vocab::split_terminator;
use crate::vocab::utf8::{move_head_back, move_tail_forward};

/// The terminator (`\r\n`) may still arrive after what looks like content.
const TERMINATOR: usize = 2;

pub(crate) struct MaxLine {
    limit: usize,
    /// The current line, while it may still be short enough.
    held: Vec<u8>,
    /// The current line is too long: its head went out already.
    long: Option<LongLine>,
    changed: bool,
}

struct LongLine {
    head_len: usize,
    /// Bytes of the line seen so far, terminator included.
    seen: u64,
    /// Its last bytes: enough for the tail part and a terminator.
    last: TailRing,
}

impl MaxLine {
    pub(crate) fn new(limit: u64) -> MaxLine {
        MaxLine {
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            held: Vec::new(),
            long: None,
            changed: false,
        }
    }

    fn head_budget(&self) -> usize {
        self.limit / 2
    }

    fn tail_budget(&self) -> usize {
        self.limit - self.limit / 2
    }

    /// The line in `held` is too long: emits its head, keeps its end.
    fn start_long(&mut self, out: &mut dyn Emit) {
        let held = std::mem::take(&mut self.held);
        let head_len = head_part(&held, self.head_budget());
        out.bytes(&held[..head_len]);
        let mut last = TailRing::new(self.tail_budget().saturating_add(TERMINATOR));
        last.push(&held[head_len..], |_| {});
        self.long = Some(LongLine {
            head_len,
            seen: held.len() as u64,
            last,
        });
        self.held = held;
        self.held.clear();
        self.changed = true;
    }

    /// Ends a long line: the marker, its tail part and its terminator.
    fn end_long(&mut self, long: LongLine, out: &mut dyn Emit) {
        let last = long.last.into_vec();
        let (content_end, terminator) = split_terminator(&last);
        let content_len = long.seen - terminator.len() as u64;
        let keep = self.tail_budget().min(content_end.len());
        let start = content_end.len() - keep;
        let start = move_tail_forward(start as u64, content_end.len() as u64, |i| {
            content_end[i as usize]
        }) as usize;
        let tail = &content_end[start..];
        let removed = content_len - long.head_len as u64 - tail.len() as u64;
        out.own(&line_cut_marker(removed));
        out.bytes(tail);
        out.bytes(terminator);
    }

    /// A whole line that arrived in one piece (`held` empty, not long).
    fn whole_line(&mut self, line: &[u8], out: &mut dyn Emit) {
        let (content, _) = split_terminator(line);
        if content.len() <= self.limit {
            out.bytes(line);
            return;
        }
        self.held.extend_from_slice(line);
        self.start_long(out);
        // `start_long` put everything after the head into the ring, which
        // holds enough of the end.
        if let Some(long) = self.long.take() {
            self.end_long(long, out);
        }
    }
}

/// The head part's length: floor(limit/2) bytes, moved back off a split
/// character (at most 3 bytes).
fn head_part(line: &[u8], budget: usize) -> usize {
    let len = line.len() as u64;
    move_head_back(budget.min(line.len()) as u64, len, |i| line[i as usize]) as usize
}

impl Transform for MaxLine {
    /// Lines within the limit go out as they are, many at once.
    fn push(&mut self, input: &[u8], out: &mut dyn Emit) {
        let mut at = 0;
        // Finish a line that began in an earlier chunk.
        if self.long.is_some() || !self.held.is_empty() {
            let end = memchr(b'\n', input).map_or(input.len(), |p| p + 1);
            let segment = &input[..end];
            let ends_line = segment.last() == Some(&b'\n');
            if let Some(long) = &mut self.long {
                long.seen += segment.len() as u64;
                long.last.push(segment, |_| {});
                if ends_line && let Some(long) = self.long.take() {
                    self.end_long(long, out);
                }
            } else {
                self.held.extend_from_slice(segment);
                if ends_line {
                    let line = std::mem::take(&mut self.held);
                    self.whole_line(&line, out);
                } else if self.held.len() > self.limit.saturating_add(TERMINATOR) {
                    self.start_long(out);
                }
            }
            at = end;
        }
        let mut short_from = at;
        let base = at;
        for newline in memchr_iter(b'\n', &input[base..]) {
            let (start, end) = (at, base + newline + 1);
            at = end;
            // Cheap test first: a line no longer than the limit, newline
            // included, is short whatever its terminator.
            if end - start <= self.limit
                || split_terminator(&input[start..end]).0.len() <= self.limit
            {
                continue;
            }
            if short_from < start {
                out.bytes(&input[short_from..start]);
            }
            self.whole_line(&input[start..end], out);
            short_from = end;
        }
        if short_from < at {
            out.bytes(&input[short_from..at]);
        }
        let rest = &input[at..];
        if !rest.is_empty() {
            self.held.extend_from_slice(rest);
            if self.held.len() > self.limit.saturating_add(TERMINATOR) {
                self.start_long(out);
            }
        }
    }

    /// A merged line is toolcap's own (a squeeze marker, the binary
    /// summary): never cut.
    fn push_merged(&mut self, line: &[u8], lines: u64, out: &mut dyn Emit) {
        out.merged_line(line, lines);
    }

    fn finish(&mut self, _ending: &Ending, out: &mut dyn Emit) {
        if let Some(long) = self.long.take() {
            self.end_long(long, out);
        } else if !self.held.is_empty() {
            let line = std::mem::take(&mut self.held);
            self.whole_line(&line, out);
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

    fn cap_lines(limit: u64, input: &[u8]) -> Vec<u8> {
        run_all_chunkings(|| Box::new(MaxLine::new(limit)), input)
    }

    #[test]
    fn long_lines_keep_both_ends() {
        assert_eq!(
            cap_lines(6, b"short\n0123456789\nend"),
            b"short\n012 [... 4 bytes of this line truncated ...] 789\nend"
        );
        assert_eq!(
            cap_lines(6, b"0123456789\r\n"),
            b"012 [... 4 bytes of this line truncated ...] 789\r\n"
        );
        // Exactly the limit, terminator not counted: unchanged.
        assert_eq!(cap_lines(6, b"012345\r\n012345"), b"012345\r\n012345");
    }

    #[test]
    fn characters_are_not_split() {
        // "€" is 3 bytes: the head part moves back, the tail part forward.
        assert_eq!(
            cap_lines(4, "a€€€€b\n".as_bytes()),
            "a [... 12 bytes of this line truncated ...] b\n".as_bytes()
        );
    }

    #[test]
    fn a_zero_limit_leaves_only_the_marker() {
        assert_eq!(
            cap_lines(0, b"abc\n\n"),
            b" [... 3 bytes of this line truncated ...] \n\n"
        );
    }
}
