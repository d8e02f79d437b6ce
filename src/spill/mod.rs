//! Spill files: the raw input, saved byte for byte as it is read, before
//! any transform, so nothing is ever lost.
//!
//! A spill never stops the capped output: when a file cannot be created or
//! written, the failure is recorded, the marker says so, and reading goes
//! on. A spill file must never destroy what toolcap reads or writes, and
//! never be written through a planted symlink: both are checked here.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

pub(crate) mod store;

use crate::error::{Error, Problem, SpillFailure};
use crate::source::Input;
use crate::sys;
use crate::vocab::Counters;
use store::{Entry, Store};

/// Where the full stream was saved, or why it was not.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpillReport {
    /// The whole stream is in this file.
    Saved {
        /// An absolute path.
        path: PathBuf,
        /// Its id, when it is an output of a spill store (`toolcap --show ID`).
        id: Option<String>,
    },
    /// Saving failed, for this reason.
    NotSaved(SpillFailure),
}

/// Where the user asked the full output to go.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpillTarget {
    /// `--spill FILE`: created or truncated, mode 0600 when created; never
    /// through a symlink.
    File(PathBuf),
    /// `--spill-dir DIR` or `--store`: a new output in a store, kept (and
    /// listed) when the output names it.
    Store(StoreTarget),
}

/// A spill store and how much it keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreTarget {
    /// The store's directory.
    pub dir: PathBuf,
    /// `--retain`: at most this many outputs are kept.
    pub retain: u64,
    /// `--retain-size`: at most this many bytes of outputs are kept.
    pub retain_bytes: u64,
    /// The environment variable that named `dir`, if one did: a refusal
    /// names it too, since the user may have forgotten it.
    pub(crate) named_by: Option<&'static str>,
}

/// `--retain` by default.
pub const DEFAULT_RETAIN: u64 = 200;
/// `--retain-size` by default: 1 GiB.
pub const DEFAULT_RETAIN_BYTES: u64 = 1 << 30;

impl StoreTarget {
    /// The store in `dir`, with the default retention.
    pub fn new(dir: impl Into<PathBuf>) -> StoreTarget {
        StoreTarget {
            dir: dir.into(),
            retain: DEFAULT_RETAIN,
            retain_bytes: DEFAULT_RETAIN_BYTES,
            named_by: None,
        }
    }

    /// `reason`, why the store cannot be used, with where its directory
    /// came from when a variable named it.
    pub(crate) fn refusal(&self, reason: String) -> String {
        match self.named_by {
            Some(variable) => format!("{reason} (set by {variable})"),
            None => reason,
        }
    }

    /// The default store: `${XDG_CACHE_HOME:-$HOME/.cache}/toolcap/spill`,
    /// from the variables `env` gives (empty ones count as unset).
    pub fn default_dir(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
        let set = |name: &str| env(name).filter(|value| !value.is_empty());
        let cache = set("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| set("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
        Some(cache.join("toolcap").join("spill"))
    }
}

/// Refuses a `--spill FILE` that is the same file (device and inode) as an
/// input, stdin included, or as toolcap's stdout or stderr: opening it
/// would truncate what toolcap is about to read, or mix the output into
/// the copy. Checked before anything is opened or started. `suffixes` are
/// sibling files written too (`.stderr`).
pub(crate) fn check_target(
    target: &SpillTarget,
    inputs: &[Input],
    suffixes: &[&str],
) -> Result<(), Error> {
    let SpillTarget::File(path) = target else {
        return Ok(());
    };
    let mut others: Vec<(String, Option<fs::Metadata>)> = Vec::new();
    for input in inputs {
        let metadata = match input {
            Input::Stdin => sys::fd_metadata(io::stdin().as_fd()).ok(),
            Input::File(file) => fs::metadata(file).ok(),
        };
        let name = match input {
            Input::Stdin => "standard input".to_string(),
            Input::File(file) => format!("the input '{}'", file.display()),
        };
        others.push((name, metadata));
    }
    others.push((
        "standard output".into(),
        sys::fd_metadata(io::stdout().as_fd()).ok(),
    ));
    others.push((
        "standard error".into(),
        sys::fd_metadata(io::stderr().as_fd()).ok(),
    ));
    for spill in std::iter::once(path.clone()).chain(suffixes.iter().map(|s| with_suffix(path, s)))
    {
        // Only an existing regular file can be destroyed (a device such as
        // /dev/null may well be both the spill and the output).
        let Some(spilled) = fs::metadata(&spill).ok().filter(fs::Metadata::is_file) else {
            continue;
        };
        for (name, metadata) in &others {
            if metadata
                .as_ref()
                .is_some_and(|m| m.dev() == spilled.dev() && m.ino() == spilled.ino())
            {
                return Err(Error::Usage(format!(
                    "the spill file '{}' is also {name}: writing it would destroy what toolcap \
                     reads or writes; choose another file",
                    spill.display()
                )));
            }
        }
    }
    Ok(())
}

/// PATH + suffix, as a sibling path.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(suffix);
    PathBuf::from(name)
}

