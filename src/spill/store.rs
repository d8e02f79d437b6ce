//! The spill store: a private directory of full outputs, each under a short
//! id, listed in a manifest (`index.jsonl`, one JSON line per output) that
//! `--list`, `--show` and `--summary` read, and bounded by retention.
//!
//! Concurrent toolcaps share a store safely: outputs are created
//! exclusively under fresh random names, and every manifest change (an
//! append, or a rewrite when pruning) happens under an exclusive flock on
//! `index.lock`. An output is entered in the manifest only once it is
//! complete; until then its writer holds a flock on it, taken as it was
//! created (under `index.lock`, so pruning never sees it unlocked). Pruning
//! removes what the manifest lists, and an output that it does not list
//! and no one holds: its writer died (killed, say) before it could record
//! it. So an output another toolcap is still writing is never deleted, and
//! one that no run will ever record does not stay forever.
//!
//! A manifest line that is not an entry (torn by a crash or a full disk,
//! edited by hand, written by a newer version) is skipped when reading,
//! named in a warning by the store commands, and kept as it is when
//! pruning rewrites the manifest: toolcap never deletes what it cannot
//! read. An append after a torn last line starts a line of its own.
//!
//! The store is confined (issue 21): a manifest is data, not a list of
//! paths to act on. An output's file is always `ID.log` in the store,
//! derived from its id, and an id is only ever [`ID_BYTES`] in lower-case
//! hex, so no manifest line can make toolcap read or delete a path outside
//! the store. A line whose id is of another alphabet, or whose `file`
//! names anything but its id's own file (`/tmp/precious`, `../x`), is not
//! an output: skipped and kept like a line that cannot be read. Stored
//! outputs are opened without following a symlink.

use std::collections::HashSet;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::sys::{self, FileLock};

const MANIFEST: &str = "index.jsonl";
const LOCK: &str = "index.lock";
/// Random bytes in an id: 8 hex digits, short enough to type, and a fresh
/// name is taken exclusively, so a clash only means another draw.
const ID_BYTES: usize = 4;
/// The hex digits of an id, for messages.
pub(crate) const ID_DIGITS: usize = 2 * ID_BYTES;
/// How often a random id may clash before we give up.
const ID_ATTEMPTS: usize = 16;

/// A store, checked: a directory of ours that no one else can write.
#[derive(Clone, Debug)]
pub(crate) struct Store {
    dir: PathBuf,
}

/// One output in the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// [`ID_BYTES`] in lower-case hex: its file is `ID.log` in the store.
    pub(crate) id: String,
    /// RFC 3339, UTC.
    pub(crate) created: String,
    pub(crate) bytes: u64,
    pub(crate) lines: u64,
    /// The raw lines the cut left out.
    pub(crate) omitted_lines: Option<[u64; 2]>,
    /// In wrap mode: the command's argv, and how it exited (the status
    /// toolcap passed on).
    pub(crate) command: Option<Vec<String>>,
    pub(crate) exit: Option<i64>,
    /// A command's separate stderr (`"stream": "stderr"`), not its output.
    pub(crate) stderr: bool,
}

/// The outputs of a manifest, oldest first, and the lines that are not
/// outputs.
#[derive(Debug)]
pub(crate) struct Entries {
    pub(crate) outputs: Vec<Entry>,
    /// The manifest lines that are not outputs: their 1-based numbers, and
    /// why.
    pub(crate) skipped: Vec<(usize, Skipped)>,
}

/// Why a manifest line is not an output of the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Skipped {
    /// Not an entry: torn, corrupt, or a newer version's.
    Unreadable,
    /// An entry whose id is not one toolcap makes (the id as written).
    ForeignId(String),
    /// An entry whose `file` is not its id's own `ID.log` (a path, say):
    /// the id, and the `file` as written (a JSON value that is not a
    /// string, as JSON).
    ForeignFile { id: String, file: String },
}

/// One line of the manifest as read.
enum ManifestLine {
    Entry(Entry),
    /// Not an output: kept byte for byte, never acted on.
    Skipped(Vec<u8>, Skipped),
}

