//! Supervising a running command: one event loop over its pipes and a
//! self-pipe woken by SIGCHLD (or, without process-wide effects, a pidfd),
//! so the command is never blocked by toolcap and its exit is seen even
//! while a background process still holds a pipe; feeding its stdin;
//! timeouts (SIGTERM, then SIGKILL to the group), the drain time after
//! exit, cancellation by the embedding program, and reaping (the command
//! line is the group's subreaper).

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use signal_hook::SigId;
use signal_hook::consts::{SIGCHLD, SIGKILL, SIGTERM};

use super::CHUNK_SIZE;
use crate::config::WrapConfig;
use crate::sys::{self, Leader, ProcessGroup};

/// How often to look whether the group is gone while waiting to SIGKILL it:
/// no event tells us, and a stray process may outlive the child.
const GROUP_CHECK_INTERVAL: Duration = Duration::from_millis(50);

/// How often to ask the embedding program whether to give up: short enough
/// that Ctrl-C feels immediate, long enough to cost nothing.
const CANCEL_CHECK_INTERVAL: Duration = Duration::from_millis(50);

/// How often to look for the command's exit when nothing signals it (no
/// SIGCHLD handler, no pidfd): a short command should not wait long.
const EXIT_CHECK_INTERVAL: Duration = Duration::from_millis(5);

/// Which of the command's pipes a chunk came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pipe {
    /// Its stdout, or stdout and stderr merged.
    Output,
    /// Its stderr, with `--stderr separate`.
    Stderr,
}

/// A self-pipe that becomes readable when SIGCHLD arrives. Installed before
/// the child exists, so that its exit cannot slip past.
pub(crate) struct ExitAlarm {
    alarm: UnixStream,
    registration: SigId,
}

impl ExitAlarm {
    pub(crate) fn install() -> io::Result<ExitAlarm> {
        let (alarm, notifier) = UnixStream::pair()?;
        alarm.set_nonblocking(true)?;
        let registration = signal_hook::low_level::pipe::register(SIGCHLD, notifier)?;
        Ok(ExitAlarm {
            alarm,
            registration,
        })
    }

    /// Empties the self-pipe; several signals may have queued bytes.
    fn clear(&self, buffer: &mut [u8]) {
        while (&self.alarm).read(buffer).is_ok_and(|len| len > 0) {}
    }
}

impl Drop for ExitAlarm {
    fn drop(&mut self) {
        signal_hook::low_level::unregister(self.registration);
    }
}

/// How the command's exit is noticed.
pub(crate) enum ExitWatch<'a> {
    /// The command line's SIGCHLD self-pipe, which also wakes for orphans
    /// handed to toolcap as subreaper.
    Alarm(&'a ExitAlarm),
    /// A pidfd of the leader: no signal handler, nothing process-wide.
    Descriptor(OwnedFd),
    /// Neither: look every [`EXIT_CHECK_INTERVAL`].
    Interval,
}

/// How the supervised command ended.
pub(crate) struct Ended {
    /// `None` when something else took it (see [`Leader::Unwaitable`]).
    pub(crate) status: Option<ExitStatus>,
    /// When it was reaped.
    pub(crate) exited_at: Instant,
    /// Whether `--timeout` fired before the command exited.
    pub(crate) timed_out: bool,
    /// Pipes that failed to read (each then counts as closed).
    pub(crate) read_errors: Vec<(Pipe, io::Error)>,
}

/// Asked at short intervals whether the embedding program wants to give up
/// (its user pressed Ctrl-C): the group is then killed with SIGKILL and the
/// run ends as soon as the command is reaped, without draining.
pub(crate) type Cancel<'a> = &'a mut dyn FnMut() -> bool;

pub(crate) struct Supervisor<'a> {
    pub(crate) group: ProcessGroup,
    /// `None` once closed.
    pub(crate) output: Option<File>,
    pub(crate) stderr: Option<File>,
    /// The write end of its stdin, fed [`WrapConfig::input`].
    pub(crate) input: Option<File>,
    pub(crate) exit_watch: ExitWatch<'a>,
    pub(crate) cancel: Option<Cancel<'a>>,
    pub(crate) wrap: &'a WrapConfig,
}

