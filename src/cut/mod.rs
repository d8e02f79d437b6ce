//! Where a cut may land. Given the bytes the capper kept and the budget,
//! decides the head cut h and the tail cut t, in the order the spec
//! gives: the budget (in its [`Measure`](crate::measure::Measure)) and the
//! `--lines` limit, then the UTF-8 rule, then the escape rule (never inside
//! an escape sequence), then the cut mode's own snapping, and last never
//! inside toolcap's own text (`own.rs`).
//!
//! It sees byte slices only; it neither reads input nor formats output.

mod boundaries;
mod lines;
mod own;

use memchr::{memrchr, memrchr_iter};

use crate::escape;
use crate::measure::{Measure, RealCount};
pub(crate) use boundaries::Boundaries;
pub(crate) use own::Own;

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
    /// Whether cuts stay out of escape sequences (not for `--style codex`,
    /// which cuts at characters only).
    pub(crate) escapes: bool,
    /// Whether to count the stream's characters (for `--style codex` and
    /// the `{omitted_chars}` placeholder).
    pub(crate) count_chars: bool,
    /// With a real `--tokenizer`: the header's count of the stream.
    pub(crate) count_tokens: Option<RealCount>,
}

impl Budget {
    /// Gives `share` of head and tail to something else (kept lines, the
    /// lines `--total` keeps room for), in proportion: floor(share·H/(H+T))
    /// from the head, the rest from the tail (which gets the odd unit in
    /// the split too); all of both when they hold less.
    pub(crate) fn give(&mut self, share: u64) {
        let both = self.head.saturating_add(self.tail);
        let share = share.min(both);
        let from_head =
            u64::try_from(u128::from(share) * u128::from(self.head) / u128::from(both.max(1)))
                .unwrap_or(share);
        self.head -= from_head;
        self.tail -= share - from_head;
    }
}

/// How far back from a cut the escape rule looks for the start of a
/// sequence (also how much further back than its budget the tail ring
/// reaches): a colour sequence is a few bytes, a hyperlink a URL long.
pub(crate) const ESCAPE_LOOKBACK: usize = 256;

/// Where cuts may land.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CutMode {
    /// `--cut lines`: move a cut to the nearest line boundary when that
    /// loses at most a quarter of its side's budget.
    #[default]
    Lines,
    /// `--cut bytes`: cut at the budget (never inside a UTF-8 character).
    Bytes,
}

/// What the capper kept of a stream B of `n` bytes, for the rules to
/// look at: the head buffer B[0:head.len()], at least min(H+2, n) bytes,
/// and B[tail_start:n], at least min(T+1, n) bytes (the extra bytes are
/// the ones the rules look at: B[h] and B[h+1] at h = H, B[t-1] at
/// t = n - T).
pub(crate) struct Kept<'a> {
    pub(crate) head: &'a [u8],
    pub(crate) tail: &'a [u8],
    pub(crate) tail_start: u64,
    pub(crate) n: u64,
    /// The number of `\n` in B.
    pub(crate) newlines: u64,
    /// L: `newlines`, plus 1 if B is non-empty and does not end in `\n`.
    pub(crate) lines: u64,
    /// With `--lines N`: the end of line floor(N/2), if B has that many.
    pub(crate) line_limit_end: Option<u64>,
    /// Toolcap's own text in B, which no cut splits.
    pub(crate) own: &'a Own,
}

impl Kept<'_> {
    /// B[from:n]; `from` must be at or after `tail_start`.
    fn tail_from(&self, from: u64) -> &[u8] {
        &self.tail[(from - self.tail_start) as usize..]
    }
}

