//! A reference model of toolcap's cleaning transforms and `--keep`,
//! transcribed from the guide alone ("Cleaning and keeping what matters"),
//! built on the core model in `model.rs` for where the cleaned stream is
//! cut. Filter output only, as there.
//!
//! It must not be derived from `src/`: a misreading shared by the
//! implementation and its model would pass every property test. Each
//! transform is one function on the whole stream, written to be obviously
//! right, not fast, quoting the guide sentence it implements. Every line
//! of the cleaned stream carries the raw lines it stands for, because the
//! markers' line numbers are those of the raw input.
//!
//! # Where the guide is ambiguous or silent, and the reading chosen here
//!
//! (Numbered on from the 25 of `model.rs`, which this model inherits.)
//!
//! 26. `--collapse-cr`: a line's text (without its `\n` or `\r\n`) is cut
//!     at every bare `\r` into frames; what remains is the last frame with
//!     text in it (a byte other than a backspace, ambiguity 27), so each
//!     `\r` that "more text follows" discards everything before it, and a
//!     trailing `\r` (or a run of them) keeps the frame before it. The bare
//!     `\r` bytes themselves never remain, trailing ones included: "keeps
//!     the last frame drawn" is read as keeping the frame, not the `\r` (a
//!     demanding user wants `50%`, not `50%\r`).
//! 27. `--collapse-cr`, backspace: settled by the guide, "a backspace is
//!     not text: it only moves the cursor back", so "a\r\b" keeps "a", as
//!     a terminal shows it. (The guide first left it open, and this model
//!     read a backspace as text.) Within the remaining frame each backspace, left to right,
//!     removes itself and the character before it in what the frame has so
//!     far: the last UTF-8 character if the frame ends in a complete one,
//!     else one byte. A backspace with nothing before it in its frame
//!     removes only itself (it never reaches into a discarded frame or the
//!     previous line).
//! 28. Not modelled: "A frame longer than 1 MiB is passed on as it is"
//!     (what then happens to the `\r` and frames around it is not said);
//!     the model refuses such input.
//! 29. `--squeeze`: "Lines over 64 KiB" counts the whole line, `\n`
//!     included (the same bytes that are compared). The marker line ends in
//!     `\n`, also in a run of `\r\n` lines. Empty lines (`\n`) are lines and
//!     are squeezed like any other.
//! 30. Lines toolcap writes itself (a squeeze marker, the binary summary)
//!     are not transformed by the stages after the one that wrote them: a
//!     small `--max-line` does not cut a squeeze marker in half, and
//!     `--utf8` does not rewrite a spill path in the binary summary. Read
//!     literally ("Transforms run on the stream") they would be; a user
//!     would not expect toolcap to mangle its own markers.
//! 31. `--binary summary`: "the single line" ends in `\n`; it replaces the
//!     whole stream, and stands for every raw line (1 to the raw L). It is
//!     then capped like any stream, as toolcap's own line (ambiguities 45):
//!     a budget below its length leaves only the cut marker.
//! 32. `--max-line`: "moved back ... off a split UTF-8 character, at most
//!     3 bytes" is the cut rule of "Output format" step 2 (move while the
//!     byte at the cut is a continuation byte, at most 3 times, never
//!     before the line's start or past its end). N = the bytes removed
//!     after those moves. A line ending in a bare `\r` (the input's last
//!     line) counts the `\r` as content.
//! 33. A raw line that vanishes entirely (possible only for the input's
//!     last line, unterminated: an escape sequence alone, a lone `\r`) is
//!     counted in the last cleaned line's range, so a gap that runs to the
//!     end names it: `sed -n 'a,bp'` then shows every omitted raw line.
//! 34. `Cleaned: {raw} raw bytes became {n} bytes` is the third header line,
//!     after `Total output lines`, before the blank line; "cleaning changed
//!     the stream" means the cleaned bytes differ from the raw ones (a
//!     transform that was on but changed nothing adds no line). With
//!     `--no-header` it is omitted with the rest of the header.
//! 35. `--keep`: a unit is a match with its context; units are served by
//!     priority (errors, i.e. `--keep-errors` lines, before `--keep`
//!     lines; within a class the one nearest the tail first), taken in
//!     that order while their cost fits `--keep-max`; the first that does
//!     not fit stops: it and every unit after it are not shown, counted
//!     by class. A match longer than `--keep-max` has no unit. A `--keep`
//!     match under an error line (blank lines between, the error line in
//!     the middle or the head) is served as an error (and counted as
//!     one).
//! 36. `--keep-context N`: context lines are taken nearest first,
//!     alternating before and after (distance 1 before, 1 after, 2 before,
//!     ...), only from the whole lines of the cut middle; a side stops at
//!     the first line that is not in the middle or would make the unit
//!     longer than `--keep-max` less one bound marker M.
//! 37. The cost of some units: the bytes of the lines of their units, and
//!     for each gap between two runs of those lines, and between the head
//!     and the first run, min(M, the gap's bytes) (M when the head cut
//!     splits a line); the gap before the tail costs its bytes when no
//!     longer than M and made of whole lines, else nothing. M is the
//!     marker line with 12-digit numbers, plus 4 (`ESC[0m`). A gap made of
//!     whole lines of the middle and no longer than its own marker line
//!     plus 4 is printed as it is. `--keep-max` is taken from H and T in
//!     proportion: floor(K*H/(H+T)) from the head, the rest from the tail.
//! 38. `--keep-errors`: a word is a maximal run of alphanumeric characters
//!     and `_` (Unicode, on the line read as UTF-8, an invalid byte being a
//!     separator); it matches when, ASCII-case-insensitively, it ends in
//!     `error`, `errors`, `exception` or `exceptions`, or is one of `fail`,
//!     `fails`, `failed`, `failure`, `failures`, `panic`, `panics`,
//!     `panicked`, `traceback`, `fatal`. "starting with pytest's `E   `":
//!     the line's first four bytes are `E` and three spaces, case
//!     sensitive.
//! 39. "the last marker adds `; {M} more matching lines not shown`": the
//!     last marker line of the output, after the `(lines a-b); full output
//!     in PATH` part when spilling. M counts every matching line of the
//!     middle that is not shown.
//! 40. A gap's line range: a = the first raw line of the cleaned line that
//!     holds the gap's first byte, b = the last raw line of the cleaned line
//!     that holds its last byte (the core formula, mapped to raw lines).
//! 41. `--fold`: "a run of k >= 3 consecutive similar lines" is a maximal
//!     run of lines that may be folded, each similar to the one before it
//!     (similarity is an equivalence, so to the first too). A line that
//!     "starts no run" or "ends a run" (protected, written by toolcap, over
//!     64 KiB) is a run of its own, never folded.
//! 42. `--fold`, "a run of 8 or more hex digits ... begins (a hex digit that
//!     does not follow one)": the run is measured from where it begins, to
//!     the first byte that is not a hex digit. "otherwise a run of ASCII
//!     digits" starts at a digit that rule did not take, and its `.` is
//!     taken in only when a digit follows it; the placeholder is one token,
//!     unlike any byte.
//! 43. `--fold`, protection: "a line that `--keep` or `--keep-errors`
//!     matches" is matched as the keep rules match (ambiguity 38, without
//!     the line's `\n` or `\r\n`), on the line as fold sees it (after
//!     squeeze, before max-line).
//! 44. `--fold`: a raw line that vanished (ambiguity 33) is no line to fold
//!     or to end a run; it is set aside and belongs to the last line after.
//! 45. Step 5 of the cut rules, toolcap's own text, runs after the core's
//!     steps (and after a record boundary moved a cut): a cut strictly
//!     inside a line toolcap wrote, or inside `--max-line`'s marker (from
//!     its space before `[` to its space after `]`), moves out of it, h
//!     back to its start and t forward to its end; a cut at its edge
//!     stays.

use std::ops::Range;

use regex::bytes::Regex;

use crate::model::{Spec, escape_sequences, expected_cuts, leaves_style_on};

/// The cleaning and keeping options, on top of the core `Spec`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CleanSpec {
    /// Budgets, `--lines`, `--cut`, the header, the spill path.
    pub core: Spec,
    /// `--binary summary`.
    pub binary_summary: bool,
    /// `--strip-ansi`.
    pub strip_ansi: bool,
    /// `--collapse-cr`.
    pub collapse_cr: bool,
    /// `--utf8`.
    pub utf8: bool,
    /// `--squeeze`.
    pub squeeze: bool,
    /// `--max-line SIZE`.
    pub max_line: Option<u64>,
    /// `--keep REGEX`, each of them.
    pub keep: Vec<String>,
    /// `--keep-errors`.
    pub keep_errors: bool,
    /// `--keep-context N` (default 0).
    pub keep_context: u64,
    /// `--keep-max SIZE`, if given.
    pub keep_max: Option<u64>,
    /// `--fold`.
    pub fold: bool,
    /// `--fold-pattern REGEX`, each of them.
    pub fold_patterns: Vec<String>,
}

impl CleanSpec {
    /// The core `spec` with every transform off and nothing kept.
    pub fn new(core: Spec) -> Self {
        CleanSpec {
            core,
            binary_summary: false,
            strip_ansi: false,
            collapse_cr: false,
            utf8: false,
            squeeze: false,
            max_line: None,
            keep: Vec::new(),
            keep_errors: false,
            keep_context: 0,
            keep_max: None,
            fold: false,
            fold_patterns: Vec::new(),
        }
    }

    /// "`--clean`: `--strip-ansi --collapse-cr --squeeze --fold --binary
    /// summary --utf8`".
    pub fn clean(self) -> Self {
        CleanSpec {
            strip_ansi: true,
            collapse_cr: true,
            squeeze: true,
            fold: true,
            binary_summary: true,
            utf8: true,
            ..self
        }
    }

    /// "With `--keep` or `--keep-errors`".
    pub fn keeping(&self) -> bool {
        !self.keep.is_empty() || self.keep_errors
    }

    /// "`--keep-max SIZE` ... (default: 25% of the budget, floor((H+T)/4))".
    fn keep_budget(&self) -> u64 {
        self.keep_max
            .unwrap_or(self.core.head.saturating_add(self.core.tail) / 4)
    }
}

