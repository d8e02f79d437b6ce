//! The decisions of child supervision, as a state machine with no I/O and
//! no clock of its own. The supervisor tells it what happened (the leader
//! exited, the embedding program wants to give up, the rest of the group
//! is gone, the pipes are closed) and asks it, at an instant it reads from
//! its clock, what to do next: signal the group, ask or look at something,
//! wait until a deadline, or stop. A test drives it with a fake clock and
//! fake events.
//!
//! It imports nothing of the crate: the timers and the rules are all it
//! owns.

use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// How often to look whether the group is gone while waiting to SIGKILL it:
/// no event tells us, and a stray process may outlive the child.
const GROUP_CHECK_INTERVAL: Duration = Duration::from_millis(50);

/// How often to ask the embedding program whether to give up: short enough
/// that Ctrl-C feels immediate, long enough to cost nothing.
const CANCEL_CHECK_INTERVAL: Duration = Duration::from_millis(50);

/// How often to look for the command's exit when nothing signals it (no
/// SIGCHLD handler, no pidfd): a short command should not wait long.
const EXIT_CHECK_INTERVAL: Duration = Duration::from_millis(5);

/// How long a command may run, and how it is ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// `--timeout`: from the start to SIGTERM; `None` waits for ever.
    pub(crate) timeout: Option<Duration>,
    /// `--kill-after`: from SIGTERM to SIGKILL.
    pub(crate) kill_after: Duration,
    /// `--drain`: how long the pipes are still read after the command
    /// exited (a background process may hold them open).
    pub(crate) drain: Duration,
}

/// What happened, as the supervisor tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// The leader ended: reaped with its status, or `None` when something
    /// else took it. Only the first one counts.
    Exited(Option<ExitStatus>),
    /// The embedding program, asked ([`Action::AskCancel`]), wants to give
    /// up.
    Cancelled,
    /// Looked at ([`Action::CheckGroup`]): nothing of the group is left.
    GroupGone,
    /// Every pipe of the command's output is closed: nothing is left to
    /// drain.
    PipesClosed,
}

/// What to do next, as the machine decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Ask the embedding program whether to give up; tell
    /// [`Event::Cancelled`] if it does.
    AskCancel,
    /// SIGTERM the group (the timeout).
    Terminate,
    /// SIGKILL the group (the grace after SIGTERM is over, or the run is
    /// cancelled while the leader runs).
    Kill,
    /// After the leader's exit, SIGKILL what is left of its group, if
    /// anything is: the group's id stays reserved only while a process of
    /// it is left.
    KillRest,
    /// Stop feeding the command's stdin.
    CloseInput,
    /// After the leader's exit, with a SIGKILL due: look whether the rest
    /// of the group is gone, and tell [`Event::GroupGone`] if it is.
    CheckGroup,
    /// Wait for the pipes (and the leader's exit) until this instant, or
    /// for ever; move what is ready; then ask again.
    Wait(Option<Instant>),
    /// The run is over.
    Stop(Outcome),
}

/// How the supervised command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// `None` when something else took it.
    pub(crate) status: Option<ExitStatus>,
    /// When its exit was seen.
    pub(crate) exited_at: Instant,
    /// Whether the timeout fired before the command exited.
    pub(crate) timed_out: bool,
}

/// The state of one supervised run. Each [`next`](Machine::next) takes
/// its decisions in this order:
/// 1. after [`Event::Cancelled`]: SIGKILL the group (what is left of it
///    after the leader's exit), stop feeding stdin, and stop as soon as
///    the leader is reaped, without draining;
/// 2. when the embedding program asks to be asked, ask it every
///    [`CANCEL_CHECK_INTERVAL`];
/// 3. on the timeout, while the leader runs, SIGTERM the group, and
///    SIGKILL it after `kill_after` unless, the leader having exited, the
///    rest of the group is gone by then (looked at once per wait);
/// 4. once the leader has exited and no SIGKILL is due, stop when the
///    pipes are closed or the drain time is over;
/// 5. otherwise wait until the earliest deadline.
#[derive(Debug)]
pub(crate) struct Machine {
    limits: Limits,
    started: Instant,
    /// Whether the leader's exit wakes no wait, and must be looked for.
    exit_looked_for: bool,
    term_at: Option<Instant>,
    kill_at: Option<Instant>,
    timed_out: bool,
    /// The leader's status and when its exit was seen.
    exited: Option<(Option<ExitStatus>, Instant)>,
    /// When to ask the embedding program next; `None`: never again.
    ask_at: Option<Instant>,
    cancelled: bool,
    pipes_closed: bool,
    /// Whether the group was looked at since the last wait.
    group_checked: bool,
    /// Decided by an event, done at the next [`next`](Machine::next)s.
    owed: Vec<Action>,
}

