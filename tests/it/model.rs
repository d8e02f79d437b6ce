//! A reference model of toolcap's output contract, transcribed from the
//! SPEC.md alone: "Output format" (with the escape-sequence cut step and the
//! `ESC[0m` before a marker), the `--head`, `--tail`, `--lines`, `--cut`,
//! `--spill` and `--no-header` rows of "Options", the spill marker wording,
//! and the escape-sequence grammar of "Cleaning and keeping what matters"
//! (which the cut step reads). Filter output only: no `--live`, no
//! wrap-mode status line; cleaning and `--keep` are in `clean_model.rs`.
//!
//! It must not be derived from `src/` (nor from an older model): a misreading
//! shared by the implementation and its model would pass every property
//! test. Every step quotes the spec sentence it implements, in the
//! SPEC.md's order, and is written to be obviously right, not fast (the scans
//! are quadratic at worst; the inputs of tests are small).
//!
//! # Where the spec is ambiguous or silent, and the reading chosen here
//!
//! 1. `h = H` and `t = n - T` when only `--lines` forces a cut (n <= H + T
//!    but L > N): H may exceed n and n - T may be negative. Read as
//!    h = min(H, n) and t = max(n - T, 0): a budget larger than the input
//!    keeps everything from its side, and the line bound then decides.
//! 2. "the end of line k": the position just after the k-th `\n`, so the head
//!    keeps the line's terminator (the user asked for whole lines, and the
//!    head then needs no added `\n`). If line k is the last line and has no
//!    `\n`, its end is n. If the input has fewer than k lines, n (no bound:
//!    there are not that many lines to keep). k = 0 (floor(N/2) = 0, i.e.
//!    N = 0 or 1) gives 0: no head line is kept.
//! 3. "the start of the last m lines": the start of line L - m + 1, just after
//!    the (L - m)-th `\n`. If m >= L, 0 (every line may be kept, no bound).
//!    If m = 0 (N = 0), n: no tail line is kept.
//! 4. The `--lines` bound applies whenever the output is cut, also when bytes
//!    alone forced the cut (L <= N): "the stricter of lines and bytes wins at
//!    each end". So `--lines 4` on a 3-line input that is over the byte
//!    budget still stops the head after line 2. A reader could take
//!    `--lines` to be a no-op when the input has at most N lines.
//! 5. The UTF-8 step at the ends of the input: h never moves before 0, and t
//!    stops at n (there is no B[n], so nothing there is a continuation byte).
//! 6. The UTF-8 step after the `--lines` bound, on invalid input: if a
//!    continuation byte follows the `\n` that ends line floor(N/2), h moves
//!    back over that `\n` (B[h - 1] = `\n` stops it), below the line bound
//!    and mid-line; step 4 then finds no `\n` before it or one a whole line
//!    earlier. Taken literally, since the design notes's "Choices" section
//!    describes exactly this move ("the rules would move the cut back"). The
//!    result is surprising: the marker's `a` names a line whose only omitted
//!    byte is its `\n`. A rule "the UTF-8 step never moves across a `\n`"
//!    would match what a user expects (no character is split there). The
//!    same holds for t moving forward past the start of a line.
//! 7. Step 4 when `B[0:h]` has no `\n`: h stays (it does not move to 0, the
//!    input's start is not a `\n`); when no `\n` is at or after t - 1: t
//!    stays. This is what "a cut inside one giant line stays mid-line" says.
//! 8. `t - 1` (step 4, and `b`): t = 0 never happens once the output is cut,
//!    because t > h >= 0 after every step (step 1 gives h < t: with n > H + T
//!    n - T > H, and with L > N line floor(N/2) ends before the last
//!    N - floor(N/2) lines start; steps 2 to 4 only move h back and t
//!    forward). The model asserts it. The spec could state h < t.
//! 9. An empty head (h = 0: H = 0, `--lines 0` or `1`, or the UTF-8 step
//!    reaching 0): the spec first said only "a `\n` follows the head if
//!    it does not already end with one", which read literally gives an
//!    empty line before the marker. Settled in the spec: the `\n` is added
//!    only to a non-empty head, so the marker follows the header's blank
//!    line directly.
//! 10. Nothing is added after the tail: if B does not end in `\n`, neither
//!     does the output. The marker line always ends in `\n`, also when the
//!     tail is empty.
//! 11. The marker count is plain decimal without separators (the spec's
//!     example prints `40000`), and "1 bytes" stays plural.
//! 12. Step 4's allowance is a quarter of the budgets H and T as given, not
//!     of h or t after steps 1 and 2: with `--lines` and a large H it may
//!     exceed the whole input.
//! 13. `\r` is an ordinary byte; only `\n` ends a line (CRLF lines end at the
//!     `\n`). A `--cut bytes` head ending in `\r` gets the added `\n`, so the
//!     output shows a `\r\n` that was not a line end of the head.
//! 14. n <= H + T with budgets near u64::MAX: H + T is taken without
//!     overflow (saturating), as a user means "a huge budget".
//! 15. Not modelled: the marker `full output not saved: REASON` (the spill
//!     file failed), whose REASON the spec does not define. With a spill
//!     file and an output that fits, the output is still B byte for byte.
//! 16. `Total output lines: {L}` prints the input's line count L, although
//!     its label says "output"; taken as the formula says (L), which is what
//!     the spec's example shows (10000 for the 10,000-line input).
//!
//! Escape sequences (cut step 3, the grammar, the `ESC[0m` rule):
//!
//! 17. "h falls inside an escape sequence": strictly inside, s < h < e for
//!     the sequence B[s:e]. A cut at its ESC (h = s) or just after its last
//!     byte (h = e) is not inside and stays. The same for t.
//! 18. "read from the start of the cut's line, at most 256 bytes back": the
//!     scan starts at max(just after the last `\n` in B[0:p], p - 256) for a
//!     cut at p, so a sequence whose ESC is exactly 256 bytes before the cut
//!     is seen and one 257 bytes back is not. No sequence contains a `\n`
//!     (a `\n` cannot continue one), so "the cut's line" has one meaning.
//!     Only where the scan starts is bounded: a sequence seen in the window
//!     is followed to its end, however far that is (a long OSC moves t far).
//! 19. An ESC inside a string (OSC, DCS, SOS, PM, APC) followed by anything
//!     but `\`: the string ends just before that ESC, which "is itself
//!     text" and so starts a sequence of its own (a terminal's reading too).
//!     An ESC that is the input's last byte inside a string leaves the
//!     string unfinished (it may be the start of `ESC \`): to n.
//! 20. CAN and SUB "cancel a sequence the same way" as any byte that cannot
//!     continue it: the sequence ends before them and they are text (kept
//!     by `--strip-ansi`), also inside strings. BEL ends only an OSC; in a
//!     DCS, SOS, PM or APC it is part of the string.
//! 21. "a string also ends ... after 64 KiB": a string sequence, counted
//!     from its ESC, ends after 65,536 bytes when no terminator has begun by
//!     then; the next byte is text. A CSI has no such limit.
//! 22. A lone ESC before a byte that cannot follow it (a control, DEL, a
//!     byte >= 0x80, another ESC) is a sequence of one byte; an ESC as the
//!     input's last byte is a sequence the input never finishes (to n).
//! 23. An SGR sequence is a complete CSI with final byte `m` and no
//!     intermediate bytes (`ESC[...m`). Its parameters are the parameter
//!     bytes split at `;`; one is 0 when it is empty or all `0` digits
//!     (`ESC[m`, `ESC[00m`, `ESC[;m` turn styles off). Anything else
//!     (`1`, `38:5:1`, `?0`) is "a parameter other than 0", also in
//!     `ESC[1;0m`, whose net effect in a terminal is "off": taken literally
//!     (an extra `ESC[0m` costs nothing).
//! 24. "the text before a marker line": the bytes printed since the
//!     previous marker line (or since the header), i.e. the head for the
//!     first marker and a kept block for a later one (head and block
//!     together when no marker separates them); a marker that resets
//!     styles ends whatever came before it. The `ESC[0m` is outside every
//!     byte count, and the head's added `\n` does not change it.
//! 25. Step 3 does not re-run step 2: t moved past a sequence ended by a
//!     byte >= 0x80 may stop on a continuation byte (the step order is the
//!     SPEC.md's).

