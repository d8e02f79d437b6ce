//! The streaming core: the bounded head buffer, the tail ring and the
//! running counters, and the rules that decide where the two cuts land.
//!
//! It sees only byte slices: no I/O, no formatting. Memory is bounded by the
//! budget (head + tail + 2 bytes), whatever the length of the input.

use memchr::{memchr, memchr_iter, memrchr, memrchr_iter};

use crate::ring::TailRing;

/// Where cuts may land.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutMode {
    /// Move a cut to the nearest line boundary when that loses at most a
    /// quarter of its side's budget.
    Lines,
    /// Cut at the byte budget (never inside a UTF-8 character).
    Bytes,
}

/// The budget for one stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// H: bytes kept from the start.
    pub head: u64,
    /// T: bytes kept from the end.
    pub tail: u64,
    /// N: with `--lines`, at most floor(N/2) lines from the start and the
    /// rest from the end.
    pub lines: Option<u64>,
    pub cut: CutMode,
}

/// The UTF-8 rule moves a cut at most this many bytes: a character is at
/// most 4 bytes long, so at most 3 of them are continuation bytes.
const MAX_CONTINUATION_BYTES: u64 = 3;

/// Consumes a stream chunk by chunk and keeps what the output may need.
///
/// The head buffer holds B[0:H+1] and the ring holds the last T+1 bytes: the
/// extra byte on each side is the one the cut rules look at (B[h] for the
/// UTF-8 rule at h = H, B[t-1] for the line rule at t = n - T).
pub struct Capper {
    budget: Budget,
    head: Vec<u8>,
    head_capacity: usize,
    tail: TailRing,
    total_bytes: u64,
    newlines: u64,
    last_byte: Option<u8>,
    /// `\n` bytes in the head buffer, until the `--lines` limit is found.
    head_newlines: u64,
    /// With `--lines N`: the end of line floor(N/2), once it has arrived.
    line_limit_end: Option<u64>,
    /// See [`settled_head_len`](Capper::settled_head_len).
    settled: usize,
}