impl Machine {
    /// A run that started at `started`, whose exit wakes the wait, that no
    /// embedding program cancels.
    pub(crate) fn new(limits: Limits, started: Instant) -> Machine {
        Machine {
            limits,
            started,
            exit_looked_for: false,
            term_at: limits.timeout.map(|timeout| started + timeout),
            kill_at: None,
            timed_out: false,
            exited: None,
            ask_at: None,
            cancelled: false,
            pipes_closed: false,
            group_checked: false,
            owed: Vec::new(),
        }
    }

    /// The embedding program is asked whether to give up, at once and then
    /// every [`CANCEL_CHECK_INTERVAL`].
    pub(crate) fn asking_to_cancel(self) -> Machine {
        Machine {
            ask_at: Some(self.started),
            ..self
        }
    }

    /// Nothing wakes a wait when the leader exits: waits end every
    /// [`EXIT_CHECK_INTERVAL`] to look.
    pub(crate) fn looking_for_exit(self) -> Machine {
        Machine {
            exit_looked_for: true,
            ..self
        }
    }

    /// Whether the leader's exit was seen.
    pub(crate) fn has_exited(&self) -> bool {
        self.exited.is_some()
    }

    /// Takes in what happened at `now`.
    pub(crate) fn on(&mut self, now: Instant, event: Event) {
        match event {
            Event::Exited(status) => {
                if self.exited.is_none() {
                    self.exited = Some((status, now));
                    // The timeout is only for a running leader.
                    self.term_at = None;
                }
            }
            Event::Cancelled => {
                self.cancelled = true;
                self.ask_at = None;
                (self.term_at, self.kill_at) = (None, None);
                let kill = if self.has_exited() {
                    Action::KillRest
                } else {
                    Action::Kill
                };
                self.owed.extend([kill, Action::CloseInput]);
            }
            Event::GroupGone => self.kill_at = None,
            Event::PipesClosed => self.pipes_closed = true,
        }
    }

    /// What to do at `now`; asked again after each action until it says
    /// wait or stop.
    pub(crate) fn next(&mut self, now: Instant) -> Action {
        if !self.owed.is_empty() {
            return self.owed.remove(0);
        }
        if let Some(at) = self.ask_at
            && now >= at
        {
            self.ask_at = Some(now + CANCEL_CHECK_INTERVAL);
            return Action::AskCancel;
        }
        if let Some(at) = self.term_at
            && now >= at
        {
            self.term_at = None;
            self.timed_out = true;
            self.kill_at = Some(now + self.limits.kill_after);
            return Action::Terminate;
        }
        if let Some(at) = self.kill_at {
            if now >= at {
                self.kill_at = None;
                return Action::Kill;
            }
            if self.has_exited() && !self.group_checked {
                self.group_checked = true;
                return Action::CheckGroup;
            }
        }
        if let Some((status, exited_at)) = self.exited
            && self.kill_at.is_none()
            && (self.pipes_closed || self.cancelled || now >= self.drain_until(exited_at))
        {
            return Action::Stop(Outcome {
                status,
                exited_at,
                timed_out: self.timed_out,
            });
        }
        self.group_checked = false;
        Action::Wait(self.wake_at(now))
    }

    fn drain_until(&self, exited_at: Instant) -> Instant {
        exited_at + self.limits.drain
    }

