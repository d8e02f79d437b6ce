//! The streaming core: running counters, the bounded head buffer and the
//! tail queue. It keeps what the cut rules need and nothing more, so memory
//! is bounded by the budget (head + tail + 2 bytes), whatever the length of
//! the input.
//!
//! It sees only byte slices: no I/O, no formatting, and no record format:
//! a format's record boundaries are handed to it at the end. The cut rules
//! live in [`cut`](crate::cut).

mod head;
pub(crate) mod keep;
mod origins;

use memchr::{memchr_iter, memrchr};

use crate::cut::{self, Boundaries, Budget, ESCAPE_LOOKBACK, Kept, Own};
use crate::measure::{CharCount, Measure, TokenCount, TokenTotal};
use crate::vocab::{Counters, TailRing};
use head::HeadBuffer;
use keep::{KeepRules, MiddleLine, Picked, Picking};
use origins::Origins;

/// Consumes a stream chunk by chunk and keeps what the output may need.
pub(crate) struct Capper {
    /// The budget the stream is shown whole within, which the buffers
    /// hold.
    whole: Budget,
    /// The budget of head and tail when the stream is cut: `whole` less
    /// the share of the lines `--keep` keeps.
    budget: Budget,
    head: HeadBuffer,
    tail: TailRing,
    counters: Counters,
    /// The raw lines behind merged lines (see [`Origins`]).
    origins: Origins,
    /// Toolcap's own text in the stream, which no cut splits.
    own: Own,
    /// Characters so far, when the budget counts them or the output names
    /// them.
    chars: Option<CharCount>,
    tokens: Option<TokenCount>,
    /// The offset of the next byte the tail ring lets go of.
    evicted_to: u64,
    keep: Option<Keeping>,
}

/// `--keep` at work: one picker goes through the middle in order, from
/// the head cut, through the bytes the tail ring lets go of, to the tail
/// cut.
struct Keeping {
    rules: KeepRules,
    /// Started with the first byte evicted.
    picking: Option<Picking>,
    /// The head cut it started from.
    h: u64,
}

/// Where a stream B of n bytes was cut: `B[head_end:tail_start]` was left
/// out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Cut {
    /// h: the head is `B[0:h]`.
    pub head_end: u64,
    /// t: the tail is `B[t:n]`.
    pub tail_start: u64,
    /// The raw line the omitted part starts in: 1 + the number of `\n` in
    /// `B[0:h]` when nothing was cleaned.
    pub first_omitted_line: u64,
    /// The raw line it ends in: 1 + the number of `\n` in `B[0:t-1]` when
    /// nothing was cleaned.
    pub last_omitted_line: u64,
}

impl Cut {
    /// t - h: the number of bytes left out.
    pub fn omitted_bytes(&self) -> u64 {
        self.tail_start - self.head_end
    }
}

/// Consecutive lines of the cut middle that `--keep` kept.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeptLines {
    /// Their offset in B.
    pub start: u64,
    /// The lines, whole.
    pub bytes: Vec<u8>,
    /// The first and last raw line they stand for (1-based).
    pub first_line: u64,
    /// See `first_line`.
    pub last_line: u64,
}

/// What the capper kept of a stream, and the cut when it did not fit.
pub(crate) struct Captured {
    pub(crate) shown: Shown,
    pub(crate) totals: Totals,
}

/// What of a stream B is shown.
#[derive(Debug, Default)]
pub(crate) struct Shown {
    /// B[0:h] when cut, otherwise all of B.
    pub(crate) head: Vec<u8>,
    /// B[t:n] when cut, otherwise empty.
    pub(crate) tail: Vec<u8>,
    pub(crate) cut: Option<Cut>,
    /// Lines of the middle kept by `--keep`, and the matching ones that
    /// did not fit.
    pub(crate) kept: Vec<KeptLines>,
    pub(crate) hidden_matches: u64,
    /// Of those, the error lines (`--keep-errors`, `--keep-error`).
    pub(crate) hidden_errors: u64,
}

impl Shown {
    /// `whole`, uncut.
    pub(crate) fn whole(whole: Vec<u8>) -> Shown {
        Shown {
            head: whole,
            ..Shown::default()
        }
    }
}

