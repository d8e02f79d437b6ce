//! Wrap mode: real processes, exit statuses, timeouts, signals, pipes.

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use predicates::prelude::*;

use crate::common::{
    BIN, KillOnDrop, Need, TempDir, assert_output, repeated, require, std_toolcap, toolcap,
    truncated,
};

#[test]
fn exit_statuses_pass_through_with_a_status_line() {
    toolcap().args(["--", "true"]).assert().code(0).stdout("");
    toolcap()
        .args(["-c", "echo out; exit 3"])
        .assert()
        .code(3)
        .stdout("out\n[exit status: 3]\n");
    toolcap()
        .args(["--no-status", "-c", "printf out; exit 3"])
        .assert()
        .code(3)
        .stdout("out");
    toolcap()
        .args(["-c", "printf partial; kill -9 $$"])
        .assert()
        .code(137)
        .stdout("partial\n[killed by signal 9 (SIGKILL)]\n");
}

#[test]
fn program_not_found_is_127_and_not_executable_is_126() {
    toolcap()
        .args(["--", "toolcap-no-such-program"])
        .assert()
        .code(127)
        .stdout("")
        .stderr(
            "toolcap: cannot run 'toolcap-no-such-program': \
             No such file or directory (os error 2)\n",
        );
    let dir = TempDir::new("not-executable");
    std::fs::write(dir.join("script"), "echo hi\n").expect("write the script");
    toolcap()
        .arg("--")
        .arg(dir.join("script"))
        .assert()
        .code(126)
        .stderr(predicate::str::contains("Permission denied"));
    // Its (empty) output is still what the options ask for: the spill file
    // of an earlier run is emptied, not left to pass for this one's, and
    // the JSON report still has a stderr.
    let spill = dir.join("out.log");
    std::fs::write(&spill, "an earlier run's output\n").expect("write the old spill file");
    let output = toolcap()
        .args(["--json", "--stderr", "separate", "--spill"])
        .arg(&spill)
        .args(["--", "toolcap-no-such-program"])
        .output()
        .expect("run toolcap");
    assert_eq!(output.status.code(), Some(127));
    assert_eq!(std::fs::read(&spill).expect("the spill file"), b"");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["exit"]["code"], 127);
    assert_eq!(report["stderr"]["bytes"], 0);
    assert_eq!(
        report["stderr"]["spill"],
        format!("{}.stderr", spill.display())
    );
}

#[test]
fn stdout_and_stderr_are_merged_in_order() {
    toolcap()
        .args(["-c", "echo a; echo b >&2; echo c"])
        .assert()
        .success()
        .stdout("a\nb\nc\n")
        .stderr("");
}

#[test]
fn program_runs_without_a_shell_and_shell_can_be_chosen() {
    toolcap()
        .args(["--", "echo", "$HOME", "a b"])
        .assert()
        .success()
        .stdout("$HOME a b\n");
    toolcap()
        .args(["--shell", "bash", "-c", "echo $BASH_VERSION | cut -c1"])
        .assert()
        .success()
        .stdout(predicate::str::is_match("^[0-9]\n$").unwrap());
}

#[test]
fn core_options_work_in_wrap_mode() {
    let expected = truncated(50, 10, b"abcd\n", "[... 40 bytes truncated ...]", b"abcd\n");
    assert_output(
        &["--max", "10", "--", "sh", "-c", "yes abcd | head -n 10"],
        "",
        expected,
    );
}

#[test]
fn separate_stderr_is_capped_on_its_own_fd() {
    let out = repeated("out\n", 100);
    let err = repeated("err\n", 100);
    toolcap()
        .args([
            "--stderr",
            "separate",
            "--max",
            "8",
            "--stderr-max",
            "16",
            "--",
            "sh",
            "-c",
        ])
        .arg("i=0; while [ $i -lt 100 ]; do echo out; echo err >&2; i=$((i+1)); done; exit 1")
        .assert()
        .code(1)
        .stdout(
            [
                truncated(
                    400,
                    100,
                    &out[..4],
                    "[... 392 bytes truncated ...]",
                    &out[396..],
                ),
                b"[exit status: 1]\n".to_vec(),
            ]
            .concat(),
        )
        .stderr(truncated(
            400,
            100,
            &err[..8],
            "[... 384 bytes truncated ...]",
            &err[392..],
        ));
}

