//! Helpers shared by the test modules.

use std::process::Command as StdCommand;
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
    command.stdin(std::process::Stdio::null());
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

pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolcap-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
