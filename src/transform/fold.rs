//! `--fold`: a run of k >= 3 consecutive similar lines becomes its first
//! line, one marker line, `[... {k-2} similar lines folded ...]` (which
//! stands for the k-2 lines it replaced), and its last line, so the range
//! stays visible; when the k-2 lines are no longer than the marker, they
//! stay as they are.
//!
//! Two lines are similar when they are equal after masking (see
//! [`similar`]), or when both match the same `--fold-pattern` first. A
//! line that `--keep` or `--keep-errors` matches is never folded: it ends
//! a run, and cannot start one. Lines toolcap wrote (a squeeze marker) and
//! lines over [`MAX_COMPARED`] end a run too.
//!
//! Memory is bounded: a run holds its last line (at most
//! [`MAX_COMPARED`]), a count, and the raw line where its folded part
//! began; its first line has gone out already.

use memchr::memchr_iter;

use super::Emit;
use super::assemble::{Assembled, MAX_COMPARED, WholeLines};
use crate::line_match::{Ahead, LineMatch};
use crate::vocab::marker::fold_marker;
use crate::vocab::split_terminator;

/// A run of this many hex digits or more is an id (a hash, an address, a
/// request id), masked whole: shorter ones are words (`add`, `cafe`).
const HEX_ID: usize = 8;

/// Folded lines are held up to this many bytes, to be shown instead of a
/// marker that would be longer (a fold marker is at most about 100 bytes,
/// its numbers of 20 digits).
const FOLDED_SHOWN: usize = 128;

/// What `--fold` needs to know besides the stream.
#[derive(Clone, Debug)]
pub(crate) struct FoldRules {
    /// `--fold-pattern`: a line's class is the first of these it matches;
    /// lines of one class are similar whatever else they hold.
    pub(crate) classes: Vec<LineMatch>,
    /// The lines that are never folded.
    pub(crate) protected: Option<LineMatch>,
}

/// `--fold`, fed whole lines.
pub(crate) type Fold = Assembled<Folding>;

pub(crate) struct Folding {
    rules: FoldRules,
    /// Whether markers name the raw lines they stand for (a spill file
    /// holds them).
    name_lines: bool,
    /// Raw input lines before the next line.
    raw: u64,
    /// The line the next one is compared with (the last line shown or
    /// held), whole; meaningful only when `comparable`.
    last: Vec<u8>,
    comparable: bool,
    last_class: Option<usize>,
    /// Whether the run's first line may start a run (it is not
    /// protected): asked only once a similar line follows it.
    first_free: Option<bool>,
    /// Lines of the run after its first, held back; `last` is the last.
    held: u64,
    /// The raw line of the first held line.
    held_from: u64,
    /// The held lines before `last` (those a marker would replace), while
    /// they are no longer than [`FOLDED_SHOWN`]; `None` past it.
    folded: Option<Vec<u8>>,
    changed: bool,
    /// What each class's matcher, then the protected lines' matcher,
    /// learnt of the chunk being pushed.
    ahead: Vec<Ahead>,
}

/// What becomes of a whole line.
enum Step {
    /// It is shown where it is (ending any run); the next line is compared
    /// with it when `Some` (its class, and whether it may start a run if
    /// known).
    Show(Option<(Option<usize>, Option<bool>)>),
    /// It joins the run (of this class), held back.
    Hold(Option<usize>),
}

impl Fold {
    pub(crate) fn new(rules: FoldRules, name_lines: bool) -> Fold {
        Assembled::of(Folding {
            name_lines,
            raw: 0,
            last: Vec::new(),
            comparable: false,
            last_class: None,
            first_free: None,
            held: 0,
            held_from: 0,
            folded: Some(Vec::new()),
            changed: false,
            ahead: std::iter::repeat_with(Ahead::default)
                .take(rules.classes.len() + 1)
                .collect(),
            rules,
        })
    }
}

impl Folding {
    /// Starts on a new chunk (see [`LineMatch::matches_in`]).
    fn new_chunk(&mut self) {
        self.ahead.iter_mut().for_each(Ahead::reset);
    }

    /// The class of the whole line `chunk[start..end]`.
    fn class_of(&mut self, chunk: &[u8], start: usize, end: usize) -> Option<usize> {
        let Folding { rules, ahead, .. } = self;
        (rules.classes.iter().zip(ahead.iter_mut()))
            .position(|(class, ahead)| class.matches_in(chunk, start, end, ahead))
    }

