//! Spill files: the raw input, saved byte for byte as it is read, before
//! any transform, so nothing is ever lost.
//!
//! A spill never stops the capped output: when a file cannot be created or
//! written, the failure is recorded, the marker says so, and reading goes
//! on. A spill file must never destroy what toolcap reads or writes, and
//! never be written through a planted symlink: both are checked here.

use std::ffi::OsString;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Error, Problem};
use crate::report::SpillReport;
use crate::source::Input;
use crate::sys;

/// Where the user asked the full output to go.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpillTarget {
    /// `--spill FILE`: created or truncated, mode 0600 when created; never
    /// through a symlink.
    File(PathBuf),
    /// `--spill-dir DIR`: a new, unpredictably named file in DIR, removed at
    /// the end when the output was not truncated.
    Dir(PathBuf),
}

/// How often a random name may collide before we give up; with 64 random
/// bits a single collision is already beyond belief.
const NAME_ATTEMPTS: usize = 8;

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
    failure: Option<String>,
    /// A `--spill-dir` file: removed at the end unless the output was cut,
    /// and its failure loses nothing then.
    temporary: bool,
    /// Whether this run created the file: only such a file is ever removed
    /// (a failed spill's path may name someone else's file).
    created: bool,
}

/// What became of a spill at the end of its stream.
pub(crate) struct SpillEnd {
    pub(crate) report: SpillReport,
    /// A failure that fails the run.
    pub(crate) problem: Option<Problem>,
    /// A failure that lost nothing (the output was not cut).
    pub(crate) warning: Option<Problem>,
}

impl Spill {
    /// Opens the spill file for the main stream.
    pub(crate) fn create(target: &SpillTarget) -> Spill {
        match target {
            SpillTarget::File(path) => Spill::open(absolute(path), false),
            SpillTarget::Dir(dir) => Spill::create_in_dir(&absolute(dir)),
        }
    }

    /// Opens PATH + `suffix` under the same rules (for a child's stderr).
    pub(crate) fn create_sibling(&self, suffix: &str) -> Spill {
        let path = with_suffix(&self.path, suffix);
        match &self.failure {
            Some(failure) if self.file.is_none() => {
                Spill::failed(path, failure.clone(), self.temporary)
            }
            _ => Spill::open(path, self.temporary),
        }
    }

    /// Appends a chunk of the input; a failure is recorded, not returned,
    /// and writing stops.
    pub(crate) fn write(&mut self, chunk: &[u8]) {
        let Some(file) = &mut self.file else { return };
        if let Err(err) = file.write_all(chunk) {
            self.failure = Some(format!(
                "cannot write spill file '{}': {err}",
                self.path.display()
            ));
            self.file = None;
        }
    }

    /// What a marker says about it now.
    pub(crate) fn note(&self) -> SpillReport {
        match &self.failure {
            Some(reason) => SpillReport::NotSaved(reason.clone()),
            None => SpillReport::Saved(self.path.clone()),
        }
    }

    /// Closes the file. A `--spill-dir` file is removed when the output was
    /// not `truncated` (it was only a safety copy) or when writing it failed
    /// (the marker says it was not saved); its failure is then only a
    /// warning unless the output was cut.
    pub(crate) fn finish(self, truncated: bool) -> SpillEnd {
        let report = self.note();
        drop(self.file);
        let remove = self.created && self.temporary && (!truncated || self.failure.is_some());
        let mut removal_failure = None;
        if remove
            && let Err(err) = fs::remove_file(&self.path)
            && err.kind() != io::ErrorKind::NotFound
        {
            removal_failure = Some(Problem::Spill(format!(
                "cannot remove spill file '{}': {err}",
                self.path.display()
            )));
        }
        let failure = self.failure.map(Problem::Spill);
        let (problem, warning) = match (failure, self.temporary && !truncated) {
            (Some(failure), true) => (None, Some(failure)),
            (Some(failure), false) => (Some(failure), removal_failure),
            (None, _) => (None, removal_failure),
        };
        SpillEnd {
            report,
            problem,
            warning,
        }
    }

    fn open(path: PathBuf, temporary: bool) -> Spill {
        let opened = open_file(&path, temporary);
        Spill::from_opened(path, opened, temporary)
    }

    fn from_opened(path: PathBuf, opened: io::Result<File>, temporary: bool) -> Spill {
        match opened {
            Ok(file) => Spill {
                path,
                file: Some(file),
                failure: None,
                temporary,
                created: true,
            },
            Err(err) => {
                let reason = format!("cannot create spill file '{}': {err}", path.display());
                Spill::failed(path, reason, temporary)
            }
        }
    }

    fn failed(path: PathBuf, reason: String, temporary: bool) -> Spill {
        Spill {
            path,
            file: None,
            failure: Some(reason),
            temporary,
            created: false,
        }
    }

    fn create_in_dir(dir: &Path) -> Spill {
        if let Err(reason) = make_private_dir(dir) {
            return Spill::failed(dir.to_path_buf(), reason, true);
        }
        let mut attempts = 0;
        loop {
            let path = match unpredictable_name() {
                Ok(name) => dir.join(name),
                Err(err) => {
                    let reason = format!("cannot name a spill file in '{}': {err}", dir.display());
                    return Spill::failed(dir.to_path_buf(), reason, true);
                }
            };
            attempts += 1;
            match open_file(&path, true) {
                Err(err)
                    if err.kind() == io::ErrorKind::AlreadyExists && attempts < NAME_ATTEMPTS =>
                {
                    continue;
                }
                opened => return Spill::from_opened(path, opened, true),
            }
        }
    }
}

/// Creates DIR (mode 0700) and its parents if missing.
fn make_private_dir(dir: &Path) -> Result<(), String> {
    let cannot = |reason: &dyn std::fmt::Display| {
        format!(
            "cannot create spill directory '{}': {reason}",
            dir.display()
        )
    };
    match fs::metadata(dir) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err(cannot(&"not a directory")),
        Err(_) => DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|err| cannot(&err)),
    }
}

/// `path` made absolute against the current directory (without resolving
/// symlinks), so the marker means the same file to a reader elsewhere.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Exclusive creation never follows or reuses an existing file, which is
/// what a shared spill directory needs; a named file is opened without
/// following a final symlink (a planted link in a shared /tmp would
/// otherwise redirect the write); mode 0600 keeps the output private.
fn open_file(path: &Path, exclusive: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).mode(0o600);
    if exclusive {
        options.create_new(true);
    } else {
        options
            .create(true)
            .truncate(true)
            .custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path).map_err(|err| {
        if err.raw_os_error() == Some(libc::ELOOP) {
            io::Error::other("it is a symbolic link, which toolcap does not follow")
        } else {
            err
        }
    })
}

/// `toolcap-<seconds since the epoch>-<64 random bits>.log`: sortable by
/// time, and not guessable by another user of a shared directory.
fn unpredictable_name() -> io::Result<String> {
    let mut random = [0u8; 8];
    File::open("/dev/urandom")?.read_exact(&mut random)?;
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Ok(format!(
        "toolcap-{seconds}-{:016x}.log",
        u64::from_ne_bytes(random)
    ))
}
