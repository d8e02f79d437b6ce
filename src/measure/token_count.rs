//! The header's real token count of a stream, counted as it passes, on a
//! thread of its own so that reading, spilling and capping go on meanwhile.
//!
//! A stream's count is the sum of its segments' counts when each segment
//! ends where the pretokenizer of o200k and cl100k always ends a piece and
//! starts the next afresh: after `\n` or `\r` followed by a printable ASCII
//! character other than `/` (no piece runs across it: whitespace pieces
//! stop at the printable character, punctuation pieces take trailing `\r`,
//! `\n` and `/` only), and between an ASCII letter or digit and a space
//! (letter and digit pieces stop at the space, which starts the next
//! piece). A stretch of 1 MiB without such a place is split at a character
//! boundary all the same, and the count is then marked as an estimate.
//!
//! Only the first `limit` bytes are counted (up to the last such place at
//! or before it); the rest is extrapolated at the counted part's tokens per
//! byte. Where segments end depends on the content only, never on how the
//! stream was read, so the count is the same for every chunking.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use memchr::memchr3_iter;

use super::Vocabulary;
use crate::vocab::utf8::is_continuation;

/// The longest stretch without a safe place that is held before it is
/// split anyway.
const MAX_SEGMENT: u64 = 1 << 20;

/// Segments handed to the counting thread are about this long.
const SEND_SIZE: usize = 256 * 1024;

/// Segments waiting for the counting thread, at most: when it falls this
/// far behind, the reader waits for it.
const QUEUE: usize = 4;

/// The token count of a whole stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TokenTotal {
    pub(crate) tokens: u64,
    /// Extrapolated past the count limit, or a stretch had to be split
    /// where a piece could run on.
    pub(crate) estimated: bool,
}

pub(crate) struct TokenCount {
    vocabulary: Vocabulary,
    limit: u64,
    /// The stream from offset `counted_to` on, not yet handed over.
    pending: Vec<u8>,
    /// Where `pending` starts: everything before it is counted.
    counted_to: u64,
    /// The stream's length so far.
    seen: u64,
    /// The last place a segment may end, and whether it was forced.
    last_break: u64,
    /// Breaks are found up to here.
    searched_to: u64,
    forced: bool,
    /// The counted part reached the limit: the rest is only measured.
    full: bool,
    worker: Option<Worker>,
    /// Counted on this thread (a stream too short to need the worker).
    tokens: u64,
}

struct Worker {
    segments: SyncSender<Vec<u8>>,
    total: JoinHandle<u64>,
}

impl TokenCount {
    pub(crate) fn new(vocabulary: Vocabulary, limit: u64) -> TokenCount {
        TokenCount {
            vocabulary,
            limit,
            pending: Vec::new(),
            counted_to: 0,
            seen: 0,
            last_break: 0,
            searched_to: 0,
            forced: false,
            full: false,
            worker: None,
            tokens: 0,
        }
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) {
        if self.full || chunk.is_empty() {
            self.seen += chunk.len() as u64;
            return;
        }
        self.seen += chunk.len() as u64;
        self.pending.extend_from_slice(chunk);
        // Breaks are known up to the last byte but one (a break needs the
        // byte after it), and never looked for past the limit.
        let known = (self.seen - 1).min(self.limit);
        self.find_breaks(known);
        if self.seen > self.limit {
            if self.last_break == 0 {
                // A limit shorter than a stretch, with no break in it.
                self.last_break = self.split_point(self.limit);
                self.forced = true;
            }
            self.hand_over(self.last_break);
            self.full = true;
            self.pending = Vec::new();
        } else if self.last_break - self.counted_to >= SEND_SIZE as u64 {
            self.hand_over(self.last_break);
        }
    }

    /// Finds the breaks up to `known` (see the module's note), forcing one
    /// into each stretch of [`MAX_SEGMENT`] (or of the limit) without any.
    fn find_breaks(&mut self, known: u64) {
        if known <= self.searched_to {
            return;
        }
        let from = self.searched_to.max(self.counted_to);
        let window = &self.pending[(from - self.counted_to) as usize..];
        let places: Vec<u64> = memchr3_iter(b'\n', b'\r', b' ', window)
            .map(|at| from + at as u64 + u64::from(window[at] != b' '))
            .take_while(|&place| place <= known)
            .filter(|&place| place > self.searched_to && self.is_break(place))
            .collect();
        for place in places {
            self.force_breaks(place);
            self.last_break = self.last_break.max(place);
        }
        self.force_breaks(known);
        self.searched_to = known;
    }

    /// Whether a segment may end at `place` (`counted_to < place < seen`).
    fn is_break(&self, place: u64) -> bool {
        let byte = |offset: u64| self.pending[(offset - self.counted_to) as usize];
        place > self.counted_to && is_break(byte(place - 1), byte(place))
    }

    /// Forces breaks into the stretch before `to` wherever [`MAX_SEGMENT`]
    /// bytes (or the limit's, if fewer) have none.
    fn force_breaks(&mut self, to: u64) {
        let longest = MAX_SEGMENT.min(self.limit).max(1);
        while to - self.last_break > longest {
            self.last_break = self.split_point(self.last_break + longest);
            self.forced = true;
        }
    }

    /// `target`, moved back before the character it falls inside, so that
    /// a split there keeps characters (and invalid sequences) whole; but
    /// never back to the last break.
    fn split_point(&self, target: u64) -> u64 {
        let byte = |offset: u64| self.pending[(offset - self.counted_to) as usize];
        let mut at = target;
        while at + 3 > target && at > self.last_break + 1 && is_continuation(byte(at)) {
            at -= 1;
        }
        // Three continuation bytes before `target` end any character.
        if is_continuation(byte(at)) {
            target
        } else {
            at
        }
    }

