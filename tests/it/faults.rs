//! Faults from outside: stdout closed at every stage, inputs that vanish or
//! shrink while read, read-only and full disks under the spill file and the
//! store, concurrent store writers with retention, a torn or corrupt store
//! manifest, and children that close their stdout early or leave a daemon
//! behind. In every case toolcap says what happened on one line, loses
//! nothing it could keep, and never hangs.

use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{
    BIN, KillOnDrop, Need, TempDir, require, std_toolcap, stored_outputs, toolcap, truncated,
    wait_until, with_tiny_tmpfs,
};

/// `seq 1 n`.
fn numbers(n: usize) -> Vec<u8> {
    (1..=n)
        .map(|i| format!("{i}\n"))
        .collect::<String>()
        .into_bytes()
}

/// `seq 1 1000` capped at `--max 100`, with `marker`.
fn thousand_capped(marker: &str) -> Vec<u8> {
    let lines = numbers(1000);
    let head = numbers(19);
    // 989 to 1000.
    let tail_start = lines.len() - 11 * 4 - 5;
    truncated(lines.len(), 1000, &head, marker, &lines[tail_start..])
}

/// Runs `script` with bash (pipefail) and returns stdout, stderr and status.
fn bash(script: &str) -> (Vec<u8>, String, Option<i32>) {
    let output = crate::common::command("bash")
        .args(["-o", "pipefail", "-c", script])
        .stdin(Stdio::null())
        .output()
        .expect("run bash");
    (
        output.stdout,
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code(),
    )
}

#[test]
fn stdout_closed_at_every_stage_is_a_quiet_success_and_the_spill_is_complete() {
    let dir = TempDir::new("closed-stages");
    let input = dir.join("input");
    std::fs::write(&input, numbers(200_000)).unwrap();
    let spill = dir.join("spill");
    let full = toolcap()
        .args(["--max", "10k", "--spill"])
        .arg(&spill)
        .arg(&input)
        .output()
        .unwrap()
        .stdout;
    let header_end = full.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
    // Before the header, inside the header, inside the head, in the tail.
    for kept in [0, 10, header_end + 100, full.len() - 100] {
        let (stdout, stderr, status) = bash(&format!(
            "cat '{input}' | {BIN} --max 10k --spill '{spill}' | head -c {kept}",
            input = input.display(),
            spill = spill.display()
        ));
        assert_eq!(
            status,
            Some(0),
            "stdout closed after {kept} bytes: {stderr}"
        );
        assert_eq!(stderr, "", "stdout closed after {kept} bytes");
        assert!(
            stdout == full[..kept],
            "stdout closed after {kept} bytes: {} bytes, from {:?}",
            stdout.len(),
            String::from_utf8_lossy(&stdout[..stdout.len().min(80)])
        );
        assert_eq!(
            std::fs::read(&spill).unwrap(),
            std::fs::read(&input).unwrap(),
            "the spill file, stdout closed after {kept} bytes"
        );
    }
}

#[test]
fn a_stored_output_read_into_a_closed_pipe_is_a_success_and_a_lost_file_is_named() {
    let dir = TempDir::new("show-closed");
    let store = dir.join("store");
    toolcap()
        .args(["--max", "10", "--spill-dir"])
        .arg(&store)
        .write_stdin(numbers(100_000))
        .assert()
        .success();
    let id = stored_outputs(&store)[0]
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // 589 KB: the reader is gone long before the last write.
    let (stdout, stderr, status) = bash(&format!(
        "{BIN} --show {id} --spill-dir '{}' | head -c 2",
        store.display()
    ));
    assert_eq!(
        (status, stderr.as_str(), &stdout[..]),
        (Some(0), "", &b"1\n"[..])
    );
    let file = store.join(format!("{id}.log"));
    std::fs::remove_file(&file).unwrap();
    toolcap()
        .args(["--show", &id, "--spill-dir"])
        .arg(&store)
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "toolcap: cannot read the stored output '{}': No such file or directory (os error 2)\n",
            file.display()
        ));
}