/// The options that decide the output, resolved to numbers (SPEC.md, Options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// H, `--head`: bytes kept from the start.
    pub head: u64,
    /// T, `--tail`: bytes kept from the end.
    pub tail: u64,
    /// N of `--lines N`, if given.
    pub lines: Option<u64>,
    /// true: `--cut lines` (the default); false: `--cut bytes`.
    pub cut_lines: bool,
    /// false: `--no-header`.
    pub header: bool,
    /// The spill file's path, if any: the marker then names it.
    pub spill: Option<Vec<u8>>,
}

impl Spec {
    /// Head H and tail T, everything else at its default: `--cut lines`,
    /// with the header, no `--lines`, no spill file.
    pub fn new(head: u64, tail: u64) -> Self {
        Spec {
            head,
            tail,
            lines: None,
            cut_lines: true,
            header: true,
            spill: None,
        }
    }

    /// `--max MAX` alone: "`--head` ... Default floor(max/2)", "`--tail` ...
    /// Default max - head".
    pub fn from_max(max: u64) -> Self {
        let head = max / 2;
        Spec::new(head, max - head)
    }
}

/// Where a cut output is cut, in the spec's letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cuts {
    /// The head is `B[0:h]`.
    pub h: usize,
    /// The tail is `B[t:n]`; `t - h` bytes are omitted, and h < t.
    pub t: usize,
    /// The first omitted line: 1 + the number of `\n` in `B[0:h]`.
    pub a: u64,
    /// The last omitted line: 1 + the number of `\n` in `B[0:t-1]`.
    pub b: u64,
}

/// "the number of `\n`" in `bytes`.
fn newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&byte| byte == b'\n').count() as u64
}

/// "L the line count: the number of `\n` bytes, plus 1 if B is non-empty and
/// does not end in `\n`."
#[allow(non_snake_case)] // B as in the spec
fn line_count(B: &[u8]) -> u64 {
    let plus_one = !B.is_empty() && B.last() != Some(&b'\n');
    newlines(B) + u64::from(plus_one)
}

/// "the end of line k": just after the k-th `\n`, found by scanning; n if
/// there are fewer (ambiguities 2); 0 for k = 0.
#[allow(non_snake_case)] // B as in the spec
fn end_of_line(B: &[u8], k: u64) -> usize {
    if k == 0 {
        return 0;
    }
    let mut seen = 0;
    for (i, &byte) in B.iter().enumerate() {
        if byte == b'\n' {
            seen += 1;
            if seen == k {
                return i + 1;
            }
        }
    }
    B.len()
}

/// "the start of the last m lines": the start of line L - m + 1, which is the
/// end of line L - m; 0 if there are at most m lines, n for m = 0
/// (ambiguities 3).
#[allow(non_snake_case)] // B and L as in the spec
fn start_of_last_lines(B: &[u8], m: u64) -> usize {
    let L = line_count(B);
    if m == 0 {
        return B.len();
    }
    if m >= L {
        return 0;
    }
    end_of_line(B, L - m)
}

/// "a continuation byte (0x80-0xBF)".
fn is_continuation(byte: u8) -> bool {
    (0x80..=0xBF).contains(&byte)
}

/// ESC, which starts every escape sequence.
pub const ESC: u8 = 0x1B;
/// BEL, which ends an OSC string.
const BEL: u8 = 0x07;
/// CAN and SUB "cancel a sequence" (ambiguities 20).
const CAN: u8 = 0x18;
const SUB: u8 = 0x1A;
/// "a string also ends ... after 64 KiB" (ambiguities 21).
pub const STRING_MAX: usize = 64 * 1024;
/// "at most 256 bytes back" (cut step 3).
const ESCAPE_LOOKBACK: usize = 256;

/// Where the escape sequence that starts with the ESC at `B[start]` ends:
/// just after its last byte, or n for a sequence the input never finishes.
/// SPEC.md, "Escape sequences" (7-bit ECMA-48):
///
/// - ESC `[` (CSI): parameter bytes 0x30-0x3F, intermediate bytes
///   0x20-0x2F, a final byte 0x40-0x7E;
/// - ESC `]` (OSC): up to BEL or `ESC \`;
/// - ESC `P`, `X`, `^` or `_` (DCS, SOS, PM, APC): up to `ESC \`;
/// - ESC, intermediate bytes 0x20-0x2F, a final byte 0x30-0x7E.
///
/// "A byte that cannot continue a sequence ends it and is itself text";
/// CAN and SUB cancel it the same way; "a string also ends at a newline
/// and after 64 KiB". Ambiguities 19 to 22.
#[allow(non_snake_case)] // B as in the spec
pub fn escape_end(B: &[u8], start: usize) -> usize {
    assert_eq!(B[start], ESC, "a sequence starts with ESC");
    let n = B.len();
    let in_range = |i: usize, low: u8, high: u8| i < n && (low..=high).contains(&B[i]);
    let mut i = start + 1;
    if i == n {
        return n; // ESC as the last byte: never finished
    }
    match B[i] {
        b'[' => {
            i += 1;
            while in_range(i, 0x30, 0x3F) {
                i += 1;
            }
            while in_range(i, 0x20, 0x2F) {
                i += 1;
            }
            // A final byte ends it after that byte; anything else (or the
            // end of the input, i = n) ends it before.
            if in_range(i, 0x40, 0x7E) { i + 1 } else { i }
        }
        introducer @ (b']' | b'P' | b'X' | b'^' | b'_') => {
            i += 1;
            loop {
                if i - start >= STRING_MAX {
                    return i;
                }
                if i == n {
                    return n;
                }
                match B[i] {
                    BEL if introducer == b']' => return i + 1,
                    b'\n' | CAN | SUB => return i,
                    ESC => {
                        return match B.get(i + 1) {
                            Some(b'\\') => i + 2,
                            Some(_) => i,
                            None => n,
                        };
                    }
                    _ => i += 1,
                }
            }
        }
        0x20..=0x2F => {
            while in_range(i, 0x20, 0x2F) {
                i += 1;
            }
            if in_range(i, 0x30, 0x7E) { i + 1 } else { i }
        }
        0x30..=0x7E => i + 1,
        // A byte that cannot follow ESC: the ESC alone (ambiguities 22).
        _ => i,
    }
}

