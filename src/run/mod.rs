//! The command-line behaviours, each a driver that joins a source to one
//! or two streams: filter mode (FILEs and stdin as one stream) and wrap
//! mode (a command's pipes). Every check that can refuse a run happens here
//! first, before anything is read, written or started.

mod filter;
mod wrap;

use crate::config::{Config, Mode, StderrMode};
use crate::error::Error;
use crate::report::Report;
use crate::source::Input;
use crate::spill;

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
pub fn run(config: &Config) -> Result<Report, Error> {
    let plan = config.options.plan()?;
    match &config.mode {
        Mode::Filter(inputs) => {
            if let Some(target) = &config.spill {
                spill::check_target(target, inputs, &[])?;
            }
            filter::run(config, plan, inputs)
        }
        Mode::Wrap(wrap) => {
            if wrap.argv.is_empty() {
                return Err(Error::Usage("no command to run".into()));
            }
            let stderr_plan = match wrap.stderr {
                StderrMode::Merged => None,
                StderrMode::Separate { max } => Some(config.options.stderr_plan(max)?),
            };
            if let Some(target) = &config.spill {
                let stdin = if wrap.inherit_stdin {
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
            wrap::run(config, wrap, plan, stderr_plan)
        }
    }
}
