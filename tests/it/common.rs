//! Helpers shared by the test modules: running toolcap hermetically, the
//! expected output, and cleaning up after a test (its directory, the
//! processes it started) even when it panics. Nothing here may leave a
//! process or a file behind.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use assert_cmd::Command;

/// No test may take longer than this, even when a child hangs.
pub const TIMEOUT: Duration = Duration::from_secs(60);

pub const BIN: &str = env!("CARGO_BIN_EXE_toolcap");

/// Set (to anything) by CI: every property test runs its full number of
/// cases, not the share that keeps `cargo test` within a few minutes.
/// Not TOOLCAP_*: no test reads those, and the binary must never see it.
pub const FULL_CASES_VARIABLE: &str = "FULL_PROPERTY_CASES";

/// How many cases a property test of `full` cases runs: all of them when
/// [`FULL_CASES_VARIABLE`] is set, else an eighth (at least 8, or `full`
/// if smaller): the full counts spent 361 of `cargo test`'s 415
/// test-seconds; an eighth keeps it within 4 minutes (TESTING.md).
pub fn cases(full: u32) -> u32 {
    if std::env::var_os(FULL_CASES_VARIABLE).is_some() {
        full
    } else {
        (full / 8).max(full.min(8))
    }
}

/// A command with an environment of its own: fresh, empty `HOME`,
/// `XDG_CONFIG_HOME` and `XDG_CACHE_HOME` (removed with it) and no
/// `TOOLCAP_*` variable, so that nothing of the user's (a profiles.toml,
/// a default store, a setting) reaches the process or what it starts.
/// It derefs to the command; keep it alive as long as the process runs
/// (`KillOnDrop::spawn` takes it for that).
pub struct Hermetic<C> {
    command: C,
    // Dropped after the command's process ended: see `KillOnDrop`.
    _home: TempDir,
}

impl<C> std::ops::Deref for Hermetic<C> {
    type Target = C;
    fn deref(&self) -> &C {
        &self.command
    }
}

impl<C> std::ops::DerefMut for Hermetic<C> {
    fn deref_mut(&mut self) -> &mut C {
        &mut self.command
    }
}

impl<C> Hermetic<C> {
    /// The command after `set_up`, still owning its home: for
    /// `KillOnDrop::spawn(std_toolcap().with(|c| c.arg(..)))`.
    pub fn with(mut self, set_up: impl FnOnce(&mut C) -> &mut C) -> Hermetic<C> {
        set_up(&mut self.command);
        self
    }
}

/// `program`, hermetic (see [`Hermetic`]), its stdin /dev/null unless a
/// test sets one: CI may run with none at all.
pub fn command(program: impl AsRef<std::ffi::OsStr>) -> Hermetic<StdCommand> {
    let home = TempDir::new("home");
    let mut command = StdCommand::new(program);
    command.stdin(Stdio::null());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TOOLCAP_") {
            command.env_remove(name);
        }
    }
    for (variable, dir) in [
        ("HOME", "home"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_CACHE_HOME", "cache"),
    ] {
        let path = home.join(dir);
        std::fs::create_dir(&path)
            .unwrap_or_else(|err| panic!("cannot create '{}': {err}", path.display()));
        command.env(variable, path);
    }
    Hermetic {
        command,
        _home: home,
    }
}

impl Hermetic<StdCommand> {
    /// The same command under assert_cmd, killed after [`TIMEOUT`].
    pub fn timed(self) -> Hermetic<Command> {
        let mut command = Command::from_std(self.command);
        command.timeout(TIMEOUT);
        Hermetic {
            command,
            _home: self._home,
        }
    }
}

/// toolcap, hermetic (see [`Hermetic`]), with a timeout.
pub fn toolcap() -> Hermetic<Command> {
    std_toolcap().timed()
}

/// The same, as a plain process for tests that need signals or pids.
pub fn std_toolcap() -> Hermetic<StdCommand> {
    command(BIN)
}