#[test]
fn separate_stderr_spills_next_to_stdout() {
    let dir = TempDir::new("separate-spill");
    let spill = dir.join("out");
    toolcap()
        .args(["--stderr", "separate", "--max", "4", "--spill"])
        .arg(&spill)
        .args(["-c", "echo 1; echo 2; echo 3 >&2"])
        .assert()
        .success()
        .stderr("3\n");
    assert_eq!(std::fs::read(&spill).expect("the stdout spill"), b"1\n2\n");
    assert_eq!(
        std::fs::read(dir.join("out.stderr")).expect("the stderr spill"),
        b"3\n"
    );
}

/// Whether a process is gone (or a zombie nobody will run again), as /proc
/// says: no entry for the pid, or state Z. Any other failure to read it is
/// no evidence that the process is gone, so the test fails on it; callers
/// `require(Need::Proc)` first.
fn is_gone(pid: &str) -> bool {
    let path = format!("/proc/{pid}/stat");
    match std::fs::read_to_string(&path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => true,
        Err(err) => panic!("cannot read {path}: {err}"),
        Ok(stat) => {
            // proc_pid_stat(5): "pid (comm) state ...", where comm may
            // itself contain ") ", so the state follows the last one.
            let state = stat
                .rsplit_once(") ")
                .and_then(|(_, rest)| rest.chars().next())
                .unwrap_or_else(|| panic!("no state in {path}: {stat:?}"));
            state == 'Z'
        }
    }
}

#[test]
fn timeout_kills_the_whole_group_and_exits_124() {
    // Whether the group's processes are gone is read from /proc.
    if !require(Need::Proc) {
        return;
    }
    let dir = TempDir::new("timeout");
    // Kills the sleeps if toolcap does not, so a failure leaves nothing.
    let group = KillOnDrop::group(dir.join("pgid"));
    let pids = dir.join("pids");
    let script = format!(
        "echo $$ > {pgid}; sleep 300 & echo $! > {pids}; sleep 301 & echo $! >> {pids}; \
         echo started; wait",
        pgid = group.pgid_file().display(),
        pids = pids.display()
    );
    let started = Instant::now();
    toolcap()
        .args(["--timeout", "1s", "-c", &script])
        .assert()
        .code(124)
        .stdout("started\n[timed out after 1s]\n");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    let pids = std::fs::read_to_string(pids).expect("the script wrote its pids");
    for pid in pids.lines() {
        assert!(is_gone(pid), "process {pid} of the group survived");
    }
}

