//! Record boundaries (`--format diff` and `csv`): where a record starts,
//! found by a scanner as the stream passes, and the rule that moves a cut
//! there. The head ends at the last boundary within its budget and the
//! tail starts at the first one within its budget; with none there, the
//! core's rules decide.

use std::sync::Arc;

/// A record that starts at `offset` in the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Event {
    pub(crate) offset: u64,
    pub(crate) record: Record,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Record {
    /// A CSV row after the first.
    Row,
    /// A diff's file: its first line (`diff ...` or `--- `).
    File { file: u64, name: Arc<[u8]> },
    /// A diff's hunk: its `@@` line, in file `file`.
    Hunk { file: u64, name: Arc<[u8]> },
}

/// Finds records in a stream pushed in chunks, reporting each once its
/// kind (and, for a file, its name) is known, in the order they start.
pub(crate) trait Scanner {
    fn push(&mut self, chunk: &[u8], found: &mut dyn FnMut(Event));
    fn finish(&mut self, found: &mut dyn FnMut(Event));
}

/// The boundaries the cuts may move to: record starts after the first
/// byte, sorted.
pub(crate) struct Boundaries<'a> {
    pub(crate) sorted: &'a [u64],
}

impl Boundaries<'_> {
    /// The head cut: the last boundary b with 0 < b <= `limit`.
    pub(crate) fn head(&self, limit: u64) -> Option<u64> {
        let end = self.sorted.partition_point(|&b| b <= limit);
        self.sorted[..end].last().copied().filter(|&b| b > 0)
    }

    /// The tail cut: the first boundary b with `limit` <= b < n.
    pub(crate) fn tail(&self, limit: u64, n: u64) -> Option<u64> {
        let start = self.sorted.partition_point(|&b| b < limit);
        self.sorted.get(start).copied().filter(|&b| b < n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_move_to_the_nearest_boundary_within_the_budget() {
        let boundaries = Boundaries {
            sorted: &[0, 10, 20, 30],
        };
        assert_eq!(boundaries.head(25), Some(20));
        assert_eq!(boundaries.head(20), Some(20));
        assert_eq!(boundaries.head(9), None);
        assert_eq!(boundaries.tail(11, 40), Some(20));
        assert_eq!(boundaries.tail(31, 40), None);
        assert_eq!(boundaries.tail(21, 30), None);
    }
}