/// toolcap's stdout for `args` on `input`; the run must succeed.
pub fn stdout_of(args: &[&str], input: &[u8]) -> Vec<u8> {
    let output = toolcap()
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .expect("run toolcap");
    assert!(output.status.success(), "{output:?}");
    output.stdout
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

/// Makes every line of a hand-worked case long enough that a squeeze or
/// fold marker is shorter than the lines it replaces, so that cases can
/// be written with short lines; marker lines (`[... `) stay as they are.
pub fn padded(text: &str) -> String {
    const PAD: &str = " - a line long enough to pay off";
    text.split_inclusive('\n')
        .map(|line| {
            let body = line.trim_end_matches(['\n', '\r']);
            match body.starts_with("[... ") {
                true => line.to_string(),
                false => format!("{body}{PAD}{}", &line[body.len()..]),
            }
        })
        .collect()
}

/// Runs toolcap with `args` on `input`, both [`padded`], with a budget
/// that the padded `expected` fits and the input does not (squeeze and
/// fold condense only what would otherwise be cut), and expects it. With
/// `--keep`, `--keep-max 1` and its byte on top.
pub fn assert_condensed(args: &[&str], input: &str, expected: &str) {
    let (input, expected) = (padded(input), padded(expected));
    let keeps = args.iter().any(|arg| arg.starts_with("--keep"));
    let budget = match expected.len() < input.len() {
        true => expected.len(),
        false => input.len().max(expected.len()),
    } + usize::from(keeps);
    let budget = budget.to_string();
    let mut all = args.to_vec();
    all.extend(["--max", &budget]);
    if keeps {
        all.extend(["--keep-max", "1"]);
    }
    assert_output(&all, input, expected);
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

/// The environment that makes git in `dir` ignore the caller's
/// configuration and write every commit with one author at one instant,
/// so that commits (and their hashes) are the same every run.
pub fn hermetic_git_env(dir: &Path) -> Vec<(String, std::ffi::OsString)> {
    let mut env = vec![
        ("HOME".to_string(), dir.as_os_str().to_owned()),
        ("GIT_CONFIG_NOSYSTEM".to_string(), "1".into()),
        ("GIT_CONFIG_GLOBAL".to_string(), "/dev/null".into()),
    ];
    for who in ["AUTHOR", "COMMITTER"] {
        env.push((format!("GIT_{who}_NAME"), "t".into()));
        env.push((format!("GIT_{who}_EMAIL"), "t@example.com".into()));
        env.push((format!("GIT_{who}_DATE"), "2026-01-01T00:00:00Z".into()));
    }
    env
}

/// Runs git in `dir`, hermetic (see [`hermetic_git_env`]); it must
/// succeed. Returns its stdout.
pub fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = command("git")
        .current_dir(dir)
        .envs(hermetic_git_env(dir))
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A fresh directory for one test, removed with everything in it when
/// dropped, also when the test panics. Declare it before a `KillOnDrop`
/// whose pgid file lives in it: locals drop in reverse order, so the
/// processes are killed before their directory goes.
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

/// Kills, when dropped, what a test started that may still be running, also
/// when the test panics part-way:
///
/// 1. a toolcap spawned through `spawn`, if it has not been reaped yet: it
///    is killed and reaped;
/// 2. the process group whose id a script wrote to the pgid file. toolcap
///    runs its command in a group of its own (pgid = the command's pid), so
///    a script run with `-c` writes `$$` there as its first command, and
///    anything it starts in the background is in that group too. A group
///    whose file was never written (the script had not started) is not
///    known and cannot be killed; scripts write it first to keep that
///    window to the shell's start-up.
///
/// SIGKILL, because some of these processes ignore or trap SIGTERM on
/// purpose, and the shell makes its background jobs ignore SIGINT and
/// SIGQUIT.
#[derive(Default)]
pub struct KillOnDrop {
    child: Option<Child>,
    pgid_file: Option<PathBuf>,
    // The spawned command's home outlives its process: removed after the
    // kill, as fields drop after `drop` ran.
    command: Option<Hermetic<StdCommand>>,
}

impl KillOnDrop {
    /// Nothing to kill yet; `spawn` adds a process.
    pub fn new() -> KillOnDrop {
        KillOnDrop::default()
    }

    /// The group whose id a script will write to `pgid_file`.
    pub fn group(pgid_file: PathBuf) -> KillOnDrop {
        KillOnDrop {
            child: None,
            pgid_file: Some(pgid_file),
            command: None,
        }
    }

    pub fn pgid_file(&self) -> &Path {
        self.pgid_file
            .as_deref()
            .expect("KillOnDrop::group gives the pgid file")
    }

    /// Spawns `command` (one process per guard) and keeps it to kill.
    pub fn spawn(&mut self, mut command: Hermetic<StdCommand>) -> &mut Child {
        assert!(self.child.is_none(), "one spawned process per KillOnDrop");
        let child = command
            .spawn()
            .unwrap_or_else(|err| panic!("cannot spawn {:?}: {err}", *command));
        self.command = Some(command);
        self.child.insert(child)
    }

    /// The process from `spawn`.
    pub fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("KillOnDrop::spawn was called")
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        // Both steps run before a failure is reported: a panic after the
        // first would skip the second.
        let failures: Vec<String> = [
            self.child.as_mut().map_or(Ok(()), kill_and_reap),
            self.pgid_file.as_deref().map_or(Ok(()), kill_group),
        ]
        .into_iter()
        .filter_map(Result::err)
        .collect();
        if !failures.is_empty() {
            cleanup_failed(failures.join("; "));
        }
    }
}

/// Kills and reaps `child` unless it was reaped already: then its pid may
/// belong to someone else.
fn kill_and_reap(child: &mut Child) -> Result<(), String> {
    if let Ok(None) = child.try_wait() {
        let pid = child.id();
        child
            .kill()
            .map_err(|err| format!("cannot kill pid {pid}: {err}"))?;
        child
            .wait()
            .map_err(|err| format!("cannot reap pid {pid}: {err}"))?;
    }
    Ok(())
}

/// Sends SIGKILL to the group whose id is in `pgid_file`, if it was written.
fn kill_group(pgid_file: &Path) -> Result<(), String> {
    let file = pgid_file.display();
    let text = match std::fs::read_to_string(pgid_file) {
        Ok(text) => text,
        Err(err)
            if err.kind() == std::io::ErrorKind::NotFound
                && pgid_file.parent().is_some_and(Path::is_dir) =>
        {
            String::new()
        }
        // Also when the directory is gone: a TempDir dropped before its
        // KillOnDrop would let the group live on in every run.
        Err(err) => {
            return Err(format!(
                "cannot read pgid file '{file}': {err} (is its TempDir declared first?)"
            ));
        }
    };
    if text.is_empty() {
        // The script never got that far (or was stopped between creating
        // the file and writing it): its group is not known.
        return Ok(());
    }
    let pgid = text
        .trim()
        .parse::<libc::pid_t>()
        .map_err(|err| format!("pgid file '{file}' holds {text:?}: {err}"))?;
    // kill(-1) would signal every process we may signal, and our own group
    // is the test run itself: never either, whatever the file says.
    if pgid <= 1 || pgid == signals::own_process_group() {
        return Err(format!("refusing to kill process group {pgid}"));
    }
    // A group id stays in use while any member lives, so this reaches our
    // group or, if it is gone already, nobody (ESRCH): a pid would have to
    // wrap around during one test to be reused as a group id.
    if let Err(err) = signals::kill(-pgid, libc::SIGKILL)
        && err.raw_os_error() != Some(libc::ESRCH)
    {
        return Err(format!("cannot kill process group {pgid}: {err}"));
    }
    Ok(())
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

/// Waits until `condition` holds, failing the test after 20 s.
pub fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !condition() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The outputs a spill store holds (`*.log`), in name order; the store's
/// manifest and lock file are not outputs.
pub fn stored_outputs(store: &Path) -> Vec<PathBuf> {
    let mut outputs: Vec<PathBuf> = std::fs::read_dir(store)
        .unwrap_or_else(|err| panic!("cannot list '{}': {err}", store.display()))
        .map(|entry| entry.expect("a store entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "log"))
        .collect();
    outputs.sort();
    outputs
}

/// What a test needs from the machine beyond toolcap and a POSIX shell.
#[derive(Clone, Copy, Debug)]
pub enum Need {
    /// `/proc` of this process's pid namespace: process states, VmHWM.
    Proc,
    /// `/dev/full`, on which every write fails with ENOSPC.
    DevFull,
    /// util-linux `script`, to run toolcap on a pseudo-terminal.
    Script,
    /// coreutils `timeout`, to bound a pipeline the test cannot stop itself.
    Timeout,
    /// util-linux `unshare` able to make a private mount namespace in which
    /// a tiny tmpfs can be mounted: a full disk that vanishes with the test.
    PrivateMount,
    /// The same, where that tmpfs can then be made read-only (`mount -o
    /// remount,ro`): some container runtimes refuse it.
    ReadOnlyRemount,
    /// `git`, to make a real diff in a temporary repository.
    Git,
    /// GNU `diff` (`--label`), to make a real unified diff.
    Diff,
    /// Python's pytest (`python3 -m pytest`), to produce a real test run.
    Pytest,
    /// bash, to run the completion script.
    Bash,
}

/// Whether the machine has `need`. If not, the test is skipped loudly: one
/// line `SKIPPED: <test>: needs <what>: <why>` on stderr, and `false`, on
/// which the test returns. A test that passed without running what it
/// tests, or failed on a missing tool, would say something false.
pub fn require(need: Need) -> bool {
    let (what, check) = match need {
        Need::Proc => ("a readable /proc", check_proc()),
        Need::DevFull => ("/dev/full", check_dev_full()),
        Need::Script => ("util-linux script", check_tool("script", "util-linux")),
        Need::Timeout => ("coreutils timeout", check_tool("timeout", "coreutils")),
        Need::PrivateMount => ("a private tmpfs mount (unshare)", check_private_mount()),
        Need::ReadOnlyRemount => (
            "a private tmpfs remounted read-only (unshare, mount -o remount,ro)",
            check_read_only_remount(),
        ),
        Need::Git => ("git", check_tool("git", "git")),
        Need::Diff => ("GNU diff", check_tool("diff", "diffutils")),
        Need::Pytest => ("pytest (pip install pytest)", check_pytest()),
        Need::Bash => ("bash", check_tool("bash", "bash")),
    };
    let Err(why) = check else {
        return true;
    };
    // libtest runs each test on a thread named after it.
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("(unnamed test)");
    // Through the stderr handle, not eprintln!: libtest captures eprintln!
    // and shows it only for a failing test, so a skip would go unseen.
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: needs {what}: {why}");
    false
}

fn check_pytest() -> Result<(), String> {
    let output = command("python3")
        .args(["-m", "pytest", "--version"])
        .output()
        .map_err(|err| format!("cannot run python3: {err}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_string())
    }
}

fn check_proc() -> Result<(), String> {
    let stat = std::fs::read_to_string("/proc/self/stat")
        .map_err(|err| format!("cannot read /proc/self/stat: {err}"))?;
    // A /proc of another pid namespace would answer for other processes.
    let pid = stat.split(' ').next().unwrap_or_default();
    if pid == std::process::id().to_string() {
        Ok(())
    } else {
        Err(format!(
            "/proc/self/stat names pid {pid:?}, this process is {}",
            std::process::id()
        ))
    }
}

fn check_dev_full() -> Result<(), String> {
    let mut full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .map_err(|err| format!("cannot open /dev/full: {err}"))?;
    match full.write_all(b"x") {
        Err(err) if err.raw_os_error() == Some(libc::ENOSPC) => Ok(()),
        Err(err) => Err(format!(
            "a write to /dev/full failed with {err}, not ENOSPC"
        )),
        Ok(()) => Err("a write to /dev/full succeeded".to_string()),
    }
}

/// The shell command that runs `script` in a private mount namespace with
/// a 64 KiB tmpfs on `dir`: the mount is gone when the namespace ends.
pub fn with_tiny_tmpfs(dir: &Path, script: &str) -> Hermetic<StdCommand> {
    let mut unshare = command("unshare");
    unshare
        .args(["--mount", "--map-root-user", "sh", "-c"])
        .arg(format!(
            "mount -t tmpfs -o size=64k tmpfs '{}' && {script}",
            dir.display()
        ));
    unshare
}

fn check_private_mount() -> Result<(), String> {
    check_mount_script("mounting a tmpfs in a private namespace", |_| "true".into())
}

fn check_read_only_remount() -> Result<(), String> {
    check_mount_script("remounting a private tmpfs read-only", |dir| {
        format!("mount -o remount,ro '{}'", dir.display())
    })
}

/// Whether the script that `script` makes for the mount point succeeds on
/// a tiny tmpfs in a private namespace.
fn check_mount_script(what: &str, script: impl FnOnce(&Path) -> String) -> Result<(), String> {
    let dir = TempDir::new("mount-check");
    let output = with_tiny_tmpfs(dir.path(), &script(dir.path()))
        .output()
        .map_err(|err| format!("cannot run 'unshare': {err}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Whether `program --version` runs and names `package`: the tests rely on
/// that implementation's options.
fn check_tool(program: &str, package: &str) -> Result<(), String> {
    let output = command(program)
        .arg("--version")
        .output()
        .map_err(|err| format!("cannot run '{program}': {err}"))?;
    let version = String::from_utf8_lossy(&output.stdout);
    if output.status.success() && version.contains(package) {
        Ok(())
    } else {
        let first_line = version.lines().next().unwrap_or_default();
        Err(format!(
            "'{program} --version' ({}) does not name {package}: {first_line:?}",
            output.status
        ))
    }
}

/// The tests' only unsafe code, as the crate's lints demand: kill(2),
/// getpgrp(2), and what a test that plays a program embedding toolcap sets
/// up, which std does not offer.
#[allow(unsafe_code)]
pub mod signals {
    /// Sends `signal` to `pid` (a negative pid: to that process group).
    pub fn kill(pid: libc::pid_t, signal: i32) -> std::io::Result<()> {
        // SAFETY: kill(2) only sends a signal; no memory is involved.
        if unsafe { libc::kill(pid, signal) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// The test run's own process group.
    pub fn own_process_group() -> libc::pid_t {
        // SAFETY: getpgrp(2) has no preconditions and cannot fail.
        unsafe { libc::getpgrp() }
    }

    /// Ignores `signal` in this process (for SIGCHLD: the kernel then
    /// reaps its children itself). Only for a process that runs one test
    /// alone.
    pub fn ignore(signal: i32) {
        // SAFETY: SIG_IGN is not a handler; no memory is involved.
        unsafe { libc::signal(signal, libc::SIG_IGN) };
    }

    /// Makes this process a subreaper: orphans of its descendants become
    /// its children.
    pub fn become_subreaper() {
        // SAFETY: PR_SET_CHILD_SUBREAPER only sets a flag on this process.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    }

    /// Reaps the children of this process that have ended; returns how
    /// many there were.
    pub fn reap_ended_children() -> usize {
        let mut reaped = 0;
        // SAFETY: waitpid(2) writes only to the status it is given.
        while unsafe { libc::waitpid(-1, &mut 0, libc::WNOHANG) } > 0 {
            reaped += 1;
        }
        reaped
    }
}
