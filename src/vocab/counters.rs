//! Running totals of a stream: its bytes and its lines, counted with
//! memchr as the chunks pass, so nothing needs to be kept to know them.

use memchr::memchr_iter;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    bytes: u64,
    newlines: u64,
    last_byte: Option<u8>,
}

impl Counters {
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        let Some(&last) = chunk.last() else { return };
        self.bytes += chunk.len() as u64;
        self.newlines += memchr_iter(b'\n', chunk).count() as u64;
        self.last_byte = Some(last);
    }

    /// n: the stream's length in bytes.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The number of `\n` bytes.
    pub(crate) fn newlines(&self) -> u64 {
        self.newlines
    }

    /// L: the number of `\n`, plus 1 if the stream is non-empty and does
    /// not end in `\n`.
    pub(crate) fn lines(&self) -> u64 {
        self.newlines + u64::from(self.last_byte.is_some_and(|b| b != b'\n'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_an_unterminated_last_line() {
        for (chunks, bytes, lines) in [
            (&[][..], 0, 0),
            (&["a"][..], 1, 1),
            (&["a\n"][..], 2, 1),
            (&["a\nb", "", "c"][..], 4, 2),
            (&["\n", "\n"][..], 2, 2),
        ] {
            let mut counters = Counters::default();
            for chunk in chunks {
                counters.push(chunk.as_bytes());
            }
            assert_eq!(
                (counters.bytes(), counters.lines()),
                (bytes, lines),
                "{chunks:?}"
            );
        }
    }
}