    fn is_protected(&mut self, chunk: &[u8], start: usize, end: usize) -> bool {
        let Folding { rules, ahead, .. } = self;
        let (Some(protected), Some(ahead)) = (&rules.protected, ahead.last_mut()) else {
            return false;
        };
        protected.matches_in(chunk, start, end, ahead)
    }

    /// Decides what becomes of the whole line `chunk[start..end]`; the
    /// lines of a chunk are decided in order.
    fn step(&mut self, chunk: &[u8], start: usize, end: usize) -> Step {
        let line = &chunk[start..end];
        if line.len() > MAX_COMPARED {
            return Step::Show(None);
        }
        let class = self.class_of(chunk, start, end);
        let similar = self.comparable
            && self.last_class == class
            && (class.is_some()
                || similar_with_status(split_terminator(&self.last).0, split_terminator(line).0));
        if !similar {
            return Step::Show(Some((class, None)));
        }
        if self.is_protected(chunk, start, end) {
            return Step::Show(None);
        }
        if self.held == 0 {
            let free = match self.first_free {
                Some(free) => free,
                None => !self
                    .rules
                    .protected
                    .as_ref()
                    .is_some_and(|protected| protected.matches(&self.last)),
            };
            if !free {
                // The first line stays alone; this one may start a run.
                return Step::Show(Some((class, Some(true))));
            }
        }
        Step::Hold(class)
    }

    /// Ends the run: the held lines before the last become the marker
    /// when it is shorter than they are, else they are shown as they are;
    /// the last is shown.
    fn end_run(&mut self, out: &mut dyn Emit) {
        let held = std::mem::take(&mut self.held);
        if held < 2 {
            if held == 1 {
                out.bytes(&self.last);
            }
            return;
        }
        let shown = self.folded.replace(Vec::new());
        let folded = held - 1;
        let lines = (self.held_from, self.held_from + folded - 1);
        let marker = fold_marker(folded, self.name_lines.then_some(lines));
        match shown {
            Some(text) if text.len() <= marker.len() => out.bytes(&text),
            _ => {
                self.changed = true;
                out.merged_line(&marker, folded);
            }
        }
        out.bytes(&self.last);
    }

    /// After a shown line: what the next one is compared with.
    fn shown(&mut self, line: &[u8], next: Option<(Option<usize>, Option<bool>)>) {
        match next {
            None => self.comparable = false,
            Some((class, free)) => {
                self.remember(line, class);
                self.first_free = free;
            }
        }
    }

    fn remember(&mut self, line: &[u8], class: Option<usize>) {
        self.last.clear();
        self.last.extend_from_slice(line);
        self.last_class = class;
        self.comparable = true;
    }

    /// A held line: the run grows by one, and the line held before it is
    /// one a marker would replace.
    fn hold(&mut self, line: &[u8], class: Option<usize>) {
        if self.held == 0 {
            self.held_from = self.raw + 1;
        } else if let Some(text) = &mut self.folded {
            if text.len() + self.last.len() <= FOLDED_SHOWN {
                text.extend_from_slice(&self.last);
            } else {
                self.folded = None;
            }
        }
        self.held += 1;
        self.remember(line, class);
    }
}

impl WholeLines for Folding {
    /// Lines shown where they are go out many at once, as slices of the
    /// chunk; only held lines are copied.
    fn lines(&mut self, input: &[u8], from: usize, out: &mut dyn Emit) -> usize {
        // `pending`: where lines shown but not yet emitted begin.
        self.new_chunk();
        let mut at = from;
        let mut pending = at;
        for newline in memchr_iter(b'\n', &input[from..]) {
            let (start, end) = (at, from + newline + 1);
            at = end;
            let line = &input[start..end];
            match self.step(input, start, end) {
                Step::Show(next) => {
                    if self.held > 0 {
                        out.bytes(&input[pending..start]);
                        pending = start;
                        self.end_run(out);
                    }
                    self.shown(line, next);
                }
                Step::Hold(class) => {
                    if pending < start {
                        out.bytes(&input[pending..start]);
                    }
                    pending = end;
                    self.hold(line, class);
                }
            }
            self.raw += 1;
        }
        if pending < at {
            out.bytes(&input[pending..at]);
        }
        at
    }

    fn line(&mut self, line: &[u8], out: &mut dyn Emit) {
        self.new_chunk();
        match self.step(line, 0, line.len()) {
            Step::Show(next) => {
                self.end_run(out);
                out.bytes(line);
                self.shown(line, next);
            }
            Step::Hold(class) => self.hold(line, class),
        }
        self.raw += 1;
    }

    fn too_long(&mut self, out: &mut dyn Emit) {
        self.end_run(out);
        self.comparable = false;
    }

