//! The streaming core: running counters, the bounded head buffer and the
//! tail queue. It keeps what the cut rules need and nothing more, so memory
//! is bounded by the budget (head + tail + 2 bytes), whatever the length of
//! the input.
//!
//! It sees only byte slices: no I/O, no formatting. The cut rules live in
//! [`cut`](crate::cut).

mod counters;
mod head;
mod tail;

pub(crate) use counters::Counters;

use crate::cut::{self, CutMode, Kept};
use crate::measure::Measure;
use crate::report::Cut;
use head::HeadBuffer;
use tail::TailRing;

/// The budget of one stream, resolved from the options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Budget {
    /// H: kept from the start, in `measure` units.
    pub(crate) head: u64,
    /// T: kept from the end, in `measure` units.
    pub(crate) tail: u64,
    /// N: with `--lines`, at most floor(N/2) lines from the start and the
    /// rest from the end.
    pub(crate) lines: Option<u64>,
    pub(crate) cut: CutMode,
    pub(crate) measure: Measure,
}

/// Consumes a stream chunk by chunk and keeps what the output may need.
pub(crate) struct Capper {
    budget: Budget,
    head: HeadBuffer,
    tail: TailRing,
    counters: Counters,
}

/// What the capper kept of a stream, and the cut when it did not fit.
pub(crate) struct Captured {
    /// B[0:h] when cut, otherwise all of B.
    pub(crate) head: Vec<u8>,
    /// B[t:n] when cut, otherwise empty.
    pub(crate) tail: Vec<u8>,
    pub(crate) cut: Option<Cut>,
    pub(crate) counters: Counters,
}

impl Capper {
    pub(crate) fn new(budget: Budget) -> Capper {
        Capper {
            head: HeadBuffer::new(capacity_for(&budget, budget.head), &budget),
            tail: TailRing::new(capacity_for(&budget, budget.tail)),
            budget,
            counters: Counters::default(),
        }
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.counters.push(chunk);
        let into_head = self.head.room().min(chunk.len());
        if into_head > 0 {
            self.head
                .grow(&chunk[..into_head], &self.budget, self.counters.bytes());
        }
        // The evicted bytes are the cut middle: nothing keeps them (yet).
        self.tail.push(&chunk[into_head..], |_| {});
    }

    /// The head bytes `--live` may print now (see [`HeadBuffer::settled`]).
    pub(crate) fn settled_head(&self) -> &[u8] {
        &self.head.bytes()[..self.head.settled()]
    }

    /// Ends the stream and decides the cuts; a cut head keeps at least the
    /// `printed` bytes that `--live` already printed.
    pub(crate) fn finish(self, printed: usize) -> Captured {
        let counters = self.counters;
        let n = counters.bytes();
        let line_limit_end = self.head.line_limit_end();
        let fits = n <= self.budget.head.saturating_add(self.budget.tail)
            && self.budget.lines.is_none_or(|max| counters.lines() <= max);
        let mut head = self.head.into_vec();
        // When head and ring together hold every byte, join them so both
        // cuts search one buffer; otherwise the ring holds B[n-T-1:n].
        let tail_start = n - self.tail.len() as u64;
        let joined = head.len() as u64 == tail_start;
        let mut tail = self.tail.into_vec();
        if joined {
            head.append(&mut tail);
        }
        if fits {
            return Captured {
                head,
                tail: Vec::new(),
                cut: None,
                counters,
            };
        }
        let cut = {
            let (tail, tail_start) = if joined {
                (&head[..], 0)
            } else {
                (&tail[..], tail_start)
            };
            let kept = Kept {
                head: &head,
                tail,
                tail_start,
                n,
                newlines: counters.newlines(),
                lines: counters.lines(),
                line_limit_end,
            };
            cut::decide(&kept, &self.budget, printed as u64)
        };
        let tail = if joined {
            head[cut.tail_start as usize..].to_vec()
        } else {
            tail.split_off((cut.tail_start - tail_start) as usize)
        };
        head.truncate(cut.head_end as usize);
        Captured {
            head,
            tail,
            cut: Some(cut),
            counters,
        }
    }
}

