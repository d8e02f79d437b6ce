//! The toolcap binary: the program itself is [`toolcap::cli`], shared with
//! the Python package's `toolcap` command; the binary only hands it the
//! arguments and exits with the status it returns.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(toolcap::cli::main(std::env::args_os()))
}