    fn passed(&mut self) {
        self.raw += 1;
    }

    fn merged(&mut self, line: &[u8], lines: u64, out: &mut dyn Emit) {
        // A line toolcap wrote is never folded, and ends a run.
        self.end_run(out);
        self.comparable = false;
        self.raw += lines;
        out.merged_line(line, lines);
    }

    fn end(&mut self, out: &mut dyn Emit) {
        self.end_run(out);
    }

    fn changed(&self) -> bool {
        self.changed
    }
}

/// A piece of a line as masking reads it.
#[derive(Debug, PartialEq, Eq)]
enum Token {
    Byte(u8),
    /// A number or an id.
    Number,
    /// A run of spaces and tabs.
    Space,
    End,
}

/// The token at `at`, a token boundary of `line`, and where the next one
/// begins. Masking reads a line from left to right:
///
/// 1. where a run of hex digits begins (a hex digit with none before it)
///    and is at least [`HEX_ID`] long, the whole run is a number;
/// 2. otherwise a run of ASCII digits is a number, taking in one `.` that
///    a digit follows (`0.12` is one number, `1.2.3` two);
/// 3. a run of spaces and tabs is one space;
/// 4. every other byte is itself.
fn token(line: &[u8], at: usize) -> (Token, usize) {
    let Some(&byte) = line.get(at) else {
        return (Token::End, at);
    };
    let class = CLASS[usize::from(byte)];
    if class & HEX != 0 && (at == 0 || CLASS[usize::from(line[at - 1])] & HEX == 0) {
        let hex = run(line, at, HEX);
        if hex >= HEX_ID {
            return (Token::Number, at + hex);
        }
    }
    if class & DIGIT != 0 {
        let mut end = at + run(line, at, DIGIT);
        if line.get(end) == Some(&b'.') && line.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end += 1 + run(line, end + 1, DIGIT);
        }
        return (Token::Number, end);
    }
    if class & SPACE != 0 {
        return (Token::Space, at + run(line, at, SPACE));
    }
    (Token::Byte(byte), at + 1)
}

/// Byte classes, as bits of [`CLASS`]: one table lookup where two or
/// three comparisons would be (this runs for every byte near a
/// difference).
const HEX: u8 = 1;
const DIGIT: u8 = 2;
const SPACE: u8 = 4;
/// `.`: a maskable byte that is none of the others.
const DOT: u8 = 8;
const CLASS: [u8; 256] = {
    let mut class = [0; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        class[byte] = match b {
            b'0'..=b'9' => HEX | DIGIT,
            b'a'..=b'f' | b'A'..=b'F' => HEX,
            b' ' | b'\t' => SPACE,
            b'.' => DOT,
            _ => 0,
        };
        byte += 1;
    }
    class
};

/// How many bytes of `line` from `from` on are of one of the `classes`.
fn run(line: &[u8], from: usize, classes: u8) -> usize {
    line[from..]
        .iter()
        .take_while(|&&byte| CLASS[usize::from(byte)] & classes != 0)
        .count()
}

/// Whether a byte can be part of a number or a space run: a token that
/// holds a differing byte starts at the first of the run of these before
/// it.
fn maskable(byte: u8) -> bool {
    CLASS[usize::from(byte)] != 0
}

/// Words a status-like number follows (`exit 1`, `status=500`,
/// `failures: 3`), in any case; it also precedes the last two (`3
/// errors`; not `failed`: `retry 2 failed` counts retries).
const STATUS_WORDS: &[&[u8]] = &[
    b"exit",
    b"status",
    b"code",
    b"rc",
    b"failed",
    b"failures",
    b"errors",
];

/// [`similar`], and with the same status-like numbers: a line whose
/// status differs where its neighbour's agrees (a 500 among 200s, `exit 1`
/// among `exit 0`) is the odd line a fold must not hide (issue 21).
fn similar_with_status(a: &[u8], b: &[u8]) -> bool {
    similar(a, b) && status_numbers(a).eq(status_numbers(b))
}

/// The status-like numbers of a line, in order: whole runs of ASCII digits
/// (no letter, digit or `.` on either side) that are an HTTP status (3
/// digits, 100 to 599, with a space or the line's end on each side, in a
/// line with `HTTP/` or a method such as `GET`), or
/// follow one of [`STATUS_WORDS`] across spaces, `:` or `=`, or precede
/// `failures` or `errors` across one space.
fn status_numbers(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < line.len() {
            if !line[at].is_ascii_digit() {
                at += 1;
                continue;
            }
            let start = at;
            while at < line.len() && line[at].is_ascii_digit() {
                at += 1;
            }
            let end = at;
            let edge =
                |byte: Option<&u8>| byte.is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'.'));
            if !edge(start.checked_sub(1).and_then(|i| line.get(i))) || !edge(line.get(end)) {
                continue;
            }
            if is_status(line, start, end) {
                return Some(&line[start..end]);
            }
        }
        None
    })
}

