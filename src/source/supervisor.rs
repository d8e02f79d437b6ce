//! Supervising a running command: one event loop over its pipes and a
//! self-pipe woken by SIGCHLD, so the command is never blocked by toolcap
//! and its exit is seen even while a background process still holds a
//! pipe; timeouts (SIGTERM, then SIGKILL to the group), the drain time
//! after exit, and reaping (toolcap is the group's subreaper).

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use signal_hook::SigId;
use signal_hook::consts::{SIGCHLD, SIGKILL, SIGTERM};

use super::CHUNK_SIZE;
use crate::config::WrapConfig;
use crate::sys::{self, ProcessGroup};

/// How often to look whether the group is gone while waiting to SIGKILL it:
/// no event tells us, and a stray process may outlive the child.
const GROUP_CHECK_INTERVAL: Duration = Duration::from_millis(50);

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

/// How the supervised command ended.
pub(crate) struct Ended {
    pub(crate) status: ExitStatus,
    /// When it was reaped.
    pub(crate) exited_at: Instant,
    /// Whether `--timeout` fired before the command exited.
    pub(crate) timed_out: bool,
    /// Pipes that failed to read (each then counts as closed).
    pub(crate) read_errors: Vec<(Pipe, io::Error)>,
}

pub(crate) struct Supervisor<'a> {
    pub(crate) group: ProcessGroup,
    /// `None` once closed.
    pub(crate) output: Option<File>,
    pub(crate) stderr: Option<File>,
    pub(crate) exit_alarm: &'a ExitAlarm,
    pub(crate) wrap: &'a WrapConfig,
}

impl Supervisor<'_> {
    /// The event loop, until the child has exited, its group is gone after a
    /// timeout, and its pipes are closed or the drain time is over:
    /// 1. on SIGCHLD, reap the child and start the drain clock;
    /// 2. on timeout, SIGTERM the group, and SIGKILL it after `kill_after`
    ///    unless it is gone by then;
    /// 3. otherwise read whichever pipe is ready, one chunk at a time, and
    ///    hand the chunk to `on_chunk`.
    pub(crate) fn run(mut self, mut on_chunk: impl FnMut(Pipe, &[u8])) -> io::Result<Ended> {
        let started = Instant::now();
        let mut term_at = self.wrap.timeout.map(|timeout| started + timeout);
        let mut kill_at = None;
        let mut timed_out = false;
        let mut exited: Option<ExitStatus> = None;
        let mut exited_at = started;
        let mut drain_until = None;
        let mut exit_signalled = true;
        let mut read_errors = Vec::new();
        let mut buffer = vec![0; CHUNK_SIZE];
        let status = loop {
            if exit_signalled && let Some(status) = self.group.reap() {
                exited = Some(status);
                exited_at = Instant::now();
                drain_until = Some(exited_at + self.wrap.drain);
            }
            let now = Instant::now();
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
                } else if exited.is_some() && self.group.is_gone() {
                    kill_at = None;
                }
            }
            let pipes_open = self.output.is_some() || self.stderr.is_some();
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
            let [output_ready, stderr_ready, alarm_ready] = sys::poll_readable(
                [
                    self.output.as_ref().map(AsFd::as_fd),
                    self.stderr.as_ref().map(AsFd::as_fd),
                    Some(self.exit_alarm.alarm.as_fd()),
                ],
                wake_at.map(|at| at.saturating_duration_since(now)),
            )?;
            exit_signalled = alarm_ready;
            if alarm_ready {
                self.exit_alarm.clear(&mut buffer);
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