impl Capper {
    pub fn new(budget: Budget) -> Capper {
        Capper {
            budget,
            head: Vec::new(),
            head_capacity: capacity_for(budget.head),
            tail: TailRing::new(capacity_for(budget.tail)),
            total_bytes: 0,
            newlines: 0,
            last_byte: None,
            head_newlines: 0,
            line_limit_end: budget.lines.filter(|max| max / 2 == 0).map(|_| 0),
            settled: 0,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        let Some(&last) = chunk.last() else { return };
        self.total_bytes += chunk.len() as u64;
        self.newlines += memchr_iter(b'\n', chunk).count() as u64;
        self.last_byte = Some(last);
        let into_head = (self.head_capacity - self.head.len()).min(chunk.len());
        if into_head > 0 {
            self.grow_head(&chunk[..into_head]);
        }
        self.tail.push(&chunk[into_head..]);
    }

    /// Appends to the head, keeping the `--lines` limit and the settled
    /// length current: work proportional to the new bytes only.
    fn grow_head(&mut self, added: &[u8]) {
        let start = self.head.len();
        self.head.extend_from_slice(added);
        if let (Some(max), None) = (self.budget.lines, self.line_limit_end) {
            for i in memchr_iter(b'\n', added) {
                self.head_newlines += 1;
                if self.head_newlines == max / 2 {
                    self.line_limit_end = Some((start + i + 1) as u64);
                    break;
                }
            }
        }
        self.settled = if self.head.len() == self.head_capacity {
            head_cut(
                &self.head,
                self.total_bytes,
                &self.budget,
                self.line_limit_end,
            ) as usize
        } else {
            let arrived = self
                .line_limit_end
                .map_or(self.head.len(), |end| end as usize);
            match self.budget.cut {
                CutMode::Lines => memrchr(b'\n', &self.head[self.settled..arrived])
                    .map_or(self.settled, |p| self.settled + p + 1),
                CutMode::Bytes => complete_characters(&self.head[..arrived]),
            }
        };
    }

    /// The bytes seen so far at the start of the stream (at most H+1).
    pub fn head_bytes(&self) -> &[u8] {
        &self.head
    }

    /// How many head bytes `--live` may print now, in order, before the
    /// rest of the stream is known.
    ///
    /// Once H+1 bytes are in, this is the head cut itself. Before that it is
    /// the end of the last complete line (`--cut lines`) or character
    /// (`--cut bytes`) that arrived, and never past the `--lines` limit:
    /// on valid UTF-8 the final cut cannot land before it. On invalid UTF-8
    /// it could (a continuation byte right after a newline moves the cut
    /// back), so the capture is finished with
    /// [`finish_with_head_at_least`](Capper::finish_with_head_at_least):
    /// what was printed stays the head.
    pub fn settled_head_len(&self) -> usize {
        self.settled
    }

    /// Ends the stream and decides the cuts.
    pub fn finish(self) -> Capture {
        self.finish_with_head_at_least(0)
    }

    /// Ends the stream; a cut head keeps at least `printed` bytes (see
    /// [`settled_head_len`](Capper::settled_head_len)).
    pub fn finish_with_head_at_least(self, printed: usize) -> Capture {
        let n = self.total_bytes;
        let lines = self.newlines + u64::from(self.last_byte.is_some_and(|b| b != b'\n'));
        let mut head = self.head;
        let fits = n <= self.budget.head.saturating_add(self.budget.tail)
            && self.budget.lines.is_none_or(|max| lines <= max);
        // When head and ring together hold every byte, join them so both
        // cuts search one buffer; otherwise the ring holds B[n-T-1:n].
        let (tail, tail_start) = if head.len() as u64 + self.tail.len() as u64 == n {
            head.extend_from_slice(&self.tail.into_vec());
            (None, 0)
        } else {
            (
                Some(self.tail.into_vec()),
                n - (capacity_for(self.budget.tail) as u64),
            )
        };
        let mut capture = Capture {
            head,
            tail,
            tail_start,
            total_bytes: n,
            total_lines: lines,
            cut: None,
        };
        if !fits {
            capture.cut = Some(capture.decide_cut(
                &self.budget,
                self.newlines,
                self.line_limit_end,
                printed as u64,
            ));
        }
        capture
    }
}

/// Buffer sizes are one byte over the budget (see [`Capper`]).
fn capacity_for(budget: u64) -> usize {
    usize::try_from(budget.saturating_add(1)).unwrap_or(usize::MAX)
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// The length of `bytes` without a possibly incomplete last character:
/// trailing continuation bytes and the lead byte before them.
fn complete_characters(bytes: &[u8]) -> usize {
    let mut end = bytes.len();
    let mut steps = 0;
    while end > 0 && steps < MAX_CONTINUATION_BYTES && is_continuation(bytes[end - 1]) {
        end -= 1;
        steps += 1;
    }
    if end > 0 && bytes[end - 1] >= 0xC0 {
        end -= 1;
    }
    end
}

/// The head cut h, from B[0:H+1] (or all of B when shorter) and n:
/// 1. h = min(H, n), and with `--lines N` at most the end of line floor(N/2);
/// 2. while B[h] is a UTF-8 continuation byte, h moves back (at most 3);
/// 3. `--cut lines`: h moves back to just after the last `\n` in B[0:h]
///    when that loses at most floor(H/4) bytes.
fn head_cut(head: &[u8], n: u64, budget: &Budget, line_limit_end: Option<u64>) -> u64 {
    let mut h = budget.head.min(n).min(line_limit_end.unwrap_or(u64::MAX));
    for _ in 0..MAX_CONTINUATION_BYTES {
        if h > 0 && h < n && is_continuation(head[h as usize]) {
            h -= 1;
        } else {
            break;
        }
    }
    if budget.cut == CutMode::Lines
        && let Some(p) = memrchr(b'\n', &head[..h as usize])
    {
        let line_start = p as u64 + 1;
        if h - line_start <= budget.head / 4 {
            h = line_start;
        }
    }
    h
}

/// The captured stream: what it held and, when it did not fit, the cuts.
pub struct Capture {
    /// B[0:head.len()]; all of B when `tail` is `None`.
    head: Vec<u8>,
    /// B[tail_start:n] when the middle was not kept.
    tail: Option<Vec<u8>>,
    tail_start: u64,
    total_bytes: u64,
    total_lines: u64,
    cut: Option<Cut>,
}

/// Where the output was cut: B[head_end:tail_start] was left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    /// h: the head is B[0:h].
    pub head_end: u64,
    /// t: the tail is B[t:n].
    pub tail_start: u64,
    /// 1 + the number of `\n` in B[0:h]: the line the omitted part starts in.
    pub first_omitted_line: u64,
    /// 1 + the number of `\n` in B[0:t-1]: the line it ends in.
    pub last_omitted_line: u64,
}

impl Cut {
    pub fn omitted_bytes(&self) -> u64 {
        self.tail_start - self.head_end
    }
}

impl Capture {
    /// n: the input's length in bytes.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// L: the number of `\n`, plus 1 if the input is non-empty and does not
    /// end in `\n`.
    pub fn total_lines(&self) -> u64 {
        self.total_lines
    }

    /// `None` when the whole input fits the budget.
    pub fn cut(&self) -> Option<&Cut> {
        self.cut.as_ref()
    }

    /// B[0:h] when cut, otherwise all of B.
    pub fn head(&self) -> &[u8] {
        match &self.cut {
            Some(cut) => &self.head[..cut.head_end as usize],
            None => &self.head,
        }
    }

    /// B[t:n] when cut, otherwise empty.
    pub fn tail(&self) -> &[u8] {
        match &self.cut {
            Some(cut) => self.tail_from(cut.tail_start),
            None => &[],
        }
    }

    /// B[from:n]; `from` must be at or after the first byte kept for the tail.
    fn tail_from(&self, from: u64) -> &[u8] {
        let kept = self.tail.as_ref().unwrap_or(&self.head);
        &kept[(from - self.tail_start) as usize..]
    }