/// The copy of one stream being written.
pub(crate) struct Spill {
    /// Absolute, so the marker names it for a reader in any directory.
    path: PathBuf,
    file: Option<File>,
    failure: Option<SpillFailure>,
    /// For an output in a store: removed at the end unless the output
    /// names it, and entered in the manifest when kept.
    stored: Option<Stored>,
    /// Whether it was to be an output of a store (even one that failed):
    /// its failure then loses nothing unless the output names it.
    in_store: bool,
    /// Whether this run created the file: only such a file is ever removed
    /// (a failed spill's path may name someone else's file).
    created: bool,
    /// The raw stream's totals, for the manifest.
    counters: Counters,
}

/// A spill that is an output of a store.
struct Stored {
    store: Store,
    id: String,
    retain: Retention,
    /// The output is a command's separate stderr.
    stderr: bool,
    /// The id of the same run's other output (its stdout's, or its
    /// separate stderr's), which retention spares too: its marker names it.
    sibling: Option<String>,
    /// A descriptor of the output with a flock on it, open until the
    /// output is in the manifest: pruning removes an unlisted output that
    /// no one holds. `None` where flock fails.
    _writing: Option<File>,
}

impl Stored {
    /// The ids of the outputs this run wrote, which retention never
    /// deletes after the write.
    fn written(&self) -> Vec<&str> {
        std::iter::once(self.id.as_str())
            .chain(self.sibling.as_deref())
            .collect()
    }
}

/// What the manifest records of a run besides the stream itself.
#[derive(Debug, Default)]
pub(crate) struct SpillFacts {
    /// The raw lines the cut left out.
    pub(crate) omitted_lines: Option<[u64; 2]>,
    /// In wrap mode: the command, and the status toolcap passed on.
    pub(crate) command: Option<Vec<String>>,
    pub(crate) exit: Option<i64>,
}

/// What became of a spill at the end of its stream.
pub(crate) struct SpillEnd {
    /// `None` for an output of a store that was removed (it was only a
    /// safety copy of output that fit): the output names no file.
    pub(crate) report: Option<SpillReport>,
    /// A failure that fails the run.
    pub(crate) problem: Option<Problem>,
    /// A failure that lost nothing (the output was not cut).
    pub(crate) warning: Option<Problem>,
}

/// What the marker will say of the spill file `target` makes, before it
/// is made: its path (a store output's with an id of the id's length).
pub(crate) fn planned_note(target: &SpillTarget) -> SpillReport {
    match target {
        SpillTarget::File(path) => SpillReport::Saved {
            path: absolute(path),
            id: None,
        },
        SpillTarget::Store(store) => {
            let id = "0".repeat(store::ID_DIGITS);
            SpillReport::Saved {
                path: absolute(&store.dir).join(store::output_file(&id)),
                id: Some(id),
            }
        }
    }
}

impl Spill {
    /// Opens the spill file for the main stream.
    pub(crate) fn create(target: &SpillTarget) -> Spill {
        match target {
            SpillTarget::File(path) => Spill::open_named(absolute(path)),
            SpillTarget::Store(store) => Spill::create_in_store(store),
        }
    }

