//! Where the files and hunks of a unified diff (`git diff`, `diff -u`,
//! `diff -ru`) start, and the files' names.
//!
//! Lines are read one at a time, holding at most [`HELD`] bytes of each:
//! 1. A line starting with `diff ` starts a file (git's extended header
//!    lines, `---` and `+++` follow it); so does a `--- ` line outside a
//!    hunk and not right after a `diff ` line.
//! 2. `@@ -a,b +c,d @@` starts a hunk of b old and d new lines: ` ` (or an
//!    empty line) counts one of each, `-` an old one, `+` a new one; `\`
//!    (no newline at end of file) counts none and still belongs to it. A
//!    body line that does not fit the counts ends the hunk early.
//! 3. A line that cannot be in a body (none of ` `, `-`, `+`, `\` starts
//!    it and it is not empty) within the counts means cleaning shortened the
//!    hunk (`--squeeze` and `--fold` put one such line for the lines they
//!    take out), so the counts no longer say where it ends: it runs on to
//!    the next `@@` line (a hunk of the same file) or the next file's
//!    start, where a `--- ` line starts a file only if a `+++ ` line
//!    follows it (in a body it may be a removed line).
//! 4. A file's name is its `+++` path, else its `---` path (for a deleted
//!    file), else the last path of its `diff` line; git's `a/` and `b/`
//!    are dropped, and so is what follows a tab (`diff -u`'s dates).

use std::sync::Arc;

use memchr::memchr;

use crate::format::records::{Event, Scanner};

/// A record of a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Record {
    /// A file: its first line (`diff ...` or `--- `).
    File { file: u64, name: Arc<[u8]> },
    /// A hunk: its `@@` line, in file `file`.
    Hunk { file: u64, name: Arc<[u8]> },
}

/// The bytes of a line looked at: enough for any header and most paths.
const HELD: usize = 4096;

/// The lines whose more than [`PREFIX`] bytes matter.
const HEADERS: [&[u8]; 4] = [b"diff ", b"--- ", b"+++ ", b"@@ "];

/// Enough bytes to tell whether a line is one of [`HEADERS`].
const PREFIX: usize = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Not in a file's header or a hunk.
    Outside,
    /// In a file's header, before its first hunk.
    Header,
    Hunk {
        old: u64,
        new: u64,
    },
    /// Just after a hunk: a `\` line still belongs to it.
    AfterHunk,
    /// In a hunk that cleaning shortened, up to the next header line.
    Shortened,
    /// In a shortened hunk, just after a `--- ` line (held in `minus`):
    /// a file's start if a `+++ ` line follows, else a removed line.
    ShortenedMinus {
        start: u64,
    },
}

/// The file being read, until its name is known.
#[derive(Debug, Default)]
struct File {
    start: u64,
    /// Started by a `diff --git` line (its paths start with `a/` and `b/`).
    git: bool,
    /// Started by a `diff ` line (its `---` line is part of its header).
    diff_line: bool,
    from_diff_line: Vec<u8>,
    minus: Option<Vec<u8>>,
    plus: Option<Vec<u8>>,
    /// Reported, with this name.
    name: Option<Arc<[u8]>>,
}

#[derive(Debug)]
pub(crate) struct DiffScanner {
    state: State,
    file: Option<File>,
    files: u64,
    /// The line being read: its first bytes, and where it started.
    line: Vec<u8>,
    line_start: u64,
    offset: u64,
    /// The path of the `--- ` line of [`State::ShortenedMinus`].
    minus: Vec<u8>,
}

impl DiffScanner {
    pub(crate) fn new() -> DiffScanner {
        DiffScanner {
            state: State::Outside,
            file: None,
            files: 0,
            line: Vec::new(),
            line_start: 0,
            offset: 0,
            minus: Vec::new(),
        }
    }