    fn decide_cut(
        &self,
        budget: &Budget,
        newlines: u64,
        line_limit_end: Option<u64>,
        printed: u64,
    ) -> Cut {
        let head_end = head_cut(&self.head, self.total_bytes, budget, line_limit_end).max(printed);
        let tail_start = self.tail_cut(budget, newlines);
        let newlines_before_tail =
            newlines - memchr_iter(b'\n', self.tail_from(tail_start - 1)).count() as u64;
        Cut {
            head_end,
            tail_start,
            first_omitted_line: 1 + memchr_iter(b'\n', &self.head[..head_end as usize]).count()
                as u64,
            last_omitted_line: 1 + newlines_before_tail,
        }
    }

    /// The tail cut t, mirroring [`head_cut`]:
    /// 1. t = n - T, and with `--lines N` at least the start of the last
    ///    N - floor(N/2) lines;
    /// 2. while B[t] is a UTF-8 continuation byte, t moves forward (at most 3);
    /// 3. `--cut lines`: t moves forward to just after the first `\n` at or
    ///    after t-1 when that loses at most floor(T/4) bytes.
    fn tail_cut(&self, budget: &Budget, newlines: u64) -> u64 {
        let n = self.total_bytes;
        let mut t = n.saturating_sub(budget.tail);
        if let Some(max) = budget.lines {
            t = t.max(self.start_of_last_lines(max - max / 2, newlines));
        }
        for _ in 0..MAX_CONTINUATION_BYTES {
            if t < n && is_continuation(self.tail_from(t)[0]) {
                t += 1;
            } else {
                break;
            }
        }
        if budget.cut == CutMode::Lines {
            // t > h >= 0 here, so t - 1 is a kept byte (see `Capper`).
            if let Some(i) = memchr(b'\n', self.tail_from(t - 1))
                && i as u64 <= budget.tail / 4
            {
                t += i as u64;
            }
        }
        t
    }

    /// Where the last `count` lines start; at or before the first kept tail
    /// byte when that is further back than the ring reaches.
    fn start_of_last_lines(&self, count: u64, newlines: u64) -> u64 {
        let Some(first_kept_newline) = self.total_lines.checked_sub(count).filter(|&j| j > 0)
        else {
            return 0;
        };
        // The last `count` lines start after newline number j (1-based),
        // which has `newlines - j` newlines after it.
        let Some(newlines_after) = newlines.checked_sub(first_kept_newline) else {
            return self.total_bytes;
        };
        let kept = self.tail.as_ref().unwrap_or(&self.head);
        usize::try_from(newlines_after)
            .ok()
            .and_then(|skip| memrchr_iter(b'\n', kept).nth(skip))
            .map_or(self.tail_start, |i| self.tail_start + i as u64 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(input: &[u8], budget: Budget) -> Capture {
        let mut capper = Capper::new(budget);
        capper.push(input);
        capper.finish()
    }

    fn bytes(head: u64, tail: u64) -> Budget {
        Budget {
            head,
            tail,
            lines: None,
            cut: CutMode::Bytes,
        }
    }

    #[test]
    fn input_within_budget_is_kept_whole() {
        let c = capture(b"hello\n", bytes(3, 3));
        assert_eq!(c.cut(), None);
        assert_eq!(c.head(), b"hello\n");
        assert_eq!((c.total_bytes(), c.total_lines()), (6, 1));
    }

    #[test]
    fn one_byte_over_cuts_one_byte() {
        let c = capture(b"abcdefg", bytes(3, 3));
        assert_eq!((c.head(), c.tail()), (&b"abc"[..], &b"efg"[..]));
        let cut = c.cut().unwrap();
        assert_eq!(
            (
                cut.omitted_bytes(),
                cut.first_omitted_line,
                cut.last_omitted_line
            ),
            (1, 1, 1)
        );
    }

    #[test]
    fn utf8_characters_are_not_split() {
        // "é" is C3 A9: head cut at 2 would split it, tail cut at 3 too.
        let c = capture("aéxé".as_bytes(), bytes(2, 2));
        assert_eq!((c.head(), c.tail()), ("a".as_bytes(), "é".as_bytes()));
    }

    #[test]
    fn line_cut_moves_to_boundary_within_a_quarter() {
        let input = b"0123456789\nabc\n0123456789\n";
        let c = capture(
            input,
            Budget {
                head: 12,
                tail: 13,
                lines: None,
                cut: CutMode::Lines,
            },
        );
        assert_eq!(c.head(), b"0123456789\n");
        assert_eq!(c.tail(), b"0123456789\n");
    }

    #[test]
    fn lines_cap_keeps_half_from_each_end() {
        let c = capture(
            b"1\n2\n3\n4\n5\n",
            Budget {
                head: 100,
                tail: 100,
                lines: Some(3),
                cut: CutMode::Lines,
            },
        );
        assert_eq!((c.head(), c.tail()), (&b"1\n"[..], &b"4\n5\n"[..]));
        let cut = c.cut().unwrap();
        assert_eq!((cut.first_omitted_line, cut.last_omitted_line), (2, 3));
    }
}