#[test]
fn a_file_that_disappears_before_its_turn_is_named_and_the_others_are_capped() {
    let dir = TempDir::new("disappearing");
    let fifo = dir.join("fifo");
    let later = dir.join("later");
    let status = crate::common::command("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(&later, "gone before its turn\n").unwrap();
    let mut guard = KillOnDrop::new();
    guard.spawn(std_toolcap().with(|c| {
        c.args(["--max", "100"])
            .arg(&fifo)
            .arg(&later)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
    }));
    // toolcap is reading the FIFO (its open blocks until we open it too):
    // remove the second file, then give the first its content.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    std::fs::remove_file(&later).unwrap();
    writer.write_all(&numbers(1000)).unwrap();
    drop(writer);
    let output = guard.child().wait_with_output_taken();
    assert_eq!(output.0, Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.1),
        String::from_utf8_lossy(&thousand_capped("[... 3796 bytes truncated ...]"))
    );
    assert_eq!(
        output.2,
        format!(
            "toolcap: '{}': No such file or directory (os error 2)\n",
            later.display()
        )
    );
    assert!(fifo.metadata().unwrap().file_type().is_fifo());
}

/// Waits for `child` and takes its status, stdout and stderr.
trait WaitTaken {
    fn wait_with_output_taken(&mut self) -> (Option<i32>, Vec<u8>, String);
}

impl WaitTaken for std::process::Child {
    fn wait_with_output_taken(&mut self) -> (Option<i32>, Vec<u8>, String) {
        use std::io::Read;
        let mut stdout = Vec::new();
        let mut stderr = String::new();
        self.stdout
            .take()
            .unwrap()
            .read_to_end(&mut stdout)
            .unwrap();
        self.stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (self.wait().unwrap().code(), stdout, stderr)
    }
}

#[test]
fn procfs_files_that_report_size_0_are_read_whole_without_a_shrank_warning() {
    if !require(Need::Proc) {
        return;
    }
    // Both report size 0 and hold more: toolcap warned they "shrank to 0
    // bytes while being read" (issue 21).
    assert_eq!(std::fs::metadata("/proc/version").unwrap().len(), 0);
    let version = std::fs::read("/proc/version").unwrap();
    assert!(!version.is_empty());
    toolcap()
        .args(["--max", "1Mi", "/proc/version"])
        .assert()
        .code(0)
        .stdout(version)
        .stderr("");
    // cpuinfo's MHz lines change between reads; its lines do not.
    let lines = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap()
        .lines()
        .count();
    let output = toolcap()
        .args(["--max", "1Mi", "/proc/cpuinfo"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).lines().count(),
        lines
    );
}

#[test]
fn a_file_truncated_while_being_read_gives_what_was_read_and_a_warning() {
    if !require(Need::Proc) {
        return;
    }
    let dir = TempDir::new("shrinking");
    let file = dir.join("big");
    // 8 GiB, sparse: seconds of reading, so the truncation lands mid-way.
    std::fs::File::create(&file)
        .unwrap()
        .set_len(8 << 30)
        .unwrap();
    let mut guard = KillOnDrop::new();
    let child = guard.spawn(std_toolcap().with(|c| {
        c.args(["--json", "--max", "100"])
            .arg(&file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
    }));
    let pid = child.id();
    // Wait until toolcap has read part of it (its offset, from /proc).
    let started = Instant::now();
    'wait: loop {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "toolcap never read the file"
        );
        if let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
            for fd in fds.flatten() {
                if std::fs::read_link(fd.path()).is_ok_and(|target| target == file) {
                    let info = std::fs::read_to_string(format!(
                        "/proc/{pid}/fdinfo/{}",
                        fd.file_name().to_string_lossy()
                    ))
                    .unwrap_or_default();
                    if info
                        .lines()
                        .any(|line| line.starts_with("pos:") && line != "pos:\t0")
                    {
                        break 'wait;
                    }
                }
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(1000)
        .unwrap();
    let (status, stdout, stderr) = guard.child().wait_with_output_taken();
    assert_eq!(status, Some(0), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    let read = report["bytes"].as_u64().unwrap();
    assert!(read > 1000 && read < 8 << 30, "{read} bytes read");
    assert_eq!(
        stderr,
        format!(
            "toolcap: warning: '{}': it shrank to 1000 bytes while being read, \
             after {read} bytes\n",
            file.display()
        )
    );
}

#[test]
fn spill_and_store_on_a_read_only_disk_still_give_the_capped_output() {
    if !require(Need::ReadOnlyRemount) {
        return;
    }
    let dir = TempDir::new("read-only");
    let errors = TempDir::new("read-only-stderr");
    let d = dir.path().display();
    let cases = [
        (
            format!("--spill {d}/full.log"),
            "[... 3796 bytes truncated (lines 20-988); full output not saved: cannot create spill \
             file 'DIR/full.log': Read-only file system (os error 30) ...]",
            1,
            "toolcap: cannot create spill file 'DIR/full.log': Read-only file system (os error \
             30)\n",
        ),
        (
            format!("--spill-dir {d}/store"),
            "[... 3796 bytes truncated (lines 20-988); full output not saved: cannot create a \
             spill file in 'DIR/store': Read-only file system (os error 30) ...]",
            1,
            "toolcap: cannot create a spill file in 'DIR/store': Read-only file system (os error \
             30)\n",
        ),
        (
            "--store".to_string(),
            "[... 3796 bytes truncated (lines 20-988); full output not saved: cannot create spill \
             directory 'DIR/cache/toolcap/spill': Read-only file system (os error 30) ...]",
            1,
            "toolcap: cannot create spill directory 'DIR/cache/toolcap/spill': Read-only file \
             system (os error 30)\n",
        ),
    ];
    for (option, marker, code, message) in cases {
        let stderr = errors.join("stderr");
        let script = format!(
            "mkdir -m 700 '{d}/store' && mount -o remount,ro '{d}' && \
             seq 1 1000 | XDG_CACHE_HOME='{d}/cache' {BIN} --max 100 {option} 2>'{stderr}'; \
             echo \"status $?\"",
            stderr = stderr.display()
        );
        let output = with_tiny_tmpfs(dir.path(), &script).output().unwrap();
        let marker = marker.replace("DIR", &d.to_string());
        let mut expected = thousand_capped(&marker);
        expected.extend_from_slice(format!("status {code}\n").as_bytes());
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&expected),
            "{option}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            std::fs::read_to_string(&stderr).unwrap(),
            message.replace("DIR", &d.to_string()),
            "{option}"
        );
    }
}