/// Every escape sequence of `text`, read from its start as text, in order:
/// the ranges `--strip-ansi` removes.
pub fn escape_sequences(text: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] == ESC {
            let end = escape_end(text, i);
            found.push(i..end);
            i = end;
        } else {
            i += 1;
        }
    }
    found
}

/// The escape sequence a cut at `p` falls inside (s < p < e), if one is
/// seen: "The grammar is read from the start of the cut's line, at most 256
/// bytes back, so a sequence that starts further back is not seen"
/// (ambiguities 17, 18).
#[allow(non_snake_case)] // B as in the spec
fn escape_around(B: &[u8], p: usize) -> Option<std::ops::Range<usize>> {
    let line_start = B[0..p]
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |newline| newline + 1);
    let mut i = line_start.max(p.saturating_sub(ESCAPE_LOOKBACK));
    while i < p {
        if B[i] == ESC {
            let end = escape_end(B, i);
            if p < end {
                return Some(i..end);
            }
            i = end;
        } else {
            i += 1;
        }
    }
    None
}

/// Whether `text` "leaves colours or styles on": "the last SGR sequence
/// (`ESC[...m`) in that text has a parameter other than 0" (ambiguities
/// 23). Text without escape sequences never does.
pub fn leaves_style_on(text: &[u8]) -> bool {
    let is_sgr = |range: &std::ops::Range<usize>| {
        let sequence = &text[range.clone()];
        sequence.len() >= 3
            && sequence[1] == b'['
            && sequence.last() == Some(&b'm')
            && sequence[2..sequence.len() - 1]
                .iter()
                .all(|byte| (0x30..=0x3F).contains(byte))
    };
    let Some(last) = escape_sequences(text).into_iter().rfind(is_sgr) else {
        return false;
    };
    let parameters = &text[last.start + 2..last.end - 1];
    parameters
        .split(|&byte| byte == b';')
        .any(|parameter| !parameter.iter().all(|&byte| byte == b'0'))
}

/// "If n <= H + T (and, with `--lines N`, L <= N) the output is B, byte for
/// byte, with nothing added. Empty input gives empty output." (An empty
/// input always fits: n = 0 and L = 0.)
#[allow(non_snake_case)] // B, n, H, T, L, N as in the spec
fn fits(B: &[u8], spec: &Spec) -> bool {
    let n = B.len() as u64;
    let (H, T) = (spec.head, spec.tail);
    let L = line_count(B);
    let bytes_fit = n <= H.saturating_add(T);
    let lines_fit = match spec.lines {
        Some(N) => L <= N,
        None => true,
    };
    B.is_empty() || (bytes_fit && lines_fit)
}

/// The cuts toolcap makes in `input`, or None when the input fits and is
/// printed unchanged. SPEC.md, "The cuts h and t are decided in this order":
///
/// 1. h = H and t = n - T; with `--lines N`, h is at most the end of line
///    floor(N/2) and t at least the start of the last N - floor(N/2) lines.
/// 2. UTF-8: h moves back while B[h] is a continuation byte, t forward while
///    B[t] is one, each at most 3 times.
/// 3. Escape sequences: h back to the ESC of a sequence it falls inside, t
///    forward to just after the end of one, as seen from the cut's line
///    start at most 256 bytes back.
/// 4. `--cut lines`: h back to just after the last `\n` in B[0:h], t forward
///    to just after the first `\n` at or after t-1, each only if that loses
///    at most a quarter of its budget.
///
/// Then a and b count the lines of the omitted bytes.
#[allow(non_snake_case)] // B, n, H, T, N as in the spec
pub fn expected_cuts(input: &[u8], spec: &Spec) -> Option<Cuts> {
    // "Let B be the input, n its length in bytes, H and T the head and tail
    // budgets".
    let B = input;
    let n = B.len();
    let (H, T) = (spec.head, spec.tail);
    if fits(B, spec) {
        return None;
    }

    // Step 1: "h = H and t = n - T." Clamped to 0..=n (ambiguities 1).
    let mut h = if H >= n as u64 { n } else { H as usize };
    let mut t = if T >= n as u64 { 0 } else { n - T as usize };
    // "With `--lines N`, h is at most the end of line floor(N/2) and t at
    // least the start of the last N - floor(N/2) lines."
    if let Some(N) = spec.lines {
        h = h.min(end_of_line(B, N / 2));
        t = t.max(start_of_last_lines(B, N - N / 2));
    }

    // Step 2: "while B[h] is a continuation byte (0x80-0xBF), h moves back,
    // at most 3 times" (never before the start: ambiguities 5).
    let mut moves = 0;
    while moves < 3 && h > 0 && h < n && is_continuation(B[h]) {
        h -= 1;
        moves += 1;
    }
    // "while B[t] is one, t moves forward, at most 3 times" (there is no
    // B[n]: ambiguities 5).
    let mut moves = 0;
    while moves < 3 && t < n && is_continuation(B[t]) {
        t += 1;
        moves += 1;
    }

    // Step 3: "if h falls inside an escape sequence (see Cleaning for the
    // grammar), h moves back to the ESC that starts it; if t falls inside
    // one, t moves forward to just after its last byte (to n, for a
    // sequence the input never finishes)." "Text without ESC bytes is
    // untouched by this step": escape_around finds nothing there.
    if let Some(sequence) = escape_around(B, h) {
        h = sequence.start;
    }
    if let Some(sequence) = escape_around(B, t) {
        t = sequence.end;
    }

    // Step 4: "`--cut lines` (the default): ..." / "`--cut bytes` skips this
    // step."
    if spec.cut_lines {
        // "h moves back to just after the last `\n` in B[0:h] if that loses
        // at most floor(H/4) bytes" (no `\n`: h stays, ambiguities 7).
        if let Some(last) = B[0..h].iter().rposition(|&byte| byte == b'\n') {
            let moved = last + 1;
            let lost = (h - moved) as u64;
            if lost <= H / 4 {
                h = moved;
            }
        }
        // "t moves forward to just after the first `\n` at or after t-1 if
        // that loses at most floor(T/4) bytes" (t >= 1: ambiguities 8).
        assert!(t >= 1, "t = 0 in a cut output: h < t must hold");
        if let Some(offset) = B[t - 1..].iter().position(|&byte| byte == b'\n') {
            let moved = t - 1 + offset + 1;
            let lost = (moved - t) as u64;
            if lost <= T / 4 {
                t = moved;
            }
        }
    }
    assert!(h < t, "the cuts crossed: h = {h}, t = {t}");

    // "a = 1 + the number of `\n` in B[0:h] and b = 1 + the number of `\n` in
    // B[0:t-1]."
    let a = 1 + newlines(&B[0..h]);
    let b = 1 + newlines(&B[0..t - 1]);
    Some(Cuts { h, t, a, b })
}

