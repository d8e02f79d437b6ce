//! Wrap mode: run a command, drain its pipes into capped streams, and
//! report how it ended. The command runs in its own process group, which
//! a timeout kills whole and, on the command line, toolcap's signals are
//! forwarded to.

use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use signal_hook::consts::SIGKILL;

use crate::config::{Config, StderrMode, WrapConfig};
use crate::error::{Error, Problem};
use crate::plan::Plan;
use crate::render::text;
use crate::report::{ChildExit, ChildReport, Report};
use crate::sink::{Close, Sink};
use crate::source::child::{self, Launch, SpawnError, Spawned, Stderr, Stdin};
use crate::source::machine::Limits;
use crate::source::signals::Forwarder;
use crate::source::supervisor::{Cancel, Ended, ExitAlarm, ExitWatch, Feed, Pipe, Supervisor};
use crate::spill::Spill;
use crate::stream::{Printed, Problems, RunFacts, Stream};
use crate::sys;

/// With `--stderr separate`, the stderr's spill file is PATH + this.
pub(super) const STDERR_SPILL_SUFFIX: &str = ".stderr";

/// What a run of wrap mode may do to the whole process.
pub(super) enum Effects<'a> {
    /// The command line's: signals forwarded to the command's group,
    /// SIGCHLD watched, the child subreaper flag, the terminal handed over.
    ProcessWide,
    /// None of those ([`command`](crate::run::command)); `cancel` is
    /// asked at short intervals whether to give up.
    Contained(Cancel<'a>),
}

pub(super) fn run<W: Close>(
    config: &Config,
    wrap: &WrapConfig,
    plan: Plan,
    stderr_plan: Option<Plan>,
    stdout: Sink<W>,
    stderr_sink: impl FnOnce() -> Sink<W>,
    effects: Effects<'_>,
) -> Result<Report, Error> {
    let (handlers, cancel) = install(effects)?;
    let mut problems = Problems::default();
    let spawned = match child::spawn(&launch(wrap), handlers.is_some()) {
        Ok(spawned) => spawned,
        Err(err) => {
            let (exit, problem) = not_started(err, wrap)?;
            problems.errors.push(problem);
            // Its streams are empty, but they are still what was asked for:
            // the spill file is still made (or emptied), `--stderr
            // separate` still has a stderr.
            let (output, stderr) = streams(config, plan, stderr_plan, stdout, stderr_sink);
            let child = ChildReport {
                exit,
                timed_out_after: None,
                duration: Duration::ZERO,
            };
            return Ok(finish(output, stderr, child, wrap, problems));
        }
    };
    let started = Instant::now();
    let (mut output, mut stderr) = streams(config, plan, stderr_plan, stdout, stderr_sink);
    let ended = supervise(spawned, handlers, cancel, wrap, |pipe, chunk| match pipe {
        Pipe::Output => output.feed(chunk),
        Pipe::Stderr => {
            if let Some(stderr) = &mut stderr {
                stderr.feed(chunk);
            }
        }
    })?;
    let child = child_report(ended, started, wrap, &mut problems);
    Ok(finish(output, stderr, child, wrap, problems))
}

/// The command line's process-wide handlers, installed before the child
/// exists, so that no signal or exit can slip past.
struct Handlers {
    forwarder: Forwarder,
    exit_alarm: ExitAlarm,
}

/// What `effects` allow: the command line's handlers, or the embedding
/// program's cancel.
fn install(effects: Effects<'_>) -> Result<(Option<Handlers>, Option<Cancel<'_>>), Error> {
    match effects {
        Effects::ProcessWide => {
            let forwarder =
                Forwarder::install().map_err(Error::io("cannot install signal handlers"))?;
            let exit_alarm =
                ExitAlarm::install().map_err(Error::io("cannot install a SIGCHLD handler"))?;
            sys::become_subreaper();
            let handlers = Handlers {
                forwarder,
                exit_alarm,
            };
            Ok((Some(handlers), None))
        }
        Effects::Contained(cancel) => Ok((None, Some(cancel))),
    }
}

/// What [`child::spawn`] starts, as `wrap` says.
fn launch(wrap: &WrapConfig) -> Launch<'_> {
    let stdin = match (&wrap.input, wrap.inherit_stdin) {
        (Some(_), _) => Stdin::Fed,
        (None, true) => Stdin::Inherited,
        (None, false) => Stdin::Null,
    };
    let stderr = match wrap.stderr {
        StderrMode::Merged => Stderr::Merged,
        StderrMode::Separate { .. } => Stderr::Separate,
    };
    Launch {
        argv: &wrap.argv,
        cwd: wrap.cwd.as_deref(),
        env: wrap.env.as_deref(),
        plain_env: wrap.plain_env,
        stdin,
        stderr,
    }
}

/// Why the command did not start: toolcap's own failure (an error), or
/// the command's (how it is reported as having ended, and the problem).
fn not_started(err: SpawnError, wrap: &WrapConfig) -> Result<(ChildExit, Problem), Error> {
    match err {
        SpawnError::Setup(source) => Err(Error::Io {
            context: "cannot create a pipe".into(),
            source,
        }),
        SpawnError::Directory(source) => {
            let dir = wrap.cwd.as_deref().unwrap_or(std::path::Path::new("."));
            Err(Error::Io {
                context: format!("cannot run the command in '{}'", dir.display()),
                source,
            })
        }
        SpawnError::Exec(source) => {
            let exit = if source.kind() == std::io::ErrorKind::NotFound {
                ChildExit::NotFound
            } else {
                ChildExit::NotExecutable
            };
            let problem = Problem::CannotRun {
                program: wrap.argv[0].to_string_lossy().into_owned(),
                source,
            };
            Ok((exit, problem))
        }
    }
}