/// Whether a line is an HTTP request's: it holds `HTTP/` or a method
/// (`GET`, `POST`, `PUT`, `DELETE`, `PATCH`, `HEAD`, `OPTIONS`) as a word.
fn is_http(line: &[u8]) -> bool {
    const METHODS: &[&[u8]] = &[
        b"GET", b"POST", b"PUT", b"DELETE", b"PATCH", b"HEAD", b"OPTIONS",
    ];
    memchr::memmem::find(line, b"HTTP/").is_some()
        || line
            .split(|b| !b.is_ascii_alphabetic())
            .any(|word| METHODS.contains(&word))
}

/// Whether the number `line[start..end]` is status-like (see
/// [`status_numbers`]).
fn is_status(line: &[u8], start: usize, end: usize) -> bool {
    let spaced = |byte: Option<&u8>| byte.is_none_or(|&b| b == b' ');
    let number = &line[start..end];
    let http = number.len() == 3
        && (b'1'..=b'5').contains(&number[0])
        && is_http(line)
        && spaced(start.checked_sub(1).and_then(|i| line.get(i)))
        && spaced(line.get(end));
    // The word before, across spaces, `:` and `=`.
    let before = line[..start]
        .iter()
        .rposition(|&b| !matches!(b, b' ' | b':' | b'='))
        .map_or(0, |i| i + 1);
    let word_start = line[..before]
        .iter()
        .rposition(|b| !b.is_ascii_alphabetic())
        .map_or(0, |i| i + 1);
    let word_before = &line[word_start..before];
    let follows = before < start
        && STATUS_WORDS
            .iter()
            .any(|word| word.eq_ignore_ascii_case(word_before));
    // The word after, across one space.
    let after = line
        .get(end + 1..)
        .filter(|_| line.get(end) == Some(&b' '))
        .unwrap_or_default();
    let word_after = &after[..after
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(after.len())];
    let precedes = [&b"failures"[..], b"errors"]
        .iter()
        .any(|word| word.eq_ignore_ascii_case(word_after));
    http || follows || precedes
}

/// Whether two lines (without their terminators) are equal after masking.
///
/// Similar lines are mostly equal bytes: identical stretches are skipped
/// at memory speed, and only the tokens around each difference are read.
/// At a token boundary reached in both lines by equal tokens the byte
/// before is alike (a hex digit after a number, a space, or the same
/// byte), so the tokens that follow are read alike too.
fn similar(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && differ_only_in_place(a, b) || similar_by_tokens(a, b)
}

/// [`similar`], reading the tokens around each difference.
fn similar_by_tokens(a: &[u8], b: &[u8]) -> bool {
    let (mut i, mut j) = (0, 0);
    loop {
        let same = common_prefix(&a[i..], &b[j..]);
        if i + same == a.len() && j + same == b.len() {
            return true;
        }
        let differs_at = i + same;
        let back = a[i..differs_at]
            .iter()
            .rev()
            .take_while(|&&byte| maskable(byte))
            .count();
        (i, j) = (differs_at - back, j + same - back);
        // Token by token until past the difference.
        while i <= differs_at {
            let (token_a, next_a) = token(a, i);
            let (token_b, next_b) = token(b, j);
            if token_a != token_b {
                return false;
            }
            if token_a == Token::End {
                return true;
            }
            (i, j) = (next_a, next_b);
        }
    }
}

