//! The toolcap binary: parses the command line, runs, and owns every exit
//! status and every error message.

mod cli;

use std::io::{self, Write};
use std::process::ExitCode;

use toolcap::config::Mode;

/// wrap mode: toolcap itself failed (as GNU timeout and env use it).
const EXIT_TOOLCAP_FAILED_WRAPPED: u8 = 125;
const EXIT_FAILURE: u8 = 1;

fn main() -> ExitCode {
    let config = match cli::parse() {
        Ok(config) => config,
        Err(stop) => {
            stop.print();
            return ExitCode::from(stop.exit_code());
        }
    };
    let wrapped = matches!(config.mode, Mode::Wrap(_));
    let own_failure = if wrapped {
        EXIT_TOOLCAP_FAILED_WRAPPED
    } else {
        EXIT_FAILURE
    };
    let outcome = match toolcap::run(&config) {
        Ok(outcome) => outcome,
        Err(err) if is_broken_pipe(&err) => return ExitCode::SUCCESS,
        Err(err) => {
            report(&err);
            return ExitCode::from(own_failure);
        }
    };
    let mut failed = false;
    for problem in outcome
        .problems
        .iter()
        .filter(|problem| !is_broken_pipe(problem))
    {
        report(problem);
        failed = true;
    }
    let code = match outcome.child.map(|child| child.exit_code()) {
        Some(code) if code != 0 => code,
        _ if failed => own_failure,
        _ => 0,
    };
    ExitCode::from(code)
}

fn report(err: &anyhow::Error) {
    // Nothing sensible is left to do if stderr itself fails.
    let _ = writeln!(io::stderr().lock(), "toolcap: {err:#}");
}

/// Rust ignores SIGPIPE, so a reader that went away (`toolcap | head`)
/// shows up as an EPIPE error somewhere in the chain. It is not a failure:
/// the reader has all it wanted.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io_err| io_err.kind() == io::ErrorKind::BrokenPipe)
    })
}
