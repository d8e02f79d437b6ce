//! Signals that end a run early: in filter mode they stop the reading (and
//! the capped view of what was read is still printed); in wrap mode they
//! are passed on to the child's process group.
//!
//! Both install process-wide handlers, so only the command-line entry
//! points use them. Once a run is over, a signal that had its default
//! action before gets it again: signal-hook's handler stays installed
//! (it cannot be taken back safely), so an action registered once per
//! process performs the default action while no run handles the signal.

use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Once};
use std::thread;

use signal_hook::SigId;
use signal_hook::consts::{SIGHUP, SIGINT, SIGKILL, SIGQUIT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::sys::{self, ProcessGroup};

/// Runs that handle the signals now; while none does, `IDLE` is true.
static RUNS: AtomicUsize = AtomicUsize::new(0);
static IDLE: AtomicBool = AtomicBool::new(true);

/// Marks a run as handling the signals for as long as it lives.
struct Handling;

impl Handling {
    fn start() -> io::Result<Handling> {
        static DEFAULTS: Once = Once::new();
        let mut failed = None;
        DEFAULTS.call_once(|| {
            for number in FORWARDED {
                // A signal someone else handles or ignores is theirs.
                if sys::has_default_action(number)
                    && let Err(err) = signal_hook::flag::register_conditional_default(number, &IDLE)
                {
                    failed = Some(err);
                }
            }
        });
        if let Some(err) = failed {
            return Err(err);
        }
        RUNS.fetch_add(1, Ordering::SeqCst);
        IDLE.store(false, Ordering::SeqCst);
        Ok(Handling)
    }
}

impl Drop for Handling {
    fn drop(&mut self) {
        if RUNS.fetch_sub(1, Ordering::SeqCst) == 1 {
            IDLE.store(true, Ordering::SeqCst);
        }
    }
}

/// The signals that interrupt filter mode (exit 128 + N).
const INTERRUPTING: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// Signals that toolcap passes on to the child's process group instead of
/// dying from them, so the capped output of what arrived is still printed.
const FORWARDED: [i32; 4] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT];

/// Catches SIGINT, SIGTERM and SIGHUP in filter mode. The first one is
/// recorded and wakes [`as_fd`](AsFd::as_fd); a second one gets the
/// signal's default action at once (the user means it).
pub(crate) struct Interruption {
    /// Readable once a signal came; never drained, so it stays readable.
    wake: UnixStream,
    _handling: Handling,
    /// The first signal caught, or 0.
    signal: Arc<AtomicUsize>,
    registered: Vec<SigId>,
}

impl Interruption {
    pub(crate) fn install() -> io::Result<Interruption> {
        let handling = Handling::start()?;
        let (wake, notifier) = UnixStream::pair()?;
        let signal = Arc::new(AtomicUsize::new(0));
        let armed = Arc::new(AtomicBool::new(false));
        let mut registered = Vec::new();
        for number in INTERRUPTING {
            // Order matters: the default action must check the flag before
            // this same signal sets it.
            registered.push(signal_hook::flag::register_conditional_default(
                number,
                Arc::clone(&armed),
            )?);
            registered.push(signal_hook::flag::register(number, Arc::clone(&armed))?);
            let first = Arc::clone(&signal);
            registered.push(signal_hook::flag::register_usize(
                number,
                first,
                number as usize,
            )?);
            registered.push(signal_hook::low_level::pipe::register(
                number,
                notifier.try_clone()?,
            )?);
        }
        Ok(Interruption {
            wake,
            _handling: handling,
            signal,
            registered,
        })
    }

    /// The signal that interrupted the run, if one did.
    pub(crate) fn caught(&self) -> Option<i32> {
        match self.signal.load(Ordering::SeqCst) {
            0 => None,
            number => i32::try_from(number).ok(),
        }
    }
}

impl AsFd for Interruption {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.wake.as_fd()
    }
}

impl Drop for Interruption {
    fn drop(&mut self) {
        for id in self.registered.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

/// Passes SIGINT, SIGTERM, SIGHUP and SIGQUIT received by toolcap on to
/// the child's process group, from a thread of its own. A second SIGINT or
/// SIGTERM while the child still runs kills the group with SIGKILL: a
/// child that traps both could otherwise not be stopped from the keyboard.
pub(crate) struct Forwarder {
    signals: Signals,
    handling: Handling,
}

impl Forwarder {
    /// Installs the handlers; call before the child exists, so that no
    /// signal can slip past.
    pub(crate) fn install() -> io::Result<Forwarder> {
        let handling = Handling::start()?;
        Ok(Forwarder {
            signals: Signals::new(FORWARDED)?,
            handling,
        })
    }

    /// Starts forwarding to `group`.
    pub(crate) fn start(self, group: ProcessGroup) -> Forwarding {
        let group_alive = Arc::new(AtomicBool::new(true));
        let Forwarder {
            mut signals,
            handling,
        } = self;
        let handle = signals.handle();
        let thread = {
            let group_alive = Arc::clone(&group_alive);
            thread::spawn(move || {
                let mut escalation = Escalation::default();
                for signal in signals.forever() {
                    if group_alive.load(Ordering::SeqCst) {
                        group.signal(escalation.forward(signal));
                    }
                }
            })
        };
        Forwarding {
            handle,
            group_alive,
            thread,
            _handling: handling,
        }
    }
}

/// Which signal the group gets for each one toolcap receives: the same,
/// until the second SIGINT or SIGTERM; from then on SIGKILL. Its own type,
/// off the forwarding thread, so that a test can send it signals.
#[derive(Default)]
struct Escalation {
    interrupts: u32,
}

impl Escalation {
    fn forward(&mut self, signal: i32) -> i32 {
        if signal == SIGINT || signal == SIGTERM {
            self.interrupts += 1;
        }
        if self.interrupts >= 2 {
            SIGKILL
        } else {
            signal
        }
    }
}

/// A running [`Forwarder`].
pub(crate) struct Forwarding {
    handle: signal_hook::iterator::Handle,
    group_alive: Arc<AtomicBool>,
    thread: thread::JoinHandle<()>,
    _handling: Handling,
}

impl Forwarding {
    /// Stops forwarding once the group is reaped (its id may be reused) and
    /// removes the handlers.
    pub(crate) fn stop(self) {
        self.group_alive.store(false, Ordering::SeqCst);
        self.handle.close();
        let _ = self.thread.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_forwarded_until_the_second_interrupt_kills() {
        let mut escalation = Escalation::default();
        let received = [SIGQUIT, SIGINT, SIGHUP, SIGTERM, SIGQUIT];
        let sent = received.map(|signal| escalation.forward(signal));
        assert_eq!(sent, [SIGQUIT, SIGINT, SIGHUP, SIGKILL, SIGKILL]);
    }
}
