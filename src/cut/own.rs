//! Toolcap's own text in the capped stream: the lines a transform wrote
//! (a squeeze or fold marker, the binary summary, a redacted block) and
//! the marker `--max-line` puts inside a line. A cut never splits one: it
//! is shown whole or not at all (issue 21), as a record is at a record
//! boundary. Half a marker, `[... 38 similar line`, says nothing true.
//!
//! Memory is bounded by what the buffers hold: the spans that start in the
//! head buffer are kept (at most one a byte of it), later ones only while
//! they reach into the tail ring.

use std::collections::VecDeque;

/// The spans of toolcap's own text a cut may still land in.
#[derive(Debug, Default)]
pub(crate) struct Own {
    /// Those that start in the head buffer, in order.
    head: Vec<(u64, u64)>,
    /// Later ones, in order, while they end after the bytes the tail ring
    /// let go of.
    rest: VecDeque<(u64, u64)>,
}

impl Own {
    /// Records B[start:end] as toolcap's own; `in_head`: it starts in the
    /// head buffer.
    pub(crate) fn record(&mut self, start: u64, end: u64, in_head: bool) {
        if end <= start {
            return;
        }
        if in_head {
            self.head.push((start, end));
        } else {
            self.rest.push_back((start, end));
        }
    }

    /// Forgets the spans that end at or before `offset` (the tail ring
    /// let go of them: no cut can land there any more).
    pub(crate) fn forget_before(&mut self, offset: u64) {
        while self.rest.front().is_some_and(|&(_, end)| end <= offset) {
            self.rest.pop_front();
        }
    }

    /// Whether spans wait to be forgotten.
    pub(crate) fn has_pending(&self) -> bool {
        !self.rest.is_empty()
    }

    /// The span that `at` falls strictly inside, if any.
    fn around(&self, at: u64) -> Option<(u64, u64)> {
        let inside = |spans: &[(u64, u64)]| {
            let after = spans.partition_point(|&(start, _)| start < at);
            after
                .checked_sub(1)
                .map(|last| spans[last])
                .filter(|&(_, end)| end > at)
        };
        let (front, back) = self.rest.as_slices();
        inside(&self.head)
            .or_else(|| inside(front))
            .or_else(|| inside(back))
    }

    /// A head cut h, or the start of the span it falls inside.
    pub(crate) fn back(&self, h: u64) -> u64 {
        self.around(h).map_or(h, |(start, _)| start)
    }

    /// A tail cut t, or the end of the span it falls inside.
    pub(crate) fn forward(&self, t: u64) -> u64 {
        self.around(t).map_or(t, |(_, end)| end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_inside_a_span_moves_to_its_edge() {
        let mut own = Own::default();
        own.record(10, 20, true);
        own.record(30, 40, false);
        own.record(50, 60, false);
        assert_eq!((own.back(10), own.back(15), own.back(20)), (10, 10, 20));
        assert_eq!(
            (own.forward(30), own.forward(31), own.forward(40)),
            (30, 40, 40)
        );
        assert_eq!((own.back(55), own.forward(12)), (50, 20));
        own.forget_before(45);
        assert_eq!((own.forward(35), own.forward(55)), (35, 60));
        assert!(own.has_pending());
    }
}
