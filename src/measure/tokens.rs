//! Real tokens: OpenAI's o200k and cl100k vocabularies, through
//! `bpe-openai` (the same counts as tiktoken). Text is tokenized as a model
//! would be given it: invalid UTF-8 as U+FFFD, the way a harness decodes
//! output, and each part on its own (a head is the text the model sees).
//!
//! A longer text can have fewer tokens (`,\r\n` is one token, `,\r` two),
//! so "the longest prefix within N tokens" is taken as: a prefix of at most
//! N tokens that one more character would take over N. It is estimated in
//! one pass over the pretokenizer's pieces, then checked and moved a
//! character at a time until it is exactly that.

use std::borrow::Cow;

use bpe_openai::Tokenizer as Bpe;
use bpe_openai::appendable_encoder::AppendableEncoder;
use bpe_openai::prependable_encoder::PrependableEncoder;

use super::Vocabulary;
use crate::vocab::utf8::is_continuation;

/// The longest token of both vocabularies is 128 bytes (a run of spaces),
/// so N tokens never span more than 128 N bytes.
pub(crate) const MAX_TOKEN_BYTES: u64 = 128;

impl Vocabulary {
    /// The vocabulary, loaded on first use (about 0.1 s for o200k).
    fn bpe(self) -> &'static Bpe {
        match self {
            Vocabulary::O200k => bpe_openai::o200k_base(),
            Vocabulary::Cl100k => bpe_openai::cl100k_base(),
        }
    }

    /// The tokens of `bytes` (invalid UTF-8 read as U+FFFD).
    pub(crate) fn count(self, bytes: &[u8]) -> u64 {
        self.bpe().count(String::from_utf8_lossy(bytes).as_ref()) as u64
    }

    /// Whether `text` has at most `units` tokens; stops counting past them.
    fn fits(self, text: &str, units: u64) -> bool {
        let bpe = self.bpe();
        let limit = usize::try_from(units).unwrap_or(usize::MAX);
        bpe.count_till_limit(&bpe.normalize(text), limit).is_some()
    }

    /// The end of the longest prefix of `bytes` within `units` tokens (see
    /// the module's note), on a character boundary.
    pub(crate) fn prefix_end(self, bytes: &[u8], units: u64) -> u64 {
        let lossy = Lossy::new(bytes);
        let text = lossy.text.as_ref();
        let mut end = self.shrink_prefix(text, self.estimate_prefix(text, units), units);
        while let Some(next) = next_boundary(text, end)
            && self.fits(&text[..next], units)
        {
            end = next;
        }
        lossy.byte_offset(end) as u64
    }

    /// The start of the longest suffix of `bytes` within `units` tokens, on
    /// a character boundary. `bytes` may start inside a character (the tail
    /// ring's first bytes): the suffix never needs those.
    pub(crate) fn suffix_start(self, bytes: &[u8], units: u64) -> u64 {
        let skip = bytes
            .iter()
            .take(3)
            .take_while(|&&b| is_continuation(b))
            .count();
        let lossy = Lossy::new(&bytes[skip..]);
        let text = lossy.text.as_ref();
        let mut start = self.shrink_suffix(text, self.estimate_suffix(text, units), units);
        while let Some(previous) = previous_boundary(text, start)
            && self.fits(&text[previous..], units)
        {
            start = previous;
        }
        (skip + lossy.byte_offset(start)) as u64
    }

    /// `end`, or less, a character at a time, until `bytes[..end]` is
    /// within `units` tokens: after a cut rule moved the end back (a
    /// shorter text may count more).
    pub(crate) fn fit_prefix(self, bytes: &[u8], end: u64, units: u64) -> u64 {
        let lossy = Lossy::new(&bytes[..end as usize]);
        let at = self.shrink_prefix(&lossy.text, lossy.text.len(), units);
        lossy.byte_offset(at) as u64
    }

    /// `start`, or more, until `bytes[start..]` is within `units` tokens.
    pub(crate) fn fit_suffix(self, bytes: &[u8], start: u64, units: u64) -> u64 {
        let lossy = Lossy::new(&bytes[start as usize..]);
        let at = self.shrink_suffix(&lossy.text, 0, units);
        start + lossy.byte_offset(at) as u64
    }

    fn shrink_prefix(self, text: &str, mut end: usize, units: u64) -> usize {
        while end > 0 && !self.fits(&text[..end], units) {
            end = previous_boundary(text, end).unwrap_or(0);
        }
        end
    }

    fn shrink_suffix(self, text: &str, mut start: usize, units: u64) -> usize {
        while start < text.len() && !self.fits(&text[start..], units) {
            start = next_boundary(text, start).unwrap_or(text.len());
        }
        start
    }

    /// Adds whole pieces while they fit, then the characters of the next
    /// piece while they fit: cost in proportion to the budget, not the
    /// text (pieces are split lazily, and a piece may be megabytes long).
    fn estimate_prefix(self, text: &str, units: u64) -> usize {
        let bpe = self.bpe();
        let (mut used, mut end) = (0, 0);
        for piece in bpe.split(text) {
            let tokens = bpe.bpe.count(piece.as_bytes()) as u64;
            if used + tokens <= units {
                used += tokens;
                end += piece.len();
                continue;
            }
            let mut encoder = AppendableEncoder::new(&bpe.bpe);
            for c in piece.chars() {
                encoder.extend(c.encode_utf8(&mut [0; 4]).bytes());
                if used + encoder.token_count() as u64 > units {
                    break;
                }
                end += c.len_utf8();
            }
            break;
        }
        end
    }

    /// The same from the end. Pieces are only known from a text's start,
    /// so it reads a window at the end, doubled until the budget runs out
    /// past the window's first piece (which the window may have cut short).
    fn estimate_suffix(self, text: &str, units: u64) -> usize {
        let bpe = self.bpe();
        let mut window = usize::try_from(units.saturating_mul(8))
            .unwrap_or(usize::MAX)
            .max(256);
        loop {
            let from = ceil_boundary(text, text.len().saturating_sub(window));
            let pieces: Vec<&str> = bpe.split(&text[from..]).collect();
            let (mut used, mut start) = (0, text.len());
            let mut ran_out_at = None;
            for (index, piece) in pieces.iter().enumerate().rev() {
                let tokens = bpe.bpe.count(piece.as_bytes()) as u64;
                if used + tokens <= units {
                    used += tokens;
                    start -= piece.len();
                    continue;
                }
                let mut encoder = PrependableEncoder::new(&bpe.bpe);
                for c in piece.chars().rev() {
                    encoder.extend(c.encode_utf8(&mut [0; 4]).bytes().rev());
                    if used + encoder.token_count() as u64 > units {
                        break;
                    }
                    start -= c.len_utf8();
                }
                ran_out_at = Some(index);
                break;
            }
            if from == 0 || ran_out_at.is_some_and(|index| index > 0) {
                return start;
            }
            window = window.saturating_mul(2);
        }
    }
}