impl Store {
    /// Opens the store at `dir`, creating it (mode 0700) if missing.
    /// Refuses a store that belongs to another user or that others can
    /// write: a shared `/tmp` must not let anyone plant or read outputs.
    pub(crate) fn open(dir: &Path) -> Result<Store, String> {
        let cannot = |why: &dyn std::fmt::Display| {
            format!("cannot create spill directory '{}': {why}", dir.display())
        };
        match fs::metadata(dir) {
            Ok(metadata) if !metadata.is_dir() => return Err(cannot(&"not a directory")),
            Ok(_) => {}
            // mkdir would only say "File exists".
            Err(_) if let Some(why) = dangling_link(dir) => return Err(cannot(&why)),
            Err(_) => DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|err| cannot(&err))?,
        }
        Store::checked(dir)
    }

    /// The store at `dir`, as [`open`](Store::open) would refuse or accept
    /// it, or `None` when there is none: for the commands that only read
    /// or prune a store, so that a mistyped `--spill-dir` leaves no empty
    /// store behind.
    pub(crate) fn open_existing(dir: &Path) -> Result<Option<Store>, String> {
        match fs::metadata(dir) {
            Err(_) if let Some(why) = dangling_link(dir) => Err(format!(
                "cannot read spill directory '{}': {why}",
                dir.display()
            )),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
            Ok(metadata) if !metadata.is_dir() => Err(format!(
                "spill directory '{}' is not a directory",
                dir.display()
            )),
            _ => Store::checked(dir).map(Some),
        }
    }

    /// Refuses a store that belongs to another user or that others can
    /// write.
    fn checked(dir: &Path) -> Result<Store, String> {
        let refuse = |why: &str| format!("refusing spill directory '{}': {why}", dir.display());
        let metadata = fs::metadata(dir).map_err(|err| refuse(&err.to_string()))?;
        if metadata.uid() != sys::effective_uid() {
            return Err(refuse("it belongs to another user"));
        }
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o022 != 0 {
            return Err(refuse(&format!(
                "others can write to it (mode {mode:04o}); make it private with chmod 700"
            )));
        }
        Ok(Store {
            dir: dir.to_path_buf(),
        })
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates a new output file under a fresh id: exclusively (never an
    /// existing file, never through a symlink), mode 0600. Also returns a
    /// copy of its descriptor that holds a flock on it, which its writer
    /// keeps open until the output is in the manifest (see the module's
    /// comment); `None` where flock fails (some network filesystems): the
    /// output is still written, and pruning cannot judge it either.
    pub(crate) fn create_output(&self) -> io::Result<(String, PathBuf, File, Option<File>)> {
        // Where flock works, pruning never sees the output unlocked.
        let _manifest = self.lock().ok();
        let mut attempts = 0;
        loop {
            let id = random_id()?;
            let path = self.dir.join(output_file(&id));
            let created = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path);
            attempts += 1;
            match created {
                Err(err)
                    if err.kind() == io::ErrorKind::AlreadyExists && attempts < ID_ATTEMPTS => {}
                Err(err) => return Err(err),
                Ok(file) => {
                    let writing = file
                        .try_clone()
                        .ok()
                        .filter(|copy| sys::lock_exclusive(copy, true).is_ok());
                    return Ok((id, path, file, writing));
                }
            }
        }
    }

    /// Gives an output that could not be entered in the manifest a name
    /// that pruning leaves alone (`ID.unlisted.log`), as its path was
    /// printed; returns the new path.
    pub(crate) fn keep_unlisted(&self, id: &str) -> io::Result<PathBuf> {
        let unlisted = self.dir.join(format!("{id}.unlisted.log"));
        fs::rename(self.dir.join(output_file(id)), &unlisted)?;
        Ok(unlisted)
    }

    /// Appends `entry` to the manifest, whole, under the lock.
    pub(crate) fn record(&self, entry: &Entry) -> io::Result<()> {
        let _lock = self.lock()?;
        let file = OpenOptions::new()
            .append(true)
            .read(true)
            .create(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.manifest_path())?;
        let mut line = Vec::new();
        // After a torn last line, a line of its own.
        let length = file.metadata()?.len();
        if let Some(last) = length.checked_sub(1) {
            let mut byte = [0];
            file.read_exact_at(&mut byte, last)?;
            if byte != *b"\n" {
                line.push(b'\n');
            }
        }
        line.extend_from_slice(entry.to_json().to_string().as_bytes());
        line.push(b'\n');
        // One write of the whole line, appended: nothing can come between.
        (&file).write_all(&line)
    }

    /// The outputs in the manifest, oldest first, and the lines that are
    /// not outputs.
    pub(crate) fn entries(&self) -> io::Result<Entries> {
        let mut entries = Entries {
            outputs: Vec::new(),
            skipped: Vec::new(),
        };
        for (number, line) in self.read_manifest()?.into_iter().enumerate() {
            match line {
                ManifestLine::Entry(entry) => entries.outputs.push(entry),
                ManifestLine::Skipped(_, why) => entries.skipped.push((number + 1, why)),
            }
        }
        Ok(entries)
    }

    fn manifest_path(&self) -> PathBuf {
        self.dir.join(MANIFEST)
    }

    /// The manifest as it is; empty when there is none yet.
    /// Never read through a symlink, as it is never written through one.
    fn manifest_bytes(&self) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        match open_output(&self.manifest_path()) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(bytes),
            Err(err) => Err(err),
            Ok(mut file) => file.read_to_end(&mut bytes).map(|_| bytes),
        }
    }

    /// The manifest's lines (a last line without its newline too).
    fn read_manifest(&self) -> io::Result<Vec<ManifestLine>> {
        let bytes = self.manifest_bytes()?;
        let text = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        if text.is_empty() {
            return Ok(Vec::new());
        }
        Ok(text
            .split(|&byte| byte == b'\n')
            .map(|line| match Entry::from_line(line) {
                Ok(entry) => ManifestLine::Entry(entry),
                Err(why) => ManifestLine::Skipped(line.to_vec(), why),
            })
            .collect())
    }

    /// The name of this store's manifest, for messages.
    pub(crate) fn manifest_name(&self) -> String {
        self.manifest_path().display().to_string()
    }

    /// The path of an output's file: `ID.log` in the store, whatever the
    /// manifest says (an entry's id is an id: see [`Entry::from_line`]).
    pub(crate) fn path_of(&self, entry: &Entry) -> PathBuf {
        self.dir.join(output_file(&entry.id))
    }

    /// Deletes the oldest outputs until at most `count` remain and they
    /// hold at most `bytes`, and the outputs no run will record (see
    /// [`remove_orphans`](Store::remove_orphans)), under the lock. Returns
    /// how many went.
    ///
    /// `spare` are the ids of outputs never deleted: those just written,
    /// which their markers name (they stay even when they alone are over
    /// `bytes`).
    pub(crate) fn prune(&self, count: u64, bytes: u64, spare: &[&str]) -> io::Result<usize> {
        let _lock = self.lock()?;
        let retired = self.retain(count, bytes, spare)?;
        Ok(retired + self.remove_orphans()?)
    }

    /// Deletes the oldest outputs until at most `count` remain and they
    /// hold at most `bytes`, stopping at the first of `spare`; rewrites the
    /// manifest atomically (a temporary file renamed over it), keeping the
    /// lines that are not entries.
    fn retain(&self, count: u64, bytes: u64, spare: &[&str]) -> io::Result<usize> {
        let lines = self.read_manifest()?;
        let outputs: Vec<&Entry> = lines
            .iter()
            .filter_map(|line| match line {
                ManifestLine::Entry(entry) => Some(entry),
                ManifestLine::Skipped(..) => None,
            })
            .collect();
        let mut kept_bytes = outputs
            .iter()
            .fold(0u64, |sum, entry| sum.saturating_add(entry.bytes));
        let mut drop = 0;
        while drop < outputs.len()
            && ((outputs.len() - drop) as u64 > count || kept_bytes > bytes)
            && !spare.contains(&outputs[drop].id.as_str())
        {
            kept_bytes = kept_bytes.saturating_sub(outputs[drop].bytes);
            drop += 1;
        }
        if drop == 0 {
            return Ok(0);
        }
        let dropped = &outputs[..drop];
        let mut rewritten = Vec::new();
        let mut seen = 0;
        for line in &lines {
            match line {
                ManifestLine::Entry(entry) => {
                    seen += 1;
                    if seen <= drop {
                        continue;
                    }
                    rewritten.extend_from_slice(entry.to_json().to_string().as_bytes());
                }
                ManifestLine::Skipped(text, _) => rewritten.extend_from_slice(text),
            }
            rewritten.push(b'\n');
        }
        let temporary = self.dir.join(format!("{MANIFEST}.{}", random_id()?));
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)?;
        file.write_all(&rewritten)?;
        file.sync_all()?;
        fs::rename(&temporary, self.manifest_path())?;
        for entry in dropped {
            remove_if_present(&self.path_of(entry))?;
        }
        Ok(drop)
    }

    /// Deletes each output that no line of the manifest names (readable
    /// or not: toolcap never deletes what it cannot read) and whose flock
    /// no one holds: its writer died before it could record it, and the
    /// flock went with it. Also a manifest rewrite that a crash left
    /// behind. An output whose lock cannot be judged (flock fails) stays.
    /// Called under the lock.
    fn remove_orphans(&self) -> io::Result<usize> {
        let manifest = self.manifest_bytes()?;
        let named = names_in(&manifest);
        let rewrite_prefix = format!("{MANIFEST}.");
        let mut removed = 0;
        for found in fs::read_dir(&self.dir)? {
            let found = found?;
            let name = found.file_name();
            let Some(name) = name.to_str() else { continue };
            let path = found.path();
            if name.strip_suffix(".log").is_some_and(is_id)
                && !named.contains(name)
                && found.file_type().is_ok_and(|kind| kind.is_file())
                && is_abandoned(&path)
            {
                remove_if_present(&path)?;
                removed += 1;
            } else if name.strip_prefix(&rewrite_prefix).is_some_and(is_id) {
                remove_if_present(&path)?;
            }
        }
        Ok(removed)
    }

    fn lock(&self) -> io::Result<FileLock> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.dir.join(LOCK))?;
        FileLock::exclusive(file)
    }
}

