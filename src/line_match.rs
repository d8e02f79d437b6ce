//! Patterns matched against whole lines, compiled once: what `--keep` and
//! `--keep-errors` match, which the keep picker (capture/keep.rs) shows
//! from a cut middle and `--fold` (transform/fold.rs) never folds (one
//! matcher, so that the two can never disagree on a line), and each
//! `--fold-pattern`.
//!
//! Matching line by line costs a regex search per line; most lines of a
//! log match nothing. So a matcher also finds, in a run of many lines, the
//! first line that could match ([`LineMatch::candidate`]): every match
//! holds one of a few literals (those its pattern starts with, or those
//! of a later part of it, whichever are longer), once ASCII letters are
//! folded to lower case in both the patterns and the text, and one
//! multi-literal search over the lower-cased text skips the lines in
//! between. The regex crate's own prefilter cannot do that for
//! `(?i)error`: it needs every case variant of each word.

use aho_corasick::{AhoCorasick, MatchKind, packed};
use regex::bytes::RegexSet;
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{
    Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind,
    Repetition,
};

use crate::vocab::split_terminator;

/// What `--keep-errors` keeps: lines that say error (also `TypeError`,
/// `errors`), exception (also `NullPointerException`), fail, failed,
/// failure, panic, panicked, traceback or fatal, in any case, and pytest's
/// `E   ` lines that carry an assertion's details.
pub const KEEP_ERRORS: &str =
    r"(?i:(error|exception)s?\b|\b(fail(s|ed|ure|ures)?|panic(s|ked)?|traceback|fatal)\b)|^E   ";

/// Text lower-cased at a time for the literal search, at first and at
/// most: a candidate in the next line costs little lower-casing, and the
/// scratch memory stays bounded.
const FIRST_WINDOW: usize = 256;
const CANDIDATE_WINDOW: usize = 16 * 1024;

/// Lines that match any of some patterns.
#[derive(Clone, Debug)]
pub(crate) struct LineMatch {
    patterns: RegexSet,
    /// Literals one of which every match holds; `None` when some pattern
    /// has none (every line is then a candidate).
    literals: Option<Literals>,
}

impl LineMatch {
    /// Compiles `patterns` (already checked to be valid regexes).
    pub(crate) fn new<S: AsRef<str>>(patterns: &[S]) -> Result<LineMatch, regex::Error> {
        Ok(LineMatch {
            patterns: RegexSet::new(patterns)?,
            literals: required_literals(patterns),
        })
    }

    /// Whether a line matches, matched without its `\n` or `\r\n` (so `$`
    /// works).
    pub(crate) fn matches(&self, line: &[u8]) -> bool {
        self.patterns.is_match(split_terminator(line).0)
    }

    /// An offset in `text` such that no line of `text` that ends before it
    /// can match (`None`: no line that ends in `text`); the line that holds
    /// it may. `scratch` is reused.
    pub(crate) fn candidate(&self, text: &[u8], scratch: &mut Vec<u8>) -> Option<usize> {
        let Some(literals) = &self.literals else {
            return (!text.is_empty()).then_some(0);
        };
        let longest = literals.longest;
        if longest == 0 {
            // A pattern that can never match.
            return None;
        }
        let (mut from, mut size) = (0, FIRST_WINDOW);
        while from < text.len() {
            let end = from.saturating_add(size).min(text.len());
            scratch.clear();
            scratch.extend(text[from..end].iter().map(u8::to_ascii_lowercase));
            if let Some(found) = literals.find(&scratch[..]) {
                return Some(from + found);
            }
            if end == text.len() {
                break;
            }
            // Windows overlap by a literal's length less one, so that no
            // literal is split between two of them.
            from = end - (longest - 1).min(end - from - 1);
            size = (size * 2).min(CANDIDATE_WINDOW);
        }
        None
    }
}

/// `--keep-errors`'s words ([`KEEP_ERRORS`](KEEP_ERRORS)), which
/// say error only outside file names: `exceptions.py`, `error.h` and
/// `/usr/include/c++/12/system_error` in a listing are names, not errors.
/// A match is in a file name when the run of non-blank bytes that holds it
/// has a `/`, or ends in an extension (`.` and 1 to 8 letters or digits),
/// or is the whole line and has a `.`, `_` or `-` (a bare name, as `ls`
/// and `find` print them); and every match of a line is in one when the
/// line is an `ls -l` entry (it starts with a file mode, `-rw-r--r--`).
#[derive(Clone, Debug)]
pub(crate) struct ErrorWords {
    words: regex::bytes::Regex,
    listing: regex::bytes::Regex,
    extension: regex::bytes::Regex,
}