/// Whether `a` and `b`, of one length, are similar because each byte
/// where they differ is, in both, inside a number or a space run: the
/// common case (a counter, a duration, an id changed in place), decided
/// a word at a time without reading tokens.
///
/// Outside ids, a differing byte must be of the same class in both
/// lines; inside an id, a hex digit in both. Masking then cuts both lines
/// into tokens at the same places (it reads classes, whether a byte is
/// `.`, and the bytes that are equal), and a digit is always inside a
/// number, a space inside a space run, and a hex letter inside a number
/// only where its hex run is an id. `false` means "not proven here", and
/// [`similar`] reads the tokens.
fn differ_only_in_place(a: &[u8], b: &[u8]) -> bool {
    // Where the id that the last differing hex letter was in ends.
    let mut id_end: usize = 0;
    // Whether every byte where words `x` and `y` differ is masked alike.
    let mut word_masked = |index: usize, x: u64, y: u64| {
        // Digits in both are settled for the whole word at once.
        let mut rest = nonzero_bytes(x ^ y) & !(digits(x) & digits(y));
        while rest != 0 {
            let in_id = bytes_before(id_end.saturating_sub(index * 8));
            if rest & in_id != 0 {
                if rest & in_id & !(hex_digits(x) & hex_digits(y)) != 0 {
                    return false;
                }
                rest &= !in_id;
            } else {
                let Some(end) = settle(a, b, index * 8 + (rest.trailing_zeros() / 8) as usize)
                else {
                    return false;
                };
                id_end = id_end.max(end);
                rest &= rest - 1;
            }
        }
        true
    };
    let (words_a, words_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail = (padded(words_a.remainder()), padded(words_b.remainder()));
    for (index, (x, y)) in words_a.zip(words_b).enumerate() {
        let (x, y) = (word(x), word(y));
        if x != y && !word_masked(index, x, y) {
            return false;
        }
    }
    tail.0 == tail.1 || word_masked(a.len() / 8, tail.0, tail.1)
}

/// The differing byte at `at`, neither a digit in both nor inside an id
/// already settled: `Some(0)` where it is a space in both, `Some(end)`
/// where it is a hex digit in both inside an id that ends at `end`.
fn settle(a: &[u8], b: &[u8], at: usize) -> Option<usize> {
    let class = CLASS[usize::from(a[at])];
    if class == SPACE && CLASS[usize::from(b[at])] == SPACE {
        return Some(0);
    }
    if class & CLASS[usize::from(b[at])] & HEX == 0 {
        return None;
    }
    let start = at
        - a[..at]
            .iter()
            .rev()
            .take_while(|&&byte| is_hex_digit(byte))
            .count();
    let end = at + run(a, at, HEX);
    // Rule 2's `.` could take the run's first digits into the number
    // before it: not an id then.
    let after_decimal_point = start >= 2 && a[start - 1] == b'.' && a[start - 2].is_ascii_digit();
    (end - start >= HEX_ID && !after_decimal_point).then_some(end)
}

fn is_hex_digit(byte: u8) -> bool {
    CLASS[usize::from(byte)] & HEX != 0
}

/// Per-byte tests on eight bytes at once, the first byte in the word's
/// lowest: each answers with the high bit of every byte it holds for.
const LOW_SEVEN: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const EACH_BYTE: u64 = 0x0101_0101_0101_0101;

fn word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().unwrap_or_default())
}