impl Entry {
    /// The manifest line of this entry. `file` is written for the versions
    /// before issue 21, which read an output's file from it; it is always
    /// the id's own.
    fn to_json(&self) -> Value {
        let mut entry = json!({
            "id": self.id,
            "file": output_file(&self.id),
            "created": self.created,
            "bytes": self.bytes,
            "lines": self.lines,
            "omitted_lines": self.omitted_lines,
            "command": self.command,
            "exit": self.exit,
        });
        if self.stderr {
            entry["stream"] = json!("stderr");
        }
        entry
    }

    /// The output a manifest line names, or why it is not one: it must be
    /// an entry, its id an id, and its `file`, if it has one (every version
    /// so far wrote it), the id's own `ID.log`.
    fn from_line(line: &[u8]) -> Result<Entry, Skipped> {
        let value: Value = serde_json::from_slice(line).map_err(|_| Skipped::Unreadable)?;
        let entry = Entry::from_json(&value).ok_or(Skipped::Unreadable)?;
        if !is_id(&entry.id) {
            return Err(Skipped::ForeignId(entry.id));
        }
        match value.get("file") {
            None => Ok(entry),
            Some(Value::String(file)) if *file == output_file(&entry.id) => Ok(entry),
            Some(file) => Err(Skipped::ForeignFile {
                file: file
                    .as_str()
                    .map_or_else(|| file.to_string(), str::to_string),
                id: entry.id,
            }),
        }
    }