/// Exactly the bytes toolcap prints for `input` under `spec` (filter mode,
/// without `--live`). SPEC.md, "Output format":
///
/// ```text
/// Warning: truncated output (original token count: {ceil(n/4)})
/// Total output lines: {L}
///
/// {B[0:h]}
/// [... {t-h} bytes truncated ...]
/// {B[t:n]}
/// ```
///
/// with `ESC[0m` at the start of the marker line when the head leaves
/// colours or styles on.
#[allow(non_snake_case)] // B, n, L as in the spec
pub fn expected_output(input: &[u8], spec: &Spec) -> Vec<u8> {
    let B = input;
    let n = B.len();
    // "If n <= H + T (and, with `--lines N`, L <= N) the output is B, byte
    // for byte, with nothing added. Empty input gives empty output."
    let Some(Cuts { h, t, a, b }) = expected_cuts(B, spec) else {
        return B.to_vec();
    };

    let mut out = Vec::new();
    // "Otherwise the output is:" the two header lines and a blank line;
    // "`--no-header`: omit the two header lines and the blank line after
    // them."
    if spec.header {
        let tokens = (n as u64).div_ceil(4);
        let L = line_count(B);
        out.extend_from_slice(
            format!("Warning: truncated output (original token count: {tokens})\n").as_bytes(),
        );
        out.extend_from_slice(format!("Total output lines: {L}\n").as_bytes());
        out.extend_from_slice(b"\n");
    }

    // "{B[0:h]}" and "A `\n` follows the head only if the head is non-empty
    // and does not already end with one." (ambiguities 9)
    let head = &B[0..h];
    out.extend_from_slice(head);
    if !head.is_empty() && !head.ends_with(b"\n") {
        out.extend_from_slice(b"\n");
    }

    // "[... {t-h} bytes truncated ...]", or with a spill file
    // "[... {t-h} bytes truncated (lines {a}-{b}); full output in {PATH} ...]",
    // on a line of its own. "When the text before a marker line (the head,
    // or kept lines) leaves colours or styles on, the marker line starts
    // with `ESC[0m`".
    if leaves_style_on(head) {
        out.extend_from_slice(b"\x1b[0m");
    }
    out.extend_from_slice(format!("[... {} bytes truncated", t - h).as_bytes());
    if let Some(path) = &spec.spill {
        out.extend_from_slice(format!(" (lines {a}-{b}); full output in ").as_bytes());
        out.extend_from_slice(marker_path(path).as_bytes());
    }
    out.extend_from_slice(b" ...]\n");

    // "{B[t:n]}", with nothing after it (ambiguities 10).
    out.extend_from_slice(&B[t..n]);
    out
}

