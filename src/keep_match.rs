//! Which lines matter: what `--keep` and `--keep-errors` match, compiled
//! once. Two stages ask it: the keep picker (capture/keep.rs) shows such
//! lines from a cut middle, and `--fold` (transform/fold.rs) never folds
//! them. One matcher, so that the two can never disagree on a line.
//!
//! Matching line by line costs a regex search per line; most lines of a
//! log match nothing. So the matcher also finds, in a run of many lines,
//! the first place where a match could start ([`KeepMatch::candidate`]):
//! every match starts with one of a few literals, once ASCII letters are
//! folded to lower case in both the patterns and the text, and one
//! multi-literal search over the lower-cased text skips the lines in
//! between. The regex crate's own prefilter cannot do that for
//! `(?i)error`: it needs every case variant of each word.

use aho_corasick::{AhoCorasick, MatchKind};
use regex::bytes::RegexSet;
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{
    Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind,
    Repetition,
};

use crate::transform::split_terminator;

/// Text lower-cased at a time for the literal search: bounds the scratch
/// memory, and a candidate near the start costs little lower-casing.
const CANDIDATE_WINDOW: usize = 16 * 1024;

/// The `--keep` patterns, and [`KEEP_ERRORS`](crate::KEEP_ERRORS) with
/// `--keep-errors`.
#[derive(Clone, Debug)]
pub(crate) struct KeepMatch {
    patterns: RegexSet,
    /// Where a match may start; `None` when some pattern has no literal
    /// every match starts with (every line is then a candidate).
    starts: Option<AhoCorasick>,
}

impl KeepMatch {
    /// Compiles `patterns` (already checked to be valid regexes).
    pub(crate) fn new<S: AsRef<str>>(patterns: &[S]) -> Result<KeepMatch, regex::Error> {
        Ok(KeepMatch {
            patterns: RegexSet::new(patterns)?,
            starts: match_starts(patterns),
        })
    }

    /// Whether a line matches, matched without its `\n` or `\r\n` (so `$`
    /// works).
    pub(crate) fn matches(&self, line: &[u8]) -> bool {
        self.patterns.is_match(split_terminator(line).0)
    }

    /// The offset in `text` of the first byte where a match could start:
    /// no line that ends before it can match. `scratch` is reused.
    pub(crate) fn candidate(&self, text: &[u8], scratch: &mut Vec<u8>) -> Option<usize> {
        let Some(starts) = &self.starts else {
            return (!text.is_empty()).then_some(0);
        };
        if starts.patterns_len() == 0 {
            // A pattern that can never match.
            return None;
        }
        let longest = starts.max_pattern_len();
        let mut from = 0;
        while from < text.len() {
            // Windows overlap by a literal's length less one, so that no
            // literal is split between two of them.
            let end = (from + CANDIDATE_WINDOW).min(text.len());
            let window = &text[from..end];
            scratch.clear();
            scratch.extend(window.iter().map(u8::to_ascii_lowercase));
            if let Some(found) = starts.find(&scratch[..]) {
                return Some(from + found.start());
            }
            if end == text.len() {
                break;
            }
            from = end - (longest - 1).min(end - from - 1);
        }
        None
    }
}

/// A searcher for the literals every match of `patterns` starts with, in
/// lower case; `None` when there are none to search for.
fn match_starts<S: AsRef<str>>(patterns: &[S]) -> Option<AhoCorasick> {
    // The same syntax as `regex::bytes`: `(?-u)` may match any byte.
    let mut parser = regex_syntax::ParserBuilder::new().utf8(false).build();
    let mut literals = Vec::new();
    for pattern in patterns {
        let hir = parser.parse(pattern.as_ref()).ok()?;
        let mut seq = Extractor::new()
            .kind(ExtractKind::Prefix)
            .extract(&fold_ascii_case(&hir));
        // "fail" stands for "fails" and "failed" too.
        seq.optimize_for_prefix_by_preference();
        for literal in seq.literals()? {
            if literal.as_bytes().is_empty() {
                // The pattern can match where nothing is written.
                return None;
            }
            literals.push(literal.as_bytes().to_vec());
        }
    }
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostFirst)
        .build(&literals)
        .ok()
}

