//! The record boundaries of `--format diff` and `csv`, kept as the stream
//! passes with memory bounded by the budget: those in the head buffer's
//! reach, and those in the tail ring's window. What the ring lets go of is
//! the cut middle for sure; a diff's files and hunks there are only
//! counted (with the first names, and up to 1 MiB of distinct names so
//! that a file is counted once), as `--keep` picks lines from it.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use crate::cut::csv::RowScanner;
use crate::cut::diff::DiffScanner;
use crate::cut::records::{Event, Record, Scanner};
use crate::format::{self, Format};
use crate::report::{CsvReport, DiffReport, FormatReport};

/// A diff marker names at most 11 files: the last and up to 10 others.
pub(crate) const NAMED_FILES: usize = 11;

/// The bytes of distinct file names held to count each file once (a
/// monorepo's 25,000 paths); past them, files are counted by their diffs.
const NAMES_HELD: usize = 1 << 20;

pub(crate) struct Records {
    scanner: Box<dyn Scanner + Send>,
    /// `auto`: the boundaries apply only to a stream that starts like a
    /// diff.
    auto: bool,
    /// The stream's first bytes, for `auto`.
    start: Vec<u8>,
    diff: bool,
    starts: Starts,
    /// Records the ring let go of: in the middle.
    middle: Tally,
}

/// The records whose starts the buffers still reach.
struct Starts {
    head_capacity: u64,
    /// Records starting within the head buffer's reach.
    head: Vec<Event>,
    /// Records starting in the tail ring (or not yet let go of).
    ring: VecDeque<Event>,
}

impl Starts {
    fn file(&mut self, event: Event) {
        if event.offset < self.head_capacity {
            self.head.push(event);
        } else {
            self.ring.push_back(event);
        }
    }

    /// Every start still reached, in order.
    fn all(&self) -> impl Iterator<Item = &Event> {
        self.head.iter().chain(&self.ring)
    }
}

impl Records {
    /// Boundaries of `format` (diff, csv or auto), or `None`.
    pub(crate) fn new(format: Format, head_capacity: u64) -> Option<Records> {
        let (scanner, auto, diff): (Box<dyn Scanner + Send>, _, _) = match format {
            Format::Diff => (Box::new(DiffScanner::new()), false, true),
            Format::Auto => (Box::new(DiffScanner::new()), true, true),
            Format::Csv => (Box::new(RowScanner::new()), false, false),
            Format::Text | Format::Json => return None,
        };
        Some(Records {
            scanner,
            auto,
            start: Vec::new(),
            diff,
            starts: Starts {
                head_capacity,
                head: Vec::new(),
                ring: VecDeque::new(),
            },
            middle: Tally::new(),
        })
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) {
        if self.start.len() < format::DIFF_SNIFF {
            let take = (format::DIFF_SNIFF - self.start.len()).min(chunk.len());
            self.start.extend_from_slice(&chunk[..take]);
        }
        let Records {
            scanner, starts, ..
        } = self;
        scanner.push(chunk, &mut |event| starts.file(event));
    }

    /// The ring let go of everything before `evicted_to`.
    pub(crate) fn evicted_to(&mut self, evicted_to: u64) {
        while self
            .starts
            .ring
            .front()
            .is_some_and(|event| event.offset < evicted_to)
        {
            if let Some(event) = self.starts.ring.pop_front() {
                self.middle.add(&event.record);
            }
        }
    }

    /// Ends the stream: whether the boundaries apply (for `auto`, whether
    /// the stream starts like a diff), and if so, all of them.
    pub(crate) fn finish(&mut self) -> Option<Vec<u64>> {
        if self.auto && !format::starts_like_diff(&self.start) {
            return None;
        }
        let Records {
            scanner, starts, ..
        } = self;
        scanner.finish(&mut |event| starts.file(event));
        Some(starts.all().map(|event| event.offset).collect())
    }

    /// What the cut B[h:t] left out, for the report (`None` when not cut).
    pub(crate) fn report(&self, cut: Option<(u64, u64)>, head: &[u8]) -> FormatReport {
        if !self.diff {
            let header_row = cut.and_then(|(h, t)| {
                let end = self.starts.head.first().map(|event| event.offset)?;
                // Over a tail that starts inside a row (one longer than the
                // tail's budget), the header would label a fragment.
                let tail_at_row = self.starts.all().any(|event| event.offset == t);
                // A byte-order mark belongs to the document's start, not
                // to the row: again mid-text it would be an invisible
                // U+FEFF before the first column's name.
                let row = &head[..end as usize];
                let row = row.strip_prefix(b"\xef\xbb\xbf").unwrap_or(row);
                (end <= h && t > h && tail_at_row).then(|| row.to_vec())
            });
            return FormatReport::Csv(CsvReport { header_row });
        }
        let Some((h, t)) = cut else {
            return FormatReport::Diff(DiffReport::default());
        };
        let mut tally = Tally::new();
        let in_middle = |event: &&Event| (h..t).contains(&event.offset);
        for event in self.starts.head.iter().filter(in_middle) {
            tally.add(&event.record);
        }
        tally.append(&self.middle);
        for event in self.starts.ring.iter().filter(in_middle) {
            tally.add(&event.record);
        }
        FormatReport::Diff(tally.report())
    }
}

