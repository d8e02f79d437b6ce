//! `--live`: the head as it arrives, the rest at the end.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{
    KillOnDrop, Need, TempDir, assert_output, repeated, require, std_toolcap, toolcap,
};

#[test]
fn live_output_that_fits_is_unchanged() {
    let input = repeated("progress\n", 10);
    assert_output(&["--live"], input.clone(), input);
}

#[test]
fn live_output_puts_the_header_lines_last() {
    let input = repeated("abcd\n", 10);
    toolcap()
        .args(["--live", "--max", "10"])
        .write_stdin(input)
        .assert()
        .success()
        .stdout(
            "abcd\n[... 40 bytes truncated ...]\nabcd\n\
             Warning: truncated output (original token count: 13)\nTotal output lines: 10\n",
        );
    toolcap()
        .args(["--live", "--max", "10", "--no-header"])
        .write_stdin("0123456789abcdef")
        .assert()
        .stdout("01234\n[... 6 bytes truncated ...]\nbcdef");
}

/// Also with `--clean`, whose binary check would hold the first 8 KiB
/// back to look for a NUL: live, the first read decides.
#[test]
fn live_shows_the_first_line_while_the_command_runs() {
    for options in [&["--live"][..], &["--live", "--clean"]] {
        shows_the_first_line_while_the_command_runs(options);
    }
}

fn shows_the_first_line_while_the_command_runs(options: &[&str]) {
    let dir = TempDir::new("live-first-line");
    // If an assertion fails before the SIGTERM below, toolcap, the shell
    // and its `sleep` would run on: the guard kills them.
    let mut run = KillOnDrop::group(dir.join("pgid"));
    let script = format!(
        "echo $$ > {}; echo first; sleep 30; echo never",
        run.pgid_file().display()
    );
    let child = run.spawn(
        std_toolcap().with(|c| c.args(options).args(["-c", &script]).stdout(Stdio::piped())),
    );
    let started = Instant::now();
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("piped stdout"))
        .read_line(&mut first)
        .expect("read the first line");
    assert_eq!(first, "first\n");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the line came only at the end with {options:?}"
    );
    crate::common::signals::kill(child.id() as i32, libc::SIGTERM).expect("signal toolcap");
    let status = child.wait().expect("wait for toolcap");
    assert_eq!(status.code(), Some(128 + libc::SIGTERM));
}

#[test]
fn live_stops_reading_when_stdout_closes_and_nothing_is_spilled() {
    // `yes` never ends: only toolcap giving up on the closed pipe ends this,
    // or `timeout` if it does not.
    if !require(Need::Timeout) {
        return;
    }
    let script = format!("yes | {} --live | head -n 1", crate::common::BIN);
    let output = crate::common::command("timeout")
        .args(["30", "sh", "-c", &script])
        .output()
        .expect("run timeout");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, b"y\n");
}
