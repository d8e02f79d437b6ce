//! The capped view of a stored output: `--show ID` given a budget or
//! `--grep`. The view (the whole output, its lines A to B, or its numbered
//! matching lines) is capped as any stream is, and its marker names the
//! stored output's own lines, not the view's. Reads the store through
//! `store.rs`; prints nothing itself.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::config::{Config, Grep};
use crate::error::Error;
use crate::line_match::LineMatch;
use crate::plan::{Plan, invalid_pattern};
use crate::render::{Rendered, render_run};
use crate::report::{Report, SpillReport};
use crate::spill::store::open_output;
use crate::stream::{Problems, RunFacts, Stream};

/// A capped view of a stored output, as `--show` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredView {
    /// The text `--show` prints and the `--json` report of the view.
    pub rendered: Rendered,
    /// With `--grep`: how many lines matched (0: the text is empty).
    pub matches: Option<u64>,
}

/// The marker of a cut `--grep` view when no `--marker` is given: it
/// counts matching lines, which the usual marker (bytes, lines of the
/// view) does not. `{MATCHES}` is filled in before it is parsed.
const GREP_MARKER: &str = "[... {omitted_bytes} bytes truncated: {MATCHES} matching lines left \
                           out (lines {first_omitted_line}-{last_omitted_line}); \
                           full output in {spill} ...]";

/// What one line of a `--grep` view is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Row {
    /// `N:LINE`, a matching line.
    Match(u64),
    /// `N-LINE`, a line of `--context`.
    Context(u64),
    /// `--`, between groups that are not adjacent.
    Separator,
}

/// Opens a stored output for reading.
fn open(path: &Path) -> Result<BufReader<File>, Error> {
    open_output(path)
        .map(BufReader::new)
        .map_err(cannot_read(path))
}

fn cannot_read(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    Error::io(format!(
        "cannot read the stored output '{}'",
        path.display()
    ))
}

/// Calls `each` with every line of `path` (1-based number, bytes with
/// their `\n`) from line `first` to `last`.
fn for_lines(
    path: &Path,
    (first, last): (u64, u64),
    each: &mut dyn FnMut(u64, &[u8]),
) -> Result<(), Error> {
    let mut reader = open(path)?;
    let mut line = Vec::new();
    let mut number = 0;
    while number < last {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(cannot_read(path))?;
        if read == 0 {
            break;
        }
        number += 1;
        if number >= first {
            each(number, &line);
        }
    }
    Ok(())
}

/// The rows of a `--grep` view of the lines `range` of `path`, as grep
/// -n -C prints them, each handed to `emit` with the line it shows;
/// returns how many lines matched.
///
/// 1. A matching line is a `Match`; the `context` lines before it (kept in
///    a queue of at most `context` lines) and after it are `Context`.
/// 2. A row whose line does not follow the last row's line directly is
///    preceded by a `Separator` (only with context, as grep).
fn grep_rows(
    path: &Path,
    range: (u64, u64),
    matcher: &LineMatch,
    context: u64,
    emit: &mut dyn FnMut(Row, &[u8]),
) -> Result<u64, Error> {
    let mut before: std::collections::VecDeque<(u64, Vec<u8>)> = Default::default();
    let mut after = 0;
    let mut last_shown: Option<u64> = None;
    let mut matches = 0;
    let mut show = |row: Row, number: u64, line: &[u8], last_shown: &mut Option<u64>| {
        if context > 0 && last_shown.is_some_and(|last| last + 1 < number) {
            emit(Row::Separator, b"--\n");
        }
        *last_shown = Some(number);
        emit(row, line);
    };
    for_lines(path, range, &mut |number, line| {
        if matcher.matches(line) {
            matches += 1;
            for (number, line) in before.drain(..) {
                show(Row::Context(number), number, &line, &mut last_shown);
            }
            show(Row::Match(number), number, line, &mut last_shown);
            after = context;
        } else if after > 0 {
            after -= 1;
            show(Row::Context(number), number, line, &mut last_shown);
        } else if context > 0 {
            if before.len() as u64 == context {
                before.pop_front();
            }
            before.push_back((number, line.to_vec()));
        }
    })?;
    Ok(matches)
}

/// A row as printed: its number and `:` or `-`, the line, and a `\n` if
/// the line had none (the stored output's last line), so every row is a
/// line.
fn write_row(out: &mut Vec<u8>, row: Row, line: &[u8]) {
    match row {
        Row::Match(number) => out.extend_from_slice(format!("{number}:").as_bytes()),
        Row::Context(number) => out.extend_from_slice(format!("{number}-").as_bytes()),
        Row::Separator => {}
    }
    out.extend_from_slice(line);
    if line.last() != Some(&b'\n') {
        out.push(b'\n');
    }
}

/// Of the view's lines `first` to `last` (1-based), the stored output's
/// lines they show (first and last) and the matching lines among them.
#[derive(Debug, Default, PartialEq, Eq)]
struct Omitted {
    lines: Option<(u64, u64)>,
    matches: u64,
}