    /// The earliest deadline of those that are set.
    fn wake_at(&self, now: Instant) -> Option<Instant> {
        let exited_at = self.exited.map(|(_, at)| at);
        let drain_end = exited_at
            .filter(|_| !self.pipes_closed)
            .map(|at| self.drain_until(at));
        let group_check =
            (exited_at.is_some() && self.kill_at.is_some()).then(|| now + GROUP_CHECK_INTERVAL);
        let exit_check =
            (exited_at.is_none() && self.exit_looked_for).then(|| now + EXIT_CHECK_INTERVAL);
        [
            self.term_at,
            self.kill_at,
            drain_end,
            group_check,
            self.ask_at,
            exit_check,
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    /// A fake clock: instants as milliseconds after the start.
    struct Clock(Instant);

    impl Clock {
        fn at(&self, ms: u64) -> Instant {
            self.0 + Duration::from_millis(ms)
        }
    }

    fn limits(timeout: Option<u64>) -> Limits {
        Limits {
            timeout: timeout.map(Duration::from_secs),
            kill_after: 5 * SECOND,
            drain: 2 * SECOND,
        }
    }

    fn exit(code: i32) -> Event {
        Event::Exited(Some(ExitStatus::from_raw(code << 8)))
    }

    /// Every action up to the next wait or stop, at `now`.
    fn actions(machine: &mut Machine, now: Instant) -> Vec<Action> {
        let mut actions = Vec::new();
        loop {
            let action = machine.next(now);
            actions.push(action);
            if matches!(action, Action::Wait(_) | Action::Stop(_)) {
                return actions;
            }
        }
    }

    #[test]
    fn without_a_timeout_it_waits_for_the_exit_then_for_the_pipes() {
        let clock = Clock(Instant::now());
        let mut machine = Machine::new(limits(None), clock.at(0));
        assert_eq!(actions(&mut machine, clock.at(0)), [Action::Wait(None)]);
        machine.on(clock.at(3000), exit(0));
        machine.on(clock.at(3000), Event::PipesClosed);
        let outcome = Outcome {
            status: Some(ExitStatus::from_raw(0)),
            exited_at: clock.at(3000),
            timed_out: false,
        };
        assert_eq!(
            actions(&mut machine, clock.at(3000)),
            [Action::Stop(outcome)]
        );
    }

    #[test]
    fn a_timeout_terminates_then_kills_after_the_grace() {
        let clock = Clock(Instant::now());
        let mut machine = Machine::new(limits(Some(10)), clock.at(0));
        assert_eq!(
            actions(&mut machine, clock.at(0)),
            [Action::Wait(Some(clock.at(10000)))]
        );
        assert_eq!(
            actions(&mut machine, clock.at(4000)),
            [Action::Wait(Some(clock.at(10000)))],
            "woken early by output"
        );
        assert_eq!(
            actions(&mut machine, clock.at(10000)),
            [Action::Terminate, Action::Wait(Some(clock.at(15000)))]
        );
        // The child traps SIGTERM.
        assert_eq!(
            actions(&mut machine, clock.at(15000)),
            [Action::Kill, Action::Wait(None)]
        );
        machine.on(
            clock.at(15100),
            Event::Exited(Some(ExitStatus::from_raw(9))),
        );
        machine.on(clock.at(15100), Event::PipesClosed);
        let outcome = Outcome {
            status: Some(ExitStatus::from_raw(9)),
            exited_at: clock.at(15100),
            timed_out: true,
        };
        assert_eq!(
            actions(&mut machine, clock.at(15100)),
            [Action::Stop(outcome)]
        );
    }

    #[test]
    fn a_kill_after_of_zero_kills_at_once() {
        let clock = Clock(Instant::now());
        let limits = Limits {
            kill_after: Duration::ZERO,
            ..limits(Some(1))
        };
        let mut machine = Machine::new(limits, clock.at(0));
        assert_eq!(
            actions(&mut machine, clock.at(1000)),
            [Action::Terminate, Action::Kill, Action::Wait(None)]
        );
    }

    #[test]
    fn after_sigterm_the_kill_waits_for_the_rest_of_the_group() {
        let clock = Clock(Instant::now());
        let mut machine = Machine::new(limits(Some(10)), clock.at(0));
        actions(&mut machine, clock.at(10000));
        // The leader obeyed; a process it started is still there.
        machine.on(clock.at(10500), exit(143));
        machine.on(clock.at(10500), Event::PipesClosed);
        assert_eq!(
            actions(&mut machine, clock.at(10500)),
            [Action::CheckGroup, Action::Wait(Some(clock.at(10550)))],
            "looked at again soon, and at once after any wake-up"
        );
        assert_eq!(
            actions(&mut machine, clock.at(10550)),
            [Action::CheckGroup, Action::Wait(Some(clock.at(10600)))]
        );
        assert_eq!(machine.next(clock.at(10600)), Action::CheckGroup);
        machine.on(clock.at(10600), Event::GroupGone);
        assert!(matches!(
            machine.next(clock.at(10600)),
            Action::Stop(Outcome {
                timed_out: true,
                ..
            })
        ));
    }

    #[test]
    fn a_background_process_holding_the_pipe_is_drained_for_a_bounded_time() {
        let clock = Clock(Instant::now());
        let mut machine = Machine::new(limits(Some(10)), clock.at(0));
        machine.on(clock.at(1000), exit(0));
        // No wake-up at the timeout, which is only for a running leader.
        assert_eq!(
            actions(&mut machine, clock.at(1000)),
            [Action::Wait(Some(clock.at(3000)))]
        );
        assert_eq!(
            actions(&mut machine, clock.at(2900)),
            [Action::Wait(Some(clock.at(3000)))]
        );
        assert!(matches!(
            actions(&mut machine, clock.at(3000))[..],
            [Action::Stop(Outcome {
                timed_out: false,
                ..
            })]
        ));
    }

    #[test]
    fn the_timeout_after_the_exit_wakes_no_wait() {
        // Exited at 9 s of a 10 s timeout, draining until 11 s: a wait that
        // ended at the timeout, then at once again, would spin.
        let clock = Clock(Instant::now());
        let mut machine = Machine::new(limits(Some(10)), clock.at(0));
        machine.on(clock.at(9000), exit(0));
        for now in [9000, 10_000, 10_500] {
            assert_eq!(
                actions(&mut machine, clock.at(now)),
                [Action::Wait(Some(clock.at(11000)))],
                "at {now} ms"
            );
        }
    }

    #[test]
    fn cancelling_kills_the_group_and_skips_the_drain() {
        let clock = Clock(Instant::now());
        let mut machine = Machine::new(limits(Some(10)), clock.at(0)).asking_to_cancel();
        assert_eq!(
            actions(&mut machine, clock.at(0)),
            [Action::AskCancel, Action::Wait(Some(clock.at(50)))]
        );
        assert_eq!(machine.next(clock.at(50)), Action::AskCancel);
        machine.on(clock.at(50), Event::Cancelled);
        assert_eq!(
            actions(&mut machine, clock.at(50)),
            [Action::Kill, Action::CloseInput, Action::Wait(None)],
            "neither asked again nor timed out"
        );
        machine.on(clock.at(60), Event::Exited(Some(ExitStatus::from_raw(9))));
        assert!(matches!(
            actions(&mut machine, clock.at(60))[..],
            [Action::Stop(_)]
        ));
    }

    #[test]
    fn cancelling_after_the_exit_kills_only_what_is_left() {
        let clock = Clock(Instant::now());
        let mut machine = Machine::new(limits(None), clock.at(0)).asking_to_cancel();
        machine.on(clock.at(0), exit(0));
        assert_eq!(machine.next(clock.at(0)), Action::AskCancel);
        machine.on(clock.at(0), Event::Cancelled);
        assert!(matches!(
            actions(&mut machine, clock.at(0))[..],
            [Action::KillRest, Action::CloseInput, Action::Stop(_)]
        ));
    }

    #[test]
    fn an_exit_nothing_signals_is_looked_for() {
        let clock = Clock(Instant::now());
        let mut machine = Machine::new(limits(None), clock.at(0)).looking_for_exit();
        assert_eq!(
            actions(&mut machine, clock.at(1000)),
            [Action::Wait(Some(clock.at(1005)))]
        );
        machine.on(clock.at(1005), exit(0));
        assert_eq!(
            actions(&mut machine, clock.at(1005)),
            [Action::Wait(Some(clock.at(3005)))]
        );
    }

    #[test]
    fn only_the_first_exit_counts() {
        let clock = Clock(Instant::now());
        let mut machine = Machine::new(limits(None), clock.at(0));
        machine.on(clock.at(1000), exit(3));
        machine.on(clock.at(2000), Event::Exited(None));
        machine.on(clock.at(2000), Event::PipesClosed);
        let Action::Stop(outcome) = machine.next(clock.at(2000)) else {
            panic!("not stopped");
        };
        assert_eq!(
            (outcome.status, outcome.exited_at),
            (Some(ExitStatus::from_raw(3 << 8)), clock.at(1000))
        );
    }
}