    /// The spill of a command's separate stderr: PATH.stderr next to a
    /// named file, or an output of its own in a store.
    pub(crate) fn create_sibling(&mut self, suffix: &str) -> Spill {
        match &mut self.stored {
            Some(stored) => {
                let mut sibling = Spill::new_output(stored.store.clone(), stored.retain, true);
                if let Some(created) = &mut sibling.stored {
                    created.sibling = Some(stored.id.clone());
                    stored.sibling = Some(created.id.clone());
                }
                sibling
            }
            None => match (&self.file, &self.failure) {
                (None, Some(failure)) => Spill {
                    in_store: self.in_store,
                    ..Spill::failed(with_suffix(&self.path, suffix), failure.clone())
                },
                _ => Spill::open_named(with_suffix(&self.path, suffix)),
            },
        }
    }

    /// Appends a chunk of the input; a failure is recorded, not returned,
    /// and writing stops.
    pub(crate) fn write(&mut self, chunk: &[u8]) {
        let Some(file) = &mut self.file else { return };
        if self.stored.is_some() {
            self.counters.push(chunk);
        }
        if let Err(err) = file.write_all(chunk) {
            let message = format!("cannot write spill file '{}': {err}", self.path.display());
            self.failure = Some(SpillFailure::new(message, &self.path, Some(err)));
            self.file = None;
        }
    }

    /// What a marker says about it now.
    pub(crate) fn note(&self) -> SpillReport {
        match &self.failure {
            Some(reason) => SpillReport::NotSaved(reason.clone()),
            None => SpillReport::Saved {
                path: self.path.clone(),
                id: self.stored.as_ref().map(|stored| stored.id.clone()),
            },
        }
    }

    /// Closes the file. An output of a store is kept when the output names
    /// it (`named`: it was cut, or summarised) and then entered in the
    /// manifest and retention applied; otherwise it is removed (it was only
    /// a safety copy), as it is when writing it failed (the marker says it
    /// was not saved). Its failure is then only a warning, unless the
    /// output named it.
    pub(crate) fn finish(self, named: bool, facts: &SpillFacts) -> SpillEnd {
        let mut report = Some(self.note());
        drop(self.file);
        let in_store = self.in_store;
        let mut other_failure = None;
        if let Some(stored) = &self.stored {
            let keep = named && self.failure.is_none();
            if self.created && !keep {
                if let Some(SpillReport::Saved { .. }) = report {
                    report = None;
                }
                if let Err(err) = fs::remove_file(&self.path)
                    && err.kind() != io::ErrorKind::NotFound
                {
                    let message =
                        format!("cannot remove spill file '{}': {err}", self.path.display());
                    other_failure = Some(SpillFailure::new(message, &self.path, Some(err)));
                }
            } else if keep {
                let entry = Entry {
                    id: stored.id.clone(),
                    created: store::now_rfc3339(),
                    bytes: self.counters.bytes(),
                    lines: self.counters.lines(),
                    omitted_lines: facts.omitted_lines,
                    command: facts.command.clone(),
                    exit: facts.exit,
                    stderr: stored.stderr,
                };
                let store = &stored.store;
                if let Err(err) = store.record(&entry) {
                    let message = format!(
                        "cannot update the spill store '{}': {err}",
                        store.dir().display()
                    );
                    other_failure = Some(SpillFailure::new(message, store.dir(), Some(err)));
                    // The output is saved, but --show cannot find it, and
                    // under its own name pruning would take it for one
                    // whose writer died.
                    if let Some(SpillReport::Saved { id, path }) = &mut report {
                        *id = None;
                        if let Ok(unlisted) = store.keep_unlisted(&stored.id) {
                            *path = unlisted;
                        }
                    }
                } else if let Err(err) =
                    store.prune(stored.retain.count, stored.retain.bytes, &stored.written())
                {
                    let message = format!(
                        "cannot apply retention to the spill store '{}': {err}",
                        store.dir().display()
                    );
                    other_failure = Some(SpillFailure::new(message, store.dir(), Some(err)));
                }
            }
        }
        let failure = self.failure.map(Problem::Spill);
        let other_failure = other_failure.map(Problem::Spill);
        let (problem, warning) = match (failure, in_store && !named) {
            (Some(failure), true) => (None, Some(failure)),
            (Some(failure), false) => (Some(failure), other_failure),
            (None, _) => (None, other_failure),
        };
        SpillEnd {
            report,
            problem,
            warning,
        }
    }