/// Buffer sizes are one byte over the budget's bytes (see [`Kept`]).
fn capacity_for(budget: &Budget, units: u64) -> usize {
    let bytes = budget.measure.max_bytes(units);
    usize::try_from(bytes.saturating_add(1)).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(input: &[u8], budget: Budget) -> Captured {
        let mut capper = Capper::new(budget);
        capper.push(input);
        capper.finish(0)
    }

    fn bytes(head: u64, tail: u64) -> Budget {
        Budget {
            head,
            tail,
            lines: None,
            cut: CutMode::Bytes,
            measure: Measure::Bytes,
        }
    }

    fn kept(c: &Captured) -> (&[u8], &[u8]) {
        (&c.head, &c.tail)
    }

    #[test]
    fn input_within_budget_is_kept_whole() {
        let c = capture(b"hello\n", bytes(3, 3));
        assert_eq!(c.cut, None);
        assert_eq!(kept(&c), (&b"hello\n"[..], &b""[..]));
        assert_eq!((c.counters.bytes(), c.counters.lines()), (6, 1));
    }

    #[test]
    fn one_byte_over_cuts_one_byte() {
        let c = capture(b"abcdefg", bytes(3, 3));
        assert_eq!(kept(&c), (&b"abc"[..], &b"efg"[..]));
        let cut = c.cut.unwrap();
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
        assert_eq!(kept(&c), ("a".as_bytes(), "é".as_bytes()));
    }

    #[test]
    fn line_cut_moves_to_boundary_within_a_quarter() {
        let input = b"0123456789\nabc\n0123456789\n";
        let budget = Budget {
            cut: CutMode::Lines,
            ..bytes(12, 13)
        };
        let c = capture(input, budget);
        assert_eq!(kept(&c), (&b"0123456789\n"[..], &b"0123456789\n"[..]));
    }

    #[test]
    fn lines_cap_keeps_half_from_each_end() {
        let budget = Budget {
            lines: Some(3),
            cut: CutMode::Lines,
            ..bytes(100, 100)
        };
        let c = capture(b"1\n2\n3\n4\n5\n", budget);
        assert_eq!(kept(&c), (&b"1\n"[..], &b"4\n5\n"[..]));
        let cut = c.cut.unwrap();
        assert_eq!((cut.first_omitted_line, cut.last_omitted_line), (2, 3));
    }

    /// A long line arriving in small chunks is searched once, not once per
    /// chunk: the settled head stays at the last line end seen.
    #[test]
    fn live_settling_follows_line_ends_chunk_by_chunk() {
        let budget = Budget {
            cut: CutMode::Lines,
            ..bytes(1_000, 1_000)
        };
        let mut capper = Capper::new(budget);
        capper.push(b"first\nsecond");
        assert_eq!(capper.settled_head(), b"first\n");
        for _ in 0..50 {
            capper.push(b"xx");
        }
        assert_eq!(capper.settled_head(), b"first\n");
        capper.push(b"\nthird");
        assert_eq!(capper.settled_head().len(), 6 + 6 + 100 + 1);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 2000, ..proptest::prelude::ProptestConfig::default()
        })]

        /// What `--live` prints early is always the start of the input and
        /// of the final head, and on valid UTF-8 the cuts are the same as
        /// without `--live`.
        #[test]
        fn live_prints_only_the_final_head(
            s in "(a|é|€|\n|\r\n|xyz){0,100}",
            head in 0u64..60,
            tail in 0u64..60,
            lines in proptest::option::of(0u64..20),
            cut_bytes in proptest::bool::ANY,
            chunk in 1usize..40,
        ) {
            let budget = Budget {
                lines,
                cut: if cut_bytes { CutMode::Bytes } else { CutMode::Lines },
                ..bytes(head, tail)
            };
            let input = s.as_bytes();
            let mut live = Capper::new(budget);
            let mut printed = 0;
            for piece in input.chunks(chunk) {
                live.push(piece);
                let settled = live.settled_head();
                proptest::prop_assert!(input.starts_with(settled));
                proptest::prop_assert!(settled.len() >= printed);
                printed = settled.len();
            }
            let live = live.finish(printed);
            let whole = capture(input, budget);
            proptest::prop_assert!(live.head.len() >= printed);
            proptest::prop_assert_eq!(live.cut, whole.cut);
            proptest::prop_assert_eq!((live.head, live.tail), (whole.head, whole.tail));
        }
    }
}