/// Up to eight bytes as a word, padded with zeros.
fn padded(bytes: &[u8]) -> u64 {
    let mut padded = [0; 8];
    padded[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(padded)
}

/// The bytes that are not zero. No carry leaves its byte: 0x7f + 0x7f
/// is below 0x100.
fn nonzero_bytes(word: u64) -> u64 {
    (((word & LOW_SEVEN) + LOW_SEVEN) | word) & !LOW_SEVEN
}

/// The bytes in `low..=high` (ASCII): below 0x80, at most 0x7f once
/// `0x7f - high` is added, and at least 0x80 once `0x80 - low` is; no sum
/// leaves its byte.
const fn bytes_in(word: u64, low: u8, high: u8) -> u64 {
    let seven = word & LOW_SEVEN;
    let above_high = seven + EACH_BYTE * (0x7f - high) as u64;
    let from_low = seven + EACH_BYTE * (0x80 - low) as u64;
    !word & !above_high & from_low & !LOW_SEVEN
}

fn digits(word: u64) -> u64 {
    bytes_in(word, b'0', b'9')
}

fn hex_digits(word: u64) -> u64 {
    // Setting 0x20 makes `A-F` `a-f` and moves nothing else into it.
    digits(word) | bytes_in(word | (EACH_BYTE * 0x20), b'a', b'f')
}

/// The first `count` bytes (all eight from 8 on).
fn bytes_before(count: usize) -> u64 {
    match count {
        0 => 0,
        1..8 => !LOW_SEVEN & ((1 << (count * 8)) - 1),
        _ => !LOW_SEVEN,
    }
}

/// How many bytes `a` and `b` share at their start: eight at a time
/// while they can (a word compare, where a byte loop would not be
/// vectorized; the first differing byte of a word is its lowest set bit
/// of the two words' xor), then byte by byte.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut same = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let differ = word(x) ^ word(y);
        if differ != 0 {
            return same + (differ.trailing_zeros() / 8) as usize;
        }
        same += 8;
    }
    same + a[same..]
        .iter()
        .zip(&b[same..])
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::transform::testing::{run, run_all_chunkings};
    use crate::transform::{Ending, Transform};

    fn rules(protected: &[&str], classes: &[&str]) -> FoldRules {
        FoldRules {
            classes: classes
                .iter()
                .map(|c| LineMatch::new(&[c]).unwrap())
                .collect(),
            protected: (!protected.is_empty()).then(|| LineMatch::new(protected).unwrap()),
        }
    }

    /// Makes every line of a hand-worked case long enough that folding
    /// it pays (a marker is shorter than the line), so that the cases
    /// read as short lines; [`fold_with`] takes it out again.
    const PAD: &str = " (a line long enough for folding it to pay off)";

    fn padded(input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for line in input.split_inclusive(|&b| b == b'\n') {
            let (text, end) = split_terminator(line);
            out.extend_from_slice(text);
            out.extend_from_slice(PAD.as_bytes());
            out.extend_from_slice(end);
        }
        out
    }

    /// Folds `input` with every line padded, then takes the padding out.
    fn fold_with(rules: &FoldRules, name_lines: bool, input: &[u8]) -> String {
        let padded = padded(input);
        let bytes = run_all_chunkings(|| Box::new(Fold::new(rules.clone(), name_lines)), &padded);
        String::from_utf8(bytes).unwrap().replace(PAD, "")
    }

    /// Folds `input` as it is.
    fn fold_unpadded(input: &str) -> String {
        let fold = || Box::new(Fold::new(rules(&[], &[]), true)) as Box<dyn Transform + Send>;
        String::from_utf8(run_all_chunkings(fold, input.as_bytes())).unwrap()
    }

    fn fold(input: &str) -> String {
        fold_with(&rules(&[], &[]), false, input.as_bytes())
    }

    /// Masking word for word as the guide says it, to check `similar`'s
    /// shortcuts against.
    fn masked(line: &[u8]) -> Vec<Token> {
        let mut tokens = Vec::new();
        let mut at = 0;
        loop {
            let (token, next) = token(line, at);
            if token == Token::End {
                return tokens;
            }
            tokens.push(token);
            at = next;
        }
    }

    #[test]
    fn masking_reads_numbers_ids_and_spaces() {
        for (a, b) in [
            (
                "test_param[17] PASSED [ 12%]",
                "test_param[1001] PASSED [ 99%]",
            ),
            ("took 0.12s", "took 13.5s"),
            ("id=deadbeef01 ok", "id=0123456789abcdef ok"),
            ("a\t \tb", "a b"),
            ("v1.2.3", "v10.20.30"),
            ("x1234567a", "x7"),
        ] {
            assert!(similar(a.as_bytes(), b.as_bytes()), "{a:?} {b:?}");
            assert_eq!(masked(a.as_bytes()), masked(b.as_bytes()), "{a:?} {b:?}");
        }
        for (a, b) in [
            ("took 0.12s", "took 0.12 s"),
            ("cafe 1", "beef 1"),
            ("1.2.3", "1.2"),
            ("ab12", "ab1c"),
            ("x", "x "),
            ("a1", "b1"),
        ] {
            assert!(!similar(a.as_bytes(), b.as_bytes()), "{a:?} {b:?}");
            assert_ne!(masked(a.as_bytes()), masked(b.as_bytes()), "{a:?} {b:?}");
        }
        // Rule 1 only where a hex run begins: after the number `0.1`, the
        // hex digits go on as bytes of their own.
        assert_eq!(
            masked(b"0.12345678abc"),
            [
                Token::Number,
                Token::Byte(b'a'),
                Token::Byte(b'b'),
                Token::Byte(b'c')
            ]
        );
    }

    #[test]
    fn similar_agrees_with_masking_on_every_small_pair() {
        let alphabet = [b'1', b'9', b'a', b'g', b'.', b' ', b'\t', b'x'];
        let mut lines: Vec<Vec<u8>> = vec![Vec::new()];
        let mut shorter = lines.clone();
        for _ in 0..3 {
            shorter = shorter
                .iter()
                .flat_map(|line| {
                    alphabet
                        .iter()
                        .map(move |&byte| [line.as_slice(), &[byte]].concat())
                })
                .collect();
            lines.extend(shorter.iter().cloned());
        }
        // Ids of 8+ hex digits, placed after shared prefixes.
        let ids: Vec<Vec<u8>> = lines
            .iter()
            .take(200)
            .map(|line| [line.as_slice(), b"0123abcd9"].concat())
            .collect();
        lines.extend(ids);
        for a in &lines {
            for b in &lines {
                assert_eq!(
                    similar(a, b),
                    masked(a) == masked(b),
                    "{:?} {:?}",
                    a.escape_ascii().to_string(),
                    b.escape_ascii().to_string()
                );
            }
        }
    }

    fn line_and_changed_in_place() -> impl proptest::strategy::Strategy<Value = (Vec<u8>, Vec<u8>)>
    {
        use proptest::prelude::*;
        // Hex digits often enough that ids of 8 and more occur.
        let byte = prop::sample::select(b"0123456789abcdefABCDEF0123456789 \t.x-=".to_vec());
        (
            prop::collection::vec(byte.clone(), 0..48),
            prop::collection::vec((any::<usize>(), byte), 0..6),
        )
            .prop_map(|(line, changes)| {
                let mut changed = line.clone();
                for (at, byte) in changes {
                    if !changed.is_empty() {
                        let at = at % changed.len();
                        changed[at] = byte;
                    }
                }
                (line, changed)
            })
    }

    proptest::proptest! {
        /// The shortcut for lines of one length never says "similar"
        /// where masking does not, and `similar` agrees with masking.
        #[test]
        fn lines_changed_in_place_are_similar_as_masked((a, b) in line_and_changed_in_place()) {
            let same = masked(&a) == masked(&b);
            let shown = (a.escape_ascii().to_string(), b.escape_ascii().to_string());
            proptest::prop_assert!(!differ_only_in_place(&a, &b) || same, "{:?}", shown);
            proptest::prop_assert_eq!(similar(&a, &b), same, "{:?}", shown);
        }
    }

    #[test]
    fn the_shortcut_settles_counters_durations_and_ids() {
        for (a, b) in [
            (
                "worker[3] id=9e3779b1 status=200 dur=5ms",
                "worker[4] id=3c6ef372 status=201 dur=7ms",
            ),
            ("t=0.25s\tok", "t=1.75s ok"),
            (
                "sha 0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789abcdef",
                "sha fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
            ),
        ] {
            assert!(
                differ_only_in_place(a.as_bytes(), b.as_bytes()),
                "{a:?} {b:?}"
            );
        }
        for (a, b) in [
            // Not an id: seven hex digits, or after a decimal point.
            ("x abcdef1 y", "x 1234567 y"),
            ("v 1.2345678ab", "v 1.23456789c"),
            ("cafe", "beef"),
            ("a-1", "a 1"),
        ] {
            assert!(
                !differ_only_in_place(a.as_bytes(), b.as_bytes()),
                "{a:?} {b:?}"
            );
        }
    }

    #[test]
    fn a_different_status_is_not_similar() {
        // The access log: the 500 stays, and so do its neighbours
        // (no run of three similar lines is left).
        let log =
            "GET /a 200 12ms\nGET /a 200 9ms\nGET /a 500 31ms\nGET /a 200 8ms\nGET /a 200 7ms\n";
        assert_eq!(fold(log), log);
        let same = "GET /a 200 12ms\nGET /a 200 9ms\nGET /a 200 31ms\n";
        assert_eq!(
            fold(same),
            "GET /a 200 12ms\n[... 1 similar line folded ...]\nGET /a 200 31ms\n"
        );
        let jobs = "job 1: exit 0\njob 2: exit 1\njob 3: exit 0\n\
                    job 4: exit 0\njob 5: exit 0\njob 6: exit 0\n";
        assert_eq!(
            fold(jobs),
            "job 1: exit 0\njob 2: exit 1\njob 3: exit 0\n\
             [... 2 similar lines folded ...]\njob 6: exit 0\n"
        );
        let counts = "run 1: 0 errors\nrun 2: 3 errors\nrun 3: 0 errors\n";
        assert_eq!(fold(counts), counts);
        // Not statuses: a percentage, a number inside a word or a version,
        // 3 digits outside a request.
        assert_eq!(status_numbers(b"-item 190").count(), 0);
        let progress = "[ 10%] x\n[ 20%] x\n[ 30%] x\n";
        assert_eq!(status_numbers(b"GET [100%] x 404x v1.200 ").count(), 0);
        assert_eq!(
            status_numbers(b"status=500 exit: 2 3 errors").collect::<Vec<_>>(),
            [&b"500"[..], b"2", b"3"]
        );
        assert!(fold(progress).contains("folded"));
    }

    #[test]
    fn runs_of_three_or_more_keep_their_ends() {
        assert_eq!(fold("a1\na2\nb\n"), "a1\na2\nb\n");
        assert_eq!(
            fold("x\nt[0] ok\nt[1] ok\nt[2] ok\nt[3] ok\ny\n"),
            "x\nt[0] ok\n[... 2 similar lines folded ...]\nt[3] ok\ny\n"
        );
        assert_eq!(
            fold("n 1\nn 2\nn 3"),
            "n 1\n[... 1 similar line folded ...]\nn 3",
            "an unterminated last line ends the run"
        );
        assert_eq!(
            fold("n 1\r\nn 2\nn 3\r\n"),
            "n 1\r\n[... 1 similar line folded ...]\nn 3\r\n"
        );
    }

    #[test]
    fn lines_no_longer_than_the_marker_stay() {
        let short = "n 1\nn 2\nn 3\nn 4\nn 5\n";
        assert_eq!(fold_unpadded(short), short);
        let long = "n 1\n".to_owned() + &"n 2\n".repeat(12) + "n 3\n";
        assert_eq!(
            fold_unpadded(&long),
            "n 1\n[... 12 similar lines folded (lines 2-13) ...]\nn 3\n",
            "48 bytes of folded lines, a marker of 47"
        );
    }

    #[test]
    fn markers_name_raw_lines_and_stand_for_them() {
        let input = b"head\nrow 1\nrow 2\nrow 3\nrow 4\nrow 5\ntail\n";
        let named = fold_with(&rules(&[], &[]), true, input);
        assert_eq!(
            named,
            "head\nrow 1\n[... 3 similar lines folded (lines 3-5) ...]\nrow 5\ntail\n"
        );
        let input = padded(input);
        let output = run(|| Box::new(Fold::new(rules(&[], &[]), true)), &input, 7);
        assert_eq!(output.merged, [(11 + 2 * PAD.len(), 3)]);
    }

    #[test]
    fn protected_lines_end_runs_and_never_start_one() {
        let protected = rules(&["FAIL"], &[]);
        let input =
            b"t 1 ok\nt 2 ok\nt 3 ok\nt 4 FAIL\nt 5 FAIL\nt 6 FAIL\nt 7 ok\nt 8 ok\nt 9 ok\n";
        assert_eq!(
            fold_with(&protected, false, input),
            "t 1 ok\n[... 1 similar line folded ...]\nt 3 ok\nt 4 FAIL\nt 5 FAIL\nt 6 FAIL\n\
             t 7 ok\n[... 1 similar line folded ...]\nt 9 ok\n"
        );
        // A protected first line stays alone; the next starts the run.
        let input = b"FAIL 1\nn 2\nn 3\nn 4\n";
        assert_eq!(
            fold_with(&rules(&["FAIL"], &["^"]), false, input),
            "FAIL 1\nn 2\n[... 1 similar line folded ...]\nn 4\n"
        );
    }

    #[test]
    fn lines_of_one_class_are_similar() {
        let classes = rules(&[], &["^ +Compiling ", "^test .* ok"]);
        let input = b"   Compiling a v1\n   Compiling bb v2\n   Compiling ccc v3\n\
                      test x ... ok\ntest yy ... ok\ntest zzz ... ok\nCompiling d 1\n";
        assert_eq!(
            fold_with(&classes, false, input),
            "   Compiling a v1\n[... 1 similar line folded ...]\n   Compiling ccc v3\n\
             test x ... ok\n[... 1 similar line folded ...]\ntest zzz ... ok\nCompiling d 1\n"
        );
        // A line of a class and a line of none are never similar.
        let mixed = rules(&[], &["^a 1 "]);
        assert_eq!(
            fold_with(&mixed, false, b"a 1\na 2\na 3\n"),
            "a 1\na 2\na 3\n"
        );
    }

    #[test]
    fn merged_and_long_lines_end_runs() {
        let long = format!("n {}\n", "x".repeat(MAX_COMPARED));
        let input = format!("n 1\nn 2\n{long}{long}{long}n 3\nn 4\n");
        let output = run(
            || Box::new(Fold::new(rules(&[], &[]), false)),
            input.as_bytes(),
            1000,
        );
        assert!(output.bytes == input.as_bytes());
        let mut fold = Fold::new(rules(&[], &[]), true);
        let mut output = crate::transform::testing::Output::default();
        fold.push(&padded(b"n 1\nn 2\n"), &mut output);
        fold.push_merged(b"[marker]\n", 5, &mut output);
        fold.push(&padded(b"n 8\nn 9\nn 10\n"), &mut output);
        fold.finish(&Ending { spill: None }, &mut output);
        assert_eq!(
            String::from_utf8(output.bytes).unwrap().replace(PAD, ""),
            "n 1\nn 2\n[marker]\nn 8\n[... 1 similar line folded (lines 9-9) ...]\nn 10\n"
        );
    }
}
