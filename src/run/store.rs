//! The store commands: `--list`, `--show`, `--summary`, `--prune`, which
//! read the spill store instead of capping anything.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};

use crate::config::{Config, StoreCommand};
use crate::error::{Error, Problem};
use crate::sink::Sink;
use crate::render::template::grouped_digits;
use crate::spill::store::{Entries, Entry, Store, shell_quoted, show_command};
use crate::spill::{SpillTarget, StoreTarget};

/// The widest command a summary shows, in characters.
const SUMMARY_COMMAND_WIDTH: usize = 80;

/// Runs a store command; returns its warnings (manifest lines skipped).
pub(super) fn run(config: &Config, command: &StoreCommand) -> Result<Vec<Problem>, Error> {
    let Some(SpillTarget::Store(target)) = &config.spill else {
        return Err(Error::Usage(
            "the store commands need a store: --store or --spill-dir DIR".into(),
        ));
    };
    let store = Store::open(&target.dir).map_err(Error::Store)?;
    if let StoreCommand::Prune = command {
        store
            .prune(target.retain, target.retain_bytes)
            .map_err(|err| Error::Store(format!("cannot prune the spill store: {err}")))?;
        return Ok(Vec::new());
    }
    let entries = entries_of(&store)?;
    let warnings = entries
        .unreadable
        .iter()
        .map(|line| {
            Problem::Spill(format!(
                "line {line} of the spill store's manifest '{}' is not an output; skipped",
                store.manifest_name()
            ))
        })
        .collect();
    let mut out = Sink::stdout();
    let written = match command {
        StoreCommand::List => list(&entries.outputs, &mut out),
        StoreCommand::Show { id, lines } => {
            let entry = find(&store, &entries.outputs, id)?;
            show(&store, entry, *lines, &mut out)
        }
        StoreCommand::Summary { id } => {
            let entry = find(&store, &entries.outputs, id)?;
            writeln!(out, "{}", summary(entry, target))
        }
        StoreCommand::Prune => Ok(()),
    };
    written
        .and_then(|()| out.finish())
        .map_err(Error::io("cannot write to stdout"))?;
    Ok(warnings)
}

/// The store's outputs, and the manifest lines that are not one.
fn entries_of(store: &Store) -> Result<Entries, Error> {
    store.entries().map_err(|err| {
        Error::Store(format!("cannot read the spill store's manifest '{}': {err}", store.manifest_name()))
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

/// One row per output, newest first: id, time, size, lines, command.
fn list(outputs: &[Entry], out: &mut impl Write) -> io::Result<()> {
    for entry in outputs.iter().rev() {
        writeln!(
            out,
            "{}  {}  {:>13} bytes  {:>10} lines  {}",
            entry.id,
            entry.created,
            grouped_digits(entry.bytes),
            grouped_digits(entry.lines),
            entry.command.as_deref().map(command_line).unwrap_or_default()
        )?;
    }
    Ok(())
}

/// The output byte for byte, or its lines `first` to `last`.
fn show(store: &Store, entry: &Entry, lines: Option<(u64, u64)>, out: &mut impl Write) -> io::Result<()> {
    let file = File::open(store.path_of(entry))?;
    let Some((first, last)) = lines else {
        io::copy(&mut BufReader::new(file), out)?;
        return Ok(());
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut number = 0;
    while number < last {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        number += 1;
        if number >= first {
            out.write_all(&line)?;
        }
    }
    Ok(())
}

/// The line `toolcap --summary ID` prints, without its newline: what a
/// harness puts in place of a tool result that it clears from its context.
/// `id` may be any unique prefix of the output's id. Manifest lines that
/// are not outputs are skipped, as `--summary` skips them (it also warns).
///
/// # Errors
///
/// [`Error::Store`] when the store is refused (another user's, or
/// writable by others), its manifest cannot be read, or it holds no output
/// whose id starts with `id`, or more than one.
pub fn store_summary(store: &StoreTarget, id: &str) -> Result<String, Error> {
    let opened = Store::open(&store.dir).map_err(Error::Store)?;
    let entries = entries_of(&opened)?;
    Ok(summary(find(&opened, &entries.outputs, id)?, store))
}

/// `[output {id}: {bytes} bytes, {lines} lines, exit {status}, {command};
/// full output: toolcap --show {id}]`, the exit and command in wrap mode.
pub(crate) fn summary(entry: &Entry, target: &StoreTarget) -> String {
    let mut text = format!(
        "[output {}: {} bytes, {} lines",
        entry.id,
        grouped_digits(entry.bytes),
        grouped_digits(entry.lines)
    );
    if let Some(exit) = entry.exit {
        text.push_str(&format!(", exit {exit}"));
    }
    if let Some(command) = &entry.command {
        text.push_str(", ");
        text.push_str(&shortened(&command_line(command), SUMMARY_COMMAND_WIDTH));
    }
    text.push_str(&format!("; full output: {}]", show_command(&entry.id, &target.dir)));
    text
}

/// A command as one line: a `-c STRING` run shows the STRING, a program
/// its words, each quoted for a POSIX shell where it needs to be.
fn command_line(argv: &[String]) -> String {
    match argv {
        [_, flag, string] if flag == "-c" => string.clone(),
        words => words
            .iter()
            .map(|word| shell_quoted(word))
            .collect::<Vec<_>>()
            .join(" "),
    }
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
        assert_eq!(command_line(&argv(&["/bin/sh", "-c", "make test | tee x"])), "make test | tee x");
        assert_eq!(command_line(&argv(&["cargo", "test", "--", "a b", "it's"])), "cargo test -- 'a b' 'it'\\''s'");
        assert_eq!(shortened("abcdef", 4), "abc…");
        assert_eq!(shortened("abc", 4), "abc");
    }
}