impl ErrorWords {
    pub(crate) fn new() -> Result<ErrorWords, regex::Error> {
        Ok(ErrorWords {
            words: regex::bytes::Regex::new(KEEP_ERRORS)?,
            listing: regex::bytes::Regex::new(r"^[-dlcbpsD][-rwxsStTl]{9}[.+@]?[ \t\n\x0C\r]")?,
            extension: regex::bytes::Regex::new(r"\.[A-Za-z0-9]{1,8}$")?,
        })
    }

    /// Whether `line` (its `\n` or `\r\n` aside) says error outside a
    /// file name.
    pub(crate) fn said_by(&self, line: &[u8]) -> bool {
        let line = split_terminator(line).0;
        if self.listing.is_match(line) {
            return false;
        }
        let blank = |byte: &u8| byte.is_ascii_whitespace();
        self.words.find_iter(line).any(|found| {
            let start = line[..found.start()]
                .iter()
                .rposition(blank)
                .map_or(0, |at| at + 1);
            let end = line[found.end()..]
                .iter()
                .position(blank)
                .map_or(line.len(), |at| found.end() + at);
            let token = &line[start..end];
            let whole = start == 0 && end == line.len();
            let name = token.contains(&b'/')
                || self.extension.is_match(token)
                || (whole && token.iter().any(|byte| matches!(byte, b'.' | b'_' | b'-')));
            !name
        })
    }
}

/// What a matcher learnt of a chunk whose lines it is asked about in
/// order (see [`LineMatch::matches_in`]).
#[derive(Debug, Default)]
pub(crate) struct Ahead {
    /// No line that ends at or before this offset matches, from the line
    /// where the search began on; `None`: not searched yet.
    found: Option<usize>,
    scratch: Vec<u8>,
}

impl Ahead {
    /// A new chunk.
    pub(crate) fn reset(&mut self) {
        self.found = None;
    }
}

impl LineMatch {
    /// Whether the whole line `chunk[start..end]` matches, asked of the
    /// lines of one chunk in order: the lines before the next candidate
    /// are answered without a regex search.
    pub(crate) fn matches_in(
        &self,
        chunk: &[u8],
        start: usize,
        end: usize,
        ahead: &mut Ahead,
    ) -> bool {
        let found = match ahead.found {
            Some(found) if found >= start => found,
            _ => {
                let rest = &chunk[start..];
                let found = start
                    + self
                        .candidate(rest, &mut ahead.scratch)
                        .unwrap_or(rest.len());
                *ahead.found.insert(found)
            }
        };
        end > found && self.matches(&chunk[start..end])
    }
}

/// A search for any of a few literals.
#[derive(Clone, Debug)]
struct Literals {
    /// The longest literal's length; 0 when there are none.
    longest: usize,
    search: Search,
}

#[derive(Clone, Debug)]
enum Search {
    /// Teddy, asked for directly: for a few literals that all begin with
    /// one byte (` passed`, ` failed`), the automaton would search for
    /// that byte first, and stop at every space of a log.
    Packed(packed::Searcher),
    /// One literal (memmem), or where Teddy cannot run.
    Automaton(AhoCorasick),
}

impl Literals {
    /// Where the first literal in `text` starts.
    fn find(&self, text: &[u8]) -> Option<usize> {
        match &self.search {
            Search::Packed(searcher) => searcher.find(text).map(|found| found.start()),
            Search::Automaton(automaton) => automaton.find(text).map(|found| found.start()),
        }
    }
}

/// A searcher for literals one of which every match of `patterns` holds,
/// in lower case; `None` if some pattern holds none.
fn required_literals<S: AsRef<str>>(patterns: &[S]) -> Option<Literals> {
    // The same syntax as `regex::bytes`: `(?-u)` may match any byte.
    let mut parser = regex_syntax::ParserBuilder::new().utf8(false).build();
    let mut literals = Vec::new();
    for pattern in patterns {
        let hir = fold_ascii_case(&parser.parse(pattern.as_ref()).ok()?);
        literals.extend(pattern_literals(&hir)?);
    }
    let longest = literals.iter().map(Vec::len).max().unwrap_or(0);
    let packed = (literals.len() > 1)
        .then(|| packed::Config::new().builder().extend(&literals).build())
        .flatten();
    let search = match packed {
        Some(searcher) => Search::Packed(searcher),
        None => Search::Automaton(
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostFirst)
                .build(&literals)
                .ok()?,
        ),
    };
    Some(Literals { longest, search })
}

