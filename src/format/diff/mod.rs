//! `--format diff`: cuts at the start of a file or a hunk ([`scanner`]),
//! and a marker that names what the middle held ([`tally`]): its hunks
//! and files, each file once.

mod scanner;
mod tally;

use scanner::{DiffScanner, Record};
use tally::Tally;

use super::records::{Event, Scanner, Starts};
use super::{Capped, FormatReport, Reading, Verdict};

/// A diff marker names at most 11 files: the last and up to 10 others.
pub(crate) const NAMED_FILES: usize = 11;

/// How many first bytes [`starts_like_diff`] looks at.
const DIFF_SNIFF: usize = b"diff --git".len();

/// What the cut middle of a diff held: hunks whose `@@` line, and files
/// whose first line or a hunk's `@@` line, lie in it. A file is counted
/// once however many diffs of it there are (`git log -p` shows one per
/// commit).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiffReport {
    /// Hunks left out.
    pub hunks: u64,
    /// Files with a part left out, each once; or, when `by_diff`, their
    /// diffs.
    pub files: u64,
    /// Whether `files` counts diffs of files: the middle named more
    /// distinct files than the 1 MiB of names held to tell them apart.
    pub by_diff: bool,
    /// The first 11 of those files' names (the new path, else the old
    /// one), each once, in the order they first appear.
    pub names: Vec<Vec<u8>>,
    /// The last file's name: the file the tail continues, when it starts
    /// inside one.
    pub last: Option<Vec<u8>>,
}

/// `--format diff` (or `auto`) at work: the files and hunks whose starts
/// the capper's buffers reach, and a tally of those it let go of.
pub(crate) struct Diff {
    scanner: DiffScanner,
    /// `auto`: the boundaries apply only to a stream that starts like a
    /// diff.
    auto: bool,
    /// The stream's first bytes, for `auto`.
    start: Vec<u8>,
    starts: Starts<Record>,
    /// Records the ring let go of: in the middle.
    middle: Tally,
    /// Whether the stream turned out to be a diff (decided at its end).
    applies: bool,
}

/// Whether a stream that starts with `start` is a diff, for `auto`.
fn starts_like_diff(start: &[u8]) -> bool {
    start.starts_with(b"diff --git") || start.starts_with(b"--- ")
}

impl Diff {
    pub(crate) fn new(auto: bool, head_reach: u64) -> Diff {
        Diff {
            scanner: DiffScanner::new(),
            auto,
            start: Vec::new(),
            starts: Starts::new(head_reach),
            middle: Tally::new(),
            applies: false,
        }
    }

    /// What the cut B[h:t] left out.
    fn middle(&self, (h, t): (u64, u64)) -> DiffReport {
        let mut tally = Tally::new();
        let in_middle = |event: &&Event<Record>| (h..t).contains(&event.offset);
        for event in self.starts.head.iter().filter(in_middle) {
            tally.add(&event.record);
        }
        tally.append(&self.middle);
        for event in self.starts.ring.iter().filter(in_middle) {
            tally.add(&event.record);
        }
        tally.report()
    }
}

impl Reading for Diff {
    fn capped(&mut self, chunk: &[u8], evicted_to: u64) {
        if self.start.len() < DIFF_SNIFF {
            let take = (DIFF_SNIFF - self.start.len()).min(chunk.len());
            self.start.extend_from_slice(&chunk[..take]);
        }
        let Diff {
            scanner,
            starts,
            middle,
            ..
        } = self;
        scanner.push(chunk, &mut |event| starts.add(event));
        starts.evict(evicted_to, |event| middle.add(&event.record));
    }

    fn boundaries(&mut self) -> Option<Vec<u64>> {
        self.applies = !self.auto || starts_like_diff(&self.start);
        if !self.applies {
            return None;
        }
        let Diff {
            scanner, starts, ..
        } = self;
        scanner.finish(&mut |event| starts.add(event));
        Some(starts.offsets())
    }

    fn finish(self: Box<Self>, capped: Capped<'_>) -> Verdict {
        Verdict::Capped(match (self.applies, capped.cut) {
            (false, _) => FormatReport::Text,
            (true, None) => FormatReport::Diff(DiffReport::default()),
            (true, Some(cut)) => FormatReport::Diff(self.middle(cut)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(diff: &mut Diff, input: &[u8]) -> Option<Vec<u64>> {
        for piece in input.chunks(3) {
            diff.capped(piece, 0);
        }
        diff.boundaries()
    }

    #[test]
    fn auto_applies_only_to_a_stream_that_starts_like_a_diff() {
        let diff = b"--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n";
        assert_eq!(read(&mut Diff::new(true, 100), diff), Some(vec![0, 12]));
        let late = [&b"log line\n"[..], diff].concat();
        assert_eq!(read(&mut Diff::new(true, 100), &late), None);
        assert_eq!(read(&mut Diff::new(false, 100), &late), Some(vec![9, 21]));
        let capped = Capped {
            cut: Some((1, 2)),
            head: b"l",
            raw_bytes: late.len() as u64,
        };
        let mut not_a_diff = Box::new(Diff::new(true, 100));
        read(&mut not_a_diff, &late);
        assert_eq!(
            not_a_diff.finish(capped),
            Verdict::Capped(FormatReport::Text)
        );
    }
}
