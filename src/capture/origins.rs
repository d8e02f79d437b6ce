//! Which raw input lines each line of the capped stream came from, so that
//! markers name lines of the raw input (the spill file) even after
//! cleaning merged some: a squeeze marker stands for the repeats it
//! replaced. Lines that were not merged follow one for one.
//!
//! Only merged lines are recorded, as spans. Those in the head buffer are
//! kept; later ones are forgotten once their line has left the tail ring
//! (the last one forgotten still gives the shift), so memory stays bounded
//! by what the buffers hold.

use std::collections::VecDeque;

/// A merged line of the capped stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    /// Its number in the capped stream (1-based).
    line: u64,
    /// The raw lines it stands for.
    raw_first: u64,
    raw_last: u64,
    /// The capped stream's offset just after it.
    end: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Origins {
    head: Vec<Span>,
    rest: VecDeque<Span>,
    /// The last span dropped from `rest`.
    base: Option<Span>,
}

impl Origins {
    /// Records that line `line`, from offset `start` to `end`, stands for
    /// `lines` raw lines. `in_head`: it starts in the head buffer.
    pub(crate) fn record(&mut self, line: u64, lines: u64, end: u64, in_head: bool) {
        let raw_first = self.raw_lines(line).0;
        let span = Span {
            line,
            raw_first,
            raw_last: raw_first + lines.saturating_sub(1),
            end,
        };
        if in_head {
            self.head.push(span);
        } else {
            self.rest.push_back(span);
        }
    }

    /// The raw lines that line `line` of the capped stream stands for.
    pub(crate) fn raw_lines(&self, line: u64) -> (u64, u64) {
        let before = |spans: &[Span]| spans.iter().rev().find(|span| span.line <= line).copied();
        let (front, back) = self.rest.as_slices();
        let span = before(back)
            .or_else(|| before(front))
            .or(self.base.filter(|span| span.line <= line))
            .or_else(|| before(&self.head));
        match span {
            None => (line, line),
            Some(span) if span.line == line => (span.raw_first, span.raw_last),
            Some(span) => {
                let raw = span.raw_last + (line - span.line);
                (raw, raw)
            }
        }
    }

    /// Forgets the spans of lines that ended before `offset` (they have
    /// left the tail ring), keeping the last one for the shift.
    pub(crate) fn forget_before(&mut self, offset: u64) {
        while let Some(span) = self.rest.front().filter(|span| span.end <= offset) {
            self.base = Some(*span);
            self.rest.pop_front();
        }
    }

    /// Whether spans wait to be forgotten.
    pub(crate) fn has_pending(&self) -> bool {
        !self.rest.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_lines_shift_the_ones_after_them() {
        let mut origins = Origins::default();
        assert_eq!(origins.raw_lines(7), (7, 7));
        // Line 2 stands for 3 raw lines (2-4); line 3 is raw 5.
        origins.record(2, 3, 40, true);
        assert_eq!(origins.raw_lines(1), (1, 1));
        assert_eq!(origins.raw_lines(2), (2, 4));
        assert_eq!(origins.raw_lines(3), (5, 5));
        // Line 10 (raw 12) stands for 100 raw lines: 12-111.
        origins.record(10, 100, 500, false);
        assert_eq!(origins.raw_lines(10), (12, 111));
        assert_eq!(origins.raw_lines(11), (112, 112));
        origins.forget_before(600);
        assert!(!origins.has_pending());
        assert_eq!(origins.raw_lines(20), (121, 121));
        assert_eq!(origins.raw_lines(2), (2, 4));
    }
}
