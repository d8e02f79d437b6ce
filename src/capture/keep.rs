//! `--keep` and `--keep-errors`: lines of the cut middle that match are
//! kept, in order, with `--keep-context` lines around each, within their
//! own byte budget (`--keep-max`); the earliest that fit are kept, and the
//! matching lines that did not fit are counted.
//!
//! The middle streams past (bytes the tail ring lets go of), so lines are
//! assembled and picked as they come; only kept lines, the lines around
//! matches not yet decided, and one unfinished line are held.

use std::collections::VecDeque;

use memchr::{memchr, memchr_iter, memrchr};

use crate::line_match::LineMatch;

/// Lines longer than this (or than the budget) are matched on their first
/// bytes only; they could not be kept anyway.
const MATCHED_PREFIX: usize = 64 * 1024;

/// What to keep from the middle.
#[derive(Clone, Debug)]
pub(crate) struct KeepRules {
    /// The lines that match.
    pub(crate) lines: LineMatch,
    /// Lines kept before and after each match.
    pub(crate) context: usize,
    /// Bytes the kept lines may use in all.
    pub(crate) budget: u64,
}

impl KeepRules {
    /// How much of a line is held: enough to keep it whole if it fits, and
    /// to match it.
    fn line_limit(&self) -> usize {
        usize::try_from(self.budget)
            .unwrap_or(usize::MAX)
            .saturating_add(1)
            .max(MATCHED_PREFIX)
    }
}

/// A whole line of the middle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MiddleLine {
    /// Its offset in the capped stream.
    pub(crate) start: u64,
    /// Its length (the bytes may be only the first part of a long line).
    pub(crate) len: u64,
    pub(crate) bytes: Vec<u8>,
    /// The raw lines it stands for.
    pub(crate) raw: (u64, u64),
}

/// Chooses the middle lines to keep, offered one by one in order.
///
/// Each match, earliest first, is kept if it fits, then its context:
/// distance 1 before and after, then distance 2, and so on, each side
/// stopping at the first line that does not fit or lies outside the
/// middle. A match waits until its context after has arrived, so the
/// picker holds the lines from `context` before the first undecided match
/// on: at most 2 * `context` + 1 lines, each at most the budget long.
///
/// Each line costs the same time however large `context` is: lines are
/// numbered from the first offered, the undecided matches are queued by
/// number, and a match's context walk steps over the lines already kept
/// instead of visiting them (see [`Picker::keep_with_context`]).
#[derive(Debug)]
struct Picker {
    context: usize,
    budget: u64,
    left: u64,
    window: VecDeque<Candidate>,
    /// The number of the window's first line.
    window_from: u64,
    /// The numbers of the undecided matches, in order.
    undecided: VecDeque<u64>,
    /// One past the number of the last line kept (0 while none is).
    kept_to: u64,
    kept: Vec<MiddleLine>,
    /// Matching lines that did not fit.
    hidden: u64,
    /// Lines looked at by context walks, counted so a test can tell a
    /// walk that costs `context` steps a match from one that does not.
    #[cfg(test)]
    visits: u64,
}

#[derive(Debug)]
struct Candidate {
    line: MiddleLine,
    kept: bool,
}

impl Picker {
    fn new(rules: &KeepRules) -> Picker {
        Picker {
            context: rules.context,
            budget: rules.budget,
            left: rules.budget,
            window: VecDeque::new(),
            window_from: 0,
            undecided: VecDeque::new(),
            kept_to: 0,
            kept: Vec::new(),
            hidden: 0,
            #[cfg(test)]
            visits: 0,
        }
    }

    /// Offers the next line; `may_match` is false for a line known not to
    /// match.
    fn offer(&mut self, rules: &KeepRules, mut line: MiddleLine, may_match: bool) {
        if may_match && rules.lines.matches(&line.bytes) {
            self.undecided.push_back(self.window_from + self.window.len() as u64);
        }
        if line.len > self.budget {
            // It can never be kept: only its length matters now.
            line.bytes = Vec::new();
        }
        self.window.push_back(Candidate { line, kept: false });
        self.decide(false);
    }