/// The literals one of which every match of `hir` holds: those it starts
/// with, or, for a concatenation, those that the rest from one of its
/// parts on starts with (`^\S+\.py:` holds `.py:`), whichever set has the
/// longest shortest literal (a rare word is skipped to faster than `=`).
fn pattern_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let mut inner = hir;
    while let HirKind::Capture(capture) = inner.kind() {
        inner = &capture.sub;
    }
    let mut candidates = vec![hir.clone()];
    if let HirKind::Concat(parts) = inner.kind() {
        candidates.extend((1..parts.len()).map(|from| Hir::concat(parts[from..].to_vec())));
    }
    let mut best: Option<(usize, Vec<Vec<u8>>)> = None;
    for candidate in candidates {
        let mut seq = Extractor::new()
            .kind(ExtractKind::Prefix)
            .extract(&candidate);
        // "fail" stands for "fails" and "failed" too.
        seq.optimize_for_prefix_by_preference();
        let Some(literals) = seq.literals() else {
            continue;
        };
        // A shortest of 0: the pattern can match where nothing is
        // written. None at all: it never matches.
        let shortest = seq.min_literal_len().unwrap_or(usize::MAX);
        if shortest > 0 && best.as_ref().is_none_or(|(length, _)| shortest > *length) {
            let literals = literals.iter().map(|literal| literal.as_bytes().to_vec());
            best = Some((shortest, literals.collect()));
        }
    }
    best.map(|(_, literals)| literals)
}

/// The ASCII capitals within `ranges` (of code points or bytes), as
/// ranges of their lower-case letters.
fn lowered_capitals(ranges: impl Iterator<Item = (u32, u32)>) -> impl Iterator<Item = (u8, u8)> {
    ranges.filter_map(|(start, end)| {
        let start = u8::try_from(start.max(u32::from(b'A'))).ok()?;
        let end = u8::try_from(end.min(u32::from(b'Z'))).ok()?;
        (start <= end).then(|| (start.to_ascii_lowercase(), end.to_ascii_lowercase()))
    })
}