#[test]
fn the_store_on_a_full_disk_keeps_no_partial_output_and_no_entry() {
    if !require(Need::PrivateMount) {
        return;
    }
    let dir = TempDir::new("store-full");
    let d = dir.path().display();
    // 200,000 bytes into a 64 KiB disk; then what the store holds (only
    // the lock file, which creating an output takes), and that --list
    // still reads it.
    let script = format!(
        "head -c 200000 /dev/zero | tr '\\0' x | XDG_CACHE_HOME='{d}' {BIN} --max 100 --store \
         >/dev/null 2>'{d}/stderr-not-kept'; echo \"status $?\"; ls -A '{d}/toolcap/spill'; \
         XDG_CACHE_HOME='{d}' {BIN} --store --list; echo \"list $?\""
    );
    let output = with_tiny_tmpfs(dir.path(), &script).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "status 1\nindex.lock\nlist 0\n",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn sixteen_concurrent_store_writers_with_retention_leave_a_consistent_store() {
    let dir = TempDir::new("store-retention");
    let store = dir.join("store");
    let runs: Vec<_> = (0..16)
        .map(|run| {
            let mut guard = KillOnDrop::new();
            guard.spawn(std_toolcap().with(|c| {
                c.args(["--max", "100", "--retain", "5", "--spill-dir"])
                    .arg(&store)
                    .arg("-c")
                    .arg(format!(
                        "i=0; while [ $i -lt 2000 ]; do echo run {run} line $i; i=$((i+1)); done"
                    ))
                    .stdout(Stdio::null())
            }));
            guard
        })
        .collect();
    for mut run in runs {
        assert!(run.child().wait().expect("wait").success());
    }
    // The last writer pruned after everyone had recorded: five outputs,
    // each listed once and complete, and no file that is not listed.
    let manifest = std::fs::read_to_string(store.join("index.jsonl")).unwrap();
    let entries: Vec<serde_json::Value> = manifest
        .lines()
        .map(|line| serde_json::from_str(line).expect("whole manifest lines"))
        .collect();
    assert_eq!(entries.len(), 5, "{manifest}");
    let mut listed: Vec<_> = entries
        .iter()
        .map(|entry| store.join(entry["file"].as_str().unwrap()))
        .collect();
    listed.sort();
    assert_eq!(stored_outputs(&store), listed);
    for file in &listed {
        assert_eq!(std::fs::read_to_string(file).unwrap().lines().count(), 2000);
    }
}

#[test]
fn pruning_removes_what_a_killed_run_left_in_the_store_but_not_a_running_output() {
    // A run killed with SIGKILL cannot enter its output in the manifest:
    // pruning removes the file it left, as no one holds its lock any more,
    // but not the output of a run still writing, which is recorded when
    // that run ends.
    let dir = TempDir::new("store-orphans");
    let store = dir.join("store");
    record(&store, 100);
    let recorded = stored_outputs(&store);
    // Each run: its command writes the group id, says it started (more than
    // --max, so the output is cut and kept), then waits.
    let running = |name: &str| {
        let mut run = KillOnDrop::group(dir.join(name));
        let script = format!(
            "echo $$ > '{}'; echo started, and longer than ten bytes; exec sleep 60",
            run.pgid_file().display()
        );
        let before = stored_outputs(&store).len();
        run.spawn(std_toolcap().with(|c| {
            c.args(["--max", "10", "--spill-dir"])
                .arg(&store)
                .args(["-c", &script])
                .stdout(Stdio::null())
        }));
        wait_until("the run's output file", || {
            stored_outputs(&store).len() > before && run.pgid_file().exists()
        });
        run
    };
    let mut killed = running("killed-pgid");
    let orphan = stored_outputs(&store);
    killed.child().kill().unwrap();
    killed.child().wait().unwrap();
    drop(killed);
    let mut live = running("live-pgid");
    let live_output: Vec<_> = stored_outputs(&store)
        .into_iter()
        .filter(|path| !orphan.contains(path))
        .collect();
    let orphan: Vec<_> = orphan
        .into_iter()
        .filter(|path| !recorded.contains(path))
        .collect();
    assert_eq!((orphan.len(), live_output.len()), (1, 1));
    // A manifest rewrite a crash left behind goes too; a file of another
    // name is not the store's to remove.
    std::fs::write(store.join("index.jsonl.0badf00d"), "").unwrap();
    std::fs::write(store.join("notes.txt"), "mine").unwrap();

    toolcap()
        .args(["--prune", "--spill-dir"])
        .arg(&store)
        .assert()
        .code(0);
    let mut expected = [recorded.clone(), live_output.clone()].concat();
    expected.sort();
    assert_eq!(stored_outputs(&store), expected);
    assert!(!store.join("index.jsonl.0badf00d").exists());
    assert!(store.join("notes.txt").exists());

    // The live run ends and records its output.
    let group = std::fs::read_to_string(live.pgid_file()).unwrap();
    crate::common::signals::kill(-group.trim().parse::<i32>().unwrap(), libc::SIGTERM).unwrap();
    wait_until("the live run to end", || {
        live.child().try_wait().expect("poll toolcap").is_some()
    });
    let manifest = std::fs::read_to_string(store.join("index.jsonl")).unwrap();
    assert_eq!(manifest.lines().count(), 2, "{manifest}");
    assert_eq!(stored_outputs(&store), expected);
}

#[test]
fn an_output_the_manifest_cannot_list_stays_where_the_marker_says() {
    // The manifest cannot be written (here a directory stands in its way;
    // in life, a full disk): the output is saved all the same, under a name
    // that pruning leaves alone, as the marker names it.
    let dir = TempDir::new("store-unlisted");
    let store = dir.join("store");
    record(&store, 100);
    let manifest = store.join("index.jsonl");
    let listed = std::fs::read(&manifest).unwrap();
    std::fs::remove_file(&manifest).unwrap();
    std::fs::create_dir(&manifest).unwrap();
    let output = toolcap()
        .args(["--max", "10", "--spill-dir"])
        .arg(&store)
        .write_stdin(numbers(50))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let unlisted = stdout
        .split("full output in ")
        .nth(1)
        .and_then(|rest| rest.split(" ...]").next())
        .unwrap_or_else(|| panic!("a marker naming the output: {stdout}"));
    assert!(unlisted.ends_with(".unlisted.log"), "{stdout}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot update the spill store"),
        "{output:?}"
    );
    assert_eq!(std::fs::read(unlisted).unwrap(), numbers(50));

    std::fs::remove_dir(&manifest).unwrap();
    std::fs::write(&manifest, listed).unwrap();
    toolcap()
        .args(["--prune", "--spill-dir"])
        .arg(&store)
        .assert()
        .code(0);
    assert_eq!(std::fs::read(unlisted).unwrap(), numbers(50));
}