    /// Decides every match whose context after has arrived (all of them
    /// once `ended`), then lets go of the lines no match can reach.
    fn decide(&mut self, ended: bool) {
        loop {
            let first = self.undecided.front().map(|&number| self.index(number));
            match first {
                Some(at) if ended || self.window.len() - at > self.context => {
                    self.undecided.pop_front();
                    self.keep_with_context(at);
                }
                _ => {
                    let reachable = first.unwrap_or(self.window.len());
                    let settled = reachable.saturating_sub(self.context);
                    let kept = self.window.drain(..settled).filter(|c| c.kept);
                    self.kept.extend(kept.map(|c| c.line));
                    self.window_from += settled as u64;
                    return;
                }
            }
        }
    }

    /// Where line `number`, one of the window's, is in it.
    fn index(&self, number: u64) -> usize {
        // The window is in memory, so its length fits a usize.
        (number - self.window_from) as usize
    }

    /// Keeps the match at `at` if it fits, then its context: distance 1
    /// before and after, then 2, and so on, each side stopping at the
    /// first line that does not fit or lies outside the window.
    ///
    /// Walking every distance up to `context` would cost `context` steps a
    /// match, quadratic when matches are dense, so the walk looks only at
    /// the lines not kept yet, in the same order. This is the same walk
    /// because the kept lines are one run per kept match (the match and
    /// the context it got), a run's side before ends at a stop (a line
    /// that did not fit, and still does not: `left` only shrinks; the
    /// window's start; or `context` lines away, farther than any later
    /// match reaches), and with `kept_to` one past the last kept line:
    /// 1. A match kept already (as context after an earlier one) lies in
    ///    the last run: its side before is kept back to that run's stop,
    ///    so it takes nothing; its side after is kept up to `kept_to` and
    ///    takes lines from there.
    /// 2. A match not kept yet lies after every run: its side before
    ///    takes lines down to `kept_to`, and past them (kept) meets a
    ///    stop; nothing after it is kept, so its side after takes from
    ///    the next line on.
    fn keep_with_context(&mut self, at: usize) {
        let number = self.window_from + at as u64;
        let (already, kept_to) = (self.window[at].kept, self.kept_to);
        if !self.take(at) {
            self.hidden += 1;
            return;
        }
        // The farthest distance the side before may take a line at, and
        // the next distance each side tries.
        let (mut before_last, mut after) = if already {
            (0, self.index(kept_to) - at)
        } else {
            debug_assert!(kept_to <= number, "a line after a match not kept is kept");
            let not_kept = usize::try_from(number - kept_to).unwrap_or(usize::MAX);
            (self.context.min(at).min(not_kept), 1)
        };
        let mut before = 1;
        let mut after_open = true;
        loop {
            // The nearer side first, the side before at equal distances.
            if before <= before_last && (!after_open || before <= after) {
                if self.take(at - before) {
                    before += 1;
                } else {
                    before_last = 0;
                }
            } else if after_open && after <= self.context {
                after_open = self.take(at + after);
                after += 1;
            } else {
                return;
            }
        }
    }

    /// Keeps the line at `at` if it fits; whether it is kept.
    fn take(&mut self, at: usize) -> bool {
        #[cfg(test)]
        {
            self.visits += 1;
        }
        let Some(candidate) = self.window.get_mut(at) else {
            return false;
        };
        if candidate.kept {
            return true;
        }
        if candidate.line.len > self.left {
            return false;
        }
        debug_assert_eq!(candidate.line.len, candidate.line.bytes.len() as u64);
        self.left -= candidate.line.len;
        candidate.kept = true;
        self.kept_to = self.kept_to.max(self.window_from + at as u64 + 1);
        true
    }

    /// Whether a match waits for its context after. While none does, only
    /// the last `context` lines can matter until the next match.
    fn waiting(&self) -> bool {
        !self.undecided.is_empty()
    }