/// `hir` with ASCII upper-case letters replaced by lower-case ones
/// wherever they appear: if `hir` matches some text, the result matches
/// that text lower-cased (ASCII only, as [`u8::to_ascii_lowercase`]).
fn fold_ascii_case(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => hir.clone(),
        HirKind::Literal(literal) => Hir::literal(literal.0.to_ascii_lowercase()),
        HirKind::Class(Class::Unicode(class)) => {
            let capitals = ClassUnicodeRange::new('A', 'Z');
            let ranges = class
                .ranges()
                .iter()
                .map(|range| (u32::from(range.start()), u32::from(range.end())));
            let lowered = lowered_capitals(ranges)
                .map(|(start, end)| ClassUnicodeRange::new(char::from(start), char::from(end)));
            let mut folded = class.clone();
            folded.difference(&ClassUnicode::new([capitals]));
            folded.union(&ClassUnicode::new(lowered));
            Hir::class(Class::Unicode(folded))
        }
        HirKind::Class(Class::Bytes(class)) => {
            let capitals = ClassBytesRange::new(b'A', b'Z');
            let ranges = class
                .ranges()
                .iter()
                .map(|range| (u32::from(range.start()), u32::from(range.end())));
            let lowered =
                lowered_capitals(ranges).map(|(start, end)| ClassBytesRange::new(start, end));
            let mut folded = class.clone();
            folded.difference(&ClassBytes::new([capitals]));
            folded.union(&ClassBytes::new(lowered));
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

    fn searched(pattern: &str) -> bool {
        required_literals(&[pattern]).is_some()
    }

    #[test]
    fn keep_errors_starts_with_a_few_lower_case_words() {
        let matcher = LineMatch::new(&[KEEP_ERRORS]).unwrap();
        let hir = regex_syntax::ParserBuilder::new()
            .utf8(false)
            .build()
            .parse(KEEP_ERRORS)
            .unwrap();
        let starts = pattern_literals(&fold_ascii_case(&hir)).expect("literals");
        // error, exception, fail, panic, traceback (and its Kelvin-sign
        // k), fatal, "E   ": not the 2^n case variants of each.
        assert!(starts.len() <= 10, "{starts:?}");
        assert!(matches!(
            matcher.literals.as_ref().map(|found| &found.search),
            Some(Search::Packed(_))
        ));
        let mut scratch = Vec::new();
        let text = b"INFO ok\nINFO items processed\n2 tests FAILED\n";
        assert_eq!(matcher.candidate(text, &mut scratch), Some(text.len() - 7));
        assert_eq!(
            matcher.candidate(b"INFO ok\nall good\n", &mut scratch),
            None
        );
        assert_eq!(matcher.candidate(b"E   assert\n", &mut scratch), Some(0));
    }

    #[test]
    fn patterns_that_match_anywhere_make_every_line_a_candidate() {
        for pattern in ["^$", "x*", r"\w", "(?i)a|", ".", r"[^\n]{3}"] {
            assert!(!searched(pattern), "{pattern}");
        }
        assert!(searched("(?i)warn"));
        // A later part of the pattern holds a literal.
        assert!(searched(r"^\S+\.py:\d+: \S"));
        assert!(searched(r"(^x*(?:done|ok))"));
    }

    #[test]
    fn a_literal_across_two_windows_is_found() {
        let matcher = LineMatch::new(&["(?i)needle"]).unwrap();
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
        let cases: [(&str, &[u8]); 10] = [
            ("(?i)error", b"xx ErRoR"),
            ("ERROR", b"an ERROR here"),
            ("[A-C]x", b"--Bx"),
            ("(?i)stra\u{df}e", "STRA\u{df}E".as_bytes()),
            ("(?i)k", "\u{212a}".as_bytes()),
            ("(?-u:\\xFF)A", b"\xffA"),
            ("^E   ", b"E   x"),
            ("(?i:fail(s|ed)?)\\b", b"all FAILED"),
            (r"(?i)^\S+\.Py:\d+: \S", b"a/b.PY:12: x"),
            (r"^=+ .*\b(passed|failed)\b", b"=== 3 passed"),
        ];
        let mut scratch = Vec::new();
        for (pattern, line) in cases {
            let matcher = LineMatch::new(&[pattern]).unwrap();
            assert!(matcher.matches(line), "{pattern}");
            let at = matcher.candidate(line, &mut scratch);
            assert!(at.is_some(), "{pattern} on {line:?}");
        }
    }

    /// Patterns built from pieces that make the literal search matter:
    /// case, classes, repetitions, anchors, alternations, non-ASCII.
    fn pattern() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "err",
            "ERR",
            "(?i)fail",
            "[A-C]x",
            "x+",
            r"\d+",
            "^",
            "$",
            r"\b",
            ".",
            "(a|bc)",
            "\u{e9}",
            "(?i)\u{e9}",
            "K",
            "(?i)k",
            r"\S+",
            "ok?",
            "(?i:ab|Cd)",
            "=+ ",
            "[^a]",
        ]);
        let concat = prop::collection::vec(piece, 1..4).prop_map(|pieces| pieces.concat());
        prop::collection::vec(concat, 1..3).prop_map(|branches| branches.join("|"))
    }

    fn text() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "err", "ErR", "FAIL", "fail", "Bx", "bx", "xx", "12", " ", "\n", "\n", "\r\n",
            "\u{e9}", "\u{c9}", "\u{212a}", "a", "bc", "ok", "o", "cD", "== ", "K", "k",
        ]);
        prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat().into_bytes())
    }

    proptest::proptest! {
        /// Skipping to candidates answers every line as matching it
        /// would.
        #[test]
        fn skipping_never_changes_which_lines_match(pattern in pattern(), text in text()) {
            let Ok(matcher) = LineMatch::new(&[&pattern]) else {
                return Ok(());
            };
            let mut ahead = Ahead::default();
            let mut start = 0;
            for line in text.split_inclusive(|&byte| byte == b'\n') {
                let end = start + line.len();
                proptest::prop_assert_eq!(
                    matcher.matches_in(&text, start, end, &mut ahead),
                    matcher.matches(line),
                    "{:?} on line {:?}", pattern, String::from_utf8_lossy(line)
                );
                start = end;
            }
        }
    }
}