/// Hunks and files of a stretch of a diff, in order. A file is a name:
/// `git log -p` shows the same file in commit after commit, and each of
/// its diffs there is the same file again.
#[derive(Debug, Default)]
struct Tally {
    hunks: u64,
    /// Diffs of files (a run of records of one file is one).
    diffs: u64,
    /// Every name seen, until they would hold more than [`NAMES_HELD`]
    /// bytes: then `None`, and files are counted by their diffs.
    seen: Option<HashSet<Arc<[u8]>>>,
    seen_bytes: usize,
    /// The first names, each once.
    names: Vec<Arc<[u8]>>,
    first_file: Option<u64>,
    last_file: Option<u64>,
    last_name: Option<Arc<[u8]>>,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            seen: Some(HashSet::new()),
            ..Tally::default()
        }
    }

    fn add(&mut self, record: &Record) {
        let (file, name) = match record {
            Record::Row => return,
            Record::File { file, name } => (*file, name),
            Record::Hunk { file, name } => {
                self.hunks += 1;
                (*file, name)
            }
        };
        if self.last_file != Some(file) {
            self.diffs += 1;
            self.name(name);
            self.first_file.get_or_insert(file);
            self.last_file = Some(file);
            self.last_name = Some(name.clone());
        }
    }

    /// Notes a file's name, seen once or again.
    fn name(&mut self, name: &Arc<[u8]>) {
        if self.names.len() < NAMED_FILES && !self.names.contains(name) {
            self.names.push(name.clone());
        }
        let Some(seen) = &mut self.seen else {
            return;
        };
        if seen.contains(name) {
            return;
        }
        self.seen_bytes += name.len();
        if self.seen_bytes > NAMES_HELD {
            self.seen = None;
        } else {
            seen.insert(name.clone());
        }
    }

    /// Adds the tally of the stretch that follows this one.
    fn append(&mut self, next: &Tally) {
        let (Some(first), Some(last)) = (next.first_file, next.last_file) else {
            return;
        };
        let shared = self.last_file == Some(first);
        self.hunks += next.hunks;
        self.diffs += next.diffs - u64::from(shared);
        for name in &next.names {
            self.name(name);
        }
        match &next.seen {
            Some(seen) => seen.iter().for_each(|name| self.name(name)),
            None => self.seen = None,
        }
        self.first_file.get_or_insert(first);
        self.last_file = Some(last);
        self.last_name.clone_from(&next.last_name);
    }

    fn report(self) -> DiffReport {
        let (files, by_diff) = match &self.seen {
            Some(seen) => (seen.len() as u64, false),
            None => (self.diffs, true),
        };
        DiffReport {
            hunks: self.hunks,
            files,
            by_diff,
            names: self.names.iter().map(|name| name.to_vec()).collect(),
            last: self.last_name.map(|name| name.to_vec()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(file: u64, name: &str) -> Record {
        Record::File {
            file,
            name: name.as_bytes().into(),
        }
    }

    fn hunk(file: u64, name: &str) -> Record {
        Record::Hunk {
            file,
            name: name.as_bytes().into(),
        }
    }

    #[test]
    fn files_are_counted_by_name_across_the_stretches_of_the_middle() {
        // `git log -p` of one file, cut through its third diff: the head's
        // part, the part the ring let go of and the ring's part.
        let mut head = Tally::new();
        head.add(&file(1, "a.txt"));
        head.add(&hunk(1, "a.txt"));
        head.add(&file(2, "b.txt"));
        let mut middle = Tally::new();
        middle.add(&hunk(2, "b.txt"));
        middle.add(&file(3, "a.txt"));
        middle.add(&hunk(3, "a.txt"));
        head.append(&middle);
        head.add(&hunk(3, "a.txt"));
        head.add(&file(4, "c.txt"));
        let report = head.report();
        assert_eq!((report.hunks, report.files, report.by_diff), (4, 3, false));
        assert_eq!(report.names, [&b"a.txt"[..], b"b.txt", b"c.txt"]);
        assert_eq!(report.last.as_deref(), Some(&b"c.txt"[..]));
    }

    #[test]
    fn past_the_names_it_can_hold_it_counts_diffs() {
        let mut tally = Tally::new();
        let name = |i: usize| format!("{i:0>1000}");
        let many = NAMES_HELD / 1000 + 2;
        for i in 0..many {
            tally.add(&file(i as u64, &name(i % (many - 1))));
        }
        let report = tally.report();
        assert_eq!((report.files, report.by_diff), (many as u64, true));
        assert_eq!(report.names.len(), NAMED_FILES);
    }
}