#[test]
fn timeout_escalates_to_sigkill_for_a_child_that_ignores_sigterm() {
    let dir = TempDir::new("timeout-sigkill");
    let group = KillOnDrop::group(dir.join("pgid"));
    let script = format!(
        "echo $$ > {}; trap '' TERM; echo stubborn; sleep 300; sleep 300",
        group.pgid_file().display()
    );
    let started = Instant::now();
    toolcap()
        .args(["--timeout", "500ms", "--kill-after", "500ms", "-c", &script])
        .assert()
        .code(124)
        .stdout("stubborn\n[timed out after 500ms]\n");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn background_process_holding_the_pipe_does_not_hang() {
    let dir = TempDir::new("drain");
    // toolcap leaves the background `sleep` running by design (DESIGN.md,
    // --drain): the test must kill it.
    let group = KillOnDrop::group(dir.join("pgid"));
    let script = format!(
        "echo $$ > {}; sleep 100 & echo hi",
        group.pgid_file().display()
    );
    let started = Instant::now();
    toolcap()
        .args(["--drain", "200ms", "-c", &script])
        .assert()
        .success()
        .stdout("hi\n");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn signals_to_toolcap_reach_the_child() {
    let dir = TempDir::new("signals");
    for (signal, name) in [
        (libc::SIGTERM, "TERM"),
        (libc::SIGINT, "INT"),
        (libc::SIGHUP, "HUP"),
        (libc::SIGQUIT, "QUIT"),
    ] {
        // The background `sleep` ignores SIGINT and SIGQUIT (sh does that
        // to background jobs) and outlives the script: the guard kills it.
        let mut run = KillOnDrop::group(dir.join(format!("pgid-{name}")));
        let ready = dir.join(format!("ready-{name}"));
        let script = format!(
            "echo $$ > {pgid}; trap 'echo trapped {name}; exit 7' {name}; echo ready; \
             sleep 300 & : > {ready}; wait",
            pgid = run.pgid_file().display(),
            ready = ready.display()
        );
        let child =
            run.spawn(std_toolcap().with(|c| c.args(["-c", &script]).stdout(Stdio::piped())));
        // Wait for the trap to be installed and `sleep` started: the output
        // only comes at the end, so the script says so in a file.
        let deadline = Instant::now() + Duration::from_secs(20);
        while !ready.exists() {
            assert!(Instant::now() < deadline, "the child never started");
            std::thread::sleep(Duration::from_millis(20));
        }
        crate::common::signals::kill(child.id() as i32, signal).expect("signal toolcap");
        let mut stdout = String::new();
        child
            .stdout
            .take()
            .expect("piped stdout")
            .read_to_string(&mut stdout)
            .expect("read toolcap's stdout");
        assert_eq!(
            child.wait().expect("wait for toolcap").code(),
            Some(7),
            "{name}"
        );
        assert_eq!(stdout, format!("ready\ntrapped {name}\n[exit status: 7]\n"));
    }
}

#[test]
fn live_wrap_mode_ends_with_header_then_status_line() {
    toolcap()
        .args([
            "--live",
            "--max",
            "10",
            "-c",
            "for i in 1 2 3 4 5 6 7 8 9 10; do echo abcd; done; exit 4",
        ])
        .assert()
        .code(4)
        .stdout(
            "abcd\n[... 40 bytes truncated ...]\nabcd\n\
             Warning: truncated output (original token count: 13)\nTotal output lines: 10\n\
             [exit status: 4]\n",
        );
}

#[test]
fn stdin_is_inherited_unless_no_stdin() {
    toolcap()
        .args(["--", "cat"])
        .write_stdin("passed in\n")
        .assert()
        .success()
        .stdout("passed in\n");
    toolcap()
        .args(["--no-stdin", "--", "cat"])
        .write_stdin("passed in\n")
        .assert()
        .success()
        .stdout("");
}

#[test]
fn plain_env_asks_for_undecorated_output() {
    toolcap()
        .args([
            "--plain-env",
            "-c",
            "echo $NO_COLOR $TERM $PAGER $GIT_PAGER $CLICOLOR ${FORCE_COLOR-unset}",
        ])
        .env("FORCE_COLOR", "1")
        .assert()
        .success()
        .stdout("1 dumb cat cat 0 unset\n");
}

#[test]
fn stdout_closed_early_does_not_block_or_kill_the_child() {
    let dir = TempDir::new("closed-early");
    let group = KillOnDrop::group(dir.join("pgid"));
    let done = dir.join("done");
    let script = format!(
        "{BIN} --live --max 1k \
         -c 'echo $$ > {pgid}; yes line | head -n 200000; touch {done}; exit 5' | head -n 1",
        pgid = group.pgid_file().display(),
        done = done.display()
    );
    let output = crate::common::command("bash")
        .args(["-c", &format!("{script}; echo \"${{PIPESTATUS[0]}}\"")])
        .output()
        .expect("run bash");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "line\n5\n");
    assert!(done.exists(), "the child did not run to its end");
}

/// Peak resident memory of a running process, read from /proc until it
/// exits. VmHWM starts afresh at exec, so unlike wait4's ru_maxrss it does
/// not count the test harness's memory that the forked child briefly shared.
fn peak_rss_kib(
    command: crate::common::Hermetic<std::process::Command>,
) -> (std::process::ExitStatus, u64) {
    // A gigabyte through a pipe takes a while: not left running on a panic.
    let mut run = KillOnDrop::new();
    let child = run.spawn(command.with(|c| c.stdout(Stdio::null())));
    let mut peak = 0;
    loop {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", child.id())) {
            let hwm = status.lines().find_map(|line| line.strip_prefix("VmHWM:"));
            if let Some(kib) =
                hwm.and_then(|value| value.trim().trim_end_matches(" kB").parse().ok())
            {
                peak = peak.max(kib);
            }
        }
        if let Some(status) = child.try_wait().expect("wait for toolcap") {
            return (status, peak);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_child_printing_1_gb_leaves_toolcap_in_a_few_mib() {
    if !require(Need::Proc) {
        return;
    }
    // Measured against the same binary wrapping 1 KB, so that the size of
    // the (debug) binary's own pages does not count: what matters is that
    // 1 GB costs no more than 1 KB. Each command lingers a moment after
    // its output, so that the polling sees toolcap settled, not still
    // starting (a run that ends at once was sampled too low under load).
    let peak_for = |bytes: &str| {
        let mut command = std_toolcap();
        let script = format!("head -c {bytes} /dev/zero; sleep 0.5");
        command.args(["--max", "10k", "-c", &script]);
        let (status, peak_kib) = peak_rss_kib(command);
        assert!(status.success());
        assert!(peak_kib > 0, "no measurement");
        peak_kib
    };
    let small = peak_for("1000");
    let large = peak_for("1000000000");
    assert!(
        large < small + 4 * 1024,
        "peak RSS {large} KiB for 1 GB, {small} KiB for 1 KB"
    );
}

#[test]
fn interactive_command_on_a_terminal_can_read_it() {
    // Under a pseudo-terminal (util-linux `script`), toolcap is the
    // foreground job; the child's own process group must get the terminal,
    // or its read is stopped by SIGTTIN and toolcap waits forever. `timeout`
    // ends the run if that happens.
    if !require(Need::Script) || !require(Need::Timeout) {
        return;
    }
    let dir = TempDir::new("terminal");
    // Should the run hang until `timeout` ends `script`, the terminal's
    // session would outlive the test: the shell `script` starts (toolcap is
    // in its group) and toolcap's child, each in a group of its own.
    let command = KillOnDrop::group(dir.join("command-pgid"));
    let mut run = KillOnDrop::group(dir.join("shell-pgid"));
    let inner = format!(
        "echo $$ > {shell}; {BIN} -- sh -c 'echo $$ > {command}; read line; echo got $line'; \
         echo exit $?",
        shell = run.pgid_file().display(),
        command = command.pgid_file().display()
    );
    let child = run.spawn(crate::common::command("timeout").with(|c| {
        c.args(["30", "script", "-qec", &inner, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
    }));
    std::io::Write::write_all(&mut child.stdin.take().expect("piped stdin"), b"typed\n")
        .expect("write to script");
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_end(&mut stdout)
        .expect("read script's output");
    child.wait().expect("wait for script");
    let text = String::from_utf8_lossy(&stdout).replace('\r', "");
    assert!(text.contains("got typed\nexit 0\n"), "{text:?}");
}

/// A reader that does not read does not hold up the command: with `--live`
/// the head goes to a full pipe, yet `--timeout` still fires on time.
#[test]
fn a_slow_reader_does_not_block_the_command_or_its_timeout() {
    let dir = TempDir::new("slow-reader");
    let mut run = KillOnDrop::group(dir.join("pgid"));
    let killed = dir.join("killed");
    let script = format!(
        "echo $$ > {pgid}; trap ': > {killed}; exit 1' TERM; seq 400000; sleep 300 & wait",
        pgid = run.pgid_file().display(),
        killed = killed.display()
    );
    let started = Instant::now();
    let child = run.spawn(std_toolcap().with(|c| {
        c.args(["--live", "--max", "4M", "--timeout", "1s", "-c", &script])
            .stdout(Stdio::piped())
    }));
    // Nothing reads toolcap's stdout until the command was stopped.
    while !killed.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the timeout did not fire while nobody read the output"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_end(&mut stdout)
        .expect("read toolcap's stdout");
    assert_eq!(child.wait().expect("wait").code(), Some(124));
    assert!(stdout.ends_with(b"400000\n[timed out after 1s]\n"));
}