/// Records one output of `lines` lines in the store at `store`.
fn record(store: &Path, lines: usize) {
    toolcap()
        .args(["--max", "10", "--spill-dir"])
        .arg(store)
        .write_stdin(numbers(lines))
        .assert()
        .code(0);
}

#[test]
fn a_torn_or_corrupt_manifest_line_is_skipped_with_a_warning_and_kept() {
    let dir = TempDir::new("store-torn");
    let store = dir.join("store");
    record(&store, 100);
    let manifest = store.join("index.jsonl");
    let append = |bytes: &[u8]| {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&manifest)
            .unwrap()
            .write_all(bytes)
            .unwrap();
    };
    append(b"not json\n\xff\xfe invalid UTF-8\n");
    record(&store, 200);
    // A crash mid-append: the last line has no end.
    append(b"{\"id\":\"torn");
    record(&store, 300);
    let text = std::fs::read(&manifest).unwrap();
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 7, "{}", String::from_utf8_lossy(&text));
    assert_eq!(lines[1], b"not json");
    assert_eq!(lines[4], b"{\"id\":\"torn", "the torn line stays whole");
    assert!(
        lines[5].starts_with(b"{\"bytes\":1092,"),
        "the next entry has a line of its own"
    );
    let warning = |line: usize| {
        format!(
            "toolcap: warning: line {line} of the spill store's manifest '{}' is not an output; \
             skipped\n",
            manifest.display()
        )
    };
    let listing = toolcap()
        .arg("--list")
        .arg("--spill-dir")
        .arg(&store)
        .output()
        .unwrap();
    assert_eq!(listing.status.code(), Some(0));
    let rows = String::from_utf8(listing.stdout).unwrap();
    let sizes: Vec<&str> = rows
        .lines()
        .map(|row| row.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(sizes, ["1,092", "692", "292"]);
    let expected_warnings = [2, 3, 5].map(warning).concat();
    assert_eq!(String::from_utf8_lossy(&listing.stderr), expected_warnings);
    // Retention rewrites the manifest without the oldest output, and keeps
    // what it could not read.
    toolcap()
        .args(["--prune", "--retain", "1", "--spill-dir"])
        .arg(&store)
        .assert()
        .code(0);
    let text = std::fs::read(&manifest).unwrap();
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 5, "{}", String::from_utf8_lossy(&text));
    assert_eq!(
        &lines[..3],
        [
            &b"not json"[..],
            b"\xff\xfe invalid UTF-8",
            b"{\"id\":\"torn"
        ]
    );
    assert!(lines[3].starts_with(b"{\"bytes\":1092,"));
    assert_eq!(stored_outputs(&store).len(), 1);
}

