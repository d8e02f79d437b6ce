//! Running commands, and runs as the command line does them: for a
//! program that embeds toolcap (an agent harness, the Python package).
//!
//! [`command`] runs a command in wrap mode and caps what it prints in
//! memory, without process-wide effects; [`render`] turns its [`Report`]
//! into what the command line would print, the text and the `--json`
//! report. [`as_toolcap`] does everything the binary does, filter mode and
//! the store commands included, printing to stdout, with the process-wide
//! effects a command-line tool needs. A [`Config`] says what a run does;
//! start from [`Config::new`].
//!
//! ```
//! use toolcap::run::{Config, Mode, WrapConfig};
//!
//! let mut wrap = WrapConfig::new(vec!["/bin/sh".into(), "-c".into(), "seq 1000; exit 3".into()]);
//! wrap.inherit_stdin = false;
//! let mut config = Config::new(Mode::Wrap(wrap));
//! config.options = toolcap::Options::new().max(40);
//! let report = toolcap::run::command(&config, || false)?;
//! assert_eq!(report.child.map(|child| child.status()), Some(3));
//! let printed = toolcap::run::render(&report, &config)?;
//! assert!(printed.output.ends_with(b"999\n1000\n[exit status: 3]\n"));
//! # Ok::<(), toolcap::Error>(())
//! ```
//!
//! Inside the crate this room holds the drivers, each joining a source to
//! one or two streams: filter mode (FILEs and stdin as one stream), wrap
//! mode (a command's pipes), the store commands and `--show`'s capped
//! view. Every check that can refuse a run happens here first, before
//! anything is read, written or started.

mod filter;
pub(crate) mod store;
pub(crate) mod view;
mod wrap;

use std::io;

use crate::error::{Error, Problem};
use crate::plan::{self, Plan};
use crate::render::json;
use crate::sink::{Background, Sink};
use crate::spill;
use crate::stream::Sniff;
use wrap::Effects;

pub use crate::config::{Config, InputProfile, Mode, PROFILE_SNIFF_BYTES, ProfileChoice};
pub use crate::config::{StderrMode, WrapConfig};
pub use crate::render::Rendered;
pub use crate::report::{ChildExit, ChildReport, Report};
pub use crate::source::Input;

/// Runs toolcap as the command line does: reads the inputs or runs the
/// command, writes the capped output to stdout (and a separate stderr to
/// stderr), and reports what happened. Exit statuses are the caller's to
/// choose (the binary's `main` does).
///
/// Process-wide effects, as a command-line tool needs them: in filter mode
/// handlers for SIGINT, SIGTERM and SIGHUP are installed for the run (the
/// first stops the reading, a second gets the default action). In wrap
/// mode SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to the command's
/// process group, SIGCHLD is watched, toolcap becomes a child subreaper
/// (Linux; this stays set), and when stdin is a terminal that toolcap owns
/// the command's group gets the terminal for the run. When the run is
/// over, a signal that had its default action before has it again.
///
/// stdout (and, with a separate stderr, stderr) stays locked for the whole
/// run, so that the capped output is written in one piece: another thread
/// that prints meanwhile waits.
///
/// # Errors
///
/// [`Error::Usage`] when the options contradict each other or the spill
/// file is also an input or an output (nothing was done);
/// [`Error::Io`] when toolcap itself cannot go on.
pub fn as_toolcap(config: &Config) -> Result<Report, Error> {
    plan::check_output(config)?;
    if let Mode::Store(command) = &config.mode {
        return store::run(config, command);
    }
    let mut report = run_streams(config, Effects::ProcessWide)?;
    if config.json {
        let layout = json::Layout::of(config.status_line(), &report)?;
        let mut stdout = Sink::stdout();
        // The sink records write failures itself; see `Sink`.
        json::write_report(&mut stdout, &report, &layout).ok();
        if let Err(source) = stdout.finish() {
            report.problems.push(Problem::Output {
                stream: "stdout",
                source,
            });
        }
    }
    Ok(report)
}

