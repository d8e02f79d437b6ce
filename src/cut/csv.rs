//! `--format csv`: where rows end. A newline ends a row unless it lies in
//! a quoted field; as in the `csv` crate (RFC 4180), a quote opens a quoted
//! field only at the start of a field, `""` inside one is a quote, and
//! fields are separated by commas.

use memchr::{memchr, memchr2};

use super::records::{Event, Record, Scanner};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    FieldStart,
    Unquoted,
    Quoted,
    /// A quote inside a quoted field: its end, or the first of `""`.
    QuoteInQuoted,
}

#[derive(Debug)]
pub(crate) struct RowScanner {
    state: State,
    /// The offset of the next byte.
    offset: u64,
}

impl RowScanner {
    pub(crate) fn new() -> RowScanner {
        RowScanner {
            state: State::FieldStart,
            offset: 0,
        }
    }
}

impl Scanner for RowScanner {
    fn push(&mut self, chunk: &[u8], found: &mut dyn FnMut(Event)) {
        let mut at = 0;
        while at < chunk.len() {
            let rest = &chunk[at..];
            let (skip, byte) = match self.state {
                State::Quoted => match memchr(b'"', rest) {
                    Some(i) => (i, b'"'),
                    None => break,
                },
                State::Unquoted => match memchr2(b',', b'\n', rest) {
                    Some(i) => (i, rest[i]),
                    None => break,
                },
                State::FieldStart | State::QuoteInQuoted => (0, rest[0]),
            };
            at += skip + 1;
            self.state = match (self.state, byte) {
                (State::Quoted, _) => State::QuoteInQuoted,
                (State::FieldStart, b'"') | (State::QuoteInQuoted, b'"') => State::Quoted,
                (_, b',') => State::FieldStart,
                (_, b'\n') => {
                    found(Event {
                        offset: self.offset + at as u64,
                        record: Record::Row,
                    });
                    State::FieldStart
                }
                _ => State::Unquoted,
            };
        }
        self.offset += chunk.len() as u64;
    }

    fn finish(&mut self, _found: &mut dyn FnMut(Event)) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(input: &[u8], chunk: usize) -> Vec<u64> {
        let mut scanner = RowScanner::new();
        let mut ends = Vec::new();
        for piece in input.chunks(chunk) {
            scanner.push(piece, &mut |event| ends.push(event.offset));
        }
        ends
    }

    #[test]
    fn quoted_newlines_do_not_end_rows_in_any_chunking() {
        let input = b"id,note\n1,\"two\nlines, \"\"quoted\"\"\"\n2,a\"b\n3,\"x\"y\n";
        for chunk in 1..input.len() {
            assert_eq!(rows(input, chunk), [8, 34, 40, 47], "chunks of {chunk}");
        }
    }
}