/// "PATH is absolute; a control character in it is escaped (`\n`, `\r`,
/// `\t`, `\xNN`), and so is each byte of invalid UTF-8 (`\xNN`), so the
/// marker stays one line of valid UTF-8."
fn marker_path(path: &[u8]) -> String {
    let mut text = String::new();
    for chunk in path.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => text.push_str("\\n"),
                '\r' => text.push_str("\\r"),
                '\t' => text.push_str("\\t"),
                c if c.is_control() => {
                    for byte in c.encode_utf8(&mut [0; 4]).bytes() {
                        text.push_str(&format!("\\x{byte:02x}"));
                    }
                }
                c => text.push(c),
            }
        }
        for byte in chunk.invalid() {
            text.push_str(&format!("\\x{byte:02x}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use crate::clean_model::CleanSpec;

    use super::{
        Cuts, STRING_MAX, Spec, escape_end, escape_sequences, expected_cuts, expected_output,
        leaves_style_on,
    };

    /// The model's output and cuts for `input` are exactly `output` and
    /// `cuts`, shown escaped, so a difference in invisible bytes reads;
    /// and the program prints `output` too.
    fn check(input: &[u8], spec: &Spec, cuts: Option<Cuts>, output: &[u8]) {
        assert_eq!(expected_cuts(input, spec), cuts, "cuts");
        assert_eq!(
            expected_output(input, spec).escape_ascii().to_string(),
            output.escape_ascii().to_string(),
            "output"
        );
        crate::program::prints(input, &CleanSpec::new(spec.clone()), output);
    }

    fn cuts(h: usize, t: usize, a: u64, b: u64) -> Option<Cuts> {
        Some(Cuts { h, t, a, b })
    }

    fn cut_bytes(spec: Spec) -> Spec {
        Spec {
            cut_lines: false,
            ..spec
        }
    }

    fn lines(n: u64, spec: Spec) -> Spec {
        Spec {
            lines: Some(n),
            ..spec
        }
    }

    #[test]
    fn from_max_splits_the_budget_as_the_options_table_says() {
        // "Default `10k`" = 10,000 bytes; head floor(max/2), tail max - head.
        assert_eq!(Spec::from_max(10_000), Spec::new(5_000, 5_000));
        assert_eq!(Spec::from_max(7), Spec::new(3, 4));
    }

    #[test]
    fn readme_example_10000_lines_of_abcd() {
        // "10,000 lines of `abcd\n` with the defaults give `original token
        // count: 12500`, `Total output lines: 10000`, the first 1,000 lines,
        // `[... 40000 bytes truncated ...]`, and the last 1,000 lines."
        // n = 50,000; h = 5,000 and t = 45,000 are line starts, so no step
        // moves them; a = line 1001, b = the line of byte 44,999 = 9000.
        let input = b"abcd\n".repeat(10_000);
        let mut output = b"Warning: truncated output (original token count: 12500)\n\
              Total output lines: 10000\n\n"
            .to_vec();
        output.extend(b"abcd\n".repeat(1_000));
        output.extend(b"[... 40000 bytes truncated ...]\n");
        output.extend(b"abcd\n".repeat(1_000));
        check(
            &input,
            &Spec::from_max(10_000),
            cuts(5_000, 45_000, 1001, 9000),
            &output,
        );
    }

    #[test]
    fn readme_example_with_a_spill_file_names_the_omitted_lines() {
        // The same cut; the marker adds lines 1001-9000 (8,000 lines of 5
        // bytes = the 40,000 omitted bytes) and the path.
        let input = b"abcd\n".repeat(10_000);
        let spec = Spec {
            spill: Some(b"/tmp/toolcap.log".to_vec()),
            ..Spec::from_max(10_000)
        };
        let mut output = b"Warning: truncated output (original token count: 12500)\n\
              Total output lines: 10000\n\n"
            .to_vec();
        output.extend(b"abcd\n".repeat(1_000));
        output.extend(
            b"[... 40000 bytes truncated (lines 1001-9000); full output in /tmp/toolcap.log ...]\n",
        );
        output.extend(b"abcd\n".repeat(1_000));
        check(&input, &spec, cuts(5_000, 45_000, 1001, 9000), &output);
    }

    #[test]
    fn empty_input_gives_empty_output() {
        // "Empty input gives empty output", whatever the budgets: n = 0 and
        // L = 0 fit even H = T = 0 and `--lines 0`.
        for spec in [
            Spec::new(0, 0),
            lines(0, Spec::new(0, 0)),
            Spec {
                spill: Some(b"/tmp/x".to_vec()),
                ..Spec::new(0, 0)
            },
        ] {
            check(b"", &spec, None, b"");
        }
    }

    #[test]
    fn input_exactly_at_the_budget_passes_unchanged() {
        // n = 8 = H + T, L = 2 <= N = 2: B byte for byte, nothing added.
        let input = b"abc\ndef\n";
        check(input, &Spec::new(4, 4), None, input);
        check(input, &cut_bytes(Spec::new(4, 4)), None, input);
        check(input, &lines(2, Spec::new(4, 4)), None, input);
        // No header, no newline added to an unterminated last line.
        check(b"abcdefg", &Spec::new(3, 4), None, b"abcdefg");
    }

    #[test]
    fn at_the_byte_budget_but_over_the_line_cap_is_cut() {
        // n = 8 = H + T but L = 2 > N = 1. Step 1: h = min(4, end of line 0
        // = 0) = 0, t = max(8 - 4, start of the last line = 4) = 4. Empty
        // head, so a `\n` follows it; b = 1 + newlines("abc") = 1.
        check(
            b"abc\ndef\n",
            &lines(1, Spec::new(4, 4)),
            cuts(0, 4, 1, 1),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 2\n\n\
              [... 4 bytes truncated ...]\n\
              def\n",
        );
    }

    #[test]
    fn one_byte_over_the_budget() {
        // n = 7 > 3 + 3: h = 3, t = 4, one giant line so step 3 moves
        // nothing. ceil(7/4) = 2 tokens, L = 1; the head "abc" gets a `\n`,
        // the tail "efg" gets none.
        check(
            b"abcdefg",
            &Spec::new(3, 3),
            cuts(3, 4, 1, 1),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 1\n\n\
              abc\n\
              [... 1 bytes truncated ...]\n\
              efg",
        );
    }

    #[test]
    fn line_cuts_move_by_at_most_a_quarter_of_the_budget() {
        // "ab\ncd\nef\n", H = T = 4: h = 4, t = 5. The last `\n` in
        // B[0:4] = "ab\nc" is at 2: h = 3 loses 1 <= floor(4/4). The first
        // `\n` at or after t-1 = 4 is at 5: t = 6 loses 1 <= 1. Omitted
        // "cd\n", line 2 only: a = 1 + 1, b = 1 + newlines("ab\ncd") = 2.
        check(
            b"ab\ncd\nef\n",
            &Spec::new(4, 4),
            cuts(3, 6, 2, 2),
            b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 3\n\n\
              ab\n\
              [... 3 bytes truncated ...]\n\
              ef\n",
        );
    }

    #[test]
    fn line_cut_losing_more_than_a_quarter_stays_at_the_byte() {
        // "a\nb\nc\nd\n", H = T = 3: h = 3, t = 5; floor(3/4) = 0 allows no
        // loss, and both moves would lose 1. Omitted B[3:5] = "\nc": the end
        // of line 2 and line 3, a = 2, b = 1 + newlines("a\nb\n") = 3.
        check(
            b"a\nb\nc\nd\n",
            &Spec::new(3, 3),
            cuts(3, 5, 2, 3),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 4\n\n\
              a\nb\n\
              [... 2 bytes truncated ...]\n\
              \nd\n",
        );
    }

    #[test]
    fn no_header_and_a_spill_marker() {
        // The cut of `line_cuts_move_by_at_most_a_quarter_of_the_budget`,
        // without the two header lines and the blank line, with the marker
        // naming lines 2-2 and the path, whose bytes need not be UTF-8: an
        // invalid byte is named as `\xNN`, so the marker stays valid UTF-8.
        let spec = Spec {
            header: false,
            spill: Some(b"/tmp/full\xff.log".to_vec()),
            ..Spec::new(4, 4)
        };
        check(
            b"ab\ncd\nef\n",
            &spec,
            cuts(3, 6, 2, 2),
            b"ab\n\
              [... 3 bytes truncated (lines 2-2); full output in /tmp/full\\xff.log ...]\n\
              ef\n",
        );
    }

    #[test]
    fn multibyte_characters_straddling_both_cuts() {
        // "a€xy€z" (€ = E2 82 AC), n = 10, H = T = 2: h = 2 is B[2] = 0x82,
        // back once to the E2 at 1; t = 8 is B[8] = 0xAC, forward once to
        // 'z' at 9. No `\n`, so `--cut lines` changes nothing.
        let input = b"a\xe2\x82\xacxy\xe2\x82\xacz";
        let output = b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 1\n\n\
              a\n\
              [... 8 bytes truncated ...]\n\
              z";
        check(input, &cut_bytes(Spec::new(2, 2)), cuts(1, 9, 1, 1), output);
        check(input, &Spec::new(2, 2), cuts(1, 9, 1, 1), output);
    }

    #[test]
    fn four_byte_characters_take_all_three_moves() {
        // "😀xxxx😀" (😀 = F0 9F 98 80), n = 12. H = 3, T = 5: h = 3 moves
        // back 3 times to 0 (an empty head: no `\n` is added); t = 7 is 'x'.
        let input = b"\xf0\x9f\x98\x80xxxx\xf0\x9f\x98\x80";
        check(
            input,
            &Spec::new(3, 5),
            cuts(0, 7, 1, 1),
            b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 1\n\n\
              [... 7 bytes truncated ...]\n\
              x\xf0\x9f\x98\x80",
        );
        // H = 5, T = 3: h = 5 is 'x'; t = 9 moves forward 3 times to 12 = n:
        // the tail is empty, the marker line still ends in `\n`.
        check(
            input,
            &Spec::new(5, 3),
            cuts(5, 12, 1, 1),
            b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 1\n\n\
              \xf0\x9f\x98\x80x\n\
              [... 7 bytes truncated ...]\n",
        );
    }

    #[test]
    fn invalid_continuation_bytes_at_the_cuts() {
        // "a" + five 0x80 + "b", H = 5, T = 1: h = 5 moves back 3 times to
        // 2, where B[2] is still 0x80 but the moves are spent; t = 6 is 'b'.
        check(
            b"a\x80\x80\x80\x80\x80b",
            &Spec::new(5, 1),
            cuts(2, 6, 1, 1),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 1\n\n\
              a\x80\n\
              [... 4 bytes truncated ...]\n\
              b",
        );
        // "a" + five 0x80, H = 1, T = 4: h = 1 moves back once to 0 and
        // stops at the start; t = 2 moves forward 3 times to 5, still 0x80.
        check(
            b"a\x80\x80\x80\x80\x80",
            &Spec::new(1, 4),
            cuts(0, 5, 1, 1),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 1\n\n\
              [... 5 bytes truncated ...]\n\
              \x80",
        );
    }

    #[test]
    fn a_giant_line_redrawn_with_cr_stays_cut_mid_line() {
        // "10%\r20%\r30%\r40%\r50%\n", n = 20, one line. H = T = 6: h = 6
        // has no `\n` before it; t = 14, the first `\n` at or after 13 is at
        // 19, t = 20 would lose 6 > floor(6/4) = 1. Both stay mid-line.
        check(
            b"10%\r20%\r30%\r40%\r50%\n",
            &Spec::new(6, 6),
            cuts(6, 14, 1, 1),
            b"Warning: truncated output (original token count: 5)\n\
              Total output lines: 1\n\n\
              10%\r20\n\
              [... 8 bytes truncated ...]\n\
              %\r50%\n",
        );
    }

    #[test]
    fn crlf_lines_end_at_the_lf() {
        // "ab\r\ncd\r\nef\r\n", n = 12, L = 3, H = T = 5: h = 5, t = 7.
        // `--cut lines`: h back to 4 (after the `\n` at 3, loses 1 <=
        // floor(5/4)); t-1 = 6 is `\r`, the first `\n` is at 7, t = 8 loses
        // 1. a = 1 + 1, b = 1 + newlines("ab\r\ncd\r") = 2.
        let input = b"ab\r\ncd\r\nef\r\n";
        check(
            input,
            &Spec::new(5, 5),
            cuts(4, 8, 2, 2),
            b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 3\n\n\
              ab\r\n\
              [... 4 bytes truncated ...]\n\
              ef\r\n",
        );
        // `--cut bytes`: h = 5 after the 'c', which gets a `\n`; the tail
        // starts with the bare `\n` of line 2.
        check(
            input,
            &cut_bytes(Spec::new(5, 5)),
            cuts(5, 7, 2, 2),
            b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 3\n\n\
              ab\r\nc\n\
              [... 2 bytes truncated ...]\n\
              \nef\r\n",
        );
    }

    #[test]
    fn lines_one_keeps_no_head_line_and_the_last_line() {
        // "one\ntwo\nthree\n", n = 14 fits H = T = 5000 but L = 3 > N = 1.
        // floor(1/2) = 0: h = min(14, end of line 0 = 0) = 0; t = max(0,
        // start of the last line = 8) = 8. Lines 1-2 omitted: b = 1 +
        // newlines("one\ntwo") = 2.
        check(
            b"one\ntwo\nthree\n",
            &lines(1, Spec::new(5_000, 5_000)),
            cuts(0, 8, 1, 2),
            b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 3\n\n\
              [... 8 bytes truncated ...]\n\
              three\n",
        );
    }

    #[test]
    fn lines_zero_keeps_nothing() {
        // N = 0: h = end of line 0 = 0, t = start of the last 0 lines = n.
        check(
            b"x\ny\n",
            &lines(0, Spec::new(5_000, 5_000)),
            cuts(0, 4, 1, 2),
            b"Warning: truncated output (original token count: 1)\n\
              Total output lines: 2\n\n\
              [... 4 bytes truncated ...]\n",
        );
    }

    #[test]
    fn the_stricter_of_lines_and_bytes_wins_at_each_end() {
        // "a\nb\nc\nd\n", H = T = 3, N = 2: h = min(3, end of line 1 = 2) =
        // 2, t = max(5, start of the last line = 6) = 6. Lines 2-3 omitted.
        check(
            b"a\nb\nc\nd\n",
            &lines(2, Spec::new(3, 3)),
            cuts(2, 6, 2, 3),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 4\n\n\
              a\n\
              [... 4 bytes truncated ...]\n\
              d\n",
        );
    }

    #[test]
    fn the_line_bound_applies_when_bytes_alone_force_the_cut() {
        // "a\nb\nccccccccc\n", n = 14 > 10 + 2, L = 3 <= N = 4. With N = 4,
        // h = min(10, end of line 2 = 4) = 4; t = max(12, start of the last
        // 2 lines = 2) = 12, and t = 14 would lose 2 > floor(2/4).
        let input = b"a\nb\nccccccccc\n";
        check(
            input,
            &lines(4, Spec::new(10, 2)),
            cuts(4, 12, 3, 3),
            b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 3\n\n\
              a\nb\n\
              [... 8 bytes truncated ...]\n\
              c\n",
        );
        // Without `--lines`: h = 10, and back to 4 would lose 6 >
        // floor(10/4) = 2, so the head stays mid-line.
        check(
            input,
            &Spec::new(10, 2),
            cuts(10, 12, 3, 3),
            b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 3\n\n\
              a\nb\ncccccc\n\
              [... 2 bytes truncated ...]\n\
              c\n",
        );
    }

    #[test]
    fn a_line_cap_above_the_line_count_bounds_nothing() {
        // "aaaa\nbbbb\ncccc", L = 3, N = 10: line 5 does not exist (no
        // bound on h), the last 5 lines start at 0 (no bound on t). The same
        // as without `--lines`: h = 4 (no `\n` before it), t = 10 (B[9] is
        // `\n`, loses 0); the unterminated tail gets no `\n`.
        let input = b"aaaa\nbbbb\ncccc";
        let output = b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 3\n\n\
              aaaa\n\
              [... 6 bytes truncated ...]\n\
              cccc";
        check(
            input,
            &lines(10, Spec::new(4, 4)),
            cuts(4, 10, 1, 2),
            output,
        );
        check(input, &Spec::new(4, 4), cuts(4, 10, 1, 2), output);
    }

    #[test]
    fn zero_head_or_zero_tail_budget() {
        // H = 0: h = 0, an empty head (no `\n` added); t = 4 follows a `\n`.
        check(
            b"abc\ndef\n",
            &Spec::new(0, 4),
            cuts(0, 4, 1, 1),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 2\n\n\
              [... 4 bytes truncated ...]\n\
              def\n",
        );
        // T = 0: t = n = 8, empty tail; the head "abc\n" needs no `\n`.
        check(
            b"abc\ndef\n",
            &Spec::new(4, 0),
            cuts(4, 8, 2, 2),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 2\n\n\
              abc\n\
              [... 4 bytes truncated ...]\n",
        );
    }

    #[test]
    fn the_utf8_step_moves_h_back_across_the_line_bound_on_invalid_input() {
        // "ab\n" 0x80 "c\nef\n", n = 9 fits H = T = 100, L = 3 > N = 2.
        // Step 1: h = end of line 1 = 3, t = start of line 3 = 6. Step 2:
        // B[3] = 0x80, so h moves back to 2 (B[2] = `\n` stops it). Step 3:
        // no `\n` in "ab", h stays. Line 1's `\n` is omitted, so a = 1.
        check(
            b"ab\n\x80c\nef\n",
            &lines(2, Spec::new(100, 100)),
            cuts(2, 6, 1, 2),
            b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 3\n\n\
              ab\n\
              [... 4 bytes truncated ...]\n\
              ef\n",
        );
    }

    #[test]
    fn escape_sequences_end_where_the_grammar_says() {
        // (input, end of the sequence that starts at 0)
        let cases: &[(&[u8], usize)] = &[
            // CSI: parameters, intermediates, a final byte.
            (b"\x1b[1;31mx", 7),
            (b"\x1b[mx", 3),
            (b"\x1b[1 qx", 5),
            // A byte that cannot continue ends it and is text.
            (b"\x1b[3\nx", 3),
            (b"\x1b[1 2m", 4), // a parameter byte after an intermediate
            (b"\x1b[1\x18m", 3),
            (b"\x1b[1\x1am", 3),
            (b"\x1b[1\x80m", 3),
            (b"\x1b[1\x1b[m", 3), // the second ESC starts its own
            // The input ends first: to n.
            (b"\x1b[3", 3),
            (b"\x1b", 1),
            // OSC: up to BEL or ESC \, ended early by a newline, CAN, SUB.
            (b"\x1b]0;t\x07x", 6),
            (b"\x1b]0;t\x1b\\x", 7),
            (b"\x1b]0;t\nx", 5),
            (b"\x1b]0;\x18x", 4),
            (b"\x1b]0;\x1ax", 4),
            (b"\x1b]0;t\x1b[1m", 5), // ambiguities 19
            (b"\x1b]0;t\x1b", 6),    // ESC last: unfinished
            (b"\x1b]0;t", 5),
            // DCS, SOS, PM, APC: only ESC \ ends them; BEL is content.
            (b"\x1bP1$q\x07m\x1b\\x", 9),
            (b"\x1bXsos\x1b\\", 7),
            (b"\x1b^pm\x07\x1b\\x", 7),
            (b"\x1b_apc\nx", 5),
            // Intermediates and a final byte 0x30-0x7E.
            (b"\x1b(Bx", 3),
            (b"\x1b7x", 2),
            (b"\x1b\\x", 2),
            (b"\x1b(\nx", 2),
            (b"\x1b( \x7fx", 3),
            // A byte that cannot follow ESC: the ESC alone (ambiguities 22).
            (b"\x1b\x9bx", 1),
            (b"\x1b\x1b[m", 1),
            (b"\x1b\nx", 1),
            (b"\x1b\x7fx", 1),
        ];
        for &(input, end) in cases {
            assert_eq!(escape_end(input, 0), end, "{}", input.escape_ascii());
        }
    }

    #[test]
    fn a_string_ends_after_64_kib() {
        // ESC ] and 70,000 bytes of x: the sequence is the first 65,536
        // bytes; the rest is text (ambiguities 21). A CSI has no limit.
        let mut osc = b"\x1b]".to_vec();
        osc.extend(vec![b'x'; 70_000]);
        assert_eq!(escape_end(&osc, 0), STRING_MAX);
        let mut csi = b"\x1b[".to_vec();
        csi.extend(vec![b'1'; 70_000]);
        csi.push(b'm');
        assert_eq!(escape_end(&csi, 0), csi.len());
    }

    #[test]
    fn escape_sequences_are_read_from_the_start_as_text() {
        // "a" CSI "b" lone-ESC "\n" OSC(ended by `\n`) "\n" ESC(at the end).
        let text = b"a\x1b[1mb\x1b\n\x1b]x\n\x1b";
        assert_eq!(escape_sequences(text), vec![1..5, 6..7, 8..11, 12..13]);
    }

    #[test]
    fn which_text_leaves_styles_on() {
        let cases: &[(&[u8], bool)] = &[
            (b"", false),
            (b"plain [31m text", false),
            (b"\x1b[31mred", true),
            (b"\x1b[31mred\x1b[0m", false),
            (b"\x1b[31mred\x1b[m", false),
            (b"\x1b[31mred\x1b[00m", false),
            (b"\x1b[31mred\x1b[;m", false),
            (b"\x1b[0;0m", false),
            // "has a parameter other than 0", taken literally.
            (b"\x1b[1;0m", true),
            (b"\x1b[38:5:1m", true),
            // Only SGR counts: EL, an intermediate, an unfinished CSI, OSC.
            (b"\x1b[31mred\x1b[K", true),
            (b"\x1b[0mx\x1b[1K", false),
            (b"\x1b[31 m", false),
            (b"\x1b[31", false),
            (b"\x1b]0;\x1b[31m\x07", true), // the OSC ends at the inner ESC
            (b"\x1b]0;title\x07", false),
        ];
        for &(text, on) in cases {
            assert_eq!(leaves_style_on(text), on, "{}", text.escape_ascii());
        }
    }

    #[test]
    fn a_head_cut_inside_a_csi_moves_back_to_its_esc() {
        // "ab" ESC "[31mcdefgh", n = 13, H = 4, T = 2: h = 4 is inside the
        // sequence at 2..7, back to 2; t = 11 is 'g'. No `\n`: step 4
        // changes nothing. The head "ab" has no SGR: no ESC[0m.
        let input = b"ab\x1b[31mcdefgh";
        let output = b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 1\n\n\
              ab\n\
              [... 9 bytes truncated ...]\n\
              gh";
        check(input, &Spec::new(4, 2), cuts(2, 11, 1, 1), output);
        check(
            input,
            &cut_bytes(Spec::new(4, 2)),
            cuts(2, 11, 1, 1),
            output,
        );
    }

    #[test]
    fn a_tail_cut_inside_a_csi_moves_past_its_end() {
        // "abcdefgh" ESC "[1mXY", n = 14, H = 2, T = 4: t = 10 is inside the
        // sequence at 8..12, forward to 12.
        check(
            b"abcdefgh\x1b[1mXY",
            &Spec::new(2, 4),
            cuts(2, 12, 1, 1),
            b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 1\n\n\
              ab\n\
              [... 10 bytes truncated ...]\n\
              XY",
        );
    }

    #[test]
    fn a_cut_at_the_edge_of_a_sequence_stays() {
        // "ab" ESC "[1mcd", H = 2, T = 2: h = 2 is at the ESC, t = 6 just
        // after the `m`: neither is inside (ambiguities 17).
        check(
            b"ab\x1b[1mcd",
            &Spec::new(2, 2),
            cuts(2, 6, 1, 1),
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 1\n\n\
              ab\n\
              [... 4 bytes truncated ...]\n\
              cd",
        );
    }

    #[test]
    fn a_tail_cut_inside_an_osc_moves_past_its_bel() {
        // "ab" ESC "]0;title" BEL "cd", n = 14, H = 1, T = 5: t = 9 is in
        // the OSC at 2..12 (BEL included), forward to 12.
        check(
            b"ab\x1b]0;title\x07cd",
            &Spec::new(1, 5),
            cuts(1, 12, 1, 1),
            b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 1\n\n\
              a\n\
              [... 11 bytes truncated ...]\n\
              cd",
        );
    }

    #[test]
    fn a_sequence_the_input_never_finishes_takes_t_to_n() {
        // "abcdef" ESC "]0;unfinished", n = 20, H = 3, T = 4: t = 16 is in
        // the OSC at 6..20 that never ends: t = n, an empty tail.
        check(
            b"abcdef\x1b]0;unfinished",
            &Spec::new(3, 4),
            cuts(3, 20, 1, 1),
            b"Warning: truncated output (original token count: 5)\n\
              Total output lines: 1\n\n\
              abc\n\
              [... 17 bytes truncated ...]\n",
        );
    }

    #[test]
    fn a_sequence_more_than_256_bytes_back_is_not_seen() {
        // ESC "]" + 400 x + BEL "end", n = 406, T = 3 (t = 403 = 'e').
        // H = 256: the ESC at 0 is exactly 256 bytes back, seen: h = 0, an
        // empty head. H = 257: the scan starts at 1, the OSC is not seen
        // and h stays inside it (ambiguities 18).
        let mut input = b"\x1b]".to_vec();
        input.extend(vec![b'x'; 400]);
        input.extend(b"\x07end");
        let header = b"Warning: truncated output (original token count: 102)\n\
              Total output lines: 1\n\n"
            .to_vec();
        let mut output = header.clone();
        output.extend(b"[... 403 bytes truncated ...]\nend");
        check(&input, &Spec::new(256, 3), cuts(0, 403, 1, 1), &output);
        let mut output = header;
        output.extend(&input[..257]);
        output.extend(b"\n[... 146 bytes truncated ...]\nend");
        check(&input, &Spec::new(257, 3), cuts(257, 403, 1, 1), &output);
    }

    #[test]
    fn a_broken_sequence_moves_h_back_then_lines_apply() {
        // "abc" ESC "[3\ndef\n": the `\n` ends the sequence at 3..6 and is
        // text. H = 5: h = 5 is inside, back to 3; step 4 finds no `\n`
        // before 3. T = 4: t = 7, the first `\n` at or after 6 is at 6, so t
        // stays 7 (loses 0).
        check(
            b"abc\x1b[3\ndef\n",
            &Spec::new(5, 4),
            cuts(3, 7, 1, 1),
            b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 2\n\n\
              abc\n\
              [... 4 bytes truncated ...]\n\
              def\n",
        );
    }

    #[test]
    fn the_escape_step_does_not_rerun_the_utf8_step() {
        // "abcd" ESC "[1" 0x80 "xy", n = 10, H = 2, T = 4: t = 6 ('1') is
        // not a continuation byte; step 3 moves it past the sequence at
        // 4..7, onto the 0x80, where it stays (ambiguities 25).
        check(
            b"abcd\x1b[1\x80xy",
            &cut_bytes(Spec::new(2, 4)),
            cuts(2, 7, 1, 1),
            b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 1\n\n\
              ab\n\
              [... 5 bytes truncated ...]\n\
              \x80xy",
        );
    }

    #[test]
    fn a_head_that_leaves_a_colour_on_gets_esc_0m_before_the_marker() {
        // ESC "[1;31mabcdef" ESC "[0mxyz", n = 20, H = 10, T = 3: h = 10
        // (after 'c'), t = 17. The head's last SGR, "1;31", is on.
        let input = b"\x1b[1;31mabcdef\x1b[0mxyz";
        check(
            input,
            &Spec::new(10, 3),
            cuts(10, 17, 1, 1),
            b"Warning: truncated output (original token count: 5)\n\
              Total output lines: 1\n\n\
              \x1b[1;31mabc\n\
              \x1b[0m[... 7 bytes truncated ...]\n\
              xyz",
        );
        // The same with a spill file: the whole marker line follows ESC[0m.
        let spec = Spec {
            spill: Some(b"/tmp/log".to_vec()),
            ..Spec::new(10, 3)
        };
        check(
            input,
            &spec,
            cuts(10, 17, 1, 1),
            b"Warning: truncated output (original token count: 5)\n\
              Total output lines: 1\n\n\
              \x1b[1;31mabc\n\
              \x1b[0m[... 7 bytes truncated (lines 1-1); full output in /tmp/log ...]\n\
              xyz",
        );
    }

    #[test]
    fn a_head_that_resets_its_colour_gets_no_esc_0m() {
        // ESC "[32mok" ESC "[0m\n" then "zzzz\n", n = 17, H = 12, T = 4:
        // h = 12, just after the head's `\n`. t = 13: the first `\n` at or
        // after 12 is at 16, and t = 17 would lose 4 > floor(4/4), so t
        // stays. The head's last SGR, ESC[0m, is off.
        check(
            b"\x1b[32mok\x1b[0m\nzzzz\n",
            &Spec::new(12, 4),
            cuts(12, 13, 2, 2),
            b"Warning: truncated output (original token count: 5)\n\
              Total output lines: 2\n\n\
              \x1b[32mok\x1b[0m\n\
              [... 1 bytes truncated ...]\n\
              zzz\n",
        );
    }
}
