//! The toolcap program: parses the command line, runs, and owns every exit
//! status and every error message. It lives in the library so that the
//! binary and the Python package's `toolcap` command are one program; it
//! is not part of the library's stable API.

mod args;
mod draft;
mod profile;
mod registry;

pub use registry::{Accepts, Function, Named, Value, keyword, named};
// The grammars of the values the command line reads, for the fuzz targets.
pub use crate::size::{parse_count, parse_duration, parse_size, parse_size_or_percent};

use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::hook;
use crate::render::text::shell_quoted;
use crate::run::{ChildReport, Input, Mode, Report};
use crate::{Error, Problem};

/// Usage errors, as clap and most tools use it.
const EXIT_USAGE: u8 = 2;
/// Filter mode: something failed.
const EXIT_FAILURE: u8 = 1;
/// Wrap mode: toolcap itself failed (as GNU timeout and env use it); in
/// any mode, a bug ([`Error::Panicked`]).
const EXIT_TOOLCAP_FAILED_WRAPPED: u8 = 125;
/// A process killed by signal N exits, as a shell reports it, 128 + N.
const EXIT_SIGNAL_BASE: u8 = 128;

/// Runs the program on its arguments (`argv[0]` first) and the process's
/// environment, and returns its exit status. Everything it prints goes to
/// stdout and stderr.
pub fn main(argv: impl IntoIterator<Item = OsString>) -> u8 {
    let argv: Vec<OsString> = argv.into_iter().collect();
    // Claude Code reads a hook's exit status 2 as "block this tool call":
    // a hook's own usage error must not stop the agent.
    let is_hook = registry::HOOK.spelled_in(&argv);
    let config = match args::parse(argv.clone()) {
        Ok(config) => config,
        Err(args::Stop::Info(info)) => {
            // Help and version go to stdout; nothing is left to do if it
            // is gone.
            let _ = info.print();
            return 0;
        }
        Err(args::Stop::Usage(message)) => {
            print_error(&message);
            return if is_hook { EXIT_FAILURE } else { EXIT_USAGE };
        }
        Err(args::Stop::Hook(command)) => return run_hook(command),
        Err(args::Stop::Print(text)) => {
            // Nothing sensible is left to do if stdout is gone.
            let _ = io::stdout().lock().write_all(text.as_bytes());
            return 0;
        }
    };
    let own_failure = match config.mode {
        Mode::Wrap(_) => EXIT_TOOLCAP_FAILED_WRAPPED,
        _ => EXIT_FAILURE,
    };
    let report = match crate::run::as_toolcap(&config) {
        Ok(report) => report,
        Err(err) => {
            print_error(&err);
            return failure_status(&err, own_failure);
        }
    };
    let first_file = match &config.mode {
        Mode::Filter(inputs) => inputs.first().and_then(|input| match input {
            Input::File(path) => Some(path.as_path()),
            Input::Stdin => None,
        }),
        _ => None,
    };
    exit_status(&report, own_failure, |problem| {
        first_file.and_then(|file| run_hint(&argv, file, problem))
    })
}

/// The exit status of a run that could not start or go on.
fn failure_status(err: &Error, own_failure: u8) -> u8 {
    match err {
        Error::Usage(_) => EXIT_USAGE,
        Error::Panicked { .. } => EXIT_TOOLCAP_FAILED_WRAPPED,
        _ => own_failure,
    }
}

/// `toolcap --max 10k cargo test` reads the FILEs `cargo` and `test`: when
/// the first FILE does not exist and names a program on PATH, what the
/// user meant, as a hint after its error (issue 23).
fn run_hint(argv: &[OsString], file: &Path, problem: &Problem) -> Option<String> {
    let Problem::Input { input, source } = problem else {
        return None;
    };
    let name = file.as_os_str();
    let named = *input == Input::File(file.to_path_buf()).name();
    if !named || source.kind() != io::ErrorKind::NotFound || !on_path(name) {
        return None;
    }
    // The FILEs end the command line unless options followed them: then
    // `--` goes before the first of them.
    let words = argv.get(1..).unwrap_or_default();
    let at = words.iter().position(|word| word == name)?;
    let unsure = words[at..]
        .iter()
        .any(|word| word.as_bytes().starts_with(b"-"));
    Some(dash_hint(words, at, unsure))
}

