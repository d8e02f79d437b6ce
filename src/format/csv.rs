//! `--format csv`: where rows end, and the header row repeated before the
//! tail. A newline ends a row unless it lies in a quoted field; as in the
//! `csv` crate (RFC 4180), a quote opens a quoted field only at the start
//! of a field, `""` inside one is a quote, and fields are separated by
//! commas.

use memchr::{memchr, memchr2};

use super::records::{Event, Scanner, Starts};
use super::{Capped, FormatReport, Reading, Verdict};

/// A CSV stream, as printed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CsvReport {
    /// The header row (with its line end), repeated before the tail; `None`
    /// when nothing was cut, the tail is empty or the head does not hold
    /// the whole header row.
    pub header_row: Option<Vec<u8>>,
}

/// `--format csv` at work: the starts of rows after the first.
pub(crate) struct Csv {
    scanner: RowScanner,
    starts: Starts<()>,
}

impl Csv {
    pub(crate) fn new(head_reach: u64) -> Csv {
        Csv {
            scanner: RowScanner::new(),
            starts: Starts::new(head_reach),
        }
    }

    /// The header row to repeat before the tail of the cut B[h:t], whose
    /// head B[0:h] is `head`.
    fn header_row(&self, (h, t): (u64, u64), head: &[u8]) -> Option<Vec<u8>> {
        let end = self.starts.head.first().map(|event| event.offset)?;
        // Over a tail that starts inside a row (one longer than the
        // tail's budget), the header would label a fragment.
        let tail_at_row = self.starts.all().any(|event| event.offset == t);
        if !(end <= h && t > h && tail_at_row) {
            return None;
        }
        // A byte-order mark belongs to the document's start, not to the
        // row: again mid-text it would be an invisible U+FEFF before the
        // first column's name.
        let row = &head[..end as usize];
        Some(row.strip_prefix(b"\xef\xbb\xbf").unwrap_or(row).to_vec())
    }
}

impl Reading for Csv {
    fn capped(&mut self, chunk: &[u8], evicted_to: u64) {
        let Csv { scanner, starts } = self;
        scanner.push(chunk, &mut |event| starts.add(event));
        // A row the ring let go of is in the middle: only the first row
        // and those of the tail matter.
        starts.evict(evicted_to, drop);
    }

    fn boundaries(&mut self) -> Option<Vec<u64>> {
        let Csv { scanner, starts } = self;
        scanner.finish(&mut |event| starts.add(event));
        Some(starts.offsets())
    }

    /// The header row, which ends where the second row starts.
    fn reprinted(&self) -> u64 {
        self.starts.head.first().map_or(0, |event| event.offset)
    }

    fn finish(self: Box<Self>, capped: Capped<'_>) -> Verdict {
        let header_row = capped.cut.and_then(|cut| self.header_row(cut, capped.head));
        Verdict::Capped(FormatReport::Csv(CsvReport { header_row }))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    FieldStart,
    Unquoted,
    Quoted,
    /// A quote inside a quoted field: its end, or the first of `""`.
    QuoteInQuoted,
}

#[derive(Debug)]
struct RowScanner {
    state: State,
    /// The offset of the next byte.
    offset: u64,
}

impl RowScanner {
    fn new() -> RowScanner {
        RowScanner {
            state: State::FieldStart,
            offset: 0,
        }
    }
}

impl Scanner for RowScanner {
    type Record = ();

    fn push(&mut self, chunk: &[u8], found: &mut dyn FnMut(Event<()>)) {
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
                        record: (),
                    });
                    State::FieldStart
                }
                _ => State::Unquoted,
            };
        }
        self.offset += chunk.len() as u64;
    }

    fn finish(&mut self, _found: &mut dyn FnMut(Event<()>)) {}
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