/// Bytes read as text, each maximal invalid UTF-8 sequence as one U+FFFD
/// (as `String::from_utf8_lossy` does), with the way back to byte offsets.
struct Lossy<'a> {
    text: Cow<'a, str>,
    /// Each U+FFFD: its offset in the text, and the offset and length of
    /// the bytes it replaced.
    replaced: Vec<(usize, usize, usize)>,
}

impl Lossy<'_> {
    fn new(bytes: &[u8]) -> Lossy<'_> {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return Lossy {
                text: Cow::Borrowed(text),
                replaced: Vec::new(),
            };
        }
        let mut text = String::with_capacity(bytes.len() + bytes.len() / 2);
        let mut replaced = Vec::new();
        let mut offset = 0;
        for chunk in bytes.utf8_chunks() {
            text.push_str(chunk.valid());
            offset += chunk.valid().len();
            let invalid = chunk.invalid().len();
            if invalid > 0 {
                replaced.push((text.len(), offset, invalid));
                text.push(char::REPLACEMENT_CHARACTER);
                offset += invalid;
            }
        }
        Lossy {
            text: Cow::Owned(text),
            replaced,
        }
    }

    /// The byte offset of `at`, a character boundary of the text.
    fn byte_offset(&self, at: usize) -> usize {
        let before = self.replaced.partition_point(|&(start, ..)| start < at);
        match before.checked_sub(1).map(|i| self.replaced[i]) {
            None => at,
            Some((start, offset, len)) => {
                offset + len + (at - start - char::REPLACEMENT_CHARACTER.len_utf8())
            }
        }
    }
}