    fn hold(&mut self, bytes: &[u8]) {
        // Most lines are hunk bodies: their first bytes say all. Only a
        // header line's path and counts are worth holding.
        let limit = match self.line.get(..PREFIX) {
            Some(prefix) if !HEADERS.iter().any(|header| prefix.starts_with(header)) => PREFIX,
            _ => HELD,
        };
        let room = limit.saturating_sub(self.line.len());
        self.line.extend_from_slice(&bytes[..room.min(bytes.len())]);
    }

    /// Reports the current file, once, now that its name is known.
    fn report_file(&mut self, found: &mut dyn FnMut(Event<Record>)) -> Option<(u64, Arc<[u8]>)> {
        let id = self.files;
        let file = self.file.as_mut()?;
        if let Some(name) = &file.name {
            return Some((id, name.clone()));
        }
        let usable = |path: &Option<Vec<u8>>| path.clone().filter(|p| p != b"/dev/null");
        let name: Arc<[u8]> = usable(&file.plus)
            .or_else(|| usable(&file.minus))
            .unwrap_or_else(|| file.from_diff_line.clone())
            .into();
        file.name = Some(name.clone());
        found(Event {
            offset: file.start,
            record: Record::File {
                file: id,
                name: name.clone(),
            },
        });
        Some((id, name))
    }

    fn start_file(&mut self, start: u64, found: &mut dyn FnMut(Event<Record>)) -> &mut File {
        self.report_file(found);
        self.files += 1;
        self.state = State::Header;
        self.file.insert(File {
            start,
            ..File::default()
        })
    }

    /// Reads the line held, then reuses its buffer for the next.
    fn line_ended(&mut self, found: &mut dyn FnMut(Event<Record>)) {
        let mut line = std::mem::take(&mut self.line);
        self.classify(&line, found);
        line.clear();
        self.line = line;
    }

    fn classify(&mut self, line: &[u8], found: &mut dyn FnMut(Event<Record>)) {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let start = self.line_start;
        if let State::ShortenedMinus { start: minus_start } = self.state {
            self.state = State::Shortened;
            if line.starts_with(b"+++ ") {
                let minus = std::mem::take(&mut self.minus);
                let file = self.start_file(minus_start, found);
                file.minus = Some(minus);
            }
        }
        if let State::Hunk { old, new } = self.state {
            let counted = match line.first() {
                None | Some(b' ') if old > 0 && new > 0 => Some((old - 1, new - 1)),
                Some(b'-') if old > 0 => Some((old - 1, new)),
                Some(b'+') if new > 0 => Some((old, new - 1)),
                Some(b'\\') => Some((old, new)),
                _ => None,
            };
            match counted {
                Some((0, 0)) => return self.state = State::AfterHunk,
                Some((old, new)) => return self.state = State::Hunk { old, new },
                // A body line past the counts: the hunk ended early.
                None if is_body(line) => self.state = State::AfterHunk,
                None => self.state = State::Shortened,
            }
        }
        if self.state == State::AfterHunk && line.first() == Some(&b'\\') {
            return;
        }
        let in_header = self.state == State::Header;
        if let Some(rest) = line.strip_prefix(b"diff ") {
            let git = rest.starts_with(b"--git ");
            let file = self.start_file(start, found);
            file.git = git;
            file.diff_line = true;
            file.from_diff_line = last_path(rest, git);
        } else if let (State::Shortened, Some(rest)) = (self.state, line.strip_prefix(b"--- ")) {
            // No `diff` line came before it: not git's.
            self.minus = path(rest, false);
            self.state = State::ShortenedMinus { start };
        } else if let Some(rest) = line.strip_prefix(b"--- ") {
            let header_line = in_header
                && self
                    .file
                    .as_ref()
                    .is_some_and(|file| file.diff_line && file.minus.is_none());
            let file = if header_line {
                self.file.as_mut()
            } else {
                Some(self.start_file(start, found))
            };
            if let Some(file) = file {
                file.minus = Some(path(rest, file.git));
            }
        } else if let (true, Some(rest)) = (in_header, line.strip_prefix(b"+++ ")) {
            if let Some(file) = self.file.as_mut() {
                file.plus = Some(path(rest, file.git));
            }
        } else if let Some((old, new)) = hunk_counts(line) {
            // A hunk belongs to the file whose header or hunk it follows.
            let follows = matches!(
                self.state,
                State::Header | State::AfterHunk | State::Shortened
            );
            let Some((file, name)) = follows.then(|| self.report_file(found)).flatten() else {
                return self.state = State::Outside;
            };
            found(Event {
                offset: start,
                record: Record::Hunk { file, name },
            });
            self.state = if (old, new) == (0, 0) {
                State::AfterHunk
            } else {
                State::Hunk { old, new }
            };
        } else if !in_header && self.state != State::Shortened {
            self.state = State::Outside;
        }
    }
}