/// One line of a stream, with the raw lines it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Its bytes, with its `\n` if it has one (only a stream's last line
    /// has none).
    pub text: Vec<u8>,
    /// The first and last raw line it stands for (1-based, inclusive).
    pub raw: (u64, u64),
    /// Written by toolcap (a squeeze marker, the binary summary): later
    /// transforms pass it unchanged (ambiguities 30).
    pub generated: bool,
    /// Where in `text` toolcap's own text is, for a line `--max-line`
    /// shortened: its marker.
    pub marker: Option<Range<usize>>,
}

/// BS, which `--collapse-cr` applies.
const BACKSPACE: u8 = 0x08;
/// "input whose first 8 KiB contain a NUL byte".
const BINARY_SNIFF: usize = 8 * 1024;
/// "Lines over 64 KiB are never squeezed."
const SQUEEZE_MAX: usize = 64 * 1024;
/// "lines over 64 KiB, `\n` included, are never folded".
const FOLD_MAX: usize = 64 * 1024;
/// "A frame longer than 1 MiB is passed on as it is" (not modelled).
const FRAME_MAX: usize = 1024 * 1024;

/// The raw input as lines, line k standing for raw line k.
pub fn raw_lines(raw: &[u8]) -> Vec<Line> {
    raw.split_inclusive(|&byte| byte == b'\n')
        .zip(1..)
        .map(|(text, number)| Line {
            text: text.to_vec(),
            raw: (number, number),
            generated: false,
            marker: None,
        })
        .collect()
}

/// The bytes of a stream of lines.
pub fn text(lines: &[Line]) -> Vec<u8> {
    lines.iter().flat_map(|line| line.text.clone()).collect()
}

/// A line split into its text and its terminator, `\r\n`, `\n` or nothing.
fn split_terminator(line: &[u8]) -> (&[u8], &[u8]) {
    let terminator = if line.ends_with(b"\r\n") {
        2
    } else if line.ends_with(b"\n") {
        1
    } else {
        0
    };
    line.split_at(line.len() - terminator)
}

/// Applies `change` to the text of every line not written by toolcap.
fn each_line(lines: Vec<Line>, change: impl Fn(&[u8]) -> Vec<u8>) -> Vec<Line> {
    lines
        .into_iter()
        .map(|line| {
            if line.generated {
                line
            } else {
                Line {
                    text: change(&line.text),
                    ..line
                }
            }
        })
        .collect()
}

/// "`--strip-ansi`: remove escape sequences (grammar below); every other
/// byte, invalid UTF-8 included, passes unchanged."
pub fn strip_ansi_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut from = 0;
    for sequence in escape_sequences(bytes) {
        out.extend_from_slice(&bytes[from..sequence.start]);
        from = sequence.end;
    }
    out.extend_from_slice(&bytes[from..]);
    out
}

/// `--strip-ansi` on a stream. Line by line gives the same bytes as the
/// whole stream at once, because a `\n` can continue no sequence: every
/// sequence ends at or before its line's `\n` (asserted).
pub fn strip_ansi(lines: Vec<Line>) -> Vec<Line> {
    let whole = strip_ansi_bytes(&text(&lines));
    let stripped = each_line(lines, strip_ansi_bytes);
    assert_eq!(text(&stripped), whole, "a sequence crossed a line end");
    stripped
}

/// Removes "the character before" a backspace from `out`: "a UTF-8
/// character, or one invalid byte" (ambiguities 27).
fn remove_last_character(out: &mut Vec<u8>) {
    for width in 1..=out.len().min(4) {
        let tail = &out[out.len() - width..];
        if std::str::from_utf8(tail).is_ok_and(|text| text.chars().count() == 1) {
            out.truncate(out.len() - width);
            return;
        }
    }
    out.pop();
}

/// `--collapse-cr` on one line: "a bare `\r` (not part of `\r\n`) discards
/// what came before it on that line once more text follows it (a trailing
/// `\r` keeps the last frame drawn), and a backspace removes the character
/// before it", where "a backspace is not text: it only moves the cursor
/// back", so a frame of backspaces alone draws nothing over the last one
/// (ambiguities 26, 27, 28).
pub fn collapse_cr_line(line: &[u8]) -> Vec<u8> {
    let (body, terminator) = split_terminator(line);
    let frames: Vec<&[u8]> = body.split(|&byte| byte == b'\r').collect();
    assert!(
        frames.iter().all(|frame| frame.len() <= FRAME_MAX),
        "frames over 1 MiB are not modelled"
    );
    let last_drawn = frames
        .iter()
        .rev()
        .find(|frame| frame.iter().any(|&byte| byte != BACKSPACE))
        .copied()
        .unwrap_or_default();
    let mut out = Vec::new();
    for &byte in last_drawn {
        if byte == BACKSPACE {
            remove_last_character(&mut out);
        } else {
            out.push(byte);
        }
    }
    out.extend_from_slice(terminator);
    out
}

/// `--collapse-cr` on a stream: "in each line".
pub fn collapse_cr(lines: Vec<Line>) -> Vec<Line> {
    each_line(lines, collapse_cr_line)
}

/// "`--utf8`: replace each maximal invalid UTF-8 subpart with U+FFFD (as
/// `String::from_utf8_lossy` does)". Line by line is the same as the whole
/// stream: a `\n` is never part of an invalid subpart (asserted).
pub fn utf8(lines: Vec<Line>) -> Vec<Line> {
    let whole = String::from_utf8_lossy(&text(&lines)).into_owned();
    let replaced = each_line(lines, |line| {
        String::from_utf8_lossy(line).into_owned().into_bytes()
    });
    assert_eq!(
        text(&replaced),
        whole.as_bytes(),
        "U+FFFD crossed a line end"
    );
    replaced
}

/// "`--squeeze`: a run of k >= 3 identical consecutive lines (compared
/// whole, `\n` included) becomes the first line and `[... previous line
/// repeated {k-1} more times ...]`. Lines over 64 KiB are never squeezed."
/// The marker stands for "the raw lines it replaced" (ambiguities 29);
/// "with a spill file the marker names the raw lines of the repeats,
/// `(lines a-b)` before its `...]`" (`name_lines`).
pub fn squeeze(lines: Vec<Line>, name_lines: bool) -> Vec<Line> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i + 1;
        while j < lines.len() && lines[j].text == lines[i].text && !lines[j].generated {
            j += 1;
        }
        let k = j - i;
        let first = &lines[i];
        let raw = (lines[(i + 1).min(j - 1)].raw.0, lines[j - 1].raw.1);
        let lines_named = match name_lines {
            true => format!(" (lines {}-{})", raw.0, raw.1),
            false => String::new(),
        };
        let marker = format!(
            "[... previous line repeated {} more times{lines_named} ...]\n",
            k - 1
        );
        // "when the marker is shorter than the repeats it replaces".
        let pays = marker.len() < (k - 1) * first.text.len();
        if k >= 3 && !first.generated && first.text.len() <= SQUEEZE_MAX && pays {
            out.push(first.clone());
            out.push(Line {
                text: marker.into_bytes(),
                raw,
                generated: true,
                marker: None,
            });
        } else {
            out.extend_from_slice(&lines[i..j]);
        }
        i = j;
    }
    out
}

/// One piece of a masked line: a byte, or the placeholder.
#[derive(Debug, PartialEq, Eq)]
pub enum Masked {
    Byte(u8),
    Placeholder,
}

/// "Masking reads a line from left to right: where a run of 8 or more hex
/// digits (`0-9`, `a-f`, `A-F`) begins (a hex digit that does not follow
/// one), the whole run becomes a placeholder; otherwise a run of ASCII
/// digits becomes the same placeholder, taking in one `.` that a digit
/// follows (`0.12` is one run, `1.2.3` two); a run of spaces and tabs
/// becomes one space; every other byte stays as it is" (ambiguities 42).
pub fn masked(text: &[u8]) -> Vec<Masked> {
    let hex = |at: usize| text.get(at).is_some_and(u8::is_ascii_hexdigit);
    let digit = |at: usize| text.get(at).is_some_and(u8::is_ascii_digit);
    let blank = |at: usize| matches!(text.get(at), Some(b' ' | b'\t'));
    let mut out = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let begins_hex_run = hex(at) && (at == 0 || !hex(at - 1));
        let hex_run = (at..).take_while(|&i| hex(i)).count();
        if begins_hex_run && hex_run >= 8 {
            out.push(Masked::Placeholder);
            at += hex_run;
        } else if digit(at) {
            while digit(at) {
                at += 1;
            }
            if text.get(at) == Some(&b'.') && digit(at + 1) {
                at += 1;
                while digit(at) {
                    at += 1;
                }
            }
            out.push(Masked::Placeholder);
        } else if blank(at) {
            while blank(at) {
                at += 1;
            }
            out.push(Masked::Byte(b' '));
        } else {
            out.push(Masked::Byte(text[at]));
            at += 1;
        }
    }
    out
}

/// Whether `--keep` or `--keep-errors` match a line: "matched on bytes,
/// without the line's `\n` or `\r\n`".
fn line_matches(spec: &CleanSpec) -> impl Fn(&[u8]) -> bool {
    let patterns: Vec<Regex> = spec
        .keep
        .iter()
        .map(|pattern| Regex::new(pattern).expect("a valid --keep pattern"))
        .collect();
    let keep_errors = spec.keep_errors;
    move |line: &[u8]| {
        let (body, _) = split_terminator(line);
        patterns.iter().any(|pattern| pattern.is_match(body)) || (keep_errors && says_error(body))
    }
}

