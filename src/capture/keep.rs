//! `--keep` and `--keep-errors`: lines of the cut middle that match are
//! kept, in order, with `--keep-context` lines around each, within their
//! own byte budget (`--keep-max`); the earliest that fit are kept, and the
//! matching lines that did not fit are counted.
//!
//! The middle streams past (bytes the tail ring lets go of), so lines are
//! assembled and picked as they come; only kept lines, the lines around
//! matches not yet decided, and one unfinished line are held.

use std::collections::VecDeque;

use memchr::memchr;

use crate::keep_match::KeepMatch;

/// Lines longer than this (or than the budget) are matched on their first
/// bytes only; they could not be kept anyway.
const MATCHED_PREFIX: usize = 64 * 1024;

/// What to keep from the middle.
#[derive(Clone, Debug)]
pub(crate) struct KeepRules {
    /// The lines that match.
    pub(crate) lines: KeepMatch,
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
#[derive(Debug)]
pub(crate) struct Picker {
    context: usize,
    budget: u64,
    left: u64,
    window: VecDeque<Candidate>,
    kept: Vec<MiddleLine>,
    /// Matching lines that did not fit.
    hidden: u64,
}

#[derive(Debug)]
struct Candidate {
    line: MiddleLine,
    /// A match whose fate is not decided yet.
    undecided: bool,
    kept: bool,
}

impl Picker {
    pub(crate) fn new(rules: &KeepRules) -> Picker {
        Picker {
            context: rules.context,
            budget: rules.budget,
            left: rules.budget,
            window: VecDeque::new(),
            kept: Vec::new(),
            hidden: 0,
        }
    }

    pub(crate) fn offer(&mut self, rules: &KeepRules, mut line: MiddleLine) {
        let undecided = rules.lines.matches(&line.bytes);
        if line.len > self.budget {
            // It can never be kept: only its length matters now.
            line.bytes = Vec::new();
        }
        self.window.push_back(Candidate {
            line,
            undecided,
            kept: false,
        });
        self.decide(false);
    }

    /// Decides every match whose context after has arrived (all of them
    /// once `ended`), then lets go of the lines no match can reach.
    fn decide(&mut self, ended: bool) {
        loop {
            let first = self.window.iter().position(|c| c.undecided);
            match first {
                Some(at) if ended || self.window.len() - at > self.context => {
                    self.window[at].undecided = false;
                    self.keep_with_context(at);
                }
                _ => {
                    let reachable = first.unwrap_or(self.window.len());
                    let settled = reachable.saturating_sub(self.context);
                    let kept = self.window.drain(..settled).filter(|c| c.kept);
                    self.kept.extend(kept.map(|c| c.line));
                    return;
                }
            }
        }
    }

    fn keep_with_context(&mut self, at: usize) {
        if !self.take(at) {
            self.hidden += 1;
            return;
        }
        let (mut before, mut after) = (true, true);
        for distance in 1..=self.context {
            before = before && at >= distance && self.take(at - distance);
            after = after && self.take(at + distance);
            if !before && !after {
                break;
            }
        }
    }

    /// Keeps the line at `at` if it fits; whether it is kept.
    fn take(&mut self, at: usize) -> bool {
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
        true
    }

    /// The kept lines in order, and how many matching lines did not fit.
    pub(crate) fn into_kept(mut self) -> (Vec<MiddleLine>, u64) {
        self.decide(true);
        let rest = self.window.into_iter().filter(|c| c.kept);
        self.kept.extend(rest.map(|c| c.line));
        (self.kept, self.hidden)
    }
}

/// Assembles lines from bytes that arrive in order, with their offsets.
#[derive(Debug)]
pub(crate) struct LineFeed {
    partial: Vec<u8>,
    partial_len: u64,
    /// The offset of the line being assembled, and its number.
    start: u64,
    number: u64,
    limit: usize,
}

impl LineFeed {
    /// Starts at `offset`, where line `number` of the capped stream starts
    /// (or continues: then `so_far` is what came before `offset`).
    pub(crate) fn new(rules: &KeepRules, offset: u64, number: u64, so_far: &[u8]) -> LineFeed {
        let limit = rules.line_limit();
        let mut feed = LineFeed {
            partial: Vec::new(),
            partial_len: 0,
            start: offset - so_far.len() as u64,
            number,
            limit,
        };
        feed.hold(so_far);
        feed
    }

    fn hold(&mut self, bytes: &[u8]) {
        let room = self.limit.saturating_sub(self.partial.len());
        self.partial
            .extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.partial_len += bytes.len() as u64;
    }

    /// Feeds `bytes`; calls `line` for each line completed, with its
    /// number in the capped stream.
    pub(crate) fn feed(&mut self, mut bytes: &[u8], mut line: impl FnMut(u64, MiddleLine)) {
        while let Some(end) = memchr(b'\n', bytes) {
            self.hold(&bytes[..=end]);
            let whole = MiddleLine {
                start: self.start,
                len: self.partial_len,
                bytes: std::mem::take(&mut self.partial),
                raw: (0, 0),
            };
            self.start += self.partial_len;
            self.partial_len = 0;
            line(self.number, whole);
            self.number += 1;
            bytes = &bytes[end + 1..];
        }
        self.hold(bytes);
    }

    /// The stream ended: a last line without `\n` is whole too.
    pub(crate) fn finish(&mut self, mut line: impl FnMut(u64, MiddleLine)) {
        if self.partial_len > 0 {
            let last = MiddleLine {
                start: self.start,
                len: self.partial_len,
                bytes: std::mem::take(&mut self.partial),
                raw: (0, 0),
            };
            self.partial_len = 0;
            line(self.number, last);
        }
    }
}

#[cfg(test)]
mod tests {
    use regex::bytes::RegexSet;

    use super::*;

    fn rules(patterns: &[&str], context: usize, budget: u64) -> KeepRules {
        KeepRules {
            lines: KeepMatch::new(RegexSet::new(patterns).unwrap()),
            context,
            budget,
        }
    }

    fn pick(rules: &KeepRules, text: &str) -> (Vec<String>, u64) {
        let mut picker = Picker::new(rules);
        let mut feed = LineFeed::new(rules, 0, 1, b"");
        feed.feed(text.as_bytes(), |_, line| picker.offer(rules, line));
        let (kept, hidden) = picker.into_kept();
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
}