/// Whether a line can be in a hunk's body: context (an empty line is one
/// whose space was trimmed), removed, added, or `\ No newline`.
fn is_body(line: &[u8]) -> bool {
    matches!(line.first(), None | Some(b' ' | b'-' | b'+' | b'\\'))
}

impl Scanner for DiffScanner {
    type Record = Record;

    fn push(&mut self, mut chunk: &[u8], found: &mut dyn FnMut(Event<Record>)) {
        while let Some(end) = memchr(b'\n', chunk) {
            self.hold(&chunk[..=end]);
            self.offset += end as u64 + 1;
            self.line_ended(found);
            self.line_start = self.offset;
            chunk = &chunk[end + 1..];
        }
        self.hold(chunk);
        self.offset += chunk.len() as u64;
    }

    fn finish(&mut self, found: &mut dyn FnMut(Event<Record>)) {
        if self.offset > self.line_start {
            self.line_ended(found);
        }
        self.report_file(found);
    }
}

/// The counts of a `@@ -a[,b] +c[,d] @@` line (b and d default to 1).
fn hunk_counts(line: &[u8]) -> Option<(u64, u64)> {
    let rest = line.strip_prefix(b"@@ -")?;
    let end = rest.windows(3).position(|w| w == b" @@")?;
    let text = std::str::from_utf8(&rest[..end]).ok()?;
    let (old, new) = text.split_once(" +")?;
    let count = |range: &str| -> Option<u64> {
        match range.split_once(',') {
            Some((start, count)) => {
                start.parse::<u64>().ok()?;
                count.parse().ok()
            }
            None => range.parse::<u64>().ok().map(|_| 1),
        }
    };
    Some((count(old)?, count(new)?))
}

/// The path of a `---` or `+++` line: up to a tab, without git's prefix.
fn path(rest: &[u8], git: bool) -> Vec<u8> {
    let rest = &rest[..memchr(b'\t', rest).unwrap_or(rest.len())];
    if git {
        strip_prefix(rest)
    } else {
        rest.to_vec()
    }
}

/// `a/x` or `b/x` as `x`, and `"b/x y"` as `"x y"`.
fn strip_prefix(path: &[u8]) -> Vec<u8> {
    let (quote, unquoted) = match path.strip_prefix(b"\"") {
        Some(rest) => (&b"\""[..], rest),
        None => (&b""[..], path),
    };
    match unquoted.get(..2) {
        Some(b"a/" | b"b/") => [quote, &unquoted[2..]].concat(),
        _ => path.to_vec(),
    }
}