/// GUIDE.md, "Folding similar lines": the status-like numbers of a line, in
/// order. A number is a whole run of ASCII digits (no letter, digit or `.`
/// next to it) that is an HTTP status (3 digits from 100 to 599, a space or
/// the line's edge on each side, in a line holding `HTTP/` or a method
/// `GET`, `POST`, `PUT`, `DELETE`, `PATCH`, `HEAD` or `OPTIONS` as a word),
/// or comes after `exit`, `status`, `code`,
/// `rc`, `failed`, `failures` or `errors` (any case) with only spaces, `:`
/// and `=` between, or comes before `failures` or `errors` with one space
/// between.
fn statuses(line: &[u8]) -> Vec<Vec<u8>> {
    const AFTER: [&str; 7] = [
        "exit", "status", "code", "rc", "failed", "failures", "errors",
    ];
    const BEFORE: [&str; 2] = ["failures", "errors"];
    let text: Vec<char> = line.iter().map(|&b| b as char).collect();
    let words: String = text.iter().collect();
    let request = words.contains("HTTP/")
        || words.split(|c: char| !c.is_ascii_alphabetic()).any(|word| {
            ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"].contains(&word)
        });
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if !text[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        let end = i;
        let outside = |at: Option<usize>| {
            at.and_then(|at| text.get(at))
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == '.'))
        };
        if !outside(start.checked_sub(1)) || !outside(Some(end)) {
            continue;
        }
        let digits: String = text[start..end].iter().collect();
        let space_or_edge =
            |at: Option<usize>| at.and_then(|at| text.get(at)).is_none_or(|c| *c == ' ');
        let http = digits.len() == 3
            && ('1'..='5').contains(&text[start])
            && request
            && space_or_edge(start.checked_sub(1))
            && space_or_edge(Some(end));
        let mut k = start;
        while k > 0 && matches!(text[k - 1], ' ' | ':' | '=') {
            k -= 1;
        }
        let mut w = k;
        while w > 0 && text[w - 1].is_ascii_alphabetic() {
            w -= 1;
        }
        let before: String = text[w..k].iter().collect::<String>().to_ascii_lowercase();
        let after_word = if text.get(end) == Some(&' ') {
            text[end + 1..]
                .iter()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect::<String>()
                .to_ascii_lowercase()
        } else {
            String::new()
        };
        if http
            || (k < start && AFTER.contains(&before.as_str()))
            || BEFORE.contains(&after_word.as_str())
        {
            found.push(digits.into_bytes());
        }
    }
    found
}

/// `--fold`: "A run of k >= 3 consecutive similar lines becomes its first
/// line, `[... {k-2} similar lines folded ...]` and its last line ... With
/// a spill file the marker is `[... {k-2} similar lines folded (lines
/// a-b) ...]`: a-b are the raw lines folded". Lines that "`--keep` or
/// `--keep-errors` match", lines toolcap wrote and lines over 64 KiB are
/// never folded (ambiguities 41-44).
pub fn fold(mut lines: Vec<Line>, spec: &CleanSpec) -> Vec<Line> {
    let vanished = lines
        .last()
        .is_some_and(|line| line.text.is_empty())
        .then(|| lines.pop())
        .flatten();
    let protected = line_matches(spec);
    let classes: Vec<Regex> = spec
        .fold_patterns
        .iter()
        .map(|pattern| Regex::new(pattern).expect("a valid --fold-pattern"))
        .collect();
    // "belongs to the first one it matches".
    let class = |line: &Line| {
        let (body, _) = split_terminator(&line.text);
        classes.iter().position(|class| class.is_match(body))
    };
    let similar = |a: &Line, b: &Line| {
        let (class_a, class_b) = (class(a), class(b));
        let (a, b) = (split_terminator(&a.text).0, split_terminator(&b.text).0);
        class_a == class_b
            && (class_a.is_some() || (masked(a) == masked(b) && statuses(a) == statuses(b)))
    };
    let foldable =
        |line: &Line| !line.generated && line.text.len() <= FOLD_MAX && !protected(&line.text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i + 1;
        if foldable(&lines[i]) {
            while j < lines.len() && foldable(&lines[j]) && similar(&lines[j - 1], &lines[j]) {
                j += 1;
            }
        }
        let k = j - i;
        let folded = || {
            let raw = (lines[i + 1].raw.0, lines[j - 2].raw.1);
            let lines_named = match spec.core.spill {
                Some(_) => format!(" (lines {}-{})", raw.0, raw.1),
                None => String::new(),
            };
            // "`1 similar line` in the singular".
            let text = format!(
                "[... {} similar {} folded{lines_named} ...]\n",
                k - 2,
                if k - 2 == 1 { "line" } else { "lines" }
            );
            // "when the lines are longer than the marker".
            let replaced: usize = lines[i + 1..j - 1].iter().map(|l| l.text.len()).sum();
            (text.len() < replaced).then(|| Line {
                text: text.into_bytes(),
                raw,
                generated: true,
                marker: None,
            })
        };
        if let Some(marker) = (k >= 3).then(folded).flatten() {
            out.push(lines[i].clone());
            out.push(marker);
            out.push(lines[j - 1].clone());
        } else {
            out.extend_from_slice(&lines[i..j]);
        }
        i = j;
    }
    out.extend(vanished);
    out
}

/// A move off a split UTF-8 character, as "Output format" step 2: while
/// `text[at]` is a continuation byte, `at` moves by `step`, at most 3 times
/// and never past the text's ends (ambiguities 32).
fn off_continuation(text: &[u8], mut at: usize, back: bool) -> usize {
    for _ in 0..3 {
        let continuation = text
            .get(at)
            .is_some_and(|byte| (0x80..=0xBF).contains(byte));
        if !continuation || (back && at == 0) {
            break;
        }
        if back {
            at -= 1;
        } else {
            at += 1;
        }
    }
    at
}

/// `--max-line SIZE` on one line: "a line longer than SIZE bytes, not
/// counting its `\n` or `\r\n`, keeps its first floor(SIZE/2) and last
/// SIZE - floor(SIZE/2) bytes (the first part moved back, the last forward,
/// off a split UTF-8 character, at most 3 bytes) with ` [... {N} bytes of
/// this line truncated ...] ` between them."
pub fn max_line_line(line: &[u8], size: u64) -> Vec<u8> {
    max_line_parts(line, size).0
}

/// [`max_line_line`], with where its marker is in the line, if it has one.
fn max_line_parts(line: &[u8], size: u64) -> (Vec<u8>, Option<Range<usize>>) {
    let (body, terminator) = split_terminator(line);
    let length = body.len() as u64;
    if length <= size {
        return (line.to_vec(), None);
    }
    let first = off_continuation(body, (size / 2) as usize, true);
    let last = off_continuation(body, (length - (size - size / 2)) as usize, false);
    let mut out = body[..first].to_vec();
    out.extend_from_slice(
        format!(" [... {} bytes of this line truncated ...] ", last - first).as_bytes(),
    );
    let marker = first..out.len();
    out.extend_from_slice(&body[last..]);
    out.extend_from_slice(terminator);
    (out, Some(marker))
}

/// `--max-line SIZE` on a stream.
pub fn max_line(lines: Vec<Line>, size: u64) -> Vec<Line> {
    lines
        .into_iter()
        .map(|line| {
            if line.generated {
                return line;
            }
            let (text, marker) = max_line_parts(&line.text, size);
            Line {
                text,
                marker,
                ..line
            }
        })
        .collect()
}

/// "`--binary summary`: input whose first 8 KiB contain a NUL byte becomes
/// the single line `[binary output: {n} bytes]` (n raw bytes), with `; full
/// output in {PATH}` before the `]` when spilling" (ambiguities 31); None
/// for other input. It stands for every raw line.
pub fn binary_summary(raw: &[u8], spill: Option<&[u8]>) -> Option<Line> {
    if !raw[..raw.len().min(BINARY_SNIFF)].contains(&0) {
        return None;
    }
    let mut text = format!("[binary output: {} bytes", raw.len()).into_bytes();
    if let Some(path) = spill {
        text.extend_from_slice(b"; full output in ");
        text.extend_from_slice(path);
    }
    text.extend_from_slice(b"]\n");
    let raw_line_count = raw_lines(raw).len() as u64;
    Some(Line {
        text,
        raw: (1, raw_line_count),
        generated: true,
        marker: None,
    })
}

/// The cleaned stream B, line by line. "Transforms run on the stream before
/// the capper in this order: binary check, strip-ansi, collapse-cr, utf8,
/// squeeze, fold, max-line."
pub fn cleaned(raw: &[u8], spec: &CleanSpec) -> Vec<Line> {
    if spec.binary_summary
        && let Some(summary) = binary_summary(raw, spec.core.spill.as_deref())
    {
        return vec![summary];
    }
    let mut lines = raw_lines(raw);
    if spec.strip_ansi {
        lines = strip_ansi(lines);
    }
    if spec.collapse_cr {
        lines = collapse_cr(lines);
    }
    if spec.utf8 {
        lines = utf8(lines);
    }
    // "Folding and squeezing apply only when the output would otherwise
    // be cut": a stream that fits the budget as it is stays whole (the
    // budget of head and tail: "a stream within the budget is shown whole"
    // with `--keep` too).
    let budget = spec.core.head.saturating_add(spec.core.tail);
    let fits = text(&lines).len() as u64 <= budget
        && spec
            .core
            .lines
            .is_none_or(|max| text(&lines).iter().filter(|&&b| b == b'\n').count() as u64 <= max);
    if spec.squeeze && !fits {
        lines = squeeze(lines, spec.core.spill.is_some());
    }
    if spec.fold && !fits {
        lines = fold(lines, spec);
    }
    if let Some(size) = spec.max_line {
        lines = max_line(lines, size);
    }
    // A last raw line that vanished belongs to the line before it
    // (ambiguities 33).
    if lines.last().is_some_and(|line| line.text.is_empty()) {
        let vanished = lines.pop().expect("a last line");
        if let Some(last) = lines.last_mut() {
            last.raw.1 = vanished.raw.1;
        }
    }
    assert!(
        lines.iter().all(|line| !line.text.is_empty()),
        "only the last line can vanish"
    );
    lines
}

/// The cleaned stream with each line's place in it: where the cut middle,
/// the kept lines and the markers' line numbers are read.
struct Stream {
    lines: Vec<Line>,
    /// `starts[i]`: where line i starts in B.
    starts: Vec<usize>,
    bytes: Vec<u8>,
}

