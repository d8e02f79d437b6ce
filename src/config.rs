//! The plain, validated configuration that the command line turns into.
//! Nothing here parses arguments; `cli.rs` in the binary does.

use std::ffi::OsString;
use std::time::Duration;

use crate::capture::Budget;
use crate::source::Input;
use crate::spill::SpillTarget;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The budget of the main output stream.
    pub budget: Budget,
    pub header: bool,
    pub live: bool,
    pub spill: Option<SpillTarget>,
    pub mode: Mode,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Cap the concatenation of these inputs.
    Filter(Vec<Input>),
    /// Run a command and cap what it prints.
    Wrap(WrapConfig),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrapConfig {
    /// The program and its arguments (for `-c`, the shell, `-c`, STRING).
    pub argv: Vec<OsString>,
    pub stderr: StderrMode,
    pub timeout: Option<Duration>,
    pub kill_after: Duration,
    pub drain: Duration,
    pub status_line: bool,
    pub inherit_stdin: bool,
    pub plain_env: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StderrMode {
    /// One pipe for both, in the order the child wrote them (like `2>&1`).
    Merged,
    /// The child's stderr capped on its own, onto toolcap's stderr.
    Separate(Budget),
}