    /// Counts the stream up to `end`.
    fn hand_over(&mut self, end: u64) {
        if end <= self.counted_to {
            return;
        }
        let rest = self.pending.split_off((end - self.counted_to) as usize);
        let segment = std::mem::replace(&mut self.pending, rest);
        self.counted_to = end;
        let vocabulary = self.vocabulary;
        let worker = self.worker.get_or_insert_with(|| {
            let (segments, received) = sync_channel(QUEUE);
            let total = std::thread::spawn(move || count_all(vocabulary, &received));
            Worker { segments, total }
        });
        if let Err(unsent) = worker.segments.send(segment) {
            // The thread is gone (it panicked): count here.
            self.tokens += vocabulary.count(&unsent.0);
        }
    }

    /// The stream ended: the count of all of it.
    pub(crate) fn finish(mut self) -> TokenTotal {
        let counted_bytes = if self.full {
            self.counted_to
        } else {
            self.tokens += self.vocabulary.count(&self.pending);
            self.seen
        };
        let mut tokens = self.tokens;
        if let Some(worker) = self.worker.take() {
            drop(worker.segments);
            tokens += worker.total.join().unwrap_or_default();
        }
        let extrapolated = counted_bytes < self.seen;
        if extrapolated && counted_bytes > 0 {
            let scaled = u128::from(tokens) * u128::from(self.seen) / u128::from(counted_bytes);
            tokens = u64::try_from(scaled).unwrap_or(u64::MAX);
        }
        TokenTotal {
            tokens,
            estimated: extrapolated || self.forced,
        }
    }
}

/// Whether no piece of o200k or cl100k runs across the place between
/// `before` and `after` (see the module's note).
fn is_break(before: u8, after: u8) -> bool {
    match before {
        b'\n' | b'\r' => after.is_ascii_graphic() && after != b'/',
        _ => after == b' ' && before.is_ascii_alphanumeric(),
    }
}

fn count_all(vocabulary: Vocabulary, segments: &Receiver<Vec<u8>>) -> u64 {
    segments
        .iter()
        .map(|segment| vocabulary.count(&segment))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text with every kind of place the pretokenizers treat apart.
    fn mixed_text(seed: u64, pieces: usize) -> Vec<u8> {
        const PARTS: [&[u8]; 24] = [
            b"word",
            b" ",
            b"  ",
            b"\n",
            b"\r\n",
            b"\r",
            b"/usr/bin",
            b",\r\n",
            b"  \n  ",
            b"123456",
            b"'s",
            b"'ll",
            b"\t",
            b"Foo",
            b"BAR",
            b"!?",
            b"(",
            b"\xff",
            b"\xe2\x82",
            "日本語".as_bytes(),
            "😀".as_bytes(),
            "\u{3000}".as_bytes(),
            "\u{a0}".as_bytes(),
            b"\n\n/",
        ];
        let mut state = seed;
        let mut text = Vec::new();
        for _ in 0..pieces {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.extend_from_slice(PARTS[(state >> 33) as usize % PARTS.len()]);
        }
        text
    }

    #[test]
    fn no_piece_runs_across_a_break() {
        for vocabulary in [Vocabulary::O200k, Vocabulary::Cl100k] {
            for seed in 0..60 {
                let text = mixed_text(seed, 300);
                let whole = vocabulary.count(&text);
                for place in 1..text.len() {
                    if is_break(text[place - 1], text[place]) {
                        let parts =
                            vocabulary.count(&text[..place]) + vocabulary.count(&text[place..]);
                        assert_eq!(parts, whole, "{vocabulary:?} {:?} at {place}", &text);
                    }
                }
            }
        }
    }

    fn count_in_chunks(text: &[u8], chunk: usize, limit: u64) -> TokenTotal {
        let mut count = TokenCount::new(Vocabulary::O200k, limit);
        for piece in text.chunks(chunk) {
            count.push(piece);
        }
        count.finish()
    }

    #[test]
    fn a_stream_counts_as_one_text_in_any_chunking() {
        // Long enough for the counting thread (segments of 256 KiB).
        let text: Vec<u8> = (0..40).flat_map(|seed| mixed_text(seed, 5_000)).collect();
        let whole = Vocabulary::O200k.count(&text);
        for chunk in [1_000, 65_536, 300_001] {
            let total = count_in_chunks(&text, chunk, u64::MAX);
            assert_eq!(
                total,
                TokenTotal {
                    tokens: whole,
                    estimated: false
                },
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn past_the_limit_the_count_is_extrapolated_the_same_in_any_chunking() {
        let line = b"error: expected one of `,` or `}`, found `x`\n";
        let text = line.repeat(10_000);
        let per_line = Vocabulary::O200k.count(line);
        let limit = 100 * line.len() as u64 + 7;
        for chunk in [1, 13, 4096, text.len()] {
            let total = count_in_chunks(&text, chunk, limit);
            // The counted part ends at the last break within the limit: a
            // line start, after 100 lines.
            assert_eq!(
                total,
                TokenTotal {
                    tokens: per_line * 10_000,
                    estimated: true
                }
            );
        }
    }

    #[test]
    fn a_stretch_without_breaks_is_split_and_the_count_marked() {
        let text = vec![b'a'; 3 * MAX_SEGMENT as usize + 5];
        let total = count_in_chunks(&text, 65_536, u64::MAX);
        assert!(total.estimated);
        let whole = Vocabulary::O200k.count(&text);
        assert!(total.tokens.abs_diff(whole) <= 3, "{total:?} vs {whole}");
    }
}
