//! What a budget counts, and the token count the header reports.
//!
//! A budget counts bytes, characters or real tokens (a [`Measure`]): the
//! capper asks it how many bytes its buffers must hold and where the
//! longest prefix and suffix within the budget end; the cut rules after
//! that (UTF-8, escapes, lines) stay as they are. The header's token count
//! is ceil(bytes / 4), or a real tokenizer's count of the whole stream.

#[cfg(feature = "tokenizers")]
mod token_count;
#[cfg(feature = "tokenizers")]
mod tokens;

#[cfg(feature = "tokenizers")]
pub(crate) use token_count::{TokenCount, TokenTotal};
#[cfg(not(feature = "tokenizers"))]
pub(crate) use unavailable::{TokenCount, TokenTotal};

use crate::error::Error;

/// `--tokens N` is a budget of N * 4 bytes, and the header's token count is
/// ceil(bytes / 4): the usual rule of thumb for English text and code under
/// the tokenizers of current models.
pub(crate) const BYTES_PER_TOKEN: u64 = 4;

/// The header's token count for a stream of `bytes` bytes.
pub(crate) fn approx_tokens(bytes: u64) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// `--tokenizer`: what a token is, for `--tokens` and the header's count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Tokenizer {
    /// ceil(bytes / 4) for the count, 4 bytes a token for budgets: free,
    /// and close for English text and code (the default).
    #[default]
    Approx,
    /// OpenAI's o200k_base (GPT-4o, GPT-4.1, o-series, GPT-5).
    O200k,
    /// OpenAI's cl100k_base (GPT-4, GPT-3.5).
    Cl100k,
}

impl Tokenizer {
    /// Its name on the command line and in the JSON report.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Approx => "approx",
            Tokenizer::O200k => "o200k",
            Tokenizer::Cl100k => "cl100k",
        }
    }

    /// The real vocabulary behind it; `None` for `approx`. A build without
    /// the `tokenizers` feature has none.
    pub(crate) fn vocabulary(self) -> Result<Option<Vocabulary>, Error> {
        match self {
            Tokenizer::Approx => Ok(None),
            #[cfg(feature = "tokenizers")]
            Tokenizer::O200k => Ok(Some(Vocabulary::O200k)),
            #[cfg(feature = "tokenizers")]
            Tokenizer::Cl100k => Ok(Some(Vocabulary::Cl100k)),
            #[cfg(not(feature = "tokenizers"))]
            real => Err(Error::Usage(format!(
                "--tokenizer {} needs a toolcap built with the cargo feature `tokenizers`",
                real.name()
            ))),
        }
    }
}

/// A real tokenizer's vocabulary. Without the `tokenizers` feature there is
/// none: the type is empty, and nothing that counts real tokens can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vocabulary {
    #[cfg(feature = "tokenizers")]
    O200k,
    #[cfg(feature = "tokenizers")]
    Cl100k,
}

/// How the header's real token count is taken: with this vocabulary, over
/// the first `limit` bytes (`--count-limit`), extrapolated past them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RealCount {
    pub(crate) vocabulary: Vocabulary,
    pub(crate) limit: u64,
}

/// The unit a budget is counted in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Measure {
    /// One unit per byte.
    #[default]
    Bytes,
    /// One unit per Unicode character; each byte of invalid UTF-8 counts
    /// one.
    Chars,
    /// Real tokens: a part's own count (see [`tokens`]).
    Tokens(Vocabulary),
}

/// A character is at most this many bytes long.
const MAX_CHAR_BYTES: u64 = 4;

impl Measure {
    /// How many bytes can make up `units` units: what the head buffer and
    /// the tail ring must hold.
    pub(crate) fn max_bytes(self, units: u64) -> u64 {
        match self {
            Measure::Bytes => units,
            Measure::Chars => units.saturating_mul(MAX_CHAR_BYTES),
            // And one token more: the character after a prefix decides
            // whether it is the longest.
            Measure::Tokens(_) => units.saturating_add(1).saturating_mul(MAX_TOKEN_BYTES),
        }
    }