/// The hint itself, for toolcap's arguments `words` (no `argv[0]`) of
/// which `words[at]` names a program: the command line with `--` before
/// it; or, when `unsure` (an option after it may be toolcap's), only where
/// `--` goes.
fn dash_hint(words: &[OsString], at: usize, unsure: bool) -> String {
    if unsure {
        return "to run it, put -- before it and its arguments, after toolcap's options".into();
    }
    let quote = |word: &OsString| shell_quoted(word.as_bytes());
    let command: Vec<String> = std::iter::once("toolcap".to_string())
        .chain(words[..at].iter().map(quote))
        .chain(std::iter::once("--".to_string()))
        .chain(words[at..].iter().map(quote))
        .collect();
    format!("to run it, put -- before it: {}", command.join(" "))
}

/// Whether `name` (a bare name, no `/`) is an executable file in a
/// directory of PATH, as a shell would find it.
fn on_path(name: &OsStr) -> bool {
    if name.is_empty() || name.as_bytes().contains(&b'/') {
        return false;
    }
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        let candidate: PathBuf = dir.join(name);
        candidate
            .metadata()
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    })
}

/// The [`Config`](crate::run::Config) the command line makes of the
/// options `options` (each named by [`keyword`] or [`named`], in the order
/// given), reading nothing from the environment but `HOME`,
/// `XDG_CACHE_HOME` (where the default store is) and `XDG_CONFIG_HOME`
/// (where profiles.toml is): for the Python package, whose keywords fill
/// the draft through the same updates as the command line's options, so
/// that they mean the same and are refused with the same message. Help,
/// version and `--profiles` are refused.
pub fn config(
    options: impl IntoIterator<Item = (Named, Value)>,
) -> Result<crate::run::Config, String> {
    let env = |name: &str| match name {
        "HOME" | "XDG_CACHE_HOME" | "XDG_CONFIG_HOME" => std::env::var_os(name),
        _ => None,
    };
    let mut given = draft::Given::default();
    for (named, value) in options {
        named.give(value, &mut given)?;
    }
    given.refuse_conflicts()?;
    let draft = given.draft()?;
    args::configure(&given, draft, env).map_err(|stop| match stop {
        args::Stop::Usage(message) => message,
        args::Stop::Info(_) | args::Stop::Print(_) | args::Stop::Hook(_) => {
            "help, version, --profiles and the hook commands are for the command line".into()
        }
    })
}

/// The most of stdin `--hook` reads: an event is a few kilobytes (a long
/// command, a heredoc); more is not an event.
const HOOK_INPUT_LIMIT: u64 = 16 * 1024 * 1024;

/// Runs a hook command. The hook itself always exits 0: whatever goes
/// wrong, the agent's call runs as it was (a line on stderr says why).
fn run_hook(command: hook::Command) -> u8 {
    match command {
        hook::Command::Rewrite(Err(message)) => {
            print_error(&format_args!("hook: {message}; the command runs as it was"));
            0
        }
        hook::Command::Rewrite(Ok(how)) => {
            let mut input = Vec::new();
            if let Err(err) = io::stdin()
                .lock()
                .take(HOOK_INPUT_LIMIT)
                .read_to_end(&mut input)
            {
                print_error(&format_args!("hook: cannot read stdin: {err}"));
                return 0;
            }
            match hook::rewrite(&input, &how) {
                Ok(Some(answer)) => {
                    let mut out = io::stdout().lock();
                    // Nothing is left to do if stdout is gone.
                    let _ = writeln!(out, "{answer}").and_then(|()| out.flush());
                }
                Ok(None) => {}
                Err(message) => {
                    print_error(&format_args!("hook: {message}; the command runs as it was"))
                }
            }
            0
        }
        hook::Command::Install(path) => settings_changed(
            hook::settings::install(&path),
            &path,
            (
                "the toolcap hook is already in",
                "added the toolcap hook to",
            ),
        ),
        hook::Command::Uninstall(path) => settings_changed(
            hook::settings::uninstall(&path),
            &path,
            (
                "the toolcap hook is not in",
                "removed the toolcap hook from",
            ),
        ),
    }
}