/// Supervises the started command until it has ended and its pipes are
/// drained, handing each chunk to `on_chunk`; then gives back what the
/// run took (the terminal, the signals).
fn supervise(
    spawned: Spawned,
    handlers: Option<Handlers>,
    cancel: Option<Cancel<'_>>,
    wrap: &WrapConfig,
    on_chunk: impl FnMut(Pipe, &[u8]),
) -> Result<Ended, Error> {
    let group = spawned.group;
    let (forwarding, exit_alarm) = match handlers {
        Some(handlers) => (
            Some(handlers.forwarder.start(group)),
            Some(handlers.exit_alarm),
        ),
        None => (None, None),
    };
    let exit_watch = match &exit_alarm {
        Some(alarm) => ExitWatch::Alarm(alarm),
        None => group
            .exit_descriptor()
            .map_or(ExitWatch::Interval, ExitWatch::Descriptor),
    };
    let supervisor = Supervisor {
        group,
        output: Some(spawned.output),
        stderr: spawned.stderr,
        input: spawned.input.map(|pipe| Feed {
            pipe,
            bytes: wrap.input.as_deref().unwrap_or_default(),
        }),
        exit_watch,
        // Reborrowed: the supervisor also borrows the SIGCHLD alarm, which
        // lives only in this function.
        cancel: cancel.map(|cancel| cancel as Cancel<'_>),
        limits: Limits {
            timeout: wrap.timeout,
            kill_after: wrap.kill_after,
            drain: wrap.drain,
        },
    };
    let ended = supervisor.run(on_chunk);
    if spawned.has_terminal {
        sys::take_terminal();
    }
    if let Some(forwarding) = forwarding {
        forwarding.stop();
    }
    drop(exit_alarm);
    // toolcap is giving up on an error: leave nothing of the command
    // running.
    ended
        .inspect_err(|_| group.signal(SIGKILL))
        .map_err(Error::io("cannot wait for the command's output"))
}

/// How the command ended, as the report says it; its lost status and the
/// pipes that failed to read are problems.
fn child_report(
    ended: Ended,
    started: Instant,
    wrap: &WrapConfig,
    problems: &mut Problems,
) -> ChildReport {
    let exit = match ended.status {
        None => {
            problems.errors.push(Problem::StatusLost);
            ChildExit::Unknown
        }
        Some(status) => match (status.code(), status.signal()) {
            (Some(code), _) => ChildExit::Exited(code),
            (None, Some(signal)) => ChildExit::Signaled(signal),
            // Stopped or continued: wait(2) reports neither for a reaped
            // child.
            (None, None) => ChildExit::Exited(1),
        },
    };
    for (pipe, source) in ended.read_errors {
        let stream = match pipe {
            Pipe::Output => "output",
            Pipe::Stderr => "stderr",
        };
        problems
            .errors
            .push(Problem::CommandOutput { stream, source });
    }
    ChildReport {
        exit,
        timed_out_after: wrap.timeout.filter(|_| ended.timed_out),
        duration: ended.exited_at.saturating_duration_since(started),
    }
}

/// The command's streams: stdout's, and with `--stderr separate` stderr's,
/// each spilled where `config` asks.
fn streams<W: Close>(
    config: &Config,
    plan: Plan,
    stderr_plan: Option<Plan>,
    stdout: Sink<W>,
    stderr_sink: impl FnOnce() -> Sink<W>,
) -> (Printed<W>, Option<Printed<W>>) {
    let mut spill = config.spill.as_ref().map(Spill::create);
    let stderr = stderr_plan.map(|plan| {
        let spill = spill
            .as_mut()
            .map(|spill| spill.create_sibling(STDERR_SPILL_SUFFIX));
        Printed::new(Stream::new(plan, spill), stderr_sink(), "stderr", config)
    });
    (
        Printed::new(Stream::new(plan, spill), stdout, "stdout", config),
        stderr,
    )
}

/// Ends the streams of a run whose command ended as `child` says (the
/// status line after the output), into its report.
fn finish<W: Close>(
    output: Printed<W>,
    stderr: Option<Printed<W>>,
    child: ChildReport,
    wrap: &WrapConfig,
    mut problems: Problems,
) -> Report {
    let facts = RunFacts {
        command: Some(
            wrap.argv
                .iter()
                .map(|arg| arg.to_string_lossy().into_owned())
                .collect(),
        ),
        exit: Some(i64::from(child.status())),
    };
    let stderr = stderr.map(|stderr| stderr.finish(None, &facts, &mut problems));
    let status_line = text::status_line(&child).filter(|_| wrap.status_line);
    let output = output.finish(status_line.as_deref(), &facts, &mut problems);
    Report {
        output,
        stderr,
        child: Some(child),
        interrupted_by: None,
        problems: problems.errors,
        warnings: problems.warnings,
        profile: None,
        no_match: false,
    }
}
