//! The command-line behaviours, each a driver that joins a source to one
//! or two streams: filter mode (FILEs and stdin as one stream) and wrap
//! mode (a command's pipes). Every check that can refuse a run happens here
//! first, before anything is read, written or started.

mod filter;
mod store;
mod wrap;

use std::io;

use regex::bytes::RegexBuilder;

use crate::config::{Config, Mode, ProfileChoice, StderrMode};
use crate::error::{Error, Problem};
use crate::format::Format;
use crate::render::json;
use crate::sink::{Background, Sink};
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
    if config.json && config.live {
        return Err(Error::Usage(
            "--json and --live cannot be used together: the report comes at the end".into(),
        ));
    }
    let format = config.options.format_of_output();
    if config.live && format != Format::Text {
        return Err(Error::Usage(format!(
            "--format {} cannot be combined with --live: where its cuts land is known at the end",
            format.name()
        )));
    }
    if let Mode::Store(command) = &config.mode {
        let mut report = Report::empty();
        report.warnings = store::run(config, command)?;
        return Ok(report);
    }
    let mut report = run_streams(config)?;
    if let ProfileChoice::Applied(name) = &config.profile {
        report.profile = Some(name.clone());
    }
    if config.json {
        // The options of the profile the input chose, if it did.
        let options = match (&config.profile, &report.profile) {
            (ProfileChoice::FromInput(profiles), Some(name)) => profiles
                .iter()
                .find(|profile| &profile.name == name)
                .map_or(&config.options, |profile| &profile.options),
            _ => &config.options,
        };
        let (status_line, stderr_max) = match &config.mode {
            Mode::Wrap(wrap) => (
                wrap.status_line,
                match wrap.stderr {
                    StderrMode::Separate { max } => max,
                    _ => None,
                },
            ),
            _ => (false, None),
        };
        let layout = json::Layout {
            header: options.has_header(),
            tokenizer: options.tokenizer_name(),
            status_line,
            output_style: options.plan()?.text,
            stderr_style: options.stderr_plan(stderr_max)?.text,
        };
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

/// Runs the streams: printing them as text, or nothing with `--json`.
fn run_streams(config: &Config) -> Result<Report, Error> {
    let plan = config.options.plan()?;
    match &config.mode {
        Mode::Store(_) => Ok(Report::empty()),
        Mode::Filter(inputs) => {
            if let Some(target) = &config.spill {
                spill::check_target(target, inputs, &[])?;
            }
            let choices = input_choices(config)?;
            if config.json {
                filter::run(config, plan, choices, inputs, Sink::new(io::sink()))
            } else {
                filter::run(config, plan, choices, inputs, Sink::stdout())
            }
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
            if config.json {
                let nowhere = || Sink::new(io::sink());
                wrap::run(config, wrap, plan, stderr_plan, nowhere(), nowhere)
            } else {
                let (stdout, stderr) = (Background::stdout(), Background::stderr);
                wrap::run(config, wrap, plan, stderr_plan, stdout, stderr)
            }
        }
    }
}

/// With `--profile auto` in filter mode, the profiles the input may
/// choose, each checked now: a contradiction or a bad pattern refuses the
/// run before anything is read, naming the profile.
fn input_choices(config: &Config) -> Result<Vec<filter::Choice>, Error> {
    let ProfileChoice::FromInput(profiles) = &config.profile else {
        return Ok(Vec::new());
    };
    let in_profile = |name: &str, message: String| Error::Usage(format!("profile '{name}': {message}"));
    profiles
        .iter()
        .map(|profile| {
            let plan = profile.options.plan().map_err(|err| in_profile(&profile.name, err.to_string()))?;
            let detect = profile.detect.iter().map(|pattern| {
                RegexBuilder::new(pattern)
                    .multi_line(true)
                    .build()
                    .map_err(|err| in_profile(&profile.name, format!("invalid detect pattern '{pattern}': {err}")))
            });
            Ok(filter::Choice {
                name: profile.name.clone(),
                detect: detect.collect::<Result<_, _>>()?,
                plan,
            })
        })
        .collect()
}
