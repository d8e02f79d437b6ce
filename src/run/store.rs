//! The store commands: `--list`, `--show`, `--summary`, `--prune`, which
//! read the spill store instead of capping anything.

use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use super::view::{self, StoredView};
use crate::config::{Config, Mode, StoreCommand};
use crate::error::{Error, Problem, SpillFailure};
use crate::options::Options;
use crate::render::template::grouped_digits;
use crate::render::text::{shell_quoted, show_command};
use crate::report::Report;
use crate::sink::Sink;
use crate::source::child::is_shell;
use crate::spill::store::{Entries, Entry, ID_DIGITS, Skipped, Store, open_output, output_file};
use crate::spill::{SpillTarget, StoreTarget, absolute};
use crate::transform::{Emit, Ending, Redact, RedactRules, Transform};
use crate::vocab::marker::escape_for_marker;

/// The widest command a summary shows, in characters.
const SUMMARY_COMMAND_WIDTH: usize = 80;

/// The store `target` names, if there is one (see
/// [`Store::open_existing`]), and its directory made absolute, so that
/// the show command a summary prints works from anywhere, as a marker's
/// does.
fn existing(target: &StoreTarget) -> Result<(PathBuf, Option<Store>), Error> {
    let dir = absolute(&target.dir);
    let store =
        Store::open_existing(&dir).map_err(|reason| Error::Store(target.refusal(reason)))?;
    Ok((dir, store))
}

/// Runs a store command; its report has only its warnings (manifest
/// lines skipped) and, for `--show --grep`, whether nothing matched.
/// When the command fails after warnings, they are in the report with the
/// failure as its problem: `--show ID` of an id the manifest holds only
/// in a skipped line must say why it is not there.
pub(super) fn run(config: &Config, command: &StoreCommand) -> Result<Report, Error> {
    let mut report = Report::empty();
    match run_store_command(config, command, &mut report.warnings) {
        Ok(no_match) => report.no_match = no_match,
        Err(err) if report.warnings.is_empty() || matches!(err, Error::Usage(_)) => {
            return Err(err);
        }
        Err(err) => {
            let dir = match &config.spill {
                Some(SpillTarget::Store(target)) => target.dir.clone(),
                _ => PathBuf::new(),
            };
            let message = err.to_string();
            let source = match err {
                Error::Io { source, .. } => Some(source),
                _ => None,
            };
            let failure = SpillFailure::new(message, &dir, source);
            report.problems.push(Problem::Spill(failure));
        }
    }
    Ok(report)
}

/// [`run`]: whether a `--grep` matched nothing; its warnings go to
/// `warnings`.
fn run_store_command(
    config: &Config,
    command: &StoreCommand,
    warnings: &mut Vec<Problem>,
) -> Result<bool, Error> {
    let Some(SpillTarget::Store(target)) = &config.spill else {
        return Err(Error::Usage(
            "the store commands need a store: --store or --spill-dir DIR".into(),
        ));
    };
    let (dir, store) = existing(target)?;
    let Some(store) = store else {
        return match command {
            // Nothing was stored there: nothing to list or prune.
            StoreCommand::List | StoreCommand::Prune => Ok(false),
            StoreCommand::Show { id, .. } | StoreCommand::Summary { id } => Err(no_store(id, &dir)),
        };
    };
    if let StoreCommand::Prune = command {
        store
            .prune(target.retain, target.retain_bytes, &[])
            .map_err(|err| Error::Store(format!("cannot prune the spill store: {err}")))?;
    }
    // After pruning, so that the line numbers are those of the manifest
    // as it now is.
    let entries = entries_of(&store)?;
    *warnings = skipped_lines(&store, &entries);
    if let StoreCommand::Prune = command {
        return Ok(false);
    }
    let mut out = Sink::stdout();
    let mut no_match = false;
    let written = match command {
        StoreCommand::List => write_list(
            &entries.outputs,
            None,
            config.options.redact_rules()?.as_ref(),
            &mut out,
        ),
        StoreCommand::Show {
            id,
            lines,
            grep,
            capped,
        } => {
            let entry = find(&store, &entries.outputs, id)?;
            if *capped || grep.is_some() {
                let view = view::capped(
                    config,
                    &store.path_of(entry),
                    &entry.id,
                    *lines,
                    grep.as_ref(),
                )?;
                no_match = view.matches == Some(0);
                out.write_all(&view.rendered.output)
            } else {
                write_stored(
                    &store.path_of(entry),
                    *lines,
                    config.options.redact_rules()?,
                    &mut out,
                )?;
                Ok(())
            }
        }
        StoreCommand::Summary { id } => {
            let entry = find(&store, &entries.outputs, id)?;
            let redact = config.options.redact_rules()?;
            writeln!(out, "{}", summary_line(entry, &dir, redact.as_ref()))
        }
        StoreCommand::Prune => Ok(()),
    };
    match written.and_then(|()| out.finish()) {
        // The reader went away (`--show ID | head`): it has all it wanted.
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => {
            Err(Error::io("cannot write to stdout")(err))
        }
        _ => Ok(no_match),
    }
}