/// The totals of a stream that has ended.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Totals {
    pub(crate) counters: Counters,
    /// The stream's characters, when counted.
    pub(crate) chars: Option<u64>,
    /// The stream's real tokens, when counted.
    pub(crate) tokens: Option<TokenTotal>,
}

impl Totals {
    /// Whether the stream fits `budget` (in its measure, and `--lines`).
    fn fit(&self, budget: &Budget) -> bool {
        let units = match budget.measure {
            Measure::Bytes => self.counters.bytes(),
            Measure::Chars => self.chars.unwrap_or_default(),
            Measure::Tokens(_) => self.tokens.map_or(0, |total| total.tokens),
        };
        units <= budget.head.saturating_add(budget.tail)
            && budget.lines.is_none_or(|max| self.counters.lines() <= max)
    }
}

/// The bytes the buffers hold at the end.
struct Held {
    /// The head buffer; all of B when `joined`.
    head: Vec<u8>,
    /// The ring's B[tail_start:n]; empty when `joined`.
    tail: Vec<u8>,
    tail_start: u64,
    /// Whether head and ring together held every byte: then they are one
    /// buffer, so that both cuts search it.
    joined: bool,
}

impl Held {
    /// What `head` and `tail` hold of a stream of `n` bytes.
    fn new(head: HeadBuffer, tail: TailRing, n: u64) -> Held {
        let tail_start = n - tail.len() as u64;
        let mut head = head.into_vec();
        let mut tail = tail.into_vec();
        let joined = head.len() as u64 == tail_start;
        if joined {
            head.append(&mut tail);
        }
        Held {
            head,
            tail,
            tail_start,
            joined,
        }
    }

    /// The bytes the tail cut searches, B[from:n], and `from`.
    fn tail_window(&self) -> (&[u8], u64) {
        if self.joined {
            (&self.head, 0)
        } else {
            (&self.tail, self.tail_start)
        }
    }

    /// What the cut rules look at.
    fn kept<'a>(
        &'a self,
        counters: &Counters,
        line_limit_end: Option<u64>,
        own: &'a Own,
    ) -> Kept<'a> {
        let (tail, tail_start) = self.tail_window();
        Kept {
            head: &self.head,
            tail,
            tail_start,
            n: counters.bytes(),
            newlines: counters.newlines(),
            lines: counters.lines(),
            line_limit_end,
            own,
        }
    }

    /// What of the middle B[h:t] is still here: all of it when joined,
    /// else the ring's part before t.
    fn middle(&self, h: u64, t: u64) -> &[u8] {
        let (window, from) = self.tail_window();
        if self.joined {
            &window[h as usize..t as usize]
        } else {
            &window[..(t - from) as usize]
        }
    }

    /// B[0:h] and B[t:n].
    fn into_cut(mut self, h: u64, t: u64) -> (Vec<u8>, Vec<u8>) {
        let (window, from) = self.tail_window();
        let tail = window[(t - from) as usize..].to_vec();
        self.head.truncate(h as usize);
        (self.head, tail)
    }
}

