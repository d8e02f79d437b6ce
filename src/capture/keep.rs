//! `--keep` and `--keep-errors`: lines of the cut middle that match are
//! kept, in order, with `--keep-context` lines around each, within their
//! own byte budget (`--keep-max`); the earliest that fit are kept, and the
//! matching lines that did not fit are counted.
//!
//! The middle streams past (bytes the tail ring lets go of), so lines are
//! assembled and picked as they come; only kept lines, the context before
//! the next match, and one unfinished line are held, each at most
//! [`KeepRules::line_limit`] long.

use std::collections::VecDeque;

use memchr::memchr;
use regex::bytes::RegexSet;

/// Lines longer than this (or than the budget) are matched on their first
/// bytes only; they could not be kept anyway.
const MATCHED_PREFIX: usize = 64 * 1024;

/// What to keep from the middle.
#[derive(Clone, Debug)]
pub(crate) struct KeepRules {
    pub(crate) patterns: RegexSet,
    /// Lines kept before and after each match.
    pub(crate) context: usize,
    /// Bytes the kept lines may use in all.
    pub(crate) budget: u64,
}

impl KeepRules {
    /// Whether a line matches, without its terminator (so `$` works).
    fn matches(&self, line: &[u8]) -> bool {
        let content = line.strip_suffix(b"\n").unwrap_or(line);
        let content = content.strip_suffix(b"\r").unwrap_or(content);
        self.patterns.is_match(content)
    }

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
#[derive(Debug)]
pub(crate) struct Picker {
    left: u64,
    /// Recent lines not kept, the context before the next match.
    before: VecDeque<MiddleLine>,
    /// Lines still to keep after the last match.
    after: usize,
    kept: Vec<MiddleLine>,
    /// Matching lines that did not fit.
    hidden: u64,
}

impl Picker {
    pub(crate) fn new(rules: &KeepRules) -> Picker {
        Picker {
            left: rules.budget,
            before: VecDeque::new(),
            after: 0,
            kept: Vec::new(),
            hidden: 0,
        }
    }

    fn fits(&self, line: &MiddleLine) -> bool {
        line.len == line.bytes.len() as u64 && line.len <= self.left
    }

    fn keep(&mut self, line: MiddleLine) {
        self.left -= line.len;
        self.kept.push(line);
    }

    pub(crate) fn offer(&mut self, rules: &KeepRules, line: MiddleLine) {
        if rules.matches(&line.bytes) {
            if !self.fits(&line) {
                self.hidden += 1;
                self.remember(rules, line);
                return;
            }
            self.keep(line);
            // The context before it, nearest first, as far as it fits.
            let mut context = Vec::new();
            while let Some(earlier) = self.before.pop_back() {
                if self.fits(&earlier) {
                    self.left -= earlier.len;
                    context.push(earlier);
                }
            }
            let matched = self.kept.pop();
            self.kept.extend(context.into_iter().rev());
            self.kept.extend(matched);
            self.after = rules.context;
        } else if self.after > 0 {
            self.after -= 1;
            if self.fits(&line) {
                self.keep(line);
            }
        } else {
            self.remember(rules, line);
        }
    }

    fn remember(&mut self, rules: &KeepRules, line: MiddleLine) {
        if rules.context > 0 {
            self.before.push_back(line);
            if self.before.len() > rules.context {
                self.before.pop_front();
            }
        }
    }

    /// Takes in lines another picker kept (from later in the middle),
    /// as far as they fit what is left.
    pub(crate) fn absorb(&mut self, rules: &KeepRules, other: Picker) {
        self.hidden += other.hidden;
        for line in other.kept {
            if self.fits(&line) {
                self.keep(line);
            } else if rules.matches(&line.bytes) {
                self.hidden += 1;
            }
        }
    }

    /// The kept lines in order, and how many matching lines did not fit.
    pub(crate) fn into_kept(self) -> (Vec<MiddleLine>, u64) {
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

}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(patterns: &[&str], context: usize, budget: u64) -> KeepRules {
        KeepRules {
            patterns: RegexSet::new(patterns).unwrap(),
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
}