fn previous_boundary(text: &str, at: usize) -> Option<usize> {
    text[..at].char_indices().next_back().map(|(i, _)| i)
}

fn next_boundary(text: &str, at: usize) -> Option<usize> {
    text[at..].chars().next().map(|c| at + c.len_utf8())
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    const O200K: Vocabulary = Vocabulary::O200k;

    /// Whether `end` is a longest prefix in the module's sense: within
    /// budget, and one more character is not.
    fn is_longest_prefix(bytes: &[u8], end: u64, units: u64) -> bool {
        let lossy = Lossy::new(bytes);
        let text = lossy.text.as_ref();
        let at = (0..=text.len())
            .find(|&at| text.is_char_boundary(at) && lossy.byte_offset(at) as u64 == end)
            .expect("a character boundary");
        O200K.count(&bytes[..end as usize]) <= units
            && next_boundary(text, at).is_none_or(|next| !O200K.fits(&text[..next], units))
    }

    fn is_longest_suffix(bytes: &[u8], start: u64, units: u64) -> bool {
        let lossy = Lossy::new(bytes);
        let text = lossy.text.as_ref();
        let at = (0..=text.len())
            .find(|&at| text.is_char_boundary(at) && lossy.byte_offset(at) as u64 == start)
            .expect("a character boundary");
        O200K.count(&bytes[start as usize..]) <= units
            && previous_boundary(text, at)
                .is_none_or(|previous| !O200K.fits(&text[previous..], units))
    }

    #[test]
    fn prefixes_and_suffixes_are_the_longest_within_the_budget() {
        let texts: [&[u8]; 6] = [
            b"test case_1 ... ok\ntest case_2 ... FAILED\n",
            "日本語のテキスト、絵文字😀も。\n".as_bytes(),
            b"a\xffb\xe2\x82 \xf0\x9f\x98 invalid\r\n,\r\n,\r\n",
            b"                                        spaces",
            b"1234567890123456789",
            b"",
        ];
        for text in texts {
            for units in 0..12 {
                let end = O200K.prefix_end(text, units);
                assert!(
                    is_longest_prefix(text, end, units),
                    "{text:?} {units}: {end}"
                );
                let start = O200K.suffix_start(text, units);
                assert!(
                    is_longest_suffix(text, start, units),
                    "{text:?} {units}: {start}"
                );
            }
        }
    }

    #[test]
    fn invalid_bytes_map_back_to_their_offsets() {
        let bytes = b"a\xff\xfeb\xe2\x82c";
        let lossy = Lossy::new(bytes);
        assert_eq!(lossy.text, "a\u{FFFD}\u{FFFD}b\u{FFFD}c");
        let offsets: Vec<usize> = lossy
            .text
            .char_indices()
            .map(|(at, _)| lossy.byte_offset(at))
            .chain([lossy.byte_offset(lossy.text.len())])
            .collect();
        assert_eq!(offsets, [0, 1, 2, 3, 4, 6, 7]);
    }

    #[test]
    fn a_shorter_text_can_count_more_and_fitting_moves_back() {
        assert_eq!(O200K.count(b",\r\n"), 1);
        assert_eq!(O200K.count(b",\r"), 2);
        // Cut back to ",\r" by a rule, the prefix is moved back to fit 1.
        assert_eq!(O200K.fit_prefix(b",\r\n", 2, 1), 1);
        assert_eq!(O200K.fit_suffix(b"x,\r", 1, 1), 2);
    }
}
