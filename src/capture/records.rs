//! The record boundaries of `--format diff` and `csv`, kept as the stream
//! passes with memory bounded by the budget: those in the head buffer's
//! reach, and those in the tail ring's window. What the ring lets go of is
//! the cut middle for sure; a diff's files and hunks there are only
//! counted (with the first names), as `--keep` picks lines from it.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::cut::csv::RowScanner;
use crate::cut::diff::DiffScanner;
use crate::cut::records::{Event, Record, Scanner};
use crate::format::{self, Format};
use crate::report::{CsvReport, DiffReport, FormatReport};

/// A diff marker names at most this many files.
pub(crate) const NAMED_FILES: usize = 10;

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
            middle: Tally::default(),
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
        while self.starts.ring.front().is_some_and(|event| event.offset < evicted_to) {
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
        let mut tally = Tally::default();
        let in_middle = |event: &&Event| (h..t).contains(&event.offset);
        for event in self.starts.head.iter().filter(in_middle) {
            tally.add(&event.record);
        }
        tally.append(&self.middle);
        for event in self.starts.ring.iter().filter(in_middle) {
            tally.add(&event.record);
        }
        let unnamed = tally.files > tally.names.len() as u64;
        FormatReport::Diff(DiffReport {
            hunks: tally.hunks,
            files: tally.files,
            names: tally.names.iter().map(|name| name.to_vec()).collect(),
            last: tally.last_name.filter(|_| unnamed).map(|name| name.to_vec()),
        })
    }
}

/// Hunks and files of a stretch of a diff, in order.
#[derive(Debug, Default)]
struct Tally {
    hunks: u64,
    files: u64,
    /// The first files' names.
    names: Vec<Arc<[u8]>>,
    first_file: Option<u64>,
    last_file: Option<u64>,
    last_name: Option<Arc<[u8]>>,
}

impl Tally {
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
            self.files += 1;
            if self.names.len() < NAMED_FILES {
                self.names.push(name.clone());
            }
            self.first_file.get_or_insert(file);
            self.last_file = Some(file);
            self.last_name = Some(name.clone());
        }
    }

    /// Adds the tally of the stretch that follows this one.
    fn append(&mut self, next: &Tally) {
        let (Some(first), Some(last)) = (next.first_file, next.last_file) else {
            return;
        };
        let shared = self.last_file == Some(first);
        self.hunks += next.hunks;
        self.files += next.files - u64::from(shared);
        let room = NAMED_FILES - self.names.len();
        self.names
            .extend(next.names.iter().skip(usize::from(shared)).take(room).cloned());
        self.first_file.get_or_insert(first);
        self.last_file = Some(last);
        self.last_name.clone_from(&next.last_name);
    }
}