/// The last path of a `diff` line: git's `b/...`, else its last word.
fn last_path(rest: &[u8], git: bool) -> Vec<u8> {
    if git {
        let at = rest
            .windows(4)
            .rposition(|w| w == b" \"b/")
            .or_else(|| rest.windows(3).rposition(|w| w == b" b/"));
        if let Some(at) = at {
            return strip_prefix(&rest[at + 1..]);
        }
    }
    let word_start = rest.iter().rposition(|&b| b == b' ').map_or(0, |p| p + 1);
    rest[word_start..].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(input: &[u8], chunk: usize) -> Vec<(u64, String)> {
        let mut scanner = DiffScanner::new();
        let mut events = Vec::new();
        let mut found = |event: Event<Record>| {
            let what = match event.record {
                Record::File { file, name } => {
                    format!("file {file} {}", String::from_utf8_lossy(&name))
                }
                Record::Hunk { file, .. } => format!("hunk of {file}"),
            };
            events.push((event.offset, what));
        };
        for piece in input.chunks(chunk) {
            scanner.push(piece, &mut found);
        }
        scanner.finish(&mut found);
        events
    }

    #[test]
    fn files_and_hunks_of_a_git_diff_in_any_chunking() {
        let diff = b"diff --git a/src/a.rs b/src/a.rs\nindex 1..2 100644\n--- a/src/a.rs\
            \n+++ b/src/a.rs\n\
@@ -1,2 +1,2 @@\n-old\n+new\n ctx\n@@ -9 +9,0 @@\n--- not a file\n\\ No newline at end of file\n\
diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n\
diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\
            \n@@ -1 +0,0 @@\n-x\n";
        let expected = vec![
            (0, "file 1 src/a.rs".to_string()),
            (81, "hunk of 1".into()),
            (112, "hunk of 1".into()),
            (169, "file 2 logo.png".into()),
            (248, "file 3 gone.txt".into()),
            (335, "hunk of 3".into()),
        ];
        for chunk in 1..=diff.len() {
            assert_eq!(scan(diff, chunk), expected, "chunks of {chunk}");
        }
    }

    #[test]
    fn a_hunk_that_cleaning_shortened_runs_on_to_the_next_header() {
        // `--fold` and `--squeeze` left marker lines: every `@@` line is
        // still a hunk of its file, and inside a shortened hunk a `--- `
        // line is a file's start only when a `+++ ` line follows it.
        let diff = b"--- a\n+++ b\n@@ -1,9 +1,9 @@\n x\n[... 3 similar lines folded ...]\
            \n--- old\n-y\n@@ -20,9 +20,9 @@\n+z\n[... previous line repeated 4 more times ...]\
            \n\\ No newline at end of file\n--- c\n+++ d\n@@ -1,5 +1,5 @@\n x\
            \n[... 2 similar lines folded ...]\n \ndiff --git a/e b/e\n--- a/e\n+++ b/e\
            \n@@ -1,3 +1,3 @@\n-p\n[x]\n@@ -9 +9 @@\n-q\n+r\n";
        let expected = vec![
            (0, "file 1 b".to_string()),
            (12, "hunk of 1".into()),
            (75, "hunk of 1".into()),
            (170, "file 2 d".into()),
            (182, "hunk of 2".into()),
            (236, "file 3 e".into()),
            (271, "hunk of 3".into()),
            (294, "hunk of 3".into()),
        ];
        for chunk in 1..=diff.len() {
            assert_eq!(scan(diff, chunk), expected, "chunks of {chunk}");
        }
    }

    #[test]
    fn plain_unified_diffs_and_paths() {
        let diff = b"--- a.txt\t2024-01-01\n+++ b.txt\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n\
Only in x: y\n--- c\n+++ d\n@@ -1,0 +1 @@\n+z\n";
        assert_eq!(
            scan(diff, 7),
            [
                (0, "file 1 b.txt".to_string()),
                (42, "hunk of 1".into()),
                (73, "file 2 d".into()),
                (85, "hunk of 2".into()),
            ]
        );
        assert_eq!(hunk_counts(b"@@ -1,3 +4 @@ fn main"), Some((3, 1)));
        assert_eq!(hunk_counts(b"@@ nonsense @@"), None);
        assert_eq!(last_path(b"--git \"a/x y\" \"b/x y\"", true), b"\"x y\"");
        assert_eq!(last_path(b"-ru old/f new/f", false), b"new/f");
    }
}
