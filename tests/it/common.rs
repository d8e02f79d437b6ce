//! Helpers shared by the test modules: running toolcap hermetically, the
//! expected output, and cleaning up after a test even when it panics.

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use assert_cmd::Command;

/// No test may take longer than this, even when a child hangs.
pub const TIMEOUT: Duration = Duration::from_secs(60);

pub const BIN: &str = env!("CARGO_BIN_EXE_toolcap");

/// toolcap, with the user's TOOLCAP_* settings removed and a timeout.
pub fn toolcap() -> Command {
    let mut command = Command::from_std(std_toolcap());
    command.timeout(TIMEOUT);
    command
}

/// The same, as a plain process for tests that need signals or pids. Its
/// stdin is /dev/null unless a test sets one: CI may run with none at all.
pub fn std_toolcap() -> StdCommand {
    let mut command = StdCommand::new(BIN);
    command.stdin(Stdio::null());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TOOLCAP_") {
            command.env_remove(name);
        }
    }
    command
}

/// Runs toolcap with `args` on `input` and expects success and exactly
/// `expected` on stdout.
pub fn assert_output(args: &[&str], input: impl Into<Vec<u8>>, expected: impl Into<Vec<u8>>) {
    toolcap()
        .args(args)
        .write_stdin(input.into())
        .assert()
        .success()
        .stdout(expected.into());
}

/// Runs toolcap with `args` on `input` and expects the cut output: `lines`
/// lines in all, `head` kept, `omitted` bytes replaced by the marker, `tail`
/// kept.
pub fn assert_truncated(
    args: &[&str],
    input: impl AsRef<[u8]>,
    lines: usize,
    head: &[u8],
    omitted: usize,
    tail: &[u8],
) {
    let input = input.as_ref();
    let marker = format!("[... {omitted} bytes truncated ...]");
    assert_output(
        args,
        input,
        truncated(input.len(), lines, head, &marker, tail),
    );
}

/// The exact output for a truncated input: header, head, marker, tail.
pub fn truncated(
    total_bytes: usize,
    lines: usize,
    head: &[u8],
    marker: &str,
    tail: &[u8],
) -> Vec<u8> {
    let mut out = format!(
        "Warning: truncated output (original token count: {})\nTotal output lines: {lines}\n\n",
        total_bytes.div_ceil(4)
    )
    .into_bytes();
    out.extend_from_slice(head);
    if head.last().is_some_and(|&b| b != b'\n') {
        out.push(b'\n');
    }
    out.extend_from_slice(marker.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(tail);
    out
}

/// `count` lines of `line` (which must end in `\n`).
pub fn repeated(line: &str, count: usize) -> Vec<u8> {
    line.repeat(count).into_bytes()
}

/// A fresh directory for one test, removed with everything in it when
/// dropped, also when the test panics.
pub struct TempDir(PathBuf);

impl TempDir {
    /// `toolcap-test-<pid>-<n>-<name>` in the system's temporary directory:
    /// the pid keeps concurrent runs apart, the counter keeps two tests of
    /// one run apart even if they pick the same name.
    pub fn new(name: &str) -> TempDir {
        static CREATED: AtomicUsize = AtomicUsize::new(0);
        let n = CREATED.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("toolcap-test-{}-{n}-{name}", std::process::id()));
        // Only a run that was killed before its cleanup, with our pid, can
        // have left this one.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir(&path)
            .unwrap_or_else(|err| panic!("cannot create '{}': {err}", path.display()));
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join(&self, path: impl AsRef<Path>) -> PathBuf {
        self.0.join(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Err(err) = std::fs::remove_dir_all(&self.0) {
            cleanup_failed(format!("cannot remove '{}': {err}", self.0.display()));
        }
    }
}

/// A failed cleanup fails the test, unless it is failing already: a second
/// panic while unwinding would abort the whole run and hide the first one.
fn cleanup_failed(message: String) {
    if std::thread::panicking() {
        eprintln!("cleanup failed too: {message}");
    } else {
        panic!("{message}");
    }
}