    fn from_json(value: &Value) -> Option<Entry> {
        let text = |name: &str| value.get(name)?.as_str().map(str::to_string);
        let number = |name: &str| value.get(name)?.as_u64();
        Some(Entry {
            id: text("id")?,
            created: text("created")?,
            bytes: number("bytes")?,
            lines: number("lines")?,
            omitted_lines: value
                .get("omitted_lines")
                .and_then(Value::as_array)
                .and_then(|pair| Some([pair.first()?.as_u64()?, pair.get(1)?.as_u64()?])),
            command: value.get("command").and_then(Value::as_array).map(|argv| {
                argv.iter()
                    .map(|arg| arg.as_str().unwrap_or_default().to_string())
                    .collect()
            }),
            exit: value.get("exit").and_then(Value::as_i64),
            stderr: value.get("stream").and_then(Value::as_str) == Some("stderr"),
        })
    }
}

/// The output file names (`ID.log`) that `manifest` holds anywhere, in
/// entries or in lines that are not.
fn names_in(manifest: &[u8]) -> HashSet<&str> {
    const SUFFIX: &[u8] = b".log";
    memchr::memmem::find_iter(manifest, SUFFIX)
        .filter_map(|at| {
            let start = at.checked_sub(ID_DIGITS)?;
            std::str::from_utf8(&manifest[start..at + SUFFIX.len()]).ok()
        })
        .filter(|name| name.strip_suffix(".log").is_some_and(is_id))
        .collect()
}

/// Why `dir` is missing when a symlink on its way leads nowhere (or
/// cannot be followed), naming the link and where it points; `None` when
/// no link is to blame.
fn dangling_link(dir: &Path) -> Option<String> {
    dir.ancestors().find_map(|path| {
        let target = fs::read_link(path).ok()?;
        let err = fs::metadata(path).err()?;
        let which = if path == dir {
            "it".to_string()
        } else {
            format!("'{}'", path.display())
        };
        let why = match err.kind() {
            io::ErrorKind::NotFound => "which does not exist".to_string(),
            _ => format!("which cannot be followed: {err}"),
        };
        Some(format!(
            "{which} is a symbolic link to '{}', {why}",
            target.display()
        ))
    })
}