/// Decides both cuts (h, t) of a stream that does not fit its budget. A
/// head that `--live` already printed (`printed` bytes) stays the head.
/// With record `boundaries` (`--format diff` or `csv`), each cut moves to
/// the nearest one within its budget, when there is one, instead of
/// following the steps below; either way, a cut inside toolcap's own text
/// then moves out of it (step 6 of [`head_cut`] and [`tail_cut`]).
pub(crate) fn decide(
    kept: &Kept,
    budget: &Budget,
    printed: u64,
    boundaries: Option<&Boundaries>,
) -> (u64, u64) {
    let head_limit = head_limit(kept.head, kept.n, budget, kept.line_limit_end);
    let head_end = boundaries
        .and_then(|boundaries| boundaries.head(head_limit))
        .map(|h| kept.own.back(h))
        .unwrap_or_else(|| head_cut(kept.head, kept.n, budget, kept.line_limit_end, kept.own));
    let tail_start = boundaries
        .and_then(|boundaries| boundaries.tail(tail_limit(kept, budget), kept.n))
        .map(|t| kept.own.forward(t))
        .unwrap_or_else(|| tail_cut(kept, budget));
    // `--live` never printed part of toolcap's own text (see
    // [`settled_head`]), so the printed head does not end inside any.
    (head_end.max(printed), tail_start)
}

/// Step 1 of the head cut: H in the budget's measure, and with `--lines
/// N` at most the end of line floor(N/2).
fn head_limit(head: &[u8], n: u64, budget: &Budget, line_limit_end: Option<u64>) -> u64 {
    let measured = budget.measure.prefix_end(head, budget.head);
    measured.min(n).min(line_limit_end.unwrap_or(u64::MAX))
}

/// Step 1 of the tail cut: n - T in the budget's measure, and with
/// `--lines N` at least the start of the last N - floor(N/2) lines.
fn tail_limit(kept: &Kept, budget: &Budget) -> u64 {
    let mut t = kept.tail_start + budget.measure.suffix_start(kept.tail, budget.tail);
    if let Some(max) = budget.lines {
        t = t.max(start_of_last_lines(kept, max - max / 2));
    }
    t
}

/// The head cut h, from B[0:H+2] (or all of B when shorter) and n:
/// 1. h = H (in the budget's measure), and with `--lines N` at most the end
///    of line floor(N/2);
/// 2. while B[h] is a UTF-8 continuation byte, h moves back (at most 3);
/// 3. if h falls inside an escape sequence, h moves back to its start;
/// 4. `--cut lines`: h moves back to just after the last `\n` in B[0:h]
///    when that loses at most floor(H/4) bytes;
/// 5. in tokens, h moves back a character at a time while B[0:h] counts
///    more than H (a shorter text can count more);
/// 6. if h falls inside toolcap's own text (a marker line a transform
///    wrote, `--max-line`'s marker), h moves back to its start (and step 5
///    again, until neither moves it).
pub(crate) fn head_cut(
    head: &[u8],
    n: u64,
    budget: &Budget,
    line_limit_end: Option<u64>,
    own: &Own,
) -> u64 {
    let measured = budget.measure.prefix_end(head, budget.head);
    let h = head_limit(head, n, budget, line_limit_end);
    let h = crate::vocab::utf8::move_head_back(h, n, |i| head[i as usize]);
    let h = if budget.escapes {
        out_of_sequence_back(head, h as usize) as u64
    } else {
        h
    };
    let h = match budget.cut {
        CutMode::Lines => {
            lines::snap_head(head, h, budget.measure.side_bytes(budget.head, measured))
        }
        CutMode::Bytes => h,
    };
    // Each round moves h back, so this ends.
    let mut h = budget.measure.fit_prefix(head, h, budget.head);
    loop {
        let out_of_own = own.back(h);
        let fitted = budget.measure.fit_prefix(head, out_of_own, budget.head);
        if fitted == h {
            return h;
        }
        h = fitted;
    }
}

