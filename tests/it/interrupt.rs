//! Signals that end a run early: filter mode prints the capped view of what
//! it read and exits 128+N; in wrap mode a second interrupt kills the
//! command's group.

use std::io::{Read, Write};
use std::process::Stdio;
use std::time::Duration;

use crate::common::{KillOnDrop, TempDir, repeated, std_toolcap, truncated, wait_until};

/// Waits for toolcap to exit (the test fails instead of hanging), then
/// returns its stdout, which is small enough to wait in the pipe.
fn exit_and_stdout(child: &mut std::process::Child) -> (Option<i32>, Vec<u8>) {
    let mut status = None;
    wait_until("toolcap to exit", || {
        status = child.try_wait().expect("poll toolcap");
        status.is_some()
    });
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_end(&mut stdout)
        .expect("read toolcap's stdout");
    (status.and_then(|status| status.code()), stdout)
}

/// Feeds `input` to a filter-mode toolcap that keeps waiting for more,
/// signals it once the spill file shows it read everything, and returns
/// its stdout and exit code.
fn interrupted_filter(args: &[&str], input: &[u8], signal: i32) -> (Vec<u8>, Option<i32>, Vec<u8>) {
    let dir = TempDir::new("interrupted-filter");
    let spill = dir.join("full");
    let mut run = KillOnDrop::new();
    let child = run.spawn(std_toolcap().with(|c| {
        c.args(args)
            .arg("--spill")
            .arg(&spill)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
    }));
    // The writing end stays open: only the signal can end the reading.
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(input).expect("write the input");
    let read_everything = || std::fs::metadata(&spill).is_ok_and(|m| m.len() == input.len() as u64);
    wait_until("toolcap to read the input", read_everything);
    crate::common::signals::kill(child.id() as i32, signal).expect("signal toolcap");
    let (code, stdout) = exit_and_stdout(child);
    drop(stdin);
    let spilled = std::fs::read(&spill).expect("read the spill file");
    let marker_path = spill.display().to_string();
    (
        String::from_utf8_lossy(&stdout)
            .replace(&marker_path, "SPILL")
            .into_bytes(),
        code,
        spilled,
    )
}

#[test]
fn interrupted_filter_prints_what_it_read_and_exits_128_plus_n() {
    let input = repeated("abcd\n", 100);
    for (signal, name) in [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGHUP, "SIGHUP"),
    ] {
        let (stdout, code, spilled) = interrupted_filter(&["--max", "10"], &input, signal);
        let mut expected = truncated(
            500,
            100,
            b"abcd\n",
            "[... 490 bytes truncated (lines 2-99); full output in SPILL ...]",
            b"abcd\n",
        );
        expected.extend_from_slice(
            format!(
                "[input interrupted by signal {signal} ({name}); totals are of what was read]\n"
            )
            .as_bytes(),
        );
        assert_eq!(
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(&expected),
            "{name}"
        );
        assert_eq!(code, Some(128 + signal), "{name}");
        assert_eq!(spilled, input, "{name}: the spill file holds what was read");
    }
}

#[test]
fn interrupted_filter_says_so_even_when_nothing_was_cut() {
    let (stdout, code, _) = interrupted_filter(&[], b"partial line", libc::SIGTERM);
    assert_eq!(
        String::from_utf8_lossy(&stdout),
        "partial line\n[input interrupted by signal 15 (SIGTERM); totals are of what was read]\n"
    );
    assert_eq!(code, Some(128 + libc::SIGTERM));
}

#[test]
fn second_interrupt_kills_a_command_that_traps_both() {
    let dir = TempDir::new("second-interrupt");
    let mut run = KillOnDrop::group(dir.join("pgid"));
    let ready = dir.join("ready");
    let script = format!(
        "echo $$ > {pgid}; trap '' INT TERM; echo started; : > {ready}; sleep 300; echo survived",
        pgid = run.pgid_file().display(),
        ready = ready.display()
    );
    let child = run.spawn(std_toolcap().with(|c| c.args(["-c", &script]).stdout(Stdio::piped())));
    wait_until("the command to start", || ready.exists());
    crate::common::signals::kill(child.id() as i32, libc::SIGINT).expect("signal toolcap");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().expect("poll toolcap").is_none(),
        "the command ignores one SIGINT, so toolcap still runs"
    );
    crate::common::signals::kill(child.id() as i32, libc::SIGTERM).expect("signal toolcap");
    let (code, stdout) = exit_and_stdout(child);
    assert_eq!(code, Some(137));
    assert_eq!(
        String::from_utf8_lossy(&stdout),
        "started\n[killed by signal 9 (SIGKILL)]\n"
    );
}