#[test]
fn a_child_that_closes_its_stdout_early_and_keeps_running_is_waited_for() {
    let started = Instant::now();
    toolcap()
        .args([
            "-c",
            "echo before; exec >&-; sleep 1; echo after >&2; exit 3",
        ])
        .assert()
        .code(3)
        .stdout("before\nafter\n[exit status: 3]\n");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "toolcap did not wait"
    );
}

#[test]
fn a_child_that_leaves_a_daemon_holding_the_pipe_returns_after_the_drain() {
    let dir = TempDir::new("daemon");
    let pid_file = dir.join("daemon.pid");
    // A daemon in a session of its own: no group signal reaches it, so the
    // test kills it by pid.
    struct KillDaemon<'a>(&'a Path);
    impl Drop for KillDaemon<'_> {
        fn drop(&mut self) {
            if let Ok(pid) = std::fs::read_to_string(self.0) {
                let _ = crate::common::command("kill").arg(pid.trim()).status();
            }
        }
    }
    let _daemon = KillDaemon(&pid_file);
    let script = format!(
        "echo start; setsid sh -c 'echo $$ > {}; exec sleep 60' & sleep 0.2; echo end",
        pid_file.display()
    );
    let started = Instant::now();
    toolcap()
        .args(["--drain", "300ms", "-c", &script])
        .assert()
        .code(0)
        .stdout("start\nend\n");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(pid_file.exists(), "the daemon started");
}

#[test]
fn extreme_values_are_refused_or_honoured_without_a_panic_or_a_hang() {
    let largest = u64::MAX.to_string();
    let cases: &[&[&str]] = &[
        &["--max", &largest],
        &["--head", &largest, "--tail", &largest],
        &["--chars", &largest],
        &["--lines", &largest, "--max", "10"],
        &["--max-line", &largest],
        &["--max", "10", "--keep", "5", "--keep-max", &largest],
        // Once spun for minutes, holding back every line after a match.
        &["--max", "10", "--keep", "5", "--keep-context", &largest],
        &["--json-limit", &largest, "--format", "json"],
        &["--tokens", &largest],
        &[
            "--timeout",
            "1000000000000h",
            "--kill-after",
            "1000000000000h",
            "--",
            "echo",
            "1",
        ],
        &["--drain", "1000000000000h", "--", "echo", "1"],
    ];
    for args in cases {
        let started = Instant::now();
        let output = toolcap()
            .args(*args)
            .write_stdin(numbers(100))
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        assert!(
            matches!(output.status.code(), Some(0 | 2)),
            "{args:?}: {output:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(10), "{args:?}");
        assert!(
            !String::from_utf8_lossy(&output.stderr).contains("panicked"),
            "{args:?}: {output:?}"
        );
    }
}