/// The tail cut t, mirroring [`head_cut`]:
/// 1. t = n - T (in the budget's measure), and with `--lines N` at least
///    the start of the last N - floor(N/2) lines;
/// 2. while B[t] is a UTF-8 continuation byte, t moves forward (at most 3);
/// 3. if t falls inside an escape sequence, t moves forward to its end;
/// 4. `--cut lines`: t moves forward to just after the first `\n` at or
///    after t-1 when that loses at most floor(T/4) bytes;
/// 5. in tokens, t moves forward while B[t:n] counts more than T;
/// 6. if t falls inside toolcap's own text, t moves forward to its end
///    (and step 5 again, until neither moves it).
fn tail_cut(kept: &Kept, budget: &Budget) -> u64 {
    let measured = kept.tail_start + budget.measure.suffix_start(kept.tail, budget.tail);
    let side_bytes = budget.measure.side_bytes(budget.tail, kept.n - measured);
    let t = tail_limit(kept, budget);
    let t = crate::vocab::utf8::move_tail_forward(t, kept.n, |i| kept.tail_from(i)[0]);
    let t = if budget.escapes {
        out_of_sequence_forward(kept, t)
    } else {
        t
    };
    let t = match budget.cut {
        // t > h >= 0 here, so B[t-1] is a kept byte.
        CutMode::Lines => t + lines::snap_tail(kept.tail_from(t - 1), side_bytes),
        CutMode::Bytes => t,
    };
    let window = kept.tail_from(kept.tail_start);
    let fit = |t: u64| {
        kept.tail_start
            + budget
                .measure
                .fit_suffix(window, t - kept.tail_start, budget.tail)
    };
    // Each round moves t forward, so this ends.
    let mut t = fit(t);
    loop {
        let fitted = fit(kept.own.forward(t));
        if fitted == t {
            return t;
        }
        t = fitted;
    }
}

/// Where the grammar may start reading before `at`: the line's start (no
/// sequence crosses a newline), at most [`ESCAPE_LOOKBACK`] bytes back.
fn text_start(bytes: &[u8], at: usize) -> usize {
    let from = at.saturating_sub(ESCAPE_LOOKBACK);
    memrchr(b'\n', &bytes[from..at]).map_or(from, |p| from + p + 1)
}

/// `at`, or the start of the escape sequence it falls inside.
fn out_of_sequence_back(bytes: &[u8], at: usize) -> usize {
    escape::sequence_around(bytes, text_start(bytes, at), at).unwrap_or(at)
}

/// t, or the end of the escape sequence it falls inside (the end of the
/// stream, for one that never ends).
fn out_of_sequence_forward(kept: &Kept, t: u64) -> u64 {
    let window = kept.tail_from(kept.tail_start);
    let at = (t - kept.tail_start) as usize;
    let from = text_start(window, at);
    escape::sequence_end(window, from, at).map_or(kept.n, |end| kept.tail_start + end as u64)
}

/// Where the last `count` lines of B start; at or before the first kept
/// tail byte when that is further back than the tail reaches.
fn start_of_last_lines(kept: &Kept, count: u64) -> u64 {
    let Some(first_kept_newline) = kept.lines.checked_sub(count).filter(|&j| j > 0) else {
        return 0;
    };
    // The last `count` lines start after newline number j (1-based),
    // which has `newlines - j` newlines after it.
    let Some(newlines_after) = kept.newlines.checked_sub(first_kept_newline) else {
        return kept.n;
    };
    usize::try_from(newlines_after)
        .ok()
        .and_then(|skip| memrchr_iter(b'\n', kept.tail).nth(skip))
        .map_or(kept.tail_start, |i| kept.tail_start + i as u64 + 1)
}

/// How much of a head that is still arriving `--live` may print: the part
/// no later byte can take back. `head` is B[0:len] with len <= H, `settled`
/// what was settled before `added_from`, and `arrived` the end of what may
/// be printed at all (the `--lines` limit, or `head.len()`).
///
/// Only bytes from `added_from` on are searched, so a long line arriving in
/// small chunks costs time in proportion to its length, not its square.
/// Toolcap's own text is recorded before its bytes arrive, so the part
/// settled never ends inside it.
pub(crate) fn settled_head(
    budget: &Budget,
    head: &[u8],
    settled: usize,
    added_from: usize,
    arrived: usize,
    own: &Own,
) -> usize {
    match budget.cut {
        // A line end is never inside an escape sequence, nor inside
        // toolcap's own text (a whole line, or inside one).
        CutMode::Lines => {
            lines::last_line_end(head, settled.max(added_from), arrived).unwrap_or(settled)
        }
        CutMode::Bytes => {
            let complete = crate::vocab::utf8::complete_characters(&head[..arrived]);
            let settled_now = if budget.escapes {
                out_of_sequence_back(head, complete)
            } else {
                complete
            };
            (own.back(settled_now as u64) as usize).max(settled)
        }
    }
}