/// A warning for each manifest line that is not an output, saying why:
/// what it names is never read or deleted.
fn skipped_lines(store: &Store, entries: &Entries) -> Vec<Problem> {
    // A control character in an id or a file is escaped where the
    // warning is printed.
    entries
        .skipped
        .iter()
        .map(|(line, why)| {
            let why = match why {
                Skipped::Unreadable => String::new(),
                Skipped::ForeignId(id) => format!(
                    ": its id '{id}' is not {ID_DIGITS} lower-case hex digits, so nothing it names \
                     is touched"
                ),
                Skipped::ForeignFile { id, file } => format!(
                    ": it names the file '{file}', but output {id} is {} in the store, so \
                     '{file}' is never touched",
                    output_file(id)
                ),
            };
            let message = format!(
                "line {line} of the spill store's manifest '{}' is not an output{why}; skipped",
                store.manifest_name()
            );
            Problem::Spill(SpillFailure::new(message, store.dir(), None))
        })
        .collect()
}

/// Asked for output `id` where nothing was ever stored.
fn no_store(id: &str, dir: &Path) -> Error {
    Error::Store(format!(
        "no output '{id}': there is no spill store '{}'",
        dir.display()
    ))
}

/// The store's outputs, and the manifest lines that are not one.
fn entries_of(store: &Store) -> Result<Entries, Error> {
    store.entries().map_err(|err| {
        Error::Store(format!(
            "cannot read the spill store's manifest '{}': {err}",
            store.manifest_name()
        ))
    })
}

/// The one output whose id starts with `prefix`.
fn find<'a>(store: &Store, outputs: &'a [Entry], prefix: &str) -> Result<&'a Entry, Error> {
    let mut found = outputs.iter().filter(|entry| entry.id.starts_with(prefix));
    match (found.next(), found.next()) {
        (Some(entry), None) if !prefix.is_empty() => Ok(entry),
        (Some(first), Some(second)) => Err(Error::Store(format!(
            "output id '{prefix}' is ambiguous: it starts {} and {} (and maybe more); give more \
             of it",
            first.id, second.id
        ))),
        _ => Err(Error::Store(format!(
            "no output '{prefix}' in the spill store '{}' (toolcap --list shows them)",
            store.dir().display()
        ))),
    }
}

/// One row per output, newest first (the newest `limit` only, if given):
/// id, time, size, lines, command (with `redact`, redacted).
fn write_list(
    outputs: &[Entry],
    limit: Option<usize>,
    redact: Option<&RedactRules>,
    out: &mut impl Write,
) -> io::Result<()> {
    for entry in outputs.iter().rev().take(limit.unwrap_or(usize::MAX)) {
        writeln!(
            out,
            "{}  {}  {:>13} bytes  {:>10} lines  {}",
            entry.id,
            entry.created,
            grouped_digits(entry.bytes),
            grouped_digits(entry.lines),
            described_command(entry, redact)
        )?;
    }
    Ok(())
}

/// The output at `path` byte for byte, or its lines `first` to `last`;
/// with `redact`, as `--redact` would have shown it (a PEM block is one
/// line, shown when any of its lines is asked for). Stops early once
/// stdout has failed (its reader went away).
fn write_stored<W: Write>(
    path: &Path,
    lines: Option<(u64, u64)>,
    redact: Option<RedactRules>,
    out: &mut Sink<W>,
) -> Result<(), Error> {
    let cannot_read = || {
        Error::io(format!(
            "cannot read the stored output '{}'",
            path.display()
        ))
    };
    let mut reader = BufReader::new(open_output(path).map_err(cannot_read())?);
    let mut redact = redact.map(Redact::new);
    let (first, last) = lines.unwrap_or((1, u64::MAX));
    let mut shown = LinesFrom {
        first,
        next: 1,
        out,
    };
    let mut line = Vec::new();
    let mut number = 0;
    while number < last && !shown.out.has_failed() {
        let read = if lines.is_none() {
            // The whole output: chunks as they come, no line to find.
            let chunk = reader.fill_buf().map_err(cannot_read())?;
            line.clear();
            line.extend_from_slice(chunk);
            reader.consume(line.len());
            line.len()
        } else {
            line.clear();
            number += 1;
            reader.read_until(b'\n', &mut line).map_err(cannot_read())?
        };
        if read == 0 {
            break;
        }
        match &mut redact {
            // The lines before `first` go through too: a PEM block may
            // start there.
            Some(redact) => redact.push(&line, &mut shown),
            None if lines.is_none() || number >= first => shown.write(&line),
            None => {}
        }
    }
    if let Some(redact) = &mut redact {
        redact.finish(&Ending { spill: None }, &mut shown);
    }
    Ok(())
}