/// Runs the command of `config` (which must be in wrap mode) and caps what
/// it prints, without any process-wide effect: for programs that embed
/// toolcap, such as an agent harness or the Python package. No signal
/// handler is installed, toolcap does not become a subreaper, the terminal
/// is not handed over, and nothing is printed: the capped output is in the
/// returned [`Report`] ([`render`] renders it as the
/// command line would). The command still runs in its own process group,
/// so a timeout kills everything it started; its exit is watched through a
/// pidfd (Linux) or by looking every few milliseconds. In a program that
/// ignores SIGCHLD the kernel reaps the command itself: the run still ends
/// when it does, with [`ChildExit::Unknown`]
/// and a [`Problem::StatusLost`].
///
/// `cancel` is asked about every 50 ms: once it returns true, the group is
/// killed with SIGKILL and the run ends as soon as the command is reaped,
/// with what it printed so far (the exit is then that signal). Pass
/// `|| false` never to cancel.
///
/// `config.json` and `config.live` play no part. With `inherit_stdin` and
/// no `input`, the command reads this process's stdin; one that reads a
/// terminal there is stopped (SIGTTIN), since its group is not the
/// terminal's foreground group: give it `input`, or leave `inherit_stdin`
/// off for /dev/null.
///
/// See the [module's example](self).
///
///
/// # Errors
///
/// [`Error::Usage`] when `config` is not in wrap mode, its options
/// contradict each other or its spill file is also stdout or stderr;
/// [`Error::Io`] when the command's pipes cannot be made or its working
/// directory is not one (a command that cannot be executed is reported as
/// the command line reports it: exit 127 or 126, and a problem).
pub fn command(config: &Config, mut cancel: impl FnMut() -> bool) -> Result<Report, Error> {
    if !matches!(config.mode, Mode::Wrap(_)) {
        return Err(Error::Usage(
            "toolcap::run::command runs a command: its Config must be in wrap mode".into(),
        ));
    }
    run_streams(config, Effects::Contained(&mut cancel))
}

/// Renders the [`Report`] of a run of `config` ([`command`] or
/// [`Capper::finish_run`](crate::Capper::finish_run)) as the command line
/// prints it, as text and as the `--json` report (whatever `config.json`
/// says); each stream in the style it was capped for.
///
/// # Errors
///
/// [`Error::Usage`] when a stream's style does not render, which a report
/// that toolcap made never has: its options were checked when it was
/// capped.
pub fn render(report: &Report, config: &Config) -> Result<Rendered, Error> {
    crate::render::render_run(report, config.status_line())
}

/// Runs the streams: printing them as text, or nothing with `--json` or
/// when embedded.
fn run_streams(config: &Config, effects: Effects<'_>) -> Result<Report, Error> {
    let mut plan = Plan::compile(&config.options)?;
    plan.set_profile(config.profile.applied().map(str::to_string));
    plan.check_total_room(config.spill.as_ref().map(spill::planned_note).as_ref())?;
    let mut report = match &config.mode {
        Mode::Store(_) => Ok(Report::empty()),
        Mode::Filter(inputs) => {
            if let Some(target) = &config.spill {
                spill::check_target(target, inputs, &[])?;
            }
            let sniff = Sniff::of(config)?;
            if config.json {
                filter::run(config, plan, sniff, inputs, Sink::new(io::sink()))
            } else {
                filter::run(config, plan, sniff, inputs, Sink::stdout())
            }
        }
        Mode::Wrap(wrap) => {
            if wrap.argv.is_empty() {
                return Err(Error::Usage("no command to run".into()));
            }
            let stderr_plan = match wrap.stderr {
                StderrMode::Merged => None,
                StderrMode::Separate { max } => {
                    let mut plan = Plan::compile_stderr(&config.options, max)?;
                    plan.set_profile(config.profile.applied().map(str::to_string));
                    Some(plan)
                }
            };
            if let Some(target) = &config.spill {
                let stdin = if wrap.inherit_stdin && wrap.input.is_none() {
                    &[Input::Stdin][..]
                } else {
                    &[]
                };
                let siblings = if stderr_plan.is_some() {
                    &[wrap::STDERR_SPILL_SUFFIX][..]
                } else {
                    &[]
                };
                spill::check_target(target, stdin, siblings)?;
            }
            if config.json || matches!(effects, Effects::Contained(_)) {
                let nowhere = || Sink::new(io::sink());
                wrap::run(config, wrap, plan, stderr_plan, nowhere(), nowhere, effects)
            } else {
                let (stdout, stderr) = (Background::stdout(), Background::stderr);
                wrap::run(config, wrap, plan, stderr_plan, stdout, stderr, effects)
            }
        }
    }?;
    if let Some(name) = config.profile.applied() {
        report.profile = Some(name.to_string());
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{Options, Style};

    /// The library refused neither (issue 22): `--live` prints the head
    /// first, so codex's header, which comes first, was never printed.
    #[test]
    fn live_is_refused_with_a_style_whose_header_comes_first() {
        use crate::config::Mode;
        use crate::source::Input;
        for (style, message) in [
            (
                Style::Codex,
                "--style codex cannot be combined with --live: its header comes first",
            ),
            (
                Style::Verifiers,
                "--style verifiers shows the output as verifiers does: it cannot be combined \
                 with --live",
            ),
        ] {
            let mut config = Config::new(Mode::Filter(vec![Input::File("/nonexistent".into())]));
            config.options = Options::new().style(style);
            config.live = true;
            match as_toolcap(&config) {
                Err(Error::Usage(refused)) => assert_eq!(refused, message),
                other => panic!("{style:?} with live: {other:?}"),
            }
        }
    }
}