/// Says what `--install-hook` or `--uninstall-hook` did to the settings at
/// `path` (`unchanged` or `written`, the path after it), and its status.
fn settings_changed(
    change: Result<hook::settings::Change, String>,
    path: &Path,
    (unchanged, written): (&str, &str),
) -> u8 {
    let done = match change {
        Ok(hook::settings::Change::Unchanged) => format!("{unchanged} '{}'", path.display()),
        Ok(hook::settings::Change::Written { backup }) => format!(
            "{written} '{}'{}",
            path.display(),
            backup
                .map(|b| format!(" (the previous file is '{}')", b.display()))
                .unwrap_or_default()
        ),
        Err(message) => {
            print_error(&message);
            return EXIT_FAILURE;
        }
    };
    // Nothing is left to do if stdout is gone.
    let _ = writeln!(io::stdout().lock(), "{done}");
    0
}

/// Prints what went wrong and decides the status: the command's own when
/// it did not succeed; 128+N after an interrupting signal N; `own_failure`
/// when a problem remains; else 0.
fn exit_status(report: &Report, own_failure: u8, hint: impl Fn(&Problem) -> Option<String>) -> u8 {
    // Two streams (stdout and a separate stderr) may fail the same way.
    let mut warned: Vec<String> = Vec::new();
    for warning in &report.warnings {
        let warning = warning.to_string();
        if !warned.contains(&warning) {
            print_error(&format_args!("warning: {warning}"));
            warned.push(warning);
        }
    }
    let mut failed = false;
    for problem in report.problems.iter().filter(|p| !p.is_broken_pipe()) {
        match hint(problem) {
            Some(hint) => print_error(&format_args!("{problem}; {hint}")),
            None => print_error(problem),
        }
        failed = true;
    }
    match report.child.as_ref().map(child_status) {
        Some(code) if code != 0 => code,
        _ => match report.interrupted_by {
            Some(signal) => signal_status(signal),
            None if failed => own_failure,
            // As grep: no line matched.
            None if report.no_match => EXIT_FAILURE,
            None => 0,
        },
    }
}

/// The command's status, passed on: statuses are 0-255 (wait(2) gives
/// the low byte), and 128+N after signal N.
fn child_status(child: &ChildReport) -> u8 {
    child.status() as u8
}

fn signal_status(signal: i32) -> u8 {
    EXIT_SIGNAL_BASE.wrapping_add(signal as u8)
}

/// Prints one line, `toolcap: MESSAGE`: a control character in a file name
/// or a value is escaped, so the message stays on its line.
fn print_error(message: &dyn std::fmt::Display) {
    let line: String = message
        .to_string()
        .chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_debug().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect();
    // Nothing sensible is left to do if stderr itself fails.
    let _ = writeln!(io::stderr().lock(), "toolcap: {line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bug_is_toolcaps_own_failure_in_every_mode() {
        let bug = Error::Panicked {
            doing: "reading the input",
        };
        for own_failure in [EXIT_FAILURE, EXIT_TOOLCAP_FAILED_WRAPPED] {
            assert_eq!(failure_status(&bug, own_failure), 125);
        }
        let io = Error::Io {
            context: "cannot install signal handlers".into(),
            source: io::Error::other("no"),
        };
        assert_eq!(failure_status(&io, EXIT_FAILURE), EXIT_FAILURE);
    }
}