/// Writes the lines from raw line `first` on.
struct LinesFrom<'a, W: Write> {
    first: u64,
    /// The raw line the next byte written is in.
    next: u64,
    out: &'a mut Sink<W>,
}

impl<W: Write> LinesFrom<'_, W> {
    fn write(&mut self, bytes: &[u8]) {
        // A Sink records a failed write instead of returning it.
        let _ = self.out.write_all(bytes);
    }
}

impl<W: Write> Emit for LinesFrom<'_, W> {
    fn bytes(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |newline| newline + 1);
            if self.next >= self.first {
                self.write(&bytes[..end]);
            }
            if bytes[end - 1] == b'\n' {
                self.next += 1;
            }
            bytes = &bytes[end..];
        }
    }

    fn merged_line(&mut self, line: &[u8], lines: u64) {
        if self.next + lines > self.first {
            self.write(line);
        }
        self.next += lines;
    }
}

/// The line `toolcap --summary ID` prints, without its newline: what a
/// harness puts in place of a tool result that it clears from its context.
/// `id` may be any unique prefix of the output's id. Manifest lines that
/// are not outputs are skipped, as `--summary` skips them (it also warns).
/// Of `options`, only `redact` and `redact_pattern` apply: they redact
/// the command, as `--summary ID --redact` does.
///
/// # Errors
///
/// [`Error::Store`] when the store is refused (another user's, or
/// writable by others), its manifest cannot be read, or it holds no output
/// whose id starts with `id`, or more than one; [`Error::Usage`] for a
/// `redact_pattern` that is not a regex.
pub fn summary(store: &StoreTarget, id: &str, options: &Options) -> Result<String, Error> {
    let redact = options.redact_rules()?;
    let (dir, opened) = existing(store)?;
    let Some(opened) = opened else {
        return Err(no_store(id, &dir));
    };
    let entries = entries_of(&opened)?;
    Ok(summary_line(
        find(&opened, &entries.outputs, id)?,
        &dir,
        redact.as_ref(),
    ))
}

/// What `toolcap --list` prints: a line for each of the newest `limit`
/// outputs of the store (all of them when `None`), newest first; nothing
/// when there is no store. Of `options`, only `redact` and
/// `redact_pattern` apply, as for [`summary`].
///
/// # Errors
///
/// As [`summary`], but for the id.
pub fn list(store: &StoreTarget, limit: Option<usize>, options: &Options) -> Result<String, Error> {
    let redact = options.redact_rules()?;
    let (_, opened) = existing(store)?;
    let Some(opened) = opened else {
        return Ok(String::new());
    };
    let entries = entries_of(&opened)?;
    let mut text = Vec::new();
    write_list(&entries.outputs, limit, redact.as_ref(), &mut text)
        .map_err(Error::io("cannot list the store"))?;
    // Every part of a row is UTF-8: ids, times, numbers, escaped commands.
    Ok(String::from_utf8_lossy(&text).into_owned())
}

/// The capped view of a stored output that `--show` prints given a budget
/// or `--grep` (`config.mode` is [`StoreCommand::Show`]; it is capped
/// whether or not `capped` is set): the output (or its lines A to B, or
/// with `grep` only its matching lines, each after its number and `:`)
/// capped by `config.options`, its marker naming the stored output's
/// lines. No matching line: an empty text and `matches` of `Some(0)`.
///
/// # Errors
///
/// As [`summary`]; [`Error::Usage`] for a `--grep` pattern that
/// is not a regex, or contradicting options; [`Error::Io`] when the
/// stored output cannot be read.
pub fn show(config: &Config) -> Result<StoredView, Error> {
    let Mode::Store(StoreCommand::Show {
        id, lines, grep, ..
    }) = &config.mode
    else {
        return Err(Error::Usage(
            "toolcap::store::show needs a --show ID configuration".into(),
        ));
    };
    let Some(SpillTarget::Store(target)) = &config.spill else {
        return Err(Error::Usage(
            "--show needs a store: --store or --spill-dir DIR".into(),
        ));
    };
    let (dir, store) = existing(target)?;
    let Some(store) = store else {
        return Err(no_store(id, &dir));
    };
    let entries = entries_of(&store)?;
    let entry = find(&store, &entries.outputs, id)?;
    view::capped(
        config,
        &store.path_of(entry),
        &entry.id,
        *lines,
        grep.as_ref(),
    )
}