impl Capper {
    /// A capper for a stream shown whole within `whole`; when it is cut,
    /// the lines `keep` keeps take their share from head and tail. The
    /// buffers hold all of `whole`, so that a stream within it is shown
    /// whole although kept lines would have a share of a cut one.
    pub(crate) fn new(whole: Budget, keep: Option<KeepRules>) -> Capper {
        let mut budget = whole;
        if let Some(rules) = &keep {
            budget.give(rules.budget);
        }
        // One byte more than the tail: whether B[h] = ESC is the `ESC \`
        // that ends a string before h depends on B[h+1].
        let head = HeadBuffer::new(capacity_for(&whole, whole.head).saturating_add(1), &budget);
        Capper {
            // The ring reaches further back than the tail budget so that the
            // tail cut can see where an escape sequence starts.
            tail: TailRing::new(capacity_for(&whole, whole.tail).saturating_add(ESCAPE_LOOKBACK)),
            evicted_to: head.capacity() as u64,
            head,
            whole,
            budget,
            counters: Counters::default(),
            origins: Origins::default(),
            own: Own::default(),
            chars: (budget.count_chars || budget.measure == Measure::Chars)
                .then(CharCount::default),
            tokens: budget
                .count_tokens
                .map(|count| TokenCount::new(count.vocabulary, count.limit)),
            keep: keep.map(|rules| Keeping {
                rules,
                picking: None,
                h: 0,
            }),
        }
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.counters.push(chunk);
        if let Some(chars) = &mut self.chars {
            chars.push(chunk);
        }
        if let Some(tokens) = &mut self.tokens {
            tokens.push(chunk);
        }
        let into_head = self.head.room().min(chunk.len());
        if into_head > 0 {
            self.head.grow(
                &chunk[..into_head],
                &self.budget,
                self.counters.bytes(),
                &self.own,
            );
        }
        let rest = &chunk[into_head..];
        if rest.is_empty() {
            return;
        }
        // What the ring lets go of is the cut middle, for sure: `--keep`
        // looks at it, and merged lines that left are forgotten.
        let Capper {
            head,
            tail,
            origins,
            evicted_to,
            keep,
            budget,
            own,
            ..
        } = self;
        tail.push(rest, |gone| {
            if let Some(keep) = keep {
                keep.feed(gone, head, budget, origins, own);
            }
            *evicted_to += gone.len() as u64;
        });
        if self.origins.has_pending() {
            self.origins.forget_before(self.evicted_to);
        }
        if self.own.has_pending() {
            self.own.forget_before(self.evicted_to);
        }
    }

    /// Pushes toolcap's own text inside a line (`--max-line`'s marker),
    /// which no cut splits.
    pub(crate) fn push_own(&mut self, text: &[u8]) {
        self.record_own(text.len());
        self.push(text);
    }

    /// The next `len` bytes are toolcap's own text.
    fn record_own(&mut self, len: usize) {
        let start = self.counters.bytes();
        let in_head = start < self.head.capacity() as u64;
        self.own.record(start, start + len as u64, in_head);
    }

    /// The head buffer's capacity: no byte before it is ever let go of.
    pub(crate) fn head_reach(&self) -> u64 {
        self.head.capacity() as u64
    }

    /// The offset of the next byte the tail ring lets go of: every byte
    /// before it is in the cut middle.
    pub(crate) fn evicted_to(&self) -> u64 {
        self.evicted_to
    }

    /// Pushes one whole line that stands for `lines` raw lines.
    pub(crate) fn push_merged(&mut self, line: &[u8], lines: u64) {
        let start = self.counters.bytes();
        let in_head = start < self.head.capacity() as u64;
        let number = self.counters.newlines() + 1;
        self.origins
            .record(number, lines, start + line.len() as u64, in_head);
        // Every merged line is toolcap's own: a marker, the binary
        // summary, a redacted block.
        self.record_own(line.len());
        self.push(line);
    }

    /// The raw input had `raw_lines` lines in all: any beyond those the
    /// capped stream's lines stand for were emptied by cleaning (only a
    /// last line can be: one of escape codes alone), and its last line
    /// stands for them too, so a gap that touches it names them.
    pub(crate) fn end_raw_lines(&mut self, raw_lines: u64) {
        let last = self.counters.lines();
        let (first, end) = self.origins.raw_lines(last);
        if last > 0 && end < raw_lines {
            let lines = raw_lines - first + 1;
            self.origins
                .record(last, lines, self.counters.bytes(), false);
        }
    }

    /// The head bytes `--live` may print now (see [`HeadBuffer::settled`]).
    pub(crate) fn settled_head(&self) -> &[u8] {
        &self.head.bytes()[..self.head.settled()]
    }