    /// `--spill FILE`: created or truncated, never through a symlink.
    fn open_named(path: PathBuf) -> Spill {
        match open_named_file(&path) {
            Ok(file) => Spill::opened(path, file, None),
            Err(err) => {
                let message = format!("cannot create spill file '{}': {err}", path.display());
                let reason = SpillFailure::new(message, &path, Some(err));
                Spill::failed(path, reason)
            }
        }
    }

    fn opened(path: PathBuf, file: File, stored: Option<Stored>) -> Spill {
        Spill {
            path,
            file: Some(file),
            failure: None,
            in_store: stored.is_some(),
            stored,
            created: true,
            counters: Counters::default(),
        }
    }

    fn failed(path: PathBuf, reason: SpillFailure) -> Spill {
        Spill {
            path,
            file: None,
            failure: Some(reason),
            stored: None,
            in_store: false,
            created: false,
            counters: Counters::default(),
        }
    }

    /// A store output that could not be created.
    fn failed_in_store(path: PathBuf, reason: SpillFailure) -> Spill {
        Spill {
            in_store: true,
            ..Spill::failed(path, reason)
        }
    }

    fn create_in_store(target: &StoreTarget) -> Spill {
        let dir = absolute(&target.dir);
        match Store::open(&dir) {
            Ok(store) => Spill::new_output(store, Retention::of(target), false),
            Err(reason) => {
                let reason = SpillFailure::new(target.refusal(reason), &dir, None);
                Spill::failed_in_store(dir, reason)
            }
        }
    }

    fn new_output(store: Store, retain: Retention, stderr: bool) -> Spill {
        match store.create_output() {
            Ok((id, path, file, writing)) => {
                let stored = Stored {
                    store,
                    id,
                    retain,
                    stderr,
                    sibling: None,
                    _writing: writing,
                };
                Spill::opened(path, file, Some(stored))
            }
            Err(err) => {
                let message = format!(
                    "cannot create a spill file in '{}': {err}",
                    store.dir().display()
                );
                let reason = SpillFailure::new(message, store.dir(), Some(err));
                Spill::failed_in_store(store.dir().to_path_buf(), reason)
            }
        }
    }
}

/// How many outputs, and how many bytes of them, a store keeps.
#[derive(Clone, Copy, Debug)]
struct Retention {
    count: u64,
    bytes: u64,
}

impl Retention {
    fn of(target: &StoreTarget) -> Retention {
        Retention {
            count: target.retain,
            bytes: target.retain_bytes,
        }
    }
}

/// `path` made absolute against the current directory (without resolving
/// symlinks), so the marker means the same file to a reader elsewhere.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A named spill file is opened without following a final symlink (a
/// planted link in a shared /tmp would otherwise redirect the write), mode
/// 0600 when created.
fn open_named_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(not_followed)
}

/// The error of an open with `O_NOFOLLOW` that met a symlink, said so
/// (the system says only "Too many levels of symbolic links").
pub(crate) fn not_followed(err: io::Error) -> io::Error {
    if err.raw_os_error() == Some(libc::ELOOP) {
        io::Error::other("it is a symbolic link, which toolcap does not follow")
    } else {
        err
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 22: a spill that failed keeps what failed and why, not only
    /// the line the marker prints.
    #[test]
    fn a_failed_spill_keeps_its_path_and_its_error() {
        let path = PathBuf::from("/nonexistent/dir/full.log");
        let spill = Spill::create(&SpillTarget::File(path.clone()));
        let Some(SpillReport::NotSaved(failure)) =
            spill.finish(true, &SpillFacts::default()).report
        else {
            panic!("a spill into a missing directory is not saved");
        };
        assert_eq!(failure.path(), path);
        assert_eq!(
            failure.io_error().map(io::Error::kind),
            Some(io::ErrorKind::NotFound)
        );
        assert!(
            failure
                .to_string()
                .starts_with("cannot create spill file '/nonexistent/dir/full.log': "),
            "{failure}"
        );
    }
}
