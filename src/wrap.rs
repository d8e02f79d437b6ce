//! Wrap mode: run a command, drain its pipes into capped streams, and
//! report how it ended.
//!
//! One thread runs an event loop over the child's pipes and a self-pipe
//! woken by SIGCHLD, so the child is never blocked by toolcap and its exit
//! is seen even while a background process still holds the pipe. A second
//! thread forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to the child's
//! process group.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use signal_hook::consts::{SIGCHLD, SIGHUP, SIGINT, SIGKILL, SIGQUIT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::Outcome;
use crate::config::{Config, StderrMode, WrapConfig};
use crate::sink::{OUTPUT_BUFFER, Sink};
use crate::size::format_duration;
use crate::source::CHUNK_SIZE;
use crate::spill::Spill;
use crate::stream::CappedStream;

/// Signals that toolcap passes on to the child's process group instead of
/// dying from them, so the capped output of what arrived is still printed.
const FORWARDED_SIGNALS: [i32; 4] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT];

/// What `--plain-env` sets: the variables that make tools stop decorating
/// output for a terminal nobody sees.
const PLAIN_ENV: [(&str, &str); 5] = [
    ("NO_COLOR", "1"),
    ("TERM", "dumb"),
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("CLICOLOR", "0"),
];
/// What `--plain-env` removes: they force colour even into a pipe.
const PLAIN_ENV_REMOVED: [&str; 2] = ["FORCE_COLOR", "CLICOLOR_FORCE"];

pub fn run(config: &Config, wrap: &WrapConfig) -> Result<Outcome> {
    // Both before the child exists, so no signal or exit can slip past.
    let signals = Signals::new(FORWARDED_SIGNALS).context("cannot install signal handlers")?;
    let (exit_alarm, exit_notifier) = UnixStream::pair().context("cannot create a pipe")?;
    exit_alarm
        .set_nonblocking(true)
        .context("cannot create a pipe")?;
    let sigchld = signal_hook::low_level::pipe::register(SIGCHLD, exit_notifier)
        .context("cannot install a SIGCHLD handler")?;

    become_subreaper();
    let (mut command, hand_over_terminal) = build_command(wrap);
    let merged = match wrap.stderr {
        StderrMode::Merged => {
            // One pipe for both, exactly what `2>&1` gives: lines keep the
            // order a terminal would show.
            let (reader, writer) = io::pipe().context("cannot create a pipe")?;
            command
                .stdout(writer.try_clone().context("cannot create a pipe")?)
                .stderr(writer);
            Some(reader)
        }
        StderrMode::Separate(_) => {
            command.stdout(Stdio::piped()).stderr(Stdio::piped());
            None
        }
    };
    let spawned = command.spawn();
    // Our copies of the pipes' write ends live in `command`: close them, or
    // the reads never see end-of-file.
    drop(command);
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            if hand_over_terminal {
                take_terminal();
            }
            signal_hook::low_level::unregister(sigchld);
            let code = if err.kind() == io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            let program = wrap.argv[0].to_string_lossy();
            let problem = anyhow!("cannot run '{program}': {err}");
            return Ok(Outcome {
                problems: vec![problem],
                child: Some(ChildStatus::NotRun(code)),
            });
        }
    };
    let pipes = match merged {
        Some(reader) => [Some(file_from(reader)), None],
        None => [
            child.stdout.take().map(file_from),
            child.stderr.take().map(file_from),
        ],
    };

    let group = child.id() as libc::pid_t;
    let forwarder = SignalForwarder::start(signals, group);

    let spill = config.spill.as_ref().map(Spill::create);
    let stderr_stream = match wrap.stderr {
        StderrMode::Merged => None,
        StderrMode::Separate(budget) => {
            let stderr = Sink::new(BufWriter::with_capacity(OUTPUT_BUFFER, io::stderr().lock()));
            let spill = spill.as_ref().map(|spill| spill.create_sibling(".stderr"));
            Some(CappedStream::new(
                budget,
                spill,
                stderr,
                config.live,
                config.header,
            ))
        }
    };
    let stdout = Sink::new(BufWriter::with_capacity(OUTPUT_BUFFER, io::stdout().lock()));
    let mut supervisor = Supervisor {
        group,
        pipes,
        exit_alarm,
        stdout_stream: CappedStream::new(config.budget, spill, stdout, config.live, config.header),
        stderr_stream,
        wrap,
        problems: Vec::new(),
    };
    let status = supervisor.supervise();
    if hand_over_terminal {
        take_terminal();
    }
    forwarder.stop();
    signal_hook::low_level::unregister(sigchld);
    // toolcap is giving up on an error: leave nothing of the child running.
    let status = status.inspect_err(|_| signal_group(group, SIGKILL))?;

    let Supervisor {
        stdout_stream,
        stderr_stream,
        mut problems,
        ..
    } = supervisor;
    if let Some(stream) = stderr_stream {
        problems.extend(stream.finish("stderr", None));
    }
    let status_line = status.line().filter(|_| wrap.status_line);
    problems.extend(stdout_stream.finish("stdout", status_line.as_deref()));
    Ok(Outcome {
        problems,
        child: Some(status),
    })
}