/// Caps a view of the stored output `id` at `path` (its lines `lines`,
/// or all; with `grep`, only the matching ones, numbered) with the
/// options of `config`.
pub(super) fn capped(
    config: &Config,
    path: &Path,
    id: &str,
    lines: Option<(u64, u64)>,
    grep: Option<&Grep>,
) -> Result<StoredView, Error> {
    let range = lines.unwrap_or((1, u64::MAX));
    let mut options = config.options.clone();
    let matcher = match grep {
        Some(grep) => {
            // The view is already a choice of lines: --keep would pick
            // among them, and --fold would fold lines that differ only in
            // their numbers.
            options = options.without_line_picks();
            let matcher = LineMatch::new(&[&grep.pattern])
                .map_err(|err| invalid_pattern(&grep.pattern, "--grep", &err))?;
            Some((matcher, grep.context))
        }
        None => None,
    };
    let mut stream = Stream::new(Plan::compile(&options)?, None);
    let mut row_text = Vec::new();
    let matches = match &matcher {
        Some((matcher, context)) => Some(grep_rows(
            path,
            range,
            matcher,
            *context,
            &mut |row, line| {
                row_text.clear();
                write_row(&mut row_text, row, line);
                stream.feed(&row_text);
            },
        )?),
        None if lines.is_none() => {
            // The whole output: in chunks, so that a long line is never
            // held whole.
            let mut reader = open(path)?;
            loop {
                let chunk = reader.fill_buf().map_err(cannot_read(path))?;
                if chunk.is_empty() {
                    break;
                }
                let read = chunk.len();
                stream.feed(chunk);
                reader.consume(read);
            }
            None
        }
        None => {
            for_lines(path, range, &mut |_, line| stream.feed(line))?;
            None
        }
    };
    let mut problems = Problems::default();
    let output = stream.finish(0, &RunFacts::default(), &mut problems);
    let mut report = Report {
        output,
        ..Report::empty()
    };
    report.no_match = matches == Some(0);
    if let Some(cut) = &mut report.output.cut {
        report.output.spill = Some(SpillReport::Saved {
            path: path.to_path_buf(),
            id: Some(id.to_string()),
        });
        match &matcher {
            Some((matcher, context)) => {
                let omitted = omitted_rows(
                    path,
                    range,
                    matcher,
                    *context,
                    cut.first_omitted_line,
                    cut.last_omitted_line,
                )?;
                (cut.first_omitted_line, cut.last_omitted_line) = omitted.lines.unwrap_or((0, 0));
                // The report is rendered as it carries its style.
                let look = &mut report.output.look;
                if !look.has_own_marker() {
                    look.marker_template =
                        Some(GREP_MARKER.replace("{MATCHES}", &omitted.matches.to_string()));
                }
            }
            None => {
                // Lines of the view are lines of the output, less those
                // before the range.
                let offset = range.0 - 1;
                cut.first_omitted_line += offset;
                cut.last_omitted_line += offset;
                for block in &mut report.output.kept {
                    block.first_line += offset;
                    block.last_line += offset;
                }
            }
        }
    }
    Ok(StoredView {
        rendered: render_run(&report, false)?,
        matches,
    })
}

/// Which of the stored output's lines the rows `first` to `last` of a
/// `--grep` view show, and how many of them match: the view is made again,
/// so that memory stays bounded however many rows were cut.
fn omitted_rows(
    path: &Path,
    range: (u64, u64),
    matcher: &LineMatch,
    context: u64,
    first: u64,
    last: u64,
) -> Result<Omitted, Error> {
    let mut omitted = Omitted::default();
    let mut row_number = 0;
    grep_rows(path, range, matcher, context, &mut |row, _| {
        row_number += 1;
        if !(first..=last).contains(&row_number) {
            return;
        }
        let number = match row {
            Row::Match(number) => {
                omitted.matches += 1;
                number
            }
            Row::Context(number) => number,
            Row::Separator => return,
        };
        omitted.lines = Some(match omitted.lines {
            None => (number, number),
            Some((low, _)) => (low, number),
        });
    })?;
    Ok(omitted)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// grep -n -C as its manual states it, over lines in memory: a line is
    /// shown when a match lies within `context` lines of it; `--` comes
    /// between shown lines that are not adjacent (with context only).
    fn naive(lines: &[&str], pattern: &str, context: u64) -> String {
        let regex = regex::Regex::new(pattern).unwrap();
        let matched: Vec<bool> = lines.iter().map(|line| regex.is_match(line)).collect();
        let mut out = String::new();
        let mut last: Option<usize> = None;
        for (i, line) in lines.iter().enumerate() {
            let near = (i.saturating_sub(context as usize)..=i + context as usize)
                .any(|j| matched.get(j) == Some(&true));
            if !near {
                continue;
            }
            if context > 0 && last.is_some_and(|last| last + 1 < i) {
                out.push_str("--\n");
            }
            let mark = if matched[i] { ':' } else { '-' };
            out.push_str(&format!("{}{mark}{line}\n", i + 1));
            last = Some(i);
        }
        out
    }

    #[test]
    fn rows_are_those_of_grep_n_context() {
        let lines: Vec<String> = (1..=60)
            .map(|i| {
                if i % 7 == 0 || i == 8 || i == 60 {
                    format!("hit {i}")
                } else {
                    format!("x {i}")
                }
            })
            .collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let path = std::env::temp_dir().join(format!("toolcap-view-{}", std::process::id()));
        std::fs::write(&path, lines.join("\n")).unwrap();
        for pattern in ["hit", "^x 1", "nothing", "5$"] {
            let matcher = LineMatch::new(&[pattern]).unwrap();
            for context in [0, 1, 2, 3, 10, 100] {
                let mut out = Vec::new();
                let matches =
                    grep_rows(&path, (1, u64::MAX), &matcher, context, &mut |row, line| {
                        write_row(&mut out, row, line)
                    })
                    .unwrap();
                let expected = naive(&lines, pattern, context);
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    expected,
                    "{pattern} -C {context}"
                );
                let counted = expected.lines().filter(|line| line.contains(':')).count();
                assert_eq!(matches, counted as u64);
            }
        }
        std::fs::remove_file(&path).unwrap();
    }
}