    /// The end of the longest prefix of `bytes` that is at most `units`.
    pub(crate) fn prefix_end(self, bytes: &[u8], units: u64) -> u64 {
        match self {
            Measure::Bytes => units.min(bytes.len() as u64),
            Measure::Chars => {
                let units = usize::try_from(units).unwrap_or(usize::MAX);
                char_widths(bytes).take(units).sum::<usize>() as u64
            }
            Measure::Tokens(vocabulary) => vocabulary.prefix_end(bytes, units),
        }
    }

    /// A prefix of `bytes` surely within `units`, found cheaply (what
    /// `--live` may print while the head fills): for tokens, `units` bytes,
    /// since a token of valid UTF-8 is at least a byte.
    pub(crate) fn sure_prefix_end(self, bytes: &[u8], units: u64) -> u64 {
        match self {
            Measure::Tokens(_) => units.min(bytes.len() as u64),
            Measure::Bytes | Measure::Chars => self.prefix_end(bytes, units),
        }
    }

    /// The start of the longest suffix of `bytes` that is at most `units`.
    /// (`bytes` may start inside a character: its stray continuation bytes
    /// are counted one each, and the suffix never needs them.)
    pub(crate) fn suffix_start(self, bytes: &[u8], units: u64) -> u64 {
        match self {
            Measure::Bytes => (bytes.len() as u64).saturating_sub(units),
            Measure::Chars => {
                let widths: Vec<usize> = char_widths(bytes).collect();
                let skip = widths
                    .len()
                    .saturating_sub(usize::try_from(units).unwrap_or(usize::MAX));
                widths[..skip].iter().sum::<usize>() as u64
            }
            Measure::Tokens(vocabulary) => vocabulary.suffix_start(bytes, units),
        }
    }

    /// The head `bytes[..end]` after the cut rules moved its end back:
    /// `end`, or for tokens less, until it is within `units` again (a
    /// shorter text can count more tokens).
    pub(crate) fn fit_prefix(self, bytes: &[u8], end: u64, units: u64) -> u64 {
        match self {
            Measure::Tokens(vocabulary) => vocabulary.fit_prefix(bytes, end, units),
            Measure::Bytes | Measure::Chars => end,
        }
    }

    /// The tail `bytes[start..]`, likewise.
    pub(crate) fn fit_suffix(self, bytes: &[u8], start: u64, units: u64) -> u64 {
        match self {
            Measure::Tokens(vocabulary) => vocabulary.fit_suffix(bytes, start, units),
            Measure::Bytes | Measure::Chars => start,
        }
    }

    /// The bytes a line cut may give up are a quarter of the side's budget
    /// in bytes: the budget itself for bytes, else the bytes the measured
    /// part spans.
    pub(crate) fn side_bytes(self, units: u64, measured_bytes: u64) -> u64 {
        match self {
            Measure::Bytes => units,
            Measure::Chars | Measure::Tokens(_) => measured_bytes,
        }
    }
}

/// The byte width of each character of `bytes`, in order; each byte of an
/// invalid sequence is a character of width 1.
fn char_widths(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes.utf8_chunks().flat_map(|chunk| {
        chunk
            .valid()
            .chars()
            .map(char::len_utf8)
            .chain(std::iter::repeat_n(1, chunk.invalid().len()))
    })
}

/// The characters of `bytes` (invalid bytes one each).
pub(crate) fn count_chars(bytes: &[u8]) -> u64 {
    char_widths(bytes).count() as u64
}

/// Counts the characters of a stream as it passes (invalid bytes one
/// each), keeping a character split across chunks for the next one.
#[derive(Debug, Default)]
pub(crate) struct CharCount {
    count: u64,
    /// An unfinished character: at most 3 bytes.
    carry: Vec<u8>,
}