/// `hir` with ASCII upper-case letters replaced by lower-case ones
/// wherever they appear: if `hir` matches some text, the result matches
/// that text lower-cased (ASCII only, as [`u8::to_ascii_lowercase`]).
fn fold_ascii_case(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => hir.clone(),
        HirKind::Literal(literal) => Hir::literal(literal.0.to_ascii_lowercase()),
        HirKind::Class(Class::Unicode(class)) => {
            let upper = ClassUnicode::new([ClassUnicodeRange::new('A', 'Z')]);
            let mut lowered = ClassUnicode::empty();
            for range in class.ranges() {
                let mut letters = ClassUnicode::new([*range]);
                letters.intersect(&upper);
                for letters in letters.ranges() {
                    lowered.push(ClassUnicodeRange::new(
                        letters.start().to_ascii_lowercase(),
                        letters.end().to_ascii_lowercase(),
                    ));
                }
            }
            let mut folded = class.clone();
            folded.difference(&upper);
            folded.union(&lowered);
            Hir::class(Class::Unicode(folded))
        }
        HirKind::Class(Class::Bytes(class)) => {
            let upper = ClassBytes::new([ClassBytesRange::new(b'A', b'Z')]);
            let mut lowered = ClassBytes::empty();
            for range in class.ranges() {
                let mut letters = ClassBytes::new([*range]);
                letters.intersect(&upper);
                for letters in letters.ranges() {
                    lowered.push(ClassBytesRange::new(
                        letters.start().to_ascii_lowercase(),
                        letters.end().to_ascii_lowercase(),
                    ));
                }
            }
            let mut folded = class.clone();
            folded.difference(&upper);
            folded.union(&lowered);
            Hir::class(Class::Bytes(folded))
        }
        HirKind::Repetition(repetition) => Hir::repetition(Repetition {
            sub: Box::new(fold_ascii_case(&repetition.sub)),
            ..repetition.clone()
        }),
        HirKind::Capture(capture) => Hir::capture(Capture {
            sub: Box::new(fold_ascii_case(&capture.sub)),
            ..capture.clone()
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(fold_ascii_case).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(fold_ascii_case).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::KEEP_ERRORS;

    fn searched(pattern: &str) -> bool {
        match_starts(&[pattern]).is_some()
    }

    #[test]
    fn keep_errors_starts_with_a_few_lower_case_words() {
        let matcher = KeepMatch::new(&[KEEP_ERRORS]).unwrap();
        let starts = matcher.starts.as_ref().expect("literals");
        // error, exception, fail, panic, traceback (and its Kelvin-sign
        // k), fatal, "E   ": not the 2^n case variants of each.
        assert!(starts.patterns_len() <= 10, "{}", starts.patterns_len());
        let mut scratch = Vec::new();
        let text = b"INFO ok\nINFO items processed\n2 tests FAILED\n";
        assert_eq!(matcher.candidate(text, &mut scratch), Some(text.len() - 7));
        assert_eq!(matcher.candidate(b"INFO ok\nall good\n", &mut scratch), None);
        assert_eq!(matcher.candidate(b"E   assert\n", &mut scratch), Some(0));
    }

    #[test]
    fn patterns_that_match_anywhere_make_every_line_a_candidate() {
        for pattern in ["^$", "x*", r"\w", "(?i)a|", ".", r"[^\n]{3}"] {
            assert!(!searched(pattern), "{pattern}");
        }
        assert!(searched("(?i)warn"));
    }

    #[test]
    fn a_literal_across_two_windows_is_found() {
        let matcher = KeepMatch::new(&["(?i)needle"]).unwrap();
        let mut scratch = Vec::new();
        for at in CANDIDATE_WINDOW - 8..CANDIDATE_WINDOW + 2 {
            let mut text = vec![b'x'; 3 * CANDIDATE_WINDOW];
            text[at..at + 6].copy_from_slice(b"NeEdLe");
            assert_eq!(matcher.candidate(&text, &mut scratch), Some(at), "at {at}");
        }
        let text = vec![b'x'; 3 * CANDIDATE_WINDOW + 5];
        assert_eq!(matcher.candidate(&text, &mut scratch), None);
    }

    #[test]
    fn a_line_that_matches_is_never_skipped() {
        // Upper, lower and mixed case; classes; non-ASCII; bytes mode.
        let cases: [(&str, &[u8]); 8] = [
            ("(?i)error", b"xx ErRoR"),
            ("ERROR", b"an ERROR here"),
            ("[A-C]x", b"--Bx"),
            ("(?i)stra\u{df}e", "STRA\u{df}E".as_bytes()),
            ("(?i)k", "\u{212a}".as_bytes()),
            ("(?-u:\\xFF)A", b"\xffA"),
            ("^E   ", b"E   x"),
            ("(?i:fail(s|ed)?)\\b", b"all FAILED"),
        ];
        let mut scratch = Vec::new();
        for (pattern, line) in cases {
            let matcher = KeepMatch::new(&[pattern]).unwrap();
            assert!(matcher.matches(line), "{pattern}");
            let at = matcher.candidate(line, &mut scratch);
            assert!(at.is_some(), "{pattern} on {line:?}");
        }
    }
}
