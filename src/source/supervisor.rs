//! Supervising a running command: one event loop over its pipes and a
//! self-pipe woken by SIGCHLD (or, without process-wide effects, a pidfd),
//! so the command is never blocked by toolcap and its exit is seen even
//! while a background process still holds a pipe; feeding its stdin;
//! timeouts (SIGTERM, then SIGKILL to the group), the drain time after
//! exit, cancellation by the embedding program, and reaping (the command
//! line is the group's subreaper).
//!
//! What to do when is decided by [`Machine`]; this module does the I/O it
//! asks for and reads the clock. It imports the rest of `source` and
//! `sys`, nothing later in the flow.

use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::ExitStatus;
use std::time::Instant;

use signal_hook::SigId;
use signal_hook::consts::{SIGCHLD, SIGKILL, SIGTERM};

use super::CHUNK_SIZE;
use super::machine::{Action, Event, Limits, Machine, Outcome};
use crate::sys::{self, Leader, ProcessGroup};

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
    /// Neither: look every few milliseconds.
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

/// The write end of the command's stdin, and what is left to write.
pub(crate) struct Feed<'a> {
    pub(crate) pipe: File,
    pub(crate) bytes: &'a [u8],
}

pub(crate) struct Supervisor<'a> {
    pub(crate) group: ProcessGroup,
    /// `None` once closed.
    pub(crate) output: Option<File>,
    pub(crate) stderr: Option<File>,
    /// `None` once closed: the command then reads end of file.
    pub(crate) input: Option<Feed<'a>>,
    pub(crate) exit_watch: ExitWatch<'a>,
    pub(crate) cancel: Option<Cancel<'a>>,
    pub(crate) limits: Limits,
}

/// What a wait found ready.
struct Ready {
    output: bool,
    stderr: bool,
    exit_watch: bool,
    input: bool,
}