/// Opens a stored output (or the manifest) for reading, never through a
/// symlink: a link in the store must not make `--show` print a file
/// outside it.
pub(crate) fn open_output(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(super::not_followed)
}

/// Whether no one holds a flock on the output at `path`: its writer is
/// gone. Opened for writing, which an exclusive lock needs where flock is
/// emulated with record locks (NFS); any failure means "cannot tell".
fn is_abandoned(path: &Path) -> bool {
    OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .is_ok_and(|output| matches!(sys::lock_exclusive(&output, false), Ok(true)))
}

/// The name of the file that holds output `id`.
pub(crate) fn output_file(id: &str) -> String {
    format!("{id}.log")
}

/// Whether `name` has the shape of an id: [`ID_BYTES`] in lower-case hex.
fn is_id(name: &str) -> bool {
    name.len() == ID_DIGITS
        && name
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
}

/// Removes a file; one that is gone already is no error.
fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
        _ => Ok(()),
    }
}

/// `ID_BYTES` random bytes as hex.
fn random_id() -> io::Result<String> {
    let mut random = [0u8; ID_BYTES];
    File::open("/dev/urandom")?.read_exact(&mut random)?;
    Ok(random.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// The time now as RFC 3339 in UTC, to the second: `2026-12-01T05:30:00Z`.
pub(crate) fn now_rfc3339() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    rfc3339(seconds)
}

/// Seconds since the epoch as an RFC 3339 UTC timestamp (civil-from-days,
/// the proleptic Gregorian calendar).
fn rfc3339(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let time = seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        time / 3_600,
        time / 60 % 60,
        time % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_102_376), "2026-12-01T05:19:36Z");
        assert_eq!(rfc3339(4_107_542_399), "2100-02-28T23:59:59Z");
    }

    #[test]
    fn a_manifest_line_is_an_output_only_with_an_id_and_its_own_file() {
        let line = |id: &str, file: Option<&str>| {
            let mut value = json!({"id": id, "created": "t", "bytes": 1, "lines": 1});
            if let Some(file) = file {
                value["file"] = json!(file);
            }
            Entry::from_line(value.to_string().as_bytes()).map(|entry| entry.id)
        };
        assert_eq!(
            line("0123abcd", Some("0123abcd.log")),
            Ok("0123abcd".into())
        );
        assert_eq!(line("0123abcd", None), Ok("0123abcd".into()));
        let foreign = |file: &str| {
            Err(Skipped::ForeignFile {
                id: "0123abcd".into(),
                file: file.into(),
            })
        };
        for file in [
            "/tmp/precious",
            "../x",
            "0123abcd.log/",
            "./0123abcd.log",
            "89abcdef.log",
            "",
        ] {
            assert_eq!(line("0123abcd", Some(file)), foreign(file), "{file}");
        }
        for id in [
            "../x",
            "0123ABCD",
            "0123abc",
            "0123abcde",
            "",
            "0123abc/",
            "0123abc\u{e9}",
        ] {
            assert_eq!(
                line(id, Some(&format!("{id}.log"))),
                Err(Skipped::ForeignId(id.into())),
                "{id}"
            );
        }
        let number = json!({"id": "0123abcd", "file": 7, "created": "t", "bytes": 1, "lines": 1});
        assert_eq!(
            Entry::from_line(number.to_string().as_bytes()).map(|entry| entry.id),
            Err(Skipped::ForeignFile {
                id: "0123abcd".into(),
                file: "7".into()
            })
        );
        assert_eq!(
            Entry::from_line(b"{\"id\":\"0123abcd\"}").map(|e| e.id),
            Err(Skipped::Unreadable)
        );
        assert_eq!(
            Entry::from_line(b"torn").map(|e| e.id),
            Err(Skipped::Unreadable)
        );
    }

    #[test]
    fn the_names_a_manifest_holds_are_found_in_any_line() {
        let manifest = b"{\"file\":\"0123abcd.log\",\"id\":\"0123abcd\"}\n\
            not json, but 89abcdef.log\n{\"file\":\"feedf00d.lo\n\
            ABCDEF12.log x0123abcd5.log 0123abc.log deadbeef.log.stderr";
        let mut names: Vec<&str> = names_in(manifest).into_iter().collect();
        names.sort_unstable();
        // Upper case, or one digit short, is not an id; nine digits end in
        // an id.
        assert_eq!(
            names,
            [
                "0123abcd.log",
                "123abcd5.log",
                "89abcdef.log",
                "deadbeef.log"
            ]
        );
    }
}