    /// Ends the stream and decides the cuts; a cut head keeps at least the
    /// `printed` bytes that `--live` already printed, and with record
    /// `boundaries` (sorted offsets) each cut moves to one when it can.
    /// `marker_len` is the length of a gap's marker line from its bytes and
    /// raw lines, for the kept lines' share of the budget; a cut stream
    /// leaves room for the `reprinted` bytes the format prints between
    /// head and tail.
    ///
    /// 1. The totals, and the bytes the buffers hold (one buffer when
    ///    they met).
    /// 2. A stream within the budget is shown whole.
    /// 3. The cuts (h, t), by the rules of [`cut::decide`]; with real
    ///    tokens, a head and tail that meet show the stream whole too.
    /// 4. The raw lines the cut leaves out, the lines `--keep` keeps of
    ///    the middle, and head and tail.
    pub(crate) fn finish(
        self,
        printed: usize,
        marker_len: &dyn Fn(u64, u64, u64) -> u64,
        boundaries: Option<&[u64]>,
        reprinted: u64,
    ) -> Captured {
        let line_limit_end = self.head.line_limit_end();
        let totals = Totals {
            counters: self.counters,
            chars: self.chars.as_ref().map(CharCount::total),
            tokens: self.tokens.map(TokenCount::finish),
        };
        let held = Held::new(self.head, self.tail, totals.counters.bytes());
        // (A stream within the budget is always held whole; an estimated
        // token count may not be.)
        if held.joined && totals.fit(&self.whole) {
            return Captured::whole(held, totals);
        }
        let boundaries = boundaries.map(|sorted| Boundaries { sorted });
        let kept = held.kept(&totals.counters, line_limit_end, &self.own);
        let mut budget = self.budget;
        budget.give(reprinted);
        let (h, t) = cut::decide(&kept, &budget, printed as u64, boundaries.as_ref());
        if held.joined && h >= t {
            // Real tokens: each part counted on its own, head and tail can
            // hold all of B although B counts more than the budget.
            return Captured::whole(held, totals);
        }
        let cut = cut_facts(&held, h, t, &totals.counters, &self.origins);
        let picked = match self.keep {
            // `auto` found a diff: lines kept from its middle would break
            // its hunks apart.
            _ if boundaries.is_some() => Picked::default(),
            None => Picked::default(),
            Some(keeping) => {
                let t_is_end = t == totals.counters.bytes();
                let middle = held.middle(h, t);
                keeping.finish(&held.head, h, middle, t_is_end, &self.origins, marker_len)
            }
        };
        let (head, tail) = held.into_cut(h, t);
        let shown = Shown {
            head,
            tail,
            cut: Some(cut),
            kept: group(picked.lines),
            hidden_matches: picked.hidden_errors + picked.hidden_others,
            hidden_errors: picked.hidden_errors,
        };
        Captured { shown, totals }
    }
}

impl Captured {
    /// All of B, uncut.
    fn whole(held: Held, totals: Totals) -> Captured {
        Captured {
            shown: Shown::whole(held.head),
            totals,
        }
    }
}

/// The cut B[h:t] of the capped stream, with the raw lines that hold
/// B[h] and B[t-1].
fn cut_facts(held: &Held, h: u64, t: u64, counters: &Counters, origins: &Origins) -> Cut {
    let (window, from) = held.tail_window();
    let first_line = 1 + memchr_iter(b'\n', &held.head[..h as usize]).count() as u64;
    let newlines_from_t = memchr_iter(b'\n', &window[(t - 1 - from) as usize..]).count();
    let last_line = 1 + counters.newlines() - newlines_from_t as u64;
    Cut {
        head_end: h,
        tail_start: t,
        first_omitted_line: origins.raw_lines(first_line).0,
        last_omitted_line: origins.raw_lines(last_line).1,
    }
}

impl Keeping {
    /// Starts picking at the head cut h: the middle begins there, in the
    /// head buffer, and goes on in what the tail ring lets go of.
    fn start(rules: &KeepRules, head: &[u8], h: u64, origins: &Origins) -> Picking {
        let h_index = h as usize;
        // The line that holds h started before it: it is fed whole, and the
        // picker takes only lines starting at h or later.
        let line_start = memrchr(b'\n', &head[..h_index]).map_or(0, |p| p + 1);
        let number = 1 + memchr_iter(b'\n', &head[..h_index]).count() as u64;
        let mut picking = Picking::new(rules, h, number, &head[line_start..h_index]);
        picking.after(rules, &head[..line_start]);
        picking.feed(rules, &head[h_index..], |number| origins.raw_lines(number));
        picking
    }

    /// Bytes the tail ring let go of. The first ones start the picking: the
    /// head buffer is full then, and the head cut is known (the same cut
    /// that [`Capper::finish`] makes; no later byte changes it).
    fn feed(
        &mut self,
        gone: &[u8],
        head: &HeadBuffer,
        budget: &Budget,
        origins: &Origins,
        own: &Own,
    ) {
        let Keeping { rules, picking, h } = self;
        let picking = picking.get_or_insert_with(|| {
            let cut = cut::head_cut(head.bytes(), u64::MAX, budget, head.line_limit_end(), own);
            *h = cut.max(head.settled() as u64);
            Keeping::start(rules, head.bytes(), *h, origins)
        });
        picking.feed(rules, gone, |number| origins.raw_lines(number));
    }