impl Stream {
    fn new(lines: Vec<Line>) -> Self {
        let mut starts = Vec::new();
        let mut at = 0;
        for line in &lines {
            starts.push(at);
            at += line.text.len();
        }
        let bytes = text(&lines);
        Stream {
            lines,
            starts,
            bytes,
        }
    }

    /// Line i's bytes in B.
    fn span(&self, i: usize) -> Range<usize> {
        self.starts[i]..self.starts[i] + self.lines[i].text.len()
    }

    /// The line that holds byte `at` of B.
    fn line_of(&self, at: usize) -> usize {
        assert!(at < self.bytes.len());
        self.starts.partition_point(|&start| start <= at) - 1
    }

    /// Toolcap's own text in B: every line it wrote, and each marker
    /// `--max-line` put inside a line.
    fn own(&self) -> Vec<Range<usize>> {
        (0..self.lines.len())
            .filter_map(|i| {
                let line = &self.lines[i];
                let start = self.starts[i];
                match &line.marker {
                    _ if line.generated => Some(self.span(i)),
                    Some(marker) => Some(start + marker.start..start + marker.end),
                    None => None,
                }
            })
            .collect()
    }

    /// Step 5 of the cut rules: "a cut never falls inside toolcap's own
    /// text ...: h moves back to its start, t forward to its end."
    fn out_of_own(&self, h: usize, t: usize) -> (usize, usize) {
        let own = self.own();
        let inside = |at: usize| {
            own.iter()
                .find(|span| span.start < at && at < span.end)
                .cloned()
        };
        (
            inside(h).map_or(h, |span| span.start),
            inside(t).map_or(t, |span| span.end),
        )
    }

    /// The raw lines a gap B[range] touches (ambiguities 40).
    fn raw_lines_of(&self, range: &Range<usize>) -> (u64, u64) {
        let first = self.lines[self.line_of(range.start)].raw.0;
        let last = self.lines[self.line_of(range.end - 1)].raw.1;
        (first, last)
    }
}

/// `--keep-errors`: "lines that say error or exception (also as a suffix:
/// `TypeError`, `NullPointerException`, plural too), fail, fails, failed,
/// failure(s), panic(s), panicked, traceback or fatal as words,
/// case-insensitive, and lines starting with pytest's `E   `"
/// (ambiguities 38).
pub fn says_error(line: &[u8]) -> bool {
    const SUFFIXES: [&str; 4] = ["error", "errors", "exception", "exceptions"];
    const WORDS: [&str; 10] = [
        "fail",
        "fails",
        "failed",
        "failure",
        "failures",
        "panic",
        "panics",
        "panicked",
        "traceback",
        "fatal",
    ];
    if line.starts_with(b"E   ") {
        return true;
    }
    let text = String::from_utf8_lossy(line);
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map(str::to_ascii_lowercase)
        .any(|word| {
            SUFFIXES.iter().any(|suffix| word.ends_with(suffix)) || WORDS.contains(&word.as_str())
        })
}

/// `--keep-errors` for keeping (DESIGN.md, "Choices": its words "do not count
/// inside a file name"): a word that says error counts unless its run of
/// non-blank bytes has a `/`, ends in `.` and 1 to 8 ASCII letters or
/// digits, or is the whole line and holds a `.`, `_` or `-`; an `ls -l`
/// entry (a file mode first: one of `-dlcbpsD`, nine of `-rwxsStTl`, an
/// optional `.`, `+` or `@`, then a blank) has none that counts. The
/// `E   ` start always counts.
fn says_error_outside_names(line: &[u8]) -> bool {
    if line.starts_with(b"E   ") {
        return true;
    }
    let mode = |byte: u8| b"-rwxsStTl".contains(&byte);
    let listing = line.len() > 10
        && b"-dlcbpsD".contains(&line[0])
        && line[1..10].iter().all(|&byte| mode(byte))
        && {
            let rest = &line[10..];
            let rest = rest
                .strip_prefix(b".")
                .or_else(|| rest.strip_prefix(b"+"))
                .or_else(|| rest.strip_prefix(b"@"))
                .unwrap_or(rest);
            rest.first().is_some_and(|byte| byte.is_ascii_whitespace())
        };
    if listing {
        return false;
    }
    let is_name = |token: &[u8], whole: bool| {
        let extension = token
            .iter()
            .rposition(|&byte| byte == b'.')
            .is_some_and(|dot| {
                let ext = &token[dot + 1..];
                (1..=8).contains(&ext.len()) && ext.iter().all(u8::is_ascii_alphanumeric)
            });
        token.contains(&b'/')
            || extension
            || (whole && token.iter().any(|byte| b"._-".contains(byte)))
    };
    let tokens: Vec<&[u8]> = line
        .split(|byte| byte.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    let whole = tokens.len() == 1 && tokens[0].len() == line.len();
    tokens
        .iter()
        .any(|token| says_error(token) && !is_name(token, whole))
}

/// What `--keep` shows of the cut middle B[h:t]: the kept lines (indices
/// into the stream, ascending, gaps printed as they are included) and the
/// matching lines not shown: errors, others. GUIDE.md, "Keeping lines"
/// (ambiguities 35, 36, 37).
fn kept_lines(stream: &Stream, h: usize, t: usize, spec: &CleanSpec) -> (Vec<usize>, (u64, u64)) {
    let without_errors = CleanSpec {
        keep_errors: false,
        ..spec.clone()
    };
    let others = line_matches(&without_errors);
    let errors =
        |line: &[u8]| spec.keep_errors && says_error_outside_names(split_terminator(line).0);
    let budget = spec.keep_budget();
    let spill = spec.core.spill.as_deref();
    let longest = 999_999_999_999usize;
    let bound =
        marker_text(longest, (longest as u64, longest as u64), None, spill).len() as u64 + 4;
    let lines = &stream.lines;
    let in_middle = |i: usize| {
        let span = stream.span(i);
        h <= span.start && span.end <= t
    };
    let middle: Vec<usize> = (0..lines.len()).filter(|&i| in_middle(i)).collect();
    let len = |i: usize| lines[i].text.len() as u64;
    let mut hidden = [0u64; 2];
    // (class, nearest the tail first, first line, last line)
    let mut units = Vec::new();
    for &i in &middle {
        // "A `--keep` match under an error line (blank lines between) is
        // served as an error", wherever that line is.
        let above = lines[..i]
            .iter()
            .rposition(|line| !line.text.iter().all(u8::is_ascii_whitespace));
        let under_error = above.is_some_and(|j| errors(&lines[j].text));
        let class = if errors(&lines[i].text) {
            0
        } else if others(&lines[i].text) {
            if under_error { 0 } else { 1 }
        } else {
            continue;
        };
        if len(i) > budget {
            hidden[class] += 1;
            continue;
        }
        let limit = budget.saturating_sub(bound);
        let (mut lo, mut hi, mut used) = (i, i, len(i));
        let (mut before, mut after) = (true, true);
        for _ in 0..spec.keep_context {
            before = before && lo > 0 && in_middle(lo - 1) && used + len(lo - 1) <= limit;
            if before {
                lo -= 1;
                used += len(lo);
            }
            after =
                after && hi + 1 < lines.len() && in_middle(hi + 1) && used + len(hi + 1) <= limit;
            if after {
                hi += 1;
                used += len(hi);
            }
            if !before && !after {
                break;
            }
        }
        units.push((class, std::cmp::Reverse(i), lo, hi));
    }
    units.sort();
    let covered = |taken: &[(usize, std::cmp::Reverse<usize>, usize, usize)]| {
        let mut covered = vec![false; lines.len()];
        for &(_, _, lo, hi) in taken {
            covered[lo..=hi].iter_mut().for_each(|c| *c = true);
        }
        covered
    };
    let head_splits = middle.first().is_some_and(|&i| stream.starts[i] != h);
    let tail_whole = middle.last().is_some_and(|&i| stream.span(i).end == t);
    let cost = |covered: &[bool]| {
        let mut cost = 0;
        let mut end: Option<usize> = None;
        for i in (0..lines.len()).filter(|&i| covered[i]) {
            let start = stream.starts[i];
            cost += match end {
                None if head_splits => bound,
                None => ((start - h) as u64).min(bound),
                Some(end) => ((start - end) as u64).min(bound),
            } + len(i);
            end = Some(stream.span(i).end);
        }
        match end {
            Some(end) if tail_whole && (t - end) as u64 <= bound => cost + (t - end) as u64,
            _ => cost,
        }
    };
    let mut taken = 0;
    while taken < units.len() && cost(&covered(&units[..=taken])) <= budget {
        taken += 1;
    }
    for &(class, ..) in &units[taken..] {
        hidden[class] += 1;
    }
    let mut shown = covered(&units[..taken]);
    let kept: Vec<usize> = (0..lines.len()).filter(|&i| shown[i]).collect();
    if let (Some(&first), Some(&last)) = (kept.first(), kept.last()) {
        // Gaps of whole middle lines no longer than their marker line + 4.
        let mut gaps = Vec::new();
        if !head_splits {
            gaps.push((middle[0], first));
        }
        gaps.extend(kept.windows(2).map(|pair| (pair[0] + 1, pair[1])));
        if tail_whole {
            gaps.push((last + 1, middle[middle.len() - 1] + 1));
        }
        for (from, to) in gaps {
            if from >= to {
                continue;
            }
            let range = stream.starts[from]..stream.span(to - 1).end;
            let raw = (lines[from].raw.0, lines[to - 1].raw.1);
            let marker = marker_text(range.len(), raw, None, spill).len() + 4;
            if range.len() <= marker {
                shown[from..to].iter_mut().for_each(|s| *s = true);
            }
        }
    }
    let kept = (0..lines.len()).filter(|&i| shown[i]).collect();
    (kept, (hidden[0], hidden[1]))
}

/// `line` or `lines`.
fn lines_word(count: u64) -> &'static str {
    if count == 1 { "line" } else { "lines" }
}