    /// The kept lines in order, and how many matching lines did not fit.
    fn into_kept(mut self) -> (Vec<MiddleLine>, u64) {
        self.decide(true);
        let rest = self.window.into_iter().filter(|c| c.kept);
        self.kept.extend(rest.map(|c| c.line));
        (self.kept, self.hidden)
    }
}

/// Picks lines from the middle as its bytes arrive in order, from an
/// offset `from` on: assembles them and offers them to a [`Picker`].
///
/// Between matches it skips: the matcher names the first place a match
/// could start, the whole lines before it cannot match, and of those only
/// the last `context` can still be kept (as context before a match), so
/// the rest are only counted.
#[derive(Debug)]
pub(crate) struct Picking {
    picker: Picker,
    /// Lines starting before this are not in the middle.
    from: u64,
    /// The line being assembled: its first bytes (up to `limit`) and
    /// length, its offset and its number in the capped stream.
    partial: Vec<u8>,
    partial_len: u64,
    start: u64,
    number: u64,
    limit: usize,
    /// Reused by the matcher's search.
    scratch: Vec<u8>,
}

impl Picking {
    /// Starts at `from`, where line `number` of the capped stream starts
    /// (or continues: then `so_far` is what came before `from`).
    pub(crate) fn new(rules: &KeepRules, from: u64, number: u64, so_far: &[u8]) -> Picking {
        let mut picking = Picking {
            picker: Picker::new(rules),
            from,
            partial: Vec::new(),
            partial_len: 0,
            start: from - so_far.len() as u64,
            number,
            limit: rules.line_limit(),
            scratch: Vec::new(),
        };
        picking.hold(so_far);
        picking
    }

    fn hold(&mut self, bytes: &[u8]) {
        let room = self.limit.saturating_sub(self.partial.len());
        self.partial
            .extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.partial_len += bytes.len() as u64;
    }

    /// The line held so far, whole now; `raw` gives the raw lines behind
    /// a line number.
    fn complete(&mut self, rules: &KeepRules, may_match: bool, raw: impl Fn(u64) -> (u64, u64)) {
        let line = MiddleLine {
            start: self.start,
            len: self.partial_len,
            bytes: std::mem::take(&mut self.partial),
            raw: raw(self.number),
        };
        self.start += self.partial_len;
        self.partial_len = 0;
        if line.start >= self.from {
            self.picker.offer(rules, line, may_match);
        }
        self.number += 1;
    }

    /// Feeds `bytes`, the next of the middle.
    pub(crate) fn feed(&mut self, rules: &KeepRules, mut bytes: &[u8], raw: impl Fn(u64) -> (u64, u64)) {
        loop {
            if self.partial_len == 0 && !self.picker.waiting() {
                bytes = self.skip(rules, bytes, &raw);
            }
            let Some(end) = memchr(b'\n', bytes) else {
                self.hold(bytes);
                return;
            };
            self.hold(&bytes[..=end]);
            self.complete(rules, true, &raw);
            bytes = &bytes[end + 1..];
        }
    }