impl Supervisor<'_> {
    /// The event loop, until the child has exited, its group is gone after a
    /// timeout, and its pipes are closed or the drain time is over:
    /// 1. on SIGCHLD (or its pidfd), reap the child and start the drain
    ///    clock;
    /// 2. when `cancel` says so, SIGKILL the group and stop once the child
    ///    is reaped;
    /// 3. on timeout, SIGTERM the group, and SIGKILL it after `kill_after`
    ///    unless it is gone by then;
    /// 4. otherwise read whichever pipe is ready, one chunk at a time, and
    ///    hand the chunk to `on_chunk`; write the next part of the input
    ///    when its pipe can take it.
    pub(crate) fn run(mut self, mut on_chunk: impl FnMut(Pipe, &[u8])) -> io::Result<Ended> {
        let started = Instant::now();
        let mut term_at = self.wrap.timeout.map(|timeout| started + timeout);
        let mut kill_at = None;
        let mut timed_out = false;
        // Once the leader has ended: its status, `None` when something else
        // took it ([`Leader::Unwaitable`]).
        let mut exited: Option<Option<ExitStatus>> = None;
        let mut exited_at = started;
        let mut drain_until = None;
        let mut exit_signalled = true;
        let mut read_errors = Vec::new();
        let mut buffer = vec![0; CHUNK_SIZE];
        let input = self.wrap.input.as_deref().unwrap_or_default();
        let mut fed = 0;
        if input.is_empty() {
            self.input = None;
        }
        let mut cancelled = false;
        let mut cancel_check = started;
        let status = loop {
            if exit_signalled {
                // After the exit, this reaps the orphans handed to toolcap.
                let status = match self.group.reap() {
                    Leader::Exited(status) => Some(Some(status)),
                    Leader::Unwaitable if exited.is_none() => Some(None),
                    _ => None,
                };
                if status.is_some() {
                    exited = status;
                    exited_at = Instant::now();
                    drain_until = Some(exited_at + self.wrap.drain);
                }
            }
            let now = Instant::now();
            if !cancelled
                && now >= cancel_check
                && let Some(cancel) = &mut self.cancel
            {
                cancel_check = now + CANCEL_CHECK_INTERVAL;
                if cancel() {
                    cancelled = true;
                    // After the leader's exit, the group's id stays reserved
                    // only while a process of it is left.
                    if exited.is_none() || !self.rest_of_group_gone() {
                        self.group.signal(SIGKILL);
                    }
                    (term_at, kill_at, self.input) = (None, None, None);
                }
            }
            if exited.is_none() && term_at.is_some_and(|at| now >= at) {
                term_at = None;
                timed_out = true;
                self.group.signal(SIGTERM);
                kill_at = Some(now + self.wrap.kill_after);
            }
            if let Some(at) = kill_at {
                if now >= at {
                    self.group.signal(SIGKILL);
                    kill_at = None;
                } else if exited.is_some() && self.rest_of_group_gone() {
                    kill_at = None;
                }
            }
            let pipes_open = self.output.is_some() || self.stderr.is_some();
            let drained = !pipes_open || cancelled || drain_until.is_some_and(|until| now >= until);
            if let Some(status) = exited
                && kill_at.is_none()
                && drained
            {
                break status;
            }

            let group_check =
                (exited.is_some() && kill_at.is_some()).then(|| now + GROUP_CHECK_INTERVAL);
            let drain_check = drain_until.filter(|_| pipes_open);
            let cancel_check = (self.cancel.is_some() && !cancelled).then_some(cancel_check);
            let exit_check = (exited.is_none() && matches!(self.exit_watch, ExitWatch::Interval))
                .then(|| now + EXIT_CHECK_INTERVAL);
            let wake_at = [
                term_at,
                kill_at,
                drain_check,
                group_check,
                cancel_check,
                exit_check,
            ]
            .into_iter()
            .flatten()
            .min();
            let watched = match &self.exit_watch {
                ExitWatch::Alarm(alarm) => Some(alarm.alarm.as_fd()),
                // A pidfd stays readable once its process is gone.
                ExitWatch::Descriptor(pidfd) => exited.is_none().then(|| pidfd.as_fd()),
                ExitWatch::Interval => None,
            };
            let ([output_ready, stderr_ready, watch_ready], input_ready) = sys::poll_ready(
                [
                    self.output.as_ref().map(AsFd::as_fd),
                    self.stderr.as_ref().map(AsFd::as_fd),
                    watched,
                ],
                self.input.as_ref().map(AsFd::as_fd),
                wake_at.map(|at| at.saturating_duration_since(now)),
            )?;
            exit_signalled = watch_ready || matches!(self.exit_watch, ExitWatch::Interval);
            if watch_ready && let ExitWatch::Alarm(alarm) = &self.exit_watch {
                alarm.clear(&mut buffer);
            }
            if input_ready && let Some(pipe) = &self.input {
                let end = input.len().min(fed + CHUNK_SIZE);
                match sys::write_without_sigpipe(pipe.as_fd(), &input[fed..end]) {
                    Ok(written) => fed += written,
                    Err(err)
                        if matches!(
                            err.kind(),
                            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                        ) => {}
                    // The command closed its stdin: what it did not read is
                    // dropped, as a shell's pipe would drop it.
                    Err(_) => fed = input.len(),
                }
                if fed == input.len() {
                    // End of file for the command.
                    self.input = None;
                }
            }
            for (pipe, ready) in [(Pipe::Output, output_ready), (Pipe::Stderr, stderr_ready)] {
                if !ready {
                    continue;
                }
                let slot = match pipe {
                    Pipe::Output => &mut self.output,
                    Pipe::Stderr => &mut self.stderr,
                };
                if let Err(err) = read_chunk(slot, &mut buffer, |chunk| on_chunk(pipe, chunk)) {
                    read_errors.push((pipe, err));
                }
            }
        };
        Ok(Ended {
            status,
            exited_at,
            timed_out,
            read_errors,
        })
    }

    /// After the leader's exit: whether the rest of its group is gone. What
    /// of it ended and is ours to reap (orphans handed to a subreaper:
    /// toolcap, or the program that embeds it) is reaped first, so that
    /// those zombies do not count as left.
    fn rest_of_group_gone(&self) -> bool {
        self.group.reap();
        self.group.is_gone()
    }
}

/// Reads one chunk from a ready pipe; closes it at end of file or on error.
fn read_chunk(
    slot: &mut Option<File>,
    buffer: &mut [u8],
    on_chunk: impl FnOnce(&[u8]),
) -> io::Result<()> {
    let Some(pipe) = slot else { return Ok(()) };
    match pipe.read(buffer) {
        Ok(0) => *slot = None,
        Ok(len) => on_chunk(&buffer[..len]),
        Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
        Err(err) => {
            *slot = None;
            return Err(err);
        }
    }
    Ok(())
}