impl CharCount {
    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        // Finish the carried character a byte at a time (at most 3).
        while !self.carry.is_empty() && !chunk.is_empty() {
            let mut joined = std::mem::take(&mut self.carry);
            joined.push(chunk[0]);
            chunk = &chunk[1..];
            self.count_complete(&joined);
        }
        self.count_complete(chunk);
    }

    /// Counts the characters of `bytes`, but for an unfinished last one,
    /// which goes to the carry; returns how many bytes were counted.
    fn count_complete(&mut self, bytes: &[u8]) -> usize {
        let mut counted = 0;
        for chunk in bytes.utf8_chunks() {
            self.count += chunk.valid().chars().count() as u64;
            counted += chunk.valid().len();
            let invalid = chunk.invalid();
            let at_end = counted + invalid.len() == bytes.len();
            if at_end && !invalid.is_empty() && could_continue(invalid) {
                self.carry.extend_from_slice(invalid);
                return counted;
            }
            self.count += invalid.len() as u64;
            counted += invalid.len();
        }
        counted
    }

    /// The characters so far (an unfinished last one counts its bytes).
    pub(crate) fn total(&self) -> u64 {
        self.count + self.carry.len() as u64
    }
}

/// Whether `bytes` (an invalid part at the end of a chunk) is the start of
/// a character the next chunk may finish.
fn could_continue(bytes: &[u8]) -> bool {
    let Some((&lead, rest)) = bytes.split_first() else {
        return false;
    };
    let width = match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return false,
    };
    bytes.len() < width && rest.iter().all(|&b| b & 0xC0 == 0x80)
}

#[cfg(feature = "tokenizers")]
use tokens::MAX_TOKEN_BYTES;

/// A build without real tokenizers: [`Vocabulary`] is empty, so none of
/// this can be reached; it only keeps the callers free of `cfg`.
#[cfg(not(feature = "tokenizers"))]
mod unavailable {
    use super::Vocabulary;

    pub(super) const MAX_TOKEN_BYTES: u64 = 1;

    impl Vocabulary {
        pub(super) fn prefix_end(self, _: &[u8], _: u64) -> u64 {
            match self {}
        }
        pub(super) fn suffix_start(self, _: &[u8], _: u64) -> u64 {
            match self {}
        }
        pub(super) fn fit_prefix(self, _: &[u8], _: u64, _: u64) -> u64 {
            match self {}
        }
        pub(super) fn fit_suffix(self, _: &[u8], _: u64, _: u64) -> u64 {
            match self {}
        }
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct TokenTotal {
        pub(crate) tokens: u64,
        pub(crate) estimated: bool,
    }

    pub(crate) enum TokenCount {}

    impl TokenCount {
        pub(crate) fn new(vocabulary: Vocabulary, _: u64) -> TokenCount {
            match vocabulary {}
        }
        pub(crate) fn push(&mut self, _: &[u8]) {
            match *self {}
        }
        pub(crate) fn finish(self) -> TokenTotal {
            match self {}
        }
    }
}
#[cfg(not(feature = "tokenizers"))]
use unavailable::MAX_TOKEN_BYTES;

#[cfg(test)]
mod tests {
    use super::*;

    /// The count of the obviously right one-shot decoding.
    fn chars_of(bytes: &[u8]) -> u64 {
        char_widths(bytes).count() as u64
    }

    #[test]
    fn characters_count_the_same_in_any_chunking() {
        let text = "aé€😀\u{FFFD}".as_bytes().to_vec();
        let mut inputs = vec![text.clone()];
        inputs.push([&text[..], b"\xff\xfe\xe2\x82", &text[..], b"\xc3"].concat());
        inputs.push(b"\xe2\x82\xe2\x82\xac\x80x".to_vec());
        for input in inputs {
            let expected = chars_of(&input);
            for chunk in 1..=input.len() {
                let mut count = CharCount::default();
                for piece in input.chunks(chunk) {
                    count.push(piece);
                }
                assert_eq!(count.total(), expected, "{input:?} in chunks of {chunk}");
            }
        }
    }

    #[test]
    fn prefixes_and_suffixes_in_characters() {
        let text = "aé€😀b".as_bytes();
        assert_eq!(Measure::Chars.prefix_end(text, 2), 3);
        assert_eq!(Measure::Chars.prefix_end(text, 9), text.len() as u64);
        assert_eq!(Measure::Chars.suffix_start(text, 2), 6);
        assert_eq!(Measure::Chars.suffix_start(text, 0), text.len() as u64);
        // Stray continuation bytes at the start count one each.
        assert_eq!(Measure::Chars.suffix_start(&text[2..], 3), 1);
    }
}