impl Supervisor<'_> {
    /// The event loop: the [`Machine`] decides, this does what it says. At
    /// each wake-up the leader is reaped if its exit may have been
    /// signalled, the machine's actions are done up to its next wait, and
    /// whichever pipe is ready is read (one chunk, handed to `on_chunk`) or
    /// written (the next part of the input).
    pub(crate) fn run(mut self, mut on_chunk: impl FnMut(Pipe, &[u8])) -> io::Result<Ended> {
        let mut machine = self.machine(Instant::now());
        if self
            .input
            .as_ref()
            .is_some_and(|feed| feed.bytes.is_empty())
        {
            self.input = None;
        }
        let mut read_errors = Vec::new();
        let mut buffer = vec![0; CHUNK_SIZE];
        let mut exit_signalled = true;
        loop {
            if exit_signalled {
                self.look_for_exit(&mut machine);
            }
            let now = Instant::now();
            let wake_at = match self.act(&mut machine, now) {
                ControlFlow::Continue(wake_at) => wake_at,
                ControlFlow::Break(outcome) => {
                    return Ok(Ended {
                        status: outcome.status,
                        exited_at: outcome.exited_at,
                        timed_out: outcome.timed_out,
                        read_errors,
                    });
                }
            };
            let ready = self.wait(machine.has_exited(), now, wake_at)?;
            exit_signalled = ready.exit_watch || matches!(self.exit_watch, ExitWatch::Interval);
            self.transfer(&ready, &mut buffer, &mut on_chunk, &mut read_errors);
            if self.output.is_none() && self.stderr.is_none() {
                machine.on(now, Event::PipesClosed);
            }
        }
    }

    /// The machine for this run, which started at `started`.
    fn machine(&self, started: Instant) -> Machine {
        let mut machine = Machine::new(self.limits, started);
        if self.cancel.is_some() {
            machine = machine.asking_to_cancel();
        }
        if matches!(self.exit_watch, ExitWatch::Interval) {
            machine = machine.looking_for_exit();
        }
        machine
    }

    /// Does what the machine decides at `now`, up to its next wait (when
    /// to wake) or its stop.
    fn act(
        &mut self,
        machine: &mut Machine,
        now: Instant,
    ) -> ControlFlow<Outcome, Option<Instant>> {
        loop {
            match machine.next(now) {
                Action::Wait(at) => return ControlFlow::Continue(at),
                Action::Stop(outcome) => return ControlFlow::Break(outcome),
                action => self.perform(action, machine, now),
            }
        }
    }

    /// After a wait: empties the SIGCHLD alarm if it rang, feeds the input
    /// and reads the pipes that are ready.
    fn transfer(
        &mut self,
        ready: &Ready,
        buffer: &mut [u8],
        on_chunk: &mut impl FnMut(Pipe, &[u8]),
        read_errors: &mut Vec<(Pipe, io::Error)>,
    ) {
        if ready.exit_watch
            && let ExitWatch::Alarm(alarm) = &self.exit_watch
        {
            alarm.clear(buffer);
        }
        if ready.input {
            self.feed();
        }
        for (pipe, ready) in [(Pipe::Output, ready.output), (Pipe::Stderr, ready.stderr)] {
            if ready && let Err(err) = self.read(pipe, buffer, on_chunk) {
                read_errors.push((pipe, err));
            }
        }
    }

    /// Reaps what of the group has ended, and tells the machine when the
    /// leader has (after the exit this reaps the orphans handed to toolcap).
    fn look_for_exit(&self, machine: &mut Machine) {
        let status = match self.group.reap() {
            Leader::Exited(status) => Some(status),
            Leader::Unwaitable => None,
            Leader::NotReaped => return,
        };
        machine.on(Instant::now(), Event::Exited(status));
    }

    /// Does what the machine decided, and tells it what was found.
    fn perform(&mut self, action: Action, machine: &mut Machine, now: Instant) {
        match action {
            Action::AskCancel => {
                if self.cancel.as_mut().is_some_and(|cancel| cancel()) {
                    machine.on(now, Event::Cancelled);
                }
            }
            Action::Terminate => self.group.signal(SIGTERM),
            Action::Kill => self.group.signal(SIGKILL),
            Action::KillRest => {
                if !self.rest_of_group_gone() {
                    self.group.signal(SIGKILL);
                }
            }
            Action::CloseInput => self.input = None,
            Action::CheckGroup => {
                if self.rest_of_group_gone() {
                    machine.on(now, Event::GroupGone);
                }
            }
            // Handled by `act`.
            Action::Wait(_) | Action::Stop(_) => {}
        }
    }

    /// Waits until a pipe or the exit watch is ready, or until `wake_at`.
    fn wait(&self, exited: bool, now: Instant, wake_at: Option<Instant>) -> io::Result<Ready> {
        let watched = match &self.exit_watch {
            ExitWatch::Alarm(alarm) => Some(alarm.alarm.as_fd()),
            // A pidfd stays readable once its process is gone.
            ExitWatch::Descriptor(pidfd) => (!exited).then(|| pidfd.as_fd()),
            ExitWatch::Interval => None,
        };
        let ([output, stderr, exit_watch], input) = sys::poll_ready(
            [
                self.output.as_ref().map(AsFd::as_fd),
                self.stderr.as_ref().map(AsFd::as_fd),
                watched,
            ],
            self.input.as_ref().map(|feed| feed.pipe.as_fd()),
            wake_at.map(|at| at.saturating_duration_since(now)),
        )?;
        Ok(Ready {
            output,
            stderr,
            exit_watch,
            input,
        })
    }

    /// Writes the next part of the input into the command's stdin, which
    /// can take it; closes it when all is written.
    fn feed(&mut self) {
        let Some(feed) = &mut self.input else { return };
        let part = &feed.bytes[..feed.bytes.len().min(CHUNK_SIZE)];
        match sys::write_without_sigpipe(feed.pipe.as_fd(), part) {
            Ok(written) => feed.bytes = &feed.bytes[written..],
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) => {}
            // The command closed its stdin: what it did not read is
            // dropped, as a shell's pipe would drop it.
            Err(_) => feed.bytes = &[],
        }
        if feed.bytes.is_empty() {
            // End of file for the command.
            self.input = None;
        }
    }

    /// Reads one chunk from a ready pipe into `on_chunk`; closes the pipe
    /// at end of file or on error.
    fn read(
        &mut self,
        pipe: Pipe,
        buffer: &mut [u8],
        on_chunk: &mut impl FnMut(Pipe, &[u8]),
    ) -> io::Result<()> {
        let slot = match pipe {
            Pipe::Output => &mut self.output,
            Pipe::Stderr => &mut self.stderr,
        };
        let Some(file) = slot else { return Ok(()) };
        match file.read(buffer) {
            Ok(0) => *slot = None,
            Ok(len) => on_chunk(pipe, &buffer[..len]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => {
                *slot = None;
                return Err(err);
            }
        }
        Ok(())
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
