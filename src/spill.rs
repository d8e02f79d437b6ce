//! Spill files: the full input, saved as it is read, so nothing is lost.
//!
//! A spill never stops the capped output: when a file cannot be created or
//! written, the failure is recorded, the marker says so, and reading goes on.

use std::ffi::OsString;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::render::SpillNote;

/// Where the user asked the full output to go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpillTarget {
    /// `--spill FILE`: created or truncated, mode 0600 when created.
    File(PathBuf),
    /// `--spill-dir DIR`: a new, unpredictably named file in DIR, removed at
    /// the end when the output was not truncated.
    Dir(PathBuf),
}

/// How often a random name may collide before we give up; with 64 random
/// bits a single collision is already beyond belief.
const NAME_ATTEMPTS: usize = 8;

pub struct Spill {
    path: PathBuf,
    file: Option<File>,
    failure: Option<String>,
    remove_unless_truncated: bool,
}

impl Spill {
    /// Opens the spill file for the main output stream.
    pub fn create(target: &SpillTarget) -> Spill {
        match target {
            SpillTarget::File(path) => Spill::open(path.clone(), false),
            SpillTarget::Dir(dir) => Spill::create_in_dir(dir),
        }
    }

    /// Opens PATH + `suffix` under the same rules (for a child's stderr).
    pub fn create_sibling(&self, suffix: &str) -> Spill {
        let mut name = OsString::from(self.path.as_os_str());
        name.push(suffix);
        let path = PathBuf::from(name);
        match &self.failure {
            Some(failure) if self.file.is_none() => Spill::failed(path, failure.clone()),
            _ => Spill::open(path, self.remove_unless_truncated),
        }
    }

    /// Appends a chunk of the input; a failure is recorded, not returned.
    pub fn write(&mut self, chunk: &[u8]) {
        let Some(file) = &mut self.file else { return };
        if let Err(err) = file.write_all(chunk) {
            self.failure = Some(format!(
                "cannot write spill file '{}': {err}",
                self.path.display()
            ));
            self.file = None;
        }
    }

    /// What the truncation marker says about this spill.
    pub fn note(&self) -> SpillNote<'_> {
        match &self.failure {
            Some(reason) => SpillNote::NotSaved(reason),
            None => SpillNote::SavedIn(self.path.as_os_str().as_bytes()),
        }
    }

    /// Closes the file, removes it if it was only a safety copy of output
    /// that fitted, and returns the failure to report, if any.
    pub fn finish(self, truncated: bool) -> Option<String> {
        drop(self.file);
        if self.remove_unless_truncated
            && !truncated
            && let Err(err) = fs::remove_file(&self.path)
            && err.kind() != io::ErrorKind::NotFound
            && self.failure.is_none()
        {
            return Some(format!(
                "cannot remove spill file '{}': {err}",
                self.path.display()
            ));
        }
        self.failure
    }

    fn open(path: PathBuf, exclusive: bool) -> Spill {
        let opened = open_file(&path, exclusive);
        Spill::from_opened(path, opened, exclusive)
    }

    fn from_opened(path: PathBuf, opened: io::Result<File>, exclusive: bool) -> Spill {
        match opened {
            Ok(file) => Spill {
                path,
                file: Some(file),
                failure: None,
                remove_unless_truncated: exclusive,
            },
            Err(err) => {
                let reason = format!("cannot create spill file '{}': {err}", path.display());
                Spill::failed(path, reason)
            }
        }
    }

    fn failed(path: PathBuf, reason: String) -> Spill {
        Spill {
            path,
            file: None,
            failure: Some(reason),
            remove_unless_truncated: false,
        }
    }

    fn create_in_dir(dir: &Path) -> Spill {
        if let Err(err) = DirBuilder::new().recursive(true).mode(0o700).create(dir) {
            let reason = format!("cannot create spill directory '{}': {err}", dir.display());
            return Spill::failed(dir.to_path_buf(), reason);
        }
        let mut attempts = 0;
        loop {
            let path = match unpredictable_name() {
                Ok(name) => dir.join(name),
                Err(err) => {
                    let reason = format!("cannot name a spill file in '{}': {err}", dir.display());
                    return Spill::failed(dir.to_path_buf(), reason);
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

/// Exclusive creation never follows or reuses an existing file, which is
/// what a shared spill directory needs; mode 0600 keeps the output private.
fn open_file(path: &Path, exclusive: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).mode(0o600);
    if exclusive {
        options.create_new(true);
    } else {
        options.create(true).truncate(true);
    }
    options.open(path)
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
