//! What a stretch of a diff held: its hunks and files, a file counted
//! once by its name (with the first names, and up to 1 MiB of distinct
//! names so that a file is counted once).

use std::collections::HashSet;
use std::sync::Arc;

use super::scanner::Record;
use super::{DiffReport, NAMED_FILES};

/// The bytes of distinct file names held to count each file once (a
/// monorepo's 25,000 paths); past them, files are counted by their diffs.
const NAMES_HELD: usize = 1 << 20;

/// Hunks and files of a stretch of a diff, in order. A file is a name:
/// `git log -p` shows the same file in commit after commit, and each of
/// its diffs there is the same file again.
#[derive(Debug, Default)]
pub(super) struct Tally {
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
    pub(super) fn new() -> Tally {
        Tally {
            seen: Some(HashSet::new()),
            ..Tally::default()
        }
    }

    pub(super) fn add(&mut self, record: &Record) {
        let (file, name) = match record {
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
    pub(super) fn append(&mut self, next: &Tally) {
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

    pub(super) fn report(self) -> DiffReport {
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