    /// The kept lines of the middle B[h:t]: the picking goes on through
    /// `rest` (the bytes up to t that are still in the buffers), and a last
    /// line cut off by the end of the stream counts when t = n.
    fn finish(
        self,
        joined_head: &[u8],
        h: u64,
        rest: &[u8],
        t_is_end: bool,
        origins: &Origins,
        marker_len: &dyn Fn(u64, u64, u64) -> u64,
    ) -> Picked {
        let rules = &self.rules;
        // Started at the first eviction, it started from the same h as now.
        let mut picking = match self.picking {
            Some(picking) => picking,
            None => Keeping::start(rules, &joined_head[..h as usize], h, origins),
        };
        let raw = |number| origins.raw_lines(number);
        picking.feed(rules, rest, raw);
        picking.finish(rules, t_is_end, raw, marker_len)
    }
}

/// Kept lines that follow each other become one block.
fn group(lines: Vec<MiddleLine>) -> Vec<KeptLines> {
    let mut blocks: Vec<KeptLines> = Vec::new();
    for line in lines {
        match blocks.last_mut() {
            Some(block) if block.start + block.bytes.len() as u64 == line.start => {
                block.bytes.extend_from_slice(&line.bytes);
                block.last_line = line.raw.1;
            }
            _ => blocks.push(KeptLines {
                start: line.start,
                bytes: line.bytes,
                first_line: line.raw.0,
                last_line: line.raw.1,
            }),
        }
    }
    blocks
}

/// Buffer sizes are one byte over the budget's bytes (see [`Kept`]).
fn capacity_for(budget: &Budget, units: u64) -> usize {
    let bytes = budget.measure.max_bytes(units);
    usize::try_from(bytes.saturating_add(1)).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cut::CutMode;

    fn capture(input: &[u8], budget: Budget) -> Captured {
        let mut capper = Capper::new(budget, None);
        capper.push(input);
        capper.finish(0, &|_, _, _| 0, None, 0)
    }

    fn bytes(head: u64, tail: u64) -> Budget {
        Budget {
            head,
            tail,
            lines: None,
            cut: CutMode::Bytes,
            measure: Measure::Bytes,
            escapes: true,
            count_chars: false,
            count_tokens: None,
        }
    }

    fn kept(c: &Captured) -> (&[u8], &[u8]) {
        (&c.shown.head, &c.shown.tail)
    }

    #[test]
    fn input_within_budget_is_kept_whole() {
        let c = capture(b"hello\n", bytes(3, 3));
        assert_eq!(c.shown.cut, None);
        assert_eq!(kept(&c), (&b"hello\n"[..], &b""[..]));
        assert_eq!(
            (c.totals.counters.bytes(), c.totals.counters.lines()),
            (6, 1)
        );
    }

    #[test]
    fn one_byte_over_cuts_one_byte() {
        let c = capture(b"abcdefg", bytes(3, 3));
        assert_eq!(kept(&c), (&b"abc"[..], &b"efg"[..]));
        let cut = c.shown.cut.unwrap();
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
        let cut = c.shown.cut.unwrap();
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
        let mut capper = Capper::new(budget, None);
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
            let mut live = Capper::new(budget, None);
            let mut printed = 0;
            for piece in input.chunks(chunk) {
                live.push(piece);
                let settled = live.settled_head();
                proptest::prop_assert!(input.starts_with(settled));
                proptest::prop_assert!(settled.len() >= printed);
                printed = settled.len();
            }
            let live = live.finish(printed, &|_, _, _| 0, None, 0);
            let whole = capture(input, budget);
            proptest::prop_assert!(live.shown.head.len() >= printed);
            proptest::prop_assert_eq!(live.shown.cut, whole.shown.cut);
            proptest::prop_assert_eq!(
                (live.shown.head, live.shown.tail),
                (whole.shown.head, whole.shown.tail)
            );
        }
    }
}