/// A marker's text for a gap of `bytes` bytes and raw lines `raw`, with
/// the matches not shown (errors, others) on the last one.
fn marker_text(
    bytes: usize,
    raw: (u64, u64),
    hidden: Option<(u64, u64)>,
    spill: Option<&[u8]>,
) -> Vec<u8> {
    let mut out = format!("[... {bytes} bytes truncated").into_bytes();
    if let Some(path) = spill {
        out.extend_from_slice(format!(" (lines {}-{}); full output in ", raw.0, raw.1).as_bytes());
        out.extend_from_slice(path);
    }
    match hidden {
        None | Some((0, 0)) => {}
        Some((0, others)) => out.extend_from_slice(
            format!("; {others} more matching {} not shown", lines_word(others)).as_bytes(),
        ),
        Some((errors, 0)) => out.extend_from_slice(
            format!("; {errors} more error {} not shown", lines_word(errors)).as_bytes(),
        ),
        Some((errors, others)) => out.extend_from_slice(
            format!(
                "; {errors} more error {}, {others} more matching {} not shown",
                lines_word(errors),
                lines_word(others)
            )
            .as_bytes(),
        ),
    }
    out.extend_from_slice(b" ...]\n");
    out
}

/// The marker line for the gap B[range]: "[... {bytes} bytes truncated ...]",
/// with `(lines a-b); full output in PATH` when spilling and `; {M} more
/// matching lines not shown` on the last one, starting with `ESC[0m` when
/// the text before it leaves styles on.
fn marker(
    stream: &Stream,
    range: &Range<usize>,
    before: &[u8],
    hidden: Option<(u64, u64)>,
    spill: Option<&[u8]>,
) -> Vec<u8> {
    let mut out = Vec::new();
    if leaves_style_on(before) {
        out.extend_from_slice(b"\x1b[0m");
    }
    out.extend(marker_text(
        range.len(),
        stream.raw_lines_of(range),
        hidden,
        spill,
    ));
    out
}

/// An output not cut: B, and "when squeezing or folding replaced lines
/// with a marker and a spill file holds the input, a last line `[...
/// cleaned: {raw} raw bytes became {n} bytes; full output in PATH ...]`",
/// on a line of its own.
fn whole_output(raw: &[u8], stream: &Stream, spec: &CleanSpec) -> Vec<u8> {
    let mut out = stream.bytes.clone();
    let Some(path) = spec.core.spill.as_deref() else {
        return out;
    };
    let summarised = spec.binary_summary && binary_summary(raw, Some(path)).is_some();
    let condensed = stream.lines.iter().any(|line| line.generated);
    if summarised || !condensed {
        return out;
    }
    if out.last().is_some_and(|&byte| byte != b'\n') {
        out.push(b'\n');
    }
    let n = stream.bytes.len();
    let note = format!("[... cleaned: {} raw bytes became {n} bytes", raw.len());
    out.extend_from_slice(note.as_bytes());
    out.extend_from_slice(b"; full output in ");
    out.extend_from_slice(path);
    out.extend_from_slice(b" ...]\n");
    out
}

/// Exactly the bytes toolcap prints for the raw input `raw` under `spec`
/// (filter mode, without `--live`): the core contract of `model.rs` applied
/// to the cleaned stream B, with the `Cleaned:` header line, and with one
/// marker per gap between head, kept blocks and tail.
#[allow(non_snake_case)] // B, n, L as in the guide
pub fn expected_output(raw: &[u8], spec: &CleanSpec) -> Vec<u8> {
    let stream = Stream::new(cleaned(raw, spec));
    let B = &stream.bytes;
    let n = B.len();
    // "Budgets, byte counts and the header describe the cleaned stream B".
    // "A stream within the budget is shown whole, as without `--keep`; a
    // cut one gives K from the budget before the cuts": "floor(K·H/(H+T))
    // from the head, the rest from the tail".
    if expected_cuts(B, &spec.core).is_none() {
        return whole_output(raw, &stream, spec);
    }
    let mut core = spec.core.clone();
    if spec.keeping() {
        let share = spec.keep_budget();
        let both = core.head.saturating_add(core.tail);
        let from_head =
            (u128::from(share) * u128::from(core.head) / u128::from(both.max(1))) as u64;
        core.head -= from_head;
        core.tail -= share - from_head;
    }
    let Some(cuts) = expected_cuts(B, &core) else {
        return whole_output(raw, &stream, spec);
    };
    let (h, t) = stream.out_of_own(cuts.h, cuts.t);

    let mut out = Vec::new();
    if spec.core.header {
        let L = stream.lines.len();
        out.extend_from_slice(
            format!(
                "Warning: truncated output (original token count: {})\n",
                (n as u64).div_ceil(4)
            )
            .as_bytes(),
        );
        out.extend_from_slice(format!("Total output lines: {L}\n").as_bytes());
        // "When cleaning changed the stream and the output is cut, the
        // header gets a third line" (ambiguities 34).
        if B.as_slice() != raw {
            out.extend_from_slice(
                format!("Cleaned: {} raw bytes became {n} bytes\n", raw.len()).as_bytes(),
            );
        }
        out.extend_from_slice(b"\n");
    }

    let head = &B[0..h];
    out.extend_from_slice(head);
    if !head.is_empty() && !head.ends_with(b"\n") {
        out.extend_from_slice(b"\n");
    }

    // The middle B[h:t] as runs: kept lines (blocks) and gaps between them.
    let (kept, hidden) = if spec.keeping() {
        kept_lines(&stream, h, t, spec)
    } else {
        (Vec::new(), (0, 0))
    };
    let mut pieces: Vec<(Range<usize>, bool)> = Vec::new(); // (bytes, kept)
    let mut at = h;
    for &i in &kept {
        let span = stream.span(i);
        if span.start > at {
            pieces.push((at..span.start, false));
        }
        pieces.push((span.clone(), true));
        at = span.end;
    }
    if t > at {
        pieces.push((at..t, false));
    }
    let last_gap = pieces.iter().rposition(|(_, kept)| !kept);

    // "The one marker becomes one marker per gap between head, blocks and
    // tail ... a gap of nothing gets no marker." The text before a marker
    // is what was printed since the last one (ambiguities 24).
    let mut since_marker = head.to_vec();
    for (index, (range, is_kept)) in pieces.iter().enumerate() {
        if *is_kept {
            out.extend_from_slice(&B[range.clone()]);
            since_marker.extend_from_slice(&B[range.clone()]);
        } else {
            let count = (Some(index) == last_gap && hidden != (0, 0)).then_some(hidden);
            out.extend(marker(
                &stream,
                range,
                &since_marker,
                count,
                spec.core.spill.as_deref(),
            ));
            since_marker.clear();
        }
    }
    out.extend_from_slice(&B[t..n]);
    out
}

#[cfg(test)]
pub mod tests {
    use super::{
        CleanSpec, Line, Masked, binary_summary, cleaned, collapse_cr_line, expected_output, fold,
        masked, max_line_line, raw_lines, says_error, squeeze, strip_ansi_bytes, text, utf8,
    };
    use crate::model::Spec;

    /// `actual` is `expected`, shown escaped so invisible bytes read.
    fn same(actual: &[u8], expected: &[u8]) {
        assert_eq!(
            actual.escape_ascii().to_string(),
            expected.escape_ascii().to_string()
        );
    }

    /// The program, with only what `set` turns on and a budget `input`
    /// fits, prints `expected`: a transform's hand-worked case, end to end.
    /// The budget is the expected output's size when it is shorter than
    /// the input (so that squeeze and fold, which condense only what would
    /// be cut, apply), else one the input fits.
    fn only(input: &[u8], set: impl FnOnce(&mut CleanSpec), expected: &[u8]) {
        let budget = match expected.len() < input.len() {
            true => expected.len(),
            false => input.len().max(expected.len()),
        };
        let mut spec = CleanSpec::new(Spec::from_max(budget.max(1) as u64));
        set(&mut spec);
        crate::program::prints(input, &spec, expected);
    }

    fn with_spill(spec: Spec, path: &str) -> Spec {
        Spec {
            spill: Some(path.as_bytes().to_vec()),
            ..spec
        }
    }

    fn keep(core: Spec, patterns: &[&str], keep_max: Option<u64>, context: u64) -> CleanSpec {
        CleanSpec {
            keep: patterns.iter().map(|pattern| pattern.to_string()).collect(),
            keep_max,
            keep_context: context,
            ..CleanSpec::new(core)
        }
    }

    /// The cleaned lines as (text, first raw line, last raw line).
    /// Makes every line of a hand-worked case long enough that a marker
    /// is shorter than the lines it replaces, so that the cases still read
    /// as short lines; marker lines (`[... `) stay as they are.
    const PAD: &str = " - a line long enough to pay off";

    fn padded(text: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for line in text.split_inclusive(|&b| b == b'\n') {
            let (body, end) = super::split_terminator(line);
            out.extend_from_slice(body);
            if !body.starts_with(b"[... ") {
                out.extend_from_slice(PAD.as_bytes());
            }
            out.extend_from_slice(end);
        }
        out
    }

    /// `spec` with a budget that `expected` fits and a longer `input`
    /// does not: squeeze and fold condense only what would be cut. When
    /// nothing is to be condensed, a budget the input fits.
    fn tight(spec: &CleanSpec, input: &[u8], expected: &[u8]) -> CleanSpec {
        let mut spec = spec.clone();
        let shorter = expected.len() as u64;
        let budget = match shorter < input.len() as u64 {
            true => shorter,
            false => input.len().max(expected.len()) as u64,
        };
        spec.core = Spec {
            spill: spec.core.spill.clone(),
            ..Spec::from_max(budget)
        };
        spec
    }

    /// The model's cleaning and the program both give `expected`, within
    /// the budget [`tight`] sets.
    fn condensed(input: &[u8], spec: &CleanSpec, expected: &[u8]) {
        let spec = tight(spec, input, expected);
        same(&text(&cleaned(input, &spec)), expected);
        crate::program::prints(input, &spec, expected);
    }

    fn lines_of(lines: &[Line]) -> Vec<(String, u64, u64)> {
        lines
            .iter()
            .map(|line| (line.text.escape_ascii().to_string(), line.raw.0, line.raw.1))
            .collect()
    }