/// Passes SIGINT, SIGTERM, SIGHUP and SIGQUIT received by toolcap on to the
/// child's process group, from a thread of its own.
struct SignalForwarder {
    handle: signal_hook::iterator::Handle,
    group_alive: Arc<AtomicBool>,
    thread: thread::JoinHandle<()>,
}

impl SignalForwarder {
    fn start(mut signals: Signals, group: libc::pid_t) -> SignalForwarder {
        let group_alive = Arc::new(AtomicBool::new(true));
        let handle = signals.handle();
        let thread = {
            let group_alive = Arc::clone(&group_alive);
            thread::spawn(move || {
                for signal in signals.forever() {
                    if group_alive.load(Ordering::SeqCst) {
                        signal_group(group, signal);
                    }
                }
            })
        };
        SignalForwarder {
            handle,
            group_alive,
            thread,
        }
    }

    /// Stops forwarding: the group is reaped, and its id may be reused.
    fn stop(self) {
        self.group_alive.store(false, Ordering::SeqCst);
        self.handle.close();
        let _ = self.thread.join();
    }
}

/// The command, and whether it takes over the terminal (see
/// [`owns_terminal`]).
fn build_command(wrap: &WrapConfig) -> (Command, bool) {
    let mut command = Command::new(&wrap.argv[0]);
    command.args(&wrap.argv[1..]).process_group(0);
    let hand_over_terminal = wrap.inherit_stdin && owns_terminal();
    if !wrap.inherit_stdin {
        command.stdin(Stdio::null());
    } else if hand_over_terminal {
        // SAFETY: the hook only makes async-signal-safe calls, as a hook
        // between fork and exec must.
        unsafe {
            command.pre_exec(|| {
                take_terminal();
                Ok(())
            })
        };
    }
    if wrap.plain_env {
        command.envs(PLAIN_ENV);
        for name in PLAIN_ENV_REMOVED {
            command.env_remove(name);
        }
    }
    (command, hand_over_terminal)
}

/// Whether stdin is a terminal and toolcap is its foreground job. The
/// child runs in its own process group, and a background group that reads
/// the terminal is stopped by SIGTTIN: an interactive command would hang.
/// So, as a shell does for a job, toolcap makes the child's group the
/// terminal's foreground group for the run and takes the terminal back
/// after. Keys like Ctrl-C then reach the child directly.
fn owns_terminal() -> bool {
    // SAFETY: isatty, tcgetpgrp and getpgrp only query.
    unsafe {
        libc::isatty(libc::STDIN_FILENO) == 1
            && libc::tcgetpgrp(libc::STDIN_FILENO) == libc::getpgrp()
    }
}

/// Makes the calling process's group the terminal's foreground group.
/// A background group may do so only with SIGTTOU ignored, or it is
/// stopped: in the child that is what it is, and in toolcap afterwards too.
fn take_terminal() {
    // SAFETY: signal and tcsetpgrp are async-signal-safe and touch no
    // memory of ours.
    unsafe {
        let previous = libc::signal(libc::SIGTTOU, libc::SIG_IGN);
        libc::tcsetpgrp(libc::STDIN_FILENO, libc::getpgrp());
        libc::signal(libc::SIGTTOU, previous);
    }
}

/// Orphans of the child's group are handed to toolcap instead of init, so
/// toolcap reaps them and can tell when the whole group is gone; an init
/// that reaps slowly (as in many containers) would otherwise keep zombies
/// in the group.
fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_CHILD_SUBREAPER only sets a flag on this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

fn file_from(pipe: impl Into<OwnedFd>) -> File {
    File::from(pipe.into())
}