/// After `toolcap::run::as_toolcap` returns, SIGTERM kills the embedding process as it
/// did before the run: the handlers of the run do not outlive it. The test
/// runs itself again as the embedding process (its own binary, this test
/// only, with a marker variable).
#[test]
fn signals_have_their_default_action_again_after_a_library_run() {
    const CHILD: &str = "EMBEDDED_LIBRARY_RUN";
    if std::env::var_os(CHILD).is_some() {
        for mode in [
            toolcap::run::Mode::Filter(vec![toolcap::run::Input::Stdin]),
            toolcap::run::Mode::Wrap(toolcap::run::WrapConfig::new(vec!["true".into()])),
        ] {
            toolcap::run::as_toolcap(&toolcap::run::Config::new(mode)).expect("run");
        }
        let _ = crate::common::signals::kill(std::process::id() as i32, libc::SIGTERM);
        std::thread::sleep(Duration::from_secs(5));
        println!("STILL ALIVE");
        return;
    }
    let output = crate::common::command(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "interrupt::signals_have_their_default_action_again_after_a_library_run",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the test binary");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        output.status.signal(),
        Some(libc::SIGTERM),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// Plays a program that embeds toolcap: this test binary, run again with
/// `EMBEDDER_TEST_RUN` set and only `test`, runs `play` (which sets
/// the program up and runs toolcap) and prints what it returns, which must
/// be `expected`. assert_cmd's timeout kills it if the library run hangs.
fn as_embedder(test: &str, expected: &str, play: impl FnOnce() -> String) {
    if std::env::var_os("EMBEDDER_TEST_RUN").is_some() {
        println!("EMBEDDED {}", play());
        return;
    }
    let output = crate::common::command(std::env::current_exe().expect("test binary"))
        .timed()
        .args(["--exact", test, "--nocapture", "--test-threads", "1"])
        .env("EMBEDDER_TEST_RUN", "1")
        .output()
        .expect("run the test binary");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}");
    assert!(
        printed.contains(&format!("EMBEDDED {expected}\n")),
        "{printed}"
    );
}

fn wrap_config(
    script: &str,
    timeout: Option<Duration>,
    kill_after: Duration,
) -> toolcap::run::Config {
    let mut wrap =
        toolcap::run::WrapConfig::new(vec!["/bin/sh".into(), "-c".into(), script.into()]);
    wrap.inherit_stdin = false;
    wrap.timeout = timeout;
    wrap.kill_after = kill_after;
    toolcap::run::Config::new(toolcap::run::Mode::Wrap(wrap))
}

/// A program that ignores SIGCHLD (daemons do, to leave no zombies) has its
/// children reaped by the kernel, so the command's status is gone: the run
/// ends anyway, as soon as the command does, and says the status is
/// unknown (before, it polled forever at full speed, deaf to its timeout).
#[test]
fn a_library_run_ends_when_the_embedding_program_ignores_sigchld() {
    as_embedder(
        "interrupt::a_library_run_ends_when_the_embedding_program_ignores_sigchld",
        "status 125 exit Unknown problems [\"the command's exit status is unknown: something \
         else in this process reaped it (is SIGCHLD ignored?)\"] output \"hi\\n[exit status \
         unknown]\\n\"",
        || {
            crate::common::signals::ignore(libc::SIGCHLD);
            let config = wrap_config(
                "echo hi; exit 3",
                Some(Duration::from_secs(50)),
                Duration::from_secs(5),
            );
            let report = toolcap::run::command(&config, || false).expect("run");
            let child = report.child.as_ref().expect("a command");
            let problems: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
            let rendered = toolcap::run::render(&report, &config).expect("render");
            format!(
                "status {} exit {:?} problems {problems:?} output {:?}",
                child.status(),
                child.exit,
                String::from_utf8_lossy(&rendered.output)
            )
        },
    );
}

/// A program that is a subreaper (PID 1 in a container, say) is handed the
/// orphans of the command's group: after a timeout the run reaps those that
/// ended, so it returns once the group is gone, not after `kill_after`,
/// and leaves no zombie behind.
#[test]
fn a_library_run_reaps_orphans_handed_to_a_subreaper() {
    as_embedder(
        "interrupt::a_library_run_reaps_orphans_handed_to_a_subreaper",
        "status 124 quickly true zombies 0",
        || {
            crate::common::signals::become_subreaper();
            // The background child outlives the shell, and takes a moment
            // to end on SIGTERM.
            let script =
                "(trap 'sleep 0.2; exit 0' TERM; while :; do sleep 0.05; done) & sleep 100";
            let config = wrap_config(
                script,
                Some(Duration::from_millis(500)),
                Duration::from_secs(40),
            );
            let started = std::time::Instant::now();
            let report = toolcap::run::command(&config, || false).expect("run");
            let quickly = started.elapsed() < Duration::from_secs(20);
            let zombies = crate::common::signals::reap_ended_children();
            let status = report.child.as_ref().expect("a command").status();
            format!("status {status} quickly {quickly} zombies {zombies}")
        },
    );
}

/// A program that ignores SIGXFSZ (Python does) passes that on across
/// exec; a library run gives the command the default action back, as
/// Python's `subprocess` does, so a command over its file-size limit is
/// stopped by the signal (128+25) as under a shell, instead of failing
/// to write.
#[test]
fn a_library_run_gives_the_command_sigxfsz_back() {
    as_embedder(
        "interrupt::a_library_run_gives_the_command_sigxfsz_back",
        "status 153",
        || {
            crate::common::signals::ignore(libc::SIGXFSZ);
            let dir = TempDir::new("sigxfsz");
            let script = format!(
                "ulimit -f 1 && head -c 100000 /dev/zero > '{}'",
                dir.join("big").display()
            );
            let config = wrap_config(&script, None, Duration::from_secs(5));
            let report = toolcap::run::command(&config, || false).expect("run");
            format!(
                "status {}",
                report.child.as_ref().expect("a command").status()
            )
        },
    );
}