    #[test]
    fn strip_ansi_removes_each_kind_of_sequence() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"\x1b[1;31merror\x1b[0m: x\n", b"error: x\n"),
            (b"\x1b]0;title\x07ok", b"ok"),
            (b"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", b"link"),
            (b"\x1bPq\x07x\x1b\\y", b"y"), // BEL is inside a DCS
            (b"\x1b(Bok\x1b7", b"ok"),
            (b"\x1b[?25l\x1b[2Kdone", b"done"),
        ];
        for &(input, output) in cases {
            same(&strip_ansi_bytes(input), output);
            only(input, |spec| spec.strip_ansi = true, output);
        }
    }

    #[test]
    fn strip_ansi_on_broken_sequences_keeps_the_byte_that_ended_them() {
        let cases: &[(&[u8], &[u8])] = &[
            // "`ESC [ 3` followed by a newline loses `ESC [ 3` and keeps the
            // newline".
            (b"a\x1b[3\nb", b"a\nb"),
            (b"\x1b]0;title\nrest", b"\nrest"),
            // CAN and SUB cancel, and stay.
            (b"\x1b[1\x18m", b"\x18m"),
            (b"\x1b]0;a\x1ab", b"\x1ab"),
            // An ESC in a string starts a new sequence (ambiguities 19).
            (b"\x1b]0;t\x1b[31mred", b"red"),
            // Unfinished at the end of the input: gone.
            (b"x\x1b", b"x"),
            (b"x\x1b[12;", b"x"),
            // 8-bit C1 and invalid UTF-8 are text.
            (b"\x1b\x9b1m", b"\x9b1m"),
            (b"\xff\x1b[m\x80", b"\xff\x80"),
        ];
        for &(input, output) in cases {
            same(&strip_ansi_bytes(input), output);
            only(input, |spec| spec.strip_ansi = true, output);
        }
    }

    #[test]
    fn strip_ansi_stops_a_stray_string_after_64_kib() {
        // ESC ] + 70,000 x + "\n": the first 65,536 bytes are the sequence,
        // the remaining 70,002 - 65,536 = 4,466 x and the `\n` are text.
        let mut input = b"\x1b]".to_vec();
        input.extend(vec![b'x'; 70_000]);
        input.push(b'\n');
        let mut output = vec![b'x'; 4_466];
        output.push(b'\n');
        same(&strip_ansi_bytes(&input), &output);
        only(&input, |spec| spec.strip_ansi = true, &output);
    }

    #[test]
    fn collapse_cr_keeps_the_last_frame() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"a\rb\n", b"b\n"),
            (b"\rabc\n", b"abc\n"),
            (b"10%\r20%\r30%\n", b"30%\n"),
            // CRLF is not a bare CR.
            (b"a\r\n", b"a\r\n"),
            (b"a\rb\r\n", b"b\r\n"),
            (b"a\r\r\n", b"a\r\n"),
            (b"\r\n", b"\r\n"),
            // A trailing CR keeps the last frame, without the CR
            // (ambiguities 26).
            (b"50%\r", b"50%"),
            (b"abc\r\r", b"abc"),
            (b"10%\r20%\r", b"20%"),
            (b"\r", b""),
            (b"no cr at all", b"no cr at all"),
        ];
        for &(input, output) in cases {
            same(&collapse_cr_line(input), output);
            only(input, |spec| spec.collapse_cr = true, output);
        }
    }

    #[test]
    fn backspace_removes_one_character() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"ab\x08c\n", b"ac\n"),
            // A two-byte and a four-byte character go whole.
            ("é\x08x\n".as_bytes(), b"x\n"),
            ("a😀\x08\n".as_bytes(), b"a\n"),
            ("a€\x08\x08b".as_bytes(), b"b"),
            // An invalid byte goes alone: the broken € E2 82 loses its 82.
            (b"\xe2\x82\x08\n", b"\xe2\n"),
            (b"a\xff\x08\n", b"a\n"),
            // Nothing before it in its frame: only the backspace goes.
            (b"\x08a\n", b"a\n"),
            (b"a\r\x08b\n", b"b\n"),
            (b"ab\rx\x08\n", b"\n"),
        ];
        for &(input, output) in cases {
            same(&collapse_cr_line(input), output);
            only(input, |spec| spec.collapse_cr = true, output);
        }
    }

    #[test]
    fn utf8_replaces_each_maximal_invalid_subpart() {
        let input = b"a\xffb\n\xe2\x82\n\xc3(\n\xf0\x9f\x98";
        let output = "a\u{FFFD}b\n\u{FFFD}\n\u{FFFD}(\n\u{FFFD}".as_bytes();
        same(&text(&utf8(raw_lines(input))), output);
        only(input, |spec| spec.utf8 = true, output);
    }

    #[test]
    fn squeeze_needs_a_run_of_three() {
        // A run of 2 stays.
        let lines = squeeze(raw_lines(&padded(b"x\nx\ny\n")), false);
        same(&text(&lines), &padded(b"x\nx\ny\n"));
        condensed(
            &padded(b"x\nx\ny\n"),
            &CleanSpec {
                squeeze: true,
                ..CleanSpec::new(Spec::from_max(1))
            },
            &padded(b"x\nx\ny\n"),
        );
        // A run of 3: the first line and a marker standing for lines 2-3.
        let lines = squeeze(raw_lines(&padded(b"x\nx\nx\ny\n")), false);
        assert_eq!(
            lines_of(&lines),
            [
                (format!("x{PAD}\\n"), 1, 1),
                (
                    "[... previous line repeated 2 more times ...]\\n".into(),
                    2,
                    3
                ),
                (format!("y{PAD}\\n"), 4, 4),
            ]
        );
    }

    #[test]
    fn squeeze_compares_lines_whole() {
        let squeezing = CleanSpec {
            squeeze: true,
            ..CleanSpec::new(Spec::from_max(1))
        };
        let case = |input: &[u8], expected: &[u8]| {
            same(&text(&squeeze(raw_lines(input), false)), expected);
            condensed(input, &squeezing, expected);
        };
        // The last line has no `\n`, so it differs from the others.
        case(&padded(b"x\nx\nx"), &padded(b"x\nx\nx"));
        case(
            &padded(b"x\nx\nx\nx"),
            &padded(b"x\n[... previous line repeated 2 more times ...]\nx"),
        );
        // CRLF lines: the marker ends in `\n`.
        case(
            &padded(b"ok\r\nok\r\nok\r\n"),
            &padded(b"ok\r\n[... previous line repeated 2 more times ...]\n"),
        );
        // `x\r\n` and `x\n` differ.
        case(&padded(b"x\nx\r\nx\n"), &padded(b"x\nx\r\nx\n"));
        // Empty lines are lines: 59 repeats of 1 byte outweigh the marker.
        case(
            &b"\n".repeat(60),
            b"\n[... previous line repeated 59 more times ...]\n",
        );
        // Repeats no longer than the marker stay: 3 of 1 byte.
        case(b"\n\n\n\n", b"\n\n\n\n");
    }

    #[test]
    fn squeeze_leaves_lines_over_64_kib() {
        let mut line = vec![b'x'; 64 * 1024];
        line.push(b'\n'); // 65,537 bytes with its `\n`
        let input = line.repeat(3);
        same(&text(&squeeze(raw_lines(&input), false)), &input);
        only(&input, |spec| spec.squeeze = true, &input);
        let short = &line[1..]; // 65,536 bytes: squeezed
        let mut output = short.to_vec();
        output.extend(b"[... previous line repeated 2 more times ...]\n");
        same(&text(&squeeze(raw_lines(&short.repeat(3)), false)), &output);
        only(&short.repeat(3), |spec| spec.squeeze = true, &output);
    }

    #[test]
    fn masking_as_the_readme_says() {
        use Masked::{Byte, Placeholder};
        // "`0.12` is one run, `1.2.3` two".
        assert_eq!(masked(b"0.12"), [Placeholder]);
        assert_eq!(masked(b"1.2.3"), [Placeholder, Byte(b'.'), Placeholder]);
        // An id of 8+ hex digits is one placeholder, a shorter run of hex
        // letters is text, and digits after hex letters are a number.
        assert_eq!(
            masked(b"x deadbeef01"),
            [Byte(b'x'), Byte(b' '), Placeholder]
        );
        assert_eq!(
            masked(b"cafe1"),
            [Byte(b'c'), Byte(b'a'), Byte(b'f'), Byte(b'e'), Placeholder]
        );
        // Spaces and tabs: one space, never none.
        assert_eq!(masked(b"[ \t 9%]"), masked(b"[ 12%]"));
        assert_ne!(masked(b"[ 99%]"), masked(b"[100%]"));
    }

    fn fold_spec(spill: bool, keep: &[&str], fold_patterns: &[&str]) -> CleanSpec {
        let core = Spec::from_max(10_000);
        CleanSpec {
            fold: true,
            keep: keep.iter().map(|k| k.to_string()).collect(),
            fold_patterns: fold_patterns.iter().map(|p| p.to_string()).collect(),
            ..CleanSpec::new(if spill {
                with_spill(core, "/tmp/s")
            } else {
                core
            })
        }
    }

    #[test]
    fn fold_keeps_a_runs_ends_and_names_its_raw_lines() {
        let input = padded(b"head\nt[0] ok\nt[1] ok\nt[2] ok\nt[3] ok\ntail\n");
        let lines = fold(raw_lines(&input), &fold_spec(true, &[], &[]));
        assert_eq!(
            lines_of(&lines),
            [
                (format!("head{PAD}\\n"), 1, 1),
                (format!("t[0] ok{PAD}\\n"), 2, 2),
                (
                    "[... 2 similar lines folded (lines 3-4) ...]\\n".into(),
                    3,
                    4
                ),
                (format!("t[3] ok{PAD}\\n"), 5, 5),
                (format!("tail{PAD}\\n"), 6, 6),
            ]
        );
        same(
            &text(&fold(
                raw_lines(b"a 1\na 2\nb\n"),
                &fold_spec(false, &[], &[]),
            )),
            b"a 1\na 2\nb\n",
        );
        crate::program::prints(
            b"a 1\na 2\nb\n",
            &fold_spec(false, &[], &[]),
            b"a 1\na 2\nb\n",
        );
        condensed(
            &padded(b"a 1\na 2\na 3"),
            &fold_spec(false, &[], &[]),
            &padded(b"a 1\n[... 1 similar line folded ...]\na 3"),
        );
        // Lines no longer than the marker stay.
        condensed(
            b"a 1\na 2\na 3\n",
            &fold_spec(false, &[], &[]),
            b"a 1\na 2\na 3\n",
        );
    }

    #[test]
    fn fold_never_folds_a_protected_line() {
        // The FAILED line ends the first run and starts none.
        let input = padded(b"t 1 ok\nt 2 ok\nt 3 ok\nt 4 FAILED\nt 5 ok\nt 6 ok\nt 7 ok\n");
        let spec = CleanSpec {
            keep_max: Some(1),
            ..fold_spec(false, &["FAILED"], &["^t "])
        };
        condensed(
            &input,
            &spec,
            &padded(
                b"t 1 ok\n[... 1 similar line folded ...]\nt 3 ok\nt 4 FAILED\n\
                  t 5 ok\n[... 1 similar line folded ...]\nt 7 ok\n",
            ),
        );
    }

    #[test]
    fn fold_after_squeeze_and_before_max_line() {
        // The squeeze marker ends the run of `n` lines; max-line (40) cuts
        // neither the lines (33 bytes) nor the squeeze marker (45).
        let spec = CleanSpec {
            squeeze: true,
            max_line: Some(40),
            ..fold_spec(false, &[], &[])
        };
        let line = |n: &str| format!("n {n} is a line long enough to fold\n");
        let input = [1, 2, 2, 2, 3, 4, 5].map(|n| line(&n.to_string())).concat();
        let expected = format!(
            "{}{}[... previous line repeated 2 more times ...]\n{}\
             [... 1 similar line folded ...]\n{}",
            line("1"),
            line("2"),
            line("3"),
            line("5")
        );
        condensed(input.as_bytes(), &spec, expected.as_bytes());
    }

    #[test]
    fn max_line_keeps_both_ends_of_a_long_line() {
        let cases: &[(&[u8], u64, &[u8])] = &[
            // 10 bytes, SIZE 6: the first 3 and the last 3.
            (
                b"abcdefghij\n",
                6,
                b"abc [... 4 bytes of this line truncated ...] hij\n",
            ),
            // The `\r\n` is not counted and stays.
            (
                b"abcdefghij\r\n",
                6,
                b"abc [... 4 bytes of this line truncated ...] hij\r\n",
            ),
            (b"abcdef\r\n", 6, b"abcdef\r\n"),
            (b"abcdef\n", 6, b"abcdef\n"),
            // A last line without `\n`.
            (
                b"abcdefghij",
                4,
                b"ab [... 6 bytes of this line truncated ...] ij",
            ),
            // A bare `\r` at the end is content (ambiguities 32).
            (
                b"abcdefgh\r",
                4,
                b"ab [... 5 bytes of this line truncated ...] h\r",
            ),
            // SIZE 0 keeps nothing of a non-empty line.
            (b"abc\n", 0, b" [... 3 bytes of this line truncated ...] \n"),
            (b"\n", 0, b"\n"),
        ];
        for &(input, size, output) in cases {
            same(&max_line_line(input, size), output);
            only(input, |spec| spec.max_line = Some(size), output);
        }
    }

    #[test]
    fn max_line_moves_off_split_characters() {
        // "ab€€cd" = a b E2 82 AC E2 82 AC c d, 10 bytes.
        let line = "ab€€cd\n".as_bytes();
        // SIZE 6: the first part ends at 3 (an 82), back to 2; the last
        // starts at 7 (an AC), forward to 8. 6 bytes removed.
        let output = b"ab [... 6 bytes of this line truncated ...] cd\n";
        same(&max_line_line(line, 6), output);
        only(line, |spec| spec.max_line = Some(6), output);
        // SIZE 4 cuts at 2 and 8, on character starts already.
        same(&max_line_line(line, 4), output);
        only(line, |spec| spec.max_line = Some(4), output);
        // SIZE 5: 2 and 7 -> 8.
        same(&max_line_line(line, 5), output);
        only(line, |spec| spec.max_line = Some(5), output);
        // SIZE 8: the first part ends at 4 (an AC): back to 2, two moves;
        // the last starts at 6 (an 82): forward to 8.
        same(&max_line_line(line, 8), output);
        only(line, |spec| spec.max_line = Some(8), output);
        // Invalid bytes: five 0x80 between 'a' and 'b', SIZE 4. The first
        // part ends at 2 (0x80), back to 1 (0x80), back to 0 ('a' stops
        // it). The last starts at 7 - 2 = 5 (0x80) and moves to 6 ('b').
        same(
            &max_line_line(b"a\x80\x80\x80\x80\x80b", 4),
            b" [... 6 bytes of this line truncated ...] b",
        );
        only(
            b"a\x80\x80\x80\x80\x80b",
            |spec| spec.max_line = Some(4),
            b" [... 6 bytes of this line truncated ...] b",
        );
    }

    #[test]
    fn binary_summary_with_and_without_a_spill_file() {
        let input = b"ab\0cd\nef";
        let summary = binary_summary(input, None).expect("a NUL: binary");
        same(&summary.text, b"[binary output: 8 bytes]\n");
        only(
            input,
            |spec| spec.binary_summary = true,
            b"[binary output: 8 bytes]\n",
        );
        assert_eq!(summary.raw, (1, 2));
        let summary = binary_summary(input, Some(b"/tmp/s.log")).expect("binary");
        same(
            &summary.text,
            b"[binary output: 8 bytes; full output in /tmp/s.log]\n",
        );
        only(
            input,
            |spec| {
                spec.binary_summary = true;
                spec.core.spill = Some(b"/tmp/s.log".to_vec());
            },
            b"[binary output: 8 bytes; full output in /tmp/s.log]\n",
        );
        // Only the first 8 KiB are looked at.
        let mut late = vec![b'a'; 8 * 1024];
        late.push(0);
        assert_eq!(binary_summary(&late, None), None);
        late[8 * 1024 - 1] = 0;
        assert!(binary_summary(&late, None).is_some());
        assert_eq!(binary_summary(b"text\n", None), None);
    }

    #[test]
    fn the_transforms_run_in_the_readme_order() {
        let all = CleanSpec {
            max_line: Some(4),
            ..CleanSpec::new(Spec::from_max(10_000)).clean()
        };
        // strip-ansi before collapse-cr: the `\r` becomes part of `\r\n`.
        same(&text(&cleaned(b"a\r\x1b[0m\n", &all)), b"a\r\n");
        crate::program::prints(b"a\r\x1b[0m\n", &all, b"a\r\n");
        // collapse-cr before utf8: a backspace removes one invalid byte,
        // not the U+FFFD that would replace it.
        same(
            &text(&cleaned(b"a\xe2\x82\x08\n", &all)),
            "a\u{FFFD}\n".as_bytes(),
        );
        crate::program::prints(b"a\xe2\x82\x08\n", &all, "a\u{FFFD}\n".as_bytes());
        // utf8 before squeeze: different invalid bytes become one line
        // (14 of them: 13 repeats of 4 bytes outweigh the marker).
        condensed(
            &b"\xff\n\xfe\n".repeat(7),
            &all,
            "\u{FFFD}\n[... previous line repeated 13 more times ...]\n".as_bytes(),
        );
        // squeeze before max-line: lines that differ only in the part
        // max-line removes are not squeezed, and the squeeze marker is not
        // cut by max-line (ambiguities 30). Max-line makes the stream
        // longer than it came, so it is cut: the program is checked against
        // the model there.
        let input = [&b"abXcd\nabYcd\nabZcd\n"[..], &b"x\n".repeat(25)].concat();
        same(
            &text(&super::max_line(squeeze(raw_lines(&input), false), 4)),
            b"ab [... 1 bytes of this line truncated ...] cd\n\
              ab [... 1 bytes of this line truncated ...] cd\n\
              ab [... 1 bytes of this line truncated ...] cd\n\
              x\n[... previous line repeated 24 more times ...]\n",
        );
        let cut = CleanSpec {
            core: Spec::from_max(60),
            ..all.clone()
        };
        crate::program::prints(&input, &cut, &expected_output(&input, &cut));
        // The binary check comes first and replaces everything.
        same(
            &text(&cleaned(b"\x1b[31m\0\r\n", &all)),
            b"[binary output: 8 bytes]\n",
        );
        crate::program::prints(b"\x1b[31m\0\r\n", &all, b"[binary output: 8 bytes]\n");
        // Each transform alone on a binary input when --binary text.
        let text_mode = CleanSpec {
            binary_summary: false,
            ..all
        };
        same(&text(&cleaned(b"\x1b[31m\0x\n", &text_mode)), b"\0x\n");
        crate::program::prints(b"\x1b[31m\0x\n", &text_mode, b"\0x\n");
    }

    /// The guide's build log, before `toolcap --clean` ("shown with `cat
    /// -v`"; its ` ... ` between frames taken as a frame of its own).
    pub const README_BUILD_LOG: &[u8] = b"Compiling demo v0.1.0\n\
        \r[#         ]  10%\r[##        ]  20%\r ... \r[##########] 100%\n\
        warning: unused variable `x`\n\
        warning: unused variable `x`\n\
        warning: unused variable `x`\n\
        warning: unused variable `x`\n\
        warning: unused variable `x`\n\
        \x1b[1;31merror[E0308]\x1b[0m: mismatched types\n\
        \x1b[32mtest result: FAILED\x1b[0m. 3 passed; 1 failed\n";

    /// ... and after.
    pub const README_BUILD_LOG_CLEANED: &[u8] = b"Compiling demo v0.1.0\n\
        [##########] 100%\n\
        warning: unused variable `x`\n\
        [... previous line repeated 4 more times ...]\n\
        error[E0308]: mismatched types\n\
        test result: FAILED. 3 passed; 1 failed\n";

    #[test]
    fn the_readme_build_log_example() {
        // "Before and after `toolcap --clean --max 200` on a build log":
        // 256 bytes cleaned, so squeezing applies, and the squeezed 186
        // fit: the output is the squeezed stream, uncut.
        let spec = CleanSpec::new(Spec::from_max(200)).clean();
        same(
            &expected_output(README_BUILD_LOG, &spec),
            README_BUILD_LOG_CLEANED,
        );
        crate::program::prints(README_BUILD_LOG, &spec, README_BUILD_LOG_CLEANED);
    }

    /// The guide's `--keep` example: `cargo test 2>&1 | toolcap --max 200
    /// --keep FAILED`, 400 test lines (case 201 failed) and the verdict.
    pub fn readme_keep_input() -> Vec<u8> {
        let mut input = Vec::new();
        for case in 1..=400 {
            let verdict = if case == 201 { "FAILED" } else { "ok" };
            input.extend(format!("test case_{case} ... {verdict}\n").as_bytes());
        }
        input.extend(b"test result: FAILED\n");
        input
    }

    #[test]
    fn the_readme_keep_example() {
        // n = 9*19 + 90*20 + 301*21 + 4 + 20 = 8,316: 2,079 tokens. H = T =
        // 150, less the keep share floor(300/4) = 75: H = 113, T = 112.
        // h = 113 moves back to 95 (after case_5), t = 8,204 forward to
        // 8,212 (after case_396). Case 201 starts at 171 + 1,800 + 101*21 =
        // 4,092 and is 25 bytes; with the marker before it (at most 43
        // bytes with 12-digit numbers) it fits the 75: gaps of 4,092 - 95 =
        // 3,997 and 8,212 - 4,117 = 4,095 bytes.
        let mut output = b"Warning: truncated output (original token count: 2079)\n\
              Total output lines: 401\n\n"
            .to_vec();
        for case in 1..=5 {
            output.extend(format!("test case_{case} ... ok\n").as_bytes());
        }
        output.extend(b"[... 3997 bytes truncated ...]\n");
        output.extend(b"test case_201 ... FAILED\n");
        output.extend(b"[... 4095 bytes truncated ...]\n");
        for case in 397..=400 {
            output.extend(format!("test case_{case} ... ok\n").as_bytes());
        }
        output.extend(b"test result: FAILED\n");
        let spec = keep(Spec::from_max(300), &["FAILED"], None, 0);
        same(&expected_output(&readme_keep_input(), &spec), &output);
        crate::program::prints(&readme_keep_input(), &spec, &output);
    }

    #[test]
    fn squeezing_never_makes_the_stream_longer() {
        // "head\n" + 4 x "same\n" + "tail\n": the three repeats (15 bytes)
        // are shorter than a squeeze marker (46), so they stay, and the
        // stream of 30 bytes is cut as it is: h = 10 after "same\n" of
        // line 2, t = 25 before "tail\n", the gap lines 3-5.
        let input = b"head\nsame\nsame\nsame\nsame\ntail\n";
        // H = 7: h stays at 7 (back to 5 would lose 2 > floor(7/4)), inside
        // "same" of line 2: the gap is lines 2-5, 18 bytes.
        for (head, shown, gap) in [
            (10, "same", "15 bytes truncated (lines 3-5)"),
            (7, "sa", "18 bytes truncated (lines 2-5)"),
        ] {
            let spec = CleanSpec {
                squeeze: true,
                ..CleanSpec::new(with_spill(Spec::new(head, 5), "/tmp/s"))
            };
            let expected = format!(
                "Warning: truncated output (original token count: 8)\n\
                 Total output lines: 6\n\n\
                 head\n{shown}\n\
                 [... {gap}; full output in /tmp/s ...]\n\
                 tail\n"
            );
            same(&expected_output(input, &spec), expected.as_bytes());
            crate::program::prints(input, &spec, expected.as_bytes());
        }
    }

    #[test]
    fn a_vanished_last_line_is_named_by_the_last_gap() {
        // "ab\ncd\n" ESC "[0m": raw lines 1-3, the third only a sequence.
        // Stripped: "ab\n" (line 1), "cd\n" (lines 2-3). H = 3, T = 0: the
        // gap "cd\n" runs to the end: lines 2-3 (ambiguities 33).
        let spec = CleanSpec {
            strip_ansi: true,
            ..CleanSpec::new(with_spill(Spec::new(3, 0), "/s"))
        };
        let lines = cleaned(b"ab\ncd\n\x1b[0m", &spec);
        assert_eq!(
            lines_of(&lines),
            [("ab\\n".into(), 1, 1), ("cd\\n".into(), 2, 3)]
        );
        same(
            &expected_output(b"ab\ncd\n\x1b[0m", &spec),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 2\n\
              Cleaned: 10 raw bytes became 6 bytes\n\n\
              ab\n\
              [... 3 bytes truncated (lines 2-3); full output in /s ...]\n",
        );
        crate::program::prints(
            b"ab\ncd\n\x1b[0m",
            &spec,
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 2\n\
              Cleaned: 10 raw bytes became 6 bytes\n\n\
              ab\n\
              [... 3 bytes truncated (lines 2-3); full output in /s ...]\n",
        );
    }

    #[test]
    fn the_cleaned_line_only_when_cleaning_changed_the_stream() {
        // Strip-ansi on text without escapes: the stream is unchanged, so
        // the header has its two lines only.
        let spec = CleanSpec {
            strip_ansi: true,
            ..CleanSpec::new(Spec::new(2, 2))
        };
        same(
            &expected_output(b"abcdefgh", &spec),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 1\n\n\
              ab\n\
              [... 4 bytes truncated ...]\n\
              gh",
        );
        crate::program::prints(
            b"abcdefgh",
            &spec,
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 1\n\n\
              ab\n\
              [... 4 bytes truncated ...]\n\
              gh",
        );
        // A stream that fits after cleaning: no header at all.
        same(&expected_output(b"\x1b[31mab\x1b[0m", &spec), b"ab");
        crate::program::prints(b"\x1b[31mab\x1b[0m", &spec, b"ab");
        // --no-header omits the third line too.
        let spec = CleanSpec {
            strip_ansi: true,
            ..CleanSpec::new(Spec {
                header: false,
                ..Spec::new(2, 2)
            })
        };
        same(
            &expected_output(b"\x1b[31mabcdefgh", &spec),
            b"ab\n[... 4 bytes truncated ...]\ngh",
        );
        crate::program::prints(
            b"\x1b[31mabcdefgh",
            &spec,
            b"ab\n[... 4 bytes truncated ...]\ngh",
        );
    }

    #[test]
    fn a_binary_summary_is_capped_like_any_stream() {
        // Fits: the summary line alone.
        let spec = CleanSpec::new(Spec::from_max(10_000)).clean();
        same(
            &expected_output(b"ab\0cd", &spec),
            b"[binary output: 5 bytes]\n",
        );
        crate::program::prints(b"ab\0cd", &spec, b"[binary output: 5 bytes]\n");
        // 50 x "\0\n" = 100 raw bytes, 50 raw lines, with a spill file:
        // "[binary output: 100 bytes; full output in /s]\n" is 46 bytes.
        // H = T = 10: h = 10, t = 36 (the `\n` at 45 is too far), both
        // inside the summary, toolcap's own line, so h moves back to 0 and
        // t on to 46: it is shown whole or not at all (ambiguities 45).
        // The one cleaned line stands for raw lines 1-50.
        let spec = CleanSpec::new(with_spill(Spec::new(10, 10), "/s")).clean();
        same(
            &expected_output(&b"\0\n".repeat(50), &spec),
            b"Warning: truncated output (original token count: 12)\n\
              Total output lines: 1\n\
              Cleaned: 100 raw bytes became 46 bytes\n\n\
              [... 46 bytes truncated (lines 1-50); full output in /s ...]\n",
        );
        crate::program::prints(
            &b"\0\n".repeat(50),
            &spec,
            b"Warning: truncated output (original token count: 12)\n\
              Total output lines: 1\n\
              Cleaned: 100 raw bytes became 46 bytes\n\n\
              [... 46 bytes truncated (lines 1-50); full output in /s ...]\n",
        );
    }

    #[test]
    fn keep_max_defaults_to_a_quarter_of_the_budget() {
        // H = T = 7: floor(14/4) = 3 bytes, less than any line, taken as
        // 1 from the head (floor(3*7/14)) and 2 from the tail: H = 6, T = 5.
        let input = b"head\nerr a\nok\nerr bbbbbbb\nerr c\nok\ntail\n";
        same(
            &expected_output(input, &keep(Spec::new(7, 7), &["err"], None, 0)),
            b"Warning: truncated output (original token count: 10)\n\
              Total output lines: 7\n\n\
              head\n\
              [... 30 bytes truncated; 3 more matching lines not shown ...]\n\
              tail\n",
        );
        crate::program::prints(
            input,
            &keep(Spec::new(7, 7), &["err"], None, 0),
            b"Warning: truncated output (original token count: 10)\n\
              Total output lines: 7\n\n\
              head\n\
              [... 30 bytes truncated; 3 more matching lines not shown ...]\n\
              tail\n",
        );
    }

    #[test]
    fn keep_errors_words() {
        for line in [
            "error: x",
            "TypeError: y",
            "java.lang.NullPointerException",
            "3 errors",
            "Exceptions raised",
            "test failed",
            "FAILURES",
            "it fails",
            "thread 'main' panicked at",
            "don't Panic",
            "Traceback (most recent call last):",
            "fatal: not a git repository",
            "E   assert 1 == 2",
            "fail-fast",
            "terror", // a suffix, literally
            "error_x error",
        ] {
            assert!(says_error(line.as_bytes()), "{line:?} says error");
        }
        for line in [
            "errorless",
            "failing",
            "failsafe",
            "panicky",
            "fatalistic",
            "Error2",
            "error_code",
            "e   assert",
            " E   indented",
            "all good",
        ] {
            assert!(!says_error(line.as_bytes()), "{line:?} says no error");
        }
    }
}