/// How often to look whether the group is gone while waiting to SIGKILL it:
/// no event tells us, and a stray process may outlive the child.
const GROUP_CHECK_INTERVAL: Duration = Duration::from_millis(50);

struct Supervisor<'a, O: Write, E: Write> {
    /// The child's pid, which is also its process group's id.
    group: libc::pid_t,
    /// The child's stdout (or both, merged) and stderr; `None` once closed.
    pipes: [Option<File>; 2],
    /// Readable when SIGCHLD arrived.
    exit_alarm: UnixStream,
    stdout_stream: CappedStream<O>,
    stderr_stream: Option<CappedStream<E>>,
    wrap: &'a WrapConfig,
    problems: Vec<anyhow::Error>,
}

impl<O: Write, E: Write> Supervisor<'_, O, E> {
    /// The event loop, until the child has exited, its group is gone after a
    /// timeout, and its pipes are closed or the drain time is over:
    /// 1. on SIGCHLD, reap the child and start the drain clock;
    /// 2. on timeout, SIGTERM the group, and SIGKILL it after `kill_after`
    ///    unless it is gone by then;
    /// 3. otherwise read whichever pipe is ready, one chunk at a time.
    fn supervise(&mut self) -> Result<ChildStatus> {
        let started = Instant::now();
        let mut term_at = self.wrap.timeout.map(|timeout| started + timeout);
        let mut kill_at = None;
        let mut timed_out = false;
        let mut exited: Option<ExitStatus> = None;
        let mut drain_until = None;
        let mut exit_signalled = true;
        let mut buffer = vec![0; CHUNK_SIZE];
        let exit = loop {
            if exit_signalled && let Some(status) = self.reap() {
                exited = Some(status);
                drain_until = Some(Instant::now() + self.wrap.drain);
            }
            let now = Instant::now();
            if exited.is_none() && term_at.is_some_and(|at| now >= at) {
                term_at = None;
                timed_out = true;
                signal_group(self.group, SIGTERM);
                kill_at = Some(now + self.wrap.kill_after);
            }
            if let Some(at) = kill_at {
                if now >= at {
                    signal_group(self.group, SIGKILL);
                    kill_at = None;
                } else if exited.is_some() && group_is_gone(self.group) {
                    kill_at = None;
                }
            }
            let pipes_open = self.pipes.iter().any(Option::is_some);
            let drained = !pipes_open || drain_until.is_some_and(|until| now >= until);
            if let Some(status) = exited
                && kill_at.is_none()
                && drained
            {
                break status;
            }

            let group_check =
                (exited.is_some() && kill_at.is_some()).then(|| now + GROUP_CHECK_INTERVAL);
            let drain_check = drain_until.filter(|_| pipes_open);
            let wake_at = [term_at, kill_at, drain_check, group_check]
                .into_iter()
                .flatten()
                .min();
            let ready = self.wait_for_input(wake_at.map(|at| at.saturating_duration_since(now)))?;
            exit_signalled = ready[2];
            if exit_signalled {
                // Empty the self-pipe; several signals may have queued bytes.
                while (&self.exit_alarm)
                    .read(&mut buffer)
                    .is_ok_and(|len| len > 0)
                {}
            }
            for (index, _) in ready[..2].iter().enumerate().filter(|(_, ready)| **ready) {
                self.read_pipe(index, &mut buffer);
            }
        };
        Ok(match self.wrap.timeout.filter(|_| timed_out) {
            Some(timeout) => ChildStatus::TimedOut(timeout),
            None => ChildStatus::from_exit(exit),
        })
    }

    /// Reaps every process of the child's group that has ended: the child,
    /// and the orphans handed to us as subreaper (other children of this
    /// process are left alone). Returns the child's status once.
    fn reap(&mut self) -> Option<ExitStatus> {
        let mut ours = None;
        loop {
            let mut status = 0;
            // SAFETY: waitpid(2) writes only to `status`.
            let pid = unsafe { libc::waitpid(-self.group, &mut status, libc::WNOHANG) };
            if pid <= 0 {
                return ours;
            }
            if pid == self.group {
                ours = Some(ExitStatus::from_raw(status));
            }
        }
    }

    /// Polls the open pipes and the exit alarm; which of [pipe 0, pipe 1,
    /// alarm] are ready. A signal interrupting the wait counts as nothing.
    fn wait_for_input(&self, timeout: Option<Duration>) -> Result<[bool; 3]> {
        let fds = [
            self.pipes[0].as_ref().map(AsRawFd::as_raw_fd),
            self.pipes[1].as_ref().map(AsRawFd::as_raw_fd),
            Some(self.exit_alarm.as_raw_fd()),
        ];
        let mut polled: Vec<libc::pollfd> = fds
            .iter()
            .map(|fd| libc::pollfd {
                fd: fd.unwrap_or(-1),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // Round up, so a wake-up never comes a millisecond early and spins.
        let timeout_ms = timeout.map_or(-1, |t| {
            t.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32
        });
        // SAFETY: `polled` is a valid array of pollfd for its whole length;
        // negative fds are ignored by poll(2).
        let result = unsafe {
            libc::poll(
                polled.as_mut_ptr(),
                polled.len() as libc::nfds_t,
                timeout_ms,
            )
        };
        if result < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                return Ok([false; 3]);
            }
            return Err(anyhow::Error::new(err).context("cannot wait for the child's output"));
        }
        Ok([0, 1, 2].map(|i| polled[i].revents != 0))
    }

    fn read_pipe(&mut self, index: usize, buffer: &mut [u8]) {
        let Some(pipe) = &mut self.pipes[index] else {
            return;
        };
        match pipe.read(buffer) {
            Ok(0) => self.pipes[index] = None,
            Ok(len) => match index {
                0 => self.stdout_stream.feed(&buffer[..len]),
                _ => {
                    if let Some(stream) = &mut self.stderr_stream {
                        stream.feed(&buffer[..len]);
                    }
                }
            },
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => {
                let name = if index == 0 { "output" } else { "stderr" };
                self.problems.push(
                    anyhow::Error::new(err).context(format!("cannot read the child's {name}")),
                );
                self.pipes[index] = None;
            }
        }
    }
}