    /// Goes past the whole lines at the start of `bytes` that cannot
    /// match; what is left starts with the line where a match may be.
    fn skip<'a>(&mut self, rules: &KeepRules, bytes: &'a [u8], raw: impl Fn(u64) -> (u64, u64)) -> &'a [u8] {
        let searched = match rules.lines.candidate(bytes, &mut self.scratch) {
            Some(at) => &bytes[..at],
            None => bytes,
        };
        let clean = memrchr(b'\n', searched).map_or(0, |end| end + 1);
        // The last `context` lines of the clean ones are offered, as
        // lines that do not match; those before them only counted.
        let mut context_from = clean;
        for _ in 0..self.picker.context {
            if context_from == 0 {
                break;
            }
            context_from = memrchr(b'\n', &bytes[..context_from - 1]).map_or(0, |end| end + 1);
        }
        let (counted, offered) = (&bytes[..context_from], &bytes[context_from..clean]);
        self.start += counted.len() as u64;
        self.number += memchr_iter(b'\n', counted).count() as u64;
        for line in offered.split_inclusive(|&byte| byte == b'\n') {
            self.hold(line);
            self.complete(rules, false, &raw);
        }
        &bytes[clean..]
    }

    /// The stream ended at the end of what was fed: a last line without
    /// `\n` is whole too. The kept lines in order, and how many matching
    /// lines did not fit.
    pub(crate) fn finish(mut self, rules: &KeepRules, at_end: bool, raw: impl Fn(u64) -> (u64, u64)) -> (Vec<MiddleLine>, u64) {
        if at_end && self.partial_len > 0 {
            self.complete(rules, true, raw);
        }
        self.picker.into_kept()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(patterns: &[&str], context: usize, budget: u64) -> KeepRules {
        KeepRules {
            lines: LineMatch::new(patterns).unwrap(),
            context,
            budget,
        }
    }

    fn pick(rules: &KeepRules, text: &str) -> (Vec<String>, u64) {
        let mut picking = Picking::new(rules, 0, 1, b"");
        picking.feed(rules, text.as_bytes(), |_| (0, 0));
        let (kept, hidden) = picking.finish(rules, true, |_| (0, 0));
        let kept = kept
            .iter()
            .map(|line| String::from_utf8_lossy(&line.bytes).into_owned())
            .collect();
        (kept, hidden)
    }

    #[test]
    fn matching_lines_with_their_context() {
        let text = "a\nb\nERROR 1\nc\nd\ne\nERROR 2\nf\n";
        let anchored = rules(&["^c$"], 0, 100);
        assert_eq!(pick(&anchored, "abc\nc\r\nc\n").0, ["c\r\n", "c\n"]);
        let no_context = rules(&["ERROR"], 0, 100);
        assert_eq!(pick(&no_context, text), (vec!["ERROR 1\n".into(), "ERROR 2\n".into()], 0));
        let context = rules(&["ERROR"], 1, 100);
        assert_eq!(
            pick(&context, text).0,
            ["b\n", "ERROR 1\n", "c\n", "e\n", "ERROR 2\n", "f\n"]
        );
    }

    #[test]
    fn the_earliest_that_fit_are_kept_and_the_rest_counted() {
        let text = "x ERROR one\nERROR a very long line that cannot fit\nERROR 3\nERROR 4\n";
        let tight = rules(&["ERROR"], 0, 20);
        assert_eq!(
            pick(&tight, text),
            (vec!["x ERROR one\n".into(), "ERROR 3\n".into()], 2)
        );
    }

    #[test]
    fn context_is_taken_nearest_first_and_stops_where_a_line_does_not_fit() {
        let text = "b2\nb1\nERROR\nlong after\na2\n";
        // ERROR (6), then b1 (3) and "long after" (11, too long: the
        // side after stops), then b2 (3); a2 would fit but is not taken.
        assert_eq!(pick(&rules(&["ERROR"], 2, 13), text).0, ["b2\n", "b1\n", "ERROR\n"]);
        // A match in the context of an earlier one costs nothing more.
        assert_eq!(
            pick(&rules(&["ERROR"], 1, 100), "x\nERROR\nERROR\ny\nz\n").0,
            ["x\n", "ERROR\n", "ERROR\n", "y\n"]
        );
    }

    /// The README's rule read literally: each match, earliest first, if it
    /// fits, then its context at every distance, alternating sides, each
    /// side stopping at the first line that does not fit. Returns the
    /// kept lines' indexes and how many matches did not fit.
    fn naive(lines: &[&str], context: usize, budget: u64) -> (Vec<usize>, u64) {
        let mut kept = vec![false; lines.len()];
        let (mut left, mut hidden) = (budget, 0);
        let mut take = |at: usize, kept: &mut Vec<bool>| {
            if kept[at] {
                return true;
            }
            let len = lines[at].len() as u64;
            if len > left {
                return false;
            }
            left -= len;
            kept[at] = true;
            true
        };
        for at in 0..lines.len() {
            if !lines[at].contains("ERROR") {
                continue;
            }
            if !take(at, &mut kept) {
                hidden += 1;
                continue;
            }
            let (mut before, mut after) = (true, true);
            for distance in 1..=context {
                before = before && at >= distance && take(at - distance, &mut kept);
                after = after && at + distance < lines.len() && take(at + distance, &mut kept);
            }
        }
        ((0..lines.len()).filter(|&at| kept[at]).collect(), hidden)
    }

    proptest::proptest! {
        /// The picker steps over kept lines and feeds arrive in pieces;
        /// neither may change what is kept.
        #[test]
        fn the_picker_keeps_what_the_naive_walk_keeps(
            lines in proptest::collection::vec(
                proptest::sample::select(vec!["ERROR\n", "ERROR long\n", "a\n", "bb\n", "long line\n"]),
                0..40,
            ),
            context in 0usize..8,
            budget in 0u64..80,
            piece in 1usize..30,
        ) {
            let rules = rules(&["ERROR"], context, budget);
            let text = lines.concat();
            let mut picking = Picking::new(&rules, 0, 1, b"");
            for bytes in text.as_bytes().chunks(piece) {
                picking.feed(&rules, bytes, |_| (0, 0));
            }
            let (kept, hidden) = picking.finish(&rules, true, |_| (0, 0));
            let kept: Vec<u64> = kept.iter().map(|line| line.start).collect();
            let (expected, expected_hidden) = naive(&lines, context, budget);
            let starts: Vec<u64> = expected
                .iter()
                .map(|&at| lines[..at].concat().len() as u64)
                .collect();
            proptest::prop_assert_eq!((kept, hidden), (starts, expected_hidden));
        }
    }

    /// Regression: each match walked out to `context` lines on each side,
    /// over lines already kept too, so dense matches with a large
    /// `--keep-context` cost matches * context (5 MB of error lines with
    /// `--keep-context 10000` took 8 s). The walk may look at each line
    /// a few times, whatever the context.
    #[test]
    fn context_walks_cost_no_more_than_the_lines() {
        let lines = 3_000;
        for budget in [u64::MAX, 1_000] {
            let rules = rules(&["ERROR"], 100_000, budget);
            let mut picking = Picking::new(&rules, 0, 1, b"");
            picking.feed(&rules, "ERROR\n".repeat(lines).as_bytes(), |_| (0, 0));
            picking.picker.decide(true);
            let visits = picking.picker.visits;
            assert!(visits <= 4 * lines as u64, "{visits} visits for {lines} lines");
            let (kept, hidden) = picking.finish(&rules, true, |_| (0, 0));
            let fit = budget.min(lines as u64 * 6) / 6;
            assert_eq!((kept.len() as u64, hidden), (fit, lines as u64 - fit));
        }
    }

    /// Regression: with no match waiting, every line offered looked through
    /// the whole window for one, up to `context` lines, so a large
    /// `--keep-context` made input with no match quadratic (5 MB:
    /// 17 s with `--keep-context 100000`). Sized so that cost would take
    /// minutes here; lines in pieces smaller than the context are all
    /// offered.
    #[test]
    fn lines_that_do_not_match_cost_the_same_whatever_the_context() {
        let rules = rules(&["ERROR"], 1_000_000, u64::MAX);
        let mut picking = Picking::new(&rules, 0, 1, b"");
        let line = "info: something ok here\n";
        let lines = 100_000;
        for _ in 0..lines {
            picking.feed(&rules, line.as_bytes(), |_| (0, 0));
        }
        picking.feed(&rules, b"ERROR\n", |_| (0, 0));
        let (kept, hidden) = picking.finish(&rules, true, |_| (0, 0));
        assert_eq!((kept.len(), hidden), (lines + 1, 0));
    }
}
