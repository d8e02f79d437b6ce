//! The head buffer: the first H+2 bytes of a stream (the extra bytes are
//! the ones the cut rules look at: B[h] for UTF-8, and B[h+1] for whether
//! an ESC at h ends a string or is the start of its `ESC \`), and what of them `--live` may print
//! before the rest of the stream is known.

use crate::cut;
use crate::cut::{Budget, Own};
use memchr::memchr_iter;

pub(crate) struct HeadBuffer {
    bytes: Vec<u8>,
    capacity: usize,
    /// `\n` bytes in the buffer, until the `--lines` limit is found.
    newlines: u64,
    /// With `--lines N`: the end of line floor(N/2), once it has arrived.
    line_limit_end: Option<u64>,
    /// See [`settled`](HeadBuffer::settled).
    settled: usize,
}

impl HeadBuffer {
    pub(crate) fn new(capacity: usize, budget: &Budget) -> HeadBuffer {
        HeadBuffer {
            bytes: Vec::new(),
            capacity,
            newlines: 0,
            // With floor(N/2) = 0 the head ends before the first byte.
            line_limit_end: budget.lines.filter(|max| max / 2 == 0).map(|_| 0),
            settled: 0,
        }
    }

    /// How many bytes it holds when full: H+2.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many more bytes the buffer takes.
    pub(crate) fn room(&self) -> usize {
        self.capacity - self.bytes.len()
    }

    /// Appends bytes (at most [`room`](HeadBuffer::room)), keeping the
    /// `--lines` limit and the settled length current: work in proportion
    /// to the new bytes only. `total` is the stream's length so far, and
    /// `own` toolcap's own text in it.
    pub(crate) fn grow(&mut self, added: &[u8], budget: &Budget, total: u64, own: &Own) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(added);
        if let (Some(max), None) = (budget.lines, self.line_limit_end) {
            for i in memchr_iter(b'\n', added) {
                self.newlines += 1;
                if self.newlines == max / 2 {
                    self.line_limit_end = Some((start + i + 1) as u64);
                    break;
                }
            }
        }
        self.settled = if self.bytes.len() == self.capacity {
            cut::head_cut(&self.bytes, total, budget, self.line_limit_end, own) as usize
        } else {
            // Never past the budget's units, nor the `--lines` limit.
            let in_budget = budget.measure.sure_prefix_end(&self.bytes, budget.head) as usize;
            let arrived = self
                .line_limit_end
                .map_or(in_budget, |end| (end as usize).min(in_budget));
            cut::settled_head(budget, &self.bytes, self.settled, start, arrived, own)
        };
    }

    /// The bytes seen so far at the start of the stream (at most H+2).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// With `--lines N`: the end of line floor(N/2), if it has arrived.
    pub(crate) fn line_limit_end(&self) -> Option<u64> {
        self.line_limit_end
    }

    /// How many head bytes `--live` may print now, in order, before the
    /// rest of the stream is known.
    ///
    /// Once H+2 bytes are in, this is the head cut itself. Before that it is
    /// the end of the last complete line (`--cut lines`) or character
    /// (`--cut bytes`) that arrived, and never past the `--lines` limit:
    /// on valid UTF-8 the final cut cannot land before it. On invalid UTF-8
    /// it could (a continuation byte right after a newline moves the cut
    /// back), so the printed part is kept as the head in the end.
    pub(crate) fn settled(&self) -> usize {
        self.settled
    }

    pub(crate) fn into_vec(self) -> Vec<u8> {
        self.bytes
    }
}