/// Sends `signal` to every process in the group; a group already gone is
/// not an error.
fn signal_group(group: libc::pid_t, signal: i32) {
    // SAFETY: kill(2) with a negative pid only sends a signal; no memory
    // is involved.
    unsafe { libc::kill(-group, signal) };
}

fn group_is_gone(group: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the group exists.
    let result = unsafe { libc::kill(-group, 0) };
    result != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// How a wrapped command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChildStatus {
    Exited(i32),
    Signaled(i32),
    TimedOut(Duration),
    /// It could not be started: 127 not found, 126 not executable.
    NotRun(u8),
}

impl ChildStatus {
    fn from_exit(status: ExitStatus) -> ChildStatus {
        match (status.code(), status.signal()) {
            (Some(code), _) => ChildStatus::Exited(code),
            (None, Some(signal)) => ChildStatus::Signaled(signal),
            // Stopped or continued: wait(2) reports neither for a reaped child.
            (None, None) => ChildStatus::Exited(1),
        }
    }

    /// The exit status toolcap passes on, as a shell would report it.
    pub fn exit_code(&self) -> u8 {
        match *self {
            ChildStatus::Exited(code) => code as u8,
            ChildStatus::Signaled(signal) => 128u8.wrapping_add(signal as u8),
            ChildStatus::TimedOut(_) => 124,
            ChildStatus::NotRun(code) => code,
        }
    }

    /// The line appended to the output when the child did not exit 0.
    pub fn line(&self) -> Option<String> {
        match *self {
            ChildStatus::Exited(0) | ChildStatus::NotRun(_) => None,
            ChildStatus::Exited(code) => Some(format!("[exit status: {code}]\n")),
            ChildStatus::Signaled(signal) => Some(match signal_name(signal) {
                Some(name) => format!("[killed by signal {signal} ({name})]\n"),
                None => format!("[killed by signal {signal}]\n"),
            }),
            ChildStatus::TimedOut(after) => {
                Some(format!("[timed out after {}]\n", format_duration(after)))
            }
        }
    }
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGCHLD => "SIGCHLD",
        libc::SIGCONT => "SIGCONT",
        libc::SIGSTOP => "SIGSTOP",
        libc::SIGTSTP => "SIGTSTP",
        libc::SIGTTIN => "SIGTTIN",
        libc::SIGTTOU => "SIGTTOU",
        libc::SIGURG => "SIGURG",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGVTALRM => "SIGVTALRM",
        libc::SIGPROF => "SIGPROF",
        libc::SIGWINCH => "SIGWINCH",
        libc::SIGIO => "SIGIO",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}