/// `[output {id}: {bytes} bytes, {lines} lines, exit {status}, {command};
/// full output: toolcap --show {id}]`, the exit and command in wrap mode
/// (with `redact`, redacted before it is shortened: no part of a secret
/// is left at the cut).
pub(crate) fn summary_line(entry: &Entry, dir: &Path, redact: Option<&RedactRules>) -> String {
    let mut text = format!(
        "[output {}: {} bytes, {} lines",
        entry.id,
        grouped_digits(entry.bytes),
        grouped_digits(entry.lines)
    );
    if let Some(exit) = entry.exit {
        text.push_str(&format!(", exit {exit}"));
    }
    if entry.command.is_some() {
        text.push_str(", ");
        text.push_str(&shortened(
            &described_command(entry, redact),
            SUMMARY_COMMAND_WIDTH,
        ));
    }
    text.push_str(&format!("; full output: {}]", show_command(&entry.id, dir)));
    text
}

/// The command of an output as one line, `stderr of ` before it for a
/// command's separate stderr; empty outside wrap mode.
fn described_command(entry: &Entry, redact: Option<&RedactRules>) -> String {
    let command = entry
        .command
        .as_deref()
        .map(|argv| command_line(argv, redact))
        .unwrap_or_default();
    if entry.stderr {
        format!("stderr of {command}")
    } else {
        command
    }
}

/// A command as one line: a shell's `-c STRING` (toolcap's own `-c`, or
/// `-- bash -c STRING`) shows the STRING, a program its words, each quoted
/// for a POSIX shell where it needs to be; control characters are escaped
/// as in a marker, so that a listing row or a summary stays one line.
/// With `redact`, the line is redacted first, as output is: an escape
/// sequence inside a secret does not let it through, and a multi-line
/// `-c` script is matched line by line.
fn command_line(argv: &[String], redact: Option<&RedactRules>) -> String {
    let line = match argv {
        [shell, flag, string] if flag == "-c" && is_shell(shell) => string.clone(),
        words => words
            .iter()
            .map(|word| shell_quoted(word.as_bytes()))
            .collect::<Vec<_>>()
            .join(" "),
    };
    let line = match redact {
        Some(rules) => rules.redacted(line.as_bytes()),
        None => line.into_bytes(),
    };
    String::from_utf8_lossy(&escape_for_marker(&line)).into_owned()
}

/// At most `width` characters, the last one `…` when cut.
fn shortened(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut short: String = text.chars().take(width - 1).collect();
    short.push('…');
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_as_typed() {
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(
            command_line(&argv(&["/bin/sh", "-c", "make test | tee x"]), None),
            "make test | tee x"
        );
        assert_eq!(
            command_line(&argv(&["cargo", "test", "--", "a b", "it's"]), None),
            "cargo test -- 'a b' 'it'\\''s'"
        );
        assert_eq!(
            command_line(&argv(&["bash", "-c", "seq 5\necho \x1b[1mdone"]), None),
            "seq 5\\necho \\x1b[1mdone"
        );
        assert_eq!(command_line(&argv(&["grep", "-c", "1"]), None), "grep -c 1");
        assert_eq!(
            command_line(&argv(&["python3", "-c", "print(1)"]), None),
            "python3 -c 'print(1)'"
        );
        assert_eq!(shortened("abcdef", 4), "abc…");
        assert_eq!(shortened("abc", 4), "abc");
    }

    /// A secret in a stored command is redacted before the line is
    /// escaped (a colour code inside it does not let it through) and
    /// before it is shortened (no part of it is left at the cut).
    #[test]
    fn a_redacted_command_shows_no_secret() {
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let rules = RedactRules::new(&[]).unwrap();
        assert_eq!(
            command_line(
                &argv(&[
                    "sh",
                    "-c",
                    "curl -H 'Authorization: Bearer FAKEfake\x1b[1mFAKE0042' x\necho hi"
                ]),
                Some(&rules)
            ),
            "curl -H 'Authorization: Bearer [REDACTED:bearer-token]' x\\necho hi"
        );
        // A token that the summary's width would cut in two.
        let token = "ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0042";
        let entry = Entry {
            id: "0123456789abcdef".into(),
            created: "2026-12-02T00:00:00Z".into(),
            bytes: 1,
            lines: 1,
            omitted_lines: None,
            command: Some(argv(&[
                "sh",
                "-c",
                &format!("{}git push https://{token}@h/r", "x".repeat(60)),
            ])),
            exit: Some(0),
            stderr: false,
        };
        let dir = Path::new("/store");
        assert!(summary_line(&entry, dir, None).contains("https://gh…"));
        let redacted = summary_line(&entry, dir, Some(&rules));
        assert!(redacted.contains("https://[R…"), "{redacted}");
    }
}
