//! Which lines matter: what `--keep` and `--keep-errors` match, compiled
//! once. Two stages ask it: the keep picker (capture/keep.rs) shows such
//! lines from a cut middle, and `--fold` (transform/fold.rs) never folds
//! them. One matcher, so that the two can never disagree on a line.

use regex::bytes::RegexSet;

use crate::transform::split_terminator;

/// The `--keep` patterns, and [`KEEP_ERRORS`](crate::KEEP_ERRORS) with
/// `--keep-errors`.
#[derive(Clone, Debug)]
pub(crate) struct KeepMatch {
    patterns: RegexSet,
}

impl KeepMatch {
    pub(crate) fn new(patterns: RegexSet) -> KeepMatch {
        KeepMatch { patterns }
    }

    /// Whether a line matches, matched without its `\n` or `\r\n` (so `$`
    /// works).
    pub(crate) fn matches(&self, line: &[u8]) -> bool {
        self.patterns.is_match(split_terminator(line).0)
    }
}
